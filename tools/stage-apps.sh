#!/bin/sh
# Stage the built apps for BOINC's update_versions (make boinc-apps):
#   apps/separation/X.YY/PLATFORM__PLAN/<binary> + version.xml
# for each app that was built: the CPU app single-threaded (plan class cpu)
# and multi-threaded (mt), the CUDA app (cuda_fp64) and the OpenCL app for
# NVIDIA, AMD and Intel GPUs (opencl_*_fp64). Also writes
# apps/app_info.xml, the anonymous-platform description for volunteers who
# run their own builds, in apps/anonymous_platform/ with its binaries.
# Usage: tools/stage-apps.sh OUTDIR APP_VERSION PLATFORM API_VERSION BUILDDIR
set -eu
[ $# -eq 5 ] || { echo "usage: $0 OUTDIR APP_VERSION PLATFORM API_VERSION BUILDDIR" >&2; exit 64; }
out=$1 version=$2 platform=$3 api=$4 build=$5
app=separation
version_num=$(echo "$version" | awk -F. '{ printf "%d", $1 * 100 + $2 }')
staged=0

# A volunteer's machine has no BOINC libraries: warn about a dynamic link.
check_static() {
    if command -v ldd >/dev/null && ldd "$1" 2>/dev/null | grep -q 'libboinc'; then
        echo "warning: $1 links the BOINC libraries dynamically; configure --with-boinc=DIR" \
             "(a BOINC source tree) links them statically for distribution" >&2
    fi
}

stage() { # binary plan_class
    bin=$build/$1 plan=$2
    [ -x "$bin" ] || return 0
    dir=$out/$app/$version/${platform}__$plan
    physical=$(basename "$1")_${version}_${platform}__$plan
    mkdir -p "$dir"
    cp "$bin" "$dir/$physical"
    cat >"$dir/version.xml" <<XML
<version>
    <file>
        <physical_name>$physical</physical_name>
        <main_program/>
    </file>
    <api_version>$api</api_version>
</version>
XML
    check_static "$bin"
    echo "staged $dir/$physical"
    staged=$((staged + 1))
}

stage app_cpu/orrery_cpu cpu
stage app_cpu/orrery_cpu mt
stage app_cuda/orrery_cuda cuda_fp64
stage app_opencl/orrery_opencl opencl_nvidia_fp64
stage app_opencl/orrery_opencl opencl_amd_fp64
stage app_opencl/orrery_opencl opencl_intel_gpu_fp64
[ "$staged" -gt 0 ] || { echo "nothing built to stage (run make first)" >&2; exit 1; }

# Anonymous platform: what a volunteer puts in projects/<project>/: the
# binaries under the names app_info.xml gives them.
anon=$out/anonymous_platform
mkdir -p "$anon"
{
    echo "<app_info>"
    echo "    <app><name>$app</name></app>"
    for pair in app_cpu/orrery_cpu:cpu app_cuda/orrery_cuda:cuda_fp64 \
                app_opencl/orrery_opencl:opencl_nvidia_fp64; do
        bin=${pair%%:*} plan=${pair#*:}
        [ -x "$build/$bin" ] || continue
        name=$(basename "$bin")_${version}_${platform}
        cp "$build/$bin" "$anon/$name"
        echo "    <file_info><name>$name</name><executable/></file_info>"
        echo "    <app_version>"
        echo "        <app_name>$app</app_name>"
        echo "        <version_num>$version_num</version_num>"
        echo "        <api_version>$api</api_version>"
        case $plan in
        cpu) echo "        <avg_ncpus>1</avg_ncpus>" ;;
        *) echo "        <plan_class>$plan</plan_class>"
           echo "        <avg_ncpus>0.05</avg_ncpus>"
           echo "        <coproc><type>NVIDIA</type><count>1</count></coproc>" ;;
        esac
        echo "        <file_ref><file_name>$name</file_name><main_program/></file_ref>"
        echo "    </app_version>"
    done
    echo "</app_info>"
} >"$anon/app_info.xml"
echo "wrote $anon/ (app_info.xml and its binaries, for the anonymous platform)"
