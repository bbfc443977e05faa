"""Reachability and path-returning shortest paths of the NetworkX backend.

Each function has NetworkX's name, signature, errors and return type and
takes a :class:`~bitgraph.nx.graph.BitGraph` as ``G``.

Where several shortest paths tie, NetworkX returns one particular path, and
so do these functions:

- BFS paths (``single_source_shortest_path`` and the unweighted
  ``shortest_path``): a vertex's parent is its first discoverer in a
  level-synchronous BFS over NetworkX's neighbour order (the parents of
  :func:`bitgraph.nx.traversal._ordered_levels`), as NetworkX's BFS.
- Dijkstra paths: distances from :func:`bitgraph.algorithms.sssp`, then a
  vertex's parent is the tight in-neighbour (``d[u] + w == d[v]``) that
  NetworkX's heap pops first. Pop order is ``(d, push count)``, and a
  vertex's final push happens when its parent pops and scans it, so the
  order within one distance is ``(rank of parent, neighbour position)``
  (zero-weight edges inside one distance add rounds, in the same order).
  Only when some vertex has two tight in-neighbours are the ranks computed:
  one numpy round per distinct distance.
- ``bidirectional_shortest_path`` on an undirected graph: NetworkX's
  alternating two-sided BFS, one numpy level at a time.
- Orders that come from NetworkX's predecessor lists (``G.pred`` of a
  directed graph, which the conversion does not keep), Bellman-Ford's
  queue, or the two heaps of ``bidirectional_dijkstra`` (``shortest_path``
  with source, target and weight): answered when the shortest path is unique (then any algorithm
  gives NetworkX's path); otherwise the function raises
  ``NotImplementedError`` and NetworkX runs itself.

>>> import networkx as nx
>>> from bitgraph.nx.convert import from_networkx
>>> BG = from_networkx(nx.cycle_graph(4))
>>> single_source_shortest_path(BG, 0)
{0: [0], 1: [0, 1], 3: [0, 3], 2: [0, 1, 2]}
>>> sorted(descendants(from_networkx(nx.DiGraph([(0, 1), (1, 2), (3, 0)])), 0))
[1, 2]
"""

from __future__ import annotations

import inspect

import numpy as np

from bitgraph import _array
from bitgraph import algorithms as alg
from bitgraph import device as bgdev

from .traversal import _URL, _expand, _levels, _nx, _ordered_levels, _rev, _weights, bfs_edges

__all__ = [
    "has_path", "ancestors", "descendants", "is_weakly_connected", "bfs_predecessors",
    "bfs_successors", "generic_bfs_edges", "shortest_path", "single_source_shortest_path",
    "single_target_shortest_path", "all_pairs_shortest_path", "bidirectional_shortest_path",
    "dijkstra_path", "single_source_dijkstra_path", "single_source_dijkstra",
    "dijkstra_path_length", "bellman_ford_path", "single_source_bellman_ford_path",
    "single_source_bellman_ford", "all_pairs_dijkstra_path",
    "FUNCTIONS", "INFO", "CAN_RUN",
]


class _Tie(NotImplementedError):
    """Shortest paths tie where NetworkX's choice follows an order the
    backend does not keep: NetworkX runs the call itself."""


# --- helpers ----------------------------------------------------------------------
def _paths_from_parents(G, order, parent, reverse=False):
    """{label: path} for the vertex ids in ``order`` (a root has parent
    -1), paths from the root (``reverse``: to the root). A parent may come
    after its child in ``order`` (zero-weight edges): its path is built
    first."""
    order = np.asarray(order, dtype=np.int64)
    par = parent.tolist()
    labels = G.labels(order)
    by_id = {}

    def build(v):  # v's path, building its unbuilt ancestors first
        chain = []
        while v >= 0 and v not in by_id:
            chain.append(v)
            v = par[v]
        path = by_id[v] if v >= 0 else []
        for x in reversed(chain):
            lab = G.nodes[x]
            path = [lab] + path if reverse else path + [lab]
            by_id[x] = path
        return path

    out = {}
    for v, lab in zip(order.tolist(), labels):
        p = par[v]
        if p < 0:
            path = [lab]
        else:
            pp = by_id.get(p)
            if pp is None:
                pp = build(p)
            path = [lab] + pp if reverse else pp + [lab]
        by_id[v] = out[lab] = path
    return out


