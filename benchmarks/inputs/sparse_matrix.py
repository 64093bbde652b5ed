#!/usr/bin/env python3
"""FEM-like symmetric sparse matrices in Matrix Market format (Parboil spmv),
a dense vector, and the host product y = A x.

    sparse_matrix.py make --side S [--seed N] --matrix A.mtx --vector X.bin --reference Y.bin
    sparse_matrix.py check --reference Y.bin RESULT

make: A couples the S*S nodes of a square grid within two steps in each
direction (a 25-point stencil, as a 2-D finite element mesh of quadratic
elements does; Parboil's large input Dubcova3 is such a matrix, 383 x 383
nodes, ~25 entries per row); 10% of the couplings are dropped at random, so
rows differ in length as in real meshes. Off-diagonal values are in
[-1, -0.01], the diagonal exceeds the row's absolute sum (symmetric positive
definite). A.mtx holds the lower triangle ("coordinate real symmetric"):
Parboil's reader mirrors it, as it does for its own inputs. Every row has its
diagonal and the last row an off-diagonal entry (the reader miscounts rows
otherwise). X.bin: S*S float32 in [0, 1), as Parboil's vector.bin. Y.bin:
per row, y_i = sum_j a_ij x_j and bound_i = sum_j |a_ij x_j| (float64 pairs),
from the float32 values the program reads.

check: RESULT is the program's output file (u32 length, then float32 y);
every y_i must be within 1e-5 * bound_i (+1e-30) of the reference (float32
sums of ~25 products err by ~25 * 6e-8 * bound_i at most); exit 1 naming the
first row that is not. Deterministic: the same arguments give the same bytes.
"""
import argparse
import random
import struct
import sys
from array import array

DROP = 0.1
REL_TOL = 1e-5


def float32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def generate(side, seed):
    """Lower-triangle entries {(row, col): value} and the vector, as float32 values."""
    rng = random.Random(seed)
    n = side * side
    lower = {}
    for r in range(side):
        for c in range(side):
            i = r * side + c
            for dr in range(-2, 1):
                for dc in range(-2, 3):
                    if dr == 0 and dc >= 0:
                        continue  # only j < i: the upper half is the mirror
                    rr, cc = r + dr, c + dc
                    if not (0 <= rr < side and 0 <= cc < side):
                        continue
                    # Keep every left neighbour: no row loses all couplings.
                    if (dr, dc) != (0, -1) and rng.random() < DROP:
                        continue
                    lower[(i, rr * side + cc)] = float32(float(f"{-rng.uniform(0.01, 1.0):.6f}"))
    row_abs = [0.0] * n
    for (i, j), v in lower.items():
        row_abs[i] += abs(v)
        row_abs[j] += abs(v)
    for i in range(n):
        lower[(i, i)] = float32(float(f"{row_abs[i] + rng.uniform(0.1, 1.0):.6f}"))
    x = [float32(rng.random()) for _ in range(n)]
    return n, lower, x


def write_mtx(path, n, lower):
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real symmetric\n")
        f.write(f"{n} {n} {len(lower)}\n")
        for (i, j) in sorted(lower, key=lambda e: (e[1], e[0])):
            f.write(f"{i + 1} {j + 1} {lower[(i, j)]:.6f}\n")


def product(n, lower, x):
    """y = A x and sum |a_ij x_j| per row, in double, with A = L + L^T - D."""
    y, bound = [0.0] * n, [0.0] * n
    for (i, j), v in lower.items():
        y[i] += v * x[j]
        bound[i] += abs(v * x[j])
        if i != j:
            y[j] += v * x[i]
            bound[j] += abs(v * x[i])
    return y, bound


def make(args):
    n, lower, x = generate(args.side, args.seed)
    write_mtx(args.matrix, n, lower)
    with open(args.vector, "wb") as f:
        array("f", x).tofile(f)
    y, bound = product(n, lower, x)
    pairs = array("d")
    for yi, bi in zip(y, bound):
        pairs.extend((yi, bi))
    with open(args.reference, "wb") as f:
        pairs.tofile(f)


def check(args):
    pairs = array("d")
    with open(args.reference, "rb") as f:
        pairs.frombytes(f.read())
    n = len(pairs) // 2
    with open(args.result, "rb") as f:
        data = f.read()
    if len(data) < 4:
        sys.exit(f"sparse_matrix: {args.result} has no length header")
    (length,) = struct.unpack_from("<I", data)
    if length != n or len(data) != 4 + 4 * n:
        sys.exit(f"sparse_matrix: {args.result} holds {length} values ({len(data)} bytes), expected {n}")
    got = array("f")
    got.frombytes(data[4:])
    for i in range(n):
        want, bound = pairs[2 * i], pairs[2 * i + 1]
        if abs(got[i] - want) > REL_TOL * bound + 1e-30:
            sys.exit(f"sparse_matrix: row {i}: y = {got[i]!r}, host {want!r} (tolerance {REL_TOL * bound:.3g})")
    print(f"sparse_matrix: all {n} rows within {REL_TOL} x sum|a_ij x_j| of the host product")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--side", type=int, required=True)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--matrix", required=True)
    m.add_argument("--vector", required=True)
    m.add_argument("--reference", required=True)
    c = sub.add_parser("check")
    c.add_argument("--reference", required=True)
    c.add_argument("result")
    args = parser.parse_args()
    if args.command == "make":
        if args.side < 3:
            sys.exit(f"sparse_matrix: --side {args.side}: at least 3")
        make(args)
    else:
        check(args)


if __name__ == "__main__":
    main()
