#!/usr/bin/env python3
"""A bacterial-like reference genome and short reads from it, in FASTA
(ISPASS-2009 MUM / MUMmerGPU), and the comparison of two MUMmer outputs.

    mum_reads.py make --genome-length G --reads N [--read-length L] [--seed S]
                      --reference REF.fna --queries READS.fna
    mum_reads.py compare RUN_OUTPUT REFERENCE_OUTPUT

make: REF.fna is one sequence of G bases with 35% GC (as the ISPASS input,
Bacillus anthracis NC_003997), in which a tenth of the length is copies of
earlier stretches of 200-1000 bases with 1% point mutations (genomes repeat:
insertion sequences, rRNA operons), so reads match in several places.
READS.fna holds N reads of L bases (default 25, as the ISPASS input), each
from a random place of the reference (upstream genreads.py's sampling) with
2% substitution errors; one read in ten is random sequence, matching nowhere
in full. Deterministic: the same arguments give the same bytes.

compare: the alignment lines ("> read" headers and "refpos qrypos length"
lines, in MUMmer's output format) of RUN_OUTPUT (e.g. a simulator log, whose
other lines are ignored) must equal those of REFERENCE_OUTPUT line for line,
and there must be at least one match; exit 1 naming the first difference.
"""
import argparse
import random
import re
import sys

GC = 0.35
REPEAT_SHARE = 0.1
MUTATION = 0.01
READ_ERROR = 0.02
RANDOM_READS = 0.1
ALIGNMENT = re.compile(r"^(> \S.*|\s*\d+\s+\d+\s+\d+)\s*$")


def random_base(rng):
    r = rng.random()
    if r < GC:
        return "G" if r < GC / 2 else "C"
    return "A" if r < GC + (1 - GC) / 2 else "T"


def substitute(rng, base):
    return rng.choice([b for b in "ACGT" if b != base])


def genome(rng, length):
    bases = []
    while len(bases) < length:
        if len(bases) > 2000 and rng.random() < REPEAT_SHARE / 600 * 1000:
            size = rng.randint(200, 1000)
            start = rng.randrange(0, len(bases) - size)
            copy = [substitute(rng, b) if rng.random() < MUTATION else b for b in bases[start:start + size]]
            bases.extend(copy)
        else:
            bases.extend(random_base(rng) for _ in range(1000))
    return "".join(bases[:length])


def reads(rng, reference, count, length):
    out = []
    for _ in range(count):
        if rng.random() < RANDOM_READS:
            out.append("".join(random_base(rng) for _ in range(length)))
            continue
        start = rng.randint(0, len(reference) - length)
        read = [substitute(rng, b) if rng.random() < READ_ERROR else b for b in reference[start:start + length]]
        out.append("".join(read))
    return out


def make(args):
    if args.genome_length < 2 * args.read_length or args.read_length < 1 or args.reads < 1:
        sys.exit(f"dna_reads: --genome-length {args.genome_length} must be at least twice "
                 f"--read-length {args.read_length} (>= 1), and --reads {args.reads} >= 1")
    rng = random.Random(args.seed)
    reference = genome(rng, args.genome_length)
    with open(args.reference, "w") as f:
        f.write(f">synthetic_genome seed={args.seed} length={len(reference)}\n")
        for i in range(0, len(reference), 70):
            f.write(reference[i:i + 70] + "\n")
    with open(args.queries, "w") as f:
        for i, read in enumerate(reads(rng, reference, args.reads, args.read_length), 1):
            f.write(f">rid{i}\n{read}\n")


def alignment_lines(path):
    with open(path, errors="replace") as f:
        return [" ".join(line.split()) for line in f if ALIGNMENT.match(line)]


def compare(args):
    got, want = alignment_lines(args.run), alignment_lines(args.reference)
    matches = sum(not line.startswith(">") for line in want)
    if matches == 0:
        sys.exit(f"dna_reads: {args.reference} holds no matches")
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            sys.exit(f"dna_reads: alignment line {i + 1}: run '{g}', reference '{w}'")
    if len(got) != len(want):
        sys.exit(f"dna_reads: {len(got)} alignment lines in the run, {len(want)} in the reference")
    print(f"dna_reads: all {len(want)} alignment lines ({matches} matches) equal the reference")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make")
    m.add_argument("--genome-length", type=int, required=True)
    m.add_argument("--reads", type=int, required=True)
    m.add_argument("--read-length", type=int, default=25)
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--reference", required=True)
    m.add_argument("--queries", required=True)
    c = sub.add_parser("compare")
    c.add_argument("run")
    c.add_argument("reference")
    args = parser.parse_args()
    make(args) if args.command == "make" else compare(args)


if __name__ == "__main__":
    main()
