/* orrery-validate for mom results: first line "# orrery mom results 1"
 * (docs/mom.md sections 4 and 6.3).
 *
 * init: the records in the app's order: one work_unit (16 hex digits), one
 * application, param lines (NAME VALUE, at most 32, names as diffraction's,
 * each once), one geometry line (circle radius R > 0, or polygon vertices V
 * in 3..100000), one wavelength line (wavelength L > 0, k K > 0 with K L =
 * 2 pi, unknowns N, method mom|lcn, solver reference|faithful|mixed,
 * precision double|single, single only with reference, far_field
 * consistent|exact, exact only with mom), one solve line (backward_error B
 * finite, >= 0 and at most 30 n eps in double precision, 30 n eps of
 * single's eps in single (30 * 2^29 in the double eps the app writes);
 * growth_factor and smallest_pivot finite >= 0 from the faithful solver,
 * nan from the others; refinements whole, 0 but for mixed), at most one
 * warning line, one seconds line (fill, factor, solve finite >= 0), at most
 * one current line (every D rows R incidences I: R = ceil(N / D), the echo
 * lines a whole number per incidence), echo
 * lines (echo PHI_INC PHI SIGMA DB: angles finite, sigma/lambda finite >=
 * 0, DB its 10 log10 as written with 17 digits (to 1e-12 relative: another
 * libm's log10 may differ by a few ulp), -inf for 0), and `end` last, at
 * most 1 GiB; no other lines. compare: both pass init, with the same
 * work_unit hash, param lines, geometry line and wavelength line (every
 * value equal; not the application, solve, warning and seconds lines), the
 * same echo lines' angles in the same order; then, P the largest sigma of
 * an incidence in either result and F = P * 1e-6 (double) or 1e-3 (single),
 * each sigma pair: |a - b| <= sigma_tol * max(a, b, F) and, where both are
 * >= F, |10 log10 a - 10 log10 b| <= db_tol (from the sigma column's 17
 * digits). db_tol and sigma_tol by the precision line: echo_db_tolerance
 * (default 1e-6 dB) and echo_sigma_tolerance (1e-6) in double (reference,
 * faithful, mixed), echo_db_tolerance_single (0.05 dB) and
 * echo_sigma_tolerance_single (1e-2) in single.
 *
 * The currents (load_more: the result's second file, the output
 * template's mom_current.npy): where the table has a current line, a
 * float64 .npy of shape (R, 2 + 2 I), finite, at most 1 GiB, missing:
 * invalid (mo_load_npy says why); without one, not looked at. compare,
 * where both results have theirs: the same current line, each value
 * within current_tolerance (1e-6; current_tolerance_single 1e-2) times
 * the largest |value| of its pair of columns (x, y; an incidence's Re J,
 * Im J) in either result. No mom solver promises bit-identical results
 * (OpenBLAS and the GPU libraries split their sums): always tolerances. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../validate/validate.h"
#include "mom/mom.h"

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

enum { MO_TOL_ECHO_DB, MO_TOL_ECHO_SIGMA, MO_TOL_ECHO_DB_SINGLE, MO_TOL_ECHO_SIGMA_SINGLE,
       MO_TOL_CURRENT, MO_TOL_CURRENT_SINGLE, MO_N_TOL };
static const vd_tolerance mo_tolerances_of[MO_N_TOL] = {
    {"echo_db_tolerance", 1e-6, "mom, double; default 1e-6 dB absolute"},
    {"echo_sigma_tolerance", 1e-6, "mom, double; default 1e-6 relative"},
    {"echo_db_tolerance_single", 0.05, "mom, single; default 0.05 dB absolute"},
    {"echo_sigma_tolerance_single", 1e-2, "mom, single; default 1e-2 relative"},
    {"current_tolerance", 1e-6, "mom, double; currents, default 1e-6 of the largest"},
    {"current_tolerance_single", 1e-2, "mom, single; currents, default 1e-2 of the largest"},
};

/* Records in the order the app writes them; a stage's lines are
 * consecutive. */
