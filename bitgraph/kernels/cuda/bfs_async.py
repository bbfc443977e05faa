"""Launcher of ``bfs_async.cu``: BFS levels by an asynchronous,
label-correcting traversal (no barrier between levels), for graphs of
thousands of levels, from one source (``bfs_async``) or from up to 64
side by side (``traverse``: msbfs's ``schedule="async"``). Exact levels,
or a report that it gave up (work list full, or a warp idle past
``cfg.patience_s``): the caller then runs a level-synchronous method.
Knobs come in as ``cfg`` (``bitgraph.settings.BFSAsync``); a ``stats``
(``bitgraph.Stats``) receives ``appended`` (items, the sources included),
``sources``, ``gave_up`` and ``kernel_ms``.
"""

from __future__ import annotations

import threading

import numpy as np

from bitgraph.kernels.cuda import module, multiprocessors
from bitgraph.kernels.cuda.constants import BFS_ASYNC
from bitgraph.kernels.registry import register

__all__ = ["bfs_async", "traverse"]

_SOURCE = "bfs_async.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"bfs_async_{k}<{i}>" for i in _INDEX.values() for k in ("start", "run")) + (
    "bfs_async_reset", "bfs_async_stats")
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
_BLOCK = BFS_ASYNC["BLOCK"]
_ARGS = BFS_ASYNC["ARGS"]
_A_ROWS = BFS_ASYNC["A_ROWS"]
_STATS = BFS_ASYNC["STATS"]
_S_TOTAL, _S_ECC = BFS_ASYNC["S_TOTAL"], BFS_ASYNC["S_ECC"]
_V_LIMIT = 1 << BFS_ASYNC["SRC_AT"]  # an item's vertex field
_F_PREFETCH, _F_CHECK = BFS_ASYNC["F_PREFETCH"], BFS_ASYNC["F_CHECK"]
_TAIL, _ERROR = BFS_ASYNC["TAIL"], BFS_ASYNC["ERROR"]
_WORK: dict = {}


