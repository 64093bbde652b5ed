#!/usr/bin/env python3
"""Temperature and power grids in Rodinia hotspot's input format, and a
completeness check of its output file.

    hotspot_grid.py make --size N [--seed S] --temp FILE --power FILE
    hotspot_grid.py check --size N OUTPUT

make: N*N lines of one float each, row by row: temperatures in [322, 344) K
and power densities in [0, 0.004) W per cell with a few hot blocks, the
ranges of Rodinia's shipped temp_*/power_* files (ours are generated, not
copied). check: OUTPUT has N*N lines "index<TAB>value", indices in order,
every value finite and within [300, 400] K. This is a plausibility check,
not a reference comparison. Deterministic: the same arguments, the same bytes.
"""
import argparse
import math
import random
import sys


def make(args):
    n = args.size
    rng = random.Random(args.seed)
    hot = [(rng.randrange(n), rng.randrange(n), max(1, n // 8)) for _ in range(4)]
    with open(args.temp, "w") as temp, open(args.power, "w") as power:
        for i in range(n):
            for j in range(n):
                temp.write(f"{322 + 22 * rng.random():.6f}\n")
                p = 0.004 * rng.random() * (5 if any(abs(i - r) < s and abs(j - c) < s for r, c, s in hot) else 0.2)
                power.write(f"{min(p, 0.004):.8f}\n")


def check(args):
    want = args.size * args.size
    count = 0
    with open(args.output, errors="replace") as f:
        for count, line in enumerate(f, 1):
            fields = line.split()
            try:
                index, value = int(fields[0]), float(fields[1])
            except (ValueError, IndexError):
                sys.exit(f"hotspot_grid: line {count} is not 'index value': {line.strip()!r}")
            if index != count - 1 or not math.isfinite(value) or not 300 <= value <= 400:
                sys.exit(f"hotspot_grid: line {count}: implausible {line.strip()!r}")
    if count != want:
        sys.exit(f"hotspot_grid: {count} lines, want {want}")
    print(f"hotspot_grid: {want} plausible temperatures")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("make")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--temp", required=True)
    p.add_argument("--power", required=True)
    p = sub.add_parser("check")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("output")
    args = parser.parse_args()
    make(args) if args.command == "make" else check(args)


if __name__ == "__main__":
    main()
