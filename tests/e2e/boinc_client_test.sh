#!/bin/bash
# Real-client test: the CPU app as a job of Debian's BOINC client, with no
# server. A hand-written client state (docs/boinc.md section 3) gives the
# client one work unit, made the way a project makes it: by orrery-wugen
# (files, command line, rsc_* values) and the server templates (open names
# of the inputs and of the result file). The test suspends and resumes it mid-run with
# boinccmd and checks the exit status, the output file against a standalone
# run of the same work unit (byte for byte), that the client recorded a
# checkpoint and that the task resumed from it. Then, in the two seconds
# boinc_finish waits before it writes the finish file, the app is killed:
# the client restarts a task that had reported, which must print nothing
# again and still leave a result orrery-validate accepts, with its tags once
# in stderr. A second job runs a
# GPU-requiring stub on a fake NVIDIA GPU and must be postponed (BOINC's
# temporary exit) with the stub's reason; on a fake AMD GPU, which it can
# never use (it takes NVIDIA GPUs, as the CUDA app), it must end as a
# computation error with exit 78 and its reason, not be postponed. The
# last (with ORR_OPENCL_APP) runs the OpenCL app on the fake NVIDIA GPU: it
# must ask BOINC for its device, find none (PoCL is no NVIDIA GPU) and be
# postponed too.
#
# Needs the packages boinc-client (boinc, boinccmd). Anyone can run it:
#   ORR_APP=app_cpu/orrery_cpu ORR_GPU_STUB=tests/e2e/orrery_gpu_stub \
#   ORR_DATA=tests/data/milkyway tests/e2e/boinc_client_test.sh
# (make check sets these). Exit 77 (skipped) without a client or BOINC build.
set -u
refine_grid="$(cd "$(dirname "$0")/../../tools" && pwd)/refine-grid.sh"
app=$(readlink -f "${ORR_APP:?set ORR_APP to the CPU app}")
stub=$(readlink -f "${ORR_GPU_STUB:?set ORR_GPU_STUB to tests/e2e/orrery_gpu_stub}")
data=$(readlink -f "${ORR_DATA:?set ORR_DATA to tests/data/milkyway}")
top=$(cd "$(dirname "$0")/../.." && pwd)
wugen=${ORR_WUGEN:-$top/workunits/orrery-wugen}
validate=${ORR_VALIDATE:-$(dirname "$app")/../workunits/orrery-validate}
templates=$top/server_templates

if [ "${ORR_WITH_BOINC:-yes}" != yes ]; then
    echo "SKIP: built without BOINC"; exit 77
fi
if ! command -v boinc >/dev/null || ! command -v boinccmd >/dev/null; then
    echo "SKIP: the BOINC client is not installed (Debian: apt-get install boinc-client)"; exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/orrery-client-XXXXXX")
