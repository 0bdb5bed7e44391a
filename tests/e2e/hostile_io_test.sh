#!/bin/bash
# Hostile files through the real CPU app (issue 25, defects 4 to 6):
#  1. a FIFO, a directory or a device given as an input (parameter file,
#     star file, spectral .npy) is refused at once naming the file, exit 66
#     (cannot open input file), never a hang;
#  2. .npy headers that lie: a 200-byte file claiming a 10 GB array is
#     refused quickly without allocating (it must pass under ulimit -v 1 GB),
#     a shape whose element count or dimension overflows, truncated data
#     and trailing bytes are refused, exit 65 (malformed input);
#  3. outputs are written to a temporary name and renamed: a symlink planted
#     at the checkpoint's temporary name (separation_checkpoint.tmp) or at a
#     spectral output's (OUT.npy.partial) is replaced, its target untouched,
#     and the output is whole; a FIFO or directory as the output is refused
#     (exit 74) and left as it was, as is a write that fails (strerror in
#     the message, no file left); a FIFO at the checkpoint's own name does
#     not hang the run.
# Every run is bounded by `timeout 10`: a check that times out (124) fails.
# Environment: ORR_APP (the CPU app), ORR_DATA (tests/data/milkyway).
set -u
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
data=$(readlink -f "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}")
command -v mkfifo >/dev/null 2>&1 && command -v timeout >/dev/null 2>&1 ||
    { echo "SKIP: needs mkfifo and timeout"; exit 77; }
work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-hostile-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

params="$data/params_head/astronomy_parameters-11-small.txt.gz"
stars="$data/stars/stars-11.txt.gz"
sep=(--nthreads 2 --no-progress)

check() { # expected-exit label command...: under timeout 10, stderr in $work/why
    local want=$1 what=$2 start why
    shift 2
    start=$(date +%s%N)
    timeout 10 "$@" >/dev/null 2>"$work/why"
    rc=$?
    elapsed_ms=$((($(date +%s%N) - start) / 1000000))
    why=$(grep -v -e '^CPU backend' -e '^separation:' "$work/why" | head -1)
    if [ $rc -eq 124 ]; then fail "$what: hung (killed after 10 s)"
    elif [ $rc -eq "$want" ]; then pass "$what: exit $rc $why"
    else fail "$what: exit $rc, expected $want $why"; fi
}
says() { # pattern label: the last check's message contains pattern
    if grep -qF -- "$1" "$work/why"; then pass "$2"; else fail "$2: $(tail -1 "$work/why")"; fi
}

