#!/bin/bash
# Hostile separation work units (issue 25): files crafted to overflow the
# grid's sizes, to exhaust memory or time, to make an integral vanish, and
# checkpoints with a valid CRC but out-of-range contents. Each must be
# refused with its documented exit code and one line saying why, and no
# result tag may be printed with exit 0 that was not really computed
# (docs/separation.md sections 3, 5, 6, 10 and 11).
#
#   chunk-overflow.txt     nu x ceil(mu/16) = 2.5e9 chunks: once int
#                          overflow, zero integrals and exit 0
#   cut-is-wedge.txt       a cut identical to the wedge: integral 0, once nan
#   tables-16-areas.txt    16 areas each under the old per-area limit,
#                          3.7e10 bytes of tables together
#   cells-16-areas.txt     16 areas of 1e11 cells: 1.6e12, months of CPU
#   flops-bundle-v146.txt  within the cell limit, but 11 bundle members of it
#   stars-3.txt            three stars of stripe 11, to keep the runs short
#   (and on the command line: search values inf and nan)
#   forge_checkpoint.py    rewrites checkpoint fields and recomputes the CRC
#
# Environment: ORR_APP (the CPU app), ORR_DATA (tests/data/milkyway).
# The checkpoint part needs python3 (skipped without it).
set -u
here=$(cd "$(dirname "$0")/../data/hostile_sep" && pwd)
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
data=$(readlink -f "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}")
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-hostile-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0

# expect CODE TEXT ARGS...: the app exits with CODE, says TEXT, prints no result.
expect() {
    local code=$1 text=$2
    shift 2
    "$app" -i -c --no-progress "$@" >out.txt 2>err.txt
    local rc=$?
    if [ "$rc" = "$code" ] && grep -qF -- "$text" err.txt && ! grep -q '^<search_likelihood' err.txt; then
        echo "PASS: exit $rc: $(grep -F -- "$text" err.txt | head -1)"
    else
        echo "FAIL: $*: exit $rc (want $code and '$text'): $(tail -1 err.txt)"
        failed=1
    fi
}

small11="$data/params_head/astronomy_parameters-11-small.txt.gz"
stars3="$here/stars-3.txt"
v=(0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579
   -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238
   10.882892 1.210639 -1.611974 8.534378)
member=(1.0 0.837794349 -9.345328 73.3208318632 6.4612024643 4.0055150777 1.9170502751
        3.2658063374)
bundle=()
for _ in $(seq 11); do bundle+=("${member[@]}"); done

# ---- sizes: refused when the file is read, exit 65 ----
expect 65 "chunk-overflow.txt:46: key 'nu': area 0: 4000 mu x 10000000 nu steps make 2500000000 chunks" \
    -a "$here/chunk-overflow.txt" -s "$stars3" -np 20 -p "${v[@]}"
expect 65 "the grid's tables need 3.72e+10 bytes (16 areas, convolve 120), more than the limit" \
    -a "$here/tables-16-areas.txt" -s "$stars3" -np 20 -p "${v[@]}"
expect 65 "the work unit has 1.6e+12 grid cells (16 areas), more than the limit" \
    -a "$here/cells-16-areas.txt" -s "$stars3" -np 20 -p "${v[@]}"
expect 65 "model flops (11 bundle members of 4.67e+14), more than the limit" \
    -a "$here/flops-bundle-v146.txt" -s "$stars3" -np 88 -p "${bundle[@]}"
# --check judges (and would print) the same numbers
expect 65 "the work unit has 1.6e+12 grid cells" --check \
    -a "$here/cells-16-areas.txt" -s "$stars3" -np 20 -p "${v[@]}"

# ---- search values that are not finite numbers: exit 65, by position ----
for bad in inf -Infinity nan NAN; do
    nonfinite=("${v[@]}")
    nonfinite[5]=$bad
    expect 65 "-p: search value 6 is '$bad', not a finite number" \
        -a "$small11" -s "$stars3" -np 20 -p "${nonfinite[@]}"
done
# refused before the files are read: the missing one is not what it says
expect 65 "-p: search value 20 is 'nan', not a finite number" \
    -a "$work/missing.txt" -s "$stars3" -np 20 -p "${v[@]:0:19}" nan

# ---- results that cannot be computed: exit 70, no tags ----
expect 70 "the background integral (wedge minus cuts) is 0, not a positive number" \
    -a "$here/cut-is-wedge.txt" -s "$stars3" -np 20 -p "${v[@]}"
sigma=("${v[@]}")
sigma[7]=0.00001   # stream 1's sigma <= 1e-4: its integral is 0 by convention
expect 70 "the stream-only likelihood of stream 1 is not finite" \
    -a "$small11" -s "$stars3" -np 20 -p "${sigma[@]}"
weight=("${v[@]}")
weight[2]=1000     # exp(1000) overflows
expect 70 "the background-only likelihood is not finite" \
    -a "$small11" -s "$stars3" -np 20 -p "${weight[@]}"

# ---- checkpoints with a valid CRC that do not fit: ignored, run from zero ----
if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: forged checkpoints (no python3)"
else
    p86="$data/params_head/astronomy_parameters-86-small.txt.gz"   # a wedge of 640 chunks, a cut of 120
    s86="$stars3"
    "$app" --no-progress -a "$p86" -s "$s86" 2>ref.txt || { echo "FAIL: reference run"; exit 1; }
    cp separation_checkpoint finished
    # "FIELDS|reason": on top of member 0, area 0, the wedge done, nothing reported
    for forge in "next1=-5000000|area 1 has sums but is not integrated yet" \
        "next1=500|area 1 has sums but is not integrated yet" \
        "area=1 next1=121|area 1 is at chunk 121, outside 0..120" \
        "area=1 next0=100 next1=3|area 0 is at chunk 100 of 640, but a later area" \
        "next0=7 bg0=nan|area 0's sums are not those of 7 chunks" \
        "members=2|2 bundle members, the work unit has 1" \
        "printed=5|reported flag 5 is neither 0 nor 1" \
        "member=7|bundle member 7 is outside 0..1" \
        "next0=640|bundle member 0 has results but is not integrated yet"; do
        fields=${forge%%|*} reason=${forge#*|}
        cp finished separation_checkpoint
        # shellcheck disable=SC2086
        python3 "$here/forge_checkpoint.py" separation_checkpoint member=0 area=0 printed=0 next0=640 $fields
        "$app" --no-progress -a "$p86" -s "$s86" 2>out.txt
        rc=$?
        if [ "$rc" = 0 ] && grep -qF "checkpoint ignored, starting from zero: separation_checkpoint: does not fit this work unit: $reason" out.txt &&
            diff <(grep '^<' ref.txt) <(grep '^<' out.txt) >/dev/null; then
            echo "PASS: forged checkpoint ($fields): ignored, same tags"
        else
            echo "FAIL: forged checkpoint ($fields): exit $rc: $(grep -v '^<' out.txt | tail -2 | tr '\n' ' ')"
            failed=1
        fi
    done
fi
exit $failed
