"""Launcher of ``pagerank.cu``: PageRank's whole power iteration on the GPU,
one fused launch an iteration (the CUDA twin of ``kernels/cpu/pagerank.py``,
which the host loop calls once an iteration; here the loop queues
``cfg.cuda_check_every`` launches and reads their errors at once).

The plan (the heavy rows of A' cut into chunks, the medium rows a warp
each, the lanes of the light rows, the index arrays of the kernel's dtype) and the workspaces (y, partial sums, counters) are built
once per graph and settings and kept in ``cache`` (the graph's
``pagerank_cuda`` slot); a run allocates only its two rank buffers (the
result is one of them) and launches one initialisation and one kernel an
iteration.

A ``stats`` (``bitgraph.Stats``) receives ``kernel_ms`` (GPU time of the
iterations, events around the loop: it includes the host's batch reads),
``iterations``, ``lanes``, ``blocks``, ``heavy_rows``, ``chunks``,
``medium_rows`` and ``launches`` (iterations queued, including those that
returned at once after convergence; the initialisation not counted).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from bitgraph.kernels.cuda import PackedLaunch, module, shape
from bitgraph.kernels.cuda import settings as cuda_settings
from bitgraph.kernels.cuda.spmv_csr import row_classes
from bitgraph.kernels.registry import register

__all__ = ["pagerank_run"]

_SOURCE = "pagerank.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
# the ranks' type: float64, or float32 (stored and gathered as float, summed in double)
_RANK = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}
_NAMES = tuple(f"pagerank_pull<{i}, {iso}, {t}>" for t in _RANK.values()
               for i in _INDEX.values() for iso in ("true", "false")) + tuple(
                   f"pagerank_init<{t}>" for t in _RANK.values())
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
# pagerank_pull's parameters, in order (pagerank.cu); a call or a launch sets some of the
# packed launch's slots by these names
_PARAMS = ("indptr", "indices", "values", "heavy_rows", "heavy_first", "chunk_heavy", "nheavy",
           "nchunks", "chunk", "medium_rows", "nmedium", "light_max", "y", "x", "inv_s", "dw",
           "dw_c", "dw_uniform", "teleport", "tele_c", "tele_uniform", "alpha", "n", "group",
           "x_new", "y_new", "lost", "parity", "partials", "chunk_sums", "heavy_parts",
           "row_arrived", "arrived", "errs", "slot", "threshold", "stop")
_Y, _X, _INV_S, _DW, _DW_C, _TELE, _TELE_C, _ALPHA, _X_NEW, _Y_NEW, _PARITY, _SLOT, \
    _THRESHOLD = (_PARAMS.index(p) for p in (
        "y", "x", "inv_s", "dw", "dw_c", "teleport", "tele_c", "alpha", "x_new", "y_new",
        "parity", "slot", "threshold"))


def _kernels(index, iso, rank=np.float64):
    """(pagerank_init<T>, pagerank_pull<I, ISO, T>) of the current device, T
    the ranks' C type."""
    mod, lowered = module(_SOURCE, _NAMES)
    t = _RANK[np.dtype(rank)]
    pull = lowered[f"pagerank_pull<{_INDEX[index]}, {'true' if iso else 'false'}, {t}>"]
    return mod.get_function(lowered[f"pagerank_init<{t}>"]), mod.get_function(pull)


