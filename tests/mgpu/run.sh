#!/usr/bin/env bash
# The MGPUSim plugin's Go tests (mgpusim-plugin/): the paper's bus, the cgo
# binding of memzip's C ABI, the workloads, and 4-GPU runs of small
# benchmarks under none, bdi, fpc, cpack_z and adaptive with every payload
# verified. MGPUSim comes from the Go module proxy (one SKIP line when it
# cannot be reached).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root/mgpusim-plugin"
if ! command -v go >/dev/null; then
    echo "SKIP MGPUSim plugin tests: no 'go' command (install Go 1.25 or later)"
    exit 0
fi
if ! log=$(go mod download 2>&1); then
    echo "SKIP MGPUSim plugin tests: go mod download failed, the Go module proxy cannot be reached (${log%%$'\n'*})"
    exit 0
fi
cd "$root"
cargo build --quiet --release --locked -p memzip-capi
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
export CGO_LDFLAGS="-L$target_dir/release ${CGO_LDFLAGS:-}"
cd "$root/mgpusim-plugin"
unformatted=$(gofmt -l .)
if [[ -n "$unformatted" ]]; then
    echo "gofmt: these files need formatting: $unformatted" >&2
    exit 1
fi
go vet ./...
go test ./...
