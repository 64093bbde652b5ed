#!/usr/bin/env bash
# Prepare a run directory and run one CUDA program in it under the
# memzip-patched gpgpu-sim with one codec. `memzip run` calls this and writes
# the run's record (run.json) from what it prints; use that, not this script,
# unless you want the simulation alone.
#
#   scripts/sim-run.sh --codec NAME --out RUN_DIR [options] -- PROGRAM [ARGS...]
#
#   --codec NAME      -memzip_codec value (none, bdi, mag_bdi, ..., or name:knob=v)
#   --out RUN_DIR     created (emptied if it exists); receives gpgpusim.config,
#                     sim.log (simulator + program output) and stats.json
#                     (-memzip_stats_json)
#   --gpu NAME        the GPU: gtx580 (default; our GTX580-MAG32 config, the
#                     papers'), qv100 (gpgpu-sim's SM7_QV100: Volta, HBM2,
#                     32-byte sectors) or rtx3070 (SM86_RTX3070: Ampere, GDDR6).
#                     qv100 and rtx3070 exist on dev only: their config is
#                     read from the built simulator's tree (never committed)
#                     and memzip's parameters for the GPU are appended
#                     (gpgpu-sim-patch/dev-6b244a5/configs/<GPU>/memzip.config)
#   --config DIR      simulator config dir (default: the --gpu's)
#   --set "-flag v"   one more simulator option line (repeatable)
#   --version V       simulator version (default dev, or v3.2.1; *-baseline: unpatched,
#                     --codec none only, no stats.json)
#   --power           the simulator's own power model (also MEMZIP_POWER=1, or
#                     --set "-power_simulation_enabled 1" as sweep specs give it):
#                     GPUWattch on v3.2.1, AccelWattch on dev. Copies the
#                     simulator's GTX480 GPUWattch XML into RUN_DIR as
#                     gpuwattch_gtx580.xml, applies gpgpu-sim-patch/<version>/
#                     power/gpuwattch_gtx580.xml.patch (our GTX580 changes) and
#                     sets -power_simulation_enabled 1; the report
#                     (gpgpusim_power_report__*.log on v3.2.1,
#                     accelwattch_power_report.log on dev) is what
#                     `memzip table` and `memzip power` read.
#
# Prints on stdout, one `key=value` a line, what `memzip run` records: the
# run directory (out), the program (its resolved path), the simulator's tag
# and sources hash (simulator, simulator_sources: runs with the same value
# ran the same simulator and codecs), the program's exit status and the
# simulation's wall and CPU seconds. Exit status: 0 when the simulator ran
# (whatever the program's status), 1 when the run could not be prepared.
# The simulator must be built with the memzip hooks (scripts/build-sim.sh).

# One compound command, so bash parses the whole script before it runs it:
# bash otherwise reads a script as it goes, and an edit of this file while a
# simulation runs would derail the rest of the run.
{
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

codec=""
out=""
version=${MEMZIP_GPGPUSIM_VERSION:-dev}
config=""
gpu=gtx580
power=${MEMZIP_POWER:-0}
extra=()
while (($#)); do
    case $1 in
        --codec) codec=${2:?--codec needs a value}; shift 2 ;;
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        --config) config=${2:?--config needs a directory}; shift 2 ;;
        --gpu) gpu=${2:?--gpu needs a value}; shift 2 ;;
        --set)
            # The power model's switch as an option line (the form sweep specs
            # use) is --power: the model also needs its XML set up below.
            if [[ "${2:-}" =~ ^-power_simulation_enabled[[:space:]]+1[[:space:]]*$ ]]; then
                power=1
            else
                extra+=("${2:?--set needs an option line}")
            fi
            shift 2 ;;
        --version) version=${2:?--version needs a value}; shift 2 ;;
        --power) power=1; shift ;;
        --) shift; break ;;
        *) die "unknown argument '$1' (see the header of scripts/sim-run.sh)" ;;
    esac
done
step "sim-run: arguments"
[[ -n "$codec" ]] || die "--codec is required"
[[ -n "$out" ]] || die "--out is required"
(($#)) || die "no program given after --"
gpgpusim_paths "$version"
gpgpusim_run_libdir  # built, from this checkout's sources (else: the command to run)
# The GPU's simulator config, and memzip's parameters for it (none for the
# GTX580, whose config carries them).
gpu_memzip=""
case $gpu in
    gtx580) gpu_config="$GPGPUSIM_PATCH_DIR/configs/GTX580-MAG32" ;;
    qv100 | rtx3070)
        [[ ${GPGPUSIM_TAG%-baseline} == dev-* ]] ||
            die "--gpu $gpu: gpgpu-sim $version has no $gpu config; it runs --gpu gtx580 only"
        case $gpu in
            qv100) gpu_config="$GPGPUSIM_SRC/configs/tested-cfgs/SM7_QV100" ;;
            rtx3070) gpu_config="$GPGPUSIM_SRC/configs/tested-cfgs/SM86_RTX3070" ;;
        esac
        gpu_memzip="$GPGPUSIM_PATCH_DIR/configs/${gpu^^}/memzip.config"
        [[ -f "$gpu_config/gpgpusim.config" ]] ||
            die "--gpu $gpu: $gpu_config/gpgpusim.config missing (build the simulator: scripts/build-sim.sh)"
        ;;
    *) die "--gpu $gpu: unknown GPU (known: gtx580, qv100, rtx3070)" ;;
