/* The diffraction ops on a GPU (device.h): storage sized once per work
 * unit (the batch's capacity lowered until the device has the memory),
 * every buffer poisoned when made, tables uploaded per batch, each op a
 * few launches over the active points; the convolutions (the FFTs and the
 * products: nearly all the work) cut into paced launches of whole points. */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"
#include "zop.h"

/* A launch is a number of points; the pacer grows it from one. */
#define MAX_LAUNCH_POINTS (1 << 20)

typedef struct {
    orr_device *dev;
    const dif_device_kernels *k;
    void *kern;
    orr_gpu_pacer pacer;   /* a chunk is a point of a convolution */
} dif_gpu;

struct dif_ctx {
    dif_gpu *g;
    dif_dims dm;
    dif_device_bufs b;
    const dif_setup *s;
    int *active;     /* the active list on the device, as uploaded last */
    int n_active;    /* -1: none yet */
};

enum { N_BUFS = 10 };

/* Every buffer of b, in dif_device_bufs' order. */
static void bufs_list(dif_device_bufs *b, orr_dmem *all[N_BUFS])
{
    orr_dmem *list[N_BUFS] = {&b->vec, &b->grid, &b->spectra, &b->mt, &b->lay, &b->spectrum_of,
                              &b->layer_first, &b->active, &b->coef, &b->dots};
    memcpy(all, list, sizeof list);
}

/* Each buffer's bytes for dm's capacity, in the same order. */
static void bufs_sizes(const dif_dims *dm, size_t bytes[N_BUFS])
{
    const size_t cap = (size_t)dm->capacity, c16 = 2 * sizeof(double);
    const size_t grids = cap * dm->nz * dm->grid * c16;
    const size_t sizes[N_BUFS] = {
        (size_t)dm->n_vectors * cap * dm->unknowns * c16,             /* vec */
        grids, grids,                                                 /* grid, spectra */
        cap * dm->n_modes * DIF_MODE_TABLE * c16,                     /* mt */
        cap * dm->n_modes * dm->n_layers * DIF_LAYER_TABLE * c16,     /* lay */
        cap * sizeof(int), (size_t)(dm->n_layers + 1) * sizeof(int), /* spectrum_of, layer_first */
        cap * sizeof(int), 4 * cap * c16, 4 * cap * c16,              /* active, coef, dots */
    };
    memcpy(bytes, sizes, sizeof sizes);
}

static void bufs_free(orr_device *d, dif_device_bufs *b)
{
    orr_dmem *all[N_BUFS];
    bufs_list(b, all);
    for (int i = 0; i < N_BUFS; i++)
        if (*all[i]) {
            d->api->release(d, *all[i]);
            *all[i] = NULL;
        }
}

static orr_status alloc_poisoned(orr_device *d, size_t bytes, orr_dmem *out, orr_error *err)
{
    orr_status s = orr_device_upload_new(d, NULL, bytes, out, err);
    return s == ORR_OK ? orr_device_poison(d, *out, bytes, err) : s;
}

/* Every buffer for dm's capacity: the outputs poisoned, so that what a
 * kernel fails to write shows; layer_first holds the setup's. */
static orr_status bufs_alloc(orr_device *d, const dif_dims *dm, const dif_setup *s,
                             dif_device_bufs *b, orr_error *err)
{
    static const char poisoned[N_BUFS] = {1, 1, 1, 1, 1, 0, 0, 0, 0, 1};
    orr_dmem *all[N_BUFS];
    size_t bytes[N_BUFS];
    bufs_list(b, all);
    bufs_sizes(dm, bytes);
    orr_status st = ORR_OK;
    for (int i = 0; st == ORR_OK && i < N_BUFS; i++)
        st = poisoned[i] ? alloc_poisoned(d, bytes[i], all[i], err)
                         : orr_device_upload_new(d, all[i] == &b->layer_first ? s->layer_first : NULL,
                                                 bytes[i], all[i], err);
    return st;
}

/* A unit whose one point this device can never hold (its memory, or one
 * buffer's limit) is refused before any allocation: ORR_ERR_DEVICE_UNFIT,
 * an error that sends the task to another host. */
static orr_status check_one_point(orr_device *d, const dif_dims *dm, orr_error *err)
{
    dif_dims one = *dm;
    one.capacity = 1;
    size_t bytes[N_BUFS];
    bufs_sizes(&one, bytes);
    double need = 0, largest = 0;
    for (int i = 0; i < N_BUFS; i++) {
        need += (double)bytes[i];
        largest = (double)bytes[i] > largest ? (double)bytes[i] : largest;
    }
    return orr_device_check_fits(d, need, largest, "diffraction: one point", err);
}

static void gpu_close(dif_ctx *c)
{
    if (!c)
        return;
    bufs_free(c->g->dev, &c->b);
    free(c->active);
    free(c);
}

/* The capacity asked, halved while the device cannot hold it. A device
 * that can never hold one point is refused first (check_one_point); one
 * that cannot hold it now fails with the API's class for that (memory
 * taken by another program: BOINC's temporary exit). */
