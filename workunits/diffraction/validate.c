/* orrery-validate for diffraction results tables: first line "#
 * orrery-diffraction-results 1" (docs/diffraction.md sections 4, 6.3).
 *
 * init: the table is whole (its last line "# end points N", N point rows
 * numbered 0..N-1, at most 64 MB) and one "# work_unit HASH" line, at most
 * one "# application TEXT", each "# parameter NAME VALUE" a name
 * ([A-Za-z_][A-Za-z0-9_]*, at most 32, each once, at most 32) and a finite
 * number; every row has its 14 + 4 n_orders fields well-formed: lambda > 0,
 * 0 <= theta < 90, phi, residual >= 0 finite, status ok, not_converged or
 * unbalanced, iterations and n_orders >= 1 whole numbers, r00 finite,
 * R_total >= 0 finite, T_total and absorbed finite or both nan, the orders'
 * (m, n) whole, listed in increasing (n, m) (the app's order) or (m, n),
 * (0, 0) among them, each R >= 0 finite and T >= 0 finite or nan; and
 * consistent with the unit's substrate: T nan at every order and in T_total
 * and absorbed (lossy) or nowhere, R_total and T_total the orders' sums and
 * absorbed 1 - R_total - T_total (to 1e-9); and the status word as the
 * app's energy rule gives it from the row's numbers (dif_energy_balance,
 * common/diffraction/report.h): a converged point is ok within the balance,
 * unbalanced beyond it; where the rule needs the stack's materials (a
 * lossless substrate, R_total + T_total < 1 - 1e-2), which the table does
 * not hold, either word. compare: both pass init, with the same parameter
 * and periods lines (not the work_unit line: the app's hash there also
 * names the backend and CPU path), the same points (lambda, theta, phi
 * within 1e-9), converged (ok, unbalanced) or not_converged in both, the
 * same words unless the rows' numbers lie on either side of the balance's
 * limit, the same orders; at every converged point |r00_1 - r00_2| <=
 * r00_tolerance * max(|r00_1|, |r00_2|, 0.01) (default 1e-8) and every
 * efficiency (R_total, T_total, absorbed, each order's R and T) within
 * efficiency_tolerance (default 1e-8 absolute), nan where the other is nan;
 * not_converged points' values are not compared. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/validate.h"
#include "diffraction/diffraction.h"
#include "diffraction/report.h"

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

enum { DIF_TOL_R00, DIF_TOL_EFFICIENCY, DIF_N_TOL };
static const vd_tolerance dif_tolerances[DIF_N_TOL] = {
    {"r00_tolerance", 1e-8, "diffraction; default 1e-8, relative to max(|r00|, 0.01)"},
    {"efficiency_tolerance", 1e-8, "diffraction; default 1e-8 absolute"},
};

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
    vd_name_set params;                     /* the '# parameter' names */
    int application;                     /* '# application' lines */
} dif_result;

static const char *const dif_value_names[3] = {"R_total", "T_total", "absorbed"};