def _bfs_tree(G, s, depth_limit=None):
    """(order, parent): NetworkX's BFS from vertex ``s`` over its neighbour
    order (discovery order; parent = first discoverer, -1 for ``s``)."""
    parent = np.full(len(G), -1, dtype=np.int64)
    order = []
    for level, parents in _ordered_levels(G, [s], depth_limit):
        if parents is not None:
            parent[level] = parents
        order.append(level)
    return np.concatenate(order), parent


def _adjacency_edges(G):
    """(src, dst) of every edge in NetworkX's adjacency order."""
    indptr = G._adj_indptr
    src = np.repeat(np.arange(len(G), dtype=np.int64), np.diff(indptr))
    return src, np.asarray(G._adj_indices, dtype=np.int64)


def _unique_parents(n, src, dst, tight, roots):
    """parent[v] = the only tight in-edge's source, -1 for ``roots`` and
    unreached vertices; ``_Tie`` when a non-root vertex has several."""
    keep = tight & ~np.isin(dst, roots)
    counts = np.bincount(dst[keep], minlength=n)
    if counts.size and counts.max() > 1:
        raise _Tie("bitgraph: shortest paths tie where NetworkX's choice needs its "
                   "predecessor order")
    parent = np.full(n, -1, dtype=np.int64)
    parent[dst[keep]] = src[keep]
    return parent


def _sssp_array(G, W, source):
    """float64 distances from vertex ``source`` (nan: unreached), through
    ``sssp``; a reachable negative cycle raises ``NetworkXUnbounded``."""
    from bitgraph.errors import NegativeCycle

    try:
        vec = alg.sssp(W, source)
    except NegativeCycle:
        raise _nx().NetworkXUnbounded("Negative cycle detected.") from None
    d = np.asarray(bgdev.host(vec.to_dense(np.nan)), dtype=np.float64)
    d[~(d < np.inf)] = np.nan
    return d


def _adjacency_weights(G, weight):
    """Edge weights in NetworkX's adjacency order (1 without ``weight``)."""
    n_edges = G._adj_indices.size
    if weight is None:
        return np.ones(n_edges)
    vals = G.weight_values(weight, 1)
    w = np.empty(n_edges, dtype=np.float64)
    w[G._perm] = vals  # vals[k] is adjacency position perm[k]
    return w


def _dist_dict(G, d, ids, integral):
    vals = d[ids]
    vals = vals.astype(np.int64).tolist() if integral else vals.tolist()
    return dict(zip(G.labels(ids), vals))


def _dijkstra(G, source, weight, cutoff=None, negative=False, target=None):
    """(d, reached ids by distance, parent, integral): ``sssp`` distances
    and NetworkX's Dijkstra parents (see the module docstring); with
    ``negative`` (Bellman-Ford) parents only where they are unique (on the
    path to ``target`` when it is given; ``_Tie`` otherwise)."""
    W, integral = _weights(G, weight, negative=negative)
    s = G.index[source]
    d = _sssp_array(G, W, s)
    if cutoff is not None:
        d[d > cutoff] = np.nan
    d[s] = 0.0
    reached = ~np.isnan(d)
    src, dst = _adjacency_edges(G)
    w = _adjacency_weights(G, weight)
    tight = reached[src] & reached[dst] & (d[src] + w == d[dst]) & (dst != s) & (src != dst)
    n = len(G)
    counts = np.bincount(dst[tight], minlength=n)
    ids = np.flatnonzero(reached)
    ids = ids[np.argsort(d[ids], kind="stable")]
    parent = np.full(n, -1, dtype=np.int64)
    parent[dst[tight]] = src[tight]
    if counts.size == 0 or counts.max() <= 1:
        return d, ids, parent, integral
    if negative:
        # Bellman-Ford: one target's path is NetworkX's when every vertex on
        # it has one tight in-edge
        if target is None:
            raise _Tie("bitgraph: Bellman-Ford paths tie (NetworkX's choice follows "
                       "its queue order)")
        t = G.index.get(target) if target in G else None
        if t is None or np.isnan(d[t]):
            return d, ids, parent, integral  # no path: the caller raises
        while t != s and counts[t] == 1:
            t = int(parent[t])
        if t != s:
            raise _Tie("bitgraph: Bellman-Ford paths tie (NetworkX's choice follows "
                       "its queue order)")
        return d, ids, parent, integral
    return d, *_dijkstra_ranked(n, s, d, src, dst, tight), integral


