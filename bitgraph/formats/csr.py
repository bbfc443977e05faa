"""CSR, the canonical storage, as the plain tuple kernels take.

``indptr[nrows + 1]`` and ``indices[nnz]`` share one index dtype (int32 while
it fits, int64 beyond); ``values[nnz]`` or ``None`` for structure-only
(iso True). Column indices are sorted within each row, without duplicates.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import _array as ar


class CSR(NamedTuple):
    indptr: object
    indices: object
    values: object  # ndarray or None (iso: every stored value is True/1)
    nrows: int
    ncols: int

    @property
    def nnz(self) -> int:
        return int(self.indices.shape[0])


def from_sorted_keys(keys, values, nrows: int, ncols: int) -> CSR:
    """CSR from sorted unique linear keys ``row * ncols + col``. O(nnz + nrows)."""
    xp = ar.array_module(keys)
    nnz = keys.shape[0]
    idt = ar.index_dtype(nnz, nrows, ncols)
    if nnz == 0:
        return CSR(xp.zeros(nrows + 1, idt), xp.zeros(0, idt), values, nrows, ncols)
    rows = keys // ncols
    cols = (keys - rows * ncols).astype(idt)
    indptr = xp.zeros(nrows + 1, idt)
    xp.cumsum(xp.bincount(rows, minlength=nrows), out=indptr[1:])
    return CSR(indptr, cols, values, nrows, ncols)


def from_coo(rows, cols, values, nrows: int, ncols: int) -> CSR:
    """CSR from coordinates through scipy's O(nnz + n) coo_tocsr and per-row
    sort. Duplicates are merged (values summed, so callers that care check
    ``nnz`` against the input length); ``values=None`` gives a pattern."""
    import scipy.sparse as sp

    n = rows.shape[0]
    idt = ar.index_dtype(n, nrows, ncols)
    data = np.ones(n, np.bool_) if values is None else values
    S = sp.coo_array((data, (rows.astype(idt), cols.astype(idt))), shape=(nrows, ncols)).tocsr()
    S.sum_duplicates()  # sorts each row's columns too
    vals = None if values is None else S.data
    return CSR(S.indptr.astype(idt, copy=False), S.indices.astype(idt, copy=False), vals, nrows, ncols)


def keys_of(csr: CSR):
    """Sorted linear keys ``row * ncols + col`` (int64) of the stored entries."""
    return ar.rows_of(csr.indptr) * csr.ncols + csr.indices.astype(np.int64)


def transpose(csr: CSR) -> CSR:
    """The transpose as a CSR, via scipy's O(nnz + n) csr_tocsc (on the GPU:
    a sort of the entries by (column, row), so each output row is sorted)."""
    import scipy.sparse as sp

    n = csr.nnz
    xp = ar.array_module(csr.indptr)
    if n == 0:
        idt = csr.indptr.dtype
        return CSR(xp.zeros(csr.ncols + 1, idt), xp.zeros(0, idt), csr.values, csr.ncols, csr.nrows)
    if xp is not np:
        idt = ar.index_dtype(n, csr.nrows, csr.ncols)
        rows = ar.rows_of(csr.indptr)
        # unique keys (column, row): the order is defined whatever the sort
        order = xp.argsort(csr.indices.astype(np.int64) * max(csr.nrows, 1) + rows)
        indptr = xp.zeros(csr.ncols + 1, np.int64)
        indptr[1:] = xp.cumsum(xp.bincount(csr.indices, minlength=csr.ncols))
        values = None if csr.values is None else csr.values[order]
        return CSR(indptr.astype(idt), rows[order].astype(idt), values, csr.ncols, csr.nrows)
    perm = np.arange(n, dtype=np.int64)
    s = sp.csr_array((perm, csr.indices, csr.indptr), shape=(csr.nrows, csr.ncols))
    t = s.tocsc()
    # csr_tocsc walks rows in order, so each output row comes out sorted
    idt = ar.index_dtype(n, csr.nrows, csr.ncols)
    values = None if csr.values is None else csr.values[t.data]
    return CSR(t.indptr.astype(idt, copy=False), t.indices.astype(idt, copy=False), values, csr.ncols, csr.nrows)
