#!/usr/bin/env python3
"""Temperature and power grids in Rodinia hotspot's input format, and a host
reference check of its output file.

    hotspot_grid.py make --size N [--seed S] --temp FILE --power FILE
    hotspot_grid.py check --size N --iterations K --temp FILE --power FILE OUTPUT

make: N*N lines of one float each, row by row: temperatures in [322, 344) K
and power densities in [0, 0.004) W per cell with a few hot blocks, the
ranges of Rodinia's shipped temp_*/power_* files (ours are generated, not
copied). check: OUTPUT has N*N lines "index<TAB>value", indices in order,
and every value equals our host reference within 1e-3 K: K explicit steps of
hotspot's equation (the kernel's constants, borders clamped to the cell
itself, as the kernel does) from the same temp/power files. The program
prints 6 significant digits (~5e-4 K) and computes in float. Deterministic:
the same arguments, the same bytes.
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


def reference(n, iterations, temp, power):
    """hotspot's transient step (calculate_temp), in double, on an n x n grid."""
    chip_height = chip_width = 0.016
    t_chip, k_si, spec_heat_si, factor_chip = 0.0005, 100, 1.75e6, 0.5
    max_pd, precision, amb_temp = 3.0e6, 0.001, 80.0
    gh, gw = chip_height / n, chip_width / n
    cap = factor_chip * spec_heat_si * t_chip * gw * gh
    rx = gw / (2.0 * k_si * t_chip * gh)
    ry = gh / (2.0 * k_si * t_chip * gw)
    rz = t_chip / (k_si * gh * gw)
    step = precision / (max_pd / (factor_chip * t_chip * spec_heat_si))
    sdc = step / cap
    t = temp[:]
    for _ in range(iterations):
        new = [0.0] * (n * n)
        for i in range(n):
            up, down = max(i - 1, 0) * n, min(i + 1, n - 1) * n
            row = i * n
            for j in range(n):
                c = t[row + j]
                west, east = t[row + max(j - 1, 0)], t[row + min(j + 1, n - 1)]
                new[row + j] = c + sdc * (power[row + j] + (t[down + j] + t[up + j] - 2.0 * c) / ry
                                          + (east + west - 2.0 * c) / rx + (amb_temp - c) / rz)
        t = new
    return t


def read_floats(path):
    with open(path) as f:
        return [float(line) for line in f if line.strip()]


def check(args):
    want = args.size * args.size
    temp, power = read_floats(args.temp), read_floats(args.power)
    if len(temp) != want or len(power) != want:
        sys.exit(f"hotspot_grid: {args.temp} / {args.power} do not hold {want} values")
    ref = reference(args.size, args.iterations, temp, power)
    tol = 1e-3
    count = 0
    worst = 0.0
    with open(args.output, errors="replace") as f:
        for count, line in enumerate(f, 1):
            fields = line.split()
            try:
                index, value = int(fields[0]), float(fields[1])
            except (ValueError, IndexError):
                sys.exit(f"hotspot_grid: line {count} is not 'index value': {line.strip()!r}")
            if index != count - 1 or count > want or not math.isfinite(value):
                sys.exit(f"hotspot_grid: line {count}: unexpected {line.strip()!r}")
            error = abs(value - ref[index])
            if error > tol:
                sys.exit(f"hotspot_grid: cell {index}: {value} but the host reference is {ref[index]:.6f}")
            worst = max(worst, error)
    if count != want:
        sys.exit(f"hotspot_grid: {count} lines, want {want}")
    moved = sum(abs(r - t) > tol for r, t in zip(ref, temp))
    print(f"hotspot_grid: {want} temperatures equal the host reference within {tol} K "
          f"(largest error {worst:.2e} K; {moved} cells changed by more than that)")


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
    p.add_argument("--iterations", type=int, required=True)
    p.add_argument("--temp", required=True)
    p.add_argument("--power", required=True)
    p.add_argument("output")
    args = parser.parse_args()
    make(args) if args.command == "make" else check(args)


if __name__ == "__main__":
    main()
