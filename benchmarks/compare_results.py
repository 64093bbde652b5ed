#!/usr/bin/env python3
"""Two result sets side by side, per program and codec: each one's speedup
over its own `none` run and effective compression ratio (reproduction.md's
table of the study on gpgpu-sim dev against the same runs on v3.2.1).

    pip install ./rust/memzip-py
    python3 benchmarks/compare_results.py benchmarks/results/study \\
        benchmarks/results/study-v321 --names dev v3.2.1

Each argument is a run directory or a directory of them (a `memzip sweep`
result), loaded with memzip.load_runs. Programs are matched by name without
the simulator suffix (`rodinia/bfs study @v3.2.1` is `rodinia/bfs study`);
only programs with a `none` run in both appear. Prints two Markdown tables:
cycles, DRAM utilisation and speedup per codec; then effective CR per codec.
A cell is `A / B`; `-` where a set has no such run.
"""

import argparse
import re
import sys

import memzip

SIMULATOR_SUFFIX = re.compile(r" @\S+$")


def by_program(path):
    """{program: {run label: row}} of one result set."""
    table = {}
    for row in memzip.load_runs(path, as_frame=False):
        program = SIMULATOR_SUFFIX.sub("", row["program"] or "")
        table.setdefault(program, {})[row["run"]] = row
    return table


def cell(a, b, key, fmt):
    """`A / B` of one column; `-` for a missing run or value."""
    values = [format(row[key], fmt) if row and row.get(key) is not None else "-" for row in (a, b)]
    return " / ".join(values)


def codecs_of(first, second, programs):
    """The codec runs of either set, in the order the first set shows them."""
    order = []
    for table in (first, second):
        for program in programs:
            for run in table[program]:
                if run != "none" and run not in order:
                    order.append(run)
    return order


def markdown(first, second, names):
    programs = sorted(p for p in first if "none" in first[p] and "none" in second.get(p, {}))
    codecs = codecs_of(first, second, programs)
    pair = " / ".join(names)
    lines = [
        f"| program | none cycles ({pair}) | DRAM utilisation | " + " | ".join(f"{c} speedup" for c in codecs) + " |",
        "| --- " * (3 + len(codecs)) + "|",
    ]
    for p in programs:
        a, b = first[p], second[p]
        cycles = " / ".join(f"{t['none']['cycles']:,}" for t in (a, b))
        speedups = [cell(a.get(c), b.get(c), "speedup", ".3f") for c in codecs]
        lines.append(f"| {p} | {cycles} | {cell(a['none'], b['none'], 'dram_utilization', '.2f')} | " + " | ".join(speedups) + " |")
    lines += ["", f"| program | " + " | ".join(f"{c} effective CR ({pair})" for c in codecs) + " |", "| --- " * (1 + len(codecs)) + "|"]
    for p in programs:
        a, b = first[p], second[p]
        lines.append(f"| {p} | " + " | ".join(cell(a.get(c), b.get(c), "effective_cr", ".3f") for c in codecs) + " |")
    return "\n".join(lines), len(programs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help="results of the first set (run directory or a directory of them)")
    parser.add_argument("second", help="results of the second set")
    parser.add_argument("--names", nargs=2, default=["A", "B"], metavar=("FIRST", "SECOND"), help="column labels")
    args = parser.parse_args(argv)
    try:
        first, second = by_program(args.first), by_program(args.second)
    except (OSError, ValueError) as e:
        sys.exit(f"compare_results.py: {e}")
    text, programs = markdown(first, second, args.names)
    if programs == 0:
        sys.exit("compare_results.py: no program has a none run in both sets")
    print(text)


if __name__ == "__main__":
    main()
