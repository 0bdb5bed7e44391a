/* Diffraction on a GPU, the policy written once for every API: the
 * batch's vectors, padded grids and tables live on the device; every op
 * of ops.h is one launch (or a few) over all active points of the batch,
 * the active list uploaded with it; only the dots and the vectors the
 * kind asks for come back. Each API provides its launches
 * (app_cuda/diffraction/host.c, app_opencl/diffraction/host.c). */
#ifndef ORRERY_DIFFRACTION_DEVICE_H
#define ORRERY_DIFFRACTION_DEVICE_H

#include "device/device.h"
#include "device_types.h"
#include "ops.h"

/* An API's launches; kern is its own state (programs, FFT tables). All
 * are queued; the policy waits. */
typedef struct {
    /* count padded grids in place, forward or inverse (inverse with
     * 1/grid, as the spectral kernels' convention). */
    orr_status (*fft)(orr_device *d, void *kern, const dif_dims *dm, orr_dmem grid, int count,
                      int inverse, orr_error *err);
    /* grid[a] = vector `in` of point active[a], padded (zero elsewhere). */
    orr_status (*pad)(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                      int n_active, int in, orr_error *err);
    /* grid[a] *= spectra[spectrum_of[active[a]]] */
    orr_status (*multiply)(orr_device *d, void *kern, const dif_dims *dm,
                           const dif_device_bufs *b, int n_active, orr_error *err);
    /* vector out = vector in - c (G w) with w read from grid[a] (zop.h). */
    orr_status (*zop)(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                      int n_active, int in, int out, orr_error *err);
    /* vector out = grid[a] cropped (the convolution alone). */
    orr_status (*crop)(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                       int n_active, int out, orr_error *err);
    /* dots[a][k] = <v[vidx.v[2k]], v[vidx.v[2k+1]]>, each summed in a fixed order. */
    orr_status (*dots)(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                       int n_active, int n_pairs, dif_vidx vidx, orr_error *err);
    /* vector out = sum_k coef[a][k] v[vidx.v[k]] */
    orr_status (*lincomb)(orr_device *d, void *kern, const dif_dims *dm, const dif_device_bufs *b,
                          int n_active, int out, int n_terms, dif_vidx vidx, orr_error *err);
    void (*release)(orr_device *d, void *kern);
} dif_device_kernels;

/* Fills slot with the diffraction ops on device d through kernels k
 * (whose state kern the slot then owns). */
orr_status dif_device_attach(orr_device *d, const dif_device_kernels *k, void *kern,
                             orr_kind_slot *slot, orr_error *err);

#endif
