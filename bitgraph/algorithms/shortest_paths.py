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
  bucket's frontier is small, large frontiers on the thread pool.
- ``"auto"``: ``"delta"`` where the fused kernel exists (the CPU), else
  ``"bellman-ford"``: at scale 16 with weights 1..255 the fused kernel is
  3-5x faster than Bellman-Ford on kron and urand, 30x on a 256x256 grid,
  which takes hundreds of rounds. ``python benchmarks/run.py --algo sssp``
  times it against scipy's Dijkstra.

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

from bitgraph.algorithms._common import (cached, check_graph, check_nonnegative,
                                         check_source, out_csr)
from bitgraph.errors import InvalidValue

__all__ = ["sssp", "METHODS", "default_delta"]

METHODS = ("auto", "bellman-ford", "delta")

_INT32_MAX = np.iinfo(np.int32).max


def sssp(A, source, *, method="auto", delta=None, stats=None):
    """Shortest-path distances from ``source`` over A's edge weights.

    Returns a Vector of A's dtype holding the distance of every vertex
    reachable from ``source`` (the source at 0; unreached vertices absent:
    ``to_dense(-1)`` gives -1 for them). A structure-only (or bool) A gives
    the BFS levels as int32. Weights must be >= 0 and not NaN
    (``InvalidValue`` names the first bad stored entry); zero weights and
    self-loops are fine; an edge of weight +inf reaches nothing.

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
    """
    check_graph(A, "sssp")
    s = check_source(A, source, "sssp")
    if method not in METHODS:
        raise InvalidValue(f"sssp: unknown method {method!r}; expected one of {METHODS}")
    if delta is not None and not (isinstance(delta, (int, float, np.integer, np.floating))
                                  and not isinstance(delta, (bool, np.bool_))
                                  and np.isfinite(delta) and delta > 0):
        raise InvalidValue(f"sssp: delta must be a finite number > 0, got {delta!r}")
    if A.iso or A.dtype == np.bool_:
        from bitgraph.algorithms.breadth_first import bfs

        return bfs(A, s, stats=stats)  # unweighted: hops (stats names the bfs method)
    c = out_csr(A)
    weights = c.values
    _check_weights(weights)
    n = A.nrows
    W, D = _kernel_dtypes(A.dtype, weights, n)
    if method == "auto":
        method = "delta" if A.device == "cpu" else "bellman-ford"
    if stats is not None:  # what ran (bitgraph.Stats)
        stats.method = method
        if method == "delta":
            stats.ran(("sssp", "csr", "cpu", "delta"))
    if method == "delta":
        dist, reached = _delta(A, c, s, W, D, delta)
    else:
        dist, reached = _bellman_ford(A, c, s, D)
    return _result(dist, reached, A.dtype)


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

    rows = int(np.count_nonzero(np.diff(c.indptr)))
    finite = w[np.isfinite(w)] if w.dtype.kind == "f" else w
    mean = float(finite.mean(dtype=np.float64)) if finite.size else 0.0
    delta = mean * rows / w.size
    if w.dtype.kind in "iu":
        delta = float(max(1, round(delta)))
    wmax = float(finite.max()) if finite.size else 0.0
    delta = max(delta, wmax / (cfg.max_bins - 4))
    return delta if delta > 0 else 1.0


def _check_weights(weights):
    check_nonnegative(weights, "sssp")
    if weights.dtype.kind == "f":
        bad = np.flatnonzero(np.isnan(weights))
        if bad.size:
            raise InvalidValue(f"sssp: edge weights must not be NaN; stored entry"
                               f" {bad[0]} has weight {weights[bad[0]]}")


def _kernel_dtypes(dtype, weights, n):
    """(W, D): the kernel's weight and distance dtypes for A's dtype.

    Small integers run as int32 when every path fits (max weight * (n - 1)
    below the int32 maximum, which is the kernel's "unreached"), else as
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
    wmax = int(weights.max()) if weights.size else 0
    D = np.dtype(np.int32 if wmax * max(n - 1, 1) < _INT32_MAX - 1 else np.int64)
    return D, D


def _cast_weights(A, c, W):
    """A's CSR with values of dtype W (cast once, cached on A)."""
    if c.values.dtype == W:
        return c
    return cached(A, "sssp_weights", lambda: c._replace(values=c.values.astype(W)), key=np.dtype(W))


