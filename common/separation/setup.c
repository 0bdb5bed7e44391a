/* Derived setup: Gauss-Legendre nodes, survey geometry, the per-member model
 * constants and the per-area r and nu tables.
 *
 * Several expressions keep the upstream application's arithmetic form
 * although an algebraically equal one exists (cos(90 - x) for sin x, the
 * law-of-cosines x for the stream centre, pow rather than exp10): the stream
 * integrals must agree with the published values to 1e-12 absolute, i.e. to
 * a few ulps, and these forms are systematic, not random, in their rounding. */
#include "separation.h"
#include "nodes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEP_GL_EPS 3.0e-11
#define SEP_SIGMA_NEGLIGIBLE 1.0e-4

#define d2r sep_d2r
#define r2d sep_r2d
static inline double cube(double x) { return x * x * x; }

void sep_gauss_legendre(int n, double *x, double *w)
{
    int m = (n + 1) / 2;
    for (int i = 1; i <= m; i++) {
        double z = cos(M_PI * (i - 0.25) / (n + 0.5));
        double z1, pp;
        do {
            double p1 = 1.0, p2 = 0.0;
            for (int j = 1; j <= n; j++) {
                double p3 = p2;
                p2 = p1;
                p1 = ((2.0 * j - 1.0) * z * p2 - (j - 1.0) * p3) / j;
            }
            /* p1 = P_n(z), p2 = P_{n-1}(z); pp = P_n'(z) */
            pp = n * (z * p1 - p2) / (z * z - 1.0);
            z1 = z;
            z = z1 - p1 / pp;
        } while (fabs(z - z1) > SEP_GL_EPS);
        x[i - 1] = -z;
        x[n - i] = z;
        w[i - 1] = 2.0 / ((1.0 - z * z) * pp * pp);
        w[n - i] = w[i - 1];
    }
}

/* Heliocentric (l, b in degrees, r) -> galactocentric xyz, with x through
 * the law of cosines as upstream computed the stream centres. */
static void lbr_to_xyz_stream_centre(double l, double b, double r, double xyz[3])
{
    double bsin = sin(d2r(b)), bcos = cos(d2r(b));
    double lsin = sin(d2r(l)), lcos = cos(d2r(l));
    double zp = r * bcos;
    double d = sqrt(SEP_SUN_R0 * SEP_SUN_R0 + zp * zp - 2.0 * SEP_SUN_R0 * zp * lcos);
    xyz[0] = (zp * zp - SEP_SUN_R0 * SEP_SUN_R0 - d * d) / (2.0 * SEP_SUN_R0);
    xyz[1] = zp * lsin;
    xyz[2] = r * bsin;
}

orr_status sep_model_consts_init(const sep_params *p, const sep_model_options *opt, sep_model model,
                                 sep_model_consts *mc, orr_error *err)
{
    memset(mc, 0, sizeof *mc);
    if (model == SEP_MODEL_AUTO)
        model = p->file_model;
    if ((opt->modfit || opt->newbg) && model != SEP_MODEL_V146)
        return orr_fail(err, ORR_ERR_USAGE, "--%s needs the v146 model (use --model v146)",
                        opt->modfit ? "modfit" : "newbg");
    orr_status s = sep_params_validate(p, model, err);
    if (s != ORR_OK)
        return s;

    mc->model = model;
    mc->modfit = opt->modfit;
    mc->newbg = opt->newbg;
    mc->convolve = p->convolve;
    mc->wedge = p->wedge;
    mc->alpha = p->bg[0];
    mc->q = p->bg[1];
    mc->q_inv_sqr = 1.0 / (mc->q * mc->q);
    mc->r0 = p->bg[2];
    mc->delta = p->bg[3];
    mc->alpha_delta3 = 3.0 - mc->alpha + mc->delta;
    mc->bg_fast = mc->alpha == 1.0 && mc->delta == 1.0;
    if (model == SEP_MODEL_V146) {
        mc->xr = 1.0;
        mc->halo_weight = p->background_weight;
        mc->disk_weight = opt->newbg ? 0.0 : 1.0 - p->background_weight;
        mc->exp_bg_weight = 1.0;
    } else {
        mc->xr = 3.0 * SEP_STDEV;
        mc->halo_weight = 1.0;
        mc->disk_weight = 0.0;
        mc->exp_bg_weight = exp(p->background_weight);
    }
    mc->n_streams = p->n_streams;
    double sum = mc->exp_bg_weight;
    for (int i = 0; i < p->n_streams; i++) {
        const sep_stream *st = &p->streams[i];
        double l, b;
        mc->stream_a[i][0] = sin(st->theta) * cos(st->phi);
        mc->stream_a[i][1] = sin(st->theta) * sin(st->phi);
        mc->stream_a[i][2] = cos(st->theta);
        sep_gc_to_lb(p->wedge, st->mu, 0.0, &l, &b);
        lbr_to_xyz_stream_centre(l, b, st->r, mc->stream_c[i]);
        mc->stream_sigma_sq2[i] = 2.0 * st->sigma * st->sigma;
        mc->stream_neg_inv_sigma_sq2[i] = -1.0 / mc->stream_sigma_sq2[i];
        mc->stream_negligible[i] = fabs(st->sigma) <= SEP_SIGMA_NEGLIGIBLE;
        mc->exp_stream_weight[i] = exp(st->weight);
        sum += mc->exp_stream_weight[i];
    }
    mc->sum_exp_weights = sum * 0.001;
    return ORR_OK;
}

