/* Spectral plans on the CPU: validation of the description, the twiddle
 * tables (long double, rounded once), per-thread scratch, and the batch
 * loops around the vectorised kernels of simd/lanes.h: the batch is cut into
 * groups of one vector's lanes of transforms, and threads take contiguous
 * runs of groups. A transform is computed by the same operations whatever
 * its lane, group or thread, so results do not depend on the thread count. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa.h"
#include "simd/lanes.h"
#include "spectral.h"
#include "threads.h"

#define R double
#define SUFFIX f64
#include "fft_generic.h"
#undef R
#undef SUFFIX
#define R float
#define SUFFIX f32
#include "fft_generic.h"
#undef R
#undef SUFFIX

#define MAX_LOG2_1D 20
#define MAX_2D 4096

#define MAX_THREADS 256

struct spec_plan {
    spec_desc d;
    int stride;
    double *tw;       /* e^{-2 pi j k / N}, k < N (the kind's FFT length) */
    double *tw2;      /* 2D: the column length's table */
    double *qt;       /* DCT: e^{-j pi k / (2N)} */
    float *twf, *tw2f, *qtf;   /* F32 plans: the same tables rounded once to float */
    const spec_lanes_isa *isa;
    int lanes;        /* transforms per group: one vector of the precision */
    int threads;      /* threads that run (at most the batch's work items) */
    size_t work_bytes;   /* scratch per thread */
    void *work;       /* threads * work_bytes, 64-byte aligned */
    orr_pool *pool;   /* threads - 1 workers, asleep between runs (NULL: one thread) */
};

/* ---- the ISA of the lane kernels ---- */

static orr_cpu_isa forced;   /* ORR_CPU_BEST: none (spec_lanes_force) */

/* The lane kernels of a CPU path (cpu_isa.h); scalar: the generic ones. */
static const spec_lanes_isa *lanes_of(orr_cpu_isa isa)
{
    switch (isa == ORR_CPU_BEST ? orr_cpu_best() : isa) {
#if ORR_X86_64
    case ORR_CPU_AVX512: return &spec_lanes_avx512;
    case ORR_CPU_AVX2: return &spec_lanes_avx2;
    case ORR_CPU_SSE2: return &spec_lanes_sse2;
#endif
    default: return &spec_lanes_generic;
    }
}

const spec_lanes_isa *spec_lanes_current(void) { return lanes_of(forced); }

/* The ISA for transforms of n points on the path asked (ORR_CPU_BEST: the
 * current one): lanes times n bounded (2^17 points), so that one group's
 * scratch stays near the caches and a long transform does not take wide
 * vectors' worth of memory; narrower ISAs are run by any CPU that runs a
 * wider one. */
static const spec_lanes_isa *isa_for(orr_cpu_isa asked, int n, int f32)
{
    const spec_lanes_isa *isa = lanes_of(asked == ORR_CPU_BEST ? forced : asked);
#if ORR_X86_64
    const long limit = 1L << 17;
    if (isa == &spec_lanes_avx512 && (long)n * (f32 ? isa->lanes_f32 : isa->lanes_f64) > limit)
        isa = &spec_lanes_avx2;
    if (isa == &spec_lanes_avx2 && (long)n * (f32 ? isa->lanes_f32 : isa->lanes_f64) > limit)
        isa = &spec_lanes_sse2;
#else
    (void)n;
    (void)f32;
#endif
    return isa;
}

int spec_lanes_force(const char *name)
{
    static const struct {
        const char *name;
        orr_cpu_isa isa;
    } names[] = {{"generic", ORR_CPU_SCALAR},
                 {"sse2", ORR_CPU_SSE2},
                 {"avx2", ORR_CPU_AVX2},
                 {"avx512", ORR_CPU_AVX512}};
    if (!name) {
        forced = ORR_CPU_BEST;
        return 1;
    }
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i].name) == 0 && orr_cpu_runs(names[i].isa)) {
            forced = names[i].isa;
            return 1;
        }
    return 0;
}

const char *spec_plan_isa_name(const spec_plan *plan) { return plan->isa->name; }

static const char *const kind_names[SPEC_KIND_COUNT] = {"c2c",  "r2c", "c2r",  "dct2",   "dct3",
                                                        "dht",  "fft2", "conv2d", "tridiag"};

const char *spec_kind_name(spec_kind k)
{
    return (unsigned)k < SPEC_KIND_COUNT ? kind_names[k] : "?";
}

