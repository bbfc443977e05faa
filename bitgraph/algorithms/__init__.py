"""Graph algorithms on the GraphBLAS core.

Each is written with the public API (``mxv``, masks, semirings), so it runs
on any device the core supports; where a fused kernel exists for a step
(a BFS level, a Blest step, a batch of 64 BFSs, a bit-packed triangle
count) the algorithm makes one call into it.

>>> import bitgraph as bg
>>> A = bg.io.generators.grid2d(3, 3)
>>> bg.algorithms.bfs(A, 0).to_dense(-1).tolist()
[0, 1, 2, 1, 2, 3, 2, 3, 4]
>>> bg.algorithms.triangle_count(A), bg.algorithms.number_connected_components(A)
(0, 1)
"""

from .betweenness import betweenness_centrality, edge_betweenness_centrality
from .breadth_first import bfs, bfs_method
from .components import connected_components, number_connected_components
from .multi_source import closeness_centrality, diameter, diameter_bounds, eccentricity, msbfs
from .link_analysis import PageRank, pagerank
from .shortest_paths import negative_cycle, sssp
from .triangles import triangle_count

__all__ = [
    "bfs", "bfs_method", "msbfs", "sssp", "negative_cycle", "pagerank", "PageRank", "connected_components",
    "number_connected_components", "triangle_count", "closeness_centrality",
    "eccentricity", "diameter", "diameter_bounds", "betweenness_centrality",
    "edge_betweenness_centrality",
]
