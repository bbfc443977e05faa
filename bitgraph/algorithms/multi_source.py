"""Multi-source BFS (iBFS) and what is built on it: closeness centrality,
eccentricity, diameter and cheap diameter bounds.

iBFS runs up to 64 BFSs as one traversal: every vertex holds a uint64
status word, bit b for the b-th source of the batch (``seen``, ``frontier``,
``next``), so one pass over an edge advances every BFS that crosses it.
Per level the joint frontier is pushed (top-down: OR ``frontier[u]`` into
the out-neighbours' ``next``) or pulled (bottom-up: OR the in-neighbours'
``frontier`` words, stopping as soon as every bit still missing at that
vertex, among the BFSs still running, is found), chosen by XBFS's rule on
the frontier's out-edges (``settings.msbfs.alpha``). The kernels are in
``bitgraph.kernels.cpu.msbfs``.

Batches are independent: with at least as many batches as threads, whole
batches run side by side on the thread pool (each serial); the rest run one
at a time with their big levels cut into vertex chunks on the pool.

On a CUDA graph the batches run one after another on the GPU
(``bitgraph.kernels.cuda.msbfs``), where the direction is chosen per
source rather than per batch (a source pulls only around its own peak
level: on kron and urand 1.7-2.3x fewer edges walked) and the bottom-up
steps read A' as CSR in degree order; on a graph of long diameter (a mesh:
thousands of levels, small frontiers) each batch is one cooperative launch,
top-down, one grid barrier a level, or, on a road-like one (few entries a
row), the batch's BFSs run side by side without barriers, asynchronously
(``msbfs_schedule``; ``settings.msbfs_cuda.schedule`` forces one).
"""

from __future__ import annotations

import numpy as np

from bitgraph import _array
from bitgraph import settings as _settings
from bitgraph.algorithms._common import (check_graph, check_sources, has_out_edges, in_csr,
                                         is_symmetric, out_csr, out_degree, traversal_order)
from bitgraph.errors import InvalidValue

__all__ = ["msbfs", "closeness_centrality", "eccentricity", "diameter",
           "diameter_bounds", "msbfs_schedule"]


def _check_batch(batch, where):
    if isinstance(batch, (bool, np.bool_)) or not isinstance(batch, (int, np.integer)):
        raise TypeError(f"{where}: batch must be an integer in 1..64, got {batch!r}")
    if not 1 <= int(batch) <= 64:
        raise InvalidValue(f"{where}: batch must be in 1..64 (one bit per source"
                           f" in a uint64 word), got {int(batch)}")
    return int(batch)


def _run_batches(A, src, order, batch, levels=None, stats=None):
    """BFS from every src[i]; batches are consecutive runs of ``order``.

    With ``levels`` ((len(src) x n) int32) every entry of row i is written:
    the levels from src[i], -1 where unreached. Returns per-source int64 (count, total, ecc): the
    vertices reached (itself included), the sum and the max of their levels.
    """
    cfg = _settings.current()
    # a source without out-edges reaches itself alone: no traversal, and the
    # batches hold only sources that have some (kron-20: 38% of the vertices
    # have none, so a sample of sources needs that many fewer batches)
    traverse = has_out_edges(A, src[order])
    lone, order = order[~traverse], order[traverse]
    xp = _array.array_module(out_csr(A).indptr)
    if A.device == "cuda":
        count, total, ecc = _run_batches_cuda(A, src, order, batch, levels, cfg, stats)
    else:
        count, total, ecc = _run_batches_cpu(A, src, order, batch, levels, cfg, stats)
    if lone.size:
        count[lone] = 1  # total and ecc stay 0
        if levels is not None:
            levels[xp.asarray(lone)] = -1
            levels[xp.asarray(lone), xp.asarray(src[lone])] = 0
    return count, total, ecc


