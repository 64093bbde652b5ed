# shellcheck shell=bash
# Simulator checks of SLC, the lossy codec (issue 39): approximable data
# (-memzip_approx_allocs) reaches the codec, approximated blocks reach the
# program, and nothing else changes. Sourced by run.sh after its set-up (uses
# $work, $memzip, $words, sim, verdict, total).
#
# patterns floats256 stores its blocks in ~43 bytes under E2MC16 (a table learnt
# offline from the none run's trace, so input copies and output write-backs
# are all coded): a few bytes above a 32-byte MAG multiple, where SLC
# approximates. Its input and output buffers are allocations 1 and 2.

slc_sim() {  # slc_sim NAME CODEC [sim-run options...]: the floats program with the offline table
    local name=$1 codec=$2
    shift 2
    "$memzip" run --codec "$codec" --out "$work/$name" --label "patterns floats256" \
        --set "-memzip_verify 1" --set "-memzip_e2mc_sampling offline:$work/floats.e2mc16.json" \
        "$@" -- "$work/patterns" floats256 "$words" 1 "$work/$name.values" 2>"$work/$name.err"
}

if "$memzip" run --codec none --out "$work/floats-trace" --label "patterns floats256" \
        --set "-memzip_trace $work/floats.trace.zst" --expect '^PASS' \
        -- "$work/patterns" floats256 "$words" 1 "$work/floats-trace.values" 2>"$work/floats-trace.err" &&
    "$memzip" e2mc-profile "$work/floats.trace.zst" --symbol-bits 16 -o "$work/floats.e2mc16.json" >/dev/null &&
    slc_sim floats-e2mc16-offline e2mc16 --expect '^PASS' &&
    slc_sim floats-slc-unmarked slc --expect '^PASS'; then
    # Unmarked, SLC is E2MC16: the same output, bit for bit, and no approximation.
    verdict "slc-unmarked-is-exact" "output PASS, values equal the none run's: $(cmp -s "$work/floats-slc-unmarked.values" "$work/floats-trace.values" && echo yes || echo no), approximated blocks $(total floats-slc-unmarked 't["approximation"]["approximated_blocks"]')" \
        eval 'cmp -s "$work/floats-slc-unmarked.values" "$work/floats-trace.values" &&
              [ "$(total floats-slc-unmarked "t[\"approximation\"][\"approximated_blocks\"]")" -eq 0 ]'
    # Marked (input and output): the program sees the approximation, so its
    # own check fails; the simulation completes and every block decodes to
    # the approximation announced (verify).
    slc_sim floats-slc-marked slc --set "-memzip_approx_allocs 1:in,2:out" || true
    e2mc=$(total floats-e2mc16-offline 'round(t["effective_compression_ratio"], 3)')
    slc=$(total floats-slc-marked 'round(t["effective_compression_ratio"] or 0, 3)')
    approximated=$(total floats-slc-marked 't["approximation"]["approximated_blocks"]')
    failures=$(total floats-slc-marked 't["verify"]["failures"]')
    checked=$(total floats-slc-marked 't["verify"]["checked"]')
    verdict "slc-marked-compresses-more" "effective CR slc $slc vs e2mc16 $e2mc, $approximated blocks approximated, verified $checked, $failures failures" \
        python3 -c "import sys; sys.exit(0 if $slc > $e2mc and $approximated > 0 and $failures == 0 and $checked > 0 else 1)"
    verdict "slc-marked-output-changed" "$(grep -m1 -E '^(PASS|FAIL)' "$work/floats-slc-marked/sim.log" || echo 'no verdict line')" \
        eval '! cmp -s "$work/floats-slc-marked.values" "$work/floats-trace.values" && grep -q "^FAIL floats256" "$work/floats-slc-marked/sim.log"'
    # The error it cost, recorded in run.json and shown by memzip table
    # (with the run's failed output) beside the exact runs.
    "$memzip" output-error --exact "$work/floats-trace.values" --values "$work/floats-slc-marked.values" \
        "$work/floats-slc-marked" >/dev/null 2>"$work/slc-error.err" || true
    error=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["output_error"]["mean_relative_error"])' \
        "$work/floats-slc-marked/run.json" 2>/dev/null || echo 0)
    "$memzip" table "$work/floats-trace" "$work/floats-e2mc16-offline" "$work/floats-slc-marked" >"$work/slc-table.txt" 2>&1 || true
    shown=$(grep -E '^patterns floats256 +slc ' "$work/slc-table.txt" | grep -oE '[0-9.]+%$' || echo 'no row')
    verdict "slc-output-error-reported" "mean relative error $error in run.json; memzip table shows $shown; output $(grep -oE 'FAIL|ok' <<<"$(grep -E '^patterns floats256 +slc ' "$work/slc-table.txt")" | head -n 1)" \
        eval 'python3 -c "import sys; sys.exit(0 if 0 < $error < 1 else 1)" && [[ "$shown" == *% ]] && grep -qE "^patterns floats256 +slc .*FAIL" "$work/slc-table.txt"'
else
    verdict "slc-floats" "a run failed: $(tail -n 1 "$work"/floats-*.err 2>/dev/null | tr '\n' ' ')" false
fi

# A list that does not parse stops the run with one line naming the flag.
stops_slc=0
sim bad-approx-list slc floats --set "-memzip_approx_allocs 0:x" || stops_slc=$?
verdict "slc-bad-approx-list" "$(grep -m1 'GPGPU-Sim memzip: ERROR' "$work/bad-approx-list/sim.log" || echo 'no error line')" \
    eval '[ "$stops_slc" -ne 0 ] && grep -q "ERROR -memzip_approx_allocs: invalid approximable allocation" "$work/bad-approx-list/sim.log"'
