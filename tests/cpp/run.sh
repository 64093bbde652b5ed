#!/usr/bin/env bash
# Builds the memzip-ffi staticlib and the C++ bridge test against it, and runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cargo build --quiet --locked -p memzip-ffi
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
out="$target_dir/cpp-tests"
mkdir -p "$out"
g++ -std=c++14 -Wall -Wextra -O1 -I"$target_dir/cxxbridge" -Icpp_shim tests/cpp/bridge_test.cc \
    "$target_dir/debug/libmemzip_ffi.a" -lpthread -ldl -o "$out/bridge_test"
"$out/bridge_test"
