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
  than ncols/16, found by a scan of the workspace).
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    index_args, parallel_for, row_chunks, semiring_args, serial_below, values_arg,
)
from bitgraph.kernels.cpu.scalar import binop, cast_like, multop
from bitgraph.kernels.registry import CSR, SemiringSpec, register

__all__ = ["spgemm"]

_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U16 = np.uint64(16)

# mask modes
_NONE, _MASK, _COMPLEMENT = 0, 1, 2
_INT32_MAX = np.iinfo(np.int32).max


# ----------------------------------------------------------------------------
# symbolic: row sizes of C (no mask or complemented mask)
# ----------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _count_rows(r0, r1, a_indptr, a_indices, b_indptr, b_indices, m_indptr,
                m_indices, complement, ncols, row_nnz):
    # Rows r0..r1-1 (uint64) of C: row_nnz[r] = its number of entries.
    # a_*: A (nrows x n_inner), b_*: B (n_inner x ncols), m_*: M (or [1]).
    # O(ncols + flops + nnz(M) of the rows)
    mark = np.zeros(ncols, np.uint64)
    for r in range(r0, r1):
        forbid = _U2 * r + _U1
        hit = forbid + _U1
        if complement:
            for q in range(np.uint64(m_indptr[r]), np.uint64(m_indptr[r + 1])):
                mark[np.uint64(m_indices[q])] = forbid
        cnt = 0
        for pa in range(np.uint64(a_indptr[r]), np.uint64(a_indptr[r + 1])):
            k = np.uint64(a_indices[pa])
            for pb in range(np.uint64(b_indptr[k]),
                            np.uint64(b_indptr[k + 1])):
                j = np.uint64(b_indices[pb])
                if mark[j] < forbid:
                    mark[j] = hit
                    cnt += 1
        row_nnz[r] = cnt


# ----------------------------------------------------------------------------
# numeric
# ----------------------------------------------------------------------------

@njit(cache=True, nogil=True)
def _sort_range(a, lo, hi):
    # a[lo:hi] sorted in place: quicksort (median of 3, Hoare partition, the
    # smaller side first so the stack stays < 2 log2(n)), insertion sort
    # below 24. O(n log n). 1.3-2.7x faster than numba's ``a[lo:hi].sort()``
    # on the short rows of sparse products (measured, 8-64 per row), where
    # the sort is most of the numeric phase.
    stack = np.empty(128, np.uint64)
    top = 0
    while True:
        while hi - lo > np.uint64(24):
            mid = (lo + hi) >> _U1
            x, y, z = a[lo], a[mid], a[hi - _U1]
            if x > y:
                x, y = y, x
            if y > z:
                y = x if x > z else z
            pivot = y
            i = lo
            j = hi - _U1
            while True:
                while a[i] < pivot:
                    i += _U1
                while a[j] > pivot:
                    j -= _U1
                if i >= j:
                    break
                a[i], a[j] = a[j], a[i]
                i += _U1
                j -= _U1
            # a[lo:j+1] <= pivot <= a[j+1:hi]
            if j + _U1 - lo < hi - j - _U1:
                stack[top] = j + _U1
                stack[top + 1] = hi
                hi = j + _U1
            else:
                stack[top] = lo
                stack[top + 1] = j + _U1
                lo = j + _U1
            top += 2
        for p in range(lo + _U1, hi):
            v = a[p]
            q = p
            while q > lo and a[q - _U1] > v:
                a[q] = a[q - _U1]
                q -= _U1
            a[q] = v
        if top == 0:
            return
        top -= 2
        lo = stack[top]
        hi = stack[top + 1]


@njit(cache=True, nogil=True)
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
            if cnt * _U16 > np.uint64(ncols):
                p = start
                for j in range(np.uint64(ncols)):
                    if mark[j] == hit:
                        out_indices[p] = j
                        p += _U1
            else:
                _sort_range(out_indices, start, end)
            for p in range(start, end):
                out_values[p] = work[np.uint64(out_indices[p])]
        row_nnz[r] = cnt


# ----------------------------------------------------------------------------
# launcher
# ----------------------------------------------------------------------------

def _row_flops(a_indptr, a_indices, b_indptr):
    # flops[nrows]: sum over A(i,:) of |B(k,:)|.  O(nnz(A) + nrows), numpy
    blen = np.diff(b_indptr.astype(np.int64))
    cum = np.zeros(a_indices.size + 1, np.int64)
    np.cumsum(blen[a_indices], out=cum[1:])
    return cum[a_indptr[1:]] - cum[a_indptr[:-1]]


