/* The OpenCL spectral kernels (app_opencl/spectral/spectral.cl) against VkFFT's
 * OpenCL backend on the same device in the same run: batched C2C and R2C
 * at N = 64 .. 4096, f32 and f64, data resident on the device, one
 * warm-up, median of ORR_BENCH_REPS runs (default 7). Prints time, the
 * achieved bandwidth (bytes read + written once), nominal GFLOP/s
 * (5 N log2 N per complex transform, half that per real one) and the
 * ratio VkFFT time / ours (> 1: ours faster), after checking that both
 * compute the same transform (relative L2 difference).
 * Environment: ORR_BENCH_POINTS (points per batch, default 2^22),
 * ORR_BENCH_PLATFORM / ORR_BENCH_DEVICE (default: the first GPU, else the
 * first device). */
#define VKFFT_BACKEND 3
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vkFFT.h>

#include "../../app_opencl/device_opencl.h"
#include "../../app_opencl/spectral/spectral_host.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int env_int(const char *name, int fallback)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : fallback;
}

typedef struct {
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    cl_platform_id platform;
    ocl_spectral *sp;
    int reps;
} bench;

/* The asked device, else the first GPU, else the first device. */
static int pick_device(bench *b)
{
    cl_platform_id plats[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS || np == 0)
        return -1;
    const int want_p = env_int("ORR_BENCH_PLATFORM", -1), want_d = env_int("ORR_BENCH_DEVICE", -1);
    int found = 0;   /* 1: some device, 2: the one to take */
    for (cl_uint p = 0; p < np && p < 8 && found < 2; p++) {
        if (want_p >= 0 && (int)p != want_p)
            continue;
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < 16 && found < 2; d++) {
            cl_device_type type = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            const int best = want_d >= 0 ? (int)d == want_d : (type & CL_DEVICE_TYPE_GPU) != 0;
            if (best || (!found && want_d < 0)) {
                b->platform = plats[p];
                b->device = devs[d];
                found = best ? 2 : 1;
            }
        }
    }
    return found ? 0 : -1;
}

