/* The FDTD ops on a GPU (device.h): the state on the device from open to
 * close, tables uploaded once, steps launched in paced batches with their
 * probes and energy rows read back once a launch, outputs poisoned before
 * the kernels that fill them, every transfer inside a critical section.
 * The sums' last stage (rows in order of k, then j) is the reference's,
 * on the host, so energies and norms carry the reference's bits. */
#include "device.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

#define MAX_LAUNCH_STEPS 1024      /* steps one launch may hold (non-responsive) */
#define ROWS_BYTES (32.0 * 1024 * 1024)   /* energy rows held on the device between read-backs */
#define MAX_ENERGY_BATCH 256

typedef struct {
    orr_device *dev;
    const fdtd_device_kernels *k;
    void *kern;
    orr_gpu_pacer pacer;          /* a launch is a batch of steps */
} fdtd_gpu;

struct fdtd_ctx {
    fdtd_gpu *g;
    const fdtd_workunit *wu;
    const fdtd_setup *s;
    fdtd_dims dm;
    fdtd_device_bufs b;
    int64_t rows_len;             /* sy sz: one row sum per (j, k) */
    int e_cap;                    /* energy steps whose rows the device holds at once */
    double *rows, *rows_max;      /* host copies [e_cap][rows_len], [rows_len] */
};

/* ---- sizes and tables ---- */

static void dims_of(const fdtd_workunit *wu, const fdtd_setup *s, fdtd_dims *dm)
{
    memset(dm, 0, sizeof *dm);
    for (int a = 0; a < 3; a++) {
        dm->d[a] = s->d[a];
        dm->dhd[a] = s->dh / s->d[a];
        dm->n[a] = s->n[a];
    }
    dm->dh = s->dh;
    dm->mu0 = FDTD_MU0;
    dm->sx = s->sx;
    dm->sy = s->sy;
    dm->sz = s->sz;
    dm->cells = (int64_t)s->cells;
    dm->t = s->pml;
    dm->n_coef = s->n_coef;
    dm->single = s->real_bytes == 4;
    dm->fast = wu->arithmetic == FDTD_FAST;
    dm->has_map = s->coef_map[0] != NULL;
    memcpy(dm->lo, s->lo, sizeof dm->lo);
    memcpy(dm->hi, s->hi, sizeof dm->hi);
    memcpy(dm->cbd, s->cbd_at, sizeof dm->cbd);
    memcpy(dm->prof, s->prof_at, sizeof dm->prof);
    /* each phase's launch box: the union of its three fields' live ranges */
    for (int ph = 0; ph < 2; ph++)
        for (int a = 0; a < 3; a++) {
            dm->box[ph][0][a] = s->lo[3 * ph][a];
            dm->box[ph][1][a] = s->hi[3 * ph][a];
            for (int f = 3 * ph + 1; f < 3 * ph + 3; f++) {
                dm->box[ph][0][a] = s->lo[f][a] < dm->box[ph][0][a] ? s->lo[f][a] : dm->box[ph][0][a];
                dm->box[ph][1][a] = s->hi[f][a] > dm->box[ph][1][a] ? s->hi[f][a] : dm->box[ph][1][a];
            }
        }
    dm->n_probes = s->n_probes;
}

/* setup.c's table in the fields' precision (NULL: out of memory; the
 * double one is setup's own, not to be freed). */
static const void *table_in(const fdtd_setup *s, float **single)
{
    *single = NULL;
    if (s->real_bytes == 8)
        return s->table;
    float *f = *single = malloc(s->table_len * sizeof *f);
    for (size_t i = 0; f && i < s->table_len; i++)
        f[i] = (float)s->table[i];
    return f;
}

/* ---- buffers ---- */

static orr_dmem *all_bufs(fdtd_device_bufs *b, int *n)
{
    *n = (int)(sizeof *b / sizeof(orr_dmem));
    return (orr_dmem *)b;
}

static void bufs_free(orr_device *d, fdtd_device_bufs *b)
{
    int n;
    orr_dmem *m = all_bufs(b, &n);
    for (int i = 0; i < n; i++)
        if (m[i]) {
            d->api->release(d, m[i]);
            m[i] = NULL;
        }
}

static orr_status alloc_filled(orr_device *d, size_t bytes, unsigned char byte, orr_dmem *out,
                               orr_error *err)
{
    orr_status st = orr_device_upload_new(d, NULL, bytes, out, err);
    return st == ORR_OK ? d->api->fill(d, *out, byte, bytes, err) : st;
}

static double rows_bytes(const fdtd_ctx *c)
{
    return (double)c->rows_len * sizeof(double);
}

