/* The work-unit text (docs/diffraction.md section 2) -> dif_workunit.
 * One statement a line; '#' starts a comment. Names are resolved at the
 * end (a material may be defined after its first use), and every check
 * that needs the whole file (required statements, overlaps, trapezoid
 * widths) runs then, still naming the line of the statement at fault. */
#include "diffraction.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"

#define WU_MAX_BYTES (4u << 20)
#define MAX_TOKENS 64
#define MAX_LIST 100000

typedef struct {
    const char *s;
    size_t n;
} token;

typedef struct {
    const char *path;
    int line;
    token tok[MAX_TOKENS];
    int n;
    orr_error *err;
    dif_workunit *wu;
    int seen_line[16];           /* statements allowed once: where first given */
    char (*ref_name)[DIF_NAME_LEN];   /* material names used before resolution */
    int *ref_line;               /* where each was used, and as which key, */
    const char **ref_key;        /* for the message when it names no material */
    int n_refs, cap_refs;
} parser;

enum { ONCE_PERIOD, ONCE_ORDERS, ONCE_SUPER, ONCE_SUB, ONCE_WAVELENGTHS, ONCE_THETA, ONCE_PHI,
       ONCE_SOLVER };

static orr_status bad(parser *p, const char *key, const char *fmt, const char *what)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, what);
    return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: %s: %s", p->path, p->line, key, msg);
}

