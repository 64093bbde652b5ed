# shellcheck shell=bash
# shellcheck disable=SC2034  # variables here are used by the scripts that source it
# Shared helpers for memzip's setup/run scripts. Source it; do not execute it.
#
#   MEMZIP_CACHE   everything downloaded or built: ${XDG_CACHE_HOME:-$HOME/.cache}/memzip
#   step "text"    log the step that starts now (die names it on failure)
#   die "text"     print "memzip: FAILED at step '<step>': text" and exit 1
#   run_logged LOG CMD...   run CMD with output to LOG; on failure show the log tail

: "${MEMZIP_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/memzip}"
export MEMZIP_CACHE

# The checkout; exported, so the `memzip` commands the scripts run work in it.
MEMZIP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export MEMZIP_ROOT

# CUDA toolkit from PyPI (one pip call, see setup-toolkit.sh).
MEMZIP_CUDA_VERSION=13.2
MEMZIP_CUDA_PIN=13.2.86
MEMZIP_CUDA_DIR="$MEMZIP_CACHE/cuda-$MEMZIP_CUDA_VERSION"
# CUDA_INSTALL_PATH for gpgpu-sim and nvcc.
MEMZIP_CUDA_HOME="$MEMZIP_CUDA_DIR/pip/nvidia/cu13"

# CUDA 11.8 headers (and a CUDA_INSTALL_PATH around them whose tools are CUDA
# 13's) for building gpgpu-sim v3.2.1, whose sources predate CUDA 12's headers.
MEMZIP_CUDA11_PIN=11.8.89
MEMZIP_CUDA11_DIR="$MEMZIP_CACHE/cuda-11.8"
MEMZIP_CUDA11_HOME="$MEMZIP_CUDA11_DIR/home"

# gpgpu-sim versions: dev (default) and v3.2.1 (the papers'). A version's
# variables end in its name with "." as "_"; the tag names both the cache dir
# and gpgpu-sim-patch/<tag>/; CUDA_HOME is its CUDA_INSTALL_PATH.
MEMZIP_GPGPUSIM_UPSTREAM=https://github.com/gpgpu-sim/gpgpu-sim_distribution.git
MEMZIP_GPGPUSIM_COMMIT_dev=6b244a5d3be7811f16c312905c1c7fee137ac7a4
MEMZIP_GPGPUSIM_TAG_dev=dev-6b244a5
MEMZIP_GPGPUSIM_CUDA_HOME_dev=$MEMZIP_CUDA_HOME
MEMZIP_GPGPUSIM_COMMIT_v3_2_1=63ced796dc4b66ef2e3f8ab7b768b84c11251126
MEMZIP_GPGPUSIM_TAG_v3_2_1=v3.2.1
MEMZIP_GPGPUSIM_CUDA_HOME_v3_2_1=$MEMZIP_CUDA11_HOME

_memzip_step="(start)"

step() {
    _memzip_step="$*"
    printf '==> %s\n' "$*" >&2
}

log() {
    printf '    %s\n' "$*" >&2
}

die() {
    printf "memzip: FAILED at step '%s': %s\n" "$_memzip_step" "$*" >&2
    exit 1
}

# run_logged LOGFILE CMD...: quiet on success, tail of LOGFILE on failure.
run_logged() {
    local logfile=$1
    shift
    mkdir -p "$(dirname "$logfile")"
    if ! "$@" >"$logfile" 2>&1; then
        echo "---- last 40 lines of $logfile ----" >&2
        tail -n 40 "$logfile" >&2
        echo "----" >&2
        return 1
    fi
}