/* What the device holds: the state, the maps, tables and outputs. */
static double device_bytes(const fdtd_ctx *c)
{
    const fdtd_setup *s = c->s;
    return s->state_bytes + (s->coef_map[0] ? 3.0 * s->cells * sizeof(uint16_t) : 0) +
           (double)s->table_len * s->real_bytes + s->n_coef * sizeof(double) +
           s->n_probes * (2.0 * sizeof(int64_t) + MAX_LAUNCH_STEPS * sizeof(double)) +
           (c->e_cap + 1) * rows_bytes(c);
}

/* Refused up front, the bytes named: a grid the device can never hold
 * (its whole memory, its largest buffer) for good on this host, since a
 * retry would fail the same way; one that fits the device but not the
 * memory free now (CUDA reports what is free; another program holds the
 * rest) as a temporary failure, tried again later. */
static orr_status check_room(fdtd_ctx *c, orr_error *err)
{
    orr_device *d = c->g->dev;
    const fdtd_setup *s = c->s;
    double avail = 0, one = 0, largest = rows_bytes(c) * c->e_cap;
    orr_status st = c->g->k->memory(d, c->g->kern, &avail, &one, err);
    if (st != ORR_OK)
        return st;
    for (int a = 0; a < s->n_arrays; a++)
        if ((double)s->array_len[a] * s->real_bytes > largest)
            largest = (double)s->array_len[a] * s->real_bytes;
    const double need = device_bytes(c);
    char what[96];
    snprintf(what, sizeof what, "fdtd: the grid of %d x %d x %d cells", s->n[0], s->n[1], s->n[2]);
    st = orr_device_check_fits(d, need, largest, what, err);
    if (st == ORR_OK && (need > avail || largest > one))
        st = orr_fail(err, ORR_ERR_DEVICE,
                      "%s needs %.0f bytes of device memory, %.0f in its largest buffer; %s device "
                      "%s has %.0f free now, %.0f in one buffer", what, need, largest,
                      d->api->api, d->name, avail, one);
    return st;
}

/* The state zeroed, the tables, maps, eps and probes uploaded, the
 * outputs' buffers made; then a wait, so that an allocation a driver
 * makes lazily fails here, named with the bytes. */
static orr_status alloc_all(fdtd_ctx *c, orr_error *err)
{
    orr_device *d = c->g->dev;
    const fdtd_setup *s = c->s;
    fdtd_device_bufs *b = &c->b;
    orr_status st = ORR_OK;
    for (int a = 0; st == ORR_OK && a < s->n_arrays; a++)
        st = alloc_filled(d, s->array_len[a] * (size_t)s->real_bytes, 0,
                          a < FDTD_N_FIELDS ? &b->f[a] : &b->psi[a - FDTD_N_FIELDS], err);
    for (int a = 0; st == ORR_OK && s->coef_map[0] && a < 3; a++)
        st = orr_device_upload_new(d, s->coef_map[a], s->cells * sizeof(uint16_t), &b->map[a], err);
    float *single = NULL;
    const void *tab = st == ORR_OK ? table_in(s, &single) : NULL;
    if (st == ORR_OK && !tab)
        st = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    if (st == ORR_OK)
        st = orr_device_upload_new(d, tab, s->table_len * s->real_bytes, &b->tab, err);
    free(single);
    if (st == ORR_OK)
        st = orr_device_upload_new(d, s->eps, (size_t)s->n_coef * sizeof(double), &b->eps, err);
    int64_t *at = st == ORR_OK ? malloc((size_t)s->n_probes * 2 * sizeof *at) : NULL;
    if (st == ORR_OK && !at)
        st = orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int p = 0; st == ORR_OK && p < s->n_probes; p++) {
        at[2 * p] = s->probes[p].field;
        at[2 * p + 1] = s->probe_at[p];
    }
    if (st == ORR_OK)
        st = orr_device_upload_new(d, at, (size_t)s->n_probes * 2 * sizeof *at, &b->probe_at, err);
    free(at);
    if (st == ORR_OK)
        st = alloc_filled(d, (size_t)MAX_LAUNCH_STEPS * s->n_probes * sizeof(double), 0xff,
                          &b->probe_out, err);
    if (st == ORR_OK)
        st = alloc_filled(d, (size_t)(c->e_cap * rows_bytes(c)), 0xff, &b->rows, err);
    if (st == ORR_OK)
        st = alloc_filled(d, (size_t)rows_bytes(c), 0xff, &b->rows_max, err);
    if (st == ORR_OK)
        st = d->api->finish(d, 0, err);
    if (st != ORR_OK && st != ORR_ERR_NOMEM && err) {
        orr_error why = *err;
        return orr_fail(err, st, "fdtd: placing %.0f bytes on %s device %s: %s", device_bytes(c),
                        d->api->api, d->name, why.message);
    }
    return st;
}

