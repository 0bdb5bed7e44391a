#!/bin/bash
# The GPU apps against the CPU app on every MoM work unit of
# tests/data/mom: the same echo records (incidence and echo angles), each
# echo width within 1e-9 dB of the CPU app's (docs/mom.md section 4; in
# precision single, 1e-3 dB), and the GPU app's backward error within 30
# n eps (LAPACK's threshold, which the kind enforces in double precision;
# in single, 30 n eps of single precision).
# The backward errors, the largest dB difference and, where the unit
# writes them, the currents' largest difference (relative to the largest
# current; their points must be the same) are printed. An app that is not
# built, or whose device is missing (exit 75, or 78 with "no usable": a
# CUDA app on a machine without a driver it can use), is skipped with a
# message. Prints PASS/FAIL/SKIP a
# unit and app, then a summary; exits 1 when anything failed, 77
# (automake's skip) when no GPU app could run, else 0.
#
# Usage: tests/e2e/mom_gpu_compare.sh [BUILDDIR]
#   (BUILDDIR holds app_cpu/orrery_cpu and whichever of
#   app_cuda/orrery_cuda and app_opencl/orrery_opencl were built; default:
#   the build ORR_APP, the CPU app, belongs to, as under `make check`)
# Environment: MOM_DATA (default tests/data/mom), UNITS (a regular
# expression on unit names; default all but kill_circle, the kill test's
# long unit), ORR_GPU_ARGS (more arguments for the GPU apps, e.g.
# "--device 1"), ORR_CPU_ARGS (the CPU app's, e.g. "--nthreads 2"),
# ORRERY_OPENBLAS (the CPU solvers' library, docs/mom.md section 3).
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ $# -ge 1 ]; then
    build=$(cd "$1" && pwd)
else
    build=$(cd "$(dirname "${ORR_APP:?usage: $0 BUILDDIR (or ORR_APP set to app_cpu/orrery_cpu)}")/.." && pwd)
fi
data=$(cd "${MOM_DATA:-$here/../data/mom}" && pwd)
cpu=$build/app_cpu/orrery_cpu
[ -x "$cpu" ] || { echo "$0: no CPU app at $cpu" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-mom-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0

# run APP DIR UNIT [ARGS...]: the unit from scratch in DIR; the exit code in DIR/rc
run() {
    local app=$1 dir=$2 unit=$3
    shift 3
    mkdir -p "$dir"
    (cd "$dir" && "$app" mom -w "$unit" -o results.txt --npy current.npy -i -c "$@" \
        >stdout.txt 2>stderr.txt
     echo $? >rc)
}

# compare CPU_DIR GPU_DIR: the verdict's reason on stdout, exit 1 on failure
# (Python's standard library only: the results text and the .npy currents).
compare() {
    python3 - "$@" <<'EOF'
import array, ast, math, os, sys
a_dir, b_dir = sys.argv[1], sys.argv[2]
def records(d):
    out = {}
    for line in open(os.path.join(d, "results.txt")):
        w = line.split()
        if w:
            out.setdefault(w[0], []).append(w[1:])
    return out
a, b = records(a_dir), records(b_dir)
head = a.get("wavelength", [[]])[0]
if head != b.get("wavelength", [[]])[0]:
    sys.exit("the problems differ: %s / %s" % (" ".join(head), " ".join(b.get("wavelength", [[]])[0])))
single = "precision" in head and head[head.index("precision") + 1] == "single"
tol = 1e-3 if single else 1e-9
def solve(r):
    w = r["solve"][0]
    return float(w[w.index("backward_error") + 1])
be_a, be_b = solve(a), solve(b)
ea, eb = a.get("echo", []), b.get("echo", [])
if [e[:2] for e in ea] != [e[:2] for e in eb]:
    sys.exit("different echo angles")
worst, where = 0.0, ""
for x, y in zip(ea, eb):
    sa, sb = float(x[2]), float(y[2])
    d = abs(10 * math.log10(sb) - 10 * math.log10(sa)) if sa > 0 and sb > 0 else math.inf
    d = d if d == d else math.inf   # NaN
    if d > worst:
        worst, where = d, "incidence %s echo %s: %s against %s" % (x[0], x[1], x[2], y[2])
msg = "%d echo widths, largest difference %.3g dB%s; backward error %.3g (CPU %.3g)" % (
    len(ea), worst, where and " (" + where + ")", be_b, be_a)
def faithful(r):
    w = r["solve"][0]
    return w[w.index("growth_factor") + 1], w[w.index("smallest_pivot") + 1]
if faithful(a)[0] != "nan":
    msg += "; growth factor %s, smallest pivot %s (CPU %s, %s)" % (faithful(b) + faithful(a))
def npy(path):
    """The currents' file (docs/mom.md section 4): its shape and its float64
    values, rows of x, y, then Re J, Im J per incidence."""
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[8:10], "little")
    head = ast.literal_eval(raw[10:10 + n].decode("latin1"))
    if head["descr"] != "<f8" or len(head["shape"]) != 2:
        sys.exit("%s: %s %s, not the float64 table of points and currents" % (
            path, head["descr"], head["shape"]))
    return head["shape"], array.array("d", raw[10 + n:])
pa, pb = os.path.join(a_dir, "current.npy"), os.path.join(b_dir, "current.npy")
if os.path.exists(pa) or os.path.exists(pb):
    if not (os.path.exists(pa) and os.path.exists(pb)):
        sys.exit("only one app wrote the currents; " + msg)
    (sa, va), (sb, vb) = npy(pa), npy(pb)
    if sa != sb:
        sys.exit("currents of shape %s against %s; %s" % (sa, sb, msg))
    rows, cols = sa
    # the points are the host's geometry, the same code in every app
    if any(va[r * cols + c] != vb[r * cols + c] for r in range(rows) for c in (0, 1)):
        sys.exit("the currents' points differ; " + msg)
    pairs = [r * cols + c for r in range(rows) for c in range(2, cols, 2)]
    top = max(math.hypot(va[i], va[i + 1]) for i in pairs)
    diff = max(math.hypot(va[i] - vb[i], va[i + 1] - vb[i + 1]) for i in pairs)
    msg += "; the same points, currents within %.3g of the largest" % (diff / top)
if not worst <= tol:
    sys.exit("beyond %g dB: %s" % (tol, msg))
limit = 30 * 2.0 ** 29 if single else 30   # 30 n eps of the arithmetic
if not be_b <= limit:
    sys.exit("backward error above %g: %s" % (limit, msg))
print(msg)
EOF
}

units=()
for f in "$data"/*.txt; do
    u=$(basename "$f" .txt)
    [ -n "${UNITS:-}" ] && ! [[ $u =~ $UNITS ]] && continue
    [ -z "${UNITS:-}" ] && [ "$u" = kill_circle ] && continue
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
        if why=$(compare "$work/cpu/$u" "$dir" 2>&1); then
            echo "PASS $u $name: $why"
            passed=$((passed + 1))
        else
            echo "FAIL $u $name: $why"
            failed=$((failed + 1))
        fi
    done
done
echo "mom GPU comparison: $passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ] || exit 1
[ $passed -gt 0 ] || exit 77
