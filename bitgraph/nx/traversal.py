"""BFS-family and shortest-path-length functions of the NetworkX backend.

Each function has NetworkX's name, signature, errors and return type and
takes a :class:`~bitgraph.nx.graph.BitGraph` as ``G``.  Order-sensitive
results (``bfs_layers``, ``bfs_edges``, ``bfs_tree``) follow NetworkX's
exact discovery order: a level-synchronous BFS in numpy over the adjacency
in NetworkX's neighbour order, where a vertex's parent is its first
discoverer.  Distance dictionaries come from the bitgraph kernels
(``bfs``, ``msbfs``, ``sssp``); their values equal NetworkX's, their key
order is by distance (NetworkX's is by discovery, which dict equality
ignores).

Devices: ``bfs``, ``msbfs`` and ``sssp`` run where ``G.matrix`` is (on
CUDA when the conversion put it there; ``G.weighted(...)`` is made there
too, once per graph and attribute). The order-sensitive BFS family reads
the host adjacency arrays.

>>> import networkx as nx
>>> from bitgraph.nx.convert import from_networkx
>>> BG = from_networkx(nx.path_graph(4))
>>> list(bfs_layers(BG, 0)), list(bfs_edges(BG, 1))
([[0], [1], [2], [3]], [(1, 0), (1, 2), (2, 3)])
>>> single_source_shortest_path_length(BG, 3, cutoff=2)
{3: 0, 2: 1, 1: 2}
"""

from __future__ import annotations

import inspect

import numpy as np

from bitgraph import _array
from bitgraph import algorithms as alg
from bitgraph import device as bgdev

__all__ = [
    "bfs_layers", "bfs_edges", "bfs_tree", "descendants_at_distance",
    "single_source_shortest_path_length", "single_target_shortest_path_length",
    "all_pairs_shortest_path_length", "shortest_path_length",
    "single_source_dijkstra_path_length", "single_source_bellman_ford_path_length",
    "bellman_ford_path_length", "negative_edge_cycle",
]

# sources per msbfs call in all_pairs_shortest_path_length: 4 batches of 64
# amortise the call overhead while keeping the (sources x n) int32 block small.


def _nx():
    import networkx as nx

    return nx


# --- helpers ----------------------------------------------------------------------
def _expand(indptr, indices, frontier):
    """(owner, targets): the neighbours of ``frontier`` in order (frontier
    order, then adjacency order); ``owner[k]`` = position in frontier."""
    starts = indptr[frontier]
    counts = indptr[frontier + 1] - starts
    total = int(counts.sum())
    owner = np.repeat(np.arange(frontier.size), counts)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, indices[np.repeat(starts, counts) + offsets]


def _ordered_levels(G, sources, depth_limit=None):
    """Yield ``(level_vertices, their_parents)`` in NetworkX's discovery
    order (parents None for the first level)."""
    indptr, indices = G._adj_indptr, G._adj_indices
    seen = np.zeros(len(G), dtype=bool)
    frontier = np.asarray(sources, dtype=np.int64)
    seen[frontier] = True
    yield frontier, None
    depth = 0
    while frontier.size and (depth_limit is None or depth < depth_limit):
        owner, targets = _expand(indptr, indices, frontier)
        fresh = ~seen[targets]
        owner, targets = owner[fresh], targets[fresh]
        _, first = _array.unique(targets, return_index=True)
        first.sort()  # first discovery of each vertex, in discovery order
        nxt = targets[first]
        parents = frontier[owner[first]]
        seen[nxt] = True
        depth += 1
        frontier = nxt
        if nxt.size:
            yield nxt, parents


def _levels(A, source):
    """Dense int BFS levels from vertex ``source`` along A's rows (-1:
    unreached), on the host; ``A`` on either device (``bfs`` runs on both)."""
    return bgdev.host(alg.bfs(A, source).to_dense(-1))


