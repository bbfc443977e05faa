"""NetworkX backend functions for graph structure: reciprocity, isolates,
complement and reverse, k-cores and k-truss, link prediction (Jaccard,
resource allocation, Adamic-Adar, preferential attachment), trees and
forests, regularity, self-loops, Eulerian graphs, bipartiteness, walk
counts, the s-metric and rich-club coefficients, acyclicity, average degree
connectivity and average neighbour degree.

Each function has the name, signature, errors and return values of the
NetworkX function of that name and takes a
:class:`bitgraph.nx.graph.BitGraph` as ``G``. The counting is GraphBLAS
operations over the whole graph: ``A .* A'`` for reciprocity, peeling
rounds ``deg -= removed' B`` for k-cores and acyclicity (a push along the
removed rows, one ``vxm`` when they are many), ``C<C> = C plus.pair C``
for k-truss, products masked by the asked pairs for link prediction,
``mxv`` for degree connectivity, ``mxm`` powers for walks.

Functions that return a graph return a NetworkX graph (as ``bfs_tree``
does) with each node's neighbours in node-position order. It carries no
node or edge attributes (the k-core family and k-truss keep G's graph
attributes, as NetworkX's copies do), so ``CAN_RUN`` leaves graphs with
such attributes to NetworkX where NetworkX would copy them.

Devices: the matrix operations run on the host, on ``G.cpu_matrix``; the
components behind the tree, forest and Eulerian tests are labelled where
``G.matrix`` is.

>>> import networkx as nx
>>> from bitgraph.nx.convert import from_networkx
>>> BG = from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]))
>>> core_number(BG)
{0: 2, 1: 2, 2: 2, 3: 1}
>>> sorted(k_core(BG).nodes), list(isolates(BG))
([0, 1, 2], [])
"""

from __future__ import annotations

import numpy as np

from .centrality import _degrees, _out_in_degrees, _self_loops
from .graph import BitGraph
from .measures import _MULTI, _contains, _hashable, _nbunch, _not_implemented_for, _refuse

__all__ = [
    "reciprocity", "overall_reciprocity", "isolates", "is_isolate", "number_of_isolates",
    "complement", "reverse", "core_number", "k_core", "k_shell", "k_crust", "k_corona",
    "onion_layers", "k_truss",
    "jaccard_coefficient", "resource_allocation_index", "adamic_adar_index",
    "preferential_attachment", "is_directed_acyclic_graph", "average_degree_connectivity",
    "average_neighbor_degree", "is_tree", "is_forest", "is_arborescence", "is_branching",
    "is_regular", "is_k_regular", "number_of_selfloops", "is_empty", "is_eulerian",
    "number_of_walks", "s_metric", "rich_club_coefficient", "is_bipartite",
    "FUNCTIONS", "INFO", "CAN_RUN",
]


def _nx():
    import networkx as nx

    return nx


def _csr(G):
    """(indptr, cols) of ``G.cpu_matrix`` as int64 host arrays."""
    A = G.cpu_matrix
    return np.asarray(A.indptr, np.int64), np.asarray(A.indices, np.int64)


def _graph_from_csr(n, indptr, cols, nodes, directed, graph=None):
    """The NetworkX graph (``Graph`` or ``DiGraph``) of sorted CSR arrays
    over ``nodes``, as ``bfs_tree`` returns one: no node or edge attributes,
    ``graph`` its graph attributes, each node's neighbours in CSR order
    (built through a :class:`BitGraph` and :func:`.convert.to_networkx`)."""
    from .convert import to_networkx

    import bitgraph as bg

    idt = np.int32 if max(n, cols.size) < 2**31 - 1 else np.int64
    M = bg.Matrix.from_csr(indptr.astype(idt), cols.astype(idt), None, ncols=n, check=False,
                           device="cpu")
    return to_networkx(BitGraph(M, nodes, directed=directed, graph=graph, adj_indptr=indptr,
                                adj_indices=cols))


# --- reciprocity ----------------------------------------------------------------------

def _mutual_counts(G):
    """Per vertex: the number of j with both i -> j and j -> i (a
    self-loop counts, as in NetworkX's pred & succ): row counts of A .* A'."""
    import bitgraph as bg

    A = G.cpu_matrix
    C = bg.ewise_mult(A, A.T, "pair")
    return np.diff(np.asarray(C.indptr, np.int64)), C


def reciprocity(G, nodes=None):
    """``networkx.reciprocity`` (directed graphs): the whole graph's when
    ``nodes`` is None, one node's (``NetworkXError`` for an isolated one),
    or a dict over ``nodes`` (None for isolated nodes).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.DiGraph([(0, 1), (1, 0), (1, 2)]))
    >>> reciprocity(BG), reciprocity(BG, 1), reciprocity(BG, [0, 2])
    (0.6666666666666666, 0.6666666666666666, {0: 1.0, 2: 0.0})
    """
    nx = _nx()
    if not G.is_directed() and nodes is not None:
        # NetworkX asks an undirected graph for predecessors (AttributeError)
        raise NotImplementedError("bitgraph reciprocity: nodes of an undirected graph")
    if nodes is None:
        return overall_reciprocity(G)
    mutual, _ = _mutual_counts(G)
    out_deg, in_deg = _out_in_degrees(G)
    total = out_deg + in_deg

    def value(i):
        # 2 |pred & succ| / (|pred| + |succ|), None for an isolated node
        return None if total[i] == 0 else 2 * int(mutual[i]) / int(total[i])

    if _contains(G, nodes):
        r = value(G.index[nodes])
        if r is None:
            raise nx.NetworkXError("Not defined for isolated nodes.")
        return r
    ids = _nbunch(G, nodes)
    return dict(zip(G.labels(ids), (value(i) for i in ids)))


def overall_reciprocity(G):
    """``networkx.overall_reciprocity``: the share of edges whose reverse is
    an edge too (self-loops count as edges, never as reciprocated; 0.0 for
    an undirected graph, as NetworkX's count gives); ``NetworkXError`` on a
    graph without edges.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> overall_reciprocity(from_networkx(nx.DiGraph([(0, 1), (1, 0), (1, 2), (2, 2)])))
    0.5
    """
    nx = _nx()
    n_all = G.number_of_edges()
    if not G.is_directed():
        if n_all == 0:
            raise nx.NetworkXError("Not defined for empty graphs")
        return 0 / n_all
    _, C = _mutual_counts(G)
    indptr, cols = np.asarray(C.indptr, np.int64), np.asarray(C.indices, np.int64)
    rows = np.repeat(np.arange(indptr.size - 1, dtype=np.int64), np.diff(indptr))
    n_overlap = int(np.count_nonzero(rows != cols))
    if n_all == 0:
        raise nx.NetworkXError("Not defined for empty graphs")
    return n_overlap / n_all


# --- isolates -------------------------------------------------------------------------

def _isolated(G) -> np.ndarray:
    out_deg, in_deg = _out_in_degrees(G)
    return (out_deg == 0) & (in_deg == 0)


def isolates(G):
    """``networkx.isolates``: a generator of the nodes without edges (a
    self-loop is an edge), in G's order.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.Graph([(1, 2)]); G.add_nodes_from([0, 3])
    >>> list(isolates(from_networkx(G)))
    [0, 3]
    """
    return (v for v in G.labels(np.flatnonzero(_isolated(G))))


