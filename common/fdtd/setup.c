/* The work unit -> what the steps need (fdtd.h's fdtd_setup): dt, each
 * field's live index ranges under the boundary, the E coefficients of the
 * materials averaged onto the Yee edges, the CPML profiles, the source's
 * values, the probes, and the sizes the plan checks against memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fdtd.h"
#include "update.h"

/* Whether field f's position is half-integer along axis a (the spec's
 * "staggered"): Ex along x, Ey along y, Ez along z; Hx along y and z, Hy
 * along x and z, Hz along x and y. */
static int staggered(int f, int a)
{
    return f < FDTD_HX ? f == a : f - FDTD_HX != a;
}

/* thesis: 1..n on every axis; pec and cpml (electric walls at 0 and n+1):
 * 1..n+1 along staggered axes, 1..n along the others. */
static void live_ranges(const fdtd_workunit *wu, fdtd_setup *s)
{
    for (int f = 0; f < FDTD_N_FIELDS; f++)
        for (int a = 0; a < 3; a++) {
            s->lo[f][a] = 1;
            s->hi[f][a] = s->n[a] + (wu->boundary != FDTD_THESIS && staggered(f, a));
        }
}

/* ---- materials on the Yee edges ---- */

/* The material of every cell (I, J, K) = [I-1, I] x [J-1, J] x [K-1, K]
 * in cells, I = 1..n+1, by its centre; 0 vacuum, m + 1 material m; later
 * regions paint over earlier ones. */
static int cell_in_region(const fdtd_workunit *wu, const fdtd_region *r, long I, long J, long K)
{
    const double p[3] = {(I - 0.5) * wu->d[0], (J - 0.5) * wu->d[1], (K - 0.5) * wu->d[2]};
    if (r->kind == FDTD_BOX)
        return p[0] >= r->lo[0] && p[0] <= r->hi[0] && p[1] >= r->lo[1] && p[1] <= r->hi[1] &&
               p[2] >= r->lo[2] && p[2] <= r->hi[2];
    double q = 0;
    for (int a = 0; a < 3; a++)
        q += (p[a] - r->centre[a]) * (p[a] - r->centre[a]);
    return q <= r->radius * r->radius;
}

/* The cells I = lo..hi (of 1..n + 1) along axis a whose centres can lie
 * in [a0, a1] metres: (I - 1/2) d in it, widened by a cell each way (the
 * test itself decides), empty when lo > hi. */
static void axis_range(double a0, double a1, double d, int n, long *lo, long *hi)
{
    const double f = floor(a0 / d + 0.5) - 1, l = ceil(a1 / d + 0.5) + 1;
    *lo = f < 1 ? 1 : f > n + 1 ? n + 2 : (long)f;
    *hi = l > n + 1 ? n + 1 : l < 1 ? 0 : (long)l;
}

/* A region's bounding box in cells; 0 when it holds none. */
static double region_box(const fdtd_workunit *wu, const fdtd_region *r, long lo[3], long hi[3])
{
    double cells = 1;
    for (int a = 0; a < 3; a++) {
        const double a0 = r->kind == FDTD_BOX ? r->lo[a] : r->centre[a] - r->radius;
        const double a1 = r->kind == FDTD_BOX ? r->hi[a] : r->centre[a] + r->radius;
        axis_range(a0, a1, wu->d[a], wu->n[a], &lo[a], &hi[a]);
        cells *= hi[a] >= lo[a] ? (double)(hi[a] - lo[a] + 1) : 0;
    }
    return cells;
}

double fdtd_paint_cells(const fdtd_workunit *wu)
{
    double cells = 0;
    long lo[3], hi[3];
    for (int r = 0; r < wu->n_regions; r++)
        cells += region_box(wu, &wu->regions[r], lo, hi);
    return cells;
}

/* Each region tests only the cells of its bounding box: painting costs
 * fdtd_paint_cells tests, which plan bounds (FDTD_LIMIT_PAINT_CELLS), not
 * regions x cells. */
