"""CSR <-> BVSS conversions and the update-divergence statistic (numba).

The layout is ``bitgraph.formats.bvss``'s. Specialised on the CSR index
dtype only (the BVSS arrays are always int32 / uint32): 2 per kernel.
"""

import numpy as np
from numba import njit

from bitgraph import _array as ar
from bitgraph.formats import bvss as bvss_format
from bitgraph.kernels.cpu import arg, index_args
from bitgraph.kernels.cpu.bits import ctz, popcount
from bitgraph.kernels.cpu.scalar import cast_like
from bitgraph.kernels.registry import CSR, register

__all__ = ["bvss_from_csr", "bvss_to_csr", "update_divergence", "PAD_ROW"]

# row id of a padding slot (its mask is 0, so no kernel ever uses the id)
PAD_ROW = np.uint32(bvss_format.PAD_ROW)
_U1 = np.uint64(1)
_U32 = np.uint64(32)


@njit(cache=True, nogil=True)
def _count_slices(indptr, indices, sigma, counts):
    # counts[i] = rows with an entry in column block i (= slices of set i)
    for r in range(indptr.size - 1):
        last = np.uint64(0xFFFFFFFFFFFFFFFF)
        for p in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
            b = np.uint64(indices[p]) // sigma
            if b != last:
                counts[b] += 1
                last = b


@njit(cache=True, nogil=True)
def _fill_slices(indptr, indices, sigma, spw, real_ptrs, masks, row_ids):
    # Rows in order, so each slice set's slices come out sorted by row.
    # Slice j of set i: VSS v = real_ptrs[i] + j // tau, k = j % tau, at
    # word 32 v + k % 32, slot k // 32 (bits slot*sigma .. +sigma).
    nblocks = real_ptrs.size - 1
    tau = _U32 * spw
    cursor = np.zeros(nblocks, np.uint64)
    for r in range(indptr.size - 1):
        p = np.uint64(indptr[r])
        end = np.uint64(indptr[r + 1])
        while p < end:
            b = np.uint64(indices[p]) // sigma
            m = np.uint64(0)
            while p < end and np.uint64(indices[p]) // sigma == b:
                m |= _U1 << (np.uint64(indices[p]) - b * sigma)
                p += _U1
            j = cursor[b]
            cursor[b] = j + _U1
            k = j % tau
            word = (np.uint64(real_ptrs[b]) + j // tau) * _U32 + k % _U32
            slot = k // _U32
            masks[word] = cast_like(np.uint64(masks[word]) | (m << (slot * sigma)), masks[word])
            row_ids[word * spw + slot] = cast_like(r, row_ids[0])


def _warm_convert(dtype, index_dtype):
    if dtype != np.bool_:
        return
    A = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 9], index_dtype),
            None, 2, 10)
    bvss_from_csr(A, 8)
    b = bvss_format.BVSS(*bvss_from_csr(A, 8), 8, 2, 10)
    bvss_to_csr(b)
    update_divergence(b.row_ids, b.sigma)


@register("convert", fmt="bvss", device="cpu", variant="from_csr",
          warmup=_warm_convert)
