/* The locally corrected Nystrom discretisation (lcn.h; the spec, section
 * 1). The choices, and why:
 *
 * Nodes: the q-point Gauss-Legendre rule on each cell in its local
 * coordinate u in [-1, 1], linear in arc length; weights wt = w_i len/2.
 *
 * Near cells: observer node m's own cell, and every cell whose nearest
 * point is closer to r_m than NEAR_WIDTHS (8) of that cell's lengths. Why
 * 8 and not the customary 2: the q-point rule integrates a cell r lengths
 * away with a relative error ~ C_q r^-2q (C_q = 1/24, 1.4e-3, 6e-5, 3e-6
 * for q = 1..4); summed over the far cells and amplified by the inverse of
 * this first-kind operator that leaves an error floor that does not fall
 * with N, about C_q r^(1-2q)/(2q-1). Measured on the circle (ka 4.5,
 * J's relative L2 error, tests/unit/test_mom_lcn.c's setting): with 2
 * lengths the error stops falling at N = 640 near 1e-6 (q 2), 8e-8 (q 3),
 * 8e-10 (q 4), 1e-11 (q 5); with 8, q = 2..5 keep their order (3, 3, 4, 5)
 * to N = 640 (q 2: 4e-7, q 3: 5e-8, q 4: 3e-11) and q 1 stays second order
 * to N = 160 before the floor (~C_1/r, first order) shows. The cost stays
 * O(n): about 17 cells a node (51 entries a row at q = 3), each cell beyond
 * the first few one 16-point piece; mom_lcn_init takes 0.17 s for N = 2000,
 * q = 3 (0.11 s with 2 lengths), against ~2 s for Z's columns.
 *
 * Corrections: for a near cell c the q entries Z[m][cq+i] solve
 * sum_i Z_i P_l(u_i) = (k eta/4) b_l, l < q, b_l = int_cell P_l(u(s))
 * H0^(2)(k R(s)) ds. The q x q matrix A[l][i] = P_l(u_i) needs no numerical
 * solve: at Gauss-Legendre nodes sum_i w_i P_l(u_i) P_l'(u_i) =
 * delta_ll' 2/(2l+1) exactly (degree <= 2q-2), so A^-1[i][l] = w_i P_l(u_i)
 * (2l+1)/2: the corrected weights integrate the degree q-1 interpolant of
 * J exactly against the kernel.
 *
 * The integrals b_l:
 * - own cell (log singular at u_m): split at u_m; on each side, with
 *   u = u_m +- D t, t in [0, 1], singularity subtraction
 *   H0^(2)(kR) = S(kR) - j (2/pi) J0(kR) [ln(k len D rho / 2) + ln t],
 *   where R = (len/2) D t rho(t) (rho = 1 on a flat cell, a sinc on an arc)
 *   and S(x) = H0^(2)(x) + j(2/pi) ln(x) J0(x) is smooth in x^2: everything
 *   but the ln t term by 32-point Gauss-Legendre, the ln t term by the
 *   32-point product rule int_0^1 f ln t ~ sum slog_g f(t_g) on the same
 *   nodes (exact for polynomials f of degree < 32, from the moments
 *   int_0^1 P_n(2t-1) ln t dt = -1 (n = 0), (-1)^(n+1)/(n(n+1))). The
 *   factors f = P_l(u) J0(kR(u)) are entire; degree 31 resolves them to
 *   rounding for sides up to about a wavelength.
 * - other near cells (analytic, but with the log's branch point a distance
 *   d off the cell): split at the cell's point nearest r_m, each side cut
 *   into pieces halving towards it until a piece is no longer than d, each
 *   piece by 16-point Gauss-Legendre. Every piece then lies at least its own
 *   length from the branch point: the error per piece is below 4.5^-32 of
 *   its integral, at about 16 (1 + log2(len/d)) kernel values a side.
 * Distances near the observer come from formulas that do not cancel: on an
 * arc the chord 2a|sin(dtheta/2)|, dtheta from whole cells apart plus the
 * local offset; on the own cell R = (len/2)|u - u_m| rho. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bessel.h"
#include "entries.h"
#include "lcn.h"

#define PI 3.14159265358979323846
#define EULER 0.57721566490153286061
#define LN2 0.69314718055994530942
#define NEAR_WIDTHS 8.0     /* near: nearest point within this many of the cell's lengths */
#define MAX_LEVELS 60       /* halvings of a graded side (2^-60: below any node's distance) */
#define SERIES_BELOW 1.0    /* S(x) by its power series below this */

