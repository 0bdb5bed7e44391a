/* The spectral kernels' OpenCL launches, as the shared GPU policy calls
 * them (common/spectral/device.h): the program (spectral.cl) built per
 * precision on first use, work-group shapes from the device's limits, the
 * launches of each kind, and the convolution's shapes and work buffer and
 * the tridiagonal systems' diagonals in buffers kept between runs. */
#include "spectral_host.h"

#include <stdlib.h>
#include <string.h>

#include "../device_opencl.h"
#include "spectral/device.h"

/* The kernels: spectral.cl embedded at build time (tools/embed-cl.sh). */
extern const char orr_opencl_spectral_source[];

#define MAX_1D 4096
#define GROUP_GPU 256   /* work-items per group we aim for on a GPU */
#define GROUP_CPU 64    /* PoCL's CPU devices like small groups */
#define TRIDIAG_CHUNK 32   /* rows per system staged in local memory (a power of two) */

/* kind codes of spectral.cl's fft_real */
enum { K_R2C = 1, K_C2R = 2, K_DCT2 = 3, K_DCT3 = 4, K_DHT = 5 };

typedef struct {
    cl_program program;
    cl_kernel c2c, real, conv_fwd, conv_cols, conv_inv, tridiag, fft2_local, conv_local;
    size_t max_group;   /* the smallest CL_KERNEL_WORK_GROUP_SIZE of the FFT kernels */
} spec_program;

struct ocl_spectral {
    orr_device *dev;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    int cpu;              /* a CPU device */
    size_t local_bytes;   /* local memory a group may use */
    spec_program prog[2]; /* by spec_precision */
    spec_device_tables own_tables;   /* the bench's; a run uses the policy's */
    spec_device_tables *tables;
    orr_dbuf shapes, work, diagonals[3];
    orr_dbuf status;      /* TRIDIAG: an int a system (spec_tridiag_check's) */
};

