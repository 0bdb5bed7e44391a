/* From per-area sums and per-star probabilities to the reported numbers:
 * wedge minus cuts, then the search, background-only and stream-only
 * likelihoods (docs/separation.md sections 5 and 6). */
#include <math.h>

#include "separation.h"

/* upstream's value for log10 of a vanishing probability */
#define SEP_LOG_ZERO (-238.0)
#define SEP_PROB_EPS 1.0e-15

void sep_partial_merge(sep_partial *sum, const sep_partial *p, int n_streams)
{
    sum->bg = orr_kahan_merge(sum->bg, p->bg);
    for (int j = 0; j < n_streams; j++)
        sum->st[j] = orr_kahan_merge(sum->st[j], p->st[j]);
}

orr_status sep_finish_integrals(const sep_model_consts *mc, const sep_setup *s,
                                const sep_area_sums *areas, sep_result *res, orr_error *err)
{
    res->n_streams = mc->n_streams;
    res->background_integral = areas[0].sum.bg.sum;
    for (int j = 0; j < mc->n_streams; j++)
        res->stream_integral[j] = mc->stream_negligible[j] ? 0.0 : areas[0].sum.st[j].sum;
    for (int a = 1; a < s->n_areas; a++) {   /* cuts are excluded regions */
        res->background_integral -= areas[a].sum.bg.sum;
        for (int j = 0; j < mc->n_streams; j++)
            if (!mc->stream_negligible[j])
                res->stream_integral[j] -= areas[a].sum.st[j].sum;
    }
    if (!isfinite(res->background_integral))
        return orr_fail(err, ORR_ERR_NUMERIC, "the background integral is not finite (%g)",
                        res->background_integral);
    return ORR_OK;
}

static double mean_log_likelihood(orr_kahan k, int n)
{
    return (k.sum + k.corr) / n - 3.0;
}

orr_status sep_likelihood_from_probs(const sep_model_consts *mc, const sep_stars *stars,
                                     const double *bg_prob, const double *st_prob,
                                     sep_result *res, FILE *membership, orr_error *err)
{
    const int ns = mc->n_streams;
    const double S = mc->sum_exp_weights;
    orr_kahan search = {0, 0}, bg_only = {0, 0}, st_only[SEP_MAX_STREAMS] = {{0, 0}};

    for (int i = 0; i < stars->n; i++) {
        double bg = (bg_prob[i] / res->background_integral) * mc->exp_bg_weight;
        double star = bg;
        double st_terms[SEP_MAX_STREAMS];
        for (int j = 0; j < ns; j++) {
            double t = st_prob[(size_t)i * ns + j] / res->stream_integral[j] * mc->exp_stream_weight[j];
            st_terms[j] = t;
            star += t;
            orr_kahan_add(&st_only[j], fabs(t) < SEP_PROB_EPS ? SEP_LOG_ZERO : log10(t / S));
        }
        star /= S;
        /* A star with exactly zero probability adds upstream's log-zero
         * rather than -inf, so one outlier does not void the whole run. */
        orr_kahan_add(&search, star != 0.0 ? log10(star) : SEP_LOG_ZERO);
        orr_kahan_add(&bg_only, fabs(bg) < SEP_PROB_EPS ? SEP_LOG_ZERO : log10(bg / S));

        if (membership) {
            /* Posterior membership: each component's share of the star's
             * probability (background first). */
            double total = bg;
            for (int j = 0; j < ns; j++)
                total += st_terms[j];
            if (fprintf(membership, "%.10f %.10f %.10f %.12e", stars->l[i], stars->b[i], stars->r[i],
                        total > 0 ? bg / total : 0.0) < 0)
                return orr_fail(err, ORR_ERR_WRITE, "cannot write the star membership file");
            for (int j = 0; j < ns; j++)
                fprintf(membership, " %.12e", total > 0 ? st_terms[j] / total : 0.0);
            fputc('\n', membership);
        }
    }
    res->n_streams = ns;
    res->search_likelihood = mean_log_likelihood(search, stars->n);
    res->background_likelihood = mean_log_likelihood(bg_only, stars->n);
    for (int j = 0; j < ns; j++)
        res->stream_only_likelihood[j] = mean_log_likelihood(st_only[j], stars->n);
    /* A bad parameter vector from the server is not a host error: report
     * -999 and succeed, as upstream does. */
    if (!isfinite(res->search_likelihood))
        res->search_likelihood = -999.0;
    return ORR_OK;
}
