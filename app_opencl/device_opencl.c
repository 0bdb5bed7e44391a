/* The device layer in OpenCL (common/device/device.h): buffers, copies
 * and waits through the OpenCL API, every return code checked and named,
 * and the device BOINC assigned (boinc_get_opencl_ids), else
 * --platform/--device, else the best FP64 device. Some drivers spin in
 * clFinish, so waits flush, sleep for part of the expected time, then
 * poll an event (ocl_wait_sleeping). */
#include "device_opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "runtime/runtime.h"
/* The benchmark builds this file without the client (ORR_OPENCL_NO_CLIENT). */
#if HAVE_BOINC && !defined(ORR_OPENCL_NO_CLIENT)
#define ORR_OPENCL_CLIENT 1
#include "runtime/boinc_shim.h"
#endif

static orr_status cl_alloc(orr_device *d, size_t bytes, orr_dmem *out, orr_error *err)
{
    cl_int e;
    *out = clCreateBuffer(ocl_of(d)->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS) {
        *out = NULL;
        return cl_fail(err, e, "allocating device memory");
    }
    return ORR_OK;
}

static void cl_release(orr_device *d, orr_dmem mem)
{
    (void)d;
    clReleaseMemObject((cl_mem)mem);
}

/* Copies and fills go in pieces of at most ORR_OPENCL_PIECE bytes, each
 * well below 2^31: on an H200 with NVIDIA's OpenCL a MoM run at n = 12000
 * (Z 2.3 GB, filled and read back whole) failed with -9999 where n = 10000
 * (1.6 GB) had worked; not isolated further, and not run again since. */
size_t ocl_piece(size_t done, size_t bytes)
{
    return bytes - done < ORR_OPENCL_PIECE ? bytes - done : ORR_OPENCL_PIECE;
}

static orr_status cl_upload(orr_device *d, orr_dmem dst, size_t offset, const void *src,
                            size_t bytes, orr_error *err)
{
    for (size_t at = 0; at < bytes; at += ORR_OPENCL_PIECE)
        CL_TRY(clEnqueueWriteBuffer(ocl_of(d)->queue, (cl_mem)dst, CL_TRUE, offset + at,
                                    ocl_piece(at, bytes), (const char *)src + at, 0, NULL, NULL),
               "copying to the device");
    return ORR_OK;
}

/* Queued: the data is there after finish. */
static orr_status cl_download(orr_device *d, void *dst, orr_dmem src, size_t offset, size_t bytes,
                              orr_error *err)
{
    for (size_t at = 0; at < bytes; at += ORR_OPENCL_PIECE)
        CL_TRY(clEnqueueReadBuffer(ocl_of(d)->queue, (cl_mem)src, CL_FALSE, offset + at,
                                   ocl_piece(at, bytes), (char *)dst + at, 0, NULL, NULL),
               "copying from the device");
    return ORR_OK;
}

/* A pattern of 16 equal bytes where the size allows: drivers fill wide
 * patterns faster. */
static orr_status cl_fill(orr_device *d, orr_dmem dst, unsigned char byte, size_t bytes,
                          orr_error *err)
{
    unsigned char pattern[16];
    memset(pattern, byte, sizeof pattern);
    const size_t width = bytes % sizeof pattern == 0 ? sizeof pattern : 1;
    for (size_t at = 0; at < bytes; at += ORR_OPENCL_PIECE)
        CL_TRY(clEnqueueFillBuffer(ocl_of(d)->queue, (cl_mem)dst, pattern, width, at,
                                   ocl_piece(at, bytes), 0, NULL, NULL),
               "filling device memory");
    return ORR_OK;
}

/* The device has run this batch since the queue last drained: its
 * launches start while the host still enqueues the rest. */
static orr_status cl_finish(orr_device *d, double expected_s, orr_error *err)
{
    ocl_device *o = ocl_of(d);
    cl_event done = NULL;
    cl_int e = clEnqueueMarkerWithWaitList(o->queue, 0, NULL, &done);
    const double running = o->idle_at > 0 ? orr_runtime_seconds() - o->idle_at : 0;
    if (e == CL_SUCCESS)
        e = ocl_wait_sleeping(o->queue, done, expected_s, running);
    o->idle_at = orr_runtime_seconds();
    if (done)
        clReleaseEvent(done);
    if (e != CL_SUCCESS)
        return cl_fail(err, e, "running the kernels");
    return ORR_OK;
}

static void cl_close(orr_device *d);

