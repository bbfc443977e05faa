"""Past one GPU: one process per GPU (SPMD), NCCL through CuPy.

Every rank runs the same script; ``init()`` reads who it is from the
launcher (``python -m bitgraph.distributed --nproc N``, torchrun, mpirun,
srun), selects its GPU and returns its communicator. The batch calls take
the communicator first and split the sources over the ranks (each rank
holds the whole graph; no exchange per BFS level)::

    import bitgraph as bg
    import bitgraph.distributed as dist

    comm = dist.init()                       # NcclComm: this process's GPU
    A = bg.io.generators.kron(20).to("cuda")  # every rank builds the graph
    cc = dist.closeness_centrality(comm, A, sources=range(4096))
    bc = dist.betweenness_centrality(comm, A, k=4096, seed=1)

``LocalGroup(size).run(fn, *args)`` runs ``fn(comm, *args)`` as ``size``
ranks on threads of one process (the CPU tests' communicator):

>>> import bitgraph as bg
>>> from bitgraph.distributed import LocalGroup, eccentricity
>>> LocalGroup(2).run(eccentricity, bg.io.generators.grid2d(3, 3))[0].tolist()
[4, 3, 4, 3, 2, 3, 4, 3, 4]
"""

from bitgraph.distributed.batches import (batch_deal, betweenness_centrality,
                                          closeness_centrality, eccentricity,
                                          edge_betweenness_centrality, msbfs, source_share)
from bitgraph.distributed.comm import Comm, LocalGroup, NcclComm
from bitgraph.distributed.environ import Launch, environment, init
from bitgraph.distributed.partition import DistMatrix
from bitgraph.distributed.partitioned import (DistPageRank, bfs, connected_components,
                                              pagerank)
from bitgraph.errors import DistributedError

__all__ = ["init", "environment", "Launch", "Comm", "LocalGroup", "NcclComm", "DistributedError",
           "source_share", "batch_deal", "msbfs", "closeness_centrality", "eccentricity",
           "betweenness_centrality", "edge_betweenness_centrality",
           "DistMatrix", "bfs", "connected_components", "pagerank", "DistPageRank"]
