"""Betweenness centrality (Brandes) in batches of sources, the GraphBLAS
formulation of LAGraph's ``LAGr_Betweenness``.

A batch of b <= 64 sources is one b x n problem: row i belongs to
``sources[i]``.

- Levels: one bit-parallel msbfs call (``multi_source.msbfs``: 64 BFSs per
  uint64 status word) gives every source's BFS level of every vertex; the
  entries at level d form the pattern matrix ``L[d]`` (b x n).
- Forward: the path counts, level by level, as masked products:
  ``sigma[d]<L[d].S> = sigma[d-1] plus.first A`` (``sigma[0]``: 1 at each
  source). A vertex's paths come from the previous level only, so the mask
  gives the whole level.
- Backward, from the deepest level: with ``W[d] = (1 + delta[d]) / sigma[d]``
  on level d, ``W2<L[d-1].S> = W[d] plus.first A'`` sums W over each vertex's
  successors one level down; ``delta[d-1] = W2 .* sigma[d-1]`` and
  ``W[d-1] = 1 / sigma[d-1] + W2``. Each vertex's centrality is the sum of
  its ``delta`` over the sources (the sources' own excluded).
- Edges: the path share of edge v -> w for source s is
  ``sigma[s, v] * W[s, w]`` when w is one level below v; summed over the
  batch in chunks of edges.

By default the same recurrences run fused (``settings.betweenness.method``):
one pass a level over the vertices at that level. On the CPU a numba
kernel, the batch's sources as bits of a word per (vertex, level)
(``kernels/cpu/betweenness``; 2 threads, kron-16, 64 sources: 0.67 s
against 1.4 s for the masked products); on CUDA a warp per (vertex,
level), a lane per two sources, over vertex-major dense levels and path
counts (``kernels/cuda/betweenness``).

Memory is O(b x n) per batch (the levels, the per-level matrices: each
(source, vertex) pair sits in one level), whatever the number of sources;
batches run one after another. A call of many batches
(``settings.betweenness.group_batches``) first orders its sources by their
out-neighbour of the highest out-degree (``grouped_sources``): a batch of
sources one hop from a shared hub sits at few distinct levels of each
vertex, so its fused passes have fewer (vertex, level) entries to walk.
Every step of the graphblas method is a public GraphBLAS operation (or
msbfs), so it runs on either device too.

The scaling follows NetworkX's ``_rescale`` (sampled sources, endpoints,
directed or undirected).

Weighted (``weight`` not None: A's values are the edge lengths): the
shortest-path DAG of a source is its tight edges u -> v (u != v,
``dist[u] + w == dist[v]`` in float64). On the CPU (method "fused") a numba
kernel runs Dijkstra per source, counts paths in Kahn's order of the DAG
and accumulates backwards, sources in pool chunks; elsewhere (method
"graphblas") a batch's distances come from ``sssp`` per source (b x n),
its tight (source, edge) pairs are layered by the longest hop count from
the source (max-plus rounds), and sigma and the dependencies run a layer at
a time over the pairs (``_weighted_batch``). 2 shared threads, urand-14
(98,278 edges, lengths 1..255), k = 50: fused 0.64 s, graphblas 1.26 s,
NetworkX 24.9 s (7.7, 3.9 and 0.2 M sources x edges / s).
"""

from __future__ import annotations

import math
import random as _random

import numpy as np

from bitgraph import _array
from bitgraph import settings as _settings
from bitgraph.algorithms._common import (anchor_order, cached, check_graph, check_sources,
                                         is_symmetric, out_csr, traversal_order)
from bitgraph.errors import InvalidType, InvalidValue
from bitgraph.formats.csr import CSR

__all__ = ["betweenness_centrality", "edge_betweenness_centrality"]


