"""Graphs split over the ranks (``DistMatrix``) and the partitioned calls
(``bfs``, ``connected_components``, ``pagerank``) on LocalGroups of 1, 2,
3 and 4 ranks against the one-process calls: BFS levels and component
labels bit-equal, PageRank within 1e-6 (L1) in the same iterations; the
parallel generator equal to the one-process generator; ranks owning no
vertices or no entries; errors raised on every rank."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import bitgraph.algorithms as one
import bitgraph.distributed as dist
from bitgraph.distributed import DistMatrix, DistributedError, LocalGroup
from bitgraph.distributed.partition import ALIGN, _starts
from graph_strategies import graphs
from testdata import data_file

SIZES = (1, 2, 3, 4)


def whole(out):
    """The gathered per-rank results are equal; returns rank 0's."""
    for o in out[1:]:
        assert o.dtype == out[0].dtype and np.array_equal(o, out[0])
    return out[0]


def run_all(comm, A, source, balance="edges"):
    """Every partitioned call on rank ``comm`` of ``A``: (the rank's
    DistMatrix facts, levels gathered, levels sliced, labels, pagerank)."""
    D = DistMatrix.from_matrix(comm, A, balance=balance)
    lev = dist.bfs(comm, D, source, gather=True)
    part = dist.bfs(comm, D, source)
    cc = dist.connected_components(comm, D)
    pr = dist.pagerank(comm, D, gather=True)
    return (D.lo, D.hi, D.nnz_local, D.nnz), lev, part, cc, pr


def check_against_one(A, size, source=0, balance="edges"):
    out = LocalGroup(size).run(run_all, A, source, balance)
    facts = [o[0] for o in out]
    # the ranks' rows tile the vertices and the entries
    assert facts[0][0] == 0 and facts[-1][1] == A.nrows
    assert all(facts[r][1] == facts[r + 1][0] for r in range(size - 1))
    assert all(f[0] % ALIGN == 0 or f[0] == A.nrows for f in facts)
    assert sum(f[2] for f in facts) == A.nvals and all(f[3] == A.nvals for f in facts)
    lev = whole([o[1] for o in out])
    want = one.bfs(A, source).to_dense(-1)
    assert lev.dtype == np.int32 and np.array_equal(lev, want)
    assert np.array_equal(np.concatenate([o[2] for o in out]), want)
    cc = whole([o[3] for o in out])
    assert cc.dtype == np.int64
    assert np.array_equal(cc, one.connected_components(A).to_dense())
    ranks = whole([o[4].ranks for o in out])
    ref = one.pagerank(A)
    assert {o[4].iterations for o in out} == {ref.iterations}
    assert all(o[4].converged == ref.converged for o in out)
    assert np.abs(ranks - ref.ranks.to_dense()).sum() < 1e-6


# ---------------------------------------------------------------------------
# the split
# ---------------------------------------------------------------------------

@given(n=st.integers(0, 5000), size=st.integers(1, 9), data=st.data())
def test_starts_tile_the_vertices_at_word_boundaries(n, size, data):
    deg = np.array(data.draw(st.lists(st.integers(0, 50), min_size=n, max_size=n)), np.int64)
    indptr = np.concatenate([[0], np.cumsum(deg)])
    for s in (_starts(n, size), _starts(n, size, indptr)):
        assert s[0] == 0 and s[-1] == n and (np.diff(s) >= 0).all()
        assert all(x % ALIGN == 0 or x == n for x in s)
    if n >= ALIGN * size:  # by vertices: within one word-pair of even
        assert np.abs(np.diff(_starts(n, size)) - n / size).max() <= ALIGN


def test_edge_balance_follows_the_entries_not_the_vertices():
    # the first 128 vertices hold 90% of the entries: by edges they split apart
    A = bg.Matrix.from_coo(np.repeat(np.arange(128), 70), np.tile(np.arange(70), 128) + 200,
                           nrows=1024, ncols=1024)
    B = bg.Matrix.from_coo(np.arange(1024), (np.arange(1024) + 1) % 1024, nrows=1024, ncols=1024)
    A = bg.ewise_add(A, B, "lor")
    by_e = LocalGroup(2).run(DistMatrix.from_matrix, A)
    by_v = LocalGroup(2).run(DistMatrix.from_matrix, A, balance="vertices")
    assert [D.lo for D in by_v] == [0, 512]
    assert by_e[1].lo == 64  # half of the entries lie in the first 64 rows
    assert abs(by_e[0].nnz_local - by_e[1].nnz_local) < abs(by_v[0].nnz_local - by_v[1].nnz_local)