static void gpu_close(fdtd_ctx *c)
{
    if (!c)
        return;
    bufs_free(c->g->dev, &c->b);
    free(c->rows);
    free(c->rows_max);
    free(c);
}

static orr_status gpu_open(void *state, const fdtd_workunit *wu, const fdtd_setup *s, fdtd_ctx **out,
                           orr_error *err)
{
    fdtd_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->g = state;
    c->wu = wu;
    c->s = s;
    dims_of(wu, s, &c->dm);
    c->rows_len = (int64_t)s->sy * s->sz;
    const double fit = floor(ROWS_BYTES / rows_bytes(c));
    c->e_cap = !wu->energy_every || fit < 1 ? 1 : fit > MAX_ENERGY_BATCH ? MAX_ENERGY_BATCH : (int)fit;
    c->rows = malloc((size_t)(c->e_cap * rows_bytes(c)));
    c->rows_max = malloc((size_t)rows_bytes(c));
    orr_status st = c->rows && c->rows_max ? ORR_OK : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    orr_device *d = c->g->dev;
    if (st == ORR_OK)
        st = c->g->k->prepare(d, c->g->kern, &c->dm, err);
    if (st == ORR_OK)
        st = check_room(c, err);
    if (st == ORR_OK)
        st = alloc_all(c, err);
    if (st != ORR_OK) {
        gpu_close(c);
        return st;
    }
    orr_log("fdtd: %.0f bytes on %s device %s", device_bytes(c), d->api->api, d->name);
    *out = c;
    return ORR_OK;
}

/* ---- steps ---- */

/* The rows' sums added in order (k, then j), as reference.c's sum_rows. */
static double sum_rows(const fdtd_ctx *c, const double *rows)
{
    double total = 0;
    for (int64_t r = 0; r < c->rows_len; r++)
        total += rows[r];
    return total;
}

/* One step's launches; rows_at >= 0: an energy step's rows there. */
static orr_status step_once(fdtd_ctx *c, long n, int64_t rows_at, int64_t out_at, orr_error *err)
{
    const fdtd_device_kernels *k = c->g->k;
    orr_device *d = c->g->dev;
    const fdtd_setup *s = c->s;
    orr_status st = k->e_phase(d, c->g->kern, &c->dm, &c->b, err);
    /* the source's value made on the host: -J(n), rounded by the launch to the fields' precision */
    if (st == ORR_OK && n <= s->n_source)
        st = k->points(d, c->g->kern, &c->dm, &c->b, 1, c->wu->source.field, s->source_at,
                       -fdtd_source_value(s, n), 0, err);
    if (st == ORR_OK)
        st = k->h_phase(d, c->g->kern, &c->dm, &c->b, rows_at, err);
    if (st == ORR_OK)
        st = k->points(d, c->g->kern, &c->dm, &c->b, 0, 0, 0, 0.0, out_at, err);
    return st;
}

typedef struct {
    fdtd_ctx *c;
    long first;                   /* the call's first step */
    double *probes, *energy;      /* the call's outputs */
    int e;                        /* energies written */
} step_call;

/* Steps first + offset .. + n - 1, read back in parts of at most e_cap
 * energy steps (run_chunks holds the critical section). */
static orr_status launch_steps(void *p, int offset, int n, orr_error *err)
{
    step_call *sc = p;
    fdtd_ctx *c = sc->c;
    orr_device *d = c->g->dev;
    const int np = c->s->n_probes;
    const int any_energy = c->wu->energy_every != 0;
    orr_status st = ORR_OK;
    for (int done = 0; st == ORR_OK && done < n;) {
        int m = 0, e = 0;
        st = orr_device_poison(d, c->b.probe_out, (size_t)(n - done) * np * sizeof(double), err);
        if (st == ORR_OK && any_energy)
            st = orr_device_poison(d, c->b.rows, (size_t)(c->e_cap * rows_bytes(c)), err);
        for (; st == ORR_OK && done + m < n; m++) {
            const long step = sc->first + offset + done + m;
            const int with_energy = fdtd_energy_at(c->wu, step);
            if (with_energy && e == c->e_cap)
                break;
            st = step_once(c, step, with_energy ? e++ * c->rows_len : -1, (int64_t)m * np, err);
        }
        if (st == ORR_OK)
            st = d->api->download(d, sc->probes + (size_t)(offset + done) * np, c->b.probe_out, 0,
                                  (size_t)m * np * sizeof(double), err);
        if (st == ORR_OK && e)
            st = d->api->download(d, c->rows, c->b.rows, 0, (size_t)(e * rows_bytes(c)), err);
        if (st == ORR_OK)
            st = d->api->finish(d, orr_gpu_pacer_expected_s(&c->g->pacer, m), err);
        for (int q = 0; st == ORR_OK && q < e; q++)
            sc->energy[sc->e++] = 0.5 * (c->s->d[0] * c->s->d[1] * c->s->d[2] *
                                         sum_rows(c, c->rows + q * c->rows_len));
        done += m;
    }
    return st;
}

