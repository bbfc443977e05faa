"""bfs: every method against scipy.sparse.csgraph and python-graphblas.

The deterministic cases take a ``device`` parameter (``oracle.DEVICES``): the
same body runs on the CPU and, where CUDA is usable, on a CUDA copy of the
graph (marked ``gpu``); the hypothesis cases run on the CPU."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import oracle as O
from bitgraph.algorithms import bfs
from graph_strategies import graphs
from testdata import data_file

METHODS = ("pull", "push", "direction", "blest", "auto")


def ref_levels(S, s):
    """Hop counts from s (-1 unreached) on the pattern of S: bitgraph.validate's reference."""
    from bitgraph.validate import reference_levels

    return reference_levels(S, s)


def check_tree(S, s, levels, parents):
    """parents: the source is its own parent; every other reached vertex's
    parent is an in-neighbour one level up; unreached vertices have none
    (bitgraph.validate.check_parents)."""
    from bitgraph.validate import check_parents

    check_parents(S, s, levels, parents)


def run(A, s, method, **kw):
    """bfs with parents on A's device: (levels, parents) as numpy int64, -1 where none."""
    lv, par = bfs(A, s, parents=True, method=method, **kw)
    assert lv.device == par.device == A.device
    lv, par = O.to_host(lv), O.to_host(par)
    assert lv.dtype == np.int32 and par.dtype == np.int64
    assert np.array_equal(lv.indices(), par.indices())
    return lv.to_dense(-1).astype(np.int64), par.to_dense(-1)


@settings(max_examples=300)
@given(g=graphs(max_n=70), data=st.data())
def test_bfs_hypothesis(g, data):
    A = g.matrix(bg)
    S = g.scipy()
    s = data.draw(st.integers(0, g.n - 1), label="source")
    ref = ref_levels(S, s)
    for method in METHODS:
        levels = bfs(A, s, method=method).to_dense(-1)
        assert np.array_equal(levels, ref), method
        lv, par = run(A, s, method)
        assert np.array_equal(lv, ref), method
        check_tree(S, s, lv, par)


@settings(max_examples=100)
@given(g=graphs(max_n=70), data=st.data(),
       alpha=st.sampled_from([0.0, 1e-3, 0.05, 0.5, 2.0, float("inf")]))
def test_direction_alpha(g, data, alpha):
    """Any switch point gives the same levels: alpha=0 goes bottom-up after
    the first level, inf never does."""
    A = g.matrix(bg)
    S = g.scipy()
    s = data.draw(st.integers(0, g.n - 1), label="source")
    lv, par = run(A, s, "direction", alpha=alpha)
    assert np.array_equal(lv, ref_levels(S, s))
    check_tree(S, s, lv, par)


@settings(max_examples=40)
@given(g=graphs(max_n=40), data=st.data())
def test_transposed_view(g, data):
    """bfs(A.T) follows A's edges backwards."""
    A = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    ref = ref_levels(g.scipy().T.tocsr(), s)
    for method in METHODS:
        assert np.array_equal(bfs(A.T, s, method=method).to_dense(-1), ref), method


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("spec", ["kron:13", "urand:13", "grid:60x70:0.05", "rgg:5000:0.03"])
def test_generated_graphs_parallel_paths(spec, device):
    """Graphs big enough for the thread-pool steps (push and pull chunks,
    parallel parent pass), every method, several alphas and sources."""
    A_cpu = bg.io.generators.from_spec(spec)
    S = A_cpu.to_scipy().tocsr()
    A = O.on_device(A_cpu, device)
    rng = np.random.default_rng(7)
    for s in rng.choice(A.nrows, 3, replace=False).tolist():
        ref = ref_levels(S, s)
        for method in METHODS:
            lv, par = run(A, s, method)
            assert np.array_equal(lv, ref), (spec, method, s)
            check_tree(S, s, lv, par)
        for alpha in (0.0, 0.01, float("inf")):
            lv, par = run(A, s, "direction", alpha=alpha)
            assert np.array_equal(lv, ref), (spec, alpha, s)
            check_tree(S, s, lv, par)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("spec", ["moore:41x53", "moore:9x11x13", "rgg:4000:d16", "rgg:4000:d32"])
