/* `diffraction --bench K`: the operator's speed on the app's backend
 * (bench/diffraction/bench.sh runs every app side by side). The work
 * unit's first batch is planned as a run would plan it; K products A x are
 * timed over all its points (random x, the device synchronised before and
 * after by a dot product), then the batch is solved from the start. Bytes
 * per product: what the kernels' passes move (the padded grids twice
 * through the FFTs, once padded, once multiplied with the spectra, read by
 * the z sweeps) and the least any implementation must move (x and the
 * spectra read, y written), so a device's figure can be set against its
 * copy bandwidth. Prints `key value` lines; writes no file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/runtime.h"
#include "job.h"

static void random_vector(double complex *v, size_t n, unsigned *seed)
{
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        const double re = (*seed >> 8) / 16777216.0 - 0.5;
        *seed = *seed * 1103515245u + 12345u;
        v[i] = re + I * ((*seed >> 8) / 16777216.0 - 0.5);
    }
}

/* Times k products over the batch's n points; seconds per product. */
static orr_status time_products(dif_job *job, int n, int k, double *seconds, orr_error *err)
{
    const dif_ops *o = job->ops.ops;
    int *all = malloc((size_t)n * sizeof *all);
    double complex dots[4];
    if (!all)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    for (int b = 0; b < n; b++)
        all[b] = b;
    const int pair[2] = {DIF_VT, DIF_VT};
    orr_status st = o->matvec(job->sv.ctx, all, n, DIF_VX, DIF_VT, err);   /* warm up */
    if (st == ORR_OK)
        st = o->dots(job->sv.ctx, all, 1, 1, pair, dots, err);
    const double t0 = orr_runtime_seconds();
    for (int i = 0; st == ORR_OK && i < k; i++)
        st = o->matvec(job->sv.ctx, all, n, DIF_VX, DIF_VT, err);
    if (st == ORR_OK)
        st = o->dots(job->sv.ctx, all, 1, 1, pair, dots, err);
    *seconds = (orr_runtime_seconds() - t0) / k;
    free(all);
    return st;
}

static void print_sizes(const dif_job *job, const orr_backend *be, int n)
{
    const dif_setup *s = &job->s;
    printf("backend %s%s%s\n", be->name, be->variant ? " " : "", be->variant ? be->variant : "");
    printf("points %d\n", n);
    printf("orders %d %d\nslices %d\ngrid %d %d\nunknowns %zu\n", s->kx, s->ky, s->nz, s->fft_x,
           s->fft_y, s->unknowns);
}

static void print_products(const dif_job *job, int n, double t)
{
    const double grid = 16.0 * job->s.nz * job->s.fft_x * job->s.fft_y;
    const double vec = 16.0 * job->s.unknowns;
    /* pad: x in, grid out; FFT: grid in and out; product: grid and
     * spectra in, grid out; inverse FFT; z sweeps: x and w in, y out */
    const double passes = (vec + grid) + 2 * grid + 3 * grid + 2 * grid + 3 * vec;
    const double least = 2 * vec + grid;   /* x in, y out, the spectra */
    printf("matvec_seconds %.6e\n", t);
    printf("matvec_seconds_per_point %.6e\n", t / n);
    printf("matvec_flops_per_point %.6e\n", job->s.matvec_flops);
    printf("matvec_bytes_per_point_passes %.6e\n", passes);
    printf("matvec_bytes_per_point_least %.6e\n", least);
    printf("matvec_GBps_passes %.3f\n", passes * n / t / 1e9);
    printf("matvec_GBps_least %.3f\n", least * n / t / 1e9);
}

/* The batch solved from the start; seconds, iterations. */
static orr_status time_solve(dif_job *job, const dif_batch *b, orr_error *err)
{
    const double t0 = orr_runtime_seconds();
    orr_status st = dif_solver_start(&job->sv, b, err);
    int left = 1;
    while (st == ORR_OK && left)
        st = dif_solver_run(&job->sv, 1e9, &left, err);
    const double t = orr_runtime_seconds() - t0;
    long iterations = 0;
    for (int p = 0; p < b->n; p++)
        iterations += job->sv.st[p].iterations;
    if (st == ORR_OK) {
        printf("solve_seconds %.6e\n", t);
        printf("solve_seconds_per_point %.6e\n", t / b->n);
        printf("iterations_per_point %.2f\n", (double)iterations / b->n);
    }
    return st;
}

orr_status dif_bench_tool(const dif_cli *opt, orr_backend *be, const orr_error *no_device,
                          orr_error *err)
{
    if (!be)
        return no_device ? orr_fail(err, no_device->status, "%s", no_device->message)
                         : orr_fail(err, ORR_ERR_INTERNAL, "--bench: no backend");
    void *p;
    orr_status st = dif_job_plan(opt, be, &p, err);
    if (st != ORR_OK)
        return st;
    dif_job *job = p;
    dif_batch b;
    const int n = job->capacity;
    st = dif_job_batch_prepare(job, 0, n, &b, err);
    if (st == ORR_OK)
        st = job->ops.ops->load(job->sv.ctx, &b, err);
    unsigned seed = 12345;
    for (int i = 0; st == ORR_OK && i < n; i++) {
        random_vector(job->w, job->s.unknowns, &seed);
        st = job->ops.ops->write(job->sv.ctx, i, DIF_VX, job->w, err);
    }
    double t = 0;
    if (st == ORR_OK)
        st = time_products(job, n, opt->bench, &t, err);
    if (st == ORR_OK) {
        print_sizes(job, be, n);
        print_products(job, n, t);
        st = time_solve(job, &b, err);
    }
    dif_job_free(job);
    return st;
}