static void dif_free(void *result)
{
    dif_result *d = result;
    free(d->rows);
    free(d->orders);
    free(d->same);
    memset(d, 0, sizeof *d);
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
    const int n = vd_tokens(s, len, tok, tlen, 4);
    if (n >= 2 && vd_tok_eq(tok[1], tlen[1], "end"))
        return vd_say(INVALID, "%s:%d: an '# end' line before the last line", path, line);
    const int param = n >= 2 && vd_tok_eq(tok[1], tlen[1], "parameter");
    const int keep = param || (n >= 2 && vd_tok_eq(tok[1], tlen[1], "periods"));
    if (n >= 2 && vd_tok_eq(tok[1], tlen[1], "work_unit")) {
        if (n != 3 || (*work_unit)++)
            return vd_say(INVALID, "%s:%d: want one '# work_unit HASH' line", path, line);
    }
    if (n >= 2 && vd_tok_eq(tok[1], tlen[1], "application") && (n < 3 || d->application++))
        return vd_say(INVALID, "%s:%d: want at most one '# application TEXT' line", path, line);
    if (param && (n != 4 || vd_name_add(&d->params, tok[2], tlen[2]) != 0 ||
                  vd_number(tok[3], tlen[3], 0, &v) != 0))
        return vd_say(INVALID, "%s:%d: want '# parameter NAME VALUE': NAME "
                      "[A-Za-z_][A-Za-z0-9_]* of at most %d characters, each once, at most %d of "
                      "them; VALUE a finite number",
                      path, line, VD_NAME_MAX_LEN, VD_NAME_SET_MAX);
    if (keep && dif_keep(d, s, len) != 0)
        return vd_say(RETRY, "%s: out of memory", path);
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
        return vd_say(INVALID, "%s:%d: an ok point that makes energy: R_total %.17g, T_total "
                      "%.17g (out beyond 1 + %g: the app writes unbalanced; docs/diffraction.md "
                      "section 4)",
                      path, line, r->v[0], r->v[1], DIF_ENERGY_TOLERANCE);
    if (r->status == DIF_POINT_UNBALANCED && b == DIF_BALANCE_OK)
        return vd_say(INVALID, "%s:%d: an unbalanced point whose energy balances: R_total %.17g, "
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
            return vd_say(INVALID, "%s:%d: order (%d, %d): R %g, T %g with T_total %g: R is never "
                          "nan, and T is nan at every order (a lossy substrate) or at none", path,
                          line, o[j].m, o[j].n, o[j].R, o[j].T, r->v[1]);
        sum_r += o[j].R;
        sum_t += lossy ? 0 : o[j].T;
    }
    if (!(fabs(sum_r - r->v[0]) <= DIF_SUM_TOLERANCE) ||
        (!lossy && !(fabs(sum_t - r->v[1]) <= DIF_SUM_TOLERANCE)))
        return vd_say(INVALID, "%s:%d: R_total %.17g, T_total %.17g are not the orders' sums "
                      "%.17g, "
                      "%.17g", path, line, r->v[0], r->v[1], sum_r, lossy ? NAN : sum_t);
    if (!lossy && !(fabs(1 - r->v[0] - r->v[1] - r->v[2]) <= DIF_SUM_TOLERANCE))
        return vd_say(INVALID, "%s:%d: absorbed %.17g is not 1 - R_total - T_total (%.17g)", path,
                      line, r->v[2], 1 - r->v[0] - r->v[1]);
    return dif_energy_status(path, line, r);
}

