# shellcheck shell=bash
# Helpers of the simulator, benchmark and Slurm tests (tests/sim/*.sh,
# tests/bench/run.sh, tests/slurm/run.sh): source, then `start_suite NAME`
# (the Slurm test makes its own directory and only takes `verdict`).

# start_suite NAME: $work, a fresh directory for the runs (removed at exit
# unless MEMZIP_KEEP_RUNS=1), and the passed/failed counters at 0.
start_suite() {
    work=$(mktemp -d "${TMPDIR:-/tmp}/memzip-$1.XXXXXX")
    if [[ "${MEMZIP_KEEP_RUNS:-0}" == 1 ]]; then
        echo "run directories kept in $work"
    else
        trap 'rm -rf "$work"' EXIT
    fi
    passed=0
    failed=0
}

# Simulations are single-threaded, so a suite starts up to $test_jobs of them
# at once (MEMZIP_TEST_JOBS, default the machine's cores) and checks their
# results after: `spawn NAME CMD...` starts CMD in the background once a slot
# is free; `joined NAME` waits for it and returns its exit status.
test_jobs=${MEMZIP_TEST_JOBS:-$(nproc)}
spawn() {
    local name=$1
    shift
    while (($(jobs -rp | wc -l) >= test_jobs)); do
        wait -n || true
    done
    (
        status=0
        "$@" || status=$?
        echo "$status" >"$work/.status-$name"
    ) &
}
joined() {
    while [[ ! -f "$work/.status-$1" ]]; do
        if (($(jobs -rp | wc -l) == 0)) && [[ ! -f "$work/.status-$1" ]]; then
            echo "joined: no run named $1 was spawned" >&2
            return 127
        fi
        wait -n || true
    done
    return "$(cat "$work/.status-$1")"
}

verdict() {  # verdict NAME DETAIL CONDITION...
    local name=$1 detail=$2
    shift 2
    if "$@"; then
        passed=$((passed + 1))
        echo "PASS $name: $detail"
    else
        failed=$((failed + 1))
        echo "FAIL $name: $detail"
    fi
}

# total RUN_NAME EXPR: evaluates EXPR over the run's total stats (dict t).
total() {
    python3 -c 'import json, sys
t = json.load(open(sys.argv[1]))["total"]
print(eval(sys.argv[2], {}, {"t": t}))' "$work/$1/stats.json" "$2"
}

