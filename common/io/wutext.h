/* The work-unit text shared by the kinds whose work unit is a statement
 * file (diffraction, FDTD, MoM: section 2 of docs/KIND.md): reading it
 * (plain, gzip or zlib, at most 64 MiB after decompression unless the
 * kind's format says less) and its
 * content hash, the line walk (one statement a line, '#' comments, LF or
 * CRLF), the words of a line, the first statement `orrery-KIND VERSION`,
 * dispatch through the kind's statement table (once-only statements), the
 * values (finite numbers, whole numbers, lists of numbers, one word of a
 * list, key=value fields, names), the `param NAME VALUE` statement, and
 * the messages:
 * every refusal is ORR_ERR_INPUT (exit 65) with one line
 * "FILE:LINE: KEY: what is wrong".
 *
 * A kind embeds a wut_parser as the first member of its own parser state,
 * so that its statement readers, which get the wut_parser, can reach the
 * rest (a pointer to a struct is a pointer to its first member):
 *
 *     typedef struct { wut_parser t; kind_workunit *wu; ... } parser;
 *     static orr_status st_steps(wut_parser *p) { kind_workunit *wu = ((parser *)p)->wu; ... }
 *
 * and parses with wut_begin, wut_init, wut_read_lines (then its own
 * whole-file checks, with wut_bad_at), wut_free; loads with wut_read.
 * A kind's limits on the text are fields of its wut_format: 0 takes the
 * shared default (64 MiB, any number of words a line). */
#ifndef ORRERY_WUTEXT_H
#define ORRERY_WUTEXT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../orrery.h"
#include "io.h"

/* Source tables and vertex lists can be long: 1e7 values take ~100 MB of
 * text, so the cap is what bounds them in practice. */
#define WUT_MAX_BYTES ((size_t)64 << 20)
#define WUT_TEXT_LEN 64   /* a value as written, NUL included (param values, messages) */
#define WUT_MAX_ONCE 32   /* once-only statements a kind may have */
/* What a name is, for messages; its argument is the longest (characters). */
#define WUT_NAME_RULE "[A-Za-z_][A-Za-z0-9_]*, at most %d characters"

#if defined(__GNUC__)
#define WUT_PRINTF_LIKE(a, b) __attribute__((format(printf, a, b)))
#else
#define WUT_PRINTF_LIKE(a, b)
#endif

/* A word of the line being read: not NUL-terminated. */
typedef struct {
    const char *s;
    size_t n;
} wut_token;

typedef struct wut_parser wut_parser;

typedef struct {
    const char *word;
    orr_status (*read)(wut_parser *p);   /* the words are in p->tok[0..n) */
    int once;   /* an index into seen_line (0..WUT_MAX_ONCE-1): allowed once; -1: any number */
} wut_statement;

typedef struct {
    const char *kind;                  /* "fdtd": the first statement is `orrery-fdtd VERSION` */
    int version;                       /* the one version read */
    const wut_statement *statements;
    size_t n_statements;
    size_t max_bytes;                  /* the text at most (whole MiB); 0: WUT_MAX_BYTES */
    int max_words;                     /* words a line at most; 0: no limit */
} wut_format;

struct wut_parser {
    const char *path;
    int line;             /* the line being read */
    int last_line;        /* the file's last line (where a missing statement could go) */
    wut_token *tok;       /* the line's words: no limit, a table line may be long */
    int n, cap;
    const char *stmt;     /* the statement being read, for keys */
    char key[64];         /* "statement key" (wut_keyof) */
    char head[32];        /* "orrery-KIND" */
    orr_error *err;
    int seen_line[WUT_MAX_ONCE];   /* once-only statements: the line given on, 0 if not yet */
};

/* ---- the whole text ---- */

/* The most bytes of text f takes. */
size_t wut_max_bytes(const wut_format *f);
/* Read path (plain or compressed) for a kind's parser; a file over f's
 * limit after decompression is refused saying so. */
orr_status wut_read(const wut_format *f, const char *path, orr_buffer *out, orr_error *err);
/* Before parsing text: refuses more than f's limit, then names the work
 * unit (path copied to path_out, cut to path_size) and hashes its text
 * (FNV-1a from ORR_HASH64_INIT: the same for a file plain and compressed). */
