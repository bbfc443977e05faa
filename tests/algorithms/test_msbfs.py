"""msbfs (iBFS) and what is built on it, against independent references:
levels vs scipy.sparse.csgraph (one BFS per source), closeness vs
networkx.closeness_centrality, eccentricity/diameter vs networkx, diameter
bounds around networkx's diameter. Hypothesis graphs (directed and not,
self-loops, duplicates, isolated vertices, several components, hubs, long
paths) and the LAGraph graphs of tests/data."""

import importlib
from contextlib import contextmanager

import numpy as np
import pytest
import oracle as O
from graph_strategies import GraphSpec, graphs
from testdata import data_file
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.algorithms.multi_source import (closeness_centrality, diameter,
                                       diameter_bounds, eccentricity, msbfs,
                                       msbfs_schedule)
from bitgraph.validate import reference_levels

# the module itself (``bitgraph.algorithms.multi_source`` the attribute is the
# re-exported function), for its tuning constants
M = importlib.import_module("bitgraph.algorithms.multi_source")

REAL = ["karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx", "west0067.mtx", "cryg2500.mtx",
        "pushpull.mtx", "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx",
        "ldbc-wcc-example.mtx", "test_BF.mtx", "olm1000.mtx", "A.mtx", "structure.mtx",
        "tree-example.mtx", "msf1.mtx", "LFAT5_hypersparse.mtx", "skew_fp64.mtx",
        "matrix_int8.mtx"]


def ref_levels(S, sources):
    """(len(sources) x n) BFS levels, -1 unreached: bitgraph.validate's reference."""
    return reference_levels(S, np.asarray(sources, np.int64).reshape(-1))


DEFAULT = bg.settings.MSBFS()


@contextmanager
def tuning(parallel_work, alpha, schedule=None):
    """Force the pool path (parallel_work=0) and/or a direction (alpha), and
    on the CPU a schedule (None: the rule's)."""
    with bg.settings.use(msbfs={"parallel_work": parallel_work, "alpha": alpha,
                                "schedule": schedule}):
        yield


