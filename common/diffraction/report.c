/* A solved point's amplitudes and efficiencies from its field
 * (docs/diffraction.md sections 1 and 3), and the results table (section 4). */
#include "report.h"

#include <math.h>
#include <string.h>

#include "config.h"
#include "../finite.h"
#include "zop.h"

const char *const dif_point_status_words[DIF_POINT_STATUSES] = {"pending", "ok", "not_converged",
                                                                 "unbalanced"};

/* Whether order q propagates in the superstrate (up) and, for a lossless
 * substrate, in the substrate (down). */
static int propagates_up(const dif_point *pt, int q)
{
    return cimag(pt->kz1[q]) == 0 && creal(pt->kz1[q]) > 0;
}

static int propagates_down(const dif_point *pt, int q)
{
    return cimag(pt->eps2) == 0 && cimag(pt->kz2[q]) == 0 && creal(pt->kz2[q]) > 0;
}

/* r and t of a propagating order q from w = deps * u: sums over the
 * slices of w times the integral of e^{-+i kz z} over the slice (midpoint
 * z, thickness h), 2 sin(kz h/2)/kz e^{-+i kz z}, a form without
 * cancellation when kz h is small. The upward sum is taken only for an
 * order that propagates up (kz real; for an evanescent one it grows with
 * z and r is not reported). For an order evanescent in the superstrate
 * (Im kz > 0) in a thick slice, sin overflows and e^{i kz z} underflows
 * (inf times 0 gave a 1e6 nm layer T_total nan); there the downward
 * integral is e^{i kz zb} (e^{i kz h} - 1)/(i kz) from the slice's bottom
 * zb = z - h/2 >= 0, every exponential decaying. */
static void amplitudes(const dif_setup *s, const dif_point *pt, const double complex *w, int q,
                       int up_too, double complex *r, double complex *t)
{
    const double complex *mt = pt->mt + (size_t)q * DIF_MODE_TABLE;
    const double complex kz = pt->kz1[q], rho = mt[DIF_MT_RHO], c = mt[DIF_MT_C];
    double complex up = 0, down = 0;
    for (int i = 0; i < s->nz; i++) {
        const double h = s->slice_h[s->layer_of_slice[i]], z = s->z[i];
        const double complex wi = w[(size_t)i * s->n_modes + q];
        if (cimag(kz) * h < 600) {   /* sinh(300) = 1e130: far from overflow */
            const double complex sw = 2 * csin(kz * h / 2) / kz * wi;
            if (up_too)
                up += sw * cexp(-I * kz * z);
            down += sw * cexp(I * kz * z);
        } else {
            down += cexp(I * kz * (z - h / 2)) * (cexp(I * kz * h) - 1) / (I * kz) * wi;
        }
    }
    const int is00 = q == pt->mode00;
    const double complex rho00 = pt->mt[(size_t)pt->mode00 * DIF_MODE_TABLE + DIF_MT_RHO];
    *r = up_too ? (is00 ? rho00 : 0) + c * (up + rho * down) : 0;
    *t = (is00 ? 1 + rho00 : 0) + c * (1 + rho) * down;
}

void dif_point_outputs(const dif_setup *s, const dif_point *pt, const double complex *w,
                       dif_point_result *res, double *R, double *T)
{
    const double kz00 = creal(pt->kz1[pt->mode00]);
    const int lossless = cimag(pt->eps2) == 0;
    res->r_total = 0;
    res->t_total = lossless ? 0 : NAN;
    for (int q = 0; q < s->n_modes; q++) {
        const int up = propagates_up(pt, q), down = propagates_down(pt, q);
        R[q] = T[q] = NAN;
        if (!up && !down)
            continue;
        double complex r, t;
        amplitudes(s, pt, w, q, up, &r, &t);
        if (q == pt->mode00) {
            res->r00[0] = creal(r);
            res->r00[1] = cimag(r);
        }
        R[q] = up ? creal(r * conj(r)) * creal(pt->kz1[q]) / kz00 : 0;
        T[q] = !lossless ? NAN : down ? creal(t * conj(t)) * creal(pt->kz2[q]) / kz00 : 0;
        res->r_total += R[q];
        if (lossless)
            res->t_total += T[q];
    }
}

/* Every material the point's light meets is lossless at its wavelength:
 * the superstrate (always), the substrate, each layer's background and
 * shapes. A material the point cannot be evaluated at counts as lossy
 * (the plan has refused such points already). */
static int stack_lossless(const dif_workunit *wu, const dif_point *pt)
{
    if (cimag(pt->eps1) != 0 || cimag(pt->eps2) != 0)
        return 0;
    for (int l = 0; l < wu->n_layers; l++) {
        const dif_layer *ly = &wu->layers[l];
        for (int k = -1; k < ly->n_shapes; k++) {
            const int m = k < 0 ? ly->background : wu->shapes[ly->first_shape + k].material;
            double complex eps;
            if (dif_material_eps(wu, m, pt->lambda, &eps, NULL) != ORR_OK || cimag(eps) != 0)
                return 0;
        }
    }
    return 1;
}

int dif_energy_balance(double r_total, double t_total, int lossy_substrate)
{
    const double out = lossy_substrate ? r_total : r_total + t_total;
    if (!(out <= 1 + DIF_ENERGY_TOLERANCE))
        return DIF_BALANCE_UNBALANCED;
    if (!lossy_substrate && !(out >= 1 - DIF_ENERGY_TOLERANCE))
        return DIF_BALANCE_IF_LOSSLESS;
    return DIF_BALANCE_OK;
}

