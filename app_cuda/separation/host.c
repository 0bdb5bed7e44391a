/* Separation's CUDA kernels, as the shared GPU policy calls them
 * (common/separation/device.h): launches on the device's buffers, every
 * launch's error checked; the policy waits and reads back. */
#include <cuda_runtime_api.h>

#include "../device_cuda.h"
#include "kernels.h"
#include "separation/device.h"

static orr_status set_model(orr_device *d, void *kern, const sep_model_consts *mc, orr_error *err)
{
    (void)d;
    (void)kern;
    int e = orr_cuda_set_model(mc);
    return e ? orr_cuda_fail(err, e, "copying the model constants") : ORR_OK;
}

static int slots(orr_device *d, void *kern, int n_streams)
{
    (void)kern;
    return d->compute_units * orr_cuda_integral_blocks_per_sm(n_streams);
}

static orr_status directions(orr_device *d, void *kern, const sep_model_consts *mc,
                             const sep_area_tables *t, sep_device_area *a, orr_error *err)
{
    (void)d;
    (void)kern;
    int e = orr_cuda_column_directions(mc->wedge, t->mu_min, t->mu_step, a->nu, t->nu_steps,
                                       t->mu_steps, a->dirs);
    return e ? orr_cuda_fail(err, e, "computing the grid directions") : ORR_OK;
}

static orr_status integral(orr_device *d, void *kern, const sep_device_area *a, int n_streams,
                           int first, int count, orr_dmem out, orr_error *err)
{
    (void)d;
    (void)kern;
    const orr_cuda_area area = {a->r_steps, a->mu_steps, a->nu_steps, a->convolve,
                                a->r_point, a->qw_r3_N,  a->irv,      a->reff_xr_rp3,
                                a->id,      a->dirs};
    int e = orr_cuda_integral_chunks(&area, n_streams, first, count, out);
    return e ? orr_cuda_fail(err, e, "launching the integral kernel") : ORR_OK;
}

static orr_status star_sums(orr_device *d, void *kern, int n, int convolve, int n_streams,
                            const sep_device_stars *b, orr_error *err)
{
    (void)d;
    (void)kern;
    int e = orr_cuda_star_sums(n, convolve, n_streams, b->dirs, b->r_point, b->qw_r3_N, b->bg,
                               b->st);
    return e ? orr_cuda_fail(err, e, "computing the star probabilities") : ORR_OK;
}

static const sep_device_kernels cuda_sep_kernels = {set_model, slots,     directions,
                                                    integral,  star_sums, NULL};

orr_status sep_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    return sep_device_attach(be->ctx, &cuda_sep_kernels, NULL, slot, err);
}
