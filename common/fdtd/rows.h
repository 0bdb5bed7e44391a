/* The row kernels a build provides (sweep.h, included per precision):
 * the reference's plain loops (reference.c) and the CPU backend's ISA
 * builds (app_cpu/fdtd/). The views are fdtd_view_d / fdtd_view_f of
 * sweep.h, passed as void * so this header needs neither precision. */
#ifndef ORRERY_FDTD_ROWS_H
#define ORRERY_FDTD_ROWS_H

#include "../threads.h"
#include "ops.h"

typedef struct {
    /* E: sweep and CPML terms of every row of slabs k0..k1-1 */
    void (*e_rows)(const void *view, long k0, long k1);
    /* H likewise; rows (not NULL): each row's energy, scratch 3 sx values */
    void (*h_rows)(const void *view, long k0, long k1, double *rows, void *scratch);
    /* sum of squares of array x per row, and its largest magnitude */
    void (*norm_rows)(const void *view, const void *x, long k0, long k1, double *rows, double *max);
} fdtd_rows;

typedef struct {
    fdtd_rows d, f;   /* double, single */
} fdtd_row_kernels;

/* The reference's: plain loops, built without vectorisation. */
extern const fdtd_row_kernels fdtd_plain_rows;

/* What the reference ops take as state: a build's rows and the threads
 * that share the slabs (the CPU backend's); NULL state: the plain rows on
 * the calling thread. */
typedef struct {
    const fdtd_row_kernels *rows;
    orr_pool *pool;
} fdtd_cpu_state;

#endif
