"""``python -m bitgraph`` (or ``bitgraph``): a BFS demo on a generated graph.

Runs level-synchronous BFS written with the public API,
``next<!visited> = A' lor.land frontier``, and checks it against scipy.
The CLI issue replaces this with ``bitgraph bfs kron:16 --source 0``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def kron_edges(scale: int, edge_factor: int = 16, seed: int = 0):
    """Graph500 Kronecker edges (A=0.57, B=C=0.19) as ``(n, src, dst)``: both
    directions, no self-loops or duplicates (:func:`bitgraph.io.generators.kron_edges`)."""
    from bitgraph.io.generators import kron_edges as _kron_edges

    return _kron_edges(scale, edge_factor, seed)


def bfs_levels(A, source: int):
    """BFS levels with masked mxv: one GraphBLAS call per level."""
    import bitgraph as bg

    n = A.nrows
    levels = np.full(n, -1, np.int64)
    frontier = bg.Vector.from_indices([source], size=n)
    visited = frontier.copy()
    level = 0
    while frontier.nvals:
        levels[frontier.indices()] = level
        # frontier<!visited, replace> = A' lor.land frontier
        frontier = A.T.mxv(frontier, semiring=bg.LOR_LAND, mask=~visited.S, replace=True)
        visited = bg.ewise_add(visited, frontier, "lor")
        level += 1
    return levels


def main(argv=None):
    p = argparse.ArgumentParser(prog="bitgraph", description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=int, default=16, help="kron graph with 2^scale vertices")
    p.add_argument("--source", type=int, default=None, help="default: the vertex of largest degree")
    args = p.parse_args(argv)

    import scipy.sparse.csgraph as csg

    import bitgraph as bg

    n, src, dst = kron_edges(args.scale)
    A = bg.Matrix.from_coo(src, dst, nrows=n, ncols=n)
    print(f"kron:{args.scale}: n={n:,} stored edges={A.nvals:,}")
    if args.source is None:
        args.source = int(np.argmax(np.diff(A.indptr)))
    bfs_levels(A, args.source)  # compile / warm the kernels
    t0 = time.perf_counter()
    levels = bfs_levels(A, args.source)
    dt = time.perf_counter() - t0
    ref = csg.breadth_first_order(A.to_scipy(), args.source, return_predecessors=False)
    reached = int((levels >= 0).sum())
    assert reached == ref.shape[0], (reached, ref.shape[0])
    print(f"BFS from {args.source}: {levels.max() + 1} levels, {reached:,} reached, "
          f"{dt * 1e3:.1f} ms ({A.nvals / dt / 1e9:.3f} GTEPS); matches scipy")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
