#!/bin/bash
# The diffraction kind end to end through the CPU app: a work unit killed
# with SIGKILL at random moments (inside batches and between them) and
# restarted each time must write exactly the table of an uninterrupted run;
# --check, --npy, the table's completeness, and the exit codes of bad
# input. Then, where numpy is installed, every work unit in
# tests/data/diffraction against the independent dense model
# (tests/diffraction/scalar_model.py): the same discrete problem solved
# directly, so r00 must agree to the solver's tolerance.
#
# Environment: ORR_APP (the CPU app); ORR_OPENCL_APP, ORR_CUDA_APP (each
# compared with the CPU app where it runs); ORR_KILL_SEED replays a failure.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
app=${ORR_APP:?set ORR_APP to the app binary}
data="$here/data/diffraction"
seed=${ORR_KILL_SEED:-$$}
RANDOM=$seed
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-dif-XXXXXX")
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
passed=0
fail() { echo "FAIL: $*"; echo "(seed $seed; folder kept: $work)"; trap - EXIT; exit 1; }
ok() { echo "ok: $*"; passed=$((passed + 1)); }

wu="$data/kill_holes.txt"
# batches of 12 points (about a second each): most checkpoints fall inside
# a batch and carry its solver state (about 37 MB), some between batches
run=(diffraction -w "$wu" --nthreads 2 --batch 12 --checkpoint-period 1)

# ---- uninterrupted ----
mkdir "$work/ref" && cd "$work/ref" || exit 1
start=$(date +%s%N)
"$app" "${run[@]}" -o table.txt 2>stderr.txt || fail "uninterrupted run: $(tail -2 stderr.txt)"
echo "uninterrupted run: $((($(date +%s%N) - start) / 1000000)) ms"
points=$(grep -c '^point ' table.txt)
grep -q "^# end points $points\$" table.txt || fail "table not complete"
[ "$points" = 96 ] || fail "96 points expected, found $points"
ok "uninterrupted: 96 points, table complete"

# ---- killed and restarted until it finishes ----
mkdir "$work/killed" && cd "$work/killed" || exit 1
kills=0 resumed=0
while :; do
    "$app" "${run[@]}" -o table.txt 2>>stderr.txt &
    pid=$!
    # 0.5-2.5 s, growing 0.2 s a kill: a loaded machine still gets past a checkpoint
    t=$((5 + RANDOM % 20 + 2 * kills))
    sleep "$((t / 10)).$((t % 10))"
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        kills=$((kills + 1))
        [ "$kills" -lt 60 ] || fail "still not finished after 60 kills"
        continue
    fi
    wait "$pid" || fail "a restarted run failed: $(tail -3 stderr.txt)"
    break
done
resumed=$(grep -c 'resuming from checkpoint' stderr.txt)
inflight=$(grep -c 'resuming from checkpoint: .* [1-9][0-9]* in flight' stderr.txt)
cmp -s table.txt ../ref/table.txt || fail "the killed run's table differs: $(diff table.txt ../ref/table.txt | head -4)"
[ "$kills" -ge 2 ] && [ "$inflight" -ge 1 ] ||
    fail "too few kills ($kills) or resumes inside a batch ($inflight) to test anything"
ok "killed $kills times, resumed $resumed times ($inflight inside a batch): the same bytes"
[ ! -e table.txt.partial ] || fail "a .partial file was left behind"

# ---- --check, --npy ----
cd "$work" || exit 1
"$app" diffraction -w "$wu" --check >check.txt 2>/dev/null || fail "--check failed"
grep -q "^points 96$" check.txt && grep -q '^rsc_fpops_est ' check.txt &&
    grep -q '^parameter cd 180$' check.txt || fail "--check output: $(cat check.txt)"
