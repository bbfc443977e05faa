"""Connected components (Afforest) and triangle counting (ordered count),
numba: the fused kernels of ``bitgraph.algorithms.components`` and
``bitgraph.algorithms.triangles``.

Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018; gapbs ``cc.cc``): ``comp``
is a forest where every vertex points at a smaller (or equal) id.
``_link(u, v)`` hooks the larger of the two roots under the smaller one
with a compare-and-swap, so concurrent links never lose a hook, and
halves the paths it climbs; ``comp[x] <= x`` always holds; the root of each final tree is therefore
its component's smallest vertex id, with no relabel pass. A link ignores
the edge's direction, so any CSR gives the weakly connected components.
Rounds:

1. ``settings.components.rounds`` sampling rounds: every vertex links to its r-th neighbour
   only, then a compress pass (pointer jumping to the root);
2. every vertex links its remaining neighbours. On a symmetric graph
   (``skip_largest``) the vertices of the largest partial component c
   (the most frequent root in 1024 samples) skip theirs: an edge between
   c and another tree is also stored from the other side. On a directed
   graph no vertex may skip (its edge may be stored one way only);
3. a final compress.

Triangle counting (``ordered_count``) counts each triangle w < v < u
once, at its middle vertex v: with L(x) the neighbours of x below x
(sorted), row v's L(v) is stamped into a per-thread bitmap of n bits (n/8
bytes: 128 KB at n = 1M), and for each neighbour u > v the w < v of
L(u) are tested against it, stopping at the first w >= v. The work is the
wedges of L, sum over u of |L(u)|^2 / 2, which is what gapbs's
``OrderedCount`` merge also pays besides scanning every L(v) per edge
(3x more work on kron). Rows are handed out ``settings.triangles.grain`` at a time from an
atomic counter (gapbs's ``schedule(dynamic, 64)``): a row's work is far
from its length on skewed graphs. ``degree_order`` relabels the vertices
by descending degree first (gapbs's ``RelabelByDegree``): L(u) then lists
u's neighbours of higher degree, at most sqrt(2m) of them, which is what
makes kron fast.

The atomics (``cas``, ``fetch_add``) and ``prefetch`` are intrinsics in
``bits.py``; the kernels' random reads (comp of a neighbour, the
row of a neighbour) are issued a few iterations ahead, 1.4-1.9x serial.
"""

import numpy as np
from numba import njit

from bitgraph import _array
from bitgraph.kernels.cpu import (
    even_chunks, index_args, indptr_chunks, num_threads, parallel_for, parallel_map, serial_below,
)
from bitgraph.kernels.cpu.bits import cas, fetch_add, prefetch
from bitgraph.kernels.registry import register

