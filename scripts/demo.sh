#!/usr/bin/env bash
# memzip's main job, one command: set up everything, run our CUDA demo program
# under gpgpu-sim with DRAM compression by several codecs, and print a
# comparison table (cycles, speedup, DRAM bytes, raw/effective compression
# ratio, metadata-cache hit rate, verification, output check).
#
#   scripts/demo.sh [--words N] [--codecs "none bdi ..."] [--out DIR]
#
#   --words N     words per buffer of benchmarks/kernels/patterns.cu (default
#                 1048576: 4 MiB in + 4 MiB out, beyond the 768 KB L2)
#   --codecs LIST codecs to compare (default: none bdi mag_bdi fpc cpack_z e2mc16 adaptive)
#   --out DIR     results (default: $MEMZIP_CACHE/results/demo); one run dir per
#                 pattern and codec with sim.log, stats.json, run.json (`memzip run`)
#
# Environment: MEMZIP_GPGPUSIM_REPO (a local clone or mirror of gpgpu-sim;
# default: the public upstream), XDG_CACHE_HOME (everything built lands in
# .../memzip). Every run uses -memzip_verify 1: each compressed block is
# decompressed and compared. E2MC samples online for the first 20000
# instructions (the papers' 20M would cover the whole of this small program).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

words=1048576
codecs="none bdi mag_bdi fpc cpack_z e2mc16 adaptive"
out="$MEMZIP_CACHE/results/demo"
while (($#)); do
    case $1 in
        --words) words=${2:?--words needs a number}; shift 2 ;;
        --codecs) codecs=${2:?--codecs needs a list}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        *) die "unknown argument '$1' (usage: demo.sh [--words N] [--codecs LIST] [--out DIR])" ;;
    esac
done
[[ "$words" =~ ^[1-9][0-9]*$ ]] || die "--words must be a positive integer, got '$words'"

step "toolkit"
bash "$MEMZIP_ROOT/scripts/setup-toolkit.sh"

step "simulator with memzip"
bash "$MEMZIP_ROOT/scripts/build-sim.sh" >/dev/null

step "memzip CLI"
memzip=$(memzip_cli)

step "build the demo program"
bin="$MEMZIP_CACHE/demo/bin"
mkdir -p "$bin"
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$bin/patterns" "$MEMZIP_ROOT/benchmarks/kernels/patterns.cu" || die "nvcc failed"

mkdir -p "$out"
for pattern in ints floats; do
    dirs=()
    for codec in $codecs; do
        step "run: $pattern with $codec"
        run="$out/$pattern-$codec"
        "$memzip" run --codec "$codec" --out "$run" \
            --set "-memzip_verify 1" --set "-memzip_e2mc_sampling online:20000" \
            --expect '^PASS' -- "$bin/patterns" "$pattern" "$words" ||
            die "$pattern with $codec failed (log: $run/sim.log)"
        dirs+=("$run")
    done
    echo
    echo "patterns $pattern $words words (GTX580-MAG32, 32 B MAG, 128 B blocks):"
    "$memzip" table "${dirs[@]}"
done
echo
echo "Equal DRAM bytes, different speedups (adaptive and bdi on ints): a write waiting for its compressor"
echo "lets the reads behind it go first (README.md, under the demo's table; gpgpu-sim-patch/README.md)."
echo "Run directories: $out"
