"""Launcher of ``sssp.cu``: delta-stepping shortest paths on the GPU (near
list and far pile), with the CPU launcher's signature and distances
(``kernels/cpu/sssp.py``: the same D, the same saturation, the same
unreached value). Two schedules: ``delta_stepping`` (below: the host
drives the buckets) and ``delta_stepping_persistent`` (the same loop in
one cooperative launch of ``sssp_persistent``, no host read).

The host drives the buckets: rounds (``sssp_take`` then ``sssp_relax``,
edge-balanced: see ``sssp.cu``) are queued in batches with one read of
the counters after each batch (the batch doubles while the near list
stays full, up to ``cfg.cuda_rounds_per_read``; a round queued after the
list emptied returns at once), and when the near list is empty a split of
the far pile (``sssp_split``) at the next threshold, ``delta`` higher;
when that bucket holds nothing the threshold jumps to the bucket of the
least far distance and the pile is split again. With ``light_heavy``
(the caller passes rows sorted by weight) near rounds relax only the
edges lighter than ``delta`` and a member round, queued after each batch
and run on the device only when the near list is empty, relaxes the
bucket's heavy edges once. Knobs come in as ``cfg``
(``bitgraph.settings.SSSP``: ``cuda_rounds_per_read``,
``cuda_blocks_per_sm``) and ``cuda`` (``bitgraph.settings.Cuda``: the
threads a block); the device workspaces (flags, lists, counters) live in
``work`` (a dict the caller keeps per graph; None: fresh ones) and are
taken out of it while a call runs, so two calls never share one. A
``stats`` (``bitgraph.Stats``) receives ``rounds`` (member rounds
included), ``splits``, ``reads``, ``edges`` (edges relaxed, repeats
included) and ``kernel_ms`` (CUDA events around the whole loop, so the
host's gaps between rounds count).
"""

from __future__ import annotations

import math

import numpy as np

from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.cuda.constants import SSSP
from bitgraph.kernels.registry import register

__all__ = ["delta_stepping", "delta_stepping_persistent", "KERNEL_DTYPES"]

_SOURCE = "sssp.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_DIST = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long",
         np.dtype(np.uint64): "unsigned long long", np.dtype(np.float32): "float",
         np.dtype(np.float64): "double"}
# (weights dtype, distances dtype) pairs, as the CPU kernel's
KERNEL_DTYPES = tuple((d, d) for d in _DIST)
_KERNELS = ("light_ends", "init", "take", "relax", "split")
_NAMES = tuple(f"sssp_{k}<{d}, {i}>" for k in _KERNELS + ("persistent",)
               for d in _DIST.values() for i in _INDEX.values())
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)
_C_NEAR, _C_FAR = (SSSP["C_NEAR0"], SSSP["C_NEAR1"]), (SSSP["C_FAR0"], SSSP["C_FAR1"])
_C_MEM = (SSSP["C_MEM0"], SSSP["C_MEM1"])
_C_MIN, _C_ROUNDS, _COUNTERS = SSSP["C_MIN"], SSSP["C_ROUNDS"], SSSP["COUNTERS"]
_C_GO, _C_EDGES = SSSP["C_GO"], SSSP["C_EDGES"]
_F_NEAR, _F_MEMBER = np.uint32(SSSP["F_NEAR"]), np.uint32(SSSP["F_MEMBER"])
_CHUNK = 32 * SSSP["LB_STEPS"]  # the edges a warp of sssp_relax takes at once
_C_SPLITS, _C_ERR = SSSP["C_SPLITS"], SSSP["C_ERR"]
_PERSIST_THREADS = SSSP["PERSIST_THREADS"]  # sssp_persistent's launch bounds


def _threshold(t: float, D: np.dtype):
    """The bucket end t as a D threshold (``d < threshold`` is near): the
    integers' ceiling, capped at D's maximum (unreached); floats rounded
    up to D."""
    if D.kind == "f":
        if not math.isfinite(t):
            return D.type(np.inf)
        x = D.type(t)
        return x if float(x) >= t else np.nextafter(x, D.type(np.inf))
    top = int(np.iinfo(D).max)
    if not math.isfinite(t) or t >= top:
        return D.type(top)
    return D.type(min(top, math.ceil(t)))


def _above(d, D: np.dtype):
    """The least D threshold that makes distance d near (d + 1 or the next float)."""
    if D.kind == "f":
        return np.nextafter(D.type(d), D.type(np.inf))
    return D.type(min(int(d) + 1, int(np.iinfo(D).max)))