def number_of_isolates(G):
    """``networkx.number_of_isolates``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> number_of_isolates(from_networkx(nx.empty_graph(4)))
    4
    """
    return int(np.count_nonzero(_isolated(G)))


def is_isolate(G, n):
    """``networkx.is_isolate``: True when ``n`` has no edges; for an ``n``
    not in G, NetworkX's answer to ``G.degree(n) == 0`` (``NetworkXError``
    for a non-iterable one, else False).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.Graph([(1, 2), (3, 3)]))
    >>> is_isolate(BG, 1), is_isolate(BG, 3)
    (False, False)
    """
    if _contains(G, n):
        i = G.index[n]
        out_deg, in_deg = _out_in_degrees(G)
        return bool(out_deg[i] == 0 and in_deg[i] == 0)
    _nbunch(G, n)  # NetworkX's nbunch errors; a degree view otherwise, never == 0
    return False


# --- complement and reverse ------------------------------------------------------------

def complement(G):
    """``networkx.complement``: the graph on G's nodes with an edge u -> v
    (u != v) exactly where G has none; a NetworkX graph, without G's
    attributes as NetworkX's.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> sorted(complement(from_networkx(nx.path_graph(3))).edges())
    [(0, 2)]
    """
    n = len(G)
    indptr, cols = _csr(G)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    # dense n x n flags: the complement has n (n - 1) - m entries, so it is
    # never smaller than this
    keep = np.ones((n, n), dtype=bool)
    keep[rows, cols] = False
    np.fill_diagonal(keep, False)
    counts = keep.sum(axis=1, dtype=np.int64)
    new_indptr = np.zeros(n + 1, np.int64)
    np.cumsum(counts, out=new_indptr[1:])
    new_cols = np.nonzero(keep)[1].astype(np.int64)
    return _graph_from_csr(n, new_indptr, new_cols, G.nodes, G.is_directed())


def reverse(G, copy=True):
    """``networkx.reverse`` (directed graphs; ``NetworkXError`` otherwise):
    the graph with every edge turned around, as a NetworkX graph
    (``copy=False``, a view, is left to NetworkX). Successors come in
    NetworkX's order; predecessors by node position (NetworkX's follow G's
    adjacency order).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(reverse(from_networkx(nx.DiGraph([("a", "b")]))).edges())
    [('b', 'a')]
    """
    nx = _nx()
    if not G.is_directed():
        raise nx.NetworkXError("Cannot reverse an undirected graph.")
    if not copy:
        raise NotImplementedError("bitgraph reverse: copy=False (a view) is NetworkX's")
    import bitgraph as bg

    T = bg.transpose(G.cpu_matrix)
    indptr, cols = np.asarray(T.indptr, np.int64), np.asarray(T.indices, np.int64)
    return _graph_from_csr(len(G), indptr, cols, G.nodes, True)


# --- cores ------------------------------------------------------------------------------

def _peel(M, frontier, deg):
    """``deg -= frontier' M`` in place (plus.times, the frontier's values
    all 1, ``M`` an int64 CPU matrix); returns the vertex ids whose degree
    changed (sorted, distinct).

    A wide frontier is one ``vxm``; a narrow one is pushed along its rows in
    numpy (O(its edges), no length-n vectors), row by row when it has a few
    rows (each row's columns are distinct, so one fancy-index update each).
    The switch at 1/64 of the vertices, measured on a 100k-vertex, 2M-entry
    graph: 100 frontier vertices 79 us pushed vs 307 us by vxm, 10k
    vertices 11.7 ms vs 7.9 ms."""
    import bitgraph as bg

    from bitgraph._array import unique

    n = M.nrows
    indptr, cols, vals = M.indptr, M.indices, M.values
    if frontier.size <= 8:  # a few rows: a chain's rounds
        touched = []
        for i in frontier.tolist():
            a, b = int(indptr[i]), int(indptr[i + 1])
            c = np.asarray(cols[a:b], np.int64)
            deg[c] -= vals[a:b]
            touched.append(c)
        if not touched:
            return np.zeros(0, np.int64)
        return touched[0] if len(touched) == 1 else unique(np.concatenate(touched))
    if frontier.size * 64 < n:  # under ~1.5% of the vertices: push
        indptr = np.asarray(indptr, np.int64)
        starts = indptr[frontier]
        counts = indptr[frontier + 1] - starts
        total = int(counts.sum())
        if total == 0:
            return np.zeros(0, np.int64)
        # positions of the frontier rows' entries in the CSR arrays
        first = np.cumsum(counts) - counts
        pos = np.repeat(starts - first, counts) + np.arange(total, dtype=np.int64)
        targets = np.asarray(cols, np.int64)[pos]
        order = np.argsort(targets, kind="stable")
        targets = targets[order]
        cut = np.flatnonzero(np.r_[True, targets[1:] != targets[:-1]])
        ids = targets[cut]
        deg[ids] -= np.add.reduceat(np.asarray(vals, np.int64)[pos][order], cut)
        return ids
    u = bg.Vector.from_coo(frontier, np.ones(frontier.size, np.int64), size=n)
    ids, drop = bg.vxm(u, M, bg.PLUS_TIMES).to_coo()
    ids = np.asarray(ids, np.int64)
    deg[ids] -= np.asarray(drop, np.int64)
    return ids


