/* The device layer in CUDA (common/device/device.h): buffers, copies and
 * waits through the runtime API, every return code checked and named, and
 * the device BOINC assigned, else --device, else the fastest in double
 * precision. The host thread sleeps while kernels run
 * (cudaDeviceScheduleBlockingSync). */
#include "device_cuda.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "runtime/runtime.h"

/* The errors another try on this host may mend (ORR_ERR_DEVICE, BOINC's
 * temporary exit): memory taken now, the device busy or held by another
 * process, a device missing now (lost, or its driver reloading), a kernel
 * the display watchdog stopped while the desktop was busy, a driver
 * updated and waiting for the reboot that mends it. Every other error
 * fails here every time (ORR_ERR_DEVICE_UNFIT: an error, so the server
 * sends the task to another host): no kernel image or PTX this driver
 * takes, too many registers or threads for this device, a driver older
 * than this build's runtime or none at all (cudaErrorInsufficientDriver:
 * a plan class that checks the driver version sends no work there, so
 * the host changed or the plan class is too loose; the volunteer must
 * update it), a fault in a kernel. An error shows the project what a
 * temporary exit repeated until the deadline would hide. */
static const cudaError_t temporary_errors[] = {
    cudaErrorMemoryAllocation, cudaErrorInitializationError, cudaErrorDevicesUnavailable,
    cudaErrorDeviceAlreadyInUse, cudaErrorNoDevice, cudaErrorLaunchTimeout,
    cudaErrorSystemNotReady, cudaErrorSystemDriverMismatch,
};

orr_status orr_cuda_status(int code)
{
    if (code == cudaSuccess)
        return ORR_OK;
    for (size_t i = 0; i < ORR_ARRAY_LEN(temporary_errors); i++)
        if (temporary_errors[i] == (cudaError_t)code)
            return ORR_ERR_DEVICE;
    return ORR_ERR_DEVICE_UNFIT;
}

orr_status orr_cuda_fail(orr_error *err, int code, const char *what)
{
    const cudaError_t e = (cudaError_t)code;
    return orr_fail(err, orr_cuda_status(code), "CUDA: %s: %s (%s)", what, cudaGetErrorString(e),
                    cudaGetErrorName(e));
}

#define CUDA_TRY(call, what)                                                                  \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return orr_cuda_fail(err, e_, what);                                              \
    } while (0)

static orr_status cu_alloc(orr_device *d, size_t bytes, orr_dmem *out, orr_error *err)
{
    (void)d;
    *out = NULL;
    CUDA_TRY(cudaMalloc(out, bytes), "allocating device memory");
    return ORR_OK;
}

static void cu_release(orr_device *d, orr_dmem mem)
{
    (void)d;
    cudaFree(mem);
}

static orr_status cu_upload(orr_device *d, orr_dmem dst, size_t offset, const void *src,
                            size_t bytes, orr_error *err)
{
    (void)d;
    CUDA_TRY(cudaMemcpy((char *)dst + offset, src, bytes, cudaMemcpyHostToDevice),
             "copying to the device");
    return ORR_OK;
}

/* Waits for the kernels first (sleeping, by the blocking-sync flag): a
 * kernel's failure is named as the kernel's, not the copy's. */
static orr_status cu_download(orr_device *d, void *dst, orr_dmem src, size_t offset, size_t bytes,
                              orr_error *err)
{
    (void)d;
    CUDA_TRY(cudaDeviceSynchronize(), "running the kernels");
    CUDA_TRY(cudaMemcpy(dst, (const char *)src + offset, bytes, cudaMemcpyDeviceToHost),
             "copying from the device");
    return ORR_OK;
}

static orr_status cu_fill(orr_device *d, orr_dmem dst, unsigned char byte, size_t bytes,
                          orr_error *err)
{
    (void)d;
    CUDA_TRY(cudaMemset(dst, byte, bytes), "filling device memory");
    return ORR_OK;
}

static orr_status cu_finish(orr_device *d, double expected_s, orr_error *err)
{
    (void)d;
    (void)expected_s;   /* the blocking-sync flag sleeps by itself */
    CUDA_TRY(cudaDeviceSynchronize(), "running the kernels");
    return ORR_OK;
}

