"""Vertex reorderings: RCM, degree sort, Gorder, Blest's Jaccard-with-windows.

Blest (paper 000, section 3.2) orders a graph before building BVSS: social-like
graphs get Gorder then Jaccard-with-windows (packs vertices with common
neighbours into the same slice set of sigma columns, so slices hold more set
bits); other graphs get RCM (bandwidth reduction: the row ids of a VSS spread
less, so the update phase touches fewer cache lines). ``reorder(csr, "auto")``
makes that choice with :func:`is_social_like`.

Permutation convention (every function here)
--------------------------------------------
A reordering is an int64 array ``perm`` of length n with
``perm[new_id] = old_id``: the old vertices listed in their new order (what
``scipy.sparse.csgraph.reverse_cuthill_mckee`` returns). ``inverse(perm)``
gives ``inv[old_id] = new_id``. ``permute(A, perm)`` is ``P A P'``: row
``new_i`` of the result is old row ``perm[new_i]``, its column ids mapped
through ``inv``. A vertex result ``x_new`` computed on the permuted graph maps
back with ``x_orig = x_new[inv]`` (:func:`to_original`).

Every method takes a square CSR (or a :class:`~bitgraph.Matrix`), ignores
self-loops and stored values, and returns a valid permutation (each of
``0..n-1`` exactly once) for any input, including n = 0 and n = 1. Methods
that need an undirected graph (RCM, degree sort, the social-likeness test)
use the symmetrised pattern ``A + A'``; Gorder uses in- and out-neighbours as
the paper does; Jaccard-with-windows compares columns (the CSC, Blest's
input).

Kernels are serial numba (``cache=True, nogil=True``); the Python side
validates and casts every index array to int64, so each kernel compiles once
(about 5 s for all of them, cold; a few ms from the cache).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .. import _array
from ..errors import DimensionMismatch, InvalidValue
from .csr import CSR, transpose

__all__ = [
    "METHODS",
    "inverse",
    "permute",
    "to_original",
    "rcm",
    "degree_sort",
    "gorder",
    "jaccard_windows",
    "blest_order",
    "degree_profile",
    "is_social_like",
    "reorder",
]

METHODS = ("none", "natural", "rcm", "degree", "gorder", "jaccard", "blest", "auto")

# The thresholds of the social-likeness test and the hub limits of Gorder
# and Jaccard-with-windows are the ``settings.Reorder`` family; a function
# takes them as ``rules`` (None: the settings in force).


# --------------------------------------------------------------------------------------
# permutations
# --------------------------------------------------------------------------------------
def _rules(rules):
    if rules is None:
        from bitgraph.settings import current
        rules = current().reorder
    return rules


def _as_csr(a, where: str) -> CSR:
    c = a._csr() if hasattr(a, "_csr") else a
    if c.nrows != c.ncols:
        raise DimensionMismatch(f"{where}: the matrix must be square, got {c.nrows}x{c.ncols}")
    return c


def _check_perm(perm, n: int, where: str) -> np.ndarray:
    p = np.asarray(perm)
    if p.ndim != 1 or p.shape[0] != n:
        raise DimensionMismatch(f"{where}: perm has shape {p.shape}, expected ({n},)")
    if p.dtype.kind not in "iu":
        raise InvalidValue(f"{where}: perm must hold integers, got dtype {p.dtype}")
    p = p.astype(np.int64, copy=False)
    if n and (p.min() < 0 or p.max() >= n or np.bincount(p, minlength=n).max() != 1):
        raise InvalidValue(f"{where}: perm is not a permutation of 0..{n - 1}")
    return p


def inverse(perm) -> np.ndarray:
    """The inverse permutation: ``inv[perm[i]] = i`` (old id -> new id).

    >>> inverse(np.array([2, 0, 1])).tolist()
    [1, 2, 0]
    """
    p = np.asarray(perm, dtype=np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.shape[0], dtype=np.int64)
    return inv


def to_original(x_new, perm) -> np.ndarray:
    """Map a 1-D vertex result from the permuted graph back to the original
    ids: ``x_orig = x_new[inverse(perm)]``.

    >>> perm = np.array([2, 0, 1])          # new 0 is old 2, ...
    >>> to_original(np.array([20, 0, 10]), perm).tolist()  # values of new 0, 1, 2
    [0, 10, 20]
    """
    x = np.asarray(x_new)
    if x.ndim != 1 or x.shape[0] != np.asarray(perm).shape[0]:
        raise DimensionMismatch(f"to_original: x_new has shape {x.shape}, perm has length "
                                f"{np.asarray(perm).shape[0]}")
    return x[inverse(perm)]


def permute(csr, perm) -> CSR:
    """The symmetric permutation ``P A P'`` with ``perm[new] = old``: row
    ``new_i`` is old row ``perm[new_i]``, columns mapped through ``inverse(perm)``
    and re-sorted per row; values carried. O(nnz + n) plus the per-row sorts.

    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0, 1]), np.array([1, 2]), None, 3, 3)   # 0->1->2
    >>> B = permute(A, np.array([2, 1, 0]))                            # reverse the ids
    >>> B.indptr.tolist(), B.indices.tolist()                          # 2->1->0
    ([0, 0, 1, 2], [0, 1])
    """
    import scipy.sparse as sp

    c = _as_csr(csr, "permute")
    n = c.nrows
    p = _check_perm(perm, n, "permute")
    idt = c.indptr.dtype
    nnz = c.nnz
    indptr = c.indptr.astype(np.int64, copy=False)
    lens = np.diff(indptr)[p]
    new_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(lens, out=new_ptr[1:])
    if nnz == 0:
        vals = None if c.values is None else c.values[:0].copy()
        return CSR(new_ptr.astype(idt), np.zeros(0, idt), vals, n, n)
    # gather[k] = old position of the k-th entry in new row order
    gather = np.arange(nnz, dtype=np.int64) + np.repeat(indptr[p] - new_ptr[:-1], lens)
    inv = inverse(p)
    cols = inv[c.indices[gather]]
    # scipy sorts each row's columns (carrying the gather positions as data)
    cidt = np.int32 if nnz <= np.iinfo(np.int32).max and n <= np.iinfo(np.int32).max else np.int64
    S = sp.csr_array((gather, cols.astype(cidt), new_ptr.astype(cidt)), shape=(n, n))
    S.has_sorted_indices = False
    S.sort_indices()
    vals = None if c.values is None else c.values[S.data]
    return CSR(new_ptr.astype(idt), S.indices.astype(idt, copy=False), vals, n, n)


# --------------------------------------------------------------------------------------
# patterns the methods work on (int64, no self-loops)
# --------------------------------------------------------------------------------------
class _Graph(NamedTuple):
    out_ptr: np.ndarray  # [n + 1] rows of A: out-neighbours
    out_idx: np.ndarray  # [m]
    in_ptr: np.ndarray  # [n + 1] rows of A': in-neighbours (the CSC of A)
    in_idx: np.ndarray  # [m]
    symmetric: bool  # the pattern equals its transpose (then in_* is out_*)


def _offdiag(c: CSR):
    """int64 (indptr, indices) of A's pattern without the diagonal."""
    n = c.nrows
    indptr = c.indptr.astype(np.int64, copy=False)
    indices = c.indices.astype(np.int64, copy=False)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keep = indices != rows
    if keep.all():
        return indptr, indices
    new_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows[keep], minlength=n), out=new_ptr[1:])
    return new_ptr, indices[keep]