def _run_batches_cpu(A, src, order, batch, levels, cfg, stats):
    """``_run_batches`` on the CPU (``kernels/cpu/msbfs``), batches the
    consecutive runs of ``order`` (schedule "levels"), or every source of
    ``order`` alone, side by side (schedule "async"); the rows not in
    ``order`` stay 0."""
    from bitgraph.kernels.cpu import num_threads, parallel_map
    from bitgraph.kernels.cpu.msbfs import new_state
    from bitgraph.kernels.registry import lookup

    schedule = _schedule(A, cfg)
    if stats is not None:
        stats.method = "cpu" if schedule == "levels" else "cpu-async"
        stats.ran(("msbfs", "csr", "cpu", "batch" if schedule == "levels" else "sources"))
    a = out_csr(A)
    n = A.nrows
    k = src.size
    count = np.zeros(k, np.int64)
    total = np.zeros(k, np.int64)
    ecc = np.zeros(k, np.int64)
    if schedule == "async":
        sources_run = lookup("msbfs", fmt="csr", device="cpu", variant="sources")
        _, c, s, e = sources_run(a, src[order], levels=levels, rows=order,
                                 write=levels is not None)
        count[order], total[order], ecc[order] = c, s, e
        return count, total, ecc
    batch_run = lookup("msbfs", fmt="csr", device="cpu", variant="batch")
    t = in_csr(A)
    starts = list(range(0, order.size, batch))
    write = levels is not None

    def run(b0, b1, stop_work):
        state = new_state(n, batch if write else 0)  # reused by each batch
        for i in range(int(b0), int(b1)):
            rows = order[starts[i]:starts[i] + batch]
            _, c, s, e = batch_run(a, t, src[rows], levels=levels, rows=rows,
                                   write=write, alpha=cfg.msbfs.alpha,
                                   bu_fail=cfg.msbfs.bottom_up_fail,
                                   stop_work=stop_work, state=state)
            count[rows], total[rows], ecc[rows] = c, s, e

    threads = num_threads()
    nb = len(starts)
    side = nb // threads * threads if threads > 1 else 0
    if side and (n + a.indptr[-1]) * nb < cfg.msbfs.parallel_work:
        side = 0
    if side:
        # whole batches side by side, each serial with its own state
        cuts = np.linspace(0, side, threads + 1).astype(np.int64)
        parallel_map(lambda b0, b1: run(b0, b1, 1 << 62), cuts)
    if side < nb:
        run(side, nb, cfg.msbfs.parallel_work)
    return count, total, ecc


def msbfs_schedule(A) -> str:
    """How msbfs runs its sources on A. On CUDA: ``"coop"`` (one
    cooperative launch, a grid barrier a level) for a graph of long
    diameter (``bfs.long_reach``), ``"async"`` (the batch's BFSs side by
    side, no barriers) for one that is also road-like (at most
    ``settings.msbfs_cuda.async_max_degree`` entries a row), else
    ``"levels"`` (a launch per step, the direction per source);
    ``settings.msbfs_cuda.schedule`` forces one. On the CPU: ``"async"``
    (every source's BFS alone, side by side on the pool) on a deep graph
    (``settings.msbfs.async_min_levels``), else ``"levels"`` (batches of 64,
    bit-parallel); ``settings.msbfs.schedule`` forces one.

    >>> import bitgraph as bg
    >>> msbfs_schedule(bg.io.generators.grid2d(4, 4)), msbfs_schedule(bg.io.generators.grid2d(200, 200))
    ('levels', 'async')
    """
    check_graph(A, "msbfs_schedule", cuda=True)
    return _schedule(A, _settings.current())


def _schedule(A, cfg):
    from bitgraph.algorithms.breadth_first import long_reach

    if A.device != "cuda":
        return _cpu_schedule(A, cfg)
    if cfg.msbfs_cuda.schedule is not None:
        return cfg.msbfs_cuda.schedule
    if not long_reach(A, cfg.bfs):
        return "levels"
    return "async" if A.nvals <= cfg.msbfs_cuda.async_max_degree * max(A.nrows, 1) else "coop"


def _cpu_schedule(A, cfg):
    """``msbfs_schedule`` on the CPU: "async" when the graph is deep (the
    ball around a probe vertex still grows after ``async_min_levels`` hops:
    ``bfs.reach`` with those hops and the whole graph as its share), once
    the usual probe (``bfs.reach``, on a graph of any size) took more than
    ``async_min_reach`` hops; both cached on A."""
    import dataclasses

    from bitgraph.algorithms.breadth_first import reach

    rules = cfg.msbfs
    if rules.schedule is not None:
        if rules.schedule not in ("levels", "async"):
            raise InvalidValue(f"msbfs: settings.msbfs.schedule must be None, 'levels' or"
                               f" 'async', got {rules.schedule!r}")
        return rules.schedule
    if reach(A, dataclasses.replace(cfg.bfs, probe_min_n=0)) <= rules.async_min_reach:
        return "levels"
    hops = int(rules.async_min_levels)
    deep = dataclasses.replace(cfg.bfs, probe_hops=hops, probe_share=1, probe_min_n=0)
    return "async" if reach(A, deep) > hops else "levels"


