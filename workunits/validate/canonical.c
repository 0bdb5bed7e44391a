/* canonical: a valid file as one line of JSON (orrery-assimilate's one
 * reader of results), the part every kind shares.
 *
 * The assimilator reads result files only through this (`orrery-validate
 * canonical FILE`), so what init accepts it can assimilate and what init
 * refuses it refuses with init's message: one reader, one definition of a
 * valid result. The form mirrors the file; the assimilator arranges it
 * into its tables:
 *   separation: {"kind": "separation", "number_params_per_WU": N or null,
 *     "members": [{"background_integral": [V], "stream_integral": [V...],
 *     "background_likelihood": [V], "stream_only_likelihood": [V...],
 *     "search_likelihood": [V]}, ...]}
 *   diffraction, fdtd, mom: {"kind": K, "work_unit": S, "application": S
 *     or null, "parameters": [[NAME, V], ...], "records": {KEY: [[V...],
 *     ...], ...}}, KEY each other record's keyword in the file's order
 *     (diffraction: "point"; '#' lines but those three are left out, as is
 *     the end line), each record its words after the keyword (mom's
 *     warning: its text, one string).
 * A word is written as a JSON number if it is one (kept as written), else
 * a whole number as "%ld" ("+4", "007"), another finite number as its
 * shortest form that reads back the same double ("0x1p-2", "+.5"); nan and
 * inf as printf writes them as null; anything else as a string (control
 * characters escaped, other bytes as they are). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"

/* Whether t[0..n) is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
int vd_json_number_form(const char *t, size_t n)
{
    size_t i = 0, d;
    if (i < n && t[i] == '-')
        i++;
    if (i < n && t[i] == '0')
        i++;
    else if (i < n && t[i] >= '1' && t[i] <= '9')
        while (i < n && isdigit((unsigned char)t[i]))
            i++;
    else
        return 0;
    if (i < n && t[i] == '.') {
        for (d = ++i; i < n && isdigit((unsigned char)t[i]);)
            i++;
        if (i == d)
            return 0;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        if (++i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        for (d = i; i < n && isdigit((unsigned char)t[i]);)
            i++;
        if (i == d)
            return 0;
    }
    return i == n;
}

static void json_string(FILE *o, const char *s, size_t n)
{
    fputc('"', o);
    for (size_t i = 0; i < n; i++) {
        const unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(o, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf(o, "\\u%04x", c);
        else
            fputc(c, o);
    }
    fputc('"', o);
}

void vd_json_word(FILE *o, const char *t, size_t n)
{
    long l;
    double v;
    while (n > 0 && isspace((unsigned char)*t))
        t++, n--;
    while (n > 0 && isspace((unsigned char)t[n - 1]))
        n--;
    if (vd_json_number_form(t, n)) {
        fwrite(t, 1, n, o);
    } else if (orr_parse_long(t, n, &l) == 0) {
        fprintf(o, "%ld", l);
    } else if (orr_parse_double(t, n, &v) == 0 && isfinite(v)) {
        char b[40];
        for (int p = 1; p <= 17; p++) {
            snprintf(b, sizeof b, "%.*g", p, v);
            if (strtod(b, NULL) == v)
                break;
        }
        fputs(b, o);
    } else if (vd_tok_eq(t, n, "nan") || vd_tok_eq(t, n, "-nan") || vd_tok_eq(t, n, "inf") ||
               vd_tok_eq(t, n, "-inf")) {
        fputs("null", o);
    } else {
        json_string(o, t, n);
    }
}

/* The next blank-separated word of s[*i..len), or 0 at the end. */
int vd_next_word(const char *s, size_t len, size_t *i, const char **w, size_t *wn)
{
    while (*i < len && (s[*i] == ' ' || s[*i] == '\t'))
        (*i)++;
    if (*i >= len)
        return 0;
    *w = s + *i;
    while (*i < len && s[*i] != ' ' && s[*i] != '\t')
        (*i)++;
    *wn = (size_t)(s + *i - *w);
    return 1;
}

