/* What a backend may accelerate of the diffraction kind: the batched
 * solver's pieces. The solver (solver.c) is written once over these ops;
 * the backend holds the batch's vectors and tables (on a GPU: in device
 * memory) and runs each piece for every active point of the batch at once
 * (one launch a piece on a GPU, converged points left out). A backend that
 * attaches nothing gets the reference (reference.c), which every backend
 * is tested against.
 *
 * Vectors are numbered 0..n_vectors-1; vector v of batch position b holds
 * the point's unknowns (nz slices x n_modes orders, slice-major, complex). */
#ifndef ORRERY_DIFFRACTION_OPS_H
#define ORRERY_DIFFRACTION_OPS_H

#include "../backend.h"
#include "diffraction.h"

/* One batch of points, as the kind hands it to a backend. */
typedef struct {
    int n;                           /* points */
    const int *points;               /* [n]: their numbers in the spectrum */
    const dif_point *pt;             /* [n]: their tables */
    int n_spectra;                   /* distinct wavelengths in the batch */
    const double complex *spectra;   /* [n_spectra][nz][fft_y * fft_x] (dif_contrast_spectra) */
    const int *spectrum_of;          /* [n]: each point's */
} dif_batch;

typedef struct dif_ctx dif_ctx;   /* a backend's storage for batches */

typedef struct {
    /* Storage for batches of up to capacity points and n_vectors vectors;
     * the largest capacity the backend can hold at most *capacity (it may
     * lower it, never below 1). */
    orr_status (*open)(void *state, const dif_workunit *wu, const dif_setup *s, int *capacity,
                       int n_vectors, dif_ctx **ctx, orr_error *err);
    void (*close)(dif_ctx *ctx);
    /* The batch's tables (kept until the next load). */
    orr_status (*load)(dif_ctx *ctx, const dif_batch *b, orr_error *err);
    /* For the active batch positions: out = A in (the operator
     * I - k0^2 G deps), or out = deps * in (the convolution alone). */
    orr_status (*matvec)(dif_ctx *ctx, const int *active, int n_active, int in, int out,
                         orr_error *err);
    orr_status (*conv)(dif_ctx *ctx, const int *active, int n_active, int in, int out,
                       orr_error *err);
    /* dots[a * n_pairs + k] = <v[2k], v[2k+1]> (conjugating the first) of
     * active position a. */
    orr_status (*dots)(dif_ctx *ctx, const int *active, int n_active, int n_pairs, const int *v,
                       double complex *dots, orr_error *err);
    /* out = sum_k coef[a * n_terms + k] v[k] for active position a; out
     * may be one of v. */
    orr_status (*lincomb)(dif_ctx *ctx, const int *active, int n_active, int out, int n_terms,
                          const int *v, const double complex *coef, orr_error *err);
    /* Host copies of vector v of batch position b, both ways. */
    orr_status (*read)(dif_ctx *ctx, int b, int v, double complex *host, orr_error *err);
    orr_status (*write)(dif_ctx *ctx, int b, int v, const double complex *host, orr_error *err);
    /* Optional (a CPU's): lanes, views of ctx that run the ops above on
     * one thread with scratch of their own over the same storage (a lane
     * touches only the positions it is given). run_lanes calls fn(arg,
     * lane i, i) for every i < lanes(ctx) at once. The solver then takes
     * each lane's share of the points through a whole iteration one point
     * at a time, so a point's vectors stay in its core's cache from op to
     * op and the threads wake once an iteration. NULL: every op takes the
     * whole batch, as a GPU wants. The results are the same bits. */
    int (*lanes)(const dif_ctx *ctx);
    void (*run_lanes)(dif_ctx *ctx, void (*fn)(void *arg, dif_ctx *lane, int i), void *arg);
} dif_ops;

/* The reference; its state a dif_reference_state (NULL: the calling
 * thread alone, FFTs on the best CPU path). */
extern const dif_ops dif_reference_ops;
typedef struct {
    struct orr_pool *pool;   /* the CPU backend's threads: they share each op's points */
    orr_cpu_isa isa;         /* the CPU backend's path: the FFTs' lane kernels */
} dif_reference_state;

/* A backend's diffraction ops (the reference when it attaches none), and
 * their state. */
typedef struct {
    const dif_ops *ops;
    void *state;
} dif_bound_ops;
orr_status dif_ops_of(orr_backend *be, dif_bound_ops *out, orr_error *err);

/* ---- the reference's pieces, one point at a time (CPU backends reuse them) ---- */

/* Scratch for one point's convolution: FFT plans over its slices on the
 * CPU path isa, and the padded grids. */
typedef struct dif_conv_scratch dif_conv_scratch;
orr_status dif_conv_scratch_create(const dif_setup *s, orr_cpu_isa isa, dif_conv_scratch **out,
                                   orr_error *err);
void dif_conv_scratch_destroy(dif_conv_scratch *c);
/* w = deps * x for one point (spectra: its wavelength's). */
orr_status dif_conv_point(const dif_setup *s, dif_conv_scratch *c, const double complex *spectra,
                          const double complex *x, double complex *w, orr_error *err);
/* y = x - c (G w) for one point: every order's z operator (zop.h). */
void dif_zop_point(const dif_setup *s, const dif_point *pt, const double complex *x,
                   const double complex *w, double complex *y);

#endif