def _delta(A, c, s, W, D, delta):
    from bitgraph import settings
    from bitgraph.kernels import registry

    cfg = settings.current().sssp
    bins = cfg.max_bins - 4
    if delta is None:
        delta = default_delta(A, cfg)
    else:
        wmax = float(c.values.max()) if c.values.size else 0.0
        if np.isfinite(wmax) and wmax / float(delta) > bins:
            raise InvalidValue(f"sssp: delta={delta} is too small for the largest weight"
                               f" {wmax}: at most {bins} buckets of width delta"
                               f" may span one edge (delta >= {wmax / bins:.6g})")
    run = registry.lookup("sssp", fmt="csr", device="cpu", variant="delta")
    dist, _ = run(_cast_weights(A, c, W), s, float(delta), D, cfg=cfg)
    if D.kind == "f":
        reached = np.isfinite(dist)
    else:
        inf = np.iinfo(D).max
        reached = dist != inf
        over = np.flatnonzero(dist == inf - 1)
        if over.size:  # a saturated sum: the distance passed D's range
            raise OverflowError(f"sssp: the distance to vertex {over[0]} exceeds"
                                f" {inf - 2}, the range of {D} distances")
    return dist, reached


def _bellman_ford(A, c, s, D):
    """Frontier Bellman-Ford: one ``vxm`` with MIN_PLUS per round."""
    import bitgraph as bg
    from bitgraph.vector import Vector

    n = A.nrows
    if D == np.uint64:
        wmax = int(c.values.max()) if c.values.size else 0
        if wmax >= 2**63:
            raise InvalidValue(f"sssp: method='bellman-ford' takes uint64 weights below"
                               f" 2**63 (largest: {wmax}); method='delta' takes any")
        D = np.dtype(np.int64)
    Aw = A
    if A.dtype != D:  # the product in D: A's weights cast once (cached)
        cw = _cast_weights(A, c, D)
        Aw = cached(A, "sssp_matrix",
                    lambda: bg.Matrix.from_csr(cw.indptr, cw.indices, cw.values,
                                               ncols=n, check=False), key=D)
    inf = D.type(np.inf) if D.kind == "f" else np.iinfo(D).max
    dist = np.full(n, inf, D)
    dist[s] = 0
    present = np.zeros(n, np.bool_)
    present[s] = True
    f = Vector._from_present(present, dist.copy())
    while f.nvals:
        # t(j) = min_i f(i) + A(i, j): every path one edge longer than f's
        t = bg.vxm(f, Aw, bg.MIN_PLUS)
        idx, vals = t.to_coo()
        if D.kind == "i" and vals.size and vals.min() < 0:
            j = idx[np.argmax(vals < 0)]
            raise OverflowError(f"sssp: a path sum to vertex {j} passed the range of"
                                f" {D}; method='delta' saturates such sums")
        # d = min(d, t); the next frontier: the entries of t that improved d
        better = vals < dist[idx]
        idx, vals = idx[better], vals[better]
        dist[idx] = vals
        present = np.zeros(n, np.bool_)
        present[idx] = True
        nxt = np.zeros(n, D)
        nxt[idx] = vals
        f = Vector._from_present(present, nxt)
    reached = dist != inf
    return dist, reached


def _result(dist, reached, dtype):
    from bitgraph.vector import Vector

    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and dist.dtype != dtype and reached.any():
        big = np.flatnonzero(reached & (dist > np.iinfo(dtype).max))
        if big.size:
            v = big[0]
            raise OverflowError(f"sssp: the distance to vertex {v} is {dist[v]}, which"
                                f" {dtype} (the weights' dtype) cannot hold; give A"
                                f" wider weights")
    return Vector._from_present(reached, dist.astype(dtype, copy=False))
