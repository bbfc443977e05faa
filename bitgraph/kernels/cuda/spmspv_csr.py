"""Launcher of ``spmspv_csr.cu``: mxv push (SpMSpV, the frontier as a list of
entries) on the GPU, with the CPU launcher's signature and results
(``kernels/cpu/spmspv_csr.py``)."""

from __future__ import annotations

import functools

import numpy as np

from bitgraph.kernels import opcodes as oc
from bitgraph.kernels._launch import check_length, semiring_args
from bitgraph.kernels.cuda import C_TYPES, module, shape
from bitgraph.kernels.registry import register

__all__ = ["spmspv_push"]

_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}

# scatter modes of spmspv_csr.cu (``how``)
S_ANY, S_ADD, S_MIN, S_MAX, S_SET, S_CLEAR, S_XOR, S_XNOR, S_CAS, S_COUNT = range(10)


def _names(c):
    return tuple(f"{t}<{c}, {i}>" for t in ("spmspv_push", "push_prepare")
                 for i in _INDEX.values()) + (f"push_finish<{c}>",)


# what module() is asked for (precompile.py): one tuple per value type
SPECS = tuple(("spmspv_csr.cu", _names(c)) for c in C_TYPES.values())


@functools.lru_cache(maxsize=None)
def _kernels(dtype):
    # one NVRTC compile per value type: both index types and the finisher
    names = _names(C_TYPES[dtype])
    mod, lowered = module("spmspv_csr.cu", names)
    return {name: mod.get_function(lowered[name]) for name in names}


def scatter_mode(dtype, add):
    """How a product is folded into t[i] for monoid ``add`` on ``dtype``
    (see spmspv_csr.cu): native atomics where the GPU has them, plain or
    xor stores on bool, a compare-and-swap loop otherwise."""
    dtype = np.dtype(dtype)
    if add == oc.ANY:
        return S_ANY
    if dtype == np.bool_:  # binop<bool>: PLUS/MAX are LOR, TIMES/MIN are LAND
        if add in (oc.PLUS, oc.LOR, oc.MAX):
            return S_SET
        if add in (oc.TIMES, oc.LAND, oc.MIN):
            return S_CLEAR
        return S_XOR if add == oc.LXOR else S_XNOR
    if add in (oc.LOR, oc.LAND, oc.LXOR, oc.EQ):
        return S_COUNT
    if dtype.kind in "iu" and dtype.itemsize >= 4:
        return {oc.PLUS: S_ADD, oc.MIN: S_MIN, oc.MAX: S_MAX}.get(add, S_CAS)
    if dtype == np.float64 and add == oc.PLUS:
        return S_ADD
    return S_CAS


def _start(dtype, add, identity):
    # an exact left identity of binop(add) for the scatter's start value:
    # float 0.0 + -0.0 is 0.0 (the CPU's first product stays -0.0), and
    # fmin(inf, NaN) is inf (the CPU's lone NaN product stays NaN)
    if dtype.kind == "f":
        if add == oc.PLUS:
            return dtype.type(-0.0)
        if add in (oc.MIN, oc.MAX):
            return dtype.type(np.nan)
    return identity


@register("mxv", fmt="csr", device="cuda", variant="push")
def spmspv_push(AT, x_indices, x_values, allowed, sr, flipped, nout):
    """t = A (+).(x) x for a sparse x on the GPU, given AT = A' (push), or
    x (+).(x) B when flipped (AT = B); arguments and results as
    ``kernels.cpu.spmspv_csr.spmspv_push`` (CuPy arrays; x_indices may be
    NumPy). The frontier's edges are spread evenly over the threads (prefix
    sum of its rows' lengths, a binary search per edge), products folded
    into t by atomics per monoid (spmspv_csr.cu). Equal to the CPU's for
    every monoid whose result does not depend on the order of the products
    (integers, bool, MIN/MAX, LOR/LAND/LXOR); float PLUS/TIMES sums are in
    another order (last bits may differ); ANY gives a valid witness. The
    terminal stops CAS folds (an annihilator: the value no longer moves).
    Cost O(nout + nx + E log nx / threads), E the edges of x's rows.
    """
    import cupy

    where = "mxv(push, cuda)"
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr, flipped)
    idx = np.dtype(np.int64) if max(AT.indptr.dtype.itemsize, AT.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(cupy.asarray(AT.indptr), dtype=idx)
    indices = cupy.ascontiguousarray(cupy.asarray(AT.indices), dtype=idx)
    iso = AT.values is None
    values = cupy.zeros(1, dtype) if iso else cupy.ascontiguousarray(AT.values, dtype=dtype)
    x_indices = cupy.ascontiguousarray(cupy.asarray(x_indices), dtype=np.int64).reshape(-1)
    x_values = cupy.ascontiguousarray(cupy.asarray(x_values), dtype=dtype)
    has_allowed = allowed is not None
    allowed = cupy.ascontiguousarray(cupy.asarray(allowed), dtype=np.uint32) if has_allowed \
        else cupy.zeros(1, np.uint32)
    nout = int(nout)
    nx = int(x_indices.size)
    if nx:
        check_length(where, "x_values", x_values, AT.nrows)
    if has_allowed:
        check_length(where, "allowed", allowed, (nout + 31) // 32, "uint32 words")
    how = scatter_mode(dtype, add)
    run = nx > 0 and nout > 0 and indices.size > 0
    if not run:
        return cupy.full(nout, identity, dtype), cupy.zeros(nout, np.bool_)
    start = _start(dtype, add, identity)
    k = _kernels(dtype)
    c, i = C_TYPES[dtype], _INDEX[idx]
    t_values = cupy.empty(nout, dtype)
    t_present = cupy.empty(nout, np.bool_)
    # offsets[q]: the frontier's edges before its entry q (int64: E may pass
    # 2^31), the prefix sum of its rows' lengths; one launch fills those and t
    deg = cupy.empty(nx, np.int64)
    offsets = cupy.empty(nx + 1, np.int64)
    k[f"push_prepare<{c}, {i}>"](
        *shape(max(nx, nout)),
        (indptr, x_indices, np.int64(nx), deg, offsets, t_values, t_present, start,
         np.int64(nout)))
    cupy.cumsum(deg, out=offsets[1:])
    if how == S_COUNT:
        cnt = cupy.zeros(nout, np.uint32)
        norm = cupy.full(nout, 1 if add == oc.LAND else 0, np.uint32)
    else:
        cnt = norm = deg  # unused
    # the grid covers at most nnz(AT) edges, without reading E back to the host
    k[f"spmspv_push<{c}, {i}>"](
        *shape(int(indices.size)),
        (indptr, indices, values, np.bool_(iso), x_indices, offsets, np.int64(nx), x_values,
         allowed, np.bool_(has_allowed), np.int32(how), np.int32(add), np.int32(mult),
         np.bool_(has_term), dtype.type(terminal), t_values, t_present, cnt, norm))
    if how == S_COUNT or np.asarray(start).tobytes() != np.asarray(identity).tobytes():
        k[f"push_finish<{c}>"](
            *shape(nout),
            (np.int32(how), np.int32(add), t_values, t_present, cnt, norm,
             dtype.type(identity), np.int64(nout)))
    return t_values, t_present
