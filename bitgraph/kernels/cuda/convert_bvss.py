"""BVSS built on the GPU from a device CSR: the CPU builder's arrays
(``kernels/cpu/convert_bvss.py``), identical.

``from_csr_arrays`` is the array formulation: one sort of (column block,
row, bit) keys, run starts, a prefix sum for the slices' masks (a slice's
bits are distinct powers of two, so the sum of a run is its OR) and one
scatter into unique slots; it runs on numpy (``xp=numpy``), which is how the
CPU tests check it against the numba builder. On the GPU ``bvss_from_csr``
runs the same steps by our own kernels (``convert_bvss.cu``) around CuPy's
sort, so that a fresh machine compiles none of CuPy's elementwise and scan
kernels (44, 7.4 s of a first blest bfs on an H200); the per-block prefix
sums run on the host (8 bytes a column block each way).
"""

from __future__ import annotations

import numpy as np

from bitgraph.formats.bvss import PAD_ROW
from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.registry import register

__all__ = ["bvss_from_csr", "from_csr_arrays", "divergence"]

_SOURCE = "convert_bvss.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"bvss_keys<{p}, {i}>" for p in _INDEX.values() for i in _INDEX.values()) + (
    "bvss_starts", "bvss_slices", "bvss_place", "bvss_v2r", "bvss_divergence")
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)


def _fn(name):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[name])


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
    """``(real_ptrs, virtual_to_real, row_ids, masks)`` of a CSR of CuPy
    arrays (CuPy arrays), equal to ``from_csr_arrays`` and the CPU
    builder's. O(nnz log nnz) (the sort); ~40 bytes an entry at peak.

    >>> p, v2r, rid, m = bvss_from_csr(csr_on_gpu, 8)  # doctest: +SKIP
    """
    import cupy

    from bitgraph.device import oom_guard

    if sigma not in (4, 8, 16, 32):
        raise ValueError(f"BVSS: sigma={sigma!r} must be one of 4, 8, 16, 32")
    if A.nrows >= PAD_ROW:
        raise ValueError(f"BVSS: {A.nrows} rows do not fit its uint32 row ids")
    pt, it = _INDEX.get(A.indptr.dtype), _INDEX.get(A.indices.dtype)
    if pt is None or it is None:
        raise ValueError(f"BVSS: index arrays must be int32 or int64, got {A.indptr.dtype} and"
                         f" {A.indices.dtype}")
    nnz = int(A.indices.shape[0])
    # the sort keys, the run starts, the slices and the slots: ~40 bytes per entry at peak
    with oom_guard("BVSS from CSR", 40 * nnz + 16 * A.ncols):
        return _build(cupy, A, sigma, pt, it, nnz)


def _build(cupy, A, sigma, pt, it, nnz):
    from bitgraph.kernels.cuda import graph_prep

    spw = 32 // sigma
    tau = 32 * spw
    nrows, nblocks = A.nrows, -(-A.ncols // sigma)
    key = cupy.empty(nnz, cupy.int64)
    if nnz:
        _fn(f"bvss_keys<{pt}, {it}>")(*shape(32 * nrows), (A.indptr, A.indices, key,
                                                           np.int64(nrows), np.int32(sigma)))
    key.sort()  # CuPy's own sort, in place: built into CuPy, nothing compiled here
    nwords = (nnz + 31) // 32
    words = cupy.empty(nwords, cupy.uint32)
    if nwords:
        _fn("bvss_starts")(*shape(nwords), (key, words, np.int64(nnz), np.int32(sigma)))
    nslices = graph_prep.popcount_words(words)
    first = graph_prep.bit_indices(words, nslices)
    del words
    skey = cupy.empty(nslices, cupy.int64)
    mask = cupy.empty(nslices, cupy.uint32)
    counts = cupy.zeros(nblocks, cupy.uint64)
    if nslices:
        _fn("bvss_slices")(*shape(nslices), (key, first, np.int64(nslices), np.int64(nnz),
                                             np.int64(nrows), np.int32(sigma), skey, mask,
                                             counts))
    del key, first
    # the per-block prefix sums on the host: a block's VSSs and its first slice
    c = counts.get().astype(np.int64)
    real_ptrs = np.zeros(nblocks + 1, np.int64)
    np.cumsum((c + tau - 1) // tau, out=real_ptrs[1:])
    n_vss = int(real_ptrs[-1])
    if n_vss >= 2**31:
        raise ValueError(f"BVSS: {n_vss} virtual slice sets do not fit int32 ids")
    slice_start = np.zeros(nblocks + 1, np.int64)
    np.cumsum(c, out=slice_start[1:])
    ptrs = cupy.asarray(real_ptrs)
    row_ids = cupy.empty(n_vss * tau, cupy.uint32)
    row_ids.data.memset_async(0xFF, row_ids.nbytes)  # PAD_ROW in every byte
    masks = cupy.zeros(n_vss * 32, cupy.uint32)
    if nslices:
        _fn("bvss_place")(*shape(nslices), (skey, mask, np.int64(nslices), np.int64(nrows),
                                            np.int32(sigma), ptrs, cupy.asarray(slice_start),
                                            row_ids, masks))
    v2r = cupy.empty(n_vss, cupy.int32)
    if n_vss:
        _fn("bvss_v2r")(*shape(nblocks), (ptrs, np.int64(nblocks), v2r))
    return cupy.asarray(real_ptrs.astype(np.int32)), v2r, row_ids.reshape(n_vss, 32, spw), masks


@register("bvss_divergence", fmt="bvss", device="cuda", variant="float64")
def divergence(row_ids):
    """Blest's update divergence of a BVSS's ``row_ids`` (CuPy, shape
    ``(n_vss, 32, spw)``): ``formats.bvss.update_divergence``'s value, a
    VSS a thread, the mean over VSSs on the host (one read back). O(n_vss *
    32 * spw)

    >>> divergence(b.row_ids)  # doctest: +SKIP
    2.0
    """
    import cupy

    n_vss = int(row_ids.shape[0])
    if n_vss == 0:
        return 0.0
    per = cupy.empty(n_vss, cupy.float64)
    _fn("bvss_divergence")(*shape(n_vss), (cupy.ascontiguousarray(row_ids), np.int64(n_vss),
                                           np.int32(row_ids.shape[2]), per))
    return float(per.get().sum()) / n_vss  # synchronize!
