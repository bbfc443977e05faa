"""Single-source shortest paths: min-plus relaxation, two methods.

``sssp(A, s)`` follows out-edges (entry (i, j) of A is an edge i -> j of
length A(i, j)) and returns the length of a shortest path from s to every
vertex it reaches. The methods:

- ``"bellman-ford"``: the GraphBLAS formulation over a frontier, one
  public-API product per round,
  ``t = f min.plus A`` (f: the vertices improved in the last round, with
  their distances), then ``d = min(d, t)`` and the next f is the part of
  t that improved d (two numpy passes over dense arrays: the round is
  O(n) besides the product anyway, and an ``accum="min"`` into d would
  merge sorted entry lists and still need the comparison). Rounds: at most
  the number of edges on the longest shortest path (plus re-improvements);
  it is the reference the fused method is tested against.
- ``"delta"``: delta-stepping (Meyer & Sanders) in one fused kernel
  (``kernels/cpu/sssp.py``): buckets of width ``delta``, serial while a
  bucket's frontier is small, large frontiers on the thread pool. On a
  CUDA graph, near-far delta-stepping (``kernels/cuda/sssp.cu``): a near
  list relaxed a round at a time with atomicMin, a far pile split at each
  threshold (the same distances, dtype and overflow rule); with
  ``settings.sssp.cuda_persistent`` (on) the whole bucket loop runs in one
  cooperative launch, off the host drives it (a launch a round, a counter
  read a batch).
- ``"auto"``: ``"bellman-ford"`` when a weight is negative, else
  ``"delta"`` (on both devices): at scale 16 with weights 1..255 the CPU's
  fused kernel is 3-5x faster than Bellman-Ford on kron and urand, 30x on
  a 256x256 grid, which takes hundreds of rounds. ``python
  benchmarks/run.py --algo sssp`` times it against scipy's Dijkstra.

A CUDA graph (``A.to("cuda")``) runs every method there and returns its
Vector on the GPU; the weight checks reduce on the device, and only the
error paths (naming a negative cycle, int64 sums that might wrap with
negative weights) copy A to the host.

Negative weights (``"bellman-ford"`` only; ``"delta"`` refuses them):
the rounds go on until no distance changes, at most n of them. After
round k every distance is at most the shortest walk of k edges, and every
distance is the length of a walk, so an improvement in round n (a walk of
n edges shorter than every shorter walk) means a negative cycle is
reachable: :class:`~bitgraph.errors.NegativeCycle` is raised, naming a
vertex on one. It is found by running the rounds again with each
improvement's predecessor kept (numpy, over A's CSR): from a vertex still
improving in round n, n predecessor steps land on a cycle of the
predecessor graph, and every such cycle has negative weight (a
predecessor edge (p, v) keeps d(v) >= d(p) + w(p, v), strictly from the
round that closed the cycle on). ``negative_cycle(A, source)`` answers
the same question as a bool; ``source=None`` asks about the whole graph
(every vertex starts at distance 0: a virtual source with a 0 edge to
each). Integer distances with negative weights are computed where every
walk of n edges fits (int32 or int64); int64 weights too large for that
are relaxed by the numpy rounds, which raise ``OverflowError`` when a sum
wraps.

Default delta: the mean weight over the average out-degree (Meyer &
Sanders' Θ(1/d) for weights in [0, 1], scaled by the weights), at least 1
for integer weights. With weights uniform in 1..255 or in [0, 1) on
kron, urand and 2-D grids it makes 1.00-1.05 relaxations per reached
vertex, with few enough buckets that scanning them costs nothing; the
time is flat from 1/3 to 3x the default and 1.2-1.4x slower at 10x
(kron, scale 18).

Distances have A's dtype, as ``min_plus`` on A's type gives them in
GraphBLAS; they are computed wider where they might not fit (small
integers in int32 or int64) and a distance that A's dtype cannot hold
raises ``OverflowError`` instead of wrapping (int64 and uint64 sums past
the range: "delta" saturates them, so only a distance that does not fit
raises; "bellman-ford" raises as soon as an int64 path sum wraps, and
takes uint64 weights below 2**63 only). Structure-only (or bool) A:
every edge has length 1 and the result is the BFS levels, int32.
"""

