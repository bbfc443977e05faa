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

One thread runs ``_serial`` (plain stores). Several run ``_rounds``
(one compiled loop for every thread; thread and row indices unsigned in
its hot loops), every thread in every round, as gapbs: each relaxes the
chunks of the round's shared list (claimed one at a time, an atomic add),
then goes on with its own list of the current bucket while it holds
fewer entries than ``fuse_edges`` out-edges' worth (bucket fusion: no
barrier), then offers its lowest non-empty bucket (an atomic min);
after a barrier the lowest is the next current bucket, each thread whose
list of it reaches ``par_edges`` out-edges' worth appends its chunks to
the other shared list (smaller lists stay with their thread, fused next
round), and a second barrier starts the round. A thread that alone holds
entries, in a round where nothing is shared, goes on from bucket to
bucket until a list is large (the others wait at the barrier: a round per
bucket cost as much as a small bucket's work; grid-256, 2 threads, 2.0 ->
1.8 ms). Entries are relaxed straight from their chunks; dist is lowered by a relaxed compare-and-swap
(``cas_relaxed``: a strict improvement wins once, and its winner queues
it in its own lists, so no vertex is recorded twice and nothing is
merged; with ``cas``'s acquire-release ordering the relax loop took 3.4x
as long on grid-512). The threads are a team (``team.py``: the join,
the barriers, waiting threads spinning with ``pause`` and yielding the CPU
after ``spin_pauses`` checks); one the pool does not start (a busy pool)
is not waited for, and the rounds run with those that came.

Buckets live in a circular window of ``nbins`` (a power of two, at least
``floor(max_weight * inv_delta) + 3``): an improvement never lands past it,
since d_new <= d_cur + max_weight. Each thread has its own row of buckets;
each bucket is a linked list of chunks of ``_CHUNK`` entries (``data``:
vertex, ``ddata``: its distance when queued; ``nxt``), so queueing writes
sequentially. A relaxed chunk goes back to the free list of the thread
that relaxed it; a thread with none takes the next chunk of the shared
pool (an atomic add). The launcher sizes the pool once from m (never
reached in practice). Should the serial loop's frontier need more room,
it returns, the pool grows and the search goes on where it stopped (the
state lives in arrays the launcher owns); should the rounds run out (a
thread then writes into its spare chunk), they return, and the launcher
grows the pool and queues every vertex of the current bucket or later
again (``_requeue``). Every improvement queues an entry;
only the entry holding the vertex's current distance is valid
(improvements are strict, so there is one), the others are skipped when
they come up. That check reads dist[v], which the relaxation
reads anyway (a separate "queued in bucket" array measured no faster and
costs n int32 more).

Every thread works each round: the earlier design, a driver emptying each
bucket alone and handing large ones to helpers, took kron-18 27.7 ms
against these rounds' 22.4 (2 threads, weights 1-255, best delta each).
The relax loops prefetch ahead (``_ahead``): urand-20 serial 530 -> 355
ms.

