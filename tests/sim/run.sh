#!/usr/bin/env bash
# Simulator tests: our CUDA test program under gpgpu-sim with memzip.
#
# Runs when a gpgpu-sim source is available (MEMZIP_GPGPUSIM_REPO, or the
# clone a previous build left in the memzip cache); otherwise prints one SKIP
# line and succeeds. Builds the memzip simulator and an unpatched baseline
# (compatibility patches only) once; later runs reuse both.
#
# Checks (issue "Simulator chain", Done means):
#  - patterns {zeros, ints, floats, random} x {none, bdi, mag_bdi, e2mc16,
#    bpc, adaptive} with -memzip_verify 1: program output PASS, 0 verify failures;
#  - none == unpatched simulator: same cycles and DRAM counters (totals and
#    per-channel lines), and every other statistic line of the log the same;
#  - mag_bdi cuts DRAM bytes of low-dynamic-range ints by >= 30%;
#  - random bytes compress nothing (effective ratio < 1.02 for every codec);
#  - determinism, a bad option stopping the run with one line, the trace file;
#  - a write's compression latency does not stall later requests, a read's
#    decompression latency does (the DRAM latency queue in ready-cycle order);
#  - the option checks of options.sh (E2MC settings of adaptive candidates,
#    bad values stopping with one line); MEMZIP_SIM_CHECKS=options runs only those.
#  - every run: the DRAM's column commands, plus those it still owed when the
#    last kernel ended, equal memzip's bursts exactly (helpers.sh);
#  - the QV100 and RTX3070 configs (gpus.sh, MEMZIP_SIM_CHECKS=gpus): sector
#    reads and partial write-backs through memzip, read-modify-write cost;
#  - SLC (slc.sh): approximable data compresses more than under E2MC16 and the
#    program sees the approximation; unmarked, SLC is exact (MEMZIP_SIM_CHECKS=slc).
#  - energy (memzip's model, issue "energy"): ints cost less DRAM and total
#    energy under mag_bdi and e2mc16 than under none; random bytes cost more
#    under fpc (compressor and metadata cache, no burst saved); the row
#    activations and simulated time come from the simulator.
#  - the ml suite at tiny (ml.sh, MEMZIP_SIM_CHECKS=ml): our tensor kernels on
#    the corpus's real tensors under none and fpexp, outputs exact, 0 verify failures.
# MEMZIP_KEEP_RUNS=1 keeps the run directories. Ends with "N passed, N failed".
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
gpgpusim_paths dev
if [[ -z "${MEMZIP_GPGPUSIM_REPO:-}" && ! -d "$GPGPUSIM_SRC/.git" ]]; then
    echo "SKIP simulator tests: no gpgpu-sim source (set MEMZIP_GPGPUSIM_REPO to a clone or mirror of gpgpu-sim_distribution)"
    exit 0
fi

source "$(dirname "$0")/helpers.sh"  # verdict, total, counters, stat_lines
start_suite simtest

step "build the simulator with memzip and the unpatched baseline"
bash "$MEMZIP_ROOT/scripts/build-sim.sh" >/dev/null
[[ "${MEMZIP_SIM_CHECKS:-all}" != all ]] ||
    bash "$MEMZIP_ROOT/scripts/setup-gpgpusim.sh" --version dev-baseline >/dev/null
memzip=$(memzip_cli)
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$work/patterns" "$MEMZIP_ROOT/benchmarks/kernels/patterns.cu"

words=262144  # 1 MiB per buffer: beyond the 768 KB L2, a few seconds per run

# sim RUN_NAME CODEC PATTERN [memzip run options...]: 0 when the program passed.
sim() {
    local name=$1 codec=$2 pattern=$3
    shift 3
    "$memzip" run --codec "$codec" --out "$work/$name" \
        --set "-memzip_verify 1" --set "-memzip_e2mc_sampling online:20000" \
        --expect '^PASS' "$@" -- "$work/patterns" "$pattern" "$words" 2>"$work/$name.err"
}

