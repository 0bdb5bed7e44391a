/* What the CUDA spectral benches and GPU checks share (not the app): a
 * checked-call macro, event timing by median, the 1D kinds' sizes and
 * kernel names, and the relative L2 error of one transform against the
 * long-double reference, in eps log2 N. Include after spectral_real.cuh
 * (for the 1D helpers) and spectral.h. */
#ifndef ORRERY_CUDA_SPECTRAL_HARNESS_CUH
#define ORRERY_CUDA_SPECTRAL_HARNESS_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                    cudaGetErrorString(e_));                                               \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

static int harness_cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Median time (ms) of runs calls of fn (at most 64) after one warm-up,
 * timed with events; a failed launch ends the program. */
template <typename F> static float median_ms(int runs, F fn)
{
    cudaEvent_t a, b;
    float t[64];
    if (runs > 64)
        runs = 64;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    fn();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < runs; k++) {
        CHECK(cudaEventRecord(a));
        fn();
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&t[k], a, b));
    }
    CHECK(cudaGetLastError());
    qsort(t, runs, sizeof *t, harness_cmp_float);
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    return t[runs / 2];
}

#ifdef ORRERY_CUDA_SPECTRAL_REAL_CUH
static const int K_C2C = 0;   /* the real kinds are RK_R2C .. RK_DHT (1..5) */
static const char *const kind_names[] = {"c2c", "r2c", "c2r", "dct2", "dct3", "dht"};

static int in_reals(int kind, int n) { return kind == K_C2C ? 2 * n : real_in_reals(kind, n); }
static int out_reals(int kind, int n) { return kind == K_C2C ? 2 * n : real_out_reals(kind, n); }

/* The name of the kernel a 1D kind runs at n in T's precision (its row of
 * fft_c2c_table or fft_real_table), with 16-byte aligned ends or not. */
template <typename T>
static const char *kind_config_name(int kind, int n, bool aligned, char *buf, size_t size)
{
    if (kind == K_C2C)
        return fft_c2c_config_name(fft_c2c_config_of<T>(n), aligned, buf, size);
    return fft_real_config_name(fft_real_config_of<T>(kind, n), kind, n, aligned, buf, size);
}

/* The N-point tables on the device: tw = e^{-2 pi j k / N}, qt = e^{-j pi
 * k / (2N)} in T's precision (rounded once from long double), and tw in
 * double (the C2C shared path takes it). */
template <typename T> struct tables_1d {
    typedef typename cpx_of<T>::type C;
    double2 *tw_d;
    C *tw, *qt;
    explicit tables_1d(int n)
    {
        double *t = spec_root_table(n, n, -1), *q = spec_root_table(n, 4 * (long)n, -1);
        C *tt = (C *)malloc(n * sizeof(C)), *qq = (C *)malloc(n * sizeof(C));
        if (!t || !q || !tt || !qq) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        for (int k = 0; k < n; k++) {
            tt[k].x = (T)t[2 * k];
            tt[k].y = (T)t[2 * k + 1];
            qq[k].x = (T)q[2 * k];
            qq[k].y = (T)q[2 * k + 1];
        }
        CHECK(cudaMalloc(&tw_d, n * sizeof(double2)));
        CHECK(cudaMalloc(&tw, n * sizeof(C)));
        CHECK(cudaMalloc(&qt, n * sizeof(C)));
        CHECK(cudaMemcpy(tw_d, t, n * sizeof(double2), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(tw, tt, n * sizeof(C), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(qt, qq, n * sizeof(C), cudaMemcpyHostToDevice));
        free(t);
        free(q);
        free(tt);
        free(qq);
    }
    ~tables_1d()
    {
        cudaFree(tw_d);
        cudaFree(tw);
        cudaFree(qt);
    }
};

/* The long-double reference of one transform of a 1D kind; the DCTs as
 * the kernels compute them, the plain sums: half of scipy's backward norm
 * (the app's host code applies the norm, spec_dct_factors). */
static void reference_1d(int kind, int n, int inverse, const double *x, double *ref)
{
    switch (kind) {
    case K_C2C: spec_ref_dft(n, inverse, x, ref); break;
    case RK_R2C: spec_ref_r2c(n, x, ref); break;
    case RK_C2R: spec_ref_c2r(n, x, ref); break;
    case RK_DCT2: spec_ref_dct2(n, SPEC_NORM_BACKWARD, x, ref); break;
    case RK_DCT3: spec_ref_dct3(n, SPEC_NORM_BACKWARD, x, ref); break;
    default: spec_ref_dht(n, x, ref); break;
    }
    if (kind == RK_DCT2 || kind == RK_DCT3)
        for (int i = 0; i < n; i++)
            ref[i] /= 2;   /* exact */
}
#endif

/* ||got - ref|| / ||ref|| over count reals, in units of eps log2 N of T's
 * precision; NaN when an output was not written (poisoned with NaN). */
template <typename T>
static double error_in_eps(const T *got, const double *ref, int count, int n)
{
    double num = 0, den = 0;
    for (int i = 0; i < count; i++) {
        const double d = (double)got[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    const double eps = sizeof(T) == 8 ? ldexp(1, -53) : ldexp(1, -24);
    return sqrt(num / den) / (eps * log2((double)n));
}

#endif
