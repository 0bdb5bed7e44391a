#!/bin/sh
# --check's sizes against a real run (issue 40 item 4). For diffraction,
# fdtd and mom, a unit of 50-150 MB is checked (host_bytes, results_bytes,
# npy_bytes, checkpoint_bytes: cost.h's lines), then run by the CPU app
# under GNU time with a checkpoint at every step (--checkpoint-period 0);
# its peak RSS, results and .npy files and the largest checkpoint file
# seen while it ran must lie within 20% of --check's numbers (below them
# where they are bounds). Two numbers are bounds that typical data stay
# well under, checked only from below: fdtd's checkpoint (zlib-compressed
# fields, --check assumes they do not compress) and diffraction's table
# (%.17g values of 19 to 24 bytes). Then the hostile units of the issue,
# each refused at once (timeout) with its message and exit code, and
# `--limits` against the work generators' and the validator's limits.
# The GPU apps share the plans; their device_bytes is not measured here.
#
# Environment: ORR_APP (the CPU app), ORR_WUGEN (orrery-wugen).
set -u
app=${ORR_APP:?set ORR_APP to the CPU app}
src=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-sizes-XXXXXX")
trap 'rm -rf "$work"' EXIT
fails=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ -x /usr/bin/time ] || { echo "FAIL: GNU time (/usr/bin/time, Debian's time) is missing"; exit 1; }

key() { sed -n "s/^$1 //p" "$2" | head -n 1; }

# ratio NAME MEASURED ESTIMATE LO HI: MEASURED / ESTIMATE within [LO, HI]
ratio() {
    if awk -v m="$2" -v e="$3" -v lo="$4" -v hi="$5" \
        'BEGIN { if (e <= 0) exit 1; r = m / e; exit !(r >= lo && r <= hi) }'; then
        pass "$1: measured $2, --check $3"
    else
        fail "$1: measured $2, --check $3 (want a ratio in $4..$5)"
    fi
}

size_of() { wc -c <"$1" | tr -d ' '; }

# run KIND UNIT [ARGS]: --check into check.txt, then the run in the
# folder run/, its peak RSS (bytes) in rss, the largest checkpoint in ckpt
run_unit() {
    kind=$1 unit=$2
    shift 2
    rm -rf "$work/run"
    mkdir "$work/run"
    (cd "$work/run" && "$app" "$kind" -w "$unit" "$@" --check) >"$work/check.txt" 2>"$work/check.err" ||
        { fail "$kind --check: $(tail -n 1 "$work/check.err")"; return 1; }
    (cd "$work/run" && exec /usr/bin/time -o time.txt -f %M "$app" "$kind" -w "$unit" "$@" \
        --nthreads 2 --no-progress --checkpoint-period 0 -o res.txt 2>err.txt) &
    pid=$!
    ckpt=0
    while kill -0 "$pid" 2>/dev/null; do
        f="$work/run/${kind}_checkpoint"
        s=$({ wc -c <"$f" | tr -d ' '; } 2>/dev/null)
        [ "${s:-0}" -gt "$ckpt" ] && ckpt=$s
        sleep 0.05
    done
    wait "$pid" || { fail "$kind run: $(tail -n 1 "$work/run/err.txt")"; return 1; }
    rss=$(($(tail -n 1 "$work/run/time.txt") * 1024))
    return 0
}

compare() { # KIND "NPY_FILES" CKPT_LO RES_LO
    ratio "$1 peak RSS vs host_bytes" "$rss" "$(key host_bytes "$work/check.txt")" 0.8 1.0
    ratio "$1 results vs results_bytes" "$(size_of "$work/run/res.txt")" \
        "$(key results_bytes "$work/check.txt")" "$4" 1.0
    npy=0
    for f in $2; do
        npy=$((npy + $(size_of "$work/run/$f")))
    done
    ratio "$1 .npy ($2) vs npy_bytes" "$npy" "$(key npy_bytes "$work/check.txt")" 0.8 1.0
    ratio "$1 largest checkpoint vs checkpoint_bytes" "$ckpt" \
        "$(key checkpoint_bytes "$work/check.txt")" "$3" 1.0
}