def _run_batches_cuda(A, src, order, batch, levels, cfg, stats):
    """``_run_batches`` on the GPU (``kernels/cuda/msbfs``): ``levels`` a
    CuPy (len(src) x n) int32 array or None. The bottom-up steps read A' as
    CSR in degree order (``bfs.in_lists_cuda``), cached on A."""
    import contextlib

    from bitgraph.algorithms.breadth_first import in_lists_cuda
    from bitgraph.kernels.cuda.msbfs import batch_start, pipelined, shared_state

    a = out_csr(A)
    schedule = _schedule(A, cfg)
    if stats is not None:
        stats.method = schedule
    t = None if schedule != "levels" else in_lists_cuda(A, cfg.bfs_cuda)  # top-down only
    k = src.size
    count, total, ecc = (np.zeros(k, np.int64) for _ in range(3))
    # two "levels" batches in flight, each on its own state and slot: the next one is queued
    # before the host reads the last one's counters (a trace waits for every level anyway)
    two = schedule == "levels" and order.size > batch and not (stats is not None and stats.trace) \
        and pipelined(A.nrows, cfg.msbfs_cuda)
    with contextlib.ExitStack() as held:
        states = [held.enter_context(shared_state(A.nrows, cfg.msbfs_cuda, slot))
                  for slot in range(2 if two else 1)]
        queued = []  # (rows, Pending), oldest first: one a state at most

        def read(rows, pending):
            _, c, s, e = pending.result()
            count[rows], total[rows], ecc[rows] = c, s, e

        for j, i in enumerate(range(0, order.size, batch)):
            rows = order[i:i + batch]
            slot = j % len(states)
            queued.append((rows, batch_start(
                a, t, src[rows], levels=levels, rows=rows, write=levels is not None,
                state=states[slot], schedule=schedule, cfg=cfg.msbfs_cuda,
                async_cfg=cfg.bfs_async, stats=stats, slot=slot)))
            if len(queued) == len(states):
                read(*queued.pop(0))
        for waiting in queued:
            read(*waiting)
    return count, total, ecc


def _groupby_order(A, src, batch, cfg):
    """iBFS GroupBy: an order of ``src`` whose consecutive runs of ``batch``
    are the batches. Sources of out-degree < cfg.groupby_p are keyed by their
    out-neighbour of largest out-degree when that exceeds cfg.groupby_q (rule
    1 and rule 2 of the paper), and sources with the same key become
    adjacent; the others follow in their given order (cfg: the ``MSBFS``
    settings)."""
    from bitgraph.device import host

    # on the graph's device, only the degrees and rows that the rules read
    # are gathered to the host (a GPU graph's CSR copied whole took 0.2 s
    # at 64 M edges)
    deg = out_degree(A)
    xp = _array.array_module(deg)
    a = out_csr(A)
    key = np.arange(src.size, dtype=np.int64) + A.nrows  # ungrouped: last
    dsrc = host(deg[xp.asarray(src)]).astype(np.int64)
    low = np.flatnonzero((dsrc < cfg.groupby_p) & (dsrc > 0))
    lens = dsrc[low]
    if low.size:
        seg = np.repeat(np.arange(low.size), lens)
        first = host(a.indptr[xp.asarray(src[low])]).astype(np.int64)
        pos = np.repeat(first - np.cumsum(lens) + lens, lens) + np.arange(lens.sum())
        nbr = host(a.indices[xp.asarray(pos)]).astype(np.int64)
        dn = host(deg[xp.asarray(nbr)]).astype(np.int64)
        best = np.lexsort((-dn, seg))  # per source, largest degree first
        head = np.ones(best.size, bool)
        head[1:] = seg[best[1:]] != seg[best[:-1]]
        hub = nbr[best[head]]  # one per low source, in low's order
        shared = dn[best[head]] > cfg.groupby_q
        key[low[shared]] = hub[shared]
    return np.argsort(key, kind="stable")


