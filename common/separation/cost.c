/* The flop model of a work unit (docs/separation.md section 10): what the work generator
 * tells BOINC, so the client can schedule and the server can bound it. */
#include "separation.h"

void sep_estimate_cost(const sep_params *p, int n_stars, int members, sep_cost *c)
{
    const double ns = p->n_streams, cv = p->convolve;
    double f = 0.0;
    for (int a = 0; a < p->n_areas; a++) {
        const sep_area *ar = &p->areas[a];
        f += (ar->r.steps / 100.0) * (ar->mu.steps / 100.0) * (ar->nu.steps / 100.0);
    }
    c->integral_flops = f * (4.0 + 2.0 * ns + cv * (56.0 + 58.0 * ns)) * 1e6;
    c->likelihood_flops = n_stars * (cv * (100.0 + 58.0 * ns) + 251.0 + 12.0 * ns + 54.0);
    c->model_flops = (c->integral_flops + c->likelihood_flops) * members;
    c->fpops_est = (1.7 * c->integral_flops + c->likelihood_flops) * members;
}
