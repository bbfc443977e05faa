"""Multi-source BFS (iBFS) on CSR, numba: up to 64 BFSs in one traversal.

State of a batch of k <= 64 sources, one uint64 word per vertex, bit b for
source b (duplicate sources are simply two bits):

- ``seen[n]``      bits of the sources that have reached v;
- ``frontier[n]``  bits that reached v at the current level (subset of seen);
- ``nxt[n]``       bits reaching v at the next level (zero between levels);
- ``queue``        int64 ids of the vertices with ``frontier != 0`` (the
                   joint frontier of all k BFSs, each vertex once);
- ``touched[n/64]`` bitmap of the vertices the current top-down level found
                   first (zero between levels);
- ``st[4]`` int64  level, mf (out-edges of the queue), alpha_m (the
                   direction threshold, see below), bu_fail (below).

A level is one of two steps:

- top-down (push): for u in queue, for v in out(u):
  ``nxt[v] |= frontier[u] & ~seen[v]``; the thread whose OR found
  ``nxt[v] == 0`` marks v in ``touched`` (``bits.atomic_or`` when chunks run
  on the pool), so no vertex is listed twice. The next queue is read off the
  bitmap in ascending order (for tiny levels: the list in found order), so
  the passes over it walk memory forwards. O(mf + n/64).
- bottom-up (pull): for every v with ``need = active & ~seen[v] != 0``,
  OR ``frontier[u]`` over in-neighbours u and **stop once all needed bits are
  set**; ``active`` is the OR of the frontier words, so the bits of finished
  BFSs never keep a vertex scanning. O(n + in-edges scanned).

Direction (XBFS, adapted): bottom-up when ``mf > alpha_m`` (alpha_m starts
at alpha * m). With many sources the early exit only pays where a vertex's
missing bits arrive together (low-diameter graphs); on a grid a vertex gets
its 64 bits over ~64 levels and scans all its in-edges each time. So a
bottom-up level that scanned more than ``bu_fail`` times the edges the
top-down one would have pushed (mf) raises alpha_m to bu_fail * mf: the next
try needs a much larger frontier.

``_settle`` then moves nxt into frontier and seen and records the level of
every new bit: into ``vlev[v * k + b]`` (vertex-major: the bits of one
vertex are adjacent, so a level costs a few cache lines per vertex, not one
per bit), which ``emit`` finally turns into rows of the (sources x n) int32
result (-1 where a bit never arrived). The statistics-only callers
(closeness, eccentricity) skip vlev and keep per-bit counts ``cnt[64]`` of
each level.

Specialised only on the index dtype of the CSR arrays (int32/int64);
everything else has one fixed dtype: uint64 state, int64 queues/rows/counts,
int32 levels.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import arg, index_args
from bitgraph.kernels.cpu.bits import atomic_or, ctz
from bitgraph.kernels.registry import register

__all__ = ["msbfs_start", "msbfs_run", "msbfs_push", "msbfs_pull",
           "msbfs_settle", "msbfs_clear", "msbfs_queue", "msbfs_emit", "batch_run",
           "new_state", "msbfs_sources", "sources_run"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U6 = np.uint64(6)
_U63 = np.uint64(63)
_EMIT_BLOCK = np.uint64(64)  # vertices per block of the vlev -> rows transpose


# st[] slots
LEVEL, MF, ALPHA_M, BU_FAIL = 0, 1, 2, 3


@njit(inline="always")
def _push(q0, q1, queue, indptr, indices, frontier, seen, nxt, touched, out,
          listing, atomic):
    # top-down over queue[q0:q1]. A vertex whose nxt word this push found
    # zero is marked in the touched bitmap (and appended to out if listing);
    # returns how many. Clears frontier[u] as it goes: top-down reads only
    # its own u's word
    k = 0
    for qi in range(q0, q1):
        u = np.uint64(queue[qi])
        f = frontier[u]
        frontier[u] = _U0
        for e in range(np.uint64(indptr[u]), np.uint64(indptr[u + _U1])):
            v = np.uint64(indices[e])
            bits = f & ~seen[v]
            if bits == _U0:
                continue
            old = nxt[v]
            if (old & bits) == bits:  # nothing new: skip the locked OR
                continue
            if atomic:
                old = atomic_or(nxt, v, bits)
            else:
                nxt[v] = old | bits
            if old == _U0:
                mark = _U1 << (v & _U63)
                if atomic:
                    atomic_or(touched, v >> _U6, mark)
                else:
                    touched[v >> _U6] |= mark
                if listing:
                    out[k] = v
                k += 1
    return k


@njit(inline="always")
def _queue(touched, out, nf, scan):
    # the next queue, touched cleared: ascending from the bitmap when the
    # level is big enough for the n/64-word scan to be cheap (an ascending
    # queue makes every later pass over it walk memory forwards: measured
    # 1.3-2x on grid/kron/urand), else the (unsorted) list out[:nf]
    queue = np.empty(nf, np.int64)
    if scan or nf * 8 >= touched.size:
        k = 0
        for wi in range(touched.size):
            w = touched[wi]
            if w == _U0:
                continue
            touched[wi] = _U0
            base = np.uint64(wi) << _U6
            while w != _U0:
                queue[k] = base + ctz(w)
                k += 1
                w &= w - _U1
    else:
        for i in range(nf):
            v = np.uint64(out[i])
            queue[i] = v
            touched[v >> _U6] = _U0
    return queue


@njit(inline="always")
def _pull(r0, r1, tindptr, tindices, frontier, seen, nxt, active, out):
    # bottom-up over vertices [r0, r1); early exit once all needed bits set.
    # Returns (found, in-edges scanned)
    k = 0
    scanned = _U0
    for v in range(r0, r1):
        need = active & ~seen[v]
        if need == _U0:
            continue
        acc = _U0
        e0 = np.uint64(tindptr[v])
        e1 = np.uint64(tindptr[v + _U1])
        e = e0
        while e < e1:
            acc |= frontier[np.uint64(tindices[e])]
            e += _U1
            if (acc & need) == need:
                break
        scanned += e - e0
        new = acc & need
        if new != _U0:
            nxt[v] = new
            out[k] = v
            k += 1
    return k, scanned


@njit(inline="always")
def _settle(q0, q1, queue, indptr, nxt, seen, frontier, vlev, k, level,
            write, cnt):
    # nxt -> frontier, seen; record the level of every new bit. Returns
    # (OR of the new frontier words, sum of out-degrees of the new queue)
    active = _U0
    mf = 0
    lv = np.int32(level)
    for qi in range(q0, q1):
        v = np.uint64(queue[qi])
        new = nxt[v]
        nxt[v] = _U0
        seen[v] |= new
        frontier[v] = new
        active |= new
        mf += np.int64(indptr[v + _U1]) - np.int64(indptr[v])
        w = new
        base = v * k
        while w != _U0:
            b = ctz(w)
            w &= w - _U1
            cnt[b] += 1
            if write:
                vlev[base + b] = lv
    return active, mf


@njit(cache=True, nogil=True)
def msbfs_start(sources, indptr, nxt, seen, frontier, vlev, write, cnt, st):
    """Level 0: bit b at sources[b]. Returns (queue, active).

    sources[k] int64 (k <= 64, may repeat); indptr[n+1]; nxt, seen,
    frontier[n] uint64 (all zero on entry); vlev[n * k] int32 (if write);
    cnt[64] int64 (added to); st[4] int64 (st[MF] set). O(k)
    """
    queue = np.empty(sources.size, np.int64)
    nq = 0
    for b in range(sources.size):
        s = np.uint64(sources[b])
        if nxt[s] == _U0:
            queue[nq] = s
            nq += 1
        nxt[s] |= _U1 << np.uint64(b)
    queue = queue[:nq].copy()
    active, mf = _settle(0, nq, queue, indptr, nxt, seen, frontier, vlev,
                         np.uint64(sources.size), 0, write, cnt)
    st[MF] = mf
    return queue, active


@njit(cache=True, nogil=True)
def msbfs_run(queue, active, st, indptr, indices, tindptr, tindices, nxt,
              seen, frontier, touched, vlev, k, write, stop_work, count, total,
              ecc, buf):
    """Serial levels from ``queue`` until the BFSs end or the next level's
    work (mf top-down, n bottom-up) reaches ``stop_work``. Returns (queue,
    active): the state before that big level (queue empty when done); st
    is updated in place.

    count, total, ecc[64] int64: per bit, vertices reached, sum of their
    levels, last level that reached one (added to). touched[ceil(n/64)]
    uint64 zeroed scratch bitmap, buf[n] int64 scratch.
    O(levels * n + edges) per batch in the worst case.
    """
    n = np.uint64(seen.size)
    cnt = np.zeros(64, np.int64)
    while queue.size > 0:
        mf = st[MF]
        bottom_up = mf > st[ALPHA_M]
        work = n if bottom_up else np.uint64(mf)
        if work >= stop_work:
            break
        level = st[LEVEL] + 1
        st[LEVEL] = level
        if bottom_up:
            nf, scanned = _pull(_U0, n, tindptr, tindices, frontier, seen,
                                nxt, active, buf)
            if np.int64(scanned) > st[BU_FAIL] * mf:  # top-down was cheaper
                st[ALPHA_M] = st[BU_FAIL] * mf
        else:
            nf = _push(0, queue.size, queue, indptr, indices, frontier, seen,
                       nxt, touched, buf, True, False)
        if bottom_up:  # (top-down cleared the old frontier as it went)
            for qi in range(queue.size):
                frontier[np.uint64(queue[qi])] = _U0
            queue = buf[:nf].copy()  # ascending already
        else:
            queue = _queue(touched, buf, nf, False)
        cnt[:] = 0
        active, mf = _settle(0, nf, queue, indptr, nxt, seen, frontier, vlev,
                             k, level, write, cnt)
        st[MF] = mf
        for b in range(64):
            if cnt[b]:
                count[b] += cnt[b]
                total[b] += cnt[b] * level
                ecc[b] = level
    return queue, active


@njit(cache=True, nogil=True)
def msbfs_push(q0, q1, queue, indptr, indices, frontier, seen, nxt, touched):
    """Top-down over queue[q0:q1] with atomic ORs (one pool chunk): marks in
    ``touched`` the vertices whose nxt word it found zero and returns how
    many; zeroes frontier[u] of its queue. O(out-edges of the chunk)"""
    return _push(q0, q1, queue, indptr, indices, frontier, seen, nxt, touched,
                 touched, False, True)


@njit(cache=True, nogil=True)
def msbfs_queue(touched, nf):
    """The nf vertices marked in ``touched``, ascending; clears it.
    O(len(touched) + nf)"""
    return _queue(touched, touched, nf, True)


@njit(cache=True, nogil=True)
def msbfs_pull(r0, r1, tindptr, tindices, frontier, seen, nxt, active):
    """Bottom-up over vertices [r0, r1) (one pool chunk); returns (int64
    vertices found, in-edges scanned). O(r1 - r0 + in-edges scanned)"""
    out = np.empty(r1 - r0, np.int64)
    nf, scanned = _pull(r0, r1, tindptr, tindices, frontier, seen, nxt,
                        active, out)
    return out[:nf], scanned


@njit(cache=True, nogil=True)
def msbfs_clear(q0, q1, queue, frontier):
    """frontier[queue[q0:q1]] = 0 (the level's old frontier). O(q1 - q0)"""
    for qi in range(q0, q1):
        frontier[np.uint64(queue[qi])] = _U0


@njit(cache=True, nogil=True)
def msbfs_settle(q0, q1, queue, indptr, nxt, seen, frontier, vlev, k, level,
                 write):
    """``_settle`` on queue[q0:q1] (one pool chunk): (cnt[64], active, mf)."""
    cnt = np.zeros(64, np.int64)
    active, mf = _settle(q0, q1, queue, indptr, nxt, seen, frontier, vlev, k,
                         level, write, cnt)
    return cnt, active, mf


@njit(cache=True, nogil=True)
def msbfs_emit(v0, v1, vlev, seen, k, rows, levels):
    """levels[rows[b] * n + v] = vlev[v * k + b] if bit b of seen[v] else -1,
    for v in [v0, v1) (one pool chunk), in blocks of 64 vertices so that the
    block of vlev stays in L1 while k rows are written. O((v1 - v0) * k)"""
    n = np.uint64(seen.size)
    for c0 in range(v0, v1, _EMIT_BLOCK):
        c1 = min(c0 + _EMIT_BLOCK, v1)
        for b in range(k):
            row = np.uint64(rows[b]) * n
            for v in range(c0, c1):
                if (seen[v] >> b) & _U1:
                    levels[row + v] = vlev[v * k + b]
                else:
                    levels[row + v] = -1


@njit(cache=True, nogil=True)
def msbfs_sources(j0, j1, sources, rows, indptr, indices, levels, n, write, mark, queue,
                  count, total, ecc):
    """The schedule "async": BFS from each sources[j], j in [j0, j1) (one
    pool chunk), alone and top-down, one after the other: with ``write``
    row rows[j] of ``levels`` (int32, n a row, flat) gets the levels (-1
    unreached; the row is the visited test); else ``mark`` (int64[n], no
    value in 1 .. j1) is stamped j + 1 where source j arrived.
    ``queue``: int64[n] scratch. count / total / ecc[j]: the vertices
    reached (the source included), the sum and the largest of their
    levels. O(sum over the sources of n + edges reached)"""
    for j in range(j0, j1):
        s = sources[j]
        stamp = np.int64(j) + 1
        base = np.int64(rows[j]) * np.int64(n)
        if write:
            for v in range(n):
                levels[base + v] = -1
            levels[base + s] = 0
        else:
            mark[s] = stamp
        queue[0] = s
        head, tail, level, reached, dist, far = 0, 1, 0, 1, 0, 0
        while head < tail:
            end = tail
            level += 1
            while head < end:
                u = queue[head]
                head += 1
                for p in range(indptr[u], indptr[u + 1]):
                    v = indices[p]
                    if write:
                        if levels[base + v] < 0:
                            levels[base + v] = level
                            queue[tail] = v
                            tail += 1
                    elif mark[v] != stamp:
                        mark[v] = stamp
                        queue[tail] = v
                        tail += 1
            if tail > end:
                reached += tail - end
                dist += (tail - end) * level
                far = level
        count[j] = reached
        total[j] = dist
        ecc[j] = far


def _levels_out(levels, rows, k, n, where):
    """(levels, rows) a launcher writes into: a new (k x n) int32 array and
    rows 0..k-1 when levels is None, else the caller's, checked."""
    if levels is None:
        levels = np.empty((k, n), np.int32)
        rows = np.arange(k, dtype=np.int64)
    if levels.dtype != np.int32 or not levels.flags.c_contiguous:
        raise ValueError(f"msbfs {where}: levels must be a C-contiguous int32 array")
    return levels, arg(rows, np.int64)


def new_state(n, k):
    """Scratch arrays of a batch, reusable for the next one: (nxt, seen,
    frontier) zeroed uint64[n], touched zeroed uint64[ceil(n / 64)], vlev
    int32[n * k] (a 1-element dummy for k = 0: statistics only), buf
    int64[n]. Reusing them saves the page faults of fresh allocations
    (measured ~10 ms per 32 MB)."""
    return (np.zeros(n, np.uint64), np.zeros(n, np.uint64), np.zeros(n, np.uint64),
            np.zeros((n + 63) // 64, np.uint64), np.empty(max(n * k, 1), np.int32),
            np.empty(n, np.int64))


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    # path 0 -> 1 -> 2, plus 3 -> 2: every kernel, both directions, serial
    # and pool chunks, levels written and statistics only
    from bitgraph.formats.csr import CSR, transpose
    a = CSR(np.array([0, 1, 2, 2, 3], index_dtype), np.array([1, 2, 2], index_dtype),
            None, 4, 4)
    t = transpose(a)
    for write in (True, False):
        for alpha in (0.0, 1e9):
            for stop in (0, 1 << 62):
                batch_run(a, t, np.array([0, 3, 0]), write=write, alpha=alpha,
                          stop_work=stop, nchunks=2)


@register("msbfs", fmt="csr", device="cpu", variant="batch", warmup=_warm)
def batch_run(a, t, sources, *, levels=None, rows=None, write=True,
              alpha=0.1, stop_work=1 << 62, nchunks=None, state=None, bu_fail=None):
    """One iBFS batch: BFS from each of ``sources`` (k <= 64) at once.

    a: CSR of the graph (out-edges); t: CSR of its transpose (in-edges);
    sources[k] int64 in [0, n) (repeats allowed). With ``write``, every entry
    of row rows[b] of ``levels`` (a C-contiguous int32 (some rows x n)
    array; default a new (k x n) one, rows = 0..k-1) receives source b's
    level, -1 where unreached. Returns ``(levels, count, total, ecc)``:
    int64[k] vertices reached (source included), sum of their levels,
    largest level (levels is None without ``write``).

    Levels whose work (frontier out-edges top-down, n bottom-up) reaches
    ``stop_work`` run as ``nchunks`` pool chunks (``parallel_map``); the
    others run serially, many in one call. ``alpha``: the first bottom-up
    level comes when the frontier's out-edges exceed alpha * m (module
    docstring); ``bu_fail``: the retreat rule's factor (module docstring;
    None: ``settings.msbfs.bottom_up_fail``). ``state``: the scratch arrays
    of ``new_state(n, k)``, to reuse across batches (left ready for the
    next). O(levels * n + m) time;
    32 n bytes of state, plus 4 n k bytes of vertex-major levels when
    writing.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo, transpose
    >>> a = from_coo(np.array([0, 1, 2]), np.array([1, 2, 0]), None, 4, 4)  # 0->1->2->0, 3 alone
    >>> lv, count, total, ecc = batch_run(a, transpose(a), np.array([0, 2, 3]))
    >>> lv.tolist(), count.tolist(), ecc.tolist()
    ([[0, 1, 2, -1], [1, 2, 0, -1], [-1, -1, -1, 0]], [3, 3, 1], [2, 2, 0])
    """
    from bitgraph.kernels.cpu import even_chunks, indptr_chunks, parallel_for, \
        parallel_map, row_chunks

    n = a.nrows
    indptr, indices, tindptr, tindices = index_args(a.indptr, a.indices,
                                                    t.indptr, t.indices)
    sources = arg(sources, np.int64)
    k = sources.size
    if not 0 < k <= 64:
        raise ValueError(f"msbfs batch_run: a batch holds 1..64 sources, got {k}")
    if write:
        levels, rows = _levels_out(levels, rows, k, n, "batch_run")
    if state is None:
        state = new_state(n, k if write else 0)
    nxt, seen, frontier, touched, vlev, buf = state
    if write and vlev.size < n * k:
        raise ValueError(f"msbfs batch_run: state holds levels for {vlev.size // max(n, 1)}"
                         f" sources, needs {k}")
    uk = np.uint64(k)
    if bu_fail is None:
        from bitgraph.settings import current

        bu_fail = current().msbfs.bottom_up_fail
    st = np.zeros(4, np.int64)
    st[ALPHA_M] = min(alpha * int(indptr[-1]), 2.0**62)
    st[BU_FAIL] = bu_fail
    count = np.zeros(64, np.int64)
    total = np.zeros(64, np.int64)
    ecc = np.zeros(64, np.int64)
    queue, active = msbfs_start(sources, indptr, nxt, seen, frontier, vlev,
                                write, count, st)
    stop = np.uint64(stop_work)
    pull_chunks = None
    while True:
        queue, active = msbfs_run(queue, np.uint64(active), st, indptr, indices,
                                  tindptr, tindices, nxt, seen, frontier, touched,
                                  vlev, uk, write, stop, count, total, ecc, buf)
        if queue.size == 0:
            break
        # one big level on the pool (the same direction rule as msbfs_run)
        st[LEVEL] += 1
        level = st[LEVEL]
        mf = int(st[MF])
        if mf > st[ALPHA_M]:
            if pull_chunks is None:
                pull_chunks = indptr_chunks(tindptr, nchunks)
            res = parallel_map(msbfs_pull, pull_chunks, tindptr, tindices,
                               frontier, seen, nxt, np.uint64(active))
            parts = [r[0] for r in res]
            if sum(int(r[1]) for r in res) > st[BU_FAIL] * mf:
                st[ALPHA_M] = st[BU_FAIL] * mf
            msbfs_clear(np.uint64(0), np.uint64(queue.size), queue, frontier)
        else:
            deg = np.diff(indptr)[queue].astype(np.int64) + 1
            found = parallel_map(msbfs_push, row_chunks(deg, nchunks), queue,
                                 indptr, indices, frontier, seen, nxt, touched)
            parts = [msbfs_queue(touched, sum(found))]
        queue = np.concatenate(parts) if len(parts) > 1 else parts[0]
        if queue.size == 0:
            break
        res = parallel_map(msbfs_settle, even_chunks(queue.size, nchunks), queue,
                           indptr, nxt, seen, frontier, vlev, uk, level, write)
        cnt = np.sum([r[0] for r in res], axis=0)
        active = np.uint64(0)
        for r in res:
            active |= np.uint64(r[1])
        st[MF] = sum(int(r[2]) for r in res)
        count += cnt
        total += cnt * level
        ecc[cnt > 0] = level
    if write:
        flat = levels.reshape(-1)  # a view: the kernels write into levels
        if n * k >= stop_work:
            parallel_for(msbfs_emit, even_chunks(n, nchunks), vlev, seen, uk,
                         rows, flat)
        else:
            msbfs_emit(np.uint64(0), np.uint64(n), vlev, seen, uk, rows, flat)
    seen.fill(0)  # nxt and frontier are zero again once the queue is empty
    return (levels if write else None), count[:k], total[:k], ecc[:k]


def _warm_sources(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR
    a = CSR(np.array([0, 1, 2, 2, 3], index_dtype), np.array([1, 2, 2], index_dtype),
            None, 4, 4)
    for write in (True, False):
        sources_run(a, np.array([0, 3, 0]), write=write, nchunks=2)


@register("msbfs", fmt="csr", device="cpu", variant="sources", warmup=_warm_sources)
def sources_run(a, sources, *, levels=None, rows=None, write=True, nchunks=None):
    """msbfs's schedule "async" on the CPU: BFS from each of ``sources``
    (any number, repeats allowed) alone, top-down, the sources cut into
    ``nchunks`` runs side by side on the pool (default: one a thread),
    each run serial with its own scratch. Where a batch's BFSs rarely meet
    (a mesh's 64 wavefronts) the bit-parallel batch does each vertex's work
    once a source all the same, with a level's overhead on top; this does
    only the work. Returns ``(levels, count, total, ecc)`` as ``batch_run``
    (``levels`` / ``rows`` as there; without ``write`` no levels).
    O(sum over the sources of n + edges reached); scratch 8 n bytes a run
    (16 n without ``write``).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> a = from_coo(np.array([0, 1, 2]), np.array([1, 2, 0]), None, 4, 4)  # 0->1->2->0, 3 alone
    >>> lv, count, total, ecc = sources_run(a, np.array([0, 2, 3]))
    >>> lv.tolist(), count.tolist(), ecc.tolist()
    ([[0, 1, 2, -1], [1, 2, 0, -1], [-1, -1, -1, 0]], [3, 3, 1], [2, 2, 0])
    """
    from bitgraph.kernels.cpu import even_chunks, num_threads, parallel_map

    n = a.nrows
    indptr, indices = index_args(a.indptr, a.indices)
    sources = arg(sources, np.int64)
    k = sources.size
    if write:
        levels, rows = _levels_out(levels, rows, k, n, "sources_run")
    else:
        rows = np.zeros(max(k, 1), np.int64)
    flat = levels.reshape(-1) if write else np.zeros(1, np.int32)
    count, total, ecc = (np.zeros(k, np.int64) for _ in range(3))
    if k == 0:
        return (levels if write else None), count, total, ecc

    def run(j0, j1):
        mark = np.zeros(1 if write else n, np.int64)
        queue = np.empty(max(n, 1), np.int64)
        msbfs_sources(np.int64(j0), np.int64(j1), sources, rows, indptr, indices, flat,
                      np.int64(n), write, mark, queue, count, total, ecc)

    parallel_map(run, even_chunks(k, num_threads() if nchunks is None else nchunks))
    return (levels if write else None), count, total, ecc

