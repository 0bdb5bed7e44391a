/* Log lines go to stderr; under BOINC the runtime has pointed stderr at the
 * slot's stderr.txt, which is what the project sees. */
#include "orrery.h"

#include <stdarg.h>
#include <stdio.h>

void orr_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
}
