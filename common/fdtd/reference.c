/* The reference ops (ops.h): the state in host memory, stepped by a
 * build's row kernels (rows.h): the plain ones on the calling thread (the
 * reference every backend is tested against), or the CPU backend's ISA
 * build with its threads sharing the k-slabs. Every row's arithmetic is
 * the same on any thread and in any build (sweep.h), so the fields do not
 * depend on either; sums (energy, norms) are made per row in update.h's
 * order and added here row after row. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rows.h"
#include "view.h"

struct fdtd_ctx {
    const fdtd_workunit *wu;
    const fdtd_setup *s;
    const fdtd_rows *rows;
    orr_pool *pool;
    int threads, single;
    void *block[FDTD_MAX_ARRAYS];   /* allocations; the arrays start inside them */
    void *arr[FDTD_MAX_ARRAYS];
    void *tables;                   /* the view's tables in the fields' precision */
    fdtd_view_d vd;
    fdtd_view_f vf;
    double *row_sums;               /* [sy * sz] */
    double *slab_max;               /* [threads] */
    void *scratch;                  /* [threads][3 sx] values */
};

static const void *view_of(const fdtd_ctx *c)
{
    return c->single ? (const void *)&c->vf : (const void *)&c->vd;
}

/* Array a starts a * 320 bytes into its 64-byte aligned block, so the
 * arrays' same cells never share a 4 KiB offset (the source lost up to
 * half its speed to 4 KiB aliasing on a 2-way L1). */
static orr_status alloc_arrays(fdtd_ctx *c, orr_error *err)
{
    const fdtd_setup *s = c->s;
    for (int a = 0; a < s->n_arrays; a++) {
        const size_t bytes = s->array_len[a] * (size_t)s->real_bytes, off = (size_t)a * 320 % 4096;
        if (posix_memalign(&c->block[a], 64, bytes + off))
            return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the fields (%.0f bytes)",
                            s->state_bytes);
        c->arr[a] = (char *)c->block[a] + off;
        memset(c->arr[a], 0, bytes);
    }
    return ORR_OK;
}

/* The view over the arrays, with setup.c's table rounded once to REAL. */
#define FILL_VIEW(REAL, v)                                                         \
    do {                                                                           \
        const fdtd_setup *s = c->s;                                                \
        REAL *t = c->tables = malloc(s->table_len * sizeof(REAL));                 \
        if (!t)                                                                    \
            return orr_fail(err, ORR_ERR_NOMEM, "out of memory");                  \
        for (size_t i = 0; i < s->table_len; i++)                                  \
            t[i] = (REAL)s->table[i];                                              \
        for (int f = 0; f < FDTD_N_FIELDS; f++)                                    \
            (v).f[f] = c->arr[f];                                                  \
        for (int q = 0; q < FDTD_N_PSI; q++)                                       \
            (v).psi[q] = s->pml ? c->arr[FDTD_N_FIELDS + q] : NULL;                \
        (v).ca = t;                                                                \
        (v).cb = t + s->n_coef;                                                    \
        (v).eps = s->eps;                                                          \
        (v).dh = (REAL)s->dh;                                                      \
        for (int a = 0; a < 3; a++) {                                              \
            (v).map[a] = s->coef_map[a];                                           \
            (v).d[a] = (REAL)s->d[a];                                              \
            (v).dhd[a] = (REAL)(s->dh / s->d[a]);                                  \
            (v).n[a] = s->n[a];                                                    \
            (v).cbd[a] = t + s->cbd_at[a];                                         \
            for (int h = 0; s->pml && h < 2; h++) {                                \
                (v).b[h][a] = t + s->prof_at[h][a];                                \
                (v).c[h][a] = (v).b[h][a] + s->n[a] + 2;                           \
                (v).cd[h][a] = (v).c[h][a] + s->n[a] + 2;                          \
            }                                                                      \
        }                                                                          \
        (v).t = s->pml;                                                            \
        (v).fast = c->wu->arithmetic == FDTD_FAST;                                 \
        (v).sx = s->sx;                                                            \
        (v).sy = s->sy;                                                            \
        memcpy((v).lo, s->lo, sizeof s->lo);                                       \
        memcpy((v).hi, s->hi, sizeof s->hi);                                       \
    } while (0)

static orr_status fill_view_d(fdtd_ctx *c, orr_error *err)
{
    FILL_VIEW(double, c->vd);
    return ORR_OK;
}

static orr_status fill_view_f(fdtd_ctx *c, orr_error *err)
{
    FILL_VIEW(float, c->vf);
    return ORR_OK;
}

static void ref_close(fdtd_ctx *c)
{
    if (!c)
        return;
    for (int a = 0; a < FDTD_MAX_ARRAYS; a++)
        free(c->block[a]);
    free(c->tables);
    free(c->row_sums);
    free(c->slab_max);
    free(c->scratch);
    free(c);
}

static orr_status ref_open(void *state, const fdtd_workunit *wu, const fdtd_setup *s, fdtd_ctx **out,
                           orr_error *err)
{
    const fdtd_cpu_state *cpu = state;
    fdtd_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->wu = wu;
    c->s = s;
    c->single = s->real_bytes == 4;
    c->rows = cpu ? (c->single ? &cpu->rows->f : &cpu->rows->d)
                  : (c->single ? &fdtd_plain_rows.f : &fdtd_plain_rows.d);
    c->pool = cpu ? cpu->pool : NULL;
    c->threads = c->pool ? orr_pool_threads(c->pool) : 1;
    c->row_sums = malloc((size_t)s->sy * s->sz * sizeof *c->row_sums);
    c->scratch = malloc((size_t)c->threads * 3 * s->sx * s->real_bytes);
    c->slab_max = malloc((size_t)c->threads * sizeof *c->slab_max);
    orr_status st = c->row_sums && c->scratch && c->slab_max ? alloc_arrays(c, err)
                                              : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (st == ORR_OK)
        st = c->single ? fill_view_f(c, err) : fill_view_d(c, err);
    if (st != ORR_OK) {
        ref_close(c);
        return st;
    }
    *out = c;
    return ORR_OK;
}

