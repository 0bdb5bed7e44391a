/* Separation's OpenCL kernels, as the shared GPU policy calls them
 * (common/separation/device.h): the embedded program built per stream
 * count on first use, the model constants in a device buffer, a check
 * that the device lays the shared structs out as the host does, and the
 * launches. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../device_opencl.h"
#include "runtime/runtime.h"
#include "separation/device.h"

/* The kernels: portable.h, model.h, nodes.h and kernels.cl, embedded at
 * build time (tools/embed-cl.sh). */
extern const char orr_opencl_kernels_source[];

#define MAX_GROUP 256   /* work-items per chunk on a GPU */

typedef struct {
    cl_program program;
    cl_kernel integral, stars, directions, layout;
} ocl_kernels;

typedef struct {
    int group;                                /* work-items per chunk */
    ocl_kernels built[SEP_MAX_STREAMS + 1];   /* per stream count, on first use */
    ocl_kernels *current;
    cl_mem mc;                                /* the member's model constants */
    sep_model_consts mc_on_device;
    int mc_valid, layout_checked;
} ocl_sep;

static void release_kernels(ocl_kernels *k)
{
    cl_kernel *ks[] = {&k->integral, &k->stars, &k->directions, &k->layout};
    for (size_t i = 0; i < ORR_ARRAY_LEN(ks); i++)
        if (*ks[i])
            clReleaseKernel(*ks[i]);
    if (k->program)
        clReleaseProgram(k->program);
    memset(k, 0, sizeof *k);
}

/* The structs cross the host/device boundary as bytes: the device compiler
 * must lay them out as the host's did. */
static orr_status check_layout(orr_device *d, ocl_sep *c, orr_error *err)
{
    const cl_int want[5] = {(cl_int)sizeof(sep_model_consts), (cl_int)sizeof(sep_partial),
                            (cl_int)sizeof(sep_direction),
                            (cl_int)offsetof(sep_model_consts, sum_exp_weights),
                            (cl_int)offsetof(sep_model_consts, stream_a)};
    cl_int got[5] = {0};
    orr_dmem buf = NULL;
    orr_status st = orr_device_upload_new(d, NULL, sizeof got, &buf, err);
    const size_t sizes[] = {sizeof(cl_mem), sizeof(cl_mem)};
    const void *values[] = {&c->mc, &buf};
    if (st == ORR_OK)
        st = ocl_set_args(c->current->layout, 2, sizes, values, err);
    if (st == ORR_OK)
        st = ocl_launch(d, c->current->layout, 1, 1, "running the layout check", err);
    if (st == ORR_OK)
        st = d->api->download(d, got, buf, 0, sizeof got, err);
    if (st == ORR_OK)
        st = d->api->finish(d, 0, err);
    if (buf)
        d->api->release(d, buf);
    if (st == ORR_OK && memcmp(got, want, sizeof want) != 0)
        st = orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                      "OpenCL: the device lays out the model structs differently from the host "
                      "(sizes %d/%d/%d, offsets %d/%d; host %d/%d/%d, %d/%d)",
                      got[0], got[1], got[2], got[3], got[4], want[0], want[1], want[2], want[3],
                      want[4]);
    return st;
}

/* Builds the program for n_streams; too many registers for the group
 * size: rebuilt smaller. Build options: the stream count and group size,
 * the OpenCL C version, the vendor's; nothing that relaxes arithmetic (no
 * -cl-fast-relaxed-math, -cl-mad-enable, -cl-unsafe-math-optimizations or
 * -cl-denorms-are-zero: each may change results beyond rounding).
 * Contraction of a*b+c into fma, OpenCL C's default, stays, as in the
 * CUDA and SIMD kernels. ORR_OPENCL_OPTIONS adds options (for tuning). */
static orr_status build(orr_device *d, ocl_sep *c, int n_streams, ocl_kernels *k, orr_error *err)
{
    const ocl_device *o = ocl_of(d);
    for (;;) {
        char options[512];
        const char *extra = getenv("ORR_OPENCL_OPTIONS");
        snprintf(options, sizeof options, "-cl-std=CL1.2 -DNS=%d -DCHUNK_THREADS=%d %s %s",
                 n_streams, c->group, o->vendor_options, extra ? extra : "");
        orr_status s = ocl_build_program(o->context, o->device, orr_opencl_kernels_source, options,
                                         "the kernels", &k->program, err);
        if (s != ORR_OK)
            return s;
        cl_int e;
        k->integral = clCreateKernel(k->program, "integral_chunks", &e);
        CL_TRY(e, "creating the integral kernel");
        size_t fits = 0;
        CL_TRY(clGetKernelWorkGroupInfo(k->integral, o->device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof fits, &fits, NULL),
               "querying the integral kernel");
        if ((int)fits >= c->group || c->group <= 1)
            return ORR_OK;
        release_kernels(k);
        while (c->group > 1 && c->group > (int)fits)
            c->group /= 2;
    }
}

static orr_status kernels_for(orr_device *d, ocl_sep *c, int n_streams, orr_error *err)
{
    ocl_kernels *k = &c->built[n_streams];
    if (!k->program) {
        const double t0 = orr_runtime_seconds();
        orr_status s = build(d, c, n_streams, k, err);
        cl_int e = CL_SUCCESS;
        if (s == ORR_OK)
            k->stars = clCreateKernel(k->program, "star_sums", &e);
        if (s == ORR_OK && e == CL_SUCCESS)
            k->directions = clCreateKernel(k->program, "column_directions", &e);
        if (s == ORR_OK && e == CL_SUCCESS)
            k->layout = clCreateKernel(k->program, "layout", &e);
        if (s == ORR_OK && e != CL_SUCCESS)
            s = cl_fail(err, e, "creating the kernels");
        if (s != ORR_OK) {
            release_kernels(k);
            return s;
        }
        orr_log("OpenCL kernels for %d stream%s built in %.2f s (%d work-items a group)",
                n_streams, n_streams == 1 ? "" : "s", orr_runtime_seconds() - t0, c->group);
    }
    c->current = k;
    if (c->layout_checked)
        return ORR_OK;
    orr_status s = check_layout(d, c, err);
    c->layout_checked = s == ORR_OK;
    return s;
}

