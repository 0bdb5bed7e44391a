/* The CUDA app's 2D spectral kinds (FFT2, CONV2D, TRIDIAG): the kernels'
 * launchers on device memory (spectral_2d.cu, which return a cudaError_t
 * as int and do not synchronise); host.c calls them. */
#ifndef ORRERY_CUDA_SPECTRAL_2D_H
#define ORRERY_CUDA_SPECTRAL_2D_H

#include <stddef.h>

#include "spectral/spectral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- launchers (spectral_2d.cu); every pointer is device memory ---- */

/* Largest side of a 2D FFT (and mfft) the twiddle table covers; tw
 * arguments are this many roots e^{-2 pi j k / ORR_CUDA_2D_TW_N} of the
 * precision (float2 or double2). */
#define ORR_CUDA_2D_TW_N 4096
/* Systems of the tridiagonal solver: at most this many rows. */
#define ORR_CUDA_TRIDIAG_MAX_N 2048

/* Dynamic shared memory (bytes) the kind's kernels need for these sizes
 * (n, n2 as in spec_desc); the host compares it with the device's limit. */
size_t orr_cuda_spec2d_smem(int kind, int single, int n, int n2);

/* batch n1 x n2 packed images; in == out allowed; inverse with 1/(n1 n2). */
int orr_cuda_fft2(int single, int n1, int n2, int batch, int inverse, const void *in, void *out,
                  const void *tw);
/* batch M x M slices; shapes_perm: one mfft x mfft real array per
 * per_shape consecutive slices, permuted: shapes_perm[q][p] =
 * S[rev q][rev p] (rev: the log2 mfft bits reversed). */
int orr_cuda_conv2d(int single, int mfft, int m, int batch, int per_shape, const void *slices,
                    const void *shapes_perm, void *out, const void *tw);
/* gtsv2StridedBatch layout; x may be rhs. status: an int a system, set to
 * -1 where the elimination meets a zero or non-finite pivot and left as
 * it is elsewhere (the caller zeroes it first). */
int orr_cuda_tridiag(int single, int n, int batch, const void *dl, const void *d, const void *du,
                     const void *rhs, void *x, int *status);

#ifdef __cplusplus
}
#endif

#endif
