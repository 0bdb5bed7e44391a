/* The CPU backend: the kernel path (instruction set, cpu_isa.h) this CPU
 * runs best, or the one asked for, and a pool of threads. Each kind's CPU host code
 * (app_cpu/<kind>/) picks its kernels for the path and spreads its work
 * over the pool; results are bit-identical for any thread count. */
#ifndef ORRERY_CPU_BACKEND_H
#define ORRERY_CPU_BACKEND_H

#include "backend.h"
#include "threads.h"

/* The backend's ctx, as the kinds' CPU host code sees it (the kernel
 * path is the backend's cpu_isa: ORR_CPU_SCALAR, the kinds' reference
 * code). */
typedef struct {
    orr_pool *pool;
} orr_cpu_ctx;

orr_status orr_open_cpu_backend(const orr_backend_request *req, orr_backend *be, orr_error *err);

/* The paths this build has, best first ("avx512", "avx2", "sse2", "scalar"),
 * and whether this CPU can run path i. */
int orr_cpu_path_count(void);
const char *orr_cpu_path_name(int i);
int orr_cpu_path_supported(int i);

/* BOINC's ncpus (init_data.xml: a double anyone can set; 3000 has been
 * seen) as a thread count: rounded, at least 1, at most the online CPUs
 * (when online >= 1) and ORR_MAX_THREADS. 0: nothing usable (zero,
 * negative, NaN, infinite): the caller's default applies. */
int orr_cpu_threads_from_ncpus(double ncpus, long online);

/* The kinds' CPU host code (app_cpu/<kind>/host.c). */
orr_status sep_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status dif_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status fdtd_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);
orr_status mom_cpu_attach(orr_backend *be, orr_kind_slot *slot, orr_error *err);

#endif
