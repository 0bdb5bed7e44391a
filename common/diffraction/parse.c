/* The work-unit text (docs/diffraction.md section 2) -> dif_workunit, no
 * computing. One statement a line; '#' starts a comment. Names are
 * resolved at the end (a material may be defined after its first use),
 * and every check that needs the whole file (required statements,
 * overlaps, trapezoid widths, the spectrum's and materials' ranges) runs
 * then, still naming the line of the statement at fault; a missing
 * required statement names the file's last line. The text's rules, the
 * words, the values and the messages are common/io/wutext.c's; this file
 * has diffraction's statements and checks. */
#include "diffraction.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "../io/wutext.h"

/* Diffraction's own limits on the text, kept from before it used wutext:
 * a work unit of at most 4 MiB, 64 words a line (a list on one line). */
#define WU_MAX_BYTES ((size_t)4 << 20)
#define MAX_WORDS 64
#define MAX_LIST 100000   /* table rows of a material, wavelength_range's COUNT */
#define MATERIAL_NAME_RULE "[A-Za-z_][A-Za-z0-9_-]*, at most %d characters"

enum { ONCE_PERIOD, ONCE_ORDERS, ONCE_SUPER, ONCE_SUB, ONCE_WAVELENGTHS, ONCE_THETA, ONCE_PHI,
       ONCE_SOLVER, N_ONCE };
_Static_assert(N_ONCE <= WUT_MAX_ONCE, "more once-only statements than wut_parser holds");

/* A material name used before resolution: where, and as which key (a
 * string literal), for the message when it names no material. */
typedef struct {
    char name[DIF_NAME_LEN];
    int line;
    const char *key;
} material_ref;

/* Diffraction's parser state: the shared one first (its statement readers
 * get that; dp() gives back the rest). */
typedef struct {
    wut_parser t;
    dif_workunit *wu;
    material_ref *refs;
    long n_refs;
} parser;

static parser *dp(wut_parser *p)
{
    return (parser *)p;
}

static dif_workunit *wu_of(wut_parser *p)
{
    return dp(p)->wu;
}

/* ---- values ---- */

/* A material name to resolve at the end: its reference number. key must
 * be a string literal (kept until then, for the message). */
static orr_status refer(wut_parser *p, const char *key, const wut_token *t, int *ref)
{
    parser *d = dp(p);
    char text[WUT_TEXT_LEN];
    if (!wut_valid_name_also(t, DIF_NAME_LEN, "-"))
        return wut_bad(p, key, "'%s' is not a material name (" MATERIAL_NAME_RULE ")",
                       wut_tok_text(t, text), DIF_NAME_LEN - 1);
    orr_status s = wut_grow(p, (void **)&d->refs, sizeof *d->refs, d->n_refs);
    if (s != ORR_OK)
        return s;
    material_ref *r = &d->refs[d->n_refs];
    wut_tok_copy(t, r->name, sizeof r->name);
    r->line = p->line;
    r->key = key;
    *ref = (int)d->n_refs++;
    return ORR_OK;
}

/* The words from `first` on as a list of numbers (at least one). */
static orr_status number_list(wut_parser *p, int first, double **out, int *count)
{
    long n = 0;
    orr_status s = wut_numbers(p, p->stmt, first, MAX_LIST, out, &n);
    *count = (int)n;
    return s;
}

/* ---- statements, each on its own line ---- */

static orr_status st_parameter(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    double v;
    orr_status s = wut_arity(p, 2);
    if (s == ORR_OK)
        s = wut_number(p, p->stmt, &p->tok[2], &v);
    if (s == ORR_OK)
        s = wut_param(p, &wu->n_params, DIF_MAX_PARAMS, wu->param_name[0],
                      sizeof wu->param_name[0], wu->param_text[0], sizeof wu->param_text[0]);
    return s;
}

static orr_status st_period(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    orr_status s = wut_arity_between(p, 1, 2);
    if (s == ORR_OK)
        s = wut_number(p, "period", &p->tok[1], &wu->period_x);
    if (s == ORR_OK && p->n == 3)
        s = wut_number(p, "period", &p->tok[2], &wu->period_y);
    if (s == ORR_OK && (wu->period_x <= 0 || (p->n == 3 && wu->period_y <= 0)))
        s = wut_bad(p, "period", "must be positive");
    return s;
}

