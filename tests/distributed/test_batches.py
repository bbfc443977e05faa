"""The batch calls of ``bitgraph.distributed`` on LocalGroups of 1, 2, 3
and 5 ranks against the one-process calls: integers bit-equal, closeness
bit-equal, betweenness within float summation order (rtol 1e-12); more
ranks than batches (ranks with no sources still join every collective);
hypothesis graphs and a graph of tests/data; errors raised on every rank."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import bitgraph.algorithms as one
import bitgraph.distributed as dist
from bitgraph.distributed import DistributedError, LocalGroup, batch_deal, source_share
from graph_strategies import graphs
from testdata import data_file

SIZES = (1, 2, 3, 5)
RTOL, ATOL = 1e-12, 1e-14


def same_on_every_rank(out):
    """The per-rank results are equal (bit for bit); returns rank 0's."""
    first = out[0]
    for o in out[1:]:
        if isinstance(first, bg.Matrix):
            assert o.isequal(first)
        else:
            assert o.dtype == first.dtype and o.shape == first.shape
            assert np.array_equal(o, first, equal_nan=True)
    return first


def close(ours, ref):
    ours, ref = np.asarray(ours), np.asarray(ref)
    assert ours.dtype == ref.dtype and ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=RTOL, atol=ATOL)


def grid():
    return bg.io.generators.grid2d(9, 11)  # 99 vertices: 2 batches of 64


def karate():
    return bg.io.read(data_file("karate.mtx"))


# ---------------------------------------------------------------------------
# the split
# ---------------------------------------------------------------------------

