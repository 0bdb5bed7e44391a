/* The spectral kernels the CUDA app runs on the device (spectral_fft.cuh,
 * spectral_real.cuh), callable from the C backend. */
#include <cuda_runtime.h>

#include "spectral_1d.h"
#include "spectral_fft.cuh"
#include "spectral_real.cuh"

static_assert(ORR_CUDA_R2C == RK_R2C && ORR_CUDA_C2R == RK_C2R && ORR_CUDA_DCT2 == RK_DCT2 &&
                  ORR_CUDA_DCT3 == RK_DCT3 && ORR_CUDA_DHT == RK_DHT,
              "spectral_1d.h and spectral_real.cuh number the real kinds alike");

extern "C" int orr_cuda_fft_c2c(int single, int n, int batch, int inverse, const void *in, void *out,
                                const void *tw_double, const void *tw_single)
{
    const void *tw_t = single ? tw_single : tw_double;
    cudaError_t e = single ? fft_c2c_launch<float>(in, out, n, batch, (const double2 *)tw_double,
                                                   tw_t, inverse, 0)
                           : fft_c2c_launch<double>(in, out, n, batch, (const double2 *)tw_double,
                                                    tw_t, inverse, 0);
    return (int)e;
}

extern "C" int orr_cuda_fft_real(int kind, int single, int n, int batch, const void *in, void *out,
                                 const void *tw_double, const void *tw_single, const void *qt_double,
                                 const void *qt_single)
{
    cudaError_t e = single ? fft_real_launch<float>(kind, in, out, n, batch, tw_single, qt_single, 0)
                           : fft_real_launch<double>(kind, in, out, n, batch, tw_double, qt_double, 0);
    return (int)e;
}
