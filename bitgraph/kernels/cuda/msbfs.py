"""Launcher of ``msbfs.cu``: one iBFS batch (up to 64 BFSs in one
traversal) on the GPU, with the CPU launcher's signature and results
(``kernels/cpu/msbfs.py::batch_run``; CuPy arrays in, ``levels`` a CuPy
array, the per-source statistics numpy arrays). Knobs come in as ``cfg``
(``bitgraph.settings.MSBFSCuda``; each field documents its rule and
measurement); layout shared with the ``.cu`` from ``constants.MSBFS``.

``batch_run`` checks its arguments and runs one of three schedules, each
in its own module:

- "levels" (``msbfs_levels.py``): a launch per step, the direction per
  source, the first levels and the replayed blocks of levels as captured
  CUDA graphs;
- "coop" (``msbfs_coop.py``, graphs of long diameter): one cooperative
  launch of ``msbfs_coop``, top-down, one grid barrier a level;
- "async" (``msbfs_async.py``, road-like graphs of long diameter): the
  batch's BFSs side by side in ``bfs_async.cu``'s work list, without
  barriers; a batch whose list fills or does not fit runs "coop" instead.

``batch_start`` queues a batch and returns it ``Pending`` (its
``result()`` finishes it), so that a caller of several batches queues the
next one before it reads the last one's (``pipelined``: two states, the
"levels" schedule). The device scratch (``State``: ``new_state``,
``shared_state``) and the launcher's caches (kernels, page-locked buffers,
captured graphs) live in ``msbfs_state.py``.
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels._launch import check_length
from bitgraph.kernels.cuda import msbfs_async, msbfs_coop, msbfs_levels
from bitgraph.kernels.cuda.constants import MSBFS
from bitgraph.kernels.cuda.msbfs_levels import pull_lanes
from bitgraph.kernels.cuda.msbfs_state import (State, dummy_levels, new_state, pipelined,
                                               shared_state)
from bitgraph.kernels.registry import register

__all__ = ["batch_run", "batch_start", "Pending", "new_state", "shared_state", "pipelined",
           "pull_lanes", "State"]

SCHEDULES = ("levels", "coop", "async")
# where the per-source summary lies in the statistics words (msbfs.cu's S_*)
_S_COUNT, _S_TOTAL, _S_ECC = MSBFS["S_COUNT"], MSBFS["S_TOTAL"], MSBFS["S_ECC"]


@register("msbfs", fmt="csr", device="cuda", variant="batch")
def batch_run(a, t, sources, *, levels=None, rows=None, write=True, alpha=None,
              stop_work=1 << 62, nchunks=None, state=None, lanes=None, all_pull=None,
              schedule="levels", cfg=None, async_cfg=None, stats=None):
    """One iBFS batch on the GPU: BFS from each of ``sources`` (k <= 64) at
    once; arguments and results as ``kernels.cpu.msbfs.batch_run``.

    a, t: CSR (CuPy arrays, int32 or int64 indices) of the graph and of its
    transpose; sources: k int64 in [0, n), repeats allowed (numpy or CuPy).
    With ``write`` every entry of row rows[b] of ``levels`` (a C-contiguous
    int32 CuPy array; default a new (k x n) one) gets source b's level, -1
    where unreached. Returns ``(levels, count, total, ecc)``: count, total,
    ecc numpy int64[k] (vertices reached, sum and max of their levels).

    cfg: the ``MSBFSCuda`` settings, async_cfg the ``BFSAsync`` ones (None:
    the current settings'). ``alpha`` and ``all_pull`` (fractions of m;
    None: ``cfg.alpha``, ``cfg.all_pull``): the per-source direction of
    ``msbfs_levels`` (alpha 0: bottom-up wherever a frontier has out-edges;
    both huge: top-down only), for the levels the host launches and, with
    ``cfg.graph_pull``, the replayed ones (``cfg.graph``: otherwise those go
    top-down). ``stop_work`` and ``nchunks`` are accepted for the CPU
    signature and ignored (every level runs on the whole GPU). ``state``: a
    ``State`` (``new_state(n)``) to reuse across batches (``shared_state``
    keeps one between calls). ``lanes``: lanes per vertex of the bottom-up
    step over t (None: ``pull_lanes``). ``schedule``: "levels"
    (``msbfs_levels``: a launch per step, the direction per source);
    "coop" (``msbfs_coop``): the whole traversal in one cooperative launch
    (top-down only, one grid barrier a level), for graphs of long diameter,
    where the levels' launches cost more than their work (``t`` unused);
    "async" (``msbfs_async``): the batch's BFSs side by side, each
    label-correcting with no barrier at all (``bfs_async.traverse``; its
    own rows of levels: the bit-parallel status words need levels in step),
    falling back to "coop" when its work list fills. ``stats``: a
    ``bitgraph.Stats`` to fill (its ``trace`` asks for per-level records in
    ``stats.traces``, and makes the host wait for every level).

    >>> lv, count, total, ecc = batch_run(a, t, [0, 5])  # doctest: +SKIP
    """
    return batch_start(a, t, sources, levels=levels, rows=rows, write=write, alpha=alpha,
                       state=state, lanes=lanes, all_pull=all_pull, schedule=schedule, cfg=cfg,
                       async_cfg=async_cfg, stats=stats).result()


class Pending:
    """A batch ``batch_start`` queued: ``result()`` runs the rest of it
    (the host waits for it) and returns what ``batch_run`` returns, once.

    >>> lv, count, total, ecc = batch_start(a, t, [0, 5]).result()  # doctest: +SKIP
    """

    __slots__ = ("steps", "st", "k", "levels", "done")

    def __init__(self, steps, st, k, levels, done=None):
        self.steps, self.st, self.k, self.levels, self.done = steps, st, k, levels, done

    def result(self):
        if self.done is None:
            st = self.st if self.steps is None else msbfs_levels.finish(self.steps)
            k = self.k
            # the per-source summary out of the schedule's statistics words
            self.done = (self.levels, st[_S_COUNT:_S_COUNT + k].copy(),
                         st[_S_TOTAL:_S_TOTAL + k].copy(), st[_S_ECC:_S_ECC + k].copy())
            self.steps = self.st = None
        return self.done


def batch_start(a, t, sources, *, levels=None, rows=None, write=True, alpha=None, state=None,
                lanes=None, all_pull=None, schedule="levels", cfg=None, async_cfg=None,
                stats=None, slot=0) -> Pending:
    """``batch_run``'s batch queued, its ``Pending`` returned: the "levels"
    schedule has then launched its first levels (``msbfs_levels.levels_steps``)
    and waits for nothing; the others have run. ``slot`` (0 or 1): the
    workspace buffers of the batch (``msbfs_state.Workspace``); a batch
    queued while another is pending takes the other slot and another
    ``state`` (on the same stream), and the earlier one's ``result()`` is
    read first.

    >>> first = batch_start(a, t, src0, state=s0)  # doctest: +SKIP
    >>> second = batch_start(a, t, src1, state=s1, slot=1)  # doctest: +SKIP
    >>> first.result()[1], second.result()[1]  # doctest: +SKIP
    """
    import cupy

    where = "msbfs batch_run(cuda)"
    if slot not in (0, 1):
        raise ValueError(f"{where}: slot={slot!r} must be 0 or 1")
    n = int(a.nrows)
    if schedule not in SCHEDULES:
        raise ValueError(f"{where}: schedule={schedule!r}; expected one of {SCHEDULES}")
    if cfg is None or async_cfg is None:
        from bitgraph.settings import current

        cfg = current().msbfs_cuda if cfg is None else cfg
        async_cfg = current().bfs_async if async_cfg is None else async_cfg
    src = np.asarray(sources.get() if hasattr(sources, "get") else sources).astype(
        np.int64, copy=False).reshape(-1)
    k = src.size
    if not 0 < k <= 64:
        raise ValueError(f"msbfs batch_run: a batch holds 1..64 sources, got {k}")
    if src.min() < 0 or src.max() >= n:
        raise ValueError(f"{where}: sources must lie in [0, {n})")
    if write:
        if levels is None:
            levels = cupy.empty((k, n), np.int32)
            rows = np.arange(k, dtype=np.int64)
        if not isinstance(levels, cupy.ndarray) or levels.dtype != np.int32 \
                or not levels.flags.c_contiguous:
            raise ValueError("msbfs batch_run: levels must be a C-contiguous int32 CuPy array")
        rows_h = np.asarray(rows.get() if hasattr(rows, "get") else rows).astype(
            np.int64, copy=False).reshape(-1)
        check_length(where, "rows", rows_h, k)
        if rows_h[:k].min() < 0 or (int(rows_h[:k].max()) + 1) * n > levels.size:
            raise ValueError(f"{where}: rows must index rows of levels ({levels.size // max(n, 1)}"
                             f" rows of {n})")
        flat_ptr = levels.data.ptr
    else:
        rows_h = np.zeros(k, np.int64)
        flat_ptr = dummy_levels().data.ptr
    keep = state is not None
    if state is None:
        state = new_state(n, cfg=cfg)
    # the schedule; "async" runs "coop" when it gives up or does not fit
    out = levels if write else None
    if schedule == "async":
        got = msbfs_async.side_by_side_batch(a, src, rows_h, write, levels, async_cfg, stats)
        if got is not None:
            return Pending(None, None, k, out, got)
    if schedule != "levels":
        return Pending(None, msbfs_coop.coop_batch(a, state, src, rows_h, flat_ptr, write, cfg,
                                                   stats), k, out)
    steps = msbfs_levels.levels_steps(a, t, state, src, rows_h, flat_ptr, write, alpha,
                                      all_pull, lanes, keep, cfg, stats, where, slot)
    next(steps)
    return Pending(steps, None, k, out)