def _core_numbers(G, layers=False):
    """Core number per vertex id (and, with ``layers``, the onion layer:
    the 1-based round that removed it), by peeling (LAGraph's k-core): with
    B the neighbour counts (undirected A; directed A + A', 2 where both
    directions are edges, as NetworkX's ``all_neighbors`` lists such a
    neighbour twice), remove every vertex of remaining degree <= k,
    subtract ``removed' B`` from the degrees, repeat; k rises to the
    smallest remaining degree when nothing is left to remove."""
    from .measures import _offdiag_counts

    nx = _nx()
    if _self_loops(G).any():
        what = "contains" if layers else "has"  # onion_layers' words / core_number's
        raise nx.NetworkXNotImplemented(
            f"Input graph {what} self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    n = len(G)
    B = _offdiag_counts(G, symmetrise=G.is_directed())
    deg = _degrees(G).astype(np.int64)
    core = np.zeros(n, np.int64)
    layer = np.zeros(n, np.int64)
    removed_at = np.zeros(n, np.int64)  # the degree a vertex had when removed
    alive = np.ones(n, bool)
    left = n
    k = 0
    rounds = 0
    frontier = np.flatnonzero(deg <= k)
    while left:
        if frontier.size == 0:
            k = int(deg[alive].min())
            frontier = np.flatnonzero(alive & (deg <= k))
        rounds += 1
        core[frontier] = k
        layer[frontier] = rounds
        removed_at[frontier] = deg[frontier]
        alive[frontier] = False
        left -= frontier.size
        # deg <- deg - removed' B (only the removed vertices' neighbours change)
        ids = _peel(B, frontier, deg)
        cand = ids[alive[ids]]
        frontier = cand[deg[cand] <= k]
    return (core, layer, removed_at) if layers else core


def core_number(G):
    """``networkx.core_number``: the largest k such that the node is in the
    k-core (directed graphs: degree = in + out); ``NetworkXNotImplemented``
    for a graph with self-loops.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> core_number(from_networkx(nx.complete_graph(4)))
    {0: 3, 1: 3, 2: 3, 3: 3}
    """
    return dict(zip(G.nodes, _core_numbers(G).tolist()))


def _core_subgraph(G, keep_filter, k, core, with_node=False):
    """NetworkX's ``G.subgraph(v for v in core if keep(v)).copy()`` as a
    NetworkX graph: nodes in the order NetworkX's subgraph view lists
    them (the kept set's own order when it is under half of G, else G's),
    edges those of G among them."""
    if core is None:
        core = dict(zip(G.nodes, _core_numbers(G).tolist()))
    if k is None:
        k = max(core.values())
    if with_node:
        kept = [v for v in core if keep_filter(core[v], k, v)]
    else:
        kept = [v for v in core if keep_filter(core[v], k)]
    # G.subgraph: the set of nbunch_iter(kept) (nodes of G only)
    node_set = set(v for v in kept if _hashable(v) and v in G.index)
    n = len(G)
    if 2 * len(node_set) < n:
        nodes = list(node_set)
    else:
        nodes = [v for v in G.nodes if v in node_set]
    return _induced(G, nodes)


def _induced(G, nodes):
    import bitgraph as bg

    ids = np.fromiter((G.index[v] for v in nodes), np.int64, count=len(nodes))
    S = bg.extract(G.cpu_matrix, ids, ids)
    indptr, cols = np.asarray(S.indptr, np.int64), np.asarray(S.indices, np.int64)
    # G.subgraph(...).copy() keeps G's graph attributes (a shallow copy)
    return _graph_from_csr(len(nodes), indptr, cols, nodes, G.is_directed(),
                           graph=dict(G.graph))


def k_core(G, k=None, core_number=None):
    """``networkx.k_core``: the subgraph of nodes with core number >= k
    (default: the largest), as a NetworkX graph; ``core_number`` (a
    dict) is used instead of computing one when given.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> sorted(k_core(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])), 2).nodes)
    [0, 1, 2]
    """
    return _core_subgraph(G, lambda c, k: c >= k, k, core_number)


def k_shell(G, k=None, core_number=None):
    """``networkx.k_shell``: the subgraph of nodes with core number exactly k
    (default: the largest), as a NetworkX graph.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> sorted(k_shell(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])), 1).nodes)
    [3]
    """
    return _core_subgraph(G, lambda c, k: c == k, k, core_number)


def k_crust(G, k=None, core_number=None):
    """``networkx.k_crust``: the subgraph of nodes with core number <= k
    (default: the largest minus one), as a NetworkX graph.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> sorted(k_crust(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)]))).nodes)
    [3]
    """
    if core_number is None:
        core_number = dict(zip(G.nodes, _core_numbers(G).tolist()))
    if k is None:
        k = max(core_number.values()) - 1
    return _core_subgraph(G, lambda c, k: c <= k, k, core_number)


def k_corona(G, k, core_number=None):
    """``networkx.k_corona``: the subgraph of nodes with core number k and
    exactly k neighbours of core number >= k, as a NetworkX graph
    (the neighbour counts: one ``mxv`` of A with the core >= k indicator).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> sorted(k_corona(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])), 2).nodes)
    [0, 1, 2]
    """
    import bitgraph as bg

    if core_number is None:
        core_number = dict(zip(G.nodes, _core_numbers(G).tolist()))
    # NetworkX reads c[w] for every neighbour w: a neighbour missing from a
    # given core_number is its KeyError
    if len(core_number) != len(G) or not all(_hashable(v) and v in G.index
                                             for v in core_number):
        raise NotImplementedError("bitgraph k_corona: core_number must have G's nodes")
    c = np.empty(len(G), np.float64)
    c[[G.index[v] for v in core_number]] = list(core_number.values())
    # high(v) = |{w in G[v] : c[w] >= k}| = A plus.second [c >= k]
    u = bg.Vector.from_dense((c >= k).astype(np.int64))
    high = np.asarray(bg.mxv(G.cpu_matrix, u, bg.PLUS_SECOND).to_dense(0), np.int64)
    high_of = dict(zip(G.nodes, high.tolist()))
    return _core_subgraph(G, lambda cv, k, v: cv == k and k == high_of[v], k, core_number,
                          with_node=True)


def onion_layers(G):
    """``networkx.onion_layers`` (undirected graphs): each node's layer in
    the onion decomposition, the round of the k-core peeling that removes it
    (isolated nodes first, when there are any); ``NetworkXNotImplemented``
    for a graph with self-loops. Keys in NetworkX's order: by layer, in a
    layer by the degree left when it was removed, then in G's order.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> onion_layers(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])))
    {3: 1, 0: 2, 1: 2, 2: 2}
    """
    _not_implemented_for(G, "directed")
    _, layer, removed_at = _core_numbers(G, layers=True)
    order = np.lexsort((np.arange(len(G)), removed_at, layer))
    return dict(zip(G.labels(order), layer[order].tolist()))


def k_truss(G, k):
    """``networkx.k_truss`` (undirected graphs): the largest subgraph whose
    every edge is in at least k - 2 of its triangles, without isolated
    nodes, as a NetworkX graph; ``NetworkXNotImplemented`` for a graph
    with self-loops. LAGraph's k-truss: C = A, then C = select(C plus.pair
    C masked by C, >= k - 2) until C stops shrinking.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> sorted(k_truss(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])), 3).nodes)
    [0, 1, 2]
    """
    import bitgraph as bg

    nx = _nx()
    _not_implemented_for(G, "directed")
    if _self_loops(G).any():
        raise nx.NetworkXNotImplemented(
            "Input graph has self loops which is not permitted; "
            "Consider using G.remove_edges_from(nx.selfloop_edges(G)).")
    C = G.cpu_matrix
    if k - 2 > 0:  # otherwise every edge stays (a support >= 0)
        while True:
            # S<C> = C plus.pair C: each edge's triangles; keep support >= k - 2
            S = bg.mxm(C, C, bg.PLUS_PAIR, mask=C.S)
            C2 = bg.select(S, "valuege", k - 2)
            if C2.nvals == C.nvals:
                break
            C = C2
    indptr = np.asarray(C.indptr, np.int64)
    ids = np.flatnonzero(np.diff(indptr))  # the nodes left with an edge, in G's order
    nodes = G.labels(ids)
    S = bg.extract(C, ids, ids)
    return _graph_from_csr(len(nodes), np.asarray(S.indptr, np.int64),
                           np.asarray(S.indices, np.int64), nodes, False, graph=dict(G.graph))


# --- link prediction ----------------------------------------------------------------------

def _non_edges(G):
    """NetworkX's ``non_edges`` order for an undirected graph: pop a node
    from the set of all nodes, pair it with the rest of the set minus its
    neighbours (the same set operations, so the same order)."""
    indptr, cols = _csr(G)
    labels = G.nodes
    nodes = set(labels)
    out = []
    while nodes:
        u = nodes.pop()
        i = G.index[u]
        nbrs = set(G.labels(cols[indptr[i]:indptr[i + 1]]))
        out.extend((u, v) for v in nodes - nbrs)
    return out


def _pairs(G, ebunch):
    """NetworkX's ``_apply_prediction`` pairs: all non-edges in its order
    (``ebunch`` None), else ``ebunch`` after checking every node
    (``NodeNotFound``); returns (pairs, us, vs) with the vertex ids."""
    nx = _nx()
    _not_implemented_for(G, "directed")
    if ebunch is None:
        pairs = _non_edges(G)
    else:
        for u, v in ebunch:
            if not _contains(G, u):
                raise nx.NodeNotFound(f"Node {u} not in G.")
            if not _contains(G, v):
                raise nx.NodeNotFound(f"Node {v} not in G.")
        pairs = list(ebunch)  # NetworkX iterates ebunch a second time, as here
    index = G.index
    us = np.fromiter((index[u] for u, _ in pairs), np.int64, count=len(pairs))
    vs = np.fromiter((index[v] for _, v in pairs), np.int64, count=len(pairs))
    return pairs, us, vs


def _at_pairs(C, us, vs, dtype):
    """C's values at (us[k], vs[k]), 0 where C has no entry."""
    n = C.nrows
    rows, cols, vals = C.to_coo()
    out = np.zeros(us.size, dtype)
    if len(cols):
        keys = np.asarray(rows, np.int64) * n + np.asarray(cols, np.int64)  # sorted
        q = us * n + vs
        pos = np.minimum(np.searchsorted(keys, q), keys.size - 1)
        out = np.where(keys[pos] == q, np.asarray(vals, dtype)[pos], out)
    return out


def _common(G, us, vs, f=None):
    """Over NetworkX's common neighbours of each pair, N(u) & N(v) - {u, v}:
    their number (``f`` None) or the sum of ``f`` (a float per vertex).

    One product masked by the pairs asked: C<P> = A0 plus.pair A0, or
    (A0 with column w scaled by f(w)) plus.times A0, where A0 is A without
    its diagonal, which drops u and v themselves from the common ones."""
    import bitgraph as bg

    from .measures import _offdiag_counts

    n = len(G)
    A0 = _offdiag_counts(G, symmetrise=False)  # int64 ones
    P = bg.Matrix.from_coo(us, vs, None, nrows=n, ncols=n)
    if f is None:
        return _at_pairs(bg.mxm(A0, A0, bg.PLUS_PAIR, mask=P.S), us, vs, np.int64)
    Af = bg.Matrix.from_csr(A0.indptr, A0.indices, np.asarray(f, np.float64)[A0.indices],
                            ncols=n, check=False, device="cpu")
    return _at_pairs(bg.mxm(Af, A0, bg.PLUS_TIMES, mask=P.S), us, vs, np.float64)


def jaccard_coefficient(G, ebunch=None):
    """``networkx.jaccard_coefficient`` (undirected graphs): a generator of
    (u, v, |N(u) & N(v) - {u, v}| / |N(u) | N(v)|) over ``ebunch`` (all
    non-edges, in NetworkX's order, by default); 0 where the union is
    empty; ``NodeNotFound`` for a pair with a node not in G.

    The common neighbours of all pairs come from one masked product
    ``A plus.pair A`` (the mask: the pairs asked).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(jaccard_coefficient(from_networkx(nx.complete_graph(5)), [(0, 1), (2, 3)]))
    [(0, 1, 0.6), (2, 3, 0.6)]
    """
    import bitgraph as bg

    pairs, us, vs = _pairs(G, ebunch)
    if not pairs:
        return (p for p in ())
    n = len(G)
    A = G.cpu_matrix
    # |N(u) | N(v)| = deg(u) + deg(v) - |N(u) & N(v)| with the full sets
    # (set(G[u]) holds u itself when it has a self-loop)
    P = bg.Matrix.from_coo(us, vs, None, nrows=n, ncols=n)
    both = _at_pairs(bg.mxm(A, A, bg.PLUS_PAIR, mask=P.S), us, vs, np.int64)
    deg = np.diff(np.asarray(A.indptr, np.int64))
    union = np.where(us == vs, deg[us], deg[us] + deg[vs] - both)
    common = _common(G, us, vs)
    values = [0 if un == 0 else c / un for c, un in zip(common.tolist(), union.tolist())]
    return ((u, v, p) for (u, v), p in zip(pairs, values))


def _sums_or_zero(pairs, counts, sums, fail=None):
    """NetworkX's ``sum(...)`` per pair as a generator: the int 0 over no
    common neighbour, else the float sum; ``fail[k]`` raises NetworkX's
    ZeroDivisionError when the generator reaches pair k."""
    for k, ((u, v), c, x) in enumerate(zip(pairs, counts.tolist(), sums.tolist())):
        if fail is not None and fail[k]:
            raise ZeroDivisionError("float division by zero")
        yield (u, v, 0 if c == 0 else x)


def resource_allocation_index(G, ebunch=None):
    """``networkx.resource_allocation_index`` (undirected graphs): a
    generator of (u, v, sum of 1 / degree(w) over the common neighbours w),
    the sums from one masked ``plus.times`` product (see :func:`_common`).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(resource_allocation_index(from_networkx(nx.complete_graph(5)), [(0, 1)]))
    [(0, 1, 0.75)]
    """
    from .centrality import _degrees

    pairs, us, vs = _pairs(G, ebunch)
    if not pairs:
        return (p for p in ())
    deg = _degrees(G).astype(np.float64)
    with np.errstate(divide="ignore"):
        f = 1.0 / deg
    f[deg == 0] = 0.0  # never a common neighbour
    return _sums_or_zero(pairs, _common(G, us, vs), _common(G, us, vs, f))


def adamic_adar_index(G, ebunch=None):
    """``networkx.adamic_adar_index`` (undirected graphs): a generator of
    (u, v, sum of 1 / log(degree(w)) over the common neighbours w); a
    common neighbour of degree 1 (only for u == v) raises NetworkX's
    ``ZeroDivisionError`` when the generator reaches its pair.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> [round(p, 4) for *_, p in adamic_adar_index(from_networkx(nx.complete_graph(5)), [(0, 1)])]
    [2.164]
    """
    from .centrality import _degrees

    pairs, us, vs = _pairs(G, ebunch)
    if not pairs:
        return (p for p in ())
    deg = _degrees(G)
    f = np.zeros(len(G), np.float64)
    ok = deg > 1
    f[ok] = 1.0 / np.log(deg[ok].astype(np.float64))
    fail = _common(G, us, vs, (deg == 1).astype(np.float64)) > 0
    return _sums_or_zero(pairs, _common(G, us, vs), _common(G, us, vs, f),
                         fail if fail.any() else None)


def preferential_attachment(G, ebunch=None):
    """``networkx.preferential_attachment`` (undirected graphs): a generator
    of (u, v, degree(u) * degree(v)).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(preferential_attachment(from_networkx(nx.complete_graph(5)), [(0, 1)]))
    [(0, 1, 16)]
    """
    from .centrality import _degrees

    pairs, us, vs = _pairs(G, ebunch)
    if not pairs:
        return (p for p in ())
    deg = _degrees(G)
    return ((u, v, p) for (u, v), p in zip(pairs, (deg[us] * deg[vs]).tolist()))


# --- acyclicity -----------------------------------------------------------------------------

def is_directed_acyclic_graph(G):
    """``networkx.is_directed_acyclic_graph``: a directed graph whose
    vertices can all be peeled by in-degree 0 (Kahn: in-degrees minus
    ``removed' A`` a round).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_directed_acyclic_graph(from_networkx(nx.DiGraph([(0, 1), (1, 2)])))
    True
    """
    if not G.is_directed():
        return False
    from .measures import _offdiag_counts

    n = len(G)
    if _self_loops(G).any():
        return False
    A = _offdiag_counts(G, symmetrise=False)  # int64 ones, as _peel takes
    _, indeg = _out_in_degrees(G)
    indeg = indeg.astype(np.int64)
    frontier = np.flatnonzero(indeg == 0)
    left = n
    while frontier.size:
        left -= frontier.size
        # indeg <- indeg - removed' A
        ids = _peel(A, frontier, indeg)
        frontier = ids[indeg[ids] == 0]
    return left == 0


# --- trees and forests ----------------------------------------------------------------------

def _forest_parts(G):
    """(labels, sizes, edges): each vertex's (weakly) connected component
    label (Afforest) and, per label, its node and NetworkX edge counts (an
    undirected edge once, a self-loop once)."""
    from .measures import _cc_labels

    labels = np.asarray(_cc_labels(G), np.int64)
    n = labels.size
    indptr, cols = _csr(G)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    if G.is_directed():
        weight = np.ones(rows.size)
    else:  # each direction half an edge, a self-loop a whole one
        weight = np.where(rows == cols, 1.0, 0.5)
    sizes = np.bincount(labels, minlength=n)
    edges = np.bincount(labels[rows], weights=weight, minlength=n)
    return labels, sizes, edges


def is_tree(G):
    """``networkx.is_tree``: n - 1 edges and (weakly) connected;
    ``NetworkXPointlessConcept`` on the null graph.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_tree(from_networkx(nx.path_graph(4))), is_tree(from_networkx(nx.cycle_graph(4)))
    (True, False)
    """
    nx = _nx()
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    if len(G) - 1 != G.number_of_edges():
        return False
    labels = _forest_parts(G)[0]
    return bool(np.all(labels == labels[0]))


def is_forest(G):
    """``networkx.is_forest``: every (weakly) connected component has one
    edge fewer than nodes; ``NetworkXPointlessConcept`` on the null graph.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_forest(from_networkx(nx.Graph([(0, 1), (2, 3)])))
    True
    """
    nx = _nx()
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("G has no nodes.")
    _, sizes, edges = _forest_parts(G)
    roots = sizes > 0
    return bool(np.all(sizes[roots] - 1 == edges[roots]))


def is_arborescence(G):
    """``networkx.is_arborescence`` (directed graphs): a tree whose nodes
    have in-degree at most 1.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_arborescence(from_networkx(nx.DiGraph([(0, 1), (0, 2)])))
    True
    """
    _not_implemented_for(G, "undirected")
    return is_tree(G) and int(_out_in_degrees(G)[1].max()) <= 1


def is_branching(G):
    """``networkx.is_branching`` (directed graphs): a forest whose nodes
    have in-degree at most 1.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_branching(from_networkx(nx.DiGraph([(0, 1), (2, 1)])))
    False
    """
    _not_implemented_for(G, "undirected")
    return is_forest(G) and int(_out_in_degrees(G)[1].max()) <= 1


# --- degree facts -------------------------------------------------------------------------

def is_regular(G):
    """``networkx.is_regular``: every node has the first node's degree (directed:
    its in- and its out-degree); ``NetworkXPointlessConcept`` on the null graph.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_regular(from_networkx(nx.cycle_graph(5))), is_regular(from_networkx(nx.path_graph(3)))
    (True, False)
    """
    nx = _nx()
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Graph has no nodes.")
    if not G.is_directed():
        d = _degrees(G)
        return bool(np.all(d == d[0]))
    out_deg, in_deg = _out_in_degrees(G)
    return bool(np.all(in_deg == in_deg[0]) and np.all(out_deg == out_deg[0]))


def is_k_regular(G, k):
    """``networkx.is_k_regular`` (undirected graphs): every degree is k.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_k_regular(from_networkx(nx.cycle_graph(5)), 2)
    True
    """
    _not_implemented_for(G, "directed")
    return bool(np.all(_degrees(G) == k))


def number_of_selfloops(G):
    """``networkx.number_of_selfloops``: the stored diagonal entries.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> number_of_selfloops(from_networkx(nx.Graph([(0, 0), (0, 1), (1, 1)])))
    2
    """
    return int(np.count_nonzero(_self_loops(G)))


def is_empty(G):
    """``networkx.is_empty``: no edges (self-loops are edges).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_empty(from_networkx(nx.empty_graph(3))), is_empty(from_networkx(nx.path_graph(2)))
    (True, False)
    """
    return G.matrix.nvals == 0


def is_eulerian(G):
    """``networkx.is_eulerian``: undirected, every degree even and connected;
    directed, in-degree = out-degree everywhere and strongly connected, which
    for such a balanced graph is weak connectivity (each weak component of a
    balanced digraph is strongly connected). ``NetworkXPointlessConcept`` on
    the null graph, from NetworkX's connectivity test.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_eulerian(from_networkx(nx.cycle_graph(4, create_using=nx.DiGraph)))
    True
    """
    from .measures import _cc_labels

    nx = _nx()
    if G.is_directed():
        out_deg, in_deg = _out_in_degrees(G)
        balanced = bool(np.all(out_deg == in_deg))
    else:
        balanced = bool(np.all(_degrees(G) % 2 == 0))
    if not balanced:
        return False
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    labels = np.asarray(_cc_labels(G))
    return bool(np.all(labels == labels[0]))


def s_metric(G):
    """``networkx.s_metric``: the sum over edges (u, v) of degree(u) *
    degree(v), as a float (an undirected edge once).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> s_metric(from_networkx(nx.path_graph(4)))
    8.0
    """
    d = _degrees(G)
    indptr, cols = _csr(G)
    rows = np.repeat(np.arange(len(G), dtype=np.int64), np.diff(indptr))
    prod = d[rows] * d[cols]
    if G.is_directed():
        return float(int(prod.sum()))
    loops = rows == cols
    # both directions of an undirected edge are stored: halve them
    return float(int(prod[~loops].sum()) // 2 + int(prod[loops].sum()))


def rich_club_coefficient(G, normalized=True, Q=100, seed=None, *, n_samples=1):
    """``networkx.rich_club_coefficient`` with ``normalized=False``
    (undirected graphs): for each degree d while more than one node has a
    larger degree, 2 e(d) / (n(d) (n(d) - 1)) with n(d) those nodes and e(d)
    the edges among them; ``Exception`` for a graph with self-loops, as
    NetworkX. The normalised form compares with NetworkX's random edge
    swaps (``n_samples`` of them from NetworkX 3.7; ``ValueError`` when
    ``n_samples < 1`` there, as NetworkX): NetworkX runs it.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> rich_club_coefficient(from_networkx(nx.star_graph(3)), normalized=False)
    {0: 0.5}
    """
    _not_implemented_for(G, "directed")
    if _self_loops(G).any():
        raise Exception("rich_club_coefficient is not implemented for graphs with self loops.")
    if normalized and n_samples < 1:
        raise ValueError("n_samples must be >= 1 if 'normalized' = True")
    if normalized:
        raise NotImplementedError("bitgraph rich_club_coefficient: normalized=True "
                                  "(random edge swaps) is NetworkX's")
    d = _degrees(G)
    indptr, cols = _csr(G)
    rows = np.repeat(np.arange(len(G), dtype=np.int64), np.diff(indptr))
    upper = rows < cols  # each undirected edge once
    low = np.sort(np.minimum(d[rows[upper]], d[cols[upper]]))
    e = low.size
    if e == 0:
        return {}
    sorted_deg = np.sort(d)
    rc = {}
    for k in range(int(d.max()) + 1):
        nk = len(G) - int(np.searchsorted(sorted_deg, k, side="right"))  # degree > k
        if nk <= 1:
            break
        ek = e - int(np.searchsorted(low, k, side="right"))  # both ends of degree > k
        rc[k] = 2 * ek / (nk * (nk - 1))
    return rc


def is_bipartite(G):
    """``networkx.is_bipartite``: the graph, edge directions ignored, has a
    2-colouring. One BFS from a virtual vertex joined to every component's
    root gives each vertex its distance parity from its root; the graph is
    bipartite iff every edge joins two parities (a self-loop never does).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> [is_bipartite(from_networkx(nx.cycle_graph(n))) for n in (4, 3)]
    [True, False]
    """
    import bitgraph as bg
    from bitgraph.algorithms import bfs

    from .measures import _cc_labels

    n = len(G)
    if n == 0:
        return True
    indptr, cols = _csr(G)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    labels = np.asarray(_cc_labels(G), np.int64)
    roots = np.flatnonzero(labels == np.arange(n))
    # B: A + A' (edge directions ignored) plus a vertex n joined to every root
    r = np.concatenate([rows, cols, np.full(roots.size, n, np.int64)])
    c = np.concatenate([cols, rows, roots])
    B = bg.Matrix.from_coo(r, c, None, nrows=n + 1, ncols=n + 1)
    level = np.asarray(bfs(B, n).to_dense(-1), np.int64)[:n]
    return bool(np.all(level[rows] % 2 != level[cols] % 2))


# --- walks ------------------------------------------------------------------------------------

def number_of_walks(G, walk_length):
    """``networkx.number_of_walks``: {u: {v: walks of ``walk_length`` edges
    from u to v}} over all pairs (ints), the entries of A^walk_length by
    repeated squaring with ``mxm`` (int64 ``plus.times``, wrapping on
    overflow as NetworkX's scipy power does); ``ValueError`` for a negative
    length.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> number_of_walks(from_networkx(nx.path_graph(3)), 2)
    {0: {0: 1, 1: 0, 2: 1}, 1: {0: 0, 1: 2, 2: 0}, 2: {0: 1, 1: 0, 2: 1}}
    """
    import operator

    import bitgraph as bg

    try:
        k = operator.index(walk_length)
    except TypeError:
        raise NotImplementedError("bitgraph number_of_walks: an integer walk_length") from None
    if k < 0:
        raise ValueError(f"`walk_length` cannot be negative: {walk_length}")
    n = len(G)
    A = G.cpu_matrix
    A = bg.Matrix.from_csr(A.indptr, A.indices, np.ones(A.nvals, np.int64), ncols=n,
                           check=False, device="cpu")
    # P = A^k: square the power of two, multiply it in where k has a bit
    P = None
    while k:
        if k & 1:
            P = A if P is None else bg.mxm(P, A, bg.PLUS_TIMES)
        k >>= 1
        if k:
            A = bg.mxm(A, A, bg.PLUS_TIMES)
    dense = np.eye(n, dtype=np.int64) if P is None else \
        np.asarray(P.to_dense(0), np.int64).reshape(n, n)
    return {u: dict(zip(G.nodes, row)) for u, row in zip(G.nodes, dense.tolist())}


# --- degree connectivity -------------------------------------------------------------------

_DIRECTIONS = ("in", "out", "in+out")


def average_degree_connectivity(G, source="in+out", target="in+out", nodes=None, weight=None):
    """``networkx.average_degree_connectivity``: for each source degree k,
    the sum over nodes of degree k of their neighbours' target degrees
    (weighted by the edge, with ``weight``) over the sum of their (weighted)
    source degrees, keyed in the order the degrees first occur.

    Neighbours are NetworkX's: successors (``source`` "out" and "in+out")
    or predecessors ("in"), so the neighbour sums are one ``mxv`` with
    ``A`` (or ``A'``) and the target degrees. Degree 0 maps to the int 0; a
    weighted class of higher degree whose weights sum to 0 (NetworkX then
    returns the sum itself, an int or a float as the weights were) raises
    ``NotImplementedError``: NetworkX runs it.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.path_graph(4)
    >>> G.edges[1, 2]["weight"] = 3
    >>> BG = from_networkx(G, {"weight": 1})
    >>> average_degree_connectivity(BG), average_degree_connectivity(BG, weight="weight")
    ({1: 2.0, 2: 1.5}, {1: 2.0, 2: 1.75})
    """
    import bitgraph as bg

    nx = _nx()
    out_deg, in_deg = _out_in_degrees(G)
    if G.is_directed():
        if source not in _DIRECTIONS:
            raise nx.NetworkXError('source must be one of "in", "out", or "in+out"')
        if target not in _DIRECTIONS:
            raise nx.NetworkXError('target must be one of "in", "out", or "in+out"')
        degree = {"out": out_deg, "in": in_deg, "in+out": out_deg + in_deg}
        sdeg, tdeg = degree[source], degree[target]
    else:
        if source != "in+out" or target != "in+out":
            raise nx.NetworkXError(
                "source and target arguments are only supported for directed graphs")
        sdeg = tdeg = _degrees(G)
    reverse = G.is_directed() and source == "in"
    if _contains(G, nodes):
        ids = np.array([G.index[nodes]], np.int64)
    else:
        ids = np.asarray(_nbunch(G, nodes), np.int64)
    weighted = weight is not None and G.has_weights(weight)
    W = G.weighted(weight, default=1.0, device="cpu") if weighted else G.cpu_matrix
    M = W.T if reverse else W
    # s = M plus.times tdeg: each node's sum over its neighbours of their
    # target degree (times the edge's weight)
    semiring = bg.PLUS_TIMES if weighted else bg.PLUS_SECOND
    u = bg.Vector.from_dense(tdeg.astype(np.float64 if weighted else np.int64))
    s = np.asarray(bg.mxv(M, u, semiring).to_dense(0))
    if weighted:
        # weighted source degree: out = row sums, in = column sums, an
        # undirected self-loop twice
        rows = np.asarray(bg.reduce(W, "plus", by="rows").to_dense(0), np.float64)
        cols = np.asarray(bg.reduce(W, "plus", by="cols").to_dense(0), np.float64)
        if G.is_directed():
            norm = {"out": rows, "in": cols, "in+out": rows + cols}[source]
        else:
            d = bg.select(W, "diag")
            norm = rows + np.asarray(bg.reduce(d, "plus", by="rows").to_dense(0), np.float64)
    else:
        norm = sdeg
    k, s, norm = sdeg[ids], s[ids], norm[ids]
    # group by k in order of first occurrence; sums in node order within a class
    order = np.argsort(k, kind="stable")
    ks = k[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]]) if ks.size else np.array([], int)
    dsum = np.add.reduceat(s[order], starts) if ks.size else s[:0]
    dnorm = np.add.reduceat(norm[order], starts) if ks.size else norm[:0]
    first = order[starts]
    out = {}
    for j in np.argsort(first, kind="stable").tolist():
        key, avg, dn = int(ks[starts[j]]), dsum[j].item(), dnorm[j].item()
        if dn == 0:
            if key == 0:  # no neighbours at all: NetworkX's sums stay the int 0
                out[key] = 0
                continue
            # weights of 0: NetworkX's int or float sum, as the weights were
            raise NotImplementedError(
                "bitgraph average_degree_connectivity: a weighted degree sum of 0")
        else:
            out[key] = avg / dn
    return out


