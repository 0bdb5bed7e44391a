/* Bessel functions J0, Y0, J1, Y1 of a real argument x > 0 and the Hankel
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

/* J0(x), degree 9: error 9e-20 |H|, rounded 6e-20 */
static inline ORR_HD double mom_j0_series(double t)
{
    double p = -2.896903392077112e-17;
    p = p * t + 9.385966990329842e-15;
    p = p * t + -2.4028075495244395e-12;
    p = p * t + 4.709502797067901e-10;
    p = p * t + -6.781684027777778e-08;
    p = p * t + 6.781684027777777e-06;
    p = p * t + -0.00043402777777777775;
    p = p * t + 0.015625;
    p = p * t + -0.25;
    p = p * t + 1.0;
    return p;
}

/* (pi/2) Y0(x) - ln(x/2) J0(x), degree 9: error 1e-19 |H|, rounded 3e-18 */
static inline ORR_HD double mom_y0_series(double t)
{
    double p = 6.523109713385803e-17;
    p = p * t + -2.009199025022224e-14;
    p = p * t + 4.843198560366338e-12;
    p = p * t + -8.819883064451181e-10;
    p = p * t + 1.1570350941513404e-07;
    p = p * t + -1.0214014135957849e-05;
    p = p * t + 0.0005451899602568578;
    p = p * t + -0.014418505235913549;
    p = p * t + 0.10569608377461678;
    p = p * t + 0.5772156649015329;
    return p;
}

/* J1(x) / x, degree 8: error 2e-18 |H|, rounded 1e-18 */
static inline ORR_HD double mom_j1_series(double t)
{
    double p = 5.214426105738801e-16;
    p = p * t + -1.5017547184527747e-13;
    p = p * t + 3.363930569334215e-11;
    p = p * t + -5.651403356481481e-09;
    p = p * t + 6.781684027777778e-07;
    p = p * t + -5.425347222222222e-05;
    p = p * t + 0.0026041666666666665;
    p = p * t + -0.0625;
    p = p * t + 0.5;
    return p;
}

/* ((pi/2) Y1(x) - ln(x/2) J1(x) + 1/x) / x, degree 8: error 2e-18 |H|, rounded 1e-18 */
static inline ORR_HD double mom_y1_series(double t)
{
    double p = -1.1451907144886734e-15;
    p = p * t + 3.12085877013226e-13;
    p = p * t + -6.54019722956043e-11;
    p = p * t + 1.0112909397634626e-08;
    p = p * t + -1.0892182538735626e-06;
    p = p * t + 7.493042905988501e-05;
    p = p * t + -0.002837111983763369;
    p = p * t + 0.042049020943654196;
    p = p * t + 0.03860783245076643;
    return p;
}

/* ---- 1 <= x <= 8: P_n - 1 and Q_n in s = 2 ln(x)/ln 8 - 1 ---- */

/* P0 - 1, degree 19: error 9e-18 |H|, rounded 9e-18 */
static inline ORR_HD double mom_p0_mid(double s)
{
    double p = -4.564331374173004e-11;
    p = p * s + 1.618222510197655e-12;
    p = p * s + 6.697521353643011e-10;
    p = p * s + -8.785711241887905e-11;
    p = p * s + -6.892235199091793e-09;
    p = p * s + 2.7951622846061233e-09;
    p = p * s + 6.476876227059929e-08;
    p = p * s + -6.092176047858641e-08;
    p = p * s + -5.655787157506993e-07;
    p = p * s + 1.0453942449009615e-06;
    p = p * s + 4.17882032786624e-06;
    p = p * s + -1.4839257480652591e-05;
    p = p * s + -1.6864959227742274e-05;
    p = p * s + 0.00016743087106353035;
    p = p * s + -0.00019468338724763025;
    p = p * s + -0.0010871648553296349;
    p = p * s + 0.005364953909113249;
    p = p * s + -0.011705871967564773;
    p = p * s + 0.014011253783234862;
    p = p * s + -0.007602020723887306;
    return p;
}

/* Q0, degree 20: error 2e-18 |H|, rounded 7e-18 */
static inline ORR_HD double mom_q0_mid(double s)
{
    double p = -1.424728120765432e-11;
    p = p * s + 5.634926587976637e-13;
    p = p * s + 2.1352170054397065e-10;
    p = p * s + -1.422472790177413e-11;
    p = p * s + -2.2282947704547536e-09;
    p = p * s + 5.284858530629934e-10;
    p = p * s + 2.1320843035165958e-08;
    p = p * s + -1.3523249958465293e-08;
    p = p * s + -1.9379602409501013e-07;
    p = p * s + 2.583532887257188e-07;
    p = p * s + 1.5889697432545747e-06;
    p = p * s + -4.0203800608601575e-06;
    p = p * s + -9.812127547303398e-06;
    p = p * s + 5.142555757670164e-05;
    p = p * s + 3.5562609255275653e-06;
    p = p * s + -0.0004867643745780396;
    p = p * s + 0.0010969017698642975;
    p = p * s + 0.0016310311258978165;
    p = p * s + -0.015221104614132194;
    p = p * s + 0.03914288693561803;
    p = p * s + -0.04169395353519009;
    return p;
}

