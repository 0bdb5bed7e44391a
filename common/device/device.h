/* The GPU device layer: what every kind's GPU host code uses, so that the
 * CUDA and OpenCL host code differ only in API calls. Each API implements
 * the mechanism once (orr_device_api: app_cuda/device_cuda.c,
 * app_opencl/device_opencl.c); the policy that must not differ between
 * them is written once here (device.c, pacing.c): buffers that grow and
 * are reused, poisoned outputs, uploads and downloads inside critical
 * sections, launch pacing and timing, and the choice of device (BOINC's
 * assignment, else --device, else the best FP64 device). An API error
 * carries the API's own message and the class its API's table gives it
 * (cl_status, orr_cuda_status): ORR_ERR_DEVICE, which the driver turns
 * into BOINC's temporary exit, or ORR_ERR_DEVICE_UNFIT, an error. */
#ifndef ORRERY_DEVICE_H
#define ORRERY_DEVICE_H

#include <stddef.h>

#include "backend.h"

#define ORR_GPU_DEFAULT_FREQUENCY 60.0   /* launches per second: a smooth desktop */

/* A device buffer: a CUDA device pointer or an OpenCL cl_mem. */
typedef void *orr_dmem;

typedef struct orr_device orr_device;

/* The mechanism of one API. Copies and fills are queued in order; finish
 * waits for everything queued without busy-waiting. */
typedef struct {
    const char *api;   /* "CUDA", "OpenCL": in messages */
    orr_status (*alloc)(orr_device *d, size_t bytes, orr_dmem *out, orr_error *err);
    void (*release)(orr_device *d, orr_dmem mem);
    orr_status (*upload)(orr_device *d, orr_dmem dst, size_t offset, const void *src,
                         size_t bytes, orr_error *err);
    orr_status (*download)(orr_device *d, void *dst, orr_dmem src, size_t offset, size_t bytes,
                           orr_error *err);
    orr_status (*fill)(orr_device *d, orr_dmem dst, unsigned char byte, size_t bytes,
                       orr_error *err);
    /* Waits for the queue, sleeping through most of expected_s first. */
    orr_status (*finish)(orr_device *d, double expected_s, orr_error *err);
    /* Releases the handle (context, queue); NULL: nothing to release. */
    void (*close)(orr_device *d);
} orr_device_api;

/* Launch sizing. Responsive: each launch takes about 1/frequency seconds,
 * so the display driver gets the GPU back that often; the size adapts to
 * measured launch times, in whole waves (slots = blocks or work-groups the
 * device runs at once), never fewer than one wave. Non-responsive: every
 * call's chunks go in one launch (up to max_chunks). */
/* Host-cost accounting of the waits: each span runs from a launch's first
 * queued call to the return of the wait after it, so its wall time bounds
 * how long that queued batch kept the GPU busy (nothing of ours runs
 * outside a span), and the process's CPU time inside it is what driving
 * the GPU cost the host. */
typedef struct {
    double wall_s, cpu_s;     /* time inside spans; the process's CPU time then */
    double first_s;           /* the first span: it carries one-time costs */
    double longest_s;         /* the longest span after the first */
    long launches;
} orr_gpu_timing;

/* A span's start (orr_gpu_timing_begin), for orr_gpu_timing_end. */
typedef struct {
    double wall0, cpu0;
} orr_gpu_span;

typedef struct {
    double target_s;          /* seconds per launch */
    int non_responsive;
    int slots;                /* chunks the device runs at once */
    int max_chunks;           /* most chunks one launch may hold */
    int chunks;               /* current launch size */
    orr_gpu_timing timing;
    double s_per_chunk;       /* last measured rate */
} orr_gpu_pacer;

/* An opened device: the API's mechanism and handle, and what the policy
 * needs to know of it. */
struct orr_device {
    const orr_device_api *api;
    void *handle;             /* the API's own state (context, queue ...) */
    char name[256];           /* part of the checkpoint identity */
    int compute_units;        /* SMs or compute units */
    int is_cpu;               /* an OpenCL CPU device (PoCL) */
    double memory_bytes;      /* its global memory; 0: not known */
    double max_buffer_bytes;  /* the largest one buffer may be; 0: not known */
    orr_backend_request request;
};

/* Opens the device an API's open function chooses (BOINC's, --device, the
 * best) into d. */
typedef orr_status (*orr_device_open_fn)(const orr_backend_request *req, orr_device *d,
                                         orr_error *err);

/* A GPU backend named name over the device open opens, accelerating the
 * kinds listed; the device is its ctx. */
