/* orrery-validate: separation, diffraction, fdtd and mom results for
 * BOINC's stock script_validator.
 *
 *   orrery-validate [OPTIONS] init FILE            is FILE a complete result?
 *   orrery-validate [OPTIONS] compare FILE1 FILE2  do two results agree?
 *   orrery-validate [OPTIONS] canonical FILE       init, then FILE as JSON on
 *                                                  stdout (orrery-assimilate's
 *                                                  one reader; "canonical:"
 *                                                  below)
 *   orrery-validate-init [OPTIONS] FILE            the same, through the links
 *   orrery-validate-compare [OPTIONS] FILE1 FILE2  that script_validator runs
 *
 * OPTIONS: --config FILE, --likelihood-tolerance X, --integral-tolerance X,
 * --r00-tolerance X, --efficiency-tolerance X, --echo-db-tolerance X,
 * --echo-sigma-tolerance X, --echo-db-tolerance-single X,
 * --echo-sigma-tolerance-single X.
 *
 * FILE is a result file as the apps write it (the output template names
 * it). Its kind is told from its content: a first line
 * "# orrery-diffraction-results 1" is a diffraction results table
 * (docs/diffraction.md section 4; rules below), a first line "# orrery fdtd
 * results 1" an fdtd result (docs/fdtd.md section 4), a first line
 * "# orrery mom results 1" a mom result (docs/mom.md section 4); anything
 * else is judged as separation's: upstream's tags, one block per bundle
 * member (member k >= 1 suffixes every tag with k) after <number_WUs> when
 * there are several.
 *
 * Separation:
 * init: every member has all five tags, with the stream count agreeing
 * between them; every value is finite; integrals are >= 0; likelihoods are
 * above upstream's failure value -999; <number_params_per_WU>, if there,
 * a whole number in 1..999999. compare: both files pass init, have
 * the same members and streams, every member's <search_likelihood> agrees
 * within the likelihood tolerance (default 1e-11 absolute: the GPU
 * agreement) and every integral within the integral tolerance (default
 * 1e-9 relative).
 *
 * Diffraction (docs/diffraction.md section 6): init: the table is whole (its
 * last line "# end points N", N point rows numbered 0..N-1, at most 64 MB)
 * and one "# work_unit HASH" line, at most one "# application TEXT", each
 * "# parameter NAME VALUE" a name ([A-Za-z_][A-Za-z0-9_]*, at most 32,
 * each once, at most 32) and a finite number; every row has its 14 + 4
 * n_orders fields well-formed: lambda > 0, 0 <= theta < 90, phi, residual
 * >= 0 finite, status ok, not_converged or unbalanced, iterations and n_orders >= 1
 * whole numbers, r00 finite, R_total >= 0 finite, T_total and absorbed
 * finite or both nan, the orders' (m, n) whole, listed in increasing (n,
 * m) (the app's order) or (m, n), (0, 0) among them, each R >= 0 finite
 * and T >= 0 finite or nan; and consistent with the unit's substrate: T
 * nan at every order and in T_total and absorbed (lossy) or nowhere,
 * R_total and T_total the orders' sums and absorbed 1 - R_total - T_total
 * (to 1e-9); and the status word as the app's energy rule gives it from
 * the row's numbers (dif_energy_balance, common/diffraction/report.h): a
 * converged point is ok within the balance, unbalanced beyond it; where
 * the rule needs the stack's materials (a lossless substrate, R_total +
 * T_total < 1 - 1e-2), which the table does not hold, either word.
 * compare: both pass init, with the same parameter and periods lines (not
 * the work_unit line: the app's hash there also names the backend and CPU
 * path), the same points (lambda, theta, phi within 1e-9), converged
 * (ok, unbalanced) or not_converged in both, the same words unless the
 * rows' numbers lie on either side of the balance's limit, the same
 * orders; at every converged point |r00_1 - r00_2|
 * <= r00_tolerance * max(|r00_1|, |r00_2|, 0.01) (default 1e-8) and every
 * efficiency (R_total, T_total, absorbed, each order's R and T) within
 * efficiency_tolerance (default 1e-8 absolute), nan where the other is nan;
 * not_converged points' values are not compared.
 *
 * FDTD (docs/fdtd.md section 6): init: the records in the app's order, each
 * stage's lines together: one work_unit (16 hex digits), one application,
 * param lines (NAME VALUE), one grid line (NX NY NZ within 1..8192, cell
 * sizes and dt > 0, 1 <= steps, boundary thesis|pec|cpml, arithmetic
 * faithful|fast, precision double|single; param names as diffraction's,
 * each once), probe lines 0..P-1 (a field and
 * a cell of the padded grid), exactly `steps` series lines numbered 1..steps
 * with P finite values each, energy lines (steps increasing within
 * 0..steps, finite), the six norm lines ex ey ez hx hy hz (finite, >= 0),
 * cell_updates_per_second and seconds (finite, >= 0), and `end` last, at
 * most 1 GiB; no other lines. compare: both pass init, with the same grid
 * line (every value equal), work_unit (the work unit's content hash, the
 * same from every backend), param lines, probe lines and energy steps (not
 * the application line); tolerance tol from the grid line's
 * arithmetic and precision: 1e-12 faithful double (the backends are
 * bit-identical, only the host's libm exp in the source can differ), 1e-9
 * fast double, 1e-5 faithful single, 1e-3 fast single. Each probe's series:
 * |a - b| <= tol * S at every step, S its field's size: the largest |value|
 * over the whole series of every probe of the same field (E or H) and the
 * final max norms of its three components, in either result; the energy
 * series the same relative to its largest value; each final norm within
 * tol times the largest norm of its kind (L2 or max) among its field's
 * three components; differences below 1e-300 always agree. (Round-off is
 * relative to the field's size: a component zero by symmetry holds noise
 * that differs between backends by 100% of itself.) Not configurable: the
 * tolerances follow from the arithmetic.
 *
 * MoM (docs/mom.md section 6.3): init: the records in the app's order: one
 * work_unit (16 hex digits), one application, param lines (NAME VALUE, at
 * most 32, names as diffraction's, each once), one geometry line (circle radius R > 0, or polygon vertices
 * V in 3..100000), one wavelength line (wavelength L > 0, k K > 0 with
 * K L = 2 pi, unknowns N, method mom|lcn, solver reference|faithful|mixed,
 * precision double|single, single only with reference, far_field
 * consistent|exact, exact only with mom), one solve line
 * (backward_error B finite, >= 0 and at most 30 n eps in double precision,
 * 30 n eps of single's eps in single (30 * 2^29 in the double eps the app
 * writes); growth_factor and smallest_pivot finite >= 0 from the faithful
 * solver, nan from the others; refinements whole, 0 but for mixed), at
 * most one warning line, one seconds line (fill, factor, solve finite
 * >= 0), echo lines (echo PHI_INC PHI SIGMA DB: angles finite, sigma/lambda
 * finite >= 0, DB its 10 log10 as written with 17 digits (to 1e-12
 * relative: another libm's log10 may differ by a few ulp), -inf for 0), and
 * `end` last, at most 1 GiB; no other lines. compare: both pass init, with
 * the same work_unit hash, param lines, geometry line and wavelength line
 * (every value equal; not the application, solve, warning and seconds
 * lines), the same echo lines' angles in the same order; then, P the
 * largest sigma of an incidence in either result and F = P * 1e-6 (double)
 * or 1e-3 (single), each sigma pair: |a - b| <= sigma_tol * max(a, b, F)
 * and, where both are >= F, |10 log10 a - 10 log10 b| <= db_tol (from
 * the sigma column's 17 digits). db_tol and sigma_tol by the precision
 * line: echo_db_tolerance (default 1e-6 dB) and echo_sigma_tolerance
 * (1e-6) in double (reference, faithful, mixed), echo_db_tolerance_single
 * (0.05 dB) and echo_sigma_tolerance_single (1e-2) in single.
 *
 * canonical: init's rules, then, if valid, the file as one line of JSON
 * on stdout (its form: the comment opening the canonical section), the only way
 * orrery-assimilate reads a result: a result init accepts is assimilable,
 * one it refuses is refused there with the same message.
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
 * likelihood_tolerance, integral_tolerance (separation), r00_tolerance and
 * efficiency_tolerance (diffraction), echo_db_tolerance,
 * echo_sigma_tolerance, echo_db_tolerance_single and
 * echo_sigma_tolerance_single (mom), each at most once, values finite and
 * >= 0. Command-line tolerances override the file's.
 *
 * Exit status (what script_validator reads): 0 valid / equal; 1 invalid /
 * different: the content is bad (empty, truncated, malformed, over 16 MB
 * (separation), 64 MB (diffraction) or 1 GiB (fdtd, mom), out of range,
 * out of tolerance; results of two kinds compared); 3 (BOINC's VAL_RESULT_TRANSIENT_ERROR)
 * could not judge: a file missing or unreadable, a bad configuration file
 * or command line, or (canonical) stdout that cannot be written.
 * script_validator retries the work unit later on 3, so a daemon's mistake
 * never invalidates volunteers' work. One line on stderr says why. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diffraction/diffraction.h"
#include "diffraction/report.h"
#include "fdtd/fdtd.h"
#include "io/io.h"
#include "mom/mom.h"
#include "separation/separation.h"

#define MAX_MEMBERS SEP_MAX_BUNDLE
#define MAX_VALUES (SEP_MAX_STREAMS + 1)
#define FAILED_LIKELIHOOD (-999.0)
/* <number_params_per_WU>: the search vector's length, checked by the
 * assimilator against the work unit's command line. */
#define SEP_MAX_PER_WU 999999
/* Output files per result: separation_out and diffraction_out have one. */
#define FILES_PER_RESULT 1
/* A separation result is a few kB; anything past 16 MB is not one. A
 * diffraction table is about 100 bytes per order and point: 64 MB, the
 * output template's <max_nbytes>, bounds what the server accepts. */
#define MAX_RESULT_BYTES ((size_t)16 << 20)
#define MAX_DIF_BYTES ((size_t)64 << 20)
#define DIF_HEADER "# orrery-diffraction-results 1"
/* An fdtd result is steps x probes values of up to 25 bytes: a long run's
 * series is large. orrery-wugen fdtd sizes each work unit's <max_nbytes>
 * and refuses one whose results could pass this. */
#define MAX_FD_BYTES ((size_t)1 << 30)
#define FD_HEADER "# orrery fdtd results 1"
/* A mom result is a few header lines and an echo line (about 60 bytes, at
 * most 104) per incidence and echo angle; orrery-wugen mom sizes each work
 * unit's <max_nbytes> and refuses one whose results could pass this. */
#define MAX_MO_BYTES ((size_t)1 << 30)
#define MO_HEADER "# orrery mom results 1"
#define MO_MAX_TOK 16
#define MO_TWO_PI 6.283185307179586
/* The dB column is printed with 17 digits, the double the app computed:
 * it differs from ours only by the two libms' log10, a few ulp. */
#define MO_DB_ROUNDTRIP 1e-12
/* LAPACK's backward-error test: at most 30 in units of n eps, eps the
 * arithmetic's; the app writes it in double's eps (2^-52): single's
 * (2^-23) is 2^29 of those. */
#define MO_BACKWARD_DOUBLE 30.0
#define MO_BACKWARD_SINGLE (30.0 * 536870912.0)
/* Below this fraction of an incidence's largest sigma (a null: -60 dB in
 * double, -30 dB in single) sigma is compared relative to the fraction,
 * not to itself, and not in dB: a null's round-off is the pattern's. */