static unsigned char *paint_cells(const fdtd_workunit *wu, const fdtd_setup *s)
{
    unsigned char *m = calloc(s->cells, 1);
    if (!m)
        return NULL;
    for (int r = 0; r < wu->n_regions; r++) {
        long lo[3], hi[3];
        if (region_box(wu, &wu->regions[r], lo, hi) == 0)
            continue;
        for (long K = lo[2]; K <= hi[2]; K++)
            for (long J = lo[1]; J <= hi[1]; J++)
                for (long I = lo[0]; I <= hi[0]; I++)
                    if (cell_in_region(wu, &wu->regions[r], I, J, K))
                        m[I + s->sx * (J + s->sy * K)] = (unsigned char)(wu->regions[r].material + 1);
    }
    return m;
}

/* The distinct averages of four cells' materials: keyed by the four
 * material numbers sorted (the average then sums them in one order). */
typedef struct {
    uint32_t *key;
    uint16_t *index;
    size_t size;
} coef_table;

static int cmp_uc(const void *a, const void *b)
{
    return *(const unsigned char *)a - *(const unsigned char *)b;
}

static orr_status coef_add(const fdtd_workunit *wu, fdtd_setup *s, coef_table *t, unsigned char m[4],
                           uint16_t *out, orr_error *err)
{
    qsort(m, 4, 1, cmp_uc);
    const uint32_t key = 1u + (m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24);
    size_t h = (key * 2654435761u) & (t->size - 1);
    while (t->key[h] && t->key[h] != key)
        h = (h + 1) & (t->size - 1);
    if (t->key[h]) {
        *out = t->index[h];
        return ORR_OK;
    }
    if (s->n_coef >= 65535)
        return orr_fail(err, ORR_ERR_INPUT, "%s: the regions make more than 65535 distinct edge materials",
                        wu->path);
    double er = 0, sg = 0;
    for (int q = 0; q < 4; q++) {
        er += m[q] ? wu->materials[m[q] - 1].eps_r : 1.0;
        sg += m[q] ? wu->materials[m[q] - 1].sigma : 0.0;
    }
    const double eps = FDTD_EPS0 * (er / 4), sigma = sg / 4, loss = sigma * s->dt / (2 * eps);
    const double ca = (1 - loss) / (1 + loss), cb = (s->dt / eps) / (1 + loss);
    if (!isfinite(ca) || !isfinite(cb))
        return orr_fail(err, ORR_ERR_INPUT,
                        "%s: material: eps_r %g and sigma %g (averaged on an edge) give no finite "
                        "update coefficient at dt %g", wu->path, er / 4, sigma, s->dt);
    const int i = s->n_coef++;
    s->ca[i] = ca;
    s->cb[i] = cb;
    s->eps[i] = eps;
    t->key[h] = key;
    t->index[h] = (uint16_t)i;
    *out = (uint16_t)i;
    return ORR_OK;
}

/* The four cells around each E edge (fdtd.h's positions): Ex(i,j,k):
 * (i, j|j+1, k|k+1); Ey: (i|i+1, j, k|k+1); Ez: (i|i+1, j|j+1, k). */
static orr_status edge_maps(const fdtd_workunit *wu, fdtd_setup *s, const unsigned char *cellmat,
                            coef_table *t, orr_error *err)
{
    static const int step[3][2][3] = {{{0, 1, 0}, {0, 0, 1}}, {{1, 0, 0}, {0, 0, 1}}, {{1, 0, 0}, {0, 1, 0}}};
    const long st[3] = {1, s->sx, s->sx * s->sy};
    for (int f = 0; f < 3; f++)
        for (long k = 0; k < s->sz; k++)
            for (long j = 0; j < s->sy; j++)
                for (long i = 0; i < s->sx; i++) {
                    const long c = i + s->sx * (j + s->sy * k), p[3] = {i, j, k};
                    unsigned char m[4];
                    for (int q = 0; q < 4; q++) {
                        long at = c, in = 1;
                        for (int a = 0; a < 3; a++) {
                            const long o = (q & 1 ? step[f][0][a] : 0) + (q & 2 ? step[f][1][a] : 0);
                            at += o * st[a];
                            in &= p[a] + o < (a == 0 ? s->sx : a == 1 ? s->sy : s->sz);
                        }
                        m[q] = in ? cellmat[at] : 0;
                    }
                    orr_status r = coef_add(wu, s, t, m, &s->coef_map[f][c], err);
                    if (r != ORR_OK)
                        return r;
                }
    return ORR_OK;
}

