"""Launcher of ``bfs_window.cu``: BFS levels from one source by a windowed
asynchronous label-correcting traversal (an item is relaxed only within
``cfg.window_levels`` levels of the least level with pending items), for
long mesh-like graphs of mean degree 8-32 (rgg, grids with diagonals),
where the plain work list (``bfs_async``) relabels each vertex many times
and the level-synchronous kernels pay a grid barrier a level. Exact levels,
or None when it gave up (work list full, or a warp idle past
``cfg.window_patience_s``): the caller then runs a level-synchronous method.
Knobs come in as ``cfg`` (``bitgraph.settings.BFSCuda``, its ``window_*``
fields); a ``stats`` (``bitgraph.Stats``) receives ``appended`` (items,
the source included), ``gave_up`` and ``kernel_ms``.
"""

from __future__ import annotations

import threading

import numpy as np

from bitgraph.kernels.cuda import module, multiprocessors
from bitgraph.kernels.cuda.bfs_async import check_square_source
from bitgraph.kernels.cuda.constants import BFS_WINDOW
from bitgraph.kernels.registry import register

__all__ = ["bfs_window", "round_edges"]

_SOURCE = "bfs_window.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_EDGES = (4, 8, 16)  # the run kernel's E (edges per lane and round)
_NAMES = tuple(f"bfs_window_start<{i}>" for i in _INDEX.values()) + tuple(
    f"bfs_window_run<{i}, {e}>" for i in _INDEX.values() for e in _EDGES)
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
_BLOCK = BFS_WINDOW["BLOCK"]
_CTRL = BFS_WINDOW["CTRL"]
_F_PREFETCH, _F_CHECK = BFS_WINDOW["F_PREFETCH"], BFS_WINDOW["F_CHECK"]
_TAIL, _ERROR = BFS_WINDOW["TAIL"], BFS_WINDOW["ERROR"]
_LIMIT = 1 << BFS_WINDOW["VBITS"]  # an item's vertex and row-start fields
_WORK: dict = {}


def round_edges(mean_degree, forced=0):
    """The run kernel's edges per lane and round: ``forced`` when it is one
    of 4, 8, 16, else the least of them at or above the mean degree (16
    above 16): a row of the mean degree in one round.

    >>> round_edges(4.0), round_edges(6.0), round_edges(15.9), round_edges(40.0), round_edges(16, 4)
    (4, 8, 16, 16, 4)
    """
    if forced in _EDGES:
        return forced
    return next((e for e in _EDGES if mean_degree <= e), _EDGES[-1])


