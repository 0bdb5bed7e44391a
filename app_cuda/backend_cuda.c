/* CUDA backend, host side: device choice, tables on the device, launches
 * sized to a target duration, and every CUDA return code checked. A CUDA
 * failure is ORR_ERR_DEVICE, which the driver turns into BOINC's temporary
 * exit; results from a failed computation are never used.
 *
 * The host thread sleeps while kernels run (cudaDeviceScheduleBlockingSync),
 * and each launch with its read-back sits in a critical section so a quit
 * or suspend lands between launches. */
#include "cuda_backend.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/gpu.h"
#include "separation/kernels.h"
#include "spectral/spectral_2d.h"
#include "separation/nodes.h"
#include "spectral/spectral.h"
#include "spectral/spectral_1d.h"
#include "runtime/runtime.h"

#define STAR_CAPACITY 4096            /* the kind sends stars in chunks of 4096 */
#define MAX_LAUNCH_CHUNKS 65535
#define SPEC_MAX_LOG2N 12             /* the device's 1D spectral kernels: N <= 4096 */

/* The twiddle tables of one 1D size N on the device, each as double2 and
 * float2 (from the core's long-double table, rounded once): tw holds
 * e^{-2 pi j k / N}, qt e^{-j pi k / (2N)} (the DCTs'), k < N. */
typedef struct {
    void *tw_double, *tw_single, *qt_double, *qt_single;
} cuda_spec_tables;

typedef struct {
    int device;
    const sep_setup *tables_for;
    orr_cuda_area areas[SEP_MAX_AREAS];
    void *allocations[SEP_MAX_AREAS * 7];
    int n_allocations;
    sep_partial *d_out;
    int out_capacity;
    /* stars */
    sep_direction *d_dirs;
    double *d_rp, *d_qw, *d_bg, *d_st;
    sep_direction *h_dirs;
    double *h_rp, *h_qw, *h_k, *h_bg, *h_st;
    /* launch sizing, per stream count (occupancy differs) */
    orr_backend_request request;
    int sms;
    int paced_streams;                /* stream count the pacer was set up for */
    orr_gpu_pacer pacer;
    /* spectral: device tables per 1D size (index log2 N), made on first use */
    cuda_spec_tables spec_tables[SPEC_MAX_LOG2N + 1];
    void *spec2d_state;               /* the 2D kinds' tables and buffers (spectral_2d_host.c) */
} cuda_ctx;

static orr_status cuda_fail(orr_error *err, cudaError_t e, const char *what)
{
    return orr_fail(err, ORR_ERR_DEVICE, "CUDA: %s: %s (%s)", what, cudaGetErrorString(e),
                    cudaGetErrorName(e));
}

#define CUDA_TRY(call, what)                                                                  \
    do {                                                                                      \
        cudaError_t e_ = (call);                                                              \
        if (e_ != cudaSuccess)                                                                \
            return cuda_fail(err, e_, what);                                                  \
    } while (0)

static void free_tables(cuda_ctx *c)
{
    for (int i = 0; i < c->n_allocations; i++)
        cudaFree(c->allocations[i]);
    c->n_allocations = 0;
    c->tables_for = NULL;
}

static orr_status upload(cuda_ctx *c, const void *host, size_t bytes, const void **dev,
                         orr_error *err)
{
    void *p;
    CUDA_TRY(cudaMalloc(&p, bytes), "allocating the grid tables");
    c->allocations[c->n_allocations++] = p;
    if (host)   /* NULL: only the space */
        CUDA_TRY(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice), "copying the grid tables");
    *dev = p;
    return ORR_OK;
}

/* The grid's tables once per setup, and every column's direction computed
 * on the device by the formula of sep_column_direction. */
