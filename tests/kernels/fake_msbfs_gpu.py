"""An emulated GPU for the msbfs launcher (``kernels/cuda/msbfs.py`` and its
modules ``msbfs_state``, ``msbfs_levels``, ``msbfs_coop``, ``msbfs_async``,
and ``kernels/cuda/bfs_async.py`` for its side-by-side batches; and
``kernels/cuda/bfs_window.py``, bfs's windowed kernel), so that
its host side runs on the CPU: the levels' schedule (steps, settles,
counter slots, queues, frontier planes, flushes), the CUDA graph of the
replayed levels (captured, then replayed) and the level base in the args
buffer.

``emulated_gpu(monkeypatch)`` puts a stand-in ``cupy`` in ``sys.modules``
(numpy arrays in host memory, so that the launcher's raw pointers are real
addresses: copies and memsets go through ``ctypes``), and gives the
launcher a module whose kernels compute what ``msbfs.cu``'s kernels
compute, one level step at a time with numpy: what each writes (the next
plane, seen, the queue, the counters, the levels), not how. Streams run
their work at once; a capturing stream records it, and a graph's launch
runs the record again. The kernels' constants are read from msbfs.cu (with
its generated headers, as NVRTC compiles it), and every launch's arguments
are checked against its parameters there (count, pointee dtypes, scalar
sizes).

Not emulated: the hubs' chunk lists (the push walks every row whole), timing. What the emulation cannot
tell: whether the real kernels compute these results, and whether CuPy and
the driver accept the captured work (the GPU tests, ``tests/gpu``).
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import re
import sys
import types

import numpy as np

from bitgraph.kernels.cuda import source_text

_CU = source_text("msbfs.cu")
_ASYNC_CU = source_text("bfs_async.cu")
_WINDOW_CU = source_text("bfs_window.cu")
_NS = _CU.split("namespace msbfs {")[1].split("}  // namespace msbfs")[0]
_CONST = r"\b([A-Z][A-Z_]*)\s*=\s*(\d+)(?=[,;])"
K = {name: int(value) for name, value in re.findall(_CONST, _NS)}
KA = {name: int(value) for name, value in re.findall(
    _CONST, _ASYNC_CU.split("namespace bfs_async {")[1].split("}  // namespace bfs_async")[0])}
K["DEG_CAP"] = 1 << int(re.search(r"DEG_CAP = 1u << (\d+);", _CU).group(1))
KW = {name: int(value) for name, value in re.findall(
    _CONST, _WINDOW_CU.split("namespace bfs_window {")[1].split("}  // namespace bfs_window")[0])}
U64 = np.uint64


class _Mem:
    def __init__(self, ptr):
        self.ptr = ptr


class FakeArray(np.ndarray):
    """A numpy array with CuPy's ``.data.ptr`` and ``.get()``."""

    @property
    def data(self):
        return _Mem(self.__array_interface__["data"][0])

    def get(self):
        return np.array(self)


def _fa(x):
    return x.view(FakeArray)


def _u(x):
    return x.view(np.uint64)


class _Stream:
    _ids = itertools.count(1)

    def __init__(self, non_blocking=False, _null=False):
        self.ptr = 0 if _null else next(self._ids)
        self.record = None

    def __enter__(self):
        _STATE.current.append(self)
        return self

    def __exit__(self, *exc):
        _STATE.current.pop()

    def begin_capture(self, mode=None):
        self.record = []

    def end_capture(self):
        ops, self.record = self.record, None
        return _Graph(ops)

    def synchronize(self):
        pass


class _Graph:
    def __init__(self, ops):
        self.ops = ops
        _STATE.graphs += 1

    def launch(self, stream=None):
        _STATE.replays += 1
        for op in self.ops:
            _submit(stream, op)


class _Event:
    done = True

    def __init__(self, *a, **kw):
        pass

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass


