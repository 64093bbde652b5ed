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
cycles, DRAM utilisation and speedup per codec, each speedup with the most
the DRAM model lets it gain in brackets (`memzip table`'s estimate: the
smaller of the bus estimate and the activation bound); then effective CR per codec.
A cell is `A / B`; `-` where a set has no such run. Each table ends with
two geometric-mean rows per codec, over the programs with that codec's run
in both sets (so both sides average the same programs; a count in brackets
where that is fewer than the table's programs): all of them, and the
ones memory-bound in both sets, each set's class as `memzip report` decides
it (memzip.load_runs' `memory_bound`: the benchmark manifest's `BOUND`, or
`BOUND_<GPU>` on another GPU; a program without a manifest by its own
`none` run).

Two GPUs (issue 50, reproduction.md's "From Fermi to Volta"):

    python3 benchmarks/compare_results.py benchmarks/results/study \
        benchmarks/results/study-qv100 --names GTX580 QV100 --by-benchmark --partial

`--by-benchmark` matches programs by benchmark alone, so a QV100 run at
`modern` faces the GTX580's `study` run (the row names both presets); where
a set ran a benchmark at several presets (the QV100's transpose: a `study`
none run and the `modern` grid), the preset with the most runs is shown, on
a tie the first by name, and stderr names the presets left out.
`--partial` adds a third table: what each codec run of the second set paid
for requests that are not one whole block (over-fetched bursts of sector
reads / read-modify-write read bursts / lines stored raw instead).
`--codec RUN` (repeated) chooses the columns (run labels, `mag_bdi [fill]`
for a run of another option set) and `--with-codec-runs` keeps the programs
with a codec run in both sets: the grid's programs, not every `none` run.
"""

import argparse
import math
import re
import sys

import memzip

SIMULATOR_SUFFIX = re.compile(r" @\S+$")


def by_program(path, by_benchmark=False):
    """{program: {run label: row}} of one result set; with `by_benchmark` the
    program is its benchmark (the preset dropped), each row keeps its preset in
    `preset`, and a benchmark run at several presets keeps one (`one_preset`)."""
    table = {}
    for row in memzip.load_runs(path, as_frame=False):
        program = SIMULATOR_SUFFIX.sub("", row["program"] or "")
        if by_benchmark:
            program, _, preset = program.partition(" ")
            row["preset"] = preset or None
        table.setdefault(program, {}).setdefault(row.get("preset"), {})[row["run"]] = row
    return {program: one_preset(path, program, presets) for program, presets in table.items()}


def one_preset(path, program, presets):
    """The runs of the preset that faces the other set: the one with the most
    runs (a QV100 grid's `modern` beside its `study` none run that chose it),
    on a tie the first by name; says on stderr which presets it leaves out."""
    by_name = sorted(presets, key=str)
    kept = max(by_name, key=lambda preset: len(presets[preset]))
    left_out = [str(preset) for preset in by_name if preset != kept]
    if left_out:
        runs = len(presets[kept])
        print(f"compare_results.py: {path}: {program} at {kept} ({runs} run{'' if runs == 1 else 's'}); "
              f"left out: {', '.join(left_out)}", file=sys.stderr)
    return presets[kept]


def program_label(program, a, b):
    """The row's name: the program, with both presets where they differ (`--by-benchmark`)."""
    presets = [t["none"].get("preset") for t in (a, b)]
    if presets[0] is None or presets[0] == presets[1]:
        return program if presets[0] is None else f"{program} {presets[0]}"
    return f"{program} ({presets[0]} / {presets[1]})"


def partial_cell(row):
    """`over-fetched / RMW read bursts / raw fallbacks` of one run; `-` without the counters."""
    if not row or row.get("overfetch_bursts") is None:
        return "-"
    return " / ".join(f"{row[key]:,}" for key in ("overfetch_bursts", "rmw_read_bursts", "raw_fallbacks"))


def cell(a, b, key, fmt):
    """`A / B` of one column; `-` for a missing run or value."""
    values = [format(row[key], fmt) if row and row.get(key) is not None else "-" for row in (a, b)]
    return " / ".join(values)


def speedup_cell(a, b):
    """`A (estimate) / B (estimate)`: each set's speedup and its DRAM estimate."""
    def one(row):
        if not row or row.get("speedup") is None:
            return "-"
        estimate = row.get("estimate")
        return f"{row['speedup']:.3f}" + (f" ({estimate:.3f})" if estimate is not None else "")
    return f"{one(a)} / {one(b)}"


def geomean_cell(pairs, key, programs):
    """`A / B` geometric means of `key` over the (first, second) row pairs
    holding it in both; `(n)` when that is fewer than `programs`."""
    both = [(a[key], b[key]) for a, b in pairs if a and b and a.get(key) and b.get(key)]
    if not both:
        return "- / -"
    means = [math.exp(sum(math.log(pair[i]) for pair in both) / len(both)) for i in (0, 1)]
    count = f" ({len(both)})" if len(both) < programs else ""
    return f"{means[0]:.3f} / {means[1]:.3f}{count}"


def geomean_rows(first, second, programs, codecs, key, memory_bound, lead_columns):
    """The two geometric-mean rows of one table: every program, then the memory-bound ones."""
    rows = []
    for label, subset in (("geomean", programs), ("geomean, memory-bound in both", memory_bound)):
        cells = [geomean_cell([(first[p].get(c), second[p].get(c)) for p in subset], key, len(subset)) for c in codecs]
        label = f"{label} ({len(subset)} program{'' if len(subset) == 1 else 's'})"
        rows.append(f"| {label} |" + " |" * lead_columns + " " + " | ".join(cells) + " |")
    return rows


def memory_bound_of(first, second, programs):
    """The programs memory-bound in both sets (each `none` run's `memory_bound`, the reports' class)."""
    return [p for p in programs if all(t[p]["none"].get("memory_bound") for t in (first, second))]


def codecs_of(first, second, programs):
    """The codec runs of either set, in the order the first set shows them."""
    order = []
    for table in (first, second):
        for program in programs:
            for run in table[program]:
                if run != "none" and run not in order:
                    order.append(run)
    return order


def has_codec_run(runs):
    return any(run != "none" for run in runs)


def markdown(first, second, names, partial=False, codecs=None, with_codec_runs=False):
    """The tables and their program count; `codecs` (run labels) choose the
    columns, `with_codec_runs` keeps the programs with a codec run in both sets."""
    programs = sorted(p for p in first if "none" in first[p] and "none" in second.get(p, {}))
    if with_codec_runs:
        programs = [p for p in programs if has_codec_run(first[p]) and has_codec_run(second[p])]
    codecs = codecs or codecs_of(first, second, programs)
    memory_bound = memory_bound_of(first, second, programs)
    labels = {p: program_label(p, first[p], second[p]) for p in programs}
    pair = " / ".join(names)
    lines = [
        f"| program | none cycles ({pair}) | DRAM utilisation | " + " | ".join(f"{c} speedup" for c in codecs) + " |",
        "| --- " * (3 + len(codecs)) + "|",
    ]
    for p in programs:
        a, b = first[p], second[p]
        cycles = " / ".join(f"{t['none']['cycles']:,}" for t in (a, b))
        speedups = [speedup_cell(a.get(c), b.get(c)) for c in codecs]
        utilization = cell(a["none"], b["none"], "dram_utilization", ".2f")
        lines.append(f"| {labels[p]} | {cycles} | {utilization} | " + " | ".join(speedups) + " |")
    lines += geomean_rows(first, second, programs, codecs, "speedup", memory_bound, 2)
    lines += ["", f"| program | " + " | ".join(f"{c} effective CR ({pair})" for c in codecs) + " |", "| --- " * (1 + len(codecs)) + "|"]
    for p in programs:
        crs = [cell(first[p].get(c), second[p].get(c), "effective_cr", ".3f") for c in codecs]
        lines.append(f"| {labels[p]} | " + " | ".join(crs) + " |")
    lines += geomean_rows(first, second, programs, codecs, "effective_cr", memory_bound, 0)
    if partial:
        lines += ["", f"Partial requests in {names[1]}: over-fetched bursts / read-modify-write read bursts / lines "
                  "stored raw instead.", ""]
        lines += [f"| program | " + " | ".join(codecs) + " |", "| --- " * (1 + len(codecs)) + "|"]
        for p in programs:
            lines.append(f"| {labels[p]} | " + " | ".join(partial_cell(second[p].get(c)) for c in codecs) + " |")
    return "\n".join(lines), len(programs)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help="results of the first set (run directory or a directory of them)")
    parser.add_argument("second", help="results of the second set")
    parser.add_argument("--names", nargs=2, default=["A", "B"], metavar=("FIRST", "SECOND"), help="column labels")
    parser.add_argument("--by-benchmark", action="store_true", help="match programs by benchmark, whatever their preset")
    parser.add_argument("--partial", action="store_true", help="add the second set's partial-request costs per run")
    parser.add_argument("--codec", action="append", dest="codecs", metavar="RUN",
                        help="only this run's column; repeat for more, in order (labels as `memzip table` shows them, "
                             "e.g. 'mag_bdi [fill]'; a label may hold commas)")
    parser.add_argument("--with-codec-runs", action="store_true", help="only programs with a codec run in both sets")
    args = parser.parse_args(argv)
    try:
        first, second = (by_program(path, args.by_benchmark) for path in (args.first, args.second))
    except (OSError, ValueError) as e:
        sys.exit(f"compare_results.py: {e}")
    unknown = [c for c in args.codecs or [] if not any(c in runs for t in (first, second) for runs in t.values())]
    if unknown:
        sys.exit(f"compare_results.py: --codec: no run labelled {unknown[0]!r} in either set")
    text, programs = markdown(first, second, args.names, args.partial, args.codecs, args.with_codec_runs)
    if programs == 0:
        sys.exit("compare_results.py: no program has a none run in both sets")
    print(text)


if __name__ == "__main__":
    main()