if [[ "${MEMZIP_SIM_CHECKS:-all}" =~ ^(options|slc|gpus|ml)$ ]]; then
    source "$(dirname "$0")/$MEMZIP_SIM_CHECKS.sh"
    echo "$passed passed, $failed failed"
    exit $((failed > 0))
fi


codecs="none bdi mag_bdi e2mc16 bpc adaptive"
# Every run below that needs no other run's result starts here, $test_jobs at
# a time (helpers.sh, spawn); the checks wait for the runs they read (joined).
for pattern in zeros ints floats random; do
    for codec in $codecs; do
        spawn "$pattern-$codec" sim "$pattern-$codec" "$codec" "$pattern"
    done
done
for pattern in ints random; do
    spawn "$pattern-baseline" "$memzip" run --version dev-baseline --codec none --out "$work/$pattern-baseline" \
        --expect '^PASS' -- "$work/patterns" "$pattern" "$words" 2>"$work/$pattern-baseline.err"
done
spawn random-fpc sim random-fpc fpc random
spawn ints-mag_bdi-again sim ints-mag_bdi-again mag_bdi ints
spawn latency-0 sim latency-0 mag_bdi ints --set "-memzip_comp_latency 0" --set "-memzip_decomp_latency 0"
spawn latency-comp500 sim latency-comp500 mag_bdi ints --set "-memzip_comp_latency 500" --set "-memzip_decomp_latency 0"
spawn latency-decomp500 sim latency-decomp500 mag_bdi ints --set "-memzip_comp_latency 0" --set "-memzip_decomp_latency 500"
spawn ints-trace sim ints-trace mag_bdi ints --set "-memzip_trace $work/ints.trace.zst"
for pattern in zeros ints floats random; do
    for codec in $codecs; do
        name="$pattern-$codec"
        if joined "$name"; then
            checked=$(total "$name" 't["verify"]["checked"]')
            failures=$(total "$name" 't["verify"]["failures"]')
            ratio=$(total "$name" 'round(t["effective_compression_ratio"] or 0, 3)')
            # none compresses nothing: it may verify nothing.
            min_checked=1
            [[ "$codec" == none ]] && min_checked=0
            verdict "$name" "output PASS, verified $checked blocks, $failures failures, effective CR $ratio" \
                test "$failures" -eq 0 -a "$checked" -ge "$min_checked"
            bursts_verdict "$name-bursts" "$name"
        else
            verdict "$name" "program or simulator failed: $(tail -n 2 "$work/$name/sim.log" 2>/dev/null | tr '\n' ' ')" false
        fi
    done
done

for pattern in ints random; do
    name="$pattern-baseline"
    if joined "$name"; then
        base_cycles=$(grep -m1 -oP '^gpu_tot_sim_cycle = \K[0-9]+' "$work/$name/sim.log" || echo '?')
        none_cycles=$(grep -m1 -oP '^gpu_tot_sim_cycle = \K[0-9]+' "$work/$pattern-none/sim.log" || echo '?')
        base_dram=$(grep -oP '^total dram (reads|writes) = \K[0-9]+' "$work/$name/sim.log" | paste -sd/ || true)
        none_dram=$(grep -oP '^total dram (reads|writes) = \K[0-9]+' "$work/$pattern-none/sim.log" | paste -sd/ || true)
        verdict "none-equals-unpatched-$pattern" "cycles $none_cycles vs unpatched $base_cycles, DRAM reads/writes $none_dram vs $base_dram, $(counters "$name" | wc -l) counter lines compared" \
            cmp -s <(counters "$name") <(counters "$pattern-none")
        first_diff=$(diff <(stat_lines "$pattern-none") <(stat_lines "$name") | grep -m2 '^[<>]' | tr '\n' ' ' || true)
        verdict "none-equals-unpatched-$pattern-log" "$(stat_lines "$name" | wc -l) statistic lines compared${first_diff:+, first difference: $first_diff}" \
            test -z "$first_diff" -a "$(grep -cE '^-?memzip_|GPGPU-Sim memzip' "$work/$name/sim.log")" -eq 0
    else
        verdict "none-equals-unpatched-$pattern" "unpatched run failed (log $work/$name/sim.log)" false
    fi
