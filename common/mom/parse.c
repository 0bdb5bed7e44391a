/* The work-unit text (docs/mom.md section 2) -> mom_workunit, no
 * computing. The text's rules (one statement a line, '#' comments, the
 * first statement `orrery-mom 1`, the values, `param`, the messages
 * "FILE:LINE: KEY: ...") are common/io/wutext.c's, as for FDTD; this file
 * has MoM's statements and checks. Each statement is checked on its own
 * line; what needs the whole file (a required statement missing, the
 * polygon's vertices: their count, zero-length and crossing edges, the
 * orientation; cells against the vertices; precision single with solver
 * mixed; far_field exact with method lcn) is checked at the end, naming
 * the line at fault. Pairs that exclude each other (wavelength/wavenumber,
 * circle/polygon, cells/density) are refused on the second one's line. */
#include "mom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "../io/wutext.h"

#define TWO_PI 6.28318530717958647692

enum { ONCE_WAVELENGTH, ONCE_WAVENUMBER, ONCE_CIRCLE, ONCE_POLYGON, ONCE_CELLS, ONCE_DENSITY,
       ONCE_METHOD, ONCE_SOLVER, ONCE_PRECISION, ONCE_CURRENT, ONCE_FAR_FIELD, N_ONCE };
_Static_assert(N_ONCE <= WUT_MAX_ONCE, "more once-only statements than wut_parser holds");

/* MoM's parser state: the shared one first (its statement readers get
 * that; mp() gives back the rest). */
typedef struct {
    wut_parser t;
    mom_workunit *wu;
    int *vertex_line;     /* [n_vertices]: the line of each vertex */
    int incidence_line;   /* the first `incidence` line */
    int echo_line;        /* the first `echo` line */
    int echo_range;       /* that line was from= to= step= */
} parser;

static parser *mp(wut_parser *p)
{
    return (parser *)p;
}

static mom_workunit *wu_of(wut_parser *p)
{
    return mp(p)->wu;
}

/* ---- values ---- */

/* A finite number > 0. */
static orr_status positive(wut_parser *p, const char *key, const wut_token *t, double *v)
{
    orr_status s = wut_number(p, key, t, v);
    if (s == ORR_OK && !(*v > 0))
        s = wut_bad(p, key, "%g must be > 0", *v);
    return s;
}

/* A length (wavelength, radius), MOM_MIN_LENGTH..MOM_MAX_LENGTH. */
static orr_status length(wut_parser *p, const char *key, const wut_token *t, double *v)
{
    orr_status s = positive(p, key, t, v);
    if (s == ORR_OK && !(*v >= MOM_MIN_LENGTH && *v <= MOM_MAX_LENGTH))
        s = wut_bad(p, key, "%g is outside %g..%g (lengths whose squares the double range holds)",
                    *v, MOM_MIN_LENGTH, MOM_MAX_LENGTH);
    return s;
}

/* A vertex coordinate: 0, or a length in magnitude. */
static orr_status coordinate(wut_parser *p, const wut_token *t, double *v)
{
    orr_status s = wut_number(p, "vertex", t, v);
    if (s == ORR_OK && *v != 0 && !(fabs(*v) >= MOM_MIN_LENGTH && fabs(*v) <= MOM_MAX_LENGTH))
        s = wut_bad(p, "vertex", "%g: a coordinate is 0 or %g..%g in magnitude (lengths whose "
                    "squares the double range holds)", *v, MOM_MIN_LENGTH, MOM_MAX_LENGTH);
    return s;
}

/* An angle in degrees, |v| <= MOM_MAX_ANGLE. */
static orr_status angle(wut_parser *p, const char *key, const wut_token *t, double *v)
{
    orr_status s = wut_number(p, key, t, v);
    if (s == ORR_OK && !(fabs(*v) <= MOM_MAX_ANGLE))
        s = wut_bad(p, key, "%.10g degrees: at most %g in magnitude (larger angles lose their "
                    "precision in radians, and overflow)", *v, MOM_MAX_ANGLE);
    return s;
}

/* The second of a pair that excludes each other, refused on its line. */
static orr_status exclusive(wut_parser *p, int other, const char *other_word, const char *why)
{
    if (!p->seen_line[other])
        return ORR_OK;
    return wut_bad(p, p->stmt, "not with %s (line %d): %s", other_word, p->seen_line[other], why);
}

