/* Log lines go to stderr; under BOINC the runtime has pointed stderr at the
 * slot's stderr.txt, which is what the project sees. On a terminal a
 * transient status line (progress) may sit at the bottom; every log line
 * erases it first so the two never interleave. */
#include "orrery.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int status_line_len;   /* characters of the status line now shown */

static void erase_status_line(void)
{
    if (status_line_len > 0) {
        fprintf(stderr, "\r%*s\r", status_line_len, "");
        status_line_len = 0;
    }
}

void orr_log_status_line(const char *text)
{
    if (!text) {
        erase_status_line();
        fflush(stderr);
        return;
    }
    int n = (int)strlen(text);
    /* Pad over the tail of a longer previous line instead of erasing first:
     * no flicker. */
    fprintf(stderr, "\r%s%*s", text, status_line_len > n ? status_line_len - n : 0, "");
    status_line_len = n > status_line_len ? n : status_line_len;
    fflush(stderr);
}

void orr_log(const char *fmt, ...)
{
    va_list ap;
    erase_status_line();
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}