def _decode(bits: int, D: np.dtype):
    """A distance from its order bits (``C_MIN``)."""
    if D == np.float32:
        return np.array([bits], np.uint32).view(np.float32)[0]
    if D == np.float64:
        return np.array([bits], np.uint64).view(np.float64)[0]
    return D.type(bits)


def _workspace(work, n, idx, D):
    """The device arrays of a run over n vertices: flags, the two near lists
    and the two member lists with their first edges, the two far piles, the
    light ends of the rows, the taken list's bases and distances, the
    counters, the persistent kernel's barrier words; from ``work``
    (removed while in use) or new."""
    import cupy

    key = (n, idx.str, D.str)
    ws = None if work is None else work.pop(key, None)
    if ws is None:
        ws = {"flags": cupy.empty(n, np.uint32),
              "near": (cupy.empty(n, idx), cupy.empty(n, idx)),
              "offs": (cupy.empty(n, idx), cupy.empty(n, idx)),
              "mem": (cupy.empty(n, idx), cupy.empty(n, idx)),
              "moffs": (cupy.empty(n, idx), cupy.empty(n, idx)),
              "far": (cupy.empty(n, idx), cupy.empty(n, idx)),
              "lend": cupy.empty(n, idx),
              "base": cupy.empty(n, idx), "du": cupy.empty(n, D),
              "ctr": cupy.empty(_COUNTERS, np.uint64),
              "bar": cupy.zeros(2, np.uint32)}  # sssp_persistent's grid barrier
    return key, ws