done

# The comparisons above must not depend on where the host thread's messages
# land: one cut into a statistic line made a clean clone fail with
# "< Packet latency average = 9.48761 > 9.48761". Replay that split (and one in
# a counter line) on a copy of the unpatched run's log.
if [[ -f "$work/ints-baseline/sim.log" ]]; then
    mkdir -p "$work/ints-split"
    sed -E 's/^(Packet latency average = |gpu_tot_sim_cycle = )/\1GPGPU-Sim: synchronize waiting for inactive GPU simulation\n/' \
        "$work/ints-baseline/sim.log" >"$work/ints-split/sim.log"
    verdict "host-message-inside-a-line" "$(grep -cE '= GPGPU-Sim: synchronize' "$work/ints-split/sim.log") lines split, statistic and counter lines equal the unsplit log's" \
        eval 'cmp -s <(stat_lines ints-split) <(stat_lines ints-baseline) && cmp -s <(counters ints-split) <(counters ints-baseline) &&
              ! cmp -s "$work/ints-split/sim.log" "$work/ints-baseline/sim.log"'
fi

if [[ -f "$work/ints-none/stats.json" && -f "$work/ints-mag_bdi/stats.json" ]]; then
    none_bytes=$(total ints-none 't["dram_bytes"]')
    mag_bytes=$(total ints-mag_bdi 't["dram_bytes"]')
    cut=$(python3 -c "print(round(100 * (1 - $mag_bytes / $none_bytes), 1))")
    verdict "mag_bdi-cuts-int-traffic" "DRAM bytes $none_bytes -> $mag_bytes (-$cut%, need >= 30%)" \
        python3 -c "import sys; sys.exit(0 if $mag_bytes <= 0.7 * $none_bytes else 1)"
fi

for codec in $codecs; do
    [[ -f "$work/random-$codec/stats.json" ]] || continue
    ratio=$(total "random-$codec" 't["effective_compression_ratio"] or 1.0')
    verdict "random-incompressible-$codec" "effective CR $ratio (need < 1.02)" \
        python3 -c "import sys; sys.exit(0 if $ratio < 1.02 else 1)"
done

# Energy: `total.energy` of stats.json (pJ).
if joined random-fpc; then
    verdict "random-fpc" "output PASS, verified $(total random-fpc 't["verify"]["checked"]') blocks, $(total random-fpc 't["verify"]["failures"]') failures" \
        test "$(total random-fpc 't["verify"]["failures"]')" -eq 0
else
    verdict "random-fpc" "program or simulator failed: $(tail -n 2 "$work/random-fpc/sim.log" 2>/dev/null | tr '\n' ' ')" false
fi
energy_of() {  # energy_of RUN_NAME -> "dram_pj total_pj codec_pj metadata_pj"
    # No generator here: eval's local `t` is not visible inside one.
    total "$1" '"%.1f %.1f %.1f %.1f" % (t["energy"]["dram_pj"], t["energy"]["total_pj"], t["energy"]["codec_pj"], t["energy"]["metadata_pj"])'
}
if [[ -f "$work/ints-none/stats.json" ]]; then
    read -r none_dram none_total _ _ <<<"$(energy_of ints-none)"
    activations=$(total ints-none 't["energy"]["dram_activations"]')
    edp=$(total ints-none 't["energy"]["edp_js"]')
    sim_cycles=$(grep -oP '^gpu_tot_sim_cycle = \K[0-9]+' "$work/ints-none/sim.log" | tail -n 1)
    verdict "energy-from-the-simulator" "none ints: $activations row activations, $(total ints-none 't["energy"]["simulated_cycles"]') cycles (log: $sim_cycles), EDP $edp J*s" \
        test "$activations" -gt 0 -a "$(total ints-none 't["energy"]["simulated_cycles"]')" == "$sim_cycles"
    for codec in mag_bdi e2mc16; do
        [[ -f "$work/ints-$codec/stats.json" ]] || continue
        read -r dram energy codec_pj meta_pj <<<"$(energy_of "ints-$codec")"
        verdict "energy-ints-$codec-below-none" "DRAM $none_dram -> $dram pJ, total $none_total -> $energy pJ (codec $codec_pj, metadata $meta_pj)" \
            python3 -c "import sys; sys.exit(0 if $dram < $none_dram and $energy < $none_total else 1)"
    done
