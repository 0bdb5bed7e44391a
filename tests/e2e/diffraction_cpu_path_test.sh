#!/bin/sh
# --cpu-path reaches the FFTs that diffraction runs: the CPU backend
# chooses its path once and the diffraction reference makes its FFT plans
# on it (the spectral kernels' lanes: "generic" for scalar), which it
# logs. Without --cpu-path the FFTs take the backend's best path. A path
# this CPU cannot run (exit 69) or this build lacks (exit 64) is passed
# over with a note; scalar runs everywhere, sse2 on every x86-64.
# Environment: ORR_APP (app_cpu/orrery_cpu).
set -u
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
wu="$(cd "$(dirname "$0")/.." && pwd)/data/diffraction/posts_2d.txt"
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-cpupath-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

for path in scalar sse2 avx2 avx512; do
    "$app" diffraction -w "$wu" -o out.txt --nthreads 2 --cpu-path "$path" >/dev/null 2>err.txt
    rc=$?
    if [ "$rc" = 69 ] && grep -q "this CPU cannot run it" err.txt; then
        echo "note: this CPU cannot run $path"
        continue
    fi
    if [ "$rc" = 64 ] && grep -q "unknown path" err.txt; then
        echo "note: this build has no $path path"
        continue
    fi
    [ "$rc" = 0 ] || { fail "--cpu-path $path: exit $rc: $(tail -2 err.txt)"; continue; }
    lanes=$path
    [ "$path" = scalar ] && lanes=generic
    if grep -q "^diffraction: FFTs on the $lanes lane kernels\$" err.txt; then
        pass "--cpu-path $path: FFTs on the $lanes lanes"
    else
        fail "--cpu-path $path: $(grep 'FFTs on' err.txt || echo 'no FFT path logged')"
    fi
done

"$app" diffraction -w "$wu" -o out.txt --nthreads 2 >/dev/null 2>err.txt || fail "default run"
best=$(sed -n 's/^CPU backend: \([a-z0-9]*\) kernels.*/\1/p' err.txt)
[ "$best" = scalar ] && best=generic
if [ -n "$best" ] && grep -q "^diffraction: FFTs on the $best lane kernels\$" err.txt; then
    pass "no --cpu-path: FFTs on the backend's best ($best)"
else
    fail "no --cpu-path: backend '$best', $(grep 'FFTs on' err.txt || echo 'no FFT path logged')"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -ge 2 ]
