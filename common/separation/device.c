/* Separation on a GPU: the host side's policy for every API (device.h). */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodes.h"
#include "runtime/runtime.h"

#define MAX_LAUNCH_CHUNKS 65535

typedef struct {
    orr_device *dev;
    const sep_device_kernels *k;
    void *kern;
    const sep_setup *tables_for;
    sep_device_area areas[SEP_MAX_AREAS];
    orr_dbuf out;                  /* partial sums of one launch */
    sep_device_stars stars;
    sep_direction *h_dirs;         /* the stars' host side */
    double *h_rp, *h_qw, *h_k, *h_bg, *h_st;
    int paced_streams;             /* stream count the pacer was sized for */
    orr_gpu_pacer pacer;
} sep_device;

/* ---- tables ---- */

static void free_area(orr_device *d, sep_device_area *a)
{
    orr_dmem *m[] = {&a->r_point, &a->qw_r3_N, &a->irv, &a->reff_xr_rp3, &a->id, &a->nu, &a->dirs};
    for (size_t i = 0; i < ORR_ARRAY_LEN(m); i++) {
        if (*m[i])
            d->api->release(d, *m[i]);
        *m[i] = NULL;
    }
}

static void free_tables(sep_device *g)
{
    for (int a = 0; a < SEP_MAX_AREAS; a++)
        free_area(g->dev, &g->areas[a]);
    g->tables_for = NULL;
}

static orr_status upload_area(sep_device *g, const sep_model_consts *mc, const sep_setup *s,
                              int area, orr_error *err)
{
    const sep_area_tables *t = &s->areas[area];
    sep_device_area *a = &g->areas[area];
    const size_t nodes = (size_t)t->r_steps * s->convolve * sizeof(double);
    const size_t columns = (size_t)t->nu_steps * t->mu_steps;
    a->r_steps = t->r_steps;
    a->mu_steps = t->mu_steps;
    a->nu_steps = t->nu_steps;
    a->convolve = s->convolve;
    orr_status st = orr_device_upload_new(g->dev, t->r_point, nodes, &a->r_point, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, t->qw_r3_N, nodes, &a->qw_r3_N, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, t->irv, t->r_steps * sizeof(double), &a->irv, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, t->reff_xr_rp3, t->r_steps * sizeof(double),
                                   &a->reff_xr_rp3, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, t->id, t->nu_steps * sizeof(double), &a->id, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, t->nu, t->nu_steps * sizeof(double), &a->nu, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, NULL, columns * sizeof(sep_direction), &a->dirs, err);
    if (st == ORR_OK)
        st = g->k->directions(g->dev, g->kern, mc, t, a, err);
    if (st == ORR_OK)
        st = g->dev->api->finish(g->dev, 0, err);
    return st;
}

/* The grid's tables once per setup, every column's direction computed on
 * the device. */
static orr_status prepare_tables(sep_device *g, const sep_model_consts *mc, const sep_setup *s,
                                 orr_error *err)
{
    if (g->tables_for == s)
        return ORR_OK;
    free_tables(g);
    for (int a = 0; a < s->n_areas; a++) {
        orr_status st = upload_area(g, mc, s, a, err);
        if (st != ORR_OK) {
            free_tables(g);
            return st;
        }
    }
    g->tables_for = s;
    return ORR_OK;
}

/* ---- integral ---- */

/* What orr_gpu_run_chunks needs to launch part of a call. */
typedef struct {
    sep_device *g;
    int area, n_streams, first;
    sep_partial *out;
} launch_call;

/* One launch and its read-back (run_chunks holds the critical section). */
static orr_status launch_part(void *ctx, int offset, int n, orr_error *err)
{
    launch_call *l = ctx;
    sep_device *g = l->g;
    orr_device *d = g->dev;
    orr_status st = g->k->integral(d, g->kern, &g->areas[l->area], l->n_streams, l->first + offset,
                                   n, g->out.mem, err);
    if (st == ORR_OK)
        st = d->api->download(d, l->out + offset, g->out.mem, 0, (size_t)n * sizeof(sep_partial),
                              err);
    if (st == ORR_OK)
        st = d->api->finish(d, orr_gpu_pacer_expected_s(&g->pacer, n), err);
    return st;
}