orr_status wut_begin(const wut_format *f, const char *path, const char *text, size_t len,
                     char *path_out, size_t path_size, uint64_t *content_hash, orr_error *err);
void wut_init(wut_parser *p, const char *path, orr_error *err);
/* Every line: its words (at most f->max_words), then the first statement
 * checked, the others dispatched through f's table (an unknown word or a
 * once-only statement given again is refused here). An empty work unit is
 * refused. */
orr_status wut_read_lines(wut_parser *p, const wut_format *f, const char *text, size_t len);
void wut_free(wut_parser *p);

/* ---- messages: every one ORR_ERR_INPUT, "path:line: key: message" ---- */

/* For the line being read. */
orr_status wut_bad(wut_parser *p, const char *key, const char *fmt, ...) WUT_PRINTF_LIKE(3, 4);
/* For a line read earlier (the checks of the whole file). */
orr_status wut_bad_at(wut_parser *p, int line, const char *key, const char *fmt, ...)
    WUT_PRINTF_LIKE(4, 5);
orr_status wut_vbad(wut_parser *p, int line, const char *key, const char *fmt, va_list ap);
/* "path:line: out of memory", ORR_ERR_NOMEM. */
orr_status wut_no_memory(wut_parser *p);
/* "statement key", the key of a key=value field in messages (in p->key,
 * valid until the next call). */
const char *wut_keyof(wut_parser *p, const char *field);

/* ---- words and values ---- */

int wut_tok_is(const wut_token *t, const char *word);
/* The token as text for messages and names, cut to fit. */
const char *wut_tok_text(const wut_token *t, char out[WUT_TEXT_LEN]);
const char *wut_tok_copy(const wut_token *t, char *out, size_t size);
/* A name: [A-Za-z_][A-Za-z0-9_]* of at most len - 1 characters. */
int wut_valid_name(const wut_token *t, size_t len);
/* The same, with the characters of more allowed after the first too
 * (diffraction's material names: "-"). */
int wut_valid_name_also(const wut_token *t, size_t len, const char *more);
/* A finite number (inf, nan and overflow are refused). */
orr_status wut_number(wut_parser *p, const char *key, const wut_token *t, double *v);
/* A whole number (plain decimal) in lo..hi. */
orr_status wut_whole(wut_parser *p, const char *key, const wut_token *t, long lo, long hi, long *v);
orr_status wut_whole_int(wut_parser *p, const char *key, const wut_token *t, long lo, long hi,
                         int *v);
/* Which of words t is, or -1. */
int wut_word_of(const wut_token *t, const char *const *words, int n);
/* "a, b or c", for messages. */
const char *wut_word_list(const char *const *words, int n, char *out, size_t size);
/* One of words, or an error listing them. */
orr_status wut_choice(wut_parser *p, const char *key, const wut_token *t,
                      const char *const *words, int n, int *v);
/* Exactly want positional values after the statement word. */
orr_status wut_arity(wut_parser *p, int want);
/* lo..hi positional values after the statement word. */
orr_status wut_arity_between(wut_parser *p, int lo, int hi);
/* The words from `first` on, finite numbers, appended to *a (count *n,
 * grown by wut_grow): at least one, at most max in all. */
orr_status wut_numbers(wut_parser *p, const char *key, int first, long max, double **a, long *n);
/* key=value words from word `first` on: each key at most once; the values
 * come back by key index (s NULL: absent). */
orr_status wut_fields(wut_parser *p, int first, const char *const *keys, int n_keys,
                      wut_token *out);
/* A required key of wut_fields' result. */
orr_status wut_need(wut_parser *p, const char *key, const wut_token *f);
/* Before appending item `count` to *a (count items of size item): capacities
 * double at powers of two. */
orr_status wut_grow(wut_parser *p, void **a, size_t item, long count);

/* `param NAME VALUE` (or the kind's word for it, p->stmt): appended to
 * names[*n] (each name_len bytes, NUL included, name_len <= WUT_TEXT_LEN)
 * and texts[*n] (each text_len bytes: the value as written), at most max,
 * each name once. */
orr_status wut_param(wut_parser *p, int *n, int max, char *names, size_t name_len, char *texts,
                     size_t text_len);

#endif
