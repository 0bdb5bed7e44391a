/* The MoM kind's CPU benchmark (bench/mom/RESULTS.md): for each N, the
 * circle of ka = 4.5 cut into N cells (MoM), Z filled by the reference
 * ops, then side by side on the same Z: OpenBLAS's zgetrf in one call (the
 * anchor), the reference solver's blocked LU (zgetrf panels, laswp, trsm,
 * gemm a block column at a time, as a run steps it), the faithful
 * solver's unpivoted blocked LU, and the mixed solver's single-precision
 * LU; GFLOP/s at (8/3) n^3 real flops. Last, the ceiling of the LU's
 * trailing updates: OpenBLAS's zgemm of an n x 128 by a 128 x n block
 * (128 the CPU solvers' block column), GFLOP/s at 8 n^2 128. Threads: the
 * pool's for the fill, OpenBLAS's for the rest.
 *
 *   bench/mom/lu_bench THREADS N...   (defaults: every core; 2000 5000) */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mom/lapack.h"
#include "mom/ops.h"
#include "threads.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double lu_gflops(int n, double seconds)
{
    return 8.0 / 3 * n * (double)n * n / seconds / 1e9;
}

/* Opens, fills and (timed) factors a system of solver s; returns the
 * factorisation's seconds, the fill's in *fill. */
static double factor_run(mom_workunit *wu, const mom_problem *p, mom_cpu_state *cpu, double *fill)
{
    orr_error err;
    mom_ctx *c;
    if (mom_reference_ops.open(cpu, wu, p, &c, &err) != ORR_OK) {
        fprintf(stderr, "lu_bench: %s\n", err.message);
        exit(1);
    }
    double t0 = now();
    mom_reference_ops.fill(c, 0, p->n, &err);
    *fill = now() - t0;
    t0 = now();
    for (int j = 0; j < p->n; j += mom_reference_ops.block(c))
        if (mom_reference_ops.factor(c, j, &err) != ORR_OK) {
            fprintf(stderr, "lu_bench: %s\n", err.message);
            exit(1);
        }
    const double t = now() - t0;
    mom_reference_ops.close(c);
    return t;
}

/* zgetrf in one call on Z (made by a fresh fill). */
static double zgetrf_run(mom_workunit *wu, const mom_problem *p, mom_cpu_state *cpu)
{
    orr_error err;
    mom_ctx *c;
    const mom_lapack *L;
    const lapack_int n = p->n;
    lapack_int info;
    double complex *z = malloc((size_t)n * n * sizeof *z);
    lapack_int *ipiv = malloc((size_t)n * sizeof *ipiv);
    if (!z || !ipiv || mom_lapack_load(&L, &err) != ORR_OK ||
        mom_reference_ops.open(cpu, wu, p, &c, &err) != ORR_OK)
        exit(1);
    mom_reference_ops.fill(c, 0, n, &err);
    mom_reference_ops.read(c, MOM_STATE_MATRIX, z, &err);
    mom_reference_ops.close(c);
    const double t0 = now();
    L->zgetrf(&n, &n, z, &n, ipiv, &info);
    const double t = now() - t0;
    free(z);
    free(ipiv);
    return t;
}

/* zgemm: C (n x n) -= A (n x k) B (k x n), k = 128, on random entries. */
static double zgemm_run(int n)
{
    orr_error err;
    const mom_lapack *L;
    const lapack_int m = n, k = 128;
    double complex *a = malloc((size_t)n * k * sizeof *a), *b = malloc((size_t)n * k * sizeof *b),
                   *c = malloc((size_t)n * n * sizeof *c);
    if (!a || !b || !c || mom_lapack_load(&L, &err) != ORR_OK)
        exit(1);
    srand(1);
    for (size_t i = 0; i < (size_t)n * k; i++) {
        a[i] = rand() / (double)RAND_MAX - 0.5 + I * (rand() / (double)RAND_MAX - 0.5);
        b[i] = rand() / (double)RAND_MAX - 0.5 + I * (rand() / (double)RAND_MAX - 0.5);
    }
    memset(c, 0, (size_t)n * n * sizeof *c);
    const double complex minus_one = -1, one = 1;
    L->zgemm("N", "N", &m, &m, &k, &minus_one, a, &m, b, &k, &one, c, &m); /* warm */
    const double t0 = now();
    L->zgemm("N", "N", &m, &m, &k, &minus_one, a, &m, b, &k, &one, c, &m);
    const double t = now() - t0;
    free(a);
    free(b);
    free(c);
    return t;
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    static double incidence = 0;
    orr_error err;
    mom_cpu_state cpu = {threads, NULL};
    if (orr_pool_create(threads, &cpu.pool, &err) != ORR_OK)
        return 1;
    printf("threads %d\n%6s %9s %18s %18s %18s %18s %18s\n", threads, "N", "fill s",
           "zgetrf s (GF/s)", "reference s (GF/s)", "faithful s (GF/s)", "mixed s (GF/s)",
           "zgemm k128 (GF/s)");
    const int default_n[] = {2000, 5000};
    const int count = argc > 2 ? argc - 2 : 2;
    for (int i = 0; i < count; i++) {
        const int n = argc > 2 ? atoi(argv[2 + i]) : default_n[i];
        mom_workunit wu = {.wavelength = 1, .shape = MOM_CIRCLE, .radius = 4.5 / (2 * M_PI),
                           .cells = n, .n_incidence = 1, .incidence = &incidence};
        strcpy(wu.path, "bench");
        mom_problem p;
        if (mom_problem_init(&wu, &p, &err) != ORR_OK)
            return 1;
        double fill, t[4];
        t[0] = zgetrf_run(&wu, &p, &cpu);
        static const mom_solver solvers[3] = {MOM_REFERENCE, MOM_FAITHFUL, MOM_MIXED};
        for (int s = 0; s < 3; s++) {
            wu.solver = solvers[s];
            t[1 + s] = factor_run(&wu, &p, &cpu, &fill);
        }
        printf("%6d %9.3f", n, fill);
        for (int s = 0; s < 4; s++)
            printf(" %9.3f (%6.1f)", t[s], lu_gflops(n, t[s]));
        const double g = zgemm_run(n);
        printf(" %9.4f (%6.1f)\n", g, 8.0 * n * n * 128 / g / 1e9);
        fflush(stdout);
        mom_problem_free(&p);
    }
    orr_pool_destroy(cpu.pool);
    return 0;
}