static orr_status prepare_tables(cuda_ctx *c, const sep_model_consts *mc, const sep_setup *s,
                                 orr_error *err)
{
    if (c->tables_for == s)
        return ORR_OK;
    free_tables(c);
    orr_status st = ORR_OK;
    for (int a = 0; a < s->n_areas && st == ORR_OK; a++) {
        const sep_area_tables *t = &s->areas[a];
        orr_cuda_area *g = &c->areas[a];
        const size_t nodes = (size_t)t->r_steps * s->convolve;
        const size_t columns = (size_t)t->nu_steps * t->mu_steps;
        const double *d_nu = NULL;
        g->r_steps = t->r_steps;
        g->mu_steps = t->mu_steps;
        g->nu_steps = t->nu_steps;
        g->convolve = s->convolve;
        st = upload(c, t->r_point, nodes * sizeof(double), (const void **)&g->r_point, err);
        if (st == ORR_OK)
            st = upload(c, t->qw_r3_N, nodes * sizeof(double), (const void **)&g->qw_r3_N, err);
        if (st == ORR_OK)
            st = upload(c, t->irv, t->r_steps * sizeof(double), (const void **)&g->irv, err);
        if (st == ORR_OK)
            st = upload(c, t->reff_xr_rp3, t->r_steps * sizeof(double),
                        (const void **)&g->reff_xr_rp3, err);
        if (st == ORR_OK)
            st = upload(c, t->id, t->nu_steps * sizeof(double), (const void **)&g->id, err);
        if (st == ORR_OK)
            st = upload(c, t->nu, t->nu_steps * sizeof(double), (const void **)&d_nu, err);
        if (st == ORR_OK)
            st = upload(c, NULL, columns * sizeof(sep_direction), (const void **)&g->dirs, err);
        if (st == ORR_OK) {
            cudaError_t e = (cudaError_t)orr_cuda_column_directions(
                mc->wedge, t->mu_min, t->mu_step, d_nu, t->nu_steps, t->mu_steps,
                (sep_direction *)g->dirs);
            if (e == cudaSuccess)
                e = cudaDeviceSynchronize();
            if (e != cudaSuccess)
                st = cuda_fail(err, e, "computing the grid directions");
        }
    }
    if (st != ORR_OK) {
        free_tables(c);
        return st;
    }
    c->tables_for = s;
    return ORR_OK;
}

static orr_status ensure_out(cuda_ctx *c, int count, orr_error *err)
{
    if (count <= c->out_capacity)
        return ORR_OK;
    cudaFree(c->d_out);
    c->d_out = NULL;
    c->out_capacity = 0;
    CUDA_TRY(cudaMalloc((void **)&c->d_out, (size_t)count * sizeof(sep_partial)),
             "allocating the partial sums");
    c->out_capacity = count;
    return ORR_OK;
}

/* One launch and its read-back, as a unit the client cannot split. */
static orr_status launch_chunks(cuda_ctx *c, int area, int n_streams, int first, int count,
                                sep_partial *out, orr_error *err)
{
    orr_runtime_begin_critical();
    int e = orr_cuda_integral_chunks(&c->areas[area], n_streams, first, count, c->d_out);
    cudaError_t sync = e ? (cudaError_t)e : cudaDeviceSynchronize();
    if (sync == cudaSuccess)
        sync = cudaMemcpy(out, c->d_out, (size_t)count * sizeof *out, cudaMemcpyDeviceToHost);
    orr_runtime_end_critical();
    if (sync != cudaSuccess)
        return cuda_fail(err, sync, e ? "launching the integral kernel" : "running the integral kernel");
    return ORR_OK;
}

/* What orr_gpu_run_chunks needs to launch part of a call. */
typedef struct {
    cuda_ctx *c;
    int area, n_streams, first;
    sep_partial *out;
} launch_call;

static orr_status launch_part(void *ctx, int offset, int n, orr_error *err)
{
    launch_call *l = ctx;
    return launch_chunks(l->c, l->area, l->n_streams, l->first + offset, n, l->out + offset, err);
}

