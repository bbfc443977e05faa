"""One Blest BFS step on BVSS (pull), numba: the portable reference of the
tensor-core kernel.

M is the BVSS of A' (row u holds the in-neighbours of u). For each active
VSS v of the queue, with ``alpha`` the frontier word of its slice set
(sigma bits), lane l's word ``masks[32 v + l]`` holds 32 // sigma slices;
``word & spread(alpha)`` (alpha copied into every slot) is non-zero in a
slot exactly when that slice's row has an in-neighbour in the frontier:
the "SIMT twin" of the two m8n8k128 ``and.popc`` MMAs, same answer. Such a
row, if unvisited, joins the next frontier.

Eager update, as Blest's Algorithm 2: each chunk of the queue collects the
rows it discovers; a serial pass then sets their next-frontier bits once
(duplicates and visited rows dropped) and pushes the VSSs of every slice
set whose frontier word became non-zero, in ascending slice-set order.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import arg, even_chunks, parallel_map
from bitgraph.kernels.cpu.bits import bits_at
from bitgraph.kernels.cpu.scalar import bitmap_get
from bitgraph.kernels.registry import register

__all__ = ["bvss_step"]

_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U31 = np.uint64(31)
_U32 = np.uint64(32)


@njit(cache=True, nogil=True)
def _discover(q0, q1, queue, virtual_to_real, row_ids, masks, sigma, spw,
              frontier, visited):
    # rows discovered by VSSs queue[q0:q1] (may repeat; visited ones dropped)
    full = (_U1 << sigma) - _U1
    out = np.empty(64, np.uint32)
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
                    u = row_ids[w * spw + np.uint64(s)]
                    if bitmap_get(visited, u):
                        continue
                    if n == out.size:
                        bigger = np.empty(2 * n, np.uint32)
                        bigger[:n] = out
                        out = bigger
                    out[n] = u
                    n += 1
    return out[:n]


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
    from bitgraph.formats import bvss
    from bitgraph.formats.csr import CSR
    b = bvss.from_csr(CSR(np.array([0, 1, 2]), np.array([1, 0]), None, 2, 2))
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
    """
    sigma = b.sigma
    spw = 32 // sigma
    frontier = arg(frontier, np.uint32)
    visited = arg(visited, np.uint32)
    queue = arg(queue, np.int32)
    if parallel is None:
        parallel = queue.size >= 256
    chunks = even_chunks(queue.size) if parallel else np.array([0, queue.size], np.int64)
    row_ids = arg(b.row_ids, np.uint32)
    masks = arg(b.masks, np.uint32)
    v2r = arg(b.virtual_to_real, np.int32)
    parts = parallel_map(_discover, chunks, queue, v2r, row_ids, masks,
                         np.uint64(sigma), np.uint64(spw), frontier, visited) \
        if queue.size else []
    found = np.concatenate(parts) if parts else np.zeros(0, np.uint32)
    next_bits = np.zeros((b.nrows + 31) // 32, np.uint32)
    next_queue = _finalize(found, visited, np.uint64(sigma),
                           arg(b.real_ptrs, np.int32), next_bits)
    return next_bits, next_queue
