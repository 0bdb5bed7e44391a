/* Astronomy parameter files (legacy `name: value` text, classic and v146
 * layouts) -> sep_params, and search-parameter vectors -> bundle members.
 * The upstream reader matched literal text with fscanf and silently misread
 * files; this one walks the keys in order, accepts both layouts and names the
 * file, line and key of anything it cannot account for. */
#include "separation.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../io/io.h"

#define PARAMS_MAX_BYTES (1u << 20)  /* real files are ~2 KB */
#define MAX_VALUES 16

typedef struct {
    int line;
    char name[64];        /* key up to the first '[' */
    char dims[64];        /* bracket text after the name, e.g. "[4]" */
    int n;                /* values parsed, or -1 - i when field i is bad */
    double v[MAX_VALUES];
    char raw[96];         /* value text, for messages */
} key_line;

typedef struct {
    const char *path;
    key_line *lines;
    int count, pos;
    int last_line;
    orr_error *err;
} cursor;

const char *sep_model_name(sep_model m)
{
    switch (m) {
    case SEP_MODEL_CLASSIC: return "classic";
    case SEP_MODEL_V146: return "v146";
    default: return "auto";
    }
}

static orr_status split_lines(const char *path, const char *text, size_t len, cursor *c,
                              orr_error *err)
{
    orr_buffer buf = {(char *)text, len};
    orr_lines it;
    const char *s;
    size_t n;
    int cap = 0;

    orr_lines_init(&it, path, &buf);
    c->lines = NULL;
    c->count = 0;
    while (orr_lines_next(&it, &s, &n)) {
        size_t i = 0;
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i == n)
            continue;  /* blank lines carry nothing */
        const char *colon = memchr(s, ':', n);
        if (!colon)
            return orr_fail(err, ORR_ERR_PARSE, "%s:%d: expected 'name: value', found '%.40s'",
                            path, it.line, s + i);
        if (c->count == cap) {
            cap = cap ? cap * 2 : 64;
            if (cap > 4096)
                return orr_fail(err, ORR_ERR_PARSE, "%s:%d: too many lines for a parameter file",
                                path, it.line);
            key_line *nl = realloc(c->lines, (size_t)cap * sizeof *nl);
            if (!nl)
                return orr_fail(err, ORR_ERR_NOMEM, "%s: out of memory", path);
            c->lines = nl;
        }
        key_line *k = &c->lines[c->count++];
        memset(k, 0, sizeof *k);
        k->line = it.line;
        size_t keylen = (size_t)(colon - (s + i));
        while (keylen && isspace((unsigned char)s[i + keylen - 1]))
            keylen--;
        const char *key = s + i;
        const char *br = memchr(key, '[', keylen);
        size_t namelen = br ? (size_t)(br - key) : keylen;
        if (namelen == 0 || namelen >= sizeof k->name || keylen - namelen >= sizeof k->dims)
            return orr_fail(err, ORR_ERR_PARSE, "%s:%d: malformed key '%.*s'", path, it.line,
                            (int)(keylen > 40 ? 40 : keylen), key);
        memcpy(k->name, key, namelen);
        memcpy(k->dims, key + namelen, keylen - namelen);
        const char *val = colon + 1;
        size_t vlen = n - (size_t)(val - s);
        snprintf(k->raw, sizeof k->raw, "%.*s", (int)(vlen > 80 ? 80 : vlen), val);
        k->n = orr_parse_double_list(val, vlen, k->v, MAX_VALUES);
        c->last_line = it.line;
    }
    return ORR_OK;
}

static int peek_is(const cursor *c, const char *name)
{
    return c->pos < c->count && strcmp(c->lines[c->pos].name, name) == 0;
}

/* Take the next line, which must be `name` with exactly `count` numbers.
 * out is zeroed first, so that no caller reads an unset value whatever
 * happens. */
