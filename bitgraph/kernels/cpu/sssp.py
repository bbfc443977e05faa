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

The relax loops read each edge's target and weight side by side from one
buffer (``edge_records``: a record of twice the wider item; the caller
keeps it on the Matrix): one stream where the CSR's indices and values are
two (one thread, weights 1-255: kron-18 40 -> 36 ms, grid-512 14.7 -> 12.2).
Queueing an improved vertex is written out in each relax loop, only a new
chunk is a call (``_open``): numba's inlining of a helper that takes arrays
reference-counts them on every call (grid-512, one thread: 23 -> 17 ms
without).

One thread runs ``_serial`` (plain stores). Several run ``_parallel``
(one compiled loop for every thread; thread and row indices unsigned in
its hot loops): thread 0, the driver,
empties buckets and relaxes their frontiers itself while they are small;
a frontier whose out-edges reach ``par_edges`` is a parallel round, in
which the other threads (helpers, started on the pool at the search's
first parallel round, then spinning on a round counter between rounds,
with ``pause``, yielding the CPU after ``spin_pauses`` checks: on a busy machine
a spinning thread may hold the CPU its peer needs) and the driver claim
blocks of ``par_block`` frontier
vertices and relax them, lowering dist by compare-and-swap (a
strict improvement wins once; its winner queues it in its own lists, so
no vertex is recorded twice and nothing is merged afterwards). The driver
waits for every helper to arrive, then goes on. A helper the pool does
not start (a busy pool) is not waited for: the driver closes the joining
after a bounded wait and runs with those that came.

Buckets live in a circular window of ``nbins`` (a power of two, at least
``floor(max_weight * inv_delta) + 3``): an improvement never lands past it,
since d_new <= d_cur + max_weight. Each thread has its own row of buckets;
each bucket is a linked list of chunks of ``_CHUNK`` entries (``data``:
vertex, ``ddata``: its distance when queued; ``nxt``), so queueing writes
sequentially. Emptied chunks go back to the free list of the thread that
filled them; a thread with none takes the next chunk of the shared pool
(an atomic add). The launcher sizes the pool once from m (never reached
in practice); should a frontier need more room, the kernel returns, the
pool grows and the search goes on where it stopped (the state lives in
arrays the launcher owns). Every improvement queues an entry;
only the entry holding the vertex's current distance is valid
(improvements are strict, so there is one), the others are skipped when
their bucket is emptied. That check reads dist[v], which the relaxation
reads anyway (a separate "queued in bucket" array measured no faster and
costs n int32 more).

Tried and dropped before this design: parallel rounds on the pool that
recorded every improvement (v, d) with plain stores for the driver to
merge (serial merge, a Python round trip and allocations per round:
2.2x slower than gapbs on kron-20 at 2 threads). Tried and dropped
after: parallel rounds straight over the bucket's detached chunks (no
serial frontier pass, stale entries skipped by the threads): 5-15%
slower on kron-20, urand-20 and grid-1024 (the frontier pass keeps the
prefetch distance across chunks and drops stale entries once).
Tried and dropped later: gapbs's rounds (every thread in every round,
each emptying its own buckets into a shared frontier, two barriers a
round, bucket fusion: a thread goes on with its own entries of the
current bucket while they are few), with unsigned indices and yielding
waits: slower at 2 threads than this design on every graph (weights
1-255, best delta each, min of 8: kron-18 51 vs 44 ms, grid-512 28-33 vs
25; its rounds on grid cost more than the relaxations they share).
The relax loops prefetch ahead (``_ahead``): urand-20 serial 530 -> 355
ms; prefetching all 16 first neighbours' distances was slower (447);
without it kron-18, urand-18 and grid-512 (one thread) are 15-25% slower;
prefetching the distances of a bucket's entries while it is emptied
measured no faster.

