"""CUDA msbfs batch (kernels/cuda/msbfs.cu) equals the CPU batch_run: levels,
count, total and ecc, on hypothesis graphs (directed and undirected,
isolated vertices, self-loops, several components, one vertex), batches of
1, 7 and 64 sources (repeats allowed), every direction rule (bottom-up
whenever a frontier has out-edges, per source, the default, top-down only,
everyone bottom-up by the union rule), the whole traversal in one
cooperative launch (``schedule="coop"``) and the batch's BFSs side by side
(``schedule="async"``), int32 and int64 indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.algorithms._common import in_csr, out_csr
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
from graph_strategies import graphs

pytestmark = pytest.mark.gpu

# (alpha, all_pull) of the CUDA launcher: bottom-up wherever a frontier has
# out-edges; per source; the defaults; top-down only; all bottom-up as soon
# as a top-down level would walk an edge
DIRECTIONS = ((0.0, None), (0.1, 1e18), (None, None), (1e18, 1e18), (1e18, 0.0))


def _gpu():
    import bitgraph.kernels.cuda.msbfs  # noqa: F401  (registers the launcher)

    return registry.lookup("msbfs", fmt="csr", device="cuda", variant="batch")


def _cpu():
    return registry.lookup("msbfs", fmt="csr", device="cpu", variant="batch")


def _host_csrs(A):
    # int64 CPU arrays of A and A' (the CPU reference always runs on int64:
    # one numba specialisation)
    a, t = out_csr(A), in_csr(A)
    cast = lambda c: CSR(np.asarray(c.indptr, np.int64), np.asarray(c.indices, np.int64),  # noqa: E731
                         None, c.nrows, c.ncols)
    return cast(a), cast(t)


def _device(cupy, c, index64):
    it = np.int64 if index64 else np.int32
    return CSR(cupy.asarray(c.indptr.astype(it)), cupy.asarray(c.indices.astype(it)), None,
               c.nrows, c.ncols)


def _check(got, want, write=True):
    lv, c, s, e = got
    wlv, wc, ws, we = want
    assert np.array_equal(c, wc)
    assert np.array_equal(s, ws)
    assert np.array_equal(e, we)
    if write:
        assert np.array_equal(lv.get(), wlv)


def _scratch(state):
    # what a batch leaves zeroed: the frontier planes, seen and both bitmaps
    return state.planes, state.seen, state.touched, state.wtouched


@settings(max_examples=250)
@given(spec=graphs(max_n=90, weighted=False), k=st.sampled_from([1, 7, 64]),
       seed=st.integers(0, 2**32 - 1), index64=st.booleans())
def test_batch_equals_cpu(spec, k, seed, index64):
    import cupy

    gpu, cpu = _gpu(), _cpu()
    A = spec.matrix(bg)
    a, t = _host_csrs(A)
    rng = np.random.default_rng(seed)
    sources = rng.integers(0, spec.n, k)  # repeats allowed
    want = cpu(a, t, sources)
    ga, gt = _device(cupy, a, index64), _device(cupy, t, index64)
    for alpha, all_pull in DIRECTIONS:
        got = gpu(ga, gt, sources, alpha=alpha, all_pull=all_pull)
        _check(got, want)
    from unittest import mock

    from bitgraph.kernels.cuda import msbfs_coop as kc

    for sweep in (None, 0.0, 0.05):  # the next queue by appends, by sweeps, both
        cfg = bg.settings.MSBFSCuda(coop_sweep=sweep)
        _check(gpu(ga, None, sources, schedule="coop", cfg=cfg), want)
    # the batch's BFSs side by side, asynchronous (bfs_async.cu)
    with mock.patch.object(kc, "coop_batch", side_effect=AssertionError("fell back")):
        _check(gpu(ga, None, sources, schedule="async"), want)


@settings(max_examples=60)
@given(spec=graphs(max_n=300, weighted=False), seed=st.integers(0, 2**32 - 1),
       lanes=st.sampled_from([None, 1, 2, 4, 8, 16, 32]), index64=st.booleans())
def test_rows_state_and_statistics_only(spec, seed, lanes, index64):
    """Several batches into rows of one big levels array, one reused state,
    statistics-only batches, every CSR group width."""
    import cupy

    from bitgraph.kernels.cuda.msbfs import new_state

    gpu, cpu = _gpu(), _cpu()
    A = spec.matrix(bg)
    a, t = _host_csrs(A)
    n = spec.n
    rng = np.random.default_rng(seed)
    nsrc = int(rng.integers(1, 150))
    src = rng.integers(0, n, nsrc)
    order = rng.permutation(nsrc)
    ga, gt = _device(cupy, a, index64), _device(cupy, t, index64)
    want = np.empty((nsrc, n), np.int32)
    for i in range(0, nsrc, 64):
        rows = order[i:i + 64]
        cpu(a, t, src[rows], levels=want, rows=rows)
    state = new_state(n)
    got = cupy.full((nsrc, n), 7, np.int32)
    for i in range(0, nsrc, 64):
        rows = order[i:i + 64]
        alpha, all_pull = DIRECTIONS[int(rng.integers(len(DIRECTIONS)))]
        _, c, s, e = gpu(ga, gt, src[rows], levels=got, rows=cupy.asarray(rows), alpha=alpha,
                         all_pull=all_pull, state=state, lanes=lanes)
        _, wc, ws, we = cpu(a, t, src[rows], write=False)
        assert np.array_equal(c, wc) and np.array_equal(s, ws) and np.array_equal(e, we)
        lv, c2, s2, e2 = gpu(ga, gt, cupy.asarray(src[rows]), write=False, alpha=alpha,
                             all_pull=all_pull, state=state, lanes=lanes)
        assert lv is None
        assert np.array_equal(c2, wc) and np.array_equal(s2, ws) and np.array_equal(e2, we)
    assert np.array_equal(got.get(), want)
    # one cooperative launch a batch (on the same state), then the batch's
    # BFSs side by side, asynchronously: rows of the big array, and
    # statistics only
    for schedule in ("coop", "async"):
        got = cupy.full((nsrc, n), 7, np.int32)
        for i in range(0, nsrc, 64):
            rows = order[i:i + 64]
            _, c, s, e = gpu(ga, None, src[rows], levels=got, rows=cupy.asarray(rows),
                             state=state, schedule=schedule)
            _, wc, ws, we = cpu(a, t, src[rows], write=False)
            assert np.array_equal(c, wc) and np.array_equal(s, ws) and np.array_equal(e, we)
            lv, c2, s2, e2 = gpu(ga, None, src[rows], write=False, state=state,
                                 schedule=schedule)
            assert lv is None
            assert np.array_equal(c2, wc) and np.array_equal(s2, ws) and np.array_equal(e2, we)
        assert np.array_equal(got.get(), want)
    # the state is left zeroed
    assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(state))


@pytest.mark.parametrize("name", ["kron", "grid", "path", "star"])
def test_generated_graphs(name, monkeypatch):
    """Bigger graphs: hubs (kron), high diameter (grid, a 3000-vertex path),
    a star; 64 sources, every direction rule with the first levels as one
    graph (``msbfs_cuda.head_levels``) and without, several group widths."""
    from bitgraph.kernels.cuda import msbfs_coop as kc

    import cupy

    gpu, cpu = _gpu(), _cpu()
    if name == "kron":
        A = bg.io.generators.kron(11, seed=3)
    elif name == "grid":
        A = bg.io.generators.grid2d(40, 70, drop=0.05, seed=1)
    elif name == "path":
        n = 3000
        A = bg.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), nrows=n, ncols=n)
    else:
        n = 2000
        A = bg.Matrix.from_coo(np.zeros(n - 1, np.int64), np.arange(1, n), nrows=n, ncols=n)
    a, t = _host_csrs(A)
    rng = np.random.default_rng(5)
    sources = rng.integers(0, A.nrows, 64)
    sources[:3] = 0
    want = cpu(a, t, sources)
    ga, gt = _device(cupy, a, False), _device(cupy, t, False)
    for head, head_flush in ((0, True), (10, True), (10, False)):
        cfg = bg.settings.MSBFSCuda(head_levels=head, head_flush=head_flush)
        for alpha, all_pull in DIRECTIONS:
            _check(gpu(ga, gt, sources, alpha=alpha, all_pull=all_pull, cfg=cfg), want)
    for lanes in (1, 4, 32):
        _check(gpu(ga, gt, sources, alpha=0.0, lanes=lanes), want)
    # fewer frontier planes: levels written out every level (2) or every
    # other (3); the state is left zeroed each time
    from bitgraph.kernels.cuda.msbfs import new_state

    for planes in (2, 3):
        state = new_state(A.nrows, planes)
        _check(gpu(ga, gt, sources, state=state), want)
        _check(gpu(ga, gt, sources[:7], state=state), cpu(a, t, sources[:7]))
        assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(state))
    # one cooperative launch (kron's hubs spread over a warp's lanes), int32
    # and int64 indices, a fresh and a reused state
    for index64 in (False, True):
        for sweep in (None, 0.0, 1 / 64):
            cfg = bg.settings.MSBFSCuda(coop_sweep=sweep)
            _check(gpu(_device(cupy, a, index64), None, sources, schedule="coop", cfg=cfg), want)
    state = new_state(A.nrows)
    for k in (64, 1, 33):
        _check(gpu(ga, None, sources[:k], schedule="coop", cfg=cfg, state=state),
               cpu(a, t, sources[:k]))
        assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(state))
    # side by side, asynchronous: int32 and int64 indices, every chain
    # length, with and without the row prefetch and the level check; a work
    # list too small falls back to the cooperative launch
    from unittest import mock

    for index64 in (False, True):
        for chain in (0, 3, 64):
            for prefetch, check in ((True, False), (False, False), (True, True), (False, True)):
                # a batch of 64 runs with the batch's settings, one of 4 with the single's
                async_cfg = bg.settings.BFSAsync(
                    batch_chain_max=chain, batch_prefetch_rows=prefetch, batch_check=check,
                    chain_max=chain, prefetch_rows=prefetch)
                for k in (64, 4):
                    _check(gpu(_device(cupy, a, index64), None, sources[:k], schedule="async",
                               async_cfg=async_cfg), cpu(a, t, sources[:k]))
    # 64 slots: full at once
    tiny = bg.settings.BFSAsync(batch_cap_per_vertex=0.0, batch_min_cap=0)
    with mock.patch.object(kc, "coop_batch", wraps=kc.coop_batch) as launch:
        _check(gpu(ga, None, sources, schedule="async", async_cfg=tiny), want)
    assert launch.call_count == 1
    # blocks' stages of 0 and 3 entries: the appends past a full stage go
    # straight to the queue
    for stage in (0, 3):
        for sweep in (None, 0.0):
            cfg = bg.settings.MSBFSCuda(coop_sweep=sweep, coop_stage=stage)
            _check(gpu(ga, None, sources, schedule="coop", cfg=cfg, state=state), want)


@pytest.mark.parametrize("schedule, max_degree", [(None, 6.0), (None, 3.0), ("coop", 6.0),
                                                  ("levels", 6.0), ("async", 6.0)])
def test_cooperative_launch_by_the_probe(schedule, max_degree):
    """msbfs on a CUDA graph of long diameter (bfs.long_reach: a 400 x 400
    grid, 3.96 entries a row) runs each batch side by side, asynchronously,
    or, above ``msbfs_cuda.async_max_degree`` entries a row, as one
    cooperative launch; on kron the level kernels, unless
    ``msbfs_cuda.schedule`` says otherwise; the rows equal the CPU's either
    way (130 sources: batches of 64 over those with out-edges, 130 of them
    on the grid, 99 on kron; the others take no batch)."""
    import sys
    from unittest import mock

    import cupy

    from bitgraph.algorithms._common import has_out_edges
    from bitgraph.kernels.cuda import msbfs_async as ka
    from bitgraph.kernels.cuda import msbfs_coop as kc

    M = sys.modules["bitgraph.algorithms.multi_source"]
    knobs = {"schedule": schedule, "async_max_degree": max_degree}
    for spec, long_ in (("grid:400x400:0.01", True), ("kron:12", False)):
        A = bg.io.generators.from_spec(spec)
        src = np.random.default_rng(7).integers(0, A.nrows, 130)
        want = bg.algorithms.msbfs(A, src)
        batches = -(-int(has_out_edges(A, src).sum()) // 64)
        assert batches == (3 if long_ else 2)
        gave_up = []  # per side-by-side batch: whether it gave up

        def side_by_side(*args, _real=ka.side_by_side_batch):
            got = _real(*args)
            gave_up.append(got is None)
            return got

        with mock.patch.object(kc, "coop_batch", wraps=kc.coop_batch) as launch, \
                mock.patch.object(ka, "side_by_side_batch", side_effect=side_by_side), \
                bg.settings.use(msbfs_cuda=knobs):
            got = bg.algorithms.msbfs(A.to("cuda"), src)
        assert np.array_equal(got.get(), want)
        picked = (("async" if max_degree > 3.96 else "coop") if long_ else "levels") \
            if schedule is None else schedule
        assert len(gave_up) == (batches if picked == "async" else 0)
        # a side-by-side batch that gives up (its work list full) runs the
        # cooperative launch instead
        assert launch.call_count == (batches if picked == "coop" else sum(gave_up))
        with bg.settings.use(msbfs_cuda=knobs):
            assert M.msbfs_schedule(A.to("cuda")) == picked
            cc = bg.algorithms.closeness_centrality(A.to("cuda"), src[:70])
        assert isinstance(cc, cupy.ndarray)  # per-source results on the graph's device
        assert np.allclose(cc.get(), bg.algorithms.closeness_centrality(A, src[:70]))


@pytest.mark.parametrize("head", [3, 10])
def test_traversals_ending_in_the_first_levels(head):
    """Traversals that end before, at and just after the first levels'
    graph, whose final flush (msbfs.cu: count < 0) then runs in that graph
    or does nothing: paths (undirected and directed; short ones: every
    plane dense, 40 vertices: sparse planes), a star, kron; rows of a bigger
    result, statistics only; one state, left zeroed."""
    import cupy

    from bitgraph.kernels.cuda import msbfs as km

    cfg = bg.settings.MSBFSCuda(head_levels=head)
    gpu, cpu = _gpu(), _cpu()
    mats = []
    for n in (1, 2, head - 1, head, head + 1, head + 2, 40):
        r = np.arange(n - 1)
        mats.append(bg.Matrix.from_coo(r, r + 1, nrows=n, ncols=n))
        mats.append(bg.Matrix.from_coo(np.r_[r, r + 1], np.r_[r + 1, r], nrows=n, ncols=n))
    hub = np.zeros(50, np.int64)
    mats.append(bg.Matrix.from_coo(np.r_[hub, np.arange(1, 51)], np.r_[np.arange(1, 51), hub],
                                   nrows=51, ncols=51))
    mats.append(bg.io.generators.kron(10, seed=4))
    rng = np.random.default_rng(head)
    for A in mats:
        a, t = _host_csrs(A)
        n = A.nrows
        ga, gt = _device(cupy, a, False), _device(cupy, t, False)
        state = km.new_state(n)
        for k in (1, 64):
            src = rng.integers(0, n, k)
            src[0] = 0
            want = cpu(a, t, src)
            _check(gpu(ga, gt, src, state=state, cfg=cfg), want)
            out = cupy.full((k + 1, n), 9, np.int32)
            order = rng.permutation(k + 1)[:k]
            gpu(ga, gt, src, levels=out, rows=order, state=state, cfg=cfg)
            expect = np.full((k + 1, n), 9, np.int32)
            expect[order] = want[0]
            assert np.array_equal(out.get(), expect)
            _, c, s, e = gpu(ga, gt, src, write=False, state=state, cfg=cfg)
            assert np.array_equal(c, want[1]) and np.array_equal(e, want[3])
            assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(state))


def test_direction_per_source():
    """The settle gives each source its own direction: on kron, 64 sources
    with alpha 0.02, some level pulls for some sources and pushes for the
    others (the trace's "pull P push Q"), and that level's pull scans fewer
    in-edges than pulling for all of them; the results are the CPU's."""
    import cupy

    gpu, cpu = _gpu(), _cpu()
    A = bg.io.generators.kron(14, seed=2)
    a, t = _host_csrs(A)
    deg = np.diff(a.indptr)
    sources = np.random.default_rng(3).choice(np.flatnonzero(deg > 0), 64)
    want = cpu(a, t, sources)
    ga, gt = _device(cupy, a, False), _device(cupy, t, False)
    traces = {}
    for name, all_pull in (("mixed", 1e18), ("joint", 0.0)):
        rec = bg.Stats(trace=True)
        _check(gpu(ga, gt, sources, alpha=0.02, all_pull=all_pull, stats=rec), want)
        traces[name] = rec.traces
    mixed = [x for x in traces["mixed"] if x[1].startswith("pull")
             and int(x[1].split()[1]) > 0 and int(x[1].split()[3]) > 0]
    assert mixed, traces["mixed"]
    assert sum(x[6] for x in traces["mixed"]) < sum(x[6] for x in traces["joint"])


def test_errors():
    import cupy

    gpu = _gpu()
    A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3)
    a, t = _host_csrs(A)
    ga, gt = _device(cupy, a, False), _device(cupy, t, False)
    with pytest.raises(ValueError, match="1..64"):
        gpu(ga, gt, np.arange(65) % 3)
    with pytest.raises(ValueError, match="sources"):
        gpu(ga, gt, np.array([3]))
    with pytest.raises(ValueError, match="schedule"):
        gpu(ga, gt, np.array([0]), schedule="nope")
    with pytest.raises(ValueError, match="levels"):
        gpu(ga, gt, np.array([0]), levels=np.zeros((1, 3), np.int32), rows=[0])
    from bitgraph.kernels.cuda.msbfs import new_state

    with pytest.raises(ValueError, match="planes"):
        new_state(3, 17)


