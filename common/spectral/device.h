/* The spectral kernels on a GPU, the policy written once for every API:
 * a description in any layout the CPU plan takes is packed, uploaded into
 * buffers that grow and are reused, the output poisoned, the API's
 * kernels queued, the result read back and unpacked, the whole run one
 * critical section; twiddle tables are made once per size and precision.
 * Each API provides only its launches (app_cuda/spectral/host.c,
 * app_opencl/spectral/host.c). */
#ifndef ORRERY_SPECTRAL_DEVICE_H
#define ORRERY_SPECTRAL_DEVICE_H

#include "device/device.h"
#include "ops.h"

/* Twiddle tables on a device, made once per (precision, n, den): e^{-2 pi
 * j k / den} for k < n as the precision's complex type (the core's
 * long-double table, rounded once). */
#define SPEC_DEVICE_MAX_TABLES 64
typedef struct {
    int precision, n;
    long den;
    orr_dmem mem;
} spec_device_table;
typedef struct {
    spec_device_table t[SPEC_DEVICE_MAX_TABLES];
    int count;
} spec_device_tables;
/* A run takes at most this many tables; the cache starts over between runs
 * when fewer slots are left. */
#define SPEC_DEVICE_TABLES_PER_RUN 4
orr_status spec_device_table_get(orr_device *dev, spec_device_tables *tables, spec_precision p,
                                 int n, long den, orr_dmem *out, orr_error *err);
void spec_device_tables_free(orr_device *dev, spec_device_tables *tables);

/* The device buffers of one run: in holds the packed input (CONV2D: the
 * slices; TRIDIAG: the right-hand sides), out is poisoned and receives the
 * packed output. */
typedef struct {
    orr_dmem in, out;
    size_t in_bytes, out_bytes;
    spec_device_tables *tables;   /* the twiddles, kept between runs */
} spec_device_io;

/* An API's kernels. kern is the API's own state (programs, extra buffers).
 * The DCT kernels compute the plain sums (unit quarter turns, e^{-j pi k /
 * (2n)}); the policy applies the norm (spec_dct_factors) on the host. */
typedef struct {
    /* ORR_OK when the device's kernels take d, else ORR_ERR_UNSUPPORTED
     * naming why. */
    orr_status (*check)(orr_device *dev, void *kern, const spec_desc *d, orr_error *err);
    /* Queues the kernels for d from io->in to io->out; b gives the host
     * side of the extra inputs (CONV2D's shapes, TRIDIAG's diagonals),
     * which the API uploads into its own buffers. */
    orr_status (*enqueue)(orr_device *dev, void *kern, const spec_desc *d, const spec_buffers *b,
                          const spec_device_io *io, orr_error *err);
    void (*release)(orr_device *dev, void *kern);
    /* TRIDIAG, after the output's download: queues the download of the
     * kernels' per-system status (batch ints, spec_tridiag_check's) into
     * status, which the policy reads after the API's finish. NULL: the
     * kernels report none. */
    orr_status (*tridiag_status)(orr_device *dev, void *kern, const spec_desc *d, int *status,
                                 orr_error *err);
} spec_device_kernels;

/* Fills slot with the spectral ops on device dev through kernels k (whose
 * state kern the slot then owns). */
orr_status spec_device_attach(orr_device *dev, const spec_device_kernels *k, void *kern,
                              orr_kind_slot *slot, orr_error *err);

#endif
