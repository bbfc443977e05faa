"""Breadth-first search: levels and a BFS tree, by six methods.

``bfs(A, s)`` follows out-edges (entry (i, j) of A is an edge i -> j) and
returns the level of every vertex reached from s. The methods:

- ``"pull"``: the GraphBLAS formulation, one masked product per level,
  ``q<!visited, replace> = q lor.land A`` (``ANY_SECONDI`` when parents are
  asked: the product's value is then the parent's id). ``plan`` picks the
  kernel (push SpMSpV for a sparse q, B2SR or CSR pull otherwise). It costs
  O(n / 32) per level besides the product, so it suits low-diameter graphs;
  it is the reference the fused methods are tested against.
- ``"push"``: top-down only, work-efficient (BFS-4K): the frontier is a
  queue, levels whose frontier has few edges run serially in one kernel
  call (thousands of levels of a road network cost one call), larger ones
  in parallel with an exact atomic test-and-set on the visited bitmap.
- ``"direction"``: XBFS's rule per level: bottom-up (each unvisited vertex
  scans its in-neighbours and stops at the first in the frontier) when the
  frontier's out-edges exceed ``alpha * m``, else top-down as in push.
- ``"blest"``: Blest's pull on BVSS (``A.T.bvss(sigma=8, reorder=...)``),
  one BVSS step per level (``kernels/cpu/bfs_bvss.py``; the CUDA backend
  runs the fused tensor-core kernel). Parents come from a second pass.
- ``"async"`` (CUDA only): no levels at all: an asynchronous
  label-correcting traversal (``kernels/cuda/bfs_async.cu``: a work list of
  (vertex, level) items, atomicMin on the levels, every improvement
  relaxed again), exact at its fixpoint; for graphs of thousands of levels,
  which the level-synchronous kernels pay one grid-wide barrier each.
- ``"window"`` (CUDA only): async with a window (``kernels/cuda/
  bfs_window.cu``): an item is relaxed only within
  ``settings.bfs_cuda.window_levels`` levels of the least level with
  pending items, so a vertex is rarely relabelled; for long mesh-like
  graphs of mean degree 8-32 (rgg, grids with diagonals), where plain
  async relabels each vertex 4-9 times.
- ``"hops"`` (CUDA only): levels in groups of
  ``settings.bfs_cuda.hops_levels`` a grid barrier (``kernels/cuda/
  bfs_hops.cu``): each block walks its share of a group's first frontier
  that many hops on its own, atomicMin on the levels, a block barrier
  between hops; exact at each group's end; for the same long mesh-like
  graphs.
- ``"auto"``: ``bfs_method(A)``: on CUDA ``"hops"`` for a graph of long
  diameter (a short probe, cached) and moderate degree, ``"blest"`` for a
  mesh of middle reach and high degree in a local order (26-neighbour 3D
  meshes), else ``"direction"``; on the CPU
  ``"direction"``; on a high-diameter graph direction never leaves
  top-down and is then the push method.

On a CUDA graph (``A.device == "cuda"``) the methods of ``METHODS_CUDA``
run on the GPU and return CUDA Vectors. ``"blest"``, ``"push"`` and
``"direction"`` are one persistent cooperative kernel for the whole
traversal (``kernels/cuda/bfs_fused.cu``), with no host round trip per
level, and share its bottom-up levels (over the CSR of A', when the
frontier's out-degrees exceed ``settings.bfs_cuda.alpha * m``), its frontier bitmaps and
its single-block levels (small frontiers run in one thread block, with
block barriers only). ``"blest"``: tensor-core top-down levels on the BVSS
with Blest's eager or lazy update. ``"push"``: BFS-4K's top-down levels
over A's CSR (a group of 4-32 lanes per frontier vertex, hubs to a
per-block bin, the largest split into chunks over many blocks), never
bottom-up. ``"direction"``: push's top-down levels, scan-free or
single-scan (XBFS), and bottom-up levels by alpha. ``"async"`` is its own
kernel (above), and ``"window"`` its windowed twin; when the work list
fills up (4 items per vertex) either gives up and push runs instead.
``"hops"`` is a cooperative kernel of its own (``kernels/cuda/bfs_hops.cu``);
when a phase's queue fills up it gives up and push runs instead.
"""

from __future__ import annotations

import math

import numpy as np

from bitgraph import _array
from bitgraph import settings as _settings
from bitgraph.algorithms._common import (cached, check_graph, check_source, graph_device,
                                         in_csr, known, median_spread, out_csr, record)
from bitgraph.errors import InvalidValue

__all__ = ["bfs", "bfs_method", "blest_layout", "long_reach", "reach", "METHODS", "METHODS_CUDA",
           "CUDA_ONLY"]