@st.composite
def graph_and_sources(draw, max_n=60, directed=None):
    spec = draw(graphs(max_n=max_n, directed=directed, weighted=False))
    k = draw(st.sampled_from([1, 2, 5, 64, 65, 130]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    sources = rng.integers(0, spec.n, k)
    if k > 1 and rng.random() < 0.5:  # duplicate sources
        sources[rng.integers(0, k)] = sources[0]
    batch = draw(st.sampled_from([1, 3, 7, 63, 64]))
    return spec, sources, batch, draw(st.booleans())


# --- msbfs ------------------------------------------------------------------

@pytest.mark.parametrize("parallel_work, alpha, schedule", [
    (DEFAULT.parallel_work, DEFAULT.alpha, None),  # as shipped: serial on these sizes
    (0, DEFAULT.alpha, None),                # every level and batch on the pool
    (0, 1e9, None),                    # top-down only, on the pool
    (DEFAULT.parallel_work, 0.0, None),      # bottom-up as soon as possible, serial
    (DEFAULT.parallel_work, DEFAULT.alpha, "async"),  # each source alone, side by side
], ids=["default", "pool", "push-only", "pull-first", "async"])
@settings(max_examples=100)
@given(case=graph_and_sources())
def test_msbfs_equals_single_bfs(case, parallel_work, alpha, schedule):
    spec, sources, batch, groupby = case
    A = spec.matrix(bg)
    with tuning(parallel_work, alpha, schedule):
        got = msbfs(A, sources, batch=batch, groupby=groupby)
    assert got.dtype == np.int32 and got.shape == (len(sources), spec.n)
    np.testing.assert_array_equal(got, ref_levels(spec.scipy(), sources), err_msg=repr(spec))


@settings(max_examples=50)
@given(spec=graphs(max_n=40, weighted=False))
def test_msbfs_transpose_view_follows_in_edges(spec):
    A = spec.matrix(bg)
    src = np.arange(spec.n)
    np.testing.assert_array_equal(msbfs(A.T, src), ref_levels(spec.scipy().T.tocsr(), src))


@pytest.mark.parametrize("name", REAL)
def test_msbfs_real_graphs(name):
    path = data_file(name)
    A = bg.io.read(path)
    r, c, _ = A.to_coo()
    import scipy.sparse as sp
    S = sp.csr_array((np.ones(r.size), (r, c)), shape=(A.nrows, A.ncols))
    rng = np.random.default_rng(7)
    sources = rng.integers(0, A.nrows, min(A.nrows, 150))
    ref = ref_levels(S, sources)
    for parallel_work in (DEFAULT.parallel_work, 0):
        with tuning(parallel_work, DEFAULT.alpha):
            np.testing.assert_array_equal(msbfs(A, sources), ref)
            np.testing.assert_array_equal(msbfs(A, sources, batch=17, groupby=True), ref)


@pytest.mark.parametrize("device", O.DEVICES)
def test_msbfs_generators_and_groupby(device):
    # kron has hubs of out-degree > 128: GroupBy really reorders there; on
    # CUDA the levels come back on the GPU
    import scipy.sparse as sp
    for spec in ("kron:10", "urand:10", "grid:20x30"):
        A_cpu = bg.io.generators.from_spec(spec)
        A = O.on_device(A_cpu, device)
        r, c, _ = A_cpu.to_coo()
        S = sp.csr_array((np.ones(r.size), (r, c)), shape=(A.nrows, A.nrows))
        sources = np.random.default_rng(3).integers(0, A.nrows, 200)
        ref = ref_levels(S, sources)
        for groupby in (False, True):
            got = msbfs(A, sources, groupby=groupby)
            # per-source results: an array on the graph's device
            assert type(got).__module__.split(".")[0] == ("cupy" if device == "cuda" else "numpy")
            np.testing.assert_array_equal(O.to_host(got), ref)
        cc = closeness_centrality(A, sources[:70])
        assert type(cc).__module__.split(".")[0] == ("cupy" if device == "cuda" else "numpy")
        np.testing.assert_allclose(O.to_host(cc), closeness_centrality(A_cpu, sources[:70]))


def test_groupby_order_puts_sharing_sources_together():
    # hub 0 of out-degree 200 (> GROUPBY_Q); leaves 1..200 point to it only
    # (out-degree 1 < GROUPBY_P); 201..400 form a path (no shared hub)
    n = 401
    rows = np.r_[np.zeros(200, int), np.arange(1, 201), np.arange(201, 400)]
    cols = np.r_[np.arange(1, 201), np.zeros(200, int), np.arange(202, 401)]
    A = bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n)
    src = np.empty(200, np.int64)
    src[0::2] = np.arange(201, 301)  # path vertices and leaves interleaved
    src[1::2] = np.arange(1, 101)
    order = M._groupby_order(A, src, 64, DEFAULT)
    assert sorted(order.tolist()) == list(range(200))
    # the 100 leaves (odd positions) come first, then the rest in order
    assert (order[:100] % 2 == 1).all()
    assert order[100:].tolist() == list(range(0, 200, 2))
    assert np.array_equal(msbfs(A, src, batch=64, groupby=True), msbfs(A, src))


def test_msbfs_small_cases():
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 3], nrows=5, ncols=5)
    assert msbfs(A, []).shape == (0, 5)
    assert msbfs(A, 2).tolist() == [[-1, -1, 0, 1, -1]]  # a scalar source
    assert msbfs(A, np.array([4, 4], np.uint8)).tolist() == [[-1, -1, -1, -1, 0]] * 2
    one = bg.Matrix.from_coo([0], [0], nrows=1, ncols=1)  # a self-loop only
    assert msbfs(one, [0, 0, 0], batch=2).tolist() == [[0]] * 3
    levels = msbfs(A, list(range(5)) * 30, batch=64)  # 150 sources, 3 batches
    assert np.array_equal(levels, np.tile(msbfs(A, range(5)), (30, 1)))


