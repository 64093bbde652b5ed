#!/usr/bin/env bash
# Analyses every trace of the tensor corpus (scripts/tensor-corpus.sh) with
# memzip's codecs at 128-byte blocks and a 32-byte MAG, the tensor bounds of
# its element format, and fpexp decoded and compared block by block; then
# writes the tables in benchmarks/tensors/results.md.
#
#   bash benchmarks/tensors/analyze.sh [CORPUS_DIR]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

corpus=${1:-$MEMZIP_CACHE/tensors}
[[ -f "$corpus/corpus.json" ]] || die "$corpus/corpus.json missing: run scripts/tensor-corpus.sh first"
out="$corpus/analysis"
mkdir -p "$out"
memzip=$(memzip_cli)
# E2MC runs with a table profiled from the trace it codes (--e2mc-offline):
# its best case, the E2MC paper's Fig. 9a.
codecs=none,bdi,mag_bdi,fpc,cpack_z,bpc,e2mc8,e2mc16,adaptive

step "analyse $corpus/traces"
for trace in "$corpus"/traces/*.mztrace; do
    name=$(basename "$trace" .mztrace)
    format=${name##*.}
    list=$codecs
    [[ $format == int8 ]] || list="$codecs,fpexp:format=$format"
    nice -n 10 "$memzip" analyze "$trace" --codecs "$list" --e2mc-offline --no-shannon \
        --element-format "$format" --json "$out/$name.json" >/dev/null || die "memzip analyze $trace failed"
    if [[ $format != int8 ]]; then
        nice -n 10 "$memzip" analyze "$trace" --codecs "fpexp:format=$format" --no-shannon --verify \
            --json "$out/$name.verify.json" >/dev/null || die "fpexp does not round-trip $trace"
    fi
done

step "tables"
python3 "$MEMZIP_ROOT/benchmarks/tensors/summarize.py" "$corpus" -o "$MEMZIP_ROOT/benchmarks/tensors/results.md" \
    || die "summarize.py failed"
