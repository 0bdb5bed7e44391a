/* The separation kernels' launchers, callable from the C host code. Every pointer
 * is device memory; each launcher returns the launch's cudaError_t as int
 * (0: launched). They do not synchronise. */
#ifndef ORRERY_CUDA_KERNELS_H
#define ORRERY_CUDA_KERNELS_H

#include "separation/separation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One area's tables on the device (uploaded once per setup). */
typedef struct {
    int r_steps, mu_steps, nu_steps, convolve;
    const double *r_point, *qw_r3_N;   /* [r * convolve + c] */
    const double *irv, *reff_xr_rp3;   /* [r] */
    const double *id;                  /* [nu] */
    const sep_direction *dirs;         /* [nu * mu_steps + mu] */
} orr_cuda_area;

/* The model constants of the member being computed (constant memory). */
int orr_cuda_set_model(const sep_model_consts *mc);

/* Chunks first..first+count-1 of the area, one block each, into out[0..count). */
int orr_cuda_integral_chunks(const orr_cuda_area *area, int n_streams, int first, int count,
                             sep_partial *out);

/* dirs[nu * mu_steps + mu] = the line of sight through column (nu, mu):
 * mu at mu_min + (mu + 0.5) mu_step, nu at nu[nu] (device table). */
int orr_cuda_column_directions(int wedge, double mu_min, double mu_step, const double *nu,
                               int nu_steps, int mu_steps, sep_direction *dirs);

/* Integral blocks one SM runs at once for this stream count (>= 1). */
int orr_cuda_integral_blocks_per_sm(int n_streams);

/* Node sums of n lines of sight (stars): dirs[i], nodes r_point/qw_r3_N
 * [i * convolve + c]; bg[i] and st[i * n_streams + s] without K. */
int orr_cuda_star_sums(int n, int convolve, int n_streams, const sep_direction *dirs,
                       const double *r_point, const double *qw_r3_N, double *bg, double *st);

#ifdef __cplusplus
}
#endif

#endif
