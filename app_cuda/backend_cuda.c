/* CUDA backend: the device (device_cuda.c) and the kinds it accelerates;
 * each kind's CUDA host code (app_cuda/<kind>/host.c) runs its kernels
 * through the device layer. A CUDA failure is ORR_ERR_DEVICE (BOINC's
 * temporary exit) or ORR_ERR_DEVICE_UNFIT (an error: this device or
 * driver fails so every time), as orr_cuda_status classes it; results
 * from a failed computation are never used. */
#include "cuda_backend.h"

#include "device_cuda.h"
#include "separation/ops.h"
#include "spectral/ops.h"
#include "diffraction/diffraction.h"
#include "fdtd/fdtd.h"
#include "mom/mom.h"

static const orr_kind_attacher cuda_kinds[] = {
    {SEP_KIND_NAME, sep_cuda_attach},
    {SPEC_KIND_NAME, spec_cuda_attach},
    {DIF_KIND_NAME, dif_cuda_attach},
    {FDTD_KIND_NAME, fdtd_cuda_attach},
    {MOM_KIND_NAME, mom_cuda_attach},
};

orr_status orr_open_cuda_backend(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    return orr_device_backend_open("CUDA", orr_cuda_device_open, cuda_kinds,
                                   (int)ORR_ARRAY_LEN(cuda_kinds), req, be, err);
}
