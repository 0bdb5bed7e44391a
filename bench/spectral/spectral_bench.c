/* CPU spectral kernels against FFTW, same data, same run: every 1D kind
 * (c2c forward and inverse, r2c, c2r, dct2, dct3, dht) in double and single
 * precision for N = 16 .. 4096, then batch scaling over threads, the 2D FFT
 * and the EDM convolution (against the same pipeline built from FFTW
 * calls). Each row: nominal GFLOP/s (5 N log2 N for complex, 2.5 N log2 N
 * for the real kinds) of ours and FFTW's, and FFTW's time over ours (1.0:
 * as fast; the target is >= 0.8, within 1.25x). FFTW plans are measured
 * (FFTW_MEASURE, planning capped at 2 s), with as many threads as ours.
 * Median of 7 timed groups of at least 20 ms each.
 * Usage: bench/spectral/spectral_bench [POINTS [SECTIONS [MAX_THREADS]]]: points
 * per batch (default 2^18); SECTIONS a string of 1 (1D), C (the 1D c2c
 * rows only), R (r2c and c2r only, N = 128 .. 4096 by 2), t (threads), 2 (2D), c (convolution), default "1t2c"; the thread section doubles the
 * thread count from 1 to MAX_THREADS (default 2). SPECTRAL_BENCH_CPU_TIME=1:
 * time by the thread's CPU time (one-thread rows only). SPECTRAL_BENCH_ISA=
 * avx512|avx2|sse2|generic: run the lane kernels of that ISA (to compare
 * ISAs on one machine). */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spectral/simd/lanes.h"
#include "spectral/spectral.h"

/* wall time, or with SPECTRAL_BENCH_CPU_TIME=1 the calling thread's CPU
 * time: on a machine shared beyond its cores it counts only the time the
 * kernels ran (valid for one thread, where ours and FFTW's run in the
 * caller) */
