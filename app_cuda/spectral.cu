/* The spectral kernels the CUDA app runs on the device (spectral_fft.cuh),
 * callable from the C backend. */
#include <cuda_runtime.h>

#include "spectral_fft.cuh"

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
