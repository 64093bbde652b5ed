#!/usr/bin/env bash
# Simulator tests on gpgpu-sim v3.2.1 (the papers' version) with the same
# memzip hooks as on dev: our patterns and modern_ptx programs and Rodinia bfs
# (tiny) under none, mag_bdi and e2mc16, Rodinia backprop under mag_bdi, with
# -memzip_verify 1, outputs checked; runs two at a time (helpers.sh, spawn); none against the unpatched v3.2.1; mag_bdi cuts integer
# traffic; CUDA SDK transpose and Lonestar bfs (tiny, mag_bdi) when their
# sources are available (else one SKIP line each). In every patterns and
# Rodinia run, the DRAM's column commands (+ those still owed at the end)
# equal memzip's bursts (helpers.sh).
#
# Runs when a gpgpu-sim source is available (MEMZIP_GPGPUSIM_REPO, or a clone
# an earlier setup left in the memzip cache: v3.2.1's own or dev's, which
# holds v3.2.1's commit too); otherwise one SKIP line. The Rodinia part needs
# a Rodinia source as in tests/bench/run.sh. MEMZIP_KEEP_RUNS=1 keeps the run
# directories. Ends with "N passed, N failed".
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"

if [[ -z "${MEMZIP_GPGPUSIM_REPO:-}" ]]; then
    gpgpusim_paths v3.2.1
    v321_src=$GPGPUSIM_SRC
    gpgpusim_paths dev
    if [[ -d "$GPGPUSIM_SRC/.git" && ! -d "$v321_src/.git" ]]; then
        export MEMZIP_GPGPUSIM_REPO="$GPGPUSIM_SRC"  # a local clone: no download
    elif [[ ! -d "$v321_src/.git" ]]; then
        echo "SKIP v3.2.1 simulator tests: no gpgpu-sim source (set MEMZIP_GPGPUSIM_REPO to a clone or mirror of gpgpu-sim_distribution)"
        exit 0
    fi
fi

source "$(dirname "$0")/helpers.sh"  # verdict, total, counters, stat_lines, suite_source
start_suite v321test

step "build gpgpu-sim v3.2.1 with memzip and unpatched"
bash "$MEMZIP_ROOT/scripts/build-sim.sh" --version v3.2.1 >/dev/null
bash "$MEMZIP_ROOT/scripts/setup-gpgpusim.sh" --version v3.2.1-baseline >/dev/null
for program in patterns modern_ptx device_query kernel_chain; do
    "$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
        -o "$work/$program" "$MEMZIP_ROOT/benchmarks/kernels/$program.cu"
done
export MEMZIP_GPGPUSIM_VERSION=v3.2.1  # memzip run and memzip bench run
memzip=$(memzip_cli)

codecs=(none mag_bdi e2mc16)
# Short E2MC sampling, so the small programs leave it and compress.
options=(--set "-memzip_verify 1" --set "-memzip_e2mc_sampling online:20000")
words=262144

# The runs that need no other run's result start here, $test_jobs at a time
# (helpers.sh, spawn); each check waits for the runs it reads (joined).
for codec in "${codecs[@]}"; do
    spawn "ints-$codec" "$memzip" run --codec "$codec" --out "$work/ints-$codec" "${options[@]}" \
        --expect '^PASS' -- "$work/patterns" ints "$words" 2>"$work/ints-$codec.err"
    spawn "modern_ptx-$codec" "$memzip" run --codec "$codec" --out "$work/modern_ptx-$codec" "${options[@]}" \
        --expect '^PASS warp_ops, lane_moves, bit_ops and rem_ops' -- "$work/modern_ptx" 4096 2>"$work/modern_ptx-$codec.err"
done
spawn device_query "$memzip" run --codec none --out "$work/device_query-none" \
    --expect '^PASS device_query' -- "$work/device_query" 2>"$work/device_query.err"
spawn ints-baseline "$memzip" run --version v3.2.1-baseline --codec none --out "$work/ints-baseline" \
    --expect '^PASS' -- "$work/patterns" ints "$words" 2>"$work/baseline.err"