def test_shared_state_between_calls():
    """msbfs on the GPU keeps its zeroed scratch between calls
    (``shared_state``): calls that alternate between graphs of different n
    equal the CPU's; the state comes back zeroed; one left by an exception
    is not reused."""
    import cupy

    from bitgraph.kernels.cuda.msbfs import shared_state

    graphs = [bg.io.generators.kron(10, seed=4), bg.io.generators.grid2d(30, 20, drop=0.0)]
    for A in graphs + graphs[:1]:
        src = np.random.default_rng(A.nrows).integers(0, A.nrows, 70)
        want = bg.algorithms.msbfs(A, src)
        got = bg.algorithms.msbfs(A.to("cuda"), src)
        assert np.array_equal(got.get(), want)
    n = graphs[0].nrows
    with shared_state(n) as first:
        pass
    with shared_state(n) as again:
        assert again is first
        assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(again))
    with pytest.raises(RuntimeError):
        with shared_state(n) as state:
            raise RuntimeError("a batch failed")
    with shared_state(n) as fresh:
        assert fresh is not first


@pytest.mark.parametrize("directed", [False, True])
def test_replayed_levels(directed):
    """From level ``msbfs_cuda.graph_levels`` on the levels run as a
    replayed CUDA graph, and with ``head_levels`` the first levels as one
    graph:
    traversals that end just before, at and after the block boundaries, on
    paths (one way when directed: sources past the middle reach few) and on
    a long grid; levels written into rows of a bigger array, statistics
    only, batches of different sizes (a new capture each) and repeated
    calls (the same capture, a new result array each); the same results
    with the graph turned off, and the state left zeroed."""
    import cupy

    from bitgraph.kernels.cuda import msbfs as km
    from bitgraph.kernels.cuda import msbfs_state as ks

    gpu, cpu = _gpu(), _cpu()
    L = bg.settings.MSBFSCuda().graph_levels
    for n in (L - 1, L, L + 1, L + 2, 2 * L - 1, 2 * L, 2 * L + 1, 3 * L + 5, 700):
        rows = np.arange(n - 1)
        A = bg.Matrix.from_coo(rows, rows + 1, nrows=n, ncols=n)
        if not directed:
            A = bg.Matrix.from_coo(np.r_[rows, rows + 1], np.r_[rows + 1, rows], nrows=n, ncols=n)
        a, t = _host_csrs(A)
        ga, gt = _device(cupy, a, False), _device(cupy, t, False)
        rng = np.random.default_rng(n)
        for k in (1, 5, 64):
            src = rng.integers(0, n, k)
            src[0] = 0  # the path's full length
            want = cpu(a, t, src)
            state = km.new_state(n)
            for graph, graph_pull, head in ((True, False, 0), (False, False, 10),
                                            (True, True, 10), (True, False, 12)):
                cfg = bg.settings.MSBFSCuda(graph=graph, graph_pull=graph_pull, head_levels=head)
                _check(gpu(ga, gt, src, state=state, cfg=cfg), want)
                out = cupy.full((k + 3, n), 9, np.int32)
                order = rng.permutation(k + 3)[:k]
                gpu(ga, gt, cupy.asarray(src), levels=out, rows=order, state=state, cfg=cfg)
                expect = np.full((k + 3, n), 9, np.int32)
                expect[order] = want[0]
                assert np.array_equal(out.get(), expect)
                _check(gpu(ga, gt, src, write=False, state=state, cfg=cfg), want, write=False)
            assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(state))
            assert all(int(cupy.count_nonzero(p)) == 0 for p in state.planes)
    cfg = bg.settings.MSBFSCuda(graph=True, graph_pull=False, head_levels=10)
    A = bg.io.generators.grid2d(12, 300, drop=0.02, seed=2)
    if directed:
        r, c, _ = A.to_coo()
        keep = (r + c) % 3 != 0
        A = bg.Matrix.from_coo(r[keep], c[keep], nrows=A.nrows, ncols=A.ncols)
    a, t = _host_csrs(A)
    ga, gt = _device(cupy, a, True), _device(cupy, t, True)
    src = np.random.default_rng(1).integers(0, A.nrows, 64)
    want = cpu(a, t, src)
    assert want[3].max() > 2 * L or directed  # ecc: the replays ran
    for _ in range(2):
        _check(gpu(ga, gt, src, cfg=cfg), want)
    assert ks.CACHES.graphs.block  # the replayed blocks' graphs were captured
    # with the pull step in the graph, the direction rule per level
    cfg = bg.settings.MSBFSCuda(graph=True, graph_pull=True, head_levels=10)
    for alpha, all_pull in DIRECTIONS:
        _check(gpu(ga, gt, src, alpha=alpha, all_pull=all_pull, cfg=cfg), want)


