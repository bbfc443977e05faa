"""NetworkX backend functions for whole-graph measures: PageRank,
components, triangles and clustering, closeness, eccentricity, diameter
and radius.

Each function has the name, signature and return values of the NetworkX
function of that name and takes a :class:`bitgraph.nx.graph.BitGraph` as
``G``; the numeric work is one call into ``bitgraph.algorithms`` (or a few
GraphBLAS operations) over the whole graph, and only building the result
dict walks the nodes in Python. Argument combinations these functions do
not cover are refused in ``CAN_RUN`` (NetworkX then runs its own code);
inputs the bitgraph algorithm rejects but NetworkX accepts (negative
PageRank weights, an all-zero ``nstart``) raise ``NotImplementedError``,
which makes NetworkX fall back as well.

Devices: the bitgraph algorithms get ``G.matrix`` (``G.weighted(...)`` for
a weighted PageRank, on the same device) and run where it is, on CUDA when
the conversion put it there; their results come back to the host once to
build the dict. The degree counts of clustering read ``G.cpu_matrix``.

>>> import networkx as nx
>>> from bitgraph.nx.convert import from_networkx
>>> BG = from_networkx(nx.Graph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]))
>>> triangles(BG)
{'a': 1, 'b': 1, 'c': 1, 'd': 0}
>>> sorted(map(sorted, connected_components(BG))), diameter(BG)
([['a', 'b', 'c', 'd']], 2)
"""

from __future__ import annotations

import inspect

import numpy as np

from bitgraph.device import host as _host

__all__ = [
    "pagerank", "connected_components", "number_connected_components", "is_connected",
    "node_connected_component", "weakly_connected_components",
    "number_weakly_connected_components", "triangles", "transitivity", "clustering",
    "average_clustering", "closeness_centrality", "eccentricity", "diameter", "radius",
    "FUNCTIONS", "INFO", "CAN_RUN",
]


# --- helpers --------------------------------------------------------------------------

def _not_implemented_for(G, kind):
    """NetworkX's ``not_implemented_for`` check, for direct calls (the
    dispatcher runs NetworkX's own decorator before it calls us)."""
    import networkx as nx

    if (kind == "directed") == G.is_directed():
        raise nx.NetworkXNotImplemented(f"not implemented for {kind} type")


def _nx_version() -> tuple:
    """The installed NetworkX's (major, minor), read at each call: the
    backend answers as the NetworkX it runs under (3.6 and 3.7 differ).

    >>> _nx_version() >= (3, 6)
    True
    """
    import re

    import networkx as nx

    major, minor = re.match(r"(\d+)\.(\d+)", nx.__version__).groups()
    return int(major), int(minor)


def _nx_default(name, param, fallback):
    """The default of parameter ``param`` of the installed NetworkX's
    function ``name`` (its undecorated ``orig_func``), or ``fallback`` where
    that NetworkX lacks the parameter: e.g. ``hits``'s ``method`` is
    "power_iteration" from NetworkX 3.7 and absent (ARPACK, our "svd")
    before.

    >>> _nx_default("pagerank", "alpha", None)
    0.85
    """
    import networkx as nx

    func = getattr(nx, name)
    param = inspect.signature(getattr(func, "orig_func", func)).parameters.get(param)
    return fallback if param is None else param.default


def _contains(G, node) -> bool:
    try:
        return node in G.index
    except TypeError:  # unhashable: not a node, as Graph.__contains__
        return False


def _nbunch(G, nbunch) -> list:
    """Vertex ids of ``Graph.nbunch_iter(nbunch)``: all nodes, one node, or
    the nodes of a container that are in G (in its order, repeats kept),
    with NetworkX's errors."""
    import networkx as nx

    if nbunch is None:
        return list(range(len(G.nodes)))
    if _contains(G, nbunch):
        return [G.index[nbunch]]
    index = G.index
    out = []
    try:
        for v in nbunch:
            if v in index:
                out.append(index[v])
    except TypeError as err:
        message = err.args[0] if err.args else ""
        if "object is not iterable" in message:
            raise nx.NetworkXError(f"Node {nbunch} is not in the graph.") from err
        if "iter" in message:
            raise nx.NetworkXError("nbunch is not a node or a sequence of nodes.") from err
        if "hashable" in message:
            raise nx.NetworkXError(f"Node {v} in sequence nbunch is not a valid node.") from err
        raise
    return out