Distances are computed in D (int32/int64/uint64/float32/float64), weights
in the same dtype (``KERNEL_DTYPES``: each pair compiles both kernels). Integer
sums saturate at ``saturated`` (D's maximum - 1) instead of wrapping.
"""

import numpy as np
from numba import njit
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from bitgraph.kernels.cpu import _submit, arg, check_length, index_args, num_threads
from bitgraph.kernels.cpu.bits import (arrive, cas, fetch_add, load_acquire, pause, prefetch,
                                       store_release, yield_cpu)
from bitgraph.kernels.registry import register

__all__ = ["delta_stepping", "bucket_count", "edge_records", "KERNEL_DTYPES"]

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

# ctl[] slots: the search's shared scalars, kept between calls: chunks taken
# from the pool, the current bucket, vertices relaxed, the size and
# out-edges of a frontier kept while the kernel returned, helpers started
_USED, _CUR, _RELAXED, _RESUME, _WORK, _HELPED = range(6)
_NCTL = 8
# tctl[r * _NT + ...]: row r's lists (a cache line per row)
_FREE, _NFREE, _NONEMPTY = range(3)
_NT = 16
# sync[] slots (one array per launch, a cache line each): helpers joined (+
# _CLOSED once the driver stops waiting for more), the round number (-1:
# leave), the next frontier position to claim, helpers done with the
# round, its size
_JOINED, _GEN, _NEXT, _ARRIVED, _NF = 0, 8, 16, 24, 32
_NSYNC = 40
_CLOSED = 1 << 40
# join checks (each a pause, ~20-30 ns on Zen 3: ~25 ms in all) before
# the driver goes on without a helper that never started (a busy pool)
_JOIN_SPINS = 1 << 20
_U1 = np.uint64(1)
_UCHUNK = np.uint64(_CHUNK)
_UNT = np.uint64(_NT)
_UFREE, _UNFREE, _UNONEMPTY = np.uint64(_FREE), np.uint64(_NFREE), np.uint64(_NONEMPTY)


def bucket_count(max_weight, inv_delta):
    """Buckets of the circular window: a power of two >= floor(max_weight *
    inv_delta) + 3 (one bucket of margin for the rounding of d * inv_delta)."""
    need = int(np.floor(float(max_weight) * float(inv_delta))) + 3
    return 1 << max(1, (need - 1).bit_length())


@njit
def _open(slot, tt, head, tail, fill, nxt, ctl, tctl):
    # a new chunk at the end of list ``slot`` (uint64) of the thread whose
    # tctl block starts at tt (uint64); returns it. The launcher made room
    # beforehand: it comes from the thread's free list, else from the shared
    # pool's end (atomic: the threads share it).
    # The rare step of queueing, a call: the common one is written out in
    # each relax loop (the module's docstring says why).
    last = tail[slot]
    e = tctl[tt + _UFREE]
    if e >= 0:
        tctl[tt + _UFREE] = nxt[np.uint64(e)]
        tctl[tt + _UNFREE] -= 1
    else:
        e = fetch_add(ctl, _USED, 1)
    nxt[np.uint64(e)] = -1
    if last < 0:
        head[slot] = e
        tctl[tt + _UNONEMPTY] += 1
    else:
        nxt[np.uint64(last)] = e
    tail[slot] = e
    fill[slot] = 0
    return e


def _room(work, nbins, threads=1):
    """Chunks ``work`` pushes may take: each thread's list of each bucket
    opens at most one new chunk besides the full ones."""
    return work // _CHUNK + threads * (nbins + 1) + 1


@njit(inline="always")
def _room_nb(work, nbins, threads):
    return work // _CHUNK + threads * (nbins + 1) + 1


def edge_records(indices, weights):
    """Each edge's target and weight side by side in one buffer: (et, ew),
    views of it, target p at ``et[p * st]``, its weight at ``ew[p * sw]``
    (``_strides``): a record of twice the wider item (8 bytes for int32
    targets and int32 weights), the weight in its second half. The kernel
    reads one stream where the two arrays are two.

    >>> import numpy as np
    >>> et, ew = edge_records(np.array([4, 7], np.int32), np.array([1.5, 2.0]))
    >>> (et[0], et[4], ew[0], ew[2])
    (np.int32(4), np.int32(7), np.float64(1.5), np.float64(2.0))
    """
    rec = 2 * max(indices.dtype.itemsize, weights.dtype.itemsize)
    buf = np.zeros(indices.size * rec, np.uint8)
    et = buf.view(indices.dtype)
    ew = buf.view(weights.dtype)
    st, sw = rec // indices.dtype.itemsize, rec // weights.dtype.itemsize
    et[::st] = indices
    ew = ew[sw // 2:]
    ew[::sw] = weights
    return et, ew


def _strides(et, ew):
    """(st, sw): the strides of edge_records's views, as uint64."""
    rec = 2 * max(et.itemsize, ew.itemsize)
    return np.uint64(rec // et.itemsize), np.uint64(rec // ew.itemsize)


@overload(_strides, inline="always")
def _strides_nb(et, ew):
    # compile-time constants from the dtypes: an array's itemsize read at run
    # time costs a division per frontier vertex (grid-512: 23 -> 26 ms)
    a, b = as_dtype(et.dtype).itemsize, as_dtype(ew.dtype).itemsize
    st, sw = np.uint64(2 * max(a, b) // a), np.uint64(2 * max(a, b) // b)
    return lambda et, ew: (st, sw)


@njit(inline="always")
def _ahead(f, nf, frontier, indptr, et, ew, dist):
    # prefetch what vertex f + 8 of the frontier reads first (its indptr),
    # then the row of vertex f + 4 (indptr fetched 4 vertices ago) and the
    # distance of its first neighbour
    if f + np.uint64(8) < np.uint64(nf):
        prefetch(indptr, np.uint64(frontier[f + np.uint64(8)]))
    if f + np.uint64(4) < np.uint64(nf):
        u = np.uint64(frontier[f + np.uint64(4)])
        p = np.uint64(indptr[u])
        if p < np.uint64(indptr[u + _U1]):
            q = p * _strides(et, ew)[0]
            prefetch(et, q)
            prefetch(dist, np.uint64(et[q]))


@njit(inline="always")
def _bucket(d, inv_delta):
    return np.uint64(np.int64(np.float64(d) * inv_delta))


@njit(inline="always")
def _detach(slot, rt, out, od, at, indptr, dist, head, tail, fill, data, ddata, nxt, tctl):
    # move the valid entries of list ``slot`` (its row's tctl block at rt;
    # both uint64) to out/od[at:] and return (their end, their out-edges);
    # its chunks go back to that row's free list
    c = head[slot]
    last, last_fill = tail[slot], fill[slot]
    head[slot] = -1
    tail[slot] = -1
    tctl[rt + _UNONEMPTY] -= 1
    k = np.uint64(at)
    work = 0
    while c >= 0:
        cu = np.uint64(c)
        cnt = last_fill if c == last else _CHUNK
        base = cu * _UCHUNK
        for i in range(np.uint64(cnt)):
            u = data[base + i]
            du = ddata[base + i]
            if dist[np.uint64(u)] == du:
                out[k] = u
                od[k] = du
                k += _U1
                work += indptr[np.uint64(u) + _U1] - indptr[np.uint64(u)]
        after = nxt[cu]
        nxt[cu] = tctl[rt + _UFREE]
        tctl[rt + _UFREE] = c
        tctl[rt + _UNFREE] += 1
        c = after
    return k, work


@njit(inline="always")
def _relax_plain(nf, frontier, fd, mask, indptr, et, ew, dist, head, tail, fill, data,
                 ddata, nxt, ctl, tctl, inv_delta, saturated):
    # relax frontier[:nf] alone (plain stores), queueing in row 0
    zero = np.uint64(0)
    st, sw = _strides(et, ew)
    for f in range(np.uint64(nf)):
        _ahead(f, nf, frontier, indptr, et, ew, dist)
        u = np.uint64(frontier[f])
        du = fd[f]
        if dist[u] != du:  # improved again meanwhile: queued anew
            continue
        for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + _U1])):
            v = np.uint64(et[p * st])
            w = ew[p * sw]
            # saturate instead of wrapping (tested before adding: numba's
            # signed add may assume no overflow)
            nd = saturated if w > saturated - du else du + w
            if nd < dist[v]:
                dist[v] = nd
                slot = _bucket(nd, inv_delta) & mask
                last = tail[slot]
                if last < 0 or fill[slot] == _CHUNK:
                    last = _open(slot, zero, head, tail, fill, nxt, ctl, tctl)
                pos = np.uint64(last) * _UCHUNK + np.uint64(fill[slot])
                data[pos] = v
                ddata[pos] = nd
                fill[slot] += 1


