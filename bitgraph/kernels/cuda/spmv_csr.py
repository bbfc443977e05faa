"""Launcher of ``spmv_csr.cu``: mxv pull on the GPU, with the CPU
launcher's signature and results (``kernels/cpu/spmv_csr.py``)."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels import opcodes as oc
from bitgraph.kernels._launch import check_length, semiring_args
from bitgraph.kernels.cuda import C_TYPES, module, shape
from bitgraph.kernels.registry import register

__all__ = ["spmv_pull"]

_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
# semirings compiled with their op codes fixed (the inner loop's switch
# folds away): the BFS, SSSP and PageRank/SpMV products. Others run the
# generic kernel (-1, -1) with the codes as arguments.
FAST = {
    (oc.PLUS, oc.TIMES): ("float", "double"),
    (oc.MIN, oc.PLUS): ("float", "double", "int", "long long"),
    (oc.LOR, oc.LAND): ("bool",),
    (oc.ANY, oc.PAIR): ("bool",),
    (oc.ANY, oc.SECONDI): ("long long",),
}


def _name(t, i, add, mult):
    return f"spmv_pull<{t}, {i}, {add}, {mult}>"


_NAMES = tuple(_name(t, i, -1, -1) for t in C_TYPES.values() for i in _INDEX.values()) + tuple(
    _name(t, i, a, m) for (a, m), ts in FAST.items() for t in ts for i in _INDEX.values())
SPECS = (("spmv_csr.cu", _NAMES),)  # what module() is asked for (precompile.py)


def _dummy(cupy, dtype):
    return cupy.zeros(1, dtype)


def group_size(nrows: int, nnz: int) -> int:
    """Lanes per row: the power of 2 at or above the mean row length, 1..32
    (a lane per entry of a mean row; longer rows loop)."""
    mean = nnz / max(nrows, 1)
    g = 1
    while g < 32 and g < mean:
        g *= 2
    return g


@register("mxv", fmt="csr", device="cuda", variant="pull")
def spmv_pull(A, x_values, x_bitmap, allowed, sr, flipped=False, *, lanes=None):
    """t = A (+).(x) x on the GPU, ``lanes`` per row (a power of 2 up to 32;
    None: ``group_size``); arguments and results as
    ``kernels.cpu.spmv_csr.spmv_pull`` (CuPy arrays). Float sums may differ
    from the CPU's in the last bits (the lanes add in another order); ANY
    returns a valid witness, not necessarily the CPU's."""
    import cupy

    where = "mxv(pull, cuda)"
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr, flipped)
    idx = np.dtype(np.int64) if max(A.indptr.dtype.itemsize, A.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(A.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(A.indices, dtype=idx)
    iso = A.values is None
    values = _dummy(cupy, dtype) if iso else cupy.ascontiguousarray(A.values, dtype=dtype)
    x_values = cupy.ascontiguousarray(x_values, dtype=dtype)
    x_bitmap = cupy.ascontiguousarray(x_bitmap, dtype=np.uint32)
    has_allowed = allowed is not None
    allowed = cupy.ascontiguousarray(allowed, dtype=np.uint32) if has_allowed \
        else _dummy(cupy, np.uint32)
    check_length(where, "x_values", x_values, A.ncols)
    check_length(where, "x_bitmap", x_bitmap, (A.ncols + 31) // 32, "uint32 words")
    if has_allowed:
        check_length(where, "allowed", allowed, (A.nrows + 31) // 32, "uint32 words")
    t_values = cupy.empty(A.nrows, dtype)
    t_present = cupy.empty(A.nrows, np.bool_)
    group = group_size(A.nrows, A.nnz) if lanes is None else int(lanes)
    if group not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: lanes={lanes!r} must be a power of 2 up to 32")
    if A.nrows:
        mod, lowered = module("spmv_csr.cu", _NAMES)
        t = C_TYPES[dtype]
        fast = t in FAST.get((add, mult), ())
        name = _name(t, _INDEX[idx], add, mult) if fast else _name(t, _INDEX[idx], -1, -1)
        fn = mod.get_function(lowered[name])
        fn(*shape(A.nrows * group),
           (indptr, indices, values, np.bool_(iso), x_values, x_bitmap, allowed,
            np.bool_(has_allowed), np.int32(add), np.int32(mult), dtype.type(identity),
            np.bool_(has_term), dtype.type(terminal), t_values, t_present,
            np.int64(A.nrows), np.int32(group)))
    return t_values, t_present
