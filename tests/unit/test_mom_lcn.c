/* The LCN discretisation (common/mom/lcn.h) against what it must match
 * (docs/mom.md sections 1 and 5), the system solved by
 * LAPACK's zgesv:
 * - the local-correction integrals against a brute-force integration
 *   (libm's j0, y0, no singularity subtraction, 60 graded levels): ~1e-12
 *   asked, 5e-15 measured, on arcs and by a square's corner;
 * - circle, ka 4.5, N 40: the currents' error against the exact series
 *   falls with q, 1.2e-2 (q 1) to 1.6e-8 (q 6);
 * - circle, q 3: it falls with N at third order (N 20 .. 160);
 * - circle, N 40, q 4: the echo width within 0.01 dB of the series
 *   (2.6e-7 dB measured);
 * - a square and an L-shaped polygon, q 3, N 20 .. 320: the echo width's
 *   changes shrink by 2.52 = 2^(4/3) a doubling. Algebraic, as expected:
 *   at the convex right-angle corners J ~ r^(-1/3) (field wedge 3 pi/2), a
 *   functional such as the far field converging at twice the current's
 *   local 2/3; the same order at every q (1..5 tried), smaller constants
 *   with higher q. The L's reflex corner (J ~ r) changes nothing. */
#include <CUnit/Basic.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mom/lcn.h"
#include "mom_series.h"

#define PI 3.14159265358979323846

void zgesv_(const int *n, const int *nrhs, void *a, const int *lda, int *ipiv, void *b,
            const int *ldb, int *info);

/* ka = 4.5: 0.6 from the nearest interior resonance (J_n zeros 3.832,
 * 5.136), as in test_mom.c. */
#define RADIUS (4.5 / (2 * PI))
#define INCIDENCE_DEG 30.0

static double incidence[1] = {INCIDENCE_DEG};

/* ---- work units ---- */

static mom_workunit circle_unit(int cells, int q)
{
    mom_workunit wu = {.wavelength = 1, .shape = MOM_CIRCLE, .radius = RADIUS, .cells = cells,
                       .method = MOM_METHOD_LCN, .order = q, .n_incidence = 1,
                       .incidence = incidence};
    strcpy(wu.path, "test.wu");
    return wu;
}

static double square_vertices[] = {0, 0, 1, 0, 1, 1, 0, 1};
/* non-convex: the reflex corner at (0.5, 0.5) */
static double l_vertices[] = {0, 0, 1, 0, 1, 0.5, 0.5, 0.5, 0.5, 1, 0, 1};

static mom_workunit polygon_unit(double *vertex, int n_vertices, int cells, int q)
{
    mom_workunit wu = {.wavelength = 1, .shape = MOM_POLYGON, .n_vertices = n_vertices,
                       .vertex = vertex, .cells = cells, .method = MOM_METHOD_LCN, .order = q,
                       .n_incidence = 1, .incidence = incidence};
    strcpy(wu.path, "test.wu");
    return wu;
}

/* ---- an LCN system built and solved ---- */

typedef struct {
    mom_problem p;       /* the echo width's (mom_echo_widths) */
    const mom_lcn *l;    /* p's LCN */
    double complex *j;   /* [n] the currents at the nodes */
} solved;

static void solve(solved *s, const mom_workunit *wu)
{
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(mom_problem_init(wu, &s->p, &err), ORR_OK);
    s->l = s->p.lcn;
    const int n = s->l->n, one = 1;
    double complex *z = malloc((size_t)n * n * sizeof *z);
    int *ipiv = malloc((size_t)n * sizeof *ipiv), info;
    s->j = malloc((size_t)n * sizeof *s->j);
    CU_ASSERT_FATAL(z && ipiv && s->j);
    for (int c = 0; c < n; c++)
        mom_lcn_column(s->l, c, (double *)(z + (size_t)c * n));
    const double phi = INCIDENCE_DEG * PI / 180;
    for (int m = 0; m < n; m++)
        s->j[m] = cexp(-I * s->l->k * (s->l->x[m] * cos(phi) + s->l->y[m] * sin(phi)));
    zgesv_(&n, &one, z, &n, ipiv, s->j, &n, &info);
    CU_ASSERT_EQUAL_FATAL(info, 0);
    free(z);
    free(ipiv);
}

static void solved_free(solved *s)
{
    mom_problem_free(&s->p);
    free(s->j);
}

/* The currents' relative L2 error at the nodes, against the series. */
static double circle_error(int cells, int q)
{
    mom_workunit wu = circle_unit(cells, q);
    solved s;
    solve(&s, &wu);
    double num = 0, den = 0;
    for (int m = 0; m < s.l->n; m++) {
        const double complex e =
            exact_current(s.l->k, RADIUS, atan2(s.l->y[m], s.l->x[m]), INCIDENCE_DEG * PI / 180);
        num += pow(cabs(s.j[m] - e), 2);
        den += pow(cabs(e), 2);
    }
    solved_free(&s);
    return sqrt(num / den);
}