static orr_status st_orders(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    orr_status s = wut_arity_between(p, 1, 2);
    if (s == ORR_OK)
        s = wut_whole_int(p, "orders", &p->tok[1], 0, DIF_MAX_ORDERS, &wu->mx);
    wu->my = -1;
    if (s == ORR_OK && p->n == 3)
        s = wut_whole_int(p, "orders", &p->tok[2], 0, DIF_MAX_ORDERS, &wu->my);
    return s;
}

static orr_status st_superstrate(wut_parser *p)
{
    orr_status s = wut_arity(p, 1);
    return s == ORR_OK ? refer(p, "superstrate", &p->tok[1], &wu_of(p)->superstrate) : s;
}

static orr_status st_substrate(wut_parser *p)
{
    orr_status s = wut_arity(p, 1);
    return s == ORR_OK ? refer(p, "substrate", &p->tok[1], &wu_of(p)->substrate) : s;
}

static int material_index(const dif_workunit *wu, const char *name)
{
    for (int i = 0; i < wu->n_materials; i++)
        if (strcmp(wu->materials[i].name, name) == 0)
            return i;
    return -1;
}

/* The name, the form (0 eps, 1 nk) and the numbers of a material line. */
static orr_status material_words(wut_parser *p, char name[DIF_NAME_LEN], int *form, double v[3])
{
    static const char *const forms[] = {"eps", "nk"};
    char text[WUT_TEXT_LEN];
    if (p->n < 2)
        return wut_bad(p, "material", "expected a name");
    if (!wut_valid_name_also(&p->tok[1], DIF_NAME_LEN, "-"))
        return wut_bad(p, "material", "'%s' is not a name (" MATERIAL_NAME_RULE ")",
                       wut_tok_text(&p->tok[1], text), DIF_NAME_LEN - 1);
    wut_tok_copy(&p->tok[1], name, DIF_NAME_LEN);
    if (p->n < 3)
        return wut_bad(p, "material", "expected eps or nk after the name");
    orr_status s = wut_choice(p, "material", &p->tok[2], forms, 2, form);
    if (s != ORR_OK)
        return s;
    if (p->n != 5 && !(*form == 1 && p->n == 6))
        return wut_bad(p, "material", "%s", *form == 0 ? "eps takes RE IM"
                                                       : "nk takes N K, or LAMBDA N K");
    for (int i = 3; s == ORR_OK && i < p->n; i++)
        s = wut_number(p, "material", &p->tok[i], &v[i - 3]);
    return s;
}

/* The material named, new (its line this one) unless a table goes on. */
static orr_status material_of(wut_parser *p, const char *name, int row, dif_material **out)
{
    dif_workunit *wu = wu_of(p);
    int m = material_index(wu, name);
    if (m >= 0 && (!row || wu->materials[m].n_rows == 0))
        return wut_bad(p, "material", row ? "'%s' is already a constant" : "'%s' defined twice",
                       name);
    if (m < 0) {
        orr_status s = wut_grow(p, (void **)&wu->materials, sizeof *wu->materials,
                                wu->n_materials);
        if (s != ORR_OK)
            return s;
        m = wu->n_materials++;
        memset(&wu->materials[m], 0, sizeof wu->materials[m]);
        strcpy(wu->materials[m].name, name);
        wu->materials[m].line = p->line;
    }
    *out = &wu->materials[m];
    return ORR_OK;
}

/* One row (lambda, n, k) appended to a material's table. */
static orr_status table_row(wut_parser *p, dif_material *mat, const double v[3])
{
    if (v[0] <= 0 || (mat->n_rows && v[0] <= mat->lambda[mat->n_rows - 1]))
        return wut_bad(p, "material", "table wavelengths must be positive and increasing");
    if (mat->n_rows >= MAX_LIST)
        return wut_bad(p, "material", "table too long (at most %d rows)", MAX_LIST);
    orr_status s = wut_grow(p, (void **)&mat->lambda, sizeof(double), mat->n_rows);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&mat->n, sizeof(double), mat->n_rows);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&mat->k, sizeof(double), mat->n_rows);
    if (s != ORR_OK)
        return s;
    mat->lambda[mat->n_rows] = v[0];
    mat->n[mat->n_rows] = v[1];
    mat->k[mat->n_rows] = v[2];
    mat->n_rows++;
    return ORR_OK;
}

