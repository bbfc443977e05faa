"""Elementwise binary and unary ops on dense arrays of one dtype T.

``ops`` uses these on the values of aligned entries (the union/intersection
of the patterns is its business). Comparisons give 0/1 in T.
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    arg, check_binary, check_dtype, even_chunks, num_threads, parallel_for, serial_below,
)
from bitgraph.kernels.cpu.scalar import binop, unop
from bitgraph.kernels.registry import register

__all__ = ["ewise", "unary"]


@njit(cache=True, nogil=True)
def _ewise(p0, p1, code, x, y, out):
    # x[n], y[n], out[n]: out[p0:p1] = x (code) y.  O(p1 - p0)
    for p in range(p0, p1):
        out[p] = binop(code, x[p], y[p])


@njit(cache=True, nogil=True)
def _unary(p0, p1, code, x, out):
    # x[n], out[n]: out[p0:p1] = (code) x.  O(p1 - p0)
    for p in range(p0, p1):
        out[p] = unop(code, x[p])


def _chunks(n, parallel):
    if parallel is None:
        parallel = n >= 4 * serial_below()
    if not parallel:
        return np.array([0, n], np.int64)
    return even_chunks(n, num_threads())


def _warm_ewise(dtype, index_dtype):
    x = np.ones(2, dtype)
    ewise(opcodes.PLUS, x, x)


def _warm_unary(dtype, index_dtype):
    unary(opcodes.IDENTITY, np.ones(2, dtype))


@register("ewise", fmt="dense", device="cpu", variant="binop",
          warmup=_warm_ewise)
def ewise(code, x, y, *, parallel=None):
    """z = x (code) y elementwise, in the dtype T of x.

    x[n], y[n] of dtype T (y is converted to T); returns z[n] of dtype T.
    ``code``: a non-positional binary op code. parallel: None picks serial
    below 4 * ``settings.cpu.serial_below`` entries. Cost O(n).
    """
    code = check_binary("ewise", code)
    x, y = np.asarray(x), np.asarray(y)
    dtype = check_dtype("ewise", x.dtype)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"ewise: x.shape (={x.shape}) and y.shape "
                         f"(={y.shape}) must be equal and 1-d")
    x = arg(x, dtype)
    y = arg(y, dtype)
    out = np.empty(x.size, dtype)
    parallel_for(_ewise, _chunks(x.size, parallel), code, x, y, out)
    return out


@register("unary", fmt="dense", device="cpu", variant="unop",
          warmup=_warm_unary)
def unary(code, x, *, parallel=None):
    """z = (code) x elementwise, in the dtype T of x.

    x[n] of dtype T; returns z[n] of dtype T. ``code``: a unary op code
    (BNOT only for integers). parallel: as for ``ewise``. Cost O(n).
    """
    code = int(code)
    dtype = check_dtype("unary", np.asarray(x).dtype)
    if not opcodes.IDENTITY <= code <= opcodes.BNOT:
        raise ValueError(f"unary: unknown unary op code {code}")
    if code == opcodes.BNOT and dtype.kind not in "iu":
        raise ValueError(f"unary: BNOT needs an integer dtype, not {dtype}")
    x = arg(x, dtype)
    out = np.empty(x.size, dtype)
    parallel_for(_unary, _chunks(x.size, parallel), code, x, out)
    return out