/* Appends one angle (degrees) to *a (count *n), at most MOM_MAX_ANGLES. */
static orr_status add_angle(wut_parser *p, double **a, int *n, double v)
{
    orr_status s = wut_grow(p, (void **)a, sizeof **a, *n);
    if (s == ORR_OK)
        (*a)[(*n)++] = v;
    return s;
}

/* The angles of a line, words 1..n-1, appended to *a. */
static orr_status angle_list(wut_parser *p, double **a, int *n)
{
    if (*n + p->n - 1 > MOM_MAX_ANGLES)
        return wut_bad(p, p->stmt, "more than %d angles", MOM_MAX_ANGLES);
    for (int i = 1; i < p->n; i++) {
        double v;
        orr_status s = angle(p, p->stmt, &p->tok[i], &v);
        if (s == ORR_OK)
            s = add_angle(p, a, n, v);
        if (s != ORR_OK)
            return s;
    }
    return ORR_OK;
}

/* ---- statements, each on its own line ---- */

static orr_status st_param(wut_parser *p)
{
    mom_workunit *wu = wu_of(p);
    return wut_param(p, &wu->n_params, MOM_MAX_PARAMS, wu->param_name[0], sizeof wu->param_name[0],
                     wu->param_text[0], sizeof wu->param_text[0]);
}

static orr_status st_wavelength(wut_parser *p)
{
    orr_status s = exclusive(p, ONCE_WAVENUMBER, "wavenumber", "give one of them");
    if (s == ORR_OK)
        s = wut_arity(p, 1);
    return s == ORR_OK ? length(p, "wavelength", &p->tok[1], &wu_of(p)->wavelength) : s;
}

static orr_status st_wavenumber(wut_parser *p)
{
    double k;
    orr_status s = exclusive(p, ONCE_WAVELENGTH, "wavelength", "give one of them");
    if (s == ORR_OK)
        s = wut_arity(p, 1);
    if (s == ORR_OK)
        s = positive(p, "wavenumber", &p->tok[1], &k);
    if (s != ORR_OK)
        return s;
    const double lambda = TWO_PI / k;
    if (!(lambda >= MOM_MIN_LENGTH && lambda <= MOM_MAX_LENGTH))
        return wut_bad(p, "wavenumber", "%g gives the wavelength 2 pi / k = %g, outside %g..%g "
                       "(lengths whose squares the double range holds)", k, lambda,
                       MOM_MIN_LENGTH, MOM_MAX_LENGTH);
    wu_of(p)->wavelength = lambda;
    return ORR_OK;
}

static orr_status st_circle(wut_parser *p)
{
    static const char *const keys[] = {"radius"};
    mom_workunit *wu = wu_of(p);
    wut_token f[1];
    orr_status s = exclusive(p, ONCE_POLYGON, "polygon", "a work unit has one shape");
    if (s == ORR_OK)
        s = wut_fields(p, 1, keys, 1, f);
    if (s == ORR_OK)
        s = wut_need(p, "radius", &f[0]);
    if (s == ORR_OK)
        s = length(p, wut_keyof(p, "radius"), &f[0], &wu->radius);
    if (s == ORR_OK)
        wu->shape = MOM_CIRCLE;
    return s;
}

static orr_status st_polygon(wut_parser *p)
{
    orr_status s = exclusive(p, ONCE_CIRCLE, "circle", "a work unit has one shape");
    if (s == ORR_OK)
        s = wut_arity(p, 0);
    if (s == ORR_OK)
        wu_of(p)->shape = MOM_POLYGON;
    return s;
}

static orr_status st_vertex(wut_parser *p)
{
    mom_workunit *wu = wu_of(p);
    double x, y;
    if (!p->seen_line[ONCE_POLYGON])
        return wut_bad(p, "vertex", "no `polygon` line above it (vertices follow a `polygon` "
                       "line)");
    orr_status s = wut_arity(p, 2);
    if (s == ORR_OK && wu->n_vertices == MOM_MAX_VERTICES)
        s = wut_bad(p, "vertex", "more than %d vertices", MOM_MAX_VERTICES);
    if (s == ORR_OK)
        s = coordinate(p, &p->tok[1], &x);
    if (s == ORR_OK)
        s = coordinate(p, &p->tok[2], &y);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&wu->vertex, 2 * sizeof *wu->vertex, wu->n_vertices);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&mp(p)->vertex_line, sizeof *mp(p)->vertex_line, wu->n_vertices);
    if (s != ORR_OK)
        return s;
    wu->vertex[2 * wu->n_vertices] = x;
    wu->vertex[2 * wu->n_vertices + 1] = y;
    mp(p)->vertex_line[wu->n_vertices++] = p->line;
    return ORR_OK;
}

