/* CPU backend: picks a kernel path by CPUID (FFTW-style: every path is
 * compiled with its own flags, the CPU decides at run time), keeps node
 * tables padded for the vector width, and runs chunks and star blocks as
 * tasks on the thread pool. The "scalar" path runs the reference code the
 * same way, so threads help it too and it stays the baseline to compare. */
#include "cpu_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "runtime/runtime.h"
#include "separation/nodes.h"
#include "separation/simd/kernels.h"
#include "threads.h"

typedef struct {
    const char *name;
    const sep_simd_kernels *kernels;   /* NULL: the scalar reference */
    int (*supported)(void);
} cpu_path;

static int always(void) { return 1; }
#if ORR_X86_64
static int has_avx512(void) { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"); }
static int has_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#endif

static const cpu_path paths[] = {
#if ORR_X86_64
    {"avx512", &sep_simd_avx512, has_avx512},
    {"avx2", &sep_simd_avx2, has_avx2},
    {"sse2", &sep_simd_sse2, always},
#endif
    {"scalar", NULL, always},
};

int orr_cpu_path_count(void) { return (int)ORR_ARRAY_LEN(paths); }
const char *orr_cpu_path_name(int i) { return paths[i].name; }
int orr_cpu_path_supported(int i) { return paths[i].supported(); }

#define STAR_BLOCK 64

typedef struct {
    const cpu_path *path;
    orr_pool *pool;
    sep_simd_tables tables;         /* padded node tables of `tables_for` */
    const sep_setup *tables_for;
} cpu_ctx;

/* ---- padded node tables ---- */

static int padded_nodes(int convolve)
{
    return (convolve + SEP_SIMD_PAD - 1) / SEP_SIMD_PAD * SEP_SIMD_PAD;
}

static void free_tables(cpu_ctx *c)
{
    for (int a = 0; a < SEP_MAX_AREAS; a++) {
        free(c->tables.r_point[a]);
        free(c->tables.qw[a]);
        c->tables.r_point[a] = c->tables.qw[a] = NULL;
    }
    c->tables_for = NULL;
}

static orr_status prepare_tables(cpu_ctx *c, const sep_setup *s, orr_error *err)
{
    if (c->tables_for == s)
        return ORR_OK;
    free_tables(c);
    const int n = s->convolve, cpad = padded_nodes(n);
    c->tables.cpad = cpad;
    c->tables.setup = s;
    for (int a = 0; a < s->n_areas; a++) {
        const sep_area_tables *t = &s->areas[a];
        double *rp = malloc((size_t)t->r_steps * cpad * sizeof *rp);
        double *qw = malloc((size_t)t->r_steps * cpad * sizeof *qw);
        c->tables.r_point[a] = rp;
        c->tables.qw[a] = qw;
        if (!rp || !qw) {
            free_tables(c);
            return orr_fail(err, ORR_ERR_NOMEM, "out of memory for the node tables");
        }
        for (int i = 0; i < t->r_steps; i++) {
            for (int k = 0; k < cpad; k++) {
                int from = k < n ? k : n - 1;
                rp[(size_t)i * cpad + k] = t->r_point[(size_t)i * n + from];
                qw[(size_t)i * cpad + k] = k < n ? t->qw_r3_N[(size_t)i * n + k] : 0.0;
            }
        }
    }
    c->tables_for = s;
    return ORR_OK;
}

/* ---- integral ---- */

typedef struct {
    orr_backend *be;
    const cpu_ctx *c;
    sep_simd_tables tables;   /* with this call's model constants */
    const sep_model_consts *mc;
    const sep_setup *s;
    int area, first;
    sep_partial *out;
} chunk_job;

static void chunk_task(void *arg, int k)
{
    chunk_job *j = arg;
    const sep_area_tables *t = &j->s->areas[j->area];
    int nu_step, mu_begin, mu_end;
    if (!j->c->path->kernels) {
        orr_error ignored;   /* the reference cannot fail */
        sep_reference_backend.sep_integral_chunks(j->be, j->mc, j->s, j->area, j->first + k, 1,
                                                  &j->out[k], &ignored);
        return;
    }
    sep_chunk_cells(t, j->first + k, &nu_step, &mu_begin, &mu_end);
    j->c->path->kernels->integral_chunk(&j->tables, j->area, nu_step, mu_begin, mu_end, &j->out[k]);
}

static orr_status cpu_integral_chunks(orr_backend *be, const sep_model_consts *mc,
                                      const sep_setup *s, int area, int first, int count,
                                      sep_partial *out, orr_error *err)
{
    cpu_ctx *c = be->ctx;
    if (c->path->kernels) {
        orr_status st = prepare_tables(c, s, err);
        if (st != ORR_OK)
            return st;
    }
    chunk_job j = {be, c, c->tables, mc, s, area, first, out};
    j.tables.mc = mc;
    orr_pool_run(c->pool, count, chunk_task, &j);
    return ORR_OK;
}

/* ---- stars ---- */

typedef struct {
    orr_backend *be;
    const cpu_ctx *c;
    const sep_model_consts *mc;
    const sep_setup *s;
    const sep_stars *stars;
    int begin, end;
    double *bg_prob, *st_prob;
} star_job;

static void star_task(void *arg, int block)
{
    star_job *j = arg;
    const int first = j->begin + block * STAR_BLOCK;
    const int last = first + STAR_BLOCK < j->end ? first + STAR_BLOCK : j->end;
    const sep_simd_kernels *kern = j->c->path->kernels;
    const int ns = j->mc->n_streams, n = j->s->convolve;
    orr_error ignored;
    if (!kern) {
        sep_reference_backend.sep_star_probs(j->be, j->mc, j->s, j->stars, first, last, j->bg_prob,
                                             j->st_prob, &ignored);
        return;
    }
    const int cpad = padded_nodes(n);
    double r_point[SEP_MAX_CONVOLVE + SEP_SIMD_PAD], qw[SEP_MAX_CONVOLVE + SEP_SIMD_PAD];
    double st[SEP_MAX_STREAMS];
    for (int i = first; i < last; i++) {
        const double K = sep_star_r_points(j->mc, j->s, j->stars->r[i], r_point, qw);
        for (int k = n; k < cpad; k++) {
            r_point[k] = r_point[n - 1];
            qw[k] = 0.0;
        }
        sep_direction d;
        sep_direction_of_lb(j->stars->l[i], j->stars->b[i], &d);
        double bgs = kern->node_sums(j->mc, &d, r_point, qw, cpad, st);
        j->bg_prob[i] = bgs * K;
        for (int s = 0; s < ns; s++)
            j->st_prob[(size_t)i * ns + s] = st[s] * K;
    }
}

static orr_status cpu_star_probs(orr_backend *be, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err)
{
    cpu_ctx *c = be->ctx;
    (void)err;   /* star sums cannot fail */
    star_job j = {be, c, mc, s, stars, begin, end, bg_prob, st_prob};
    orr_pool_run(c->pool, (end - begin + STAR_BLOCK - 1) / STAR_BLOCK, star_task, &j);
    return ORR_OK;
}

/* ---- open / close ---- */

static void cpu_close(orr_backend *be)
{
    cpu_ctx *c = be->ctx;
    if (!c)
        return;
    orr_pool_destroy(c->pool);
    free_tables(c);
    free(c);
    be->ctx = NULL;
}

static int default_threads(void)
{
    const orr_init_data *id = orr_runtime_init_data();
    if (!id->standalone && id->ncpus >= 1)
        return (int)(id->ncpus + 0.5);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (int)n : 1;
}

orr_status orr_open_cpu_backend(const orr_backend_request *req, orr_backend *be, orr_error *err)
{
    const cpu_path *path = NULL;
    for (size_t i = 0; i < ORR_ARRAY_LEN(paths); i++) {
        if (req->cpu_path ? strcmp(req->cpu_path, paths[i].name) == 0 : paths[i].supported()) {
            path = &paths[i];
            break;
        }
    }
    if (!path) {
        char known[64] = "";
        for (size_t i = 0; i < ORR_ARRAY_LEN(paths); i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     paths[i].name);
        return orr_fail(err, ORR_ERR_USAGE, "--cpu-path: unknown path '%s' (this build has %s)",
                        req->cpu_path, known);
    }
    if (!path->supported())
        return orr_fail(err, ORR_ERR_UNSUPPORTED, "--cpu-path %s: this CPU cannot run it",
                        path->name);

    cpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->path = path;
    orr_status s = orr_pool_create(req->nthreads > 0 ? req->nthreads : default_threads(), &c->pool, err);
    if (s != ORR_OK) {
        free(c);
        return s;
    }
    memset(be, 0, sizeof *be);
    be->name = "CPU";
    be->variant = path->name;
    be->ctx = c;
    be->close = cpu_close;
    /* A few chunks per thread: the batch's last chunks leave little idle. */
    be->min_batch = 4 * orr_pool_threads(c->pool);
    be->sep_integral_chunks = cpu_integral_chunks;
    be->sep_star_probs = cpu_star_probs;
    orr_log("CPU backend: %s kernels, %d thread%s", path->name, orr_pool_threads(c->pool),
            orr_pool_threads(c->pool) == 1 ? "" : "s");
    return ORR_OK;
}
