#!/bin/bash
# The project admins' tools (workunits/, server_templates/):
#  1. orrery-wugen output round-trips: the generated work unit (its files
#     under the template's open names, its command line) run by the CPU app
#     gives expected.json's values, also for a v146 bundle of two vectors;
#  2. a bad vector stops the generator with the app's message, nothing
#     written;
#  3. the flop model against the documented example (stripe 9, 2 streams,
#     95 436 stars: 2.96e13) and rsc_fpops_est = 1.7 integral + likelihood;
#  4. orrery-stars: subsampling is reproducible, cutting keeps a stripe's
#     own stars;
#  5. the templates are well-formed XML with the required elements, and
#     "<result>" ends its line;
#  6. orrery-validate: equal, slightly different, too different, truncated,
#     NaN, missing-member results (exit 1) and missing or unreadable files,
#     bad usage and bad configuration files (exit 3, retry); the script
#     names and orrery-validate.conf in a project's bin/;
#  7. make boinc-apps' layout (tools/stage-apps.sh).
# Environment: ORR_APP (the CPU app), ORR_DATA, ORR_WUGEN, ORR_STARS_TOOL,
# ORR_VALIDATE (default: the build tree's workunits/).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
data=$(readlink -f "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}")
builddir=$(cd "$(dirname "$app")/.." && pwd)
wugen=${ORR_WUGEN:-$top/workunits/orrery-wugen}
starstool=${ORR_STARS_TOOL:-$builddir/workunits/orrery-stars}
validate=${ORR_VALIDATE:-$builddir/workunits/orrery-validate}
templates=$top/server_templates
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-admin-XXXXXX")
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

expected() { # case tag [member]: the published value
    awk -v c="$1" -v t="$2" -v k="expect${3:-}" '
        $1 == "case" { inside = ($2 == c) } inside && $1 == k && $2 == t { print $3; exit }' \
        "$data/cases.txt"
}
case_vector() { # case: the values after -p
    awk -v c="$1" '$1 == "case" { inside = ($2 == c) }
        inside && $1 == "command" { sub(/.* -p /, ""); print; exit }' "$data/cases.txt"
}
close_to() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }'; }

# Runs work unit NAME_i of folder DIR as a client would: the files under
# the input template's open names, the command line of its jobs line.
run_wu() { # dir jobs_file line_number rundir
    local dir=$1 jobs=$2 n=$3 run=$4 line cmd files
    line=$(sed -n "${n}p" "$dir/$jobs")
    cmd=$(echo "$line" | sed 's/.*--command_line "\([^"]*\)".*/\1/')
    read -r -a files <<<"$(echo "$line" | sed 's/.*" //')"
    mapfile -t opens < <(sed -n 's:.*<open_name>\(.*\)</open_name>.*:\1:p' "$templates/separation_in")
    mkdir -p "$run"
    for i in "${!files[@]}"; do cp "$dir/${files[$i]}" "$run/${opens[$i]}"; done
    # shellcheck disable=SC2086
    (cd "$run" && "$app" --nthreads 2 $cmd >/dev/null 2>stderr.txt)
}

echo "== 1. generated work units round-trip"
v=$(case_vector small11)
if "$wugen" --checker "$app" -a "$data/params_head/astronomy_parameters-11-small.txt.gz" \
    -s "$data/stars/stars-11.txt.gz" -p "$v" -n rt -o "$work/rt" >"$work/rt.log" 2>&1 &&
    run_wu "$work/rt" jobs_1.txt 1 "$work/rt/run"; then
    got=$(sed -n 's:<search_likelihood> *\([^ <]*\).*:\1:p' "$work/rt/run/results.txt")
    want=$(expected small11 search_likelihood)
    if close_to "$got" "$want" 1e-12; then pass "classic: search likelihood $got (published $want)"
    else fail "classic: $got, published $want"; fi
else
    fail "classic work unit: $(tail -2 "$work/rt.log") $(tail -2 "$work/rt/run/stderr.txt" 2>/dev/null)"
