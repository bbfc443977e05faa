"""Launcher of ``reduce.cu``: monoid reductions of contiguous segments on the
GPU, with the CPU launcher's signature and results (``kernels/cpu/reduce.py``)."""

from __future__ import annotations

import functools

import numpy as np

from bitgraph.kernels._launch import check_dtype, check_monoid
from bitgraph.kernels.cuda import C_TYPES, module, settings, shape
from bitgraph.kernels.registry import register

__all__ = ["reduce_segments"]

_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}

# A unit is group * cfg.reduce_items values (cfg: the Cuda settings).
# Lanes per unit (group): the power of 2 at or above sqrt(mean length) / 2,
# 1..32: fewer lanes per row, more values each, more loads in flight and
# fewer shuffle steps, as long as a warp's lanes still read a few
# neighbouring rows (H100, f32 plus over urand rows: mean 16 -> 2 lanes
# 0.27 ms, 16 lanes 0.87).


def _names(c):
    return tuple(f"reduce_units<{c}, {i}>" for i in _INDEX.values())


# what module() is asked for (precompile.py): one tuple per value type
SPECS = tuple(("reduce.cu", _names(c)) for c in C_TYPES.values())


@functools.lru_cache(maxsize=None)
def _kernels(dtype):
    # one NVRTC compile per value type (both index types)
    names = _names(C_TYPES[dtype])
    mod, lowered = module("reduce.cu", names)
    return {name: mod.get_function(lowered[name]) for name in names}


def _group(mean):
    # lanes per unit (see above): a power of 2, 1..32
    g = 1
    while g < 32 and 4 * g * g < mean:  # g < sqrt(mean) / 2
        g *= 2
    return g


def _reduce(cupy, indptr, host, values, code, identity, has_term, terminal, cfg):
    # indptr on the GPU; host: the same on the host, or None; cfg: the Cuda settings
    nseg = indptr.size - 1
    dtype = values.dtype
    group = _group(values.size / max(nseg, 1))
    chunk = group * max(1, int(cfg.reduce_items))
    direct, units, nunits = True, None, nseg
    if values.size > chunk:  # some segment may hold more than one unit
        if host is not None:
            per = np.maximum((np.diff(host) + (chunk - 1)) // chunk, 1)
            if per.max() > 1:
                host_units = np.zeros(nseg + 1, np.int64)
                np.cumsum(per, out=host_units[1:])
                units, nunits = cupy.asarray(host_units), int(host_units[-1])
                direct = False
        else:
            lens = indptr[1:] - indptr[:-1]
            if int(lens.max()) > chunk:
                units = cupy.zeros(nseg + 1, np.int64)
                cupy.cumsum(cupy.maximum((lens + (chunk - 1)) // chunk, 1), dtype=np.int64,
                            out=units[1:])
                nunits, direct = int(units[-1]), False
    out = cupy.empty(nunits, dtype)
    fn = _kernels(dtype)[f"reduce_units<{C_TYPES[dtype]}, {_INDEX[indptr.dtype]}>"]
    fn(*shape(nunits * group, cfg),
       (indptr, values, units if not direct else indptr, np.bool_(direct), np.int64(nseg),
        np.int64(nunits), np.int64(chunk), np.int32(group), np.int32(code), identity,
        np.bool_(has_term), terminal, out))
    if direct:
        return out
    # the units' partial results, one segment per original segment (each
    # non-empty: an empty segment's unit holds the identity)
    return _reduce(cupy, units, host_units if host is not None else None, out, code,
                   identity, has_term, terminal, cfg)


@register("reduce", fmt="csr", device="cuda", variant="segments")
def reduce_segments(indptr, values, code, identity, terminal=None):
    """out[r] = ADD over values[indptr[r]:indptr[r+1]] (identity if empty),
    on the GPU; arguments and results as ``kernels.cpu.reduce.reduce_segments``
    (values a CuPy array, indptr CuPy or NumPy; out a CuPy array).

    Groups of 1-32 lanes (about sqrt(mean segment length) / 2) fold units
    of at most ``settings.cuda.reduce_items`` values per lane; long
    segments' units are reduced again (reduce.cu); units are counted on the
    host when indptr is there or short (``settings.cuda.reduce_host_segments``).
    Exact for integers, bool, MIN/MAX, LOR/LAND/LXOR, ANY (the first value);
    float PLUS/TIMES add in another order than the CPU (last bits may
    differ). Cost O(nseg + nnz) work, O(log nnz) launches for long segments.
    """
    import cupy

    where = "reduce_segments(cuda)"
    cfg = settings()
    values = cupy.asarray(values)
    dtype = check_dtype(where, values.dtype)
    code = check_monoid(where, code)
    host = None  # indptr on the host, where units are counted without launches
    if not hasattr(indptr, "__cuda_array_interface__"):
        host = indptr = np.ascontiguousarray(indptr).reshape(-1)
    elif indptr.size <= cfg.reduce_host_segments + 1:
        host = cupy.asnumpy(indptr).reshape(-1)
    idx = np.dtype(np.int64) if indptr.dtype.itemsize > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(cupy.asarray(indptr), dtype=idx).reshape(-1)
    values = cupy.ascontiguousarray(values).reshape(-1)
    identity = dtype.type(identity)
    has_term = terminal is not None
    terminal = dtype.type(terminal) if has_term else identity
    nseg = indptr.size - 1
    if nseg <= 0:
        return cupy.empty(0, dtype)
    return _reduce(cupy, indptr, host, values, code, identity, has_term, terminal, cfg)
