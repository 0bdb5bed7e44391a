/* The readers every kind's validator shares: messages, whole files,
 * tokens and the number rules (a result's numbers are finite unless a
 * kind says nan; whole numbers within a range), parameter names. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "validate.h"

/* Who speaks (the name the program was run by: script_validator's log
 * then tells init from compare) and, during a compare, the two results. */
static const char *vd_prog = "orrery-validate";
static const char *vd_pair[2];

void vd_set_prog(const char *name)
{
    vd_prog = name;
}

void vd_set_pair(const char *a, const char *b)
{
    vd_pair[0] = a;
    vd_pair[1] = b;
}

int vd_vsay(int rc, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", vd_prog);
    if (vd_pair[0])
        fprintf(stderr, "%s against %s: ", vd_pair[0], vd_pair[1]);
    vfprintf(stderr, fmt, ap);
    fputs(rc == RETRY ? " (transient: script_validator retries)\n" : "\n", stderr);
    return rc;
}

int vd_say(int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vd_vsay(rc, fmt, ap);
    va_end(ap);
    return rc;
}

int vd_read_whole(const char *path, size_t max, int bad_content, orr_buffer *buf)
{
    struct stat st;
    /* stat first: a FIFO would block the open, a directory opens. */
    if (stat(path, &st) != 0)
        return vd_say(RETRY, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return vd_say(RETRY, "%s: not a regular file", path);
    orr_error err;
    orr_error_clear(&err);
    orr_status s = orr_read_file(path, max, 1, buf, &err);
    if (s == ORR_OK)
        return VALID;
    return vd_say(s == ORR_ERR_OPEN || s == ORR_ERR_NOMEM ? RETRY : bad_content, "%s",
                  err.message);
}

int vd_tokens(const char *s, size_t len, const char **tok, size_t *tlen, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len)
            break;
        const size_t start = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        if (n == max)
            return max + 1;
        tok[n] = s + start;
        tlen[n++] = i - start;
    }
    return n;
}

int vd_tok_eq(const char *t, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(t, word, n) == 0;
}

int vd_word(const char *t, size_t len, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (vd_tok_eq(t, len, words[i]))
            return i;
    return -1;
}

int vd_number(const char *t, size_t n, int allow_nan, double *out)
{
    if (allow_nan && (vd_tok_eq(t, n, "nan") || vd_tok_eq(t, n, "-nan"))) {
        *out = NAN;
        return 0;
    }
    return orr_parse_double(t, n, out) == 0 && isfinite(*out) ? 0 : -1;
}

int vd_number_from(const char *t, size_t n, double lo, double *out)
{
    return vd_number(t, n, 0, out) == 0 && *out >= lo ? 0 : -1;
}

int vd_whole(const char *t, size_t n, long lo, long hi, int *out)
{
    long v;
    if (orr_parse_long(t, n, &v) != 0 || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int vd_long(const char *t, size_t n, long lo, long hi, long *out)
{
    return orr_parse_long(t, n, out) == 0 && *out >= lo && *out <= hi ? 0 : -1;
}

int vd_name_add(vd_name_set *set, const char *t, size_t len)
{
    if (len == 0 || len > VD_NAME_MAX_LEN || set->n == VD_NAME_SET_MAX ||
        !(isalpha((unsigned char)t[0]) || t[0] == '_'))
        return -1;
    for (size_t i = 1; i < len; i++)
        if (!isalnum((unsigned char)t[i]) && t[i] != '_')
            return -1;
    for (int i = 0; i < set->n; i++)
        if (strlen(set->name[i]) == len && memcmp(set->name[i], t, len) == 0)
            return -1;
    memcpy(set->name[set->n], t, len);
    set->name[set->n++][len] = '\0';
    return 0;
}