#define MO_NULL_DOUBLE 1e-6
#define MO_NULL_SINGLE 1e-3
/* Differences this small are equal whatever the scale (all-zero series). */
#define FD_FLOOR 1e-300
/* Points agree in lambda (relatively), theta and phi (degrees) within: */
#define DIF_POINT_TOLERANCE 1e-9
/* r00 is compared relative to max(|r00|, this): its error is about the
 * solver's tolerance times the field's scale (|r00| <= 1), not |r00|'s. */
#define DIF_R00_FLOOR 0.01
/* The totals and absorbed are the app's sums of the orders' 17-digit
 * values: they agree with ours to the round-off of another order of
 * summation (efficiencies <= 1, at most 14641 terms). */
#define DIF_SUM_TOLERANCE 1e-9
/* Orders a row may list: every (m, n) of the largest truncation. */
#define DIF_MAX_ORDER_PAIRS ((2 * DIF_MAX_ORDERS + 1) * (2 * DIF_MAX_ORDERS + 1))
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
enum { TOL_LIKELIHOOD, TOL_INTEGRAL, TOL_R00, TOL_EFFICIENCY, TOL_ECHO_DB, TOL_ECHO_SIGMA,
       TOL_ECHO_DB_SINGLE, TOL_ECHO_SIGMA_SINGLE, N_TOL };
static const char *const tol_keys[N_TOL] = {
    "likelihood_tolerance", "integral_tolerance", "r00_tolerance", "efficiency_tolerance",
    "echo_db_tolerance", "echo_sigma_tolerance", "echo_db_tolerance_single",
    "echo_sigma_tolerance_single"};
static const char *const tol_options[N_TOL] = {
    "--likelihood-tolerance", "--integral-tolerance", "--r00-tolerance",
    "--efficiency-tolerance", "--echo-db-tolerance", "--echo-sigma-tolerance",
    "--echo-db-tolerance-single", "--echo-sigma-tolerance-single"};
static const double tol_defaults[N_TOL] = {1e-11, 1e-9, 1e-8, 1e-8, 1e-6, 1e-6, 0.05, 1e-2};

typedef struct {
    int n[N_TAGS];                       /* values found per tag */
    double v[N_TAGS][MAX_VALUES];
} member_result;

typedef struct {
    int members;
    int per_wu;                          /* <number_params_per_WU>, 0 if absent */
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
            "       orrery-validate [OPTIONS] canonical FILE   (init, then FILE as JSON on stdout)\n"
            "       orrery-validate-init [OPTIONS] FILE\n"
            "       orrery-validate-compare [OPTIONS] FILE1 FILE2\n"
            "options: --config FILE (default: " CONFIG_NAME " beside the program, if there)\n"
            "         --likelihood-tolerance X (default 1e-11 absolute)\n"
            "         --integral-tolerance X (default 1e-9 relative)\n"
            "         --r00-tolerance X (diffraction; default 1e-8, relative to max(|r00|, 0.01))\n"
            "         --efficiency-tolerance X (diffraction; default 1e-8 absolute)\n"
            "         --echo-db-tolerance X (mom, double; default 1e-6 dB absolute)\n"
            "         --echo-sigma-tolerance X (mom, double; default 1e-6 relative)\n"
            "         --echo-db-tolerance-single X (mom, single; default 0.05 dB absolute)\n"
            "         --echo-sigma-tolerance-single X (mom, single; default 1e-2 relative)\n"
            "fdtd results: tolerances from their arithmetic and precision (1e-12 faithful\n"
            "double, 1e-9 fast double, 1e-5 faithful single, 1e-3 fast single)\n"
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

/* The names of a result's parameter lines: each a name as the work units
 * take it ([A-Za-z_][A-Za-z0-9_]*, at most 32 characters), at most 32 of
 * them, none twice (the assimilator keeps them as an object's keys). */
#define NAME_SET_MAX 32
#define NAME_MAX_LEN 32

typedef struct {
    int n;
    char name[NAME_SET_MAX][NAME_MAX_LEN + 1];
} name_set;

/* 0 if t[0..len) is a new valid name (added), -1 if not. */
static int name_add(name_set *set, const char *t, size_t len)
{
    if (len == 0 || len > NAME_MAX_LEN || set->n == NAME_SET_MAX ||
        !(isalpha((unsigned char)t[0]) || t[0] == '_'))
        return -1;
    for (size_t i = 1; i < len; i++)
        if (!isalnum((unsigned char)t[i]) && t[i] != '_')
            return -1;
    for (int i = 0; i < set->n; i++)
        if (strlen(set->name[i]) == len && memcmp(set->name[i], t, len) == 0)
            return -1;
    memcpy(set->name[set->n], t, len);
    set->name[set->n++][len] = '\0';
    return 0;
}

/* ---- diffraction results (docs/diffraction.md section 4) ---- */

typedef struct {
    int m, n;
    double R, T;                         /* nan: not given */
} dif_order;

typedef struct {
    double lambda, theta, phi;
    int status;                          /* DIF_POINT_OK, _NOT_CONVERGED, _UNBALANCED */
    double r00[2];
    double v[3];                         /* R_total, T_total, absorbed */
    int n_orders;
    size_t first;                        /* its orders in dif_result.orders */
} dif_row;

typedef struct {
    int n_points;
    dif_row *rows;
    size_t cap_rows;
    dif_order *orders;
    size_t n_ord, cap_ord;
    /* The lines both results must share: parameters, periods. (Not the
     * work_unit line: the app writes its checkpoint identity there, which
     * also names the backend and CPU path.) */
    char *same;
    size_t same_len, same_cap;
    name_set params;                     /* the '# parameter' names */
    int application;                     /* '# application' lines */
} dif_result;

static const char *const dif_value_names[3] = {"R_total", "T_total", "absorbed"};

static void dif_free(dif_result *d)
{
    free(d->rows);
    free(d->orders);
    free(d->same);
    memset(d, 0, sizeof *d);
}

static int is_dif(const orr_buffer *buf)
{
    const size_t n = strlen(DIF_HEADER);
    return buf->size >= n && memcmp(buf->data, DIF_HEADER, n) == 0 &&
           (buf->size == n || buf->data[n] == '\n' || buf->data[n] == '\r');
}

/* Splits s[0..len) at blanks into at most max tokens; returns the count,
 * or max + 1 if there are more. */
static int dif_tokens(const char *s, size_t len, const char **tok, size_t *tlen, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len)
            break;
        const size_t start = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        if (n == max)
            return max + 1;
        tok[n] = s + start;
        tlen[n++] = i - start;
    }
    return n;
}

static int tok_eq(const char *t, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(t, word, n) == 0;
}

/* A finite number; with allow_nan also the app's "nan" (or "-nan"). */
static int dif_number(const char *t, size_t n, int allow_nan, double *out)
{
    if (allow_nan && (tok_eq(t, n, "nan") || tok_eq(t, n, "-nan"))) {
        *out = NAN;
        return 0;
    }
    return orr_parse_double(t, n, out) == 0 && isfinite(*out) ? 0 : -1;
}