/* `material NAME eps RE IM`, `nk N K` or `nk LAMBDA N K` (a table row). */
static orr_status st_material(wut_parser *p)
{
    double v[3];
    char name[DIF_NAME_LEN];
    int form;
    dif_material *mat = NULL;
    const int row = p->n == 6;
    orr_status s = material_words(p, name, &form, v);
    if (s == ORR_OK)
        s = material_of(p, name, row, &mat);
    if (s != ORR_OK)
        return s;
    if (form == 0) {
        if (v[1] < 0)
            return wut_bad(p, "material", "imaginary part %g < 0 is a gain medium (e^-iwt: "
                           "absorbing is > 0)", v[1]);
        mat->eps = v[0] + I * v[1];
        return ORR_OK;
    }
    const double *nkv = row ? v + 1 : v;
    if (nkv[0] <= 0 || nkv[1] < 0)
        return wut_bad(p, "material", "needs n > 0 and k >= 0");
    if (row)
        return table_row(p, mat, v);
    mat->eps = (nkv[0] + I * nkv[1]) * (nkv[0] + I * nkv[1]);
    return ORR_OK;
}

static orr_status st_layer(wut_parser *p)
{
    static const char *const keys[] = {"thickness", "background", "slices"};
    dif_workunit *wu = wu_of(p);
    wut_token f[3];
    orr_status s = wut_fields(p, 1, keys, 3, f);
    for (int k = 0; s == ORR_OK && k < 3; k++)
        s = wut_need(p, keys[k], &f[k]);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&wu->layers, sizeof *wu->layers, wu->n_layers);
    if (s != ORR_OK)
        return s;
    dif_layer *l = &wu->layers[wu->n_layers];
    memset(l, 0, sizeof *l);
    l->line = p->line;
    l->first_shape = wu->n_shapes;
    if ((s = wut_number(p, "layer thickness", &f[0], &l->thickness)) != ORR_OK)
        return s;
    if (l->thickness <= 0)
        return wut_bad(p, "layer thickness", "must be positive");
    if ((s = wut_whole_int(p, "layer slices", &f[2], 1, DIF_MAX_SLICES, &l->slices)) != ORR_OK)
        return s;
    if ((s = refer(p, "layer background", &f[1], &l->background)) != ORR_OK)
        return s;
    wu->n_layers++;
    return ORR_OK;
}

/* Shape fields by kind: which keys, and which of them are required. */
static const char *const shape_kinds[] = {"rect", "ellipse", "trapezoid"};
static const char *const shape_keys[] = {"material", "x", "width", "y", "height", "rx", "ry",
                                         "bottom", "swa"};
enum { F_MAT, F_X, F_WIDTH, F_Y, F_HEIGHT, F_RX, F_RY, F_BOTTOM, F_SWA, N_SHAPE_KEYS };

static orr_status shape_numbers(wut_parser *p, const wut_token *f, dif_shape *sh)
{
    double v[N_SHAPE_KEYS] = {0};
    for (int k = F_X; k < N_SHAPE_KEYS; k++) {
        const char *key = wut_keyof(p, shape_keys[k]);
        if (f[k].s && wut_number(p, key, &f[k], &v[k]) != ORR_OK)
            return p->err->status;
        if (f[k].s && k != F_X && k != F_Y && k != F_SWA && v[k] <= 0)
            return wut_bad(p, key, "must be positive");
    }
    sh->x = v[F_X];
    sh->y = v[F_Y];
    sh->swa = v[F_SWA];
    sh->full_y = !f[F_Y].s;
    switch (sh->kind) {
    case DIF_RECT: sh->wx = v[F_WIDTH]; sh->wy = v[F_HEIGHT]; break;
    case DIF_ELLIPSE: sh->wx = v[F_RX]; sh->wy = v[F_RY]; sh->full_y = 0; break;
    case DIF_TRAPEZOID: sh->wx = v[F_BOTTOM]; sh->wy = v[F_HEIGHT]; break;
    }
    if (sh->kind == DIF_TRAPEZOID && !(sh->swa > 0 && sh->swa < 180))
        return wut_bad(p, "shape swa", "must be between 0 and 180 degrees (90: vertical)");
    return ORR_OK;
}

