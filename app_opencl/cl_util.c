/* OpenCL helpers shared by the backend's parts (every kind's host code)
 * and the OpenCL benchmark: error names, each error's class (temporary or
 * permanent for this host), the failure message, the build log, and a
 * wait that sleeps instead of spinning. */
#include "cl_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Every code the apps meet, with its class: ORR_ERR_DEVICE (75, BOINC's
 * temporary exit) where another try on this host may work, the device
 * busy or its memory taken now; ORR_ERR_DEVICE_UNFIT (78, an error that
 * sends the task to another host) where this device or driver will fail
 * the same way every time. CL_OUT_OF_RESOURCES is temporary: drivers say
 * it for memory that is short now, and NVIDIA's for a kernel killed by
 * the display watchdog. The CL_INVALID_* codes are limits of this device
 * (work-group and buffer sizes) or a mistake the same build makes here
 * every time. An unlisted code is permanent: a retry on the same host
 * would most likely meet it again, and an error shows the project what a
 * temporary exit repeated until the deadline would hide. */
static const struct {
    cl_int code;
    const char *name;
    orr_status status;
} cl_errors[] = {
    {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND", ORR_ERR_DEVICE},
    {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE", ORR_ERR_DEVICE},
    {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE", ORR_ERR_DEVICE_UNFIT},
    {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE", ORR_ERR_DEVICE},
    {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES", ORR_ERR_DEVICE},
    {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY", ORR_ERR_DEVICE},
    {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE", ORR_ERR_DEVICE_UNFIT},
    {CL_LINK_PROGRAM_FAILURE, "CL_LINK_PROGRAM_FAILURE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_VALUE, "CL_INVALID_VALUE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_PLATFORM, "CL_INVALID_PLATFORM", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_DEVICE, "CL_INVALID_DEVICE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_BINARY, "CL_INVALID_BINARY", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_COMPILER_OPTIONS, "CL_INVALID_COMPILER_OPTIONS", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_KERNEL_DEFINITION, "CL_INVALID_KERNEL_DEFINITION", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_KERNEL, "CL_INVALID_KERNEL", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_WORK_DIMENSION, "CL_INVALID_WORK_DIMENSION", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_OPERATION, "CL_INVALID_OPERATION", ORR_ERR_DEVICE_UNFIT},
    {CL_INVALID_EVENT, "CL_INVALID_EVENT", ORR_ERR_DEVICE_UNFIT},
    {CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
     ORR_ERR_DEVICE_UNFIT},
};

static int cl_error_index(cl_int e)
{
    for (size_t i = 0; i < ORR_ARRAY_LEN(cl_errors); i++)
        if (cl_errors[i].code == e)
            return (int)i;
    return -1;
}

const char *cl_error_name(cl_int e)
{
    const int i = cl_error_index(e);
    return i >= 0 ? cl_errors[i].name : "OpenCL error";
}

orr_status cl_status(cl_int e)
{
    if (e == CL_SUCCESS)
        return ORR_OK;
    const int i = cl_error_index(e);
    return i >= 0 ? cl_errors[i].status : ORR_ERR_DEVICE_UNFIT;
}

orr_status cl_fail(orr_error *err, cl_int e, const char *what)
{
    return orr_fail(err, cl_status(e), "OpenCL: %s: %s (%d)", what, cl_error_name(e), (int)e);
}

void ocl_print_build_log(cl_program prog, cl_device_id dev)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS ||
        size == 0)
        return;
    char *log = malloc(size + 1);
    if (!log)
        return;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, size, log, NULL) == CL_SUCCESS) {
        log[size] = '\0';
        orr_log("OpenCL build log:\n%s", log);
    }
    free(log);
}

orr_status ocl_build_program(cl_context context, cl_device_id dev, const char *source,
                             const char *options, const char *what, cl_program *out,
                             orr_error *err)
{
    char step[160];
    cl_int e;
    *out = clCreateProgramWithSource(context, 1, &source, NULL, &e);
    if (e != CL_SUCCESS) {
        *out = NULL;
        snprintf(step, sizeof step, "creating the program of %s", what);
        return cl_fail(err, e, step);
    }
    e = clBuildProgram(*out, 1, &dev, options, NULL, NULL);
    if (e != CL_SUCCESS) {
        ocl_print_build_log(*out, dev);
        clReleaseProgram(*out);
        *out = NULL;
        snprintf(step, sizeof step, "building %s (build log above)", what);
        return cl_fail(err, e, step);
    }
    return ORR_OK;
}


/* Wait for `done` without busy-waiting, even on drivers whose clFinish
 * spins: sleep through half the time the last batch took, less what this
 * one has already run, then look every 0.2 ms. The last batch's time
 * holds its host part and its own nap: sleeping 0.9 of it, from the end
 * of the enqueueing, made a nap that overslept lengthen the next one, and
 * a batch settled at ten times the host's enqueueing time (FDTD at
 * N = 128 on an H200: 0.4 ms a step where the kernels take 0.1; issue 27). */
cl_int ocl_wait_sleeping(cl_command_queue queue, cl_event done, double expected_s,
                         double running_s)
{
    cl_int e = clFlush(queue);
    if (e != CL_SUCCESS)
        return e;
    const double nap = 0.5 * expected_s - running_s;
    if (nap > 0.0005) {
        struct timespec ts = {(time_t)nap, (long)((nap - (double)(time_t)nap) * 1e9)};
        nanosleep(&ts, NULL);
    }
    for (;;) {
        cl_int status = CL_QUEUED;
        e = clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
        if (e != CL_SUCCESS)
            return e;
        if (status < 0)
            return status;   /* the command failed: its error code */
        if (status == CL_COMPLETE)
            return CL_SUCCESS;
        const struct timespec poll = {0, 200000};
        nanosleep(&poll, NULL);
    }
}