class _State:
    def __init__(self):
        self.null = _Stream(_null=True)
        self.current = [self.null]
        self.graphs = 0
        self.replays = 0
        self.launches = 0
        self.async_k = 0  # sources of the last bfs_async_start


_STATE = _State()


def _stream_of(ptr):
    for s in reversed(_STATE.current):
        if s.ptr == ptr:
            return s
    return _STATE.null


def _submit(stream, op):
    s = stream if stream is not None else _STATE.current[-1]
    if s.record is not None:
        s.record.append(op)
    else:
        op()


def _memcpy(dst, src, nbytes, kind, stream):
    _submit(_stream_of(stream), lambda: ctypes.memmove(dst, src, nbytes))


def _memset(ptr, value, nbytes, stream):
    _submit(_stream_of(stream), lambda: ctypes.memset(ptr, value, nbytes))


def _cupy():
    cp = types.ModuleType("cupy")
    cuda = types.ModuleType("cupy.cuda")
    runtime = types.ModuleType("cupy.cuda.runtime")
    driver = types.ModuleType("cupy.cuda.driver")
    memory = types.SimpleNamespace(OutOfMemoryError=MemoryError)
    runtime.getDevice = lambda: 0
    runtime.getDeviceProperties = lambda device: {"clockRate": 1_000_000}
    runtime.memGetInfo = lambda: (1 << 40, 1 << 40)
    runtime.memcpyAsync = _memcpy
    runtime.memsetAsync = _memset
    driver.occupancyMaxActiveBlocksPerMultiprocessor = lambda fn, block, smem: 2
    driver.funcSetAttribute = lambda fn, attr, value: None
    driver.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
    cuda.runtime, cuda.driver, cuda.memory = runtime, driver, memory
    cuda.Stream, cuda.Event = _Stream, _Event
    cuda.get_current_stream = lambda: _STATE.current[-1]
    cuda.get_elapsed_time = lambda start, stop: 1.0  # no timing
    cuda.alloc_pinned_memory = lambda nbytes: bytearray(nbytes)
    cp.cuda = cuda
    cp.ndarray = FakeArray
    cp.asarray = lambda x, dtype=None: _fa(np.asarray(x.get() if isinstance(x, FakeArray) else x,
                                                      dtype))
    cp.ascontiguousarray = lambda x, dtype=None: _fa(np.ascontiguousarray(x, dtype))
    cp.zeros = lambda shape, dtype=float: _fa(np.zeros(shape, dtype))
    cp.empty = lambda shape, dtype=float: _fa(np.zeros(shape, dtype))  # zeroed: reproducible
    cp.full = lambda shape, value, dtype=None: _fa(np.full(shape, value, dtype))
    cp.count_nonzero = np.count_nonzero
    return cp, cuda, runtime, driver


# ---------------------------------------------------------------- kernels


def _bits(words32, n):
    # vertex ids of the set bits of a uint32 bitmap, ascending
    return np.flatnonzero(np.unpackbits(np.asarray(words32).view(np.uint8), bitorder="little")[:n])


def _mark(touched, vs):
    np.bitwise_or.at(touched, vs >> 5, (np.uint32(1) << (vs & 31).astype(np.uint32)))


def k_start(args, k, nxt, touched, ctr, stats):
    ctr.reshape(-1)[:3 * K["CTR"]] = 0
    stats[:K["STATS"]] = 0
    for b in range(int(k)):
        s = int(args[K["A_SOURCES"] + b])
        _u(nxt)[s] |= U64(1) << U64(b)
        touched[s >> 5] |= np.uint32(1 << (s & 31))


