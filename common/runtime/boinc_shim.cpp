// Thin C++ wrapper over the BOINC client library; see boinc_shim.h.
#include "boinc_shim.h"

#include <cstdio>
#include <cstring>
#include <string>

// Debian installs the headers under boinc/; a BOINC source tree
// (--with-boinc=DIR) has them in api/ and lib/, which are on the path.
#if ORR_BOINC_SOURCE_TREE
#include "boinc_api.h"
#include "diagnostics.h"
#include "filesys.h"
#else
#include <boinc/boinc_api.h>
#include <boinc/diagnostics.h>
#include <boinc/filesys.h>
#endif
#if ORR_BOINC_OPENCL
#if ORR_BOINC_SOURCE_TREE
#include "boinc_opencl.h"
#else
#include <boinc/boinc_opencl.h>
#endif
#endif

int orr_boinc_init(int gpu_app, int standalone)
{
    // Standalone, diagnostics must not redirect stderr to stderr.txt: a
    // developer running the app by hand wants the messages on the terminal.
    int flags = BOINC_DIAG_DUMPCALLSTACKENABLED | BOINC_DIAG_HEAPCHECKENABLED |
                BOINC_DIAG_TRACETOSTDERR;
    if (!standalone)
        flags |= BOINC_DIAG_REDIRECTSTDERR | BOINC_DIAG_BOINCAPPLICATION;
    boinc_init_diagnostics(flags);

    BOINC_OPTIONS opt;
    boinc_options_defaults(opt);
    opt.normal_thread_priority = gpu_app ? 1 : 0;
    // Standalone there is no slot to guard: without main_program BOINC
    // leaves no lock file behind, and runs side by side (tests) work.
    if (standalone)
        opt.main_program = 0;
    return boinc_init_options(&opt);
}

void orr_boinc_get_init_data(orr_init_data *out)
{
    APP_INIT_DATA aid;
    boinc_get_init_data(aid);
    std::snprintf(out->gpu_type, sizeof out->gpu_type, "%s", aid.gpu_type);
    out->gpu_device_num = aid.gpu_device_num;
    out->gpu_opencl_dev_index = aid.gpu_opencl_dev_index;
    out->ncpus = aid.ncpus;
    out->checkpoint_period = aid.checkpoint_period;
    // The runtime keeps the string for the life of the process.
    static std::string prefs;
    prefs = aid.project_preferences ? aid.project_preferences : "";
    out->project_preferences = prefs.c_str();
}

int orr_boinc_is_standalone(void) { return boinc_is_standalone(); }

void orr_boinc_resolve(const char *logical, char *physical, size_t size)
{
    if (boinc_resolve_filename(logical, physical, (int)size) != 0)
        std::snprintf(physical, size, "%s", logical);
}

void orr_boinc_fraction_done(double f) { boinc_fraction_done(f); }
int orr_boinc_time_to_checkpoint(void) { return boinc_time_to_checkpoint(); }
void orr_boinc_checkpoint_completed(void) { boinc_checkpoint_completed(); }
void orr_boinc_begin_critical(void) { boinc_begin_critical_section(); }
void orr_boinc_end_critical(void) { boinc_end_critical_section(); }

int orr_boinc_quit_requested(void)
{
    BOINC_STATUS st;
    boinc_get_status(&st);
    return st.quit_request || st.abort_request;
}

int orr_boinc_suspended(void)
{
    BOINC_STATUS st;
    boinc_get_status(&st);
    return st.suspended;
}

void orr_boinc_finish(int status) { boinc_finish(status); }

void orr_boinc_temporary_exit(int delay_s, const char *reason)
{
    boinc_temporary_exit(delay_s, reason);
}

#if ORR_BOINC_OPENCL
int orr_boinc_opencl_ids(void **device, void **platform)
{
    // BOINC picks the device it assigned by vendor and index among that
    // vendor's GPUs, never a raw index across platforms.
    cl_device_id d = NULL;
    cl_platform_id p = NULL;
    int r = boinc_get_opencl_ids(&d, &p);
    if (r != 0)
        return r;
    *device = d;
    *platform = p;
    return 0;
}
#endif