static orr_status st_cells(wut_parser *p)
{
    orr_status s = exclusive(p, ONCE_DENSITY, "density", "give one of them");
    if (s == ORR_OK)
        s = wut_arity(p, 1);
    return s == ORR_OK ? wut_whole_int(p, "cells", &p->tok[1], 3, MOM_MAX_CELLS, &wu_of(p)->cells)
                       : s;
}

static orr_status st_density(wut_parser *p)
{
    orr_status s = exclusive(p, ONCE_CELLS, "cells", "give one of them");
    if (s == ORR_OK)
        s = wut_arity(p, 1);
    return s == ORR_OK ? positive(p, "density", &p->tok[1], &wu_of(p)->density) : s;
}

static orr_status st_method(wut_parser *p)
{
    static const char *const methods[] = {"mom", "lcn"};
    static const char *const keys[] = {"order"};
    mom_workunit *wu = wu_of(p);
    wut_token f[1];
    int m;
    if (p->n < 2)
        return wut_bad(p, "method", "expected mom or lcn");
    orr_status s = wut_choice(p, "method", &p->tok[1], methods, 2, &m);
    if (s == ORR_OK)
        s = wut_fields(p, 2, keys, 1, f);
    if (s != ORR_OK)
        return s;
    wu->method = (mom_method)m;
    if (f[0].s && m != MOM_METHOD_LCN)
        return wut_bad(p, wut_keyof(p, "order"), "only with lcn (this method is %s)", methods[m]);
    return f[0].s ? wut_whole_int(p, wut_keyof(p, "order"), &f[0], 1, MOM_MAX_ORDER, &wu->order)
                  : ORR_OK;
}

static orr_status st_incidence(wut_parser *p)
{
    mom_workunit *wu = wu_of(p);
    if (p->n < 2)
        return wut_bad(p, "incidence", "expected at least one angle (degrees)");
    if (!mp(p)->incidence_line)
        mp(p)->incidence_line = p->line;
    return angle_list(p, &wu->incidence, &wu->n_incidence);
}

/* from=A to=B step=S: A, A + S, ... up to B (a rounding's worth over
 * allowed: floor((B - A)/S + 1e-9) + 1 angles). */
static orr_status echo_range(wut_parser *p)
{
    static const char *const keys[] = {"from", "to", "step"};
    mom_workunit *wu = wu_of(p);
    wut_token f[3];
    double v[3];
    orr_status s = wut_fields(p, 1, keys, 3, f);
    for (int k = 0; s == ORR_OK && k < 3; k++)
        s = wut_need(p, keys[k], &f[k]);
    for (int k = 0; s == ORR_OK && k < 2; k++)
        s = angle(p, wut_keyof(p, keys[k]), &f[k], &v[k]);
    if (s == ORR_OK)
        s = wut_number(p, wut_keyof(p, "step"), &f[2], &v[2]);
    if (s == ORR_OK && !(v[2] > 0))
        s = wut_bad(p, wut_keyof(p, "step"), "%g must be > 0", v[2]);
    if (s == ORR_OK && v[1] < v[0])
        s = wut_bad(p, wut_keyof(p, "to"), "%g is below from's %g", v[1], v[0]);
    if (s != ORR_OK)
        return s;
    const double count = floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
    if (!(count <= MOM_MAX_ANGLES))
        return wut_bad(p, "echo", "from=%g to=%g step=%g gives %.0f angles; at most %d", v[0],
                       v[1], v[2], count, MOM_MAX_ANGLES);
    for (int i = 0; s == ORR_OK && i < (int)count; i++)
        s = add_angle(p, &wu->echo, &wu->n_echo, v[0] + i * v[2]);
    return s;
}

