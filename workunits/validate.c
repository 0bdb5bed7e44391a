/* orrery-validate: separation results for BOINC's stock script_validator.
 *
 *   orrery-validate [OPTIONS] init FILE            is FILE a complete result?
 *   orrery-validate [OPTIONS] compare FILE1 FILE2  do two results agree?
 *   orrery-validate-init [OPTIONS] FILE            the same, through the links
 *   orrery-validate-compare [OPTIONS] FILE1 FILE2  that script_validator runs
 *
 * OPTIONS: --config FILE, --likelihood-tolerance X, --integral-tolerance X.
 *
 * FILE is a result file as the apps write it (-t; the output template
 * names it): upstream's tags, one block per bundle member (member k >= 1
 * suffixes every tag with k) after <number_WUs> when there are several.
 *
 * init: every member has all five tags, with the stream count agreeing
 * between them; every value is finite; integrals are >= 0; likelihoods are
 * above upstream's failure value -999. compare: both files pass init, have
 * the same members and streams, every member's <search_likelihood> agrees
 * within the likelihood tolerance (default 1e-11 absolute: the GPU
 * agreement) and every integral within the integral tolerance (default
 * 1e-9 relative).
 *
 * script_validator (BOINC server 1.6.2) takes one-word script names only
 * (it leaves a space on each word of a longer one, so no keyword matches):
 *     script_validator --app separation --init_script orrery-validate-init
 *         --compare_script orrery-validate-compare
 * From PROJECT/tmp_HOST/ it runs ../bin/orrery-validate-init with a
 * result's output files, and ../bin/orrery-validate-compare with result
 * 1's files then result 2's (separation: one file per result). It passes
 * no options, so tolerances come from a configuration file:
 * orrery-validate.conf in the directory argv[0] names (the project's bin/),
 * if it exists (none for a program found on PATH), or --config FILE, which
 * must exist. Lines `key = value`, '#' starts a comment; keys
 * likelihood_tolerance and integral_tolerance, each at most once, values
 * finite and >= 0. Command-line tolerances override the file's.
 *
 * Exit status (what script_validator reads): 0 valid / equal; 1 invalid /
 * different: the content is bad (empty, truncated, malformed, over 16 MB,
 * out of range, out of tolerance); 3 (BOINC's VAL_RESULT_TRANSIENT_ERROR)
 * could not judge: a file missing or unreadable, a bad configuration file
 * or command line. script_validator retries the work unit later on 3, so a
 * daemon's mistake never invalidates volunteers' work. One line on stderr
 * says why. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/io.h"
#include "separation/separation.h"

#define MAX_MEMBERS SEP_MAX_BUNDLE
#define MAX_VALUES (SEP_MAX_STREAMS + 1)
#define FAILED_LIKELIHOOD (-999.0)
/* Output files per result: separation_out has one. */
#define FILES_PER_RESULT 1
/* A result is a few kB; anything past 16 MB is not one. */
#define MAX_RESULT_BYTES ((size_t)16 << 20)
#define MAX_CONFIG_BYTES ((size_t)64 << 10)
#define CONFIG_NAME "orrery-validate.conf"

/* Exit statuses. RETRY is BOINC's VAL_RESULT_TRANSIENT_ERROR: the
 * validator tries the work unit again later instead of judging, so only a
 * result's own content may give INVALID. */
enum { VALID = 0, INVALID = 1, RETRY = 3 };

enum { TAG_BG_INTEGRAL, TAG_ST_INTEGRAL, TAG_BG_LIKELIHOOD, TAG_ST_LIKELIHOOD, TAG_SEARCH, N_TAGS };

static const char *const tag_names[N_TAGS] = {"background_integral", "stream_integral",
                                              "background_likelihood", "stream_only_likelihood",
                                              "search_likelihood"};

/* The tolerances, as configuration keys and as options. */
enum { TOL_LIKELIHOOD, TOL_INTEGRAL, N_TOL };
static const char *const tol_keys[N_TOL] = {"likelihood_tolerance", "integral_tolerance"};
static const char *const tol_options[N_TOL] = {"--likelihood-tolerance", "--integral-tolerance"};
static const double tol_defaults[N_TOL] = {1e-11, 1e-9};

typedef struct {
    int n[N_TAGS];                       /* values found per tag */
    double v[N_TAGS][MAX_VALUES];
} member_result;