def _dijkstra_ranked(n, s, d, src, dst, tight):
    """(ids in NetworkX's pop order, parent): per distinct distance D, the
    vertices of distance D whose parent has a smaller distance are pushed in
    the order (rank of parent, edge position) and pop first; rounds of
    zero-weight tight edges inside D follow, each in the same order."""
    rank = np.full(n, -1, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    eidx = np.flatnonzero(tight)
    # tight edges grouped by their target's distance
    eidx = eidx[np.argsort(d[dst[eidx]], kind="stable")]
    ed = d[dst[eidx]]
    ids = np.flatnonzero(~np.isnan(d))
    ids = ids[np.argsort(d[ids], kind="stable")]
    vd = d[ids]
    groups = vd[np.r_[True, vd[1:] != vd[:-1]]] if vd.size else vd  # sorted: distinct
    e_lo = np.searchsorted(ed, groups, "left")
    e_hi = np.searchsorted(ed, groups, "right")
    popped = []
    nxt = 0
    for D, a, b in zip(groups.tolist(), e_lo.tolist(), e_hi.tolist()):
        edges = eidx[a:b]
        inner = edges[d[src[edges]] == D]
        if D == 0.0 and rank[s] < 0:  # the source pops first; rounds start from it
            rank[s] = nxt
            popped.append(np.array([s]))
            lo, nxt = nxt, nxt + 1
            rnd = inner[rank[src[inner]] == lo]
        else:  # round 0: parents of smaller distance, all ranked
            rnd = edges[d[src[edges]] < D]
        while rnd.size:
            rnd = rnd[rank[dst[rnd]] < 0]
            if not rnd.size:
                break
            # per target: the edge whose source has the smallest rank; the
            # push order is (rank of parent, edge position)
            rnd = rnd[np.lexsort((rnd, rank[src[rnd]]))]
            _, first = _array.unique(dst[rnd], return_index=True)
            win = rnd[np.sort(first)]
            v = dst[win]
            parent[v] = src[win]
            rank[v] = np.arange(nxt, nxt + v.size)
            popped.append(v)
            lo, nxt = nxt, nxt + v.size
            # next round: zero-weight tight edges from the vertices just ranked
            rs = rank[src[inner]]
            rnd = inner[(rs >= lo) & (rs < nxt)]
    order = np.concatenate(popped) if popped else np.zeros(0, np.int64)
    return order, parent


def _bfs_pair_unique(G, s, t):
    """The shortest s-t path (vertex ids) when it is unique, else ``_Tie``;
    NetworkXNoPath-style None when t is unreachable."""
    ds = _levels(G.matrix, s)
    if ds[t] < 0:
        return None
    dt = _levels(_rev(G), t)
    on = (ds >= 0) & (dt >= 0) & (ds + dt == ds[t])
    ids = np.flatnonzero(on)
    if ids.size != ds[t] + 1:
        raise _Tie("bitgraph: several shortest paths; NetworkX's choice needs its "
                   "predecessor order")
    return ids[np.argsort(ds[ids])]


def _bidirectional_undirected(G, s, t):
    """NetworkX's ``_bidirectional_pred_succ`` on an undirected graph,
    level by level: the side with the smaller fringe expands; the first
    neighbour (in scan order) already seen from the other side is the
    meeting vertex. The path as vertex ids, or None."""
    n = len(G)
    indptr, indices = G._adj_indptr, G._adj_indices
    pred = np.full(n, -2, dtype=np.int64)  # -2: unseen; -1: the root
    succ = np.full(n, -2, dtype=np.int64)
    pred[s], succ[t] = -1, -1
    ff, rf = np.array([s]), np.array([t])
    while ff.size and rf.size:
        forward = ff.size <= rf.size
        this, mine, other = (ff, pred, succ) if forward else (rf, succ, pred)
        owner, targets = _expand(indptr, indices, this)
        hit = np.flatnonzero(other[targets] != -2)
        stop = hit[0] if hit.size else targets.size
        seg_owner, seg = owner[:stop], targets[:stop]
        fresh = mine[seg] == -2
        seg_owner, seg = seg_owner[fresh], seg[fresh]
        _, first = _array.unique(seg, return_index=True)
        first.sort()
        new = seg[first]
        mine[new] = this[seg_owner[first]]
        if hit.size:
            w = int(targets[stop])
            if mine[w] == -2:
                mine[w] = int(this[owner[stop]])
            path = []
            x = w
            while x >= 0:
                path.append(x)
                x = int(pred[x])
            path.reverse()
            x = int(succ[w])
            while x >= 0:
                path.append(x)
                x = int(succ[x])
            return path
        if forward:
            ff = new
        else:
            rf = new
    return None


# --- reachability -------------------------------------------------------------------
def _bfs_node_error(G, source):
    """NetworkX's ``G.neighbors`` / ``G.predecessors`` error for ``source``."""
    kind = "digraph" if G.is_directed() else "graph"
    return _nx().NetworkXError(f"The node {source} is not in the {kind}.")


def has_path(G, source, target):
    """Whether ``target`` is reachable from ``source``, as
    ``networkx.has_path`` (one BFS).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.DiGraph([(0, 1), (2, 1)]))
    >>> has_path(BG, 0, 1), has_path(BG, 1, 0)
    (True, False)
    """
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    return bool(_levels(G.matrix, G.index[source])[G.index[target]] >= 0)


def descendants(G, source):
    """The set of nodes reachable from ``source`` (without it), as
    ``networkx.descendants`` (one BFS).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> descendants(from_networkx(nx.DiGraph([("a", "b"), ("b", "c")])), "b")
    {'c'}
    """
    if source not in G:
        raise _bfs_node_error(G, source)
    s = G.index[source]
    lev = _levels(G.matrix, s)
    return set(G.labels(np.flatnonzero(lev > 0)))


def ancestors(G, source):
    """The set of nodes that reach ``source`` (without it), as
    ``networkx.ancestors`` (one BFS over the transposed adjacency).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> ancestors(from_networkx(nx.DiGraph([("a", "b"), ("b", "c")])), "b")
    {'a'}
    """
    if source not in G:
        raise _bfs_node_error(G, source)
    lev = _levels(_rev(G), G.index[source])
    return set(G.labels(np.flatnonzero(lev > 0)))


def is_weakly_connected(G):
    """Whether a directed graph is weakly connected, as
    ``networkx.is_weakly_connected`` (Afforest component labels).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_weakly_connected(from_networkx(nx.DiGraph([(0, 1), (2, 1)])))
    True
    """
    from .measures import _cc_labels, _not_implemented_for

    _not_implemented_for(G, "undirected")
    if len(G) == 0:
        raise _nx().NetworkXPointlessConcept(
            "Connectivity is undefined for the null graph.")
    labels = _cc_labels(G)
    return bool(np.all(labels == labels[0]))


def generic_bfs_edges(G, source, neighbors=None, depth_limit=None):
    """Yield the BFS tree edges from ``source``, as
    ``networkx.generic_bfs_edges`` with ``neighbors=None`` (G's neighbours;
    a callable ``neighbors`` is refused by ``can_run``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(generic_bfs_edges(from_networkx(nx.path_graph(3)), 0))
    [(0, 1), (1, 2)]
    """
    return bfs_edges(G, source, depth_limit=depth_limit)


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """Yield ``(node, its BFS parent)`` in NetworkX's order, as
    ``networkx.bfs_predecessors`` (``sort_neighbors`` is refused by ``can_run``);
    from NetworkX 3.7 its ``DeprecationWarning`` on the first item.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     dict(bfs_predecessors(from_networkx(nx.path_graph(3)), 0))
    {1: 0, 2: 1}
    """
    from .measures import _nx_version

    if _nx_version() >= (3, 7):
        import warnings

        warnings.warn("\n\nbfs_predecessors is deprecated and will be removed in NetworkX 3.9\n"
                      "Use ``(t, s) for (s, t) in bfs_edges`` instead",
                      category=DeprecationWarning, stacklevel=2)
    for s, t in bfs_edges(G, source, depth_limit=depth_limit):
        yield (t, s)


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """Yield ``(node, [its BFS children])`` in NetworkX's order, as
    ``networkx.bfs_successors`` (``sort_neighbors`` is refused by ``can_run``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> dict(bfs_successors(from_networkx(nx.star_graph(2)), 0))
    {0: [1, 2]}
    """
    parent = source
    children = []
    for p, c in bfs_edges(G, source, depth_limit=depth_limit):
        if p == parent:
            children.append(c)
            continue
        yield (parent, children)
        children = [c]
        parent = p
    yield (parent, children)


# --- unweighted paths ---------------------------------------------------------------
def single_source_shortest_path(G, source, cutoff=None):
    """{node: shortest path from source}, as
    ``networkx.single_source_shortest_path`` (NetworkX's path where paths
    tie: the BFS parent is the first discoverer).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> single_source_shortest_path(from_networkx(nx.path_graph(3)), 0, cutoff=1)
    {0: [0], 1: [0, 1]}
    """
    if source not in G:
        raise _nx().NodeNotFound(f"Source {source} not in G")
    order, parent = _bfs_tree(G, G.index[source], cutoff)
    return _paths_from_parents(G, order, parent)


def single_target_shortest_path(G, target, cutoff=None):
    """{node: shortest path to target}, as
    ``networkx.single_target_shortest_path`` (directed graphs: when the
    paths are unique, otherwise NetworkX runs it; see the module docstring).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> single_target_shortest_path(from_networkx(nx.DiGraph([(0, 1), (1, 2)])), 2)
    {2: [2], 1: [1, 2], 0: [0, 1, 2]}
    """
    if target not in G:
        raise _nx().NodeNotFound(f"Target {target} not in G")
    t = G.index[target]
    if not G.is_directed():
        order, parent = _bfs_tree(G, t, cutoff)
        return _paths_from_parents(G, order, parent, reverse=True)
    lev = _levels(_rev(G), t)
    reached = lev >= 0
    if cutoff is not None:
        reached &= (lev == 0) | (lev - 1 < cutoff)
    src, dst = _adjacency_edges(G)
    # next hop of u towards t: an out-edge u -> v one level closer
    tight = reached[src] & reached[dst] & (lev[src] == lev[dst] + 1)
    nexthop = _unique_parents(len(G), dst, src, tight, [t])
    order = np.flatnonzero(reached)
    order = order[np.argsort(lev[order], kind="stable")]
    return _paths_from_parents(G, order, nexthop, reverse=True)


def all_pairs_shortest_path(G, cutoff=None):
    """Yield ``(node, {node: path})`` for every node in G's order, as
    ``networkx.all_pairs_shortest_path``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> dict(all_pairs_shortest_path(from_networkx(nx.path_graph(2))))
    {0: {0: [0], 1: [0, 1]}, 1: {1: [1], 0: [1, 0]}}
    """
    for n in G.nodes:
        yield n, single_source_shortest_path(G, n, cutoff=cutoff)


def bidirectional_shortest_path(G, source, target):
    """One shortest path from ``source`` to ``target``, as
    ``networkx.bidirectional_shortest_path`` (undirected: NetworkX's
    two-sided BFS and its path; directed: when the path is unique,
    otherwise NetworkX runs it).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> bidirectional_shortest_path(from_networkx(nx.cycle_graph(7)), 0, 4)
    [0, 6, 5, 4]
    """
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    s, t = G.index[source], G.index[target]
    if s == t:
        return [source]
    path = (_bfs_pair_unique(G, s, t) if G.is_directed()
            else _bidirectional_undirected(G, s, t))
    if path is None:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return G.labels(path)


# --- weighted paths -----------------------------------------------------------------
def single_source_dijkstra(G, source, target=None, cutoff=None, weight="weight"):
    """``(distances, paths)`` from ``source`` (or ``(distance, path)`` to
    ``target``), as ``networkx.single_source_dijkstra``: distances from
    ``sssp``, paths NetworkX's (see the module docstring); negative weights
    make NetworkX run itself.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.Graph([(0, 1, {"weight": 2}), (1, 2, {"weight": 3}), (0, 2, {"weight": 9})])
    >>> single_source_dijkstra(from_networkx(G, {"weight": 1}), 0, 2)
    (5, [0, 1, 2])
    """
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if target is not None and target == source:
        return (0, [target])
    d, ids, parent, integral = _dijkstra(G, source, weight, cutoff)
    if target is None:
        return _dist_dict(G, d, ids, integral), _paths_from_parents(G, ids, parent)
    t = G.index.get(target) if target in G else None
    if t is None or np.isnan(d[t]):
        raise nx.NetworkXNoPath(f"No path to {target}.")
    path = [t]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    return (int(d[t]) if integral else float(d[t])), G.labels(path[::-1])


def single_source_dijkstra_path(G, source, cutoff=None, weight="weight"):
    """{node: path} from ``source``, as ``networkx.single_source_dijkstra_path``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> single_source_dijkstra_path(from_networkx(nx.path_graph(3), {"weight": 1}), 0)
    {0: [0], 1: [0, 1], 2: [0, 1, 2]}
    """
    return single_source_dijkstra(G, source, cutoff=cutoff, weight=weight)[1]


def dijkstra_path(G, source, target, weight="weight"):
    """The shortest weighted path, as ``networkx.dijkstra_path``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> dijkstra_path(from_networkx(nx.path_graph(3), {"weight": 1}), 2, 0)
    [2, 1, 0]
    """
    return single_source_dijkstra(G, source, target=target, weight=weight)[1]


def dijkstra_path_length(G, source, target, weight="weight"):
    """The shortest weighted distance, as ``networkx.dijkstra_path_length``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> dijkstra_path_length(from_networkx(nx.path_graph(3), {"weight": 1}), 2, 0)
    2
    """
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    W, integral = _weights(G, weight)
    d = _sssp_array(G, W, G.index[source])
    t = G.index.get(target) if target in G else None
    if t is None or np.isnan(d[t]):
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
    return int(d[t]) if integral else float(d[t])


def single_source_bellman_ford(G, source, target=None, weight="weight"):
    """``(distances, paths)`` from ``source`` (or ``(distance, path)`` to
    ``target``), as ``networkx.single_source_bellman_ford``: negative
    weights too (a reachable negative cycle raises ``NetworkXUnbounded``);
    tied paths make NetworkX run itself.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.DiGraph([(0, 1, {"weight": 4}), (1, 2, {"weight": -3}), (0, 2, {"weight": 2})])
    >>> single_source_bellman_ford(from_networkx(G, {"weight": 1}), 0, 2)
    (1, [0, 1, 2])
    """
    nx = _nx()
    if target is not None and source == target:
        if source not in G:
            raise nx.NodeNotFound(f"Node {source} is not found in the graph")
        return (0, [source])
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} not in G")
    d, ids, parent, integral = _dijkstra(G, source, weight, negative=True, target=target)
    if target is None:
        return _dist_dict(G, d, ids, integral), _paths_from_parents(G, ids, parent)
    t = G.index.get(target) if target in G else None
    if t is None or np.isnan(d[t]):
        raise nx.NetworkXNoPath(f"Target {target} cannot be reached from given sources")
    path = [t]
    while parent[path[-1]] >= 0:
        path.append(int(parent[path[-1]]))
    return (int(d[t]) if integral else float(d[t])), G.labels(path[::-1])


