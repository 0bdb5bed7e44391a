/* The diffraction kind's CUDA kernels (kernels.cu) behind C launchers:
 * every pointer is device memory, complex values are (re, im) double
 * pairs; each launcher returns the launch's cudaError_t as int and does not
 * synchronise. The sizes are common/diffraction/device.h's dif_dims. */
#ifndef ORRERY_CUDA_DIFFRACTION_KERNELS_H
#define ORRERY_CUDA_DIFFRACTION_KERNELS_H

#include "diffraction/device_types.h"

#ifdef __cplusplus
extern "C" {
#endif

int orr_cuda_dif_pad(const dif_dims *dm, const dif_device_bufs *b, int n_active, int in);
int orr_cuda_dif_multiply(const dif_dims *dm, const dif_device_bufs *b, int n_active);
int orr_cuda_dif_zop(const dif_dims *dm, const dif_device_bufs *b, int n_active, int in, int out);
int orr_cuda_dif_crop(const dif_dims *dm, const dif_device_bufs *b, int n_active, int out);
int orr_cuda_dif_dots(const dif_dims *dm, const dif_device_bufs *b, int n_active, int n_pairs,
                      dif_vidx vidx);
int orr_cuda_dif_lincomb(const dif_dims *dm, const dif_device_bufs *b, int n_active, int out,
                         int n_terms, dif_vidx vidx);

#ifdef __cplusplus
}
#endif

#endif
