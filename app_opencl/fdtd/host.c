/* The FDTD kind's OpenCL launches, as the shared GPU policy calls them
 * (common/fdtd/device.h): one program a configuration (precision,
 * arithmetic, CPML), built from portable.h, update.h and kernels.cl
 * (embedded) when a work unit first asks for it. Faithful bits need what
 * the C reference has: no contraction (kernels.cl's pragma), double
 * precision, and in single precision correctly rounded division and
 * denormals; a device without them is refused for that configuration,
 * saying so. Build options: nothing that relaxes arithmetic. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device_opencl.h"
#include "../opencl_backend.h"
#include "fdtd/device.h"
#include "runtime/runtime.h"

extern const char orr_opencl_fdtd_source[];

#define BX 32          /* kernels.cl's sweep work-groups */
#define BY 8
#define ROWS 8         /* kernels.cl's FDTD_ROWS */
#define N_STATE_BUFS 23   /* the fields, the psi arrays, the maps, the tables */
#define N_STATE_ARGS (1 + N_STATE_BUFS + 1)
#define ARGS "setting the FDTD kernels' arguments"

/* kernels.cl's copy of fdtd_dims: doubles, 64-bit integers, then ints,
 * with no padding between them on any compiler. */
_Static_assert(sizeof(fdtd_dims) == 8 * sizeof(double) + 4 * sizeof(int64_t) + 66 * sizeof(int),
               "fdtd_dims changed: change kernels.cl's copy too");

enum { K_E, K_H, K_ENERGY, K_NORM, K_POINTS, N_KERNELS };
static const char *const kernel_names[N_KERNELS] = {"fdtd_e_phase", "fdtd_h_phase", "fdtd_h_energy",
                                                    "fdtd_norm", "fdtd_points"};

typedef struct {
    cl_program program;
    cl_kernel k[N_KERNELS];
} ocl_fdtd_build;

typedef struct {
    ocl_fdtd_build builds[8];   /* [single][fast][cpml] */
    cl_mem dummy;               /* stands for absent arrays (never read) */
} ocl_fdtd;

static ocl_fdtd_build *build_of(ocl_fdtd *c, const fdtd_dims *dm)
{
    return &c->builds[dm->single * 4 + dm->fast * 2 + (dm->t > 0)];
}

static void release_build(ocl_fdtd_build *b)
{
    for (int i = 0; i < N_KERNELS; i++)
        if (b->k[i])
            clReleaseKernel(b->k[i]);
    if (b->program)
        clReleaseProgram(b->program);
    memset(b, 0, sizeof *b);
}

static orr_status make_kernels(orr_device *d, ocl_fdtd_build *b, orr_error *err)
{
    const ocl_device *o = ocl_of(d);
    for (int i = 0; i < N_KERNELS; i++) {
        cl_int e;
        size_t wg = 0;
        b->k[i] = clCreateKernel(b->program, kernel_names[i], &e);
        CL_TRY(e, "creating the FDTD kernels");
        CL_TRY(clGetKernelWorkGroupInfo(b->k[i], o->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                        NULL),
               "reading the FDTD kernels' work-group size");
        if (i != K_POINTS && wg < BX * BY)
            return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                            "fdtd: OpenCL device %s runs kernel %s in work-groups of at most %zu "
                            "work-items (%d needed)", d->name, kernel_names[i], wg, BX * BY);
    }
    return ORR_OK;
}