def _cc_labels(G) -> np.ndarray:
    """Each vertex's component label (smallest vertex id in it), cached on G."""
    from bitgraph.algorithms import connected_components as cc

    cache = G.__dict__.setdefault("_measures_cache", {})
    if "cc" not in cache:
        cache["cc"] = _host(cc(G.matrix).to_dense())
    return cache["cc"]


def _component_sets(G):
    """Components as sets of labels, in the order of their first node in G
    (NetworkX's order: the smallest id is the first node met)."""
    labels = _cc_labels(G)
    if labels.size == 0:
        return
    order = np.argsort(labels, kind="stable")
    cut = np.flatnonzero(np.diff(labels[order])) + 1
    bounds = np.concatenate([[0], cut, [labels.size]]).tolist()
    names = G.labels(order)
    for a, b in zip(bounds[:-1], bounds[1:]):
        yield set(names[a:b])


def _undirected_degree(G) -> np.ndarray:
    """NetworkX's ``len(set(G[v]) - {v})``: neighbours without v itself."""
    A = G.cpu_matrix
    indptr = np.asarray(A.indptr, np.int64)
    indices = np.asarray(A.indices, np.int64)
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    loops = np.bincount(rows[rows == indices], minlength=indptr.size - 1)
    return np.diff(indptr) - loops


def _offdiag_counts(G, symmetrise):
    """int64 A without its diagonal, every entry 1 (``symmetrise``: A + A',
    entries 1, or 2 where both directions are edges)."""
    import bitgraph as bg

    A = G.cpu_matrix
    n = A.nrows
    indptr = np.asarray(A.indptr, np.int64)
    c = np.asarray(A.indices, np.int64)
    r = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keep = r != c
    r, c = r[keep], c[keep]
    if symmetrise:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
    B = bg.Matrix.from_coo(r, c, np.ones(r.size, np.int64), nrows=n, ncols=n, dup_op="plus",
                           device="cpu")
    return B


