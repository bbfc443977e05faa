"""The kernels of ``kernels/cuda/dist_traversal.cu`` (a rank's local step of
the partitioned ``bfs``, ``connected_components`` and ``pagerank``) on one
GPU: LocalGroups of CUDA ranks (threads sharing the GPU) against the numpy
ranks and the one-process calls (levels, BFS directions and labels equal,
PageRank within 1e-9 L1 in the same iterations); tiny graphs, n not a
multiple of 32, no edges, ranks with no rows, self-loops, a star, a long
path, a directed weighted graph; and each launcher directly against numpy
for every lane group and both index and label types."""

from __future__ import annotations

import numpy as np
import pytest

import bitgraph as bg
import bitgraph.algorithms as one
import bitgraph.distributed as dist
from bitgraph import _array
from bitgraph.distributed import DistMatrix, LocalGroup
from bitgraph.kernels import registry

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")


def _host(a):
    return a.get() if isinstance(a, cupy.ndarray) else np.asarray(a)


def _calls(comm, A, source, index64):
    D = DistMatrix.from_matrix(comm, A)
    if index64:  # the int64 column ids of a graph of more than 2^31 vertices
        D.indices = D.indices.astype(np.int64)
        if D._pull is not None:
            D._pull = (D._pull[0], D._pull[1].astype(np.int64), D._pull[2])
    st = bg.Stats()
    lev = dist.bfs(comm, D, source, gather=True, stats=st)
    part = dist.bfs(comm, D, source)
    cc = dist.connected_components(comm, D)
    pr = dist.pagerank(comm, D, gather=True, tol=1e-10)
    return (type(lev), _host(lev), _host(part), st.metrics["directions"], list(st.kernels),
            type(cc), _host(cc), _host(pr.ranks), pr.iterations)


def _check(A, size, source=0, index64=False, exchange="ids"):
    with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}):
        gpu = LocalGroup(size, device="cuda").run(_calls, A, source, index64)
        cpu = LocalGroup(size).run(_calls, A, source, False)
    want = one.bfs(A, source).to_dense(-1)
    labels = one.connected_components(A).to_dense()
    for g, c in zip(gpu, cpu):
        assert g[0] is cupy.ndarray and g[5] is cupy.ndarray
        assert g[1].dtype == np.int32 and np.array_equal(g[1], want)
        assert g[3] == c[3]  # the same directions: the same counts a level
        assert ("bfs", "csr", "cuda", "dist_update") in g[4]
        assert g[6].dtype == np.int64 and np.array_equal(g[6], labels)
        assert g[8] == c[8] and np.abs(g[7] - c[7]).sum() < 1e-9
    assert np.array_equal(np.concatenate([g[2] for g in gpu]), want)
    return gpu[0][3]


def _path(n):
    return bg.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), nrows=n, ncols=n)


def _star(n, hub=0):
    leaves = np.array([v for v in range(n) if v != hub])
    return bg.Matrix.from_coo(np.r_[np.full(len(leaves), hub), leaves],
                              np.r_[leaves, np.full(len(leaves), hub)], nrows=n, ncols=n)


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_kron_both_directions(size):
    dirs = _check(bg.io.generators.kron(10, seed=3), size, source=1)
    assert dirs == "ttbbt"


@pytest.mark.parametrize("size", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 5, 31, 33, 100, 200])
def test_tiny_graphs_and_ranks_without_rows(n, size):
    rng = np.random.default_rng(n)
    r, c = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
    A = bg.Matrix.from_coo(np.r_[r, c], np.r_[c, r], nrows=n, ncols=n)
    _check(A, size, source=n - 1)


@pytest.mark.parametrize("size", [1, 2])
def test_no_edges(size):
    A = bg.Matrix.from_coo([], [], nrows=130, ncols=130)
    _check(A, size, source=129)


@pytest.mark.parametrize("size", [1, 3])
def test_self_loops_star_and_path(size):
    loops = bg.Matrix.from_coo([0, 1, 1, 2, 3, 70, 70], [0, 1, 2, 1, 3, 70, 3], nrows=97, ncols=97)
    _check(loops, size, source=1)
    _check(_star(300, hub=150), size, source=7)  # a hub: 32 lanes top-down, one long pull row
    assert len(_check(_path(500), size, source=0)) == 500  # a step for each of its 500 levels


@pytest.mark.parametrize("size", [1, 2])
def test_directed_weighted(size):
    rng = np.random.default_rng(1)
    n = 300
    r, c = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    A = bg.Matrix.from_coo(r, c, rng.random(1500), nrows=n, ncols=n, dup_op="plus")
    _check(A, size, source=int(r[0]))