/* Angles over any number of lines, or one from= to= step= line. */
static orr_status st_echo(wut_parser *p)
{
    mom_workunit *wu = wu_of(p);
    parser *m = mp(p);
    int range = 0;
    for (int i = 1; i < p->n; i++)
        range |= memchr(p->tok[i].s, '=', p->tok[i].n) != NULL;
    if (p->n < 2)
        return wut_bad(p, "echo", "expected angles (degrees), or from=A to=B step=S");
    if (m->echo_line && (range || m->echo_range))
        return wut_bad(p, "echo", "a from= to= step= line is the only `echo` line (another on "
                       "line %d)", m->echo_line);
    if (!m->echo_line) {
        m->echo_line = p->line;
        m->echo_range = range;
    }
    return range ? echo_range(p) : angle_list(p, &wu->echo, &wu->n_echo);
}

const char *const mom_solver_names[3] = {"reference", "faithful", "mixed"};
const char *const mom_precision_names[2] = {"double", "single"};
const char *const mom_far_field_names[2] = {"consistent", "exact"};

static orr_status st_solver(wut_parser *p)
{
    int v;
    orr_status s = wut_arity(p, 1);
    if (s == ORR_OK && (s = wut_choice(p, "solver", &p->tok[1], mom_solver_names, 3, &v)) == ORR_OK)
        wu_of(p)->solver = (mom_solver)v;
    return s;
}

static orr_status st_precision(wut_parser *p)
{
    int v;
    orr_status s = wut_arity(p, 1);
    if (s == ORR_OK && (s = wut_choice(p, "precision", &p->tok[1], mom_precision_names, 2, &v)) == ORR_OK)
        wu_of(p)->precision = (mom_precision)v;
    return s;
}

static orr_status st_far_field(wut_parser *p)
{
    int v;
    orr_status s = wut_arity(p, 1);
    if (s == ORR_OK && (s = wut_choice(p, "far_field", &p->tok[1], mom_far_field_names, 2, &v)) == ORR_OK)
        wu_of(p)->far_field = (mom_far_field)v;
    return s;
}

static orr_status st_current(wut_parser *p)
{
    static const char *const keys[] = {"every"};
    mom_workunit *wu = wu_of(p);
    wut_token f[1];
    orr_status s = wut_fields(p, 1, keys, 1, f);
    wu->current_every = 1;
    if (s == ORR_OK && f[0].s)
        s = wut_whole_int(p, wut_keyof(p, "every"), &f[0], 1, MOM_MAX_CELLS, &wu->current_every);
    return s;
}

/* once: ONCE_*, or -1: any number */
static const wut_statement statements[] = {
    {"param", st_param, -1},
    {"wavelength", st_wavelength, ONCE_WAVELENGTH},
    {"wavenumber", st_wavenumber, ONCE_WAVENUMBER},
    {"circle", st_circle, ONCE_CIRCLE},
    {"polygon", st_polygon, ONCE_POLYGON},
    {"vertex", st_vertex, -1},
    {"cells", st_cells, ONCE_CELLS},
    {"density", st_density, ONCE_DENSITY},
    {"method", st_method, ONCE_METHOD},
    {"incidence", st_incidence, -1},
    {"echo", st_echo, -1},
    {"solver", st_solver, ONCE_SOLVER},
    {"precision", st_precision, ONCE_PRECISION},
    {"current", st_current, ONCE_CURRENT},
    {"far_field", st_far_field, ONCE_FAR_FIELD},
};

static const wut_format format = {.kind = "mom", .version = 1, .statements = statements,
                                  .n_statements = ORR_ARRAY_LEN(statements)};

/* ---- the polygon ---- */