@pytest.mark.parametrize("spec", ["kron:11", "path", "grid"])
def test_batches_in_flight(spec):
    """Calls of several "levels" batches keep two in flight
    (``settings.msbfs_cuda.pipeline``: the next batch's first levels queued
    on the second state before the host reads the last one's), as one at a
    time and as the CPU: msbfs levels and closeness on R-MAT (ends in the
    first levels' graph), a path and a long grid (levels run by the host
    and replayed after the next batch was queued); a hub-heavy graph's
    chunk lists are each batch's own. Both states come back zeroed."""
    import cupy

    from bitgraph.kernels.cuda import msbfs_state as ks

    if spec == "path":
        n = 300
        r = np.arange(n - 1)
        A = bg.Matrix.from_coo(np.r_[r, r + 1], np.r_[r + 1, r], nrows=n, ncols=n)
    elif spec == "grid":
        A = bg.io.generators.grid2d(12, 300, drop=0.02, seed=2)
    else:
        A = bg.io.generators.from_spec(spec)
    src = np.random.default_rng(7).integers(0, A.nrows, 64 * 3 + 9)
    want = bg.algorithms.msbfs(A, src)
    want_c = bg.algorithms.closeness_centrality(A, src)
    G = A.to("cuda")
    for pipeline in (True, False):
        cfg = bg.settings.MSBFSCuda(schedule="levels", pipeline=pipeline)
        with bg.settings.use(msbfs_cuda=cfg):
            assert ks.pipelined(G.nrows, cfg) is pipeline
            assert np.array_equal(bg.algorithms.msbfs(G, src).get(), want)
            got_c = bg.algorithms.closeness_centrality(G, src)
            assert np.array_equal(cupy.asnumpy(got_c), want_c)
    for slot in (0, 1):
        with ks.shared_state(G.nrows, cfg, slot) as state:
            assert all(int(cupy.count_nonzero(x)) == 0 for x in _scratch(state))
            assert all(int(cupy.count_nonzero(p)) == 0 for p in state.planes)


