"""Brandes' path counts and dependencies of a batch of sources, numba,
on the levels of one msbfs batch (``algorithms.betweenness``, method
"fused": the masked products of the GraphBLAS method fused, one pass a
level, the batch's sources as bits).

A batch of k <= 64 sources over n vertices, vertex-major (the k entries of
one vertex are adjacent):

- ``ent_ptr[n + 1]``, ``ent_d[...]`` int32, ``ent_mask[...]`` uint64: the
  levels vertex v sits at (one entry per distinct level, about 2-3 a vertex
  on kron and urand) and, per entry, the bits of the sources that reach v at
  that level;
- ``lvl_ptr[depth + 2]``, ``lvl_e[...]`` int64 (entries of level d:
  ``lvl_e[lvl_ptr[d]:lvl_ptr[d + 1]]``), ``ent_v`` int64 (an entry's vertex);
- ``sigma[n * k]`` float64: shortest-path counts, at ``v * k + s``;
- ``coef[n * k]`` float64: ``(1 + delta) / sigma`` once the level is done;
- ``total[n]`` float64: delta summed over the batch (sources' own left out);
- ``eshare[m]`` float64: per out-edge of the CSR, the batch's path shares
  (``sigma[v, s] * coef[w, s]`` for w one level below v), with ``edges``.

Forward (pull; entry (v, d, mv) of level d): over in-neighbours u, for
each bit s of ``mv & mask(u, d - 1)``: ``sigma[v, s] += sigma[u, s]``.
Backward (level d from the deepest down to 0): over out-neighbours w, for
each bit s of ``mv & mask(w, d + 1)``: ``delta[v, s] += sigma[v, s] *
coef[w, s]``; then ``coef[v, s] = (1 + delta[v, s]) / sigma[v, s]``. An
entry writes only its vertex's values (and its edges' shares), so a level's
entries split across threads. Work: sum over the entries of degree x
(entries of a neighbour + bits in common).

Where the sources share few levels (a grid, a road network: a vertex at
nearly a level of its own for each source, so an entry carries one bit and
touches a neighbour's row of k values for one), ``batch_run`` runs each
source alone instead (``bc_rows`` on source-major rows, then
``bc_row_sums`` over the sources): on a 256 x 256 grid, 64 sources, 2
threads, 0.12-0.16 s against the shared pass's 6.4-6.6.

Specialised only on the index dtype of the CSR arrays (int32/int64).
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import arg, index_args
from bitgraph.kernels.cpu.bits import ctz
from bitgraph.kernels.registry import register

__all__ = ["bc_entry_ptr", "bc_entries", "bc_sigma", "bc_delta", "bc_rows", "bc_row_sums",
           "batch_run", "hub_anchors", "wbc_sources", "weighted_run"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)


@njit(cache=True, nogil=True)
def bc_entry_ptr(vlev, n, k, depth):
    """``ent_ptr[n + 1]``: the running count of the distinct levels each
    vertex sits at, from the vertex-major levels ``vlev[n * k]``. O(n k)."""
    ent_ptr = np.zeros(n + 1, np.int64)
    seen = np.full(depth + 1, -1, np.int64)
    for v in range(n):
        c = 0
        for s in range(k):
            d = vlev[v * k + s]
            if d >= 0 and seen[d] != v:
                seen[d] = v
                c += 1
        ent_ptr[v + 1] = ent_ptr[v] + c
    return ent_ptr


@njit(cache=True, nogil=True)
def bc_entries(vlev, n, k, depth, ent_ptr):
    """(ent_d, ent_mask, ent_v, lvl_ptr, lvl_e) from the vertex-major
    levels ``vlev[n * k]`` and their ``bc_entry_ptr`` (module docstring).
    O(n k)."""
    seen = np.full(depth + 1, -1, np.int64)
    m = ent_ptr[n]
    ent_d = np.empty(m, np.int32)
    ent_mask = np.zeros(m, np.uint64)
    ent_v = np.empty(m, np.int64)
    slot = np.empty(depth + 1, np.int64)
    lvl_ptr = np.zeros(depth + 2, np.int64)
    for v in range(n):
        c = ent_ptr[v]
        for s in range(k):
            d = vlev[v * k + s]
            if d < 0:
                continue
            if seen[d] != v:
                seen[d] = v
                slot[d] = c
                ent_d[c] = d
                ent_v[c] = v
                lvl_ptr[d + 1] += 1
                c += 1
            ent_mask[slot[d]] |= _U1 << np.uint64(s)
    for d in range(depth + 1):
        lvl_ptr[d + 1] += lvl_ptr[d]
    lvl_e = np.empty(m, np.int64)
    fill = lvl_ptr[:depth + 1].copy()
    for j in range(m):
        d = ent_d[j]
        lvl_e[fill[d]] = j
        fill[d] += 1
    return ent_d, ent_mask, ent_v, lvl_ptr, lvl_e


@njit(inline="always")
def _mask(ent_ptr, ent_d, ent_mask, u, d):
    for j in range(ent_ptr[u], ent_ptr[u + 1]):
        if ent_d[j] == d:
            return ent_mask[j]
    return _U0


@njit(cache=True, nogil=True)
def bc_sigma(r0, r1, d, lvl_e, ent_v, ent_ptr, ent_d, ent_mask, tindptr, tindices, sigma, k):
    """Level d's path counts for the entries lvl_e[r0:r1] (pull over in-edges)."""
    for i in range(r0, r1):
        j = lvl_e[i]
        v = ent_v[j]
        mv = ent_mask[j]
        bv = v * k
        for e in range(tindptr[v], tindptr[v + 1]):
            u = tindices[e]
            x = mv & _mask(ent_ptr, ent_d, ent_mask, u, d - 1)
            bu = u * k
            while x:
                s = ctz(x)
                sigma[bv + s] += sigma[bu + s]
                x &= x - _U1


