/* The OpenCL spectral kernels, host side (host.c): one program per
 * precision (app_opencl/spectral/spectral.cl, embedded), built on the first
 * spectral call. The app reaches them through the shared GPU policy
 * (spec_opencl_attach); the benchmark through these calls. */
#ifndef ORRERY_SPECTRAL_HOST_H
#define ORRERY_SPECTRAL_HOST_H

#include "../cl_util.h"
#include "device/device.h"
#include "spectral/spectral.h"

typedef struct ocl_spectral ocl_spectral;

/* State for one OpenCL device (not owned; orr_opencl_device_wrap makes
 * one around a context and queue); NULL when out of memory. */
ocl_spectral *ocl_spectral_new(orr_device *dev);
void ocl_spectral_free(ocl_spectral *sp);

/* Enqueues a packed, batched C2C, R2C or FFT2 on device buffers (in is
 * overwritten by the C2C's four-step path); for the benchmark and for
 * kinds whose data stay resident (diffraction's padded grids). Waits for
 * nothing. sp's twiddle tables are its own (ocl_spectral_new's). */
orr_status ocl_spectral_enqueue(ocl_spectral *sp, const spec_desc *d, cl_mem in, cl_mem out,
                                orr_error *err);

#endif
