#!/bin/sh
# The GPU check (run-gpu.sh) for the CUDA app.
# Usage: tests/gpu/run-cuda.sh [APP]   (default app_cuda/orrery_cuda)
exec "$(dirname "$0")/run-gpu.sh" "${1:-app_cuda/orrery_cuda}"
