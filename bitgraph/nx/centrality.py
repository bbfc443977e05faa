"""NetworkX backend functions for centralities: degree, in- and
out-degree, eigenvector, Katz, HITS, harmonic and betweenness (vertex and
edge).

Each function has the name, signature, errors and return values of the
NetworkX function of that name and takes a
:class:`bitgraph.nx.graph.BitGraph` as ``G``. Degrees are row and column
counts of the adjacency (its ``indptr`` and a count of its column indices,
the reductions by rows and by columns of a structure-only matrix); the
eigenvector-type centralities are power iterations of one ``vxm`` (or
``mxv``) per step over the whole graph, with NetworkX's update, its stop
rule and its ``PowerIterationFailedConvergence`` (HITS: see there);
harmonic centrality sums 1 / distance over msbfs batches. Only the result
dict walks the nodes in Python.

Devices: the iterations and harmonic centrality's BFSs run where
``G.matrix`` is (``G.weighted(...)`` for a weighted one, on the same
device); the iterate comes back to the host once a step for NetworkX's
norms. Degrees read ``G.cpu_matrix``.

>>> import networkx as nx
>>> from bitgraph.nx.convert import from_networkx
>>> BG = from_networkx(nx.star_graph(3))
>>> degree_centrality(BG)
{0: 1.0, 1: 0.3333333333333333, 2: 0.3333333333333333, 3: 0.3333333333333333}
>>> {k: round(v, 4) for k, v in eigenvector_centrality(BG).items()}
{0: 0.7071, 1: 0.4082, 2: 0.4082, 3: 0.4082}
"""

from __future__ import annotations

import math

import numpy as np

from bitgraph.device import host as _host

from .measures import _MULTI, _hashable, _not_implemented_for, _refuse

__all__ = [
    "degree_centrality", "in_degree_centrality", "out_degree_centrality",
    "eigenvector_centrality", "katz_centrality", "hits", "harmonic_centrality",
    "betweenness_centrality", "edge_betweenness_centrality", "FUNCTIONS", "INFO", "CAN_RUN",
]


# --- degrees -------------------------------------------------------------------------

def _out_in_degrees(G):
    """(out, in) int64 counts of stored entries per vertex (a self-loop is
    one entry: one out and one in), from ``G.cpu_matrix``'s CSR."""
    A = G.cpu_matrix
    out_deg = np.diff(np.asarray(A.indptr, np.int64))
    in_deg = np.bincount(np.asarray(A.indices, np.int64), minlength=A.nrows)
    return out_deg, in_deg


def _self_loops(G) -> np.ndarray:
    """bool per vertex: it has a self-loop."""
    A = G.cpu_matrix
    indptr = np.asarray(A.indptr, np.int64)
    cols = np.asarray(A.indices, np.int64)
    rows = np.repeat(np.arange(A.nrows, dtype=np.int64), np.diff(indptr))
    loops = np.zeros(A.nrows, bool)
    loops[rows[rows == cols]] = True
    return loops


def _degrees(G) -> np.ndarray:
    """NetworkX's ``G.degree()`` per vertex id: undirected, the neighbours
    with a self-loop counted twice; directed, in + out (a self-loop adds one
    to each).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> _degrees(from_networkx(nx.Graph([(0, 0), (0, 1)]))).tolist()
    [3, 1]
    """
    out_deg, in_deg = _out_in_degrees(G)
    if G.is_directed():
        return out_deg + in_deg
    return out_deg + _self_loops(G)


def _degree_dict(G, d):
    # NetworkX: {n: d * s} with s = 1 / (n - 1), and the int 1 for graphs of
    # at most one node; an int times a float rounds as float64 times float64
    n = len(G)
    if n <= 1:
        return dict.fromkeys(G.nodes, 1)
    s = 1.0 / (n - 1.0)
    return dict(zip(G.nodes, (d.astype(np.float64) * s).tolist()))


def degree_centrality(G):
    """``networkx.degree_centrality``: degree / (n - 1).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> degree_centrality(from_networkx(nx.path_graph(3)))
    {0: 0.5, 1: 1.0, 2: 0.5}
    """
    return _degree_dict(G, _degrees(G))


