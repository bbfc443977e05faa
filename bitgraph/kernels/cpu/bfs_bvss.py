"""One Blest BFS step on BVSS (pull), numba: the portable reference of the
tensor-core kernel.

M is the BVSS of A' (row u holds the in-neighbours of u). For each active
VSS v of the queue, with ``alpha`` the frontier word of its slice set
(sigma bits), lane l's word ``masks[32 v + l]`` holds 32 // sigma slices;
``word & spread(alpha)`` (alpha copied into every slot) is non-zero in a
slot exactly when that slice's row has an in-neighbour in the frontier:
the "SIMT twin" of the two m8n8k128 ``and.popc`` MMAs, same answer. Such a
row, if unvisited, joins the next frontier.

Two ways to gather the discovered rows, as Blest's two update modes:

- a small queue (< ``settings.cpu.bvss_parallel_queue`` VSSs; high-diameter graphs spend most
  levels here) runs serially and lists the rows it finds; a serial pass sets
  their next-frontier bits once and pushes the VSSs of every slice set whose
  frontier word became non-zero (eager, Algorithm 2): O(found) besides
  zeroing the n-bit result;
- a large queue runs in chunks on the thread pool, each setting the rows it
  finds in a bitmap of its own; the bitmaps are OR-ed, visited rows
  cleared, and the next queue is every VSS of the slice sets whose word is
  non-zero (lazy, Algorithm 3: one sweep over the n/32 words, which the
  level's work dwarfs). A row met through many slice sets (~10x on kron) is
  one bit, not a list entry each time.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import arg, check_length, even_chunks, parallel_map
from bitgraph.kernels.cpu.bits import bits_at
from bitgraph.kernels.cpu.scalar import bitmap_get
from bitgraph.kernels.registry import register

__all__ = ["bvss_step"]

_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


@njit(inline="always")
def _scan(q0, q1, queue, virtual_to_real, row_ids, masks, sigma, spw,
          frontier, visited, out_list, out_bits, to_bits):
    # rows of VSSs queue[q0:q1] with a frontier in-neighbour, not visited:
    # into out_bits (to_bits) or appended to out_list (returned, trimmed)
    full = (_U1 << sigma) - _U1
    n = 0
    for qi in range(q0, q1):
        v = np.uint64(queue[qi])
        alpha = bits_at(frontier, np.uint64(virtual_to_real[v]) * sigma, full)
        if not alpha:
            continue
        spread = np.uint64(0)
        for s in range(spw):
            spread |= alpha << (np.uint64(s) * sigma)
        for lane in range(32):
            w = v * _U32 + np.uint64(lane)
            hit = np.uint64(masks[w]) & spread
            if not hit:
                continue
            for s in range(spw):
                if (hit >> (np.uint64(s) * sigma)) & full:
                    u = np.uint64(row_ids[w * spw + np.uint64(s)])
                    if bitmap_get(visited, u):
                        continue
                    if to_bits:
                        out_bits[u >> _U5] |= np.uint32(1) << np.uint32(u & _U31)
                    else:
                        if n == out_list.size:
                            bigger = np.empty(2 * n, np.uint32)
                            bigger[:n] = out_list
                            out_list = bigger
                        out_list[n] = u
                        n += 1
    return out_list[:n]


@njit(cache=True, nogil=True)
def _discover_list(q0, q1, queue, virtual_to_real, row_ids, masks, sigma,
                   spw, frontier, visited):
    return _scan(q0, q1, queue, virtual_to_real, row_ids, masks, sigma, spw,
                 frontier, visited, np.empty(64, np.uint32),
                 np.zeros(1, np.uint32), False)


@njit(cache=True, nogil=True)
def _discover_bits(q0, q1, queue, virtual_to_real, row_ids, masks, sigma,
                   spw, frontier, visited):
    bits = np.zeros(visited.size, np.uint32)
    _scan(q0, q1, queue, virtual_to_real, row_ids, masks, sigma, spw,
          frontier, visited, np.empty(1, np.uint32), bits, True)
    return bits


@njit(cache=True, nogil=True)
def _finalize(found, visited, sigma, real_ptrs, next_bits):
    # set the next-frontier bits of the discovered rows; return the queue of
    # the VSSs of every slice set whose frontier word became non-zero
    full = (_U1 << sigma) - _U1
    blocks = np.empty(found.size, np.int64)
    nb = 0
    for x in found:
        u = np.uint64(x)
        if bitmap_get(next_bits, u) or bitmap_get(visited, u):
            continue
        blk = u // sigma
        if bits_at(next_bits, blk * sigma, full) == 0:
            blocks[nb] = blk
            nb += 1
        next_bits[u >> _U5] |= np.uint32(1) << np.uint32(u & _U31)
    blocks = np.sort(blocks[:nb])
    nq = 0
    for b in blocks:
        if b < real_ptrs.size - 1:  # a row past the last column block has no VSS
            nq += real_ptrs[b + 1] - real_ptrs[b]
    queue = np.empty(nq, np.int32)
    q = 0
    for b in blocks:
        if b < real_ptrs.size - 1:
            for v in range(real_ptrs[b], real_ptrs[b + 1]):
                queue[q] = v
                q += 1
    return queue


def _warm_step(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR
    from bitgraph.kernels import convert
    b = convert.bvss(CSR(np.array([0, 1, 2]), np.array([1, 0]), None, 2, 2))
    bvss_step(b, np.array([1], np.uint32), np.array([1], np.uint32),
              np.array([0], np.int32))


@register("bfs", fmt="bvss", device="cpu", variant="step", warmup=_warm_step)
def bvss_step(b, frontier, visited, queue, *, parallel=None):
    """One pull BFS step on BVSS ``b`` (of A'): ``(next_bits, next_queue)``.

    frontier: packed uint32 bitmap over b's columns (the current frontier);
    visited: packed uint32 bitmap over b's rows (read only); queue: int32
    ids of the VSSs to visit (those of slice sets with a frontier bit).
    next_bits: the new frontier (rows with a frontier in-neighbour, not
    visited), packed uint32 over the rows; next_queue: int32 VSS ids of the
    slice sets whose frontier word in ``next_bits`` is non-zero, ascending
    (for a square M, the queue of the next step). O(|queue| * 32 + found).
    parallel: None runs a queue of at least ``settings.cpu.bvss_parallel_queue``
    VSSs on the thread pool.

    >>> import numpy as np
    >>> from bitgraph.kernels import convert
    >>> from bitgraph.formats.csr import from_coo, transpose
    >>> A = from_coo(np.array([0, 0, 9]), np.array([1, 9, 3]), None, 10, 10)  # 0->1, 0->9, 9->3
    >>> b = convert.bvss(transpose(A))                                     # rows: in-neighbours
    >>> f = np.array([1], np.uint32)                                         # frontier {0}
    >>> nxt, q = bvss_step(b, f, f, np.arange(b.real_ptrs[0], b.real_ptrs[1], dtype=np.int32))
    >>> np.flatnonzero(np.unpackbits(nxt.view(np.uint8), bitorder="little")).tolist(), q.tolist()
    ([1, 9], [0, 1])
    """
    sigma = b.sigma
    spw = 32 // sigma
    frontier = arg(frontier, np.uint32)
    visited = arg(visited, np.uint32)
    queue = arg(queue, np.int32)
    check_length("bvss_step", "frontier", frontier, (b.ncols + 31) // 32, "uint32 words")
    check_length("bvss_step", "visited", visited, (b.nrows + 31) // 32, "uint32 words")
    if queue.size and not (0 <= int(queue.min()) and int(queue.max()) < b.n_vss):
        bad = int(queue.min()) if int(queue.min()) < 0 else int(queue.max())
        raise ValueError(f"bvss_step: queue holds VSS id {bad}, outside [0, {b.n_vss})")
    real_ptrs = arg(b.real_ptrs, np.int32)
    args = (queue, arg(b.virtual_to_real, np.int32), arg(b.row_ids, np.uint32),
            arg(b.masks, np.uint32), np.uint64(sigma), np.uint64(spw),
            frontier, visited)
    if parallel is None:
        from bitgraph.settings import current
        parallel = queue.size >= current().cpu.bvss_parallel_queue
    if not parallel or queue.size == 0:
        found = _discover_list(np.uint64(0), np.uint64(queue.size), *args)
        next_bits = np.zeros(visited.size, np.uint32)
        return next_bits, _finalize(found, visited, np.uint64(sigma), real_ptrs, next_bits)
    parts = parallel_map(_discover_bits, even_chunks(queue.size), *args)
    next_bits = np.bitwise_or.reduce(parts, axis=0) if len(parts) > 1 else parts[0]
    next_bits &= ~visited
    from bitgraph.formats.bvss import frontier_words

    blocks = np.flatnonzero(frontier_words(next_bits, b)[:real_ptrs.size - 1])
    starts, ends = real_ptrs[blocks].astype(np.int64), real_ptrs[blocks + 1].astype(np.int64)
    lens = ends - starts
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return next_bits, (offsets + np.arange(int(lens.sum()))).astype(np.int32)