/* s[i..len) without its surrounding white space, as a JSON string. */
static void json_rest(FILE *o, const char *s, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)s[i]))
        i++;
    while (len > i && isspace((unsigned char)s[len - 1]))
        len--;
    json_string(o, s + i, len - i);
}

/* The next line after the header, as the kind's loader reads it
 * (dif_load drops a second '\r'). */
static int dump_next(orr_lines *it, const char **s, size_t *len, int hash)
{
    if (!orr_lines_next(it, s, len))
        return 0;
    if (hash && *len > 0 && (*s)[*len - 1] == '\r')
        (*len)--;
    return 1;
}

/* A line's keyword (a diffraction '#' line's is its second word; its point
 * rows' "point") and where the words after it start. */
static int line_key(const char *s, size_t len, int hash, const char **k, size_t *kn, size_t *at)
{
    *at = 0;
    /* as dif_header_line reads it: the word after the first ("#", "#x") */
    if (hash && len > 0 && s[0] == '#' && !vd_next_word(s, len, at, k, kn))
        return 0;
    return vd_next_word(s, len, at, k, kn);
}

static int is_header_key(const char *k, size_t kn, int hash)
{
    return vd_tok_eq(k, kn, "work_unit") || vd_tok_eq(k, kn, "application") ||
           vd_tok_eq(k, kn, hash ? "parameter" : "param");
}

/* work_unit, application and parameters: the header of the JSON object. */
static void dump_header(FILE *o, const char *kind, const orr_buffer *buf, int hash)
{
    orr_lines it;
    const char *s, *k, *w;
    size_t len, kn, wn, at;
    int params = 0, app = 0;
    fprintf(o, "{\"kind\": \"%s\", \"work_unit\": ", kind);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash))
        if (line_key(s, len, hash, &k, &kn, &at) && vd_tok_eq(k, kn, "work_unit") &&
            vd_next_word(s, len, &at, &w, &wn))
            json_string(o, w, wn);
    fputs(", \"application\": ", o);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash))
        if (line_key(s, len, hash, &k, &kn, &at) && vd_tok_eq(k, kn, "application") && !app++)
            json_rest(o, s, len, at);
    fputs(app ? ", \"parameters\": [" : "null, \"parameters\": [", o);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash)) {
        if (!line_key(s, len, hash, &k, &kn, &at) ||
            !vd_tok_eq(k, kn, hash ? "parameter" : "param") ||
            !vd_next_word(s, len, &at, &w, &wn))
            continue;
        fputs(params++ ? ", [" : "[", o);
        json_string(o, w, wn);
        fputs(", ", o);
        if (vd_next_word(s, len, &at, &w, &wn))
            vd_json_word(o, w, wn);
        fputc(']', o);
    }
    fputs("]", o);
}

/* A diffraction, fdtd or mom file init has accepted, as JSON on o. */
int vd_dump_records(FILE *o, const char *kind, const orr_buffer *buf, int hash)
{
    orr_lines it;
    const char *s, *k, *w, *prev = NULL;
    size_t len, kn, wn, at, prev_n = 0;
    dump_header(o, kind, buf, hash);
    fputs(", \"records\": {", o);
    orr_lines_init(&it, "", buf);
    orr_lines_next(&it, &s, &len);
    while (dump_next(&it, &s, &len, hash)) {
        if ((hash && len > 0 && s[0] == '#') || !line_key(s, len, 0, &k, &kn, &at) ||
            is_header_key(k, kn, hash) || (!hash && vd_tok_eq(k, kn, "end")))
            continue;
        const int same = prev && prev_n == kn && memcmp(prev, k, kn) == 0;
        if (!same) {
            fputs(prev ? "], " : "", o);
            json_string(o, k, kn);
            fputs(": [", o);
        }
        fputs(same ? ", [" : "[", o);
        if (vd_tok_eq(k, kn, "warning")) {
            json_rest(o, s, len, at);
        } else {
            for (int i = 0; vd_next_word(s, len, &at, &w, &wn); i++) {
                fputs(i ? ", " : "", o);
                vd_json_word(o, w, wn);
            }
        }
        fputc(']', o);
        prev = k;
        prev_n = kn;
    }
    fputs(prev ? "]}}\n" : "}}\n", o);
    return VALID;
}

