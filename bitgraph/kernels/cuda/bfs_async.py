"""Launcher of ``bfs_async.cu``: BFS levels by an asynchronous,
label-correcting traversal (no barrier between levels), for graphs of
thousands of levels, from one source (``bfs_async``) or from up to 64
side by side (``traverse``: msbfs's ``coop="async"``). Exact levels, or
a report that it gave up (work list full, or a warp idle past
``PATIENCE_S``): the caller then runs a level-synchronous method.
"""

from __future__ import annotations

import threading

import numpy as np

from bitgraph.kernels.cuda import module, multiprocessors
from bitgraph.kernels.registry import register

__all__ = ["bfs_async", "traverse", "CAP_PER_VERTEX", "BATCH_CAP_PER_VERTEX", "WARPS_PER_SM",
           "PATIENCE_S", "CHAIN_MAX", "PREFETCH_ROWS", "BATCH_MIN_SOURCES", "BATCH_CHAIN_MAX",
           "BATCH_PREFETCH_ROWS", "BATCH_CHECK", "BATCH_WARPS_PER_SM", "BATCH_MIN_CAP", "STATS"]

_SOURCE = "bfs_async.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"bfs_async_{k}<{i}>" for i in _INDEX.values() for k in ("start", "run")) + (
    "bfs_async_reset", "bfs_async_stats")
_BLOCK = 256
_ARGS = 128  # sources at 0..63, their rows at 64..127 (bfs_async.cu A_SOURCES, A_ROWS)
_STATS = 192  # per source: reached, sum and max of levels (bfs_async.cu S_*)
_V_LIMIT = 1 << 34  # an item's vertex field (bfs_async.cu SRC_AT)
_F_PREFETCH, _F_CHECK = 1, 2  # bfs_async_run's flags (bfs_async.cu F_*)

# work-list slots per vertex (16 bytes each): a vertex is appended once per
# improvement of its level, ~1-2 times on grids; past the cap the traversal
# gives up (None)
CAP_PER_VERTEX = 4
# the same for a batch of sources side by side (``traverse`` with k > 1),
# per vertex and source: 64 sources on a 4M-vertex graph hold 5 GiB of
# slots at 1.25. Without chains a batch appends 1.00-1.01 items per vertex
# and source on grid-2048 and the 3D grid, 1.5+ on rgg (degree 16: many
# corrections), where the cap makes it give up
BATCH_CAP_PER_VERTEX = 1.25
# ... and at least min(k * n^2, BATCH_MIN_CAP) slots: a (vertex, source)
# is appended at most n - 1 times (its level only drops, and stays below
# n), so small graphs, whose corrections per vertex can be many, never give
# up (16 MiB of slots)
BATCH_MIN_CAP = 1 << 20
# resident warps per multiprocessor polling the list (more warps: more
# items in flight, and more polling traffic)
WARPS_PER_SM = 8
# a warp that finds nothing to do for this long gives up the traversal
PATIENCE_S = 2.0
# a lane relaxes one child of each item itself, without the list, up to
# this many in a row (0: every child goes through the list)
CHAIN_MAX = 64
# the producer loads the row bounds of every edge's head along with its
# atomicMin (True: one wavefront's latency bounds a single BFS), or of
# the children only, after the atomics (False: 2 loads per edge fewer)
PREFETCH_ROWS = True
# a batch of at least BATCH_MIN_SOURCES sources is bound by throughput, not
# by one wavefront's latency, and runs with BATCH_CHAIN_MAX and
# BATCH_PREFETCH_ROWS instead. 64 sources on grid-2048, H100, kernel ms
# (benchmarks/RESULTS.md): chains of 0 / 2 / 4 / 64: 58.1 / 68.9 / 82.9 /
# gave up (1.03 items per vertex and source: chains run ahead of the
# list's wavefront and cost corrections); without the prefetch 54.9
BATCH_MIN_SOURCES = 8
BATCH_CHAIN_MAX = 0
BATCH_PREFETCH_ROWS = False
# such a batch reads each edge's head level first and sends an atomicMin
# only where it would lower it (a round trip more, most atomics fewer: in
# exact BFS order 25% of the edges' atomics are left on grid-2048, 17% on
# the 3D grid, 6% on rgg, benchmarks/sim_async_check.py). 64 sources,
# kernel ms, H100: grid-2048 55.9 -> 48.3, 3D grid 99.0 -> 69.4
BATCH_CHECK = True
# ... with this many resident warps per multiprocessor: the check makes a
# correction cheap, and more warps in flight pay, up to a point.
# 8 / 12 / 16 warps, kernel ms: grid-2048 48.3 / 41.5 / 43.9 (1.01 / 1.03
# / 1.11 items per vertex and source), 3D grid 69.4 / 56.2 / 53.7
BATCH_WARPS_PER_SM = 12

