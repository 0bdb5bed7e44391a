/* Fuzz target: the apps' command line (common/app/driver.c): the one
 * parser every app runs first, with every kind's option table, positional
 * words and cross checks (separation's -np/-p values, spectral's
 * op/norm/file checks). The input is argv[1..]: words separated by NUL
 * bytes or newlines. Only parsing: nothing named on the line is opened.
 * driver.c is included so that its static parser can be called. */
#include "fuzz_util.h"

#include "app/driver.c"

#define MAX_WORDS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[1 << 16];
    char *argv[MAX_WORDS + 2];
    argv[0] = "orrery_cpu";
    const int n = fuzz_words(data, size, buf, sizeof buf, argv + 1, MAX_WORDS);
    argv[n + 1] = NULL;
    command c;
    orr_error err;
    orr_error_clear(&err);
    if (parse_command(n + 1, argv, &c, &err) == ORR_OK && !c.help && !c.version && c.kind->mode)
        (void)c.kind->mode(c.opts);
    free(c.opts);
    return 0;
}
