"""Launcher of ``bfs_async.cu``: BFS levels by an asynchronous,
label-correcting traversal (no barrier between levels), for graphs of
thousands of levels. Exact levels or None when it gives up (work list
full, or a warp idle past ``PATIENCE_S``): the caller then runs a
level-synchronous method.
"""

from __future__ import annotations

import threading

import numpy as np

from bitgraph.kernels.cuda import module, multiprocessors
from bitgraph.kernels.registry import register

__all__ = ["bfs_async", "CAP_PER_VERTEX", "WARPS_PER_SM", "PATIENCE_S", "CHAIN_MAX", "STATS"]

_SOURCE = "bfs_async.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"bfs_async_{k}<{i}>" for i in _INDEX.values() for k in ("start", "run"))
_BLOCK = 256
_INF = np.iinfo(np.int32).max

# work-list slots per vertex (16 bytes each): a vertex is appended once per
# improvement of its level, ~1-2 times on grids; past the cap the traversal
# gives up (None)
CAP_PER_VERTEX = 4
# resident warps per multiprocessor polling the list (more warps: more
# items in flight, and more polling traffic)
WARPS_PER_SM = 8
# a warp that finds nothing to do for this long gives up the traversal
PATIENCE_S = 2.0
# a lane relaxes one child of each item itself, without the list, up to
# this many in a row (0: every child goes through the list)
CHAIN_MAX = 64

# benchmarks: a dict here receives "appended" (items, the source included)
# and "kernel_ms" of the last call
STATS = None
_WORK: dict = {}


def _work(cupy, cap):
    # the work list (two uint64 a slot) and the counters, per device and thread
    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _WORK.get(key)
    if got is None or got[0].size < 2 * cap:
        got = _WORK[key] = (cupy.empty(2 * cap, np.uint64), cupy.empty(64, np.uint64))
    return got


def _clock_hz(cupy):
    key = ("clock", cupy.cuda.runtime.getDevice())
    if key not in _WORK:
        _WORK[key] = cupy.cuda.runtime.getDeviceProperties(key[1])["clockRate"] * 1e3
    return _WORK[key]


@register("bfs", fmt="csr", device="cuda", variant="async")
def bfs_async(out_csr, source):
    """BFS levels from ``source`` over ``out_csr`` (CuPy arrays, int32 or
    int64 indices) without level barriers: int32 CuPy levels, -1 where
    unreached, or None when the traversal gave up (see the module
    docstring).

    >>> import cupy, numpy as np                      # doctest: +SKIP
    >>> from bitgraph.formats.csr import CSR          # doctest: +SKIP
    >>> a = CSR(cupy.asarray([0, 1, 2, 2]), cupy.asarray([1, 2]), None, 3, 3)  # doctest: +SKIP
    >>> bfs_async(a, 0).tolist()                      # doctest: +SKIP
    [0, 1, 2]
    """
    import cupy

    from bitgraph.device import oom_guard

    n = int(out_csr.nrows)
    if out_csr.ncols != n:
        raise ValueError(f"bfs_async: a square CSR expected, got {out_csr.nrows}x{out_csr.ncols}")
    if not 0 <= source < n:
        raise IndexError(f"bfs_async: source {source} out of range [0, {n})")
    idx = np.dtype(np.int64) if max(out_csr.indptr.dtype.itemsize,
                                    out_csr.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(out_csr.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(out_csr.indices, dtype=idx)
    cap = CAP_PER_VERTEX * n + 64
    with oom_guard("bfs_async", 16 * cap + 4 * n):
        items, ctrl = _work(cupy, cap)
        level = cupy.full(n, _INF, np.int32)
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memsetAsync(items.data.ptr, 0xFF, 16 * cap, stream.ptr)  # EMPTY
    mod, lowered = module(_SOURCE, _NAMES)
    it = _INDEX[idx]
    mod.get_function(lowered[f"bfs_async_start<{it}>"])(
        (1,), (1,), (indptr, level, items, ctrl, np.int64(source)))
    fn = mod.get_function(lowered[f"bfs_async_run<{it}>"])
    grid = max(1, multiprocessors() * WARPS_PER_SM * 32 // _BLOCK)
    clock_hz = _clock_hz(cupy)
    ev = [cupy.cuda.Event(), cupy.cuda.Event()] if STATS is not None else None
    if ev:
        ev[0].record()
    fn((grid,), (_BLOCK,), (indptr, indices, level, items, np.int64(cap), ctrl,
                            np.int64(PATIENCE_S * clock_hz), np.int32(CHAIN_MAX)))
    if ev:
        ev[1].record()
    head = ctrl.get()
    if STATS is not None:
        ev[1].synchronize()
        STATS["appended"] = int(head[16])
        STATS["kernel_ms"] = cupy.cuda.get_elapsed_time(ev[0], ev[1])
    if head[48]:
        return None
    return cupy.where(level == _INF, np.int32(-1), level)