static orr_status shape_fields_fit(wut_parser *p, const wut_token *f, dif_shape_kind kind)
{
    static const int allowed[3][N_SHAPE_KEYS] = {
        /* mat x width y height rx ry bottom swa: 2 required, 1 optional */
        {2, 2, 2, 1, 1, 0, 0, 0, 0},
        {2, 2, 0, 2, 0, 2, 2, 0, 0},
        {2, 2, 0, 1, 1, 0, 0, 2, 2},
    };
    for (int k = 0; k < N_SHAPE_KEYS; k++) {
        if (f[k].s && !allowed[kind][k])
            return wut_bad(p, wut_keyof(p, shape_keys[k]), "not a field of a %s",
                           shape_kinds[kind]);
        if (!f[k].s && allowed[kind][k] == 2)
            return wut_bad(p, wut_keyof(p, shape_keys[k]), "missing (required with %s)",
                           shape_kinds[kind]);
    }
    if (kind != DIF_ELLIPSE && !f[F_Y].s != !f[F_HEIGHT].s)
        return wut_bad(p, "shape", "y= and height= go together (neither: a line along y)");
    return ORR_OK;
}

static orr_status st_shape(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    wut_token f[N_SHAPE_KEYS];
    dif_shape sh;
    int kind;
    memset(&sh, 0, sizeof sh);
    sh.line = p->line;
    if (wu->n_layers == 0)
        return wut_bad(p, "shape", "comes before any layer");
    if (p->n < 2)
        return wut_bad(p, "shape", "expected rect, ellipse or trapezoid");
    orr_status s = wut_choice(p, "shape", &p->tok[1], shape_kinds, 3, &kind);
    sh.kind = (dif_shape_kind)kind;
    if (s == ORR_OK)
        s = wut_fields(p, 2, shape_keys, N_SHAPE_KEYS, f);
    if (s == ORR_OK)
        s = shape_fields_fit(p, f, sh.kind);
    if (s == ORR_OK)
        s = shape_numbers(p, f, &sh);
    if (s == ORR_OK)
        s = refer(p, "shape material", &f[F_MAT], &sh.material);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&wu->shapes, sizeof *wu->shapes, wu->n_shapes);
    if (s != ORR_OK)
        return s;
    wu->shapes[wu->n_shapes++] = sh;
    wu->layers[wu->n_layers - 1].n_shapes++;
    return ORR_OK;
}

static orr_status st_wavelengths(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    wu->wavelengths_line = p->line;
    wu->wavelengths_key = "wavelengths";
    return number_list(p, 1, &wu->wavelengths, &wu->n_wavelengths);
}

static orr_status st_wavelength_range(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    double first, last;
    int count;
    wu->wavelengths_line = p->line;
    wu->wavelengths_key = "wavelength_range";
    orr_status s;
    if ((s = wut_arity(p, 3)) != ORR_OK ||
        (s = wut_number(p, "wavelength_range", &p->tok[1], &first)) != ORR_OK ||
        (s = wut_number(p, "wavelength_range", &p->tok[2], &last)) != ORR_OK ||
        (s = wut_whole_int(p, "wavelength_range", &p->tok[3], 1, MAX_LIST, &count)) != ORR_OK)
        return s;
    if (count == 1 && first != last)
        return wut_bad(p, "wavelength_range", "COUNT 1 needs FIRST = LAST");
    if (!(wu->wavelengths = malloc((size_t)count * sizeof(double))))
        return wut_no_memory(p);
    for (int i = 0; i < count; i++)
        wu->wavelengths[i] = count == 1 ? first : first + (last - first) * i / (count - 1);
    wu->n_wavelengths = count;
    return ORR_OK;
}

static orr_status st_theta(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    wu->theta_line = p->line;
    return number_list(p, 1, &wu->theta, &wu->n_theta);
}

static orr_status st_phi(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    wu->phi_line = p->line;
    return number_list(p, 1, &wu->phi, &wu->n_phi);
}

