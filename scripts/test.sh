#!/usr/bin/env bash
# The one test command (README, CI): every test memzip has.
#  1. Rust: formatting; codecs, memory-controller model, trace format, FFI bridge.
#  2. C++: the bridge objects driven from C++ without the simulator.
#     C: the codecs' C ABI (rust/memzip-capi) driven from C11, checked
#     against `memzip analyze`, and again under AddressSanitizer.
#     Python: the memzip package (rust/memzip-py) built with pip in a venv,
#     its pytest tests against the CLI (one SKIP line without PyPI).
#     Slurm: `memzip sweep --slurm` on a single-node Slurm the test starts
#     (installed with apt when missing; one SKIP line where it cannot run).
#     MGPUSim: the Go module mgpusim-plugin/ (memzip inside the multi-GPU
#     simulator) with 4-GPU runs of small benchmarks (one SKIP line without
#     the Go module proxy).
#  3. Simulator: our CUDA programs under gpgpu-sim with memzip, when a
#     simulator source is available; otherwise one SKIP line says what is missing.
#     The same hooks on gpgpu-sim v3.2.1 (the papers' version). The simulators'
#     power models (GPUWattch, AccelWattch) with memzip's energy added.
#  4. Benchmarks: our input generators and output checkers, then a subset of
#     the real benchmarks at the tiny preset, per suite whose source is
#     available (one SKIP line per missing suite).
# At the end (also after a failure), a table of each suite's wall time.
# The simulator and benchmark suites run MEMZIP_TEST_JOBS simulations at once
# (default: the machine's cores; tests/sim/helpers.sh, spawn).
set -euo pipefail
cd "$(dirname "$0")/.."
# A test run builds once: incremental compilation's caches (~0.9 GB in
# target/debug/incremental) would save nothing here but disk.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

# Each suite's wall time, printed as a table at the end (also when a suite
# fails and stops the run: that one is marked).
suite_titles=()
suite_seconds=()
running_title=""
running_since=0

# suite TITLE CMD...: prints "== TITLE", runs CMD, keeps its wall time under
# TITLE's words before the first " (".
suite() {
    running_title=${1%% (*}
    running_since=$SECONDS
    echo "== $1"
    shift
    "$@"
    suite_titles+=("$running_title")
    suite_seconds+=($((SECONDS - running_since)))
    running_title=""
}

mm_ss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

print_suite_times() {
    local status=$? i
    if [[ -n $running_title ]]; then
        suite_titles+=("$running_title (stopped, exit $status)")
        suite_seconds+=($((SECONDS - running_since)))
    fi
    ((${#suite_titles[@]})) || return 0
    echo "== Wall time per suite (m:ss)"
    for i in "${!suite_titles[@]}"; do
        printf '%7s  %s\n' "$(mm_ss "${suite_seconds[i]}")" "${suite_titles[i]}"
    done
    printf '%7s  %s\n' "$(mm_ss "$SECONDS")" "total"
    # The build's disk use, to see a full disk coming (CI's once filled).
    echo "== Disk: $(du -sh target 2>/dev/null | cut -f1) in target/"
}
trap print_suite_times EXIT

rust_formatting() {
    if cargo fmt --version >/dev/null 2>&1; then
        cargo fmt --all -- --check
    else
        echo "SKIP Rust formatting: no rustfmt (rustup component add rustfmt)"
    fi
}

suite "Rust formatting (cargo fmt --check; width in rust/rustfmt.toml)" rust_formatting
suite "Rust structure (no module circle, no file over 800 lines of non-test code)" python3 scripts/check-structure.py
suite "Rust tests (cargo test --workspace)" cargo test --workspace --locked
suite "Sweep specs (make_specs.py writes the committed JSON; the CLI expands each)" python3 benchmarks/sweeps/check_specs.py target/debug/memzip
suite "C++ bridge test" bash tests/cpp/run.sh
suite "C ABI test (rust/memzip-capi from C, then under AddressSanitizer)" bash tests/capi/run.sh
suite "Python tests" bash tests/python/run.sh
suite "Slurm test (memzip sweep --slurm on a local single-node Slurm)" bash tests/slurm/run.sh
suite "MGPUSim plugin tests (Go: the paper's bus, the cgo binding, 4-GPU runs)" bash tests/mgpu/run.sh
suite "Simulator tests" bash tests/sim/run.sh
suite "Simulator tests on gpgpu-sim v3.2.1" bash tests/sim/v321.sh
suite "Simulator power model tests (GPUWattch on v3.2.1, AccelWattch on dev)" bash tests/sim/power.sh
suite "Benchmark tests" bash tests/bench/run.sh