def test_batch_run_int64_indices():
    # the int64 index specialisation (graphs past 2^31 edges), on a tiny CSR
    from bitgraph.formats.csr import from_coo, transpose
    from bitgraph.kernels.cpu.msbfs import batch_run
    a = from_coo(np.array([0, 1, 2, 3]), np.array([1, 2, 0, 2]), None, 5, 5)
    a64 = a._replace(indptr=a.indptr.astype(np.int64), indices=a.indices.astype(np.int64))
    t64 = transpose(a64)
    for stop in (0, 1 << 62):
        lv, count, total, ecc = batch_run(a64, t64, np.array([0, 3, 4]), stop_work=stop, nchunks=2)
        assert lv.tolist() == [[0, 1, 2, -1, -1], [2, 3, 1, 0, -1], [-1, -1, -1, -1, 0]]
        assert count.tolist() == [3, 4, 1] and total.tolist() == [3, 6, 0]
        assert ecc.tolist() == [2, 3, 0]


# --- bad input ----------------------------------------------------------------

def test_msbfs_bad_input():
    A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=5, ncols=5)
    with pytest.raises(bg.InvalidIndex,
                       match=r"^msbfs: sources\[1\] = 9 is out of range for a graph of 5"):
        msbfs(A, [0, 9])
    with pytest.raises(bg.InvalidIndex, match=r"sources\[0\] = -1"):
        msbfs(A, [-1])
    for bad in (0, 65, -3):
        with pytest.raises(bg.InvalidValue, match=rf"^msbfs: batch must be in 1\.\.64.*got {bad}$"):
            msbfs(A, [0], batch=bad)
    with pytest.raises(TypeError, match=r"^msbfs: batch must be an integer"):
        msbfs(A, [0], batch=2.5)
    with pytest.raises(TypeError, match=r"^msbfs: sources must be"):
        msbfs(A, [0.5])
    R = bg.Matrix.from_coo([0], [1], nrows=2, ncols=3)
    with pytest.raises(bg.DimensionMismatch, match=r"^msbfs: .*must be square, got 2x3"):
        msbfs(R, [0])
    with pytest.raises(TypeError, match=r"^msbfs: expected a bitgraph Matrix"):
        msbfs(np.eye(3), [0])
    for f in (closeness_centrality, eccentricity):
        with pytest.raises(bg.DimensionMismatch, match=rf"^{f.__name__}: "):
            f(R)
        with pytest.raises(bg.InvalidIndex,
                           match=rf"^{f.__name__}: sources\[0\] = 5 is out of range"):
            f(A, [5])
    with pytest.raises(bg.DimensionMismatch, match=r"^diameter: "):
        diameter(R)
    with pytest.raises(bg.DimensionMismatch, match=r"^diameter_bounds: "):
        diameter_bounds(R)
    with pytest.raises(bg.InvalidValue, match=r"^diameter_bounds: samples must be >= 1, got 0"):
        diameter_bounds(A, samples=0)
    with pytest.raises(TypeError, match=r"^diameter_bounds: samples must be"):
        diameter_bounds(A, samples=1.5)
    E = bg.Matrix.from_coo([], [], nrows=0, ncols=0)
    with pytest.raises(bg.InvalidValue, match=r"^diameter: the graph has no vertices"):
        diameter(E)
    with pytest.raises(bg.InvalidValue, match=r"^diameter_bounds: the graph has no vertices"):
        diameter_bounds(E)
    assert msbfs(E, []).shape == (0, 0)
    assert closeness_centrality(E).shape == (0,) and eccentricity(E).shape == (0,)


# --- closeness ---------------------------------------------------------------

@settings(max_examples=150)
@given(spec=graphs(max_n=40, weighted=False), wf=st.booleans(), subset=st.booleans())
def test_closeness_vs_networkx(spec, wf, subset):
    import networkx as nx
    A = spec.matrix(bg)
    G = spec.networkx()
    ref = nx.closeness_centrality(G, wf_improved=wf)
    if subset:
        sources = np.random.default_rng(spec.n).integers(0, spec.n, 70)
        got = closeness_centrality(A, sources, wf_improved=wf)
        want = [ref[int(s)] for s in sources]
    else:
        got = closeness_centrality(A, wf_improved=wf)
        want = [ref[v] for v in range(spec.n)]
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=repr(spec))


