/* GPU check of every CUDA 1D spectral kernel path: C2C (each variant of
 * spectral_fft.cuh, forward and inverse) and the fused real kinds (each
 * variant of spectral_real.cuh), f64 and f32, every power of two N = 4..4096, on
 * fresh random inputs with the output poisoned (NaN). Batches of a size
 * that leaves a block part empty; every output must be finite, and the
 * first and last transform within 10 eps log2 N of the long-double
 * reference (spec_ref_*). Then the tridiagonal solver (spectral_2d.cuh):
 * every chunk size, sizes 1..2048 around each power of two, in place and
 * out of place, every system within 50 eps of long-double Thomas. Prints
 * one line a case and the worst error.
 * Usage: tests/gpu/spectral_device_check [DEVICE] (`make tests/gpu/spectral_device_check`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FFT_ALL_VARIANTS 1   /* every variant, to compare them */
#include "../../app_cuda/spectral/spectral_fft.cuh"
#include "../../app_cuda/spectral/spectral_real.cuh"
#include "../../app_cuda/spectral/spectral_2d.cuh"

extern "C" {
#include "spectral/spectral.h"
}
#include "../../app_cuda/spectral/spectral_harness.cuh"

static unsigned long long rng;

static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-52 - 1;
}

/* One case; returns the worst error in eps log2 N (infinity if an output
 * is NaN, a launch fails). shift: input and output that many reals into
 * their buffers (2, one complex word: in single precision not 16-byte
 * aligned, so the kernels that copy in 16-byte vectors take their
 * element-wise path). */
template <typename T> static double check(int kind, int variant, int inverse, int n, int batch, int shift = 0)
{
    typedef typename cpx_of<T>::type C;
    const int ni = in_reals(kind, n), no = out_reals(kind, n);
    T *h_in = (T *)malloc((size_t)batch * ni * sizeof(T)), *h_out = (T *)malloc((size_t)batch * no * sizeof(T));
    for (size_t i = 0; i < (size_t)batch * ni; i++)
        h_in[i] = (T)uniform();
    if (kind == RK_C2R)   /* a real signal's spectrum: Y_0 and Y_{N/2} real */
        for (int t = 0; t < batch; t++) {
            h_in[(size_t)t * ni + 1] = 0;
            h_in[(size_t)t * ni + n + 1] = 0;
        }
    double *tw = spec_root_table(n, n, -1), *qt = spec_root_table(n, 4 * (long)n, -1);
    C *twt = (C *)malloc(n * sizeof(C)), *qtt = (C *)malloc(n * sizeof(C));
    for (int k = 0; k < n; k++) {
        twt[k].x = (T)tw[2 * k];
        twt[k].y = (T)tw[2 * k + 1];
        qtt[k].x = (T)qt[2 * k];
        qtt[k].y = (T)qt[2 * k + 1];
    }
    void *d_in, *d_out, *d_tw, *d_qt, *d_twt, *d_qtt;
    CHECK(cudaMalloc(&d_in, ((size_t)batch * ni + shift) * sizeof(T)));
    CHECK(cudaMalloc(&d_out, ((size_t)batch * no + shift) * sizeof(T)));
    T *in = (T *)d_in + shift, *out = (T *)d_out + shift;
    CHECK(cudaMalloc(&d_tw, n * sizeof(double2)));
    CHECK(cudaMalloc(&d_qt, n * sizeof(double2)));
    CHECK(cudaMalloc(&d_twt, n * sizeof(C)));
    CHECK(cudaMalloc(&d_qtt, n * sizeof(C)));
    CHECK(cudaMemcpy(in, h_in, (size_t)batch * ni * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_tw, tw, n * sizeof(double2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_qt, qt, n * sizeof(double2), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_twt, twt, n * sizeof(C), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_qtt, qtt, n * sizeof(C), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0xff, ((size_t)batch * no + shift) * sizeof(T)));
    const cudaError_t launched =
        kind == K_C2C ? fft_c2c_launch<T>(in, out, n, batch, (const double2 *)d_tw, d_twt, inverse, 0, variant)
                      : fft_real_launch<T>(kind, in, out, n, batch, (const double2 *)d_tw,
                                           (const double2 *)d_qt, d_twt, d_qtt, 0, variant);
    double worst = INFINITY;
    if (launched != cudaSuccess) {
        fprintf(stderr, "launch: %s\n", cudaGetErrorString(launched));
    } else {
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h_out, out, (size_t)batch * no * sizeof(T), cudaMemcpyDeviceToHost));
        int finite = 1;
        for (size_t i = 0; i < (size_t)batch * no; i++)
            finite &= isfinite((double)h_out[i]);
        if (finite) {
            worst = 0;
            double *x = (double *)malloc(ni * sizeof(double)), *ref = (double *)malloc(no * sizeof(double));
            const int ts[2] = {0, batch - 1};
            for (int j = 0; j < 2; j++) {
                const int t = ts[j];
                for (int i = 0; i < ni; i++)
                    x[i] = h_in[(size_t)t * ni + i];
                reference_1d(kind, n, inverse, x, ref);
                const double e = error_in_eps<T>(h_out + (size_t)t * no, ref, no, n);
                worst = e > worst || isnan(e) ? e : worst;
            }
            free(x);
            free(ref);
        }
    }
    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_tw);
    cudaFree(d_qt);
    cudaFree(d_twt);
    cudaFree(d_qtt);
    free(h_in);
    free(h_out);
    free(tw);
    free(qt);
    free(twt);
    free(qtt);
    return worst;
}

