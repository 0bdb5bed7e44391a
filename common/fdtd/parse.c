/* The work-unit text (docs/fdtd.md section 2) -> fdtd_workunit, no
 * computing. One statement a line; '#' starts a comment; the order of
 * statements is free after the first. Each statement is checked on its own
 * line; whatever needs another statement (the grid, the steps, the
 * boundary: the source cell, the probes, the CPML's fit) is checked at the
 * end, still naming the line at fault. A missing required statement names
 * the file's last line (where it could be added). Regions name materials
 * defined above them, so they are resolved at once. */
#include "fdtd.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"

/* Source tables can be long: 1e7 values take ~100 MB of text, so the cap
 * (64 MiB) is what bounds a table in practice. */
#define WU_MAX_BYTES ((size_t)64 << 20)
#define TEXT_LEN 64   /* a value as written, NUL included (param values, messages) */
#define NAME_RULE "[A-Za-z_][A-Za-z0-9_]*, at most %d characters"

typedef struct {
    const char *s;
    size_t n;
} token;

enum { ONCE_GRID, ONCE_CELL, ONCE_COURANT, ONCE_STEPS, ONCE_BOUNDARY, ONCE_SOURCE, ONCE_ENERGY,
       ONCE_ARITHMETIC, ONCE_PRECISION, ONCE_SNAPSHOT, N_ONCE };

typedef struct {
    const char *path;
    int line;
    token *tok;           /* the line's words: no limit, a table line may be long */
    int n, cap;
    const char *stmt;     /* the statement being read, for keys */
    char key[64];         /* "statement key" */
    orr_error *err;
    fdtd_workunit *wu;
    int seen_line[N_ONCE];    /* statements allowed once: where given */
    int table_line;           /* the first `table` line */
    int at_given, release_given;
    int last_line;
} parser;

static const char *const field_names[FDTD_N_FIELDS] = {"ex", "ey", "ez", "hx", "hy", "hz"};

const char *fdtd_field_name(fdtd_field f)
{
    return (int)f >= 0 && f < FDTD_N_FIELDS ? field_names[f] : "?";
}

/* ---- messages ---- */

static orr_status vbad(parser *p, int line, const char *key, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: %s: %s", p->path, line, key, msg);
}

#if defined(__GNUC__)
#define PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define PRINTF_LIKE(a, b)
#endif

/* "path:line: key: message" for the line being read. */
static orr_status PRINTF_LIKE(3, 4) bad(parser *p, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orr_status s = vbad(p, p->line, key, fmt, ap);
    va_end(ap);
    return s;
}

/* The same for a line read earlier (the checks of the whole file). */
static orr_status PRINTF_LIKE(4, 5) bad_at(parser *p, int line, const char *key,
                                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orr_status s = vbad(p, line, key, fmt, ap);
    va_end(ap);
    return s;
}

static orr_status no_memory(parser *p)
{
    return orr_fail(p->err, ORR_ERR_NOMEM, "%s:%d: out of memory", p->path, p->line);
}

/* "statement key", the key of a key=value field in messages. */
static const char *keyof(parser *p, const char *field)
{
    snprintf(p->key, sizeof p->key, "%s %s", p->stmt, field);
    return p->key;
}

/* ---- tokens and values ---- */

