#!/bin/sh
# Builds and runs the libFuzzer targets (tests/fuzz/README.md); `make fuzz`
# calls it with the build's settings in the environment:
#   fuzz.sh build   the core library's C sources, compiled with $FUZZ_CC
#                   (clang) and -fsanitize=fuzzer-no-link,address,undefined
#                   into $FUZZ_DIR/libfuzzcore.a, then one program per target
#   fuzz.sh run     first every committed reproducer (tests/fuzz/crashes/),
#                   then each target for $FUZZ_SECONDS seconds on its seed
#                   corpus, $FUZZ_JOBS targets at a time
# Environment: FUZZ_SRCDIR (the source tree), FUZZ_DIR (output folder),
# FUZZ_CONFIG_H (the build's config.h), FUZZ_SOURCES (the core library's
# sources and the FDTD reference's row kernels, common/fdtd/rows_plain.c;
# headers are skipped), FUZZ_X86 (yes: the x86 spectral kernels too),
# FUZZ_TARGETS, FUZZ_CC, FUZZ_SECONDS, FUZZ_JOBS.
# Exit status: non-zero when a build fails, a reproducer still crashes or
# a target found a crash, a leak or undefined behaviour (its reproducer
# is then in $FUZZ_DIR/crashes/, named after the target).
set -eu

src=${FUZZ_SRCDIR:?}
out=${FUZZ_DIR:?}
targets=${FUZZ_TARGETS:-params stars checkpoint npy spectral validate cli diffraction diffraction_checkpoint fdtd fdtd_checkpoint mom}
cc=${FUZZ_CC:-clang}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
cflags="-std=c11 -D_DEFAULT_SOURCE -g -O1 -fno-omit-frame-pointer -Wall -Wextra -Wno-unused-parameter"

build() {
    mkdir -p "$out/obj"
    command -v "$cc" >/dev/null || { echo "fuzz: $cc not found (Debian: apt-get install clang)"; exit 2; }
    # The build's config.h without BOINC: the targets are standalone.
    sed '/HAVE_BOINC/d' "${FUZZ_CONFIG_H:?}" >"$out/config.h"
    inc="-I$out -I$src/common"
    # One line a file: SOURCE KIND FLAGS...; KIND full: ASan, UBSan and
    # coverage; kernel (the spectral lane kernels, compute code that no
    # input steers past the plan's checks): ASan only, as UBSan makes
    # clang take minutes over them.
    : >"$out/compile.list"
    for f in ${FUZZ_SOURCES:?}; do
        case $f in
        common/spectral/simd/*.c) echo "$f kernel" >>"$out/compile.list" ;;
        *.c) echo "$f full" >>"$out/compile.list" ;;
        esac
    done
    if [ "${FUZZ_X86:-no}" = yes ]; then
        echo "common/spectral/simd/lanes.c kernel -DORR_ISA_SSE2 -msse2" >>"$out/compile.list"
        echo "common/spectral/simd/lanes.c kernel -DORR_ISA_AVX2 -mavx2 -mfma" >>"$out/compile.list"
        echo "common/spectral/simd/lanes.c kernel -DORR_ISA_AVX512 -mavx512f -mavx512dq -mavx2 -mfma" >>"$out/compile.list"
    fi
    echo "fuzz: compiling the core library with $cc ($(wc -l <"$out/compile.list") files, $jobs at a time)"
    export cc cflags san inc src out
    xargs -P "$jobs" -L 1 sh -c '
        f=$1 kind=$2; shift 2
        o=$out/obj/$(echo "$f $*" | tr -c "A-Za-z0-9_\n" _ | tr -d "\n").o
        if [ "$kind" = kernel ]; then flags="-fsanitize=address"; else flags="$san -fsanitize=fuzzer-no-link"; fi
        $cc $cflags $flags $inc "$@" -c "$src/$f" -o "$o" ||
            { echo "fuzz: compiling $f failed"; exit 255; }' sh <"$out/compile.list"
    rm -f "$out/libfuzzcore.a"
    ar rcs "$out/libfuzzcore.a" "$out"/obj/*.o
    for t in $targets; do
        echo "fuzz: linking fuzz_$t"
        $cc $cflags $san -fsanitize=fuzzer $inc "$src/tests/fuzz/fuzz_$t.c" \
            "$out/libfuzzcore.a" -lz -lm -lpthread -o "$out/fuzz_$t"
    done
}

# Sanitizer settings for every run: leaks are failures (the library
# suppressions of lsan.supp aside), UB stops the run with a stack.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

# The targets write their inputs to files: in memory where there is a
# /dev/shm, in one folder for the whole run, removed at its end (a crash
# leaves the target's own folder behind).
tmp_root() {
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then echo /dev/shm; else echo "${TMPDIR:-/tmp}"; fi
}

# Runs target $1 for $FUZZ_SECONDS on its corpus; the log in $out/$1.log.
run_one() {
    t=$1
    mkdir -p "$out/corpus/$t" "$out/crashes"
    dict=
    [ -f "$src/tests/fuzz/dict/$t.dict" ] && dict="-dict=$src/tests/fuzz/dict/$t.dict"
    # new inputs go to the build's corpus; the committed seeds are read only
    TMPDIR=$run_tmp "$out/fuzz_$t" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=20 \
        -rss_limit_mb=2560 -max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$out/crashes/$t-" $dict \
        "$out/corpus/$t" "$src/tests/fuzz/seeds/$t" >"$out/$t.log" 2>&1
}

report_one() {
    t=$1 rc=$2
    stats=$(grep -E '^#[0-9]+[[:space:]]+DONE' "$out/$t.log" | tail -1 | sed 's/  */ /g')
    if [ "$rc" -eq 0 ]; then
        echo "fuzz_$t: ok: ${stats:-no stats}"
    else
        echo "fuzz_$t: FAILED (exit $rc); the end of $out/$t.log:"
        # the report without the fuzzer's and the sanitizers' own frames
        grep -E 'ERROR: |SUMMARY: |runtime error|^ *#[0-9]+ |Test unit written' "$out/$t.log" |
            grep -vE ' in (fuzzer::|__sanitizer|__asan|__ubsan|__interceptor|__libc_start|_start|main |malloc|calloc|realloc)' |
            head -40
    fi
}