@pytest.mark.parametrize("size", SIZES)
def test_rows_are_the_matrix_rows_with_global_columns(size):
    A = bg.io.generators.kron(9, seed=2)
    S = A.to_scipy().tocsr()
    for D in LocalGroup(size).run(DistMatrix.from_matrix, A):
        part = S[D.lo:D.hi]
        assert D.indptr.dtype == np.int64 and D.indices.dtype == np.int32
        assert np.array_equal(D.indptr, part.indptr) and np.array_equal(D.indices, part.indices)
        assert D.symmetric and D.in_rows()[1] is D.indices and D.n == 512
        assert D.nbytes == D.indptr.nbytes + D.indices.nbytes
        assert (D.owner(np.arange(D.lo, D.hi)) == D.rank).all()


def test_directed_graph_keeps_its_in_rows_apart():
    A = bg.Matrix.from_coo([0, 0, 70, 130], [70, 130, 130, 1], nrows=150, ncols=150)
    T = A.to_scipy().T.tocsr()
    for D in LocalGroup(2).run(DistMatrix.from_matrix, A, balance="vertices"):
        assert not D.symmetric
        pin, pix, _ = D.in_rows()
        assert np.array_equal(pix, T[D.lo:D.hi].indices)


@pytest.mark.parametrize("spec", ["kron:9@3", "kron:7:4", "urand:9:6@2", "kron:0", "urand:3:1"])
@pytest.mark.parametrize("size", SIZES)
def test_parallel_generator_is_the_one_process_generator(spec, size):
    A = bg.io.generators.from_spec(spec)
    S = A.to_scipy().tocsr()
    with bg.settings.use(distributed={"step_entries": 1 << 16}):  # several routing rounds
        parts = LocalGroup(size).run(DistMatrix.generate, spec)
    assert [D.lo for D in parts] == _starts(A.nrows, size).tolist()[:-1]
    for D in parts:
        assert D.nnz == A.nvals and D.symmetric and D.values is None
        part = S[D.lo:D.hi]
        assert np.array_equal(D.indptr, part.indptr) and np.array_equal(D.indices, part.indices)


def test_generator_sorts_in_several_ranges():
    spec = "kron:10@1"
    S = bg.io.generators.from_spec(spec).to_scipy().tocsr()
    with bg.settings.use(distributed={"sort_keys": 1000, "step_entries": 1 << 15}):
        parts = LocalGroup(3).run(DistMatrix.generate, spec)
    for D in parts:
        assert np.array_equal(D.indices, S[D.lo:D.hi].indices)
        assert np.array_equal(D.indptr, S[D.lo:D.hi].indptr)


@pytest.mark.parametrize("spec", ["kronh:9@3", "kronh:7:4", "urandh:9:6@2", "kronh:0",
                                  "urandh:3:1", "kronh:6:0"])
@pytest.mark.parametrize("size", SIZES)
def test_hashed_generator_is_from_spec_on_any_number_of_ranks(spec, size):
    # from_spec builds through _SymSink on the thread pool; generate through routed,
    # sorted rounds and _RowRanges: two paths to one graph
    A = bg.io.generators.from_spec(spec)
    S = A.to_scipy().tocsr()
    with bg.settings.use(distributed={"step_entries": 1000}):  # several rounds, ragged shares
        parts = LocalGroup(size).run(DistMatrix.generate, spec)
    assert [D.lo for D in parts] == _starts(A.nrows, size).tolist()[:-1]
    assert sum(D.nnz_local for D in parts) == A.nvals
    for D in parts:
        assert D.nnz == A.nvals and D.symmetric and D.values is None
        assert D.indices.dtype == np.int32 and D.indptr.dtype == np.int64
        part = S[D.lo:D.hi]
        assert np.array_equal(D.indptr, part.indptr) and np.array_equal(D.indices, part.indices)


def test_hashed_generator_sorts_in_several_ranges():
    spec = "urandh:10:8@5"
    S = bg.io.generators.from_spec(spec).to_scipy().tocsr()
    with bg.settings.use(distributed={"sort_keys": 700, "step_entries": 777}):
        parts = LocalGroup(3).run(DistMatrix.generate, spec)
    assert len(parts[0].indices) > 2000  # several ranges a rank
    for D in parts:
        assert np.array_equal(D.indices, S[D.lo:D.hi].indices)
        assert np.array_equal(D.indptr, S[D.lo:D.hi].indptr)