static int dif_whole(const char *t, size_t n, long lo, long hi, int *out)
{
    long v;
    if (orr_parse_long(t, n, &v) != 0 || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int dif_keep(dif_result *d, const char *s, size_t len)
{
    if (d->same_len + len + 1 > d->same_cap) {
        size_t cap = d->same_cap ? 2 * d->same_cap : 1024;
        while (cap < d->same_len + len + 1)
            cap *= 2;
        char *p = realloc(d->same, cap);
        if (!p)
            return -1;
        d->same = p;
        d->same_cap = cap;
    }
    memcpy(d->same + d->same_len, s, len);
    d->same_len += len;
    d->same[d->same_len++] = '\n';
    return 0;
}

/* A '#' line other than the first and the last. */
static int dif_header_line(const char *path, int line, const char *s, size_t len, dif_result *d,
                           int *work_unit)
{
    const char *tok[5];
    size_t tlen[5];
    double v;
    const int n = dif_tokens(s, len, tok, tlen, 4);
    if (n >= 2 && tok_eq(tok[1], tlen[1], "end"))
        return say(INVALID, "%s:%d: an '# end' line before the last line", path, line);
    const int param = n >= 2 && tok_eq(tok[1], tlen[1], "parameter");
    const int keep = param || (n >= 2 && tok_eq(tok[1], tlen[1], "periods"));
    if (n >= 2 && tok_eq(tok[1], tlen[1], "work_unit")) {
        if (n != 3 || (*work_unit)++)
            return say(INVALID, "%s:%d: want one '# work_unit HASH' line", path, line);
    }
    if (n >= 2 && tok_eq(tok[1], tlen[1], "application") && (n < 3 || d->application++))
        return say(INVALID, "%s:%d: want at most one '# application TEXT' line", path, line);
    if (param && (n != 4 || name_add(&d->params, tok[2], tlen[2]) != 0 ||
                  dif_number(tok[3], tlen[3], 0, &v) != 0))
        return say(INVALID, "%s:%d: want '# parameter NAME VALUE': NAME [A-Za-z_][A-Za-z0-9_]* "
                   "of at most %d characters, each once, at most %d of them; VALUE a finite number",
                   path, line, NAME_MAX_LEN, NAME_SET_MAX);
    if (keep && dif_keep(d, s, len) != 0)
        return say(RETRY, "%s: out of memory", path);
    return VALID;
}

/* Adds room for one more row and n more orders. */
static int dif_grow(dif_result *d, int n_orders)
{
    if ((size_t)d->n_points == d->cap_rows) {
        const size_t cap = d->cap_rows ? 2 * d->cap_rows : 64;
        dif_row *p = realloc(d->rows, cap * sizeof *p);
        if (!p)
            return -1;
        d->rows = p;
        d->cap_rows = cap;
    }
    if (d->n_ord + (size_t)n_orders > d->cap_ord) {
        size_t cap = d->cap_ord ? 2 * d->cap_ord : 1024;
        while (cap < d->n_ord + (size_t)n_orders)
            cap *= 2;
        dif_order *p = realloc(d->orders, cap * sizeof *p);
        if (!p)
            return -1;
        d->orders = p;
        d->cap_ord = cap;
    }
    return 0;
}

/* The app's balance rule on the row's numbers (they are the app's
 * doubles: %.17g reads back exactly), with what the table tells of the
 * materials: only whether the substrate is lossy (T nan). Where the rule
 * needs the others (DIF_BALANCE_IF_LOSSLESS) either word is the app's. */
static int dif_energy_status(const char *path, int line, const dif_row *r)
{
    if (r->status == DIF_POINT_NOT_CONVERGED)
        return VALID;
    const int b = dif_energy_balance(r->v[0], r->v[1], isnan(r->v[1]));
    if (r->status == DIF_POINT_OK && b == DIF_BALANCE_UNBALANCED)
        return say(INVALID, "%s:%d: an ok point that makes energy: R_total %.17g, T_total %.17g "
                   "(out beyond 1 + %g: the app writes unbalanced; docs/diffraction.md section 4)",
                   path, line, r->v[0], r->v[1], DIF_ENERGY_TOLERANCE);
    if (r->status == DIF_POINT_UNBALANCED && b == DIF_BALANCE_OK)
        return say(INVALID, "%s:%d: an unbalanced point whose energy balances: R_total %.17g, "
                   "T_total %.17g (within 1 +- %g: the app writes ok; docs/diffraction.md "
                   "section 4)", path, line, r->v[0], r->v[1], DIF_ENERGY_TOLERANCE);
    return VALID;
}

/* A row's numbers agree with each other and with the work unit's
 * substrate (docs/diffraction.md section 4): T is nan at every order and in
 * T_total and absorbed (a lossy substrate) or nowhere, R nowhere; R_total
 * and T_total are the orders' sums and absorbed is 1 - R_total - T_total,
 * as the app computes them (to DIF_SUM_TOLERANCE: the file's 17 digits
 * read back to the app's doubles, summed in its order or another); and a
 * converged point's word is the app's energy rule on these numbers
 * (dif_energy_status). A not_converged point holds the last iterate,
 * whose balance nobody judges. */
static int dif_balance(const char *path, int line, const dif_row *r, const dif_order *o)
{
    const int lossy = isnan(r->v[1]);
    double sum_r = 0, sum_t = 0;
    for (int j = 0; j < r->n_orders; j++) {
        if (isnan(o[j].R) || isnan(o[j].T) != lossy)
            return say(INVALID, "%s:%d: order (%d, %d): R %g, T %g with T_total %g: R is never "
                       "nan, and T is nan at every order (a lossy substrate) or at none", path,
                       line, o[j].m, o[j].n, o[j].R, o[j].T, r->v[1]);
        sum_r += o[j].R;
        sum_t += lossy ? 0 : o[j].T;
    }
    if (!(fabs(sum_r - r->v[0]) <= DIF_SUM_TOLERANCE) ||
        (!lossy && !(fabs(sum_t - r->v[1]) <= DIF_SUM_TOLERANCE)))
        return say(INVALID, "%s:%d: R_total %.17g, T_total %.17g are not the orders' sums %.17g, "
                   "%.17g", path, line, r->v[0], r->v[1], sum_r, lossy ? NAN : sum_t);
    if (!lossy && !(fabs(1 - r->v[0] - r->v[1] - r->v[2]) <= DIF_SUM_TOLERANCE))
        return say(INVALID, "%s:%d: absorbed %.17g is not 1 - R_total - T_total (%.17g)", path,
                   line, r->v[2], 1 - r->v[0] - r->v[1]);
    return dif_energy_status(path, line, r);
}

/* One point row (tokens after splitting); on failure says why. */
static int dif_row_line(const char *path, int line, const char **tok, const size_t *tlen, int n,
                        dif_result *d)
{
#define BAD(what) say(INVALID, "%s:%d: %s", path, line, what)
    if (n < 14 || !tok_eq(tok[0], tlen[0], "point"))
        return BAD("neither a '#' line nor a 'point' row of at least 14 fields");
    int k, iterations, n_orders;
    if (dif_whole(tok[1], tlen[1], 0, DIF_MAX_POINTS - 1, &k) != 0 || k != d->n_points)
        return say(INVALID, "%s:%d: point number: want %d", path, line, d->n_points);
    if (dif_whole(tok[13], tlen[13], 1, DIF_MAX_ORDER_PAIRS, &n_orders) != 0 ||
        n != 14 + 4 * n_orders)
        return BAD("n_orders: not a whole number >= 1, or not 4 fields per order after it");
    if (dif_grow(d, n_orders) != 0)
        return say(RETRY, "%s: out of memory", path);
    dif_row *r = &d->rows[d->n_points];
    double residual;
    if (dif_number(tok[2], tlen[2], 0, &r->lambda) != 0 || !(r->lambda > 0))
        return BAD("lambda: not a number > 0");
    if (dif_number(tok[3], tlen[3], 0, &r->theta) != 0 || !(r->theta >= 0 && r->theta < 90))
        return BAD("theta: not a number in [0, 90)");
    if (dif_number(tok[4], tlen[4], 0, &r->phi) != 0)
        return BAD("phi: not a finite number");
    /* the app's words (report.c), "pending" aside: it is never written */
    r->status = DIF_POINT_STATUSES;
    for (int w = DIF_POINT_OK; w < DIF_POINT_STATUSES; w++)
        if (tok_eq(tok[5], tlen[5], dif_point_status_words[w]))
            r->status = w;
    if (r->status == DIF_POINT_STATUSES)
        return BAD("status: neither ok, not_converged nor unbalanced");
    if (dif_whole(tok[6], tlen[6], 0, INT_MAX, &iterations) != 0)
        return BAD("iterations: not a whole number >= 0");
    if (dif_number(tok[7], tlen[7], 0, &residual) != 0 || !(residual >= 0))
        return BAD("residual: not a finite number >= 0");
    if (dif_number(tok[8], tlen[8], 0, &r->r00[0]) != 0 ||
        dif_number(tok[9], tlen[9], 0, &r->r00[1]) != 0)
        return BAD("r00: not finite");
    for (int j = 0; j < 3; j++)
        if (dif_number(tok[10 + j], tlen[10 + j], j > 0, &r->v[j]) != 0 || (j < 2 && r->v[j] < 0))
            return say(INVALID, "%s:%d: %s: not a finite number%s", path, line,
                       dif_value_names[j], j < 2 ? " >= 0" : " (or nan)");
    if (isnan(r->v[1]) != isnan(r->v[2]))
        return BAD("T_total and absorbed: nan in one only");
    r->n_orders = n_orders;
    r->first = d->n_ord;
    int zero = 0, mn = 1, nm = 1;
    for (int j = 0; j < n_orders; j++) {
        dif_order *o = &d->orders[d->n_ord + (size_t)j];
        const int t = 14 + 4 * j;
        if (dif_whole(tok[t], tlen[t], -DIF_MAX_ORDERS, DIF_MAX_ORDERS, &o->m) != 0 ||
            dif_whole(tok[t + 1], tlen[t + 1], -DIF_MAX_ORDERS, DIF_MAX_ORDERS, &o->n) != 0)
            return say(INVALID, "%s:%d: order %d: m, n not whole numbers within %d", path, line,
                       j, DIF_MAX_ORDERS);
        if (dif_number(tok[t + 2], tlen[t + 2], 1, &o->R) != 0 || o->R < 0 ||
            dif_number(tok[t + 3], tlen[t + 3], 1, &o->T) != 0 || o->T < 0)
            return say(INVALID, "%s:%d: order (%d, %d): R, T not numbers >= 0 (or nan)", path,
                       line, o->m, o->n);
        /* distinct: listed in increasing (n, m), as the app does, or (m, n) */
        if (j > 0) {
            mn &= o[-1].m < o->m || (o[-1].m == o->m && o[-1].n < o->n);
            nm &= o[-1].n < o->n || (o[-1].n == o->n && o[-1].m < o->m);
            if (!mn && !nm)
                return say(INVALID, "%s:%d: order (%d, %d): the orders are not listed in "
                           "increasing (n, m) or (m, n): one repeats?", path, line, o->m, o->n);
        }
        zero |= o->m == 0 && o->n == 0;
    }
    if (!zero)
        return BAD("order (0, 0) missing");
    const int rc = dif_balance(path, line, r, &d->orders[d->n_ord]);
    if (rc != VALID)
        return rc;
    d->n_ord += (size_t)n_orders;
    d->n_points++;
    return VALID;
#undef BAD
}

/* Reads and checks a diffraction table (init's rules) already in buf. */
static int dif_load(const char *path, const orr_buffer *buf, dif_result *d)
{
    memset(d, 0, sizeof *d);
    if (buf->size > MAX_DIF_BYTES)
        return say(INVALID, "%s: larger than %zu bytes: not a result", path, MAX_DIF_BYTES);
    if (buf->data[buf->size - 1] != '\n')
        return say(INVALID, "%s: truncated (no line end at its end)", path);
    orr_lines it;
    orr_lines_init(&it, path, buf);
    const char *s;
    size_t len;
    int rc = VALID, work_unit = 0;
    long end = -1;
    const int max_tok = 14 + 4 * DIF_MAX_ORDER_PAIRS;
    static const char **tok;
    static size_t *tlen;
    if (!tok) {
        tok = malloc((size_t)(max_tok + 1) * sizeof *tok);
        tlen = malloc((size_t)(max_tok + 1) * sizeof *tlen);
        if (!tok || !tlen)
            return say(RETRY, "%s: out of memory", path);
    }
    orr_lines_next(&it, &s, &len); /* the header, checked by is_dif */
    while (rc == VALID && orr_lines_next(&it, &s, &len)) {
        if (end >= 0)
            return say(INVALID, "%s:%d: a line after '# end points'", path, it.line);
        if (len > 0 && s[len - 1] == '\r')
            len--;
        if (len > 0 && s[0] == '#') {
            const int n = dif_tokens(s, len, tok, tlen, 4);
            if (n == 4 && tok_eq(tok[1], tlen[1], "end") && tok_eq(tok[2], tlen[2], "points")) {
                int v;
                if (dif_whole(tok[3], tlen[3], 0, DIF_MAX_POINTS, &v) != 0)
                    return say(INVALID, "%s:%d: '# end points N': bad N", path, it.line);
                end = v;
            } else {
                rc = dif_header_line(path, it.line, s, len, d, &work_unit);
            }
            continue;
        }
        const int n = dif_tokens(s, len, tok, tlen, max_tok);
        if (n > max_tok)
            return say(INVALID, "%s:%d: more fields than %d orders allow", path, it.line,
                       DIF_MAX_ORDER_PAIRS);
        if (d->n_points >= DIF_MAX_POINTS)
            return say(INVALID, "%s:%d: more than %d points", path, it.line, DIF_MAX_POINTS);
        rc = dif_row_line(path, it.line, tok, tlen, n, d);
    }
    if (rc != VALID)
        return rc;
    if (end < 0)
        return say(INVALID, "%s: truncated (no '# end points N' line at its end)", path);
    if (end != d->n_points)
        return say(INVALID, "%s: %d point rows, '# end points %ld'", path, d->n_points, end);
    if (!work_unit)
        return say(INVALID, "%s: no '# work_unit HASH' line", path);
    return VALID;
}

/* Two values within tol (absolute), nan where the other is nan. */
static int dif_close(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= tol;
}

static int dif_compare(const char *b_path, const dif_result *a, const dif_result *b,
                       const double *tol)
{
    if (a->same_len != b->same_len || (a->same_len && memcmp(a->same, b->same, a->same_len)))
        return say(INVALID, "%s: another work unit (its parameter or periods lines differ)",
                   b_path);
    if (a->n_points != b->n_points)
        return say(INVALID, "%s: %d points, the other result %d", b_path, b->n_points,
                   a->n_points);
    for (int p = 0; p < a->n_points; p++) {
        const dif_row *x = &a->rows[p], *y = &b->rows[p];
        if (!(fabs(x->lambda - y->lambda) <= DIF_POINT_TOLERANCE * x->lambda &&
              fabs(x->theta - y->theta) <= DIF_POINT_TOLERANCE &&
              fabs(x->phi - y->phi) <= DIF_POINT_TOLERANCE))
            return say(INVALID, "point %d: lambda, theta, phi differ (%s)", p, b_path);
        const int nx = x->status == DIF_POINT_NOT_CONVERGED, ny = y->status == DIF_POINT_NOT_CONVERGED;
        if (nx != ny)
            return say(INVALID, "point %d: converged in one result only (%s)", p, b_path);
        if (nx)
            continue;
        if (x->status != y->status && dif_energy_balance(x->v[0], x->v[1], isnan(x->v[1])) ==
                                          dif_energy_balance(y->v[0], y->v[1], isnan(y->v[1])))
            return say(INVALID, "point %d: %s in one result, %s in the other, with numbers on "
                       "the same side of the energy balance (%s)", p,
                       dif_point_status_words[x->status], dif_point_status_words[y->status],
                       b_path);
        const double ax = hypot(x->r00[0], x->r00[1]), ay = hypot(y->r00[0], y->r00[1]);
        const double scale = fmax(fmax(ax, ay), DIF_R00_FLOOR);
        const double d = hypot(x->r00[0] - y->r00[0], x->r00[1] - y->r00[1]) / scale;
        if (!(d <= tol[TOL_R00]))
            return say(INVALID, "point %d: r00 differs by %.3g relative to max(|r00|, %g) "
                       "(%s %.3g)", p, d, DIF_R00_FLOOR, tol_keys[TOL_R00], tol[TOL_R00]);
        for (int j = 0; j < 3; j++)
            if (!dif_close(x->v[j], y->v[j], tol[TOL_EFFICIENCY]))
                return say(INVALID, "point %d: %s differs by %.3g (%s %.3g)", p,
                           dif_value_names[j], fabs(x->v[j] - y->v[j]),
                           tol_keys[TOL_EFFICIENCY], tol[TOL_EFFICIENCY]);
        if (x->n_orders != y->n_orders)
            return say(INVALID, "point %d: %d orders, the other result %d (%s)", p,
                       y->n_orders, x->n_orders, b_path);
        for (int j = 0; j < x->n_orders; j++) {
            const dif_order *o = &a->orders[x->first + (size_t)j];
            const dif_order *q = &b->orders[y->first + (size_t)j];
            if (o->m != q->m || o->n != q->n)
                return say(INVALID, "point %d: other orders (%s)", p, b_path);
            if (!dif_close(o->R, q->R, tol[TOL_EFFICIENCY]) ||
                !dif_close(o->T, q->T, tol[TOL_EFFICIENCY]))
                return say(INVALID, "point %d: order (%d, %d): R or T differs by %.3g (%s %.3g)",
                           p, o->m, o->n, fmax(fabs(o->R - q->R), fabs(o->T - q->T)),
                           tol_keys[TOL_EFFICIENCY], tol[TOL_EFFICIENCY]);
        }
    }
    return VALID;
}

/* ---- fdtd results (docs/fdtd.md section 4) ---- */

/* Records in the order the app writes them; a stage's lines are
 * consecutive. */
enum { FD_WU, FD_APP, FD_PARAM, FD_GRID, FD_PROBE, FD_SERIES, FD_ENERGY, FD_NORM, FD_CUPS,
       FD_SECONDS, FD_END, FD_N_STAGES };

static const char *const fd_keys[FD_N_STAGES] = {
    "work_unit", "application", "param", "grid", "probe", "series", "energy", "norm",
    "cell_updates_per_second", "seconds", "end"};
static const char *const fd_fields[FDTD_N_FIELDS] = {"ex", "ey", "ez", "hx", "hy", "hz"};
static const char *const fd_boundaries[3] = {"thesis", "pec", "cpml"};
static const char *const fd_arithmetics[2] = {"faithful", "fast"};
static const char *const fd_precisions[2] = {"double", "single"};
/* [precision][arithmetic]: faithful double backends are bit-identical but
 * for the host's libm exp in the source; fast ones contract and reorder. */
static const double fd_tolerances[2][2] = {{1e-12, 1e-9}, {1e-5, 1e-3}};

typedef struct {
    int n[3];
    double d[3], dt;
    long steps;
    int boundary, fast, single;
} fd_grid;

typedef struct {
    orr_buffer buf;                      /* the file: compare walks it again */
    int stage;                           /* the last line's; -1 before any */
    long count[FD_N_STAGES];             /* lines per stage */
    const char *at[FD_N_STAGES];         /* each stage's first line, in buf */
    int line[FD_N_STAGES];               /* and its line number */
    char work_unit[17];                  /* the work unit's content hash */
    fd_grid grid;
    long last_energy;                    /* step of the last energy line */
    double norm[FDTD_N_FIELDS][2];       /* L2, max */
    name_set params;                     /* the param lines' names */
    unsigned char probe_h[FDTD_MAX_PROBES];   /* 1: the probe records an H component */
} fd_result;

/* Tokens of a series line: the keyword, the step, a value per probe. */
#define FD_MAX_TOK (FDTD_MAX_PROBES + 2)

static void fd_free(fd_result *f)
{
    orr_buffer_free(&f->buf);
    memset(f, 0, sizeof *f);
}

static int is_fd(const orr_buffer *buf)
{
    const size_t n = strlen(FD_HEADER);
    return buf->size >= n && memcmp(buf->data, FD_HEADER, n) == 0 &&
           (buf->size == n || buf->data[n] == '\n' || buf->data[n] == '\r');
}

/* The index of token t among words[0..n), or -1. */
static int fd_word(const char *t, size_t len, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (tok_eq(t, len, words[i]))
            return i;
    return -1;
}

static int fd_long(const char *t, size_t n, long lo, long hi, long *out)
{
    return orr_parse_long(t, n, out) == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

/* A finite number >= lo. */
static int fd_number(const char *t, size_t n, double lo, double *out)
{
    return dif_number(t, n, 0, out) == 0 && *out >= lo ? 0 : -1;
}

/* grid NX NY NZ cell DX DY DZ dt DT steps N boundary B arithmetic A
 * precision P */
static int fd_grid_line(const char **tok, const size_t *tlen, int n, fd_grid *g)
{
    static const char *const keys[6] = {"cell", "dt", "steps", "boundary", "arithmetic",
                                        "precision"};
    static const int key_at[6] = {4, 8, 10, 12, 14, 16};
    if (n != 18)
        return -1;
    for (int i = 0; i < 6; i++)
        if (!tok_eq(tok[key_at[i]], tlen[key_at[i]], keys[i]))
            return -1;
    for (int a = 0; a < 3; a++)
        if (dif_whole(tok[1 + a], tlen[1 + a], 1, FDTD_MAX_N, &g->n[a]) != 0 ||
            fd_number(tok[5 + a], tlen[5 + a], 0, &g->d[a]) != 0 || !(g->d[a] > 0))
            return -1;
    if (fd_number(tok[9], tlen[9], 0, &g->dt) != 0 || !(g->dt > 0) ||
        fd_long(tok[11], tlen[11], 1, FDTD_MAX_STEPS, &g->steps) != 0)
        return -1;
    g->boundary = fd_word(tok[13], tlen[13], fd_boundaries, 3);
    g->fast = fd_word(tok[15], tlen[15], fd_arithmetics, 2);
    g->single = fd_word(tok[17], tlen[17], fd_precisions, 2);
    return g->boundary < 0 || g->fast < 0 || g->single < 0 ? -1 : 0;
}

/* probe P FIELD I J K: P the next number, the cell within the padded grid */
static int fd_probe_line(const char **tok, const size_t *tlen, int n, fd_result *f)
{
    long p;
    int at, field;
    if (n != 6 || fd_long(tok[1], tlen[1], 0, FDTD_MAX_PROBES - 1, &p) != 0 ||
        p != f->count[FD_PROBE] || (field = fd_word(tok[2], tlen[2], fd_fields, FDTD_N_FIELDS)) < 0)
        return -1;
    for (int a = 0; a < 3; a++)
        if (dif_whole(tok[3 + a], tlen[3 + a], 0, f->grid.n[a] + 1, &at) != 0)
            return -1;
    f->probe_h[p] = field >= FDTD_HX;
    return 0;
}

/* series N V0 V1 ...: N the next step, a finite value per probe */
static int fd_series_line(const char **tok, const size_t *tlen, int n, const fd_result *f)
{
    long step;
    double v;
    if (n != 2 + f->count[FD_PROBE] || fd_long(tok[1], tlen[1], 1, f->grid.steps, &step) != 0 ||
        step != f->count[FD_SERIES] + 1)
        return -1;
    for (int i = 2; i < n; i++)
        if (dif_number(tok[i], tlen[i], 0, &v) != 0)
            return -1;
    return 0;
}

/* energy N W: steps increasing within 0..steps, W finite */
static int fd_energy_line(const char **tok, const size_t *tlen, int n, fd_result *f)
{
    long step;
    double w;
    if (n != 3 || fd_long(tok[1], tlen[1], 0, f->grid.steps, &step) != 0 ||
        step <= f->last_energy || dif_number(tok[2], tlen[2], 0, &w) != 0)
        return -1;
    f->last_energy = step;
    return 0;
}

/* norm FIELD L2 MAX, the six fields in order */
static int fd_norm_line(const char **tok, const size_t *tlen, int n, fd_result *f)
{
    const long k = f->count[FD_NORM];
    if (n != 4 || k >= FDTD_N_FIELDS || !tok_eq(tok[1], tlen[1], fd_fields[k]) ||
        fd_number(tok[2], tlen[2], 0, &f->norm[k][0]) != 0 ||
        fd_number(tok[3], tlen[3], 0, &f->norm[k][1]) != 0)
        return -1;
    return 0;
}

/* One record of stage st, well-formed? 0 or -1. */
static int fd_record(int st, const char **tok, const size_t *tlen, int n, fd_result *f)
{
    double x;
    switch (st) {
    case FD_WU:
        if (n != 2 || tlen[1] != 16 || strspn(tok[1], "0123456789abcdef") < 16)
            return -1;
        memcpy(f->work_unit, tok[1], 16);
        return 0;
    case FD_APP:
        return n >= 2 ? 0 : -1;
    case FD_PARAM:
        return n == 3 && f->count[FD_PARAM] < FDTD_MAX_PARAMS &&
                       name_add(&f->params, tok[1], tlen[1]) == 0
                   ? 0
                   : -1;
    case FD_GRID:
        return fd_grid_line(tok, tlen, n, &f->grid);
    case FD_PROBE:
        return fd_probe_line(tok, tlen, n, f);
    case FD_SERIES:
        return fd_series_line(tok, tlen, n, f);
    case FD_ENERGY:
        return fd_energy_line(tok, tlen, n, f);
    case FD_NORM:
        return fd_norm_line(tok, tlen, n, f);
    case FD_CUPS:
    case FD_SECONDS:
        return n == 2 && fd_number(tok[1], tlen[1], 0, &x) == 0 ? 0 : -1;
    default:
        return n == 1 ? 0 : -1;
    }
}

/* Whether stage t has all its lines (before a later stage starts). */
static int fd_complete(const fd_result *f, int t)
{
    switch (t) {
    case FD_PARAM:
    case FD_ENERGY:
        return 1;
    case FD_PROBE:
        return f->count[t] >= 1;
    case FD_SERIES:
        return f->count[t] == f->grid.steps;
    case FD_NORM:
        return f->count[t] == FDTD_N_FIELDS;
    default:
        return f->count[t] == 1;
    }
}

/* A line of stage st comes: the stages before it must be complete, no
 * stage comes back, one-line stages do not repeat. */
static int fd_enter(const char *path, int line, fd_result *f, int st)
{
    if (st < f->stage)
        return say(INVALID, "%s:%d: '%s' after the '%s' lines: out of order", path, line,
                   fd_keys[st], fd_keys[f->stage]);
    if (st == f->stage)
        return st == FD_PARAM || st == FD_PROBE || st == FD_SERIES || st == FD_ENERGY ||
                       st == FD_NORM
                   ? VALID
                   : say(INVALID, "%s:%d: a second '%s' line", path, line, fd_keys[st]);
    for (int t = f->stage < 0 ? 0 : f->stage; t < st; t++)
        if (!fd_complete(f, t))
            return say(INVALID, "%s:%d: '%s' after %ld '%s' line(s), want %s", path, line,
                       fd_keys[st], f->count[t], fd_keys[t],
                       t == FD_SERIES ? "one per step" : t == FD_NORM ? "6" :
                       t == FD_PROBE ? "at least 1" : "1");
    f->stage = st;
    return VALID;
}

/* Reads and checks an fdtd results file (init's rules) already in f->buf. */
static int fd_load(const char *path, fd_result *f)
{
    static const char *tok[FD_MAX_TOK + 1];
    static size_t tlen[FD_MAX_TOK + 1];
    if (f->buf.size > MAX_FD_BYTES)
        return say(INVALID, "%s: larger than %zu bytes: not a result", path, MAX_FD_BYTES);
    if (f->buf.data[f->buf.size - 1] != '\n')
        return say(INVALID, "%s: truncated (no line end at its end)", path);
    f->stage = -1;
    f->last_energy = -1;
    orr_lines it;
    orr_lines_init(&it, path, &f->buf);
    const char *s;
    size_t len;
    orr_lines_next(&it, &s, &len); /* the header, checked by is_fd */
    while (orr_lines_next(&it, &s, &len)) {
        if (f->stage == FD_END)
            return say(INVALID, "%s:%d: a line after 'end'", path, it.line);
        const int n = dif_tokens(s, len, tok, tlen, FD_MAX_TOK);
        const int st = n > 0 ? fd_word(tok[0], tlen[0], fd_keys, FD_N_STAGES) : -1;
        if (st < 0)
            return say(INVALID, "%s:%d: not a record of an fdtd results file", path, it.line);
        const int rc = fd_enter(path, it.line, f, st);
        if (rc != VALID)
            return rc;
        if (fd_record(st, tok, tlen, n, f) != 0)
            return say(INVALID, "%s:%d: a malformed '%s' line (docs/fdtd.md section 4)", path,
                       it.line, fd_keys[st]);
        if (f->count[st]++ == 0) {
            f->at[st] = s;
            f->line[st] = it.line;
        }
    }
    if (f->stage != FD_END)
        return say(INVALID, "%s: truncated (no 'end' line; %ld of %ld series lines)", path,
                   f->count[FD_SERIES], f->grid.steps);
    return VALID;
}

/* Walks stage st's lines of a and b together: the next pair's tokens. */
typedef struct {
    orr_lines a, b;
    const char *ta[FD_MAX_TOK + 1], *tb[FD_MAX_TOK + 1];
    size_t la[FD_MAX_TOK + 1], lb[FD_MAX_TOK + 1];
    int na, nb;
} fd_pair;

static void fd_pair_start(fd_pair *w, const fd_result *a, const fd_result *b, int st)
{
    orr_lines_init(&w->a, "", &a->buf);
    orr_lines_init(&w->b, "", &b->buf);
    w->a.pos = a->at[st];
    w->b.pos = b->at[st];
    w->a.line = a->line[st] - 1;
    w->b.line = b->line[st] - 1;
}

static void fd_pair_next(fd_pair *w)
{
    const char *s;
    size_t len;
    w->na = orr_lines_next(&w->a, &s, &len) ? dif_tokens(s, len, w->ta, w->la, FD_MAX_TOK) : 0;
    w->nb = orr_lines_next(&w->b, &s, &len) ? dif_tokens(s, len, w->tb, w->lb, FD_MAX_TOK) : 0;
}

static double fd_value(const char *t, size_t n)
{
    double v = NAN;
    orr_parse_double(t, n, &v);
    return v;
}

static const char *fd_mode(const fd_grid *g)
{
    static char s[32];
    snprintf(s, sizeof s, "%s %s", fd_arithmetics[g->fast], fd_precisions[g->single]);
    return s;
}

/* The same grid line: every value equal. */
static int fd_same_grid(const char *b_path, const fd_grid *x, const fd_grid *y)
{
    if (x->steps != y->steps)
        return say(INVALID, "%s: %ld steps, the other result %ld", b_path, y->steps, x->steps);
    for (int a = 0; a < 3; a++)
        if (x->n[a] != y->n[a] || x->d[a] != y->d[a])
            return say(INVALID, "%s: another grid (its grid line differs)", b_path);
    if (x->dt != y->dt || x->boundary != y->boundary || x->fast != y->fast ||
        x->single != y->single)
        return say(INVALID, "%s: another dt, boundary, arithmetic or precision (grid line)",
                   b_path);
    return VALID;
}

/* Stage st's lines (param, probe) the same, token for token. */
static int fd_same_lines(const char *b_path, const fd_result *a, const fd_result *b, int st)
{
    if (a->count[st] != b->count[st])
        return say(INVALID, "%s: %ld '%s' lines, the other result %ld", b_path, b->count[st],
                   fd_keys[st], a->count[st]);
    static fd_pair w;
    if (a->count[st] > 0)
        fd_pair_start(&w, a, b, st);
    for (long i = 0; i < a->count[st]; i++) {
        fd_pair_next(&w);
        int same = w.na == w.nb;
        for (int k = 0; same && k < w.na; k++)
            same = w.la[k] == w.lb[k] && memcmp(w.ta[k], w.tb[k], w.la[k]) == 0;
        if (!same)
            return say(INVALID, "%s:%d: another '%s' line than the other result's", b_path,
                       w.b.line, fd_keys[st]);
    }
    return VALID;
}

/* |x - y| within tol times scale (the largest |value| of the series), or
 * the floor. */
static int fd_within(double diff, double scale, double tol)
{
    return diff <= fmax(tol * scale, FD_FLOOR);
}

/* The size of the E field (h 0) or the H field (h 1) in a run: the largest
 * |value| of its probes' series (series_max, either result) and of its
 * components' final max norms (both results). Round-off is relative to
 * that, not to one probe's or one component's own size: a component that
 * is zero by symmetry (Hz of an Ez source in a cavity) holds noise only,
 * which differs between backends by 100% of itself. */
static double fd_field_scale(const fd_result *a, const fd_result *b, int h,
                             const double *series_max)
{
    double s = 0;
    for (long p = 0; p < a->count[FD_PROBE]; p++)
        if (a->probe_h[p] == h)
            s = fmax(s, series_max[p]);
    for (int f = 3 * h; f < 3 * h + 3; f++)
        s = fmax(s, fmax(a->norm[f][1], b->norm[f][1]));
    return s;
}

/* Each probe's series: its largest difference within tol times its
 * field's size (fd_field_scale). */
static int fd_same_series(const char *b_path, const fd_result *a, const fd_result *b, double tol)
{
    static double diff[FDTD_MAX_PROBES], scale[FDTD_MAX_PROBES];
    static long worst[FDTD_MAX_PROBES];
    static fd_pair w;
    const int np = (int)a->count[FD_PROBE];
    for (int p = 0; p < np; p++)
        diff[p] = scale[p] = 0, worst[p] = 0;
    fd_pair_start(&w, a, b, FD_SERIES);
    for (long s = 1; s <= a->grid.steps; s++) {
        fd_pair_next(&w);
        for (int p = 0; p < np; p++) {
            const double x = fd_value(w.ta[2 + p], w.la[2 + p]);
            const double y = fd_value(w.tb[2 + p], w.lb[2 + p]);
            scale[p] = fmax(scale[p], fmax(fabs(x), fabs(y)));
            if (fabs(x - y) > diff[p])
                diff[p] = fabs(x - y), worst[p] = s;
        }
    }
    const double field[2] = {fd_field_scale(a, b, 0, scale), fd_field_scale(a, b, 1, scale)};
    for (int p = 0; p < np; p++) {
        const double size = field[a->probe_h[p]];
        if (!fd_within(diff[p], size, tol))
            return say(INVALID, "probe %d: step %ld differs by %.3g, %.3g of the %c field's "
                       "largest |value| %.3g (tolerance %g, %s; %s)", p, worst[p], diff[p],
                       diff[p] / size, a->probe_h[p] ? 'H' : 'E', size, tol, fd_mode(&a->grid),
                       b_path);
    }
    return VALID;
}

/* The energy series: the same steps, values within tol times its largest. */
static int fd_same_energy(const char *b_path, const fd_result *a, const fd_result *b, double tol)
{
    if (a->count[FD_ENERGY] != b->count[FD_ENERGY])
        return say(INVALID, "%s: %ld energy lines, the other result %ld", b_path,
                   b->count[FD_ENERGY], a->count[FD_ENERGY]);
    static fd_pair w;
    double diff = 0, scale = 0;
    long worst = 0;
    if (a->count[FD_ENERGY] > 0)
        fd_pair_start(&w, a, b, FD_ENERGY);
    for (long i = 0; i < a->count[FD_ENERGY]; i++) {
        fd_pair_next(&w);
        if (w.la[1] != w.lb[1] || memcmp(w.ta[1], w.tb[1], w.la[1]) != 0)
            return say(INVALID, "%s:%d: an energy line of another step", b_path, w.b.line);
        const double x = fd_value(w.ta[2], w.la[2]), y = fd_value(w.tb[2], w.lb[2]);
        scale = fmax(scale, fmax(fabs(x), fabs(y)));
        if (fabs(x - y) > diff)
            diff = fabs(x - y), worst = (long)fd_value(w.ta[1], w.la[1]);
    }
    if (!fd_within(diff, scale, tol))
        return say(INVALID, "energy: step %ld differs by %.3g, %.3g of the largest energy %.3g "
                   "(tolerance %g, %s; %s)", worst, diff, diff / scale, scale, tol,
                   fd_mode(&a->grid), b_path);
    return VALID;
}

/* Each final norm within tol times the largest of its kind (L2 or max)
 * over its field's three components, in either result (the noise of a
 * component zero by symmetry is not compared to itself). */
static int fd_same_norms(const char *b_path, const fd_result *a, const fd_result *b, double tol)
{
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        for (int k = 0; k < 2; k++) {
            double size = 0;
            for (int g = f / 3 * 3; g < f / 3 * 3 + 3; g++)
                size = fmax(size, fmax(a->norm[g][k], b->norm[g][k]));
            const double d = fabs(a->norm[f][k] - b->norm[f][k]);
            if (!fd_within(d, size, tol))
                return say(INVALID, "norm %s: the %s norms differ by %.3g, %.3g of the %c "
                           "field's largest (tolerance %g, %s; %s)", fd_fields[f],
                           k ? "max" : "L2", d, d / size, f < 3 ? 'E' : 'H', tol,
                           fd_mode(&a->grid), b_path);
        }
    return VALID;
}

static int fd_compare(const char *b_path, const fd_result *a, const fd_result *b)
{
    /* The hash is the work unit's content's: every backend writes the same. */
    if (memcmp(a->work_unit, b->work_unit, 16) != 0)
        return say(INVALID, "%s: another work unit (work_unit %s, the other result %s)", b_path,
                   b->work_unit, a->work_unit);
    int rc = fd_same_grid(b_path, &a->grid, &b->grid);
    if (rc == VALID)
        rc = fd_same_lines(b_path, a, b, FD_PARAM);
    if (rc == VALID)
        rc = fd_same_lines(b_path, a, b, FD_PROBE);
    const double tol = fd_tolerances[a->grid.single][a->grid.fast];
    if (rc == VALID)
        rc = fd_same_series(b_path, a, b, tol);
    if (rc == VALID)
        rc = fd_same_energy(b_path, a, b, tol);
    if (rc == VALID)
        rc = fd_same_norms(b_path, a, b, tol);
    return rc;
}

/* ---- mom results (docs/mom.md section 4) ---- */

/* Records in the order the app writes them; a stage's lines are
 * consecutive. */
enum { MO_WU, MO_APP, MO_PARAM, MO_GEOMETRY, MO_WAVELENGTH, MO_SOLVE, MO_WARNING, MO_SECONDS,
       MO_ECHO, MO_END, MO_N_STAGES };

static const char *const mo_keys[MO_N_STAGES] = {
    "work_unit", "application", "param", "geometry", "wavelength", "solve", "warning",
    "seconds", "echo", "end"};
static const char *const mo_methods[2] = {"mom", "lcn"};
static const char *const mo_solvers[3] = {"reference", "faithful", "mixed"};
static const char *const mo_precisions[2] = {"double", "single"};
static const char *const mo_shapes[2] = {"circle", "polygon"};
static const char *const mo_far_fields[2] = {"consistent", "exact"};

typedef struct {
    double wavelength, k;
    long unknowns;
    int method, solver, single, far_field;
} mo_setup;

typedef struct {
    int stage;                           /* the last line's; -1 before any */
    long count[MO_N_STAGES];             /* lines per stage */
    char work_unit[17];                  /* the work unit's content hash */
    int shape;                           /* geometry: circle or polygon */
    double size;                         /* its radius or vertex count */
    mo_setup setup;                      /* the wavelength line */
    double backward;                     /* the solve line's backward error */
    char *params;                        /* the param lines, '\n' after each */
    name_set names;                      /* and their names */
    size_t params_len, params_cap;
    double *echo;                        /* [count[MO_ECHO]][3]: incidence, angle, sigma */
    size_t echo_cap;
} mo_result;

static void mo_free(mo_result *m)
{
    free(m->params);
    free(m->echo);
    memset(m, 0, sizeof *m);
}

static int is_mo(const orr_buffer *buf)
{
    const size_t n = strlen(MO_HEADER);
    return buf->size >= n && memcmp(buf->data, MO_HEADER, n) == 0 &&
           (buf->size == n || buf->data[n] == '\n' || buf->data[n] == '\r');
}

/* A finite number, or nan ("nan", "-nan": what printf writes) where
 * allow_nan. */
static int mo_number(const char *t, size_t n, int allow_nan, double *out)
{
    return dif_number(t, n, allow_nan, out);
}

/* geometry circle radius R | geometry polygon vertices V */
static int mo_geometry_line(const char **tok, const size_t *tlen, int n, mo_result *m)
{
    int v;
    if (n != 4 || (m->shape = fd_word(tok[1], tlen[1], mo_shapes, 2)) < 0)
        return -1;
    if (m->shape == 0)
        return tok_eq(tok[2], tlen[2], "radius") && mo_number(tok[3], tlen[3], 0, &m->size) == 0 &&
                       m->size > 0
                   ? 0
                   : -1;
    if (!tok_eq(tok[2], tlen[2], "vertices") ||
        dif_whole(tok[3], tlen[3], 3, MOM_MAX_VERTICES, &v) != 0)
        return -1;
    m->size = v;
    return 0;
}

/* wavelength L k K unknowns N method M solver S precision P far_field F:
 * L, K finite and > 0 with K L = 2 pi; N whole; the faithful and mixed
 * solvers in double (mixed is single then double by definition: it
 * reports double); F exact only with method mom (LCN has no flat-cell
 * pulses). */
static int mo_wavelength_line(const char **tok, const size_t *tlen, int n, mo_setup *s)
{
    static const char *const keys[6] = {"k", "unknowns", "method", "solver", "precision",
                                        "far_field"};
    if (n != 14 || !tok_eq(tok[0], tlen[0], "wavelength"))
        return -1;
    for (int i = 0; i < 6; i++)
        if (!tok_eq(tok[2 + 2 * i], tlen[2 + 2 * i], keys[i]))
            return -1;
    if (mo_number(tok[1], tlen[1], 0, &s->wavelength) != 0 || !(s->wavelength > 0) ||
        mo_number(tok[3], tlen[3], 0, &s->k) != 0 || !(s->k > 0) ||
        fabs(s->k * s->wavelength - MO_TWO_PI) > 1e-12 * MO_TWO_PI ||
        fd_long(tok[5], tlen[5], 3, (long)MOM_MAX_CELLS * MOM_MAX_ORDER, &s->unknowns) != 0)
        return -1;
    s->method = fd_word(tok[7], tlen[7], mo_methods, 2);
    s->solver = fd_word(tok[9], tlen[9], mo_solvers, 3);
    s->single = fd_word(tok[11], tlen[11], mo_precisions, 2);
    s->far_field = fd_word(tok[13], tlen[13], mo_far_fields, 2);
    if (s->method < 0 || s->solver < 0 || s->single < 0 || s->far_field < 0)
        return -1;
    if (s->far_field == 1 && s->method != 0)
        return -1;
    return s->single && s->solver != 0 ? -1 : 0;
}

/* solve backward_error B growth_factor G smallest_pivot S refinements R:
 * B finite and >= 0 (its bound is checked by mo_load); G and S finite and
 * >= 0 from the faithful solver, nan from the others; R whole >= 0, 0 but
 * for the mixed solver. */
static int mo_solve_line(const char **tok, const size_t *tlen, int n, mo_result *m)
{
    static const char *const keys[4] = {"backward_error", "growth_factor", "smallest_pivot",
                                        "refinements"};
    const int faithful = m->setup.solver == 1, mixed = m->setup.solver == 2;
    double g, p;
    long r;
    if (n != 9)
        return -1;
    for (int i = 0; i < 4; i++)
        if (!tok_eq(tok[1 + 2 * i], tlen[1 + 2 * i], keys[i]))
            return -1;
    if (mo_number(tok[2], tlen[2], 0, &m->backward) != 0 || !(m->backward >= 0) ||
        mo_number(tok[4], tlen[4], !faithful, &g) != 0 ||
        mo_number(tok[6], tlen[6], !faithful, &p) != 0 ||
        fd_long(tok[8], tlen[8], 0, mixed ? LONG_MAX : 0, &r) != 0)
        return -1;
    if (faithful)
        return g >= 0 && p >= 0 ? 0 : -1;
    return isnan(g) && isnan(p) ? 0 : -1;
}

/* seconds fill F factor G solve H, each finite and >= 0 */
static int mo_seconds_line(const char **tok, const size_t *tlen, int n)
{
    static const char *const keys[3] = {"fill", "factor", "solve"};
    double x;
    if (n != 7)
        return -1;
    for (int i = 0; i < 3; i++)
        if (!tok_eq(tok[1 + 2 * i], tlen[1 + 2 * i], keys[i]) ||
            fd_number(tok[2 + 2 * i], tlen[2 + 2 * i], 0, &x) != 0)
            return -1;
    return 0;
}

/* echo PHI_INC PHI SIGMA DB: the angles finite, sigma/lambda finite and
 * >= 0, DB its 10 log10 (17 digits: to MO_DB_ROUNDTRIP relative), -inf
 * where sigma is 0. */
static int mo_echo_line(const char **tok, const size_t *tlen, int n, mo_result *m)
{
    double inc, phi, sigma, db;
    if (n != 5 || mo_number(tok[1], tlen[1], 0, &inc) != 0 ||
        mo_number(tok[2], tlen[2], 0, &phi) != 0 || fd_number(tok[3], tlen[3], 0, &sigma) != 0)
        return -1;
    if (sigma == 0) {
        if (!tok_eq(tok[4], tlen[4], "-inf"))
            return -1;
    } else if (mo_number(tok[4], tlen[4], 0, &db) != 0 ||
               !(fabs(db - 10 * log10(sigma)) <= MO_DB_ROUNDTRIP * fmax(1, fabs(db))))
        return -1;
    const size_t k = (size_t)m->count[MO_ECHO];
    if (k == m->echo_cap) {
        const size_t cap = m->echo_cap ? 2 * m->echo_cap : 256;
        double *e = realloc(m->echo, cap * 3 * sizeof *e);
        if (!e)
            return -2;
        m->echo = e;
        m->echo_cap = cap;
    }
    m->echo[3 * k] = inc;
    m->echo[3 * k + 1] = phi;
    m->echo[3 * k + 2] = sigma;
    return 0;
}

/* One record of stage st, well-formed? 0, -1, or -2 out of memory. */
static int mo_record(int st, const char **tok, const size_t *tlen, int n, mo_result *m)
{
    switch (st) {
    case MO_WU:
        if (n != 2 || tlen[1] != 16 || strspn(tok[1], "0123456789abcdef") < 16)
            return -1;
        memcpy(m->work_unit, tok[1], 16);
        return 0;
    case MO_APP:
    case MO_WARNING:
        return n >= 2 ? 0 : -1;
    case MO_PARAM: {
        if (n != 3 || m->count[MO_PARAM] >= MOM_MAX_PARAMS ||
            name_add(&m->names, tok[1], tlen[1]) != 0)
            return -1;
        /* kept as its tokens, one blank apart: compared between results */
        const size_t need = tlen[1] + tlen[2] + 2;
        if (m->params_len + need > m->params_cap) {
            const size_t cap = 2 * (m->params_len + need) + 256;
            char *p = realloc(m->params, cap);
            if (!p)
                return -2;
            m->params = p;
            m->params_cap = cap;
        }
        char *at = m->params + m->params_len;
        memcpy(at, tok[1], tlen[1]);
        at[tlen[1]] = ' ';
        memcpy(at + tlen[1] + 1, tok[2], tlen[2]);
        at[need - 1] = '\n';
        m->params_len += need;
        return 0;
    }
    case MO_GEOMETRY:
        return mo_geometry_line(tok, tlen, n, m);
    case MO_WAVELENGTH:
        return mo_wavelength_line(tok, tlen, n, &m->setup);
    case MO_SOLVE:
        return mo_solve_line(tok, tlen, n, m);
    case MO_SECONDS:
        return mo_seconds_line(tok, tlen, n);
    case MO_ECHO:
        return mo_echo_line(tok, tlen, n, m);
    default:
        return n == 1 ? 0 : -1;
    }
}

/* A line of stage st comes: the stages before it complete (one line each,
 * but param, warning and echo: any number, warning at most one), no stage
 * comes back, one-line stages do not repeat. */
static int mo_enter(const char *path, int line, mo_result *m, int st)
{
    if (st < m->stage)
        return say(INVALID, "%s:%d: '%s' after the '%s' lines: out of order", path, line,
                   mo_keys[st], mo_keys[m->stage]);
    if (st == m->stage)
        return st == MO_PARAM || st == MO_ECHO
                   ? VALID
                   : say(INVALID, "%s:%d: a second '%s' line", path, line, mo_keys[st]);
    for (int t = m->stage < 0 ? 0 : m->stage; t < st; t++)
        if (t != MO_PARAM && t != MO_WARNING && t != MO_ECHO && m->count[t] != 1)
            return say(INVALID, "%s:%d: '%s' without a '%s' line before it", path, line,
                       mo_keys[st], mo_keys[t]);
    m->stage = st;
    return VALID;
}

/* Reads and checks a mom results file (init's rules) already in buf. */
static int mo_load(const char *path, const orr_buffer *buf, mo_result *m)
{
    const char *tok[MO_MAX_TOK + 1];
    size_t tlen[MO_MAX_TOK + 1];
    memset(m, 0, sizeof *m);
    if (buf->size > MAX_MO_BYTES)
        return say(INVALID, "%s: larger than %zu bytes: not a result", path, MAX_MO_BYTES);
    if (buf->data[buf->size - 1] != '\n')
        return say(INVALID, "%s: truncated (no line end at its end)", path);
    m->stage = -1;
    orr_lines it;
    orr_lines_init(&it, path, buf);
    const char *s;
    size_t len;
    orr_lines_next(&it, &s, &len); /* the header, checked by is_mo */
    while (orr_lines_next(&it, &s, &len)) {
        if (m->stage == MO_END)
            return say(INVALID, "%s:%d: a line after 'end'", path, it.line);
        const int n = dif_tokens(s, len, tok, tlen, MO_MAX_TOK);
        const int st = n > 0 ? fd_word(tok[0], tlen[0], mo_keys, MO_N_STAGES) : -1;
        if (st < 0)
            return say(INVALID, "%s:%d: not a record of a mom results file", path, it.line);
        int rc = mo_enter(path, it.line, m, st);
        if (rc != VALID)
            return rc;
        rc = mo_record(st, tok, tlen, n, m);
        if (rc == -2)
            return say(RETRY, "%s: out of memory", path);
        if (rc != 0)
            return say(INVALID, "%s:%d: a malformed '%s' line (docs/mom.md section 4)", path,
                       it.line, mo_keys[st]);
        m->count[st]++;
        if (st == MO_SOLVE) {
            /* LAPACK's test: 30 in units of n eps, eps that of the arithmetic */
            const double bound = m->setup.single ? MO_BACKWARD_SINGLE : MO_BACKWARD_DOUBLE;
            if (!(m->backward <= bound))
                return say(INVALID, "%s:%d: backward error %g n eps (double's eps) above %g, the "
                           "bound for %s precision: not a solution", path, it.line, m->backward,
                           bound, mo_precisions[m->setup.single]);
        }
    }
    if (m->stage != MO_END)
        return say(INVALID, "%s: truncated (no 'end' line; %ld echo lines)", path,
                   m->count[MO_ECHO]);
    return VALID;
}

/* The tolerances of a pair: [0] dB absolute, [1] sigma relative, [2] the
 * null floor (relative to the incidence's largest sigma). */
static void mo_tolerances(const mo_setup *s, const double *tol, double *t)
{
    t[0] = tol[s->single ? TOL_ECHO_DB_SINGLE : TOL_ECHO_DB];
    t[1] = tol[s->single ? TOL_ECHO_SIGMA_SINGLE : TOL_ECHO_SIGMA];
    t[2] = s->single ? MO_NULL_SINGLE : MO_NULL_DOUBLE;
}

/* The echo widths: the same angles, then each sigma/lambda within the
 * tolerances. P is the largest sigma of the incidence in either result
 * and F = floor P: |sa - sb| <= sigma_tol max(sa, sb, F), and where both
 * are at least F, |10 log10 sa - 10 log10 sb| <= db_tol (from the sigma
 * column: init has checked the dB column against it). Below F, a null's round-off is relative to the
 * pattern's size, not its own. */
static int mo_same_echo(const char *b_path, const mo_result *a, const mo_result *b,
                        const double *tol)
{
    const long n = a->count[MO_ECHO];
    if (n != b->count[MO_ECHO])
        return say(INVALID, "%s: %ld echo lines, the other result %ld", b_path,
                   b->count[MO_ECHO], n);
    double t[3];
    mo_tolerances(&a->setup, tol, t);
    const char *mode = a->setup.single ? "single" : "double";
    for (long first = 0, end; first < n; first = end) {
        const double inc = a->echo[3 * first];
        double peak = 0;
        for (end = first; end < n && a->echo[3 * end] == inc; end++) {
            const double *x = a->echo + 3 * end, *y = b->echo + 3 * end;
            if (x[0] != y[0] || x[1] != y[1])
                return say(INVALID, "%s: echo line %ld: incidence %.17g angle %.17g, the other "
                           "result %.17g %.17g", b_path, end + 1, y[0], y[1], x[0], x[1]);
            peak = fmax(peak, fmax(x[2], y[2]));
        }
        const double floor = t[2] * peak;
        for (long i = first; i < end; i++) {
            const double sa = a->echo[3 * i + 2], sb = b->echo[3 * i + 2];
            const double d = fabs(sa - sb), scale = fmax(fmax(sa, sb), floor);
            if (!(d <= t[1] * scale))
                return say(INVALID, "echo at incidence %.17g, angle %.17g: sigma/lambda %.17g "
                           "and %.17g differ by %.3g relative (%s %g, %s precision; %s)",
                           inc, a->echo[3 * i + 1], sa, sb, d / scale,
                           tol_keys[a->setup.single ? TOL_ECHO_SIGMA_SINGLE : TOL_ECHO_SIGMA],
                           t[1], mode, b_path);
            if (fmin(sa, sb) >= floor && fmin(sa, sb) > 0) {
                const double db = fabs(10 * log10(sa) - 10 * log10(sb));
                if (!(db <= t[0]))
                    return say(INVALID, "echo at incidence %.17g, angle %.17g: %.9f and %.9f dB "
                               "differ by %.3g dB (%s %g, %s precision; %s)", inc,
                               a->echo[3 * i + 1], 10 * log10(sa), 10 * log10(sb), db,
                               tol_keys[a->setup.single ? TOL_ECHO_DB_SINGLE : TOL_ECHO_DB],
                               t[0], mode, b_path);
            }
        }
    }
    return VALID;
}

static int mo_compare(const char *b_path, const mo_result *a, const mo_result *b,
                      const double *tol)
{
    /* The hash is the work unit's content's: every backend writes the same. */
    if (memcmp(a->work_unit, b->work_unit, 16) != 0)
        return say(INVALID, "%s: another work unit (work_unit %s, the other result %s)", b_path,
                   b->work_unit, a->work_unit);
    if (a->params_len != b->params_len ||
        (a->params_len && memcmp(a->params, b->params, a->params_len) != 0))
        return say(INVALID, "%s: other 'param' lines than the other result's", b_path);
    if (a->shape != b->shape || a->size != b->size)
        return say(INVALID, "%s: another geometry (its geometry line differs)", b_path);
    const mo_setup *x = &a->setup, *y = &b->setup;
    if (x->wavelength != y->wavelength || x->k != y->k || x->unknowns != y->unknowns ||
        x->method != y->method || x->solver != y->solver || x->single != y->single ||
        x->far_field != y->far_field)
        return say(INVALID, "%s: another wavelength, unknowns, method, solver, precision or "
                   "far_field (its wavelength line differs)", b_path);
    return mo_same_echo(b_path, a, b, tol);
}

/* ---- canonical: a valid file as one line of JSON (orrery-assimilate) ----
 *
 * The assimilator reads result files only through this (`orrery-validate
 * canonical FILE`), so what init accepts it can assimilate and what init
 * refuses it refuses with init's message: one reader, one definition of a
 * valid result. The form mirrors the file; the assimilator arranges it
 * into its tables:
 *   separation: {"kind": "separation", "number_params_per_WU": N or null,
 *     "members": [{"background_integral": [V], "stream_integral": [V...],
 *     "background_likelihood": [V], "stream_only_likelihood": [V...],
 *     "search_likelihood": [V]}, ...]}
 *   diffraction, fdtd, mom: {"kind": K, "work_unit": S, "application": S
 *     or null, "parameters": [[NAME, V], ...], "records": {KEY: [[V...],
 *     ...], ...}}, KEY each other record's keyword in the file's order
 *     (diffraction: "point"; '#' lines but those three are left out, as is
 *     the end line), each record its words after the keyword (mom's
 *     warning: its text, one string).
 * A word is written as a JSON number if it is one (kept as written), else
 * a whole number as "%ld" ("+4", "007"), another finite number as its
 * shortest form that reads back the same double ("0x1p-2", "+.5"); nan and
 * inf as printf writes them as null; anything else as a string (control
 * characters escaped, other bytes as they are). */

/* Whether t[0..n) is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number_form(const char *t, size_t n)
{
    size_t i = 0, d;
    if (i < n && t[i] == '-')
        i++;
    if (i < n && t[i] == '0')
        i++;
    else if (i < n && t[i] >= '1' && t[i] <= '9')
        while (i < n && isdigit((unsigned char)t[i]))
            i++;
    else
        return 0;
    if (i < n && t[i] == '.') {
        for (d = ++i; i < n && isdigit((unsigned char)t[i]);)
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        if (++i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        for (d = i; i < n && isdigit((unsigned char)t[i]);)
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

static void json_string(FILE *o, const char *s, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(o, "\\u%04x", c);
        else
            fputc(c, o);
    }
    fputc('"', o);
}

static void json_word(FILE *o, const char *t, size_t n)
{
    long l;
    double v;
    while (n > 0 && isspace((unsigned char)*t))
        t++, n--;
    while (n > 0 && isspace((unsigned char)t[n - 1]))
        n--;
    if (json_number_form(t, n)) {
        fwrite(t, 1, n, o);
    } else if (orr_parse_long(t, n, &l) == 0) {
        fprintf(o, "%ld", l);
    } else if (orr_parse_double(t, n, &v) == 0 && isfinite(v)) {
        char b[40];
        for (int p = 1; p <= 17; p++) {
            snprintf(b, sizeof b, "%.*g", p, v);
            if (strtod(b, NULL) == v)
                break;
        }
        fputs(b, o);
    } else if (tok_eq(t, n, "nan") || tok_eq(t, n, "-nan") || tok_eq(t, n, "inf") ||
               tok_eq(t, n, "-inf")) {
        fputs("null", o);
    } else {
        json_string(o, t, n);
    }
}

/* The next blank-separated word of s[*i..len), or 0 at the end. */
static int next_word(const char *s, size_t len, size_t *i, const char **w, size_t *wn)
{
    while (*i < len && (s[*i] == ' ' || s[*i] == '\t'))
        (*i)++;
    if (*i >= len)
        return 0;
    *w = s + *i;
    while (*i < len && s[*i] != ' ' && s[*i] != '\t')
        (*i)++;
    *wn = (size_t)(s + *i - *w);
    return 1;
}

/* s[i..len) without its surrounding white space, as a JSON string. */
static void json_rest(FILE *o, const char *s, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    while (len > i && isspace((unsigned char)s[len - 1]))
        len--;
    json_string(o, s + i, len - i);
}

/* The next line after the header, as the kind's loader reads it
 * (dif_load drops a second '\r'). */
static int dump_next(orr_lines *it, const char **s, size_t *len, int hash)
{
    if (!orr_lines_next(it, s, len))
        return 0;
    if (hash && *len > 0 && (*s)[*len - 1] == '\r')
        (*len)--;
    return 1;
}

/* A line's keyword (a diffraction '#' line's is its second word; its point
 * rows' "point") and where the words after it start. */
static int line_key(const char *s, size_t len, int hash, const char **k, size_t *kn, size_t *at)
{
    *at = 0;
    /* as dif_header_line reads it: the word after the first ("#", "#x") */
    if (hash && len > 0 && s[0] == '#' && !next_word(s, len, at, k, kn))
        return 0;
    return next_word(s, len, at, k, kn);
}

static int is_header_key(const char *k, size_t kn, int hash)
{
    return tok_eq(k, kn, "work_unit") || tok_eq(k, kn, "application") ||
           tok_eq(k, kn, hash ? "parameter" : "param");
}

/* work_unit, application and parameters: the header of the JSON object. */
static void dump_header(FILE *o, const char *kind, const orr_buffer *buf, int hash)
{
    orr_lines it;
    const char *s, *k, *w;
    size_t len, kn, wn, at;
    int params = 0, app = 0;
    fprintf(o, "{\"kind\": \"%s\", \"work_unit\": ", kind);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash))
        if (line_key(s, len, hash, &k, &kn, &at) && tok_eq(k, kn, "work_unit") &&
            next_word(s, len, &at, &w, &wn))
            json_string(o, w, wn);
    fputs(", \"application\": ", o);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash))
        if (line_key(s, len, hash, &k, &kn, &at) && tok_eq(k, kn, "application") && !app++)
            json_rest(o, s, len, at);
    fputs(app ? ", \"parameters\": [" : "null, \"parameters\": [", o);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash)) {
        if (!line_key(s, len, hash, &k, &kn, &at) || !tok_eq(k, kn, hash ? "parameter" : "param") ||
            !next_word(s, len, &at, &w, &wn))
            continue;
        fputs(params++ ? ", [" : "[", o);
        json_string(o, w, wn);
        fputs(", ", o);
        if (next_word(s, len, &at, &w, &wn))
            json_word(o, w, wn);
        fputc(']', o);
    }
    fputs("]", o);
}

