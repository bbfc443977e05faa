"""Graph algorithms on the GraphBLAS core.

Each is written with the public API (``mxv``, masks, semirings), so it runs
on any device the core supports; where a fused kernel exists for a step
(a BFS level, a Blest step, a bit-packed triangle count) the algorithm makes
one call into it.

>>> import bitgraph as bg
>>> A = bg.io.generators.grid2d(3, 3)
>>> bg.algorithms.bfs(A, 0).to_dense(-1).tolist()
[0, 1, 2, 1, 2, 3, 2, 3, 4]
"""

from .bfs import bfs

__all__ = ["bfs"]
