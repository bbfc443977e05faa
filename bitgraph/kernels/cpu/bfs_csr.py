"""BFS levels on CSR, numba: top-down (push) and bottom-up (pull) steps.

The state of a traversal lives in three arrays the steps update in place:
``visited`` (packed uint32 bitmap, bit v of word v >> 5), ``levels`` (int32)
and, when asked, ``parents`` (int64), both written when a vertex is first
visited and never read by the steps. A frontier is either
a queue of vertex ids (top-down) or a packed bitmap (bottom-up);
``queue_to_bits`` / ``bits_to_queue`` convert at a direction switch.

- ``push_levels`` runs whole top-down levels serially, one call for as many
  levels as stay small (BFS-4K's single-block levels: a road network's
  thousands of tiny levels cost one call, not one each), and returns when
  the frontier's out-edge count passes ``max_work``;
- ``push_step`` is one top-down level on the thread pool: chunks of the
  queue of equal edge work, each claiming vertices with an exact atomic
  test-and-set on ``visited`` (``bits.atomic_or``), so no vertex is found
  twice and the next queue is exact (BFS-4K's duplicate removal);
- ``pull_step`` is one bottom-up level: every unvisited vertex scans its
  in-neighbours and stops at the first one in the frontier (XBFS / Beamer's
  early exit); chunks own whole bitmap words, so no atomics are needed.

Each step also returns the out-edge count of the frontier it found, which
the direction rule (``bitgraph.algorithms.breadth_first``) compares with m.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import (
    arg, check_length, even_chunks, index_args, num_threads, parallel_map, row_chunks,
    serial_below,
)
from bitgraph.kernels.cpu.bits import atomic_or, ctz
from bitgraph.kernels.cpu.scalar import cast_like
from bitgraph.kernels.registry import register

__all__ = ["push_levels", "push_step", "pull_step", "queue_to_bits", "bits_to_queue",
           "parents_from_levels"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_W1 = np.uint32(1)


@njit(cache=True, nogil=True)
def _push_levels(indptr, indices, queue, out, qlen, visited, levels, parents,
                 has_parents, level, max_work, max_levels):
    # queue[:qlen] is the frontier at ``level`` (already labelled)
    swapped = False
    cur, nxt = queue, out
    work = _U0
    done = 0
    while qlen > 0:
        work = _U0
        for i in range(qlen):
            u = np.uint64(cur[i])
            work += np.uint64(indptr[u + _U1] - indptr[u])
        if work > max_work or done >= max_levels:
            break
        level += 1
        k = 0
        for i in range(qlen):
            u = cur[i]
            uu = np.uint64(u)
            for e in range(np.uint64(indptr[uu]), np.uint64(indptr[uu + _U1])):
                v = np.uint64(indices[e])
                w = v >> _U5
                bit = _W1 << np.uint32(v & _U31)
                if visited[w] & bit:
                    continue
                visited[w] |= bit
                levels[v] = level
                if has_parents:
                    parents[v] = u
                nxt[k] = indices[e]
                k += 1
        qlen = k
        cur, nxt = nxt, cur
        swapped = not swapped
        done += 1
    return qlen, level, work, swapped


@njit(cache=True, nogil=True)
def _push_chunk(r0, r1, indptr, indices, queue, visited, levels, parents,
                has_parents, level):
    cap = _U0
    for i in range(r0, r1):
        u = np.uint64(queue[i])
        cap += np.uint64(indptr[u + _U1] - indptr[u])
    out = np.empty(cap, queue.dtype)
    k = 0
    for i in range(r0, r1):
        u = queue[i]
        uu = np.uint64(u)
        for e in range(np.uint64(indptr[uu]), np.uint64(indptr[uu + _U1])):
            v = np.uint64(indices[e])
            w = v >> _U5
            bit = _W1 << np.uint32(v & _U31)
            if visited[w] & bit:
                continue
            if atomic_or(visited, w, bit) & bit:
                continue  # another thread claimed it first
            levels[v] = level
            if has_parents:
                parents[v] = u
            out[k] = indices[e]
            k += 1
    return out[:k]


@njit(cache=True, nogil=True)
def _pull_chunk(w0, w1, in_indptr, in_indices, out_indptr, frontier, visited,
                next_bits, levels, parents, has_parents, level, n):
    found = _U0
    work = _U0
    for w in range(w0, w1):
        todo = ~visited[w]
        if w == (n - _U1) >> _U5 and n & _U31:
            todo &= (_W1 << np.uint32(n & _U31)) - _W1  # no bits past n
        nb = np.uint32(0)
        while todo:
            b = ctz(todo)
            todo &= todo - _W1
            v = w * _U32 + b
            for e in range(np.uint64(in_indptr[v]), np.uint64(in_indptr[v + _U1])):
                u = in_indices[e]
                uu = np.uint64(u)
                if (frontier[uu >> _U5] >> np.uint32(uu & _U31)) & _W1:
                    nb |= _W1 << np.uint32(b)
                    levels[v] = level
                    if has_parents:
                        parents[v] = u
                    found += _U1
                    work += np.uint64(out_indptr[v + _U1] - out_indptr[v])
                    break
        next_bits[w] = nb
    return found, work


@njit(cache=True, nogil=True)
def _queue_to_bits(queue, bits):
    for i in range(queue.size):
        v = np.uint64(queue[i])
        bits[v >> _U5] |= _W1 << np.uint32(v & _U31)


@njit(cache=True, nogil=True)
def _bits_to_queue(bits, queue):
    k = 0
    for w in range(bits.size):
        word = bits[w]
        while word:
            queue[k] = cast_like(np.uint64(w) * _U32 + ctz(word), queue[0])
            word &= word - _W1
            k += 1
    return k


@njit(cache=True, nogil=True)
def _parents_chunk(r0, r1, in_indptr, in_indices, levels, parents):
    for v in range(r0, r1):
        lv = levels[v]
        if lv <= 0:
            continue
        for e in range(np.uint64(in_indptr[v]), np.uint64(in_indptr[v + _U1])):
            u = in_indices[e]
            if levels[u] == lv - 1:
                parents[v] = u
                break


def _state_args(visited, levels, parents, n):
    visited = arg(visited, np.uint32)
    check_length("bfs", "visited", visited, (n + 31) // 32, "uint32 words")
    check_length("bfs", "levels", levels, n)
    if parents is None:
        return visited, levels, np.zeros(1, np.int64), False
    check_length("bfs", "parents", parents, n)
    return visited, levels, parents, True


def _check_state(levels, parents):
    # written in place: must be the caller's arrays, of the kernels' dtypes
    if levels.dtype != np.int32 or not levels.flags.c_contiguous:
        raise TypeError("bfs: levels must be a C-contiguous int32 array")
    if parents is not None and (parents.dtype != np.int64 or not parents.flags.c_contiguous):
        raise TypeError("bfs: parents must be a C-contiguous int64 array")


def push_levels(csr, queue, qlen, visited, levels, parents, level, *, max_work,
                max_levels=2**62):
    """Serial top-down levels from ``queue[:qlen]`` (the frontier at ``level``).

    Runs levels while the frontier has at most ``max_work`` out-edges (and at
    most ``max_levels`` levels); returns ``(queue, qlen, level, work)``: the
    frontier reached (a buffer of n entries, its first qlen the frontier at
    ``level``) and its out-edge count. ``queue`` must hold n entries of the
    CSR's index dtype; it is used as one of the two level buffers.
    """
    _check_state(levels, parents)
    n = csr.nrows
    indptr, indices = index_args(csr.indptr, csr.indices)
    if queue.dtype != indices.dtype or queue.size < n:
        raise TypeError(f"push_levels: queue must hold {n} {indices.dtype} entries")
    visited, levels, par, has = _state_args(visited, levels, parents, n)
    out = np.empty(n, indices.dtype)
    qlen, level, work, swapped = _push_levels(
        indptr, indices, queue, out, np.int64(qlen), visited, levels, par, has,
        np.int32(level), np.uint64(min(max_work, 2**63)), np.int64(max_levels))
    return (out if swapped else queue), int(qlen), int(level), int(work)


@register("bfs", fmt="csr", device="cpu", variant="push", warmup=None)
def push_step(csr, queue, visited, levels, parents, level, *, parallel=None):
    """One top-down level: the frontier ``queue`` expands into the vertices
    not in ``visited``, labelled ``level`` (and their parents); returns the
    new queue (ids, the CSR's index dtype, each vertex once)."""
    _check_state(levels, parents)
    n = csr.nrows
    indptr, indices = index_args(csr.indptr, csr.indices)
    queue = arg(queue, indices.dtype)
    visited, levels, par, has = _state_args(visited, levels, parents, n)
    deg = indptr[queue.astype(np.int64) + 1] - indptr[queue]
    if parallel is None:
        parallel = int(deg.sum()) >= serial_below() and num_threads() > 1
    chunks = row_chunks(deg + 1) if parallel else np.array([0, queue.size], np.int64)
    parts = parallel_map(_push_chunk, chunks, indptr, indices, queue, visited, levels,
                         par, has, np.int32(level))
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


@register("bfs", fmt="csr", device="cpu", variant="pull", warmup=None)
def pull_step(in_csr, out_indptr, frontier, visited, levels, parents, level, *,
              parallel=None):
    """One bottom-up level over ``in_csr`` (row v = in-neighbours of v).

    Each vertex not in ``visited`` with an in-neighbour in ``frontier``
    (packed bitmap) gets ``level`` and that neighbour as parent. Returns
    ``(next_bits, found, work)``: the new frontier as a packed bitmap, its
    size, and its out-edge count (from ``out_indptr``). ``visited`` is
    read, not updated (the caller ORs next_bits in).
    """
    _check_state(levels, parents)
    n = in_csr.nrows
    in_indptr, in_indices, out_indptr = index_args(in_csr.indptr, in_csr.indices, out_indptr)
    frontier = arg(frontier, np.uint32)
    check_length("pull_step", "frontier", frontier, (n + 31) // 32, "uint32 words")
    visited, levels, par, has = _state_args(visited, levels, parents, n)
    nwords = (n + 31) // 32
    next_bits = np.empty(nwords, np.uint32)
    if parallel is None:
        parallel = in_csr.indices.size >= serial_below() and num_threads() > 1
    chunks = even_chunks(nwords, num_threads() * 8) if parallel else np.array([0, nwords], np.int64)
    parts = parallel_map(_pull_chunk, chunks, in_indptr, in_indices, out_indptr, frontier,
                         visited, next_bits, levels, par, has, np.int32(level), np.uint64(n))
    found = sum(int(p[0]) for p in parts)
    work = sum(int(p[1]) for p in parts)
    return next_bits, found, work


@register("convert", fmt="queue", device="cpu", variant="to_bitmap")
def queue_to_bits(queue, n):
    """The packed uint32 bitmap of n bits with the ids of ``queue`` set.

    >>> queue_to_bits(np.array([0, 3, 33]), 40).tolist()
    [9, 2]
    """
    bits = np.zeros((n + 31) // 32, np.uint32)
    q = np.asarray(queue)
    _queue_to_bits(arg(q, np.int64 if q.dtype.itemsize > 4 else np.int32), bits)
    return bits


@register("convert", fmt="bitmap", device="cpu", variant="to_queue")
def bits_to_queue(bits, n, dtype=np.int32):
    """The ids of the set bits of a packed bitmap, ascending, as ``dtype``.

    >>> bits_to_queue(np.array([9, 2], np.uint32), 40).tolist()
    [0, 3, 33]
    """
    bits = arg(bits, np.uint32)
    queue = np.empty(n, np.dtype(dtype))
    k = _bits_to_queue(bits, queue)
    return queue[:k]


@register("bfs", fmt="csr", device="cpu", variant="parents", warmup=None)
def parents_from_levels(in_csr, levels, parents=None):
    """A BFS tree from levels: each reached v != source gets an in-neighbour
    one level up (the first in ``in_csr`` row order). Returns int64 parents
    (-1 where unreached; the source keeps what ``parents`` held, else -1)."""
    n = in_csr.nrows
    check_length("parents_from_levels", "levels", levels, n)
    in_indptr, in_indices = index_args(in_csr.indptr, in_csr.indices)
    levels = arg(levels, np.int32)
    if parents is None:
        parents = np.full(n, -1, np.int64)
    chunks = row_chunks(np.diff(in_indptr) + 1) if in_indices.size >= serial_below() \
        else np.array([0, n], np.int64)
    parallel_map(_parents_chunk, chunks, in_indptr, in_indices, levels, parents)
    return parents


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR

    it = np.dtype(index_dtype)
    csr = CSR(np.array([0, 1, 2], it), np.array([1, 0], it), None, 2, 2)
    for par in (None, np.full(2, -1, np.int64)):
        levels = np.array([0, -1], np.int32)
        visited = np.array([1], np.uint32)
        q = np.zeros(2, it)
        push_levels(csr, q, 1, visited, levels, par, 0, max_work=10)
        levels[:] = [0, -1]
        visited[:] = 1
        push_step(csr, np.array([0], it), visited, levels, par, 1, parallel=False)
        pull_step(csr, csr.indptr, np.array([1], np.uint32), np.array([1], np.uint32),
                  levels, par, 1, parallel=False)
    parents_from_levels(csr, np.array([0, 1], np.int32))
    queue_to_bits(np.array([1], it), 2)
    bits_to_queue(np.array([3], np.uint32), 2, it)


# the warm-up of push_levels compiles the whole module (no kernel here
# depends on the value dtype)
register("bfs", fmt="csr", device="cpu", variant="push_levels", warmup=_warm)(push_levels)
