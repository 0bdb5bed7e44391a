/* The OpenCL backend: separation integral chunks and star sums on the
 * device BOINC assigned (boinc_get_opencl_ids), or --platform/--device, or
 * the best double-precision device when run by hand. */
#ifndef ORRERY_OPENCL_BACKEND_H
#define ORRERY_OPENCL_BACKEND_H

#include "backend.h"

orr_status orr_open_opencl_backend(const orr_backend_request *req, orr_backend *be,
                                   orr_error *err);

/* The FDTD kind's OpenCL launches (fdtd/host.c). */
orr_status fdtd_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

/* The MoM kind's ops: the fill, the blocked LU (our panel and triangular
 * kernels, CLBlast's GEMM) and the solves (mom/host.c). */
orr_status mom_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

#endif
