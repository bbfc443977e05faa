"""Launcher of ``bmv_b2sr.cu``: B2SR bit matrix-vector products on the GPU,
with the CPU launchers' signatures and results
(``kernels/cpu/bmv_b2sr.py``; CuPy arrays in and out).

Work split (see the ``.cu`` header): a group of ``lanes`` threads per tile
row, chosen from the mean tiles per tile row; tile rows longer than
``chunk`` tiles are cut into chunks ("extra" items) whose partial results
a fixup kernel folds. The list of chunks depends on the matrix only, so it
is built once per ``tile_rowptr`` array (one device sync) and cached while
that array lives (keyed by its identity: B2SR arrays are never modified in
place).
"""

from __future__ import annotations

import weakref

import numpy as np

from bitgraph.kernels._launch import check_bmv_vectors, semiring_args
from bitgraph.kernels.cuda import C_TYPES, c_type, module, multiprocessors, settings
from bitgraph.kernels.cuda.constants import BMV_B2SR, per_tile
from bitgraph.kernels import opcodes
from bitgraph.kernels.registry import register

__all__ = ["bmv_bin_bin_bin", "bmv_bin_bin_full", "bmv_bin_full_full", "group_lanes"]

SOURCE = "bmv_b2sr.cu"
TILE_SIZES = (4, 8, 16, 32)
# threads per block (the kernels' __launch_bounds__), and per t: lanes
# holding one tile (L), rows per lane (R), tiles per lane per step (U), as
# generated into the .cu (constants.BMV_B2SR). A group takes at most
# settings.cuda.bmv_steps steps on one item (longer tile rows are chunked);
# a launch has at most settings.cuda.bmv_blocks_per_sm blocks per
# multiprocessor (grid-stride loops do the rest).
_THREADS = BMV_B2SR["THREADS"]
_GEO = {t: (L, per_tile(BMV_B2SR, "GEO_R")[t], per_tile(BMV_B2SR, "GEO_U")[t])
        for t, L in per_tile(BMV_B2SR, "GEO_L").items()}

_BITS_NAMES = {
    kind: tuple(f"bmv_{kind}{suffix}<{t}>" for t in TILE_SIZES for suffix in ("", "_fixup"))
    for kind in ("bin_bin_bin", "bin_bin_full")
}



def _full_names(t, c, a, m):
    # the bin_full_full pair of one tile size, value type and (add, mult)
    # codes ((-1, -1): the generic kernel)
    return (f"bmv_bin_full_full<{t}, {c}, {a}, {m}>", f"bmv_bin_full_full_fixup<{t}, {c}>")


_PLANS: dict = {}  # (id(tile_rowptr), chunk) -> (weakref to tile_rowptr, plan)

# (add, mult) of bin_full_full compiled with the codes as template
# arguments (the op switches fold away: a few instructions a product, the
# PageRank / SSSP / components semirings); the others run the generic
# kernel, codes at run time. On a structure-only B2SR, TIMES(1, x) = x.
FAST_OPS = {(opcodes.PLUS, opcodes.TIMES), (opcodes.PLUS, opcodes.SECOND),
            (opcodes.MIN, opcodes.PLUS), (opcodes.MIN, opcodes.SECOND)}

# what module() is asked for and the wheel ships (precompile.py): the bits
# kernels, the generic bin_full_full per tile size and value type, and the
# FAST_OPS ones for the weight types of PageRank / SSSP / components
# (every pair of all 11 types: 280 kernels, a 20 MB fatbin and 6 minutes of
# nvcc; the others compile with NVRTC on first use)
_SHIPPED_FAST = ("float", "double", "int", "long long")
SPECS = tuple((SOURCE, names) for names in _BITS_NAMES.values()) + tuple(
    (SOURCE, _full_names(t, c, -1, -1)) for t in TILE_SIZES for c in C_TYPES.values()) + tuple(
    (SOURCE, _full_names(t, c, a, m)) for t in TILE_SIZES for c in _SHIPPED_FAST
    for a, m in sorted(FAST_OPS))

_FUNCS: dict = {}
_DUMMIES: dict = {}


