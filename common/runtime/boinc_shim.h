/* The BOINC calls the runtime needs, exposed to C. Implemented in
 * boinc_shim.cpp, the project's only C++ file, because several of them
 * (init data, temporary exit, option defaults) exist only in C++. */
#ifndef ORRERY_BOINC_SHIM_H
#define ORRERY_BOINC_SHIM_H

#include "runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

int orr_boinc_init(int gpu_app, int standalone);
void orr_boinc_get_init_data(orr_init_data *out);
int orr_boinc_is_standalone(void);
void orr_boinc_resolve(const char *logical, char *physical, size_t size);
void orr_boinc_fraction_done(double f);
int orr_boinc_time_to_checkpoint(void);
void orr_boinc_checkpoint_completed(void);
void orr_boinc_begin_critical(void);
void orr_boinc_end_critical(void);
int orr_boinc_quit_requested(void);
int orr_boinc_suspended(void);
void orr_boinc_finish(int status);
void orr_boinc_temporary_exit(int delay_s, const char *reason);
/* The OpenCL app only (its copy of the shim is built with
 * ORR_BOINC_OPENCL): the platform and device the client assigned, as
 * cl_platform_id / cl_device_id; 0 on success, BOINC's error otherwise. */
int orr_boinc_opencl_ids(void **device, void **platform);

#ifdef __cplusplus
}
#endif

#endif