ok "--check: points, parameters, rsc_fpops_est"
"$app" diffraction -w "$data/film.txt" -o film.txt --npy film -i 2>/dev/null || fail "--npy run"
for f in film_r00.npy film_R.npy film_T.npy; do [ -s "$f" ] || fail "$f missing"; done
ok "--npy: r00, R, T written"
# a line grating at phi != 0 is the conical scalar model, not TE: said in the log
"$app" diffraction -w "$data/grating_balance.txt" -o tm.txt -i 2>err.txt || fail "grating_balance run"
! grep -q "conical scalar model" err.txt || fail "phi 0 logged as conical: $(cat err.txt)"
{ cat "$data/grating_balance.txt"; echo "phi 30"; } >conical.txt
"$app" diffraction -w conical.txt -o tm.txt -i 2>err.txt || fail "conical run"
grep -q "conical scalar model, not TE" err.txt || fail "phi 30 not logged as conical: $(cat err.txt)"
rm -f tm.txt
ok "a line grating at phi != 0 logged as the conical scalar model, at phi 0 not"

# ---- bad input ----
expect() { # expect CODE WHAT ARGS...: exit code and a message naming WHAT
    local code=$1 what=$2
    shift 2
    "$app" diffraction "$@" -o out.txt -i >/dev/null 2>err.txt
    local got=$?
    [ "$got" = "$code" ] || fail "$* exited $got, expected $code: $(cat err.txt)"
    grep -q -- "$what" err.txt || fail "$*: message does not name '$what': $(cat err.txt)"
    [ ! -e out.txt ] || fail "$*: an output was written"
}
expect 66 "nothing.txt" -w nothing.txt
printf 'orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate a\nsubstrate a\nmaterial a eps 1 0\nlayer thickness=10 background=b slices=1\nwavelengths 500\ntheta 0\n' >bad.txt
expect 65 "bad.txt:7: layer background: unknown material 'b'" -w bad.txt
printf 'orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate a\nsubstrate a\nmaterial a eps 1 0\nlayer thickness=10 background=a slices=1\nshape rect material=b x=0 width=100\nwavelengths 500\ntheta 0\n' >bad.txt
expect 65 "bad.txt:8: shape material: unknown material 'b'" -w bad.txt
# a centre beyond one period would wrap silently into the cell
printf 'orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate a\nsubstrate a\nmaterial a eps 1 0\nmaterial b eps 2 0\nlayer thickness=10 background=a slices=1\nshape rect material=b x=5000 width=100\nwavelengths 500\ntheta 0\n' >bad.txt
expect 65 "bad.txt:9: shape x: 5000 is outside -800..800" -w bad.txt
# lambda = period at normal incidence: orders +-1 graze (a Rayleigh anomaly)
printf 'orrery-diffraction 1\nperiod 800\norders 3\nsuperstrate a\nsubstrate a\nmaterial a eps 1 0\nlayer thickness=10 background=a slices=1\nwavelengths 500 800\ntheta 0\n' >bad.txt
expect 65 "bad.txt:8: wavelengths: point 1 (lambda 800 nm, theta 0, phi 0): order (-1, 0) grazes" -w bad.txt
expect 65 "bad.txt:8: wavelengths: point 1 .*Rayleigh anomaly" -w bad.txt --check
mkdir adir
"$app" diffraction -w "$data/film.txt" -o adir -i >/dev/null 2>err.txt
[ $? = 74 ] && grep -q adir err.txt || fail "-o a directory: $(cat err.txt)"
mkfifo fifo
timeout 10 "$app" diffraction -w fifo -o out.txt -i >/dev/null 2>err.txt
[ $? = 66 ] && grep -q fifo err.txt || fail "a FIFO as the work unit: $(cat err.txt)"
ok "bad input: missing file 66, bad work unit and Rayleigh anomaly 65 with file:line: key, -o a directory 74, a FIFO 66"