static const orr_device_api opencl_api = {"OpenCL",    cl_alloc, cl_release, cl_upload,
                                          cl_download, cl_fill,  cl_finish,  cl_close};

orr_status ocl_set_args(cl_kernel k, int n, const size_t *sizes, const void *const *values,
                        orr_error *err)
{
    for (int i = 0; i < n; i++)
        CL_TRY(clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]), "setting kernel arguments");
    return ORR_OK;
}

orr_status ocl_launch(orr_device *d, cl_kernel k, size_t global, size_t local, const char *what,
                      orr_error *err)
{
    CL_TRY(clEnqueueNDRangeKernel(ocl_of(d)->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
           what);
    return ORR_OK;
}

/* ---- choosing the device ---- */

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    orr_device_candidate rank;
    char name[256], vendor[128], version[128], driver[128], platform_name[128];
} device_info;

/* Tests set ORR_OPENCL_HIDE_FP64=1 to see the refusal on a device that has
 * double precision (PoCL). */
static int fp64_hidden(void)
{
    const char *v = getenv("ORR_OPENCL_HIDE_FP64");
    return v && *v && strcmp(v, "0") != 0;
}

static void describe(cl_platform_id p, cl_device_id d, device_info *info)
{
    cl_device_fp_config fp = 0;
    cl_uint units = 0, clock = 0;
    memset(info, 0, sizeof *info);
    info->platform = p;
    info->device = d;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof info->type, &info->type, NULL);
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VENDOR, sizeof info->vendor - 1, info->vendor, NULL);
    clGetDeviceInfo(d, CL_DEVICE_VERSION, sizeof info->version - 1, info->version, NULL);
    clGetDeviceInfo(d, CL_DRIVER_VERSION, sizeof info->driver - 1, info->driver, NULL);
    clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof info->platform_name - 1, info->platform_name, NULL);
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS)
        fp = 0;
    info->rank.fp64 = fp != 0 && !fp64_hidden();
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock, NULL);
    /* OpenCL reports no FP64 rate: compute units x clock, and any GPU or
     * accelerator before a CPU device. */
    info->rank.score = (double)units * (clock ? clock : 1);
    if (!(info->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
        info->rank.score *= 1e-9;
}

/* Up to 64 devices of every platform asked for (--device alone counts on
 * the first platform), described in order. */
static orr_status list_devices(const orr_backend_request *req, device_info *out, int *n,
                               orr_error *err)
{
    cl_platform_id platforms[16];
    cl_uint n_platforms = 0;
    cl_int e = clGetPlatformIDs(16, platforms, &n_platforms);
    if (e != CL_SUCCESS || n_platforms == 0)
        return orr_fail(err, ORR_ERR_DEVICE, "no OpenCL platform found%s%s",
                        e != CL_SUCCESS ? ": " : "", e != CL_SUCCESS ? cl_error_name(e) : "");
    if (n_platforms > 16)
        n_platforms = 16;
    if (req->platform >= (int)n_platforms)
        return orr_fail(err, ORR_ERR_USAGE, "OpenCL platform %d does not exist (%u found)",
                        req->platform, n_platforms);
    *n = 0;
    for (cl_uint p = 0; p < n_platforms; p++) {
        if ((req->platform >= 0 && (int)p != req->platform) ||
            (req->platform < 0 && req->device >= 0 && p != 0))
            continue;
        cl_device_id devs[64];
        cl_uint count = 0;
        e = clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 64, devs, &count);
        if (e == CL_DEVICE_NOT_FOUND)
            count = 0;
        else
            CL_TRY(e, "listing devices");
        for (cl_uint i = 0; i < count && i < 64 && *n < 64; i++)
            describe(platforms[p], devs[i], &out[(*n)++]);
    }
    return ORR_OK;
}

static orr_status choose(const orr_backend_request *req, device_info *chosen, int *by_client,
                         orr_error *err)
{
    *by_client = orr_device_assigned_by_client();
    if (*by_client) {
#if ORR_OPENCL_CLIENT
        const orr_init_data *id = orr_runtime_init_data();
        void *dev = NULL, *plat = NULL;
        int r = orr_boinc_opencl_ids(&dev, &plat);
        if (r != 0)
            return orr_fail(err, ORR_ERR_DEVICE,
                            "BOINC assigned no usable OpenCL device (%s device %d; "
                            "boinc_get_opencl_ids returned %d)",
                            id->gpu_type, id->gpu_opencl_dev_index, r);
        describe((cl_platform_id)plat, (cl_device_id)dev, chosen);
        return ORR_OK;
#endif
    }
    static device_info found[64];
    int n = 0, pick = 0;
    orr_status st = list_devices(req, found, &n, err);
    if (st != ORR_OK)
        return st;
    orr_device_candidate rank[64];
    for (int i = 0; i < n; i++)
        rank[i] = found[i].rank;
    char what[48] = "OpenCL";   /* --device counts within one platform: name it */
    if (req->device >= 0)
        snprintf(what, sizeof what, "OpenCL platform %d", req->platform >= 0 ? req->platform : 0);
    st = orr_device_pick(rank, n, req->device, what, &pick, err);
    if (st == ORR_OK)
        *chosen = found[pick];
    return st;
}

