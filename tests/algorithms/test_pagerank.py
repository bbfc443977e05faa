"""pagerank against networkx.pagerank (its scipy version).

Hypothesis graphs directed and undirected, weighted and structure-only,
with dangling and isolated vertices and self-loops; personalization, nstart
and dangling given as arrays, dicts or Vectors; tight (tol=1e-10) and
default tolerances; real graphs from tests/data; iteration counts and the
errors. Every body takes a ``device`` parameter (``oracle.DEVICES``): the
same body on a CUDA copy of the graph runs the GPU's fused kernel
(``kernels/cuda/pagerank.cu``) and the public-API loop over CuPy; the
kernel's branches (long in-rows, n not a multiple of 32, all-dangling
graphs, self-loops, int64 indices, batch boundaries) have their own cases.
"""

import importlib

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import oracle as O
from bitgraph.algorithms._common import in_csr, is_symmetric
from bitgraph.algorithms.link_analysis import PageRank
from bitgraph.formats.csr import CSR
from graph_strategies import graphs
from testdata import data_file

# the module (bitgraph.algorithms re-exports the function under its name)
pr_module = importlib.import_module("bitgraph.algorithms.link_analysis")

DEVICES = O.DEVICES


def pagerank(A, *args, fused=True, device="cpu", **kw):
    """bitgraph's pagerank through the fused kernel or the public-API loop,
    on a copy of A (and of any Vector argument) on ``device``; checks the
    result's types and device, and returns it with the ranks on the host."""
    A = O.on_device(A, device)
    kw = {k: O.on_device(v, device) if isinstance(v, bg.Vector) else v for k, v in kw.items()}
    res = pr_module.pagerank(A, *args, method="fused" if fused else "graphblas", **kw)
    assert isinstance(res, PageRank)
    assert isinstance(res.ranks, bg.Vector) and res.ranks.device == device
    assert res.ranks.dtype == np.float64 and res.ranks.size == A.nrows
    assert type(res.iterations) is int and type(res.converged) is bool
    assert type(res.error) is float
    return res._replace(ranks=O.to_host(res.ranks))


def _nx_ranks(G, n, **kw):
    r = nx.pagerank(G, **kw)
    return np.array([r[i] for i in range(n)])


def _l1(result, ref):
    return float(np.abs(result.ranks.to_dense() - ref).sum())


@st.composite
def distribution(draw, n, allow_none=True):
    """None, an array of n values >= 0 (some zero, sum > 0), a dict
    {vertex: value} naming some vertices (the rest count 0), or a Vector
    holding those entries (absent ones count 0)."""
    kinds = ["array", "dict", "vector"]
    kind = draw(st.sampled_from(["none"] + kinds if allow_none else kinds))
    if kind == "none":
        return None
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.random(n) * (rng.random(n) < rng.choice([0.3, 1.0]))
    a[rng.integers(0, n)] += 0.5  # sum > 0
    if kind == "array":
        return a
    if kind == "vector":
        idx = np.flatnonzero(a)
        return bg.Vector.from_coo(idx, a[idx], size=n)
    return {int(i): float(a[i]) for i in np.flatnonzero(a)}


def _as_nx(d):
    if isinstance(d, bg.Vector):
        idx, vals = d.to_coo()
        return dict(zip(idx.tolist(), vals.tolist()))
    return None if d is None else (dict(enumerate(d.tolist())) if isinstance(d, np.ndarray) else d)


@pytest.mark.parametrize("device", DEVICES)
@given(graphs(max_n=50), st.data())
@settings(max_examples=300)
def test_vs_networkx_tight(device, spec, data):
    n = spec.n
    p = data.draw(distribution(n), label="personalization")
    x0 = data.draw(distribution(n), label="nstart")
    dw = data.draw(distribution(n), label="dangling")
    alpha = data.draw(st.sampled_from([0.85, 0.5, 0.95, 0.0, 1.0]), label="alpha")
    fused = data.draw(st.booleans(), label="fused")
    G = spec.networkx()
    kw = dict(alpha=alpha, tol=1e-10, max_iter=300)
    res = pagerank(spec.matrix(bg), personalization=p, nstart=x0, dangling=dw, fused=fused,
                   device=device, **kw)
    assert res.ranks.dtype == np.float64 and res.ranks.nvals == n
    try:
        ref = _nx_ranks(G, n, personalization=_as_nx(p), nstart=_as_nx(x0),
                        dangling=_as_nx(dw), **kw)
    except nx.PowerIterationFailedConvergence:  # alpha = 1 on a periodic graph
        assert (res.converged, res.iterations) == (False, 300)
        return
    assert res.converged and 1 <= res.iterations <= 300
    assert res.error < n * 1e-10
    assert _l1(res, ref) < 1e-6
    assert abs(res.ranks.to_dense().sum() - 1.0) < 1e-9


@pytest.mark.parametrize("device", DEVICES)
@given(graphs(max_n=50), st.data())
@settings(max_examples=200)
def test_vs_networkx_default_tol(device, spec, data):
    n = spec.n
    p = data.draw(distribution(n), label="personalization")
    G = spec.networkx()
    ref = _nx_ranks(G, n, personalization=_as_nx(p))
    res = pagerank(spec.matrix(bg), personalization=p, fused=data.draw(st.booleans(), label="fused"),
                   device=device)
    assert res.converged
    assert _l1(res, ref) < 1e-6


@pytest.mark.parametrize("device", DEVICES)
@given(graphs(max_n=40), st.data())
@settings(max_examples=100)
def test_iterations_match_reference(device, spec, data):
    """The iteration count and the error are those of networkx's loop
    (replayed here with numpy: networkx does not report them); on the GPU
    with the iterations in one WHILE loop or in batches of any size between
    reads of the tally."""
    n = spec.n
    tol = data.draw(st.sampled_from([1e-3, 1e-6, 1e-10]), label="tol")
    max_iter = data.draw(st.integers(0, 60), label="max_iter")
    S = spec.scipy()
    out = np.asarray(S.sum(axis=1)).ravel()
    inv = np.divide(1.0, out, out=np.zeros(n), where=out != 0)
    P = (S.multiply(inv[:, None])).tocsr()
    x = np.full(n, 1.0 / n)
    dang = out == 0
    it, err, conv = 0, np.inf, False
    for _ in range(max_iter):
        xlast = x
        x = 0.85 * (x @ P + x[dang].sum() / n) + 0.15 / n
        err = np.abs(x - xlast).sum()
        it += 1
        if err < n * tol:
            conv = True
            break
    fused = data.draw(st.booleans(), label="fused")
    # 0: every iteration in one WHILE loop (the default), else batches of this many
    every = data.draw(st.sampled_from([0, 1, 2, 3, 8, 100]), label="cuda_check_every")
    with bg.settings.use(pagerank={"cuda_check_every": every or 8, "cuda_while": every == 0}):
        res = pagerank(spec.matrix(bg), tol=tol, max_iter=max_iter, fused=fused, device=device)
    assert (res.iterations, res.converged) == (it, conv)
    assert res.error == pytest.approx(err, rel=1e-6, abs=1e-15) if np.isfinite(err) else res.error == np.inf
    assert np.abs(res.ranks.to_dense() - x).sum() < 1e-9


