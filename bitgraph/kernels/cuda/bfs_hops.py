"""Launcher of ``bfs_hops.cu``: BFS levels from one source, ``cfg.hops_levels``
levels per grid barrier, each block walking its share of a phase's start
for that many hops on its own (block barriers between hops), for long
mesh-like graphs. Exact levels, or None when it gave up (a block's hop
list past ``cfg.hops_list`` entries): the caller then runs a
level-synchronous method. Knobs come in as ``cfg``
(``bitgraph.settings.BFSCuda``, its ``hops_*`` fields); a ``stats``
(``bitgraph.Stats``) receives ``hops``, ``gave_up`` and ``kernel_ms``.
"""

from __future__ import annotations

import threading

import numpy as np

from bitgraph.kernels.cuda import PackedLaunch, cooperative_blocks, module
from bitgraph.kernels.cuda.bfs_async import check_square_source
from bitgraph.kernels.cuda.constants import BFS_HOPS
from bitgraph.kernels.registry import register

__all__ = ["bfs_hops"]

_SOURCE = "bfs_hops.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"bfs_hops_run<{i}>" for i in _INDEX.values())
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
_BLOCK = BFS_HOPS["BLOCK"]
_LIST = BFS_HOPS["LIST"]
_WORK: dict = {}


def _work(cupy, n):
    """The queue (int32[2n], grown to the largest n asked), the counters
    (uint32[4]: three queue counts and the error flag), the grid barrier
    (uint32[2], zero once) and a pinned host staging buffer (int32[6]: the
    counters' start, the source, level 0), per device and thread."""
    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _WORK.get(key)
    if got is None or got[0].size < 2 * n:
        small = got[1:] if got is not None else None
        got = _WORK[key] = None  # the old queue goes before the new one comes
        if small is None:
            mem = cupy.cuda.alloc_pinned_memory(6 * 4)
            small = (cupy.empty(4, np.uint32), cupy.zeros(2, np.uint32),
                     np.frombuffer(mem, np.int32, 6), mem)
        got = _WORK[key] = (cupy.empty(2 * max(n, 1), np.int32), *small)
    return got


@register("bfs", fmt="csr", device="cuda", variant="hops")
def bfs_hops(out_csr, source, *, cfg, stats=None):
    """BFS levels from ``source`` over ``out_csr`` (CuPy arrays, int32 or
    int64 indices), ``cfg.hops_levels`` levels a grid barrier: int32 CuPy
    levels, -1 where unreached, or None when it gave up (see the module
    docstring). cfg: the ``BFSCuda`` settings; stats: a ``bitgraph.Stats``.

    >>> import cupy, numpy as np                      # doctest: +SKIP
    >>> from bitgraph.formats.csr import CSR          # doctest: +SKIP
    >>> a = CSR(cupy.asarray([0, 1, 2, 2]), cupy.asarray([1, 2]), None, 3, 3)  # doctest: +SKIP
    >>> bfs_hops(a, 0, cfg=BFSCuda()).tolist()        # doctest: +SKIP
    [0, 1, 2]
    """
    import cupy

    from bitgraph.device import oom_guard

    n = check_square_source("bfs_hops", out_csr, source)
    hops, cap = int(cfg.hops_levels), int(cfg.hops_list)
    if hops < 1 or not 1 <= cap <= _LIST:
        raise ValueError(f"bfs_hops: settings.bfs_cuda.hops_levels = {hops} must be >= 1 and"
                         f" hops_list = {cap} in [1, {_LIST}]")
    if n >= 2**31:
        raise ValueError(f"bfs_hops: fewer than 2**31 vertices expected, got {n}")
    idx = np.dtype(np.int64) if max(out_csr.indptr.dtype.itemsize,
                                    out_csr.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(out_csr.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(out_csr.indices, dtype=idx)
    with oom_guard("bfs_hops", 4 * n + 8 * n):
        level = cupy.empty(n, np.int32)
        queue, ctrl, bar, host, _ = _work(cupy, n)
    stream = cupy.cuda.get_current_stream()
    # the call's start: counts (1, 0, 0), no error; queue[0] = source; level[source] = 0
    host[:] = (1, 0, 0, 0, source, 0)
    rt = cupy.cuda.runtime
    rt.memsetAsync(level.data.ptr, 0xFF, 4 * n, stream.ptr)
    rt.memcpyAsync(ctrl.data.ptr, host.ctypes.data, 16, 1, stream.ptr)
    rt.memcpyAsync(queue.data.ptr, host.ctypes.data + 16, 4, 1, stream.ptr)
    rt.memcpyAsync(level.data.ptr + 4 * source, host.ctypes.data + 20, 4, 1, stream.ptr)
    mod, lowered = module(_SOURCE, _NAMES)
    fn = mod.get_function(lowered[f"bfs_hops_run<{_INDEX[idx]}>"])
    grid = cooperative_blocks(fn, _BLOCK, 1)
    run = PackedLaunch(fn, grid, _BLOCK, (indptr, indices, level, np.int64(n), queue, ctrl, bar,
                                          np.int32(hops), np.uint32(cap)), cooperative=True)
    ev = None
    if stats is not None:
        stats.ran(("bfs", "csr", "cuda", "hops"))
        ev = (cupy.cuda.Event(), cupy.cuda.Event())
        ev[0].record()
    run.launch(stream.ptr)
    if ev:
        ev[1].record()
    gave_up = bool(ctrl[3:4].get()[0])  # synchronize!
    if stats is not None:
        stats.metrics.update(hops=hops, gave_up=gave_up,
                             kernel_ms=cupy.cuda.get_elapsed_time(ev[0], ev[1]))
    return None if gave_up else level