static orr_status cuda_integral_chunks(orr_backend *be, const sep_model_consts *mc,
                                       const sep_setup *s, int area, int first, int count,
                                       sep_partial *out, orr_error *err)
{
    cuda_ctx *c = be->ctx;
    orr_status st = prepare_tables(c, mc, s, err);
    if (st != ORR_OK)
        return st;
    int e = orr_cuda_set_model(mc);
    if (e)
        return cuda_fail(err, (cudaError_t)e, "copying the model constants");
    if (c->paced_streams != mc->n_streams) {
        /* Occupancy depends on the specialised kernel. */
        orr_gpu_pacer_resize(&c->pacer, &c->request,
                             c->sms * orr_cuda_integral_blocks_per_sm(mc->n_streams),
                             MAX_LAUNCH_CHUNKS);
        c->paced_streams = mc->n_streams;
    }
    st = ensure_out(c, count < MAX_LAUNCH_CHUNKS ? count : MAX_LAUNCH_CHUNKS, err);
    if (st != ORR_OK)
        return st;
    launch_call call = {c, area, mc->n_streams, first, out};
    return orr_gpu_run_chunks(&c->pacer, count, launch_part, &call, err);
}

static orr_status cuda_star_probs(orr_backend *be, const sep_model_consts *mc, const sep_setup *s,
                                  const sep_stars *stars, int begin, int end, double *bg_prob,
                                  double *st_prob, orr_error *err)
{
    cuda_ctx *c = be->ctx;
    const int n = end - begin, cv = s->convolve, ns = mc->n_streams;
    if (n > STAR_CAPACITY)
        return orr_fail(err, ORR_ERR_INTERNAL, "CUDA: %d stars in one call (at most %d)", n,
                        STAR_CAPACITY);
    orr_gpu_star_nodes(mc, s, stars, begin, n, c->h_dirs, c->h_rp, c->h_qw, c->h_k);
    int e = orr_cuda_set_model(mc);
    if (e)
        return cuda_fail(err, (cudaError_t)e, "copying the model constants");
    orr_runtime_begin_critical();
    cudaError_t r = cudaMemcpy(c->d_dirs, c->h_dirs, n * sizeof *c->d_dirs, cudaMemcpyHostToDevice);
    if (r == cudaSuccess)
        r = cudaMemcpy(c->d_rp, c->h_rp, (size_t)n * cv * sizeof(double), cudaMemcpyHostToDevice);
    if (r == cudaSuccess)
        r = cudaMemcpy(c->d_qw, c->h_qw, (size_t)n * cv * sizeof(double), cudaMemcpyHostToDevice);
    if (r == cudaSuccess)
        r = (cudaError_t)orr_cuda_star_sums(n, cv, ns, c->d_dirs, c->d_rp, c->d_qw, c->d_bg, c->d_st);
    if (r == cudaSuccess)
        r = cudaDeviceSynchronize();
    if (r == cudaSuccess)
        r = cudaMemcpy(c->h_bg, c->d_bg, n * sizeof(double), cudaMemcpyDeviceToHost);
    if (r == cudaSuccess && ns > 0)
        r = cudaMemcpy(c->h_st, c->d_st, (size_t)n * ns * sizeof(double), cudaMemcpyDeviceToHost);
    orr_runtime_end_critical();
    if (r != cudaSuccess)
        return cuda_fail(err, r, "computing the star probabilities");
    orr_gpu_star_probs(ns, begin, n, c->h_k, c->h_bg, c->h_st, bg_prob, st_prob);
    return ORR_OK;
}

/* Uploads count (cos, sin) pairs of table as double2 to *dbl and float2 to
 * *sgl; frees table. */
