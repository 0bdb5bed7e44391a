/* orrery-validate: separation results for BOINC's stock script_validator.
 *
 *   orrery-validate init FILE                is FILE a complete result?
 *   orrery-validate compare FILE1 FILE2      do two results agree?
 *
 * FILE is a result file as the apps write it (-t; the output template
 * names it): upstream's tags, one block per bundle member (member k >= 1
 * suffixes every tag with k) after <number_WUs> when there are several.
 *
 * init: every member has all five tags, with the stream count agreeing
 * between them; every value is finite; integrals are >= 0; likelihoods are
 * above upstream's failure value -999. compare: both files pass init, have
 * the same members and streams, every member's <search_likelihood> agrees
 * within --likelihood-tolerance (default 1e-11 absolute: the GPU
 * agreement) and every integral within --integral-tolerance (default 1e-9
 * relative).
 *
 * Exit status (what script_validator reads): 0 valid / equivalent, 1
 * invalid / different, 2 bad usage or unreadable file. One line on stderr
 * says why. Called as orrery-validate-init or orrery-validate-compare (links)
 * it takes the files only, for script_validator versions that append the
 * file names to the script's name without arguments. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/io.h"
#include "separation/separation.h"

#define MAX_MEMBERS SEP_MAX_BUNDLE
#define MAX_VALUES (SEP_MAX_STREAMS + 1)
#define FAILED_LIKELIHOOD (-999.0)

enum { TAG_BG_INTEGRAL, TAG_ST_INTEGRAL, TAG_BG_LIKELIHOOD, TAG_ST_LIKELIHOOD, TAG_SEARCH, N_TAGS };

static const char *const tag_names[N_TAGS] = {"background_integral", "stream_integral",
                                              "background_likelihood", "stream_only_likelihood",
                                              "search_likelihood"};

typedef struct {
    int n[N_TAGS];                       /* values found per tag */
    double v[N_TAGS][MAX_VALUES];
} member_result;

typedef struct {
    const char *path;
    int members;
    member_result m[MAX_MEMBERS];
} result_file;

