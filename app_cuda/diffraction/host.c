/* The diffraction kind's CUDA launches, as the shared GPU policy calls
 * them (common/diffraction/device.h): the operator's own kernels
 * (kernels.cu) and the padded grids' FFTs on the spectral kernels (1D lines
 * for a line grating, 2D images otherwise), in place. */
#include <stdlib.h>

#include "../device_cuda.h"
#include "../spectral/spectral_1d.h"
#include "../spectral/spectral_2d.h"
#include "diffraction/device.h"
#include "kernels.h"
#include "spectral/spectral.h"

typedef struct {
    orr_dmem tw;   /* the FFTs' twiddles, made for the first size asked */
    int tw_n;
} cuda_dif;

static orr_status check(int e, const char *what, orr_error *err)
{
    return e ? orr_cuda_fail(err, e, what) : ORR_OK;
}

/* e^{-2 pi j k / n}, k < n: the 1D kernels' table for n, the 2D kernels'
 * for ORR_CUDA_2D_TW_N. */
static orr_status twiddles(orr_device *d, cuda_dif *c, int n, orr_error *err)
{
    if (c->tw && c->tw_n == n)
        return ORR_OK;
    if (c->tw)
        d->api->release(d, c->tw);
    c->tw = NULL;
    double *t = spec_root_table(n, n, -1);
    if (!t)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    orr_status s = orr_device_upload_new(d, t, 2 * (size_t)n * sizeof *t, &c->tw, err);
    free(t);
    c->tw_n = s == ORR_OK ? n : 0;
    return s;
}

static orr_status fft(orr_device *d, void *kern, const dif_dims *dm, orr_dmem grid, int count,
                      int inverse, orr_error *err)
{
    cuda_dif *c = kern;
    const int two_d = dm->fft_y > 1;
    orr_status s = twiddles(d, c, two_d ? ORR_CUDA_2D_TW_N : dm->fft_x, err);
    if (s != ORR_OK)
        return s;
    if (two_d)
        return check(orr_cuda_fft2(0, dm->fft_y, dm->fft_x, count, inverse, grid, grid, c->tw),
                     "launching the 2D FFT", err);
    return check(orr_cuda_fft_c2c(0, dm->fft_x, count, inverse, grid, grid, c->tw, c->tw),
                 "launching the FFT", err);
}

static orr_status pad(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                      int n, int in, orr_error *err)
{
    return check(orr_cuda_dif_pad(dm, b, n, in), "launching the padding kernel", err);
}

static orr_status multiply(orr_device *d, void *kern, const dif_dims *dm,
                           const dif_device_bufs *b, int n, orr_error *err)
{
    return check(orr_cuda_dif_multiply(dm, b, n), "launching the contrast product", err);
}

static orr_status zop(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                      int n, int in, int out, orr_error *err)
{
    return check(orr_cuda_dif_zop(dm, b, n, in, out), "launching the z operator", err);
}

static orr_status crop(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                       int n, int out, orr_error *err)
{
    return check(orr_cuda_dif_crop(dm, b, n, out), "launching the crop kernel", err);
}

static orr_status dots(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                       int n, int n_pairs, dif_vidx vidx, orr_error *err)
{
    return check(orr_cuda_dif_dots(dm, b, n, n_pairs, vidx), "launching the dot products", err);
}

static orr_status lincomb(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                          int n, int out, int n_terms, dif_vidx vidx, orr_error *err)
{
    return check(orr_cuda_dif_lincomb(dm, b, n, out, n_terms, vidx), "launching the vector update",
                 err);
}

static void release(orr_device *d, void *kern)
{
    cuda_dif *c = kern;
    if (c->tw)
        d->api->release(d, c->tw);
    free(c);
}

static const dif_device_kernels cuda_dif_kernels = {fft, pad, multiply, zop, crop, dots, lincomb,
                                                    release};

orr_status dif_cuda_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    cuda_dif *c = calloc(1, sizeof *c);
    if (!c)
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    return dif_device_attach(be->ctx, &cuda_dif_kernels, c, slot, err);
}
