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

# End to end: memzip-mgpu's run directories as `memzip table` reads them.
bin="$target_dir/mgpu-test/memzip-mgpu"
go build -o "$bin" ./cmd/memzip-mgpu
runs=$(mktemp -d "${TMPDIR:-/tmp}/memzip-mgpu-runs.XXXXXX")
trap 'rm -rf "$runs"' EXIT
"$bin" -benchmark fir -size length=8192 -codec none -out "$runs/none" >/dev/null 2>&1
"$bin" -benchmark fir -size length=8192 -codec bdi -verify -out "$runs/bdi" >/dev/null 2>&1
cd "$root"
cargo build --quiet --release --locked -p memzip-cli
table=$("$target_dir/release/memzip" table "$runs/none" "$runs/bdi")
if ! grep -q 'fabric bytes' <<<"$table" || ! grep -Eq 'mgpusim/fir .* bdi .* ok' <<<"$table"; then
    echo "memzip table of memzip-mgpu runs lacks the fabric columns or the bdi row:" >&2
    echo "$table" >&2
    exit 1
fi
echo "memzip table reads memzip-mgpu's runs (none and bdi, fabric columns)"
