"""Launcher of ``bmv_bvss.cu``: Blest's tensor-core step as a Boolean
matrix-vector product on BVSS (``method="tensor_core"``), with the CPU
launcher's signature and results (``kernels/cpu/bmv_bvss.py``; CuPy arrays
in and out).

One launch: a warp per 32 VSSs at a time (grid-stride), the VSSs of column
blocks without frontier bits skipped after one byte read each (see the
``.cu`` header). The host allocates the zeroed results; the kernel sets
their bytes.
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels._launch import check_bmv_vectors
from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.registry import register

__all__ = ["bmv_bvss"]

SOURCE = "bmv_bvss.cu"
# the tensor-core step and its SIMT twin (mma=False)
_NAMES = ("bmv_bvss<true>", "bmv_bvss<false>")
SPECS = ((SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
SIGMA = 8  # the MMA fragment layout holds 4 slices of 8 bits a lane

_FUNCS: dict = {}
_DUMMIES: dict = {}


def _function(cupy, mma):
    name = _NAMES[0] if mma else _NAMES[1]
    key = (cupy.cuda.Device().id, name)
    fn = _FUNCS.get(key)
    if fn is None:
        mod, lowered = module(SOURCE, _NAMES)
        fn = _FUNCS[key] = mod.get_function(lowered[name])
    return fn


def _dummy(cupy, dtype):
    """A 1-element array standing in for an absent one (cached per device)."""
    key = (cupy.cuda.Device().id, np.dtype(dtype))
    a = _DUMMIES.get(key)
    if a is None:
        a = _DUMMIES[key] = cupy.zeros(1, dtype)
    return a


@register("mxv", fmt="bvss", device="cuda", variant="tensor_core")
def bmv_bvss(b, x_present, x_true, allowed, *, mma=True):
    """(t_true, t_present) bool[nrows] on the GPU: row r of BVSS ``b``
    (sigma 8) is present when it has a column in common with the packed
    bitmap ``x_present`` and true when it has one with ``x_present &
    x_true`` (``x_true`` None: true = present, and the two are one array);
    ``allowed``: packed row bitmap or None (rows not allowed: False). As
    ``kernels.cpu.bmv_bvss.bmv_bvss``, equal results. ``mma``: the two
    m8n8k128 b1 MMAs per VSS (tensor cores, sm_80+), or False for their
    SIMT twin (the same answer on CUDA cores).

    >>> t_true, t_present = bmv_bvss(A.T.bvss(), f._bitmap, None, None)  # doctest: +SKIP
    """
    import cupy

    where = "mxv(tensor_core, cuda)"
    if b.sigma != SIGMA:
        raise ValueError(f"{where}: BVSS sigma={b.sigma}; the tensor-core step needs sigma={SIGMA}")
    check_bmv_vectors(where, b, x_present, allowed, x_true)
    n_vss = b.n_vss
    if b.row_ids.size != n_vss * 32 * (32 // SIGMA) or b.masks.size != n_vss * 32:
        raise ValueError(f"{where}: BVSS arrays do not hold {n_vss} VSSs "
                         f"(row_ids {b.row_ids.size}, masks {b.masks.size} entries)")
    same = x_true is None
    t_present = cupy.zeros(b.nrows, np.bool_)
    t_true = t_present if same else cupy.zeros(b.nrows, np.bool_)
    if n_vss == 0:
        return t_true, t_present
    if b.ncols > 8 * (2**31 - 1):
        raise ValueError(f"{where}: {b.ncols} columns: the column blocks do not fit int32 ids")
    v2r = cupy.ascontiguousarray(b.virtual_to_real, dtype=np.int32)
    masks = cupy.ascontiguousarray(b.masks, dtype=np.uint32).reshape(-1)
    rows = cupy.ascontiguousarray(b.row_ids, dtype=np.uint32).reshape(-1)  # read as uint4
    if rows.data.ptr % 16:
        rows = rows.copy()  # a view at an offset: the kernel's 16-byte loads need alignment
    xp = cupy.ascontiguousarray(x_present, dtype=np.uint32)
    xt = _dummy(cupy, np.uint32) if same else cupy.ascontiguousarray(x_true, dtype=np.uint32)
    if allowed is None:
        allowed, has_allowed = _dummy(cupy, np.uint32), False
    else:
        allowed, has_allowed = cupy.ascontiguousarray(allowed, dtype=np.uint32), True
    out_true = _dummy(cupy, np.bool_) if same else t_true
    # a thread per VSS of a sweep: a warp takes 32 VSSs per grid-stride step
    _function(cupy, mma)(*shape(n_vss),
                         (v2r, masks, rows, np.int64(n_vss), xp, xt, np.bool_(same), allowed,
                          np.bool_(has_allowed), t_present, out_true))
    return t_true, t_present