# ---- diffraction: a batch of 24 points whose vectors dominate ----
cat >"$work/dif.txt" <<'EOF'
orrery-diffraction 1
# a 2D grating slow enough to converge that a checkpoint finds its points running
period 400 500
orders 7 7
superstrate air
substrate glass
material air eps 1 0
material resist eps 9 0
material glass eps 2.25 0
layer thickness=300 background=resist slices=30
shape ellipse material=air x=0 y=0 rx=150 ry=180
wavelength_range 520 700 6
theta 0 25
phi 0 30
solver tolerance=1e-10 max_iterations=20000
EOF
run_unit diffraction "$work/dif.txt" --npy dif && compare diffraction "dif_r00.npy dif_R.npy dif_T.npy" 0.8 0.6

# ---- fdtd: a box of scatterers whose state dominates ----
cat >"$work/fdtd.txt" <<'EOF'
orrery-fdtd 1
# a box of scatterers, run long enough that the waves fill it
grid 72 72 72
cell 1e-3 1e-3 1e-3
steps 400
boundary thesis
source at=20,25,30 waveform=dgauss width=3
material a eps_r=2.5 sigma=0.001
material b eps_r=4 sigma=0
sphere material=a centre=40e-3,30e-3,35e-3 radius=9e-3
sphere material=b centre=25e-3,50e-3,45e-3 radius=7e-3
box material=a from=50e-3,10e-3,5e-3 to=60e-3,30e-3,60e-3
probe ez 22 25 30
probe hy 20 27 30
probe ex 20 25 32
energy every=10
snapshot field=ez every=2
EOF
run_unit fdtd "$work/fdtd.txt" && compare fdtd fdtd_snapshot_ez.npy 0.75 0.8

# ---- mom: a circle whose matrix dominates, and many echo lines ----
cat >"$work/mom.txt" <<'EOF'
orrery-mom 1
# a circle of 2000 cells, 10 incidences x 1801 echo angles, the currents
circle radius=3.1
cells 2000
incidence 0 17.5 33 45.25 61 90 101.5 123 150 179.75
echo from=0 to=180 step=0.1
current every=1
EOF
run_unit mom "$work/mom.txt" && compare mom mom_current.npy 0.8 0.8

# ---- hostile units: refused at once ----

# refused UNIT_NAME KIND EXIT PATTERN FILE [ARGS]: --check and the run
# both exit EXIT within 20 s with a message matching PATTERN
refused() {
    name=$1 kind=$2 want=$3 pattern=$4 file=$5
    shift 5
    for mode in --check run; do
        extra=
        [ "$mode" = --check ] && extra=--check
        (cd "$work" && timeout 20 "$app" "$kind" -w "$file" "$@" $extra -o "$work/hostile.out" \
            >/dev/null 2>"$work/hostile.err")
        rc=$?
        if [ "$rc" = "$want" ] && grep -q "$pattern" "$work/hostile.err"; then
            pass "$name ($mode): exit $rc, $(tail -n 1 "$work/hostile.err" | cut -c1-160)"
        else
            fail "$name ($mode): exit $rc (want $want, /$pattern/): $(tail -n 1 "$work/hostile.err")"
        fi
    done
}

# the issue's GMRES(1000): restart + 10 vectors a point, past the point limit
cat >"$work/gmres.txt" <<'EOF'
orrery-diffraction 1
period 400 400
orders 20 20
superstrate air
substrate air
material air eps 1 0
material resist eps 2.56 0
layer thickness=100 background=resist slices=500
wavelengths 633
theta 0
solver method=gmres restart=1000
EOF
refused "diffraction GMRES(1000), 8.4e5 unknowns" diffraction 65 \
    "one point needs .* GMRES's basis.*diffraction_point_bytes" "$work/gmres.txt"

# points of 8.2 GB each (under the point limit), 256 of them in a batch:
# no host holds them (its checkpoint stays under its limit: GMRES saves x)
{
    sed -e 's/slices=500/slices=300/' -e '/^wavelengths /d' "$work/gmres.txt"
    echo "wavelength_range 500 700 256"
} >"$work/bigbatch.txt"
refused "diffraction 256 points of 8.2 GB in a batch" diffraction 71 \
    "needs .* bytes of memory; this host has" "$work/bigbatch.txt" --batch 256

