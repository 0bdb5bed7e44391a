/* The driver: every app's main() is one call to orr_main with its backend.
 * It owns the command line (one parser for every kind of the registry,
 * kinds.c), the runtime's start and end, and the mapping from status codes
 * to exit codes and BOINC outcomes. */
#ifndef ORRERY_DRIVER_H
#define ORRERY_DRIVER_H

#include "backend.h"

typedef struct {
    const char *program;      /* "orrery_cpu" */
    int gpu_app;              /* asks BOINC for GPU-app treatment */
    orr_backend_open open_backend;
} orr_app_info;

int orr_main(int argc, char **argv, const orr_app_info *app);

#endif