int spec_kind_from_name(const char *name)
{
    for (int k = 0; k < SPEC_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

const char *spec_kind_names(void)
{
    static char all[128];
    if (!all[0])
        for (int k = 0; k < SPEC_KIND_COUNT; k++) {
            const size_t used = strlen(all);
            snprintf(all + used, sizeof all - used, "%s%s", k ? ", " : "", kind_names[k]);
        }
    return all;
}

static const char *const norm_names[] = {"backward", "ortho", "forward"};

const char *spec_norm_name(spec_norm norm)
{
    return (unsigned)norm < ORR_ARRAY_LEN(norm_names) ? norm_names[norm] : "?";
}

int spec_norm_from_name(const char *name)
{
    for (size_t k = 0; k < ORR_ARRAY_LEN(norm_names); k++)
        if (strcmp(norm_names[k], name) == 0)
            return (int)k;
    return -1;
}

/* spec_norm's definitions against what the kernels compute, S2 and x_0/2 +
 * S3: backward doubles both; forward then divides by 2N; ortho takes
 * sqrt(2/N) and on DCT2's y_0 a further 1/sqrt(2) (sqrt(1/N) in all), on
 * DCT3's x_0 a further sqrt(2) (x_0/2 becomes x_0 / sqrt(N)). */
void spec_dct_factors(spec_kind kind, spec_norm norm, int n, long double *common,
                      long double *first)
{
    *first = 1;
    switch (norm) {
    case SPEC_NORM_FORWARD: *common = 1.0L / n; break;
    case SPEC_NORM_ORTHO:
        *common = sqrtl(2.0L / n);
        *first = kind == SPEC_DCT2 ? sqrtl(0.5L) : sqrtl(2.0L);
        break;
    default: *common = 2; break;
    }
}

double *spec_dct_table(spec_kind kind, spec_norm norm, int n)
{
    double *t = malloc(2 * (size_t)n * sizeof *t);
    if (!t)
        return NULL;
    long double common, first;
    spec_dct_factors(kind, norm, n, &common, &first);
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (long k = 0; k < n; k++) {
        const long double a = two_pi * (long double)k / (4.0L * n);
        const long double f = k == 0 ? common * first : common;
        t[2 * k] = (double)(f * cosl(a));
        t[2 * k + 1] = (double)(-f * sinl(a));
    }
    return t;
}

static int is_pow2(long n) { return n > 0 && (n & (n - 1)) == 0; }

static int is_complex_in(spec_kind k)
{
    return k == SPEC_C2C || k == SPEC_C2R || k == SPEC_FFT2 || k == SPEC_CONV2D;
}

static int is_complex_out(spec_kind k)
{
    return k == SPEC_C2C || k == SPEC_R2C || k == SPEC_FFT2 || k == SPEC_CONV2D;
}

size_t spec_in_reals(const spec_desc *d)
{
    switch (d->kind) {
    case SPEC_C2R: return 2 * ((size_t)d->n / 2 + 1);
    case SPEC_FFT2: return 2 * (size_t)d->n * d->n2;
    case SPEC_CONV2D: return 2 * (size_t)d->n2 * d->n2;
    default: return (is_complex_in(d->kind) ? 2 : 1) * (size_t)d->n;
    }
}

size_t spec_out_reals(const spec_desc *d)
{
    switch (d->kind) {
    case SPEC_R2C: return 2 * ((size_t)d->n / 2 + 1);
    case SPEC_FFT2: return 2 * (size_t)d->n * d->n2;
    case SPEC_CONV2D: return 2 * (size_t)d->n2 * d->n2;
    default: return (is_complex_out(d->kind) ? 2 : 1) * (size_t)d->n;
    }
}

double *spec_root_table(long count, long den, int sign)
{
    double *t = malloc(2 * (size_t)count * sizeof *t);
    if (!t)
        return NULL;
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (long k = 0; k < count; k++) {
        const long double a = two_pi * (long double)k / (long double)den;
        t[2 * k] = (double)cosl(a);
        t[2 * k + 1] = (double)(sign * sinl(a));
    }
    return t;
}

static orr_status check_desc(const spec_desc *d, orr_error *err)
{
    const char *kind = spec_kind_name(d->kind);
    if ((unsigned)d->kind >= SPEC_KIND_COUNT)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: unknown kind %d", (int)d->kind);
    if (d->precision != SPEC_F64 && d->precision != SPEC_F32)
        return orr_fail(err, ORR_ERR_USAGE, "spectral: unknown precision %d", (int)d->precision);
    if (d->batch < 1)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: batch %d (at least 1)", kind, d->batch);
    if (d->stride < 0)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: negative stride", kind);
    if ((unsigned)d->norm >= ORR_ARRAY_LEN(norm_names))
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: unknown norm %d", kind, (int)d->norm);
    switch (d->kind) {
    case SPEC_FFT2:
        if (!is_pow2(d->n) || !is_pow2(d->n2) || d->n < 2 || d->n2 < 2 || d->n > MAX_2D ||
            d->n2 > MAX_2D)
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "spectral fft2: %d x %d: each side a power of two from 2 to %d", d->n,
                            d->n2, MAX_2D);
        break;
    case SPEC_CONV2D:
        if (!is_pow2(d->n) || d->n > MAX_2D)
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "spectral conv2d: mfft %d: a power of two up to %d", d->n, MAX_2D);
        if (d->n2 < 1 || d->n2 % 2 == 0 || 2 * d->n2 - 1 > d->n)
            return orr_fail(err, ORR_ERR_USAGE,
                            "spectral conv2d: M = %d: odd, with 2M - 1 <= mfft (%d)", d->n2, d->n);
        break;
    case SPEC_TRIDIAG:
        if (d->n < 1 || d->n > (1 << MAX_LOG2_1D))
            return orr_fail(err, ORR_ERR_UNSUPPORTED, "spectral tridiag: %d rows (1 to %d)", d->n,
                            1 << MAX_LOG2_1D);
        break;
    default: {
        const int min = d->kind == SPEC_C2C ? 2 : 4;
        if (!is_pow2(d->n) || d->n < min || d->n > (1 << MAX_LOG2_1D))
            return orr_fail(err, ORR_ERR_UNSUPPORTED,
                            "spectral %s: N = %d: a power of two from %d to %d (other sizes are "
                            "not supported yet)",
                            kind, d->n, min, 1 << MAX_LOG2_1D);
    }
    }
    return ORR_OK;
}

