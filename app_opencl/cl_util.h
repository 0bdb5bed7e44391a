/* OpenCL helpers shared by the backend's parts (backend_opencl.c,
 * spectral/host.c) and bench/spectral/opencl_spectral_bench.c: every cl
 * return code becomes an orr_error naming what failed. */
#ifndef ORRERY_CL_UTIL_H
#define ORRERY_CL_UTIL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "orrery.h"

const char *cl_error_name(cl_int e);
/* The class of an OpenCL error (cl_util.c's table): ORR_ERR_DEVICE where
 * another try on this host may work (BOINC's temporary exit),
 * ORR_ERR_DEVICE_UNFIT where this device fails so every time; ORR_OK for
 * CL_SUCCESS. */
orr_status cl_status(cl_int e);
/* cl_status(e): "OpenCL: what: CL_NAME (code)" */
orr_status cl_fail(orr_error *err, cl_int e, const char *what);
/* The compiler's log for dev, through orr_log. */
void ocl_print_build_log(cl_program prog, cl_device_id dev);
/* Creates and builds a program from source for dev; a failed build prints
 * the compiler's log and releases the program (*out NULL). `what` names
 * the kernels in the message. */
orr_status ocl_build_program(cl_context context, cl_device_id dev, const char *source,
                             const char *options, const char *what, cl_program *out,
                             orr_error *err);
/* Waits for `done` without busy-waiting, even on drivers whose clFinish
 * spins: flushes queue, sleeps through half of expected_s (the last
 * batch's whole time) less running_s (what this batch has run), then
 * polls every 0.2 ms. Returns the command's error or CL_SUCCESS. */
cl_int ocl_wait_sleeping(cl_command_queue queue, cl_event done, double expected_s,
                         double running_s);

/* In a function returning orr_status with an orr_error *err in scope. */
#define CL_TRY(call, what)                                                                    \
    do {                                                                                      \
        cl_int e_ = (call);                                                                   \
        if (e_ != CL_SUCCESS)                                                                 \
            return cl_fail(err, e_, what);                                                    \
    } while (0)

#endif