def _graph(c: CSR) -> _Graph:
    n = c.nrows
    op, oi = _offdiag(c)
    t = transpose(CSR(op, oi, None, n, n))
    ip, ii = t.indptr.astype(np.int64, copy=False), t.indices.astype(np.int64, copy=False)
    if np.array_equal(op, ip) and np.array_equal(oi, ii):
        return _Graph(op, oi, op, oi, True)
    return _Graph(op, oi, ip, ii, False)


def _sym(g: _Graph):
    """int64 (indptr, indices) of the symmetrised pattern A + A' (no self-loops)."""
    if g.symmetric:
        return g.out_ptr, g.out_idx
    import scipy.sparse as sp

    n = g.out_ptr.shape[0] - 1
    a = sp.csr_array((np.ones(g.out_idx.shape[0], np.int8), g.out_idx, g.out_ptr), shape=(n, n))
    b = sp.csr_array((np.ones(g.in_idx.shape[0], np.int8), g.in_idx, g.in_ptr), shape=(n, n))
    s = (a + b).tocsr()
    s.sum_duplicates()
    return s.indptr.astype(np.int64, copy=False), s.indices.astype(np.int64, copy=False)


def _sym_degree(c: CSR) -> np.ndarray:
    ptr, _ = _sym(_graph(c))
    return np.diff(ptr)


def _identity(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int64)


