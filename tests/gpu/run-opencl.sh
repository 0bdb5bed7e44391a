#!/bin/sh
# The GPU check (run-gpu.sh) for the OpenCL app: by default on the best
# double-precision GPU of any platform; ORR_APP_ARGS="--platform P --device
# D" picks another.
# Usage: tests/gpu/run-opencl.sh [APP]   (default app_opencl/orrery_opencl)
exec "$(dirname "$0")/run-gpu.sh" "${1:-app_opencl/orrery_opencl}"
