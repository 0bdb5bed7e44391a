#!/bin/sh
# Installs what building and testing Orrery needs on Debian 12 (as root).
# boinc-client is for the real-client test only (tests/e2e), libxml2-utils
# (xmllint) for the admin-tools test, libfftw3-dev as the spectral tests'
# independent reference, libvkfft-dev for the OpenCL FFT benchmark only
# (`make bench-opencl` compares against VkFFT's OpenCL backend), clang and
# libclang-rt-14-dev (its libFuzzer and sanitizer runtimes, only recommended
# by clang) for `make fuzz` (tests/fuzz/README.md). python3-numpy and
# python3-venv: the admins' library tool (orrery-library), the tests'
# independent numpy references and the venv the RCWA comparison installs
# grcwa into from PyPI. busybox and original-awk: two more awks that
# tests/e2e/embed_cl_test.sh runs tools/embed-cl.sh under (beside Debian's
# default mawk; gawk is left out on purpose, it would replace mawk as awk).
# time: GNU time, whose peak RSS tests/e2e/check_sizes_test.sh compares
# with --check's memory.
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential autoconf automake pkg-config \
    zlib1g-dev libcunit1-dev libboinc-app-dev libopenblas-dev \
    ocl-icd-opencl-dev opencl-headers pocl-opencl-icd libclblast-dev \
    boinc-client libxml2-utils libfftw3-dev libvkfft-dev \
    clang libclang-rt-14-dev \
    python3-numpy python3-venv busybox original-awk time
