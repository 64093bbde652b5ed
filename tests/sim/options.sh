# shellcheck shell=bash
# Simulator checks of the -memzip_* options (issue "Reliability"): every
# configuration either does what it says or stops with one error line naming
# the flag. Sourced by run.sh after its set-up (uses $work, $memzip, sim,
# verdict, total); `MEMZIP_SIM_CHECKS=options bash tests/sim/run.sh` runs
# only these.

# stops NAME CODEC PATTERN EXPECTED_LINE [memzip run options...]: the run must
# fail with exit 1 (not an abort) and print EXPECTED_LINE (a fixed string).
stops() {
    local name=$1 codec=$2 expected=$3
    shift 3
    local status=0
    sim "$name" "$codec" ints "$@" || status=$?
    local sim_status
    sim_status=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["exit_status"])' "$work/$name/run.json" 2>/dev/null || echo '?')
    local line ok=false
    line=$(grep -m1 'GPGPU-Sim memzip: ERROR' "$work/$name/sim.log" || echo 'no error line')
    if [[ $status -ne 0 && $sim_status == 1 ]] && grep -qF -- "$expected" "$work/$name/sim.log"; then ok=true; fi
    verdict "$name" "simulator exit $sim_status, $line" "$ok"
}

# writes_compressed RUN: write-backs stored compressed.
writes_compressed() {
    total "$1" 't["writes"]["compressed_blocks"]'
}

# An offline E2MC table from a trace of the ints program (the trace run.sh
# writes, or one of our own when run alone).
[[ -f "$work/ints.trace.zst" ]] || sim ints-trace mag_bdi ints --set "-memzip_trace $work/ints.trace.zst" || true
table="$work/ints.e2mc16.json"
"$memzip" e2mc-profile "$work/ints.trace.zst" --symbol-bits 16 -o "$table" >/dev/null

# Adaptive with an E2MC candidate gets the E2MC settings: an offline table
# compresses from the first block, as e2mc16 alone does.
if sim offline-e2mc16 e2mc16 ints --set "-memzip_e2mc_sampling offline:$table" &&
    sim offline-adaptive adaptive ints --set "-memzip_adaptive_candidates e2mc16" \
        --set "-memzip_e2mc_sampling offline:$table"; then
    alone=$(writes_compressed offline-e2mc16)
    adaptive=$(writes_compressed offline-adaptive)
    writes=$(total offline-adaptive 't["writes"]["blocks"]')
    verdict "adaptive-e2mc-offline-table" "write-backs compressed: e2mc16 alone $alone, adaptive candidate $adaptive of $writes (need > half of alone)" \
        test "$adaptive" -gt 0 -a "$((2 * adaptive))" -gt "$alone"
else
    verdict "adaptive-e2mc-offline-table" "a run failed: $(tail -n 1 "$work/offline-adaptive.err" 2>/dev/null)" false
fi

# A candidate of -memzip_codec samples online and its window ends.
if sim online-adaptive "adaptive:candidates=e2mc16" ints; then
    ended=$(grep -m1 -c 'sampling ended after' "$work/online-adaptive/sim.log" || true)
    compressed=$(writes_compressed online-adaptive)
    verdict "adaptive-e2mc-online-window" "sampling ended lines: $ended, write-backs compressed: $compressed" \
        test "$ended" -eq 1 -a "$compressed" -gt 0
else
    verdict "adaptive-e2mc-online-window" "run failed: $(tail -n 1 "$work/online-adaptive.err" 2>/dev/null)" false
fi

# Candidates carry their own knobs ('/' separates candidates, '+' bases).
if sim candidate-knobs "adaptive:candidates=mag_bdi:bases=8+4+2/fpc" ints; then
    compressed=$(writes_compressed candidate-knobs)
    verdict "adaptive-candidate-knobs" "write-backs compressed: $compressed" test "$compressed" -gt 0
else
    verdict "adaptive-candidate-knobs" "run failed: $(tail -n 1 "$work/candidate-knobs.err" 2>/dev/null)" false
fi

stops pdw-3-candidate-stops "adaptive:candidates=e2mc16" \
    "GPGPU-Sim memzip: ERROR -memzip_e2mc_pdw: invalid value '3'" --set "-memzip_e2mc_pdw 3"
stops missing-table-stops adaptive \
    "GPGPU-Sim memzip: ERROR -memzip_e2mc_sampling: cannot read table '$work/no-such-table.json'" \
    --set "-memzip_adaptive_candidates e2mc16" --set "-memzip_e2mc_sampling offline:$work/no-such-table.json"
stops duplicate-knob-stops "e2mc16:pdw=4,pdw=8" \
    "GPGPU-Sim memzip: ERROR -memzip_codec: invalid e2mc16 knob 'pdw': expected each knob once"
stops block-bytes-64-stops mag_bdi "GPGPU-Sim memzip: ERROR -memzip_block_bytes 64: the L2 moves 128-byte lines" \
    --set "-memzip_block_bytes 64"
stops verify-2-stops mag_bdi "GPGPU-Sim memzip: ERROR -memzip_verify: invalid value '2': expected 0 or 1" \
    --set "-memzip_verify 2"
stops mdc-assoc-3-stops mag_bdi "GPGPU-Sim memzip: ERROR -memzip_mdc_assoc: invalid mdc_assoc '3'" \
    --set "-memzip_mdc_assoc 3"
