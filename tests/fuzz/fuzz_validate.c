/* Fuzz target: the validator's readers (workunits/validate.c, the program
 * script_validator runs on volunteers' result files). validate.c is a
 * program: it is included with its main renamed, so that its static
 * functions can be called. The input's first byte picks what the rest is:
 *   0  a result file, checked as `orrery-validate init FILE` does (load)
 *   1  two result files (FUZZ_SEP between them), compared as `compare`
 *   2  a configuration file (read_config: key = value lines)
 *   3  the command line (argv[1..], words separated by NUL or newline)
 * (the byte modulo 4). Its messages go to stderr (run with
 * -close_fd_mask=2, as tests/fuzz/fuzz.sh does, to keep the log short). */
#include "fuzz_util.h"

#define main validate_main
#include "../../workunits/validate.c"
#undef main

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const int mode = data[0] % 4;
    data++;
    size--;
    char a[PATH_MAX + 16], b[PATH_MAX + 16];
    double tol[N_TOL];
    memcpy(tol, tol_defaults, sizeof tol);
    static result_file r;
    switch (mode) {
    case 0:
        (void)load(fuzz_file("in0", data, size, a, sizeof a), &r);
        break;
    case 1: {
        const uint8_t *part[2];
        size_t len[2];
        const int n = fuzz_split(data, size, part, len, 2);
        fuzz_file("in0", part[0], len[0], a, sizeof a);
        fuzz_file("in1", part[n - 1], len[n - 1], b, sizeof b);
        (void)compare(a, b, tol);
        break;
    }
    case 2:
        (void)read_config(fuzz_file("in0", data, size, a, sizeof a), tol);
        break;
    case 3: {
        static char buf[1 << 14];
        char *argv[66];
        argv[0] = "orrery-validate";
        const int n = fuzz_words(data, size, buf, sizeof buf, argv + 1, 64);
        argv[n + 1] = NULL;
        options o;
        int next = 0;
        (void)parse_options(n + 1, argv, &o, &next);
        break;
    }
    }
    return 0;
}
