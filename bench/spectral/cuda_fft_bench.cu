/* The CUDA 1D spectral kernels (app_cuda/spectral/spectral_fft.cuh, spectral_real.cuh),
 * the kernel the app runs for each kind, precision and N (fft_c2c_table,
 * fft_real_table), against cuFFT on the same device in the same run: C2C
 * against Z2Z/C2C, R2C against D2Z/R2C, C2R against Z2D/C2R, and DCT-II,
 * DCT-III, DHT (no cuFFT kind) against cuFFT's R2C of the same N; f64 and
 * f32, every power of two N = 4..4096, 64 MB of f64 input a batch (half
 * for f32), data resident. Each row: median of 20 launches after a warm-up,
 * achieved bandwidth (input read once + output written once) and its
 * fraction of a device-to-device copy measured here, nominal GFLOP/s
 * (5 N log2 N complex, 2.5 N log2 N real kinds), cuFFT time / ours, and
 * the relative L2 error of the first and last transform against the
 * long-double reference (spec_ref_*) in eps log2 N; apart, as docs/spectral.md
 * asks, the time with the transfers (input to the device, ours, output
 * back; median of 5). Outputs are poisoned (NaN) before each kernel.
 * Prints a markdown table, one row a kind, precision and N.
 * Usage: bench/spectral/cuda_fft_bench [DEVICE]; ORR_BENCH_N, ORR_BENCH_KINDS,
 * ORR_BENCH_PREC (comma-separated lists) pick rows. */
#include <cufft.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../app_cuda/spectral/spectral_fft.cuh"
#include "../../app_cuda/spectral/spectral_real.cuh"

extern "C" {
#include "spectral/spectral.h"
}
#include "../../app_cuda/spectral/spectral_harness.cuh"