def k_settle(touched, wtouched, indptr, nxt, seen, queue, chunks, ctr, ctr_next, ctr_prev, stats,
             args, n, k, level_rel, alpha_m, all_pull_m):
    ctr_next[:] = 0
    cu, cp_, nx, sn = _u(ctr), _u(ctr_prev), _u(nxt), _u(seen)
    if (level_rel > 0 or args[K["A_BASE"]] > 0) and cp_[K["C_PULL"]] == 0 and cp_[K["C_PUSH"]] == 0:
        return
    n = int(n)
    vs = _bits(touched, n)
    wtouched |= touched
    touched[:] = 0
    nq = int(ctr[K["C_NQ"]])
    queue[nq:nq + vs.size] = vs
    ctr[K["C_NQ"]] += vs.size
    nw = nx[vs].copy()
    sn[vs] |= nw
    deg = (indptr[vs + 1] - indptr[vs]).astype(np.int64)
    ctr[K["C_MF"]] += int(deg.sum())
    cu[K["C_ACTIVE"]] |= np.bitwise_or.reduce(nw) if vs.size else U64(0)
    capped = np.minimum(deg, K["DEG_CAP"])
    for b in range(64):
        has = ((nw >> U64(b)) & U64(1)).astype(bool)
        ctr[K["C_CNT"] + b] += int(has.sum())
        ctr[K["C_MFB"] + b] += int(capped[has].sum())
    # the last block's part
    level = int(level_rel) + int(args[K["A_BASE"]])
    active = int(cu[K["C_ACTIVE"]])
    pull, push_edges = 0, 0
    for b in range(64):
        nb = int(ctr[K["C_CNT"] + b]) if b < k else 0
        eb = int(ctr[K["C_MFB"] + b]) if b < k else 0
        if nb:
            stats[K["S_COUNT"] + b] += nb
            stats[K["S_TOTAL"] + b] += nb * level
            stats[K["S_ECC"] + b] = level
        on = (active >> b) & 1
        if on and eb > alpha_m:
            pull |= 1 << b
        elif on:
            push_edges += eb
    push_edges = min(push_edges, int(ctr[K["C_MF"]]))
    if push_edges > all_pull_m:
        pull = active
    cu[K["C_PULL"]] = U64(pull)
    cu[K["C_PUSH"]] = U64(active & ~pull & (2**64 - 1))
    if level < K["S_LEVELS"]:
        stats[K["S_QUEUE"] + level] = ctr[K["C_NQ"]]


def k_push(queue, chunks, indptr, indices, cur, seen, nxt, touched, ctr_prev, sms):
    mask = _u(ctr_prev)[K["C_PUSH"]]
    nq = int(ctr_prev[K["C_NQ"]])
    if not mask or not nq:
        return
    us = np.asarray(queue[:nq], np.int64)
    f = _u(cur)[us] & mask
    us, f = us[f != 0], f[f != 0]
    deg = (indptr[us + 1] - indptr[us]).astype(np.int64)
    if not deg.sum():
        return
    edge = np.repeat(indptr[us].astype(np.int64) - np.r_[0, np.cumsum(deg)[:-1]], deg) + \
        np.arange(int(deg.sum()))
    vs = np.asarray(indices[edge], np.int64)
    bits = np.repeat(f, deg) & ~_u(seen)[vs]
    vs, bits = vs[bits != 0], bits[bits != 0]
    fresh = np.unique(vs[_u(nxt)[vs] == 0])
    np.bitwise_or.at(_u(nxt), vs, bits)
    _mark(touched, fresh)


def k_pull(tindptr, tindices, cur, seen, nxt, touched, n, group, ctr_prev, ctr):
    pull = _u(ctr_prev)[K["C_PULL"]]
    if not pull:
        return
    n = int(n)
    deg = np.diff(np.asarray(tindptr, np.int64))
    acc = np.zeros(n, U64)
    np.bitwise_or.at(acc, np.repeat(np.arange(n), deg), _u(cur)[np.asarray(tindices, np.int64)])
    nw = acc & (pull & ~_u(seen)[:n])
    vs = np.flatnonzero(nw)
    _u(nxt)[vs] |= nw[vs]
    _mark(touched, vs)


