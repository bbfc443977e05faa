"""Launcher of ``dist_traversal.cu``: one rank's local step of the
partitioned ``bfs``, ``connected_components`` and ``pagerank``
(``bitgraph.distributed.partitioned``) on the rank's rows of a
``DistMatrix`` (CuPy arrays: ``indptr`` int64, ``indices`` int32 or int64
with global column ids, the rank's first vertex ``lo`` a multiple of 32).
Bitmaps are uint32 words of the whole graph (bit i & 31 of word i >> 5,
``Vector``'s layout). Each call launches one kernel on the current stream
and never synchronises; the caller reads what it needs (BFS: the counts
once a level). Grids by the ``Cuda`` settings (``shape``); ``group``: the
lanes a row takes (a power of 2, 1..32).
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.registry import register

__all__ = ["bfs_frontier", "bfs_topdown", "bfs_bottomup", "bfs_update", "bfs_owner_counts",
           "bfs_pack", "bfs_mark", "cc_hook", "cc_hook_plan", "pagerank_pull", "pagerank_pull_plan"]

_SOURCE = "dist_traversal.cu"
_C = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_IDS = {np.dtype(np.uint32): "unsigned int", np.dtype(np.int64): "long long"}  # vertex ids sent
_NAMES = (("dt_frontier", "dt_update", "dt_owner_counts", "dt_pull_rows")
          + tuple(f"{k}<{v}>" for k in ("dt_topdown", "dt_topdown_heavy", "dt_bottomup",
                                         "dt_pull", "dt_pull_chunks")
                  for v in _C.values())
          + tuple(f"{k}<{v}>" for k in ("dt_pack", "dt_mark") for v in _IDS.values())
          + tuple(f"{k}<{v}, {lab}>" for k in ("dt_hook", "dt_hook_heavy") for v in _C.values()
                  for lab in _C.values()))
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)

_KERNELS = {}  # (device, name) -> kernel


def _fn(name):
    import cupy

    key = (cupy.cuda.runtime.getDevice(), name)
    got = _KERNELS.get(key)
    if got is None:
        mod, lowered = module(_SOURCE, _NAMES)
        got = _KERNELS[key] = mod.get_function(lowered[name])
    return got


def _c(a, where):
    try:
        return _C[np.dtype(a.dtype)]
    except KeyError:
        raise ValueError(f"{where}: indices must be int32 or int64, got {a.dtype}") from None


def _lo(lo, n_local):
    # a rank's bits are whole words of the global bitmap; a rank without rows
    # (its first vertex n, the last boundary) has none
    if lo % 32 and n_local:
        raise ValueError(f"dist_traversal: a rank's first vertex must be a multiple of 32,"
                         f" got {lo}")
    return np.int64(lo)


@register("bfs", fmt="csr", device="cuda", variant="dist_frontier")
def bfs_frontier(indptr, frontier, visited, lo, listing, counts, *, heavy=None, split=None,
                 cfg=None):
    """The rank's frontier rows (local ids) appended to ``listing``
    (uint32, at least n_local long) and ``counts`` (uint64[4], zeroed
    here) = [the frontier's out-edges, its size, the unvisited rows'
    out-edges, the heavy rows] over the rank's rows ``lo .. lo + n_local``;
    with ``heavy`` (uint32, as long as the rank's rows of more than
    ``split`` entries), those of the frontier rows also listed there."""
    n_local = indptr.shape[0] - 1
    counts.fill(0)
    light_max = np.int64(np.iinfo(np.int64).max if heavy is None else int(split))
    _fn("dt_frontier")(*shape(max(n_local, 1), cfg),
                       (indptr, frontier, visited, _lo(lo, n_local), np.int64(n_local), listing,
                        counts, light_max, listing if heavy is None else heavy))


@register("bfs", fmt="csr", device="cuda", variant="dist_topdown")
def bfs_topdown(indptr, indices, listing, counts, visited, nxt, *, rows, group, heavy=None,
                split=None, cfg=None):
    """Sets in ``nxt`` (global words, zeroed by the caller) the unvisited
    targets of the ``counts[1]`` rows of ``listing`` (``bfs_frontier``'s);
    ``rows``: a bound on that count for the grid (the global frontier).
    With ``heavy`` (``bfs_frontier``'s, ``counts[3]`` rows of more than
    ``split`` entries) those rows are walked one at a time by the whole
    grid, the others by ``group`` lanes each."""
    n_local = indptr.shape[0] - 1
    v = _c(indices, "bfs_topdown")
    light_max = np.int64(np.iinfo(np.int64).max if heavy is None else int(split))
    _fn(f"dt_topdown<{v}>")(*shape(max(1, min(int(rows), n_local)) * int(group), cfg),
                            (indptr, indices, listing, counts, visited, nxt, np.int32(group),
                             light_max))
    if heavy is not None:
        _fn(f"dt_topdown_heavy<{v}>")(*shape(1 << 40, cfg),  # every block the settings allow
                                      (indptr, indices, heavy, counts, visited, nxt))


@register("bfs", fmt="csr", device="cuda", variant="dist_bottomup")
def bfs_bottomup(indptr, indices, frontier, visited, lo, found, *, cfg=None):
    """``found`` (uint32, ceil(n_local / 32) words, every one written): the
    rank's unvisited rows with an in-edge (``indptr``/``indices``: the
    rank's rows of A') from the global ``frontier``."""
    n_local = indptr.shape[0] - 1
    if n_local == 0:
        return
    fn = _fn(f"dt_bottomup<{_c(indices, 'bfs_bottomup')}>")
    fn(*shape(n_local, cfg), (indptr, indices, frontier, visited, _lo(lo, n_local),
                              np.int64(n_local), found))


@register("bfs", fmt="csr", device="cuda", variant="dist_update")
def bfs_update(parts, nparts, visited, frontier, levels, lo, level, *, cfg=None):
    """``frontier`` = the OR of the ``nparts`` rows of ``parts`` (each as
    long as ``visited``) less ``visited``; ``visited`` |= it; the rank's
    rows in it get ``level`` in ``levels`` (int32[n_local])."""
    nwords = visited.shape[0]
    _fn("dt_update")(*shape(max(nwords, 1), cfg),
                     (parts, np.int32(nparts), np.int64(nwords), visited, frontier, levels,
                      _lo(lo, levels.shape[0]), np.int64(levels.shape[0]), np.int32(level)))


def _ids(a, where):
    try:
        return _IDS[np.dtype(a.dtype)]
    except KeyError:
        raise ValueError(f"{where}: ids must be uint32 or int64, got {a.dtype}") from None


def _owners(word_starts):
    if word_starts.dtype != np.int64 or word_starts.shape[0] < 2:
        raise ValueError(f"dist_traversal: word_starts must be int64 of size + 1 >= 2 entries,"
                         f" got {word_starts.dtype} of {word_starts.shape[0]}")
    return word_starts.shape[0] - 1


@register("bfs", fmt="csr", device="cuda", variant="dist_owner_counts")
def bfs_owner_counts(nxt, word_starts, counts, *, cfg=None):
    """``counts`` (uint64[size], zeroed here): the set bits of ``nxt``
    (global words) by owner, owner r holding words ``word_starts[r] ..
    word_starts[r + 1]`` (``word_starts``: int64[size + 1], non-decreasing,
    from 0 to ``nxt``'s length)."""
    owners = _owners(word_starts)
    nwords = nxt.shape[0]
    counts.fill(0)
    if nwords == 0:
        return
    grid, block = shape(nwords, cfg)
    _fn("dt_owner_counts")(grid, block, (nxt, np.int64(nwords), word_starts, np.int32(owners),
                                         counts), shared_mem=8 * owners)


@register("bfs", fmt="csr", device="cuda", variant="dist_pack")
def bfs_pack(nxt, word_starts, cursors, ids, *, cfg=None):
    """The ids of ``nxt``'s set bits written into ``ids`` (uint32 or
    int64), each owner's into its segment: ``cursors`` (uint64[size]) the
    segments' starts on entry (the exclusive prefix sums of
    ``bfs_owner_counts``), their ends on return; the order within a
    segment is not fixed."""
    owners = _owners(word_starts)
    nwords = nxt.shape[0]
    fn = _fn(f"dt_pack<{_ids(ids, 'bfs_pack')}>")
    if nwords == 0 or ids.shape[0] == 0:
        return
    fn(*shape(nwords, cfg), (nxt, np.int64(nwords), word_starts, np.int32(owners), cursors, ids))


@register("bfs", fmt="csr", device="cuda", variant="dist_mark")
def bfs_mark(ids, visited, lo, found, *, cfg=None):
    """Sets in ``found`` (the rank's words, zeroed by the caller) the bits
    of the received ``ids`` (uint32 or int64, every one in the rank's
    vertices ``lo ..``; repeats allowed) that are not set in the global
    ``visited``."""
    fn = _fn(f"dt_mark<{_ids(ids, 'bfs_mark')}>")
    count = ids.shape[0]
    if count == 0:
        return
    fn(*shape(count, cfg), (ids, np.int64(count), visited, _lo(lo, found.shape[0] * 32), found))


@register("cc", fmt="csr", device="cuda", variant="dist_hook")
def cc_hook(indptr, indices, lo, f, gf, fn, *, both, group, plan=None, cfg=None):
    """FastSV's hooks of the rank's entries (u = lo + row, v) into ``fn``
    (a copy of ``f``): ``fn[f[u]]``, ``fn[u]`` lowered to ``gf[v]``; with
    ``both`` also ``fn[f[v]]``, ``fn[v]`` to ``gf[u]`` (f, gf, fn: int32
    or int64, all alike). ``plan`` (``cc_hook_plan`` of these rows; None: no
    heavy rows): the rows of more than its split entries cut into chunks, a
    block a chunk, the others ``group`` lanes each."""
    n_local = indptr.shape[0] - 1
    if n_local == 0:
        return
    types = f"{_c(indices, 'cc_hook')}, {_c(f, 'cc_hook')}"
    light_max = np.int64(np.iinfo(np.int64).max)
    lo = _lo(lo, n_local)
    if plan is not None and plan[3]:
        rows, first, chunk_heavy, nheavy, nchunks, split, chunk = plan
        light_max = np.int64(split)
        _fn(f"dt_hook_heavy<{types}>")(*shape(nchunks * 256, cfg),
                                       (indptr, indices, lo, rows, first, chunk_heavy,
                                        np.int64(nchunks), np.int64(chunk), f, gf, fn,
                                        np.int32(bool(both))))
    _fn(f"dt_hook<{types}>")(*shape(n_local * int(group), cfg),
                             (indptr, indices, lo, np.int64(n_local), f, gf, fn,
                              np.int32(bool(both)), np.int32(group), light_max))


def _heavy_plan(indptr, split, chunk, where):
    """The rows of more than ``split`` entries cut into chunks of ``chunk``
    (``spmv_csr.heavy_chunks``): ``(heavy_rows, heavy_first, chunk_heavy,
    nheavy, nchunks, split, chunk)``. Two host reads."""
    import cupy

    from bitgraph.kernels.cuda.spmv_csr import heavy_chunks

    split, chunk = int(split), int(chunk)
    if split < 0 or chunk < 1:
        raise ValueError(f"{where}: settings.distributed.heavy_split = {split} must be"
                         f" >= 0 and heavy_chunk = {chunk} >= 1")
    lens = indptr[1:].astype(np.int64) - indptr[:-1].astype(np.int64)
    return (*heavy_chunks(cupy, lens, split, chunk), split, chunk)


@register("cc", fmt="csr", device="cuda", variant="dist_hook_plan")
def cc_hook_plan(indptr, *, split, chunk):
    """The heavy rows of the rank's rows for ``cc_hook``: rows of more than
    ``split`` entries cut into chunks of ``chunk``: ``(heavy_rows,
    heavy_first, chunk_heavy, nheavy, nchunks, split, chunk)``. Built once a
    call (two host reads)."""
    return _heavy_plan(indptr, split, chunk, "cc_hook_plan")


@register("pagerank", fmt="csr", device="cuda", variant="dist_pull_plan")
def pagerank_pull_plan(indptr, *, split, chunk):
    """The heavy rows of the rank's rows of A' for ``pagerank_pull``: rows of
    more than ``split`` entries cut into chunks of ``chunk`` (``spmv_csr.
    heavy_chunks``), with the chunks' sums' buffer: ``(heavy_rows,
    heavy_first, chunk_heavy, chunk_sums, nheavy, nchunks, split, chunk)``.
    Built once a call (two host reads)."""
    import cupy

    rows, first, chunk_heavy, nheavy, nchunks, split, chunk = _heavy_plan(
        indptr, split, chunk, "pagerank_pull_plan")
    return (rows, first, chunk_heavy, cupy.empty(max(nchunks, 1), np.float64), nheavy, nchunks,
            split, chunk)


@register("pagerank", fmt="csr", device="cuda", variant="dist_pull")
def pagerank_pull(indptr, indices, weights, y, acc, *, group, plan=None, cfg=None):
    """``acc[j]`` (float64[n_local]) = the sum of ``y[i]`` (times the
    entry's float64 weight, when ``weights`` is not None) over the entries
    (j, i) of the rank's rows of A'. ``plan`` (``pagerank_pull_plan`` of
    these rows; None: no heavy rows): the heavy rows summed chunk by chunk,
    a block a chunk, the others ``group`` lanes a row."""
    n_local = indptr.shape[0] - 1
    if n_local == 0:
        return
    v = _c(indices, "pagerank_pull")
    w = y if weights is None else weights
    weighted = np.int32(weights is not None)
    light_max = np.int64(np.iinfo(np.int64).max)
    if plan is not None and plan[4]:
        rows, first, chunk_heavy, sums, nheavy, nchunks, split, chunk = plan
        light_max = np.int64(split)
        _fn(f"dt_pull_chunks<{v}>")(*shape(nchunks * 256, cfg),
                                    (indptr, indices, w, weighted, y, rows, first, chunk_heavy,
                                     np.int64(nchunks), np.int64(chunk), sums))
        _fn("dt_pull_rows")(*shape(nheavy, cfg), (rows, first, np.int64(nheavy), sums, acc))
    _fn(f"dt_pull<{v}>")(*shape(n_local * int(group), cfg),
                         (indptr, indices, w, weighted, y, np.int64(n_local), acc,
                          np.int32(group), light_max))
