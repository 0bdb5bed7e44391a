/* OpenCL backend, host side: device choice (BOINC's assignment through
 * boinc_get_opencl_ids, else --platform/--device, else the best FP64
 * device), the embedded kernels built per stream count, tables on the
 * device, launches paced like the CUDA app's (common/gpu), and every
 * OpenCL return code checked. An OpenCL failure is ORR_ERR_DEVICE, which
 * the driver turns into BOINC's temporary exit; results from a failed
 * computation are never used.
 *
 * Some drivers spin in clFinish. So the host flushes a launch, sleeps for
 * most of the time the last launches say it takes, and only then waits. */
#include "opencl_backend.h"
#include "cl_util.h"
#include "spectral/spectral_host.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "device/gpu.h"
#include "runtime/runtime.h"
#include "separation/nodes.h"
#if HAVE_BOINC
#include "runtime/boinc_shim.h"
#endif

/* The kernels: portable.h, model.h, nodes.h and kernels.cl, embedded at
 * build time (tools/embed-cl.sh). */
extern const char orr_opencl_kernels_source[];

#define STAR_CAPACITY 4096          /* the kind sends stars in chunks of 4096 */
#define MAX_LAUNCH_CHUNKS 65535
#define MAX_GROUP 256               /* work-items per chunk on a GPU */

typedef struct {
    cl_mem r_point, qw_r3_N, irv, reff_xr_rp3, id, nu, dirs;
    int r_steps, mu_steps, nu_steps, convolve;
} ocl_area;

typedef struct {
    cl_program program;
    cl_kernel integral, stars, directions, layout;
} ocl_kernels;

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    cl_context context;
    cl_command_queue queue;
    int compute_units;
    int group;                                /* work-items per chunk */
    char vendor_options[128];                 /* build options for this compiler */
    ocl_kernels built[SEP_MAX_STREAMS + 1];   /* per stream count, on first use */
    cl_mem mc;                                /* the member's model constants */
    sep_model_consts mc_on_device;
    int mc_valid;
    int layout_checked;
    const sep_setup *tables_for;
    ocl_area areas[SEP_MAX_AREAS];
    cl_mem out;
    int out_capacity;
    /* stars */
    cl_mem d_dirs, d_rp, d_qw, d_bg, d_st;
    sep_direction *h_dirs;
    double *h_rp, *h_qw, *h_k, *h_bg, *h_st;
    /* launches */
    orr_backend_request request;
    int paced_streams;
    orr_gpu_pacer pacer;
    ocl_spectral *spectral;                   /* spectral kernels (spectral_host.c) */
} ocl_ctx;

/* ---- devices ---- */

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    int fp64;
    double score;
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
    info->fp64 = fp != 0 && !fp64_hidden();
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof clock, &clock, NULL);
    /* OpenCL reports no FP64 rate: compute units x clock, and any GPU or
     * accelerator before a CPU device. */
    info->score = (double)units * (clock ? clock : 1);
    if (!(info->type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR)))
        info->score *= 1e-9;
}

static orr_status list_devices(cl_platform_id p, cl_device_id *devs, cl_uint max, cl_uint *n,
                               orr_error *err)
{
    cl_int e = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, max, devs, n);
    if (e == CL_DEVICE_NOT_FOUND) {
        *n = 0;
        return ORR_OK;
    }
    CL_TRY(e, "listing devices");
    if (*n > max)
        *n = max;
    return ORR_OK;
}

