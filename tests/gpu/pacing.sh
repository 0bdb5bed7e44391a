#!/bin/bash
# Responsive-mode pacing of every GPU kind on a GPU machine (issue 42):
# for each GPU app of BUILDDIR (CUDA, OpenCL) and each kind (separation,
# diffraction, fdtd, mom), one work unit that takes seconds on an H100,
# run in the default (responsive, 60 launches a second) mode. Reported:
#  - the longest launch: the longest span from a launch's first queued call
#    to the return of the wait after it, as the app logs it at the end of
#    its run (common/device/pacing.c "longest launch"; the first launch,
#    which carries one-time costs, is logged apart and not counted). It
#    bounds how long one queued batch kept the GPU busy;
#  - the host CPU of the whole run (user + system of the process, bash's
#    `time`) as a share of one core over its wall time;
#  - where nsys is installed (/usr/local/cuda/bin/nsys or on PATH), the
#    longest single kernel of a second, profiled run of the CUDA app
#    (`nsys stats --report cuda_gpu_kern_sum`).
# A row FAILs when the longest launch or kernel exceeds 1/60 s or the CPU
# share is 5% or more; a last row per app FAILs unless diffraction's table
# is the same bytes at 1000 launches a second and with -r. Prints one summary table; exit 0 only if no row
# failed (an app that is not built or has no device is left out, with a
# line saying why).
#
# Usage: tests/gpu/pacing.sh BUILDDIR
# Environment: ORR_DATA (default tests/data/milkyway), ORR_APP_ARGS (extra
# arguments for every run, e.g. "--device 1"), PACING_KINDS ("separation
# diffraction fdtd mom"), PACING_SEP_PARAMS and PACING_SEP_STARS (under
# ORR_DATA: the production stripe 12, params_head/astronomy_parameters-12.txt.gz
# and stars/stars-12.txt.gz), PACING_MOM_CELLS (30000), PACING_FDTD_N (384),
# PACING_FDTD_STEPS (3000), PACING_DIF_ORDERS (63: M = 127 a direction),
# PACING_DIF_THETA, PACING_DIF_PHI (25 and 10 angles: 1000 points),
# PACING_DIF_BATCH (128 points: 13 GB on the device, a whole batch's
# operator product about 25 ms on an H100, so the pacing must cut it),
# PACING_WARMUP (1: run each OpenCL unit once untimed first, so the timed
# run finds its kernels in the driver's cache as a volunteer's every run
# after the first does).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: $0 BUILDDIR}" && pwd)
data=$(readlink -f "${ORR_DATA:-$here/../data/milkyway}")
kinds=${PACING_KINDS:-separation diffraction fdtd mom}
extra=${ORR_APP_ARGS:-}
limit_ms=16.667   # 1/60 s
cpu_limit=5       # % of one core
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-pacing-XXXXXX")
trap 'rm -rf "$work"' EXIT
nsys=$(command -v nsys || true)
[ -z "$nsys" ] && [ -x /usr/local/cuda/bin/nsys ] && nsys=/usr/local/cuda/bin/nsys

# ---- the work units ----

dif_unit() { # 2D contact holes, M x M orders, 32 slices, 4 x 25 x 10 points
    local m=${PACING_DIF_ORDERS:-63}
    cat <<X
orrery-diffraction 1
period 400 400
orders $m $m
superstrate air
substrate si
material air eps 1 0
material resist nk 1.6 0.02
material si eps 15.1 0.15
layer thickness=150 background=resist slices=32
shape ellipse material=air x=0 y=0 rx=90 ry=90
wavelength_range 450 650 4
theta ${PACING_DIF_THETA:-$(seq -s ' ' 0 2 48)}
phi ${PACING_DIF_PHI:-$(seq -s ' ' 0 5 45)}
X
}

fdtd_unit() { # a PEC cube, a pulse at the centre (bench/fdtd's)
    local n=${PACING_FDTD_N:-384}
    cat <<X
orrery-fdtd 1
grid $n $n $n
cell 1e-3 1e-3 1e-3
steps ${PACING_FDTD_STEPS:-3000}
boundary pec
source waveform=gauss width=10
precision double
X
}

