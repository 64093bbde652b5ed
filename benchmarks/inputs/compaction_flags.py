#!/usr/bin/env python3
"""The flag array of a stream compaction, as input for the CUDA SDK scan sample.

    compaction_flags.py make --count N [--seed S] --out FILE
    compaction_flags.py stats FILE

make: N little-endian uint32 words, each 0 or 1: the predicate of a stream
compaction that keeps the elements of a stream of independent uniform values
below its median, so every flag is 1 with probability 1/2, independently. The
exclusive prefix sum of these flags (what scan computes) is each kept
element's place in the compacted output.

Why this input: E2MC (Lal et al., "E^2MC: Entropy Encoding Based Memory
Compression for GPUs", IPDPS 2017, section IV-B) replaced the sample's random
input ("We modified the inputs of SCAN and FWT benchmarks as the original
inputs were random ... We use SCAN for stream compaction which is an important
application of SCAN"). The paper gives no selectivity; independent flags with
probability 1/2 are the 0/1 array of the highest entropy, so the choice adds
no structure beyond what a compaction's flags have by their nature.

stats: the count, the number of ones and the first few words, and exit 1 if a
word is neither 0 nor 1. Deterministic: the same arguments, the same bytes.
"""
import argparse
import random
import sys
from array import array

# The 32 bytes (8 little-endian uint32 flags) of each byte of random bits,
# least significant bit first.
_WORDS_OF_BYTE = [
    b"".join((1 if (byte >> bit) & 1 else 0).to_bytes(4, "little") for bit in range(8))
    for byte in range(256)
]


def flags(count, seed):
    """The flag array as bytes: count uint32 words of 0 or 1."""
    rng = random.Random(seed)
    whole, rest = divmod(count, 8)
    bits = rng.getrandbits(8 * (whole + 1)).to_bytes(whole + 1, "little")
    words = b"".join(_WORDS_OF_BYTE[b] for b in bits[:whole])
    return words + _WORDS_OF_BYTE[bits[whole]][: 4 * rest]


def make(args):
    if args.count <= 0:
        sys.exit(f"compaction_flags.py: --count {args.count}: expected a positive element count")
    with open(args.out, "wb") as out:
        out.write(flags(args.count, args.seed))


def stats(args):
    words = array("I")
    with open(args.file, "rb") as f:
        data = f.read()
    if len(data) % 4:
        sys.exit(f"compaction_flags.py: {args.file}: {len(data)} bytes is not a whole number of uint32 words")
    words.frombytes(data)
    if sys.byteorder != "little":
        words.byteswap()
    bad = next((i for i, w in enumerate(words) if w > 1), None)
    print(f"{len(words)} flags, {sum(words)} ones; first: {list(words[:16])}")
    if bad is not None:
        sys.exit(f"compaction_flags.py: {args.file}: word {bad} is {words[bad]}, not a 0/1 flag")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("make")
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.set_defaults(run=make)
    p = sub.add_parser("stats")
    p.add_argument("file")
    p.set_defaults(run=stats)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
