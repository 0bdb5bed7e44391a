#!/bin/bash
# The OpenCL app on whatever OpenCL device the machine has (PoCL's CPU
# device in CI; a GPU where there is one, or the one ORR_APP_ARGS names,
# e.g. "--platform 1 --device 0"):
#  1. every expected.json case through orrery_opencl at the GPU tolerance
#     (tests/unit/test_cases; its CUnit summary is printed);
#  2. a device without double precision is refused with a clear message
#     and a non-zero exit (ORR_OPENCL_HIDE_FP64 makes the device hide it);
#  3. a run killed after its first checkpoint and restarted prints the same
#     tags as an uninterrupted run;
#  4. a kernel build that fails prints the compiler's log, naming
#     kernels.cl and the line, and no result.
# Skipped (exit 77) when no OpenCL device is found.
# Environment: ORR_OPENCL_APP (app_opencl/orrery_opencl), ORR_DATA, ORR_TEST_CASES
# (the test_cases binary), ORR_APP_ARGS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
app=$(readlink -f "${ORR_OPENCL_APP:-${ORR_APP:?set ORR_OPENCL_APP to orrery_opencl}}")
data=$(readlink -f "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}")
cases=${ORR_TEST_CASES:-$here/../unit/test_cases}
extra=${ORR_APP_ARGS:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-opencl-XXXXXX")
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
failed=0

zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" >"$work/small11.txt"
stars="$data/stars/stars-11.txt.gz"
# shellcheck disable=SC2086
if ! (cd "$work" && "$app" -i -a small11.txt -s "$stars" $extra >/dev/null 2>probe.txt); then
    if grep -q "no OpenCL platform found\|no OpenCL device found" "$work/probe.txt"; then
        echo "SKIP: no OpenCL device: $(tail -1 "$work/probe.txt")"
        exit 77
    fi
    echo "FAIL: the OpenCL app cannot run small11: $(tail -3 "$work/probe.txt")"
    exit 1
fi
grep -m1 "OpenCL backend" "$work/probe.txt"

echo "== 1. reference cases"
ORR_APP=$app ORR_DATA=$data ORR_TOLERANCE=gpu ORR_CPU_PATHS= ORR_APP_ARGS=$extra "$cases" ||
    failed=1

echo "== 2. a device without double precision"
# shellcheck disable=SC2086
(cd "$work" && ORR_OPENCL_HIDE_FP64=1 "$app" -i -a small11.txt -s "$stars" $extra \
    >/dev/null 2>nofp64.txt)
rc=$?
if [ $rc -ne 0 ] && grep -q "has no double precision" "$work/nofp64.txt" &&
    ! grep -q "<search_likelihood>" "$work/nofp64.txt"; then
    echo "PASS: refused (exit $rc): $(grep -m1 'no double precision' "$work/nofp64.txt")"
else
    echo "FAIL: exit $rc; $(tail -2 "$work/nofp64.txt")"
    failed=1
fi

echo "== 3. kill after the first checkpoint, resume"
sh "$here/../../tools/refine-grid.sh" 2 2 1 <"$work/small11.txt" >"$work/longer.txt"
mkdir "$work/straight" "$work/killed"
# shellcheck disable=SC2086
(cd "$work/straight" && "$app" -a ../longer.txt -s "$stars" $extra 2>stderr.txt)
(
    cd "$work/killed" || exit 1
    # shellcheck disable=SC2086
    "$app" --checkpoint-period 1 -a ../longer.txt -s "$stars" $extra 2>>stderr.txt &
    pid=$!
    for _ in $(seq 3000); do [ -f separation_checkpoint ] && break; sleep 0.01; done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    # shellcheck disable=SC2086
    "$app" -a ../longer.txt -s "$stars" $extra 2>>stderr.txt
)
resumed=$(grep -c "resuming from checkpoint" "$work/killed/stderr.txt")
if [ "$resumed" -ge 1 ] && [ -n "$(grep '^<search_likelihood>' "$work/straight/stderr.txt")" ] &&
    [ "$(grep '^<' "$work/straight/stderr.txt")" = "$(grep '^<' "$work/killed/stderr.txt")" ]; then
    echo "PASS: tags identical after $resumed resume(s)"
else
    echo "FAIL: resumed $resumed time(s); tags:"
    diff <(grep '^<' "$work/straight/stderr.txt") <(grep '^<' "$work/killed/stderr.txt")
    failed=1
fi
echo "== 4. a failed kernel build"
# shellcheck disable=SC2086
(cd "$work" && ORR_OPENCL_OPTIONS="-DNS=" "$app" -i -a small11.txt -s "$stars" $extra \
    >/dev/null 2>buildfail.txt)
rc=$?
if [ $rc -ne 0 ] && grep -q "OpenCL build log" "$work/buildfail.txt" &&
    grep -q "kernels.cl:[0-9]" "$work/buildfail.txt" &&
    ! grep -q "<search_likelihood>" "$work/buildfail.txt"; then
    echo "PASS: exit $rc, the log names $(grep -m1 -o 'kernels.cl:[0-9]*' "$work/buildfail.txt")"
else
    echo "FAIL: exit $rc; $(tail -3 "$work/buildfail.txt")"
    failed=1
fi
exit $failed
