/* orrery-validate for fdtd results: first line "# orrery fdtd results 1"
 * (docs/fdtd.md sections 4 and 6).
 *
 * init: the records in the app's order, each stage's lines together: one
 * work_unit (16 hex digits), one application, param lines (NAME VALUE), one
 * grid line (NX NY NZ within 1..8192, cell sizes and dt > 0, 1 <= steps,
 * boundary thesis|pec|cpml, arithmetic faithful|fast, precision
 * double|single; param names as diffraction's, each once), at most one
 * host_tables line (16 hex digits), probe lines 0..P-1 (a field and a
 * cell of the padded grid), exactly `steps` series
 * lines numbered 1..steps with P finite values each, energy lines (steps
 * increasing within 0..steps, finite), the six norm lines ex ey ez hx hy hz
 * (finite, >= 0), cell_updates_per_second and seconds (finite, >= 0), and
 * `end` last, at most 1 GiB; no other lines. compare: both pass init, with
 * the same grid line (every value equal), work_unit (the work unit's
 * content hash, the same from every backend), param lines, probe lines and
 * energy steps (not the application line). Faithful results with the same
 * host_tables (the hash of the only values the host's libm makes) are
 * bit-identical from every backend: their series, energy and norm values
 * must be the same digits (fd_same_digits). Otherwise tolerance tol from
 * the grid line's arithmetic and precision: 1e-12 faithful double
 * (bit-identical backends, but two hosts' libms made the tables), 1e-9
 * fast double, 1e-5 faithful single, 1e-3 fast single. Each probe's series:
 * |a - b| <= tol * S at every step, S its field's size: the largest |value|
 * over the whole series of every probe of the same field (E or H) and the
 * final max norms of its three components, in either result; the energy
 * series the same relative to its largest value; each final norm within tol
 * times the largest norm of its kind (L2 or max) among its field's three
 * components; differences below 1e-300 always agree. (Round-off is relative
 * to the field's size: a component zero by symmetry holds noise that
 * differs between backends by 100% of itself.) Not configurable: the
 * tolerances follow from the arithmetic. */
#include <math.h>
#include <string.h>

#include "../validate/validate.h"
#include "fdtd/fdtd.h"

/* Differences this small are equal whatever the scale (all-zero series). */
#define FD_FLOOR 1e-300

/* Records in the order the app writes them; a stage's lines are
 * consecutive. */
enum { FD_WU, FD_APP, FD_PARAM, FD_GRID, FD_TABLES, FD_PROBE, FD_SERIES, FD_ENERGY, FD_NORM,
       FD_CUPS, FD_SECONDS, FD_END, FD_N_STAGES };

static const char *const fd_keys[FD_N_STAGES] = {
    "work_unit", "application", "param", "grid", "host_tables", "probe", "series", "energy",
    "norm", "cell_updates_per_second", "seconds", "end"};
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
    orr_buffer buf;                      /* the file (the driver's): compare walks it again */
    int stage;                           /* the last line's; -1 before any */
    long count[FD_N_STAGES];             /* lines per stage */
    const char *at[FD_N_STAGES];         /* each stage's first line, in buf */
    int line[FD_N_STAGES];               /* and its line number */
    char work_unit[17];                  /* the work unit's content hash */
    char host_tables[17];                /* the hash of the host's libm tables, or "" */
    fd_grid grid;
    long last_energy;                    /* step of the last energy line */
    double norm[FDTD_N_FIELDS][2];       /* L2, max */
    vd_name_set params;                     /* the param lines' names */
    unsigned char probe_h[FDTD_MAX_PROBES];   /* 1: the probe records an H component */
} fd_result;

/* Tokens of a series line: the keyword, the step, a value per probe. */
#define FD_MAX_TOK (FDTD_MAX_PROBES + 2)

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
        if (!vd_tok_eq(tok[key_at[i]], tlen[key_at[i]], keys[i]))
            return -1;
    for (int a = 0; a < 3; a++)
        if (vd_whole(tok[1 + a], tlen[1 + a], 1, FDTD_MAX_N, &g->n[a]) != 0 ||
            vd_number_from(tok[5 + a], tlen[5 + a], 0, &g->d[a]) != 0 || !(g->d[a] > 0))
            return -1;
    if (vd_number_from(tok[9], tlen[9], 0, &g->dt) != 0 || !(g->dt > 0) ||
        vd_long(tok[11], tlen[11], 1, FDTD_MAX_STEPS, &g->steps) != 0)
        return -1;
    g->boundary = vd_word(tok[13], tlen[13], fd_boundaries, 3);
    g->fast = vd_word(tok[15], tlen[15], fd_arithmetics, 2);
    g->single = vd_word(tok[17], tlen[17], fd_precisions, 2);
    return g->boundary < 0 || g->fast < 0 || g->single < 0 ? -1 : 0;
}