/* A diffraction, fdtd or mom file init has accepted, as JSON on o. */
static int dump_lines(FILE *o, const char *kind, const orr_buffer *buf, int hash)
{
    orr_lines it;
    const char *s, *k, *w, *prev = NULL;
    size_t len, kn, wn, at, prev_n = 0;
    dump_header(o, kind, buf, hash);
    fputs(", \"records\": {", o);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash)) {
        if ((hash && len > 0 && s[0] == '#') || !line_key(s, len, 0, &k, &kn, &at) ||
            is_header_key(k, kn, hash) || (!hash && tok_eq(k, kn, "end")))
            continue;
        const int same = prev && prev_n == kn && memcmp(prev, k, kn) == 0;
        if (!same) {
            fputs(prev ? "], " : "", o);
            json_string(o, k, kn);
            fputs(": [", o);
        }
        fputs(same ? ", [" : "[", o);
        if (tok_eq(k, kn, "warning")) {
            json_rest(o, s, len, at);
        } else {
            for (int i = 0; next_word(s, len, &at, &w, &wn); i++) {
                fputs(i ? ", " : "", o);
                json_word(o, w, wn);
            }
        }
        fputc(']', o);
        prev = k;
        prev_n = kn;
    }
    fputs(prev ? "]}}\n" : "}}\n", o);
    return VALID;
}

