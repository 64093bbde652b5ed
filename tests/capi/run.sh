#!/usr/bin/env bash
# Builds the memzip-capi staticlib and the C test against it (plain C11, the
# link line the crate's README documents), runs it, and checks what it wrote:
#  - every codec's compressed sizes equal what `memzip analyze` computes on
#    the trace the test wrote through the C ABI (same blocks, same records);
#  - every stats JSON parses and counts the blocks;
#  - then the same test under AddressSanitizer (leaks included) when the
#    compiler supports it (one SKIP line otherwise).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cargo build --quiet --locked -p memzip-capi -p memzip-cli
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
out="$target_dir/capi-tests"
rm -rf "$out"
mkdir -p "$out/run" "$out/asan"
lib="$target_dir/debug/libmemzip_capi.a"
cflags=(-std=c11 -Wall -Wextra -Werror -pedantic -O1 -Irust/memzip-capi/include)
libs=(-lpthread -ldl -lm)

cc "${cflags[@]}" tests/capi/capi_test.c "$lib" "${libs[@]}" -o "$out/capi_test"
"$out/capi_test" "$out/run"
# The timing program (run by hand, README) is built so it keeps up with the header.
cc "${cflags[@]}" tests/capi/timing.c "$lib" "${libs[@]}" -o "$out/timing"

echo "capi: comparing the C ABI's sizes with memzip analyze on the trace it wrote"
codecs="$(cut -f1 "$out/run/sizes.tsv" | paste -sd, -)"
"$target_dir/debug/memzip" analyze "$out/run/blocks.trace" --codecs "$codecs" --mag-bytes 32 \
    --e2mc-sample-blocks 16 --no-shannon --json "$out/analyze.json" >/dev/null
python3 - "$out" <<'EOF'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
report = json.loads((out / "analyze.json").read_text())
(trace,) = report["traces"]
assert trace["block_bytes"] == 64, trace["block_bytes"]
assert trace["records"] == {"read": 3, "write": 48, "memcpy": 0}, trace["records"]
analysed = {c["codec"]: c for c in trace["codecs"]}
rows = [line.split("\t") for line in (out / "run" / "sizes.tsv").read_text().splitlines()]
assert len(rows) >= 12, rows
for codec, blocks, compressed_blocks, bits in rows:
    a = analysed[codec]
    got = (int(blocks), int(compressed_blocks), int(bits))
    want = (a["blocks"], a["compressed_blocks"], a["compressed_bits"])
    assert got == want, f"{codec}: C ABI (blocks, compressed, bits) {got}, memzip analyze {want}"
    stats = json.loads((out / "run" / f"stats-{codec}.json").read_text())
    assert stats["blocks"] == int(blocks) and stats["compressed_bits"] == int(bits), (codec, stats)
    assert sum(e["blocks"] for e in stats["encodings"]) == stats["blocks"], (codec, stats["encodings"])
    assert sum(e["bits"] for e in stats["encodings"]) == stats["compressed_bits"], codec
    assert stats["uncompressed_bits"] == 48 * 64 * 8 and stats["granule_bytes"] == 32, codec
    print(f"  {codec:10} {bits:>6} bits in {blocks} blocks ({compressed_blocks} compressed): equal")
adaptive = json.loads((out / "run" / "stats-adaptive-paper004.json").read_text())
choices = adaptive["adaptive"]
runs = sum(c["run_blocks"] for c in choices["candidates"])
assert adaptive["blocks"] == 599 and choices["sampled_blocks"] == 14, adaptive
assert choices["sampled_blocks"] + choices["bypassed_blocks"] + runs == adaptive["blocks"], choices
assert adaptive["compress_pj"] > 0 and adaptive["compress_cycles"] > 0, adaptive
print(f"  adaptive (paper 004 costs): {choices}")
EOF

if echo 'int main(void){return 0;}' | cc -fsanitize=address -x c - -o "$out/asan/probe" 2>/dev/null; then
    cc "${cflags[@]}" -g -fsanitize=address,undefined -fno-omit-frame-pointer tests/capi/capi_test.c "$lib" \
        "${libs[@]}" -o "$out/capi_test_asan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1 \
        "$out/capi_test_asan" "$out/asan" >/dev/null
    echo "capi: the C test is clean under AddressSanitizer and UBSan (leak checking on)"
else
    echo "SKIP capi AddressSanitizer run: cc -fsanitize=address does not link here"
fi