run() {
    failed=0
    run_tmp=$(mktemp -d "$(tmp_root)/orrery-fuzz-run-XXXXXX")
    trap 'rm -rf "$run_tmp"' EXIT
    echo "fuzz: replaying the committed reproducers (tests/fuzz/crashes/)"
    for f in "$src"/tests/fuzz/crashes/*; do
        [ -f "$f" ] || continue
        name=$(basename "$f")
        case $name in *.*) continue ;; esac   # notes, not reproducers
        t=${name%%-*}
        [ -x "$out/fuzz_$t" ] || { echo "  $name: no target fuzz_$t"; failed=1; continue; }
        if TMPDIR=$run_tmp "$out/fuzz_$t" "$f" >"$out/replay.log" 2>&1; then
            echo "  $name: fixed (move it to tests/fuzz/seeds/$t/ as a regression input)"
        else
            echo "  $name: still crashes: $(grep -m1 -E 'ERROR: |runtime error' "$out/replay.log" | cut -c1-160)"
            failed=1
        fi
    done
    echo "fuzz: $targets: ${FUZZ_SECONDS:-60} s each, $jobs at a time"
    set -- $targets
    while [ $# -gt 0 ]; do
        batch=
        while [ $# -gt 0 ] && [ $(echo $batch | wc -w) -lt "$jobs" ]; do
            run_one "$1" &
            eval "pid_$1=\$!"
            batch="$batch $1"
            shift
        done
        for t in $batch; do
            rc=0
            eval "wait \$pid_$t" || rc=$?
            report_one "$t" "$rc"
            [ "$rc" -eq 0 ] || failed=1
        done
    done
    [ "$failed" -eq 0 ] && echo "fuzz: no crash" || echo "fuzz: FAILED (reproducers in $out/crashes/)"
    return "$failed"
}

case ${1:-} in
build) build ;;
run) run ;;
*) echo "usage: fuzz.sh build|run (see make fuzz)"; exit 2 ;;
esac