METHODS = ("auto", "pull", "push", "direction", "blest", "async", "window", "hops")
OWN_ORDER = ("blest",)  # methods whose kernels walk a reorder= vertex order themselves
METHODS_CUDA = ("auto", "pull", "push", "direction", "blest", "async", "window", "hops")
CUDA_ONLY = ("async", "window", "hops")  # methods that run on CUDA graphs only


def bfs(A, source, *, parents=False, method="auto", alpha=None, reorder="none", stats=None):
    """BFS levels from ``source`` (and a BFS tree when ``parents=True``).

    Returns the levels as an int32 Vector (the source at 0, unreached
    vertices absent: ``to_dense(-1)`` gives -1 for them), or ``(levels,
    parents)`` with parents an int64 Vector over the same vertices (the
    source is its own parent; any valid BFS tree). Edges follow A's rows:
    i -> j for each stored (i, j), whatever its value.

    method: ``"auto"``, ``"pull"``, ``"push"``, ``"direction"``,
    ``"blest"`` or (CUDA only) ``"async"``, ``"window"`` (see the module docstring).
    alpha: the direction switch (bottom-up when the frontier's out-edges > alpha * nvals; default
    ``settings.bfs.alpha``, on CUDA ``settings.bfs_cuda.alpha``). reorder: the vertex order the
    traversal walks (``"none"``, ``"auto"``, ``"rcm"``, ... of ``bitgraph.formats.reorder``;
    built once, cached on A; the result is in A's own order): the BVSS's for ``"blest"``, and
    for the other methods a renumbered copy of A (a graph whose ids are random, such as a
    generated rgg, keeps a wavefront in few cache lines in RCM order).
    stats: a ``bitgraph.Stats`` to fill with the method run and, on CUDA, the
    kernels' metrics (levels, modes, kernel time).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 1, 3], [1, 2, 3, 4], nrows=6, ncols=6)
    >>> levels, parents = bg.algorithms.bfs(A, 0, parents=True)
    >>> levels.to_dense(-1).tolist()
    [0, 1, 2, 2, 3, -1]
    >>> parents.to_dense(-1).tolist()
    [0, 0, 1, 1, 3, -1]
    """
    if not parents and alpha is None and reorder == "none" and stats is None and \
            type(source) is int:
        # a repeated levels-only call on a CUDA graph: the launch the last one
        # ran, while the settings (the same object), the method and the device
        # are those it was prepared under; A, the method and the settings were
        # checked then (a change of A's storage drops the slot)
        hot = A._cache.own.bfs_cuda_hot if type(A) is _MATRIX else None
        if hot is not None and hot[0] is _settings.current() and hot[1] == method and \
                0 <= source < hot[3].n and hot[2] == _GET_DEVICE():
            levels, visited = hot[3].go(source, hot[2])
            return _VECTOR._from_parts(visited, levels, hot[3].n, _INT32)
    cuda = graph_device(A, "bfs", cuda=True) == "cuda"
    s = check_source(A, source, "bfs")
    if method not in METHODS:
        raise InvalidValue(f"bfs: unknown method {method!r}; expected one of {METHODS}")
    if cuda and method not in METHODS_CUDA:
        raise InvalidValue(f"bfs: method {method!r} does not run on CUDA; on CUDA:"
                           f" {METHODS_CUDA} (or use A.to('cpu'))")
    cfg = _settings.current()
    plain = alpha is None and reorder == "none"  # a call the hot path may take next time
    if alpha is None:
        alpha = cfg.bfs_cuda.alpha if cuda else cfg.bfs.alpha
    if not (isinstance(alpha, (int, float, np.floating, np.integer)) and alpha >= 0):
        raise InvalidValue(f"bfs: alpha must be a number >= 0, got {alpha!r}")
    if reorder not in ("none", "natural") and method not in OWN_ORDER:
        from bitgraph.formats.reorder import METHODS as ORDERS

        if reorder not in ORDERS:
            raise InvalidValue(f"bfs: unknown reorder {reorder!r}; expected one of {ORDERS}")
        if method == "auto":
            method = _method(A, cfg)
        if method not in OWN_ORDER:
            return _renumbered_bfs(A, s, parents, method, alpha, reorder, stats)
    if cuda and not parents:
        # the launch prepared for this graph and these settings: a call is
        # one allocation and one launch, and the kernel's levels (0 where
        # unreached) and visited bits are the Vector as they are
        asked = method
        method, run = _prepared(A, method, alpha, reorder, cfg)
        if run is not None:
            if stats is not None:
                stats.method = method
            levels, visited = run(s, stats)
            if plain and type(A) is _matrix():
                A._slots().bfs_cuda_hot = (cfg, asked, run.device, run)
            return _vector()._from_parts(visited, levels, dtype=_INT32)
    if method == "auto":
        method = _method(A, cfg)
    if stats is not None:
        stats.method = method
    if cuda:
        visited = None  # the reached vertices' bits, where the kernel gives them
        if method == "pull":
            levels, par = _pull(A, s, parents)
        elif method in ("push", "direction"):
            levels, visited, par = _csr_cuda(A, s, parents,
                                             alpha if method == "direction" else None, cfg, stats)
        elif method in CUDA_ONLY:
            levels, visited, par = _levels_cuda(A, s, parents, method, cfg, stats)
        else:
            levels, visited, par = _blest_cuda(A, s, reorder, parents, alpha, cfg, stats)
        xp = _array.array_module(levels)
        if visited is None:  # our kernel, not a CuPy JIT one (a fresh machine's first call)
            from bitgraph.kernels import registry

            visited = registry.lookup("pack_bits", fmt="dense", device="cuda",
                                      variant="bool")(levels >= 0)
        return _result(xp.maximum(levels, 0), par if par is None else xp.maximum(par, 0),
                       visited)
    if method in CUDA_ONLY:
        raise InvalidValue(f"bfs: method {method!r} runs on CUDA graphs only (A.to('cuda'))")
    if method == "pull":
        levels, par = _pull(A, s, parents)
    elif method == "blest":
        levels = _blest(A, s, reorder)
        par = _tree(A, s, levels) if parents else None
    else:
        levels, par, visited = _fused(A, s, parents, alpha if method == "direction" else math.inf,
                                      cfg.bfs)
        return _result(levels, par, visited)
    return _result(np.maximum(levels, 0), par if par is None else np.maximum(par, 0),
                   _array.pack_bits(levels >= 0))