/* A separation result init has accepted, as JSON on o. */
static int dump_separation(FILE *o, const char *text, const result_file *r)
{
    fputs("{\"kind\": \"separation\", \"number_params_per_WU\": ", o);
    if (r->per_wu)
        fprintf(o, "%d", r->per_wu);
    else
        fputs("null", o);
    fputs(", \"members\": [", o);
    for (int k = 0; k < r->members; k++) {
        fputs(k ? ", {" : "{", o);
        for (int t = 0; t < N_TAGS; t++) {
            char tag[96];
            if (k == 0)
                snprintf(tag, sizeof tag, "<%s>", tag_names[t]);
            else
                snprintf(tag, sizeof tag, "<%s%d>", tag_names[t], k);
            const char *p = strstr(text, tag) + strlen(tag), *w;
            tag[0] = '/';
            char close[98];
            snprintf(close, sizeof close, "<%s", tag);
            const char *end = strstr(p, close);
            size_t i = 0, wn;
            fprintf(o, "%s\"%s\": [", t ? ", " : "", tag_names[t]);
            for (int j = 0; next_word(p, (size_t)(end - p), &i, &w, &wn); j++) {
                fputs(j ? ", " : "", o);
                json_word(o, w, wn);
            }
            fputc(']', o);
        }
        fputc('}', o);
    }
    fputs("]}\n", o);
    return VALID;
}

