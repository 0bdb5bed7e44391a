/* The ops table a compute backend fills in. A backend starts from the
 * scalar reference (sep_reference_ops) and overrides what it accelerates,
 * so every backend has a correct fallback and a reference to be tested
 * against. Backends compute; they never parse files or decide exit codes. */
#ifndef ORRERY_BACKEND_H
#define ORRERY_BACKEND_H

#include "orrery.h"
#include "separation/separation.h"
#include "spectral/spectral.h"

typedef struct orr_backend orr_backend;

struct orr_backend {
    const char *name;         /* "CPU", "CUDA", "OpenCL": goes into the report */
    const char *variant;      /* kernel path ("avx2") or device; part of the
                                 checkpoint identity, not of the report */
    void *ctx;                /* backend state (device handles ...) */
    void (*close)(orr_backend *be);   /* release ctx; NULL when nothing to do */
    int min_batch;            /* chunks per call that keep every thread or SM
                                 busy (0: 1); the kind never sends fewer */

    /* Separation integral: the partial sums of chunks first..first+count-1
     * of one area (SEP_CHUNK_MU), each summed from zero, into out[0..count). */
    orr_status (*sep_integral_chunks)(orr_backend *be, const sep_model_consts *mc,
                                      const sep_setup *s, int area, int first, int count,
                                      sep_partial *out, orr_error *err);

    /* Per-star probabilities for stars begin..end-1: bg_prob[i] and
     * st_prob[i * n_streams + s], including the factor K* (no integrals). */
    orr_status (*sep_star_probs)(orr_backend *be, const sep_model_consts *mc, const sep_setup *s,
                                 const sep_stars *stars, int begin, int end, double *bg_prob,
                                 double *st_prob, orr_error *err);

    /* Spectral kernels on the device (NULL: the CPU kernels of
     * common/spectral serve). Runs desc (valid by spec_plan_create's
     * rules) on host buffers, same conventions and layouts as the CPU
     * plan: upload, compute, download. A size or layout the device does
     * not take is ORR_ERR_UNSUPPORTED, naming it. */
    orr_status (*spec_run)(orr_backend *be, const spec_desc *desc, const spec_buffers *b,
                           orr_error *err);
};

/* What the command line asked of the backend. An app's open function
 * weighs it against what BOINC assigned (orr_runtime_init_data). */
typedef struct {
    int device;             /* GPU apps; -1: not given */
    int platform;           /* OpenCL platform; -1: not given */
    int nthreads;           /* CPU app; 0: BOINC's ncpus, else every core */
    const char *cpu_path;   /* CPU app: scalar, sse2, avx2, avx512; NULL: best */
    double gpu_target_frequency;  /* GPU apps: launches per second; 0: default */
    int non_responsive;     /* GPU apps: whole batches per launch */
} orr_backend_request;

/* Makes an app's backend ready: picks and opens its device. A missing or
 * busy device is ORR_ERR_DEVICE, which the driver turns into BOINC's
 * temporary exit. */
typedef orr_status (*orr_backend_open)(const orr_backend_request *req, orr_backend *be,
                                       orr_error *err);

/* The plain scalar C reference; always present. */
extern const orr_backend sep_reference_backend;
orr_status orr_open_reference_backend(const orr_backend_request *req, orr_backend *be,
                                      orr_error *err);

#endif