static orr_status st_solver(wut_parser *p)
{
    static const char *const keys[] = {"method", "tolerance", "max_iterations", "restart"};
    static const char *const methods[] = {"bicgstab", "gmres"};
    static const dif_method method_of[] = {DIF_BICGSTAB, DIF_GMRES};
    dif_solver_options *o = &wu_of(p)->solver;
    wut_token f[4];
    int m;
    orr_status s = wut_fields(p, 1, keys, 4, f);
    if (s == ORR_OK && f[0].s &&
        (s = wut_choice(p, "solver method", &f[0], methods, 2, &m)) == ORR_OK)
        o->method = method_of[m];
    if (s == ORR_OK && f[1].s)
        s = wut_number(p, "solver tolerance", &f[1], &o->tolerance);
    if (s == ORR_OK && !(o->tolerance >= 1e-15 && o->tolerance < 1))
        s = wut_bad(p, "solver tolerance", "must be in [1e-15, 1)");
    if (s == ORR_OK && f[2].s)
        s = wut_whole_int(p, "solver max_iterations", &f[2], 1, 1000000, &o->max_iterations);
    if (s == ORR_OK && f[3].s)
        s = wut_whole_int(p, "solver restart", &f[3], 1, 1000, &o->restart);
    if (s == ORR_OK && f[3].s && o->method != DIF_GMRES)
        s = wut_bad(p, "solver restart", "is GMRES(m)'s m: only with method=gmres");
    return s;
}

/* once: ONCE_*, or -1: any number; wavelengths and wavelength_range are
 * one statement written two ways (one of the two, once) */
static const wut_statement statements[] = {
    {"parameter", st_parameter, -1},
    {"period", st_period, ONCE_PERIOD},
    {"orders", st_orders, ONCE_ORDERS},
    {"superstrate", st_superstrate, ONCE_SUPER},
    {"substrate", st_substrate, ONCE_SUB},
    {"material", st_material, -1},
    {"layer", st_layer, -1},
    {"shape", st_shape, -1},
    {"wavelengths", st_wavelengths, ONCE_WAVELENGTHS},
    {"wavelength_range", st_wavelength_range, ONCE_WAVELENGTHS},
    {"theta", st_theta, ONCE_THETA},
    {"phi", st_phi, ONCE_PHI},
    {"solver", st_solver, ONCE_SOLVER},
};

static const wut_format format = {.kind = "diffraction", .version = 1, .statements = statements,
                                  .n_statements = ORR_ARRAY_LEN(statements),
                                  .max_bytes = WU_MAX_BYTES, .max_words = MAX_WORDS};

/* ---- the whole file ---- */

static orr_status resolve(wut_parser *p, int ref, int *material)
{
    const material_ref *r = &dp(p)->refs[ref];
    const int m = material_index(wu_of(p), r->name);
    if (m < 0)
        return wut_bad_at(p, r->line, r->key, "unknown material '%s'", r->name);
    *material = m;
    return ORR_OK;
}

static orr_status resolve_all(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    orr_status s = resolve(p, wu->superstrate, &wu->superstrate);
    if (s == ORR_OK)
        s = resolve(p, wu->substrate, &wu->substrate);
    for (int l = 0; s == ORR_OK && l < wu->n_layers; l++)
        s = resolve(p, wu->layers[l].background, &wu->layers[l].background);
    for (int i = 0; s == ORR_OK && i < wu->n_shapes; i++)
        s = resolve(p, wu->shapes[i].material, &wu->shapes[i].material);
    return s;
}

static orr_status missing(wut_parser *p)
{
    static const struct { int which; const char *key; } required[] = {
        {ONCE_PERIOD, "period"}, {ONCE_ORDERS, "orders"}, {ONCE_SUPER, "superstrate"},
        {ONCE_SUB, "substrate"}, {ONCE_WAVELENGTHS, "wavelengths"}, {ONCE_THETA, "theta"}};
    for (size_t i = 0; i < ORR_ARRAY_LEN(required); i++)
        if (!p->seen_line[required[i].which])
            return wut_bad_at(p, p->last_line, required[i].key, "missing (a required statement)");
    if (wu_of(p)->n_layers == 0)
        return wut_bad_at(p, p->last_line, "layer", "missing (a required statement, at least "
                          "one)");
    return ORR_OK;
}