static orr_status choose_device(const orr_backend_request *req, device_info *chosen,
                                int *by_client, orr_error *err)
{
    const orr_init_data *id = orr_runtime_init_data();
    *by_client = !id->standalone && id->gpu_type[0] != '\0';
    if (*by_client) {
#if HAVE_BOINC
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
    /* Asked for: that device (CPU devices included); else the best FP64
     * device of the asked platform, or of all of them. */
    int found = 0;
    for (cl_uint p = 0; p < n_platforms; p++) {
        if (req->platform >= 0 && (int)p != req->platform)
            continue;
        if (req->platform < 0 && req->device >= 0 && p != 0)
            continue;   /* --device alone counts on the first platform */
        cl_device_id devs[64];
        cl_uint n = 0;
        orr_status st = list_devices(platforms[p], devs, 64, &n, err);
        if (st != ORR_OK)
            return st;
        if (req->device >= 0) {
            if (req->device >= (int)n)
                return orr_fail(err, ORR_ERR_USAGE,
                                "OpenCL device %d does not exist on platform %u (%u found)",
                                req->device, p, n);
            describe(platforms[p], devs[req->device], chosen);
            return ORR_OK;
        }
        for (cl_uint d = 0; d < n; d++) {
            device_info info;
            describe(platforms[p], devs[d], &info);
            /* A device without FP64 is only chosen when nothing has it, so
             * that the refusal names it. */
            if (!found || (info.fp64 && !chosen->fp64) ||
                (info.fp64 == chosen->fp64 && info.score > chosen->score))
                *chosen = info;
            found = 1;
        }
    }
    if (!found)
        return orr_fail(err, ORR_ERR_DEVICE, "no OpenCL device found");
    return ORR_OK;
}

/* ---- kernels ---- */

static orr_status set_args(cl_kernel k, orr_error *err, int n, const size_t *sizes,
                           const void *const *values)
{
    for (int i = 0; i < n; i++)
        CL_TRY(clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]), "setting kernel arguments");
    return ORR_OK;
}

/* The structs cross the host/device boundary as bytes: the device compiler
 * must lay them out as the host's did. */
static orr_status check_layout(ocl_ctx *c, ocl_kernels *k, orr_error *err)
{
    cl_int e;
    cl_mem buf = clCreateBuffer(c->context, CL_MEM_WRITE_ONLY, 5 * sizeof(cl_int), NULL, &e);
    CL_TRY(e, "allocating the layout check");
    const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem)};
    const void *values[] = {&c->mc, &buf};
    cl_int got[5] = {0};
    size_t one = 1;
    orr_status st = set_args(k->layout, err, 2, sizes, values);
    if (st == ORR_OK) {
        e = clEnqueueNDRangeKernel(c->queue, k->layout, 1, NULL, &one, &one, 0, NULL, NULL);
        if (e == CL_SUCCESS)
            e = clEnqueueReadBuffer(c->queue, buf, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            st = cl_fail(err, e, "running the layout check");
    }
    clReleaseMemObject(buf);
    if (st != ORR_OK)
        return st;
    const cl_int want[5] = {(cl_int)sizeof(sep_model_consts), (cl_int)sizeof(sep_partial),
                            (cl_int)sizeof(sep_direction),
                            (cl_int)offsetof(sep_model_consts, sum_exp_weights),
                            (cl_int)offsetof(sep_model_consts, stream_a)};
    if (memcmp(got, want, sizeof want) != 0)
        return orr_fail(err, ORR_ERR_DEVICE,
                        "OpenCL: the device lays out the model structs differently from the host "
                        "(sizes %d/%d/%d, offsets %d/%d; host %d/%d/%d, %d/%d)",
                        got[0], got[1], got[2], got[3], got[4], want[0], want[1], want[2], want[3],
                        want[4]);
    return ORR_OK;
}

/* The program for n_streams, built on first use. Build options: the
 * stream count and work-group size, and the OpenCL C version; nothing
 * that relaxes arithmetic (no -cl-fast-relaxed-math, -cl-mad-enable,
 * -cl-unsafe-math-optimizations or -cl-denorms-are-zero: each may change
 * results beyond rounding). Contraction of a*b+c into fma, OpenCL C's
 * default, stays, as in the CUDA and SIMD kernels. On NVIDIA's compiler
 * (cl_nv_compiler_options) the register cap the CUDA kernel gets from its
 * launch bounds, so two groups fit an SM, and the node loop unrolled four
 * times, as measured for the CUDA kernel. ORR_OPENCL_OPTIONS adds options
 * (for tuning by hand). */