enum { MO_WU, MO_APP, MO_PARAM, MO_GEOMETRY, MO_WAVELENGTH, MO_SOLVE, MO_WARNING, MO_SECONDS,
       MO_CURRENT, MO_ECHO, MO_END, MO_N_STAGES };

static const char *const mo_keys[MO_N_STAGES] = {
    "work_unit", "application", "param", "geometry", "wavelength", "solve", "warning",
    "seconds", "current", "echo", "end"};
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

/* current every D rows R incidences I: the .npy's shape, (R, 2 + 2 I) */
typedef struct {
    int every, rows, incidences;
} mo_current;

typedef struct {
    int stage;                           /* the last line's; -1 before any */
    long count[MO_N_STAGES];             /* lines per stage */
    char work_unit[17];                  /* the work unit's content hash */
    int shape;                           /* geometry: circle or polygon */
    double size;                         /* its radius or vertex count */
    mo_setup setup;                      /* the wavelength line */
    double backward;                     /* the solve line's backward error */
    char *params;                        /* the param lines, '\n' after each */
    vd_name_set names;                      /* and their names */
    size_t params_len, params_cap;
    double *echo;                        /* [count[MO_ECHO]][3]: incidence, angle, sigma */
    size_t echo_cap;
    mo_current current;                  /* the current line's, or zeros */
    orr_npy npy;                         /* the currents, where uploaded (load_more) */
    const char *npy_path;                /* and their file (the caller's string) */
} mo_result;

static void mo_free(void *result)
{
    mo_result *m = result;
    free(m->params);
    free(m->echo);
    orr_npy_free(&m->npy);
    memset(m, 0, sizeof *m);
}

/* geometry circle radius R | geometry polygon vertices V */
static int mo_geometry_line(const char **tok, const size_t *tlen, int n, mo_result *m)
{
    int v;
    if (n != 4 || (m->shape = vd_word(tok[1], tlen[1], mo_shapes, 2)) < 0)
        return -1;
    if (m->shape == 0)
        return vd_tok_eq(tok[2], tlen[2], "radius") &&
                       vd_number(tok[3], tlen[3], 0, &m->size) == 0 &&
                       m->size > 0
                   ? 0
                   : -1;
    if (!vd_tok_eq(tok[2], tlen[2], "vertices") ||
        vd_whole(tok[3], tlen[3], 3, MOM_MAX_VERTICES, &v) != 0)
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
    if (n != 14 || !vd_tok_eq(tok[0], tlen[0], "wavelength"))
        return -1;
    for (int i = 0; i < 6; i++)
        if (!vd_tok_eq(tok[2 + 2 * i], tlen[2 + 2 * i], keys[i]))
            return -1;
    if (vd_number(tok[1], tlen[1], 0, &s->wavelength) != 0 || !(s->wavelength > 0) ||
        vd_number(tok[3], tlen[3], 0, &s->k) != 0 || !(s->k > 0) ||
        fabs(s->k * s->wavelength - MO_TWO_PI) > 1e-12 * MO_TWO_PI ||
        vd_long(tok[5], tlen[5], 3, (long)MOM_MAX_CELLS * MOM_MAX_ORDER, &s->unknowns) != 0)
        return -1;
    s->method = vd_word(tok[7], tlen[7], mo_methods, 2);
    s->solver = vd_word(tok[9], tlen[9], mo_solvers, 3);
    s->single = vd_word(tok[11], tlen[11], mo_precisions, 2);
    s->far_field = vd_word(tok[13], tlen[13], mo_far_fields, 2);
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
        if (!vd_tok_eq(tok[1 + 2 * i], tlen[1 + 2 * i], keys[i]))
            return -1;
    if (vd_number(tok[2], tlen[2], 0, &m->backward) != 0 || !(m->backward >= 0) ||
        vd_number(tok[4], tlen[4], !faithful, &g) != 0 ||
        vd_number(tok[6], tlen[6], !faithful, &p) != 0 ||
        vd_long(tok[8], tlen[8], 0, mixed ? LONG_MAX : 0, &r) != 0)
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
        if (!vd_tok_eq(tok[1 + 2 * i], tlen[1 + 2 * i], keys[i]) ||
            vd_number_from(tok[2 + 2 * i], tlen[2 + 2 * i], 0, &x) != 0)
            return -1;
    return 0;
}

