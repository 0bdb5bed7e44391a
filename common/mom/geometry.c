/* The boundary cut into flat cells (docs/mom.md section 1): a circle is
 * the inscribed N-gon, vertex i at a(cos 2 pi i/N, sin 2 pi i/N), cell i
 * from vertex i to i+1; a polygon's edges are split into equal cells,
 * numbered from its first vertex. With `density P` a circle takes
 * N = ceil(P 2 pi a / lambda) cells and each polygon edge
 * ceil(P len / lambda) (no cell longer than 1/P wavelengths); with `cells
 * N` a polygon's edges share N in proportion to their lengths, at least
 * one each, the remainders going to the longest fractions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mom.h"

#define PI 3.14159265358979323846

static orr_status alloc(mom_geometry *g, int n, orr_error *err)
{
    double **arrays[] = {&g->cx, &g->cy, &g->tx, &g->ty, &g->w};
    g->n = n;
    for (size_t a = 0; a < ORR_ARRAY_LEN(arrays); a++)
        if (!(*arrays[a] = malloc((size_t)n * sizeof(double))))
            return orr_fail(err, ORR_ERR_NOMEM, "no memory for %d cells", n);
    return ORR_OK;
}

/* Cells first .. first+count-1 on the segment (x0, y0) -> (x1, y1). */
static void cut_edge(mom_geometry *g, int first, int count, double x0, double y0, double x1,
                     double y1)
{
    const double len = hypot(x1 - x0, y1 - y0);
    for (int c = 0; c < count; c++) {
        const double s0 = (double)c / count, s1 = (double)(c + 1) / count;
        const double ax = x0 + s0 * (x1 - x0), ay = y0 + s0 * (y1 - y0);
        const double bx = x0 + s1 * (x1 - x0), by = y0 + s1 * (y1 - y0);
        g->cx[first + c] = 0.5 * (ax + bx);
        g->cy[first + c] = 0.5 * (ay + by);
        g->tx[first + c] = (x1 - x0) / len;
        g->ty[first + c] = (y1 - y0) / len;
        g->w[first + c] = len / count;
    }
}

static orr_status circle(const mom_workunit *wu, mom_geometry *g, orr_error *err)
{
    const double a = wu->radius;
    const long n = wu->cells ? wu->cells : (long)ceil(wu->density * 2 * PI * a / wu->wavelength);
    if (n < 3 || n > MOM_MAX_CELLS)
        return orr_fail(err, ORR_ERR_INPUT, "%s: density: %ld cells (3..%d allowed)", wu->path, n,
                        MOM_MAX_CELLS);
    orr_status st = alloc(g, (int)n, err);
    for (int i = 0; st == ORR_OK && i < n; i++)
        cut_edge(g, i, 1, a * cos(2 * PI * i / n), a * sin(2 * PI * i / n),
                 a * cos(2 * PI * (i + 1) / n), a * sin(2 * PI * (i + 1) / n));
    return st;
}

static double edge_length(const mom_workunit *wu, int e)
{
    const double *p = wu->vertex + 2 * e, *q = wu->vertex + 2 * ((e + 1) % wu->n_vertices);
    return hypot(q[0] - p[0], q[1] - p[1]);
}

/* `cells N` over the edges: N len_e / perimeter each, at least one, the
 * cells left after the whole parts to the largest fractions. */
static void share_cells(const mom_workunit *wu, double perimeter, long *count)
{
    const int nv = wu->n_vertices;
    long given = 0;
    for (int e = 0; e < nv; e++) {
        count[e] = (long)fmax(1, floor(wu->cells * edge_length(wu, e) / perimeter));
        given += count[e];
    }
    while (given < wu->cells) {
        int best = 0;
        double best_gap = -INFINITY;
        for (int e = 0; e < nv; e++) {
            const double gap = wu->cells * edge_length(wu, e) / perimeter - count[e];
            if (gap > best_gap)
                best_gap = gap, best = e;
        }
        count[best]++, given++;
    }
}

static orr_status polygon(const mom_workunit *wu, mom_geometry *g, orr_error *err)
{
    const int nv = wu->n_vertices;
    long *count = malloc((size_t)nv * sizeof *count), n = 0;
    if (!count)
        return orr_fail(err, ORR_ERR_NOMEM, "no memory for %d edges", nv);
    double perimeter = 0;
    for (int e = 0; e < nv; e++)
        perimeter += edge_length(wu, e);
    if (wu->cells)
        share_cells(wu, perimeter, count);
    else
        for (int e = 0; e < nv; e++)
            count[e] = (long)fmax(1, ceil(wu->density * edge_length(wu, e) / wu->wavelength));
    for (int e = 0; e < nv; e++)
        n += count[e];
    orr_status st = n > MOM_MAX_CELLS
                        ? orr_fail(err, ORR_ERR_INPUT, "%s: density: %ld cells (at most %d allowed)",
                                   wu->path, n, MOM_MAX_CELLS)
                        : alloc(g, (int)n, err);
    for (int e = 0, first = 0; st == ORR_OK && e < nv; first += (int)count[e], e++) {
        const double *p = wu->vertex + 2 * e, *q = wu->vertex + 2 * ((e + 1) % nv);
        cut_edge(g, first, (int)count[e], p[0], p[1], q[0], q[1]);
    }
    free(count);
    return st;
}

/* The boundary's length in wavelengths (the circle's, not its N-gon's). */
static double perimeter_wavelengths(const mom_workunit *wu)
{
    double len = 0;
    if (wu->shape == MOM_CIRCLE)
        len = 2 * PI * wu->radius;
    else
        for (int e = 0; e < wu->n_vertices; e++)
            len += edge_length(wu, e);
    return len / wu->wavelength;
}

orr_status mom_geometry_init(const mom_workunit *wu, mom_geometry *g, orr_error *err)
{
    memset(g, 0, sizeof *g);
    /* k R stays within the range the Hankel functions are tested over
     * (1e5; the widest chord is at most half the perimeter), and the cell
     * counts from the density within a long */
    const double span = perimeter_wavelengths(wu);
    if (!(span <= MOM_MAX_PERIMETER))
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: the boundary is %.3g wavelengths long; at most %g are allowed", wu->path,
                        span, MOM_MAX_PERIMETER);
    if (wu->density && !(wu->density * span <= MOM_MAX_CELLS + wu->n_vertices))
        return orr_fail(err, ORR_ERR_INPUT, "%s: density: %.3g cells (at most %d allowed)", wu->path,
                        wu->density * span, MOM_MAX_CELLS);
    g->k = 2 * PI / wu->wavelength;
    orr_status st = wu->shape == MOM_CIRCLE ? circle(wu, g, err) : polygon(wu, g, err);
    if (st != ORR_OK) {
        mom_geometry_free(g);
        return st;
    }
    for (int i = 0; i < g->n; i++)
        g->perimeter += g->w[i];
    return ORR_OK;
}

void mom_geometry_free(mom_geometry *g)
{
    free(g->cx);
    free(g->cy);
    free(g->tx);
    free(g->ty);
    free(g->w);
    memset(g, 0, sizeof *g);
}
