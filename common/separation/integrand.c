/* The scalar reference integrand: one (l, b) direction, all magnitude
 * nodes, background and streams. Every other path (SIMD, GPU) is tested
 * against this one, so it favours plain arithmetic in upstream's order over
 * speed. */
#include <math.h>
#include <string.h>

#include "../backend.h"

static inline double cube(double x) { return x * x * x; }

double sep_bg_node(const sep_model_consts *mc, double x, double y, double z, double rg, double qw)
{
    double h;
    if (mc->newbg) {
        double n_exp = rg < mc->r0 ? mc->alpha : mc->delta;
        return qw * pow(SEP_SUN_R0 / rg, n_exp);
    }
    if (mc->bg_fast)
        h = qw / (rg * cube(rg + mc->r0));
    else
        h = qw / (pow(rg, mc->alpha) * pow(rg + mc->r0, mc->alpha_delta3));
    if (mc->disk_weight != 0.0 || mc->halo_weight != 1.0) {
        const double R = sqrt(x * x + y * y);
        const double disk = qw * exp(R * SEP_DISK_INV_LENGTH + fabs(z) * SEP_DISK_INV_HEIGHT);
        h = mc->halo_weight * h + mc->disk_weight * disk;
    }
    return h;
}

/* Sum over the convolution nodes for one direction: returns the background
 * sum and fills st[s], both without the K factor. */
static double node_sums(const sep_model_consts *mc, const sep_direction *d, const double *r_point,
                        const double *qw_r3_N, int n, double *st)
{
    const double lsin = d->lsin, lcos = d->lcos, bsin = d->bsin, bcos = d->bcos;
    double bg = 0.0;
    for (int s = 0; s < mc->n_streams; s++)
        st[s] = 0.0;
    for (int c = 0; c < n; c++) {
        const double r = r_point[c], qw = qw_r3_N[c];
        const double z = r * bsin;
        const double zp = r * bcos;
        const double x = zp * lcos - SEP_SUN_R0;
        const double y = zp * lsin;
        const double rg = sqrt(x * x + y * y + z * z / (mc->q * mc->q));
        const double h = sep_bg_node(mc, x, y, z, rg, qw);
        bg += h;
        for (int s = 0; s < mc->n_streams; s++) {
            const double *a = mc->stream_a[s], *cc = mc->stream_c[s];
            double dx = x - cc[0], dy = y - cc[1], dz = z - cc[2];
            double dot = a[0] * dx + a[1] * dy + a[2] * dz;
            dx -= dot * a[0];
            dy -= dot * a[1];
            dz -= dot * a[2];
            double d2 = dx * dx + dy * dy + dz * dz;
            st[s] += qw * exp(-d2 / mc->stream_sigma_sq2[s]);
        }
    }
    return bg;
}

/* Columns mu_begin..mu_end-1 of row nu_step, every r step, added to p. */
static void ref_integral_columns(const sep_model_consts *mc, const sep_setup *s, int area,
                                 int nu_step, int mu_begin, int mu_end, sep_partial *p)
{
    const sep_area_tables *t = &s->areas[area];
    const int n = s->convolve;
    const double id = t->id[nu_step];
    double st_cell[SEP_MAX_STREAMS];

    for (int k = mu_begin; k < mu_end; k++) {
        sep_direction d;
        sep_column_direction(mc, t, nu_step, k, &d);
        for (int i = 0; i < t->r_steps; i++) {
            double bgs = node_sums(mc, &d, &t->r_point[(size_t)i * n], &t->qw_r3_N[(size_t)i * n],
                                   n, st_cell);
            sep_partial_add_cell(p, id * t->irv[i], t->reff_xr_rp3[i], bgs, st_cell, mc->n_streams);
        }
    }
}

static orr_status ref_integral_chunks(orr_backend *be, const sep_model_consts *mc,
                                      const sep_setup *s, int area, int first, int count,
                                      sep_partial *out, orr_error *err)
{
    (void)be;
    (void)err;
    for (int k = 0; k < count; k++) {
        int nu_step, mu_begin, mu_end;
        sep_chunk_cells(&s->areas[area], first + k, &nu_step, &mu_begin, &mu_end);
        memset(&out[k], 0, sizeof out[k]);
        ref_integral_columns(mc, s, area, nu_step, mu_begin, mu_end, &out[k]);
    }
    return ORR_OK;
}

static orr_status ref_star_probs(orr_backend *be, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err)
{
    (void)be;
    (void)err;
    double r_point[SEP_MAX_CONVOLVE], qw[SEP_MAX_CONVOLVE], st[SEP_MAX_STREAMS];
    const int ns = mc->n_streams;
    for (int i = begin; i < end; i++) {
        const double K = sep_r_points(mc, s, stars->r[i], r_point, qw);
        sep_direction d;
        sep_direction_of_lb(stars->l[i], stars->b[i], &d);
        double bgs = node_sums(mc, &d, r_point, qw, s->convolve, st);
        bg_prob[i] = bgs * K;
        for (int j = 0; j < ns; j++)
            st_prob[(size_t)i * ns + j] = st[j] * K;
    }
    return ORR_OK;
}

const orr_backend sep_reference_backend = {
    .name = "CPU",
    .ctx = 0,
    .sep_integral_chunks = ref_integral_chunks,
    .sep_star_probs = ref_star_probs,
};

orr_status orr_open_reference_backend(const orr_backend_request *req, orr_backend *be,
                                      orr_error *err)
{
    (void)req;
    (void)err;
    *be = sep_reference_backend;
    return ORR_OK;
}
