/* CPU backend: each SIMD path's exp against long double expl (ulps), each
 * path's chunk sums and star probabilities against the scalar reference,
 * bit-identical results for any thread count, and the pool itself. Paths
 * this CPU cannot run are reported and skipped. */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cpu_backend.h"
#include "separation/ops.h"
#include "separation/simd/kernels.h"
#include "runtime/runtime.h"
#include "threads.h"

static const char *datadir;

static const sep_simd_kernels *kernels_of(const char *name)
{
#if ORR_X86_64
    if (strcmp(name, "avx512") == 0) return &sep_simd_avx512;
    if (strcmp(name, "avx2") == 0) return &sep_simd_avx2;
    if (strcmp(name, "sse2") == 0) return &sep_simd_sse2;
#endif
    (void)name;
    return NULL;
}

/* Distance in units in the last place of the double nearest to ref. */
static double ulps(double got, long double ref)
{
    double r = (double)ref;
    if (r == 0.0)
        return got == 0.0 ? 0.0 : INFINITY;
    /* in long double, where the ulp of a tiny double is still normal */
    long double ulp = ldexpl(1.0L, ilogb(r) - 52);
    return (double)(fabsl((long double)got - ref) / ulp);
}

static void test_exp_accuracy(void)
{
    enum { N = 400000 };
    double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    /* A dense sweep of where our arguments live (-745..0: stream and disk
     * exponents), the subnormal range, some positives, and random values. */
    srand(12345);
    for (int i = 0; i < N; i++) {
        if (i < N / 2)
            x[i] = -745.0 * i / (N / 2);
        else if (i < N / 2 + 1000)
            x[i] = -745.1 + 37.0 * (i - N / 2) / 1000.0;   /* subnormal results */
        else if (i < N / 2 + 20000)
            x[i] = 709.0 * (i - N / 2 - 1000) / 19000.0;
        else
            x[i] = -50.0 * rand() / RAND_MAX;
    }
    for (int p = 0; p < orr_cpu_path_count(); p++) {
        const sep_simd_kernels *k = kernels_of(orr_cpu_path_name(p));
        if (!k)
            continue;
        if (!orr_cpu_path_supported(p)) {
            printf("\n  %s: this CPU cannot run it, skipped", orr_cpu_path_name(p));
            continue;
        }
        k->exp(x, y, N);
        double worst = 0, worst_at = 0, worst_subnormal = 0;
        for (int i = 0; i < N; i++) {
            long double ref = expl((long double)x[i]);
            if (ref < 0x1p-1022L) {   /* subnormal: absolute, in units of the smallest */
                double e = (double)(fabsl((long double)y[i] - ref) / 0x1p-1074L);
                worst_subnormal = e > worst_subnormal ? e : worst_subnormal;
                continue;
            }
            double e = ulps(y[i], ref);
            if (e > worst) {
                worst = e;
                worst_at = x[i];
            }
        }
        printf("\n  %s exp: worst %.2f ulp (at %.6g), subnormal results within %.2f of the smallest",
               k->name, worst, worst_at, worst_subnormal);
        CU_ASSERT(worst <= 2.0);
        CU_ASSERT(worst_subnormal <= 1.0);
        /* limits */
        double edge[4] = {-2000.0, -1e300, 0.0, -INFINITY}, out[4];
        k->exp(edge, out, 4);
        CU_ASSERT(out[0] == 0.0 && out[1] == 0.0 && out[2] == 1.0 && out[3] == 0.0);
    }
    free(x);
    free(y);
}

typedef struct {
    sep_params p;
    sep_model_consts mc;
    sep_setup s;
} problem;

