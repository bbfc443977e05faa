"""NetworkX graph -> :class:`BitGraph` (and back).

One pass over NetworkX's adjacency dicts with ``np.fromiter`` (C-level
iteration, no per-edge Python statement), then a vectorised sort of each
row.  Node order is ``list(G)``.  Multigraphs: parallel edges are collapsed
to one (weights: the minimum over the parallel edges, which is what
NetworkX's shortest-path functions use); ``BitGraph.multigraph_source``
records it so functions that count multiplicity can refuse.

>>> import networkx as nx
>>> BG = from_networkx(nx.DiGraph([("x", "y"), ("y", "z")]))
>>> BG.is_directed(), BG.matrix.to_coo()[1].tolist()
(True, [1, 2])
>>> to_networkx(BG).edges()
OutEdgeView([('x', 'y'), ('y', 'z')])
"""

from __future__ import annotations

from itertools import chain

import numpy as np

from .graph import BitGraph

__all__ = ["from_networkx", "to_networkx"]


def _device():
    """The device the converted matrix goes to: ``nx.config.backends.bitgraph.device``
    through :func:`bitgraph.device.resolve`. "auto" (the default, also when
    the backend's config is absent) is CUDA when it is usable (CuPy imports
    and sees a GPU), else the CPU; "cuda" must be usable (``DeviceError``
    naming why it is not); "cpu" is the CPU.

    On CUDA every function runs its bitgraph algorithm there, on the CUDA
    matrix; host arithmetic reads :attr:`BitGraph.cpu_matrix
    <bitgraph.nx.graph.BitGraph.cpu_matrix>` (a CPU copy made once per
    graph); the answers are the same either way.

    >>> import bitgraph as bg
    >>> _device() == ("cuda" if bg.device.cuda_status() is None else "cpu")
    True
    """
    from bitgraph import device as bgdev

    try:
        import networkx as nx

        dev = nx.config.backends.bitgraph.device
    except Exception:  # backend config absent (not installed through entry points)
        dev = "auto"
    return bgdev.resolve("auto" if dev is None else dev, "nx.config.backends.bitgraph.device")


def from_networkx(G, edge_attrs=None, *, device="cpu", graph_attrs=True) -> BitGraph:
    """Convert ``G`` (any NetworkX graph).  ``edge_attrs``: ``{attr: default}``
    (or an iterable of names, default None) of numeric edge attributes to keep
    for :meth:`BitGraph.weighted`; ``default=None`` means edges without the
    attribute are marked missing.  Non-numeric attribute values raise
    ``NotImplementedError`` (NetworkX then falls back to itself).

    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 2.5})]); G.add_node("iso")
    >>> BG = from_networkx(G, {"weight": 1})
    >>> BG.nodes, BG.weighted().to_coo()[2].tolist()
    ([0, 1, 'iso'], [2.5, 2.5])
    """
    import bitgraph as bg

    adj = G._adj
    nodes = list(adj)
    n = len(nodes)
    deg = np.fromiter(map(len, adj.values()), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    nnz = int(indptr[-1])
    neighbours = chain.from_iterable(adj.values())
    if nodes == list(range(n)):  # labels 0..n-1 in order: they are the ids (2.4x faster)
        cols = np.fromiter(neighbours, dtype=np.int64, count=nnz)
    else:
        index = {v: i for i, v in enumerate(nodes)}
        cols = np.fromiter(map(index.__getitem__, neighbours), dtype=np.int64, count=nnz)
    # NetworkX keeps neighbours in insertion order; CSR wants them sorted.
    multigraph = G.is_multigraph()
    weights = {}
    perm = None
    int_weights = set()
    if edge_attrs:
        # the values follow the columns: the permutation itself. Rows are
        # already grouped, so a stable sort of row*n+col sorts within rows.
        rows = np.repeat(np.arange(n, dtype=np.int64), deg)
        perm = np.argsort(rows * max(n, 1) + cols, kind="stable")
        scols = cols[perm]
        if not isinstance(edge_attrs, dict):
            edge_attrs = dict.fromkeys(edge_attrs)
        for attr, default in edge_attrs.items():
            weights[attr] = _edge_values(adj, attr, default, nnz, multigraph, perm)
            if _all_ints(adj, attr, multigraph):
                int_weights.add(attr)
    else:
        scols = _sorted_rows(indptr, cols, n)

    idt = np.int32 if max(n, nnz) < 2**31 - 1 else np.int64
    A = bg.Matrix.from_csr(indptr.astype(idt), scols.astype(idt), None, ncols=n, check=False,
                           device=device)
    return BitGraph(A, nodes, directed=G.is_directed(),
                    graph=dict(G.graph) if graph_attrs else {},
                    weights=weights, int_weights=int_weights, adj_indptr=indptr, adj_indices=cols, perm=perm,
                    multigraph_source=multigraph)


def _sorted_rows(indptr, cols, n):
    """``cols`` sorted within each row of ``indptr`` (a copy): scipy's C++
    in-row sort, 3x faster than a stable argsort of row * n + col (0.05 vs
    0.15 s at 2M entries)."""
    import scipy.sparse as sp

    M = sp.csr_array((np.zeros(cols.size, np.int8), cols.copy(), indptr), shape=(n, n))
    M.has_sorted_indices = False
    M.sort_indices()
    return M.indices


def _all_ints(adj, attr, multigraph) -> bool:
    """Every edge's ``attr`` that is present is an integer (NetworkX then
    adds integers: its path lengths are ints; a float weight, 1.0 too, makes
    them floats)."""
    it = chain.from_iterable(map(dict.values, adj.values()))
    if multigraph:
        it = chain.from_iterable(map(dict.values, it))
    return all(isinstance(d.get(attr, 1), (int, np.integer)) for d in it)


def _edge_values(adj, attr, default, nnz, multigraph, perm):
    """(values, missing) of ``attr`` in sorted-CSR order."""
    fill = np.nan if default is None else default
    it = chain.from_iterable(map(dict.values, adj.values()))
    try:
        if multigraph:
            # min over parallel edges, as NetworkX's shortest paths weigh multigraphs
            vals = np.fromiter((min(d.get(attr, fill) for d in keyed.values()) for keyed in it),
                               dtype=np.float64, count=nnz)
        else:
            vals = np.fromiter((d.get(attr, fill) for d in it), dtype=np.float64, count=nnz)
    except (TypeError, ValueError) as e:
        raise NotImplementedError(
            f"bitgraph converts numeric edge attributes only; {attr!r}: {e}") from None
    vals = vals[perm]
    missing = np.isnan(vals) if default is None else None
    if missing is not None and not missing.any():
        missing = None
    return vals, missing


def to_networkx(BG: BitGraph):
    """A NetworkX graph with ``BG``'s nodes and edges (and converted weights)."""
    import networkx as nx

    H = nx.DiGraph() if BG.is_directed() else nx.Graph()
    H.graph.update(BG.graph)
    H.add_nodes_from(BG.nodes)
    from bitgraph.device import host

    r, c, _ = BG.matrix.to_coo()
    r, c = host(r), host(c)  # one copy each off the GPU when the matrix is there
    labels = BG.nodes
    if BG._weights:
        data = []
        for attr, (vals, missing) in BG._weights.items():
            data.append((attr, vals, missing))
        for k, (i, j) in enumerate(zip(r.tolist(), c.tolist())):
            d = {a: float(v[k]) for a, v, m in data if m is None or not m[k]}
            H.add_edge(labels[i], labels[j], **d)
    else:
        H.add_edges_from(zip(BG.labels(r), BG.labels(c)))
    return H
