"""Launcher of ``bfs_hops.cu``: BFS levels from one source with a grid
barrier every ``cfg.hops_levels`` hops, each block walking its share of a
phase's start that many hops on its own (block barriers between hops), for
long mesh-like graphs. Exact levels, or None when it gave up (a phase's
queue past ``cfg.hops_queue`` items a vertex): the caller then runs a
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


def _work(cupy, qcap):
    """The queue (two halves of qcap int2 items, as int32 pairs, grown to the
    largest asked), the counters (uint32[4]: three queue counts and the error
    flag), the grid barrier (uint32[2], zero once) and a pinned host staging
    buffer (int32[7]: the counters' start, the source's item, its level 0),
    per device and thread."""
    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _WORK.get(key)
    if got is None or got[0].size < 4 * qcap:
        small = got[1:] if got is not None else None
        got = _WORK[key] = None  # the old queue goes before the new one comes
        if small is None:
            mem = cupy.cuda.alloc_pinned_memory(7 * 4)
            small = (cupy.empty(4, np.uint32), cupy.zeros(2, np.uint32),
                     np.frombuffer(mem, np.int32, 7), mem)
        got = _WORK[key] = (cupy.empty(4 * qcap, np.int32), *small)
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
    hops, cap, per = int(cfg.hops_levels), int(cfg.hops_list), float(cfg.hops_queue)
    if hops < 1 or not 1 <= cap <= _LIST or not per >= 0:
        raise ValueError(f"bfs_hops: settings.bfs_cuda.hops_levels = {hops} must be >= 1,"
                         f" hops_list = {cap} in [1, {_LIST}] and hops_queue = {per} >= 0")
    if n >= 2**31:
        raise ValueError(f"bfs_hops: fewer than 2**31 vertices expected, got {n}")
    qcap = max(1, min(int(per * n), 2**31 - 1))
    idx = np.dtype(np.int64) if max(out_csr.indptr.dtype.itemsize,
                                    out_csr.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(out_csr.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(out_csr.indices, dtype=idx)
    with oom_guard("bfs_hops", 4 * n + 16 * qcap):
        level = cupy.empty(n, np.int32)
        queue, ctrl, bar, host, _ = _work(cupy, qcap)
    stream = cupy.cuda.get_current_stream()
    # the call's start: counts (1, 0, 0), no error; the item (source, 0); level[source] = 0
    host[:] = (1, 0, 0, 0, source, 0, 0)
    rt = cupy.cuda.runtime
    rt.memsetAsync(level.data.ptr, 0xFF, 4 * n, stream.ptr)
    rt.memcpyAsync(ctrl.data.ptr, host.ctypes.data, 16, 1, stream.ptr)
    rt.memcpyAsync(queue.data.ptr, host.ctypes.data + 16, 8, 1, stream.ptr)
    rt.memcpyAsync(level.data.ptr + 4 * source, host.ctypes.data + 24, 4, 1, stream.ptr)
    mod, lowered = module(_SOURCE, _NAMES)
    fn = mod.get_function(lowered[f"bfs_hops_run<{_INDEX[idx]}>"])
    grid = cooperative_blocks(fn, _BLOCK, 1)
    run = PackedLaunch(fn, grid, _BLOCK, (indptr, indices, level, np.int64(qcap), queue, ctrl,
                                          bar, np.int32(hops), np.uint32(cap)), cooperative=True)
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
