"""BVSS built on the GPU from a device CSR: the CPU builder's arrays
(``kernels/cpu/convert_bvss.py``), identical, by array operations.

No custom kernel: one sort of (column block, row, bit) keys, run starts,
a prefix sum for the slices' masks (a slice's bits are distinct powers of
two, so the sum of a run is its OR) and one scatter into unique slots. The
same code runs on numpy (``xp=numpy``), which is how the CPU tests check it
against the numba builder.
"""

from __future__ import annotations


from bitgraph.formats.bvss import PAD_ROW, update_divergence
from bitgraph.kernels.registry import register

__all__ = ["bvss_from_csr", "from_csr_arrays"]


def from_csr_arrays(A, sigma, xp):
    """``(real_ptrs, virtual_to_real, row_ids, masks)`` of CSR ``A`` (arrays
    of module ``xp``), the layout of ``formats.bvss``.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> p, v2r, rid, m = from_csr_arrays(from_coo(np.array([0, 0, 2]), np.array([1, 9, 3]),
    ...                                            None, 3, 10), 8, np)
    >>> p.tolist(), v2r.tolist(), m[[0, 1, 32]].tolist(), rid[0, :2, 0].tolist()
    ([0, 1, 2], [0, 1], [2, 8, 2], [0, 2])
    """
    if sigma not in (4, 8, 16, 32):
        raise ValueError(f"BVSS: sigma={sigma!r} must be one of 4, 8, 16, 32")
    if A.nrows >= PAD_ROW:
        raise ValueError(f"BVSS: {A.nrows} rows do not fit its uint32 row ids")
    spw = 32 // sigma
    tau = 32 * spw
    nrows, nblocks = A.nrows, -(-A.ncols // sigma)
    nnz = int(A.indices.shape[0])
    cols = A.indices.astype(xp.int64)
    # the row of each entry (CuPy's repeat takes no array of counts)
    rows = xp.searchsorted(A.indptr[1:].astype(xp.int64), xp.arange(nnz, dtype=xp.int64),
                           side="right")
    # key = (block, row) with the bit below: sorted, slices come out by
    # block then row, their bits together
    key = xp.sort((cols // sigma * nrows + rows) * sigma + cols % sigma)
    del rows, cols
    bit = (key % sigma).astype(xp.int64)
    key //= sigma
    start = xp.ones(nnz, dtype=bool)
    if nnz:
        start[1:] = key[1:] != key[:-1]
    first = xp.flatnonzero(start)  # entry index of each slice's first bit
    nslices = int(first.shape[0])
    csum = xp.cumsum(xp.left_shift(xp.int64(1), bit))  # <= 2^32 * nnz: fits int64
    del bit
    ends = xp.empty(nslices, xp.int64)
    if nslices:
        ends[:-1] = first[1:] - 1
        ends[-1] = nnz - 1
    mask = csum[ends] - xp.where(first > 0, csum[first - 1], 0)
    del csum, ends
    skey = key[first]
    del key, start, first
    block = skey // nrows if nrows else skey
    srow = skey - block * nrows
    counts = xp.bincount(block, minlength=nblocks)[:nblocks] if nslices else \
        xp.zeros(nblocks, xp.int64)
    nvss = (counts + tau - 1) // tau
    real_ptrs = xp.zeros(nblocks + 1, xp.int64)
    xp.cumsum(nvss, out=real_ptrs[1:])
    n_vss = int(real_ptrs[-1])
    if n_vss >= 2**31:
        raise ValueError(f"BVSS: {n_vss} virtual slice sets do not fit int32 ids")
    slice_start = xp.zeros(nblocks + 1, xp.int64)
    xp.cumsum(counts, out=slice_start[1:])
    j = xp.arange(nslices, dtype=xp.int64) - slice_start[block]  # rank in its set
    vss = real_ptrs[block] + j // tau
    k = j % tau
    # slot k of VSS v at [v, k % 32, k // 32]: flat index (32 v + k % 32) * spw + k // 32
    pos = (vss * 32 + k % 32) * spw + k // 32
    del j, vss, k, block
    row_ids = xp.full(n_vss * tau, PAD_ROW, xp.uint32)
    row_ids[pos] = srow.astype(xp.uint32)
    slots = xp.zeros(n_vss * tau, xp.uint32)
    slots[pos] = mask.astype(xp.uint32)
    del pos, mask, srow
    slots = slots.reshape(n_vss * 32, spw)
    masks = slots[:, 0].copy()
    for s in range(1, spw):
        masks |= slots[:, s] << xp.uint32(s * sigma)
    virtual_to_real = xp.searchsorted(real_ptrs[1:], xp.arange(n_vss, dtype=xp.int64),
                                      side="right").astype(xp.int32)
    return (real_ptrs.astype(xp.int32), virtual_to_real, row_ids.reshape(n_vss, 32, spw),
            masks)


@register("convert", fmt="bvss", device="cuda", variant="from_csr")
def bvss_from_csr(A, sigma=8):
    """The CPU launcher's result for a CSR of CuPy arrays (CuPy arrays)."""
    import cupy

    from bitgraph.device import oom_guard

    nnz = int(A.indices.shape[0])
    # the sort keys, the prefix sums and the slots: ~40 bytes per entry at peak
    with oom_guard("BVSS from CSR", 40 * nnz + 16 * A.ncols):
        return from_csr_arrays(A, sigma, cupy)
