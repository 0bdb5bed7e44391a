#!/bin/bash
# The README's "For project admins" section, run as written on a real BOINC
# server on this machine, with three volunteers: Debian's BOINC client in
# three data folders, each attached under its own account. It checks:
#  0. every shell block of that section runs and every XML block applies
#     where it says (project.xml, config.xml); a README that is wrong fails
#     here;
#  1. the README's own batch: validated at quorum 2 by two volunteers,
#     credit granted, its two bundle members in the assimilated table;
#     its cleanup.sh refuses while the batch is open and deletes the shared
#     inputs once it is done;
#  2. small11 (expected.json: -3.125097883803232): one result tampered
#     with by 1e-10 on the server before its partner arrives is marked
#     invalid when a third volunteer's result agrees with the second; the
#     table holds the expected likelihood digit for digit;
#  3. a batch of two work units: once the first is finished and
#     file_deleter has passed over it, the shared inputs are still there and
#     the batch's later results download them and succeed.
#
# Needs (as root, on a machine that can be changed: it creates a user, a
# database, an Apache site): BOINC_SRC, a BOINC source tree already built
# for the server (BOINC's own "build the server" instructions; release
# server_release/1.6/1.6.2 is the one checked); Debian's mariadb-server,
# apache2, php, php-mysql, php-xml, libapache2-mod-php, python3-mysqldb,
# python-is-python3 and boinc-client; and what Orrery's own build needs.
# Without BOINC_SRC it skips (exit 77): CI has no BOINC server source.
# Everything listens on 127.0.0.1. Evidence (database rows, logs) goes to
# E2E_EVIDENCE (default /tmp/orrery-server-e2e).
set -u
[ -n "${BOINC_SRC:-}" ] || {
    echo "SKIP: BOINC_SRC is not set (a BOINC source tree built for the server); see tests/server/README.md"
    exit 77
}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BOINC_SRC=$(cd "$BOINC_SRC" && pwd)
user=${E2E_USER:-orrery-e2e} name=orre2e
home=/home/$user project=/home/$user/projects/$name work=/home/$user/e2e
url=http://127.0.0.1/$name
evidence=${E2E_EVIDENCE:-/tmp/orrery-server-e2e}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin # Debian's python3 for BOINC's tools
passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
die() { echo "ERROR: $*" >&2; finish; }
finish() {
    stop_server
    echo "== $passed passed, $failed failed; evidence in $evidence"
    [ "$failed" = 0 ] && [ "$passed" -gt 0 ] && exit 0
    exit 1
}
stop_server() { [ -x "$project/bin/stop" ] && as_user "cd '$project' && bin/stop" >/dev/null 2>&1; }
as_user() { su -s /bin/bash "$user" -c "export PATH='$PATH' ORRERY='$work/orrery' BOINC='$BOINC_SRC' PROJECT='$project' NVCC_ARCH_FLAGS='${NVCC_ARCH_FLAGS:-}' MAKEFLAGS='${MAKEFLAGS:-}'; $1"; }
sql() { mysql -N -B "$name" -e "$1"; }
# Waits up to $2 seconds for SQL query $1 to print a non-empty value other than 0.
wait_for() {
    local q=$1 limit=$2 t=0 v
    while [ "$t" -lt "$limit" ]; do
        v=$(sql "$q" 2>/dev/null)
        [ -n "$v" ] && [ "$v" != 0 ] && return 0
        sleep 2
        t=$((t + 2))
    done
    return 1
}

preflight() {
    [ "$(id -u)" = 0 ] || { echo "SKIP: run as root (it sets up MariaDB, Apache and a user)"; exit 77; }
    [ -x "$BOINC_SRC/tools/make_project" ] && [ -x "$BOINC_SRC/sched/script_validator" ] &&
        [ -f "$BOINC_SRC/api/libboinc_api.a" ] ||
        { echo "ERROR: $BOINC_SRC is not a BOINC tree built for the server (no sched/script_validator)"; exit 1; }
    local c
    for c in mysql apache2ctl a2enmod php boinc curl python3 autoreconf make; do
        command -v "$c" >/dev/null || { echo "ERROR: $c not found (see the packages above)"; exit 1; }
    done
    python3 -c 'import MySQLdb' 2>/dev/null || { echo "ERROR: python3-mysqldb is missing"; exit 1; }
    rm -rf "$evidence" && mkdir -p "$evidence"
}