def _ratios(t, denom):
    """``0 if t == 0 else t / denom`` per vertex, as Python numbers (int 0,
    like NetworkX, else a float: the division of two exact integers rounds
    the same in numpy as in Python)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        c = t / denom
    return [0 if ti == 0 else ci for ti, ci in zip(t.tolist(), c.tolist())]


# --- PageRank ----------------------------------------------------------------------

def pagerank(G, alpha=0.85, personalization=None, max_iter=100, tol=1.0e-6,
             nstart=None, weight="weight", dangling=None):
    """``networkx.pagerank``: power iteration with NetworkX's update and stop
    rule (L1 change < ``len(G) * tol``); ``nx.PowerIterationFailedConvergence``
    after ``max_iter`` iterations without converging.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> pr = pagerank(from_networkx(nx.DiGraph([(0, 1), (1, 2), (2, 0)])))
    >>> [round(v, 4) for v in pr.values()]
    [0.3333, 0.3333, 0.3333]
    """
    import networkx as nx

    from bitgraph.algorithms import pagerank as bg_pagerank
    from bitgraph.errors import InvalidValue

    n = len(G)
    if n == 0:
        return {}
    index = G.index

    def vector(d):
        # NetworkX reads d.get(node, 0) over the nodes: other keys are ignored
        a = np.zeros(n)
        for k, v in d.items():
            i = index.get(k) if _hashable(k) else None
            if i is not None:
                a[i] = v
        return a

    p = None if personalization is None else vector(personalization)
    if p is not None and p.sum() == 0:
        raise ZeroDivisionError
    x0 = None if nstart is None else vector(nstart)
    dw = None if dangling is None else vector(dangling)
    # an attribute not converted counts 1 on every edge (what NetworkX reads
    # from a graph without it); the dispatcher always converts ``weight``
    if weight is None or not G.has_weights(weight):
        A = G.matrix
    else:
        A = G.weighted(weight, default=1.0)
    try:
        pr = bg_pagerank(A, alpha=alpha, tol=tol, max_iter=max_iter, personalization=p,
                         nstart=x0, dangling=dw)
    except InvalidValue as e:
        # negative or NaN weights or vector entries, an all-zero nstart or
        # dangling: NetworkX computes with them; let it
        raise NotImplementedError(f"bitgraph pagerank: {e}") from None
    if not pr.converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(G.nodes, _host(pr.ranks.to_dense()).tolist()))


def _hashable(k) -> bool:
    try:
        hash(k)
    except TypeError:
        return False
    return True


# --- components ----------------------------------------------------------------------

def connected_components(G):
    """``networkx.connected_components``: a generator of node sets, in the
    order of each component's first node in G.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> G = nx.Graph([(1, 2), (3, 4)]); G.add_node(0)
    >>> list(connected_components(from_networkx(G)))
    [{1, 2}, {3, 4}, {0}]
    """
    _not_implemented_for(G, "directed")
    return _component_sets(G)


def number_connected_components(G):
    """``networkx.number_connected_components``.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> number_connected_components(from_networkx(nx.empty_graph(3)))
    3
    """
    _not_implemented_for(G, "directed")
    labels = _cc_labels(G)
    return int(np.count_nonzero(labels == np.arange(labels.size)))


def is_connected(G):
    """``networkx.is_connected`` (``NetworkXPointlessConcept`` on the null graph).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> is_connected(from_networkx(nx.path_graph(4)))
    True
    """
    import networkx as nx

    _not_implemented_for(G, "directed")
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("Connectivity is undefined for the null graph.")
    return number_connected_components(G) == 1


def node_connected_component(G, n):
    """``networkx.node_connected_component``: the set of nodes in n's
    component (``KeyError`` when n is not in G, as NetworkX).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> node_connected_component(from_networkx(nx.Graph([(1, 2), (3, 4)])), 4)
    {3, 4}
    """
    _not_implemented_for(G, "directed")
    i = G.index[n]
    labels = _cc_labels(G)
    return set(G.labels(np.flatnonzero(labels == labels[i])))


def weakly_connected_components(G):
    """``networkx.weakly_connected_components`` (directed graphs only).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> list(weakly_connected_components(from_networkx(nx.DiGraph([(2, 1), (3, 4)]))))
    [{1, 2}, {3, 4}]
    """
    _not_implemented_for(G, "undirected")
    return _component_sets(G)


def number_weakly_connected_components(G):
    """``networkx.number_weakly_connected_components`` (directed graphs only).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> number_weakly_connected_components(from_networkx(nx.DiGraph([(2, 1), (3, 4)])))
    2
    """
    _not_implemented_for(G, "undirected")
    labels = _cc_labels(G)
    return int(np.count_nonzero(labels == np.arange(labels.size)))


# --- triangles and clustering -----------------------------------------------------------

def _triangle_counts(G) -> np.ndarray:
    """Triangles through each vertex (undirected, self-loops ignored), cached."""
    from bitgraph.algorithms import triangle_count

    cache = G.__dict__.setdefault("_measures_cache", {})
    if "tri" not in cache:
        cache["tri"] = _host(triangle_count(G.matrix, per_vertex=True).to_dense())
    return cache["tri"]


def triangles(G, nodes=None):
    """``networkx.triangles``: the number of triangles through each node (a
    dict), or through ``nodes`` when it is a single node (an int).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> BG = from_networkx(nx.complete_graph(4))
    >>> triangles(BG, 0), triangles(BG, [1, 2])
    (3, {1: 3, 2: 3})
    """
    _not_implemented_for(G, "directed")
    T = _triangle_counts(G)
    if nodes is not None:
        if _contains(G, nodes):
            return int(T[G.index[nodes]])
        ids = _nbunch(G, nodes)
        return dict(zip(G.labels(ids), T[ids].tolist()))
    return dict(zip(G.nodes, T.tolist()))


def _directed_triangles(G):
    """(t, dtotal, dbidirectional) of NetworkX's directed clustering, self-loops
    ignored: with B = A + A' (no diagonal), t(i) = (B^3)(i, i), computed as the
    row sums of (B plus.times B masked by B) times B."""
    import bitgraph as bg

    B = _offdiag_counts(G, symmetrise=True)
    C = bg.mxm(B, B, bg.PLUS_TIMES, mask=B.S)
    t = _host(bg.reduce(bg.ewise_mult(C, B, "times"), by="rows").to_dense(0)).astype(np.int64)
    A0 = _offdiag_counts(G, symmetrise=False)
    out_deg = _host(bg.reduce(A0, by="rows").to_dense(0)).astype(np.int64)
    in_deg = _host(bg.reduce(A0, by="cols").to_dense(0)).astype(np.int64)
    # bidirectional pairs: entries of B equal to 2
    both = _host(bg.reduce(bg.select(B, "valueeq", 2), by="rows").to_dense(0)).astype(np.int64)
    return t, out_deg + in_deg, both // 2


def clustering(G, nodes=None, weight=None):
    """``networkx.clustering``, unweighted (``weight`` must be None): for an
    undirected graph 2 T(v) / (deg(v) (deg(v) - 1)) with deg excluding
    self-loops; for a directed one NetworkX's directed formula
    t / (2 (dt (dt - 1) - 2 db)). A value is the int 0 where t is 0.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> clustering(from_networkx(nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3)])))
    {0: 1.0, 1: 1.0, 2: 0.3333333333333333, 3: 0}
    """
    if weight is not None:
        raise NotImplementedError("bitgraph clustering is unweighted only")
    if G.is_directed():
        t, dt, db = _directed_triangles(G)
        denom = (dt * (dt - 1) - 2 * db) * 2
    else:
        t = 2 * _triangle_counts(G)
        d = _undirected_degree(G)
        denom = d * (d - 1)
    if nodes is not None and _contains(G, nodes):
        i = G.index[nodes]
        return 0 if t[i] == 0 else int(t[i]) / int(denom[i])
    ids = None if nodes is None else _nbunch(G, nodes)
    if ids is None:
        return dict(zip(G.nodes, _ratios(t, denom)))
    ids = np.asarray(ids, np.int64)
    return dict(zip(G.labels(ids), _ratios(t[ids], denom[ids])))


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """``networkx.average_clustering`` (unweighted): the mean of
    :func:`clustering` over ``nodes`` (all by default), summed in the same
    order as NetworkX.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> average_clustering(from_networkx(nx.complete_graph(5)))
    1.0
    """
    c = clustering(G, nodes, weight=weight).values()
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    """``networkx.transitivity``: 3 x triangles / connected triples (the int
    0 when there is no triangle); for a directed graph NetworkX's count over
    successors.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> transitivity(from_networkx(nx.complete_graph(4)))
    1.0
    """
    import bitgraph as bg

    if len(G) == 0:
        return 0
    if G.is_directed():
        # NetworkX's _triangles_and_degree_iter on a DiGraph reads successors
        # only: t(v) = sum over successors w of |succ(v) & succ(w)| and
        # d(v) = |succ(v)|, self-loops excluded: row sums of A0 A0' masked by A0
        A0 = _offdiag_counts(G, symmetrise=False)
        C = bg.mxm(A0, A0.T, bg.PLUS_TIMES, mask=A0.S)
        t = _host(bg.reduce(C, by="rows").to_dense(0)).astype(np.int64)
        d = _host(bg.reduce(A0, by="rows").to_dense(0)).astype(np.int64)
    else:
        t = 2 * _triangle_counts(G)
        d = _undirected_degree(G)
    tri = int(t.sum())
    contri = int((d * (d - 1)).sum())
    return 0 if tri == 0 else tri / contri


# --- closeness and distances -------------------------------------------------------------

def closeness_centrality(G, u=None, distance=None, wf_improved=True, *, sp=None):
    """``networkx.closeness_centrality`` (unweighted: ``distance`` None),
    from BFSs over incoming edges in msbfs batches of 64.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> closeness_centrality(from_networkx(nx.path_graph(3)))
    {0: 0.6666666666666666, 1: 1.0, 2: 0.6666666666666666}
    """
    from bitgraph.algorithms import closeness_centrality as bg_closeness

    if distance is not None or sp is not None:  # sp: NetworkX 3.7's precomputed lengths
        raise NotImplementedError("bitgraph closeness_centrality is unweighted only")
    # bitgraph's runs on either device: G.matrix where it is
    if u is not None:
        i = G.node_id(u)
        return float(_host(bg_closeness(G.matrix, [i], wf_improved=bool(wf_improved)))[0])
    c = _host(bg_closeness(G.matrix, wf_improved=bool(wf_improved)))
    return dict(zip(G.nodes, c.tolist()))


def _eccentricities(G, ids):
    import networkx as nx

    from bitgraph.algorithms import eccentricity as bg_eccentricity
    from bitgraph.errors import InvalidValue

    try:
        return _host(bg_eccentricity(G.matrix, np.asarray(ids, np.int64)))
    except InvalidValue:
        if G.is_directed():
            msg = ("Found infinite path length because the digraph is not"
                   " strongly connected")
        else:
            msg = "Found infinite path length because the graph is not connected"
        raise nx.NetworkXError(msg) from None


def eccentricity(G, v=None, sp=None, weight=None):
    """``networkx.eccentricity`` (unweighted, ``sp`` None): the largest
    distance from each node of ``v`` (all by default) along out-edges; an
    int when ``v`` is one node. ``NetworkXError`` when a distance is infinite.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> eccentricity(from_networkx(nx.path_graph(4)))
    {0: 3, 1: 2, 2: 2, 3: 3}
    """
    if len(G) == 0 and _nx_version() >= (3, 7):
        import networkx as nx

        # NetworkX 3.7 refuses the null graph first (3.6 returns {})
        raise nx.NetworkXPointlessConcept("Cannot compute eccentricity of a null graph.")
    if sp is not None or weight is not None:
        raise NotImplementedError("bitgraph eccentricity: unweighted, sp=None only")
    ids = _nbunch(G, v)
    if not ids:
        return {}
    ecc = _eccentricities(G, ids).tolist()
    if _contains(G, v):
        return ecc[0]
    return dict(zip(G.labels(ids), ecc))


def diameter(G, e=None, usebounds=False, weight=None):
    """``networkx.diameter`` (unweighted): the largest eccentricity, from a
    BFS of every node (``usebounds`` gives the same exact value and is not
    needed). On the null graph NetworkX's error: ``ValueError`` (3.6, and
    with ``usebounds``), ``NetworkXPointlessConcept`` (3.7).

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> diameter(from_networkx(nx.cycle_graph(7)))
    3
    """
    if weight is not None:
        raise NotImplementedError("bitgraph diameter is unweighted only")
    if e is None and usebounds is True and not G.is_directed() and len(G) == 0:
        # NetworkX's bounding search takes max() of the null graph's no degrees
        raise ValueError("max() arg is an empty sequence")
    if e is None:
        e = eccentricity(G)
    return max(e.values())


def radius(G, e=None, usebounds=False, weight=None):
    """``networkx.radius`` (unweighted): the smallest eccentricity; on the
    null graph NetworkX's errors, as :func:`diameter`.

    >>> import networkx as nx
    >>> from bitgraph.nx.convert import from_networkx
    >>> radius(from_networkx(nx.path_graph(5)))
    2
    """
    if weight is not None:
        raise NotImplementedError("bitgraph radius is unweighted only")
    if e is None and usebounds is True and not G.is_directed() and len(G) == 0:
        # NetworkX's bounding search takes max() of the null graph's no degrees
        raise ValueError("max() arg is an empty sequence")
    if e is None:
        e = eccentricity(G)
    return min(e.values())


# --- the backend tables -------------------------------------------------------------------

def _bound(func, args, kwargs):
    """The call's arguments by name, defaults filled in (None if they do not bind)."""
    try:
        b = inspect.signature(func).bind(*args, **kwargs)
    except TypeError:
        return None
    b.apply_defaults()
    return b.arguments