/* One point row (tokens after splitting); on failure says why. */
static int dif_row_line(const char *path, int line, const char **tok, const size_t *tlen, int n,
                        dif_result *d)
{
#define BAD(what) vd_say(INVALID, "%s:%d: %s", path, line, what)
    if (n < 14 || !vd_tok_eq(tok[0], tlen[0], "point"))
        return BAD("neither a '#' line nor a 'point' row of at least 14 fields");
    int k, iterations, n_orders;
    if (vd_whole(tok[1], tlen[1], 0, DIF_MAX_POINTS - 1, &k) != 0 || k != d->n_points)
        return vd_say(INVALID, "%s:%d: point number: want %d", path, line, d->n_points);
    if (vd_whole(tok[13], tlen[13], 1, DIF_MAX_ORDER_PAIRS, &n_orders) != 0 ||
        n != 14 + 4 * n_orders)
        return BAD("n_orders: not a whole number >= 1, or not 4 fields per order after it");
    if (dif_grow(d, n_orders) != 0)
        return vd_say(RETRY, "%s: out of memory", path);
    dif_row *r = &d->rows[d->n_points];
    double residual;
    if (vd_number(tok[2], tlen[2], 0, &r->lambda) != 0 || !(r->lambda > 0))
        return BAD("lambda: not a number > 0");
    if (vd_number(tok[3], tlen[3], 0, &r->theta) != 0 || !(r->theta >= 0 && r->theta < 90))
        return BAD("theta: not a number in [0, 90)");
    if (vd_number(tok[4], tlen[4], 0, &r->phi) != 0)
        return BAD("phi: not a finite number");
    /* the app's words (report.c), "pending" aside: it is never written */
    r->status = DIF_POINT_STATUSES;
    for (int w = DIF_POINT_OK; w < DIF_POINT_STATUSES; w++)
        if (vd_tok_eq(tok[5], tlen[5], dif_point_status_words[w]))
            r->status = w;
    if (r->status == DIF_POINT_STATUSES)
        return BAD("status: neither ok, not_converged nor unbalanced");
    if (vd_whole(tok[6], tlen[6], 0, INT_MAX, &iterations) != 0)
        return BAD("iterations: not a whole number >= 0");
    if (vd_number(tok[7], tlen[7], 0, &residual) != 0 || !(residual >= 0))
        return BAD("residual: not a finite number >= 0");
    if (vd_number(tok[8], tlen[8], 0, &r->r00[0]) != 0 ||
        vd_number(tok[9], tlen[9], 0, &r->r00[1]) != 0)
        return BAD("r00: not finite");
    for (int j = 0; j < 3; j++)
        if (vd_number(tok[10 + j], tlen[10 + j], j > 0, &r->v[j]) != 0 || (j < 2 && r->v[j] < 0))
            return vd_say(INVALID, "%s:%d: %s: not a finite number%s", path, line,
                          dif_value_names[j], j < 2 ? " >= 0" : " (or nan)");
    if (isnan(r->v[1]) != isnan(r->v[2]))
        return BAD("T_total and absorbed: nan in one only");
    r->n_orders = n_orders;
    r->first = d->n_ord;
    int zero = 0, mn = 1, nm = 1;
    for (int j = 0; j < n_orders; j++) {
        dif_order *o = &d->orders[d->n_ord + (size_t)j];
        const int t = 14 + 4 * j;
        if (vd_whole(tok[t], tlen[t], -DIF_MAX_ORDERS, DIF_MAX_ORDERS, &o->m) != 0 ||
            vd_whole(tok[t + 1], tlen[t + 1], -DIF_MAX_ORDERS, DIF_MAX_ORDERS, &o->n) != 0)
            return vd_say(INVALID, "%s:%d: order %d: m, n not whole numbers within %d", path, line,
                          j, DIF_MAX_ORDERS);
        if (vd_number(tok[t + 2], tlen[t + 2], 1, &o->R) != 0 || o->R < 0 ||
            vd_number(tok[t + 3], tlen[t + 3], 1, &o->T) != 0 || o->T < 0)
            return vd_say(INVALID, "%s:%d: order (%d, %d): R, T not numbers >= 0 (or nan)", path,
                          line, o->m, o->n);
        /* distinct: listed in increasing (n, m), as the app does, or (m, n) */
        if (j > 0) {
            mn &= o[-1].m < o->m || (o[-1].m == o->m && o[-1].n < o->n);
            nm &= o[-1].n < o->n || (o[-1].n == o->n && o[-1].m < o->m);
            if (!mn && !nm)
                return vd_say(INVALID, "%s:%d: order (%d, %d): the orders are not listed in "
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
static int dif_load(const char *path, const orr_buffer *buf, void *result)
{
    dif_result *d = result;
    if (buf->data[buf->size - 1] != '\n')
        return vd_say(INVALID, "%s: truncated (no line end at its end)", path);
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
            return vd_say(RETRY, "%s: out of memory", path);
    }
    orr_lines_next(&it, &s, &len); /* the header, the registry's */
    while (rc == VALID && orr_lines_next(&it, &s, &len)) {
        if (end >= 0)
            return vd_say(INVALID, "%s:%d: a line after '# end points'", path, it.line);
        if (len > 0 && s[len - 1] == '\r')
            len--;
        if (len > 0 && s[0] == '#') {
            const int n = vd_tokens(s, len, tok, tlen, 4);
            if (n == 4 && vd_tok_eq(tok[1], tlen[1], "end") &&
                vd_tok_eq(tok[2], tlen[2], "points")) {
                int v;
                if (vd_whole(tok[3], tlen[3], 0, DIF_MAX_POINTS, &v) != 0)
                    return vd_say(INVALID, "%s:%d: '# end points N': bad N", path, it.line);
                end = v;
            } else {
                rc = dif_header_line(path, it.line, s, len, d, &work_unit);
            }
            continue;
        }
        const int n = vd_tokens(s, len, tok, tlen, max_tok);
        if (n > max_tok)
            return vd_say(INVALID, "%s:%d: more fields than %d orders allow", path, it.line,
                          DIF_MAX_ORDER_PAIRS);
        if (d->n_points >= DIF_MAX_POINTS)
            return vd_say(INVALID, "%s:%d: more than %d points", path, it.line, DIF_MAX_POINTS);
        rc = dif_row_line(path, it.line, tok, tlen, n, d);
    }
    if (rc != VALID)
        return rc;
    if (end < 0)
        return vd_say(INVALID, "%s: truncated (no '# end points N' line at its end)", path);
    if (end != d->n_points)
        return vd_say(INVALID, "%s: %d point rows, '# end points %ld'", path, d->n_points, end);
    if (!work_unit)
        return vd_say(INVALID, "%s: no '# work_unit HASH' line", path);
    return VALID;
}

/* Two values within tol (absolute), nan where the other is nan. */
static int dif_close(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return fabs(a - b) <= tol;
}

static int dif_compare(const char *a_path, const char *b_path, const void *ra, const void *rb,
                       const double *tol)
{
    const dif_result *a = ra, *b = rb;
    (void)a_path;
    if (a->same_len != b->same_len || (a->same_len && memcmp(a->same, b->same, a->same_len)))
        return vd_say(INVALID, "%s: another work unit (its parameter or periods lines differ)",
                      b_path);
    if (a->n_points != b->n_points)
        return vd_say(INVALID, "%s: %d points, the other result %d", b_path, b->n_points,
                      a->n_points);
    for (int p = 0; p < a->n_points; p++) {
        const dif_row *x = &a->rows[p], *y = &b->rows[p];
        if (!(fabs(x->lambda - y->lambda) <= DIF_POINT_TOLERANCE * x->lambda &&
              fabs(x->theta - y->theta) <= DIF_POINT_TOLERANCE &&
              fabs(x->phi - y->phi) <= DIF_POINT_TOLERANCE))
            return vd_say(INVALID, "point %d: lambda, theta, phi %.17g %.17g %.17g, the other "
                          "result %.17g %.17g %.17g (%s)", p, y->lambda, y->theta, y->phi,
                          x->lambda, x->theta, x->phi, b_path);
        const int nx = x->status == DIF_POINT_NOT_CONVERGED;
        const int ny = y->status == DIF_POINT_NOT_CONVERGED;
        if (nx != ny)
            return vd_say(INVALID, "point %d: converged in one result only (%s)", p, b_path);
        if (nx)
            continue;
        if (x->status != y->status && dif_energy_balance(x->v[0], x->v[1], isnan(x->v[1])) ==
                                          dif_energy_balance(y->v[0], y->v[1], isnan(y->v[1])))
            return vd_say(INVALID, "point %d: %s in one result, %s in the other, with numbers on "
                          "the same side of the energy balance (%s)", p,
                          dif_point_status_words[x->status], dif_point_status_words[y->status],
                          b_path);
        const double ax = hypot(x->r00[0], x->r00[1]), ay = hypot(y->r00[0], y->r00[1]);
        const double scale = fmax(fmax(ax, ay), DIF_R00_FLOOR);
        const double d = hypot(x->r00[0] - y->r00[0], x->r00[1] - y->r00[1]) / scale;
        if (!(d <= tol[DIF_TOL_R00]))
            return vd_say(INVALID, "point %d: r00 %.17g%+.17gi and %.17g%+.17gi differ by %.3g "
                          "relative to max(|r00|, %g) (%s %.3g)", p, x->r00[0], x->r00[1],
                          y->r00[0], y->r00[1], d, DIF_R00_FLOOR, dif_tolerances[DIF_TOL_R00].key,
                          tol[DIF_TOL_R00]);
        for (int j = 0; j < 3; j++)
            if (!dif_close(x->v[j], y->v[j], tol[DIF_TOL_EFFICIENCY]))
                return vd_say(INVALID, "point %d: %s %.17g and %.17g differ by %.3g (%s %.3g)", p,
                              dif_value_names[j], x->v[j], y->v[j], fabs(x->v[j] - y->v[j]),
                              dif_tolerances[DIF_TOL_EFFICIENCY].key, tol[DIF_TOL_EFFICIENCY]);
        if (x->n_orders != y->n_orders)
            return vd_say(INVALID, "point %d: %d orders, the other result %d (%s)", p,
                          y->n_orders, x->n_orders, b_path);
        for (int j = 0; j < x->n_orders; j++) {
            const dif_order *o = &a->orders[x->first + (size_t)j];
            const dif_order *q = &b->orders[y->first + (size_t)j];
            if (o->m != q->m || o->n != q->n)
                return vd_say(INVALID, "point %d: other orders (%s)", p, b_path);
            if (!dif_close(o->R, q->R, tol[DIF_TOL_EFFICIENCY]) ||
                !dif_close(o->T, q->T, tol[DIF_TOL_EFFICIENCY]))
                return vd_say(INVALID, "point %d: order (%d, %d): R %.17g and %.17g, T %.17g and "
                              "%.17g: differ by %.3g (%s %.3g)", p, o->m, o->n, o->R, q->R, o->T,
                              q->T, fmax(fabs(o->R - q->R), fabs(o->T - q->T)),
                              dif_tolerances[DIF_TOL_EFFICIENCY].key, tol[DIF_TOL_EFFICIENCY]);
        }
    }
    return VALID;
}

static int dif_dump(FILE *o, const orr_buffer *text, const void *result)
{
    (void)result;
    return vd_dump_records(o, "diffraction", text, 1);
}

/* A diffraction table is about 100 bytes per order and point: 64 MB, the
 * output template's <max_nbytes>, bounds what the server accepts. */
const vd_kind vd_diffraction = {
    .name = "diffraction",
    .article = "a",
    .header = "# orrery-diffraction-results 1",
    .max_bytes = (size_t)64 << 20,
    .tolerances = dif_tolerances,
    .n_tolerances = DIF_N_TOL,
    .config_group = "known",
    .result_size = sizeof(dif_result),
    .load = dif_load,
    .dump = dif_dump,
    .compare = dif_compare,
    .free = dif_free,
};