from __future__ import annotations

import numpy as np

from bitgraph import _array as ar
from bitgraph.algorithms._common import cached, check_graph, check_source, out_csr
from bitgraph.errors import InvalidValue, NegativeCycle

__all__ = ["sssp", "negative_cycle", "METHODS", "default_delta"]

METHODS = ("auto", "bellman-ford", "delta")

_INT32_MAX = np.iinfo(np.int32).max


def sssp(A, source, *, method="auto", delta=None, stats=None):
    """Shortest-path distances from ``source`` over A's edge weights.

    Returns a Vector of A's dtype holding the distance of every vertex
    reachable from ``source`` (the source at 0; unreached vertices absent:
    ``to_dense(-1)`` gives -1 for them). A structure-only (or bool) A gives
    the BFS levels as int32. Weights must not be NaN or -inf
    (``InvalidValue`` names the first bad stored entry); zero weights and
    self-loops are fine; an edge of weight +inf reaches nothing. Negative
    weights run Bellman-Ford (``method="delta"`` refuses them); a negative
    cycle reachable from ``source`` raises
    :class:`~bitgraph.errors.NegativeCycle` (an ``InvalidValue``) naming a
    vertex on it.

    stats: a ``bitgraph.Stats`` to fill with the method run (and its kernel).
    method: ``"auto"``, ``"bellman-ford"`` or ``"delta"`` (see the module
    docstring). delta: the bucket width of ``"delta"`` (> 0; default
    :func:`default_delta`).

    >>> import bitgraph as bg
    >>> from bitgraph.algorithms.shortest_paths import sssp
    >>> A = bg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 3], [4, 1, 2, 5], nrows=5, ncols=5)
    >>> sssp(A, 0).to_dense(-1).tolist()
    [0, 4, 1, 6, -1]
    >>> sssp(A, 0, method="bellman-ford").to_dense(-1).tolist()
    [0, 4, 1, 6, -1]
    >>> sssp(A, 0).dtype, sssp(A.T, 3).to_dense(-1).tolist()
    (dtype('int64'), [6, 7, 5, 0, -1])
    >>> B = bg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 3], [4, 1, -5, 2], nrows=4, ncols=4)
    >>> sssp(B, 0).to_dense().tolist()   # negative weights: Bellman-Ford
    [0, 4, -1, 1]
    """
    check_graph(A, "sssp", cuda=True)
    s = check_source(A, source, "sssp")
    if method not in METHODS:
        raise InvalidValue(f"sssp: unknown method {method!r}; expected one of {METHODS}")
    if delta is not None and not (isinstance(delta, (int, float, np.integer, np.floating))
                                  and not isinstance(delta, (bool, np.bool_))
                                  and np.isfinite(delta) and delta > 0
                                  and np.isfinite(1.0 / float(delta))):
        raise InvalidValue(f"sssp: delta must be a finite number > 0 (1 / delta finite too),"
                           f" got {delta!r}")
    if A.iso or A.dtype == np.bool_:
        from bitgraph.algorithms.breadth_first import bfs

        return bfs(A, s, stats=stats)  # unweighted: hops (stats names the bfs method)
    from bitgraph import settings

    cfg = settings.current()
    c = out_csr(A)
    weights = c.values
    facts = _weight_facts(A, c)
    neg = facts["neg"]
    n = A.nrows
    if neg is not None and method == "delta":
        raise InvalidValue(f"sssp: method='delta' needs edge weights >= 0; stored entry"
                           f" {neg} has weight {_entry(weights, neg)}: use method='bellman-ford'"
                           f" (or 'auto') for negative weights")
    W, D = _kernel_dtypes(A.dtype, weights, n, neg is not None, facts)
    if method == "auto":  # the fused kernel runs on both devices
        method = "delta" if neg is None else "bellman-ford"
    if stats is not None:  # what ran (bitgraph.Stats; _delta notes its kernel)
        stats.method = method
    if method == "delta":
        dist, reached = _delta(A, c, s, W, D, delta, cfg, stats)
    else:
        dist, reached, cycle = _bellman_ford(A, c, s, D, neg is not None)
        if cycle:
            _raise_cycle(c, s, D)
    return _result(dist, reached, A.dtype, A.device)