def test_hashed_generator_routes_each_rank_its_edge_range():
    def work(comm):
        with comm.recording() as log:
            DistMatrix.generate(comm, "kronh:8:4@1")
        return [(name, nbytes) for name, nbytes, _ in log if name == "alltoall"]

    with bg.settings.use(distributed={"step_entries": 256}):
        logs = LocalGroup(2).run(work)
    # 1024 edges, 512 a rank, 256 a round: 2 rounds on every rank, each an all-to-all
    assert [len(x) for x in logs] == [2, 2]


# ---------------------------------------------------------------------------
# the calls against the one-process calls
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_kron_and_grid(size):
    check_against_one(bg.io.generators.kron(9, seed=1), size, source=5)
    check_against_one(bg.io.generators.grid2d(17, 23, drop=0.1, seed=3), size, source=7)


@pytest.mark.parametrize("name", ["jagmesh7.mtx", "olm1000.mtx", "west0067.mtx", "karate.mtx"])
def test_graphs_of_tests_data(name):
    A = bg.io.read(data_file(name))
    A = bg.Matrix.from_coo(*A.to_coo()[:2], nrows=A.nrows, ncols=A.ncols)  # the pattern
    check_against_one(A, 3, source=1)


@settings(max_examples=40, deadline=None)
@given(spec=graphs(max_n=300, weighted=False), size=st.sampled_from(SIZES),
       balance=st.sampled_from(["edges", "vertices"]), data=st.data())
def test_hypothesis_graphs(spec, size, balance, data):
    A = spec.matrix(bg)
    check_against_one(A, size, source=data.draw(st.integers(0, spec.n - 1)), balance=balance)


@settings(max_examples=15, deadline=None)
@given(spec=graphs(max_n=200, weighted=True), size=st.sampled_from(SIZES))
def test_weighted_pagerank(spec, size):
    A = spec.matrix(bg)
    out = LocalGroup(size).run(lambda c: dist.pagerank(c, DistMatrix.from_matrix(c, A),
                                                       tol=1e-9, gather=True))
    ref = one.pagerank(A, tol=1e-9)
    assert out[0].iterations == ref.iterations
    assert np.abs(whole([o.ranks for o in out]) - ref.ranks.to_dense()).sum() < 1e-6


def test_pagerank_arguments_as_one_process():
    A = bg.io.generators.kron(8, seed=4)
    rng = np.random.default_rng(1)
    kw = dict(alpha=0.7, tol=1e-8, max_iter=5, personalization=rng.random(256),
              nstart={3: 1.0, 9: 2.0}, dangling=rng.random(256))
    out = LocalGroup(3).run(lambda c: dist.pagerank(c, DistMatrix.from_matrix(c, A),
                                                    gather=True, **kw))
    ref = one.pagerank(A, **kw)
    assert out[0].iterations == ref.iterations == 5 and not out[0].converged
    assert np.abs(out[0].ranks - ref.ranks.to_dense()).sum() < 1e-9
    assert abs(out[0].error - ref.error) < 1e-9


def test_a_rank_without_vertices_or_entries():
    # 70 vertices on 4 ranks by vertices: ranks 0 and 2 own none; the entries sit
    # in the first 64 rows, so rank 3 owns rows but no entries
    A = bg.Matrix.from_coo([0, 1, 2, 63], [1, 2, 0, 5], nrows=70, ncols=70)
    out = LocalGroup(4).run(run_all, A, 0, "vertices")
    assert [o[0][:3] for o in out] == [(0, 0, 0), (0, 64, 4), (64, 64, 0), (64, 70, 0)]
    check_against_one(A, 4, source=63, balance="vertices")
    check_against_one(bg.Matrix(bool, 130, 130), 3, source=129)  # no entries at all