client_pid=
cleanup() { [ -n "$client_pid" ] && kill -9 "$client_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
fail() {
    echo "FAIL: $*"
    for f in "$work"/*/client.log; do [ -f "$f" ] && { echo "---- $f"; tail -40 "$f"; }; done
    trap - EXIT; [ -n "$client_pid" ] && kill -9 "$client_pid" 2>/dev/null
    echo "(folder kept: $work)"; exit 1
}

url=http://127.0.0.1/offline/
password=orrery-test
port=$((40000 + RANDOM % 20000))
search="0.571713 12.312119 -3.305187 148.010257 22.453902 0.42035 -0.468858 0.760579 -1.361644 177.884238 23.882892 1.210639 -1.611974 8.534378 -1.361644 177.884238 10.882892 1.210639 -1.611974 8.534378"
stars="$data/stars/stars-11.txt.gz"
# small11 on a 32 times finer grid: about ten seconds on one core even for
# the fast kernels, so there is time to checkpoint, suspend and resume.
zcat "$data/params_head/astronomy_parameters-11-small.txt.gz" |
    sh "$refine_grid" 4 4 2 >"$work/refined.txt"
# The work unit as a project generates it, and what the templates say.
"$wugen" --checker "$app" -a "$work/refined.txt" -s "$stars" -p "$search" -n wu -o "$work/wu" \
    >"$work/wugen.log" 2>&1 || fail "orrery-wugen: $(tail -2 "$work/wugen.log")"
jobline=$(head -1 "$work/wu/jobs_1.txt")
command_line=$(echo "$jobline" | sed 's/.*--command_line "\([^"]*\)".*/\1/')
read -r params_name stars_name <<<"$(echo "$jobline" | sed 's/.*" //')"
params="$work/wu/$params_name"
stars="$work/wu/$stars_name"
fpops_est=$(sed -n 's/.*--rsc_fpops_est \([^ ]*\).*/\1/p' "$work/wu/submit.sh")
mapfile -t open_names < <(sed -n 's:.*<open_name>\(.*\)</open_name>.*:\1:p' "$templates/separation_in")
result_open=$(sed -n 's:.*<open_name>\(.*\)</open_name>.*:\1:p' "$templates/separation_out")
[ ${#open_names[@]} -eq 2 ] && [ -n "$result_open" ] || fail "cannot read the open names from the templates"

# <file> element of a file already on the host.
file_xml() { # name path [executable]
    echo "<file><name>$1</name><nbytes>$(stat -c %s "$2")</nbytes><max_nbytes>0</max_nbytes>"
    echo "  <md5_cksum>$(md5sum <"$2" | cut -d' ' -f1)</md5_cksum><status>1</status>${3:+<executable/>}</file>"
}

# A client folder holding one work unit: make_client DIR EXE COPROC
# (COPROC: empty for the CPU app, NVIDIA for a fake-GPU job).
make_client() {
    local dir=$1 exe=$2 coproc=$3
    local proj="$dir/projects/127.0.0.1_offline" now
    now=$(date +%s)
    mkdir -p "$proj"
    cp "$exe" "$proj/orrery_test_app"
    cp "$params" "$proj/params.txt"
    cp "$stars" "$proj/stars.txt.gz"
    echo "$password" >"$dir/gui_rpc_auth.cfg"
    cat >"$dir/account_127.0.0.1_offline.xml" <<XML
<account>
  <master_url>$url</master_url>
  <authenticator>offline-test</authenticator>
</account>
XML
    cat >"$dir/global_prefs_override.xml" <<XML
<global_preferences>
  <run_on_batteries>1</run_on_batteries>
  <run_if_user_active>1</run_if_user_active>
  <suspend_cpu_usage>0</suspend_cpu_usage>
  <disk_interval>2</disk_interval>
  <max_ncpus_pct>100</max_ncpus_pct>
  <cpu_usage_limit>100</cpu_usage_limit>
</global_preferences>
XML
    local gpu_opts= gpu_version=
    if [ -n "$coproc" ]; then
        gpu_opts="<coproc><type>$coproc</type><count>1</count><device_nums>0</device_nums><peak_flops>1e12</peak_flops></coproc>"
        gpu_version="<coproc><type>$coproc</type><count>1</count></coproc>"
    fi
    cat >"$dir/cc_config.xml" <<XML
<cc_config>
  <log_flags><task_debug>1</task_debug><checkpoint_debug>1</checkpoint_debug></log_flags>
  <options>$gpu_opts<allow_remote_gui_rpc>0</allow_remote_gui_rpc></options>
</cc_config>
XML
    cat >"$dir/client_state.xml" <<XML
<client_state>
<project>
  <master_url>$url</master_url>
  <project_name>Orrery offline test</project_name>
  <dont_request_more_work/>
</project>
<app><name>orrery</name><user_friendly_name>Orrery</user_friendly_name></app>
$(file_xml orrery_test_app "$proj/orrery_test_app" exe)
$(file_xml params.txt "$proj/params.txt")
$(file_xml stars.txt.gz "$proj/stars.txt.gz")
<file>
  <name>wu1_r0_results</name><nbytes>0</nbytes><max_nbytes>1000000</max_nbytes><status>0</status>
  <upload_url>${url}upload</upload_url>
</file>
<app_version>
  <app_name>orrery</app_name>
  <version_num>100</version_num>
  <platform>x86_64-pc-linux-gnu</platform>
  <avg_ncpus>1</avg_ncpus>
  <flops>1e9</flops>
  <api_version>7.20.5</api_version>
  $gpu_version
  <file_ref><file_name>orrery_test_app</file_name><main_program/></file_ref>
</app_version>
<workunit>
  <name>wu1</name>
  <app_name>orrery</app_name>
  <version_num>100</version_num>
  <command_line>$command_line</command_line>
  <rsc_fpops_est>$fpops_est</rsc_fpops_est>
  <rsc_fpops_bound>1e14</rsc_fpops_bound>
  <rsc_memory_bound>1e9</rsc_memory_bound>
  <rsc_disk_bound>1e9</rsc_disk_bound>
  <file_ref><file_name>params.txt</file_name><open_name>${open_names[0]}</open_name><copy_file/></file_ref>
  <file_ref><file_name>stars.txt.gz</file_name><open_name>${open_names[1]}</open_name><copy_file/></file_ref>
</workunit>
<result>
  <name>wu1_r0</name>
  <wu_name>wu1</wu_name>
  <version_num>100</version_num>
  <platform>x86_64-pc-linux-gnu</platform>
  <state>2</state>
  <final_cpu_time>0</final_cpu_time>
  <received_time>$now</received_time>
  <report_deadline>$((now + 864000))</report_deadline>
  <file_ref><file_name>wu1_r0_results</file_name><open_name>$result_open</open_name><copy_file/></file_ref>
</result>
</client_state>
XML
}

start_client() { # dir [extra options]
    local dir=$1; shift
    boinc --dir "$dir" --skip_cpu_benchmarks --no_info_fetch --unsigned_apps_ok \
        --gui_rpc_port "$port" --allow_remote_gui_rpc "$@" >"$dir/client.log" 2>&1 &
    client_pid=$!
}

# wait_for FILE REGEX SECONDS: until the file has a matching line. The
# limits are generous: the client runs its apps at idle priority, so under
# a parallel make check (PoCL, the reference suite) a task can wait minutes
# for a core; a healthy run never comes near them.
wait_for() {
    local i
    for i in $(seq $((${3} * 5))); do
        grep -Eq "$2" "$1" 2>/dev/null && return 0
        kill -0 "$client_pid" 2>/dev/null || { grep -Eq "$2" "$1" 2>/dev/null; return; }
        sleep 0.2
    done
    return 1
}

# Ask the client to quit (it writes its state file), then make sure.
stop_client() {
    boinccmd --host "127.0.0.1:$port" --passwd "$password" --quit >/dev/null 2>&1
    for _ in $(seq 100); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$client_pid" 2>/dev/null; wait "$client_pid" 2>/dev/null; client_pid=
}

task() { boinccmd --host "127.0.0.1:$port" --passwd "$password" --task "$url" wu1_r0 "$1"; }

# ---- the reference: the same work unit standalone ----
mkdir "$work/standalone" && cd "$work/standalone" || fail "cannot make folders in $work"
cp "$params" "${open_names[0]}"
cp "$stars" "${open_names[1]}"
# shellcheck disable=SC2086
"$app" $command_line 2>stderr.txt || fail "standalone run failed: $(tail -3 stderr.txt)"

# ---- the CPU app under the client, suspended and resumed mid-run ----
dir="$work/cpu"
make_client "$dir" "$app" ""
# Not --exit_after_finish: the client would take the quit at suspension
# for the end of the job and exit.
start_client "$dir"
wait_for "$dir/client.log" "Starting task wu1_r0" 120 || fail "the client did not start the task"
wait_for "$dir/client.log" "wu1_r0 checkpointed" 600 || fail "no checkpoint recorded by the client"
task suspend || fail "boinccmd suspend failed"
wait_for "$dir/client.log" "task_state=SUSPENDED|suspended by user|Suspending" 20 ||
    fail "the client did not report the suspension"
sleep 2
task resume || fail "boinccmd resume failed"
# The report done, boinc_finish waits 2 s before its finish file: a kill
# there is a task that reported and must start again (the client restarts
# a killed task). The slot's stderr.txt says when boinc_finish began.
killed_after_finish=0
for _ in $(seq 6000); do   # 20 minutes at most, as below
    grep -q "Computation for task wu1_r0 finished" "$dir/client.log" && break
    kill -0 "$client_pid" 2>/dev/null || break
    if grep -qs "called boinc_finish" "$dir"/slots/*/stderr.txt; then
        app_pid=$(boinccmd --host "127.0.0.1:$port" --passwd "$password" --get_tasks |
            sed -n 's/^ *PID: *\([0-9][0-9]*\).*/\1/p' | head -1)
        [ -n "$app_pid" ] && ! ls "$dir"/slots/*/boinc_finish_called >/dev/null 2>&1 &&
            kill -9 "$app_pid" 2>/dev/null && killed_after_finish=1
        break
    fi
    sleep 0.2
done
wait_for "$dir/client.log" "Computation for task wu1_r0 finished" 1200 ||
    fail "the task did not finish"
stop_client

state="$dir/client_state.xml"
grep -q "<exit_status>0</exit_status>" "$state" || fail "exit status is not 0 in client_state.xml"
out="$dir/projects/127.0.0.1_offline/wu1_r0_results"
[ -f "$out" ] || fail "no output file $out"
cmp -s "$out" "$work/standalone/$result_open" || {
    diff "$work/standalone/$result_open" "$out"; fail "output differs from the standalone run"; }
# The task's stderr, as the client will report it, is in the state file.
grep -q "resuming from checkpoint" "$state" ||
    fail "the task did not resume from its checkpoint (stderr in client_state.xml)"
[ "$(grep -c '^<search_likelihood>' "$state")" -eq 1 ] ||
    fail "stderr does not hold exactly one <search_likelihood>"
"$validate" init "$out" >"$work/validate.log" 2>&1 ||
    fail "orrery-validate refuses the result: $(tail -1 "$work/validate.log")"
if [ $killed_after_finish = 1 ]; then
    grep -q "reported its results already" "$state" ||
        fail "killed in boinc_finish, the task was not restarted from its reported checkpoint"
    [ "$(grep -c 'called boinc_finish' "$state")" -ge 2 ] ||
        fail "the restarted task did not finish again"
    echo "killed in boinc_finish: restarted, nothing printed again, the result valid"
else
    echo "note: the task finished before the kill in boinc_finish (not exercised this time)"
fi
echo "client log: $(grep -c 'wu1_r0 checkpointed' "$dir/client.log") checkpoints recorded"
grep '^<search_likelihood>' "$out"
echo "CPU job: suspended, resumed from its checkpoint, exit 0, output identical to standalone and valid"

# ---- a GPU job the stub cannot run: postponed, not failed ----
dir="$work/gpu"
make_client "$dir" "$stub" NVIDIA
start_client "$dir"
wait_for "$dir/client.log" "Starting task wu1_r0" 120 || fail "the client did not start the GPU task"
wait_for "$dir/client.log" "postponed|temporary exit" 300 || fail "the GPU task was not postponed"
stop_client
grep -q "no usable GPU: NVIDIA device 0" "$dir/client.log" ||
    fail "the client log does not carry the stub's reason"
grep -E "postponed|temporary exit" "$dir/client.log" | head -2
grep -q "<exit_status>" "$dir/client_state.xml" && grep -q "<exit_status>[1-9]" "$dir/client_state.xml" &&
    fail "the GPU task was recorded as an error"
echo "GPU job: postponed with the stub's reason"

# ---- a GPU job on a device that can never run it: an error, not postponed ----
# Retried on this host it would fail until the deadline: the client must
# end it (exit 78) so that the server sends the work to another host.
dir="$work/unfit"
make_client "$dir" "$stub" ATI
start_client "$dir"
wait_for "$dir/client.log" "Starting task wu1_r0" 120 || fail "the client did not start the unfit GPU task"
wait_for "$dir/client.log" "Computation for task wu1_r0 finished|postponed|temporary exit" 300 ||
    fail "the unfit GPU task did not end"
stop_client
grep -Eq "postponed|temporary exit" "$dir/client.log" && fail "the unfit GPU task was postponed"
grep -q "<exit_status>78</exit_status>" "$dir/client_state.xml" ||
    fail "the unfit GPU task's exit status is not 78 in client_state.xml"
grep -q "the client assigned a GPU of type ATI to a stub for NVIDIA GPUs" "$dir/client_state.xml" ||
    fail "the task's stderr does not carry the stub's reason"
echo "unfit GPU job: a computation error, exit 78, with the stub's reason"
passed=3

# ---- the OpenCL app assigned a GPU no OpenCL platform has ----
# It must take the client's assignment (boinc_get_opencl_ids), not fall
# back to another device such as PoCL's CPU, and be postponed.
opencl=${ORR_OPENCL_APP:-}
if [ -n "$opencl" ] && [ -x "$opencl" ] && [ "${ORR_WITH_BOINC:-yes}" = yes ]; then
    dir="$work/opencl"
    make_client "$dir" "$(readlink -f "$opencl")" NVIDIA
    start_client "$dir"
    wait_for "$dir/client.log" "Starting task wu1_r0" 120 || fail "the client did not start the OpenCL task"
    wait_for "$dir/client.log" "postponed|temporary exit" 300 || fail "the OpenCL task was not postponed"
    stop_client
    grep -q "BOINC assigned no usable OpenCL device" "$dir/client.log" ||
        fail "the client log does not carry the OpenCL app's reason"
    grep -E "postponed|temporary exit" "$dir/client.log" | head -1
    grep -q "<exit_status>[1-9]" "$dir/client_state.xml" && fail "the OpenCL task was recorded as an error"
    echo "OpenCL job: took BOINC's assignment (an NVIDIA GPU it has no OpenCL device for), postponed"
    passed=4
fi
echo "$passed passed, 0 failed"
