/* Separation on a GPU, the policy written once for every API: the grid's
 * tables uploaded once per setup, launches paced (device.h), the partial
 * sums read back per launch, the stars' nodes made on the host and their
 * sums on the device. Each API provides only its kernels' launches
 * (app_cuda/separation/host.c, app_opencl/separation/host.c). */
#ifndef ORRERY_SEPARATION_DEVICE_H
#define ORRERY_SEPARATION_DEVICE_H

#include "device/device.h"
#include "ops.h"

/* One area's tables on the device. */
typedef struct {
    int r_steps, mu_steps, nu_steps, convolve;
    orr_dmem r_point, qw_r3_N;    /* [r * convolve + c] */
    orr_dmem irv, reff_xr_rp3;    /* [r] */
    orr_dmem id, nu;              /* [nu] */
    orr_dmem dirs;                /* [nu * mu_steps + mu], made on the device */
} sep_device_area;

/* The star buffers of one call (at most SEP_DEVICE_STARS stars). */
#define SEP_DEVICE_STARS 4096
typedef struct {
    orr_dmem dirs, r_point, qw_r3_N;   /* in */
    orr_dmem bg, st;                   /* out: node sums without K */
} sep_device_stars;

/* An API's kernels. kern is the API's own state for them (programs). Every
 * launch is queued; the policy waits. */
typedef struct {
    /* The kernels for mc's stream count, ready, with mc's constants. */
    orr_status (*set_model)(orr_device *d, void *kern, const sep_model_consts *mc,
                            orr_error *err);
    /* Chunks the device runs at once with that stream count's kernel. */
    int (*slots)(orr_device *d, void *kern, int n_streams);
    /* Every column's direction of area a into a->dirs (formula of
     * sep_column_direction), t being its host tables. */
    orr_status (*directions)(orr_device *d, void *kern, const sep_model_consts *mc,
                             const sep_area_tables *t, sep_device_area *a, orr_error *err);
    /* Chunks first..first+count-1 of the area into out[0..count). */
    orr_status (*integral)(orr_device *d, void *kern, const sep_device_area *a, int n_streams,
                           int first, int count, orr_dmem out, orr_error *err);
    /* Node sums of n stars with convolve nodes each. */
    orr_status (*star_sums)(orr_device *d, void *kern, int n, int convolve, int n_streams,
                            const sep_device_stars *b, orr_error *err);
    void (*release)(orr_device *d, void *kern);
} sep_device_kernels;

/* Fills slot with the separation ops on device d through kernels k
 * (whose state kern the slot then owns). */
orr_status sep_device_attach(orr_device *d, const sep_device_kernels *k, void *kern,
                             orr_kind_slot *slot, orr_error *err);

#endif