static orr_status kernels_for(ocl_ctx *c, int n_streams, ocl_kernels **out, orr_error *err)
{
    ocl_kernels *k = &c->built[n_streams];
    if (k->program) {
        *out = k;
        return ORR_OK;
    }
    const double t0 = orr_runtime_seconds();
    for (;;) {
        char options[512];
        const char *extra = getenv("ORR_OPENCL_OPTIONS");
        snprintf(options, sizeof options, "-cl-std=CL1.2 -DNS=%d -DCHUNK_THREADS=%d %s %s",
                 n_streams, c->group, c->vendor_options, extra ? extra : "");
        orr_status s = ocl_build_program(c->context, c->device, orr_opencl_kernels_source, options,
                                         "the kernels", &k->program, err);
        if (s != ORR_OK)
            return s;
        cl_int e;
        k->integral = clCreateKernel(k->program, "integral_chunks", &e);
        CL_TRY(e, "creating the integral kernel");
        size_t fits = 0;
        CL_TRY(clGetKernelWorkGroupInfo(k->integral, c->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof fits, &fits, NULL),
               "querying the integral kernel");
        if ((int)fits >= c->group || c->group <= 1)
            break;
        /* Too many registers for this group size: rebuild smaller. */
        clReleaseKernel(k->integral);
        clReleaseProgram(k->program);
        memset(k, 0, sizeof *k);
        while (c->group > 1 && c->group > (int)fits)
            c->group /= 2;
    }
    cl_int e;
    k->stars = clCreateKernel(k->program, "star_sums", &e);
    CL_TRY(e, "creating the star kernel");
    k->directions = clCreateKernel(k->program, "column_directions", &e);
    CL_TRY(e, "creating the directions kernel");
    k->layout = clCreateKernel(k->program, "layout", &e);
    CL_TRY(e, "creating the layout kernel");
    orr_log("OpenCL kernels for %d stream%s built in %.2f s (%d work-items a group)", n_streams,
            n_streams == 1 ? "" : "s", orr_runtime_seconds() - t0, c->group);
    if (!c->layout_checked) {
        orr_status st = check_layout(c, k, err);
        if (st != ORR_OK)
            return st;
        c->layout_checked = 1;
    }
    *out = k;
    return ORR_OK;
}

static orr_status upload_model(ocl_ctx *c, const sep_model_consts *mc, orr_error *err)
{
    if (c->mc_valid && memcmp(&c->mc_on_device, mc, sizeof *mc) == 0)
        return ORR_OK;
    CL_TRY(clEnqueueWriteBuffer(c->queue, c->mc, CL_TRUE, 0, sizeof *mc, mc, 0, NULL, NULL),
           "copying the model constants");
    c->mc_on_device = *mc;
    c->mc_valid = 1;
    return ORR_OK;
}

/* ---- tables ---- */

static cl_mem new_buffer(ocl_ctx *c, const void *host, size_t bytes, cl_int *e)
{
    cl_mem_flags flags = CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0);
    return clCreateBuffer(c->context, flags, bytes ? bytes : 8, (void *)host, e);
}

static void release(cl_mem *m)
{
    if (*m)
        clReleaseMemObject(*m);
    *m = NULL;
}

static void free_tables(ocl_ctx *c)
{
    for (int a = 0; a < SEP_MAX_AREAS; a++) {
        ocl_area *g = &c->areas[a];
        release(&g->r_point);
        release(&g->qw_r3_N);
        release(&g->irv);
        release(&g->reff_xr_rp3);
        release(&g->id);
        release(&g->nu);
        release(&g->dirs);
    }
    c->tables_for = NULL;
}