static orr_status dev_integral_chunks(void *state, const sep_model_consts *mc, const sep_setup *s,
                                      int area, int first, int count, sep_partial *out,
                                      orr_error *err)
{
    sep_device *g = state;
    orr_status st = g->k->set_model(g->dev, g->kern, mc, err);
    if (st == ORR_OK)
        st = prepare_tables(g, mc, s, err);
    const int most = count < MAX_LAUNCH_CHUNKS ? count : MAX_LAUNCH_CHUNKS;
    if (st == ORR_OK)
        st = orr_dbuf_reserve(g->dev, &g->out, (size_t)most * sizeof(sep_partial), err);
    if (st != ORR_OK)
        return st;
    if (g->paced_streams != mc->n_streams) {   /* occupancy depends on the kernel */
        orr_gpu_pacer_resize(&g->pacer, &g->dev->request,
                             g->k->slots(g->dev, g->kern, mc->n_streams), MAX_LAUNCH_CHUNKS);
        g->paced_streams = mc->n_streams;
    }
    launch_call call = {g, area, mc->n_streams, first, out};
    return orr_gpu_run_chunks(&g->pacer, count, launch_part, &call, err);
}

/* ---- stars ---- */

/* Their nodes are made on the host by the shared r-point code, the sums on
 * the device, and K applied on the host again. */
static void star_nodes(sep_device *g, const sep_model_consts *mc, const sep_setup *s,
                       const sep_stars *stars, int begin, int n)
{
    const int cv = s->convolve;
    for (int i = 0; i < n; i++) {
        g->h_k[i] = sep_star_r_points(mc, s, stars->r[begin + i], g->h_rp + (size_t)i * cv,
                                      g->h_qw + (size_t)i * cv);
        sep_direction_of_lb(stars->l[begin + i], stars->b[begin + i], &g->h_dirs[i]);
    }
}

static void star_probs_from_sums(const sep_device *g, int ns, int begin, int n, double *bg_prob,
                                 double *st_prob)
{
    for (int i = 0; i < n; i++) {
        bg_prob[begin + i] = g->h_bg[i] * g->h_k[i];
        for (int j = 0; j < ns; j++)
            st_prob[(size_t)(begin + i) * ns + j] = g->h_st[(size_t)i * ns + j] * g->h_k[i];
    }
}

/* Uploads the nodes, runs the sums, reads them back: one critical unit. */
static orr_status star_sums(sep_device *g, int n, int cv, int ns, orr_error *err)
{
    orr_device *d = g->dev;
    const sep_device_stars *b = &g->stars;
    const size_t nodes = (size_t)n * cv * sizeof(double);
    orr_status st = d->api->upload(d, b->dirs, 0, g->h_dirs, n * sizeof(sep_direction), err);
    if (st == ORR_OK)
        st = d->api->upload(d, b->r_point, 0, g->h_rp, nodes, err);
    if (st == ORR_OK)
        st = d->api->upload(d, b->qw_r3_N, 0, g->h_qw, nodes, err);
    if (st == ORR_OK)
        st = g->k->star_sums(d, g->kern, n, cv, ns, b, err);
    if (st == ORR_OK)
        st = d->api->download(d, g->h_bg, b->bg, 0, n * sizeof(double), err);
    if (st == ORR_OK && ns > 0)
        st = d->api->download(d, g->h_st, b->st, 0, (size_t)n * ns * sizeof(double), err);
    if (st == ORR_OK)
        st = d->api->finish(d, 0, err);
    return st;
}

