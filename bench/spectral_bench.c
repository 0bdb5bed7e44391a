/* CPU spectral kernels against FFTW, one thread, same data, same run:
 * batched complex FFT (double and single), real FFT, DCT-II and DHT for
 * N = 64 .. 4096, each reported as nominal GFLOP/s (5 N log2 N for complex,
 * 2.5 N log2 N for the real kinds) and as FFTW's time over ours (1.0: as
 * fast; the target is >= 0.8, within 1.25x). FFTW plans are measured
 * (FFTW_MEASURE), ours are what spec_plan_create gives. Median of 7 runs of
 * about 0.1 s each.
 * Usage: bench/spectral_bench [BATCH_POINTS] (points per run, default 2^20). */
#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "spectral/spectral.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
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
    int reps = 1;
    for (double t0 = now(); now() - t0 < 0.02; reps *= 2)
        fn(ctx);
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
    void *in, *out;
} ours_ctx;
static void run_ours(void *c)
{
    ours_ctx *o = c;
    orr_error err;
    spec_execute(o->plan, o->in, o->out, &err);
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

int main(int argc, char **argv)
{
    const long points = argc > 1 ? atol(argv[1]) : 1L << 20;
    printf("# spectral CPU bench, one thread, %ld points per batch; ratio = FFTW time / ours\n", points);
    printf("%-5s %-4s %6s %7s %12s %12s %7s\n", "kind", "prec", "N", "batch", "ours GF/s", "FFTW GF/s",
           "ratio");
    static const spec_kind kinds[] = {SPEC_C2C, SPEC_R2C, SPEC_DCT2, SPEC_DHT};
    for (size_t ki = 0; ki < sizeof kinds / sizeof *kinds; ki++)
        for (int prec = 0; prec < 2; prec++) {
            const spec_kind kind = kinds[ki];
            if (prec == 1 && kind != SPEC_C2C)
                continue;
            for (int n = 64; n <= 4096; n *= 4) {
                const int batch = (int)(points / n);
                spec_desc d = {kind, (spec_precision)prec, n, 0, batch, 0, 1, 0, 0};
                spec_plan *plan;
                orr_error err;
                if (spec_plan_create(&d, &plan, &err) != ORR_OK) {
                    printf("%s\n", err.message);
                    return 1;
                }
                const size_t es = prec ? sizeof(float) : sizeof(double);
                const size_t in_b = spec_in_reals(&d) * batch * es, out_b = spec_out_reals(&d) * batch * es;
                void *in = fftw_malloc(in_b), *out = fftw_malloc(out_b);
                fftw_ctx f = {0, 0};
                const int nn[1] = {n};
                const int idist = (int)(spec_in_reals(&d) / (kind == SPEC_C2C ? 2 : 1));
                const int odist = (int)(spec_out_reals(&d) / (kind == SPEC_C2C || kind == SPEC_R2C ? 2 : 1));
                if (kind == SPEC_C2C && prec == 0)
                    f.p = fftw_plan_many_dft(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist,
                                             FFTW_FORWARD, FFTW_MEASURE);
                else if (kind == SPEC_C2C)
                    f.pf = fftwf_plan_many_dft(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist,
                                               FFTW_FORWARD, FFTW_MEASURE);
                else if (kind == SPEC_R2C)
                    f.p = fftw_plan_many_dft_r2c(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist,
                                                 FFTW_MEASURE);
                else {
                    const fftw_r2r_kind rk = kind == SPEC_DCT2 ? FFTW_REDFT10 : FFTW_DHT;
                    f.p = fftw_plan_many_r2r(1, nn, batch, in, NULL, 1, idist, out, NULL, 1, odist,
                                             &rk, FFTW_MEASURE);
                }
                /* planning may scribble: fill after */
                for (size_t i = 0; i < in_b / es; i++) {
                    const double v = sin(0.37 * i) * 0.5;
                    if (prec)
                        ((float *)in)[i] = (float)v;
                    else
                        ((double *)in)[i] = v;
                }
                ours_ctx o = {plan, in, out};
                const double t_ours = median_time(run_ours, &o), t_fftw = median_time(run_fftw, &f);
                const double flops = (kind == SPEC_C2C ? 5.0 : 2.5) * n * log2(n) * batch;
                printf("%-5s %-4s %6d %7d %12.2f %12.2f %7.2f\n", spec_kind_name(kind), prec ? "f32" : "f64",
                       n, batch, flops / t_ours * 1e-9, flops / t_fftw * 1e-9, t_fftw / t_ours);
                if (f.p)
                    fftw_destroy_plan(f.p);
                if (f.pf)
                    fftwf_destroy_plan(f.pf);
                fftw_free(in);
                fftw_free(out);
                spec_plan_destroy(plan);
            }
        }
    return 0;
}
