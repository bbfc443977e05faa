"""mxv, pull: t = A (+).(x) x with A in CSR, one row of t per row of A.

The pull (row-wise, "bottom-up") SpMV reads the whole of A's rows that are
allowed and the dense values of x where its bitmap says present; a row stops
early once its accumulator reaches the monoid's terminal (LOR: True; ANY:
the first product), which is what makes a bottom-up BFS step cheap.
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    arg, bitmap_arg, index_args, indptr_chunks, parallel_for, semiring_args, serial_below,
    values_arg,
)
from bitgraph.kernels.cpu.scalar import binop, bitmap_get, cast_like, multop
from bitgraph.kernels.registry import CSR, SemiringSpec, register

__all__ = ["spmv_pull"]

_U0 = np.uint64(0)


@njit(inline="always")
def _pull_rows(r0, r1, indptr, indices, values, iso, x_values, x_bitmap,
               allowed, has_allowed, add, mult, identity, has_term,
               terminal, t_values, t_present):
    # Rows r0..r1-1 (uint64) of t.
    # indptr[nrows+1], indices[nnz], values[nnz] (or [1] if iso),
    # x_values[ncols], x_bitmap[(ncols+31)//32], allowed[(nrows+31)//32]
    # (or [1]); fills t_values[r0:r1], t_present[r0:r1].
    # The product a(r,k)*x(k) has positional indices (i, k, j) = (r, k, 0).
    # O(r1 - r0 + nnz of the rows)
    any_ = add == opcodes.ANY
    one = cast_like(1, identity)
    for r in range(r0, r1):
        acc = identity
        found = False
        if not has_allowed or bitmap_get(allowed, r):
            for p in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
                k = np.uint64(indices[p])
                if not bitmap_get(x_bitmap, k):
                    continue
                a = one if iso else values[p]
                prod = multop(mult, a, x_values[k], r, k, _U0)
                if found:
                    acc = binop(add, acc, prod)
                else:
                    acc = prod
                    found = True
                if any_ or (has_term and acc == terminal):
                    break
        t_values[r] = acc
        t_present[r] = found


# The generic kernel takes the op codes at run time; the hot pairs get the
# same body with constant codes, so LLVM folds the op-code switch out of the
# inner loop (measured 1.5-2.5x on PLUS_TIMES f64). ``_FAST`` lists them with
# the dtypes the warm-up compiles them for; others use the generic kernel.
@njit(cache=True, nogil=True)
def _spmv_pull_rows(r0, r1, indptr, indices, values, iso, x_values, x_bitmap,
                    allowed, has_allowed, add, mult, identity, has_term,
                    terminal, t_values, t_present):
    _pull_rows(r0, r1, indptr, indices, values, iso, x_values, x_bitmap,
               allowed, has_allowed, add, mult, identity, has_term, terminal,
               t_values, t_present)


@njit(cache=True, nogil=True)
def _spmv_pull_rows_plus_times(r0, r1, indptr, indices, values, iso,
                               x_values, x_bitmap, allowed, has_allowed, add,
                               mult, identity, has_term, terminal, t_values,
                               t_present):
    _pull_rows(r0, r1, indptr, indices, values, iso, x_values, x_bitmap,
               allowed, has_allowed, _PLUS, _TIMES, identity, has_term,
               terminal, t_values, t_present)


@njit(cache=True, nogil=True)
def _spmv_pull_rows_min_plus(r0, r1, indptr, indices, values, iso, x_values,
                             x_bitmap, allowed, has_allowed, add, mult,
                             identity, has_term, terminal, t_values,
                             t_present):
    _pull_rows(r0, r1, indptr, indices, values, iso, x_values, x_bitmap,
               allowed, has_allowed, _MIN, _PLUS, identity, has_term,
               terminal, t_values, t_present)


_PLUS, _TIMES, _MIN = opcodes.PLUS, opcodes.TIMES, opcodes.MIN
_F = (np.dtype(np.float32), np.dtype(np.float64))
_FAST = {
    (opcodes.PLUS, opcodes.TIMES): (_spmv_pull_rows_plus_times, _F),
    (opcodes.MIN, opcodes.PLUS): (_spmv_pull_rows_min_plus, _F + (np.dtype(np.int64),)),
}


def _rows_kernel(dtype, add, mult):
    fast = _FAST.get((add, mult))
    return fast[0] if fast is not None and dtype in fast[1] else _spmv_pull_rows


def _warm_pull(dtype, index_dtype):
    A = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 1], index_dtype),
            np.ones(2, dtype), 2, 2)
    # the generic kernel, and the constant-code ones plan routes this dtype to
    pairs = [(opcodes.PLUS, opcodes.FIRST)]
    pairs += [pair for pair, (_, dts) in _FAST.items() if dtype in dts]
    for add, mult in pairs:
        sr = SemiringSpec(dtype, add, mult, 0, None)
        spmv_pull(A, np.ones(2, dtype), np.array([3], np.uint32), None, sr)


@register("mxv", fmt="csr", device="cpu", variant="pull", warmup=_warm_pull)
def spmv_pull(A, x_values, x_bitmap, allowed, sr, flipped=False, *,
              parallel=None):
    """t = A (+).(x) x, row by row (pull), or x (+).(x) A' when flipped.

    A: CSR (nrows x ncols), values of dtype T or None (iso);
    x_values[ncols] of T (read where present); x_bitmap[(ncols+31)//32]
    uint32: entry k of x is present; allowed[(nrows+31)//32] uint32 or None:
    rows whose bit is 0 are skipped (absent in t).
    sr: SemiringSpec. flipped=False: t_i = ADD_k MULT(a_ik, x_k) with
    positional (i, k, j) = (i, k, 0); flipped=True: MULT(x_k, a_ik) with
    (0, k, i) (vxm u @ B computed on A = B').
    parallel: None picks serial below ``settings.cpu.serial_below`` stored entries; the
    parallel variant runs chunks of rows of equal nnz on a thread pool.
    Returns (t_values[nrows] T, t_present[nrows] bool); absent rows hold the
    identity. Cost O(nnz + nrows), less with a terminal.
    """
    where = "mxv(pull)"
    dtype, add, mult, identity, has_term, terminal = semiring_args(
        where, sr, flipped)
    indptr, indices = index_args(A.indptr, A.indices)
    values, iso = values_arg(A.values, dtype)
    x_values = arg(x_values, dtype)
    x_bitmap, _ = bitmap_arg(x_bitmap)
    allowed, has_allowed = bitmap_arg(allowed)
    t_values = np.empty(A.nrows, dtype)
    t_present = np.empty(A.nrows, np.bool_)
    if parallel is None:
        parallel = indices.size >= serial_below()
    if parallel:
        chunks = indptr_chunks(indptr)
    else:
        chunks = np.array([0, A.nrows], np.int64)
    parallel_for(_rows_kernel(dtype, add, mult), chunks, indptr, indices, values, iso,
                 x_values, x_bitmap, allowed, has_allowed, add, mult, identity,
                 has_term, terminal, t_values, t_present)
    return t_values, t_present