@njit(cache=True, nogil=True)
def _serial(indptr, et, ew, dist, head, tail, fill, data, ddata, nxt, ctl, tctl,
            frontier, fd, inv_delta, saturated):
    # One thread, plain stores. indptr[n+1]; et, ew: edge_records's views (W weights);
    # dist[n] D; head/tail/fill[nbins] int64; data[chunks * _CHUNK]
    # (vertex), ddata[same] D (its distance when queued), nxt[chunks] int64;
    # ctl[_NCTL], tctl[_NT] int64; frontier[n], fd[n] D: the bucket's valid
    # entries, ctl[_RESUME] of them when a call resumes. Returns 0 when done,
    # -1 when the pool must grow to _room(ctl[_WORK]) more chunks (the
    # frontier is kept). O(work of the frontiers + buckets scanned)
    nbins = head.size
    mask = np.uint64(nbins - 1)
    zero = np.uint64(0)
    while True:
        if ctl[_RESUME] > 0:  # a frontier collected before the pool grew
            nf = ctl[_RESUME]
            work = ctl[_WORK]
            ctl[_RESUME] = 0
        else:
            if tctl[_NONEMPTY] == 0:
                return 0
            s = np.uint64(ctl[_CUR]) & mask
            if head[s] < 0:
                ctl[_CUR] += 1
                continue
            k, work = _detach(s, zero, frontier, fd, zero, indptr, dist, head, tail, fill, data,
                              ddata, nxt, tctl)
            nf = np.int64(k)
            if nf == 0:
                continue
            ctl[_RELAXED] += nf
        if nxt.size - ctl[_USED] + tctl[_NFREE] < _room_nb(work, nbins, 1):
            ctl[_RESUME] = nf
            ctl[_WORK] = work
            return -1
        _relax_plain(nf, frontier, fd, mask, indptr, et, ew, dist, head, tail, fill,
                     data, ddata, nxt, ctl, tctl, inv_delta, saturated)


