#!/bin/bash
# The GPU apps against the CPU app on every FDTD work unit of
# tests/data/fdtd: faithful units must give the same bytes (results and
# snapshots; the `application`, `cell_updates_per_second` and `seconds`
# lines left out), fast ones the same numbers within 1e-12 relative per
# value in double precision and 1e-5 in single (docs/fdtd.md section 3).
# Each GPU result is also put to orrery-validate compare against the CPU
# one (where the build has it): the quorum must pair them. An app that is
# not built, or whose device is missing (exit 75, or 78
# with "no usable": a CUDA app on a machine without a driver it can use),
# is skipped with a message. Prints PASS/FAIL/SKIP a unit and app, then a
# summary; exits 1 when anything failed, 77 (automake's skip) when no GPU
# app could run, else 0.
#
# Usage: tests/e2e/fdtd_gpu_compare.sh [BUILDDIR]
#   (BUILDDIR holds app_cpu/orrery_cpu and whichever of
#   app_cuda/orrery_cuda and app_opencl/orrery_opencl were built; default:
#   the build ORR_APP, the CPU app, belongs to, as under `make check`)
# Environment: FDTD_DATA (default tests/data/fdtd), UNITS (a regular
# expression on unit names; default all but kill_cavity, the kill test's
# long unit: minutes on PoCL), ORR_GPU_ARGS (more arguments for
# the GPU apps, e.g. "--device 1" or "-r"), ORR_CPU_ARGS (the CPU app's,
# e.g. "--cpu-path sse2": fast units then differ within rounding).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
    build=$(cd "$1" && pwd)
else
    build=$(cd "$(dirname "${ORR_APP:?usage: $0 BUILDDIR (or ORR_APP set to app_cpu/orrery_cpu)}")/.." && pwd)
fi
data=$(cd "${FDTD_DATA:-$here/../data/fdtd}" && pwd)
cpu=$build/app_cpu/orrery_cpu
[ -x "$cpu" ] || { echo "$0: no CPU app at $cpu" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-fdtd-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0

# run APP DIR UNIT [ARGS...]: the unit from scratch in DIR; the exit code in DIR/rc
run() {
    local app=$1 dir=$2 unit=$3
    shift 3
    mkdir -p "$dir"
    (cd "$dir" && "$app" fdtd -w "$unit" -o results.txt -i "$@" >stdout.txt 2>stderr.txt
     echo $? >rc)
}

kept() { grep -v -E '^(application|cell_updates_per_second|seconds) ' "$1"; }

# Fast units: the same records, numbers within tol relative per value
# (Python's standard library only: the results text and .npy snapshots).
close() { # tol cpu_dir gpu_dir
    python3 - "$@" <<'EOF'
import array, ast, math, os, sys
tol, a_dir, b_dir = float(sys.argv[1]), sys.argv[2], sys.argv[3]
worst, where = 0.0, ""
def rel(x, y):   # a NaN or an infinity matches only its like
    if x == y or (math.isnan(x) and math.isnan(y)):
        return 0.0
    if not (math.isfinite(x) and math.isfinite(y)):
        return math.inf
    return abs(x - y) / max(abs(x), abs(y))
def note(r, at):
    global worst, where
    if r > worst:
        worst, where = r, at
def lines(d):
    skip = ("application ", "cell_updates_per_second ", "seconds ")
    return [l.split() for l in open(os.path.join(d, "results.txt")) if not l.startswith(skip)]
def npy(path):
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[8:10], "little")
    head = ast.literal_eval(raw[10:10 + n].decode("latin1"))
    v = array.array({"<f8": "d", "<f4": "f"}[head["descr"]], raw[10 + n:])
    return head["shape"], list(v)
la, lb = lines(a_dir), lines(b_dir)
if len(la) != len(lb):
    sys.exit("%d result lines against %d" % (len(la), len(lb)))
for n, (x, y) in enumerate(zip(la, lb), 1):
    if len(x) != len(y):
        sys.exit("record %d: %s / %s" % (n, " ".join(x), " ".join(y)))
    for s, t in zip(x, y):
        try:
            note(rel(float(s), float(t)), "%s: %s against %s" % (x[0] + " " + x[1], s, t))
        except ValueError:
            if s != t:
                sys.exit("record %d: %s / %s" % (n, " ".join(x), " ".join(y)))
snaps = sorted(f for f in os.listdir(a_dir) if f.endswith(".npy"))
if snaps != sorted(f for f in os.listdir(b_dir) if f.endswith(".npy")):
    sys.exit("different snapshot files")
for f in snaps:
    (sa, va), (sb, vb) = npy(os.path.join(a_dir, f)), npy(os.path.join(b_dir, f))
    if sa != sb:
        sys.exit("%s: shape %s against %s" % (f, sa, sb))
    for i, (x, y) in enumerate(zip(va, vb)):
        note(rel(x, y), "%s[%d]: %r against %r" % (f, i, x, y))
if worst > tol:
    sys.exit("largest relative difference %.3g > %g, %s" % (worst, tol, where))
print("largest relative difference %.3g%s" % (worst, where and ", " + where))
EOF
}

