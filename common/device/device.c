/* The device layer's policy, once for every GPU API (device.h). */
#include "device/device.h"

#include <stdlib.h>
#include <string.h>

#include "runtime/runtime.h"

orr_status orr_dbuf_reserve(orr_device *d, orr_dbuf *b, size_t bytes, orr_error *err)
{
    if (bytes <= b->bytes && b->mem)
        return ORR_OK;
    orr_dbuf_free(d, b);
    orr_status s = d->api->alloc(d, bytes ? bytes : 16, &b->mem, err);
    if (s == ORR_OK)
        b->bytes = bytes;
    return s;
}

void orr_dbuf_free(orr_device *d, orr_dbuf *b)
{
    if (b->mem)
        d->api->release(d, b->mem);
    b->mem = NULL;
    b->bytes = 0;
}

orr_status orr_device_upload_new(orr_device *d, const void *host, size_t bytes, orr_dmem *out,
                                 orr_error *err)
{
    orr_status s = d->api->alloc(d, bytes ? bytes : 16, out, err);
    if (s == ORR_OK && host && bytes)
        s = d->api->upload(d, *out, 0, host, bytes, err);
    if (s != ORR_OK && *out) {
        d->api->release(d, *out);
        *out = NULL;
    }
    return s;
}

orr_status orr_device_check_fits(const orr_device *d, double need, double largest,
                                 const char *what, orr_error *err)
{
    const int too_much = d->memory_bytes > 0 && need > d->memory_bytes;
    const int too_large = d->max_buffer_bytes > 0 && largest > d->max_buffer_bytes;
    if (!too_much && !too_large)
        return ORR_OK;
    return orr_fail(err, ORR_ERR_DEVICE_UNFIT,
                    "%s needs %.0f bytes of device memory, %.0f in its largest buffer; %s device "
                    "%s has %.0f, at most %.0f in one buffer", what, need, largest, d->api->api,
                    d->name, d->memory_bytes, d->max_buffer_bytes);
}

orr_status orr_device_poison(orr_device *d, orr_dmem mem, size_t bytes, orr_error *err)
{
    return d->api->fill(d, mem, 0xff, bytes, err);
}

int orr_device_assigned_by_client(void)
{
    const orr_init_data *id = orr_runtime_init_data();
    return !id->standalone && id->gpu_type[0] != '\0';
}

orr_status orr_device_pick(const orr_device_candidate *c, int n, int asked, const char *api,
                           int *chosen, orr_error *err)
{
    if (n < 1)
        return orr_fail(err, ORR_ERR_DEVICE, "no %s device found", api);
    if (asked >= 0) {
        if (asked >= n)
            return orr_fail(err, ORR_ERR_USAGE, "%s device %d does not exist (%d found)", api,
                            asked, n);
        *chosen = asked;
        return ORR_OK;
    }
    int best = 0;
    for (int i = 1; i < n; i++)
        if ((c[i].fp64 && !c[best].fp64) || (c[i].fp64 == c[best].fp64 && c[i].score > c[best].score))
            best = i;
    *chosen = best;
    return ORR_OK;
}

static void device_backend_close(orr_backend *be)
{
    orr_device *d = be->ctx;
    if (!d)
        return;
    if (d->api->close)
        d->api->close(d);
    free(d);
    be->ctx = NULL;
}

orr_status orr_device_backend_open(const char *name, orr_device_open_fn open,
                                   const orr_kind_attacher *kinds, int n_kinds,
                                   const orr_backend_request *req, orr_backend *be,
                                   orr_error *err)
{
    orr_device *d = calloc(1, sizeof *d);
    if (!d)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    orr_status st = open(req, d, err);
    if (st != ORR_OK) {
        free(d);
        return st;
    }
    memset(be, 0, sizeof *be);
    be->name = name;
    be->variant = d->name;   /* the device: part of the checkpoint identity */
    be->ctx = d;
    be->close = device_backend_close;
    be->attachers = kinds;
    be->n_attachers = n_kinds;
    return ORR_OK;
}