def test_mesh_like_graphs(spec, device):
    """The mesh-like graphs of mean degree 8-32 (grids with diagonals, the
    26-neighbour mesh, rgg): every method, and on CUDA the asynchronous
    ones too (window at 0, the default and unbounded) and hops (1, 3 and 16
    levels a barrier), from three sources."""
    A_cpu = bg.io.generators.from_spec(spec)
    S = A_cpu.to_scipy().tocsr()
    A = O.on_device(A_cpu, device)
    methods = METHODS + (("async", "window", "hops") if device == "cuda" else ())
    rng = np.random.default_rng(11)
    for s in rng.choice(A.nrows, 3, replace=False).tolist():
        ref = ref_levels(S, s)
        for method in methods:
            lv, par = run(A, s, method)
            assert np.array_equal(lv, ref), (spec, method, s)
            check_tree(S, s, lv, par)
        if device == "cuda":
            for window in (0, 1 << 20):
                with bg.settings.use(bfs_cuda={"window_levels": window}):
                    lv = O.to_host(bfs(A, s, method="window")).to_dense(-1)
                assert np.array_equal(lv, ref), (spec, window, s)
            for hops in (1, 3, 16):
                with bg.settings.use(bfs_cuda={"hops_levels": hops}):
                    lv = O.to_host(bfs(A, s, method="hops")).to_dense(-1)
                assert np.array_equal(lv, ref), (spec, hops, s)
            lv, par = run(A, s, "window", reorder="rcm")  # walked in RCM order, mapped back
            assert np.array_equal(lv, ref), (spec, "rcm", s)
            check_tree(S, s, lv, par)


def test_large_levels_parallel_push():
    """A star of 200,000 leaves: one top-down level of 200,000 edges, well
    over the serial threshold, claimed exactly once each by the pool."""
    n = 200_001
    A = bg.Matrix.from_coo(np.zeros(n - 1, np.int64), np.arange(1, n), nrows=n, ncols=n)
    lv, par = run(A, 0, "push")
    assert lv[0] == 0 and (lv[1:] == 1).all() and (par[1:] == 0).all()
    lv, par = run(A.T, 5, "direction", alpha=0.0)
    assert lv[5] == 0 and lv[0] == 1 and (np.delete(lv, [0, 5]) == -1).all()