def bfs_method(A) -> str:
    """The method ``bfs(A, s, method="auto")`` runs on A.

    On CUDA, for a graph of long diameter (:func:`long_reach`) of mean
    out-degree at most ``settings.bfs_cuda.hops_max_degree``: ``"hops"`` (a
    grid barrier every ``settings.bfs_cuda.hops_levels`` hops, the hops
    between them each block's own); for a mesh of middle reach
    (:func:`reach` from ``settings.bfs_cuda.blest_min_reach`` hops), mean
    out-degree at least ``blest_min_degree`` and local ids: ``"blest"`` (the
    BVSS pull); else ``"direction"``, the fastest level-synchronous method
    (or within 4% of it) on every graph family. On rgg-22 (mean degree 16,
    1,044 levels, H200) hops takes 5.1 ms against direction's 8.6; on
    grid-2048 5.2 against async's 6.6; on the 26-neighbour 161^3 mesh (157
    levels) blest 2.1 against direction's 4.9; on R-MAT, where a few huge
    levels want the bottom-up steps, direction. On the CPU: ``"direction"``.
    ``python benchmarks/run.py --algo bfs --device cuda`` times every method.

    >>> import bitgraph as bg
    >>> bg.algorithms.bfs_method(bg.io.generators.from_spec("grid:4x4"))
    'direction'
    """
    check_graph(A, "bfs_method", cuda=True)
    return _method(A, _settings.current())


def _method(A, cfg) -> str:
    """``bfs_method`` under the settings ``cfg``."""
    c = cfg.bfs_cuda
    if A.device == "cuda":
        hops = reach(A, cfg.bfs)
        # a long graph of moderate degree (grids, rgg): k hops a grid barrier
        if hops > cfg.bfs.probe_hops and A.nvals <= c.hops_max_degree * A.nrows:
            return "hops"
        # a mesh of high degree and middle reach in a local order (26-neighbour 3D
        # meshes): the BVSS pull, whose slices hold a row's neighbours in few words
        if c.blest_min_reach <= hops <= cfg.bfs.probe_hops and \
                A.nvals >= c.blest_min_degree * A.nrows and \
                _spread(A, cfg) * c.blest_local_share < A.nrows:
            return "blest"
    return "direction"


def _spread(A, cfg) -> float:
    """The median |i - j| of sampled entries of A (``median_spread``;
    ``cfg.components.samples`` of them), cached on A in the slot the CUDA
    Afforest's test fills from A's undirected form (the same median on a
    symmetric graph, and the same question: are A's ids local?)."""
    def spread():
        a = out_csr(A)
        return median_spread(a.indptr, a.indices, cfg.components.samples)

    return cached(A, "entry_spread", spread)