def _inputs(A, source, delta, dist_dtype, where):
    """The checks and device arrays both launchers start from: (D, n, the
    index dtype, the list counters' shift, indptr, indices, weights as
    contiguous arrays of those dtypes, D's infinity, D's saturated sum)."""
    import cupy

    D = np.dtype(dist_dtype)
    if D not in _DIST or A.values is None or np.dtype(A.values.dtype) != D:
        got = None if A.values is None else np.dtype(A.values.dtype)
        raise TypeError(f"{where}: no kernel for weights {got} and distances {D};"
                        f" pairs: {[(str(a), str(b)) for a, b in KERNEL_DTYPES]}")
    n = int(A.nrows)
    if not 0 <= source < n:
        raise ValueError(f"{where}: source {source} outside [0, {n})")
    if not delta > 0:
        raise ValueError(f"{where}: delta must be > 0, got {delta}")
    idx = np.dtype(np.int64) if max(A.indptr.dtype.itemsize, A.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    nnz = int(A.indices.size)
    # a near list's counter packs its vertices (< 2**shift) under its edges (<= nnz)
    shift = max(1, n.bit_length())
    if nnz >= 1 << (64 - shift):
        raise ValueError(f"{where}: {n} vertices and {nnz} edges do not pack in"
                         f" a 64-bit list counter (n * nnz must stay below 2**64)")
    indptr = cupy.ascontiguousarray(A.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(A.indices, dtype=idx)
    weights = cupy.ascontiguousarray(A.values, dtype=D)
    infinity = D.type(np.inf) if D.kind == "f" else D.type(np.iinfo(D).max)
    saturated = infinity if D.kind == "f" else D.type(int(infinity) - 1)
    return D, n, idx, shift, indptr, indices, weights, infinity, saturated


def _begin(A, source, delta, dist_dtype, cfg, cuda, work, where):
    """What both launchers start with: ``(cfg, cuda, _inputs(...), dist,
    workspace key, workspace)``, the settings in force where None, the
    distances allocated (CuPy's out of memory as DeviceError)."""
    import cupy

    from bitgraph.device import oom_guard
    from bitgraph.kernels.cuda import settings as cuda_settings

    if cfg is None:
        from bitgraph.settings import current
        cfg = current().sssp
    cuda = cuda_settings(cuda)
    inputs = _inputs(A, source, delta, dist_dtype, where)
    D, n, idx = inputs[:3]
    with oom_guard("sssp(cuda)", n * (2 * D.itemsize + 4 + 13 * idx.itemsize)):
        dist = cupy.empty(n, D)
        key, ws = _workspace(work, n, idx, D)
    return cfg, cuda, inputs, dist, key, ws


@register("sssp", fmt="csr", device="cuda", variant="delta")
def delta_stepping(A, source, delta, dist_dtype, *, cfg=None, cuda=None, stats=None, work=None,
                   light_heavy=False):
    """Shortest-path distances from ``source`` by near-far delta-stepping
    on the GPU.

    A: CSR (n x n, CuPy arrays, int32 or int64 indices) with values W >= 0
    (no NaN; the caller checks), W == ``dist_dtype`` D, one of
    ``KERNEL_DTYPES``. delta > 0: the bucket width. cfg: the ``SSSP``
    settings, cuda: the ``Cuda`` settings (None: those in force); stats: a
    ``bitgraph.Stats``; work: a dict that keeps the device workspaces
    between calls (None: allocated for this call); light_heavy: near rounds
    relax the edges of weight < delta and member rounds the others (exact
    whatever the order of a row's entries; fewer edges relaxed again when
    each row's entries ascend by weight). Returns (dist[n] D as a
    CuPy array, rounds): unreached vertices hold D's infinity (inf or the
    integer maximum), an integer sum past the maximum saturates at maximum
    - 1, as the CPU kernel's.

    >>> import cupy, numpy as np                                  # doctest: +SKIP
    >>> from bitgraph.formats.csr import CSR                      # doctest: +SKIP
    >>> a = CSR(cupy.asarray([0, 2, 3, 3]), cupy.asarray([1, 2, 2]),
    ...         cupy.asarray([1, 5, 2]), 3, 3)                    # doctest: +SKIP
    >>> delta_stepping(a, 0, 1.0, np.int64)[0].tolist()           # doctest: +SKIP
    [0, 1, 3]
    """
    import cupy

    from bitgraph.kernels.cuda import multiprocessors

    cfg, cuda, inputs, dist, key, ws = _begin(A, source, delta, dist_dtype, cfg, cuda, work,
                                              "delta_stepping(cuda)")
    D, n, idx, shift, indptr, indices, weights, infinity, saturated = inputs
    flags, near, offs, far = ws["flags"], ws["near"], ws["offs"], ws["far"]
    base, du, ctr = ws["base"], ws["du"], ws["ctr"]
    mem, moffs = ws["mem"], ws["moffs"]

    mod, lowered = module(_SOURCE, _NAMES)
    names = (_DIST[D], _INDEX[idx])
    light_ends, init, take, relax, split = (mod.get_function(lowered["sssp_%s<%s, %s>" % ((k,) + names)])
                                for k in _KERNELS)
    threads = int(cuda.threads)
    full = max(1, multiprocessors() * int(cfg.cuda_blocks_per_sm))  # a round of unknown size
    most = max(1, int(cfg.cuda_rounds_per_read))
    stream = cupy.cuda.get_current_stream()
    i32, i64 = np.int32, np.int64
    ev = None
    if stats is not None:
        ev = (cupy.cuda.Event(), cupy.cuda.Event())
        ev[0].record()
    cur = 0  # the near list (and counter) the next round takes
    m = 0  # the member list (and counter) the rounds fill and the next member round takes
    if light_heavy:  # lend[v]: the end of row v's edges lighter than delta
        lend = ws["lend"]
        light_ends(*shape(n, cuda), (indptr, weights, lend, i64(n), _threshold(float(delta), D)))
    else:  # every edge light: the rows' ends
        lend = indptr[1:]
    init(*shape(n, cuda), (indptr, lend, dist, flags, i64(n), i64(source), near[cur], offs[cur],
                           mem[m], moffs[m], ctr, i32(_C_NEAR[cur]), i32(_C_MEM[m]), i32(shift),
                           infinity))
    step = float(delta)
    bucket = 0  # the near list holds distances below (bucket + 1) * delta
    threshold = _threshold(step, D)
    count = edges = None  # the next round's list, when known
    pile = 0  # the far pile in use, and its length
    far_count = 0
    batch = 1
    splits = reads = 0
    mask = (1 << shift) - 1
    while True:
        while True:
            for _ in range(batch):
                out = 1 - cur
                tgrid = (max(1, min(full, -(-count // threads))) if count is not None
                         else full,)
                take(tgrid, (threads,), (indptr, dist, flags, near[cur], offs[cur], base, du,
                                         ctr, i32(_C_NEAR[cur]), i32(_C_NEAR[out]), i32(-1),
                                         _F_NEAR, i32(shift)))
                rgrid = (max(1, min(full, -(-edges // (_CHUNK * (threads // 32)))))
                         if edges is not None else full,)
                relax(rgrid, (threads,), (indptr, lend, indices, weights, dist, flags,
                                          offs[cur], base, du, near[out], offs[out], mem[m],
                                          moffs[m], far[pile], ctr, i32(_C_NEAR[cur]),
                                          i32(_C_NEAR[out]), i32(_C_MEM[m]), i32(_C_FAR[pile]),
                                          i32(-1), threshold, saturated, i32(shift)))
                cur = out
                count = edges = None
            if light_heavy:
                # the member round: the heavy edges of the bucket's members, when (on the
                # device) the near list is empty; its improvements below the threshold go
                # to near list cur (empty then) and member list 1 - m
                out = 1 - m
                take((full,), (threads,), (lend, dist, flags, mem[m], moffs[m], base, du, ctr,
                                           i32(_C_MEM[m]), i32(_C_MEM[out]), i32(_C_NEAR[cur]),
                                           _F_MEMBER, i32(shift)))
                relax((full,), (threads,), (indptr, lend, indices, weights, dist, flags,
                                            moffs[m], base, du, near[cur], offs[cur], mem[out],
                                            moffs[out], far[pile], ctr, i32(_C_MEM[m]),
                                            i32(_C_NEAR[cur]), i32(_C_MEM[out]),
                                            i32(_C_FAR[pile]), i32(_C_GO), threshold, saturated,
                                            i32(shift)))
            counts = ctr.get()  # synchronize!
            reads += 1
            if light_heavy and counts[_C_GO]:  # the member round ran
                m = 1 - m
            packed = int(counts[_C_NEAR[cur]])
            count, edges = packed & mask, packed >> shift
            members = int(counts[_C_MEM[m]]) & mask if light_heavy else 0
            far_count = int(counts[_C_FAR[pile]])
            if not count and not members:
                break
            batch = min(2 * batch, most)
        batch = 1
        if far_count == 0:
            break
        # the next bucket; past an empty one, the bucket of the least far distance
        low = threshold
        bucket += 1
        threshold = _threshold((bucket + 1) * step, D)
        for attempt in range(2):
            if not threshold > low:  # float rounding: the threshold moves on
                threshold = _above(low, D)
            out = 1 - pile
            for slot in (_C_NEAR[cur], _C_FAR[out]):
                cupy.cuda.runtime.memsetAsync(ctr.data.ptr + 8 * slot, 0, 8, stream.ptr)
            cupy.cuda.runtime.memsetAsync(ctr.data.ptr + 8 * _C_MIN, 0xFF, 8, stream.ptr)
            split(*shape(far_count, cuda), (indptr, lend, dist, flags, far[pile],
                                            i64(far_count), far[out], i32(_C_FAR[out]),
                                            near[cur], offs[cur], i32(_C_NEAR[cur]), mem[m],
                                            moffs[m], i32(_C_MEM[m]), ctr, i32(shift), low,
                                            threshold))
            splits += 1
            pile = out
            counts = ctr.get()  # synchronize!
            reads += 1
            packed = int(counts[_C_NEAR[cur]])
            count, edges = packed & mask, packed >> shift
            members = int(counts[_C_MEM[m]]) & mask if light_heavy else 0
            far_count = int(counts[_C_FAR[pile]])
            if count or members or not far_count:
                break
            least = _decode(int(counts[_C_MIN]), D)
            low = threshold
            bucket = max(bucket + 1, int(math.floor(float(least) / step)))
            threshold = max(_threshold((bucket + 1) * step, D), _above(least, D))
        if not count and not members:  # every far entry was stale; else the least one moved
            if far_count:
                raise RuntimeError(f"delta_stepping(cuda): {far_count} far vertices and none"
                                   f" below the threshold {threshold}")
            break
    rounds = int(counts[_C_ROUNDS])
    if work is not None:
        work[key] = ws
    if ev is not None:
        ev[1].record()
        ev[1].synchronize()
        stats.metrics.update(rounds=rounds, splits=splits, reads=reads,
                             edges=int(counts[_C_EDGES]), kernel_ms=cupy.cuda.get_elapsed_time(ev[0], ev[1]))
    return dist, rounds


@register("sssp", fmt="csr", device="cuda", variant="persistent")
def delta_stepping_persistent(A, source, delta, dist_dtype, *, cfg=None, cuda=None, stats=None,
                              work=None, light_heavy=False):
    """:func:`delta_stepping` with the bucket loop on the device: after
    ``sssp_light_ends`` (with ``light_heavy``) and ``sssp_init``, one
    cooperative launch of ``sssp_persistent`` runs every round, member
    round and split and decides the next threshold and the end itself
    (grid barriers between its phases), so no host read comes between
    rounds. The same arguments and distances; blocks: at most
    ``cfg.cuda_persistent_blocks_per_sm`` a multiprocessor (what the
    occupancy allows, every block resident). Without ``stats`` nothing is
    read back (the call returns with the kernel queued) and rounds is None;
    with ``stats`` the counters are read once at the end (``rounds``,
    ``splits``, ``edges``, ``reads`` = 1, ``kernel_ms``) and a run the
    kernel flagged (C_ERR: a far pile no threshold empties, which the
    argument in ``sssp.cu`` rules out) raises RuntimeError.

    >>> import cupy, numpy as np                                  # doctest: +SKIP
    >>> from bitgraph.formats.csr import CSR                      # doctest: +SKIP
    >>> a = CSR(cupy.asarray([0, 2, 3, 3]), cupy.asarray([1, 2, 2]),
    ...         cupy.asarray([1, 5, 2]), 3, 3)                    # doctest: +SKIP
    >>> delta_stepping_persistent(a, 0, 1.0, np.int64)[0].tolist()  # doctest: +SKIP
    [0, 1, 3]
    """
    import cupy

    from bitgraph.kernels.cuda import cooperative_blocks

    cfg, cuda, inputs, dist, key, ws = _begin(A, source, delta, dist_dtype, cfg, cuda, work,
                                              "delta_stepping_persistent(cuda)")
    D, n, idx, shift, indptr, indices, weights, infinity, saturated = inputs
    flags, near, offs, far = ws["flags"], ws["near"], ws["offs"], ws["far"]
    base, du, ctr, bar = ws["base"], ws["du"], ws["ctr"], ws["bar"]
    mem, moffs = ws["mem"], ws["moffs"]

    mod, lowered = module(_SOURCE, _NAMES)
    names = (_DIST[D], _INDEX[idx])
    light_ends, init, persistent = (mod.get_function(lowered["sssp_%s<%s, %s>" % ((k,) + names)])
                                    for k in ("light_ends", "init", "persistent"))
    blocks = cooperative_blocks(persistent, _PERSIST_THREADS,
                                max(1, int(cfg.cuda_persistent_blocks_per_sm)))
    i32, i64 = np.int32, np.int64
    ev = None
    if stats is not None:
        ev = (cupy.cuda.Event(), cupy.cuda.Event())
        ev[0].record()
    if light_heavy:  # lend[v]: the end of row v's edges lighter than delta
        lend = ws["lend"]
        light_ends(*shape(n, cuda), (indptr, weights, lend, i64(n), _threshold(float(delta), D)))
    else:  # every edge light: the rows' ends
        lend = indptr[1:]
    init(*shape(n, cuda), (indptr, lend, dist, flags, i64(n), i64(source), near[0], offs[0],
                           mem[0], moffs[0], ctr, i32(_C_NEAR[0]), i32(_C_MEM[0]), i32(shift),
                           infinity))
    persistent((blocks,), (_PERSIST_THREADS,),
               (indptr, lend, indices, weights, dist, flags, near[0], near[1], offs[0], offs[1],
                mem[0], mem[1], moffs[0], moffs[1], far[0], far[1], base, du, ctr, bar,
                np.float64(delta), saturated, i32(shift)),
               enable_cooperative_groups=True)
    rounds = None
    if ev is not None:
        ev[1].record()
        counts = ctr.get()  # synchronize! (stats only)
        ev[1].synchronize()
        if counts[_C_ERR]:
            raise RuntimeError(f"delta_stepping_persistent(cuda): {int(counts[_C_ERR])} far"
                               f" vertices and none below the threshold")
        rounds = int(counts[_C_ROUNDS])
        stats.metrics.update(rounds=rounds, splits=int(counts[_C_SPLITS]), reads=1,
                             edges=int(counts[_C_EDGES]),
                             kernel_ms=cupy.cuda.get_elapsed_time(ev[0], ev[1]),
                             blocks=blocks)
    if work is not None:
        work[key] = ws
    return dist, rounds