# bursts_verdict NAME RUN: every DRAM request met memzip and every burst memzip
# charged (reads, write-backs, metadata, read-modify-write reads) went over the
# bus or was still owed: the simulator's column commands plus those it had not
# issued yet when the last kernel ended (dram_device.unissued_bursts: requests
# between the L2 and the DRAM's command bus, which gpgpu-sim does not wait
# for) equal memzip's bursts exactly, in total and on every channel (the MAG is
# the DRAM atom in every config memzip runs). Fewer would be a request that
# bypassed memzip; more, bursts memzip charged that the DRAM never moves. A
# run that never reached DRAM fails it.
bursts_verdict() {
    local commands unissued bursts off
    read -r commands unissued bursts off < <(python3 -c 'import json, sys
s = json.load(open(sys.argv[1]))
def account(c):
    d = c["dram_device"]
    return d["read_commands"] + d["write_commands"], d["unissued_bursts"], c["dram_bursts"]
off = [str(i) for i, (cmd, owed, bursts) in enumerate(map(account, s["controllers"])) if cmd + owed != bursts]
print(*account(s["total"]), ",".join(off) or "none")' "$work/$2/stats.json")
    verdict "$1" "DRAM column commands $commands + unissued at the end $unissued = $((commands + unissued)), memzip bursts $bursts (channels that differ: $off; requests $(total "$2" '" ".join("%s:%d" % kv for kv in t.get("requests", {}).items())'))" \
        test "${bursts:-0}" -gt 0 -a $((commands + unissued)) -eq "${bursts:-0}" -a "$off" = none
}

# tiny_run RUN BENCH CODEC [memzip options...]: starts BENCH at the tiny preset
# as RUN (spawn; `memzip bench run` builds and makes inputs under a lock per
# suite, and exits non-zero when the output check fails). tiny_verdict NAME RUN
# waits for it: the output check passed and -memzip_verify found 0 failures.
tiny_run() {
    local run=$1 bench=$2 codec=$3
    shift 3
    spawn "$run" "$memzip" bench run "$bench" --codec "$codec" --preset tiny \
        --out "$work/$run" "$@" 2>"$work/$run.err"
}
tiny_verdict() {
    local name=$1 run=$2 failures checked
    if joined "$run"; then
        failures=$(total "$run" 't["verify"]["failures"]')
        checked=$(check_summary "$work/$run")
        verdict "$name" "${checked:-output check passed}; verify failures $failures, effective CR $(total "$run" 'round(t["effective_compression_ratio"] or 0, 3)')" \
            test "$failures" -eq 0
    else
        verdict "$name" "$(tail -n 1 "$work/$run.err")" false
    fi
}
# suite_source SUITE ENV_VAR: the suite's source can be had: ENV_VAR names a
# clone or mirror, or an earlier benchmark run left its clone in the cache.
suite_source() {
    [[ -n "${!2:-}" || -d "$MEMZIP_CACHE/benchmarks/src/$1/.git" ]]
}
# check_summary RUN_DIR: the last line of the run's output check, whole
# (hotspot's ends "largest error 5.37e-04 K; ...", past any fixed width).
check_summary() { tail -n 1 "$1/check.log" 2>/dev/null || true; }

# The simulator's own counters that must not change under -memzip_codec none:
# cycles, instructions, L2 totals and the DRAM statistics (totals, and per
# channel: command/activity lines and the per-bank tables).
counters() {
    sim_output "$1" |
        grep -E '^(gpu_tot_sim_cycle|gpu_tot_sim_insn|total dram (reads|writes)|L2_total_cache_(accesses|misses)|bwutil) =|^(n_cmd|n_activity)=|^dram\[[0-9]+\]:|^(total accesses|average row locality)'
}

# The run's sim.log without the host thread's synchronize messages. Whether
# cudaDeviceSynchronize finds the simulation thread still running is a
# wall-clock race (a loaded machine once printed them in one run of a pair and
# not in the other), and the host thread prints them while the simulation
# thread prints its statistics: a message can land inside a line the simulator
# writes in several parts (intersim's `cout << "Packet latency average = " <<
# ...` once read "Packet latency average = GPGPU-Sim: synchronize waiting for
# inactive GPU simulation", then "9.48761" on the next line). So each message
# is cut out with its newline wherever it stands, which rejoins the line it split.
host_messages='GPGPU-Sim: synchronize waiting for inactive GPU simulation|GPGPU-Sim API: Stream Manager State|GPGPU-Sim: detected inactive GPU simulation thread'
sim_output() {
    sed -zE "s/($host_messages)\n//g" "$work/$1/sim.log"
}

# Every line of the simulator's output (sim_output) but those that may differ
# between two builds or runs: memzip's own lines (and the run's paths: the temp
# dir's name contains memzip), addresses (ASLR), the build name, wall-clock
# rates, and the stream dump under "Stream Manager State" (indented).
stat_lines() {
    sim_output "$1" |
        grep -vE 'memzip|0x[0-9a-f]{6,}|Simulator Version|gpgpu_simulation_(time|rate)|sim_rate|gpgpu_silicon_slowdown|^==> |^    '
}

# count_in TEXT RUN_NAME: how often TEXT occurs in the run's sim.log (0 without one).
count_in() {
    { grep -oF "$1" "$work/$2/sim.log" 2>/dev/null || true; } | wc -l
}

# kernel_chain_checks PREFIX: runs $work/kernel_chain (256 one-block kernels on
# stream 0, benchmarks/kernels/kernel_chain.cu) twice under none. Every kernel
# must start after gpgpu_sim::init(): the simulation thread leaves its loop,
# printing its time, once per kernel. And the two runs must give the same
# statistics. Counted as substrings: a host message can split a line (above),
# never one printf of the simulator.
kernel_chain_checks() {
    local prefix=$1 run kernels exits
    for run in 1 2; do
        spawn "kernel_chain-$run" timeout 600 "$memzip" run --codec none --out "$work/kernel_chain-$run" \
            --expect 'PASS kernel_chain' -- "$work/kernel_chain" 256 32 2>"$work/kernel_chain-$run.err"
    done
    joined kernel_chain-1 || true
    joined kernel_chain-2 || true
    kernels=$(count_in 'kernel_name = ' kernel_chain-1)
    exits=$(count_in 'gpgpu_simulation_time = ' kernel_chain-1)
    verdict "${prefix}kernel-boundaries" "$exits of $kernels kernels started after an init(); $(grep -m1 -oE '(PASS|FAIL) kernel_chain.*' "$work/kernel_chain-1/sim.log" || tail -n 1 "$work/kernel_chain-1.err")" \
        test "$kernels" -eq 256 -a "$exits" -eq 256
    verdict "${prefix}deterministic" "two runs of kernel_chain: stats.json $(cmp -s "$work/kernel_chain-1/stats.json" "$work/kernel_chain-2/stats.json" && echo identical || echo different)" \
        cmp -s "$work/kernel_chain-1/stats.json" "$work/kernel_chain-2/stats.json"
}