def long_reach(A, cfg=None) -> bool:
    """Of long diameter: :func:`reach` above ``cfg.probe_hops`` (``cfg``:
    the ``BFS`` settings, the current ones by default). msbfs on CUDA runs
    such graphs in one cooperative launch.

    >>> import bitgraph as bg
    >>> from bitgraph.algorithms.breadth_first import long_reach
    >>> long_reach(bg.io.generators.from_spec("grid:400x400"))
    True
    """
    cfg = _settings.current().bfs if cfg is None else cfg
    return reach(A, cfg) > cfg.probe_hops


def reach(A, cfg=None) -> int:
    """The hops a ball around a random vertex takes to pass n /
    ``cfg.probe_share`` vertices (the probe of :func:`_probe_reach` on A's
    CSR, where A lies: CuPy on a CUDA graph; cached on A): 2-4 on R-MAT and
    uniform random graphs, 17 on a 26-neighbour 161^3 mesh, ``probe_hops +
    1`` on a graph of long diameter (a grid, a road network); 0 when the
    probe says nothing (fewer than ``cfg.probe_min_n`` vertices, or every
    probed component ends first). ``cfg``: the ``BFS`` settings, the current
    ones by default.

    >>> import bitgraph as bg
    >>> from bitgraph.algorithms.breadth_first import reach
    >>> reach(bg.io.generators.from_spec("kron:17")), reach(bg.io.generators.from_spec("grid:400x400"))
    (2, 25)
    """
    cfg = _settings.current().bfs if cfg is None else cfg
    if A.nrows < cfg.probe_min_n:
        return 0

    def probe():
        a = out_csr(A)
        return _probe_reach(a.indptr, a.indices, A.nrows, _array.array_module(a.indptr), cfg)

    return cached(A, "reach", probe, key=(cfg.probe_sources, cfg.probe_hops, cfg.probe_share))


def _probe_reach(indptr, indices, n, xp, cfg) -> int:
    """``cfg.probe_hops`` hops of a ball from ``cfg.probe_sources`` random
    vertices of non-zero out-degree (numpy or CuPy arrays, ``xp`` their
    module), one source after another: the hops after which the first ball
    to pass n / cfg.probe_share vertices did so (the probe stops there);
    ``probe_hops + 1`` when none did and one still grew at its last hop; 0
    when every source's ball stopped growing first (a component says
    nothing of the graph). On CUDA a hop is one of our kernels'
    (``graph_prep.ball_hops``: none of CuPy's, which a fresh machine would
    compile), on the CPU array operations."""
    if xp is np:
        live = np.flatnonzero(np.diff(indptr) > 0)
        ball = _ball_hops
    else:
        from bitgraph.kernels import registry

        bits, _ = registry.lookup("empty_rows", fmt="csr", device="cuda", variant="bits")(indptr)
        empty = np.unpackbits(bits.get().view(np.uint8), bitorder="little")[:n]
        live = np.flatnonzero(empty == 0)
        ball = registry.lookup("ball_hops", fmt="csr", device="cuda", variant="probe")
    if live.size == 0:
        return 0
    picks = np.random.default_rng(0).integers(0, int(live.size), cfg.probe_sources)
    target = n // cfg.probe_share
    out = 0
    for s in live[picks].tolist():
        hops = ball(indptr, indices, s, cfg.probe_hops, target)
        if 0 < hops <= cfg.probe_hops:
            return hops  # a ball passed the share
        out = max(out, hops)
    return out


def _ball_hops(indptr, indices, source, hops, target) -> int:
    """``graph_prep.ball_hops`` on numpy arrays: the hops after which the
    ball around ``source`` first holds ``target`` vertices (at most
    ``hops``), ``hops + 1`` when it still grew at its last hop, 0 when it
    stopped growing first. Each hop is array operations: the positions of
    the frontier's entries by a search in the running sum of their rows'
    lengths."""
    n = indptr.shape[0] - 1
    seen = np.zeros(n, bool)
    seen[source] = True
    frontier = np.asarray([source], dtype=indptr.dtype)
    reached = 1
    for hop in range(1, hops + 1):
        starts = indptr[frontier]
        lens = indptr[frontier + 1] - starts
        ends = np.cumsum(lens)
        total = int(ends[-1])
        k = np.arange(total, dtype=ends.dtype)
        row = np.searchsorted(ends, k, side="right")  # entry k's frontier vertex
        nb = indices[starts[row] + k - (ends[row] - lens[row])]
        frontier = _array.unique(nb[~seen[nb]])
        seen[frontier] = True
        reached += int(frontier.size)
        if reached >= target:
            return hop
        if frontier.size == 0:
            return 0
    return hops + 1


def _vector():
    # bitgraph.vector.Vector, imported once (an import statement costs ~0.5 us a call)
    global _VECTOR
    if _VECTOR is None:
        from bitgraph.vector import Vector

        _VECTOR = Vector
    return _VECTOR


