"""The CUDA msbfs launcher's host side (``kernels/cuda/msbfs.py`` and its
modules ``msbfs_levels``, ``msbfs_coop``, ``msbfs_async``, ``msbfs_state``: the levels'
schedule, counter slots, queues, frontier planes and flushes, the replayed
CUDA graph of the levels past ``settings.msbfs_cuda.graph_levels``) on an
emulated GPU (``fake_msbfs_gpu.py``, beside this file), against the CPU
batch: no GPU needed. The real kernels, and CuPy's capture, are the GPU
tests' (tests/gpu)."""

from __future__ import annotations

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
from fake_msbfs_gpu import FakeArray, emulated_gpu
import oracle as O


def _cpu():
    return registry.lookup("msbfs", fmt="csr", device="cpu", variant="batch")


def _csrs(A, index64=True):
    from bitgraph.algorithms._common import in_csr, out_csr

    it = np.int64 if index64 else np.int32
    out = []
    for c in (out_csr(A), in_csr(A)):
        host = CSR(np.asarray(c.indptr, np.int64), np.asarray(c.indices, np.int64), None,
                   c.nrows, c.ncols)
        dev = CSR(*(np.asarray(x, it).view(FakeArray) for x in (c.indptr, c.indices)), None,
                  c.nrows, c.ncols)
        out.append((host, dev))
    return out


_path = O.path_matrix


def _zeroed(state):
    # a state's frontier planes, seen and both bitmaps hold no bit
    return all(np.count_nonzero(x) == 0
               for x in (state.planes, state.seen, state.touched, state.wtouched))


def _check(got, want, write=True):
    lv, c, s, e = got
    wlv, wc, ws, we = want
    assert np.array_equal(c, wc) and np.array_equal(s, ws) and np.array_equal(e, we)
    if write:
        assert np.array_equal(np.asarray(lv), wlv)


def _check_rows_and_statistics(km, ga, gt, src, want, state, rng, spare):
    # the levels into random rows of a result with `spare` more rows (the
    # others untouched), then statistics only
    k, n = src.size, want[0].shape[1]
    out = np.full((k + spare, n), 9, np.int32).view(FakeArray)
    order = rng.permutation(k + spare)[:k]
    km.batch_run(ga, gt, src, levels=out, rows=order, state=state)
    expect = np.full((k + spare, n), 9, np.int32)
    expect[order] = want[0]
    assert np.array_equal(np.asarray(out), expect)
    _check(km.batch_run(ga, gt, src, write=False, state=state), want, write=False)


@pytest.mark.parametrize("directed", [False, True])
def test_levels_around_the_replays(directed, monkeypatch):
    """Traversals that end just before, at and after the blocks of replayed
    levels, with the graph on and off, with its pull step, with no block
    in flight past the one the host waits for (the last block then holds
    the last levels), with the first levels' graph of several lengths and
    off; rows of a
    bigger result, statistics only, batches of several sizes on one state,
    which is left zeroed; every replay runs the one capture."""
    km, emu = emulated_gpu(monkeypatch)
    cpu = _cpu()
    L = bg.settings.MSBFSCuda().graph_levels
    for n in (L - 1, L, L + 1, 2 * L - 1, 2 * L, 2 * L + 1, 4 * L + 7):
        (a, ga), (t, gt) = _csrs(_path(n, directed), index64=n % 2 == 0)
        rng = np.random.default_rng(n)
        state = km.new_state(n)
        for k in (1, 64):
            src = rng.integers(0, n, k)
            src[0] = 0  # the path's whole length
            want = cpu(a, t, src)
            for graph, graph_pull, lead, head in ((True, False, 1, 10), (False, False, 1, 0),
                                                  (True, True, 1, 10), (True, False, 0, 12),
                                                  (False, False, 1, 3)):
                cfg = bg.settings.MSBFSCuda(graph=graph, graph_pull=graph_pull,
                                            graph_lead=lead, head_levels=head)
                graphs, replays = emu.graphs, emu.replays
                with bg.settings.use(msbfs_cuda=cfg):
                    _check(km.batch_run(ga, gt, src, state=state), want)
                # the first levels' graph once, then levels 0 .. n - 1 from
                # source 0 and one that finds nothing
                heads = 1 if head else 0
                if graph and n >= L:
                    assert emu.replays - replays >= n // L + heads  # ceil((n - L + 1) / L) blocks
                    assert emu.graphs - graphs <= 2
                else:
                    assert emu.replays - replays == heads
                with bg.settings.use(msbfs_cuda=cfg):
                    _check_rows_and_statistics(km, ga, gt, src, want, state, rng, spare=2)
        assert _zeroed(state)