/* ---- quadrature rules ---- */

/* P_0 .. P_{count-1}(u) by the three-term recurrence. */
static void legendre(int count, double u, double *p)
{
    p[0] = 1;
    if (count > 1)
        p[1] = u;
    for (int l = 2; l < count; l++)
        p[l] = ((2 * l - 1) * u * p[l - 1] - (l - 1) * p[l - 2]) / l;
}

/* The n-point Gauss-Legendre rule on [-1, 1], ascending: Newton on P_n
 * from the usual cosine guesses. */
static void gauss_legendre(int n, double *u, double *w)
{
    for (int i = 0; i < n; i++) {
        double x = cos(PI * (i + 0.75) / (n + 0.5)), dp = 1;
        for (int it = 0; it < 100; it++) {
            double p0 = 1, p1 = x;   /* P_{k-1}, P_k */
            for (int k = 1; k < n; k++) {
                const double p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1);
                p0 = p1, p1 = p2;
            }
            dp = n * (x * p1 - p0) / (x * x - 1);
            const double dx = p1 / dp;
            x -= dx;
            if (fabs(dx) < 1e-16)
                break;
        }
        u[n - 1 - i] = x;
        w[n - 1 - i] = 2 / ((1 - x * x) * dp * dp);
    }
}

/* The product-log rule on [0, 1] at the Gauss nodes st: expand f in
 * shifted Legendre polynomials by the Gauss rule, integrate each against
 * ln t exactly. */
static void product_log_rule(mom_lcn_rules *r)
{
    double u[MOM_LCN_SIDE_ORDER], w[MOM_LCN_SIDE_ORDER], p[MOM_LCN_SIDE_ORDER];
    gauss_legendre(MOM_LCN_SIDE_ORDER, u, w);
    for (int g = 0; g < MOM_LCN_SIDE_ORDER; g++) {
        r->st[g] = 0.5 * (u[g] + 1);
        r->sw[g] = 0.5 * w[g];
        legendre(MOM_LCN_SIDE_ORDER, u[g], p);
        double sum = -1;   /* n = 0: int_0^1 ln t dt */
        for (int n = 1; n < MOM_LCN_SIDE_ORDER; n++)
            sum += (2 * n + 1) * p[n] * (n % 2 ? 1.0 : -1.0) / ((double)n * (n + 1));
        r->slog[g] = r->sw[g] * sum;
    }
}

static void make_rules(mom_lcn_rules *r, int q)
{
    gauss_legendre(q, r->u, r->w);
    gauss_legendre(MOM_LCN_GRADED_ORDER, r->gu, r->gw);
    product_log_rule(r);
}

/* ---- the cells ---- */

static int node_cell(const mom_lcn *l, int m)
{
    return m / l->q;
}

static double node_u(const mom_lcn *l, int m)
{
    return l->rules.u[m % l->q];
}

/* Cells apart, wrapped into [-cells/2, cells/2) on the circle. */
static int cells_apart(const mom_lcn *l, int d)
{
    d %= l->cells;
    if (d >= (l->cells + 1) / 2)
        d -= l->cells;
    if (d < -(l->cells / 2))
        d += l->cells;
    return d;
}

/* The distance from node m to the point u of cell c. */
static double distance(const mom_lcn *l, int m, int c, double u)
{
    if (l->radius > 0) {
        const double dth = 2 * PI / l->cells;
        const double d = dth * (cells_apart(l, c - node_cell(l, m)) + 0.5 * (u - node_u(l, m)));
        return 2 * l->radius * fabs(sin(0.5 * d));
    }
    const double s = 0.5 * u * l->cell_len[c];
    return hypot(l->cell_x[c] + s * l->cell_tx[c] - l->x[m],
                 l->cell_y[c] + s * l->cell_ty[c] - l->y[m]);
}

/* The point of cell c nearest node m, as u. On the circle (nodes lie on
 * it) the observer's angle clipped to the arc. */