template <typename T> static int check_precision(double *worst_all)
{
    int failures = 0;
    const char *prec = sizeof(T) == 8 ? "f64" : "f32";
    for (int n = 4; n <= 4096; n *= 2) {
        /* about 2^16 points, and never a whole number of blocks */
        const int batch = (65536 / n > 3 ? 65536 / n : 3) + 3;
        for (int kind = K_C2C; kind <= RK_DHT; kind++) {
            /* every variant, then the default once more off the 16-byte grid */
            for (int v = 0; v <= kind_variants(kind, n); v++)
                for (int inv = 0; inv < (kind == K_C2C ? 2 : 1); inv++) {
                    const bool shifted = v == kind_variants(kind, n);
                    const double e = check<T>(kind, shifted ? -1 : v, inv, n, batch, shifted ? 2 : 0);
                    const int ok = e <= 10;
                    failures += !ok;
                    if (e > *worst_all || isnan(e))
                        *worst_all = e;
                    printf("%s %-4s %s N=%-5d batch %-6d %s%s error %.2f eps log2 N\n", ok ? "PASS" : "FAIL",
                           kind_names[kind], prec, n, batch,
                           shifted ? "the default, unaligned" : kind_variant_name(kind, n, v),
                           kind != K_C2C ? "" : inv ? " inverse" : " forward", e);
                }
        }
    }
    return failures;
}

/* One tridiagonal case: random diagonally dominant systems (d in [2, 4],
 * off-diagonals in [-1, 1]), the first row's dl and the last row's du set
 * to garbage the solver must ignore.
 * Returns the worst relative L2 error of any system, in eps. */