@njit(cache=True, nogil=True)
def bc_delta(r0, r1, d, lvl_e, ent_v, ent_ptr, ent_d, ent_mask, indptr, indices, sigma, coef,
             total, eshare, edges, k):
    """Level d's dependencies for the entries lvl_e[r0:r1] (over out-edges
    into level d + 1, whose coef is final): sets their coef, adds delta to
    total (level 0, the sources, excluded) and, with ``edges``, the shares."""
    acc = np.zeros(k, np.float64)
    for i in range(r0, r1):
        j = lvl_e[i]
        v = ent_v[j]
        mv = ent_mask[j]
        bv = v * k
        for e in range(indptr[v], indptr[v + 1]):
            w = indices[e]
            x = mv & _mask(ent_ptr, ent_d, ent_mask, w, d + 1)
            bw = w * k
            share = 0.0
            while x:
                s = ctz(x)
                c = sigma[bv + s] * coef[bw + s]
                acc[s] += c
                share += c
                x &= x - _U1
            if edges:
                eshare[e] += share
        t = 0.0
        x = mv
        while x:
            s = ctz(x)
            coef[bv + s] = (1.0 + acc[s]) / sigma[bv + s]
            t += acc[s]
            acc[s] = 0.0
            x &= x - _U1
        if d > 0:
            total[v] += t


