"""Assemble common/mom/bessel.h from the hand-written text here and the
polynomials fit.py prints (part_series.h, part_mid.h, part_large.h)."""
import sys

HEAD = r'''/* Bessel functions J0, Y0, J1, Y1 of a real argument x > 0 and the Hankel
 * functions H0^(2) = J0 - j Y0, H1^(2) = J1 - j Y1 of the method of moments
 * (time convention e^{jwt}, docs/mom.md section 1), written
 * once for the C reference, the CUDA kernels (ORR_HD: host and device
 * functions under nvcc) and the OpenCL kernels (embedded in their source:
 * OpenCL C has no Bessel functions). Only +, -, *, /, sqrt, log, sin and
 * cos of doubles. The coefficients are literals in Horner chains, not
 * tables: a file-scope table would need __constant__ under nvcc, where
 * ORR_CONSTANT is empty, and literals are immediates for every compiler.
 *
 * Accuracy, measured against mpmath (40 digits) on 32 000 arguments when
 * written (tests/unit/test_mom_bessel.c keeps 30 of them, and compares with
 * glibc on 400 000 more): every J_n and Y_n within 4.0e-16 |H_n(x)|, where
 * |H_n| = sqrt(J_n^2 + Y_n^2), for 0 < x <= 1e5 and beyond; glibc's j0, y0,
 * j1, y1 are within 5e-16 there. |H_n| is the envelope sqrt(2/(pi x))
 * for large x and ~(2/pi)|ln x| or 2/(pi x) for small x, so tiny arguments
 * get relative accuracy. Near the zeros of J_n or Y_n the accuracy is this
 * absolute one, as for any double implementation whose phase comes from x.
 * Across backends (-ffp-contract=off here, FP_CONTRACT OFF in OpenCL,
 * --fmad=false in CUDA) only the maths library differs: PoCL gave the C
 * bits for 96% of values, CUDA on an H200 for 95%, the rest within
 * 4.4e-16 |H|. Contraction (FMA) moves the last bit or two, no more.
 *
 * Three regions. The coefficients come from mpmath at 50 digits; each
 * polynomial's comment gives its error before and after rounding its
 * coefficients to double, relative to |H_n|, over its region.
 *
 * x < 1: the power series in t = x^2, with closed-form coefficients
 *   J0 = sum_k (-t/4)^k / k!^2,
 *   Y0 = (2/pi) [ln(x/2) J0 + sum_k (gamma - h_k) (-t/4)^k / k!^2],
 *   J1 = x sum_k (-t/4)^k / (2 k! (k+1)!),
 *   Y1 = (2/pi) [ln(x/2) J1 - 1/x - x sum_k (h_k + h_{k+1} - 2 gamma) (-t/4)^k / (4 k! (k+1)!)],
 *   h_k = 1 + 1/2 + ... + 1/k, gamma Euler's constant. At t < 1 successive
 *   terms fall by a factor of about 4 (k+1)^2 (the h_k grow only like ln k),
 *   so the first omitted term bounds the truncation: degree 9 (J0, Y0) and 8 (J1, Y1) leave
 *   < 3e-18 |H|. Nothing cancels much: 1 - J0 <= 0.24, and ln(x/2) J0 and
 *   the sum add with like magnitudes. The split at 1, not higher: at x = 2,
 *   1 - J0 = 0.78 against |H0| = 0.56, and Horner's rounding of that
 *   difference would show.
 *
 * x >= 1: Hankel's form, H_n^(1)(x) = sqrt(2/(pi x)) e^{j(x - (2n+1) pi/4)} (P_n + j Q_n):
 *   with u = (P_n + Q_n)/sqrt(pi x), v = (P_n - Q_n)/sqrt(pi x),
 *   J0 = u cos x + v sin x,  Y0 = u sin x - v cos x,
 *   J1 = u sin x - v cos x,  Y1 = -(u cos x + v sin x).
 *   The phase x - (2n+1) pi/4 is never formed: that rounding alone would
 *   cost x * 1e-16 of phase (1e-11 at x = 1e5). The phase is as good as
 *   the libm's sin and cos of x itself. P_n (near 1) and Q_n (near
 *   (4n^2 - 1)/(8x)) are smooth and slowly varying, so rounding in their
 *   variable costs nothing visible; the error is that of sin, cos, sqrt
 *   and the last few operations. P_n and Q_n are the exact functions, not
 *   the divergent asymptotic series (at x = 8 it cannot do better than
 *   about e^{-2x} ~ 1e-7), fitted as Chebyshev interpolants:
 *   1 <= x <= 8: in s = 2 ln(x)/ln 8 - 1. The logarithmic branch point of
 *     H_n at x = 0 goes to s = -infinity, so the fit converges fast: degree
 *     19-20 for 1e-17 |H| (in x itself it would take 46, in (8/x)^2 57).
 *   x > 8: in w = (8/x)^2, Q_n as (8/x) q_n(w): degree 12 for 1e-17 |H|.
 *     The split at 8 keeps that degree low (from x = 5 it would be 18,
 *     from 4, 22), and the ln x fit cannot extend to infinity.
 *   P_n is fitted as P_n - 1, whose constant term rounds to nothing; the 1
 *   is added once, in 1 + (P_n - 1 +- Q_n). */
#ifndef ORRERY_MOM_BESSEL_H
#define ORRERY_MOM_BESSEL_H

#ifndef __OPENCL_C_VERSION__
#include <math.h>
#endif

#include "../portable.h"

#define MOM_BESSEL_SERIES_END 1.0   /* power series below, Hankel's form from here */
#define MOM_BESSEL_FAR 8.0          /* P, Q in ln x up to here, in (8/x)^2 above */
#define MOM_2_OVER_PI 0.6366197723675814
#define MOM_1_OVER_PI 0.3183098861837907
#define MOM_2_OVER_LN8 0.9617966939259756

/* ---- x < 1: power series in t = x^2 ---- */

'''