def _function(cupy, names, name):
    key = (cupy.cuda.Device().id, name)
    fn = _FUNCS.get(key)
    if fn is None:
        mod, lowered = module(SOURCE, names)
        fn = _FUNCS[key] = mod.get_function(lowered[name])
    return fn


def _launch(fn, grid, args, smem=0):
    fn((grid,), (_THREADS,), args, shared_mem=smem)


def _dummy(cupy, dtype):
    """A 1-element array standing in for an absent one (cached per device:
    no allocation or memset per call)."""
    key = (cupy.cuda.Device().id, np.dtype(dtype))
    a = _DUMMIES.get(key)
    if a is None:
        a = _DUMMIES[key] = cupy.zeros(1, dtype)
    return a


def group_lanes(t: int, ntiles: int, nbrows: int) -> int:
    """Threads per tile row: about mean / (4 U) tile slots (lanes / L; for
    t = 16 mean / (32 U)), a power of two from 1 to 32 / L. Fewer slots
    that each take several steps beat one step each: a group's final
    combine costs about a few steps, and a tile row longer than
    ``settings.cuda.bmv_steps`` steps is cut into chunks that run in parallel anyway
    (measured on an H100 with kron/urand scale 20 and grid 2048^2)."""
    L, _, U = _GEO[t]
    want = ntiles / max(nbrows, 1) / ((32 if t == 16 else 4) * U)
    slots = 1
    while slots * 2 * L <= 32 and slots * 2 <= want * 1.5:
        slots *= 2
    return slots * L


def _plan(cupy, rowptr, chunk):
    """(nextra, ex_row, ex_first, nlong, long_rows, slot0) of the tile rows
    longer than ``chunk`` tiles (device int64 arrays), or None: chunk j of
    long tile row long_rows[i] is extra item slot0[i] + j, its tiles from
    ex_first[slot0[i] + j]."""
    key = (id(rowptr), chunk)
    hit = _PLANS.get(key)
    if hit is not None and hit[0]() is rowptr:
        return hit[1]
    lens = rowptr[1:] - rowptr[:-1]
    long_rows = cupy.flatnonzero(lens > chunk)
    if long_rows.size == 0:
        plan = None
    else:
        lr = long_rows.get().astype(np.int64)
        ln = lens[long_rows].get().astype(np.int64)
        st = rowptr[long_rows].get().astype(np.int64)
        nch = (ln + chunk - 1) // chunk
        slot0 = np.zeros(lr.size + 1, np.int64)
        np.cumsum(nch, out=slot0[1:])
        nextra = int(slot0[-1])
        ex_row = np.repeat(lr, nch)
        ex_first = np.repeat(st, nch) + (np.arange(nextra) - np.repeat(slot0[:-1], nch)) * chunk
        plan = (nextra, cupy.asarray(ex_row), cupy.asarray(ex_first), int(lr.size),
                cupy.asarray(lr), cupy.asarray(slot0))
    try:
        ref = weakref.ref(rowptr)
    except TypeError:
        return plan
    _PLANS[key] = (ref, plan)
    weakref.finalize(rowptr, _PLANS.pop, key, None)
    return plan