def test_bfs_takes_both_directions_and_reports_them():
    A = bg.io.generators.kron(10, seed=1)
    hub = int(np.argmax(np.diff(A.to_scipy().indptr)))

    def run(comm, alpha):
        st_ = bg.Stats()
        with bg.settings.use(distributed={"bfs_alpha": alpha}):
            lev = dist.bfs(comm, DistMatrix.from_matrix(comm, A), hub, gather=True, stats=st_)
        return lev, st_.metrics

    want = one.bfs(A, hub).to_dense(-1)
    for alpha in (15.0, 0.0):  # Beamer's switch, and top-down only
        out = LocalGroup(2).run(run, alpha)
        assert np.array_equal(whole([o[0] for o in out]), want)
        m = out[0][1]
        assert m["levels"] == len(m["directions"]) == int(want.max()) + 1  # the last finds none
        assert m["edges"] == A.nvals // 2
        assert ("b" in m["directions"]) == (alpha == 15.0)


def _bfs_exchanges(comm, A, exchange=None):
    """(the collectives of a bfs from 0 on A split by vertices: (op, bytes)
    each, the directions of its levels), under ``bfs_topdown_exchange``
    ``exchange`` (None: the default)."""
    D = DistMatrix.from_matrix(comm, A, balance="vertices")
    st_ = bg.Stats()
    change = {} if exchange is None else {"bfs_topdown_exchange": exchange}
    with comm.recording() as log, bg.settings.use(distributed=change):
        dist.bfs(comm, D, 0, stats=st_)
    return [(op, nbytes) for op, nbytes, _ in log], st_.metrics["directions"]


def test_exchange_schedule_per_level():
    A = bg.io.generators.kron(8, seed=1)  # 256 vertices: 128 a rank, a bitmap of 32 bytes

    log, dirs = LocalGroup(2).run(_bfs_exchanges, A)[0]  # "bitmap", the default
    assert "t" in dirs and "b" in dirs
    # a level: an allreduce of 3 int64 counts, then top-down an allgather of the whole
    # bitmap (32 bytes), bottom-up an allgatherv of the rank's own words (16 bytes); the
    # last allreduce finds an empty frontier. Before: the source checked and compared.
    assert log[:2] == [("allgather", 1), ("allgather", 16)]
    body = log[2:]
    assert [b for op, b in body if op == "allreduce"] == [24] * (len(dirs) + 1)
    bitmaps = [b for op, b in body if op == "allgather"]
    assert bitmaps == [32 if d == "t" else 16 for d in dirs]


def _levels_of(comm, A, sources, exchange, balance):
    """(this rank's slice, [(levels gathered, levels sliced, directions) a
    source]) with ``bfs_topdown_exchange=exchange``."""
    D = DistMatrix.from_matrix(comm, A, balance=balance)
    out = []
    with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}):
        for s in sources:
            st_ = bg.Stats()
            lev = dist.bfs(comm, D, s, gather=True, stats=st_)
            out.append((lev, dist.bfs(comm, D, s), st_.metrics["directions"]))
    return (D.lo, D.hi), out


def _bfs_cases():
    rng = np.random.default_rng(5)
    r, c = rng.integers(0, 130, 260), rng.integers(0, 130, 260)
    return [(bg.io.generators.kron(10, seed=1), "edges"),
            (bg.io.generators.grid2d(40, 40, drop=0.1, seed=2), "edges"),
            # 130 vertices by vertices on 4 ranks: [0, 64, 64, 128, 130], rank 1 owns none
            (bg.Matrix.from_coo(np.r_[r, c], np.r_[c, r], nrows=130, ncols=130), "vertices"),
            (bg.Matrix.from_coo(r, c, nrows=130, ncols=130), "vertices")]  # directed


@pytest.mark.parametrize("size", [2, 3, 4])
def test_bfs_exchanges_equal_the_one_process_levels(size):
    seen = set()
    for A, balance in _bfs_cases():
        slices = LocalGroup(size).run(
            lambda c: (lambda D: (D.lo, D.hi))(DistMatrix.from_matrix(c, A, balance=balance)))
        sources = sorted({v for lo, hi in slices if hi > lo for v in (lo, hi - 1)})
        if balance == "vertices" and size == 4:
            assert (64, 64) in slices  # a rank without rows
        want = [one.bfs(A, s).to_dense(-1) for s in sources]
        dirs = {}
        for exchange in ("ids", "bitmap"):
            out = LocalGroup(size).run(_levels_of, A, sources, exchange, balance)
            assert [o[0] for o in out] == slices
            for i, w in enumerate(want):
                assert np.array_equal(whole([o[1][i][0] for o in out]), w)
                assert np.array_equal(np.concatenate([o[1][i][1] for o in out]), w)
            dirs[exchange] = [d for _, _, d in out[0][1]]
            seen.update("".join(dirs[exchange]))
        assert dirs["ids"] == dirs["bitmap"]  # the same counts a level
    assert seen == {"t", "b"}