fi
# v146, two vectors bundled into one work unit
read -r -a both <<<"$(case_vector h_small11_bundle2)"
first="${both[*]:0:20}" second="${both[*]:20:20}"
if "$wugen" --checker "$app" -a "$data/params_v146/astronomy_parameters-11-small-v146.txt.gz" \
    -s "$data/stars/stars-11.txt.gz" -p "$first" -p "$second" -k 2 -n b2 -o "$work/b2" \
    >"$work/b2.log" 2>&1 && [ "$(wc -l <"$work/b2/jobs_2.txt")" -eq 1 ] &&
    run_wu "$work/b2" jobs_2.txt 1 "$work/b2/run"; then
    ok=1
    for k in "" 1; do
        got=$(sed -n "s:<search_likelihood$k> *\([^ <]*\).*:\1:p" "$work/b2/run/results.txt")
        want=$(expected h_small11_bundle2 search_likelihood "$k")
        close_to "$got" "$want" 1e-12 || { ok=0; fail "bundle member ${k:-0}: $got, published $want"; }
    done
    [ $ok = 1 ] && pass "v146 bundle of 2 in one work unit (-np 40): both members as published"
else
    fail "v146 bundle: $(tail -2 "$work/b2.log")"
fi

echo "== 2. a bad vector"
if "$wugen" --checker "$app" -a "$data/params_head/astronomy_parameters-11-small.txt.gz" \
    -s "$data/stars/stars-11.txt.gz" -p "$v" -p "$v 1.5" -n bad -o "$work/bad" >"$work/bad.log" 2>&1; then
    fail "a 21-value vector was accepted"
elif [ -e "$work/bad" ]; then
    fail "the generator wrote $work/bad after refusing"
elif grep -q "work unit 1 (vectors -p#2): number of parameters doesn't match" "$work/bad.log"; then
    pass "refused, nothing written: $(tail -1 "$work/bad.log")"
else
    fail "unexpected message: $(tail -1 "$work/bad.log")"
fi

echo "== 3. the flop model"
# Stripe 9's production grid (the stripe 12 file: 1600 x 640 x 1400,
# convolve 120) with 2 streams, and 95 436 stars.
zcat "$data/params_head/astronomy_parameters-12.txt.gz" | awk '
    /^number_streams:/ { print "number_streams: 2, 5"; next }
    /^wedge:/ { print "wedge: 9"; next }
    /^stream_weight:/ { n++ }
    /^convolve:/ { n = 0 }
    n < 3 { print }' >"$work/s9.txt"
"$starstool" subsample 95436 9 "$data/stars/stars-12.txt.gz" "$work/s9stars.txt" 2>/dev/null
v2="0.5 12.0 -2.0 180.0 22.0 0.4 -0.4 1.0 -1.4 190.0 24.0 1.2 -1.6 8.5"
if "$wugen" --checker "$app" -a "$work/s9.txt" -s "$work/s9stars.txt" -p "$v2" -n s9 -o "$work/s9" \
    >"$work/s9.log" 2>&1; then
    model=$(sed -n 's/.*model flops \([^,]*\),.*/\1/p' "$work/s9/summary.txt")
    est=$(sed -n 's/.*rsc_fpops_est \([^ ]*\) each.*/\1/p' "$work/s9/summary.txt")
    # by hand: f = 14 * 6.4 * 16 = 1433.6; integral = f (4 + 4 + 120 * 172) 1e6;
    # likelihood = 95436 (120 * 216 + 251 + 24 + 54)
    want_est=$(awk 'BEGIN { i = 1433.6 * 20648e6; l = 95436 * 26249; printf "%.3e", 1.7 * i + l }')
    if [ "$(printf '%.2e' "$model")" = 2.96e+13 ] && [ "$est" = "$want_est" ]; then
        pass "stripe 9, 2 streams, 95 436 stars: model $model flops (documented 2.96e13), rsc_fpops_est $est"
    else
        fail "model $model (want 2.96e13), rsc_fpops_est $est (want $want_est)"
    fi
    grep -q -- "--rsc_fpops_bound" "$work/s9/submit.sh" && grep -q -- "--rsc_memory_bound" "$work/s9/submit.sh" &&
        grep -q -- "--rsc_disk_bound" "$work/s9/submit.sh" && pass "submit.sh carries fpops, memory and disk bounds" ||
        fail "submit.sh lacks a bound"
    # cleanup.sh: the batch's two files, the batch's name, and a refusal
    # outside a project (the database side runs in tests/server/)
    if [ -x "$work/s9/cleanup.sh" ] && sh -n "$work/s9/cleanup.sh" &&
        grep -q '^files="s9_params.txt s9_stars.txt.gz"$' "$work/s9/cleanup.sh" &&
        grep -q '^batch=s9$' "$work/s9/cleanup.sh" &&
        ! (cd "$work" && sh s9/cleanup.sh 2>/dev/null); then
        pass "cleanup.sh names the batch's two files and refuses outside a project"
    else
        fail "cleanup.sh"
    fi
