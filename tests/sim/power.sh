#!/usr/bin/env bash
# Simulator tests of the simulator's own power model around memzip (issue
# "energy", third part): GPUWattch on v3.2.1 and AccelWattch on dev, both with
# the GTX480 GPUWattch XML the simulator ships patched for our GTX580
# (`memzip run --power`, gpgpu-sim-patch/<version>/power/).
#
# Per version, patterns ints (1 MiB per buffer, memory-bound, compressible)
# under none and mag_bdi with -memzip_verify 1:
#  - output PASS, 0 verify failures, one power report per run, the GTX580
#    patch applied (822 MHz core clock in the run's XML);
#  - the report is consistent: every component >= 0, whole-GPU energy > 0 and
#    the sum of the components, the printed total equal to its components
#    (within print rounding), every kernel sampled;
#  - the run's total = power-model energy + memzip codec + metadata energy;
#  - mag_bdi: the power model's DRAM energy <= 80% of none's, the total
#    energy below none's.
#
# Runs when a gpgpu-sim source is available (as tests/sim/run.sh); a version
# whose power XML is missing from the built simulator gets one SKIP line.
# MEMZIP_KEEP_RUNS=1 keeps the run directories. Ends with "N passed, N failed".
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib.sh"
gpgpusim_paths dev
if [[ -z "${MEMZIP_GPGPUSIM_REPO:-}" && ! -d "$GPGPUSIM_SRC/.git" ]]; then
    echo "SKIP power model tests: no gpgpu-sim source (set MEMZIP_GPGPUSIM_REPO to a clone or mirror of gpgpu-sim_distribution)"
    exit 0
fi

source "$(dirname "$0")/helpers.sh"  # verdict, total
start_suite powertest

memzip=$(memzip_cli)
"$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 \
    -o "$work/patterns" "$MEMZIP_ROOT/benchmarks/kernels/patterns.cu"
words=262144

# power_field RUN_NAME EXPR: EXPR over the run's `memzip power` object (p).
power_field() {
    "$memzip" power "$work/$1" | python3 -c 'import json, sys
p = json.load(sys.stdin)[0]
print(eval("(" + sys.argv[1] + ")", {}, {"p": p}))' "$2"
}

for version in v3.2.1 dev; do
    step "power model on gpgpu-sim $version"
    bash "$MEMZIP_ROOT/scripts/build-sim.sh" --version "$version" >/dev/null
    gpgpusim_paths "$version"
    case $version in
        v3.2.1) xml="$GPGPUSIM_SRC/configs/GTX480/gpuwattch_gtx480.xml" model=GPUWattch ;;
        dev) xml="$GPGPUSIM_SRC/configs/tested-cfgs/SM2_GTX480/gpuwattch_gtx480.xml" model=AccelWattch ;;
    esac
    if [[ ! -f "$xml" ]]; then
        echo "SKIP power model on $version: $xml missing from the simulator checkout"
        continue
    fi
    ok=1
    for codec in none mag_bdi; do
        name="$version-ints-$codec"
        if "$memzip" run --version "$version" --power --codec "$codec" --out "$work/$name" \
            --set "-memzip_verify 1" --expect '^PASS' -- "$work/patterns" ints "$words" 2>"$work/$name.err"; then
            reports=$(find "$work/$name" -maxdepth 1 -name '*power_report*.log' | wc -l)
            verdict "power-$name-runs" "$model report files $reports, verify failures $(total "$name" 't["verify"]["failures"]'), XML clock $(grep -o 'target_core_clockrate" value="[0-9]*' "$work/$name/gpuwattch_gtx580.xml" | grep -o '[0-9]*$')" \
                test "$reports" -eq 1 -a "$(total "$name" 't["verify"]["failures"]')" -eq 0 \
                -a "$(power_field "$name" 'p["model"]')" == "$model" \
                -a -n "$(grep 'target_core_clockrate" value="822"' "$work/$name/gpuwattch_gtx580.xml")"
            # Consistency as printed: components >= 0, their sum is the GPU
            # energy, the printed total matches (6 significant digits printed).
            consistent=$(power_field "$name" 'all(v >= 0 for v in p["components_pj"].values())
                and p["gpu_energy_pj"] > 0 and p["unsampled_kernels"] == 0 and p["kernels"] >= 1
                and abs(sum(p["components_pj"].values()) - p["gpu_energy_pj"]) <= 1e-9 * p["gpu_energy_pj"]
                and p["max_printed_total_mismatch_w"] <= 1e-3
                and abs(p["total_energy_pj"] - p["gpu_energy_pj"] - p["memzip_codec_pj"] - p["memzip_metadata_pj"]) <= 1e-6 * p["total_energy_pj"]')
            verdict "power-$name-consistent" "GPU $(power_field "$name" 'round(p["gpu_energy_pj"] / 1e6, 1)') uJ (DRAM $(power_field "$name" 'round(p["gpu_dram_energy_pj"] / 1e6, 1)') uJ) + memzip codec/metadata $(power_field "$name" 'round((p["memzip_codec_pj"] + p["memzip_metadata_pj"]) / 1e6, 4)') uJ, printed total off by $(power_field "$name" '"%.1e" % p["max_printed_total_mismatch_w"]') W" \
                test "$consistent" == True
        else
            ok=0
            verdict "power-$name-runs" "program or simulator failed: $(tail -n 2 "$work/$name.err" | tr '\n' ' ')" false
        fi
    done
    ((ok)) || continue
    none_dram=$(power_field "$version-ints-none" 'p["gpu_dram_energy_pj"]')
    mag_dram=$(power_field "$version-ints-mag_bdi" 'p["gpu_dram_energy_pj"]')
    none_total=$(power_field "$version-ints-none" 'p["total_energy_pj"]')
    mag_total=$(power_field "$version-ints-mag_bdi" 'p["total_energy_pj"]')
    verdict "power-$version-mag_bdi-saves-dram-energy" "$model DRAM energy $(python3 -c "print(round($mag_dram / $none_dram * 100, 1))")% of none's (need <= 80%)" \
        python3 -c "import sys; sys.exit(not ($mag_dram <= 0.8 * $none_dram))"
    verdict "power-$version-mag_bdi-saves-total-energy" "whole-GPU + memzip energy: mag_bdi $(python3 -c "print(round($mag_total / 1e6, 1))") uJ, none $(python3 -c "print(round($none_total / 1e6, 1))") uJ" \
        python3 -c "import sys; sys.exit(not ($mag_total < $none_total))"
done

echo "$passed passed, $failed failed"
((failed == 0))