@pytest.mark.parametrize("device", O.DEVICES)
def test_int64_indices(device):
    """A CSR with int64 indices (as from scipy with int64) takes the int64
    specialisations and gives the same levels."""
    A32 = bg.io.generators.from_spec("kron:10")
    S = A32.to_scipy().tocsr()
    S64 = sp.csr_array((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
                       shape=S.shape)
    A64 = O.on_device(bg.Matrix.from_scipy(S64), device)
    ref = ref_levels(S, 3)
    for method in METHODS:
        lv, par = run(A64, 3, method)
        assert np.array_equal(lv, ref), method
        check_tree(S, 3, lv, par)


@pytest.mark.parametrize("device", O.DEVICES)
def test_matches_python_graphblas(device):
    gb = pytest.importorskip("graphblas")
    A_cpu = bg.io.generators.from_spec("urand:10:6")
    G = A_cpu.to_graphblas()
    A = O.on_device(A_cpu, device)
    s = 17
    v = gb.Vector(gb.dtypes.INT32, A.nrows)
    q = gb.Vector(bool, A.nrows)
    q[s] << True
    level = 0
    while q.nvals:
        v(q.S) << level
        q(~v.S, replace=True) << gb.semiring.any_pair[bool](q @ G)
        level += 1
    idx, vals = v.to_coo()
    for method in METHODS:
        lv = bfs(A, s, method=method)
        assert lv.device == device
        lv = O.to_host(lv)
        assert np.array_equal(lv.indices(), idx)
        assert np.array_equal(lv.to_coo()[1], vals)


REAL = ["karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx", "west0067.mtx",
        "west0067_jumbled.mtx", "cryg2500.mtx", "pushpull.mtx", "olm1000.mtx",
        "LFAT5_hypersparse.mtx", "ldbc-directed-example.mtx",
        "ldbc-undirected-example.mtx", "tree-example.mtx", "msf1.mtx", "test_BF.mtx"]


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", REAL)
def test_real_graphs(name, device):
    A_cpu = bg.io.read(data_file(name))
    if A_cpu.nrows != A_cpu.ncols:
        pytest.skip("not square")
    S = A_cpu.to_scipy().tocsr()
    deg = np.diff(S.indptr)
    sources = [0, int(np.argmax(deg)), A_cpu.nrows - 1]
    A = O.on_device(A_cpu, device)
    for s in sources:
        ref = ref_levels(S, s)
        for method in METHODS:
            lv, par = run(A, s, method)
            assert np.array_equal(lv, ref), (name, method, s)
            check_tree(S, s, lv, par)


def test_blest_reordered():
    A = bg.io.generators.from_spec("grid:40x50:0.1")
    ref = ref_levels(A.to_scipy().tocsr(), 11)
    for reorder in ("none", "rcm", "auto"):
        assert np.array_equal(bfs(A, 11, method="blest", reorder=reorder).to_dense(-1), ref)


def test_single_vertex_and_empty():
    A = bg.Matrix(bool, 1, 1)
    for method in METHODS:
        lv, par = bfs(A, 0, parents=True, method=method)
        assert lv.to_dense(-1).tolist() == [0] and par.to_dense(-1).tolist() == [0]
    A = bg.Matrix.from_coo([0], [0], nrows=1, ncols=1)  # a self-loop only
    for method in METHODS:
        assert bfs(A, 0, method=method).to_dense(-1).tolist() == [0]


def test_errors():
    A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidIndex, match=r"bfs: source 3 is out of range .* 3 vertices"):
        bfs(A, 3)
    with pytest.raises(bg.InvalidIndex, match="source -1"):
        bfs(A, -1)
    with pytest.raises(TypeError, match="bfs: source must be an integer"):
        bfs(A, 1.0)
    with pytest.raises(bg.InvalidValue, match="bfs: unknown method 'dfs'"):
        bfs(A, 0, method="dfs")
    with pytest.raises(bg.InvalidValue, match="bfs: method 'async' runs on CUDA graphs only"):
        bfs(A, 0, method="async")
    with pytest.raises(bg.InvalidValue, match="bfs: method 'window' runs on CUDA graphs only"):
        bfs(A, 0, method="window")
    with pytest.raises(bg.InvalidValue, match="bfs: method 'hops' runs on CUDA graphs only"):
        bfs(A, 0, method="hops")
    with pytest.raises(bg.InvalidValue, match="bfs: alpha must be a number >= 0"):
        bfs(A, 0, alpha=-1)
    with pytest.raises(bg.DimensionMismatch, match="bfs: .* square, got 2x3"):
        bfs(bg.Matrix(bool, 2, 3), 0)
    with pytest.raises(TypeError, match="bfs: expected a bitgraph Matrix"):
        bfs(np.eye(3), 0)