static size_t round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* A table of count (re, im) pairs rounded once more, to float. */
static float *float_table(const double *t, long count)
{
    float *f = malloc(2 * (size_t)count * sizeof *f);
    if (f)
        for (long i = 0; i < 2 * count; i++)
            f[i] = (float)t[i];
    return f;
}

/* The kind's twiddle tables; *work: the scratch bytes each thread needs,
 * *items: what the threads share (groups, images, slices or systems).
 * 0: out of memory. */
static int make_tables(spec_plan *p, size_t *work, int *items)
{
    const spec_desc *d = &p->d;
    const size_t rs = d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    const int n = d->n;
    int ok = 1;
    *work = 0;
    *items = d->batch;
    switch (d->kind) {
    case SPEC_C2C:
    case SPEC_R2C:
    case SPEC_C2R:
    case SPEC_DHT:
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL;
        *work = SPEC_LANES_WORK_REALS(n, p->lanes) * rs;
        if (d->kind == SPEC_C2R)   /* then a group's spectra with real ends (range_1d) */
            *work = round64(*work) + 2 * ((size_t)n / 2 + 1) * p->lanes * rs;
        *items = (d->batch + p->lanes - 1) / p->lanes;
        break;
    case SPEC_DCT2:
    case SPEC_DCT3:
        /* the norm's factors in the quarter turns, entry 0's too: the lane
         * kernels read qt_0 only for y_0 (DCT2) and x_0 (DCT3) */
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL &&
             (p->qt = spec_dct_table(d->kind, d->norm, n)) != NULL;
        *work = SPEC_LANES_WORK_REALS(n, p->lanes) * rs;
        *items = (d->batch + p->lanes - 1) / p->lanes;
        break;
    case SPEC_FFT2:
        ok = (p->tw = spec_root_table(d->n2, d->n2, -1)) != NULL &&
             (p->tw2 = spec_root_table(n, n, -1)) != NULL;
        *work = SPEC_LANES_WORK_REALS(n > d->n2 ? n : d->n2, p->lanes) * rs;
        break;
    case SPEC_CONV2D:
        ok = (p->tw = spec_root_table(n, n, -1)) != NULL;
        /* the padded image, then the lane kernels' scratch */
        *work = round64(2 * (size_t)n * n * rs) + SPEC_LANES_WORK_REALS(n, p->lanes) * rs;
        break;
    case SPEC_TRIDIAG:
        *work = (size_t)n * rs;
        break;
    default:
        break;
    }
    return ok;
}