/* probe P FIELD I J K: P the next number, the cell within the padded grid */
static int fd_probe_line(const char **tok, const size_t *tlen, int n, fd_result *f)
{
    long p;
    int at, field;
    if (n != 6 || vd_long(tok[1], tlen[1], 0, FDTD_MAX_PROBES - 1, &p) != 0 ||
        p != f->count[FD_PROBE] || (field = vd_word(tok[2], tlen[2], fd_fields, FDTD_N_FIELDS)) < 0)
        return -1;
    for (int a = 0; a < 3; a++)
        if (vd_whole(tok[3 + a], tlen[3 + a], 0, f->grid.n[a] + 1, &at) != 0)
            return -1;
    f->probe_h[p] = field >= FDTD_HX;
    return 0;
}

/* series N V0 V1 ...: N the next step, a finite value per probe */
static int fd_series_line(const char **tok, const size_t *tlen, int n, const fd_result *f)
{
    long step;
    double v;
    if (n != 2 + f->count[FD_PROBE] || vd_long(tok[1], tlen[1], 1, f->grid.steps, &step) != 0 ||
        step != f->count[FD_SERIES] + 1)
        return -1;
    for (int i = 2; i < n; i++)
        if (vd_number(tok[i], tlen[i], 0, &v) != 0)
            return -1;
    return 0;
}

/* energy N W: steps increasing within 0..steps, W finite */
static int fd_energy_line(const char **tok, const size_t *tlen, int n, fd_result *f)
{
    long step;
    double w;
    if (n != 3 || vd_long(tok[1], tlen[1], 0, f->grid.steps, &step) != 0 ||
        step <= f->last_energy || vd_number(tok[2], tlen[2], 0, &w) != 0)
        return -1;
    f->last_energy = step;
    return 0;
}

/* norm FIELD L2 MAX, the six fields in order */
static int fd_norm_line(const char **tok, const size_t *tlen, int n, fd_result *f)
{
    const long k = f->count[FD_NORM];
    if (n != 4 || k >= FDTD_N_FIELDS || !vd_tok_eq(tok[1], tlen[1], fd_fields[k]) ||
        vd_number_from(tok[2], tlen[2], 0, &f->norm[k][0]) != 0 ||
        vd_number_from(tok[3], tlen[3], 0, &f->norm[k][1]) != 0)
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
    case FD_TABLES:
        if (n != 2 || tlen[1] != 16 || strspn(tok[1], "0123456789abcdef") < 16)
            return -1;
        memcpy(f->host_tables, tok[1], 16);
        return 0;
    case FD_APP:
        return n >= 2 ? 0 : -1;
    case FD_PARAM:
        return n == 3 && f->count[FD_PARAM] < FDTD_MAX_PARAMS &&
                       vd_name_add(&f->params, tok[1], tlen[1]) == 0
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
        return n == 2 && vd_number_from(tok[1], tlen[1], 0, &x) == 0 ? 0 : -1;
    default:
        return n == 1 ? 0 : -1;
    }
}

