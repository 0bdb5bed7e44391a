/* The batched iterative solver of (I - k0^2 G deps) u = u_b, written once
 * over a backend's ops (ops.h): every piece runs for all active points of
 * the batch together, and a point leaves the batch when it converges.
 * The method is a row of a table (method.h), chosen by the work unit:
 * BiCGStab (bicgstab.c, the default: a point's scalars and five vectors
 * are its state between iterations) or GMRES(m) (gmres.c: the batch's
 * points go through cycles in step, saved between cycles, where x is a
 * point's whole state). Saved and restored, the iterations continue with
 * the very same bits. */
#ifndef ORRERY_DIFFRACTION_SOLVER_H
#define ORRERY_DIFFRACTION_SOLVER_H

#include "method.h"

/* Storage for batches of up to *capacity points (the backend may lower it). */
orr_status dif_solver_open(dif_solver *sv, const dif_bound_ops *ops, const dif_workunit *wu,
                           const dif_setup *s, int *capacity, orr_error *err);
void dif_solver_close(dif_solver *sv);
/* A new batch: b's tables loaded, every point started from u_b. */
orr_status dif_solver_start(dif_solver *sv, const dif_batch *b, orr_error *err);
/* The same batch from saved state: the tables loaded, st and the saved
 * vectors (saved_vectors per running position, in position order) put back. */
orr_status dif_solver_resume(dif_solver *sv, const dif_batch *b, const dif_solve_state *st,
                             const double complex *vectors, orr_error *err);
/* Iterations of the running points for about `seconds` (at least one;
 * 0: one iteration of every running point on a GPU or with GMRES, at
 * least one of some point on a CPU's lanes); *running: how many still
 * are. A point's iterations are the same bits however they fall into
 * calls. */
orr_status dif_solver_run(dif_solver *sv, double seconds, int *running, orr_error *err);
/* Whether the state is whole between the solver's steps now (GMRES: only
 * between cycles). */
int dif_solver_saveable(const dif_solver *sv);
/* The saved vectors of every running position, in position order, into
 * out (saved_vectors * unknowns each). */
orr_status dif_solver_save(dif_solver *sv, double complex *out, orr_error *err);
/* w = deps * x of position b, on the host (the orders' amplitudes need it). */
orr_status dif_solver_field(dif_solver *sv, int b, double complex *w, orr_error *err);

#endif