/* F32 plans: the plan's tables, rounded once more. 0: out of memory. */
static int make_float_tables(spec_plan *p)
{
    int ok = 1;
    if (p->tw)
        ok = (p->twf = float_table(p->tw, p->d.kind == SPEC_FFT2 ? p->d.n2 : p->d.n)) != NULL;
    if (ok && p->tw2)
        ok = (p->tw2f = float_table(p->tw2, p->d.n)) != NULL;
    if (ok && p->qt)
        ok = (p->qtf = float_table(p->qt, p->d.n)) != NULL;
    return ok;
}

/* Threads for the plan's items (no more than there are), each with work
 * bytes of scratch, and the pool of the ones beyond the caller's. */
static orr_status start_threads(spec_plan *p, size_t work, int items, orr_error *err)
{
    const int asked = p->d.threads;
    p->threads = asked < 1 ? 1 : asked > MAX_THREADS ? MAX_THREADS : asked;
    if (p->threads > items)
        p->threads = items;
    p->work_bytes = round64(work + 64);
    if (!(p->work = aligned_alloc(64, p->work_bytes * p->threads)))
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for a spectral plan");
    /* zeroed: kernels may keep tables there between runs, tagged (lanes.h) */
    memset(p->work, 0, p->work_bytes * p->threads);
    if (p->threads > 1)
        return orr_pool_create(p->threads, &p->pool, err);
    return ORR_OK;
}

orr_status spec_plan_create(const spec_desc *desc, spec_plan **plan, orr_error *err)
{
    return spec_plan_create_on(desc, ORR_CPU_BEST, plan, err);
}

orr_status spec_plan_create_on(const spec_desc *desc, orr_cpu_isa isa, spec_plan **plan,
                               orr_error *err)
{
    *plan = NULL;
    orr_status s = check_desc(desc, err);
    if (s != ORR_OK)
        return s;
    if (!orr_cpu_runs(isa))
        return orr_fail(err, ORR_ERR_UNSUPPORTED, "spectral %s: this CPU cannot run CPU path %d",
                        spec_kind_name(desc->kind), (int)isa);
    spec_plan *p = calloc(1, sizeof *p);
    if (!p)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    p->d = *desc;
    p->stride = desc->stride > 0 ? desc->stride : 1;
    if (p->d.in_dist == 0)
        p->d.in_dist = (ptrdiff_t)spec_in_reals(desc) * p->stride / (is_complex_in(desc->kind) ? 2 : 1);
    if (p->d.out_dist == 0)
        p->d.out_dist = (ptrdiff_t)spec_out_reals(desc) * p->stride / (is_complex_out(desc->kind) ? 2 : 1);
    const int f32 = desc->precision == SPEC_F32;
    const int lane_n = desc->kind == SPEC_FFT2 && desc->n2 > desc->n ? desc->n2 : desc->n;
    p->isa = isa_for(isa, desc->kind == SPEC_TRIDIAG ? 1 : lane_n, f32);
    p->lanes = f32 ? p->isa->lanes_f32 : p->isa->lanes_f64;
    size_t work;   /* bytes per thread */
    int items;
    int ok = make_tables(p, &work, &items);
    if (ok && f32)
        ok = make_float_tables(p);
    s = ok ? start_threads(p, work, items, err)
           : orr_fail(err, ORR_ERR_NOMEM, "out of memory for a spectral plan");
    if (s != ORR_OK) {
        spec_plan_destroy(p);
        return s;
    }
    *plan = p;
    return ORR_OK;
}

void spec_plan_destroy(spec_plan *p)
{
    if (!p)
        return;
    free(p->tw);
    free(p->tw2);
    free(p->qt);
    free(p->twf);
    free(p->tw2f);
    free(p->qtf);
    free(p->work);
    if (p->pool)
        orr_pool_destroy(p->pool);
    free(p);
}

const spec_desc *spec_plan_desc(const spec_plan *p) { return &p->d; }

/* ---- threads over the batch ---- */

typedef struct {
    const void *in;
    void *out;
    const void *shapes;   /* CONV2D */
    int per_shape;        /* CONV2D: slices per shape function */
    const void *dl, *d, *du;   /* TRIDIAG */
    int *status;               /* TRIDIAG: per system, as spec_tridiag_check's */
} exec_args;

/* Items [begin, end) of a run, with one thread's scratch. */
typedef void (*range_fn)(const spec_plan *p, const exec_args *a, void *work, int begin, int end);