def _warm_spgemm(dtype, index_dtype):
    A = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 1], index_dtype),
            np.ones(2, dtype), 2, 2)
    sr = SemiringSpec(dtype, opcodes.PLUS, opcodes.TIMES, 0, None)
    spgemm(A, A, None, False, sr)


@register("mxm", fmt="csr", device="cpu", variant="gustavson",
          warmup=_warm_spgemm)
def spgemm(A, B, M, mask_complement, sr, *, parallel=None):
    """C<M> = A (+).(x) B (Gustavson), M a structural mask or None.

    A: CSR (nrows x n_inner), B: CSR (n_inner x ncols), values of dtype T or
    None (iso); M: CSR (nrows x ncols), values ignored, or None.
    mask_complement: compute only entries absent from M (else only those
    present). sr: SemiringSpec; positional (i, k, j) of a(i,k)*b(k,j).
    parallel: None picks serial below ``settings.cpu.serial_below`` flops.
    Returns (indptr[nrows+1], indices[nnz], values[nnz] of T), columns
    sorted within rows; the index dtype is the inputs' (int64 if any input
    or C's nnz needs it). Cost O(nrows + flops + nnz(M)) plus the sort of
    unmasked rows, where flops = sum over A(i,k) of |B(k,:)|; workspace
    O(ncols) per thread.
    """
    where = "mxm"
    if A.ncols != B.nrows:
        raise ValueError(f"{where}: A.ncols (={A.ncols}) must equal B.nrows "
                         f"(={B.nrows})")
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr)
    nrows, ncols = int(A.nrows), int(B.ncols)
    mode = _NONE if M is None else (_COMPLEMENT if mask_complement else _MASK)
    arrays = (A.indptr, A.indices, B.indptr, B.indices)
    if M is not None:
        if (M.nrows, M.ncols) != (nrows, ncols):
            raise ValueError(f"{where}: M.shape (={(M.nrows, M.ncols)}) must "
                             f"equal (A.nrows, B.ncols) (={(nrows, ncols)})")
        arrays += (M.indptr, M.indices)
    arrays = index_args(*arrays)
    a_values, a_iso = values_arg(A.values, dtype)
    b_values, b_iso = values_arg(B.values, dtype)

    flops = _row_flops(arrays[0], arrays[1], arrays[2])
    if parallel is None:
        parallel = int(flops.sum()) >= serial_below()
    if parallel:
        work = flops + 1
        if M is not None:
            work += np.diff(arrays[4])
        chunks = row_chunks(work)
    else:
        chunks = np.array([0, nrows], np.int64)

    row_nnz = np.empty(nrows, np.int64)
    if mode == _MASK:
        m_indptr, m_indices = arrays[4], arrays[5]
        out_offsets = m_indptr.astype(np.int64)
        size = int(out_offsets[-1])
    else:
        m_indptr, m_indices = arrays[4:6] if M is not None else (
            np.zeros(1, arrays[0].dtype),) * 2
        parallel_for(_count_rows, chunks, *arrays[:4], m_indptr,
                     m_indices, mode == _COMPLEMENT, ncols, row_nnz)
        out_offsets = np.zeros(nrows + 1, np.int64)
        np.cumsum(row_nnz, out=out_offsets[1:])
        size = int(out_offsets[-1])
        if size > _INT32_MAX and arrays[0].dtype != np.int64:
            arrays = tuple(a.astype(np.int64) for a in arrays)
            m_indptr, m_indices = arrays[4:6] if M is not None else (
                m_indptr.astype(np.int64),) * 2
    index = arrays[0].dtype
    out_indices = np.empty(size, index)
    out_values = np.empty(size, dtype)
    parallel_for(_fill_rows, chunks, arrays[0], arrays[1], a_values, a_iso,
                 arrays[2], arrays[3], b_values, b_iso, m_indptr, m_indices,
                 mode, ncols, add, mult, has_term, terminal, out_offsets,
                 out_indices, out_values, row_nnz)
    if mode != _MASK:
        return out_offsets.astype(index, copy=False), out_indices, out_values
    # C's row i sits at the start of M's row i: compact
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(row_nnz, out=indptr[1:])
    if indptr[-1] != size:
        mlen = np.diff(out_offsets)
        row = np.repeat(np.arange(nrows), mlen)
        keep = np.arange(size) - out_offsets[:-1][row] < row_nnz[row]
        out_indices = out_indices[keep]
        out_values = out_values[keep]
    return indptr.astype(index, copy=False), out_indices, out_values
