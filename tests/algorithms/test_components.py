"""connected_components / number_connected_components against
scipy.sparse.csgraph.connected_components (connection="weak"): same
partition and every label the smallest vertex id of its component, for
every method, on hypothesis graphs, the LAGraph test graphs and the
generators; the Afforest kernel's serial and parallel paths and both index
dtypes directly.

The bodies take a ``device`` parameter (``oracle.DEVICES``): on "cuda" the
graph moves to the GPU, every method runs there (afforest: the CUDA kernel,
fastsv: the public-API code over CuPy) and the labels must equal the CPU's
exactly; the ``test_cuda_kernel_*`` cases drive each branch of the CUDA
Afforest kernel (and the CPU kernel on the same inputs).
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from graph_strategies import graphs
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import oracle as O
from bitgraph.algorithms.components import (METHODS, connected_components,
                                            number_connected_components)
from bitgraph.kernels.cpu import components as K
from testdata import data_file



def expected_labels(S):
    """Smallest vertex id of each vertex's weak component (scipy)."""
    n = S.shape[0]
    ncomp, comp = csg.connected_components(S, directed=True, connection="weak")
    smallest = np.full(ncomp, n, np.int64)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp], ncomp


def labels(A, method, device=None, **kw):
    """connected_components as numpy int64, checking the result's type and
    device (A's)."""
    got = connected_components(A, method=method, **kw)
    assert isinstance(got, bg.Vector) and got.device == A.device
    assert got.size == A.nrows and got.nvals == A.nrows, method
    assert got.dtype == np.int64
    return O.to_host(got).to_dense()


def count(A):
    c = number_connected_components(A)
    assert type(c) is int
    return c


def check(A, S, where="", device="cpu"):
    want, ncomp = expected_labels(S)
    A = O.on_device(A, device)
    for method in METHODS:
        np.testing.assert_array_equal(labels(A, method), want, err_msg=f"{method} {where}")
    assert count(A) == ncomp


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=400)
@given(g=graphs(max_n=60))
def test_hypothesis_graphs(g, device):
    check(g.matrix(bg), g.scipy(), repr(g), device)


@pytest.mark.gpu
@settings(max_examples=150)
@given(g=graphs(max_n=60), mode=st.sampled_from(["on", "off"]))
def test_cuda_presample_modes(g, mode):
    # either start of the CUDA Afforest gives scipy's labels
    want, _ = expected_labels(g.scipy())
    A = O.on_device(g.matrix(bg), "cuda")
    with bg.settings.use(components={"cuda_presample": mode}):
        np.testing.assert_array_equal(labels(A, "afforest"), want, err_msg=mode)


def test_presample_rule():
    # "auto": the flattened head start for local ids (a mesh in natural
    # order), none for random ids; the median spread cached on the graph
    from bitgraph.algorithms._common import known, median_spread
    from bitgraph.algorithms.components import _presample

    cfg = bg.settings.current().components
    grid = bg.io.generators.from_spec("grid:64x64")
    kron = bg.io.generators.from_spec("kron:12")
    assert _presample(grid, grid._csr(), cfg) is True
    assert known(grid, "entry_spread") == 64.0
    assert _presample(kron, kron._csr(), cfg) is False
    assert known(kron, "entry_spread") > kron.nrows / cfg.local_share
    for mode, want in (("on", True), ("off", False)):
        assert _presample(kron, kron._csr(), bg.settings.Components(cuda_presample=mode)) is want
    with pytest.raises(bg.errors.InvalidValue, match="cuda_presample must be"):
        _presample(kron, kron._csr(), bg.settings.Components(cuda_presample="sometimes"))
    c = bg.Matrix.from_coo([], [], nrows=3, ncols=3)._csr()
    assert median_spread(c.indptr, c.indices, 10) == 0.0
    c = bg.Matrix.from_coo([0, 5], [9, 5], nrows=10, ncols=10)._csr()
    assert median_spread(c.indptr, c.indices, 1001) in (0.0, 4.0)


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=100)
@given(g=graphs(max_n=60), transpose=st.booleans())
def test_transposed_and_weighted_input(g, transpose, device):
    # A' has the same weak components; values never matter
    A = O.on_device(g.matrix(bg), device)
    S = g.scipy()
    if transpose:
        A, S = A.T, S.T.tocsr()
    want, _ = expected_labels(S)
    for method in METHODS:
        np.testing.assert_array_equal(labels(A, method), want)


