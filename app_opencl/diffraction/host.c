/* The diffraction kind's OpenCL launches, as the shared GPU policy calls
 * them (common/diffraction/device.h): the program (portable.h, zop.h and
 * kernels.cl, embedded) built on the first use, the operator's kernels,
 * and the padded grids' FFTs on the spectral kernels (spectral_host.h), in
 * place. Build options: nothing that relaxes arithmetic (as separation's). */
#include <stdlib.h>
#include <string.h>

#include "../device_opencl.h"
#include "../spectral/spectral_host.h"
#include "diffraction/device.h"
#include "runtime/runtime.h"

extern const char orr_opencl_diffraction_source[];

#define GROUP 256        /* work-items a group for the element-wise kernels */
#define DOT_ITEMS 256    /* kernels.cl's */
#define MAX_GROUPS 65536

/* kernels.cl's dims, laid out alike by every compiler: ints, then longs. */
typedef struct {
    cl_int nz, n_modes, kx, ky, fft_x, fft_y, n_layers, mx, my, capacity, n_vectors, pad;
    cl_long unknowns, grid;
} ocl_dif_dims;

typedef struct {
    cl_program program;
    cl_kernel pad, multiply, zop, crop, dots, lincomb;
    ocl_spectral *fft;
} ocl_dif;

static ocl_dif_dims dims_of(const dif_dims *d)
{
    ocl_dif_dims o = {d->nz, d->n_modes, d->kx, d->ky, d->fft_x, d->fft_y, d->n_layers, d->mx,
                      d->my, d->capacity, d->n_vectors, 0, d->unknowns, d->grid};
    return o;
}

static orr_status build(orr_device *d, ocl_dif *c, orr_error *err)
{
    if (c->program)
        return ORR_OK;
    const ocl_device *o = ocl_of(d);
    const double t0 = orr_runtime_seconds();
    char options[512];
    const char *extra = getenv("ORR_OPENCL_OPTIONS");
    snprintf(options, sizeof options, "-cl-std=CL1.2 %s %s", o->vendor_options, extra ? extra : "");
    orr_status s = ocl_build_program(o->context, o->device, orr_opencl_diffraction_source, options,
                                     "the diffraction kernels", &c->program, err);
    if (s != ORR_OK)
        return s;
    struct { cl_kernel *k; const char *name; } ks[] = {
        {&c->pad, "dif_pad"}, {&c->multiply, "dif_multiply"}, {&c->zop, "dif_zop"},
        {&c->crop, "dif_crop"}, {&c->dots, "dif_dots"}, {&c->lincomb, "dif_lincomb"}};
    for (size_t i = 0; i < ORR_ARRAY_LEN(ks); i++) {
        cl_int e;
        *ks[i].k = clCreateKernel(c->program, ks[i].name, &e);
        CL_TRY(e, "creating the diffraction kernels");
    }
    orr_log("OpenCL diffraction kernels built in %.2f s", orr_runtime_seconds() - t0);
    return ORR_OK;
}

/* An element-wise kernel over `work` items, grid-stride loops inside. */
static orr_status run(orr_device *d, ocl_dif *c, const cl_kernel *k, long work, int n,
                      const size_t *sizes, const void *const *values, const char *what,
                      orr_error *err)
{
    orr_status s = build(d, c, err);   /* makes *k on the first call */
    if (s == ORR_OK)
        s = ocl_set_args(*k, n, sizes, values, err);
    long groups = (work + GROUP - 1) / GROUP;
    groups = groups < 1 ? 1 : groups > MAX_GROUPS ? MAX_GROUPS : groups;
    return s == ORR_OK ? ocl_launch(d, *k, (size_t)groups * GROUP, GROUP, what, err) : s;
}

static orr_status fft(orr_device *d, void *kern, const dif_dims *dm, orr_dmem grid, int count,
                      int inverse, orr_error *err)
{
    ocl_dif *c = kern;
    const int two_d = dm->fft_y > 1;
    spec_desc desc = {.kind = two_d ? SPEC_FFT2 : SPEC_C2C, .precision = SPEC_F64,
                      .n = two_d ? dm->fft_y : dm->fft_x, .n2 = two_d ? dm->fft_x : 0,
                      .batch = count, .inverse = inverse};
    return ocl_spectral_enqueue(c->fft, &desc, (cl_mem)grid, (cl_mem)grid, err);
}

#define M sizeof(cl_mem)

static orr_status pad(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                      int n, int in, orr_error *err)
{
    const ocl_dif_dims o = dims_of(dm);
    const cl_int na = n, vi = in;
    const size_t sizes[] = {sizeof o, M, M, M, sizeof na, sizeof vi};
    const void *values[] = {&o, &b->vec, &b->grid, &b->active, &na, &vi};
    return run(d, kern, &((ocl_dif *)kern)->pad, (long)n * dm->nz * dm->grid, 6, sizes, values,
               "launching the padding kernel", err);
}

