/* GPU check of every CUDA spectral kernel the app runs, each against the
 * long-double reference (spec_ref_*) on fresh random inputs with the
 * output poisoned (NaN), in f64 and f32:
 *  - the 1D kinds (spectral_fft.cuh, spectral_real.cuh): C2C forward and
 *    inverse, R2C, C2R (on spectra whose bins 0 and N/2 have imaginary
 *    parts, which it must ignore as numpy's irfft), DCT-II/III (the plain
 *    sums: the host applies the norm), DHT at every power of two N = 4..4096,
 *    the kernel the defaults pick (fft_c2c_table, fft_real_table), with
 *    16-byte aligned ends and once more off the 16-byte grid (the kernels
 *    that copy in 16-byte vectors take their element-wise path); batches
 *    that leave a block part empty; the first and last transform within
 *    10 eps log2 N;
 *  - the 2D FFT (spectral_2d.cuh) forward and inverse at shapes that take
 *    each path (one kernel; the 1D kernels, or the shared-memory row
 *    kernel, then the column pass), within 10 eps log2(N1 N2);
 *  - the fused convolution at each kernel shape conv2d_config_of picks
 *    (few and many slices), within 10 eps log2(mfft^2);
 *  - the tridiagonal solver at sizes 1..2048 around each power of two, in
 *    place and out of place, aligned and not, every system within 50 eps
 *    of long-double Thomas; and its breakdown status: systems with a zero
 *    or a NaN pivot marked -1, the others 0.
 * Prints one line a case (PASS or FAIL, what ran, its error; the kernel's
 * name for the 1D kinds), then four summary lines: the 1D kinds, the 2D
 * FFT and convolution, the tridiagonal solver, and the failures in all;
 * exit 1 on any.
 * Usage: tests/gpu/spectral_device_check [DEVICE] (`make tests/gpu/spectral_device_check`). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* Cases and failures of one part, and its worst error. */
struct tally {
    int cases, failures;
    double worst;
};

/* Counts one case of error e against limit (NaN fails) and prints its
 * line: PASS or FAIL, what, the error in unit. */
static void record(tally *t, double e, double limit, const char *what, const char *unit)
{
    const int ok = e <= limit;
    t->cases++;
    t->failures += !ok;
    if (!(e <= t->worst))
        t->worst = e;
    printf("%s %s error %.2f %s\n", ok ? "PASS" : "FAIL", what, e, unit);
}

static void summary(const char *part, const tally &t, double limit, const char *unit)
{
    printf("== %s %s: %d of %d cases failed, worst error %.2f %s (limit %g)\n", part,
           t.failures ? "FAILED" : "passed", t.failures, t.cases, t.worst, unit, limit);
}

/* Reals that put a kind's arrays off the 16-byte grid: one complex word
 * in single precision; in double one real, for the kinds with real data
 * only (the DCTs: complex double data is 16-byte aligned by its type);
 * 0: none. */
template <typename T> static int unaligned_shift(int kind)
{
    return sizeof(T) == 4 ? 2 : kind == RK_DCT2 || kind == RK_DCT3 ? 1 : 0;
}

/* cudaMalloc'd count Ts, the first shift of them unused (shift: that many
 * reals off cudaMalloc's 256-byte grid). */
template <typename T> static T *device_array(size_t count, int shift)
{
    void *p;
    CHECK(cudaMalloc(&p, (count + shift) * sizeof(T)));
    return (T *)p + shift;
}
template <typename T> static void device_free(T *p, int shift) { cudaFree(p - shift); }

/* ---- the 1D kinds ---- */

/* The worst error (eps log2 N) of the first and last transform of h_out
 * against the reference of h_in; NaN if an output is not finite. */
template <typename T>
static double worst_1d(int kind, int inverse, int n, int batch, const T *h_in, const T *h_out)
{
    const int ni = in_reals(kind, n), no = out_reals(kind, n);
    for (size_t i = 0; i < (size_t)batch * no; i++)
        if (!isfinite((double)h_out[i]))
            return NAN;
    double worst = 0;
    double *x = (double *)malloc(ni * sizeof(double)), *ref = (double *)malloc(no * sizeof(double));
    const int ts[2] = {0, batch - 1};
    for (int j = 0; j < 2; j++) {
        for (int i = 0; i < ni; i++)
            x[i] = h_in[(size_t)ts[j] * ni + i];
        reference_1d(kind, n, inverse, x, ref);
        const double e = error_in_eps<T>(h_out + (size_t)ts[j] * no, ref, no, n);
        worst = e > worst || isnan(e) ? e : worst;
    }
    free(x);
    free(ref);
    return worst;
}

