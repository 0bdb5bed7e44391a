/* Fuzz target: the `spectral` subcommand (common/spectral/tool.c and
 * kind.c) end to end on the CPU: its command line through the driver's
 * parser (common/app/driver.c, included for its static parse_command),
 * then spec_command: the .npy inputs read, checked against the op and
 * transformed, the output written.
 *
 * The input: option words (separated by NUL bytes or newlines), then each
 * input .npy file after a FUZZ_SEP line. The target builds
 *   orrery_cpu spectral WORDS... IN0.npy ... OUT.npy --nthreads 1 --cpu
 * keeping only option words (and the values of --op and --norm): file
 * names come from the target alone, so nothing outside its folder is
 * read or written, and one thread keeps runs short. */
#include "fuzz_util.h"

#include "app/driver.c"

#define MAX_WORDS 32

static int is_option(const char *w)
{
    return w[0] == '-' && w[1] != '\0';
}

static int is_threads(const char *w)
{
    return strncmp(w, "--nthreads", 10) == 0 || strncmp(w, "--threads", 9) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[FUZZ_MAX_PARTS];
    size_t len[FUZZ_MAX_PARTS];
    const int parts = fuzz_split(data, size, part, len, 6);   /* words + up to 5 files */

    static char buf[4096];
    char *words[MAX_WORDS];
    const int n = fuzz_words(part[0], len[0], buf, sizeof buf, words, MAX_WORDS);

    char paths[FUZZ_MAX_PARTS][PATH_MAX + 16];
    char *argv[MAX_WORDS + FUZZ_MAX_PARTS + 8];
    int argc = 0;
    argv[argc++] = "orrery_cpu";
    argv[argc++] = "spectral";
    for (int i = 0; i < n; i++) {
        const int value = argc > 2 && (strcmp(argv[argc - 1], "--op") == 0 ||
                                       strcmp(argv[argc - 1], "--norm") == 0);
        if ((is_option(words[i]) && !is_threads(words[i])) || value)
            argv[argc++] = words[i];
    }
    for (int k = 1; k < parts; k++) {
        char name[8];
        snprintf(name, sizeof name, "in%d", k - 1);
        argv[argc++] = (char *)fuzz_file(name, part[k], len[k], paths[k], sizeof paths[k]);
    }
    argv[argc++] = (char *)fuzz_path("out", paths[0], sizeof paths[0]);
    argv[argc++] = "--nthreads";
    argv[argc++] = "1";
    argv[argc++] = "--cpu";
    argv[argc] = NULL;

    command c;
    orr_error err;
    orr_error_clear(&err);
    if (parse_command(argc, argv, &c, &err) == ORR_OK && !c.help && !c.version &&
        c.kind->tool && c.kind->mode && c.kind->mode(c.opts) == ORR_RUN_TOOL) {
        int failed = 0;
        (void)c.kind->tool(c.opts, NULL, NULL, &failed, &err);
    }
    free(c.opts);
    return 0;
}