def in_degree_centrality(G):
    """``networkx.in_degree_centrality`` (directed graphs only): in-degree / (n - 1).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> in_degree_centrality(from_networkx(nx.DiGraph([(0, 1), (2, 1)])))
    {0: 0.0, 1: 1.0, 2: 0.0}
    """
    _not_implemented_for(G, "undirected")
    return _degree_dict(G, _out_in_degrees(G)[1])


def out_degree_centrality(G):
    """``networkx.out_degree_centrality`` (directed graphs only): out-degree / (n - 1).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> out_degree_centrality(from_networkx(nx.DiGraph([(0, 1), (0, 2)])))
    {0: 1.0, 1: 0.0, 2: 0.0}
    """
    _not_implemented_for(G, "undirected")
    return _degree_dict(G, _out_in_degrees(G)[0])


# --- power iterations --------------------------------------------------------------------

def _matrix(G, weight, default=1.0):
    """The structure-only adjacency, or its ``weight`` values (``default``
    where an edge lacks it) when ``weight`` was converted: NetworkX reads
    ``G[u][v].get(weight, 1)``, which is 1 on every edge of a graph without
    that attribute (the dispatcher converts the attribute it names)."""
    if weight is None or not G.has_weights(weight):
        return G.matrix
    return G.weighted(weight, default=default)


def _start_vector(G, start, what):
    """The values of the dict ``start`` in vertex order, and its key order
    (NetworkX's iterate is that dict, so the result follows its keys).
    Keys other than G's nodes make NetworkX's loop fail part-way (a
    ``KeyError``, or a result without some nodes): left to NetworkX."""
    keys = list(start)
    if len(keys) != len(G) or not all(_hashable(k) and k in G.index for k in keys):
        raise NotImplementedError(f"bitgraph: {what} must have exactly G's nodes as keys")
    x = np.empty(len(G), np.float64)
    ids = np.fromiter((G.index[k] for k in keys), np.int64, count=len(keys))
    x[ids] = np.asarray([float(v) for v in start.values()], np.float64)
    return x, ids


def _vxm(x, A):
    """x' A (plus.times) as a dense float64 host array: sum over in-edges
    j -> i of x[j] A[j, i] (0 where i has none)."""
    import bitgraph as bg

    u = bg.Vector.from_dense(x, device=A.device)
    return np.asarray(_host(bg.vxm(u, A, bg.PLUS_TIMES).to_dense(0)), np.float64)


def _mxv(A, x):
    """A x (plus.times) as a dense float64 host array."""
    import bitgraph as bg

    u = bg.Vector.from_dense(x, device=A.device)
    return np.asarray(_host(bg.mxv(A, u, bg.PLUS_TIMES).to_dense(0)), np.float64)


def _result(G, x, order):
    """{label: float} in the key order ``order`` (vertex ids; None: G's)."""
    if order is None:
        return dict(zip(G.nodes, x.tolist()))
    return dict(zip(G.labels(order), x[order].tolist()))


def eigenvector_centrality(G, max_iter=100, tol=1.0e-6, nstart=None, weight=None):
    """``networkx.eigenvector_centrality``: NetworkX's power iteration
    x <- x (A + I) / ||x (A + I)||_2 (one ``vxm`` per step), stopping when the
    L1 change is below ``len(G) * tol``; ``PowerIterationFailedConvergence``
    after ``max_iter`` steps, ``NetworkXPointlessConcept`` on the null graph,
    ``NetworkXError`` for an all-zero ``nstart``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> c = eigenvector_centrality(from_networkx(nx.path_graph(4)))
    >>> [f"{v:0.2f}" for v in c.values()]
    ['0.37', '0.60', '0.60', '0.37']
    """
    import networkx as nx

    n = len(G)
    if n == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    order = None
    if nstart is None:
        x = np.ones(n, np.float64)
        total = n
    else:
        if all(v == 0 for v in nstart.values()):
            raise nx.NetworkXError("initial vector cannot have all zero values")
        x, order = _start_vector(G, nstart, "nstart")
        total = sum(nstart.values())  # NetworkX's sum, in its order
    x = x / total
    A = _matrix(G, weight if weight else None)
    for _ in range(max_iter):
        xlast = x
        # x' <- xlast' (A + I)
        x = xlast + _vxm(xlast, A)
        norm = math.hypot(*x.tolist()) or 1
        x = x / norm
        if np.abs(x - xlast).sum() < n * tol:
            return _result(G, x, order)
    raise nx.PowerIterationFailedConvergence(max_iter)


