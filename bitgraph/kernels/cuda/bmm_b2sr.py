"""Launcher of ``bmm_b2sr.cu``: the masked B2SR bit matrix product
``bmm_bin_bin_sum`` on tensor cores (``mma ... b1.and.popc``), with the CPU
launcher's signature and results (``kernels/cpu/bmm_b2sr.py``)."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import module, multiprocessors, settings, shape
from bitgraph.kernels.cuda.constants import BMM_B2SR, per_tile
from bitgraph.kernels.registry import register

__all__ = ["bmm_bin_bin_sum"]

_SOURCE = "bmm_b2sr.cu"
_WORD = {4: "unsigned char", 8: "unsigned char", 16: "unsigned short", 32: "unsigned int"}
_WORD_DTYPE = {4: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32}
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(
    [f"mask_rows<{i}>" for i in _INDEX.values()]
    + [f"tile_leaders<{t}, {i}>" for t in _WORD for i in _INDEX.values()]
    + [f"{k}<{t}, {w}, {i}>" for k in ("bmm_rows", "bmm_heavy", "column_counts")
       for t, w in _WORD.items() for i in _INDEX.values()])
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)

# The deferral of heavy tasks and the streaming rule are the Cuda settings'
# bmm_heavy, bmm_chunk and bmm_stream; the layout (tiles a hashed A(I) may
# hold, warps per block) is generated into the .cu (constants.BMM_B2SR).
HASH_MAX = BMM_B2SR["HASH_MAX"]  # A(I) with more tiles is not hashed
_WARPS = per_tile(BMM_B2SR, "WARPS")  # Geometry<t>::WARPS


def _fn(name):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[name])


def _index(*arrays):
    return np.dtype(np.int64) if any(a.dtype.itemsize > 4 for a in arrays) else np.dtype(np.int32)


def _blocks(n, per_sm=16):
    """Blocks for a grid-stride (or work-counter) loop over n block items."""
    return max(1, min(n, multiprocessors() * per_sm))


@register("mxm", fmt="b2sr", device="cuda", variant="bin_bin_sum")
def bmm_bin_bin_sum(A, BT, mask, *, parallel=None, stats=None):
    """Masked: (counts, total) with counts (uint64 CuPy array, mask.nnz) =
    C(i, j) for the s-th stored entry (i, j) of the CSR ``mask`` (in its
    order), C = A plus.pair B, ``BT`` the B2SR of B' (same t as ``A``);
    unmasked (``mask=None``): (None, total), total = sum_k |A(:,k)| *
    |B(k,:)| from the column counts of A's and BT's bits. Totals are Python
    ints; arguments as ``kernels.cpu.bmm_b2sr.bmm_bin_bin_sum`` (CuPy
    arrays; the mask's rows sorted, as every CSR is). ``parallel`` is
    ignored (the CPU's serial/parallel switch).

    Tensor cores for every t (m8n8k128 b1 AND+POPC; t = 16/32 as (t/8)^2
    8x8 MMAs per output tile, t = 4 padded to 8x8); a block per output
    tile row, A's tile row hashed in shared memory, BT's tile rows
    streamed (for t <= 8 with their tiles' bits): see ``bmm_b2sr.cu``.
    Counts are exact integers (int32 accumulators: at most A.ncols < 2^31).
    Hub tasks are deferred and chunked by ``settings.cuda.bmm_heavy`` and
    ``bmm_chunk``; ``bmm_stream`` picks streaming over binary search.
    """
    import cupy

    from bitgraph.device import oom_guard

    where = "mxm(bin_bin_sum, cuda)"
    cfg = settings()
    if A.t != BT.t:
        raise ValueError(f"bmm_bin_bin_sum: tile sizes differ (A t={A.t}, BT t={BT.t})")
    if A.ncols != BT.ncols:
        raise ValueError(f"bmm_bin_bin_sum: A.ncols={A.ncols} != B.nrows={BT.ncols}")
    t = int(A.t)
    if t not in _WORD:
        raise ValueError(f"bmm_bin_bin_sum: tile size t={t} must be one of {tuple(_WORD)}")
    arrays = [A.tile_rowptr, A.tile_colind, BT.tile_rowptr, BT.tile_colind]
    if mask is not None:
        if (mask.nrows, mask.ncols) != (A.nrows, BT.nrows):
            raise ValueError(f"bmm_bin_bin_sum: mask is {mask.nrows}x{mask.ncols}, "
                             f"C is {A.nrows}x{BT.nrows}")
        arrays += [mask.indptr, mask.indices]
    idx = _index(*arrays)
    ic, wc = _INDEX[idx], _WORD[t]
    wdt = _WORD_DTYPE[t]

    def index_arg(a):
        return cupy.ascontiguousarray(cupy.asarray(a), dtype=idx).reshape(-1)

    def tiles_arg(b):
        tiles = cupy.ascontiguousarray(cupy.asarray(b.tiles), dtype=wdt).reshape(-1)
        # t <= 8 loads whole tiles as 4- or 8-byte words: aligned storage
        return tiles.copy() if tiles.data.ptr % 8 else tiles

    a_rowptr, a_colind, bt_rowptr, bt_colind = (index_arg(a) for a in arrays[:4])
    a_tiles, bt_tiles = tiles_arg(A), tiles_arg(BT)

    if mask is None:
        width = -(-A.ncols // t) * t
        with oom_guard(where, 16 * width):
            ca = cupy.zeros(width, np.uint64)
            cb = cupy.zeros(width, np.uint64)
        fn = _fn(f"column_counts<{t}, {wc}, {ic}>")
        for colind, tiles, out in ((a_colind, a_tiles, ca), (bt_colind, bt_tiles, cb)):
            if colind.size:
                fn(*shape(colind.size, cfg), (colind, tiles, np.int64(colind.size), out))
        return None, int((ca * cb).sum(dtype=np.uint64))

    # stats (a bitgraph.Stats): a masked call records its phases as CUDA
    # events (metrics "events": [(name, event)], from "start") and "tasks"
    # (output tiles), "rows" (output tile rows), "deferred" (hub tasks),
    # "chunks" (their work items)
    def mark(name):
        if stats is not None:
            ev = cupy.cuda.Event()
            ev.record()
            stats.metrics["events"].append((name, ev))

    if stats is not None:
        stats.ran(("mxm", "b2sr", "cuda", "bin_bin_sum"))
        stats.metrics.update(events=[], tasks=0, deferred=0, chunks=0)
    mark("start")
    m_indptr, m_indices = index_arg(mask.indptr), index_arg(mask.indices)
    nnz = int(m_indices.size)
    nrows = int(A.nrows)
    with oom_guard(where, nnz * (9 + 3 * idx.itemsize)):
        counts = cupy.empty(nnz, np.uint64)
        if nnz == 0:
            return counts, 0
        rows = cupy.empty(nnz, idx)
        lead = cupy.empty(nnz, np.uint8)
        counters = cupy.zeros(2, np.uint64)  # tile rows taken, deferred tasks
    # the output tiles: their leading entries, in CSR order, so the tasks
    # come grouped by tile row
    _fn(f"mask_rows<{ic}>")(*shape(nrows * 32, cfg), (m_indptr, np.int64(nrows), rows))
    _fn(f"tile_leaders<{t}, {ic}>")(*shape(nnz, cfg),
                                    (m_indptr, m_indices, rows, np.int64(nnz), lead))
    with oom_guard(where, nnz * (8 + 4 * idx.itemsize)):
        leaders = cupy.flatnonzero(lead)
        del lead
        ntasks = int(leaders.size)
        task_i = (rows[leaders] // t).astype(idx)
        task_j = (m_indices[leaders] // t).astype(idx)
        del rows, leaders
        nbrows = -(-nrows // t)
        task_ptr = cupy.searchsorted(task_i, cupy.arange(nbrows + 1, dtype=idx)).astype(np.int64)
        task_b0, task_b1 = bt_rowptr[task_j], bt_rowptr[task_j + 1]  # BT(J)'s tiles
        # work of a tile row: its tasks' BT(J) blocks streamed; the biggest first
        cs = cupy.zeros(ntasks + 1, np.int64)
        cupy.cumsum((task_b1 - task_b0).astype(np.int64) + 1, out=cs[1:])
        work = cs[task_ptr[1:]] - cs[task_ptr[:-1]]
        del cs
        nwork = int(cupy.count_nonzero(work))
        row_order = cupy.argsort(-work)[:nwork]
        heavy_list = cupy.empty(ntasks, np.int64)
    mark("find_tiles")
    warps = _WARPS[t]
    hash_ok = -(-A.ncols // t) < 2**32 - 1  # column blocks fit the table's uint32 keys
    stage_ok = BT.nrows < 2**32  # mask columns fit the staged uint32 copy
    _fn(f"bmm_rows<{t}, {wc}, {ic}>")(
        (_blocks(nwork),), (warps * 32,),
        (a_rowptr, a_colind, a_tiles, bt_rowptr, bt_colind, bt_tiles, m_indptr, m_indices,
         np.int64(nrows), task_ptr, task_j, task_b0, task_b1, row_order, np.int64(nwork),
         counters[0:1], np.bool_(hash_ok), np.bool_(stage_ok), np.int64(cfg.bmm_stream),
         np.int64(cfg.bmm_heavy), heavy_list, counters[1:2], counts))
    nheavy = int(counters[1:2].get()[0])
    mark("bmm_rows")
    items = 0
    chunk = max(1, int(cfg.bmm_chunk))
    if nheavy:
        heavy = heavy_list[:nheavy]
        ti, tj = task_i[heavy].astype(np.int64), task_j[heavy].astype(np.int64)
        short = cupy.minimum(a_rowptr[ti + 1] - a_rowptr[ti], bt_rowptr[tj + 1] - bt_rowptr[tj])
        chunk_ptr = cupy.zeros(nheavy + 1, np.int64)
        cupy.cumsum((short.astype(np.int64) + chunk - 1) // chunk, out=chunk_ptr[1:])
        items = int(chunk_ptr[-1:].get()[0])
        _fn(f"bmm_heavy<{t}, {wc}, {ic}>")(
            (_blocks(-(-items // warps), 32),), (warps * 32,),
            (a_rowptr, a_colind, a_tiles, bt_rowptr, bt_colind, bt_tiles, m_indptr, m_indices,
             np.int64(nrows), task_i, task_j, heavy, chunk_ptr, np.int64(nheavy),
             np.int64(chunk), counts))
    mark("bmm_heavy")
    total = int(counts.sum(dtype=np.uint64))
    mark("sum")
    if stats is not None:
        stats.metrics.update(tasks=ntasks, rows=nwork, deferred=nheavy, chunks=items)
    return counts, total