/* ---- either kind ---- */

enum { KIND_SEPARATION, KIND_DIFFRACTION, KIND_FDTD, KIND_MOM };
static const char *const kind_names[4] = {"separation", "diffraction", "fdtd", "mom"};
/* "a separation", "an fdtd" */
static const char *const kind_articles[4] = {"a", "a", "an", "a"};

/* Reads and checks one file of any kind (init's rules); on failure says
 * why. A diffraction table goes to *d (free it with dif_free), an fdtd
 * result to *f (fd_free), a mom result to *m (mo_free), separation tags to
 * *r. */
static int load_any(const char *path, const double *tol, FILE *dump, result_file *r,
                    dif_result *d, fd_result *f, mo_result *m, int *kind)
{
    orr_buffer buf;
    memset(r, 0, sizeof *r);
    memset(d, 0, sizeof *d);
    memset(f, 0, sizeof *f);
    memset(m, 0, sizeof *m);
    *kind = KIND_SEPARATION;
    int rc = read_whole(path, MAX_FD_BYTES, INVALID, &buf);
    if (rc != VALID)
        return rc;
    if (is_dif(&buf)) {
        *kind = KIND_DIFFRACTION;
        rc = dif_load(path, &buf, d);
        if (rc == VALID && dump)
            rc = dump_lines(dump, "diffraction", &buf, 1);
        orr_buffer_free(&buf);
        return rc;
    }
    if (is_fd(&buf)) {
        *kind = KIND_FDTD;
        f->buf = buf;
        rc = fd_load(path, f);
        return rc == VALID && dump ? dump_lines(dump, "fdtd", &f->buf, 0) : rc;
    }
    if (is_mo(&buf)) {
        *kind = KIND_MOM;
        rc = mo_load(path, &buf, m);
        if (rc == VALID && dump)
            rc = dump_lines(dump, "mom", &buf, 0);
        orr_buffer_free(&buf);
        return rc;
    }
    const char *text = buf.data;
    double wus = 1, per_wu = 0;
    const int n = tag_values(text, "number_WUs", &wus, 1);
    const int np = tag_values(text, "number_params_per_WU", &per_wu, 1);
    if (buf.size == 0)
        rc = say(INVALID, "%s: empty file", path);
    else if (buf.size > MAX_RESULT_BYTES)
        rc = say(INVALID, "%s: larger than %zu bytes: not a result", path, MAX_RESULT_BYTES);
    else if (n == -2 || n == 0 ||
             (n == 1 && !(wus >= 1 && wus <= MAX_MEMBERS && wus == (int)wus)))
        rc = say(INVALID, "%s: bad <number_WUs>", path);
    else if (np == -2 || np == 0 || (np == 1 && !(per_wu >= 1 && per_wu <= SEP_MAX_PER_WU &&
                                                  per_wu == (int)per_wu)))
        rc = say(INVALID, "%s: bad <number_params_per_WU> (want a whole number in 1..%d)", path,
                 SEP_MAX_PER_WU);
    r->members = n == 1 && rc == VALID ? (int)wus : 1;
    r->per_wu = np == 1 && rc == VALID ? (int)per_wu : 0;
    for (int k = 0; k < r->members && rc == VALID; k++)
        rc = check_member(path, text, k, &r->m[k]);
    if (rc == VALID && dump)
        rc = dump_separation(dump, text, r);
    orr_buffer_free(&buf);
    return rc;
}

