/* The 1D spectral kernels' launchers (spectral.cu), callable from the C
 * host code. Every pointer is device memory; each launcher returns the
 * launch's cudaError_t as int (0: launched). They do not synchronise. */
#ifndef ORRERY_CUDA_SPECTRAL_1D_H
#define ORRERY_CUDA_SPECTRAL_1D_H

#ifdef __cplusplus
extern "C" {
#endif

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