ocl_spectral *ocl_spectral_new(orr_device *dev)
{
    ocl_spectral *sp = calloc(1, sizeof *sp);
    if (!sp)
        return NULL;
    sp->dev = dev;
    sp->context = ocl_of(dev)->context;
    sp->device = ocl_of(dev)->device;
    sp->queue = ocl_of(dev)->queue;
    sp->tables = &sp->own_tables;
    cl_ulong local = 16384;
    clGetDeviceInfo(sp->device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    sp->cpu = dev->is_cpu;
    /* ORR_OPENCL_SPECTRAL_LOCAL caps it (bytes), so that the paths a GPU's
     * small local memory takes can be tested on PoCL. */
    const char *cap = getenv("ORR_OPENCL_SPECTRAL_LOCAL");
    if (cap && atol(cap) > 0 && (cl_ulong)atol(cap) < local)
        local = (cl_ulong)atol(cap);
    sp->local_bytes = (size_t)local;
    return sp;
}

static void release_program(spec_program *p)
{
    cl_kernel *ks[] = {&p->c2c,      &p->real,    &p->conv_fwd,   &p->conv_cols,
                       &p->conv_inv, &p->tridiag, &p->fft2_local, &p->conv_local};
    for (size_t i = 0; i < ORR_ARRAY_LEN(ks); i++)
        if (*ks[i])
            clReleaseKernel(*ks[i]);
    if (p->program)
        clReleaseProgram(p->program);
    memset(p, 0, sizeof *p);
}

void ocl_spectral_free(ocl_spectral *sp)
{
    if (!sp)
        return;
    release_program(&sp->prog[0]);
    release_program(&sp->prog[1]);
    spec_device_tables_free(sp->dev, &sp->own_tables);
    orr_dbuf_free(sp->dev, &sp->shapes);
    orr_dbuf_free(sp->dev, &sp->work);
    for (int i = 0; i < 3; i++)
        orr_dbuf_free(sp->dev, &sp->diagonals[i]);
    orr_dbuf_free(sp->dev, &sp->status);
    free(sp);
}

/* The program for precision p, built on first use. Options: the types;
 * nothing that relaxes arithmetic. */
static orr_status program_for(ocl_spectral *sp, spec_precision p, spec_program **out,
                              orr_error *err)
{
    spec_program *g = &sp->prog[p];
    *out = g;
    if (g->program)
        return ORR_OK;
    const char *options = p == SPEC_F64
                              ? "-cl-std=CL1.2 -DREAL=double -DREAL2=double2 -DSPEC_FP64=1"
                              : "-cl-std=CL1.2 -DREAL=float -DREAL2=float2";
    orr_status s = ocl_build_program(sp->context, sp->device, orr_opencl_spectral_source, options,
                                     "the spectral kernels", &g->program, err);
    if (s != ORR_OK)
        return s;
    cl_int e;
    struct {
        cl_kernel *k;
        const char *name;
    } ks[] = {{&g->c2c, "fft_c2c"},        {&g->real, "fft_real"},
              {&g->conv_fwd, "conv_rows_fwd"}, {&g->conv_cols, "conv_cols"},
              {&g->conv_inv, "conv_rows_inv"}, {&g->tridiag, "tridiag_thomas"},
              {&g->fft2_local, "fft2_local"},  {&g->conv_local, "conv_local"}};
    g->max_group = (size_t)-1;
    for (size_t i = 0; i < ORR_ARRAY_LEN(ks); i++) {
        *ks[i].k = clCreateKernel(g->program, ks[i].name, &e);
        size_t fits = 0;
        if (e == CL_SUCCESS)
            e = clGetKernelWorkGroupInfo(*ks[i].k, sp->device, CL_KERNEL_WORK_GROUP_SIZE,
                                         sizeof fits, &fits, NULL);
        if (e != CL_SUCCESS) {
            release_program(g);
            return cl_fail(err, e, "creating the spectral kernels");
        }
        if (fits < g->max_group)
            g->max_group = fits;
    }
    return ORR_OK;
}

/* The device table of e^{-2 pi j k / n} (k < n), or with quarter of
 * e^{-j pi k / (2n)}, as the precision's complex type. */
static orr_status table_for(ocl_spectral *sp, spec_precision p, int n, int quarter, cl_mem *out,
                            orr_error *err)
{
    orr_dmem m;
    orr_status s = spec_device_table_get(sp->dev, sp->tables, p, n, quarter ? 4L * n : n, &m, err);
    *out = m;
    return s;
}

/* Work-items per transform of n points: radix-4 passes with at most four
 * butterflies per work-item (spectral.cl's MAXB). */
static int items_for(int n) { return n >= 16 ? n / 16 : 1; }

/* Whether one n-point complex transform fits a group's local memory. */
static int fits_local(const ocl_spectral *sp, const spec_program *g, int n, size_t cpx)
{
    return (size_t)n * cpx <= sp->local_bytes && (size_t)items_for(n) <= g->max_group;
}

/* Transforms per group: toward the target group size, within local
 * memory and the kernel's limit, no more than there are transforms. */
static int groups_for(const ocl_spectral *sp, const spec_program *g, int n, int count, size_t cpx)
{
    const int T = items_for(n);
    int G = (sp->cpu ? GROUP_CPU : GROUP_GPU) / T;
    if (G < 1)
        G = 1;
    while (G > 1 && ((size_t)G * n * cpx > sp->local_bytes || (size_t)G * T > g->max_group))
        G /= 2;
    while (G > 1 && G / 2 >= count)
        G /= 2;
    return G;
}

/* Kernel arguments in order; the first failure is kept. */
typedef struct {
    cl_kernel k;
    cl_uint next;
    cl_int e;
} arg_list;

static void arg(arg_list *a, size_t size, const void *value)
{
    if (a->e == CL_SUCCESS)
        a->e = clSetKernelArg(a->k, a->next, size, value);
    a->next++;
}
#define ARG(a, v) arg(a, sizeof(v), &(v))

/* A REAL argument in the precision's size. */
static void arg_real(arg_list *a, spec_precision p, double v)
{
    const float f = (float)v;
    if (p == SPEC_F32)
        arg(a, sizeof f, &f);
    else
        arg(a, sizeof v, &v);
}

static orr_status launch(ocl_spectral *sp, arg_list *a, size_t groups, size_t local,
                         const char *what, orr_error *err)
{
    if (a->e != CL_SUCCESS)
        return cl_fail(err, a->e, what);
    const size_t global = groups * local;
    CL_TRY(clEnqueueNDRangeKernel(sp->queue, a->k, 1, NULL, &global, &local, 0, NULL, NULL), what);
    return ORR_OK;
}

/* One batched complex FFT launch: count transforms of n points laid out
 * as spectral.cl's at() says (inner, tstride, estride, outer per side). */
typedef struct {
    int inner, tstride, estride;
    cl_long outer;
} fft_side;

static orr_status launch_c2c(ocl_spectral *sp, const spec_program *g, spec_precision p, cl_mem in,
                             cl_mem out, cl_mem tw, int n, int tstep0, int count, fft_side si,
                             fft_side so, int inv, int post_tw, double scale, orr_error *err)
{
    const size_t cpx = p == SPEC_F32 ? 8 : 16;
    const int T = items_for(n), G = groups_for(sp, g, n, count, cpx);
    const cl_int n_ = n, ts = tstep0, cnt = count, T_ = T, inv_ = inv, post = post_tw;
    arg_list a = {g->c2c, 0, CL_SUCCESS};
    ARG(&a, in);
    ARG(&a, out);
    ARG(&a, tw);
    ARG(&a, n_);
    ARG(&a, ts);
    ARG(&a, cnt);
    ARG(&a, T_);
    ARG(&a, si.inner);
    ARG(&a, si.tstride);
    ARG(&a, si.estride);
    ARG(&a, si.outer);
    ARG(&a, so.inner);
    ARG(&a, so.tstride);
    ARG(&a, so.estride);
    ARG(&a, so.outer);
    ARG(&a, inv_);
    ARG(&a, post);
    arg_real(&a, p, scale);
    arg(&a, (size_t)G * n * cpx, NULL);
    return launch(sp, &a, ((size_t)count + G - 1) / G, (size_t)G * T, "launching the FFT", err);
}

static int ilog2(int n)
{
    int l = 0;
    while ((1 << l) < n)
        l++;
    return l;
}

/* Batched packed C2C of n points: one launch where a transform fits local
 * memory, else the four-step: n = A B, B-point FFTs down the columns
 * (stride A) times e^{-2 pi j n1 k2 / n}, in place, then A-point FFTs
 * along the rows written transposed. in is overwritten in that case. */
static orr_status enqueue_c2c(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                              cl_mem in, cl_mem out, orr_error *err)
{
    const spec_precision p = d->precision;
    const size_t cpx = p == SPEC_F32 ? 8 : 16;
    const int n = d->n;
    const double scale = d->inverse ? 1.0 / n : 1.0;
    cl_mem tw;
    orr_status st = table_for(sp, p, n, 0, &tw, err);
    if (st != ORR_OK)
        return st;
    if (fits_local(sp, g, n, cpx)) {
        const fft_side row = {1, 0, 1, n};
        return launch_c2c(sp, g, p, in, out, tw, n, 1, d->batch, row, row, d->inverse, 0, scale,
                          err);
    }
    const int A = 1 << (ilog2(n) / 2), B = n / A;
    if (!fits_local(sp, g, B, cpx))
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "OpenCL spectral c2c: N = %d does not fit this device's local memory", n);
    const fft_side cols = {A, 1, A, n}, rows_in = {B, A, 1, n}, rows_out = {B, 1, B, n};
    st = launch_c2c(sp, g, p, in, in, tw, B, A, d->batch * A, cols, cols, d->inverse, 1, 1.0, err);
    if (st == ORR_OK)
        st = launch_c2c(sp, g, p, in, out, tw, A, B, d->batch * B, rows_in, rows_out, d->inverse,
                        0, scale, err);
    return st;
}