/* A staged C2C row's kernel for ends off the 16-byte grid, on any ends:
 * in double that kernel serves only misaligned double2 data, which no
 * valid pointer is, so the check runs it on aligned ones. */
template <typename T>
static cudaError_t launch_c2c_unstaged(const T *in, T *out, int n, int batch, const void *tw, int inverse)
{
    return fft_with_size<4, 4096>(n, [&](auto n_tag) {
        constexpr int N = decltype(n_tag)::value;
        constexpr fft_c2c_config c = fft_c2c_config_of<T>(N);
        if constexpr (c.path == FFT_PATH_REGISTERS && c.staged && !c.any_n)
            return inverse ? fft_c2c_launch_plan<fft_c2c_plan<T, N, 1, false>>(in, out, n, batch, tw, 1, 0, 1)
                           : fft_c2c_launch_plan<fft_c2c_plan<T, N, -1, false>>(in, out, n, batch, tw, 0, 0, 1);
        else
            return cudaErrorInvalidValue;
    });
}

/* One 1D case: kind at n, the ends shift reals off cudaMalloc's grid
 * (unaligned_shift; -1: aligned ends, but the kernel for unaligned ones,
 * launch_c2c_unstaged); the worst error in eps log2 N (infinity if the
 * launch fails). */
template <typename T>
static double check_1d(int kind, int inverse, int n, int batch, const tables_1d<T> &tb, int shift_arg)
{
    const int shift = shift_arg < 0 ? 0 : shift_arg;
    const int ni = in_reals(kind, n), no = out_reals(kind, n);
    T *h_in = (T *)malloc((size_t)batch * ni * sizeof(T));
    T *h_out = (T *)malloc((size_t)batch * no * sizeof(T));
    /* C2R: Y_0 and Y_{N/2} not real; the reference ignores their
     * imaginary parts, and so must the kernels */
    for (size_t i = 0; i < (size_t)batch * ni; i++)
        h_in[i] = (T)uniform();
    T *in = device_array<T>((size_t)batch * ni, shift), *out = device_array<T>((size_t)batch * no, shift);
    CHECK(cudaMemcpy(in, h_in, (size_t)batch * ni * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0xff, (size_t)batch * no * sizeof(T)));   /* poison: NaN */
    const cudaError_t launched =
        shift_arg < 0   ? launch_c2c_unstaged<T>(in, out, n, batch, tb.tw, inverse)
        : kind == K_C2C ? fft_c2c_launch<T>(in, out, n, batch, tb.tw_d, tb.tw, inverse, 0)
                        : fft_real_launch<T>(kind, in, out, n, batch, tb.tw, tb.qt, 0);
    double worst = INFINITY;
    if (launched != cudaSuccess) {
        fprintf(stderr, "launch: %s\n", cudaGetErrorString(launched));
    } else {
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h_out, out, (size_t)batch * no * sizeof(T), cudaMemcpyDeviceToHost));
        worst = worst_1d<T>(kind, inverse, n, batch, h_in, h_out);
    }
    device_free(in, shift);
    device_free(out, shift);
    free(h_in);
    free(h_out);
    return worst;
}

/* Every 1D kind and N in T's precision, aligned and not. */
template <typename T> static void check_1d_precision(tally *t)
{
    const char *prec = sizeof(T) == 8 ? "f64" : "f32";
    for (int n = 4; n <= 4096; n *= 2) {
        /* about 2^16 points, and never a whole number of blocks */
        const int batch = (65536 / n > 3 ? 65536 / n : 3) + 3;
        const tables_1d<T> tb(n);
        for (int kind = K_C2C; kind <= RK_DHT; kind++)
            for (int aligned = 1; aligned >= 0; aligned--)
                for (int inv = 0; inv < (kind == K_C2C ? 2 : 1); inv++) {
                    int shift = aligned ? 0 : unaligned_shift<T>(kind);
                    if (!aligned && !shift && kind == K_C2C && fft_c2c_config_of<T>(n).staged)
                        shift = -1;   /* the unstaged kernel, forced */
                    if (!aligned && !shift)
                        continue;
                    char name[96], what[192];
                    kind_config_name<T>(kind, n, aligned, name, sizeof name);
                    snprintf(what, sizeof what, "%-4s %s N=%-5d batch %-6d %s%s%s", kind_names[kind], prec, n,
                             batch, name, aligned ? "" : shift < 0 ? " (unaligned's kernel)" : " (unaligned)",
                             kind != K_C2C ? "" : inv ? " inverse" : " forward");
                    record(t, check_1d<T>(kind, inv, n, batch, tb, shift), 10, what, "eps log2 N");
                }
    }
}