static const orr_device_api cuda_api = {"CUDA",      cu_alloc, cu_release, cu_upload,
                                        cu_download, cu_fill,  cu_finish,  NULL};

/* FP64 throughput score from device attributes: SMs x clock / (FP32:FP64). */
static void describe(int dev, orr_device_candidate *c)
{
    int sms = 0, clock_khz = 0, ratio = 1, major = 0, minor = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    c->score = (double)sms * clock_khz / (ratio > 0 ? ratio : 1);
    /* Double precision arrived with compute capability 1.3. */
    c->fp64 = major * 10 + minor >= 13;
}

/* BOINC's device, else --device, else the best. */
static orr_status choose(const orr_backend_request *req, int *dev, int *by_client, orr_error *err)
{
    const orr_init_data *id = orr_runtime_init_data();
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    /* none at all: lost, or its driver not loaded yet (temporary) */
    if (e != cudaSuccess || count == 0)
        return orr_fail(err, e != cudaSuccess ? orr_cuda_status(e) : ORR_ERR_DEVICE,
                        "no usable CUDA device: %s",
                        e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    *by_client = orr_device_assigned_by_client();
    if (*by_client) {
        /* the same on every try: the scheduler sent the wrong app */
        if (strcmp(id->gpu_type, "NVIDIA") != 0)
            return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                            "the client assigned a %s GPU to the CUDA app", id->gpu_type);
        /* a device the client saw at its start and CUDA does not see now */
        *dev = id->gpu_device_num >= 0 ? id->gpu_device_num : 0;
        if (*dev >= count)
            return orr_fail(err, ORR_ERR_DEVICE, "CUDA device %d does not exist (%d found)", *dev,
                            count);
        return ORR_OK;
    }
    orr_device_candidate c[64];
    if (count > 64)
        count = 64;
    for (int i = 0; i < count; i++)
        describe(i, &c[i]);
    return orr_device_pick(c, count, req->device, "CUDA", dev, err);
}

/* The device's context with blocking synchronisation, and its log line. */
static orr_status start(int dev, int by_client, orr_device *d, orr_error *err)
{
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    CUDA_TRY(cudaGetDeviceProperties(&prop, dev), "reading the device's properties");
    snprintf(d->name, sizeof d->name, "%s", prop.name);
    orr_device_candidate c;
    describe(dev, &c);
    /* A device without double precision never gains it: an error, so
     * that the server sends the task to another host. */
    if (!c.fp64)
        return orr_fail(err, ORR_ERR_DEVICE_UNFIT, "CUDA device %d (%s) has no double precision",
                        dev, d->name);
    CUDA_TRY(cudaSetDevice(dev), "selecting the device");
    /* Sleep in synchronisation instead of spinning (before the context). */
    cudaError_t fe = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (fe != cudaSuccess && fe != cudaErrorSetOnActiveProcess)
        return orr_cuda_fail(err, fe, "setting blocking synchronisation");
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    d->compute_units = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    d->memory_bytes = (double)prop.totalGlobalMem;   /* one buffer may take all of it */
    d->max_buffer_bytes = (double)prop.totalGlobalMem;
    orr_log("CUDA backend: device %d, %s (compute %d.%d, %d SMs%s), driver %d.%d, runtime %d.%d",
            dev, d->name, prop.major, prop.minor, prop.multiProcessorCount,
            by_client ? ", assigned by BOINC" : "", driver / 1000, driver % 1000 / 10,
            runtime / 1000, runtime % 1000 / 10);
    return ORR_OK;
}

orr_status orr_cuda_device_open(const orr_backend_request *req, orr_device *d, orr_error *err)
{
    int dev = 0, by_client = 0;
    memset(d, 0, sizeof *d);
    d->api = &cuda_api;
    d->request = *req;
    orr_status st = choose(req, &dev, &by_client, err);
    if (st == ORR_OK)
        st = start(dev, by_client, d, err);
    if (st == ORR_OK)
        d->handle = (void *)(size_t)dev;
    return st;
}

int orr_cuda_device_number(const orr_device *d) { return (int)(size_t)d->handle; }
