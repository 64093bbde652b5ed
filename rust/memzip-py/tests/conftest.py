"""Shared fixtures: a synthetic trace written with memzip's own trace writer,
and the `memzip` CLI binary the results are compared with."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import memzip

REPO = Path(__file__).resolve().parents[3]
BLOCK_BYTES = 128
#: Analysed blocks after which E2MC ends online sampling in these tests, so
#: the synthetic trace exercises both phases.
SAMPLE_BLOCKS = 400


def block_mix(count: int, block_bytes: int = BLOCK_BYTES, seed: int = 7) -> np.ndarray:
    """Blocks like a GPU's memory holds: zeros, small and strided ints,
    pointers, floats, repeated words and random bytes."""
    rng = np.random.default_rng(seed)
    words = block_bytes // 4
    blocks = np.zeros((count, block_bytes), np.uint8)
    for i in range(count):
        pattern = i % 7
        if pattern == 0:
            continue  # zeros
        if pattern == 1:
            row = (np.arange(words, dtype=np.int32) * (i % 5) + rng.integers(-100, 100)).astype("<i4")
        elif pattern == 2:
            row = (0x7F00_0000_0000 + 8 * np.arange(block_bytes // 8) + 4096 * i).astype("<u8")
        elif pattern == 3:
            row = (rng.normal(0, 1, words) * (i % 3 + 1)).astype("<f4")
        elif pattern == 4:
            row = np.full(words, rng.integers(0, 2**31), dtype="<u4")
        elif pattern == 5:
            row = rng.integers(0, 16, words).astype("<u4")
        else:
            row = rng.integers(0, 256, block_bytes).astype(np.uint8)
        blocks[i] = np.frombuffer(row.tobytes(), np.uint8)
    return blocks


@pytest.fixture(scope="session")
def trace_path(tmp_path_factory) -> Path:
    """1500 records: reads, write-backs and copies over 4 controllers."""
    count = 1500
    rng = np.random.default_rng(11)
    kind = rng.choice([memzip.KIND_READ, memzip.KIND_WRITE, memzip.KIND_MEMCPY], count, p=[0.3, 0.5, 0.2])
    path = tmp_path_factory.mktemp("trace") / "mix.mzt"
    written = memzip.write_trace(
        path,
        block_mix(count),
        kind=kind.astype(np.uint8),
        controller=(np.arange(count) % 4).astype(np.uint32),
        cycle=np.cumsum(rng.integers(0, 50, count)).astype(np.uint64),
        address=(rng.integers(0, 1 << 20, count) * BLOCK_BYTES).astype(np.uint64),
    )
    assert written == count
    return path


def cli_path():
    """The `memzip` binary: $MEMZIP_CLI, else the workspace's build."""
    candidates = [os.environ.get("MEMZIP_CLI")] + [str(REPO / "target" / p / "memzip") for p in ("debug", "release")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI; returns (exit code, stdout, stderr)."""
    path = cli_path()
    if path is None:
        pytest.skip("SKIP: no memzip CLI binary (cargo build -p memzip-cli, or set MEMZIP_CLI)")

    def run(*args):
        done = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        return done.returncode, done.stdout, done.stderr

    return run


def cli_error(result) -> str:
    """The CLI's one error line without its `memzip: error: ` prefix."""
    code, _, stderr = result
    assert code != 0, "the CLI accepted it"
    line = stderr.strip().splitlines()[-1]
    prefix = "memzip: error: "
    assert line.startswith(prefix), stderr
    return line[len(prefix):]


@pytest.fixture(scope="session")
def cli_analysis(cli, trace_path):
    """`memzip analyze --json` of the synthetic trace, every codec."""
    code, out, err = cli(
        "analyze", trace_path, "--json", "-", "--no-shannon", "--e2mc-sample-blocks", SAMPLE_BLOCKS
    )
    assert code == 0, err
    return json.loads(out)