def negative_cycle(A, source=None, *, stats=None):
    """Whether A has a cycle of negative total weight reachable from
    ``source`` (None: anywhere in A), as networkx's ``negative_edge_cycle``.

    Bellman-Ford rounds (see the module docstring); ``source=None`` starts
    every vertex at distance 0 (a virtual source with a 0 edge to each).
    Structure-only, bool and unsigned A have none. NaN or -inf weights
    raise ``InvalidValue``; a negative self-loop is a negative cycle.
    stats: a ``bitgraph.Stats`` whose method becomes ``"bellman-ford"``
    when the rounds ran, ``"none"`` when A has no negative weight.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3], [1, 2, 1, 3], [5, 1, -2, -1], nrows=5, ncols=5)
    >>> negative_cycle(A), negative_cycle(A, 0), negative_cycle(A, 3), negative_cycle(A, 4)
    (True, True, True, False)
    >>> B = bg.Matrix.from_coo([0, 1, 2], [1, 2, 1], [5, 1, -1], nrows=3, ncols=3)
    >>> negative_cycle(B)   # the cycle 1 -> 2 -> 1 weighs 0
    False
    """
    check_graph(A, "negative_cycle", cuda=True)
    s = None if source is None else check_source(A, source, "negative_cycle")
    if stats is not None:
        stats.method = "none"
    if A.iso or A.dtype == np.bool_ or A.dtype.kind == "u":
        return False
    c = out_csr(A)
    neg = _check_weights(c.values, "negative_cycle")
    if neg is None:  # a negative cycle has a negative edge
        return False
    if stats is not None:
        stats.method = "bellman-ford"
    _, D = _kernel_dtypes(A.dtype, c.values, A.nrows, True)
    return bool(_bellman_ford(A, c, s, D, True)[2])


def default_delta(A, cfg=None):
    """The bucket width ``sssp(A, s, method="delta")`` uses by default: the
    mean weight over the average out-degree of the vertices with edges, at
    least 1 for integer weights, and at least max weight / (max_bins - 4)
    (the kernel's window of buckets; cfg: the ``SSSP`` settings, None:
    those in force).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 2, 3], [4, 1, 2, 5], nrows=4, ncols=4)
    >>> default_delta(A)   # mean weight 3, 3 edges per vertex with edges: 3 / (4 / 3)
    2.0
    """
    if cfg is None:
        from bitgraph import settings
        cfg = settings.current().sssp
    c = out_csr(A)
    w = c.values
    if w is None or w.size == 0:
        return 1.0

    facts = _weight_facts(A, c)
    delta = facts["mean"] * facts["rows"] / w.size
    if w.dtype.kind in "iu":
        delta = float(max(1, round(delta)))
    wmax = float(facts["finite_max"])
    delta = max(delta, wmax / (cfg.max_bins - 4))
    if delta > 0 and np.isfinite(1.0 / delta):
        return delta
    # every weight 0, or so small (subnormal) that 1 / delta overflows: one bucket
    return wmax if wmax > 0 and np.isfinite(1.0 / wmax) else 1.0