static orr_status enqueue_real(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                               cl_mem in, cl_mem out, orr_error *err)
{
    const spec_precision p = d->precision;
    const size_t cpx = p == SPEC_F32 ? 8 : 16;
    const int n = d->n, h = n / 2;
    if (!fits_local(sp, g, h, cpx))
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "OpenCL spectral %s: N = %d does not fit this device's local memory",
                        spec_kind_name(d->kind), n);
    cl_int kind;
    switch (d->kind) {
    case SPEC_R2C: kind = K_R2C; break;
    case SPEC_C2R: kind = K_C2R; break;
    case SPEC_DCT2: kind = K_DCT2; break;
    case SPEC_DCT3: kind = K_DCT3; break;
    default: kind = K_DHT; break;
    }
    cl_mem tw, qt;
    orr_status st = table_for(sp, p, n, 0, &tw, err);
    if (st == ORR_OK)   /* the DCT's quarter turns; others pass tw, unused */
        st = kind == K_DCT2 || kind == K_DCT3 ? table_for(sp, p, n, 1, &qt, err)
                                               : (qt = tw, ORR_OK);
    if (st != ORR_OK)
        return st;
    const int T = items_for(h), G = groups_for(sp, g, h, d->batch, cpx);
    const cl_int n_ = n, cnt = d->batch, T_ = T;
    arg_list a = {g->real, 0, CL_SUCCESS};
    ARG(&a, in);
    ARG(&a, out);
    ARG(&a, tw);
    ARG(&a, qt);
    ARG(&a, kind);
    ARG(&a, n_);
    ARG(&a, cnt);
    ARG(&a, T_);
    arg(&a, (size_t)G * h * cpx, NULL);
    return launch(sp, &a, ((size_t)d->batch + G - 1) / G, (size_t)G * T,
                  "launching the real FFT", err);
}


