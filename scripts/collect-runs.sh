#!/usr/bin/env bash
# Copies the small files of finished runs into a results directory that is
# committed, so a study (or a `memzip sweep` resumed on another machine) has
# them without the large ones (sim.log, traces, the simulator's dumps).
#
#   scripts/collect-runs.sh FROM_DIR TO_DIR
#
# FROM_DIR holds run directories (a `memzip sweep --out` directory); each
# finished one (run.json present; not .tmp-* or *.failed) is copied to
# TO_DIR/<id>/ with: run.json, stats.json, bench.json, check.log, mgpu.log,
# analyze.json, analyze.txt, the sensitivity analyses analyze-<name>.json and
# the power model's report (whichever exist). `memzip table` and `memzip
# report` read such a directory: the cycles are in run.json (`cycles`, filled
# in here from sim.log for runs made before their record had it), and so are
# the kernels launched, each kernel's DRAM work and tRRD (`kernel_launches`,
# `kernel_dram`, `dram_rrd`; filled in likewise), and what the cores waited on
# memory (`fetch_latency_cycles`, `dram_full_stalls`) and on the reply network
# back to the cores (`reply_latency_cycles`, `reply_stalls`). A run already in TO_DIR
# keeps its files; only small files it lacks are added (analyses redone later
# with `memzip bench analyze`; a power report only if it has none), and the
# fields above its run.json lacks, from the sim.log in FROM_DIR.
# A run's output values (values.txt, kept by runs of programs with
# approximable data: benchmarks/README.md "Output values") are collected:
# an exact run's (codec none: the reference a lossy run's error is measured
# against) as values.txt.zst when they compress to at most
# MEMZIP_COLLECT_VALUES_BYTES (default 1 MiB), so the error can be checked
# from the repository (`memzip output-error --exact A/values.txt.zst B`, with
# B's values from its rerun); a lossy run's, and larger ones, as values.sha256
# only (the digest of values.txt and its line count), which pins them
# without the megabytes.
# `memzip sweep SPEC --out TO_DIR` then skips the collected runs.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

