"""mxv, push: t = A (+).(x) x for a sparse x, scattering along A's columns.

The push (column-wise, "top-down") SpMSpV reads only the rows of AT = A'
named by x's entries: O(nnz of those rows), independent of A's size, which
is what makes a top-down BFS step cheap when the frontier is small.
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    arg, bitmap_arg, index_args, semiring_args, values_arg,
)
from bitgraph.kernels.cpu.scalar import binop, bitmap_get, cast_like, multop
from bitgraph.kernels.registry import CSR, SemiringSpec, register

__all__ = ["spmspv_push"]

_U0 = np.uint64(0)


@njit(cache=True, nogil=True)
def _spmspv_push(indptr, indices, values, iso, x_indices, x_values, allowed,
                 has_allowed, add, mult, has_term, terminal, t_values,
                 t_present):
    # AT: indptr[n_in+1], indices[nnz], values[nnz] (or [1] if iso);
    # x_indices[nx] (sorted), x_values[n_in] (read at x_indices);
    # allowed[(nout+31)//32] (or [1]); t_values[nout] (filled with the
    # identity by the caller), t_present[nout] (False).
    # O(nx + sum of the lengths of AT's rows x_indices)
    any_ = add == opcodes.ANY
    one = cast_like(1, terminal)
    for q in range(np.uint64(x_indices.size)):
        k = np.uint64(x_indices[q])
        xk = x_values[k]
        for p in range(np.uint64(indptr[k]), np.uint64(indptr[k + 1])):
            i = np.uint64(indices[p])
            if has_allowed and not bitmap_get(allowed, i):
                continue
            if t_present[i]:
                acc = t_values[i]
                if any_ or (has_term and acc == terminal):
                    continue
                a = one if iso else values[p]
                t_values[i] = binop(add, acc, multop(mult, a, xk, i, k, _U0))
            else:
                a = one if iso else values[p]
                t_values[i] = multop(mult, a, xk, i, k, _U0)
                t_present[i] = True


def _warm_push(dtype, index_dtype):
    AT = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 1], index_dtype),
             np.ones(2, dtype), 2, 2)
    sr = SemiringSpec(dtype, opcodes.PLUS, opcodes.TIMES, 0, None)
    spmspv_push(AT, np.array([0, 1]), np.ones(2, dtype), None, sr, False, 2)


@register("mxv", fmt="csr", device="cpu", variant="push", warmup=_warm_push)
def spmspv_push(AT, x_indices, x_values, allowed, sr, flipped, nout):
    """t = A (+).(x) x for a sparse x, given AT = A' (push), or x (+).(x) B
    when flipped (then AT = B).

    AT: CSR (n_in x nout): row k lists the i with A(i,k), value a_ik (T or
    None: iso). x_indices[nx] int64, sorted: x's entries; x_values[n_in] of
    T, read at x_indices; allowed[(nout+31)//32] uint32 or None: outputs
    whose bit is 0 are skipped. sr: SemiringSpec. Not flipped: t_i =
    ADD_k MULT(a_ik, x_k), positional (i, k, j) = (i, k, 0); flipped:
    MULT(x_k, a_ik), positional (0, k, i).
    Returns (t_values[nout] T, t_present[nout] bool); absent entries hold
    the identity. Serial. Cost O(nx + nout/8 + nnz of AT's rows x_indices);
    the result's allocation is O(nout).
    """
    where = "mxv(push)"
    dtype, add, mult, identity, has_term, terminal = semiring_args(
        where, sr, flipped)
    indptr, indices = index_args(AT.indptr, AT.indices)
    values, iso = values_arg(AT.values, dtype)
    x_indices = arg(x_indices, np.int64)
    x_values = arg(x_values, dtype)
    allowed, has_allowed = bitmap_arg(allowed)
    t_values = np.full(nout, identity, dtype)
    t_present = np.zeros(nout, np.bool_)
    _spmspv_push(indptr, indices, values, iso, x_indices, x_values, allowed,
                 has_allowed, add, mult, has_term, terminal, t_values,
                 t_present)
    return t_values, t_present
