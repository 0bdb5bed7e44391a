/* orrery-validate's driver: the command line, the configuration file and
 * the three modes over the kinds of the registry (kinds.c). It knows no
 * kind: it finds a file's by its first line, reads the tolerances each
 * kind lists, and calls the kind's load, dump and compare (main.c tells
 * what the program does). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "validate.h"

#define MAX_CONFIG_BYTES ((size_t)64 << 10)
#define CONFIG_NAME "orrery-validate.conf"

/* ---- the tolerances: every kind's, in the registry's order ---- */

/* Where kind k's tolerances start in the array of all. */
static int tolerance_offset(size_t k)
{
    int at = 0;
    for (size_t i = 0; i < k; i++)
        at += vd_kinds[i]->n_tolerances;
    return at;
}

/* The tolerance at index i of all: its kind's row. */
static const vd_tolerance *tolerance_at(int i)
{
    for (size_t k = 0; k < vd_n_kinds; k++) {
        if (i < vd_kinds[k]->n_tolerances)
            return &vd_kinds[k]->tolerances[i];
        i -= vd_kinds[k]->n_tolerances;
    }
    return NULL;
}

static int n_tolerances(void)
{
    return tolerance_offset(vd_n_kinds);
}

void vd_default_tolerances(double *tol)
{
    for (int i = 0; i < n_tolerances() && i < VD_MAX_TOLERANCES; i++)
        tol[i] = tolerance_at(i)->value;
}

/* Whether opt is key's option: "--" and the key with '-' for '_'. */
static int is_option_of(const char *opt, const char *key)
{
    if (strncmp(opt, "--", 2) != 0)
        return 0;
    for (opt += 2; *key; opt++, key++)
        if (*opt != (*key == '_' ? '-' : *key))
            return 0;
    return *opt == '\0';
}

/* A wrong command line is the daemon's mistake, not the result's: RETRY. */
static int usage(const char *fmt, ...) VD_PRINTF_LIKE(1, 2);
static int usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vd_vsay(RETRY, fmt, ap);
    va_end(ap);
    fprintf(stderr,
            "usage: orrery-validate [OPTIONS] init FILE\n"
            "       orrery-validate [OPTIONS] compare FILE1 FILE2\n"
            "       orrery-validate [OPTIONS] canonical FILE   (init, then FILE as JSON on stdout)\n"
            "       orrery-validate-init [OPTIONS] FILE\n"
            "       orrery-validate-compare [OPTIONS] FILE1 FILE2\n"
            "options: --config FILE (default: " CONFIG_NAME " beside the program, if there)\n");
    for (int i = 0; i < n_tolerances(); i++) {
        fputs("         --", stderr);
        for (const char *c = tolerance_at(i)->key; *c; c++)
            fputc(*c == '_' ? '-' : *c, stderr);
        fprintf(stderr, " X (%s)\n", tolerance_at(i)->help);
    }
    for (size_t k = 0; k < vd_n_kinds; k++)
        if (vd_kinds[k]->usage_note)
            fputs(vd_kinds[k]->usage_note, stderr);
    fputs("exit 0 valid / equal, 1 invalid / different, 3 could not judge (missing or\n"
          "unreadable file, bad configuration or usage; script_validator retries)\n",
          stderr);
    return RETRY;
}

/* A tolerance: a finite number >= 0, the whole of s[0..len) (blanks aside). */
static int parse_tolerance(const char *s, size_t len, double *out)
{
    double v;
    if (orr_parse_double(s, len, &v) != 0 || !isfinite(v) || !(v >= 0))
        return -1;
    *out = v;
    return 0;
}

/* ---- the configuration file ---- */

static void trim(const char **s, size_t *len)
{
    while (*len && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*len)--;
    }
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
        (*len)--;
}

/* The known keys for a message, each kind's under its config_group:
 * " (known: a, b, c) (mom: d, e)". */
static void known_keys(char *out, size_t cap)
{
    size_t n = 0;
    const char *group = NULL;
    out[0] = '\0';
    for (size_t k = 0; k < vd_n_kinds; k++) {
        const vd_kind *kind = vd_kinds[k];
        const char *g = kind->config_group ? kind->config_group : kind->name;
        for (int i = 0; i < kind->n_tolerances && n < cap; i++) {
            const char *key = kind->tolerances[i].key;
            if (group && strcmp(g, group) == 0)
                n += (size_t)snprintf(out + n, cap - n, ", %s", key);
            else
                n += (size_t)snprintf(out + n, cap - n, "%s (%s: %s", group ? ")" : "", g, key);
            group = g;
        }
    }
    if (group && n < cap)
        snprintf(out + n, cap - n, ")");
}