@njit(inline="always")
def _relax_share(t, nbins, frontier, fd, nf, block, sync, indptr, et, ew, dist, head, tail,
                 fill, data, ddata, nxt, ctl, tctl, inv_delta, saturated):
    # thread t's part of a parallel round: blocks of frontier[:nf] claimed
    # from sync[_NEXT]; dist lowered by compare-and-swap (a strict
    # improvement wins once, and its winner queues it in its own lists)
    mask = np.uint64(nbins - 1)
    tu = np.uint64(t)
    row = tu * np.uint64(nbins)
    tt = tu * _UNT
    st, sw = _strides(et, ew)
    while True:
        b = fetch_add(sync, _NEXT, block)
        if b >= nf:
            return
        for f in range(np.uint64(b), np.uint64(min(b + block, nf))):
            _ahead(f, nf, frontier, indptr, et, ew, dist)
            u = np.uint64(frontier[f])
            du = fd[f]
            if dist[u] != du:  # improved again meanwhile: queued anew
                continue
            for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + _U1])):
                v = np.uint64(et[p * st])
                w = ew[p * sw]
                nd = saturated if w > saturated - du else du + w
                old = dist[v]
                while nd < old:
                    if cas(dist, v, old, nd):
                        slot = row + (_bucket(nd, inv_delta) & mask)
                        last = tail[slot]
                        if last < 0 or fill[slot] == _CHUNK:
                            last = _open(slot, tt, head, tail, fill, nxt, ctl, tctl)
                        pos = np.uint64(last) * _UCHUNK + np.uint64(fill[slot])
                        data[pos] = v
                        ddata[pos] = nd
                        fill[slot] += 1
                        break
                    old = dist[v]


