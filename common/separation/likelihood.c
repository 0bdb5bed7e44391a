/* From per-area sums and per-star probabilities to the reported numbers:
 * wedge minus cuts, then the search, background-only and stream-only
 * likelihoods (docs/separation.md sections 5 and 6); and the check that a
 * checkpoint's sums fit the work unit before a run goes on from them.
 * Nothing leaves here that was not really computed: an integral the
 * likelihood cannot divide by, or a likelihood that is not finite (other
 * than the search likelihood's documented -999), is an error. */
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
    return sep_check_integrals(res, err);
}

orr_status sep_check_integrals(const sep_result *res, orr_error *err)
{
    /* A cut as large as the wedge leaves nothing; every star's
     * probability would be divided by zero. */
    if (!(isfinite(res->background_integral) && res->background_integral > 0.0))
        return orr_fail(err, ORR_ERR_NUMERIC,
                        "the background integral (wedge minus cuts) is %g, not a positive number: "
                        "the cuts remove the whole wedge, or the model's density vanishes in it",
                        res->background_integral);
    for (int j = 0; j < res->n_streams; j++)
        if (!(isfinite(res->stream_integral[j]) && res->stream_integral[j] >= 0.0))
            return orr_fail(err, ORR_ERR_NUMERIC,
                            "the integral of stream %d (wedge minus cuts) is %g: %s", j + 1,
                            res->stream_integral[j],
                            isfinite(res->stream_integral[j]) ? "the cuts remove more than the wedge"
                                                              : "not finite");
    return ORR_OK;
}

static double mean_log_likelihood(orr_kahan k, int n)
{
    return (k.sum + k.corr) / n - 3.0;
}

/* The search likelihood has its -999; a background-only or stream-only
 * likelihood that is not finite would print as nan: refused instead, as
 * upstream's final check refused every non-finite result. */
static orr_status check_likelihoods(const sep_result *res, orr_error *err)
{
    if (!isfinite(res->background_likelihood))
        return orr_fail(err, ORR_ERR_NUMERIC,
                        "the background-only likelihood is not finite (%g): the exponential of a "
                        "weight overflows, or a star's background probability is not finite",
                        res->background_likelihood);
    for (int j = 0; j < res->n_streams; j++)
        if (!isfinite(res->stream_only_likelihood[j]))
            return orr_fail(err, ORR_ERR_NUMERIC,
                            "the stream-only likelihood of stream %d is not finite (%g; its integral is %g%s)",
                            j + 1, res->stream_only_likelihood[j], res->stream_integral[j],
                            res->stream_integral[j] == 0.0
                                ? ": a stream of sigma <= 1e-4, or one far outside the wedge, has none"
                                : "");
    return ORR_OK;
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
    return check_likelihoods(res, err);
}

/* ---- a checkpoint's state (sep_run_state_check) ---- */

/* err's message again, behind prefix and as status s. */
static orr_status with_prefix(orr_error *err, orr_status s, const char *prefix)
{
    if (!err)
        return s;
    char inner[sizeof err->message];
    snprintf(inner, sizeof inner, "%s", err->message);
    return orr_fail(err, s, "%s%s", prefix, inner);
}

static int kahan_finite(orr_kahan k)
{
    return isfinite(k.sum) && isfinite(k.corr);
}

static int kahan_empty(orr_kahan k)
{
    return k.sum == 0.0 && k.corr == 0.0;
}

/* Sums of n_streams streams: finite, the unused stream slots empty. */
static int partial_fits(const sep_partial *p, int n_streams)
{
    if (!kahan_finite(p->bg))
        return 0;
    for (int j = 0; j < SEP_MAX_STREAMS; j++)
        if (j < n_streams ? !kahan_finite(p->st[j]) : !kahan_empty(p->st[j]))
            return 0;
    return 1;
}

static int partial_empty(const sep_partial *p)
{
    if (!kahan_empty(p->bg))
        return 0;
    for (int j = 0; j < SEP_MAX_STREAMS; j++)
        if (!kahan_empty(p->st[j]))
            return 0;
    return 1;
}

/* Area a's sums when the integration is at area `at` (-1 once every
 * member is integrated: the sums are cleared then): complete before it,
 * within the grid at it, untouched after it and beyond the work unit's
 * areas. */