static orr_status materials(const fdtd_workunit *wu, fdtd_setup *s, orr_error *err)
{
    const int cap = wu->n_regions ? 65535 : 1;
    s->ca = malloc(cap * sizeof *s->ca);
    s->cb = malloc(cap * sizeof *s->cb);
    s->eps = malloc(cap * sizeof *s->eps);
    if (!s->ca || !s->cb || !s->eps)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    s->n_coef = 1;
    s->ca[0] = 1;
    s->cb[0] = s->dt / FDTD_EPS0;
    s->eps[0] = FDTD_EPS0;
    if (!wu->n_regions)
        return ORR_OK;
    coef_table t = {calloc(1 << 17, sizeof *t.key), calloc(1 << 17, sizeof *t.index), 1 << 17};
    unsigned char *cellmat = paint_cells(wu, s);
    orr_status st = t.key && t.index && cellmat ? ORR_OK : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int f = 0; st == ORR_OK && f < 3; f++)
        if (!(s->coef_map[f] = malloc(s->cells * sizeof *s->coef_map[f])))
            st = orr_fail(err, ORR_ERR_NOMEM, "out of memory for the material maps");
    if (st == ORR_OK) {
        s->n_coef = 0;   /* vacuum is entered again as the first key met... */
        uint16_t v;
        unsigned char vac[4] = {0, 0, 0, 0};
        st = coef_add(wu, s, &t, vac, &v, err);   /* ...at index 0, as the kernels assume */
    }
    if (st == ORR_OK)
        st = edge_maps(wu, s, cellmat, &t, err);
    free(t.key);
    free(t.index);
    free(cellmat);
    return st;
}

/* ---- the CPML ---- */

/* sigma and alpha at depth rho (cells from the layer's inner face), and
 * the recursive convolution's b and c (Roden and Gedney, kappa = 1). */
static void profile_at(const fdtd_workunit *wu, const fdtd_setup *s, int a, double rho, double *b,
                       double *c)
{
    const fdtd_cpml *p = &wu->cpml;
    const double t = p->thickness, eta0 = sqrt(FDTD_MU0 / FDTD_EPS0);
    const double sigma_max = -(p->order + 1) * log(p->reflection) / (2 * eta0 * t * s->d[a]);
    const double sigma = sigma_max * pow(rho / t, p->order), alpha = p->alpha * (1 - rho / t);
    *b = exp(-(sigma + alpha) * s->dt / FDTD_EPS0);
    *c = sigma > 0 ? sigma / (sigma + alpha) * (*b - 1) : 0;
}

static orr_status cpml(const fdtd_workunit *wu, fdtd_setup *s, orr_error *err)
{
    if (wu->boundary != FDTD_CPML)
        return ORR_OK;
    const int t = s->pml = wu->cpml.thickness;
    for (int a = 0; a < 3; a++) {
        const int n = s->n[a];
        double **arr[4] = {&s->be[a], &s->ce[a], &s->bh[a], &s->ch[a]};
        for (int q = 0; q < 4; q++)
            if (!(*arr[q] = malloc((size_t)(n + 2) * sizeof **arr[q])))
                return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
        for (int p = 0; p <= n + 1; p++) {
            s->be[a][p] = s->bh[a][p] = 1;
            s->ce[a][p] = s->ch[a][p] = 0;
            /* E's derivatives at p, H's at p - 1/2; depth from the inner face */
            if (FDTD_PSI_PLANE(p, n, t, 0) >= 0)
                profile_at(wu, s, a, p <= t ? t - p : p - (n + 1 - t), &s->be[a][p], &s->ce[a][p]);
            if (FDTD_PSI_PLANE(p, n, t, 1) >= 0)
                profile_at(wu, s, a, p <= t ? t - (p - 0.5) : (p - 0.5) - (n + 1 - t), &s->bh[a][p],
                           &s->ch[a][p]);
            if (!isfinite(s->be[a][p] + s->ce[a][p] + s->bh[a][p] + s->ch[a][p]))
                return orr_fail(err, ORR_ERR_INPUT,
                                "%s: boundary: the CPML's profile along axis %c is not finite "
                                "(order %g, reflection %g, alpha %g, cell %g m)", wu->path,
                                "xyz"[a], wu->cpml.order, wu->cpml.reflection, wu->cpml.alpha,
                                s->d[a]);
        }
    }
    return ORR_OK;
}

