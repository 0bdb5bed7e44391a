/* The device layer in OpenCL: opens the device and fills an orr_device
 * with the OpenCL mechanism (device_opencl.c). Each kind's OpenCL host
 * code (app_opencl/<kind>/host.c) builds and launches its kernels on it. */
#ifndef ORRERY_DEVICE_OPENCL_H
#define ORRERY_DEVICE_OPENCL_H

#include "cl_util.h"
#include "device/device.h"

/* What the kinds' OpenCL host code needs of the device (orr_device's
 * handle). */
typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    cl_context context;
    cl_command_queue queue;
    char vendor_options[128];   /* build options for this compiler */
    double idle_at;             /* when a wait last found the queue drained (0: never) */
} ocl_device;

static inline ocl_device *ocl_of(const orr_device *d) { return (ocl_device *)d->handle; }

/* BOINC's device (boinc_get_opencl_ids), else --platform/--device, else
 * the best double-precision device; none: ORR_ERR_DEVICE; without FP64:
 * ORR_ERR_DEVICE_UNFIT. */
orr_status orr_opencl_device_open(const orr_backend_request *req, orr_device *d, orr_error *err);

/* An orr_device around a context and queue made elsewhere (the bench),
 * which stay the caller's; free(d->handle) when done. */
orr_status orr_opencl_device_wrap(cl_context context, cl_device_id device,
                                  cl_command_queue queue, orr_device *d, orr_error *err);

/* The most bytes one copy or fill command moves (device_opencl.c says
 * why), and the size of the piece from done of bytes. */
#define ORR_OPENCL_PIECE ((size_t)256 << 20)
size_t ocl_piece(size_t done, size_t bytes);

/* Sets n kernel arguments, sizes[i] bytes at values[i]. */
orr_status ocl_set_args(cl_kernel k, int n, const size_t *sizes, const void *const *values,
                        orr_error *err);
/* Enqueues a 1D range of global work-items in groups of local. */
orr_status ocl_launch(orr_device *d, cl_kernel k, size_t global, size_t local, const char *what,
                      orr_error *err);

/* The kinds' OpenCL host code. */
orr_status sep_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status spec_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status dif_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

#endif
