/* The 2D spectral kinds' kernels (spectral_2d.cuh) behind C launchers for
 * the backend (spectral_2d.h): precision chosen at run time, each launcher
 * returning the launch's cudaError_t as int. */
#include <cuda_runtime.h>

#include "spectral_2d.cuh"
#include "spectral_2d.h"

static_assert(FFT2D_TW_N == ORR_CUDA_2D_TW_N, "one twiddle table size");
static_assert(TRIDIAG_MAX_N == ORR_CUDA_TRIDIAG_MAX_N, "one tridiagonal limit");

extern "C" size_t orr_cuda_spec2d_smem(int kind, int single, int n, int n2)
{
    const size_t real = single ? sizeof(float) : sizeof(double), cpx = 2 * real;
    switch (kind) {
    case SPEC_FFT2: return fft2_smem_needed(n, n2, cpx);
    case SPEC_CONV2D: return conv2d_shape_of(n, n2, cpx, 0).smem;   /* the least it takes */
    case SPEC_TRIDIAG: return tridiag_shape_of(n, real).smem;
    default: return 0;
    }
}

extern "C" int orr_cuda_fft2(int single, int n1, int n2, int batch, int inverse, const void *in,
                             void *out, const void *tw)
{
    if (single)
        return (int)fft2_launch<float2>((const float2 *)in, (float2 *)out, n1, n2, batch, inverse,
                                        (const float2 *)tw, 0);
    return (int)fft2_launch<double2>((const double2 *)in, (double2 *)out, n1, n2, batch, inverse,
                                     (const double2 *)tw, 0);
}

extern "C" int orr_cuda_conv2d(int single, int mfft, int m, int batch, int per_shape,
                               const void *slices, const void *shapes_perm, void *out,
                               const void *tw)
{
    if (single)
        return (int)conv2d_launch<float>((const float2 *)slices, (const float *)shapes_perm,
                                         (float2 *)out, mfft, m, batch, per_shape,
                                         (const float2 *)tw, 0);
    return (int)conv2d_launch<double>((const double2 *)slices, (const double *)shapes_perm,
                                      (double2 *)out, mfft, m, batch, per_shape,
                                      (const double2 *)tw, 0);
}

extern "C" int orr_cuda_tridiag(int single, int n, int batch, const void *dl, const void *d,
                                const void *du, const void *rhs, void *x, int *status)
{
    if (single)
        return (int)tridiag_launch<float>((const float *)dl, (const float *)d, (const float *)du,
                                          (const float *)rhs, (float *)x, n, batch, 0, status);
    return (int)tridiag_launch<double>((const double *)dl, (const double *)d, (const double *)du,
                                       (const double *)rhs, (double *)x, n, batch, 0, status);
}
