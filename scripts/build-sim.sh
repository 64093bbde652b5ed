#!/usr/bin/env bash
# Build gpgpu-sim with memzip in it: the memzip-ffi staticlib (cargo), then the
# simulator (scripts/setup-gpgpusim.sh) with cpp_shim/ compiled into
# src/gpgpu-sim/ and the staticlib linked into libcudart.so. Prints what
# setup-gpgpusim.sh prints (the path of the built libcudart.so on stdout).
#
#   scripts/build-sim.sh [setup-gpgpusim.sh arguments, e.g. --clean]
#
# Environment: as setup-gpgpusim.sh (MEMZIP_GPGPUSIM_REPO, MEMZIP_MAKE_JOBS,
# XDG_CACHE_HOME / MEMZIP_CACHE), plus CARGO_TARGET_DIR (default: target/).
# A rebuild after a Rust change relinks; after a change of the cxx bridge's
# generated header it also recompiles cpp_shim (gpgpu-sim's makedepend does
# not see that header).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

target=${CARGO_TARGET_DIR:-$MEMZIP_ROOT/target}
[[ "$target" == /* ]] || target="$MEMZIP_ROOT/$target"

step "cargo build --release -p memzip-ffi"
(cd "$MEMZIP_ROOT" && cargo build --release --locked -p memzip-ffi) >&2 ||
    die "cargo build --release -p memzip-ffi failed"
lib="$target/release/libmemzip_ffi.a"
header="$target/cxxbridge/memzip-ffi/src/lib.rs.h"
[[ -f "$lib" ]] || die "$lib was not built"
[[ -f "$header" ]] || die "$header (cxx generated header) missing"

# Objects of cpp_shim older than the generated header are stale.
version=${MEMZIP_GPGPUSIM_VERSION:-dev}
for ((i = 1; i <= $#; i++)); do  # the --version that setup-gpgpusim.sh will get
    case ${!i} in
        --version) j=$((i + 1)); version=${!j:-$version} ;;
        --version=*) version=${!i#*=} ;;
    esac
done
gpgpusim_paths "$version"
if [[ -d "$GPGPUSIM_SRC/build" ]]; then
    find "$GPGPUSIM_SRC/build" -name 'memzip_*.o' ! -newer "$(realpath "$header")" -delete
fi

export MEMZIP_FFI_LIB="$lib"
export MEMZIP_EXTRA_SRC_DIR="$MEMZIP_ROOT/cpp_shim"
export MEMZIP_EXTRA_CXXFLAGS="-I$target/cxxbridge ${MEMZIP_EXTRA_CXXFLAGS:-}"
exec bash "$MEMZIP_ROOT/scripts/setup-gpgpusim.sh" --version "$version" "$@"
