/* A solved point's amplitudes and efficiencies from its field
 * (docs/diffraction.md sections 1 and 3), and the results table (section 4). */
#include "report.h"

#include <math.h>
#include <string.h>

#include "config.h"
#include "zop.h"

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

/* r and t of a propagating order q from w = deps * u. */
static void amplitudes(const dif_setup *s, const dif_point *pt, const double complex *w, int q,
                       double complex *r, double complex *t)
{
    const double complex *mt = pt->mt + (size_t)q * DIF_MODE_TABLE;
    const double complex kz = pt->kz1[q], rho = mt[DIF_MT_RHO], c = mt[DIF_MT_C];
    double complex up = 0, down = 0;
    for (int i = 0; i < s->nz; i++) {
        const double h = s->slice_h[s->layer_of_slice[i]];
        const double complex sw = 2 * csin(kz * h / 2) / kz * w[(size_t)i * s->n_modes + q];
        up += sw * cexp(-I * kz * s->z[i]);
        down += sw * cexp(I * kz * s->z[i]);
    }
    const int is00 = q == pt->mode00;
    const double complex rho00 = pt->mt[(size_t)pt->mode00 * DIF_MODE_TABLE + DIF_MT_RHO];
    *r = (is00 ? rho00 : 0) + c * (up + rho * down);
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
        amplitudes(s, pt, w, q, &r, &t);
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
            lambda, theta, phi, res->status == DIF_POINT_OK ? "ok" : "not_converged",
            res->iterations, res->residual, res->r00[0], res->r00[1], res->r_total, res->t_total,
            1 - res->r_total - res->t_total, listed);
    for (int q = 0; q < s->n_modes; q++)
        if (!isnan(R[q]))
            fprintf(f, " %d %d %.17g %.17g", q % s->kx - wu->mx, q / s->kx - wu->my, R[q], T[q]);
    fputc('\n', f);
}
