#!/bin/bash
# One call on a lent GPU machine (no libtool, CUnit or BOINC there): build a
# `make dist` tarball standalone for the machine's GPU and run the chosen
# GPU checks and benchmarks, logs to $OUT. Made so that one device call
# does all of a session's GPU work and leaves the logs behind.
#
# Usage (on the GPU machine): tools/gpu-session.sh TARBALL STEP...
# Steps: test-cuda (tests/gpu/run-cuda.sh), test-opencl (run-opencl.sh on
# the NVIDIA platform), selftest (both apps' spectral self-tests),
# device-check (tests/gpu/spectral_device_check), bench-fft
# (bench/spectral/cuda_fft_bench), bench-2d (bench/spectral/cuda_spectral2d_bench),
# bench-opencl (bench/spectral/opencl_spectral_bench), bench-cpu (bench/spectral/spectral_bench
# on the host CPU), bench-sep (bench/separation/gpu_bench.sh, the separation cases).
# Environment: REUSE_BUILD=1 (a warm machine: keep the last call's build),
# PREBUILT=1 (TARBALL is a tree already configured and built, programs
# and benchmarks included, elsewhere: the call only unpacks it at BUILD,
# which must be the path it was built at, and runs; building here costs
# most of a call's device time),
# BENCH_CPU_ARGS (arguments of bench/spectral/spectral_bench), STEP_TIMEOUT (seconds a step may take, default 300), SM (default 90), VKFFT_INCLUDE (a folder holding vkFFT.h for
# the OpenCL bench), BUILD (default /tmp/orrery-build).
set -u
tarball=$(readlink -f "${1:?usage: $0 TARBALL STEP...}")
shift
out=${OUT:-/tmp/orrery-out}
extra_cppflags=
[ -n "${VKFFT_INCLUDE:-}" ] && extra_cppflags="-I$(readlink -f "$VKFFT_INCLUDE")"
build=${BUILD:-/tmp/orrery-build}
mkdir -p "$out"
if [ "${REUSE_BUILD:-0}" = 1 ] && [ -x "$build/app_cpu/orrery_cpu" ]; then
    cd "$build" || exit 1   # a warm machine's earlier build of the same tarball
else
rm -rf "$build" && mkdir -p "$build" && tar xzf "$tarball" -C "$build" --strip-components=1
cd "$build" || exit 1
if [ "${PREBUILT:-0}" != 1 ]; then
if ! ./configure --without-boinc --enable-cuda --enable-opencl CPPFLAGS="$extra_cppflags" \
    NVCC_ARCH_FLAGS="-gencode arch=compute_${SM:-90},code=sm_${SM:-90}" >"$out/configure.log" 2>&1; then
    tail -20 "$out/configure.log"
    exit 1
fi
if ! make -j"$(nproc)" >"$out/make.log" 2>&1; then
    grep -E "error|Error" "$out/make.log" | head -30
    exit 1
fi
fi
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | tee "$out/device.txt"

# The NVIDIA OpenCL platform's index, so the OpenCL steps skip PoCL.
nvidia_platform() {
    clinfo -l 2>/dev/null | awk '/^Platform #/ && /NVIDIA/ { p = $2; gsub(/[#:]/, "", p); print p; exit }'
}

status=0
# make's targets, unless PREBUILT (then they are all there already)
build() {
    [ "${PREBUILT:-0}" = 1 ] || make "$@" >>"$out/make.log" 2>&1
}
step() { # name, command...
    local name=$1
    shift
    echo "== $name"
    if timeout "${STEP_TIMEOUT:-300}" "$@" >"$out/$name.log" 2>&1; then
        tail -4 "$out/$name.log"
    else
        status=1
        echo "   FAILED (exit $?):"
        grep -v "^PASS" "$out/$name.log" | tail -25
    fi
}

for s in "$@"; do
    case $s in
    test-cuda) step test-cuda tests/gpu/run-cuda.sh app_cuda/orrery_cuda ;;
    test-opencl)
        p=$(nvidia_platform)
        ORR_APP_ARGS="${p:+--platform $p}" step test-opencl tests/gpu/run-opencl.sh app_opencl/orrery_opencl ;;
    selftest)
        step selftest-cuda app_cuda/orrery_cuda selftest
        p=$(nvidia_platform)
        step selftest-opencl app_opencl/orrery_opencl selftest ${p:+--platform $p} ;;
    device-check)
        build tests/gpu/spectral_device_check NVCC_BENCH_ARCH_FLAGS="-arch=sm_${SM:-90}" &&
            step device-check tests/gpu/spectral_device_check ;;
    bench-fft) build bench/spectral/cuda_fft_bench && step bench-fft bench/spectral/cuda_fft_bench ;;
    bench-2d) build bench/spectral/cuda_spectral2d_bench && step bench-2d bench/spectral/cuda_spectral2d_bench ;;
    bench-opencl)
        p=$(nvidia_platform)
        build bench/spectral/opencl_spectral_bench &&
            ORR_BENCH_PLATFORM=${p:-0} step bench-opencl bench/spectral/opencl_spectral_bench ;;
    # shellcheck disable=SC2086
    bench-cpu) build bench/spectral/spectral_bench && step bench-cpu bench/spectral/spectral_bench ${BENCH_CPU_ARGS:-} ;;
    bench-sep)
        build bench/cuda_peak &&
            step bench-sep env ORR_GPU_PEAK=bench/cuda_peak bench/separation/gpu_bench.sh app_cuda/orrery_cuda ;;
    *) echo "unknown step $s" ; status=1 ;;
    esac
done
exit $status