static void load_problem(problem *pr, const char *file, sep_model model, int newbg)
{
    char path[4096];
    orr_error err;
    sep_model_options opt = {model, 0, newbg};
    snprintf(path, sizeof path, "%s/%s", datadir, file);
    CU_ASSERT_EQUAL_FATAL(sep_params_load(path, &pr->p, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(sep_model_consts_init(&pr->p, &opt, model == SEP_MODEL_AUTO ? pr->p.file_model : model,
                                                &pr->mc, &err), ORR_OK);
    CU_ASSERT_EQUAL_FATAL(sep_setup_init(&pr->p, &pr->mc, &pr->s, &err), ORR_OK);
}

static int same_bits(const sep_partial *a, const sep_partial *b, int ns)
{
    if (memcmp(&a->bg, &b->bg, sizeof a->bg) != 0)
        return 0;
    return memcmp(a->st, b->st, (size_t)ns * sizeof a->st[0]) == 0;
}

static double rel(double a, double b) { return b == 0 ? fabs(a) : fabs(a - b) / fabs(b); }

/* For each path: chunk partials against the reference, and the same bits
 * with 1, 2 and 3 threads. */
static void check_chunks(const char *file, sep_model model, int newbg)
{
    problem pr;
    load_problem(&pr, file, model, newbg);
    const sep_area_tables *t = &pr.s.areas[0];
    const int count = sep_area_chunks(t) < 48 ? sep_area_chunks(t) : 48;
    const int first = sep_area_chunks(t) / 3;
    const int ns = pr.mc.n_streams;
    sep_partial *ref = calloc((size_t)count, sizeof *ref), *got = calloc((size_t)count, sizeof *got),
                *again = calloc((size_t)count, sizeof *again);
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(sep_reference_ops.integral_chunks(NULL, &pr.mc, &pr.s, 0, first, count, ref, &err), ORR_OK);

    for (int p = 0; p < orr_cpu_path_count(); p++) {
        if (!orr_cpu_path_supported(p))
            continue;
        double worst = 0;
        for (int threads = 1; threads <= 3; threads++) {
            orr_backend be;
            orr_backend_request req = {-1, -1, threads, orr_cpu_path_name(p), 0, 0};
            CU_ASSERT_EQUAL_FATAL(orr_open_cpu_backend(&req, &be, &err), ORR_OK);
            sep_bound_ops ops;
            CU_ASSERT_EQUAL_FATAL(sep_ops_of(&be, &ops, &err), ORR_OK);
            memset(got, 0xff, (size_t)count * sizeof *got);   /* poison */
            CU_ASSERT_EQUAL(ops.ops.integral_chunks(ops.state, &pr.mc, &pr.s, 0, first, count, got, &err), ORR_OK);
            orr_backend_close(&be);
            for (int k = 0; k < count; k++) {
                worst = fmax(worst, rel(got[k].bg.sum, ref[k].bg.sum));
                for (int j = 0; j < ns; j++)
                    if (!pr.mc.stream_negligible[j])
                        worst = fmax(worst, rel(got[k].st[j].sum, ref[k].st[j].sum));
                if (threads == 1)
                    again[k] = got[k];
                else
                    CU_ASSERT(same_bits(&got[k], &again[k], ns));
            }
        }
        printf("\n  %s, %s: chunks within %.2e relative of the reference, same bits on 1-3 threads",
               file, orr_cpu_path_name(p), worst);
        CU_ASSERT(worst < 1e-13);
    }
    free(ref);
    free(got);
    free(again);
    sep_setup_free(&pr.s);
}

static void test_chunks_classic(void)
{
    check_chunks("params_head/astronomy_parameters-11-small.txt.gz", SEP_MODEL_AUTO, 0);
}

static void test_chunks_v146_disk(void)
{
    check_chunks("params_v146/astronomy_parameters-11-small-v146.txt.gz", SEP_MODEL_AUTO, 0);
}

static void test_chunks_newbg(void)
{
    check_chunks("params_v146/astronomy_parameters-11-small-v146.txt.gz", SEP_MODEL_AUTO, 1);
}

static void test_star_probs(void)
{
    problem pr;
    load_problem(&pr, "params_head/astronomy_parameters-11-small.txt.gz", SEP_MODEL_AUTO, 0);
    enum { N = 300 };
    double l[N], b[N], r[N];
    srand(777);
    for (int i = 0; i < N; i++) {
        l[i] = 150 + 80.0 * rand() / RAND_MAX;
        b[i] = 20 + 30.0 * rand() / RAND_MAX;
        r[i] = 2 + 60.0 * rand() / RAND_MAX;
    }
    sep_stars stars = {N, l, b, r, 0};
    const int ns = pr.mc.n_streams;
    double bg_ref[N], st_ref[N * SEP_MAX_STREAMS], bg[N], st[N * SEP_MAX_STREAMS];
    orr_error err;
    CU_ASSERT_EQUAL_FATAL(sep_reference_ops.star_probs(NULL, &pr.mc, &pr.s, &stars, 0, N, bg_ref, st_ref, &err), ORR_OK);
    for (int p = 0; p < orr_cpu_path_count(); p++) {
        if (!orr_cpu_path_supported(p))
            continue;
        orr_backend be;
        orr_backend_request req = {-1, -1, 2, orr_cpu_path_name(p), 0, 0};
        CU_ASSERT_EQUAL_FATAL(orr_open_cpu_backend(&req, &be, &err), ORR_OK);
        sep_bound_ops ops;
        CU_ASSERT_EQUAL_FATAL(sep_ops_of(&be, &ops, &err), ORR_OK);
        memset(bg, 0xff, sizeof bg);
        memset(st, 0xff, sizeof st);
        CU_ASSERT_EQUAL(ops.ops.star_probs(ops.state, &pr.mc, &pr.s, &stars, 0, N, bg, st, &err), ORR_OK);
        orr_backend_close(&be);
        double worst = 0;
        for (int i = 0; i < N; i++) {
            worst = fmax(worst, rel(bg[i], bg_ref[i]));
            for (int j = 0; j < ns; j++)   /* far-off stars: compare against the star's scale */
                worst = fmax(worst, fabs(st[i * ns + j] - st_ref[i * ns + j]) /
                                        fmax(fabs(st_ref[i * ns + j]), 1e-300 + bg_ref[i] * 1e-3));
        }
        printf("\n  %s: star probabilities within %.2e relative", orr_cpu_path_name(p), worst);
        CU_ASSERT(worst < 1e-12);
    }
    sep_setup_free(&pr.s);
}

static void count_task(void *ctx, int task)
{
    int *hits = ctx;
    __atomic_add_fetch(&hits[task], 1, __ATOMIC_RELAXED);
}

static void test_pool(void)
{
    orr_error err;
    for (int threads = 1; threads <= 5; threads += 2) {
        orr_pool *pool;
        CU_ASSERT_EQUAL_FATAL(orr_pool_create(threads, &pool, &err), ORR_OK);
        CU_ASSERT_EQUAL(orr_pool_threads(pool), threads);
        for (int round = 0; round < 50; round++) {
            int hits[97] = {0};
            int n = round % 97;
            orr_pool_run(pool, n, count_task, hits);
            int ok = 1;
            for (int i = 0; i < 97; i++)
                ok &= hits[i] == (i < n);
            CU_ASSERT(ok);
        }
        orr_pool_destroy(pool);
    }
}

static void test_unknown_path(void)
{
    orr_backend be;
    orr_error err;
    orr_backend_request req = {-1, -1, 1, "avx1024", 0, 0};
    CU_ASSERT_EQUAL(orr_open_cpu_backend(&req, &be, &err), ORR_ERR_USAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "scalar"));
}

/* The CPU app's thread count from BOINC's ncpus (app_cpu/backend_cpu.c):
 * init_data.xml is anyone's to edit, so 3000, 1e300, NaN, infinities and
 * negatives must give a sane count (0: ignored, the default applies). */
static void test_ncpus_cap(void)
{
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(3000, 16), 16);        /* the online CPUs */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(3000, 4096), 1024);    /* the hard cap */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(3000, 0), 1024);       /* online unknown */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(3000, -1), 1024);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(1e300, 8), 8);         /* no overflowing cast */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(1024, 2048), 1024);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(8, 8), 8);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(8.4, 8), 8);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(2.4, 8), 2);           /* rounded */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(2.5, 8), 3);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(1, 8), 1);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(0.25, 8), 1);          /* at least one */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(1e-9, 8), 1);
}