/* ---- 1, 2, 3: the circle ---- */

static void test_q_convergence(void)
{
    double e[7];
    printf("\n    LCN, ka 4.5, N 40: relative L2 error of J at the nodes");
    for (int q = 1; q <= 6; q++) {
        e[q] = circle_error(40, q);
        printf("\n      q %d (n %3d): %.3e", q, 40 * q, e[q]);
        if (q > 1)
            printf("  (/%.1f)", e[q - 1] / e[q]);
    }
    printf("\n    ");
    for (int q = 2; q <= 6; q++)
        CU_ASSERT(e[q] < e[q - 1] / 4);
    CU_ASSERT(e[4] < e[2] / 100);
    CU_ASSERT(e[6] < 1e-7);
}

static void test_n_convergence(void)
{
    const int cells[] = {20, 40, 80, 160};
    double e[4];
    printf("\n    LCN, ka 4.5, q 3: relative L2 error of J at the nodes");
    for (int i = 0; i < 4; i++) {
        e[i] = circle_error(cells[i], 3);
        printf("\n      N %3d: %.3e", cells[i], e[i]);
        if (i > 0)
            printf("  (order %.2f)", log2(e[i - 1] / e[i]));
    }
    printf("\n    ");
    for (int i = 1; i < 4; i++)
        CU_ASSERT(log2(e[i - 1] / e[i]) > 2.5);
}

static void test_echo_width(void)
{
    mom_workunit wu = circle_unit(40, 4);
    solved s;
    solve(&s, &wu);
    double deg[37], sigma[37], worst = 0;
    for (int a = 0; a < 37; a++)
        deg[a] = 10 * a;
    mom_echo_widths(&s.p, (const double *)s.j, 37, deg, sigma);
    for (int a = 0; a < 37; a++) {
        const double exact = exact_echo(s.l->k, RADIUS, deg[a] * PI / 180, INCIDENCE_DEG * PI / 180);
        worst = fmax(worst, fabs(10 * log10(sigma[a] / exact)));
    }
    printf("\n    echo width, N 40, q 4, 0..360 degrees: worst %.2e dB from the series ", worst);
    /* asked: 0.01 dB; measured 2.6e-7 dB, so hold it to 1e-5 */
    CU_ASSERT(worst <= 1e-5);
    solved_free(&s);
}

/* ---- 4: polygons ---- */
/* Convergence judged by the change between successive N (no exact
 * solution): it must shrink by more than 2 a doubling (measured 2.52). */

#define POLY_ANGLES 5
#define POLY_STEPS 5

/* The echo width in dB at 5 angles for N = 20 .. 320 cells, q 3; the
 * largest change between successive N printed and returned. */
static void polygon_sequence(const char *name, double *vertex, int n_vertices, double *change)
{
    double deg[POLY_ANGLES] = {0, 45, 90, 135, 210}, db[POLY_STEPS][POLY_ANGLES];
    printf("\n    %s, q 3: echo width (dB) at 0, 45, 90, 135, 210 degrees", name);
    for (int i = 0, cells = 20; i < POLY_STEPS; i++, cells *= 2) {
        mom_workunit wu = polygon_unit(vertex, n_vertices, cells, 3);
        solved s;
        solve(&s, &wu);
        double sigma[POLY_ANGLES];
        mom_echo_widths(&s.p, (const double *)s.j, POLY_ANGLES, deg, sigma);
        printf("\n      N %3d:", cells);
        for (int a = 0; a < POLY_ANGLES; a++) {
            db[i][a] = 10 * log10(sigma[a]);
            printf(" %9.5f", db[i][a]);
        }
        if (i > 0) {
            change[i] = 0;
            for (int a = 0; a < POLY_ANGLES; a++)
                change[i] = fmax(change[i], fabs(db[i][a] - db[i - 1][a]));
            printf("  max change %.2e", change[i]);
            if (i > 1)
                printf(" (ratio %.2f)", change[i - 1] / change[i]);
        }
        solved_free(&s);
    }
    printf("\n    ");
}

static void test_polygons(void)
{
    double change[POLY_STEPS];
    polygon_sequence("square, side 1", square_vertices, 4, change);
    for (int i = 2; i < POLY_STEPS; i++)
        CU_ASSERT(change[i] < 0.5 * change[i - 1]);
    polygon_sequence("L-shape (reflex corner)", l_vertices, 6, change);
    for (int i = 2; i < POLY_STEPS; i++)
        CU_ASSERT(change[i] < 0.5 * change[i - 1]);
}

