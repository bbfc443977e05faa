"""Launchers of ``ewise.cu``: elementwise binary and unary ops on CuPy
arrays, with the CPU launchers' signatures and results (``kernels/cpu/ewise.py``)."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels import opcodes
from bitgraph.kernels._launch import check_binary, check_dtype
from bitgraph.kernels.cuda import function, function_names, shape
from bitgraph.kernels.registry import register

__all__ = ["ewise", "unary"]

_TEMPLATES = ("ewise", "unary")
SPECS = (("ewise.cu", function_names(_TEMPLATES)),)  # what function() asks module() for


@register("ewise", fmt="dense", device="cuda", variant="binop")
def ewise(code, x, y):
    """z = x (code) y elementwise on the GPU, in the dtype T of x (y is
    converted to T); x, y: 1-d CuPy arrays of one length. O(n)"""
    import cupy

    code = check_binary("ewise", code)
    x, y = cupy.asarray(x), cupy.asarray(y)
    dtype = check_dtype("ewise", x.dtype)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"ewise: x {x.shape} and y {y.shape} must be 1-d of one length")
    x = cupy.ascontiguousarray(x)
    y = cupy.ascontiguousarray(y, dtype=dtype)
    z = cupy.empty_like(x)
    if x.size:
        fn = function("ewise.cu", "ewise", dtype, _TEMPLATES)
        fn(*shape(x.size), (np.int32(code), x, y, z, np.int64(x.size)))
    return z


@register("unary", fmt="dense", device="cuda", variant="unop")
def unary(code, x):
    """z = (code) x elementwise on the GPU, in the dtype T of x. O(n)"""
    import cupy

    code = int(code)
    x = cupy.ascontiguousarray(cupy.asarray(x))
    dtype = check_dtype("unary", x.dtype)
    if not opcodes.IDENTITY <= code <= opcodes.BNOT:
        raise ValueError(f"unary: unknown unary op code {code}")
    if code == opcodes.BNOT and dtype.kind not in "iu":
        raise ValueError(f"unary: BNOT needs an integer dtype, not {dtype}")
    z = cupy.empty_like(x)
    if x.size:
        fn = function("ewise.cu", "unary", dtype, _TEMPLATES)
        fn(*shape(x.size), (np.int32(code), x, z, np.int64(x.size)))
    return z
