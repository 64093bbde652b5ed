#!/usr/bin/env bash
# The one test command (README, CI): every test memzip has.
# Pure Rust tests always run; simulator tests run when a simulator source is
# available and otherwise print one SKIP line naming what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --workspace"
cargo test --workspace --locked