static double nearest_u(const mom_lcn *l, int m, int c)
{
    double u;
    if (l->radius > 0)
        u = 2 * cells_apart(l, node_cell(l, m) - c) + node_u(l, m);
    else
        u = 2 * ((l->x[m] - l->cell_x[c]) * l->cell_tx[c] +
                 (l->y[m] - l->cell_y[c]) * l->cell_ty[c]) / l->cell_len[c];
    return fmin(1, fmax(-1, u));
}

static int is_near(const mom_lcn *l, int m, int c)
{
    if (c == node_cell(l, m))
        return 1;
    /* every point of the cell lies within len/2 of its midpoint */
    const double len = l->cell_len[c], dx = l->x[m] - l->cell_x[c], dy = l->y[m] - l->cell_y[c];
    const double reach = (NEAR_WIDTHS + 0.5) * len;
    if (dx * dx + dy * dy > reach * reach)
        return 0;
    return distance(l, m, c, nearest_u(l, m, c)) < NEAR_WIDTHS * len;
}

/* ---- the moments b_l ---- */

/* S(x) = H0^(2)(x) + j (2/pi) ln(x) J0(x) = J0 - j [Y0 - (2/pi) ln(x) J0]
 * and J0(x). Below 1 by the series Y0 - (2/pi) ln(x) J0 = (2/pi) [(gamma -
 * ln 2) J0 + sum_k>=1 (-1)^(k+1) h_k (x^2/4)^k / k!^2] (h_k = 1 + .. + 1/k):
 * subtracting from Y0 would lose ~log10|ln x| digits as x -> 0. From 1 on
 * nothing cancels. */
static void regular_part(double x, double *s_re, double *s_im, double *j0)
{
    if (x < SERIES_BELOW) {
        const double t = 0.25 * x * x;
        double term = 1, jsum = 1, ysum = 0, h = 0;
        for (int k = 1; k < 40 && term > 1e-20; k++) {
            term *= t / ((double)k * k);
            h += 1.0 / k;
            jsum += (k % 2 ? -term : term);
            ysum += (k % 2 ? h * term : -h * term);
        }
        *j0 = jsum;
        *s_re = jsum;
        *s_im = -(2 / PI) * ((EULER - LN2) * jsum + ysum);
        return;
    }
    double y0;
    mom_j0y0(x, j0, &y0);
    *s_re = *j0;
    *s_im = -(y0 - (2 / PI) * log(x) * *j0);
}

/* R / ((len/2) |u - u_m|) on the own cell at offset v = u - u_m: 1 on a
 * flat cell, sin(z)/z, z = dtheta v/4, on an arc. */
static double self_ratio(const mom_lcn *l, double v)
{
    if (l->radius <= 0)
        return 1;
    const double z = 0.25 * (2 * PI / l->cells) * v;
    return fabs(z) < 1e-8 ? 1 - z * z / 6 : sin(z) / z;
}

/* One side of the own cell, u = u_m + dir D t (module comment). */
static void add_self_side(const mom_lcn *l, int m, int dir, double *re, double *im)
{
    const mom_lcn_rules *r = &l->rules;
    const double um = node_u(l, m), len = l->cell_len[node_cell(l, m)];
    const double side = dir > 0 ? 1 - um : 1 + um, jac = 0.5 * len * side;
    double p[MOM_MAX_ORDER];
    for (int g = 0; g < MOM_LCN_SIDE_ORDER; g++) {
        const double v = dir * side * r->st[g], rho = self_ratio(l, v);
        const double kr = l->k * 0.5 * len * side * r->st[g] * rho;
        double s_re, s_im, j0;
        regular_part(kr, &s_re, &s_im, &j0);
        const double smooth_log = log(l->k * 0.5 * len * side * rho);
        legendre(l->q, um + v, p);
        const double a_re = r->sw[g] * s_re;
        const double a_im =
            r->sw[g] * (s_im - (2 / PI) * j0 * smooth_log) - r->slog[g] * (2 / PI) * j0;
        for (int b = 0; b < l->q; b++) {
            re[b] += jac * p[b] * a_re;
            im[b] += jac * p[b] * a_im;
        }
    }
}