def _log_by_level(log):
    """The collectives after the source checks, one list a level (each
    opens with the allreduce of Beamer's counts; the last one finds no
    frontier)."""
    levels = []
    for op, nbytes in log[2:]:
        if op == "allreduce":
            levels.append([])
        else:
            levels[-1].append((op, nbytes))
    return levels


def test_exchange_schedule_of_ids_per_level():
    A = bg.io.generators.kron(8, seed=1)  # 256 vertices: 128 a rank, 16 bytes of own words

    log, dirs = LocalGroup(2).run(_bfs_exchanges, A, "ids")[0]
    assert "t" in dirs and "b" in dirs
    levels = _log_by_level(log)
    assert len(levels) == len(dirs) + 1 and levels[-1] == []
    for d, ops in zip(dirs, levels):
        if d == "t":  # alltoallv: the 2 counts all-gathered, the ids (uint32) all-to-all
            assert ops[0] == ("allgather", 16)
            assert [op for op, _ in ops[1:]] in ([], ["alltoall"])
            assert all(b % 8 == 0 for _, b in ops[1:])  # 2 pieces of 4-byte ids
        else:  # the owners' frontier words before the step, nothing after it
            assert ops == [("allgather", 16)]
    assert any(ops[1:] for d, ops in zip(dirs, levels) if d == "t")  # ids were sent


@pytest.mark.parametrize("size", [2, 4])
def test_topdown_levels_exchange_fewer_bytes_with_ids(size):
    A = bg.io.generators.grid2d(128, 128)  # a bitmap of 2 KiB; frontiers of <= 128 vertices

    def run(comm, exchange):
        D = DistMatrix.from_matrix(comm, A, balance="vertices")
        st_ = bg.Stats()
        with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}), \
                comm.recording() as log:
            dist.bfs(comm, D, 0, stats=st_)
        return [(op, nbytes) for op, nbytes, _ in log], st_.metrics["directions"]

    ids, dirs = LocalGroup(size).run(run, "ids")[0]
    bitmap, dirs_b = LocalGroup(size).run(run, "bitmap")[0]
    assert dirs == dirs_b and dirs.count("t") > 100
    by_ids, by_bitmap = _log_by_level(ids), _log_by_level(bitmap)
    for d, a, b in zip(dirs, by_ids, by_bitmap):
        if d == "t":
            assert b == [("allgather", 2048)]
            assert sum(n for _, n in a) < 2048
    assert sum(n for _, n in ids) < sum(n for _, n in bitmap) / 2


def test_ids_as_int64_past_2_to_the_32_vertices(monkeypatch):
    from bitgraph.distributed import partitioned as P

    A = bg.io.generators.grid2d(30, 30)
    sizes = {}
    for dtype in (np.uint32, np.int64):  # int64: the ids of a graph of more than 2^32 vertices
        monkeypatch.setattr(P, "_id_dtype", lambda n, dtype=dtype: dtype)

        def run(comm):
            with comm.recording() as log, \
                    bg.settings.use(distributed={"bfs_topdown_exchange": "ids"}):
                lev = dist.bfs(comm, DistMatrix.from_matrix(comm, A), 0, gather=True)
            return lev, sum(b for op, b, _ in log if op == "alltoall")

        out = LocalGroup(3).run(run)
        assert np.array_equal(whole([o[0] for o in out]), one.bfs(A, 0).to_dense(-1))
        sizes[dtype] = out[0][1]
    assert sizes[np.int64] == 2 * sizes[np.uint32] > 0


def test_bfs_topdown_exchange_setting_checked():
    A = bg.io.generators.grid2d(3, 3)
    with bg.settings.use(distributed={"bfs_topdown_exchange": "words"}):
        with pytest.raises(bg.InvalidValue, match="bfs_topdown_exchange"):
            LocalGroup(2).run(lambda c: dist.bfs(c, DistMatrix.from_matrix(c, A), 0))