(($# == 2)) || die "usage: collect-runs.sh FROM_DIR TO_DIR"
from=$1 to=$2
[[ -d "$from" ]] || die "FROM_DIR '$from' is not a directory"
mkdir -p "$to"

# small_files RUN: the names of RUN's files that are collected.
small_files() {
    local file
    for file in run.json stats.json bench.json check.log mgpu.log sweep.json analyze.json analyze.txt "$1"/analyze-*.json \
        "$1"/gpgpusim_power_report__*.log "$1"/accelwattch_power_report.log; do
        file=$(basename "$file")
        [[ ! -f "$1/$file" ]] || echo "$file"
    done
}

# collect_values RUN TO_RUN: RUN's values.txt into TO_RUN (see the header),
# unless TO_RUN has them already; prints `added` when it wrote a file.
values_limit=${MEMZIP_COLLECT_VALUES_BYTES:-1048576}
[[ "$values_limit" =~ ^[0-9]+$ ]] || die "MEMZIP_COLLECT_VALUES_BYTES '$values_limit' is not a byte count"
collect_values() {
    local values="$1/values.txt"
    [[ -f "$values" && ! -e "$2/values.txt.zst" && ! -e "$2/values.sha256" ]] || return 0
    command -v zstd >/dev/null || die "$values: collecting output values needs the zstd command"
    echo added
    # Only an exact run's values are compressed (a lossy run's would be thrown away).
    if [[ "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("codec"))' "$1/run.json")" == none ]]; then
        zstd -q -19 -c "$values" >"$2/.values.txt.zst"
        if (($(stat -c %s "$2/.values.txt.zst") <= values_limit)); then
            mv "$2/.values.txt.zst" "$2/values.txt.zst"
            return 0
        fi
        rm "$2/.values.txt.zst"
    fi
    printf '%s  values.txt\n%s lines\n' "$(sha256sum <"$values" | cut -d' ' -f1)" "$(wc -l <"$values")" >"$2/values.sha256"
}

# has_file RUN_DIR FILE: whether RUN_DIR holds FILE. The power report's name
# carries the time it was written, so a rerun's report is another name for the
# one the run has: a directory with two is refused by `memzip table`.
has_file() {
    if [[ "$2" == gpgpusim_power_report__*.log ]]; then
        compgen -G "$1/gpgpusim_power_report__*.log" >/dev/null
    else
        [[ -e "$1/$2" ]]
    fi
}

# fill_run_json RUN_JSON SIM_LOG: adds to RUN_JSON the fields of SIM_LOG it
# lacks (prints `filled` when it added one), unless the log's cycles are not
# the run's (a rerun's log), and strips this machine's trace paths from the
# analyses beside it.
fill_run_json() {
    python3 - "$1" "$2" <<'EOF'
import json, re, sys
from pathlib import Path
path, log = sys.argv[1], sys.argv[2]
# analyze files of runs made before bench.sh analysed from inside the run
# directory name the trace by its absolute path: keep only its name.
for name in ("analyze.json", "analyze.txt"):
    f = Path(path).with_name(name)
    if f.is_file():
        f.write_text(re.sub(r"/[^\s\"]*/([^/\s\"]+\.zst)", r"\1", f.read_text()))
run = json.load(open(path))
try:
    text = open(log, errors="replace").read()
except FileNotFoundError:
    text = ""
changed = False
totals = re.findall(r"^\s*gpu_tot_sim_cycle\s*=\s*(\d+)\s*$", text, re.M)
if totals and run.get("cycles") is not None and int(totals[-1]) != run["cycles"]:
    sys.exit(0)  # a log of another simulation (a rerun): it says nothing of this run
if run.get("cycles") is None and totals:
    run["cycles"] = int(totals[-1])
    changed = True
# The power model's energy needs each kernel's duration: the steps of
# `gpu_tot_sim_cycle = N` from one kernel's end to the next (memzip-study's
# sim_log.rs reads them the same way from sim.log when it is there; a kernel's
# own gpu_sim_cycle can include an earlier kernel's cycles).
has_power = any(Path(path).parent.glob("gpgpusim_power_report__*.log")) or \
    Path(path).with_name("accelwattch_power_report.log").is_file()
if has_power and "kernel_cycles" not in run:
    ends = [int(n) for n in re.findall(r"^\s*gpu_tot_sim_cycle = (\d+)\s*$", text, re.M)]
    run["kernel_cycles"] = [end - start for start, end in zip([0] + ends, ends)]
    changed = True
# The kernels launched, each kernel's DRAM work and tRRD, which memzip table
# and report relate to the none run's (memzip-study's sim_log.rs reads them
# the same way from sim.log when it is there): after each kernel gpgpu-sim
# prints its kernel_launch_uid, the running gpu_tot_sim_cycle and every
# channel's running counters (n_cmd=... n_rd=... n_write=...); a kernel's
# [DRAM cycles, read and write commands] is the step of their channel sums.
if text and "kernel_launches" not in run:
    totals = []
    rrd = None
    launches = 0
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("kernel_launch_uid = "):
            launches += 1
        elif line.startswith("gpu_tot_sim_cycle = "):
            totals.append([0, 0])
        elif line.startswith("n_cmd=") and totals:
            counters = dict(t.split("=", 1) for t in line.split() if "=" in t)
            totals[-1][0] += int(counters["n_cmd"])
            totals[-1][1] += sum(int(counters[k]) for k in ("n_rd", "n_rd_L2_A", "n_write", "n_wr_bk") if k in counters)
        elif line.startswith("-gpgpu_dram_timing_opt"):
            found = re.search(r"(?:^|[:\s])RRD=(\d+)", line)
            rrd = int(found.group(1)) if found else None
    previous = [0, 0]
    kernels = []
    for total in (t for t in totals if t[0] > 0):
        kernels.append([total[0] - previous[0], total[1] - previous[1]])
        previous = total
    if launches:
        run["kernel_launches"] = launches
        run["kernel_dram"] = kernels
        changed = True
    if rrd is not None:
        run["dram_rrd"] = rrd
        changed = True
# What the cores waited on memory (memzip-study's sim_log.rs, MemoryWait):
# gpgpu-sim prints averagemflatency, gpu_stall_dramfull, avg_icnt2sh_latency
# (dev only) and gpu_stall_icnt2sh after every kernel from sums over the whole
# run, so the last value printed is the run's.
for key, counter in (("fetch_latency_cycles", "averagemflatency"), ("dram_full_stalls", "gpu_stall_dramfull"),
                     ("reply_latency_cycles", "avg_icnt2sh_latency"), ("reply_stalls", "gpu_stall_icnt2sh")):
    values = re.findall(rf"^\s*{counter}\s*=\s*(\d+)\s*$", text, re.M)
    if key not in run and values:
        run[key] = int(values[-1])
        changed = True
if changed:
    open(path, "w").write(json.dumps(run, indent=2) + "\n")
    print("filled")
EOF
}

collected=0 added=0 filled=0
for run in "$from"/*/; do
    run=${run%/}
    id=$(basename "$run")
    [[ "$id" != .tmp-* && "$id" != *.failed && -f "$run/run.json" ]] || continue
    if [[ -e "$to/$id" ]]; then
        for file in $(small_files "$run"); do
            has_file "$to/$id" "$file" || { cp "$run/$file" "$to/$id/$file" && added=$((added + 1)); }
        done
        [[ -z "$(collect_values "$run" "$to/$id")" ]] || added=$((added + 1))
        if [[ -f "$to/$id/run.json" && -n "$(fill_run_json "$to/$id/run.json" "$run/sim.log")" ]]; then
            filled=$((filled + 1))
        fi
        continue
    fi
    mkdir -p "$to/.collect-$id"
    for file in $(small_files "$run"); do
        cp "$run/$file" "$to/.collect-$id/$file"
    done
    fill_run_json "$to/.collect-$id/run.json" "$run/sim.log" >/dev/null
    collect_values "$run" "$to/.collect-$id" >/dev/null
    mv "$to/.collect-$id" "$to/$id"
    collected=$((collected + 1))
done
log "collected $collected run(s) into $to; added $added file(s) to runs already there; filled in the run.json of $filled"