@njit(cache=True, nogil=True)
def bc_rows(r0, r1, lev, n, indptr, indices, tindptr, tindices, sigma, coef, delta):
    """Brandes' pass of each source alone, rows r0..r1 of the source-major
    n-wide rows (``lev[s * n + v]`` int32 levels, -1: unreached):
    ``sigma`` its path counts, ``coef`` ``(1 + delta) / sigma`` and
    ``delta`` its dependencies (0 at the source; may be ``sigma`` itself:
    a vertex's count is dead once its coef is made). Each reached vertex
    once a phase, in level order (a counting sort of the row), its
    in-edges (forward) or out-edges (backward) tested against the row's
    levels: for each source the sums ``bc_sigma`` / ``bc_delta`` make, in
    the same order."""
    order = np.empty(n, np.int64)
    for s in range(np.int64(r0), np.int64(r1)):
        b = s * n
        depth = -1
        for v in range(n):
            if lev[b + v] > depth:
                depth = lev[b + v]
        if depth < 0:
            continue
        lptr = np.zeros(depth + 2, np.int64)
        for v in range(n):
            if lev[b + v] >= 0:
                lptr[lev[b + v] + 1] += 1
        for d in range(depth + 1):
            lptr[d + 1] += lptr[d]
        fill = lptr[:depth + 1].copy()
        for v in range(n):
            d = lev[b + v]
            if d >= 0:
                order[fill[d]] = v
                fill[d] += 1
        for i in range(lptr[0], lptr[1]):
            sigma[b + order[i]] = 1.0
        for d in range(1, depth + 1):
            for i in range(lptr[d], lptr[d + 1]):
                v = order[i]
                x = 0.0
                for e in range(tindptr[v], tindptr[v + 1]):
                    u = tindices[e]
                    if lev[b + u] == d - 1:
                        x += sigma[b + u]
                sigma[b + v] = x
        for d in range(depth, -1, -1):
            for i in range(lptr[d], lptr[d + 1]):
                v = order[i]
                sv = sigma[b + v]
                acc = 0.0
                for e in range(indptr[v], indptr[v + 1]):
                    w = indices[e]
                    if lev[b + w] == d + 1:
                        acc += sv * coef[b + w]
                coef[b + v] = (1.0 + acc) / sv
                delta[b + v] = acc if d > 0 else 0.0


@njit(cache=True, nogil=True)
def bc_row_sums(r0, r1, lev, n, k, indptr, indices, sigma, coef, delta, total, eshare, edges):
    """Vertices r0..r1 after ``bc_rows``: ``total[v]`` its dependencies
    summed over the k sources in order (a source's own is 0) and, with
    ``edges``, each out-edge's shares summed likewise (``eshare`` zero on
    entry). The sources in the outer loop, each one's rows read in order
    (2 threads, 64 sources, with edge shares: kron-16 0.71-0.77 s against
    1.20-1.36 a vertex at a time; kron-20 25.6 s against 32.1 in blocks of
    8,192 vertices)."""
    lo, hi = np.int64(r0), np.int64(r1)
    for v in range(lo, hi):
        total[v] = 0.0
    for s in range(k):
        b = s * n
        for v in range(lo, hi):
            d = lev[b + v]
            if d > 0:
                total[v] += delta[b + v]
            if edges and d >= 0:
                sv = sigma[b + v]
                for e in range(indptr[v], indptr[v + 1]):
                    w = indices[e]
                    if lev[b + w] == d + 1:
                        eshare[e] += sv * coef[b + w]


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    # 0 -> 1 -> 2, 0 -> 3 -> 2: two paths; serial and chunked levels, with edges
    from bitgraph.formats.csr import CSR, transpose
    a = CSR(np.array([0, 2, 3, 3, 4], index_dtype), np.array([1, 3, 2, 2], index_dtype),
            None, 4, 4)
    lev = np.array([[0, 1, 2, 1], [-1, -1, 0, -1]], np.int32)
    for work in (0, 1 << 62):
        for pairs in (0.0, 1e9):  # the shared pass, and each source alone
            batch_run(a, transpose(a), lev, edges=True, parallel_work=work,
                      pairs_per_entry=pairs)