# --------------------------------------------------------------------------------------
# RCM and degree sort
# --------------------------------------------------------------------------------------
def rcm(csr) -> np.ndarray:
    """Reverse Cuthill-McKee on the symmetrised pattern: a
    bandwidth-reducing order, Blest's choice for non-social graphs. scipy's
    algorithm (``reverse_cuthill_mckee``: each component's BFS from its
    unplaced vertex of least degree, each vertex's new neighbours by
    degree, then reversed) with its ties broken by id: scipy picks the
    seeds with numpy's unstable argsort, whose order of equal degrees
    differs between CPUs (its SIMD sorts), and so did the order.

    >>> from bitgraph.formats.csr import from_coo
    >>> r, c = np.array([0, 1, 2, 3]), np.array([2, 3, 1, 0])  # the 4-cycle 0-2-1-3-0
    >>> rcm(from_coo(r, c, None, 4, 4)).tolist()  # from 0: 0, then 2 and 3, then 1; reversed
    [1, 3, 2, 0]
    """
    c = _as_csr(csr, "rcm")
    n = c.nrows
    if n <= 1:
        return _identity(n)
    ptr, idx = _sym(_graph(c))
    deg = np.diff(ptr)
    return _cuthill_mckee(ptr, idx, deg, np.argsort(deg, kind="stable"))[::-1].copy()


@njit(cache=True, nogil=True)
def _cuthill_mckee(ptr, idx, deg, seeds):
    # scipy's _reverse_cuthill_mckee before its reversal: BFS from each unplaced seed in turn;
    # a vertex's unplaced neighbours appended in row order, then insertion-sorted by degree
    # (stable: equal degrees keep that order)
    n = deg.shape[0]
    order = np.empty(n, np.int64)
    placed = np.zeros(n, np.bool_)
    end = 0
    for z in range(n):
        seed = seeds[z]
        if placed[seed]:
            continue
        placed[seed] = True
        order[end] = seed
        end += 1
        head = end - 1
        while head < end:
            i = order[head]
            head += 1
            first = end
            for p in range(ptr[i], ptr[i + 1]):
                j = idx[p]
                if not placed[j]:
                    placed[j] = True
                    order[end] = j
                    end += 1
            for k in range(first + 1, end):
                v = order[k]
                d = deg[v]
                m = k
                while m > first and d < deg[order[m - 1]]:
                    order[m] = order[m - 1]
                    m -= 1
                order[m] = v
        if end == n:
            break
    return order


def degree_sort(csr, descending: bool = True) -> np.ndarray:
    """Vertices by degree of the symmetrised pattern (self-loops ignored),
    stable: equal degrees keep their id order.

    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0, 0, 1]), np.array([1, 2, 2]), None, 4, 4)  # 3 is isolated
    >>> degree_sort(A).tolist(), degree_sort(A, descending=False).tolist()
    ([0, 1, 2, 3], [3, 0, 1, 2])
    """
    c = _as_csr(csr, "degree_sort")
    if c.nrows <= 1:
        return _identity(c.nrows)
    deg = _sym_degree(c)
    key = -deg if descending else deg
    return np.argsort(key, kind="stable").astype(np.int64, copy=False)


# --------------------------------------------------------------------------------------
# Gorder (Wei, Yu, Lu, Lin, SIGMOD 2016) with a bucket "unit heap"
# --------------------------------------------------------------------------------------
# The unit heap keeps, per vertex v, gap[v] = bucket(v) - score(v) (int32,
# the only array the increments touch: 4 bytes a vertex stays in cache),
# bucket[v] and the list links nxt[v], prv[v]. gap = _PLACED for a placed
# vertex: far from -1, so increments never move it again.
_PLACED = 1 << 30
_SCORE_MAX = 1 << 29  # window * (2 + max in-degree) must stay below this


@njit(cache=True, nogil=True)
def _unlink(v, bucket, nxt, prv, head):
    # remove v from the list of its bucket (> 0)
    a = prv[v]
    b = nxt[v]
    if a >= 0:
        nxt[a] = b
    else:
        head[bucket[v]] = b
    if b >= 0:
        prv[b] = a


@njit(cache=True, nogil=True)
def _link(v, k, bucket, nxt, prv, head):
    # push v at the front of bucket k (> 0)
    h = head[k]
    nxt[v] = h
    prv[v] = -1
    if h >= 0:
        prv[h] = v
    head[k] = v
    bucket[v] = k


@njit(cache=True, nogil=True)
def _grow(head, k):
    # head[] doubled until index k fits, the new buckets empty (-1)
    size = head.shape[0]
    while size <= k:
        size *= 2
    out = np.full(size, -1, np.int32)
    for k in range(head.shape[0]):  # a loop: slice assignment costs ~3 s of compile
        out[k] = head[k]
    return out


