#!/bin/bash
# What orrery-validate's refusals put in script_validator's log. BOINC
# server 1.6.2's script_validator (sched/script_validator.cpp) runs
# "../bin/orrery-validate-init FILES" and "../bin/orrery-validate-compare
# FILES1 FILES2" through system() from PROJECT/tmp_HOST/, so the scripts
# inherit the daemon's stdout and stderr, which bin/start points at
# log_HOST/script_validator.log (its <output>); it logs only the exit
# status itself. This test runs the scripts the same way (sh -c from
# tmp_HOST/, both streams appended to one log) on every kind's results
# (the CPU app's own) and checks that each refusal adds exactly one line
# that names the script, the file and the reason, and compare's also the
# other file, the quantity, both values and the tolerance; an accepted
# result adds nothing.
# Environment: ORR_APP (the CPU app; its build tree has orrery-validate).
# Prints PASS or FAIL per check; exit 1 if any failed.
# shellcheck disable=SC2016
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
validate=$(cd "$(dirname "$app")/.." && pwd)/workunits/orrery-validate
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-validate-log-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
proj=$work/project
mkdir -p "$proj/bin" "$proj/tmp_host" "$proj/log_host" "$proj/upload"
ln -s "$validate" "$proj/bin/orrery-validate-init"
ln -s "$validate" "$proj/bin/orrery-validate-compare"
log=$proj/log_host/script_validator.log
: >"$log"

# daemon SCRIPT WANT_EXIT PATTERN FILE...: SCRIPT run as script_validator
# runs it; its exit status, and the lines it added to the log: none on
# exit 0, else one matching PATTERN (grep -E)
daemon() {
    local script=$1 want=$2 pattern=$3
    shift 3
    local before rc added
    before=$(wc -l <"$log" 2>/dev/null || echo 0)
    (cd "$proj/tmp_host" && sh -c "../bin/$script $*") >>"$log" 2>&1
    rc=$?
    added=$(tail -n +"$((before + 1))" "$log")
    if [ "$rc" != "$want" ]; then
        fail "$script $*: exit $rc, want $want: $added"
    elif [ "$want" = 0 ] && [ -n "$added" ]; then
        fail "$script $*: accepted, but wrote to the log: $added"
    elif [ "$want" != 0 ] && [ "$(printf '%s\n' "$added" | wc -l)" != 1 ]; then
        fail "$script $*: $(printf '%s\n' "$added" | wc -l) lines in the log, want 1: $added"
    elif [ "$want" != 0 ] && ! printf '%s\n' "$added" | grep -qE "$pattern"; then
        fail "$script $*: the log line does not say it: $added"
    else
        pass "$script: exit $rc ${added:-(nothing logged)}"
    fi
}
# results RUN_DIR ARGS...: the CPU app run in a folder of upload/
results() {
    local d=$proj/upload/$1
    shift
    mkdir -p "$d" && (cd "$d" && "$app" "$@" -i -c >/dev/null 2>err) ||
        fail "the app in $d: $(tail -1 "$d/err")"
}
up=$proj/upload
# 1. separation: a result as the app writes its tags
printf '<%s> %s </%s>\n' background_integral 0.0003 background_integral stream_integral 34.1 \
    stream_integral background_likelihood -3.3 background_likelihood stream_only_likelihood \
    -160.7 stream_only_likelihood search_likelihood -3.1 search_likelihood >"$up/sep_a.txt"
sed 's/> -3.1 </> -3.2 </' "$up/sep_a.txt" >"$up/sep_b.txt"
grep -v background_likelihood "$up/sep_a.txt" >"$up/sep_c.txt"
daemon orrery-validate-init 0 "" "$up/sep_a.txt"
daemon orrery-validate-init 1 "^orrery-validate-init: $up/sep_c.txt: member 0: <background_likelihood> missing$" \
    "$up/sep_c.txt"
