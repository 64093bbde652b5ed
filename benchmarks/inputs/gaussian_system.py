#!/usr/bin/env python3
"""A linear system in Rodinia gaussian's input format (-f FILE), its solution,
and the check of the program's printed solution.

    gaussian_system.py make --size N [--seed S] --out FILE --reference REF
    gaussian_system.py check REF LOG

FILE: N, the N*N matrix A row by row, then b. A is strictly diagonally
dominant (gaussian eliminates without pivoting), the solution x has entries in
multiples of 1/4 in [-5, 5], and b = A x (computed in double, written with 6
decimals). REF holds x. `check` reads the line after "The final solution is:"
in LOG (the program prints it with 2 decimals) and wants every entry within
0.011 of x. Deterministic: the same arguments give the same bytes.
"""
import argparse
import random
import sys


def make(args):
    n = args.size
    rng = random.Random(args.seed)
    a = [[(2.0 + rng.random()) * n if i == j else rng.uniform(-1, 1) for j in range(n)] for i in range(n)]
    x = [rng.randint(-20, 20) / 4 for _ in range(n)]
    with open(args.out, "w") as out:
        out.write(f"{n}\n\n")
        for row in a:
            out.write("\t".join(f"{v:.6f}" for v in row) + "\n")
        out.write("\n")
        b = [sum(row[j] * x[j] for j in range(n)) for row in a]
        out.write("\t".join(f"{v:.6f}" for v in b) + "\n")
    with open(args.reference, "w") as ref:
        ref.write(" ".join(f"{v:.2f}" for v in x) + "\n")


def check(args):
    with open(args.reference) as f:
        want = [float(v) for v in f.read().split()]
    with open(args.log, errors="replace") as f:
        lines = f.read().splitlines()
    try:
        got = [float(v) for v in lines[lines.index("The final solution is: ") + 1].split()]
    except (ValueError, IndexError):
        sys.exit(f"gaussian_system: no solution line in {args.log}")
    if len(got) != len(want):
        sys.exit(f"gaussian_system: {len(got)} solution entries, want {len(want)}")
    bad = [i for i in range(len(want)) if abs(got[i] - want[i]) > 0.011]
    if bad:
        i = bad[0]
        sys.exit(f"gaussian_system: {len(bad)} wrong entries, first x[{i}] = {got[i]}, want {want[i]}")
    print(f"gaussian_system: all {len(want)} entries of x within 0.011")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("make")
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.add_argument("--reference", required=True)
    p = sub.add_parser("check")
    p.add_argument("reference")
    p.add_argument("log")
    args = parser.parse_args()
    if args.command == "make":
        if args.size < 1:
            parser.error("--size must be >= 1")
        make(args)
    else:
        check(args)


if __name__ == "__main__":
    main()
