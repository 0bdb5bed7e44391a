/* Either method behind one face (mom.h: mom_problem): the cells, and for
 * LCN its nodes and local corrections (lcn.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "entries.h"
#include "lcn.h"

orr_status mom_problem_init(const mom_workunit *wu, mom_problem *p, orr_error *err)
{
    memset(p, 0, sizeof *p);
    if (wu->far_field == MOM_FAR_EXACT && wu->method == MOM_METHOD_LCN)
        return orr_fail(err, ORR_ERR_INPUT, "%s: far_field exact is MoM's (pulses over flat "
                        "cells), not LCN's", wu->path);
    p->far_field = wu->far_field;
    orr_status st = mom_geometry_init(wu, &p->g, err);
    if (st != ORR_OK)
        return st;
    if (wu->method == MOM_METHOD_MOM) {
        p->n = p->g.n, p->px = p->g.cx, p->py = p->g.cy, p->pw = p->g.w;
        return ORR_OK;
    }
    if (!(p->lcn = calloc(1, sizeof *p->lcn)))
        st = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (st == ORR_OK)
        st = mom_lcn_init(wu, p->g.n, p->lcn, err);
    if (st != ORR_OK) {
        free(p->lcn);
        p->lcn = NULL;
        mom_geometry_free(&p->g);
        return st;
    }
    p->n = p->lcn->n, p->px = p->lcn->x, p->py = p->lcn->y, p->pw = p->lcn->wt;
    return ORR_OK;
}

void mom_problem_free(mom_problem *p)
{
    if (p->lcn) {
        mom_lcn_free(p->lcn);
        free(p->lcn);
    }
    mom_geometry_free(&p->g);
    memset(p, 0, sizeof *p);
}

static void mom_column(const mom_geometry *g, int j, double *col)
{
    const double k_eta_4 = g->k * MOM_ETA / 4;
    for (int i = 0; i < g->n; i++) {
        if (i == j)
            mom_z_self(k_eta_4, g->k, g->w[j], &col[2 * i], &col[2 * i + 1]);
        else
            mom_z_far(k_eta_4, g->k, g->w[j], g->cx[i] - g->cx[j], g->cy[i] - g->cy[j], &col[2 * i],
                      &col[2 * i + 1]);
    }
}

void mom_problem_column(const mom_problem *p, int j, double *col)
{
    if (p->lcn)
        mom_lcn_column(p->lcn, j, col);
    else
        mom_column(&p->g, j, col);
}