/* int_ua^ub P_l(u) H0^(2)(k R(u)) (len/2) du, ua < ub, by 16-point Gauss. */
static void add_piece(const mom_lcn *l, int m, int c, double ua, double ub, double *re, double *im)
{
    const mom_lcn_rules *r = &l->rules;
    const double half = 0.5 * (ub - ua), mid = 0.5 * (ub + ua), jac = 0.5 * l->cell_len[c] * half;
    double p[MOM_MAX_ORDER];
    for (int g = 0; g < MOM_LCN_GRADED_ORDER; g++) {
        const double u = mid + half * r->gu[g];
        double h_re, h_im;
        mom_h02(l->k * distance(l, m, c, u), &h_re, &h_im);
        legendre(l->q, u, p);
        for (int b = 0; b < l->q; b++) {
            re[b] += r->gw[g] * jac * p[b] * h_re;
            im[b] += r->gw[g] * jac * p[b] * h_im;
        }
    }
}

/* From u0 over span (either sign): pieces halving towards u0 until no
 * longer than delta, the branch point's distance in u. */
static void add_graded_side(const mom_lcn *l, int m, int c, double u0, double span, double delta,
                            double *re, double *im)
{
    double b = span;
    for (int level = 0; fabs(b) > delta && level < MAX_LEVELS; level++) {
        add_piece(l, m, c, fmin(u0 + 0.5 * b, u0 + b), fmax(u0 + 0.5 * b, u0 + b), re, im);
        b *= 0.5;
    }
    add_piece(l, m, c, fmin(u0, u0 + b), fmax(u0, u0 + b), re, im);
}

void mom_lcn_moments(const mom_lcn *l, int m, int c, double *re, double *im)
{
    memset(re, 0, (size_t)l->q * sizeof *re);
    memset(im, 0, (size_t)l->q * sizeof *im);
    if (c == node_cell(l, m)) {
        add_self_side(l, m, -1, re, im);
        add_self_side(l, m, 1, re, im);
        return;
    }
    const double u0 = nearest_u(l, m, c);
    const double delta = 2 * distance(l, m, c, u0) / l->cell_len[c];
    if (u0 > -1)
        add_graded_side(l, m, c, u0, -1 - u0, delta, re, im);
    if (u0 < 1)
        add_graded_side(l, m, c, u0, 1 - u0, delta, re, im);
}

/* ---- the corrections ---- */

/* Z[m][cq+i] for near cell c into re[q], im[q]: A^-1 b (module comment). */
static void correct_cell(const mom_lcn *l, int m, int c, double *re, double *im)
{
    const int q = l->q;
    const double k_eta_4 = l->k * MOM_ETA / 4;
    double b_re[MOM_MAX_ORDER], b_im[MOM_MAX_ORDER], p[MOM_MAX_ORDER];
    mom_lcn_moments(l, m, c, b_re, b_im);
    for (int i = 0; i < q; i++) {
        legendre(q, l->rules.u[i], p);
        re[i] = im[i] = 0;
        for (int b = 0; b < q; b++) {
            const double a = k_eta_4 * l->rules.w[i] * p[b] * (b + 0.5);
            re[i] += a * b_re[b];
            im[i] += a * b_im[b];
        }
    }
}

static orr_status alloc_corrections(mom_lcn *l, orr_error *err)
{
    const size_t nnz = (size_t)l->near_start[l->n];
    l->near_col = malloc(nnz * sizeof *l->near_col);
    l->near_re = malloc(nnz * sizeof *l->near_re);
    l->near_im = malloc(nnz * sizeof *l->near_im);
    l->col_start = calloc((size_t)l->n + 1, sizeof *l->col_start);
    l->col_row = malloc(nnz * sizeof *l->col_row);
    l->col_re = malloc(nnz * sizeof *l->col_re);
    l->col_im = malloc(nnz * sizeof *l->col_im);
    if (!l->near_col || !l->near_re || !l->near_im || !l->col_start || !l->col_row || !l->col_re ||
        !l->col_im)
        return orr_fail(err, ORR_ERR_NOMEM, "LCN: no memory for %zu corrections", nnz);
    return ORR_OK;
}