fi
if [[ -f "$work/random-none/stats.json" && -f "$work/random-fpc/stats.json" ]]; then
    read -r none_dram none_total _ _ <<<"$(energy_of random-none)"
    read -r dram energy codec_pj meta_pj <<<"$(energy_of random-fpc)"
    verdict "energy-random-fpc-above-none" "total $none_total -> $energy pJ (DRAM $none_dram -> $dram, codec $codec_pj, metadata $meta_pj)" \
        python3 -c "import sys; sys.exit(0 if $energy > $none_total and $codec_pj > 0 else 1)"
fi

if joined ints-mag_bdi-again; then
    verdict "deterministic" "mag_bdi ints twice: same stats.json and counters" \
        cmp -s "$work/ints-mag_bdi/stats.json" "$work/ints-mag_bdi-again/stats.json"
    verdict "deterministic-counters" "same simulator counters" \
        cmp -s <(counters ints-mag_bdi) <(counters ints-mag_bdi-again)
fi

# Stores do not stall (the E2MC paper Sec. III-B3, Fig. 5): a write's compression
# latency must not hold up the requests issued after it in the partition's
# DRAM latency queue, while a read's decompression latency delays its warp.
# (Before the queue kept ready-cycle order, 500 compression cycles cost +43%.)
cycles_of() { grep -m1 -oP '^gpu_tot_sim_cycle = \K[0-9]+' "$work/$1/sim.log"; }
if joined latency-0 && joined latency-comp500 && joined latency-decomp500; then
    base=$(cycles_of latency-0) comp=$(cycles_of latency-comp500) decomp=$(cycles_of latency-decomp500)
    verdict "stores-do-not-stall" "cycles: no latency $base, compression 500 $comp (need <= +5%), decompression 500 $decomp (need >= +20%)" \
        test "$((comp * 100))" -le "$((base * 105))" -a "$((decomp * 100))" -ge "$((base * 120))"
else
    verdict "stores-do-not-stall" "a run failed: $(tail -n 1 "$work/latency-0.err" "$work/latency-comp500.err" "$work/latency-decomp500.err" 2>/dev/null | tr '\n' ' ')" false
fi

status=0
sim bad-codec zip ints || status=$?
verdict "bad-codec-stops" "exit $status, $(grep -m1 'memzip: ERROR' "$work/bad-codec/sim.log" || echo 'no error line')" \
    grep -q 'GPGPU-Sim memzip: ERROR -memzip_codec: invalid codec' "$work/bad-codec/sim.log"

