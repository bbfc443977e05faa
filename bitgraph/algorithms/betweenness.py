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
batches run one after another. Every step of the graphblas method is a
public GraphBLAS operation (or msbfs), so it runs on either device too.

The scaling follows NetworkX's ``_rescale`` (sampled sources, endpoints,
directed or undirected).
"""

from __future__ import annotations

import math
import random as _random

import numpy as np

from bitgraph import _array
from bitgraph import settings as _settings
from bitgraph.algorithms._common import check_graph, check_sources, is_symmetric, out_csr
from bitgraph.errors import InvalidType, InvalidValue

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


def _check_weight(weight, where):
    if weight is not None:
        raise NotImplementedError(f"{where}: weighted betweenness (Dijkstra paths) is not"
                                  f" implemented; weight must be None, got {weight!r}")


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


def _node_bc(A, src, *, endpoints, edges=False, rows=None, cols=None, stats=None):
    """Raw (unscaled) vertex sums over ``src`` in batches
    (``settings.betweenness.batch``); with ``edges`` the raw edge sums over
    ``rows``/``cols`` (A's CSR order) instead. ``stats``: the method run,
    the fused kernel's key where it ran, ``metrics["batches"]``."""
    from bitgraph.algorithms.multi_source import msbfs

    cfg = _settings.current().betweenness
    batch = cfg.batch
    if isinstance(batch, (bool, np.bool_)) or not isinstance(batch, (int, np.integer)) \
            or not 1 <= batch <= 64:
        raise InvalidValue(f"settings.betweenness.batch must be an integer in 1..64 (one bit per"
                           f" source in msbfs's words), got {batch!r}")
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
        # the CUDA kernel keeps its buffers in ``work`` across this call's batches
        extra = {} if A.device == "cpu" else {"cfg": cfg, "work": {}}
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
            # each source: +1 for each vertex it reaches but itself, and
            # (reached - 1) to itself
            hit = lev >= 0
            sd = xp.asarray(s)
            bc += hit.sum(axis=0) - xp.bincount(sd, minlength=n)  # a source reaches itself
            bc += xp.bincount(sd, weights=hit.sum(axis=1) - 1.0, minlength=n)
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
    path's ends too. ``weight`` must be None: weighted (Dijkstra) paths are
    not implemented (``NotImplementedError``).

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
    """
    where = "betweenness_centrality"
    check_graph(A, where, cuda=True)
    _check_weight(weight, where)
    src, sampled = _sources(A, sources, k, seed, where)
    directed = not is_symmetric(A)
    return _scaled_node_bc(A, src, sampled, normalized=normalized, endpoints=endpoints,
                           directed=directed, stats=stats)


def _scaled_node_bc(A, src, sampled, *, normalized, endpoints, directed, stats=None):
    bc = _node_bc(A, src, endpoints=endpoints, stats=stats)
    return _rescale(bc, A.nrows, normalized=normalized, directed=directed,
                    endpoints=endpoints, sampled=src if sampled else None)


def _raw_edge_bc(A, src, directed, stats=None):
    """(rows, cols, values): per stored entry of A in CSR order, the raw
    sum of path shares; undirected, each entry holds both directions' sum."""
    c = out_csr(A)
    rows = _array.rows_of(c.indptr)
    cols = c.indices.astype(np.int64)
    e = _node_bc(A, src, endpoints=False, edges=True, rows=rows, cols=cols, stats=stats)
    if not directed:
        # (v, w) and (w, v): the same undirected edge; A' has the same
        # pattern, so the transposed positions are a permutation
        xp = _array.array_module(rows)
        n = A.nrows
        order = xp.argsort(cols * n + rows)  # position of (w, v) for each (v, w)
        e = e + e[order]
    return rows, cols, e


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
    """
    import bitgraph as bg

    where = "edge_betweenness_centrality"
    check_graph(A, where, cuda=True)
    _check_weight(weight, where)
    src, sampled = _sources(A, None, k, seed, where, draw_all=True)
    directed = not is_symmetric(A)
    rows, cols, e = _raw_edge_bc(A, src, directed, stats=stats)
    e = _rescale(e, A.nrows, normalized=normalized, directed=directed, endpoints=True,
                 sampled=src if sampled else None)
    c = out_csr(A)
    return bg.Matrix.from_csr(c.indptr, c.indices, e, ncols=A.ncols, check=False)
