/* The spectral kernels' reference: the definitions of docs/spectral.md section 1
 * evaluated directly (O(N^2) sums, the block-Toeplitz sum, Thomas) in long
 * double, with every angle reduced exactly (i k mod N) before its cosine.
 * Slow on purpose: it is what the fast kernels are measured against. */
#include <math.h>
#include <stdlib.h>

#include "spectral.h"

static const long double two_pi = 6.283185307179586476925286766559005768L;

/* e^{sign 2 pi j (k / n)} for an integer k, reduced mod n first. */
static void unit_root(long long k, long long n, int sign, long double *c, long double *s)
{
    k %= n;
    if (k < 0)
        k += n;
    const long double a = two_pi * (long double)k / (long double)n;
    *c = cosl(a);
    *s = sign * sinl(a);
}

/* cos and sin of 2 pi k / n for every k < n, once per call: each sum
 * then looks its angle up at (i k mod n), exactly reduced. */
typedef struct {
    long double *c, *s;
} root_table;

static int roots(long long n, root_table *t)
{
    t->c = malloc((size_t)n * sizeof *t->c);
    t->s = malloc((size_t)n * sizeof *t->s);
    if (!t->c || !t->s) {
        free(t->c);
        free(t->s);
        return -1;
    }
    for (long long k = 0; k < n; k++)
        unit_root(k, n, 1, &t->c[k], &t->s[k]);
    return 0;
}

static void roots_free(root_table *t)
{
    free(t->c);
    free(t->s);
}

void spec_ref_dft(int n, int inverse, const double *in, double *out)
{
    const int sign = inverse ? 1 : -1;
    root_table t;
    if (roots(n, &t) != 0)
        return;
    for (int k = 0; k < n; k++) {
        long double re = 0, im = 0;
        for (int i = 0; i < n; i++) {
            const size_t a = (size_t)((long long)i * k % n);
            const long double c = t.c[a], s = sign * t.s[a];
            re += in[2 * i] * c - in[2 * i + 1] * s;
            im += in[2 * i] * s + in[2 * i + 1] * c;
        }
        if (inverse) {
            re /= n;
            im /= n;
        }
        out[2 * k] = (double)re;
        out[2 * k + 1] = (double)im;
    }
    roots_free(&t);
}

void spec_ref_r2c(int n, const double *in, double *out)
{
    root_table t;
    if (roots(n, &t) != 0)
        return;
    for (int k = 0; k <= n / 2; k++) {
        long double re = 0, im = 0;
        for (int i = 0; i < n; i++) {
            const size_t a = (size_t)((long long)i * k % n);
            re += in[i] * t.c[a];
            im -= in[i] * t.s[a];
        }
        out[2 * k] = (double)re;
        out[2 * k + 1] = (double)im;
    }
    roots_free(&t);
}

void spec_ref_c2r(int n, const double *in, double *out)
{
    /* the Hermitian extension: bins k > n/2 are conj(bin n - k); the
     * imaginary parts of bins 0 and n/2 do not contribute */
    root_table t;
    if (roots(n, &t) != 0)
        return;
    for (int i = 0; i < n; i++) {
        long double sum = 0;
        for (int k = 0; k < n; k++) {
            const int src = k <= n / 2 ? k : n - k;
            long double re = in[2 * src], im = k <= n / 2 ? in[2 * src + 1] : -in[2 * src + 1];
            if (k == 0 || 2 * k == n)
                im = 0;
            const size_t a = (size_t)((long long)i * k % n);
            sum += re * t.c[a] - im * t.s[a];
        }
        out[i] = (double)(sum / n);
    }
    roots_free(&t);
}

void spec_ref_dht(int n, const double *in, double *out)
{
    root_table t;
    if (roots(n, &t) != 0)
        return;
    for (int k = 0; k < n; k++) {
        long double h = 0;
        for (int i = 0; i < n; i++) {
            const size_t a = (size_t)((long long)i * k % n);
            h += in[i] * (t.c[a] + t.s[a]);
        }
        out[k] = (double)h;
    }
    roots_free(&t);
}

