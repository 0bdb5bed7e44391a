/* What the row kernels (sweep.h) see of the state, one struct a precision
 * (the tables in the fields' precision, rounded once from setup.c's
 * doubles): reference.c fills them, every build's rows read them. */
#ifndef ORRERY_FDTD_VIEW_H
#define ORRERY_FDTD_VIEW_H

#include <stdint.h>

#include "fdtd.h"
#include "update.h"

#define FDTD_VIEW_STRUCT(NAME, REAL)                                                     \
    typedef struct NAME {                                                                \
        REAL *f[FDTD_N_FIELDS];                                                          \
        REAL *psi[FDTD_N_PSI];           /* NULL without the CPML */                     \
        const uint16_t *map[3];          /* E coefficient index a cell; NULL: vacuum */  \
        const REAL *ca, *cb;             /* [n_coef] */                                  \
        const REAL *cbd[3];              /* fast: cb / d[a] */                           \
        const double *eps;               /* [n_coef], for the energy */                  \
        REAL d[3], dh, dhd[3];           /* dhd: dh / d[a] (fast) */                     \
        const REAL *b[2][3], *c[2][3];   /* CPML profiles [h][axis], indices 0..n+1 */   \
        const REAL *cd[2][3];            /* fast: c / d[a] */                            \
        int n[3], t, fast;                                                               \
        long sx, sy;                                                                     \
        int lo[FDTD_N_FIELDS][3], hi[FDTD_N_FIELDS][3];                                  \
    } NAME;

FDTD_VIEW_STRUCT(fdtd_view_d, double)
FDTD_VIEW_STRUCT(fdtd_view_f, float)

#endif
