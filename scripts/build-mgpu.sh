#!/usr/bin/env bash
# Build memzip-mgpu, memzip inside the MGPUSim multi-GPU simulator: memzip's C
# ABI (cargo build --release -p memzip-capi), MGPUSim and Akita from the Go
# module proxy at the versions mgpusim-plugin/go.mod pins, then the command.
# Prints the path of the built binary on stdout.
#
#   scripts/build-mgpu.sh
#
# Environment: XDG_CACHE_HOME / MEMZIP_CACHE (the binary goes to
# $MEMZIP_CACHE/mgpu/memzip-mgpu), CARGO_TARGET_DIR (default: target/),
# GOPROXY (default: the Go module proxy; Go's own module cache holds the
# downloads).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v go >/dev/null || die "no 'go' command: install Go 1.25 or later"
target=${CARGO_TARGET_DIR:-$MEMZIP_ROOT/target}
[[ "$target" == /* ]] || target="$MEMZIP_ROOT/$target"

step "cargo build --release -p memzip-capi"
(cd "$MEMZIP_ROOT" && cargo build --release --locked -p memzip-capi) >&2 ||
    die "cargo build --release -p memzip-capi failed"
[[ -f "$target/release/libmemzip_capi.a" ]] || die "$target/release/libmemzip_capi.a was not built"

plugin="$MEMZIP_ROOT/mgpusim-plugin"
step "go mod download (MGPUSim and Akita, pinned in mgpusim-plugin/go.mod)"
run_logged "$MEMZIP_CACHE/mgpu/go-mod-download.log" bash -c "cd '$plugin' && go mod download" ||
    die "go mod download failed: is the Go module proxy (${GOPROXY:-https://proxy.golang.org}) reachable? (log above)"

step "go build memzip-mgpu"
mkdir -p "$MEMZIP_CACHE/mgpu"
export CGO_LDFLAGS="-L$target/release ${CGO_LDFLAGS:-}"
(cd "$plugin" && go build -o "$MEMZIP_CACHE/mgpu/memzip-mgpu" ./cmd/memzip-mgpu) >&2 ||
    die "go build failed"
echo "$MEMZIP_CACHE/mgpu/memzip-mgpu"