/* Median seconds of b->reps runs of run(ctx), after one warm-up. */
static double time_median(bench *b, int (*run)(void *), void *ctx)
{
    double t[64];
    const int reps = b->reps < 64 ? b->reps : 64;
    if (run(ctx) != 0 || clFinish(b->queue) != CL_SUCCESS)
        return -1;
    for (int i = 0; i < reps; i++) {
        const double t0 = now();
        if (run(ctx) != 0 || clFinish(b->queue) != CL_SUCCESS)
            return -1;
        t[i] = now() - t0;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

typedef struct {
    bench *b;
    spec_desc d;
    cl_mem in, out;
} ours_call;

static int run_ours(void *p)
{
    ours_call *c = p;
    orr_error err;
    orr_error_clear(&err);
    if (ocl_spectral_enqueue(c->b->sp, &c->d, c->in, c->out, &err) != ORR_OK) {
        fprintf(stderr, "ours: %s\n", err.message);
        return 1;
    }
    return 0;
}

typedef struct {
    VkFFTApplication app;
    VkFFTLaunchParams launch;
} vk_call;

static int run_vkfft(void *p)
{
    vk_call *c = p;
    const VkFFTResult r = VkFFTAppend(&c->app, -1, &c->launch);
    if (r != VKFFT_SUCCESS) {
        fprintf(stderr, "VkFFT: VkFFTAppend failed (%d)\n", (int)r);
        return 1;
    }
    return 0;
}

/* Relative L2 difference of two packed arrays of count reals. */
static double rel_diff(const void *a, const void *b, size_t count, int f32)
{
    long double num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        const double x = f32 ? ((const float *)a)[i] : ((const double *)a)[i];
        const double y = f32 ? ((const float *)b)[i] : ((const double *)b)[i];
        num += ((long double)x - y) * ((long double)x - y);
        den += (long double)y * y;
    }
    return (double)sqrtl(num / (den > 0 ? den : 1));
}

/* One case's sizes and buffers. VkFFT's plan keeps the addresses of vk and
 * vk_bytes, so they live here, as long as the plan. */
typedef struct {
    int n, batch, f32, r2c;
    size_t es, in_reals, out_reals, vk_reals;
    void *host, *got_ours, *got_vk;
    cl_mem in, out, vk;
    uint64_t vk_bytes;
} bench_data;

/* The sizes of n-point transforms in a batch of about points, and the
 * host's buffers with the input (the same values every run). */
static int host_setup(bench_data *c, spec_kind kind, spec_precision p, int n, long points)
{
    c->n = n;
    c->f32 = p == SPEC_F32;
    c->es = c->f32 ? 4 : 8;
    c->batch = (int)(points / n > 0 ? points / n : 1);
    c->r2c = kind == SPEC_R2C;
    c->in_reals = (size_t)c->batch * (c->r2c ? n : 2 * n);
    c->out_reals = (size_t)c->batch * (c->r2c ? 2 * (n / 2 + 1) : 2 * n);
    /* VkFFT's R2C works in place on rows padded to n/2 + 1 complex */
    c->vk_reals = c->r2c ? c->out_reals : c->in_reals;
    c->host = malloc(c->in_reals * c->es);
    c->got_ours = malloc(c->out_reals * c->es);
    c->got_vk = malloc(c->vk_reals * c->es);
    if (!c->host || !c->got_ours || !c->got_vk) {
        fprintf(stderr, "out of host memory\n");
        return 1;
    }
    srand(12345);
    for (size_t i = 0; i < c->in_reals; i++) {
        const double v = 2.0 * rand() / RAND_MAX - 1;
        if (c->f32)
            ((float *)c->host)[i] = (float)v;
        else
            ((double *)c->host)[i] = v;
    }
    return 0;
}

/* The device's buffers: ours in and out, and VkFFT's with the same input
 * values (R2C rows padded). */
static int device_setup(bench *b, bench_data *c)
{
    const size_t es = c->es;
    cl_int e1, e2, e3;
    c->in = clCreateBuffer(b->context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, c->in_reals * es,
                           c->host, &e1);
    c->out = clCreateBuffer(b->context, CL_MEM_READ_WRITE, c->out_reals * es, NULL, &e2);
    c->vk = clCreateBuffer(b->context, CL_MEM_READ_WRITE, c->vk_reals * es, NULL, &e3);
    if (e1 != CL_SUCCESS || e2 != CL_SUCCESS || e3 != CL_SUCCESS) {
        fprintf(stderr, "allocating %zu MB on the device failed\n",
                (c->in_reals + c->out_reals + c->vk_reals) * es >> 20);
        return 1;
    }
    if (c->r2c)
        for (int t = 0; t < c->batch; t++)
            clEnqueueWriteBuffer(b->queue, c->vk, CL_TRUE, (size_t)t * 2 * (c->n / 2 + 1) * es,
                                 c->n * es, (char *)c->host + (size_t)t * c->n * es, 0, NULL, NULL);
    else
        clEnqueueWriteBuffer(b->queue, c->vk, CL_TRUE, 0, c->in_reals * es, c->host, 0, NULL, NULL);
    return 0;
}

/* VkFFT's plan for the case, in place on c->vk. */
static VkFFTResult vk_setup(bench *b, bench_data *c, vk_call *vc)
{
    memset(vc, 0, sizeof *vc);
    VkFFTConfiguration conf;
    memset(&conf, 0, sizeof conf);
    c->vk_bytes = c->vk_reals * c->es;
    conf.FFTdim = 1;
    conf.size[0] = (uint64_t)c->n;
    conf.numberBatches = (uint64_t)c->batch;
    conf.doublePrecision = c->f32 ? 0 : 1;
    conf.performR2C = c->r2c ? 1 : 0;
    conf.device = &b->device;
    conf.context = &b->context;
    conf.platform = &b->platform;
    conf.buffer = &c->vk;
    conf.bufferSize = &c->vk_bytes;
    const VkFFTResult vr = initializeVkFFT(&vc->app, conf);
    vc->launch.commandQueue = &b->queue;
    vc->launch.buffer = &c->vk;
    return vr;
}

/* One run of each from the same input: *ok, *vk_ok whether each ran; the
 * relative difference of their results (NAN unless both did). */
static double check_both(bench *b, bench_data *c, ours_call *oc, vk_call *vc, VkFFTResult vr,
                         int *ok, int *vk_ok)
{
    *ok = run_ours(oc) == 0;
    if (*ok)
        *ok = clEnqueueReadBuffer(b->queue, c->out, CL_TRUE, 0, c->out_reals * c->es, c->got_ours,
                                  0, NULL, NULL) == CL_SUCCESS;
    *vk_ok = vr == VKFFT_SUCCESS && run_vkfft(vc) == 0 &&
             clEnqueueReadBuffer(b->queue, c->vk, CL_TRUE, 0, c->vk_reals * c->es, c->got_vk, 0,
                                 NULL, NULL) == CL_SUCCESS;
    return *ok && *vk_ok ? rel_diff(c->got_ours, c->got_vk, c->out_reals, c->f32) : NAN;
}

static void print_case(const bench_data *c, double t_ours, double t_vk, VkFFTResult vr,
                       double diff)
{
    const double bytes = (double)(c->in_reals + c->out_reals) * c->es;
    const double flops = (c->r2c ? 2.5 : 5.0) * c->n * log2(c->n) * c->batch;
    printf("%-4s %s %5d x %-7d", c->r2c ? "r2c" : "c2c", c->f32 ? "f32" : "f64", c->n, c->batch);
    if (t_ours > 0)
        printf("  ours %9.3f ms %7.2f GB/s %8.2f GFLOP/s", t_ours * 1e3, bytes / t_ours * 1e-9,
               flops / t_ours * 1e-9);
    else
        printf("  ours failed");
    if (t_vk > 0)
        printf("  VkFFT %9.3f ms %7.2f GB/s  ratio %5.2f", t_vk * 1e3, bytes / t_vk * 1e-9,
               t_vk / t_ours);
    else
        printf("  VkFFT failed (%d)", (int)vr);
    printf("  diff %.1e\n", diff);
    fflush(stdout);
}

static void free_case(bench_data *c)
{
    clReleaseMemObject(c->in);
    clReleaseMemObject(c->out);
    clReleaseMemObject(c->vk);
    free(c->host);
    free(c->got_ours);
    free(c->got_vk);
}

/* One kind, size and precision: both libraries, one line. */
static int bench_case(bench *b, spec_kind kind, spec_precision p, int n, long points)
{
    bench_data c;
    if (host_setup(&c, kind, p, n, points) != 0 || device_setup(b, &c) != 0)
        return 1;
    ours_call oc = {b, {kind, p, n, 0, c.batch, 0, 1, 0, 0}, c.in, c.out};
    vk_call vc;
    const VkFFTResult vr = vk_setup(b, &c, &vc);
    int ok, vk_ok;
    const double diff = check_both(b, &c, &oc, &vc, vr, &ok, &vk_ok);
    const double t_ours = ok ? time_median(b, run_ours, &oc) : -1;
    const double t_vk = vk_ok ? time_median(b, run_vkfft, &vc) : -1;
    print_case(&c, t_ours, t_vk, vr, diff);
    if (vr == VKFFT_SUCCESS)
        deleteVkFFT(&vc.app);
    free_case(&c);
    return t_ours > 0 ? 0 : 1;
}

int main(void)
{
    bench b;
    memset(&b, 0, sizeof b);
    b.reps = env_int("ORR_BENCH_REPS", 7);
    if (b.reps < 1)
        b.reps = 1;
    if (pick_device(&b) != 0) {
        fprintf(stderr, "opencl_spectral_bench: no OpenCL device\n");
        return 77;
    }
    cl_int e;
    b.context = clCreateContext(NULL, 1, &b.device, NULL, NULL, &e);
    if (e == CL_SUCCESS)
        b.queue = clCreateCommandQueue(b.context, b.device, 0, &e);
    if (e != CL_SUCCESS) {
        fprintf(stderr, "opencl_spectral_bench: %s\n", cl_error_name(e));
        return 1;
    }
    orr_device dev;
    orr_error err;
    if (orr_opencl_device_wrap(b.context, b.device, b.queue, &dev, &err) != ORR_OK ||
        !(b.sp = ocl_spectral_new(&dev))) {
        fprintf(stderr, "opencl_spectral_bench: out of memory\n");
        return 1;
    }
    char name[256] = "", version[256] = "";
    clGetDeviceInfo(b.device, CL_DEVICE_NAME, sizeof name - 1, name, NULL);
    clGetDeviceInfo(b.device, CL_DRIVER_VERSION, sizeof version - 1, version, NULL);
    const long points = env_int("ORR_BENCH_POINTS", 1 << 22);
    printf("OpenCL spectral kernels vs VkFFT %d (OpenCL backend) on %s (driver %s); %ld points "
           "per batch, median of %d\n",
           VkFFTGetVersion(), name, version, points, b.reps);
    static const int sizes[] = {64, 256, 1024, 4096};
    int failures = 0;
    for (int p = 1; p >= 0; p--)
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                failures += bench_case(&b, k ? SPEC_R2C : SPEC_C2C, (spec_precision)p, sizes[i],
                                       points);
    ocl_spectral_free(b.sp);
    free(dev.handle);   /* the wrapper only; the context and queue are ours */
    clReleaseCommandQueue(b.queue);
    clReleaseContext(b.context);
    return failures ? 1 : 0;
}
