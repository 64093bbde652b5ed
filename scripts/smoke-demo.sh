#!/usr/bin/env bash
# Smoke test of the simulator chain: build benchmarks/demo/vecadd.cu with nvcc,
# run it under gpgpu-sim with one of gpgpu-sim's shipped configs (copied from
# the simulator source into a temp run dir), check its output.
#
#   scripts/smoke-demo.sh [--config NAME] [--keep] [N]
#
#   --config NAME  a dir of configs/tested-cfgs/ (default SM7_QV100)
#   --keep         keep the run dir (its path is printed; kept anyway on failure)
#   N              vector length (default 4096)
# Needs scripts/setup-toolkit.sh and scripts/build-sim.sh done first.
# Prints "smoke-demo: PASS cycles=<gpu_tot_sim_cycle> wall=<s>s" on success.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

config=SM7_QV100
keep=0
n=4096
while (($#)); do
    case $1 in
        --config) config=${2:?--config needs a value}; shift 2 ;;
        --keep) keep=1; shift ;;
        *) n=$1; shift ;;
    esac
done

gpgpusim_paths "${MEMZIP_GPGPUSIM_VERSION:-dev}"
step "smoke-demo: prepare run dir"
cfgdir="$GPGPUSIM_SRC/configs/tested-cfgs/$config"
[[ -f "$cfgdir/gpgpusim.config" ]] || die "no gpgpu-sim config $cfgdir (run scripts/build-sim.sh)"
run=$(mktemp -d "${TMPDIR:-/tmp}/memzip-smoke.XXXXXX")
cp "$cfgdir"/* "$run"/
# Shipped configs may enable the power model, whose XML files and options do
# not all match this simulator version: timing only.
sed -i -e 's/^-power_simulation_enabled 1/-power_simulation_enabled 0/' \
    -e '/^-gpuwattch_xml_file/d' "$run/gpgpusim.config"

step "smoke-demo: nvcc vecadd.cu"
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$run/vecadd" "$MEMZIP_ROOT/benchmarks/demo/vecadd.cu" || die "nvcc failed"

step "smoke-demo: run under gpgpu-sim ($config)"
t0=$(date +%s.%N)
status=0
(cd "$run" && "$MEMZIP_ROOT/scripts/run-in-sim.sh" ./vecadd "$n") >"$run/sim.log" 2>&1 || status=$?
t1=$(date +%s.%N)
if ((status)) || ! grep -q '^vecadd: PASS' "$run/sim.log"; then
    tail -n 20 "$run/sim.log" >&2
    die "vecadd failed under the simulator (exit $status; log $run/sim.log)"
fi
cycles=$(grep -o 'gpu_tot_sim_cycle = [0-9]*' "$run/sim.log" | tail -n1 | grep -o '[0-9]*$')
if ((keep)); then log "run dir: $run"; else rm -rf "$run"; fi
printf 'smoke-demo: PASS config=%s n=%s cycles=%s wall=%ss\n' "$config" "$n" "${cycles:-?}" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
