/* Spectral kernels (docs/spectral.md): batched complex FFT, real FFT,
 * DCT-II/III, DHT, 2D FFT, the EDM convolution and batched tridiagonal
 * solves, behind a plan/execute API: plan once for a size, batch,
 * precision and layout, execute many times, destroy.
 *
 * Conventions (docs/spectral.md section 1): transforms are unnormalised, except that
 * every inverse (C2C inverse, C2R, 2D inverse) carries 1/N as numpy's and
 * FFTW-with-scaling users expect; C2R ignores the imaginary parts of bins
 * 0 and N/2 as numpy's irfft does; the DCTs are scaled as scipy's
 * scipy.fft.dct with the desc's norm. Complex data are interleaved (re,
 * im) pairs of the precision.
 *
 * Layout: transform t of a batch reads in + t * in_dist and writes
 * out + t * out_dist (in elements of the input/output type); elements of
 * one transform are stride apart (1: contiguous). in == out runs in place
 * where the sizes allow (C2C, DHT, DCT, 2D). */
#ifndef ORRERY_SPECTRAL_H
#define ORRERY_SPECTRAL_H

#include <stddef.h>
#include <stdio.h>

#include "../cpu_isa.h"
#include "../orrery.h"

typedef enum {
    SPEC_C2C,      /* complex DFT, N points */
    SPEC_R2C,      /* real N -> complex N/2 + 1 */
    SPEC_C2R,      /* complex N/2 + 1 -> real N (the inverse of R2C, with 1/N) */
    SPEC_DCT2,     /* real N -> real N, scipy's dct type 2 (norm: spec_norm) */
    SPEC_DCT3,     /* real N -> real N, scipy's dct type 3 (norm: spec_norm) */
    SPEC_DHT,      /* real N -> real N, h_k = sum x_i cas(2 pi i k / N) */
    SPEC_FFT2,     /* complex N1 x N2 (row-major) 2D DFT */
    SPEC_CONV2D,   /* EDM convolution of M x M complex slices (see spec_conv2d) */
    SPEC_TRIDIAG,  /* batched tridiagonal solve (see spec_tridiag) */
    SPEC_KIND_COUNT
} spec_kind;

typedef enum { SPEC_F64 = 0, SPEC_F32 = 1 } spec_precision;

/* The DCTs' scaling, as scipy.fft.dct's norm (docs/spectral.md section 1).
 * With S2_k = sum x_i cos(pi/N (i + 1/2) k) and S3_k = sum_{i>=1} x_i
 * cos(pi/N (k + 1/2) i):
 *   backward (scipy's default): DCT2 y_k = 2 S2_k; DCT3 y_k = x_0 + 2 S3_k
 *   forward: both divided by 2N
 *   ortho: DCT2 y_k = sqrt(1/N) S2_0 (k = 0), sqrt(2/N) S2_k; DCT3 y_k =
 *          x_0 / sqrt(N) + sqrt(2/N) S3_k: orthonormal, each the other's
 *          inverse
 * backward's DCT3 of the DCT2 is 2N x, forward's x / (2N). */
typedef enum { SPEC_NORM_BACKWARD = 0, SPEC_NORM_ORTHO = 1, SPEC_NORM_FORWARD = 2 } spec_norm;

typedef struct {
    spec_kind kind;
    spec_precision precision;
    int n;            /* points (1D); rows N1 for 2D; mfft for CONV2D; rows for TRIDIAG */
    int n2;           /* columns N2 for 2D; M (odd) for CONV2D; else 0 */
    int batch;        /* transforms (or slices, systems) */
    int inverse;      /* C2C and 2D: the inverse transform (with 1/N) */
    int stride;       /* between elements of one transform; 0 means 1 */
    ptrdiff_t in_dist, out_dist;   /* between transforms; 0: packed */
    int threads;      /* CPU threads over the batch; 0 or 1: one. Results do not depend on it */
    spec_norm norm;   /* DCT2, DCT3: the scaling (0: backward, scipy's default); else ignored */
} spec_desc;

typedef struct spec_plan spec_plan;

/* Name of a kind ("c2c", "r2c", ...) and back (-1 if unknown); every
 * name, comma-separated ("c2c, r2c, ..."), for messages. */