static void test_ncpus_refused(void)
{
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(0, 8), 0);             /* not given */
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(-0.0, 8), 0);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(-2, 8), 0);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(-1e300, 8), 0);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(NAN, 8), 0);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(-NAN, 8), 0);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(INFINITY, 8), 0);
    CU_ASSERT_EQUAL(orr_cpu_threads_from_ncpus(-INFINITY, 8), 0);
}

int main(void)
{
    datadir = getenv("ORR_DATA");
    if (!datadir) {
        fprintf(stderr, "ORR_DATA must be set (make check does this)\n");
        return 1;
    }
    /* As the app does: among other things this undoes the flush-to-zero
     * that Debian's libboinc switches on when it is loaded. */
    orr_error err;
    if (orr_runtime_init(0, &err) != ORR_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("CPU backend (SIMD paths, threads)", NULL, NULL);
    CU_add_test(s, "vector exp within 2 ulp of expl", test_exp_accuracy);
    CU_add_test(s, "chunks: classic model, every path, 1-3 threads", test_chunks_classic);
    CU_add_test(s, "chunks: v146 halo + disk", test_chunks_v146_disk);
    CU_add_test(s, "chunks: v146 --newbg (lane-wise pow)", test_chunks_newbg);
    CU_add_test(s, "star probabilities, every path", test_star_probs);
    CU_add_test(s, "thread pool runs each task once", test_pool);
    CU_add_test(s, "unknown --cpu-path refused", test_unknown_path);
    CU_add_test(s, "threads from BOINC's ncpus: capped, at least 1", test_ncpus_cap);
    CU_add_test(s, "threads from BOINC's ncpus: zero, negative, NaN, infinite ignored", test_ncpus_refused);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