@settings(max_examples=300)
@given(graphs(max_n=80), st.sampled_from([np.int32, np.int64]), st.booleans(),
       st.integers(0, 3), st.booleans())
def test_afforest_kernel(g, itype, parallel, rounds, symmetrise):
    # the kernel alone: serial and pooled chunks, both index dtypes, any
    # number of sampling rounds, rows shuffled; on a symmetrised CSR the
    # largest component may skip its edges, on the directed one it must not
    S = g.scipy()
    U = (S + S.T).tocsr() if symmetrise else S.tocsr()
    want, _ = expected_labels(S)
    rng = np.random.default_rng(rounds)
    indices = U.indices.copy()
    for u in range(U.shape[0]):
        rng.shuffle(indices[U.indptr[u]:U.indptr[u + 1]])
    comp = K.afforest(U.indptr.astype(itype), indices.astype(itype), rounds=rounds,
                      skip_largest=symmetrise, parallel=parallel)
    assert comp.dtype == itype
    np.testing.assert_array_equal(comp, want)


@pytest.mark.parametrize("device", O.DEVICES)
def test_known_symmetric_skips(device):
    # once A is known symmetric the skipping variant runs: same labels
    from bitgraph.algorithms import _common

    G_cpu = bg.io.generators.grid2d(50, 60, drop=0.4, seed=2)
    G = O.on_device(G_cpu, device)
    assert _common.known(G, "symmetric")  # the generators record it (to() carries it)
    A = O.on_device(bg.Matrix.from_csr(G_cpu.indptr, G_cpu.indices, ncols=G_cpu.ncols), device)
    first = labels(A, "auto")
    assert not _common.known(A, "symmetric")
    H = A.to("cpu")
    assert _common.is_symmetric(H) and _common.known(H, "symmetric")
    _common.record(A, "symmetric", True)
    for method in METHODS:
        np.testing.assert_array_equal(labels(A, method), first)
        np.testing.assert_array_equal(labels(G, method), first)
    D_cpu = bg.Matrix.from_coo([0, 2], [1, 1], nrows=3, ncols=3)
    assert not _common.is_symmetric(D_cpu.copy())
    D = O.on_device(D_cpu, device)
    for method in METHODS:
        assert labels(D, method).tolist() == [0, 0, 0]
    # fastsv found D directed on the way (its A + A' built once, cached)
    assert _common.known(D, "symmetric") is False


@pytest.mark.parametrize("device", O.DEVICES)
def test_examples(device):
    # isolated vertices, a self-loop, duplicates, a directed chain
    A = O.on_device(bg.Matrix.from_coo([5, 5, 2, 2, 7, 6], [5, 3, 3, 3, 6, 2], nrows=9, ncols=9),
                    device)
    for method in METHODS:
        assert labels(A, method).tolist() == [0, 1, 2, 2, 4, 2, 2, 2, 8]
    assert count(A) == 5
    one = O.on_device(bg.Matrix.from_coo([0], [0], nrows=1, ncols=1), device)
    for method in METHODS:
        assert labels(one, method).tolist() == [0]
    assert count(one) == 1


@pytest.mark.parametrize("device", O.DEVICES)
def test_empty_graph(device):
    A = O.on_device(bg.Matrix.from_coo([], [], nrows=0, ncols=0), device)
    for method in METHODS:
        assert labels(A, method).size == 0
    assert count(A) == 0
    E = O.on_device(bg.Matrix.from_coo([], [], nrows=4, ncols=4), device)
    for method in METHODS:
        assert labels(E, method).tolist() == [0, 1, 2, 3]
    assert count(E) == 4


@pytest.mark.parametrize("device", O.DEVICES)
def test_long_path(device):
    # high diameter: FastSV needs many rounds, Afforest's chains get long
    n = 3000
    perm = np.random.default_rng(1).permutation(n)
    A = O.on_device(bg.Matrix.from_coo(perm[:-1], perm[1:], nrows=n, ncols=n), device)
    for method in METHODS:
        assert (labels(A, method) == 0).all()


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("spec", ["kron:12", "urand:12", "grid:60x70"])
def test_generators(spec, device):
    # big enough for the pooled (parallel) paths
    A = bg.io.generators.from_spec(spec)
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape)
    check(A, S, spec, device)