@pytest.mark.parametrize("size", [1, 2])
def test_int64_column_ids(size):
    _check(bg.io.generators.kron(9, seed=1), size, source=3, index64=True)
    _check(_path(150), size, source=149, index64=True)


@pytest.mark.parametrize("exchange", ["ids", "bitmap"])
@pytest.mark.parametrize("size", [2, 3, 4])
def test_both_topdown_exchanges(size, exchange):
    assert _check(bg.io.generators.kron(10, seed=3), size, source=1, exchange=exchange) == "ttbbt"
    assert set(_check(_path(300), size, source=150, exchange=exchange)) == {"t"}
    rng = np.random.default_rng(3)
    r, c = rng.integers(0, 130, 300), rng.integers(0, 130, 300)
    A = bg.Matrix.from_coo(np.r_[r, c], np.r_[c, r], nrows=130, ncols=130)  # a rank without rows
    for s in (0, 63, 64, 127, 129):
        _check(A, size, source=s, exchange=exchange)
    _check(bg.io.generators.kron(9, seed=1), size, source=3, index64=True, exchange=exchange)


def test_ids_exchange_runs_the_ids_kernels():
    A = bg.io.generators.kron(10, seed=3)
    with bg.settings.use(distributed={"bfs_topdown_exchange": "ids"}):
        out = LocalGroup(2, device="cuda").run(_calls, A, 1, False)
    for variant in ("dist_owner_counts", "dist_pack", "dist_mark"):
        assert ("bfs", "csr", "cuda", variant) in out[0][4]
    with bg.settings.use(distributed={"bfs_topdown_exchange": "bitmap"}):
        out = LocalGroup(2, device="cuda").run(_calls, A, 1, False)
    assert ("bfs", "csr", "cuda", "dist_pack") not in out[0][4]


def test_array_steps_still_run_on_cuda_ranks():
    A = bg.io.generators.kron(9, seed=2)
    with bg.settings.use(distributed={"cuda_kernels": False}):
        out = LocalGroup(2, device="cuda").run(_calls, A, 0, False)
    assert np.array_equal(out[0][1], one.bfs(A, 0).to_dense(-1))
    assert not any(k[3].startswith("dist_") for k in out[0][4])


# -- each launcher against numpy ---------------------------------------------