static int tok_is(const token *t, const char *word)
{
    return t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

/* The token as text for messages, cut to fit. */
static const char *tok_text(const token *t, char out[TEXT_LEN])
{
    size_t n = t->n < TEXT_LEN - 1 ? t->n : TEXT_LEN - 1;
    memcpy(out, t->s, n);
    out[n] = '\0';
    return out;
}

/* A finite number (inf, nan and overflow are refused). */
static orr_status number(parser *p, const char *key, const token *t, double *v)
{
    char text[TEXT_LEN];
    if (orr_parse_double(t->s, t->n, v) != 0 || !isfinite(*v))
        return bad(p, key, "expected a finite number, found '%s'", tok_text(t, text));
    return ORR_OK;
}

static orr_status whole(parser *p, const char *key, const token *t, long lo, long hi, long *v)
{
    char text[TEXT_LEN];
    if (orr_parse_long(t->s, t->n, v) != 0)
        return bad(p, key, "expected a whole number, found '%s'", tok_text(t, text));
    if (*v < lo || *v > hi)
        return bad(p, key, "%ld is outside %ld..%ld", *v, lo, hi);
    return ORR_OK;
}

static orr_status whole_int(parser *p, const char *key, const token *t, long lo, long hi, int *v)
{
    long x;
    orr_status s = whole(p, key, t, lo, hi, &x);
    if (s == ORR_OK)
        *v = (int)x;
    return s;
}

/* X,Y,Z: exactly three comma-separated parts (each checked by the caller). */
static orr_status split3(parser *p, const char *key, const token *t, token part[3])
{
    const char *s = t->s, *end = t->s + t->n;
    for (int i = 0; i < 3; i++) {
        const char *c = memchr(s, ',', (size_t)(end - s));
        const char *stop = i < 2 ? c : end;
        if (!stop || (i == 2 && c)) {
            char text[TEXT_LEN];
            return bad(p, key, "expected three values separated by commas, found '%s'",
                       tok_text(t, text));
        }
        part[i].s = s;
        part[i].n = (size_t)(stop - s);
        s = stop + 1;
    }
    return ORR_OK;
}

static orr_status triple(parser *p, const char *key, const token *t, double v[3])
{
    token part[3];
    orr_status s = split3(p, key, t, part);
    for (int i = 0; s == ORR_OK && i < 3; i++)
        s = number(p, key, &part[i], &v[i]);
    return s;
}

/* Padded indices I,J,K: 0..FDTD_MAX_N + 1 here, the grid's range at the end. */
static orr_status indices(parser *p, const char *key, const token *t, int v[3])
{
    token part[3];
    orr_status s = split3(p, key, t, part);
    for (int i = 0; s == ORR_OK && i < 3; i++)
        s = whole_int(p, key, &part[i], 0, FDTD_MAX_N + 1, &v[i]);
    return s;
}

static int valid_name(const token *t)
{
    if (t->n == 0 || t->n >= FDTD_NAME_LEN || !(isalpha((unsigned char)t->s[0]) || t->s[0] == '_'))
        return 0;
    for (size_t i = 1; i < t->n; i++)
        if (!isalnum((unsigned char)t->s[i]) && t->s[i] != '_')
            return 0;
    return 1;
}

/* Which of words t is, or -1. */
static int word_of(const token *t, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (tok_is(t, words[i]))
            return i;
    return -1;
}

/* "a, b or c", for messages. */
static const char *word_list(const char *const *words, int n, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s",
                 i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
    return out;
}

/* One of words, or an error listing them. */
static orr_status choice(parser *p, const char *key, const token *t, const char *const *words,
                         int n, int *v)
{
    char text[TEXT_LEN], list[128];
    if ((*v = word_of(t, words, n)) >= 0)
        return ORR_OK;
    return bad(p, key, "expected %s, found '%s'", word_list(words, n, list, sizeof list),
               tok_text(t, text));
}

static orr_status arity(parser *p, int want)
{
    if (p->n - 1 == want)
        return ORR_OK;
    return bad(p, p->stmt, "expected %d value%s, found %d", want, want == 1 ? "" : "s", p->n - 1);
}

/* key=value fields from word `first` on: each key at most once; the values
 * come back by key index (s NULL: absent). */
static orr_status fields(parser *p, int first, const char *const *keys, int n_keys, token *out)
{
    memset(out, 0, (size_t)n_keys * sizeof *out);
    for (int i = first; i < p->n; i++) {
        const token *t = &p->tok[i];
        const char *eq = memchr(t->s, '=', t->n);
        char text[TEXT_LEN], list[160];
        if (!eq)
            return bad(p, p->stmt, "expected key=value, found '%s'", tok_text(t, text));
        const token name = {t->s, (size_t)(eq - t->s)};
        const int k = word_of(&name, keys, n_keys);
        if (k < 0)
            return bad(p, p->stmt, "unknown key '%s' (expected %s)", tok_text(&name, text),
                       word_list(keys, n_keys, list, sizeof list));
        if (out[k].s)
            return bad(p, keyof(p, keys[k]), "given twice on the line");
        out[k].s = eq + 1;
        out[k].n = t->n - name.n - 1;
        if (out[k].n == 0)
            return bad(p, keyof(p, keys[k]), "has no value");
    }
    return ORR_OK;
}

static orr_status need(parser *p, const char *key, const token *f)
{
    return f->s ? ORR_OK : bad(p, keyof(p, key), "missing (required)");
}

/* Capacities double at powers of two. */
static orr_status grow(parser *p, void **a, size_t item, long count)
{
    if (count & (count - 1))
        return ORR_OK;
    void *n = realloc(*a, (size_t)(count ? 2 * count : 1) * item);
    if (!n)
        return no_memory(p);
    *a = n;
    return ORR_OK;
}

/* ---- statements, each on its own line ---- */

static orr_status st_param(parser *p)
{
    fdtd_workunit *wu = p->wu;
    char name[TEXT_LEN];
    orr_status s = arity(p, 2);
    if (s != ORR_OK)
        return s;
    tok_text(&p->tok[1], name);
    if (!valid_name(&p->tok[1]))
        return bad(p, "param", "'%s' is not a name (" NAME_RULE ")", name, FDTD_NAME_LEN - 1);
    if (p->tok[2].n >= TEXT_LEN)
        return bad(p, "param", "the value of '%s' is %zu characters; at most %d", name,
                   p->tok[2].n, TEXT_LEN - 1);
    if (wu->n_params == FDTD_MAX_PARAMS)
        return bad(p, "param", "more than %d parameters", FDTD_MAX_PARAMS);
    for (int i = 0; i < wu->n_params; i++)
        if (strcmp(wu->param_name[i], name) == 0)
            return bad(p, "param", "'%s' given twice", name);
    strcpy(wu->param_name[wu->n_params], name);
    tok_text(&p->tok[2], wu->param_text[wu->n_params]);
    wu->n_params++;
    return ORR_OK;
}

static orr_status st_grid(parser *p)
{
    orr_status s = arity(p, 3);
    for (int a = 0; s == ORR_OK && a < 3; a++)
        s = whole_int(p, "grid", &p->tok[1 + a], 1, FDTD_MAX_N, &p->wu->n[a]);
    return s;
}

static orr_status st_cell(parser *p)
{
    orr_status s = arity(p, 3);
    for (int a = 0; s == ORR_OK && a < 3; a++) {
        s = number(p, "cell", &p->tok[1 + a], &p->wu->d[a]);
        if (s == ORR_OK && !(p->wu->d[a] > 0))
            s = bad(p, "cell", "%g must be > 0 (metres)", p->wu->d[a]);
    }
    return s;
}

static orr_status st_courant(parser *p)
{
    double *S = &p->wu->courant;
    orr_status s = arity(p, 1);
    if (s == ORR_OK)
        s = number(p, "courant", &p->tok[1], S);
    if (s == ORR_OK && *S > 1)
        s = bad(p, "courant", "%g is above the stability limit 1", *S);
    if (s == ORR_OK && !(*S > 0))
        s = bad(p, "courant", "%g must be > 0", *S);
    return s;
}

static orr_status st_steps(parser *p)
{
    orr_status s = arity(p, 1);
    return s == ORR_OK ? whole(p, "steps", &p->tok[1], 1, FDTD_MAX_STEPS, &p->wu->steps) : s;
}

/* The CPML's keys; boundary checks they come only with cpml. */
static orr_status cpml_keys(parser *p, const token *f, fdtd_cpml *c)
{
    orr_status s = ORR_OK;
    if (f[0].s)
        s = whole_int(p, keyof(p, "thickness"), &f[0], 1, FDTD_MAX_N, &c->thickness);
    if (s == ORR_OK && f[1].s && (s = number(p, keyof(p, "order"), &f[1], &c->order)) == ORR_OK &&
        !(c->order >= 0 && c->order <= 20))
        s = bad(p, p->key, "%g is outside 0..20", c->order);
    if (s == ORR_OK && f[2].s &&
        (s = number(p, keyof(p, "reflection"), &f[2], &c->reflection)) == ORR_OK &&
        !(c->reflection > 0 && c->reflection < 1))
        s = bad(p, p->key, "%g must be > 0 and < 1", c->reflection);
    if (s == ORR_OK && f[3].s && (s = number(p, keyof(p, "alpha"), &f[3], &c->alpha)) == ORR_OK &&
        !(c->alpha >= 0))
        s = bad(p, p->key, "%g must be >= 0 (S/m)", c->alpha);
    return s;
}

static orr_status st_boundary(parser *p)
{
    static const char *const kinds[] = {"thesis", "pec", "cpml"};
    static const char *const keys[] = {"thickness", "order", "reflection", "alpha"};
    token f[4];
    int kind;
    if (p->n < 2)
        return bad(p, "boundary", "expected thesis, pec or cpml");
    orr_status s = choice(p, "boundary", &p->tok[1], kinds, 3, &kind);
    if (s == ORR_OK)
        s = fields(p, 2, keys, 4, f);
    if (s != ORR_OK)
        return s;
    p->wu->boundary = (fdtd_boundary)kind;
    for (int k = 0; k < 4; k++)
        if (f[k].s && kind != FDTD_CPML)
            return bad(p, keyof(p, keys[k]), "only with cpml (this boundary is %s)", kinds[kind]);
    return cpml_keys(p, f, &p->wu->cpml);
}

enum { S_WAVEFORM, S_COMPONENT, S_AT, S_AMPLITUDE, S_DELAY, S_WIDTH, S_RELEASE, N_SOURCE_KEYS };
static const char *const source_keys[N_SOURCE_KEYS] = {
    "waveform", "component", "at", "amplitude", "delay", "width", "release_after"};

static orr_status source_component(parser *p, const token *t, fdtd_field *field)
{
    int f = word_of(t, field_names, FDTD_N_FIELDS);
    if (f >= FDTD_HX)
        return bad(p, keyof(p, "component"), "%s: hard sources are E only (ex, ey or ez)",
                   field_names[f]);
    orr_status s = choice(p, keyof(p, "component"), t, field_names, 3, &f);
    if (s == ORR_OK)
        *field = (fdtd_field)f;
    return s;
}

/* The pulse's shape: width for gauss and dgauss (delay 4 widths unless
 * given), neither for a table. */
static orr_status source_pulse(parser *p, const token *f, fdtd_source *src)
{
    static const char *const wave[] = {"gauss", "dgauss", "table"};
    orr_status s;
    if (src->waveform == FDTD_TABLE) {
        for (int k = S_DELAY; k <= S_WIDTH; k++)
            if (f[k].s)
                return bad(p, keyof(p, source_keys[k]), "not allowed with waveform=table");
        return ORR_OK;
    }
    if (!f[S_WIDTH].s)
        return bad(p, keyof(p, "width"), "missing (required with waveform=%s)",
                   wave[src->waveform]);
    if ((s = number(p, keyof(p, "width"), &f[S_WIDTH], &src->width)) != ORR_OK)
        return s;
    if (!(src->width > 0))
        return bad(p, p->key, "%g must be > 0 (steps)", src->width);
    src->delay = 4 * src->width;
    return f[S_DELAY].s ? number(p, keyof(p, "delay"), &f[S_DELAY], &src->delay) : ORR_OK;
}

static orr_status st_source(parser *p)
{
    static const char *const wave[] = {"gauss", "dgauss", "table"};
    fdtd_source *src = &p->wu->source;
    token f[N_SOURCE_KEYS];
    int w;
    orr_status s = fields(p, 1, source_keys, N_SOURCE_KEYS, f);
    if (s == ORR_OK && (s = need(p, "waveform", &f[S_WAVEFORM])) == ORR_OK &&
        (s = choice(p, keyof(p, "waveform"), &f[S_WAVEFORM], wave, 3, &w)) == ORR_OK)
        src->waveform = (fdtd_waveform)w;
    if (s == ORR_OK && f[S_COMPONENT].s)
        s = source_component(p, &f[S_COMPONENT], &src->field);
    if (s == ORR_OK && (p->at_given = f[S_AT].s != NULL))
        s = indices(p, keyof(p, "at"), &f[S_AT], src->at);
    if (s == ORR_OK && f[S_AMPLITUDE].s)
        s = number(p, keyof(p, "amplitude"), &f[S_AMPLITUDE], &src->amplitude);
    if (s == ORR_OK)
        s = source_pulse(p, f, src);
    if (s == ORR_OK && (p->release_given = f[S_RELEASE].s != NULL))
        s = whole(p, keyof(p, "release_after"), &f[S_RELEASE], 0, FDTD_MAX_STEPS,
                  &src->release_after);
    return s;
}

/* J(1), J(2), ... continued over any number of lines. */
static orr_status st_table(parser *p)
{
    fdtd_source *src = &p->wu->source;
    if (p->n < 2)
        return bad(p, "table", "expected at least one value");
    if (src->n_table + p->n - 1 > FDTD_MAX_TABLE)
        return bad(p, "table", "more than %d values", FDTD_MAX_TABLE);
    if (!p->table_line)
        p->table_line = p->line;
    for (int i = 1; i < p->n; i++) {
        double v;
        orr_status s = number(p, "table", &p->tok[i], &v);
        if (s == ORR_OK)
            s = grow(p, (void **)&src->table, sizeof *src->table, src->n_table);
        if (s != ORR_OK)
            return s;
        src->table[src->n_table++] = v;
    }
    return ORR_OK;
}

static orr_status st_probe(parser *p)
{
    fdtd_workunit *wu = p->wu;
    fdtd_probe pr = {.line = p->line};
    int f = 0;
    orr_status s = arity(p, 4);
    if (s == ORR_OK && wu->n_probes == FDTD_MAX_PROBES)
        s = bad(p, "probe", "more than %d probes", FDTD_MAX_PROBES);
    if (s == ORR_OK)
        s = choice(p, "probe", &p->tok[1], field_names, FDTD_N_FIELDS, &f);
    pr.field = (fdtd_field)f;
    for (int a = 0; s == ORR_OK && a < 3; a++)
        s = whole_int(p, "probe", &p->tok[2 + a], 0, FDTD_MAX_N + 1, &pr.at[a]);
    if (s == ORR_OK)
        s = grow(p, (void **)&wu->probes, sizeof *wu->probes, wu->n_probes);
    if (s == ORR_OK)
        wu->probes[wu->n_probes++] = pr;
    return s;
}

static orr_status st_energy(parser *p)
{
    static const char *const keys[] = {"every"};
    token f[1];
    orr_status s = fields(p, 1, keys, 1, f);
    if (s == ORR_OK)
        s = need(p, "every", &f[0]);
    return s == ORR_OK ? whole(p, keyof(p, "every"), &f[0], 1, FDTD_MAX_STEPS, &p->wu->energy_every)
                       : s;
}

static orr_status st_arithmetic(parser *p)
{
    static const char *const words[] = {"faithful", "fast"};
    int v;
    orr_status s = arity(p, 1);
    if (s == ORR_OK && (s = choice(p, "arithmetic", &p->tok[1], words, 2, &v)) == ORR_OK)
        p->wu->arithmetic = (fdtd_arithmetic)v;
    return s;
}

static orr_status st_precision(parser *p)
{
    static const char *const words[] = {"double", "single"};
    int v;
    orr_status s = arity(p, 1);
    if (s == ORR_OK && (s = choice(p, "precision", &p->tok[1], words, 2, &v)) == ORR_OK)
        p->wu->precision = (fdtd_precision)v;
    return s;
}

static int material_index(const fdtd_workunit *wu, const char *name)
{
    for (int i = 0; i < wu->n_materials; i++)
        if (strcmp(wu->materials[i].name, name) == 0)
            return i;
    return -1;
}

static orr_status material_name(parser *p, char name[TEXT_LEN])
{
    if (p->n < 2)
        return bad(p, "material", "expected a name");
    tok_text(&p->tok[1], name);
    if (!valid_name(&p->tok[1]))
        return bad(p, "material", "'%s' is not a name (" NAME_RULE ")", name, FDTD_NAME_LEN - 1);
    if (strcmp(name, "vacuum") == 0)
        return bad(p, "material", "'vacuum' is reserved (the background)");
    if (material_index(p->wu, name) >= 0)
        return bad(p, "material", "'%s' defined twice", name);
    if (p->wu->n_materials == FDTD_MAX_MATERIALS)
        return bad(p, "material", "more than %d materials", FDTD_MAX_MATERIALS);
    return ORR_OK;
}

static orr_status st_material(parser *p)
{
    static const char *const keys[] = {"eps_r", "sigma"};
    fdtd_workunit *wu = p->wu;
    fdtd_material m = {.line = p->line};
    char name[TEXT_LEN];
    token f[2];
    orr_status s = material_name(p, name);
    if (s == ORR_OK && (s = fields(p, 2, keys, 2, f)) == ORR_OK &&
        (s = need(p, "eps_r", &f[0])) == ORR_OK &&
        (s = number(p, keyof(p, "eps_r"), &f[0], &m.eps_r)) == ORR_OK && !(m.eps_r > 0))
        s = bad(p, p->key, "%g must be > 0", m.eps_r);
    if (s == ORR_OK && f[1].s && (s = number(p, keyof(p, "sigma"), &f[1], &m.sigma)) == ORR_OK &&
        !(m.sigma >= 0))
        s = bad(p, p->key, "%g must be >= 0 (S/m)", m.sigma);
    if (s == ORR_OK)
        s = grow(p, (void **)&wu->materials, sizeof *wu->materials, wu->n_materials);
    if (s != ORR_OK)
        return s;
    strcpy(m.name, name);
    wu->materials[wu->n_materials++] = m;
    return ORR_OK;
}

/* A region's material: defined above, or vacuum (-1). */
static orr_status region_material(parser *p, const token *t, int *m)
{
    char name[TEXT_LEN];
    tok_text(t, name);
    if (tok_is(t, "vacuum")) {
        *m = -1;
        return ORR_OK;
    }
    if (t->n < FDTD_NAME_LEN && (*m = material_index(p->wu, name)) >= 0)
        return ORR_OK;
    return bad(p, keyof(p, "material"), "'%s' is not a material defined above (a region names "
               "a `material` given on an earlier line, or vacuum)", name);
}

static orr_status add_region(parser *p, const fdtd_region *r)
{
    fdtd_workunit *wu = p->wu;
    if (wu->n_regions == FDTD_MAX_REGIONS)
        return bad(p, p->stmt, "more than %d regions (boxes and spheres)", FDTD_MAX_REGIONS);
    orr_status s = grow(p, (void **)&wu->regions, sizeof *wu->regions, wu->n_regions);
    if (s == ORR_OK)
        wu->regions[wu->n_regions++] = *r;
    return s;
}

static orr_status st_box(parser *p)
{
    static const char *const keys[] = {"material", "from", "to"};
    fdtd_region r = {.kind = FDTD_BOX, .line = p->line};
    token f[3];
    orr_status s = fields(p, 1, keys, 3, f);
    for (int k = 0; s == ORR_OK && k < 3; k++)
        s = need(p, keys[k], &f[k]);
    if (s == ORR_OK && (s = region_material(p, &f[0], &r.material)) == ORR_OK &&
        (s = triple(p, keyof(p, "from"), &f[1], r.lo)) == ORR_OK)
        s = triple(p, keyof(p, "to"), &f[2], r.hi);
    for (int a = 0; s == ORR_OK && a < 3; a++)
        if (r.hi[a] < r.lo[a])
            s = bad(p, keyof(p, "to"), "%c = %g is below from's %g", "xyz"[a], r.hi[a], r.lo[a]);
    return s == ORR_OK ? add_region(p, &r) : s;
}

static orr_status st_sphere(parser *p)
{
    static const char *const keys[] = {"material", "centre", "radius"};
    fdtd_region r = {.kind = FDTD_SPHERE, .line = p->line};
    token f[3];
    orr_status s = fields(p, 1, keys, 3, f);
    for (int k = 0; s == ORR_OK && k < 3; k++)
        s = need(p, keys[k], &f[k]);
    if (s == ORR_OK && (s = region_material(p, &f[0], &r.material)) == ORR_OK &&
        (s = triple(p, keyof(p, "centre"), &f[1], r.centre)) == ORR_OK &&
        (s = number(p, keyof(p, "radius"), &f[2], &r.radius)) == ORR_OK && !(r.radius > 0))
        s = bad(p, p->key, "%g must be > 0 (metres)", r.radius);
    return s == ORR_OK ? add_region(p, &r) : s;
}

static orr_status st_snapshot(parser *p)
{
    static const char *const keys[] = {"field", "every"};
    fdtd_workunit *wu = p->wu;
    token f[2];
    int v;
    orr_status s = fields(p, 1, keys, 2, f);
    if (s == ORR_OK && (s = need(p, "field", &f[0])) == ORR_OK &&
        (s = choice(p, keyof(p, "field"), &f[0], field_names, FDTD_N_FIELDS, &v)) == ORR_OK)
        wu->snapshot_field = (fdtd_field)v;
    wu->snapshot_every = 1;
    if (s == ORR_OK && f[1].s)
        s = whole_int(p, keyof(p, "every"), &f[1], 1, FDTD_MAX_N, &wu->snapshot_every);
    wu->snapshot = s == ORR_OK;
    return s;
}

static const struct {
    const char *word;
    orr_status (*read)(parser *p);
    int once;   /* ONCE_*, or -1: any number */
} statements[] = {
    {"param", st_param, -1},           {"grid", st_grid, ONCE_GRID},
    {"cell", st_cell, ONCE_CELL},      {"courant", st_courant, ONCE_COURANT},
    {"steps", st_steps, ONCE_STEPS},   {"boundary", st_boundary, ONCE_BOUNDARY},
    {"source", st_source, ONCE_SOURCE}, {"table", st_table, -1},
    {"probe", st_probe, -1},           {"energy", st_energy, ONCE_ENERGY},
    {"arithmetic", st_arithmetic, ONCE_ARITHMETIC},
    {"precision", st_precision, ONCE_PRECISION},
    {"material", st_material, -1},     {"box", st_box, -1},
    {"sphere", st_sphere, -1},         {"snapshot", st_snapshot, ONCE_SNAPSHOT},
};

static orr_status statement(parser *p)
{
    char text[TEXT_LEN];
    for (size_t i = 0; i < ORR_ARRAY_LEN(statements); i++) {
        if (!tok_is(&p->tok[0], statements[i].word))
            continue;
        const int once = statements[i].once;
        p->stmt = statements[i].word;
        if (once >= 0 && p->seen_line[once])
            return bad(p, p->stmt, "given twice (first at line %d)", p->seen_line[once]);
        if (once >= 0)
            p->seen_line[once] = p->line;
        return statements[i].read(p);
    }
    return bad(p, tok_text(&p->tok[0], text), "unknown statement");
}

/* Splits a line into blank-separated words up to a '#'. */
static orr_status tokenize(parser *p, const char *s, size_t n)
{
    p->n = 0;
    if (memchr(s, '\0', n))
        return bad(p, "text", "binary data (a NUL byte) in a text file");
    for (size_t i = 0; i < n && s[i] != '#';) {
        if (isspace((unsigned char)s[i])) {
            i++;
            continue;
        }
        if (p->n == p->cap) {
            int cap = p->cap ? 2 * p->cap : 16;
            token *t = realloc(p->tok, (size_t)cap * sizeof *t);
            if (!t)
                return no_memory(p);
            p->tok = t;
            p->cap = cap;
        }
        size_t b = i;
        while (i < n && !isspace((unsigned char)s[i]) && s[i] != '#')
            i++;
        p->tok[p->n].s = s + b;
        p->tok[p->n++].n = i - b;
    }
    return ORR_OK;
}

static orr_status first_statement(parser *p)
{
    char text[TEXT_LEN];
    if (!tok_is(&p->tok[0], "orrery-fdtd"))
        return bad(p, "orrery-fdtd", "expected 'orrery-fdtd 1' (the format and its version) as "
                   "the first statement, found '%s'", tok_text(&p->tok[0], text));
    if (p->n != 2)
        return bad(p, "orrery-fdtd", "expected one value, the version (1), found %d", p->n - 1);
    if (!tok_is(&p->tok[1], "1"))
        return bad(p, "orrery-fdtd", "version '%s' is not supported (this app reads version 1)",
                   tok_text(&p->tok[1], text));
    return ORR_OK;
}

/* ---- the whole file ---- */

static orr_status missing(parser *p)
{
    static const struct { int which; const char *key; } required[] = {
        {ONCE_GRID, "grid"}, {ONCE_CELL, "cell"}, {ONCE_STEPS, "steps"}, {ONCE_SOURCE, "source"}};
    for (size_t i = 0; i < ORR_ARRAY_LEN(required); i++)
        if (!p->seen_line[required[i].which])
            return bad_at(p, p->last_line, required[i].key, "missing (a required statement)");
    return ORR_OK;
}

/* Along axis a the last live index of field f is n + 1 where f is
 * staggered (pec, cpml: E along its own axis, H along the other two), n
 * otherwise; thesis keeps every field on 1..n. */
static int live_hi(const fdtd_workunit *wu, fdtd_field f, int a)
{
    if (wu->boundary == FDTD_THESIS)
        return wu->n[a];
    const int staggered = f < FDTD_HX ? (int)f == a : (int)f - FDTD_HX != a;
    return wu->n[a] + staggered;
}

static orr_status check_source(parser *p)
{
    static const char *const bnames[] = {"thesis", "pec", "cpml"};
    fdtd_workunit *wu = p->wu;
    fdtd_source *src = &wu->source;
    const int line = p->seen_line[ONCE_SOURCE];
    if (!p->at_given)
        for (int a = 0; a < 3; a++)
            src->at[a] = wu->n[a] / 2;
    for (int a = 0; a < 3; a++)
        if (src->at[a] < 1 || src->at[a] > live_hi(wu, src->field, a))
            return bad_at(p, line, "source at", "(%d,%d,%d)%s is not a live %s cell of the %s "
                          "boundary (%d..%d, %d..%d, %d..%d)", src->at[0], src->at[1], src->at[2],
                          p->at_given ? "" : " (the default)", field_names[src->field],
                          bnames[wu->boundary], 1, live_hi(wu, src->field, 0), 1,
                          live_hi(wu, src->field, 1), 1, live_hi(wu, src->field, 2));
    if (!p->release_given)
        src->release_after = wu->steps;
    if (src->release_after > wu->steps)
        return bad_at(p, line, "source release_after", "%ld is above steps (%ld)",
                      src->release_after, wu->steps);
    if (src->waveform == FDTD_TABLE && src->n_table == 0)
        return bad_at(p, line, "source waveform", "waveform=table needs the values on `table` "
                      "lines");
    if (src->waveform != FDTD_TABLE && p->table_line)
        return bad_at(p, p->table_line, "table", "only with the source's waveform=table");
    return ORR_OK;
}

/* The CPML's two slabs and a live cell between them fit on every axis. */
static orr_status check_cpml(parser *p)
{
    const fdtd_workunit *wu = p->wu;
    const int t = wu->cpml.thickness;
    if (wu->boundary != FDTD_CPML)
        return ORR_OK;
    for (int a = 0; a < 3; a++)
        if (2 * t + 1 > wu->n[a])
            return bad_at(p, p->seen_line[ONCE_BOUNDARY], "boundary thickness",
                          "2*%d+1 = %d cells do not fit along %c (n%c = %d)", t, 2 * t + 1,
                          "xyz"[a], "xyz"[a], wu->n[a]);
    return ORR_OK;
}

static orr_status check_probes(parser *p)
{
    const fdtd_workunit *wu = p->wu;
    for (int i = 0; i < wu->n_probes; i++)
        for (int a = 0; a < 3; a++)
            if (wu->probes[i].at[a] > wu->n[a] + 1)
                return bad_at(p, wu->probes[i].line, "probe", "%c index %d is outside 0..%d",
                              "ijk"[a], wu->probes[i].at[a], wu->n[a] + 1);
    return ORR_OK;
}

/* The time step the cells give (setup.c's formula) must be a number: cell
 * sizes near the double range make 1/d^2 overflow (dt 0) or underflow
 * (dt infinite), and the run would report nothing but NaN. */
static orr_status check_time_step(parser *p)
{
    const double *d = p->wu->d;
    const double dt = p->wu->courant / (FDTD_C0 * sqrt(1 / (d[0] * d[0]) + 1 / (d[1] * d[1]) +
                                                         1 / (d[2] * d[2])));
    if (isfinite(dt) && dt > 0 && isfinite(dt / FDTD_EPS0) && isfinite(dt / FDTD_MU0))
        return ORR_OK;
    return bad_at(p, p->seen_line[ONCE_CELL], "cell", "%s", "these sizes give no finite time step "
                  "(dt = S / (c0 sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)))");
}

static orr_status check_whole(parser *p)
{
    orr_status s = missing(p);
    if (s == ORR_OK)
        s = check_time_step(p);
    if (s == ORR_OK)
        s = check_source(p);
    if (s == ORR_OK)
        s = check_cpml(p);
    if (s == ORR_OK)
        s = check_probes(p);
    if (s == ORR_OK && p->wu->energy_every > p->wu->steps)
        s = bad_at(p, p->seen_line[ONCE_ENERGY], "energy every", "%ld is above steps (%ld)",
                   p->wu->energy_every, p->wu->steps);
    return s;
}

static orr_status parse_lines(parser *p, const char *text, size_t len)
{
    orr_buffer buf = {(char *)text, len};
    orr_lines it;
    const char *line;
    size_t n;
    int statements_read = 0;
    orr_lines_init(&it, p->path, &buf);
    while (orr_lines_next(&it, &line, &n)) {
        p->line = p->last_line = it.line;
        orr_status s = tokenize(p, line, n);
        if (s == ORR_OK && p->n > 0)
            s = statements_read++ ? statement(p) : first_statement(p);
        if (s != ORR_OK)
            return s;
    }
    if (statements_read == 0)
        return bad_at(p, p->last_line, "orrery-fdtd", "missing: an empty work unit (the first "
                      "statement is 'orrery-fdtd 1')");
    return check_whole(p);
}

static void set_defaults(fdtd_workunit *wu)
{
    wu->courant = 0.99;
    wu->boundary = FDTD_THESIS;
    wu->cpml.thickness = 10;
    wu->cpml.order = 3;
    wu->cpml.reflection = 1e-6;
    wu->cpml.alpha = 0;
    wu->source.field = FDTD_EZ;
    wu->source.amplitude = 1;
    wu->arithmetic = FDTD_FAITHFUL;
    wu->precision = FDTD_DOUBLE;
}

orr_status fdtd_workunit_parse(const char *path, const char *text, size_t len, fdtd_workunit *wu,
                               orr_error *err)
{
    memset(wu, 0, sizeof *wu);
    if (len > WU_MAX_BYTES)
        return orr_fail(err, ORR_ERR_INPUT, "%s: %zu bytes: a work unit is at most 64 MiB",
                        path, len);
    parser p;
    memset(&p, 0, sizeof p);
    snprintf(wu->path, sizeof wu->path, "%s", path);
    wu->content_hash = orr_hash64(ORR_HASH64_INIT, text, len);
    set_defaults(wu);
    p.path = path;
    p.err = err;
    p.wu = wu;
    orr_status s = parse_lines(&p, text, len);
    free(p.tok);
    if (s != ORR_OK)
        fdtd_workunit_free(wu);
    return s;
}

orr_status fdtd_workunit_load(const char *path, fdtd_workunit *wu, orr_error *err)
{
    orr_buffer buf;
    memset(wu, 0, sizeof *wu);
    orr_status s = orr_read_file(path, WU_MAX_BYTES, 1, &buf, err);
    /* io's size refusal names the bytes; say which limit it is */
    if (s == ORR_ERR_INPUT && err && strstr(err->message, "larger than"))
        return orr_fail(err, ORR_ERR_INPUT, "%s: larger than 64 MiB (after decompression): a "
                        "work unit is at most 64 MiB", path);
    if (s != ORR_OK)
        return s;
    s = fdtd_workunit_parse(path, buf.data, buf.size, wu, err);
    orr_buffer_free(&buf);
    return s;
}

void fdtd_workunit_free(fdtd_workunit *wu)
{
    free(wu->source.table);
    free(wu->probes);
    free(wu->materials);
    free(wu->regions);
    memset(wu, 0, sizeof *wu);
}