typedef struct {
    const spec_plan *p;
    const exec_args *a;
    range_fn fn;
    int items, tasks;
} parallel_run;

/* Task i: the i-th contiguous run of items, with scratch i. */
static void run_task(void *arg, int i)
{
    const parallel_run *r = arg;
    r->fn(r->p, r->a, (char *)r->p->work + (size_t)i * r->p->work_bytes,
          (int)((long)r->items * i / r->tasks), (int)((long)r->items * (i + 1) / r->tasks));
}

/* Contiguous runs of items over the plan's threads (the caller is one).
 * Which thread runs a run changes nothing: results are the same. */
static void run_parallel(const spec_plan *p, int items, range_fn fn, const exec_args *a)
{
    const int t = p->threads < items ? p->threads : items;
    if (t <= 1) {
        fn(p, a, p->work, 0, items);
        return;
    }
    parallel_run r = {p, a, fn, items, t};
    orr_pool_run(p->pool, t, run_task, &r);
}

static size_t real_size(const spec_plan *p) { return p->d.precision == SPEC_F32 ? sizeof(float) : sizeof(double); }

/* One group of count transforms (in, out: the first one's data). */
static void run_group(const spec_plan *p, const spec_lanes_job *j, const void *in, void *out,
                      int count, void *work)
{
    if (p->d.precision == SPEC_F32)
        p->isa->run_f32(j, in, out, count, work);
    else
        p->isa->run_f64(j, in, out, count, work);
}

/* A C2C job on n points, elements stride apart, transforms dist apart. */
static spec_lanes_job c2c_job(const spec_plan *p, int n, ptrdiff_t stride, ptrdiff_t dist,
                              int inverse, double scale, int second_table)
{
    const int f32 = p->d.precision == SPEC_F32;
    spec_lanes_job j = {0};
    j.kind = SPEC_C2C;
    j.n = n;
    j.inverse = inverse;
    j.scale = scale;
    j.in_stride = j.out_stride = stride;
    j.in_dist = j.out_dist = dist;
    j.tw = second_table ? (f32 ? (const void *)p->tw2f : p->tw2) : (f32 ? (const void *)p->twf : p->tw);
    return j;
}

/* C2R: whether the count spectra at in (the plan's layout) have real bins
 * 0 and N/2. The lane kernels take the Hermitian extension of what they
 * are given, so imaginary parts there would leak into the result. */
static int real_ends(const spec_plan *p, const char *in, int count)
{
    const spec_desc *d = &p->d;
    const size_t rs = real_size(p), step = (size_t)d->in_dist * 2 * rs;
    const size_t nyquist = (size_t)d->n / 2 * p->stride * 2 * rs;
    for (int l = 0; l < count; l++) {
        const char *t = in + l * step;
        double im0, imh;
        if (d->precision == SPEC_F32) {
            im0 = ((const float *)t)[1];
            imh = ((const float *)(t + nyquist))[1];
        } else {
            im0 = ((const double *)t)[1];
            imh = ((const double *)(t + nyquist))[1];
        }
        if (im0 != 0 || imh != 0)   /* NaN too */
            return 0;
    }
    return 1;
}

/* The count spectra at in, packed into buf with the imaginary parts of
 * bins 0 and N/2 set to 0: numpy's irfft (and FFTW, scipy) ignore them.
 * One copy a transform where its bins are contiguous. */
static void copy_real_ends(const spec_plan *p, const char *in, int count, char *buf)
{
    const spec_desc *d = &p->d;
    const int h = d->n / 2;
    const size_t rs = real_size(p), cs = 2 * rs, step = (size_t)d->in_dist * cs;
    for (int l = 0; l < count; l++) {
        char *t = buf + (size_t)l * (h + 1) * cs;
        const char *src = in + l * step;
        if (p->stride == 1)
            memcpy(t, src, (h + 1) * cs);
        else if (d->precision == SPEC_F32)   /* sizes known when compiling: no calls */
            for (int i = 0; i <= h; i++)
                memcpy(t + i * 2 * sizeof(float), src + (size_t)i * p->stride * cs, 2 * sizeof(float));
        else
            for (int i = 0; i <= h; i++)
                memcpy(t + i * 2 * sizeof(double), src + (size_t)i * p->stride * cs, 2 * sizeof(double));
        if (d->precision == SPEC_F32) {
            ((float *)t)[1] = 0;
            ((float *)t)[2 * h + 1] = 0;
        } else {
            ((double *)t)[1] = 0;
            ((double *)t)[2 * h + 1] = 0;
        }
    }
}