def msbfs(A, sources, *, batch=64, groupby=False, stats=None):
    """BFS levels from many sources at once (iBFS).

    Row i of the result holds the BFS levels from ``sources[i]`` (hops along
    out-edges: ``levels[i, v]`` = distance from sources[i] to v), -1 where v
    is unreached. Sources may repeat. ``batch`` (1..64) sources share one
    traversal; ``groupby=True`` reorders the sources into batches by the iBFS
    GroupBy rules (low out-degree sources sharing a high out-degree
    neighbour) so that a batch's BFSs overlap more; the rows still follow
    ``sources``. stats: a ``bitgraph.Stats`` to fill (the schedule run and,
    on CUDA, the kernels).

    Returns an int32 ``np.ndarray`` of shape (len(sources), n); a CuPy
    array for a graph on the GPU (``kernels/cuda/msbfs``: 64 sources per
    uint64 status word, top-down and bottom-up levels on the device).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 3], nrows=5, ncols=5)  # 0->1->2->3, 4 alone
    >>> msbfs(A, [0, 2, 0, 4]).tolist()
    [[0, 1, 2, 3, -1], [-1, -1, 0, 1, -1], [0, 1, 2, 3, -1], [-1, -1, -1, -1, 0]]
    """
    where = "msbfs"
    check_graph(A, where, cuda=True)
    batch = _check_batch(batch, where)
    src = check_sources(A, sources, where)
    if A.device == "cuda":
        import cupy

        from bitgraph.device import oom_guard

        with oom_guard(where, 4 * src.size * A.nrows):
            levels = cupy.empty((src.size, A.nrows), np.int32)  # every row written
    else:
        levels = np.empty((src.size, A.nrows), np.int32)  # every row written
    if src.size == 0:
        return levels
    order = (_groupby_order(A, src, batch, _settings.current().msbfs)
             if groupby and src.size > batch else np.arange(src.size))
    _run_batches(A, src, order, batch, levels, stats)
    return levels


def batch_order(A, src) -> np.ndarray:
    """The positions of ``src`` in the order closeness_centrality and
    eccentricity batch them over the graph they walk, A: those with
    out-edges first, in ``anchor_order`` when they make at least
    ``settings.msbfs.group_batches`` batches of 64, then the others (which
    need no traversal). A whole-batch run of it gives itself back, so a
    share of it cut at batch boundaries (``bitgraph.distributed``) runs the
    same batches.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3, 3, 3], [3, 2, 1, 0, 1, 2], nrows=5, ncols=5)
    >>> batch_order(A, np.arange(5)).tolist()  # vertex 4 has no out-edges
    [0, 1, 2, 3, 4]
    >>> with bg.settings.use(msbfs={"group_batches": 1}):
    ...     batch_order(A, np.arange(5)).tolist()
    [3, 2, 1, 0, 4]
    """
    return np.concatenate(batch_split(A, src))


def batch_split(A, src) -> tuple:
    """``batch_order(A, src)`` in its two parts, ``(busy, idle)``: the
    positions of the sources with out-edges, in batch order, and of those
    without (``bitgraph.distributed`` deals each part over the ranks).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3, 3, 3], [3, 2, 1, 0, 1, 2], nrows=5, ncols=5)
    >>> [part.tolist() for part in batch_split(A, np.arange(5))]
    [[0, 1, 2, 3], [4]]
    """
    return traversal_order(A, src, 64, _settings.current().msbfs.group_batches,
                           "settings.msbfs.group_batches")


def _all_or(A, sources, where):
    if sources is None:
        return np.arange(A.nrows, dtype=np.int64)
    return check_sources(A, sources, where)


def closeness_centrality(A, sources=None, *, wf_improved=True, stats=None):
    """Closeness centrality of ``sources`` (all vertices when None), as
    ``networkx.closeness_centrality``.

    For vertex u, with R the vertices that reach u (u included) and
    ``total`` the sum of their distances to u (incoming distances, as
    networkx: for an undirected graph the same as outgoing):
    ``(|R| - 1) / total``, times ``(|R| - 1) / (n - 1)`` when
    ``wf_improved`` (Wasserman-Faust, for disconnected graphs); 0.0 when
    nothing else reaches u. Runs msbfs on the reverse graph in batches of 64,
    keeping only per-source sums (no n x n array). stats: a
    ``bitgraph.Stats`` to fill (the schedule and kernels run).

    Returns a float64 array in the order of ``sources``, on the graph's
    device (numpy, or CuPy for a graph on CUDA).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=4, ncols=4)  # path 0-1-2, 3 alone
    >>> closeness_centrality(A).tolist()
    [0.4444444444444444, 0.6666666666666666, 0.4444444444444444, 0.0]
    >>> closeness_centrality(A, [1], wf_improved=False).tolist()
    [1.0]
    """
    from bitgraph.device import asdevice

    where = "closeness_centrality"
    check_graph(A, where, cuda=True)
    src = _all_or(A, sources, where)
    # incoming distances to u = BFS from u in A'
    out = closeness_of(A, src, batch_order(A.T, src), wf_improved=wf_improved, stats=stats)
    return asdevice(out, A.device, where)


