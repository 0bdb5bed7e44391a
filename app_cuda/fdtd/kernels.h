/* The FDTD kind's CUDA kernels (kernels.cu) behind C launchers: every
 * pointer in fdtd_device_bufs is device memory; each launcher picks the
 * build for the precision, arithmetic and boundary of dm, returns the
 * launch's cudaError_t as int and does not synchronise. The arguments are
 * common/fdtd/device.h's (fdtd_device_kernels). */
#ifndef ORRERY_CUDA_FDTD_KERNELS_H
#define ORRERY_CUDA_FDTD_KERNELS_H

#include "fdtd/device.h"

#ifdef __cplusplus
extern "C" {
#endif

int orr_cuda_fdtd_e(const fdtd_dims *dm, const fdtd_device_bufs *b);
int orr_cuda_fdtd_h(const fdtd_dims *dm, const fdtd_device_bufs *b, int64_t rows_at);
int orr_cuda_fdtd_points(const fdtd_dims *dm, const fdtd_device_bufs *b, int do_src, int src_field,
                         int64_t src_at, double value, int64_t out_at);
int orr_cuda_fdtd_norm(const fdtd_dims *dm, const fdtd_device_bufs *b, int f);

#ifdef __cplusplus
}
#endif

#endif
