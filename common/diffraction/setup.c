/* The discretisation of a work unit (orders, slices, the padded grid,
 * sizes and costs) and each point's tables: wave numbers, the Rayleigh
 * check, and the z operator's per-order, per-layer factors (zop.h),
 * computed so that no evanescent order overflows. */
#include "diffraction.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"
#include "zop.h"

/* Above this, e^{|Im kz| h} would come near overflow: use the forms that
 * only ever exponentiate i kz times a non-negative length. */
#define DIF_SAFE_EXP 300.0

/* The padded grid's side: a power of two >= n, and >= 4, the smallest
 * the GPUs' FFT kernels take. */
static int pow2_at_least(int n)
{
    int p = 4;
    while (p < n)
        p *= 2;
    return p;
}

void dif_point_angles(const dif_workunit *wu, int p, double *lambda, double *theta, double *phi)
{
    *phi = wu->phi[p % wu->n_phi];
    p /= wu->n_phi;
    *theta = wu->theta[p % wu->n_theta];
    *lambda = wu->wavelengths[p / wu->n_theta];
}

static void setup_costs(const dif_workunit *wu, dif_setup *s)
{
    const double grid = (double)s->fft_x * s->fft_y;
    const double fft = 5.0 * grid * log2(grid);          /* one complex FFT */
    s->matvec_flops = s->nz * (2 * fft + 6 * grid) + 40.0 * s->unknowns;
    /* The solver method's vectors (method.h: its sizes) with those a
     * checkpoint saves, or, while one is restored, the saved ones three
     * times (read, copied into the payload, written back to the solver:
     * its other slots are filled only after the read copy is freed); the
     * contrast spectra of every slice, the point's z tables and the
     * method's own host state (GMRES's Hessenberg matrix). */
    const dif_method_sizes size = dif_solve_method_of(&wu->solver)->sizes(&wu->solver);
    const double vectors = size.vectors, saved = size.saved;
    const double tables = (double)s->n_modes * (2 + DIF_MODE_TABLE + s->n_layers * DIF_LAYER_TABLE);
    s->point_bytes = 16.0 * (fmax(vectors + saved, 3 * saved) * (double)s->unknowns + s->nz * grid + tables +
                             size.host_complex);
}

orr_status dif_setup_init(const dif_workunit *wu, dif_setup *s, orr_error *err)
{
    memset(s, 0, sizeof *s);
    s->kx = 2 * wu->mx + 1;
    s->ky = 2 * wu->my + 1;
    s->n_modes = s->kx * s->ky;
    s->fft_x = pow2_at_least(2 * s->kx - 1);
    s->fft_y = wu->period_y > 0 ? pow2_at_least(2 * s->ky - 1) : 1;
    s->n_layers = wu->n_layers;
    s->layer_first = malloc((size_t)(s->n_layers + 1) * sizeof *s->layer_first);
    s->slice_h = malloc((size_t)s->n_layers * sizeof *s->slice_h);
    for (int l = 0; l < wu->n_layers; l++)
        s->nz += wu->layers[l].slices;
    s->layer_of_slice = malloc((size_t)s->nz * sizeof *s->layer_of_slice);
    s->z = malloc((size_t)s->nz * sizeof *s->z);
    if (!s->layer_first || !s->slice_h || !s->layer_of_slice || !s->z) {
        dif_setup_free(s);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for %d slices", s->nz);
    }
    int i = 0;
    double z = 0;
    for (int l = 0; l < s->n_layers; l++) {   /* bottom up: the file's last layer first */
        const dif_layer *ly = &wu->layers[wu->n_layers - 1 - l];
        s->layer_first[l] = i;
        s->slice_h[l] = ly->thickness / ly->slices;
        for (int k = 0; k < ly->slices; k++, i++) {
            s->layer_of_slice[i] = l;
            s->z[i] = z + (k + 0.5) * s->slice_h[l];
        }
        z += ly->thickness;
    }
    s->layer_first[s->n_layers] = s->nz;
    s->height = z;
    s->unknowns = (size_t)s->nz * s->n_modes;
    s->n_points = wu->n_wavelengths * wu->n_theta * wu->n_phi;
    setup_costs(wu, s);
    return ORR_OK;
}