/* Reads and checks one file (init's rules); on failure says why. With
 * dump, a valid file goes there as canonical's JSON. */
static int load(const char *path, const double *tol, FILE *dump, result_file *r)
{
    dif_result d;
    fd_result f;
    mo_result m;
    int kind;
    int rc = load_any(path, tol, dump, r, &d, &f, &m, &kind);
    if (rc == VALID && dump && (fflush(dump) != 0 || ferror(dump)))
        rc = say(RETRY, "%s: cannot write the canonical form: %s", path, strerror(errno));
    dif_free(&d);
    fd_free(&f);
    mo_free(&m);
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
    dif_result da, db;
    fd_result fa, fb;
    mo_result ma, mb;
    int ka = KIND_SEPARATION, kb = KIND_SEPARATION;
    int rc = load_any(a_path, tol, NULL, &a, &da, &fa, &ma, &ka);
    memset(&db, 0, sizeof db);
    memset(&fb, 0, sizeof fb);
    memset(&mb, 0, sizeof mb);
    if (rc == VALID)
        rc = load_any(b_path, tol, NULL, &b, &db, &fb, &mb, &kb);
    const int lo = ka < kb ? ka : kb, hi = ka < kb ? kb : ka;
    if (rc == VALID && ka != kb)
        rc = say(INVALID, "%s and %s: %s %s and %s %s result", a_path, b_path, kind_articles[lo],
                 kind_names[lo], kind_articles[hi], kind_names[hi]);
    else if (rc == VALID && ka == KIND_DIFFRACTION)
        rc = dif_compare(b_path, &da, &db, tol);
    else if (rc == VALID && ka == KIND_FDTD)
        rc = fd_compare(b_path, &fa, &fb);
    else if (rc == VALID && ka == KIND_MOM)
        rc = mo_compare(b_path, &ma, &mb, tol);
    else if (rc == VALID && a.members != b.members)
        rc = say(INVALID, "%s and %s hold different numbers of bundle members", a_path, b_path);
    for (int k = 0; ka == KIND_SEPARATION && k < a.members && rc == VALID; k++)
        rc = compare_member(k, &a.m[k], &b.m[k], b_path, tol);
    dif_free(&da);
    dif_free(&db);
    fd_free(&fa);
    fd_free(&fb);
    mo_free(&ma);
    mo_free(&mb);
    return rc;
}

