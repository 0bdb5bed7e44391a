/* One entry of the MoM system, written once for the C fill, the CUDA fill
 * kernels (ORR_HD) and the OpenCL ones (this file embedded in their
 * source): the impedance entry Z_mn and the incident field at a
 * collocation point (docs/mom.md section 1). Complex values as (re, im)
 * pairs: OpenCL C has no complex type. The echo width is computed on the
 * host for every backend (far_field.c). */
#ifndef ORRERY_MOM_ENTRIES_H
#define ORRERY_MOM_ENTRIES_H

#include "../portable.h"
#include "bessel.h"

#define MOM_EULER_GAMMA_EXP 1.781072418   /* gamma = e^{Euler's constant}, as the spec gives it */
#define MOM_E 2.718281828459045

/* Z_mn, m != n: (k eta / 4) w_n H0^(2)(k R_mn). */
static inline ORR_HD void mom_z_far(double k_eta_4, double k, double w_n, double dx, double dy,
                                    double *re, double *im)
{
    double h_re, h_im;
    mom_h02(k * sqrt(dx * dx + dy * dy), &h_re, &h_im);
    *re = k_eta_4 * w_n * h_re;
    *im = k_eta_4 * w_n * h_im;
}

/* Z_mm: the self term of a flat cell with the pulse's log singularity
 * integrated in closed form, (k eta / 4) w [1 - j (2/pi) ln(gamma k w / 4e)]. */
static inline ORR_HD void mom_z_self(double k_eta_4, double k, double w, double *re, double *im)
{
    *re = k_eta_4 * w;
    *im = -k_eta_4 * w * (2.0 / M_PI) * log(MOM_EULER_GAMMA_EXP * k * w / (4.0 * MOM_E));
}

/* The incident plane wave E_z = exp(-jk(x cos phi + y sin phi)) at (x, y);
 * cos_phi, sin_phi of the direction it travels. */
static inline ORR_HD void mom_incident(double k, double cos_phi, double sin_phi, double x, double y,
                                       double *re, double *im)
{
    const double phase = -k * (x * cos_phi + y * sin_phi);
    *re = cos(phase);
    *im = sin(phase);
}

#endif