def _matrix():
    """bitgraph.matrix.Matrix, imported once: the hot path reads ``_MATRIX``
    (None until a CUDA call prepared a launch, so that no call takes it)."""
    global _MATRIX
    if _MATRIX is None:
        from bitgraph.matrix import Matrix

        _MATRIX = Matrix
    return _MATRIX


_VECTOR = _MATRIX = None
_INT32 = np.dtype(np.int32)  # the levels' type: given to the Vector, not looked up per call
_GET_DEVICE = None  # cupy.cuda.runtime.getDevice, bound on the first CUDA call


def _result(levels, parents, bitmap):
    """The Vectors: ``bitmap`` the reached vertices, values 0 elsewhere."""
    from bitgraph.vector import Vector

    lv = Vector._from_parts(bitmap, levels)
    if parents is None:
        return lv
    return lv, Vector._from_parts(bitmap.copy(), parents)


def _pull(A, s, want_parents):
    """One public-API masked product per level (the GraphBLAS BFS)."""
    import bitgraph as bg

    n = A.nrows
    levels = _array.array_module(A._csr().indptr).full(n, -1, np.int32)
    if want_parents:
        # q(j) = parent id: any.secondi gives the row k of A(k, j) that met q(k)
        q = bg.Vector.from_coo([s], [s], size=n, dtype=np.int64, device=A.device)
        semiring = bg.ANY_SECONDI
    else:
        q = bg.Vector.from_indices([s], size=n, device=A.device)
        semiring = bg.LOR_LAND
    seen = q.copy()  # visited, with the parents as its values
    level = 0
    while q.nvals:
        levels[q.indices()] = level
        q = bg.vxm(q, A, semiring, mask=~seen.S, replace=True)
        seen = bg.ewise_add(seen, q, "first")
        level += 1
    par = seen.to_dense(-1).astype(np.int64) if want_parents else None
    return levels, par