def test_batches_in_flight_on_two_states(monkeypatch):
    """A batch queued (``batch_start``) while the last one is pending, on the
    other state and slot, and the pending one finished after it (as
    ``_run_batches`` pipelines them): traversals that end in the first
    levels' graph, and paths whose later levels, replayed blocks included,
    run after the next batch's first levels were queued (the emulated
    stream runs the work in the order it is queued), with the first levels'
    graph, without it, and without the replays; the levels into rows of one
    result, and statistics only; both states left zeroed."""
    km, emu = emulated_gpu(monkeypatch)
    cpu = _cpu()
    L = bg.settings.MSBFSCuda().graph_levels
    hub = np.zeros(50, np.int64)
    star = bg.Matrix.from_coo(np.r_[hub, np.arange(1, 51)], np.r_[np.arange(1, 51), hub],
                              nrows=51, ncols=51)
    cfgs = (bg.settings.MSBFSCuda(), bg.settings.MSBFSCuda(head_levels=0),
            bg.settings.MSBFSCuda(graph=False, head_levels=3))
    for A in (_path(8, False), _path(30, True), _path(2 * L + 5, False), star):
        (a, ga), (t, gt) = _csrs(A, index64=A.nrows % 2 == 1)
        n = A.nrows
        states = [km.new_state(n), km.new_state(n)]
        rng = np.random.default_rng(n)
        for write, cfg in ((True, cfgs[0]), (False, cfgs[0]), (True, cfgs[1]), (False, cfgs[2])):
            batches = [rng.integers(0, n, k) for k in (64, 5, 64, 1)]
            for b in batches:
                b[0] = 0 if rng.random() < 0.5 else n - 1  # a path's whole length
            out = np.full((sum(b.size for b in batches), n), 9, np.int32).view(FakeArray)
            starts = np.cumsum([0] + [b.size for b in batches])
            got, waiting = [], None
            for j, b in enumerate(batches):
                rows = np.arange(starts[j], starts[j + 1])
                queued = km.batch_start(ga, gt, b, levels=out if write else None,
                                        rows=rows if write else None, write=write,
                                        state=states[j % 2], cfg=cfg, slot=j % 2)
                if waiting is not None:
                    got.append(waiting.result())
                waiting = queued
            got.append(waiting.result())
            for j, b in enumerate(batches):
                want = cpu(a, t, b)
                _check(got[j], want, write=False)
                if write:
                    assert np.array_equal(np.asarray(out)[starts[j]:starts[j + 1]], want[0])
        assert _zeroed(states[0]) and _zeroed(states[1])
    with pytest.raises(ValueError, match="slot"):
        km.batch_start(ga, gt, [0], state=states[0], slot=2)


def test_two_states_only_where_they_fit(monkeypatch):
    """``pipelined``: off by the setting; on when a second state of all its
    planes fits a quarter of the free memory beside the first (taken out
    when the first is not kept yet), or is kept already."""
    import sys

    km, emu = emulated_gpu(monkeypatch)
    from bitgraph.kernels.cuda import msbfs_state as ks

    runtime = sys.modules["cupy.cuda.runtime"]
    cfg = bg.settings.MSBFSCuda()
    n, planes = 1000, cfg.planes
    one = (8 * planes + 25) * n  # a state's bytes
    assert not km.pipelined(n, bg.settings.MSBFSCuda(pipeline=False))
    for free, want in ((4 * 8 * planes * n + one, True), (4 * 8 * planes * n + one - 1, False)):
        monkeypatch.setattr(runtime, "memGetInfo", lambda free=free: (free, free))
        assert km.pipelined(n, cfg) is want
    with ks.shared_state(n, cfg, 0):
        pass  # kept: its bytes no longer come out of what is free
    monkeypatch.setattr(runtime, "memGetInfo", lambda: (4 * 8 * planes * n, 0))
    assert km.pipelined(n, cfg) and not km.pipelined(n + 1, cfg)
    with ks.shared_state(n, cfg, 1):
        pass
    monkeypatch.setattr(runtime, "memGetInfo", lambda: (0, 0))
    assert km.pipelined(n, cfg)  # the second state is kept