def _by_source(lev, n, k, indptr, indices, tindptr, tindices, edges, parallel_work):
    """``batch_run``'s sums, each source alone on source-major rows
    (``bc_rows``), then summed a vertex at a time (``bc_row_sums``); the
    sources (then the vertices) split over the pool when the batch's
    edge tests (k x nnz) reach ``parallel_work``."""
    from bitgraph.kernels.cpu import even_chunks, num_threads, parallel_for

    rows = arg(lev, np.int32)
    sigma = np.empty(n * k, np.float64)  # written where reached, read only there
    coef = np.empty(n * k, np.float64)
    delta = np.empty(n * k, np.float64) if edges else sigma
    total = np.zeros(n, np.float64)
    eshare = np.zeros(indices.size if edges else 1, np.float64)
    pool = num_threads() > 1 and k * max(int(indices.size), 1) >= parallel_work
    for kernel, m, args in (
            (bc_rows, k, (rows, n, indptr, indices, tindptr, tindices, sigma, coef, delta)),
            (bc_row_sums, n, (rows, n, k, indptr, indices, sigma, coef, delta, total, eshare,
                              edges))):
        if pool and m > 1:
            parallel_for(kernel, even_chunks(m), *args)
        else:
            kernel(np.uint64(0), np.uint64(m), *args)
    return total, (eshare if edges else None)


@register("betweenness", fmt="csr", device="cpu", variant="batch", warmup=_warm)
def batch_run(a, t, lev, *, edges=False, parallel_work=1 << 62, pairs_per_entry=0.0):
    """Brandes' sums for one batch: ``lev`` (k x n int32, msbfs's levels
    of the batch's sources, k <= 64), a the graph's CSR (out-edges), t its
    transpose's (in-edges). Returns ``(total, eshare)``: float64[n], each
    vertex's delta summed over the batch (a source's own excluded), and,
    with ``edges``, float64[nnz(a)] each out-edge's summed shares (else
    None). A level whose list's edges reach ``parallel_work`` runs as pool
    chunks. O(n k + sum over the entries of degree x (entries a neighbour
    has + bits in common)); 20 n k bytes. A batch whose reached
    (source, vertex) pairs of level >= 1 are fewer than ``pairs_per_entry``
    per (vertex, level) entry (a vertex at nearly a level of its own for
    every source: meshes, roads) runs each source alone instead
    (``_by_source``: O(n k + k x nnz), each source's rows read in level
    order; 20 n k bytes, 28 with ``edges``); 0: never. The values agree to
    rounding (the sums over sources are added in another order).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo, transpose
    >>> a = from_coo(np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1]), None, 3, 3)  # path 0-1-2
    >>> lev = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], np.int32)
    >>> batch_run(a, transpose(a), lev)[0].tolist()
    [0.0, 2.0, 0.0]
    >>> batch_run(a, transpose(a), lev, pairs_per_entry=65.0)[0].tolist()  # by source
    [0.0, 2.0, 0.0]
    """
    from bitgraph.kernels.cpu import even_chunks, num_threads, parallel_for

    n = a.nrows
    k = lev.shape[0]
    if not 0 < k <= 64 or lev.shape[1] != n:
        raise ValueError(f"betweenness batch_run: levels must be (1..64) x {n}, got {lev.shape}")
    indptr, indices, tindptr, tindices = index_args(a.indptr, a.indices, t.indptr, t.indices)
    vlev = arg(np.ascontiguousarray(lev.T), np.int32)
    depth = int(lev.max())
    ent_ptr = bc_entry_ptr(vlev, n, k, depth)
    if pairs_per_entry > 0 and np.count_nonzero(vlev >= 1) < pairs_per_entry * int(ent_ptr[n]):
        return _by_source(lev, n, k, indptr, indices, tindptr, tindices, edges, parallel_work)
    ent_d, ent_mask, ent_v, lvl_ptr, lvl_e = bc_entries(vlev, n, k, depth, ent_ptr)
    sigma = np.zeros(n * k, np.float64)
    sigma[vlev == 0] = 1.0  # each source: one path to itself
    coef = np.empty(n * k, np.float64)
    total = np.zeros(n, np.float64)
    eshare = np.zeros(indices.size if edges else 1, np.float64)
    threads = num_threads()
    deg = np.diff(indptr)
    ents = (ent_v, ent_ptr, ent_d, ent_mask)

    def run(kernel, d, *args):
        r0, r1 = int(lvl_ptr[d]), int(lvl_ptr[d + 1])
        if threads > 1 and r1 - r0 > 1 and \
                int(deg[ent_v[lvl_e[r0:r1]]].sum()) >= parallel_work:
            parallel_for(kernel, r0 + even_chunks(r1 - r0), d, lvl_e, *ents, *args)
        else:
            kernel(np.uint64(r0), np.uint64(r1), d, lvl_e, *ents, *args)

    for d in range(1, depth + 1):
        run(bc_sigma, d, tindptr, tindices, sigma, k)
    for d in range(depth, -1, -1):
        run(bc_delta, d, indptr, indices, sigma, coef, total, eshare, edges, k)
    return total, (eshare if edges else None)