def test_closeness_real_graphs():
    import networkx as nx
    for name in ("karate.mtx", "ldbc-directed-example.mtx", "west0067.mtx", "jagmesh7.mtx"):
        A = bg.io.read(data_file(name))
        r, c, _ = A.to_coo()
        G = nx.DiGraph()
        G.add_nodes_from(range(A.nrows))
        G.add_edges_from(zip(r.tolist(), c.tolist()))
        for wf in (True, False):
            ref = nx.closeness_centrality(G, wf_improved=wf)
            np.testing.assert_allclose(closeness_centrality(A, wf_improved=wf),
                                       [ref[v] for v in range(A.nrows)], rtol=0, atol=1e-12)


# --- eccentricity, diameter, bounds ---------------------------------------------

@st.composite
def connected_graphs(draw, max_n=40):
    """A graph() plus a cycle through all vertices in a random order: connected
    (strongly, if directed)."""
    spec = draw(graphs(max_n=max_n, weighted=False))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    perm = rng.permutation(spec.n)
    r, c = perm, np.roll(perm, -1)
    if not spec.directed:
        r, c = np.r_[r, c], np.r_[c, r]
    return GraphSpec(spec.n, np.r_[spec.rows, r], np.r_[spec.cols, c], None, spec.directed)


def _nx_connected(G):
    import networkx as nx
    return nx.is_strongly_connected(G) if G.is_directed() else nx.is_connected(G)


def _array_on(x, device):
    """x is an array of the device's module (numpy, or CuPy for cuda)."""
    assert type(x).__module__.split(".")[0] == ("cupy" if device == "cuda" else "numpy")
    return O.to_host(x)


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=150)
@given(spec=st.one_of(connected_graphs(), graphs(max_n=40, weighted=False)))
def test_eccentricity_and_diameter_vs_networkx(device, spec):
    import networkx as nx
    A = O.on_device(spec.matrix(bg), device)
    G = spec.networkx()
    if _nx_connected(G):
        ref = nx.eccentricity(G)
        ecc = _array_on(eccentricity(A), device)
        assert ecc.dtype == np.int64
        assert ecc.tolist() == [ref[v] for v in range(spec.n)]
        sources = np.r_[np.arange(spec.n)[::-1], 0]
        assert _array_on(eccentricity(A, sources), device).tolist() == [ref[int(v)] for v in sources]
        d = diameter(A)
        assert type(d) is int and d == nx.diameter(G)
        assert diameter(A, method="all") == d
        if not G.is_directed() or (spec.scipy() != spec.scipy().T).nnz == 0:
            st_ = bg.Stats()
            assert diameter(A, method="bounds", stats=st_) == d
            assert st_.method == "bounds" and 1 <= st_.metrics["bfs_sources"] <= spec.n
    else:
        S = spec.scipy()
        # bitgraph has no directed flag: a symmetric pattern is a graph
        kind = ("graph is not connected" if (S != S.T).nnz == 0
                else "digraph is not strongly connected")
        with pytest.raises(nx.NetworkXError):
            nx.eccentricity(G)
        with pytest.raises(bg.InvalidValue,
                           match=rf"^eccentricity: found infinite path length because the {kind}"):
            eccentricity(A)
        with pytest.raises(bg.InvalidValue, match=r"^diameter: found infinite path length"):
            diameter(A)
        with pytest.raises(bg.InvalidValue, match=r"^diameter_bounds: the diameter is infinite"):
            # every vertex sampled: some BFS misses a vertex (out- or in-)
            diameter_bounds(A, samples=spec.n)


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=150)
@given(spec=connected_graphs(max_n=60), samples=st.integers(1, 70), seed=st.integers(0, 9))
def test_diameter_bounds_bracket(device, spec, samples, seed):
    import networkx as nx
    A_cpu = spec.matrix(bg)
    A = O.on_device(A_cpu, device)
    lower, upper = diameter_bounds(A, samples=samples, seed=seed)
    d = nx.diameter(spec.networkx())
    assert type(lower) is int and type(upper) is int
    if device == "cuda":  # the same sweeps, so the same bounds as the CPU
        assert (lower, upper) == diameter_bounds(A_cpu, samples=samples, seed=seed)
    assert lower <= d <= upper
    if samples >= spec.n:  # every vertex sampled: the lower bound is exact
        assert lower == d