def _dist_dict(G, dist, reached):
    """{label: distance} for the vertices in ``reached``, by distance."""
    ids = np.flatnonzero(reached)
    order = np.argsort(dist[ids], kind="stable")
    ids = ids[order]
    return dict(zip(G.labels(ids), dist[ids].tolist()))


def _bfs_dict(G, A, source, cutoff):
    lev = _levels(A, source)
    reached = lev >= 0
    if cutoff is not None:
        # NetworkX expands while cutoff > level: level L is reached iff L-1 < cutoff
        reached &= (lev == 0) | (lev - 1 < cutoff)
    return _dist_dict(G, lev, reached)


def _rev(G):
    """The matrix whose rows are G's in-edges (G's own for undirected), on
    G's device: for ``bfs``."""
    return G.matrix.T if G.is_directed() else G.matrix


def _weights(G, weight, negative=False):
    """(weighted matrix on G's device, for ``sssp``; integral):
    NotImplementedError for NaN weights, and for negative ones unless
    ``negative`` (the Bellman-Ford functions; Dijkstra's are NetworkX's to
    answer), which the kernels don't take (NetworkX then runs itself).
    ``weight=None`` is NetworkX's unit weight (``data.get(None, 1)``): the
    pattern, whose shortest paths are BFS levels."""
    if weight is None:
        return G.matrix, True
    vals = G.weight_values(weight, 1)
    if vals.size and (np.isnan(vals).any() or (not negative and vals.min() < 0)):
        raise NotImplementedError("bitgraph: negative or NaN edge weights")
    # integer weights give NetworkX integer sums: return ints then; float
    # weights (1.0 included) float sums, as NetworkX adds the values it has
    integral = bool(vals.size == 0 or (weight in G._int_weights and np.abs(vals).max() < 2**52))
    return G.weighted(weight, 1), integral


def _sssp_dict(G, W, integral, source, cutoff=None):
    """{label: distance} from ``sssp`` (``W`` from :func:`_weights`);
    a negative cycle reachable from ``source`` raises NetworkX's
    ``NetworkXUnbounded``, as its Bellman-Ford does."""
    from bitgraph.errors import NegativeCycle

    try:
        vec = alg.sssp(W, source)
    except NegativeCycle:
        raise _nx().NetworkXUnbounded("Negative cycle detected.") from None
    d = np.asarray(bgdev.host(vec.to_dense(np.nan)), dtype=np.float64)
    reached = ~np.isnan(d) & (d < np.inf)
    if cutoff is not None:
        reached &= d <= cutoff
        reached[source] = True
    if integral:
        d = np.where(reached, d, 0).astype(np.int64)
        return _dist_dict(G, d, reached)
    out = _dist_dict(G, d, reached)
    out[G.nodes[source]] = 0  # NetworkX's dist = {source: 0}: an int whatever the weights
    return out