static int tok_is(const token *t, const char *word)
{
    return t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

static void tok_text(const token *t, char *out, size_t size)
{
    size_t n = t->n < size - 1 ? t->n : size - 1;
    memcpy(out, t->s, n);
    out[n] = '\0';
}

/* A finite number, or an error naming key and the text found. */
static orr_status number(parser *p, const char *key, const token *t, double *v)
{
    char text[64];
    tok_text(t, text, sizeof text);
    if (orr_parse_double(t->s, t->n, v) != 0 || !isfinite(*v))
        return bad(p, key, "expected a finite number, found '%s'", text);
    return ORR_OK;
}

static orr_status whole(parser *p, const char *key, const token *t, long lo, long hi, int *v)
{
    char text[64];
    long x;
    tok_text(t, text, sizeof text);
    if (orr_parse_long(t->s, t->n, &x) != 0)
        return bad(p, key, "expected a whole number, found '%s'", text);
    if (x < lo || x > hi) {
        char range[96];
        snprintf(range, sizeof range, "%ld is outside %ld..%ld", x, lo, hi);
        return bad(p, key, "%s", range);
    }
    *v = (int)x;
    return ORR_OK;
}

static int valid_name(const token *t)
{
    if (t->n == 0 || t->n >= DIF_NAME_LEN || !(isalpha((unsigned char)t->s[0]) || t->s[0] == '_'))
        return 0;
    for (size_t i = 1; i < t->n; i++)
        if (!isalnum((unsigned char)t->s[i]) && t->s[i] != '_' && t->s[i] != '-')
            return 0;
    return 1;
}

static orr_status once(parser *p, int which, const char *key)
{
    if (p->seen_line[which]) {
        char first[32];
        snprintf(first, sizeof first, "%d", p->seen_line[which]);
        return bad(p, key, "given twice (first at line %s)", first);
    }
    p->seen_line[which] = p->line;
    return ORR_OK;
}

static orr_status arity(parser *p, const char *key, int lo, int hi)
{
    const int got = p->n - 1;
    if (got >= lo && got <= hi)
        return ORR_OK;
    char msg[96];
    if (lo == hi)
        snprintf(msg, sizeof msg, "expected %d value%s, found %d", lo, lo == 1 ? "" : "s", got);
    else
        snprintf(msg, sizeof msg, "expected %d to %d values, found %d", lo, hi, got);
    return bad(p, key, "%s", msg);
}

/* A material name to resolve at the end: its reference number. key must
 * be a string literal (kept until then, for the message). */
static orr_status refer(parser *p, const char *key, const token *t, int *ref)
{
    if (!valid_name(t))
    {
        char text[64];
        tok_text(t, text, sizeof text);
        return bad(p, key, "'%s' is not a material name", text);
    }
    if (p->n_refs == p->cap_refs) {
        int cap = p->cap_refs ? 2 * p->cap_refs : 32;
        void *a = realloc(p->ref_name, (size_t)cap * sizeof *p->ref_name);
        if (a)
            p->ref_name = a;
        void *b = a ? realloc(p->ref_line, (size_t)cap * sizeof *p->ref_line) : NULL;
        if (b)
            p->ref_line = b;
        void *c = b ? realloc(p->ref_key, (size_t)cap * sizeof *p->ref_key) : NULL;
        if (!c)
            return orr_fail(p->err, ORR_ERR_NOMEM, "%s: out of memory", p->path);
        p->ref_key = c;
        p->cap_refs = cap;
    }
    tok_text(t, p->ref_name[p->n_refs], DIF_NAME_LEN);
    p->ref_line[p->n_refs] = p->line;
    p->ref_key[p->n_refs] = key;
    *ref = p->n_refs++;
    return ORR_OK;
}

static orr_status grow(parser *p, void **a, size_t item, int count)
{
    /* capacities double at powers of two */
    if (count & (count - 1))
        return ORR_OK;
    void *n = realloc(*a, (size_t)(count ? 2 * count : 1) * item);
    if (!n)
        return orr_fail(p->err, ORR_ERR_NOMEM, "%s: out of memory", p->path);
    *a = n;
    return ORR_OK;
}


/* ---- statements ---- */

static orr_status st_parameter(parser *p)
{
    dif_workunit *wu = p->wu;
    double v;
    orr_status s = arity(p, "parameter", 2, 2);
    if (s != ORR_OK)
        return s;
    if (!valid_name(&p->tok[1]) || memchr(p->tok[1].s, '-', p->tok[1].n))
        return bad(p, "parameter", "'%s' is not a name ([A-Za-z_][A-Za-z0-9_]*, at most 32)", "");
    if ((s = number(p, "parameter", &p->tok[2], &v)) != ORR_OK)
        return s;
    if (p->tok[2].n >= sizeof wu->param_text[0])
        return bad(p, "parameter", "value of %s is too long", "");
    if (wu->n_params == DIF_MAX_PARAMS)
        return bad(p, "parameter", "more than %s parameters", "32");
    char name[DIF_NAME_LEN];
    tok_text(&p->tok[1], name, sizeof name);
    for (int i = 0; i < wu->n_params; i++)
        if (strcmp(wu->param_name[i], name) == 0)
            return bad(p, "parameter", "'%s' given twice", name);
    strcpy(wu->param_name[wu->n_params], name);
    tok_text(&p->tok[2], wu->param_text[wu->n_params], sizeof wu->param_text[0]);
    wu->n_params++;
    return ORR_OK;
}

static orr_status st_period(parser *p)
{
    dif_workunit *wu = p->wu;
    orr_status s = once(p, ONCE_PERIOD, "period");
    if (s == ORR_OK)
        s = arity(p, "period", 1, 2);
    if (s == ORR_OK)
        s = number(p, "period", &p->tok[1], &wu->period_x);
    if (s == ORR_OK && p->n == 3)
        s = number(p, "period", &p->tok[2], &wu->period_y);
    if (s == ORR_OK && (wu->period_x <= 0 || (p->n == 3 && wu->period_y <= 0)))
        s = bad(p, "period", "must be positive%s", "");
    return s;
}

static orr_status st_orders(parser *p)
{
    dif_workunit *wu = p->wu;
    orr_status s = once(p, ONCE_ORDERS, "orders");
    if (s == ORR_OK)
        s = arity(p, "orders", 1, 2);
    if (s == ORR_OK)
        s = whole(p, "orders", &p->tok[1], 0, DIF_MAX_ORDERS, &wu->mx);
    wu->my = -1;
    if (s == ORR_OK && p->n == 3)
        s = whole(p, "orders", &p->tok[2], 0, DIF_MAX_ORDERS, &wu->my);
    return s;
}

static orr_status st_medium(parser *p, int which, const char *key, int *ref)
{
    orr_status s = once(p, which, key);
    if (s == ORR_OK)
        s = arity(p, key, 1, 1);
    return s == ORR_OK ? refer(p, key, &p->tok[1], ref) : s;
}

static int material_index(const dif_workunit *wu, const char *name)
{
    for (int i = 0; i < wu->n_materials; i++)
        if (strcmp(wu->materials[i].name, name) == 0)
            return i;
    return -1;
}

/* `material NAME eps RE IM`, `nk N K` or `nk LAMBDA N K` (a table row). */
static orr_status st_material(parser *p)
{
    dif_workunit *wu = p->wu;
    double v[3];
    char name[DIF_NAME_LEN];
    if (p->n < 2 || !valid_name(&p->tok[1]))
        return bad(p, "material", "expected a name ([A-Za-z_][A-Za-z0-9_-]*, at most 32)%s", "");
    tok_text(&p->tok[1], name, sizeof name);
    const int eps = p->n > 2 && tok_is(&p->tok[2], "eps"), nk = p->n > 2 && tok_is(&p->tok[2], "nk");
    if (!eps && !nk)
        return bad(p, "material", "expected 'eps' or 'nk' after the name%s", "");
    if (p->n != 5 && !(nk && p->n == 6))
        return bad(p, "material", "%s", eps ? "eps takes RE IM" : "nk takes N K, or LAMBDA N K");
    for (int i = 3; i < p->n; i++) {
        orr_status s = number(p, "material", &p->tok[i], &v[i - 3]);
        if (s != ORR_OK)
            return s;
    }
    int m = material_index(wu, name);
    const int row = p->n == 6;
    if (m >= 0 && (!row || wu->materials[m].n_rows == 0))
        return bad(p, "material", row ? "'%s' is already a constant" : "'%s' defined twice", name);
    if (m < 0) {
        orr_status s = grow(p, (void **)&wu->materials, sizeof *wu->materials, wu->n_materials);
        if (s != ORR_OK)
            return s;
        m = wu->n_materials++;
        memset(&wu->materials[m], 0, sizeof wu->materials[m]);
        strcpy(wu->materials[m].name, name);
        wu->materials[m].line = p->line;
    }
    dif_material *mat = &wu->materials[m];
    if (eps) {
        if (v[1] < 0)
            return bad(p, "material", "imaginary part %s < 0 is a gain medium (e^-iwt: absorbing is > 0)", "");
        mat->eps = v[0] + I * v[1];
        return ORR_OK;
    }
    const double *nkv = row ? v + 1 : v;
    if (nkv[0] <= 0 || nkv[1] < 0)
        return bad(p, "material", "needs n > 0 and k >= 0%s", "");
    if (!row) {
        mat->eps = (nkv[0] + I * nkv[1]) * (nkv[0] + I * nkv[1]);
        return ORR_OK;
    }
    if (v[0] <= 0 || (mat->n_rows && v[0] <= mat->lambda[mat->n_rows - 1]))
        return bad(p, "material", "table wavelengths must be positive and increasing%s", "");
    if (mat->n_rows >= MAX_LIST)
        return bad(p, "material", "table too long%s", "");
    orr_status s = grow(p, (void **)&mat->lambda, sizeof(double), mat->n_rows);
    if (s == ORR_OK)
        s = grow(p, (void **)&mat->n, sizeof(double), mat->n_rows);
    if (s == ORR_OK)
        s = grow(p, (void **)&mat->k, sizeof(double), mat->n_rows);
    if (s != ORR_OK)
        return s;
    mat->lambda[mat->n_rows] = v[0];
    mat->n[mat->n_rows] = nkv[0];
    mat->k[mat->n_rows] = nkv[1];
    mat->n_rows++;
    return ORR_OK;
}

/* `key=value` fields of layer, shape and solver lines: each key allowed
 * once; the values are returned as tokens by key index (n 0: absent). */
static orr_status fields(parser *p, const char *key, int first, const char *const *keys, int n_keys,
                         token *out)
{
    memset(out, 0, (size_t)n_keys * sizeof *out);
    for (int i = first; i < p->n; i++) {
        const token *t = &p->tok[i];
        const char *eq = memchr(t->s, '=', t->n);
        char text[64];
        tok_text(t, text, sizeof text);
        if (!eq)
            return bad(p, key, "expected name=value, found '%s'", text);
        int k = 0;
        while (k < n_keys && !(strlen(keys[k]) == (size_t)(eq - t->s) &&
                               memcmp(keys[k], t->s, (size_t)(eq - t->s)) == 0))
            k++;
        if (k == n_keys)
            return bad(p, key, "unknown field '%s'", text);
        if (out[k].s)
            return bad(p, key, "field '%s' given twice", keys[k]);
        out[k].s = eq + 1;
        out[k].n = t->n - (size_t)(eq + 1 - t->s);
        if (out[k].n == 0)
            return bad(p, key, "field '%s' has no value", keys[k]);
    }
    return ORR_OK;
}

static orr_status required(parser *p, const char *key, const char *const *keys, const token *f,
                           int n_required)
{
    for (int k = 0; k < n_required; k++)
        if (!f[k].s)
            return bad(p, key, "missing field '%s='", keys[k]);
    return ORR_OK;
}

static orr_status st_layer(parser *p)
{
    static const char *const keys[] = {"thickness", "background", "slices"};
    dif_workunit *wu = p->wu;
    token f[3];
    orr_status s = fields(p, "layer", 1, keys, 3, f);
    if (s == ORR_OK)
        s = required(p, "layer", keys, f, 3);
    if (s == ORR_OK)
        s = grow(p, (void **)&wu->layers, sizeof *wu->layers, wu->n_layers);
    if (s != ORR_OK)
        return s;
    dif_layer *l = &wu->layers[wu->n_layers];
    memset(l, 0, sizeof *l);
    l->line = p->line;
    l->first_shape = wu->n_shapes;
    if ((s = number(p, "layer thickness", &f[0], &l->thickness)) != ORR_OK)
        return s;
    if (l->thickness <= 0)
        return bad(p, "layer thickness", "must be positive%s", "");
    if ((s = whole(p, "layer slices", &f[2], 1, DIF_MAX_SLICES, &l->slices)) != ORR_OK)
        return s;
    if ((s = refer(p, "layer background", &f[1], &l->background)) != ORR_OK)
        return s;
    wu->n_layers++;
    return ORR_OK;
}

/* Shape fields by kind: which keys, and which of them are required. */
static const char *const shape_keys[] = {"material", "x", "width", "y", "height", "rx", "ry",
                                         "bottom", "swa"};
enum { F_MAT, F_X, F_WIDTH, F_Y, F_HEIGHT, F_RX, F_RY, F_BOTTOM, F_SWA, N_SHAPE_KEYS };

static orr_status shape_numbers(parser *p, const token *f, dif_shape *sh)
{
    double v[N_SHAPE_KEYS] = {0};
    for (int k = F_X; k < N_SHAPE_KEYS; k++) {
        char key[32];
        snprintf(key, sizeof key, "shape %s", shape_keys[k]);
        if (f[k].s && number(p, key, &f[k], &v[k]) != ORR_OK)
            return p->err->status;
        if (f[k].s && k != F_X && k != F_Y && k != F_SWA && v[k] <= 0)
            return bad(p, key, "must be positive%s", "");
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
        return bad(p, "shape swa", "must be between 0 and 180 degrees (90: vertical)%s", "");
    return ORR_OK;
}

static orr_status shape_fields_fit(parser *p, const token *f, dif_shape_kind kind)
{
    static const int allowed[3][N_SHAPE_KEYS] = {
        /* mat x width y height rx ry bottom swa: 2 required, 1 optional */
        {2, 2, 2, 1, 1, 0, 0, 0, 0},
        {2, 2, 0, 2, 0, 2, 2, 0, 0},
        {2, 2, 0, 1, 1, 0, 0, 2, 2},
    };
    for (int k = 0; k < N_SHAPE_KEYS; k++) {
        if (f[k].s && !allowed[kind][k])
            return bad(p, "shape", "field '%s=' does not belong to this shape", shape_keys[k]);
        if (!f[k].s && allowed[kind][k] == 2)
            return bad(p, "shape", "missing field '%s='", shape_keys[k]);
    }
    if (kind != DIF_ELLIPSE && !f[F_Y].s != !f[F_HEIGHT].s)
        return bad(p, "shape", "y= and height= go together (neither: a line along y)%s", "");
    return ORR_OK;
}

static orr_status st_shape(parser *p)
{
    dif_workunit *wu = p->wu;
    token f[N_SHAPE_KEYS];
    dif_shape sh;
    memset(&sh, 0, sizeof sh);
    sh.line = p->line;
    if (wu->n_layers == 0)
        return bad(p, "shape", "comes before any layer%s", "");
    if (p->n < 2)
        return bad(p, "shape", "expected rect, ellipse or trapezoid%s", "");
    if (tok_is(&p->tok[1], "rect"))
        sh.kind = DIF_RECT;
    else if (tok_is(&p->tok[1], "ellipse"))
        sh.kind = DIF_ELLIPSE;
    else if (tok_is(&p->tok[1], "trapezoid"))
        sh.kind = DIF_TRAPEZOID;
    else
        return bad(p, "shape", "expected rect, ellipse or trapezoid%s", "");
    orr_status s = fields(p, "shape", 2, shape_keys, N_SHAPE_KEYS, f);
    if (s == ORR_OK)
        s = shape_fields_fit(p, f, sh.kind);
    if (s == ORR_OK)
        s = shape_numbers(p, f, &sh);
    if (s == ORR_OK)
        s = refer(p, "shape material", &f[F_MAT], &sh.material);
    if (s == ORR_OK)
        s = grow(p, (void **)&wu->shapes, sizeof *wu->shapes, wu->n_shapes);
    if (s != ORR_OK)
        return s;
    wu->shapes[wu->n_shapes++] = sh;
    wu->layers[wu->n_layers - 1].n_shapes++;
    return ORR_OK;
}

static orr_status number_list(parser *p, const char *key, int first, double **out, int *count)
{
    const int n = p->n - first;
    if (n < 1)
        return bad(p, key, "expected at least one value%s", "");
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return orr_fail(p->err, ORR_ERR_NOMEM, "%s: out of memory", p->path);
    for (int i = 0; i < n; i++)
        if (number(p, key, &p->tok[first + i], &v[i]) != ORR_OK) {
            free(v);
            return p->err->status;
        }
    *out = v;
    *count = n;
    return ORR_OK;
}

static orr_status st_wavelengths(parser *p)
{
    dif_workunit *wu = p->wu;
    orr_status s = once(p, ONCE_WAVELENGTHS, "wavelengths");
    if (s != ORR_OK)
        return s;
    wu->wavelengths_line = p->line;
    wu->wavelengths_key = tok_is(&p->tok[0], "wavelengths") ? "wavelengths" : "wavelength_range";
    if (tok_is(&p->tok[0], "wavelengths"))
        return number_list(p, "wavelengths", 1, &wu->wavelengths, &wu->n_wavelengths);
    double first, last;
    int count;
    if ((s = arity(p, "wavelength_range", 3, 3)) != ORR_OK ||
        (s = number(p, "wavelength_range", &p->tok[1], &first)) != ORR_OK ||
        (s = number(p, "wavelength_range", &p->tok[2], &last)) != ORR_OK ||
        (s = whole(p, "wavelength_range", &p->tok[3], 1, MAX_LIST, &count)) != ORR_OK)
        return s;
    if (count == 1 && first != last)
        return bad(p, "wavelength_range", "COUNT 1 needs FIRST = LAST%s", "");
    if (!(wu->wavelengths = malloc((size_t)count * sizeof(double))))
        return orr_fail(p->err, ORR_ERR_NOMEM, "%s: out of memory", p->path);
    for (int i = 0; i < count; i++)
        wu->wavelengths[i] = count == 1 ? first : first + (last - first) * i / (count - 1);
    wu->n_wavelengths = count;
    return ORR_OK;
}

static orr_status st_solver(parser *p)
{
    static const char *const keys[] = {"method", "tolerance", "max_iterations", "restart"};
    dif_solver_options *o = &p->wu->solver;
    token f[4];
    orr_status s = once(p, ONCE_SOLVER, "solver");
    if (s == ORR_OK)
        s = fields(p, "solver", 1, keys, 4, f);
    if (s != ORR_OK)
        return s;
    if (f[0].s) {
        if (tok_is(&f[0], "bicgstab"))
            o->method = DIF_BICGSTAB;
        else if (tok_is(&f[0], "gmres"))
            o->method = DIF_GMRES;
        else
            return bad(p, "solver method", "expected bicgstab or gmres%s", "");
    }
    if (f[1].s && (s = number(p, "solver tolerance", &f[1], &o->tolerance)) != ORR_OK)
        return s;
    if (!(o->tolerance >= 1e-15 && o->tolerance < 1))
        return bad(p, "solver tolerance", "must be in [1e-15, 1)%s", "");
    if (f[2].s && (s = whole(p, "solver max_iterations", &f[2], 1, 1000000, &o->max_iterations)) != ORR_OK)
        return s;
    if (f[3].s && (s = whole(p, "solver restart", &f[3], 1, 1000, &o->restart)) != ORR_OK)
        return s;
    if (f[3].s && o->method != DIF_GMRES)
        return bad(p, "solver restart", "is GMRES(m)'s m: only with method=gmres%s", "");
    return ORR_OK;
}

static orr_status statement(parser *p)
{
    dif_workunit *wu = p->wu;
    const token *k = &p->tok[0];
    orr_status s;
    if (tok_is(k, "parameter"))
        return st_parameter(p);
    if (tok_is(k, "period"))
        return st_period(p);
    if (tok_is(k, "orders"))
        return st_orders(p);
    if (tok_is(k, "superstrate"))
        return st_medium(p, ONCE_SUPER, "superstrate", &wu->superstrate);
    if (tok_is(k, "substrate"))
        return st_medium(p, ONCE_SUB, "substrate", &wu->substrate);
    if (tok_is(k, "material"))
        return st_material(p);
    if (tok_is(k, "layer"))
        return st_layer(p);
    if (tok_is(k, "shape"))
        return st_shape(p);
    if (tok_is(k, "wavelengths") || tok_is(k, "wavelength_range"))
        return st_wavelengths(p);
    if (tok_is(k, "theta")) {
        if ((s = once(p, ONCE_THETA, "theta")) != ORR_OK)
            return s;
        wu->theta_line = p->line;
        return number_list(p, "theta", 1, &wu->theta, &wu->n_theta);
    }
    if (tok_is(k, "phi")) {
        if ((s = once(p, ONCE_PHI, "phi")) != ORR_OK)
            return s;
        wu->phi_line = p->line;
        return number_list(p, "phi", 1, &wu->phi, &wu->n_phi);
    }
    if (tok_is(k, "solver"))
        return st_solver(p);
    char text[64];
    tok_text(k, text, sizeof text);
    return orr_fail(p->err, ORR_ERR_PARSE, "%s:%d: unknown statement '%s'", p->path, p->line, text);
}

/* Splits a line into blank-separated tokens up to a '#'. */
static orr_status tokenize(parser *p, const char *s, size_t n)
{
    p->n = 0;
    size_t i = 0;
    while (i < n && s[i] != '#') {
        if (isspace((unsigned char)s[i])) {
            i++;
            continue;
        }
        if (p->n == MAX_TOKENS)
            return orr_fail(p->err, ORR_ERR_PARSE, "%s:%d: more than %d words on a line", p->path,
                            p->line, MAX_TOKENS);
        size_t b = i;
        while (i < n && !isspace((unsigned char)s[i]) && s[i] != '#')
            i++;
        p->tok[p->n].s = s + b;
        p->tok[p->n].n = i - b;
        p->n++;
    }
    return ORR_OK;
}


/* ---- the whole file ---- */

static orr_status resolve(parser *p, int ref, int *material)
{
    const int m = material_index(p->wu, p->ref_name[ref]);
    if (m < 0)
        return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: %s: unknown material '%s'", p->path,
                        p->ref_line[ref], p->ref_key[ref], p->ref_name[ref]);
    *material = m;
    return ORR_OK;
}

static orr_status resolve_all(parser *p)
{
    dif_workunit *wu = p->wu;
    orr_status s = resolve(p, wu->superstrate, &wu->superstrate);
    if (s == ORR_OK)
        s = resolve(p, wu->substrate, &wu->substrate);
    for (int l = 0; s == ORR_OK && l < wu->n_layers; l++)
        s = resolve(p, wu->layers[l].background, &wu->layers[l].background);
    for (int i = 0; s == ORR_OK && i < wu->n_shapes; i++)
        s = resolve(p, wu->shapes[i].material, &wu->shapes[i].material);
    return s;
}

static orr_status missing(parser *p)
{
    static const struct { int which; const char *key; } need[] = {
        {ONCE_PERIOD, "period"}, {ONCE_ORDERS, "orders"}, {ONCE_SUPER, "superstrate"},
        {ONCE_SUB, "substrate"}, {ONCE_WAVELENGTHS, "wavelengths"}, {ONCE_THETA, "theta"}};
    for (size_t i = 0; i < ORR_ARRAY_LEN(need); i++)
        if (!p->seen_line[need[i].which])
            return orr_fail(p->err, ORR_ERR_INPUT, "%s: missing statement '%s'", p->path,
                            need[i].key);
    if (p->wu->n_layers == 0)
        return orr_fail(p->err, ORR_ERR_INPUT, "%s: missing statement 'layer' (at least one)",
                        p->path);
    return ORR_OK;
}

/* x extent (half width at its widest) and y extent of a shape in a layer
 * of thickness t; ORR_ERR_INPUT when a trapezoid's top width is not > 0. */
static orr_status shape_extent(parser *p, const dif_shape *sh, double t, double *hx, double *hy)
{
    const dif_workunit *wu = p->wu;
    *hx = 0;   /* set on every path, the error's included */
    *hy = sh->full_y ? wu->period_y / 2 : sh->wy / 2;
    switch (sh->kind) {
    case DIF_RECT: *hx = sh->wx / 2; break;
    case DIF_ELLIPSE: *hx = sh->wx; *hy = sh->wy; break;
    case DIF_TRAPEZOID: {
        const double top = sh->wx - 2 * t / tan(sh->swa * M_PI / 180);
        if (!(top > 0))
            return orr_fail(p->err, ORR_ERR_INPUT,
                            "%s:%d: shape trapezoid: width at the layer's top is %.6g nm "
                            "(bottom %.6g, swa %.6g, thickness %.6g): must stay positive",
                            p->path, sh->line, top, sh->wx, sh->swa, t);
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
static orr_status check_centre(parser *p, const dif_shape *sh)
{
    const dif_workunit *wu = p->wu;
    const int bad_x = !(fabs(sh->x) <= wu->period_x);
    const int bad_y = wu->period_y > 0 && !sh->full_y && !(fabs(sh->y) <= wu->period_y);
    if (!bad_x && !bad_y)
        return ORR_OK;
    const double v = bad_x ? sh->x : sh->y, period = bad_x ? wu->period_x : wu->period_y;
    return orr_fail(p->err, ORR_ERR_INPUT,
                    "%s:%d: shape %s: %.6g is outside -%.6g..%.6g (a centre within one period "
                    "of the origin)", p->path, sh->line, bad_x ? "x" : "y", v, period, period);
}

static orr_status check_shapes(parser *p)
{
    const dif_workunit *wu = p->wu;
    const int two_d = wu->period_y > 0;
    for (int l = 0; l < wu->n_layers; l++) {
        const dif_layer *ly = &wu->layers[l];
        for (int i = ly->first_shape; i < ly->first_shape + ly->n_shapes; i++) {
            const dif_shape *a = &wu->shapes[i];
            double ax, ay;
            if (!two_d && (a->kind == DIF_ELLIPSE || !a->full_y))
                return orr_fail(p->err, ORR_ERR_INPUT,
                                "%s:%d: shape: %s in a line grating (one period): only lines, "
                                "without y= and height=", p->path, a->line,
                                a->kind == DIF_ELLIPSE ? "an ellipse" : "y=/height=");
            if (check_centre(p, a) != ORR_OK ||
                shape_extent(p, a, ly->thickness, &ax, &ay) != ORR_OK)
                return p->err->status;
            if (2 * ax > wu->period_x || (two_d && 2 * ay > wu->period_y))
                return orr_fail(p->err, ORR_ERR_INPUT,
                                "%s:%d: shape: %.6g x %.6g nm does not fit in the period", p->path,
                                a->line, 2 * ax, 2 * ay);
            for (int j = ly->first_shape; j < i; j++) {
                const dif_shape *b = &wu->shapes[j];
                double bx, by;
                shape_extent(p, b, ly->thickness, &bx, &by);
                if (periodic_overlap(a->x, ax, b->x, bx, wu->period_x) &&
                    (!two_d || periodic_overlap(a->y, ay, b->y, by, wu->period_y)))
                    return orr_fail(p->err, ORR_ERR_INPUT,
                                    "%s:%d: shape overlaps the shape of line %d (their bounding "
                                    "boxes): shapes in a layer must not overlap",
                                    p->path, a->line, b->line);
            }
        }
    }
    return ORR_OK;
}

static orr_status check_spectrum(parser *p)
{
    dif_workunit *wu = p->wu;
    for (int i = 0; i < wu->n_wavelengths; i++)
        if (!(wu->wavelengths[i] > 0))
            return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: %s: %.6g is not positive", p->path,
                            wu->wavelengths_line, wu->wavelengths_key, wu->wavelengths[i]);
    for (int i = 0; i < wu->n_wavelengths; i++)
        if (!(wu->wavelengths[i] >= DIF_MIN_WAVELENGTH &&
              wu->wavelengths[i] <= DIF_MAX_WAVELENGTH))
            return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: %s: %.6g nm is outside %g..%g nm "
                            "(1 pm to 1 m)", p->path, wu->wavelengths_line, wu->wavelengths_key,
                            wu->wavelengths[i], DIF_MIN_WAVELENGTH, DIF_MAX_WAVELENGTH);
    for (int i = 0; i < wu->n_theta; i++)
        if (!(wu->theta[i] >= 0 && wu->theta[i] < 90))
            return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: theta: %.6g is outside [0, 90)",
                            p->path, p->seen_line[ONCE_THETA], wu->theta[i]);
    for (int i = 0; i < wu->n_phi; i++)
        if (!(fabs(wu->phi[i]) <= 360))
            return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: phi: %.6g is outside [-360, 360]",
                            p->path, p->seen_line[ONCE_PHI], wu->phi[i]);
    const double points = (double)wu->n_wavelengths * wu->n_theta * wu->n_phi;
    if (points > DIF_MAX_POINTS)
        return orr_fail(p->err, ORR_ERR_INPUT, "%s: %.0f spectrum points; at most %d a work unit",
                        p->path, points, DIF_MAX_POINTS);
    return ORR_OK;
}