/* Row by row (CSR): count the near cells, then fill. */
static orr_status build_rows(mom_lcn *l, orr_error *err)
{
    if (!(l->near_start = calloc((size_t)l->n + 1, sizeof *l->near_start)))
        return orr_fail(err, ORR_ERR_NOMEM, "LCN: no memory for %d rows", l->n);
    for (int m = 0; m < l->n; m++) {
        long count = 0;
        for (int c = 0; c < l->cells; c++)
            count += is_near(l, m, c);
        if (l->near_start[m] + count * l->q > INT_MAX)
            return orr_fail(err, ORR_ERR_NOMEM, "LCN: more than %d corrections", INT_MAX);
        l->near_start[m + 1] = l->near_start[m] + (int)count * l->q;
    }
    orr_status st = alloc_corrections(l, err);
    for (int m = 0; st == ORR_OK && m < l->n; m++) {
        int pos = l->near_start[m];
        for (int c = 0; c < l->cells; c++) {
            if (!is_near(l, m, c))
                continue;
            correct_cell(l, m, c, l->near_re + pos, l->near_im + pos);
            for (int i = 0; i < l->q; i++, pos++) {
                l->near_col[pos] = c * l->q + i;
                if (!isfinite(l->near_re[pos]) || !isfinite(l->near_im[pos]))
                    return orr_fail(err, ORR_ERR_NUMERIC, "LCN: correction Z[%d][%d] not finite", m,
                                    l->near_col[pos]);
            }
        }
    }
    return st;
}

/* The same entries column by column (CSC), rows ascending. */
static void build_columns(mom_lcn *l)
{
    const int nnz = l->near_start[l->n];
    for (int p = 0; p < nnz; p++)
        l->col_start[l->near_col[p] + 1]++;
    for (int j = 0; j < l->n; j++)
        l->col_start[j + 1] += l->col_start[j];
    /* col_start[j] walks through column j as it fills: afterwards it holds
     * the column's end, so everything shifts back one */
    for (int m = 0; m < l->n; m++)
        for (int p = l->near_start[m]; p < l->near_start[m + 1]; p++) {
            const int j = l->near_col[p], at = l->col_start[j]++;
            l->col_row[at] = m;
            l->col_re[at] = l->near_re[p];
            l->col_im[at] = l->near_im[p];
        }
    for (int j = l->n; j > 0; j--)
        l->col_start[j] = l->col_start[j - 1];
    l->col_start[0] = 0;
}

/* ---- the cells and nodes ---- */

static orr_status alloc_arrays(mom_lcn *l, orr_error *err)
{
    double **node_arrays[] = {&l->x, &l->y, &l->wt, &l->tx, &l->ty};
    double **cell_arrays[] = {&l->cell_x, &l->cell_y, &l->cell_tx, &l->cell_ty, &l->cell_len};
    for (size_t a = 0; a < ORR_ARRAY_LEN(node_arrays); a++)
        if (!(*node_arrays[a] = malloc((size_t)l->n * sizeof(double))))
            return orr_fail(err, ORR_ERR_NOMEM, "LCN: no memory for %d nodes", l->n);
    for (size_t a = 0; a < ORR_ARRAY_LEN(cell_arrays); a++)
        if (!(*cell_arrays[a] = malloc((size_t)l->cells * sizeof(double))))
            return orr_fail(err, ORR_ERR_NOMEM, "LCN: no memory for %d cells", l->cells);
    return ORR_OK;
}

/* The circle's exact arcs: cell c from angle c dtheta to (c+1) dtheta. */
static void arc_cells(const mom_workunit *wu, mom_lcn *l)
{
    const double a = wu->radius, dth = 2 * PI / l->cells;
    l->radius = a;
    for (int c = 0; c < l->cells; c++) {
        const double th = dth * (c + 0.5);
        l->cell_x[c] = a * cos(th), l->cell_y[c] = a * sin(th);
        l->cell_tx[c] = -sin(th), l->cell_ty[c] = cos(th);
        l->cell_len[c] = a * dth;
    }
    for (int m = 0; m < l->n; m++) {
        const double th = dth * (node_cell(l, m) + 0.5 * (node_u(l, m) + 1));
        l->x[m] = a * cos(th), l->y[m] = a * sin(th);
        l->tx[m] = -sin(th), l->ty[m] = cos(th);
        l->wt[m] = l->rules.w[m % l->q] * 0.5 * a * dth;
    }
}