#define CHECK_FFT(call)                                                                    \
    do {                                                                                   \
        cufftResult r_ = (call);                                                           \
        if (r_ != CUFFT_SUCCESS) {                                                         \
            fprintf(stderr, "%s:%d: %s: cuFFT error %d\n", __FILE__, __LINE__, #call,       \
                    (int)r_);                                                              \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

static const long f64_input_bytes = 64L << 20;   /* a batch's input in f64 */
static double copy_gbs;

/* Relative L2 error of transform t of the batch (host copies) against the
 * long-double reference, in eps log2 N. */
template <typename T>
static double error_vs_ref(int kind, int n, const T *in, const T *out, int t)
{
    const int ni = in_reals(kind, n), no = out_reals(kind, n);
    double *x = (double *)malloc(ni * sizeof(double)), *ref = (double *)malloc(no * sizeof(double));
    for (int i = 0; i < ni; i++)
        x[i] = in[(size_t)t * ni + i];
    reference_1d(kind, n, 0, x, ref);
    const double e = error_in_eps<T>(out + (size_t)t * no, ref, no, n);   /* NaN: an output not written */
    free(x);
    free(ref);
    return e;
}

/* cuFFT's time for the kind's equivalent (C2C, R2C, C2R; R2C for the
 * DCTs and DHT), ms, and the bytes it moves. */
template <typename T>
static float cufft_ms(int kind, int n, int batch, void *in, void *out, size_t *bytes)
{
    const int ckind = kind == K_C2C ? K_C2C : kind == RK_C2R ? RK_C2R : RK_R2C;
    const bool dbl = sizeof(T) == 8;
    cufftType type;
    if (ckind == K_C2C)
        type = dbl ? CUFFT_Z2Z : CUFFT_C2C;
    else if (ckind == RK_R2C)
        type = dbl ? CUFFT_D2Z : CUFFT_R2C;
    else
        type = dbl ? CUFFT_Z2D : CUFFT_C2R;
    *bytes = (size_t)batch * (in_reals(ckind, n) + out_reals(ckind, n)) * sizeof(T);
    cufftHandle plan;
    int nn[1] = {n};
    CHECK_FFT(cufftPlanMany(&plan, 1, nn, NULL, 1, 0, NULL, 1, 0, type, batch));
    const float ms = median_ms(20, [&] {
        switch (type) {
        case CUFFT_Z2Z: cufftExecZ2Z(plan, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out, CUFFT_FORWARD); break;
        case CUFFT_C2C: cufftExecC2C(plan, (cufftComplex *)in, (cufftComplex *)out, CUFFT_FORWARD); break;
        case CUFFT_D2Z: cufftExecD2Z(plan, (cufftDoubleReal *)in, (cufftDoubleComplex *)out); break;
        case CUFFT_R2C: cufftExecR2C(plan, (cufftReal *)in, (cufftComplex *)out); break;
        case CUFFT_Z2D: cufftExecZ2D(plan, (cufftDoubleComplex *)in, (cufftDoubleReal *)out); break;
        default: cufftExecC2R(plan, (cufftComplex *)in, (cufftReal *)out); break;
        }
    });
    CHECK_FFT(cufftDestroy(plan));
    return ms;
}

/* One kind at one N: ours, then cuFFT, one table row. */
template <typename T>
static void bench_one(int kind, int n, const tables_1d<T> &tb, T *h_in, T *h_out, void *d_in, void *d_out)
{
    const int ni = in_reals(kind, n), no = out_reals(kind, n);
    /* the same input bytes for every kind: 64 MB of f64 (32 MB of f32) */
    const int batch = (int)(f64_input_bytes / 8 / (kind == K_C2C ? 2 * n : n));
    unsigned long long rng = 0x9e3779b97f4a7c15ull * (1000 * n + 10 * kind + 1);
    for (size_t i = 0; i < (size_t)batch * ni; i++) {   /* xorshift: fast for 8 M values */
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        h_in[i] = (T)((double)(rng >> 11) * 0x1p-52 - 1);   /* uniform in [-1, 1) */
    }
    if (kind == RK_C2R)   /* a real signal's spectrum: Y_0 and Y_{N/2} real */
        for (int t = 0; t < batch; t++) {
            h_in[(size_t)t * ni + 1] = 0;
            h_in[(size_t)t * ni + n + 1] = 0;
        }
    const size_t in_bytes = (size_t)batch * ni * sizeof(T), out_bytes = (size_t)batch * no * sizeof(T);
    const auto run = [&] {
        return kind == K_C2C ? fft_c2c_launch<T>(d_in, d_out, n, batch, tb.tw_d, tb.tw, 0, 0)
                             : fft_real_launch<T>(kind, d_in, d_out, n, batch, tb.tw, tb.qt, 0);
    };
    CHECK(cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, out_bytes));   /* poison: NaNs */
    const float ms = median_ms(20, run);
    /* the transfer-inclusive time of docs/spectral.md, apart: the input to the device,
     * the transform, the output back (the bench's pageable host buffers) */
    const float ms_transfers = median_ms(5, [&] {
        cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice);
        run();
        cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost);
    });
    /* the accuracy from a fresh, poisoned run */
    CHECK(cudaMemset(d_out, 0xff, out_bytes));
    CHECK(run());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost));
    double err = error_vs_ref<T>(kind, n, h_in, h_out, 0);
    const double err_last = error_vs_ref<T>(kind, n, h_in, h_out, batch - 1);
    if (err_last > err || isnan(err_last))
        err = err_last;

    /* cuFFT once per equivalent kind, N and precision (the DCTs and DHT share R2C's) */
    static float cu_cache_ms[2][6][13];
    static size_t cu_cache_bytes[2][6][13];
    const int ckind = kind == K_C2C ? K_C2C : kind == RK_C2R ? RK_C2R : RK_R2C, lg = (int)log2((double)n);
    float &cu_ms = cu_cache_ms[sizeof(T) == 8][ckind][lg];
    size_t &cu_bytes = cu_cache_bytes[sizeof(T) == 8][ckind][lg];
    if (cu_ms == 0)
        cu_ms = cufft_ms<T>(kind, n, batch, d_in, d_out, &cu_bytes);
    const double gbs = (in_bytes + out_bytes) / (ms * 1e-3) / 1e9, cu_gbs = cu_bytes / (cu_ms * 1e-3) / 1e9;
    const double flops = (kind == K_C2C ? 5.0 : 2.5) * n * log2((double)n) * batch;
    char name[96];
    kind_config_name<T>(kind, n, true, name, sizeof name);
    const char *cu_kind = kind == K_C2C ? (sizeof(T) == 8 ? "Z2Z" : "C2C")
                          : kind == RK_C2R ? (sizeof(T) == 8 ? "Z2D" : "C2R")
                                           : (sizeof(T) == 8 ? "D2Z" : "R2C");
    printf("| %s | %s | %d | %d | %s | %.1f | %.0f | %.0f%% | %.0f | %s | %.0f | %.0f%% | %.2f | %.2f | %.2f |\n",
           kind_names[kind], sizeof(T) == 8 ? "f64" : "f32", n, batch, name, ms * 1e3, gbs,
           100 * gbs / copy_gbs, flops / (ms * 1e-3) / 1e9, cu_kind, cu_gbs, 100 * cu_gbs / copy_gbs,
           cu_ms / ms, err, ms_transfers);
    fflush(stdout);
}

