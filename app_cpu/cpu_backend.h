/* The CPU backend: the separation kernels of the best SIMD path this CPU
 * runs (or the one asked for), spread over a pool of threads. Chunks and
 * stars are independent tasks with their own outputs, so the results are
 * bit-identical for any thread count. */
#ifndef ORRERY_CPU_BACKEND_H
#define ORRERY_CPU_BACKEND_H

#include "backend.h"

orr_status orr_open_cpu_backend(const orr_backend_request *req, orr_backend *be, orr_error *err);

/* The paths this build has, best first ("avx512", "avx2", "sse2", "scalar"),
 * and whether this CPU can run path i. */
int orr_cpu_path_count(void);
const char *orr_cpu_path_name(int i);
int orr_cpu_path_supported(int i);

#endif