static orr_status gpu_steps(fdtd_ctx *c, long first, int count, double *probes, double *energy,
                            orr_error *err)
{
    step_call sc = {c, first, probes, energy, 0};
    return orr_gpu_run_chunks(&c->g->pacer, count, launch_steps, &sc, err);
}

/* ---- norms and the state ---- */

static orr_status norm_rows(fdtd_ctx *c, int f, orr_error *err)
{
    orr_device *d = c->g->dev;
    const size_t bytes = (size_t)rows_bytes(c);
    orr_status st = orr_device_poison(d, c->b.rows, bytes, err);
    if (st == ORR_OK)
        st = orr_device_poison(d, c->b.rows_max, bytes, err);
    if (st == ORR_OK)
        st = c->g->k->norm(d, c->g->kern, &c->dm, &c->b, f, err);
    if (st == ORR_OK)
        st = d->api->download(d, c->rows, c->b.rows, 0, bytes, err);
    if (st == ORR_OK)
        st = d->api->download(d, c->rows_max, c->b.rows_max, 0, bytes, err);
    return st == ORR_OK ? d->api->finish(d, 0, err) : st;
}

static orr_status gpu_norms(fdtd_ctx *c, double l2[FDTD_N_FIELDS], double max[FDTD_N_FIELDS],
                            orr_error *err)
{
    orr_status st = ORR_OK;
    for (int f = 0; st == ORR_OK && f < FDTD_N_FIELDS; f++) {
        orr_runtime_begin_critical();
        st = norm_rows(c, f, err);
        orr_runtime_end_critical();
        if (st != ORR_OK)
            break;
        l2[f] = sqrt(sum_rows(c, c->rows));
        max[f] = 0;   /* a NaN anywhere stays (reference.c's rule) */
        for (int64_t r = 0; r < c->rows_len; r++) {
            const double m = c->rows_max[r];
            max[f] = m > max[f] || m != m ? m : max[f];
        }
    }
    return st;
}

static orr_dmem array_of(fdtd_ctx *c, int a)
{
    return a < FDTD_N_FIELDS ? c->b.f[a] : c->b.psi[a - FDTD_N_FIELDS];
}

static orr_status gpu_read(fdtd_ctx *c, int a, void *host, orr_error *err)
{
    orr_device *d = c->g->dev;
    orr_runtime_begin_critical();
    orr_status st = d->api->download(d, host, array_of(c, a), 0,
                                     c->s->array_len[a] * (size_t)c->s->real_bytes, err);
    if (st == ORR_OK)
        st = d->api->finish(d, 0, err);
    orr_runtime_end_critical();
    return st;
}

static orr_status gpu_write(fdtd_ctx *c, int a, const void *host, orr_error *err)
{
    orr_device *d = c->g->dev;
    orr_runtime_begin_critical();
    orr_status st = d->api->upload(d, array_of(c, a), 0, host,
                                   c->s->array_len[a] * (size_t)c->s->real_bytes, err);
    orr_runtime_end_critical();
    return st;
}

static const fdtd_ops gpu_ops = {
    .open = gpu_open,
    .close = gpu_close,
    .steps = gpu_steps,
    .norms = gpu_norms,
    .read = gpu_read,
    .write = gpu_write,
};

static void gpu_release(void *state)
{
    fdtd_gpu *g = state;
    char what[64];
    snprintf(what, sizeof what, "%s fdtd steps", g->dev->api->api);
    orr_gpu_pacer_report(&g->pacer, what);
    if (g->k->release)
        g->k->release(g->dev, g->kern);
    free(g);
}

orr_status fdtd_device_attach(orr_device *d, const fdtd_device_kernels *k, void *kern,
                              orr_kind_slot *slot, orr_error *err)
{
    fdtd_gpu *g = calloc(1, sizeof *g);
    if (!g) {
        if (k->release)
            k->release(d, kern);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    g->dev = d;
    g->k = k;
    g->kern = kern;
    /* one step fills the device: a slot is a step */
    orr_gpu_pacer_init(&g->pacer, &d->request, 1, MAX_LAUNCH_STEPS);
    slot->ops = &gpu_ops;
    slot->state = g;
    slot->release = gpu_release;
    return ORR_OK;
}
