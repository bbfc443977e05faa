"""Launcher of ``components.cu``: connected components by Afforest on the
GPU, with the CPU launcher's signature where it applies
(``kernels/cpu/components.py``: ``afforest(indptr, indices, *, rounds,
skip_largest, cfg)``) and the same labels: every vertex labelled by the
smallest id of its weak component.

A call is seven launches on the current stream with no host
synchronisation (the largest partial component is found on the device and
read there by the last round) and the allocations of what it returns (the
labels, and with ``bitmap`` a full vector's bitmap words, both written by
the last kernel). The first six replay as one captured CUDA graph, kept
per graph, workspace and settings (``_GRAPHS``: what they bake in). Its scratch (comp, the lists, the counters; the kernels
initialise what they read) is kept between calls of the same size and
vertex type on the same device, stream and host thread (``_workspace``).
Knobs come in as ``cfg`` (``bitgraph.settings.Components``: ``rounds``,
``cuda_samples``, ``cuda_warp_degree``, ``cuda_block_degree``,
``cuda_block_threads``); the vertex passes take a thread per vertex in
blocks of the ``Cuda`` settings' ``threads`` (``components.cu`` says why);
layout constants come from ``constants.COMPONENTS``.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from bitgraph.kernels.cuda import PackedLaunch, captured, module, multiprocessors
from bitgraph.kernels.cuda import settings as cuda_settings
from bitgraph.kernels.cuda.constants import COMPONENTS
from bitgraph.kernels.registry import register

__all__ = ["afforest"]

_SOURCE = "components.cu"
_C = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_PAIRS = tuple((i, v) for i in _C.values() for v in _C.values())
_PASSES = ("cc_init", "cc_sample", "cc_final_thread", "cc_final_lists")
_NAMES = (tuple(f"{k}<{v}>" for k in ("cc_compress", "cc_largest") for v in _C.values())
          + tuple(f"{k}<{i}, {v}>" for k in _PASSES for i, v in _PAIRS))
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
_SAMPLE_CAP = COMPONENTS["SAMPLE_CAP"]
_LARGEST_THREADS = COMPONENTS["LARGEST_THREADS"]
_CTRL = COMPONENTS["CTRL"]

_KERNELS = {}  # (device, I, V) -> the six kernels
_WORK = {}     # (device, stream, thread, n, V) -> scratch (see _workspace)
_GRAPHS = {}   # what the first six launches bake in -> their captured CUDA graph
_SERIAL = itertools.count(1)  # names each scratch (a Replay checks its own is current)


def _kernels(i_c, v_c):
    """(init, compress, sample, largest, final_thread, final_lists) of one
    (indptr, vertex) C type pair, looked up once per device."""
    import cupy

    key = (cupy.cuda.runtime.getDevice(), i_c, v_c)
    got = _KERNELS.get(key)
    if got is None:
        mod, lowered = module(_SOURCE, _NAMES)

        def fn(name):
            return mod.get_function(lowered[name])
        got = _KERNELS[key] = (fn(f"cc_init<{i_c}, {v_c}>"), fn(f"cc_compress<{v_c}>"),
                               fn(f"cc_sample<{i_c}, {v_c}>"), fn(f"cc_largest<{v_c}>"),
                               fn(f"cc_final_thread<{i_c}, {v_c}>"),
                               fn(f"cc_final_lists<{i_c}, {v_c}>"))
    return got


def _workspace(n, v_type):
    """(comp[n], wl[n], ctrl[CTRL]): scratch kept between calls of the same
    n and vertex type on the same device, stream and host thread (two
    threads or two streams never share one: their launches would
    interleave). Nothing carries over from a call: cc_init writes all of
    comp and zeroes ctrl, and a list entry is read only below the count
    the same call wrote. One size at a time: a new key drops the others
    (a call that still holds them keeps its own references)."""
    import cupy

    key = _work_key(n, v_type)
    work = _WORK.get(key)
    if work is None:
        _WORK.clear()
        work = _WORK[key] = (cupy.empty(n, v_type), cupy.empty(n, v_type),
                             cupy.empty(_CTRL, cupy.uint64), next(_SERIAL))
    return work


def _work_key(n, v_type):
    import cupy

    return (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr,
            threading.get_ident(), n, v_type)


class Replay:
    """A call of ``afforest`` kept ready for the next with the same
    graph, settings, device, stream and thread: the captured graph of the
    first six launches and the last launch packed (``PackedLaunch``), the
    labels (and bitmap words) allocated in one block per call. ``run()``
    returns what ``afforest`` returns, or None when the scratch it was
    made with is gone (another graph's call took its place): the caller
    then runs the whole path, which makes a new one."""

    __slots__ = ("wkey", "serial", "graph", "last", "n", "nwords", "bitmap", "off", "nbytes",
                 "where", "lock", "keep", "cuda", "where_key")

    def __init__(self, wkey, serial, graph, last, n, bitmap, where, keep, where_key):
        import cupy

        # what a call uses of CuPy, bound once (no import statement per call)
        self.cuda = (cupy.cuda.alloc, cupy.ndarray, cupy.int64, cupy.uint32,
                     cupy.cuda.get_current_stream)
        self.wkey, self.serial, self.graph, self.last = wkey, serial, graph, last
        self.n, self.nwords, self.bitmap, self.where = n, (n + 31) // 32, bitmap, where
        self.off = (8 * n + 255) & ~255  # labels[n] int64, then words[nwords] uint32
        self.nbytes = self.off + 4 * self.nwords if bitmap else 8 * n
        self.lock = threading.Lock()
        self.keep = keep  # the graph's arrays the launches read
        self.where_key = where_key  # (device, stream pointer, thread) it was made for

    def __call__(self):
        work = _WORK.get(self.wkey)
        if work is None or work[3] != self.serial:
            return None
        alloc, ndarray, int64, uint32, get_stream = self.cuda
        try:
            mem = alloc(self.nbytes)
        except Exception:
            from bitgraph.device import oom_guard

            with oom_guard(self.where, self.nbytes):  # CuPy's out of memory as DeviceError
                raise
        stream = get_stream()
        with self.lock:
            self.last.set(1, mem.ptr)
            self.last.set(2, mem.ptr + self.off if self.bitmap else 0)
            self.graph.launch(stream)
            self.last.launch(stream.ptr)
        # the arrays over the memory after the launches: the kernels start sooner
        labels = ndarray((self.n,), int64, mem)
        if self.bitmap:
            return labels, ndarray((self.nwords,), uint32, mem + self.off)
        return labels


_CUDA = ()  # (getDevice, get_current_stream) of CuPy, bound at the first call


def _bind():
    # a replayed call's host time is ~15 us: no import statement on its path
    global _CUDA
    import cupy

    _CUDA = (cupy.cuda.runtime.getDevice, cupy.cuda.get_current_stream)
    return _CUDA


def where_key():
    """(current device, current stream's pointer, thread id): where a
    ``Replay`` may run (its ``where_key``; the first three of its key)."""
    get_device, get_stream = _CUDA or _bind()
    return get_device(), get_stream().ptr, threading.get_ident()


@register("cc", fmt="csr", device="cuda", variant="afforest")
def afforest(indptr, indices, *, rounds=None, skip_largest=True, cfg=None, stats=None,
             bitmap=False, keep=None, presample=True):
    """Weakly connected components by Afforest on the GPU: an int64 CuPy
    array, comp[u] = the smallest vertex id of u's component; with
    ``bitmap``, the pair (labels, words), words the uint32 bitmap
    (``Vector``'s layout) of a vector with all n entries present.

    indptr[n+1], indices[nnz]: a square CSR (CuPy arrays, int32 or int64;
    self-loops, duplicates and unsorted rows are fine). skip_largest: the
    CSR holds both directions of every edge, so the vertices of the largest
    partial component may skip their edges in the last round (False for a
    directed graph). cfg: the ``Components`` settings (None: those in
    force); rounds: sampling rounds (None: ``cfg.rounds``). presample: the
    first pass points every vertex at the smallest of its first ``rounds``
    entries and a compress flattens those chains before the sampling links
    (the start for local ids, ``settings.components.cuda_presample``); else
    every vertex starts alone and the compress follows the links. stats: a
    ``bitgraph.Stats`` whose ``metrics`` get ``kernel_ms`` (the kernels' GPU
    time, the host's launch overhead gated out: ``timing.gated_ms``), and
    ``warp_list`` / ``block_list`` (vertices handed to a warp or a block in
    the last round: a synchronising read, only with stats). Cost O(n *
    rounds + nnz) link attempts; workspace 2 n vertex ids (comp, the
    lists), kept between calls. keep: a dict the caller keeps with this
    graph (dropped when its CSR changes): a call without stats keeps a
    ``Replay`` there, and the next call of the same settings, device,
    stream and thread replays it (no argument handling, no capture key);
    the replay a call ran or made is the newest value of ``keep`` after it
    (what ``connected_components``' hot path takes, slot ``cc_cuda_hot``).

    >>> labels = afforest(A._csr().indptr, A._csr().indices)  # doctest: +SKIP
    """
    if cfg is None:
        from bitgraph.settings import current
        cfg = current().components
    where = "connected_components (cuda afforest)"
    rkey = None
    if keep is not None and stats is None:
        rkey = where_key() + (rounds, bool(skip_largest), bool(bitmap), bool(presample), cfg,
                              cuda_settings())
        replay = keep.get(rkey)
        if replay is not None:
            got = replay()
            if got is not None:
                keep[rkey] = keep.pop(rkey)  # the newest last
                return got
    import cupy

    from bitgraph.device import oom_guard

    n = int(indptr.shape[0]) - 1
    if n < 0:
        raise ValueError(f"{where}: indptr must hold n + 1 >= 1 entries")
    if n == 0:
        labels = cupy.empty(0, cupy.int64)
        return (labels, cupy.empty(0, cupy.uint32)) if bitmap else labels
    rounds = max(0, int(cfg.rounds if rounds is None else rounds))
    if rounds == 0:
        skip_largest = False  # no sample to find the largest component in
    samples = min(max(1, int(cfg.cuda_samples)), _SAMPLE_CAP)
    hub_threads = int(cfg.cuda_block_threads)
    if hub_threads < 32 or hub_threads > 1024 or hub_threads % 32:
        raise ValueError(f"{where}: cuda_block_threads must be a multiple of 32 in"
                         f" [32, 1024], got {hub_threads}")
    # one index type per array kind: I for indptr, V for the vertex ids of
    # indices and comp (int32 unless an id or the array needs int64)
    i_type = np.dtype(np.int64) if indptr.dtype.itemsize > 4 else np.dtype(np.int32)
    v_type = np.dtype(np.int64) if indices.dtype.itemsize > 4 or n > np.iinfo(np.int32).max \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(indptr, dtype=i_type)
    indices = cupy.ascontiguousarray(indices, dtype=v_type)
    init, compress, sample, largest, final_thread, final_lists = _kernels(_C[i_type], _C[v_type])
    nwords = (n + 31) // 32
    with oom_guard(where, 2 * n * v_type.itemsize + 8 * _CTRL + 8 * n + 4 * nwords):
        comp, wl, ctrl, serial = _workspace(n, v_type)
        labels = cupy.empty(n, cupy.int64)
        words = cupy.empty(nwords, cupy.uint32) if bitmap else None
    threads = int(cuda_settings().threads)
    vertices = ((n + threads - 1) // threads,), (threads,)  # a thread per vertex
    # the lists' launch: one resident wave (its blocks loop over the lists)
    lists_grid = (max(1, min(n, multiprocessors() * max(1, 2048 // hub_threads))),)
    n64, r64 = np.int64(n), np.int64(rounds)
    null = np.uintp(0)
    final_args = (indptr, indices, comp, wl, ctrl, n64, r64, np.int32(1 if skip_largest else 0),
                  np.int64(cfg.cuda_warp_degree),
                  np.int64(max(cfg.cuda_block_degree, cfg.cuda_warp_degree)))

    first = r64 if presample else np.int64(0)  # cc_init's hooks: the first entries, or none

    def rounds_and_final(_stream):
        init(*vertices, (indptr, indices, comp, ctrl, n64, first))
        if rounds:
            if presample:
                compress(*vertices, (comp, null, null, n64))
            sample(*vertices, (indptr, indices, comp, n64, r64))
            if not presample:
                compress(*vertices, (comp, null, null, n64))
        if skip_largest:
            largest((1,), (_LARGEST_THREADS,), (comp, n64, np.int32(samples), ctrl))
        final_thread(*vertices, final_args)
        final_lists(lists_grid, (hub_threads,), (indptr, indices, comp, wl, ctrl, n64, r64))

    # every launch but the last (which writes this call's labels) replays as one CUDA
    # graph: six launches' host time and the gaps between their kernels cost ~0.05 ms of
    # a 0.49 ms call on kron-21 (H200)
    graph = captured(_GRAPHS, (
        cupy.cuda.runtime.getDevice(), i_type.char, v_type.char, n, rounds, skip_largest,
        bool(presample), samples, hub_threads, lists_grid[0], vertices[0][0], vertices[1][0],
        int(cfg.cuda_warp_degree), int(final_args[-1]), indptr.data.ptr, indices.data.ptr,
        comp.data.ptr, wl.data.ptr, ctrl.data.ptr), rounds_and_final)

    def launch():
        graph.launch(cupy.cuda.get_current_stream())
        compress(*vertices, (comp, labels, words if bitmap else null, n64))

    if stats is None:
        launch()
        if rkey is not None:
            # the last launch packed, its output parameters set per call
            last = PackedLaunch(compress, vertices[0][0], vertices[1][0], (comp, None, None, n64))
            keep.pop(rkey, None)
            for old in list(keep)[:max(0, len(keep) - 3)]:  # the newest 4 kept
                del keep[old]
            keep[rkey] = Replay(_work_key(n, v_type), serial, graph, last, n, bitmap, where,
                                (indptr, indices), rkey[:3])  # the newest last
    else:
        from bitgraph.kernels.cuda.timing import gated_ms

        ms = gated_ms(launch)
        counts = ctrl.get()  # synchronize! (stats only)
        stats.metrics.update(kernel_ms=ms, warp_list=int(counts[COMPONENTS["C_WARP"]]),
                             block_list=int(counts[COMPONENTS["C_BLOCK"]]))
    return (labels, words) if bitmap else labels