# benchmarks: a dict here receives "appended" (items, the sources included),
# "sources", "gave_up" and "kernel_ms" of the last traversal
STATS = None
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


def traverse(where, out_csr, sources, rows, level, *, stats=False):
    """BFS from each of ``sources`` (k <= 64 int64, numpy) side by side,
    over ``out_csr`` (CuPy arrays), into rows ``rows[b]`` of ``level`` (a
    C-contiguous int32 CuPy array of whole rows of n; every entry of those
    rows is written, -1 where unreached). True when done, False when the
    traversal gave up (work list full, or for k > 1 too big for the GPU's
    free memory; a level past the limit; a warp idle past ``PATIENCE_S``:
    the rows are then unspecified). With
    ``stats``, returns ``(count, total, ecc)`` numpy int64[k] (vertices
    reached, sum and max of their levels) in place of True.
    The caller checks sources and rows."""
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
    per = CAP_PER_VERTEX if k == 1 else BATCH_CAP_PER_VERTEX * k
    cap = int(per * n) + 64
    if k > 1:
        cap = max(cap, min(k * n * n, BATCH_MIN_CAP))
    wide = k >= BATCH_MIN_SOURCES
    chain, prefetch = (BATCH_CHAIN_MAX, BATCH_PREFETCH_ROWS) if wide else (CHAIN_MAX, PREFETCH_ROWS)
    flags = _F_PREFETCH * bool(prefetch) | _F_CHECK * bool(wide and BATCH_CHECK)
    try:
        with oom_guard(where, 16 * cap):
            items, ctrl, args_d, args_h, _, st, dirty = _work(cupy, cap)
    except DeviceError:
        if k == 1:
            raise
        # a batch's list is 16 * BATCH_CAP_PER_VERTEX * k bytes a vertex (the
        # cooperative launch needs 32): the caller runs that instead
        if STATS is not None:
            STATS.update(appended=0, sources=k, gave_up=True, kernel_ms=0.0)
        return False
    stream = cupy.cuda.get_current_stream()
    args_h[:k] = sources
    args_h[64:64 + k] = rows
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
    grid = max(1, sms * (BATCH_WARPS_PER_SM if wide else WARPS_PER_SM) * 32 // _BLOCK)
    ev = [cupy.cuda.Event(), cupy.cuda.Event()] if STATS is not None else None
    if ev:
        ev[0].record()
    fn((grid,), (_BLOCK,), (indptr, indices, level, args_d, np.int64(n), items, np.int64(cap),
                            ctrl, np.int64(PATIENCE_S * _clock_hz(cupy)), np.int32(chain),
                            np.int32(flags)))
    if ev:
        ev[1].record()
    head = ctrl.get()
    # slots written: below the tail; those past cap not cleared this time stay dirty
    dirty[0] = min(max(int(head[16]), dirty[0] if dirty[0] > cap else 0), items.size // 2)
    if STATS is not None:
        ev[1].synchronize()
        STATS.update(appended=int(head[16]), sources=k, gave_up=bool(head[48]),
                     kernel_ms=cupy.cuda.get_elapsed_time(ev[0], ev[1]))
    if head[48]:
        return False
    if not stats:
        return True
    mod.get_function(lowered["bfs_async_stats"])(
        (max(1, 2 * sms // max(k, 1)), k), (_BLOCK,), (level, args_d, np.int64(n), st))
    h = st.get()
    return h[0:k].copy(), h[64:64 + k].copy(), h[128:128 + k].copy()


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
    with oom_guard("bfs_async", 4 * n):
        level = cupy.empty(n, np.int32)
    done = traverse("bfs_async", out_csr, np.array([source], np.int64), np.zeros(1, np.int64),
                    level)
    return level if done else None