/* ---- opening ---- */

static orr_status start(ocl_device *o, orr_device *d, orr_error *err)
{
    cl_int e;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)o->platform,
                                           0};
    o->context = clCreateContext(props, 1, &o->device, NULL, NULL, &e);
    CL_TRY(e, "creating a context");
    o->queue = clCreateCommandQueue(o->context, o->device, 0, &e);
    CL_TRY(e, "creating a command queue");
    cl_uint units = 1;
    clGetDeviceInfo(o->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    d->compute_units = units > 0 ? (int)units : 1;
    d->is_cpu = (o->type & CL_DEVICE_TYPE_CPU) != 0;
    cl_ulong global = 0, one = 0;
    clGetDeviceInfo(o->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof one, &one, NULL);
    d->memory_bytes = (double)global;
    d->max_buffer_bytes = (double)one;
    char extensions[4096] = "";
    clGetDeviceInfo(o->device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
    /* NVIDIA's compiler: the register cap the CUDA kernel gets from its
     * launch bounds, and the node loop unrolled four times, as measured
     * for the CUDA kernel. */
    if (strstr(extensions, "cl_nv_compiler_options"))
        snprintf(o->vendor_options, sizeof o->vendor_options,
                 "-cl-nv-maxrregcount=128 -DSEP_NODE_UNROLL=4");
    return ORR_OK;
}

orr_status orr_opencl_device_open(const orr_backend_request *req, orr_device *d, orr_error *err)
{
    device_info dev;
    int by_client = 0;
    memset(d, 0, sizeof *d);
    d->api = &opencl_api;
    d->request = *req;
    orr_status st = choose(req, &dev, &by_client, err);
    if (st != ORR_OK)
        return st;
    /* Double precision is the kinds' arithmetic. A device without it
     * never gains it: an error, so that the client reports the task and
     * the server sends it to another host (a temporary exit would retry
     * it here until the deadline). */
    if (!dev.rank.fp64)
        return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                        "OpenCL device %s (%s) has no double precision (cl_khr_fp64)", dev.name,
                        dev.platform_name);
    ocl_device *o = calloc(1, sizeof *o);
    if (!o)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    o->platform = dev.platform;
    o->device = dev.device;
    o->type = dev.type;
    d->handle = o;
    snprintf(d->name, sizeof d->name, "%s", dev.name);
    st = start(o, d, err);
    if (st != ORR_OK) {
        cl_close(d);
        return st;
    }
    orr_log("OpenCL backend: %s (%s, %s, %d compute units%s), %s, driver %s", dev.name, dev.vendor,
            dev.platform_name, d->compute_units, by_client ? ", assigned by BOINC" : "",
            dev.version, dev.driver);
    return ORR_OK;
}

static void cl_close(orr_device *d)
{
    ocl_device *o = ocl_of(d);
    if (!o)
        return;
    if (o->queue)
        clReleaseCommandQueue(o->queue);
    if (o->context)
        clReleaseContext(o->context);
    free(o);
    d->handle = NULL;
}

/* The context and queue of a wrapped device are the caller's. */
static const orr_device_api opencl_wrapped_api = {"OpenCL",    cl_alloc, cl_release, cl_upload,
                                                  cl_download, cl_fill,  cl_finish,  NULL};

orr_status orr_opencl_device_wrap(cl_context context, cl_device_id device,
                                  cl_command_queue queue, orr_device *d, orr_error *err)
{
    memset(d, 0, sizeof *d);
    ocl_device *o = calloc(1, sizeof *o);
    if (!o)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    o->device = device;
    o->context = context;
    o->queue = queue;
    clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof o->type, &o->type, NULL);
    d->api = &opencl_wrapped_api;
    d->handle = o;
    d->is_cpu = (o->type & CL_DEVICE_TYPE_CPU) != 0;
    d->compute_units = 1;
    return ORR_OK;
}
