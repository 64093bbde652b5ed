#!/usr/bin/env python3
"""Checks the sweep specs without simulating anything.

    python3 benchmarks/sweeps/check_specs.py [path/to/memzip]   # default: target/release/memzip

For every spec of make_specs.py: the committed JSON equals what make_specs.py writes now; `memzip
sweep --dry-run` expands it (so the CLI accepts it) into unique run ids; every run verifies
(`-memzip_verify 1`); every benchmark has a manifest whose STATUS is `runs` and whose PRESETS
include the spec's preset; in the GTX580 runs (every run but those of a spec's `gpus`)
`-memzip_mag_bytes` equals the DRAM atom the option lines give (burst length x bus width x chips
per controller); every codec string, at its
`-memzip_mag_bytes`, is accepted by memzip's codec registry (`memzip analyze` of a small synthetic
trace; needs the `zstd` command, else one SKIP line). Prints one line per problem and exits 1 if
there is any.
"""

import json
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ next to the specs
import make_specs  # noqa: E402

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


def synthetic_trace(path):
    """A zstd trace (rust/memzip/src/trace.rs, version 1) of 64 write-backs of 128-byte blocks."""
    raw = bytearray(b"MZTRACE\0") + struct.pack("<HI", 1, 128)
    for i in range(64):
        # kind 1 (write-back), controller 0, cycle and address deltas (zigzag LEB128: 2 and 128).
        raw += bytes([1, 0, 2 if i else 0]) + (b"\x80\x02" if i else b"\x00")
        raw += struct.pack("<32I", *[(i * 1000 + w) if i % 2 else 0 for w in range(32)])
    subprocess.run(["zstd", "-q", "-f", "-o", str(path)], input=bytes(raw), check=True)


def registry_problems(memzip, codecs_by_mag, tmp):
    """Each codec string through `memzip analyze` (the registry the simulator uses). The `sampling`
    knob only names the run (the -memzip_e2mc_sampling flag sets it), so it is left out here."""
    if not shutil.which("zstd"):
        print("SKIP codec registry check: no zstd command")
        return []
    trace = Path(tmp) / "check.zst"
    synthetic_trace(trace)
    problems = []
    for mag, codecs in sorted(codecs_by_mag.items()):
        args = [memzip, "analyze", str(trace), "--mag-bytes", str(mag), "--no-shannon"]
        for codec in sorted(codecs):
            name, _, knobs = codec.partition(":")
            kept = [k for k in knobs.split(",") if k and not k.startswith("sampling=")]
            args += ["--codecs", name + (":" + ",".join(kept) if kept else "")]
        out = subprocess.run(args, capture_output=True, text=True)
        if out.returncode != 0:
            problems.append(f"codecs at MAG {mag} B: memzip analyze failed: {out.stderr.strip()}")
    return problems


def spec_problems(memzip, spec, codecs_by_mag):
    out = subprocess.run([memzip, "sweep", str(spec), "--dry-run"], capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        return [f"{spec.name}: memzip sweep --dry-run failed: {out.stderr.strip()}"]
    problems = []
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    ids = [row[0] for row in rows]
    if len(set(ids)) != len(ids):
        problems.append(f"{spec.name}: duplicate run ids")
    for run_id, codec, options, _, gpu in rows:
        lines = [o for o in options.split("; ") if o]
        codecs_by_mag.setdefault(int(option(lines, "-memzip_mag_bytes", 32)), set()).add(codec)
        if make_specs.VERIFY not in lines:
            problems.append(f"{spec.name}: {run_id} does not verify")
        # Only the GTX580's config is in the repository; scripts/sim-run.sh derives the others
        # (gpgpu-sim's QV100 and RTX3070 configs) at set-up, their MAG with them.
        if gpu == "gtx580":
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
        committed = [REPO / "benchmarks/sweeps" / spec.relative_to(tmp) for spec in fresh]
        for spec, path in zip(fresh, committed):
            if not path.is_file() or path.read_text() != spec.read_text():
                problems.append(f"{spec.name}: differs from make_specs.py's output (rerun make_specs.py)")
        codecs_by_mag = {}
        for path in committed:
            problems += spec_problems(memzip, path, codecs_by_mag)
        problems += registry_problems(memzip, codecs_by_mag, tmp)
    for p in problems:
        print(p)
    print(f"check_specs: {len(fresh)} specs, {len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
