/* OpenCL backend: the device (device_opencl.c) and the kinds it
 * accelerates; each kind's OpenCL host code (app_opencl/<kind>/host.c)
 * builds and runs its kernels through the device layer. An OpenCL failure
 * is ORR_ERR_DEVICE (BOINC's temporary exit) or ORR_ERR_DEVICE_UNFIT (an
 * error: this device fails so every time), as cl_status classes it;
 * results from a failed computation are never used. */
#include "opencl_backend.h"

#include "device_opencl.h"
#include "separation/ops.h"
#include "spectral/ops.h"
#include "diffraction/diffraction.h"
#include "fdtd/fdtd.h"
#include "mom/mom.h"

static const orr_kind_attacher opencl_kinds[] = {
    {SEP_KIND_NAME, sep_opencl_attach},
    {SPEC_KIND_NAME, spec_opencl_attach},
    {DIF_KIND_NAME, dif_opencl_attach},
    {FDTD_KIND_NAME, fdtd_opencl_attach},
    {MOM_KIND_NAME, mom_opencl_attach},
};

orr_status orr_open_opencl_backend(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    return orr_device_backend_open("OpenCL", orr_opencl_device_open, opencl_kinds,
                                   (int)ORR_ARRAY_LEN(opencl_kinds), req, be, err);
}
