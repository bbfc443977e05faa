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

Specialised only on the index dtype of the CSR arrays (int32/int64).
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import arg, index_args
from bitgraph.kernels.cpu.bits import ctz
from bitgraph.kernels.registry import register

__all__ = ["bc_entries", "bc_sigma", "bc_delta", "batch_run"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)


@njit(cache=True, nogil=True)
def bc_entries(vlev, n, k, depth):
    """(ent_ptr, ent_d, ent_mask, ent_v, lvl_ptr, lvl_e) from the
    vertex-major levels ``vlev[n * k]`` (module docstring). O(n k)."""
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
    m = ent_ptr[n]
    ent_d = np.empty(m, np.int32)
    ent_mask = np.zeros(m, np.uint64)
    ent_v = np.empty(m, np.int64)
    slot = np.empty(depth + 1, np.int64)
    seen[:] = -1
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
    return ent_ptr, ent_d, ent_mask, ent_v, lvl_ptr, lvl_e


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


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    # 0 -> 1 -> 2, 0 -> 3 -> 2: two paths; serial and chunked levels, with edges
    from bitgraph.formats.csr import CSR, transpose
    a = CSR(np.array([0, 2, 3, 3, 4], index_dtype), np.array([1, 3, 2, 2], index_dtype),
            None, 4, 4)
    lev = np.array([[0, 1, 2, 1], [-1, -1, 0, -1]], np.int32)
    for work in (0, 1 << 62):
        batch_run(a, transpose(a), lev, edges=True, parallel_work=work)


@register("betweenness", fmt="csr", device="cpu", variant="batch", warmup=_warm)
def batch_run(a, t, lev, *, edges=False, parallel_work=1 << 62):
    """Brandes' sums for one batch: ``lev`` (k x n int32, msbfs's levels
    of the batch's sources, k <= 64), a the graph's CSR (out-edges), t its
    transpose's (in-edges). Returns ``(total, eshare)``: float64[n], each
    vertex's delta summed over the batch (a source's own excluded), and,
    with ``edges``, float64[nnz(a)] each out-edge's summed shares (else
    None). A level whose list's edges reach ``parallel_work`` runs as pool
    chunks. O(n k + sum over the entries of degree x (entries a neighbour
    has + bits in common)); 20 n k bytes.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo, transpose
    >>> a = from_coo(np.array([0, 1, 1, 2]), np.array([1, 0, 2, 1]), None, 3, 3)  # path 0-1-2
    >>> lev = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], np.int32)
    >>> batch_run(a, transpose(a), lev)[0].tolist()
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
    ent_ptr, ent_d, ent_mask, ent_v, lvl_ptr, lvl_e = bc_entries(vlev, n, k, depth)
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
