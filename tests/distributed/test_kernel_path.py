"""The host side of the partitioned calls' CUDA path (``cuda_kernels``:
the level loop, counts, exchanges and updates around the launchers of
``kernels/cuda/dist_traversal.py``) on numpy ranks, with numpy stand-ins
for the launchers that meet their documented contracts: BFS levels and
directions, component labels and PageRank equal to the one-process calls.
tests/gpu/test_dist_kernels_gpu.py checks the real launchers against the
same contracts (and the whole path on CUDA ranks)."""

from __future__ import annotations

import numpy as np
import pytest

import bitgraph as bg
import bitgraph.algorithms as one
from bitgraph import _array
from bitgraph.distributed import DistMatrix, LocalGroup
from bitgraph.distributed import partitioned as P


def _bits(words, n):
    return _array.unpack_bits(words, n)


def _frontier(indptr, frontier, visited, lo, listing, counts, *, heavy, split):
    n_local = indptr.shape[0] - 1
    deg = np.diff(indptr)
    f = _bits(frontier, lo + n_local)[lo:]
    v = _bits(visited, lo + n_local)[lo:]
    rows = np.random.default_rng(n_local).permutation(np.flatnonzero(f))  # any order
    big = rows[deg[rows] > split]
    counts[:] = [deg[f].sum(), rows.shape[0], deg[~v].sum(), big.shape[0]]
    listing[:rows.shape[0]] = rows
    heavy[:big.shape[0]] = big


def _topdown(indptr, indices, listing, counts, visited, nxt, *, rows, group, heavy, split):
    # the light listed rows, then the heavy ones (listed apart), as the two kernels
    n = visited.shape[0] * 32
    b, v = _bits(nxt, n).copy(), _bits(visited, n)
    light = [r for r in listing[:int(counts[1])] if indptr[r + 1] - indptr[r] <= split]
    for r in light + list(heavy[:int(counts[3])]):
        c = indices[indptr[r]:indptr[r + 1]]
        b[c[~v[c]]] = True
    nxt[:] = _array.pack_bits(b)
    _HEAVY.append(int(counts[3]))


_HEAVY = []  # heavy rows a top-down step walked with the whole grid


def _bottomup(indptr, indices, frontier, visited, lo, found):
    n_local, n = indptr.shape[0] - 1, frontier.shape[0] * 32
    f, v = _bits(frontier, n), _bits(visited, n)
    hit = np.array([not v[lo + r] and f[indices[indptr[r]:indptr[r + 1]]].any()
                    for r in range(n_local)], bool)
    if n_local:
        found[:] = _array.pack_bits(hit)


def _update(parts, nparts, visited, frontier, levels, lo, level):
    w = np.bitwise_or.reduce(parts.reshape(nparts, visited.shape[0]), axis=0) & ~visited
    visited |= w
    frontier[:] = w
    levels[_bits(w, visited.shape[0] * 32)[lo:lo + levels.shape[0]]] = level


def _owner_counts(nxt, word_starts, counts):
    bits = np.bitwise_count(nxt).astype(np.int64)
    sums = np.r_[0, np.cumsum(bits)]
    counts[:] = np.diff(sums[word_starts])


def _pack(nxt, word_starts, cursors, ids):
    at = _array.unpack_bits(nxt, nxt.shape[0] * 32)
    for r in range(word_starts.shape[0] - 1):
        mine = np.flatnonzero(at[word_starts[r] * 32:word_starts[r + 1] * 32]) \
            + word_starts[r] * 32
        mine = np.random.default_rng(r).permutation(mine)  # any order within a segment
        ids[int(cursors[r]):int(cursors[r]) + mine.shape[0]] = mine
        cursors[r] += mine.shape[0]


def _mark(ids, visited, lo, found):
    n_local = found.shape[0] * 32
    b = _bits(found, n_local).copy()
    local = ids.astype(np.int64) - lo
    b[local[~_bits(visited, lo + n_local)[lo + local]]] = True
    found[:] = _array.pack_bits(b)


def _hook(indptr, indices, lo, f, gf, fn, *, both, group, plan):
    heavy, split, chunk = plan
    assert heavy.tolist() == np.flatnonzero(np.diff(indptr) > split).tolist()
    _HOOKED.append(heavy.shape[0])
    rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr)) + lo
    for x, y in ((rows, indices),) + (((indices, rows),) if both else ()):
        np.minimum.at(fn, f[x], gf[y])
        np.minimum.at(fn, x, gf[y])


_HOOKED = []  # heavy rows a hook round took chunk by chunk


def _pull_plan(indptr, *, split, chunk):
    heavy = np.flatnonzero(np.diff(indptr) > split)
    return heavy, split, chunk


def _pull(indptr, indices, weights, y, acc, *, group, plan):
    # the heavy rows (plan) summed chunk by chunk, then the chunks in order
    heavy, split, chunk = plan
    rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    contrib = y[indices] * (1.0 if weights is None else weights)
    acc[:] = np.bincount(rows, weights=contrib, minlength=acc.shape[0])
    for r in heavy:
        part = contrib[indptr[r]:indptr[r + 1]]
        acc[r] = sum(part[c:c + chunk].sum() for c in range(0, part.size, chunk))
    _PULLS.append(len(heavy))


_PULLS = []  # heavy rows a pull took chunk by chunk


