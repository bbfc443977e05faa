"""mxm: C<M> = A (+).(x) B with A, B, C in CSR, by Gustavson's method.

Row i of C is the sum of the rows B(k,:) scaled by A(i,k), accumulated in a
dense workspace of B.ncols entries (one per chunk of rows; the parallel
variant cuts ``threads * 4`` chunks of equal work and runs them on a thread
pool). A
workspace entry is stamped with the row that last touched it (``mark[j]``),
so the workspace is never cleared between rows: stamp 2i+1 means "allowed"
(mask) or "forbidden" (complemented mask) in row i, 2i+2 means "holds a
value of row i"; older stamps are smaller.

The structural mask M is pushed down into the product:

- mask (not complemented): only the entries of M's row are computed; they
  are marked first, a product on an unmarked column is skipped before its
  multiply, B's row stops past M's last column (B's rows are sorted), and
  the row is emitted in M's (sorted) order: no sort, no symbolic phase (C's
  row i is written into M's slot for row i, then compacted). This is the
  triangle-counting path, C<L> = L plus_pair L'.
- complemented mask / no mask: a symbolic phase counts each row (sizes C
  exactly, no over-allocation), then the numeric phase fills it; a row's
  columns are gathered unsorted and sorted in place (or, for a row denser
  than ncols/8, found by a scan of the workspace).
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    SERIAL_BELOW, index_args, parallel_for, row_chunks, semiring_args,
    values_arg,
)
from bitgraph.kernels.cpu.scalar import binop, cast_like, multop
from bitgraph.kernels.registry import CSR, SemiringSpec, register

__all__ = ["spgemm"]

_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U8 = np.uint64(8)

# mask modes
_NONE, _MASK, _COMPLEMENT = 0, 1, 2
_INT32_MAX = np.iinfo(np.int32).max


@njit(nogil=True)
def _fill_rows(r0, r1, a_indptr, a_indices, a_values, a_iso, b_indptr,
               b_indices, b_values, b_iso, m_indptr, m_indices, mode, ncols,
               add, mult, has_term, terminal, out_offsets, out_indices,
               out_values, row_nnz):
    # Rows r0..r1-1 (uint64) of C. Row r is written at out_offsets[r]:
    # out_indices[.], out_values[.] (sorted), row_nnz[r] entries.
    # mode _MASK: out_offsets = M's indptr (C's row r fits in M's row r).
    # a_values[nnz(A)] or [1] if a_iso; likewise b. m_* is [1] if no mask.
    # O(ncols + flops + nnz(M) of the rows + sort of the unmasked rows)
    mark = np.zeros(ncols, np.uint64)
    work = np.empty(ncols, out_values.dtype)
    one = cast_like(1, terminal)
    any_ = add == opcodes.ANY
    masked = mode == _MASK
    for r in range(r0, r1):
        allow = _U2 * r + _U1  # "allowed" (mask) or "forbidden" (complement)
        hit = allow + _U1
        mlo = np.uint64(m_indptr[r]) if mode != _NONE else _U1
        mhi = np.uint64(m_indptr[r + 1]) if mode != _NONE else _U1
        jmax = np.uint64(ncols)
        if mode != _NONE:
            for q in range(mlo, mhi):
                mark[np.uint64(m_indices[q])] = allow
            if masked:
                if mlo == mhi:
                    row_nnz[r] = 0
                    continue
                jmax = np.uint64(m_indices[mhi - _U1])
        start = np.uint64(out_offsets[r])
        cnt = np.uint64(0)
        for pa in range(np.uint64(a_indptr[r]), np.uint64(a_indptr[r + 1])):
            k = np.uint64(a_indices[pa])
            a = one if a_iso else a_values[pa]
            for pb in range(np.uint64(b_indptr[k]),
                            np.uint64(b_indptr[k + 1])):
                j = np.uint64(b_indices[pb])
                if j > jmax:
                    break
                m = mark[j]
                if m == hit:
                    acc = work[j]
                    if any_ or (has_term and acc == terminal):
                        continue
                    b = one if b_iso else b_values[pb]
                    work[j] = binop(add, acc, multop(mult, a, b, r, k, j))
                elif (m == allow) == masked:
                    b = one if b_iso else b_values[pb]
                    work[j] = multop(mult, a, b, r, k, j)
                    mark[j] = hit
                    if not masked:
                        out_indices[start + cnt] = j
                        cnt += _U1
        if masked:
            for q in range(mlo, mhi):
                j = np.uint64(m_indices[q])
                if mark[j] == hit:
                    out_indices[start + cnt] = j
                    out_values[start + cnt] = work[j]
                    cnt += _U1
        else:
            end = start + cnt
            if cnt * _U8 > np.uint64(ncols):
                p = start
                for j in range(np.uint64(ncols)):
                    if mark[j] == hit:
                        out_indices[p] = j
                        p += _U1
            else:
                out_indices[start:end].sort()
            for p in range(start, end):
                out_values[p] = work[np.uint64(out_indices[p])]
        row_nnz[r] = cnt




@njit(nogil=True)
def fill_nodisp(r0, r1, a_indptr, a_indices, a_values, a_iso, b_indptr,
               b_indices, b_values, b_iso, m_indptr, m_indices, mode, ncols,
               add, mult, has_term, terminal, out_offsets, out_indices,
               out_values, row_nnz):
    # Rows r0..r1-1 (uint64) of C. Row r is written at out_offsets[r]:
    # out_indices[.], out_values[.] (sorted), row_nnz[r] entries.
    # mode _MASK: out_offsets = M's indptr (C's row r fits in M's row r).
    # a_values[nnz(A)] or [1] if a_iso; likewise b. m_* is [1] if no mask.
    # O(ncols + flops + nnz(M) of the rows + sort of the unmasked rows)
    mark = np.zeros(ncols, np.uint64)
    work = np.empty(ncols, out_values.dtype)
    one = cast_like(1, terminal)
    any_ = add == opcodes.ANY
    masked = mode == _MASK
    for r in range(r0, r1):
        allow = _U2 * r + _U1  # "allowed" (mask) or "forbidden" (complement)
        hit = allow + _U1
        mlo = np.uint64(m_indptr[r]) if mode != _NONE else _U1
        mhi = np.uint64(m_indptr[r + 1]) if mode != _NONE else _U1
        jmax = np.uint64(ncols)
        if mode != _NONE:
            for q in range(mlo, mhi):
                mark[np.uint64(m_indices[q])] = allow
            if masked:
                if mlo == mhi:
                    row_nnz[r] = 0
                    continue
                jmax = np.uint64(m_indices[mhi - _U1])
        start = np.uint64(out_offsets[r])
        cnt = np.uint64(0)
        for pa in range(np.uint64(a_indptr[r]), np.uint64(a_indptr[r + 1])):
            k = np.uint64(a_indices[pa])
            a = one if a_iso else a_values[pa]
            for pb in range(np.uint64(b_indptr[k]),
                            np.uint64(b_indptr[k + 1])):
                j = np.uint64(b_indices[pb])
                if j > jmax:
                    break
                m = mark[j]
                if m == hit:
                    acc = work[j]
                    if any_ or (has_term and acc == terminal):
                        continue
                    b = one if b_iso else b_values[pb]
                    work[j] = acc + a * b
                elif (m == allow) == masked:
                    b = one if b_iso else b_values[pb]
                    work[j] = a * b
                    mark[j] = hit
                    if not masked:
                        out_indices[start + cnt] = j
                        cnt += _U1
        if masked:
            for q in range(mlo, mhi):
                j = np.uint64(m_indices[q])
                if mark[j] == hit:
                    out_indices[start + cnt] = j
                    out_values[start + cnt] = work[j]
                    cnt += _U1
        else:
            end = start + cnt
            if cnt * _U8 > np.uint64(ncols):
                p = start
                for j in range(np.uint64(ncols)):
                    if mark[j] == hit:
                        out_indices[p] = j
                        p += _U1
            else:
                out_indices[start:end].sort()
            for p in range(start, end):
                out_values[p] = work[np.uint64(out_indices[p])]
        row_nnz[r] = cnt




@njit(nogil=True)
def fill_nosort(r0, r1, a_indptr, a_indices, a_values, a_iso, b_indptr,
               b_indices, b_values, b_iso, m_indptr, m_indices, mode, ncols,
               add, mult, has_term, terminal, out_offsets, out_indices,
               out_values, row_nnz):
    # Rows r0..r1-1 (uint64) of C. Row r is written at out_offsets[r]:
    # out_indices[.], out_values[.] (sorted), row_nnz[r] entries.
    # mode _MASK: out_offsets = M's indptr (C's row r fits in M's row r).
    # a_values[nnz(A)] or [1] if a_iso; likewise b. m_* is [1] if no mask.
    # O(ncols + flops + nnz(M) of the rows + sort of the unmasked rows)
    mark = np.zeros(ncols, np.uint64)
    work = np.empty(ncols, out_values.dtype)
    one = cast_like(1, terminal)
    any_ = add == opcodes.ANY
    masked = mode == _MASK
    for r in range(r0, r1):
        allow = _U2 * r + _U1  # "allowed" (mask) or "forbidden" (complement)
        hit = allow + _U1
        mlo = np.uint64(m_indptr[r]) if mode != _NONE else _U1
        mhi = np.uint64(m_indptr[r + 1]) if mode != _NONE else _U1
        jmax = np.uint64(ncols)
        if mode != _NONE:
            for q in range(mlo, mhi):
                mark[np.uint64(m_indices[q])] = allow
            if masked:
                if mlo == mhi:
                    row_nnz[r] = 0
                    continue
                jmax = np.uint64(m_indices[mhi - _U1])
        start = np.uint64(out_offsets[r])
        cnt = np.uint64(0)
        for pa in range(np.uint64(a_indptr[r]), np.uint64(a_indptr[r + 1])):
            k = np.uint64(a_indices[pa])
            a = one if a_iso else a_values[pa]
            for pb in range(np.uint64(b_indptr[k]),
                            np.uint64(b_indptr[k + 1])):
                j = np.uint64(b_indices[pb])
                if j > jmax:
                    break
                m = mark[j]
                if m == hit:
                    acc = work[j]
                    if any_ or (has_term and acc == terminal):
                        continue
                    b = one if b_iso else b_values[pb]
                    work[j] = binop(add, acc, multop(mult, a, b, r, k, j))
                elif (m == allow) == masked:
                    b = one if b_iso else b_values[pb]
                    work[j] = multop(mult, a, b, r, k, j)
                    mark[j] = hit
                    if not masked:
                        out_indices[start + cnt] = j
                        cnt += _U1
        if masked:
            for q in range(mlo, mhi):
                j = np.uint64(m_indices[q])
                if mark[j] == hit:
                    out_indices[start + cnt] = j
                    out_values[start + cnt] = work[j]
                    cnt += _U1
        else:
            end = start + cnt
            if cnt * _U8 > np.uint64(ncols):
                p = start
                for j in range(np.uint64(ncols)):
                    if mark[j] == hit:
                        out_indices[p] = j
                        p += _U1
            else:
                pass
            for p in range(start, end):
                out_values[p] = work[np.uint64(out_indices[p])]
        row_nnz[r] = cnt



import time, scipy.sparse as sp
from bitgraph.kernels.cpu import spgemm_csr as G
def best(f, r=3):
    ts=[]
    for _ in range(r):
        t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    return "%.4f" % min(ts)
rng = np.random.default_rng(1)
n2 = 200_000; deg = 8
M2 = sp.csr_matrix((rng.random(deg*n2), (rng.integers(0,n2,deg*n2), rng.integers(0,n2,deg*n2))), shape=(n2,n2)); M2.sum_duplicates(); M2.sort_indices()
ip, ix, v = M2.indptr.astype(np.int32), M2.indices.astype(np.int32), M2.data
row_nnz = np.empty(n2, np.int64); d = np.zeros(1, np.int32)
G._count_rows(np.uint64(0), np.uint64(n2), ip, ix, ip, ix, d, d, False, n2, row_nnz)
off = np.zeros(n2+1, np.int64); np.cumsum(row_nnz, out=off[1:])
oi = np.empty(off[-1], np.int32); ov = np.empty(off[-1])
args = (np.uint64(0), np.uint64(n2), ip, ix, v, False, ip, ix, v, False, d, d, 0, n2, 4, 7, False, 0.0, off, oi, ov, row_nnz)
for f in (_fill_rows, fill_nodisp, fill_nosort):
    f(*args); print(f.__name__, best(lambda: f(*args)))
print("scipy", best(lambda: M2 @ M2))