# memzip_cli: builds this checkout's `memzip` command (cargo does nothing
# when it is current) and prints its path.
memzip_cli() {
    (cd "$MEMZIP_ROOT" && cargo build --release --locked -q -p memzip-cli) >&2 || die "cargo build -p memzip-cli failed"
    local target=${CARGO_TARGET_DIR:-$MEMZIP_ROOT/target}
    [[ "$target" == /* ]] || target="$MEMZIP_ROOT/$target"
    echo "$target/release/memzip"
}

# gpgpusim_paths VERSION: sets GPGPUSIM_TAG, GPGPUSIM_COMMIT, GPGPUSIM_DIR
# (cache dir of that version), GPGPUSIM_SRC (its git work tree), GPGPUSIM_CUDA_HOME
# (its CUDA_INSTALL_PATH),
# GPGPUSIM_PATCH_DIR (our patch set for it) and GPGPUSIM_BASELINE.
# VERSION may end in "-baseline" (e.g. dev-baseline): the same simulator with
# only our compatibility patches, no memzip, in its own cache dir; tests use it
# to check that -memzip_codec none changes nothing.
gpgpusim_paths() {
    local v=${1%-baseline} c t h
    v=${v//./_}
    c="MEMZIP_GPGPUSIM_COMMIT_$v"
    t="MEMZIP_GPGPUSIM_TAG_$v"
    h="MEMZIP_GPGPUSIM_CUDA_HOME_$v"
    [[ -n "${!c:-}" ]] || die "unknown gpgpu-sim version '$1' (known: dev, v3.2.1, and either with -baseline)"
    GPGPUSIM_COMMIT=${!c}
    GPGPUSIM_TAG=${!t}
    GPGPUSIM_CUDA_HOME=${!h}
    GPGPUSIM_PATCH_DIR="$MEMZIP_ROOT/gpgpu-sim-patch/$GPGPUSIM_TAG"
    GPGPUSIM_BASELINE=0
    if [[ "$1" == *-baseline ]]; then
        GPGPUSIM_BASELINE=1
        GPGPUSIM_TAG="$GPGPUSIM_TAG-baseline"
    fi
    GPGPUSIM_DIR="$MEMZIP_CACHE/gpgpu-sim/$GPGPUSIM_TAG"
    GPGPUSIM_SRC="$GPGPUSIM_DIR/src"
}

# gpgpusim_checkout_pointer: the file naming this checkout's library snapshot
# of the simulator (see setup-gpgpusim.sh, "snapshot"). Needs gpgpusim_paths.
gpgpusim_checkout_pointer() {
    echo "$GPGPUSIM_DIR/checkouts/$(printf '%s' "$MEMZIP_ROOT" | sha256sum | cut -c1-16)"
}

# gpgpusim_patches: our patches for GPGPUSIM_TAG, one path per line in the
# order they apply; a -baseline tag gets only the compatibility ones (not
# named *memzip*). Needs gpgpusim_paths.
gpgpusim_patches() {
    local p
    for p in "$GPGPUSIM_PATCH_DIR"/*.patch; do
        [[ -f "$p" ]] || continue
        ((GPGPUSIM_BASELINE)) && [[ "$(basename "$p")" == *memzip* ]] && continue
        echo "$p"
    done
}

# gpgpusim_sources_key: a hash of this checkout's files the simulator library
# is built from: its patches and, with memzip's hooks, cpp_shim/ and the Rust
# of the memzip-ffi staticlib. setup-gpgpusim.sh records it with the
# checkout's snapshot and runs compare it, so a pulled patch or an edited
# codec makes a run ask for a rebuild instead of running the old simulator.
# Needs gpgpusim_paths.
gpgpusim_sources_key() {
    (
        cd "$MEMZIP_ROOT" || exit 1
        gpgpusim_patches | sed "s|^$MEMZIP_ROOT/||"
        ((GPGPUSIM_BASELINE)) ||
            find cpp_shim rust/memzip/src rust/memzip/Cargo.toml rust/memzip-ffi \
                Cargo.toml Cargo.lock -type f
    ) | LC_ALL=C sort | (cd "$MEMZIP_ROOT" && xargs -d '\n' sha256sum) | sha256sum | cut -c1-16
}

# gpgpusim_build_command: how this checkout (re)builds GPGPUSIM_TAG.
gpgpusim_build_command() {
    if ((GPGPUSIM_BASELINE)); then
        echo "bash scripts/setup-gpgpusim.sh --version ${GPGPUSIM_TAG%%-*}-baseline"
    else
        echo "bash scripts/build-sim.sh --version ${GPGPUSIM_TAG%%-*}"
    fi
}

# gpgpusim_run_libdir: sets GPGPUSIM_RUN_LIBDIR, the simulator library folder
# runs of this checkout load: the snapshot its last build made
# (setup-gpgpusim.sh, "snapshot"), never the shared build folder, which another
# checkout may have linked with its own memzip; and GPGPUSIM_SOURCES_KEY, what
# that snapshot was built from (gpgpusim_sources_key). Dies, naming the command
# to run, when this checkout has not built the simulator or its sources changed
# since. Needs gpgpusim_paths.
gpgpusim_run_libdir() {
    local pointer
    pointer=$(gpgpusim_checkout_pointer)
    [[ -f "$pointer" ]] ||
        die "gpgpu-sim $GPGPUSIM_TAG is not built for this checkout: run $(gpgpusim_build_command)"
    GPGPUSIM_RUN_LIBDIR=$(sed -n 1p "$pointer")
    GPGPUSIM_SOURCES_KEY=$(gpgpusim_sources_key)
    [[ -f "$GPGPUSIM_RUN_LIBDIR/libcudart.so" ]] ||
        die "this checkout's gpgpu-sim $GPGPUSIM_TAG library ($GPGPUSIM_RUN_LIBDIR) is gone: run $(gpgpusim_build_command)"
    [[ "$(sed -n 3p "$pointer")" == "$GPGPUSIM_SOURCES_KEY" ]] ||
        die "gpgpu-sim $GPGPUSIM_TAG was built from other sources than this checkout's (gpgpu-sim-patch/, cpp_shim/ or rust/memzip*/ changed since): run $(gpgpusim_build_command)"
}

# gpgpusim_env: source the simulator's setup_environment in THIS shell (its
# exports only count in the shell that sourced it; make and the simulated
# program both need them). Needs gpgpusim_paths. Sets GPGPUSIM_LIBDIR, the
# directory of the simulator's libcudart.so (built or not).
gpgpusim_env() {
    [[ -f "$MEMZIP_CUDA_DIR/.stamp" ]] || die "CUDA toolkit missing: run scripts/setup-toolkit.sh"
    [[ -d "$GPGPUSIM_CUDA_HOME/bin" ]] || die "$GPGPUSIM_CUDA_HOME missing: run scripts/setup-gpgpusim.sh --version ${GPGPUSIM_TAG%-baseline}"
    [[ -f "$GPGPUSIM_SRC/setup_environment" ]] || die "no gpgpu-sim source in $GPGPUSIM_SRC: run scripts/setup-gpgpusim.sh"
    export CUDA_INSTALL_PATH="$GPGPUSIM_CUDA_HOME"
    local envlog saved
    envlog=$(mktemp "${TMPDIR:-/tmp}/memzip-setup-env.XXXXXX")
    # setup_environment is neither `set -e` nor `set -u` clean, and it reads
    # $1 as the build type: pass `release` explicitly, or a script's own first
    # argument would pick lib/<...>/<that argument>.
    saved=$(set +o)
    set +euo pipefail
    # shellcheck disable=SC1091
    source "$GPGPUSIM_SRC/setup_environment" release >"$envlog" 2>&1
    eval "$saved"
    if [[ "${GPGPUSIM_SETUP_ENVIRONMENT_WAS_RUN:-}" != 1 ]]; then
        local msg
        msg=$(grep -m2 ERROR "$envlog" || tail -n2 "$envlog")
        rm -f "$envlog"
        die "source setup_environment failed: $msg"
    fi
    rm -f "$envlog"
    GPGPUSIM_LIBDIR="$GPGPUSIM_ROOT/lib/$GPGPUSIM_CONFIG"
}