/* x extent (half width at its widest) and y extent of a shape in a layer
 * of thickness t; ORR_ERR_INPUT when a trapezoid's top width is not > 0. */
static orr_status shape_extent(wut_parser *p, const dif_shape *sh, double t, double *hx,
                               double *hy)
{
    const dif_workunit *wu = wu_of(p);
    *hx = 0;   /* set on every path, the error's included */
    *hy = sh->full_y ? wu->period_y / 2 : sh->wy / 2;
    switch (sh->kind) {
    case DIF_RECT: *hx = sh->wx / 2; break;
    case DIF_ELLIPSE: *hx = sh->wx; *hy = sh->wy; break;
    case DIF_TRAPEZOID: {
        const double top = sh->wx - 2 * t / tan(sh->swa * M_PI / 180);
        if (!(top > 0))
            return wut_bad_at(p, sh->line, "shape trapezoid", "width at the layer's top is "
                              "%.6g nm (bottom %.6g, swa %.6g, thickness %.6g): must stay "
                              "positive", top, sh->wx, sh->swa, t);
        *hx = (top > sh->wx ? top : sh->wx) / 2;
        break;
    }
    }
    return ORR_OK;
}

/* Whether two intervals of half widths a, b centred at ca, cb overlap on
 * a circle of length period. */
static int periodic_overlap(double ca, double a, double cb, double b, double period)
{
    /* each centre reduced first, so d is in [0, period) whatever the
     * centres (check_centre holds them within a period; before it, x=1e308
     * and x=-1e308 made ca - cb inf, and fmod(inf) NaN, overlapping nothing) */
    double d = fmod(fabs(fmod(ca, period) - fmod(cb, period)), period);
    if (d > period / 2)
        d = period - d;
    return d < a + b;
}

/* A centre within one period of the origin, |x| <= LX (and |y| <= LY):
 * that takes both ways of drawing a cell, centred on 0 or from 0 to LX.
 * Further out the Fourier phase would wrap it silently into the cell,
 * and x = 5000 in a period of 800 is a typo far more often than meant.
 * Checked here, not as the field is read: the period may come later. */
static orr_status check_centre(wut_parser *p, const dif_shape *sh)
{
    const dif_workunit *wu = wu_of(p);
    const int bad_x = !(fabs(sh->x) <= wu->period_x);
    const int bad_y = wu->period_y > 0 && !sh->full_y && !(fabs(sh->y) <= wu->period_y);
    if (!bad_x && !bad_y)
        return ORR_OK;
    const double v = bad_x ? sh->x : sh->y, period = bad_x ? wu->period_x : wu->period_y;
    return wut_bad_at(p, sh->line, bad_x ? "shape x" : "shape y", "%.6g is outside -%.6g..%.6g "
                      "(a centre within one period of the origin)", v, period, period);
}

/* One shape of a layer of thickness t: in a line grating only lines, its
 * centre within a period, its extent (*ax, *ay) within the period. */
static orr_status check_shape(wut_parser *p, const dif_shape *a, double t, double *ax, double *ay)
{
    const dif_workunit *wu = wu_of(p);
    const int two_d = wu->period_y > 0;
    if (!two_d && (a->kind == DIF_ELLIPSE || !a->full_y))
        return wut_bad_at(p, a->line, "shape", "%s in a line grating (one period): only lines, "
                          "without y= and height=", a->kind == DIF_ELLIPSE ? "an ellipse"
                                                                           : "y=/height=");
    if (check_centre(p, a) != ORR_OK || shape_extent(p, a, t, ax, ay) != ORR_OK)
        return p->err->status;
    if (2 * *ax > wu->period_x || (two_d && 2 * *ay > wu->period_y))
        return wut_bad_at(p, a->line, "shape", "%.6g x %.6g nm does not fit in the period",
                          2 * *ax, 2 * *ay);
    return ORR_OK;
}