static orr_status take(cursor *c, const char *name, int count, double *out)
{
    for (int i = 0; i < count; i++)
        out[i] = 0.0;
    if (c->pos >= c->count)
        return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: file ends here, but key '%s' is missing",
                        c->path, c->last_line, name);
    key_line *k = &c->lines[c->pos];
    if (strcmp(k->name, name) != 0)
        return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: expected key '%s', found '%s'", c->path,
                        k->line, name, k->name);
    if (k->n < 0) {
        if (k->n == -1 - MAX_VALUES)
            return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: key '%s': too many values", c->path,
                            k->line, name);
        return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: key '%s': value %d is not a number in '%s'",
                        c->path, k->line, name, -k->n, k->raw);
    }
    if (k->n != count)
        return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: key '%s': expected %d value%s, found %d",
                        c->path, k->line, name, count, count == 1 ? "" : "s", k->n);
    /* A dimension in brackets, like [4], must agree with the values. */
    if (k->dims[0] == '[' && isdigit((unsigned char)k->dims[1])) {
        long d = strtol(k->dims + 1, NULL, 10);
        if (d != count)
            return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: key '%s%s' declares %ld values, expected %d",
                            c->path, k->line, name, k->dims, d, count);
    }
    for (int i = 0; i < count; i++) {
        if (!isfinite(k->v[i]))
            return orr_fail(c->err, ORR_ERR_INPUT, "%s:%d: key '%s': value %d is not finite (%s)",
                            c->path, k->line, name, i + 1, k->raw);
        out[i] = k->v[i];
    }
    c->pos++;
    return ORR_OK;
}

static orr_status take_int(cursor *c, const char *name, long lo, long hi, int *out)
{
    double v;
    int line = c->pos < c->count ? c->lines[c->pos].line : c->last_line;
    orr_status s = take(c, name, 1, &v);
    if (s != ORR_OK)
        return s;
    if (v != floor(v) || v < (double)lo || v > (double)hi)
        return orr_fail(c->err, ORR_ERR_INPUT, "%s:%d: key '%s': expected a whole number in [%ld, %ld], found %g",
                        c->path, line, name, lo, hi, v);
    *out = (int)v;
    return ORR_OK;
}

static orr_status take_flags(cursor *c, const char *name, int count, int *out)
{
    double v[MAX_VALUES];
    int line = c->pos < c->count ? c->lines[c->pos].line : c->last_line;
    orr_status s = take(c, name, count, v);
    if (s != ORR_OK)
        return s;
    for (int i = 0; i < count; i++) {
        if (v[i] != 0.0 && v[i] != 1.0)
            return orr_fail(c->err, ORR_ERR_INPUT, "%s:%d: key '%s': flag %d must be 0 or 1, found %g",
                            c->path, line, name, i + 1, v[i]);
        out[i] = (int)v[i];
    }
    return ORR_OK;
}

static orr_status take_axis(cursor *c, const char *name, sep_axis *a)
{
    double v[3];
    int line = c->pos < c->count ? c->lines[c->pos].line : c->last_line;
    orr_status s = take(c, name, 3, v);
    if (s != ORR_OK)
        return s;
    if (v[2] != floor(v[2]) || v[2] < 2 || v[2] > 1e7 || ((long)v[2]) % 2 != 0)
        return orr_fail(c->err, ORR_ERR_INPUT,
                        "%s:%d: key '%s': the step count must be an even whole number from 2 to 10000000, found %g",
                        c->path, line, name, v[2]);
    if (!(v[1] > v[0]))
        return orr_fail(c->err, ORR_ERR_INPUT, "%s:%d: key '%s': max (%g) must be greater than min (%g)",
                        c->path, line, name, v[1], v[0]);
    a->min = v[0];
    a->max = v[1];
    a->steps = (int)v[2];
    return ORR_OK;
}

/* The take_* steps return at the first failure; sep_params_parse frees the
 * cursor's lines whatever they return. */
#define TRY(expr)                      \
    do {                               \
        orr_status s_ = (expr);        \
        if (s_ != ORR_OK)              \
            return s_;                 \
    } while (0)

/* parameters_version (optional), number_parameters and the background
 * weight; v146 files give the weight a range, which tells the layouts apart. */
static orr_status take_header(cursor *c, sep_params *p)
{
    if (peek_is(c, "parameters_version")) {
        TRY(take(c, "parameters_version", 1, &p->parameters_version));
        p->has_version = 1;
    }
    int number_parameters;
    TRY(take_int(c, "number_parameters", 0, 100, &number_parameters));
    if (number_parameters != 4 && number_parameters != 7)
        return orr_fail(c->err, ORR_ERR_INPUT,
                        "%s:%d: key 'number_parameters': expected 4 (alpha, q, r0, delta) or 7 (with the aux terms a, b, c), found %d",
                        c->path, c->lines[c->pos - 1].line, number_parameters);
    p->n_bg_params = number_parameters;
    TRY(take(c, "background_weight", 1, &p->background_weight));
    if (peek_is(c, "background_weight_step")) {
        p->has_bg_weight_range = 1;
        TRY(take(c, "background_weight_step", 1, &p->bg_weight_step));
        TRY(take(c, "background_weight_min", 1, &p->bg_weight_min));
        TRY(take(c, "background_weight_max", 1, &p->bg_weight_max));
        TRY(take_flags(c, "optimize_background_weight", 1, &p->optimize_background_weight));
    }
    p->file_model = p->has_bg_weight_range ? SEP_MODEL_V146 : SEP_MODEL_CLASSIC;
    return ORR_OK;
}