/* A polygon's flat cells, geometry.c's own. */
static orr_status flat_cells(const mom_workunit *wu, mom_lcn *l, orr_error *err)
{
    mom_geometry g;
    orr_status st = mom_geometry_init(wu, &g, err);
    if (st != ORR_OK)
        return st;
    if (g.n != l->cells) {
        mom_geometry_free(&g);
        return orr_fail(err, ORR_ERR_INTERNAL, "LCN: %d cells asked, geometry.c cuts %d", l->cells,
                        g.n);
    }
    for (int c = 0; c < l->cells; c++) {
        l->cell_x[c] = g.cx[c], l->cell_y[c] = g.cy[c];
        l->cell_tx[c] = g.tx[c], l->cell_ty[c] = g.ty[c];
        l->cell_len[c] = g.w[c];
    }
    mom_geometry_free(&g);
    for (int m = 0; m < l->n; m++) {
        const int c = node_cell(l, m);
        const double s = 0.5 * node_u(l, m) * l->cell_len[c];
        l->x[m] = l->cell_x[c] + s * l->cell_tx[c], l->y[m] = l->cell_y[c] + s * l->cell_ty[c];
        l->tx[m] = l->cell_tx[c], l->ty[m] = l->cell_ty[c];
        l->wt[m] = l->rules.w[m % l->q] * 0.5 * l->cell_len[c];
    }
    return ORR_OK;
}

orr_status mom_lcn_init(const mom_workunit *wu, int cells, mom_lcn *l, orr_error *err)
{
    memset(l, 0, sizeof *l);
    if (wu->order < 1 || wu->order > MOM_MAX_ORDER)
        return orr_fail(err, ORR_ERR_INPUT, "%s: order: %d (1..%d allowed)", wu->path, wu->order,
                        MOM_MAX_ORDER);
    if (cells < 3 || cells > MOM_MAX_CELLS)
        return orr_fail(err, ORR_ERR_INPUT, "%s: %d cells (3..%d allowed)", wu->path, cells,
                        MOM_MAX_CELLS);
    if (wu->shape == MOM_CIRCLE && !(wu->radius > 0))
        return orr_fail(err, ORR_ERR_INPUT, "%s: radius: %g (> 0 needed)", wu->path, wu->radius);
    l->q = wu->order, l->cells = cells, l->n = cells * wu->order;
    l->k = 2 * PI / wu->wavelength;
    make_rules(&l->rules, l->q);
    orr_status st = alloc_arrays(l, err);
    if (st == ORR_OK && wu->shape == MOM_CIRCLE)
        arc_cells(wu, l);
    else if (st == ORR_OK)
        st = flat_cells(wu, l, err);
    if (st == ORR_OK)
        st = build_rows(l, err);
    if (st == ORR_OK)
        build_columns(l);
    if (st != ORR_OK)
        mom_lcn_free(l);
    return st;
}

void mom_lcn_free(mom_lcn *l)
{
    void *arrays[] = {l->x,        l->y,       l->wt,      l->tx,      l->ty,     l->near_start,
                      l->near_col, l->near_re, l->near_im, l->col_start, l->col_row, l->col_re,
                      l->col_im,   l->cell_x,  l->cell_y,  l->cell_tx, l->cell_ty, l->cell_len};
    for (size_t a = 0; a < ORR_ARRAY_LEN(arrays); a++)
        free(arrays[a]);
    memset(l, 0, sizeof *l);
}

/* ---- using it ---- */

void mom_lcn_column(const mom_lcn *l, int j, double *col)
{
    const double k_eta_4 = l->k * MOM_ETA / 4;
    for (int m = 0; m < l->n; m++) {
        if (m == j)
            col[2 * m] = col[2 * m + 1] = 0;   /* always corrected: the own cell is near */
        else
            mom_z_far(k_eta_4, l->k, l->wt[j], l->x[m] - l->x[j], l->y[m] - l->y[j], &col[2 * m],
                      &col[2 * m + 1]);
    }
    for (int p = l->col_start[j]; p < l->col_start[j + 1]; p++) {
        col[2 * l->col_row[p]] = l->col_re[p];
        col[2 * l->col_row[p] + 1] = l->col_im[p];
    }
}