def single_source_bellman_ford_path(G, source, weight="weight"):
    """{node: path} from ``source``, as ``networkx.single_source_bellman_ford_path``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> single_source_bellman_ford_path(from_networkx(nx.path_graph(3), {"weight": 1}), 1)
    {1: [1], 0: [1, 0], 2: [1, 2]}
    """
    return single_source_bellman_ford(G, source, weight=weight)[1]


def bellman_ford_path(G, source, target, weight="weight"):
    """The shortest weighted path (negative weights too), as
    ``networkx.bellman_ford_path``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> bellman_ford_path(from_networkx(nx.path_graph(3), {"weight": 1}), 0, 2)
    [0, 1, 2]
    """
    return single_source_bellman_ford(G, source, target=target, weight=weight)[1]


def all_pairs_dijkstra_path(G, cutoff=None, weight="weight"):
    """Yield ``(node, {node: path})`` for every node, as
    ``networkx.all_pairs_dijkstra_path``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> dict(all_pairs_dijkstra_path(from_networkx(nx.path_graph(2), {"weight": 1})))
    {0: {0: [0], 1: [0, 1]}, 1: {1: [1], 0: [1, 0]}}
    """
    _weights(G, weight)  # negative weights: NotImplementedError now, not mid-iteration
    return ((n, single_source_dijkstra_path(G, n, cutoff=cutoff, weight=weight))
            for n in G.nodes)