mom_unit() { # a circle of ka = 4.5 (bench/mom's), the reference solver
    printf 'orrery-mom 1\ncircle radius=0.716197243913529\ncells %s\nincidence 0 45 90\necho from=0 to=180 step=10\nsolver reference\n' \
        "${PACING_MOM_CELLS:-30000}"
}

zcat "$data/${PACING_SEP_PARAMS:-params_head/astronomy_parameters-12.txt.gz}" >"$work/sep.txt" || exit 1
dif_unit >"$work/dif.txt"
fdtd_unit >"$work/fdtd.txt"
mom_unit >"$work/mom.txt"

args_of() { # the app's arguments for kind $1, run in $work
    case $1 in
    separation) echo "-i -c --no-progress -a $work/sep.txt -s $data/${PACING_SEP_STARS:-stars/stars-12.txt.gz}" ;;
    diffraction) echo "diffraction -w $work/dif.txt --batch ${PACING_DIF_BATCH:-128} -o $work/out.txt -i -c --no-progress" ;;
    fdtd) echo "fdtd -w $work/fdtd.txt -o $work/out.txt -i -c --no-progress" ;;
    mom) echo "mom -w $work/mom.txt -o $work/out.txt -i -c --no-progress" ;;
    esac
}

# ---- one row ----

# The largest "longest launch N ms" of the app's log lines (several pacers
# in one run: the largest counts), and the largest share of a core the
# host spent inside launches (the cost of driving the GPU alone).
longest_launch() { sed -n 's/.*longest launch \([0-9.]*\) ms.*/\1/p' "$1" | sort -g | tail -1; }
driving_cpu() { sed -n 's/.*longest launch.*(\([0-9.]*\)% of a core).*/\1/p' "$1" | sort -g | tail -1; }

# The longest kernel (ms) and its name from nsys's kernel summary (csv:
# Time (%), Total Time, Instances, Avg, Med, Min, Max (ns), StdDev, Name).
nsys_longest() { # nsys_longest APP ARGS...
    rm -f "$work/prof.nsys-rep" "$work/prof.sqlite"
    # shellcheck disable=SC2068
    (cd "$work" && "$nsys" profile --trace=cuda --force-overwrite=true -o "$work/prof" $@ \
        >/dev/null 2>"$work/nsys.err") || { echo "- nsys-failed"; return; }
    "$nsys" stats --report cuda_gpu_kern_sum --format csv --force-export=true \
        "$work/prof.nsys-rep" 2>/dev/null |
        awk -F, '/^"?[0-9]/ { gsub(/"/, ""); max = $7 + 0; name = $9
                              if (max > best) { best = max; bname = name } }
                 END { if (best > 0) printf "%.3f %s\n", best / 1e6, substr(bname, 1, 40)
                       else print "- none" }'
}

rows=()
failed=0
format='%-7s %-12s %10s %7s %9s %10s %-24s %s'
row() { # row APP_LABEL KIND LAUNCH_MS CPU_PCT DRIVING_PCT KERNEL_MS KERNEL_NAME VERDICT
    # shellcheck disable=SC2059
    rows+=("$(printf "$format" "$@")")
}