/* init: the files of one result; compare: result 1's files, then result
 * 2's, compared pairwise. Another count than separation's is the daemon's
 * setup, not the result's: usage. */
static int run(const char *mode, char **paths, int n, const double *tol)
{
    static result_file r;
    const int results = strcmp(mode, "compare") == 0 ? 2 : 1;
    const int canonical = strcmp(mode, "canonical") == 0;
    if (n == 0)
        return usage("%s: no file given", mode);
    if (n % results != 0)
        return usage("compare: an odd number of files (%d): want result 1's, then as many of "
                     "result 2's", n);
    if (n / results != FILES_PER_RESULT)
        return usage("%s: %d files per result; a separation, diffraction, fdtd or mom result "
                     "has %d",
                     mode, n / results, FILES_PER_RESULT);
    int rc = VALID;
    for (int i = 0; i < n / results && rc == VALID; i++)
        rc = results == 2   ? compare(paths[i], paths[n / 2 + i], tol)
             : canonical ? load(paths[i], tol, stdout, &r)
                         : load(paths[i], tol, NULL, &r);
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
        return say(RETRY, "%s:%d: %.*s: unknown key (known: %s, %s, %s, %s) (mom: %s, %s, %s, %s)",
                   path, line, (int)klen, s, tol_keys[0], tol_keys[1], tol_keys[2], tol_keys[3],
                   tol_keys[4], tol_keys[5], tol_keys[6], tol_keys[7]);
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
        return usage("no mode: init, compare or canonical");
    if (strcmp(mode, "init") != 0 && strcmp(mode, "compare") != 0 &&
        strcmp(mode, "canonical") != 0)
        return usage("unknown mode \"%s\"", mode);
    return run(mode, argv + i, argc - i, tol);
}
