/* Host-side policy shared by the GPU backends (CUDA, OpenCL): how long a
 * launch may take, how many chunks that is, and what the GPU phase cost
 * the host. The backends own their devices; this owns the decisions that
 * must not differ between them. */
#ifndef ORRERY_GPU_H
#define ORRERY_GPU_H

#include "backend.h"

#define ORR_GPU_DEFAULT_FREQUENCY 60.0   /* launches per second: a smooth desktop */

/* Launch sizing. Responsive: each launch takes about 1/frequency seconds,
 * so the display driver gets the GPU back that often; the size adapts to
 * measured launch times, in whole waves (slots = blocks or work-groups the
 * device runs at once), never fewer than one wave. Non-responsive: every
 * call's chunks go in one launch (up to max_chunks). */
typedef struct {
    double target_s;          /* seconds per launch */
    int non_responsive;
    int slots;                /* chunks the device runs at once */
    int max_chunks;           /* most chunks one launch may hold */
    int chunks;               /* current launch size */
    /* accounting of the integral phase */
    double wall_s, cpu_s;     /* time inside launches; the process's CPU time then */
    long launches;
    double s_per_chunk;       /* last measured rate */
} orr_gpu_pacer;

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

/* Around each launch (with its read-back): times it, adapts the size. */
typedef struct {
    double wall0, cpu0;
} orr_gpu_span;
void orr_gpu_pacer_begin(orr_gpu_pacer *p, orr_gpu_span *span);
void orr_gpu_pacer_end(orr_gpu_pacer *p, const orr_gpu_span *span, int chunks);

/* Seconds the next launch of `chunks` should take, from the last measured
 * rate (0 before any): the OpenCL backend sleeps most of it instead of
 * letting a spinning driver wait. */
double orr_gpu_pacer_expected_s(const orr_gpu_pacer *p, int chunks);

/* A backend's call for `count` chunks, cut into paced launches: launch(ctx,
 * offset, n, err) runs chunks offset..offset+n-1 of the call (launch and
 * read-back in a critical section). Between launches a quit request ends
 * the call with ORR_QUIT: the kind has saved everything before it. */
typedef orr_status (*orr_gpu_launch_fn)(void *ctx, int offset, int n, orr_error *err);
orr_status orr_gpu_run_chunks(orr_gpu_pacer *p, int count, orr_gpu_launch_fn launch, void *ctx,
                              orr_error *err);

/* One log line: launches, GPU seconds, host CPU seconds and their ratio. */
void orr_gpu_pacer_report(const orr_gpu_pacer *p, const char *backend);

/* Stars on a GPU: their nodes are made on the host by the shared r-point
 * code (sep_star_r_points), the sums on the device, and K applied on the
 * host again. Stars begin..begin+n-1: dirs[i], r_point/qw_r3_N[i * convolve
 * + c] and k[i] for the device... */
void orr_gpu_star_nodes(const sep_model_consts *mc, const sep_setup *s, const sep_stars *stars,
                        int begin, int n, sep_direction *dirs, double *r_point, double *qw_r3_N,
                        double *k);
/* ...and from the device's node sums bg[i], st[i * n_streams + j], the
 * probabilities bg_prob[begin + i], st_prob[(begin + i) * n_streams + j]. */
void orr_gpu_star_probs(int n_streams, int begin, int n, const double *k, const double *bg,
                        const double *st, double *bg_prob, double *st_prob);

/* CPU time of the whole process (every thread), in seconds. */
double orr_process_cpu_seconds(void);

#endif