def test_reach_probe():
    """The probe bfs_method uses on CUDA graphs (here on the CPU arrays,
    the same array code): the hops a ball takes to pass n / 100 vertices.
    Grids are long (past probe_hops), R-MAT and uniform random graphs pass
    in a few hops, 26-neighbour 3D meshes in between; a source whose
    component ends early says nothing."""
    import sys

    from bitgraph.algorithms._common import out_csr
    from bitgraph.io.generators import from_spec

    mod = sys.modules["bitgraph.algorithms.breadth_first"]
    cfg = bg.settings.BFS()
    beyond = cfg.probe_hops + 1

    def probe(A, cfg=cfg):
        a = out_csr(A)
        return mod._probe_reach(np.asarray(a.indptr), np.asarray(a.indices), A.nrows, np, cfg)

    assert probe(from_spec("grid:400x400:0.01")) == beyond
    assert probe(from_spec("grid:161x161x161")) == beyond  # the benchmark's 3D grid
    assert probe(from_spec("grid:60x60x60")) == 13  # 24 hops pass n / 100 on a small one
    assert probe(from_spec("kron:17")) == 2
    assert probe(from_spec("urand:17:8")) == 4
    assert probe(from_spec("urand:17:16")) == 3
    assert probe(from_spec("moore:700x700")) == beyond  # 24 king's moves: a 49 x 49 square
    # 26 neighbours: the ball of r hops is (2r + 1)^3 vertices, past 2,160 at r = 7
    assert probe(from_spec("moore:60x60x60")) == 7
    # fewer hops allowed: the same mesh is long
    assert probe(from_spec("moore:60x60x60"), bg.settings.BFS(probe_hops=6)) == 7
    # 3,000 disjoint edges: every component ends after one hop
    n = 6000
    A = bg.Matrix.from_coo(np.arange(0, n, 2), np.arange(1, n, 2), nrows=n, ncols=n)
    assert probe(A) == 0
    # reach and long_reach read it (cached on A per probe settings); small graphs are not probed
    A = from_spec("moore:60x60x60")
    assert mod.reach(A) == 7 and not mod.long_reach(A)
    assert mod.long_reach(A, bg.settings.BFS(probe_hops=6))
    assert mod.reach(A, bg.settings.BFS(probe_min_n=10**6)) == 0
    with bg.settings.use(bfs={"probe_share": 1000}):
        assert mod.reach(A) == 3 and mod.reach(A, cfg) == 7
    # and bfs_method on the CPU is direction whatever the graph
    assert bg.algorithms.bfs_method(from_spec("grid:400x400:0.01")) == "direction"
    assert bg.algorithms.bfs_method(from_spec("moore:60x60x60")) == "direction"


def test_hot_path_dispatch(monkeypatch):
    """The repeated-call path of a CUDA bfs (slot bfs_cuda_hot: the last
    levels-only call's launch), its dispatch alone on a CPU graph with a
    stand-in launch: taken only for a plain call (no parents, alpha,
    reorder or stats; a Python int source in range) under the same settings
    object, method and device; any other call runs the checked path (here
    the CPU's levels, or bitgraph's errors). The GPU tests run the real
    launch (tests/gpu/test_bfs_gpu.py)."""
    import sys

    bf = sys.modules["bitgraph.algorithms.breadth_first"]
    A = bg.io.generators.from_spec("kron:8")
    n = A.nrows
    marker = np.full(n, 7, np.int32)

    class Launch:  # what bfs_fused.Prepared offers the hot path
        def __init__(self):
            self.n, self.calls = n, []

        def go(self, source, device, stats=None):
            self.calls.append((source, device))
            return marker, bg._array.pack_bits(np.ones(n, bool))

    run = Launch()
    monkeypatch.setattr(bf, "_MATRIX", bg.Matrix)
    monkeypatch.setattr(bf, "_VECTOR", bg.Vector)
    monkeypatch.setattr(bf, "_GET_DEVICE", lambda: 0)
    cfg = bg.settings.current()
    A._slots().bfs_cuda_hot = (cfg, "auto", 0, run)
    cpu = bfs(A.copy(), 3).to_dense(-1)

    def hot(s, **kw):
        before = len(run.calls)
        lv = bfs(A, s, **kw).to_dense(-1)
        took = len(run.calls) > before
        assert took == bool((lv == 7).all()), (s, kw)
        if not took:
            np.testing.assert_array_equal(lv, bfs(A.copy(), int(s)).to_dense(-1))
        return took

    assert hot(3) and run.calls[-1] == (3, 0)
    assert hot(n - 1) and hot(0)
    assert not hot(np.int64(3))  # another integer type: the checked path
    for kw in ({"parents": False, "alpha": 0.5}, {"reorder": "rcm"}, {"method": "push"},
               {"stats": bg.Stats()}):
        assert not hot(3, **kw), kw
    with bg.settings.use(bfs={"alpha": 0.02}):  # an equal but other settings object
        assert not hot(3)
    monkeypatch.setattr(bf, "_GET_DEVICE", lambda: 1)  # another current device
    assert not hot(3)
    monkeypatch.setattr(bf, "_GET_DEVICE", lambda: 0)
    assert hot(3)
    for bad, err in ((n, bg.InvalidIndex), (-1, bg.InvalidIndex), (True, bg.InvalidType)):
        with pytest.raises(err):
            bfs(A, bad)
    levels, parents = bfs(A, 3, parents=True)  # parents: the checked path
    np.testing.assert_array_equal(levels.to_dense(-1), cpu)
    # a transposed view never takes it (its slots are another orientation's)
    assert (bfs(A.T, 3).to_dense(-1) != 7).any()


