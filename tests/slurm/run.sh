#!/usr/bin/env bash
# `memzip sweep --slurm` against a real single-node Slurm that this test
# starts itself (munged, slurmctld and slurmd on this machine, state and logs
# in a temporary folder, ports picked per run) and stops on exit.
#
# The runs use a fake runner (no simulator): it writes run.json into its
# --out folder, sleeps $SLEEP seconds first, and fails for codec "bad".
# Checks: the array's results equal a local sweep's of the same spec; a
# failing run is recorded in <id>.failed/; a second sweep submits only what
# is missing (nothing once all is done); a task cancelled mid-run leaves no
# run directory and the next sweep completes it.
#
# Slurm comes from Debian's slurm-wlm (installed with apt when missing and
# this runs as root); only where it cannot be installed or started does the
# test print one SKIP line. Ends with "N passed, N failed".
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

skip() {
    echo "SKIP slurm tests: $1"
    exit 0
}

have_slurm() { command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged; } >/dev/null
if ! have_slurm; then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        step "install slurm-wlm and munge (apt)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } \
            >/dev/null 2>&1 || true
    fi
    have_slurm || skip "slurmctld, slurmd, sbatch or munged missing and not installable here (apt install slurm-wlm munge)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/memzip-slurmtest.XXXXXX")
sock="$work/munge.sock"
stop_slurm() {
    set +e
    [[ -n "${SLURM_CONF:-}" ]] && scancel --quiet --user "$(id -un)" 2>/dev/null
    for pid_file in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munged.pid"; do
        [[ -f "$pid_file" ]] && kill "$(cat "$pid_file")" 2>/dev/null
    done
    sleep 1
    [[ "${MEMZIP_KEEP_RUNS:-0}" == 1 ]] && echo "slurm test folder kept: $work" || rm -rf "$work"
}
trap stop_slurm EXIT

# --- a private single-node cluster -------------------------------------------
mkdir -p "$work/state" "$work/spool" "$work/log"
head -c 1024 /dev/urandom >"$work/munge.key"
chmod 400 "$work/munge.key"
# --force: munged refuses root and non-default paths without it.
munged --force --key-file="$work/munge.key" --socket="$sock" --pid-file="$work/munged.pid" \
    --log-file="$work/log/munged.log" --seed-file="$work/munge.seed" >/dev/null 2>&1 ||
    skip "munged does not start (log: $(tail -n 1 "$work/log/munged.log" 2>/dev/null))"
host=$(hostname -s)
port=$((20000 + $$ % 20000))
cat >"$work/slurm.conf" <<EOF
ClusterName=memzip-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=memzip Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF" -i >/dev/null 2>&1 || skip "slurmctld does not start ($(tail -n 1 "$work/log/slurmctld.log" 2>/dev/null))"
slurmd -f "$SLURM_CONF" >/dev/null 2>&1 || skip "slurmd does not start ($(tail -n 1 "$work/log/slurmd.log" 2>/dev/null))"
for _ in $(seq 60); do
    [[ "$(sinfo --noheader --format=%t 2>/dev/null)" == idle ]] && break
    sleep 0.5
done
[[ "$(sinfo --noheader --format=%t 2>/dev/null)" == idle ]] ||
    skip "the local Slurm node never became idle (slurmd log: $(tail -n 1 "$work/log/slurmd.log" 2>/dev/null))"
echo "local Slurm $(sinfo --version | cut -d' ' -f2) up on $host, ports $port-$((port + 1))"

# --- the test -----------------------------------------------------------------
source "$MEMZIP_ROOT/tests/sim/helpers.sh"  # verdict
passed=0
failed=0

(cd "$MEMZIP_ROOT" && cargo build --release --locked -q -p memzip-cli)
memzip="${CARGO_TARGET_DIR:-$MEMZIP_ROOT/target}/release/memzip"
cat >"$work/runner.sh" <<'EOF'
#!/usr/bin/env bash
set -eu
codec= out= sets=()
while (($#)); do
  case $1 in
    --codec) codec=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --set) sets+=("$2"); shift 2 ;;
    --expect) shift 2 ;;
    --benchmark) set -- "$2" "$4"; break ;;
    --) shift; break ;;
  esac
