"""Derive the polynomials of common/mom/bessel.h with mpmath (50 digits) and
print them as C (the functions between the header's hand-written parts).

x < 1:       truncated power series in t = x^2, closed-form coefficients;
             the degree is the smallest whose truncation error is < TOL |H_n|.
1 <= x <= 8: Hankel's P_n, Q_n as Chebyshev interpolants in s = 2 ln(x)/ln 8 - 1.
x > 8:       P_n and (x/8) Q_n as Chebyshev interpolants in w = (8/x)^2.
Fits: interpolation at n+1 Chebyshev nodes, exact conversion to monomials,
rounding to double; n is the smallest degree whose interpolant is within
TOL |H_n(x)| of the function's contribution to J_n, Y_n on a dense grid.
Each comment gives that error and the error with the rounded coefficients."""
import mpmath as mp
import sys

mp.mp.dps = 50
TOL = mp.mpf('1e-17')
X1, X2 = mp.mpf(1), mp.mpf(8)
LN8 = mp.log(X2)

J = lambda n, x: mp.besselj(n, x)
Y = lambda n, x: mp.bessely(n, x)
H = lambda n, x: mp.sqrt(J(n, x) ** 2 + Y(n, x) ** 2)
L = lambda x: mp.log(x / 2)


def PQ(n, x):
    """P_n + j Q_n = H_n^(1)(x) sqrt(pi x/2) e^{-j(x - (2n+1) pi/4)}."""
    h = mp.hankel1(n, x) * mp.sqrt(mp.pi * x / 2) * mp.exp(-1j * (x - (2 * n + 1) * mp.pi / 4))
    return h.real, h.imag


def cheb_interp(f, n):
    N = n + 1
    nodes = [mp.cos(mp.pi * (k + mp.mpf(1) / 2) / N) for k in range(N)]
    fs = [f(s) for s in nodes]
    c = [2 * mp.fsum(fs[k] * mp.cos(mp.pi * j * (k + mp.mpf(1) / 2) / N) for k in range(N)) / N for j in range(N)]
    c[0] /= 2
    return c


def cheb_to_mono(c):
    n = len(c)
    T = [[mp.mpf(1)], [mp.mpf(0), mp.mpf(1)]]
    for j in range(2, n):
        a = [mp.mpf(0)] + [2 * v for v in T[j - 1]]
        b = T[j - 2] + [mp.mpf(0)] * (len(a) - len(T[j - 2]))
        T.append([a[i] - b[i] for i in range(len(a))])
    out = [mp.mpf(0)] * n
    for j in range(n):
        for i, v in enumerate(T[j][:n]):
            out[i] += c[j] * v
    return out


def affine(a, alpha, beta):
    """p(s) with s = alpha u + beta -> coefficients in u."""
    out = [mp.mpf(0)] * len(a)
    for k in range(len(a)):
        for i in range(k + 1):
            out[i] += a[k] * mp.binomial(k, i) * alpha ** i * beta ** (k - i)
    return out


def horner(a, u):
    p = mp.mpf(0)
    for c in reversed(a):
        p = p * u + c
    return p


def grid(lo, hi, n=400):
    return [lo + (hi - lo) * mp.mpf(k) / n for k in range(n + 1)]


def rounded(a):
    return [mp.mpf(float(v)) for v in a]


def worst(a, var, F, weight, order, xs):
    return max(abs(horner(a, var(x)) - F(x)) * weight(x) / H(order, x) for x in xs)


def harmonic(k):
    return mp.fsum(mp.mpf(1) / j for j in range(1, k + 1))


qk = lambda k: (-mp.mpf(1) / 4) ** k
fact = mp.factorial
g = mp.euler
# name: (coefficient k, the function of x it sums to, its weight in J_n/Y_n, n, what)
SERIES = [
    ('mom_j0_series', lambda k: qk(k) / fact(k) ** 2,
     lambda x: J(0, x), lambda x: 1, 0, 'J0(x)'),
    ('mom_y0_series', lambda k: (g - harmonic(k)) * qk(k) / fact(k) ** 2,
     lambda x: mp.pi / 2 * Y(0, x) - L(x) * J(0, x), lambda x: 2 / mp.pi, 0,
     '(pi/2) Y0(x) - ln(x/2) J0(x)'),
    ('mom_j1_series', lambda k: qk(k) / (2 * fact(k) * fact(k + 1)),
     lambda x: J(1, x) / x, lambda x: x, 1, 'J1(x) / x'),
    ('mom_y1_series', lambda k: -(harmonic(k) + harmonic(k + 1) - 2 * g) * qk(k) / (4 * fact(k) * fact(k + 1)),
     lambda x: (mp.pi / 2 * Y(1, x) - L(x) * J(1, x) + 1 / x) / x, lambda x: 2 * x / mp.pi, 1,
     '((pi/2) Y1(x) - ln(x/2) J1(x) + 1/x) / x'),
]


