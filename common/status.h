/* Status codes shared by every module: one table gives each code its enum
 * name, the process exit code the driver uses for it, and a short message.
 * Library code returns these and fills an orr_error with the context (file,
 * line, key); only the driver turns them into exit codes and BOINC outcomes. */
#ifndef ORRERY_STATUS_H
#define ORRERY_STATUS_H

#include <stddef.h>

/* Exit codes follow sysexits(3): they stay clear of BOINC's reserved
 * 192-208 and tell a volunteer's log reader what kind of failure it was.
 * A device failure is one of two rows. ORR_ERR_DEVICE (75, EX_TEMPFAIL)
 * is transient: busy, out of memory now, lost; another try on this host
 * may work, so under BOINC it is a temporary exit. ORR_ERR_DEVICE_UNFIT
 * (78, EX_CONFIG: this host's device or driver is not set up for the
 * work) is permanent for this host: the kernels do not build, the device
 * lacks a capability (double precision, correctly rounded division, a
 * large enough work group), the unit can never fit its memory, the driver
 * is too old. Retried here it fails again until the deadline, so it ends
 * the task as an error and the server sends the work to another host. It
 * is not 69 (the unit asks for what this build lacks, on every host), so
 * that an admin can count the hosts a plan class lets through wrongly.
 * X(name, exit_code, transient, message) */
#define ORR_STATUS_TABLE(X)                                                  \
    X(ORR_OK,              0,  0, "success")                                 \
    X(ORR_ERR_USAGE,       64, 0, "invalid command line")                    \
    X(ORR_ERR_PARSE,       65, 0, "malformed input file")                    \
    X(ORR_ERR_INPUT,       65, 0, "invalid input value")                     \
    X(ORR_ERR_OPEN,        66, 0, "cannot open input file")                  \
    X(ORR_ERR_UNSUPPORTED, 69, 0, "unsupported feature requested")           \
    X(ORR_ERR_INTERNAL,    70, 0, "internal error")                          \
    X(ORR_ERR_NOMEM,       71, 0, "out of memory")                           \
    X(ORR_ERR_WRITE,       74, 0, "cannot write output file")                \
    X(ORR_ERR_DEVICE,      75, 1, "compute device unavailable")              \
    X(ORR_ERR_DEVICE_UNFIT, 78, 0, "compute device cannot run this work")    \
    X(ORR_ERR_NUMERIC,     70, 0, "non-finite intermediate result")          \
    X(ORR_ERR_CHECKPOINT,  74, 0, "checkpoint cannot be used")               \
    X(ORR_QUIT,            0,  1, "quit requested")

typedef enum {
#define ORR_STATUS_ENUM(name, code, transient, msg) name,
    ORR_STATUS_TABLE(ORR_STATUS_ENUM)
#undef ORR_STATUS_ENUM
    ORR_STATUS_COUNT
} orr_status;

/* An error travelling up from library code: the status and one line of
 * context that names the file, line and field where that makes sense. */
typedef struct {
    orr_status status;
    char message[768];
} orr_error;

const char *orr_status_name(orr_status s);
const char *orr_status_message(orr_status s);
int orr_status_exit_code(orr_status s);
/* Transient failures (no usable GPU now, out of device memory now) should be
 * retried later on the same host: under BOINC they become a temporary exit.
 * Every other error ends the task with its exit code (boinc_finish). */
int orr_status_is_transient(orr_status s);

/* Record an error with printf-style context; returns status so callers can
 * write `return orr_fail(err, ORR_ERR_PARSE, "...", ...);`. err may be NULL. */
orr_status orr_fail(orr_error *err, orr_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void orr_error_clear(orr_error *err);

#endif