/* One `key = value` line of a configuration file, comment and blanks gone. */
static int config_line(const char *path, int line, const char *s, size_t len, double *tol,
                       int *seen)
{
    const char *eq = memchr(s, '=', len);
    if (!eq)
        return vd_say(RETRY, "%s:%d: \"%.*s\": no '=' (want key = value)", path, line, (int)len,
                      s);
    const char *val = eq + 1;
    size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
    trim(&s, &klen);
    trim(&val, &vlen);
    int k = 0;
    while (k < n_tolerances() &&
           !(strlen(tolerance_at(k)->key) == klen && memcmp(s, tolerance_at(k)->key, klen) == 0))
        k++;
    if (k == n_tolerances()) {
        char known[2048];
        known_keys(known, sizeof known);
        return vd_say(RETRY, "%s:%d: %.*s: unknown key%s", path, line, (int)klen, s, known);
    }
    if (seen[k]++)
        return vd_say(RETRY, "%s:%d: %s: repeated key", path, line, tolerance_at(k)->key);
    if (parse_tolerance(val, vlen, &tol[k]) != 0)
        return vd_say(RETRY, "%s:%d: %s: bad value \"%.*s\" (want a finite number >= 0)", path,
                      line, tolerance_at(k)->key, (int)vlen, val);
    return VALID;
}

int vd_read_config(const char *path, double *tol)
{
    orr_buffer buf;
    int rc = vd_read_whole(path, MAX_CONFIG_BYTES, RETRY, &buf);
    if (rc != VALID)
        return rc;
    orr_lines it;
    orr_lines_init(&it, path, &buf);
    const char *s;
    size_t len;
    int seen[VD_MAX_TOLERANCES] = {0};
    while (rc == VALID && orr_lines_next(&it, &s, &len)) {
        const char *hash = memchr(s, '#', len);
        if (hash)
            len = (size_t)(hash - s);
        trim(&s, &len);
        if (len > 0)
            rc = config_line(path, it.line, s, len, tol, seen);
    }
    orr_buffer_free(&buf);
    return rc;
}

/* The configuration: --config's file, else CONFIG_NAME in the directory
 * argv[0] names (script_validator's ../bin/) if there is one there. A
 * program found on PATH (no '/' in argv[0]) has no implicit file. */
static int load_config(const char *argv0, const char *given, double *tol)
{
    char path[4096];
    const char *slash = strrchr(argv0, '/');
    if (given)
        return vd_read_config(given, tol);
    if (!slash)
        return VALID;
    if (snprintf(path, sizeof path, "%.*s/%s", (int)(slash - argv0), argv0, CONFIG_NAME) >=
        (int)sizeof path)
        return vd_say(RETRY, "%s: directory name too long for %s", argv0, CONFIG_NAME);
    /* lstat: a dangling link is a configuration to report, not an absence. */
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return VALID;
    return vd_read_config(path, tol);
}

int vd_parse_options(int argc, char **argv, vd_options *o, int *next)
{
    memset(o, 0, sizeof *o);
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        int k = 0;
        while (k < n_tolerances() && !is_option_of(opt, tolerance_at(k)->key))
            k++;
        if (k == n_tolerances() && strcmp(opt, "--config") != 0)
            return usage("unknown option %s", opt);
        if (!val)
            return usage("%s needs a value", opt);
        if (k == n_tolerances())
            o->config = val;
        else if (parse_tolerance(val, strlen(val), &o->tol[k]) != 0)
            return usage("%s %s: want a finite number >= 0", opt, val);
        else
            o->set[k] = 1;
    }
    *next = i;
    return VALID;
}

/* ---- a file of any kind ---- */

typedef struct {
    size_t kind;                         /* its index in vd_kinds */
    orr_buffer text;                     /* kept only where compare reads it */
    void *result;                        /* what the kind's load filled */
} loaded;

/* The kind whose header is the file's first line, else the fallback. */
static size_t kind_of(const orr_buffer *buf)
{
    size_t fallback = 0;
    for (size_t k = 0; k < vd_n_kinds; k++) {
        const char *h = vd_kinds[k]->header;
        const size_t n = h ? strlen(h) : 0;
        if (!h)
            fallback = k;
        else if (buf->size >= n && memcmp(buf->data, h, n) == 0 &&
                 (buf->size == n || buf->data[n] == '\n' || buf->data[n] == '\r'))
            return k;
    }
    return fallback;
}

static void loaded_free(loaded *f)
{
    if (f->result && vd_kinds[f->kind]->free)
        vd_kinds[f->kind]->free(f->result);
    free(f->result);
    orr_buffer_free(&f->text);
    memset(f, 0, sizeof *f);
}

/* The files a result of kind k may have. */
static int max_files(const vd_kind *k)
{
    return k->max_files > 0 ? k->max_files : 1;
}

/* Reads and checks one result, its table paths[0] and the n - 1 files
 * after it (init's rules); with dump, a valid one goes there as
 * canonical's JSON. On failure says why. */
