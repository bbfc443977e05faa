"""The msbfs launcher's schedule "coop" (``msbfs.py::batch_run``, graphs of
long diameter): one cooperative launch of ``msbfs_coop`` (``msbfs.cu``)
runs the whole traversal, top-down, one grid barrier a level, no settle,
the levels written as they are found."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import cooperative_blocks
from bitgraph.kernels.cuda.constants import MSBFS
from bitgraph.kernels.cuda.msbfs_state import (A_LEVELS, A_ROWS, ARGS, INDEX, STATS,
                                               coop_kernel, workspace)

__all__ = ["coop_batch"]

# msbfs_coop: THREADS threads a block (its launch bounds); blocks a
# multiprocessor and the stage of the next queue: settings.msbfs_cuda
THREADS = MSBFS["COOP_THREADS"]
TRACE_CAP = 1 << 15  # levels a traced cooperative batch records


def coop_batch(a, state, src, rows_h, flat_ptr, write, cfg, stats):
    """``batch_run(..., schedule="coop")`` after its checks: msbfs_coop
    with the ``State``'s queues and statistics, and its own vertex records
    (32 n bytes, kept for the next call in this thread). A level whose
    queue holds at least ``cfg.coop_sweep * n`` vertices builds the next
    queue by a sweep of a bitmap, in ascending order (a second grid barrier
    and the sweep). Returns the statistics words (numpy int64[STATS],
    msbfs.cu's S_*: valid until the next batch in this thread).

    >>> st = coop_batch(a, new_state(n), src, rows, ptr, True, cfg, None)  # doctest: +SKIP
    """
    import cupy

    k = src.size
    n = int(a.nrows)
    idx = np.dtype(np.int64) if max(a.indptr.dtype.itemsize, a.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(a.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(a.indices, dtype=idx)
    touched, qa, qb, stats_d = state.touched, state.qa, state.qb, state.stats
    sweep_min = 1 << 62 if cfg.coop_sweep is None else max(1, int(cfg.coop_sweep * n))
    if idx == np.int32:
        qa, qb = qa.view(np.int32), qb.view(np.int32)
    ws = workspace()
    fn = coop_kernel(INDEX[idx])
    if ws.coop_ctl is None:
        # msbfs_coop's queue sizes, level count and grid barrier
        ws.coop_ctl = cupy.zeros(8, np.uint64)
    ctl, rec = ws.coop_ctl, ws.coop_records
    if rec is None or rec.size < 4 * n:
        # the vertices' 32-byte records (msbfs.cu), written whole by each launch
        from bitgraph.device import oom_guard

        ws.coop_records = None
        with oom_guard("msbfs(cuda)", 32 * n):
            rec = ws.coop_records = cupy.empty(4 * max(n, 1), np.uint64)
    pinned = ws.pinned()
    args_h, args_d, stats_h = pinned.args, pinned.args_d, pinned.stats
    args_h[:k] = src
    args_h[A_ROWS:A_ROWS + k] = rows_h[:k]
    args_h[A_LEVELS] = flat_ptr
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memcpyAsync(args_d.data.ptr, args_h.ctypes.data, ARGS * 8, 1, stream.ptr)
    smem = cfg.coop_stage * idx.itemsize
    blocks = cooperative_blocks(fn, THREADS, cfg.coop_blocks_per_sm, smem)
    if stats is not None:
        stats.ran(("msbfs", "csr", "cuda", "batch"))
        stats.metrics["schedule"] = "coop"
    trace = stats.traces if stats is not None and stats.trace else None
    tcap = TRACE_CAP if trace is not None else 0
    tbuf = cupy.zeros(max(2 * tcap, 1), np.int64)
    fn((blocks,), (THREADS,),
       (indptr, indices, np.int64(n), rec, qa, qb, ctl, stats_d, args_d, np.int32(k),
        np.bool_(write), touched, np.int64(sweep_min), tbuf, np.int32(tcap),
        np.uint32(cfg.coop_stage)), shared_mem=smem, enable_cooperative_groups=True)
    cupy.cuda.runtime.memcpyAsync(stats_h.ctypes.data, stats_d.data.ptr, STATS * 8, 2, stream.ptr)
    stream.synchronize()  # synchronize! the statistics, and the levels written
    if trace is not None:
        t = tbuf.get().reshape(-1, 2)
        nl = int(ctl[3:4].get()[0])
        if nl < TRACE_CAP:
            # per level: (level, queue size, us from the level's start to the next's)
            stamps = np.r_[t[:nl + 1, 0], t[nl, 1]]
            trace.append({"schedule": "coop", "levels": nl, "blocks": blocks,
                          "queue": t[:nl, 1].copy(),
                          "level_us": np.diff(stamps[:nl + 1]) / 1e3,
                          "end_us": (stamps[-1] - stamps[nl]) / 1e3})
    return stats_h
