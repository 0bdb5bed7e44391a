/* FDTD on a GPU, the policy written once for every API (device.c): the
 * state arrays (fields, psi) live on the device from open to close, zeroed
 * when made; the tables go up once in the fields' precision; a step is a
 * few launches (E phase, the source cell, H phase with the energy rows on
 * energy steps, the probes), many steps a launch of the pacer, with the
 * probes and energy rows read back once per launch and the rows summed on
 * the host in update.h's order. Each API provides the launches
 * (app_cuda/fdtd/host.c, app_opencl/fdtd/host.c). This header is also
 * read by nvcc (the kernels' C++): plain types only. */
#ifndef ORRERY_FDTD_DEVICE_H
#define ORRERY_FDTD_DEVICE_H

#include <stdint.h>

#include "device/device.h"
#include "ops.h"
#include "update.h"

/* What every kernel needs to know, by value. The kernels round d, dh, dhd
 * to the fields' precision themselves (as view.h's tables are: one
 * rounding of the same double). Laid out alike by C, nvcc and OpenCL C:
 * doubles, then 64-bit integers, then an even number of ints (the OpenCL
 * kernels' copy is app_opencl/fdtd/kernels.cl's). */
typedef struct {
    double d[3];              /* cell sizes */
    double dh, dhd[3];        /* dt / mu0; fast: dh / d[a] */
    double mu0;               /* FDTD_MU0, for the energy */
    int64_t sx, sy, sz;       /* padded sizes */
    int64_t cells;            /* sx sy sz */
    int n[3];                 /* interior cells */
    int t;                    /* CPML thickness; 0: none */
    int n_coef;               /* E coefficients (ca, cb ...) */
    int single, fast;         /* precision, arithmetic */
    int has_map;              /* coefficient maps (else every cell vacuum: index 0) */
    int lo[FDTD_N_FIELDS][3], hi[FDTD_N_FIELDS][3];   /* live ranges (fdtd_setup's) */
    int cbd[3];               /* tables: offset of cb / d[a] (fast) */
    int prof[2][3];           /* tables: CPML profile [h][axis]: b, then c, then c / d, n + 2 each */
    int box[2][2][3];         /* phase (0: E, 1: H): the launch box [lo, hi] of its live cells */
    int n_probes;
} fdtd_dims;

/* The device buffers (CUDA pointers or cl_mem). The tables in the fields'
 * precision: ca [n_coef], cb [n_coef], cb / d[a] [3][n_coef], then the
 * profiles at prof[h][a]; eps in double. NULL: absent (no CPML, vacuum). */
typedef struct {
    orr_dmem f[FDTD_N_FIELDS];
    orr_dmem psi[FDTD_N_PSI];
    orr_dmem map[3];          /* uint16 [cells] per E component */
    orr_dmem tab, eps;
    orr_dmem probe_at;        /* int64 [n_probes][2]: field, flat index */
    orr_dmem probe_out;       /* double [steps a launch][n_probes] */
    orr_dmem rows;            /* double [energy steps a launch][sy sz]; norms: the sums */
    orr_dmem rows_max;        /* double [sy sz]: norms' largest magnitudes */
} fdtd_device_bufs;

/* An API's launches; kern is its own state (programs). All are queued in
 * order; the policy downloads and waits. */
typedef struct {
    /* Whether the device can step this configuration (precision,
     * arithmetic, CPML) bit-faithfully, making what it needs (OpenCL: the
     * program); a refusal names what is missing. */
    orr_status (*prepare)(orr_device *d, void *kern, const fdtd_dims *dm, orr_error *err);
    /* Bytes the device can give now (all of them) and in one buffer. */
    orr_status (*memory)(orr_device *d, void *kern, double *avail, double *one_buffer,
                         orr_error *err);
    /* E phase of a step: every live E cell's sweep, then its CPML terms. */
    orr_status (*e_phase)(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                          orr_error *err);
    /* H phase likewise; rows_at >= 0: a warp a row (j, k), each row's
     * energy (update.h's lanes and butterfly) into rows[rows_at + j + sy k]. */
    orr_status (*h_phase)(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                          int64_t rows_at, orr_error *err);
    /* With do_src: field src_field at src_at = value (in the fields'
     * precision); else probe p's value (as double) into probe_out[out_at + p]. */
    orr_status (*points)(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                         int do_src, int src_field, int64_t src_at, double value, int64_t out_at,
                         orr_error *err);
    /* Field f: each row's sum of squares (update.h's order) into rows, its
     * largest magnitude into rows_max. */
    orr_status (*norm)(orr_device *d, void *kern, const fdtd_dims *dm, const fdtd_device_bufs *b,
                       int f, orr_error *err);
    void (*release)(orr_device *d, void *kern);
} fdtd_device_kernels;

/* Fills slot with the FDTD ops on device d through kernels k (whose state
 * kern the slot then owns). */
orr_status fdtd_device_attach(orr_device *d, const fdtd_device_kernels *k, void *kern,
                              orr_kind_slot *slot, orr_error *err);

#endif