def _plan(cupy, AT, split, chunk, warp_above, lanes, rank=np.dtype(np.float64),
          wide_median=0):
    """The kernel's view of AT: (indptr, indices, values, heavy_rows,
    heavy_first, chunk_heavy, nheavy, nchunks, medium_rows, nmedium,
    light_max, group). Heavy rows: more than ``split`` entries, cut into
    chunks of ``chunk`` entries. Light rows: at most ``warp_above``
    entries, a group of ``lanes`` each (0: ``spmv_csr.median_lanes`` of their
    length); the rows between (medium) a warp each, unless that group is
    already a warp (then light_max is ``split``, no medium rows):
    ``spmv_csr.row_classes``; for float64 ``rank`` its ``wide_median``
    (``settings.pagerank.cuda_f64_wide_median``). The arrays of no entries
    are one-element dummies. A few host reads (the counts),
    once per graph and settings. O(n + nnz) (a cast of the index arrays
    only where their dtypes differ)."""
    index = np.dtype(np.int64) if max(AT.indptr.dtype.itemsize,
                                      AT.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(AT.indptr, dtype=index)
    indices = cupy.ascontiguousarray(AT.indices, dtype=index)
    values = (cupy.zeros(1, np.float64) if AT.values is None
              else cupy.ascontiguousarray(AT.values, dtype=np.float64))
    lens = indptr[1:].astype(np.int64) - indptr[:-1].astype(np.int64)
    # float64 ranks: a lane per two entries of a long median row (cuda_f64_wide_median)
    (heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, medium_rows, nmedium, light_max,
     group) = row_classes(cupy, lens, split=split, chunk=chunk, warp_above=warp_above,
                          lanes=lanes, wide_median=wide_median if rank == np.float64 else 0)
    return (indptr, indices, values, heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks,
            medium_rows, nmedium, light_max, group)


def _workspace(cupy, n, blocks, nheavy, nchunks, every, rank=np.float64):
    """The buffers a run reuses: ys (2 x rank[n]: the ranks' dtype), lost[2],
    partials[2 * blocks], chunk_sums[nchunks], heavy_parts[2 * nheavy],
    row_arrived[nheavy] (cleared by pagerank_init), arrived[1] (0 between
    launches), errs[every], stop[1] (one-element dummies for none)."""
    return (
        (cupy.empty(n, rank), cupy.empty(n, rank)),
        cupy.empty(2, np.float64),
        cupy.empty(2 * blocks, np.float64),
        cupy.empty(max(nchunks, 1), np.float64),
        cupy.empty(2 * max(nheavy, 1), np.float64),
        cupy.empty(max(nheavy, 1), np.uint32),
        cupy.zeros(1, np.uint32),
        cupy.empty(every, np.float64),
        cupy.empty(1, np.int32),
    )


@register("pagerank", fmt="csr", device="cuda", variant="pull")
def pagerank_run(AT, x, inv_s, dw, teleport, alpha, threshold, max_iter, *, cfg, cuda_cfg=None,
                 stats=None, cache=None, fill=None):
    """Run PageRank's power iteration from ``x`` on the GPU: returns
    ``(x, iterations, converged, error)`` as ``link_analysis._fused`` does
    on the CPU (x a CuPy array of the ranks' dtype, the others Python numbers).

    AT: CSR of A' (CuPy arrays; values float64 A(i, j), or None: every
    weight 1 and no values read); x: the start ranks, a float64[n] or
    float32[n] CuPy array whose dtype is the ranks' (float32: x, y and the
    results stored as float32, every sum in float64; x is read, never
    written, and comes back itself when max_iter is 0; None: the uniform
    start ``fill``, written by the initialisation); inv_s: float64[n]
    CuPy (0 exactly on the dangling vertices); dw, teleport: float64[n] CuPy or a
    float (the same for every vertex: no stream read); alpha: the damping;
    threshold: converged once an iteration's L1 change is below it (``n *
    tol``); max_iter: most iterations. cfg: the ``PageRank`` settings
    (``cuda_check_every``, ``cuda_blocks_per_sm``, ``cuda_lanes``, ``cuda_split_above``,
    ``cuda_chunk``, ``cuda_warp_above``); cuda_cfg: the ``Cuda`` settings (launch shape; None:
    those in force); cache: a dict kept with the graph (AT must not change
    while it is): the plan and workspaces are built on the first run and
    reused (None: built for this run); fill: with x None, the uniform start
    as ``(value, dtype)`` (the ranks' dtype, float64 or float32; the value
    rounded to it once). Iteration s reads y = x * inv_s and
    the dangling rank from buffers s & 1 and writes buffers (s + 1) & 1;
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
    if AT.ncols != n or (x is not None and x.shape != (n,)) or inv_s.shape != (n,):
        raise ValueError(f"{where}: a square AT and x, inv_s of its {n} rows expected, got"
                         f" {AT.nrows}x{AT.ncols}, {getattr(x, 'shape', None)}, {inv_s.shape}")
    split, chunk = int(cfg.cuda_split_above), int(cfg.cuda_chunk)
    warp_above, lanes = int(cfg.cuda_warp_above), int(cfg.cuda_lanes)
    if split < 0 or chunk < 1 or warp_above < 0:
        raise ValueError(f"{where}: settings.pagerank.cuda_split_above = {split} and"
                         f" cuda_warp_above = {warp_above} must be >= 0 and cuda_chunk ="
                         f" {chunk} >= 1")
    if lanes not in (0, 1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: settings.pagerank.cuda_lanes = {cfg.cuda_lanes!r} must be 0"
                         f" or a power of 2 up to 32")
    cache = {} if cache is None else cache
    if x is None:
        if fill is None:
            raise ValueError(f"{where}: x None needs fill = (value, dtype)")
        rank = np.dtype(fill[1])
        fill = float(rank.type(fill[0])) if rank in _RANK else 0.0  # a value of the ranks' type
    else:
        rank = np.dtype(x.dtype)
    if rank not in _RANK:
        raise ValueError(f"{where}: x must be float64 or float32 ranks, got {rank}")
    wide = int(cfg.cuda_f64_wide_median)
    key = ("plan", split, chunk, warp_above, lanes, rank.str, wide)
    if key not in cache:
        with oom_guard(where, 24 * n + 8 * int(AT.indices.shape[0])):
            cache[key] = _plan(cupy, AT, split, chunk, warp_above, lanes, rank, wide)
    (indptr, indices, values, heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks,
     medium_rows, nmedium, light_max, group) = cache[key]
    every = max(1, int(cfg.cuda_check_every))
    per_sm = int(cfg.cuda_blocks_per_sm)
    if per_sm < 0:
        raise ValueError(f"{where}: settings.pagerank.cuda_blocks_per_sm = {per_sm} must be >= 0")
    cuda_cfg = cuda_settings(cuda_cfg)
    if per_sm:
        cuda_cfg = dataclasses.replace(cuda_cfg, blocks_per_sm=per_sm)
    (blocks,), (threads,) = shape(n * group, cuda_cfg)
    # the workspace's ys hold the ranks' dtype: one workspace per dtype run
    wkey = ("work", n, blocks, nheavy, nchunks, every, rank.str)
    if wkey not in cache:
        with oom_guard(where, 2 * rank.itemsize * n + 16 * blocks + 8 * nchunks + 20 * nheavy):
            cache[wkey] = _workspace(cupy, n, blocks, nheavy, nchunks, every, rank)
    ys, lost, partials, chunk_sums, heavy_parts, row_arrived, arrived, errs, stop = cache[wkey]
    dw_uniform, tele_uniform = bool(np.ndim(dw) == 0), bool(np.ndim(teleport) == 0)
    if dw_uniform or tele_uniform:
        dummy = cache.get("dummy")
        if dummy is None:
            dummy = cache["dummy"] = cupy.zeros(1, np.float64)
    dw_arr = dummy if dw_uniform else cupy.ascontiguousarray(dw, np.float64)
    tele_arr = dummy if tele_uniform else cupy.ascontiguousarray(teleport, np.float64)
    for name, a in (("dw", dw_arr), ("teleport", tele_arr)):
        if a.shape != (n,) and a.shape != (1,):
            raise ValueError(f"{where}: {name} must have {n} values, got shape {a.shape}")
    inv_s = cupy.ascontiguousarray(inv_s, np.float64)
    with oom_guard(where, 2 * rank.itemsize * n):
        # the ranks of odd / even iterations (the result is one of them)
        xs = (cupy.empty(n, rank), cupy.empty(n, rank))
    # the uniform start: written by the initialisation into xs[0], iteration 0's x (read
    # there, written by iteration 1)
    x0 = xs[0] if x is None else cupy.ascontiguousarray(x, rank)
    # the two launches packed once per graph, settings and flags (PackedLaunch:
    # CuPy's launch converts the iteration's 37 arguments each time, ~12 us of
    # host time); a call sets the slots that change: its arrays and numbers
    pkey = ("packed", key, wkey, dw_uniform, tele_uniform)
    packed = cache.get(pkey)
    if packed is None:
        init_fn, fn = _kernels(indptr.dtype, AT.values is None, rank)
        # ys[0] = x0 * inv_s, lost[0], *stop = 0, row_arrived = 0; (x, x_fill, fill, inv_s)
        # set per call
        init = PackedLaunch(init_fn, blocks, threads, (
            None, None, np.float64(0.0), None, np.int64(n), ys[0], lost, partials, row_arrived,
            np.int64(nheavy), arrived, stop))
        pull = PackedLaunch(fn, blocks, threads, (  # in _PARAMS's order
            indptr, indices, values, heavy_rows, heavy_first, chunk_heavy, np.int64(nheavy),
            np.int64(nchunks), np.int64(chunk), medium_rows, np.int64(nmedium),
            np.int64(light_max),
            None, None, None,  # _Y, _X, _INV_S
            None, np.float64(0.0), np.uint8(dw_uniform),  # _DW, _DW_C
            None, np.float64(0.0), np.uint8(tele_uniform),  # _TELE, _TELE_C
            np.float64(0.0), np.int64(n), np.int32(group),  # _ALPHA
            None, None, lost, np.int32(0),  # _X_NEW, _Y_NEW, lost, _PARITY
            partials, chunk_sums, heavy_parts, row_arrived, arrived, errs,
            np.int64(0), np.float64(0.0), stop))  # _SLOT, _THRESHOLD, stop
        packed = cache[pkey] = (init, pull)
    init, pull = packed
    stream = cupy.cuda.get_current_stream().ptr
    init.put(0, None if x is None else x0)
    init.put(1, x0)
    init.put(2, np.float64(fill if x is None else 0.0))
    init.put(3, inv_s)
    init.launch(stream)
    for i, a in ((_INV_S, inv_s), (_DW, dw_arr), (_DW_C, np.float64(dw if dw_uniform else 0.0)),
                 (_TELE, tele_arr), (_TELE_C, np.float64(teleport if tele_uniform else 0.0)),
                 (_ALPHA, np.float64(alpha)), (_THRESHOLD, np.float64(threshold))):
        pull.put(i, a)

    def launch(s, slot):
        a, b = s & 1, (s + 1) & 1
        pull.put(_Y, ys[a])
        pull.put(_X, x0 if s == 0 else xs[a])
        pull.put(_X_NEW, xs[b])
        pull.put(_Y_NEW, ys[b])
        pull.put(_PARITY, np.int32(a))
        pull.put(_SLOT, np.int64(slot))
        pull.launch(stream)

    timed = stats is not None
    if timed:
        events = cache.get("events")
        if events is None:
            events = cache["events"] = (cupy.cuda.Event(), cupy.cuda.Event())
        start, end = events
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
                             blocks=blocks, launches=launches, iterations=it,
                             heavy_rows=nheavy, chunks=nchunks, medium_rows=nmedium)
    return (x0 if it == 0 else xs[it & 1]), it, converged, err
