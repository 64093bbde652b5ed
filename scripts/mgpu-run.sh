#!/usr/bin/env bash
# One MGPUSim benchmark run under memzip-mgpu, in the interface of the other
# runners (memzip bench run, which hands multi-GPU manifests here, and so
# memzip sweep):
#
#   scripts/mgpu-run.sh --benchmark NAME --preset P --codec C [--out DIR] [--set FLAGS]...
#
# NAME is a manifest under benchmarks/mgpusim/ (mgpusim/fir or fir); the
# preset's sizes are its SIZE_<preset>. Each --set line holds memzip-mgpu flags
# ("-verify", "-fabric pcie", "-trace payloads.mztrace": a relative trace path
# lands in the run directory). The run directory gets run.json, stats.json and
# mgpu.log (memzip-mgpu's output); the default is
# $MEMZIP_CACHE/benchmarks/results/mgpusim-NAME-P-C. A run with a trace also
# gets analyze.json and analyze.txt: memzip analyze of the payloads as the
# fabric carries them (data-ready and write payloads, whole bytes, the paper's
# costs) under the paper's algorithms (Table V of the multi-GPU paper).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

name="" preset=tiny codec="" out="" flags=()
while (($#)); do
    case $1 in
        --benchmark) name=${2:?--benchmark needs a name}; shift 2 ;;
        --preset) preset=${2:?--preset needs a value}; shift 2 ;;
        --codec) codec=${2:?--codec needs a value}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --set) read -ra words <<<"${2:?--set needs flags}"; flags+=("${words[@]}"); shift 2 ;;
        --expect) die "--expect: multi-GPU runs check their output with the benchmark's own check" ;;
        *) die "unknown argument '$1'" ;;
    esac
done
[[ -n "$name" && -n "$codec" ]] || die "usage: mgpu-run.sh --benchmark NAME --preset P --codec C [--out DIR] [--set FLAGS]..."
name=${name#mgpusim/}
manifest="$MEMZIP_ROOT/benchmarks/mgpusim/$name.env"
[[ -f "$manifest" ]] || die "unknown multi-GPU benchmark '$name' (benchmarks/mgpusim/*.env)"
unset PRESETS STATUS
# shellcheck disable=SC1090
source "$manifest"
[[ "$STATUS" == runs ]] || die "mgpusim/$name does not run here: $STATUS"
[[ " $PRESETS " == *" $preset "* ]] || die "--preset $preset: mgpusim/$name has presets: $PRESETS"
size_var="SIZE_$preset"
OUT=${out:-$MEMZIP_CACHE/benchmarks/results/mgpusim-$name-$preset-$codec}

bin=$(bash "$MEMZIP_ROOT/scripts/build-mgpu.sh")
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
step "simulate mgpusim/$name $preset ($codec) on MGPUSim"
# From inside the run directory, so a relative -trace lands there.
if ! (cd "$OUT" && "$bin" -benchmark "$name" -size "${!size_var}" -codec "$codec" -out . "${flags[@]}") >"$OUT/mgpu.log" 2>&1; then
    tail -n 5 "$OUT/mgpu.log" >&2
    die "mgpusim/$name $preset $codec failed (log: $OUT/mgpu.log)"
fi
log "$(grep -m 1 "kernel cycles" "$OUT/mgpu.log")"
log "mgpusim/$name $preset $codec: output correct"

trace=""
for ((i = 0; i + 1 < ${#flags[@]}; i++)); do
    [[ "${flags[i]}" == -trace ]] && trace=${flags[i + 1]}
done
if [[ -n "$trace" ]]; then
    step "memzip analyze of the payload trace"
    (cd "$MEMZIP_ROOT" && cargo build --release --locked -q -p memzip-cli) >&2 || die "cargo build -p memzip-cli failed"
    cli="${CARGO_TARGET_DIR:-$MEMZIP_ROOT/target}/release/memzip"
    [[ "$cli" == /* ]] || cli="$MEMZIP_ROOT/$cli"
    # From inside the run directory, so the files name the trace relative to it.
    (cd "$OUT" && "$cli" analyze "$trace" --include-reads --mag-bytes 1 --costs paper004 \
        --codecs "bdi,fpc,cpack_z,adaptive:lambda=0,adaptive:lambda=6,adaptive:lambda=32" \
        --json analyze.json >analyze.txt) || die "memzip analyze of $trace failed"
fi