/* Work-items for a whole image in one group: the target group size,
 * within the kernel's limit, at least the widest transform's team; 0 when
 * the image does not fit local memory (rows padded by one element). */
static int image_group(const ocl_spectral *sp, const spec_program *g, int n1, int n2, size_t cpx)
{
    const int T1 = items_for(n1), T2 = items_for(n2), need = T1 > T2 ? T1 : T2;
    if ((size_t)n1 * (n2 + 1) * cpx > sp->local_bytes || (size_t)need > g->max_group)
        return 0;
    int L = sp->cpu ? GROUP_CPU : GROUP_GPU;
    while ((size_t)L > g->max_group)
        L /= 2;
    return L > need ? L : need;
}

/* 2D, small images: one group per image, all in local memory. */
static orr_status enqueue_fft2_local(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                                     cl_mem in, cl_mem out, cl_mem tw1, cl_mem tw2, int L,
                                     orr_error *err)
{
    const spec_precision p = d->precision;
    const size_t cpx = p == SPEC_F32 ? 8 : 16;
    const cl_int n1 = d->n, n2 = d->n2, T1 = items_for(n1), T2 = items_for(n2), inv = d->inverse;
    arg_list a = {g->fft2_local, 0, CL_SUCCESS};
    ARG(&a, in);
    ARG(&a, out);
    ARG(&a, tw1);
    ARG(&a, tw2);
    ARG(&a, n1);
    ARG(&a, n2);
    ARG(&a, T1);
    ARG(&a, T2);
    ARG(&a, inv);
    arg_real(&a, p, d->inverse ? 1.0 / ((double)n1 * n2) : 1.0);
    arg(&a, (size_t)n1 * (n2 + 1) * cpx, NULL);
    return launch(sp, &a, (size_t)d->batch, (size_t)L, "launching the 2D FFT", err);
}

/* 2D: small images in one group (enqueue_fft2_local); else row FFTs
 * in -> out, then column FFTs in place in out (a group reads its columns
 * whole before it writes them), with the inverse's 1/(n1 n2). */
