/* The few things every Orrery module shares: status codes and errors,
 * messages to the log (stderr, or BOINC's stderr.txt), and (portable.h)
 * compensated summation, whose exact semantics the science kinds depend on. */
#ifndef ORRERY_H
#define ORRERY_H

#include "portable.h"
#include "status.h"

#define ORR_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Diagnostics for a person reading the log. Result tags are not written
 * with these: reports write their own exact format. */
void orr_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A one-line status (progress) redrawn in place at the bottom of a terminal;
 * NULL erases it. Only for a person watching: callers decide whether stderr
 * is a terminal. orr_log erases it before writing. */
void orr_log_status_line(const char *text);

#endif
