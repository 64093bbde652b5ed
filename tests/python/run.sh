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
# transfers.py (the multi-GPU paper's Fig. 1) on the fixture payload trace
# (SimpleConvolution of a constant image): 500 rows, entropies in [0, 0.75]
# (64 bytes hold at most 64 values), BDI's sizes those of the codec.
"$venv/bin/python" "$root/benchmarks/mgpusim/transfers.py" "$root/rust/memzip-study/tests/fixtures/mgpu/sc-payloads.mztrace" \
    --first 500 --csv transfers.csv --png transfers.png 2>/dev/null
TRACE="$root/rust/memzip-study/tests/fixtures/mgpu/sc-payloads.mztrace" "$venv/bin/python" - <<'PY'
import csv
import os

import memzip

rows = list(csv.DictReader(open("transfers.csv")))
assert len(rows) == 500, len(rows)
assert all(0 <= float(r["entropy"]) <= 0.75 for r in rows)
blocks = memzip.read_trace(os.environ["TRACE"]).data[:500]
bdi = memzip.Codec("bdi", block_bytes=64, mag_bytes=1, costs="paper004")
assert [int(r["bdi_bytes"]) for r in rows] == [(bdi.compress(b.tobytes()).compressed_bits + 7) // 8 for b in blocks]
assert sum(int(r["bdi_bytes"]) for r in rows) < sum(int(r["cpack_z_bytes"]) for r in rows), "BDI fits a constant image best"
PY
echo "transfers.py: the first 500 payloads of the fixture trace, sizes and entropies"
# compare_results.py of the CLI's fixture runs against themselves: every
# program with its none run, each pair equal (vecadd: bdi 1.25x of a DRAM
# bound of 1.299, fpc 0.8x with no bound: its stats carry no DRAM counters).
fixtures="$root/rust/memzip-cli/tests/fixtures/runs"
compared=$("$venv/bin/python" "$root/benchmarks/compare_results.py" "$fixtures" "$fixtures" --names one two)
grep -qxF "| vecadd | 100,000 / 100,000 | 0.51 / 0.51 | - / - | 1.250 (1.299) / 1.250 (1.299) | 0.800 / 0.800 |" <<<"$compared" || {
    echo "compare_results.py: no vecadd row of equal pairs in:" >&2
    echo "$compared" >&2
    exit 1
}
echo "compare_results.py: the fixtures against themselves give equal pairs"
# Its geometric means: the fixtures plus a bfs bdi run, 1.6x in set one and
# 1.25x in set two; bdi over both programs is sqrt(1.25 * 1.6) = 1.414 against
# 1.250, over the memory-bound one (vecadd, DRAM utilisation 0.51; bfs has no
# utilisation) 1.250 on both; fpc has one program of two, so a count.
for set in one two; do
    cp -r "$fixtures" "$work/compare-$set"
    bfs_bdi="$work/compare-$set/bfs-bdi"
    cp -r "$fixtures/vecadd-bdi" "$bfs_bdi"
    sed -i 's/"program": "vecadd"/"program": "bfs"/' "$bfs_bdi/run.json"
done
sed -i 's/gpu_tot_sim_cycle = 80000/gpu_tot_sim_cycle = 31250/' "$work/compare-one/bfs-bdi/sim.log"
sed -i 's/gpu_tot_sim_cycle = 80000/gpu_tot_sim_cycle = 40000/' "$work/compare-two/bfs-bdi/sim.log"
# expect_rows TEXT ROW...: each ROW is a whole line of compare_results.py's TEXT.
expect_rows() {
    local text=$1 row
    shift
    for row in "$@"; do
        grep -qxF "$row" <<<"$text" || {
            echo "compare_results.py: no row '$row' in:" >&2
            echo "$text" >&2
            exit 1
        }
    done
}
compared=$("$venv/bin/python" "$root/benchmarks/compare_results.py" "$work/compare-one" "$work/compare-two" --names one two)
# Columns: bdi, mag_bdi, fpc (the order set one's programs show them).
expect_rows "$compared" "| geomean (2 programs) | | | 1.414 / 1.250 | 1.250 / 1.250 (1) | 0.800 / 0.800 (1) |" \
    "| geomean, memory-bound in both (1 program) | | | 1.250 / 1.250 | - / - | 0.800 / 0.800 |"
echo "compare_results.py: geometric means over the programs both sets ran, and over those memory-bound in both"
# Two GPUs: --by-benchmark faces vecadd at `study` with vecadd at `modern`,
# and --partial lists the second set's partial-request costs per codec run.
cp -r "$fixtures" "$work/compare-modern"
sed -i 's/"program": "vecadd"/"program": "vecadd modern"/' "$work/compare-modern"/vecadd-*/run.json
sed -i 's/"program": "vecadd"/"program": "vecadd study"/' "$work/compare-one"/vecadd-*/run.json
"$venv/bin/python" - "$work/compare-modern/vecadd-bdi/stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
stats["total"]["partial"] = {"reads": 9, "compressed_reads": 5, "overfetch_bursts": 1234, "writes": 3, "rmw_reads": 2,
                             "rmw_read_bursts": 6, "rmw_read_bytes": 192, "raw_fallbacks": 1}
json.dump(stats, open(sys.argv[1], "w"))
PY
compared=$("$venv/bin/python" "$root/benchmarks/compare_results.py" "$work/compare-one" "$work/compare-modern" \
    --names one two --by-benchmark --partial)
expect_rows "$compared" \
    "| vecadd (study / modern) | 100,000 / 100,000 | 0.51 / 0.51 | 1.250 (1.299) / 1.250 (1.299) | - / - | 0.800 / 0.800 |" \
    "| vecadd (study / modern) | 1,234 / 6 / 1 | - | - |"
echo "compare_results.py: --by-benchmark matches presets across sets, --partial lists partial-request costs"
# A set that ran vecadd at two presets (a `study` none run beside the `modern`
# grid) faces the other set with the preset of more runs and says so; --codec
# chooses the columns, --with-codec-runs drops a program that ran only none.
cp -r "$work/compare-modern/vecadd-none" "$work/compare-modern/vecadd-study-none"
sed -i 's/"program": "vecadd modern"/"program": "vecadd study"/' "$work/compare-modern/vecadd-study-none/run.json"
for set in one modern; do
    cp -r "$fixtures/vecadd-none" "$work/compare-$set/lonely-none"
    sed -i 's/"program": "vecadd"/"program": "lonely"/' "$work/compare-$set/lonely-none/run.json"
done
compared=$("$venv/bin/python" "$root/benchmarks/compare_results.py" "$work/compare-one" "$work/compare-modern" \
    --names one two --by-benchmark --with-codec-runs --codec fpc:variant=paper004 --codec bdi 2>"$work/compare.err")
expect_rows "$compared" "| program | none cycles (one / two) | DRAM utilisation | fpc:variant=paper004 speedup | bdi speedup |" \
    "| vecadd (study / modern) | 100,000 / 100,000 | 0.51 / 0.51 | 0.800 / 0.800 | 1.250 (1.299) / 1.250 (1.299) |"
! grep -q "^| lonely" <<<"$compared" || { echo "compare_results.py --with-codec-runs: a none-only program in:" >&2; echo "$compared" >&2; exit 1; }
grep -qF "$work/compare-modern: vecadd at modern (3 runs); left out: study" "$work/compare.err" || {
    echo "compare_results.py: no note of the preset left out in:" >&2; cat "$work/compare.err" >&2; exit 1; }
echo "compare_results.py: a benchmark at two presets faces the other set at the one of more runs; --codec, --with-codec-runs"
# The committed side-by-side tables (reproduction.md and the sweeps README quote
# them) are what the script makes of the committed runs.
regenerates() {
    local table="$1"
    shift
    "$venv/bin/python" "$root/benchmarks/compare_results.py" "$@" >"$work/regenerated.md"
    diff -u "$root/$table" "$work/regenerated.md" >&2 || {
        echo "$table is not what compare_results.py makes of the committed runs (above); regenerate it" >&2
        exit 1
    }
    echo "compare_results.py: $table regenerates from the committed runs"
}
regenerates benchmarks/results/study-v321/dev-and-v3.2.1.md \
    "$root/benchmarks/results/study" "$root/benchmarks/results/study-v321" --names dev v3.2.1
regenerates benchmarks/results/study-v321-r2/before-and-after.md \
    "$root/benchmarks/results/study-v321" "$root/benchmarks/results/study-v321-r2" \
    --names before after --partial --with-codec-runs