@pytest.mark.parametrize("device", O.DEVICES)
def test_generator_many_components(device):
    A = bg.io.generators.grid2d(120, 150, drop=0.45, seed=3)
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape)
    want, ncomp = expected_labels(S)
    assert ncomp > 100
    check(A, S, "grid2d drop", device)


GRAPHS = ["ldbc-wcc-example.mtx", "jagmesh7.mtx", "west0067.mtx", "LFAT5_hypersparse.mtx",
          "empty.mtx", "karate.mtx", "ldbc-directed-example.mtx", "tree-example.mtx",
          "cryg2500.mtx", "pushpull.mtx", "bcsstk13.mtx", "olm1000.mtx", "msf1.mtx",
          "structure.mtx", "test_BF.mtx"]


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", GRAPHS)
def test_real_graphs(name, device):
    path = data_file(name)
    A = bg.io.read(path)
    if A.nrows != A.ncols:
        pytest.skip("not square")
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape)
    check(A, S, name, device)


@pytest.mark.parametrize("device", O.DEVICES)
def test_ldbc_wcc_example(device):
    # hand-checked: its 15 edges join all 10 vertices (1-based ids 1..10)
    path = data_file("ldbc-wcc-example.mtx")
    A = O.on_device(bg.io.read(path), device)
    for method in METHODS:
        assert labels(A, method).tolist() == [0] * 10
    assert count(A) == 1


def test_hot_path_dispatch(monkeypatch):
    """The repeated-call path of a CUDA connected_components (slot
    cc_cuda_hot: the last call's replay), its dispatch alone on a CPU graph
    with a stand-in replay: taken only for a call without stats, of method
    "auto" or "afforest", under the same settings object, device, stream and
    thread; a replay whose scratch is gone (None) runs the checked path, as
    every other call does (here the CPU's labels, or bitgraph's errors). The
    GPU case runs the real replay (test_repeated_call_follows_settings_and_storage)."""
    import sys

    cc = sys.modules["bitgraph.algorithms.components"]
    A = bg.io.generators.from_spec("kron:8")
    n = A.nrows
    marker = np.full(n, 7, np.int64)
    want = expected_labels(sp.csr_array(A.to_scipy()))[0]

    class Replay:  # what kernels/cuda/components.Replay offers the hot path
        def __init__(self):
            self.n, self.calls, self.gone = n, 0, False

        def __call__(self):
            self.calls += 1
            return None if self.gone else (marker, bg._array.pack_bits(np.ones(n, bool)))

    run = Replay()
    connected_components(A)  # binds the module's lazies (_MATRIX)
    where = [(0, 5, 9)]
    monkeypatch.setattr(cc, "_WHERE", lambda: where[0])
    A._slots().cc_cuda_hot = (bg.settings.current(), (0, 5, 9), run)

    def hot(**kw):
        before = run.calls
        got = connected_components(A, **kw).to_dense()
        took = run.calls > before and not run.gone
        assert took == bool((got == 7).all()), kw
        if not took:
            np.testing.assert_array_equal(got, want)
        return took

    assert hot() and hot(method="afforest") and run.calls == 2
    assert not hot(method="fastsv") and not hot(stats=bg.Stats())
    with bg.settings.use(components={"rounds": 3}):  # another settings object
        assert not hot()
    for other in ((1, 5, 9), (0, 6, 9), (0, 5, 8)):  # device, stream, thread
        where[0] = other
        assert not hot(), other
    where[0] = (0, 5, 9)
    assert hot()
    run.gone = True  # its scratch taken by another graph: the whole path
    assert not hot() and run.calls == 4
    run.gone = False
    with pytest.raises(ValueError, match="unknown method"):
        connected_components(A, method="bfs")
    # a transposed view never takes it (its slots are another orientation's)
    np.testing.assert_array_equal(connected_components(A.T).to_dense(), want)
    A[0, n - 1] = True  # a change of A's storage drops the slot
    assert A._slots().cc_cuda_hot is None


