#!/bin/bash
# Kill test: a separation run killed with SIGKILL at random moments and
# restarted each time must print exactly the tags of an uninterrupted run.
#
# The killed run checkpoints every second: built with BOINC, through an
# init_data.xml in its folder (BOINC's library reads it even without a
# client); built without (ORR_WITH_BOINC=no), through --checkpoint-period 1,
# the standalone runtime's own clock. ORRERY_TEST_CHECKPOINT_PAUSE_MS
# holds every checkpoint write half done for a moment so that some kills land inside a write. stderr is appended across
# restarts, as BOINC does with stderr.txt. Along the way the checkpoint is
# once corrupted and once replaced by another work unit's: both must be
# refused with a message and the run must start again from zero. Run again
# by hand in the finished folder, the app prints the same tags again from
# its checkpoint without computing (under a client it would print nothing:
# boinc_client_test.sh checks that).
#
# Environment: ORR_APP (the app), ORR_DATA (tests/data/milkyway),
# ORR_WITH_BOINC (yes or no, as configured; default yes);
# ORR_KILL_SEED picks the random kill times (printed, to replay a failure).
set -u
refine_grid="$(cd "$(dirname "$0")/../../tools" && pwd)/refine-grid.sh"
app=${ORR_APP:?set ORR_APP to the app binary}
data=$(readlink -f "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}")
seed=${ORR_KILL_SEED:-$$}
RANDOM=$seed
min_kills=12

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-kill-XXXXXX")
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; echo "(seed $seed; folder kept: $work)"; trap - EXIT; exit 1; }

stars="$data/stars/stars-11.txt.gz"
work_params() { # small11 on a grid 32 times finer: long enough for a dozen kills
    zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" |
        sh "$refine_grid" 4 4 2
}
search=(0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579
        -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238
        10.882892 1.210639 -1.611974 8.534378)
params="$work/params.txt"
# Two threads whatever the machine, so the run's length (and the number of
# kills it leaves room for) does not grow with the core count.
run_args=(-a "$params" -s "$stars" --nthreads 2 -np 20 -p "${search[@]}")
# every_second goes before run_args: the search values run to the end.
if [ "${ORR_WITH_BOINC:-yes}" = yes ]; then
    init_data='<app_init_data><checkpoint_period>1</checkpoint_period></app_init_data>'
    every_second=()
else
    init_data=
    every_second=(--checkpoint-period 1)
fi
checkpointing() { # the current folder's checkpoint clock
    [ -z "$init_data" ] || echo "$init_data" >init_data.xml
}

# A random duration in seconds, from $1 to $2 tenths of a second.
random_delay() { local t=$(($1 + RANDOM % ($2 - $1 + 1))); echo "$((t / 10)).$((t % 10))"; }

work_params >"$params"

# ---- the uninterrupted reference ----
mkdir "$work/reference" && cd "$work/reference" || fail "cannot make folders in $work"
start=$(date +%s%N)
"$app" "${run_args[@]}" 2>stderr.txt || fail "uninterrupted run failed: $(tail -3 stderr.txt)"
echo "uninterrupted run: $((($(date +%s%N) - start) / 1000000)) ms"
grep '^<' stderr.txt >tags || fail "no tags from the uninterrupted run"

# ---- another work unit's checkpoint (other search values) ----
mkdir "$work/other" && cd "$work/other" || exit 1
checkpointing
other=("${run_args[@]}")
other[9]=0.6   # the first search value
"$app" "${every_second[@]}" "${other[@]}" 2>stderr.txt &
pid=$!
for _ in $(seq 100); do [ -f separation_checkpoint ] && break; sleep 0.05; done
kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
[ -f separation_checkpoint ] || fail "the other work unit wrote no checkpoint"

