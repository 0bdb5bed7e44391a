/* The work-unit text (docs/fdtd.md section 2) -> fdtd_workunit, no
 * computing. One statement a line; '#' starts a comment; the order of
 * statements is free after the first. Each statement is checked on its own
 * line; whatever needs another statement (the grid, the steps, the
 * boundary: the source cell, the probes, the CPML's fit) is checked at the
 * end, still naming the line at fault. A missing required statement names
 * the file's last line (where it could be added). Regions name materials
 * defined above them, so they are resolved at once. The text's rules, the
 * words, the values and the messages are common/io/wutext.c's; this file
 * has FDTD's statements and checks. */
#include "fdtd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"
#include "../io/wutext.h"

enum { ONCE_GRID, ONCE_CELL, ONCE_COURANT, ONCE_STEPS, ONCE_BOUNDARY, ONCE_SOURCE, ONCE_ENERGY,
       ONCE_ARITHMETIC, ONCE_PRECISION, ONCE_SNAPSHOT, N_ONCE };
_Static_assert(N_ONCE <= WUT_MAX_ONCE, "more once-only statements than wut_parser holds");

/* FDTD's parser state: the shared one first (its statement readers get
 * that; fd() gives back the rest). */
typedef struct {
    wut_parser t;
    fdtd_workunit *wu;
    int table_line;           /* the first `table` line */
    int at_given, release_given;
} parser;

static parser *fd(wut_parser *p)
{
    return (parser *)p;
}

static fdtd_workunit *wu_of(wut_parser *p)
{
    return fd(p)->wu;
}

static const char *const field_names[FDTD_N_FIELDS] = {"ex", "ey", "ez", "hx", "hy", "hz"};

const char *fdtd_field_name(fdtd_field f)
{
    return (int)f >= 0 && f < FDTD_N_FIELDS ? field_names[f] : "?";
}

/* X,Y,Z: exactly three comma-separated parts (each checked by the caller). */
static orr_status split3(wut_parser *p, const char *key, const wut_token *t, wut_token part[3])
{
    const char *s = t->s, *end = t->s + t->n;
    for (int i = 0; i < 3; i++) {
        const char *c = memchr(s, ',', (size_t)(end - s));
        const char *stop = i < 2 ? c : end;
        if (!stop || (i == 2 && c)) {
            char text[WUT_TEXT_LEN];
            return wut_bad(p, key, "expected three values separated by commas, found '%s'",
                           wut_tok_text(t, text));
        }
        part[i].s = s;
        part[i].n = (size_t)(stop - s);
        s = stop + 1;
    }
    return ORR_OK;
}

static orr_status triple(wut_parser *p, const char *key, const wut_token *t, double v[3])
{
    wut_token part[3];
    orr_status s = split3(p, key, t, part);
    for (int i = 0; s == ORR_OK && i < 3; i++)
        s = wut_number(p, key, &part[i], &v[i]);
    return s;
}

/* Padded indices I,J,K: 0..FDTD_MAX_N + 1 here, the grid's range at the end. */
static orr_status indices(wut_parser *p, const char *key, const wut_token *t, int v[3])
{
    wut_token part[3];
    orr_status s = split3(p, key, t, part);
    for (int i = 0; s == ORR_OK && i < 3; i++)
        s = wut_whole_int(p, key, &part[i], 0, FDTD_MAX_N + 1, &v[i]);
    return s;
}

/* ---- statements, each on its own line ---- */

static orr_status st_param(wut_parser *p)
{
    fdtd_workunit *wu = wu_of(p);
    return wut_param(p, &wu->n_params, FDTD_MAX_PARAMS, wu->param_name[0], sizeof wu->param_name[0],
                     wu->param_text[0], sizeof wu->param_text[0]);
}

static orr_status st_grid(wut_parser *p)
{
    orr_status s = wut_arity(p, 3);
    for (int a = 0; s == ORR_OK && a < 3; a++)
        s = wut_whole_int(p, "grid", &p->tok[1 + a], 1, FDTD_MAX_N, &wu_of(p)->n[a]);
    return s;
}