# mom: 1e5 incidences x 1e5 echo angles (a 1 MB unit)
{
    echo "orrery-mom 1"
    echo "circle radius=1"
    echo "cells 40"
    awk 'BEGIN { for (l = 0; l < 1000; l++) { s = "incidence"; for (i = 0; i < 100; i++) s = s " " (l * 100 + i) * 0.001; print s } }'
    echo "echo from=0 to=99999 step=1"
} >"$work/echoes.txt"
refused "mom 1e5 incidences x 1e5 echo angles" mom 65 \
    "the results would take .*100000 incidence x 100000 echo angles.*results_bytes" "$work/echoes.txt"

# fdtd: 1e9 steps on a 2^3 grid (8 GB of probe series, 35 GB of results)
cat >"$work/steps.txt" <<'EOF'
orrery-fdtd 1
grid 2 2 2
cell 1e-3 1e-3 1e-3
steps 1000000000
source waveform=dgauss width=6
probe ez 1 1 1
EOF
refused "fdtd 1e9 steps on 2^3 cells" fdtd 65 "the results would take .*1000000000 steps" "$work/steps.txt"

# fdtd: 10000 spheres over a 128^3 grid (painting, not checkpointed)
{
    printf 'orrery-fdtd 1\ngrid 128 128 128\ncell 1e-3 1e-3 1e-3\nsteps 10\nsource waveform=dgauss width=6\nmaterial d eps_r=2\n'
    awk 'BEGIN { for (i = 0; i < 10000; i++) printf "sphere material=d centre=64e-3,64e-3,%de-3 radius=0.2\n", i % 128 }'
} >"$work/spheres.txt"
refused "fdtd 10000 spheres on 128^3 cells" fdtd 65 "bounding boxes cover .*fdtd_paint_cells" "$work/spheres.txt"

# many small spheres are painted box by box: --check is quick
{
    printf 'orrery-fdtd 1\ngrid 128 128 128\ncell 1e-3 1e-3 1e-3\nsteps 10\nsource waveform=dgauss width=6\nmaterial d eps_r=2\n'
    awk 'BEGIN { for (i = 0; i < 10000; i++) printf "sphere material=d centre=%de-3,%de-3,%de-3 radius=2e-3\n", 4 + i % 120, 4 + (i * 7) % 120, 4 + (i * 13) % 120 }'
} >"$work/small_spheres.txt"
if (cd "$work" && timeout 20 "$app" fdtd -w small_spheres.txt --check >/dev/null 2>&1); then
    pass "fdtd 10000 small spheres on 128^3 cells: --check within 20 s"
else
    fail "fdtd 10000 small spheres on 128^3 cells: --check failed or took more than 20 s"
fi

# ---- the limits: the app's table, the generators' and the validator's ----
"$app" --limits >"$work/limits.txt" || fail "--limits exits $?"
results_max=$(key results_bytes "$work/limits.txt")
[ "$results_max" = 1073741824 ] && pass "--limits: results_bytes $results_max" ||
    fail "--limits: results_bytes '$results_max'"
# every kind's generator takes its limit from the shared module
if grep -q "^OUTPUT_MAX = 1 << 30 " "$src/workunits/wugen/kind.py"; then
    pass "workunits/wugen/kind.py: OUTPUT_MAX is the app's results_bytes"
else
    fail "workunits/wugen/kind.py: OUTPUT_MAX is not 1 << 30 = the app's results_bytes"
fi
if grep -q '^#define MAX_FD_BYTES ((size_t)1 << 30)' "$src/workunits/fdtd/validate.c"; then
    pass "workunits/fdtd/validate.c: MAX_FD_BYTES is the app's results_bytes"
else
    fail "workunits/fdtd/validate.c: MAX_FD_BYTES is not 1 << 30 = the app's results_bytes"
fi
if grep -q '^#define MAX_MO_BYTES ((size_t)1 << 30)' "$src/workunits/mom/validate.c"; then
    pass "workunits/mom/validate.c: MAX_MO_BYTES is the app's results_bytes"
else
    fail "workunits/mom/validate.c: MAX_MO_BYTES is not 1 << 30 = the app's results_bytes"
fi

[ "$fails" = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all passed"