# ---- the killed run ----
mkdir "$work/killed" && cd "$work/killed" || exit 1
checkpointing
export ORRERY_TEST_CHECKPOINT_PAUSE_MS=300
kills=0 in_write=0 lives=0
while :; do
    lives=$((lives + 1))
    touch life_started
    "$app" "${every_second[@]}" "${run_args[@]}" 2>>stderr.txt &
    pid=$!
    if [ $kills -ge $min_kills ]; then
        wait $pid; rc=$?
        break
    fi
    case $((kills % 3)) in
    0) sleep "$(random_delay 1 10)" ;;          # anywhere, mostly before a checkpoint
    1) for _ in $(seq 1000); do                  # inside a checkpoint write
           [ -f separation_checkpoint.tmp ] && break
           kill -0 $pid 2>/dev/null || break
           sleep 0.02
       done ;;
    2) for _ in $(seq 1000); do                  # right after this life's first checkpoint
           [ separation_checkpoint -nt life_started ] && [ ! -f separation_checkpoint.tmp ] && break
           kill -0 $pid 2>/dev/null || break
           sleep 0.02
       done
       sleep "0.$((RANDOM % 10))" ;;
    esac
    writing=0; [ -f separation_checkpoint.tmp ] && writing=1
    kill -9 $pid 2>/dev/null   # succeeds on a run that has just exited, too
    wait $pid 2>/dev/null; rc=$?
    # Finished first: a restart now would be a rerun by hand, which prints
    # the tags again (checked at the end), not a resume.
    [ $rc -eq 137 ] || break
    kills=$((kills + 1)); in_write=$((in_write + writing))
    case $kills in
    4) [ -f separation_checkpoint ] && printf 'X' |
           dd of=separation_checkpoint bs=1 seek=200 conv=notrunc status=none ;;
    8) cp ../other/separation_checkpoint separation_checkpoint ;;
    esac
done

[ "$rc" -eq 0 ] || fail "the restarted run exited with $rc: $(tail -3 stderr.txt)"
resumes=$(grep -c 'resuming from checkpoint' stderr.txt)
echo "killed run: $lives starts, $kills kills ($in_write inside a checkpoint write), $resumes resumes"
[ $kills -ge 10 ] || fail "only $kills kills: the run finished too soon for the test"
[ $in_write -ge 2 ] || fail "only $in_write kills landed inside a checkpoint write"
[ "$resumes" -ge 3 ] || fail "only $resumes resumes from a checkpoint"
grep -q 'checkpoint ignored.*checksum mismatch' stderr.txt ||
    fail "the corrupted checkpoint was not reported"
grep -q 'checkpoint ignored.*another work unit' stderr.txt ||
    fail "the other work unit's checkpoint was not refused"
grep '^<' stderr.txt >tags
if ! cmp -s tags ../reference/tags; then
    diff ../reference/tags tags
    fail "the tags differ from the uninterrupted run's"
fi
echo "tags byte-identical to the uninterrupted run ($(wc -l <tags) lines)"

# A finished checkpoint: a rerun by hand prints the same tags again from it
# (and writes results.txt with -t) without computing; -i computes again and
# -c removes the checkpoint afterwards.
unset ORRERY_TEST_CHECKPOINT_PAUSE_MS
start=$(date +%s%N)
"$app" -t "${run_args[@]}" 2>again.txt || fail "rerun on a finished checkpoint failed"
rerun_ms=$((($(date +%s%N) - start) / 1000000))
grep -q 'reported its results already' again.txt || fail "the rerun did not say it had finished already"
grep -q 'separation: finished in' again.txt && fail "the rerun computed the work unit again"
grep '^<' again.txt | cmp -s - ../reference/tags || fail "the rerun's tags differ: $(tail -3 again.txt)"
cmp -s results.txt ../reference/tags || fail "the rerun's results.txt differs from the tags"
"$app" -i -c "${run_args[@]}" 2>fresh.txt || fail "run with -i -c failed"
grep '^<' fresh.txt | cmp -s - ../reference/tags || fail "-i run: tags differ"
[ -f separation_checkpoint ] && fail "-c left the checkpoint behind"
echo "finished checkpoint: a rerun prints the tags again ($rerun_ms ms), -i computes again, -c removes it"
echo "1 passed, 0 failed"