esac
[[ -n "$config" ]] || config=$gpu_config
[[ -f "$config/gpgpusim.config" ]] || die "--config $config has no gpgpusim.config"
program=$(command -v "$1" || true)
[[ -n "$program" && -x "$program" ]] || die "program '$1' not found or not executable"
program=$(realpath "$program")
shift
[[ "$power" == 0 || "$power" == 1 ]] || die "MEMZIP_POWER=$power: use 0 or 1"

# The power model's option naming its XML, and the upstream XML our GTX580
# patch applies to (in the built simulator tree: never committed here).
power_xml_option() {
    case ${GPGPUSIM_TAG%-baseline} in
        v3.2.1) echo "-gpuwattch_xml_file" ;;
        dev-6b244a5) echo "-accelwattch_xml_file" ;;
        *) die "--power: no power model known for gpgpu-sim $GPGPUSIM_TAG; memzip's own energy model is in stats.json" ;;
    esac
}
power_xml_source() {
    case ${GPGPUSIM_TAG%-baseline} in
        v3.2.1) echo "$GPGPUSIM_SRC/configs/GTX480/gpuwattch_gtx480.xml" ;;
        dev-6b244a5) echo "$GPGPUSIM_SRC/configs/tested-cfgs/SM2_GTX480/gpuwattch_gtx480.xml" ;;
    esac
}

step "sim-run: prepare $out"
rm -rf "$out"
mkdir -p "$out"
out=$(realpath "$out")
# The config and the interconnect files it may name (not the simulator's
# power-model XMLs and measurements kept beside the tested configs).
find "$config" -maxdepth 1 -type f \( -name gpgpusim.config -o -name '*.icnt' \) -exec cp {} "$out"/ \;
if [[ -n "$gpu_memzip" ]] && ! ((GPGPUSIM_BASELINE)); then
    { echo; echo "# memzip on the $gpu (scripts/sim-run.sh --gpu)"; grep -v '^#' "$gpu_memzip"; } >>"$out/gpgpusim.config"
fi
power_xml_name=gpuwattch_gtx580.xml
if ((power)) && [[ $gpu != gtx580 ]]; then
    # AccelWattch ships a model of the QV100 (PTX mode), used as it is.
    [[ $gpu == qv100 ]] || die "--power: gpgpu-sim has no power model of the $gpu; memzip's own energy model is in stats.json"
    power_xml_name=accelwattch_ptx_sim.xml
    cp "$gpu_config/$power_xml_name" "$out/" || die "--power: $gpu_config/$power_xml_name missing"
elif ((power)); then
    power_xml_option >/dev/null
    xml=$(power_xml_source)
    xml_patch="$MEMZIP_ROOT/gpgpu-sim-patch/${GPGPUSIM_TAG%-baseline}/power/gpuwattch_gtx580.xml.patch"
    [[ -f "$xml" ]] || die "--power: $xml missing (build the simulator: scripts/build-sim.sh --version ${GPGPUSIM_TAG%-baseline})"
    cp "$xml" "$out/gpuwattch_gtx580.xml"
    patch --quiet --no-backup-if-mismatch "$out/gpuwattch_gtx580.xml" "$xml_patch" ||
        die "--power: $xml_patch does not apply to $xml"
fi
{
    echo
    echo "# run options (scripts/sim-run.sh)"
    if ((GPGPUSIM_BASELINE)); then
        # The unpatched simulator knows no -memzip_* option.
        [[ "$codec" == none ]] || die "--version $version has no memzip: only --codec none"
    else
        echo "-memzip_codec $codec"
        echo "-memzip_stats_json $out/stats.json"
    fi
    if ((power)); then
        echo "-power_simulation_enabled 1"
        echo "$(power_xml_option) $power_xml_name"
    fi
    for line in "${extra[@]}"; do echo "$line"; done
} >>"$out/gpgpusim.config"

step "sim-run: $codec: $(basename "$program") $*"
t0=$(date +%s.%N)
status=0
# CPU time (user + system, the simulator is single-threaded) next to wall
# time: on a shared machine it is the better measure of what a run costs.
TIMEFORMAT='%U %S'
# (The inner braces: a redirection on the timed command would take time's
# report with it.)
{ time { (cd "$out" && "$MEMZIP_ROOT/scripts/run-in-sim.sh" --version "$version" "$program" "$@") >"$out/sim.log" 2>&1; }; } \
    2>"$out/.cpu-time" || status=$?
t1=$(date +%s.%N)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
cpu=$(awk 'NF == 2 { printf "%.2f", $1 + $2; found = 1 } END { if (!found) print "null" }' "$out/.cpu-time")
rm -f "$out/.cpu-time"

# What `memzip run` records (run.json).
printf 'out=%s\nprogram=%s\nsimulator=%s\nsimulator_sources=%s\ngpu=%s\nexit_status=%s\nwall_seconds=%s\ncpu_seconds=%s\n' \
    "$out" "$program" "$GPGPUSIM_TAG" "$GPGPUSIM_SOURCES_KEY" "$gpu" "$status" "$wall" "$cpu"
exit
}
