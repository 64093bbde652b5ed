#!/usr/bin/env python3
"""Compare the numbers on the "memzip-check" lines of a run with a reference.

    compare_checks.py [--rel-tol T] RUN_OUTPUT REFERENCE

Both files may hold other lines; only lines starting with "memzip-check" count.
They must have the same labels in the same order, and every number must agree
within a relative tolerance T (default 1e-4: the GPU sums floats in another
order than the host). Exit status 0 when they agree; else 1, naming the line.
"""
import argparse
import math
import sys

PREFIX = "memzip-check"


def check_lines(path):
    with open(path, errors="replace") as f:
        return [line.split()[1:] for line in f if line.startswith(PREFIX)]


def numbers_agree(a, b, rel_tol):
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return math.isclose(x, y, rel_tol=rel_tol, abs_tol=1e-12)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rel-tol", type=float, default=1e-4)
    parser.add_argument("run")
    parser.add_argument("reference")
    args = parser.parse_args()
    got, want = check_lines(args.run), check_lines(args.reference)
    if not want:
        sys.exit(f"compare_checks: no {PREFIX} lines in {args.reference}")
    if len(got) != len(want):
        sys.exit(f"compare_checks: {len(got)} {PREFIX} lines in the run, {len(want)} in the reference")
    for g, w in zip(got, want):
        if len(g) != len(w) or not all(numbers_agree(a, b, args.rel_tol) for a, b in zip(g, w)):
            sys.exit(f"compare_checks: run '{' '.join(g)}' != reference '{' '.join(w)}'")
    print(f"compare_checks: {len(want)} lines agree within {args.rel_tol}")


if __name__ == "__main__":
    main()
