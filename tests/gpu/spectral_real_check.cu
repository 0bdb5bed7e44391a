/* Host-only check of the real kinds' fused pre- and post-processing
 * (spectral_real.cuh's real_load_z and real_store, the index maps and
 * formulas) with the inner complex FFT replaced by the long-double
 * reference DFT: every kind, N = 4..4096, both precisions, against the
 * spec_ref_* references (C2R on spectra whose Y_0 and Y_{N/2} are not
 * real: their imaginary parts must be ignored). Runs without a GPU (one
 * of `make check`'s tests where CUDA is configured); fresh random inputs
 * each run, the seed printed (ORR_SEED=S repeats a run). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../app_cuda/spectral/spectral_real.cuh"

extern "C" {
#include "spectral/spectral.h"
}
#include "../../app_cuda/spectral/spectral_harness.cuh"

static double uniform(void)
{
    return 2.0 * rand() / RAND_MAX - 1;
}

/* Relative L2 error in eps log2 N of one transform of kind through the
 * fused maps, in precision T. */
template <typename T, int KIND> static double check(int n)
{
    typedef typename cpx_of<T>::type C;
    const int h = n / 2, in_reals = real_in_reals(KIND, n), out_reals = real_out_reals(KIND, n);
    double *x = (double *)malloc(in_reals * sizeof(double)), *ref = (double *)malloc(out_reals * sizeof(double));
    double *zd = (double *)malloc(2 * h * sizeof(double)), *Zd = (double *)malloc(2 * h * sizeof(double));
    T *xt = (T *)malloc(in_reals * sizeof(T)), *out = (T *)malloc(out_reals * sizeof(T));
    C *Z = (C *)malloc(h * sizeof(C));
    /* C2R: Y_0 and Y_{N/2} with imaginary parts too, which the kernels must
     * ignore as the reference does (numpy's irfft) */
    for (int i = 0; i < in_reals; i++)
        xt[i] = (T)uniform();
    for (int i = 0; i < in_reals; i++)
        x[i] = xt[i];
    double *twd = spec_root_table(n, n, -1), *qtd = spec_root_table(n, 4 * (long)n, -1);
    C *tw = (C *)malloc(n * sizeof(C)), *qt = (C *)malloc(n * sizeof(C));
    for (int k = 0; k < n; k++) {
        tw[k].x = (T)twd[2 * k];
        tw[k].y = (T)twd[2 * k + 1];
        qt[k].x = (T)qtd[2 * k];
        qt[k].y = (T)qtd[2 * k + 1];
    }
    for (int i = 0; i < h; i++) {
        const C z = real_load_z<KIND, T, C, C>(xt, i, h, tw, qt);
        zd[2 * i] = z.x;
        zd[2 * i + 1] = z.y;
    }
    const int inverse = real_kind_sign(KIND) > 0;
    spec_ref_dft(h, inverse, zd, Zd);
    for (int i = 0; i < h; i++) {   /* the kernels' inner FFT is unscaled */
        Z[i].x = (T)(inverse ? Zd[2 * i] * h : Zd[2 * i]);
        Z[i].y = (T)(inverse ? Zd[2 * i + 1] * h : Zd[2 * i + 1]);
    }
    for (int i = 0; i < out_reals; i++)
        out[i] = (T)NAN;
    /* the store as two threads share it, to exercise the loop stride */
    real_store<KIND, T, C, C>(Z, out, h, tw, qt, 0, 2);
    real_store<KIND, T, C, C>(Z, out, h, tw, qt, 1, 2);
    reference_1d(KIND, n, 0, x, ref);
    const double e = error_in_eps<T>(out, ref, out_reals, n);
    free(x); free(ref); free(zd); free(Zd); free(xt); free(out); free(Z);
    free(twd); free(qtd); free(tw); free(qt);
    return e;
}

