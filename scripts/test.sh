#!/usr/bin/env bash
# The one test command (README, CI): every test memzip has.
#  1. Rust: codecs, memory-controller model, trace format, FFI bridge.
#  2. C++: the bridge objects driven from C++ without the simulator.
#  3. Simulator: our CUDA programs under gpgpu-sim with memzip, when a
#     simulator source is available; otherwise one SKIP line says what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust tests (cargo test --workspace)"
cargo test --workspace --locked

echo "== C++ bridge test"
bash tests/cpp/run.sh

echo "== Simulator tests"
bash tests/sim/run.sh
