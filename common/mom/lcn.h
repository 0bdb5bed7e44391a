/* The locally corrected Nystrom (LCN) discretisation of the EFIE
 * (docs/mom.md section 1.1): q-point Gauss-Legendre nodes on
 * each cell, the unknowns the currents J at the nodes (n = cells * q).
 *
 * Z[m][j] = (k eta/4) wt_j H0^(2)(k |r_m - r_j|) for a source node j on a
 * cell far from observer node m. For the cells near m (its own and those
 * whose nearest point is within NEAR_WIDTHS of their own lengths, lcn.c)
 * the q entries of the cell are replaced by corrected ones, chosen so that
 * sum_i Z[m][cq+i] P_l(u_i) = (k eta/4) int_cell P_l(u(s)) H0^(2)(k R(s)) ds
 * for the Legendre polynomials P_l, l < q, in the cell's local coordinate u
 * in [-1, 1] (linear in arc length). The integrals: lcn.c.
 *
 * Geometry. A polygon's cells are exactly geometry.c's (same numbering,
 * flat). A circle's cells are the exact arcs of the true circle, cell i
 * from angle 2 pi i/N to 2 pi (i+1)/N, parametrised by arc length: on the
 * spec's inscribed N-gon (which MoM keeps) the error against the exact
 * circle series would stop falling at the polygon's O(1/N^2) geometry error
 * instead of falling with q. Measured (ka 4.5, the N-gon given as a
 * polygon): q 1, 2 converge at second order (8e-3 at N 40, q 2), q 3, 4 only
 * at first and worse (3e-2, 4e-2 at N 40), as the N-gon's vertices are weak
 * corners (J ~ r^(-2/N)) that the Gauss nodes next to them sample; on the
 * arcs q 4 gives 6e-6 at N 40.
 *
 * mom_lcn_column and mom_lcn_moments only read the struct: threads may
 * share it. The echo width is far_field.c's, by these nodes and weights. */
#ifndef ORRERY_MOM_LCN_H
#define ORRERY_MOM_LCN_H

#include "mom.h"

#define MOM_LCN_GRADED_ORDER 16   /* Gauss points on each piece of a graded (near) integral */
#define MOM_LCN_SIDE_ORDER 32     /* Gauss / product-log points on each side of a self cell */

/* The fixed quadrature rules, made once at init. */
typedef struct {
    double u[MOM_MAX_ORDER], w[MOM_MAX_ORDER];  /* the q-point Gauss-Legendre rule on [-1, 1] */
    double gu[MOM_LCN_GRADED_ORDER], gw[MOM_LCN_GRADED_ORDER];  /* on [-1, 1] */
    double st[MOM_LCN_SIDE_ORDER], sw[MOM_LCN_SIDE_ORDER];      /* Gauss-Legendre on [0, 1] */
    double slog[MOM_LCN_SIDE_ORDER];  /* int_0^1 f(t) ln t dt ~ sum slog_g f(st_g) */
} mom_lcn_rules;

typedef struct mom_lcn {
    int q, cells, n;            /* n = cells * q unknowns */
    double k;
    double *x, *y;              /* [n] nodes */
    double *wt;                 /* [n] quadrature weights (arc length) */
    double *tx, *ty;            /* [n] unit tangents at the nodes (for reference) */
    int *near_start;            /* [n + 1]: observer node m's corrections are
                                   near_start[m] .. near_start[m+1]-1 */
    int *near_col;              /* [nnz] the source unknown (column) */
    double *near_re, *near_im;  /* [nnz] the corrected entry Z[m][col] itself (k eta/4 included) */
    /* the same corrections column by column (mom_lcn_column) */
    int *col_start;             /* [n + 1] */
    int *col_row;               /* [nnz] the observer node (row) */
    double *col_re, *col_im;    /* [nnz] */
    /* the cells: arcs of a circle of this radius (> 0), or, radius 0, flat
     * cells; either way each cell's midpoint (cell_x, cell_y), unit tangent
     * there (cell_tx, cell_ty) and length (arc length on the circle) */
    double radius;
    double *cell_x, *cell_y, *cell_tx, *cell_ty, *cell_len;  /* [cells] */
    mom_lcn_rules rules;
} mom_lcn;

/* The nodes, weights and corrections for wu (its `order` is q). cells: N
 * as geometry.c computes it (mom_geometry_init gives it). Errors:
 * ORR_ERR_INPUT (order, cells, radius out of range), ORR_ERR_INTERNAL
 * (cells differs from geometry.c's count for a polygon), ORR_ERR_NOMEM,
 * ORR_ERR_NUMERIC (a correction not finite). */
orr_status mom_lcn_init(const mom_workunit *wu, int cells, mom_lcn *l, orr_error *err);
void mom_lcn_free(mom_lcn *l);

/* Z's column j (all rows), far formula then the near corrections that
 * fall in column j, as (re, im) pairs into col[2n]. */
void mom_lcn_column(const mom_lcn *l, int j, double *col);

/* The local-correction integrals themselves (exposed for the tests):
 * b_l = int_cell P_l(u(s)) H0^(2)(k |r_m - r(s)|) ds, l < q, observer node
 * m, source cell c (its own cell by singularity subtraction, any other by
 * graded Gauss), into re[q], im[q]; k eta/4 not included. */
void mom_lcn_moments(const mom_lcn *l, int m, int c, double *re, double *im);

#endif