@njit(inline="always")
def _wait(spins, limit):
    # one check of a spin-wait that has made ``spins`` checks so far: a
    # pause for the first ``limit``, then a yield of the CPU
    if spins < limit:
        pause()
    else:
        yield_cpu()
    return spins + 1


@njit(cache=True, nogil=True)
def _parallel(t, threads, indptr, et, ew, dist, head, tail, fill, data, ddata, nxt,
              ctl, tctl, sync, frontier, fd, inv_delta, saturated, par_edges, par_block,
              spin_pauses):
    # Thread t of ``threads`` >= 2 (t = 0: the driver, the others helpers
    # of its parallel rounds). indptr[n+1]; et, ew: edge_records's views (W weights);
    # dist[n] D; head/tail/fill[threads * nbins] int64 (thread t's lists at
    # row t); data[chunks * _CHUNK] (vertex), ddata[same] D (its distance
    # when queued), nxt[chunks] int64; ctl[_NCTL], tctl[threads * _NT],
    # sync[_NSYNC] int64; frontier[n], fd[n] D; a thread claims par_block
    # frontier positions at once; a waiting thread yields its CPU after
    # spin_pauses checks.
    # The driver empties the lowest bucket of every row into the frontier;
    # one with fewer than par_edges out-edges it relaxes alone (plain
    # stores: the helpers wait), a larger one is a parallel round.
    # The driver returns -1: make room for _room(ctl[_WORK], nbins,
    # threads) more chunks and call again (frontier[:ctl[_RESUME]] is kept to
    # relax then); -2: the first parallel round is due: start the helpers
    # from now on (ctl[_HELPED] = 1) and call again; 0: done.
    # O(work of the frontiers + buckets scanned)
    nbins = head.size // threads
    if t > 0:  # a helper: join unless the driver stopped waiting, then serve rounds
        while True:
            j = load_acquire(sync, _JOINED)
            if j >= _CLOSED:
                return 0
            if cas(sync, _JOINED, j, j + 1):
                break
        last = 0
        spins = 0
        while True:
            g = load_acquire(sync, _GEN)
            if g == last:
                spins = _wait(spins, spin_pauses)
                continue
            if g < 0:
                return 0
            last = g
            spins = 0
            _relax_share(t, nbins, frontier, fd, sync[_NF], par_block, sync, indptr, et,
                         ew, dist, head, tail, fill, data, ddata, nxt, ctl, tctl, inv_delta,
                         saturated)
            arrive(sync, _ARRIVED, 1)
    mask = np.uint64(nbins - 1)
    zero = np.uint64(0)
    helpers = -1  # joined helpers; -1: not waited for yet
    ret = 0
    while True:
        if ctl[_RESUME] > 0:  # a frontier collected before the kernel returned
            nf = ctl[_RESUME]
            work = ctl[_WORK]
            ctl[_RESUME] = 0
        else:
            nonempty = 0
            for r in range(threads):
                nonempty += tctl[np.uint64(r) * _UNT + _UNONEMPTY]
            if nonempty == 0:
                break
            s = np.uint64(ctl[_CUR]) & mask
            # detach bucket cur from every thread's row: its valid entries
            # (queued with the vertex's current distance: the last
            # improvement) form the frontier; each chunk goes back to the
            # free list of the thread that filled it
            k = zero
            work = 0
            found = False
            for r in range(threads):
                ru = np.uint64(r)
                slot = ru * np.uint64(nbins) + s
                if head[slot] < 0:
                    continue
                found = True
                k, w = _detach(slot, ru * _UNT, frontier, fd, k, indptr, dist, head, tail, fill,
                               data, ddata, nxt, tctl)
                work += w
            if not found:
                ctl[_CUR] += 1
                continue
            nf = np.int64(k)
            if nf == 0:
                continue
            ctl[_RELAXED] += nf
        if work >= par_edges:
            if ctl[_HELPED] == 0:  # no helper spins before a search needs one
                ctl[_RESUME] = nf
                ctl[_WORK] = work
                ret = -2
                break
            if nxt.size - ctl[_USED] < _room_nb(work, nbins, threads):
                ctl[_RESUME] = nf
                ctl[_WORK] = work
                ret = -1
                break
            if helpers < 0:  # the first parallel round: wait for the helpers to join
                spins = 0
                while True:
                    j = load_acquire(sync, _JOINED)
                    if j >= threads - 1 or spins >= _JOIN_SPINS:
                        if cas(sync, _JOINED, j, j + _CLOSED):
                            helpers = j
                            break
                    spins += 1
                    pause()
            sync[_NF] = nf
            sync[_NEXT] = 0
            sync[_ARRIVED] = 0
            store_release(sync, _GEN, load_acquire(sync, _GEN) + 1)
            _relax_share(0, nbins, frontier, fd, nf, par_block, sync, indptr, et, ew,
                         dist, head, tail, fill, data, ddata, nxt, ctl, tctl, inv_delta,
                         saturated)
            spins = 0
            while load_acquire(sync, _ARRIVED) < helpers:
                spins = _wait(spins, spin_pauses)
            continue
        if nxt.size - ctl[_USED] + tctl[_NFREE] < _room_nb(work, nbins, 1):
            ctl[_RESUME] = nf
            ctl[_WORK] = work
            ret = -1
            break
        _relax_plain(nf, frontier, fd, mask, indptr, et, ew, dist, head, tail, fill,
                     data, ddata, nxt, ctl, tctl, inv_delta, saturated)
    # let the helpers go: no more joins, no more rounds
    while True:
        j = load_acquire(sync, _JOINED)
        if j >= _CLOSED or cas(sync, _JOINED, j, j + _CLOSED):
            break
    store_release(sync, _GEN, -1)
    return ret


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR

    for w, d in KERNEL_DTYPES:
        A = CSR(np.array([0, 2, 3, 3], index_dtype), np.array([1, 2, 2], index_dtype),
                np.array([1, 5, 2], w), 3, 3)
        delta_stepping(A, 0, 1.0, d)
        delta_stepping(A, 0, 1.0, d, parallel=True, par_edges=0)