void sep_column_direction(const sep_model_consts *mc, const sep_area_tables *t, int nu_step,
                          int mu_step, sep_direction *d)
{
    sep_gc_direction(mc->wedge, t->mu_min + (mu_step + 0.5) * t->mu_step, t->nu[nu_step], d);
}

/* Detection efficiency (SDSS falloff sigmoid) over r'^3, times xr. */
static double reff_xr_rp3(const sep_model_consts *mc, double r_prime, double g_prime)
{
    double e = exp(1.6171 * (g_prime - 23.5877));
    double reff = 0.9402 / (e + 1.0);
    return reff * mc->xr / cube(r_prime);
}

static double mag_to_r(double g, double absm)
{
    return pow(10.0, (g - absm) / 5.0 + 1.0) / 1000.0;
}

/* Turnoff-star efficiency fit of the --modfit model (valid 0 < r < 80 kpc). */
static double modfit_eps(double r)
{
    static const double ay[8] = {5.61945007e2, -1.67343282e1, 1.09325822e-1, 1.34993610e-3,
                                 -1.42044161e-5, 0.0, 0.0, 0.0};
    static const double ar[8] = {8.55878159, -1.04891551e1, 3.51630757, -2.29741062e-1,
                                 6.72278105e-3, -1.01910181e-4, 7.82787167e-7, -2.41452056e-9};
    double total = 0.0, rk = 1.0;
    for (int k = 0; k < 8; k++) {
        total += (ay[k] + ar[k]) * rk;
        rk *= r;
    }
    return total / 532.0;
}

double sep_r_points(const sep_model_consts *mc, const sep_setup *s, double r_prime,
                    double *r_point, double *qw_r3_N)
{
    const double g_prime = 5.0 * (log10(r_prime * 1000.0) - 1.0) + SEP_ABS_MAG;
    const double k = reff_xr_rp3(mc, r_prime, g_prime);
    const int n = s->convolve;

    if (mc->model == SEP_MODEL_V146 && mc->modfit) {
        const double r_tilde = mag_to_r(g_prime, SEP_ABS_MAG);
        const double sigma_l = 0.36;
        const double sigma_r = 0.52 / (1.0 + exp(12.0 - r_tilde)) + 0.76;
        const double sigma_o = 0.5 * (sigma_l + sigma_r);
        const double coeff = 1.0 / (sigma_o * sqrt(2.0 * M_PI));
        const double eps = modfit_eps(r_tilde);
        for (int c = 0; c < n; c++) {
            double dx = s->dx[c];
            double g = g_prime - dx;
            double sigma = dx <= 0.0 ? sigma_l : sigma_r;
            r_point[c] = mag_to_r(g, SEP_ABS_MAG);
            double N = coeff * exp(-((g - g_prime) * (g - g_prime)) / (2.0 * sigma * sigma));
            qw_r3_N[c] = s->qgaus_w[c] * cube(r_point[c]) * N * eps;
        }
        return k;
    }

    const double coeff = 1.0 / (SEP_STDEV * sqrt(2.0 * M_PI));
    const double sign = mc->model == SEP_MODEL_V146 ? -1.0 : 1.0;
    for (int c = 0; c < n; c++) {
        double g = g_prime + sign * s->dx[c];
        r_point[c] = mag_to_r(g, SEP_ABS_MAG);
        double N = coeff * exp(-((g - g_prime) * (g - g_prime)) / (2.0 * SEP_STDEV * SEP_STDEV));
        qw_r3_N[c] = s->qgaus_w[c] * cube(r_point[c]) * N;
    }
    return k;
}

/* Without --modfit a star's nodes are r' times a fixed factor each
 * (mag_to_r(g' + sign dx) = r' 10^(sign dx / 5)) with fixed Gaussian
 * weights, so the per-node pow and exp can be done once for all stars. */