/* current every D rows R incidences I: D whole 1..unknowns, R = ceil(N / D),
 * I whole >= 1 (the work unit's incidences) */
static int mo_current_line(const char **tok, const size_t *tlen, int n, mo_result *m)
{
    mo_current *c = &m->current;
    const long u = m->setup.unknowns;
    if (n != 7 || !vd_tok_eq(tok[1], tlen[1], "every") || !vd_tok_eq(tok[3], tlen[3], "rows") ||
        !vd_tok_eq(tok[5], tlen[5], "incidences") ||
        vd_whole(tok[2], tlen[2], 1, u, &c->every) != 0 ||
        vd_whole(tok[4], tlen[4], 1, u, &c->rows) != 0 ||
        vd_whole(tok[6], tlen[6], 1, MOM_MAX_ANGLES, &c->incidences) != 0)
        return -1;
    return c->rows == (u + c->every - 1) / c->every ? 0 : -1;
}

/* echo PHI_INC PHI SIGMA DB: the angles finite, sigma/lambda finite and
 * >= 0, DB its 10 log10 (17 digits: to MO_DB_ROUNDTRIP relative), -inf
 * where sigma is 0. */
static int mo_echo_line(const char **tok, const size_t *tlen, int n, mo_result *m)
{
    double inc, phi, sigma, db;
    if (n != 5 || vd_number(tok[1], tlen[1], 0, &inc) != 0 ||
        vd_number(tok[2], tlen[2], 0, &phi) != 0 || vd_number_from(tok[3], tlen[3], 0, &sigma) != 0)
        return -1;
    if (sigma == 0) {
        if (!vd_tok_eq(tok[4], tlen[4], "-inf"))
            return -1;
    } else if (vd_number(tok[4], tlen[4], 0, &db) != 0 ||
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
            vd_name_add(&m->names, tok[1], tlen[1]) != 0)
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
    case MO_CURRENT:
        return mo_current_line(tok, tlen, n, m);
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
        return vd_say(INVALID, "%s:%d: '%s' after the '%s' lines: out of order", path, line,
                      mo_keys[st], mo_keys[m->stage]);
    if (st == m->stage)
        return st == MO_PARAM || st == MO_ECHO
                   ? VALID
                   : vd_say(INVALID, "%s:%d: a second '%s' line", path, line, mo_keys[st]);
    for (int t = m->stage < 0 ? 0 : m->stage; t < st; t++)
        if (t != MO_PARAM && t != MO_WARNING && t != MO_CURRENT && t != MO_ECHO &&
            m->count[t] != 1)
            return vd_say(INVALID, "%s:%d: '%s' without a '%s' line before it", path, line,
                          mo_keys[st], mo_keys[t]);
    m->stage = st;
    return VALID;
}

