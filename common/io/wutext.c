/* The work-unit text shared by the statement-file kinds (wutext.h): the
 * line walk, the words, the first statement, the statement table, the
 * values and the messages. Nothing here knows a kind's statements. */
#include "wutext.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ---- */

orr_status wut_vbad(wut_parser *p, int line, const char *key, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return orr_fail(p->err, ORR_ERR_INPUT, "%s:%d: %s: %s", p->path, line, key, msg);
}

orr_status wut_bad(wut_parser *p, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orr_status s = wut_vbad(p, p->line, key, fmt, ap);
    va_end(ap);
    return s;
}

orr_status wut_bad_at(wut_parser *p, int line, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    orr_status s = wut_vbad(p, line, key, fmt, ap);
    va_end(ap);
    return s;
}

orr_status wut_no_memory(wut_parser *p)
{
    return orr_fail(p->err, ORR_ERR_NOMEM, "%s:%d: out of memory", p->path, p->line);
}

const char *wut_keyof(wut_parser *p, const char *field)
{
    snprintf(p->key, sizeof p->key, "%s %s", p->stmt, field);
    return p->key;
}

/* ---- tokens and values ---- */

int wut_tok_is(const wut_token *t, const char *word)
{
    return t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

const char *wut_tok_copy(const wut_token *t, char *out, size_t size)
{
    size_t n = t->n < size - 1 ? t->n : size - 1;
    memcpy(out, t->s, n);
    out[n] = '\0';
    return out;
}

const char *wut_tok_text(const wut_token *t, char out[WUT_TEXT_LEN])
{
    return wut_tok_copy(t, out, WUT_TEXT_LEN);
}

orr_status wut_number(wut_parser *p, const char *key, const wut_token *t, double *v)
{
    char text[WUT_TEXT_LEN];
    if (orr_parse_double(t->s, t->n, v) != 0 || !isfinite(*v))
        return wut_bad(p, key, "expected a finite number, found '%s'", wut_tok_text(t, text));
    return ORR_OK;
}

orr_status wut_whole(wut_parser *p, const char *key, const wut_token *t, long lo, long hi, long *v)
{
    char text[WUT_TEXT_LEN];
    if (orr_parse_long(t->s, t->n, v) != 0)
        return wut_bad(p, key, "expected a whole number, found '%s'", wut_tok_text(t, text));
    if (*v < lo || *v > hi)
        return wut_bad(p, key, "%ld is outside %ld..%ld", *v, lo, hi);
    return ORR_OK;
}

orr_status wut_whole_int(wut_parser *p, const char *key, const wut_token *t, long lo, long hi,
                         int *v)
{
    long x;
    orr_status s = wut_whole(p, key, t, lo, hi, &x);
    if (s == ORR_OK)
        *v = (int)x;
    return s;
}

int wut_valid_name_also(const wut_token *t, size_t len, const char *more)
{
    if (t->n == 0 || t->n >= len || !(isalpha((unsigned char)t->s[0]) || t->s[0] == '_'))
        return 0;
    for (size_t i = 1; i < t->n; i++)
        if (!isalnum((unsigned char)t->s[i]) && t->s[i] != '_' &&
            !(t->s[i] != '\0' && strchr(more, t->s[i])))
            return 0;
    return 1;
}

int wut_valid_name(const wut_token *t, size_t len)
{
    return wut_valid_name_also(t, len, "");
}

int wut_word_of(const wut_token *t, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (wut_tok_is(t, words[i]))
            return i;
    return -1;
}

const char *wut_word_list(const char *const *words, int n, char *out, size_t size)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s%s",
                 i == 0 ? "" : i == n - 1 ? " or " : ", ", words[i]);
    return out;
}

orr_status wut_choice(wut_parser *p, const char *key, const wut_token *t,
                      const char *const *words, int n, int *v)
{
    char text[WUT_TEXT_LEN], list[128];
    if ((*v = wut_word_of(t, words, n)) >= 0)
        return ORR_OK;
    return wut_bad(p, key, "expected %s, found '%s'", wut_word_list(words, n, list, sizeof list),
                   wut_tok_text(t, text));
}

orr_status wut_arity_between(wut_parser *p, int lo, int hi)
{
    const int got = p->n - 1;
    if (got >= lo && got <= hi)
        return ORR_OK;
    if (lo == hi)
        return wut_bad(p, p->stmt, "expected %d value%s, found %d", lo, lo == 1 ? "" : "s", got);
    return wut_bad(p, p->stmt, "expected %d to %d values, found %d", lo, hi, got);
}