def shortest_path(G, source=None, target=None, weight=None, method="dijkstra"):
    """Shortest paths, as ``networkx.shortest_path`` (every combination of
    source/target; unweighted through BFS, weighted through ``sssp``).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.path_graph(3), {"weight": 1})
    >>> shortest_path(BG, 0, 2), shortest_path(BG, target=0, weight="weight")
    ([0, 1, 2], {0: [0], 1: [1, 0], 2: [2, 1, 0]})
    """
    if method not in ("dijkstra", "bellman-ford"):
        raise ValueError(f"method not supported: {method}")
    method = "unweighted" if weight is None else method
    if source is None:
        if target is None:
            if method == "unweighted":
                return all_pairs_shortest_path(G)
            if method == "dijkstra":
                return all_pairs_dijkstra_path(G, weight=weight)
            # Bellman-Ford ties raise: every source now, so NetworkX can still run it
            return iter([(n, single_source_bellman_ford_path(G, n, weight=weight))
                         for n in G.nodes])
        # paths to target = reversed paths from target over the reversed graph
        if method == "unweighted":
            if target not in G:
                raise _nx().NodeNotFound(f"Source {target} not in G")
            if G.is_directed():
                return single_target_shortest_path(G, target)
            paths = single_source_shortest_path(G, target)
        else:
            if G.is_directed():  # NetworkX's order here is G.pred's
                return _reverse_weighted_paths(G, target, weight, method)
            if method == "dijkstra":
                paths = single_source_dijkstra_path(G, target, weight=weight)
            else:
                paths = single_source_bellman_ford_path(G, target, weight=weight)
        return {k: p[::-1] for k, p in paths.items()}
    if target is None:
        if method == "unweighted":
            return single_source_shortest_path(G, source)
        if method == "dijkstra":
            return single_source_dijkstra_path(G, source, weight=weight)
        return single_source_bellman_ford_path(G, source, weight=weight)
    if method == "unweighted":
        return bidirectional_shortest_path(G, source, target)
    if method == "dijkstra":
        return _bidirectional_dijkstra_path(G, source, target, weight)
    return bellman_ford_path(G, source, target, weight)