def _work(cupy, cap, levels_cap):
    """The work list (two uint64 a slot), the per-level pending counts
    (uint32), the counters and the list's dirty length (a list: slots from
    there on are EMPTY), per device and thread; each grows to the largest
    size asked."""
    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _WORK.get(key)
    if got is None or got[0].size < 2 * cap or got[1].size < levels_cap:
        old = got
        got = _WORK[key] = None  # the old arrays go before the new ones come
        items = old[0] if old is not None and old[0].size >= 2 * cap else None
        pend = old[1] if old is not None and old[1].size >= levels_cap else None
        dirty = old[3] if items is not None else None
        old = None
        if items is None:
            items = cupy.empty(2 * cap, np.uint64)
            dirty = [items.size // 2]
        if pend is None:
            pend = cupy.empty(levels_cap, np.uint32)
        got = _WORK[key] = (items, pend, cupy.empty(_CTRL, np.uint64), dirty)
    return got


def _clock_hz(cupy):
    key = ("clock", cupy.cuda.runtime.getDevice())
    if key not in _WORK:
        _WORK[key] = cupy.cuda.runtime.getDeviceProperties(key[1])["clockRate"] * 1e3
    return _WORK[key]


@register("bfs", fmt="csr", device="cuda", variant="window")
def bfs_window(out_csr, source, *, cfg, stats=None):
    """BFS levels from ``source`` over ``out_csr`` (CuPy arrays, int32 or
    int64 indices) by the windowed asynchronous traversal: int32 CuPy
    levels, -1 where unreached, or None when it gave up (see the module
    docstring). cfg: the ``BFSCuda`` settings; stats: a ``bitgraph.Stats``.

    >>> import cupy, numpy as np                      # doctest: +SKIP
    >>> from bitgraph.formats.csr import CSR          # doctest: +SKIP
    >>> a = CSR(cupy.asarray([0, 1, 2, 2]), cupy.asarray([1, 2]), None, 3, 3)  # doctest: +SKIP
    >>> bfs_window(a, 0, cfg=BFSCuda()).tolist()      # doctest: +SKIP
    [0, 1, 2]
    """
    import cupy

    from bitgraph.device import oom_guard

    n = check_square_source("bfs_window", out_csr, source)
    m = int(out_csr.indices.size)
    if n >= _LIMIT or m >= _LIMIT:
        raise ValueError(f"bfs_window: takes fewer than {_LIMIT} vertices and entries, got {n}"
                         f" and {m}")
    if cfg.window_levels < 0:
        raise ValueError(f"bfs_window: window_levels must be >= 0, got {cfg.window_levels}")
    idx = np.dtype(np.int64) if max(out_csr.indptr.dtype.itemsize,
                                    out_csr.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(out_csr.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(out_csr.indices, dtype=idx)
    cap = int(cfg.window_cap_per_vertex * n) + 64
    levels_cap = n + 1  # a level is a simple path's length: at most n - 1
    # pend: a word per level below levels_cap, and one for the floor past the last level
    metrics = None
    if stats is not None:
        stats.ran(("bfs", "csr", "cuda", "window"))
        metrics = stats.metrics
    with oom_guard("bfs_window", 16 * cap + 4 * (levels_cap + 1) + 4 * n):
        items, pend, ctrl, dirty = _work(cupy, cap, levels_cap + 1)
        level = cupy.empty(n, np.int32)
    stream = cupy.cuda.get_current_stream()
    # EMPTY: only the slots the last traversal wrote (below its tail)
    cupy.cuda.runtime.memsetAsync(items.data.ptr, 0xFF, 16 * min(dirty[0], cap), stream.ptr)
    cupy.cuda.runtime.memsetAsync(pend.data.ptr, 0, 4 * (levels_cap + 1), stream.ptr)
    cupy.cuda.runtime.memsetAsync(level.data.ptr, 0xFF, 4 * n, stream.ptr)  # -1: unreached
    mod, lowered = module(_SOURCE, _NAMES)
    it = _INDEX[idx]
    lv = level.view(np.uint32)  # the kernels' levels: unreached = 0xFFFFFFFF (-1)
    mod.get_function(lowered[f"bfs_window_start<{it}>"])(
        (1,), (32,), (indptr, lv, pend, np.int64(source), items, ctrl))
    e = round_edges(m / max(n, 1), cfg.window_round_edges)
    fn = mod.get_function(lowered[f"bfs_window_run<{it}, {e}>"])
    grid = max(1, multiprocessors() * cfg.window_warps_per_sm * 32 // _BLOCK)
    flags = _F_PREFETCH * bool(cfg.window_prefetch_rows) | _F_CHECK * bool(cfg.window_check)
    hz = _clock_hz(cupy)
    ev = [cupy.cuda.Event(), cupy.cuda.Event()] if metrics is not None else None
    if ev:
        ev[0].record()
    fn((grid,), (_BLOCK,), (indptr, indices, lv, pend, np.int64(levels_cap), items,
                            np.int64(cap), ctrl, np.int32(cfg.window_levels),
                            np.int64(cfg.window_hold_s * hz), np.int64(cfg.window_patience_s * hz),
                            np.int32(cfg.window_chain_max), np.int32(flags)))
    if ev:
        ev[1].record()
    head = ctrl.get()  # synchronize!  (gave up or not)
    # slots written: below the tail; those past cap not cleared this time stay dirty
    dirty[0] = min(max(int(head[_TAIL]), dirty[0] if dirty[0] > cap else 0), items.size // 2)
    if metrics is not None:
        ev[1].synchronize()
        metrics.update(appended=int(head[_TAIL]), gave_up=bool(head[_ERROR]),
                       kernel_ms=cupy.cuda.get_elapsed_time(ev[0], ev[1]))
    return None if head[_ERROR] else level
