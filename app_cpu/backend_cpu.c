/* CPU backend: picks a kernel path by CPUID (FFTW-style: every path is
 * compiled with its own flags, the CPU decides at run time: cpu_isa.c)
 * once, for every CPU kernel below it (be->cpu_isa), and makes the thread
 * pool; the kinds it accelerates attach their own host code
 * (app_cpu/<kind>/host.c). The "scalar" path runs each kind's reference
 * code the same way, so threads help it too and it stays the baseline to
 * compare. */
#include "cpu_backend.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "diffraction/diffraction.h"
#include "fdtd/fdtd.h"
#include "mom/mom.h"
#include "runtime/runtime.h"
#include "separation/ops.h"

typedef struct {
    const char *name;
    orr_cpu_isa isa;
} cpu_path;

static const cpu_path paths[] = {
#if ORR_X86_64
    {"avx512", ORR_CPU_AVX512},
    {"avx2", ORR_CPU_AVX2},
    {"sse2", ORR_CPU_SSE2},
#endif
    {"scalar", ORR_CPU_SCALAR},
};

int orr_cpu_path_count(void) { return (int)ORR_ARRAY_LEN(paths); }
const char *orr_cpu_path_name(int i) { return paths[i].name; }
int orr_cpu_path_supported(int i) { return orr_cpu_runs(paths[i].isa); }

/* The kinds this backend accelerates. */
static const orr_kind_attacher cpu_kinds[] = {
    {SEP_KIND_NAME, sep_cpu_attach},
    {DIF_KIND_NAME, dif_cpu_attach},
    {FDTD_KIND_NAME, fdtd_cpu_attach},
    {MOM_KIND_NAME, mom_cpu_attach},
};

static void cpu_close(orr_backend *be)
{
    orr_cpu_ctx *c = be->ctx;
    if (!c)
        return;
    orr_pool_destroy(c->pool);
    free(c);
    be->ctx = NULL;
}

int orr_cpu_threads_from_ncpus(double ncpus, long online)
{
    if (!(ncpus > 0 && ncpus <= DBL_MAX))
        return 0;
    const long cap = online >= 1 && online < ORR_MAX_THREADS ? online : ORR_MAX_THREADS;
    if (ncpus >= (double)cap)
        return (int)cap;
    const long n = (long)(ncpus + 0.5);
    return n < 1 ? 1 : (int)n;
}

/* Under a client its ncpus (capped), else every core (capped too). */
static int default_threads(void)
{
    const orr_init_data *id = orr_runtime_init_data();
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (!id->standalone && id->ncpus != 0) {
        const int n = orr_cpu_threads_from_ncpus(id->ncpus, online);
        if (n > 0) {
            if (id->ncpus >= n + 0.5)
                orr_log("init_data.xml: ncpus %g capped to %d threads (online CPUs %ld, "
                        "at most %d)", id->ncpus, n, online, ORR_MAX_THREADS);
            return n;
        }
        orr_log("init_data.xml: ncpus %g ignored (not a positive number): every core", id->ncpus);
    }
    return orr_cpu_threads_from_ncpus((double)(online >= 1 ? online : 1), online);
}

/* The path asked for (it must exist and run here), else the best. */
static orr_status choose_path(const char *asked, const cpu_path **out, orr_error *err)
{
    for (size_t i = 0; i < ORR_ARRAY_LEN(paths); i++)
        if (asked ? strcmp(asked, paths[i].name) == 0 : orr_cpu_runs(paths[i].isa)) {
            *out = &paths[i];
            if (!orr_cpu_runs(paths[i].isa))
                return orr_fail(err, ORR_ERR_UNSUPPORTED, "--cpu-path %s: this CPU cannot run it",
                                paths[i].name);
            return ORR_OK;
        }
    char known[64] = "";
    for (size_t i = 0; i < ORR_ARRAY_LEN(paths); i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                 paths[i].name);
    return orr_fail(err, ORR_ERR_USAGE, "--cpu-path: unknown path '%s' (this build has %s)", asked,
                    known);
}

orr_status orr_open_cpu_backend(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    const cpu_path *path = NULL;
    orr_status s = choose_path(req->cpu_path, &path, err);
    if (s != ORR_OK)
        return s;
    orr_cpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    s = orr_pool_create(req->nthreads > 0 ? req->nthreads : default_threads(), &c->pool, err);
    if (s != ORR_OK) {
        free(c);
        return s;
    }
    memset(be, 0, sizeof *be);
    be->name = "CPU";
    be->variant = path->name;
    be->cpu_isa = path->isa;
    be->ctx = c;
    be->close = cpu_close;
    be->attachers = cpu_kinds;
    be->n_attachers = (int)ORR_ARRAY_LEN(cpu_kinds);
    orr_log("CPU backend: %s kernels, %d thread%s", path->name, orr_pool_threads(c->pool),
            orr_pool_threads(c->pool) == 1 ? "" : "s");
    return ORR_OK;
}
