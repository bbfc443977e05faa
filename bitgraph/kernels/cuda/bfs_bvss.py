"""Launcher of ``bfs_bvss.cu``: BFS in one persistent, cooperative kernel,
either Blest's on BVSS (tensor-core top-down levels, eager or lazy update)
or BFS-4K's top-down over CSR (push; with XBFS's bottom-up levels over the
CSR of A': direction), with the same bottom-up and single-block levels;
and BFS parents from levels.
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import cooperative_blocks, module
from bitgraph.kernels.registry import register

__all__ = ["bfs_bvss", "bfs_csr", "parents_from_levels", "CSR_SCAN_MIN", "STATS", "GATED",
           "FORCE", "THREADS", "BLOCKS_PER_SM",
           "LAZY_UDIV", "LAZY_MIN_QUEUE", "SB_EDGES", "SB_FRONTIER"]

_SOURCE = "bfs_bvss.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple([f"bfs_bvss<{m}, {i}>" for m in ("true", "false") for i in _INDEX.values()]
               + [f"parents_from_levels<{i}>" for i in _INDEX.values()])

# threads per block of the persistent kernel (its __launch_bounds__), and
# blocks per multiprocessor at most (fewer when the occupancy is lower):
# every block arrives at each level's barrier, so more blocks cost more
# per level (on the H100: 264 blocks of 512 threads on one counter cost
# ~5 us a level; 132 of 1024 and the single-block levels: see RESULTS.md).
THREADS = 1024
BLOCKS_PER_SM = 1

# Blest's rule: the lazy update when the BVSS's update divergence exceeds
# LAZY_UDIV (and the graph is social-like; the caller decides), and then
# only on levels whose queue holds at least LAZY_MIN_QUEUE * n_vss VSSs:
# the lazy sweep reads all n / 32 words, which a small level cannot repay.
LAZY_UDIV = 25_000
LAZY_MIN_QUEUE = 1 / 64

# XBFS's choice between scan-free (claim and enqueue each vertex) and
# single-scan (mark, then one sweep of the n / 32 words builds the
# frontier) top-down levels of the CSR kernel: single-scan when the level
# scans at least CSR_SCAN_MIN * n out-edges (a proxy for the frontier's
# growth: the sweep pays off when many vertices will be found; inf: never).
CSR_SCAN_MIN = 1 / 8

# Single-block levels (BFS-4K's switch): a level whose frontier has at most
# SB_FRONTIER vertices (the .cu's limit) and at most SB_EDGES out-edges runs
# in block 0 alone, top-down over A's CSR, with block barriers only.
SB_FRONTIER = 4096
SB_EDGES = 2048
_LIST_CAP = 65536  # LIST_CAP of the .cu: SB_EDGES may not exceed it
_GIANT = 8192  # GIANT of the .cu: a CSR queue entry per GIANT out-edges of a hub

TRACE_CAP = 1 << 16  # levels whose mode and counts are recorded

# Benchmarks and tests: STATS set to a dict receives, per call, "kernel"
# ("bvss" or "csr"), "levels", "modes" (per level "eager" / "lazy" /
# "bottom_up" / "single"), "queue" (VSSs, or vertices, per level),
# "frontier" (vertices per level), "checked" (in-edges scanned by bottom-up
# levels), "level_ms", "blocks", "kernel_ms" (CUDA events around the
# launch, with the host's launch overhead gated out: ``timing.gated_ms``),
# "span_ms" (the kernel's own entry to exit, its globaltimer), "init_ms"
# (entry to level 0: scratch initialised) and, for the BVSS kernel,
# "vss_visited" and "bytes" (an estimate of the bytes the levels read: BVSS
# of the queued VSSs, bitmaps and CSR of bottom-up levels).
STATS = None
# the STATS path's timing: True gates the host's launch overhead out
# (``timing.gated_ms``); False: plain events around the launch from Python,
# as the sessions before 2026-11-25 measured (host work included)
GATED = True
# Tests force the kernel's choices: "update" "eager" / "lazy" / None (the
# caller's), "bottom_up" True / False / "always" / None (by alpha), "mma"
# True / False / None (True: tensor cores), "single" True / False / None
# (single-block levels when small; False: never).
FORCE = {"update": None, "bottom_up": None, "mma": None, "single": None}

_MODES = ("eager", "lazy", "bottom_up", "single")


def _fn(name):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[name])


@register("bfs", fmt="bvss", device="cuda", variant="fused")
def bfs_bvss(b, in_csr, out_csr, outdeg, source, *, alpha_m, lazy=False, bottom_up=True,
             mma=True, single=True, visited=False, dead=None, bu_keep=-1):
    """BFS levels from ``source`` on BVSS ``b`` (of A', sigma 8, CuPy
    arrays), in b's vertex order: int32 CuPy array, -1 where unreached.

    in_csr: the CSR of A' in the same order (bottom-up levels); out_csr:
    A's (single-block levels; the same object for a symmetric A); outdeg:
    int32 out-degree of every vertex (the direction rule); alpha_m: a level
    runs bottom-up when its frontier's out-degree sum exceeds this (an
    integer: ``alpha * m``); lazy: the lazy update (Blest Alg. 3) on levels
    with a large queue; bottom_up: False never leaves top-down; mma: tensor
    cores (False: the SIMT twin, same result); single: small levels in one
    block. ``FORCE`` overrides the last four. visited: also return the
    reached vertices as bits (uint32 words, a copy of the kernel's bitmap).
    dead (or None): uint32 words with the bits of the vertices that have no
    in-edges (bottom-up levels skip them); bu_keep: after a bottom-up level
    the next stays bottom-up while its frontier has more than bu_keep
    vertices (Beamer's beta rule; -1 off).
    """
    if b.sigma != 8:
        raise ValueError(f"bfs_bvss: the kernel reads sigma = 8 slices, got sigma = {b.sigma}")
    n = b.nrows
    if b.ncols != n or in_csr.nrows != n:
        raise ValueError(f"bfs_bvss: a square BVSS and CSR of the same n expected, got"
                         f" {b.nrows}x{b.ncols} and {in_csr.nrows} rows")
    lazy_min = max(1, int(LAZY_MIN_QUEUE * b.n_vss)) if lazy else -1
    return _launch("bfs_bvss", b, in_csr, out_csr, outdeg, source, alpha_m=alpha_m,
                   lazy_min=lazy_min, bottom_up=bottom_up, mma=mma, single=single,
                   want_visited=visited, dead=dead, bu_keep=bu_keep)


@register("bfs", fmt="csr", device="cuda", variant="fused")
def bfs_csr(in_csr, out_csr, outdeg, source, *, alpha_m, bottom_up=True, single=True,
            visited=False, dead=None, bu_keep=-1):
    """BFS levels from ``source`` over CSRs (CuPy arrays) in the same
    persistent kernel, with BFS-4K's top-down levels instead of the BVSS:
    ``bottom_up=False`` is the push method (top-down only), True XBFS's
    direction method (bottom-up levels over ``in_csr`` when the frontier's
    out-degree sum exceeds ``alpha_m``). A top-down level is scan-free (claim
    and enqueue) or single-scan (mark, then one sweep) when it scans at
    least ``CSR_SCAN_MIN * n`` edges. int32 CuPy levels, -1 unreached
    (and the reached vertices' bits when ``visited``; ``dead`` and
    ``bu_keep`` as ``bfs_bvss``). ``FORCE`` overrides ``update``,
    ``bottom_up`` and ``single``.
    """
    n = out_csr.nrows
    if out_csr.ncols != n or in_csr.nrows != n:
        raise ValueError(f"bfs_csr: square CSRs of the same n expected, got"
                         f" {out_csr.nrows}x{out_csr.ncols} and {in_csr.nrows} rows")
    lazy_min = -1 if CSR_SCAN_MIN == float("inf") else max(1, int(CSR_SCAN_MIN * n))
    return _launch("bfs_csr", None, in_csr, out_csr, outdeg, source, alpha_m=alpha_m,
                   lazy_min=lazy_min, bottom_up=bottom_up, mma=False, single=single,
                   want_visited=visited, dead=dead, bu_keep=bu_keep)


def _smem(index):
    """Dynamic shared memory of the kernel: the single-block levels' two
    sides (the .cu's sb_side); bottom-up levels reuse it for their lists
    (32 KiB, the .cu's bottom_up_level)."""
    side = (SB_FRONTIER * index.itemsize + 4 * (SB_FRONTIER + 1) + 15) & ~15
    return 2 * side


def _launch(where, b, in_csr, out_csr, outdeg, source, *, alpha_m, lazy_min, bottom_up, mma,
            single, want_visited, dead, bu_keep):
    import cupy

    from bitgraph.device import oom_guard

    n = out_csr.nrows
    if not 0 <= source < n:
        raise IndexError(f"{where}: source {source} out of range [0, {n})")
    if outdeg.dtype != np.int32:
        raise ValueError(f"{where}: outdeg must be int32, got {outdeg.dtype}")
    csr = b is None
    if FORCE["update"] is not None:
        lazy_min = (lazy_min if lazy_min > 0 else 1) if FORCE["update"] == "lazy" else -1
    if FORCE["bottom_up"] is not None:
        bottom_up = FORCE["bottom_up"]
    if FORCE["mma"] is not None and not csr:
        mma = FORCE["mma"]
    if FORCE["single"] is not None:
        single = FORCE["single"]
    nwords = (n + 31) // 32
    if dead is not None and (dead.dtype != np.uint32 or dead.shape != (nwords,)):
        raise ValueError(f"{where}: dead must be {nwords} uint32 words, got {dead.dtype}"
                         f" {dead.shape}")
    if csr:
        # queue entries: (vertex, out-degree), a hub's GIANT-edge chunks
        nblocks, qcap = 0, n + out_csr.indices.shape[0] // _GIANT + 1
        real_ptrs = rows4 = masks = _dummy()
    else:
        nblocks, qcap = b.real_ptrs.shape[0] - 1, max(b.n_vss, 1)
        real_ptrs = b.real_ptrs
        rows4 = b.row_ids.reshape(-1) if b.row_ids.size else _dummy()
        masks = b.masks if b.masks.size else _dummy()
    index = np.dtype(np.int64) if any(a.dtype.itemsize > 4 for a in (
        in_csr.indptr, in_csr.indices, out_csr.indptr, out_csr.indices)) else np.dtype(np.int32)
    fn = _fn(f"bfs_bvss<{'true' if mma else 'false'}, {_INDEX[index]}>")
    smem = _smem(index)
    blocks = cooperative_blocks(fn, THREADS, BLOCKS_PER_SM, smem)
    with oom_guard(where, 4 * n + 16 * nwords + 24 * qcap):
        levels = cupy.empty(n, cupy.int32)
        visited, front, queue, ctrl, bar, trace, lists = _workspace(nwords, qcap)
    csrs = tuple(a.astype(index, copy=False) for a in (
        in_csr.indptr, in_csr.indices, out_csr.indptr, out_csr.indices))
    args = (real_ptrs, rows4, masks, *csrs, outdeg,
            levels, visited, front, queue, ctrl, bar, trace, lists,
            np.int64(n), np.int64(nblocks), np.int64(qcap), np.int64(source),
            np.uint64(min(int(alpha_m), 2**64 - 1)),
            np.int32(2 if bottom_up == "always" else (1 if bottom_up else 0)),
            np.int64(lazy_min), np.int64(min(SB_EDGES, _LIST_CAP) if single else -1),
            np.int64(TRACE_CAP), np.int32(csr), dead if dead is not None else np.uintp(0),
            np.int64(bu_keep))

    def launch():
        fn((blocks,), (THREADS,), args, shared_mem=smem, enable_cooperative_groups=True)

    stats = STATS
    if stats is None:
        launch()
    elif GATED:
        from bitgraph.kernels.cuda.timing import gated_ms

        _record(stats, trace, b, in_csr, n, blocks, gated_ms(launch))
    else:
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        _record(stats, trace, b, in_csr, n, blocks, cupy.cuda.get_elapsed_time(start, stop))
    return (levels, visited.copy()) if want_visited else levels


def _dummy():
    import cupy

    return cupy.zeros(4, cupy.uint32)


_WORK = {}


def _workspace(nwords, qcap):
    """The kernel's scratch (it initialises it itself), kept between calls
    of the same sizes on the same device and stream: a BFS then costs one
    allocation (the levels it returns) and one launch."""
    import cupy

    key = (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr, nwords, qcap)
    work = _WORK.get(key)
    if work is None:
        _WORK.clear()  # one graph's scratch at a time
        work = _WORK[key] = (cupy.empty(nwords, cupy.uint32), cupy.empty(3 * nwords, cupy.uint32),
                             cupy.empty((3 * qcap, 2), cupy.int32),  # (VSS, block) or (v, degree)
                             cupy.empty(22 * 16, cupy.uint64),  # counters, a 128-byte line each
                             cupy.zeros(2, cupy.uint32),  # barrier: arrivals, generation
                             cupy.empty(8 * TRACE_CAP, cupy.int64),
                             cupy.empty(2 * _LIST_CAP, cupy.uint32))  # single-block lists
    return work


def _record(stats, trace, b, in_csr, n, blocks, ms):
    t = trace.reshape(-1, 8).get()
    entry, leave = int(t[0, 5]), int(t[0, 6])
    nlev = int(np.argmin(t[:, 2] > 0)) if (t[:, 2] == 0).any() else TRACE_CAP
    times = np.diff(t[:nlev + 1, 4]) / 1e6 if nlev < TRACE_CAP else np.zeros(0)
    t = t[:nlev]
    modes = [_MODES[int(m)] for m in t[:, 0]]
    queue = np.maximum(t[:, 1], 0)  # -1: a level that built no queue
    checked = t[:, 3]
    nwords = (n + 31) // 32
    idx = in_csr.indices.dtype.itemsize
    vss_bytes = 32 * 4 + 32 * 16 + 8  # masks, row ids, queue entry + v2r
    nbytes = 0
    for lv, mode in enumerate(modes):
        if mode == "bottom_up":
            # visited + frontier words, row pointers of unvisited rows, edges
            nbytes += 8 * nwords + 2 * idx * n + idx * int(checked[lv])
        else:
            nbytes += vss_bytes * int(queue[lv]) + (4 * nwords if mode == "lazy" else 0)
    td = np.array([m != "bottom_up" for m in modes], bool)
    stats.update(levels=nlev, modes=modes, queue=queue.tolist(), frontier=t[:, 2].tolist(),
                 checked=checked.tolist(), level_ms=times.tolist(), blocks=blocks, kernel_ms=ms,
                 span_ms=(leave - entry) / 1e6,
                 init_ms=(int(t[0, 4]) - entry) / 1e6 if nlev else 0.0,
                 kernel="csr" if b is None else "bvss")
    if b is not None:  # the BVSS kernel's bytes (the bandwidth floor of issue 6)
        stats.update(vss_visited=int(queue[td].sum()) if nlev else 0, bytes=int(nbytes))


@register("bfs", fmt="csr", device="cuda", variant="parents")
def parents_from_levels(in_csr, levels, source):
    """int64 parents (CuPy) from BFS ``levels`` (int32, -1 unreached): for
    each reached v the first in-neighbour (in in_csr's row order) one level
    up; the source its own parent; -1 where unreached."""
    import cupy

    from bitgraph.kernels.cuda import grid

    n = in_csr.nrows
    index = np.dtype(np.int64) if in_csr.indices.dtype.itemsize > 4 or \
        in_csr.indptr.dtype.itemsize > 4 else np.dtype(np.int32)
    parents = cupy.empty(n, cupy.int64)
    if n:
        _fn(f"parents_from_levels<{_INDEX[index]}>")(
            (grid(32 * n),), (256,),
            (in_csr.indptr.astype(index, copy=False), in_csr.indices.astype(index, copy=False),
             levels, parents, np.int64(n), np.int64(source)))
    return parents
