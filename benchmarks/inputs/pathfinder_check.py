#!/usr/bin/env python3
"""Host reference check of Rodinia pathfinder built with -DBENCH_PRINT.

    pathfinder_check.py --cols C --rows R LOG

pathfinder draws its own wall (srand(9), rand() % 10) and, built with
BENCH_PRINT, prints it (R lines of C numbers), then the first row again and
the GPU's result row. We recompute the shortest top-to-bottom path sums on the
host from the printed wall (a path steps to the same column or a neighbour on
each row) and compare every column of the result. Exit 0 when they agree.
"""
import argparse
import sys


def int_rows(path, cols):
    rows = []
    with open(path, errors="replace") as f:
        for line in f:
            fields = line.split()
            if len(fields) == cols and all(x.lstrip("-").isdigit() for x in fields):
                rows.append([int(x) for x in fields])
    return rows


def shortest_paths(wall):
    src = list(wall[0])
    cols = len(src)
    for row in wall[1:]:
        src = [row[n] + min(src[max(n - 1, 0):min(n + 2, cols)]) for n in range(cols)]
    return src


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cols", type=int, required=True)
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("log")
    args = parser.parse_args()
    rows = int_rows(args.log, args.cols)
    if len(rows) != args.rows + 2:
        sys.exit(f"pathfinder_check: {len(rows)} rows of {args.cols} numbers in {args.log}, want {args.rows} + 2")
    wall, first, result = rows[: args.rows], rows[-2], rows[-1]
    if first != wall[0]:
        sys.exit("pathfinder_check: the printed first row differs from the wall's")
    want = shortest_paths(wall)
    bad = [n for n in range(args.cols) if want[n] != result[n]]
    if bad:
        n = bad[0]
        sys.exit(f"pathfinder_check: {len(bad)} wrong columns, first {n}: got {result[n]}, want {want[n]}")
    print(f"pathfinder_check: all {args.cols} columns equal the host result")


if __name__ == "__main__":
    main()