@njit(cache=True, nogil=True)
def _anchor_rows(indptr, indices, out):
    # out[v] = v's out-neighbour of the highest out-degree (ties: the smaller
    # id); v itself when it has none
    for v in range(out.size):
        best = v
        top = -1
        for p in range(indptr[v], indptr[v + 1]):
            u = indices[p]
            du = indptr[u + 1] - indptr[u]
            if du > top or (du == top and u < best):
                top = du
                best = u
        out[v] = best


def _warm_anchors(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR
    hub_anchors(CSR(np.array([0, 1, 2], index_dtype), np.array([1, 0], index_dtype), None, 2, 2))


@register("betweenness", fmt="csr", device="cpu", variant="anchors", warmup=_warm_anchors)
def hub_anchors(a):
    """int64[n]: each vertex's out-neighbour of the highest out-degree in
    the CSR ``a`` (host arrays; ties: the smaller id), the vertex itself
    where it has no out-neighbour. Sources sorted by it share a hub one hop
    away, so a batch of them sits at few distinct levels of each vertex
    (``algorithms.betweenness``'s grouping). O(n + nnz)

    >>> from bitgraph.formats.csr import from_coo
    >>> a = from_coo(np.array([0, 0, 1, 2, 2]), np.array([1, 2, 2, 0, 1]), None, 4, 4)
    >>> hub_anchors(a).tolist()  # out-degrees 2, 1, 2, 0
    [2, 2, 0, 3]
    """
    indptr, indices = index_args(a.indptr, a.indices)
    out = np.empty(a.nrows, np.int64)
    _anchor_rows(indptr, indices, out)
    return out


# ---------------------------------------------------------------------------
# weighted (Dijkstra) betweenness: one source at a time per pool chunk
# ---------------------------------------------------------------------------

_INF = np.inf


@njit(inline="always")
def _heap_push(hkey, hval, size, key, val):
    i = size
    while i > 0:
        p = (i - 1) >> 1
        if hkey[p] <= key:
            break
        hkey[i] = hkey[p]
        hval[i] = hval[p]
        i = p
    hkey[i] = key
    hval[i] = val
    return size + 1


@njit(inline="always")
def _heap_pop_into(hkey, hval, size):
    # removes the root (the caller read it); returns the new size
    size -= 1
    key = hkey[size]
    val = hval[size]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and hkey[c + 1] < hkey[c]:
            c += 1
        if hkey[c] >= key:
            break
        hkey[i] = hkey[c]
        hval[i] = hval[c]
        i = c
    if size > 0:
        hkey[i] = key
        hval[i] = val
    return size


@njit(cache=True, nogil=True)
def wbc_sources(r0, r1, src, indptr, indices, w, tindptr, tindices, tw, edges, n):
    """Brandes over Dijkstra for the sources ``src[r0:r1]``, one after
    another, in this chunk's own buffers; returns ``(total[n], eshare[m or
    1], hits[n], nreached[r1 - r0], err[3])``.

    Arrays: ``indptr[n + 1]``, ``indices[m]``, ``w[m]`` float64 (the out-edges
    and their lengths, >= 0 and finite), ``tindptr``/``tindices``/``tw`` the
    same of A' (read only to name a zero-length cycle: any arrays of the
    right types otherwise); scratch ``dist``,
    ``sigma``, ``coef``, ``order``, ``indeg``, ``done`` (n each), the heap's
    ``hkey``/``hval`` (m + 1: lazy deletion, one entry per improvement).
    Per source: Dijkstra (binary heap) for the distances; the tight edges
    u -> v (u != v, ``dist[u] + w == dist[v]``, float64 as NetworkX sums)
    form the shortest-path DAG; Kahn's order on it counts the paths
    (``sigma``) and the reverse order accumulates ``coef[v] = (1 +
    delta[v]) / sigma[v]`` with ``delta[u] += sigma[u] * coef[v]`` per tight
    edge. A tight cycle (zero-length edges) stops the chunk: ``err = (1,
    source, a vertex on the cycle)``. O(m log m) a source; 8 (5n + 2m) bytes
    a chunk (+ 8m with ``edges``)."""
    m = indices.size
    k = r1 - r0
    total = np.zeros(n, np.float64)
    eshare = np.zeros(m if edges else 1, np.float64)
    hits = np.zeros(n, np.float64)
    nreached = np.zeros(k, np.int64)
    err = np.zeros(3, np.int64)
    dist = np.full(n, _INF, np.float64)
    sigma = np.zeros(n, np.float64)
    coef = np.zeros(n, np.float64)
    order = np.empty(n, np.int64)
    reached = np.empty(n, np.int64)
    indeg = np.zeros(n, np.int64)
    done = np.zeros(n, np.bool_)
    hkey = np.empty(m + 1, np.float64)
    hval = np.empty(m + 1, np.int64)
    for i in range(r0, r1):
        s = np.uint64(src[i])
        # Dijkstra: reached[] in settling order
        dist[s] = 0.0
        size = _heap_push(hkey, hval, 0, 0.0, s)
        nr = 0
        while size > 0:
            d = hkey[0]
            v = np.uint64(hval[0])
            size = _heap_pop_into(hkey, hval, size)
            if done[v]:
                continue
            done[v] = True
            reached[nr] = v
            nr += 1
            for e in range(indptr[v], indptr[v + 1]):
                u = np.uint64(indices[e])
                nd = d + w[e]
                if nd < dist[u]:
                    dist[u] = nd
                    size = _heap_push(hkey, hval, size, nd, u)
        nreached[i - r0] = nr
        # tight in-degrees (self-loops never lie on a shortest path); a
        # tight edge into the source closes a zero-length cycle through it
        for j in range(nr):
            v = np.uint64(reached[j])
            dv = dist[v]
            for e in range(indptr[v], indptr[v + 1]):
                u = np.uint64(indices[e])
                if u != v and dv + w[e] == dist[u]:
                    if u == s:
                        err[0] = 1
                        err[1] = s
                        err[2] = s
                        return total, eshare, hits, nreached, err
                    indeg[u] += 1
        # Kahn's order on the tight DAG, counting paths
        sigma[s] = 1.0
        order[0] = s
        head = 0
        tail = 1
        while head < tail:
            v = np.uint64(order[head])
            head += 1
            dv = dist[v]
            sv = sigma[v]
            for e in range(indptr[v], indptr[v + 1]):
                u = np.uint64(indices[e])
                if u != v and dv + w[e] == dist[u]:
                    sigma[u] += sv
                    indeg[u] -= 1
                    if indeg[u] == 0:
                        order[tail] = u
                        tail += 1
        if tail < nr:
            # a vertex left has a tight in-edge from another one left: n
            # such steps back land on a cycle
            x = np.uint64(0)
            for j in range(nr):
                if indeg[reached[j]] > 0:
                    x = np.uint64(reached[j])
                    break
            for _ in range(n):
                dx = dist[x]
                for e in range(tindptr[x], tindptr[x + 1]):
                    u = np.uint64(tindices[e])
                    if u != x and indeg[u] > 0 and dist[u] + tw[e] == dx:
                        x = u
                        break
            err[0] = 1
            err[1] = s
            err[2] = x
            return total, eshare, hits, nreached, err
        # dependencies in reverse order: coef[v] = (1 + delta[v]) / sigma[v]
        for j in range(tail - 1, -1, -1):
            v = np.uint64(order[j])
            dv = dist[v]
            sv = sigma[v]
            acc = 0.0
            for e in range(indptr[v], indptr[v + 1]):
                u = np.uint64(indices[e])
                if u != v and dv + w[e] == dist[u]:
                    c = sv * coef[u]
                    acc += c
                    if edges:
                        eshare[e] += c
            coef[v] = (1.0 + acc) / sv
            if v != s:
                total[v] += acc
        for j in range(nr):
            v = np.uint64(reached[j])
            hits[v] += 1.0
            dist[v] = _INF
            sigma[v] = 0.0
            done[v] = False
    return total, eshare, hits, nreached, err


def _warm_weighted(dtype, index_dtype):
    if dtype != np.bool_:
        return
    # 0 -> 1 -> 2 (1 + 1), 0 -> 2 (2): two paths; a zero-length cycle 3 <-> 4
    from bitgraph.formats.csr import CSR
    a = CSR(np.array([0, 2, 3, 3, 4, 5], index_dtype), np.array([1, 2, 2, 4, 3], index_dtype),
            np.array([1.0, 2.0, 1.0, 0.0, 0.0]), 5, 5)
    weighted_run(a, np.array([0, 1, 2], np.int64), edges=True, parallel_work=0)
    weighted_run(a, np.array([3], np.int64), edges=False, parallel_work=1 << 62)


@register("betweenness", fmt="csr", device="cpu", variant="weighted", warmup=_warm_weighted)
def weighted_run(a, src, *, edges=False, parallel_work=1 << 62):
    """Brandes' sums over Dijkstra paths for the sources ``src`` (int64):
    a the graph's CSR with float64 lengths (>= 0, finite). Returns
    ``(total, eshare, hits, nreached, err)``: float64[n] each vertex's
    delta summed over the sources (a source's own excluded); with ``edges``
    float64[nnz] each out-edge's summed shares (else None); float64[n] how
    many sources reach each vertex (itself included); int64[len(src)] how
    many vertices each source reaches; ``err`` None, or (source, vertex)
    where the shortest paths from that source (the first such in ``src``)
    run around a cycle of zero-length edges through that vertex (a's
    transpose is built then, to walk back onto the cycle). Sources run on
    the thread pool in chunks (each its own buffers, summed after) when
    ``len(src) * nnz`` reaches ``parallel_work``. See :func:`wbc_sources`
    for the cost.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> a = from_coo(np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([1.0, 1.0, 2.0]), 3, 3)
    >>> weighted_run(a, np.array([0]), edges=True)[1].tolist()  # two paths 0 ~> 2
    [1.5, 0.5, 0.5]
    """
    from bitgraph.formats.csr import transpose
    from bitgraph.kernels.cpu import even_chunks, num_threads, parallel_map

    n = a.nrows
    indptr, indices = index_args(a.indptr, a.indices)
    w = arg(a.values, np.float64)
    src = arg(src, np.int64)
    k = src.size
    threads = num_threads()
    if threads > 1 and k > 1 and k * max(indices.size, 1) >= parallel_work:
        chunks = even_chunks(k, min(k, 2 * threads))
    else:
        chunks = np.array([0, k], np.int64)
    # the transpose is read only on a cycle: a's own arrays stand in for it
    parts = parallel_map(wbc_sources, chunks, src, indptr, indices, w, indptr, indices, w,
                         edges, n)
    for part in parts:
        if part[4][0]:
            t = transpose(a)
            tindptr, tindices = index_args(t.indptr, t.indices)
            one = np.array([part[4][1]], np.int64)
            err = wbc_sources(np.uint64(0), np.uint64(1), one, indptr, indices, w, tindptr,
                              tindices, arg(t.values, np.float64), False, n)[4]
            return None, None, None, None, (int(err[1]), int(err[2]))
    total = parts[0][0]
    eshare = parts[0][1]
    hits = parts[0][2]
    for part in parts[1:]:
        total += part[0]
        eshare += part[1]
        hits += part[2]
    nreached = np.concatenate([part[3] for part in parts])
    return total, (eshare if edges else None), hits, nreached, None
