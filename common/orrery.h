/* The few things every Orrery module shares: status codes and errors,
 * messages to the log (stderr, or BOINC's stderr.txt), and compensated
 * summation, whose exact semantics the science kinds depend on. */
#ifndef ORRERY_H
#define ORRERY_H

#include "status.h"

#define ORR_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Marks the small inline functions the CUDA kernels share with the C code. */
#ifdef __CUDACC__
#define ORR_HD __host__ __device__
#else
#define ORR_HD
#endif

/* "#pragma unroll N" for the CUDA compiler, nothing for C compilers (they
 * would warn about an unknown pragma). */
#define ORR_PRAGMA(x) _Pragma(#x)
#ifdef __CUDACC__
#define ORR_UNROLL(n) ORR_PRAGMA(unroll n)
#else
#define ORR_UNROLL(n)
#endif

/* Diagnostics for a person reading the log. Result tags are not written
 * with these: reports write their own exact format. */
void orr_log(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* A one-line status (progress) redrawn in place at the bottom of a terminal;
 * NULL erases it. Only for a person watching: callers decide whether stderr
 * is a terminal. orr_log erases it before writing. */
void orr_log_status_line(const char *text);

/* Kahan compensated sum. The update and the merge follow the separation
 * spec (section 5) exactly: results, checkpoints and every backend depend on
 * this one definition. */
typedef struct {
    double sum;
    double corr;
} orr_kahan;

static inline ORR_HD void orr_kahan_add(orr_kahan *k, double item)
{
    double y = item - k->corr;
    double t = k->sum + y;
    k->corr = (t - k->sum) - y;
    k->sum = t;
}

/* Merge partial sum a into b (b is the later part of the sequence). */
static inline ORR_HD orr_kahan orr_kahan_merge(orr_kahan a, orr_kahan b)
{
    orr_kahan r;
    double c = a.sum + (a.corr + b.corr);
    double s = b.sum + c;
    r.corr = c - (s - b.sum);
    r.sum = s;
    return r;
}

#endif