static orr_status upload_root_table(double *table, int count, void **dbl, void **sgl,
                                    orr_error *err)
{
    float *ts = table ? malloc(2 * (size_t)count * sizeof *ts) : NULL;
    if (!ts) {
        free(table);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    for (int k = 0; k < 2 * count; k++)
        ts[k] = (float)table[k];
    cudaError_t e = cudaMalloc(dbl, 2 * (size_t)count * sizeof *table);
    if (e == cudaSuccess)
        e = cudaMalloc(sgl, 2 * (size_t)count * sizeof *ts);
    if (e == cudaSuccess)
        e = cudaMemcpy(*dbl, table, 2 * (size_t)count * sizeof *table, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(*sgl, ts, 2 * (size_t)count * sizeof *ts, cudaMemcpyHostToDevice);
    free(table);
    free(ts);
    if (e != cudaSuccess)
        return cuda_fail(err, e, "uploading the FFT twiddles");
    return ORR_OK;
}

static void free_spec_tables(cuda_spec_tables *t)
{
    cudaFree(t->tw_double);
    cudaFree(t->tw_single);
    cudaFree(t->qt_double);
    cudaFree(t->qt_single);
    memset(t, 0, sizeof *t);
}

/* The tables of size n (a power of two <= 2^SPEC_MAX_LOG2N), the DCT's
 * quarter-wave table too when with_qt; kept for the next call. */
static orr_status spec_tables_for(cuda_ctx *c, int n, int with_qt, const cuda_spec_tables **out,
                                  orr_error *err)
{
    int log2n = 0;
    while ((1 << log2n) < n)
        log2n++;
    cuda_spec_tables *t = &c->spec_tables[log2n];
    orr_status st = ORR_OK;
    if (!t->tw_double)
        st = upload_root_table(spec_root_table(n, n, -1), n, &t->tw_double, &t->tw_single, err);
    if (st == ORR_OK && with_qt && !t->qt_double)
        st = upload_root_table(spec_root_table(n, 4 * (long)n, -1), n, &t->qt_double,
                               &t->qt_single, err);
    if (st != ORR_OK) {
        free_spec_tables(t);
        return st;
    }
    *out = t;
    return ORR_OK;
}

/* One 1D kind on packed host buffers: upload, poisoned output, one kernel,
 * download. */
static orr_status cuda_spec_1d(cuda_ctx *c, const spec_desc *d, const void *in, void *out,
                               orr_error *err)
{
    const int single = d->precision == SPEC_F32;
    const size_t es = single ? sizeof(float) : sizeof(double);
    const size_t in_bytes = spec_in_reals(d) * d->batch * es,
                 out_bytes = spec_out_reals(d) * d->batch * es;
    const int with_qt = d->kind == SPEC_DCT2 || d->kind == SPEC_DCT3;
    const cuda_spec_tables *t = NULL;
    orr_status st = spec_tables_for(c, d->n, with_qt, &t, err);
    if (st != ORR_OK)
        return st;
    int real_kind = 0;
    switch (d->kind) {
    case SPEC_C2C: break;
    case SPEC_R2C: real_kind = ORR_CUDA_R2C; break;
    case SPEC_C2R: real_kind = ORR_CUDA_C2R; break;
    case SPEC_DCT2: real_kind = ORR_CUDA_DCT2; break;
    case SPEC_DCT3: real_kind = ORR_CUDA_DCT3; break;
    case SPEC_DHT: real_kind = ORR_CUDA_DHT; break;
    default: return orr_fail(err, ORR_ERR_INTERNAL, "CUDA: %s is not a 1D kind", spec_kind_name(d->kind));
    }
    void *d_in = NULL, *d_out = NULL;
    cudaError_t e = cudaMalloc(&d_in, in_bytes);
    if (e == cudaSuccess)
        e = cudaMalloc(&d_out, out_bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(d_in, in, in_bytes, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemset(d_out, 0xff, out_bytes);   /* poison: every output must be written */
    if (e == cudaSuccess)
        e = (cudaError_t)(real_kind
                              ? orr_cuda_fft_real(real_kind, single, d->n, d->batch, d_in, d_out,
                                                  t->tw_double, t->tw_single, t->qt_double,
                                                  t->qt_single)
                              : orr_cuda_fft_c2c(single, d->n, d->batch, d->inverse, d_in, d_out,
                                                 t->tw_double, t->tw_single));
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaMemcpy(out, d_out, out_bytes, cudaMemcpyDeviceToHost);
    cudaFree(d_in);
    cudaFree(d_out);
    if (e != cudaSuccess)
        return cuda_fail(err, e, "running the FFT");
    return ORR_OK;
}

/* The 1D kinds on host buffers in desc's layout: packed copies where it
 * is strided. */
static orr_status cuda_spec_run_1d(orr_backend *be, const spec_desc *d, const spec_buffers *b,
                                   orr_error *err)
{
    if (d->n < 4 || d->n > (1 << SPEC_MAX_LOG2N) || (d->n & (d->n - 1)) != 0)
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "CUDA %s: N = %d: a power of two from 4 to %d", spec_kind_name(d->kind), d->n,
                        1 << SPEC_MAX_LOG2N);
    if (spec_is_packed(d))
        return cuda_spec_1d(be->ctx, d, b->in, b->out, err);
    const size_t es = d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    void *packed_in = malloc(spec_in_reals(d) * d->batch * es);
    void *packed_out = malloc(spec_out_reals(d) * d->batch * es);
    if (!packed_in || !packed_out) {
        free(packed_in);
        free(packed_out);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    spec_pack_input(d, b->in, packed_in);
    orr_status s = cuda_spec_1d(be->ctx, d, packed_in, packed_out, err);
    if (s == ORR_OK)
        spec_unpack_output(d, packed_out, b->out);
    free(packed_in);
    free(packed_out);
    return s;
}

/* The spectral kernels on host buffers (spec_run of the ops table). */
static orr_status cuda_spec_run(orr_backend *be, const spec_desc *d, const spec_buffers *b,
                                orr_error *err)
{
    switch (d->kind) {
    case SPEC_C2C:
    case SPEC_R2C:
    case SPEC_C2R:
    case SPEC_DCT2:
    case SPEC_DCT3:
    case SPEC_DHT:
        return cuda_spec_run_1d(be, d, b, err);
    case SPEC_FFT2:
    case SPEC_CONV2D:
    case SPEC_TRIDIAG:
        return orr_cuda_spec2d_run(&((cuda_ctx *)be->ctx)->spec2d_state, d, b, err);
    default:
        return orr_fail(err, ORR_ERR_UNSUPPORTED, "CUDA: no %s kernel yet", spec_kind_name(d->kind));
    }
}

static void cuda_close(orr_backend *be)
{
    cuda_ctx *c = be->ctx;
    if (!c)
        return;
    orr_gpu_pacer_report(&c->pacer, "CUDA");
    free_tables(c);
    for (int i = 0; i <= SPEC_MAX_LOG2N; i++)
        free_spec_tables(&c->spec_tables[i]);
    orr_cuda_spec2d_release(&c->spec2d_state);
    cudaFree(c->d_out);
    cudaFree(c->d_dirs);
    cudaFree(c->d_rp);
    cudaFree(c->d_qw);
    cudaFree(c->d_bg);
    cudaFree(c->d_st);
    free(c->h_dirs);
    free(c->h_rp);
    free(c->h_qw);
    free(c->h_k);
    free(c->h_bg);
    free(c->h_st);
    free(c);
    be->ctx = NULL;
}

/* FP64 throughput score from device attributes: SMs x clock / (FP32:FP64). */
static double fp64_score(int dev)
{
    int sms = 0, clock_khz = 0, ratio = 1;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev);
    cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, dev);
    return (double)sms * clock_khz / (ratio > 0 ? ratio : 1);
}

static orr_status choose_device(const orr_backend_request *req, int *device, int *by_client,
                                orr_error *err)
{
    const orr_init_data *id = orr_runtime_init_data();
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0)
        return orr_fail(err, ORR_ERR_DEVICE, "no usable CUDA device: %s",
                        e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    *by_client = !id->standalone && id->gpu_type[0] != '\0';
    if (*by_client) {
        if (strcmp(id->gpu_type, "NVIDIA") != 0)
            return orr_fail(err, ORR_ERR_DEVICE, "the client assigned a %s GPU to the CUDA app",
                            id->gpu_type);
        *device = id->gpu_device_num >= 0 ? id->gpu_device_num : 0;
    } else if (req->device >= 0) {
        *device = req->device;
    } else {
        *device = 0;
        for (int d = 1; d < count; d++)
            if (fp64_score(d) > fp64_score(*device))
                *device = d;
    }
    if (*device >= count)
        return orr_fail(err, *by_client ? ORR_ERR_DEVICE : ORR_ERR_USAGE,
                        "CUDA device %d does not exist (%d found)", *device, count);
    return ORR_OK;
}

orr_status orr_open_cuda_backend(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    int dev = 0, by_client = 0;
    orr_status st = choose_device(req, &dev, &by_client, err);
    if (st != ORR_OK)
        return st;
    int major = 0, minor = 0, driver = 0, runtime = 0;
    char name[256] = "?";
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    struct cudaDeviceProp prop;
    memset(&prop, 0, sizeof prop);
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
        snprintf(name, sizeof name, "%s", prop.name);
    /* Double precision arrived with compute capability 1.3. Under the
     * client a refusal is a temporary exit so the task can go elsewhere;
     * by hand it is an error. */
    if (major * 10 + minor < 13)
        return orr_fail(err, by_client ? ORR_ERR_DEVICE : ORR_ERR_UNSUPPORTED,
                        "CUDA device %d (%s) has no double precision", dev, name);
    CUDA_TRY(cudaSetDevice(dev), "selecting the device");
    /* Sleep in synchronisation instead of spinning (before the context). */
    cudaError_t fe = cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    if (fe != cudaSuccess && fe != cudaErrorSetOnActiveProcess)
        return cuda_fail(err, fe, "setting blocking synchronisation");
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);

    cuda_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->device = dev;
    c->request = *req;
    c->paced_streams = -1;
    c->h_dirs = malloc(STAR_CAPACITY * sizeof *c->h_dirs);
    c->h_rp = malloc((size_t)STAR_CAPACITY * SEP_MAX_CONVOLVE * sizeof(double));
    c->h_qw = malloc((size_t)STAR_CAPACITY * SEP_MAX_CONVOLVE * sizeof(double));
    c->h_k = malloc(STAR_CAPACITY * sizeof(double));
    c->h_bg = malloc(STAR_CAPACITY * sizeof(double));
    c->h_st = malloc((size_t)STAR_CAPACITY * SEP_MAX_STREAMS * sizeof(double));
    memset(be, 0, sizeof *be);
    be->ctx = c;
    be->close = cuda_close;
    if (!c->h_dirs || !c->h_rp || !c->h_qw || !c->h_k || !c->h_bg || !c->h_st) {
        cuda_close(be);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the star buffers");
    }
    cudaError_t e = cudaMalloc((void **)&c->d_dirs, STAR_CAPACITY * sizeof *c->d_dirs);
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&c->d_rp, (size_t)STAR_CAPACITY * SEP_MAX_CONVOLVE * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&c->d_qw, (size_t)STAR_CAPACITY * SEP_MAX_CONVOLVE * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&c->d_bg, STAR_CAPACITY * sizeof(double));
    if (e == cudaSuccess)
        e = cudaMalloc((void **)&c->d_st, (size_t)STAR_CAPACITY * SEP_MAX_STREAMS * sizeof(double));
    if (e != cudaSuccess) {
        cuda_close(be);
        return cuda_fail(err, e, "allocating the star buffers");
    }
    be->name = "CUDA";
    static char variant[300];   /* the device name: part of the checkpoint identity */
    snprintf(variant, sizeof variant, "%s", name);
    be->variant = variant;
    be->sep_integral_chunks = cuda_integral_chunks;
    be->sep_star_probs = cuda_star_probs;
    be->spec_run = cuda_spec_run;
    /* Enough chunks per call to fill the GPU many times over. */
    be->min_batch = 4 * prop.multiProcessorCount * 16;
    c->sms = prop.multiProcessorCount > 0 ? prop.multiProcessorCount : 1;
    orr_log("CUDA backend: device %d, %s (compute %d.%d, %d SMs%s), driver %d.%d, runtime %d.%d",
            dev, name, major, minor, prop.multiProcessorCount, by_client ? ", assigned by BOINC" : "",
            driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    return ORR_OK;
}
