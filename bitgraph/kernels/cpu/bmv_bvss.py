"""Boolean matrix-vector product on BVSS, numba: Blest's top-down step as an
mxv (``method="tensor_core"``), the portable twin of ``kernels/cuda/bmv_bvss.cu``.

t = M (+).(x) x for a structure-only M held as BVSS (``formats.bvss``), for
the semirings whose products of M's ones reduce to "some bit in common"
(``plan.bit_kernel`` "ones" and "lor_x"). For each VSS v of a column block
with frontier bits, ``alpha`` the block's sigma bits of ``x_present``, lane
l's word ``masks[32 v + l]`` holds 32 // sigma slices; ``word &
spread(alpha)`` (alpha copied into every slot) is non-zero in a slot exactly
when that slice's row has a column in common with x: the SIMT twin of the
two m8n8k128 ``and.popc`` MMAs, same answer. Such a row, if the mask allows
it, is present; with ``x_true`` it is true when the same test passes against
``x_present & x_true``.

Only the VSSs of blocks with frontier bits are visited: their ids are
listed from ``real_ptrs`` first (O(ncols / sigma) array operations), then
scanned in chunks on the thread pool; chunks write ``True`` into the shared
result bytes, every writer the same value.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import (
    arg, bitmap_arg, check_bmv_vectors, even_chunks, parallel_for, serial_below,
)
from bitgraph.kernels.cpu.bits import bits_at
from bitgraph.kernels.cpu.scalar import bitmap_get
from bitgraph.kernels.registry import register

__all__ = ["bmv_bvss", "active_vss"]

_U1 = np.uint64(1)
_U32 = np.uint64(32)


@njit(cache=True, nogil=True)
def _bvss_rows(q0, q1, queue, virtual_to_real, row_ids, masks, sigma, spw, x_present, x_true,
               same, allowed, has_allowed, t_present, t_true):
    # VSSs queue[q0:q1]: rows with a slice meeting x_present (and
    # x_present & x_true), allowed, set in t_present (t_true)
    full = (_U1 << sigma) - _U1
    for qi in range(q0, q1):
        v = np.uint64(queue[qi])
        c0 = np.uint64(virtual_to_real[v]) * sigma
        alpha = bits_at(x_present, c0, full)
        if not alpha:
            continue
        alpha_true = alpha if same else alpha & bits_at(x_true, c0, full)
        spread = np.uint64(0)
        spread_true = np.uint64(0)
        for s in range(spw):
            spread |= alpha << (np.uint64(s) * sigma)
            spread_true |= alpha_true << (np.uint64(s) * sigma)
        for lane in range(32):
            w = v * _U32 + np.uint64(lane)
            word = np.uint64(masks[w])
            hit = word & spread
            if not hit:
                continue
            hit_true = word & spread_true
            for s in range(spw):
                shift = np.uint64(s) * sigma
                if (hit >> shift) & full:
                    u = np.uint64(row_ids[w * spw + np.uint64(s)])
                    if has_allowed and not bitmap_get(allowed, u):
                        continue
                    t_present[u] = True
                    if not same and (hit_true >> shift) & full:
                        t_true[u] = True


def active_vss(b, x_present):
    """int64 ids, ascending, of the VSSs of the column blocks of BVSS ``b``
    with a bit set in the packed bitmap ``x_present`` (over b's columns).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> from bitgraph.kernels import convert
    >>> b = convert.bvss(from_coo(np.array([0, 0, 2]), np.array([1, 9, 3]), None, 3, 10))
    >>> active_vss(b, np.array([1 << 9], np.uint32)).tolist()
    [1]
    """
    from bitgraph.formats.bvss import frontier_words

    real_ptrs = np.asarray(b.real_ptrs, np.int64)
    nblocks = real_ptrs.size - 1
    blocks = np.flatnonzero(frontier_words(x_present, b)[:nblocks])
    starts = real_ptrs[blocks]
    lens = real_ptrs[blocks + 1] - starts
    offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
    return offsets + np.arange(int(lens.sum()), dtype=np.int64)


def _warm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR
    from bitgraph.kernels import convert

    b = convert.bvss(CSR(np.array([0, 1, 2]), np.array([1, 0]), None, 2, 2))
    one = np.array([1], np.uint32)
    bmv_bvss(b, one, None, None)
    bmv_bvss(b, one, one, one)


@register("mxv", fmt="bvss", device="cpu", variant="tensor_core", warmup=_warm)
def bmv_bvss(b, x_present, x_true, allowed, *, parallel=None):
    """(t_true, t_present) bool[nrows] of BVSS ``b``: row r is present when
    it has a column in common with the packed bitmap ``x_present`` (over b's
    columns) and true when it has one with ``x_present & x_true``
    (``x_true`` None: true = present, and the two are one array);
    ``allowed``: packed row bitmap or None (rows not allowed: False). As
    ``kernels.cpu.bmv_b2sr.bmv_bin_bin_bin`` on B2SR, equal results; the
    CUDA launcher runs the step on tensor cores. O(ncols / sigma + 32 *
    (VSSs of the blocks with bits in x_present)).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> from bitgraph.kernels import convert
    >>> b = convert.bvss(from_coo(np.array([0, 0, 2]), np.array([1, 9, 3]), None, 3, 10))
    >>> t_true, t_present = bmv_bvss(b, np.array([1 << 9], np.uint32), None, None)
    >>> t_present.tolist()
    [True, False, False]
    """
    check_bmv_vectors("mxv(tensor_core, cpu)", b, x_present, allowed, x_true)
    sigma = b.sigma
    spw = 32 // sigma
    x_present = arg(x_present, np.uint32)
    same = x_true is None
    x_true = x_present if same else arg(x_true, np.uint32)
    allowed, has_allowed = bitmap_arg(allowed)
    t_present = np.zeros(b.nrows, np.bool_)
    t_true = t_present if same else np.zeros(b.nrows, np.bool_)
    queue = active_vss(b, x_present)
    if queue.size == 0:
        return t_true, t_present
    args = (queue, arg(b.virtual_to_real, np.int32), arg(b.row_ids, np.uint32),
            arg(b.masks, np.uint32), np.uint64(sigma), np.uint64(spw), x_present, x_true,
            same, allowed, has_allowed, t_present, t_true)
    if parallel is None:
        parallel = queue.size * 32 >= serial_below()
    chunks = even_chunks(queue.size) if parallel else np.array([0, queue.size], np.int64)
    parallel_for(_bvss_rows, chunks, *args)
    return t_true, t_present