def _reverse_weighted_paths(G, target, weight, method):
    """{node: path to target} on a directed graph when these paths are
    unique (NetworkX's choice among tied ones follows ``G.pred``)."""
    nx = _nx()
    if target not in G:
        raise nx.NodeNotFound(f"Node {target} not found in graph" if method == "dijkstra"
                              else f"Source {target} not in G")
    W, _ = _weights(G, weight, negative=method == "bellman-ford")
    t = G.index[target]
    d = _sssp_array(G, W.T, t)
    d[t] = 0.0
    reached = ~np.isnan(d)
    src, dst = _adjacency_edges(G)
    w = _adjacency_weights(G, weight)
    # next hop of u: an edge u -> v with d(u) = w + d(v)
    tight = reached[src] & reached[dst] & (w + d[dst] == d[src])
    nexthop = _unique_parents(len(G), dst, src, tight, [t])
    order = np.flatnonzero(reached)
    order = order[np.argsort(d[order], kind="stable")]
    return _paths_from_parents(G, order, nexthop, reverse=True)


def _bidirectional_dijkstra_path(G, source, target, weight):
    """``networkx.bidirectional_dijkstra``'s path when the shortest path is
    unique (its choice among tied ones depends on its two heaps), with its
    errors."""
    nx = _nx()
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    if target not in G:
        raise nx.NodeNotFound(f"Target {target} is not in G")
    if source == target:
        return [source]
    W, _ = _weights(G, weight)
    s, t = G.index[source], G.index[target]
    ds = _sssp_array(G, W, s)
    if np.isnan(ds[t]):
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    dt = _sssp_array(G, W.T if G.is_directed() else W, t)
    src, dst = _adjacency_edges(G)
    w = _adjacency_weights(G, weight)
    # tight edges on some shortest s-t path
    on = (ds[src] + w + dt[dst] == ds[t]) & (ds[src] + w == ds[dst])
    counts = np.bincount(dst[on], minlength=len(G))
    if counts.max(initial=0) > 1 or np.any(np.bincount(src[on], minlength=len(G)) > 1):
        raise _Tie("bitgraph: tied shortest paths; NetworkX's bidirectional_dijkstra "
                   "picks one by its heap order")
    nexthop = np.full(len(G), -1, dtype=np.int64)
    nexthop[src[on]] = dst[on]
    path = [s]
    while path[-1] != t:
        path.append(int(nexthop[path[-1]]))
    return G.labels(path)