const char *spec_kind_name(spec_kind k);
int spec_kind_from_name(const char *name);
const char *spec_kind_names(void);
/* Name of a norm ("backward", "ortho", "forward") and back (-1 if unknown). */
const char *spec_norm_name(spec_norm norm);
int spec_norm_from_name(const char *name);

/* How the norms scale the DCT kernels' plain sums, S2 and x_0/2 + S3 of
 * spec_norm's comment (one definition for every target): every output
 * times common, and for ortho y_0 (DCT2) or x_0 (DCT3) times first on top.
 * The CPU kernels take both in their quarter-turn table (spec_dct_table);
 * the device kernels, whose tables must stay unit roots, get them from the
 * GPU policy on the host (device.c). */
void spec_dct_factors(spec_kind kind, spec_norm norm, int n, long double *common,
                      long double *first);
/* The CPU kernels' quarter turns: e^{-j pi k / (2n)}, k < n, times common,
 * entry 0 times first too (the lane kernels read it for y_0 and x_0 only),
 * in long double rounded once, as (cos, sin) pairs. malloc'd; NULL when out
 * of memory. */
double *spec_dct_table(spec_kind kind, spec_norm norm, int n);

/* A plan for desc on the CPU. Sizes: powers of two, 1D 2..2^20 (C2C) and
 * 4..2^20 (real kinds), 2D up to 4096 x 4096 (docs/spectral.md section 4);
 * anything else is ORR_ERR_UNSUPPORTED with the reason. */
orr_status spec_plan_create(const spec_desc *desc, spec_plan **plan, orr_error *err);
/* The same on the CPU path isa (the backend's choice, cpu_isa.h; one this
 * CPU cannot run is ORR_ERR_UNSUPPORTED). spec_plan_create takes
 * ORR_CPU_BEST: the best this CPU runs, or spec_lanes_force's. The paths'
 * results may differ in the last bits. */
orr_status spec_plan_create_on(const spec_desc *desc, orr_cpu_isa isa, spec_plan **plan,
                               orr_error *err);
void spec_plan_destroy(spec_plan *plan);
const spec_desc *spec_plan_desc(const spec_plan *plan);
/* The lane kernels the plan runs ("avx2", ...: its path, or a narrower one
 * for long transforms), for the logs. */
const char *spec_plan_isa_name(const spec_plan *plan);

/* Elements (of the precision's real type) one transform reads and writes:
 * complex counts twice. */
size_t spec_in_reals(const spec_desc *d);
size_t spec_out_reals(const spec_desc *d);

/* Runs the plan on a batch. For C2C, R2C, C2R, DCT2/3, DHT and FFT2. */
orr_status spec_execute(const spec_plan *plan, const void *in, void *out, orr_error *err);

/* The host buffers one run of a plan reads and writes. */
typedef struct {
    const void *in;            /* C2C ... FFT2: the input; CONV2D: the slices */
    void *out;                 /* the output; TRIDIAG: the right-hand sides, replaced by x */
    const void *shapes;        /* CONV2D: n_shapes mfft x mfft real arrays */
    int n_shapes;              /* CONV2D: 1, or a divisor of batch */
    const void *dl, *d, *du;   /* TRIDIAG: the three diagonals */
} spec_buffers;

/* Runs the plan on b: spec_execute, spec_conv2d or spec_tridiag by kind. */
orr_status spec_run(const spec_plan *plan, const spec_buffers *b, orr_error *err);

/* For device kernels that take packed batches (transform t at t times the
 * transform's size, elements contiguous): whether desc is laid out so
 * already, and the copies between desc's layout and the packed one. */
int spec_is_packed(const spec_desc *d);
void spec_pack_input(const spec_desc *d, const void *in, void *packed);
void spec_unpack_output(const spec_desc *d, const void *packed, void *out);

/* EDM convolution (docs/spectral.md section 1): for each of batch slices X (M x M
 * complex, row-major; the Fourier modes -(M-1)/2..(M-1)/2 in y, then x),
 * Y = Crop_M(IFFT2(S .* FFT2(Pad_mfft(X)))) / mfft^2, where S is an
 * mfft x mfft real array, one for all slices (n_shapes = 1) or one per
 * group of batch / n_shapes consecutive slices. The plan's n is mfft (a
 * power of two >= 2M - 1), n2 is M. */