def _weight_facts(A, c):
    """What sssp reads of A's weights (c: A's CSR), found once and cached on
    A: ``neg`` (the first negative entry, None: none), ``max`` (the largest
    weight, inf included), ``finite_max`` and ``mean`` (over the finite
    weights; 0 if none), ``rows`` (rows with an entry). Each is a pass over
    the m weights (~10 ms at m = 32M), as long as the search itself on
    short-diameter graphs. A NaN or -inf weight raises ``InvalidValue``
    (not cached: every call raises)."""
    def build():
        w = c.values
        xp = ar.array_module(w)
        neg = _check_weights(w)
        facts = {"neg": neg, "max": 0, "finite_max": 0, "mean": 0.0,
                 "rows": int(xp.count_nonzero(xp.diff(c.indptr)))}
        if w.size:
            wmax = w.max().item()
            finite = w[xp.isfinite(w)] if w.dtype.kind == "f" and not np.isfinite(wmax) else w
            facts["max"] = wmax
            if finite.size:
                facts["finite_max"] = finite.max().item() if finite is not w else wmax
                facts["mean"] = float(finite.mean(dtype=np.float64))
        return facts

    if c.values is None:
        return {"neg": None, "max": 0, "finite_max": 0, "mean": 0.0, "rows": 0}
    return cached(A, "sssp_facts", build)


def _check_weights(weights, where="sssp"):
    """The first stored entry with a negative weight (None: none);
    ``InvalidValue`` for a NaN or -inf weight. Over numpy or CuPy weights
    (reductions on the device; the entry is looked up only when there is one)."""
    xp = ar.array_module(weights)
    if weights.size == 0:
        return None
    if weights.dtype.kind == "f":
        bad = xp.isnan(weights) | (weights == -np.inf)
        if bool(bad.any()):
            i = int(xp.flatnonzero(bad)[0])
            raise InvalidValue(f"{where}: edge weights must not be NaN or -inf; stored entry"
                               f" {i} has weight {_entry(weights, i)}")
    if weights.dtype.kind in "bu":
        return None
    if not bool(weights.min() < 0):
        return None
    return int(xp.flatnonzero(weights < 0)[0])


def _entry(values, i):
    """values[i] as a numpy scalar (from the host when values is a CuPy array)."""
    from bitgraph import device as bgdev

    return bgdev.host(values[i:i + 1])[0]


def _kernel_dtypes(dtype, weights, n, negative=False, facts=None):
    """(W, D): the kernel's weight and distance dtypes for A's dtype.

    Small integers run as int32 when every path fits (max weight * (n - 1)
    below the int32 maximum, which is the kernel's "unreached"; with
    negative weights: max |weight| * n, every walk of n edges), else as
    int64 (weights cast once, cached), as do uint32 and int64; uint64 as
    uint64; floats as themselves (f32 sums rounded in f32, as GraphBLAS's
    min_plus on FP32)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return dtype, dtype
    if dtype == np.uint64:
        return dtype, dtype
    if dtype.itemsize >= 4 and dtype != np.int32:  # int64, uint32
        return np.dtype(np.int64), np.dtype(np.int64)
    if facts is not None:
        wmax = int(facts["max"])
    else:
        wmax = int(weights.max()) if weights.size else 0
    steps = max(n - 1, 1)
    if negative:
        wmax = max(wmax, -int(weights.min()))
        steps = max(n, 1)
    D = np.dtype(np.int32 if wmax * steps < _INT32_MAX - 1 else np.int64)
    return D, D


def _cast_weights(A, c, W):
    """A's CSR with values of dtype W (cast once, cached on A)."""
    if c.values.dtype == W:
        return c
    return cached(A, "sssp_weights", lambda: c._replace(values=c.values.astype(W)), key=np.dtype(W))