def test_batches_in_flight_keep_their_chunk_lists():
    """Two batches in flight (``batch_start`` on two states and slots), top-down
    only: the first reaches a hub (more than CHUNK out-edges) at the last of
    its first levels' graph and expands its chunks in a level the host runs
    after the second batch, whose first levels expand another hub, was
    queued; each batch's chunk list is its own, so both equal the CPU."""
    import cupy

    from bitgraph.kernels.cuda import msbfs as km
    from bitgraph.kernels.cuda.msbfs_state import CHUNK

    head = bg.settings.MSBFSCuda().head_levels
    leaves = CHUNK + 500
    hub1, hub2 = head + 1, head + 2 + leaves  # the path 0 .. hub1, then each hub's leaves
    r = np.arange(hub1)
    rows = [r, np.full(leaves, hub1), np.full(leaves, hub2)]
    cols = [r + 1, hub1 + 1 + np.arange(leaves), hub2 + 1 + np.arange(leaves)]
    n = hub2 + 1 + leaves
    rr, cc = np.concatenate(rows), np.concatenate(cols)
    A = bg.Matrix.from_coo(np.r_[rr, cc], np.r_[cc, rr], nrows=n, ncols=n)
    a, t = _host_csrs(A)
    ga, gt = _device(cupy, a, False), _device(cupy, t, False)
    cpu = _cpu()
    cfg = bg.settings.MSBFSCuda(alpha=1e18, all_pull=1e18)
    first = np.r_[np.ones(40, np.int64), np.zeros(24, np.int64)]  # hub1 at level head or head+1
    second = hub2 + 1 + np.arange(64)  # hub2 at level 1
    states = [km.new_state(n), km.new_state(n)]
    a_run = km.batch_start(ga, gt, first, state=states[0], cfg=cfg, slot=0)
    b_run = km.batch_start(ga, gt, second, state=states[1], cfg=cfg, slot=1)
    _check(a_run.result(), cpu(a, t, first))
    _check(b_run.result(), cpu(a, t, second))
