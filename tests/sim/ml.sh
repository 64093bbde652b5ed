# shellcheck shell=bash
# Sourced by tests/sim/run.sh (MEMZIP_SIM_CHECKS=ml runs only these): the
# `ml` suite (benchmarks/ml/, our CUDA kernels on the tensor corpus of issue
# 51) at its tiny preset. Also runs on its own against an already built
# simulator and CLI (MEMZIP_CLI=path/to/memzip bash tests/sim/ml.sh).
#  - the input generator is deterministic and its checker rejects a wrong
#    answer (one changed output byte; attention: one output 2x its tolerance off);
#  - every program under none and fpexp with -memzip_verify 1: the output
#    equals the host reference, 0 verify failures, column commands == bursts;
#    under fpexp some blocks were checked, and the decode GEMV's bf16 weights
#    take fewer DRAM bytes than under none.
# Without the corpus (scripts/tensor-corpus.sh) one SKIP line, no failure.
# Added time: ~2.5 CPU-minutes (10 simulations of 5-30 s).
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    set -euo pipefail
    source "$(dirname "$0")/../../scripts/lib.sh"
    source "$(dirname "$0")/helpers.sh"
    start_suite simtest-ml
    memzip=${MEMZIP_CLI:-$(memzip_cli)}
    ml_standalone=1
fi

ml_programs="llm_decode_gemv llm_attention_decode rmsnorm gemm_tile train_step"
if [[ ! -f "$MEMZIP_CACHE/tensors/corpus.json" ]]; then
    echo "SKIP ml suite: the tensor corpus is not built (run bash scripts/tensor-corpus.sh)"
else
    ml_gen="$MEMZIP_ROOT/benchmarks/inputs/ml_tensors.py"
    ml_make() { python3 "$ml_gen" make llm_decode_gemv --rows 64 --out "$1" 2>/dev/null; }
    verdict ml-gen-deterministic "ml_tensors.py make llm_decode_gemv twice: same files" \
        eval 'ml_make "$work/ml-gen-a" && ml_make "$work/ml-gen-b" && diff -r "$work/ml-gen-a" "$work/ml-gen-b" >/dev/null'
    cp "$work/ml-gen-a/reference.bin" "$work/ml-right.bin"
    python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[5] ^= 1; open(sys.argv[2], "wb").write(b)' \
        "$work/ml-right.bin" "$work/ml-wrong.bin"
    verdict ml-check-right "the reference itself accepted" \
        eval 'python3 "$ml_gen" check llm_decode_gemv "$work/ml-gen-a" "$work/ml-right.bin" >/dev/null 2>&1'
    verdict ml-check-wrong "one bit of one output changed: rejected" \
        eval '! python3 "$ml_gen" check llm_decode_gemv "$work/ml-gen-a" "$work/ml-wrong.bin" >/dev/null 2>&1'
    python3 "$ml_gen" make llm_attention_decode --heads 2 --tokens 64 --out "$work/ml-att" 2>/dev/null
    python3 - "$work/ml-att" <<'PY'
import struct, sys
d = sys.argv[1]
ref = open(f"{d}/reference.bin", "rb").read()
tol = struct.unpack("<2d", open(f"{d}/tolerance.bin", "rb").read())
values = list(struct.unpack(f"<{len(ref) // 8}d", ref))
open(f"{d}/right.bin", "wb").write(struct.pack(f"<{len(values)}f", *values))
values[3] += 2 * tol[0]
open(f"{d}/wrong.bin", "wb").write(struct.pack(f"<{len(values)}f", *values))
PY
    verdict ml-check-attention "the reference accepted, one output 2x its tolerance off rejected" \
        eval 'python3 "$ml_gen" check llm_attention_decode "$work/ml-att" "$work/ml-att/right.bin" >/dev/null 2>&1 &&
              ! python3 "$ml_gen" check llm_attention_decode "$work/ml-att" "$work/ml-att/wrong.bin" >/dev/null 2>&1'

    for program in $ml_programs; do
        for codec in none fpexp; do
            tiny_run "ml-$program-$codec" "ml/$program" "$codec" --set "-memzip_verify 1"
        done
    done
    for program in $ml_programs; do
        for codec in none fpexp; do
            run="ml-$program-$codec"
            tiny_verdict "$run" "$run"
            [[ -f "$work/$run/stats.json" ]] || continue
            bursts_verdict "$run-bursts" "$run"
            [[ "$codec" == fpexp ]] &&
                verdict "$run-verified" "$(total "$run" 't["verify"]["checked"]') blocks decoded and checked" \
                    test "$(total "$run" 't["verify"]["checked"]')" -gt 0
        done
    done
    if [[ -f "$work/ml-llm_decode_gemv-none/stats.json" && -f "$work/ml-llm_decode_gemv-fpexp/stats.json" ]]; then
        none_bytes=$(total ml-llm_decode_gemv-none 't["dram_bytes"]')
        fpexp_bytes=$(total ml-llm_decode_gemv-fpexp 't["dram_bytes"]')
        verdict ml-gemv-fpexp-fewer-bytes "DRAM bytes of the decode GEMV: none $none_bytes, fpexp $fpexp_bytes" \
            test "$fpexp_bytes" -lt "$none_bytes"
    fi
fi

if [[ -n "${ml_standalone:-}" ]]; then
    echo "$passed passed, $failed failed"
    ((failed == 0))
fi