def _grow(data, ddata, nxt, need):
    """The chunk pool (data, ddata, nxt) with room for ``need`` more chunks,
    at least doubled; the entries kept."""
    chunks = nxt.size + max(need, nxt.size)
    out = []
    for a, size in ((data, chunks * _CHUNK), (ddata, chunks * _CHUNK), (nxt, chunks)):
        b = np.empty(size, a.dtype)
        b[:a.size] = a
        out.append(b)
    return out


@register("sssp", fmt="csr", device="cpu", variant="delta", warmup=_warm)
def delta_stepping(A, source, delta, dist_dtype, *, parallel=None,
                   par_edges=None, initial_chunks=None, max_weight=None, edges=None, cfg=None):
    """Shortest-path distances from ``source`` by delta-stepping.

    A: CSR (n x n) with values W >= 0 (no NaN; the caller checks), W one of
    ``KERNEL_DTYPES`` for ``dist_dtype`` D. delta > 0: the bucket width;
    ``max(weights) / delta`` must stay below ``cfg.max_bins`` (cfg: the
    ``SSSP`` settings; None: those in force). parallel: None runs on all
    threads when there is more than one and the graph has at least
    ``par_edges`` (default ``cfg.par_edges``) edges, True on at least two
    threads (even with one CPU); False on one. initial_chunks: the bucket
    lists' pool size in chunks (default: room for m + n entries; tests
    make it 1 to grow it often). max_weight: the largest finite weight, if
    the caller knows it (else one pass over the weights finds it).
    edges: ``edge_records(indices, weights)`` of A in the kernel's dtypes,
    if the caller keeps them (else built here: a copy of the m edges).
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
    et, ew = edge_records(indices, weights) if edges is None else edges
    if et.dtype != indices.dtype or ew.dtype != W:
        raise TypeError(f"delta_stepping: edges of {et.dtype} targets and {ew.dtype} weights;"
                        f" expected {indices.dtype} and {W}")
    st, sw = _strides(et, ew)
    check_length("delta_stepping", "edges' targets", et, int(indptr[-1]) * int(st))
    check_length("delta_stepping", "edges' weights", ew,
                 max(int(indptr[-1]) * int(sw) - int(sw) // 2, 0))
    inv_delta = np.float64(1.0 / float(delta))
    max_w = max_weight
    if max_w is None:
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
    if par_edges is None:
        par_edges = cfg.par_edges
    if parallel is None:  # helpers only where a frontier may reach par_edges
        parallel = threads > 1 and indices.size >= par_edges
    threads = max(threads, 2) if parallel else 1

    dist = np.full(n, infinity, D)
    head = np.full(threads * nbins, -1, np.int64)
    tail = np.full(threads * nbins, -1, np.int64)
    fill = np.zeros(threads * nbins, np.int64)
    # sized once (a return to grow it costs ~10% of a call on kron-18): a
    # work-efficient search queues about one entry per edge, emptied chunks
    # are reused, and every list may hold a part-filled chunk while a
    # frontier's room is checked
    chunks = (_room(indices.size + n, nbins, 2 * threads) if initial_chunks is None
              else max(1, int(initial_chunks)))
    data = np.empty(chunks * _CHUNK, indices.dtype)
    ddata = np.empty(chunks * _CHUNK, D)
    nxt = np.empty(chunks, np.int64)
    ctl = np.zeros(_NCTL, np.int64)
    tctl = np.zeros(threads * _NT, np.int64)
    tctl[_FREE::_NT] = -1
    frontier = np.empty(n, indices.dtype)
    fd = np.empty(n, D)
    # the source, queued in bucket 0 (row 0) at distance 0
    dist[source] = 0
    data[0] = source
    ddata[0] = 0
    nxt[0] = -1
    head[0] = tail[0] = 0
    fill[0] = 1
    ctl[_USED] = 1
    tctl[_NONEMPTY] = 1
    if threads == 1:
        while _serial(indptr, et, ew, dist, head, tail, fill, data, ddata, nxt, ctl,
                      tctl, frontier, fd, inv_delta, saturated) != 0:
            data, ddata, nxt = _grow(data, ddata, nxt, _room(int(ctl[_WORK]), nbins))
        return dist, int(ctl[_RELAXED])
    par_edges = np.int64(par_edges)
    while True:
        sync = np.zeros(_NSYNC, np.int64)  # fresh: a helper of an earlier launch never joins it
        args = (indptr, et, ew, dist, head, tail, fill, data, ddata, nxt, ctl, tctl,
                sync, frontier, fd, inv_delta, saturated, par_edges,
                np.int64(max(1, int(cfg.par_block))),
                np.int64(max(0, int(cfg.spin_pauses))))
        helpers = [_submit(_parallel, t, threads, *args)
                   for t in range(1, threads if ctl[_HELPED] else 1)]
        try:
            ret = _parallel(0, threads, *args)
        finally:
            for h in helpers:  # joined ones leave at once; one never started is dropped
                if not h.cancel():
                    h.result()
        if ret == 0:
            break
        if ret == -2:
            ctl[_HELPED] = 1
            continue
        data, ddata, nxt = _grow(data, ddata, nxt, _room(int(ctl[_WORK]), nbins, threads))
    return dist, int(ctl[_RELAXED])