@given(k=st.integers(0, 1000), size=st.integers(1, 9), batch=st.integers(1, 70))
def test_source_share_covers_in_order_whole_batches_balanced(k, size, batch):
    shares = [source_share(k, size, r, batch) for r in range(size)]
    assert shares[0][0] == 0 and shares[-1][1] == k
    assert all(shares[r][1] == shares[r + 1][0] for r in range(size - 1))
    counts = [-(-(b - a) // batch) for a, b in shares]  # batches per rank
    assert max(counts) - min(counts) <= 1
    for a, b in shares[:-1]:
        assert (b - a) % batch == 0 or b == k  # full batches but the very last


@given(k=st.integers(0, 1000), size=st.integers(1, 9), batch=st.integers(1, 70))
def test_batch_deal_covers_whole_batches_back_and_forth(k, size, batch):
    deals = [batch_deal(k, size, r, batch) for r in range(size)]
    every = np.concatenate(deals)
    assert np.array_equal(np.sort(every), np.arange(k))  # each position once
    nb = -(-k // batch)
    counts = [-(-d.size // batch) for d in deals]  # batches per rank
    assert sum(counts) == nb and max(counts) - min(counts) <= 1
    for r, d in enumerate(deals):
        assert np.array_equal(d, np.sort(d))
        starts = d[::batch]
        assert (starts % batch == 0).all()  # whole batches, the short last one last
        assert np.array_equal(d, np.concatenate(
            [np.arange(s, min(s + batch, k)) for s in starts]) if starts.size else d)
        for j in starts // batch:  # back and forth: batch j's rank
            sweep, pos = divmod(int(j), size)
            assert (pos if sweep % 2 == 0 else size - 1 - pos) == r


def test_batch_deal_mixes_a_drifting_cost():
    cost = np.linspace(75.0, 45.0, 36)  # a cost a batch that falls along the order
    mix = [cost[batch_deal(36, 4, r, 1)].sum() for r in range(4)]
    cut = [cost[a:b].sum() for a, b in (source_share(36, 4, r, 1) for r in range(4))]
    assert max(mix) - min(mix) < 0.1 * (max(cut) - min(cut))
    with pytest.raises(bg.InvalidValue, match="rank must be in 0..1"):
        batch_deal(10, 2, 2)


def test_source_share_errors():
    with pytest.raises(bg.InvalidValue, match="rank must be in 0..1"):
        source_share(10, 2, 2)
    with pytest.raises(bg.InvalidValue, match="batch must be >= 1"):
        source_share(10, 2, 0, batch=0)
    with pytest.raises(bg.InvalidType, match="k must be an integer"):
        source_share(1.5, 2, 0)


# ---------------------------------------------------------------------------
# every call equals the one-process call
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("size", SIZES)
def test_msbfs(size):
    A = grid()
    srcs = [5, 0, 98, 5, 40, 7, 63, 64, 2]
    for batch in (1, 2, 64):
        out = same_on_every_rank(LocalGroup(size).run(dist.msbfs, A, srcs, batch=batch))
        ref = one.msbfs(A, srcs, batch=batch)
        assert out.dtype == np.int32 and np.array_equal(out, ref)
    every = same_on_every_rank(LocalGroup(size).run(dist.msbfs, A, groupby=True))
    assert np.array_equal(every, one.msbfs(A, np.arange(A.nrows)))


@pytest.mark.parametrize("size", SIZES)
def test_closeness_and_eccentricity(size):
    A = grid()
    D = bg.Matrix.from_coo([0, 1, 2, 3], [1, 2, 3, 0], nrows=6, ncols=6)  # a directed cycle + 2 alone
    for G in (A, D, karate()):
        for wf in (True, False):
            out = same_on_every_rank(LocalGroup(size).run(dist.closeness_centrality, G,
                                                          wf_improved=wf))
            ref = one.closeness_centrality(G, wf_improved=wf)
            assert out.dtype == np.float64 and np.array_equal(out, ref)  # bit-equal
    srcs = [3, 3, 97, 0]
    out = same_on_every_rank(LocalGroup(size).run(dist.closeness_centrality, A, srcs))
    assert np.array_equal(out, one.closeness_centrality(A, srcs))
    for G in (A, karate()):
        out = same_on_every_rank(LocalGroup(size).run(dist.eccentricity, G))
        assert out.dtype == np.int64 and np.array_equal(out, one.eccentricity(G))
    out = same_on_every_rank(LocalGroup(size).run(dist.eccentricity, A, srcs))
    assert np.array_equal(out, one.eccentricity(A, srcs))


@pytest.mark.parametrize("size", SIZES)
def test_betweenness(size):
    A, K = grid(), karate()
    D = bg.Matrix.from_coo([0, 1, 2, 3, 1, 4], [1, 2, 3, 0, 4, 2], nrows=7, ncols=7)
    W = bg.Matrix.from_coo([0, 1, 0, 2, 3], [1, 2, 2, 3, 0], [1.0, 1.0, 2.0, 0.5, 4.0],
                           nrows=5, ncols=5)
    # batches of 4: several a rank, and ranks without any on the small graphs
    with bg.settings.use(betweenness={"batch": 4}):
        cases = [(A, {}), (K, {}), (K, {"normalized": False, "endpoints": True}),
                 (D, {"endpoints": True}), (W, {"weight": True}), (W, {"weight": True, "endpoints": True}),
                 (K, {"k": 9, "seed": 3}), (K, {"k": 9, "seed": 3, "endpoints": True}),
                 (A, {"sources": [4, 4, 90, 1, 17]})]
        for G, kw in cases:
            out = same_on_every_rank(LocalGroup(size).run(dist.betweenness_centrality, G, **kw))
            close(out, one.betweenness_centrality(G, **kw))
        for G, kw in [(K, {}), (D, {"normalized": False}), (W, {"weight": "weight"}),
                      (K, {"k": 7, "seed": 11})]:
            out = same_on_every_rank(LocalGroup(size).run(dist.edge_betweenness_centrality, G, **kw))
            ref = one.edge_betweenness_centrality(G, **kw)
            r0, c0, v0 = out.to_coo()
            r1, c1, v1 = ref.to_coo()
            assert np.array_equal(r0, r1) and np.array_equal(c0, c1)
            close(v0, v1)


@pytest.mark.parametrize("size", (2, 3))
def test_betweenness_ranks_run_the_one_process_calls_batches(size, monkeypatch):
    # grouped sources (group_batches 2): each rank's share is a whole-batch run of the
    # one-process call's order, so the ranks' batches together are that call's batches
    import threading

    from bitgraph.algorithms import multi_source

    K = karate()
    seen, lock = [], threading.Lock()
    real = multi_source.msbfs

    def recorded(A, s, *args, **kw):
        with lock:
            seen.append(tuple(int(v) for v in s))
        return real(A, s, *args, **kw)

    monkeypatch.setattr(multi_source, "msbfs", recorded)
    with bg.settings.use(betweenness={"batch": 4, "group_batches": 2}):
        ref = one.betweenness_centrality(K)
        want, seen[:] = sorted(seen), []
        out = same_on_every_rank(LocalGroup(size).run(dist.betweenness_centrality, K))
    assert sorted(seen) == want
    close(out, ref)
    order = bg.algorithms.betweenness.batch_order
    with bg.settings.use(betweenness={"batch": 4, "group_batches": 2}):
        grouped = order(K, np.arange(34))
    assert not np.array_equal(grouped, np.sort(grouped))  # the grouping reorders karate


@pytest.mark.parametrize("size", (2, 3))
def test_closeness_ranks_run_the_one_process_calls_batches(size, monkeypatch):
    # grouped sources (msbfs.group_batches 1): the ranks' batches together are the
    # one-process call's, and the values come back in the caller's order, bit-equal
    import threading

    from bitgraph.algorithms import multi_source

    K = karate()
    src = np.random.default_rng(5).integers(0, 34, 200)  # repeats included
    seen, lock = [], threading.Lock()
    real = multi_source._run_batches_cpu

    def recorded(A, s, order, batch, *args):
        with lock:
            seen.extend(tuple(int(v) for v in s[order[i:i + batch]])
                        for i in range(0, order.size, batch))
        return real(A, s, order, batch, *args)

    monkeypatch.setattr(multi_source, "_run_batches_cpu", recorded)
    ordered = []  # the batch orders made: once a rank, before the deal (a share is not
    real_order = multi_source.batch_split  # ordered again: it is whole batches of the order)

    def counted(A, s):
        with lock:
            ordered.append(s.size)
        return real_order(A, s)

    with bg.settings.use(msbfs={"group_batches": 1}):
        ref = one.closeness_centrality(K, src)
        want, seen[:] = sorted(seen), []
        monkeypatch.setattr(multi_source, "batch_split", counted)
        out = same_on_every_rank(LocalGroup(size).run(dist.closeness_centrality, K, src))
        monkeypatch.setattr(multi_source, "batch_split", real_order)
        assert sorted(seen) == want
        assert ordered == [src.size] * size
        order = multi_source.batch_order(K.T, src)
    assert np.array_equal(out, ref)
    assert not np.array_equal(order, np.sort(order))  # the grouping reorders karate's


def test_closeness_exchanges_twice():
    # the checks and the batch order agreed in one collective, the shares' outcome and
    # values in one: the fixed cost a call pays whatever its size
    K = karate()

    def work(comm):
        with comm.recording() as log:
            dist.closeness_centrality(comm, K)
        return [name for name, _, _ in log]

    logs = LocalGroup(3).run(work)
    assert all(log == logs[0] for log in logs) and len(logs[0]) == 2, logs[0]


def test_fewer_batches_than_ranks_and_one_rank_with_everything():
    A = bg.io.generators.grid2d(3, 4)  # 12 vertices: one batch, on the last of 5 ranks
    assert [source_share(12, 5, r) for r in range(5)] == [(0, 0)] * 4 + [(0, 12)]

    def work(comm):
        with comm.recording() as log:
            lev = dist.msbfs(comm, A)
            bc = dist.betweenness_centrality(comm, A)
        return lev, bc, [name for name, _, _ in log]

    out = LocalGroup(5).run(work)
    logs = [o[2] for o in out]
    assert all(log == logs[0] for log in logs)  # the same collectives on every rank
    assert np.array_equal(same_on_every_rank([o[0] for o in out]), one.msbfs(A, np.arange(12)))
    close(same_on_every_rank([o[1] for o in out]), one.betweenness_centrality(A))


def test_results_are_on_the_graphs_device_and_the_stats_of_the_share():
    A = grid()

    def work(comm):
        stats = bg.Stats()
        out = dist.closeness_centrality(comm, A, stats=stats)
        return type(out), stats.method

    assert LocalGroup(2).run(work) == [(np.ndarray, "cpu")] * 2


@settings(max_examples=30)
@given(spec=graphs(max_n=40), size=st.sampled_from(SIZES), batch=st.integers(1, 64))
def test_hypothesis_graphs(spec, size, batch):
    A = spec.matrix(bg)
    n = A.nrows
    lev = same_on_every_rank(LocalGroup(size).run(dist.msbfs, A, batch=batch))
    assert np.array_equal(lev, one.msbfs(A, np.arange(n), batch=batch))
    cc = same_on_every_rank(LocalGroup(size).run(dist.closeness_centrality, A))
    assert np.array_equal(cc, one.closeness_centrality(A))
    ecc = LocalGroup(size).run(_value_or_error, dist.eccentricity, A)
    assert ecc == [_value_or_error(None, one.eccentricity, A)] * size
    weight = True if spec.weights is not None else None
    with bg.settings.use(betweenness={"batch": batch}):
        bc = same_on_every_rank(LocalGroup(size).run(dist.betweenness_centrality, A, weight=weight))
        close(bc, one.betweenness_centrality(A, weight=weight))
        ebc = same_on_every_rank(LocalGroup(size).run(dist.edge_betweenness_centrality, A,
                                                      weight=weight))
        close(ebc.to_coo()[2], one.edge_betweenness_centrality(A, weight=weight).to_coo()[2])


def _value_or_error(comm, fn, *args):
    """fn's answer as a list, or (type, message) of what it raised."""
    try:
        out = fn(*args) if comm is None else fn(comm, *args)
    except bg.BitgraphError as e:
        return type(e), str(e)
    return out.tolist()


# ---------------------------------------------------------------------------
# errors: on every rank, as the one-process call raises them
# ---------------------------------------------------------------------------

def per_rank(size, fn, *args, **kwargs):
    """(type, message) of what each rank raised (None where nothing)."""
    def work(comm):
        try:
            fn(comm, *args, **kwargs)
        except Exception as e:  # noqa: BLE001
            return type(e), str(e)
        return None

    return LocalGroup(size).run(work)


def one_raises(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return info.type, str(info.value)


@pytest.mark.parametrize("size", (2, 3))
def test_an_error_of_one_rank_is_raised_on_every_rank(size):
    # vertex 70 of 71 is alone: only the rank holding its batch fails
    A = bg.Matrix.from_coo(np.arange(69), np.arange(1, 70), nrows=71, ncols=71)
    A = bg.ewise_add(A, A.T, "lor")
    want = one_raises(one.eccentricity, A)
    assert want[0] is bg.InvalidValue
    assert per_rank(size, dist.eccentricity, A) == [want] * size


def test_bad_arguments_raise_on_every_rank_as_the_one_process_call():
    A = grid()
    cases = [(dist.msbfs, one.msbfs, (A, [0, 99]), {}),
             (dist.msbfs, one.msbfs, (A, [0]), {"batch": 0}),
             (dist.closeness_centrality, one.closeness_centrality, (A, [[0]]), {}),
             (dist.betweenness_centrality, one.betweenness_centrality, (A,), {"k": 0}),
             (dist.betweenness_centrality, one.betweenness_centrality, (A, [1]), {"k": 1}),
             (dist.edge_betweenness_centrality, one.edge_betweenness_centrality, (A,),
              {"seed": "x", "k": 2})]
    for ours, ref, args, kw in cases:
        want = one_raises(ref, *args, **kw)
        assert per_rank(3, ours, *args, **kw) == [want] * 3


@pytest.mark.parametrize("bad", ([1], [0, 1, 2]))
def test_a_failing_batch_order_raises_on_every_rank(bad):
    # the batch order is made before the checks' collective, whose outcome is read after
    # the share ran: a rank whose order fails raises it on every rank, before the shares'
    # collective, and every rank runs the same collectives
    import contextlib

    K = karate()
    with bg.settings.use(msbfs={"group_batches": -1}):
        want = one_raises(one.closeness_centrality, K)
    assert want[0] is bg.InvalidValue and "group_batches" in want[1]

    def work(comm):
        setting = bg.settings.use(msbfs={"group_batches": -1}) if comm.rank in bad \
            else contextlib.nullcontext()
        with setting, comm.recording() as log:
            try:
                dist.closeness_centrality(comm, K)
            except Exception as e:  # noqa: BLE001 - what each rank raised
                return type(e), str(e), [name for name, _, _ in log]
        return None

    for kind, message, names in LocalGroup(3).run(work):
        assert (kind, message) == want and names == ["allgather", "broadcast"]


def test_a_failure_outside_bitgraph_is_named_with_its_rank(monkeypatch):
    from bitgraph.algorithms import multi_source

    real = multi_source.eccentricity

    def flaky(A, sources=None, **kw):
        if len(sources) and sources[0] >= 64:  # the second rank's batch
            raise OSError("disk on fire")
        return real(A, sources, **kw)

    monkeypatch.setattr("bitgraph.algorithms.eccentricity", flaky)
    out = per_rank(2, dist.eccentricity, grid())
    assert out[1] == (OSError, "disk on fire")
    assert out[0][0] is OSError and out[0][1] == "disk on fire"


def test_ranks_with_different_graphs_or_sources_are_named():
    A, B = grid(), bg.io.generators.grid2d(9, 12)
    C = bg.Matrix.from_coo([0, 5], [5, 0], nrows=99, ncols=99)  # same n, other entries

    def graphs_differ(comm, other):
        return dist.closeness_centrality(comm, A if comm.rank == 0 else other)

    for other, what in ((B, "the number of vertices"), (C, "the number of entries")):
        with pytest.raises(DistributedError, match=f"disagree on {what}"):
            LocalGroup(2).run(graphs_differ, other)

    def sources_differ(comm):
        return dist.msbfs(comm, A, [0, comm.rank])

    with pytest.raises(DistributedError, match=r"disagree on the sources \(rank 0: \d+, rank 1"):
        LocalGroup(2).run(sources_differ)

    def options_differ(comm):
        return dist.betweenness_centrality(comm, A, normalized=comm.rank == 0)

    with pytest.raises(DistributedError, match="disagree on normalized"):
        LocalGroup(2).run(options_differ)

    def closeness_options_differ(comm):  # checked in the sources' collective
        return dist.closeness_centrality(comm, A, [0, 1], wf_improved=comm.rank == 0)

    with pytest.raises(DistributedError, match=r"disagree on wf_improved \(rank 0: 1, rank 1: 0"):
        LocalGroup(2).run(closeness_options_differ)


def test_the_graphs_checksum_is_made_once_per_graph(monkeypatch):
    from bitgraph.distributed import batches

    A, made = grid(), []
    real = batches._digest
    monkeypatch.setattr(batches, "_digest", lambda a: made.append(a.size) or real(a))
    first = LocalGroup(2).run(dist.closeness_centrality, A, [0, 5])
    once = made.count(A.nrows + 1)
    assert once in (1, 2)  # the ranks (threads here) share A: made once, or once a rank at worst
    again = LocalGroup(2).run(dist.closeness_centrality, A, [0, 5])
    assert made.count(A.nrows + 1) == once and made.count(2) == 4  # the sources each call
    assert np.array_equal(first[0], again[1])
    A[0, 5] = True  # new storage: a new checksum
    LocalGroup(2).run(dist.closeness_centrality, A, [0, 5])
    assert made.count(A.nrows + 1) > once


def test_a_sample_without_a_seed_is_rank_zeros():
    K = karate()
    out = LocalGroup(3).run(dist.betweenness_centrality, K, k=5)  # seed None: each draws its own
    same_on_every_rank(out)


def test_sources_with_out_edges_dealt_evenly():
    # isolated sources first in the caller's order: each rank still gets its share of the
    # traversing ones (whole batches), and the rows come back in the caller's order
    from bitgraph.distributed.batches import _dealt, _out_edges_split

    n = 1000
    rows = np.arange(500, 999)
    A = bg.Matrix.from_coo(np.r_[rows, rows + 1], np.r_[rows + 1, rows], nrows=n, ncols=n)
    src = np.arange(n)  # 0..499 isolated, 500..999 on a path

    class Three:
        size = 3

    perm, counts = _dealt(Three, *_out_edges_split(A)(src), 64)
    assert sorted(perm.tolist()) == src.tolist() and sum(counts) == n
    cuts = np.cumsum([0] + counts)
    busy = [int((src[perm[cuts[r]:cuts[r + 1]]] >= 500).sum()) for r in range(3)]
    assert busy == [192, 180, 128]  # 8 batches of 64 (the last short): 0 5 6 | 1 4 7 | 2 3
    got = LocalGroup(3).run(dist.closeness_centrality, A, src)
    want = bg.algorithms.closeness_centrality(A, src)
    assert all((g == want).all() for g in got)
    lev = LocalGroup(3).run(dist.msbfs, A, src[::7])
    assert all((x == bg.algorithms.msbfs(A, src[::7])).all() for x in lev)