@pytest.mark.parametrize("device", O.DEVICES)
def test_diameter_bounds_tight_on_grids_and_paths(device):
    # the double sweep finds the diameter r + c - 2 of an r x c grid; the
    # middle of a longest path has eccentricity ceil(d / 2)
    for r, c in ((1, 30), (1, 31), (9, 9), (7, 12)):
        A = O.on_device(bg.io.generators.grid2d(r, c), device)
        d = r + c - 2
        assert diameter_bounds(A, samples=3) == (d, d + d % 2)
        assert diameter(A) == d
    # directed: a cycle 0 -> 1 -> ... -> 9 -> 0 (every eccentricity is 9)
    A = O.on_device(bg.Matrix.from_coo(np.arange(10), np.roll(np.arange(10), -1),
                                       nrows=10, ncols=10), device)
    assert diameter_bounds(A, samples=2) == (9, 18)
    assert diameter(A) == 9
    assert _array_on(eccentricity(A), device).tolist() == [9] * 10


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("first", [1, 3, 64])
@pytest.mark.parametrize("spec", ["kron:12", "grid:60x70:0.02", "urand:10", "rgg:3000:0.04"])
def test_bounded_diameter_equals_every_bfs(device, first, spec):
    """Takes-Kosters bounds give the diameter of the largest component with
    fewer BFSs than vertices on kron and grids; every step size."""
    A = bg.io.generators.from_spec(spec)
    cc = bg.algorithms.connected_components(A).to_dense()
    keep = np.flatnonzero(cc == np.bincount(cc).argmax())
    B = O.on_device(bg.extract(A, keep, keep), device)
    with bg.settings.use(msbfs={"diameter_batch": first}):
        st_ = bg.Stats()
        d = diameter(B, method="bounds", stats=st_)
    assert d == diameter(B, method="all") == int(eccentricity(B.to("cpu")).max())
    if spec.startswith(("kron", "grid")):
        assert st_.metrics["bfs_sources"] < keep.size // 4


def test_diameter_methods_checked():
    A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)  # directed
    with pytest.raises(bg.InvalidValue, match=r"^diameter: unknown method 'bfs'"):
        diameter(A, method="bfs")
    with pytest.raises(bg.InvalidValue, match=r"^diameter: method 'bounds' needs an undirected"):
        diameter(A, method="bounds")


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("spec", ["kron:9", "grid:30x41", "urand:9"])
def test_eccentricity_and_diameter_on_generators(device, spec):
    # bigger graphs (more than one batch of 64 sources, hubs, a mesh; on
    # CUDA each msbfs schedule the graph picks), the largest component
    # only: equal to the CPU's, on the graph's device
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    G = bg.io.generators.from_spec(spec)
    r, c, _ = G.to_coo()
    S = sp.csr_array((np.ones(r.size), (r, c)), shape=G.shape)
    _, label = connected_components(S, directed=False)
    keep = np.flatnonzero(label == np.bincount(label).argmax())
    A_cpu = bg.Matrix.from_scipy(S[keep][:, keep])
    A = O.on_device(A_cpu, device)
    want = eccentricity(A_cpu)
    assert want.size == keep.size
    assert np.array_equal(_array_on(eccentricity(A), device), want)
    sources = np.arange(0, keep.size, 7)
    assert np.array_equal(_array_on(eccentricity(A, sources), device), want[sources])
    assert diameter(A) == int(want.max())
    assert diameter_bounds(A, samples=5) == diameter_bounds(A_cpu, samples=5)


@pytest.mark.parametrize("device", O.DEVICES)
def test_eccentricity_empty_and_one_vertex(device):
    E = O.on_device(bg.Matrix.from_coo([], [], nrows=0, ncols=0), device)
    assert _array_on(eccentricity(E), device).shape == (0,)
    with pytest.raises(bg.InvalidValue, match=r"^diameter: the graph has no vertices"):
        diameter(E)
    one = O.on_device(bg.Matrix.from_coo([], [], nrows=1, ncols=1), device)
    assert _array_on(eccentricity(one), device).tolist() == [0]
    assert diameter(one) == 0 and diameter_bounds(one) == (0, 0)
    two = O.on_device(bg.Matrix.from_coo([0], [1], nrows=2, ncols=2), device)  # 1 -/-> 0
    with pytest.raises(bg.InvalidValue, match=r"^eccentricity: found infinite path length"
                                              r" because the digraph is not strongly"):
        eccentricity(two)
    with pytest.raises(bg.InvalidValue, match=r"^diameter_bounds: the diameter is infinite"):
        diameter_bounds(two, samples=2)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("groupby", [False, True])
