#!/usr/bin/env python3
"""Fig. 1 of "Exploiting Adaptive Data Compression to Improve Performance and
Energy-Efficiency of Compute Workloads in Multi-GPU Systems" (IPDPS 2019):
the compressed size of the first inter-GPU transfers under each algorithm,
beside each transfer's entropy (§IV-C: "entropy of 500 consecutive
inter-GPU data transfers (each 64 bytes), analyzed at a byte-level
granularity").

    python3 benchmarks/mgpusim/transfers.py RUN/payloads.mztrace --first 500 --csv fig1.csv [--png fig1.png]

The trace is a `memzip-mgpu -trace` file (a none run's: the payloads as they
were sent, in order). Sizes are the payload's compressed bytes (whole bytes;
the 4-bit algorithm field not counted), by memzip's codecs at the paper's
costs (Table III, FPC's Table II prefixes); entropy is the order-0 entropy of
the transfer's 64 byte values over 8 bits, so 0 (one value) to 1 (at most
64 distinct values give 0.75). The PNG needs matplotlib.
"""

import argparse
import csv
import math
import sys
from collections import Counter
from pathlib import Path

import memzip

ALGORITHMS = ("bdi", "fpc", "cpack_z")
KINDS = {memzip.KIND_READ: "read_data", memzip.KIND_WRITE: "write"}


def byte_entropy(block: bytes) -> float:
    """Order-0 entropy of the block's bytes, as a share of 8 bits."""
    counts = Counter(block)
    n = len(block)
    return -sum(c / n * math.log2(c / n) for c in counts.values()) / 8


def transfers(trace: Path, first: int) -> list:
    """One row per transfer: index, kind, source GPU, entropy, bytes per algorithm."""
    chunk = next(iter(memzip.iter_trace(trace, chunk_records=first)))
    if chunk.block_bytes != 64:
        raise SystemExit(f"{trace}: {chunk.block_bytes}-byte blocks; memzip-mgpu traces 64-byte payloads")
    codecs = {name: memzip.Codec(name, block_bytes=64, mag_bytes=1, costs="paper004") for name in ALGORITHMS}
    rows = []
    for i in range(len(chunk)):
        block = chunk.data[i].tobytes()
        row = {
            "transfer": i,
            "kind": KINDS.get(int(chunk.kind[i]), str(int(chunk.kind[i]))),
            "source_gpu": int(chunk.controller[i]),
            "entropy": round(byte_entropy(block), 4),
        }
        for name, codec in codecs.items():
            row[f"{name}_bytes"] = (codec.compress(block).compressed_bits + 7) // 8
        rows.append(row)
    return rows


def plot(rows: list, title: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = [r["transfer"] for r in rows]
    fig, (sizes, entropy) = plt.subplots(2, 1, figsize=(10, 6), sharex=True)
    for name in ALGORITHMS:
        sizes.plot(x, [r[f"{name}_bytes"] for r in rows], label=name, linewidth=0.8)
    sizes.set_ylabel("compressed bytes (of 64)")
    sizes.set_title(title)
    sizes.legend(loc="upper right")
    entropy.plot(x, [r["entropy"] for r in rows], color="black", linewidth=0.8)
    entropy.set_ylabel("byte entropy / 8 bits")
    entropy.set_xlabel("inter-GPU transfer")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trace", type=Path, help="a memzip-mgpu -trace file")
    parser.add_argument("--first", type=int, default=500, help="transfers to show (default 500, as the paper)")
    parser.add_argument("--csv", type=Path, required=True, help="where to write the rows")
    parser.add_argument("--png", type=Path, help="also draw the figure (needs matplotlib)")
    parser.add_argument("--title", default="", help="the figure's title")
    args = parser.parse_args(argv)
    if args.first < 1:
        parser.error(f"--first {args.first}: expected a positive count")
    rows = transfers(args.trace, args.first)
    with args.csv.open("w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    if args.png:
        plot(rows, args.title or args.trace.parent.name, args.png)
    print(f"{args.csv}: {len(rows)} transfers", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