daemon orrery-validate-compare 1 \
    "^orrery-validate-compare: $up/sep_a.txt against $up/sep_b.txt: member 0: <search_likelihood> -3.1[0-9]* and -3.2[0-9]* differ by .* \(likelihood_tolerance 1e-11\)$" \
    "$up/sep_a.txt" "$up/sep_b.txt"
# 2. diffraction
results dif diffraction -w "$top/tests/data/diffraction/film.txt" -o r.txt
dif=$up/dif/r.txt
awk -v CONVFMT=%.17g '/^point 0 / { $9 = $9 * 1.01 } { print }' "$dif" >"$up/dif_b.txt"
head -n 5 "$dif" >"$up/dif_cut.txt"
daemon orrery-validate-init 0 "" "$dif"
daemon orrery-validate-init 1 "^orrery-validate-init: $up/dif_cut.txt(:[0-9]+)?: .+" "$up/dif_cut.txt"
daemon orrery-validate-compare 1 "^orrery-validate-compare: $dif against $up/dif_b.txt: point 0: .* and .* differ by .* \((r00|efficiency)_tolerance .*\)$" \
    "$dif" "$up/dif_b.txt"
# 3. fdtd (faithful: compared exactly)
results fdtd fdtd -w "$top/tests/data/fdtd/table_source.txt" -o r.txt
fd=$up/fdtd/r.txt
awk '/^series 150 / { $3 = $3 "1" } { print }' "$fd" >"$up/fdtd_b.txt"
sed 's/^norm ey .*/norm ey x y/' "$fd" >"$up/fdtd_bad.txt"
daemon orrery-validate-init 0 "" "$fd"
daemon orrery-validate-init 1 "^orrery-validate-init: $up/fdtd_bad.txt:[0-9]+: a malformed 'norm' line" "$up/fdtd_bad.txt"
daemon orrery-validate-compare 1 \
    "^orrery-validate-compare: $fd against $up/fdtd_b.txt: $fd:[0-9]+ and $up/fdtd_b.txt:[0-9]+: probe 0 at step 150: .* and .*1 \(faithful double: .*compared exactly\)$" \
    "$fd" "$up/fdtd_b.txt"
# 4. mom, with its currents (script_validator passes a result's files in
# the output template's order: the table, then the .npy)
cp "$top/tests/data/mom/circle_mom.txt" "$work/mom_wu.txt"
results mom mom -w "$work/mom_wu.txt" -o r.txt --npy c.npy
mo=$up/mom/r.txt
awk -v CONVFMT=%.17g '/^echo / && !done { $4 = $4 * 1.001; $5 = 10 * log($4) / log(10); done = 1 } { print }' \
    "$mo" >"$up/mom_b.txt"
head -c 500 "$up/mom/c.npy" >"$up/mom_cut.npy"
daemon orrery-validate-init 0 "" "$mo" "$up/mom/c.npy"
daemon orrery-validate-init 1 "^orrery-validate-init: $up/mom_cut.npy: data truncated" "$mo" "$up/mom_cut.npy"
daemon orrery-validate-init 1 "^orrery-validate-init: $up/none.npy: missing, though $mo has 'current every 2'" \
    "$mo" "$up/none.npy"
daemon orrery-validate-compare 1 \
    "^orrery-validate-compare: $mo against $up/mom_b.txt: echo at incidence 0, angle 0: sigma/lambda [0-9.e+-]+ and [0-9.e+-]+ differ by .* \(echo_sigma_tolerance 1e-06, double precision" \
    "$mo" "$up/mom/c.npy" "$up/mom_b.txt" "$up/mom/c.npy"
# 5. could not judge: logged too, with the file (script_validator retries)
daemon orrery-validate-init 3 "^orrery-validate-init: $up/gone.txt: cannot open: .* \(transient: script_validator retries\)$" \
    "$up/gone.txt"
grep -q . "$log" && ! grep -qv '^orrery-validate-\(init\|compare\): ' "$log" &&
    pass "every line of the log is one of the scripts', named" || fail "other lines in the log: $(grep -v '^orrery-validate' "$log" | head -3)"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
