/* orrery-validate for separation results (upstream's tags, one block per
 * bundle member: member k >= 1 suffixes every tag with k, after
 * <number_WUs> when there are several); the registry's fallback: every
 * file without another kind's first line is judged as one.
 *
 * init: every member has all five tags, with the stream count agreeing
 * between them; every value is finite; integrals are >= 0; likelihoods are
 * above upstream's failure value -999; <number_params_per_WU>, if there,
 * a whole number in 1..999999; at most 16 MB. compare: both files pass
 * init, have the same members and streams, every member's
 * <search_likelihood> agrees within likelihood_tolerance (default 1e-11
 * absolute: the GPU agreement) and every integral within
 * integral_tolerance (default 1e-9 relative). */
#include <math.h>
#include <string.h>

#include "../validate/validate.h"
#include "separation/separation.h"

#define MAX_MEMBERS SEP_MAX_BUNDLE
#define MAX_VALUES (SEP_MAX_STREAMS + 1)
#define FAILED_LIKELIHOOD (-999.0)
/* <number_params_per_WU>: the search vector's length, checked by the
 * assimilator against the work unit's command line. */
#define SEP_MAX_PER_WU 999999

enum { SEP_TOL_LIKELIHOOD, SEP_TOL_INTEGRAL, SEP_N_TOL };
static const vd_tolerance sep_tolerances[SEP_N_TOL] = {
    {"likelihood_tolerance", 1e-11, "default 1e-11 absolute"},
    {"integral_tolerance", 1e-9, "default 1e-9 relative"},
};

enum { TAG_BG_INTEGRAL, TAG_ST_INTEGRAL, TAG_BG_LIKELIHOOD, TAG_ST_LIKELIHOOD, TAG_SEARCH, N_TAGS };

static const char *const tag_names[N_TAGS] = {"background_integral", "stream_integral",
                                              "background_likelihood", "stream_only_likelihood",
                                              "search_likelihood"};

typedef struct {
    int n[N_TAGS];                       /* values found per tag */
    double v[N_TAGS][MAX_VALUES];
} member_result;

typedef struct {
    int members;
    int per_wu;                          /* <number_params_per_WU>, 0 if absent */
    member_result m[MAX_MEMBERS];
} result_file;

/* Values between <tag> and </tag> (tag already suffixed), or -1 if absent,
 * -2 if malformed. */
static int tag_values(const char *text, const char *tag, double *out, int max)
{
    char open[96], close[96];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    const char *p = strstr(text, open);
    if (!p)
        return -1;
    p += strlen(open);
    const char *end = strstr(p, close);
    if (!end)
        return -2;
    int n = 0;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p >= end)
            break;
        const char *q = p;
        while (q < end && *q != ' ' && *q != '\t')
            q++;
        double v;
        if (n >= max || orr_parse_double(p, (size_t)(q - p), &v) != 0)
            return -2;
        out[n++] = v;
        p = q;
    }
    return n;
}

/* Tag t of member k: member 0's unsuffixed, k >= 1's suffixed with k. */
static void member_tag(char *out, size_t cap, int t, int k)
{
    if (k == 0)
        snprintf(out, cap, "%s", tag_names[t]);
    else
        snprintf(out, cap, "%s%d", tag_names[t], k);
}

/* Member k's tags (init's rules); on failure says why. */
static int check_member(const char *path, const char *text, int k, member_result *m)
{
    for (int t = 0; t < N_TAGS; t++) {
        char tag[64];
        member_tag(tag, sizeof tag, t, k);
        m->n[t] = tag_values(text, tag, m->v[t], MAX_VALUES);
        if (m->n[t] == -1)
            return vd_say(INVALID, "%s: member %d: <%s> missing", path, k, tag);
        if (m->n[t] < 1)
            return vd_say(INVALID, "%s: member %d: <%s> malformed or empty", path, k, tag);
        const int integral = t == TAG_BG_INTEGRAL || t == TAG_ST_INTEGRAL;
        for (int i = 0; i < m->n[t]; i++) {
            const double v = m->v[t][i];
            if (!isfinite(v) || (integral && v < 0) || (!integral && v <= FAILED_LIKELIHOOD))
                return vd_say(INVALID,
                              "%s: member %d: <%s> holds a value out of range (not finite, "
                              "negative integral or failed likelihood)",
                              path, k, tag);
        }
    }
    if (m->n[TAG_BG_INTEGRAL] != 1 || m->n[TAG_BG_LIKELIHOOD] != 1 || m->n[TAG_SEARCH] != 1 ||
        m->n[TAG_ST_INTEGRAL] != m->n[TAG_ST_LIKELIHOOD])
        return vd_say(INVALID, "%s: member %d: value counts disagree between tags", path, k);
    return VALID;
}

/* init's rules on a whole file (the tags are found by strstr: the text
 * is NUL-terminated). */