static orr_status build(orr_device *d, ocl_fdtd *c, const fdtd_dims *dm, int exact_div,
                        orr_error *err)
{
    ocl_fdtd_build *b = build_of(c, dm);
    if (b->program)
        return ORR_OK;
    const ocl_device *o = ocl_of(d);
    const double t0 = orr_runtime_seconds();
    char options[1024];
    const char *extra = getenv("ORR_OPENCL_OPTIONS");
    snprintf(options, sizeof options,
             "-cl-std=CL1.2%s -DFDTD_SINGLE=%d -DFDTD_FAST_MODE=%d -DFDTD_PML=%d "
             "-DFDTD_EX=%d -DFDTD_EY=%d -DFDTD_EZ=%d -DFDTD_HX=%d -DFDTD_HY=%d -DFDTD_HZ=%d "
             "-DFDTD_N_FIELDS=%d %s %s",
             dm->single && exact_div ? " -cl-fp32-correctly-rounded-divide-sqrt" : "", dm->single,
             dm->fast, dm->t > 0, FDTD_EX, FDTD_EY, FDTD_EZ, FDTD_HX, FDTD_HY, FDTD_HZ, FDTD_N_FIELDS,
             o->vendor_options, extra ? extra : "");
    orr_status st = ocl_build_program(o->context, o->device, orr_opencl_fdtd_source, options,
                                      "the FDTD kernels", &b->program, err);
    if (st == ORR_OK)
        st = make_kernels(d, b, err);
    if (st != ORR_OK) {
        release_build(b);
        return st;
    }
    orr_log("OpenCL fdtd kernels built in %.2f s (%s, %s%s)", orr_runtime_seconds() - t0,
            dm->single ? "single" : "double", dm->fast ? "fast" : "faithful", dm->t ? ", cpml" : "");
    return ORR_OK;
}