static void range_1d(const spec_plan *p, const exec_args *a, void *work, int g0, int g1)
{
    const spec_desc *d = &p->d;
    const int f32 = d->precision == SPEC_F32;
    spec_lanes_job j = {0};
    j.kind = d->kind;
    j.n = d->n;
    j.inverse = d->inverse;
    j.scale = d->kind == SPEC_C2C && d->inverse ? 1.0 / d->n : 1.0;
    j.in_stride = j.out_stride = p->stride;
    j.in_dist = d->in_dist;
    j.out_dist = d->out_dist;
    j.tw = f32 ? (const void *)p->twf : p->tw;
    j.qt = f32 ? (const void *)p->qtf : p->qt;
    j.one_at_a_time = 1;
    const size_t in_step = d->in_dist * (is_complex_in(d->kind) ? 2 : 1) * real_size(p);
    const size_t out_step = d->out_dist * (is_complex_out(d->kind) ? 2 : 1) * real_size(p);
    /* C2R's copies with real ends: after the lane kernels' scratch */
    char *ends = d->kind != SPEC_C2R ? NULL
                 : (char *)work + round64(SPEC_LANES_WORK_REALS(d->n, p->lanes) * real_size(p));
    spec_lanes_job packed = j;
    packed.in_stride = 1;
    packed.in_dist = d->n / 2 + 1;
    for (int g = g0; g < g1; g++) {
        const int t0 = g * p->lanes;
        const int count = d->batch - t0 < p->lanes ? d->batch - t0 : p->lanes;
        const char *in = (const char *)a->in + t0 * in_step;
        char *out = (char *)a->out + t0 * out_step;
        /* the same operations on the same values as had the ends been
         * real: the kernels' results do not depend on the layout */
        if (d->kind == SPEC_C2R && !real_ends(p, in, count)) {
            copy_real_ends(p, in, count, ends);
            run_group(p, &packed, ends, out, count, work);
        } else {
            run_group(p, &j, in, out, count, work);
        }
    }
}

/* Rows [r0, r1) of n-point transforms, rows dist apart, in place or not. */
static void run_rows(const spec_plan *p, const spec_lanes_job *j, const char *in, char *out,
                     int r0, int r1, void *work)
{
    const size_t row = (size_t)j->in_dist * 2 * real_size(p);
    for (int r = r0; r < r1; r += p->lanes) {
        const int count = r1 - r < p->lanes ? r1 - r : p->lanes;
        run_group(p, j, in + r * row, out + r * row, count, work);
    }
}

/* 2D: the rows from in to out, then the columns of out in place, each in
 * groups of one vector's lanes (adjacent columns are a group). */
static void range_fft2(const spec_plan *p, const exec_args *a, void *work, int t0, int t1)
{
    const spec_desc *d = &p->d;
    const int n1 = d->n, n2 = d->n2;
    const size_t cs = 2 * real_size(p);
    const spec_lanes_job rows = c2c_job(p, n2, 1, n2, d->inverse, d->inverse ? 1.0 / n2 : 1.0, 0);
    const spec_lanes_job cols = c2c_job(p, n1, n2, 1, d->inverse, d->inverse ? 1.0 / n1 : 1.0, 1);
    for (int t = t0; t < t1; t++) {
        const char *src = (const char *)a->in + (size_t)t * d->in_dist * cs;
        char *dst = (char *)a->out + (size_t)t * d->out_dist * cs;
        run_rows(p, &rows, src, dst, 0, n1, work);
        for (int c = 0; c < n2; c += p->lanes) {
            const int count = n2 - c < p->lanes ? n2 - c : p->lanes;
            run_group(p, &cols, dst + c * cs, dst + c * cs, count, work);
        }
    }
}

orr_status spec_execute(const spec_plan *p, const void *in, void *out, orr_error *err)
{
    const spec_desc *d = &p->d;
    if (d->kind == SPEC_CONV2D || d->kind == SPEC_TRIDIAG)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: use spec_%s", spec_kind_name(d->kind),
                        spec_kind_name(d->kind));
    exec_args a = {0};
    a.in = in;
    a.out = out;
    if (d->kind == SPEC_FFT2) {
        if (p->stride != 1)
            return orr_fail(err, ORR_ERR_UNSUPPORTED, "spectral fft2: strided data not supported");
        run_parallel(p, d->batch, range_fft2, &a);
        return ORR_OK;
    }
    run_parallel(p, (d->batch + p->lanes - 1) / p->lanes, range_1d, &a);
    return ORR_OK;
}