def katz_centrality(G, alpha=0.1, beta=1.0, max_iter=1000, tol=1.0e-6, nstart=None,
                    normalized=True, weight=None):
    """``networkx.katz_centrality``: NetworkX's iteration
    x <- alpha x' A + beta (one ``vxm`` per step), stopping when the L1
    change is below ``len(G) * tol``, then scaled to unit 2-norm when
    ``normalized``; ``PowerIterationFailedConvergence`` after ``max_iter``
    steps, ``NetworkXError`` when a ``beta`` dict misses a node.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> c = katz_centrality(from_networkx(nx.path_graph(4)), 0.6080339887498948)
    >>> [f"{v:.2f}" for v in c.values()]
    ['0.37', '0.60', '0.60', '0.37']
    """
    import networkx as nx

    n = len(G)
    if n == 0:
        return {}
    order = None
    if nstart is None:
        x = np.zeros(n, np.float64)
    else:
        x, order = _start_vector(G, nstart, "nstart")
    try:
        b = np.full(n, float(beta))
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G.nodes):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        b = np.array([float(beta[v]) for v in G.nodes], np.float64)
    A = _matrix(G, weight)
    for _ in range(max_iter):
        xlast = x
        # x' <- alpha xlast' A + beta
        x = alpha * _vxm(xlast, A) + b
        if np.abs(x - xlast).sum() < n * tol:
            if normalized:
                try:
                    s = 1.0 / math.hypot(*x.tolist())
                except ZeroDivisionError:
                    s = 1.0
                x = x * s
            return _result(G, x, order)
    raise nx.PowerIterationFailedConvergence(max_iter)


def _hits_method(method):
    """``method`` as given, or the installed NetworkX's default when None:
    "power_iteration" from NetworkX 3.7, "svd" (its only answer) before."""
    from .measures import _nx_default

    return _nx_default("hits", "method", "svd") if method is None else method


def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True, *, method=None):
    """``networkx.hits``: hubs and authorities (edge attribute "weight", 1
    where an edge lacks it), by NetworkX's ``method``; None (the default)
    takes the installed NetworkX's default: "power_iteration" from NetworkX
    3.7, "svd" under 3.6, whose ``hits`` has no ``method`` and gives the SVD
    answer. Another method raises ``ValueError``, as NetworkX 3.7.

    "power_iteration" is NetworkX 3.7's iteration step for step: h from
    ``nstart`` (divided by its sum) or 1/n, then a' <- h' A, h <- A a, h
    divided by its maximum (one ``vxm`` and one ``mxv``), stopping at the
    first step whose L1 change of h is below ``tol``, else
    ``PowerIterationFailedConvergence``; then h and a each divided by its sum
    (``normalized``) or a by its maximum. ``NetworkXError`` for an
    ``nstart`` missing a node or summing to zero.

    "svd" is the dominant singular pair, which NetworkX finds with ARPACK
    (``scipy.sparse.linalg.svds``): see :func:`_hits_svd`.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.DiGraph([(0, 1), (0, 2), (3, 2)]))
    >>> h, a = hits(BG, method="svd")
    >>> {k: round(v, 4) for k, v in h.items()}
    {0: 0.618, 1: 0.0, 2: 0.0, 3: 0.382}
    >>> h, a = hits(BG, method="power_iteration")
    >>> {k: round(v, 4) for k, v in a.items()}
    {0: 0.0, 1: 0.382, 2: 0.618, 3: 0.0}
    """
    method = _hits_method(method)
    if method == "power_iteration":
        return _hits_power_iteration(G, max_iter, tol, nstart, normalized)
    if method == "svd":
        return _hits_svd(G, max_iter, tol, nstart, normalized)
    raise ValueError(f"method not supported: {method}")