@pytest.mark.parametrize("device", DEVICES)
def test_not_converged(device):
    A = bg.io.generators.grid2d(5, 5)
    res = pagerank(A, tol=1e-12, max_iter=2, device=device)
    assert isinstance(res, PageRank)
    assert res.iterations == 2 and res.converged is False and res.error > 0
    assert res.ranks.nvals == 25
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(nx.grid_2d_graph(5, 5), tol=1e-12, max_iter=2)
    for fused in (True, False):
        zero = pagerank(A, max_iter=0, fused=fused, device=device)
        assert (zero.iterations, zero.converged, zero.error) == (0, False, np.inf)
        np.testing.assert_allclose(zero.ranks.to_dense(), 1 / 25)
        x0 = np.arange(1.0, 26.0)
        start = pagerank(A, max_iter=0, nstart=x0, fused=fused, device=device)
        np.testing.assert_allclose(start.ranks.to_dense(), x0 / x0.sum())


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_weights_and_dtypes(fused, device):
    """Any value dtype reads as float weights (bool: 1); structure-only as 1."""
    r, c = [0, 0, 1, 2, 3], [1, 2, 2, 0, 0]
    w = [1, 3, 2, 5, 1]
    G = nx.DiGraph()
    G.add_nodes_from(range(5))
    G.add_weighted_edges_from(zip(r, c, w))
    ref = _nx_ranks(G, 5, tol=1e-12)
    ref1 = _nx_ranks(G, 5, tol=1e-12, weight=None)
    for dt in bg.kernels.registry.DTYPES:
        A = bg.Matrix.from_coo(r, c, np.array(w, dt), nrows=5, ncols=5)
        assert not A.iso
        want = ref1 if dt == np.bool_ else ref
        assert _l1(pagerank(A, tol=1e-12, fused=fused, device=device), want) < 1e-9, dt
    assert _l1(pagerank(bg.Matrix.from_coo(r, c, nrows=5, ncols=5), tol=1e-12, fused=fused,
                        device=device), ref1) < 1e-9
    # a zero-weight row dangles, as in networkx
    G0 = nx.DiGraph()
    G0.add_nodes_from(range(3))
    G0.add_weighted_edges_from([(0, 1, 0.0), (1, 2, 1.0)])
    A0 = bg.Matrix.from_coo([0, 1], [1, 2], [0.0, 1.0], nrows=3, ncols=3)
    assert _l1(pagerank(A0, tol=1e-12, fused=fused, device=device),
               _nx_ranks(G0, 3, tol=1e-12)) < 1e-9


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_transposed_view(fused, device):
    G = nx.gnp_random_graph(30, 0.1, seed=3, directed=True)
    A = bg.Matrix.from_networkx(G)
    ref = _nx_ranks(G.reverse(), 30, tol=1e-12)
    assert _l1(pagerank(A.T, tol=1e-12, fused=fused, device=device), ref) < 1e-9


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_symmetric_pattern_asymmetric_weights(fused, device):
    """A weighted graph whose pattern is known symmetric still pulls A(i, j)
    (its transpose), not A(j, i) (the fused CPU kernel read its own CSR)."""
    r, c, w = [0, 1, 1, 2], [1, 0, 2, 1], [1.0, 5.0, 1.0, 3.0]
    A = bg.Matrix.from_coo(r, c, w, nrows=3, ncols=3)
    assert is_symmetric(A)  # the fact is cached (and travels to the GPU)
    G = nx.DiGraph()
    G.add_weighted_edges_from(zip(r, c, w))
    assert _l1(pagerank(A, tol=1e-12, max_iter=500, fused=fused, device=device),
               _nx_ranks(G, 3, tol=1e-12, max_iter=500)) < 1e-9


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
@pytest.mark.parametrize("pull", ["auto", "tiles", "stripes"])
def test_empty_and_single(fused, device, pull):
    """No vertex, one, a self-loop, and vertices without an edge, by each of
    the GPU's pulls (the CPU ignores settings.pagerank.cuda_pull)."""
    with bg.settings.use(pagerank={"cuda_pull": pull}):
        res = pagerank(bg.Matrix(bool, 0, 0), fused=fused, device=device)
        assert res.ranks.size == 0 and res.converged and res.iterations == 0
        one = pagerank(bg.Matrix(bool, 1, 1), fused=fused, device=device)
        assert one.ranks.to_dense().tolist() == [1.0]
        assert one.converged and one.iterations == 1
        loop = pagerank(bg.Matrix.from_coo([0], [0], nrows=1, ncols=1), fused=fused,
                        device=device)
        assert loop.ranks.to_dense().tolist() == [1.0] and loop.converged
        none = pagerank(bg.Matrix(bool, 5, 5), fused=fused, device=device)
        assert none.ranks.to_dense().tolist() == [0.2] * 5 and none.converged


# --- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
def test_errors(device):
    A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3)
    for bad in (-0.1, 1.5):
        with pytest.raises(bg.InvalidValue, match="pagerank: alpha must be in"):
            pagerank(A, device=device, alpha=bad)
    with pytest.raises(TypeError, match="pagerank: alpha must be a real number"):
        pagerank(A, device=device, alpha="0.85")
    with pytest.raises(bg.InvalidValue, match="pagerank: alpha must not be NaN"):
        pagerank(A, device=device, alpha=np.nan)
    with pytest.raises(bg.InvalidValue, match="pagerank: tol must be >= 0"):
        pagerank(A, device=device, tol=-1)
    with pytest.raises(bg.InvalidValue, match="pagerank: max_iter must be >= 0"):
        pagerank(A, device=device, max_iter=-1)
    with pytest.raises(TypeError, match="pagerank: max_iter must be an int"):
        pagerank(A, device=device, max_iter=2.5)
    # networkx raises ZeroDivisionError for an all-zero personalization
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(nx.path_graph(3), personalization={0: 0})
    for name in ("personalization", "nstart", "dangling"):
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} sums to 0"):
            pagerank(A, device=device, **{name: np.zeros(3)})
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} sums to 0"):
            pagerank(A, device=device, **{name: {1: 0.0}})
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} must be >= 0 and not NaN; vertex 1"):
            pagerank(A, device=device, **{name: [1.0, -1.0, 2.0]})
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} must be >= 0 and not NaN; vertex 2"):
            pagerank(A, device=device, **{name: [1.0, 1.0, np.nan]})
        with pytest.raises(bg.DimensionMismatch, match=f"pagerank: {name} must have one value per vertex \\(3\\)"):
            pagerank(A, device=device, **{name: [1.0, 2.0]})
        with pytest.raises(bg.InvalidIndex, match=f"pagerank: {name} key 3 is out of range"):
            pagerank(A, device=device, **{name: {3: 1.0}})
        with pytest.raises(TypeError, match=f"pagerank: {name} keys must be vertex ids"):
            pagerank(A, device=device, **{name: {"a": 1.0}})
        with pytest.raises(bg.DimensionMismatch, match=f"pagerank: {name} must have one value per vertex \\(3\\)"):
            pagerank(A, device=device, **{name: bg.Vector.from_coo([0], [1.0], size=2)})
    with pytest.raises(bg.InvalidValue, match="pagerank: unknown method 'pull'"):
        pr_module.pagerank(O.on_device(A, device), method="pull")
    Winf = bg.Matrix.from_coo([0, 1], [1, 2], [1.0, np.inf], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match="pagerank: the weighted out-degree of vertex 1 is inf"):
        pagerank(Winf, device=device)
    W = bg.Matrix.from_coo([0, 1], [1, 2], [1.0, -2.0], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match="pagerank: edge weights must be >= 0 and not NaN; stored entry 1 has weight -2.0"):
        pagerank(W, device=device)
    with pytest.raises(bg.DimensionMismatch, match="pagerank: a graph's adjacency"):
        pagerank(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3), device=device)


@pytest.mark.gpu
def test_vector_on_another_device():
    """A bitgraph Vector argument on the other device than the graph is a
    DeviceError naming both; host arrays, dicts and CuPy arrays move."""
    cupy = pytest.importorskip("cupy")
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=4, ncols=4)
    p = np.array([1.0, 0.0, 2.0, 1.0])
    for name in ("personalization", "nstart", "dangling"):
        with pytest.raises(bg.DeviceError, match=f"pagerank: {name} is a Vector on 'cpu' and the graph is on 'cuda'"):
            pr_module.pagerank(A.to("cuda"), **{name: bg.Vector.from_dense(p)})
        with pytest.raises(bg.DeviceError, match=f"pagerank: {name} is a Vector on 'cuda' and the graph is on 'cpu'"):
            pr_module.pagerank(A, **{name: bg.Vector.from_dense(p).to("cuda")})
    ref = pr_module.pagerank(A, personalization=p, tol=1e-12).ranks.to_dense()
    for arg in (p, cupy.asarray(p), {0: 1.0, 2: 2.0, 3: 1.0}, bg.Vector.from_dense(p, device="cuda")):
        for method in pr_module.METHODS:
            got = pr_module.pagerank(A.to("cuda"), personalization=arg, tol=1e-12, method=method)
            assert got.ranks.device == "cuda"
            np.testing.assert_allclose(O.to_host(got.ranks).to_dense(), ref, rtol=0, atol=1e-12)
    # a CuPy array with a CPU graph comes to the host
    got = pr_module.pagerank(A, personalization=cupy.asarray(p), tol=1e-12)
    assert got.ranks.device == "cpu"
    np.testing.assert_allclose(got.ranks.to_dense(), ref, rtol=0, atol=1e-12)