else
    fail "stripe 9 work unit: $(tail -2 "$work/s9.log")"
fi

echo "== 4. catalogues"
"$starstool" subsample 1000 7 "$data/stars/stars-11.txt.gz" "$work/sub1.txt" 2>/dev/null
"$starstool" subsample 1000 7 "$data/stars/stars-11.txt.gz" "$work/sub2.txt" 2>/dev/null
if cmp -s "$work/sub1.txt" "$work/sub2.txt" && [ "$(head -1 "$work/sub1.txt")" = 1000 ] &&
    [ "$(wc -l <"$work/sub1.txt")" -eq 1001 ]; then
    pass "subsample: 1000 stars, the same for the same seed"
else
    fail "subsample not reproducible or wrong size"
fi
"$starstool" cut "$data/params_head/astronomy_parameters-11-small.txt.gz" "$data/stars/stars-11.txt.gz" \
    "$work/cut.txt" 2>"$work/cut.log"
kept=$(head -1 "$work/cut.txt") all=$(zcat "$data/stars/stars-11.txt.gz" | head -1 | tr -d ' \r')
if [ "$kept" -gt $((all * 95 / 100)) ] && [ "$kept" -le "$all" ]; then
    pass "cut: $(cat "$work/cut.log" | sed 's/orrery-stars: //')"
else
    fail "cut kept $kept of $all stars of stripe 11's own catalogue"
fi

echo "== 5. templates"
xml_ok() { { echo "<t>"; cat "$1"; echo "</t>"; } | xmllint --noout - 2>&1; }
ok=1
for f in separation_in separation_out plan_class_spec.xml; do
    msg=$(xml_ok "$templates/$f") || { ok=0; fail "$f is not well-formed: $msg"; }
done
for e in "<open_name>astronomy_parameters.txt</open_name>" "<open_name>stars.txt</open_name>" \
    "<file_number>0</file_number>" "<file_number>1</file_number>" "<copy_file/>"; do
    grep -qF "$e" "$templates/separation_in" || { ok=0; fail "separation_in lacks $e"; }
done
for e in "<name><OUTFILE_0/></name>" "<generated_locally/>" "<upload_when_present/>" "<max_nbytes>" \
    "<url><UPLOAD_URL/></url>" "<file_name><OUTFILE_0/></file_name>" "<open_name>results.txt</open_name>"; do
    grep -qF "$e" "$templates/separation_out" || { ok=0; fail "separation_out lacks $e"; }
done
grep -qx "<result>" "$templates/separation_out" || { ok=0; fail "separation_out: <result> must end its line"; }
# the batch's shared inputs outlive its first work unit (cleanup.sh deletes them)
[ "$(grep -c '<no_delete/>' "$templates/separation_in")" = 2 ] ||
    { ok=0; fail "separation_in: both inputs need <no_delete/>"; }
# every GPU class requires double precision
awk '/<plan_class>/ { c = ""; gpu = 0; fp64 = 0 }
    /<name>/ { c = $0 } /<gpu_type>/ { gpu = 1 }
    /<double_precision_fp\/>/ || /<min_nvidia_compcap>/ { fp64 = 1 }
    /<\/plan_class>/ { if (gpu && !fp64) { print c; bad = 1 } }
    END { exit bad }' "$templates/plan_class_spec.xml" >"$work/nofp64" ||
    { ok=0; fail "GPU plan classes without a double-precision requirement: $(cat "$work/nofp64")"; }
# BOINC compares major * 100 + minor: 7.5 is 705 (750 would refuse every 7.x card)
bad=$(sed -n 's:.*<\(m[a-z]*_nvidia_compcap\)>\([0-9]*\)<.*:\1 \2:p' "$templates/plan_class_spec.xml" |
    awk '$2 % 100 > 9 || $2 < 100')
