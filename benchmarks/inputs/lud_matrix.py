#!/usr/bin/env python3
"""A square matrix in Rodinia lud's input format (-i FILE).

    lud_matrix.py --size N [--seed S] --out FILE

FILE: N, then N*N floats, row by row. The matrix is strictly diagonally
dominant (off-diagonal entries in [0, 1/N), diagonal in [1, 2)), so LU
decomposition without pivoting, which lud does, is stable and the program's
own check (-v: L*U against the input, absolute tolerance 1e-4) is meaningful.
Rodinia's -s N instead seeds its generator with the time of day.
Deterministic: the same arguments give the same bytes.
"""
import argparse
import random


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.size < 1:
        parser.error("--size must be >= 1")
    n = args.size
    rng = random.Random(args.seed)
    with open(args.out, "w") as out:
        out.write(f"{n}\n")
        for i in range(n):
            row = [1.0 + rng.random() if i == j else rng.random() / n for j in range(n)]
            out.write(" ".join(f"{x:.6f}" for x in row) + "\n")


if __name__ == "__main__":
    main()
