"""Monoid reductions of contiguous segments (matrix rows, whole vectors)."""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    arg, check_dtype, check_monoid, index_args, indptr_chunks, parallel_for, serial_below,
)
from bitgraph.kernels.cpu.scalar import binop
from bitgraph.kernels.registry import register

__all__ = ["reduce_segments"]


@njit(cache=True, nogil=True)
def _reduce_segments(r0, r1, indptr, values, add, identity, has_term,
                     terminal, out):
    # indptr[nseg+1], values[indptr[nseg]], out[nseg]: segments r0..r1-1.
    # O(r1 - r0 + their nnz)
    any_ = add == opcodes.ANY
    for r in range(r0, r1):
        lo = np.uint64(indptr[r])
        hi = np.uint64(indptr[r + 1])
        if lo == hi:
            out[r] = identity
            continue
        acc = values[lo]
        if not any_:
            for p in range(lo + np.uint64(1), hi):
                if has_term and acc == terminal:
                    break
                acc = binop(add, acc, values[p])
        out[r] = acc


def _warm_reduce(dtype, index_dtype):
    reduce_segments(np.array([0, 1, 2], index_dtype), np.ones(2, dtype),
                    opcodes.PLUS, 0, None)


@register("reduce", fmt="csr", device="cpu", variant="segments",
          warmup=_warm_reduce)
def reduce_segments(indptr, values, code, identity, terminal=None, *,
                    parallel=None):
    """out[r] = ADD over values[indptr[r]:indptr[r+1]] (identity if empty).

    indptr[nseg+1] int32/int64; values[indptr[-1]] of dtype T; code: monoid
    code; identity, terminal (or None): scalars of T (a segment stops once
    its accumulator equals terminal; ANY takes the first value). Returns
    out[nseg] of T. For a whole vector pass ``indptr = [0, n]`` (one
    segment: serial). parallel: None picks serial below ``settings.cpu.serial_below``
    values; chunks of segments run on the thread pool.
    Cost O(nseg + nnz), less with a terminal.
    """
    where = "reduce_segments"
    dtype = check_dtype(where, np.asarray(values).dtype)
    code = check_monoid(where, code)
    (indptr,) = index_args(indptr)
    values = arg(values, dtype)
    identity = dtype.type(identity)
    has_term = terminal is not None
    terminal = dtype.type(terminal) if has_term else identity
    nseg = indptr.size - 1
    out = np.empty(nseg, dtype)
    if parallel is None:
        parallel = values.size >= serial_below()
    if parallel and nseg > 1:
        chunks = indptr_chunks(indptr)
    else:
        chunks = np.array([0, nseg], np.int64)
    parallel_for(_reduce_segments, chunks, indptr, values, code, identity,
                 has_term, terminal, out)
    return out