/* The background's parameters; their steps and bounds are the optimizer's,
 * checked and dropped. */
static orr_status take_background(cursor *c, sep_params *p)
{
    double v[MAX_VALUES];
    TRY(take(c, "background_parameters", p->n_bg_params, p->bg));
    TRY(take(c, "background_step", p->n_bg_params, v));
    TRY(take(c, "background_min", p->n_bg_params, v));
    TRY(take(c, "background_max", p->n_bg_params, v));
    return take_flags(c, "optimize_parameter", p->n_bg_params, p->bg_optimize);
}

/* One stream's block; steps and bounds dropped as for the background. */
static orr_status take_stream(cursor *c, sep_stream *st)
{
    double v[MAX_VALUES];
    TRY(take(c, "stream_weight", 1, &st->weight));
    TRY(take(c, "stream_weight_step", 1, v));
    TRY(take(c, "stream_weight_min", 1, v));
    TRY(take(c, "stream_weight_max", 1, v));
    TRY(take_flags(c, "optimize_weight", 1, &st->optimize_weight));
    TRY(take(c, "stream_parameters", 5, v));
    st->mu = v[0];
    st->r = v[1];
    st->theta = v[2];
    st->phi = v[3];
    st->sigma = v[4];
    TRY(take(c, "stream_step", 5, v));
    TRY(take(c, "stream_min", 5, v));
    TRY(take(c, "stream_max", 5, v));
    return take_flags(c, "optimize_parameter", 5, st->optimize);
}

static orr_status take_streams(cursor *c, sep_params *p)
{
    double v[MAX_VALUES];
    TRY(take(c, "number_streams", 2, v));
    if (v[0] != floor(v[0]) || v[0] < 1 || v[0] > SEP_MAX_STREAMS || v[1] != 5)
        return orr_fail(c->err, ORR_ERR_INPUT,
                        "%s:%d: key 'number_streams': expected 'N, 5' with N from 1 to %d, found %g, %g",
                        c->path, c->lines[c->pos - 1].line, SEP_MAX_STREAMS, v[0], v[1]);
    p->n_streams = (int)v[0];
    for (int i = 0; i < p->n_streams; i++)
        TRY(take_stream(c, &p->streams[i]));
    return ORR_OK;
}

/* The integration settings; aux_bg_profile is required above
 * parameters_version 0.01 and optional before. */
static orr_status take_settings(cursor *c, sep_params *p)
{
    TRY(take_int(c, "convolve", 0, 1 << 20, &p->convolve));
    TRY(take_int(c, "sgr_coordinates", -1000, 1000, &p->sgr_coordinates));
    if (peek_is(c, "aux_bg_profile") || (p->has_version && p->parameters_version > 0.01))
        TRY(take_int(c, "aux_bg_profile", 0, 1, &p->aux_bg_profile));
    return take_int(c, "wedge", -1000, 1000, &p->wedge);
}

/* An area's chunks are numbered with int (separation.h): a grid whose
 * chunk count, taken in 64 bits, exceeds SEP_MAX_AREA_CHUNKS is refused
 * here rather than overflowing later into a silent zero integral. */
static orr_status check_area_chunks(orr_error *err, const char *where, int area, const sep_area *a)
{
    const int64_t chunks = sep_grid_chunks(a->mu.steps, a->nu.steps);
    if (chunks > SEP_MAX_AREA_CHUNKS)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%sarea %d: %d mu x %d nu steps make %lld chunks of %d mu columns; at most %d",
                        where, area, a->mu.steps, a->nu.steps, (long long)chunks, SEP_CHUNK_MU,
                        SEP_MAX_AREA_CHUNKS);
    return ORR_OK;
}