def test_sources_without_out_edges_need_no_traversal(device, groupby):
    # sources with no out-edge (isolated, sinks) are answered without a batch, the
    # others packed into fewer batches: the same rows, closeness and errors as one
    # BFS each, whatever their mix, order and repeats; a self-loop's source traverses
    rng = np.random.default_rng(7)
    n = 300
    rows = rng.integers(0, 200, 900)
    cols = rng.integers(0, 250, 900)  # 250..299 isolated; 200..249 sinks only
    rows, cols = np.r_[rows, 280], np.r_[cols, 280]  # 280: a self-loop alone
    A = O.on_device(bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n), device)
    src = np.r_[rng.permutation(n)[:150], 260, 260, 225, 280, 0]
    got = O.to_host(msbfs(A, src, groupby=groupby))
    for i, s in enumerate(src):
        want = O.to_host(bg.algorithms.bfs(A, int(s))).to_dense(-1)
        np.testing.assert_array_equal(got[i], want, err_msg=f"source {s}")
    lone = np.arange(250, 300)
    cl = O.to_host(closeness_centrality(A, lone))
    assert (cl == 0.0).all()
    assert (O.to_host(msbfs(A, lone)) == np.where(
        np.arange(n)[None, :] == lone[:, None], 0, -1)).all()
    with pytest.raises(bg.errors.InvalidValue, match="vertex 260 reaches 1 of 300"):
        bg.algorithms.eccentricity(A, [260, 0])


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("spec", ["kron:9", "urand:8"])
def test_grouped_batches_same_values(device, spec):
    # closeness and eccentricity with their sources grouped by anchor (settings.msbfs.
    # group_batches: the default from 32 batches, here from 1) equal the given order's,
    # bit for bit: closeness walks A' (a directed graph's anchors there), eccentricity A
    from bitgraph.algorithms._common import has_out_edges

    A_cpu = bg.io.generators.from_spec(spec)
    r, c, _ = A_cpu.to_coo()
    keep = (r * 7 + c) % 3 != 0  # directed: a third of the entries dropped
    D_cpu = bg.Matrix.from_coo(r[keep], c[keep], nrows=A_cpu.nrows, ncols=A_cpu.ncols)
    src = np.random.default_rng(1).integers(0, A_cpu.nrows, 300)
    for G_cpu in (A_cpu, D_cpu):
        G = O.on_device(G_cpu, device)
        with bg.settings.use(msbfs={"group_batches": 0}):
            plain = O.to_host(closeness_centrality(G, src))
            plain_all = O.to_host(closeness_centrality(G))
        with bg.settings.use(msbfs={"group_batches": 1}):
            order = M.batch_order(G.T, src)
            busy = order[:int(has_out_edges(G.T, src).sum())]  # those that traverse, first
            assert not np.array_equal(busy, np.sort(busy))  # the grouping reorders the batches
            assert np.array_equal(O.to_host(closeness_centrality(G, src)), plain)
            assert np.array_equal(O.to_host(closeness_centrality(G)), plain_all)
    G = O.on_device(A_cpu, device)  # kron: not connected, urand-8: connected
    with bg.settings.use(msbfs={"group_batches": 0}):
        try:
            want, err = O.to_host(eccentricity(G)), None
        except bg.InvalidValue as e:
            want, err = None, str(e)
    with bg.settings.use(msbfs={"group_batches": 1}):
        if err is None:
            assert np.array_equal(O.to_host(eccentricity(G)), want)
        else:
            with pytest.raises(bg.InvalidValue) as e:
                eccentricity(G)
            assert str(e.value) == err  # the first failing source named, as ungrouped
    with bg.settings.use(msbfs={"group_batches": -1}):
        with pytest.raises(bg.InvalidValue, match="group_batches must be an integer >= 0"):
            closeness_centrality(G)