void dif_setup_free(dif_setup *s)
{
    free(s->layer_first);
    free(s->slice_h);
    free(s->layer_of_slice);
    free(s->z);
    memset(s, 0, sizeof *s);
}

/* ---- one point ---- */

/* sqrt with Im >= 0, and Re >= 0 when the result is real. */
static double complex kz_branch(double complex k2)
{
    double complex k = csqrt(k2);
    if (cimag(k) < 0 || (cimag(k) == 0 && creal(k) < 0))
        k = -k;
    return k;
}

/* e^{i kz a} 2 sin(kz h/2)/kz for a >= h/2: the direct product while it
 * cannot overflow, else the difference of two bounded exponentials. */
static double complex step_times_s(double complex kz, double a, double h)
{
    if (fabs(cimag(kz)) * h / 2 < DIF_SAFE_EXP)
        return cexp(I * kz * a) * 2 * csin(kz * h / 2) / kz;
    return (cexp(I * kz * (a + h / 2)) - cexp(I * kz * (a - h / 2))) / (I * kz);
}

/* The slice's own integral 2 (e^{i kz h/2} - 1)/(i kz), without the
 * cancellation of the difference when |kz h| is small. */
static double complex self_integral(double complex kz, double h)
{
    if (fabs(cimag(kz)) * h / 4 < DIF_SAFE_EXP)
        return 4 * csin(kz * h / 4) * cexp(I * kz * h / 4) / kz;
    return 2 * (cexp(I * kz * h / 2) - 1) / (I * kz);
}

static void order_tables(const dif_setup *s, double complex kz, double complex *lay)
{
    for (int l = 0; l < s->n_layers; l++) {
        const double h = s->slice_h[l];
        double complex *t = lay + l * DIF_LAYER_TABLE;
        t[DIF_LT_P] = cexp(I * kz * h);
        t[DIF_LT_PS] = step_times_s(kz, h, h);
        t[DIF_LT_D] = self_integral(kz, h);
        if (l + 1 < s->n_layers) {
            const double h2 = s->slice_h[l + 1], gap = (h + h2) / 2;
            t[DIF_LT_G] = cexp(I * kz * gap);
            t[DIF_LT_GSU] = step_times_s(kz, gap, h);
            t[DIF_LT_GSD] = step_times_s(kz, gap, h2);
        } else {
            t[DIF_LT_G] = t[DIF_LT_GSU] = t[DIF_LT_GSD] = 0;
        }
    }
}

/* kx, ky of mode q at the point's incidence. */
static void mode_k(const dif_workunit *wu, const dif_setup *s, double kx0, double ky0, int q,
                   double *kx, double *ky)
{
    const int m = q % s->kx - wu->mx, n = q / s->kx - wu->my;
    *kx = kx0 + 2 * M_PI * m / wu->period_x;
    *ky = ky0 + (wu->period_y > 0 ? 2 * M_PI * n / wu->period_y : 0);
}

/* A grazing order (Rayleigh anomaly) refused, naming the point, the
 * order and, as every work-unit error does, a file:line: key: the
 * wavelength's statement (the usual cure), with the angles' lines. */
static orr_status rayleigh_refusal(const dif_workunit *wu, const dif_setup *s, int p,
                                   const dif_point *pt, int q, orr_error *err)
{
    char phi_at[32] = "";
    if (wu->phi_line)
        snprintf(phi_at, sizeof phi_at, ", phi: line %d", wu->phi_line);
    return orr_fail(err, ORR_ERR_INPUT,
                    "%s:%d: %s: point %d (lambda %.9g nm, theta %.9g, phi %.9g): order (%d, %d) "
                    "grazes the superstrate (a Rayleigh anomaly, where the model is singular): "
                    "move the wavelength or the angle (theta: line %d%s) a little",
                    wu->path, wu->wavelengths_line, wu->wavelengths_key, p, pt->lambda,
                    pt->theta, pt->phi, q % s->kx - wu->mx, q / s->kx - wu->my, wu->theta_line,
                    phi_at);
}