/* Every material at every wavelength: inside its table; the superstrate
 * lossless with Re eps > 0 (the incident and reflected waves live there). */
static orr_status check_materials(parser *p)
{
    dif_workunit *wu = p->wu;
    for (int m = 0; m < wu->n_materials; m++)
        for (int i = 0; i < wu->n_wavelengths; i++) {
            double complex eps;
            orr_status s = dif_material_eps(wu, m, wu->wavelengths[i], &eps, p->err);
            if (s != ORR_OK)
                return s;
            if (!(cabs(eps) <= DIF_MAX_EPS))
                return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: material: '%s' has |eps| = %.6g "
                                "at %.6g nm: at most %g (beyond any real material; the solve "
                                "would overflow)", p->path, wu->materials[m].line,
                                wu->materials[m].name, cabs(eps), wu->wavelengths[i], DIF_MAX_EPS);
            if (m == wu->superstrate && !(cimag(eps) == 0 && creal(eps) > 0))
                return orr_fail(p->err, ORR_ERR_INPUT,
                                "%s:%d: superstrate: '%s' must be lossless with Re eps > 0 "
                                "(eps = %.6g%+.6gi at %.6g nm)", p->path,
                                p->seen_line[ONCE_SUPER], wu->materials[m].name, creal(eps),
                                cimag(eps), wu->wavelengths[i]);
        }
    return ORR_OK;
}