@pytest.mark.gpu
def test_repeated_call_follows_settings_and_storage():
    """A repeated CUDA call replays the last one's launches (slot
    cc_cuda_hot) only under the same settings object; a settings block
    and a changed graph each run their own and give scipy's labels."""
    A_cpu = bg.io.generators.grid2d(40, 50, drop=0.3, seed=5)
    A = O.on_device(A_cpu, "cuda")

    def check():
        got = labels(A, "auto")
        np.testing.assert_array_equal(got, expected_labels(sp.csr_array(A_cpu.to_scipy()))[0])

    check()
    hot = A._slots().cc_cuda_hot
    assert hot is not None and hot[0] is bg.settings.current()
    check()
    assert A._slots().cc_cuda_hot is hot  # taken, not made again
    with bg.settings.use(components={"rounds": 1}):
        check()
        inner = A._slots().cc_cuda_hot
        assert inner[0] is bg.settings.current() and inner[2] is not hot[2]
    check()
    # the newest replay again, for the outer settings
    assert A._slots().cc_cuda_hot[0] is bg.settings.current()
    # a change of A's storage drops the slot: the next call sees the new edge
    far = A_cpu.nrows - 1
    A[0, far] = True
    A_cpu[0, far] = True
    assert A._slots().cc_cuda_hot is None
    check()
    check()
    assert labels(A, "auto")[far] == 0


@pytest.mark.parametrize("device", O.DEVICES)
def test_errors(device):
    with pytest.raises(bg.DimensionMismatch, match="^connected_components: "):
        connected_components(O.on_device(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3), device))
    with pytest.raises(TypeError, match="^connected_components: "):
        connected_components(np.eye(3))
    with pytest.raises(ValueError, match="^connected_components: unknown method"):
        connected_components(bg.Matrix.from_coo([0], [1], nrows=2, ncols=2), method="bfs")
    with pytest.raises(bg.DimensionMismatch, match="^number_connected_components: "):
        number_connected_components(O.on_device(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3),
                                                device))


# ----------------------------------------------------------------------------
# the Afforest kernels alone, each branch of the CUDA one (and the CPU one on
# the same inputs): labels equal scipy's smallest ids exactly
# ----------------------------------------------------------------------------

def run_kernel(device, S, *, skip_largest, itype=np.int32, rounds=None, cfg=None,
               presample=True):
    """The ("cc", "csr", device, "afforest") kernel on scipy CSR S: numpy int64
    (presample: the CUDA kernel's start, see its launcher)."""
    from bitgraph.kernels import registry

    S = sp.csr_array(S)
    indptr, indices = S.indptr.astype(itype), S.indices.astype(itype)
    kernel = registry.lookup("cc", fmt="csr", device=device, variant="afforest")
    if device == "cuda":
        import cupy

        got = kernel(cupy.asarray(indptr), cupy.asarray(indices), skip_largest=skip_largest,
                     rounds=rounds, cfg=cfg, presample=presample)
        assert isinstance(got, cupy.ndarray) and got.dtype == np.int64
        return got.get()
    return kernel(indptr, indices, skip_largest=skip_largest, rounds=rounds,
                  cfg=cfg).astype(np.int64)


def check_kernel(device, S, **kw):
    # on CUDA both starts: cc_init's hooks flattened first (local ids), or none
    want, _ = expected_labels(S)
    for itype in (np.int32, np.int64):
        for presample in ((True, False) if device == "cuda" else (True,)):
            np.testing.assert_array_equal(
                run_kernel(device, S, itype=itype, presample=presample, **kw), want,
                err_msg=f"{itype.__name__} presample={presample} {kw}")


def symmetric(rows, cols, n):
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    r, c = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    return sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))


