#!/usr/bin/env python3
"""Obstacle files for Parboil lbm (a lid-driven cavity with obstacles inside)
and the comparison of two of its velocity fields.

    lbm_grid.py make --size X Y Z [--seed N] --out FILE.of
    lbm_grid.py check --size X Y Z RESULT REFERENCE
    lbm_grid.py values --size X Y Z RESULT

make: the cavity holds a sphere (radius a fifth of the smallest side) and
three boxes (each side a tenth to a quarter of the cavity's), at random places
at least two cells from the walls; the rest is fluid. FILE.of is lbm's text
format: for every z, for every y, X characters ('.' fluid, '#' obstacle) and
a newline, then a newline after each z plane (X*Y*Z + (Y+1)*Z bytes). The
walls and the moving lid are set by the program itself.

check: RESULT and REFERENCE are velocity fields as lbm writes them (float32
ux, uy, uz per cell, x fastest); every component must be within
1e-4 * max|REFERENCE| + 1e-3 * |reference value| of the reference (two float
programs, the GPU's with fused multiply-adds, drift apart by rounding only);
exit 1 naming the first cell that is not. Also prints how many components
move by more than that tolerance (a run that returned its initial state
would fail on those). Deterministic: the same arguments give the same bytes.

values: RESULT's velocity components, one per line (the output values a lossy
codec's output error is measured on; benchmarks/README.md, "Output values").
"""
import argparse
import random
import sys
from array import array

ABS_TOL = 1e-4  # times the largest reference component
REL_TOL = 1e-3


def obstacles(sx, sy, sz, seed):
    """The set of (x, y, z) obstacle cells."""
    rng = random.Random(seed)
    cells = set()
    r = max(1, min(sx, sy, sz) // 5)
    cx = rng.randint(2 + r, sx - 3 - r)
    cy = rng.randint(2 + r, sy - 3 - r)
    cz = rng.randint(2 + r, sz - 3 - r)
    for z in range(cz - r, cz + r + 1):
        for y in range(cy - r, cy + r + 1):
            for x in range(cx - r, cx + r + 1):
                if (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 <= r * r:
                    cells.add((x, y, z))
    for _ in range(3):
        dx, dy, dz = (max(1, rng.randint(s // 10, s // 4)) for s in (sx, sy, sz))
        x0 = rng.randint(2, sx - 2 - dx)
        y0 = rng.randint(2, sy - 2 - dy)
        z0 = rng.randint(2, sz - 2 - dz)
        for z in range(z0, z0 + dz):
            for y in range(y0, y0 + dy):
                for x in range(x0, x0 + dx):
                    cells.add((x, y, z))
    return cells


def make(args):
    sx, sy, sz = args.size
    if min(sx, sy, sz) < 12:
        sys.exit(f"lbm_grid: --size {sx} {sy} {sz}: every side must be at least 12")
    cells = obstacles(sx, sy, sz, args.seed)
    lines = []
    for z in range(sz):
        for y in range(sy):
            lines.append("".join("#" if (x, y, z) in cells else "." for x in range(sx)) + "\n")
        lines.append("\n")
    with open(args.out, "w") as f:
        f.write("".join(lines))


def read_field(path, n):
    values = array("f")
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != 4 * n:
        sys.exit(f"lbm_grid: {path} has {len(data)} bytes, expected {4 * n} (3 floats per cell)")
    values.frombytes(data)
    return values


def check(args):
    sx, sy, sz = args.size
    n = 3 * sx * sy * sz
    got, want = read_field(args.result, n), read_field(args.reference, n)
    abs_tol = ABS_TOL * max(abs(v) for v in want)
    moving = 0
    for i in range(n):
        tol = abs_tol + REL_TOL * abs(want[i])
        if not abs(got[i] - want[i]) <= tol:
            cell, axis = divmod(i, 3)
            x, y, z = cell % sx, cell // sx % sy, cell // (sx * sy)
            sys.exit(f"lbm_grid: cell ({x},{y},{z}) u{'xyz'[axis]} = {got[i]!r}, reference {want[i]!r}")
        moving += abs(want[i]) > tol
    print(f"lbm_grid: all {n} velocity components within {ABS_TOL} x max + {REL_TOL} x value "
          f"of the reference; {moving} of them differ from 0 by more than that")


def values(args):
    sx, sy, sz = args.size
    sys.stdout.write("".join(f"{v!r}\n" for v in read_field(args.result, 3 * sx * sy * sz)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--size", type=int, nargs=3, required=True, metavar=("X", "Y", "Z"))
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--out", required=True)
    c = sub.add_parser("check")
    c.add_argument("--size", type=int, nargs=3, required=True, metavar=("X", "Y", "Z"))
    c.add_argument("result")
    c.add_argument("reference")
    v = sub.add_parser("values")
    v.add_argument("--size", type=int, nargs=3, required=True, metavar=("X", "Y", "Z"))
    v.add_argument("result")
    args = parser.parse_args()
    {"make": make, "check": check, "values": values}[args.command](args)


if __name__ == "__main__":
    main()