/* ---- the source and the probes ---- */

static double source_value(const fdtd_source *src, long n)
{
    if (src->waveform == FDTD_TABLE)
        return n <= src->n_table ? src->amplitude * src->table[n - 1] : 0;
    const double u = (n - src->delay) / src->width, g = exp(-u * u);
    return src->waveform == FDTD_GAUSS ? src->amplitude * g : src->amplitude * (-2 * u) * g;
}

static long flat(const fdtd_setup *s, const int at[3])
{
    return at[0] + s->sx * (at[1] + s->sy * (long)at[2]);
}

static orr_status source_and_probes(const fdtd_workunit *wu, fdtd_setup *s, orr_error *err)
{
    const fdtd_source *src = &wu->source;
    s->n_source = src->release_after < wu->steps ? src->release_after : wu->steps;
    /* Only the values that can be nonzero are tabled: exp(-u^2) is 0 in
     * double for u > 27.3, and a table ends (a long run's default
     * release_after would otherwise ask for 8 bytes a step). */
    const double last = src->waveform == FDTD_TABLE ? (double)src->n_table
                                                    : floor(src->delay + 28 * src->width) + 1;
    s->n_values = (long)fmin((double)s->n_source, fmax(0, last));
    if (!(s->source = calloc((size_t)s->n_values + 1, sizeof *s->source)))
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the source's %ld values", s->n_values);
    for (long n = 1; n <= s->n_values; n++)
        s->source[n] = source_value(src, n);
    s->source_at = flat(s, wu->source.at);
    s->n_probes = wu->n_probes ? wu->n_probes : 1;
    s->probes = malloc((size_t)s->n_probes * sizeof *s->probes);
    s->probe_at = malloc((size_t)s->n_probes * sizeof *s->probe_at);
    if (!s->probes || !s->probe_at)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (wu->n_probes)
        memcpy(s->probes, wu->probes, (size_t)wu->n_probes * sizeof *s->probes);
    else {
        /* the spec's default: Ez ten cells from the source along x */
        s->probes[0] = (fdtd_probe){0, FDTD_EZ, {wu->source.at[0] + 10, wu->source.at[1], wu->source.at[2]}};
        if (s->probes[0].at[0] > s->n[0] + 1)
            return orr_fail(err, ORR_ERR_INPUT,
                            "%s: probe: none given, and the default (ez ten cells from the source "
                            "along x, i = %d) is outside the grid (i <= %d)",
                            wu->path, s->probes[0].at[0], s->n[0] + 1);
    }
    for (int p = 0; p < s->n_probes; p++)
        s->probe_at[p] = flat(s, s->probes[p].at);
    return ORR_OK;
}