def _hits_power_iteration(G, max_iter, tol, nstart, normalized):
    """NetworkX 3.7's ``_hits_power_iteration`` (see :func:`hits`), its
    products as ``vxm``/``mxv`` and the rest the same numpy steps, so that
    its stop rule sees the same values (to the order of the sums)."""
    import networkx as nx

    n = len(G)
    if n == 0:
        return {}, {}
    if nstart is None:
        h = np.full(n, 1.0 / n)
    else:
        missing = {v for v in G.nodes if v not in nstart}  # NetworkX's G.nodes - keys
        if missing:
            raise nx.NetworkXError(f"nstart must have a value for every node; missing: {missing}")
        h = np.array([nstart[v] for v in G.nodes], dtype=float)
        s = h.sum()
        if s == 0:
            raise nx.NetworkXError("nstart values must not sum to zero")
        h = h / s
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    A = _matrix(G, "weight")
    for _ in range(max_iter):
        hlast = h
        # a' <- hlast' A ; h <- A a / max(A a)
        a = _vxm(hlast, A)
        h = _mxv(A, a)
        h /= h.max()
        if np.abs(h - hlast).sum() < tol:
            break
    else:
        raise nx.PowerIterationFailedConvergence(max_iter)
    if normalized:
        h /= h.sum()
        a /= a.sum()
    else:
        a /= a.max()
    return dict(zip(G.nodes, h.tolist())), dict(zip(G.nodes, a.tolist()))


def _hits_svd(G, max_iter, tol, nstart, normalized):
    """``method="svd"`` (NetworkX 3.6's only answer): the dominant left and
    right singular vectors of the adjacency.

    NetworkX computes them with ARPACK (``scipy.sparse.linalg.svds``); here
    by power iteration, a <- A' h, h <- A a (one ``vxm`` and one ``mxv`` a
    step, both scaled by their maximum), stopping when h's L1 change is
    below ``tol`` (NetworkX's ``_hits_python`` rule; the steps left within
    ``max_iter`` then polish it until the change stops shrinking). The answer
    is then NetworkX's: a scaled to unit 2-norm, h = A a, each divided by its
    sum when ``normalized``. ARPACK converges where power iteration may not:
    a run that has not converged after ``max_iter`` steps raises
    ``NotImplementedError`` so that NetworkX decides; ``max_iter <= 0``
    raises ``PowerIterationFailedConvergence`` as NetworkX does. ``nstart``
    only seeds the iteration (NetworkX reads its values in order).
    """
    import networkx as nx

    n = len(G)
    if n == 0:
        return {}, {}
    if n == 1:
        # NetworkX's svds needs k = 1 < min(A.shape) and raises a ValueError
        raise NotImplementedError("bitgraph hits: one node (NetworkX raises its own error)")
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    A = _matrix(G, "weight")
    if nstart is None:
        h = np.full(n, 1.0 / n)
    else:
        h = np.asarray([float(v) for v in nstart.values()], np.float64)
        if h.shape != (n,) or not np.all(np.isfinite(h)) or not h.any():
            raise NotImplementedError("bitgraph hits: nstart needs one finite value per node")
    converged = False
    last_err = np.inf
    for _ in range(max_iter):
        hlast = h
        # a' <- hlast' A ; h <- A a, each scaled by its maximum
        a = _vxm(hlast, A)
        h = _mxv(A, a)
        hmax, amax = h.max(), a.max()
        if not (hmax > 0 and amax > 0):
            raise NotImplementedError("bitgraph hits: the iterate vanished")
        h = h / hmax
        a = a / amax
        err = np.abs(h - hlast).sum()
        converged = converged or err < tol
        # converged by NetworkX's rule; the steps left within max_iter polish
        # the vector towards ARPACK's accuracy until the change stops
        # shrinking (a step's error shrinks by (sigma2 / sigma1)^2, so at a
        # gap of 5% the rule alone leaves errors of ~1e-7)
        if converged and (err == 0 or err >= last_err):
            break
        last_err = err
    if not converged:
        raise NotImplementedError("bitgraph hits: power iteration did not converge "
                                  f"in {max_iter} steps (NetworkX's ARPACK may)")
    a = a / math.hypot(*a.tolist())
    h = _mxv(A, a)
    if normalized:
        h = h / h.sum()
        a = a / a.sum()
    return dict(zip(G.nodes, h.tolist())), dict(zip(G.nodes, a.tolist()))


# --- harmonic ----------------------------------------------------------------------------