static orr_status enqueue_fft2(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                               cl_mem in, cl_mem out, orr_error *err)
{
    const spec_precision p = d->precision;
    const size_t cpx = p == SPEC_F32 ? 8 : 16;
    const int n1 = d->n, n2 = d->n2;
    if (!fits_local(sp, g, n1, cpx) || !fits_local(sp, g, n2, cpx))
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "OpenCL spectral fft2: %d x %d: a side does not fit this device's local "
                        "memory",
                        n1, n2);
    cl_mem tw1, tw2;
    orr_status st = table_for(sp, p, n2, 0, &tw2, err);
    if (st == ORR_OK)
        st = table_for(sp, p, n1, 0, &tw1, err);
    if (st != ORR_OK)
        return st;
    const int L = image_group(sp, g, n1, n2, cpx);
    if (L > 0)
        return enqueue_fft2_local(sp, g, d, in, out, tw1, tw2, L, err);
    const fft_side rows = {1, 0, 1, n2}, cols = {n2, 1, n2, (cl_long)n1 * n2};
    st = launch_c2c(sp, g, p, in, out, tw2, n2, 1, d->batch * n1, rows, rows, d->inverse, 0, 1.0,
                    err);
    if (st == ORR_OK)
        st = launch_c2c(sp, g, p, out, out, tw1, n1, 1, d->batch * n2, cols, cols, d->inverse, 0,
                        d->inverse ? 1.0 / ((double)n1 * n2) : 1.0, err);
    return st;
}

orr_status ocl_spectral_enqueue(ocl_spectral *sp, const spec_desc *d, cl_mem in, cl_mem out,
                                orr_error *err)
{
    spec_program *g;
    orr_status st = program_for(sp, d->precision, &g, err);
    if (st != ORR_OK)
        return st;
    if (d->kind == SPEC_C2C)
        return enqueue_c2c(sp, g, d, in, out, err);
    if (d->kind == SPEC_FFT2)
        return enqueue_fft2(sp, g, d, in, out, err);
    return enqueue_real(sp, g, d, in, out, err);
}

/* The convolution in three launches over a work buffer of the M live rows
 * per slice: forward rows (padding on the fly), columns (forward, times S,
 * inverse, live rows kept), inverse rows (crop and 1/mfft^2 on the way
 * out). */
static orr_status enqueue_conv2d(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                                 cl_mem x, cl_mem shapes, int n_shapes, cl_mem work, cl_mem y,
                                 orr_error *err)
{
    const spec_precision p = d->precision;
    const size_t cpx = p == SPEC_F32 ? 8 : 16;
    const int nf = d->n, m = d->n2;
    cl_mem tw;
    orr_status st = table_for(sp, p, nf, 0, &tw, err);
    if (st != ORR_OK)
        return st;
    const int T = items_for(nf);
    const cl_int nf_ = nf, m_ = m, rows = d->batch * m, cols = d->batch * nf, T_ = T;
    const cl_int per_shape = d->batch / n_shapes;
    const int L = image_group(sp, g, nf, nf, cpx);
    arg_list a;
    if (L > 0) {   /* the slice fits local memory: one pass */
        a = (arg_list){g->conv_local, 0, CL_SUCCESS};
        ARG(&a, x);
        ARG(&a, shapes);
        ARG(&a, y);
        ARG(&a, tw);
        ARG(&a, nf_);
        ARG(&a, m_);
        ARG(&a, per_shape);
        ARG(&a, T_);
        arg_real(&a, p, 1.0 / ((double)nf * nf));
        arg(&a, (size_t)nf * (nf + 1) * cpx, NULL);
        return launch(sp, &a, (size_t)d->batch, (size_t)L, "launching conv2d", err);
    }
    int G = groups_for(sp, g, nf, rows, cpx);
    a = (arg_list){g->conv_fwd, 0, CL_SUCCESS};
    ARG(&a, x);
    ARG(&a, work);
    ARG(&a, tw);
    ARG(&a, nf_);
    ARG(&a, m_);
    ARG(&a, rows);
    ARG(&a, T_);
    arg(&a, (size_t)G * nf * cpx, NULL);
    st = launch(sp, &a, ((size_t)rows + G - 1) / G, (size_t)G * T, "launching conv2d rows", err);
    if (st != ORR_OK)
        return st;
    G = groups_for(sp, g, nf, cols, cpx);
    a = (arg_list){g->conv_cols, 0, CL_SUCCESS};
    ARG(&a, work);
    ARG(&a, shapes);
    ARG(&a, tw);
    ARG(&a, nf_);
    ARG(&a, m_);
    ARG(&a, cols);
    ARG(&a, per_shape);
    ARG(&a, T_);
    arg(&a, (size_t)G * nf * cpx, NULL);
    st = launch(sp, &a, ((size_t)cols + G - 1) / G, (size_t)G * T, "launching conv2d columns",
                err);
    if (st != ORR_OK)
        return st;
    G = groups_for(sp, g, nf, rows, cpx);
    a = (arg_list){g->conv_inv, 0, CL_SUCCESS};
    ARG(&a, work);
    ARG(&a, y);
    ARG(&a, tw);
    ARG(&a, nf_);
    ARG(&a, m_);
    ARG(&a, rows);
    ARG(&a, T_);
    arg_real(&a, p, 1.0 / ((double)nf * nf));
    arg(&a, (size_t)G * nf * cpx, NULL);
    return launch(sp, &a, ((size_t)rows + G - 1) / G, (size_t)G * T,
                  "launching conv2d inverse rows", err);
}