static orr_status gpu_open(void *state, const dif_workunit *wu, const dif_setup *s, int *capacity,
                           int n_vectors, dif_ctx **out, orr_error *err)
{
    (void)wu;
    dif_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->g = state;
    c->s = s;
    c->n_active = -1;
    if (!(c->active = malloc((size_t)*capacity * sizeof *c->active))) {
        free(c);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    c->dm = (dif_dims){s->nz, s->n_modes, s->kx, s->ky, s->fft_x, s->fft_y, s->n_layers,
                       (s->kx - 1) / 2, (s->ky - 1) / 2, *capacity, n_vectors,
                       (long)s->unknowns, (long)s->fft_x * s->fft_y};
    orr_status st = check_one_point(c->g->dev, &c->dm, err);
    if (st != ORR_OK) {
        gpu_close(c);
        return st;
    }
    for (;;) {
        st = bufs_alloc(c->g->dev, &c->dm, s, &c->b, err);
        if (st == ORR_OK || c->dm.capacity == 1)
            break;
        bufs_free(c->g->dev, &c->b);
        c->dm.capacity /= 2;
    }
    if (st != ORR_OK) {
        gpu_close(c);
        return st;
    }
    if (c->dm.capacity < *capacity)
        orr_log("diffraction: the device holds batches of %d points (%d asked)", c->dm.capacity,
                *capacity);
    *capacity = c->dm.capacity;
    *out = c;
    return ORR_OK;
}

/* The batch's tables, packed by position, and its spectra. */
static orr_status gpu_load(dif_ctx *c, const dif_batch *b, orr_error *err)
{
    orr_device *d = c->g->dev;
    const size_t mt = (size_t)c->dm.n_modes * DIF_MODE_TABLE * sizeof(double complex);
    const size_t lay = (size_t)c->dm.n_modes * c->dm.n_layers * DIF_LAYER_TABLE * sizeof(double complex);
    const size_t spec = (size_t)c->dm.nz * c->dm.grid * sizeof(double complex);
    orr_status st = ORR_OK;
    for (int p = 0; st == ORR_OK && p < b->n; p++) {
        st = d->api->upload(d, c->b.mt, p * mt, b->pt[p].mt, mt, err);
        if (st == ORR_OK)
            st = d->api->upload(d, c->b.lay, p * lay, b->pt[p].lay, lay, err);
    }
    if (st == ORR_OK)
        st = d->api->upload(d, c->b.spectra, 0, b->spectra, b->n_spectra * spec, err);
    if (st == ORR_OK)
        st = d->api->upload(d, c->b.spectrum_of, 0, b->spectrum_of, (size_t)b->n * sizeof(int), err);
    return st;
}

/* The active list, uploaded when it changed (most ops of an iteration
 * share one). */
static orr_status set_active(dif_ctx *c, const int *active, int n, orr_error *err)
{
    orr_device *d = c->g->dev;
    if (n == c->n_active && memcmp(active, c->active, (size_t)n * sizeof *active) == 0)
        return ORR_OK;
    orr_status s = d->api->upload(d, c->b.active, 0, active, (size_t)n * sizeof(int), err);
    memcpy(c->active, active, (size_t)n * sizeof *active);
    c->n_active = s == ORR_OK ? n : -1;
    return s;
}

/* grid[a] = deps * vector in of active[a], still in the padded grid. */
static orr_status convolve(dif_ctx *c, int n, int in, orr_error *err)
{
    const dif_device_kernels *k = c->g->k;
    orr_device *d = c->g->dev;
    const int grids = n * c->dm.nz;
    orr_status st = k->pad(d, c->g->kern, &c->dm, &c->b, n, in, err);
    if (st == ORR_OK)
        st = k->fft(d, c->g->kern, &c->dm, c->b.grid, grids, 0, err);
    if (st == ORR_OK)
        st = k->multiply(d, c->g->kern, &c->dm, &c->b, n, err);
    if (st == ORR_OK)
        st = k->fft(d, c->g->kern, &c->dm, c->b.grid, grids, 1, err);
    return st;
}

/* What orr_gpu_run_chunks needs to convolve part of an op's points. */
typedef struct {
    dif_ctx *c;
    const int *active;
    int in, out;
    int with_zop;   /* matvec: the z operator after; conv: the crop */
} conv_call;

/* Points offset..offset+n-1 of the call, as an op of their own: their
 * active list uploaded, the grids 0..n-1 theirs, then a wait. Each point's
 * arithmetic is the same whichever launch holds it, so the bits do not
 * depend on the cut. */
static orr_status convolve_part(void *p, int offset, int n, orr_error *err)
{
    const conv_call *cc = p;
    dif_ctx *c = cc->c;
    const dif_device_kernels *k = c->g->k;
    orr_device *d = c->g->dev;
    orr_status st = set_active(c, cc->active + offset, n, err);
    if (st == ORR_OK)
        st = convolve(c, n, cc->in, err);
    if (st == ORR_OK)
        st = cc->with_zop ? k->zop(d, c->g->kern, &c->dm, &c->b, n, cc->in, cc->out, err)
                          : k->crop(d, c->g->kern, &c->dm, &c->b, n, cc->out, err);
    return st == ORR_OK ? d->api->finish(d, orr_gpu_pacer_expected_s(&c->g->pacer, n), err) : st;
}

static orr_status gpu_matvec(dif_ctx *c, const int *active, int n, int in, int out,
                             orr_error *err)
{
    conv_call cc = {c, active, in, out, 1};
    return orr_gpu_run_chunks(&c->g->pacer, n, convolve_part, &cc, err);
}

static orr_status gpu_conv(dif_ctx *c, const int *active, int n, int in, int out, orr_error *err)
{
    conv_call cc = {c, active, in, out, 0};
    return orr_gpu_run_chunks(&c->g->pacer, n, convolve_part, &cc, err);
}

static orr_status gpu_dots(dif_ctx *c, const int *active, int n, int n_pairs, const int *v,
                           double complex *dots, orr_error *err)
{
    orr_device *d = c->g->dev;
    if (n_pairs > 4)
        return orr_fail(err, ORR_ERR_INTERNAL, "%d dot products a point (at most 4)", n_pairs);
    dif_vidx vidx = {{0}};
    memcpy(vidx.v, v, 2 * (size_t)n_pairs * sizeof *v);
    orr_status st = set_active(c, active, n, err);
    if (st == ORR_OK)
        st = c->g->k->dots(d, c->g->kern, &c->dm, &c->b, n, n_pairs, vidx, err);
    if (st == ORR_OK)
        st = d->api->download(d, dots, c->b.dots, 0, (size_t)n * n_pairs * sizeof *dots, err);
    return st == ORR_OK ? d->api->finish(d, 0, err) : st;
}

static orr_status gpu_lincomb(dif_ctx *c, const int *active, int n, int out, int n_terms,
                              const int *v, const double complex *coef, orr_error *err)
{
    orr_device *d = c->g->dev;
    if (n_terms > 4)
        return orr_fail(err, ORR_ERR_INTERNAL, "lincomb of %d terms (at most 4)", n_terms);
    dif_vidx vidx = {{0}};
    memcpy(vidx.v, v, (size_t)n_terms * sizeof *v);
    orr_status st = set_active(c, active, n, err);
    if (st == ORR_OK)
        st = d->api->upload(d, c->b.coef, 0, coef, (size_t)n * n_terms * sizeof *coef, err);
    return st == ORR_OK ? c->g->k->lincomb(d, c->g->kern, &c->dm, &c->b, n, out, n_terms, vidx, err)
                        : st;
}

static size_t vec_offset(const dif_ctx *c, int b, int v)
{
    return ((size_t)v * c->dm.capacity + b) * c->dm.unknowns * sizeof(double complex);
}

static orr_status gpu_read(dif_ctx *c, int b, int v, double complex *host, orr_error *err)
{
    orr_device *d = c->g->dev;
    orr_status st = d->api->download(d, host, c->b.vec, vec_offset(c, b, v),
                                     c->dm.unknowns * sizeof *host, err);
    return st == ORR_OK ? d->api->finish(d, 0, err) : st;
}

static orr_status gpu_write(dif_ctx *c, int b, int v, const double complex *host, orr_error *err)
{
    orr_device *d = c->g->dev;
    return d->api->upload(d, c->b.vec, vec_offset(c, b, v), host, c->dm.unknowns * sizeof *host,
                          err);
}

/* No lanes: every launch takes the whole batch (a convolution: as many of
 * its points as the pacer gives a launch). */
static const dif_ops gpu_ops = {
    .open = gpu_open,
    .close = gpu_close,
    .load = gpu_load,
    .matvec = gpu_matvec,
    .conv = gpu_conv,
    .dots = gpu_dots,
    .lincomb = gpu_lincomb,
    .read = gpu_read,
    .write = gpu_write,
};

static void gpu_release(void *state)
{
    dif_gpu *g = state;
    char what[64];
    snprintf(what, sizeof what, "%s diffraction convolutions", g->dev->api->api);
    orr_gpu_pacer_report(&g->pacer, what);
    if (g->k->release)
        g->k->release(g->dev, g->kern);
    free(g);
}

orr_status dif_device_attach(orr_device *d, const dif_device_kernels *k, void *kern,
                             orr_kind_slot *slot, orr_error *err)
{
    dif_gpu *g = calloc(1, sizeof *g);
    if (!g) {
        if (k->release)
            k->release(d, kern);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    g->dev = d;
    g->k = k;
    g->kern = kern;
    /* one point per launch to start: the pacer learns how many fit */
    orr_gpu_pacer_init(&g->pacer, &d->request, 1, MAX_LAUNCH_POINTS);
    slot->ops = &gpu_ops;
    slot->state = g;
    slot->release = gpu_release;
    return ORR_OK;
}