def harmonic_centrality(G, nbunch=None, distance=None, sources=None):
    """``networkx.harmonic_centrality`` (unweighted: ``distance`` None):
    for each node x of ``nbunch``, the sum over ``sources`` s of 1 / d(s, x)
    (unreachable and d = 0 add nothing; the int 0 when nothing is added),
    keyed in the order of NetworkX's set of ``nbunch``. Distances from
    msbfs batches over the smaller side: from the sources along out-edges,
    or from the targets along in-edges.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> harmonic_centrality(from_networkx(nx.path_graph(3)))
    {0: 1.5, 1: 2.0, 2: 1.5}
    """
    from bitgraph import algorithms as alg
    from bitgraph.settings import current

    from .measures import _nbunch

    if distance is not None:
        raise NotImplementedError("bitgraph harmonic_centrality is unweighted only")
    # NetworkX's sets, built in the same order (so iterated in the same order)
    targets = set(G.labels(_nbunch(G, nbunch))) if nbunch is not None else set(G.nodes)
    srcs = set(G.labels(_nbunch(G, sources))) if sources is not None else set(G.nodes)
    t_ids = np.fromiter((G.index[v] for v in targets), np.int64, count=len(targets))
    s_ids = np.fromiter((G.index[v] for v in srcs), np.int64, count=len(srcs))
    total = np.zeros(len(G), np.float64)
    count = np.zeros(len(G), np.int64)
    n = len(G)
    rows = current().io.all_pairs_rows
    if len(targets) < len(srcs):
        # BFS from each target x along in-edges: level[v] = d(v, x)
        A = G.matrix.T if G.is_directed() else G.matrix
        is_src = np.zeros(n, bool)
        is_src[s_ids] = True
        for start in range(0, t_ids.size, rows):
            ids = t_ids[start:start + rows]
            lev = np.asarray(_host(alg.msbfs(A, ids)), np.int64)
            hit = (lev > 0) & is_src[None, :]
            with np.errstate(divide="ignore"):
                inv = np.where(hit, 1.0 / np.maximum(lev, 1), 0.0)
            total[ids] += inv.sum(axis=1)
            count[ids] += hit.sum(axis=1)
    else:
        # BFS from each source s along out-edges: level[x] = d(s, x)
        for start in range(0, s_ids.size, rows):
            ids = s_ids[start:start + rows]
            lev = np.asarray(_host(alg.msbfs(G.matrix, ids)), np.int64)
            hit = lev > 0
            total += np.where(hit, 1.0 / np.maximum(lev, 1), 0.0).sum(axis=0)
            count += hit.sum(axis=0)
    values = total[t_ids].tolist()
    return {v: (x if c else 0) for v, x, c in zip(targets, values, count[t_ids].tolist())}


# --- betweenness ------------------------------------------------------------------------

def _bc_lengths(G, weight, where):
    """(the weighted matrix, its float64 lengths) for NetworkX's ``weight``,
    or None (hops: ``weight`` None, or an attribute no edge was converted
    with: NetworkX's ``data.get(weight, 1)`` is 1 everywhere).
    ``NotImplementedError`` (NetworkX then answers) where NetworkX's
    Dijkstra counts paths by its heap order or sums beyond float64: a
    length that is zero, negative, NaN or infinite, or small enough that a
    path sum could ignore it (min length * 2**51 <= (n - 1) * max length:
    dist + w == dist), or integer lengths from 2**52 up."""
    from bitgraph.algorithms import betweenness as B

    if weight is None or not G.has_weights(weight):
        return None
    vals = G.weight_values(weight, 1)
    if vals.size:
        lo, hi = float(vals.min()), float(vals.max())
        if not (np.isfinite(lo) and np.isfinite(hi) and lo > 0) \
                or lo * 2.0**51 <= (len(G) - 1) * hi \
                or (weight in G._int_weights and hi >= 2**52):
            raise NotImplementedError(f"bitgraph {where}: edge lengths must be > 0 and finite,"
                                      " and not so far apart that a path sum ignores one")
    W = G.weighted(weight, 1)
    return W, B._lengths(W, weight, where)


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """``networkx.betweenness_centrality``: Brandes in batches of 64
    sources over the whole graph
    (:func:`bitgraph.algorithms.betweenness_centrality`), with NetworkX's
    sample of ``k`` sources (``seed.sample(list(G), k)``, the ``seed`` that
    NetworkX's ``py_random_state`` hands over) and its ``_rescale``
    (directed as ``G.is_directed()``). ``weight``: the attribute whose
    values are the lengths (1 where an edge lacks it; a multigraph's
    parallel edges count by the shortest), Dijkstra paths; lengths with
    which NetworkX's answer follows its heap order fall back to NetworkX
    (:func:`_bc_lengths`).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> betweenness_centrality(from_networkx(nx.path_graph(3)))
    {0: 0.0, 1: 1.0, 2: 0.0}
    >>> G = nx.Graph([(0, 1, {"w": 1}), (1, 2, {"w": 1}), (0, 2, {"w": 2})])
    >>> betweenness_centrality(from_networkx(G, {"w": 1}), weight="w", normalized=False)
    {0: 0.0, 1: 0.5, 2: 0.0}
    """
    from bitgraph.algorithms import betweenness as B

    where = "betweenness_centrality"
    weighted = _bc_lengths(G, weight, where)
    A = G.matrix
    src, sampled = B._sources(A, None, k, seed, where)
    if weighted is not None:
        bc = B._weighted_node_bc(*weighted, src, sampled, normalized=normalized,
                                 endpoints=endpoints, directed=G.is_directed(), where=where)
    else:
        bc = B._scaled_node_bc(A, src, sampled, normalized=normalized, endpoints=endpoints,
                               directed=G.is_directed())
    return dict(zip(G.nodes, _host(bc).tolist()))