@pytest.mark.parametrize("head,flush", [(3, True), (10, True), (12, True), (10, False)])
def test_traversals_ending_in_the_first_levels(head, flush, monkeypatch):
    """Traversals that end before, at and just after the last of the first
    levels' graph, whose final flush then runs in that graph (a window
    ended by the first empty queue, dense planes by the host's rule) or
    does nothing; paths of up to 3 vertices a level (small n: every plane
    dense) and 40-vertex paths (sparse planes), stars (one dense level),
    rows of a bigger result and statistics only; the state is left
    zeroed."""
    km, emu = emulated_gpu(monkeypatch)
    cpu = _cpu()
    cfg = bg.settings.MSBFSCuda(head_levels=head, head_flush=flush)
    graphs = [_path(n, d) for n in (1, 2, head - 1, head, head + 1, head + 2)
              for d in (False, True) if n > 0]
    graphs += [_path(40, False), _path(40, True)]
    hub = np.zeros(50, np.int64)
    graphs.append(bg.Matrix.from_coo(np.r_[hub, np.arange(1, 51)], np.r_[np.arange(1, 51), hub],
                                     nrows=51, ncols=51))
    for A in graphs:
        (a, ga), (t, gt) = _csrs(A, index64=A.nrows % 2 == 0)
        n = A.nrows
        state = km.new_state(n)
        rng = np.random.default_rng(n)
        for k in (1, 5, 64):
            src = rng.integers(0, n, k)
            src[0] = 0
            want = cpu(a, t, src)
            _check(km.batch_run(ga, gt, src, state=state, cfg=cfg), want)
            with bg.settings.use(msbfs_cuda=cfg):
                _check_rows_and_statistics(km, ga, gt, src, want, state, rng, spare=1)
            assert _zeroed(state)


def test_grid_directions_and_planes(monkeypatch):
    """A long grid: every direction rule with the pull step in the graph,
    top-down replays, and states of fewer planes (no graph: every level
    from the host, or only the first levels' graph); the results are the
    CPU's."""
    km, emu = emulated_gpu(monkeypatch)
    cpu = _cpu()
    A = bg.io.generators.grid2d(6, 150, drop=0.03, seed=2)
    (a, ga), (t, gt) = _csrs(A, index64=False)
    src = np.random.default_rng(1).integers(0, A.nrows, 64)
    want = cpu(a, t, src)
    assert want[3].max() > 2 * bg.settings.MSBFSCuda().graph_levels
    for graph_pull in (False, True):
        cfg = bg.settings.MSBFSCuda(graph=True, head_levels=10, graph_pull=graph_pull)
        for alpha, all_pull in ((0.0, None), (0.1, 1e18), (None, None), (1e18, 1e18), (1e18, 0.0)):
            _check(km.batch_run(ga, gt, src, alpha=alpha, all_pull=all_pull, cfg=cfg), want)
    assert emu.replays > 0
    for planes in (2, 3, 15):
        state = km.new_state(A.nrows, planes)
        replays = emu.replays
        _check(km.batch_run(ga, gt, src, state=state), want)
        # 15 planes: the first levels' graph only (the blocks need 16)
        assert emu.replays - replays == (planes == 15)
        assert _zeroed(state)


def _batches(km, index64, rng):
    """(a graph's CSR on the emulated GPU, a state, sources, the CPU's result)
    for a path, a grid and kron, with 1 and then 64 sources each (one state
    per graph)."""
    for A in (_path(50, True), bg.io.generators.grid2d(9, 13, drop=0.1, seed=2),
              bg.io.generators.kron(7, seed=1)):
        (ha, ga), (ht, _) = _csrs(A, index64)
        state = km.new_state(A.nrows)
        for k in (1, 64):
            src = rng.integers(0, A.nrows, k)
            yield ga, state, src, _cpu()(ha, ht, src)


def _rows_and_statistics(km, ga, src, want, state, schedule, rng):
    """``batch_run(..., schedule=schedule)`` into a fresh result, into rows
    of a bigger one (the others untouched), and statistics only: each equal
    to ``want`` (the CPU's)."""
    k, n = src.size, ga.nrows
    _check(km.batch_run(ga, None, src, state=state, schedule=schedule), want)
    out = np.full((k + 3, n), 9, np.int32).view(FakeArray)
    order = rng.permutation(k + 3)[:k]
    km.batch_run(ga, None, src, levels=out, rows=order, state=state, schedule=schedule)
    expect = np.full((k + 3, n), 9, np.int32)
    expect[order] = want[0]
    assert np.array_equal(np.asarray(out), expect)
    _check(km.batch_run(ga, None, src, write=False, state=state, schedule=schedule), want,
           write=False)