static int say(const char *fmt, const char *a, const char *b, int rc)
{
    fprintf(stderr, "orrery-validate: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return rc;
}

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

/* Reads and checks one file (init's rules); on failure prints why. */
static int load(const char *path, result_file *r)
{
    orr_buffer buf;
    orr_error err;
    orr_error_clear(&err);
    memset(r, 0, sizeof *r);
    r->path = path;
    /* A result is a few kB; anything past 16 MB is not one. */
    if (orr_read_file(path, (size_t)16 << 20, 1, &buf, &err) != ORR_OK)
        return say("%s: %s", path, err.message, 2);
    char *text = buf.data;
    double wus = 1;
    int n = tag_values(text, "number_WUs", &wus, 1);
    r->members = n == 1 ? (int)wus : 1;
    if (n == -2 || (n == 1 && (wus != r->members || r->members < 1 || r->members > MAX_MEMBERS))) {
        free(text);
        return say("%s: bad <number_WUs>%s", path, "", 1);
    }
    for (int k = 0; k < r->members; k++) {
        member_result *m = &r->m[k];
        for (int t = 0; t < N_TAGS; t++) {
            char tag[64], where[96];
            if (k == 0)
                snprintf(tag, sizeof tag, "%s", tag_names[t]);
            else
                snprintf(tag, sizeof tag, "%s%d", tag_names[t], k);
            snprintf(where, sizeof where, "member %d: <%s>", k, tag);
            m->n[t] = tag_values(text, tag, m->v[t], MAX_VALUES);
            if (m->n[t] == -1) {
                free(text);
                return say("%s: %s missing", path, where, 1);
            }
            if (m->n[t] < 1) {
                free(text);
                return say("%s: %s malformed or empty", path, where, 1);
            }
            for (int i = 0; i < m->n[t]; i++) {
                const double v = m->v[t][i];
                const int integral = t == TAG_BG_INTEGRAL || t == TAG_ST_INTEGRAL;
                if (!isfinite(v) || (integral && v < 0) || (!integral && v <= FAILED_LIKELIHOOD)) {
                    free(text);
                    return say("%s: %s holds a value out of range (not finite, negative "
                               "integral or failed likelihood)",
                               path, where, 1);
                }
            }
        }
        if (m->n[TAG_BG_INTEGRAL] != 1 || m->n[TAG_BG_LIKELIHOOD] != 1 || m->n[TAG_SEARCH] != 1 ||
            m->n[TAG_ST_INTEGRAL] != m->n[TAG_ST_LIKELIHOOD]) {
            char where[32];
            snprintf(where, sizeof where, "member %d", k);
            free(text);
            return say("%s: %s: value counts disagree between tags", path, where, 1);
        }
    }
    free(text);
    return 0;
}

static int compare(const char *a_path, const char *b_path, double tol_like, double tol_int)
{
    static result_file a, b;
    int rc = load(a_path, &a);
    if (rc == 0)
        rc = load(b_path, &b);
    if (rc != 0)
        return rc;
    if (a.members != b.members)
        return say("%s and %s hold different numbers of bundle members", a_path, b_path, 1);
    for (int k = 0; k < a.members; k++) {
        const member_result *x = &a.m[k], *y = &b.m[k];
        char what[160];
        if (x->n[TAG_ST_INTEGRAL] != y->n[TAG_ST_INTEGRAL]) {
            snprintf(what, sizeof what, "member %d", k);
            return say("%s: stream counts differ (%s)", what, b_path, 1);
        }
        const double d = fabs(x->v[TAG_SEARCH][0] - y->v[TAG_SEARCH][0]);
        if (!(d <= tol_like)) {
            char tol[32];
            snprintf(what, sizeof what, "member %d: search likelihoods differ by %.3g", k, d);
            snprintf(tol, sizeof tol, "%.3g", tol_like);
            return say("%s (--likelihood-tolerance %s)", what, tol, 1);
        }
        for (int t = TAG_BG_INTEGRAL; t <= TAG_ST_INTEGRAL; t++)
            for (int i = 0; i < x->n[t]; i++) {
                const double p = x->v[t][i], q = y->v[t][i];
                const double scale = fabs(p) > fabs(q) ? fabs(p) : fabs(q);
                if (!(fabs(p - q) <= tol_int * scale)) {
                    char tol[32];
                    snprintf(what, sizeof what, "member %d: <%s>[%d] differs by %.3g relative", k,
                             tag_names[t], i, scale > 0 ? fabs(p - q) / scale : 0.0);
                    snprintf(tol, sizeof tol, "%.3g", tol_int);
                    return say("%s (--integral-tolerance %s)", what, tol, 1);
                }
            }
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr,
            "usage: orrery-validate [--likelihood-tolerance X] [--integral-tolerance X] init FILE\n"
            "       orrery-validate [options] compare FILE1 FILE2\n"
            "exit 0: valid / equivalent; 1: invalid / different; 2: usage or unreadable file\n");
    return 2;
}

static int parse_tolerance(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end != '\0' || !(v >= 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    double tol_like = 1e-11, tol_int = 1e-9;
    const char *me = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    const char *mode = NULL;
    if (strcmp(me, "orrery-validate-init") == 0)
        mode = "init";
    else if (strcmp(me, "orrery-validate-compare") == 0)
        mode = "compare";
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        if (i + 1 >= argc)
            return usage();
        if (strcmp(argv[i], "--likelihood-tolerance") == 0) {
            if (parse_tolerance(argv[++i], &tol_like) != 0)
                return usage();
        } else if (strcmp(argv[i], "--integral-tolerance") == 0) {
            if (parse_tolerance(argv[++i], &tol_int) != 0)
                return usage();
        } else {
            return usage();
        }
    }
    if (!mode) {
        if (i >= argc)
            return usage();
        mode = argv[i++];
    }
    if (strcmp(mode, "init") == 0 && argc - i == 1) {
        static result_file r;
        return load(argv[i], &r);
    }
    if (strcmp(mode, "compare") == 0 && argc - i == 2)
        return compare(argv[i], argv[i + 1], tol_like, tol_int);
    return usage();
}