def bvss_from_csr(A, sigma=8):
    """(real_ptrs, virtual_to_real, row_ids[n_vss, 32, 32 // sigma], masks)
    of CSR ``A``. Two serial passes over A: O(nnz + nrows + n_vss * 32)."""
    if sigma not in (4, 8, 16, 32):
        raise ValueError(f"BVSS: sigma={sigma!r} must be one of 4, 8, 16, 32")
    if A.nrows >= int(PAD_ROW):
        raise ValueError(f"BVSS: {A.nrows} rows do not fit its uint32 row ids")
    spw = 32 // sigma
    tau = 32 * spw
    indptr, indices = index_args(A.indptr, A.indices)
    nblocks = -(-A.ncols // sigma)
    counts = np.zeros(nblocks, np.int64)
    usig = np.uint64(sigma)
    _count_slices(indptr, indices, usig, counts)
    nvss = -(-counts // tau)
    real_ptrs = np.zeros(nblocks + 1, np.int64)
    np.cumsum(nvss, out=real_ptrs[1:])
    n_vss = int(real_ptrs[-1])
    if n_vss >= 2**31:
        raise ValueError(f"BVSS: {n_vss} virtual slice sets do not fit int32 ids")
    real_ptrs = real_ptrs.astype(np.int32)
    virtual_to_real = np.repeat(np.arange(nblocks, dtype=np.int32), nvss)
    masks = np.zeros(n_vss * 32, np.uint32)
    row_ids = np.full(n_vss * 32 * spw, PAD_ROW, np.uint32)
    _fill_slices(indptr, indices, usig, np.uint64(spw), real_ptrs, masks, row_ids)
    return real_ptrs, virtual_to_real, row_ids.reshape(n_vss, 32, spw), masks


@njit(cache=True, nogil=True)
def _unpack_counts(real_ptrs, masks, row_ids, spw, sigma, row_nnz):
    full = (_U1 << sigma) - _U1
    for w in range(masks.size):
        word = np.uint64(masks[w])
        for s in range(spw):
            m = (word >> (np.uint64(s) * sigma)) & full
            if m:
                row_nnz[np.uint64(row_ids[w * spw + s])] += popcount(m)


@njit(cache=True, nogil=True)
def _unpack(real_ptrs, masks, row_ids, spw, sigma, indptr, indices):
    # slice sets in order, and in a set slices k = 32*slot + lane ascending,
    # so each row's columns come out sorted
    full = (_U1 << sigma) - _U1
    cursor = np.zeros(indptr.size - 1, np.uint64)
    for i in range(real_ptrs.size - 1):
        base = np.uint64(i) * sigma
        for v in range(np.uint64(real_ptrs[i]), np.uint64(real_ptrs[i + 1])):
            for s in range(spw):
                for lane in range(32):
                    w = v * _U32 + np.uint64(lane)
                    m = (np.uint64(masks[w]) >> (np.uint64(s) * sigma)) & full
                    if not m:
                        continue
                    r = np.uint64(row_ids[w * spw + np.uint64(s)])
                    q = np.uint64(indptr[r]) + cursor[r]
                    while m:
                        indices[q] = cast_like(base + ctz(m), indices[q])
                        q += _U1
                        m &= m - _U1
                    cursor[r] = q - np.uint64(indptr[r])


@register("convert", fmt="bvss", device="cpu", variant="to_csr")
def bvss_to_csr(b):
    """The structure-only CSR of a BVSS ``b``. O(n_vss * 32 + nnz + nrows)."""
    spw = 32 // b.sigma
    masks = arg(b.masks, np.uint32)
    row_ids = arg(b.row_ids, np.uint32)
    real_ptrs = arg(b.real_ptrs, np.int32)
    usig, uspw = np.uint64(b.sigma), np.uint64(spw)
    row_nnz = np.zeros(b.nrows, np.int64)
    _unpack_counts(real_ptrs, masks, row_ids, uspw, usig, row_nnz)
    nnz = int(row_nnz.sum())
    idt = ar.index_dtype(nnz, b.nrows, b.ncols)
    indptr = np.zeros(b.nrows + 1, idt)
    np.cumsum(row_nnz, out=indptr[1:])
    indices = np.empty(nnz, idt)
    _unpack(real_ptrs, masks, row_ids, uspw, usig, indptr, indices)
    return CSR(indptr, indices, None, b.nrows, b.ncols)


@njit(cache=True, nogil=True)
def _divergence(row_ids, spw, pad):
    # mean over VSSs of (mean over non-empty slot columns of the population
    # standard deviation of the column's real row ids)
    n_vss = row_ids.size // (32 * spw)
    total = 0.0
    for v in range(n_vss):
        acc = 0.0
        cols = 0
        for s in range(spw):
            n = 0
            s1 = 0.0
            for lane in range(32):
                r = row_ids[(v * 32 + lane) * spw + s]
                if r != pad:
                    n += 1
                    s1 += float(r)
            if n:
                mean = s1 / n
                s2 = 0.0
                for lane in range(32):
                    r = row_ids[(v * 32 + lane) * spw + s]
                    if r != pad:
                        s2 += (float(r) - mean) ** 2
                acc += np.sqrt(s2 / n)
                cols += 1
        if cols:
            total += acc / cols
    return total / n_vss if n_vss else 0.0


def update_divergence(row_ids, sigma=8):
    """Blest's U_div (section 3.2.1) of a BVSS's ``row_ids``."""
    spw = 32 // sigma
    return float(_divergence(arg(row_ids, np.uint32), spw, PAD_ROW))