orr_status orr_device_backend_open(const char *name, orr_device_open_fn open,
                                   const orr_kind_attacher *kinds, int n_kinds,
                                   const orr_backend_request *req, orr_backend *be,
                                   orr_error *err);

/* ---- buffers ---- */

/* A device buffer that grows to the largest size asked and is reused. */
typedef struct {
    orr_dmem mem;
    size_t bytes;
} orr_dbuf;

orr_status orr_dbuf_reserve(orr_device *d, orr_dbuf *b, size_t bytes, orr_error *err);
void orr_dbuf_free(orr_device *d, orr_dbuf *b);
/* A new buffer holding bytes of host (NULL: only the space). */
orr_status orr_device_upload_new(orr_device *d, const void *host, size_t bytes, orr_dmem *out,
                                 orr_error *err);
/* Whether work needing `need` bytes of device memory, `largest` in one
 * buffer, can ever fit d: ORR_ERR_DEVICE_UNFIT (permanent for this host)
 * naming `what` and the bytes when it exceeds the device's memory or
 * buffer limit, else ORR_OK. Memory that other programs hold now is not
 * counted: an allocation that fails for it has the API's temporary
 * class. */
orr_status orr_device_check_fits(const orr_device *d, double need, double largest,
                                 const char *what, orr_error *err);
/* Fills bytes of mem with NaNs (every byte 0xff: a NaN in both precisions),
 * so whatever a kernel fails to write shows. */
orr_status orr_device_poison(orr_device *d, orr_dmem mem, size_t bytes, orr_error *err);

/* ---- device choice ---- */

/* One device an API found. */
typedef struct {
    int fp64;                 /* has double precision */
    double score;             /* FP64 throughput estimate; higher is better */
} orr_device_candidate;

/* Whether the BOINC client assigned a GPU (under the client, a GPU app
 * must use that one). */
int orr_device_assigned_by_client(void);

/* The device to use when the client assigned none: --device (asked >= 0,
 * it must exist: ORR_ERR_USAGE otherwise), else the best-scoring device
 * with double precision (one without is chosen only when none has it, so
 * that the refusal names it). */
orr_status orr_device_pick(const orr_device_candidate *c, int n, int asked, const char *api,
                           int *chosen, orr_error *err);

/* ---- pacing (pacing.c) ---- */

/* The request's frequency and mode; else the project preferences'
 * <gpu_target_frequency> and <gpu_non_responsive> (under BOINC); else 60/s. */
void orr_gpu_pacer_init(orr_gpu_pacer *p, const orr_backend_request *req, int slots,
                        int max_chunks);
/* The same for another slot count (another specialised kernel), keeping
 * the accounting so far. */
void orr_gpu_pacer_resize(orr_gpu_pacer *p, const orr_backend_request *req, int slots,
                          int max_chunks);
/* Chunks for the next launch when `remaining` are left in this call. */
int orr_gpu_pacer_next(const orr_gpu_pacer *p, int remaining);
/* Seconds the next launch of `chunks` should take, from the last measured
 * rate (0 before any): finish sleeps through most of it. */
double orr_gpu_pacer_expected_s(const orr_gpu_pacer *p, int chunks);

/* A call for `count` chunks, cut into paced launches: launch(ctx, offset,
 * n, err) runs chunks offset..offset+n-1 of the call, with its read-back;
 * each launch sits in a critical section, so a quit or suspend lands
 * between launches. Between launches a quit request ends the call with
 * ORR_QUIT: the kind has saved everything before it. */
typedef orr_status (*orr_gpu_launch_fn)(void *ctx, int offset, int n, orr_error *err);
orr_status orr_gpu_run_chunks(orr_gpu_pacer *p, int count, orr_gpu_launch_fn launch, void *ctx,
                              orr_error *err);

/* One log line: launches, GPU seconds, the longest launch, host CPU
 * seconds and their ratio (what tests/gpu/pacing.sh reads). */
void orr_gpu_pacer_report(const orr_gpu_pacer *p, const char *what);

/* The same accounting for a kind that waits by its own rules (MoM's
 * library calls): a span from the first queued call to the wait's
 * return; its seconds. */
void orr_gpu_timing_begin(orr_gpu_span *span);
double orr_gpu_timing_end(orr_gpu_timing *t, const orr_gpu_span *span);
/* The log line of orr_gpu_pacer_report; mode: "60/s target" or the like. */
void orr_gpu_timing_report(const orr_gpu_timing *t, const char *what, const char *mode);

/* CPU time of the whole process (every thread), in seconds. */
double orr_process_cpu_seconds(void);

#endif