/* Twice the signed area of triangle a b c: > 0 counter-clockwise. */
static double orient(const double *a, const double *b, const double *c)
{
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static int sign(double v)
{
    return (v > 0) - (v < 0);
}

/* c, collinear with a b, lies on the segment a b. */
static int on_segment(const double *a, const double *b, const double *c)
{
    return fmin(a[0], b[0]) <= c[0] && c[0] <= fmax(a[0], b[0]) && fmin(a[1], b[1]) <= c[1] &&
           c[1] <= fmax(a[1], b[1]);
}

/* Segments p1 p2 and q1 q2 have a point in common (touching counts). */
static int segments_meet(const double *p1, const double *p2, const double *q1, const double *q2)
{
    const int d1 = sign(orient(q1, q2, p1)), d2 = sign(orient(q1, q2, p2));
    const int d3 = sign(orient(p1, p2, q1)), d4 = sign(orient(p1, p2, q2));
    if (d1 * d2 < 0 && d3 * d4 < 0)
        return 1;
    return (d1 == 0 && on_segment(q1, q2, p1)) || (d2 == 0 && on_segment(q1, q2, p2)) ||
           (d3 == 0 && on_segment(p1, p2, q1)) || (d4 == 0 && on_segment(p1, p2, q2));
}

typedef struct {
    double x0, x1, y0, y1;   /* the edge's bounding box */
    int i;                   /* edge i: vertex i to vertex i + 1 (mod n) */
} edge_box;

static int by_x0(const void *a, const void *b)
{
    const edge_box *u = a, *v = b;
    if (u->x0 != v->x0)
        return u->x0 < v->x0 ? -1 : 1;
    return (u->i > v->i) - (u->i < v->i);
}

/* Of the pairs of non-adjacent edges that meet, the first (i < j, least i,
 * then least j), or *first_i -1: edges sorted by their boxes' left x, each
 * tested against those whose boxes start before it ends. */
static orr_status first_crossing(wut_parser *p, int *first_i, int *first_j)
{
    const mom_workunit *wu = wu_of(p);
    const int n = wu->n_vertices;
    const double *v = wu->vertex;
    edge_box *e = malloc((size_t)n * sizeof *e);
    if (!e)
        return wut_no_memory(p);
    for (int i = 0; i < n; i++) {
        const double *a = v + 2 * i, *b = v + 2 * ((i + 1) % n);
        e[i] = (edge_box){fmin(a[0], b[0]), fmax(a[0], b[0]), fmin(a[1], b[1]), fmax(a[1], b[1]),
                          i};
    }
    qsort(e, (size_t)n, sizeof *e, by_x0);
    *first_i = *first_j = -1;
    for (int k = 0; k < n; k++)
        for (int m = k + 1; m < n && e[m].x0 <= e[k].x1; m++) {
            const int i = e[k].i < e[m].i ? e[k].i : e[m].i, j = e[k].i ^ e[m].i ^ i;
            if (j == i + 1 || (i == 0 && j == n - 1) || e[m].y0 > e[k].y1 || e[k].y0 > e[m].y1)
                continue;   /* neighbours share a vertex; boxes apart */
            if (*first_i >= 0 && (i > *first_i || (i == *first_i && j > *first_j)))
                continue;
            if (segments_meet(v + 2 * i, v + 2 * ((i + 1) % n), v + 2 * j, v + 2 * ((j + 1) % n))) {
                *first_i = i;
                *first_j = j;
            }
        }
    free(e);
    return ORR_OK;
}

/* At least 3 vertices, no zero-length edge, a finite area, no two
 * non-adjacent edges meeting (a simple polygon), counter-clockwise. */
static orr_status check_polygon(wut_parser *p)
{
    const mom_workunit *wu = wu_of(p);
    const int n = wu->n_vertices, *line = mp(p)->vertex_line, polygon = p->seen_line[ONCE_POLYGON];
    const double *v = wu->vertex;
    if (n < 3)
        return wut_bad_at(p, polygon, "polygon", "%d vert%s; at least 3 (`vertex X Y` lines "
                          "after it)", n, n == 1 ? "ex" : "ices");
    for (int i = 0; i < n; i++) {
        const int j = (i + 1) % n;
        if (v[2 * i] == v[2 * j] && v[2 * i + 1] == v[2 * j + 1])
            return wut_bad_at(p, line[j ? j : i], "vertex", "(%g, %g) is the vertex of line %d "
                              "again: a zero-length edge", v[2 * i], v[2 * i + 1], line[j ? i : j]);
    }
    double area = 0;
    for (int i = 0; i < n; i++) {
        const int j = (i + 1) % n;
        area += v[2 * i] * v[2 * j + 1] - v[2 * j] * v[2 * i + 1];
    }
    area /= 2;
    if (!isfinite(area))
        return wut_bad_at(p, polygon, "polygon", "the signed area is not finite (coordinates too "
                          "large)");
    int ci = -1, cj = -1;
    orr_status s = first_crossing(p, &ci, &cj);
    if (s != ORR_OK)
        return s;
    if (ci >= 0)
        return wut_bad_at(p, line[cj], "vertex", "the edge from line %d to line %d meets the edge "
                          "from line %d to line %d: the polygon is not simple (edges meet only "
                          "where neighbours share a vertex)", line[cj], line[(cj + 1) % n],
                          line[ci], line[(ci + 1) % n]);
    if (!(area > 0))
        return wut_bad_at(p, polygon, "polygon", "the vertices go clockwise (signed area %g); "
                          "list them counter-clockwise", area);
    return ORR_OK;
}

/* ---- the whole file ---- */

static orr_status missing(wut_parser *p)
{
    const char *key = NULL;
    if (!p->seen_line[ONCE_CIRCLE] && !p->seen_line[ONCE_POLYGON])
        key = "circle or polygon";
    else if (!p->seen_line[ONCE_CELLS] && !p->seen_line[ONCE_DENSITY])
        key = "cells or density";
    else if (!mp(p)->incidence_line)
        key = "incidence";
    return key ? wut_bad_at(p, p->last_line, key, "missing (a required statement)") : ORR_OK;
}

static orr_status check_whole(wut_parser *p)
{
    const mom_workunit *wu = wu_of(p);
    orr_status s = missing(p);
    if (s == ORR_OK && wu->shape == MOM_POLYGON)
        s = check_polygon(p);
    if (s == ORR_OK && wu->shape == MOM_POLYGON && wu->cells && wu->cells < wu->n_vertices)
        s = wut_bad_at(p, p->seen_line[ONCE_CELLS], "cells", "%d is below the polygon's %d "
                       "vertices (every edge needs a cell)", wu->cells, wu->n_vertices);
    if (s == ORR_OK && wu->precision == MOM_SINGLE && wu->solver == MOM_MIXED)
        s = wut_bad_at(p, p->seen_line[ONCE_PRECISION], "precision", "single is not with solver "
                       "mixed (line %d): mixed is single, then double, by definition",
                       p->seen_line[ONCE_SOLVER]);
    if (s == ORR_OK && wu->far_field == MOM_FAR_EXACT && wu->method == MOM_METHOD_LCN)
        s = wut_bad_at(p, p->seen_line[ONCE_FAR_FIELD], "far_field", "exact is not with method "
                       "lcn (line %d): it integrates MoM's pulses over flat cells; LCN's far field "
                       "is its own quadrature", p->seen_line[ONCE_METHOD]);
    return s;
}

static void set_defaults(mom_workunit *wu)
{
    wu->wavelength = 1;
    wu->method = MOM_METHOD_MOM;
    wu->order = 3;
    wu->solver = MOM_REFERENCE;
    wu->precision = MOM_DOUBLE;
    wu->far_field = MOM_FAR_CONSISTENT;
}

orr_status mom_workunit_parse(const char *path, const char *text, size_t len, mom_workunit *wu,
                              orr_error *err)
{
    memset(wu, 0, sizeof *wu);
    orr_status s = wut_begin(&format, path, text, len, wu->path, sizeof wu->path,
                             &wu->content_hash, err);
    if (s != ORR_OK)
        return s;
    set_defaults(wu);
    parser p;
    memset(&p, 0, sizeof p);
    wut_init(&p.t, path, err);
    p.wu = wu;
    s = wut_read_lines(&p.t, &format, text, len);
    if (s == ORR_OK)
        s = check_whole(&p.t);
    wut_free(&p.t);
    free(p.vertex_line);
    if (s != ORR_OK)
        mom_workunit_free(wu);
    return s;
}

orr_status mom_workunit_load(const char *path, mom_workunit *wu, orr_error *err)
{
    orr_buffer buf;
    memset(wu, 0, sizeof *wu);
    orr_status s = wut_read(&format, path, &buf, err);
    if (s != ORR_OK)
        return s;
    s = mom_workunit_parse(path, buf.data, buf.size, wu, err);
    orr_buffer_free(&buf);
    return s;
}

void mom_workunit_free(mom_workunit *wu)
{
    free(wu->vertex);
    free(wu->incidence);
    free(wu->echo);
    memset(wu, 0, sizeof *wu);
}