template <typename T>
static double check_tridiag(int n, int batch, int chunk, int in_place, int staged)
{
    const size_t count = (size_t)n * batch;
    T *h[4];
    for (int a = 0; a < 4; a++) {
        h[a] = (T *)malloc(count * sizeof(T));
        for (size_t i = 0; i < count; i++)
            h[a][i] = (T)(a == 1 ? 3 + uniform() : uniform());
    }
    for (int sy = 0; sy < batch; sy++) {
        h[0][(size_t)sy * n] = (T)1e30;
        h[2][(size_t)sy * n + n - 1] = (T)-1e30;
    }
    T *dev[5];
    for (int a = 0; a < 5; a++) {
        CHECK(cudaMalloc(&dev[a], count * sizeof(T)));
        if (a < 4)
            CHECK(cudaMemcpy(dev[a], h[a], count * sizeof(T), cudaMemcpyHostToDevice));
    }
    T *out = in_place ? dev[3] : dev[4];
    if (!in_place)
        CHECK(cudaMemset(out, 0xff, count * sizeof(T)));   /* poison: NaN */
    double worst = 0;
    if (tridiag_launch<T>(dev[0], dev[1], dev[2], dev[3], out, n, batch, 0, chunk, 0, staged) !=
            cudaSuccess ||
        cudaDeviceSynchronize() != cudaSuccess)
        worst = INFINITY;
    T *got = (T *)malloc(count * sizeof(T));
    CHECK(cudaMemcpy(got, out, count * sizeof(T), cudaMemcpyDeviceToHost));
    double *sys = (double *)malloc(5 * (size_t)n * sizeof(double)), *want = sys + 4 * n;
    for (int sy = 0; sy < batch && worst < INFINITY; sy++) {
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < n; i++)
                sys[a * n + i] = (double)h[a][(size_t)sy * n + i];
        sys[0] = 0;   /* the reference reads them */
        sys[2 * n + n - 1] = 0;
        spec_ref_tridiag(n, sys, sys + n, sys + 2 * n, sys + 3 * n, want);
        long double num = 0, den = 0;
        for (int i = 0; i < n; i++) {
            const long double g = got[(size_t)sy * n + i], diff = g - want[i];
            if (!isfinite((double)g))
                num = INFINITY;
            num += diff * diff;
            den += (long double)want[i] * want[i];
        }
        const double e = (double)sqrtl(num / (den > 0 ? den : 1)) / (sizeof(T) == 8 ? 0x1p-53 : 0x1p-24);
        if (!(e <= worst))
            worst = e;
    }
    for (int a = 0; a < 5; a++) {
        cudaFree(dev[a]);
        if (a < 4)
            free(h[a]);
    }
    free(got);
    free(sys);
    return worst;
}

template <typename T> static int check_tridiag_precision(double *worst_all)
{
    int failures = 0;
    const int chunks[] = {8, 16};
    for (int n = 1; n <= TRIDIAG_MAX_N; n = n < 4 ? n + 1 : n * 2)
        for (int dn = (n < 4 ? 0 : -1); dn <= (n < TRIDIAG_MAX_N ? 1 : 0); dn++)
            for (int c = 0; c < 2; c++) {
                const int rows = n + dn;
                /* a few thousand rows, never a whole number of blocks */
                const int batch = (rows < 4096 ? 4096 / rows : 1) + 5;
                const int in_place = (rows + c) & 1;
                for (int staged = 0; staged < 2; staged++) {
                    const double e = check_tridiag<T>(rows, batch, chunks[c], in_place, staged);
                    const int ok = e <= 50;
                    failures += !ok;
                    if (!(e <= *worst_all))
                        *worst_all = e;
                    printf("%s tridiag %s n=%-5d batch %-5d chunk %-2d %s%s error %.2f eps\n",
                           ok ? "PASS" : "FAIL", sizeof(T) == 8 ? "f64" : "f32", rows, batch,
                           chunks[c], in_place ? "in place" : "out of place",
                           staged ? ", staged" : "", e);
                }
            }
    return failures;
}

int main(int argc, char **argv)
{
    const int dev = argc > 1 ? atoi(argv[1]) : 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    rng = (unsigned long long)time(NULL) * 0x9e3779b97f4a7c15ull | 1;
    printf("CUDA 1D spectral kernels on %s (seed %llu)\n", prop.name, rng);
    double worst = 0;
    const int failures = check_precision<double>(&worst) + check_precision<float>(&worst);
    printf("%s: %d failures, worst error %.2f eps log2 N (limit 10)\n", failures ? "FAILED" : "passed",
           failures, worst);
    double worst_tridiag = 0;
    const int tridiag_failures = check_tridiag_precision<double>(&worst_tridiag) +
                                 check_tridiag_precision<float>(&worst_tridiag);
    printf("tridiagonal %s: %d failures, worst error %.2f eps (limit 50)\n",
           tridiag_failures ? "FAILED" : "passed", tridiag_failures, worst_tridiag);
    return failures + tridiag_failures != 0;
}