@pytest.mark.parametrize("device", O.DEVICES)
def test_sources_with_out_edges_follow_the_graphs_changes(device):
    # has_out_edges reads a host copy of "out-degree > 0" kept with the graph: an entry
    # added or removed changes what the next call sees (the copy is dropped with the storage)
    from bitgraph.algorithms._common import has_out_edges

    A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=4, ncols=4)
    B = O.on_device(A, device)
    src = np.array([3, 2, 1, 0, 3])
    assert has_out_edges(B, src).tolist() == [False, False, True, True, False]
    assert has_out_edges(B.T, src).tolist() == [False, True, True, False, False]
    A[3, 0] = True
    del A[1, 2]
    B = O.on_device(A, device)
    assert has_out_edges(B, src).tolist() == [True, False, False, True, True]
    assert O.to_host(msbfs(B, [3, 1])).tolist() == [[1, 2, -1, 0], [-1, 0, -1, -1]]


@settings(max_examples=150, deadline=None)
@given(g=graphs(max_n=60), picks=st.lists(st.integers(0, 10**6), min_size=0, max_size=150))
def test_anchor_order_is_by_anchor_then_id(g, picks):
    """anchor_order: the positions of the sources by (anchor, id), stably
    (repeated sources keep their order): numpy's lexsort of the two keys,
    which the one-key sort it runs must equal."""
    from bitgraph.algorithms import _common

    A = g.matrix(bg)
    if A.nrows == 0:
        return
    src = np.asarray(picks, np.int64) % A.nrows
    anchors = _common.cached(A, "anchors", lambda: _common._anchors(A))
    got = _common.anchor_order(A, src)
    assert got.tolist() == np.lexsort((src, anchors[src])).tolist()


@settings(max_examples=60, deadline=None)
@given(case=graph_and_sources(max_n=50))
def test_async_schedule_statistics_equal_levels(case):
    """closeness, eccentricity (where defined) and diameter bounds under the
    CPU's schedule "async" (each source alone; its statistics-only pass
    without levels) equal those of "levels", bit for bit."""
    spec, sources, _, _ = case
    A = spec.matrix(bg)
    src = np.asarray(sources) % max(spec.n, 1)
    got = {}
    for schedule in ("levels", "async"):
        with bg.settings.use(msbfs={"schedule": schedule}):
            cl = closeness_centrality(A, src)
            try:
                ecc = eccentricity(A, src).tolist()
            except bg.InvalidValue as e:
                ecc = str(e)
            got[schedule] = (cl.tolist(), ecc)
    assert got["levels"] == got["async"]


@pytest.mark.parametrize("spec, want", [
    ("grid:4x4", "levels"), ("grid:200x200", "async"), ("grid:40x40x40", "async"),
    ("moore:40x40x40", "levels"), ("kron:14", "levels"), ("urand:14", "levels"),
])
def test_cpu_schedule_rule(spec, want):
    """The CPU's rule (settings.msbfs.async_min_levels, async_min_reach): a
    grid's 64 wavefronts meet at a vertex at as many levels (each source
    alone), a 26-neighbour 40^3 mesh is 39 levels deep and a small-world
    graph passes n / 100 within 3 hops (a batch); settings.msbfs.schedule
    forces either, and the answer is the same."""
    A = bg.io.generators.from_spec(spec)
    assert msbfs_schedule(A) == want
    with bg.settings.use(msbfs={"schedule": "async" if want == "levels" else "levels"}):
        assert msbfs_schedule(A) != want
    src = np.random.default_rng(3).integers(0, A.nrows, 70)
    st = bg.Stats()
    out = msbfs(A, src, stats=st)
    assert st.method == ("cpu-async" if want == "async" else "cpu")
    np.testing.assert_array_equal(out, ref_levels(_scipy(A), src))
    with bg.settings.use(msbfs={"schedule": "bfs"}):
        with pytest.raises(bg.InvalidValue, match="settings.msbfs.schedule"):
            msbfs(A, src)


def _scipy(A):
    import scipy.sparse as sp

    r, c, _ = A.to_coo()
    return sp.csr_array((np.ones(r.size), (r, c)), shape=(A.nrows, A.ncols))