static orr_status prepare_tables(ocl_ctx *c, ocl_kernels *k, const sep_model_consts *mc,
                                 const sep_setup *s, orr_error *err)
{
    if (c->tables_for == s)
        return ORR_OK;
    free_tables(c);
    for (int a = 0; a < s->n_areas; a++) {
        const sep_area_tables *t = &s->areas[a];
        ocl_area *g = &c->areas[a];
        const size_t nodes = (size_t)t->r_steps * s->convolve;
        const size_t columns = (size_t)t->nu_steps * t->mu_steps;
        cl_int e = CL_SUCCESS;
        g->r_steps = t->r_steps;
        g->mu_steps = t->mu_steps;
        g->nu_steps = t->nu_steps;
        g->convolve = s->convolve;
        g->r_point = new_buffer(c, t->r_point, nodes * sizeof(double), &e);
        if (e == CL_SUCCESS)
            g->qw_r3_N = new_buffer(c, t->qw_r3_N, nodes * sizeof(double), &e);
        if (e == CL_SUCCESS)
            g->irv = new_buffer(c, t->irv, t->r_steps * sizeof(double), &e);
        if (e == CL_SUCCESS)
            g->reff_xr_rp3 = new_buffer(c, t->reff_xr_rp3, t->r_steps * sizeof(double), &e);
        if (e == CL_SUCCESS)
            g->id = new_buffer(c, t->id, t->nu_steps * sizeof(double), &e);
        if (e == CL_SUCCESS)
            g->nu = new_buffer(c, t->nu, t->nu_steps * sizeof(double), &e);
        if (e == CL_SUCCESS)
            g->dirs = new_buffer(c, NULL, columns * sizeof(sep_direction), &e);
        if (e != CL_SUCCESS) {
            free_tables(c);
            return cl_fail(err, e, "allocating the grid tables");
        }
        /* Every column's direction, by sep_column_direction's formula. */
        const cl_int wedge = mc->wedge, nu_steps = t->nu_steps, mu_steps = t->mu_steps;
        const cl_double mu_min = t->mu_min, mu_step = t->mu_step;
        const size_t sizes[] = {sizeof wedge, sizeof mu_min, sizeof mu_step, sizeof(cl_mem),
                                sizeof nu_steps, sizeof mu_steps, sizeof(cl_mem)};
        const void *values[] = {&wedge, &mu_min, &mu_step, &g->nu, &nu_steps, &mu_steps, &g->dirs};
        orr_status st = set_args(k->directions, err, 7, sizes, values);
        const size_t local = 64, global = (columns + local - 1) / local * local;
        if (st == ORR_OK) {
            e = clEnqueueNDRangeKernel(c->queue, k->directions, 1, NULL, &global, &local, 0, NULL,
                                       NULL);
            if (e == CL_SUCCESS)
                e = clFinish(c->queue);
            if (e != CL_SUCCESS)
                st = cl_fail(err, e, "computing the grid directions");
        }
        if (st != ORR_OK) {
            free_tables(c);
            return st;
        }
    }
    c->tables_for = s;
    return ORR_OK;
}

static orr_status ensure_out(ocl_ctx *c, int count, orr_error *err)
{
    if (count <= c->out_capacity)
        return ORR_OK;
    release(&c->out);
    c->out_capacity = 0;
    cl_int e;
    c->out = new_buffer(c, NULL, (size_t)count * sizeof(sep_partial), &e);
    CL_TRY(e, "allocating the partial sums");
    c->out_capacity = count;
    return ORR_OK;
}

/* ---- ops ---- */