def closeness_of(A, src, order, *, wf_improved=True, stats=None):
    """``closeness_centrality(A, src)`` for checked sources ``src`` (numpy
    int64) batched as consecutive runs of ``order`` (positions of src:
    ``batch_order(A.T, src)``, or any whole-batch run of it, which gives
    itself back: a share of ``bitgraph.distributed`` in its own order,
    ``np.arange``, runs the same batches without ordering them again), as
    a numpy float64 array whatever the graph's device (the values are made
    on the host from the batches' per-source sums).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=4, ncols=4)
    >>> src = np.arange(4)
    >>> closeness_of(A, src, batch_order(A.T, src)).tolist()
    [0.4444444444444444, 0.6666666666666666, 0.4444444444444444, 0.0]
    """
    n = A.nrows
    if src.size == 0:
        return np.zeros(0, np.float64)
    count, total, _ = _run_batches(A.T, src, order, 64, stats=stats)
    reached = count - 1.0
    out = np.zeros(src.size, np.float64)
    ok = (total > 0) & (n > 1)
    # the same float operations, in the same order, as networkx
    out[ok] = reached[ok] / total[ok]
    if wf_improved:
        out[ok] *= reached[ok] / (n - 1)
    return out


def _eccentricities(A, src, where, stats=None):
    count, _, ecc = _run_batches(A, src, batch_order(A, src), 64, stats=stats)
    short = np.flatnonzero(count < A.nrows)
    if short.size:
        i = short[0]
        kind = ("digraph is not strongly connected" if not is_symmetric(A)
                else "graph is not connected")
        raise InvalidValue(f"{where}: found infinite path length because the"
                           f" {kind} (vertex {src[i]} reaches {count[i]} of"
                           f" {A.nrows} vertices)")
    return ecc


def eccentricity(A, sources=None, *, stats=None):
    """Eccentricity of ``sources`` (all vertices when None): the largest BFS
    level from each, following out-edges, as ``networkx.eccentricity``.

    Raises ``InvalidValue`` when a source does not reach every vertex (the
    graph is not connected, or a digraph not strongly connected: some
    distance is infinite). Returns an int64 array in the order of
    ``sources``, on the graph's device (numpy, or CuPy for a graph on CUDA,
    where the BFSs run as GPU msbfs batches). stats: a ``bitgraph.Stats``
    to fill.

    >>> import bitgraph as bg
    >>> A = bg.io.generators.grid2d(2, 3)
    >>> eccentricity(A).tolist()
    [3, 2, 3, 3, 2, 3]
    """
    from bitgraph.device import asdevice

    where = "eccentricity"
    check_graph(A, where, cuda=True)
    src = _all_or(A, sources, where)
    if src.size == 0:
        return asdevice(np.zeros(0, np.int64), A.device, where)
    # the per-source maxima come back to the host with each batch (k words)
    return asdevice(_eccentricities(A, src, where, stats), A.device, where)


DIAMETER_METHODS = ("auto", "bounds", "all")


