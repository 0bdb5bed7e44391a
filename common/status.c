/* The status table made into lookups, and the error recorder. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

static const struct {
    const char *name;
    int exit_code;
    int transient;
    const char *message;
} status_info[ORR_STATUS_COUNT] = {
#define ORR_STATUS_ROW(name, code, transient, msg) {#name, code, transient, msg},
    ORR_STATUS_TABLE(ORR_STATUS_ROW)
#undef ORR_STATUS_ROW
};

static int status_valid(orr_status s)
{
    return (int)s >= 0 && s < ORR_STATUS_COUNT;
}

const char *orr_status_name(orr_status s)
{
    return status_valid(s) ? status_info[s].name : "ORR_UNKNOWN";
}

const char *orr_status_message(orr_status s)
{
    return status_valid(s) ? status_info[s].message : "unknown status";
}

int orr_status_exit_code(orr_status s)
{
    return status_valid(s) ? status_info[s].exit_code : 70;
}

int orr_status_is_transient(orr_status s)
{
    return status_valid(s) ? status_info[s].transient : 0;
}

orr_status orr_fail(orr_error *err, orr_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return status;
}

void orr_error_clear(orr_error *err)
{
    if (err) {
        err->status = ORR_OK;
        err->message[0] = '\0';
    }
}