@njit(cache=True, nogil=True)
def _gorder_kernel(out_ptr, out_idx, in_ptr, in_idx, fallback, window, hub):
    # out_ptr[n+1], out_idx[m]: out-neighbours; in_ptr[n+1], in_idx[m']:
    # in-neighbours; fallback[n]: vertices by decreasing degree (the start and
    # the pick when every score is 0); window >= 1; hub: no 2-hop expansion
    # through an in-neighbour u with out-degree(u) > hub.
    #
    # Unit heap: buckets k >= 1 are doubly linked lists (head[k], nxt, prv);
    # score(v) = sum over the window x of S(v, x) = bucket[v] - gap[v]; a
    # vertex's bucket is never below its score. An increment lowers gap; when
    # gap reaches -1 the vertex joins the dirty list and moves up once, after
    # the step. A decrement only raises gap; the vertex drops to its true
    # bucket when it reaches the top (the paper's lazy decrement). top >= the
    # highest non-empty bucket.
    # Cost O(n + m + sum over non-hub u of out-degree(u)^2) (enter + leave).
    # Returns perm[n] (perm[new] = old).
    n = out_ptr.shape[0] - 1
    perm = np.empty(n, np.int64)
    gap = np.zeros(n, np.int32)
    bucket = np.zeros(n, np.int32)
    nxt = np.full(n, -1, np.int32)
    prv = np.full(n, -1, np.int32)
    dirty = np.empty(n, np.int64)
    head = np.full(1024, -1, np.int32)
    top = 0
    fb = 0
    for i in range(n):
        # ---- extract the vertex of highest score
        v = -1
        while top > 0:
            h = head[top]
            if h < 0:
                top -= 1
                continue
            if gap[h] > 0:  # pending decrements: drop to its true bucket, look again
                _unlink(h, bucket, nxt, prv, head)
                s = top - gap[h]
                gap[h] = 0
                if s > 0:
                    _link(h, s, bucket, nxt, prv, head)
                else:
                    bucket[h] = 0
                continue
            v = h
            _unlink(h, bucket, nxt, prv, head)
            break
        if v < 0:  # every score is 0: the next unplaced vertex by degree
            while gap[fallback[fb]] >= _SCORE_MAX:
                fb += 1
            v = fallback[fb]
        gap[v] = _PLACED
        perm[i] = v
        # ---- the vertex leaving the window takes its contributions back
        if i >= window:
            x = perm[i - window]
            for p in range(out_ptr[x], out_ptr[x + 1]):  # edge x -> w
                gap[out_idx[p]] += 1
            for p in range(in_ptr[x], in_ptr[x + 1]):
                u = in_idx[p]
                gap[u] += 1  # edge u -> x
                if out_ptr[u + 1] - out_ptr[u] <= hub:  # siblings of x through u
                    for q in range(out_ptr[u], out_ptr[u + 1]):
                        gap[out_idx[q]] += 1
        # ---- v enters the window
        nd = 0
        for p in range(out_ptr[v], out_ptr[v + 1]):  # edge v -> w
            w = out_idx[p]
            g = gap[w] - 1
            gap[w] = g
            if g == -1:
                dirty[nd] = w
                nd += 1
        for p in range(in_ptr[v], in_ptr[v + 1]):
            u = in_idx[p]
            g = gap[u] - 1  # edge u -> v
            gap[u] = g
            if g == -1:
                dirty[nd] = u
                nd += 1
            if out_ptr[u + 1] - out_ptr[u] <= hub:  # siblings: u -> w and u -> v
                for q in range(out_ptr[u], out_ptr[u + 1]):
                    w = out_idx[q]
                    g = gap[w] - 1
                    gap[w] = g
                    if g == -1:
                        dirty[nd] = w
                        nd += 1
        # ---- move the vertices whose score passed their bucket
        for t in range(nd):
            w = dirty[t]
            b = bucket[w]
            s = b - gap[w]
            gap[w] = 0
            if s >= head.shape[0]:
                head = _grow(head, s)
            if b > 0:
                _unlink(w, bucket, nxt, prv, head)
            _link(w, s, bucket, nxt, prv, head)
            if s > top:
                top = s
    return perm