static orr_status check_shapes(wut_parser *p)
{
    const dif_workunit *wu = wu_of(p);
    const int two_d = wu->period_y > 0;
    for (int l = 0; l < wu->n_layers; l++) {
        const dif_layer *ly = &wu->layers[l];
        for (int i = ly->first_shape; i < ly->first_shape + ly->n_shapes; i++) {
            const dif_shape *a = &wu->shapes[i];
            double ax = 0, ay = 0;
            if (check_shape(p, a, ly->thickness, &ax, &ay) != ORR_OK)
                return p->err->status;
            for (int j = ly->first_shape; j < i; j++) {
                const dif_shape *b = &wu->shapes[j];
                double bx, by;
                shape_extent(p, b, ly->thickness, &bx, &by);
                if (periodic_overlap(a->x, ax, b->x, bx, wu->period_x) &&
                    (!two_d || periodic_overlap(a->y, ay, b->y, by, wu->period_y)))
                    return wut_bad_at(p, a->line, "shape", "overlaps the shape of line %d "
                                      "(their bounding boxes): shapes in a layer must not "
                                      "overlap", b->line);
            }
        }
    }
    return ORR_OK;
}

static orr_status check_spectrum(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    for (int i = 0; i < wu->n_wavelengths; i++)
        if (!(wu->wavelengths[i] > 0))
            return wut_bad_at(p, wu->wavelengths_line, wu->wavelengths_key, "%.6g is not "
                              "positive", wu->wavelengths[i]);
    for (int i = 0; i < wu->n_wavelengths; i++)
        if (!(wu->wavelengths[i] >= DIF_MIN_WAVELENGTH &&
              wu->wavelengths[i] <= DIF_MAX_WAVELENGTH))
            return wut_bad_at(p, wu->wavelengths_line, wu->wavelengths_key, "%.6g nm is outside "
                              "%g..%g nm (1 pm to 1 m)", wu->wavelengths[i], DIF_MIN_WAVELENGTH,
                              DIF_MAX_WAVELENGTH);
    for (int i = 0; i < wu->n_theta; i++)
        if (!(wu->theta[i] >= 0 && wu->theta[i] < 90))
            return wut_bad_at(p, p->seen_line[ONCE_THETA], "theta", "%.6g is outside [0, 90)",
                              wu->theta[i]);
    for (int i = 0; i < wu->n_phi; i++)
        if (!(fabs(wu->phi[i]) <= 360))
            return wut_bad_at(p, p->seen_line[ONCE_PHI], "phi", "%.6g is outside [-360, 360]",
                              wu->phi[i]);
    const double points = (double)wu->n_wavelengths * wu->n_theta * wu->n_phi;
    if (points > DIF_MAX_POINTS)
        return wut_bad_at(p, wu->wavelengths_line, wu->wavelengths_key, "%.0f spectrum points "
                          "(%d wavelengths x %d theta x %d phi); at most %d a work unit", points,
                          wu->n_wavelengths, wu->n_theta, wu->n_phi, DIF_MAX_POINTS);
    return ORR_OK;
}

/* Every material at every wavelength: inside its table, |eps| in range;
 * the superstrate lossless with Re eps > 0 (the incident and reflected
 * waves live there). */
static orr_status check_materials(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    for (int m = 0; m < wu->n_materials; m++)
        for (int i = 0; i < wu->n_wavelengths; i++) {
            const dif_material *mat = &wu->materials[m];
            double complex eps = 0;
            orr_status s = dif_material_eps(wu, m, wu->wavelengths[i], &eps, p->err);
            if (s != ORR_OK)
                return s;
            if (!(cabs(eps) <= DIF_MAX_EPS))
                return wut_bad_at(p, mat->line, "material", "'%s' has |eps| = %.6g at %.6g nm: "
                                  "at most %g (beyond any real material; the solve would "
                                  "overflow)", mat->name, cabs(eps), wu->wavelengths[i],
                                  DIF_MAX_EPS);
            if (m == wu->superstrate && !(cimag(eps) == 0 && creal(eps) > 0))
                return wut_bad_at(p, p->seen_line[ONCE_SUPER], "superstrate", "'%s' must be "
                                  "lossless with Re eps > 0 (eps = %.6g%+.6gi at %.6g nm)",
                                  mat->name, creal(eps), cimag(eps), wu->wavelengths[i]);
        }
    return ORR_OK;
}