/* One launch and its read-back, as a unit the client cannot split. */
static orr_status launch_chunks(ocl_ctx *c, ocl_kernels *k, int area, int first, int count,
                                sep_partial *out, orr_error *err)
{
    ocl_area *g = &c->areas[area];
    const cl_int r_steps = g->r_steps, mu_steps = g->mu_steps, convolve = g->convolve,
                 first_chunk = first;
    const size_t m = sizeof(cl_mem);
    const size_t sizes[] = {m, sizeof r_steps, sizeof mu_steps, sizeof convolve, m, m, m, m, m, m,
                            sizeof first_chunk, m};
    const void *values[] = {&c->mc,     &r_steps,          &mu_steps,  &convolve,
                            &g->r_point, &g->qw_r3_N,       &g->irv,    &g->reff_xr_rp3,
                            &g->id,      &g->dirs,          &first_chunk, &c->out};
    orr_status st = set_args(k->integral, err, 12, sizes, values);
    if (st != ORR_OK)
        return st;
    const size_t local = (size_t)c->group, global = (size_t)count * local;
    orr_runtime_begin_critical();
    cl_int e = clEnqueueNDRangeKernel(c->queue, k->integral, 1, NULL, &global, &local, 0, NULL,
                                      NULL);
    cl_event read = NULL;
    if (e == CL_SUCCESS)
        e = clEnqueueReadBuffer(c->queue, c->out, CL_FALSE, 0, (size_t)count * sizeof *out, out,
                                0, NULL, &read);
    if (e == CL_SUCCESS)
        e = ocl_wait_sleeping(c->queue, read, orr_gpu_pacer_expected_s(&c->pacer, count));
    if (read)
        clReleaseEvent(read);
    orr_runtime_end_critical();
    if (e != CL_SUCCESS)
        return cl_fail(err, e, "running the integral kernel");
    return ORR_OK;
}

/* What orr_gpu_run_chunks needs to launch part of a call. */
typedef struct {
    ocl_ctx *c;
    ocl_kernels *k;
    int area, first;
    sep_partial *out;
} launch_call;

static orr_status launch_part(void *ctx, int offset, int n, orr_error *err)
{
    launch_call *l = ctx;
    return launch_chunks(l->c, l->k, l->area, l->first + offset, n, l->out + offset, err);
}

static orr_status ocl_integral_chunks(orr_backend *be, const sep_model_consts *mc,
                                      const sep_setup *s, int area, int first, int count,
                                      sep_partial *out, orr_error *err)
{
    ocl_ctx *c = be->ctx;
    ocl_kernels *k;
    orr_status st = kernels_for(c, mc->n_streams, &k, err);
    if (st == ORR_OK)
        st = upload_model(c, mc, err);
    if (st == ORR_OK)
        st = prepare_tables(c, k, mc, s, err);
    if (st == ORR_OK)
        st = ensure_out(c, count < MAX_LAUNCH_CHUNKS ? count : MAX_LAUNCH_CHUNKS, err);
    if (st != ORR_OK)
        return st;
    if (c->paced_streams != mc->n_streams) {
        /* The same policy as the CUDA app; OpenCL has no occupancy query,
         * so a wave is two groups per compute unit on a GPU. */
        const int per_unit = c->type & CL_DEVICE_TYPE_CPU ? 1 : 2;
        orr_gpu_pacer_resize(&c->pacer, &c->request, c->compute_units * per_unit,
                             MAX_LAUNCH_CHUNKS);
        c->paced_streams = mc->n_streams;
    }
    launch_call call = {c, k, area, first, out};
    return orr_gpu_run_chunks(&c->pacer, count, launch_part, &call, err);
}