def average_neighbor_degree(G, source="out", target="out", nodes=None, weight=None):
    """``networkx.average_neighbor_degree``: per node, the (edge-weighted)
    sum of its neighbours' target degrees over its (weighted) source degree;
    0.0 for a source degree of 0. Neighbours: successors ("out"),
    predecessors ("in") or both ("in+out"); the sums are one ``mxv`` with A
    and/or A'. ``nodes`` as one node is NetworkX's TypeError: it runs it.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> average_neighbor_degree(from_networkx(nx.path_graph(4)))
    {0: 2.0, 1: 1.5, 2: 1.5, 3: 2.0}
    """
    import bitgraph as bg

    nx = _nx()
    out_deg, in_deg = _out_in_degrees(G)
    directed = G.is_directed()
    if directed:
        if source not in _DIRECTIONS:
            raise nx.NetworkXError(f"source argument {source} must be 'in', 'out' or 'in+out'")
        if target not in _DIRECTIONS:
            raise nx.NetworkXError(f"target argument {target} must be 'in', 'out' or 'in+out'")
        tdeg = {"out": out_deg, "in": in_deg, "in+out": out_deg + in_deg}[target]
    else:
        if source != "out" or target != "out":
            raise nx.NetworkXError(
                "source and target arguments are only supported for directed graphs")
        tdeg = _degrees(G)
    if _contains(G, nodes):
        raise NotImplementedError("bitgraph average_neighbor_degree: nodes as one node "
                                  "(NetworkX raises its own TypeError)")
    ids = np.asarray(_nbunch(G, nodes), np.int64)
    weighted = weight is not None and G.has_weights(weight)
    W = G.weighted(weight, default=1.0, device="cpu") if weighted else G.cpu_matrix
    use_out = not directed or "out" in source
    use_in = directed and "in" in source
    semiring = bg.PLUS_TIMES if weighted else bg.PLUS_SECOND
    u = bg.Vector.from_dense(tdeg.astype(np.float64 if weighted else np.int64))
    total = 0
    norm = 0
    # sum over successors (A tdeg) and over predecessors (A' tdeg), each
    # edge times its weight when weighted; the source degree likewise
    if use_out:
        total = total + np.asarray(bg.mxv(W, u, semiring).to_dense(0))
        norm = norm + (np.asarray(bg.reduce(W, "plus", by="rows").to_dense(0), np.float64)
                       if weighted else out_deg)
    if use_in:
        total = total + np.asarray(bg.mxv(W.T, u, semiring).to_dense(0))
        norm = norm + (np.asarray(bg.reduce(W, "plus", by="cols").to_dense(0), np.float64)
                       if weighted else in_deg)
    if not directed:  # an undirected self-loop counts twice in the degree
        loops = _self_loops(G)
        if weighted:
            d = bg.select(W, "diag")
            norm = norm + np.asarray(bg.reduce(d, "plus", by="rows").to_dense(0), np.float64)
        else:
            norm = norm + loops
    total, norm = np.asarray(total)[ids].tolist(), np.asarray(norm)[ids].tolist()
    labels = G.labels(ids)
    return {v: 0.0 if d == 0 else t / d for v, t, d in zip(labels, total, norm)}