/* Whether stage t has all its lines (before a later stage starts). */
static int fd_complete(const fd_result *f, int t)
{
    switch (t) {
    case FD_PARAM:
    case FD_TABLES:   /* at most one; none from an app before it */
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
        return vd_say(INVALID, "%s:%d: '%s' after the '%s' lines: out of order", path, line,
                      fd_keys[st], fd_keys[f->stage]);
    if (st == f->stage)
        return st == FD_PARAM || st == FD_PROBE || st == FD_SERIES || st == FD_ENERGY ||
                       st == FD_NORM
                   ? VALID
                   : vd_say(INVALID, "%s:%d: a second '%s' line", path, line, fd_keys[st]);
    for (int t = f->stage < 0 ? 0 : f->stage; t < st; t++)
        if (!fd_complete(f, t))
            return vd_say(INVALID, "%s:%d: '%s' after %ld '%s' line(s), want %s", path, line,
                          fd_keys[st], f->count[t], fd_keys[t],
                          t == FD_SERIES ? "one per step" : t == FD_NORM ? "6" :
                          t == FD_PROBE ? "at least 1" : "1");
    f->stage = st;
    return VALID;
}

/* Reads and checks an fdtd results file (init's rules). */
static int fd_load(const char *path, const orr_buffer *buf, void *result)
{
    fd_result *f = result;
    f->buf = *buf;
    static const char *tok[FD_MAX_TOK + 1];
    static size_t tlen[FD_MAX_TOK + 1];
    if (f->buf.data[f->buf.size - 1] != '\n')
        return vd_say(INVALID, "%s: truncated (no line end at its end)", path);
    f->stage = -1;
    f->last_energy = -1;
    orr_lines it;
    orr_lines_init(&it, path, &f->buf);
    const char *s;
    size_t len;
    orr_lines_next(&it, &s, &len); /* the header, the registry's */
    while (orr_lines_next(&it, &s, &len)) {
        if (f->stage == FD_END)
            return vd_say(INVALID, "%s:%d: a line after 'end'", path, it.line);
        const int n = vd_tokens(s, len, tok, tlen, FD_MAX_TOK);
        const int st = n > 0 ? vd_word(tok[0], tlen[0], fd_keys, FD_N_STAGES) : -1;
        if (st < 0)
            return vd_say(INVALID, "%s:%d: not a record of an fdtd results file", path, it.line);
        const int rc = fd_enter(path, it.line, f, st);
        if (rc != VALID)
            return rc;
        if (fd_record(st, tok, tlen, n, f) != 0)
            return vd_say(INVALID, "%s:%d: a malformed '%s' line (docs/fdtd.md section 4)", path,
                          it.line, fd_keys[st]);
        if (f->count[st]++ == 0) {
            f->at[st] = s;
            f->line[st] = it.line;
        }
    }
    if (f->stage != FD_END)
        return vd_say(INVALID, "%s: truncated (no 'end' line; %ld of %ld series lines)", path,
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
    w->na = orr_lines_next(&w->a, &s, &len) ? vd_tokens(s, len, w->ta, w->la, FD_MAX_TOK) : 0;
    w->nb = orr_lines_next(&w->b, &s, &len) ? vd_tokens(s, len, w->tb, w->lb, FD_MAX_TOK) : 0;
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
        return vd_say(INVALID, "%s: %ld steps, the other result %ld", b_path, y->steps, x->steps);
    for (int a = 0; a < 3; a++)
        if (x->n[a] != y->n[a] || x->d[a] != y->d[a])
            return vd_say(INVALID, "%s: another grid (its grid line differs)", b_path);
    if (x->dt != y->dt || x->boundary != y->boundary || x->fast != y->fast ||
        x->single != y->single)
        return vd_say(INVALID, "%s: another dt, boundary, arithmetic or precision (grid line)",
                      b_path);
    return VALID;
}

/* Stage st's lines (param, probe) the same, token for token. */
static int fd_same_lines(const char *b_path, const fd_result *a, const fd_result *b, int st)
{
    if (a->count[st] != b->count[st])
        return vd_say(INVALID, "%s: %ld '%s' lines, the other result %ld", b_path, b->count[st],
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
            return vd_say(INVALID, "%s:%d: another '%s' line than the other result's", b_path,
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
            return vd_say(INVALID, "probe %d: step %ld differs by %.3g, %.3g of the %c field's "
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
        return vd_say(INVALID, "%s: %ld energy lines, the other result %ld", b_path,
                      b->count[FD_ENERGY], a->count[FD_ENERGY]);
    static fd_pair w;
    double diff = 0, scale = 0;
    long worst = 0;
    if (a->count[FD_ENERGY] > 0)
        fd_pair_start(&w, a, b, FD_ENERGY);
    for (long i = 0; i < a->count[FD_ENERGY]; i++) {
        fd_pair_next(&w);
        if (w.la[1] != w.lb[1] || memcmp(w.ta[1], w.tb[1], w.la[1]) != 0)
            return vd_say(INVALID, "%s:%d: an energy line of another step", b_path, w.b.line);
        const double x = fd_value(w.ta[2], w.la[2]), y = fd_value(w.tb[2], w.lb[2]);
        scale = fmax(scale, fmax(fabs(x), fabs(y)));
        if (fabs(x - y) > diff)
            diff = fabs(x - y), worst = (long)fd_value(w.ta[1], w.la[1]);
    }
    if (!fd_within(diff, scale, tol))
        return vd_say(INVALID, "energy: step %ld differs by %.3g, %.3g of the largest energy %.3g "
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
                return vd_say(INVALID, "norm %s: the %s norms differ by %.3g, %.3g of the %c "
                              "field's largest (tolerance %g, %s; %s)", fd_fields[f],
                              k ? "max" : "L2", d, d / size, f < 3 ? 'E' : 'H', tol,
                              fd_mode(&a->grid), b_path);
        }
    return VALID;
}

/* Faithful results made from the same host tables (host_tables: the only
 * inputs a host's libm rounds) are bit-identical from every backend
 * (docs/fdtd.md section 3): their series, energies and norms are compared
 * digit for digit, the %.17g the app wrote (the same digits, the same
 * double). */
static int fd_exact(const fd_result *a, const fd_result *b)
{
    return !a->grid.fast && a->host_tables[0] && strcmp(a->host_tables, b->host_tables) == 0;
}

/* Which value word k (from 0) of a line of stage st is, for a message. */
static void fd_word_name(char *out, size_t cap, int st, const fd_pair *w, int k)
{
    if (st == FD_SERIES)
        snprintf(out, cap, "probe %d at step %.*s", k - 2, (int)w->la[1], w->ta[1]);
    else if (st == FD_ENERGY)
        snprintf(out, cap, "the energy at step %.*s", (int)w->la[1], w->ta[1]);
    else
        snprintf(out, cap, "the %s norm of %.*s", k == 2 ? "L2" : "max", (int)w->la[1], w->ta[1]);
}

static int fd_same_digits(const char *a_path, const char *b_path, const fd_result *a,
                          const fd_result *b, int st)
{
    if (a->count[st] != b->count[st])
        return vd_say(INVALID, "%s: %ld '%s' lines, %s %ld", b_path, b->count[st], fd_keys[st],
                      a_path, a->count[st]);
    static fd_pair w;
    char what[96];
    if (a->count[st] > 0)
        fd_pair_start(&w, a, b, st);
    for (long i = 0; i < a->count[st]; i++) {
        fd_pair_next(&w);
        for (int k = 1; k < w.na; k++)
            if (k >= w.nb || w.la[k] != w.lb[k] || memcmp(w.ta[k], w.tb[k], w.la[k]) != 0) {
                fd_word_name(what, sizeof what, st, &w, k);
                return vd_say(INVALID, "%s:%d and %s:%d: %s: %.*s and %.*s (%s: bit-identical "
                              "backends, host_tables %s: compared exactly)", a_path, w.a.line,
                              b_path, w.b.line, what, (int)w.la[k], w.ta[k],
                              k < w.nb ? (int)w.lb[k] : 0, k < w.nb ? w.tb[k] : "",
                              fd_mode(&a->grid), a->host_tables);
            }
    }
    return VALID;
}

static int fd_compare(const char *a_path, const char *b_path, const void *ra, const void *rb,
                      const double *unused)
{
    const fd_result *a = ra, *b = rb;
    (void)unused;
    /* The hash is the work unit's content's: every backend writes the same. */
    if (memcmp(a->work_unit, b->work_unit, 16) != 0)
        return vd_say(INVALID, "%s: another work unit (work_unit %s, the other result %s)", b_path,
                      b->work_unit, a->work_unit);
    int rc = fd_same_grid(b_path, &a->grid, &b->grid);
    if (rc == VALID)
        rc = fd_same_lines(b_path, a, b, FD_PARAM);
    if (rc == VALID)
        rc = fd_same_lines(b_path, a, b, FD_PROBE);
    if (fd_exact(a, b)) {
        static const int exact_stages[3] = {FD_SERIES, FD_ENERGY, FD_NORM};
        for (int i = 0; i < 3 && rc == VALID; i++)
            rc = fd_same_digits(a_path, b_path, a, b, exact_stages[i]);
        return rc;
    }
    const double tol = fd_tolerances[a->grid.single][a->grid.fast];
    if (rc == VALID)
        rc = fd_same_series(b_path, a, b, tol);
    if (rc == VALID)
        rc = fd_same_energy(b_path, a, b, tol);
    if (rc == VALID)
        rc = fd_same_norms(b_path, a, b, tol);
    return rc;
}

static int fd_dump(FILE *o, const orr_buffer *text, const void *result)
{
    (void)result;
    return vd_dump_records(o, "fdtd", text, 0);
}

/* An fdtd result is steps x probes values of up to 25 bytes: a long run's
 * series is large. orrery-wugen fdtd sizes each work unit's <max_nbytes>
 * and refuses one whose results could pass this; the app's results_bytes
 * limit (common/cost.h) is the same (tests/e2e/check_sizes_test.sh). */
#define MAX_FD_BYTES ((size_t)1 << 30)

const vd_kind vd_fdtd = {
    .name = "fdtd",
    .article = "an",
    .header = "# orrery fdtd results 1",
    .max_bytes = MAX_FD_BYTES,
    .usage_note = "fdtd results: tolerances from their arithmetic and precision (1e-12 faithful\n"
                  "double, 1e-9 fast double, 1e-5 faithful single, 1e-3 fast single)\n",
    .result_size = sizeof(fd_result),
    .compare_reads_text = 1,
    .load = fd_load,
    .dump = fd_dump,
    .compare = fd_compare,
};