for codec in "${codecs[@]}"; do
    name="ints-$codec"
    if joined "$name"; then
        checked=$(total "$name" 't["verify"]["checked"]')
        fails=$(total "$name" 't["verify"]["failures"]')
        ratio=$(total "$name" 'round(t["effective_compression_ratio"] or 0, 3)')
        verdict "v321-patterns-$name" "output PASS, verified $checked blocks, $fails failures, effective CR $ratio" \
            test "$fails" -eq 0 -a "$checked" -ge 1
        bursts_verdict "v321-patterns-$name-bursts" "$name"
    else
        verdict "v321-patterns-$name" "program or simulator failed: $(tail -n 2 "$work/$name/sim.log" 2>/dev/null | tr '\n' ' ')" false
    fi
done

# The PTX of CUDA 9+ programs that v3.2.1 predates (0003 patch): warp
# shuffles, votes and bit-field opcodes, each result checked on the host; and
# rem after a 32-bit add that carries past bit 31 (0005 patch).
for codec in "${codecs[@]}"; do
    name="modern_ptx-$codec"
    if joined "$name"; then
        verdict "v321-$name" "shfl.sync, vote.sync, bfe/bfi/bfind/brev/prmt, rem results PASS, verify failures $(total "$name" 't["verify"]["failures"]')" \
            test "$(total "$name" 't["verify"]["failures"]')" -eq 0
    else
        verdict "v321-$name" "$(grep -m1 -E '^FAIL|Syntax error|not implemented' "$work/$name/sim.log" || tail -n 1 "$work/$name.err")" false
    fi
done

# The device queries CUDA 13 programs size their launches by, in their own
# struct layout (0001 patch: v3.2.1 builds against CUDA 11.8's headers).
if joined device_query; then
    verdict v321-device-query "$(grep -m1 '^device:' "$work/device_query-none/sim.log"), as cudaDeviceGetAttribute says; cudaMemGetInfo answers" true
else
    verdict v321-device-query "$(grep -m1 -E '^FAIL|symbol lookup error' "$work/device_query-none/sim.log" || tail -n 1 "$work/device_query.err")" false
fi

# Kernel boundaries and determinism (helpers.sh, 0004 patch): before the patch
# 223-231 of the 256 kernels started after an init(), varying run to run.
kernel_chain_checks v321-
# Its one cudaDeviceSynchronize waits for the simulation (v3.2.1 returned at once).
synced=$(count_in 'GPGPU-Sim: detected inactive GPU simulation thread' kernel_chain-1)
verdict v321-device-synchronize-waits "cudaDeviceSynchronize waited for the simulation thread $synced time(s)" \
    test "$synced" -ge 1

if joined ints-baseline; then
    verdict v321-none-equals-unpatched "$(counters ints-baseline | wc -l) counter lines, cycles $(grep -m1 -oP '^gpu_tot_sim_cycle = \K[0-9]+' "$work/ints-baseline/sim.log")" \
        cmp -s <(counters ints-baseline) <(counters ints-none)
    # From the first kernel's statistics on: v3.2.1 also prints its temp file
    # names and interleaves the option listing differently before that.
    kernel_stats() { stat_lines "$1" | sed -n '/^kernel_name = /,$p'; }
    first_diff=$(diff <(kernel_stats ints-none) <(kernel_stats ints-baseline) | grep -m2 '^[<>]' | tr '\n' ' ' || true)
    verdict v321-none-equals-unpatched-log "$(kernel_stats ints-baseline | wc -l) statistic lines compared${first_diff:+, first difference: $first_diff}" \
        test -z "$first_diff" -a "$(kernel_stats ints-baseline | wc -l)" -gt 100
else
    verdict v321-none-equals-unpatched "unpatched run failed (log $work/ints-baseline/sim.log)" false
fi

if [[ -f "$work/ints-none/stats.json" && -f "$work/ints-mag_bdi/stats.json" ]]; then
    none_bytes=$(total ints-none 't["dram_bytes"]')
    mag_bytes=$(total ints-mag_bdi 't["dram_bytes"]')
    verdict v321-mag_bdi-cuts-int-traffic "DRAM bytes $none_bytes -> $mag_bytes (need <= 70%)" \
        test "$((100 * mag_bytes))" -le "$((70 * none_bytes))"