def test_components_rounds_reported():
    A = bg.io.generators.grid2d(30, 30, drop=0.2, seed=1)

    def run(comm):
        st_ = bg.Stats()
        lab = dist.connected_components(comm, DistMatrix.from_matrix(comm, A), gather=False,
                                        stats=st_)
        return lab, st_.metrics["rounds"]

    out = LocalGroup(3).run(run)
    assert np.array_equal(np.concatenate([o[0] for o in out]),
                          one.connected_components(A).to_dense())
    assert 1 <= out[0][1] < 30


# ---------------------------------------------------------------------------
# errors, on every rank
# ---------------------------------------------------------------------------

def test_source_out_of_range_on_every_rank():
    A = bg.io.generators.grid2d(10, 10)
    with pytest.raises(bg.InvalidIndex, match="source 100 is out of range"):
        LocalGroup(2).run(lambda c: dist.bfs(c, DistMatrix.from_matrix(c, A), 100))
    with pytest.raises(bg.InvalidType, match="integer vertex id"):
        LocalGroup(2).run(lambda c: dist.bfs(c, DistMatrix.from_matrix(c, A), 1.5))


def test_mismatched_ranks():
    A, B = bg.io.generators.grid2d(10, 10), bg.io.generators.grid2d(10, 11)
    with pytest.raises(DistributedError, match="different graphs"):
        LocalGroup(2).run(lambda c: DistMatrix.from_matrix(c, A if c.rank else B))
    with pytest.raises(DistributedError, match="the source"):
        LocalGroup(2).run(lambda c: dist.bfs(c, DistMatrix.from_matrix(c, A), c.rank))
    D1 = LocalGroup(1).run(DistMatrix.from_matrix, A)[0]
    with pytest.raises(bg.InvalidValue, match="built on rank 0 of 1"):
        LocalGroup(2).run(lambda c: dist.bfs(c, D1, 0))
    with pytest.raises(bg.InvalidType, match="expected a DistMatrix"):
        LocalGroup(1).run(lambda c: dist.connected_components(c, A))


def test_bad_arguments():
    A = bg.io.generators.grid2d(4, 4)
    with pytest.raises(bg.InvalidValue, match="must be square"):
        LocalGroup(2).run(DistMatrix.from_matrix, bg.Matrix(bool, 3, 4))
    with pytest.raises(bg.InvalidValue, match="balance must be"):
        LocalGroup(1).run(DistMatrix.from_matrix, A, balance="rows")
    with pytest.raises(bg.InvalidValue, match="generates kron and urand"):
        LocalGroup(2).run(DistMatrix.generate, "grid:4x4")
    with pytest.raises(bg.InvalidValue, match="scale must be <= 31"):
        LocalGroup(2).run(DistMatrix.generate, "kron:32")
    with pytest.raises(bg.InvalidValue, match="scale must be <= 31"):
        LocalGroup(2).run(DistMatrix.generate, "kronh:32")
    with pytest.raises(bg.InvalidValue, match="bad graph spec"):
        LocalGroup(2).run(DistMatrix.generate, "ring:5")
    W = bg.Matrix.from_coo([0, 1], [1, 0], [1.0, -1.0], nrows=2, ncols=2)
    with pytest.raises(bg.InvalidValue, match="edge weights must be >= 0"):
        LocalGroup(2).run(lambda c: dist.pagerank(c, DistMatrix.from_matrix(c, W)))
    with pytest.raises(bg.InvalidValue, match="alpha must be in"):
        LocalGroup(2).run(lambda c: dist.pagerank(c, DistMatrix.from_matrix(c, A), alpha=2))


def test_alltoallv_routes_pieces_in_rank_order():
    def work(comm):
        counts = [(comm.rank + 1) * (d % 2) for d in range(comm.size)]
        rows = np.repeat(np.arange(comm.size), counts).astype(np.int64) + 10 * comm.rank
        return comm.alltoallv(np.stack([rows, -rows], axis=1), counts)

    out = LocalGroup(3).run(work)
    assert out[0].shape == (0, 2)
    assert out[1][:, 0].tolist() == [1, 11, 11, 21, 21, 21]
    assert (out[1][:, 1] == -out[1][:, 0]).all()
    with pytest.raises(bg.InvalidValue, match="counts sum to"):
        LocalGroup(2).run(lambda c: c.alltoallv(np.zeros(3), [1, 1]))
    with pytest.raises(bg.InvalidValue, match="numbers >= 0"):
        LocalGroup(2).run(lambda c: c.alltoallv(np.zeros(0), [1, -1]))