# npy DESCR SHAPE: a .npy 1.0 header as numpy writes it (the dict padded
# with blanks to a multiple of 64 bytes, ending in a newline), no data.
npy() {
    local dict="{'descr': '$1', 'fortran_order': False, 'shape': $2, }"
    local hlen=$(((10 + ${#dict} + 1 + 63) / 64 * 64 - 10))
    printf '\223NUMPY\001\000'
    printf "\\$(printf %03o $((hlen % 256)))\\$(printf %03o $((hlen / 256)))"
    printf '%-*s\n' $((hlen - 1)) "$dict"
}
zeros() { head -c "$1" /dev/zero; }

{ npy '<f8' '(8,)'; zeros 64; } >good.npy
mkfifo fifo
mkdir folder

echo "== 1. non-regular files as inputs"
check 66 "FIFO as the parameter file" "$app" "${sep[@]}" -a fifo -s "$stars"
says "fifo: is a pipe (FIFO), not a regular file" "the message names the FIFO"
says "/dev/stdin and other pipes are not supported" "the message says pipes are not supported"
check 66 "FIFO as the star file" "$app" "${sep[@]}" -a "$params" -s fifo
says "fifo: is a pipe (FIFO)" "the message names the FIFO"
check 66 "FIFO as a spectral .npy input" "$app" spectral --op r2c fifo out.npy
says "fifo: is a pipe (FIFO)" "the message names the FIFO"
check 66 "FIFO as conv2d's second input" "$app" spectral --op conv2d good.npy fifo out.npy
check 66 "a pipe as the parameter file (/dev/stdin)" \
    sh -c 'echo x | "$1" --nthreads 2 -a /dev/stdin -s "$2"' sh "$app" "$stars"
says "is a pipe (FIFO)" "the message says it is a pipe"
check 66 "a directory as the parameter file" "$app" "${sep[@]}" -a folder -s "$stars"
says "folder: is a directory, not a regular file" "the message names the directory"
check 66 "a directory as the star file" "$app" "${sep[@]}" -a "$params" -s folder
check 66 "a directory as a spectral input" "$app" spectral --op r2c folder out.npy
says "folder: is a directory" "the message names the directory"
check 66 "a character device as the parameter file" "$app" "${sep[@]}" -a /dev/null -s "$stars"
says "/dev/null: is a character device" "the message names the device"
[ ! -e out.npy ] && pass "no output left by the refused runs" || fail "out.npy was written"

echo "== 2. .npy headers that lie"
{ npy '<f8' '(1250000000,)'; zeros 72; } >huge.npy
if [ "$(wc -c <huge.npy)" -eq 200 ]; then
    # ulimit in a subshell: a 10 GB malloc would fail (71) or crash there.
    check 65 "200 bytes claiming 10 GB, under ulimit -v 1000000" \
        sh -c 'ulimit -v 1000000 && exec "$@"' sh "$app" spectral --op r2c huge.npy out.npy
    says "huge.npy: data truncated: shape (1250000000,) of float64 needs 10000000000 bytes of data, the file has 72" \
        "the message names the file and the bytes expected"
    [ "$elapsed_ms" -lt 2000 ] && pass "refused in $elapsed_ms ms" || fail "took $elapsed_ms ms (2 s allowed)"
else
    fail "huge.npy is $(wc -c <huge.npy) bytes, not 200"
fi
# 4 * (2^62 + 1) wraps to 4 elements in 64 bits: 32 bytes of data "fit".
{ npy '<f8' '(4611686018427387905, 4)'; zeros 32; } >wrap.npy
check 65 "a shape whose element count overflows" "$app" spectral --op r2c wrap.npy out.npy
says "wrap.npy: header field 'shape': the number of elements overflows" "the message says so"
{ npy '<c16' '(1152921504606846977,)'; zeros 16; } >bytes.npy
check 65 "a shape whose byte count overflows" "$app" spectral --op c2c bytes.npy out.npy
says "bytes.npy: shape (1152921504606846977,) of complex128: the size in bytes overflows" "the message says so"
{ npy '<f8' '(99999999999999999999999,)'; zeros 8; } >long.npy
check 65 "a dimension larger than a long" "$app" spectral --op r2c long.npy out.npy
says "long.npy: header field 'shape': dimension 1 is not a whole number" "the message names the dimension"
{ npy '<f8' '(-8,)'; zeros 8; } >negative.npy
check 65 "a negative dimension" "$app" spectral --op r2c negative.npy out.npy
{ npy '<f8' '(8,)'; zeros 63; } >truncated.npy
check 65 "truncated data" "$app" spectral --op r2c truncated.npy out.npy
says "truncated.npy: data truncated: shape (8,) of float64 needs 64 bytes of data, the file has 63" \
    "the message says what was expected"
{ npy '<f8' '(8,)'; zeros 65; } >trailing.npy
check 65 "trailing bytes" "$app" spectral --op r2c trailing.npy out.npy
says "trailing.npy: more data than the shape says: shape (8,) of float64 needs 64 bytes of data, the file has 65" \
    "the message says what was expected"
[ ! -e out.npy ] && pass "no output left by the refused runs" || fail "out.npy was written"
check 0 "a well-formed .npy still reads (the control)" "$app" spectral --op r2c good.npy out.npy
{ npy '<c16' '(5,)'; zeros 80; } >expected.npy
cmp -s out.npy expected.npy && pass "its output is numpy's layout" || fail "out.npy differs from expected.npy"

echo "== 3. planted symlinks and odd outputs"
echo "victim's own bytes" >victim
cp victim victim.orig
mkdir ck && ln -s "$work/victim" ck/separation_checkpoint.tmp
check 0 "separation with a symlink at separation_checkpoint.tmp" \
    sh -c 'cd ck && exec "$@"' sh "$app" "${sep[@]}" -a "$params" -s "$stars"
cmp -s victim victim.orig && pass "the symlink's target is untouched" ||
    fail "the victim was overwritten: $(head -c 16 victim | od -c | head -1)"
if [ -f ck/separation_checkpoint ] && [ ! -L ck/separation_checkpoint ] &&
    [ "$(head -c 8 ck/separation_checkpoint)" = ORRERYCK ]; then
    pass "separation_checkpoint is a regular file, an Orrery checkpoint"
else
    fail "separation_checkpoint: $(ls -l ck)"
fi
[ ! -e ck/separation_checkpoint.tmp ] && [ ! -L ck/separation_checkpoint.tmp ] &&
    pass "no temporary left" || fail "separation_checkpoint.tmp is still there"
# The finished checkpoint passes its CRC: a second run resumes from it and,
# run by hand, prints its results again without computing them.
check 0 "a second run resumes from that checkpoint" \
    sh -c 'cd ck && exec "$@"' sh "$app" "${sep[@]}" -a "$params" -s "$stars"
if grep -q "separation: finished in" "$work/why" || ! grep -q "reported its results already" "$work/why"; then
    fail "the second run computed again: the checkpoint was unusable"
else
    pass "nothing computed twice: the results again from the checkpoint"
fi

ln -s "$work/victim" out2.npy.partial
check 0 "spectral with a symlink at OUT.npy.partial" "$app" spectral --op r2c good.npy out2.npy
cmp -s victim victim.orig && pass "the symlink's target is untouched" ||
    fail "the victim was overwritten: $(head -c 16 victim | od -c | head -1)"
[ -f out2.npy ] && [ ! -L out2.npy ] && cmp -s out2.npy expected.npy && pass "out2.npy written whole" ||
    fail "out2.npy: $(ls -l out2.npy 2>&1)"
[ ! -e out2.npy.partial ] && [ ! -L out2.npy.partial ] && pass "no temporary left" ||
    fail "out2.npy.partial is still there"

mkfifo out3.npy
check 74 "a FIFO as the spectral output" "$app" spectral --op r2c good.npy out3.npy
says "out3.npy: cannot write: it is a pipe (FIFO), not a regular file" "the message names the output"
[ -p out3.npy ] && [ ! -e out3.npy.partial ] && pass "the FIFO is left as it was, no temporary" ||
    fail "out3.npy: $(ls -l out3.npy* 2>&1)"
check 74 "a directory as the spectral output" "$app" spectral --op r2c good.npy folder
says "folder: cannot write: it is a directory" "the message names the output"
check 74 "an output in a folder that does not exist" "$app" spectral --op r2c good.npy none/out.npy
says "none/out.npy: cannot write: folder none: No such file or directory" "the message says why (strerror)"

# A write that fails: no byte may be written (ulimit -f 0; the messages go
# through a pipe, which the limit does not cover).
no_writes='set -o pipefail; (trap "" XFSZ; ulimit -f 0; exec "$@") 2>&1 | cat >&2'
check 74 "a spectral output that cannot be written" \
    bash -c "$no_writes" bash "$app" spectral --op r2c good.npy out4.npy
says "out4.npy: cannot write: File too large" "the message names the file, with strerror"
[ ! -e out4.npy ] && [ ! -e out4.npy.partial ] && pass "nothing left behind" ||
    fail "left: $(ls out4.npy* 2>&1)"

mkdir ckfifo && mkfifo ckfifo/separation_checkpoint
check 0 "separation with a FIFO at separation_checkpoint" \
    sh -c 'cd ckfifo && exec "$@"' sh "$app" "${sep[@]}" -a "$params" -s "$stars"
says "checkpoint ignored, starting from zero: separation_checkpoint: is a pipe (FIFO)" \
    "the run says why it ignored the checkpoint"
grep -q "search_likelihood" "$work/why" && pass "and computed its results" || fail "no results printed"

echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