def k_flush(planes, n, R, first_rel, count, keep, zmask, wtouched, seen, args, stats, dense_q,
            k, write, final):
    n, R, count, keep, k = int(n), int(R), int(count), int(keep), int(k)
    first = int(first_rel) + int(args[K["A_BASE"]])
    if count < 0:  # the first levels' flush: the window ends at the first empty queue
        q = K["S_QUEUE"]
        ends = [e for e in range(first + 1, min(first - count, K["S_LEVELS"] - 1) + 1)
                if stats[q + e] == 0]
        if not ends:
            return
        count = ends[0] - first
        zmask = sum(1 << j for j in range(count) if stats[q + first + j] < int(dense_q))
    pl = _u(planes)
    mine = np.ones(n, bool) if final else np.unpackbits(
        np.asarray(wtouched).view(np.uint8), bitorder="little")[:n].astype(bool)
    slots = [(first + j) % R for j in range(count)]
    ys = [np.where(mine, pl[s, :n], U64(0)) for s in slots]
    for j, s in enumerate(slots):
        if (int(zmask) >> j) & 1:
            pl[s, :n][mine & (ys[j] != 0)] = 0
    anyw = np.zeros(n, U64)
    for y in ys:
        anyw |= y
    # seen is read only when the window does not start at level 0 (it then
    # holds every bit seen), and zeroed where it was read non-zero
    sn = _u(seen)[:n].copy() if final and first > 0 else anyw
    if final:
        _u(seen)[:n][sn != 0] = 0
        wtouched[:] = 0
    else:
        kept = np.zeros(wtouched.size * 32, np.uint8)
        if keep >= 0:
            kept[:n] = mine & (pl[keep, :n] != 0)
        wtouched[:] = np.packbits(kept, bitorder="little").view(np.uint32)
    if not write:
        return
    rows = [int(args[K["A_ROWS"] + b]) for b in range(k)]
    size = (max(rows) + 1) * n
    out = np.ctypeslib.as_array(ctypes.cast(int(args[K["A_LEVELS"]]),
                                            ctypes.POINTER(ctypes.c_int32)), shape=(size,))
    for b in range(k):
        bit = U64(1) << U64(b)
        row = out[rows[b] * n:(rows[b] + 1) * n]
        for j in range(count):
            row[mine & ((ys[j] & bit) != 0)] = first + j
        if final:
            reached = np.zeros(n, bool)
            for y in ys:
                reached |= (y & bit) != 0
            row[~reached & ((sn & bit) == 0)] = -1


def k_clear(planes, n, R, stats, dense_q, levels):
    q = K["S_QUEUE"]
    ends = [e for e in range(1, min(int(levels), K["S_LEVELS"] - 1) + 1) if stats[q + e] == 0]
    for j in range(ends[0] if ends else 0):
        if stats[q + j] >= int(dense_q):
            planes[j % int(R), :int(n)] = 0


def k_advance(args, by):
    args[K["A_BASE"]] += int(by)