def _csr(n, nnz, seed, lo=0, n_local=None):
    rng = np.random.default_rng(seed)
    n_local = n - lo if n_local is None else n_local
    deg = rng.integers(0, 2 * nnz // max(n_local, 1) + 1, n_local)
    deg[::7] = 0  # empty rows
    if n_local:
        deg[0] = 90  # a long row
    indptr = np.r_[0, np.cumsum(deg)].astype(np.int64)
    indices = rng.integers(0, n, int(indptr[-1]))
    return indptr, indices


def _k(op, variant):
    return registry.lookup(op, fmt="csr", device="cuda", variant=variant)


@pytest.mark.parametrize("split", [None, 0, 8, 89])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("group", [1, 2, 4, 8, 16, 32])
@pytest.mark.parametrize("n,lo", [(1, 0), (37, 0), (300, 64), (1000, 320)])
def test_bfs_launchers(n, lo, group, index, split):
    """The BFS launchers against numpy; ``split`` (heavy_split; None: no
    heavy list): the frontier rows over it listed apart (row 0 holds 90
    entries) and walked by the whole grid, the same next bitmap."""
    rng = np.random.default_rng(n + group)
    indptr, indices = _csr(n, 6 * n, n, lo)
    n_local = indptr.shape[0] - 1
    front = rng.random(n) < 0.2
    seen = front | (rng.random(n) < 0.3)
    deg = np.diff(indptr)
    mine_f, mine_seen = front[lo:], seen[lo:]
    d = {k: cupy.asarray(v) for k, v in (("ip", indptr), ("ix", indices.astype(index)),
                                         ("f", _array.pack_bits(front)),
                                         ("v", _array.pack_bits(seen)))}
    listing = cupy.empty(max(n_local, 1), np.uint32)
    counts = cupy.full(4, 77, np.uint64)  # zeroed by the launcher
    heavy = None if split is None else cupy.full(max(int((deg > split).sum()), 1), 7, np.uint32)
    _k("bfs", "dist_frontier")(d["ip"], d["f"], d["v"], lo, listing, counts, heavy=heavy,
                               split=split)
    got = counts.get()
    assert got[:3].tolist() == [int(deg[mine_f].sum()), int(mine_f.sum()),
                                int(deg[~mine_seen].sum())]
    assert sorted(listing.get()[:got[1]].tolist()) == np.flatnonzero(mine_f).tolist()
    if split is not None:
        big = np.flatnonzero(mine_f & (deg > split)).tolist()
        assert got[3] == len(big) and sorted(heavy.get()[:got[3]].tolist()) == big
    # top-down: every unvisited target of the listed rows
    nxt = cupy.zeros(_array.nwords(n), np.uint32)
    _k("bfs", "dist_topdown")(d["ip"], d["ix"], listing, counts, d["v"], nxt,
                              rows=int(got[1]), group=group, heavy=heavy, split=split)
    want = np.zeros(n, bool)
    for r in np.flatnonzero(mine_f):
        want[indices[indptr[r]:indptr[r + 1]]] = True
    want &= ~seen
    assert np.array_equal(_array.unpack_bits(nxt.get(), n), want)
    # bottom-up: the unvisited rows with an entry in the frontier
    found = cupy.full(_array.nwords(n_local), 0xFFFFFFFF, np.uint32)  # every word written
    _k("bfs", "dist_bottomup")(d["ip"], d["ix"], d["f"], d["v"], lo, found)
    hit = np.array([not mine_seen[r] and front[indices[indptr[r]:indptr[r + 1]]].any()
                    for r in range(n_local)], bool)
    assert np.array_equal(_array.unpack_bits(found.get(), n_local), hit)
    # update: the OR of two parts less visited; levels of the rank's rows
    other = rng.random(n) < 0.1
    parts = cupy.concatenate([nxt, cupy.asarray(_array.pack_bits(other))])
    visited, frontier = d["v"].copy(), cupy.zeros_like(d["v"])
    levels = cupy.full(n_local, -1, np.int32)
    _k("bfs", "dist_update")(parts, 2, visited, frontier, levels, lo, 6)
    new = (want | other) & ~seen
    assert np.array_equal(_array.unpack_bits(frontier.get(), n), new)
    assert np.array_equal(_array.unpack_bits(visited.get(), n), seen | new)
    assert np.array_equal(levels.get(), np.where(new[lo:], 6, -1))


@pytest.mark.parametrize("split,chunk", [(None, None), (0, 1), (0, 7), (8, 32), (89, 1000)])
@pytest.mark.parametrize("label", [np.int32, np.int64])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("group", [1, 4, 32])
@pytest.mark.parametrize("both", [False, True])
@pytest.mark.parametrize("n,lo", [(1, 0), (45, 0), (500, 128)])
def test_hook_launcher(n, lo, both, group, index, label, split, chunk):
    """FastSV's hooks against numpy; ``split`` (heavy_split; None: none):
    the rows over it (row 0 holds 90 entries) cut into chunks of ``chunk``
    entries, a block each (a chunk of 1: a block an entry; 1000: a chunk a
    row)."""
    rng = np.random.default_rng(n)
    indptr, indices = _csr(n, 4 * n, n + 1, lo)
    f = np.minimum(np.arange(n), rng.integers(0, n, n)).astype(label)  # f[u] <= u
    gf = f[f]
    fn = cupy.asarray(f)
    ip = cupy.asarray(indptr)
    plan = None if split is None else _k("cc", "dist_hook_plan")(ip, split=split, chunk=chunk)
    if plan is not None:
        heavy = np.flatnonzero(np.diff(indptr) > split)
        assert plan[3] == heavy.size and plan[0].get()[:heavy.size].tolist() == heavy.tolist()
        assert plan[4] == sum(-(-int(np.diff(indptr)[r]) // chunk) for r in heavy)
    _k("cc", "dist_hook")(ip, cupy.asarray(indices.astype(index)), lo,
                          cupy.asarray(f), cupy.asarray(gf), fn, both=both, group=group,
                          plan=plan)
    want = f.copy()
    rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr)) + lo
    for x, y in ((rows, indices),) + (((indices, rows),) if both else ()):
        np.minimum.at(want, f[x], gf[y])
        np.minimum.at(want, x, gf[y])
    assert fn.dtype == label and np.array_equal(fn.get(), want)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("group", [1, 2, 8, 32])
@pytest.mark.parametrize("n", [1, 70, 1000])
def test_pull_launcher(n, group, index, weighted):
    indptr, indices = _csr(n, 8 * n, n + 2)
    rng = np.random.default_rng(n)
    y = rng.random(n)
    w = rng.random(indices.shape[0]) if weighted else None
    acc = cupy.full(n, np.nan)
    _k("pagerank", "dist_pull")(cupy.asarray(indptr), cupy.asarray(indices.astype(index)),
                                None if w is None else cupy.asarray(w), cupy.asarray(y), acc,
                                group=group)
    contrib = y[indices] * (1.0 if w is None else w)
    rows = np.repeat(np.arange(n), np.diff(indptr))
    want = np.bincount(rows, weights=contrib, minlength=n)
    assert np.allclose(acc.get(), want, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("split, chunk", [(0, 1), (5, 3), (40, 64), (89, 7), (90, 4096)])
@pytest.mark.parametrize("n", [1, 70, 1000])
def test_pull_launcher_heavy_rows(n, split, chunk, index, weighted):
    """pagerank_pull with a plan (pagerank_pull_plan): the rows over the split
    (row 0 holds 90 entries, others up to 16; every row at split 0) summed
    chunk by chunk, a block a chunk, and in chunk order; the others by
    their lanes; equal to numpy's sums."""
    indptr, indices = _csr(n, 8 * n, n + 3)
    rng = np.random.default_rng(n + 1)
    y = rng.random(n)
    w = rng.random(indices.shape[0]) if weighted else None
    ip = cupy.asarray(indptr)
    plan = _k("pagerank", "dist_pull_plan")(ip, split=split, chunk=chunk)
    lens = np.diff(indptr)
    assert plan[4] == int((lens > split).sum())
    assert plan[5] == int(-(-lens[lens > split] // chunk).sum())
    acc = cupy.full(n, np.nan)
    _k("pagerank", "dist_pull")(ip, cupy.asarray(indices.astype(index)),
                                None if w is None else cupy.asarray(w), cupy.asarray(y), acc,
                                group=4, plan=plan)
    contrib = y[indices] * (1.0 if w is None else w)
    want = np.bincount(np.repeat(np.arange(n), lens), weights=contrib, minlength=n)
    assert np.allclose(acc.get(), want, rtol=1e-12, atol=1e-15)
    again = cupy.full(n, np.nan)  # deterministic: the same bits on a second call
    _k("pagerank", "dist_pull")(ip, cupy.asarray(indices.astype(index)),
                                None if w is None else cupy.asarray(w), cupy.asarray(y), again,
                                group=4, plan=plan)
    assert np.array_equal(acc.get(), again.get())


# the ids exchange's launchers: word_starts of owners with and without rows
_OWNERS = {"one": [0, 37], "two": [0, 64, 300], "empty first and middle": [0, 0, 64, 64, 200],
           "empty last": [0, 64, 100, 100], "whole warps": [0, 1024, 1088, 2100]}


@pytest.mark.parametrize("ids_dtype", [np.uint32, np.int64])
@pytest.mark.parametrize("density", [0.0, 0.003, 0.3, 1.0])
@pytest.mark.parametrize("owners", sorted(_OWNERS))
def test_ids_launchers(owners, density, ids_dtype):
    starts = np.array(_OWNERS[owners], np.int64)
    n = int(starts[-1])
    word_starts = (starts + 31) // 32
    rng = np.random.default_rng(n + int(density * 1000))
    bits = rng.random(n) < density
    edges = np.r_[starts[:-1], starts[1:] - 1, np.arange(31, n, 32)]  # owner and word edges
    bits[edges[(edges >= 0) & (edges < n)]] = density > 0
    nxt = cupy.asarray(_array.pack_bits(bits))
    ws = cupy.asarray(word_starts)
    counts = cupy.full(len(starts) - 1, 99, np.uint64)  # zeroed by the launcher
    _k("bfs", "dist_owner_counts")(nxt, ws, counts)
    owner = np.searchsorted(starts, np.flatnonzero(bits), side="right") - 1
    want = np.bincount(owner, minlength=len(starts) - 1)
    assert counts.get().tolist() == want.tolist()
    offsets = np.r_[0, np.cumsum(want)]
    cursors = cupy.asarray(offsets[:-1].astype(np.uint64))
    ids = cupy.full(int(offsets[-1]), 7, ids_dtype)
    _k("bfs", "dist_pack")(nxt, ws, cursors, ids)
    assert cursors.get().tolist() == offsets[1:].tolist()
    got = ids.get()
    for r in range(len(starts) - 1):
        seg = np.sort(got[offsets[r]:offsets[r + 1]])
        assert seg.tolist() == (np.flatnonzero(bits[starts[r]:starts[r + 1]]) + starts[r]).tolist()
    # each owner marks its received ids (twice over: repeats allowed) less its visited
    visited = rng.random(n) < 0.5
    for r in range(len(starts) - 1):
        lo, hi = int(starts[r]), int(starts[r + 1])
        if hi == lo:
            continue
        mine = cupy.asarray(np.r_[got[offsets[r]:offsets[r + 1]],
                                  got[offsets[r]:offsets[r + 1]]].astype(ids_dtype))
        found = cupy.zeros(_array.nwords(hi - lo), np.uint32)
        _k("bfs", "dist_mark")(mine, cupy.asarray(_array.pack_bits(visited)), lo, found)
        assert np.array_equal(_array.unpack_bits(found.get(), hi - lo),
                              bits[lo:hi] & ~visited[lo:hi])
    assert nxt.shape[0] == _array.nwords(n)