class _NotNumpy:
    """numpy under another name: the partitioned calls take their CUDA
    branch (``xp is not np``)."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.fixture
def kernel_path(monkeypatch):
    stand_ins = {"frontier": _frontier, "topdown": _topdown, "bottomup": _bottomup,
                 "update": _update, "hook": _hook, "hook_plan": _pull_plan, "pull": _pull,
                 "pull_plan": _pull_plan,
                 "owner_counts": _owner_counts, "pack": _pack, "mark": _mark}
    check = P._check
    monkeypatch.setattr(P, "_kernels", lambda: stand_ins)
    monkeypatch.setattr(P, "_check", lambda comm, D, where: (check(comm, D, where),
                                                              _NotNumpy())[1])


def _calls(comm, A, source):
    D = DistMatrix.from_matrix(comm, A)
    st = bg.Stats()
    lev = P.bfs(comm, D, source, gather=True, stats=st)
    cc = P.connected_components(comm, D, stats=st)
    pr = P.pagerank(comm, D, gather=True, tol=1e-10)
    return lev, st.metrics["directions"], list(st.kernels), cc, pr


def _graphs():
    rng = np.random.default_rng(0)
    n = 300
    r, c = rng.integers(0, n, 1500), rng.integers(0, n, 1500)
    return {"kron": bg.io.generators.kron(10, seed=3), "grid": bg.io.generators.grid2d(20, 20),
            "empty": bg.Matrix.from_coo([], [], nrows=130, ncols=130),
            "tiny": bg.Matrix.from_coo([0, 1, 2], [1, 2, 2], nrows=5, ncols=5),
            "directed": bg.Matrix.from_coo(r, c, rng.random(1500), nrows=n, ncols=n,
                                           dup_op="plus")}


@pytest.mark.parametrize("exchange", ["ids", "bitmap"])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
@pytest.mark.parametrize("name", ["kron", "grid", "empty", "tiny", "directed"])
def test_kernel_path_equals_the_one_process_calls(kernel_path, name, size, exchange):
    A = _graphs()[name]
    want_cc = one.connected_components(A).to_dense()
    ref = one.pagerank(A, tol=1e-10)
    for s in (1, A.nrows - 1):
        with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}):
            out = LocalGroup(size).run(_calls, A, s)
        arrays = LocalGroup(size).run(
            lambda comm: (lambda st: (P._bfs_arrays(comm, DistMatrix.from_matrix(comm, A), s,
                                                    bg.settings.current().distributed, np)))(0))
        want = one.bfs(A, s).to_dense(-1)
        for (lev, dirs, kernels, cc, pr), (_, _, dirs_a) in zip(out, arrays):
            assert np.array_equal(lev, want)
            assert dirs == "".join(dirs_a)  # the array steps' directions
            assert ("bfs", "csr", "cuda", "dist_frontier") in kernels
            assert ("cc", "csr", "cuda", "dist_hook") in kernels
            pack = ("bfs", "csr", "cuda", "dist_pack")
            assert (pack in kernels) == (exchange == "ids" and "t" in dirs)
            assert np.array_equal(cc, want_cc)
            assert pr.iterations == ref.iterations
            assert np.abs(pr.ranks - ref.ranks.to_dense()).sum() < 1e-9


@pytest.mark.parametrize("split, chunk", [(0, 1), (4, 3), (40, 16), (10**9, 4096)])
@pytest.mark.parametrize("name", ["kron", "directed"])
def test_kernel_path_pull_cuts_heavy_rows(kernel_path, name, split, chunk):
    """settings.distributed.heavy_split / heavy_chunk: the CUDA pull takes the
    in-rows over the split chunk by chunk (every row at 0, none past the
    longest); the ranks equal the one-process call's in the same
    iterations."""
    A = _graphs()[name]
    ref = one.pagerank(A, tol=1e-10)
    _PULLS.clear()
    with bg.settings.use(distributed={"heavy_split": split, "heavy_chunk": chunk}):
        out = LocalGroup(2).run(lambda comm: P.pagerank(comm, DistMatrix.from_matrix(comm, A),
                                                        gather=True, tol=1e-10))
    for pr in out:
        assert pr.iterations == ref.iterations
        assert np.abs(pr.ranks - ref.ranks.to_dense()).sum() < 1e-9
    longest = int(np.bincount(A.to_coo()[1], minlength=A.nrows).max())  # the longest in-row
    assert (max(_PULLS) > 0) == (longest > split)
    assert name == "directed" or split >= 10**9 or max(_PULLS) > 0  # kron's hubs go by chunks


@pytest.mark.parametrize("split", [0, 3, 40, 10**9])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_kernel_path_topdown_walks_heavy_rows_apart(kernel_path, size, split):
    """settings.distributed.heavy_split: a top-down step walks the frontier
    rows over the split apart (every row at 0, none past the longest); the
    levels equal the one-process bfs whatever the split."""
    A = bg.io.generators.kron(10, seed=3)
    want = one.bfs(A, 1).to_dense(-1)
    _HEAVY.clear()
    with bg.settings.use(distributed={"heavy_split": split,
                                      "bfs_alpha": 1e-9}):  # top-down every level
        out = LocalGroup(size).run(
            lambda comm: P.bfs(comm, DistMatrix.from_matrix(comm, A), 1, gather=True))
    for lev in out:
        assert np.array_equal(lev, want)
    assert (sum(_HEAVY) > 0) == (split < 10**9)


@pytest.mark.parametrize("split", [0, 5, 10**9])
@pytest.mark.parametrize("name", ["kron", "directed"])
def test_kernel_path_hooks_take_heavy_rows_apart(kernel_path, name, split):
    """settings.distributed.heavy_split: the CC hooks take the rows over the
    split apart (every row at 0, none past the longest); the labels equal
    the one-process call's."""
    A = _graphs()[name]
    want = one.connected_components(A).to_dense()
    _HOOKED.clear()
    with bg.settings.use(distributed={"heavy_split": split}):
        out = LocalGroup(2).run(
            lambda comm: P.connected_components(comm, DistMatrix.from_matrix(comm, A)))
    for labels in out:
        assert np.array_equal(labels, want)
    assert (max(_HOOKED) > 0) == (split < 10**9)