static orr_status st_cell(wut_parser *p)
{
    double *d = wu_of(p)->d;
    orr_status s = wut_arity(p, 3);
    for (int a = 0; s == ORR_OK && a < 3; a++) {
        s = wut_number(p, "cell", &p->tok[1 + a], &d[a]);
        if (s == ORR_OK && !(d[a] > 0))
            s = wut_bad(p, "cell", "%g must be > 0 (metres)", d[a]);
    }
    return s;
}

static orr_status st_courant(wut_parser *p)
{
    double *S = &wu_of(p)->courant;
    orr_status s = wut_arity(p, 1);
    if (s == ORR_OK)
        s = wut_number(p, "courant", &p->tok[1], S);
    if (s == ORR_OK && *S > 1)
        s = wut_bad(p, "courant", "%g is above the stability limit 1", *S);
    if (s == ORR_OK && !(*S > 0))
        s = wut_bad(p, "courant", "%g must be > 0", *S);
    return s;
}

static orr_status st_steps(wut_parser *p)
{
    orr_status s = wut_arity(p, 1);
    return s == ORR_OK ? wut_whole(p, "steps", &p->tok[1], 1, FDTD_MAX_STEPS, &wu_of(p)->steps) : s;
}

/* The CPML's keys; boundary checks they come only with cpml. */
static orr_status cpml_keys(wut_parser *p, const wut_token *f, fdtd_cpml *c)
{
    orr_status s = ORR_OK;
    if (f[0].s)
        s = wut_whole_int(p, wut_keyof(p, "thickness"), &f[0], 1, FDTD_MAX_N, &c->thickness);
    if (s == ORR_OK && f[1].s &&
        (s = wut_number(p, wut_keyof(p, "order"), &f[1], &c->order)) == ORR_OK &&
        !(c->order >= 0 && c->order <= 20))
        s = wut_bad(p, p->key, "%g is outside 0..20", c->order);
    if (s == ORR_OK && f[2].s &&
        (s = wut_number(p, wut_keyof(p, "reflection"), &f[2], &c->reflection)) == ORR_OK &&
        !(c->reflection > 0 && c->reflection < 1))
        s = wut_bad(p, p->key, "%g must be > 0 and < 1", c->reflection);
    if (s == ORR_OK && f[3].s &&
        (s = wut_number(p, wut_keyof(p, "alpha"), &f[3], &c->alpha)) == ORR_OK && !(c->alpha >= 0))
        s = wut_bad(p, p->key, "%g must be >= 0 (S/m)", c->alpha);
    return s;
}

static orr_status st_boundary(wut_parser *p)
{
    static const char *const kinds[] = {"thesis", "pec", "cpml"};
    static const char *const keys[] = {"thickness", "order", "reflection", "alpha"};
    wut_token f[4];
    int kind;
    if (p->n < 2)
        return wut_bad(p, "boundary", "expected thesis, pec or cpml");
    orr_status s = wut_choice(p, "boundary", &p->tok[1], kinds, 3, &kind);
    if (s == ORR_OK)
        s = wut_fields(p, 2, keys, 4, f);
    if (s != ORR_OK)
        return s;
    wu_of(p)->boundary = (fdtd_boundary)kind;
    for (int k = 0; k < 4; k++)
        if (f[k].s && kind != FDTD_CPML)
            return wut_bad(p, wut_keyof(p, keys[k]), "only with cpml (this boundary is %s)",
                           kinds[kind]);
    return cpml_keys(p, f, &wu_of(p)->cpml);
}

enum { S_WAVEFORM, S_COMPONENT, S_AT, S_AMPLITUDE, S_DELAY, S_WIDTH, S_RELEASE, N_SOURCE_KEYS };
static const char *const source_keys[N_SOURCE_KEYS] = {
    "waveform", "component", "at", "amplitude", "delay", "width", "release_after"};

static orr_status source_component(wut_parser *p, const wut_token *t, fdtd_field *field)
{
    int f = wut_word_of(t, field_names, FDTD_N_FIELDS);
    if (f >= FDTD_HX)
        return wut_bad(p, wut_keyof(p, "component"), "%s: hard sources are E only (ex, ey or ez)",
                       field_names[f]);
    orr_status s = wut_choice(p, wut_keyof(p, "component"), t, field_names, 3, &f);
    if (s == ORR_OK)
        *field = (fdtd_field)f;
    return s;
}