def k_coop(indptr, indices, n, rec, qa, qb, ctl, stats, args, k, write, touched, sweep_min,
           trace, trace_cap, cap):
    # the whole traversal, level by level: each level's new bits are the
    # out-neighbours' OR of the frontier words, less seen (how the kernel
    # queues, claims and sweeps is not emulated); a trace gets level l's
    # "clock" 1000 l and its queue size
    n, k = int(n), int(k)
    indptr, indices = np.asarray(indptr, np.int64), np.asarray(indices, np.int64)
    src = [int(args[K["A_SOURCES"] + b]) for b in range(k)]
    rows = [int(args[K["A_ROWS"] + b]) for b in range(k)]
    seen, cur = np.zeros(n, U64), np.zeros(n, U64)
    for b, s in enumerate(src):
        seen[s] |= U64(1) << U64(b)
        cur[s] |= U64(1) << U64(b)
    stats[:K["S_QUEUE"]] = 0
    stats[K["S_COUNT"]:K["S_COUNT"] + k] = 1
    out = None
    if write:
        size = (max(rows) + 1) * n
        out = np.ctypeslib.as_array(ctypes.cast(int(args[K["A_LEVELS"]]),
                                                ctypes.POINTER(ctypes.c_int32)), shape=(size,))
        for b in range(k):
            out[rows[b] * n:(rows[b] + 1) * n] = -1
        for b, s in enumerate(src):
            out[rows[b] * n + s] = 0
    level = 0
    while True:
        us = np.flatnonzero(cur)
        if int(trace_cap) > level:
            trace[2 * level], trace[2 * level + 1] = 1000 * level, us.size
        if us.size == 0:
            break
        lens = indptr[us + 1] - indptr[us]
        pos = np.repeat(indptr[us] - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
        nxt = np.zeros(n, U64)
        np.bitwise_or.at(nxt, indices[pos], np.repeat(cur[us], lens))
        nxt &= ~seen
        seen |= nxt
        level += 1
        for b in range(k):
            got = (nxt >> U64(b)) & U64(1) != 0
            c = int(got.sum())
            if c:
                stats[K["S_COUNT"] + b] += c
                stats[K["S_TOTAL"] + b] += c * level
                stats[K["S_ECC"] + b] = level
                if write:
                    out[rows[b] * n + np.flatnonzero(got)] = level
        cur = nxt
    ctl[3] = level
    if int(trace_cap) > level:
        trace[2 * level + 1] = 1000 * level + 500
    touched[:] = 0


def _async_rows(level, args, k, n):
    # the k sources' rows of levels (uint32, unreached 0xFFFFFFFF), as views
    rows = [int(args[KA["A_ROWS"] + b]) for b in range(int(k))]
    size = (max(rows) + 1) * int(n)
    flat = np.ctypeslib.as_array(ctypes.cast(level.data.ptr, ctypes.POINTER(ctypes.c_uint32)),
                                 shape=(size,))
    return [flat[r * int(n):(r + 1) * int(n)] for r in rows]


def k_async_reset(level, args, k, n):
    for row in _async_rows(level, args, k, n):
        row[:] = 0xFFFFFFFF


def k_async_start(indptr, level, args, k, n, items, ctrl, stats):
    _STATE.async_k = int(k)
    ctrl[:64] = 0
    ctrl[KA["TAIL"]] = int(k)
    stats[:KA["STATS"]] = 0
    for b, row in enumerate(_async_rows(level, args, k, n)):
        row[int(args[KA["A_SOURCES"] + b])] = 0
        items[2 * b] = 0  # the source's item (its contents are not emulated)


def k_async_run(indptr, indices, level, args, n, items, cap, ctrl, patience, chain_max,
                flags):
    # each source's BFS, level by level (how the kernel relaxes, corrects
    # and chains is not emulated); the work list is full, and the traversal
    # gives up, when it cannot hold an item per (source, vertex) reached
    n, cap = int(n), int(cap)
    assert int(flags) & ~(KA["F_PREFETCH"] | KA["F_CHECK"]) == 0, flags
    k = int(ctrl[KA["TAIL"]])
    # the kernel polls every slot past the sources' until an item lands
    # there: they must all be EMPTY (the launcher clears what the last
    # traversal wrote)
    slots = np.asarray(items).reshape(-1, 2)
    assert (slots[k:cap] == np.uint64(2**64 - 1)).all(), "a slot of the list is not EMPTY"
    indptr, indices = np.asarray(indptr, np.int64), np.asarray(indices, np.int64)
    reached = 0
    for b, row in enumerate(_async_rows(level, args, k, n)):
        cur = np.flatnonzero(row == 0)
        d = 0
        while cur.size:
            d += 1
            lens = indptr[cur + 1] - indptr[cur]
            pos = np.repeat(indptr[cur] - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
            nxt = np.unique(indices[pos])
            nxt = nxt[row[nxt] == 0xFFFFFFFF]
            row[nxt] = d
            cur = nxt
        reached += int(np.count_nonzero(row != 0xFFFFFFFF))
    # a traversal that gives up stops soon after its first append past cap
    tail = reached if reached <= cap else cap + 1
    ctrl[KA["TAIL"]] = ctrl[KA["HEAD"]] = ctrl[KA["DONE"]] = tail
    ctrl[KA["ERROR"]] = int(reached > cap)
    slots[k:min(tail, cap)] = 0  # the items appended (below the tail and cap)


def k_async_stats(level, args, n, stats):
    # the sources are the grid's rows (blockIdx.y): as many as the last start's
    for b, row in enumerate(_async_rows(level, args, _STATE.async_k, n)):
        got = row[row != 0xFFFFFFFF].astype(np.int64)
        stats[KA["S_COUNT"] + b] += got.size
        stats[KA["S_TOTAL"] + b] += int(got.sum())
        stats[KA["S_ECC"] + b] = max(int(stats[KA["S_ECC"] + b]), int(got.max(initial=0)))


def k_window_start(indptr, level, pend, source, items, ctrl):
    # the launcher clears levels (-1), pend (0) and the list (EMPTY) first
    n = level.size
    assert (level == 0xFFFFFFFF).all() and not pend[:n + 2].any(), "levels or pend not cleared"
    ctrl[:KW["CTRL"]] = 0
    ctrl[KW["TAIL"]] = 1
    level[int(source)] = 0
    pend[0] = 1
    items[0] = int(source)  # the source's item (its contents are not emulated)
    assert 0 <= int(source) < n


def k_window_run(indptr, indices, level, pend, levels_cap, items, cap, ctrl, window, hold,
                 patience, chain_max, flags):
    # the BFS level by level (how the kernel relaxes, holds and chains is
    # not emulated); every reached vertex appended once (window 0's count);
    # the traversal gives up when the list cannot hold them
    n, cap = level.size, int(cap)
    assert int(flags) & ~(KW["F_PREFETCH"] | KW["F_CHECK"]) == 0, flags
    assert int(levels_cap) == n + 1 and pend.size >= n + 2 and int(window) >= 0 and int(hold) >= 0
    slots = np.asarray(items).reshape(-1, 2)
    assert (slots[1:cap] == np.uint64(2**64 - 1)).all(), "a slot of the list is not EMPTY"
    indptr, indices = np.asarray(indptr, np.int64), np.asarray(indices, np.int64)
    cur = np.flatnonzero(level == 0)
    d = 0
    while cur.size:
        d += 1
        lens = indptr[cur + 1] - indptr[cur]
        pos = np.repeat(indptr[cur] - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
        nxt = np.unique(indices[pos])
        nxt = nxt[level[nxt] == 0xFFFFFFFF]
        level[nxt] = d
        cur = nxt
    reached = int(np.count_nonzero(level != 0xFFFFFFFF))
    tail = reached if reached <= cap else cap + 1
    ctrl[KW["TAIL"]] = ctrl[KW["HEAD"]] = tail
    ctrl[KW["FLOOR"]], ctrl[KW["TOP"]] = d + 1, d
    ctrl[KW["ERROR"]] = int(reached > cap)
    slots[1:min(tail, cap)] = 0


_KERNELS = {"msbfs_start": k_start, "msbfs_coop": k_coop, "msbfs_settle": k_settle, "msbfs_push": k_push,
            "msbfs_pull": k_pull, "msbfs_flush": k_flush, "msbfs_advance": k_advance,
            "msbfs_clear": k_clear, "bfs_async_reset": k_async_reset,
            "bfs_async_start": k_async_start, "bfs_async_run": k_async_run,
            "bfs_async_stats": k_async_stats, "bfs_window_start": k_window_start,
            "bfs_window_run": k_window_run}


@functools.lru_cache(maxsize=None)
def signature(name):
    """msbfs.cu's (or bfs_async.cu's) parameters of kernel ``name``
    ("msbfs_settle<int>"): a
    list of (C type without qualifiers, name); the template's I is
    replaced by the instance's index type."""
    base, _, inst = name.partition("<")
    m = re.search(r"\b" + base + r"\s*\(([^)]*)\)\s*\{", _CU + _ASYNC_CU + _WINDOW_CU)
    out = []
    for p in m.group(1).split(","):
        words = p.replace("*", " * ").replace("__restrict__", " ").replace("const", " ").split()
        ctype = " ".join(words[:-1]).replace(" *", "*")
        if inst:
            ctype = re.sub(r"\bI\b", inst.rstrip(">").split(",")[0].strip(), ctype)
        out.append((ctype, words[-1]))
    return out


_POINTEE = {"u64": np.uint64, "unsigned long long": np.uint64, "unsigned": np.uint32,
            "long long": np.int64, "int": np.int32, "ulonglong2": np.uint64}
_SCALAR = {"long long": np.int64, "int": np.int32, "unsigned": np.uint32, "bool": np.bool_}


def check_args(name, args):
    """The arguments of a launch against the .cu's parameters: a CuPy
    array of the pointee's dtype for a pointer, a numpy scalar of the
    parameter's exact size otherwise (CuPy passes a scalar's own bytes)."""
    params = signature(name)
    assert len(args) == len(params), f"{name}: {len(args)} arguments for {len(params)} parameters"
    for x, (ctype, pname) in zip(args, params):
        if ctype.endswith("*"):
            want = _POINTEE[ctype[:-1]]
            assert isinstance(x, FakeArray) and x.dtype == want, \
                f"{name}: {pname} ({ctype}) got {type(x).__name__} {getattr(x, 'dtype', '')}"
        else:
            want = _SCALAR[ctype]
            assert type(x) is want, f"{name}: {pname} ({ctype}) got {type(x).__name__}"


class _Kernel:
    _ids = itertools.count(1)

    def __init__(self, name):
        base = name.split("<")[0]
        if base not in _KERNELS:
            raise NotImplementedError(f"the emulated GPU has no {name}")
        self.name = name
        self.fn = _KERNELS[base]
        self.ptr = next(self._ids)

    def __call__(self, grid, block, args, shared_mem=0, enable_cooperative_groups=False):
        check_args(self.name, args)
        _STATE.launches += 1
        _submit(None, lambda: self.fn(*args))


class _Module:
    def get_function(self, name):
        return _Kernel(name)


def emulated_gpu(monkeypatch):
    """Point the msbfs launcher at the emulated GPU for one test; returns
    the launcher module and the emulator's state (graphs captured, replays,
    launches)."""
    global _STATE
    from bitgraph.kernels.cuda import msbfs as km

    _STATE = _State()
    cp, cuda, runtime, driver = _cupy()
    for name, mod in (("cupy", cp), ("cupy.cuda", cuda), ("cupy.cuda.runtime", runtime),
                      ("cupy.cuda.driver", driver)):
        monkeypatch.setitem(sys.modules, name, mod)
    from bitgraph.kernels.cuda import msbfs_state as ks

    monkeypatch.setattr(ks, "module", lambda source, names: (_Module(), {x: x for x in names}))
    monkeypatch.setattr(ks, "multiprocessors", lambda: 4)
    monkeypatch.setattr(sys.modules["bitgraph.kernels.cuda"], "multiprocessors", lambda: 4)
    monkeypatch.setattr(ks, "CACHES", ks.Caches())
    from bitgraph.kernels.cuda import bfs_async as ka

    monkeypatch.setattr(ka, "module", lambda source, names: (_Module(), {x: x for x in names}))
    monkeypatch.setattr(ka, "multiprocessors", lambda: 4)
    monkeypatch.setattr(ka, "_WORK", {})
    from bitgraph.kernels.cuda import bfs_window as kw

    monkeypatch.setattr(kw, "module", lambda source, names: (_Module(), {x: x for x in names}))
    monkeypatch.setattr(kw, "multiprocessors", lambda: 4)
    monkeypatch.setattr(kw, "_WORK", {})
    return km, _STATE
