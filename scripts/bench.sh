#!/usr/bin/env bash
# Real benchmarks under the memzip simulator, from their upstream sources.
#
#   scripts/bench.sh list
#   scripts/bench.sh run NAME --codec C [--preset tiny] [--out DIR] [--set "-memzip_x v"]...
#                        [--version dev|v3.2.1] [--e2mc offline]
#   scripts/bench.sh table [--markdown|--csv] [RUN_DIR...]
#   scripts/bench.sh analyze RUN_DIR...
#
# `run` fetches the suite (from $REPO_ENV, e.g. MEMZIP_RODINIA_REPO: a local
# clone or mirror, else the upstream URL) into the cache once, checks out the
# pinned commit's needed folders, builds the benchmark, generates its input
# with our generator (deterministic), runs it through scripts/sim-run.sh and
# checks its output. Exit status non-zero on a build failure, a crash or a
# wrong answer. Manifests: benchmarks/<suite>/<name>.env (benchmarks/README.md).
# Sources, builds, inputs and results live under $MEMZIP_CACHE/benchmarks.
#
#   --version V     simulator version (default $MEMZIP_GPGPUSIM_VERSION or dev);
#                   results of another version than dev go to
#                   <suite>-<name>-<preset>-<codec>@V and their label ends in @V,
#                   so `memzip table` compares each version's runs with its own none.
#   --e2mc offline  E2MC with offline probabilities (paper 000 §III-B2): a
#                   profiling run (codec none, -memzip_trace) of the same
#                   benchmark and preset, `memzip e2mc-profile` of its trace for
#                   the codec's symbol length, then the run with
#                   -memzip_e2mc_sampling offline:<table>. The table is cached per
#                   benchmark, preset, version and symbol length (rebuilt when the
#                   binary or input changes). The same as --set
#                   "-memzip_e2mc_sampling offline:auto" (the form sweeps use).
#                   A none run with --set "-memzip_trace FILE" is the same
#                   profiling run: it caches the tables of every symbol length,
#                   so a study's offline run after its none run profiles nothing;
#                   it also writes analyze.json / analyze.txt (`memzip analyze
#                   --e2mc-offline` of the trace: every codec's CR) and the
#                   sensitivity analyses analyze-<name>.json (SENS_ANALYSES).
#
# `analyze` redoes those files for finished none runs that kept their trace.zst.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

INPUTS="$MEMZIP_ROOT/benchmarks/inputs"
bench_root="$MEMZIP_CACHE/benchmarks"

# For manifests' BUILD commands: nvcc_sim builds for the simulator (a shared
# cudart: a static one would bypass it; compute_75 is CUDA 13's lowest PTX
# target); nvcc_host builds a host-only reference binary that runs natively.
nvcc_sim() {
    "$MEMZIP_CUDA_HOME/bin/nvcc" --cudart shared -gencode arch=compute_75,code=compute_75 "$@"
}
nvcc_host() {
    "$MEMZIP_CUDA_HOME/bin/nvcc" --cudart static "$@"
}