run_kind() { # run_kind APP LABEL KIND
    local app=$1 label=$2 kind=$3 args
    args=$(args_of "$kind")
    if [ "$label" = OpenCL ] && [ "${PACING_WARMUP:-1}" = 1 ]; then
        # shellcheck disable=SC2086
        (cd "$work" && "$app" $args $extra >/dev/null 2>&1)
    fi
    local times rc
    TIMEFORMAT='%R %U %S'
    # shellcheck disable=SC2086
    times=$( { time (cd "$work" && "$app" $args $extra >/dev/null 2>"$work/err.txt"); } 2>&1)
    rc=$?
    cp "$work/err.txt" "$work/$label.$kind.log"
    if [ $rc -ne 0 ]; then
        row "$label" "$kind" - - - - - "FAIL (exit $rc: $(tail -1 "$work/err.txt" | cut -c1-60))"
        failed=1
        return
    fi
    local launch cpu driving verdict=PASS kernel=- kname=-
    launch=$(longest_launch "$work/err.txt")
    driving=$(driving_cpu "$work/err.txt")
    cpu=$(echo "$times" | tail -1 | awk '{ printf "%.2f", ($1 > 0 ? 100 * ($2 + $3) / $1 : 0) }')
    if [ -n "$nsys" ] && [ "$label" = CUDA ]; then
        # shellcheck disable=SC2086
        read -r kernel kname <<<"$(nsys_longest "$app" $args $extra)"
    fi
    [ -z "$launch" ] && { launch=-; verdict="FAIL (no pacing line in the log)"; }
    awk -v l="$launch" -v k="$kernel" -v c="$cpu" -v lim="$limit_ms" -v cl="$cpu_limit" 'BEGIN {
        exit !((l != "-" && l + 0 > lim) || (k != "-" && k + 0 > lim) || c + 0 >= cl) }' &&
        verdict=FAIL
    [ "$verdict" = PASS ] || failed=1
    row "$label" "$kind" "$launch" "$cpu" "${driving:--}" "$kernel" "$kname" "$verdict"
    echo "  $label $kind: $(echo "$times" | tail -1 | awk '{ print $1 " s wall, " $2 + $3 " s CPU" }');" \
        "$(grep -h 'longest launch' "$work/err.txt" | sed 's/^[^:]*: //' | head -3 | tr '\n' ' ')"
}

gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
# Diffraction's tables are the same bytes however the pacing cuts the
# products: 1000 launches a second (one point a launch, nearly) against -r
# (one launch a product), on a unit of tests/data.
same_bits() { # same_bits APP LABEL
    local app=$1 label=$2 wu=$here/../data/diffraction/holes_2d.txt verdict=PASS
    # shellcheck disable=SC2086
    (cd "$work" && "$app" diffraction -w "$wu" -o q1000.txt -i -c -q 1000 $extra 2>/dev/null &&
        "$app" diffraction -w "$wu" -o whole.txt -i -c -r $extra 2>/dev/null &&
        cmp -s q1000.txt whole.txt) || { verdict="FAIL (tables differ or a run failed)"; failed=1; }
    row "$label" "dif. bits" - - - - "-q 1000 vs -r, holes_2d" "$verdict"
}

echo "pacing check, $(date -u +%Y-%m-%d), GPU: ${gpu:-unknown}," \
    "nsys: ${nsys:-not found}; limits: launch and kernel <= $limit_ms ms, host CPU < $cpu_limit% of a core"
for pair in "CUDA:app_cuda/orrery_cuda" "OpenCL:app_opencl/orrery_opencl"; do
    label=${pair%%:*}
    app=$build/${pair#*:}
    if [ ! -x "$app" ]; then
        echo "$label: $app not built: left out"
        continue
    fi
    # shellcheck disable=SC2086
    if ! (cd "$work" && "$app" fdtd -w "$here/../data/fdtd/cavity_pec.txt" -o probe.txt -i -c \
          $extra >/dev/null 2>probe.err); then
        echo "$label: no usable device, left out: $(tail -1 "$work/probe.err")"
        continue
    fi
    for kind in $kinds; do
        run_kind "$app" "$label" "$kind"
    done
    same_bits "$app" "$label"
done

echo
# shellcheck disable=SC2059
printf "$format\n" app kind "launch ms" "CPU %" "drive %" "kernel ms" kernel verdict
for r in "${rows[@]}"; do
    echo "$r"
done
[ ${#rows[@]} -gt 0 ] || { echo "FAIL: no GPU app was run"; exit 1; }
[ $failed = 0 ] && echo "PASS: every row within the limits" || echo "FAIL: a row above exceeds a limit"
exit $failed