def _setup(where, B, lanes):
    """Common launch arguments: (cupy, rowptr, colind, tiles, idx64, nbrows,
    S, chunk, plan args, blocks per multiprocessor), by the Cuda settings in
    force."""
    import cupy

    cfg = settings()
    t = B.t
    if t not in _GEO:
        raise ValueError(f"{where}: tile size t={t!r} must be one of {TILE_SIZES}")
    idx64 = max(B.tile_rowptr.dtype.itemsize, B.tile_colind.dtype.itemsize) > 4
    idx = np.dtype(np.int64 if idx64 else np.int32)
    rowptr = cupy.ascontiguousarray(B.tile_rowptr, dtype=idx)
    colind = cupy.ascontiguousarray(B.tile_colind, dtype=idx)
    tiles = cupy.ascontiguousarray(B.tiles)
    nbrows = rowptr.size - 1
    L, _, U = _GEO[t]
    S = group_lanes(t, colind.size, nbrows) if lanes is None else int(lanes)
    if S < L or S > 32 or S & (S - 1):
        raise ValueError(f"{where}: lanes={S} must be a power of two from {L} to 32 for t={t}")
    chunk = (S // L) * U * max(1, int(cfg.bmv_steps))
    plan = _plan(cupy, rowptr, chunk) if nbrows else None
    if plan is None:
        none = _dummy(cupy, np.int64)
        plan = (0, none, none, 0, none, none)
    return cupy, rowptr, colind, tiles, idx64, nbrows, S, chunk, plan, int(cfg.bmv_blocks_per_sm)


def _grid(ngroups, S, per_sm):
    per_block = _THREADS // S
    return max(1, min(-(-ngroups // per_block), multiprocessors() * per_sm))


def _fixup_grid(nlong, per_sm):
    return max(1, min(-(-nlong // (_THREADS // 32)), multiprocessors() * per_sm))


def _bitmap(cupy, words):
    return (cupy.ascontiguousarray(words, dtype=np.uint32), True) if words is not None \
        else (_dummy(cupy, np.uint32), False)


@register("mxv", fmt="b2sr", device="cuda", variant="bin_bin_bin")
def bmv_bin_bin_bin(B, x_present, x_true, allowed, *, lanes=None):
    """(t_true, t_present) bool[nrows] on the GPU: row r is present when it
    has a bit in common with ``x_present`` and true when it has one with
    ``x_present & x_true`` (``x_true`` None: the same as ``x_present``);
    ``allowed``: packed row bitmap or None (rows not allowed: False). As
    ``kernels.cpu.bmv_b2sr.bmv_bin_bin_bin``, equal results; a group stops
    once all its allowed rows are true (LOR's terminal). ``lanes``: threads
    per tile row (default ``group_lanes``)."""
    where = "mxv(bin_bin_bin, cuda)"
    check_bmv_vectors(where, B, x_present, allowed, x_true)
    cupy, rowptr, colind, tiles, idx64, nbrows, S, chunk, plan, per_sm = _setup(where, B, lanes)
    nextra, ex_row, ex_first, nlong, long_rows, slot0 = plan
    xp = cupy.ascontiguousarray(x_present, dtype=np.uint32)
    same = x_true is None
    xt = xp if same else cupy.ascontiguousarray(x_true, dtype=np.uint32)
    allowed, has_allowed = _bitmap(cupy, allowed)
    t_true = cupy.empty(B.nrows, np.bool_)
    t_present = cupy.empty(B.nrows, np.bool_)
    if nbrows:
        names = _BITS_NAMES["bin_bin_bin"]
        scratch = cupy.empty(max(2 * nextra, 1), np.uint32)
        _launch(_function(cupy, names, f"bmv_bin_bin_bin<{B.t}>"), _grid(nbrows + nextra, S, per_sm),
                (rowptr, colind, np.bool_(idx64), tiles, np.int64(nbrows), np.int64(B.nrows), xp,
                 xt, np.bool_(same), allowed, np.bool_(has_allowed), np.int32(S),
                 np.int64(chunk), ex_row, ex_first, np.int64(nextra), scratch, t_true,
                 t_present))
        if nlong:
            _launch(_function(cupy, names, f"bmv_bin_bin_bin_fixup<{B.t}>"), _fixup_grid(nlong, per_sm),
                    (long_rows, slot0, np.int64(nlong), np.int64(B.nrows), scratch, t_true,
                     t_present))
    return t_true, t_present


@register("mxv", fmt="b2sr", device="cuda", variant="bin_bin_full")
def bmv_bin_bin_full(B, x_present, allowed, *, lanes=None):
    """counts uint64[nrows] on the GPU: the number of columns row r shares
    with the packed bitmap ``x_present`` (0 for rows not allowed); as
    ``kernels.cpu.bmv_b2sr.bmv_bin_bin_full``, equal results."""
    where = "mxv(bin_bin_full, cuda)"
    check_bmv_vectors(where, B, x_present, allowed)
    cupy, rowptr, colind, tiles, idx64, nbrows, S, chunk, plan, per_sm = _setup(where, B, lanes)
    nextra, ex_row, ex_first, nlong, long_rows, slot0 = plan
    xp = cupy.ascontiguousarray(x_present, dtype=np.uint32)
    allowed, has_allowed = _bitmap(cupy, allowed)
    counts = cupy.empty(B.nrows, np.uint64)
    if nbrows:
        names = _BITS_NAMES["bin_bin_full"]
        scratch = cupy.empty(max(B.t * nextra, 1), np.uint32)
        _launch(_function(cupy, names, f"bmv_bin_bin_full<{B.t}>"), _grid(nbrows + nextra, S, per_sm),
                (rowptr, colind, np.bool_(idx64), tiles, np.int64(nbrows), np.int64(B.nrows),
                 xp, allowed, np.bool_(has_allowed), np.int32(S), np.int64(chunk), ex_row,
                 ex_first, np.int64(nextra), scratch, counts))
        if nlong:
            _launch(_function(cupy, names, f"bmv_bin_bin_full_fixup<{B.t}>"), _fixup_grid(nlong, per_sm),
                    (long_rows, slot0, np.int64(nlong), np.int64(B.nrows), scratch, counts))
    return counts


@register("mxv", fmt="b2sr", device="cuda", variant="bin_full_full")
def bmv_bin_full_full(B, x_values, x_present, allowed, sr, flipped=False, *, lanes=None):
    """(t_values T[nrows], t_present bool[nrows]) = B (+).(x) x on the GPU
    for any semiring ``sr`` (op codes at run time), every stored entry of B
    being 1 of T; arguments and results as
    ``kernels.cpu.bmv_b2sr.bmv_bin_full_full``. The lanes of a tile row
    fold their products separately and then together, so float PLUS/TIMES
    sums may differ from the CPU's in the last bits (another order); ANY
    returns a valid witness, not necessarily the CPU's (the lowest column);
    every other monoid gives the CPU's result exactly. Each kernel
    instantiation (t, T, and the op codes for ``FAST_OPS``) is compiled on
    first use."""
    where = "mxv(bin_full_full, cuda)"
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr, flipped)
    check_bmv_vectors(where, B, x_present, allowed, x_values=x_values)
    cupy, rowptr, colind, tiles, idx64, nbrows, S, chunk, plan, per_sm = _setup(where, B, lanes)
    nextra, ex_row, ex_first, nlong, long_rows, slot0 = plan
    x_values = cupy.ascontiguousarray(x_values, dtype=dtype)
    xp = cupy.ascontiguousarray(x_present, dtype=np.uint32)
    allowed, has_allowed = _bitmap(cupy, allowed)
    t_values = cupy.empty(B.nrows, dtype)
    t_present = cupy.empty(B.nrows, np.bool_)
    if nbrows:
        c = c_type(dtype)
        t = B.t
        a, m = (add, mult) if (add, mult) in FAST_OPS else (-1, -1)
        names = _full_names(t, c, a, m)
        scr_values = cupy.empty(max(t * nextra, 1), dtype)
        scr_found = cupy.empty(max(nextra, 1), np.uint32)
        smem = _THREADS * _GEO[t][1] * (dtype.itemsize + 1)
        _launch(_function(cupy, names, names[0]), _grid(nbrows + nextra, S, per_sm),
                (rowptr, colind, np.bool_(idx64), tiles, np.int64(nbrows), np.int64(B.nrows),
                 x_values, xp, allowed, np.bool_(has_allowed), np.int32(add), np.int32(mult),
                 dtype.type(identity), np.bool_(has_term), dtype.type(terminal), np.int32(S),
                 np.int64(chunk), ex_row, ex_first, np.int64(nextra), scr_values, scr_found,
                 t_values, t_present), smem)
        if nlong:  # a block per long tile row
            _launch(_function(cupy, names, names[1]), max(1, min(nlong, multiprocessors() * per_sm)),
                    (long_rows, slot0, np.int64(nlong), np.int64(B.nrows), np.int32(add),
                     dtype.type(identity), scr_values, scr_found, t_values, t_present),
                    _THREADS * (dtype.itemsize + 1))
    return t_values, t_present

