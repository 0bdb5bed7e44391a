/* The scalar reference integrand: one (l, b) direction, all magnitude
 * nodes, background and streams. Every other path (SIMD, GPU) is tested
 * against this one, so it favours plain arithmetic in upstream's order over
 * speed. */
#include <math.h>
#include <string.h>

#include "nodes.h"
#include "ops.h"

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
            double bgs = sep_node_sums(mc, mc->n_streams, &d, &t->r_point[(size_t)i * n], &t->qw_r3_N[(size_t)i * n],
                                   n, st_cell);
            sep_partial_add_cell(p, id * t->irv[i], t->reff_xr_rp3[i], bgs, st_cell, mc->n_streams);
        }
    }
}

static orr_status ref_integral_chunks(void *state, const sep_model_consts *mc,
                                      const sep_setup *s, int area, int first, int count,
                                      sep_partial *out, orr_error *err)
{
    (void)state;
    (void)err;
    for (int k = 0; k < count; k++) {
        int nu_step, mu_begin, mu_end;
        sep_chunk_cells(&s->areas[area], first + k, &nu_step, &mu_begin, &mu_end);
        memset(&out[k], 0, sizeof out[k]);
        ref_integral_columns(mc, s, area, nu_step, mu_begin, mu_end, &out[k]);
    }
    return ORR_OK;
}

static orr_status ref_star_probs(void *state, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err)
{
    (void)state;
    (void)err;
    double r_point[SEP_MAX_CONVOLVE], qw[SEP_MAX_CONVOLVE], st[SEP_MAX_STREAMS];
    const int ns = mc->n_streams;
    for (int i = begin; i < end; i++) {
        const double K = sep_r_points(mc, s, stars->r[i], r_point, qw);
        sep_direction d;
        sep_direction_of_lb(stars->l[i], stars->b[i], &d);
        double bgs = sep_node_sums(mc, mc->n_streams, &d, r_point, qw, s->convolve, st);
        bg_prob[i] = bgs * K;
        for (int j = 0; j < ns; j++)
            st_prob[(size_t)i * ns + j] = st[j] * K;
    }
    return ORR_OK;
}

const sep_ops sep_reference_ops = {
    .min_batch = NULL,
    .integral_chunks = ref_integral_chunks,
    .star_probs = ref_star_probs,
};

orr_status sep_ops_of(orr_backend *be, sep_bound_ops *out, orr_error *err)
{
    const orr_kind_slot *slot;
    orr_status s = orr_backend_slot(be, SEP_KIND_NAME, &slot, err);
    if (s != ORR_OK)
        return s;
    const sep_ops *ops = slot->ops;
    out->ops = sep_reference_ops;
    out->state = slot->state;
    if (ops && ops->min_batch)
        out->ops.min_batch = ops->min_batch;
    if (ops && ops->integral_chunks)
        out->ops.integral_chunks = ops->integral_chunks;
    if (ops && ops->star_probs)
        out->ops.star_probs = ops->star_probs;
    return ORR_OK;
}