def _is_multigraph(G) -> bool:
    return bool(getattr(G, "multigraph_source", False)) or bool(G.is_multigraph())


def _refuse(func, *checks):
    """A CAN_RUN entry: the first failing check's reason, else True.
    ``checks``: (predicate on the bound arguments, reason)."""
    def can_run(args, kwargs):
        a = _bound(func, args, kwargs)
        if a is None:
            return True  # let the call itself raise NetworkX's TypeError
        for pred, reason in checks:
            if pred(a):
                return reason
        return True
    return can_run


_MULTI = (lambda a: _is_multigraph(a["G"]),
          "multigraphs: the conversion collapses parallel edges, which changes this result")
_WEIGHT = (lambda a: a["weight"] is not None, "weighted version not implemented")

FUNCTIONS = {f.__name__: f for f in (
    pagerank, connected_components, number_connected_components, is_connected,
    node_connected_component, weakly_connected_components,
    number_weakly_connected_components, triangles, transitivity, clustering,
    average_clustering, closeness_centrality, eccentricity, diameter, radius)}

CAN_RUN = {
    "pagerank": _refuse(pagerank, _MULTI,
                        (lambda a: callable(a["weight"]), "a callable weight")),
    "triangles": _refuse(triangles, _MULTI),
    "transitivity": _refuse(transitivity, _MULTI),
    "clustering": _refuse(clustering, _MULTI, _WEIGHT),
    "average_clustering": _refuse(average_clustering, _MULTI, _WEIGHT),
    "closeness_centrality": _refuse(
        closeness_centrality,
        (lambda a: a["distance"] is not None, "weighted distances not implemented"),
        (lambda a: a["sp"] is not None, "precomputed shortest paths (sp) not used")),
    "eccentricity": _refuse(
        eccentricity, _WEIGHT,
        (lambda a: a["sp"] is not None, "precomputed shortest paths (sp) not used")),
    "diameter": _refuse(diameter, _WEIGHT),
    "radius": _refuse(radius, _WEIGHT),
}

