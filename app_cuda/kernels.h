/* The CUDA kernels' launchers, callable from the C backend. Every pointer
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

/* Batched complex FFT of n points (power of two, 4..4096) on device
 * buffers; tw_double / tw_single: e^{-2 pi j k / n}, k < n, as double2 and
 * float2 (spectral.cu). */
int orr_cuda_fft_c2c(int single, int n, int batch, int inverse, const void *in, void *out,
                     const void *tw_double, const void *tw_single);

/* The real kinds (spectral_real.cuh), each one fused kernel. */
#define ORR_CUDA_R2C 1
#define ORR_CUDA_C2R 2
#define ORR_CUDA_DCT2 3
#define ORR_CUDA_DCT3 4
#define ORR_CUDA_DHT 5

/* Batched real transform of kind (ORR_CUDA_*) of n reals (power of two,
 * 4..4096), packed device buffers in != out: R2C reads n reals and writes
 * n/2 + 1 complex a transform, C2R the reverse, the others n reals each.
 * tw_*: e^{-2 pi j k / n}, qt_*: e^{-j pi k / (2n)}, k < n, as double2 and
 * float2 (qt only for the DCTs; NULL otherwise). */
int orr_cuda_fft_real(int kind, int single, int n, int batch, const void *in, void *out,
                      const void *tw_double, const void *tw_single, const void *qt_double,
                      const void *qt_single);

#ifdef __cplusplus
}
#endif

#endif
