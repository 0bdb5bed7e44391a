/* The scalar CPU kernels, written once for both precisions: plan.c includes
 * this file twice, with R (the real type) and SUFFIX (f64, f32) defined.
 * The transforms are vectorised across the batch in simd/lanes_kernel.h;
 * what is left here is the tridiagonal solver. */
#define CAT2(a, b) a##_##b
#define CAT(a, b) CAT2(a, b)
#define FN(name) CAT(name, SUFFIX)

/* Thomas algorithm, one system; c is scratch of n. Returns 0, or r + 1
 * for the first zero or non-finite pivot, at row r (spec_tridiag_check):
 * without pivoting, that is where the elimination breaks down. */
static int FN(thomas)(const R *dl, const R *d, const R *du, R *x, R *c, int n)
{
    int broke = 0;
    R den = d[0];
    if (den == 0 || !isfinite(den))
        broke = 1;
    c[0] = du[0] / den;
    x[0] = x[0] / den;
    for (int i = 1; i < n; i++) {
        den = d[i] - dl[i] * c[i - 1];
        if (!broke && (den == 0 || !isfinite(den)))
            broke = i + 1;
        c[i] = i + 1 < n ? du[i] / den : (R)0;
        x[i] = (x[i] - dl[i] * x[i - 1]) / den;
    }
    for (int i = n - 2; i >= 0; i--)
        x[i] -= c[i] * x[i + 1];
    return broke;
}

#undef FN
#undef CAT
#undef CAT2
