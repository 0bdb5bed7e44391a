/* The check before a result is written, and the file name in front of the
 * errors that stop a run (finite.h). */
#include "finite.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

long orr_nonfinite_at(const double *v, long n, long stride)
{
    for (long i = 0; i < n; i++)
        if (!isfinite(v[i * stride]))
            return i;
    return -1;
}

orr_status orr_nonfinite(orr_error *err, const char *file, double value, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return orr_fail(err, ORR_ERR_NUMERIC, "%s: %s is %g: not finite; nothing is reported", file,
                    what, value);
}

orr_status orr_error_in_file(orr_error *err, const char *file)
{
    if (!err)
        return ORR_ERR_INTERNAL;
    const size_t n = strlen(file), room = sizeof err->message, head = n + 2;
    if ((strncmp(err->message, file, n) == 0 && err->message[n] == ':') || head >= room)
        return err->status;
    const size_t len = strlen(err->message), keep = len < room - 1 - head ? len : room - 1 - head;
    memmove(err->message + head, err->message, keep);   /* the end goes when it must */
    err->message[head + keep] = '\0';
    memcpy(err->message, file, n);
    err->message[n] = ':';
    err->message[n + 1] = ' ';
    return err->status;
}
