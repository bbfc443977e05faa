"""Launcher of ``pagerank.cu``: PageRank's whole power iteration on the GPU,
one fused launch an iteration, or two with the tiled or striped pull (the
CUDA twin of ``kernels/cpu/pagerank.py``, which the host loop calls once an
iteration). Here every iteration is queued at once, one CUDA graph WHILE
loop of two iterations a pass that the device ends when an iteration
converges or reaches max_iter (``settings.pagerank.cuda_while``,
``loops.py``), and the host reads the iteration count and the last error
once, at the end; without it, batches of ``cfg.cuda_check_every``
iterations, one CUDA graph replay and one read each.

The plan (the row pull: the heavy rows of A' cut into chunks, the medium
rows a warp each, the lanes of the light rows; the tiled pull: the flagged
column indices and the tiles' row counts; the striped pull: each stripe's
entries sorted by column; the index arrays of the kernel's dtype), the
workspaces (x and y of even and odd iterations, partial sums, counters),
the packed launches and the loop's (or batches') CUDA graphs are built once per graph
and settings and kept in ``cache`` (the graph's ``pagerank_cuda`` slot); a
run allocates only the array it returns and launches one initialisation,
its loop (or batches) and ``pagerank_out`` (the last iteration's ranks into that
array, in the graph's own numbering, chosen on the device).

A ``stats`` (``bitgraph.Stats``) receives ``kernel_ms`` (GPU time of the
iterations, events around the loop: with batches it includes the host's reads),
``iterations``, ``pull`` ("rows", "tiles" or "stripes"), ``lanes``, ``blocks``,
``heavy_rows``, ``chunks``, ``medium_rows``, ``tiles``, ``hot`` (ranks a
block of the tiled pull reads from shared memory), ``stripes``,
``stripe_rows``, ``pieces`` (the striped pull's), ``loop`` ("while" or
"batches") and ``launches`` (iterations queued, including those that
returned at once after convergence; the initialisation not counted).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from bitgraph.kernels.cuda import (PackedLaunch, captured, cooperative_blocks, module,
                                   optin_shared_bytes, shape)
from bitgraph.kernels.cuda import loops
from bitgraph.kernels.cuda import settings as cuda_settings
from bitgraph.kernels.cuda.constants import PAGERANK
from bitgraph.kernels.cuda.spmv_csr import row_classes
from bitgraph.kernels.registry import register

__all__ = ["pagerank_run"]

_SOURCE = "pagerank.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
# the ranks' type: float64, or float32 (stored and gathered as float, summed in double)
_RANK = {np.dtype(np.float64): "double", np.dtype(np.float32): "float"}
_NAMES = tuple(f"pagerank_pull<{i}, {iso}, {t}>" for t in _RANK.values()
               for i in _INDEX.values() for iso in ("true", "false")) + tuple(
                   f"pagerank_init<{t}>" for t in _RANK.values()) + tuple(
                   f"pagerank_tiles<{iso}, {t}>" for t in _RANK.values()
                   for iso in ("true", "false")) + tuple(
                   f"pagerank_rows<{i}, {t}>" for t in _RANK.values()
                   for i in _INDEX.values()) + tuple(
                   f"pagerank_stripes<{iso}, {t}>" for t in _RANK.values()
                   for iso in ("true", "false")) + tuple(
                   f"pagerank_sums<{t}>" for t in _RANK.values()) + tuple(
                   f"pagerank_out<{t}>" for t in _RANK.values())
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
TILE_K = PAGERANK["TILE_K"]  # stored entries a thread of the tiled pull takes
_PULLS = ("auto", "rows", "tiles", "stripes")
_STRIPE_ROWS_MAX = PAGERANK["STRIPE_ROWS_MAX"]  # a row's offset in its stripe is 16 bits
_STRIPE_THREADS = PAGERANK["STRIPE_THREADS"]  # pagerank_stripes' __launch_bounds__
# pagerank_pull's parameters, in order (pagerank.cu); a call or a launch sets some of the
# packed launch's slots by these names
_PARAMS = ("indptr", "indices", "values", "heavy_rows", "heavy_first", "chunk_heavy", "nheavy",
           "nchunks", "chunk", "medium_rows", "nmedium", "light_max", "y", "x", "inv_s", "dw",
           "dw_c", "dw_uniform", "teleport", "tele_c", "tele_uniform", "alpha", "n", "group",
           "x_new", "y_new", "lost", "parity", "partials", "chunk_sums", "heavy_parts",
           "row_arrived", "arrived", "tally", "threshold", "stop")
# the tiled pull's two kernels' parameters, in order (pagerank.cu)
_TILE_PARAMS = ("flagged", "values", "nnz", "ntiles", "tile_ne0", "y", "hot", "rowsum", "heads",
                "stop")
# (the second kernels of the tiled and striped pulls end alike: _FINISH)
_FINISH = ("x", "inv_s", "dw", "dw_c", "dw_uniform", "teleport", "tele_c", "tele_uniform", "alpha",
           "x_new", "y_new", "lost", "parity", "partials", "arrived", "tally", "threshold", "stop")
_ROW_PARAMS = ("indptr", "n", "tile_n", "rowsum", "heads", "ne_ord") + _FINISH
# the striped pull's two kernels' parameters, in order (pagerank.cu)
_STRIPE_PARAMS = ("src", "ldst", "values", "stripe_first", "nstripes", "stripe_rows", "n", "nnz",
                  "npieces", "y", "sums", "stop")
_SUMS_PARAMS = ("sums", "n") + _FINISH
# the slots a run and an iteration set, by name: the row pull's, and the
# tiled and striped pulls' second kernels' (no y there: _T_Y, _S_Y of their
# first kernels)
_NAMED = ("y", "x", "inv_s", "dw", "dw_c", "teleport", "tele_c", "alpha", "x_new", "y_new",
          "parity", "threshold")
_PULL_SLOTS = tuple(_PARAMS.index(p) for p in _NAMED)
_ROW_SLOTS = (None,) + tuple(_ROW_PARAMS.index(p) for p in _NAMED[1:])
_SUMS_SLOTS = (None,) + tuple(_SUMS_PARAMS.index(p) for p in _NAMED[1:])
_T_Y = _TILE_PARAMS.index("y")
_S_Y = _STRIPE_PARAMS.index("y")


def _kernels(index, iso, rank=np.float64, pull="rows"):
    """(pagerank_init<T>, pagerank_pull<I, ISO, T>, pagerank_out<T>) of the
    current device, T the ranks' C type; ``pull`` "tiles":
    (pagerank_init<T>, pagerank_tiles<ISO, T>, pagerank_rows<I, T>,
    pagerank_out<T>); "stripes": (pagerank_init<T>, pagerank_stripes<ISO,
    T>, pagerank_sums<T>, pagerank_out<T>)."""
    mod, lowered = module(_SOURCE, _NAMES)
    t, i, iso = _RANK[np.dtype(rank)], _INDEX[np.dtype(index)], "true" if iso else "false"
    init = mod.get_function(lowered[f"pagerank_init<{t}>"])
    out = mod.get_function(lowered[f"pagerank_out<{t}>"])
    if pull == "tiles":
        return (init, mod.get_function(lowered[f"pagerank_tiles<{iso}, {t}>"]),
                mod.get_function(lowered[f"pagerank_rows<{i}, {t}>"]), out)
    if pull == "stripes":
        return (init, mod.get_function(lowered[f"pagerank_stripes<{iso}, {t}>"]),
                mod.get_function(lowered[f"pagerank_sums<{t}>"]), out)
    return init, mod.get_function(lowered[f"pagerank_pull<{i}, {iso}, {t}>"]), out


def _tile_plan(cupy, AT):
    """The tiled pull's view of AT (``pagerank.cu``, the tiled pull):
    (indptr, values, flagged, tile_ne0, ne_ord, nnz, ntiles, tile_n), a
    tile a warp's 32 * TILE_K entries. flagged: the column indices as int32 with
    bit 31 set on each row's first entry; ne_ord[r]: row r's ordinal among
    the rows with entries (int32); tile_ne0[t]: the rows that start before
    tile t. AT must have fewer than 2^31 rows. O(n + nnz), once per graph."""
    index = np.dtype(np.int64) if max(AT.indptr.dtype.itemsize,
                                      AT.indices.dtype.itemsize) > 4 else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(AT.indptr, dtype=index)
    values = (cupy.zeros(1, np.float64) if AT.values is None
              else cupy.ascontiguousarray(AT.values, dtype=np.float64))
    nnz = int(AT.indices.shape[0])
    tile_n = 32 * TILE_K
    ntiles = -(-nnz // tile_n)
    n = int(AT.nrows)
    flagged = cupy.ascontiguousarray(AT.indices, dtype=np.int32).copy() if nnz else cupy.zeros(
        TILE_K, np.int32)
    starts = indptr[:-1]
    full = indptr[1:] > starts
    first = starts[full]  # each row's first entry, ascending
    if first.size:
        flagged[first] |= np.int32(-2**31)
    tile_ne0 = cupy.searchsorted(first, cupy.arange(max(ntiles, 1), dtype=np.int64) * tile_n)
    ne_ord = cupy.cumsum(full.astype(np.int32)) - 1 if n else cupy.zeros(1, np.int32)
    return (indptr, values, flagged, cupy.ascontiguousarray(tile_ne0, dtype=np.int64),
            cupy.ascontiguousarray(ne_ord, dtype=np.int32), nnz, ntiles, tile_n)


def _stripe_plan(cupy, AT, rows, group=1 << 24):
    """The striped pull's view of AT (``pagerank.cu``, the striped pull):
    (src, ldst, values, stripe_first, nstripes, nnz). Stripe s: the rows s *
    rows .. (s + 1) * rows - 1 of AT (rows at most 2^16), its entries at
    stripe_first[s] .. stripe_first[s + 1] - 1 (where AT keeps them) sorted
    by column: src their columns (int32), ldst their rows less s * rows
    (uint16), values AT's values in the same order (float64; a one-element
    dummy for a structure-only AT). AT must have fewer than 2^31 columns.
    Sorted a few stripes at a time (about ``group`` entries: the sort's
    temporaries, ~32 bytes an entry); one host read (the stripes' bounds).
    O(n + nnz log nnz), once per graph and stripe size."""
    n, nnz = int(AT.nrows), int(AT.indices.shape[0])
    indptr = cupy.ascontiguousarray(AT.indptr, dtype=np.int64)
    nstripes = max(1, -(-n // rows))
    bounds = cupy.minimum(cupy.arange(nstripes + 1, dtype=np.int64) * rows, n)
    stripe_first = cupy.ascontiguousarray(indptr[bounds])
    first = [int(f) for f in stripe_first.get()]  # synchronize! once per graph
    src = cupy.zeros(max(nnz, 1), np.int32)
    ldst = cupy.zeros(max(nnz, 1), np.uint16)
    values = (cupy.zeros(1, np.float64) if AT.values is None
              else cupy.zeros(max(nnz, 1), np.float64))
    s = 0
    while s < nstripes:
        t = s + 1
        while t < nstripes and first[t + 1] - first[s] <= group:
            t += 1
        a, b = first[s], first[t]
        if b > a:
            r0, r1 = s * rows, min(t * rows, n)
            # each entry's row less r0, and its column
            local = cupy.searchsorted(indptr[r0 + 1:r1 + 1] - a,
                                      cupy.arange(b - a, dtype=np.int64), side="right")
            cols = cupy.ascontiguousarray(AT.indices[a:b], dtype=np.int64)
            order = cupy.argsort((local // rows) * n + cols)
            src[a:b] = cols[order]
            ldst[a:b] = local[order] % rows
            if AT.values is not None:
                values[a:b] = cupy.ascontiguousarray(AT.values[a:b], dtype=np.float64)[order]
        s = t
    return src, ldst, values, stripe_first, nstripes, nnz


def _clear(cupy, a, stream):
    """Zero the CuPy array ``a`` on ``stream`` (a memset: no kernel)."""
    cupy.cuda.runtime.memsetAsync(a.data.ptr, 0, a.nbytes, stream)


def _hot_cap(cupy):
    """Bytes of dynamic shared memory a block may opt in to on this device,
    less 1 KiB for the tiled pull's own (its scan's items)."""
    return optin_shared_bytes() - 1024


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


def _workspace(cupy, n, blocks, nheavy, nchunks, rank=np.float64):
    """The buffers a run reuses: ys and xs (2 x rank[n] each: the ranks'
    dtype; x and y of even and odd iterations), lost[2],
    partials[2 * blocks], chunk_sums[nchunks], heavy_parts[2 * nheavy],
    row_arrived[nheavy] (cleared by pagerank_init), arrived[1] (0 between
    launches), tally[3] (int64: the iterations run, the last error's
    bits, max_iter), stop[1] (one-element dummies for none)."""
    return (
        (cupy.empty(n, rank), cupy.empty(n, rank)),
        (cupy.empty(n, rank), cupy.empty(n, rank)),
        cupy.empty(2, np.float64),
        cupy.empty(2 * blocks, np.float64),
        cupy.empty(max(nchunks, 1), np.float64),
        cupy.empty(2 * max(nheavy, 1), np.float64),
        cupy.empty(max(nheavy, 1), np.uint32),
        cupy.zeros(1, np.uint32),
        cupy.empty(3, np.int64),
        cupy.empty(1, np.int32),
    )


@register("pagerank", fmt="csr", device="cuda", variant="pull")
def pagerank_run(AT, x, inv_s, dw, teleport, alpha, threshold, max_iter, *, cfg, cuda_cfg=None,
                 stats=None, cache=None, fill=None, hubs_first=False, order=None):
    """Run PageRank's power iteration from ``x`` on the GPU: returns
    ``(x, iterations, converged, error)`` as ``link_analysis._fused`` does
    on the CPU (x a new CuPy array of the ranks' dtype, the others Python
    numbers).

    AT: CSR of A' (CuPy arrays; values float64 A(i, j), or None: every
    weight 1 and no values read); x: the start ranks, a float64[n] or
    float32[n] CuPy array whose dtype is the ranks' (float32: x, y and the
    results stored as float32, every sum in float64; x is read, never
    written; None: the uniform start ``fill``, written by the
    initialisation); inv_s: float64[n] CuPy (0 exactly on the dangling
    vertices); dw, teleport: float64[n] CuPy or a float (the same for every
    vertex: no stream read); alpha: the damping; threshold: converged once
    an iteration's L1 change is below it (``n * tol``); max_iter: most
    iterations. cfg: the ``PageRank`` settings (``cuda_check_every``,
    ``cuda_blocks_per_sm``, ``cuda_lanes``, ``cuda_split_above``,
    ``cuda_chunk``, ``cuda_warp_above``, ``cuda_pull``, ``cuda_stripes_min_mean``,
    ``cuda_tile_threads``, ``cuda_hot_bytes``, ``cuda_stripe_bytes``,
    ``cuda_stripe_pieces``); cuda_cfg: the ``Cuda`` settings (launch shape; None:
    those in force); cache: a dict kept with the graph (AT must not change
    while it is): the plan, workspaces and launches are built on the first
    run and reused (None: built for this run); a run under the very same
    settings objects, ranks' dtype and kinds of dw and teleport takes them
    without looking at the settings again; fill: with x None, the uniform
    start as ``(value, dtype)`` (the ranks' dtype, float64 or float32; the
    value rounded to it once); hubs_first: AT is relabelled by descending
    degree, its first columns the most gathered (``settings.pagerank.cuda_pull``
    "auto" runs the striped pull then, and on other graphs of
    cuda_stripes_min_mean entries a row or more, the row pull on the rest,
    and on a graph whose striped view did not fit the GPU's memory, from
    then on; the tiled pull reads the hot ranks from shared memory then);
    order: with hubs_first, the relabelling (int64[n] CuPy: new id -> the
    graph's own id): the ranks come back in the graph's own numbering.
    Iteration s reads x, y = x * inv_s and the dangling rank from buffers
    s & 1 and writes buffers (s + 1) & 1 (the launcher's, kept in cache);
    the iteration that converges (or is the max_iter-th) sets a flag that
    makes every later launch return at once, so the final ranks are those of
    that iteration. The iterations run as one WHILE loop (``cuda_while``,
    where the driver has them) or in batches of ``cuda_check_every``, each
    one CUDA graph replay and one host read of the iteration count; either
    is captured once per graph, settings and call constants. O(n + nnz) an
    iteration.

    >>> x, it, converged, err = pagerank_run(AT, x0, inv_s, 1 / n, 0.15 / n, 0.85, n * 1e-6, 100,
    ...                                      cfg=PageRank())  # doctest: +SKIP
    """
    where = "pagerank(cuda)"
    if x is None:
        if fill is None:
            raise ValueError(f"{where}: x None needs fill = (value, dtype)")
        rank = np.dtype(fill[1])
    else:
        rank = np.dtype(x.dtype)
    if rank not in _RANK:
        raise ValueError(f"{where}: x must be float64 or float32 ranks, got {rank}")
    dw_uniform, tele_uniform = bool(np.ndim(dw) == 0), bool(np.ndim(teleport) == 0)
    cache = {} if cache is None else cache
    cuda_cfg = cuda_settings(cuda_cfg)  # None: those in force, the object itself
    # the last run's launches, taken while the settings are the same objects
    hot = cache.get("hot")
    kinds = (rank, dw_uniform, tele_uniform, bool(hubs_first))
    if hot is not None and hot[0] is cfg and hot[1] is cuda_cfg and hot[2] == kinds:
        run = hot[3]
    else:
        run = _prepare(AT, cfg, cuda_cfg, rank, dw_uniform, tele_uniform, hubs_first, cache,
                       where)
        cache["hot"] = (cfg, cuda_cfg, kinds, run)
    n = run.n
    if AT.nrows != n or AT.ncols != n or (x is not None and x.shape != (n,)) or \
            inv_s.shape != (n,) or (order is not None and order.shape != (n,)):
        raise ValueError(f"{where}: a square AT and x, inv_s, order of its {n} rows expected,"
                         f" got {AT.nrows}x{AT.ncols}, {getattr(x, 'shape', None)},"
                         f" {inv_s.shape}, {getattr(order, 'shape', None)}")
    return run(x, inv_s, dw, teleport, alpha, threshold, max_iter,
               0.0 if x is not None else float(rank.type(fill[0])), order, stats)


def _prepare(AT, cfg, cuda_cfg, rank, dw_uniform, tele_uniform, hubs_first, cache, where):
    """The ``_Run`` of AT under these settings and kinds of input: the
    settings checked, the plan, workspaces and packed launches built or
    taken from ``cache``."""
    import cupy

    from bitgraph.device import oom_guard
    from bitgraph.errors import DeviceError

    n = int(AT.nrows)
    if AT.ncols != n:
        raise ValueError(f"{where}: a square AT expected, got {AT.nrows}x{AT.ncols}")
    split, chunk = int(cfg.cuda_split_above), int(cfg.cuda_chunk)
    warp_above, lanes = int(cfg.cuda_warp_above), int(cfg.cuda_lanes)
    if split < 0 or chunk < 1 or warp_above < 0:
        raise ValueError(f"{where}: settings.pagerank.cuda_split_above = {split} and"
                         f" cuda_warp_above = {warp_above} must be >= 0 and cuda_chunk ="
                         f" {chunk} >= 1")
    if lanes not in (0, 1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: settings.pagerank.cuda_lanes = {cfg.cuda_lanes!r} must be 0"
                         f" or a power of 2 up to 32")
    pull_kind = cfg.cuda_pull
    if pull_kind not in _PULLS:
        raise ValueError(f"{where}: settings.pagerank.cuda_pull = {pull_kind!r} must be one of"
                         f" {_PULLS}")
    tile_threads, hot_bytes = int(cfg.cuda_tile_threads), int(cfg.cuda_hot_bytes)
    if not (32 <= tile_threads <= 1024 and tile_threads % 32 == 0) or hot_bytes < 0:
        raise ValueError(f"{where}: settings.pagerank.cuda_tile_threads = {tile_threads} must be"
                         f" a multiple of 32 in [32, 1024] and cuda_hot_bytes = {hot_bytes} >= 0")
    stripe_bytes, pieces = int(cfg.cuda_stripe_bytes), int(cfg.cuda_stripe_pieces)
    if stripe_bytes < 8 or pieces < 0:
        raise ValueError(f"{where}: settings.pagerank.cuda_stripe_bytes = {stripe_bytes} must be"
                         f" >= 8 and cuda_stripe_pieces = {pieces} >= 0")
    pieces = pieces or (4 if hubs_first else 1)
    dense = int(AT.indices.shape[0]) >= float(cfg.cuda_stripes_min_mean) * max(n, 1)
    kind = pull_kind if pull_kind != "auto" else "stripes" if hubs_first or dense else "rows"
    if n >= 2**31:  # the tiled pull flags bit 31 of a column index; the striped one stores int32
        kind = "rows"
    tiles = kind == "tiles"
    wide = int(cfg.cuda_f64_wide_median)
    every = max(1, int(cfg.cuda_check_every))
    per_sm = int(cfg.cuda_blocks_per_sm)
    if per_sm < 0:
        raise ValueError(f"{where}: settings.pagerank.cuda_blocks_per_sm = {per_sm} must be >= 0")
    launch_cfg = cuda_cfg
    if per_sm:
        launch_cfg = dataclasses.replace(launch_cfg, blocks_per_sm=per_sm)
    if kind == "stripes":
        stripe_rows = max(1, min(_STRIPE_ROWS_MAX, min(stripe_bytes, _hot_cap(cupy)) // 8))
        skey = ("stripes", stripe_rows)
        if skey not in cache:
            nnz = int(AT.indices.shape[0])
            try:
                with oom_guard(where, 8 * n + (6 if AT.values is None else 14) * nnz +
                               32 * min(nnz, 1 << 24)):
                    cache[skey] = _stripe_plan(cupy, AT, stripe_rows)
            except DeviceError:
                if pull_kind != "auto":
                    raise
                cache[skey] = None  # no room for the striped view: "auto" pulls by rows
        if cache[skey] is None:
            kind = "rows"
    if tiles:
        key = ("tiles",)
        if key not in cache:
            with oom_guard(where, 12 * n + 4 * int(AT.indices.shape[0])):
                cache[key] = _tile_plan(cupy, AT)
        (indptr, values, flagged, tile_ne0, ne_ord, nnz, ntiles, tile_n) = cache[key]
        nheavy = nchunks = nmedium = 0
        group = 1
        hot = min(n, min(hot_bytes, _hot_cap(cupy)) // rank.itemsize) if hubs_first else 0
    elif kind == "stripes":
        key = skey
        src, ldst, values, stripe_first, nstripes, nnz = cache[key]
        indptr = stripe_first  # the index dtype the kernels are asked for (none reads it)
        nheavy = nchunks = nmedium = 0
        group = 1
        hot = 0
    else:
        key = ("plan", split, chunk, warp_above, lanes, rank.str, wide)
        if key not in cache:
            with oom_guard(where, 24 * n + 8 * int(AT.indices.shape[0])):
                cache[key] = _plan(cupy, AT, split, chunk, warp_above, lanes, rank, wide)
        (indptr, indices, values, heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks,
         medium_rows, nmedium, light_max, group) = cache[key]
    (blocks,), (threads,) = shape(n * group, launch_cfg)
    # the workspace's buffers hold the ranks' dtype: one workspace per dtype run
    wkey = ("work", n, blocks, nheavy, nchunks, rank.str)
    if wkey not in cache:
        with oom_guard(where, 4 * rank.itemsize * n + 16 * blocks + 8 * nchunks + 20 * nheavy):
            cache[wkey] = _workspace(cupy, n, blocks, nheavy, nchunks, rank)
    ys, xs, lost, partials, chunk_sums, heavy_parts, row_arrived, arrived, tally, stop = \
        cache[wkey]
    sums = None
    if tiles:
        skey = ("sums", n, ntiles)  # the rows' sums and the tiles' heads
        if skey not in cache:
            with oom_guard(where, 8 * n + 8 * ntiles):
                cache[skey] = (cupy.empty(max(n, 1), np.float64),
                               cupy.empty(max(ntiles, 1), np.float64))
        rowsum, heads = cache[skey]
    if kind == "stripes":
        skey = ("stripe_sums", n)  # the rows' fixed-point sums, cleared before each launch
        if skey not in cache:
            with oom_guard(where, 8 * n):
                cache[skey] = cupy.zeros(max(n, 1), np.uint64)
        sums = cache[skey]
    dummy = cache.get("dummy")
    if dummy is None:
        dummy = cache["dummy"] = cupy.zeros(1, np.float64)
    # the launches packed once per graph, settings and flags (PackedLaunch:
    # CuPy's launch converts the iteration's 37 arguments each time, ~12 us of
    # host time); a call sets the slots that change: its arrays and numbers
    fns = _kernels(indptr.dtype, AT.values is None, rank, kind)
    # xs[0] = x0, ys[0] = x0 * inv_s, lost[0], *stop = 0, tally = {0, inf, max_iter},
    # row_arrived = 0; (x, fill, inv_s, max_iter) set per call
    init = PackedLaunch(fns[0], blocks, threads, (
        None, xs[0], np.float64(0.0), None, np.int64(n), ys[0], lost, partials, row_arrived,
        np.int64(nheavy), arrived, stop, tally, np.int64(0)))
    # the ranks of the last iteration (xs[tally[0] & 1]); (order, out) set per call
    out = PackedLaunch(fns[-1], blocks, threads, (xs[0], xs[1], tally, None, None, np.int64(n)))
    npieces = 0
    # the second launch's parameters after its row sums (_FINISH's order); the call's and the
    # iteration's slots set per call
    finish = (None, None,  # x, inv_s
              None, np.float64(0.0), np.uint8(dw_uniform),  # dw, dw_c
              None, np.float64(0.0), np.uint8(tele_uniform),  # teleport, tele_c
              np.float64(0.0), None, None,  # alpha, x_new, y_new
              lost, np.int32(0), partials, arrived, tally,  # parity
              np.float64(0.0), stop)  # threshold
    if tiles:
        smem = hot * rank.itemsize
        # resident blocks (one copy of the hot ranks serves a whole block)
        tile_blocks = cooperative_blocks(fns[1], tile_threads, 2, smem)
        gather = PackedLaunch(fns[1], tile_blocks, tile_threads, (  # in _TILE_PARAMS's order
            flagged, values, np.int64(nnz), np.int64(ntiles), tile_ne0,
            None, np.int64(hot), rowsum, heads, stop), smem=smem)  # _T_Y
        pull = PackedLaunch(fns[2], blocks, threads, (  # in _ROW_PARAMS's order
            indptr, np.int64(n), np.int64(tile_n), rowsum, heads, ne_ord) + finish)
        slots, gather_y = _ROW_SLOTS, _T_Y
    elif kind == "stripes":
        smem = stripe_rows * 8  # a row's fixed-point sum: two 32-bit words
        # resident blocks (a stripe's sums fill a multiprocessor's shared memory)
        stripe_blocks = cooperative_blocks(fns[1], _STRIPE_THREADS, 2, smem)
        npieces = pieces * stripe_blocks
        gather = PackedLaunch(fns[1], stripe_blocks, _STRIPE_THREADS, (  # _STRIPE_PARAMS
            src, ldst, values, stripe_first, np.int64(nstripes), np.int64(stripe_rows),
            np.int64(n), np.int64(nnz), np.int64(npieces), None, sums, stop),  # _S_Y
            smem=smem)
        pull = PackedLaunch(fns[2], blocks, threads, (sums, np.int64(n)) + finish)
        slots, gather_y = _SUMS_SLOTS, _S_Y
    else:
        gather = gather_y = None
        pull = PackedLaunch(fns[1], blocks, threads, (  # in _PARAMS's order
            indptr, indices, values, heavy_rows, heavy_first, chunk_heavy, np.int64(nheavy),
            np.int64(nchunks), np.int64(chunk), medium_rows, np.int64(nmedium),
            np.int64(light_max),
            None, None, None,  # _Y, _X, _INV_S
            None, np.float64(0.0), np.uint8(dw_uniform),  # _DW, _DW_C
            None, np.float64(0.0), np.uint8(tele_uniform),  # _TELE, _TELE_C
            np.float64(0.0), np.int64(n), np.int32(group),  # _ALPHA
            None, None, lost, np.int32(0),  # _X_NEW, _Y_NEW, lost, _PARITY
            partials, chunk_sums, heavy_parts, row_arrived, arrived, tally,
            np.float64(0.0), stop))  # _THRESHOLD, stop
        slots = _PULL_SLOTS
    metrics = dict(lanes=group, blocks=blocks, heavy_rows=nheavy, chunks=nchunks,
                   medium_rows=nmedium, pull=kind, tiles=ntiles if tiles else 0,
                   hot=hot if tiles else 0, stripes=nstripes if kind == "stripes" else 0,
                   stripe_rows=stripe_rows if kind == "stripes" else 0, pieces=npieces)
    # a captured batch bakes its launches' shapes in besides their slots (the graphs' keys)
    shapes = (blocks, threads) + ((tile_blocks, tile_threads, smem) if tiles else
                                  (stripe_blocks, _STRIPE_THREADS, smem) if kind == "stripes"
                                  else ())
    # the iterations as one WHILE loop where the driver runs them (else batches)
    every = 0 if cfg.cuda_while and loops.available() else every
    return _Run(n, rank, every, init, gather, pull, out, slots, gather_y, ys, xs, tally, stop,
                sums, dummy, dw_uniform, tele_uniform, metrics,
                cache.setdefault(("graphs",) + wkey + (key, kind) + shapes, {}))


class _Run:
    """A graph's PageRank run under fixed settings and kinds of input: its
    packed launches and buffers (``_prepare``); calling it runs one
    PageRank (``pagerank_run``'s per-call part). ``every``: iterations a
    batch, or 0: every iteration in one WHILE loop (``loops``)."""

    __slots__ = ("n", "rank", "every", "init", "gather", "pull", "out", "slots", "gather_y",
                 "ys", "xs", "tally", "stop", "sums", "dummy", "dw_uniform", "tele_uniform",
                 "metrics", "graphs", "events")

    def __init__(self, n, rank, every, init, gather, pull, out, slots, gather_y, ys, xs, tally,
                 stop, sums, dummy, dw_uniform, tele_uniform, metrics, graphs):
        self.n, self.rank, self.every = n, rank, every
        self.init, self.gather, self.pull, self.out = init, gather, pull, out
        self.slots, self.gather_y, self.ys, self.xs = slots, gather_y, ys, xs
        self.tally, self.stop, self.sums, self.dummy = tally, stop, sums, dummy
        self.dw_uniform, self.tele_uniform = dw_uniform, tele_uniform
        self.metrics, self.graphs, self.events = metrics, graphs, None

    def _setup(self, s):
        """The iteration slots of launch s: its buffers and parity."""
        y_at, x_at, _, _, _, _, _, _, x_new_at, y_new_at, parity_at, _ = self.slots
        a, b = s & 1, (s + 1) & 1
        if self.gather is not None:
            self.gather.put(self.gather_y, self.ys[a])
        else:
            self.pull.put(y_at, self.ys[a])
        self.pull.put(x_at, self.xs[a])
        self.pull.put(x_new_at, self.xs[b])
        self.pull.put(y_new_at, self.ys[b])
        self.pull.put(parity_at, np.int32(a))

    def _iterations(self, s, k, sp):
        """Queue the launches of iterations s .. s + k - 1 on stream ``sp``."""
        import cupy

        for j in range(s, s + k):
            self._setup(j)
            if self.gather is not None:  # the tiled and striped pulls: sums, then rows
                if self.sums is not None:  # the striped pull adds into sums
                    _clear(cupy, self.sums, sp)
                self.gather.launch(sp)
            self.pull.launch(sp)

    def _key(self):
        return self.pull.words.tobytes() if self.gather is None else (
            self.pull.words.tobytes(), self.gather.words.tobytes())

    def _batch(self, s, k):
        """Iterations s .. s + k - 1 as one CUDA graph, captured the first
        time these constants (the call's slots) are asked for."""
        self._setup(s)
        return captured(self.graphs, (s & 1, k, self._key()),
                        lambda sp: self._iterations(s, k, sp))

    def _loop(self):
        """Every iteration as one WHILE loop of two iterations a pass (even,
        odd), ended on the device by the flag the iteration that converges
        or reaches the limit sets; captured the first time these constants
        are asked for."""
        self._setup(0)
        return loops.while_loop(self.graphs, ("while", self._key()),
                          lambda sp: self._iterations(0, 2, sp), self.stop)

    def __call__(self, x, inv_s, dw, teleport, alpha, threshold, max_iter, fill, order, stats):
        import cupy

        n = self.n
        dw_arr = self.dummy if self.dw_uniform else cupy.ascontiguousarray(dw, np.float64)
        tele_arr = self.dummy if self.tele_uniform else cupy.ascontiguousarray(teleport,
                                                                              np.float64)
        for name, a in (("dw", dw_arr), ("teleport", tele_arr)):
            if a.shape != (n,) and a.shape != (1,):
                raise ValueError(f"pagerank(cuda): {name} must have {n} values, got shape"
                                 f" {a.shape}")
        inv_s = cupy.ascontiguousarray(inv_s, np.float64)
        x = None if x is None else cupy.ascontiguousarray(x, self.rank)
        if order is not None:
            order = cupy.ascontiguousarray(order, np.int64)
        from bitgraph.device import oom_guard

        with oom_guard("pagerank(cuda)", self.rank.itemsize * n):
            result = cupy.empty(n, self.rank)
        stream = cupy.cuda.get_current_stream().ptr
        init, pull = self.init, self.pull
        init.put(0, x)
        init.put(2, np.float64(fill))
        init.put(3, inv_s)
        init.put(13, np.int64(max_iter))
        init.launch(stream)
        _, _, inv_s_at, dw_at, dw_c_at, tele_at, tele_c_at, alpha_at, _, _, _, \
            threshold_at = self.slots
        for i, a in ((inv_s_at, inv_s), (dw_at, dw_arr),
                     (dw_c_at, np.float64(dw if self.dw_uniform else 0.0)), (tele_at, tele_arr),
                     (tele_c_at, np.float64(teleport if self.tele_uniform else 0.0)),
                     (alpha_at, np.float64(alpha)), (threshold_at, np.float64(threshold))):
            pull.put(i, a)
        timed = stats is not None
        if timed:
            if self.events is None:
                self.events = (cupy.cuda.Event(), cupy.cuda.Event())
            start, end = self.events
            start.record()
        it, launches, tally = 0, 0, None
        if max_iter > 0 and not self.every:
            self._loop().launch(stream)
        else:
            # batches: the launches after the stop flag return at once
            while it < max_iter:
                k = min(self.every, max_iter - it)
                self._batch(it, k).launch(cupy.cuda.get_current_stream())
                launches += k
                tally = self.tally.get()  # synchronize! one read a batch
                it = int(tally[0])
                # the flag stopped the batch, or its last iteration converged
                if it < launches or float(tally[1:2].view(np.float64)[0]) < threshold:
                    break
        if timed:
            end.record()
        # the ranks of the last iteration (xs[tally[0] & 1], chosen on the
        # device), into the array returned, in the graph's numbering
        self.out.put(3, order)
        self.out.put(4, result)
        self.out.launch(stream)
        if tally is None or not self.every:
            tally = self.tally.get()  # synchronize! the iterations and error, the result's
        it = int(tally[0])
        err = float(tally[1:2].view(np.float64)[0])
        if timed:
            end.synchronize()
            if not self.every:
                launches = it + (it & 1) if max_iter > 0 else 0  # two a pass
            stats.metrics.update(kernel_ms=cupy.cuda.get_elapsed_time(start, end),
                                 launches=launches, iterations=it, **self.metrics,
                                 loop="while" if not self.every else "batches")
        return result, it, it > 0 and err < threshold, err
