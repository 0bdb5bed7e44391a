/* A point's outputs from its solved field, and the results table
 * (docs/diffraction.md sections 1, 3 and 4). */
#ifndef ORRERY_DIFFRACTION_REPORT_H
#define ORRERY_DIFFRACTION_REPORT_H

#include "diffraction.h"

/* r00, the totals and every order's R[q], T[q] from w = deps * u: NAN
 * for an order that propagates neither way; T NAN for a lossy substrate,
 * 0 for an order that propagates only up (R likewise). */
void dif_point_outputs(const dif_setup *s, const dif_point *pt, const double complex *w,
                       dif_point_result *res, double *R, double *T);

/* work_unit: the work unit file's FNV-1a 64 hash (the same from every backend). */
void dif_write_header(FILE *f, const dif_workunit *wu, const dif_setup *s, const char *backend,
                      uint64_t work_unit);
/* At most the bytes dif_write_point writes for point p, whose wave
 * numbers pt holds (the orders it lists are those that propagate). */
double dif_point_line_bytes(const dif_workunit *wu, const dif_setup *s, int p, const dif_point *pt);
/* At most the bytes of the header and the end line. */
double dif_header_bytes(const dif_workunit *wu);
void dif_write_point(FILE *f, const dif_workunit *wu, const dif_setup *s, int p,
                     const dif_point_result *res, const double *R, const double *T);

#endif
