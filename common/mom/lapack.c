/* OpenBLAS opened on first use (lapack.h says why not linked). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lapack.h"

static mom_lapack routines;
static orr_error load_error;
static orr_status load_status = ORR_OK;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Each member of mom_lapack with its Fortran symbol, in declaration order. */
static const char *const symbols[] = {
    "zgetrf_", "zgetrs_", "zlaswp_", "ztrsm_", "zgemm_", "ztrtri_", "ztrmm_",
    "cgetrf_", "cgetrs_", "claswp_", "ctrsm_", "cgemm_", "ctrtri_", "ctrmm_",
    "openblas_set_num_threads",
};

/* OpenBLAS picks its kernels from CPUID's family and model; where those
 * are masked (virtual machines: the lent GPU host's 16-core Xeon reads as
 * "Prescott") it falls back to SSE3 kernels, 5x slower (12 against 67
 * GFLOP/s a thread, zgetrf at n = 2000). Unless the user set one, name the
 * core by the features themselves, before the library reads it at load. */
static void choose_core(void)
{
#if defined(__x86_64__)
    if (getenv("OPENBLAS_CORETYPE"))
        return;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        setenv("OPENBLAS_CORETYPE", "SkylakeX", 0);
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        setenv("OPENBLAS_CORETYPE", "Haswell", 0);
#endif
}

static void load(void)
{
    choose_core();
    const char *name = getenv("ORRERY_OPENBLAS") ? getenv("ORRERY_OPENBLAS") : "libopenblas.so.0";
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        load_status = orr_fail(&load_error, ORR_ERR_UNSUPPORTED,
                               "the MoM kind's CPU solvers need OpenBLAS (Debian: libopenblas0): %s",
                               dlerror());
        return;
    }
    _Static_assert(sizeof routines == ORR_ARRAY_LEN(symbols) * sizeof(void (*)(void)),
                   "one symbol a member");
    void (**slot)(void) = (void (**)(void))(void *)&routines;
    for (size_t i = 0; i < ORR_ARRAY_LEN(symbols); i++) {
        void *f = dlsym(lib, symbols[i]);
        if (!f) {
            load_status = orr_fail(&load_error, ORR_ERR_UNSUPPORTED, "%s has no %s", name, symbols[i]);
            return;
        }
        memcpy(&slot[i], &f, sizeof f);
    }
}

orr_status mom_lapack_load(const mom_lapack **out, orr_error *err)
{
    pthread_once(&once, load);
    if (load_status != ORR_OK) {
        if (err)
            *err = load_error;
        return load_status;
    }
    *out = &routines;
    return ORR_OK;
}