def _work(cupy, cap):
    """The work list (two uint64 a slot), the counters, the arguments
    (device, and pinned host memory for their copy), the statistics and
    the list's dirty length (a list: slots from there on are EMPTY), per
    device and thread; the list grows to the largest cap asked."""
    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _WORK.get(key)
    if got is None or got[0].size < 2 * cap:
        small = got[1:-1] if got is not None else None
        got = _WORK[key] = None  # the old list goes before the new one comes
        if small is None:
            mem = cupy.cuda.alloc_pinned_memory(_ARGS * 8)
            small = (cupy.empty(64, np.uint64), cupy.empty(_ARGS, np.int64),
                     np.frombuffer(mem, np.int64, _ARGS), mem, cupy.empty(_STATS, np.int64))
        items = cupy.empty(2 * cap, np.uint64)
        got = _WORK[key] = (items, *small, [items.size // 2])
    return got


def _clock_hz(cupy):
    key = ("clock", cupy.cuda.runtime.getDevice())
    if key not in _WORK:
        _WORK[key] = cupy.cuda.runtime.getDeviceProperties(key[1])["clockRate"] * 1e3
    return _WORK[key]


def traverse(where, out_csr, sources, rows, level, *, cfg, summary=False, stats=None):
    """BFS from each of ``sources`` (k <= 64 int64, numpy) side by side,
    over ``out_csr`` (CuPy arrays), into rows ``rows[b]`` of ``level`` (a
    C-contiguous int32 CuPy array of whole rows of n; every entry of those
    rows is written, -1 where unreached). True when done, False when the
    traversal gave up (work list full, or for k > 1 too big for the GPU's
    free memory; a level past the limit; a warp idle past
    ``cfg.patience_s``: the rows are then unspecified). With ``summary``,
    returns ``(count, total, ecc)`` numpy int64[k] (vertices reached, sum
    and max of their levels) in place of True. ``cfg``: the ``BFSAsync``
    settings; ``stats``: a ``bitgraph.Stats`` to fill. The caller checks
    sources and rows."""
    import cupy

    from bitgraph.device import oom_guard
    from bitgraph.errors import DeviceError

    n = int(out_csr.nrows)
    k = len(sources)
    if n >= _V_LIMIT:
        raise ValueError(f"{where}: the asynchronous BFS takes fewer than 2**34 vertices,"
                         f" got {n}")
    idx = np.dtype(np.int64) if max(out_csr.indptr.dtype.itemsize,
                                    out_csr.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(out_csr.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(out_csr.indices, dtype=idx)
    per = cfg.cap_per_vertex if k == 1 else cfg.batch_cap_per_vertex * k
    cap = int(per * n) + 64
    if k > 1:
        cap = max(cap, min(k * n * n, cfg.batch_min_cap))
    wide = k >= cfg.batch_min_sources
    chain, prefetch = ((cfg.batch_chain_max, cfg.batch_prefetch_rows) if wide
                       else (cfg.chain_max, cfg.prefetch_rows))
    flags = _F_PREFETCH * bool(prefetch) | _F_CHECK * bool(wide and cfg.batch_check)
    metrics = None
    if stats is not None:
        stats.ran(("bfs", "csr", "cuda", "async"))
        metrics = stats.metrics
    try:
        with oom_guard(where, 16 * cap):
            items, ctrl, args_d, args_h, _, st, dirty = _work(cupy, cap)
    except DeviceError:
        if k == 1:
            raise
        # a batch's list is 16 * batch_cap_per_vertex * k bytes a vertex (the
        # cooperative launch needs 32): the caller runs that instead
        if metrics is not None:
            metrics.update(appended=0, sources=k, gave_up=True, kernel_ms=0.0)
        return False
    stream = cupy.cuda.get_current_stream()
    args_h[:k] = sources
    args_h[_A_ROWS:_A_ROWS + k] = rows
    cupy.cuda.runtime.memcpyAsync(args_d.data.ptr, args_h.ctypes.data, _ARGS * 8, 1, stream.ptr)
    # EMPTY: only the slots the last traversal wrote (below its tail), not
    # the whole list (64 sources on grid-2048: 4 GiB, ~1.5 ms)
    cupy.cuda.runtime.memsetAsync(items.data.ptr, 0xFF, 16 * min(dirty[0], cap), stream.ptr)
    mod, lowered = module(_SOURCE, _NAMES)
    it = _INDEX[idx]
    sms = multiprocessors()
    level = level.view(np.uint32)  # the kernels' levels: unreached = 0xFFFFFFFF (-1)
    mod.get_function(lowered["bfs_async_reset"])(
        (sms * 8,), (_BLOCK,), (level, args_d, np.int32(k), np.int64(n)))
    mod.get_function(lowered[f"bfs_async_start<{it}>"])(
        (1,), (64,), (indptr, level, args_d, np.int32(k), np.int64(n), items, ctrl, st))
    fn = mod.get_function(lowered[f"bfs_async_run<{it}>"])
    grid = max(1, sms * (cfg.batch_warps_per_sm if wide else cfg.warps_per_sm) * 32 // _BLOCK)
    ev = [cupy.cuda.Event(), cupy.cuda.Event()] if metrics is not None else None
    if ev:
        ev[0].record()
    fn((grid,), (_BLOCK,), (indptr, indices, level, args_d, np.int64(n), items, np.int64(cap),
                            ctrl, np.int64(cfg.patience_s * _clock_hz(cupy)), np.int32(chain),
                            np.int32(flags)))
    if ev:
        ev[1].record()
    head = ctrl.get()
    # slots written: below the tail; those past cap not cleared this time stay dirty
    dirty[0] = min(max(int(head[_TAIL]), dirty[0] if dirty[0] > cap else 0), items.size // 2)
    if metrics is not None:
        ev[1].synchronize()
        metrics.update(appended=int(head[_TAIL]), sources=k, gave_up=bool(head[_ERROR]),
                       kernel_ms=cupy.cuda.get_elapsed_time(ev[0], ev[1]))
    if head[_ERROR]:
        return False
    if not summary:
        return True
    mod.get_function(lowered["bfs_async_stats"])(
        (max(1, 2 * sms // max(k, 1)), k), (_BLOCK,), (level, args_d, np.int64(n), st))
    h = st.get()
    return h[0:k].copy(), h[_S_TOTAL:_S_TOTAL + k].copy(), h[_S_ECC:_S_ECC + k].copy()


def check_square_source(where, csr, source) -> int:
    """n of a square ``csr`` with ``source`` in [0, n), else ValueError /
    IndexError naming ``where`` (the work-list launchers' arguments)."""
    n = int(csr.nrows)
    if csr.ncols != n:
        raise ValueError(f"{where}: a square CSR expected, got {csr.nrows}x{csr.ncols}")
    if not 0 <= source < n:
        raise IndexError(f"{where}: source {source} out of range [0, {n})")
    return n


@register("bfs", fmt="csr", device="cuda", variant="async")
def bfs_async(out_csr, source, *, cfg, stats=None):
    """BFS levels from ``source`` over ``out_csr`` (CuPy arrays, int32 or
    int64 indices) without level barriers: int32 CuPy levels, -1 where
    unreached, or None when the traversal gave up (see the module
    docstring). cfg: the ``BFSAsync`` settings; stats: a ``bitgraph.Stats``.

    >>> import cupy, numpy as np                      # doctest: +SKIP
    >>> from bitgraph.formats.csr import CSR          # doctest: +SKIP
    >>> a = CSR(cupy.asarray([0, 1, 2, 2]), cupy.asarray([1, 2]), None, 3, 3)  # doctest: +SKIP
    >>> bfs_async(a, 0, cfg=BFSAsync()).tolist()      # doctest: +SKIP
    [0, 1, 2]
    """
    import cupy

    from bitgraph.device import oom_guard

    n = check_square_source("bfs_async", out_csr, source)
    with oom_guard("bfs_async", 4 * n):
        level = cupy.empty(n, np.int32)
    done = traverse("bfs_async", out_csr, np.array([source], np.int64), np.zeros(1, np.int64),
                    level, cfg=cfg, stats=stats)
    return level if done else None