# --- the backend tables -------------------------------------------------------------------

def _contains_node(G, n) -> bool:
    try:
        return n in G
    except TypeError:
        return False


def _has_attributes(G, graph=True) -> bool:
    """G (a NetworkX graph, before conversion) has node or edge attributes
    (and, with ``graph``, graph attributes), which NetworkX copies into a
    graph result and a converted graph does not keep."""
    if isinstance(G, BitGraph):
        return False
    if (graph and G.graph) or any(G._node.values()):
        return True
    return any(d for _, _, d in G.edges(data=True))


# the core subgraphs keep graph attributes (converted: preserve_all_attrs);
# reverse's conversion has none
_ATTRS = (lambda a: _has_attributes(a["G"], graph=False),
          "the result would need G's node or edge attributes")
_ALL_ATTRS = (lambda a: _has_attributes(a["G"]),
              "the result would need G's node, edge or graph attributes")

FUNCTIONS = {f.__name__: f for f in (
    reciprocity, overall_reciprocity, isolates, is_isolate, number_of_isolates,
    complement, reverse, core_number, k_core, k_shell, k_crust, k_corona, onion_layers,
    k_truss, jaccard_coefficient, resource_allocation_index, adamic_adar_index,
    preferential_attachment, average_neighbor_degree, is_tree, is_forest, is_arborescence,
    is_branching, is_regular, is_k_regular, number_of_selfloops, is_empty, is_eulerian,
    number_of_walks, s_metric, rich_club_coefficient, is_bipartite,
    is_directed_acyclic_graph, average_degree_connectivity)}

