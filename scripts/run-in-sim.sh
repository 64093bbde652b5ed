#!/usr/bin/env bash
# Run a CUDA program under gpgpu-sim, in the current directory.
#
#   scripts/run-in-sim.sh [--version dev] CMD [ARGS...]
#
# The current directory must hold a gpgpusim.config (and the files it names,
# e.g. the interconnect config). The program must be built with
#   nvcc --cudart shared -gencode arch=compute_75,code=compute_75 ...
# (a static cudart bypasses the simulator). This script sources the
# simulator's setup_environment in its own shell (as the simulator needs) and
# puts the simulator's libcudart.so first on LD_LIBRARY_PATH, then execs CMD;
# CMD's exit status is the script's. Build the simulator first with
# scripts/build-sim.sh.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

version=${MEMZIP_GPGPUSIM_VERSION:-dev}
case ${1:-} in
    --version) version=${2:?--version needs a value}; shift 2 ;;
    --version=*) version=${1#*=}; shift ;;
esac
(($#)) || die "usage: run-in-sim.sh [--version dev] CMD [ARGS...]"

step "run-in-sim: environment"
[[ -f gpgpusim.config ]] || die "no gpgpusim.config in $(pwd)"
gpgpusim_paths "$version"
gpgpusim_env
# This checkout's snapshot of the simulator library (scripts/setup-gpgpusim.sh):
# another checkout rebuilding the shared tree cannot swap it under this run.
gpgpusim_run_libdir
# setup_environment prepends the shared build folder; ours goes first.
export LD_LIBRARY_PATH="$GPGPUSIM_RUN_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

step "run-in-sim: $*"
exec "$@"
