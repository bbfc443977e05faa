"""mxm by masked dot products: C<M> = A (+).(x) B, computing only M's entries.

C(i,j) = ADD over k in A(i,:) ∩ B(:,j) of MULT(a_ik, b_kj), for each (i,j)
present in the structural mask M (not complemented). B is read through its
transpose BT = B' in CSR, so column j of B is the row BT(j,:). Row i of A is
stamped into a workspace (``mark[k] = i + 1``, ``pos[k]`` = its place in A)
and each BT(j,:) is scanned against it: O(|A(i)| + sum over j in M(i) of
|BT(j)|) per row, independent of how many wedges A(i,:) spans. This is
SuiteSparse's "dot3" method; it beats Gustavson when M is much sparser than
the unmasked product, as in triangle counting (C<L> = L plus.pair L').
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    index_args, parallel_for, row_chunks, semiring_args, serial_below, values_arg,
)
from bitgraph.kernels.cpu.scalar import binop, cast_like, multop
from bitgraph.kernels.registry import CSR, SemiringSpec, register

__all__ = ["spgemm_dot", "dot_work"]

_U1 = np.uint64(1)


@njit(cache=True, nogil=True)
def _dot_rows(r0, r1, a_indptr, a_indices, a_values, a_iso, bt_indptr,
              bt_indices, bt_values, bt_iso, m_indptr, m_indices, n_inner,
              add, mult, has_term, terminal, out_indices, out_values,
              row_nnz):
    # Rows r0..r1-1 (uint64) of C. a_*: A (nrows x n_inner); bt_*: B'
    # (ncols x n_inner); m_*: M (nrows x ncols). Row i of C is written at
    # out_*[m_indptr[i]:] in M's column order; row_nnz[i] = its length.
    # O(n_inner + sum over rows of |A(i)| + sum over M(i,j) of |BT(j)|)
    mark = np.zeros(n_inner, np.uint64)
    pos = np.zeros(n_inner, np.int64)
    any_ = add == opcodes.ANY
    one = cast_like(1, terminal)
    for i in range(r0, r1):
        stamp = i + _U1
        for p in range(np.uint64(a_indptr[i]), np.uint64(a_indptr[i + 1])):
            k = np.uint64(a_indices[p])
            mark[k] = stamp
            pos[k] = p
        out = np.uint64(m_indptr[i])
        for s in range(np.uint64(m_indptr[i]), np.uint64(m_indptr[i + 1])):
            j = np.uint64(m_indices[s])
            acc = terminal
            found = False
            for q in range(np.uint64(bt_indptr[j]), np.uint64(bt_indptr[j + 1])):
                k = np.uint64(bt_indices[q])
                if mark[k] != stamp:
                    continue
                a = one if a_iso else a_values[pos[k]]
                b = one if bt_iso else bt_values[q]
                prod = multop(mult, a, b, i, k, j)
                if found:
                    acc = binop(add, acc, prod)
                else:
                    acc = prod
                    found = True
                if any_ or (has_term and acc == terminal):
                    break
            if found:
                out_indices[out] = j
                out_values[out] = acc
                out += _U1
        row_nnz[i] = out - np.uint64(m_indptr[i])


def dot_work(M, BT):
    """work[nrows] int64: sum over M(i,j) of |BT(j,:)|, the cost of the dot
    method per row (numpy, O(nnz(M) + nrows))."""
    blen = np.diff(BT.indptr.astype(np.int64))
    cum = np.zeros(M.indices.shape[0] + 1, np.int64)
    np.cumsum(blen[M.indices], out=cum[1:])
    return cum[M.indptr[1:]] - cum[M.indptr[:-1]]


def _warm_dot(dtype, index_dtype):
    A = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 1], index_dtype),
            np.ones(2, dtype), 2, 2)
    sr = SemiringSpec(dtype, opcodes.PLUS, opcodes.TIMES, 0, None)
    spgemm_dot(A, A, A, sr)


@register("mxm", fmt="csr", device="cpu", variant="dot", warmup=_warm_dot)
def spgemm_dot(A, BT, M, sr, *, parallel=None):
    """C<M> = A (+).(x) B by dot products over M's entries; B given as BT = B'.

    A: CSR (nrows x n_inner); BT: CSR (ncols x n_inner), the transpose of B;
    values of dtype T or None (iso); M: CSR (nrows x ncols) structural mask
    (values ignored, not complemented). sr: SemiringSpec; positional
    (i, k, j) of a(i,k)*b(k,j). parallel: None picks serial below
    ``settings.cpu.serial_below`` work. Returns (indptr[nrows+1], indices[nnz],
    values[nnz] of T), C's pattern a subset of M's, columns sorted.
    Cost O(nrows + nnz(A) + sum over M(i,j) of |BT(j,:)|); workspace
    O(n_inner) per thread.
    """
    where = "mxm(dot)"
    if A.ncols != BT.ncols or (M.nrows, M.ncols) != (A.nrows, BT.nrows):
        raise ValueError(f"{where}: shapes A {A.nrows}x{A.ncols}, B' "
                         f"{BT.nrows}x{BT.ncols}, M {M.nrows}x{M.ncols} "
                         "do not agree")
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr)
    a_indptr, a_indices, bt_indptr, bt_indices, m_indptr, m_indices = \
        index_args(A.indptr, A.indices, BT.indptr, BT.indices, M.indptr,
                   M.indices)
    a_values, a_iso = values_arg(A.values, dtype)
    bt_values, bt_iso = values_arg(BT.values, dtype)
    nrows = int(A.nrows)
    work = dot_work(CSR(m_indptr, m_indices, None, nrows, M.ncols),
                    CSR(bt_indptr, bt_indices, None, BT.nrows, BT.ncols))
    work += np.diff(a_indptr.astype(np.int64)) + 1
    if parallel is None:
        parallel = int(work.sum()) >= serial_below()
    chunks = row_chunks(work) if parallel else np.array([0, nrows], np.int64)
    size = int(m_indptr[-1])
    out_indices = np.empty(size, m_indices.dtype)
    out_values = np.empty(size, dtype)
    row_nnz = np.empty(nrows, np.int64)
    # without a terminal the accumulator's start value is never read
    term = terminal if has_term else identity
    parallel_for(_dot_rows, chunks, a_indptr, a_indices, a_values, a_iso,
                 bt_indptr, bt_indices, bt_values, bt_iso, m_indptr,
                 m_indices, int(A.ncols), add, mult, has_term, term,
                 out_indices, out_values, row_nnz)
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(row_nnz, out=indptr[1:])
    if indptr[-1] != size:  # compact: C's row i sits at the start of M's row i
        mlen = np.diff(m_indptr.astype(np.int64))
        row = np.repeat(np.arange(nrows), mlen)
        keep = np.arange(size) - m_indptr[:-1].astype(np.int64)[row] < row_nnz[row]
        out_indices = out_indices[keep]
        out_values = out_values[keep]
    return indptr.astype(m_indptr.dtype, copy=False), out_indices, out_values