static orr_status ocl_star_probs(orr_backend *be, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err)
{
    ocl_ctx *c = be->ctx;
    const int n = end - begin, cv = s->convolve, ns = mc->n_streams;
    if (n > STAR_CAPACITY)
        return orr_fail(err, ORR_ERR_INTERNAL, "OpenCL: %d stars in one call (at most %d)", n,
                        STAR_CAPACITY);
    ocl_kernels *k;
    orr_status st = kernels_for(c, ns, &k, err);
    if (st == ORR_OK)
        st = upload_model(c, mc, err);
    if (st != ORR_OK)
        return st;
    orr_gpu_star_nodes(mc, s, stars, begin, n, c->h_dirs, c->h_rp, c->h_qw, c->h_k);
    const cl_int n_arg = n, cv_arg = cv;
    const size_t m = sizeof(cl_mem);
    const size_t sizes[] = {m, sizeof n_arg, sizeof cv_arg, m, m, m, m, m};
    const void *values[] = {&c->mc, &n_arg, &cv_arg, &c->d_dirs, &c->d_rp, &c->d_qw, &c->d_bg,
                            &c->d_st};
    st = set_args(k->stars, err, 8, sizes, values);
    if (st != ORR_OK)
        return st;
    const size_t local = 64, global = ((size_t)n + local - 1) / local * local;
    orr_runtime_begin_critical();
    cl_int e = clEnqueueWriteBuffer(c->queue, c->d_dirs, CL_FALSE, 0, n * sizeof *c->h_dirs,
                                    c->h_dirs, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueWriteBuffer(c->queue, c->d_rp, CL_FALSE, 0, (size_t)n * cv * sizeof(double),
                                 c->h_rp, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueWriteBuffer(c->queue, c->d_qw, CL_FALSE, 0, (size_t)n * cv * sizeof(double),
                                 c->h_qw, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueNDRangeKernel(c->queue, k->stars, 1, NULL, &global, &local, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clEnqueueReadBuffer(c->queue, c->d_bg, CL_FALSE, 0, n * sizeof(double), c->h_bg, 0,
                                NULL, NULL);
    if (e == CL_SUCCESS && ns > 0)
        e = clEnqueueReadBuffer(c->queue, c->d_st, CL_FALSE, 0, (size_t)n * ns * sizeof(double),
                                c->h_st, 0, NULL, NULL);
    if (e == CL_SUCCESS)
        e = clFinish(c->queue);
    orr_runtime_end_critical();
    if (e != CL_SUCCESS)
        return cl_fail(err, e, "computing the star probabilities");
    orr_gpu_star_probs(ns, begin, n, c->h_k, c->h_bg, c->h_st, bg_prob, st_prob);
    return ORR_OK;
}

/* Spectral kernels: their program is built on the first call, so
 * separation runs never pay for it. */
static orr_status ocl_spec_run(orr_backend *be, const spec_desc *desc, const spec_buffers *b,
                               orr_error *err)
{
    ocl_ctx *c = be->ctx;
    return ocl_spectral_run(c->spectral, desc, b, err);
}

static void ocl_close(orr_backend *be)
{
    ocl_ctx *c = be->ctx;
    if (!c)
        return;
    orr_gpu_pacer_report(&c->pacer, "OpenCL");
    ocl_spectral_free(c->spectral);
    free_tables(c);
    release(&c->out);
    release(&c->mc);
    release(&c->d_dirs);
    release(&c->d_rp);
    release(&c->d_qw);
    release(&c->d_bg);
    release(&c->d_st);
    for (int i = 0; i <= SEP_MAX_STREAMS; i++) {
        ocl_kernels *k = &c->built[i];
        if (k->integral)
            clReleaseKernel(k->integral);
        if (k->stars)
            clReleaseKernel(k->stars);
        if (k->directions)
            clReleaseKernel(k->directions);
        if (k->layout)
            clReleaseKernel(k->layout);
        if (k->program)
            clReleaseProgram(k->program);
    }
    if (c->queue)
        clReleaseCommandQueue(c->queue);
    if (c->context)
        clReleaseContext(c->context);
    free(c->h_dirs);
    free(c->h_rp);
    free(c->h_qw);
    free(c->h_k);
    free(c->h_bg);
    free(c->h_st);
    free(c);
    be->ctx = NULL;
}

static orr_status open_device(ocl_ctx *c, orr_error *err)
{
    cl_int e;
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)c->platform,
                                           0};
    c->context = clCreateContext(props, 1, &c->device, NULL, NULL, &e);
    CL_TRY(e, "creating a context");
    c->queue = clCreateCommandQueue(c->context, c->device, 0, &e);
    CL_TRY(e, "creating a command queue");
    c->spectral = ocl_spectral_new(c->context, c->device, c->queue);
    if (!c->spectral)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->mc = new_buffer(c, NULL, sizeof(sep_model_consts), &e);
    CL_TRY(e, "allocating the model constants");
    const size_t nodes = (size_t)STAR_CAPACITY * SEP_MAX_CONVOLVE * sizeof(double);
    c->d_dirs = new_buffer(c, NULL, STAR_CAPACITY * sizeof(sep_direction), &e);
    if (e == CL_SUCCESS)
        c->d_rp = new_buffer(c, NULL, nodes, &e);
    if (e == CL_SUCCESS)
        c->d_qw = new_buffer(c, NULL, nodes, &e);
    if (e == CL_SUCCESS)
        c->d_bg = new_buffer(c, NULL, STAR_CAPACITY * sizeof(double), &e);
    if (e == CL_SUCCESS)
        c->d_st = new_buffer(c, NULL, (size_t)STAR_CAPACITY * SEP_MAX_STREAMS * sizeof(double), &e);
    CL_TRY(e, "allocating the star buffers");
    c->h_dirs = malloc(STAR_CAPACITY * sizeof *c->h_dirs);
    c->h_rp = malloc(nodes);
    c->h_qw = malloc(nodes);
    c->h_k = malloc(STAR_CAPACITY * sizeof(double));
    c->h_bg = malloc(STAR_CAPACITY * sizeof(double));
    c->h_st = malloc((size_t)STAR_CAPACITY * SEP_MAX_STREAMS * sizeof(double));
    if (!c->h_dirs || !c->h_rp || !c->h_qw || !c->h_k || !c->h_bg || !c->h_st)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the star buffers");
    return ORR_OK;
}

orr_status orr_open_opencl_backend(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    device_info dev;
    int by_client = 0;
    orr_status st = choose_device(req, &dev, &by_client, err);
    if (st != ORR_OK)
        return st;
    /* Double precision is the model's arithmetic. Under the client a
     * refusal is a temporary exit so the task can go elsewhere. */
    if (!dev.fp64)
        return orr_fail(err, by_client ? ORR_ERR_DEVICE : ORR_ERR_UNSUPPORTED,
                        "OpenCL device %s (%s) has no double precision (cl_khr_fp64)", dev.name,
                        dev.platform_name);
    ocl_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    memset(be, 0, sizeof *be);
    be->ctx = c;
    be->close = ocl_close;
    c->platform = dev.platform;
    c->device = dev.device;
    c->type = dev.type;
    c->request = *req;
    c->paced_streams = -1;
    cl_uint units = 1;
    size_t max_group = 1;
    clGetDeviceInfo(dev.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(dev.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group, NULL);
    c->compute_units = units > 0 ? (int)units : 1;
    c->group = MAX_GROUP;
    char extensions[4096] = "";
    clGetDeviceInfo(dev.device, CL_DEVICE_EXTENSIONS, sizeof extensions - 1, extensions, NULL);
    if (strstr(extensions, "cl_nv_compiler_options"))
        snprintf(c->vendor_options, sizeof c->vendor_options,
                 "-cl-nv-maxrregcount=128 -DSEP_NODE_UNROLL=4");
    while (c->group > 1 && c->group > (int)max_group)
        c->group /= 2;
    /* The kernels are built on first use, for the stream count in hand. */
    st = open_device(c, err);
    if (st != ORR_OK) {
        ocl_close(be);
        return st;
    }
    be->name = "OpenCL";
    static char variant[300];   /* the device name: part of the checkpoint identity */
    snprintf(variant, sizeof variant, "%s", dev.name);
    be->variant = variant;
    be->sep_integral_chunks = ocl_integral_chunks;
    be->sep_star_probs = ocl_star_probs;
    be->spec_run = ocl_spec_run;
    /* Enough chunks per call to fill the device many times over. */
    be->min_batch = 4 * c->compute_units * 16;
    orr_log("OpenCL backend: %s (%s, %s, %u compute units%s), %s, driver %s", dev.name, dev.vendor,
            dev.platform_name, units, by_client ? ", assigned by BOINC" : "", dev.version,
            dev.driver);
    return ORR_OK;
}
