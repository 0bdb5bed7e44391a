#!/bin/bash
# The OpenCL app on whatever OpenCL device the machine has (PoCL's CPU
# device in CI; a GPU where there is one, or the one ORR_APP_ARGS names,
# e.g. "--platform 1 --device 0"):
#  1. every expected.json case through orrery_opencl at the GPU tolerance
#     (tests/unit/test_cases; its CUnit summary is printed);
#  2. a device without double precision is refused with a clear message
#     and exit 78, permanent for this host (ORR_OPENCL_HIDE_FP64 makes the
#     device hide it);
#  3. a run killed after its first checkpoint and restarted prints the same
#     tags as an uninterrupted run;
#  4. a kernel build that fails prints the compiler's log, naming
#     kernels.cl and the line, and no result: exit 78, permanent;
#  5. `orrery_opencl selftest`: every device spectral case PASS (exit 0, no
#     FAIL, no SKIP line);
#  6. `spectral --op ...` .npy round trips on the device against the same
#     app's CPU kernels (--cpu), with local memory capped so the four-step
#     C2C a GPU takes at N = 4096 runs too (.npy files written by perl; c2r
#     on spectra whose bins 0 and N/2 are not real, the DCTs in each norm);
#  7. a tridiagonal system with a zero pivot refused on the device as on
#     the CPU: exit 65, naming its batch index.
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
if [ $rc -eq 78 ] && grep -q "has no double precision" "$work/nofp64.txt" &&
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
if [ $rc -eq 78 ] && grep -q "OpenCL build log" "$work/buildfail.txt" &&
    grep -q "kernels.cl:[0-9]" "$work/buildfail.txt" &&
    ! grep -q "<search_likelihood>" "$work/buildfail.txt"; then
    echo "PASS: exit $rc, the log names $(grep -m1 -o 'kernels.cl:[0-9]*' "$work/buildfail.txt")"
else
    echo "FAIL: exit $rc; $(tail -3 "$work/buildfail.txt")"
    failed=1
fi
echo "== 5. spectral self-test on the device"
# shellcheck disable=SC2086
"$app" selftest $extra >"$work/selftest.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^on the device" "$work/selftest.txt" &&
    ! grep -q "^FAIL\|^SKIP" "$work/selftest.txt"; then
    echo "PASS: $(tail -1 "$work/selftest.txt")"
else
    echo "FAIL: exit $rc"
    grep -v "^PASS" "$work/selftest.txt"
    failed=1
fi

echo "== 6. .npy round trips, device against CPU"
# write_npy FILE DESCR ROWS COLS VALUES_PER_ITEM: uniform random values
write_npy() {
    perl -e '
        my ($path, $descr, $rows, $cols, $per) = @ARGV;
        my $h = "{\x27descr\x27: \x27$descr\x27, \x27fortran_order\x27: False, \x27shape\x27: ($rows, $cols), }";
        $h .= " " while (10 + length($h) + 1) % 64;
        my $fmt = $descr eq "<c8" || $descr eq "<f4" ? "f<" : "d<";
        open(my $f, ">:raw", $path) or die;
        print $f "\x93NUMPY\x01\x00", pack("v", length($h) + 1), $h, "\n";
        print $f pack($fmt, rand(2) - 1) for 1 .. $rows * $cols * $per;
        close $f;' "$@"
}
# rel_l2 A.npy B.npy FMT: relative L2 difference of two .npy data parts
rel_l2() {
    perl -e '
        sub data { open(my $f, "<:raw", $_[0]) or die; local $/; my $b = <$f>;
                   my $hl = unpack("v", substr($b, 8, 2)); return substr($b, 10 + $hl); }
        my @a = unpack("$ARGV[2]*", data($ARGV[0])); my @b = unpack("$ARGV[2]*", data($ARGV[1]));
        die "sizes differ\n" if @a != @b;
        my ($n, $d) = (0, 0);
        for my $i (0 .. $#a) { $n += ($a[$i] - $b[$i]) ** 2; $d += $b[$i] ** 2; }
        printf "%.3g\n", sqrt($n / ($d || 1));' "$@"
}
round_trip() {   # OP DESCR ROWS COLS PER FMT LIMIT
    local op=$1 descr=$2 rows=$3 cols=$4 per=$5 fmt=$6 limit=$7
    write_npy "$work/in.npy" "$descr" "$rows" "$cols" "$per"
    # shellcheck disable=SC2086
    if ORR_OPENCL_SPECTRAL_LOCAL=32768 "$app" spectral --op $op "$work/in.npy" "$work/dev.npy" \
        $extra 2>"$work/rt.txt" &&
        "$app" spectral --cpu --op $op "$work/in.npy" "$work/cpu.npy" 2>>"$work/rt.txt"; then
        e=$(rel_l2 "$work/dev.npy" "$work/cpu.npy" "$fmt")
        if perl -e "exit !($e <= $limit)"; then
            echo "PASS: $op $descr ($rows, $cols): relative L2 difference $e"
            return
        fi
        echo "FAIL: $op $descr ($rows, $cols): relative L2 difference $e (limit $limit)"
    else
        echo "FAIL: $op $descr ($rows, $cols): $(tail -2 "$work/rt.txt")"
    fi
    failed=1
}
round_trip c2c "<c16" 5 4096 2 "d<" 1e-14
round_trip r2c "<f4" 7 256 1 "f<" 1e-5
round_trip c2r "<c16" 3 513 2 "d<" 1e-14
round_trip dct2 "<f8" 3 1024 1 "d<" 1e-14
round_trip "dct2 --norm ortho" "<f8" 3 64 1 "d<" 1e-14
round_trip "dct3 --norm ortho" "<f4" 3 64 1 "f<" 1e-5
round_trip "dct3 --norm forward" "<f8" 3 256 1 "d<" 1e-14

echo "== 7. a tridiagonal breakdown on the device"
for a in dl d du rhs; do write_npy "$work/$a.npy" "<f8" 4 16 1; done
# d: dominant, with system 2's first pivot 0
perl -e '
    open(my $f, "+<:raw", $ARGV[0]) or die; local $/; my $b = <$f>;
    my $hl = unpack("v", substr($b, 8, 2)); my @v = unpack("d<*", substr($b, 10 + $hl));
    $_ += 3 for @v; $v[2 * 16] = 0;
    seek($f, 10 + $hl, 0); print $f pack("d<*", @v); close $f;' "$work/d.npy"
# shellcheck disable=SC2086
"$app" spectral --op tridiag "$work/dl.npy" "$work/d.npy" "$work/du.npy" "$work/rhs.npy" \
    "$work/x.npy" $extra 2>"$work/tri.txt"
rc=$?
if [ $rc -eq 65 ] && grep -q "error: .*batch index 2 (of 4)" "$work/tri.txt" && [ ! -e "$work/x.npy" ]; then
    echo "PASS: exit 65: $(grep -o 'batch index 2.*pivot at row [0-9]*' "$work/tri.txt")"
else
    echo "FAIL: exit $rc; $(tail -1 "$work/tri.txt")"
    failed=1
fi
exit $failed