static orr_status enqueue_tridiag(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                                  cl_mem dl, cl_mem dd, cl_mem du, cl_mem rhs, cl_mem x,
                                  cl_mem status, orr_error *err)
{
    const size_t es = d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    const cl_int n = d->n, cnt = d->batch, chunk = TRIDIAG_CHUNK;
    /* systems per group: a warp's worth on a GPU, few on a CPU; within
     * local memory (four chunks of C + 1 rows each) */
    size_t local = sp->cpu ? 8 : 32;
    while (local > 1 && (local > g->max_group || 4 * local * (chunk + 1) * es > sp->local_bytes))
        local /= 2;
    arg_list a = {g->tridiag, 0, CL_SUCCESS};
    ARG(&a, dl);
    ARG(&a, dd);
    ARG(&a, du);
    ARG(&a, rhs);
    ARG(&a, x);
    ARG(&a, n);
    ARG(&a, cnt);
    ARG(&a, chunk);
    arg(&a, 4 * local * (chunk + 1) * es, NULL);
    ARG(&a, status);
    return launch(sp, &a, ((size_t)cnt + local - 1) / local, local,
                  "launching the tridiagonal solver", err);
}

/* ---- the policy's hooks (common/spectral/device.h) ---- */

static const char *unsupported_reason(const spec_desc *d)
{
    switch (d->kind) {
    case SPEC_C2C:
        return d->n >= 2 && d->n <= MAX_1D ? NULL : "N from 2 to 4096";
    case SPEC_R2C:
    case SPEC_C2R:
    case SPEC_DCT2:
    case SPEC_DCT3:
    case SPEC_DHT:
        return d->n >= 4 && d->n <= MAX_1D ? NULL : "N from 4 to 4096";
    case SPEC_FFT2:
        return d->n <= MAX_1D && d->n2 <= MAX_1D ? NULL : "sides up to 4096";
    case SPEC_CONV2D:
        return d->n <= MAX_1D ? NULL : "mfft up to 4096";
    default:
        return NULL;
    }
}

static orr_status check(orr_device *dev, void *kern, const spec_desc *d, orr_error *err)
{
    (void)dev;
    (void)kern;
    const char *why = unsupported_reason(d);
    if (why)
        return orr_fail(err, ORR_ERR_UNSUPPORTED, "OpenCL spectral %s: n = %d x %d: %s",
                        spec_kind_name(d->kind), d->n, d->n2, why);
    return ORR_OK;
}