/* scipy.fft.dct's definitions (spec_norm), written out as scipy's
 * documentation gives them rather than through the kernels' factors:
 * cos(pi/N (i + 1/2) k) = cos(2 pi (2i + 1) k / (4N)), the 4N-th roots. */
void spec_ref_dct2(int n, spec_norm norm, const double *in, double *out)
{
    root_table t;
    if (roots(4LL * n, &t) != 0)
        return;
    for (int k = 0; k < n; k++) {
        long double y = 0;
        for (int i = 0; i < n; i++)
            y += in[i] * t.c[(size_t)((long long)(2 * i + 1) * k % (4LL * n))];
        y *= 2;
        if (norm == SPEC_NORM_FORWARD)
            y /= 2.0L * n;
        else if (norm == SPEC_NORM_ORTHO)
            y *= sqrtl(1.0L / ((k == 0 ? 4.0L : 2.0L) * n));
        out[k] = (double)y;
    }
    roots_free(&t);
}

void spec_ref_dct3(int n, spec_norm norm, const double *in, double *out)
{
    root_table t;
    if (roots(4LL * n, &t) != 0)
        return;
    for (int k = 0; k < n; k++) {
        long double sum = 0;
        for (int i = 1; i < n; i++)
            sum += in[i] * t.c[(size_t)((long long)(2 * k + 1) * i % (4LL * n))];
        long double y;
        if (norm == SPEC_NORM_ORTHO)
            y = in[0] / sqrtl((long double)n) + sqrtl(2.0L / n) * sum;
        else
            y = in[0] + 2 * sum;
        if (norm == SPEC_NORM_FORWARD)
            y /= 2.0L * n;
        out[k] = (double)y;
    }
    roots_free(&t);
}

/* Direct sums along the rows, then along the columns (the 2D DFT is
 * separable), the intermediate kept in long double: O(N1 N2 (N1 + N2)),
 * so the self-test can check 256 x 512 images in a second. */
void spec_ref_fft2(int n1, int n2, int inverse, const double *in, double *out)
{
    const int sign = inverse ? 1 : -1;
    root_table t1, t2;
    const size_t count = (size_t)n1 * n2;
    long double *mid = malloc(2 * count * sizeof *mid);
    if (!mid)
        return;
    if (roots(n1, &t1) != 0) {
        free(mid);
        return;
    }
    if (roots(n2, &t2) != 0) {
        roots_free(&t1);
        free(mid);
        return;
    }
    for (int i1 = 0; i1 < n1; i1++)
        for (int k2 = 0; k2 < n2; k2++) {
            long double re = 0, im = 0;
            for (int i2 = 0; i2 < n2; i2++) {
                const size_t a = (size_t)((long long)i2 * k2 % n2);
                const long double c = t2.c[a], sn = sign * t2.s[a];
                const double *x = &in[2 * ((size_t)i1 * n2 + i2)];
                re += x[0] * c - x[1] * sn;
                im += x[0] * sn + x[1] * c;
            }
            mid[2 * ((size_t)i1 * n2 + k2)] = re;
            mid[2 * ((size_t)i1 * n2 + k2) + 1] = im;
        }
    const long double scale = inverse ? 1.0L / ((long double)n1 * n2) : 1.0L;
    for (int k1 = 0; k1 < n1; k1++)
        for (int k2 = 0; k2 < n2; k2++) {
            long double re = 0, im = 0;
            for (int i1 = 0; i1 < n1; i1++) {
                const size_t a = (size_t)((long long)i1 * k1 % n1);
                const long double c = t1.c[a], sn = sign * t1.s[a];
                const long double *x = &mid[2 * ((size_t)i1 * n2 + k2)];
                re += x[0] * c - x[1] * sn;
                im += x[0] * sn + x[1] * c;
            }
            out[2 * ((size_t)k1 * n2 + k2)] = (double)(re * scale);
            out[2 * ((size_t)k1 * n2 + k2) + 1] = (double)(im * scale);
        }
    free(mid);
    roots_free(&t1);
    roots_free(&t2);
}