/* EDM convolution: pad the M x M modes into mfft x mfft (mode m at index
 * m mod mfft), FFT2, multiply by S, inverse FFT2, crop, scale. Only the M
 * rows that hold modes are transformed forward (the others are zero) and
 * only the M kept rows backward; the column pass does FFT, S and inverse
 * FFT in one visit of each group of columns. */
static void range_conv(const spec_plan *p, const exec_args *a, void *work, int t0, int t1)
{
    const spec_desc *d = &p->d;
    const int nf = d->n, m = d->n2, h = (m - 1) / 2;
    const size_t rs = real_size(p), cs = 2 * rs;
    char *img = work;
    void *lw = img + round64((size_t)nf * nf * cs);
    const spec_lanes_job fwd = c2c_job(p, nf, 1, nf, 0, 1.0, 0);
    const spec_lanes_job inv = c2c_job(p, nf, 1, nf, 1, 1.0 / ((double)nf * nf), 0);
    spec_lanes_job cols = c2c_job(p, nf, nf, 1, 0, 1.0, 0);
    cols.kind = SPEC_CONV2D;
    cols.shape_stride = nf;
    for (int t = t0; t < t1; t++) {
        const char *x = (const char *)a->in + (size_t)t * m * m * cs;
        const char *shape = (const char *)a->shapes + (size_t)(t / a->per_shape) * nf * nf * rs;
        char *y = (char *)a->out + (size_t)t * m * m * cs;
        memset(img, 0, (size_t)nf * nf * cs);
        /* mode row a - h at row (a - h) mod nf; in it, modes b >= h at columns
         * 0.., modes b < h at nf - h.. */
        for (int r = 0; r < m; r++) {
            char *row = img + (size_t)((r - h + nf) % nf) * nf * cs;
            const char *xr = x + (size_t)r * m * cs;
            memcpy(row, xr + h * cs, (size_t)(m - h) * cs);
            memcpy(row + (size_t)(nf - h) * cs, xr, (size_t)h * cs);
        }
        run_rows(p, &fwd, img, img, 0, h + 1, lw);
        run_rows(p, &fwd, img, img, nf - h, nf, lw);
        for (int c = 0; c < nf; c += p->lanes) {
            const int count = nf - c < p->lanes ? nf - c : p->lanes;
            cols.shape = shape + c * rs;
            run_group(p, &cols, img + c * cs, img + c * cs, count, lw);
        }
        run_rows(p, &inv, img, img, 0, h + 1, lw);
        run_rows(p, &inv, img, img, nf - h, nf, lw);
        for (int r = 0; r < m; r++) {
            const char *row = img + (size_t)((r - h + nf) % nf) * nf * cs;
            char *yr = y + (size_t)r * m * cs;
            memcpy(yr + h * cs, row, (size_t)(m - h) * cs);
            memcpy(yr, row + (size_t)(nf - h) * cs, (size_t)h * cs);
        }
    }
}

orr_status spec_conv2d(const spec_plan *p, const void *slices, const void *shapes, int n_shapes,
                       void *out, orr_error *err)
{
    const spec_desc *d = &p->d;
    if (d->kind != SPEC_CONV2D)
        return orr_fail(err, ORR_ERR_USAGE, "spec_conv2d: the plan is for %s", spec_kind_name(d->kind));
    if (n_shapes < 1 || d->batch % n_shapes != 0)
        return orr_fail(err, ORR_ERR_USAGE,
                        "spectral conv2d: %d shape functions for %d slices (1, or a divisor: one "
                        "per group of consecutive slices)",
                        n_shapes, d->batch);
    exec_args a = {0};
    a.in = slices;
    a.out = out;
    a.shapes = shapes;
    a.per_shape = d->batch / n_shapes;
    run_parallel(p, d->batch, range_conv, &a);
    return ORR_OK;
}

static void range_tridiag(const spec_plan *p, const exec_args *a, void *work, int s0, int s1)
{
    const int n = p->d.n;
    for (int s = s0; s < s1; s++) {
        const size_t o = (size_t)s * n;
        if (p->d.precision == SPEC_F64)
            a->status[s] = thomas_f64((const double *)a->dl + o, (const double *)a->d + o,
                                      (const double *)a->du + o, (double *)a->out + o, work, n);
        else
            a->status[s] = thomas_f32((const float *)a->dl + o, (const float *)a->d + o,
                                      (const float *)a->du + o, (float *)a->out + o, work, n);
    }
}