/* Reads and checks a mom results file (init's rules) already in buf. */
static int mo_load(const char *path, const orr_buffer *buf, void *result)
{
    mo_result *m = result;
    const char *tok[MO_MAX_TOK + 1];
    size_t tlen[MO_MAX_TOK + 1];
    if (buf->data[buf->size - 1] != '\n')
        return vd_say(INVALID, "%s: truncated (no line end at its end)", path);
    m->stage = -1;
    orr_lines it;
    orr_lines_init(&it, path, buf);
    const char *s;
    size_t len;
    orr_lines_next(&it, &s, &len); /* the header, the registry's */
    while (orr_lines_next(&it, &s, &len)) {
        if (m->stage == MO_END)
            return vd_say(INVALID, "%s:%d: a line after 'end'", path, it.line);
        const int n = vd_tokens(s, len, tok, tlen, MO_MAX_TOK);
        const int st = n > 0 ? vd_word(tok[0], tlen[0], mo_keys, MO_N_STAGES) : -1;
        if (st < 0)
            return vd_say(INVALID, "%s:%d: not a record of a mom results file", path, it.line);
        int rc = mo_enter(path, it.line, m, st);
        if (rc != VALID)
            return rc;
        rc = mo_record(st, tok, tlen, n, m);
        if (rc == -2)
            return vd_say(RETRY, "%s: out of memory", path);
        if (rc != 0)
            return vd_say(INVALID, "%s:%d: a malformed '%s' line (docs/mom.md section 4)", path,
                          it.line, mo_keys[st]);
        m->count[st]++;
        if (st == MO_SOLVE) {
            /* LAPACK's test: 30 in units of n eps, eps that of the arithmetic */
            const double bound = m->setup.single ? MO_BACKWARD_SINGLE : MO_BACKWARD_DOUBLE;
            if (!(m->backward <= bound))
                return vd_say(INVALID, "%s:%d: backward error %g n eps (double's eps) above %g, the "
                              "bound for %s precision: not a solution", path, it.line, m->backward,
                              bound, mo_precisions[m->setup.single]);
        }
    }
    if (m->stage != MO_END)
        return vd_say(INVALID, "%s: truncated (no 'end' line; %ld echo lines)", path,
                      m->count[MO_ECHO]);
    if (m->current.incidences && m->count[MO_ECHO] % m->current.incidences != 0)
        return vd_say(INVALID, "%s: %ld echo lines, not a whole number for each of the %d "
                      "incidences its 'current' line names", path, m->count[MO_ECHO],
                      m->current.incidences);
    return VALID;
}

/* The currents' .npy (docs/mom.md section 4) beside a table whose
 * `current` line gives its shape: float64, C order, (rows, 2 + 2
 * incidences), every value finite, at most MAX_MO_BYTES. Absent where the
 * table has no `current` line (the template's file is optional, the app
 * writes none); a file there then is not this result's and is ignored.
 * Missing where the table says it was written: the host did not upload
 * it, which it does before reporting: invalid, not transient. */
#define MAX_MO_NPY_BYTES ((size_t)1 << 30)