static int sep_load(const char *path, const orr_buffer *buf, void *result)
{
    result_file *r = result;
    const char *text = buf->data;
    double wus = 1, per_wu = 0;
    int rc = VALID;
    const int n = tag_values(text, "number_WUs", &wus, 1);
    const int np = tag_values(text, "number_params_per_WU", &per_wu, 1);
    if (buf->size == 0)
        rc = vd_say(INVALID, "%s: empty file", path);
    else if (n == -2 || n == 0 ||
             (n == 1 && !(wus >= 1 && wus <= MAX_MEMBERS && wus == (int)wus)))
        rc = vd_say(INVALID, "%s: bad <number_WUs>", path);
    else if (np == -2 || np == 0 || (np == 1 && !(per_wu >= 1 && per_wu <= SEP_MAX_PER_WU &&
                                                  per_wu == (int)per_wu)))
        rc = vd_say(INVALID, "%s: bad <number_params_per_WU> (want a whole number in 1..%d)",
                    path, SEP_MAX_PER_WU);
    r->members = n == 1 && rc == VALID ? (int)wus : 1;
    r->per_wu = np == 1 && rc == VALID ? (int)per_wu : 0;
    for (int k = 0; k < r->members && rc == VALID; k++)
        rc = check_member(path, text, k, &r->m[k]);
    return rc;
}

/* A separation result init has accepted, as JSON on o. */
static int sep_dump(FILE *o, const orr_buffer *buf, const void *result)
{
    const result_file *r = result;
    const char *text = buf->data;
    fputs("{\"kind\": \"separation\", \"number_params_per_WU\": ", o);
    if (r->per_wu)
        fprintf(o, "%d", r->per_wu);
    else
        fputs("null", o);
    fputs(", \"members\": [", o);
    for (int k = 0; k < r->members; k++) {
        fputs(k ? ", {" : "{", o);
        for (int t = 0; t < N_TAGS; t++) {
            char tag[64], open[96], close[96];
            member_tag(tag, sizeof tag, t, k);
            snprintf(open, sizeof open, "<%s>", tag);
            snprintf(close, sizeof close, "</%s>", tag);
            const char *p = strstr(text, open) + strlen(open), *w;
            const char *end = strstr(p, close);
            size_t i = 0, wn;
            fprintf(o, "%s\"%s\": [", t ? ", " : "", tag_names[t]);
            for (int j = 0; vd_next_word(p, (size_t)(end - p), &i, &w, &wn); j++) {
                fputs(j ? ", " : "", o);
                vd_json_word(o, w, wn);
            }
            fputc(']', o);
        }
        fputc('}', o);
    }
    fputs("]}\n", o);
    return VALID;
}

/* Member k of a and b within the tolerances; b_path names the pair. */
static int compare_member(int k, const member_result *x, const member_result *y,
                          const char *b_path, const double *tol)
{
    if (x->n[TAG_ST_INTEGRAL] != y->n[TAG_ST_INTEGRAL])
        return vd_say(INVALID, "member %d: stream counts differ (%s)", k, b_path);
    const double d = fabs(x->v[TAG_SEARCH][0] - y->v[TAG_SEARCH][0]);
    if (!(d <= tol[SEP_TOL_LIKELIHOOD]))
        return vd_say(INVALID, "member %d: <search_likelihood> %.17g and %.17g differ by %.3g (%s "
                      "%.3g)", k, x->v[TAG_SEARCH][0], y->v[TAG_SEARCH][0], d,
                      sep_tolerances[SEP_TOL_LIKELIHOOD].key, tol[SEP_TOL_LIKELIHOOD]);
    for (int t = TAG_BG_INTEGRAL; t <= TAG_ST_INTEGRAL; t++)
        for (int i = 0; i < x->n[t]; i++) {
            const double p = x->v[t][i], q = y->v[t][i];
            const double scale = fabs(p) > fabs(q) ? fabs(p) : fabs(q);
            if (!(fabs(p - q) <= tol[SEP_TOL_INTEGRAL] * scale))
                return vd_say(INVALID, "member %d: <%s>[%d] %.17g and %.17g differ by %.3g relative "
                              "(%s %.3g)", k, tag_names[t], i, p, q,
                              scale > 0 ? fabs(p - q) / scale : 0.0,
                              sep_tolerances[SEP_TOL_INTEGRAL].key, tol[SEP_TOL_INTEGRAL]);
        }
    return VALID;
}

static int sep_compare(const char *a_path, const char *b_path, const void *ra, const void *rb,
                       const double *tol)
{
    const result_file *a = ra, *b = rb;
    if (a->members != b->members)
        return vd_say(INVALID, "%s and %s hold different numbers of bundle members", a_path,
                      b_path);
    int rc = VALID;
    for (int k = 0; k < a->members && rc == VALID; k++)
        rc = compare_member(k, &a->m[k], &b->m[k], b_path, tol);
    return rc;
}

/* A separation result is a few kB; anything past 16 MB is not one. */
const vd_kind vd_separation = {
    .name = "separation",
    .article = "a",
    .header = NULL,
    .max_bytes = (size_t)16 << 20,
    .tolerances = sep_tolerances,
    .n_tolerances = SEP_N_TOL,
    .config_group = "known",
    .result_size = sizeof(result_file),
    .load = sep_load,
    .dump = sep_dump,
    .compare = sep_compare,
};
