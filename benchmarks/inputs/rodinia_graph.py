#!/usr/bin/env python3
"""Random graphs in Rodinia bfs's input format, with the host reference answer.

    rodinia_graph.py --nodes N [--degree D] [--seed S] --out GRAPH --reference REF

GRAPH (Rodinia's graphgen layout): the node count; one "first_edge degree"
line per node; the source node; the edge count; one "target weight" line per
edge. The graph is undirected (every edge stored in both directions) and, like
Rodinia's generator, connected-ish random with about D edges per node.

REF holds the BFS level of every node from the source (-1: unreachable) in the
program's result.txt format ("i) cost:N"), so the output check is a plain
file comparison. Deterministic: the same arguments give the same bytes.
"""
import argparse
import random
from collections import deque


def generate(nodes, degree, seed):
    rng = random.Random(seed)
    adjacency = [[] for _ in range(nodes)]
    for node in range(nodes):
        for _ in range(rng.randint(1, degree)):
            other = rng.randrange(nodes)
            if other != node:
                weight = rng.randint(1, 10)
                adjacency[node].append((other, weight))
                adjacency[other].append((node, weight))
    return adjacency


def bfs_levels(adjacency, source):
    levels = [-1] * len(adjacency)
    levels[source] = 0
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for other, _ in adjacency[node]:
            if levels[other] < 0:
                levels[other] = levels[node] + 1
                queue.append(other)
    return levels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--degree", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--reference", required=True)
    args = parser.parse_args()
    if args.nodes < 2 or args.degree < 1:
        parser.error("--nodes must be >= 2 and --degree >= 1")

    adjacency = generate(args.nodes, args.degree, args.seed)
    source = 0
    with open(args.out, "w") as out:
        out.write(f"{args.nodes}\n")
        first = 0
        for edges in adjacency:
            out.write(f"{first} {len(edges)}\n")
            first += len(edges)
        out.write(f"\n{source}\n\n{first}\n")
        for edges in adjacency:
            for other, weight in edges:
                out.write(f"{other} {weight}\n")
    with open(args.reference, "w") as ref:
        for node, level in enumerate(bfs_levels(adjacency, source)):
            ref.write(f"{node}) cost:{level}\n")


if __name__ == "__main__":
    main()