orr_status spec_conv2d(const spec_plan *plan, const void *slices, const void *shapes,
                       int n_shapes, void *out, orr_error *err);

/* Batched tridiagonal solve: for each system s of batch, with rows i < n,
 * dl[i] x[i-1] + d[i] x[i] + du[i] x[i+1] = rhs[i] (dl[0], du[n-1]
 * ignored); the four arrays hold system s at s * n. rhs is replaced by x
 * (as cuSPARSE's gtsv2StridedBatch). Diagonally dominant systems: no
 * pivoting. A zero or non-finite pivot is ORR_ERR_INPUT naming the first
 * system (and row) where it happened (spec_tridiag_check); x is then not
 * to be used. */
orr_status spec_tridiag(const spec_plan *plan, const void *dl, const void *d, const void *du,
                        void *rhs, orr_error *err);

/* The solvers' per-system status, one int a system: 0 solved; r + 1: a
 * zero or non-finite pivot at row r; -1: one at a row the solver does not
 * say (the CUDA partition method). ORR_OK when all are 0, else
 * ORR_ERR_INPUT naming the first system that broke down and how many did:
 * every backend's message. */
orr_status spec_tridiag_check(const int *status, int batch, orr_error *err);

/* e^{sign 2 pi j k / den} for k < count as (cos, sin) pairs, computed in
 * long double and rounded once: every kernel's twiddles, CPU or device.
 * malloc'd; NULL when out of memory. */
double *spec_root_table(long count, long den, int sign);

/* ---- the apps' subcommands (tool.c) ---- */

struct orr_backend;

#define SPEC_MAX_FILES 8

/* `spectral --op OP [--inverse] [--norm NORM] [--nthreads N] FILES...`,
 * as the command line parsed it (kind.c). */
typedef struct {
    const char *op;          /* spec_kind_name's names; checked by spec_command */
    int inverse;
    const char *norm;        /* spec_norm_name's names, or NULL (backward); DCTs only */
    int threads;             /* the CPU kernels' threads; 0: every core */
    int n_files;
    const char *files[SPEC_MAX_FILES];
} spec_command_options;

/* .npy in, .npy out, on be's device kernels where it has them (its
 * spectral ops), else on the CPU (be NULL: the CPU). */
orr_status spec_command(const spec_command_options *o, struct orr_backend *be, orr_error *err);
/* Every kernel on fresh random inputs against the reference; one line per
 * kernel and precision on report; with a backend that has device kernels
 * (its spectral ops), those too. no_device (NULL: none) says why a device
 * that was wanted could not be opened: then the device's kernels are not
 * checked, which counts as a failure. Returns the number of failures. */
int spec_selftest(FILE *report, struct orr_backend *be, const orr_error *no_device,
                  orr_error *err);
/* Checks that the `spectral` command line's op, norm, --inverse and
 * number of files go together (ORR_ERR_USAGE naming what does not), before
 * any file is read (kind.c's parsed hook). */
orr_status spec_command_check(const spec_command_options *o, orr_error *err);

/* ---- the FP64 reference (direct sums in long double), for tests and the
 * self-test: one transform of n points, same conventions. ---- */
void spec_ref_dft(int n, int inverse, const double *in, double *out);        /* complex */
void spec_ref_r2c(int n, const double *in, double *out);
void spec_ref_c2r(int n, const double *in, double *out);
void spec_ref_dct2(int n, spec_norm norm, const double *in, double *out);
void spec_ref_dct3(int n, spec_norm norm, const double *in, double *out);
void spec_ref_dht(int n, const double *in, double *out);
void spec_ref_fft2(int n1, int n2, int inverse, const double *in, double *out);
/* The convolution as the 2-level block-Toeplitz sum over the Fourier
 * coefficients of S (one slice). */
void spec_ref_conv2d(int mfft, int m, const double *shape, const double *slice, double *out);
/* Thomas algorithm in long double (one system). */
void spec_ref_tridiag(int n, const double *dl, const double *d, const double *du,
                      const double *rhs, double *x);

#endif