static void star_node_factors_init(const sep_model_consts *mc, sep_setup *s)
{
    s->star_factored = !(mc->model == SEP_MODEL_V146 && mc->modfit);
    if (!s->star_factored)
        return;
    const double coeff = 1.0 / (SEP_STDEV * sqrt(2.0 * M_PI));
    const double sign = mc->model == SEP_MODEL_V146 ? -1.0 : 1.0;
    for (int c = 0; c < s->convolve; c++) {
        s->star_ratio[c] = pow(10.0, sign * s->dx[c] / 5.0);
        s->star_weight[c] = s->qgaus_w[c] * coeff *
                            exp(-(s->dx[c] * s->dx[c]) / (2.0 * SEP_STDEV * SEP_STDEV));
    }
}

double sep_star_r_points(const sep_model_consts *mc, const sep_setup *s, double r_prime,
                         double *r_point, double *qw_r3_N)
{
    if (!s->star_factored)
        return sep_r_points(mc, s, r_prime, r_point, qw_r3_N);
    const double g_prime = 5.0 * (log10(r_prime * 1000.0) - 1.0) + SEP_ABS_MAG;
    for (int c = 0; c < s->convolve; c++) {
        r_point[c] = r_prime * s->star_ratio[c];
        qw_r3_N[c] = s->star_weight[c] * cube(r_point[c]);
    }
    return reff_xr_rp3(mc, r_prime, g_prime);
}

static void area_tables_free(sep_area_tables *t)
{
    free(t->irv);
    free(t->reff_xr_rp3);
    free(t->r_point);
    free(t->qw_r3_N);
    free(t->nu);
    free(t->id);
    memset(t, 0, sizeof *t);
}

static orr_status area_tables_init(const sep_model_consts *mc, const sep_setup *s,
                                   const sep_area *a, sep_area_tables *t, orr_error *err)
{
    const int n = s->convolve;
    const double r_step = (a->r.max - a->r.min) / a->r.steps;
    const double mu_step = (a->mu.max - a->mu.min) / a->mu.steps;
    const double nu_step = (a->nu.max - a->nu.min) / a->nu.steps;

    memset(t, 0, sizeof *t);
    t->r_steps = a->r.steps;
    t->mu_steps = a->mu.steps;
    t->nu_steps = a->nu.steps;
    t->mu_min = a->mu.min;
    t->mu_step = mu_step;
    t->irv = malloc((size_t)t->r_steps * sizeof(double));
    t->reff_xr_rp3 = malloc((size_t)t->r_steps * sizeof(double));
    t->r_point = malloc((size_t)t->r_steps * n * sizeof(double));
    t->qw_r3_N = malloc((size_t)t->r_steps * n * sizeof(double));
    t->nu = malloc((size_t)t->nu_steps * sizeof(double));
    t->id = malloc((size_t)t->nu_steps * sizeof(double));
    if (!t->irv || !t->reff_xr_rp3 || !t->r_point || !t->qw_r3_N || !t->nu || !t->id) {
        area_tables_free(t);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the integration tables (%d r steps)",
                        a->r.steps);
    }
    for (int i = 0; i < t->r_steps; i++) {
        double g = a->r.min + i * r_step;
        double r_lo = pow(10.0, (g - 14.2) / 5.0);
        double r_hi = pow(10.0, (g + r_step - 14.2) / 5.0);
        double r_prime = (r_hi + r_lo) / 2.0;
        t->irv[i] = d2r(((cube(r_hi) - cube(r_lo)) / 3.0) * mu_step);
        t->reff_xr_rp3[i] = sep_r_points(mc, s, r_prime, &t->r_point[(size_t)i * n],
                                         &t->qw_r3_N[(size_t)i * n]);
    }
    for (int j = 0; j < t->nu_steps; j++) {
        double nu = a->nu.min + j * nu_step;
        t->id[j] = cos(d2r(90.0 - nu - nu_step)) - cos(d2r(90.0 - nu));
        t->nu[j] = nu + 0.5 * nu_step;
    }
    return ORR_OK;
}

orr_status sep_setup_init(const sep_params *p, const sep_model_consts *mc, sep_setup *s,
                          orr_error *err)
{
    memset(s, 0, sizeof *s);
    s->convolve = p->convolve;
    double x[SEP_MAX_CONVOLVE];
    sep_gauss_legendre(p->convolve, x, s->qgaus_w);
    for (int c = 0; c < p->convolve; c++)
        s->dx[c] = 3.0 * SEP_STDEV * x[c];
    star_node_factors_init(mc, s);
    s->n_areas = p->n_areas;
    for (int a = 0; a < p->n_areas; a++) {
        orr_status st = area_tables_init(mc, s, &p->areas[a], &s->areas[a], err);
        if (st != ORR_OK) {
            sep_setup_free(s);
            return st;
        }
        s->total_cells += (long long)p->areas[a].r.steps * p->areas[a].mu.steps * p->areas[a].nu.steps;
    }
    return ORR_OK;
}

void sep_setup_free(sep_setup *s)
{
    for (int a = 0; a < s->n_areas; a++)
        area_tables_free(&s->areas[a]);
    s->n_areas = 0;
}