def _sample(n, k, seed, where):
    """NetworkX's sample of k of the vertices ``0..n-1``:
    ``seed.sample(list(G), k)``, with ``seed`` as NetworkX's
    ``py_random_state`` makes it (None: the ``random`` module's own
    generator; an int: ``random.Random(seed)``; an object with ``sample``,
    such as a ``random.Random``: itself)."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise InvalidType(f"{where}: k must be an integer number of sources, got {k!r}")
    k = int(k)
    if not 1 <= k <= n:
        raise InvalidValue(f"{where}: k must be in 1..{n} (the number of vertices), got {k}")
    if seed is None:
        rng = _random._inst
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        rng = _random.Random(int(seed))
    elif hasattr(seed, "sample"):
        rng = seed
    else:
        raise InvalidType(f"{where}: seed must be None, an integer or a random.Random,"
                          f" got {type(seed).__name__}")
    return np.asarray(rng.sample(range(n), k), np.int64)


def _sources(A, sources, k, seed, where, *, draw_all=False):
    """(the sources, whether they are a sample: NetworkX's scaling of k).
    ``k == n``: every vertex, undrawn (NetworkX's vertex betweenness), or
    drawn when ``draw_all`` (its edge betweenness draws them all: the same
    answer, but ``seed``'s state moves on)."""
    if sources is not None and k is not None:
        raise InvalidValue(f"{where}: give sources or k, not both")
    if sources is not None:
        return check_sources(A, sources, where), True
    if k is not None and (draw_all or k != A.nrows):
        return _sample(A.nrows, k, seed, where), True
    return np.arange(A.nrows, dtype=np.int64), False


def _level_patterns(lev):
    """The pattern matrices ``L[d]`` (b x n, structure-only) of the
    (source, vertex) pairs at each BFS level d of ``lev`` (b x n int32, -1
    unreached), on lev's device. One stable sort of the flat levels groups
    each level's pairs in row-major order: CSR without another sort."""
    import bitgraph as bg
    from bitgraph.device import host

    xp = _array.array_module(lev)
    b, n = lev.shape
    flat = lev.ravel()
    depth = int(flat.max())
    # int16 keys: numpy's stable sort is a radix sort (3x faster at 64 x 16k)
    key = flat.astype(np.int16) if depth < 2**15 - 1 else flat
    order = xp.argsort(key, kind="stable")
    counts = np.asarray(host(xp.bincount(flat + 1, minlength=depth + 2)), np.int64)  # synchronize!
    ends = np.cumsum(counts)  # ends[d + 1]: the end of level d
    L = []
    for d in range(depth + 1):
        pos = order[int(ends[d]):int(ends[d + 1])]
        rows = pos // n
        cols = (pos - rows * n).astype(np.int32)
        indptr = xp.zeros(b + 1, np.int64)
        xp.cumsum(xp.bincount(rows, minlength=b), out=indptr[1:])
        L.append(bg.Matrix.from_csr(indptr, cols, ncols=n, check=False))
    return L


def _batch(A, lev, edges):
    """Brandes for one batch as a b x n problem over GraphBLAS operations,
    from msbfs's levels ``lev`` (b x n) of its sources.

    Returns (delta summed per vertex over the batch, the sources' own
    excluded; the per-level ``sigma`` and ``W`` matrices and ``lev`` when
    ``edges``, else None)."""
    import bitgraph as bg

    L = _level_patterns(lev)
    depth = len(L) - 1
    # sigma[0] = 1 at each source; sigma[d]<L[d].S> = sigma[d-1] plus.first A
    sigma = [L[0].dup(np.float64)]
    for d in range(1, depth + 1):
        sigma.append(bg.mxm(sigma[d - 1], A, "plus_first", mask=L[d].S))
    xp = _array.array_module(lev)
    total = xp.zeros(A.nrows, np.float64)
    Ws = [None] * (depth + 1) if edges else None
    # W[depth] = (1 + 0) / sigma[depth]
    W = bg.apply(sigma[depth], "minv")
    for d in range(depth, 0, -1):
        if edges:
            Ws[d] = W
        # W2<L[d-1].S> = W[d] plus.first A': sum of W over the successors one level down
        W2 = bg.mxm(W, A.T, "plus_first", mask=L[d - 1].S)
        if d > 1:  # level 0: the sources, whose own delta does not count
            # delta[d-1] = W2 .* sigma[d-1], summed per vertex over the batch
            delta = bg.ewise_mult(W2, sigma[d - 1], "times")
            total += bg.reduce(delta, by="cols").to_dense(0)
        # W[d-1] = (1 + delta[d-1]) / sigma[d-1] = 1 / sigma[d-1] + W2
        W = bg.ewise_add(bg.apply(sigma[d - 1], "minv"), W2, "plus")
    return total, (sigma, Ws, lev) if edges else None


def _dense(mats, b, n, xp):
    """The per-level b x n matrices ``mats`` (None entries skipped) as one
    dense float64 array (disjoint patterns)."""
    out = xp.zeros((b, n), np.float64)
    for M in mats:
        if M is None:
            continue
        c = M._csr()
        out[_array.rows_of(c.indptr), c.indices.astype(np.int64)] = c.values
    return out


def _edge_shares(A, parts, rows, cols, chunk):
    """Per stored edge v -> w of A (``rows``, ``cols``: its CSR order), the
    sum over the batch of sigma[s, v] * W[s, w] where w is one level below v."""
    sigma, Ws, lev = parts
    xp = _array.array_module(lev)
    b, n = lev.shape
    S = _dense(sigma, b, n, xp)
    Wd = _dense(Ws, b, n, xp)
    out = xp.zeros(rows.size, np.float64)
    for i in range(0, rows.size, chunk):
        r, c = rows[i:i + chunk], cols[i:i + chunk]
        down = (lev[:, c] == lev[:, r] + 1) & (lev[:, r] >= 0)
        out[i:i + chunk] = (xp.where(down, S[:, r] * Wd[:, c], 0.0)).sum(axis=0)
    return out


def _rescale(bc, n, *, normalized, directed, endpoints, sampled):
    """NetworkX's ``_rescale`` on the array ``bc`` (in place): the same
    scale factors, each computed as NetworkX does in Python floats.
    ``sampled``: the sources when they are a sample, else None."""
    N = n if endpoints else n - 1
    if N < 2:
        return bc
    k = None if sampled is None else len(sampled)
    K = N if k is None else k
    correction = 1 if directed else 2
    if k is None or endpoints:
        scale = 1 / (K * (N - 1)) if normalized else N / (K * correction)
        if scale != 1:
            bc *= scale
        return bc
    if normalized:
        s_src = 1 / ((K - 1) * (N - 1)) if K > 1 else math.nan
        s_other = 1 / (K * (N - 1))
    else:
        s_src = N / ((K - 1) * correction) if K > 1 else math.nan
        s_other = N / (K * correction)
    xp = _array.array_module(bc)
    is_src = xp.zeros(n, bool)
    is_src[xp.asarray(sampled)] = True
    bc *= xp.where(is_src, s_src, s_other)
    return bc


def _method(cfg):
    """"fused" (a kernel a level: ``kernels/cpu/betweenness`` or
    ``kernels/cuda/betweenness``) or "graphblas" (masked products):
    ``settings.betweenness.method``, by default fused on either device."""
    if cfg.method is not None:
        if cfg.method not in ("fused", "graphblas"):
            raise InvalidValue(f"settings.betweenness.method must be 'fused', 'graphblas' or"
                               f" None, got {cfg.method!r}")
        return cfg.method
    return "fused"


def grouped_sources(A, src):
    """``src`` (numpy ints) in ``anchor_order``: by each source's
    out-neighbour of the highest out-degree (its anchor; ties: the smaller
    id), then by id (``settings.betweenness.group_batches``).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3, 3, 3], [3, 2, 1, 0, 1, 2], nrows=4, ncols=4)
    >>> grouped_sources(A, np.arange(4)).tolist()  # the anchors of 0..3: 3, 2, 1, 0
    [3, 2, 1, 0]
    """
    return src[anchor_order(A, src)]


def _batch_width(cfg):
    batch = cfg.batch
    if isinstance(batch, (bool, np.bool_)) or not isinstance(batch, (int, np.integer)) \
            or not 1 <= batch <= 64:
        raise InvalidValue(f"settings.betweenness.batch must be an integer in 1..64 (one bit per"
                           f" source in msbfs's words), got {batch!r}")
    return int(batch)


def _pairs_per_entry(cfg):
    x = cfg.cpu_pairs_per_entry
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)) \
            or not x >= 0:
        raise InvalidValue(f"settings.betweenness.cpu_pairs_per_entry must be a number >= 0,"
                           f" got {x!r}")
    return float(x)


def batch_order(A, src):
    """The sources of an unweighted betweenness call in the order its
    batches take them (``settings.betweenness.batch`` at a time): those
    with out-edges only, grouped (``grouped_sources``) when they make at
    least ``settings.betweenness.group_batches`` batches. A whole-batch
    run of this order gives the same order back, so a share of it cut at
    batch boundaries (``bitgraph.distributed``) runs the same batches.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3, 3, 3], [3, 2, 1, 0, 1, 2], nrows=5, ncols=5)
    >>> batch_order(A, np.arange(5)).tolist()  # vertex 4 has no out-edges
    [0, 1, 2, 3]
    >>> with bg.settings.use(betweenness={"batch": 2, "group_batches": 2}):
    ...     batch_order(A, np.arange(5)).tolist()
    [3, 2, 1, 0]
    """
    cfg = _settings.current().betweenness
    # a source without out-edges starts no path: it adds nothing, endpoints or not (kron-20:
    # 38% of the vertices have none, so all-source BC needs that many fewer batches)
    busy, _ = traversal_order(A, src, _batch_width(cfg), cfg.group_batches,
                              "settings.betweenness.group_batches")
    return src[busy]


def _node_bc(A, src, *, endpoints, edges=False, rows=None, cols=None, stats=None):
    """Raw (unscaled) vertex sums over ``src`` in batches
    (``settings.betweenness.batch``); with ``edges`` the raw edge sums over
    ``rows``/``cols`` (A's CSR order) instead. ``stats``: the method run,
    the fused kernel's key where it ran, ``metrics["batches"]`` (and on CUDA
    ``metrics["bc_pair_batches"]``: the batches run in pair mode)."""
    from bitgraph.algorithms.multi_source import msbfs

    cfg = _settings.current().betweenness
    batch = _batch_width(cfg)
    src = batch_order(A, src)
    method = _method(cfg)
    key = ("betweenness", "csr", A.device, "batch")
    if stats is not None:
        stats.method = method
        stats.metrics["batches"] = -(-int(src.size) // batch)
        if method == "fused":
            stats.ran(key)
    if method == "fused":
        from bitgraph.algorithms._common import in_csr
        from bitgraph.kernels.registry import lookup

        run = lookup("betweenness", fmt="csr", device=A.device, variant="batch")
        # the CUDA kernel keeps its buffers in ``work`` across this call's batches,
        # and its heavy rows' tables with the graph across calls
        extra = {"pairs_per_entry": _pairs_per_entry(cfg)} if A.device == "cpu" else {
            "cfg": cfg, "work": {"graph": cached(A, "bc_cuda", dict)}}
        a, t = out_csr(A), in_csr(A)
    xp = _array.array_module(out_csr(A).indptr)
    n = A.nrows
    bc = xp.zeros(n, np.float64)
    ebc = xp.zeros(0 if rows is None else rows.size, np.float64)
    for i in range(0, src.size, batch):
        s = src[i:i + batch]
        lev = msbfs(A, s)
        if method == "fused":
            total, eshare = run(a, t, lev, edges=edges, parallel_work=cfg.parallel_work, **extra)
        else:
            total, parts = _batch(A, lev, edges)
            eshare = _edge_shares(A, parts, rows, cols, cfg.edge_chunk) if edges else None
        if edges:
            ebc += eshare
            continue
        bc += total
        if endpoints:
            hit = lev >= 0
            bc = _add_endpoints(bc, s, hit.sum(axis=0), hit.sum(axis=1))
    if stats is not None and method == "fused" and "work" in extra:
        # the CUDA batches that ran a thread per (vertex, source) (deep graphs)
        stats.metrics["bc_pair_batches"] = extra["work"].get("pair_batches", 0)
    return ebc if edges else bc


def betweenness_centrality(A, sources=None, k=None, normalized=True, endpoints=False,
                           seed=None, weight=None, *, stats=None):
    """Betweenness centrality of every vertex, as
    ``networkx.betweenness_centrality``: for vertex v, the sum over the
    sources s and targets t of the share of shortest s-t paths through v,
    scaled as NetworkX (``normalized``: by the number of (s, t) pairs;
    else, undirected, halved). A is directed unless its pattern is
    symmetric; self-loops and vertices without edges add nothing.

    Sources: every vertex (exact); ``k`` sampled ones, drawn as NetworkX
    draws them (``seed.sample(list(G), k)``: ``seed`` None, an int or a
    ``random.Random``), with NetworkX's scaling of a sample (sources and
    other vertices scaled apart without ``endpoints``); or the given
    ``sources``, scaled as that sample would be. ``endpoints``: count the
    path's ends too.

    ``weight``: None counts hops (every edge has length 1); anything else
    (``True``, an attribute name such as ``"weight"``: a Matrix holds one
    value per entry) makes A's stored values the edge lengths, and the
    paths Dijkstra's, as NetworkX's ``weight=``: lengths summed in float64
    along the path (integers exactly below 2**53), paths of equal sums
    tie. A structure-only A has unit lengths (the hop answer). Lengths must
    be numbers (``InvalidType`` for a bool A with values), finite and >= 0
    (``InvalidValue`` naming the edge). Zero lengths: the paths counted
    are those of the shortest-path DAG (the edges u -> v with dist(u) +
    w == dist(v), self-loops left out), each once; zero-length edges that
    close a cycle on it (infinitely many shortest walks) raise
    ``InvalidValue`` naming the source and a vertex on the cycle
    (NetworkX's answer there depends on its heap order). A weighted A is
    undirected when it equals its transpose, values included.

    Runs Brandes in batches of ``settings.betweenness.batch`` (64) sources:
    msbfs levels, then path counts and dependencies by masked ``plus_first``
    products, or by default a fused kernel a level (numba on the CPU, CUDA
    on the GPU; module docstring).
    ``stats``: a ``bitgraph.Stats`` to fill with the method run and the
    number of batches. Returns a float64 array of n values on the graph's
    device.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=3, ncols=3)  # path 0-1-2
    >>> betweenness_centrality(A).tolist()
    [0.0, 1.0, 0.0]
    >>> betweenness_centrality(A, normalized=False, endpoints=True).tolist()
    [2.0, 3.0, 2.0]
    >>> W = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], [1.0, 1.0, 2.0], nrows=3, ncols=3)
    >>> betweenness_centrality(W, normalized=False, weight=True).tolist()  # 0-1-2 ties 0-2
    [0.0, 0.5, 0.0]
    """
    where = "betweenness_centrality"
    w, src, sampled, directed = _prepare(A, sources, k, seed, weight, where)
    bc = _vertex_sums(A, w, src, endpoints=endpoints, stats=stats, where=where)
    return _rescale(bc, A.nrows, normalized=normalized, directed=directed,
                    endpoints=endpoints, sampled=src if sampled else None)


# A call is split in three so that ``bitgraph.distributed`` can sum the raw
# sums of its ranks' sources before the one scaling: _prepare (every rank
# alike), _vertex_sums / _edge_sums (a sum over the sources: the sums of a
# split of ``src`` add up to the sum of ``src``), then _rescale.

def _prepare(A, sources, k, seed, weight, where, *, draw_all=False):
    """``(w, src, sampled, directed)`` of a betweenness call, before any
    sum: the edge lengths (None: hops), the sources, whether they are a
    sample (NetworkX's scaling) and whether A counts as directed."""
    check_graph(A, where, cuda=True)
    w = _lengths(A, weight, where)
    src, sampled = _sources(A, sources, k, seed, where, draw_all=draw_all)
    directed = _weighted_directed(A) if w is not None else not is_symmetric(A)
    return w, src, sampled, directed


def _vertex_sums(A, w, src, *, endpoints, stats=None, where="betweenness_centrality"):
    """The raw (unscaled) vertex betweenness over the sources ``src``
    (endpoints counted when asked), on A's device: what ``_rescale``
    scales."""
    if w is None:
        return _node_bc(A, src, endpoints=endpoints, stats=stats)
    total, _, hits, nreached = _weighted_sums(A, w, src, edges=False, stats=stats, where=where)
    return _add_endpoints(total, src, hits, nreached) if endpoints else total


def _edge_sums(A, w, src, directed, *, stats=None, where="edge_betweenness_centrality"):
    """The raw (unscaled) edge betweenness over ``src``, per stored entry of
    A in CSR order (undirected: both directions' sum in each)."""
    if w is None:
        return _raw_edge_bc(A, src, directed, stats=stats)[2]
    return _weighted_raw_edge_bc(A, w, src, directed, stats=stats, where=where)[2]


def _edge_matrix(A, e):
    """The float64 Matrix of A's pattern holding ``e`` (CSR order)."""
    import bitgraph as bg

    c = out_csr(A)
    return bg.Matrix.from_csr(c.indptr, c.indices, e, ncols=A.ncols, check=False)


def _scaled_node_bc(A, src, sampled, *, normalized, endpoints, directed, stats=None):
    bc = _vertex_sums(A, None, src, endpoints=endpoints, stats=stats)
    return _rescale(bc, A.nrows, normalized=normalized, directed=directed,
                    endpoints=endpoints, sampled=src if sampled else None)


def _raw_edge_bc(A, src, directed, stats=None):
    """(rows, cols, values): per stored entry of A in CSR order, the raw
    sum of path shares; undirected, each entry holds both directions' sum."""
    c = out_csr(A)
    rows = _array.rows_of(c.indptr)
    cols = c.indices.astype(np.int64)
    e = _node_bc(A, src, endpoints=False, edges=True, rows=rows, cols=cols, stats=stats)
    return rows, cols, e if directed else _fold_undirected(rows, cols, e, A.nrows)


def _fold_undirected(rows, cols, e, n):
    """Per stored entry (v, w) of a symmetric pattern (CSR order), e(v, w) +
    e(w, v): the same undirected edge. The pattern equals its transpose, so
    the transposed positions are a permutation."""
    order = _array.array_module(rows).argsort(cols * n + rows)  # (w, v)'s position
    return e + e[order]


def _add_endpoints(bc, src, hits, reached):
    """``bc`` with NetworkX's endpoints counted: each source adds 1 to each
    vertex it reaches but itself (``hits``: per vertex, the sources reaching
    it, itself included) and (reached - 1) to itself (``reached``: per
    source, the vertices it reaches, itself included)."""
    xp = _array.array_module(bc)
    n = bc.shape[0]
    sd = xp.asarray(src)
    bc = bc + hits - xp.bincount(sd, minlength=n)  # a source reaches itself
    return bc + xp.bincount(sd, weights=xp.asarray(reached) - 1.0, minlength=n)


def edge_betweenness_centrality(A, k=None, normalized=True, seed=None, weight=None, *,
                                stats=None):
    """Betweenness centrality of every edge, as
    ``networkx.edge_betweenness_centrality``: for edge v -> w, the sum over
    sources s and targets t of the share of shortest s-t paths that use it,
    scaled as NetworkX (``normalized``: by n (n - 1); else, undirected,
    halved). ``k``, ``seed``, ``weight`` as in
    :func:`betweenness_centrality`. Self-loops get 0.

    Returns a float64 Matrix with A's pattern; for an undirected
    (symmetric) A, entries (v, w) and (w, v) both hold the edge's value.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=3, ncols=3)  # path 0-1-2
    >>> edge_betweenness_centrality(A, normalized=False).to_coo()[2].tolist()
    [2.0, 2.0, 2.0, 2.0]
    >>> W = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], [1, 1, 3], nrows=3, ncols=3)
    >>> edge_betweenness_centrality(W, normalized=False, weight="weight").to_coo()[2].tolist()
    [2.0, 0.0, 2.0]
    """
    where = "edge_betweenness_centrality"
    w, src, sampled, directed = _prepare(A, None, k, seed, weight, where, draw_all=True)
    e = _edge_sums(A, w, src, directed, stats=stats, where=where)
    e = _rescale(e, A.nrows, normalized=normalized, directed=directed, endpoints=True,
                 sampled=src if sampled else None)
    return _edge_matrix(A, e)


# ---------------------------------------------------------------------------
# weighted betweenness: Dijkstra paths (weight not None)
# ---------------------------------------------------------------------------

def _lengths(A, weight, where):
    """The edge lengths ``weight`` asks for: None (hops: ``weight`` None or
    a structure-only A), else A's stored values as float64, in CSR order,
    on A's device. A bool A with values is ``InvalidType``; a NaN, infinite
    or negative length ``InvalidValue`` naming its edge."""
    if weight is None or A.iso:
        return None
    c = out_csr(A)
    if c.values.dtype.kind not in "iuf":
        raise InvalidType(f"{where}: edge lengths must be numbers; A's dtype is"
                          f" {c.values.dtype} (pass weight=None to count hops)")
    xp = _array.array_module(c.values)
    w = c.values.astype(np.float64)
    bad = ~xp.isfinite(w) | (w < 0)
    if bool(bad.any()):  # synchronize!
        from bitgraph.device import host

        p = int(xp.flatnonzero(bad)[0])
        indptr = np.asarray(host(c.indptr), np.int64)
        i = int(np.searchsorted(indptr, p, side="right") - 1)
        j = int(host(c.indices[p:p + 1])[0])
        x = float(host(w[p:p + 1])[0])
        what = "negative" if x < 0 else "not finite"
        raise InvalidValue(f"{where}: edge ({i}, {j}) has length {x!r} ({what}); edge lengths"
                           f" must be finite and >= 0")
    return w


def _weighted_directed(A):
    """A weighted A is undirected when it equals A', values included."""
    if not is_symmetric(A):
        return True
    a, t = A._csr(), A._transposed_csr()
    xp = _array.array_module(a.values)
    return not bool(xp.array_equal(a.values, t.values))  # synchronize!


def _zero_cycle(where, s, v):
    return InvalidValue(f"{where}: the shortest paths from source {s} run around a cycle of"
                        f" zero-length edges through vertex {v} (infinitely many shortest"
                        f" paths)")


def _weighted_method(A, cfg):
    """"fused" (``kernels/cpu/betweenness.weighted_run``: Dijkstra a source)
    or "graphblas" (sssp distances and array ops on any device), from
    ``settings.betweenness.method`` as the unweighted method is chosen; on
    CUDA always the array ops (the Dijkstra kernel is the CPU's)."""
    return "fused" if _method(cfg) == "fused" and A.device == "cpu" else "graphblas"


def _weighted_sums(A, w, src, *, edges, stats, where):
    """Raw weighted sums over the sources ``src``: ``(total, eshare,
    hits)``, per vertex the dependencies summed (sources' own excluded),
    with ``edges`` per stored entry of A (CSR order) the path shares (else
    None), per vertex how many sources reach it and per source how many
    vertices it reaches (``nreached``)."""
    cfg = _settings.current().betweenness
    method = _weighted_method(A, cfg)
    if stats is not None:
        stats.method = method
    if method == "fused":
        from bitgraph.kernels.registry import lookup

        if stats is not None:
            stats.ran(("betweenness", "csr", "cpu", "weighted"))
        c = out_csr(A)
        run = lookup("betweenness", fmt="csr", device="cpu", variant="weighted")
        total, eshare, hits, nreached, err = run(
            CSR(c.indptr, c.indices, w, c.nrows, c.ncols), src, edges=edges,
            parallel_work=cfg.parallel_work)
        if err is not None:
            raise _zero_cycle(where, *err)
        return total, eshare, hits, nreached
    batch = cfg.batch
    if stats is not None:
        stats.metrics["batches"] = -(-int(src.size) // batch)
    xp = _array.array_module(w)
    n = A.nrows
    total = xp.zeros(n, np.float64)
    eshare = xp.zeros(w.shape[0], np.float64) if edges else None
    hits = xp.zeros(n, np.float64)
    nreached = []
    for i in range(0, src.size, batch):
        s = src[i:i + batch]
        t, e, reach = _weighted_batch(A, w, s, edges, cfg, where)
        total += t
        if edges:
            eshare += e
        hits += reach.sum(axis=0)
        nreached.append(reach.sum(axis=1))
    nreached = xp.concatenate(nreached) if nreached else xp.zeros(0, np.int64)
    return total, eshare, hits, nreached


def _weighted_batch(A, w, s, edges, cfg, where):
    """Brandes over Dijkstra paths for the sources ``s`` (b of them) as a
    b x n problem of array operations on A's device.

    ``D[i] = sssp(A_w, s[i])`` (inf where unreached). The tight pairs
    (i, e), e an edge u -> v with u != v and ``D[i, u] + w[e] == D[i, v]``,
    make each source's shortest-path DAG. Its layering by hop depth (the
    longest tight path from the source: ``depth<tight>[v] max= depth[u] +
    1``, max-plus rounds until fixed; still changing after n rounds: a
    cycle of zero-length edges) orders it; then ``sigma`` forward and
    ``coef = (1 + delta) / sigma`` backward, a layer at a time, summing over
    the tight pairs whose head is in the layer (their tails may be in any
    shallower one). Returns (delta summed per vertex over the batch, the
    sources' own excluded; per edge the shares or None; ``D < inf``)."""
    import bitgraph as bg
    from bitgraph.algorithms.shortest_paths import sssp
    from bitgraph.device import host

    c = out_csr(A)
    xp = _array.array_module(w)
    n = A.nrows
    b = int(s.size)
    Aw = bg.Matrix.from_csr(c.indptr, c.indices, w, ncols=n, check=False)
    D = xp.stack([sssp(Aw, int(x)).to_dense(np.inf) for x in host(s).tolist()])
    reach = D < np.inf
    rows = _array.rows_of(c.indptr)
    cols = c.indices.astype(np.int64)
    # tight pairs, a chunk of edges at a time: T[i, e] = D[i, u] + w[e] == D[i, v]
    pi, pe = [], []
    chunk = cfg.edge_chunk
    for e0 in range(0, rows.shape[0], chunk):
        r, cc = rows[e0:e0 + chunk], cols[e0:e0 + chunk]
        du = D[:, r]
        T = (du + w[e0:e0 + chunk] == D[:, cc]) & (du < np.inf) & (r != cc)
        ii, ee = xp.nonzero(T)
        pi.append(ii.astype(np.int64))
        pe.append(ee.astype(np.int64) + e0)
    pi = xp.concatenate(pi) if pi else xp.zeros(0, np.int64)
    pe = xp.concatenate(pe) if pe else xp.zeros(0, np.int64)
    fu = pi * n + rows[pe]  # (source row, tail) flat
    fv = pi * n + cols[pe]  # (source row, head) flat
    sflat = xp.arange(b, dtype=np.int64) * n + xp.asarray(s)
    # depth<tight>[v] max= depth[u] + 1 (as min of negatives), until fixed
    # int32 where it fits (cupyx.scatter_min's sure ground)
    neg = xp.ones(b * n, np.int32 if n < 2**31 - 2 else np.int64)  # -depth; 1: unreached
    neg[sflat] = 0
    for _ in range(n + 1):  # a DAG's longest path has at most n - 1 edges
        t = neg[fu]
        new = neg.copy()
        _array.scatter_min(new, fv, xp.where(t <= 0, t - 1, 1).astype(neg.dtype))
        if bool(xp.array_equal(new, neg)):  # synchronize!
            break
        last, neg = neg, new
    else:
        _raise_weighted_cycle(A, w, s, (neg != last).reshape(b, n).any(axis=1), where)
    depth = (-neg).astype(np.int64)  # -1: unreached
    top = int(depth.max()) if b * n else 0  # synchronize!
    # the pairs by their head's layer, the (row, vertex) pairs by layer
    pd = depth[fv]
    porder = xp.argsort(pd, kind="stable")
    pends = np.cumsum(np.asarray(host(xp.bincount(pd, minlength=top + 1)), np.int64)
                      if pd.shape[0] else np.zeros(top + 1, np.int64))
    vorder = xp.argsort(depth, kind="stable")
    vends = np.cumsum(np.asarray(host(xp.bincount(depth + 1, minlength=top + 2)), np.int64))

    def pairs(d):  # the tight pairs whose head is at layer d
        return porder[(int(pends[d - 1]) if d else 0):int(pends[d])]

    # sigma[v] = sum of sigma[u] over the tight pairs u -> v, layer by layer
    sigma = xp.zeros(b * n, np.float64)
    sigma[sflat] = 1.0
    for d in range(1, top + 1):
        p = pairs(d)
        _array.scatter_add(sigma, fv[p], sigma[fu[p]])
    # backward: coef = (1 + delta) / sigma on layer d, then its pairs' shares
    # sigma[u] * coef[v] into delta[u] (and the edge)
    delta = xp.zeros(b * n, np.float64)
    coef = xp.zeros(b * n, np.float64)
    eshare = xp.zeros(rows.shape[0], np.float64) if edges else None
    for d in range(top, 0, -1):
        V = vorder[int(vends[d]):int(vends[d + 1])]
        coef[V] = (1.0 + delta[V]) / sigma[V]
        p = pairs(d)
        share = sigma[fu[p]] * coef[fv[p]]
        _array.scatter_add(delta, fu[p], share)
        if edges:
            _array.scatter_add(eshare, pe[p], share)
    delta[sflat] = 0.0  # a source's own dependency does not count
    return delta.reshape(b, n).sum(axis=0), eshare, reach


def _raise_weighted_cycle(A, w, s, still, where):
    """The batch's first source whose depths did not settle (``still``:
    per source, its depths changed in round n + 1): its cycle named by the
    CPU kernel (on a host copy: an error path)."""
    from bitgraph.device import host
    from bitgraph.kernels.registry import lookup

    n = A.nrows
    still = np.asarray(host(still), bool)
    first = int(np.flatnonzero(still)[0]) if still.any() else 0
    c = out_csr(A)
    hc = CSR(np.asarray(host(c.indptr)), np.asarray(host(c.indices)),
             np.asarray(host(w), np.float64), n, n)
    run = lookup("betweenness", fmt="csr", device="cpu", variant="weighted")
    err = run(hc, np.asarray(host(s), np.int64)[first:first + 1])[4]
    raise _zero_cycle(where, *(err if err is not None else (int(host(s)[first]), -1)))


def _weighted_node_bc(A, w, src, sampled, *, normalized, endpoints, directed, stats=None,
                      where="betweenness_centrality"):
    """Scaled weighted vertex betweenness (the public function's weighted
    branch; the NetworkX backend passes ``directed``)."""
    bc = _vertex_sums(A, w, src, endpoints=endpoints, stats=stats, where=where)
    return _rescale(bc, A.nrows, normalized=normalized, directed=directed,
                    endpoints=endpoints, sampled=src if sampled else None)


def _weighted_raw_edge_bc(A, w, src, directed, stats=None, where="edge_betweenness_centrality"):
    """As :func:`_raw_edge_bc`, over Dijkstra paths."""
    c = out_csr(A)
    rows = _array.rows_of(c.indptr)
    cols = c.indices.astype(np.int64)
    e = _weighted_sums(A, w, src, edges=True, stats=stats, where=where)[1]
    return rows, cols, e if directed else _fold_undirected(rows, cols, e, A.nrows)