static orr_status dev_star_probs(void *state, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err)
{
    sep_device *g = state;
    const int n = end - begin;
    if (n > SEP_DEVICE_STARS)
        return orr_fail(err, ORR_ERR_INTERNAL, "%s: %d stars in one call (at most %d)",
                        g->dev->api->api, n, SEP_DEVICE_STARS);
    star_nodes(g, mc, s, stars, begin, n);
    orr_status st = g->k->set_model(g->dev, g->kern, mc, err);
    if (st != ORR_OK)
        return st;
    orr_runtime_begin_critical();
    st = star_sums(g, n, s->convolve, mc->n_streams, err);
    orr_runtime_end_critical();
    if (st == ORR_OK)
        star_probs_from_sums(g, mc->n_streams, begin, n, bg_prob, st_prob);
    return st;
}

/* ---- slot ---- */

/* Enough chunks per call to fill the device many times over. */
static int dev_min_batch(void *state)
{
    const sep_device *g = state;
    return 4 * g->dev->compute_units * 16;
}

static void dev_release(void *state)
{
    sep_device *g = state;
    orr_device *d = g->dev;
    char what[64];
    snprintf(what, sizeof what, "%s integrals", d->api->api);
    orr_gpu_pacer_report(&g->pacer, what);
    free_tables(g);
    orr_dbuf_free(d, &g->out);
    orr_dmem *m[] = {&g->stars.dirs, &g->stars.r_point, &g->stars.qw_r3_N, &g->stars.bg,
                     &g->stars.st};
    for (size_t i = 0; i < ORR_ARRAY_LEN(m); i++)
        if (*m[i])
            d->api->release(d, *m[i]);
    if (g->k->release)
        g->k->release(d, g->kern);
    free(g->h_dirs);
    free(g->h_rp);
    free(g->h_qw);
    free(g->h_k);
    free(g->h_bg);
    free(g->h_st);
    free(g);
}

/* The star buffers, host and device, for the largest call. */
static orr_status alloc_stars(sep_device *g, orr_error *err)
{
    const size_t n = SEP_DEVICE_STARS, nodes = n * SEP_MAX_CONVOLVE * sizeof(double);
    g->h_dirs = malloc(n * sizeof *g->h_dirs);
    g->h_rp = malloc(nodes);
    g->h_qw = malloc(nodes);
    g->h_k = malloc(n * sizeof(double));
    g->h_bg = malloc(n * sizeof(double));
    g->h_st = malloc(n * SEP_MAX_STREAMS * sizeof(double));
    if (!g->h_dirs || !g->h_rp || !g->h_qw || !g->h_k || !g->h_bg || !g->h_st)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the star buffers");
    sep_device_stars *b = &g->stars;
    orr_status st = orr_device_upload_new(g->dev, NULL, n * sizeof(sep_direction), &b->dirs, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, NULL, nodes, &b->r_point, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, NULL, nodes, &b->qw_r3_N, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, NULL, n * sizeof(double), &b->bg, err);
    if (st == ORR_OK)
        st = orr_device_upload_new(g->dev, NULL, n * SEP_MAX_STREAMS * sizeof(double), &b->st,
                                   err);
    return st;
}

static const sep_ops device_sep_ops = {dev_min_batch, dev_integral_chunks, dev_star_probs};

orr_status sep_device_attach(orr_device *d, const sep_device_kernels *k, void *kern,
                             orr_kind_slot *slot, orr_error *err)
{
    sep_device *g = calloc(1, sizeof *g);
    if (!g) {
        if (k->release)
            k->release(d, kern);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    g->dev = d;
    g->k = k;
    g->kern = kern;
    g->paced_streams = -1;
    orr_status st = alloc_stars(g, err);
    if (st != ORR_OK) {
        dev_release(g);
        return st;
    }
    slot->ops = &device_sep_ops;
    slot->state = g;
    slot->release = dev_release;
    return ORR_OK;
}