/* Orders as the periods need them (MY: 0 in a line grating), the slices
 * of all layers, the default phi. */
static orr_status check_orders_slices(wut_parser *p)
{
    dif_workunit *wu = wu_of(p);
    if (wu->period_y > 0 && wu->my < 0)
        return wut_bad_at(p, p->seen_line[ONCE_ORDERS], "orders", "two periods need MX and MY");
    if (wu->period_y == 0 && wu->my >= 0)
        return wut_bad_at(p, p->seen_line[ONCE_ORDERS], "orders", "a line grating (one period) "
                          "takes MX only");
    if (wu->my < 0)
        wu->my = 0;
    long slices = 0;
    int over = 0;   /* the layer whose slices pass the limit */
    for (int l = 0; l < wu->n_layers; l++)
        if ((slices += wu->layers[l].slices) > DIF_MAX_SLICES && !over)
            over = wu->layers[l].line;
    if (over)
        return wut_bad_at(p, over, "layer slices", "%ld slices in all layers; at most %d (this "
                          "layer passes it)", slices, DIF_MAX_SLICES);
    if (!wu->phi) {
        if (!(wu->phi = calloc(1, sizeof *wu->phi)))
            return wut_no_memory(p);
        wu->n_phi = 1;
    }
    return ORR_OK;
}

/* The checks of the whole file, in order: each may take what the ones
 * before it hold (the materials resolved, the spectrum in range). */
static orr_status check_whole(wut_parser *p)
{
    static orr_status (*const checks[])(wut_parser *) = {
        missing, check_orders_slices, resolve_all, check_spectrum, check_materials, check_shapes};
    orr_status s = ORR_OK;
    for (size_t i = 0; s == ORR_OK && i < ORR_ARRAY_LEN(checks); i++)
        s = checks[i](p);
    return s;
}

static void set_defaults(dif_workunit *wu)
{
    wu->solver.method = DIF_BICGSTAB;
    wu->solver.tolerance = 1e-10;
    wu->solver.max_iterations = 1000;
    wu->solver.restart = 30;
}

orr_status dif_workunit_parse(const char *path, const char *text, size_t len, dif_workunit *wu,
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
    free(p.refs);
    if (s != ORR_OK)
        dif_workunit_free(wu);
    return s;
}

orr_status dif_workunit_load(const char *path, dif_workunit *wu, orr_error *err)
{
    orr_buffer buf;
    memset(wu, 0, sizeof *wu);
    orr_status s = wut_read(&format, path, &buf, err);
    if (s != ORR_OK)
        return s;
    s = dif_workunit_parse(path, buf.data, buf.size, wu, err);
    orr_buffer_free(&buf);
    return s;
}

void dif_workunit_free(dif_workunit *wu)
{
    for (int m = 0; m < wu->n_materials; m++) {
        free(wu->materials[m].lambda);
        free(wu->materials[m].n);
        free(wu->materials[m].k);
    }
    free(wu->materials);
    free(wu->layers);
    free(wu->shapes);
    free(wu->wavelengths);
    free(wu->theta);
    free(wu->phi);
    memset(wu, 0, sizeof *wu);
}

orr_status dif_material_eps(const dif_workunit *wu, int material, double lambda,
                            double complex *eps, orr_error *err)
{
    const dif_material *m = &wu->materials[material];
    if (m->n_rows == 0) {
        *eps = m->eps;
        return ORR_OK;
    }
    const int last = m->n_rows - 1;
    if (lambda < m->lambda[0] || lambda > m->lambda[last])
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s:%d: material %s: its table covers %.6g..%.6g nm, not %.6g nm",
                        wu->path, m->line, m->name, m->lambda[0], m->lambda[last], lambda);
    int i = 0;
    while (i < last - 1 && lambda > m->lambda[i + 1])
        i++;
    const double f = last == 0 ? 0 : (lambda - m->lambda[i]) / (m->lambda[i + 1] - m->lambda[i]);
    const double n = last == 0 ? m->n[0] : m->n[i] + f * (m->n[i + 1] - m->n[i]);
    const double k = last == 0 ? m->k[0] : m->k[i] + f * (m->k[i + 1] - m->k[i]);
    *eps = (n + I * k) * (n + I * k);
    return ORR_OK;
}