orr_status spec_tridiag_check(const int *status, int batch, orr_error *err)
{
    int first = -1, broken = 0;
    for (int s = 0; s < batch; s++)
        if (status[s] != 0) {
            broken++;
            if (first < 0)
                first = s;
        }
    if (!broken)
        return ORR_OK;
    char row[48] = "", more[64] = "";
    if (status[first] > 0)
        snprintf(row, sizeof row, " at row %d", status[first] - 1);
    if (broken > 1)
        snprintf(more, sizeof more, " (and in %d other systems)", broken - 1);
    return orr_fail(err, ORR_ERR_INPUT,
                    "tridiagonal system at batch index %d (of %d): zero or non-finite pivot%s%s; the "
                    "solver does not pivot: systems must be finite and diagonally dominant (or have "
                    "non-singular leading blocks)",
                    first, batch, row, more);
}

orr_status spec_tridiag(const spec_plan *p, const void *dl, const void *d, const void *du,
                        void *rhs, orr_error *err)
{
    const spec_desc *ds = &p->d;
    if (ds->kind != SPEC_TRIDIAG)
        return orr_fail(err, ORR_ERR_USAGE, "spec_tridiag: the plan is for %s",
                        spec_kind_name(ds->kind));
    int *status = malloc((size_t)ds->batch * sizeof *status);
    if (!status)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    exec_args a = {0};
    a.out = rhs;
    a.dl = dl;
    a.d = d;
    a.du = du;
    a.status = status;
    run_parallel(p, ds->batch, range_tridiag, &a);
    const orr_status s = spec_tridiag_check(status, ds->batch, err);
    free(status);
    return s;
}

orr_status spec_run(const spec_plan *p, const spec_buffers *b, orr_error *err)
{
    switch (p->d.kind) {
    case SPEC_CONV2D: return spec_conv2d(p, b->in, b->shapes, b->n_shapes, b->out, err);
    case SPEC_TRIDIAG: return spec_tridiag(p, b->dl, b->d, b->du, b->out, err);
    default: return spec_execute(p, b->in, b->out, err);
    }
}

/* Layout of one side of desc in reals: per element (1 or 2), elements per
 * transform, and the distances between elements and transforms. */
typedef struct {
    size_t width, count, stride, dist;
} side_layout;

static side_layout layout_of(const spec_desc *d, int output)
{
    const int cpx = output ? is_complex_out(d->kind) : is_complex_in(d->kind);
    side_layout l;
    l.width = cpx ? 2 : 1;
    l.count = (output ? spec_out_reals(d) : spec_in_reals(d)) / l.width;
    /* the convolution, the tridiagonal solver and 2D plans are packed */
    const int strided = d->kind != SPEC_CONV2D && d->kind != SPEC_TRIDIAG && d->kind != SPEC_FFT2;
    l.stride = strided && d->stride > 0 ? (size_t)d->stride : 1;
    const ptrdiff_t dist = strided ? (output ? d->out_dist : d->in_dist) : 0;
    l.dist = dist > 0 ? (size_t)dist : l.count * l.stride;
    return l;
}

int spec_is_packed(const spec_desc *d)
{
    const side_layout i = layout_of(d, 0), o = layout_of(d, 1);
    return i.stride == 1 && o.stride == 1 && i.dist == i.count && o.dist == o.count;
}

static void copy_layout(const spec_desc *d, int output, const void *from, void *to, int pack)
{
    const side_layout l = layout_of(d, output);
    const size_t es = d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
    const size_t item = l.width * es;
    const char *src = from;
    char *dst = to;
    for (int t = 0; t < d->batch; t++)
        for (size_t i = 0; i < l.count; i++) {
            const size_t packed = ((size_t)t * l.count + i) * item;
            const size_t laid = ((size_t)t * l.dist + i * l.stride) * item;
            memcpy(dst + (pack ? packed : laid), src + (pack ? laid : packed), item);
        }
}

void spec_pack_input(const spec_desc *d, const void *in, void *packed)
{
    copy_layout(d, 0, in, packed, 1);
}

void spec_unpack_output(const spec_desc *d, const void *packed, void *out)
{
    copy_layout(d, 1, packed, out, 0);
}