# ---- against the independent dense model ----
if python3 -c 'import numpy' 2>/dev/null; then
    for f in film grating_balance rcwa_line rcwa_lossy rcwa_stack holes_2d posts_2d; do
        [ -e "$data/$f.txt" ] || continue
        sed 's/^solver.*//' "$data/$f.txt" >"$f.wu"
        echo "solver tolerance=1e-13" >>"$f.wu"
        "$app" diffraction -w "$f.wu" -o "$f.app" -i 2>/dev/null || fail "$f: the app failed"
        python3 "$here/diffraction/scalar_model.py" "$f.wu" -o "$f.dense" || fail "$f: the model failed"
        python3 - "$f.app" "$f.dense" "$f" <<'EOF' || fail "$f: the app and the dense model differ"
import sys
def table(path):
    rows = {}
    for line in open(path):
        w = line.split()
        if w and w[0] == 'point':
            rows[int(w[1])] = (complex(float(w[8]), float(w[9])), float(w[10]))
    return rows
a, b = table(sys.argv[1]), table(sys.argv[2])
assert a.keys() == b.keys() and a, "different points"
worst = max(abs(a[p][0] - b[p][0]) / max(abs(b[p][0]), 1e-3) for p in a)
worst_R = max(abs(a[p][1] - b[p][1]) for p in a)
print(f"  {sys.argv[3]}: {len(a)} points, r00 within {worst:.1e} relative, R_total within {worst_R:.1e}")
sys.exit(0 if worst < 1e-10 and worst_R < 1e-10 else 1)
EOF
    done
    ok "the app = the dense model to 1e-10"
else
    echo "skip: no numpy for the dense model comparison"
fi
# ---- the GPU apps against the CPU app (OpenCL: PoCL in CI) ----
# Every point's r00 to 1e-10 relative. The backends round their FFTs and
# dot products differently, so two solves differ by up to the solver's
# tolerance times the problem's conditioning: the comparison solves to
# 1e-12 (the default 1e-10 leaves differences of a few 1e-10).
compare_app() { # compare_app NAME APP
    local name=$1 gpu=$2 f
    for f in rcwa_lossy holes_2d posts_2d rcwa_stack; do
        sed 's/^solver.*//' "$data/$f.txt" >"$f.cmp"
        echo "solver tolerance=1e-12" >>"$f.cmp"
        "$app" diffraction -w "$f.cmp" -o "$f.cpu" -i 2>/dev/null || fail "$f: the CPU app failed"
        "$gpu" diffraction -w "$f.cmp" -o "$f.gpu" -i 2>gpu.err || fail "$f: $name failed: $(tail -2 gpu.err)"
        python3 - "$f.cpu" "$f.gpu" "$f" "$name" <<'EOF' || fail "$f: $name and the CPU app differ"
import sys
def table(path):
    return {int(w[1]): complex(float(w[8]), float(w[9]))
            for w in (l.split() for l in open(path)) if w and w[0] == 'point'}
a, b = table(sys.argv[1]), table(sys.argv[2])
assert a.keys() == b.keys() and a, "different points"
worst = max(abs(a[p] - b[p]) / abs(a[p]) for p in a)
print(f"  {sys.argv[4]} {sys.argv[3]}: {len(a)} points, r00 within {worst:.1e} relative of the CPU app's")
sys.exit(0 if worst <= 1e-10 else 1)
EOF
    done
    ok "$name = the CPU app to 1e-10 relative in r00"
}
if [ -x "${ORR_OPENCL_APP:-}" ] &&
    "$ORR_OPENCL_APP" diffraction -w "$data/film.txt" -o probe.txt -i >/dev/null 2>&1; then
    compare_app OpenCL "$ORR_OPENCL_APP"
else
    echo "skip: no OpenCL app or device"
fi
if [ -x "${ORR_CUDA_APP:-}" ] &&
    "$ORR_CUDA_APP" diffraction -w "$data/film.txt" -o probe.txt -i >/dev/null 2>&1; then
    compare_app CUDA "$ORR_CUDA_APP"
fi
echo "diffraction_test: $passed passed"
