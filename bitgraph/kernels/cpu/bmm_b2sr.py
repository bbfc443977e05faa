"""B2SR masked bit matrix product ``bmm_bin_bin_sum`` (Bit-GraphBLAS BMM).

C<M> = A plus.pair B for structure-only A and B: C(i,j) = |A(i,:) ∩ B(:,j)|
= sum over column blocks K of ``popcount(A_tile(I,K)[i%t] & BT_tile(J,K)[j%t])``
with B read through the B2SR of its transpose BT = B' (row-major bit-rows
of B' are B's bit-columns). Triangle counting is C<L> = L plus.pair L',
where BT = L: one B2SR serves both operands.

Per tile row I of A the kernel stamps ``pos[K]`` = A's tile (I, K), then
for each mask entry (i, j) walks BT's tile row J: O(|tiles of BT(J)|) word
ANDs and popcounts per mask entry, t^2 entries per AND.
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import (
    arg, parallel_for, row_chunks, serial_below,
)
from bitgraph.kernels.cpu.bits import bits_at, ctz, popcount
from bitgraph.kernels.cpu.bmv_b2sr import tile_args
from bitgraph.kernels.registry import register

__all__ = ["bmm_bin_bin_sum"]

_U1 = np.uint64(1)
_U8 = np.uint64(8)
# B's tile row longer than this many times A's: binary search, not a walk
_GALLOP = np.uint64(16)


@njit(inline="always")
def _tile_word(tiles32, q, wb, wmask):
    # bit-row q of the flat tiles (words of wb bytes) from their uint32 view
    return bits_at(tiles32, q * wb * _U8, wmask)


@njit(cache=True, nogil=True)
def _masked_rows(b0, b1, a_rowptr, a_colind, a_tiles, bt_rowptr, bt_colind,
                 bt_tiles, t, wb, nrows, nbcols, m_indptr, m_indices, counts):
    wmask = (_U1 << t) - _U1
    pos = np.full(nbcols, -1, np.int64)
    for bi in range(b0, b1):
        p0 = np.uint64(a_rowptr[bi])
        p1 = np.uint64(a_rowptr[bi + 1])
        for p in range(p0, p1):
            pos[np.uint64(a_colind[p])] = p
        r0 = bi * t
        for r in range(min(t, nrows - r0)):
            i = r0 + np.uint64(r)
            for s in range(np.uint64(m_indptr[i]), np.uint64(m_indptr[i + 1])):
                j = np.uint64(m_indices[s])
                bj = j // t
                rj = j % t
                n = np.uint64(0)
                q0 = np.uint64(bt_rowptr[bj])
                q1 = np.uint64(bt_rowptr[bj + 1])
                if p1 - p0 == 0 or q1 == q0:
                    pass
                elif q1 - q0 <= _GALLOP * (p1 - p0):
                    # walk B's tile row, find A's tile through the stamps
                    for q in range(q0, q1):
                        pa = pos[np.uint64(bt_colind[q])]
                        if pa >= 0:
                            wa = _tile_word(a_tiles, np.uint64(pa) * t + np.uint64(r), wb, wmask)
                            n += popcount(wa & _tile_word(bt_tiles, q * t + rj, wb, wmask))
                else:
                    # B's tile row is long (a hub in it): binary-search A's
                    # tiles in it instead, O(|A(I)| log |B(J)|)
                    lo = q0
                    for p in range(p0, p1):
                        k = a_colind[p]  # same index dtype as bt_colind
                        lo = lo + np.uint64(np.searchsorted(bt_colind[lo:q1], k))
                        if lo >= q1:
                            break
                        if bt_colind[lo] == k:
                            wa = _tile_word(a_tiles, p * t + np.uint64(r), wb, wmask)
                            n += popcount(wa & _tile_word(bt_tiles, lo * t + rj, wb, wmask))
                counts[s] = n
        for p in range(p0, p1):
            pos[np.uint64(a_colind[p])] = -1


@njit(cache=True, nogil=True)
def _column_counts(rowptr, colind, tiles32, t, wb, out):
    # out[c] += entries in column c of the matrix
    wmask = (_U1 << t) - _U1
    for bi in range(rowptr.size - 1):
        for p in range(np.uint64(rowptr[bi]), np.uint64(rowptr[bi + 1])):
            c0 = np.uint64(colind[p]) * t
            for r in range(t):
                w = _tile_word(tiles32, p * t + np.uint64(r), wb, wmask)
                while w:
                    out[c0 + ctz(w)] += 1
                    w &= w - _U1


def _warm_bmm(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR
    from bitgraph.kernels import convert
    A = CSR(np.array([0, 1, 2], index_dtype), np.array([1, 0], index_dtype), None, 2, 2)
    B = convert.b2sr(A, 8)
    bmm_bin_bin_sum(B, B, A)
    bmm_bin_bin_sum(B, B, None)


@register("mxm", fmt="b2sr", device="cpu", variant="bin_bin_sum", warmup=_warm_bmm)
def bmm_bin_bin_sum(A, BT, mask, *, parallel=None, stats=None):
    """Masked: (counts uint64[mask.nnz], total) with counts[s] = C(i, j) for
    the s-th stored entry (i, j) of the CSR ``mask`` (in its order), where
    C = A plus.pair B and ``BT`` is the B2SR of B' (same t as ``A``).
    Unmasked (``mask=None``): (None, total) with total = the sum of every
    entry of A·B = sum_k |A(:,k)| * |B(k,:)|, from the column counts of the
    bits of A and BT. Totals are Python ints. ``stats`` (a ``bitgraph.Stats``)
    notes the kernel (the CUDA launcher also records its phases).

    >>> import numpy as np
    >>> from bitgraph.kernels import convert
    >>> from bitgraph.formats.csr import from_coo
    >>> L = from_coo(np.array([1, 2, 2]), np.array([0, 0, 1]), None, 3, 3)  # a triangle, lower part
    >>> B = convert.b2sr(L, 4)
    >>> counts, total = bmm_bin_bin_sum(B, B, L)    # C<L> = L plus.pair L'
    >>> counts.tolist(), total
    ([0, 0, 1], 1)
    """
    if stats is not None:
        stats.ran(("mxm", "b2sr", "cpu", "bin_bin_sum"))
    if A.t != BT.t:
        raise ValueError(f"bmm_bin_bin_sum: tile sizes differ (A t={A.t}, BT t={BT.t})")
    if A.ncols != BT.ncols:
        raise ValueError(f"bmm_bin_bin_sum: A.ncols={A.ncols} != B.nrows={BT.ncols}")
    a_rowptr, a_colind, a_tiles, t, wb, nrows = tile_args(A)
    bt_rowptr, bt_colind, bt_tiles, _, _, _ = tile_args(BT)
    idt = a_rowptr.dtype
    bt_rowptr, bt_colind = bt_rowptr.astype(idt, copy=False), bt_colind.astype(idt, copy=False)
    if mask is None:
        ca = np.zeros(A.ncols, np.int64)
        cb = np.zeros(BT.ncols, np.int64)
        _column_counts(a_rowptr, a_colind, a_tiles, t, wb, ca)
        _column_counts(bt_rowptr, bt_colind, bt_tiles, t, wb, cb)
        return None, int(np.dot(ca, cb))
    if (mask.nrows, mask.ncols) != (A.nrows, BT.nrows):
        raise ValueError(f"bmm_bin_bin_sum: mask is {mask.nrows}x{mask.ncols}, "
                         f"C is {A.nrows}x{BT.nrows}")
    m_indptr, m_indices = (arg(a, idt) for a in (mask.indptr, mask.indices))
    counts = np.empty(m_indices.size, np.uint64)
    nbrows = a_rowptr.size - 1
    if parallel is None:
        parallel = m_indices.size >= serial_below()
    if parallel:
        ends = m_indptr[np.minimum(np.arange(1, nbrows + 1) * A.t, A.nrows)]
        chunks = row_chunks(np.diff(ends, prepend=0).astype(np.int64) + 1)
    else:
        chunks = np.array([0, nbrows], np.int64)
    nbcols = -(-A.ncols // A.t)
    parallel_for(_masked_rows, chunks, a_rowptr, a_colind, a_tiles, bt_rowptr,
                 bt_colind, bt_tiles, t, wb, nrows, nbcols, m_indptr,
                 m_indices, counts)
    return counts, int(counts.sum(dtype=np.uint64))