static clockid_t bench_clock = CLOCK_MONOTONIC;
static double now(void)
{
    struct timespec t;
    clock_gettime(bench_clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef void (*run_fn)(void *ctx);

/* Median seconds per call of fn over 7 timed groups. */
static double median_time(run_fn fn, void *ctx)
{
    fn(ctx);   /* warm-up */
    /* reps: doubled until one group of them takes 20 ms */
    int reps = 1;
    for (;; reps *= 2) {
        const double t0 = now();
        for (int r = 0; r < reps; r++)
            fn(ctx);
        if (now() - t0 >= 0.02 || reps >= 1 << 20)
            break;
    }
    double t[7];
    for (int k = 0; k < 7; k++) {
        const double t0 = now();
        for (int r = 0; r < reps; r++)
            fn(ctx);
        t[k] = (now() - t0) / reps;
    }
    qsort(t, 7, sizeof *t, cmp);
    return t[3];
}

typedef struct {
    spec_plan *plan;
    spec_buffers b;
} ours_ctx;
static void run_ours(void *c)
{
    ours_ctx *o = c;
    orr_error err;
    spec_run(o->plan, &o->b, &err);
}

typedef struct {
    fftw_plan p;
    fftwf_plan pf;
} fftw_ctx;
static void run_fftw(void *c)
{
    fftw_ctx *f = c;
    if (f->p)
        fftw_execute(f->p);
    else
        fftwf_execute(f->pf);
}

static void fill(void *buf, size_t count, int f32)
{
    for (size_t i = 0; i < count; i++) {
        const double v = sin(0.37 * i) * 0.5;
        if (f32)
            ((float *)buf)[i] = (float)v;
        else
            ((double *)buf)[i] = v;
    }
}

static void row(const char *kind, int f32, const char *size, int batch, int threads, double flops,
                double t_ours, double t_fftw)
{
    printf("%-8s %-4s %9s %7d %3d %10.2f %10.2f %7.2f\n", kind, f32 ? "f32" : "f64", size, batch,
           threads, flops / t_ours * 1e-9, flops / t_fftw * 1e-9, t_fftw / t_ours);
}

/* One 1D kind, precision, size and thread count: ours against FFTW. */
static int bench_1d(spec_kind kind, int inverse, int f32, int n, int batch, int threads)
{
    spec_desc d = {kind, f32 ? SPEC_F32 : SPEC_F64, n, 0, batch, inverse, 1, 0, 0, threads, 0};
    spec_plan *plan;
    orr_error err;
    if (spec_plan_create(&d, &plan, &err) != ORR_OK) {
        printf("%s\n", err.message);
        return 1;
    }
    const size_t es = f32 ? sizeof(float) : sizeof(double);
    const size_t in_r = spec_in_reals(&d) * batch, out_r = spec_out_reals(&d) * batch;
    void *in = fftw_malloc(in_r * es), *out = fftw_malloc(out_r * es);
    const int cin = kind == SPEC_C2C || kind == SPEC_C2R, cout = kind == SPEC_C2C || kind == SPEC_R2C;
    const int nn[1] = {n};
    const int idist = (int)(spec_in_reals(&d) / (cin ? 2 : 1));
    const int odist = (int)(spec_out_reals(&d) / (cout ? 2 : 1));
    fftw_ctx f = {0, 0};
    fftw_plan_with_nthreads(threads);
    fftwf_plan_with_nthreads(threads);
    const unsigned fl = FFTW_MEASURE;
    const fftw_r2r_kind rk = kind == SPEC_DCT2 ? FFTW_REDFT10 : kind == SPEC_DCT3 ? FFTW_REDFT01 : FFTW_DHT;
    const fftwf_r2r_kind rkf = rk;
    const int sign = inverse ? FFTW_BACKWARD : FFTW_FORWARD;
    if (!f32) {
        if (kind == SPEC_C2C)
            f.p = fftw_plan_many_dft(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, sign, fl);
        else if (kind == SPEC_R2C)
            f.p = fftw_plan_many_dft_r2c(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, fl);
        else if (kind == SPEC_C2R)
            f.p = fftw_plan_many_dft_c2r(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, fl);
        else
            f.p = fftw_plan_many_r2r(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, &rk, fl);
    } else {
        if (kind == SPEC_C2C)
            f.pf = fftwf_plan_many_dft(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, sign, fl);
        else if (kind == SPEC_R2C)
            f.pf = fftwf_plan_many_dft_r2c(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, fl);
        else if (kind == SPEC_C2R)
            f.pf = fftwf_plan_many_dft_c2r(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, fl);
        else
            f.pf = fftwf_plan_many_r2r(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist, &rkf, fl);
    }
    /* planning scribbles: fill after */
    fill(in, in_r, f32);
    ours_ctx o = {plan, {.in = in, .out = out}};
    const double t_ours = median_time(run_ours, &o);
    fill(in, in_r, f32);   /* FFTW's c2r destroys its input: ours ran first */
    const double t_fftw = median_time(run_fftw, &f);
    const double flops = (kind == SPEC_C2C ? 5.0 : 2.5) * n * log2(n) * batch;
    char name[16], size[16];
    snprintf(name, sizeof name, "%s%s", spec_kind_name(kind), inverse ? "-inv" : "");
    snprintf(size, sizeof size, "%d", n);
    row(name, f32, size, batch, threads, flops, t_ours, t_fftw);
    if (f.p)
        fftw_destroy_plan(f.p);
    if (f.pf)
        fftwf_destroy_plan(f.pf);
    fftw_free(in);
    fftw_free(out);
    spec_plan_destroy(plan);
    return 0;
}

static int bench_fft2(int f32, int n1, int n2, int batch, int threads)
{
    spec_desc d = {SPEC_FFT2, f32 ? SPEC_F32 : SPEC_F64, n1, n2, batch, 0, 1, 0, 0, threads, 0};
    spec_plan *plan;
    orr_error err;
    if (spec_plan_create(&d, &plan, &err) != ORR_OK) {
        printf("%s\n", err.message);
        return 1;
    }
    const size_t es = f32 ? sizeof(float) : sizeof(double), reals = 2 * (size_t)n1 * n2 * batch;
    void *in = fftw_malloc(reals * es), *out = fftw_malloc(reals * es);
    const int nn[2] = {n1, n2};
    fftw_ctx f = {0, 0};
    fftw_plan_with_nthreads(threads);
    fftwf_plan_with_nthreads(threads);
    if (!f32)
        f.p = fftw_plan_many_dft(2, nn, batch, in, NULL, 1, n1 * n2, out, NULL, 1, n1 * n2,
                                 FFTW_FORWARD, FFTW_MEASURE);
    else
        f.pf = fftwf_plan_many_dft(2, nn, batch, in, NULL, 1, n1 * n2, out, NULL, 1, n1 * n2,
                                   FFTW_FORWARD, FFTW_MEASURE);
    fill(in, reals, f32);
    ours_ctx o = {plan, {.in = in, .out = out}};
    const double t_ours = median_time(run_ours, &o), t_fftw = median_time(run_fftw, &f);
    char size[24];
    snprintf(size, sizeof size, "%dx%d", n1, n2);
    row("fft2", f32, size, batch, threads, 5.0 * n1 * n2 * log2((double)n1 * n2) * batch, t_ours,
        t_fftw);
    if (f.p)
        fftw_destroy_plan(f.p);
    if (f.pf)
        fftwf_destroy_plan(f.pf);
    fftw_free(in);
    fftw_free(out);
    spec_plan_destroy(plan);
    return 0;
}

/* The convolution as FFTW calls (double): pad, forward 2D, times S,
 * backward 2D, crop and scale. */
typedef struct {
    int nf, m, batch;
    const double *x, *s;
    double *y;
    fftw_complex *img;
    fftw_plan fwd, bwd;
} fftw_conv;
static void run_fftw_conv(void *c)
{
    fftw_conv *v = c;
    const int nf = v->nf, m = v->m, h = (m - 1) / 2;
    const size_t sz = (size_t)nf * nf;
    memset(v->img, 0, sz * v->batch * sizeof *v->img);
    for (int t = 0; t < v->batch; t++)
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++) {
                const size_t i = t * sz + (size_t)((a - h + nf) % nf) * nf + (b - h + nf) % nf;
                v->img[i][0] = v->x[2 * (((size_t)t * m + a) * m + b)];
                v->img[i][1] = v->x[2 * (((size_t)t * m + a) * m + b) + 1];
            }
    fftw_execute(v->fwd);
    for (int t = 0; t < v->batch; t++)
        for (size_t i = 0; i < sz; i++) {
            v->img[t * sz + i][0] *= v->s[i];
            v->img[t * sz + i][1] *= v->s[i];
        }
    fftw_execute(v->bwd);
    const double scale = 1.0 / (double)sz;
    for (int t = 0; t < v->batch; t++)
        for (int a = 0; a < m; a++)
            for (int b = 0; b < m; b++) {
                const size_t i = t * sz + (size_t)((a - h + nf) % nf) * nf + (b - h + nf) % nf;
                v->y[2 * (((size_t)t * m + a) * m + b)] = v->img[i][0] * scale;
                v->y[2 * (((size_t)t * m + a) * m + b) + 1] = v->img[i][1] * scale;
            }
}

static int bench_conv(int nf, int m, int batch, int threads)
{
    spec_desc d = {SPEC_CONV2D, SPEC_F64, nf, m, batch, 0, 1, 0, 0, threads, 0};
    spec_plan *plan;
    orr_error err;
    if (spec_plan_create(&d, &plan, &err) != ORR_OK) {
        printf("%s\n", err.message);
        return 1;
    }
    const size_t xr = 2 * (size_t)m * m * batch, sz = (size_t)nf * nf;
    double *x = fftw_malloc(xr * sizeof *x), *y = fftw_malloc(xr * sizeof *y),
           *s = fftw_malloc(sz * sizeof *s);
    fill(x, xr, 0);
    for (size_t i = 0; i < sz; i++)
        s[i] = 1.0 / (1.0 + (double)(i % 97));
    fftw_conv v = {nf, m, batch, x, s, y, fftw_malloc(sz * batch * sizeof(fftw_complex)), 0, 0};
    const int nn[2] = {nf, nf};
    fftw_plan_with_nthreads(threads);
    v.fwd = fftw_plan_many_dft(2, nn, batch, v.img, NULL, 1, (int)sz, v.img, NULL, 1, (int)sz,
                               FFTW_FORWARD, FFTW_MEASURE);
    v.bwd = fftw_plan_many_dft(2, nn, batch, v.img, NULL, 1, (int)sz, v.img, NULL, 1, (int)sz,
                               FFTW_BACKWARD, FFTW_MEASURE);
    ours_ctx o = {plan, {.in = x, .out = y, .shapes = s, .n_shapes = 1}};
    const double t_ours = median_time(run_ours, &o), t_fftw = median_time(run_fftw_conv, &v);
    char size[24];
    snprintf(size, sizeof size, "%d/%d", nf, m);
    row("conv2d", 0, size, batch, threads, 10.0 * sz * log2((double)sz) * batch, t_ours, t_fftw);
    fftw_destroy_plan(v.fwd);
    fftw_destroy_plan(v.bwd);
    fftw_free(v.img);
    fftw_free(x);
    fftw_free(y);
    fftw_free(s);
    spec_plan_destroy(plan);
    return 0;
}

int main(int argc, char **argv)
{
    const long points = argc > 1 ? atol(argv[1]) : 1L << 18;
    const char *sections = argc > 2 ? argv[2] : "1t2c";
    const int max_threads = argc > 3 ? atoi(argv[3]) : 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *cpu_time = getenv("SPECTRAL_BENCH_CPU_TIME");
    if (cpu_time && atoi(cpu_time))
        bench_clock = CLOCK_THREAD_CPUTIME_ID;
    const char *isa = getenv("SPECTRAL_BENCH_ISA");
    if (isa && !spec_lanes_force(isa)) {
        fprintf(stderr, "spectral_bench: SPECTRAL_BENCH_ISA=%s: not an ISA this CPU runs\n", isa);
        return 2;
    }
    fftw_init_threads();
    fftwf_init_threads();
    fftw_set_timelimit(2.0);
    fftwf_set_timelimit(2.0);
    printf("# spectral CPU bench (lane kernels: %s), %ld points per batch, %s time; ratio = FFTW time / ours\n",
           spec_lanes_current()->name, points, bench_clock == CLOCK_MONOTONIC ? "wall" : "thread CPU");
    printf("%-8s %-4s %9s %7s %3s %10s %10s %7s\n", "kind", "prec", "N", "batch", "thr", "ours GF/s",
           "FFTW GF/s", "ratio");
    int bad = 0;
    static const struct {
        spec_kind kind;
        int inverse;
    } kinds[] = {{SPEC_C2C, 0}, {SPEC_C2C, 1}, {SPEC_R2C, 0}, {SPEC_C2R, 0},
                 {SPEC_DCT2, 0}, {SPEC_DCT3, 0}, {SPEC_DHT, 0}};
    /* 1: every kind at N = 16 .. 4096 by 4; C: the c2c rows; R: r2c and c2r
     * at every power of two from 128 */
    const int real_only = !strchr(sections, '1') && strchr(sections, 'R');
    const size_t k0 = real_only ? 2 : 0,
                 k1 = strchr(sections, '1') ? sizeof kinds / sizeof *kinds
                      : real_only ? 4 : strchr(sections, 'C') ? 2 : 0;
    for (size_t ki = k0; ki < k1; ki++)
        for (int f32 = 0; f32 < 2; f32++)
            for (int n = real_only ? 128 : 16; n <= 4096; n *= real_only ? 2 : 4)
                bad |= bench_1d(kinds[ki].kind, kinds[ki].inverse, f32, n, (int)(points / n), 1);
    if (strchr(sections, 't'))
        for (int f32 = 0; f32 < 2; f32++)
            for (int n = 64; n <= 4096; n *= 8)
                for (int th = 1; th <= max_threads; th *= 2)
                    bad |= bench_1d(SPEC_C2C, 0, f32, n, (int)(4 * points / n), th);
    if (strchr(sections, '2'))
        for (int f32 = 0; f32 < 2; f32++) {
            bad |= bench_fft2(f32, 64, 64, (int)(points / 4096 > 0 ? points / 4096 : 1), 1);
            bad |= bench_fft2(f32, 128, 128, (int)(points / 16384 > 0 ? points / 16384 : 1), 1);
            bad |= bench_fft2(f32, 1024, 1024, 1, 1);
        }
    if (strchr(sections, 'c')) {
        bad |= bench_conv(32, 15, (int)(points / 1024 > 0 ? points / 1024 : 1), 1);
        bad |= bench_conv(64, 31, (int)(points / 4096 > 0 ? points / 4096 : 1), 1);
        bad |= bench_conv(128, 63, (int)(points / 16384 > 0 ? points / 16384 : 1), 1);
    }
    return bad;
}
