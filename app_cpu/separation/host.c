/* Separation on the CPU backend: the SIMD kernels of the backend's path
 * (simd/kernels.c, compiled once per ISA) or, on the scalar path, the
 * reference; node tables padded for the vector width; chunks and star
 * blocks as tasks on the thread pool, each with its own output, so the
 * results are bit-identical for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "../cpu_backend.h"
#include "separation/nodes.h"
#include "separation/ops.h"
#include "simd/kernels.h"

#define STAR_BLOCK 64

typedef struct {
    const orr_cpu_ctx *cpu;
    const sep_simd_kernels *kernels;   /* NULL: the scalar reference */
    sep_simd_tables tables;            /* padded node tables of `tables_for` */
    const sep_setup *tables_for;
} cpu_sep;

/* The kernels of an instruction set (NULL: the reference serves). */
static const sep_simd_kernels *kernels_for(orr_cpu_isa isa)
{
    switch (isa) {
#if ORR_X86_64
    case ORR_CPU_AVX512: return &sep_simd_avx512;
    case ORR_CPU_AVX2: return &sep_simd_avx2;
    case ORR_CPU_SSE2: return &sep_simd_sse2;
#endif
    default: return NULL;
    }
}

/* ---- padded node tables ---- */

static int padded_nodes(int convolve)
{
    return (convolve + SEP_SIMD_PAD - 1) / SEP_SIMD_PAD * SEP_SIMD_PAD;
}

static void free_tables(cpu_sep *c)
{
    for (int a = 0; a < SEP_MAX_AREAS; a++) {
        free(c->tables.r_point[a]);
        free(c->tables.qw[a]);
        c->tables.r_point[a] = c->tables.qw[a] = NULL;
    }
    c->tables_for = NULL;
}

static void pad_area(const sep_area_tables *t, int n, int cpad, double *rp, double *qw)
{
    for (int i = 0; i < t->r_steps; i++) {
        for (int k = 0; k < cpad; k++) {
            int from = k < n ? k : n - 1;
            rp[(size_t)i * cpad + k] = t->r_point[(size_t)i * n + from];
            qw[(size_t)i * cpad + k] = k < n ? t->qw_r3_N[(size_t)i * n + k] : 0.0;
        }
    }
}

static orr_status prepare_tables(cpu_sep *c, const sep_setup *s, orr_error *err)
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
        pad_area(t, n, cpad, rp, qw);
    }
    c->tables_for = s;
    return ORR_OK;
}

/* ---- integral ---- */

typedef struct {
    const cpu_sep *c;
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
    if (!j->c->kernels) {
        orr_error ignored;   /* the reference cannot fail */
        sep_reference_ops.integral_chunks(NULL, j->mc, j->s, j->area, j->first + k, 1, &j->out[k],
                                          &ignored);
        return;
    }
    sep_chunk_cells(t, j->first + k, &nu_step, &mu_begin, &mu_end);
    j->c->kernels->integral_chunk(&j->tables, j->area, nu_step, mu_begin, mu_end, &j->out[k]);
}

static orr_status cpu_integral_chunks(void *state, const sep_model_consts *mc, const sep_setup *s,
                                      int area, int first, int count, sep_partial *out,
                                      orr_error *err)
{
    cpu_sep *c = state;
    if (c->kernels) {
        orr_status st = prepare_tables(c, s, err);
        if (st != ORR_OK)
            return st;
    }
    chunk_job j = {c, c->tables, mc, s, area, first, out};
    j.tables.mc = mc;
    orr_pool_run(c->cpu->pool, count, chunk_task, &j);
    return ORR_OK;
}

/* ---- stars ---- */

typedef struct {
    const cpu_sep *c;
    const sep_model_consts *mc;
    const sep_setup *s;
    const sep_stars *stars;
    int begin, end;
    double *bg_prob, *st_prob;
} star_job;

/* Star i's probabilities by the path's node sums (padded nodes). */
static void star_probs_simd(const star_job *j, int i)
{
    const int ns = j->mc->n_streams, n = j->s->convolve, cpad = padded_nodes(n);
    double r_point[SEP_MAX_CONVOLVE + SEP_SIMD_PAD], qw[SEP_MAX_CONVOLVE + SEP_SIMD_PAD];
    double st[SEP_MAX_STREAMS];
    const double K = sep_star_r_points(j->mc, j->s, j->stars->r[i], r_point, qw);
    for (int k = n; k < cpad; k++) {
        r_point[k] = r_point[n - 1];
        qw[k] = 0.0;
    }
    sep_direction d;
    sep_direction_of_lb(j->stars->l[i], j->stars->b[i], &d);
    double bgs = j->c->kernels->node_sums(j->mc, &d, r_point, qw, cpad, st);
    j->bg_prob[i] = bgs * K;
    for (int s = 0; s < ns; s++)
        j->st_prob[(size_t)i * ns + s] = st[s] * K;
}

static void star_task(void *arg, int block)
{
    star_job *j = arg;
    const int first = j->begin + block * STAR_BLOCK;
    const int last = first + STAR_BLOCK < j->end ? first + STAR_BLOCK : j->end;
    if (!j->c->kernels) {
        orr_error ignored;
        sep_reference_ops.star_probs(NULL, j->mc, j->s, j->stars, first, last, j->bg_prob,
                                     j->st_prob, &ignored);
        return;
    }
    for (int i = first; i < last; i++)
        star_probs_simd(j, i);
}

static orr_status cpu_star_probs(void *state, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err)
{
    cpu_sep *c = state;
    (void)err;   /* star sums cannot fail */
    star_job j = {c, mc, s, stars, begin, end, bg_prob, st_prob};
    orr_pool_run(c->cpu->pool, (end - begin + STAR_BLOCK - 1) / STAR_BLOCK, star_task, &j);
    return ORR_OK;
}

/* Every batch ends with the threads waiting for its last chunk, so with
 * several threads a batch gives each of them many: with 4 a thread the
 * batches of a 16-thread run stopped growing at 8 a thread (0.1 s) and up
 * to a chunk in 8 was lost at each end, more where some cores run slower
 * than others. On the lent 16-core Xeon, 16 threads, best of 3: stripe 12
 * 66.9 -> 60.1 s, x16 1.17 -> 1.04 s (4 -> 32 a thread; 16 came between).
 * A batch stays under a second or two on slow machines (a quit or a
 * checkpoint waits for it); one thread waits for nothing. */
static int cpu_min_batch(void *state)
{
    const cpu_sep *c = state;
    const int threads = orr_pool_threads(c->cpu->pool);
    return threads > 1 ? 32 * threads : 1;
}

static void cpu_sep_release(void *state)
{
    cpu_sep *c = state;
    free_tables(c);
    free(c);
}

static const sep_ops cpu_sep_ops = {cpu_min_batch, cpu_integral_chunks, cpu_star_probs};

orr_status sep_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    cpu_sep *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    c->cpu = be->ctx;
    c->kernels = kernels_for(be->cpu_isa);
    slot->ops = &cpu_sep_ops;
    slot->state = c;
    slot->release = cpu_sep_release;
    return ORR_OK;
}
