"""``python -m bitgraph`` (or ``bitgraph``): the command line of :mod:`bitgraph.cli`.

``python -m bitgraph --scale 16`` (no command) is the demo: BFS on the
kron graph of 2^16 vertices, checked against scipy, the same as
``bitgraph bfs kron:16 --check``. ``python -m bitgraph --help`` lists the
commands.

:func:`kron_edges` and :func:`bfs_levels` stay here for the benchmarks and
tests that import them.
"""

from __future__ import annotations

import numpy as np


def kron_edges(scale: int, edge_factor: int = 16, seed: int = 0):
    """Graph500 Kronecker edges (A=0.57, B=C=0.19) as ``(n, src, dst)``: both
    directions, no self-loops or duplicates (:func:`bitgraph.io.generators.kron_edges`)."""
    from bitgraph.io.generators import kron_edges as _kron_edges

    return _kron_edges(scale, edge_factor, seed)


def bfs_levels(A, source: int):
    """BFS levels (int64, -1 unreached) with masked mxv: one GraphBLAS call per level.

    >>> import bitgraph as bg
    >>> bfs_levels(bg.io.generators.grid2d(2, 3), 0).tolist()
    [0, 1, 2, 1, 2, 3]
    """
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


def main(argv=None) -> int:
    """The ``bitgraph`` console script: :func:`bitgraph.cli.main`."""
    from bitgraph.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