# --- real graphs -----------------------------------------------------------------------------
REAL = ["karate.mtx", "west0067.mtx", "cryg2500.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx",
        "ldbc-undirected-example.mtx", "ldbc-wcc-example.mtx", "pushpull.mtx", "bcsstk13.mtx",
        "test_BF.mtx", "LFAT5_hypersparse.mtx", "tree-example.mtx"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
@pytest.mark.parametrize("name", REAL)
def test_real_graphs(name, fused, device):
    path = data_file(name)
    A = bg.io.read(path)
    if A.values is not None and A.values.dtype.kind == "f" and (A.values < 0).any():
        r, c, v = A.to_coo()  # PageRank over |weights|
        A = bg.Matrix.from_coo(r, c, np.abs(v), nrows=A.nrows, ncols=A.ncols)
    G = _nx_of(A)
    for tol in (1e-10, 1e-6):
        ref = _nx_ranks(G, A.nrows, tol=tol, max_iter=500)
        res = pagerank(A, tol=tol, max_iter=500, fused=fused, device=device)
        assert res.converged
        assert _l1(res, ref) < 1e-6


# --- the fused kernels' branches (CPU numba, CUDA pagerank.cu) ---------------------------------
def _nx_of(A):
    """networkx DiGraph of a CPU Matrix (weights as 'weight', structure-only: none)."""
    r, c, v = A.to_coo()
    G = nx.DiGraph()
    G.add_nodes_from(range(A.nrows))
    if A.iso:
        G.add_edges_from(zip(r.tolist(), c.tolist()))
    else:
        G.add_weighted_edges_from(zip(r.tolist(), c.tolist(), v.astype(float).tolist()))
    return G


def _check_both(A, device, tol=1e-10, **kw):
    """Both methods on ``device`` against networkx and against each other
    (same iteration count: the fused kernel and the public-API loop add in
    other orders, not other iterations)."""
    ref = _nx_ranks(_nx_of(A), A.nrows, tol=tol, max_iter=500, **kw)
    got = [pagerank(A, tol=tol, max_iter=500, fused=f, device=device, **kw) for f in (True, False)]
    for res in got:
        assert res.converged
        assert _l1(res, ref) < 1e-6
        assert abs(res.ranks.to_dense().sum() - 1.0) < 1e-9
    assert got[0].iterations == got[1].iterations
    return got[0]


@pytest.mark.parametrize("device", DEVICES)
def test_hub_with_a_long_in_row(device):
    """Every vertex points to vertex 0 (an in-row of n - 1 entries: on the
    GPU a heavy row, cut into chunks of settings.pagerank.cuda_chunk) and
    the mean row is short (1-lane groups)."""
    n = 20_000
    src = np.arange(1, n)
    rows = np.concatenate([src, [0, 0]])
    cols = np.concatenate([np.zeros(n - 1, np.int64), [1, 2]])
    A = bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n)
    res = _check_both(A, device)
    assert res.ranks.to_dense().argmax() == 0
    W = bg.Matrix.from_coo(rows, cols, np.arange(1, rows.size + 1, dtype=np.float32),
                           nrows=n, ncols=n)
    _check_both(W, device)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weighted", [False, True])