# --- BFS family -------------------------------------------------------------------
def bfs_layers(G, sources):
    """Yield the BFS layers from ``sources`` (one node or a list of nodes),
    as ``networkx.bfs_layers``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(bfs_layers(from_networkx(nx.star_graph(3)), [1, 2]))
    [[1, 2], [0], [3]]
    """
    if sources in G:
        sources = [sources]
    visited = set(sources)
    current = list(visited)  # NetworkX's first layer is in set order
    for source in current:
        if source not in G:
            raise _nx().NetworkXError(f"The node {source} is not in the graph.")
    for level, _ in _ordered_levels(G, [G.index[s] for s in current]):
        yield G.labels(level)


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """Yield the BFS tree edges from ``source`` in NetworkX's order, as
    ``networkx.bfs_edges`` (``sort_neighbors`` and ``reverse`` on a directed
    graph are refused by ``can_run``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(bfs_edges(from_networkx(nx.path_graph(5)), 2, depth_limit=1))
    [(2, 1), (2, 3)]
    """
    if source not in G:  # the message of G.neighbors / DiGraph.successors
        kind = "digraph" if G.is_directed() else "graph"
        raise _nx().NetworkXError(f"The node {source} is not in the {kind}.")
    if depth_limit is None:
        depth_limit = len(G)
    levels = _ordered_levels(G, [G.index[source]], depth_limit)
    next(levels)
    for level, parents in levels:
        yield from zip(G.labels(parents), G.labels(level))


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The BFS tree from ``source`` as a ``networkx.DiGraph``, as
    ``networkx.bfs_tree``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(bfs_tree(from_networkx(nx.path_graph(3)), 1).edges())
    [(1, 0), (1, 2)]
    """
    T = _nx().DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse=reverse, depth_limit=depth_limit,
                               sort_neighbors=sort_neighbors))
    return T


def descendants_at_distance(G, source, distance):
    """The set of nodes at exactly ``distance`` hops from ``source``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> descendants_at_distance(from_networkx(nx.path_graph(5)), 2, 2)
    {0, 4}
    """
    if source not in G:
        raise _nx().NetworkXError(f"The node {source} is not in the graph.")
    if distance < 0:  # NetworkX's layer count never matches; -1 marks unreached here
        return set()
    lev = _levels(G.matrix, G.index[source])
    return set(G.labels(np.flatnonzero(lev == distance)))


# --- unweighted shortest path lengths --------------------------------------------
def single_source_shortest_path_length(G, source, cutoff=None):
    """{node: hops from source}, as ``networkx.single_source_shortest_path_length``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> single_source_shortest_path_length(from_networkx(nx.path_graph(3)), 0)
    {0: 0, 1: 1, 2: 2}
    """
    s = G.node_id(source, "Source")
    return _bfs_dict(G, G.matrix, s, cutoff)


def single_target_shortest_path_length(G, target, cutoff=None):
    """{node: hops to target}, as ``networkx.single_target_shortest_path_length``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> single_target_shortest_path_length(from_networkx(nx.DiGraph([(0, 1), (1, 2)])), 2)
    {2: 0, 1: 1, 0: 2}
    """
    t = G.node_id(target, "Target")
    return _bfs_dict(G, _rev(G), t, cutoff)


def all_pairs_shortest_path_length(G, cutoff=None):
    """Yield ``(node, {node: hops})`` for every node in G's order, computed
    through ``msbfs`` in batches of sources.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> dict(all_pairs_shortest_path_length(from_networkx(nx.path_graph(2))))
    {0: {0: 0, 1: 1}, 1: {1: 0, 0: 1}}
    """
    n = len(G)
    A = G.matrix  # msbfs runs on either device
    from bitgraph.settings import current

    rows = current().io.all_pairs_rows
    for start in range(0, n, rows):
        ids = np.arange(start, min(n, start + rows))
        block = bgdev.host(alg.msbfs(A, ids))  # one copy per block off the GPU
        for row, s in enumerate(ids.tolist()):
            lev = block[row]
            reached = lev >= 0
            if cutoff is not None:
                reached &= (lev == 0) | (lev - 1 < cutoff)
            yield G.nodes[s], _dist_dict(G, lev, reached)


# --- weighted -----------------------------------------------------------------------
def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """{node: weighted distance from source}, as
    ``networkx.single_source_dijkstra_path_length`` (non-negative weights;
    negative ones make NetworkX run itself).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.Graph([(0, 1, {"weight": 2}), (1, 2, {"weight": 3}), (0, 2, {"weight": 9})])
    >>> single_source_dijkstra_path_length(from_networkx(G, {"weight": 1}), 0)
    {0: 0, 1: 2, 2: 5}
    """
    if source not in G:
        raise _nx().NodeNotFound(f"Node {source} not found in graph")
    W, integral = _weights(G, weight)
    return _sssp_dict(G, W, integral, G.index[source], cutoff)


def single_source_bellman_ford_path_length(G, source, weight="weight"):
    """{node: weighted distance from source}, as
    ``networkx.single_source_bellman_ford_path_length`` (negative weights
    too; a reachable negative cycle raises ``NetworkXUnbounded``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.DiGraph([(0, 1, {"weight": 0.5})])
    >>> single_source_bellman_ford_path_length(from_networkx(G, {"weight": 1}), 0)
    {0: 0, 1: 0.5}
    """
    if source not in G:
        raise _nx().NodeNotFound(f"Source {source} not in G")
    W, integral = _weights(G, weight, negative=True)
    return _sssp_dict(G, W, integral, G.index[source])


def bellman_ford_path_length(G, source, target, weight="weight"):
    """The weighted distance from ``source`` to ``target``, as
    ``networkx.bellman_ford_path_length`` (negative weights too; a negative
    cycle reachable from ``source`` raises ``NetworkXUnbounded``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.DiGraph([(0, 1, {"weight": 4}), (1, 2, {"weight": -3}), (0, 2, {"weight": 2})])
    >>> bellman_ford_path_length(from_networkx(G, {"weight": 1}), 0, 2)
    1
    """
    nx = _nx()
    if source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} not found in graph")
        return 0
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    W, integral = _weights(G, weight, negative=True)
    dist = _sssp_dict(G, W, integral, G.index[source])
    try:
        return dist[target]
    except (KeyError, TypeError):
        raise nx.NetworkXNoPath(f"node {target} not reachable from {source}") from None


def negative_edge_cycle(G, weight="weight", heuristic=True):
    """Whether G has a cycle of negative total weight anywhere, as
    ``networkx.negative_edge_cycle`` (through
    :func:`bitgraph.algorithms.negative_cycle` with every vertex a source;
    ``heuristic`` changes nothing here). An undirected edge of negative
    weight is such a cycle (there and back), as in NetworkX.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.DiGraph([(0, 1, {"weight": 2}), (1, 2, {"weight": -1}), (2, 1, {"weight": -1})])
    >>> negative_edge_cycle(from_networkx(G, {"weight": 1}))
    True
    """
    W, _ = _weights(G, weight, negative=True)
    if W.nvals == 0:
        return False
    return alg.negative_cycle(W)


def _all_pairs_weighted(G, W, integral):
    for s in range(len(G)):
        yield G.nodes[s], _sssp_dict(G, W, integral, s)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """Shortest path lengths, as ``networkx.shortest_path_length`` (every
    combination of source/target; unweighted through BFS, weighted through
    ``sssp``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.path_graph(4), {"weight": 1})
    >>> shortest_path_length(BG, 0, 3), shortest_path_length(BG, target=1)
    (3, {1: 0, 0: 1, 2: 1, 3: 2})
    """
    nx = _nx()
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if method != "unweighted":
        W, integral = _weights(G, weight, negative=method == "bellman-ford")
    if source is None:
        if target is None:
            if method == "unweighted":
                return all_pairs_shortest_path_length(G)
            return _all_pairs_weighted(G, W, integral)
        # lengths to target = lengths from target over the reversed graph
        if method == "unweighted":
            t = G.node_id(target, "Source")
            return _bfs_dict(G, _rev(G), t, None)
        if target not in G:
            msg = (f"Node {target} not found in graph" if method == "dijkstra"
                   else f"Source {target} not in G")
            raise nx.NodeNotFound(msg)
        return _sssp_dict(G, W.T if G.is_directed() else W, integral, G.index[target])
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path_length(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path_length(G, source, weight=weight)
        return single_source_bellman_ford_path_length(G, source, weight=weight)
    # one pair
    if method == "unweighted":
        s = G.node_id(source, "Source")
        t = G.node_id(target, "Target")
        d = int(_levels(G.matrix, s)[t])
        if d < 0:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        return d
    if method == "bellman-ford":
        return bellman_ford_path_length(G, source, target, weight=weight)
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    dist = _sssp_dict(G, W, integral, G.index[source])
    try:
        return dist[target]
    except (KeyError, TypeError):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}") from None


# --- registration tables ------------------------------------------------------------
FUNCTIONS = {f.__name__: f for f in (
    bfs_layers, bfs_edges, bfs_tree, descendants_at_distance,
    single_source_shortest_path_length, single_target_shortest_path_length,
    all_pairs_shortest_path_length, shortest_path_length,
    single_source_dijkstra_path_length, single_source_bellman_ford_path_length,
    bellman_ford_path_length, negative_edge_cycle,
)}

_URL = "https://networkx.org/documentation/stable/reference/generated/networkx.algorithms."
_NOTES = {
    "bfs_layers": ("traversal.breadth_first_search", "Level-synchronous BFS in numpy; NetworkX's exact layer order."),
    "bfs_edges": ("traversal.breadth_first_search", "NetworkX's exact edge order; sort_neighbors, and reverse on directed graphs, fall back to NetworkX."),
    "bfs_tree": ("traversal.breadth_first_search", "Built from bfs_edges (same tree as NetworkX); sort_neighbors and directed reverse fall back."),
    "descendants_at_distance": ("traversal.breadth_first_search", "One BFS through bitgraph.algorithms.bfs (on the GPU when the graph is there)."),
    "single_source_shortest_path_length": ("shortest_paths.unweighted", "BFS levels through bitgraph.algorithms.bfs (on the GPU when the graph is there); cutoff supported."),
    "single_target_shortest_path_length": ("shortest_paths.unweighted", "BFS over the transposed adjacency (on the GPU when the graph is there); cutoff supported."),
    "all_pairs_shortest_path_length": ("shortest_paths.unweighted", "Batches of 64-source bit-parallel BFS (msbfs, on the GPU when the graph is there); cutoff supported."),
    "shortest_path_length": ("shortest_paths.generic", "Unweighted through BFS (on the GPU when the graph is there), weighted through bitgraph.algorithms.sssp (CPU); negative weights run with method='bellman-ford' (a negative cycle raises NetworkXUnbounded) and fall back with 'dijkstra'."),
    "single_source_dijkstra_path_length": ("shortest_paths.weighted", "bitgraph.algorithms.sssp (delta-stepping / Bellman-Ford); negative weights fall back."),
    "single_source_bellman_ford_path_length": ("shortest_paths.weighted", "bitgraph.algorithms.sssp (Bellman-Ford with negative weights); a reachable negative cycle raises NetworkXUnbounded."),
    "bellman_ford_path_length": ("shortest_paths.weighted", "bitgraph.algorithms.sssp from source (Bellman-Ford with negative weights); a reachable negative cycle raises NetworkXUnbounded."),
    "negative_edge_cycle": ("shortest_paths.weighted", "bitgraph.algorithms.negative_cycle (Bellman-Ford rounds from every vertex at once); heuristic is ignored."),
}
INFO = {
    name: {"url": f"{_URL}{mod}.{name}.html", "note": note, "extra_parameters": {}}
    for name, (mod, note) in _NOTES.items()
}


def _bound(func):
    sig = inspect.signature(func)

    def bind(args, kwargs):
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        return b.arguments

    return bind


def _bfs_edges_can_run(args, kwargs, _bind=_bound(bfs_edges)):
    a = _bind(args, kwargs)
    if a["sort_neighbors"] is not None:
        return "sort_neighbors is not supported (NetworkX runs it)"
    if a["reverse"] and a["G"].is_directed():
        return "reverse=True on a directed graph needs NetworkX's predecessor order"
    return True


def _weight_can_run(func):
    bind = _bound(func)

    def can_run(args, kwargs):
        if callable(bind(args, kwargs)["weight"]):
            return "a callable weight is not supported"
        return True

    return can_run


CAN_RUN = {
    "bfs_edges": _bfs_edges_can_run,
    "bfs_tree": _bfs_edges_can_run,
    "shortest_path_length": _weight_can_run(shortest_path_length),
    "single_source_dijkstra_path_length": _weight_can_run(single_source_dijkstra_path_length),
    "single_source_bellman_ford_path_length": _weight_can_run(single_source_bellman_ford_path_length),
    "bellman_ford_path_length": _weight_can_run(bellman_ford_path_length),
    "negative_edge_cycle": _weight_can_run(negative_edge_cycle),
}