def _rows_by_weight(c):
    """c (a CSR with values, numpy or CuPy) with each row's entries in
    ascending weight order (ties in column order): the light edges of
    every row then form a prefix. O(nnz log nnz), two stable sorts.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import CSR
    >>> c = CSR(np.array([0, 3, 3, 5]), np.array([0, 1, 2, 0, 2]),
    ...         np.array([5, 1, 3, 2, 2]), 3, 3)
    >>> r = _rows_by_weight(c)
    >>> r.indices.tolist(), r.values.tolist()
    ([1, 2, 0, 0, 2], [1, 3, 5, 2, 2])
    """
    xp = ar.array_module(c.indices)
    nnz = int(c.indices.shape[0])
    # entry p's row: the rows whose end is at most p
    rows = xp.searchsorted(c.indptr[1:], xp.arange(nnz, dtype=c.indptr.dtype), side="right")
    order = xp.argsort(c.values, kind="stable")
    order = order[xp.argsort(rows[order], kind="stable")]
    return c._replace(indices=c.indices[order], values=c.values[order])


def _delta(A, c, s, W, D, delta, settings, stats):
    from bitgraph.kernels import registry

    cfg = settings.sssp
    bins = cfg.max_bins - 4
    if delta is None:
        delta = default_delta(A, cfg)
        if A.device == "cuda":  # a round's work is cheap on a GPU: wider buckets, fewer rounds
            from bitgraph.algorithms.breadth_first import long_reach

            # a graph of long diameter (a mesh) runs thousands of rounds: wider still
            scale = cfg.cuda_delta_scale_long if long_reach(A) else (
                cfg.cuda_delta_scale_float if np.dtype(W).kind == "f"
                else cfg.cuda_delta_scale)
            delta *= max(1.0, float(scale))
    else:
        wmax = float(_weight_facts(A, c)["max"])
        if np.isfinite(wmax) and wmax / float(delta) > bins:
            raise InvalidValue(f"sssp: delta={delta} is too small for the largest weight"
                               f" {wmax}: at most {bins} buckets of width delta"
                               f" may span one edge (delta >= {wmax / bins:.6g})")
    # CUDA: the bucket loop on the device (one cooperative launch) or the host's loop of launches
    variant = "persistent" if A.device == "cuda" and cfg.cuda_persistent else "delta"
    run = registry.lookup("sssp", fmt="csr", device=A.device, variant=variant)
    if stats is not None:
        stats.ran(("sssp", "csr", A.device, variant))
    csr = _cast_weights(A, c, W)
    if A.device == "cuda":  # the device workspaces are kept on A between calls
        # light/heavy edges when some edge is heavy (w >= delta; else no member rounds)
        split = bool(cfg.cuda_light_heavy) and float(_weight_facts(A, c)["max"]) >= delta
        extra = {"cuda": settings.cuda, "stats": stats, "work": cached(A, "sssp_work", dict),
                 "light_heavy": split}
        if split:  # light edges first in every row (sorted once, cached)
            csr = cached(A, "sssp_by_weight", lambda: _rows_by_weight(csr), key=np.dtype(W))
    else:  # the kernel's window of buckets needs the largest finite weight
        from bitgraph.kernels.cpu import index_args
        from bitgraph.kernels.cpu.sssp import edge_records

        # each edge's target and weight side by side (built once, cached)
        edges = cached(A, "sssp_edges",
                       lambda: edge_records(index_args(csr.indptr, csr.indices)[1], csr.values),
                       key=np.dtype(W))
        extra = {"max_weight": _weight_facts(A, c)["finite_max"], "edges": edges}
    dist, _ = run(csr, s, float(delta), D, cfg=cfg, **extra)
    xp = ar.array_module(dist)
    if D.kind == "f":
        reached = xp.isfinite(dist)
    else:
        inf = np.iinfo(D).max
        reached = dist != inf
        over = dist == inf - 1
        if bool(over.any()):  # a saturated sum: the distance passed D's range
            v = int(xp.flatnonzero(over)[0])
            raise OverflowError(f"sssp: the distance to vertex {v} exceeds"
                                f" {inf - 2}, the range of {D} distances")
    return dist, reached


