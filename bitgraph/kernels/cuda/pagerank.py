"""Launcher of ``pagerank.cu``: PageRank's whole power iteration on the GPU,
one fused launch an iteration (the CUDA twin of ``kernels/cpu/pagerank.py``,
which the host loop calls once an iteration; here the loop queues
``cfg.cuda_check_every`` launches and reads their errors at once).

A ``stats`` (``bitgraph.Stats``) receives ``kernel_ms`` (GPU time of the
iterations, events around the loop: it includes the host's batch reads),
``iterations``, ``lanes``, ``blocks`` and ``launches`` (iterations queued,
including those that returned at once after convergence).
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.cuda.spmv_csr import group_size
from bitgraph.kernels.registry import register

__all__ = ["pagerank_run"]

_SOURCE = "pagerank.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"pagerank_pull<{i}, {iso}>" for i in _INDEX.values() for iso in ("true", "false"))


def _fn(index, iso):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[f"pagerank_pull<{_INDEX[index]}, {'true' if iso else 'false'}>"])


@register("pagerank", fmt="csr", device="cuda", variant="pull")
def pagerank_run(AT, x, inv_s, dw, teleport, alpha, threshold, max_iter, *, cfg, cuda_cfg=None,
                 stats=None):
    """Run PageRank's power iteration from ``x`` on the GPU: returns
    ``(x, iterations, converged, error)`` as ``link_analysis._fused`` does
    on the CPU (x a float64 CuPy array, the others Python numbers).

    AT: CSR of A' (CuPy arrays; values float64 A(i, j), or None: every
    weight 1 and no values read); x, inv_s: float64[n] CuPy (inv_s 0
    exactly on the dangling vertices); dw, teleport: float64[n] CuPy or a
    float (the same for every vertex: no stream read); alpha: the damping;
    threshold: converged once an iteration's L1 change is below it (``n *
    tol``); max_iter: most iterations. cfg: the ``PageRank`` settings
    (``cuda_check_every``, ``cuda_lanes``); cuda_cfg: the ``Cuda`` settings
    (launch shape; None: those in force). Iteration s reads x, y = x * inv_s
    and the dangling rank from buffers s & 1 and writes buffers (s + 1) & 1;
    the iteration that converges sets a flag that makes every later launch
    return at once, so the final ranks are those of that iteration.
    O(n + nnz) an iteration, one host read per ``cuda_check_every``.

    >>> x, it, converged, err = pagerank_run(AT, x0, inv_s, 1 / n, 0.15 / n, 0.85, n * 1e-6, 100,
    ...                                      cfg=PageRank())  # doctest: +SKIP
    """
    import cupy

    from bitgraph.device import oom_guard

    where = "pagerank(cuda)"
    n = int(AT.nrows)
    if AT.ncols != n or x.shape != (n,) or inv_s.shape != (n,):
        raise ValueError(f"{where}: a square AT and x, inv_s of its {n} rows expected, got"
                         f" {AT.nrows}x{AT.ncols}, {x.shape}, {inv_s.shape}")
    index = np.dtype(np.int64) if max(AT.indptr.dtype.itemsize,
                                      AT.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(AT.indptr, dtype=index)
    indices = cupy.ascontiguousarray(AT.indices, dtype=index)
    iso = AT.values is None
    values = cupy.zeros(1, np.float64) if iso else cupy.ascontiguousarray(AT.values, np.float64)
    dw_uniform, tele_uniform = np.ndim(dw) == 0, np.ndim(teleport) == 0
    dw_arr = cupy.zeros(1, np.float64) if dw_uniform else cupy.ascontiguousarray(dw, np.float64)
    tele_arr = (cupy.zeros(1, np.float64) if tele_uniform
                else cupy.ascontiguousarray(teleport, np.float64))
    for name, a in (("dw", dw_arr), ("teleport", tele_arr)):
        if a.shape != (n,) and a.shape != (1,):
            raise ValueError(f"{where}: {name} must have {n} values, got shape {a.shape}")
    inv_s = cupy.ascontiguousarray(inv_s, np.float64)
    group = group_size(n, int(indices.shape[0])) if not cfg.cuda_lanes else int(cfg.cuda_lanes)
    if group not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: settings.pagerank.cuda_lanes = {cfg.cuda_lanes!r} must be 0"
                         f" or a power of 2 up to 32")
    every = max(1, int(cfg.cuda_check_every))
    (blocks,), (threads,) = shape(n * group, cuda_cfg)
    with oom_guard(where, 32 * n + 16 * blocks):
        xs = (cupy.ascontiguousarray(x, np.float64).copy(), cupy.empty(n, np.float64))
        ys = (xs[0] * inv_s, cupy.empty(n, np.float64))
        # lost[0]: the rank x holds on dangling vertices (on the device: no read)
        lost = cupy.zeros(2, np.float64)
        lost[0] = cupy.sum(xs[0] * (inv_s == 0))
        partials = cupy.empty(2 * blocks, np.float64)
        arrived = cupy.zeros(1, np.uint32)
        errs = cupy.empty(every, np.float64)
        stop = cupy.zeros(1, np.int32)
    fn = _fn(index, iso)
    args_head = (indptr, indices, values)
    scalars = (dw_arr, np.float64(dw if dw_uniform else 0.0), np.bool_(dw_uniform),
               tele_arr, np.float64(teleport if tele_uniform else 0.0), np.bool_(tele_uniform),
               np.float64(alpha), np.int64(n), np.int32(group))
    threshold = np.float64(threshold)

    def launch(s, slot):
        a, b = s & 1, (s + 1) & 1
        fn((blocks,), (threads,),
           args_head + (ys[a], xs[a], inv_s) + scalars +
           (xs[b], ys[b], lost, np.int32(a), partials, arrived, errs, np.int64(slot), threshold,
            stop))

    timed = stats is not None
    if timed:
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
    it, converged, err, launches = 0, False, float("inf"), 0
    while it < max_iter and not converged:
        k = min(every, max_iter - it)
        for j in range(k):
            launch(it + j, j)
        launches += k
        got = errs[:k].get()  # synchronize! one read a batch
        # the first iteration of the batch below the threshold converged;
        # the launches after it returned at once (their slots are stale)
        hit = np.flatnonzero(got < threshold)
        done = int(hit[0]) + 1 if hit.size else k
        err = float(got[done - 1])
        it += done
        converged = bool(hit.size)
    if timed:
        end.record()
        end.synchronize()
        stats.metrics.update(kernel_ms=cupy.cuda.get_elapsed_time(start, end), lanes=group,
                             blocks=blocks, launches=launches, iterations=it)
    return xs[it & 1], it, converged, err