/* Wave numbers of every order; a grazing one (Rayleigh anomaly) refused. */
static orr_status point_waves(const dif_workunit *wu, const dif_setup *s, int p, dif_point *pt,
                              orr_error *err)
{
    dif_point_angles(wu, p, &pt->lambda, &pt->theta, &pt->phi);
    orr_status st = dif_material_eps(wu, wu->superstrate, pt->lambda, &pt->eps1, err);
    if (st == ORR_OK)
        st = dif_material_eps(wu, wu->substrate, pt->lambda, &pt->eps2, err);
    if (st != ORR_OK)
        return st;
    pt->k0 = 2 * M_PI / pt->lambda;
    const double k1 = pt->k0 * sqrt(creal(pt->eps1));
    const double th = pt->theta * M_PI / 180, ph = pt->phi * M_PI / 180;
    const double kx0 = k1 * sin(th) * cos(ph), ky0 = k1 * sin(th) * sin(ph);
    const double k02 = pt->k0 * pt->k0;
    pt->mode00 = wu->my * s->kx + wu->mx;
    for (int q = 0; q < s->n_modes; q++) {
        double kx, ky;
        mode_k(wu, s, kx0, ky0, q, &kx, &ky);
        pt->kz1[q] = kz_branch(k02 * pt->eps1 - kx * kx - ky * ky);
        pt->kz2[q] = kz_branch(k02 * pt->eps2 - kx * kx - ky * ky);
        if (cabs(pt->kz1[q]) < 1e-6 * k1)
            return rayleigh_refusal(wu, s, p, pt, q, err);
    }
    return ORR_OK;
}

/* A point's arrays: the wave numbers, and with tables the z operator's
 * (the Rayleigh check needs only the first). */
static orr_status point_alloc(const dif_setup *s, int tables, dif_point *pt, orr_error *err)
{
    memset(pt, 0, sizeof *pt);
    const size_t m = (size_t)s->n_modes;
    pt->kz1 = malloc(m * sizeof *pt->kz1);
    pt->kz2 = malloc(m * sizeof *pt->kz2);
    if (tables) {
        pt->mt = malloc(m * DIF_MODE_TABLE * sizeof *pt->mt);
        pt->lay = malloc(m * (size_t)s->n_layers * DIF_LAYER_TABLE * sizeof *pt->lay);
    }
    if (!pt->kz1 || !pt->kz2 || (tables && (!pt->mt || !pt->lay))) {
        dif_point_free(pt);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for a point's tables");
    }
    return ORR_OK;
}

orr_status dif_point_init(const dif_workunit *wu, const dif_setup *s, int p, dif_point *pt,
                          orr_error *err)
{
    orr_status st = point_alloc(s, 1, pt, err);
    if (st == ORR_OK)
        st = point_waves(wu, s, p, pt, err);
    if (st != ORR_OK) {
        dif_point_free(pt);
        return st;
    }
    const double k02 = pt->k0 * pt->k0, h0 = s->slice_h[0];
    for (int q = 0; q < s->n_modes; q++) {
        const double complex kz = pt->kz1[q], kz2 = pt->kz2[q];
        double complex *mt = pt->mt + (size_t)q * DIF_MODE_TABLE;
        mt[DIF_MT_E0] = cexp(I * kz * h0 / 2);
        mt[DIF_MT_E0S0] = step_times_s(kz, h0 / 2, h0);
        mt[DIF_MT_RHO] = (kz - kz2) / (kz + kz2);
        mt[DIF_MT_C] = I * k02 / (2 * kz);
        order_tables(s, kz, pt->lay + (size_t)q * s->n_layers * DIF_LAYER_TABLE);
    }
    return ORR_OK;
}

orr_status dif_point_check(const dif_workunit *wu, const dif_setup *s, int p, dif_point *out,
                           orr_error *err)
{
    dif_point pt;
    orr_status st = point_alloc(s, 0, &pt, err);
    if (st == ORR_OK)
        st = point_waves(wu, s, p, &pt, err);
    if (out)
        *out = pt;
    else
        dif_point_free(&pt);
    return st;
}

void dif_point_free(dif_point *pt)
{
    free(pt->kz1);
    free(pt->kz2);
    free(pt->mt);
    free(pt->lay);
    memset(pt, 0, sizeof *pt);
}