CAN_RUN = {
    "reciprocity": _refuse(reciprocity, _MULTI, (
        lambda a: not a["G"].is_directed() and a["nodes"] is not None,
        "nodes of an undirected graph: NetworkX raises its own error")),
    "overall_reciprocity": _refuse(overall_reciprocity, _MULTI),
    "complement": _refuse(complement, _MULTI),
    "reverse": _refuse(reverse, _MULTI, _ALL_ATTRS,
                       (lambda a: not a["copy"], "copy=False returns a view")),
    "core_number": _refuse(core_number, _MULTI),
    "k_core": _refuse(k_core, _MULTI, _ATTRS),
    "k_shell": _refuse(k_shell, _MULTI, _ATTRS),
    "k_crust": _refuse(k_crust, _MULTI, _ATTRS),
    "k_corona": _refuse(k_corona, _MULTI, _ATTRS),
    "onion_layers": _refuse(onion_layers, _MULTI),
    "k_truss": _refuse(k_truss, _MULTI, _ATTRS),
    "jaccard_coefficient": _refuse(jaccard_coefficient, _MULTI),
    "resource_allocation_index": _refuse(resource_allocation_index, _MULTI),
    "adamic_adar_index": _refuse(adamic_adar_index, _MULTI),
    "preferential_attachment": _refuse(preferential_attachment, _MULTI),
    # edge counts count parallel edges
    "is_tree": _refuse(is_tree, _MULTI),
    "is_forest": _refuse(is_forest, _MULTI),
    "is_arborescence": _refuse(is_arborescence, _MULTI),
    "is_branching": _refuse(is_branching, _MULTI),
    # degrees and self-loop counts count parallel edges
    "is_regular": _refuse(is_regular, _MULTI),
    "is_k_regular": _refuse(is_k_regular, _MULTI),
    "number_of_selfloops": _refuse(number_of_selfloops, _MULTI),
    "is_eulerian": _refuse(is_eulerian, _MULTI),
    "number_of_walks": _refuse(number_of_walks, _MULTI),
    "s_metric": _refuse(s_metric, _MULTI),
    "rich_club_coefficient": _refuse(
        rich_club_coefficient, _MULTI,
        (lambda a: a["normalized"], "normalized=True: NetworkX's random edge swaps")),
    "average_neighbor_degree": _refuse(
        average_neighbor_degree, _MULTI,
        (lambda a: callable(a["weight"]), "a callable weight"),
        (lambda a: _contains_node(a["G"], a["nodes"]), "nodes as one node: NetworkX's TypeError")),
    "average_degree_connectivity": _refuse(
        average_degree_connectivity, _MULTI,
        (lambda a: callable(a["weight"]), "a callable weight")),
}