def gorder(csr, window: int = 5, hub: int | None = None, *, rules=None) -> np.ndarray:
    """Gorder (Wei et al., SIGMOD 2016): greedily append the vertex ``u``
    maximising ``sum over the last `window` placed v of S(u, v)``, with
    ``S(u, v)`` = common in-neighbours of u and v + edges between them (0, 1
    or 2: u->v and v->u count separately, as in the paper).

    A bucket unit heap keeps the scores: when v enters the window the keys of
    its out- and in-neighbours and of its in-neighbours' out-neighbours grow
    by one; when it leaves they drop, lazily (the paper's scheme). The 2-hop
    (sibling) expansion skips an in-neighbour ``u`` of out-degree above
    ``hub`` (default ``max(isqrt(n), rules.gorder_hub_min)``, 64; the authors' code uses sqrt(n),
    the floor keeps small graphs exact), so S leaves out common in-neighbours
    that are hubs. Unlike the authors' code, direct edges always count (it
    also drops edges to and from hubs), and the start and every pick while all
    scores are 0 is the unplaced vertex of highest degree (in + out; it
    seeds the keys with in-degrees instead). Ties within a bucket: the most
    recently raised vertex first. Isolated vertices come last. Deterministic.
    Cost O(n + m + sum over non-hub u of out-degree(u)^2), at most O(m * hub);
    kron scale 19 (15.5M stored entries, hub 724) takes about 23 s here.

    >>> from bitgraph.formats.csr import from_coo
    >>> r = np.array([0, 1, 0, 2, 3, 4]); c = np.array([1, 0, 2, 0, 4, 3])  # 1-0-2 and 3-4
    >>> gorder(from_coo(r, c, None, 5, 5), window=2).tolist()
    [0, 2, 1, 3, 4]
    """
    c = _as_csr(csr, "gorder")
    n = c.nrows
    window = int(window)
    if window < 1:
        raise InvalidValue(f"gorder: window (={window}) must be >= 1")
    if n <= 1:
        return _identity(n)
    if n >= 1 << 31:  # the heap's links are int32
        raise InvalidValue(f"gorder: n (={n}) must be below 2**31")
    g = _graph(c)
    indeg = np.diff(g.in_ptr)
    if window * (2 + int(indeg.max())) >= _SCORE_MAX:
        raise InvalidValue(f"gorder: window (={window}) too large for this graph: window * (2 + max in-degree) "
                           f"must stay below {_SCORE_MAX}")
    deg = np.diff(g.out_ptr) + indeg
    fallback = np.argsort(-deg, kind="stable").astype(np.int64, copy=False)
    hub = max(math.isqrt(n), _rules(rules).gorder_hub_min) if hub is None else int(hub)
    return _gorder_kernel(g.out_ptr, g.out_idx, g.in_ptr, g.in_idx, fallback, np.int64(window), np.int64(hub))


# --------------------------------------------------------------------------------------
# Jaccard with windows (Blest, Algorithm 1)
# --------------------------------------------------------------------------------------
@njit(inline="always")
def _expand(y, s, e, row_ptr, row_idx, done, cnt, touched, nt):
    # Every unclustered x in the window [s, e) with y in N(x) (row y of A,
    # sorted) gets cnt[x] += 1; x's first touch appends it to touched.
    # Binary search to s, then walk while x < e. Returns the new nt.
    lo = row_ptr[y]
    hi = row_ptr[y + 1]
    if hi == lo or row_idx[hi - 1] < s or row_idx[lo] >= e:
        return nt
    a = lo
    b = hi
    while a < b:
        mid = (a + b) >> 1
        if row_idx[mid] < s:
            a = mid + 1
        else:
            b = mid
    for p in range(a, hi):
        x = row_idx[p]
        if x >= e:
            break
        if done[x]:
            continue
        if cnt[x] == 0:
            touched[nt] = x
            nt += 1
        cnt[x] += 1
    return nt