def diameter(A, *, method="auto", stats=None) -> int:
    """The exact diameter: the largest eccentricity. Raises ``InvalidValue``
    for a graph with no vertices or one that is not (strongly) connected,
    like ``networkx.diameter``. stats: a ``bitgraph.Stats`` to fill
    (``metrics["bfs_sources"]``: the BFSs run).

    method: ``"all"``, a BFS of every vertex (msbfs batches of 64: O(n (n +
    m) / 64) word operations); ``"bounds"`` (undirected graphs), the
    eccentricity bounds of Takes and Kosters ("Determining the diameter of
    small world networks", CIKM 2011; the idea F-Diam refines): every BFS
    from v bounds every w by ``max(ecc(v) - d(v, w), d(v, w)) <= ecc(w) <=
    ecc(v) + d(v, w)``; the diameter lies between the largest lower and the
    largest upper bound, and BFSs run from the vertices whose upper bound
    is still above the largest lower bound (those of largest upper and of
    smallest lower bound, as one msbfs batch: ``settings.msbfs.diameter_batch``
    sources, then twice as many each step up to 64) until the two meet: a handful of BFSs on kron, urand and
    grids instead of n. ``"auto"``: ``"bounds"`` for an undirected graph,
    else ``"all"``. Both run on the GPU for a graph on CUDA.

    >>> import bitgraph as bg
    >>> A = bg.io.generators.grid2d(3, 4)
    >>> diameter(A), diameter(A, method="all")
    (5, 5)
    """
    where = "diameter"
    check_graph(A, where, cuda=True)
    if method not in DIAMETER_METHODS:
        raise InvalidValue(f"{where}: unknown method {method!r}; expected one of {DIAMETER_METHODS}")
    if A.nrows == 0:
        raise InvalidValue(f"{where}: the graph has no vertices")
    symmetric = is_symmetric(A)
    if method == "auto":
        method = "bounds" if symmetric else "all"
    if method == "bounds" and not symmetric:
        raise InvalidValue(f"{where}: method 'bounds' needs an undirected (symmetric) graph;"
                           f" use 'all' or 'auto'")
    if method == "all":
        d = int(_eccentricities(A, np.arange(A.nrows, dtype=np.int64), where, stats).max())
        runs = A.nrows
    else:
        d, runs = _bounded_diameter(A, where, _settings.current().msbfs.diameter_batch, stats)
    if stats is not None:  # after the msbfs calls, which record their schedule
        stats.method = method
        stats.metrics["bfs_sources"] = runs
    return d


