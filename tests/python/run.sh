#!/usr/bin/env bash
# The Python package (rust/memzip-py): builds it into a venv with pip, as a
# user would (`pip install ./rust/memzip-py`), and runs its pytest tests
# against the `memzip` CLI of this checkout. One SKIP line when the venv or
# the packages from PyPI cannot be installed.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/memzip/py-venv"

if ! command -v python3 >/dev/null; then
    echo "SKIP: Python tests: no python3"
    exit 0
fi
if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv" >/dev/null 2>&1; then
    rm -rf "$venv"
    echo "SKIP: Python tests: python3 -m venv failed (install python3-venv)"
    exit 0
fi
log="$(mktemp)"
work="$(mktemp -d)"
trap 'rm -rf "$log" "$work"' EXIT
# Already-installed packages are not fetched again.
if ! "$venv/bin/pip" install --quiet --disable-pip-version-check maturin numpy pandas pytest matplotlib >"$log" 2>&1; then
    echo "SKIP: Python tests: pip cannot install maturin numpy pandas pytest matplotlib from PyPI ($(tail -n 1 "$log"))"
    exit 0
fi
# The build needs nothing more from PyPI (maturin is in the venv), so a
# failure here is the package's. A user's `pip install` builds release; here
# the dev profile at the test profile's opt-level (Cargo.toml) reuses what
# `cargo test --workspace` just built instead of compiling everything again.
export CARGO_PROFILE_DEV_OPT_LEVEL=1
if ! PATH="$venv/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" "$venv/bin/pip" install --quiet \
        --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps ./rust/memzip-py >"$log" 2>&1; then
    cat "$log"
    echo "pip install ./rust/memzip-py failed" >&2
    exit 1
fi
cargo build --quiet --locked -p memzip-cli
target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
export MEMZIP_CLI="$target_dir/debug/memzip"
# Outside the source tree, so `import memzip` is the installed package.
cd "$work"
"$venv/bin/python" -m pytest -q -p no:cacheprovider "$root/rust/memzip-py/tests"
"$venv/bin/python" "$root/benchmarks/plot_runs.py" -o speedup_vs_cr.png
# compare_results.py of the CLI's fixture runs against themselves: every
# program with its none run, each pair equal (vecadd: bdi 1.25x, fpc 0.8x).
fixtures="$root/rust/memzip-cli/tests/fixtures/runs"
compared=$("$venv/bin/python" "$root/benchmarks/compare_results.py" "$fixtures" "$fixtures" --names one two)
grep -qxF "| vecadd | 100,000 / 100,000 | 0.51 / 0.51 | - / - | 1.250 / 1.250 | 0.800 / 0.800 |" <<<"$compared" || {
    echo "compare_results.py: no vecadd row of equal pairs in:" >&2
    echo "$compared" >&2
    exit 1
}
echo "compare_results.py: the fixtures against themselves give equal pairs"