/* One area's three axes (keys r, mu, nu with the suffix), then its size. */
static orr_status take_area(cursor *c, const char *suffix, int index, sep_area *a)
{
    char key[3][16], where[600];
    snprintf(key[0], sizeof key[0], "r%s", suffix);
    snprintf(key[1], sizeof key[1], "mu%s", suffix);
    snprintf(key[2], sizeof key[2], "nu%s", suffix);
    TRY(take_axis(c, key[0], &a->r));
    TRY(take_axis(c, key[1], &a->mu));
    TRY(take_axis(c, key[2], &a->nu));
    snprintf(where, sizeof where, "%s:%d: key '%s': ", c->path, c->lines[c->pos - 1].line,
             key[2]);
    return check_area_chunks(c->err, where, index, a);
}

/* The integration area, then its cuts (the same axes, named r_cut ...). */
static orr_status take_areas(cursor *c, sep_params *p)
{
    TRY(take_area(c, "", 0, &p->areas[0]));
    int cuts;
    TRY(take_int(c, "number_cuts", 0, SEP_MAX_AREAS - 1, &cuts));
    for (int i = 1; i <= cuts; i++)
        TRY(take_area(c, "_cut", i, &p->areas[i]));
    p->n_areas = 1 + cuts;
    return ORR_OK;
}

#undef TRY

static orr_status expect_end(const cursor *c)
{
    if (c->pos < c->count) {
        const key_line *k = &c->lines[c->pos];
        return orr_fail(c->err, ORR_ERR_PARSE, "%s:%d: unexpected key '%s' after the last cut",
                        c->path, k->line, k->name);
    }
    return ORR_OK;
}

orr_status sep_params_parse(const char *path, const char *text, size_t len, sep_params *p,
                            orr_error *err)
{
    cursor c = {path, NULL, 0, 0, 0, err};
    memset(p, 0, sizeof *p);

    orr_status s = split_lines(path, text, len, &c, err);
    if (s == ORR_OK && c.count == 0)
        s = orr_fail(err, ORR_ERR_PARSE, "%s: empty parameter file", path);
    if (s == ORR_OK)
        s = take_header(&c, p);
    if (s == ORR_OK)
        s = take_background(&c, p);
    if (s == ORR_OK)
        s = take_streams(&c, p);
    if (s == ORR_OK)
        s = take_settings(&c, p);
    if (s == ORR_OK)
        s = take_areas(&c, p);
    if (s == ORR_OK)
        s = expect_end(&c);
    free(c.lines);
    return s;
}

orr_status sep_params_load(const char *path, sep_params *out, orr_error *err)
{
    orr_buffer buf;
    orr_status s = orr_read_file(path, PARAMS_MAX_BYTES, 1, &buf, err);
    if (s != ORR_OK)
        return s;
    s = sep_params_parse(path, buf.data, buf.size, out, err);
    out->content_hash = orr_hash64(ORR_HASH64_INIT, buf.data, buf.size);
    orr_buffer_free(&buf);
    return s;
}

orr_status sep_params_validate(const sep_params *p, sep_model model, orr_error *err)
{
    if (p->convolve < 2 || p->convolve > SEP_MAX_CONVOLVE || p->convolve % 2 != 0)
        return orr_fail(err, ORR_ERR_INPUT, "convolve must be even, from 2 to %d (found %d)",
                        SEP_MAX_CONVOLVE, p->convolve);
    if (p->sgr_coordinates != 0)
        return orr_fail(err, ORR_ERR_UNSUPPORTED,
                        "sgr_coordinates = %d: Sagittarius coordinates are not supported (upstream never finished them)",
                        p->sgr_coordinates);
    if (p->bg[1] == 0.0)
        return orr_fail(err, ORR_ERR_INPUT, "background q = 0: the halo flattening must be non-zero");
    for (int i = 0; i < p->n_streams; i++)
        if (p->streams[i].sigma == 0.0)
            return orr_fail(err, ORR_ERR_INPUT, "stream %d: sigma = 0 (the stream width must be non-zero)",
                            i + 1);
    if (model == SEP_MODEL_V146 && !(p->background_weight >= 0.0 && p->background_weight <= 1.0))
        return orr_fail(err, ORR_ERR_INPUT, "background weight w_b = %g is outside [0, 1]",
                        p->background_weight);
    if (p->n_areas < 1 || p->n_areas > SEP_MAX_AREAS)
        return orr_fail(err, ORR_ERR_INPUT, "%d integration areas: expected 1 to %d", p->n_areas,
                        SEP_MAX_AREAS);
    /* Again for parameters that did not come through the parser; the
     * limits on the whole work unit are sep_work_unit_limits'. */
    for (int a = 0; a < p->n_areas; a++) {
        const sep_area *ar = &p->areas[a];
        if (ar->r.steps < 1 || ar->mu.steps < 1 || ar->nu.steps < 1)
            return orr_fail(err, ORR_ERR_INPUT, "area %d: step counts must be positive", a);
        orr_status s = check_area_chunks(err, "", a, ar);
        if (s != ORR_OK)
            return s;
    }
    return ORR_OK;
}

