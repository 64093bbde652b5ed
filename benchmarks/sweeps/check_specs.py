#!/usr/bin/env python3
"""Checks the sweep specs without simulating anything.

    python3 benchmarks/sweeps/check_specs.py [path/to/memzip]   # default: target/release/memzip

For every spec of make_specs.py: the committed JSON equals what make_specs.py writes now; `memzip
sweep --dry-run` expands it (so the CLI accepts it) into unique run ids; every run verifies
(`-memzip_verify 1`); every benchmark has a manifest whose STATUS is `runs` and whose PRESETS
include the spec's preset; in the MAG specs `-memzip_mag_bytes` equals the DRAM atom the option
lines give (burst length x bus width x chips per controller). Prints one line per problem and
exits 1 if there is any.
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import make_specs

REPO = make_specs.HERE.parent.parent
GTX580_CONFIG = REPO / "gpgpu-sim-patch/dev-6b244a5/configs/GTX580-MAG32/gpgpusim.config"


def manifest_problems(benchmark, preset):
    path = REPO / "benchmarks" / f"{benchmark}.env"
    if not path.is_file():
        return [f"{benchmark}: no manifest {path.relative_to(REPO)}"]
    values = {}
    for line in path.read_text().splitlines():
        key, sep, value = line.partition("=")
        if sep and key.isidentifier():
            values[key] = value.strip().strip("'\"")
    problems = []
    if values.get("STATUS") != "runs":
        problems.append(f"{benchmark}: STATUS is '{values.get('STATUS')}', not 'runs'")
    if preset not in values.get("PRESETS", "").split():
        problems.append(f"{benchmark}: no preset '{preset}' (PRESETS: {values.get('PRESETS')})")
    return problems


def option(lines, flag, default):
    """The last value of `flag` in option lines (later lines override earlier ones)."""
    value = default
    for line in lines:
        parts = line.split()
        if parts and parts[0] == flag:
            value = parts[1]
    return value


def atom_problems(run_id, lines):
    base = GTX580_CONFIG.read_text().splitlines()
    every = base + lines
    atom = (int(option(every, "-gpgpu_dram_burst_length", 0)) * int(option(every, "-gpgpu_dram_buswidth", 0))
            * int(option(every, "-gpgpu_n_mem_per_ctrlr", 0)))
    mag = int(option(lines, "-memzip_mag_bytes", 32))
    return [] if atom == mag else [f"{run_id}: DRAM atom {atom} B but -memzip_mag_bytes {mag}"]


def spec_problems(memzip, spec):
    out = subprocess.run([memzip, "sweep", str(spec), "--dry-run"], capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        return [f"{spec.name}: memzip sweep --dry-run failed: {out.stderr.strip()}"]
    problems = []
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    ids = [row[0] for row in rows]
    if len(set(ids)) != len(ids):
        problems.append(f"{spec.name}: duplicate run ids")
    for run_id, _codec, options, *_ in rows:
        lines = [o for o in options.split("; ") if o]
        if make_specs.VERIFY not in lines:
            problems.append(f"{spec.name}: {run_id} does not verify")
        problems += atom_problems(run_id, lines)
    for entry in json.loads(spec.read_text())["runs"]:
        for preset in entry.get("presets", ["tiny"]):
            problems += [f"{spec.name}: {p}" for p in manifest_problems(entry["benchmark"], preset)]
    return sorted(set(problems))


def main():
    memzip = sys.argv[1] if len(sys.argv) > 1 else str(REPO / "target/release/memzip")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        make_specs.HERE = Path(tmp)
        make_specs.main()
        fresh = sorted(Path(tmp).glob("*.json"))
        for spec in fresh:
            committed = REPO / "benchmarks/sweeps" / spec.name
            if not committed.is_file() or committed.read_text() != spec.read_text():
                problems.append(f"{spec.name}: differs from make_specs.py's output (rerun make_specs.py)")
        for spec in fresh:
            problems += spec_problems(memzip, REPO / "benchmarks/sweeps" / spec.name)
    for p in problems:
        print(p)
    print(f"check_specs: {len(fresh)} specs, {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
