#!/usr/bin/env bash
# The shell side of real benchmarks: what their manifests say in shell
# (benchmarks/<suite>/<name>.env: fetch, build, make the input, run, check).
# `memzip bench` (rust/memzip-study/src/bench.rs) runs a benchmark and calls
# this for those steps; use `memzip bench list | run | table | analyze`.
#
#   scripts/bench.sh list
#   scripts/bench.sh prepare MANIFEST --preset P [--input-sum]
#   scripts/bench.sh argv MANIFEST --preset P --out RUN_DIR
#   scripts/bench.sh check MANIFEST --preset P --out RUN_DIR
#   scripts/bench.sh values MANIFEST --preset P --out RUN_DIR
#
# `prepare` fetches the suite (from $REPO_ENV, e.g. MEMZIP_RODINIA_REPO: a
# local clone or mirror, else the upstream URL) into the cache once, checks out
# the pinned commit's needed folders, builds the benchmark and generates its
# input with our generator (deterministic), one run at a time per suite; it
# prints, one `key=value` a line, what memzip needs: the suite, commit, cache
# folder, EXPECT, CHECK and CHECK_KIND, the build's stamp, APPROX_ALLOCS,
# whether VALUES is set and, with --input-sum, a checksum of the input's files
# (the E2MC table cache's key).
# `argv` prints the program's command line for a run folder, one argument a
# line; `check` runs the manifest's CHECK on a finished run (its output in
# RUN_DIR/check.log and on stderr; exit status 0 when right); `values` runs the
# manifest's VALUES on a finished run (the output values, one a line, on
# stdout; benchmarks/README.md "Output values"). MANIFEST is the
# manifest's path (memzip resolves names: `memzip bench list`). Sources,
# builds, inputs and results live under $MEMZIP_CACHE/benchmarks.
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

# Loads a manifest into variables in a subshell-safe way (plain assignments).
load() {
    unset SUITE REPO_ENV REPO_URL COMMIT CHECKOUT BUILD_DIR BUILD PRESETS RUN EXPECT CHECK CHECK_KIND STATUS BOUND RUNNER \
        APPROX_ALLOCS VALUES
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
# A manifest without REPO_ENV and REPO_URL builds our own program from this
# checkout's benchmarks/ (BUILD_DIR under it); its COMMIT is a checksum of
# BUILD_DIR's files, so an edit rebuilds it.
fetch_suite() {
    if [[ -z "${REPO_ENV:-}${REPO_URL:-}" ]]; then
        SRC="$MEMZIP_ROOT/benchmarks"
        [[ -d "$SRC/$BUILD_DIR" ]] || die "BUILD_DIR $BUILD_DIR: no folder benchmarks/$BUILD_DIR"
        COMMIT="ours-$(cd "$SRC/$BUILD_DIR" && find . -type f | LC_ALL=C sort | xargs -d '\n' cksum | cksum | cut -d' ' -f1)"
        return 0
    fi
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

# load_run MANIFEST ARGS...: loads the manifest and reads --preset, --out and
# --input-sum; sets name, HERE (the manifest's folder), preset, OUT, want_sum,
# BIN and DATA (the build and the preset's input).
load_run() {
    local manifest=${1:?a manifest path}
    shift
    [[ -f "$manifest" ]] || die "no manifest '$manifest'"
    preset="" OUT="" want_sum=0
    while (($#)); do
        case $1 in
            --preset) preset=${2:?--preset needs a value}; shift 2 ;;
            --out) OUT=${2:?--out needs a directory}; shift 2 ;;
            --input-sum) want_sum=1; shift ;;
            *) die "unknown argument '$1'" ;;
        esac
    done
    [[ -n "$preset" ]] || die "--preset is required"
    load "$manifest"
    name=$(basename "$manifest" .env)
    HERE=$(dirname "$manifest")  # the manifest's folder: our patches and sed scripts
    BIN="$bench_root/build/$SUITE/$name/$name"
    DATA="$bench_root/inputs/$SUITE/$name/$preset"
}

# prepare MANIFEST --preset P [--input-sum]: fetch, build, input; then the facts.
cmd_prepare() {
    load_run "$@"
    [[ "$STATUS" == runs ]] || die "$name does not run here: $STATUS"
    [[ " $PRESETS " == *" $preset "* ]] || die "--preset $preset: $name has presets: $PRESETS"

    # Runs of one suite may start together (memzip sweep -j N): one at a time
    # fetches, builds and makes inputs; the others then find them ready.
    mkdir -p "$bench_root"
    local lock
    exec {lock}>"$bench_root/.lock-$SUITE"
    flock "$lock"
    fetch_suite
    step "build $SUITE/$name"
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

    printf 'suite=%s\nbenchmark=%s\ncommit=%s\ncache=%s\nexpect=%s\ncheck=%s\ncheck_kind=%s\nbuild_stamp=%s\n' \
        "$SUITE" "$name" "$COMMIT" "$bench_root" "${EXPECT:-}" "$CHECK" "${CHECK_KIND:-?}" "$(cat "$stamp")"
    printf 'approx_allocs=%s\nvalues=%s\n' "${APPROX_ALLOCS:-}" "$([[ -n "${VALUES:-}" ]] && echo 1 || echo 0)"
    ((want_sum)) && printf 'input_sum=%s\n' "$(input_sum)"
    return 0
}

# argv MANIFEST --preset P --out RUN_DIR: the program's command line, one
# argument a line (RUN names output files under $OUT).
cmd_argv() {
    load_run "$@"
    [[ -n "$OUT" ]] || die "--out is required"
    local argv
    eval "argv=($RUN)"
    printf '%s\n' "${argv[@]}"
}

# check MANIFEST --preset P --out RUN_DIR: the manifest's CHECK on a finished run.
cmd_check() {
    load_run "$@"
    [[ -n "$OUT" ]] || die "--out is required"
    step "check $SUITE/$name"
    local status=0
    (eval "$CHECK") >"$OUT/check.log" 2>&1 || status=$?
    cat "$OUT/check.log" >&2
    return "$status"
}

# values MANIFEST --preset P --out RUN_DIR: the manifest's VALUES on a
# finished run: its output values on stdout, one a line.
cmd_values() {
    load_run "$@"
    [[ -n "$OUT" ]] || die "--out is required"
    [[ -n "${VALUES:-}" ]] || die "$name: its manifest has no VALUES"
    (eval "$VALUES")
}

# input_sum: a checksum of DATA's files (names and contents), less .done and
# the *.log files: those record the reference runs (lbm's, MUM's) with their
# wall-clock timings, so they differ on every regeneration of the same input,
# and no program reads them. The input counts by its files' contents, not by
# the recipe in DATA/.done: an input regenerated identically (a change to
# another generator regenerates every input) keeps its E2MC tables.
input_sum() {
    (cd "$DATA" && find . -type f ! -name .done ! -name '*.log' | LC_ALL=C sort | xargs -r -d '\n' cksum | cksum)
}

case ${1:-} in
    list) cmd_list ;;
    prepare) shift; cmd_prepare "$@" ;;
    argv) shift; cmd_argv "$@" ;;
    check) shift; cmd_check "$@" ;;
    values) shift; cmd_values "$@" ;;
    *) die "usage: bench.sh list | prepare MANIFEST --preset P [--input-sum] | argv|check|values MANIFEST --preset P --out RUN_DIR (memzip bench runs benchmarks)" ;;
esac; exit  # on the line bash parses with the case: an edit of this file during a run cannot add to it