/* The pulse's shape: width for gauss and dgauss (delay 4 widths unless
 * given), neither for a table. */
static orr_status source_pulse(wut_parser *p, const wut_token *f, fdtd_source *src)
{
    static const char *const wave[] = {"gauss", "dgauss", "table"};
    orr_status s;
    if (src->waveform == FDTD_TABLE) {
        for (int k = S_DELAY; k <= S_WIDTH; k++)
            if (f[k].s)
                return wut_bad(p, wut_keyof(p, source_keys[k]), "not allowed with waveform=table");
        return ORR_OK;
    }
    if (!f[S_WIDTH].s)
        return wut_bad(p, wut_keyof(p, "width"), "missing (required with waveform=%s)",
                       wave[src->waveform]);
    if ((s = wut_number(p, wut_keyof(p, "width"), &f[S_WIDTH], &src->width)) != ORR_OK)
        return s;
    if (!(src->width > 0))
        return wut_bad(p, p->key, "%g must be > 0 (steps)", src->width);
    src->delay = 4 * src->width;
    return f[S_DELAY].s ? wut_number(p, wut_keyof(p, "delay"), &f[S_DELAY], &src->delay) : ORR_OK;
}

static orr_status st_source(wut_parser *p)
{
    static const char *const wave[] = {"gauss", "dgauss", "table"};
    fdtd_source *src = &wu_of(p)->source;
    wut_token f[N_SOURCE_KEYS];
    int w;
    orr_status s = wut_fields(p, 1, source_keys, N_SOURCE_KEYS, f);
    if (s == ORR_OK && (s = wut_need(p, "waveform", &f[S_WAVEFORM])) == ORR_OK &&
        (s = wut_choice(p, wut_keyof(p, "waveform"), &f[S_WAVEFORM], wave, 3, &w)) == ORR_OK)
        src->waveform = (fdtd_waveform)w;
    if (s == ORR_OK && f[S_COMPONENT].s)
        s = source_component(p, &f[S_COMPONENT], &src->field);
    if (s == ORR_OK && (fd(p)->at_given = f[S_AT].s != NULL))
        s = indices(p, wut_keyof(p, "at"), &f[S_AT], src->at);
    if (s == ORR_OK && f[S_AMPLITUDE].s)
        s = wut_number(p, wut_keyof(p, "amplitude"), &f[S_AMPLITUDE], &src->amplitude);
    if (s == ORR_OK)
        s = source_pulse(p, f, src);
    if (s == ORR_OK && (fd(p)->release_given = f[S_RELEASE].s != NULL))
        s = wut_whole(p, wut_keyof(p, "release_after"), &f[S_RELEASE], 0, FDTD_MAX_STEPS,
                      &src->release_after);
    return s;
}

/* J(1), J(2), ... continued over any number of lines. */
static orr_status st_table(wut_parser *p)
{
    fdtd_source *src = &wu_of(p)->source;
    if (p->n < 2)
        return wut_bad(p, "table", "expected at least one value");
    if (src->n_table + p->n - 1 > FDTD_MAX_TABLE)
        return wut_bad(p, "table", "more than %d values", FDTD_MAX_TABLE);
    if (!fd(p)->table_line)
        fd(p)->table_line = p->line;
    for (int i = 1; i < p->n; i++) {
        double v;
        orr_status s = wut_number(p, "table", &p->tok[i], &v);
        if (s == ORR_OK)
            s = wut_grow(p, (void **)&src->table, sizeof *src->table, src->n_table);
        if (s != ORR_OK)
            return s;
        src->table[src->n_table++] = v;
    }
    return ORR_OK;
}

