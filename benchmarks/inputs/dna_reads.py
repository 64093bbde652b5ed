#!/usr/bin/env python3
"""A random genome and reads from it, in FASTA, for Rodinia mummergpu.

    dna_reads.py --genome-length G --reads N [--read-length L] [--errors E]
                 [--seed S] --reference REF.fa --queries QUERIES.fa
                 [--matches MATCHES]
    dna_reads.py compare OUTPUT MATCHES

REF.fa: one sequence of G random bases (A, C, G, T). QUERIES.fa: N reads of L
bases (default 100), each copied from a random position of the genome with
up to E random substitutions (default 3), so a read aligns as one or several
maximal exact matches; one read in 8 is random (matches only by chance,
mostly shorter than mummergpu's minimum of 20). Deterministic: the same
arguments give the same bytes.

MATCHES: every maximal exact match of at least 20 bases between each read
and the genome (MUMmer's -maxmatch, forward strand, which mummergpu reports):
"> read" lines, each followed by its matches as "genome_pos read_pos length"
(1-based), by read position. Found on the host from an index of the reads'
20-mers, independently of the program.
compare: OUTPUT (mummergpu's stdout) reports the same matches for the same
reads (in any order within a read); exit 1 naming the first difference.
"""
import argparse
import random
import sys
from collections import defaultdict

MIN_MATCH = 20  # mummergpu's default minimum match length (-l)

BASES = "ACGT"
LINE = 60  # bases per FASTA line


def fasta(name, sequence):
    lines = [sequence[i:i + LINE] for i in range(0, len(sequence), LINE)]
    return f">{name}\n" + "\n".join(lines) + "\n"


def read_from(genome, length, errors, rng):
    start = rng.randrange(len(genome) - length + 1)
    read = list(genome[start:start + length])
    for _ in range(rng.randint(0, errors)):
        pos = rng.randrange(length)
        read[pos] = rng.choice([b for b in BASES if b != read[pos]])
    return "".join(read)


def read_fasta(path):
    names, sequences = [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith(">"):
                names.append(line[1:].split()[0])
                sequences.append([])
            elif line:
                sequences[-1].append(line)
    return names, ["".join(parts) for parts in sequences]


def maximal_matches(genome, reads, k=MIN_MATCH):
    """{read index: sorted [(genome_pos, read_pos, length)]}, 1-based."""
    seeds = defaultdict(list)
    for index, read in enumerate(reads):
        for q in range(len(read) - k + 1):
            seeds[read[q:q + k]].append((index, q))
    found = defaultdict(list)
    for r in range(len(genome) - k + 1):
        hits = seeds.get(genome[r:r + k])
        if not hits:
            continue
        for index, q in hits:
            read = reads[index]
            if q > 0 and r > 0 and read[q - 1] == genome[r - 1]:
                continue  # not left-maximal: part of a match starting earlier
            length = k
            while q + length < len(read) and r + length < len(genome) and read[q + length] == genome[r + length]:
                length += 1
            found[index].append((r + 1, q + 1, length))
    return {index: sorted(matches, key=lambda m: (m[1], m[0])) for index, matches in found.items()}


def write_matches(path, names, matches):
    with open(path, "w") as out:
        for index, name in enumerate(names):
            if index in matches:
                out.write(f"> {name}\n")
                out.write("".join(f"{r}\t{q}\t{n}\n" for r, q, n in matches[index]))


def parse_matches(path):
    """{read name: sorted [(genome_pos, read_pos, length)]} from mummergpu's output."""
    matches, name = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            fields = line.split()
            if line.startswith(">"):
                name = line[1:].split()[0] if len(line) > 1 and line[1:].split() else ""
                if name in matches:
                    sys.exit(f"dna_reads: read {name} appears twice in {path}")
                matches[name] = []
            elif len(fields) == 3 and name is not None and all(x.isdigit() for x in fields):
                matches[name].append(tuple(int(x) for x in fields))
    return {n: sorted(m, key=lambda m: (m[1], m[0])) for n, m in matches.items() if m}


def compare(output, reference):
    got, want = parse_matches(output), parse_matches(reference)
    if not want:
        sys.exit(f"dna_reads: no matches in {reference}")
    for name in sorted(set(got) | set(want)):
        if got.get(name) != want.get(name):
            sys.exit(f"dna_reads: read {name}: {output} has {got.get(name)}, the host {want.get(name)}")
    total = sum(len(m) for m in want.values())
    print(f"dna_reads: all {total} maximal matches of {len(want)} reads equal the host's")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "compare":
        if len(sys.argv) != 4:
            sys.exit("usage: dna_reads.py compare OUTPUT MATCHES")
        compare(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genome-length", type=int, required=True)
    parser.add_argument("--reads", type=int, required=True)
    parser.add_argument("--read-length", type=int, default=100)
    parser.add_argument("--errors", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--queries", required=True)
    parser.add_argument("--matches")
    args = parser.parse_args()
    if args.read_length < 1 or args.genome_length < args.read_length or args.reads < 1:
        parser.error("need --read-length >= 1, --genome-length >= --read-length, --reads >= 1")
    if args.errors < 0:
        parser.error("--errors must be >= 0")

    rng = random.Random(args.seed)
    genome = "".join(rng.choice(BASES) for _ in range(args.genome_length))
    with open(args.reference, "w") as out:
        out.write(fasta("genome", genome))
    reads = []
    for index in range(args.reads):
        if index % 8 == 7:
            reads.append("".join(rng.choice(BASES) for _ in range(args.read_length)))
        else:
            reads.append(read_from(genome, args.read_length, args.errors, rng))
    names = [f"read{index}" for index in range(args.reads)]
    with open(args.queries, "w") as out:
        out.write("".join(fasta(name, read) for name, read in zip(names, reads)))
    if args.matches:
        write_matches(args.matches, names, maximal_matches(genome, reads))


if __name__ == "__main__":
    main()