def directed(rows, cols, n):
    return sp.csr_array((np.ones(len(rows)), (np.asarray(rows, np.int64),
                                               np.asarray(cols, np.int64))), shape=(n, n))


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("hub_degree", [5, 100, 400, 5000])
@pytest.mark.parametrize("hub", [0, 4321])
def test_cuda_kernel_star(device, hub_degree, hub):
    # a hub's remaining entries at each of the thread / warp / block tiers
    # (16 and 352 by default), the hub first or last in id order, plus a
    # second star; directed (the leaves' edges stored one way) and symmetric
    n = 10_000
    leaves = np.random.default_rng(hub_degree).choice(
        np.setdiff1d(np.arange(n), [hub]), hub_degree + 50, replace=False)
    rows = np.concatenate([np.full(hub_degree, hub), leaves[hub_degree:-1]])
    cols = np.concatenate([leaves[:hub_degree], np.full(49, leaves[-1])])
    check_kernel(device, directed(rows, cols, n), skip_largest=False)
    check_kernel(device, directed(cols, rows, n), skip_largest=False)
    check_kernel(device, symmetric(rows, cols, n), skip_largest=True)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("tiers", [(0, 0), (1, 3), (16, 352), (10**9, 10**9)])
def test_cuda_kernel_degree_tiers(device, tiers):
    # every vertex through the thread, the warp or the block tier (and the
    # warp tier capped by the block one): same labels on a kron graph
    # (directed orientation: every edge stored once) and its symmetric form
    cfg = bg.settings.Components(cuda_warp_degree=tiers[0], cuda_block_degree=tiers[1])
    A = bg.io.generators.from_spec("kron:10")
    rows, cols, _ = A.to_coo()
    keep = rows < cols
    check_kernel(device, directed(rows[keep], cols[keep], A.nrows), skip_largest=False, cfg=cfg)
    check_kernel(device, symmetric(rows[keep], cols[keep], A.nrows), skip_largest=True, cfg=cfg)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("rounds", [0, 1, 2, 5])
def test_cuda_kernel_long_path(device, rounds):
    # a path of 20,000 vertices in random id order: deep trees, long
    # hook chains; stored one way (weak components need both directions)
    n = 20_000
    perm = np.random.default_rng(rounds).permutation(n)
    check_kernel(device, directed(perm[:-1], perm[1:], n), skip_largest=False, rounds=rounds)
    check_kernel(device, symmetric(perm[:-1], perm[1:], n), skip_largest=True, rounds=rounds)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("n", [1, 2, 31, 33, 1000, 4097])
