"""Launcher of ``bfs_fused.cu``: BFS in one persistent, cooperative
kernel, either Blest's on BVSS (``bfs_fused_bvss``: tensor-core top-down
levels, eager or lazy update) or BFS-4K's top-down over CSR
(``bfs_fused_csr``: push; with XBFS's bottom-up levels over the CSR of A':
direction), with the same bottom-up and single-block levels; and BFS
parents from levels.

Knobs come in as ``cfg`` (``bitgraph.settings.BFSCuda``); layout constants
shared with the ``.cu`` from ``constants.BFS_FUSED``. A ``stats``
(``bitgraph.Stats``) receives, per call, ``levels``, ``modes`` (per level
"eager" / "lazy" / "bottom_up" / "single"), ``queue`` (VSSs, or vertices,
per level), ``frontier``, ``checked`` (in-edges scanned by bottom-up
levels), ``level_ms``, ``blocks``, ``kernel_ms`` (the launch's GPU time,
the host's launch overhead gated out: ``timing.gated_ms``), ``span_ms``
(the kernel's own entry to exit), ``init_ms`` and, on BVSS,
``vss_visited`` and ``bytes`` (the levels' bytes read, an estimate).
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from bitgraph.kernels.cuda import PackedLaunch, cooperative_blocks, module
from bitgraph.kernels.cuda.constants import BFS_FUSED
from bitgraph.kernels.registry import register

__all__ = ["bfs_fused_bvss", "bfs_fused_csr", "parents_from_levels"]

_SOURCE = "bfs_fused.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_FMT = {"csr": "FMT_CSR", "simt": "FMT_BVSS_SIMT", "mma": "FMT_BVSS_MMA"}
_NAMES = tuple([f"bfs_fused<{f}, {i}>" for f in _FMT.values() for i in _INDEX.values()]
               + [f"parents_from_levels<{i}>" for i in _INDEX.values()])
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
_THREADS = BFS_FUSED["THREADS"]
_SB_FRONTIER = BFS_FUSED["SB_FRONTIER"]
_LIST_CAP = BFS_FUSED["LIST_CAP"]
_GIANT = BFS_FUSED["GIANT"]
_TRACE_CAP = 1 << 16  # levels whose mode and counts are recorded
_MODES = ("eager", "lazy", "bottom_up", "single")


def _fn(name):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[name])


@register("bfs", fmt="bvss", device="cuda", variant="fused")
def bfs_fused_bvss(b, in_csr, out_csr, outdeg, source, *, cfg, alpha_m, lazy=False,
                   bottom_up=True, visited=False, dead=None, bu_keep=-1, stats=None,
                   unreached=-1, prepare=False):
    """BFS levels from ``source`` on BVSS ``b`` (of A', sigma 8, CuPy
    arrays), in b's vertex order: int32 CuPy array, -1 where unreached.

    in_csr: the CSR of A' in the same order (bottom-up levels); out_csr:
    A's (single-block levels; the same object for a symmetric A); outdeg:
    int32 out-degree of every vertex (the direction rule); cfg: the
    ``BFSCuda`` settings; alpha_m: a level runs bottom-up when its
    frontier's out-degree sum exceeds this (an integer: ``alpha * m``);
    lazy: the lazy update (Blest Alg. 3) on levels whose queue holds at
    least ``cfg.lazy_min_queue`` of the VSSs; bottom_up: False never leaves
    top-down. ``cfg.force_*`` override the update, the bottom-up rule, the
    tensor cores (False: the SIMT twin, same result) and the single-block
    levels. visited: also return the reached vertices as bits (uint32
    words, allocated with the levels: the kernel's own bitmap). dead (or None): uint32 words with
    the bits of the vertices that have no in-edges (bottom-up levels skip
    them); bu_keep: after a bottom-up level the next stays bottom-up while
    its frontier has more than bu_keep vertices (Beamer's beta rule; -1
    off). stats: a ``bitgraph.Stats`` to fill (module docstring).
    unreached: the level written where not reached (0 for a result Vector
    whose structure is the visited bits). prepare: return the launch
    prepared for every source instead (``Prepared``: ``run(source,
    stats)``, for a caller that keeps it per graph; ``source`` unused).

    >>> lv = bfs_fused_bvss(b, in_csr, in_csr, deg, 0, cfg=BFSCuda(), alpha_m=m // 20)  # doctest: +SKIP
    """
    if b.sigma != 8:
        raise ValueError(f"bfs_fused_bvss: the kernel reads sigma = 8 slices, got sigma = {b.sigma}")
    n = b.nrows
    if b.ncols != n or in_csr.nrows != n:
        raise ValueError(f"bfs_fused_bvss: a square BVSS and CSR of the same n expected, got"
                         f" {b.nrows}x{b.ncols} and {in_csr.nrows} rows")
    lazy_min = max(1, int(cfg.lazy_min_queue * b.n_vss)) if lazy else -1
    if cfg.force_update is not None:
        lazy_min = max(lazy_min, 1) if cfg.force_update == "lazy" else -1
    fmt = "simt" if cfg.force_mma is False else "mma"
    return _launch("bfs_fused_bvss", fmt, b, in_csr, out_csr, outdeg, source, cfg=cfg,
                   alpha_m=alpha_m, lazy_min=lazy_min, scan_min=-1, scan_found=0,
                   bottom_up=bottom_up,
                   want_visited=visited, dead=dead, bu_keep=bu_keep, stats=stats,
                   key=("bfs", "bvss", "cuda", "fused"), unreached=unreached, prepare=prepare)


@register("bfs", fmt="csr", device="cuda", variant="fused")
def bfs_fused_csr(in_csr, out_csr, outdeg, source, *, cfg, alpha_m, bottom_up=True,
                  visited=False, dead=None, bu_keep=-1, stats=None, unreached=-1,
                  prepare=False):
    """BFS levels from ``source`` over CSRs (CuPy arrays) in the same
    persistent kernel, with BFS-4K's top-down levels instead of the BVSS:
    ``bottom_up=False`` is the push method (top-down only), True XBFS's
    direction method (bottom-up levels over ``in_csr`` when the frontier's
    out-degree sum exceeds ``alpha_m``). A top-down level is scan-free (claim
    and enqueue) or single-scan (mark, then one sweep) when it scans at
    least ``cfg.scan_min * n`` edges and the level before found at least
    ``cfg.scan_found`` new vertices per out-edge it could scan
    (``cfg.force_update`` "eager" / "lazy" forces one). int32 CuPy levels,
    -1 unreached (and the reached vertices'
    bits when ``visited``; ``dead``, ``bu_keep``, ``stats``, ``unreached``
    and ``prepare`` as ``bfs_fused_bvss``).

    >>> lv = bfs_fused_csr(in_csr, out_csr, deg, 0, cfg=BFSCuda(), alpha_m=m // 20)  # doctest: +SKIP
    """
    n = out_csr.nrows
    if out_csr.ncols != n or in_csr.nrows != n:
        raise ValueError(f"bfs_fused_csr: square CSRs of the same n expected, got"
                         f" {out_csr.nrows}x{out_csr.ncols} and {in_csr.nrows} rows")
    scan_min = -1 if cfg.scan_min == float("inf") else max(1, int(cfg.scan_min * n))
    scan_found = max(0, int(round(cfg.scan_found * 1e6)))
    if cfg.force_update is not None:
        scan_min = max(scan_min, 1) if cfg.force_update == "lazy" else -1
        scan_found = 0
    return _launch("bfs_fused_csr", "csr", None, in_csr, out_csr, outdeg, source, cfg=cfg,
                   alpha_m=alpha_m, lazy_min=-1, scan_min=scan_min, scan_found=scan_found,
                   bottom_up=bottom_up,
                   want_visited=visited, dead=dead, bu_keep=bu_keep, stats=stats,
                   key=("bfs", "csr", "cuda", "fused"), unreached=unreached, prepare=prepare)


def _smem(index):
    """Dynamic shared memory of the kernel: the single-block levels' two
    sides (the .cu's sb_side); bottom-up levels reuse it for their lists
    (32 KiB, the .cu's bottom_up_level)."""
    side = (_SB_FRONTIER * index.itemsize + 4 * (_SB_FRONTIER + 1) + 15) & ~15
    return 2 * side


def _launch(where, fmt, b, in_csr, out_csr, outdeg, source, *, cfg, alpha_m, lazy_min,
            scan_min, scan_found, bottom_up, want_visited, dead, bu_keep, stats, key, unreached,
            prepare):
    """Check the arguments, prepare the launch (``Prepared``), and run it
    from ``source`` (or return it, with ``prepare``)."""
    import cupy

    n = out_csr.nrows
    if not prepare and not 0 <= source < n:
        raise IndexError(f"{where}: source {source} out of range [0, {n})")
    if outdeg.dtype != np.int32:
        raise ValueError(f"{where}: outdeg must be int32, got {outdeg.dtype}")
    csr = b is None
    if cfg.force_bottom_up is not None:
        bottom_up = cfg.force_bottom_up
    single = cfg.force_single is not False
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
    fn = _fn(f"bfs_fused<{_FMT[fmt]}, {_INDEX[index]}>")
    smem = _smem(index)
    blocks = cooperative_blocks(fn, _THREADS, cfg.blocks_per_sm, smem)
    csrs = tuple(a.astype(index, copy=False) for a in (
        in_csr.indptr, in_csr.indices, out_csr.indptr, out_csr.indices))
    # parameters _P_LEVELS, _P_VISITED, _P_WORK.., _P_SOURCE are set per call
    args = (real_ptrs, rows4, masks, *csrs, outdeg,
            None, None, None, None, None, None, None, None,
            np.int64(n), np.int64(nblocks), np.int64(qcap), np.int64(0),
            np.uint64(min(int(alpha_m), 2**64 - 1)),
            np.int32(2 if bottom_up == "always" else (1 if bottom_up else 0)),
            np.int64(lazy_min), np.int64(scan_min), np.int64(scan_found),
            np.int64(min(cfg.single_edges, _LIST_CAP) if single else -1),
            np.int64(_TRACE_CAP), dead, np.int64(bu_keep), np.int32(unreached))
    assert len(args) == len(_PARAMS)
    run = Prepared(where, PackedLaunch(fn, blocks, _THREADS, args, smem=smem, cooperative=True),
                   cupy.cuda.runtime.getDevice(), n, nwords, qcap, want_visited, key, b,
                   in_csr.indices.dtype.itemsize)
    return run if prepare else run(source, stats)


# the kernel's parameters, in bfs_fused.cu's order; a Prepared sets levels,
# visited, the scratch (front .. lists) and source per call
_PARAMS = ("real_ptrs", "rows4", "masks", "in_ptr", "in_idx", "out_ptr", "out_idx", "outdeg",
           "levels", "visited", "front", "queue", "ctrl", "bar", "trace", "lists", "n", "nblocks",
           "qcap", "source", "alpha_m", "bottom_up", "lazy_min", "scan_min", "scan_found",
           "sb_edges", "trace_cap", "dead", "bu_keep", "unreached")
_P_LEVELS, _P_VISITED = _PARAMS.index("levels"), _PARAMS.index("visited")
_P_WORK, _P_SOURCE = _PARAMS.index("front"), _PARAMS.index("source")


class Prepared:
    """A BFS launch with everything fixed but the source, the outputs and
    the scratch: ``run(source, stats=None)`` allocates the levels (and the
    visited bits, with ``want_visited``) in one block, sets three
    parameters and queues the kernel; nothing synchronises without
    ``stats``. Returns the levels, or ``(levels, visited)``. The arrays it
    was prepared with stay alive with it; a caller keeps it per graph and
    settings (``algorithms.breadth_first``), for the device it was made on.
    """

    __slots__ = ("where", "launch", "device", "n", "nwords", "qcap", "want_visited", "key",
                 "b", "idx_size", "vis_off", "nbytes", "serial", "lock", "cuda")

    def __init__(self, where, launch, device, n, nwords, qcap, want_visited, key, b, idx_size):
        import cupy

        self.where, self.launch, self.device = where, launch, device
        self.n, self.nwords, self.qcap = n, nwords, qcap
        self.want_visited, self.key, self.b, self.idx_size = want_visited, key, b, idx_size
        # levels[n] int32, then visited[nwords] uint32 at a 256-byte boundary
        self.vis_off = (4 * n + 255) & ~255
        self.nbytes = self.vis_off + 4 * nwords if want_visited else 4 * n
        self.serial = 0  # the scratch whose addresses the parameters hold
        self.lock = threading.Lock()
        # what a call uses of CuPy, bound once: an import statement or a
        # module attribute chain per call costs ~0.3 us each
        self.cuda = (cupy.cuda.runtime.getDevice, cupy.cuda.get_current_stream,
                     cupy.cuda.alloc, cupy.ndarray, cupy.int32, cupy.uint32)

    def __call__(self, source, stats=None):
        if not 0 <= source < self.n:
            raise IndexError(f"{self.where}: source {source} out of range [0, {self.n})")
        device = self.cuda[0]()
        if device != self.device:
            raise ValueError(f"{self.where}: prepared on device {self.device}, called on"
                             f" device {device}")
        return self.go(source, device, stats)

    def go(self, source, device, stats=None):
        """``run(source, stats)`` for a caller that has checked the source
        (an int in range) and the current device (``device``, this launch's)."""
        _, get_stream, alloc, ndarray, int32, uint32 = self.cuda
        stream = get_stream().ptr
        try:
            work = _workspace(self.nwords, self.qcap, device, stream)
            mem = alloc(self.nbytes)
        except Exception:
            from bitgraph.device import oom_guard

            # CuPy's out-of-memory error as DeviceError; any other unchanged
            with oom_guard(self.where, self.nbytes + 16 * self.nwords + 24 * self.qcap):
                raise
        # the launch first, the arrays over its memory after: the kernel starts sooner
        # (the user's whole call is the host's work up to the launch plus the kernel)
        at = mem.ptr + self.vis_off if self.want_visited else work[1].data.ptr
        run = self.launch
        with self.lock:
            if self.serial != work[0]:
                for i, a in enumerate(work[2:]):  # front, queue, ctrl, bar, trace, lists
                    run.set(_P_WORK + i, a.data.ptr)
                self.serial = work[0]
            run.set(_P_LEVELS, mem.ptr)
            run.set(_P_VISITED, at)
            run.set(_P_SOURCE, int(source))
            if stats is None:
                run.launch(stream)
            else:
                from bitgraph.kernels.cuda.timing import gated_ms

                stats.ran(self.key)
                ms = gated_ms(lambda: run.launch(stream))
        levels = ndarray((self.n,), int32, mem)
        if stats is not None:
            _record(stats.metrics, work[6], self.b, self.idx_size, self.n, run.grid, ms)
        if self.want_visited:
            return levels, ndarray((self.nwords,), uint32, mem + self.vis_off)
        return levels


def _dummy():
    import cupy

    return cupy.zeros(4, cupy.uint32)


_WORK = {}
_SERIAL = itertools.count(1)


def _workspace(nwords, qcap, device, stream):
    """The kernel's scratch (it initialises it itself), kept between calls
    of the same sizes on the same device and stream: a BFS then costs one
    allocation (what it returns) and one launch. ``(serial, visited, front,
    queue, ctrl, bar, trace, lists)``; the serial names this scratch (a
    ``Prepared`` resets its parameters when it changes)."""
    key = (device, stream, nwords, qcap)
    work = _WORK.get(key)
    if work is None:
        import cupy

        _WORK.clear()  # one graph's scratch at a time
        work = _WORK[key] = (next(_SERIAL),
                             cupy.empty(nwords, cupy.uint32), cupy.empty(3 * nwords, cupy.uint32),
                             cupy.empty((3 * qcap, 2), cupy.int32),  # (VSS, block) or (v, degree)
                             cupy.empty(22 * 16, cupy.uint64),  # counters, a 128-byte line each
                             cupy.zeros(2, cupy.uint32),  # barrier: arrivals, generation
                             cupy.empty(8 * _TRACE_CAP, cupy.int64),
                             cupy.empty(2 * _LIST_CAP, cupy.uint32))  # single-block lists
    return work


def _record(stats, trace, b, idx, n, blocks, ms):
    t = trace.reshape(-1, 8).get()
    entry, leave = int(t[0, 5]), int(t[0, 6])
    nlev = int(np.argmin(t[:, 2] > 0)) if (t[:, 2] == 0).any() else _TRACE_CAP
    times = np.diff(t[:nlev + 1, 4]) / 1e6 if nlev < _TRACE_CAP else np.zeros(0)
    t = t[:nlev]
    modes = [_MODES[int(m)] for m in t[:, 0]]
    queue = np.maximum(t[:, 1], 0)  # -1: a level that built no queue
    checked = t[:, 3]
    nwords = (n + 31) // 32
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
    if b is not None:  # the BVSS kernel's bytes: its bandwidth floor
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