def _bellman_ford(A, c, s, D, negative):
    """Frontier Bellman-Ford: one ``vxm`` with MIN_PLUS per round, at most
    n rounds. s: the source, or None for every vertex at 0. Returns (dist,
    reached, cycle): cycle is True when a vertex still improved in round n
    (a negative cycle is reachable; dist is then not final)."""
    import bitgraph as bg
    from bitgraph.vector import Vector

    n = A.nrows
    xp = ar.array_module(c.indptr)
    if D == np.uint64:
        wmax = int(c.values.max()) if c.values.size else 0
        if wmax >= 2**63:
            raise InvalidValue(f"sssp: method='bellman-ford' takes uint64 weights below"
                               f" 2**63 (largest: {wmax}); method='delta' takes any")
        D = np.dtype(np.int64)
    if negative and D.kind == "i":
        wabs = max(int(c.values.max()), -int(c.values.min()))
        if wabs * max(n, 1) >= np.iinfo(D).max:  # a walk of n edges might wrap
            dist, _, cycle = _bellman_ford_numpy(c, s, D)
            dist = xp.asarray(dist)  # the host's rounds, back on A's device
            return dist, dist != np.iinfo(D).max, cycle >= 0
    Aw = A
    if A.dtype != D:  # the product in D: A's weights cast once (cached)
        cw = _cast_weights(A, c, D)
        Aw = cached(A, "sssp_matrix",
                    lambda: bg.Matrix.from_csr(cw.indptr, cw.indices, cw.values,
                                               ncols=n, check=False), key=D)
    inf = D.type(np.inf) if D.kind == "f" else np.iinfo(D).max
    if s is None:
        dist = xp.zeros(n, D)
        present = xp.ones(n, np.bool_)
    else:
        dist = xp.full(n, inf, D)
        dist[s] = 0
        present = xp.zeros(n, np.bool_)
        present[s] = True
    f = Vector._from_present(present, dist.copy())
    rounds = 0
    while f.nvals:
        if rounds == n:  # an improvement in round n: a negative cycle
            return dist, dist != inf, True
        rounds += 1
        # t(j) = min_i f(i) + A(i, j): every path one edge longer than f's
        t = bg.vxm(f, Aw, bg.MIN_PLUS)
        idx, vals = t.to_coo()
        if not negative and D.kind == "i" and vals.size and bool(vals.min() < 0):
            j = int(idx[int(xp.flatnonzero(vals < 0)[0])])
            raise OverflowError(f"sssp: a path sum to vertex {j} passed the range of"
                                f" {D}; method='delta' saturates such sums")
        # d = min(d, t); the next frontier: the entries of t that improved d
        better = vals < dist[idx]
        idx, vals = idx[better], vals[better]
        dist[idx] = vals
        present = xp.zeros(n, np.bool_)
        present[idx] = True
        nxt = xp.zeros(n, D)
        nxt[idx] = vals
        f = Vector._from_present(present, nxt)
    reached = dist != inf
    return dist, reached, False