@pytest.mark.parametrize("index64", [False, True])
def test_cooperative_launch(index64, monkeypatch):
    """``batch_run(..., schedule="coop")``: one launch of msbfs_coop
    (arguments checked against msbfs.cu) per batch, on a path, a grid and
    kron: levels into rows of a bigger result, statistics only, a reused
    state left zeroed, and the per-level record a traced ``Stats`` gets."""
    km, emu = emulated_gpu(monkeypatch)
    rng = np.random.default_rng(3)
    for ga, state, src, want in _batches(km, index64, rng):
        launches = emu.launches
        _rows_and_statistics(km, ga, src, want, state, "coop", rng)
        assert emu.launches - launches == 3  # one a batch
        assert _zeroed(state)
        rec = bg.Stats(trace=True)
        km.batch_run(ga, None, src, state=state, schedule="coop", stats=rec)
        (tr,) = rec.traces
        assert rec.kernels == [("msbfs", "csr", "cuda", "batch")]
        assert rec.metrics["schedule"] == "coop" and tr["schedule"] == "coop"
        assert tr["levels"] == int(want[3].max()) + 1
        assert tr["queue"][0] == np.unique(src).size and np.all(tr["level_us"] == 1.0)


@pytest.mark.parametrize("index64", [False, True])
def test_side_by_side_launch(index64, monkeypatch):
    """``batch_run(..., schedule="async")``: bfs_async.cu's reset, start, run and
    statistics kernels (arguments checked against bfs_async.cu) per batch,
    into rows of a bigger result or scratch rows for statistics only; a
    work list too small falls back to the cooperative launch."""
    km, emu = emulated_gpu(monkeypatch)
    rng = np.random.default_rng(4)
    for ga, state, src, want in _batches(km, index64, rng):
        launches = emu.launches
        _rows_and_statistics(km, ga, src, want, state, "async", rng)
        assert emu.launches - launches == 3 * 4  # reset, start, run, statistics a batch
        if src.size == 1:
            continue  # the list's limits below: with the batch of 64
        tiny = bg.settings.BFSAsync(batch_cap_per_vertex=0.0, batch_min_cap=0)
        launches = emu.launches
        rec = bg.Stats()
        _check(km.batch_run(ga, None, src, state=state, schedule="async", async_cfg=tiny,
                            stats=rec), want)
        assert emu.launches - launches == 3 + 1  # reset, start, run; then msbfs_coop
        assert rec.metrics["gave_up"] and rec.metrics["schedule"] == "coop"
        # a small graph's list holds k * n^2 slots whatever the cap per vertex
        small = bg.settings.BFSAsync(batch_cap_per_vertex=0.0)
        launches = emu.launches
        _check(km.batch_run(ga, None, src, state=state, schedule="async", async_cfg=small),
               want)
        assert emu.launches - launches == 4


def test_side_by_side_without_the_memory(monkeypatch):
    """A batch whose work list (or, for statistics only, whose scratch rows)
    the GPU cannot hold runs the cooperative launch, with the same results;
    a single async BFS says out of memory, with the bytes it needed."""
    import sys

    from bitgraph.errors import DeviceError
    from bitgraph.kernels.cuda import bfs_async as ka

    km, emu = emulated_gpu(monkeypatch)
    cp = sys.modules["cupy"]
    A = bg.io.generators.grid2d(9, 13, drop=0.1, seed=2)
    (ha, ga), (ht, _) = _csrs(A, False)
    src = np.random.default_rng(5).integers(0, A.nrows, 64)
    want = _cpu()(ha, ht, src)
    state = km.new_state(A.nrows)
    real_empty = cp.empty
    # the list takes 16 * 1.25 * 64 bytes a vertex, the scratch rows 4 * 64,
    # the result 4 * 64, the cooperative launch's records 32
    for limit, write in ((1000 * A.nrows, True), (200 * A.nrows, False)):
        def empty(shape, dtype=float, _limit=limit):
            if int(np.prod(shape)) * np.dtype(dtype).itemsize > _limit:
                raise MemoryError("Out of memory allocating the list")
            return real_empty(shape, dtype)

        monkeypatch.setattr(cp, "empty", empty)
        monkeypatch.setattr(ka, "_WORK", {})
        launches = emu.launches
        _check(km.batch_run(ga, None, src, state=state, write=write, schedule="async"), want,
               write=write)
        assert emu.launches - launches == 1  # the cooperative launch alone
    with pytest.raises(DeviceError, match="bfs_async: CUDA out of memory: needed"):
        ka.bfs_async(ga, 0, cfg=bg.settings.BFSAsync(cap_per_vertex=1 << 20))