_NX = "https://networkx.org/documentation/stable/reference/generated/networkx."
INFO = {
    "reciprocity": {
        "url": _NX + "algorithms.reciprocity.reciprocity.html",
        "note": "Row counts of A .* A' against in + out degrees.", "extra_parameters": {}},
    "overall_reciprocity": {
        "url": _NX + "algorithms.reciprocity.overall_reciprocity.html",
        "note": "Off-diagonal entries of A .* A' over the edges.", "extra_parameters": {}},
    "isolates": {
        "url": _NX + "algorithms.isolate.isolates.html",
        "note": "Vertices with empty rows and columns.", "extra_parameters": {}},
    "is_isolate": {
        "url": _NX + "algorithms.isolate.is_isolate.html",
        "note": "Empty row and column.", "extra_parameters": {}},
    "number_of_isolates": {
        "url": _NX + "algorithms.isolate.number_of_isolates.html",
        "note": "Counts the vertices with empty rows and columns.", "extra_parameters": {}},
    "complement": {
        "url": _NX + "algorithms.operators.unary.complement.html",
        "note": "Built from dense n x n flags (the result has "
                "n(n-1) - m edges).", "extra_parameters": {}},
    "reverse": {
        "url": _NX + "algorithms.operators.unary.reverse.html",
        "note": "The transpose A'; graphs with attributes and copy=False fall back.",
        "extra_parameters": {}},
    "core_number": {
        "url": _NX + "algorithms.core.core_number.html",
        "note": "Peeling (LAGraph's k-core): a push along the removed rows a round (one "
                "vxm when the frontier is wide); directed: in + out degrees.",
        "extra_parameters": {}},
    "k_core": {
        "url": _NX + "algorithms.core.k_core.html",
        "note": "Core numbers by peeling; node or edge attributes fall back.",
        "extra_parameters": {}},
    "k_shell": {
        "url": _NX + "algorithms.core.k_shell.html",
        "note": "Core numbers by peeling; node or edge attributes fall back.",
        "extra_parameters": {}},
    "k_crust": {
        "url": _NX + "algorithms.core.k_crust.html",
        "note": "Core numbers by peeling; node or edge attributes fall back.",
        "extra_parameters": {}},
    "k_corona": {
        "url": _NX + "algorithms.core.k_corona.html",
        "note": "Core numbers by peeling, neighbour counts by one mxv; "
                "graphs with attributes fall back.",
        "extra_parameters": {}},
    "onion_layers": {
        "url": _NX + "algorithms.core.onion_layers.html",
        "note": "The rounds of the k-core peeling.", "extra_parameters": {}},
    "k_truss": {
        "url": _NX + "algorithms.core.k_truss.html",
        "note": "LAGraph's k-truss (masked C plus.pair C, select by "
                "support, until stable); graphs with attributes fall back.",
        "extra_parameters": {}},
    "jaccard_coefficient": {
        "url": _NX + "algorithms.link_prediction.jaccard_coefficient.html",
        "note": "Common neighbours of all pairs from one masked A plus.pair A.",
        "extra_parameters": {}},
    "resource_allocation_index": {
        "url": _NX + "algorithms.link_prediction.resource_allocation_index.html",
        "note": "Sums over common neighbours from one masked plus.times product.",
        "extra_parameters": {}},
    "adamic_adar_index": {
        "url": _NX + "algorithms.link_prediction.adamic_adar_index.html",
        "note": "Sums over common neighbours from one masked plus.times product.",
        "extra_parameters": {}},
    "preferential_attachment": {
        "url": _NX + "algorithms.link_prediction.preferential_attachment.html",
        "note": "Degree products.", "extra_parameters": {}},
    "average_neighbor_degree": {
        "url": _NX + "algorithms.assortativity.average_neighbor_degree.html",
        "note": "Neighbour degree sums by mxv with A and/or A' (weighted: plus.times).",
        "extra_parameters": {}},
    "is_tree": {
        "url": _NX + "algorithms.tree.recognition.is_tree.html",
        "note": "Edge count and (weakly) connected components (Afforest).",
        "extra_parameters": {}},
    "is_forest": {
        "url": _NX + "algorithms.tree.recognition.is_forest.html",
        "note": "Node and edge counts per (weakly) connected component (Afforest).",
        "extra_parameters": {}},
    "is_arborescence": {
        "url": _NX + "algorithms.tree.recognition.is_arborescence.html",
        "note": "is_tree and in-degrees at most 1.", "extra_parameters": {}},
    "is_branching": {
        "url": _NX + "algorithms.tree.recognition.is_branching.html",
        "note": "is_forest and in-degrees at most 1.", "extra_parameters": {}},
    "is_regular": {
        "url": _NX + "algorithms.regular.is_regular.html",
        "note": "Row and column counts.", "extra_parameters": {}},
    "is_k_regular": {
        "url": _NX + "algorithms.regular.is_k_regular.html",
        "note": "Row counts.", "extra_parameters": {}},
    "number_of_selfloops": {
        "url": _NX + "classes.function.number_of_selfloops.html",
        "note": "Counts the diagonal.", "extra_parameters": {}},
    "is_empty": {
        "url": _NX + "classes.function.is_empty.html",
        "note": "No stored entries.", "extra_parameters": {}},
    "is_eulerian": {
        "url": _NX + "algorithms.euler.is_eulerian.html",
        "note": "Degree parity (directed: in = out) and (weak) connectivity by Afforest.",
        "extra_parameters": {}},
    "is_bipartite": {
        "url": _NX + "algorithms.bipartite.basic.is_bipartite.html",
        "note": "Distance parities from one BFS over every component (a virtual root), "
                "then one check over the edges.", "extra_parameters": {}},
    "s_metric": {
        "url": _NX + "algorithms.smetric.s_metric.html",
        "note": "Degree products over the stored entries.", "extra_parameters": {}},
    "rich_club_coefficient": {
        "url": _NX + "algorithms.richclub.rich_club_coefficient.html",
        "note": "normalized=False only (the random swaps of normalized=True fall back); "
                "degree and edge-degree counts.", "extra_parameters": {}},
    "number_of_walks": {
        "url": _NX + "algorithms.walks.number_of_walks.html",
        "note": "A^k by repeated squaring with mxm (int64 plus.times).",
        "extra_parameters": {}},
    "is_directed_acyclic_graph": {
        "url": _NX + "algorithms.dag.is_directed_acyclic_graph.html",
        "note": "Kahn peeling of in-degree-0 vertices: a push along the removed rows "
                "a round (one vxm when the frontier is wide).",
        "extra_parameters": {}},
    "average_degree_connectivity": {
        "url": _NX + "algorithms.assortativity.average_degree_connectivity.html",
        "note": "Neighbour degree sums by one mxv (weighted: plus.times with the weights).",
        "extra_parameters": {}},
}