/* fdtd.h's table: every coefficient the kernels read, made here once. */
static orr_status make_table(fdtd_setup *s, orr_error *err)
{
    const size_t nc = (size_t)s->n_coef;
    size_t len = 5 * nc;
    for (int a = 0; s->pml && a < 3; a++)
        len += 6 * (size_t)(s->n[a] + 2);
    double *t = s->table = malloc(len * sizeof *t);
    if (!t)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    s->table_len = len;
    memcpy(t, s->ca, nc * sizeof *t);
    memcpy(t + nc, s->cb, nc * sizeof *t);
    size_t off = 2 * nc;
    for (int a = 0; a < 3; a++, off += nc) {
        s->cbd_at[a] = (int)off;
        for (size_t i = 0; i < nc; i++)
            t[off + i] = s->cb[i] / s->d[a];
    }
    for (int a = 0; s->pml && a < 3; a++) {
        const double *src[2][2] = {{s->be[a], s->ce[a]}, {s->bh[a], s->ch[a]}};
        const int np = s->n[a] + 2;
        for (int h = 0; h < 2; h++, off += 3 * (size_t)np) {
            s->prof_at[h][a] = (int)off;
            for (int i = 0; i < np; i++) {
                t[off + i] = src[h][0][i];
                t[off + np + i] = src[h][1][i];
                t[off + 2 * np + i] = src[h][1][i] / s->d[a];
            }
        }
    }
    return ORR_OK;
}

static void sizes(const fdtd_workunit *wu, fdtd_setup *s)
{
    s->n_arrays = FDTD_N_FIELDS + (s->pml ? FDTD_N_PSI : 0);
    for (int a = 0; a < FDTD_N_FIELDS; a++)
        s->array_len[a] = s->cells;
    for (int q = 0; s->pml && q < FDTD_N_PSI; q++) {
        const int axis = q / 4;
        s->array_len[FDTD_N_FIELDS + q] = s->cells / (axis == 0 ? s->sx : axis == 1 ? s->sy : s->sz) *
                                          2 * (size_t)s->pml;
    }
    s->state_bytes = 0;
    for (int a = 0; a < s->n_arrays; a++)
        s->state_bytes += (double)s->array_len[a] * s->real_bytes;
    s->map_bytes = (s->coef_map[0] ? 3.0 * s->cells * sizeof(uint16_t) : 0) +
                   (double)s->table_len * sizeof(double) +
                   (double)s->n_values * sizeof(double);
    const double interior = (double)s->n[0] * s->n[1] * s->n[2];
    s->flops_per_step = 36 * interior + (s->pml ? 12.0 * 6 * interior * 2 * s->pml / s->n[0] : 0);
}

orr_status fdtd_setup_init(const fdtd_workunit *wu, fdtd_setup *s, orr_error *err)
{
    memset(s, 0, sizeof *s);
    for (int a = 0; a < 3; a++) {
        s->n[a] = wu->n[a];
        s->d[a] = wu->d[a];
    }
    s->sx = s->n[0] + 2;
    s->sy = s->n[1] + 2;
    s->sz = s->n[2] + 2;
    s->cells = (size_t)s->sx * s->sy * s->sz;
    s->dt = wu->courant / (FDTD_C0 * sqrt(1 / (s->d[0] * s->d[0]) + 1 / (s->d[1] * s->d[1]) +
                                          1 / (s->d[2] * s->d[2])));
    s->dh = s->dt / FDTD_MU0;
    s->real_bytes = wu->precision == FDTD_SINGLE ? 4 : 8;
    live_ranges(wu, s);
    orr_status st = materials(wu, s, err);
    if (st == ORR_OK)
        st = cpml(wu, s, err);
    if (st == ORR_OK)
        st = make_table(s, err);
    if (st == ORR_OK)
        st = source_and_probes(wu, s, err);
    if (st != ORR_OK) {
        fdtd_setup_free(s);
        return st;
    }
    sizes(wu, s);
    return ORR_OK;
}

void fdtd_setup_free(fdtd_setup *s)
{
    free(s->ca);
    free(s->cb);
    free(s->eps);
    for (int a = 0; a < 3; a++) {
        free(s->coef_map[a]);
        free(s->be[a]);
        free(s->ce[a]);
        free(s->bh[a]);
        free(s->ch[a]);
    }
    free(s->table);
    free(s->source);
    free(s->probes);
    free(s->probe_at);
    memset(s, 0, sizeof *s);
}
