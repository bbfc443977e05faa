"""Elementwise binary and unary ops on dense arrays of one dtype T.

``ops`` uses these on the values of aligned entries (the union/intersection
of the patterns is its business). Comparisons give 0/1 in T.
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import check_binary, check_dtype, dummy
from bitgraph.kernels.cpu.scalar import binop, unop
from bitgraph.kernels.registry import register

__all__ = ["ewise", "unary"]


@njit(cache=True)
def _ewise(code, x, y, out):
    # x[n], y[n], out[n]: out = x (code) y.  O(n)
    for p in range(np.uint64(out.size)):
        out[p] = binop(code, x[p], y[p])


@njit(cache=True)
def _unary(code, x, out):
    # x[n], out[n]: out = (code) x.  O(n)
    for p in range(np.uint64(out.size)):
        out[p] = unop(code, x[p])


def _warm_ewise(dtype, index_dtype):
    x = np.ones(2, dtype)
    ewise(opcodes.PLUS, x, x)


def _warm_unary(dtype, index_dtype):
    unary(opcodes.IDENTITY, np.ones(2, dtype))


@register("ewise", fmt="dense", device="cpu", variant="binop",
          warmup=_warm_ewise)
def ewise(code, x, y):
    """z = x (code) y elementwise, in the dtype T of x.

    x[n], y[n] of dtype T (y is converted to T); returns z[n] of dtype T.
    ``code``: a non-positional binary op code. Cost O(n).
    """
    code = check_binary("ewise", code)
    dtype = check_dtype("ewise", np.asarray(x).dtype)
    x = np.ascontiguousarray(x, dtype)
    y = np.ascontiguousarray(y, dtype)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"ewise: x.shape (={x.shape}) and y.shape "
                         f"(={y.shape}) must be equal and 1-d")
    out = np.empty(x.size, dtype)
    _ewise(code, x, y, out)
    return out


@register("unary", fmt="dense", device="cpu", variant="unop",
          warmup=_warm_unary)
def unary(code, x):
    """z = (code) x elementwise, in the dtype T of x.

    x[n] of dtype T; returns z[n] of dtype T. ``code``: a unary op code
    (BNOT only for integers). Cost O(n).
    """
    code = int(code)
    dtype = check_dtype("unary", np.asarray(x).dtype)
    if not opcodes.IDENTITY <= code <= opcodes.BNOT:
        raise ValueError(f"unary: unknown unary op code {code}")
    if code == opcodes.BNOT and dtype.kind not in "iu":
        raise ValueError(f"unary: BNOT needs an integer dtype, not {dtype}")
    x = np.ascontiguousarray(x, dtype).reshape(-1)
    out = np.empty(x.size, dtype)
    _unary(code, x, out)
    return out