int sep_search_params_per_wu(const sep_params *p, sep_model model)
{
    if (model == SEP_MODEL_V146) {
        /* v146 counts the optimize flags set in the file. */
        int n = p->optimize_background_weight;
        for (int i = 0; i < p->n_bg_params; i++)
            n += p->bg_optimize[i];
        for (int s = 0; s < p->n_streams; s++) {
            n += p->streams[s].optimize_weight;
            for (int i = 0; i < 5; i++)
                n += p->streams[s].optimize[i];
        }
        return n;
    }
    return 2 + 6 * p->n_streams;
}

orr_status sep_search_bundle_size(const sep_params *p, sep_model model, int n, int *members,
                                  orr_error *err)
{
    int per_wu = sep_search_params_per_wu(p, model);
    int layout = 2 + 6 * p->n_streams;
    *members = 1;
    if (n == 0)
        return ORR_OK;
    if (model == SEP_MODEL_V146) {
        if (per_wu != layout)
            return orr_fail(err, ORR_ERR_INPUT,
                            "number of parameters doesn't match: the file sets %d optimize flags, but a v146 work unit with %d stream%s takes %d values (w_b, q and 6 per stream)",
                            per_wu, p->n_streams, p->n_streams == 1 ? "" : "s", layout);
        if (n % per_wu != 0 || n / per_wu > SEP_MAX_BUNDLE)
            return orr_fail(err, ORR_ERR_INPUT,
                            "number of parameters doesn't match: got %d, expected a multiple (up to %d) of %d (w_b, q and 6 per stream for %d stream%s)",
                            n, SEP_MAX_BUNDLE, per_wu, p->n_streams, p->n_streams == 1 ? "" : "s");
        *members = n / per_wu;
        return ORR_OK;
    }
    if (n != per_wu)
        return orr_fail(err, ORR_ERR_INPUT,
                        "number of parameters doesn't match: got %d, the classic model takes %d (q, r0 and 6 per stream for %d stream%s%s)",
                        n, per_wu, p->n_streams, p->n_streams == 1 ? "" : "s",
                        p->n_bg_params == 7 ? "; the aux terms a, b, c are not search parameters" : "");
    return ORR_OK;
}

orr_status sep_params_apply_search(const sep_params *file, sep_model model, const double *values,
                                   int n_values, int member, sep_params *out, orr_error *err)
{
    *out = *file;
    if (model == SEP_MODEL_V146)
        out->bg[2] = SEP_V146_R0;  /* v146 fixes the halo scale radius */
    if (n_values == 0)
        return ORR_OK;
    int per_wu = 2 + 6 * file->n_streams;
    if ((member + 1) * per_wu > n_values)
        return orr_fail(err, ORR_ERR_INTERNAL, "bundle member %d beyond the %d values given", member,
                        n_values);
    const double *v = values + member * per_wu;
    for (int i = 0; i < per_wu; i++)
        if (!isfinite(v[i]))
            return orr_fail(err, ORR_ERR_INPUT, "search parameter %d is not finite",
                            member * per_wu + i + 1);
    if (model == SEP_MODEL_V146) {
        out->background_weight = v[0];
        out->bg[1] = v[1];
    } else {
        out->bg[1] = v[0];
        out->bg[2] = v[1];
    }
    for (int s = 0; s < file->n_streams; s++) {
        const double *sv = v + 2 + 6 * s;
        sep_stream *st = &out->streams[s];
        st->weight = sv[0];
        st->mu = sv[1];
        st->r = sv[2];
        st->theta = sv[3];
        st->phi = sv[4];
        st->sigma = sv[5];
    }
    return ORR_OK;
}