static orr_status run_tridiag(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                              const spec_buffers *b, const spec_device_io *io, orr_error *err)
{
    const size_t bytes = io->in_bytes;
    orr_device *dev = sp->dev;
    const void *host[3] = {b->dl, b->d, b->du};
    orr_status s = ORR_OK;
    for (int i = 0; i < 3 && s == ORR_OK; i++) {
        s = orr_dbuf_reserve(dev, &sp->diagonals[i], bytes, err);
        if (s == ORR_OK)
            s = dev->api->upload(dev, sp->diagonals[i].mem, 0, host[i], bytes, err);
    }
    if (s == ORR_OK)   /* the kernel writes every system's */
        s = orr_dbuf_reserve(dev, &sp->status, (size_t)d->batch * sizeof(cl_int), err);
    if (s == ORR_OK)
        s = enqueue_tridiag(sp, g, d, sp->diagonals[0].mem, sp->diagonals[1].mem,
                            sp->diagonals[2].mem, io->in, io->out, sp->status.mem, err);
    return s;
}

static orr_status tridiag_status(orr_device *dev, void *kern, const spec_desc *d, int *status,
                                 orr_error *err)
{
    const ocl_spectral *sp = kern;
    return dev->api->download(dev, status, sp->status.mem, 0, (size_t)d->batch * sizeof(cl_int),
                              err);
}

static orr_status run_conv2d(ocl_spectral *sp, const spec_program *g, const spec_desc *d,
                             const spec_buffers *b, const spec_device_io *io, orr_error *err)
{
    if (b->n_shapes < 1 || d->batch % b->n_shapes != 0)
        return orr_fail(err, ORR_ERR_USAGE, "spectral conv2d: %d shape functions for %d slices",
                        b->n_shapes, d->batch);
    const size_t es = d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    const size_t s_bytes = (size_t)b->n_shapes * d->n * d->n * es;
    const size_t w_bytes = (size_t)d->batch * d->n2 * d->n * 2 * es;
    orr_device *dev = sp->dev;
    orr_status s = orr_dbuf_reserve(dev, &sp->shapes, s_bytes, err);
    if (s == ORR_OK)
        s = orr_dbuf_reserve(dev, &sp->work, w_bytes, err);
    if (s == ORR_OK)
        s = dev->api->upload(dev, sp->shapes.mem, 0, b->shapes, s_bytes, err);
    if (s == ORR_OK)
        s = orr_device_poison(dev, sp->work.mem, w_bytes, err);
    if (s == ORR_OK)
        s = enqueue_conv2d(sp, g, d, io->in, sp->shapes.mem, b->n_shapes, sp->work.mem, io->out,
                           err);
    return s;
}

static orr_status enqueue(orr_device *dev, void *kern, const spec_desc *d, const spec_buffers *b,
                          const spec_device_io *io, orr_error *err)
{
    (void)dev;
    ocl_spectral *sp = kern;
    spec_program *g;
    orr_status s = program_for(sp, d->precision, &g, err);
    if (s != ORR_OK)
        return s;
    sp->tables = io->tables;
    switch (d->kind) {
    case SPEC_TRIDIAG: s = run_tridiag(sp, g, d, b, io, err); break;
    case SPEC_CONV2D: s = run_conv2d(sp, g, d, b, io, err); break;
    case SPEC_FFT2: s = enqueue_fft2(sp, g, d, io->in, io->out, err); break;
    default: s = ocl_spectral_enqueue(sp, d, io->in, io->out, err); break;
    }
    sp->tables = &sp->own_tables;
    return s;
}

static void release(orr_device *dev, void *kern)
{
    (void)dev;
    ocl_spectral_free(kern);
}

static const spec_device_kernels opencl_spec_kernels = {check, enqueue, release, tridiag_status};

orr_status spec_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    orr_device *dev = be->ctx;
    ocl_spectral *sp = ocl_spectral_new(dev);
    if (!sp)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    return spec_device_attach(dev, &opencl_spec_kernels, sp, slot, err);
}