static orr_status check_whole(parser *p)
{
    dif_workunit *wu = p->wu;
    orr_status s = missing(p);
    if (s != ORR_OK)
        return s;
    if (wu->period_y > 0 && wu->my < 0)
        return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: orders: two periods need MX and MY",
                        p->path, p->seen_line[ONCE_ORDERS]);
    if (wu->period_y == 0 && wu->my >= 0)
        return orr_fail(p->err, ORR_ERR_INPUT,
                        "%s:%d: orders: a line grating (one period) takes MX only", p->path,
                        p->seen_line[ONCE_ORDERS]);
    if (wu->my < 0)
        wu->my = 0;
    long slices = 0;
    for (int l = 0; l < wu->n_layers; l++)
        slices += wu->layers[l].slices;
    if (slices > DIF_MAX_SLICES)
        return orr_fail(p->err, ORR_ERR_INPUT, "%s: %ld slices in all; at most %d", p->path,
                        slices, DIF_MAX_SLICES);
    if (!wu->phi) {
        if (!(wu->phi = calloc(1, sizeof *wu->phi)))
            return orr_fail(p->err, ORR_ERR_NOMEM, "%s: out of memory", p->path);
        wu->n_phi = 1;
    }
    if ((s = resolve_all(p)) == ORR_OK && (s = check_spectrum(p)) == ORR_OK &&
        (s = check_materials(p)) == ORR_OK)
        s = check_shapes(p);
    return s;
}