orr_status wut_arity(wut_parser *p, int want)
{
    return wut_arity_between(p, want, want);
}

orr_status wut_numbers(wut_parser *p, const char *key, int first, long max, double **a, long *n)
{
    if (p->n <= first)
        return wut_bad(p, key, "expected at least one value");
    if (*n + (p->n - first) > max)
        return wut_bad(p, key, "more than %ld values", max);
    for (int i = first; i < p->n; i++) {
        double v;
        orr_status s = wut_number(p, key, &p->tok[i], &v);
        if (s == ORR_OK)
            s = wut_grow(p, (void **)a, sizeof **a, *n);
        if (s != ORR_OK)
            return s;
        (*a)[(*n)++] = v;
    }
    return ORR_OK;
}

orr_status wut_fields(wut_parser *p, int first, const char *const *keys, int n_keys,
                      wut_token *out)
{
    memset(out, 0, (size_t)n_keys * sizeof *out);
    for (int i = first; i < p->n; i++) {
        const wut_token *t = &p->tok[i];
        const char *eq = memchr(t->s, '=', t->n);
        char text[WUT_TEXT_LEN], list[160];
        if (!eq)
            return wut_bad(p, p->stmt, "expected key=value, found '%s'", wut_tok_text(t, text));
        const wut_token name = {t->s, (size_t)(eq - t->s)};
        const int k = wut_word_of(&name, keys, n_keys);
        if (k < 0)
            return wut_bad(p, p->stmt, "unknown key '%s' (expected %s)", wut_tok_text(&name, text),
                           wut_word_list(keys, n_keys, list, sizeof list));
        if (out[k].s)
            return wut_bad(p, wut_keyof(p, keys[k]), "given twice on the line");
        out[k].s = eq + 1;
        out[k].n = t->n - name.n - 1;
        if (out[k].n == 0)
            return wut_bad(p, wut_keyof(p, keys[k]), "has no value");
    }
    return ORR_OK;
}

orr_status wut_need(wut_parser *p, const char *key, const wut_token *f)
{
    return f->s ? ORR_OK : wut_bad(p, wut_keyof(p, key), "missing (required)");
}

orr_status wut_grow(wut_parser *p, void **a, size_t item, long count)
{
    if (count & (count - 1))
        return ORR_OK;
    void *n = realloc(*a, (size_t)(count ? 2 * count : 1) * item);
    if (!n)
        return wut_no_memory(p);
    *a = n;
    return ORR_OK;
}

/* ---- the param statement ---- */

orr_status wut_param(wut_parser *p, int *n, int max, char *names, size_t name_len, char *texts,
                     size_t text_len)
{
    char name[WUT_TEXT_LEN];
    orr_status s = wut_arity(p, 2);
    if (s != ORR_OK)
        return s;
    wut_tok_text(&p->tok[1], name);
    if (!wut_valid_name(&p->tok[1], name_len))
        return wut_bad(p, p->stmt, "'%s' is not a name (" WUT_NAME_RULE ")", name,
                       (int)name_len - 1);
    if (p->tok[2].n >= text_len)
        return wut_bad(p, p->stmt, "the value of '%s' is %zu characters; at most %d", name,
                       p->tok[2].n, (int)text_len - 1);
    if (*n == max)
        return wut_bad(p, p->stmt, "more than %d parameters", max);
    for (int i = 0; i < *n; i++)
        if (strcmp(names + (size_t)i * name_len, name) == 0)
            return wut_bad(p, p->stmt, "'%s' given twice", name);
    strcpy(names + (size_t)*n * name_len, name);
    wut_tok_copy(&p->tok[2], texts + (size_t)*n * text_len, text_len);
    (*n)++;
    return ORR_OK;
}

/* ---- lines and statements ---- */

static orr_status statement(wut_parser *p, const wut_format *f)
{
    char text[WUT_TEXT_LEN];
    for (size_t i = 0; i < f->n_statements; i++) {
        const wut_statement *st = &f->statements[i];
        if (!wut_tok_is(&p->tok[0], st->word))
            continue;
        p->stmt = st->word;
        if (st->once >= 0 && p->seen_line[st->once])
            return wut_bad(p, p->stmt, "given twice (first at line %d)", p->seen_line[st->once]);
        if (st->once >= 0)
            p->seen_line[st->once] = p->line;
        return st->read(p);
    }
    return wut_bad(p, wut_tok_text(&p->tok[0], text), "unknown statement");
}

