/* Fuzz target: the validator's readers (the program script_validator runs
 * on volunteers' result files: workunits/validate/, every kind's
 * workunits/K/validate.c), linked from the fuzz library (tests/Makefile.inc
 * adds them to FUZZ_SOURCES; main.c, the program's main, stays out). The
 * input's first byte picks what the rest is:
 *   0  a result file, checked as `orrery-validate init FILE` does (vd_load)
 *   1  two result files (FUZZ_SEP between them), compared as `compare`
 *   2  a configuration file (vd_read_config: key = value lines)
 *   3  the command line (argv[1..], words separated by NUL or newline)
 *   4  a result file through `canonical` (vd_load with a dump, orrery-assimilate's
 *      one reader): it must judge the file as init does, and what it writes
 *      for a valid one must be one line of well-formed JSON (checked by
 *      json_value below), nothing for an invalid one
 * (the byte modulo 5). Every kind's reader is reached by the file's first
 * line (the seeds hold each); gzip input, several members of it too
 * (seed init-two-members.gz). Its messages go to stderr (run with
 * -close_fd_mask=2, as tests/fuzz/fuzz.sh does, to keep the log short). */
#include "fuzz_util.h"

#include <math.h>

#include "../../workunits/validate/validate.h"

/* A JSON value at *p (RFC 8259 syntax, no blanks but single spaces after
 * ',' and ':' as the dump writes); advances *p past it. 0 if malformed. */
static int json_value(const char **p, int depth)
{
    const char *s = *p;
    if (depth > 8)
        return 0;
    if (*s == '{' || *s == '[') {
        const char close = *s == '{' ? '}' : ']';
        s++;
        if (*s != close)
            for (;;) {
                if (close == '}') {
                    if (*s != '"' || !json_value(&s, depth + 1) || strncmp(s, ": ", 2) != 0)
                        return 0;
                    s += 2;
                }
                if (!json_value(&s, depth + 1))
                    return 0;
                if (strncmp(s, ", ", 2) != 0)
                    break;
                s += 2;
            }
        if (*s != close)
            return 0;
        *p = s + 1;
        return 1;
    }
    if (*s == '"') {
        for (s++; *s != '"'; s++) {
            if ((unsigned char)*s < 0x20 || *s == 0x7f)
                return 0;
            if (*s == '\\' && !(s[1] == '"' || s[1] == '\\' ||
                                 (s[1] == 'u' && strspn(s + 2, "0123456789abcdef") >= 4)))
                return 0;
            if (*s == '\\')
                s += s[1] == 'u' ? 5 : 1;
        }
        *p = s + 1;
        return 1;
    }
    if (strncmp(s, "null", 4) == 0) {
        *p = s + 4;
        return 1;
    }
    size_t n = 0;
    while (s[n] && strchr("+-.0123456789eE", s[n]))
        n++;
    double v;
    if (n == 0 || !vd_json_number_form(s, n) || orr_parse_double(s, n, &v) != 0 || !isfinite(v))
        return 0;
    *p = s + n;
    return 1;
}

/* load with a dump: the same verdict as without, one JSON line if valid. */
static void check_canonical(const char *path, const double *tol)
{
    char *out = NULL;
    size_t len = 0;
    FILE *dump = open_memstream(&out, &len);
    if (!dump)
        return;
    const int with = vd_load(path, tol, dump);
    fclose(dump);
    const int without = vd_load(path, tol, NULL);
    if (with != without)
        abort();
    const char *p = out;
    if (with == VALID && (!json_value(&p, 0) || strcmp(p, "\n") != 0))
        abort();
    if (with != VALID && len != 0)
        abort();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int mode = data[0] % 5;
    data++;
    size--;
    char a[PATH_MAX + 16], b[PATH_MAX + 16];
    double tol[VD_MAX_TOLERANCES];
    vd_default_tolerances(tol);
    switch (mode) {
    case 0:
        (void)vd_load(fuzz_file("in0", data, size, a, sizeof a), tol, NULL);
        break;
    case 1: {
        const uint8_t *part[2];
        size_t len[2];
        const int n = fuzz_split(data, size, part, len, 2);
        fuzz_file("in0", part[0], len[0], a, sizeof a);
        fuzz_file("in1", part[n - 1], len[n - 1], b, sizeof b);
        (void)vd_compare(a, b, tol);
        break;
    }
    case 2:
        (void)vd_read_config(fuzz_file("in0", data, size, a, sizeof a), tol);
        break;
    case 3: {
        static char buf[1 << 14];
        char *argv[66];
        argv[0] = "orrery-validate";
        const int n = fuzz_words(data, size, buf, sizeof buf, argv + 1, 64);
        argv[n + 1] = NULL;
        vd_options o;
        int next = 0;
        (void)vd_parse_options(n + 1, argv, &o, &next);
        break;
    }
    case 4:
        check_canonical(fuzz_file("in0", data, size, a, sizeof a), tol);
        break;
    }
    return 0;
}