/* The pair forms of the register path against the one-point forms, for
 * every pair (i, h - i) of an N-point transform in double on random data:
 * KIND's pre-processing (C2R or DCT-III: real_z_pair_tw, with
 * real_qt_complement for DCT-III) and the post-processing
 * (real_spectrum_pair). The largest difference relative to the largest
 * value, in eps (rounding only: a few). */
template <int KIND> static double check_pairs(int n)
{
    typedef double2 C;
    const int h = n / 2;
    double *x = (double *)malloc((n + 2) * sizeof(double));
    C *Z = (C *)malloc(h * sizeof(C));
    for (int i = 0; i < n + 2; i++)
        x[i] = uniform();
    for (int i = 0; i < h; i++) {
        Z[i].x = uniform();
        Z[i].y = uniform();
    }
    C *tw = (C *)spec_root_table(n, n, -1), *qt = (C *)spec_root_table(n, 4 * (long)n, -1);
    double worst = 0, big = 0;
    const auto diff = [&](C a, C b) {
        worst = fmax(worst, fmax(fabs(a.x - b.x), fabs(a.y - b.y)));
        big = fmax(big, fmax(fabs(b.x), fabs(b.y)));
    };
    for (int i = 0; i <= h / 2; i++) {
        C z_hmi, y_hmk;
        const C z = real_z_pair_tw<KIND, double>(real_pair_input<KIND, double, C>(x, i, h),
                                                 real_pair_input<KIND, double, C>(x, h - i, h), tw[i],
                                                 qt[i], real_qt_complement<double>(qt[i]), z_hmi);
        diff(z, real_load_z<KIND, double, C, C>(x, i, h, tw, qt));
        if (i > 0)
            diff(z_hmi, real_load_z<KIND, double, C, C>(x, h - i, h, tw, qt));
        diff(real_qt_complement<double>(qt[i]), qt[h - i]);
        /* Y_k, Y_{h-k} (Y_h at k = 0) */
        const C y = real_spectrum_pair<double>(Z[i], Z[i == 0 ? 0 : h - i], tw[i], y_hmk);
        diff(y, real_spectrum<double, C, C>(Z, i, h, tw));
        diff(y_hmk, real_spectrum<double, C, C>(Z, h - i, h, tw));
    }
    free(x); free(Z); free(tw); free(qt);
    return worst / big / DBL_EPSILON;
}

template <int KIND> static int check_kind(const char *name)
{
    int bad = 0;
    for (int n = 4; n <= 4096; n *= 2) {
        const double e64 = check<double, KIND>(n), e32 = check<float, KIND>(n);
        const int ok = e64 <= 10 && e32 <= 10;   /* NaN fails: an output not written */
        printf("%s %-5s N=%-5d f64 %6.2f  f32 %6.2f eps log2 N\n", ok ? "PASS" : "FAIL", name, n, e64, e32);
        bad += !ok;
    }
    return bad;
}

int main(void)
{
    const char *seed_env = getenv("ORR_SEED");
    const unsigned seed = seed_env ? (unsigned)strtoul(seed_env, NULL, 10) : (unsigned)time(NULL);
    printf("seed %u (ORR_SEED=%u repeats it)\n", seed, seed);
    srand(seed);
    int bad = check_kind<RK_R2C>("r2c") + check_kind<RK_C2R>("c2r") + check_kind<RK_DCT2>("dct2") +
              check_kind<RK_DCT3>("dct3") + check_kind<RK_DHT>("dht");
    for (int n = 8; n <= 4096; n *= 2) {
        const double e_c2r = check_pairs<RK_C2R>(n), e_dct3 = check_pairs<RK_DCT3>(n);
        const int ok = e_c2r <= 16 && e_dct3 <= 16;
        printf("%s pairs N=%-5d c2r %5.2f  dct3 %5.2f eps\n", ok ? "PASS" : "FAIL", n, e_c2r, e_dct3);
        bad += !ok;
    }
    printf("%s\n", bad ? "FAILED" : "all passed");
    return bad != 0;
}