typedef struct {
    int members;
    member_result m[MAX_MEMBERS];
} result_file;

typedef struct {
    const char *config;                  /* --config FILE, or NULL */
    int set[N_TOL];                      /* tolerances given as options */
    double tol[N_TOL];
} options;

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

static int vsay(int rc, const char *fmt, va_list ap) PRINTF_LIKE(2, 0);
static int say(int rc, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int usage(const char *fmt, ...) PRINTF_LIKE(1, 2);

static int vsay(int rc, const char *fmt, va_list ap)
{
    fputs("orrery-validate: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(rc == RETRY ? " (transient: script_validator retries)\n" : "\n", stderr);
    return rc;
}

/* One line on stderr saying why; returns rc. */
static int say(int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(rc, fmt, ap);
    va_end(ap);
    return rc;
}

/* A wrong command line is the daemon's mistake, not the result's: RETRY. */
static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(RETRY, fmt, ap);
    va_end(ap);
    fprintf(stderr,
            "usage: orrery-validate [OPTIONS] init FILE\n"
            "       orrery-validate [OPTIONS] compare FILE1 FILE2\n"
            "       orrery-validate-init [OPTIONS] FILE\n"
            "       orrery-validate-compare [OPTIONS] FILE1 FILE2\n"
            "options: --config FILE (default: " CONFIG_NAME " beside the program, if there)\n"
            "         --likelihood-tolerance X (default 1e-11 absolute)\n"
            "         --integral-tolerance X (default 1e-9 relative)\n"
            "exit 0 valid / equal, 1 invalid / different, 3 could not judge (missing or\n"
            "unreadable file, bad configuration or usage; script_validator retries)\n");
    return RETRY;
}

/* Reads path whole. What cannot be read now (missing, permissions, I/O
 * error, not a regular file, no memory) is RETRY; content that cannot be a
 * valid file (too large, corrupt compression, NUL bytes) is bad_content. */
static int read_whole(const char *path, size_t max, int bad_content, orr_buffer *buf)
{
    struct stat st;
    /* stat first: a FIFO would block the open, a directory opens. */
    if (stat(path, &st) != 0)
        return say(RETRY, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return say(RETRY, "%s: not a regular file", path);
    orr_error err;
    orr_error_clear(&err);
    orr_status s = orr_read_file(path, max, 1, buf, &err);
    if (s == ORR_OK)
        return VALID;
    return say(s == ORR_ERR_OPEN || s == ORR_ERR_NOMEM ? RETRY : bad_content, "%s", err.message);
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

/* Member k's tags (init's rules); on failure says why. */
static int check_member(const char *path, const char *text, int k, member_result *m)
{
    for (int t = 0; t < N_TAGS; t++) {
        char tag[64];
        if (k == 0)
            snprintf(tag, sizeof tag, "%s", tag_names[t]);
        else
            snprintf(tag, sizeof tag, "%s%d", tag_names[t], k);
        m->n[t] = tag_values(text, tag, m->v[t], MAX_VALUES);
        if (m->n[t] == -1)
            return say(INVALID, "%s: member %d: <%s> missing", path, k, tag);
        if (m->n[t] < 1)
            return say(INVALID, "%s: member %d: <%s> malformed or empty", path, k, tag);
        const int integral = t == TAG_BG_INTEGRAL || t == TAG_ST_INTEGRAL;
        for (int i = 0; i < m->n[t]; i++) {
            const double v = m->v[t][i];
            if (!isfinite(v) || (integral && v < 0) || (!integral && v <= FAILED_LIKELIHOOD))
                return say(INVALID,
                           "%s: member %d: <%s> holds a value out of range (not finite, "
                           "negative integral or failed likelihood)",
                           path, k, tag);
        }
    }
    if (m->n[TAG_BG_INTEGRAL] != 1 || m->n[TAG_BG_LIKELIHOOD] != 1 || m->n[TAG_SEARCH] != 1 ||
        m->n[TAG_ST_INTEGRAL] != m->n[TAG_ST_LIKELIHOOD])
        return say(INVALID, "%s: member %d: value counts disagree between tags", path, k);
    return VALID;
}

/* Reads and checks one file (init's rules); on failure says why. */
static int load(const char *path, result_file *r)
{
    orr_buffer buf;
    memset(r, 0, sizeof *r);
    int rc = read_whole(path, MAX_RESULT_BYTES, INVALID, &buf);
    if (rc != VALID)
        return rc;
    const char *text = buf.data;
    double wus = 1;
    const int n = tag_values(text, "number_WUs", &wus, 1);
    if (buf.size == 0)
        rc = say(INVALID, "%s: empty file", path);
    else if (n == -2 || n == 0 ||
             (n == 1 && !(wus >= 1 && wus <= MAX_MEMBERS && wus == (int)wus)))
        rc = say(INVALID, "%s: bad <number_WUs>", path);
    r->members = n == 1 && rc == VALID ? (int)wus : 1;
    for (int k = 0; k < r->members && rc == VALID; k++)
        rc = check_member(path, text, k, &r->m[k]);
    orr_buffer_free(&buf);
    return rc;
}

/* Member k of a and b within the tolerances; b_path names the pair. */
static int compare_member(int k, const member_result *x, const member_result *y,
                          const char *b_path, const double *tol)
{
    if (x->n[TAG_ST_INTEGRAL] != y->n[TAG_ST_INTEGRAL])
        return say(INVALID, "member %d: stream counts differ (%s)", k, b_path);
    const double d = fabs(x->v[TAG_SEARCH][0] - y->v[TAG_SEARCH][0]);
    if (!(d <= tol[TOL_LIKELIHOOD]))
        return say(INVALID, "member %d: search likelihoods differ by %.3g (%s %.3g)", k, d,
                   tol_keys[TOL_LIKELIHOOD], tol[TOL_LIKELIHOOD]);
    for (int t = TAG_BG_INTEGRAL; t <= TAG_ST_INTEGRAL; t++)
        for (int i = 0; i < x->n[t]; i++) {
            const double p = x->v[t][i], q = y->v[t][i];
            const double scale = fabs(p) > fabs(q) ? fabs(p) : fabs(q);
            if (!(fabs(p - q) <= tol[TOL_INTEGRAL] * scale))
                return say(INVALID, "member %d: <%s>[%d] differs by %.3g relative (%s %.3g)", k,
                           tag_names[t], i, scale > 0 ? fabs(p - q) / scale : 0.0,
                           tol_keys[TOL_INTEGRAL], tol[TOL_INTEGRAL]);
        }
    return VALID;
}

static int compare(const char *a_path, const char *b_path, const double *tol)
{
    static result_file a, b;
    int rc = load(a_path, &a);
    if (rc == VALID)
        rc = load(b_path, &b);
    if (rc != VALID)
        return rc;
    if (a.members != b.members)
        return say(INVALID, "%s and %s hold different numbers of bundle members", a_path, b_path);
    for (int k = 0; k < a.members && rc == VALID; k++)
        rc = compare_member(k, &a.m[k], &b.m[k], b_path, tol);
    return rc;
}

/* init: the files of one result; compare: result 1's files, then result
 * 2's, compared pairwise. Another count than separation's is the daemon's
 * setup, not the result's: usage. */
static int run(const char *mode, char **paths, int n, const double *tol)
{
    static result_file r;
    const int results = strcmp(mode, "compare") == 0 ? 2 : 1;
    if (n == 0)
        return usage("%s: no file given", mode);
    if (n % results != 0)
        return usage("compare: an odd number of files (%d): want result 1's, then as many of "
                     "result 2's", n);
    if (n / results != FILES_PER_RESULT)
        return usage("%s: %d files per result; a separation result has %d", mode, n / results,
                     FILES_PER_RESULT);
    int rc = VALID;
    for (int i = 0; i < n / results && rc == VALID; i++)
        rc = results == 1 ? load(paths[i], &r) : compare(paths[i], paths[n / 2 + i], tol);
    return rc;
}

/* A tolerance: a finite number >= 0, the whole of s[0..len) (blanks aside). */
static int parse_tolerance(const char *s, size_t len, double *out)
{
    double v;
    if (orr_parse_double(s, len, &v) != 0 || !isfinite(v) || !(v >= 0))
        return -1;
    *out = v;
    return 0;
}

static void trim(const char **s, size_t *len)
{
    while (*len && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*len)--;
    }
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
        (*len)--;
}

/* One `key = value` line of a configuration file, comment and blanks gone. */
static int config_line(const char *path, int line, const char *s, size_t len, double *tol,
                       int *seen)
{
    const char *eq = memchr(s, '=', len);
    if (!eq)
        return say(RETRY, "%s:%d: \"%.*s\": no '=' (want key = value)", path, line, (int)len, s);
    const char *val = eq + 1;
    size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
    trim(&s, &klen);
    trim(&val, &vlen);
    int k = 0;
    while (k < N_TOL && !(strlen(tol_keys[k]) == klen && memcmp(s, tol_keys[k], klen) == 0))
        k++;
    if (k == N_TOL)
        return say(RETRY, "%s:%d: %.*s: unknown key (known: %s, %s)", path, line, (int)klen, s,
                   tol_keys[0], tol_keys[1]);
    if (seen[k]++)
        return say(RETRY, "%s:%d: %s: repeated key", path, line, tol_keys[k]);
    if (parse_tolerance(val, vlen, &tol[k]) != 0)
        return say(RETRY, "%s:%d: %s: bad value \"%.*s\" (want a finite number >= 0)", path,
                   line, tol_keys[k], (int)vlen, val);
    return VALID;
}

/* Sets tol[] from the configuration file at path. */
static int read_config(const char *path, double *tol)
{
    orr_buffer buf;
    int rc = read_whole(path, MAX_CONFIG_BYTES, RETRY, &buf);
    if (rc != VALID)
        return rc;
    orr_lines it;
    orr_lines_init(&it, path, &buf);
    const char *s;
    size_t len;
    int seen[N_TOL] = {0};
    while (rc == VALID && orr_lines_next(&it, &s, &len)) {
        const char *hash = memchr(s, '#', len);
        if (hash)
            len = (size_t)(hash - s);
        trim(&s, &len);
        if (len > 0)
            rc = config_line(path, it.line, s, len, tol, seen);
    }
    orr_buffer_free(&buf);
    return rc;
}

/* The configuration: --config's file, else CONFIG_NAME in the directory
 * argv[0] names (script_validator's ../bin/) if there is one there. A
 * program found on PATH (no '/' in argv[0]) has no implicit file. */
static int load_config(const char *argv0, const char *given, double *tol)
{
    char path[4096];
    const char *slash = strrchr(argv0, '/');
    if (given)
        return read_config(given, tol);
    if (!slash)
        return VALID;
    if (snprintf(path, sizeof path, "%.*s/%s", (int)(slash - argv0), argv0, CONFIG_NAME) >=
        (int)sizeof path)
        return say(RETRY, "%s: directory name too long for %s", argv0, CONFIG_NAME);
    /* lstat: a dangling link is a configuration to report, not an absence. */
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return VALID;
    return read_config(path, tol);
}

/* Options before the mode and files; *next: the first other argument. */
static int parse_options(int argc, char **argv, options *o, int *next)
{
    memset(o, 0, sizeof *o);
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int k = 0;
        while (k < N_TOL && strcmp(opt, tol_options[k]) != 0)
            k++;
        if (k == N_TOL && strcmp(opt, "--config") != 0)
            return usage("unknown option %s", opt);
        if (!val)
            return usage("%s needs a value", opt);
        if (k == N_TOL)
            o->config = val;
        else if (parse_tolerance(val, strlen(val), &o->tol[k]) != 0)
            return usage("%s %s: want a finite number >= 0", opt, val);
        else
            o->set[k] = 1;
    }
    *next = i;
    return VALID;
}

int main(int argc, char **argv)
{
    const char *argv0 = argc > 0 ? argv[0] : "orrery-validate";
    options o;
    double tol[N_TOL];
    int i = 1, rc = parse_options(argc, argv, &o, &i);
    if (rc != VALID)
        return rc;
    memcpy(tol, tol_defaults, sizeof tol);
    rc = load_config(argv0, o.config, tol);
    if (rc != VALID)
        return rc;
    for (int k = 0; k < N_TOL; k++)
        if (o.set[k])
            tol[k] = o.tol[k];

    const char *me = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    const char *mode = NULL;
    if (strcmp(me, "orrery-validate-init") == 0)
        mode = "init";
    else if (strcmp(me, "orrery-validate-compare") == 0)
        mode = "compare";
    else if (i < argc)
        mode = argv[i++];
    else
        return usage("no mode: init or compare");
    if (strcmp(mode, "init") != 0 && strcmp(mode, "compare") != 0)
        return usage("unknown mode \"%s\"", mode);
    return run(mode, argv + i, argc - i, tol);
}