static orr_status multiply(orr_device *d, void *kern, const dif_dims *dm,
                           const dif_device_bufs *b, int n, orr_error *err)
{
    const ocl_dif_dims o = dims_of(dm);
    const cl_int na = n;
    const size_t sizes[] = {sizeof o, M, M, M, M, sizeof na};
    const void *values[] = {&o, &b->grid, &b->spectra, &b->spectrum_of, &b->active, &na};
    return run(d, kern, &((ocl_dif *)kern)->multiply, (long)n * dm->nz * dm->grid, 6, sizes, values,
               "launching the contrast product", err);
}

static orr_status zop(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                      int n, int in, int out, orr_error *err)
{
    const ocl_dif_dims o = dims_of(dm);
    const cl_int na = n, vi = in, vo = out;
    const size_t sizes[] = {sizeof o, M, M, M, M, M, M, sizeof na, sizeof vi, sizeof vo};
    const void *values[] = {&o, &b->vec, &b->grid, &b->mt, &b->lay, &b->layer_first, &b->active,
                            &na, &vi, &vo};
    return run(d, kern, &((ocl_dif *)kern)->zop, (long)n * dm->n_modes, 10, sizes, values,
               "launching the z operator", err);
}

static orr_status crop(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                       int n, int out, orr_error *err)
{
    const ocl_dif_dims o = dims_of(dm);
    const cl_int na = n, vo = out;
    const size_t sizes[] = {sizeof o, M, M, M, sizeof na, sizeof vo};
    const void *values[] = {&o, &b->vec, &b->grid, &b->active, &na, &vo};
    return run(d, kern, &((ocl_dif *)kern)->crop, (long)n * dm->unknowns, 6, sizes, values,
               "launching the crop kernel", err);
}

/* kernels.cl's vidx_t */
typedef struct {
    cl_int v[8];
} ocl_vidx;

static ocl_vidx vidx_of(dif_vidx v)
{
    ocl_vidx o;
    for (int i = 0; i < 8; i++)
        o.v[i] = v.v[i];
    return o;
}

static orr_status dots(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                       int n, int n_pairs, dif_vidx vidx, orr_error *err)
{
    ocl_dif *c = kern;
    const ocl_dif_dims o = dims_of(dm);
    const ocl_vidx vi = vidx_of(vidx);
    const cl_int np = n_pairs;
    const size_t sizes[] = {sizeof o, M, M, sizeof vi, sizeof np, M};
    const void *values[] = {&o, &b->vec, &b->active, &vi, &np, &b->dots};
    orr_status s = build(d, c, err);
    if (s == ORR_OK)
        s = ocl_set_args(c->dots, 6, sizes, values, err);
    return s == ORR_OK ? ocl_launch(d, c->dots, (size_t)n * n_pairs * DOT_ITEMS, DOT_ITEMS,
                                    "launching the dot products", err)
                       : s;
}

static orr_status lincomb(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                          int n, int out, int n_terms, dif_vidx vidx, orr_error *err)
{
    const ocl_dif_dims o = dims_of(dm);
    const ocl_vidx vi = vidx_of(vidx);
    const cl_int na = n, vo = out, nt = n_terms;
    const size_t sizes[] = {sizeof o, M, M, sizeof vi, M, sizeof na, sizeof vo, sizeof nt};
    const void *values[] = {&o, &b->vec, &b->active, &vi, &b->coef, &na, &vo, &nt};
    return run(d, kern, &((ocl_dif *)kern)->lincomb, (long)n * dm->unknowns, 8, sizes, values,
               "launching the vector update", err);
}

static void release(orr_device *d, void *kern)
{
    ocl_dif *c = kern;
    cl_kernel ks[] = {c->pad, c->multiply, c->zop, c->crop, c->dots, c->lincomb};
    for (size_t i = 0; i < ORR_ARRAY_LEN(ks); i++)
        if (ks[i])
            clReleaseKernel(ks[i]);
    if (c->program)
        clReleaseProgram(c->program);
    if (c->fft)
        ocl_spectral_free(c->fft);
    free(c);
}

static const dif_device_kernels opencl_dif_kernels = {fft, pad, multiply, zop, crop, dots, lincomb,
                                                      release};

orr_status dif_opencl_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err)
{
    orr_device *d = be->ctx;
    ocl_dif *c = calloc(1, sizeof *c);
    if (!c || !(c->fft = ocl_spectral_new(d))) {
        free(c);
        return orr_fail(err, ORR_ERR_NOMEM, "out of memory");
    }
    return dif_device_attach(d, &opencl_dif_kernels, c, slot, err);
}