/* ---- the slabs over the threads ---- */

/* The source cell set to -J(n) (fdtd.h: made on the host in double, the
 * fields' precision taken once). */
static void set_source(fdtd_ctx *c, long n)
{
    const fdtd_setup *s = c->s;
    if (n > s->n_source)
        return;
    if (c->single)
        ((float *)c->arr[c->wu->source.field])[s->source_at] = (float)-fdtd_source_value(s, n);
    else
        ((double *)c->arr[c->wu->source.field])[s->source_at] = -fdtd_source_value(s, n);
}

typedef struct {
    fdtd_ctx *c;
    int phase;          /* 0: E, 1: H, 2: a norm */
    int with_rows;      /* H: the rows' energies into row_sums */
    const void *x;      /* norm: the array */
} slab_job;

static void slab_task(void *arg, int t)
{
    slab_job *j = arg;
    fdtd_ctx *c = j->c;
    const long sz = c->s->sz, k0 = sz * t / c->threads, k1 = sz * (t + 1) / c->threads;
    double *rows = c->row_sums + c->s->sy * k0;
    if (k0 >= k1)
        return;
    if (j->phase == 0)
        c->rows->e_rows(view_of(c), k0, k1);
    else if (j->phase == 1)
        c->rows->h_rows(view_of(c), k0, k1, j->with_rows ? rows : NULL,
                        (char *)c->scratch + (size_t)t * 3 * c->s->sx * c->s->real_bytes);
    else
        c->rows->norm_rows(view_of(c), j->x, k0, k1, rows, &c->slab_max[t]);
}

static void each_slab(fdtd_ctx *c, slab_job *j)
{
    j->c = c;
    if (c->pool && c->threads > 1)
        orr_pool_run(c->pool, c->threads, slab_task, j);
    else
        slab_task(j, 0);
}

/* One step in the spec's order: the E phase, the source, the H phase
 * (each over every slab). */
static void one_step(fdtd_ctx *c, long n, int with_rows)
{
    slab_job e = {.phase = 0};
    each_slab(c, &e);
    set_source(c, n);
    slab_job h = {.phase = 1, .with_rows = with_rows};
    each_slab(c, &h);
}

/* The rows' sums added in order (k, then j). */
static double sum_rows(const fdtd_ctx *c)
{
    double total = 0;
    for (long r = 0; r < c->s->sy * c->s->sz; r++)
        total += c->row_sums[r];
    return total;
}

static double value_at(const fdtd_ctx *c, int a, long at)
{
    return c->single ? (double)((const float *)c->arr[a])[at] : ((const double *)c->arr[a])[at];
}

static orr_status ref_steps(fdtd_ctx *c, long first, int count, double *probes, double *energy,
                            orr_error *err)
{
    const fdtd_setup *s = c->s;
    (void)err;
    for (long n = first; n < first + count; n++) {
        const int with_rows = fdtd_energy_at(c->wu, n);
        one_step(c, n, with_rows);
        if (with_rows)
            *energy++ = 0.5 * (s->d[0] * s->d[1] * s->d[2] * sum_rows(c));
        for (int p = 0; p < s->n_probes; p++)
            probes[(n - first) * s->n_probes + p] = value_at(c, s->probes[p].field, s->probe_at[p]);
    }
    return ORR_OK;
}

static orr_status ref_norms(fdtd_ctx *c, double l2[FDTD_N_FIELDS], double max[FDTD_N_FIELDS],
                            orr_error *err)
{
    (void)err;
    for (int f = 0; f < FDTD_N_FIELDS; f++) {
        slab_job j = {.phase = 2, .x = c->arr[f]};
        each_slab(c, &j);
        l2[f] = sqrt(sum_rows(c));
        max[f] = 0;
        for (int t = 0; t < c->threads; t++)
            max[f] = c->slab_max[t] > max[f] || c->slab_max[t] != c->slab_max[t] ? c->slab_max[t] : max[f];
    }
    return ORR_OK;
}

static orr_status ref_read(fdtd_ctx *c, int a, void *host, orr_error *err)
{
    (void)err;
    memcpy(host, c->arr[a], c->s->array_len[a] * (size_t)c->s->real_bytes);
    return ORR_OK;
}

static orr_status ref_write(fdtd_ctx *c, int a, const void *host, orr_error *err)
{
    (void)err;
    memcpy(c->arr[a], host, c->s->array_len[a] * (size_t)c->s->real_bytes);
    return ORR_OK;
}

const fdtd_ops fdtd_reference_ops = {
    .open = ref_open,
    .close = ref_close,
    .steps = ref_steps,
    .norms = ref_norms,
    .read = ref_read,
    .write = ref_write,
};

orr_status fdtd_ops_of(orr_backend *be, fdtd_bound_ops *out, orr_error *err)
{
    out->ops = &fdtd_reference_ops;
    out->state = NULL;
    if (!be)
        return ORR_OK;
    const orr_kind_slot *slot;
    orr_status st = orr_backend_slot(be, FDTD_KIND_NAME, &slot, err);
    if (st == ORR_OK && slot->ops) {
        out->ops = slot->ops;
        out->state = slot->state;
    }
    return st;
}