/* P1 - 1, degree 20: error 4e-18 |H|, rounded 5e-18 */
static inline ORR_HD double mom_p1_mid(double s)
{
    double p = -1.9781951608545926e-12;
    p = p * s + 4.3884284124275815e-11;
    p = p * s + 3.4934915475063005e-11;
    p = p * s + -6.568566774665421e-10;
    p = p * s + -3.5668670043361435e-10;
    p = p * s + 6.906070790901195e-09;
    p = p * s + 2.1134001327902147e-09;
    p = p * s + -6.754151218929896e-08;
    p = p * s + 8.689755981398503e-09;
    p = p * s + 6.401737591037494e-07;
    p = p * s + -5.331546145771957e-07;
    p = p * s + -5.6746151712035445e-06;
    p = p * s + 1.1056501853504375e-05;
    p = p * s + 4.134691653777376e-05;
    p = p * s + -0.00016222245635581862;
    p = p * s + -0.00025479662051923447;
    p = p * s + 0.003235919000039509;
    p = p * s + -0.011168363150382263;
    p = p * s + 0.0217843269629194;
    p = p * s + -0.024762444994420985;
    p = p * s + 0.013078899601482485;
    return p;
}

/* Q1, degree 20: error 2e-18 |H|, rounded 2e-17 */
static inline ORR_HD double mom_q1_mid(double s)
{
    double p = 1.4068499004071763e-11;
    p = p * s + 7.353648724579889e-12;
    p = p * s + -2.1064850010898082e-10;
    p = p * s + -1.1331461962306439e-10;
    p = p * s + 2.2144796020919305e-09;
    p = p * s + 9.529424471832488e-10;
    p = p * s + -2.1727346658665708e-08;
    p = p * s + -2.5752257592758515e-09;
    p = p * s + 2.0897749275470801e-07;
    p = p * s + -9.208284180553296e-08;
    p = p * s + -1.9293185803919263e-06;
    p = p * s + 2.5265478323763555e-06;
    p = p * s + 1.6049625783899904e-05;
    p = p * s + -4.456172537585102e-05;
    p = p * s + -8.886629776957691e-05;
    p = p * s + 0.0004978465621697045;
    p = p * s + 0.0009903136562132413;
    p = p * s + -0.014428784044603777;
    p = p * s + 0.058631914067219036;
    p = p * s + -0.1278666051148996;
    p = p * s + 0.12897440410011599;
    return p;
}

/* ---- x > 8: P_n - 1 and (x/8) Q_n in w = (8/x)^2 ---- */

/* P0 - 1, degree 12: error 4e-18 |H|, rounded 4e-18 */
static inline ORR_HD double mom_p0_large(double w)
{
    double p = 1.3219700423350835e-10;
    p = p * w + -1.0029066979633945e-09;
    p = p * w + 3.589369421372812e-09;
    p = p * w + -8.31251965044764e-09;
    p = p * w + 1.4845549354895297e-08;
    p = p * w + -2.4185615179408813e-08;
    p = p * w + 4.339314718568921e-08;
    p = p * w + -1.0229475399421496e-07;
    p = p * w + 3.620184781129259e-07;
    p = p * w + -2.183917728558513e-06;
    p = p * w + 2.738088361130017e-05;
    p = p * w + -0.0010986328124985556;
    p = p * w + -4.257170320659829e-18;
    return p;
}

/* (x/8) Q0, degree 12: error 2e-18 |H|, rounded 3e-18 */
static inline ORR_HD double mom_q0_large(double w)
{
    double p = -1.3477937580357612e-10;
    p = p * w + 1.011031238186147e-09;
    p = p * w + -3.555524278992273e-09;
    p = p * w + 8.000995612956512e-09;
    p = p * w + -1.3609419519258223e-08;
    p = p * w + 2.0428537127580895e-08;
    p = p * w + -3.228985891642277e-08;
    p = p * w + 6.399781418673288e-08;
    p = p * w + -1.8162398074592788e-07;
    p = p * w + 8.238425985656106e-07;
    p = p * w + -6.9307860941428686e-06;
    p = p * w + 0.00014305114745934768;
    p = p * w + -0.015624999999999995;
    return p;
}

/* P1 - 1, degree 12: error 5e-18 |H|, rounded 5e-18 */
static inline ORR_HD double mom_p1_large(double w)
{
    double p = -1.4038395089577798e-10;
    p = p * w + 1.0657770307911482e-09;
    p = p * w + -3.818735305533677e-09;
    p = p * w + 8.860855361799285e-09;
    p = p * w + -1.5879522872690333e-08;
    p = p * w + 2.6030250382020736e-08;
    p = p * w + -4.719167778074151e-08;
    p = p * w + 1.1307073738668152e-07;
    p = p * w + -4.102893385438351e-07;
    p = p * w + 2.5809939131965017e-06;
    p = p * w + -3.520399323335166e-05;
    p = p * w + 0.001831054687498473;
    p = p * w + 4.501343094093125e-18;
    return p;
}

/* (x/8) Q1, degree 12: error 2e-18 |H|, rounded 4e-18 */
static inline ORR_HD double mom_q1_large(double w)
{
    double p = 1.4280722112309597e-10;
    p = p * w + -1.071914270433146e-09;
    p = p * w + 3.773309315230924e-09;
    p = p * w + -8.504914198988601e-09;
    p = p * w + 1.4507979244604333e-08;
    p = p * w + -2.1888377038312212e-08;
    p = p * w + 3.489697880824557e-08;
    p = p * w + -7.010042468690825e-08;
    p = p * w + 2.0299308556246271e-07;
    p = p * w + -9.5058781859599e-07;
    p = p * w + 8.470960796899506e-06;
    p = p * w + -0.00020027160644363478;
    p = p * w + 0.04687499999999999;
    return p;
}

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