static int mo_load_npy(const char *table_path, const char *path, mo_result *m)
{
    const mo_current *c = &m->current;
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT
                   ? vd_say(INVALID, "%s: missing, though %s has 'current every %d' (the "
                            "currents were not uploaded)", path, table_path, c->every)
                   : vd_say(RETRY, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return vd_say(RETRY, "%s: not a regular file", path);
    if ((size_t)st.st_size > MAX_MO_NPY_BYTES)
        return vd_say(INVALID, "%s: larger than %zu bytes: not a result's currents", path,
                      MAX_MO_NPY_BYTES);
    orr_error err;
    orr_error_clear(&err);
    m->npy_path = path;
    orr_status s = orr_npy_read(path, &m->npy, &err);
    if (s != ORR_OK)
        return vd_say(s == ORR_ERR_OPEN || s == ORR_ERR_NOMEM ? RETRY : INVALID, "%s",
                      err.message);
    const orr_npy *a = &m->npy;
    const long cols = 2 + 2L * c->incidences;
    if (a->dtype != ORR_NPY_F8 || a->ndim != 2 || a->shape[0] != c->rows || a->shape[1] != cols)
        return vd_say(INVALID, "%s: %s of %d dimension(s), shape (%ld, %ld); %s's 'current' line "
                      "wants float64 (%d, %ld)", path, orr_npy_dtype_name(a->dtype), a->ndim,
                      a->shape[0], a->ndim > 1 ? a->shape[1] : 0L, table_path, c->rows, cols);
    const double *v = a->data;
    for (size_t i = 0; i < a->count; i++)
        if (!isfinite(v[i]))
            return vd_say(INVALID, "%s: row %zu, column %zu: %g is not finite", path,
                          i / (size_t)cols, i % (size_t)cols, v[i]);
    return VALID;
}

static int mo_load_more(const char *table_path, char *const *paths, int n, void *result)
{
    mo_result *m = result;
    /* an older output template uploads the table only: nothing to check */
    if (n == 0 || m->current.every == 0)
        return VALID;
    return mo_load_npy(table_path, paths[0], m);
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
        return vd_say(INVALID, "%s: %ld echo lines, the other result %ld", b_path,
                      b->count[MO_ECHO], n);
    /* the keys of this precision's tolerances, and the null floor
     * (relative to the incidence's largest sigma) */
    const int single = a->setup.single;
    const int db_key = single ? MO_TOL_ECHO_DB_SINGLE : MO_TOL_ECHO_DB;
    const int sigma_key = single ? MO_TOL_ECHO_SIGMA_SINGLE : MO_TOL_ECHO_SIGMA;
    const double t[3] = {tol[db_key], tol[sigma_key], single ? MO_NULL_SINGLE : MO_NULL_DOUBLE};
    const char *mode = single ? "single" : "double";
    for (long first = 0, end; first < n; first = end) {
        const double inc = a->echo[3 * first];
        double peak = 0;
        for (end = first; end < n && a->echo[3 * end] == inc; end++) {
            const double *x = a->echo + 3 * end, *y = b->echo + 3 * end;
            if (x[0] != y[0] || x[1] != y[1])
                return vd_say(INVALID, "%s: echo line %ld: incidence %.17g angle %.17g, the other "
                              "result %.17g %.17g", b_path, end + 1, y[0], y[1], x[0], x[1]);
            peak = fmax(peak, fmax(x[2], y[2]));
        }
        const double floor = t[2] * peak;
        for (long i = first; i < end; i++) {
            const double sa = a->echo[3 * i + 2], sb = b->echo[3 * i + 2];
            const double d = fabs(sa - sb), scale = fmax(fmax(sa, sb), floor);
            if (!(d <= t[1] * scale))
                return vd_say(INVALID, "echo at incidence %.17g, angle %.17g: sigma/lambda %.17g "
                              "and %.17g differ by %.3g relative (%s %g, %s precision; %s)",
                              inc, a->echo[3 * i + 1], sa, sb, d / scale,
                              mo_tolerances_of[sigma_key].key,
                              t[1], mode, b_path);
            if (fmin(sa, sb) >= floor && fmin(sa, sb) > 0) {
                const double db = fabs(10 * log10(sa) - 10 * log10(sb));
                if (!(db <= t[0]))
                    return vd_say(INVALID, "echo at incidence %.17g, angle %.17g: %.9f and %.9f dB "
                                  "differ by %.3g dB (%s %g, %s precision; %s)", inc,
                                  a->echo[3 * i + 1], 10 * log10(sa), 10 * log10(sb), db,
                                  mo_tolerances_of[db_key].key,
                                  t[0], mode, b_path);
            }
        }
    }
    return VALID;
}

/* The largest |value| of columns c0, c0 + 1 of both results' currents. */
static double mo_columns_max(const orr_npy *a, const orr_npy *b, long c0)
{
    const long rows = a->shape[0], cols = a->shape[1];
    const double *x = a->data, *y = b->data;
    double m = 0;
    for (long r = 0; r < rows; r++)
        for (long c = c0; c < c0 + 2; c++)
            m = fmax(m, fmax(fabs(x[r * cols + c]), fabs(y[r * cols + c])));
    return m;
}

/* The currents, where both results uploaded them: the points (columns 0,
 * 1) and each incidence's Re J, Im J, each value within tol times the
 * largest |value| of its pair of columns in either result (a solve's
 * forward error is relative to the whole current, as the echo widths'). */
static int mo_same_current(const mo_result *a, const mo_result *b, const double *tol)
{
    if (!a->npy.data || !b->npy.data)
        return VALID;
    const int key = a->setup.single ? MO_TOL_CURRENT_SINGLE : MO_TOL_CURRENT;
    const long rows = a->npy.shape[0], cols = a->npy.shape[1];
    const double *x = a->npy.data, *y = b->npy.data;
    for (long c0 = 0; c0 < cols; c0 += 2) {
        const double size = mo_columns_max(&a->npy, &b->npy, c0);
        for (long r = 0; r < rows; r++)
            for (long c = c0; c < c0 + 2; c++) {
                const double d = fabs(x[r * cols + c] - y[r * cols + c]);
                if (!(d <= tol[key] * size))
                    return vd_say(INVALID, "currents %s and %s: row %ld, %s: %.17g and %.17g "
                                  "differ by %.3g of the largest %.3g (%s %g, %s precision)",
                                  a->npy_path, b->npy_path, r, c0 == 0 ? (c == 0 ? "x" : "y") : c % 2 ?
                                  "Im J" : "Re J", x[r * cols + c], y[r * cols + c],
                                  d / size, size, mo_tolerances_of[key].key, tol[key],
                                  a->setup.single ? "single" : "double");
            }
    }
    return VALID;
}

static int mo_compare(const char *a_path, const char *b_path, const void *ra, const void *rb,
                      const double *tol)
{
    const mo_result *a = ra, *b = rb;
    /* The hash is the work unit's content's: every backend writes the same. */
    if (memcmp(a->work_unit, b->work_unit, 16) != 0)
        return vd_say(INVALID, "%s: another work unit (work_unit %s, the other result %s)", b_path,
                      b->work_unit, a->work_unit);
    if (a->params_len != b->params_len ||
        (a->params_len && memcmp(a->params, b->params, a->params_len) != 0))
        return vd_say(INVALID, "%s: other 'param' lines than the other result's", b_path);
    if (a->shape != b->shape || a->size != b->size)
        return vd_say(INVALID, "%s: another geometry (its geometry line differs)", b_path);
    const mo_setup *x = &a->setup, *y = &b->setup;
    if (x->wavelength != y->wavelength || x->k != y->k || x->unknowns != y->unknowns ||
        x->method != y->method || x->solver != y->solver || x->single != y->single ||
        x->far_field != y->far_field)
        return vd_say(INVALID, "%s: another wavelength, unknowns, method, solver, precision or "
                      "far_field (its wavelength line differs)", b_path);
    if (memcmp(&a->current, &b->current, sizeof a->current) != 0)
        return vd_say(INVALID, "%s: another 'current' line than %s's", b_path, a_path);
    int rc = mo_same_echo(b_path, a, b, tol);
    return rc == VALID ? mo_same_current(a, b, tol) : rc;
}

static int mo_dump(FILE *o, const orr_buffer *text, const void *result)
{
    (void)result;
    return vd_dump_records(o, "mom", text, 0);
}

/* A mom result is a few header lines and an echo line (about 60 bytes, at
 * most 104) per incidence and echo angle; orrery-wugen mom sizes each work
 * unit's <max_nbytes> and refuses one whose results could pass this; the
 * app's results_bytes limit (common/cost.h) is the same. */
#define MAX_MO_BYTES ((size_t)1 << 30)

const vd_kind vd_mom = {
    .name = "mom",
    .article = "a",
    .header = "# orrery mom results 1",
    .max_bytes = MAX_MO_BYTES,
    .tolerances = mo_tolerances_of,
    .n_tolerances = MO_N_TOL,
    .config_group = "mom",
    .result_size = sizeof(mo_result),
    .load = mo_load,
    .dump = mo_dump,
    .compare = mo_compare,
    .free = mo_free,
    .max_files = 2,
    .load_more = mo_load_more,
};