def _bounded_diameter(A, where, batch, stats):
    """(diameter, BFSs run) by Takes and Kosters' bounds (see ``diameter``),
    the bound arrays on A's device (one msbfs batch a step, its levels
    reduced there); one host read of the two bounds a step."""
    xp = _array.array_module(A._csr().indptr)
    n = A.nrows
    lo = xp.zeros(n, np.int64)           # ecc(w) >= lo[w]
    hi = xp.full(n, np.iinfo(np.int64).max, np.int64)  # ecc(w) <= hi[w]
    done = xp.zeros(n, np.bool_)         # a BFS ran from w: lo[w] == hi[w] == ecc(w)
    deg = xp.asarray(out_degree(A))
    # the first BFSs: vertices of largest degree (central: small eccentricity, tight bounds)
    V = xp.argsort(-deg, kind="stable")[:min(batch, n)]
    runs = 0
    while True:
        L = msbfs(A, _array_to_host(V), stats=stats)
        runs += V.shape[0]
        if bool((L < 0).any()):
            r = int(xp.flatnonzero((L < 0).any(axis=1))[0])
            v = int(xp.flatnonzero(L[r] < 0)[0])
            raise InvalidValue(f"{where}: found infinite path length because the graph is not"
                               f" connected (vertex {v} is not reachable from {int(V[r])})")
        for i in range(V.shape[0]):
            d = L[i].astype(np.int64)
            e = d.max()
            xp.maximum(lo, xp.maximum(e - d, d), out=lo)
            xp.minimum(hi, e + d, out=hi)
        done[V] = True
        lower, upper = int(lo.max()), int(hi.max())
        if lower == upper:
            break
        # the vertices that may still have an eccentricity above the lower bound
        cand = xp.flatnonzero((hi > lower) & ~done)
        batch = min(64, 2 * batch)  # few steps where the bounds prune, full batches where not
        k = min(batch, int(cand.shape[0]))
        by_hi = cand[xp.argsort(-hi[cand], kind="stable")[:(k + 1) // 2]]
        by_lo = cand[xp.argsort(lo[cand], kind="stable")[:k]]
        V = _array.unique(xp.concatenate([by_hi, by_lo]))[:max(k, 1)]
        if by_hi.shape[0] and not bool(xp.isin(by_hi[:1], V)[0]):
            V = xp.concatenate([by_hi[:1], V[:-1]])  # the largest upper bound always runs
    return lower, runs


def _array_to_host(a):
    from bitgraph.device import host

    return host(a).astype(np.int64)


def diameter_bounds(A, *, samples=16, seed=0):
    """``(lower, upper)`` with ``lower <= diameter(A) <= upper``, from a few
    msbfs sweeps instead of a BFS from every vertex.

    ``samples`` distinct vertices S are drawn (``seed``); W are the farthest
    vertices from each of S (the double sweep). Then

    - lower = the largest eccentricity among S and W (each is a distance
      that exists, so at most the diameter);
    - upper = min over v in S and W of ``2 * ecc(v)`` for an undirected
      graph (d(x, y) <= d(x, v) + d(v, y)), and of ``ecc_out(v) + ecc_in(v)``
      for a directed one (``ecc_in``: the largest distance *to* v, BFS in
      A'; the directed lower bound uses both too).
    - undirected only, a third sweep as in the 4-sweep heuristic: from w, the
      vertex of S and W of largest eccentricity, to z its farthest vertex
      (ecc(z) joins lower), and from up to 64 vertices halfway along
      shortest w-z paths (2 * their least ecc joins upper): on trees and
      grids this meets the diameter.

    Both are exact bounds for every connected graph (strongly connected,
    directed): the BFSs from S themselves prove connectivity, and a graph
    where they do not reach every vertex (in both directions, directed)
    raises ``InvalidValue`` (its diameter is infinite), as ``diameter`` does.
    Cost: about 2 msbfs batches of ``samples`` sources (directed: 4) and 3
    more batches; on the GPU for a graph on CUDA (each batch's levels are
    reduced there, and only per-source maxima and the two single-source
    level arrays of the third sweep come to the host).

    >>> import bitgraph as bg
    >>> diameter_bounds(bg.io.generators.grid2d(9, 9), samples=4)
    (16, 16)
    """
    from bitgraph.device import host

    where = "diameter_bounds"
    check_graph(A, where, cuda=True)
    if isinstance(samples, (bool, np.bool_)) or not isinstance(samples, (int, np.integer)):
        raise TypeError(f"{where}: samples must be a positive integer, got {samples!r}")
    if samples < 1:
        raise InvalidValue(f"{where}: samples must be >= 1, got {samples}")
    n = A.nrows
    if n == 0:
        raise InvalidValue(f"{where}: the graph has no vertices")
    directed = not is_symmetric(A)
    rng = np.random.default_rng(seed)
    S = np.sort(rng.choice(n, size=min(int(samples), n), replace=False)).astype(np.int64)

    def sweep(V):
        # out-eccentricity and one farthest vertex of each of V, 64 at a time
        ecc = np.empty(V.size, np.int64)
        far = np.empty(V.size, np.int64)
        # (levels on the graph's device, reduced there: argmax is the first
        # farthest vertex on numpy and CuPy alike)
        for i in range(0, V.size, 64):
            L = msbfs(A, V[i:i + 64])
            short = host((L < 0).any(axis=1))
            if short.any():
                r = int(np.flatnonzero(short)[0])
                v = int(np.flatnonzero(host(L[r]) < 0)[0])
                kind = "digraph is not strongly connected" if directed else "graph is not connected"
                raise InvalidValue(f"{where}: the diameter is infinite: the {kind}"
                                   f" (vertex {v} is not reachable from {V[i + r]})")
            ecc[i:i + 64] = host(L.max(axis=1))
            far[i:i + 64] = host(L.argmax(axis=1))
        return ecc, far

    ecc_s, far = sweep(S)
    W = np.setdiff1d(far, S)
    ecc_w, _ = sweep(W)
    V = np.concatenate([S, W])
    ecc_out = np.concatenate([ecc_s, ecc_w])
    lower = int(ecc_out.max())
    if directed:
        # a source reaching all and reached by all proves strong connectivity
        ecc_in = _eccentricities(A.T, V, where)
        return max(lower, int(ecc_in.max())), int((ecc_out + ecc_in).min())
    upper = int(2 * ecc_out.min())
    # third sweep: w -> z, then the middle of that shortest path
    w = V[np.argmax(ecc_out)]
    Lw = host(msbfs(A, [w])[0])  # n levels each: on the host for the path's middle
    z = int(Lw.argmax())
    Lz = host(msbfs(A, [z])[0])
    d = int(Lw[z])
    lower = max(lower, int(Lz.max()))
    mid = np.flatnonzero((Lw + Lz == d) & (Lw == d // 2))
    mid = mid[np.linspace(0, mid.size - 1, min(mid.size, 64)).astype(np.int64)]
    upper = min(upper, 2 * int(_eccentricities(A, mid, where).min()))
    return lower, upper
