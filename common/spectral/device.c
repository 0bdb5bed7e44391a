/* The spectral kernels on a GPU: the host side's policy for every API
 * (device.h). */
#include "device.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

typedef struct {
    orr_device *dev;
    const spec_device_kernels *k;
    void *kern;
    orr_dbuf in, out;      /* grow to the largest run, reused */
    spec_device_tables tables;
} spec_device;

static size_t elem_size(const spec_desc *d)
{
    return d->precision == SPEC_F32 ? sizeof(float) : sizeof(double);
}

/* The extra inputs of CONV2D and TRIDIAG come as they are; the transforms
 * are packed when their layout is strided. */
static int takes_layouts(const spec_desc *d)
{
    return d->kind != SPEC_CONV2D && d->kind != SPEC_TRIDIAG;
}

/* Upload, poison, queue, download, wait: one unit the client cannot split. */
static orr_status run_packed(spec_device *g, const spec_desc *d, const spec_buffers *b,
                             const void *in, void *out, orr_error *err)
{
    orr_device *dev = g->dev;
    const size_t es = elem_size(d);
    spec_device_io io;
    io.in_bytes = spec_in_reals(d) * d->batch * es;
    io.out_bytes = spec_out_reals(d) * d->batch * es;
    orr_status s = orr_dbuf_reserve(dev, &g->in, io.in_bytes, err);
    if (s == ORR_OK)
        s = orr_dbuf_reserve(dev, &g->out, io.out_bytes, err);
    if (s != ORR_OK)
        return s;
    io.in = g->in.mem;
    io.out = g->out.mem;
    io.tables = &g->tables;
    if (g->tables.count > SPEC_DEVICE_MAX_TABLES - SPEC_DEVICE_TABLES_PER_RUN)
        spec_device_tables_free(dev, &g->tables);   /* many sizes: start over */
    orr_runtime_begin_critical();
    s = dev->api->upload(dev, io.in, 0, in, io.in_bytes, err);
    if (s == ORR_OK)
        s = orr_device_poison(dev, io.out, io.out_bytes, err);
    if (s == ORR_OK)
        s = g->k->enqueue(dev, g->kern, d, b, &io, err);
    if (s == ORR_OK)
        s = dev->api->download(dev, out, io.out, 0, io.out_bytes, err);
    /* TRIDIAG: the solver's per-system status too, checked as the CPU's */
    int *status = NULL;
    if (s == ORR_OK && d->kind == SPEC_TRIDIAG && g->k->tridiag_status) {
        status = malloc((size_t)d->batch * sizeof *status);
        s = status ? g->k->tridiag_status(dev, g->kern, d, status, err)
                   : orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    /* Nothing may still use the buffers, even after a failure; the first
     * error is the one reported. */
    orr_error later;
    orr_status w = dev->api->finish(dev, 0, s == ORR_OK ? err : &later);
    orr_runtime_end_critical();
    if (s == ORR_OK && w == ORR_OK && status)
        s = spec_tridiag_check(status, d->batch, err);
    free(status);
    return s != ORR_OK ? s : w;
}

/* The DCTs' norm (spec_dct_factors), applied here for every device: the
 * device kernels compute the plain sums with unit quarter turns (they
 * derive entries as products and complements of others, which a scaled
 * table would break). In the packed copies: DCT3's x_0 times first before
 * the run; after it every output times common, DCT2's y_0 times first too. */
static int is_dct(const spec_desc *d) { return d->kind == SPEC_DCT2 || d->kind == SPEC_DCT3; }

static void dct_norm_input(const spec_desc *d, void *packed)
{
    long double common, first;
    spec_dct_factors(d->kind, d->norm, d->n, &common, &first);
    if (d->kind != SPEC_DCT3 || first == 1)
        return;
    for (int t = 0; t < d->batch; t++)
        if (d->precision == SPEC_F32)
            ((float *)packed)[(size_t)t * d->n] *= (float)first;
        else
            ((double *)packed)[(size_t)t * d->n] *= (double)first;
}

static void dct_norm_output(const spec_desc *d, void *packed)
{
    long double common, first;
    spec_dct_factors(d->kind, d->norm, d->n, &common, &first);
    const double c = (double)common, c0 = d->kind == SPEC_DCT2 ? (double)(common * first) : c;
    const size_t count = (size_t)d->n * d->batch;
    for (size_t i = 0; i < count; i++) {
        const double f = i % (size_t)d->n == 0 ? c0 : c;
        if (d->precision == SPEC_F32)
            ((float *)packed)[i] *= (float)f;
        else
            ((double *)packed)[i] *= f;
    }
}

static orr_status dev_run(void *state, const spec_desc *d, const spec_buffers *b, orr_error *err)
{
    spec_device *g = state;
    if (d->batch < 1)
        return orr_fail(err, ORR_ERR_USAGE, "spectral %s: batch %d (at least 1)",
                        spec_kind_name(d->kind), d->batch);
    orr_status s = g->k->check(g->dev, g->kern, d, err);
    if (s != ORR_OK)
        return s;
    /* TRIDIAG: the right-hand sides are in the output buffer, as cuSPARSE's */
    const void *in = d->kind == SPEC_TRIDIAG ? b->out : b->in;
    if (!takes_layouts(d) || (spec_is_packed(d) && !is_dct(d)))
        return run_packed(g, d, b, in, b->out, err);
    const size_t es = elem_size(d);
    void *packed_in = malloc(spec_in_reals(d) * d->batch * es);
    void *packed_out = malloc(spec_out_reals(d) * d->batch * es);
    if (!packed_in || !packed_out)
        s = orr_fail(err, ORR_ERR_NOMEM, "out of memory for packing");
    if (s == ORR_OK) {
        spec_pack_input(d, in, packed_in);
        if (is_dct(d))
            dct_norm_input(d, packed_in);
        s = run_packed(g, d, b, packed_in, packed_out, err);
    }
    if (s == ORR_OK) {
        if (is_dct(d))
            dct_norm_output(d, packed_out);
        spec_unpack_output(d, packed_out, b->out);
    }
    free(packed_in);
    free(packed_out);
    return s;
}

static void dev_release(void *state)
{
    spec_device *g = state;
    orr_dbuf_free(g->dev, &g->in);
    orr_dbuf_free(g->dev, &g->out);
    spec_device_tables_free(g->dev, &g->tables);
    if (g->k->release)
        g->k->release(g->dev, g->kern);
    free(g);
}

static const spec_ops device_spec_ops = {dev_run};

orr_status spec_device_attach(orr_device *dev, const spec_device_kernels *k, void *kern,
                              orr_kind_slot *slot, orr_error *err)
{
    spec_device *g = calloc(1, sizeof *g);
    if (!g) {
        if (k->release)
            k->release(dev, kern);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    g->dev = dev;
    g->k = k;
    g->kern = kern;
    slot->ops = &device_spec_ops;
    slot->state = g;
    slot->release = dev_release;
    return ORR_OK;
}

/* ---- twiddle tables ---- */

/* The table as the precision's complex type, on the device. */
static orr_status upload_table(orr_device *dev, spec_precision p, int n, long den, orr_dmem *out,
                               orr_error *err)
{
    double *t = spec_root_table(n, den, -1);
    if (!t)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory for a twiddle table");
    size_t bytes = 2 * (size_t)n * sizeof(double);
    if (p == SPEC_F32) {
        float *f = (float *)t;   /* narrowed in place, front to back */
        for (size_t i = 0; i < 2 * (size_t)n; i++)
            f[i] = (float)t[i];
        bytes /= 2;
    }
    orr_status s = orr_device_upload_new(dev, t, bytes, out, err);
    free(t);
    return s;
}

orr_status spec_device_table_get(orr_device *dev, spec_device_tables *tables, spec_precision p,
                                 int n, long den, orr_dmem *out, orr_error *err)
{
    for (int i = 0; i < tables->count; i++) {
        const spec_device_table *t = &tables->t[i];
        if (t->precision == (int)p && t->n == n && t->den == den) {
            *out = t->mem;
            return ORR_OK;
        }
    }
    if (tables->count == SPEC_DEVICE_MAX_TABLES)
        return orr_fail(err, ORR_ERR_INTERNAL, "more than %d twiddle tables in one run",
                        SPEC_DEVICE_MAX_TABLES);
    orr_status s = upload_table(dev, p, n, den, out, err);
    if (s == ORR_OK)
        tables->t[tables->count++] = (spec_device_table){(int)p, n, den, *out};
    return s;
}

void spec_device_tables_free(orr_device *dev, spec_device_tables *tables)
{
    for (int i = 0; i < tables->count; i++)
        dev->api->release(dev, tables->t[i].mem);
    tables->count = 0;
}