static orr_status st_probe(wut_parser *p)
{
    fdtd_workunit *wu = wu_of(p);
    fdtd_probe pr = {.line = p->line};
    int f = 0;
    orr_status s = wut_arity(p, 4);
    if (s == ORR_OK && wu->n_probes == FDTD_MAX_PROBES)
        s = wut_bad(p, "probe", "more than %d probes", FDTD_MAX_PROBES);
    if (s == ORR_OK)
        s = wut_choice(p, "probe", &p->tok[1], field_names, FDTD_N_FIELDS, &f);
    pr.field = (fdtd_field)f;
    for (int a = 0; s == ORR_OK && a < 3; a++)
        s = wut_whole_int(p, "probe", &p->tok[2 + a], 0, FDTD_MAX_N + 1, &pr.at[a]);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&wu->probes, sizeof *wu->probes, wu->n_probes);
    if (s == ORR_OK)
        wu->probes[wu->n_probes++] = pr;
    return s;
}

static orr_status st_energy(wut_parser *p)
{
    static const char *const keys[] = {"every"};
    wut_token f[1];
    orr_status s = wut_fields(p, 1, keys, 1, f);
    if (s == ORR_OK)
        s = wut_need(p, "every", &f[0]);
    if (s == ORR_OK)
        s = wut_whole(p, wut_keyof(p, "every"), &f[0], 1, FDTD_MAX_STEPS, &wu_of(p)->energy_every);
    return s;
}

static orr_status st_arithmetic(wut_parser *p)
{
    static const char *const words[] = {"faithful", "fast"};
    int v;
    orr_status s = wut_arity(p, 1);
    if (s == ORR_OK && (s = wut_choice(p, "arithmetic", &p->tok[1], words, 2, &v)) == ORR_OK)
        wu_of(p)->arithmetic = (fdtd_arithmetic)v;
    return s;
}

static orr_status st_precision(wut_parser *p)
{
    static const char *const words[] = {"double", "single"};
    int v;
    orr_status s = wut_arity(p, 1);
    if (s == ORR_OK && (s = wut_choice(p, "precision", &p->tok[1], words, 2, &v)) == ORR_OK)
        wu_of(p)->precision = (fdtd_precision)v;
    return s;
}

static int material_index(const fdtd_workunit *wu, const char *name)
{
    for (int i = 0; i < wu->n_materials; i++)
        if (strcmp(wu->materials[i].name, name) == 0)
            return i;
    return -1;
}

static orr_status material_name(wut_parser *p, char name[WUT_TEXT_LEN])
{
    if (p->n < 2)
        return wut_bad(p, "material", "expected a name");
    wut_tok_text(&p->tok[1], name);
    if (!wut_valid_name(&p->tok[1], FDTD_NAME_LEN))
        return wut_bad(p, "material", "'%s' is not a name (" WUT_NAME_RULE ")", name,
                       FDTD_NAME_LEN - 1);
    if (strcmp(name, "vacuum") == 0)
        return wut_bad(p, "material", "'vacuum' is reserved (the background)");
    if (material_index(wu_of(p), name) >= 0)
        return wut_bad(p, "material", "'%s' defined twice", name);
    if (wu_of(p)->n_materials == FDTD_MAX_MATERIALS)
        return wut_bad(p, "material", "more than %d materials", FDTD_MAX_MATERIALS);
    return ORR_OK;
}

static orr_status st_material(wut_parser *p)
{
    static const char *const keys[] = {"eps_r", "sigma"};
    fdtd_workunit *wu = wu_of(p);
    fdtd_material m = {.line = p->line};
    char name[WUT_TEXT_LEN];
    wut_token f[2];
    orr_status s = material_name(p, name);
    if (s == ORR_OK && (s = wut_fields(p, 2, keys, 2, f)) == ORR_OK &&
        (s = wut_need(p, "eps_r", &f[0])) == ORR_OK &&
        (s = wut_number(p, wut_keyof(p, "eps_r"), &f[0], &m.eps_r)) == ORR_OK && !(m.eps_r > 0))
        s = wut_bad(p, p->key, "%g must be > 0", m.eps_r);
    if (s == ORR_OK && f[1].s &&
        (s = wut_number(p, wut_keyof(p, "sigma"), &f[1], &m.sigma)) == ORR_OK && !(m.sigma >= 0))
        s = wut_bad(p, p->key, "%g must be >= 0 (S/m)", m.sigma);
    if (s == ORR_OK)
        s = wut_grow(p, (void **)&wu->materials, sizeof *wu->materials, wu->n_materials);
    if (s != ORR_OK)
        return s;
    strcpy(m.name, name);
    wu->materials[wu->n_materials++] = m;
    return ORR_OK;
}

