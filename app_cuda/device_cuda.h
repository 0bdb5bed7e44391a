/* The device layer in CUDA: opens the device and fills an orr_device with
 * the CUDA mechanism (device_cuda.c). Each kind's CUDA host code
 * (app_cuda/<kind>/host.c) launches its kernels on it. */
#ifndef ORRERY_DEVICE_CUDA_H
#define ORRERY_DEVICE_CUDA_H

#include "device/device.h"

/* BOINC's device, else --device, else the fastest in double precision;
 * missing or busy: ORR_ERR_DEVICE; without FP64, or a driver too old:
 * ORR_ERR_DEVICE_UNFIT. */
orr_status orr_cuda_device_open(const orr_backend_request *req, orr_device *d, orr_error *err);
int orr_cuda_device_number(const orr_device *d);

/* The class of a CUDA error (a cudaError_t): ORR_ERR_DEVICE where another
 * try on this host may work (BOINC's temporary exit), ORR_ERR_DEVICE_UNFIT
 * where it fails so every time; ORR_OK for cudaSuccess. */
orr_status orr_cuda_status(int code);
/* orr_cuda_status(code), naming what failed and the CUDA error. */
orr_status orr_cuda_fail(orr_error *err, int code, const char *what);

/* The kinds' CUDA host code. */
orr_status sep_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status spec_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status dif_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

#endif
