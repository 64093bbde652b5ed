#!/usr/bin/env python3
"""Speedup over `none` against effective compression ratio, one point per
simulator run, from run directories loaded with memzip.load_runs.

    pip install ./rust/memzip-py matplotlib pandas
    python3 benchmarks/plot_runs.py runs/readme -o speedup_vs_cr.png

Each argument is a run directory or a directory of them (a `memzip sweep`
result); the default is the CLI's test fixtures. Runs without a `none` run
of the same program have no speedup and are left out (listed on stderr).
"""

import argparse
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt

import memzip

DEFAULT_RUNS = Path(__file__).resolve().parent.parent / "rust" / "memzip-cli" / "tests" / "fixtures" / "runs"


def plot(runs, output: Path) -> int:
    """Writes the figure; returns the number of runs plotted."""
    frame = memzip.load_runs(runs)
    frame = frame.assign(effective_cr=frame["effective_cr"].fillna(1.0))  # `none` stores blocks raw
    missing = frame[frame["speedup"].isna()]
    for _, run in missing.iterrows():
        print(f"{run['dir']}: no `none` run of its program, left out", file=sys.stderr)
    frame = frame.dropna(subset=["speedup"])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    markers = "osD^vP*X<>"
    # A program on another GPU than the GTX580 is another series, named as `memzip report` names it.
    program = frame["program"].fillna("(unnamed)")
    program = program.where(frame["gpu"] == "gtx580", program + " @" + frame["gpu"])
    for index, (program, group) in enumerate(frame.groupby(program)):
        ax.scatter(group["effective_cr"], group["speedup"], marker=markers[index % len(markers)], s=60, label=program)
        for _, run in group.iterrows():
            ax.annotate(run["run"], (run["effective_cr"], run["speedup"]), textcoords="offset points",
                        xytext=(6, 4), fontsize=8)
    ax.axhline(1.0, color="grey", linestyle="--", linewidth=0.8)
    ax.axvline(1.0, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xlabel("effective compression ratio (block bytes / MAG-rounded bytes)")
    ax.set_ylabel("speedup over none (cycles)")
    ax.set_title("memzip runs: speedup vs effective compression ratio")
    ax.legend(title="program")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    return len(frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, default=[DEFAULT_RUNS],
                        help="run directories or directories of them (default: the CLI's test fixtures)")
    parser.add_argument("-o", "--output", type=Path, default=Path("speedup_vs_cr.png"), help="figure file (.png, .svg)")
    args = parser.parse_args()
    try:
        count = plot(args.runs, args.output)
    except (OSError, ValueError) as error:
        sys.exit(f"plot_runs: {error}")
    print(f"{args.output}: {count} runs")


if __name__ == "__main__":
    main()
