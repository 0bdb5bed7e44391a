/* Every result is checked before it is written: a value that is not finite
 * (an overflow, a NaN) is never reported as success. The kinds' reports
 * find the first such value with orr_nonfinite_at and refuse with
 * orr_nonfinite, which names the work unit and the quantity (exit 70,
 * ORR_ERR_NUMERIC). Errors that stop a run in the middle get the work
 * unit's name in front with orr_error_in_file, so that every exit-70
 * message says which file it was about. */
#ifndef ORRERY_FINITE_H
#define ORRERY_FINITE_H

#include <stddef.h>

#include "status.h"

/* The index i (0 <= i < n) of the first v[i * stride] that is not finite,
 * or -1 when all are. */
long orr_nonfinite_at(const double *v, long n, long stride);

/* ORR_ERR_NUMERIC: "FILE: QUANTITY is VALUE: not finite; nothing is
 * reported", QUANTITY from fmt (which should say where: "energy at step
 * 40", "point 3 R(1,0)"). */
orr_status orr_nonfinite(orr_error *err, const char *file, double value, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Puts "FILE: " in front of err's message unless it already starts with
 * it (a backend's error knows no file); returns err's status. */
orr_status orr_error_in_file(orr_error *err, const char *file);

#endif