/* ---- the 2D FFT ---- */

/* The FFT2D_TW_N-point table of the 2D kernels in T's precision. */
template <typename T> static typename s2d_cpx<T>::type *table_2d(void)
{
    typedef typename s2d_cpx<T>::type C;
    double *td = spec_root_table(FFT2D_TW_N, FFT2D_TW_N, -1);
    C *h = (C *)malloc(FFT2D_TW_N * sizeof(C)), *d;
    for (int k = 0; k < FFT2D_TW_N; k++) {
        h[k].x = (T)td[2 * k];
        h[k].y = (T)td[2 * k + 1];
    }
    CHECK(cudaMalloc(&d, FFT2D_TW_N * sizeof(C)));
    CHECK(cudaMemcpy(d, h, FFT2D_TW_N * sizeof(C), cudaMemcpyHostToDevice));
    free(td);
    free(h);
    return d;
}

/* Relative L2 error of count reals against ref, in eps of T (NaN: an
 * output not written). */
template <typename T> static double rel_error_eps(const T *got, const double *ref, size_t count)
{
    long double num = 0, den = 0;
    for (size_t i = 0; i < count; i++) {
        const long double d = (long double)got[i] - ref[i];
        num += d * d;
        den += (long double)ref[i] * ref[i];
    }
    return (double)sqrtl(num / (den > 0 ? den : 1)) / (sizeof(T) == 8 ? 0x1p-53 : 0x1p-24);
}

/* One 2D FFT case: batch n1 x n2 images, ends shift reals off the grid;
 * the worst error of the first and last image in eps log2(n1 n2). */
template <typename T>
static double check_fft2(int n1, int n2, int batch, int inverse, int shift, const void *tw)
{
    typedef typename s2d_cpx<T>::type C;
    const size_t per = 2 * (size_t)n1 * n2, count = per * batch;
    T *h_in = (T *)malloc(count * sizeof(T)), *h_out = (T *)malloc(count * sizeof(T));
    for (size_t i = 0; i < count; i++)
        h_in[i] = (T)uniform();
    T *in = device_array<T>(count, shift), *out = device_array<T>(count, shift);
    CHECK(cudaMemcpy(in, h_in, count * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0xff, count * sizeof(T)));
    double worst = INFINITY;
    if (fft2_launch<C>((const C *)in, (C *)out, n1, n2, batch, inverse, (const C *)tw, 0) == cudaSuccess &&
        cudaDeviceSynchronize() == cudaSuccess) {
        CHECK(cudaMemcpy(h_out, out, count * sizeof(T), cudaMemcpyDeviceToHost));
        double *x = (double *)malloc(2 * per * sizeof(double)), *ref = x + per;
        worst = 0;
        for (int j = 0; j < 2; j++) {
            const size_t at = j ? count - per : 0;
            for (size_t i = 0; i < per; i++)
                x[i] = h_in[at + i];
            spec_ref_fft2(n1, n2, inverse, x, ref);
            const double e = rel_error_eps<T>(h_out + at, ref, per) / log2((double)n1 * n2);
            worst = e > worst || isnan(e) ? e : worst;
        }
        free(x);
    }
    device_free(in, shift);
    device_free(out, shift);
    free(h_in);
    free(h_out);
    return worst;
}

template <typename T> static void check_fft2_precision(tally *t)
{
    /* one kernel (small images); two passes with the rows on the 1D
     * kernels (N2 >= 16: the one-a-thread, staged, any-N, radix-8 and
     * radix-16 rows) or on the shared-memory row kernel (N2 < 16) */
    const int shapes[][2] = {{4, 4},    {8, 16},     {32, 32},  {64, 64}, {64, 128}, {128, 128},
                             {1024, 16}, {512, 32}, {2048, 8}, {8, 2048}};
    void *tw = table_2d<T>();
    for (const auto &sh : shapes)
        for (int aligned = 1; aligned >= 0; aligned--)
            for (int inv = 0; inv < 2; inv++) {
                /* only the rows' 1D kernel at N2 = 16 copies in 16-byte vectors */
                const int shift = aligned ? 0 : unaligned_shift<T>(K_C2C);
                if (!aligned && (!shift || sh[1] != 16))
                    continue;
                char what[128];
                snprintf(what, sizeof what, "fft2 %s %dx%d batch 3%s %s", sizeof(T) == 8 ? "f64" : "f32",
                         sh[0], sh[1], shift ? " (unaligned)" : "", inv ? "inverse" : "forward");
                record(t, check_fft2<T>(sh[0], sh[1], 3, inv, shift, tw), 10, what, "eps log2(N1 N2)");
            }
    cudaFree(tw);
}