/* ---- 5: the local-correction integrals, brute force ---- */

#define BRUTE_ORDER 20
#define BRUTE_LEVELS 60

static void gauss_legendre(int n, double *u, double *w)
{
    for (int i = 0; i < n; i++) {
        double x = cos(PI * (i + 0.75) / (n + 0.5)), dp = 1, p1 = 1, p0 = 1;
        for (int it = 0; it < 100; it++) {
            p0 = 1, p1 = x;
            for (int k = 1; k < n; k++) {
                const double p2 = ((2 * k + 1) * x * p1 - k * p0) / (k + 1);
                p0 = p1, p1 = p2;
            }
            dp = n * (x * p1 - p0) / (x * x - 1);
            x -= p1 / dp;
            if (fabs(p1 / dp) < 1e-16)
                break;
        }
        u[i] = x;
        w[i] = 2 / ((1 - x * x) * dp * dp);
    }
}

static double legendre(int l, double u)
{
    double p0 = 1, p1 = u;
    if (l == 0)
        return 1;
    for (int k = 1; k < l; k++) {
        const double p2 = ((2 * k + 1) * u * p1 - k * p0) / (k + 1);
        p0 = p1, p1 = p2;
    }
    return p1;
}

/* The distance from the observer to the point u0 + v of the source cell:
 * given the offset v from u0 so that it stays exact as v -> 0 on the own
 * cell (there u0 + v would round to u0 and R to 0). */
typedef double (*distance_fn)(const void *ctx, double u0, double v);

/* b_l = (len/2) int_-1^1 P_l(u) H0^(2)(k R(u)) du with libm's j0, y0 and no
 * singularity subtraction: both sides of u0 (the singular or nearest point)
 * cut into 60 pieces halving towards it, 20-point Gauss on each, and the
 * last 2^-60 of the side by 20-point Gauss too. */
static void brute_moments(int q, double k, double len, double u0, distance_fn r, const void *ctx,
                          double complex *b)
{
    double gu[BRUTE_ORDER], gw[BRUTE_ORDER];
    gauss_legendre(BRUTE_ORDER, gu, gw);
    for (int l = 0; l < q; l++)
        b[l] = 0;
    for (int dir = -1; dir <= 1; dir += 2) {
        double span = dir > 0 ? 1 - u0 : 1 + u0;
        for (int level = 0; level <= BRUTE_LEVELS && span > 0; level++, span *= 0.5) {
            const double outer = span, inner = level == BRUTE_LEVELS ? 0 : 0.5 * span;
            const double half = 0.5 * (outer - inner), mid = 0.5 * (outer + inner);
            for (int g = 0; g < BRUTE_ORDER; g++) {
                const double v = dir * (mid + half * gu[g]), x = k * r(ctx, u0, v);
                const double complex h = j0(x) - I * y0(x);
                for (int l = 0; l < q; l++)
                    b[l] += 0.5 * len * half * gw[g] * legendre(l, u0 + v) * h;
            }
        }
    }
}

typedef struct {
    double a, dth, theta_m;   /* circle: radius, cell angle, observer's angle */
    int cell, self;
} arc_ctx;

/* The chord 2a|sin(dtheta/2)|; on the own cell dtheta = dth v / 2 exactly. */
static double arc_distance(const void *ctx, double u0, double v)
{
    const arc_ctx *c = ctx;
    const double dtheta =
        c->self ? 0.5 * c->dth * v : c->dth * (c->cell + 0.5 * (u0 + v + 1)) - c->theta_m;
    return 2 * c->a * fabs(sin(0.5 * dtheta));
}

typedef struct {
    double cx, cy, tx, ty, len, xm, ym;   /* flat cell; observer */
    int self;
} flat_ctx;

static double flat_distance(const void *ctx, double u0, double v)
{
    const flat_ctx *c = ctx;
    if (c->self)
        return 0.5 * c->len * fabs(v);
    const double s = 0.5 * (u0 + v) * c->len;
    return hypot(c->cx + s * c->tx - c->xm, c->cy + s * c->ty - c->ym);
}

/* The worst |b_l - brute_l| / max |brute_l| for observer node m, cell c. */
static double moment_error(const mom_lcn *l, int m, int c, double u0, distance_fn r,
                           const void *ctx)
{
    double re[MOM_MAX_ORDER], im[MOM_MAX_ORDER], top = 0, worst = 0;
    double complex b[MOM_MAX_ORDER];
    mom_lcn_moments(l, m, c, re, im);
    brute_moments(l->q, l->k, l->cell_len[c], u0, r, ctx, b);
    for (int i = 0; i < l->q; i++) {
        CU_ASSERT(isfinite(creal(b[i])) && isfinite(cimag(b[i])));
        top = fmax(top, cabs(b[i]));
    }
    for (int i = 0; i < l->q; i++)
        worst = fmax(worst, cabs(re[i] + I * im[i] - b[i]) / top);
    return worst;
}