# A fresh project on loopback, owned by $user, served by Apache.
make_server() {
    echo "== server: MariaDB, Apache, project $name"
    service mariadb start >/dev/null 2>&1 || service mysql start >/dev/null 2>&1 || die "MariaDB does not start"
    id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash -G www-data "$user" || die "useradd $user"
    chmod 750 "$home" && chgrp www-data "$home"
    [ -x "$project/bin/stop" ] && as_user "cd '$project' && bin/stop" >/dev/null 2>&1
    local dbpw # BOINC's PHP refuses an empty database password
    dbpw=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
    mysql -e "DROP DATABASE IF EXISTS $name; CREATE USER IF NOT EXISTS '$user'@'localhost';
        ALTER USER '$user'@'localhost' IDENTIFIED BY '$dbpw';
        GRANT ALL ON *.* TO '$user'@'localhost'; FLUSH PRIVILEGES;" || die "database user"
    rm -rf "$project" "$work"
    # make_project needs this host's name (daemons run where <host> says).
    as_user "mkdir -p '$home/projects' && cd '$BOINC_SRC/tools' && ./make_project --no_query \
        --url_base http://127.0.0.1/ --project_host '$(hostname)' --db_user '$user' --db_passwd '$dbpw' \
        --project_root '$project' $name 'Orrery e2e'" >"$evidence/make_project.log" 2>&1 ||
        die "make_project failed: $evidence/make_project.log"
    chgrp -R www-data "$project" && chmod -R g+w "$project/upload" "$project"/log_*
    find "$project/upload" "$project"/log_* -type d -exec chmod g+s {} +
    cp "$project/$name.httpd.conf" /etc/apache2/sites-enabled/ && a2enmod -q cgi >/dev/null
    service apache2 restart >/dev/null 2>&1 || apache2ctl restart || die "Apache does not start"
    curl -sf "$url/" >/dev/null || die "Apache does not serve $url/"
}

