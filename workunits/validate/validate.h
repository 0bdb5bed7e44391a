/* orrery-validate's kinds: what each kind's validator provides (one
 * vd_kind, in workunits/K/validate.c, listed in kinds.c) and the readers
 * every kind shares (read.c, canonical.c). The driver (driver.c) reads a
 * file, finds its kind by its first line, and calls the kind's hooks;
 * main.c documents the program (modes, configuration, exit statuses). */
#ifndef ORRERY_VALIDATE_H
#define ORRERY_VALIDATE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "io/io.h"

/* Exit statuses. RETRY is BOINC's VAL_RESULT_TRANSIENT_ERROR: the
 * validator tries the work unit again later instead of judging, so only a
 * result's own content may give INVALID. */
enum { VALID = 0, INVALID = 1, RETRY = 3 };

/* A tolerance a kind's compare reads: a configuration key, whose option
 * is "--" and the key with '-' for '_' (likelihood_tolerance:
 * --likelihood-tolerance), its default and usage's words for it. */
typedef struct {
    const char *key;
    double value;
    const char *help;
} vd_tolerance;

typedef struct vd_kind {
    const char *name;          /* as the result's kind in messages and the JSON */
    const char *article;       /* "a" or "an": "an fdtd result" */
    const char *header;        /* the result's first line; NULL: any other file */
    size_t max_bytes;          /* larger is not a result */
    const vd_tolerance *tolerances;
    int n_tolerances;
    /* where a configuration's unknown-key message lists its keys: kinds
     * with the same heading in a row share one "(HEADING: keys)" */
    const char *config_group;
    const char *usage_note;    /* usage's lines on it, or NULL */
    size_t result_size;        /* the bytes of what load fills */
    int compare_reads_text;    /* compare walks the file again: keep it */
    /* init's rules on the file (text, NUL-terminated, within max_bytes,
     * starting with header) into result (zeroed); on failure says why. */
    int (*load)(const char *path, const orr_buffer *text, void *result);
    /* canonical: the accepted file as one line of JSON on o */
    int (*dump)(FILE *o, const orr_buffer *text, const void *result);
    /* two loaded results (of a_path, b_path) agree within tol (this
     * kind's tolerances, in its table's order)? on failure says why */
    int (*compare)(const char *a_path, const char *b_path, const void *a, const void *b,
                   const double *tol);
    void (*free)(void *result);   /* what load allocated, or NULL */
    /* Output files a result may have (0: one, its table); the others come
     * after the table, in the output template's order (script_validator's
     * and script_assimilator's), and load_more checks them beside the
     * loaded table: paths[0..n), n < max_files, the ones the template
     * has (an older template may have fewer). On failure says why. */
    int max_files;
    int (*load_more)(const char *table_path, char *const *paths, int n, void *result);
} vd_kind;

/* The registry (kinds.c), the fallback (header NULL) among them. */
extern const vd_kind *const vd_kinds[];
extern const size_t vd_n_kinds;

/* ---- the driver (driver.c), also what the fuzz target calls ---- */

#define VD_MAX_TOLERANCES 32
void vd_default_tolerances(double *tol);
/* init (dump NULL) or canonical (the JSON on dump) on one result's
 * files (its table first); vd_load on a result of one file */
int vd_load_files(char *const *paths, int n, const double *tol, FILE *dump);
int vd_load(const char *path, const double *tol, FILE *dump);
/* two results of n files each; vd_compare on results of one file */
int vd_compare_files(char *const *a_paths, char *const *b_paths, int n, const double *tol);
int vd_compare(const char *a_path, const char *b_path, const double *tol);
int vd_read_config(const char *path, double *tol);

typedef struct {
    const char *config;                  /* --config FILE, or NULL */
    int set[VD_MAX_TOLERANCES];          /* tolerances given as options */
    double tol[VD_MAX_TOLERANCES];
} vd_options;

/* Options before the mode and files; *next: the first other argument. */
int vd_parse_options(int argc, char **argv, vd_options *o, int *next);
int vd_main(int argc, char **argv);

/* ---- shared readers (read.c) ---- */

#if defined(__GNUC__)
#define VD_PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define VD_PRINTF_LIKE(f, a)
#endif

/* One line on stderr saying why, "PROG: " first (vd_set_prog: the name
 * the program was run by, default orrery-validate) and, while
 * vd_set_pair's two results are compared, "A against B: "; returns rc. */
void vd_set_prog(const char *name);
void vd_set_pair(const char *a, const char *b);
int vd_say(int rc, const char *fmt, ...) VD_PRINTF_LIKE(2, 3);
int vd_vsay(int rc, const char *fmt, va_list ap) VD_PRINTF_LIKE(2, 0);
/* path whole: what cannot be read now is RETRY, content that cannot be a
 * valid file (too large, corrupt compression, NUL bytes) bad_content */
int vd_read_whole(const char *path, size_t max, int bad_content, orr_buffer *buf);

/* Splits s[0..len) at blanks into at most max tokens; returns the count,
 * or max + 1 if there are more. */
int vd_tokens(const char *s, size_t len, const char **tok, size_t *tlen, int max);
int vd_tok_eq(const char *t, size_t n, const char *word);
/* The index of token t among words[0..n), or -1. */
int vd_word(const char *t, size_t len, const char *const *words, int n);
/* A finite number; with allow_nan also the app's "nan" (or "-nan"). */
int vd_number(const char *t, size_t n, int allow_nan, double *out);
/* A finite number >= lo. */
int vd_number_from(const char *t, size_t n, double lo, double *out);
int vd_whole(const char *t, size_t n, long lo, long hi, int *out);
int vd_long(const char *t, size_t n, long lo, long hi, long *out);

/* The names of a result's parameter lines: each a name as the work units
 * take it ([A-Za-z_][A-Za-z0-9_]*, at most 32 characters), at most 32 of
 * them, none twice (the assimilator keeps them as an object's keys). */
#define VD_NAME_SET_MAX 32
#define VD_NAME_MAX_LEN 32
typedef struct {
    int n;
    char name[VD_NAME_SET_MAX][VD_NAME_MAX_LEN + 1];
} vd_name_set;
/* 0 if t[0..len) is a new valid name (added), -1 if not. */
int vd_name_add(vd_name_set *set, const char *t, size_t len);

/* ---- canonical's JSON (canonical.c; its form is described there) ---- */

/* Whether t[0..n) is a JSON number */
int vd_json_number_form(const char *t, size_t n);
/* A word as JSON: a number if it is one, null for nan and inf, else a string */
void vd_json_word(FILE *o, const char *t, size_t n);
/* The next blank-separated word of s[*i..len), or 0 at the end. */
int vd_next_word(const char *s, size_t len, size_t *i, const char **w, size_t *wn);
/* A file of records (a keyword, then words: diffraction's '#' lines
 * keyed by their second word when hash) as canonical's JSON. */
int vd_dump_records(FILE *o, const char *kind, const orr_buffer *buf, int hash);

#endif