def _bellman_ford_numpy(c, s, D):
    """The rounds of :func:`_bellman_ford` in numpy over A's CSR, keeping
    each improvement's predecessor edge, with integer sums checked for
    wrapping (``OverflowError``). Returns (dist, pred, x): pred[v] the CSR
    position of the edge that last improved v (-1: none); x a vertex on a
    negative cycle of the predecessor graph, or -1 when there is none
    reachable. O(rounds * (frontier edges) log)."""
    from bitgraph import device as bgdev

    indptr = bgdev.host(c.indptr).astype(np.int64)
    indices = bgdev.host(c.indices).astype(np.int64)
    weights = bgdev.host(c.values).astype(D)
    n = indptr.size - 1
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))  # each edge's tail
    inf = D.type(np.inf) if D.kind == "f" else np.iinfo(D).max
    pred = np.full(n, -1, np.int64)
    if s is None:
        dist = np.zeros(n, D)
        front = np.arange(n, dtype=np.int64)
    else:
        dist = np.full(n, inf, D)
        dist[s] = 0
        front = np.array([s], np.int64)
    for _ in range(n):
        starts = indptr[front]
        counts = indptr[front + 1] - starts
        total = int(counts.sum())
        if total == 0:
            return dist, pred, -1
        pos = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(total)
        tail = src[pos]
        du, w = dist[tail], weights[pos]
        with np.errstate(over="ignore"):
            cand = du + w
        if D.kind == "i":
            wrapped = np.flatnonzero(((w > 0) & (cand < du)) | ((w < 0) & (cand > du)))
            if wrapped.size:
                raise OverflowError(f"sssp: a path sum to vertex {indices[pos[wrapped[0]]]}"
                                    f" passed the range of {D}")
        head = indices[pos]
        order = np.lexsort((cand, head))  # by head, then by length
        first = order[np.r_[True, head[order[1:]] != head[order[:-1]]]]
        v, best = head[first], cand[first]
        better = best < dist[v]
        front = v[better]
        dist[front] = best[better]
        pred[front] = pos[first[better]]
    if front.size == 0:
        return dist, pred, -1
    # still improving in round n: n predecessor steps land on a cycle
    x = int(front[0])
    for _ in range(n):
        x = int(src[pred[x]])
    return dist, pred, x


def _raise_cycle(c, s, D):
    """Raise NegativeCycle naming a vertex on a negative cycle reachable
    from s (the caller's rounds found one)."""
    from bitgraph import device as bgdev

    if D == np.uint64:
        D = np.dtype(np.int64)
    dist, pred, x = _bellman_ford_numpy(c, s, D)
    if x < 0:  # float rounding made the two passes disagree; should not happen
        raise NegativeCycle(f"sssp: a negative cycle is reachable from source {s}")
    indices = bgdev.host(c.indices)
    weights = bgdev.host(c.values)
    indptr = bgdev.host(c.indptr)
    cycle, edges, v = [x], [], x
    while True:  # walk the predecessors back to x
        p = int(pred[v])
        edges.append(p)
        v = int(np.searchsorted(indptr, p, side="right") - 1)
        if v == x:
            break
        cycle.append(v)
    cycle.reverse()
    ws = weights[np.array(edges)]
    weight = int(ws.astype(object).sum()) if ws.dtype.kind in "iu" else float(ws.sum(dtype=np.float64))
    shown = " -> ".join(map(str, cycle[:10])) + (" -> ..." if len(cycle) > 10 else "")
    raise NegativeCycle(f"sssp: a negative cycle is reachable from source {s}: vertex {x}"
                        f" lies on it ({len(cycle)} vertices: {shown} -> {cycle[0]};"
                        f" total weight {weight}); shortest paths are unbounded",
                        vertex=x, cycle=cycle, weight=weight)


def _result(dist, reached, dtype, device="cpu"):
    from bitgraph.vector import Vector

    if device == "cuda" and ar.array_module(dist) is np:  # a host pass's distances
        from bitgraph import device as bgdev
        cupy = bgdev.require_cuda("sssp")
        dist, reached = cupy.asarray(dist), cupy.asarray(reached)
    xp = ar.array_module(dist)
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and dist.dtype != dtype and bool(reached.any()):
        info = np.iinfo(dtype)
        big = reached & ((dist > info.max) | (dist < info.min))
        if bool(big.any()):
            v = int(xp.flatnonzero(big)[0])
            raise OverflowError(f"sssp: the distance to vertex {v} is {_entry(dist, v)}, which"
                                f" {dtype} (the weights' dtype) cannot hold; give A"
                                f" wider weights")
    return Vector._from_present(reached, dist.astype(dtype, copy=False))
