#!/usr/bin/env python3
"""Clustered points in Rodinia kmeans's input format, with the host k-means answer.

    kmeans_points.py --points N [--features F] [--clusters K] [--seed S]
                     --out POINTS --reference REF --membership MEMBERS

POINTS: one "id f1 ... fF" line per point (the program skips the id), values
with 2 decimals. The points come from K blobs: every blob has a random centre
(each feature an integer 0..100, a third of the features 0 as in the sparse
KDD Cup records Rodinia ships) and its points lie within Gaussian noise
(sigma 2) of it. The first K points are one of each blob, in blob order.

Rodinia's kmeans takes the first K points as its initial centres (kmeans_clustering.c)
and repeats Lloyd steps until no point changes cluster. Our host runs the same
steps in double precision, and checks that every point's nearest centre is
nearer than the second nearest by a factor of 2 in squared distance at every
step, so the float rounding of the GPU cannot change an assignment:

REF: the "memzip-check" lines the program prints through our kmeans.sed: the
number of Lloyd steps and each final centre (the mean of its points).
MEMBERS: every point's cluster, one per line, as the program writes them to
membership.txt. Deterministic: the same arguments give the same bytes.
"""
import argparse
import random
import sys

NOISE_SIGMA = 2.0
MARGIN = 2.0  # second-nearest / nearest squared distance, at least


def generate(points, features, clusters, seed):
    rng = random.Random(seed)
    zero_features = set(rng.sample(range(features), features // 3))
    centres = [[0 if f in zero_features else rng.randint(0, 100) for f in range(features)]
               for _ in range(clusters)]
    labels = list(range(clusters)) + [rng.randrange(clusters) for _ in range(points - clusters)]
    data = []
    for label in labels:
        centre = centres[label]
        # Rounded to the 2 decimals written, so host and program see the same values.
        data.append([round(c + rng.gauss(0.0, NOISE_SIGMA), 2) if c else 0.0 for c in centre])
    return data


def squared_distance(a, b):
    return sum((x - y) * (x - y) for x, y in zip(a, b))


def assign(data, centres):
    """Each point's nearest centre; exits if any point is near a tie."""
    members = []
    for index, point in enumerate(data):
        dists = sorted((squared_distance(point, c), k) for k, c in enumerate(centres))
        if dists[1][0] < MARGIN * dists[0][0]:
            sys.exit(f"kmeans_points: point {index} is nearly as near to centre {dists[1][1]} "
                     f"as to {dists[0][1]}: choose another --seed")
        members.append(dists[0][1])
    return members


def means(data, members, clusters, features):
    sums = [[0.0] * features for _ in range(clusters)]
    counts = [0] * clusters
    for point, k in zip(data, members):
        counts[k] += 1
        row = sums[k]
        for f, x in enumerate(point):
            row[f] += x
    return [[s / counts[k] for s in sums[k]] for k in range(clusters)]


def lloyd(data, clusters, features):
    """Rodinia's loop: centres from the first K points, steps until nothing moves."""
    centres = [list(p) for p in data[:clusters]]
    members = [-1] * len(data)
    steps = 0
    while True:
        new_members = assign(data, centres)
        moved = sum(1 for a, b in zip(members, new_members) if a != b)
        members = new_members
        centres = means(data, members, clusters, features)
        steps += 1
        if moved == 0 or steps > 500:
            return steps, members, centres


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, required=True)
    parser.add_argument("--features", type=int, default=34)
    parser.add_argument("--clusters", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--membership", required=True)
    args = parser.parse_args()
    if not 1 <= args.clusters <= args.points:
        parser.error("--clusters must be between 1 and --points")
    if args.features < 3 or args.clusters * args.features > 32 * 34:
        parser.error("--features must be >= 3 and clusters x features <= 1088 (the kernel's constant memory)")

    data = generate(args.points, args.features, args.clusters, args.seed)
    steps, members, centres = lloyd(data, args.clusters, args.features)
    with open(args.out, "w") as out:
        for index, point in enumerate(data):
            out.write(f"{index} " + " ".join(f"{x:.2f}" for x in point) + "\n")
    with open(args.membership, "w") as out:
        out.write("".join(f"{k}\n" for k in members))
    with open(args.reference, "w") as out:
        out.write(f"memzip-check iterations {steps}\n")
        for k, centre in enumerate(centres):
            out.write(f"memzip-check centre {k} " + " ".join(f"{x:.9e}" for x in centre) + "\n")


if __name__ == "__main__":
    main()
