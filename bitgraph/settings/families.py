"""Every family, from the modules that define them."""

from bitgraph.settings.library import (CPU, IO, SSSP, Betweenness, Components, Cuda, Distributed,
                                       Formats, PageRank, Plan, Reorder, Triangles)
from bitgraph.settings.traversal import BFS, MSBFS, BFSAsync, BFSCuda, MSBFSCuda

__all__ = ["BFS", "BFSCuda", "BFSAsync", "MSBFS", "MSBFSCuda", "Plan", "CPU", "Cuda", "IO",
           "Formats", "Reorder", "Triangles", "Components", "SSSP", "PageRank", "Betweenness",
           "Distributed"]
