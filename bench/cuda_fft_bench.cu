/* Batched complex FFT on the GPU (app_cuda/spectral_fft.cuh) against cuFFT
 * on the same device in the same run: double and single, N = 64 .. 4096,
 * 2^22 points a batch. Reports each one's time (median of 20 launches,
 * data resident), its achieved bandwidth (one read and one write of the
 * data) and the fraction of the device's copy bandwidth measured here
 * (cudaMemcpy device to device of the same buffer), ours / cuFFT throughput,
 * and the accuracy: ours against a long-double DFT of two transforms
 * (relative L2 in eps log2 N) and against cuFFT.
 * Usage: bench/cuda_fft_bench [DEVICE] */
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../app_cuda/spectral_fft.cuh"

#define CHECK(call)                                                                        \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)
#define CHECK_FFT(call)                                                                    \
    do {                                                                                   \
        cufftResult r_ = (call);                                                           \
        if (r_ != CUFFT_SUCCESS) {                                                         \
            fprintf(stderr, "%s: cuFFT error %d\n", #call, (int)r_);                        \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

template <typename F> static float median_ms(F fn)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    fn();
    cudaDeviceSynchronize();
    float t[20];
    for (int k = 0; k < 20; k++) {
        cudaEventRecord(a);
        fn();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&t[k], a, b);
    }
    qsort(t, 20, sizeof *t, cmp);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[10];
}

/* long-double DFT of one transform, for the accuracy column */
static void dft(int n, const double *x, double *y)
{
    const long double two_pi = 6.283185307179586476925286766559005768L;
    for (int k = 0; k < n; k++) {
        long double re = 0, im = 0;
        for (int i = 0; i < n; i++) {
            const long double a = -two_pi * (long double)(((long long)i * k) % n) / n;
            const long double c = cosl(a), s = sinl(a);
            re += x[2 * i] * c - x[2 * i + 1] * s;
            im += x[2 * i] * s + x[2 * i + 1] * c;
        }
        y[2 * k] = (double)re;
        y[2 * k + 1] = (double)im;
    }
}

template <typename T> static void run(int n, double copy_gbs)
{
    typedef typename cpx_of<T>::type C;
    const long points = 1L << 22;
    const int batch = (int)(points / n);
    const size_t bytes = (size_t)points * sizeof(C);
    C *h = (C *)malloc(bytes), *h_ours = (C *)malloc(bytes), *h_cufft = (C *)malloc(bytes);
    srand(n);
    for (long i = 0; i < points; i++) {
        h[i].x = (T)(2.0 * rand() / RAND_MAX - 1);
        h[i].y = (T)(2.0 * rand() / RAND_MAX - 1);
    }
    double2 *htw = (double2 *)malloc(n * sizeof(double2));
    for (int k = 0; k < n; k++) {
        const long double a = 6.283185307179586476925286766559005768L * k / n;
        htw[k].x = (double)cosl(a);
        htw[k].y = (double)-sinl(a);
    }
    C *in, *out, *twt;
    double2 *tw;
    C *htwt = (C *)malloc(n * sizeof(C));
    for (int k = 0; k < n; k++) {
        htwt[k].x = (T)htw[k].x;
        htwt[k].y = (T)htw[k].y;
    }
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMalloc(&tw, n * sizeof(double2)));
    CHECK(cudaMalloc(&twt, n * sizeof(C)));
    CHECK(cudaMemcpy(in, h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(tw, htw, n * sizeof(double2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(twt, htwt, n * sizeof(C), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0xff, bytes));   /* poison: NaNs */

    const float ms_ours = median_ms([&] { fft_c2c_launch<T>(in, out, n, batch, tw, twt, 0, 0); });
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_ours, out, bytes, cudaMemcpyDeviceToHost));

    cufftHandle plan;
    int nn[1] = {n};
    const cufftType type = sizeof(T) == 8 ? CUFFT_Z2Z : CUFFT_C2C;
    CHECK_FFT(cufftPlanMany(&plan, 1, nn, NULL, 1, n, NULL, 1, n, type, batch));
    const float ms_cufft = median_ms([&] {
        if (sizeof(T) == 8)
            cufftExecZ2Z(plan, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out, CUFFT_FORWARD);
        else
            cufftExecC2C(plan, (cufftComplex *)in, (cufftComplex *)out, CUFFT_FORWARD);
    });
    CHECK(cudaMemcpy(h_cufft, out, bytes, cudaMemcpyDeviceToHost));
    cufftDestroy(plan);

    /* accuracy: two transforms against long double, the whole batch against cuFFT */
    const double eps = sizeof(T) == 8 ? ldexp(1, -53) : ldexp(1, -24);
    double worst_ref = 0;
    double *x = (double *)malloc(2 * n * sizeof(double)), *y = (double *)malloc(2 * n * sizeof(double));
    for (int t = 0; t < 2; t++) {
        const int tr = t == 0 ? 0 : batch - 1;
        for (int i = 0; i < n; i++) {
            x[2 * i] = h[(size_t)tr * n + i].x;
            x[2 * i + 1] = h[(size_t)tr * n + i].y;
        }
        dft(n, x, y);
        long double num = 0, den = 0;
        for (int i = 0; i < n; i++) {
            const double dr = h_ours[(size_t)tr * n + i].x - y[2 * i], di = h_ours[(size_t)tr * n + i].y - y[2 * i + 1];
            num += dr * dr + di * di;
            den += y[2 * i] * y[2 * i] + y[2 * i + 1] * y[2 * i + 1];
        }
        const double e = (double)sqrtl(num / den) / (eps * log2(n));
        worst_ref = e > worst_ref || isnan(e) ? e : worst_ref;
    }
    long double num = 0, den = 0;
    for (long i = 0; i < points; i++) {
        const double dr = h_ours[i].x - h_cufft[i].x, di = h_ours[i].y - h_cufft[i].y;
        num += dr * dr + di * di;
        den += (double)h_cufft[i].x * h_cufft[i].x + (double)h_cufft[i].y * h_cufft[i].y;
    }
    const double vs_cufft = (double)sqrtl(num / den) / (eps * log2(n));
    const double gbs_ours = 2.0 * bytes / (ms_ours * 1e-3) / 1e9, gbs_cufft = 2.0 * bytes / (ms_cufft * 1e-3) / 1e9;
    printf("%-4s %5d %6d %9.3f %8.0f %6.1f%% %9.3f %8.0f %6.1f%% %7.2f %9.2f %9.2f\n",
           sizeof(T) == 8 ? "f64" : "f32", n, batch, ms_ours, gbs_ours, 100 * gbs_ours / copy_gbs,
           ms_cufft, gbs_cufft, 100 * gbs_cufft / copy_gbs, ms_cufft / ms_ours, worst_ref, vs_cufft);
    free(x);
    free(y);
    free(h);
    free(h_ours);
    free(h_cufft);
    free(htw);
    free(htwt);
    cudaFree(twt);
    cudaFree(in);
    cudaFree(out);
    cudaFree(tw);
}

int main(int argc, char **argv)
{
    CHECK(cudaSetDevice(argc > 1 ? atoi(argv[1]) : 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, argc > 1 ? atoi(argv[1]) : 0));
    /* the copy ceiling for these buffer sizes (64 MB double, 32 MB single) */
    const size_t bytes = (size_t)64 << 20;
    void *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    const float ms = median_ms([&] { cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); });
    const double copy_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    cudaFree(a);
    cudaFree(b);
    int v = 0;
    cufftGetVersion(&v);
    printf("# %s, copy %.0f GB/s (64 MB device to device), cuFFT %d; 2^22 points per batch\n", prop.name,
           copy_gbs, v);
    printf("%-4s %5s %6s %9s %8s %7s %9s %8s %7s %7s %9s %9s\n", "prec", "N", "batch", "ours ms", "GB/s",
           "of copy", "cuFFT ms", "GB/s", "of copy", "x cuFFT", "err/ref", "err/cuFFT");
    for (int n = 64; n <= 4096; n *= 4)
        run<double>(n, copy_gbs);
    for (int n = 64; n <= 4096; n *= 4)
        run<float>(n, copy_gbs);
    printf("(err: relative L2 error in eps log2 N; 'x cuFFT' = cuFFT time / ours)\n");
    return 0;
}