static orr_status parse_lines(parser *p, const char *text, size_t len)
{
    orr_buffer buf = {(char *)text, len};
    orr_lines it;
    const char *line;
    size_t n;
    int statements = 0;
    orr_lines_init(&it, p->path, &buf);
    while (orr_lines_next(&it, &line, &n)) {
        p->line = it.line;
        orr_status s = tokenize(p, line, n);
        if (s != ORR_OK)
            return s;
        if (p->n == 0)
            continue;
        if (statements++ == 0) {
            if (p->n != 2 || !tok_is(&p->tok[0], "orrery-diffraction") || !tok_is(&p->tok[1], "1"))
                return orr_fail(p->err, ORR_ERR_PARSE,
                                "%s:%d: expected 'orrery-diffraction 1' (the format and its "
                                "version) as the first statement", p->path, p->line);
            continue;
        }
        if ((s = statement(p)) != ORR_OK)
            return s;
    }
    if (statements == 0)
        return orr_fail(p->err, ORR_ERR_PARSE, "%s: empty work unit", p->path);
    return check_whole(p);
}

orr_status dif_workunit_parse(const char *path, const char *text, size_t len, dif_workunit *wu,
                              orr_error *err)
{
    parser p;
    memset(&p, 0, sizeof p);
    memset(wu, 0, sizeof *wu);
    snprintf(wu->path, sizeof wu->path, "%s", path);
    wu->content_hash = orr_hash64(ORR_HASH64_INIT, text, len);
    wu->solver.method = DIF_BICGSTAB;
    wu->solver.tolerance = 1e-10;
    wu->solver.max_iterations = 1000;
    wu->solver.restart = 30;
    p.path = path;
    p.err = err;
    p.wu = wu;
    orr_status s = parse_lines(&p, text, len);
    free(p.ref_name);
    free(p.ref_line);
    free(p.ref_key);
    if (s != ORR_OK)
        dif_workunit_free(wu);
    return s;
}

orr_status dif_workunit_load(const char *path, dif_workunit *wu, orr_error *err)
{
    orr_buffer buf;
    memset(wu, 0, sizeof *wu);
    orr_status s = orr_read_file(path, WU_MAX_BYTES, 1, &buf, err);
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
