"""Launcher of ``msbfs.cu``: one iBFS batch (up to 64 BFSs in one
traversal) on the GPU, with the CPU launcher's signature and results
(``kernels/cpu/msbfs.py::batch_run``; CuPy arrays in, ``levels`` a CuPy
array, the per-source statistics numpy arrays). Knobs come in as ``cfg``
(``bitgraph.settings.MSBFSCuda``; each field documents its rule and
measurement); layout shared with the ``.cu`` from ``constants.MSBFS``.

Schedule "levels": the host launches the levels without waiting for them:
per level a pull step, a push step and a settle, which read the direction
from the device (the settle's last block gives each source a direction
from its own frontier: bottom-up when the frontier has more than
``alpha * m`` out-edges, top-down otherwise, everyone bottom-up when the
top-down union would walk more than ``all_pull * m`` edges). A step with
nothing to do returns at once. The host checks a level's queue size (an
asynchronous copy into page-locked memory) at most ``cfg.lead`` levels
later and stops when a level found nothing; the levels launched past it do
nothing. Levels 0 .. ``cfg.head_levels`` run as one captured CUDA graph
(R-MAT's and urand's whole traversal); with ``cfg.graph``, from level
``cfg.graph_levels`` on the levels run as a captured graph replayed until
one's last level found nothing (a high-diameter graph's thousands of
levels then cost the host nothing). The levels are written out of the
frontier planes by ``msbfs_flush``, ``cfg.flush_span`` at a time, not per
level; a traversal that ends within the head graph is written out by that
graph's own final flush, and ``msbfs_clear`` zeroes the dense planes
after it, so the host waits once and returns while that zeroing still
runs on the stream: a state is used on one stream (``shared_state`` keeps
one per stream).

Schedule "coop" (graphs of long diameter): one cooperative launch of
``msbfs_coop``: the whole traversal, top-down, one grid barrier a level,
no settle, the levels written as they are found. Schedule "async"
(road-like graphs of long diameter): the batch's BFSs side by side in
``bfs_async.cu``'s work list, without barriers; a batch whose list fills
or does not fit runs "coop" instead.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from bitgraph.kernels._launch import check_length
from bitgraph.kernels.cuda import cooperative_blocks, module, multiprocessors
from bitgraph.kernels.cuda.constants import MSBFS
from bitgraph.kernels.registry import register

__all__ = ["batch_run", "new_state", "shared_state", "pull_lanes"]

SOURCE = "msbfs.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"msbfs_{k}<{i}>" for i in _INDEX.values()
               for k in ("start", "settle", "push", "pull", "coop")) + (
    "msbfs_flush", "msbfs_advance", "msbfs_clear")
SCHEDULES = ("levels", "coop", "async")

# layout shared with msbfs.cu (constants.MSBFS): counter slots (nq, mf,
# active, scanned, pull, push, ..., cnt[64], out-edges[64]), statistics
# (count[64], total[64], ecc[64], the queue sizes of levels 0..63),
# arguments (sources, rows, level base, result address)
_NQ, _MF, _ACTIVE, _SCANNED, _PULL, _PUSH = (MSBFS[c] for c in (
    "C_NQ", "C_MF", "C_ACTIVE", "C_SCANNED", "C_PULL", "C_PUSH"))
_CTR, _STATS, _ARGS = MSBFS["CTR"], MSBFS["STATS"], MSBFS["ARGS"]
_S_TOTAL, _S_ECC, _S_LEVELS = MSBFS["S_TOTAL"], MSBFS["S_ECC"], MSBFS["S_LEVELS"]
_A_ROWS, _A_BASE, _A_LEVELS = MSBFS["A_ROWS"], MSBFS["A_BASE"], MSBFS["A_LEVELS"]
_CHUNK = MSBFS["CHUNK"]  # a hub's out-edges per chunk entry
_BLOCK = MSBFS["BLOCK"]  # threads per block (the block scans assume it)
_RING = 16  # levels whose counters are in flight to the host (> head_levels)


def _grid(items, cap):
    return max(1, min((items + _BLOCK - 1) // _BLOCK, cap))


def _wave(fn, sms, smem=0):
    """Blocks of ``fn`` (with ``smem`` bytes of dynamic shared memory)
    resident on the whole GPU at once: the grids of the grid-stride kernels,
    so that no partial second wave of blocks runs after the first (measured:
    the flush at 1,056 blocks and 6 per multiprocessor ran 1.33 waves)."""
    per_sm = _BUFFERS.get(("occupancy", fn.ptr, smem))
    if per_sm is None:
        from cupy.cuda import driver

        per_sm = _BUFFERS[("occupancy", fn.ptr, smem)] = max(
            1, driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, _BLOCK, smem))
    return per_sm * sms


def _kernels(it):
    """The kernels of a batch (start, settle, flush, push, pull, advance,
    clear) and the multiprocessor count, looked up once per device: each
    lookup costs microseconds of the call, before its first kernel."""
    import cupy

    key = ("kernels", cupy.cuda.runtime.getDevice(), it)
    got = _BUFFERS.get(key)
    if got is None:
        mod, lowered = module(SOURCE, _NAMES)

        def fn(name):
            return mod.get_function(lowered[name])

        got = _BUFFERS[key] = (fn(f"msbfs_start<{it}>"), fn(f"msbfs_settle<{it}>"),
                               fn("msbfs_flush"), fn(f"msbfs_push<{it}>"),
                               fn(f"msbfs_pull<{it}>"), fn("msbfs_advance"),
                               fn("msbfs_clear"), multiprocessors())
        _allow_stage(got[2])
    return got


def _stage_bytes(count, final):
    """msbfs_flush's dynamic shared memory: per warp two stages of a word
    per lane for each of the ``count`` planes (and seen when ``final``)."""
    return (_BLOCK // 32) * 2 * (count + bool(final)) * 32 * 8


def _allow_stage(fn):
    # the largest stage (16 planes and seen) is more than the 48 KB a
    # kernel may ask for without opting in
    from cupy.cuda import driver

    driver.funcSetAttribute(fn.ptr, getattr(
        driver, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 8), _stage_bytes(16, True))

_BUFFERS: dict = {}


def pull_lanes(n: int, nnz: int) -> int:
    """Lanes per vertex of the CSR bottom-up step: half the mean in-degree
    rounded up to a power of 2, at most 4 (a lane reads 4 in-edges a round).
    With a direction per source the pulls mostly exit early, and narrow
    groups stop sooner: kron-22, 64 sources, the level that pulls for all
    of them: 4 lanes 0.31 ms (16.7 M in-edges read), 8 0.39, 16 0.53, 32
    0.75 (42.7 M); on urand-22, whose pulls scan whole rows, 4 lanes lose
    ~10% to 16 (1.08-1.13 against 1.01 ms a level)."""
    mean = nnz / max(n, 1) / 2
    g = 1
    while g < 4 and g < mean:
        g *= 2
    return g


def _pinned():
    # page-locked ring of counter heads (8 words of a level's slot) and its
    # events, the head of a graph replay's last level, and the batch's
    # device arguments (_ARGS words: msbfs.cu's A_*) on their way to the
    # device buffer `args` (no synchronous copy before the first kernel),
    # and the statistics copied by the first levels' graph; one set per
    # device and thread
    import cupy

    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _BUFFERS.get(key)
    if got is None:
        mem = cupy.cuda.alloc_pinned_memory(_RING * 64 + 64 + _ARGS * 8 + _STATS * 8)
        heads = np.frombuffer(mem, np.int64, _RING * 8).reshape(_RING, 8)
        ghead = np.frombuffer(mem, np.int64, 8, offset=_RING * 64)
        got = _BUFFERS[key] = (
            [heads[i].ctypes.data for i in range(_RING)], heads,
            [cupy.cuda.Event(disable_timing=True) for _ in range(_RING)],
            ghead, np.frombuffer(mem, np.int64, _ARGS, offset=_RING * 64 + 64),
            cupy.empty(_ARGS, np.int64), mem,
            np.frombuffer(mem, np.int64, _STATS, offset=_RING * 64 + 64 + _ARGS * 8))
    return got


def _views(planes, ctr, qa, qb):
    """Each frontier plane and counter slot of a state as its own array,
    and its two queues as int64 and as int32 (indexed by int32-ness), made
    once (the last state's kept): a CuPy slice costs microseconds of host
    time, and each level took eight, which the GPU waited for on the small
    levels."""
    key = ("views", planes.data.ptr, planes.shape, ctr.data.ptr, qa.data.ptr, qb.data.ptr)
    got = _BUFFERS.get(key)
    if got is None:
        for old in [x for x in _BUFFERS if x[0] == "views"]:
            del _BUFFERS[old]
        slots = [ctr[i] for i in range(3)]
        got = _BUFFERS[key] = ([planes[i] for i in range(planes.shape[0])], slots,
                               [x.data.ptr for x in slots],
                               ((qa, qb), (qa.view(np.int32), qb.view(np.int32))))
    return got


def _chunks(m: int):
    # the chunk list of the hubs (msbfs.cu): at most 2 m / CHUNK entries;
    # one buffer per device and thread, grown on demand
    import cupy

    key = (cupy.cuda.runtime.getDevice(), threading.get_ident(), "chunks")
    need = 2 * m // _CHUNK + 2
    buf = _BUFFERS.get(key)
    if buf is None or buf.size < need:
        buf = _BUFFERS[key] = cupy.empty(need, np.uint64)
    return buf


def _graph(kind: str, key: tuple, work):
    """The CUDA graph of ``work(stream_ptr)``'s launches, captured on a new
    stream the first time (kind, key) is asked for and kept: ``key`` names
    every value the launches bake in (pointers, sizes, constants). A few
    graphs of each kind are kept (closeness alternates batches of 64 and
    its last one); a capture costs its launches' host time and an
    instantiation."""
    import cupy

    got = _BUFFERS.get((kind,) + key)
    if got is None:
        old = [x for x in _BUFFERS if x[0] == kind]
        for x in old[:max(0, len(old) - 3)]:
            del _BUFFERS[x]
        cs = cupy.cuda.Stream(non_blocking=True)
        with cs:
            cs.begin_capture()
            try:
                work(cs.ptr)
            finally:
                got = cs.end_capture()
        _BUFFERS[(kind,) + key] = got
    return got


def new_state(n: int, planes: int | None = None, cfg=None):
    """Device scratch of a batch, reusable by the next (``batch_run`` leaves
    it zeroed): the frontier planes uint64[R, n] (R = ``planes``, default
    ``cfg.planes`` of the ``MSBFSCuda`` settings, or what a quarter of the
    free GPU memory holds, at least 2),
    seen uint64[n], touched and the flush's marks uint32[ceil(n / 32)],
    two queues int64[n] (viewed as int32 for int32 indices), counters
    int64[3, 136], statistics int64[256]. (8 R + 25) n bytes."""
    import cupy

    from bitgraph.device import oom_guard

    if planes is None:
        if cfg is None:
            from bitgraph.settings import current

            cfg = current().msbfs_cuda
        free = cupy.cuda.runtime.memGetInfo()[0]
        planes = max(2, min(cfg.planes, free // 4 // max(8 * n, 1)))
    if not 2 <= planes <= 16:
        raise ValueError(f"msbfs new_state: planes={planes!r} must lie in 2..16")
    words = (n + 31) // 32
    with oom_guard("msbfs(cuda)", (8 * planes + 25) * n + 8 * (3 * _CTR + _STATS)):
        return (cupy.zeros((planes, n), np.uint64), cupy.zeros(n, np.uint64),
                cupy.zeros(words, np.uint32), cupy.zeros(words, np.uint32),
                cupy.empty(max(n, 1), np.int64), cupy.empty(max(n, 1), np.int64),
                cupy.zeros((3, _CTR), np.int64), cupy.zeros(_STATS, np.int64))


@contextlib.contextmanager
def shared_state(n: int, cfg=None):
    """``new_state(n)`` kept between calls on the same device, stream and
    thread (one n at a time): a call reuses the zeroed scratch instead of
    allocating and clearing (8 R + 25) n bytes again (kron-22, 16 planes:
    0.6 GB, ~0.2 ms of memset a call). A batch that raises may leave it
    dirty, so the state is dropped then. A batch may return while its last
    zeroing runs on the stream (module docstring), so a state stays on the
    stream it was made for.

    >>> with shared_state(1000) as state:  # doctest: +SKIP
    ...     batch_run(a, t, [0, 5], state=state)
    """
    import cupy

    key = ("state", cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr,
           threading.get_ident())
    got = _BUFFERS.pop(key, None)  # popped: a nested call gets its own
    if got is None or got[0] != n:
        got = (n, new_state(n, cfg=cfg))
    yield got[1]
    _BUFFERS[key] = got  # reached only when the batches returned: state zeroed


def _dummy_levels():
    # the result's address when no levels are written (never stored to)
    import cupy

    key = ("dummy", cupy.cuda.runtime.getDevice())
    got = _BUFFERS.get(key)
    if got is None:
        got = _BUFFERS[key] = cupy.zeros(1, np.int32)
    return got


# msbfs_coop: COOP_THREADS threads a block (its launch bounds) and one
# block per multiprocessor at most: as bfs_fused.cu's persistent kernel,
# few blocks keep the arrivals at each level's barrier few
_COOP_THREADS = MSBFS["COOP_THREADS"]
_COOP_PER_SM = 1
# entries of a block's stage of the next queue (dynamic shared memory: 64
# KiB of int32, 128 KiB of int64); past it a warp appends to the queue
# itself
_COOP_STAGE = 16384
_COOP_TRACE_CAP = 1 << 15  # levels a traced cooperative batch records


def _coop(a, state, src, rows_h, flat_ptr, write, levels, cfg, stats):
    """``batch_run(..., schedule="coop")``: msbfs_coop with the state's
    queues and statistics, and its own vertex records (32 n bytes, kept for
    the next call in this thread). A level whose queue holds at least
    ``cfg.coop_sweep * n`` vertices builds the next queue by a sweep of a
    bitmap, in ascending order (a second grid barrier and the sweep)."""
    import cupy

    k = src.size
    n = int(a.nrows)
    idx = np.dtype(np.int64) if max(a.indptr.dtype.itemsize, a.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(a.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(a.indices, dtype=idx)
    _, _, touched, _, qa, qb, _, stats_d = state
    sweep_min = 1 << 62 if cfg.coop_sweep is None else max(1, int(cfg.coop_sweep * n))
    if idx == np.int32:
        qa, qb = qa.view(np.int32), qb.view(np.int32)
    key = ("coop", cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = _BUFFERS.get(key)
    if got is None:
        mod, lowered = module(SOURCE, _NAMES)
        # ctl: msbfs_coop's queue sizes, level count and grid barrier
        got = _BUFFERS[key] = [{it: mod.get_function(lowered[f"msbfs_coop<{it}>"])
                                for it in _INDEX.values()}, cupy.zeros(8, np.uint64), None]
    fns, ctl, rec = got
    if rec is None or rec.size < 4 * n:
        # the vertices' 32-byte records (msbfs.cu), written whole by each launch
        from bitgraph.device import oom_guard

        got[2] = None
        with oom_guard("msbfs(cuda)", 32 * n):
            rec = got[2] = cupy.empty(4 * max(n, 1), np.uint64)
    fn = fns[_INDEX[idx]]
    args_h, args_d, stats_h = (_pinned()[i] for i in (4, 5, 7))
    args_h[:k] = src
    args_h[_A_ROWS:_A_ROWS + k] = rows_h[:k]
    args_h[_A_LEVELS] = flat_ptr
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memcpyAsync(args_d.data.ptr, args_h.ctypes.data, _ARGS * 8, 1, stream.ptr)
    smem = _COOP_STAGE * idx.itemsize
    blocks = cooperative_blocks(fn, _COOP_THREADS, _COOP_PER_SM, smem)
    if stats is not None:
        stats.ran(("msbfs", "csr", "cuda", "batch"))
        stats.metrics["schedule"] = "coop"
    trace = stats.traces if stats is not None and stats.trace else None
    tcap = _COOP_TRACE_CAP if trace is not None else 0
    tbuf = cupy.zeros(max(2 * tcap, 1), np.int64)
    fn((blocks,), (_COOP_THREADS,),
       (indptr, indices, np.int64(n), rec, qa, qb, ctl, stats_d, args_d, np.int32(k),
        np.bool_(write), touched, np.int64(sweep_min), tbuf, np.int32(tcap),
        np.uint32(_COOP_STAGE)), shared_mem=smem, enable_cooperative_groups=True)
    cupy.cuda.runtime.memcpyAsync(stats_h.ctypes.data, stats_d.data.ptr, _STATS * 8, 2, stream.ptr)
    stream.synchronize()
    if trace is not None:
        t = tbuf.get().reshape(-1, 2)
        nl = int(ctl[3:4].get()[0])
        if nl < _COOP_TRACE_CAP:
            # per level: (level, queue size, us from the level's start to the next's)
            stamps = np.r_[t[:nl + 1, 0], t[nl, 1]]
            trace.append({"schedule": "coop", "levels": nl, "blocks": blocks,
                          "queue": t[:nl, 1].copy(),
                          "level_us": np.diff(stamps[:nl + 1]) / 1e3,
                          "end_us": (stamps[-1] - stamps[nl]) / 1e3})
    st = stats_h
    return (levels if write else None), st[0:k].copy(), st[_S_TOTAL:_S_TOTAL + k].copy(), \
        st[_S_ECC:_S_ECC + k].copy()


def _side_by_side(a, src, rows_h, write, levels, async_cfg, stats):
    """``batch_run(..., schedule="async")``: ``bfs_async.traverse`` into the
    result's rows, or into scratch rows (kept per device and thread) for
    statistics only; None when it gave up or its memory does not fit."""
    import cupy

    from bitgraph.errors import DeviceError
    from bitgraph.kernels.cuda.bfs_async import traverse

    k, n = src.size, int(a.nrows)
    rows = rows_h[:k]
    if write and np.unique(rows).size < k:
        return None  # sources sharing a row would share its atomicMins: the cooperative launch
    if not write:
        key = ("async rows", cupy.cuda.runtime.getDevice(), threading.get_ident())
        scratch = _BUFFERS.get(key)
        if scratch is None or scratch.size < k * n:
            from bitgraph.device import oom_guard

            _BUFFERS.pop(key, None)
            try:
                with oom_guard("msbfs(cuda)", 4 * k * n):
                    scratch = _BUFFERS[key] = cupy.empty(max(k * n, 1), np.int32)
            except DeviceError:
                return None
        levels, rows = scratch, np.arange(k, dtype=np.int64)
    got = traverse("msbfs(cuda)", a, src, rows, levels, cfg=async_cfg, summary=True, stats=stats)
    if got is False:
        return None
    return ((levels if write else None), *got)


def _prepare(a, t, state, lanes, n, where, keep):
    """What a batch derives from its graph and state alone:
    index type, contiguous arrays, kernels, grids, views, and the part of
    the graphs' keys they fix. With ``keep`` (a state the caller reuses)
    it is kept for the next call with the same objects, one per device and
    thread; the entry holds them, so their ids stay theirs (and the last
    graph's arrays and state stay referenced until a batch on another
    graph or state in that thread). On the
    lent H100's host a call spent ~0.18 ms in Python before its first
    kernel, ~7% of a kron-22 batch, and these lookups were half of it."""
    import cupy

    where_key = ("prepared", cupy.cuda.runtime.getDevice(), threading.get_ident())
    ident = (id(a), id(t), id(state), lanes, n)
    got = _BUFFERS.get(where_key)
    if got is not None and got[0] == ident:
        return got[2]
    idx = np.dtype(np.int64) if max(a.indptr.dtype.itemsize, a.indices.dtype.itemsize,
                                    t.indptr.dtype.itemsize, t.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    it = _INDEX[idx]
    indptr = cupy.ascontiguousarray(a.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(a.indices, dtype=idx)
    m = int(indices.shape[0])
    planes, seen, touched, wtouched, qa, qb, ctr, stats = state
    tindptr = cupy.ascontiguousarray(t.indptr, dtype=idx)
    tindices = cupy.ascontiguousarray(t.indices, dtype=idx)
    group = pull_lanes(n, int(tindices.shape[0])) if lanes is None else int(lanes)
    if group not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: lanes={lanes!r} must be a power of 2 up to 32")
    kern = _kernels(it)
    f_settle, f_push, f_pull, sms = kern[1], kern[3], kern[4], kern[7]
    settle_grid = _grid(n, _wave(f_settle, sms))
    push_grid = _wave(f_push, sms)
    pull_grid = _grid(n * group, _wave(f_pull, sms))
    views = _views(planes, ctr, qa, qb)
    chunks = _chunks(m)
    args_d = _pinned()[5]
    graph_key = ((it, n, planes.shape[0], settle_grid, push_grid, sms, tuple(
        x.data.ptr for x in (indptr, indices, chunks, planes, seen, touched, wtouched, qa, qb,
                             ctr, stats, args_d))),
                 (group, pull_grid) + tuple(x.data.ptr for x in (tindptr, tindices)))
    got = (idx, it, indptr, indices, m, tindptr, tindices, group, kern,
           settle_grid, push_grid, pull_grid, views, chunks, graph_key)
    if keep:
        _BUFFERS[where_key] = (ident, (a, t, state), got)
    return got


@register("msbfs", fmt="csr", device="cuda", variant="batch")
def batch_run(a, t, sources, *, levels=None, rows=None, write=True, alpha=None,
              stop_work=1 << 62, nchunks=None, state=None, lanes=None, all_pull=None,
              schedule="levels", cfg=None, async_cfg=None, stats=None):
    """One iBFS batch on the GPU: BFS from each of ``sources`` (k <= 64) at
    once; arguments and results as ``kernels.cpu.msbfs.batch_run``.

    a, t: CSR (CuPy arrays, int32 or int64 indices) of the graph and of its
    transpose; sources: k int64 in [0, n), repeats allowed (numpy or CuPy).
    With ``write`` every entry of row rows[b] of ``levels`` (a C-contiguous
    int32 CuPy array; default a new (k x n) one) gets source b's level, -1
    where unreached. Returns ``(levels, count, total, ecc)``: count, total,
    ecc numpy int64[k] (vertices reached, sum and max of their levels).

    cfg: the ``MSBFSCuda`` settings, async_cfg the ``BFSAsync`` ones (None:
    the current settings'). ``alpha`` and ``all_pull`` (fractions of m;
    None: ``cfg.alpha``, ``cfg.all_pull``): the per-source direction of the
    module docstring (alpha 0: bottom-up wherever a frontier has out-edges;
    both huge: top-down only), for the levels the host launches and, with
    ``cfg.graph_pull``, the replayed ones (``cfg.graph``: otherwise those go
    top-down). ``stop_work`` and ``nchunks`` are accepted for the CPU
    signature and ignored (every level runs on the whole GPU). ``state``:
    ``new_state(n)`` to reuse across batches (``shared_state`` keeps one
    between calls). ``lanes``: lanes per vertex of the bottom-up step over
    t (None: ``pull_lanes``). ``schedule``: "levels" (a launch per step,
    the direction per source); "coop": the whole traversal in one
    cooperative launch (``msbfs_coop``: top-down only, one grid barrier a
    level), for graphs of long diameter, where the levels' launches cost
    more than their work (``t`` unused); "async": the batch's BFSs side by
    side, each label-correcting with no barrier at all
    (``bfs_async.traverse``; its own rows of levels: the bit-parallel status
    words need levels in step), falling back to "coop" when its work list
    fills. ``stats``: a ``bitgraph.Stats`` to fill (its ``trace`` asks for
    per-level records in ``stats.traces``, and makes the host wait for
    every level).

    >>> lv, count, total, ecc = batch_run(a, t, [0, 5])  # doctest: +SKIP
    """
    import cupy

    where = "msbfs batch_run(cuda)"
    n = int(a.nrows)
    if schedule not in SCHEDULES:
        raise ValueError(f"{where}: schedule={schedule!r}; expected one of {SCHEDULES}")
    if cfg is None or async_cfg is None:
        from bitgraph.settings import current

        cfg = current().msbfs_cuda if cfg is None else cfg
        async_cfg = current().bfs_async if async_cfg is None else async_cfg
    src = np.asarray(sources.get() if hasattr(sources, "get") else sources).astype(
        np.int64, copy=False).reshape(-1)
    k = src.size
    if not 0 < k <= 64:
        raise ValueError(f"msbfs batch_run: a batch holds 1..64 sources, got {k}")
    if src.min() < 0 or src.max() >= n:
        raise ValueError(f"{where}: sources must lie in [0, {n})")
    if write:
        if levels is None:
            levels = cupy.empty((k, n), np.int32)
            rows = np.arange(k, dtype=np.int64)
        if not isinstance(levels, cupy.ndarray) or levels.dtype != np.int32 \
                or not levels.flags.c_contiguous:
            raise ValueError("msbfs batch_run: levels must be a C-contiguous int32 CuPy array")
        rows_h = np.asarray(rows.get() if hasattr(rows, "get") else rows).astype(
            np.int64, copy=False).reshape(-1)
        check_length(where, "rows", rows_h, k)
        if rows_h[:k].min() < 0 or (int(rows_h[:k].max()) + 1) * n > levels.size:
            raise ValueError(f"{where}: rows must index rows of levels ({levels.size // max(n, 1)}"
                             f" rows of {n})")
        flat_ptr = levels.data.ptr
    else:
        rows_h = np.zeros(k, np.int64)
        flat_ptr = _dummy_levels().data.ptr
    keep = state is not None
    if state is None:
        state = new_state(n, cfg=cfg)
    if schedule == "async":
        got = _side_by_side(a, src, rows_h, write, levels, async_cfg, stats)
        if got is not None:
            return got
    if schedule != "levels":
        return _coop(a, state, src, rows_h, flat_ptr, write, levels, cfg, stats)
    if stats is not None:
        stats.ran(("msbfs", "csr", "cuda", "batch"))
        stats.metrics["schedule"] = "levels"
    (idx, it, indptr, indices, m, tindptr, tindices, group, kern,
     settle_grid, push_grid, pull_grid, views, chunks, graph_key) = _prepare(
        a, t, state, lanes, n, where, keep)
    planes, seen, touched, wtouched, qa, qb, ctr, stats_d = state
    R = planes.shape[0]
    f_start, f_settle, f_flush, f_push, f_pull, f_advance, f_clear, sms = kern
    head_ptr, heads, events, ghead, args_h, args_d, _, stats_h = _pinned()
    plane, slot, slot_ptr, queues = views
    # level L's steps read queue[(L - 1) % 2], its settle fills queue[L % 2]
    queue = queues[idx == np.int32]
    span = min(cfg.flush_span, R - 1)
    GRAPH_LEVELS, HEAD_LEVELS, HEAD_FLUSH = cfg.graph_levels, cfg.head_levels, cfg.head_flush
    FLUSH_SPAN, DENSE_PLANE, LEAD = cfg.flush_span, cfg.dense_plane, cfg.lead
    # the arguments (msbfs.cu's A_*; the previous batch's copy is done: it
    # ended with a synchronous read)
    args_h[:k] = src
    args_h[_A_ROWS:_A_ROWS + k] = rows_h[:k]
    args_h[_A_BASE] = 0
    args_h[_A_LEVELS] = flat_ptr
    stream = cupy.cuda.get_current_stream()
    stream_ptr = stream.ptr
    cupy.cuda.runtime.memcpyAsync(args_d.data.ptr, args_h.ctypes.data, _ARGS * 8, 1, stream_ptr)
    big = 2.0**62
    alpha = cfg.alpha if alpha is None else alpha
    all_pull = cfg.all_pull if all_pull is None else all_pull
    alpha_m = np.int64(min(max(alpha, 0.0) * m, big))
    all_pull_m = np.int64(min(max(all_pull, 0.0) * m, big))
    push_only = np.int64(big)
    trace = stats.traces if stats is not None and stats.trace else None
    # the replayed levels need 16 planes (a state of fewer, when memory is
    # short, runs every level from the host) and no per-level trace
    graph = cfg.graph and trace is None and R == 16 and span == FLUSH_SPAN
    graph_pull = bool(cfg.graph_pull)
    base = 0  # the level base in args (msbfs.cu: A_BASE) once the replays are done

    def settle(level, rel, direct=True):
        # level `level`, passed as `rel` past the base; direct=False: the
        # next level goes top-down (the levels replayed as a graph without
        # a pull step)
        a_m, p_m = (alpha_m, all_pull_m) if direct else (push_only, push_only)
        f_settle((settle_grid,), (_BLOCK,),
                 (touched, wtouched, indptr, plane[level % R], seen, queue[level % 2], chunks,
                  slot[level % 3], slot[(level + 1) % 3], slot[(level + 2) % 3], stats_d, args_d,
                  np.int64(n), np.int32(k), np.int32(rel), a_m, p_m))

    def copy_head(level, sp):
        # the slot's head to the host, without waiting for it
        cupy.cuda.runtime.memcpyAsync(head_ptr[level % _RING], slot_ptr[level % 3], 64, 2, sp)

    def report(level):
        copy_head(level, stream_ptr)
        events[level % _RING].record(stream)

    def flush(first, count, keep, final, zmask=0xFFFF, at=0, dense_q=0):
        # levels first .. first + count - 1, with the base in args at `at`
        # (count < 0: msbfs.cu's flush of the first levels)
        smem = _stage_bytes(abs(count), final)
        f_flush((_grid(n, _wave(f_flush, sms, smem)),), (_BLOCK,),
                (planes, np.int64(n), np.int32(R), np.int32(first - at), np.int32(count),
                 np.int32(keep), np.uint32(zmask), wtouched, seen, args_d, stats_d,
                 np.int64(dense_q), np.int32(k), np.bool_(write), np.bool_(final)),
                shared_mem=smem)

    def push(level):
        f_push((push_grid,), (_BLOCK,),
               (queue[(level - 1) % 2], chunks, indptr, indices, plane[(level - 1) % R], seen,
                plane[level % R], touched, slot[(level + 2) % 3], np.int32(sms)))

    def steps(level, mid=None):
        # the frontier is plane (level - 1) % R, the new bits go to level % R
        cur, nxt, prev = plane[(level - 1) % R], plane[level % R], slot[(level + 2) % 3]
        f_pull((pull_grid,), (_BLOCK,), (tindptr, tindices, cur, seen, nxt, touched,
                                         np.int64(n), np.int32(group), prev, slot[level % 3]))
        if mid is not None:
            mid.record()
        push(level)

    # what every captured launch bakes in: the pull step's and the
    # direction rule's part of it only where the graph has pull steps
    baked = graph_key[0] + (k, span)
    pulled = graph_key[1] + (int(alpha_m), int(all_pull_m))

    def head_levels(sp):
        # levels 0 .. HEAD_LEVELS as the loop below launches them (no flush
        # falls in them: HEAD_LEVELS <= span), each slot's head copied;
        # with levels to write, then the final flush of the traversal that
        # ends within them (msbfs.cu: count < 0; a longer one's is a no-op):
        # no wait for the host between the last level and the flush
        f_start((1,), (64,), (args_d, np.int32(k), plane[0], touched, ctr, stats_d))
        settle(0, 0)
        copy_head(0, sp)
        for lv in range(1, HEAD_LEVELS + 1):
            steps(lv)
            settle(lv, lv)
            copy_head(lv, sp)
        if write and HEAD_FLUSH:
            flush(0, -HEAD_LEVELS, -1, True, 0, dense_q=n // DENSE_PLANE)
            cupy.cuda.runtime.memcpyAsync(stats_h.ctypes.data, stats_d.data.ptr, _STATS * 8, 2, sp)

    def block_levels(sp):
        # levels GRAPH_LEVELS .. 2 * GRAPH_LEVELS - 1 as run by the loop
        # below (flushes every FLUSH_SPAN; top-down unless graph_pull), at
        # base GRAPH_LEVELS: the graph serves every later block of
        # GRAPH_LEVELS levels, with the base moved on by its last node
        first_c, at = GRAPH_LEVELS - FLUSH_SPAN, GRAPH_LEVELS
        for lv in range(GRAPH_LEVELS, 2 * GRAPH_LEVELS):
            if lv - first_c > span:
                flush(first_c, lv - 1 - first_c, (lv - 1) % R, False, at=at)
                first_c = lv - 1
            steps(lv) if graph_pull else push(lv)
            settle(lv, lv - at, direct=graph_pull)
        last = 2 * GRAPH_LEVELS - 1
        cupy.cuda.runtime.memcpyAsync(ghead.ctypes.data, slot_ptr[last % 3], 64, 2, sp)
        f_advance((1,), (1,), (args_d, np.int32(GRAPH_LEVELS)))

    def replay():
        # the blocks of GRAPH_LEVELS levels from level GRAPH_LEVELS on, until
        # one's last level found nothing (the levels past the last one do
        # nothing); returns the base after the last block
        body = _graph("graph", baked + (GRAPH_LEVELS, bool(write), pulled if graph_pull else None,
                                        ghead.ctypes.data), block_levels)
        f_advance((1,), (1,), (args_d, np.int32(GRAPH_LEVELS)))
        at, flight = GRAPH_LEVELS, []
        while True:
            body.launch(stream)
            flight.append(events[(at // GRAPH_LEVELS) % _RING])
            flight[-1].record(stream)
            at += GRAPH_LEVELS
            if len(flight) > cfg.graph_lead:
                # the head is the oldest block's or a later one's: either
                # way, 0 means every level launched after it does nothing
                flight.pop(0).synchronize()
                if ghead[_NQ] == 0:
                    return at

    level = checked = first = 0  # first: the oldest level not written out
    end = None  # the first level that found nothing, where the host saw it
    first_graph = trace is None and 0 < HEAD_LEVELS <= span
    if first_graph:
        # the first levels at once; the loop below then reads their heads
        # (their ring events are done: recorded and waited for by earlier
        # calls, or never recorded)
        _graph("head", baked + (HEAD_LEVELS, bool(write and HEAD_FLUSH), pulled, head_ptr[0]),
               head_levels).launch(stream)
        events[0].record(stream)
        if write and HEAD_FLUSH:
            # the dense planes of a traversal that ended in the graph: the
            # host returns without waiting for their zeroing
            f_clear((_grid(n, _wave(f_clear, sms)),), (_BLOCK,),
                    (planes, np.int64(n), np.int32(R), stats_d, np.int64(n // DENSE_PLANE),
                     np.int32(HEAD_LEVELS)))
        events[0].synchronize()
        level = HEAD_LEVELS
    else:
        if trace is not None:
            ev = [cupy.cuda.Event() for _ in range(4)]
            ev[0].record()
        f_start((1,), (64,), (args_d, np.int32(k), plane[0], touched, ctr, stats_d))
        if trace is not None:
            ev[1].record()
        settle(0, 0)
        report(0)
        if trace is not None:
            events[0].synchronize()
            trace.append((0, "start", 0, 0, cupy.cuda.get_elapsed_time(ev[0], ev[1]), 0.0, 0,
                          0.0))
    nq = []  # per level checked: its queue size
    while True:
        # stop at the first level that found nothing; wait only for the
        # level LEAD behind the last one launched (for every level before
        # the graph takes over)
        done = False
        into_graph = graph and level == GRAPH_LEVELS - 1
        while checked <= level:
            e = events[checked % _RING]
            if checked + LEAD <= level or trace is not None or into_graph:
                e.synchronize()
            elif not e.done:
                break
            nq.append(int(heads[checked % _RING, _NQ]))
            if nq[-1] == 0:
                done, end = True, checked
                break
            checked += 1
        if done:
            break
        if into_graph:
            assert first == GRAPH_LEVELS - FLUSH_SPAN
            base = replay()
            level, first = base - 1, base - FLUSH_SPAN
            break
        level += 1
        if level - first > span:  # the new level's plane must not hold an unwritten one
            flush(first, level - 1 - first, (level - 1) % R, False)
            first = level - 1
        head = heads[(level - 1) % _RING].copy() if trace is not None else None
        if trace is not None:
            ev[0].record()
        steps(level, ev[3] if trace is not None else None)
        if trace is not None:
            ev[1].record()
        settle(level, level, direct=graph_pull or not (graph and level == GRAPH_LEVELS - 1))
        report(level)
        if trace is not None:
            ev[2].record()
            ev[2].synchronize()
            pb, qb_ = (int(head[_PULL].view(np.uint64)).bit_count(),
                       int(head[_PUSH].view(np.uint64)).bit_count())
            trace.append((level, f"pull {pb} push {qb_}", int(head[_NQ]), int(head[_MF]),
                          cupy.cuda.get_elapsed_time(ev[0], ev[1]),
                          cupy.cuda.get_elapsed_time(ev[1], ev[2]),
                          int(heads[level % _RING, _SCANNED]),
                          cupy.cuda.get_elapsed_time(ev[0], ev[3])))
    if trace is not None:
        ev[0].record()
    # the window's planes: the final flush zeroes the words it read of the
    # sparse ones, memsets clear the dense ones (DENSE_PLANE; the replayed
    # levels' sizes are not known: sparse);
    # without levels to write, memsets clear them all (and seen and the marks).
    # The levels from `end` on found nothing: their planes are zero and stay
    # out of the window (each would cost the flush a read of 8 n bytes)
    window = range(first, level + 1) if end is None else range(first, max(first, end))
    # a traversal that ended within the first levels was flushed by their
    # graph, which also copied the statistics; msbfs_clear, launched before
    # the host waited, zeroes the dense planes (the same rule)
    if write and first_graph and HEAD_FLUSH and end is not None and end <= HEAD_LEVELS:
        st = stats_h
    else:
        dense = [j for j, lv in enumerate(window)
                 if not write or (lv < len(nq) and nq[lv] >= n // DENSE_PLANE)]
        if write:
            sparse = sum(1 << j for j in range(len(window)) if j not in dense)
            flush(first, len(window), -1, True, sparse, at=base)
        for x in [plane[(first + j) % R] for j in dense] + ([] if write else [seen, wtouched]):
            cupy.cuda.runtime.memsetAsync(x.data.ptr, 0, x.nbytes, stream_ptr)
        st = None
    if trace is not None:
        ev[1].record()
        ev[1].synchronize()
        trace.append((level + 1, "final flush", 0, 0, 0.0, cupy.cuda.get_elapsed_time(ev[0], ev[1]),
                      0, 0.0))
    if st is None:
        st = stats_d.get()
    count = st[0:k].copy()
    total = st[_S_TOTAL:_S_TOTAL + k].copy()
    ecc = st[_S_ECC:_S_ECC + k].copy()
    return (levels if write else None), count, total, ecc