# manifest_of NAME: the manifest of NAME ("suite/name", or a bare name that
# only one suite has).
manifest_of() {
    local found=()
    if [[ "$1" == */* ]]; then
        [[ -f "$MEMZIP_ROOT/benchmarks/$1.env" ]] && found=("$MEMZIP_ROOT/benchmarks/$1.env")
    else
        mapfile -t found < <(find "$MEMZIP_ROOT/benchmarks" -mindepth 2 -maxdepth 2 -name "$1.env" | sort)
    fi
    ((${#found[@]})) || die "unknown benchmark '$1' (see scripts/bench.sh list)"
    ((${#found[@]} == 1)) || die "'$1' is in several suites: name it as suite/$1 (see scripts/bench.sh list)"
    echo "${found[0]}"
}

# Loads a manifest into variables in a subshell-safe way (plain assignments).
load() {
    unset SUITE REPO_ENV REPO_URL COMMIT CHECKOUT BUILD_DIR BUILD PRESETS RUN EXPECT CHECK CHECK_KIND STATUS BOUND RUNNER
    # shellcheck disable=SC1090
    source "$1"
}

cmd_list() {
    printf '%-12s %-22s %-24s %-36s %-16s %s\n' suite benchmark presets check bound status
    local m
    for m in "$MEMZIP_ROOT"/benchmarks/*/*.env; do
        load "$m"
        printf '%-12s %-22s %-24s %-36s %-16s %s\n' "$SUITE" "$(basename "$m" .env)" "${PRESETS:--}" "${CHECK_KIND:--}" "${BOUND:--}" "$STATUS"
    done
}

# fetch_suite: a clone of the suite at $COMMIT with $CHECKOUT checked out.
# Only the listed folders are checked out: some snapshots lack large data files.
fetch_suite() {
    local src="$bench_root/src/$SUITE" repo=${!REPO_ENV:-$REPO_URL}
    if [[ ! -d "$src/.git" ]]; then
        step "fetch $SUITE from $repo"
        rm -rf "$src.tmp"
        git clone --quiet --no-checkout "$repo" "$src.tmp" ||
            die "git clone $repo failed (set $REPO_ENV to a local clone or mirror)"
        mv "$src.tmp" "$src"
    fi
    git -C "$src" cat-file -e "$COMMIT^{commit}" 2>/dev/null || die "commit $COMMIT not in $repo"
    # shellcheck disable=SC2086
    git -C "$src" checkout --quiet "$COMMIT" -- $CHECKOUT || die "checkout of $CHECKOUT failed"
    SRC="$src"
}

# run NAME | run --benchmark NAME (the form `memzip sweep` uses), then options.
cmd_run() {
    local name="" codec="" preset=tiny out="" sets=() version=${MEMZIP_GPGPUSIM_VERSION:-dev} offline=0
    if (($#)) && [[ "$1" != --* ]]; then name=$1; shift; fi
    while (($#)); do
        case $1 in
            --benchmark) name=${2:?--benchmark needs a name}; shift 2 ;;
            --codec) codec=${2:?--codec needs a value}; shift 2 ;;
            --preset) preset=${2:?--preset needs a value}; shift 2 ;;
            --out) out=${2:?--out needs a directory}; shift 2 ;;
            --version) version=${2:?--version needs a value}; shift 2 ;;
            --e2mc)
                [[ "${2:-}" == offline ]] || die "--e2mc '${2:-}': expected offline"
                offline=1; shift 2 ;;
            --set)
                local line=${2:?--set needs an option line}
                if [[ "$line" =~ ^-memzip_e2mc_sampling[[:space:]]+offline:auto[[:space:]]*$ ]]; then
                    offline=1
                else
                    sets+=(--set "$line")
                fi
                shift 2 ;;
            *) die "unknown argument '$1'" ;;
        esac
    done
    gpgpusim_paths "$version"  # validates the version
    [[ -n "$name" ]] || die "usage: bench.sh run NAME --codec C [--preset P] [--out DIR] [--set LINE]..."
    [[ -n "$codec" ]] || die "--codec is required"
    local manifest
    manifest=$(manifest_of "$name")
    load "$manifest"
    name=$(basename "$manifest" .env)
    HERE=$(dirname "$manifest")  # the manifest's folder: our patches and sed scripts
    [[ "$STATUS" == runs ]] || die "$name does not run here: $STATUS"
    [[ " $PRESETS " == *" $preset "* ]] || die "--preset $preset: $name has presets: $PRESETS"
    if [[ "${RUNNER:-}" == mgpu ]]; then  # a multi-GPU benchmark: memzip-mgpu on MGPUSim runs it
        exec bash "$MEMZIP_ROOT/scripts/mgpu-run.sh" --benchmark "$name" --preset "$preset" --codec "$codec" \
            ${out:+--out "$out"} "${sets[@]}"
    fi

    # Runs of one suite may start together (memzip sweep -j N): one at a time
    # fetches, builds and makes inputs; the others then find them ready.
    mkdir -p "$bench_root"
    local lock
    exec {lock}>"$bench_root/.lock-$SUITE"
    flock "$lock"
    fetch_suite
    step "build $SUITE/$name"
    BIN="$bench_root/build/$SUITE/$name/$name"
    mkdir -p "$(dirname "$BIN")"
    local stamp="$BIN.stamp" want
    # Rebuild when the commit, the command or one of our sed scripts / patches
    # that BUILD names changes.
    local ours=() f
    for f in "$HERE"/*.sed "$HERE"/*.patch; do
        [[ -f "$f" && "$BUILD" == *"$(basename "$f")"* ]] && ours+=("$f")
    done
    want="$COMMIT $BUILD $(cat /dev/null "${ours[@]}" | cksum)"
    if [[ ! -x "$BIN" || "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
        local build=${BUILD/#nvcc /\"\$MEMZIP_CUDA_HOME/bin/nvcc\" --cudart shared -gencode arch=compute_75,code=compute_75 }
        (cd "$SRC/$BUILD_DIR" && BIN="$BIN" MEMZIP_CUDA_HOME="$MEMZIP_CUDA_HOME" eval "$build") >"$BIN.build.log" 2>&1 ||
            die "build failed (log: $BIN.build.log)"
        echo "$want" >"$stamp"
    fi

    step "input $SUITE/$name ($preset)"
    DATA="$bench_root/inputs/$SUITE/$name/$preset"
    local input_var="INPUT_$preset" input_want
    # Regenerate when the command, our generators or (for a reference made by
    # a host build of the benchmark) the build changes.
    input_want="${!input_var} $(cat "$INPUTS"/*.py | cksum)"
    [[ "${!input_var}" != *'$BIN'* ]] || input_want+=" $(cat "$stamp")"
    if [[ ! -f "$DATA/.done" || "$(cat "$DATA/.done")" != "$input_want" ]]; then
        rm -rf "$DATA" && mkdir -p "$DATA"
        (eval "${!input_var}") || die "input generation failed"
        echo "$input_want" >"$DATA/.done"
    fi
    exec {lock}>&-

    local suffix="" label="$SUITE/$name $preset"
    [[ "$version" == dev ]] || { suffix="@$version"; label+=" @$version"; }
    OUT=${out:-$bench_root/results/$SUITE-$name-$preset-$codec$suffix}
    local argv
    eval "argv=($RUN)"
    if ((offline)); then
        local table
        table=$(e2mc_offline_table "$codec" "$version") || exit 1
        sets+=(--set "-memzip_e2mc_sampling offline:$table")
    fi
    step "simulate $SUITE/$name $preset ($codec)"  # a failure names this step, not the input's
    bash "$MEMZIP_ROOT/scripts/sim-run.sh" --version "$version" --codec "$codec" --out "$OUT" "${sets[@]}" --label "$label" \
        ${EXPECT:+--expect "$EXPECT"} -- "${argv[@]}" || die "$name failed under the simulator (log: $OUT/sim.log)"
    local trace
    trace=$(trace_of "${sets[@]}")
    if [[ "$codec" == none && -n "$trace" ]]; then
        # A none run with a trace is exactly the offline profiling run: seed the
        # cached tables so a later `--e2mc offline` run of this input skips its own.
        [[ "$trace" == /* ]] || trace="$OUT/$trace"
        e2mc_seed_tables "$trace" "$version"
        analyze_trace "$trace"
    fi
    step "check $SUITE/$name"
    local check_ok=true
    (eval "$CHECK") >"$OUT/check.log" 2>&1 || check_ok=false
    cat "$OUT/check.log" >&2
    # bench.json: what ran (for `bench.sh table` and later studies).
    cat >"$OUT/bench.json" <<EOF
{
  "suite": "$SUITE",
  "benchmark": "$name",
  "commit": "$COMMIT",
  "preset": "$preset",
  "codec": "$codec",
  "simulator": "$version",
  "e2mc_offline": $( ((offline)) && echo true || echo false ),
  "check_kind": "${CHECK_KIND:-?}",
  "check_ok": $check_ok
}
EOF
    if [[ "$check_ok" == true ]]; then
        log "$name $preset $codec: output correct"
    else
        sed -i 's/"output_ok": true/"output_ok": false/' "$OUT/run.json"
        die "$name $preset $codec: WRONG output (check: $CHECK; log: $OUT/check.log)"
    fi
}

# memzip_cli: the path of this checkout's memzip binary (built when missing).
memzip_cli() {
    (cd "$MEMZIP_ROOT" && cargo build --release --locked -q -p memzip-cli) >&2 || die "cargo build -p memzip-cli failed"
    echo "${CARGO_TARGET_DIR:-$MEMZIP_ROOT/target}/release/memzip"
}

# trace_of --set LINE...: the file of a -memzip_trace line among the sets, if any.
trace_of() {
    local arg
    for arg; do
        [[ "$arg" =~ ^-memzip_trace[[:space:]]+([^[:space:]]+)[[:space:]]*$ ]] && echo "${BASH_REMATCH[1]}"
    done
    return 0
}

# The compression side of the sensitivity sweeps, from the none run's blocks
# alone (no simulation): NAME|FLAGS of `memzip analyze`, written to
# analyze-NAME.json, which `memzip report` tabulates. The timing side is the
# sens-*.json sweeps (benchmarks/sweeps/README.md).
SENS_ANALYSES=(
    # Paper 002 Figs. 18, 19: BDI and MAG-aware BDI at a 16- and a 64-byte MAG
    # (32 B is analyze.json).
    "mag16|--mag-bytes 16 --codecs bdi,mag_bdi"
    "mag64|--mag-bytes 64 --codecs bdi,mag_bdi"
    # Paper 000 Fig. 10: the CR E2MC16 loses to 1, 2, 4, 8 parallel decoding
    # ways (offline tables from the same blocks).
    "e2mc16-pdw|--codecs e2mc16:pdw=1,e2mc16:pdw=2,e2mc16:pdw=4,e2mc16:pdw=8 --e2mc-offline"
    # Paper 000 Fig. 4a: MFV table sizes, online; the window is the study's
    # (2048 blocks per controller x 6 controllers, benchmarks/sweeps/README.md).
    "e2mc16-mfv|--codecs e2mc16:mfv=512,e2mc16,e2mc16:mfv=2048,e2mc16:mfv=4096 --e2mc-sample-blocks 12288"
    # Paper 002 Fig. 17: MAG-aware BDI with one 4-byte base against 8+4+2.
    "bases|--codecs mag_bdi,mag_bdi:bases=8+4+2"
    # Paper 002 Sec. VI-C: MAG-aware BDI's deltas with leading zeros only
    # (unsigned, the paper's design) against leading zeros and ones (signed).
    "deltas|--codecs mag_bdi,mag_bdi:deltas=unsigned"
)

# analyze_trace TRACE: every codec's compression of the run's stored blocks
# (E2MC with offline tables from the same trace, paper 000 Fig. 9a) into
# $OUT/analyze.json and analyze.txt, and the SENS_ANALYSES into
# analyze-NAME.json: small files `memzip report` tabulates.
analyze_trace() {
    [[ -f "$1" ]] || return 0
    step "memzip analyze of this run's trace"
    local cli trace=$1 sens name flags
    cli=$(memzip_cli)
    # From inside the run directory, so the files name the trace relative to it
    # (they are committed: no path of this machine in them).
    [[ "$(dirname "$trace")" != "$OUT" ]] || trace=$(basename "$trace")
    (cd "$OUT" && "$cli" analyze "$trace" --e2mc-offline --json analyze.json >analyze.txt) ||
        die "memzip analyze of $1 failed"
    for sens in "${SENS_ANALYSES[@]}"; do
        name=${sens%%|*}
        read -ra flags <<<"${sens#*|}"
        (cd "$OUT" && "$cli" analyze "$trace" "${flags[@]}" --no-shannon --json "analyze-$name.json" >/dev/null) ||
            die "memzip analyze ${flags[*]} of $1 failed"
    done
}

# analyze RUN_DIR...: analyze_trace of each run directory's trace.zst.
cmd_analyze() {
    (($#)) || die "usage: bench.sh analyze RUN_DIR... (none runs with their trace.zst)"
    local dir
    for dir; do
        [[ -f "$dir/trace.zst" ]] || die "$dir: no trace.zst (a none run with -memzip_trace trace.zst)"
        OUT=$(cd "$dir" && pwd) analyze_trace "$dir/trace.zst"
    done
}

# e2mc_table_dir VERSION / e2mc_table_want BITS: where the offline tables of the
# benchmark loaded by cmd_run (SUITE, name, preset, BIN, DATA) are cached, and
# the stamp a table must carry to be current (binary, input, symbol length).
# The input counts by its files' contents, not by the recipe in DATA/.done: an
# input regenerated identically (a change to another generator regenerates
# every input) keeps its tables.
e2mc_table_dir() { echo "$bench_root/e2mc/$SUITE/$name/$preset@$1"; }
# INPUT_SUM (set by the callers once, not per symbol length) is input_sum's.
e2mc_table_want() { echo "$(cat "$BIN.stamp") input $INPUT_SUM $1"; }

# input_sum: a checksum of DATA's files (names and contents), less .done and
# the *.log files: those record the reference runs (lbm's, MUM's) with their
# wall-clock timings, so they differ on every regeneration of the same input,
# and no program reads them.
input_sum() {
    (cd "$DATA" && find . -type f ! -name .done ! -name '*.log' | LC_ALL=C sort | xargs -r -d '\n' cksum | cksum)
}

# e2mc_profile_into TABLE TRACE BITS: `memzip e2mc-profile` of TRACE, stamped.
e2mc_profile_into() {
    local table=$1 trace=$2 bits=$3
    "$(memzip_cli)" e2mc-profile "$trace" --symbol-bits "$bits" -o "$table.tmp" >&2 ||
        die "memzip e2mc-profile of $trace failed"
    mv -f "$table.tmp" "$table"
    e2mc_table_want "$bits" >"$table.stamp"
}

# e2mc_seed_tables TRACE VERSION: the offline tables of every symbol length from
# the trace of a none run (same binary and input as a profiling run would use).
e2mc_seed_tables() {
    local trace=$1 version=$2 dir bits lock
    [[ -f "$trace" ]] || return 0
    dir=$(e2mc_table_dir "$version")
    mkdir -p "$dir"
    exec {lock}>"$dir/.lock"
    flock "$lock"
    INPUT_SUM=$(input_sum)
    for bits in 4 8 16 32; do
        [[ "$(cat "$dir/e2mc$bits.json.stamp" 2>/dev/null)" == "$(e2mc_table_want "$bits")" ]] ||
            e2mc_profile_into "$dir/e2mc$bits.json" "$trace" "$bits"
    done
    exec {lock}>&-
    step "e2mc offline tables of $SUITE/$name $preset cached from this run's trace"
}

# e2mc_offline_table CODEC VERSION: the offline E2MC table of the benchmark
# loaded (SUITE, name, preset, BIN, DATA, argv set by cmd_run) for CODEC's
# symbol length: from a profiling run (codec none, -memzip_trace) or an earlier
# none run's trace (e2mc_seed_tables), then cached.
e2mc_offline_table() {
    local codec=$1 version=$2 bits
    bits=$(sed -nE 's/^(adaptive.*[^0-9])?e2mc(4|8|16|32)([^0-9].*)?$/\2/p' <<<"$codec")
    [[ -n "$bits" ]] || die "--e2mc offline: codec '$codec' uses no E2MC (e2mc4/8/16/32)"
    local dir table
    dir=$(e2mc_table_dir "$version")
    table="$dir/e2mc$bits.json"
    mkdir -p "$dir"
    local lock
    exec {lock}>"$dir/.lock"
    flock "$lock"
    INPUT_SUM=$(input_sum)
    if [[ ! -f "$table" || "$(cat "$table.stamp" 2>/dev/null)" != "$(e2mc_table_want "$bits")" ]]; then
        step "e2mc offline table: profiling run of $SUITE/$name $preset (codec none, trace)"
        local profile="$dir/profile-run"
        # The program's own output files go to the profiling run's folder
        # (RUN names them under $OUT; the real run's folder does not exist yet).
        local OUT=$profile argv
        eval "argv=($RUN)"
        bash "$MEMZIP_ROOT/scripts/sim-run.sh" --version "$version" --codec none --out "$profile" \
            --set "-memzip_trace $dir/trace.zst" --label "$SUITE/$name $preset profile" \
            ${EXPECT:+--expect "$EXPECT"} -- "${argv[@]}" >&2 || die "profiling run failed (log: $profile/sim.log)"
        e2mc_profile_into "$table" "$dir/trace.zst" "$bits"
        rm -f "$dir/trace.zst"  # large; the table and the profiling run's stats stay
    fi
    exec {lock}>&-
    echo "$table"
}

# table [RUN_DIR...]: `memzip table` of the runs (default: every run under the
# results folder): per benchmark and preset, cycles, speedup, DRAM bytes,
# compression ratios, verify counts, the output check and wall time.
cmd_table() {
    local flags=() dirs=()
    for arg; do [[ "$arg" == --* ]] && flags+=("$arg") || dirs+=("$arg"); done
    ((${#dirs[@]})) || dirs=("$bench_root"/results/*/)
    "$(memzip_cli)" table "${flags[@]}" "${dirs[@]}"
}

case ${1:-} in
    list) cmd_list ;;
    run) shift; cmd_run "$@" ;;
    table) shift; cmd_table "$@" ;;
    analyze) shift; cmd_analyze "$@" ;;
    *) die "usage: bench.sh list | bench.sh run NAME --codec C [--preset P] [--out DIR] [--set LINE]... [--version V] [--e2mc offline] | bench.sh table [--markdown|--csv] [RUN_DIR...] | bench.sh analyze RUN_DIR..." ;;
esac; exit  # on the line bash parses with the case: an edit of this file during a run cannot add to it