void spec_ref_conv2d(int mfft, int m, const double *shape, const double *slice, double *out)
{
    /* s_hat[p][q] = mfft^-2 sum_{y,x} S[y][x] e^{+2 pi j (p y + q x) / mfft}
     * for p, q in -(m-1)..(m-1): the coefficients the FFT pipeline
     * (forward FFT of the padded modes, product, inverse) applies. */
    const int h = m - 1, w = 2 * m - 1;
    long double *sre = calloc((size_t)w * w, sizeof *sre), *sim = calloc((size_t)w * w, sizeof *sim);
    root_table t;
    if (!sre || !sim || roots(mfft, &t) != 0) {
        free(sre);
        free(sim);
        return;
    }
    /* separably: first along x for every row y, then along y */
    long double *rre = malloc((size_t)mfft * w * sizeof *rre), *rim = malloc((size_t)mfft * w * sizeof *rim);
    if (!rre || !rim) {
        free(rre);
        free(rim);
        free(sre);
        free(sim);
        roots_free(&t);
        return;
    }
    for (int y = 0; y < mfft; y++)
        for (int q = -h; q <= h; q++) {
            long double re = 0, im = 0;
            for (int x = 0; x < mfft; x++) {
                long long a = ((long long)q * x) % mfft;
                if (a < 0)
                    a += mfft;
                re += shape[(size_t)y * mfft + x] * t.c[a];
                im += shape[(size_t)y * mfft + x] * t.s[a];
            }
            rre[(size_t)y * w + (q + h)] = re;
            rim[(size_t)y * w + (q + h)] = im;
        }
    for (int p = -h; p <= h; p++)
        for (int q = -h; q <= h; q++) {
            long double re = 0, im = 0;
            for (int y = 0; y < mfft; y++) {
                long long a = ((long long)p * y) % mfft;
                if (a < 0)
                    a += mfft;
                const long double r0 = rre[(size_t)y * w + (q + h)], r1 = rim[(size_t)y * w + (q + h)];
                re += r0 * t.c[a] - r1 * t.s[a];
                im += r0 * t.s[a] + r1 * t.c[a];
            }
            sre[(p + h) * w + (q + h)] = re / ((long double)mfft * mfft);
            sim[(p + h) * w + (q + h)] = im / ((long double)mfft * mfft);
        }
    free(rre);
    free(rim);
    /* Y_{a,b} = sum_{a',b'} s_hat_{a-a', b-b'} X_{a',b'} */
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) {
            long double re = 0, im = 0;
            for (int a2 = 0; a2 < m; a2++)
                for (int b2 = 0; b2 < m; b2++) {
                    const int k = (a - a2 + h) * w + (b - b2 + h);
                    const double *x = &slice[2 * ((size_t)a2 * m + b2)];
                    re += sre[k] * x[0] - sim[k] * x[1];
                    im += sre[k] * x[1] + sim[k] * x[0];
                }
            out[2 * ((size_t)a * m + b)] = (double)re;
            out[2 * ((size_t)a * m + b) + 1] = (double)im;
        }
    free(sre);
    free(sim);
    roots_free(&t);
}

void spec_ref_tridiag(int n, const double *dl, const double *d, const double *du,
                      const double *rhs, double *x)
{
    long double *c = malloc((size_t)n * sizeof *c), *y = malloc((size_t)n * sizeof *y);
    if (!c || !y) {
        free(c);
        free(y);
        return;
    }
    c[0] = (long double)du[0] / d[0];
    y[0] = (long double)rhs[0] / d[0];
    for (int i = 1; i < n; i++) {
        const long double den = d[i] - dl[i] * c[i - 1];
        c[i] = i + 1 < n ? du[i] / den : 0;
        y[i] = (rhs[i] - dl[i] * y[i - 1]) / den;
    }
    long double next = y[n - 1];
    x[n - 1] = (double)next;
    for (int i = n - 2; i >= 0; i--) {
        next = y[i] - c[i] * next;
        x[i] = (double)next;
    }
    free(c);
    free(y);
}
