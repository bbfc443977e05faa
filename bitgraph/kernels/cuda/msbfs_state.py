"""The msbfs launcher's device state and caches, shared by ``msbfs.py``
(``batch_run``) and its schedules (``msbfs_levels.py``, ``msbfs_coop.py``,
``msbfs_async.py``).

``State`` is a batch's device scratch (``new_state``; ``shared_state``
keeps one between calls). Everything else here is a cache: it never
changes a result, only what a call spends on the host before its first
kernel (a kron-22 batch takes ~2.4 ms on the GPU; the host's part was
~0.2 ms before these lookups were kept). Each is valid if present, and all
are reached through ``CACHES``:

- per device (``Device``): the kernels of a batch per index type, with the
  multiprocessor count (``Kernels``), the blocks per multiprocessor of each
  kernel and shared-memory size (``Kernels.wave``), the cooperative
  kernels, the result address of a batch that writes no levels;
- per device and thread (``Workspace``): the page-locked buffers
  (``Pinned``), the hubs' chunk list, the cooperative launch's control
  words and vertex records, the side-by-side schedule's scratch rows, and
  the last batch's ``Prepared`` (``msbfs_levels``);
- per device, stream and thread: the states ``shared_state`` keeps;
- captured CUDA graphs (``Graphs``: the first levels', the replayed
  block's), keyed by every value their launches bake in.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

from bitgraph.kernels.cuda import captured, module, multiprocessors  # noqa: F401 (msbfs_levels)
from bitgraph.kernels.cuda.constants import MSBFS

__all__ = ["State", "new_state", "shared_state"]

SOURCE = "msbfs.cu"
INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
NAMES = tuple(f"msbfs_{k}<{i}>" for i in INDEX.values()
              for k in ("start", "settle", "push", "pull", "coop")) + (
    "msbfs_flush", "msbfs_advance", "msbfs_clear")
SPECS = ((SOURCE, NAMES),)  # what module() is asked for (precompile.py)

# layout shared with msbfs.cu (constants.MSBFS): counter slots (nq, mf,
# active, scanned, pull, push, ..., cnt[64], out-edges[64]), statistics
# (count[64], total[64], ecc[64], the queue sizes of levels 0..63),
# arguments (sources, rows, level base, result address)
NQ, MF, ACTIVE, SCANNED, PULL, PUSH = (MSBFS[c] for c in (
    "C_NQ", "C_MF", "C_ACTIVE", "C_SCANNED", "C_PULL", "C_PUSH"))
CTR, STATS, ARGS = MSBFS["CTR"], MSBFS["STATS"], MSBFS["ARGS"]
S_TOTAL, S_ECC = MSBFS["S_TOTAL"], MSBFS["S_ECC"]
A_ROWS, A_BASE, A_LEVELS = MSBFS["A_ROWS"], MSBFS["A_BASE"], MSBFS["A_LEVELS"]
CHUNK = MSBFS["CHUNK"]  # a hub's out-edges per chunk entry
BLOCK = MSBFS["BLOCK"]  # threads per block (the block scans assume it)
RING = 16  # levels whose counters are in flight to the host (> head_levels)


# ---------------------------------------------------------------- the state


class State:
    """A batch's device scratch (``new_state``), reusable by the next batch
    on the same stream (``batch_run`` leaves it zeroed): the frontier planes
    uint64[R, n], seen uint64[n], touched and the flush's marks
    ``wtouched`` uint32[ceil(n / 32)], two queues ``qa``, ``qb`` int64[n]
    (viewed as int32 for int32 indices), the counter slots ``ctr``
    int64[3, CTR] and the statistics ``stats`` int64[STATS].

    >>> state = new_state(1000, 4)  # doctest: +SKIP
    >>> state.planes.shape, state.seen.shape  # doctest: +SKIP
    ((4, 1000), (1000,))
    """

    __slots__ = ("planes", "seen", "touched", "wtouched", "qa", "qb", "ctr", "stats", "_views")

    def __init__(self, planes, seen, touched, wtouched, qa, qb, ctr, stats):
        self.planes, self.seen, self.touched, self.wtouched = planes, seen, touched, wtouched
        self.qa, self.qb, self.ctr, self.stats = qa, qb, ctr, stats
        self._views = None

    def views(self) -> Views:
        """The state's planes, counter slots and queues as arrays of their
        own (``Views``), made on first use and kept with the state.

        >>> state.views().plane[0].shape  # doctest: +SKIP
        (1000,)
        """
        if self._views is None:
            self._views = Views(self)
        return self._views


class Views:
    """Each frontier plane (``plane[i]``) and counter slot (``slot[i]``, and
    its address ``slot_ptr[i]``) of a state as its own array, and its two
    queues as int64 and as int32 (``queues[int32-ness]``), made once per
    state: a CuPy slice costs microseconds of host time, and each level
    took eight, which the GPU waited for on the small levels.

    >>> views = Views(new_state(1000, 4)); len(views.plane)  # doctest: +SKIP
    4
    """

    __slots__ = ("plane", "slot", "slot_ptr", "queues")

    def __init__(self, state: State):
        planes, ctr, qa, qb = state.planes, state.ctr, state.qa, state.qb
        self.plane = [planes[i] for i in range(planes.shape[0])]
        self.slot = [ctr[i] for i in range(3)]
        self.slot_ptr = [x.data.ptr for x in self.slot]
        self.queues = ((qa, qb), (qa.view(np.int32), qb.view(np.int32)))


def new_state(n: int, planes: int | None = None, cfg=None) -> State:
    """Device scratch of a batch, reusable by the next (``batch_run`` leaves
    it zeroed): a ``State`` of R = ``planes`` frontier planes (default
    ``cfg.planes`` of the ``MSBFSCuda`` settings, or what a quarter of the
    free GPU memory holds, at least 2). (8 R + 25) n bytes.

    >>> state = new_state(1000)  # doctest: +SKIP
    >>> state.planes.shape  # doctest: +SKIP
    (16, 1000)
    """
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
    with oom_guard("msbfs(cuda)", (8 * planes + 25) * n + 8 * (3 * CTR + STATS)):
        return State(cupy.zeros((planes, n), np.uint64), cupy.zeros(n, np.uint64),
                     cupy.zeros(words, np.uint32), cupy.zeros(words, np.uint32),
                     cupy.empty(max(n, 1), np.int64), cupy.empty(max(n, 1), np.int64),
                     cupy.zeros((3, CTR), np.int64), cupy.zeros(STATS, np.int64))


@contextlib.contextmanager
def shared_state(n: int, cfg=None, slot: int = 0):
    """``new_state(n)`` kept between calls on the same device, stream and
    thread (one n at a time; ``slot`` 0 or 1: the two states of batches in
    flight together, ``pipelined``): a call reuses the zeroed scratch
    instead of allocating and clearing (8 R + 25) n bytes again (kron-22,
    16 planes: 0.6 GB, ~0.2 ms of memset a call). A batch that raises may
    leave it dirty, so the state is dropped then. A batch may return while
    its last zeroing runs on the stream (``msbfs_levels``), so a state stays
    on the stream it was made for.

    >>> with shared_state(1000) as state:  # doctest: +SKIP
    ...     batch_run(a, t, [0, 5], state=state)
    """
    key = _state_key() + (slot,)
    got = CACHES.states.pop(key, None)  # popped: a nested call gets its own
    if got is None or got[0] != n:
        got = None  # the old one's memory back before the new one's
        got = (n, new_state(n, cfg=cfg))
    yield got[1]
    CACHES.states[key] = got  # reached only when the batches returned: state zeroed


def _state_key() -> tuple:
    # a state's device, stream and thread (CACHES.states is keyed by these and a slot)
    import cupy

    return (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr,
            threading.get_ident())


def pipelined(n: int, cfg) -> bool:
    """Whether a call of several "levels" batches keeps two in flight
    (``cfg.pipeline``, the ``MSBFSCuda`` settings): the next batch's first
    levels queued before the host reads the last one's, on a second state
    (``shared_state(n, cfg, 1)``), kept already or sized as ``new_state``
    sizes one (a quarter of the free GPU memory, the first state's taken
    out when it is not kept) to ``cfg.planes`` planes.

    >>> pipelined(1000, MSBFSCuda(pipeline=False))  # doctest: +SKIP
    False
    """
    import cupy

    if not cfg.pipeline:
        return False
    key = _state_key()
    got = CACHES.states.get(key + (1,))
    if got is not None and got[0] == n:
        return True
    free, row = cupy.cuda.runtime.memGetInfo()[0], 8 * max(n, 1)
    got = CACHES.states.get(key + (0,))
    if got is None or got[0] != n:  # the first state is made first
        free -= (8 * max(2, min(cfg.planes, free // 4 // row)) + 25) * n
    return free // 4 // row >= cfg.planes


# ---------------------------------------------------------------- caches


class Kernels:
    """The kernels of a batch of one index type on one device (start,
    settle, flush, push, pull, advance, clear) and the multiprocessor count
    ``sms``, looked up once per device: each lookup costs microseconds of
    the call, before its first kernel.

    >>> kernels("int").sms  # doctest: +SKIP
    132
    """

    __slots__ = ("start", "settle", "flush", "push", "pull", "advance", "clear", "sms",
                 "occupancy")

    def __init__(self, it: str, occupancy: dict):
        mod, lowered = module(SOURCE, NAMES)

        def fn(name):
            return mod.get_function(lowered[name])

        self.start, self.settle = fn(f"msbfs_start<{it}>"), fn(f"msbfs_settle<{it}>")
        self.flush, self.push = fn("msbfs_flush"), fn(f"msbfs_push<{it}>")
        self.pull, self.advance = fn(f"msbfs_pull<{it}>"), fn("msbfs_advance")
        self.clear, self.sms = fn("msbfs_clear"), multiprocessors()
        self.occupancy = occupancy  # the device's (Device.occupancy)
        _allow_stage(self.flush)

    def wave(self, fn, smem=0) -> int:
        """Blocks of ``fn`` (with ``smem`` bytes of dynamic shared memory)
        resident on the whole GPU at once: the grids of the grid-stride
        kernels, so that no partial second wave of blocks runs after the
        first (measured: the flush at 1,056 blocks and 6 per multiprocessor
        ran 1.33 waves).

        >>> kern.wave(kern.flush, stage_bytes(15, False))  # doctest: +SKIP
        """
        per_sm = self.occupancy.get((fn.ptr, smem))
        if per_sm is None:
            from cupy.cuda import driver

            per_sm = self.occupancy[(fn.ptr, smem)] = max(
                1, driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.ptr, BLOCK, smem))
        return per_sm * self.sms


def stage_bytes(count, final):
    """msbfs_flush's dynamic shared memory: per warp two stages of a word
    per lane for each of the ``count`` planes (and seen when ``final``).

    >>> stage_bytes(16, True)  # the largest: 16 planes and seen
    69632
    """
    return (BLOCK // 32) * 2 * (count + bool(final)) * 32 * 8


def _allow_stage(fn):
    # the largest stage (16 planes and seen) is more than the 48 KB a
    # kernel may ask for without opting in
    from cupy.cuda import driver

    driver.funcSetAttribute(fn.ptr, getattr(
        driver, "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES", 8), stage_bytes(16, True))


def grid(items, cap):
    """Blocks of BLOCK threads for ``items`` threads' work, at least 1, at
    most ``cap`` (a wave).

    >>> grid(1000, 2), grid(1000, 100), grid(0, 8)
    (2, 4, 1)
    """
    return max(1, min((items + BLOCK - 1) // BLOCK, cap))


class Device:
    """One device's cache: ``kernels`` (index C type -> ``Kernels``),
    ``occupancy`` ((kernel address, shared memory) -> blocks per
    multiprocessor), ``coop`` (index C type -> msbfs_coop), ``dummy`` (the
    result address of a batch that writes no levels: never stored to).

    >>> sorted(device().kernels)  # doctest: +SKIP
    ['int']
    """

    __slots__ = ("kernels", "occupancy", "coop", "dummy")

    def __init__(self):
        self.kernels, self.occupancy, self.coop, self.dummy = {}, {}, {}, None


class Pinned:
    """Page-locked host memory of one device and thread: the ring of
    counter heads (``heads``: 8 words of a level's slot, their addresses
    ``head_ptr``) and its ``events``, the head of a graph replay's last
    level (``ghead``), the batch's arguments (``args``: ARGS words, msbfs.cu's
    A_*) on their way to the device buffer ``args_d`` (no synchronous copy
    before the first kernel), and the statistics (``stats``) copied by the
    first levels' graph or the cooperative launch.

    >>> workspace().pinned().args.size == ARGS  # doctest: +SKIP
    True
    """

    __slots__ = ("mem", "heads", "head_ptr", "events", "ghead", "args", "args_d", "stats")

    def __init__(self):
        import cupy

        mem = self.mem = cupy.cuda.alloc_pinned_memory(RING * 64 + 64 + ARGS * 8 + STATS * 8)
        self.heads = np.frombuffer(mem, np.int64, RING * 8).reshape(RING, 8)
        self.head_ptr = [self.heads[i].ctypes.data for i in range(RING)]
        self.events = [cupy.cuda.Event(disable_timing=True) for _ in range(RING)]
        self.ghead = np.frombuffer(mem, np.int64, 8, offset=RING * 64)
        self.args = np.frombuffer(mem, np.int64, ARGS, offset=RING * 64 + 64)
        self.args_d = cupy.empty(ARGS, np.int64)
        self.stats = np.frombuffer(mem, np.int64, STATS, offset=RING * 64 + 64 + ARGS * 8)


class Workspace:
    """One device's and thread's buffers, each made on first use:
    ``pinned(slot)`` (``Pinned``), ``chunk_list(m, slot)`` (the hubs' chunk
    list), ``coop_ctl`` (msbfs_coop's queue sizes, level count and grid
    barrier) and ``coop_records`` (its vertices' 32-byte records),
    ``async_rows`` (the side-by-side schedule's scratch rows of levels) and
    ``prepared`` (``msbfs_levels.Prepared`` of the last batches, by their
    ``ident``). ``slot`` (0 or 1): the buffers of one of two batches in
    flight together (``pipelined``), each its own.

    >>> workspace().prepared  # doctest: +SKIP
    {}
    """

    __slots__ = ("_pinned", "chunks", "coop_ctl", "coop_records", "async_rows", "prepared")

    def __init__(self):
        self._pinned, self.chunks = [None, None], [None, None]
        self.coop_ctl = self.coop_records = self.async_rows = None
        self.prepared = {}

    def pinned(self, slot: int = 0) -> Pinned:
        """The ``Pinned`` buffers of ``slot``, made on first use.

        >>> workspace().pinned().heads.shape  # doctest: +SKIP
        (16, 8)
        """
        if self._pinned[slot] is None:
            self._pinned[slot] = Pinned()
        return self._pinned[slot]

    def chunk_list(self, m: int, slot: int = 0):
        """The chunk list of the hubs (msbfs.cu) of ``slot``: at most
        2 m / CHUNK entries, grown on demand (written by a level's settle,
        read by the next level's push: a batch in flight beside another
        has its own).

        >>> workspace().chunk_list(1 << 20).size >= (1 << 21) // CHUNK  # doctest: +SKIP
        True
        """
        import cupy

        need = 2 * m // CHUNK + 2
        if self.chunks[slot] is None or self.chunks[slot].size < need:
            self.chunks[slot] = cupy.empty(need, np.uint64)
        return self.chunks[slot]


class Graphs:
    """Captured CUDA graphs by kind: ``head`` (the first levels) and
    ``block`` (a block of replayed levels), each a dict from the values the
    launches bake in to the graph.

    >>> len(Graphs().block)
    0
    """

    __slots__ = ("head", "block")

    def __init__(self):
        self.head, self.block = {}, {}


class Caches:
    """Every cache of the msbfs launcher (module docstring): ``devices``
    (device -> ``Device``), ``workspaces`` ((device, thread) ->
    ``Workspace``), ``states`` ((device, stream, thread) -> (n, ``State``)),
    ``graphs`` (``Graphs``).

    >>> Caches().states
    {}
    """

    __slots__ = ("devices", "workspaces", "states", "graphs")

    def __init__(self):
        self.devices, self.workspaces, self.states, self.graphs = {}, {}, {}, Graphs()


CACHES = Caches()


def device() -> Device:
    """The current device's ``Device`` cache.

    >>> device().occupancy  # doctest: +SKIP
    {}
    """
    import cupy

    dev = cupy.cuda.runtime.getDevice()
    got = CACHES.devices.get(dev)
    if got is None:
        got = CACHES.devices[dev] = Device()
    return got


def kernels(it: str) -> Kernels:
    """The current device's ``Kernels`` of index C type ``it``.

    >>> kern = kernels("int"); kern.wave(kern.settle)  # doctest: +SKIP
    264
    """
    dev = device()
    got = dev.kernels.get(it)
    if got is None:
        got = dev.kernels[it] = Kernels(it, dev.occupancy)
    return got


def coop_kernel(it: str):
    """The current device's msbfs_coop of index C type ``it``.

    >>> fn = coop_kernel("long long")  # doctest: +SKIP
    """
    dev = device()
    got = dev.coop.get(it)
    if got is None:
        mod, lowered = module(SOURCE, NAMES)
        got = dev.coop[it] = mod.get_function(lowered[f"msbfs_coop<{it}>"])
    return got


def dummy_levels():
    """The result's address when no levels are written (never stored to).

    >>> ptr = dummy_levels().data.ptr  # doctest: +SKIP
    """
    import cupy

    dev = device()
    if dev.dummy is None:
        dev.dummy = cupy.zeros(1, np.int32)
    return dev.dummy


def workspace() -> Workspace:
    """The current device's and thread's ``Workspace``.

    >>> args = workspace().pinned().args  # doctest: +SKIP
    """
    import cupy

    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    got = CACHES.workspaces.get(key)
    if got is None:
        got = CACHES.workspaces[key] = Workspace()
    return got
