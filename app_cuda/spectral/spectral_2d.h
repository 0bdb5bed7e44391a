/* The CUDA app's 2D spectral kinds (FFT2, CONV2D, TRIDIAG): the backend's
 * entry on host buffers (spectral_2d_host.c) and the kernels' launchers on
 * device memory (spectral_2d.cu, which return a cudaError_t as int and do
 * not synchronise). */
#ifndef ORRERY_CUDA_SPECTRAL_2D_H
#define ORRERY_CUDA_SPECTRAL_2D_H

#include <stddef.h>

#include "spectral/spectral.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Runs d (SPEC_FFT2, SPEC_CONV2D or SPEC_TRIDIAG, valid by the plan's
 * rules) on host buffers: upload, poison the output, compute, download.
 * Twiddle tables and device buffers are kept in *state (NULL at first)
 * between calls. A size the kernels do not take is ORR_ERR_UNSUPPORTED;
 * a CUDA failure is ORR_ERR_DEVICE with the error's name. */
orr_status orr_cuda_spec2d_run(void **state, const spec_desc *d, const spec_buffers *b,
                               orr_error *err);
/* Frees what *state holds; *state becomes NULL. */
void orr_cuda_spec2d_release(void **state);

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
/* gtsv2StridedBatch layout; x may be rhs. */
int orr_cuda_tridiag(int single, int n, int batch, const void *dl, const void *d, const void *du,
                     const void *rhs, void *x);

#ifdef __cplusplus
}
#endif

#endif
