/* The vectorised CPU spectral kernels: W transforms of a batch at once, one
 * per vector lane (element i of lane t at [i * W + t], re and im as separate
 * vectors), so every butterfly is a vector operation with its twiddle
 * broadcast; and, for 1D complex and real FFTs of the sizes il_run and
 * il_real handle, one transform at a time in interleaved complex vectors (as in memory: no
 * transposes in and out). One source (lanes.c) compiled per ISA; plan.c
 * picks one. */
#ifndef ORRERY_SPECTRAL_LANES_H
#define ORRERY_SPECTRAL_LANES_H

#include <stddef.h>

/* One group's job: the transform kind and layout (as in spec_desc, in
 * elements of the input/output type) and the plan's tables, rounded once to
 * the precision. */
typedef struct {
    int kind;      /* spec_kind: C2C, R2C, C2R, DCT2, DCT3, DHT; CONV2D: the
                      convolution's column pass (FFT, times S, inverse FFT unscaled) */
    int n, inverse;
    double scale;  /* C2C: the outputs' factor (1, or 1/n for an inverse) */
    ptrdiff_t in_stride, out_stride;
    ptrdiff_t in_dist, out_dist;
    const void *tw;                /* e^{-2 pi j k / n}, k < n, (re, im) pairs */
    const void *qt;                /* DCT: e^{-j pi k / (2n)}, k < n */
    const void *shape;             /* CONV2D: S at the group's first column */
    ptrdiff_t shape_stride;        /* CONV2D: between rows of S */
    int one_at_a_time;             /* C2C, R2C, C2R: where a size has one (il_handles,
                                      il_real_handles), the kernel that takes transforms
                                      one at a time (1D plans; the same for every stride,
                                      so packing changes no bit) */
} spec_lanes_job;

typedef void (*spec_lanes_f64_fn)(const spec_lanes_job *job, const double *in, double *out,
                                  int count, double *work);
typedef void (*spec_lanes_f32_fn)(const spec_lanes_job *job, const float *in, float *out,
                                  int count, float *work);

/* One ISA's kernels: run count (<= lanes) consecutive transforms from in to
 * out; work holds spec_lanes_work_reals(n, lanes) reals, zeroed when the
 * plan is made and then the kernels' own between runs of one plan (a
 * kernel may keep tables there, tagged with the table they came from). Each lane is
 * computed by the same operations, so a transform's result does not depend
 * on its lane or on the group around it. */
typedef struct {
    const char *name;
    int lanes_f64, lanes_f32;
    spec_lanes_f64_fn run_f64;
    spec_lanes_f32_fn run_f32;
} spec_lanes_isa;

/* the kernel's buffers: input and FFT SPEC_LANES_FFT_ROOM(n) each (room for
 * the FFT's padding and its cache blocks), scratch n + 16, spectrum n/2 + 2,
 * output n complex, and n reals, each a vector of lanes */
#define SPEC_LANES_FFT_ROOM(n) ((size_t)(n) + 16 * 17 + 16)
#define SPEC_LANES_WORK_REALS(n, lanes) ((10 * (size_t)(n) + 1280) * (size_t)(lanes))

extern const spec_lanes_isa spec_lanes_generic;
extern const spec_lanes_isa spec_lanes_sse2;
extern const spec_lanes_isa spec_lanes_avx2;
extern const spec_lanes_isa spec_lanes_avx512;

/* The ISA the CPU plans use: the best this CPU runs, unless forced (tests,
 * benchmarks). spec_lanes_force: "generic", "sse2", "avx2", "avx512", or
 * NULL for the best; returns 0 if the CPU cannot run it (nothing changed).
 * Plans take the ISA when created. */
const spec_lanes_isa *spec_lanes_current(void);
int spec_lanes_force(const char *name);

#endif