# --- registration tables ------------------------------------------------------------
FUNCTIONS = {f.__name__: f for f in (
    has_path, ancestors, descendants, is_weakly_connected, bfs_predecessors, bfs_successors,
    generic_bfs_edges, shortest_path, single_source_shortest_path,
    single_target_shortest_path, all_pairs_shortest_path, bidirectional_shortest_path,
    dijkstra_path, single_source_dijkstra_path, single_source_dijkstra, dijkstra_path_length,
    all_pairs_dijkstra_path, bellman_ford_path, single_source_bellman_ford_path,
    single_source_bellman_ford,
)}

_TIES = " Tied paths: NetworkX's path."
_NOTES = {
    "has_path": ("shortest_paths.generic", "One BFS (bitgraph.algorithms.bfs) from source."),
    "ancestors": ("dag", "One BFS over the transposed adjacency (bitgraph.algorithms.bfs)."),
    "descendants": ("dag", "One BFS (bitgraph.algorithms.bfs) from source."),
    "is_weakly_connected": ("components",
                            "Afforest union-find ignoring edge directions."),
    "bfs_predecessors": ("traversal.breadth_first_search",
                         "From bfs_edges (NetworkX's order); sort_neighbors falls back."),
    "bfs_successors": ("traversal.breadth_first_search",
                       "From bfs_edges (NetworkX's order); sort_neighbors falls back."),
    "generic_bfs_edges": ("traversal.breadth_first_search",
                          "bfs_edges (NetworkX's order); a neighbors callable falls back."),
    "shortest_path": ("shortest_paths.generic",
                      "BFS parents (unweighted) or sssp distances and their tight edges "
                      "(weighted)." + _TIES + " Where NetworkX's choice follows G.pred, its "
                      "two-heap bidirectional Dijkstra or Bellman-Ford's queue, tied paths "
                      "fall back to NetworkX."),
    "single_source_shortest_path": ("shortest_paths.unweighted",
                                    "Level-synchronous BFS in NetworkX's neighbour order; "
                                    "cutoff supported." + _TIES),
    "single_target_shortest_path": ("shortest_paths.unweighted",
                                    "BFS to target; directed graphs with tied paths fall "
                                    "back (NetworkX's choice follows G.pred)."),
    "all_pairs_shortest_path": ("shortest_paths.unweighted",
                                "single_source_shortest_path from every node." + _TIES),
    "bidirectional_shortest_path": ("shortest_paths.unweighted",
                                    "Undirected: NetworkX's two-sided BFS level by level in "
                                    "numpy. Directed: two BFS; tied paths fall back."),
    "dijkstra_path": ("shortest_paths.weighted",
                      "bitgraph.algorithms.sssp, then NetworkX's heap order over the tight "
                      "edges." + _TIES + " Negative weights fall back."),
    "single_source_dijkstra_path": ("shortest_paths.weighted",
                                    "bitgraph.algorithms.sssp, then NetworkX's heap order "
                                    "over the tight edges." + _TIES),
    "single_source_dijkstra": ("shortest_paths.weighted",
                               "bitgraph.algorithms.sssp, then NetworkX's heap order over "
                               "the tight edges." + _TIES),
    "dijkstra_path_length": ("shortest_paths.weighted",
                             "bitgraph.algorithms.sssp from source; negative weights fall back."),
    "all_pairs_dijkstra_path": ("shortest_paths.weighted",
                                "single_source_dijkstra_path from every node." + _TIES),
    "bellman_ford_path": ("shortest_paths.weighted",
                          "bitgraph.algorithms.sssp (negative weights too); tied paths fall "
                          "back (NetworkX's choice follows its queue order)."),
    "single_source_bellman_ford_path": ("shortest_paths.weighted",
                                        "bitgraph.algorithms.sssp (negative weights too); "
                                        "tied paths fall back."),
    "single_source_bellman_ford": ("shortest_paths.weighted",
                                   "bitgraph.algorithms.sssp (negative weights too); tied "
                                   "paths fall back."),
}
INFO = {
    name: {"url": f"{_URL}{mod}.{name}.html", "note": note, "extra_parameters": {}}
    for name, (mod, note) in _NOTES.items()
}