/* A region's material: defined above, or vacuum (-1). */
static orr_status region_material(wut_parser *p, const wut_token *t, int *m)
{
    char name[WUT_TEXT_LEN];
    wut_tok_text(t, name);
    if (wut_tok_is(t, "vacuum")) {
        *m = -1;
        return ORR_OK;
    }
    if (t->n < FDTD_NAME_LEN && (*m = material_index(wu_of(p), name)) >= 0)
        return ORR_OK;
    return wut_bad(p, wut_keyof(p, "material"), "'%s' is not a material defined above (a region "
                   "names a `material` given on an earlier line, or vacuum)", name);
}

static orr_status add_region(wut_parser *p, const fdtd_region *r)
{
    fdtd_workunit *wu = wu_of(p);
    if (wu->n_regions == FDTD_MAX_REGIONS)
        return wut_bad(p, p->stmt, "more than %d regions (boxes and spheres)", FDTD_MAX_REGIONS);
    orr_status s = wut_grow(p, (void **)&wu->regions, sizeof *wu->regions, wu->n_regions);
    if (s == ORR_OK)
        wu->regions[wu->n_regions++] = *r;
    return s;
}

static orr_status st_box(wut_parser *p)
{
    static const char *const keys[] = {"material", "from", "to"};
    fdtd_region r = {.kind = FDTD_BOX, .line = p->line};
    wut_token f[3];
    orr_status s = wut_fields(p, 1, keys, 3, f);
    for (int k = 0; s == ORR_OK && k < 3; k++)
        s = wut_need(p, keys[k], &f[k]);
    if (s == ORR_OK && (s = region_material(p, &f[0], &r.material)) == ORR_OK &&
        (s = triple(p, wut_keyof(p, "from"), &f[1], r.lo)) == ORR_OK)
        s = triple(p, wut_keyof(p, "to"), &f[2], r.hi);
    for (int a = 0; s == ORR_OK && a < 3; a++)
        if (r.hi[a] < r.lo[a])
            s = wut_bad(p, wut_keyof(p, "to"), "%c = %g is below from's %g", "xyz"[a], r.hi[a],
                        r.lo[a]);
    return s == ORR_OK ? add_region(p, &r) : s;
}

static orr_status st_sphere(wut_parser *p)
{
    static const char *const keys[] = {"material", "centre", "radius"};
    fdtd_region r = {.kind = FDTD_SPHERE, .line = p->line};
    wut_token f[3];
    orr_status s = wut_fields(p, 1, keys, 3, f);
    for (int k = 0; s == ORR_OK && k < 3; k++)
        s = wut_need(p, keys[k], &f[k]);
    if (s == ORR_OK && (s = region_material(p, &f[0], &r.material)) == ORR_OK &&
        (s = triple(p, wut_keyof(p, "centre"), &f[1], r.centre)) == ORR_OK &&
        (s = wut_number(p, wut_keyof(p, "radius"), &f[2], &r.radius)) == ORR_OK && !(r.radius > 0))
        s = wut_bad(p, p->key, "%g must be > 0 (metres)", r.radius);
    return s == ORR_OK ? add_region(p, &r) : s;
}

static orr_status st_snapshot(wut_parser *p)
{
    static const char *const keys[] = {"field", "every"};
    fdtd_workunit *wu = wu_of(p);
    wut_token f[2];
    int v;
    orr_status s = wut_fields(p, 1, keys, 2, f);
    if (s == ORR_OK && (s = wut_need(p, "field", &f[0])) == ORR_OK &&
        (s = wut_choice(p, wut_keyof(p, "field"), &f[0], field_names, FDTD_N_FIELDS, &v)) == ORR_OK)
        wu->snapshot_field = (fdtd_field)v;
    wu->snapshot_every = 1;
    if (s == ORR_OK && f[1].s)
        s = wut_whole_int(p, wut_keyof(p, "every"), &f[1], 1, FDTD_MAX_N, &wu->snapshot_every);
    wu->snapshot = s == ORR_OK;
    return s;
}

