#!/usr/bin/env python3
"""Road-like random graphs in Galois .gr format (LonestarGPU), with host references.

    galois_graph.py --rows R --cols C [--shortcuts K] [--max-weight W] [--seed S]
                    --out GRAPH.gr [--bfs-reference FILE] [--sssp-reference FILE]
                    [--mst-reference FILE]
    galois_graph.py compare OUTPUT REFERENCE
    galois_graph.py compare-mst OUTPUT REFERENCE

The graph is an R x C grid (every node linked to its right and lower
neighbour, in both directions: connected, like a road network's large
diameter) plus K random two-way shortcuts (default R*C/8), with integer
weights in [1, W] (default 1000). GRAPH.gr is Galois's binary format version 1
(little endian): u64 version=1, u64 edge data size=4, u64 nodes, u64 edges;
u64 end index of every node's edges; u32 destination of every edge (padded to
8 bytes); u32 weight of every edge.

References are the distances from node 0 in the layout of the programs'
result files: --bfs-reference as LonestarGPU bfs's bfs-output.txt (hops),
--sssp-reference as sssp's sssp-output.txt (Dijkstra over the weights).
compare: OUTPUT and REFERENCE hold the same "node: distance" pairs (any
spacing and brackets); exit 1 naming the first difference.
--mst-reference: the minimum spanning forest of the undirected graph (Kruskal)
as LonestarGPU mst prints it, "weight: W, components: C, edges: E" (W is the
same for every minimum spanning forest, whatever ties there are).
compare-mst: OUTPUT's "result: weight: ..." line equals REFERENCE's.
Deterministic: the same arguments give the same bytes.
"""
import argparse
import heapq
import random
import re
import struct
import sys
from collections import deque


def generate(rows, cols, shortcuts, max_weight, seed):
    rng = random.Random(seed)
    n = rows * cols
    adjacency = [[] for _ in range(n)]

    def link(a, b):
        w = rng.randint(1, max_weight)
        adjacency[a].append((b, w))
        adjacency[b].append((a, w))

    for r in range(rows):
        for c in range(cols):
            node = r * cols + c
            if c + 1 < cols:
                link(node, node + 1)
            if r + 1 < rows:
                link(node, node + cols)
    for _ in range(shortcuts):
        a, b = rng.randrange(n), rng.randrange(n)
        if a != b:
            link(a, b)
    for edges in adjacency:
        edges.sort()
    return adjacency


def write_gr(path, adjacency):
    n = len(adjacency)
    m = sum(len(e) for e in adjacency)
    with open(path, "wb") as f:
        f.write(struct.pack("<4Q", 1, 4, n, m))
        end = 0
        for edges in adjacency:
            end += len(edges)
            f.write(struct.pack("<Q", end))
        f.write(struct.pack(f"<{m}I", *(dst for edges in adjacency for dst, _ in edges)))
        if m % 2:
            f.write(b"\0\0\0\0")
        f.write(struct.pack(f"<{m}I", *(w for edges in adjacency for _, w in edges)))


def bfs(adjacency, source=0):
    dist = [None] * len(adjacency)
    dist[source] = 0
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for other, _ in adjacency[node]:
            if dist[other] is None:
                dist[other] = dist[node] + 1
                queue.append(other)
    return dist


def dijkstra(adjacency, source=0):
    dist = [None] * len(adjacency)
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if dist[node] is not None:
            continue
        dist[node] = d
        for other, w in adjacency[node]:
            if dist[other] is None:
                heapq.heappush(heap, (d + w, other))
    return dist


def kruskal(adjacency):
    """(total weight, components, edges) of a minimum spanning forest."""
    parent = list(range(len(adjacency)))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    edges = sorted((w, a, b) for a, out in enumerate(adjacency) for b, w in out if a < b)
    weight = count = 0
    for w, a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb
            weight += w
            count += 1
    return weight, len(adjacency) - count, count


MST_LINE = r"weight: (\d+), components: (\d+), edges: (\d+)"


def compare_mst(output, reference):
    with open(output, errors="replace") as f:
        got = re.findall(r"result: " + MST_LINE, f.read())
    with open(reference) as f:
        want = re.findall(MST_LINE, f.read())
    if len(want) != 1:
        sys.exit(f"galois_graph: no 'weight: W, components: C, edges: E' line in {reference}")
    if len(got) != 1:
        sys.exit(f"galois_graph: {len(got)} 'result: weight: ...' lines in {output}, expected 1")
    if got[0] != want[0]:
        sys.exit(f"galois_graph: MST (weight, components, edges) {got[0]} in {output}, host Kruskal {want[0]}")
    print(f"galois_graph: MST weight {want[0][0]}, {want[0][1]} components, {want[0][2]} edges equal host Kruskal")


def pairs(path):
    with open(path, errors="replace") as f:
        return [(int(a), int(b)) for a, b in re.findall(r"(\d+)\s*:\s*(\d+)", f.read())]


def compare(output, reference):
    got, want = pairs(output), pairs(reference)
    if not want:
        sys.exit(f"galois_graph: no 'node: distance' pairs in {reference}")
    if len(got) != len(want):
        sys.exit(f"galois_graph: {len(got)} distances in {output}, {len(want)} in the reference")
    for g, w in zip(got, want):
        if g != w:
            sys.exit(f"galois_graph: node {w[0]}: {output} has {g}, the reference {w}")
    print(f"galois_graph: all {len(want)} distances equal the host reference")


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("compare", "compare-mst"):
        if len(sys.argv) != 4:
            sys.exit(f"usage: galois_graph.py {sys.argv[1]} OUTPUT REFERENCE")
        (compare if sys.argv[1] == "compare" else compare_mst)(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, required=True)
    parser.add_argument("--cols", type=int, required=True)
    parser.add_argument("--shortcuts", type=int)
    parser.add_argument("--max-weight", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--bfs-reference")
    parser.add_argument("--sssp-reference")
    parser.add_argument("--mst-reference")
    args = parser.parse_args()
    if args.rows < 1 or args.cols < 2 or args.max_weight < 1:
        parser.error("need --rows >= 1, --cols >= 2, --max-weight >= 1")
    shortcuts = args.rows * args.cols // 8 if args.shortcuts is None else args.shortcuts
    adjacency = generate(args.rows, args.cols, shortcuts, args.max_weight, args.seed)
    write_gr(args.out, adjacency)
    if args.bfs_reference:
        with open(args.bfs_reference, "w") as f:
            # bfs-output.txt's layout: a header, "node:dist" lines with a leading space, "]".
            f.write("Computed solution (source dist): [")
            f.write("".join(f"{node}:{d}\n " for node, d in enumerate(bfs(adjacency))))
            f.write("]")
    if args.sssp_reference:
        with open(args.sssp_reference, "w") as f:
            f.write("".join(f"{node}: {d}\n" for node, d in enumerate(dijkstra(adjacency))))
    if args.mst_reference:
        with open(args.mst_reference, "w") as f:
            f.write("weight: %d, components: %d, edges: %d\n" % kruskal(adjacency))


if __name__ == "__main__":
    main()