@njit(cache=True, nogil=True)
def _jaccard_kernel(col_ptr, col_idx, row_ptr, row_idx, deg, is_hub, sigma, window):
    # col_ptr[n+1], col_idx[m]: N(x) = column x of A (the CSC, Blest's input);
    # row_ptr[n+1], row_idx[m]: row y of A = {x : y in N(x)}, sorted;
    # deg[n]: |N(x)| without hub elements; is_hub[n]: elements y left out of
    # the similarity. For each window [s, e) and each cluster: seed = first
    # unclustered vertex; U = N(seed); sigma - 1 times add the unclustered x
    # of the window maximising |N(x) & U| / |N(x) | U| (ties: smallest id;
    # when no x shares an element with U: the first unclustered vertex).
    # cnt[x] = |N(x) & U| for the touched x (touched[:nt]); in_u[y] marks U.
    # Cost per cluster O(sum over y in U of (log deg + |row y in window|) +
    # sigma * |touched|). Returns perm[n] (perm[new] = old).
    n = col_ptr.shape[0] - 1
    perm = np.empty(n, np.int64)
    done = np.zeros(n, np.bool_)
    in_u = np.zeros(n, np.bool_)
    ulist = np.empty(n, np.int64)
    cnt = np.zeros(n, np.int64)
    touched = np.empty(n, np.int64)
    for s in range(0, n, window):
        e = min(s + window, n)
        first = s
        pos = s
        while pos < e:
            # ---- seed: the first unclustered vertex of the window
            while done[first]:
                first += 1
            j = first
            nu = 0
            nt = 0
            r = 0
            while True:
                perm[pos] = j
                pos += 1
                done[j] = True
                r += 1
                if r == sigma or pos == e:
                    break
                # U = U | N(j), counting the new elements into cnt
                for p in range(col_ptr[j], col_ptr[j + 1]):
                    y = col_idx[p]
                    if in_u[y] or is_hub[y]:
                        continue
                    in_u[y] = True
                    ulist[nu] = y
                    nu += 1
                    nt = _expand(y, s, e, row_ptr, row_idx, done, cnt, touched, nt)
                # ---- argmax of cnt / (deg + nu - cnt) over the touched, exact
                best = -1
                bc = 0
                bd = 1
                t = 0
                while t < nt:
                    x = touched[t]
                    if done[x]:  # clustered since: drop it (order does not matter)
                        nt -= 1
                        touched[t] = touched[nt]
                        cnt[x] = 0
                        continue
                    cx = cnt[x]
                    dx = deg[x] + nu - cx
                    lhs = cx * bd
                    rhs = bc * dx
                    if lhs > rhs or (lhs == rhs and x < best):
                        best = x
                        bc = cx
                        bd = dx
                    t += 1
                if best < 0:
                    while done[first]:
                        first += 1
                    best = first
                j = best
            # ---- reset the marks of this cluster
            for t in range(nu):
                in_u[ulist[t]] = False
            for t in range(nt):
                cnt[touched[t]] = 0
    return perm


def jaccard_windows(csr, sigma: int = 8, window: int = 65536, hub: int | None = None, *,
                    rules=None) -> np.ndarray:
    """Blest's JaccardWithWindows (Algorithm 1): within each window of
    ``window`` consecutive ids, build clusters of ``sigma`` vertices: seed =
    the first unclustered vertex; then ``sigma - 1`` times add the
    unclustered vertex x of the window with the highest Jaccard similarity
    ``|N(x) & U| / |N(x) | U|``, U = the union of the cluster's neighbour sets
    (ties: smallest id; if no vertex shares a neighbour with U, the first
    unclustered one). ``N(x)`` is column x of A (Blest's input is the CSC);
    self-loops are ignored. Output: the clusters in order, so cluster l of a
    window starting at s holds new ids ``s + l*sigma ...``.

    Only vertices sharing an element with U can score above 0: each new
    element y of U walks row y of A, cut to the window by binary search, to
    count ``|N(x) & U|``; ``|N(x) | U| = |N(x)| + |U| - |N(x) & U|``; scores
    compare exactly as integer cross products. Each step scans the touched
    vertices, so a cluster costs O(sigma * touched), at most O(sigma * w):
    overall O(n * w * sigma) in the worst case, within the paper's O(n w delta).

    ``hub``: elements y that appear in more than ``hub`` neighbour sets (row
    y of A longer than ``hub``) are left out of every set (U and every N(x)),
    as stop words are in text similarity. Default ``max(window,
    rules.jaccard_hub)`` (65536; rules: the ``settings.Reorder``): such
    an element alone would touch a whole window at every step (a star's
    centre makes the cost O(n * w * sigma)) and says little about similarity.
    Pass ``hub >= n`` for the exact Algorithm 1 (kron scale 19, max degree
    40,333, is exact under the default). Deterministic.

    >>> from bitgraph.formats.csr import from_coo
    >>> # two triangles {0, 2, 4} and {1, 3, 5}, interleaved
    >>> r = np.array([0, 2, 0, 4, 2, 4, 1, 3, 1, 5, 3, 5])
    >>> c = np.array([2, 0, 4, 0, 4, 2, 3, 1, 5, 1, 5, 3])
    >>> jaccard_windows(from_coo(r, c, None, 6, 6), sigma=3, window=6).tolist()
    [0, 2, 4, 1, 3, 5]
    """
    c = _as_csr(csr, "jaccard_windows")
    sigma, window = int(sigma), int(window)
    if sigma < 1:
        raise InvalidValue(f"jaccard_windows: sigma (={sigma}) must be >= 1")
    if window < 1 or window % sigma:
        raise InvalidValue(f"jaccard_windows: window (={window}) must be a positive multiple of sigma (={sigma})")
    n = c.nrows
    if n <= 1:
        return _identity(n)
    g = _graph(c)
    # N(x) = column x = row x of A' (in_*); row y of A (out_*) = {x : y in N(x)}
    row_len = np.diff(g.out_ptr)
    hub = max(window, _rules(rules).jaccard_hub) if hub is None else int(hub)
    is_hub = row_len > hub
    deg = np.diff(g.in_ptr)
    if is_hub.any():  # |N(x)| without the hub elements
        cols = np.repeat(np.arange(n, dtype=np.int64), deg)
        deg = np.bincount(cols[~is_hub[g.in_idx]], minlength=n)
    return _jaccard_kernel(g.in_ptr, g.in_idx, g.out_ptr, g.out_idx, deg.astype(np.int64, copy=False), is_hub,
                           np.int64(sigma), np.int64(window))