def _fused(A, s, want_parents, alpha, cfg):
    """Direction-optimising BFS on the fused CSR steps (push only when
    alpha is inf); cfg: the ``BFS`` settings."""
    from bitgraph.kernels import registry

    def kernel(variant):
        return registry.lookup("bfs", fmt="csr", device="cpu", variant=variant)

    push_levels, push_step, pull_step = kernel("push_levels"), kernel("push"), kernel("pull")
    bits_to_queue = registry.lookup("convert", fmt="bitmap", device="cpu", variant="to_queue")
    queue_to_bits = registry.lookup("convert", fmt="queue", device="cpu", variant="to_bitmap")

    out = out_csr(A)
    n, m = A.nrows, A.nvals
    idx = np.dtype(np.int64 if out.indices.dtype.itemsize > 4 or out.indptr.dtype.itemsize > 4
                   else np.int32)
    # levels and parents are written where visited: 0 elsewhere is what the
    # result Vectors hold, so the visited bitmap is their structure as is
    levels = np.zeros(n, np.int32)
    parents = None
    if want_parents:
        parents = np.zeros(n, np.int64)
        parents[s] = s
    visited = np.zeros((n + 31) // 32, np.uint32)
    visited[s >> 5] = np.uint32(1) << np.uint32(s & 31)
    queue = np.empty(n, idx)
    queue[0] = s
    qlen, level = 1, 0
    switch = alpha * m
    while True:
        # top-down: small levels serially, in one call
        queue, qlen, level, work = push_levels(
            out, queue, qlen, visited, levels, parents, level,
            max_work=min(cfg.serial_level_work, switch))
        if qlen == 0:
            break
        if work > switch:
            # bottom-up while the frontier stays large
            inc = in_csr(A)
            frontier = queue_to_bits(queue[:qlen], n)
            while work > switch:
                frontier, found, work = pull_step(inc, out.indptr, frontier, visited,
                                                  levels, parents, level + 1)
                if not found:
                    break
                level += 1
                visited |= frontier
            if not found:
                break
            nxt = bits_to_queue(frontier, n, idx)
        else:
            nxt = push_step(out, queue[:qlen], visited, levels, parents, level + 1)
            level += 1
            if not nxt.size:
                break
        qlen = nxt.size
        if queue.size < n or queue.dtype != idx:
            queue = np.empty(n, idx)
        queue[:qlen] = nxt
    return levels, parents, visited


def blest_layout(A, reorder="none"):
    """The BVSS ``bfs(method="blest")`` reads: that of A' (row u lists u's
    in-neighbours), sigma 8, built once and cached on A; A's own when A is
    known to be symmetric (the same thing, without building A')."""
    return (A if known(A, "symmetric") else A.T).bvss(sigma=8, reorder=reorder)


def _blest(A, s, reorder):
    """Levels from Blest steps on the BVSS of A' (original vertex ids)."""
    from bitgraph.kernels import registry

    bits_to_queue = registry.lookup("convert", fmt="bitmap", device="cpu", variant="to_queue")
    step = registry.lookup("bfs", fmt="bvss", device="cpu", variant="step")
    b = blest_layout(A, reorder)
    n = b.nrows
    if b.perm is not None:
        inv = np.empty(n, np.int64)
        inv[b.perm] = np.arange(n)
        s = int(inv[s])
    lv = np.full(n, -1, np.int32)
    lv[s] = 0
    frontier = np.zeros((n + 31) // 32, np.uint32)
    frontier[s >> 5] = np.uint32(1) << np.uint32(s & 31)
    visited = frontier.copy()
    blk = s // b.sigma
    queue = np.arange(b.real_ptrs[blk], b.real_ptrs[blk + 1], dtype=np.int32)
    level = 0
    while queue.size:
        frontier, queue = step(b, frontier, visited, queue)
        level += 1
        lv[bits_to_queue(frontier, n, np.int64)] = level
        visited |= frontier
    return lv if b.perm is None else lv[inv]


def _tree(A, s, levels):
    """Parents from levels: for each reached v, an in-neighbour one level up."""
    from bitgraph.kernels import registry

    parents_from_levels = registry.lookup("bfs", fmt="csr", device="cpu", variant="parents")
    parents = np.full(A.nrows, -1, np.int64)
    parents[s] = s
    return parents_from_levels(in_csr(A), levels, parents)


def _prepared(A, method, alpha, reorder, cfg):
    """``(method, run)`` for a CUDA bfs without parents: the method
    ``method`` resolves to (auto: ``_method``) and, for push, direction and
    blest in A's own vertex order, the kernel's launch prepared once
    (``bfs_fused.Prepared``: ``run(source, stats) -> (levels, visited)``,
    levels 0 where unreached), else None (pull, async, a reordered BVSS:
    their own paths). Kept on A (slot ``bfs_cuda_launch``) per current
    device, method, alpha, reorder and the ``bfs_cuda`` and ``bfs`` settings,
    the last few only."""
    global _GET_DEVICE
    if _GET_DEVICE is None:
        import cupy

        _GET_DEVICE = cupy.cuda.runtime.getDevice
    key = (_GET_DEVICE(), method, alpha, reorder, cfg.bfs_cuda, cfg.bfs)
    got = known(A, "bfs_cuda_launch", key=key)
    if got is None:
        chosen = _method(A, cfg) if method == "auto" else method
        run = None
        if chosen in ("push", "direction"):
            run = _csr_cuda(A, None, False, alpha if chosen == "direction" else None, cfg, None,
                            prepare=True)
        elif chosen == "blest" and blest_layout(A, reorder).perm is None:
            run = _blest_cuda(A, None, reorder, False, alpha, cfg, None, prepare=True)
        got = (chosen, run)
        # the last 4 kept: a sweep of alpha or of settings does not pile up
        # launches (each holds its arrays: int64 copies of a mixed-index CSR)
        record(A, "bfs_cuda_launch", got, key=key, most=4)
    return got


def _blest_cuda(A, s, reorder, want_parents, alpha, cfg, stats, prepare=False):
    """Levels (int32 CuPy, -1 unreached), the reached vertices' bits (None
    under a reorder) and parents (int64 or None) from the persistent Blest
    kernel, in original vertex ids. prepare (A's own order only): the
    launch prepared for every source instead, levels 0 where unreached."""
    import cupy

    from bitgraph.kernels import registry

    run = registry.lookup("bfs", fmt="bvss", device="cuda", variant="fused")
    b = blest_layout(A, reorder)
    inc = in_csr(A)
    deg = _out_degree_cuda(A)
    perm = None
    csr = inc
    out = inc if known(A, "symmetric") else out_csr(A)
    if b.perm is not None:
        perm = cached(A, f"blest_perm:{reorder}", lambda: cupy.asarray(b.perm, cupy.int64))
        csr = cached(A, f"blest_in_csr:{reorder}", lambda: _permuted(inc, b.perm))
        out = csr if known(A, "symmetric") else \
            cached(A, f"blest_out_csr:{reorder}", lambda: _permuted(out, b.perm))
        deg = cached(A, f"blest_out_degree:{reorder}", lambda: deg[perm])
        s = int(np.flatnonzero(b.perm == s)[0]) if isinstance(b.perm, np.ndarray) \
            else int(cupy.flatnonzero(perm == s)[0])
    lazy = cached(A, f"blest_lazy:{reorder}", lambda: _lazy_rule(A, b, cfg.bfs_cuda))
    # alpha = inf: never bottom-up (inf * 0 edges is nan: no edges, no switch)
    alpha_m = 2**63 if math.isinf(alpha) else int(min(alpha * A.nvals, 2.0**63))
    dead, bu_keep = _dead(A, csr, f"dead_bits:{reorder}", cfg.bfs_cuda)
    kw = dict(cfg=cfg.bfs_cuda, alpha_m=alpha_m, lazy=lazy, bottom_up=True, visited=True,
              dead=dead, bu_keep=bu_keep)
    if prepare:
        assert perm is None
        return run(b, csr, out, deg, None, unreached=0, prepare=True, **kw)
    lv, vis = run(b, csr, out, deg, s, stats=stats, **kw)
    if perm is not None:
        out = cupy.empty_like(lv)
        out[perm] = lv
        lv, vis = out, None  # the bitmap is in BVSS order
        s = int(b.perm[s])
    par = None
    if want_parents:
        par = registry.lookup("bfs", fmt="csr", device="cuda", variant="parents")(inc, lv, s)
    return lv, vis, par


def _csr_cuda(A, s, want_parents, alpha, cfg, stats, prepare=False):
    """Levels (int32 CuPy, -1 unreached), the reached vertices' bits and
    parents (int64 or None) from the persistent kernel's CSR form: BFS-4K's
    top-down (push; alpha None) or with XBFS's bottom-up levels (direction).
    prepare: the launch prepared for every source instead, levels 0 where
    unreached."""
    from bitgraph.kernels import registry

    run = registry.lookup("bfs", fmt="csr", device="cuda", variant="fused")
    out = out_csr(A)
    bottom_up = alpha is not None
    alpha_m = 2**63 if not bottom_up or math.isinf(alpha) else int(min(alpha * A.nvals, 2.0**63))
    bu = in_lists_cuda(A, cfg.bfs_cuda) if bottom_up else out
    dead, bu_keep = _dead(A, bu, "dead_bits:none", cfg.bfs_cuda) if bottom_up else (None, -1)
    kw = dict(cfg=cfg.bfs_cuda, alpha_m=alpha_m, bottom_up=bottom_up, visited=True, dead=dead,
              bu_keep=bu_keep)
    if prepare:
        return run(bu, out, _out_degree_cuda(A), None, unreached=0, prepare=True, **kw)
    lv, vis = run(bu, out, _out_degree_cuda(A), s, stats=stats, **kw)
    par = None
    if want_parents:
        par = registry.lookup("bfs", fmt="csr", device="cuda", variant="parents")(in_csr(A), lv, s)
    return lv, vis, par


def _levels_cuda(A, s, want_parents, method, cfg, stats):
    """Levels (int32 CuPy, -1 unreached), None for the bits, and parents
    from one of the kernels that give levels alone, ``method``: "async"
    (``kernels/cuda/bfs_async``: the label-correcting work list), "window"
    (``bfs_window``: its windowed twin) or "hops" (``bfs_hops``: a grid
    barrier every few hops); the push method when the kernel gives up (its
    work list or queue full). (``reorder=`` runs them on A renumbered,
    ``_renumbered_bfs``: a mesh in a locality order, RCM, keeps a wavefront's
    rows and levels in few cache lines; rgg's generated order is random.)"""
    from bitgraph.kernels import registry

    run = registry.lookup("bfs", fmt="csr", device="cuda", variant=method)
    lv = run(out_csr(A), s, cfg=cfg.bfs_async if method == "async" else cfg.bfs_cuda,
             stats=stats)
    if lv is None:
        if stats is not None:
            stats.method = f"push ({method} gave up)"
        return _csr_cuda(A, s, want_parents, None, cfg, stats)
    par = None
    if want_parents:
        par = registry.lookup("bfs", fmt="csr", device="cuda", variant="parents")(in_csr(A), lv, s)
    return lv, None, par


def _renumbered_bfs(A, s, parents, method, alpha, reorder, stats):
    """``bfs`` by ``method`` (not one of OWN_ORDER) on A renumbered by
    ``reorder`` (``_renumbered``), from the source's new id; the levels (and
    the parents, ids mapped back) returned in A's ids: two gathers of n."""
    B, perm, inv, inv_host = _renumbered(A, reorder)
    got = bfs(B, int(inv_host[s]), parents=parents, method=method, alpha=alpha, stats=stats)
    levels, par = got if parents else (got, None)
    lv = levels.to_dense(-1)[inv]  # old vertex v's level: its new id inv[v]'s
    xp = _array.array_module(lv)
    reached = lv >= 0
    if par is not None:
        par = xp.where(reached, perm[xp.maximum(par.to_dense(-1)[inv], 0)], 0)
    if xp is np:
        bits = _array.pack_bits(reached)
    else:  # our kernel, not a CuPy JIT one
        from bitgraph.kernels import registry

        bits = registry.lookup("pack_bits", fmt="dense", device="cuda", variant="bool")(reached)
    return _result(xp.maximum(lv, 0), par, bits)


def _renumbered(A, reorder):
    """``(B, perm, inv, inv_host)``: A's pattern with vertex ``perm[k]``
    renamed k (``formats.reorder`` method ``reorder``, computed on the
    host), B, ``perm`` and its inverse ``inv`` (int64) on A's device,
    ``inv_host`` numpy; built once, cached on A (slot ``bfs_order``)."""

    def build():
        from bitgraph import device as dev
        from bitgraph.formats import reorder as ro
        from bitgraph.formats.csr import CSR
        from bitgraph.matrix import Matrix

        where = "bfs(reorder=...)"
        out = out_csr(A)
        host = CSR(dev.host(out.indptr), dev.host(out.indices), None, out.nrows, out.ncols)
        perm = np.asarray(ro.reorder(host, reorder), np.int64)
        inv = np.asarray(ro.inverse(perm), np.int64)
        B = Matrix._from_csr(ro.permute(host, perm)).to(A.device)
        return (B, dev.asdevice(perm, A.device, where), dev.asdevice(inv, A.device, where), inv)

    return cached(A, "bfs_order", build, key=reorder)


def _dead(A, in_csr, key, cfg):
    """``(dead, bu_keep)`` for the persistent kernel's bottom-up levels: the
    bits of the vertices with no in-edges in ``in_csr`` (cached on A under
    ``key``; None when ``cfg.dead_visited`` is off) and the frontier size
    above which a level after a bottom-up one stays bottom-up (``cfg.beta``;
    -1 off)."""
    from bitgraph.kernels import registry

    def build():  # (empty-row bits, rows with entries): one sync
        return registry.lookup("empty_rows", fmt="csr", device="cuda",
                               variant="bits")(in_csr.indptr)

    bits, live = cached(A, key, build)
    # no dead vertex (urand): no bits, so the kernel neither copies them in nor sweeps them out
    dead = bits if cfg.dead_visited and live < in_csr.indptr.shape[0] - 1 else None
    return dead, (live // cfg.beta if cfg.beta > 0 else -1)


def _out_degree_cuda(A):
    from bitgraph.kernels import registry

    return cached(A, "out_degree_int32", lambda: registry.lookup(
        "row_lengths", fmt="csr", device="cuda", variant="int32")(A._csr().indptr))


def in_lists_cuda(A, cfg):
    """The in-lists the CUDA bottom-up steps read (bfs and msbfs): A' as
    CSR, each row ordered by the out-degree of its entries when
    ``cfg.sort_in_lists`` (cfg: the ``BFSCuda`` settings; cached on A)."""
    if not cfg.sort_in_lists:
        return in_csr(A)
    return cached(A, "in_csr_by_degree", lambda: _by_degree(in_csr(A), _out_degree_cuda(A)))


def _by_degree(csr, deg):
    """``csr`` with each row's entries ordered by the out-degree of the
    column, largest first (XBFS: a bottom-up scan meets a frontier vertex
    sooner); built once on the device (one 64-bit key sort: the row in the
    high bits, 2^31 - 1 - degree in the low)."""
    from bitgraph.formats.csr import CSR
    from bitgraph.kernels import registry

    order = registry.lookup("order_by_degree", fmt="csr", device="cuda", variant="sorted")
    return CSR(csr.indptr, order(csr.indptr, csr.indices, deg), None, csr.nrows, csr.ncols)


def _permuted(csr, perm):
    """A device CSR permuted symmetrically (``formats.reorder.permute``, on the host)."""
    from bitgraph import device as dev
    from bitgraph.formats import reorder as ro
    from bitgraph.formats.csr import CSR

    host = CSR(dev.host(csr.indptr), dev.host(csr.indices), None, csr.nrows, csr.ncols)
    p = ro.permute(host, perm)
    return CSR(*(dev.asdevice(a, "cuda", "bfs") for a in (p.indptr, p.indices)), None,
               p.nrows, p.ncols)


def _lazy_rule(A, b, cfg):
    """Blest's choice of the lazy update: the BVSS's update divergence above
    ``cfg.lazy_udiv``. Blest also asks for a social-like graph, since lazy
    loses on many-level graphs; here lazy only runs on levels whose queue
    is large (``cfg.lazy_min_queue``), where it pays on urand as on kron,
    so the degree test is dropped."""
    from bitgraph.kernels import registry

    divergence = registry.lookup("bvss_divergence", fmt="bvss", device="cuda", variant="float64")
    return divergence(b.row_ids) > cfg.lazy_udiv