__all__ = ["afforest", "degree_order", "lower_ends",
           "ordered_count"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U31 = np.uint64(31)
_W1 = np.uint32(1)
_AHEAD = np.uint64(2)
_AHEAD2 = np.uint64(4)
_CC_AHEAD = np.uint64(8)
_RANK_AHEAD = np.uint64(16)


# ----------------------------------------------------------------------------
# Afforest
# ----------------------------------------------------------------------------

@njit(inline="always")
def _link(u, v, comp):
    # gapbs Link: hook the larger root under the smaller with a CAS (a
    # failed one means another thread hooked it first: re-read and retry).
    # Climbing a non-root, it also halves the path (comp[high] = its
    # grandparent): a plain store is safe there, since only roots are ever
    # CAS'd and a non-root stays one; any smaller id of the same set is a
    # valid pointer. Without it, urand's second round (one giant component
    # forming) walks chains: 73 ms -> 17 ms serial on urand-20.
    p1 = comp[u]
    p2 = comp[v]
    while p1 != p2:
        high = p1 if p1 > p2 else p2
        low = p1 + (p2 - high)
        p_high = comp[np.uint64(high)]
        if p_high == low:
            break
        if p_high == high:
            if cas(comp, np.uint64(high), high, low):
                break
            p1 = comp[np.uint64(high)]
            p2 = comp[np.uint64(low)]
            continue
        g = comp[np.uint64(p_high)]
        if g != p_high:
            comp[np.uint64(high)] = g
        p1 = g
        p2 = comp[np.uint64(low)]


@njit(cache=True, nogil=True)
def _sample_round(r0, r1, r, indptr, indices, comp):
    # vertices r0..r1-1 link to their r-th neighbour (if they have one);
    # comp of the neighbour 8 vertices ahead is prefetched (a random read:
    # kron-20 30 -> 17 ms per round, serial)
    for u in range(r0, r1):
        if u + _CC_AHEAD < r1:
            q = np.uint64(indptr[u + _CC_AHEAD]) + r
            if q < np.uint64(indptr[u + _CC_AHEAD + _U1]):
                prefetch(comp, np.uint64(indices[q]))
        p = np.uint64(indptr[u]) + r
        if p < np.uint64(indptr[u + _U1]):
            _link(u, np.uint64(indices[p]), comp)


@njit(cache=True, nogil=True)
def _compress(r0, r1, comp):
    # pointer jumping: every vertex of r0..r1-1 points at its root
    for u in range(r0, r1):
        while comp[u] != comp[np.uint64(comp[u])]:
            comp[u] = comp[np.uint64(comp[u])]


@njit(cache=True, nogil=True)
def _final_round(r0, r1, skip, rounds, indptr, indices, comp):
    # vertices outside the component rooted at ``skip`` link every neighbour
    # past the first ``rounds`` (those were linked while sampling); comp of
    # the neighbour 8 entries ahead is prefetched (kron-20, all edges:
    # 117 -> 60 ms serial)
    for u in range(r0, r1):
        if comp[u] == skip:
            continue
        end = np.uint64(indptr[u + _U1])
        for p in range(np.uint64(indptr[u]) + rounds, end):
            if p + _CC_AHEAD < end:
                prefetch(comp, np.uint64(indices[p + _CC_AHEAD]))
            _link(u, np.uint64(indices[p]), comp)


def _most_frequent(comp, samples=1024, seed=0):
    # gapbs SampleFrequentElement: the root of the largest partial component
    n = comp.size
    rng = np.random.default_rng(seed)
    picks = comp[rng.integers(0, n, min(samples, n))]
    vals, counts = _array.unique(picks, return_counts=True)
    return int(vals[np.argmax(counts)])


def _warm_afforest(dtype, index_dtype):
    if dtype != np.bool_:
        return
    indptr = np.array([0, 1, 2, 2], index_dtype)
    afforest(indptr, np.array([1, 0], index_dtype), parallel=False)
    afforest(np.array([0, 0], index_dtype), np.zeros(0, index_dtype), parallel=False)


@register("cc", fmt="csr", device="cpu", variant="afforest", warmup=_warm_afforest)
def afforest(indptr, indices, *, rounds=None, skip_largest=True, parallel=None, cfg=None):
    """Weakly connected components by Afforest.

    indptr[n+1], indices[nnz]: a square CSR, int32 or int64; self-loops,
    duplicates and unsorted rows are fine. skip_largest: the CSR holds
    both directions of every edge (a symmetric graph), so the largest
    partial component may skip its edges in the last round (False for a
    directed graph: every edge is linked). cfg: the ``Components``
    settings (None: those in force); rounds: sampling rounds (None:
    ``cfg.rounds``). Returns comp[n] of the index dtype: comp[u] = the
    smallest vertex id of u's component. parallel: None picks serial below
    ``cfg.serial_below`` stored entries + vertices. Cost O(n + nnz) link
    attempts (the trees stay shallow), no workspace besides comp.
    """
    if cfg is None:
        from bitgraph.settings import current
        cfg = current().components
    indptr, indices = index_args(indptr, indices)
    n = indptr.size - 1
    comp = np.arange(n, dtype=indptr.dtype)
    if n == 0:
        return comp
    rounds = max(0, int(cfg.rounds if rounds is None else rounds))
    if rounds == 0:
        skip_largest = False  # no sample to find the largest component in
    if parallel is None:
        parallel = int(indptr[-1]) + n >= cfg.serial_below
    whole = np.array([0, n], np.int64)
    vchunks = even_chunks(n) if parallel else whole
    for r in range(rounds):
        parallel_for(_sample_round, vchunks, np.uint64(r), indptr, indices, comp)
        parallel_for(_compress, vchunks, comp)
    skip = _most_frequent(comp) if skip_largest else -1
    echunks = indptr_chunks(indptr) if parallel else whole
    parallel_for(_final_round, echunks, comp.dtype.type(skip), np.uint64(rounds),
                 indptr, indices, comp)
    parallel_for(_compress, vchunks, comp)
    return comp


# ----------------------------------------------------------------------------
# triangle counting
# ----------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _lower_ends(r0, r1, indptr, indices, ends):
    # ends[u] = first position of row u with a column >= u (rows sorted)
    for u in range(r0, r1):
        lo = np.uint64(indptr[u])
        hi = np.uint64(indptr[u + _U1])
        while lo < hi:
            mid = (lo + hi) >> _U1
            if np.uint64(indices[mid]) < u:
                lo = mid + _U1
            else:
                hi = mid
        ends[u] = lo


@register("tc", fmt="csr", device="cpu", variant="lower_ends")
def lower_ends(indptr, indices, *, parallel=None):
    """mid[n] (index dtype): the columns < u of row u are
    ``indices[indptr[u]:mid[u]]`` (rows sorted, no copy). O(n log d)."""
    indptr, indices = index_args(indptr, indices)
    n = indptr.size - 1
    ends = np.empty(n, indptr.dtype)
    if parallel is None:
        parallel = n >= serial_below()
    chunks = even_chunks(n) if parallel else np.array([0, n], np.int64)
    if n:
        parallel_for(_lower_ends, chunks, indptr, indices, ends)
    return ends


@njit(cache=True, nogil=True)
def _degree_rank(degree, rank):
    # rank[u] = position of u in the order by descending degree, ties by id
    # (a counting sort: O(n + max degree))
    n = degree.size
    top = 0
    for u in range(n):
        if degree[u] > top:
            top = degree[u]
    start = np.zeros(top + 2, np.int64)
    for u in range(n):
        start[top - degree[u] + 1] += 1
    for d in range(1, top + 2):
        start[d] += start[d - 1]
    for u in range(n):
        k = top - degree[u]
        rank[u] = start[k]
        start[k] += 1


@njit(inline="always")
def _sort_small(a, lo, hi):
    # insertion sort of a[lo:hi] (short rows: no call, no allocation)
    for i in range(lo + _U1, hi):
        x = a[i]
        j = i
        while j > lo and a[j - _U1] > x:
            a[j] = a[j - _U1]
            j -= _U1
        a[j] = x


@njit(cache=True, nogil=True)
def _relabel_rows(r0, r1, indptr, indices, rank, out_indptr, out_indices, out_mid):
    # new row rank[u]: the ranks of u's neighbours, those below rank[u]
    # first and sorted (the triangle kernel stops early in them), the
    # others after them in any order
    for u in range(r0, r1):
        ru = np.uint64(rank[u])
        lo = np.uint64(out_indptr[ru])
        hi = np.uint64(out_indptr[ru + _U1])
        end = np.uint64(indptr[u + _U1])
        for p in range(np.uint64(indptr[u]), end):
            if p + _RANK_AHEAD < end:
                prefetch(rank, np.uint64(indices[p + _RANK_AHEAD]))
            rv = rank[np.uint64(indices[p])]
            if np.uint64(rv) < ru:
                out_indices[lo] = rv
                lo += _U1
            else:
                hi -= _U1
                out_indices[hi] = rv
        out_mid[ru] = lo
        start = np.uint64(out_indptr[ru])
        # insertion sort up to 64 entries (kron-20: 640 ms for all rows
        # vs 720 ms with 32, 1000 ms with numba's sort for all)
        if lo - start <= np.uint64(64):
            _sort_small(out_indices, start, lo)
        else:
            out_indices[start:lo].sort()


@register("tc", fmt="csr", device="cpu", variant="degree_order")
def degree_order(indptr, indices, *, parallel=None):
    """(rank, indptr', indices', mid'): the graph relabelled by descending
    degree, rank[u] = the new id of u (ties by id). Row i of the new CSR
    holds the new ids of i's neighbours: first, sorted, those below i
    (higher degree: at most sqrt(2 m) of them), up to ``mid'[i]``; then
    the others, unsorted.

    indptr, indices: a symmetric CSR without self-loops (rows need not be
    sorted). Everything in the index dtype. Cost O(n + nnz + max degree)
    plus sorting the lower parts (short rows).
    """
    indptr, indices = index_args(indptr, indices)
    n = indptr.size - 1
    itype = indptr.dtype
    degree = np.diff(indptr).astype(itype)
    rank = np.empty(n, itype)
    _degree_rank(degree, rank)
    new_degree = np.empty(n, itype)
    new_degree[rank] = degree
    out_indptr = np.zeros(n + 1, itype)
    np.cumsum(new_degree, out=out_indptr[1:])
    out_indices = np.empty(indices.size, itype)
    out_mid = np.empty(n, itype)
    if parallel is None:
        parallel = int(indptr[-1]) + n >= serial_below()
    chunks = indptr_chunks(indptr) if parallel else np.array([0, n], np.int64)
    if n:
        parallel_for(_relabel_rows, chunks, indptr, indices, rank, out_indptr,
                     out_indices, out_mid)
    return rank, out_indptr, out_indices, out_mid


@njit(inline="always")
def _count_rows(next_row, grain, indptr, mid, indices, bits, per_vertex,
                tri, part):
    # Rows v from the shared counter, ``grain`` at a time. Row v's lower
    # part L(v) (neighbours < v, sorted) is stamped into ``bits``; for each
    # u > v of its upper part, the w < v of L(u) that hit a stamp close the
    # triangles w < v < u. per_vertex: tri[v] gets v's count (v is owned by
    # this thread), ``part`` (this thread's) those of u and w.
    n = np.uint64(mid.size)
    g = np.uint64(grain)
    total = _U0
    while True:
        start = np.uint64(fetch_add(next_row, 0, grain))
        if start >= n:
            break
        stop = min(start + g, n)
        for v in range(start, stop):
            a0 = np.uint64(indptr[v])
            a1 = np.uint64(mid[v])
            b1 = np.uint64(indptr[v + _U1])
            if a1 == a0 or b1 == a1:
                continue  # v is the middle of no triangle
            for p in range(a0, a1):
                w = np.uint64(indices[p])
                bits[w >> _U5] |= _W1 << np.uint32(w & _U31)
            tv = _U0
            for p in range(a1, b1):
                # the rows L(u) are scattered (DRAM misses on big graphs):
                # prefetch the bounds of the u 4 ahead and the row of the
                # u 2 ahead (urand-20 1.75x, relabelled kron-18 1.4x, serial)
                if p + _AHEAD2 < b1:
                    x = np.uint64(indices[p + _AHEAD2])
                    prefetch(indptr, x)
                    prefetch(mid, x)
                if p + _AHEAD < b1:
                    prefetch(indices, np.uint64(indptr[np.uint64(indices[p + _AHEAD])]))
                u = np.uint64(indices[p])
                c = _U0
                for q in range(np.uint64(indptr[u]), np.uint64(mid[u])):
                    w = np.uint64(indices[q])
                    if w >= v:
                        break
                    hit = np.uint64((bits[w >> _U5] >> np.uint32(w & _U31)) & _W1)
                    if per_vertex:
                        if hit:
                            part[w] += 1
                    c += hit
                if per_vertex:
                    part[u] += np.int64(c)
                tv += c
            if per_vertex:
                tri[v] += np.int64(tv)
            total += tv
            for p in range(a0, a1):
                bits[np.uint64(indices[p]) >> _U5] = np.uint32(0)
    return total


@njit(cache=True, nogil=True)
def _count_total(w0, w1, next_row, grain, indptr, mid, indices):
    bits = np.zeros((mid.size + 31) // 32, np.uint32)
    dummy = np.zeros(1, np.int64)
    return _count_rows(next_row, grain, indptr, mid, indices, bits, False,
                       dummy, dummy)


@njit(cache=True, nogil=True)
def _count_vertex(w0, w1, next_row, grain, indptr, mid, indices, tri):
    bits = np.zeros((mid.size + 31) // 32, np.uint32)
    part = np.zeros(mid.size, np.int64)
    _count_rows(next_row, grain, indptr, mid, indices, bits, True, tri, part)
    return part


def _warm_count(dtype, index_dtype):
    if dtype != np.bool_:
        return
    # K4 without self-loops, rows sorted
    indptr = np.array([0, 3, 6, 9, 12], index_dtype)
    indices = np.array([1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2], index_dtype)
    mid = lower_ends(indptr, indices, parallel=False)
    ordered_count(indptr, indices, mid, parallel=False)
    ordered_count(indptr, indices, mid, per_vertex=True, parallel=False)
    degree_order(indptr, indices, parallel=False)


@register("tc", fmt="csr", device="cpu", variant="ordered", warmup=_warm_count)
def ordered_count(indptr, indices, mid, *, per_vertex=False, parallel=None, grain=None):
    """Triangles of an undirected graph, each found once at its middle
    vertex.

    indptr[n+1], indices: a symmetric CSR without self-loops; row v's
    neighbours below v come first, sorted, and end at mid[v] (a sorted CSR
    with ``lower_ends``, or ``degree_order``'s output); int32 or int64.
    Returns the total (int), or with ``per_vertex`` an int64 array of each
    vertex's triangles. parallel: None picks serial below ``settings.cpu.serial_below``
    stored entries; else one task per thread, each pulling ``grain`` rows
    at a time from a shared counter (None: ``settings.triangles.grain``).
    Cost O(n + nnz + sum over u of d<(u)^2 / 2), d<(u) = |neighbours
    below u| (the wedges of the lower triangle: sqrt(2m) bounds d< after
    ``degree_order``); workspace n/8 bytes per thread (+ 8n bytes per
    thread with per_vertex).
    """
    indptr, mid, indices = index_args(indptr, mid, indices)
    n = mid.size
    if parallel is None:
        parallel = int(indptr[-1]) + n >= serial_below()
    workers = num_threads() if parallel else 1
    chunks = np.arange(workers + 1, dtype=np.int64)
    next_row = np.zeros(1, np.int64)
    if grain is None:
        from bitgraph.settings import current
        grain = current().triangles.grain
    grain = np.int64(max(1, int(grain)))
    if not per_vertex:
        if n == 0:
            return 0
        parts = parallel_map(_count_total, chunks, next_row, grain, indptr,
                             mid, indices)
        return int(sum(int(p) for p in parts))
    tri = np.zeros(n, np.int64)
    if n == 0:
        return tri
    parts = parallel_map(_count_vertex, chunks, next_row, grain, indptr, mid,
                         indices, tri)
    for p in parts:
        tri += p
    return tri