/* Refuses what this device cannot step with the reference's bits. */
static orr_status prepare(orr_device *d, void *kern, const fdtd_dims *dm, orr_error *err)
{
    ocl_fdtd *c = kern;
    const ocl_device *o = ocl_of(d);
    cl_device_fp_config sp = 0, dp = 0;
    CL_TRY(clGetDeviceInfo(o->device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof sp, &sp, NULL),
           "reading the device's single precision");
    if (clGetDeviceInfo(o->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dp, &dp, NULL) != CL_SUCCESS)
        dp = 0;
    /* a capability this device lacks: permanent here, so the task goes elsewhere */
    const orr_status no = ORR_ERR_DEVICE_UNFIT;
    if (!dp)
        return orr_fail(err, no,
                        "fdtd: OpenCL device %s has no double precision (cl_khr_fp64): the energy "
                        "and norms are summed in double", d->name);
    const int exact_div = (sp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;
    const int denormals = (sp & CL_FP_DENORM) != 0;
    if (dm->single && !dm->fast && (!exact_div || !denormals))
        return orr_fail(err, no,
                        "fdtd: single precision in faithful arithmetic needs %s%s%s in single "
                        "precision, which OpenCL device %s lacks; run it in double precision or "
                        "fast arithmetic, or on the CPU or CUDA app",
                        exact_div ? "" : "correctly rounded division "
                                         "(CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)",
                        !exact_div && !denormals ? " and " : "",
                        denormals ? "" : "denormals (CL_FP_DENORM)", d->name);
    if (!c->dummy) {
        cl_int e;
        c->dummy = clCreateBuffer(o->context, CL_MEM_READ_WRITE, 16, NULL, &e);
        CL_TRY(e, "allocating device memory");
    }
    return build(d, c, dm, exact_div, err);
}

static orr_status memory(orr_device *d, void *kern, double *avail, double *one_buffer,
                         orr_error *err)
{
    const ocl_device *o = ocl_of(d);
    cl_ulong global = 0, one = 0;
    CL_TRY(clGetDeviceInfo(o->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL),
           "reading the device's memory size");
    CL_TRY(clGetDeviceInfo(o->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof one, &one, NULL),
           "reading the device's largest buffer");
    *avail = (double)global;
    *one_buffer = (double)one;
    return ORR_OK;
}

/* kernels.cl's cell_sizes in the program's precision: for each axis d,
 * RN(1/d) and the numerators' biased exponents that take fdtd_div's quick
 * path, x in [2^(emin + p + 4 + max(eb, 0)), 2^(emax - 3 + min(eb, 0)))
 * for d in [2^eb, 2^(eb + 1)) (app_cuda/fdtd/kernels.cu's sizes_of); none
 * unless d is normal. */
typedef struct {
    double d, inv;
    cl_int elo, ehi;
} cell_size_d;
typedef struct {
    float d, inv;
    cl_int elo, ehi;
} cell_size_f;

static void quick_range(double d, int single, cl_int *elo, cl_int *ehi)
{
    const int emin = single ? -126 : -1022, emax = single ? 127 : 1023, p = single ? 24 : 53;
    int eb;
    frexp(d, &eb);
    eb -= 1;
    *elo = emax + emin + p + 4 + (eb > 0 ? eb : 0);
    *ehi = emax + emax - 4 + (eb < 0 ? eb : 0);
    if (!(d >= (single ? FLT_MIN : DBL_MIN) && d <= (single ? FLT_MAX : DBL_MAX)))
        *elo = 1 << 30;
}

static orr_status set_cell_sizes(cl_kernel k, const fdtd_dims *dm, orr_error *err)
{
    cell_size_d cd[3];
    cell_size_f cf[3];
    for (int a = 0; a < 3; a++) {
        cf[a].d = (float)dm->d[a];
        cf[a].inv = 1.0f / cf[a].d;
        quick_range(cf[a].d, 1, &cf[a].elo, &cf[a].ehi);
        cd[a].d = dm->d[a];
        cd[a].inv = 1.0 / cd[a].d;
        quick_range(cd[a].d, 0, &cd[a].elo, &cd[a].ehi);
    }
    if (dm->single)
        CL_TRY(clSetKernelArg(k, N_STATE_ARGS - 1, sizeof cf, cf), ARGS);
    else
        CL_TRY(clSetKernelArg(k, N_STATE_ARGS - 1, sizeof cd, cd), ARGS);
    return ORR_OK;
}

/* kernels.cl's STATE_ARGS: the sizes, the fields, the psi arrays, the
 * maps, the tables, the cell sizes. */
static orr_status set_state(const ocl_fdtd *c, cl_kernel k, const fdtd_dims *dm,
                            const fdtd_device_bufs *b, orr_error *err)
{
    const orr_dmem all[N_STATE_BUFS] = {
        b->f[0],   b->f[1],   b->f[2],   b->f[3],    b->f[4],    b->f[5],   b->psi[0], b->psi[1],
        b->psi[2], b->psi[3], b->psi[4], b->psi[5],  b->psi[6],  b->psi[7], b->psi[8], b->psi[9],
        b->psi[10], b->psi[11], b->map[0], b->map[1], b->map[2], b->tab,    b->eps};
    CL_TRY(clSetKernelArg(k, 0, sizeof *dm, dm), ARGS);
    for (int i = 0; i < N_STATE_BUFS; i++) {
        const cl_mem m = all[i] ? (cl_mem)all[i] : c->dummy;
        CL_TRY(clSetKernelArg(k, (cl_uint)(1 + i), sizeof m, &m), ARGS);
    }
    return set_cell_sizes(k, dm, err);
}

static orr_status enqueue(orr_device *d, cl_kernel k, cl_uint dims, const size_t *global,
                          const size_t *local, const char *what, orr_error *err)
{
    CL_TRY(clEnqueueNDRangeKernel(ocl_of(d)->queue, k, dims, NULL, global, local, 0, NULL, NULL),
           what);
    return ORR_OK;
}

static size_t round_up(int64_t n, size_t to)
{
    return ((size_t)n + to - 1) / to * to;
}

/* A work-item a cell of phase ph's launch box. */
static orr_status phase(orr_device *d, ocl_fdtd *c, int which, int ph, const fdtd_dims *dm,
                        const fdtd_device_bufs *b, const char *what, orr_error *err)
{
    const cl_kernel k = build_of(c, dm)->k[which];
    const size_t local[3] = {BX, BY, 1};
    const size_t global[3] = {round_up(dm->box[ph][1][0] - dm->box[ph][0][0] + 1, BX),
                              round_up(dm->box[ph][1][1] - dm->box[ph][0][1] + 1, BY),
                              (size_t)(dm->box[ph][1][2] - dm->box[ph][0][2] + 1)};
    orr_status st = set_state(c, k, dm, b, err);
    return st == ORR_OK ? enqueue(d, k, 3, global, local, what, err) : st;
}

static orr_status e_phase(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                          orr_error *err)
{
    return phase(d, kern, K_E, 0, dm, b, "launching the E phase", err);
}

/* FDTD_LANES work-items a row (j, k), ROWS rows a group. */
static void row_range(const fdtd_dims *dm, size_t global[2], size_t local[2])
{
    local[0] = global[0] = FDTD_LANES;
    local[1] = ROWS;
    global[1] = round_up(dm->sy * dm->sz, ROWS);
}

static orr_status h_phase(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                          int64_t rows_at, orr_error *err)
{
    ocl_fdtd *c = kern;
    if (rows_at < 0)
        return phase(d, c, K_H, 1, dm, b, "launching the H phase", err);
    const cl_kernel k = build_of(c, dm)->k[K_ENERGY];
    const cl_mem rows = (cl_mem)b->rows;
    const cl_long at = rows_at;
    size_t global[2], local[2];
    row_range(dm, global, local);
    orr_status st = set_state(c, k, dm, b, err);
    if (st != ORR_OK)
        return st;
    CL_TRY(clSetKernelArg(k, N_STATE_ARGS, sizeof rows, &rows), ARGS);
    CL_TRY(clSetKernelArg(k, N_STATE_ARGS + 1, sizeof at, &at), ARGS);
    return enqueue(d, k, 2, global, local, "launching the H phase with the energy", err);
}

static orr_status points(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                         int do_src, int src_field, int64_t src_at, double value, int64_t out_at,
                         orr_error *err)
{
    ocl_fdtd *c = kern;
    const cl_kernel k = build_of(c, dm)->k[K_POINTS];
    const cl_mem at = (cl_mem)b->probe_at, out = (cl_mem)b->probe_out;
    const cl_int src = do_src, field = src_field;
    const cl_long where = src_at, out_from = out_at;
    /* the source's value rounded here, on the host, as the reference rounds -J(n) */
    const float value_f = (float)value;
    const size_t global = round_up(do_src ? 1 : dm->n_probes, 64);
    const size_t sizes[] = {sizeof at, sizeof out, sizeof src, sizeof field, sizeof where,
                            dm->single ? sizeof value_f : sizeof value, sizeof out_from};
    const void *values[] = {&at, &out, &src, &field, &where,
                            dm->single ? (const void *)&value_f : (const void *)&value, &out_from};
    orr_status st = set_state(c, k, dm, b, err);
    if (st != ORR_OK)
        return st;
    for (int i = 0; i < (int)ORR_ARRAY_LEN(sizes); i++)
        CL_TRY(clSetKernelArg(k, (cl_uint)(N_STATE_ARGS + i), sizes[i], values[i]), ARGS);
    return enqueue(d, k, 1, &global, NULL, do_src ? "launching the source" : "launching the probes",
                   err);
}

static orr_status norm(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                       int f, orr_error *err)
{
    ocl_fdtd *c = kern;
    const cl_kernel k = build_of(c, dm)->k[K_NORM];
    const cl_mem x = (cl_mem)b->f[f], rows = (cl_mem)b->rows, rows_max = (cl_mem)b->rows_max;
    const size_t sizes[] = {sizeof *dm, sizeof x, sizeof rows, sizeof rows_max};
    const void *values[] = {dm, &x, &rows, &rows_max};
    size_t global[2], local[2];
    row_range(dm, global, local);
    orr_status st = ocl_set_args(k, 4, sizes, values, err);
    return st == ORR_OK ? enqueue(d, k, 2, global, local, "launching the norms", err) : st;
}

static void release(orr_device *d, void *kern)
{
    ocl_fdtd *c = kern;
    for (int i = 0; i < 8; i++)
        release_build(&c->builds[i]);
    if (c->dummy)
        clReleaseMemObject(c->dummy);
    free(c);
}

static const fdtd_device_kernels opencl_fdtd_kernels = {prepare, memory, e_phase, h_phase,
                                                        points,  norm,   release};

orr_status fdtd_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    ocl_fdtd *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    return fdtd_device_attach(be->ctx, &opencl_fdtd_kernels, c, slot, err);
}