Distances are computed in D (int32/int64/uint64/float32/float64), weights
in the same dtype (``KERNEL_DTYPES``: each pair compiles both kernels). Integer
sums saturate at ``saturated`` (D's maximum - 1) instead of wrapping.
"""

import numpy as np
from numba import njit
from numba.extending import overload
from numba.np.numpy_support import as_dtype

from bitgraph import _array
from bitgraph.kernels.cpu import arg, check_length, index_args, num_threads
from bitgraph.kernels.cpu.bits import (cas, cas_relaxed, fetch_add, load_acquire, prefetch,
                                       store_release)
from bitgraph.kernels.cpu.team import FIRST, barrier, join, run_team, wait
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
# out-edges of a frontier kept while the serial loop returned
_USED, _CUR, _RELAXED, _RESUME, _WORK = range(5)
_NCTL = 8
# tctl[r * _NT + ...]: row r's lists (a cache line per row)
_FREE, _NFREE, _NONEMPTY = range(3)
_NT = 16
# sync[] slots (one array per launch, a cache line each): team.py's (threads
# joined, barrier arrivals), then a spent pool, then for each of the two
# shared chunk lists: the next chunk to claim, its length, the lowest bucket
# a thread has left and the threads that have any (the round's parity picks
# the list: one is read while the other is filled)
_OVER, _NEXT0, _NCL0, _NB0, _ACT0 = FIRST, FIRST + 8, FIRST + 24, FIRST + 40, FIRST + 56
_NSYNC = 88
_NONE = 1 << 62
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
    # relax frontier[:nf] alone (plain stores), queueing in row 0; returns
    # the vertices relaxed (those not improved again meanwhile)
    zero = np.uint64(0)
    st, sw = _strides(et, ew)
    relaxed = 0
    for f in range(np.uint64(nf)):
        _ahead(f, nf, frontier, indptr, et, ew, dist)
        u = np.uint64(frontier[f])
        du = fd[f]
        if dist[u] != du:  # improved again meanwhile: queued anew
            continue
        relaxed += 1
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
    return relaxed


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
        if nxt.size - ctl[_USED] + tctl[_NFREE] < _room_nb(work, nbins, 1):
            ctl[_RESUME] = nf
            ctl[_WORK] = work
            return -1
        ctl[_RELAXED] += _relax_plain(nf, frontier, fd, mask, indptr, et, ew, dist, head, tail, fill,
                     data, ddata, nxt, ctl, tctl, inv_delta, saturated)


@njit
def _open_shared(slot, tt, rank, head, tail, fill, nxt, ctl, tctl, sync):
    # _open for a thread of _rounds: a spent pool (chunks [nxt.size -
    # threads, nxt.size) are the threads' spares) raises sync[_OVER] and
    # hands the thread its spare, written over until the round ends; the
    # launcher then grows the pool and queues the search again (_requeue)
    last = tail[slot]
    e = tctl[tt + _UFREE]
    if e >= 0:
        tctl[tt + _UFREE] = nxt[np.uint64(e)]
        tctl[tt + _UNFREE] -= 1
    else:
        e = fetch_add(ctl, _USED, 1)
        limit = nxt.size - tctl.size // _NT
        if e >= limit:
            store_release(sync, _OVER, 1)
            e = limit + rank
    nxt[np.uint64(e)] = -1
    if last < 0:
        head[slot] = e
        tctl[tt + _UNONEMPTY] += 1
    else:
        nxt[np.uint64(last)] = e
    tail[slot] = e
    fill[slot] = 0
    return e


@njit(inline="always")
def _entries_below(c, fill_last, nxt, limit):
    # whether the list starting at chunk c (its last chunk filled to
    # fill_last) holds fewer than ``limit`` entries; walks at most
    # limit / _CHUNK + 1 chunks
    k = 0
    while c >= 0:
        if k * _CHUNK >= limit:
            return False
        c = nxt[np.uint64(c)]
        k += 1
    return (k - 1) * _CHUNK + fill_last < limit


@njit(cache=True, nogil=True)
def _rounds(t, threads, indptr, et, ew, dist, head, tail, fill, data, ddata, nxt, ctl, tctl,
            sync, cl, inv_delta, saturated, share, fuse, spin_pauses):
    # Thread t of ``threads`` >= 2 (t = 0 on the caller's thread, the others
    # on the pool). indptr[n+1]; et, ew: edge_records's views (W weights);
    # dist[n] D; head/tail/fill[threads * nbins] int64 (a thread's lists at
    # the row of its rank); data[chunks * _CHUNK] (vertex), ddata[same] D
    # (its distance when queued), nxt[chunks] int64 (the last ``threads``
    # chunks: spares); ctl[_NCTL], tctl[threads * _NT], sync[_NSYNC] int64;
    # cl[2 * chunks] int64: the two shared chunk lists (chunk * 128 + its
    # entries). A thread shares its list of a new current bucket when it
    # holds at least ``share`` entries, and relaxes its own list of the
    # current bucket alone while it holds fewer than ``fuse`` >= share.
    # Every thread, every round: relax the shared list's chunks (claimed one
    # at a time), then its own list of the current bucket while it is small
    # (bucket fusion: no barrier); find its lowest non-empty bucket; barrier;
    # the lowest over the threads is the next current bucket: a thread
    # whose list of it is large appends its chunks to the other shared
    # list; barrier. Returns 0 when done, -1 when the pool ran out
    # (ctl[_CUR]: the bucket then current). O(work of the rounds + buckets
    # scanned)
    nbins = head.size // threads
    mask = np.uint64(nbins - 1)
    # join (team.join: a helper the pool never starts is not waited for)
    rank, team = join(t, threads, sync, spin_pauses)
    if rank < 0:
        return 0
    ru = np.uint64(rank)
    row = ru * np.uint64(nbins)
    tt = ru * _UNT
    st, sw = _strides(et, ew)
    half = np.uint64(cl.size // 2)
    cur = np.uint64(ctl[_CUR])
    relaxed = 0
    bars = 0
    b = np.uint64(0)
    ret = 0
    active = 0
    while True:
        # the shared list of this round, then this thread's own small lists;
        # alone with entries and nothing shared, a thread goes on from bucket
        # to bucket (the others wait at the barrier: no round for each)
        ncl = np.uint64(load_acquire(sync, _NCL0 + 8 * b))
        solo = ncl == 0 and active == 1 and tctl[tt + _UNONEMPTY] > 0
        shared = True
        fc = -1
        flast = -1
        flast_fill = 0
        while True:
            if shared:
                x = np.uint64(fetch_add(sync, _NEXT0 + 8 * b, 1))
                if x >= ncl:
                    shared = False
                    continue
                code = np.uint64(cl[b * half + x])
                c = code >> np.uint64(7)
                cnt = code & np.uint64(127)
            else:
                if fc < 0:
                    if load_acquire(sync, _OVER) != 0:
                        break
                    slot = row + (cur & mask)
                    h = head[slot]
                    if h < 0 and solo and tctl[tt + _UNONEMPTY] > 0:
                        for k in range(_U1, np.uint64(nbins)):
                            if head[row + ((cur + k) & mask)] >= 0:
                                cur += k
                                break
                        continue
                    if h < 0 or not _entries_below(h, fill[slot], nxt, fuse):
                        break
                    fc = h
                    flast = tail[slot]
                    flast_fill = fill[slot]
                    head[slot] = -1
                    tail[slot] = -1
                    tctl[tt + _UNONEMPTY] -= 1
                c = np.uint64(fc)
                if fc == flast:
                    cnt = np.uint64(flast_fill)
                    fc = -1
                else:
                    cnt = _UCHUNK
                    fc = nxt[c]
            base = c * _UCHUNK
            end = base + cnt
            for f in range(base, end):
                _ahead(f, end, data, indptr, et, ew, dist)
                u = np.uint64(data[f])
                du = ddata[f]
                if dist[u] != du:  # improved again meanwhile: queued anew
                    continue
                relaxed += 1
                for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + _U1])):
                    v = np.uint64(et[p * st])
                    w = ew[p * sw]
                    nd = saturated if w > saturated - du else du + w
                    old = dist[v]
                    while nd < old:
                        if cas_relaxed(dist, v, old, nd):
                            slot = row + (_bucket(nd, inv_delta) & mask)
                            last = tail[slot]
                            if last < 0 or fill[slot] == _CHUNK:
                                last = _open_shared(slot, tt, rank, head, tail, fill, nxt, ctl,
                                                    tctl, sync)
                            pos = np.uint64(last) * _UCHUNK + np.uint64(fill[slot])
                            data[pos] = v
                            ddata[pos] = nd
                            fill[slot] += 1
                            break
                        old = dist[v]
            # the chunk is done: to this thread's free list
            nxt[c] = tctl[tt + _UFREE]
            tctl[tt + _UFREE] = np.int64(c)
            tctl[tt + _UNFREE] += 1
        # this thread's lowest non-empty bucket (the window holds cur ..
        # cur + nbins - 1), the lowest over the threads by compare-and-swap
        if tctl[tt + _UNONEMPTY] > 0:
            fetch_add(sync, _ACT0 + 8 * b, 1)
            for k in range(np.uint64(nbins)):
                if head[row + ((cur + k) & mask)] >= 0:
                    cand = np.int64(cur + k)
                    old = load_acquire(sync, _NB0 + 8 * b)
                    while cand < old:
                        if cas(sync, _NB0 + 8 * b, old, cand):
                            break
                        old = load_acquire(sync, _NB0 + 8 * b)
                    break
        bars += 1
        barrier(sync, bars * team, spin_pauses)
        if load_acquire(sync, _OVER) != 0:
            ret = -1
            break
        nb = load_acquire(sync, _NB0 + 8 * b)
        if nb == _NONE:
            break
        cur = np.uint64(nb)
        active = load_acquire(sync, _ACT0 + 8 * b)
        nb1 = _U1 - b
        if rank == 0:  # this round's counters, for the round after next
            sync[_NEXT0 + 8 * b] = 0
            sync[_NCL0 + 8 * b] = 0
            sync[_NB0 + 8 * nb1] = _NONE
            sync[_ACT0 + 8 * nb1] = 0
        # a large list of the new current bucket: shared in the next round
        slot = row + (cur & mask)
        h = head[slot]
        if h >= 0 and not _entries_below(h, fill[slot], nxt, share):
            k = 0
            c = h
            while c >= 0:
                k += 1
                c = nxt[np.uint64(c)]
            at = np.uint64(fetch_add(sync, _NCL0 + 8 * nb1, k))
            c = h
            last = tail[slot]
            while True:
                cu = np.uint64(c)
                cnt = fill[slot] if c == last else np.int64(_CHUNK)
                cl[nb1 * half + at] = np.int64(cu << np.uint64(7)) + cnt
                at += _U1
                if c == last:
                    break
                c = nxt[cu]
            head[slot] = -1
            tail[slot] = -1
            tctl[tt + _UNONEMPTY] -= 1
        bars += 1
        barrier(sync, bars * team, spin_pauses)
        b = nb1
    fetch_add(ctl, _RELAXED, relaxed)
    if rank == 0:
        ctl[_CUR] = np.int64(cur)
    return ret


def _requeue(dist, infinity, inv_delta, cur, head, tail, fill, data, ddata, nxt, ctl, tctl):
    """Empty every list, then queue each vertex whose distance falls in
    bucket ``cur`` or later, once, in thread 0's lists (after the pool ran
    out: an improvement may have been written to a spare). The lists of
    earlier buckets were settled before."""
    head[:] = -1
    tail[:] = -1
    fill[:] = 0
    tctl[_FREE::_NT] = -1
    tctl[_NFREE::_NT] = 0
    tctl[_NONEMPTY::_NT] = 0
    nbins = head.size // (tctl.size // _NT)
    v = np.flatnonzero(dist != infinity)
    with np.errstate(invalid="ignore"):
        bk = (dist[v].astype(np.float64) * inv_delta).astype(np.int64)
    keep = (bk >= cur) | (bk < 0)  # < 0: a bucket past int64 (the kernel's conversion)
    v, slot = v[keep], bk[keep] & (nbins - 1)
    order = np.argsort(slot, kind="stable")
    v, slot = v[order], slot[order]
    slots, start, cnt = _array.unique(slot, return_index=True, return_counts=True)
    nch = (cnt + _CHUNK - 1) // _CHUNK
    first = np.cumsum(nch) - nch
    pos = np.repeat(first * _CHUNK - start, cnt) + np.arange(v.size)
    data[pos] = v
    ddata[pos] = dist[v]
    used = int(nch.sum())
    nxt[:used] = np.arange(1, used + 1)
    nxt[first + nch - 1] = -1
    head[slots] = first
    tail[slots] = first + nch - 1
    fill[slots] = cnt - _CHUNK * (nch - 1)
    tctl[_NONEMPTY] = slots.size
    ctl[_USED] = used


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
                   par_edges=None, fuse_edges=None, initial_chunks=None, max_weight=None, edges=None, cfg=None):
    """Shortest-path distances from ``source`` by delta-stepping.

    A: CSR (n x n) with values W >= 0 (no NaN; the caller checks), W one of
    ``KERNEL_DTYPES`` for ``dist_dtype`` D. delta > 0: the bucket width;
    ``max(weights) / delta`` must stay below ``cfg.max_bins`` (cfg: the
    ``SSSP`` settings; None: those in force). parallel: None runs on all
    threads when there is more than one and the graph has at least
    ``par_edges`` and ``fuse_edges`` edges, True on at least two threads
    (even with one CPU); False on one. par_edges, fuse_edges: a thread's
    list of a bucket is shared, kept and fused by these out-edges
    (defaults ``cfg.par_edges``, ``cfg.fuse_edges``). initial_chunks: the bucket
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
    if fuse_edges is None:
        fuse_edges = cfg.fuse_edges
    if parallel is None:  # helpers only where one thread's fused list may not hold it all
        parallel = threads > 1 and indices.size >= max(par_edges, fuse_edges)
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
    # entry counts whose out-edges reach par_edges / fuse_edges on average
    share = np.int64(-(-int(par_edges) * n // max(int(indices.size), 1)))
    fuse = max(share, np.int64(-(-int(fuse_edges) * n // max(int(indices.size), 1))))
    spare = threads  # the pool's last chunks: a spare per thread (_open_shared)
    while True:
        if nxt.size < ctl[_USED] + spare + 1:
            data, ddata, nxt = _grow(data, ddata, nxt, spare + 1)
        cl = np.empty(2 * nxt.size, np.int64)
        sync = np.zeros(_NSYNC, np.int64)  # fresh: a helper of an earlier launch never joins it
        sync[_NB0] = sync[_NB0 + 8] = _NONE
        args = (indptr, et, ew, dist, head, tail, fill, data, ddata, nxt, ctl, tctl, sync, cl,
                inv_delta, saturated, share, fuse, np.int64(max(0, int(cfg.spin_pauses))))
        ret = run_team(_rounds, threads, *args)
        if ret == 0:
            break
        # room for every vertex queued again, at least double
        data, ddata, nxt = _grow(data, ddata, nxt, n // _CHUNK + min(nbins, n) + spare + 2)
        _requeue(dist, infinity, inv_delta, int(ctl[_CUR]), head, tail, fill, data, ddata, nxt,
                 ctl, tctl)
    return dist, int(ctl[_RELAXED])
