"""Launcher of ``spmv_csr.cu``: mxv pull on the GPU, with the CPU
launcher's signature and results (``kernels/cpu/spmv_csr.py``).

The plan (``pull_plan``: the heavy rows cut into chunks, a block each; the
medium rows a warp each; the lanes of the light rows) takes a few host
reads; ``plan.matvec`` keeps it with the matrix (slot ``spmv_cuda_plan``),
so a repeated product reads nothing back."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels import opcodes as oc
from bitgraph.kernels._launch import check_length, semiring_args
from bitgraph.kernels.cuda import C_TYPES, module, shape
from bitgraph.kernels.registry import register

__all__ = ["spmv_pull"]

_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
# semirings compiled with their op codes fixed (the inner loop's switch
# folds away): the BFS, SSSP and PageRank/SpMV products. Others run the
# generic kernel (-1, -1) with the codes as arguments.
FAST = {
    (oc.PLUS, oc.TIMES): ("float", "double"),
    (oc.MIN, oc.PLUS): ("float", "double", "int", "long long"),
    (oc.LOR, oc.LAND): ("bool",),
    (oc.ANY, oc.PAIR): ("bool",),
    (oc.ANY, oc.SECONDI): ("long long",),
}


def _name(t, i, add, mult):
    return f"spmv_pull<{t}, {i}, {add}, {mult}>"


_NAMES = tuple(_name(t, i, -1, -1) for t in C_TYPES.values() for i in _INDEX.values()) + tuple(
    _name(t, i, a, m) for (a, m), ts in FAST.items() for t in ts for i in _INDEX.values()) + tuple(
    f"spmv_heavy_finish<{t}>" for t in C_TYPES.values())
SPECS = (("spmv_csr.cu", _NAMES),)  # what module() is asked for (precompile.py)


def _dummy(cupy, dtype):
    return cupy.zeros(1, dtype)


def group_size(nrows: int, nnz: int) -> int:
    """Lanes per row: the power of 2 at or above the mean row length, 1..32
    (a lane per entry of a mean row; longer rows loop)."""
    mean = nnz / max(nrows, 1)
    g = 1
    while g < 32 and g < mean:
        g *= 2
    return g


def heavy_chunks(cupy, lens, split, chunk):
    """The rows of more than ``split`` entries (``lens``: int64 row lengths,
    CuPy) cut into chunks of ``chunk`` entries, the last shorter:
    ``(heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks)``, int64 CuPy
    arrays (one-element dummies for none): row h's chunks are
    heavy_first[h] .. heavy_first[h + 1] - 1, chunk c's row heavy_rows[
    chunk_heavy[c]]. Two host reads (the counts)."""
    heavy_rows = cupy.ascontiguousarray(cupy.flatnonzero(lens > split), dtype=np.int64)
    nheavy = int(heavy_rows.shape[0])
    counts = (lens[heavy_rows] + (chunk - 1)) // chunk  # >= 1: a heavy row has > split >= 0
    heavy_first = cupy.zeros(nheavy + 1, np.int64)
    heavy_first[1:] = cupy.cumsum(counts)
    nchunks = int(heavy_first[nheavy])  # synchronize!
    # chunk c's heavy row: the count of row starts at or before c, less one
    marks = cupy.zeros(max(nchunks, 1), np.int64)
    if nheavy > 1:
        marks[heavy_first[1:nheavy]] = 1
    chunk_heavy = cupy.ascontiguousarray(cupy.cumsum(marks), dtype=np.int64)
    if nheavy == 0:
        heavy_rows = cupy.zeros(1, np.int64)
    return heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks


def median_lanes(cupy, lens, rows, wide_median=0):
    """Lanes per light row: the power of 2 at or above a quarter of their
    median length ``lens`` (``rows`` of them), 1..32: each lane then
    issues the kernel's four gathers at once; a half where that median is
    at least ``wide_median`` (0: never; PageRank's float64 ranks). A lane per entry (a warp per
    32 entries) waits on one gather at a time: grid-2048 (4 entries a row)
    took 0.249 ms an iteration with 4 lanes a row, 0.114 with 1; urand-22
    (32 a row) 1.82 ms with 32, 1.39 with 8. The median, not the mean: the
    relabelled kron-22's light rows (median 5) took 0.92-0.93 ms with 1 or
    2 lanes, 0.96 with the mean's 4 (H200; cuSPARSE's float64 SpMV: 0.161,
    1.34 and 1.11). One host read (the median), once per plan."""
    if rows == 0:
        return 1
    median = int(cupy.sort(lens)[rows // 2])  # synchronize! (once per plan)
    per_lane = 2 if 0 < wide_median <= median else 4
    return group_size(1, -(-median // per_lane))


def row_classes(cupy, lens, *, split, chunk, warp_above, lanes=0, wide_median=0):
    """The rows (``lens``: int64 row lengths, CuPy) in three classes: heavy
    (more than ``split`` entries: ``heavy_chunks``), medium (more than
    ``warp_above``, at most ``split``: a warp each, listed) and light (a
    group of ``lanes`` each; 0: ``median_lanes`` of their lengths, with
    ``wide_median``). With no
    medium class (``warp_above >= split``, or the light rows' group is a
    warp already) every row of at most ``split`` entries is light. Returns
    ``(heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, medium_rows,
    nmedium, light_max, group)``: light rows have at most ``light_max``
    entries; ``medium_rows`` int64 CuPy (a one-element dummy for none). A
    few host reads (the counts, the median), once per plan."""
    n = int(lens.shape[0])
    heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks = heavy_chunks(cupy, lens, split, chunk)
    short = lens <= min(warp_above, split)
    nshort = int(cupy.sum(short, dtype=np.int64))  # synchronize! (once per plan)
    group = int(lanes) or median_lanes(cupy, lens[short], nshort, wide_median)
    medium_rows, nmedium, light_max = None, 0, split
    if warp_above < split and group < 32:
        medium_rows = cupy.ascontiguousarray(cupy.flatnonzero(~short & (lens <= split)),
                                             dtype=np.int64)
        nmedium = int(medium_rows.shape[0])
        light_max = warp_above
    elif not lanes:
        group = median_lanes(cupy, lens[lens <= split], n - nheavy, wide_median)
    if nmedium == 0:
        medium_rows = cupy.zeros(1, np.int64)
    return (heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, medium_rows, nmedium,
            light_max, group)


def pull_plan(indptr, *, split, chunk, warp_above=None, lanes=0):
    """The kernel's split of the rows of a CSR (``indptr`` CuPy) by
    ``row_classes``: rows of more than ``split`` entries cut into chunks of
    ``chunk``, rows of more than ``warp_above`` (None: ``split``, no such
    class) a warp each, the others ``lanes`` lanes each (0:
    ``median_lanes``). Returns ``(heavy_rows, heavy_first, chunk_heavy,
    nheavy, nchunks, chunk, medium_rows, nmedium, light_max, group)``. A few
    host reads, once per matrix and settings.

    >>> pull_plan(cupy.asarray([0, 2, 2, 9]), split=4, chunk=3)[3:6]  # doctest: +SKIP
    (1, 3, 3)
    """
    import cupy

    split, chunk, lanes = int(split), int(chunk), int(lanes)
    warp_above = split if warp_above is None else int(warp_above)
    if split < 0 or chunk < 1 or warp_above < 0:
        raise ValueError(f"mxv(pull, cuda): settings.cuda.spmv_split_above = {split} and"
                         f" spmv_warp_above = {warp_above} must be >= 0 and spmv_chunk ="
                         f" {chunk} >= 1")
    if lanes not in (0, 1, 2, 4, 8, 16, 32):
        raise ValueError(f"mxv(pull, cuda): lanes={lanes!r} must be 0 or a power of 2 up to 32")
    lens = indptr[1:].astype(np.int64) - indptr[:-1].astype(np.int64)
    (heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, medium_rows, nmedium, light_max,
     group) = row_classes(cupy, lens, split=split, chunk=chunk, warp_above=warp_above,
                          lanes=lanes)
    return (heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, chunk, medium_rows, nmedium,
            light_max, group)


@register("mxv", fmt="csr", device="cuda", variant="pull")
def spmv_pull(A, x_values, x_bitmap, allowed, sr, flipped=False, *, lanes=None, plan=None,
              x_full=False):
    """t = A (+).(x) x on the GPU; arguments and results as
    ``kernels.cpu.spmv_csr.spmv_pull`` (CuPy arrays). ``plan``: ``pull_plan``
    of A's row pointers (None: made now, by the ``Cuda`` settings in force);
    ``lanes``: lanes per light row, overriding the plan's (a power of 2 up to
    32); ``x_full``: every entry of x is present (the bitmap is not read).
    Float sums may differ from the CPU's in the last bits (the lanes add in
    another order); ANY returns a valid witness, not necessarily the CPU's.

    >>> t, present = spmv_pull(A, x, bitmap, None, sr)  # doctest: +SKIP
    """
    import cupy

    from bitgraph.kernels.cuda import settings as cuda_settings

    where = "mxv(pull, cuda)"
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr, flipped)
    idx = np.dtype(np.int64) if max(A.indptr.dtype.itemsize, A.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(A.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(A.indices, dtype=idx)
    iso = A.values is None
    values = _dummy(cupy, dtype) if iso else cupy.ascontiguousarray(A.values, dtype=dtype)
    x_values = cupy.ascontiguousarray(x_values, dtype=dtype)
    x_bitmap = cupy.ascontiguousarray(x_bitmap, dtype=np.uint32)
    has_allowed = allowed is not None
    allowed = cupy.ascontiguousarray(allowed, dtype=np.uint32) if has_allowed \
        else _dummy(cupy, np.uint32)
    check_length(where, "x_values", x_values, A.ncols)
    check_length(where, "x_bitmap", x_bitmap, (A.ncols + 31) // 32, "uint32 words")
    if has_allowed:
        check_length(where, "allowed", allowed, (A.nrows + 31) // 32, "uint32 words")
    if lanes is not None and int(lanes) not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: lanes={lanes!r} must be a power of 2 up to 32")
    t_values = cupy.empty(A.nrows, dtype)
    t_present = cupy.empty(A.nrows, np.bool_)
    if not A.nrows:
        return t_values, t_present
    if plan is None:
        cfg = cuda_settings()
        plan = pull_plan(indptr, split=cfg.spmv_split_above, chunk=cfg.spmv_chunk,
                         warp_above=cfg.spmv_warp_above)
    (heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, chunk, medium_rows, nmedium,
     light_max, group) = plan
    group = group if lanes is None else int(lanes)
    mod, lowered = module("spmv_csr.cu", _NAMES)
    t = C_TYPES[dtype]
    fast = t in FAST.get((add, mult), ())
    name = _name(t, _INDEX[idx], add, mult) if fast else _name(t, _INDEX[idx], -1, -1)
    chunk_vals = cupy.empty(max(nchunks, 1), dtype)
    chunk_found = cupy.empty(max(nchunks, 1), np.bool_)
    (blocks,), (threads,) = shape(A.nrows * group)
    blocks = max(blocks, min(nchunks, 65535))
    mod.get_function(lowered[name])(
        (blocks,), (threads,),
        (indptr, indices, values, np.bool_(iso), x_values, x_bitmap, np.bool_(x_full), allowed,
         np.bool_(has_allowed), np.int32(add), np.int32(mult), dtype.type(identity),
         np.bool_(has_term), dtype.type(terminal), t_values, t_present,
         np.int64(A.nrows), np.int32(group), np.int64(light_max), heavy_rows, heavy_first,
         chunk_heavy, np.int64(nchunks), np.int64(chunk), chunk_vals, chunk_found,
         medium_rows, np.int64(nmedium)))
    if nheavy:
        mod.get_function(lowered[f"spmv_heavy_finish<{t}>"])(
            *shape(nheavy), (heavy_rows, heavy_first, np.int64(nheavy), chunk_vals, chunk_found,
                             np.int32(add), dtype.type(identity), t_values, t_present))
    return t_values, t_present
