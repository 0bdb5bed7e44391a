/* The limits table made into lookups, the cost's one printed form and the
 * refusals every kind's plan makes with it (cost.h). */
#include "cost.h"

#include <unistd.h>

static const struct {
    const char *key;
    double value;
} limits[ORR_LIMIT_COUNT] = {
#define ORR_LIMIT_ROW(id, key, value, what) {key, value},
    ORR_LIMIT_TABLE(ORR_LIMIT_ROW)
#undef ORR_LIMIT_ROW
};

double orr_limit(orr_limit_id id)
{
    return (int)id >= 0 && id < ORR_LIMIT_COUNT ? limits[id].value : 0;
}

void orr_limits_print(FILE *f)
{
    for (int i = 0; i < ORR_LIMIT_COUNT; i++)
        fprintf(f, "%s %.17g\n", limits[i].key, limits[i].value);
}

void orr_limit_rows_print(FILE *f, const orr_limit_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s %.17g\n", rows[i].key, rows[i].value);
}

double orr_host_memory(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? (double)pages * size : 0;
}

void orr_cost_print(FILE *f, const orr_unit_cost *c)
{
    fprintf(f, "host_bytes %.0f\n", c->host_bytes);
    fprintf(f, "device_bytes %.0f\n", c->device_bytes);
    fprintf(f, "results_bytes %.0f\n", c->results_bytes);
    fprintf(f, "npy_bytes %.0f\n", c->npy_bytes);
    fprintf(f, "checkpoint_bytes %.0f\n", c->checkpoint_bytes);
    fprintf(f, "rsc_fpops_est %.6e\n", c->flops);
}

orr_status orr_cost_limits(const orr_unit_cost *c, const char *path, orr_error *err)
{
    static const struct {
        orr_limit_id id;
        const char *what;
    } judged[] = {{ORR_LIMIT_RESULTS, "the results"},
                  {ORR_LIMIT_NPY, "the .npy files"},
                  {ORR_LIMIT_CHECKPOINT, "the checkpoint"}};
    const double have[] = {c->results_bytes, c->npy_bytes, c->checkpoint_bytes};
    for (size_t i = 0; i < ORR_ARRAY_LEN(judged); i++)
        if (!(have[i] <= orr_limit(judged[i].id)))
            return orr_fail(err, ORR_ERR_INPUT,
                            "%s: %s would take %.3g bytes (%s), more than the limit of %.3g a "
                            "work unit (%s, orrery --limits)",
                            path, judged[i].what, have[i], c->sizes, orr_limit(judged[i].id),
                            limits[judged[i].id].key);
    return ORR_OK;
}

orr_status orr_cost_host_fits(const orr_unit_cost *c, const char *path, orr_error *err)
{
    const double have = orr_host_memory();
    if (have > 0 && c->host_bytes > have)
        return orr_fail(err, ORR_ERR_NOMEM,
                        "%s: the work unit (%s) needs %.0f bytes of memory; this host has %.0f",
                        path, c->sizes, c->host_bytes, have);
    return ORR_OK;
}
