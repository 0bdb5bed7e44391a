/* The CUDA backend: separation integral chunks and star sums on the GPU
 * BOINC assigned (or --device, or the fastest FP64 device when run by hand). */
#ifndef ORRERY_CUDA_BACKEND_H
#define ORRERY_CUDA_BACKEND_H

#include "backend.h"

orr_status orr_open_cuda_backend(const orr_backend_request *req, orr_backend *be, orr_error *err);

/* The FDTD kind's CUDA launches (fdtd/host.c). */
orr_status fdtd_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

/* The MoM kind's CUDA ops: fill, cuSOLVER/cuBLAS LU and solves (mom/host.c). */
orr_status mom_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

#endif
