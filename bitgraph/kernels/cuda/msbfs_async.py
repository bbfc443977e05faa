"""The msbfs launcher's schedule "async" (``msbfs.py::batch_run``, road-like
graphs of long diameter): the batch's BFSs side by side in
``bfs_async.cu``'s work list (``bfs_async.traverse``), without barriers;
``batch_run`` runs a batch whose list fills or does not fit as "coop"
(``msbfs_coop``) instead."""

from __future__ import annotations

import numpy as np

from bitgraph import _array
from bitgraph.kernels.cuda.msbfs_state import workspace

__all__ = ["side_by_side_batch"]


def side_by_side_batch(a, src, rows_h, write, levels, async_cfg, stats):
    """``batch_run(..., schedule="async")`` after its checks:
    ``bfs_async.traverse`` into the result's rows, or into scratch rows
    (kept per device and thread) for statistics only. Returns ``(levels or
    None, count, total, ecc)``, or None when it gave up or its memory does
    not fit.

    >>> side_by_side_batch(a, src, rows, True, levels, cfg, None)  # doctest: +SKIP
    """
    import cupy

    from bitgraph.errors import DeviceError
    from bitgraph.kernels.cuda.bfs_async import traverse

    k, n = src.size, int(a.nrows)
    rows = rows_h[:k]
    if write and _array.unique(rows).size < k:
        return None  # sources sharing a row would share its atomicMins: the cooperative launch
    if not write:
        ws = workspace()
        scratch = ws.async_rows
        if scratch is None or scratch.size < k * n:
            from bitgraph.device import oom_guard

            ws.async_rows = scratch = None  # the old rows go before the new ones come
            try:
                with oom_guard("msbfs(cuda)", 4 * k * n):
                    scratch = ws.async_rows = cupy.empty(max(k * n, 1), np.int32)
            except DeviceError:
                return None
        levels, rows = scratch, np.arange(k, dtype=np.int64)
    got = traverse("msbfs(cuda)", a, src, rows, levels, cfg=async_cfg, summary=True, stats=stats)
    if got is False:
        return None
    return ((levels if write else None), *got)