done
mkdir -p "$out"
sleep "${SLEEP:-0}"
[[ "$codec" != bad ]] || { echo "bad codec" >&2; exit 1; }
printf '{"codec": "%s", "program": "%s", "options": "%s"}\n' "$codec" "$*" "${sets[*]:-}" >"$out/run.json"
EOF
spec() {  # spec FILE CODEC...: a command-line entry and a benchmark entry
    local codecs
    codecs=$(printf '"%s", ' "${@:2}")
    cat >"$1" <<EOF
{"runs": [{"name": "ints", "argv": ["prog", "ints"], "codecs": [${codecs%, }]},
          {"benchmark": "rodinia/bfs", "codecs": ["none"], "option_sets": [["-memzip_verify 1"], ["-memzip_mdc_bytes 4096"]]}]}
EOF
}
spec "$work/all.json" none mag_bdi bad
spec "$work/good.json" none mag_bdi
sweep() {  # sweep SPEC OUT [sweep options]: exit status in $rc, output in $work/sweep.log
    rc=0
    (cd "$work" && "$memzip" sweep "$1" --out "$2" "${@:3}" --runner bash "$work/runner.sh") >"$work/sweep.log" 2>&1 || rc=$?
}
# run_files DIR: every run directory's run.json, named by run, in one text.
run_files() {
    local d
    for d in "$1"/*/; do
        [[ -f "$d/run.json" ]] && echo "$(basename "$d"): $(cat "$d/run.json")"
    done
}

sweep "$work/all.json" "$work/local" -j 2
sweep "$work/all.json" "$work/slurm" --slurm --time 5
verdict array-submitted "$(grep -m1 'submitted as Slurm job' "$work/sweep.log")" \
    grep -q '5 submitted as Slurm job' "$work/sweep.log"
verdict array-exit-status "a failed run makes the sweep exit 1 (got $rc)" test "$rc" -eq 1
verdict array-equals-local "$(run_files "$work/slurm" | wc -l) run directories, run.json as the local sweep's" \
    eval '[[ "$(run_files "$work/slurm")" == "$(run_files "$work/local")" && -n "$(run_files "$work/local")" ]]'
verdict array-failure-recorded "ints-bad.failed/runner.log names the error" \
    grep -q 'bad codec' "$work/slurm/ints-bad.failed/runner.log"
verdict array-task-logs "one log per task" test "$(ls "$work/slurm/slurm/submit-1"/task-*.log | wc -l)" -eq 5

sweep "$work/all.json" "$work/slurm" --slurm
verdict resubmit-missing-only "second sweep: $(grep -m1 'submitted as' "$work/sweep.log")" \
    grep -q '4 already done, 1 submitted' "$work/sweep.log"
sweep "$work/good.json" "$work/slurm" --slurm
verdict nothing-to-submit "$(head -n 1 "$work/sweep.log")" \
    eval 'grep -q "nothing to submit" "$work/sweep.log" && ((rc == 0)) && [[ ! -d "$work/slurm/slurm/submit-4" ]]'

# Cancel the array while its tasks run: no half result may take a run's name.
SLEEP=30 sweep "$work/good.json" "$work/killed" --slurm --no-wait
job=$(grep -o 'Slurm job [0-9]*' "$work/sweep.log" | cut -d' ' -f3)
for _ in $(seq 60); do
    [[ -n "$(compgen -G "$work/killed/.tmp-*")" ]] && break
    sleep 0.5
done
started=$(compgen -G "$work/killed/.tmp-*" | wc -l)
scancel "$job"
for _ in $(seq 60); do
    [[ -z "$(squeue --noheader --jobs "$job" 2>/dev/null)" ]] && break
    sleep 0.5
done
verdict cancelled-leaves-no-result "$started task(s) had started; no run directory after scancel" \
    eval '((started > 0)) && [[ -z "$(run_files "$work/killed")" ]]'
sweep "$work/good.json" "$work/killed" --slurm
verdict resume-after-cancel "$(grep -m1 'submitted as' "$work/sweep.log"); all 4 done, no .tmp left" \
    eval '((rc == 0)) && [[ "$(run_files "$work/killed")" == "$(run_files "$work/local" | grep -v ints-bad)" && -z "$(compgen -G "$work/killed/.tmp-*")" ]]'

echo "$passed passed, $failed failed"
((failed == 0))