/* Whether the environment variable var (a comma-separated list; unset:
 * everything) names the number value or the word name: the bench's
 * filters, to time or profile a few rows (ORR_BENCH_N=1024
 * ORR_BENCH_KINDS=r2c,dct2 ORR_BENCH_PREC=f32). */
static bool selected(const char *var, long value, const char *name)
{
    const char *list = getenv(var);
    if (!list || !*list)
        return true;
    char word[32];
    if (name)
        snprintf(word, sizeof word, "%s", name);
    else
        snprintf(word, sizeof word, "%ld", value);
    const size_t len = strlen(word);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        const size_t wl = end ? (size_t)(end - p) : strlen(p);
        if (wl == len && strncmp(p, word, len) == 0)
            return true;
        if (!end)
            break;
        p = end + 1;
    }
    return false;
}

template <typename T> static void bench_precision(void *d_in, void *d_out)
{
    /* host buffers for the largest batch: R2C's output, (N + 2) / N of the input */
    const size_t reals = (size_t)(f64_input_bytes / 8) * 2 + 4096;
    T *h_in = (T *)malloc(reals * sizeof(T)), *h_out = (T *)malloc(reals * sizeof(T));
    if (!h_in || !h_out) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int n = 4; n <= 4096; n *= 2) {
        if (!selected("ORR_BENCH_N", n, NULL))
            continue;
        const tables_1d<T> tb(n);
        for (int kind = K_C2C; kind <= RK_DHT; kind++)
            if (selected("ORR_BENCH_KINDS", -1, kind_names[kind]))
                bench_one<T>(kind, n, tb, h_in, h_out, d_in, d_out);
    }
    free(h_in);
    free(h_out);
}

int main(int argc, char **argv)
{
    const int dev = argc > 1 ? atoi(argv[1]) : 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    /* the copy ceiling for these buffer sizes (64 MB) */
    const size_t bytes = (size_t)f64_input_bytes;
    void *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    const float ms = median_ms(20, [&] { cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice); });
    copy_gbs = 2.0 * bytes / (ms * 1e-3) / 1e9;
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    /* device buffers: the largest input and output (C2R's, R2C's: a little over 64 MB) */
    void *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, 2 * bytes + (1 << 20)));   /* C2R's input: (N + 2) / N of 64 MB */
    CHECK(cudaMalloc(&d_out, 2 * bytes + (1 << 20)));
    int v = 0;
    cufftGetVersion(&v);
    printf("%s, copy %.0f GB/s (64 MB device to device), cuFFT %d; 64 MB of f64 input a batch "
           "(32 MB f32), median of 20\n\n",
           prop.name, copy_gbs, v);
    printf("| kind | prec | N | batch | ours | us | GB/s | of copy | GFLOP/s | cuFFT | GB/s | of copy | "
           "x cuFFT | err | ms with transfers |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    if (selected("ORR_BENCH_PREC", -1, "f64"))
        bench_precision<double>(d_in, d_out);
    if (selected("ORR_BENCH_PREC", -1, "f32"))
        bench_precision<float>(d_in, d_out);
    printf("\n(GB/s: input read once + output written once; x cuFFT: cuFFT time / ours, against "
           "cuFFT's R2C for dct2/dct3/dht; err: worst relative L2 error of the first and last "
           "transform against the long-double reference, in eps log2 N, limit 10; ms with transfers: "
           "the input copied to the device, ours, the output copied back, from pageable host memory)\n");
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    return 0;
}