MID = r'''
/* ---- 1 <= x <= 8: P_n - 1 and Q_n in s = 2 ln(x)/ln 8 - 1 ---- */

'''
LARGE = r'''
/* ---- x > 8: P_n - 1 and (x/8) Q_n in w = (8/x)^2 ---- */

'''
TAIL = r'''
/* ---- the functions ---- */

/* u = (P_n + Q_n)/sqrt(pi x) and v = (P_n - Q_n)/sqrt(pi x), order n = 0
 * or 1, x >= 1. */
static inline ORR_HD void mom_hankel_uv(int n, double x, double *u, double *v)
{
    double pm1, q;
    if (x <= MOM_BESSEL_FAR) {
        const double s = log(x) * MOM_2_OVER_LN8 - 1.0;
        pm1 = n ? mom_p1_mid(s) : mom_p0_mid(s);
        q = n ? mom_q1_mid(s) : mom_q0_mid(s);
    } else {
        const double z = MOM_BESSEL_FAR / x, w = z * z;
        pm1 = n ? mom_p1_large(w) : mom_p0_large(w);
        q = z * (n ? mom_q1_large(w) : mom_q0_large(w));
    }
    const double a = sqrt(MOM_1_OVER_PI / x);
    *u = a * (1.0 + (pm1 + q));
    *v = a * (1.0 + (pm1 - q));
}

/* J0(x) and Y0(x), finite x > 0. */
static inline ORR_HD void mom_j0y0(double x, double *j0, double *y0)
{
    if (x < MOM_BESSEL_SERIES_END) {
        const double t = x * x, j = mom_j0_series(t);
        *j0 = j;
        *y0 = MOM_2_OVER_PI * (log(0.5 * x) * j + mom_y0_series(t));
    } else {
        double u, v;
        mom_hankel_uv(0, x, &u, &v);
        const double c = cos(x), s = sin(x);
        *j0 = u * c + v * s;
        *y0 = u * s - v * c;
    }
}

/* J1(x) and Y1(x), finite x > 0. */
static inline ORR_HD void mom_j1y1(double x, double *j1, double *y1)
{
    if (x < MOM_BESSEL_SERIES_END) {
        const double t = x * x, j = x * mom_j1_series(t);
        *j1 = j;
        *y1 = MOM_2_OVER_PI * ((log(0.5 * x) * j + x * mom_y1_series(t)) - 1.0 / x);
    } else {
        double u, v;
        mom_hankel_uv(1, x, &u, &v);
        const double c = cos(x), s = sin(x);
        *j1 = u * s - v * c;
        *y1 = -(u * c + v * s);
    }
}

/* H0^(2)(x) = J0(x) - j Y0(x): the 2D Green's function is (-j/4) H0^(2)(kR). */
static inline ORR_HD void mom_h02(double x, double *re, double *im)
{
    double y0;
    mom_j0y0(x, re, &y0);
    *im = -y0;
}

/* H1^(2)(x) = J1(x) - j Y1(x) = -d/dx H0^(2)(x). */
static inline ORR_HD void mom_h12(double x, double *re, double *im)
{
    double y1;
    mom_j1y1(x, re, &y1);
    *im = -y1;
}

#endif
'''
parts = [open(p).read().rstrip() + '\n' for p in ('part_series.h', 'part_mid.h', 'part_large.h')]
sys.stdout.write(HEAD + parts[0] + MID + parts[1] + LARGE + parts[2] + TAIL)