def _edge_keys(G):
    """(rows, cols) int64 of ``G.edges()`` in NetworkX's order: each
    vertex's neighbours in adjacency order; undirected, an edge once, from
    the endpoint that comes first in the node order."""
    n = len(G)
    if G._adj_indptr is None:  # not from a NetworkX graph: CSR order
        c = G.cpu_matrix._csr()
        indptr, cols = np.asarray(c.indptr, np.int64), np.asarray(c.indices, np.int64)
    else:
        indptr, cols = np.asarray(G._adj_indptr, np.int64), np.asarray(G._adj_indices, np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    if not G.is_directed():
        keep = cols >= rows
        rows, cols = rows[keep], cols[keep]
    return rows, cols


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """``networkx.edge_betweenness_centrality`` (not a multigraph): the
    edge sums of Brandes' batches
    (:func:`bitgraph.algorithms.edge_betweenness_centrality`), keyed as
    ``G.edges()`` in its order; ``k``, ``seed`` and ``weight`` as
    :func:`betweenness_centrality`.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> edge_betweenness_centrality(from_networkx(nx.path_graph(3)), normalized=False)
    {(0, 1): 2.0, (1, 2): 2.0}
    """
    from bitgraph.algorithms import betweenness as B

    where = "edge_betweenness_centrality"
    weighted = _bc_lengths(G, weight, where)
    A = G.matrix
    directed = G.is_directed()
    src, sampled = B._sources(A, None, k, seed, where, draw_all=True)
    if weighted is not None:
        rows, cols, e = B._weighted_raw_edge_bc(*weighted, src, directed, where=where)
    else:
        rows, cols, e = B._raw_edge_bc(A, src, directed)
    e = B._rescale(e, len(G), normalized=normalized, directed=directed, endpoints=True,
                   sampled=src if sampled else None)
    n = max(len(G), 1)
    # the CSR position of each key: rows are sorted, so the keys r * n + c are
    key = _host(rows).astype(np.int64) * n + _host(cols).astype(np.int64)
    er, ec = _edge_keys(G)
    pos = np.searchsorted(key, er * n + ec)
    values = _host(e)[pos].tolist()
    labels = G.nodes
    return {(labels[r], labels[c]): v for r, c, v in zip(er.tolist(), ec.tolist(), values)}


# --- the backend tables -----------------------------------------------------------------

FUNCTIONS = {f.__name__: f for f in (
    degree_centrality, in_degree_centrality, out_degree_centrality,
    eigenvector_centrality, katz_centrality, hits, harmonic_centrality,
    betweenness_centrality, edge_betweenness_centrality)}

_CALLABLE_WEIGHT = (lambda a: callable(a["weight"]), "a callable weight")


def _bad_k(a):
    k = a["k"]
    if k is None:
        return False
    return (isinstance(k, bool) or not isinstance(k, (int, np.integer))
            or not 1 <= k <= len(a["G"]))


# NetworkX raises its own errors for these (a sample larger than the graph, k = 0)
_BC_K = (_bad_k, "k not an integer in 1..len(G)")

CAN_RUN = {
    # degrees count parallel edges; the conversion collapses them
    "degree_centrality": _refuse(degree_centrality, _MULTI),
    "in_degree_centrality": _refuse(in_degree_centrality, _MULTI),
    "out_degree_centrality": _refuse(out_degree_centrality, _MULTI),
    "eigenvector_centrality": _refuse(eigenvector_centrality, _MULTI, _CALLABLE_WEIGHT),
    "katz_centrality": _refuse(
        katz_centrality, _MULTI, _CALLABLE_WEIGHT,
        # NetworkX's values stay ints when alpha and every beta are ints
        (lambda a: isinstance(a["alpha"], int) and isinstance(a["beta"], dict),
         "an int alpha with a beta dict (NetworkX may return ints)")),
    "hits": _refuse(hits, _MULTI,
                    (lambda a: len(a["G"]) == 1 and _hits_method(a["method"]) == "svd",
                     "one node: NetworkX's svds raises its own error")),
    "harmonic_centrality": _refuse(
        harmonic_centrality,
        (lambda a: a["distance"] is not None, "weighted distances not implemented")),
    "betweenness_centrality": _refuse(betweenness_centrality, _CALLABLE_WEIGHT, _BC_K),
    # a multigraph's edges are keyed (u, v, key) and share the value
    "edge_betweenness_centrality": _refuse(edge_betweenness_centrality, _MULTI, _CALLABLE_WEIGHT,
                                           _BC_K),
}

_NX = "https://networkx.org/documentation/stable/reference/generated/networkx.algorithms."
INFO = {
    "betweenness_centrality": {
        "url": _NX + "centrality.betweenness_centrality.html",
        "note": "Brandes in batches of 64 sources: multi-source BFS levels, path counts and "
                "dependencies by masked plus_first products; weighted: Dijkstra a source "
                "(lengths that are zero, non-finite or too far apart for float64 sums fall "
                "back); k sampled as NetworkX with its seed, NetworkX's scaling.",
        "extra_parameters": {}},
    "edge_betweenness_centrality": {
        "url": _NX + "centrality.edge_betweenness_centrality.html",
        "note": "Brandes in batches of 64 sources; edge shares summed per batch; weighted "
                "as betweenness_centrality; k and seed as NetworkX; multigraphs fall back.",
        "extra_parameters": {}},
    "degree_centrality": {
        "url": _NX + "centrality.degree_centrality.html",
        "note": "Row (and, directed, column) counts of the adjacency; multigraphs fall back.",
        "extra_parameters": {}},
    "in_degree_centrality": {
        "url": _NX + "centrality.in_degree_centrality.html",
        "note": "Column counts of the adjacency; multigraphs fall back.",
        "extra_parameters": {}},
    "out_degree_centrality": {
        "url": _NX + "centrality.out_degree_centrality.html",
        "note": "Row counts of the adjacency; multigraphs fall back.",
        "extra_parameters": {}},
    "eigenvector_centrality": {
        "url": _NX + "centrality.eigenvector_centrality.html",
        "note": "Power iteration, one vxm a step with NetworkX's (A + I) update and stop "
                "rule; weights and nstart as NetworkX.",
        "extra_parameters": {}},
    "katz_centrality": {
        "url": _NX + "centrality.katz_centrality.html",
        "note": "Power iteration, one vxm a step with NetworkX's update and stop rule; "
                "beta as a number or a dict, weights and nstart as NetworkX.",
        "extra_parameters": {}},
    "harmonic_centrality": {
        "url": _NX + "centrality.harmonic_centrality.html",
        "note": "Unweighted only (distance falls back); multi-source BFS in batches, from "
                "the smaller of nbunch and sources.",
        "extra_parameters": {}},
    "hits": {
        "url": _NX + "link_analysis.hits_alg.hits.html",
        "note": "method as NetworkX (default: the installed NetworkX's, power_iteration "
                "from 3.7, svd before). power_iteration: NetworkX's iteration and stop "
                "rule, one vxm and one mxv a step; svd: power iteration to NetworkX's "
                "singular vectors, a run that does not converge falls back to ARPACK.",
        "extra_parameters": {}},
}