[ -z "$bad" ] || { ok=0; fail "compute capabilities not written major * 100 + minor: $bad"; }
for c in cpu mt cuda_fp64 opencl_nvidia_fp64 opencl_amd_fp64 opencl_intel_gpu_fp64 \
    cuda_fp64_cc800 cuda_fp64_cc900 cuda_fp64_cc1000 cuda_mixed opencl_nvidia_mixed \
    opencl_amd_mixed opencl_intel_gpu_mixed; do
    grep -q "<name>$c</name>" "$templates/plan_class_spec.xml" || { ok=0; fail "no plan class $c"; }
done
[ $ok = 1 ] && pass "templates and plan classes well-formed, with the required elements"

echo "== 6. validator"
good="$work/rt/run/results.txt"
if [ -f "$good" ]; then
    sed 's:\(<search_likelihood> *\)\([^ <]*\):\1X\2:' "$good" |
        awk '{ if (match($0, /X[-0-9.e]+/)) { v = substr($0, RSTART + 1, RLENGTH - 1);
               $0 = substr($0, 1, RSTART - 1) sprintf("%.15f", v + 5e-12) substr($0, RSTART + RLENGTH) } print }' \
        >"$work/close.txt"
    awk '/<search_likelihood>/ { sub(/-3\.12/, "-3.13") } { print }' "$good" >"$work/far.txt"
    head -c $(($(wc -c <"$good") / 2)) "$good" >"$work/truncated.txt"
    sed 's:<background_integral> [^<]*<:<background_integral> nan <:' "$good" >"$work/nan.txt"
    b2="$work/b2/run/results.txt"
    grep -v "1>" "$b2" >"$work/missing.txt"
    check() { # expected-exit description command...
        local want=$1 what=$2
        shift 2
        "$@" 2>"$work/why"
        local rc=$?
        if [ $rc -eq "$want" ]; then pass "$what: exit $rc $(head -1 "$work/why")"
        else fail "$what: exit $rc, expected $want $(head -1 "$work/why")"; fi
    }
    check 0 "init, a good result" "$validate" init "$good"
    check 0 "init, a good bundle of two" "$validate" init "$b2"
    check 0 "compare, equal" "$validate" compare "$good" "$good"
    check 0 "compare, 5e-12 apart" "$validate" compare "$good" "$work/close.txt"
    check 1 "compare, 1e-2 apart" "$validate" compare "$good" "$work/far.txt"
    check 1 "compare, 5e-12 apart with --likelihood-tolerance 1e-12" \
        "$validate" --likelihood-tolerance 1e-12 compare "$good" "$work/close.txt"
    check 1 "init, truncated" "$validate" init "$work/truncated.txt"
    check 1 "init, NaN" "$validate" init "$work/nan.txt"
    check 1 "init, a bundle member missing" "$validate" init "$work/missing.txt"
    check 1 "compare, different bundle sizes" "$validate" compare "$good" "$b2"
    says() { # pattern description: the last check's message matches pattern
        if grep -q -- "$1" "$work/why"; then pass "$2"; else fail "$2: $(head -1 "$work/why")"; fi
    }
    # 3: could not judge now (script_validator retries), never invalid
    check 3 "init, no such file" "$validate" init "$work/none.txt"
    says "none.txt: cannot open: No such file or directory (transient" "missing file: strerror, transient"
    check 3 "init, a directory" "$validate" init "$work/rt"
    cp "$good" "$work/unreadable.txt" && chmod 000 "$work/unreadable.txt"
    if [ "$(id -u)" -eq 0 ]; then
        # root reads anything: the validator runs as nobody (setpriv), a
        # copy of it where nobody can reach it
        chmod 755 "$work" && cp "$validate" "$work/validate_copy" && chmod 755 "$work/validate_copy"
        check 3 "init, an unreadable file (as nobody)" \
            setpriv --reuid=65534 --regid=65534 --clear-groups "$work/validate_copy" init "$work/unreadable.txt"
    else
        check 3 "init, an unreadable file" "$validate" init "$work/unreadable.txt"
    fi
    says "unreadable.txt: cannot open: Permission denied (transient" "unreadable file: strerror, transient"
    check 3 "no arguments" "$validate"
    check 3 "compare, one file" "$validate" compare "$good"
    check 3 "compare, two files per result" "$validate" compare "$good" "$good" "$good" "$good"
    check 3 "an unknown option" "$validate" --tolerance 1 init "$good"
    check 3 "a negative tolerance" "$validate" --integral-tolerance -1 init "$good"
    : >"$work/empty.txt"
    check 1 "init, empty file" "$validate" init "$work/empty.txt"
    yes "<search_likelihood> -3 </search_likelihood>" | head -c 17000000 >"$work/huge.txt"
    check 1 "init, over 16 MB" "$validate" init "$work/huge.txt"
    # script_validator's layout: links in the project's bin/ beside their
    # orrery-validate.conf, run as ../bin/NAME from tmp_HOST/.
    proj="$work/project"
    mkdir -p "$proj/bin" "$proj/tmp_host"
    ln -s "$(readlink -f "$validate")" "$proj/bin/orrery-validate-init"
    ln -s "$(readlink -f "$validate")" "$proj/bin/orrery-validate-compare"
    conf() { printf '%s\n' "$@" >"$proj/bin/orrery-validate.conf"; }
    in_tmp() { (cd "$proj/tmp_host" && "$@"); }
    check 0 "../bin/orrery-validate-init, no configuration" in_tmp ../bin/orrery-validate-init "$good"
    check 0 "../bin/orrery-validate-compare, 5e-12 apart, no configuration" \
        in_tmp ../bin/orrery-validate-compare "$good" "$work/close.txt"
    conf "# orrery-validate" "" "likelihood_tolerance = 1e-12   # strict" "integral_tolerance=1e-9"
    check 1 "via the link, 5e-12 apart, likelihood_tolerance = 1e-12 in the conf" \
        in_tmp ../bin/orrery-validate-compare "$good" "$work/close.txt"
    says "likelihood_tolerance 1e-12" "the message names the configured tolerance"
    check 0 "via the link, the command line overrides the conf" \
        in_tmp ../bin/orrery-validate-compare --likelihood-tolerance 1e-11 "$good" "$work/close.txt"
    check 0 "found on PATH: no implicit conf" \
        env PATH="$proj/bin:$PATH" orrery-validate-compare "$good" "$work/close.txt"
    cp "$proj/bin/orrery-validate.conf" "$work/strict.conf"
    conf "likelihood_tolerance = 1e-11"
    check 0 "via the link, 5e-12 apart, likelihood_tolerance = 1e-11 in the conf" \
        in_tmp ../bin/orrery-validate-compare "$good" "$work/close.txt"
    check 1 "--config FILE instead of the conf beside the program" \
        in_tmp ../bin/orrery-validate-compare --config "$work/strict.conf" "$good" "$work/close.txt"
    check 3 "--config, no such file" "$validate" --config "$work/none.conf" init "$good"
    conf "likelihood_tolerance = 1e-11" "likelihood_tol = 1e-11"
    check 3 "conf, an unknown key" in_tmp ../bin/orrery-validate-init "$good"
    says "bin/orrery-validate.conf:2: likelihood_tol: unknown key" "the message names file:line and key"
    conf "integral_tolerance = nan"
    check 3 "conf, a bad value" in_tmp ../bin/orrery-validate-compare "$good" "$good"
    conf "integral_tolerance = 1e-9" "integral_tolerance = 1e-8"
    check 3 "conf, a repeated key" in_tmp ../bin/orrery-validate-compare "$good" "$good"
    conf "likelihood_tolerance 1e-11"
    check 3 "conf, no '='" in_tmp ../bin/orrery-validate-compare "$good" "$good"
else
    fail "validator: no result from part 1 to work on"
fi

echo "== 7. make boinc-apps"
if sh "$top/tools/stage-apps.sh" "$work/apps" 0.01 x86_64-pc-linux-gnu 7.20.5 "$builddir" \
    >"$work/stage.log" 2>&1 && [ -f "$work/apps/separation/0.01/x86_64-pc-linux-gnu__mt/version.xml" ] &&
    xmllint --noout "$work/apps/separation/0.01/x86_64-pc-linux-gnu__mt/version.xml" &&
    grep -q "<api_version>7.20.5</api_version>" "$work/apps/separation/0.01/x86_64-pc-linux-gnu__mt/version.xml" &&
    xmllint --noout "$work/apps/anonymous_platform/app_info.xml"; then
    pass "apps/separation/0.01/: $(find "$work/apps/separation" -name version.xml | wc -l) app versions, and app_info.xml"
else
    fail "staging: $(tail -3 "$work/stage.log")"
fi

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
