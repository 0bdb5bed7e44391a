/* The steps both of the solver's methods take (method.h). */
#include "method.h"

#include <math.h>

int dif_solver_running(dif_solver *sv)
{
    int n = 0;
    for (int b = 0; b < sv->n; b++)
        if (sv->st[b].status == DIF_RUNNING)
            sv->active[n++] = b;
    return n;
}

orr_status dif_solver_true_residual(dif_solver *sv, int n, orr_error *err)
{
    const dif_ops *o = sv->ops.ops;
    orr_status st = o->matvec(sv->ctx, sv->active, n, DIF_VX, DIF_VT, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        sv->coef[2 * a] = 1;
        sv->coef[2 * a + 1] = -1;
    }
    if (st == ORR_OK)
        st = o->lincomb(sv->ctx, sv->active, n, DIF_VT, 2, (const int[]){DIF_VB, DIF_VT}, sv->coef, err);
    if (st == ORR_OK)
        st = o->dots(sv->ctx, sv->active, n, 1, (const int[]){DIF_VT, DIF_VT}, sv->dots, err);
    for (int a = 0; st == ORR_OK && a < n; a++) {
        dif_solve_state *p = &sv->st[sv->active[a]];
        p->residual = sqrt(creal(sv->dots[a])) / p->norm_b;
    }
    return st;
}