/* once: ONCE_*, or -1: any number */
static const wut_statement statements[] = {
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

static const wut_format format = {.kind = "fdtd", .version = 1, .statements = statements,
                                  .n_statements = ORR_ARRAY_LEN(statements)};

/* ---- the whole file ---- */

static orr_status missing(wut_parser *p)
{
    static const struct { int which; const char *key; } required[] = {
        {ONCE_GRID, "grid"}, {ONCE_CELL, "cell"}, {ONCE_STEPS, "steps"}, {ONCE_SOURCE, "source"}};
    for (size_t i = 0; i < ORR_ARRAY_LEN(required); i++)
        if (!p->seen_line[required[i].which])
            return wut_bad_at(p, p->last_line, required[i].key, "missing (a required statement)");
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

static orr_status check_source(wut_parser *p)
{
    static const char *const bnames[] = {"thesis", "pec", "cpml"};
    fdtd_workunit *wu = wu_of(p);
    fdtd_source *src = &wu->source;
    const int line = p->seen_line[ONCE_SOURCE], at_given = fd(p)->at_given;
    if (!at_given)
        for (int a = 0; a < 3; a++)
            src->at[a] = wu->n[a] / 2;
    for (int a = 0; a < 3; a++)
        if (src->at[a] < 1 || src->at[a] > live_hi(wu, src->field, a))
            return wut_bad_at(p, line, "source at", "(%d,%d,%d)%s is not a live %s cell of the "
                              "%s boundary (%d..%d, %d..%d, %d..%d)", src->at[0], src->at[1],
                              src->at[2], at_given ? "" : " (the default)", field_names[src->field],
                              bnames[wu->boundary], 1, live_hi(wu, src->field, 0), 1,
                              live_hi(wu, src->field, 1), 1, live_hi(wu, src->field, 2));
    if (!fd(p)->release_given)
        src->release_after = wu->steps;
    if (src->release_after > wu->steps)
        return wut_bad_at(p, line, "source release_after", "%ld is above steps (%ld)",
                          src->release_after, wu->steps);
    if (src->waveform == FDTD_TABLE && src->n_table == 0)
        return wut_bad_at(p, line, "source waveform", "waveform=table needs the values on "
                          "`table` lines");
    if (src->waveform != FDTD_TABLE && fd(p)->table_line)
        return wut_bad_at(p, fd(p)->table_line, "table", "only with the source's waveform=table");
    return ORR_OK;
}

/* The CPML's two slabs and a live cell between them fit on every axis. */
static orr_status check_cpml(wut_parser *p)
{
    const fdtd_workunit *wu = wu_of(p);
    const int t = wu->cpml.thickness;
    if (wu->boundary != FDTD_CPML)
        return ORR_OK;
    for (int a = 0; a < 3; a++)
        if (2 * t + 1 > wu->n[a])
            return wut_bad_at(p, p->seen_line[ONCE_BOUNDARY], "boundary thickness",
                              "2*%d+1 = %d cells do not fit along %c (n%c = %d)", t, 2 * t + 1,
                              "xyz"[a], "xyz"[a], wu->n[a]);
    return ORR_OK;
}

static orr_status check_probes(wut_parser *p)
{
    const fdtd_workunit *wu = wu_of(p);
    for (int i = 0; i < wu->n_probes; i++)
        for (int a = 0; a < 3; a++)
            if (wu->probes[i].at[a] > wu->n[a] + 1)
                return wut_bad_at(p, wu->probes[i].line, "probe", "%c index %d is outside 0..%d",
                                  "ijk"[a], wu->probes[i].at[a], wu->n[a] + 1);
    return ORR_OK;
}

/* The time step the cells give (setup.c's formula) must be a number: cell
 * sizes near the double range make 1/d^2 overflow (dt 0) or underflow
 * (dt infinite), and the run would report nothing but NaN. */
static orr_status check_time_step(wut_parser *p)
{
    const double *d = wu_of(p)->d;
    const double dt = wu_of(p)->courant / (FDTD_C0 * sqrt(1 / (d[0] * d[0]) + 1 / (d[1] * d[1]) +
                                                           1 / (d[2] * d[2])));
    if (isfinite(dt) && dt > 0 && isfinite(dt / FDTD_EPS0) && isfinite(dt / FDTD_MU0))
        return ORR_OK;
    return wut_bad_at(p, p->seen_line[ONCE_CELL], "cell", "%s", "these sizes give no finite time "
                      "step (dt = S / (c0 sqrt(1/dx^2 + 1/dy^2 + 1/dz^2)))");
}

/* The source's peak |J|: the amplitude times the waveform's largest
 * magnitude (gauss 1, dgauss sqrt(2/e), a table its largest value). */
static double source_peak(const fdtd_source *src)
{
    double peak = src->waveform == FDTD_GAUSS    ? 1
                  : src->waveform == FDTD_DGAUSS ? 0.857763884960707
                                                 : 0;
    for (long i = 0; src->waveform == FDTD_TABLE && i < src->n_table; i++)
        peak = fmax(peak, fabs(src->table[i]));
    return fabs(src->amplitude) * peak;
}

/* Results whose squares or energies cannot be finite are refused here
 * (fdtd.h, FDTD_MAX_PEAK_*): the fields scale with the source's peak. */
static orr_status check_field_scale(wut_parser *p)
{
    const fdtd_workunit *wu = wu_of(p);
    const int line = p->seen_line[ONCE_SOURCE];
    const int single = wu->precision == FDTD_SINGLE;
    const double peak = source_peak(&wu->source);
    const double most = single ? FDTD_MAX_PEAK_SINGLE : FDTD_MAX_PEAK_DOUBLE;
    if (!(peak <= most))
        return wut_bad_at(p, line, "source amplitude", "the peak field %g V/m (|amplitude| times "
                          "the waveform's peak%s) is above %g, the most %s precision carries "
                          "with room for the norms' squares", peak,
                          wu->source.waveform == FDTD_TABLE ? ", the table's largest value" : "",
                          most, single ? "single" : "double");
    double eps_max = 1;
    for (int m = 0; m < wu->n_materials; m++)
        eps_max = fmax(eps_max, wu->materials[m].eps_r);
    const double cells = (wu->n[0] + 2.0) * (wu->n[1] + 2.0) * (wu->n[2] + 2.0);
    const double scale = FDTD_EPS0 * eps_max * peak * peak * wu->d[0] * wu->d[1] * wu->d[2] * cells;
    if (!(scale <= FDTD_MAX_ENERGY_SCALE))
        return wut_bad_at(p, line, "source amplitude", "the peak field %g V/m in %g cells of %g "
                          "m^3 (line %d), eps_r up to %g, gives energies near %g J: above %g, "
                          "too near the double range", peak, cells,
                          wu->d[0] * wu->d[1] * wu->d[2], p->seen_line[ONCE_CELL], eps_max, scale,
                          FDTD_MAX_ENERGY_SCALE);
    return ORR_OK;
}

static orr_status check_whole(wut_parser *p)
{
    const fdtd_workunit *wu = wu_of(p);
    orr_status s = missing(p);
    if (s == ORR_OK)
        s = check_time_step(p);
    if (s == ORR_OK)
        s = check_source(p);
    if (s == ORR_OK)
        s = check_field_scale(p);
    if (s == ORR_OK)
        s = check_cpml(p);
    if (s == ORR_OK)
        s = check_probes(p);
    if (s == ORR_OK && wu->energy_every > wu->steps)
        s = wut_bad_at(p, p->seen_line[ONCE_ENERGY], "energy every", "%ld is above steps (%ld)",
                       wu->energy_every, wu->steps);
    return s;
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
    if (s != ORR_OK)
        fdtd_workunit_free(wu);
    return s;
}

orr_status fdtd_workunit_load(const char *path, fdtd_workunit *wu, orr_error *err)
{
    orr_buffer buf;
    memset(wu, 0, sizeof *wu);
    orr_status s = wut_read(&format, path, &buf, err);
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
