/* The FDTD kind's CUDA launches, as the shared GPU policy calls them
 * (common/fdtd/device.h): the kernels of kernels.cu, built with
 * --fmad=false and IEEE division (nvcc's default), so every precision and
 * arithmetic runs bit-faithfully on any CUDA device: nothing to refuse. */
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include "../cuda_backend.h"
#include "../device_cuda.h"
#include "fdtd/device.h"
#include "kernels.h"

static orr_status check(int e, const char *what, orr_error *err)
{
    return e ? orr_cuda_fail(err, e, what) : ORR_OK;
}

static orr_status prepare(orr_device *d, void *kern, const fdtd_dims *dm, orr_error *err)
{
    return ORR_OK;
}

/* What is free now; one allocation may take all of it. */
static orr_status memory(orr_device *d, void *kern, double *avail, double *one_buffer,
                         orr_error *err)
{
    size_t free_bytes = 0, total = 0;
    orr_status st = check(cudaMemGetInfo(&free_bytes, &total), "reading the free device memory", err);
    *avail = *one_buffer = (double)free_bytes;
    return st;
}

static orr_status e_phase(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                          orr_error *err)
{
    return check(orr_cuda_fdtd_e(dm, b), "launching the E phase", err);
}

static orr_status h_phase(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                          int64_t rows_at, orr_error *err)
{
    return check(orr_cuda_fdtd_h(dm, b, rows_at), "launching the H phase", err);
}

static orr_status points(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                         int do_src, int src_field, int64_t src_at, double value, int64_t out_at,
                         orr_error *err)
{
    return check(orr_cuda_fdtd_points(dm, b, do_src, src_field, src_at, value, out_at),
                 do_src ? "launching the source" : "launching the probes", err);
}

static orr_status norm(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                       int f, orr_error *err)
{
    return check(orr_cuda_fdtd_norm(dm, b, f), "launching the norms", err);
}

static const fdtd_device_kernels cuda_fdtd_kernels = {prepare, memory, e_phase, h_phase,
                                                      points,  norm,   NULL};

orr_status fdtd_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    return fdtd_device_attach(be->ctx, &cuda_fdtd_kernels, NULL, slot, err);
}