if joined ints-trace; then
    verdict "trace-written" "$(stat -c %s "$work/ints.trace.zst" 2>/dev/null || echo 0) bytes" \
        test -s "$work/ints.trace.zst"
    # Offline analysis of the trace must see exactly the blocks the simulator
    # compressed (write-backs and copies) and size them identically.
    "$memzip" analyze "$work/ints.trace.zst" --codecs mag_bdi --no-shannon --json "$work/analyze.json" >/dev/null
    offline=$(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["traces"][0]["codecs"][0]
print(c["blocks"], c["compressed_bits"], c["mag_bytes"])' "$work/analyze.json")
    online=$(total ints-trace 't["writes"]["blocks"] + t["memcpy"]["blocks"], t["writes"]["compressed_bits"] + t["memcpy"]["compressed_bits"], t["writes"]["mag_bytes"] + t["memcpy"]["mag_bytes"]' | tr -d '(),')
    verdict "analyze-matches-simulator" "blocks, bits, MAG bytes: offline $offline, in the simulator $online" \
        test "$offline" == "$online"
    # The trace only records the blocks: the same run without it simulates the
    # same (memzip sweep --reuse relies on it to stand a study's traced none run
    # in for a sensitivity sweep's untraced one).
    verdict "trace-keeps-timing" "mag_bdi ints with and without -memzip_trace: same stats.json and counters" \
        eval 'cmp -s "$work/ints-trace/stats.json" "$work/ints-mag_bdi/stats.json" && cmp -s <(counters ints-trace) <(counters ints-mag_bdi)'
else
    verdict "trace-written" "run with -memzip_trace failed" false
fi

# Warp shuffles, votes and bit-field opcodes (checked on the host): dev
# segfaulted on __shfl* until the config's SHFL latency fitted the SP
# pipeline, then gave wrong shfl results and hung in bfind until our 0003
# patch. The program must print PASS, with 0 verify failures.
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$work/modern_ptx" "$MEMZIP_ROOT/benchmarks/kernels/modern_ptx.cu"
for codec in none mag_bdi; do
    spawn "modern_ptx-$codec" timeout 600 "$memzip" run --codec "$codec" --out "$work/modern_ptx-$codec" \
        --set "-memzip_verify 1" -- "$work/modern_ptx" 4096 2>"$work/modern_ptx-$codec.err"
done
for codec in none mag_bdi; do
    name="modern_ptx-$codec"
    joined "$name" || true
    verdict_line=$(grep -m1 -E '^(PASS|FAIL)' "$work/$name/sim.log" || echo "no verdict: $(grep -m1 -E 'Segmentation|Aborted|ERROR' "$work/$name/sim.log" || tail -n 1 "$work/$name.err")")
    failures=$( [[ -f "$work/$name/stats.json" ]] && total "$name" 't["verify"]["failures"]' || echo missing)
    verdict "$name-passes" "$verdict_line; verify failures $failures" \
        test "${verdict_line#PASS warp_ops, lane_moves, bit_ops and rem_ops}" != "$verdict_line" -a "$failures" == 0
done

# The device queries programs size their launches by (the same program is a
# v3.2.1 test, where the struct layouts of the two CUDA versions differ).
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$work/device_query" "$MEMZIP_ROOT/benchmarks/kernels/device_query.cu"
timeout 600 "$memzip" run --codec none --out "$work/device_query-none" \
    -- "$work/device_query" 2>"$work/device_query.err" || true
verdict device-query "$(grep -m1 '^device:' "$work/device_query-none/sim.log" || true); $(grep -m1 -E '^(PASS|FAIL)|symbol lookup error' "$work/device_query-none/sim.log" || tail -n 1 "$work/device_query.err")" \
    grep -q '^PASS device_query' "$work/device_query-none/sim.log"

# Kernel boundaries and determinism (helpers.sh; v3.2.1 passes them with our
# 0004 patch, a v3.2.1 test).
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$work/kernel_chain" "$MEMZIP_ROOT/benchmarks/kernels/kernel_chain.cu"
kernel_chain_checks ""

# DRAM bandwidth utilisation from the simulator's own counters (stats.json,
# run.json): the channels' average of the per-channel bw_util in sim.log.
if [[ -f "$work/ints-none/stats.json" ]]; then
    util=$(total ints-none 't["dram_bandwidth_utilization"]')
    from_log=$(python3 - "$work/ints-none/sim.log" <<'PY'
import re, sys
# The last kernel's per-channel lines carry the cumulative counters.
lines = re.findall(r"^n_cmd=(\d+) .* bw_util=([0-9.e+-]+)$", open(sys.argv[1], errors="replace").read(), re.M)
last = lines[-6:]
print(sum(float(u) for _, u in last) / len(last))
PY
)
    verdict "dram-utilization" "stats.json $util, average of the last 6 bw_util lines $from_log, run.json $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["dram_bandwidth_utilization"])' "$work/ints-none/run.json")" \
        python3 -c "import sys; sys.exit(0 if 0 < $util < 1 and abs($util - $from_log) < 1e-3 else 1)"
fi

# Runs load this checkout's snapshot of the simulator library, not the shared
# build folder another checkout may relink (scripts/setup-gpgpusim.sh).
mkdir -p "$work/libcheck" && cp "$GPGPUSIM_PATCH_DIR/configs/GTX580-MAG32/gpgpusim.config" "$work/libcheck/"
first_libdir=$(cd "$work/libcheck" && bash "$MEMZIP_ROOT/scripts/run-in-sim.sh" sh -c 'echo "${LD_LIBRARY_PATH%%:*}"')
snapshot=$(sed -n 1p "$(gpgpusim_checkout_pointer)")
verdict "runs-load-the-checkouts-library" "first library folder $first_libdir, this checkout's snapshot $snapshot" \
    test "$first_libdir" == "$snapshot" -a "$first_libdir" != "$(cat "$GPGPUSIM_DIR/libdir")"

# A run loads only a simulator this checkout built from its current sources:
# in a copy of the checkout, `memzip run` refuses before any build, runs once
# the copy's pointer names this checkout's snapshot with the copy's sources,
# and refuses again when a codec source changes, each time naming the command.
copy="$work/checkout-copy"
mkdir -p "$copy/rust"
cp -r "$MEMZIP_ROOT"/{scripts,cpp_shim,gpgpu-sim-patch,Cargo.toml,Cargo.lock} "$copy/"
cp -r "$MEMZIP_ROOT/rust/memzip" "$MEMZIP_ROOT/rust/memzip-ffi" "$copy/rust/"
copy_run() {  # the line that says whether it ran or why it refused
    { MEMZIP_ROOT="$copy" "$memzip" run --codec none --out "$work/copy-run" -- "$work/kernel_chain" 2 32 2>&1 || true; } |
        grep -E 'ok in|FAILED at step' | tail -n 1
}
unbuilt=$(copy_run)
copy_pointer=$(source "$copy/scripts/lib.sh" && gpgpusim_paths dev && gpgpusim_checkout_pointer)
copy_key=$(source "$copy/scripts/lib.sh" && gpgpusim_paths dev && gpgpusim_sources_key)
printf '%s\n%s\n%s\n' "$snapshot" "$copy" "$copy_key" >"$copy_pointer"
built=$(copy_run)
recorded=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("simulator_sources"))' "$work/copy-run/run.json" 2>&1 || true)
echo "// an edited codec" >>"$copy/rust/memzip/src/lib.rs"
edited=$(copy_run)
rm -f "$copy_pointer"
verdict "unbuilt-simulator-refused" "$unbuilt" grep -q "not built for this checkout: run bash scripts/build-sim.sh --version dev" <<<"$unbuilt"
verdict "current-simulator-runs" "$built; run.json's simulator_sources $recorded (the copy's $copy_key)" \
    test "${built#*none: ok}" != "$built" -a "$recorded" == "$copy_key"
verdict "stale-simulator-refused" "$edited" grep -q "built from other sources than this checkout's.*run bash scripts/build-sim.sh --version dev" <<<"$edited"

source "$(dirname "$0")/options.sh"
source "$(dirname "$0")/slc.sh"
source "$(dirname "$0")/gpus.sh"
source "$(dirname "$0")/ml.sh"

# Real benchmarks: tests/bench/run.sh.

echo "$passed passed, $failed failed"
((failed == 0))