fi

# SLC (issue 39) through the same hooks: the allocations are reported, the
# marked ones approximated and written back into v3.2.1's memory (the
# output changes), each block verified. E2MC16's table is learnt offline from
# a none run's trace so that every block is coded (tests/sim/slc.sh).
if "$memzip" run --codec none --out "$work/floats-trace" \
        --set "-memzip_trace $work/floats.trace.zst" --expect '^PASS' \
        -- "$work/patterns" floats256 "$words" 1 "$work/floats-none.values" 2>"$work/floats-trace.err" &&
    "$memzip" e2mc-profile "$work/floats.trace.zst" --symbol-bits 16 -o "$work/floats.e2mc16.json" >/dev/null; then
    "$memzip" run --codec slc --out "$work/floats-slc" --set "-memzip_verify 1" \
        --set "-memzip_e2mc_sampling offline:$work/floats.e2mc16.json" --set "-memzip_approx_allocs 1:in,2:out" \
        -- "$work/patterns" floats256 "$words" 1 "$work/floats-slc.values" 2>"$work/floats-slc.err" || true
    approximated=$(total floats-slc 't["approximation"]["approximated_blocks"]' 2>/dev/null || echo 0)
    fails=$(total floats-slc 't["verify"]["failures"]' 2>/dev/null || echo '?')
    verdict v321-slc-approximates "$approximated blocks approximated, verify failures $fails, $(grep -m1 -E '^(PASS|FAIL)' "$work/floats-slc/sim.log" || echo 'no verdict line')" \
        eval '[ "$approximated" -gt 0 ] && [ "$fails" == 0 ] && ! cmp -s "$work/floats-slc.values" "$work/floats-none.values"'
else
    verdict v321-slc-approximates "the none run or the profile failed: $(tail -n 1 "$work/floats-trace.err")" false
fi

# Rodinia bfs under each codec; backprop (floats, two kernels; ~80 s a run)
# under mag_bdi only: none and e2mc16 on v3.2.1 are the runs above and bfs's.
rodinia_runs=(bfs-none bfs-mag_bdi bfs-e2mc16 backprop-mag_bdi)
if suite_source rodinia MEMZIP_RODINIA_REPO; then
    for name in "${rodinia_runs[@]}"; do
        tiny_run "$name" "rodinia/${name%-*}" "${name##*-}" "${options[@]}"
    done
    for name in "${rodinia_runs[@]}"; do
        tiny_verdict "v321-rodinia-$name" "$name"
        # bfs's partial writes and line fills at unaligned addresses (issue 52).
        if [[ -f "$work/$name/stats.json" ]]; then bursts_verdict "v321-rodinia-$name-bursts" "$name"; fi
    done
else
    echo "SKIP v3.2.1 rodinia runs: no Rodinia source (set MEMZIP_RODINIA_REPO to a clone or mirror of yuhc/gpu-rodinia)"
fi

# One program per other suite, mag_bdi only: they need the runtime calls
# (cudaDeviceGetAttribute, cudaFuncSetCacheConfig, cudaSetDeviceFlags) and
# PTX (barrier.sync, atomics, ptxas' constant-bank lines) of the port.
other_suites=("cuda-samples/transpose MEMZIP_CUDA_SAMPLES_REPO NVIDIA/cuda-samples"
    "lonestar/bfs MEMZIP_LONESTAR_REPO accel-sim/gpu-app-collection")
other_runs=()
for entry in "${other_suites[@]}"; do
    read -r bench repo_var upstream <<<"$entry"
    suite=${bench%%/*}
    if ! suite_source "$suite" "$repo_var"; then
        echo "SKIP v3.2.1 $bench run: no $suite source (set $repo_var to a clone or mirror of $upstream)"
        continue
    fi
    name="${bench//\//-}-mag_bdi"
    other_runs+=("$name")
    tiny_run "$name" "$bench" mag_bdi "${options[@]}"
done
for name in "${other_runs[@]}"; do
    tiny_verdict "v321-$name" "$name"
done

echo "$passed passed, $failed failed"
((failed == 0))