# The README's admin section: its ```sh blocks run in order as the project's
# owner; an ```xml block after "<!-- e2e: FILE ELEMENT -->" is added inside
# FILE's ELEMENT (a simple setting replaces one already there); a block after
# "<!-- e2e: after the batch -->" is saved for later.
follow_readme() {
    echo "== the README's admin section, as written"
    mkdir -p "$work/blocks" "$work/orrery"
    if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then # the checkout as it is, no build outputs
        (cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work/orrery")
    else
        cp -a "$top/." "$work/orrery"
    fi || die "copying the source tree"
    python3 "$here/readme_blocks.py" "$top/README.md" "$work/blocks" || die "cannot read README's admin section"
    chown -R "$user" "$work"
    local b
    for b in "$work"/blocks/*; do
        case $b in
        *.sh)
            if as_user "bash -e '$b'" >"$evidence/$(basename "$b").log" 2>&1; then
                pass "README block $(basename "$b")"
            else
                fail "README block $(basename "$b") (log: $evidence/$(basename "$b").log)"
                sed 's/^/    /' "$b"
                tail -20 "$evidence/$(basename "$b").log"
                finish
            fi ;;
        *.xml)
            if as_user "python3 '$here/readme_blocks.py' --apply '$b' '$project'"; then
                pass "README block $(basename "$b") applied"
            else
                fail "README block $(basename "$b") does not apply"
                finish
            fi ;;
        esac
    done
}

# Volunteers: an account each (the RPC a client's attach uses), a data folder
# with one CPU, and a run that fetches one job, returns it and exits.
make_hosts() {
    local i email hash auth
    for i in 1 2 3; do
        email=host$i@example.org
        hash=$(printf '%s' "secret$i$email" | md5sum | cut -d' ' -f1)
        auth=$(curl -sf "$url/create_account.php?email_addr=$email&passwd_hash=$hash&user_name=host$i" |
            sed -n 's:.*<authenticator>\(.*\)</authenticator>.*:\1:p')
        [ -n "$auth" ] || die "no account for host $i"
        mkdir -p "$work/host$i"
        echo "$auth" >"$work/host$i/authenticator"
        cat >"$work/host$i/cc_config.xml" <<EOF
<cc_config><options><ncpus>1</ncpus></options>
<log_flags><task_debug>1</task_debug><file_xfer_debug>1</file_xfer_debug><sched_op_debug>1</sched_op_debug></log_flags></cc_config>
EOF
        cat >"$work/host$i/global_prefs_override.xml" <<EOF
<global_preferences><run_if_user_active>1</run_if_user_active><suspend_cpu_usage>0</suspend_cpu_usage>
<max_ncpus_pct>100</max_ncpus_pct><work_buf_min_days>0</work_buf_min_days>
<work_buf_additional_days>0</work_buf_additional_days><disk_interval>5</disk_interval></global_preferences>
EOF
    done
    chown -R "$user" "$work"
}
finished() { cat "$evidence/host$1.log" 2>/dev/null | grep -c 'Computation for task .* finished'; }
# Host i fetches one job, runs it, returns it and exits; asks again up to
# TRIES times (default 6) while the server has nothing for it yet (the
# feeder fills its cache every few seconds).
run_host() { # i [tries]
    local i=$1 tries=${2:-6} d=$work/host$1 attach before
    before=$(finished "$i")
    while [ "$tries" -gt 0 ]; do
        attach=
        [ -f "$d/client_state.xml" ] || attach="--attach_project $url/ $(cat "$d/authenticator")"
        as_user "cd '$d' && timeout 600 boinc --dir '$d' --allow_multiple_clients --gui_rpc_port $((31420 + i)) \
            --skip_cpu_benchmarks --fetch_minimal_work --exit_when_idle $attach" >>"$evidence/host$i.log" 2>&1
        [ "$(finished "$i")" != "$before" ] && break
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] && sleep 8
    done
    echo "-- host$i: $(finished "$i") task(s) finished so far"
}

# A batch of the test's own: COUNT work units of small11's vector.
submit_batch() { # name count
    local vec j
    vec=$(awk '$1 == "case" { inside = ($2 == "small11") }
        inside && $1 == "command" { sub(/.* -p /, ""); print; exit }' "$top/tests/data/milkyway/cases.txt")
    for j in $(seq "$2"); do echo "$vec"; done >"$work/vectors_$1.txt"
    chown "$user" "$work/vectors_$1.txt"
    as_user "cd \"\$ORRERY\" && workunits/orrery-wugen \
        -a tests/data/milkyway/params_head/astronomy_parameters-11-small.txt.gz \
        -s tests/data/milkyway/stars/stars-11.txt.gz -n $1 -o batches/$1 -P '$work/vectors_$1.txt' && \
        cd \"\$PROJECT\" && sh \"\$ORRERY/batches/$1/submit.sh\"" >"$evidence/submit_$1.log" 2>&1 ||
        die "submitting $1: $evidence/submit_$1.log"
}
wu_done() { echo "SELECT COUNT(*) = $2 FROM workunit WHERE name LIKE '$1\\_%' AND assimilate_state = 2"; }

run_later() { # the README's blocks for a finished batch
    local b
    for b in "$work"/blocks/later/*.sh; do as_user "cd '$project' && bash -e '$b'" || return 1; done
}
check_cleanup_refuses() {
    local n
    if run_later >"$evidence/cleanup_early.log" 2>&1; then
        fail "cleanup.sh ran while the batch was open"
    else
        n=$(find "$project/download" -name 'separation_*' | wc -l)
        [ "$n" -ge 2 ] && pass "cleanup.sh refuses while the batch is open: $(tail -1 "$evidence/cleanup_early.log")" ||
            fail "cleanup.sh refused but the inputs are gone"
    fi
}

check_readme_batch() {
    echo "== 1. the README's batch at quorum 2"
    local wu=stripe86 prefix
    prefix=$(sql "SELECT name FROM workunit ORDER BY id LIMIT 1" | sed 's/_0$//')
    run_host 1 && run_host 2
    if wait_for "$(wu_done "$prefix" 1)" 120; then pass "$wu: validated and assimilated"; else fail "$wu: not assimilated"; fi
    [ "$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON r.workunitid = w.id
        WHERE w.name LIKE '$prefix\\_%' AND r.validate_state = 1 AND r.granted_credit > 0")" = 2 ] &&
        pass "$wu: two valid results, credit granted" || fail "$wu: not two credited valid results"
    [ "$(grep -c "\"wu\": \"${prefix}_0\"" "$project/orrery/separation.jsonl" 2>/dev/null)" = 2 ] &&
        pass "$wu: both bundle members in orrery/separation.jsonl" || fail "$wu: the table lacks its two rows"
    local before after
    before=$(find "$project/download" -name "${prefix}_*" | wc -l)
    run_later >"$evidence/cleanup.log" 2>&1
    after=$(find "$project/download" -name "${prefix}_*" | wc -l)
    [ "$before" -ge 2 ] && [ "$after" = 0 ] && pass "cleanup.sh deleted the finished batch's inputs ($before files)" ||
        fail "cleanup.sh: $before files before, $after after ($evidence/cleanup.log)"
}

check_tampered() {
    echo "== 2. small11: a tampered result is outvoted"
    submit_batch tamper 1
    run_host 1
    local r1 file
    r1=$(sql "SELECT r.id FROM result r JOIN workunit w ON r.workunitid = w.id
        WHERE w.name = 'tamper_0' AND r.outcome = 1")
    file=$(find "$project/upload" -name "$(sql "SELECT name FROM result WHERE id = '$r1'")_*" | head -1)
    [ -n "$file" ] || die "host 1's tamper result was not uploaded"
    python3 - "$file" <<'EOF' || die "tampering failed"
import re, sys
p = sys.argv[1]
s = open(p).read()
m = re.search(r"<search_likelihood>\s*(\S+)\s*</search_likelihood>", s)
s = s[:m.start(1)] + repr(float(m.group(1)) + 1e-10) + s[m.end(1):]
open(p, "w").write(s)
EOF
    run_host 2
    wait_for "SELECT COUNT(*) >= 3 FROM result r JOIN workunit w ON r.workunitid = w.id WHERE w.name = 'tamper_0'" 60 ||
        fail "no third result issued after the disagreement"
    run_host 3
    if wait_for "$(wu_done tamper 1)" 120; then pass "tamper: validated and assimilated"; else fail "tamper: not assimilated"; fi
    [ "$(sql "SELECT validate_state FROM result WHERE id = '$r1'")" = 2 ] &&
        pass "tamper: the tampered result is invalid" || fail "tamper: the tampered result is not invalid"
    [ "$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON r.workunitid = w.id
        WHERE w.name = 'tamper_0' AND r.validate_state = 1 AND r.granted_credit > 0")" = 2 ] &&
        pass "tamper: the other two valid and credited" || fail "tamper: not two credited valid results"
    grep -q '"wu": "tamper_0".*"search_likelihood": -3.125097883803232,' "$project/orrery/separation.jsonl" &&
        pass "tamper: the table holds -3.125097883803232" || fail "tamper: the table lacks small11's likelihood"
}

check_late_result() {
    echo "== 3. a batch's late results still download the shared inputs"
    submit_batch late 2
    local round host seen_gone=
    for round in 1 2 3 4; do
        for host in 1 2 3; do
            run_host "$host" 2
            if [ -z "$seen_gone" ] && [ "$(sql "SELECT COUNT(*) FROM workunit WHERE name LIKE 'late\\_%'
                AND file_delete_state = 2")" -ge 1 ]; then
                seen_gone=$(date -u '+%s')
                [ "$(find "$project/download" -name 'late_*' | grep -c -v '\.md5$')" = 2 ] &&
                    pass "late: file_deleter passed the first work unit and kept the batch's inputs" ||
                    fail "late: the batch's inputs were deleted with the first work unit"
            fi
            [ "$(sql "$(wu_done late 2)")" = 1 ] && break 2
        done
    done
    [ "$(sql "$(wu_done late 2)")" = 1 ] && pass "late: both work units assimilated" || fail "late: not finished"
    [ -n "$seen_gone" ] && [ "$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON r.workunitid = w.id
        WHERE w.name LIKE 'late\\_%' AND r.outcome = 1 AND r.sent_time >= $seen_gone")" -ge 1 ] &&
        pass "late: a result sent after that succeeded" || fail "late: no result was sent after the first work unit was done"
    [ "$(sql "SELECT COUNT(*) FROM result r JOIN workunit w ON r.workunitid = w.id
        WHERE w.name LIKE 'late\\_%' AND r.outcome <> 1 AND r.server_state = 5")" = 0 ] &&
        pass "late: no result failed" || fail "late: a result failed (download error?)"
}

save_evidence() {
    sql "SELECT w.name, r.name, r.hostid, r.outcome, r.validate_state, r.granted_credit, r.sent_time
        FROM result r JOIN workunit w ON r.workunitid = w.id ORDER BY r.id" >"$evidence/results.tsv"
    sql "SELECT name, canonical_resultid, assimilate_state, file_delete_state, error_mask FROM workunit
        ORDER BY id" >"$evidence/workunits.tsv"
    cp "$project/orrery/"*.jsonl "$project"/log_*/script_*.log "$evidence/" 2>/dev/null
}

trap 'stop_server' EXIT
preflight
make_server
follow_readme
check_cleanup_refuses
make_hosts
check_readme_batch
check_tampered
check_late_result
save_evidence
finish