def test_single_async_bfs_launch(monkeypatch):
    """``bfs_async.bfs_async`` (one source) goes through the same kernels:
    levels with -1 unreached, None when the work list is too small."""
    from bitgraph.kernels.cuda import bfs_async as ka

    km, emu = emulated_gpu(monkeypatch)
    A = bg.io.generators.grid2d(9, 13, drop=0.1, seed=2)
    (ha, ga), (ht, _) = _csrs(A, False)
    cfg = bg.settings.BFSAsync()
    for s in (0, 50, A.nrows - 1):
        rec = bg.Stats()
        lv = ka.bfs_async(ga, s, cfg=cfg, stats=rec)
        assert np.array_equal(np.asarray(lv), _cpu()(ha, ht, np.array([s]))[0][0])
        assert rec.kernels == [("bfs", "csr", "cuda", "async")] and not rec.metrics["gave_up"]
    assert ka.bfs_async(ga, 0, cfg=bg.settings.BFSAsync(cap_per_vertex=0)) is None  # 64 slots
    # the slots the first traversals wrote past those 64 are cleared before
    # the next traversal of a long list (the emulated kernel checks)
    lv = ka.bfs_async(ga, 7, cfg=cfg)
    assert np.array_equal(np.asarray(lv), _cpu()(ha, ht, np.array([7]))[0][0])


@pytest.mark.parametrize("index64", [False, True])
def test_window_bfs_launch(monkeypatch, index64):
    """``bfs_window.bfs_window``: the launch's arguments against
    bfs_window.cu's parameters (the emulated kernels check them, and that
    levels, pend and the list were cleared first), levels with -1
    unreached, the run kernel's round width by the mean degree, None when
    the list is too small (and the slots it wrote cleared before the next
    traversal), a negative window refused."""
    from bitgraph.kernels.cuda import bfs_window as kw

    km, emu = emulated_gpu(monkeypatch)
    A = bg.io.generators.from_spec("rgg:300:d16@3")
    (ha, ga), (ht, _) = _csrs(A, index64)
    cfg = bg.settings.BFSCuda()
    for s in (0, 150, A.nrows - 1):
        rec = bg.Stats()
        lv = kw.bfs_window(ga, s, cfg=cfg, stats=rec)
        assert lv.dtype == np.int32
        assert np.array_equal(np.asarray(lv), _cpu()(ha, ht, np.array([s]))[0][0])
        assert rec.kernels == [("bfs", "csr", "cuda", "window")] and not rec.metrics["gave_up"]
    assert kw.round_edges(A.nvals / A.nrows) == 16
    assert kw.bfs_window(ga, 0, cfg=bg.settings.BFSCuda(window_cap_per_vertex=0)) is None
    lv = kw.bfs_window(ga, 7, cfg=bg.settings.BFSCuda(window_levels=0, window_round_edges=4,
                                                      window_check=False))
    assert np.array_equal(np.asarray(lv), _cpu()(ha, ht, np.array([7]))[0][0])
    with pytest.raises(ValueError, match="window_levels must be >= 0"):
        kw.bfs_window(ga, 0, cfg=bg.settings.BFSCuda(window_levels=-1))
    with pytest.raises(IndexError, match="source 300 out of range"):
        kw.bfs_window(ga, 300, cfg=cfg)


def test_emulated_kernels_take_the_cuda_parameters():
    """Each emulated kernel's parameters are its msbfs.cu kernel's, by name
    and order (the launcher's arguments reach both by position)."""
    import inspect

    from fake_msbfs_gpu import _KERNELS, signature

    for name, fn in _KERNELS.items():
        assert [p for _, p in signature(name)] == list(inspect.signature(fn).parameters), name


def test_async_launcher_constants_are_the_kernels():
    """bfs_async.py's layout constants are those bfs_async.cu compiles with
    (its generated header): the args and statistics layout, the item's
    vertex field and the run kernel's flags."""
    from bitgraph.kernels.cuda import bfs_async as ka
    from fake_msbfs_gpu import KA

    assert ka._ARGS == 2 * KA["A_ROWS"] and KA["A_SOURCES"] == 0
    assert ka._STATS == KA["STATS"]
    assert ka._V_LIMIT == 1 << KA["SRC_AT"]
    assert (ka._F_PREFETCH, ka._F_CHECK) == (KA["F_PREFETCH"], KA["F_CHECK"])
