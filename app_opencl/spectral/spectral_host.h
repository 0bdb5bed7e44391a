/* The OpenCL spectral kernels, host side (spectral_host.c): one program
 * per precision (app_opencl/spectral/spectral.cl, embedded), built on the first
 * spectral call; twiddle tables cached per size on the device. */
#ifndef ORRERY_SPECTRAL_HOST_H
#define ORRERY_SPECTRAL_HOST_H

#include "../cl_util.h"
#include "spectral/spectral.h"

typedef struct ocl_spectral ocl_spectral;

/* State for one device and queue (not owned); NULL when out of memory. */
ocl_spectral *ocl_spectral_new(cl_context context, cl_device_id device, cl_command_queue queue);
void ocl_spectral_free(ocl_spectral *sp);

/* Runs desc on host buffers: upload, compute, download (be->spec_run's
 * contract in backend.h). ORR_ERR_UNSUPPORTED, naming the size, for what
 * the device does not take. */
orr_status ocl_spectral_run(ocl_spectral *sp, const spec_desc *d, const spec_buffers *b,
                            orr_error *err);

/* Enqueues a packed, batched C2C or R2C on device buffers (in is
 * overwritten by the C2C's four-step path); for the benchmark: data stay
 * resident. Waits for nothing. */
orr_status ocl_spectral_enqueue(ocl_spectral *sp, const spec_desc *d, cl_mem in, cl_mem out,
                                orr_error *err);

#endif