static orr_status set_model(orr_device *d, void *kern, const sep_model_consts *mc, orr_error *err)
{
    ocl_sep *c = kern;
    orr_status s = kernels_for(d, c, mc->n_streams, err);
    if (s != ORR_OK || (c->mc_valid && memcmp(&c->mc_on_device, mc, sizeof *mc) == 0))
        return s;
    s = d->api->upload(d, c->mc, 0, mc, sizeof *mc, err);
    c->mc_on_device = *mc;
    c->mc_valid = s == ORR_OK;
    return s;
}

/* OpenCL has no occupancy query: a wave is two groups per compute unit on
 * a GPU, one on a CPU. */
static int slots(orr_device *d, void *kern, int n_streams)
{
    (void)kern;
    (void)n_streams;
    return d->compute_units * (d->is_cpu ? 1 : 2);
}

static orr_status directions(orr_device *d, void *kern, const sep_model_consts *mc,
                             const sep_area_tables *t, sep_device_area *a, orr_error *err)
{
    ocl_sep *c = kern;
    const cl_int wedge = mc->wedge, nu_steps = t->nu_steps, mu_steps = t->mu_steps;
    const double mu_min = t->mu_min, mu_step = t->mu_step;
    const size_t m = sizeof(cl_mem);
    const size_t sizes[] = {sizeof wedge, sizeof mu_min, sizeof mu_step, m,
                            sizeof nu_steps, sizeof mu_steps, m};
    const void *values[] = {&wedge, &mu_min, &mu_step, &a->nu, &nu_steps, &mu_steps, &a->dirs};
    const size_t columns = (size_t)t->nu_steps * t->mu_steps;
    const size_t local = 64, global = (columns + local - 1) / local * local;
    orr_status s = ocl_set_args(c->current->directions, 7, sizes, values, err);
    return s == ORR_OK ? ocl_launch(d, c->current->directions, global, local,
                                    "computing the grid directions", err)
                       : s;
}

static orr_status integral(orr_device *d, void *kern, const sep_device_area *a, int n_streams,
                           int first, int count, orr_dmem out, orr_error *err)
{
    ocl_sep *c = kern;
    (void)n_streams;   /* the program is the current stream count's */
    const cl_int r_steps = a->r_steps, mu_steps = a->mu_steps, convolve = a->convolve,
                 first_chunk = first;
    const size_t m = sizeof(cl_mem);
    const size_t sizes[] = {m, sizeof r_steps, sizeof mu_steps, sizeof convolve, m, m, m, m, m, m,
                            sizeof first_chunk, m};
    const void *values[] = {&c->mc,     &r_steps,   &mu_steps,       &convolve,
                            &a->r_point, &a->qw_r3_N, &a->irv,         &a->reff_xr_rp3,
                            &a->id,      &a->dirs,    &first_chunk,    &out};
    orr_status s = ocl_set_args(c->current->integral, 12, sizes, values, err);
    const size_t local = (size_t)c->group, global = (size_t)count * local;
    return s == ORR_OK ? ocl_launch(d, c->current->integral, global, local,
                                    "running the integral kernel", err)
                       : s;
}

static orr_status star_sums(orr_device *d, void *kern, int n, int convolve, int n_streams,
                            const sep_device_stars *b, orr_error *err)
{
    ocl_sep *c = kern;
    (void)n_streams;
    const cl_int n_arg = n, cv_arg = convolve;
    const size_t m = sizeof(cl_mem);
    const size_t sizes[] = {m, sizeof n_arg, sizeof cv_arg, m, m, m, m, m};
    const void *values[] = {&c->mc, &n_arg, &cv_arg, &b->dirs, &b->r_point, &b->qw_r3_N, &b->bg,
                            &b->st};
    orr_status s = ocl_set_args(c->current->stars, 8, sizes, values, err);
    const size_t local = 64, global = ((size_t)n + local - 1) / local * local;
    return s == ORR_OK ? ocl_launch(d, c->current->stars, global, local,
                                    "computing the star probabilities", err)
                       : s;
}

static void release(orr_device *d, void *kern)
{
    ocl_sep *c = kern;
    for (int i = 0; i <= SEP_MAX_STREAMS; i++)
        release_kernels(&c->built[i]);
    if (c->mc)
        d->api->release(d, c->mc);
    free(c);
}

static const sep_device_kernels opencl_sep_kernels = {set_model, slots,     directions,
                                                      integral,  star_sums, release};

orr_status sep_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    orr_device *d = be->ctx;
    ocl_sep *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    size_t max_group = 1;
    clGetDeviceInfo(ocl_of(d)->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_group, &max_group,
                    NULL);
    c->group = MAX_GROUP;
    while (c->group > 1 && c->group > (int)max_group)
        c->group /= 2;
    orr_dmem mc = NULL;
    orr_status s = orr_device_upload_new(d, NULL, sizeof(sep_model_consts), &mc, err);
    c->mc = mc;
    if (s != ORR_OK) {
        release(d, c);
        return s;
    }
    return sep_device_attach(d, &opencl_sep_kernels, c, slot, err);
}