same_bytes() { # cpu_dir gpu_dir
    cmp -s <(kept "$1/results.txt") <(kept "$2/results.txt") || { echo "results differ:"; diff <(kept "$1/results.txt") <(kept "$2/results.txt") | head -6; return 1; }
    for f in "$1"/*.npy; do
        [ -e "$f" ] || continue
        cmp -s "$f" "$2/$(basename "$f")" || { echo "$(basename "$f") differs"; return 1; }
    done
}

units=()
for f in "$data"/*.txt; do
    u=$(basename "$f" .txt)
    [ -n "${UNITS:-}" ] && ! [[ $u =~ $UNITS ]] && continue
    [ -z "${UNITS:-}" ] && [ "$u" = kill_cavity ] && continue
    units+=("$u")
    # shellcheck disable=SC2086
    run "$cpu" "$work/cpu/$u" "$f" ${ORR_CPU_ARGS:-}
    if [ "$(cat "$work/cpu/$u/rc")" != 0 ]; then
        echo "FAIL $u orrery_cpu: exit $(cat "$work/cpu/$u/rc"): $(tail -1 "$work/cpu/$u/stderr.txt")"
        failed=$((failed + 1))
    fi
done

for app in app_cuda/orrery_cuda app_opencl/orrery_opencl; do
    name=$(basename "$app")
    if [ ! -x "$build/$app" ]; then
        echo "SKIP $name: not built in $build"
        skipped=$((skipped + 1))
        continue
    fi
    for u in "${units[@]}"; do
        [ "$(cat "$work/cpu/$u/rc")" = 0 ] || continue
        dir=$work/$name/$u
        # shellcheck disable=SC2086
        run "$build/$app" "$dir" "$data/$u.txt" ${ORR_GPU_ARGS:-}
        rc=$(cat "$dir/rc")
        # 78 is a skip only where the app found no device it can use (a
        # CUDA app without a driver); a device that fails the unit is a FAIL
        if [ "$rc" = 75 ] || { [ "$rc" = 78 ] && grep -q "error: no usable" "$dir/stderr.txt"; }; then
            echo "SKIP $name: no usable device (exit $rc): $(grep -v '^[0-9:]* ([0-9]*): ' "$dir/stderr.txt" | tail -1)"
            skipped=$((skipped + 1))
            break
        fi
        if [ "$rc" != 0 ]; then
            echo "FAIL $u $name: exit $rc: $(tail -1 "$dir/stderr.txt")"
            failed=$((failed + 1))
            continue
        fi
        mode=$(grep '^grid ' "$work/cpu/$u/results.txt")
        # the quorum's verdict: orrery-validate pairs the CPU and GPU
        # results (faithful ones with the same host_tables digit for digit)
        if [ -x "$build/workunits/orrery-validate" ]; then
            if why=$("$build/workunits/orrery-validate" compare "$work/cpu/$u/results.txt" \
                    "$dir/results.txt" 2>&1); then
                echo "PASS $u $name: orrery-validate compare pairs it with the CPU result"
                passed=$((passed + 1))
            else
                echo "FAIL $u $name: orrery-validate compare: $why"
                failed=$((failed + 1))
            fi
        fi
        if [[ $mode == *"arithmetic faithful"* ]]; then
            if why=$(same_bytes "$work/cpu/$u" "$dir"); then
                echo "PASS $u $name: bit-identical"
                passed=$((passed + 1))
            else
                echo "FAIL $u $name: faithful, not bit-identical: $why"
                failed=$((failed + 1))
            fi
        else
            tol=1e-12
            [[ $mode == *"precision single"* ]] && tol=1e-5
            if same_bytes "$work/cpu/$u" "$dir" >/dev/null; then
                echo "PASS $u $name: fast, bit-identical"
                passed=$((passed + 1))
            elif why=$(close $tol "$work/cpu/$u" "$dir" 2>&1); then
                echo "PASS $u $name: fast, within $tol ($why)"
                passed=$((passed + 1))
            else
                echo "FAIL $u $name: fast, beyond $tol: $why"
                failed=$((failed + 1))
            fi
        fi
    done
done
echo "fdtd GPU comparison: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