def test_heavy_rows_cut_into_chunks(weighted, device):
    """Forced small settings.pagerank.cuda_split_above / cuda_chunk /
    cuda_warp_above / cuda_lanes: on the GPU every row over the split (here
    most rows, or all) is cut into chunks whose sums the last chunk adds,
    rows over warp_above take a warp each; a chunk of one entry, chunks not
    dividing the row, a split above every row. Same iterations as the
    default settings, ranks within 1e-12, networkx within 1e-6."""
    rng = np.random.default_rng(28)
    n = 1000
    # two hubs (in-rows of n - 1 and n / 2 entries), a long path, random edges
    r = np.concatenate([np.arange(1, n), np.arange(0, n, 2), np.arange(n - 1),
                        rng.integers(0, n, 4 * n)])
    c = np.concatenate([np.zeros(n - 1, np.int64), np.full(n // 2, 7), np.arange(1, n),
                        rng.integers(0, n, 4 * n)])
    A = (bg.Matrix.from_coo(r, c, rng.integers(1, 5, r.size).astype(np.float32), nrows=n,
                            ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n))
    ref = _check_both(A, device)
    for split, chunk, warp_above, lanes in ((0, 1, 0, 0), (1, 3, 0, 0), (4, 4, 2, 0),
                                            (8, 64, 3, 1), (100, 7, 4, 2), (n, 5, 0, 0),
                                            (n, 5, 6, 8), (1024, 2048, 32, 32)):
        with bg.settings.use(pagerank={"cuda_split_above": split, "cuda_chunk": chunk,
                                       "cuda_warp_above": warp_above, "cuda_lanes": lanes}):
            res = pagerank(A, tol=1e-10, max_iter=500, device=device)
            assert res.iterations == ref.iterations, (split, chunk, warp_above, lanes)
            assert np.abs(res.ranks.to_dense() - ref.ranks.to_dense()).sum() < 1e-12
            p = rng.random(n)
            res = pagerank(A, tol=1e-10, max_iter=500, personalization=p, device=device)
            want = _nx_ranks(_nx_of(A), n, tol=1e-10, max_iter=500,
                             personalization=dict(enumerate(p)))
            assert _l1(res, want) < 1e-6, (split, chunk)


def _kernel_graphs(n, per, weighted, seed):
    """The GPU kernels' branches' graphs on n vertices: two hubs (in-rows of
    n - 1 and n / 2 entries), a long path and per * n random edges (integer
    weights 1-4 when ``weighted``), the same with int64 indices, a path, a
    star."""
    rng = np.random.default_rng(seed)
    r = np.concatenate([np.arange(1, n), np.arange(0, n, 2), np.arange(n - 1),
                        rng.integers(0, n, per * n)])
    c = np.concatenate([np.zeros(n - 1, np.int64), np.full((n + 1) // 2, 7), np.arange(1, n),
                        rng.integers(0, n, per * n)])
    A = (bg.Matrix.from_coo(r, c, rng.integers(1, 5, r.size).astype(np.float32), nrows=n,
                            ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n))
    S = A.to_scipy().tocsr()
    A64 = bg.Matrix._from_csr(CSR(S.indptr.astype(np.int64), S.indices.astype(np.int64),
                                  None if A.iso else S.data.astype(np.float64), n, n))
    path = bg.Matrix.from_coo(np.arange(n - 1), np.arange(1, n), nrows=n, ncols=n)
    star = bg.Matrix.from_coo(np.arange(1, n), np.zeros(n - 1, np.int64), nrows=n, ncols=n)
    return A, A64, path, star


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("rank", [np.float64, np.float32])
def test_tiled_pull(weighted, rank, device):
    """settings.pagerank.cuda_pull "tiles", "stripes" and "rows" (the GPU's
    three pulls; the CPU ignores them): tiles of a warp's 256 entries in
    blocks of 32 to 1024 threads, so hubs' in-rows over many tiles and rows
    over tile boundaries; the hot
    ranks in shared memory (relabelled hubs first: 0, a few, or 192 KiB of
    them) or none (in the stored order); stripes of 100 rows over 3 pieces a
    block (pieces across stripes, a hub's stripe over pieces) or one stripe
    of every row ("auto" stripes a graph relabelled hubs first); int64
    indices, a long path, a star.
    Every setting gives the default's iterations (at a tol clear of the
    changes) and ranks within 1e-12 (float64) or F32_SAME_L1 (float32)."""
    n = 2000 + 5
    run = pagerank32 if rank == np.float32 else pagerank
    for M in _kernel_graphs(n, 6, weighted, seed=29):
        tol = _tol_between_errors(M) if rank == np.float32 else 1e-10
        ref = run(M, tol=tol, max_iter=500, device=device)
        assert ref.converged
        for pull, threads, hot, relabel in (("tiles", 32, 0, False), ("tiles", 64, 64, True),
                                            ("tiles", 1024, 196608, True),
                                            ("tiles", 96, 196608, False), ("rows", 256, 0, True),
                                            ("auto", 32, 40, True), ("stripes", 0, 800, False),
                                            ("stripes", 0, 131072, True)):
            # stripes: hot is cuda_stripe_bytes (800: 100 rows a stripe, 3 pieces a block)
            with bg.settings.use(pagerank={"cuda_pull": pull, "cuda_tile_threads": threads or 32,
                                           "cuda_hot_bytes": hot, "relabel": relabel,
                                           "cuda_check_every": 3, "cuda_while": False,
                                           "cuda_stripe_bytes": hot if pull == "stripes"
                                           else 131072,
                                           "cuda_stripe_pieces": 3 if hot == 800 else 0}):
                st = bg.Stats()
                res = run(M, tol=tol, max_iter=500, device=device, stats=st)
            assert res.iterations == ref.iterations, (pull, threads, hot, relabel)
            if rank == np.float32:
                assert _l1_between(res, ref) < F32_SAME_L1
            else:
                assert np.abs(res.ranks.to_dense() - ref.ranks.to_dense()).sum() < 1e-12
            if device == "cuda":
                tiled = pull == "tiles"
                striped = pull == "stripes" or (pull == "auto" and relabel)
                assert st.metrics["pull"] == ("tiles" if tiled else "stripes" if striped
                                              else "rows")
                if pull == "stripes":
                    assert st.metrics["stripe_rows"] == hot // 8
                    assert st.metrics["stripes"] == -(-n // st.metrics["stripe_rows"])
                if tiled and relabel:
                    assert st.metrics["hot"] == min(n, hot // np.dtype(rank).itemsize)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("spec", ["kron:10", "urand:10:24"])
def test_repeated_runs(device, spec):
    """Runs on one graph reuse its cached plan and workspaces: the same call
    gives bit-identical ranks, iterations and error (the GPU's sums are in a
    fixed order, or fixed point: both run the striped pull, kron-10 relabelled
    hubs first), and a later run never changes an earlier result."""
    A = bg.io.generators.from_spec(spec)
    n = A.nrows
    A = O.on_device(A, device)
    first = pr_module.pagerank(A, tol=1e-9)
    kept = O.to_host(first.ranks).to_dense().copy()
    p = np.random.default_rng(3).random(n)
    for kw in ({"personalization": p}, {"max_iter": 3}, {"tol": 1e-9}, {"max_iter": 0},
               {"alpha": 0.5}):
        pr_module.pagerank(A, **kw)
        with bg.settings.use(pagerank={"cuda_split_above": 16, "cuda_check_every": 3,
                                       "cuda_while": False}):
            pr_module.pagerank(A, **kw)
    st = bg.Stats()
    again = pr_module.pagerank(A, tol=1e-9, stats=st)
    if device == "cuda":
        assert st.metrics["pull"] == "stripes"
    assert np.array_equal(O.to_host(first.ranks).to_dense(), kept)
    assert np.array_equal(O.to_host(again.ranks).to_dense(), kept)
    assert (again.iterations, again.converged, again.error) == (
        first.iterations, first.converged, first.error)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [2, 31, 33, 63, 65, 1000, 4099])
def test_n_not_a_multiple_of_32(n, device):
    """Rows past n in the last warp are idle groups; every lane count."""
    rng = np.random.default_rng(n)
    m = 6 * n
    A = bg.Matrix.from_coo(rng.integers(0, n, m), rng.integers(0, n, m), nrows=n, ncols=n)
    ref = _check_both(A, device)
    for lanes in (1, 4, 32):
        with bg.settings.use(pagerank={"cuda_lanes": lanes}):
            res = pagerank(A, tol=1e-10, max_iter=500, device=device)
        assert res.iterations == ref.iterations
        assert np.abs(res.ranks.to_dense() - ref.ranks.to_dense()).sum() < 1e-12


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_all_dangling(fused, device):
    """No edge (or only zero weights): every vertex dangles, the ranks are
    the personalization (dangling rank goes to p) from the first iteration."""
    n = 70
    p = np.arange(1.0, n + 1)
    for A in (bg.Matrix(bool, n, n),
              bg.Matrix.from_coo(np.arange(n), (np.arange(n) + 1) % n, np.zeros(n), nrows=n,
                                 ncols=n)):
        res = pagerank(A, fused=fused, device=device)
        np.testing.assert_allclose(res.ranks.to_dense(), 1 / n, rtol=1e-12)
        assert res.converged and res.iterations == 1
        res = pagerank(A, personalization=p, tol=1e-12, fused=fused, device=device)
        assert res.converged
        np.testing.assert_allclose(res.ranks.to_dense(), p / p.sum(), rtol=0, atol=1e-12)
        ref = _nx_ranks(_nx_of(A), n, personalization=dict(enumerate(p)), tol=1e-12)
        assert _l1(res, ref) < 1e-9


@pytest.mark.parametrize("device", DEVICES)
def test_self_loops(device):
    """Self-loops count in the out-degree and feed a vertex its own rank."""
    n = 50
    rng = np.random.default_rng(5)
    r = np.concatenate([np.arange(n), rng.integers(0, n, 3 * n)])
    c = np.concatenate([np.arange(n), rng.integers(0, n, 3 * n)])
    _check_both(bg.Matrix.from_coo(r, c, nrows=n, ncols=n), device)
    w = rng.integers(1, 9, r.size).astype(np.int16)
    _check_both(bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dup_op="plus"), device)


@pytest.mark.parametrize("device", DEVICES)
def test_int64_indices(device):
    """CSRs with int64 indices (as from scipy with int64) take the kernels'
    int64 specialisations: a structure-only graph known symmetric pulls
    over its own CSR; a weighted A.T over A's own CSR."""
    A32 = bg.io.generators.from_spec("kron:9")
    S = A32.to_scipy().tocsr()
    S64 = sp.csr_array((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
                       shape=S.shape)
    A64 = bg.Matrix._from_csr(CSR(S64.indptr, S64.indices, None, S.shape[0], S.shape[1]))
    assert A64.indices.dtype == np.int64 and A64.iso
    assert is_symmetric(A64) and in_csr(A64).indices.dtype == np.int64
    ref = _check_both(A32, device)
    res = _check_both(A64, device)
    assert res.iterations == ref.iterations
    rng = np.random.default_rng(9)
    W64 = bg.Matrix.from_scipy(sp.csr_array(
        (rng.random(S.nnz) + 0.5, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
        shape=S.shape))
    assert W64.indices.dtype == np.int64
    _check_both(W64.T.copy(), device)  # a weighted graph (its in-CSR: a transpose)
    G = _nx_of(W64).reverse()
    for fused in (True, False):
        got = pagerank(W64.T, tol=1e-10, max_iter=500, fused=fused, device=device)
        assert _l1(got, _nx_ranks(G, W64.nrows, tol=1e-10, max_iter=500)) < 1e-6


@pytest.mark.parametrize("device", DEVICES)
def test_options_on_a_larger_graph(device):
    """Personalization, nstart and dangling together, as arrays, on a graph
    past one block of the GPU launch; alpha 0 and 1."""
    A = bg.io.generators.from_spec("urand:12:4")
    n = A.nrows
    rng = np.random.default_rng(1)
    p, x0, dw = rng.random(n), rng.random(n), rng.random(n) * (rng.random(n) < 0.2)
    dw[0] += 1.0
    for alpha in (0.85, 0.0, 0.5):
        _check_both(A, device, alpha=alpha, personalization=dict(enumerate(p)),
                    nstart=dict(enumerate(x0)), dangling=dict(enumerate(dw)))


@pytest.mark.parametrize("device", DEVICES)
def test_stats(device):
    """stats: the method and the kernel that ran (and the GPU's kernel time)."""
    A = bg.io.generators.from_spec("kron:8")
    st_ = bg.Stats()
    pagerank(A, stats=st_, device=device)
    assert st_.method == "fused" and st_.kernels == [("pagerank", "csr", device, "pull")]
    if device == "cuda":
        assert st_.metrics["kernel_ms"] > 0 and st_.metrics["lanes"] in (1, 2, 4, 8, 16, 32)
        assert st_.metrics["launches"] >= 1
        # the driver of the GPU machines runs WHILE loops (CUDA 12.4+): one launch a run
        assert st_.metrics["loop"] == "while"
        assert st_.metrics["launches"] == st_.metrics["iterations"] + (
            st_.metrics["iterations"] & 1)
    st_ = bg.Stats()
    pagerank(A, stats=st_, fused=False, device=device)
    assert st_.method == "graphblas"


@pytest.mark.gpu
def test_float64_ranks_take_more_lanes_on_long_light_rows():
    """The GPU's light rows: a lane per four entries of the median row, per two for float64
    ranks where that median is 8 or more (urand, 16 a row: 8 lanes, float32 4); short rows
    (a grid's 4) keep one lane either way. The ranks of 20 iterations (no stop rule) equal
    the CPU's at every width."""
    for spec, lanes64, lanes32 in (("urand:11:16", 8, 4), ("grid:40x40", 1, 1)):
        A = bg.io.generators.from_spec(spec)
        G = A.to("cuda")
        for dtype, lanes in ((np.float64, lanes64), (np.float32, lanes32)):
            st_ = bg.Stats()
            got = pr_module.pagerank(G, tol=0.0, max_iter=20, dtype=dtype, stats=st_)
            assert st_.metrics["lanes"] == lanes, (spec, dtype)
            want = pr_module.pagerank(A, tol=0.0, max_iter=20, dtype=dtype)
            assert got.ranks.dtype == dtype and got.iterations == want.iterations == 20
            diff = np.abs(got.ranks.to("cpu").to_dense().astype(np.float64)
                          - want.ranks.to_dense()).sum()
            assert diff < (1e-12 if dtype == np.float64 else F32_SAME_L1), (spec, dtype, diff)


# --- the CPU iteration's relabelling and prefetches (settings.pagerank.cpu_*) ------------------
_CPU_KNOBS = [{"relabel": r, "cpu_prefetch": a, "cpu_gather_ahead": g,
               "cpu_gather_min_distance": 0}
              for r, a, g in [(True, 256, 96), (False, 256, 96), (True, 0, 0), (False, 0, 0),
                              (True, 1, 1), ("auto", 3, 5)]]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("knobs", _CPU_KNOBS, ids=lambda k: "-".join(map(str, k.values())))
def test_relabel_and_prefetch(knobs, device):
    """Relabelled by out-degree or not, every prefetch distance (0: none; the
    GPU reads only relabel): the ranks of networkx, in the original
    numbering, on a skewed directed graph with dangling vertices, weighted
    and structure-only, with personalization, nstart and dangling arrays
    (permuted with the vertices); the same iterations as the public-API
    loop, and the CPU's ranks without relabelling."""
    A = bg.io.generators.from_spec("kron:9")
    n = A.nrows
    r, c, _ = A.to_coo()
    keep = (r * 7 + c) % 5 != 0  # directed, some vertices dangling
    rng = np.random.default_rng(5)
    D = bg.Matrix.from_coo(r[keep], c[keep], nrows=n, ncols=n)
    W = bg.Matrix.from_coo(r[keep], c[keep], rng.random(int(keep.sum())) + 0.1, nrows=n, ncols=n)
    p, x0, dw = rng.random(n), rng.random(n), rng.random(n) * (rng.random(n) < 0.3)
    dw[3] += 1.0
    for M in (A, D, W, W.T):  # W.T: a transposed view
        with bg.settings.use(pagerank=knobs):
            plain = _check_both(M, device)
            opts = _check_both(M, device, personalization=dict(enumerate(p)),
                               nstart=dict(enumerate(x0)), dangling=dict(enumerate(dw)))
            if device == "cuda":
                st_ = bg.Stats()
                pagerank(M, stats=st_, device=device)
                if knobs["relabel"] in (True, False):
                    assert st_.metrics["relabel"] is knobs["relabel"]
        with bg.settings.use(pagerank={"relabel": False, "cpu_gather_ahead": 0}):
            ref = pagerank(M, tol=1e-10, max_iter=500)
        # the GPU adds in another order: an iteration more or less at the threshold
        assert abs(plain.iterations - ref.iterations) <= (device == "cuda")
        same = plain.iterations == ref.iterations
        assert np.abs(plain.ranks.to_dense() - ref.ranks.to_dense()).sum() < (
            1e-12 if same else 1e-6)
        assert opts.converged


def test_relabel_auto_rule():
    """"auto" relabels a skewed graph with enough entries a vertex (the
    PageRank family's min_average_degree and skew), not a mesh nor a
    sparse one; a bad value is an error naming it."""
    from bitgraph import settings as bs

    rules = bs.current().pagerank
    assert pr_module._relabel(bg.io.generators.from_spec("kron:10"), rules) is True
    assert pr_module._relabel(bg.io.generators.from_spec("grid:32x32"), rules) is False
    assert pr_module._relabel(bg.io.generators.from_spec("kron:10"),
                              bs.PageRank(min_average_degree=10**6)) is False
    with bg.settings.use(pagerank={"relabel": "yes"}):
        with pytest.raises(bg.InvalidValue, match="relabel"):
            pr_module.pagerank(bg.io.generators.from_spec("kron:6"))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("weighted", [False, True])
def test_relabelled_csr(index, weighted, device):
    """The relabelled pull CSR is P A' P' for the out-degree order (hubs
    first, ties by id), empty rows and int64 indices included; inv_s
    permuted with it; cached on the matrix; on the GPU built there, each
    row sorted by the new ids."""
    rng = np.random.default_rng(11)
    n = 300
    r = np.concatenate([rng.integers(0, n, 2000), np.zeros(50, np.int64)])
    c = np.concatenate([rng.integers(0, n // 2, 2000), np.arange(50)])
    v = rng.random(r.size) + 0.5 if weighted else None
    A = bg.Matrix.from_coo(r, c, v, nrows=n, ncols=n, dup_op="plus" if weighted else None)
    S = A.to_scipy().tocsr()
    AT = CSR(S.T.tocsr().indptr.astype(index), S.T.tocsr().indices.astype(index),
             S.T.tocsr().data.astype(np.float64) if weighted else None, n, n)
    inv_s = rng.random(n)
    if device == "cuda":
        import cupy

        A = A.to("cuda")
        AT = CSR(*(cupy.asarray(a) if a is not None else None
                   for a in (AT.indptr, AT.indices, AT.values)), n, n)
        order, R, inv_r = pr_module._relabelled(A, AT, cupy.asarray(inv_s))
        assert isinstance(R.indices, cupy.ndarray) and isinstance(inv_r, cupy.ndarray)
        order, inv_r = order.get(), inv_r.get()
        R = CSR(R.indptr.get(), R.indices.get(), None if R.values is None else R.values.get(),
                n, n)
        assert all((np.diff(R.indices[R.indptr[k]:R.indptr[k + 1]]) > 0).all() for k in range(n))
    else:
        order, R, inv_r = pr_module._relabelled(A, AT, inv_s)
    degree = np.diff(S.indptr)
    assert np.all(np.diff(degree[order]) <= 0) and order[0] == 0
    assert R.indptr.dtype == index and R.indices.dtype == index
    got = sp.csr_array((R.values if weighted else np.ones(R.indices.size), R.indices, R.indptr),
                       shape=(n, n))
    want = S.T.tocsr()[order][:, order]
    assert abs(got - want).sum() == 0 and got.nnz == want.nnz
    assert np.array_equal(inv_r, inv_s[order])
    if device == "cpu":
        assert pr_module._relabelled(A, AT, inv_s) is pr_module._relabelled(A, None, None)


def test_far_gathers_rule():
    """The gather prefetch runs where the sampled median |i - j| of the
    pulled A' reaches settings.pagerank.cpu_gather_min_distance (a random
    graph's, not a mesh's in its natural order, nor an empty graph's) and y
    is at least cpu_gather_min_bytes."""
    from bitgraph import settings as bs

    rules = bs.PageRank(cpu_gather_min_bytes=0)
    far = lambda spec, r=rules: pr_module._far_gathers(  # noqa: E731
        pr_module._pull_csr(bg.io.generators.from_spec(spec)), r)
    assert far("urand:14:4") is True
    assert far("grid:128x128") is False
    assert far("grid:128x128", bs.PageRank(cpu_gather_min_distance=1,
                                           cpu_gather_min_bytes=0)) is True
    # by default a y of 16,384 vertices (128 KiB) is too small; 400,000 (3.2 MB) is not
    assert far("urand:14:4", bs.current().pagerank) is False
    n = 400_000
    rng = np.random.default_rng(2)
    big = CSR(np.arange(0, 2 * n + 1, 2, dtype=np.int64), rng.integers(0, n, 2 * n), None, n, n)
    assert pr_module._far_gathers(big, bs.current().pagerank) is True
    assert pr_module._far_gathers(CSR(np.zeros(4, np.int32), np.zeros(0, np.int32), None, 3, 3),
                                  rules) is False



@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_cpu_plan_and_scratch(dtype):
    """The CPU run keeps its plan (row ranges, prefetch rule) and two scratch
    rank arrays on the matrix: a second call reuses the pair, returns
    bit-identical ranks in arrays of its own (never a scratch one); calls
    from several threads at once each take a pair of their own and give the
    same ranks; the pool's ranges hold about cpu_chunk_work each (as many
    a thread, one at least, four at most), and every size gives the ranks
    of networkx."""
    from concurrent.futures import ThreadPoolExecutor

    from bitgraph.algorithms._common import known
    from bitgraph.kernels.cpu import num_threads

    A = bg.io.generators.from_spec("kron:11")
    n = A.nrows
    key = ("scratch", np.dtype(dtype).str)
    with bg.settings.use(cpu={"serial_below": 0}):
        first = pr_module.pagerank(A, tol=1e-10, dtype=dtype)
        kept = first.ranks.to_dense().copy()
        (pair,) = known(A, "pagerank_cpu", key=key)
        again = pr_module.pagerank(A, tol=1e-10, dtype=dtype)
        assert known(A, "pagerank_cpu", key=key) == [pair]
        for r in (first, again):
            assert not any(np.shares_memory(r.ranks._values, a) for a in pair)
        assert np.array_equal(first.ranks.to_dense(), kept)
        assert np.array_equal(again.ranks.to_dense(), kept)
        with ThreadPoolExecutor(4) as pool:
            runs = list(pool.map(lambda _: pr_module.pagerank(A, tol=1e-10, dtype=dtype),
                                 range(8)))
        assert all(np.array_equal(r.ranks.to_dense(), kept) for r in runs)
        assert 1 <= len(known(A, "pagerank_cpu", key=key)) <= 5
        want = _nx_ranks(_nx_of(A), n, tol=1e-10)
        threads = num_threads()
        cfg = bg.settings.current()
        total = int(pr_module._pull_csr(A).indices.size) + n
        # a work of threads + 1 ranges: rounded up to whole ranges a thread (2 each)
        odd = (-(-total // (threads + 1)), min(-(-(threads + 1) // threads) * threads, n))
        for work, ranges in ((1, min(4 * threads, n)), (10**12, threads), odd):
            with bg.settings.use(pagerank={"cpu_chunk_work": work}):
                res = pr_module.pagerank(A, tol=1e-10, dtype=dtype)
                chunks, _ = pr_module._cpu_plan(A, pr_module._pull_csr(A), False, 8,
                                                bg.settings.current())
            assert chunks.size - 1 == ranges and chunks[0] == 0 and chunks[-1] == n
            assert np.all(np.diff(chunks) > 0)
            assert np.abs(res.ranks.to_dense() - want).sum() < (1e-9 if dtype == np.float64
                                                               else 1e-5)
        # below settings.cpu.serial_below entries: one range
        chunks, _ = pr_module._cpu_plan(A, pr_module._pull_csr(A), False, 8,
                                        cfg.replace(cpu={"serial_below": 10**12}))
        assert chunks.tolist() == [0, n]


def test_cpu_nstart_uniform_or_given():
    """The uniform start made by the call (overwritten in place, never
    permuted) and the same start given as nstart (copied, or permuted with
    the relabelled vertices) give the same ranks; the caller's nstart is
    left as it was."""
    for spec, relabel in (("kron:10", True), ("grid:20x30", False)):
        A = bg.io.generators.from_spec(spec)
        n = A.nrows
        x0 = np.full(n, 1.0 / n)
        with bg.settings.use(pagerank={"relabel": relabel}):
            made = pr_module.pagerank(A, tol=1e-10)
            given_ = pr_module.pagerank(A, tol=1e-10, nstart=x0)
        assert np.array_equal(x0, np.full(n, 1.0 / n))
        assert made.iterations == given_.iterations
        assert np.abs(made.ranks.to_dense() - given_.ranks.to_dense()).sum() < 1e-15


@pytest.mark.parametrize("rank", [np.float64, np.float32])
def test_cpu_kernel_sums_in_one_order(rank):
    """A structure-only row sums its gathers in the same order with or
    without the gather prefetch, in one range or several: the same bits
    (uniform dw and teleport as scalars, or per vertex); the two forms of
    the update agree to rounding."""
    from bitgraph.kernels.cpu import indptr_chunks
    from bitgraph.kernels.cpu.pagerank import pagerank_run

    rng = np.random.default_rng(11)
    n = 300
    lengths = rng.integers(0, 40, n)
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    AT = CSR(indptr, rng.integers(0, n, int(indptr[-1])), None, n, n)
    inv_s = 1.0 / rng.integers(1, 9, n) * (rng.random(n) < 0.9)
    y = (rng.random(n) * inv_s).astype(rank)
    out = []
    for dw, tele, ahead, chunks in ((0.002, 0.0005, 0, None), (np.full(n, 0.002),
                                    np.full(n, 0.0005), 0, None),
                                    (0.002, 0.0005, 7, indptr_chunks(indptr, 5)),
                                    (np.full(n, 0.002), np.full(n, 0.0005), 3, None)):
        x = np.full(n, 1.0 / n, rank)
        y_new = np.empty(n, rank)
        it, _, _, last = pagerank_run(AT, x, y.copy(), y_new, dw, 0.25, 0.85, tele, inv_s, 0.0,
                                      1, chunks=chunks, gather_ahead=ahead)
        assert it == 1 and last is y_new
        out.append((x, y_new))
    for (x, y_new), (x2, y2) in ((out[0], out[2]), (out[1], out[3])):
        assert np.array_equal(x, x2) and np.array_equal(y_new, y2)
    assert np.allclose(out[0][0], out[1][0], rtol=1e-6 if rank == np.float32 else 1e-14)


@pytest.mark.parametrize("rank", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True], ids=["pattern", "weighted"])
def test_cpu_uniform_start_fused_with_the_first_iteration(rank, weighted):
    """The uniform start (``fill``) runs its first iteration without the
    pass that writes x and y first: the same bits as that start given in x,
    for every iteration count (0 included: x is the start), structure-only
    or weighted, uniform or per-vertex dw and teleport, with and without
    the gather prefetch, on one thread and on a team."""
    from bitgraph.kernels.cpu import indptr_chunks
    from bitgraph.kernels.cpu.pagerank import pagerank_run

    rng = np.random.default_rng(17)
    n = 500
    lengths = rng.integers(0, 25, n)
    lengths[rng.random(n) < 0.1] = 0
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    nnz = int(indptr[-1])
    AT = CSR(indptr, rng.integers(0, n, nnz), rng.random(nnz) + 0.5 if weighted else None, n, n)
    inv_s = 1.0 / rng.integers(1, 9, n) * (rng.random(n) < 0.9)
    c = 1.0 / n
    for max_iter in (0, 1, 2, 7):
        for dw, tele, ahead, parallel in ((c, 0.15 * c, 0, False),
                                          (np.full(n, c), np.full(n, 0.15 * c), 5, True),
                                          (c, 0.15 * c, 3, True)):
            got = []
            for fill in (c, None):
                x = np.full(n, -7.0 if fill else c, rank)  # a fill's x is not read
                y, y_new = np.full(n, np.nan, rank), np.full(n, np.nan, rank)
                out = pagerank_run(AT, x, y, y_new, dw, float(rank(c)) * (inv_s == 0).sum(),
                                   0.85, tele, inv_s, 0.0, max_iter, gather_ahead=ahead,
                                   parallel=parallel, chunks=indptr_chunks(indptr, 4),
                                   fill=fill)
                got.append((x, out[0], out[2], out[3] if max_iter else None))
            (x1, it1, err1, last1), (x2, it2, err2, last2) = got
            assert it1 == it2 == max_iter and (err1 == err2 or max_iter == 0)
            assert np.array_equal(x1, x2), (max_iter, ahead)
            assert max_iter == 0 or np.array_equal(last1, last2)
            if max_iter == 0:
                assert np.array_equal(x1, np.full(n, c, rank))


@pytest.mark.parametrize("rank", [np.float64, np.float32])
@pytest.mark.parametrize("threads", ["1", "2", "8"])
def test_cpu_run_same_bits_whatever_the_team(rank, threads):
    """A whole CPU run over the same row ranges gives the same ranks,
    iterations and error on one thread and on a team, and with more
    threads asked for than the pool has (the helpers the pool never starts
    are not waited for): the ranges' sums are added in range order."""
    from bitgraph.kernels.cpu import indptr_chunks
    from bitgraph.kernels.cpu.pagerank import pagerank_run

    rng = np.random.default_rng(5)
    n = 2000
    lengths = rng.integers(0, 30, n)
    indptr = np.concatenate(([0], np.cumsum(lengths)))
    AT = CSR(indptr, rng.integers(0, n, int(indptr[-1])), None, n, n)
    deg = np.bincount(AT.indices, minlength=n)  # out-degrees: the times each j is pulled
    inv_s = np.where(deg > 0, 1.0 / np.maximum(deg, 1), 0.0)
    lost = float((deg == 0).sum()) / n
    chunks = indptr_chunks(indptr, 7)
    out = []
    for parallel, env in ((False, None), (True, threads)):
        x = np.full(n, 1.0 / n, rank)
        with pytest.MonkeyPatch.context() as mp:
            if env:
                mp.setenv("NUMBA_NUM_THREADS", env)
            it, converged, err, _ = pagerank_run(AT, x, np.empty(n, rank), np.empty(n, rank),
                                                 1.0 / n, lost, 0.85, 0.15 / n, inv_s, 1e-6,
                                                 300, parallel=parallel, chunks=chunks)
        out.append((x, it, converged, err))
    (x1, *rest1), (x2, *rest2) = out
    assert np.array_equal(x1, x2) and rest1 == rest2
    assert rest1[0] > 3 and rest1[1]


# --- float32 ranks (dtype=np.float32) ---------------------------------------------------------
def pagerank32(A, *args, fused=True, device="cpu", **kw):
    """``pagerank`` (above) with float32 ranks: checks the result's types,
    dtype and device, returns it with the ranks on the host."""
    A = O.on_device(A, device)
    kw = {k: O.on_device(v, device) if isinstance(v, bg.Vector) else v for k, v in kw.items()}
    res = pr_module.pagerank(A, *args, method="fused" if fused else "graphblas",
                             dtype=np.float32, **kw)
    assert isinstance(res, PageRank)
    assert isinstance(res.ranks, bg.Vector) and res.ranks.device == device
    assert res.ranks.dtype == np.float32 and res.ranks.size == A.nrows
    assert res.ranks.nvals == A.nrows
    assert type(res.iterations) is int and type(res.converged) is bool
    assert type(res.error) is float
    return res._replace(ranks=O.to_host(res.ranks))


def _l1_between(a, b):
    return float(np.abs(a.ranks.to_dense().astype(np.float64) - b.ranks.to_dense()).sum())


# float32 ranks against float64's: the stored ranks' rounding (2^-24 relative, L1 6e-8 for ranks
# summing to 1), amplified by the iteration's 1 / (1 - alpha) at most; 1e-5 L1 holds with a
# margin for alpha up to 0.95 (the largest measured here: see test_float32_vs_float64)
F32_L1 = 1e-5
# float32 on two devices, or by the two methods: the same float32 arithmetic, float64 sums added
# in other orders; a rank at most an ulp or two apart
F32_SAME_L1 = 1e-6
# an L1 change float32 ranks reliably get under (their noise: a few ulps of ranks summing to 1,
# about 1e-7); a threshold n * tol below it may never be met
F32_NOISE = 1e-6
# how far float32's L1 change may lie from float64's at the same iteration: the stored ranks'
# rounding (at most 2^-23 of ranks summing to 1 for the two ranks a change subtracts: 1.2e-7)
# and the drift of the trajectories; 2.0e-7 measured on a 2-cycle at alpha 0.95 (n = 3,
# iteration 228 of 230), so 3e-7
F32_CHANGE_NOISE = 3e-7


def _iteration_slack(alpha, thr):
    """How many iterations float32's stop may lie from float64's when the
    threshold ``thr`` is above the noise: float32's L1 change is float64's
    within F32_CHANGE_NOISE, and the changes shrink by a factor alpha a step
    at the slowest (the iteration's contraction), so the first change under
    thr moves by at most log((thr + e) / (thr - e)) / log(1 / alpha) steps,
    plus the step itself. 1 far above the noise, more near it when alpha is
    close to 1 (alpha 0.95 at thr 3e-6: 4).

    >>> _iteration_slack(0.85, 5e-3), _iteration_slack(0.95, 3e-6), _iteration_slack(0.0, 1e-6)
    (1, 4, 1)
    """
    e = F32_CHANGE_NOISE
    if alpha <= 0.0 or thr <= e:
        return 1
    return 1 + int(np.log((thr + e) / (thr - e)) / np.log(1.0 / alpha))


def _tol_between_errors(M, **kw):
    """A tol whose threshold n * tol lies midway (geometrically) between two
    consecutive L1 changes of M's float32 run on the CPU, the first pair
    after one under 1e-4: float32 runs whose ranks differ only by roundings
    (float64 sums added in another order: another device, other launch
    settings; changes ~1e-8 apart) stop at the same iteration, the
    threshold ~1e-6 from either change."""
    errs = []
    for k in range(1, 200):
        errs.append(pagerank32(M, tol=0.0, max_iter=k, **kw).error)
        if errs[-1] < 1e-4:
            break
    thr = float(np.sqrt(errs[-2] * errs[-1])) if len(errs) > 1 else 2 * errs[-1]
    return thr / M.nrows


def _same_iterations_expected(A, res64, tol, device, fused, **kw):
    """Whether float64's error sequence stays clear of the threshold n * tol
    at its last two iterations by more than float32's noise (then float32
    stops at the same iteration): the last error below it by 1e-6 and
    the one before above it by 1e-6."""
    thr = A.nrows * tol
    if not res64.converged or res64.error > thr - 1e-6:
        return False
    if res64.iterations == 1:
        return True
    prev = pagerank(A, tol=tol, fused=fused, device=device, **{**kw,
                                                                 "max_iter": res64.iterations - 1})
    return prev.error > thr + 1e-6


@pytest.mark.parametrize("device", DEVICES)
def test_float32_stop_near_the_noise_on_a_slow_cycle(device):
    """A 2-cycle and a dangling vertex at alpha 0.95: the L1 change shrinks
    5% a step and flips sign with the cycle, and float32 meets n * tol = 3e-6
    two iterations before float64 (228 and 230), within _iteration_slack
    (a hypothesis example that the old bound of one iteration failed)."""
    A = bg.Matrix.from_coo([1, 2], [2, 1], nrows=3, ncols=3)
    kw = dict(alpha=0.95, tol=1e-6, max_iter=300,
              personalization=np.array([0.2321961, 0.5, 0.0]))
    res64 = pagerank(A, device=device, **kw)
    res32 = pagerank32(A, device=device, **kw)
    assert res64.converged and res32.converged
    assert 1 <= abs(res32.iterations - res64.iterations) <= _iteration_slack(0.95, 3e-6)
    assert _l1_between(res32, res64) < F32_L1


@pytest.mark.parametrize("device", DEVICES)
@given(graphs(max_n=50), st.data())
@settings(max_examples=200)
def test_float32_vs_float64(device, spec, data):
    """float32 ranks within F32_L1 of float64's, on hypothesis graphs with
    every option, both methods; the same iterations where float64's errors
    are clear of the threshold; the two methods within F32_SAME_L1 of each
    other."""
    n = spec.n
    p = data.draw(distribution(n), label="personalization")
    x0 = data.draw(distribution(n), label="nstart")
    dw = data.draw(distribution(n), label="dangling")
    alpha = data.draw(st.sampled_from([0.85, 0.5, 0.95, 0.0]), label="alpha")
    tol = data.draw(st.sampled_from([1e-6, 1e-4, 1e-8]), label="tol")
    fused = data.draw(st.booleans(), label="fused")
    A = spec.matrix(bg)
    kw = dict(alpha=alpha, tol=tol, max_iter=300, personalization=p, nstart=x0, dangling=dw)
    res64 = pagerank(A, fused=fused, device=device, **kw)
    res32 = pagerank32(A, fused=fused, device=device, **kw)
    # where float32 stops dk iterations away from float64 (an L1 change near
    # the threshold), the ranks also differ by those steps: each at most the
    # last change / alpha^j (the changes shrink by alpha a step)
    dk = abs(res32.iterations - res64.iterations)
    last = max(res32.error, res64.error)
    steps = sum(last / alpha ** j for j in range(dk)) if dk else 0.0
    assert _l1_between(res32, res64) < F32_L1 + steps
    assert res32.converged == (res32.error < n * tol)
    if _same_iterations_expected(A, res64, tol, device, fused, **{k: v for k, v in kw.items()
                                                                   if k != "tol"}):
        assert (res32.iterations, res32.converged) == (res64.iterations, True)
    if n * tol >= F32_NOISE:
        assert abs(res32.iterations - res64.iterations) <= _iteration_slack(alpha, n * tol)
        assert res32.converged or not res64.converged or res32.iterations == 300
    elif not res32.converged:  # under the floor: no clamp, the run goes to max_iter
        assert res32.iterations == 300
    other = pagerank32(A, fused=not fused, device=device, **kw)
    if other.iterations == res32.iterations:
        assert _l1_between(other, res32) < F32_SAME_L1


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
@pytest.mark.parametrize("name", REAL)
def test_float32_real_graphs(name, fused, device):
    """The real graphs: float32 ranks within F32_L1 of float64's and of
    networkx's, the same iterations at tol 1e-6."""
    A = bg.io.read(data_file(name))
    if A.values is not None and A.values.dtype.kind == "f" and (A.values < 0).any():
        r, c, v = A.to_coo()
        A = bg.Matrix.from_coo(r, c, np.abs(v), nrows=A.nrows, ncols=A.ncols)
    res64 = pagerank(A, tol=1e-6, max_iter=500, fused=fused, device=device)
    res32 = pagerank32(A, tol=1e-6, max_iter=500, fused=fused, device=device)
    assert res32.converged and res32.iterations == res64.iterations
    assert _l1_between(res32, res64) < F32_L1
    assert _l1(res32, _nx_ranks(_nx_of(A), A.nrows, tol=1e-6, max_iter=500)) < F32_L1 + 1e-6


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_float32_on_the_device_equals_the_cpu(fused, device):
    """CUDA float32 == CPU float32: the same iterations (at a tol clear of
    the changes: _tol_between_errors), the error within 2 * F32_SAME_L1
    and the ranks within F32_SAME_L1 (and 1e-5 relative each), weighted and
    structure-only, relabelled (kron) or not (grid), with a personalization."""
    for spec in ("kron:10", "grid:33x31", "urand:11:8"):
        A = bg.io.generators.from_spec(spec)
        rng = np.random.default_rng(7)
        r, c, _ = A.to_coo()
        W = bg.Matrix.from_coo(r, c, rng.random(r.size) + 0.5, nrows=A.nrows, ncols=A.ncols)
        for M in (A, W):
            for kw in ({}, {"personalization": rng.random(A.nrows)}):
                tol = _tol_between_errors(M, fused=fused, **kw)
                cpu = pagerank32(M, tol=tol, fused=fused, **kw)
                got = pagerank32(M, tol=tol, fused=fused, device=device, **kw)
                assert (got.iterations, got.converged) == (cpu.iterations, True)
                assert abs(got.error - cpu.error) <= 2 * F32_SAME_L1
                assert _l1_between(got, cpu) < F32_SAME_L1
                np.testing.assert_allclose(got.ranks.to_dense(), cpu.ranks.to_dense(),
                                           rtol=1e-5, atol=0)


@pytest.mark.parametrize("device", DEVICES)
def test_float32_tolerance_floor(device):
    """A tol under float32's noise floor (n * tol below ~1e-7): no clamp;
    converged only if the stored ranks' L1 change fell below n * tol, else
    the run stops at max_iter with converged=False; the ranks stay within
    F32_L1 of float64's. tol 0 never converges (float64 neither)."""
    A = bg.io.generators.from_spec("kron:10")
    n = A.nrows
    for fused in (True, False):
        ref = pagerank(A, tol=1e-13, max_iter=300, fused=fused, device=device)
        assert ref.converged  # float64 meets it
        for tol, max_iter in ((1e-13, 300), (1e-15, 60), (0.0, 40)):
            res = pagerank32(A, tol=tol, max_iter=max_iter, fused=fused, device=device)
            assert res.converged == (res.error < n * tol)
            if not res.converged:
                assert res.iterations == max_iter
            assert _l1_between(res, ref) < F32_L1
        zero = pagerank32(A, tol=0.0, max_iter=40, fused=fused, device=device)
        assert (zero.converged, zero.iterations) == (False, 40) and zero.error >= 0.0


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_float32_empty_single_and_dangling(fused, device):
    """The kernels' small cases with float32 ranks: no vertex, one vertex
    (with and without a self-loop), every vertex dangling, max_iter 0."""
    res = pagerank32(bg.Matrix(bool, 0, 0), fused=fused, device=device)
    assert res.ranks.size == 0 and res.converged and res.iterations == 0
    one = pagerank32(bg.Matrix(bool, 1, 1), fused=fused, device=device)
    assert one.ranks.to_dense().tolist() == [1.0] and one.converged and one.iterations == 1
    loop = pagerank32(bg.Matrix.from_coo([0], [0], nrows=1, ncols=1), fused=fused, device=device)
    assert loop.ranks.to_dense().tolist() == [1.0] and loop.converged
    n = 70
    p = np.arange(1.0, n + 1)
    res = pagerank32(bg.Matrix(bool, n, n), personalization=p, tol=1e-9, fused=fused,
                     device=device)
    assert res.converged
    np.testing.assert_allclose(res.ranks.to_dense(), p / p.sum(), rtol=1e-7, atol=0)
    zero = pagerank32(bg.io.generators.grid2d(5, 5), max_iter=0, fused=fused, device=device)
    assert (zero.iterations, zero.converged, zero.error) == (0, False, np.inf)
    np.testing.assert_array_equal(zero.ranks.to_dense(), np.float32(1 / 25))


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("weighted", [False, True])
def test_float32_kernel_branches(weighted, device):
    """The GPU kernel's branches with float32 ranks (forced small settings:
    heavy rows cut into chunks of every size, warps for medium rows, every
    lane count; n not a multiple of 32; int64 indices; a long path; a star):
    every setting gives the default's iterations (at a tol clear of the
    changes: _tol_between_errors) and ranks within F32_SAME_L1; the ranks
    within F32_L1 of float64's (tol 1e-9)."""
    n = 1000 + 7
    for M in _kernel_graphs(n, 4, weighted, seed=32):
        ref64 = pagerank(M, tol=1e-9, max_iter=500, device=device)
        assert _l1_between(pagerank32(M, tol=1e-9, max_iter=500, device=device), ref64) < F32_L1
        tol = _tol_between_errors(M)
        ref = pagerank32(M, tol=tol, max_iter=500, device=device)
        assert ref.converged
        for split, chunk, warp_above, lanes in ((0, 1, 0, 0), (1, 3, 0, 0), (4, 4, 2, 0),
                                                (8, 64, 3, 1), (100, 7, 4, 2), (n, 5, 6, 8),
                                                (1024, 2048, 32, 32)):
            with bg.settings.use(pagerank={"cuda_split_above": split, "cuda_chunk": chunk,
                                           "cuda_warp_above": warp_above, "cuda_lanes": lanes,
                                           "cuda_check_every": 3, "cuda_while": False}):
                res = pagerank32(M, tol=tol, max_iter=500, device=device)
            assert res.iterations == ref.iterations, (split, chunk, warp_above, lanes)
            assert _l1_between(res, ref) < F32_SAME_L1


@pytest.mark.parametrize("device", DEVICES)
def test_float32_stats_and_dtypes(device):
    """stats name the ranks' dtype; dtype accepts float32 and float64 in any
    spelling numpy knows, anything else is an InvalidValue."""
    A = bg.io.generators.from_spec("kron:8")
    st_ = bg.Stats()
    pagerank32(A, stats=st_, device=device)
    assert st_.method == "fused" and st_.metrics["ranks"] == "float32"
    assert st_.kernels == [("pagerank", "csr", device, "pull")]
    Ad = O.on_device(A, device)
    for spelling in (np.float32, "float32", np.dtype("f4"), "f4"):
        assert pr_module.pagerank(Ad, dtype=spelling).ranks.dtype == np.float32
    for spelling in (np.float64, float, "float64", "double"):
        assert pr_module.pagerank(Ad, dtype=spelling).ranks.dtype == np.float64
    for bad in (np.float16, np.int64, np.bool_, "complex128", "bogus", None, np.longdouble):
        for method in pr_module.METHODS:
            with pytest.raises(bg.InvalidValue, match="pagerank: dtype must be float64 or"
                                                      " float32, got"):
                pr_module.pagerank(Ad, dtype=bad, method=method)