int dif_point_balance(const dif_workunit *wu, const dif_point *pt, const dif_point_result *res)
{
    switch (dif_energy_balance(res->r_total, res->t_total, cimag(pt->eps2) != 0)) {
    case DIF_BALANCE_UNBALANCED:
        return DIF_POINT_UNBALANCED;
    case DIF_BALANCE_IF_LOSSLESS:
        return stack_lossless(wu, pt) ? DIF_POINT_UNBALANCED : DIF_POINT_OK;
    default:
        return DIF_POINT_OK;
    }
}

/* A number the table must have finite (NAN_OK: or nan, a lossy
 * substrate's T) */
static int unfit(double v, int nan_ok)
{
    return !isfinite(v) && !(nan_ok && isnan(v));
}

orr_status dif_point_check_finite(const dif_workunit *wu, const dif_setup *s, const dif_point *pt,
                                  int p, const dif_point_result *res, const double *R,
                                  const double *T, orr_error *err)
{
    const int lossy = cimag(pt->eps2) != 0;
    const char *file = wu->path;
    if (unfit(res->residual, 0))
        return orr_nonfinite(err, file, res->residual, "point %d: its residual", p);
    if (unfit(res->r00[0], 0) || unfit(res->r00[1], 0))
        return orr_nonfinite(err, file, isfinite(res->r00[0]) ? res->r00[1] : res->r00[0],
                             "point %d: r00 (%g%+gi)", p, res->r00[0], res->r00[1]);
    if (unfit(res->r_total, 0))
        return orr_nonfinite(err, file, res->r_total, "point %d: R_total", p);
    if (unfit(res->t_total, lossy))
        return orr_nonfinite(err, file, res->t_total, "point %d: T_total", p);
    for (int q = 0; q < s->n_modes; q++) {
        const int m = q % s->kx - wu->mx, n = q / s->kx - wu->my;
        if (!propagates_up(pt, q) && !propagates_down(pt, q))
            continue;   /* not listed */
        if (unfit(R[q], 0))
            return orr_nonfinite(err, file, R[q], "point %d: R of order (%d, %d)", p, m, n);
        if (unfit(T[q], lossy))
            return orr_nonfinite(err, file, T[q], "point %d: T of order (%d, %d)", p, m, n);
    }
    return ORR_OK;
}

void dif_write_header(FILE *f, const dif_workunit *wu, const dif_setup *s, const char *backend,
                      uint64_t work_unit)
{
    fprintf(f, "# orrery-diffraction-results 1\n");
    fprintf(f, "# application orrery %s %s double %s\n", PACKAGE_VERSION, ORR_PLATFORM, backend);
    fprintf(f, "# work_unit %016llx\n", (unsigned long long)work_unit);
    for (int i = 0; i < wu->n_params; i++)
        fprintf(f, "# parameter %s %s\n", wu->param_name[i], wu->param_text[i]);
    fprintf(f, "# periods %.17g %.17g orders %d %d slices %d\n", wu->period_x, wu->period_y,
            wu->mx, wu->my, s->nz);
    fprintf(f, "# columns: point lambda theta phi status iterations residual r00_re r00_im "
               "R_total T_total absorbed n_orders (m n R T)...\n");
}

/* The widest a %.17g double prints ("-1.2345678901234567e-100"), and
 * what the others print exactly. */
#define DIF_VALUE_BYTES 24

static double width_g(double v)
{
    char b[64];
    return snprintf(b, sizeof b, "%.17g", v);
}

static double width_d(long v)
{
    char b[32];
    return snprintf(b, sizeof b, "%ld", v);
}

double dif_point_line_bytes(const dif_workunit *wu, const dif_setup *s, int p, const dif_point *pt)
{
    double lambda, theta, phi;
    dif_point_angles(wu, p, &lambda, &theta, &phi);
    /* "point P L T F not_converged ITERATIONS" and seven values, the count */
    const int lossy = cimag(pt->eps2) != 0;   /* T_total and absorbed "nan" */
    double n = 6 + width_d(p) + width_g(lambda) + width_g(theta) + width_g(phi) + 13 +
               width_d(wu->solver.max_iterations) + (lossy ? 5.0 : 7.0) * (1 + DIF_VALUE_BYTES) +
               (lossy ? 8 : 0) + 1 + width_d(s->n_modes) + 1;
    for (int q = 0; q < s->n_modes; q++)
        if (propagates_up(pt, q) || propagates_down(pt, q))
            n += 4 + width_d(q % s->kx - wu->mx) + width_d(q / s->kx - wu->my) + DIF_VALUE_BYTES - 1 +
                 (lossy ? 3 : DIF_VALUE_BYTES - 1);   /* R, T >= 0: no sign */
    return n;
}

double dif_header_bytes(const dif_workunit *wu)
{
    return 512 + wu->n_params * (13.0 + DIF_NAME_LEN + 64) + 32;
}

void dif_write_point(FILE *f, const dif_workunit *wu, const dif_setup *s, int p,
                     const dif_point_result *res, const double *R, const double *T)
{
    double lambda, theta, phi;
    dif_point_angles(wu, p, &lambda, &theta, &phi);
    int listed = 0;
    for (int q = 0; q < s->n_modes; q++)
        listed += !isnan(R[q]);
    fprintf(f, "point %d %.17g %.17g %.17g %s %d %.17g %.17g %.17g %.17g %.17g %.17g %d", p,
            lambda, theta, phi, dif_point_status_words[res->status],
            res->iterations, res->residual, res->r00[0], res->r00[1], res->r_total, res->t_total,
            1 - res->r_total - res->t_total, listed);
    for (int q = 0; q < s->n_modes; q++)
        if (!isnan(R[q]))
            fprintf(f, " %d %d %.17g %.17g", q % s->kx - wu->mx, q / s->kx - wu->my, R[q], T[q]);
    fputc('\n', f);
}