@pytest.mark.parametrize("device", O.DEVICES)
def test_renumbered_traversals(device):
    """reorder= with the methods that walk A's own CSR (pull, push,
    direction, auto; on CUDA async too): the traversal runs on A renumbered
    (RCM, degree, auto; built once, cached on A), the levels equal the
    reference and the parents form a valid tree, both in A's ids and on A's
    device; a directed graph, several components and unreached vertices."""
    from bitgraph.algorithms._common import known

    rng = np.random.default_rng(9)
    n = 300
    directed = bg.Matrix.from_coo(rng.integers(0, n, 700), rng.integers(0, n, 700), nrows=n,
                                  ncols=n)
    methods = ("pull", "push", "direction", "auto") + (("async",) if device == "cuda" else ())
    for A in (bg.io.generators.from_spec("grid:30x40:0.1"), bg.io.generators.from_spec("kron:9"),
              directed):
        S = A.to_scipy().tocsr()
        Ad = O.on_device(A, device)
        for s in (0, 7, A.nrows - 1):
            ref = ref_levels(S, s)
            for reorder in ("rcm", "degree", "auto"):
                for method in methods:
                    lv, par = run(Ad, s, method, reorder=reorder)
                    assert np.array_equal(lv, ref), (method, reorder, s)
                    check_tree(S, s, lv, par)
                    got = bfs(Ad, s, method=method, reorder=reorder)
                    assert got.device == device
                    assert np.array_equal(O.to_host(got).to_dense(-1), ref)
        assert known(Ad, "bfs_order", key="rcm") is not None
    with pytest.raises(bg.InvalidValue, match="bfs: unknown reorder 'bogus'; expected one of"):
        bfs(bg.io.generators.from_spec("grid:4x4"), 0, method="direction", reorder="bogus")


@pytest.mark.parametrize("method", ["async", "window", "hops"])
def test_levels_kernels_dispatch(method, monkeypatch):
    """The CUDA methods that give levels alone (their kernels stubbed here,
    on a CPU graph): each gets its settings family (async: bfs_async, the
    others bfs_cuda) and A's out-CSR; parents come from the parents kernel
    over the in-CSR; a kernel that gives up (None) hands over to push, and
    the Stats say so."""
    from bitgraph import settings as bs
    from bitgraph.algorithms import breadth_first as bf
    from bitgraph.kernels import registry

    A = bg.io.generators.from_spec("grid:5x6")
    levels = np.arange(30, dtype=np.int32)
    seen = {}

    def lookup(op, fmt, device, variant):
        assert (op, fmt, device) == ("bfs", "csr", "cuda")
        if variant == "parents":
            return lambda csr, lv, s: ("parents", lv, s)

        def run(csr, s, cfg, stats):
            seen.update(variant=variant, cfg=cfg, n=csr.nrows, s=s)
            return seen.get("give")
        return run

    monkeypatch.setattr(registry, "lookup", lookup)
    monkeypatch.setattr(bf, "_csr_cuda", lambda A, s, par, alpha, cfg, stats: ("push", s, par))
    cfg = bs.current()
    seen["give"] = levels
    lv, bits, par = bf._levels_cuda(A, 4, True, method, cfg, None)
    assert lv is levels and bits is None and par == ("parents", levels, 4)
    assert seen["variant"] == method and seen["n"] == 30 and seen["s"] == 4
    assert seen["cfg"] is (cfg.bfs_async if method == "async" else cfg.bfs_cuda)
    assert bf._levels_cuda(A, 4, False, method, cfg, None)[2] is None
    seen["give"] = None
    st = bg.Stats()
    assert bf._levels_cuda(A, 2, True, method, cfg, st) == ("push", 2, True)
    assert st.method == f"push ({method} gave up)"
