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

/* The table's status words, by dif_point_status ("pending" is never
 * written). */
extern const char *const dif_point_status_words[DIF_POINT_STATUSES];

/* How far a converged point's efficiencies may break energy conservation
 * before it is `unbalanced` rather than `ok` (docs/diffraction.md section
 * 4): R_total + T_total <= 1 + tol always (a passive target; R_total
 * alone with a lossy substrate), and >= 1 - tol when every material at
 * the point's wavelength is lossless. The model's discretisation error
 * shows here (the spec's coarsest grating, 8 slices and 10 orders: 5.9e-4);
 * 1e-2 is a discretisation far too coarse (slices much thicker than the
 * wavelength), whose numbers a library must not take. */
#define DIF_ENERGY_TOLERANCE 1e-2

/* The rule above on a row's numbers alone, for the app and for
 * orrery-validate (which recomputes it from the table's 17 digits and so
 * knows the substrate but not the stack's other materials):
 * DIF_BALANCE_OK, DIF_BALANCE_UNBALANCED, or DIF_BALANCE_IF_LOSSLESS
 * (R_total + T_total < 1 - tol over a lossless substrate: unbalanced if
 * and only if every material is lossless at the point's wavelength). */
enum { DIF_BALANCE_OK, DIF_BALANCE_UNBALANCED, DIF_BALANCE_IF_LOSSLESS };
int dif_energy_balance(double r_total, double t_total, int lossy_substrate);

/* DIF_POINT_OK, or DIF_POINT_UNBALANCED by the rule above, for a point
 * that converged with the outputs in res. */
int dif_point_balance(const dif_workunit *wu, const dif_point *pt, const dif_point_result *res);

/* ORR_OK when every number of point p's row is finite where the table
 * has a number (nan only for T, T_total and absorbed over a lossy
 * substrate); else ORR_ERR_NUMERIC naming the file, the point and the
 * quantity (exit 70: the results are not written). */
orr_status dif_point_check_finite(const dif_workunit *wu, const dif_setup *s, const dif_point *pt,
                                  int p, const dif_point_result *res, const double *R,
                                  const double *T, orr_error *err);

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