def blest_order(csr, sigma: int = 8, window: int = 65536, *, gorder_window: int = 5,
                hub: int | None = None, rules=None) -> np.ndarray:
    """Blest's order for social-like graphs: Gorder, then Jaccard-with-windows
    on the Gorder-permuted graph, composed into one ``perm`` in original ids
    (``perm = p_gorder[p_jaccard]``). ``gorder_window`` goes to
    :func:`gorder`, ``sigma``, ``window`` and ``hub`` to
    :func:`jaccard_windows`. Kron scale 19: about 70 s here.

    >>> from bitgraph.formats.csr import from_coo
    >>> r = np.array([0, 1, 1, 2]); c = np.array([1, 0, 2, 1])
    >>> sorted(blest_order(from_coo(r, c, None, 3, 3), sigma=2, window=2).tolist())
    [0, 1, 2]
    """
    c = _as_csr(csr, "blest_order")
    sigma, window = int(sigma), int(window)
    if sigma < 1 or window < 1 or window % sigma:
        raise InvalidValue(f"blest_order: window (={window}) must be a positive multiple of sigma (={sigma})")
    if c.nrows <= 1:
        return _identity(c.nrows)
    rules = _rules(rules)
    p1 = gorder(c, window=gorder_window, rules=rules)
    p2 = jaccard_windows(permute(CSR(c.indptr, c.indices, None, c.nrows, c.ncols), p1), sigma, window, hub,
                         rules=rules)
    return p1[p2]


# --------------------------------------------------------------------------------------
# social-likeness
# --------------------------------------------------------------------------------------
def _power_law_fit(deg: np.ndarray, rules):
    """Discrete power-law tail fit (Clauset, Shalizi, Newman 2009): for each
    candidate d_min the MLE ``alpha = 1 + n_tail / sum(ln(d / (d_min - 0.5)))``
    over degrees >= d_min, and the KS distance between the tail's empirical
    CCDF and the fitted ``(d / d_min) ** (1 - alpha)``; d_min is the candidate
    of smallest KS among those leaving at least ``rules.tail_min`` vertices
    and ``rules.tail_decades`` decades of degree above it. Returns (alpha, d_min, n_tail, ks),
    NaNs when no candidate qualifies."""
    d = np.sort(deg[deg > 0])[::-1].astype(np.float64)  # descending
    best = (math.nan, math.nan, 0, math.nan)
    tail_min = int(rules.tail_min)
    if d.shape[0] < tail_min:
        return best
    dmax = d[0]
    cands = _array.unique(d[tail_min - 1:])  # d_min values keeping >= tail_min vertices
    cands = cands[(cands >= 1) & (dmax >= cands * 10.0 ** rules.tail_decades)]
    if cands.shape[0] > 64:  # log-spaced subset: the fit is cheap, keep it bounded
        pick = _array.unique(np.geomspace(1, cands.shape[0], 64).astype(np.int64) - 1)
        cands = cands[pick]
    asc = d[::-1]
    for dm in cands:
        tail = asc[np.searchsorted(asc, dm):]
        nt = tail.shape[0]
        s = np.log(tail / (dm - 0.5)).sum()
        if s <= 0:
            continue
        alpha = 1.0 + nt / s
        # empirical CCDF at each distinct tail degree vs the model
        vals, first = _array.unique(tail, return_index=True)
        emp = 1.0 - first / nt  # P(D >= vals)
        model = (vals / dm) ** (1.0 - alpha)
        ks = float(np.abs(emp - model).max())
        if not (ks >= best[3]):  # also replaces the NaN start
            best = (float(alpha), float(dm), int(nt), ks)
    return best


