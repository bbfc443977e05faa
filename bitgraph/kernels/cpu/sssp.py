"""Delta-stepping single-source shortest paths (Meyer & Sanders), numba.

A label-correcting search that settles vertices bucket by bucket: bucket b
holds the queued vertices whose tentative distance d has
``floor(d * inv_delta) == b``. The lowest non-empty bucket is emptied into
a frontier whose vertices relax all their out-edges; a vertex improved into
the same bucket is queued again (another round of that bucket), one
improved into a later bucket waits there. Any bucket function monotone in
d gives the exact distances (every improvement is relaxed again); the width
trades rounds against re-relaxations: with integer weights and delta = 1
each vertex is relaxed once (Dial's algorithm).

Light and heavy edges are not split (as in gapbs): a vertex relaxes all its
edges each time it leaves a bucket improved, which with the default delta
(``bitgraph.algorithms.shortest_paths``) happens ~1.0-1.1 times per vertex; a split
would read every row twice.

The state lives in arrays the launcher owns, so one search alternates
between two kernels without losing it:

- ``_drive`` (serial) absorbs the improvements of a parallel round, then
  empties buckets and relaxes their frontiers itself while they are small,
  and returns a frontier whose out-edges reach ``par_edges``;
- ``_relax_chunk`` (thread pool, chunks of that frontier of equal edge
  work) relaxes with plain loads and stores and records every improvement
  (v, d). Two threads may race on dist[v] and the larger value may win in
  memory; ``_drive`` then sets dist[v] to the least recorded value and
  queues v: every value written is a recorded path length, so the result
  is exact with no atomics.

Buckets live in a circular window of ``nbins`` (a power of two, at least
``floor(max_weight * inv_delta) + 3``): an improvement never lands past it,
since d_new <= d_cur + max_weight. Each bucket is a linked list of chunks
of ``_CHUNK`` entries (``data``: vertex, ``ddata``: its distance when
queued; ``nxt``; free chunks recycled), so queueing writes sequentially;
the pool grows between kernel calls, before a frontier that might need
more room is relaxed. Every improvement queues an entry; only the entry
holding the vertex's current distance is valid (improvements are strict,
so there is one; two parallel chunks that improve v to the same value
queue it twice, which only costs a second relaxation), the others are
skipped when their bucket is emptied.
That check reads dist[v], which the relaxation reads anyway (a separate
"queued in bucket" array, tried first, measured no faster and costs n
int32 more).

Tried and dropped: gapbs's structure, T threads of their own for the
whole search (atomic min on dist, per-thread buckets, spin barriers, "bin
fusion" of small buckets): on 2 cores within the noise of this on kron-20
(255-365 ms against 290-330 ms a source) and 1.7-2.8x slower on a
1024x1024 grid (two barriers per bucket, thousands of buckets).

Distances are computed in D (int32/int64/uint64/float32/float64), weights
in the same dtype (``KERNEL_DTYPES``: each pair compiles two kernels, ~2.5 s). Integer
sums saturate at ``saturated`` (D's maximum - 1) instead of wrapping.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import arg, check_length, index_args, num_threads, parallel_map
from bitgraph.kernels.registry import register

__all__ = ["delta_stepping", "bucket_count", "KERNEL_DTYPES"]

# (weights dtype, distances dtype) pairs the kernels are compiled for
KERNEL_DTYPES = (
    (np.dtype(np.int32), np.dtype(np.int32)),
    (np.dtype(np.int64), np.dtype(np.int64)),
    (np.dtype(np.uint64), np.dtype(np.uint64)),
    (np.dtype(np.float32), np.dtype(np.float32)),
    (np.dtype(np.float64), np.dtype(np.float64)),
)

# vertex ids per chunk of a bucket's list (the lists' layout)
_CHUNK = 64

# ctl[] slots: the driver's scalars, kept between calls
_FREE, _NFREE, _USED, _NONEMPTY, _CUR, _RELAXED, _RESUME, _WORK = range(8)
_NCTL = 8

_U1 = np.uint64(1)


def bucket_count(max_weight, inv_delta):
    """Buckets of the circular window: a power of two >= floor(max_weight *
    inv_delta) + 3 (one bucket of margin for the rounding of d * inv_delta)."""
    need = int(np.floor(float(max_weight) * float(inv_delta))) + 3
    return 1 << max(1, (need - 1).bit_length())


@njit(inline="always")
def _push(v, d, slot, head, tail, fill, data, ddata, nxt, ctl):
    # append (v, d) to bucket ``slot``. The caller made room for every push of
    # the frontier beforehand (``_room``), so no array is reallocated here:
    # a reallocation in the relax loop made numba reference-count the
    # arrays on every improvement (measured 2x slower overall).
    if tail[slot] < 0 or fill[slot] == _CHUNK:
        e = ctl[_FREE]
        if e >= 0:
            ctl[_FREE] = nxt[e]
            ctl[_NFREE] -= 1
        else:
            e = ctl[_USED]
            ctl[_USED] = e + 1
        nxt[e] = -1
        if tail[slot] < 0:
            head[slot] = e
            ctl[_NONEMPTY] += 1
        else:
            nxt[tail[slot]] = e
        tail[slot] = e
        fill[slot] = 0
    pos = np.uint64(tail[slot]) * np.uint64(_CHUNK) + np.uint64(fill[slot])
    data[pos] = v
    ddata[pos] = d
    fill[slot] += 1


def _room(work, nbins):
    """Chunks ``work`` pushes may take: each bucket opens at most one new
    chunk besides the full ones."""
    return work // _CHUNK + nbins + 1


@njit(inline="always")
def _bucket(d, inv_delta):
    return np.uint64(np.int64(np.float64(d) * inv_delta))


@njit(cache=True, nogil=True)
def _drive(indptr, indices, weights, dist, head, tail, fill, data, ddata,
           nxt, ctl, frontier, fd, rec_v, rec_d, inv_delta, saturated, par_edges):
    # indptr[n+1], indices[m], weights[m] W; dist[n] D; head/tail/fill
    # [nbins] int64; data[chunks * _CHUNK] (vertex), ddata[same] D (its
    # distance when queued), nxt[chunks]; ctl[_NCTL] int64; frontier[n],
    # fd[n] D; rec_v[r], rec_d[r]: improvements recorded by the last
    # parallel round (the caller made room for them).
    # Returns nf > 0: frontier[:nf] to relax on the pool; -1: make room
    # for _room(ctl[_WORK]) more chunks and call again (frontier[:ctl[
    # _RESUME]] is kept to relax then); 0: done.
    # O(work of the serial frontiers + records + buckets scanned)
    nbins = head.size
    mask = np.uint64(nbins - 1)
    # absorb the parallel round: least recorded value, then queue winners
    for r in range(rec_v.size):
        v = np.uint64(rec_v[r])
        if rec_d[r] < dist[v]:
            dist[v] = rec_d[r]
    for r in range(rec_v.size):
        v = np.uint64(rec_v[r])
        d = rec_d[r]
        if d == dist[v]:
            _push(v, d, _bucket(d, inv_delta) & mask, head, tail, fill, data, ddata, nxt, ctl)
    while ctl[_NONEMPTY] > 0 or ctl[_RESUME] > 0:
        if ctl[_RESUME] > 0:  # a frontier collected before the pool grew
            nf = ctl[_RESUME]
            ctl[_RESUME] = 0
        else:
            s = np.uint64(ctl[_CUR]) & mask
            if head[s] < 0:
                ctl[_CUR] += 1
                continue
            # detach bucket cur; its valid entries (queued with the vertex's
            # current distance: the last improvement) form the frontier
            c = head[s]
            last, last_fill = tail[s], fill[s]
            head[s] = -1
            tail[s] = -1
            ctl[_NONEMPTY] -= 1
            nf = 0
            work = 0
            while c >= 0:
                cnt = last_fill if c == last else _CHUNK
                base = np.uint64(c) * np.uint64(_CHUNK)
                for i in range(np.uint64(cnt)):
                    u = np.uint64(data[base + i])
                    du = ddata[base + i]
                    if dist[u] == du:
                        frontier[nf] = u
                        fd[nf] = du
                        nf += 1
                        work += indptr[u + _U1] - indptr[u]
                after = nxt[c]
                nxt[c] = ctl[_FREE]
                ctl[_FREE] = c
                ctl[_NFREE] += 1
                c = after
            if nf == 0:
                continue
            ctl[_RELAXED] += nf
            if work >= par_edges:
                return nf
            ctl[_WORK] = work
            if nxt.size - ctl[_USED] + ctl[_NFREE] < work // _CHUNK + nbins + 1:  # _room
                ctl[_RESUME] = nf
                return -1
        for f in range(nf):
            u = np.uint64(frontier[f])
            du = fd[f]
            if dist[u] != du:  # improved again meanwhile: queued anew
                continue
            for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + _U1])):
                v = np.uint64(indices[p])
                w = weights[p]
                # saturate instead of wrapping (tested before adding: numba's
                # signed add may assume no overflow)
                nd = saturated if w > saturated - du else du + w
                if nd < dist[v]:
                    dist[v] = nd
                    _push(v, nd, _bucket(nd, inv_delta) & mask, head, tail, fill, data,
                          ddata, nxt, ctl)
    return 0


@njit(cache=True, nogil=True)
def _relax_chunk(f0, f1, frontier, indptr, indices, weights, dist, saturated):
    # frontier[f0:f1] relaxes its out-edges; returns the improvements
    # (rec_v int64, rec_d D) it made, at most one per edge (the arrays are
    # sized so, never grown: see _push). Races with other chunks on dist
    # are repaired by _drive. O(out-edges of frontier[f0:f1])
    edges = 0
    for i in range(f0, f1):
        u = np.uint64(frontier[i])
        edges += indptr[u + _U1] - indptr[u]
    rec_v = np.empty(edges, np.int64)
    rec_d = np.empty(edges, dist.dtype)
    k = 0
    for i in range(f0, f1):
        u = np.uint64(frontier[i])
        du = dist[u]
        for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + _U1])):
            v = np.uint64(indices[p])
            w = weights[p]
            nd = saturated if w > saturated - du else du + w
            if nd < dist[v]:
                dist[v] = nd
                rec_v[k] = np.int64(v)
                rec_d[k] = nd
                k += 1
    return rec_v[:k], rec_d[:k]


def _frontier_chunks(indptr, frontier, nchunks):
    # chunks[m+1] int64 over frontier positions, of about equal out-edges
    deg = (indptr[frontier + 1] - indptr[frontier]).astype(np.int64) + 1
    cum = np.cumsum(deg)
    cuts = np.searchsorted(cum, np.arange(1, nchunks) * (cum[-1] / nchunks))
    return np.unique(np.concatenate(([0], cuts, [frontier.size]))).astype(np.int64)


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR

    for w, d in KERNEL_DTYPES:
        A = CSR(np.array([0, 2, 3, 3], index_dtype), np.array([1, 2, 2], index_dtype),
                np.array([1, 5, 2], w), 3, 3)
        delta_stepping(A, 0, 1.0, d)
        delta_stepping(A, 0, 1.0, d, parallel=True, par_edges=0)


@register("sssp", fmt="csr", device="cpu", variant="delta", warmup=_warm)
def delta_stepping(A, source, delta, dist_dtype, *, parallel=None,
                   par_edges=None, initial_chunks=None, cfg=None):
    """Shortest-path distances from ``source`` by delta-stepping.

    A: CSR (n x n) with values W >= 0 (no NaN; the caller checks), W one of
    ``KERNEL_DTYPES`` for ``dist_dtype`` D. delta > 0: the bucket width;
    ``max(weights) / delta`` must stay below ``cfg.max_bins`` (cfg: the
    ``SSSP`` settings; None: those in force). parallel: None
    runs frontiers with at least ``par_edges`` (default ``cfg.par_edges``)
    out-edges on the thread pool when there is more than one thread, True
    even with one thread; False never. initial_chunks: the bucket lists'
    first pool size in chunks (tests make it 1 to grow it often).
    Returns (dist[n] D, relaxed): unreached vertices hold D's infinity (inf
    or the integer maximum); an integer sum past the maximum saturates at
    maximum - 1; ``relaxed`` counts vertex relaxations (the reached
    vertices for a work-efficient run). O(m * relaxations per vertex + n +
    max distance / delta).
    """
    if cfg is None:
        from bitgraph.settings import current
        cfg = current().sssp
    D = np.dtype(dist_dtype)
    W = np.dtype(A.values.dtype)
    if (W, D) not in KERNEL_DTYPES:
        raise TypeError(f"delta_stepping: no kernel for weights {W} and distances {D};"
                        f" pairs: {[(str(a), str(b)) for a, b in KERNEL_DTYPES]}")
    n = A.nrows
    if not 0 <= source < n:
        raise ValueError(f"delta_stepping: source {source} outside [0, {n})")
    if not delta > 0:
        raise ValueError(f"delta_stepping: delta must be > 0, got {delta}")
    indptr, indices = index_args(A.indptr, A.indices)
    weights = arg(A.values, W)
    check_length("delta_stepping", "indices", indices, int(indptr[-1]))
    check_length("delta_stepping", "weights", weights, int(indptr[-1]))
    inv_delta = np.float64(1.0 / float(delta))
    max_w = weights.max() if weights.size else 0
    if not np.isfinite(max_w):  # an edge of length inf improves nothing
        finite = weights[np.isfinite(weights)]
        max_w = finite.max() if finite.size else 0
    nbins = bucket_count(max_w, inv_delta)
    if nbins > cfg.max_bins:
        raise ValueError(f"delta_stepping: delta {delta} is too small for the largest"
                         f" weight {max_w} ({nbins} buckets > {cfg.max_bins})")
    infinity = D.type(np.inf) if D.kind == "f" else D.type(np.iinfo(D).max)
    saturated = infinity if D.kind == "f" else D.type(infinity - 1)
    threads = num_threads()
    if parallel is None:
        parallel = threads > 1
    if par_edges is None:
        par_edges = cfg.par_edges
    if not parallel:
        par_edges = np.iinfo(np.int64).max

    dist = np.full(n, infinity, D)
    head = np.full(nbins, -1, np.int64)
    tail = np.full(nbins, -1, np.int64)
    fill = np.zeros(nbins, np.int64)
    chunks = _room(n, nbins) if initial_chunks is None else max(1, int(initial_chunks))
    data = np.empty(chunks * _CHUNK, indices.dtype)
    ddata = np.empty(chunks * _CHUNK, D)
    nxt = np.empty(chunks, np.int64)
    frontier = np.empty(n, indices.dtype)
    fd = np.empty(n, D)
    ctl = np.zeros(_NCTL, np.int64)
    ctl[_FREE] = -1
    # the source, queued in bucket 0 at distance 0
    dist[source] = 0
    data[0] = source
    ddata[0] = 0
    nxt[0] = -1
    head[0] = tail[0] = 0
    fill[0] = 1
    ctl[_USED] = 1
    ctl[_NONEMPTY] = 1
    rec_v, rec_d = np.zeros(0, np.int64), np.zeros(0, D)
    par_edges = np.int64(par_edges)
    need = 0
    while True:
        if need:  # grow the chunk pool (never inside the kernels' loops)
            grow = max(need, nxt.size)
            bigger = np.empty((nxt.size + grow) * _CHUNK, data.dtype)
            bigger[:data.size] = data
            bigger_d = np.empty((nxt.size + grow) * _CHUNK, D)
            bigger_d[:ddata.size] = ddata
            bigger_n = np.empty(nxt.size + grow, np.int64)
            bigger_n[:nxt.size] = nxt
            data, ddata, nxt = bigger, bigger_d, bigger_n
        nf = _drive(indptr, indices, weights, dist, head, tail, fill, data, ddata,
                    nxt, ctl, frontier, fd, rec_v, rec_d, inv_delta, saturated,
                    par_edges)
        rec_v, rec_d = rec_v[:0], rec_d[:0]
        need = 0
        if nf == 0:
            break
        if nf < 0:
            need = _room(int(ctl[_WORK]), nbins)
            continue
        f = frontier[:nf]
        parts = parallel_map(_relax_chunk, _frontier_chunks(indptr, f, max(2, threads * 2)),
                             f, indptr, indices, weights, dist, saturated)
        rec_v = np.concatenate([p[0] for p in parts])
        rec_d = np.concatenate([p[1] for p in parts])
        need = _room(rec_v.size, nbins)
        if nxt.size - ctl[_USED] + ctl[_NFREE] >= need:
            need = 0
    return dist, int(ctl[_RELAXED])