/* Splits a line into blank-separated words up to a '#': at most max
 * (0: any number). */
static orr_status tokenize(wut_parser *p, const char *s, size_t n, int max)
{
    p->n = 0;
    if (memchr(s, '\0', n))
        return wut_bad(p, "text", "binary data (a NUL byte) in a text file");
    for (size_t i = 0; i < n && s[i] != '#';) {
        if (isspace((unsigned char)s[i])) {
            i++;
            continue;
        }
        if (max > 0 && p->n == max) {
            char text[WUT_TEXT_LEN];
            return wut_bad(p, wut_tok_text(&p->tok[0], text), "more than %d words on a line", max);
        }
        if (p->n == p->cap) {
            int cap = p->cap ? 2 * p->cap : 16;
            wut_token *t = realloc(p->tok, (size_t)cap * sizeof *t);
            if (!t)
                return wut_no_memory(p);
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

static orr_status first_statement(wut_parser *p, const wut_format *f)
{
    char text[WUT_TEXT_LEN], version[24];
    snprintf(version, sizeof version, "%d", f->version);
    if (!wut_tok_is(&p->tok[0], p->head))
        return wut_bad(p, p->head, "expected '%s %d' (the format and its version) as the first "
                       "statement, found '%s'", p->head, f->version,
                       wut_tok_text(&p->tok[0], text));
    if (p->n != 2)
        return wut_bad(p, p->head, "expected one value, the version (%d), found %d", f->version,
                       p->n - 1);
    if (!wut_tok_is(&p->tok[1], version))
        return wut_bad(p, p->head, "version '%s' is not supported (this app reads version %d)",
                       wut_tok_text(&p->tok[1], text), f->version);
    return ORR_OK;
}

orr_status wut_read_lines(wut_parser *p, const wut_format *f, const char *text, size_t len)
{
    orr_buffer buf = {(char *)text, len};
    orr_lines it;
    const char *line;
    size_t n;
    int statements_read = 0;
    snprintf(p->head, sizeof p->head, "orrery-%s", f->kind);
    orr_lines_init(&it, p->path, &buf);
    while (orr_lines_next(&it, &line, &n)) {
        p->line = p->last_line = it.line;
        orr_status s = tokenize(p, line, n, f->max_words);
        if (s == ORR_OK && p->n > 0)
            s = statements_read++ ? statement(p, f) : first_statement(p, f);
        if (s != ORR_OK)
            return s;
    }
    if (statements_read == 0)
        return wut_bad_at(p, p->last_line, p->head, "missing: an empty work unit (the first "
                          "statement is '%s %d')", p->head, f->version);
    return ORR_OK;
}

void wut_init(wut_parser *p, const char *path, orr_error *err)
{
    memset(p, 0, sizeof *p);
    p->path = path;
    p->err = err;
}

void wut_free(wut_parser *p)
{
    free(p->tok);
    p->tok = NULL;
    p->n = p->cap = 0;
}

/* ---- the whole text ---- */

size_t wut_max_bytes(const wut_format *f)
{
    return f->max_bytes ? f->max_bytes : WUT_MAX_BYTES;
}

orr_status wut_begin(const wut_format *f, const char *path, const char *text, size_t len,
                     char *path_out, size_t path_size, uint64_t *content_hash, orr_error *err)
{
    if (len > wut_max_bytes(f))
        return orr_fail(err, ORR_ERR_INPUT, "%s: %zu bytes: a work unit is at most %zu MiB",
                        path, len, wut_max_bytes(f) >> 20);
    snprintf(path_out, path_size, "%s", path);
    *content_hash = orr_hash64(ORR_HASH64_INIT, text, len);
    return ORR_OK;
}

orr_status wut_read(const wut_format *f, const char *path, orr_buffer *out, orr_error *err)
{
    const size_t mib = wut_max_bytes(f) >> 20;
    orr_status s = orr_read_file(path, wut_max_bytes(f), 1, out, err);
    /* io's size refusal names the bytes; say which limit it is */
    if (s == ORR_ERR_INPUT && err && strstr(err->message, "larger than"))
        return orr_fail(err, ORR_ERR_INPUT, "%s: larger than %zu MiB (after decompression): a "
                        "work unit is at most %zu MiB", path, mib, mib);
    return s;
}