def series(coef, F, weight, order):
    xs = grid(mp.mpf('1e-3'), X1)
    for n in range(4, 30):
        a = [coef(k) for k in range(n + 1)]
        err = worst(a, lambda x: x * x, F, weight, order, xs)
        if err < TOL:
            return n, a, err, worst(rounded(a), lambda x: x * x, F, weight, order, xs)


def fit(f, to_var, var, F, weight, order, xs, minus_one=False):
    """f: the function of s in [-1, 1]; to_var: monomials in s -> in the variable.
    minus_one: fit F - 1 (P_n is near 1: its constant term then rounds to
    nothing, and the 1 is added where it costs one rounding, not two)."""
    if minus_one:
        f1, F1 = f, F
        f, F = (lambda s: f1(s) - 1), (lambda x: F1(x) - 1)
    for n in range(6, 40):
        a = to_var(cheb_to_mono(cheb_interp(f, n)))
        err = worst(a, var, F, weight, order, xs)
        if err < TOL:
            return n, a, err, worst(rounded(a), var, F, weight, order, xs)


envelope = lambda x: mp.sqrt(2 / (mp.pi * x))   # an error in P or Q, times this, is one in J or Y


def mid(n, k, minus_one):
    x_of_s = lambda s: mp.exp((s + 1) * LN8 / 2)
    F = lambda x: PQ(n, x)[k]
    return fit(lambda s: F(x_of_s(s)), lambda a: a, lambda x: 2 * mp.log(x) / LN8 - 1,
               F, envelope, n, grid(X1, X2), minus_one)


def large(n, k, minus_one):
    x_of_w = lambda w: X2 / mp.sqrt(w)
    if k == 0:
        F = lambda x: PQ(n, x)[0]
        limit, weight = mp.mpf(1), envelope
    else:
        F = lambda x: PQ(n, x)[1] * x / X2
        limit, weight = mp.mpf(4 * n * n - 1) / 64, lambda x: envelope(x) * X2 / x
    fw = lambda w: F(x_of_w(w)) if w > 0 else limit
    xs = [x_of_w(w) for w in grid(mp.mpf('1e-9'), mp.mpf(1))]
    return fit(lambda s: fw((s + 1) / 2), lambda a: affine(a, 2, -1), lambda x: (X2 / x) ** 2,
               F, weight, n, xs, minus_one)


def emit(name, var, comment, a):
    print('/* %s */' % comment)
    print('static inline ORR_HD double %s(double %s)' % (name, var))
    print('{')
    print('    double p = %r;' % float(a[-1]))
    for c in reversed(a[:-1]):
        print('    p = p * %s + %r;' % (var, float(c)))
    print('    return p;')
    print('}')
    print()


def note(n, err, err_r):
    return 'degree %d: %s %.0e |H|, rounded %.0e' % (n, 'error', float(err), float(err_r))


if __name__ == '__main__':
    part = sys.argv[1]
    if part == 'series':
        for name, coef, F, weight, order, what in SERIES:
            n, a, err, err_r = series(coef, F, weight, order)
            emit(name, 't', '%s, %s' % (what, note(n, err, err_r)), a)
    for nm, n, k in [('p0', 0, 0), ('q0', 0, 1), ('p1', 1, 0), ('q1', 1, 1)]:
        if part == 'mid':
            d, a, err, err_r = mid(n, k, k == 0)
            what = nm.upper() if k else nm.upper() + ' - 1'
            emit('mom_%s_mid' % nm, 's', '%s, %s' % (what, note(d, err, err_r)), a)
        elif part == 'large':
            d, a, err, err_r = large(n, k, k == 0)
            what = nm.upper() + ' - 1' if k == 0 else '(x/8) ' + nm.upper()
            emit('mom_%s_large' % nm, 'w', '%s, %s' % (what, note(d, err, err_r)), a)
