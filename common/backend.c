/* Kind slots of a backend (backend.h): looked up by the kind's name,
 * attached on first use, released with the backend. */
#include "backend.h"

#include <string.h>

#include "io/io.h"

orr_status orr_backend_slot(orr_backend *be, const char *kind, const orr_kind_slot **slot,
                            orr_error *err)
{
    for (int i = 0; i < be->n_slots; i++)
        if (strcmp(be->slots[i].kind, kind) == 0) {
            *slot = &be->slots[i];
            return ORR_OK;
        }
    if (be->n_slots == ORR_BACKEND_MAX_KINDS)
        return orr_fail(err, ORR_ERR_INTERNAL, "%s backend: more than %d kinds", be->name,
                        ORR_BACKEND_MAX_KINDS);
    orr_kind_slot *s = &be->slots[be->n_slots];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    for (int i = 0; i < be->n_attachers; i++)
        if (strcmp(be->attachers[i].kind, kind) == 0) {
            orr_status st = be->attachers[i].attach(be, s, err);
            if (st != ORR_OK) {
                memset(s, 0, sizeof *s);
                return st;
            }
            break;
        }
    be->n_slots++;
    *slot = s;
    return ORR_OK;
}

void orr_backend_close(orr_backend *be)
{
    for (int i = be->n_slots - 1; i >= 0; i--)
        if (be->slots[i].release)
            be->slots[i].release(be->slots[i].state);
    be->n_slots = 0;
    if (be->close)
        be->close(be);
}

orr_status orr_open_reference_backend(const orr_backend_request *req, orr_backend *be,
                                      orr_error *err)
{
    (void)req;
    (void)err;
    memset(be, 0, sizeof *be);
    be->name = "CPU";
    return ORR_OK;
}

uint64_t orr_workunit_identity(uint64_t content_hash, const orr_backend *be)
{
    uint64_t h = orr_hash64(ORR_HASH64_INIT, &content_hash, sizeof content_hash);
    if (be) {
        h = orr_hash64(h, be->name, strlen(be->name) + 1);
        if (be->variant)
            h = orr_hash64(h, be->variant, strlen(be->variant));
    }
    return h;
}
