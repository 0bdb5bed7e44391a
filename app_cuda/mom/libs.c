/* cuBLAS and cuSOLVER opened on first use (libs.h says why not linked). */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "config.h"
#include "libs.h"

static mom_cuda_libs libs;
static orr_error load_error;
static orr_status load_status = ORR_OK;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *open_library(const char *name)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        load_status = orr_fail(&load_error, ORR_ERR_UNSUPPORTED,
                               "the MoM kind's CUDA solvers need %s: %s", name, dlerror());
    return h;
}

/* lib's symbol name into *slot (a function pointer of its own type). */
static void find(void *lib, const char *library, const char *name, void *slot)
{
    void *f = lib ? dlsym(lib, name) : NULL;
    if (!f && load_status == ORR_OK)
        load_status = orr_fail(&load_error, ORR_ERR_UNSUPPORTED, "%s has no %s", library, name);
    memcpy(slot, &f, sizeof f);
}

static void load(void)
{
    void *blas = open_library(CUBLAS_SONAME), *solver = open_library(CUSOLVER_SONAME);
#define FIND_BLAS(name) find(blas, CUBLAS_SONAME, #name, &libs.name);
#define FIND_SOLVER(name) find(solver, CUSOLVER_SONAME, #name, &libs.name);
    MOM_CUDA_BLAS(FIND_BLAS)
    MOM_CUDA_SOLVER(FIND_SOLVER)
}

orr_status mom_cuda_libs_load(const mom_cuda_libs **out, orr_error *err)
{
    pthread_once(&once, load);
    if (load_status != ORR_OK) {
        if (err)
            *err = load_error;
        return load_status;
    }
    *out = &libs;
    return ORR_OK;
}