_NX = "https://networkx.org/documentation/stable/reference/generated/networkx.algorithms."
INFO = {
    "pagerank": {
        "url": _NX + "link_analysis.pagerank_alg.pagerank.html",
        "note": "Power iteration, one fused pass over A' per iteration; weights, "
                "personalization, nstart and dangling as NetworkX; multigraphs fall back.",
        "extra_parameters": {}},
    "connected_components": {
        "url": _NX + "components.connected_components.html",
        "note": "Afforest union-find over the whole graph, then one set per component.",
        "extra_parameters": {}},
    "number_connected_components": {
        "url": _NX + "components.number_connected_components.html",
        "note": "Afforest union-find; counts the component roots.", "extra_parameters": {}},
    "is_connected": {
        "url": _NX + "components.is_connected.html",
        "note": "Afforest union-find; one component or not.", "extra_parameters": {}},
    "node_connected_component": {
        "url": _NX + "components.node_connected_component.html",
        "note": "Labels every vertex by component (Afforest), then picks n's.",
        "extra_parameters": {}},
    "weakly_connected_components": {
        "url": _NX + "components.weakly_connected_components.html",
        "note": "Afforest union-find ignoring edge directions (no symmetrised copy).",
        "extra_parameters": {}},
    "number_weakly_connected_components": {
        "url": _NX + "components.number_weakly_connected_components.html",
        "note": "Afforest union-find ignoring edge directions.", "extra_parameters": {}},
    "triangles": {
        "url": _NX + "cluster.triangles.html",
        "note": "Per-vertex triangle counts of the whole graph (ordered kernel, degree "
                "relabelling on skewed graphs), even when one node is asked for.",
        "extra_parameters": {}},
    "transitivity": {
        "url": _NX + "cluster.transitivity.html",
        "note": "From per-vertex triangle counts and degrees; directed: masked A plus.times A.",
        "extra_parameters": {}},
    "clustering": {
        "url": _NX + "cluster.clustering.html",
        "note": "Unweighted only (weight falls back); directed: masked (A+A')^2 times (A+A').",
        "extra_parameters": {}},
    "average_clustering": {
        "url": _NX + "cluster.average_clustering.html",
        "note": "Unweighted only (weight falls back); mean of clustering.",
        "extra_parameters": {}},
    "closeness_centrality": {
        "url": _NX + "centrality.closeness_centrality.html",
        "note": "Unweighted only (distance falls back); multi-source BFS, 64 sources a pass"
                " (on the GPU when the graph is there).",
        "extra_parameters": {}},
    "eccentricity": {
        "url": _NX + "distance_measures.eccentricity.html",
        "note": "Unweighted only, sp=None; multi-source BFS, 64 sources a pass.",
        "extra_parameters": {}},
    "diameter": {
        "url": _NX + "distance_measures.diameter.html",
        "note": "Unweighted only; exact, from multi-source BFS of every node "
                "(usebounds not needed).",
        "extra_parameters": {}},
    "radius": {
        "url": _NX + "distance_measures.radius.html",
        "note": "Unweighted only; exact, from multi-source BFS of every node.",
        "extra_parameters": {}},
}