def _refuse(func, *checks):
    """A CAN_RUN entry: the first failing check's reason, else True.
    ``checks``: (predicate on the bound arguments, reason)."""
    sig = inspect.signature(func)

    def can_run(args, kwargs):
        b = sig.bind(*args, **kwargs)
        b.apply_defaults()
        for pred, reason in checks:
            if pred(b.arguments):
                return reason
        return True

    return can_run


_CALLABLE_WEIGHT = (lambda a: callable(a["weight"]), "a callable weight is not supported")
_SORT = (lambda a: a["sort_neighbors"] is not None,
         "sort_neighbors is not supported (NetworkX runs it)")
CAN_RUN = {
    "bfs_predecessors": _refuse(bfs_predecessors, _SORT),
    "bfs_successors": _refuse(bfs_successors, _SORT),
    "generic_bfs_edges": _refuse(generic_bfs_edges, (lambda a: a["neighbors"] is not None,
                                                     "a neighbors callable is not supported")),
    **{f.__name__: _refuse(f, _CALLABLE_WEIGHT) for f in (
        shortest_path, dijkstra_path, single_source_dijkstra_path, single_source_dijkstra,
        dijkstra_path_length, all_pairs_dijkstra_path, bellman_ford_path,
        single_source_bellman_ford_path, single_source_bellman_ford)},
}
