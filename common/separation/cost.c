/* What a work unit costs and holds (docs/separation.md section 10): the
 * flop model the work generator tells BOINC, the grid's size and memory,
 * and the limits a work unit must stay within. --check prints exactly the
 * numbers the limits judge: both come from sep_work_unit_size. */
#include "separation.h"

#include <string.h>

#include "../checkpoint.h"

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

/* a * b into *out; 0 if it would overflow (both are non-negative). */
static int mul_fits(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0 || (a != 0 && b > INT64_MAX / a))
        return 0;
    *out = a * b;
    return 1;
}

/* One area's cells and the bytes of its host tables (setup.c: irv and K
 * per r step, r_point and qw_r3_N per r step and node, nu and id per nu
 * step) and of a GPU's column directions (one per mu x nu column). */
static int area_size(const sep_area *a, int convolve, int64_t *cells, double *host_bytes,
                     double *direction_bytes)
{
    int64_t columns;
    if (!mul_fits(a->mu.steps, a->nu.steps, &columns) || !mul_fits(columns, a->r.steps, cells))
        return 0;
    *host_bytes = ((double)a->r.steps * (2.0 + 2.0 * convolve) + 2.0 * a->nu.steps) * sizeof(double);
    *direction_bytes = (double)columns * sizeof(sep_direction);
    return 1;
}

/* The common shape: the tags of results.txt (-t; the same as stderr's)
 * are about 360 bytes a member and 48 a stream, with %.15f values; the
 * checkpoint is sep_run_state whatever the unit. */
static void unit_cost(sep_work_size *z, const sep_params *p, int n_stars)
{
    orr_unit_cost *u = &z->unit;
    memset(u, 0, sizeof *u);
    u->host_bytes = z->memory_bytes;
    u->device_bytes = z->table_bytes;
    u->results_bytes = 256 + z->members * (360.0 + 48.0 * p->n_streams);
    u->checkpoint_bytes = orr_checkpoint_file_bytes(sizeof(sep_run_state));
    u->flops = z->cost.fpops_est;
    snprintf(u->sizes, sizeof u->sizes, "%lld cells, %d stars, %d bundle member%s", z->cells,
             n_stars, z->members, z->members == 1 ? "" : "s");
}

orr_status sep_work_unit_size(const sep_params *p, int n_stars, int members, sep_work_size *z,
                              orr_error *err)
{
    double host = 0.0, directions = 0.0;
    z->cells = 0;
    z->members = members;
    for (int a = 0; a < p->n_areas; a++) {
        int64_t cells;
        double h, d;
        if (!area_size(&p->areas[a], p->convolve, &cells, &h, &d) || cells > INT64_MAX - z->cells)
            return orr_fail(err, ORR_ERR_INPUT, "area %d: the grid's cell count overflows 64 bits",
                            a);
        z->cells += cells;
        host += h;
        directions += d;
    }
    /* The CPU app pads a copy of the node tables and a GPU app uploads
     * one, and makes the directions: the larger of the two is at most the
     * host's tables again plus the directions. */
    z->table_bytes = 2.0 * host + directions;
    /* What the CPU app holds at its peak: the stars (positions,
     * probabilities, the decompressed text while parsing), the grid
     * tables, their padded copy and the threads' node tables, and the
     * process itself (measured: see workunits/README.md). */
    z->memory_bytes = 40e6 + n_stars * (3.0 * 8 + 8.0 * (1 + p->n_streams) + 64.0) + 3.0 * host;
    sep_estimate_cost(p, n_stars, members, &z->cost);
    unit_cost(z, p, n_stars);
    return ORR_OK;
}

orr_status sep_work_unit_limits(const sep_work_size *z, const sep_params *p, const char *what,
                                orr_error *err)
{
    if ((double)z->cells > SEP_MAX_CELLS)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: the work unit has %.3g grid cells (%d area%s), more than the limit of %.3g a work unit",
                        what, (double)z->cells, p->n_areas, p->n_areas == 1 ? "" : "s",
                        SEP_MAX_CELLS);
    if (z->table_bytes > SEP_MAX_TABLE_BYTES)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: the grid's tables need %.3g bytes (%d area%s, convolve %d), more than the limit of %.3g a work unit",
                        what, z->table_bytes, p->n_areas, p->n_areas == 1 ? "" : "s", p->convolve,
                        SEP_MAX_TABLE_BYTES);
    if (z->cost.model_flops > SEP_MAX_MODEL_FLOPS)
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: the work unit costs %.3g model flops (%d bundle member%s of %.3g), more than the limit of %.3g a work unit",
                        what, z->cost.model_flops, z->members, z->members == 1 ? "" : "s",
                        z->cost.integral_flops + z->cost.likelihood_flops, SEP_MAX_MODEL_FLOPS);
    return ORR_OK;
}