def degree_profile(csr, *, rules=None) -> dict:
    """Degree statistics of the symmetrised pattern (self-loops ignored) and
    Blest's social-likeness verdict, by the thresholds of ``rules`` (the
    ``settings.Reorder``; None: those in force):

    - ``top1_share``, ``top10_share``: fraction of the edge ends (sum of
      degrees) held by the ceil(1%) and ceil(10%) highest-degree vertices;
    - ``heavy_tail``: top1_share > 5% and top10_share > 40%;
    - ``alpha``, ``d_min``, ``n_tail``, ``ks``: the discrete power-law fit of
      the degree tail (see ``_power_law_fit``; NaN when the tail is too short
      or spans less than a decade: grids, rings, meshes);
    - ``power_law``: 2 < alpha < 3 with ks <= 0.1;
    - ``social_like``: heavy_tail or power_law.

    >>> from bitgraph.formats.csr import from_coo
    >>> i = np.arange(10); ring = from_coo(i, (i + 1) % 10, None, 10, 10)
    >>> p = degree_profile(ring); p["top10_share"], p["social_like"]
    (0.1, False)
    """
    rules = _rules(rules)
    c = _as_csr(csr, "degree_profile")
    n = c.nrows
    deg = _sym_degree(c) if n else np.zeros(0, np.int64)
    total = int(deg.sum())
    d = np.sort(deg)[::-1]
    if total:
        top1 = float(d[: max(1, math.ceil(0.01 * n))].sum() / total)
        top10 = float(d[: max(1, math.ceil(0.10 * n))].sum() / total)
    else:
        top1 = top10 = 0.0
    heavy = top1 > rules.top1_share and top10 > rules.top10_share
    alpha, dmin, ntail, ks = _power_law_fit(deg, rules)
    power = bool(rules.alpha_lo < alpha < rules.alpha_hi and ks <= rules.ks_max)
    return {"n": n, "edge_ends": total, "max_degree": int(d[0]) if n else 0,
            "top1_share": top1, "top10_share": top10, "heavy_tail": bool(heavy),
            "alpha": alpha, "d_min": dmin, "n_tail": ntail, "ks": ks, "power_law": power,
            "social_like": bool(heavy or power)}


def is_social_like(csr, *, rules=None) -> bool:
    """Blest's test (section 3.2.1): heavy-tailed degrees (top 1% of the
    vertices hold > 5% of the edges and the top 10% hold > 40%) or a
    power-law degree tail with exponent in (2, 3); ``rules``: the
    ``settings.Reorder`` (None: those in force). See :func:`degree_profile`.

    >>> from bitgraph.formats.csr import from_coo
    >>> star = from_coo(np.zeros(99, np.int64), np.arange(1, 100), None, 100, 100)
    >>> is_social_like(star)
    True
    """
    return degree_profile(csr, rules=rules)["social_like"]


# --------------------------------------------------------------------------------------
# dispatch
# --------------------------------------------------------------------------------------
def reorder(csr, method: str = "auto", **kw) -> np.ndarray:
    """A reordering ``perm`` (``perm[new] = old``) by name: ``"none"`` /
    ``"natural"`` (identity), ``"rcm"``, ``"degree"``, ``"gorder"``,
    ``"jaccard"`` (Jaccard-with-windows alone), ``"blest"`` (Gorder then
    Jaccard-with-windows) or ``"auto"``: ``"blest"`` when the graph is
    social-like (:func:`is_social_like`), else ``"rcm"`` (Blest's rule).
    Keywords go to the method (with ``"auto"``, to ``blest_order`` only);
    the thresholds and hub limits are ``settings.Reorder``'s (read here).

    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0, 1]), np.array([1, 2]), None, 3, 3)
    >>> reorder(A, "none").tolist()
    [0, 1, 2]
    """
    c = _as_csr(csr, "reorder")
    m = str(method).lower()
    if m not in METHODS:
        raise InvalidValue(f"reorder: unknown method {method!r}; known: {', '.join(METHODS)}")
    rules = _rules(kw.pop("rules", None))
    if m == "auto":  # keywords are for "blest"; "rcm" takes none
        if not is_social_like(c, rules=rules):
            return rcm(c)
        m = "blest"
    if m in ("none", "natural"):
        return _identity(c.nrows)
    if m == "rcm":
        return rcm(c, **kw)
    if m == "degree":
        return degree_sort(c, **kw)
    if m == "gorder":
        return gorder(c, rules=rules, **kw)
    if m == "jaccard":
        return jaccard_windows(c, rules=rules, **kw)
    return blest_order(c, rules=rules, **kw)