static void test_circle_moments(void)
{
    const int cells = 40, q = 5, cell = 7;
    mom_workunit wu = circle_unit(cells, q);
    mom_lcn l;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(mom_lcn_init(&wu, cells, &l, &err), ORR_OK);
    const double dth = 2 * PI / cells;
    printf("\n    circle arcs, N 40, q 5: moments against brute force (relative to max |b_l|)");
    for (int i = 0; i < q; i++) {
        const int m = cell * q + i;
        arc_ctx ctx = {RADIUS, dth, atan2(l.y[m], l.x[m]), 0, 0};
        for (int c = cell - 2; c <= cell + 2; c++) {
            ctx.cell = c, ctx.self = c == cell;
            const double u0 = fmin(1, fmax(-1, 2 * (ctx.theta_m / dth - c) - 1));
            const double e = moment_error(&l, m, c, u0, arc_distance, &ctx);
            printf("\n      node %d of cell %d, source cell %+d: %.1e", i, cell, c - cell, e);
            CU_ASSERT(e < 1e-12);
        }
    }
    printf("\n    ");
    mom_lcn_free(&l);
}

static void test_polygon_moments(void)
{
    const int cells = 40, q = 4;
    mom_workunit wu = polygon_unit(square_vertices, 4, cells, q);
    mom_geometry g;
    mom_lcn l;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(mom_geometry_init(&wu, &g, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(mom_lcn_init(&wu, cells, &l, &err), ORR_OK);
    printf("\n    square, N 40, q 4: moments against brute force, by the corner (1, 0)");
    const int cell = 9;   /* the last cell of the first edge: the corner at its end */
    for (int i = 0; i < q; i++) {
        const int m = cell * q + i;
        for (int c = cell - 1; c <= cell + 2; c++) {
            flat_ctx ctx = {g.cx[c], g.cy[c], g.tx[c], g.ty[c], g.w[c], l.x[m], l.y[m], c == cell};
            const double s = (l.x[m] - g.cx[c]) * g.tx[c] + (l.y[m] - g.cy[c]) * g.ty[c];
            const double u0 = fmin(1, fmax(-1, 2 * s / g.w[c]));
            const double e = moment_error(&l, m, c, u0, flat_distance, &ctx);
            printf("\n      node %d of cell %d, source cell %+d: %.1e", i, cell, c - cell, e);
            CU_ASSERT(e < 1e-12);
        }
    }
    printf("\n    ");
    mom_lcn_free(&l);
    mom_geometry_free(&g);
}

/* ---- the API's bookkeeping ---- */

static void test_columns_match_rows(void)
{
    mom_workunit wu = polygon_unit(l_vertices, 6, 32, 3);
    mom_lcn l;
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(mom_lcn_init(&wu, 32, &l, &err), ORR_OK);
    double *col = malloc(2 * (size_t)l.n * sizeof *col);
    int mismatches = 0;
    for (int m = 0; m < l.n; m++)
        for (int p = l.near_start[m]; p < l.near_start[m + 1]; p++) {
            mom_lcn_column(&l, l.near_col[p], col);
            mismatches += col[2 * m] != l.near_re[p] || col[2 * m + 1] != l.near_im[p];
        }
    CU_ASSERT_EQUAL(mismatches, 0);
    /* at least the own cell and one on each side, q entries each */
    CU_ASSERT(l.near_start[l.n] >= 3 * l.q * l.n);
    free(col);
    mom_lcn_free(&l);
    wu.order = MOM_MAX_ORDER + 1;
    CU_ASSERT_EQUAL(mom_lcn_init(&wu, 32, &l, &err), ORR_ERR_INPUT);
    wu.order = 3;
    CU_ASSERT_EQUAL(mom_lcn_init(&wu, 31, &l, &err), ORR_ERR_INTERNAL);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("mom_lcn", NULL, NULL);
    CU_add_test(s, "local-correction integrals on arcs against brute force", test_circle_moments);
    CU_add_test(s, "local-correction integrals by a square's corner against brute force",
                test_polygon_moments);
    CU_add_test(s, "corrections by column match those by row", test_columns_match_rows);
    CU_add_test(s, "circle: the currents' error falls with q", test_q_convergence);
    CU_add_test(s, "circle: the currents' error falls with N at high order", test_n_convergence);
    CU_add_test(s, "circle: echo width within 0.01 dB of the series", test_echo_width);
    CU_add_test(s, "square and L-shape: the echo width converges", test_polygons);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    const unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