static orr_status area_sums_fit(const sep_area_sums *a_sums, const sep_setup *s, int a, int at,
                                int n_streams, orr_error *err)
{
    const int64_t next = a_sums->next_chunk;
    if (a >= s->n_areas || a > at) {
        if (next != 0 || !partial_empty(&a_sums->sum))
            return orr_fail(err, ORR_ERR_CHECKPOINT, "area %d has sums but %s", a,
                            a >= s->n_areas ? "the work unit has no such area"
                            : at < 0        ? "every member's integrals are done"
                                            : "is not integrated yet");
        return ORR_OK;
    }
    const int64_t chunks = sep_area_chunks(&s->areas[a]);
    if (a < at && next != chunks)
        return orr_fail(err, ORR_ERR_CHECKPOINT,
                        "area %d is at chunk %lld of %lld, but a later area is being integrated", a,
                        (long long)next, (long long)chunks);
    if (next < 0 || next > chunks)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "area %d is at chunk %lld, outside 0..%lld", a,
                        (long long)next, (long long)chunks);
    if (!partial_fits(&a_sums->sum, n_streams) || (next == 0 && !partial_empty(&a_sums->sum)))
        return orr_fail(err, ORR_ERR_CHECKPOINT,
                        "area %d's sums are not those of %lld chunks of %d stream%s", a,
                        (long long)next, n_streams, n_streams == 1 ? "" : "s");
    return ORR_OK;
}

static int result_empty(const sep_result *r)
{
    if (r->n_streams != 0 || r->background_integral != 0.0 || r->background_likelihood != 0.0 ||
        r->search_likelihood != 0.0)
        return 0;
    for (int j = 0; j < SEP_MAX_STREAMS; j++)
        if (r->stream_integral[j] != 0.0 || r->stream_only_likelihood[j] != 0.0)
            return 0;
    return 1;
}

/* A finished member's integrals (what the likelihood divides by) and its
 * likelihood fields: finite, as many streams as the work unit's. */
static orr_status result_fits(const sep_result *r, int n_streams, orr_error *err)
{
    if (r->n_streams != n_streams)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%d streams, the work unit has %d", r->n_streams,
                        n_streams);
    if (sep_check_integrals(r, err) != ORR_OK)
        return with_prefix(err, ORR_ERR_CHECKPOINT, "");
    for (int j = n_streams; j < SEP_MAX_STREAMS; j++)
        if (r->stream_integral[j] != 0.0 || r->stream_only_likelihood[j] != 0.0)
            return orr_fail(err, ORR_ERR_CHECKPOINT, "unused stream slot %d holds values", j + 1);
    int finite = isfinite(r->background_likelihood) && isfinite(r->search_likelihood);
    for (int j = 0; j < n_streams; j++)
        finite = finite && isfinite(r->stream_only_likelihood[j]);
    return finite ? ORR_OK : orr_fail(err, ORR_ERR_CHECKPOINT, "a likelihood is not finite");
}

/* The position: member, area and the reported flag, consistent. */
static orr_status position_fits(const sep_run_state *st, const sep_setup *s, int members,
                                orr_error *err)
{
    if (st->members != members)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "%d bundle members, the work unit has %d",
                        (int)st->members, members);
    if (st->member < 0 || st->member > members)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "bundle member %d is outside 0..%d",
                        (int)st->member, members);
    if (st->printed != 0 && st->printed != 1)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "reported flag %d is neither 0 nor 1",
                        (int)st->printed);
    if (st->printed && st->member != members)
        return orr_fail(err, ORR_ERR_CHECKPOINT,
                        "results reported, but bundle member %d of %d is not integrated",
                        (int)st->member, members);
    const int last_area = st->member == members ? 0 : s->n_areas - 1;
    if (st->area < 0 || st->area > last_area)
        return orr_fail(err, ORR_ERR_CHECKPOINT, "area %d is outside 0..%d", (int)st->area,
                        last_area);
    return ORR_OK;
}

orr_status sep_run_state_check(const sep_run_state *st, const sep_setup *s, int members,
                               int n_streams, orr_error *err)
{
    orr_status rc = position_fits(st, s, members, err);
    /* Once every member is integrated the sums are cleared (kind.c). */
    const int at = st->member == members ? -1 : st->area;
    for (int a = 0; rc == ORR_OK && a < SEP_MAX_AREAS; a++)
        rc = area_sums_fit(&st->sums[a], s, a, at, n_streams, err);
    for (int m = 0; rc == ORR_OK && m < SEP_MAX_BUNDLE; m++) {
        if (m < st->member) {
            char prefix[48];
            snprintf(prefix, sizeof prefix, "bundle member %d: ", m);
            rc = result_fits(&st->done[m], n_streams, err);
            if (rc != ORR_OK)
                rc = with_prefix(err, rc, prefix);
        } else if (!result_empty(&st->done[m])) {
            rc = orr_fail(err, ORR_ERR_CHECKPOINT, "bundle member %d has results but is not %s", m,
                          m < members ? "integrated yet" : "in the work unit");
        }
    }
    return rc;
}
