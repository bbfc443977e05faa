"""BFS, connected components and PageRank on a graph split over the ranks
(a ``DistMatrix``, 1D by rows): every rank works on its own rows with
array operations on its device (numpy, or CuPy on its GPU) and the ranks
exchange one vector of n entries per level, round or iteration:

============================  ==================================================  ==========
call                          exchange                                            per
============================  ==================================================  ==========
``bfs``                       an allgather of each rank's n-bit next bitmap,      level
                              OR-ed (n / 8 bytes a rank), every level ending
                              with the whole frontier on every rank; an
                              allreduce of three counts (Beamer's switch). With
                              ``bfs_topdown_exchange="ids"``: top-down an
                              alltoallv of the next frontier's ids to their
                              owners (4 bytes each while n <= 2^32), the owners
                              mark them; bottom-up an allgatherv of each rank's
                              own frontier words before the step
``connected_components``      allreduce(min) of the parent vector (FastSV)        round
``pagerank``                  allgatherv of x / outdegree (8n bytes in all), an   iteration
                              allreduce of two sums (change, dangling mass)
============================  ==================================================  ==========

On CUDA ranks each local step runs as the kernels of
``kernels/cuda/dist_traversal.cu`` (``settings.distributed.cuda_kernels``,
on by default): BFS a frontier compaction with Beamer's counts, a top-down
step (atomicOr into the next bitmap; with the ids exchange then a count of
its bits by owner, a pack into per-owner segments of ids and, after the
alltoallv, a mark of the received ids) or a bottom-up step (early exit at
the first frontier in-neighbour) and an update kernel a level, one 24-byte
read to the host a level (and the owners' counts, 8 bytes a rank, a
top-down level with ids); a components round's hooks in one kernel; a PageRank
iteration's product in one kernel. Numpy ranks, and CUDA ranks with the
setting off, run the same steps as array operations in chunks of
``step_entries`` entries.

The answers are the one-process calls' (``bitgraph.algorithms``): BFS
levels and component labels bit-equal, PageRank within the summation order
(the same iterations). ``gather=True`` returns the whole vector on every
rank; by default each rank gets its own vertices' slice ``lo .. hi``.

>>> import bitgraph as bg
>>> from bitgraph.distributed import LocalGroup, DistMatrix, bfs
>>> A = bg.io.generators.grid2d(3, 3)
>>> def levels(comm):
...     return bfs(comm, DistMatrix.from_matrix(comm, A), 0, gather=True).tolist()
>>> LocalGroup(2).run(levels)[1]
[0, 1, 2, 1, 2, 3, 2, 3, 4]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bitgraph import _array
from bitgraph.errors import InvalidType, InvalidValue

__all__ = ["bfs", "connected_components", "pagerank", "DistPageRank"]


class DistPageRank(NamedTuple):
    """``pagerank``'s answer: ``ranks`` (this rank's slice, or every vertex
    with ``gather=True``; float64 on the graph's device), ``iterations``,
    ``converged``, ``error`` (the last iteration's L1 change)."""
    ranks: object
    iterations: int
    converged: bool
    error: float


def _check(comm, D, where):
    from bitgraph.distributed.partition import DistMatrix

    if not isinstance(D, DistMatrix):
        raise InvalidType(f"{where}: expected a DistMatrix (DistMatrix.from_matrix or .generate),"
                          f" got {type(D).__name__}")
    if (D.rank, D.size) != (comm.rank, comm.size):
        raise InvalidValue(f"{where}: D was built on rank {D.rank} of {D.size}, called on rank"
                           f" {comm.rank} of {comm.size}")
    return np if D.device == "cpu" else _cupy()


def _cupy():
    import cupy

    return cupy


def _host_int(x) -> int:
    return int(x)  # synchronize! (CuPy)


def _expand(indptr, rows, step, xp):
    """For the local rows ``rows`` (an index array), their stored entries in
    steps of at most ``step``: yields ``(seg, idx)``, ``idx`` the entry
    positions and ``seg`` the position in ``rows`` of each entry's row.
    O(entries x log(rows)): a binary search an entry."""
    if rows.shape[0] == 0:
        return
    first = indptr[rows]
    lens = indptr[rows + 1] - first
    cum = xp.cumsum(lens)
    total = _host_int(cum[-1])
    for a in range(0, total, step):
        pos = xp.arange(a, min(total, a + step), dtype=np.int64)
        seg = xp.searchsorted(cum, pos, side="right")
        yield seg, first[seg] + (pos - (cum[seg] - lens[seg]))


def _row_steps(indptr, step, xp):
    """The local entries in steps of at most ``step``: yields ``(rows, a,
    b)``, the local row of entries ``a .. b``."""
    total = _host_int(indptr[-1])
    for a in range(0, total, step):
        b = min(total, a + step)
        pos = xp.arange(a, b, dtype=np.int64)
        yield xp.searchsorted(indptr, pos, side="right") - 1, a, b


def _add_rows(target, rows, weights, xp):
    """``target[rows[k]] += weights[k]`` for nondecreasing ``rows`` (a
    step's), each row's weights summed in order first (``bincount``) over
    only the rows the step spans: no n-length temporary a step, the same
    sums as a ``bincount`` of ``minlength=target.size`` added whole.

    >>> t = np.zeros(6)
    >>> _add_rows(t, np.array([2, 2, 4]), np.array([1.0, 2.0, 5.0]), np).tolist()
    [0.0, 0.0, 3.0, 0.0, 5.0, 0.0]
    """
    if rows.shape[0] == 0:
        return target
    first, last = (int(r) for r in _array_host(rows[[0, -1]]))  # one read
    target[first:last + 1] += xp.bincount(rows - first, weights=weights,
                                          minlength=last - first + 1)
    return target


def _take(a, idx, out, xp):
    """``a[idx]`` written into ``out`` (numpy's ``take`` with ``mode="clip"``:
    with ``"raise"`` it fills a temporary of ``out``'s size first; the
    indices are in range either way).

    >>> _take(np.array([5, 6, 7]), np.array([2, 0]), np.empty(2, np.int64), np).tolist()
    [7, 5]
    """
    if xp is np:
        return np.take(a, idx, out=out, mode="clip")
    return xp.take(a, idx, out=out)


def _word_counts(D):
    return [_array.nwords(int(D.starts[r + 1] - D.starts[r])) for r in range(D.size)]


def _slice_counts(D):
    return [int(D.starts[r + 1] - D.starts[r]) for r in range(D.size)]


# ---------------------------------------------------------------------------
# BFS
# ---------------------------------------------------------------------------

def bfs(comm, D, source, *, gather: bool = False, stats=None):
    """BFS levels from ``source`` on a ``DistMatrix``: int32, -1 where
    unreached (this rank's vertices, or every vertex with ``gather``);
    equal to ``bitgraph.algorithms.bfs(A, source).to_dense(-1)``.

    Level-synchronous and direction-optimising. Every rank keeps the
    visited and frontier bitmaps of the whole graph (n bits each) and the
    levels of its own vertices. A level runs

    - top-down (push): each rank reads its frontier rows' entries and sets
      their unvisited columns in a next bitmap of n bits; with
      ``settings.distributed.bfs_topdown_exchange`` "ids"
      the set bits' ids go to their owners (``alltoallv``), each owner
      marks the ids it has not visited in its own words, and the
      frontier stays split (other ranks' visited bits, a stale subset,
      only filter); with "bitmap" (the default) the ranks' bitmaps are
      all-gathered and OR-ed, less the visited;
    - bottom-up (pull): ("ids": the owners' frontier words all-gathered
      first) each rank checks its unvisited vertices' in-edges (A' rows)
      against the frontier bitmap; ("bitmap": the ranks' bits are
      all-gathered into the next frontier).

    Beamer's switch on global counts (one allreduce a level):
    bottom-up when the frontier's out-edges exceed the unvisited vertices'
    out-edges / ``settings.distributed.bfs_alpha``, top-down again when the
    frontier shrinks below n / ``bfs_beta``. ``stats``: a
    ``bitgraph.Stats`` that gets the method and ``metrics`` levels,
    directions ("t"/"b" a level) and edges (the graph's stored entries
    over 2 for an undirected graph, for TEPS).

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup, DistMatrix
    >>> A = bg.Matrix.from_coo([0, 1, 1, 3], [1, 2, 3, 4], nrows=6, ncols=6)
    >>> def run(comm):
    ...     return bfs(comm, DistMatrix.from_matrix(comm, A), 0).tolist()
    >>> LocalGroup(1).run(run)
    [[0, 1, 2, 2, 3, -1]]
    """
    from bitgraph import settings
    from bitgraph.algorithms._common import check_source
    from bitgraph.distributed.batches import _agree, _together

    where = "distributed.bfs"
    xp = _check(comm, D, where)

    class _N:  # check_source reads nrows
        nrows = D.n

    s = _together(comm, where, lambda: check_source(_N, source, where))
    _agree(comm, where, **{"the number of vertices": D.n, "the source": s})
    cfg = settings.current().distributed
    if cfg.bfs_topdown_exchange not in _EXCHANGES:
        raise InvalidValue(f"{where}: settings.distributed.bfs_topdown_exchange must be one of"
                           f" {_EXCHANGES}, got {cfg.bfs_topdown_exchange!r}")
    if xp is not np and cfg.cuda_kernels:
        levels, level, dirs = _bfs_kernels(comm, D, s, cfg, stats, xp)
    else:
        levels, level, dirs = _bfs_arrays(comm, D, s, cfg, xp)
    if stats is not None:
        stats.method = "direction"
        stats.metrics.update(levels=level, directions="".join(dirs),
                             edges=D.nnz // 2 if D.symmetric else D.nnz)
    return comm.allgatherv(levels, _slice_counts(D)) if gather else levels


_EXCHANGES = ("ids", "bitmap")  # settings.distributed.bfs_topdown_exchange


def _id_dtype(n):
    """The dtype of the vertex ids a top-down level sends: uint32 while
    they fit, else int64 (NCCL carries both)."""
    return np.uint32 if n <= 1 << 32 else np.int64


def _word_starts(D):
    """Each rank's first word of the global bitmap, and the word count
    last (``size + 1`` int64): ``ceil(starts / 32)``, so a rank without
    rows starts where the next one does.

    >>> class D: starts = np.array([0, 64, 100, 100])
    >>> _word_starts(D).tolist()
    [0, 2, 4, 4]
    """
    return (D.starts + 31) // 32


def _switch(top_down, m_f, n_f, m_u, prev_nf, n, cfg):
    """Beamer's switch: pull when the frontier's edges outweigh the
    unvisited edges / alpha; push again when the frontier is small and
    shrinking."""
    if top_down and m_f * cfg.bfs_alpha > m_u:
        return False
    if not top_down and n_f * cfg.bfs_beta < n and n_f < prev_nf:
        return True
    return top_down


def _bfs_arrays(comm, D, s, cfg, xp):
    """The levels of this rank's vertices by array steps (numpy, or CuPy
    with ``cuda_kernels`` off): ``(levels, levels run, directions)``."""
    n, lo, hi = D.n, D.lo, D.hi
    step = cfg.step_entries
    deg = xp.diff(D.indptr)  # out-degree of the local rows
    pin, pix, _ = D.in_rows()
    levels = xp.full(hi - lo, -1, np.int32)
    visited = xp.zeros(n, np.bool_)
    frontier = xp.zeros(n, np.bool_)
    visited[s] = frontier[s] = True
    if lo <= s < hi:
        levels[s - lo] = 0
    top_down, prev_nf, level, dirs = True, 0, 0, []
    counts = _word_counts(D)
    ids = cfg.bfs_topdown_exchange == "ids"
    while True:
        mine = frontier[lo:hi]
        # [frontier's out-edges, frontier size, unvisited vertices' out-edges] over the ranks
        local = xp.stack([deg[mine].sum(), mine.sum(), deg[~visited[lo:hi]].sum()]).astype(
            np.int64)
        m_f, n_f, m_u = (int(x) for x in _array_host(comm.allreduce(local, "sum")))
        if n_f == 0:
            break
        top_down = _switch(top_down, m_f, n_f, m_u, prev_nf, n, cfg)
        prev_nf = n_f
        level += 1
        if top_down:
            # next = (A' frontier) over this rank's rows, OR over the ranks, <!visited>
            nxt = xp.zeros(n, np.bool_)
            for seg, idx in _expand(D.indptr, xp.flatnonzero(mine), step, xp):
                nxt[D.indices[idx]] = True
            if ids:
                # the unvisited targets' ids to their owners; the owner filters again
                found = _route_ids(comm, D, xp.flatnonzero(nxt & ~visited), visited, xp)
            else:
                words = comm.allgather(_array.pack_bits(nxt)).reshape(comm.size, -1)
                merged = words[0].copy()
                for r in range(1, comm.size):
                    merged |= words[r]
                nxt = _array.unpack_bits(merged, n) & ~visited
        else:
            if ids:  # the global frontier, from its owners' words
                frontier = _array.unpack_bits(
                    comm.allgatherv(_array.pack_bits(frontier[lo:hi]), counts), n)
                visited |= frontier
            # next<!visited> = A' any.pair frontier, each rank its own rows, gathered
            todo = xp.flatnonzero(~visited[lo:hi])
            found = xp.zeros(hi - lo, np.bool_)
            for seg, idx in _expand(pin, todo, step, xp):
                found[todo[seg[frontier[pix[idx]]]]] = True
            if not ids:
                nxt = _array.unpack_bits(comm.allgatherv(_array.pack_bits(found), counts), n)
        dirs.append("t" if top_down else "b")
        if ids:
            # the rank's own vertices only: other ranks' visited bits are a stale subset
            # (a filter), their frontier bits are gathered before a bottom-up level
            nxt = xp.zeros(n, np.bool_)
            nxt[lo:hi] = found
        visited |= nxt
        levels[nxt[lo:hi]] = level
        frontier = nxt
    return levels, level, dirs


def _route_ids(comm, D, targets, visited, xp):
    """A top-down level's exchange by ids: ``targets`` (ascending global
    ids, so grouped by owner) sent to their owners (``alltoallv``, the own
    piece included); the received ids not in ``visited`` as this rank's
    bools (``hi - lo``)."""
    lo, hi = D.lo, D.hi
    cuts = xp.searchsorted(targets, xp.asarray(D.starts), side="left")
    per = np.diff(_array_host(cuts).astype(np.int64))
    got = comm.alltoallv(targets.astype(_id_dtype(D.n)), per)
    found = xp.zeros(hi - lo, np.bool_)
    found[got.astype(np.int64) - lo] = True
    return found & ~visited[lo:hi]


def _kernels():
    """The launchers of ``kernels/cuda/dist_traversal.py`` by name (the
    registry's, never imported from here)."""
    from bitgraph.kernels import registry

    keys = {"frontier": ("bfs", "dist_frontier"), "topdown": ("bfs", "dist_topdown"),
            "bottomup": ("bfs", "dist_bottomup"), "update": ("bfs", "dist_update"),
            "hook": ("cc", "dist_hook"), "hook_plan": ("cc", "dist_hook_plan"),
            "pull": ("pagerank", "dist_pull"),
            "pull_plan": ("pagerank", "dist_pull_plan"),
            "owner_counts": ("bfs", "dist_owner_counts"), "pack": ("bfs", "dist_pack"),
            "mark": ("bfs", "dist_mark")}
    return {k: registry.lookup(op, fmt="csr", device="cuda", variant=v)
            for k, (op, v) in keys.items()}


def _bfs_kernels(comm, D, s, cfg, stats, xp):
    """The levels of this rank's vertices by the CUDA kernels of
    ``dist_traversal.cu``, the array path's levels, directions and
    exchanges: frontier and visited as uint32 words of the whole graph; a
    level is a compaction of the rank's frontier rows with Beamer's counts
    (one 24-byte read to the host after their allreduce), then a top-down
    step into a zeroed next bitmap all-gathered from every rank, or a
    bottom-up step into the rank's own words all-gathered (allgatherv),
    then one update kernel (OR of the parts less visited; levels).

    With ``bfs_topdown_exchange="ids"`` a top-down step's next bitmap is
    counted by owner (one read of ``size`` counts to the host), packed
    into per-owner segments of ids and sent (alltoallv); the owner marks
    the unvisited received ids in its own words. Every level then updates
    only the rank's own words (one update kernel on their slices), and the
    own frontier words are all-gathered just before a bottom-up level."""
    k = _kernels()
    n, lo, hi = D.n, D.lo, D.hi
    n_local = hi - lo
    nw = _array.nwords(n)
    ids = cfg.bfs_topdown_exchange == "ids"
    w0, w1 = lo >> 5, (lo >> 5) + _array.nwords(n_local)  # the rank's own words
    pin, pix, _ = D.in_rows()
    levels = xp.full(n_local, -1, np.int32)
    visited = xp.zeros(nw, np.uint32)
    frontier = xp.zeros(nw, np.uint32)
    bit = np.uint32(1 << (s & 31))
    visited[s >> 5] = bit
    frontier[s >> 5] = bit
    if lo <= s < hi:
        levels[s - lo] = 0
    listing = xp.empty(max(n_local, 1), np.uint32)
    counts = xp.zeros(4, np.uint64)
    # the frontier rows of more than heavy_split entries (a kron hub's), listed apart and
    # walked by the whole grid in a top-down step
    split = int(cfg.heavy_split)
    nheavy = int(_array_host(xp.count_nonzero(xp.diff(D.indptr) > split)))
    heavy = xp.empty(max(nheavy, 1), np.uint32)
    found = xp.empty(_array.nwords(n_local), np.uint32)
    word_counts = _word_counts(D)
    if ids:
        word_starts = xp.asarray(_word_starts(D))
        owner_counts = xp.zeros(D.size, np.uint64)
        cursors = xp.zeros(D.size, np.uint64)
    top_down, prev_nf, level, dirs = True, 0, 0, []

    def ran(name):
        if stats is not None:
            stats.ran(("bfs", "csr", "cuda", f"dist_{name}"))
    while True:
        k["frontier"](D.indptr, frontier, visited, lo, listing, counts, heavy=heavy, split=split)
        ran("frontier")
        total = comm.allreduce(counts[:3].view(np.int64), "sum")
        m_f, n_f, m_u = (int(x) for x in _array_host(total))
        if n_f == 0:
            break
        top_down = _switch(top_down, m_f, n_f, m_u, prev_nf, n, cfg)
        prev_nf = n_f
        level += 1
        if top_down:
            nxt = xp.zeros(nw, np.uint32)
            k["topdown"](D.indptr, D.indices, listing, counts, visited, nxt, rows=n_f,
                         group=_group(m_f, n_f), heavy=heavy, split=split)
            ran("topdown")
            if ids:  # the next bits' ids to their owners, marked in the owners' words
                k["owner_counts"](nxt, word_starts, owner_counts)
                per = _array_host(owner_counts).astype(np.int64)  # the level's one read
                offsets = np.concatenate([[0], np.cumsum(per)])
                cursors[:] = xp.asarray(offsets[:-1].astype(np.uint64))
                targets = xp.empty(int(offsets[-1]), _id_dtype(n))
                k["pack"](nxt, word_starts, cursors, targets)
                got = comm.alltoallv(targets, per)
                found.fill(0)
                k["mark"](got, visited, lo, found)
                for name in ("owner_counts", "pack", "mark"):
                    ran(name)
            else:
                parts, nparts = comm.allgather(nxt), comm.size
        else:
            if ids:  # the global frontier, from its owners' words
                frontier = comm.allgatherv(frontier[w0:w1], word_counts)
                visited |= frontier
            k["bottomup"](pin, pix, frontier, visited, lo, found)
            ran("bottomup")
            if not ids:
                parts, nparts = comm.allgatherv(found, word_counts), 1
        if ids:
            # the rank's own words only: other ranks' visited bits are a stale subset (a
            # filter), their frontier bits are gathered before a bottom-up level
            k["update"](found, 1, visited[w0:w1], frontier[w0:w1], levels, 0, level)
        else:
            k["update"](xp.ascontiguousarray(parts), nparts, visited, frontier, levels, lo, level)
        ran("update")
        dirs.append("t" if top_down else "b")
    return levels, level, dirs


def _group(entries, rows):
    """Lanes a row for the kernels: the power of 2 at or above the mean
    entries a row, 1..32.

    >>> _group(0, 0), _group(100, 50), _group(10**6, 10)
    (1, 2, 32)
    """
    mean = entries / rows if rows > 0 else 0.0
    g = 1
    while g < 32 and g < mean:
        g *= 2
    return g


def _array_host(a):
    from bitgraph.device import host

    return host(a)  # synchronize! (CuPy)


# ---------------------------------------------------------------------------
# connected components
# ---------------------------------------------------------------------------

def connected_components(comm, D, *, gather: bool = True, stats=None):
    """Component labels on a ``DistMatrix``: int64, the smallest vertex id
    of each (weakly) connected component, equal to
    ``bitgraph.algorithms.connected_components(A).to_dense()``; every vertex
    (default) or this rank's slice with ``gather=False``.

    FastSV (Zhang, Azad and Hu 2020) on a parent vector ``f`` every rank
    holds whole: a round hooks over this rank's entries (both directions on
    a directed graph), ``f[f[u]] = min(f[f[u]], gf[v])`` and ``f[u] =
    min(f[u], gf[v])`` with ``gf = f[f]``, shortcuts ``f = min(f, gf)``,
    then one allreduce(min) of f over the ranks (in place). Three label
    vectors of n entries, reused by every round (int32 while n < 2^31), and
    the int64 answer made once at the end. Every hook is a min, so
    the ranks' partial rounds combine into the one-process round exactly;
    it stops when ``gf`` no longer changes (about log n rounds on kron,
    more on long paths). ``stats.metrics["rounds"]``: the rounds (one
    allreduce of n labels each).

    >>> import bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup, DistMatrix
    >>> A = bg.Matrix.from_coo([1, 3, 4], [4, 2, 1], nrows=6, ncols=6)
    >>> def labels(comm):
    ...     return connected_components(comm, DistMatrix.from_matrix(comm, A)).tolist()
    >>> LocalGroup(2).run(labels)[0]
    [0, 1, 2, 2, 1, 5]
    """
    from bitgraph import settings

    where = "distributed.connected_components"
    xp = _check(comm, D, where)
    cfg = settings.current().distributed
    step = cfg.step_entries
    n, lo = D.n, D.lo
    lab = np.int32 if n <= np.iinfo(np.int32).max else np.int64  # half the bytes exchanged
    # three n-vectors of labels, reused every round: f, gf = f[f] and fn (the round's hooks,
    # reduced in place into the next f; the old f then holds the next gf = f[f])
    f = xp.arange(n, dtype=lab)
    gf = f.copy()
    fn = xp.empty_like(f)
    rounds = 0
    hook = None
    if xp is not np and cfg.cuda_kernels:
        hook = _kernels()["hook"]
        group = _group(D.nnz_local, D.n_local)
        # the rows of more than heavy_split entries (a kron hub's) cut into chunks, a block each
        plan = _kernels()["hook_plan"](D.indptr, split=cfg.heavy_split, chunk=cfg.heavy_chunk)
        if stats is not None:
            stats.ran(("cc", "csr", "cuda", "dist_hook"))
    while True:
        fn[...] = f
        if hook is not None:  # the hooks of every entry, one kernel
            hook(D.indptr, D.indices, lo, f, gf, fn, both=not D.symmetric, group=group,
                 plan=plan)
        for rows, a, b in () if hook is not None else _row_steps(D.indptr, step, xp):
            u = (rows + lo).astype(lab)
            v = D.indices[a:b].astype(lab)
            # stochastic and aggressive hooking over the edges (u, v) (and (v, u))
            for x, y in ((u, v),) if D.symmetric else ((u, v), (v, u)):
                _array.scatter_min(fn, f[x], gf[y])
                _array.scatter_min(fn, x, gf[y])
        xp.minimum(fn, gf, out=fn)  # shortcutting
        f, fn = comm.allreduce(fn, "min", out=fn), f
        rounds += 1
        ngf = _take(f, f, fn, xp)
        if bool((ngf == gf).all()):  # synchronize! (CuPy)
            break
        gf, fn = ngf, gf
    del gf
    while True:  # flatten to the roots (each rank alike: no exchange)
        ff = _take(f, f, fn, xp)
        if bool((ff == f).all()):  # synchronize! (CuPy)
            break
        f, fn = ff, f
    del fn, ff
    if stats is not None:
        stats.method = "fastsv"
        stats.metrics["rounds"] = rounds
    # int64 labels: the whole vector, or only this rank's slice
    return f.astype(np.int64) if gather else f[D.lo:D.hi].astype(np.int64)


# ---------------------------------------------------------------------------
# PageRank
# ---------------------------------------------------------------------------

def pagerank(comm, D, alpha=0.85, tol=1e-6, max_iter=100, personalization=None, *,
             nstart=None, dangling=None, gather: bool = False) -> DistPageRank:
    """PageRank on a ``DistMatrix``, networkx's semantics as
    ``bitgraph.algorithms.pagerank`` (edge i -> j of weight A(i, j); alpha,
    tol: converged when an iteration's L1 change is below ``n * tol``,
    max_iter; personalization, nstart, dangling: None, an array of n values
    or a {vertex: value} dict, the same on every rank). Ranks float64,
    within 1e-6 (L1) of the one-process call, in the same iterations.

    An iteration: ``y = x / outdegree`` on this rank's vertices,
    all-gathered (allgatherv); this rank's new ranks pulled over its
    vertices' in-edges, ``x' = alpha * (A' y + dangling mass * dangling) +
    (1 - alpha) * personalization``; one allreduce of the L1 change and the
    new dangling mass. One float64 n-vector a rank (y, gathered into by
    every iteration and by the answer with ``gather``) and four of this
    rank's vertices (x, the new x, the pulled sums, 1 / outdegree), the
    same buffers every iteration.

    >>> import numpy as np, bitgraph as bg
    >>> from bitgraph.distributed import LocalGroup, DistMatrix
    >>> A = bg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 1], nrows=4, ncols=4)
    >>> pr = LocalGroup(2).run(lambda c: pagerank(c, DistMatrix.from_matrix(c, A), tol=1e-10,
    ...                                           gather=True))[0]
    >>> np.round(pr.ranks, 4).tolist(), pr.converged
    ([0.2046, 0.3785, 0.3693, 0.0476], True)
    """
    from bitgraph import settings
    from bitgraph.algorithms.link_analysis import _distribution, _number
    from bitgraph.distributed.batches import _agree, _together

    where = "distributed.pagerank"
    xp = _check(comm, D, where)
    cfg = settings.current().distributed
    step = cfg.step_entries
    n, lo, hi = D.n, D.lo, D.hi
    device = D.device

    def prepare():
        a = _number(alpha, "alpha", where)
        if not 0.0 <= a <= 1.0:
            raise InvalidValue(f"{where}: alpha must be in [0, 1], got {a}")
        t = _number(tol, "tol", where)
        if not t >= 0.0:
            raise InvalidValue(f"{where}: tol must be >= 0, got {t}")
        if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)):
            raise InvalidType(f"{where}: max_iter must be an int, got {max_iter!r}")
        if max_iter < 0:
            raise InvalidValue(f"{where}: max_iter must be >= 0, got {max_iter}")
        # one whole n-vector at a time, cut to this rank's slice (None: uniform, a scalar)
        dists = [_slice(_distribution(v, n, name, where, device)) for v, name in (
            (personalization, "personalization"), (nstart, "nstart"), (dangling, "dangling"))]
        # S(i) = sum_j A(i, j): this rank's weighted out-degrees
        if D.values is None:
            S = xp.diff(D.indptr).astype(np.float64)
        else:
            w = D.values
            bad = xp.flatnonzero(xp.isnan(w) | (w < 0)) if w.dtype.kind == "f" else (
                xp.flatnonzero(w < 0) if w.dtype.kind == "i" else xp.zeros(0, np.int64))
            if bad.size:
                e = int(bad[0])
                raise InvalidValue(f"{where}: edge weights must be >= 0 and not NaN; a stored"
                                   f" entry of rank {comm.rank} has weight {w[e].item()}")
            S = xp.zeros(hi - lo)
            for rows, a0, b0 in _row_steps(D.indptr, step, xp):
                _add_rows(S, rows, w[a0:b0].astype(np.float64), xp)
        return a, t, dists, S

    def _slice(v):
        return None if v is None else v[lo:hi].copy()

    a, t, (p, x, dw), S = _together(comm, where, prepare)
    _agree(comm, where, **{"the number of vertices": n, "max_iter": max_iter,
                           "alpha (bits)": np.float64(a).view(np.int64),
                           "tol (bits)": np.float64(t).view(np.int64)})
    if n == 0:
        return DistPageRank(xp.zeros(0), 0, True, 0.0)
    # this rank's slices; a uniform personalization / dangling as the scalar 1 / n (the
    # same products, bit for bit, without an array)
    uniform = 1.0 / n
    x = xp.full(hi - lo, uniform) if x is None else x
    dw = p if dw is None else dw
    teleport = (1.0 - a) * (uniform if p is None else p)
    dw = uniform if dw is None else dw
    del p
    inv_s = xp.zeros(hi - lo)  # 0 exactly on the dangling vertices
    nz = S != 0
    inv_s[nz] = 1.0 / S[nz]
    dangles = xp.flatnonzero(~nz)
    del S, nz
    pin, pix, pval = D.in_rows()
    pull = None
    if xp is not np and cfg.cuda_kernels:
        k = _kernels()
        pull = k["pull"]
        group = _group(pix.shape[0], hi - lo)
        pw = None if pval is None else xp.ascontiguousarray(pval, dtype=np.float64)
        # the in-rows of more than heavy_split entries (a kron hub's) cut into chunks
        plan = k["pull_plan"](pin, split=cfg.heavy_split, chunk=cfg.heavy_chunk)
    counts = _slice_counts(D)
    lost = float(_array_host(comm.allreduce(xp.stack([x[dangles].sum(dtype=np.float64)]),
                                             "sum"))[0])
    # the n-vector y (every rank's x / S) and three slices (x, the new x, and acc: first
    # x / S to send, then the pulled sums, then |x' - x|), the same buffers every iteration
    y = None
    new = xp.empty(hi - lo)
    acc = xp.empty(hi - lo)
    err, it, converged = np.inf, 0, False
    while it < max_iter:
        xp.multiply(x, inv_s, out=acc)
        y = comm.allgatherv(acc, counts, out=y)  # x / S of every vertex
        # t(j) = sum_i y(i) * A(i, j) over this rank's j (their A' rows)
        acc.fill(0.0)
        if pull is not None:  # every in-row summed, one kernel
            pull(pin, pix, pw, y, acc, group=group, plan=plan)
        for rows, a0, b0 in () if pull is not None else _row_steps(pin, step, xp):
            contrib = y[pix[a0:b0]]
            if pval is not None:
                contrib = contrib * pval[a0:b0]
            _add_rows(acc, rows, contrib, xp)
        # x' = alpha * (t + lost * dw) + (1 - alpha) * p, in the one-process call's order
        if isinstance(dw, float):
            new.fill(dw * lost)
        else:
            xp.multiply(dw, lost, out=new)
        new += acc
        new *= a
        new += teleport
        xp.subtract(new, x, out=acc)
        xp.abs(acc, out=acc)
        sums = xp.stack([acc.sum(), new[dangles].sum(dtype=np.float64)])
        err, lost = (float(v) for v in _array_host(comm.allreduce(sums, "sum")))
        x, new = new, x
        it += 1
        if err < n * t:
            converged = True
            break
    del new, acc
    ranks = comm.allgatherv(x, counts, out=y) if gather else x
    return DistPageRank(ranks, it, converged, float(err))
