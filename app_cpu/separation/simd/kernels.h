/* The separation kernels one ISA provides. kernels.c is compiled once per
 * ISA (see vec.h); the CPU backend picks a table at run time from what the
 * CPU supports, or the one --cpu-path names. */
#ifndef ORRERY_SIMD_KERNELS_H
#define ORRERY_SIMD_KERNELS_H

#include "separation/separation.h"

/* Node arrays are padded to a multiple of the widest vector; padding nodes
 * carry weight 0 and a copy of a real node's r, so they add exactly 0. */
#define SEP_SIMD_PAD 8

typedef struct {
    const sep_model_consts *mc;
    const sep_setup *setup;
    int cpad;                               /* convolve rounded up to SEP_SIMD_PAD */
    double *r_point[SEP_MAX_AREAS];         /* [r * cpad + c] */
    double *qw[SEP_MAX_AREAS];
} sep_simd_tables;

typedef struct {
    const char *name;
    /* Chunk partial sums, as sep_integral_chunks defines them (one chunk). */
    void (*integral_chunk)(const sep_simd_tables *t, int area, int nu_step, int mu_begin,
                           int mu_end, sep_partial *out);
    /* One direction's node sums without K (a star's probabilities): the
     * background sum is returned, the streams' go to st. */
    double (*node_sums)(const sep_model_consts *mc, const sep_direction *d, const double *r_point,
                        const double *qw, int cpad, double *st);
    /* The kernels' exp, exposed for its accuracy test. */
    void (*exp)(const double *x, double *y, int n);
} sep_simd_kernels;

extern const sep_simd_kernels sep_simd_sse2, sep_simd_avx2, sep_simd_avx512;

#endif