def test_cuda_kernel_sizes(device, n):
    # n not a multiple of 32, one vertex, no edges (every vertex isolated),
    # and a few edges among many isolated vertices
    empty = sp.csr_array((n, n))
    check_kernel(device, empty, skip_largest=False)
    check_kernel(device, empty, skip_largest=True)
    rng = np.random.default_rng(n)
    m = max(1, n // 20)
    rows, cols = rng.integers(0, n, m), rng.integers(0, n, m)
    check_kernel(device, directed(rows, cols, n), skip_largest=False)
    check_kernel(device, symmetric(rows, cols, n), skip_largest=True)


@pytest.mark.parametrize("device", O.DEVICES)
def test_cuda_kernel_empty(device):
    for skip in (False, True):
        got = run_kernel(device, sp.csr_array((0, 0)), skip_largest=skip)
        assert got.shape == (0,) and got.dtype == np.int64


@pytest.mark.parametrize("device", O.DEVICES)
def test_cuda_kernel_directed_needs_both_directions(device):
    # 5 -> 0 and 5 -> 9 only: 0, 5 and 9 are one weak component, found only
    # by linking against the stored direction; in-stars (many u -> hub) too
    n = 64
    rows = [5, 5, 40, 41, 42, 43] + list(range(10, 30))
    cols = [0, 9, 63, 63, 63, 63] + [30] * 20
    check_kernel(device, directed(rows, cols, n), skip_largest=False)
    check_kernel(device, directed(rows, cols, n), skip_largest=False, rounds=0)


@pytest.mark.parametrize("device", O.DEVICES)
def test_cuda_kernel_largest_not_vertex_0(device):
    # the largest component (a grid of ids 1000..) is not vertex 0's, and
    # its smallest id is not its first sampled root; smaller components
    # (pairs, a triangle) at ids below and above it; symmetric, so the
    # largest component's vertices skip their last-round edges
    G = bg.io.generators.grid2d(60, 60)
    r, c, _ = G.to_coo()
    n = 1000 + G.nrows + 100
    rows = np.concatenate([r + 1000, [0, 2, 3, 4, n - 2, n - 5]])
    cols = np.concatenate([c + 1000, [1, 3, 4, 2, n - 1, n - 4]])
    S = directed(rows, cols, n)
    S = (S + S.T).tocsr()
    check_kernel(device, S, skip_largest=True)
    check_kernel(device, S, skip_largest=True, rounds=1)
    check_kernel(device, S, skip_largest=False)
    A = O.on_device(bg.Matrix.from_scipy(S), device)
    from bitgraph.algorithms import _common

    _common.record(A, "symmetric", True)
    want, ncomp = expected_labels(S)
    for method in METHODS:
        np.testing.assert_array_equal(labels(A, method), want)
    assert count(A) == ncomp


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("samples", [1, 7, 256, 1024, 4096, 100_000])
def test_cuda_kernel_samples(device, samples):
    # any sample count (capped at SAMPLE_CAP) gives the same labels
    cfg = bg.settings.Components(cuda_samples=samples)
    S = symmetric(*np.random.default_rng(samples).integers(0, 3000, (2, 2500)), 3000)
    check_kernel(device, S, skip_largest=True, cfg=cfg)


@pytest.mark.parametrize("device", O.DEVICES)
def test_int64_index_matrix(device):
    # a Matrix whose CSR holds int64 indices (as scipy's with int64) takes the
    # int64 kernels and gives the same labels
    A32 = bg.io.generators.grid2d(40, 50, drop=0.4, seed=5)
    S = A32.to_scipy().tocsr()
    S64 = sp.csr_array((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
                       shape=S.shape)
    A64 = O.on_device(bg.Matrix.from_scipy(S64), device)
    want, ncomp = expected_labels(S)
    for method in METHODS:
        np.testing.assert_array_equal(labels(A64, method), want)
    assert count(A64) == ncomp


@pytest.mark.parametrize("device", O.DEVICES)
def test_stats(device):
    # the method and the kernel key run; on CUDA the kernels' time
    A = O.on_device(bg.io.generators.from_spec("kron:8"), device)
    rec = bg.Stats()
    connected_components(A, stats=rec)
    assert rec.method == "afforest"
    assert ("cc", "csr", device, "afforest") in rec.kernels
    if device == "cuda":
        assert rec.metrics["kernel_ms"] > 0
    rec = bg.Stats()
    connected_components(A, method="fastsv", stats=rec)
    assert rec.method == "fastsv"


def raw_csr(rows, cols, n, rng):
    """CSR arrays of the entries (rows, cols) as given: duplicates kept,
    each row in a random order."""
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    order = np.lexsort((rng.random(rows.size), rows))
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols[order]


def run_raw(device, indptr, indices, **kw):
    """The ("cc", "csr", device, "afforest") kernel on raw CSR arrays: numpy int64."""
    from bitgraph.kernels import registry

    kernel = registry.lookup("cc", fmt="csr", device=device, variant="afforest")
    if device == "cuda":
        import cupy

        return kernel(cupy.asarray(indptr), cupy.asarray(indices), **kw).get()
    return kernel(indptr, indices, **kw).astype(np.int64)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_cuda_kernel_unsorted_rows(device, rounds):
    # rows in random order with duplicates and self-loops: the first pass
    # hooks a vertex to the smallest of its first `rounds` entries in
    # whatever order they are stored (a row whose first entries are all
    # larger ids, or itself, leaves the vertex a root), and the sampling
    # pass then links those same entries; directed and symmetric
    rng = np.random.default_rng(rounds)
    n = 3000
    rows, cols = rng.integers(0, n, (2, 4000))
    loops = np.arange(0, n, 7)
    rows = np.concatenate([rows, rows[:500], loops])  # 500 duplicates, self-loops
    cols = np.concatenate([cols, cols[:500], loops])
    for r, c, skip in ((rows, cols, False),
                       (np.concatenate([rows, cols]), np.concatenate([cols, rows]), True)):
        want, _ = expected_labels(directed(r, c, n))
        for itype in (np.int32, np.int64):
            indptr, indices = raw_csr(r, c, n, rng)
            got = run_raw(device, indptr.astype(itype), indices.astype(itype),
                          skip_largest=skip, rounds=rounds)
            np.testing.assert_array_equal(got, want, err_msg=f"{itype.__name__} skip={skip}")


@pytest.mark.parametrize("device", O.DEVICES)
def test_cuda_kernel_calls_keep_their_labels(device):
    # back-to-back calls of one size and index type reuse the kernel's
    # scratch, another size or type replaces it: every call's labels are its
    # own array, unchanged by the calls after it
    rng = np.random.default_rng(11)
    cases = []
    for n, itype in ((1000, np.int32), (1000, np.int32), (777, np.int32), (1000, np.int64),
                     (1000, np.int32)):
        S = symmetric(*rng.integers(0, n, (2, n)), n)
        cases.append((S, itype))
    from bitgraph.kernels import registry

    kernel = registry.lookup("cc", fmt="csr", device=device, variant="afforest")
    xp = np
    if device == "cuda":
        import cupy as xp
    got = [kernel(xp.asarray(S.indptr.astype(itype)), xp.asarray(S.indices.astype(itype)),
                  skip_largest=True) for S, itype in cases]
    for (S, _), labels_ in zip(cases, got):
        np.testing.assert_array_equal(np.asarray(O.to_host(labels_), np.int64),
                                      expected_labels(S)[0])


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("n", [1, 31, 32, 33, 64, 100, 4097])
def test_result_bitmap_full(device, n):
    # the Vector's bitmap (on CUDA written by the kernel's last pass): the
    # bits of all n entries set, none past n
    from bitgraph import _array as ar

    rng = np.random.default_rng(n)
    S = symmetric(*rng.integers(0, n, (2, n // 3 + 1)), n)
    got = O.to_host(connected_components(O.on_device(bg.Matrix.from_scipy(S), device)))
    np.testing.assert_array_equal(got._bitmap, ar.pack_bits(np.ones(n, np.bool_)))
    np.testing.assert_array_equal(got.to_dense(), expected_labels(S)[0])


@pytest.mark.parametrize("device", O.DEVICES)
def test_block_threads_setting(device):
    # the lists' blocks take cuda_block_threads threads: any multiple of 32
    # up to 1024 gives the same labels; another value is refused on CUDA
    # (the CPU kernel has no such blocks)
    A = bg.io.generators.from_spec("kron:9")
    S = A.to_scipy()
    want, _ = expected_labels(S)
    G = O.on_device(A, device)
    for threads in (32, 96, 1024):
        with bg.settings.use(components={"cuda_block_threads": threads,
                                         "cuda_warp_degree": 1, "cuda_block_degree": 4}):
            np.testing.assert_array_equal(labels(G, "afforest"), want)
    for bad in (48, 2048):
        with bg.settings.use(components={"cuda_block_threads": bad}):
            if device == "cuda":
                with pytest.raises(ValueError, match="cuda_block_threads"):
                    connected_components(G)
            else:
                np.testing.assert_array_equal(labels(G, "afforest"), want)


@pytest.mark.parametrize("device", O.DEVICES)
def test_repeated_calls_results_are_their_own(device):
    # on CUDA the second call of a graph replays the first one's launches
    # (kernels/cuda/components.py Replay): graphs taking turns (the scratch
    # changes under a replay), another stream and int64 indices give the
    # same labels, and every result keeps its own arrays
    S1 = symmetric(*np.random.default_rng(1).integers(0, 3000, (2, 2500)), 3000)
    S2 = sp.random(500, 500, density=0.004, format="csr", random_state=2)
    S2 = sp.csr_array(S2)
    S2 = sp.csr_array((S2.data, S2.indices.astype(np.int64), S2.indptr.astype(np.int64)),
                      shape=S2.shape)
    graphs = [(O.on_device(bg.Matrix.from_scipy(S), device), expected_labels(S)[0])
              for S in (S1, S2)]
    got = [(connected_components(A), want) for _ in range(3) for A, want in graphs]
    if device == "cuda":
        import cupy

        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            got += [(connected_components(A), want) for A, want in graphs]
        stream.synchronize()
    for v, want in got:
        assert v.device == device and v.nvals == want.size
        np.testing.assert_array_equal(O.to_host(v).to_dense(), want)
