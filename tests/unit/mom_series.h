/* The circular cylinder's exact solution (docs/mom.md section 5), the
 * MoM tests' reference, from glibc's jn and yn (test-only: the kind's own
 * Bessel functions are what is under test):
 * J_z(phi) = (2 / (pi k eta a)) sum_n j^-n e^{jn(phi - phi_i)} / H_n^(2)(ka),
 * sigma(phi) = (4/k) |sum_n J_n(ka) / H_n^(2)(ka) e^{jn(phi - phi_i)}|^2,
 * |n| <= ka + 10 (ka)^(1/3) + 10. */
#ifndef ORRERY_TESTS_MOM_SERIES_H
#define ORRERY_TESTS_MOM_SERIES_H

#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "mom/mom.h"

static double complex series_hankel2(int n, double x)
{
    const double complex h = jn(abs(n), x) - I * yn(abs(n), x);
    return n < 0 && n % 2 ? -h : h;
}

static int series_terms(double ka)
{
    return (int)ceil(ka + 10 * cbrt(ka) + 10);
}

/* J_z on the circle at angle phi, incidence phi_i (radians). */
static double complex exact_current(double k, double a, double phi, double phi_i)
{
    const double ka = k * a;
    double complex sum = 0;
    for (int n = -series_terms(ka); n <= series_terms(ka); n++)
        sum += cpow(I, -n) * cexp(I * n * (phi - phi_i)) / series_hankel2(n, ka);
    return 2 / (M_PI * k * MOM_ETA * a) * sum;
}

/* The echo width, length units. */
static double exact_echo(double k, double a, double phi, double phi_i)
{
    const double ka = k * a;
    double complex sum = 0;
    for (int n = -series_terms(ka); n <= series_terms(ka); n++)
        sum += jn(n, ka) / series_hankel2(n, ka) * cexp(I * n * (phi - phi_i));
    return 4 / k * cabs(sum) * cabs(sum);
}

#endif
