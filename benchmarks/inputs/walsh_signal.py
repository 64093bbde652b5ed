#!/usr/bin/env python3
"""A signal made of a few Walsh functions, as input for the CUDA SDK
fastWalshTransform sample.

    walsh_signal.py make --log2n L [--components K] [--seed S] --out FILE
    walsh_signal.py spectrum --log2n L FILE

make: 2^L little-endian float32 samples x[n] = sum over j < K of
a_j * wal(k_j, n), where wal(k, n) = (-1)^popcount(k AND n) is the Walsh
function of index k in the natural (Hadamard) order the sample transforms in.
The K = 4 indices k_j are distinct and drawn uniformly from [0, 2^L), the
amplitudes a_j uniformly from [0, 1) (the range the sample draws its random
samples from, rand() / RAND_MAX). The spectrum therefore has K non-zero
components, each a_j * 2^L.

Why this input: E2MC (Lal et al., "E^2MC: Entropy Encoding Based Memory
Compression for GPUs", IPDPS 2017, section IV-B) replaced the sample's random
input ("We modified the inputs of SCAN and FWT benchmarks as the original
inputs were random ... [We use] FWT to transform Walsh functions"). The paper
gives neither the functions nor their number: K = 4 ("a few") with indices
and amplitudes drawn at random, not smooth low-order functions, so the choice
adds no structure beyond a sparse Walsh spectrum. The sample's 128-tap kernel
(the filter of its dyadic convolution) stays the sample's own.

spectrum: the Walsh transform of FILE (a direct O(N log N) transform in
double) and its components larger than 1e-6 of the largest, index and value;
exit 1 if FILE does not hold 2^L samples. Deterministic: the same arguments,
the same bytes.
"""
import argparse
import random
import sys
from array import array

COMPONENTS = 4


def walsh(k, log2n):
    """wal(k, n) for n in [0, 2^log2n) as a list of +1 / -1, by doubling:
    bit b of n flips the sign exactly when bit b of k is set."""
    values = [1]
    for bit in range(log2n):
        values = values + ([-v for v in values] if (k >> bit) & 1 else values)
    return values


def components(log2n, count, seed):
    """The (index, amplitude) pairs of the signal."""
    rng = random.Random(seed)
    indices = rng.sample(range(1 << log2n), count)
    return [(k, rng.random()) for k in indices]


def signal(log2n, count, seed):
    x = [0.0] * (1 << log2n)
    for k, a in components(log2n, count, seed):
        x = [xi + a * w for xi, w in zip(x, walsh(k, log2n))]
    return array("f", x)


def make(args):
    if not 1 <= args.log2n <= 28:
        sys.exit(f"walsh_signal.py: --log2n {args.log2n}: expected 1..28")
    if not 1 <= args.components <= 1 << args.log2n:
        sys.exit(f"walsh_signal.py: --components {args.components}: expected 1..2^log2n")
    x = signal(args.log2n, args.components, args.seed)
    if sys.byteorder != "little":
        x.byteswap()
    with open(args.out, "wb") as out:
        x.tofile(out)


def fwt(values):
    """The unnormalised Walsh-Hadamard transform (natural order) in double."""
    v = list(values)
    h = 1
    while h < len(v):
        for i in range(0, len(v), 2 * h):
            for j in range(i, i + h):
                v[j], v[j + h] = v[j] + v[j + h], v[j] - v[j + h]
        h *= 2
    return v


def spectrum(args):
    x = array("f")
    with open(args.file, "rb") as f:
        data = f.read()
    if len(data) != 4 << args.log2n:
        sys.exit(f"walsh_signal.py: {args.file}: {len(data)} bytes, expected 2^{args.log2n} float32 samples")
    x.frombytes(data)
    if sys.byteorder != "little":
        x.byteswap()
    s = fwt(x)
    top = max(abs(c) for c in s)
    for k, c in enumerate(s):
        if abs(c) > 1e-6 * top:
            print(f"{k} {c:.6g}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("make")
    p.add_argument("--log2n", type=int, required=True)
    p.add_argument("--components", type=int, default=COMPONENTS)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", required=True)
    p.set_defaults(run=make)
    p = sub.add_parser("spectrum")
    p.add_argument("--log2n", type=int, required=True)
    p.add_argument("file")
    p.set_defaults(run=spectrum)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