static int load_one(char *const *paths, int n, FILE *dump, loaded *f)
{
    size_t max = 0;
    for (size_t k = 0; k < vd_n_kinds; k++)
        max = vd_kinds[k]->max_bytes > max ? vd_kinds[k]->max_bytes : max;
    memset(f, 0, sizeof *f);
    const char *path = paths[0];
    int rc = vd_read_whole(path, max, INVALID, &f->text);
    if (rc != VALID)
        return rc;
    const vd_kind *kind = vd_kinds[f->kind = kind_of(&f->text)];
    /* more files than the kind has is the template's, the daemon's setup */
    if (n > max_files(kind))
        return vd_say(RETRY, "%s: %s %s result has at most %d output file(s), given %d (the "
                      "output template's)", path, kind->article, kind->name, max_files(kind), n);
    if (f->text.size > kind->max_bytes)
        return vd_say(INVALID, "%s: larger than %zu bytes: not a result", path, kind->max_bytes);
    f->result = calloc(1, kind->result_size);
    if (!f->result)
        return vd_say(RETRY, "%s: out of memory", path);
    rc = kind->load(path, &f->text, f->result);
    if (rc == VALID && kind->load_more)
        rc = kind->load_more(path, paths + 1, n - 1, f->result);
    if (rc == VALID && dump)
        rc = kind->dump(dump, &f->text, f->result);
    if (!kind->compare_reads_text)
        orr_buffer_free(&f->text);
    return rc;
}

int vd_load_files(char *const *paths, int n, const double *tol, FILE *dump)
{
    loaded f;
    (void)tol;   /* init's rules have no tolerance */
    int rc = load_one(paths, n, dump, &f);
    if (rc == VALID && dump && (fflush(dump) != 0 || ferror(dump)))
        rc = vd_say(RETRY, "%s: cannot write the canonical form: %s", paths[0], strerror(errno));
    loaded_free(&f);
    return rc;
}

int vd_load(const char *path, const double *tol, FILE *dump)
{
    char *paths[1] = {(char *)path};
    return vd_load_files(paths, 1, tol, dump);
}

int vd_compare_files(char *const *a_paths, char *const *b_paths, int n, const double *tol)
{
    loaded a, b;
    memset(&b, 0, sizeof b);
    int rc = load_one(a_paths, n, NULL, &a);
    if (rc == VALID)
        rc = load_one(b_paths, n, NULL, &b);
    const vd_kind *lo = vd_kinds[a.kind < b.kind ? a.kind : b.kind];
    const vd_kind *hi = vd_kinds[a.kind < b.kind ? b.kind : a.kind];
    if (rc == VALID && a.kind != b.kind)
        rc = vd_say(INVALID, "%s and %s: %s %s and %s %s result", a_paths[0], b_paths[0],
                    lo->article, lo->name, hi->article, hi->name);
    else if (rc == VALID) {
        vd_set_pair(a_paths[0], b_paths[0]);
        rc = vd_kinds[a.kind]->compare(a_paths[0], b_paths[0], a.result, b.result,
                                       tol + tolerance_offset(a.kind));
        vd_set_pair(NULL, NULL);
    }
    loaded_free(&a);
    loaded_free(&b);
    return rc;
}

int vd_compare(const char *a_path, const char *b_path, const double *tol)
{
    char *a[1] = {(char *)a_path}, *b[1] = {(char *)b_path};
    return vd_compare_files(a, b, 1, tol);
}

/* init and canonical: the files of one result (its table first);
 * compare: result 1's files, then as many of result 2's. How many a
 * kind takes is the kind's (load_one); an odd count is the daemon's
 * setup, not the result's: usage. */
static int run(const char *mode, char **paths, int n, const double *tol)
{
    const int compare = strcmp(mode, "compare") == 0;
    const int canonical = strcmp(mode, "canonical") == 0;
    if (n == 0)
        return usage("%s: no file given", mode);
    if (compare && n % 2 != 0)
        return usage("compare: an odd number of files (%d): want result 1's, then as many of "
                     "result 2's", n);
    return compare ? vd_compare_files(paths, paths + n / 2, n / 2, tol)
                   : vd_load_files(paths, n, tol, canonical ? stdout : NULL);
}

int vd_main(int argc, char **argv)
{
    const char *argv0 = argc > 0 ? argv[0] : "orrery-validate";
    const char *me = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    /* script_validator's log then says which of its scripts spoke */
    if (strcmp(me, "orrery-validate-init") == 0 || strcmp(me, "orrery-validate-compare") == 0)
        vd_set_prog(me);
    if (n_tolerances() > VD_MAX_TOLERANCES)
        return usage("the kinds list %d tolerances, more than %d", n_tolerances(),
                     VD_MAX_TOLERANCES);
    vd_options o;
    double tol[VD_MAX_TOLERANCES];
    int i = 1, rc = vd_parse_options(argc, argv, &o, &i);
    if (rc != VALID)
        return rc;
    vd_default_tolerances(tol);
    rc = load_config(argv0, o.config, tol);
    if (rc != VALID)
        return rc;
    for (int k = 0; k < n_tolerances(); k++)
        if (o.set[k])
            tol[k] = o.tol[k];

    const char *mode = NULL;
    if (strcmp(me, "orrery-validate-init") == 0)
        mode = "init";
    else if (strcmp(me, "orrery-validate-compare") == 0)
        mode = "compare";
    else if (i < argc)
        mode = argv[i++];
    else
        return usage("no mode: init, compare or canonical");
    if (strcmp(mode, "init") != 0 && strcmp(mode, "compare") != 0 &&
        strcmp(mode, "canonical") != 0)
        return usage("unknown mode \"%s\"", mode);
    return run(mode, argv + i, argc - i, tol);
}