/* ---- the fused convolution ---- */

static int bit_reverse(int k, int bits)
{
    int r = 0;
    for (int b = 0; b < bits; b++)
        r |= ((k >> b) & 1) << (bits - 1 - b);
    return r;
}

/* The error of slice s of got (host) against the block-Toeplitz sum. */
template <typename T>
static double conv_slice_error(int nf, int m, const T *slices, const T *shapes, const T *got, int s,
                               int per_shape)
{
    const size_t per = 2 * (size_t)m * m, area = (size_t)nf * nf;
    double *x = (double *)malloc((2 * per + area) * sizeof(double)), *want = x + per, *sd = want + per;
    for (size_t i = 0; i < per; i++)
        x[i] = slices[s * per + i];
    for (size_t i = 0; i < area; i++)
        sd[i] = shapes[(s / per_shape) * area + i];
    spec_ref_conv2d(nf, m, sd, x, want);
    const double e = rel_error_eps<T>(got + s * per, want, per) / (2 * log2((double)nf));
    free(x);
    return e;
}

/* One convolution case: batch M x M slices, two shapes S; the worst error
 * of the first and last slice in eps log2(mfft^2). */
template <typename T> static double check_conv2d(int nf, int m, int batch, const void *tw)
{
    typedef typename s2d_cpx<T>::type C;
    const size_t per = 2 * (size_t)m * m, area = (size_t)nf * nf;
    const int per_shape = (batch + 1) / 2, bits = s2d_log2(nf);
    T *hx = (T *)malloc(per * batch * sizeof(T)), *hs = (T *)malloc(2 * area * sizeof(T));
    T *hp = (T *)malloc(2 * area * sizeof(T)), *hy = (T *)malloc(per * batch * sizeof(T));
    for (size_t i = 0; i < per * batch; i++)
        hx[i] = (T)uniform();
    for (size_t i = 0; i < 2 * area; i++)
        hs[i] = (T)(uniform() + 1.5);
    for (int t = 0; t < 2; t++)   /* the kernel takes S permuted: S[rev q][rev p] at (q, p) */
        for (int q = 0; q < nf; q++)
            for (int p = 0; p < nf; p++)
                hp[t * area + (size_t)q * nf + p] =
                    hs[t * area + (size_t)bit_reverse(q, bits) * nf + bit_reverse(p, bits)];
    T *x = device_array<T>(per * batch, 0), *y = device_array<T>(per * batch, 0);
    T *sp = device_array<T>(2 * area, 0);
    CHECK(cudaMemcpy(x, hx, per * batch * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(sp, hp, 2 * area * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(y, 0xff, per * batch * sizeof(T)));
    double worst = INFINITY;
    const cudaError_t launched =
        conv2d_launch<T>((const C *)x, sp, (C *)y, nf, m, batch, per_shape, (const C *)tw, 0);
    if (launched == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess) {
        CHECK(cudaMemcpy(hy, y, per * batch * sizeof(T), cudaMemcpyDeviceToHost));
        const double e0 = conv_slice_error<T>(nf, m, hx, hs, hy, 0, per_shape);
        const double e1 = conv_slice_error<T>(nf, m, hx, hs, hy, batch - 1, per_shape);
        worst = e1 > e0 || isnan(e1) ? e1 : e0;
    }
    device_free(x, 0);
    device_free(y, 0);
    device_free(sp, 0);
    free(hx);
    free(hs);
    free(hp);
    free(hy);
    return worst;
}

template <typename T> static void check_conv2d_precision(tally *t, const cudaDeviceProp &prop)
{
    const int sizes[][2] = {{4, 1}, {8, 3}, {16, 7}, {32, 15}, {64, 31}, {128, 63}};
    const int batches[2] = {6, 4 * prop.multiProcessorCount + 3};   /* few slices, many */
    void *tw = table_2d<T>();
    for (const auto &sz : sizes)
        for (int b = 0; b < 2; b++) {
            const conv2d_config c = conv2d_config_of<T>(sz[0], batches[b] >= 4 * prop.multiProcessorCount);
            char what[160];
            snprintf(what, sizeof what, "conv2d %s mfft %-3d M %-2d %d slices, %d threads%s",
                     sizeof(T) == 8 ? "f64" : "f32", sz[0], sz[1], batches[b], c.threads,
                     c.dense ? " dense" : "");
            const size_t need = conv2d_shape_of(sz[0], sz[1], 2 * sizeof(T), 0).smem;
            if (need > prop.sharedMemPerBlockOptin) {
                printf("SKIP %s: needs %zu bytes of shared memory\n", what, need);
                continue;
            }
            record(t, check_conv2d<T>(sz[0], sz[1], batches[b], tw), 10, what, "eps log2(mfft^2)");
        }
    cudaFree(tw);
}

/* ---- the tridiagonal solver ---- */

/* The worst relative L2 error (eps) of the batch systems in got against
 * long-double Thomas on the host arrays h (dl, d, du, rhs). */
template <typename T> static double tridiag_error(int n, int batch, T *const h[4], const T *got)
{
    double *sys = (double *)malloc(5 * (size_t)n * sizeof(double)), *want = sys + 4 * n;
    double worst = 0;
    for (int sy = 0; sy < batch; sy++) {
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < n; i++)
                sys[a * n + i] = (double)h[a][(size_t)sy * n + i];
        sys[0] = 0;   /* the reference reads them */
        sys[2 * n + n - 1] = 0;
        spec_ref_tridiag(n, sys, sys + n, sys + 2 * n, sys + 3 * n, want);
        const double e = rel_error_eps<T>(got + (size_t)sy * n, want, n);
        if (!(e <= worst))
            worst = e;
    }
    free(sys);
    return worst;
}

/* One tridiagonal case: random diagonally dominant systems (d in [2, 4],
 * off-diagonals in [-1, 1]), the first row's dl and the last row's du set
 * to garbage the solver must ignore; arrays shift reals off the 16-byte
 * grid (then the tile path). The worst error of any system, in eps. */
template <typename T> static double check_tridiag(int n, int batch, int in_place, int shift)
{
    const size_t count = (size_t)n * batch;
    T *h[4], *dev[5];
    for (int a = 0; a < 4; a++) {
        h[a] = (T *)malloc(count * sizeof(T));
        for (size_t i = 0; i < count; i++)
            h[a][i] = (T)(a == 1 ? 3 + uniform() : uniform());
    }
    for (int sy = 0; sy < batch; sy++) {
        h[0][(size_t)sy * n] = (T)1e30;
        h[2][(size_t)sy * n + n - 1] = (T)-1e30;
    }
    for (int a = 0; a < 5; a++) {
        dev[a] = device_array<T>(count, shift);
        if (a < 4)
            CHECK(cudaMemcpy(dev[a], h[a], count * sizeof(T), cudaMemcpyHostToDevice));
    }
    T *out = in_place ? dev[3] : dev[4];
    if (!in_place)
        CHECK(cudaMemset(out, 0xff, count * sizeof(T)));   /* poison: NaN */
    double worst = INFINITY;
    if (tridiag_launch<T>(dev[0], dev[1], dev[2], dev[3], out, n, batch, 0) == cudaSuccess &&
        cudaDeviceSynchronize() == cudaSuccess) {
        T *got = (T *)malloc(count * sizeof(T));
        CHECK(cudaMemcpy(got, out, count * sizeof(T), cudaMemcpyDeviceToHost));
        worst = tridiag_error<T>(n, batch, h, got);
        free(got);
    }
    for (int a = 0; a < 5; a++) {
        device_free(dev[a], shift);
        if (a < 4)
            free(h[a]);
    }
    return worst;
}

/* Breakdown: a dominant batch with system 1's first pivot 0 and a NaN on
 * system batch - 2's diagonal at row n / 2; the status must mark exactly
 * those two -1 (and the solver must not fail to launch). */
template <typename T> static bool check_tridiag_breakdown(int n, int batch)
{
    const size_t count = (size_t)n * batch;
    T *h[4], *dev[4];
    for (int a = 0; a < 4; a++) {
        h[a] = (T *)malloc(count * sizeof(T));
        for (size_t i = 0; i < count; i++)
            h[a][i] = (T)(a == 1 ? 3 + uniform() : uniform());
    }
    h[1][(size_t)1 * n] = 0;
    h[1][(size_t)(batch - 2) * n + n / 2] = (T)NAN;
    for (int a = 0; a < 4; a++) {
        dev[a] = device_array<T>(count, 0);
        CHECK(cudaMemcpy(dev[a], h[a], count * sizeof(T), cudaMemcpyHostToDevice));
    }
    int *status, *got = (int *)malloc(batch * sizeof(int));
    CHECK(cudaMalloc(&status, batch * sizeof(int)));
    CHECK(cudaMemset(status, 0, batch * sizeof(int)));
    bool ok = tridiag_launch<T>(dev[0], dev[1], dev[2], dev[3], dev[3], n, batch, 0, status) ==
                  cudaSuccess &&
              cudaDeviceSynchronize() == cudaSuccess;
    if (ok) {
        CHECK(cudaMemcpy(got, status, batch * sizeof(int), cudaMemcpyDeviceToHost));
        for (int sy = 0; sy < batch; sy++)
            ok &= got[sy] == (sy == 1 || sy == batch - 2 ? -1 : 0);
    }
    cudaFree(status);
    free(got);
    for (int a = 0; a < 4; a++) {
        device_free(dev[a], 0);
        free(h[a]);
    }
    return ok;
}

template <typename T> static void check_tridiag_precision(tally *t)
{
    /* the breakdown status on the warp and the shared-memory reductions */
    const int breakdown_n[] = {1, 8, 33, 256, 2048};
    for (int n : breakdown_n) {
        const bool ok = check_tridiag_breakdown<T>(n, 67);
        char what[128];
        snprintf(what, sizeof what, "tridiag %s n=%-5d breakdown status (systems 1 and 65 of 67)",
                 sizeof(T) == 8 ? "f64" : "f32", n);
        record(t, ok ? 0 : INFINITY, 50, what, "(0: the right systems marked)");
    }
    for (int n = 1; n <= TRIDIAG_MAX_N; n = n < 4 ? n + 1 : n * 2)
        for (int dn = (n < 4 ? 0 : -1); dn <= (n < TRIDIAG_MAX_N ? 1 : 0); dn++)
            for (int shift = 0; shift <= 1; shift++) {
                const int rows = n + dn;
                /* a few thousand rows, never a whole number of blocks */
                const int batch = (rows < 4096 ? 4096 / rows : 1) + 5;
                const int in_place = (rows + shift) & 1;
                const tridiag_shape s = tridiag_shape_of(rows, sizeof(T));
                char what[128];
                snprintf(what, sizeof what, "tridiag %s n=%-5d batch %-5d %d rows a thread, %s%s",
                         sizeof(T) == 8 ? "f64" : "f32", rows, batch, s.rows_per_thread,
                         in_place ? "in place" : "out of place", shift ? " (unaligned)" : "");
                record(t, check_tridiag<T>(rows, batch, in_place, shift), 50, what, "eps");
            }
}

int main(int argc, char **argv)
{
    const int dev = argc > 1 ? atoi(argv[1]) : 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, dev));
    rng = (unsigned long long)time(NULL) * 0x9e3779b97f4a7c15ull | 1;
    printf("CUDA spectral kernels on %s (seed %llu)\n", prop.name, rng);
    tally t1 = {0, 0, 0}, t2 = {0, 0, 0}, tc = {0, 0, 0}, tt = {0, 0, 0};
    check_1d_precision<double>(&t1);
    check_1d_precision<float>(&t1);
    check_fft2_precision<double>(&t2);
    check_fft2_precision<float>(&t2);
    check_conv2d_precision<double>(&tc, prop);
    check_conv2d_precision<float>(&tc, prop);
    check_tridiag_precision<double>(&tt);
    check_tridiag_precision<float>(&tt);
    /* four lines, the last four of the output */
    summary("1D kinds", t1, 10, "eps log2 N");
    printf("== 2D FFT %s: %d of %d cases failed, worst error %.2f eps log2(N1 N2); convolution %s: %d of "
           "%d failed, worst %.2f eps log2(mfft^2) (limits 10)\n",
           t2.failures ? "FAILED" : "passed", t2.failures, t2.cases, t2.worst,
           tc.failures ? "FAILED" : "passed", tc.failures, tc.cases, tc.worst);
    summary("tridiagonal", tt, 50, "eps");
    const int failures = t1.failures + t2.failures + tc.failures + tt.failures;
    printf("%s: %d failures in %d cases\n", failures ? "FAILED" : "passed", failures,
           t1.cases + t2.cases + tc.cases + tt.cases);
    return failures != 0;
}
