"""pagerank against networkx.pagerank (its scipy version).

Hypothesis graphs directed and undirected, weighted and structure-only,
with dangling and isolated vertices and self-loops; personalization, nstart
and dangling given as arrays or dicts; tight (tol=1e-10) and default
tolerances; real graphs from tests/data; iteration counts and the
errors.
"""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import importlib

import bitgraph as bg
from bitgraph.algorithms.link_analysis import PageRank
from graph_strategies import graphs
from testdata import data_file



# the module (bitgraph.algorithms re-exports the function under its name)
pr_module = importlib.import_module("bitgraph.algorithms.link_analysis")


def pagerank(*args, fused=True, **kw):
    """bitgraph's pagerank through the fused kernel or the public-API loop."""
    return pr_module.pagerank(*args, method="fused" if fused else "graphblas", **kw)


def _nx_ranks(G, n, **kw):
    r = nx.pagerank(G, **kw)
    return np.array([r[i] for i in range(n)])


def _l1(result, ref):
    return float(np.abs(result.ranks.to_dense() - ref).sum())


@st.composite
def distribution(draw, n, allow_none=True):
    """None, an array of n values >= 0 (some zero, sum > 0), or a dict
    {vertex: value} naming some vertices (the rest count 0)."""
    kind = draw(st.sampled_from(["none", "array", "dict"] if allow_none else ["array", "dict"]))
    if kind == "none":
        return None
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.random(n) * (rng.random(n) < rng.choice([0.3, 1.0]))
    a[rng.integers(0, n)] += 0.5  # sum > 0
    if kind == "array":
        return a
    return {int(i): float(a[i]) for i in np.flatnonzero(a)}


def _as_nx(d):
    return None if d is None else (dict(enumerate(d.tolist())) if isinstance(d, np.ndarray) else d)


@given(graphs(max_n=50), st.data())
@settings(max_examples=300)
def test_vs_networkx_tight(spec, data):
    n = spec.n
    p = data.draw(distribution(n), label="personalization")
    x0 = data.draw(distribution(n), label="nstart")
    dw = data.draw(distribution(n), label="dangling")
    alpha = data.draw(st.sampled_from([0.85, 0.5, 0.95, 0.0, 1.0]), label="alpha")
    fused = data.draw(st.booleans(), label="fused")
    G = spec.networkx()
    kw = dict(alpha=alpha, tol=1e-10, max_iter=300)
    res = pagerank(spec.matrix(bg), personalization=p, nstart=x0, dangling=dw, fused=fused, **kw)
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


@given(graphs(max_n=50), st.data())
@settings(max_examples=200)
def test_vs_networkx_default_tol(spec, data):
    n = spec.n
    p = data.draw(distribution(n), label="personalization")
    G = spec.networkx()
    ref = _nx_ranks(G, n, personalization=_as_nx(p))
    res = pagerank(spec.matrix(bg), personalization=p, fused=data.draw(st.booleans(), label="fused"))
    assert res.converged
    assert _l1(res, ref) < 1e-6


@given(graphs(max_n=40), st.data())
@settings(max_examples=100)
def test_iterations_match_reference(spec, data):
    """The iteration count and the error are those of networkx's loop
    (replayed here with numpy: networkx does not report them)."""
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
    res = pagerank(spec.matrix(bg), tol=tol, max_iter=max_iter, fused=fused)
    assert (res.iterations, res.converged) == (it, conv)
    assert res.error == pytest.approx(err, rel=1e-6, abs=1e-15) if np.isfinite(err) else res.error == np.inf
    assert np.abs(res.ranks.to_dense() - x).sum() < 1e-9


def test_not_converged():
    A = bg.io.generators.grid2d(5, 5)
    res = pagerank(A, tol=1e-12, max_iter=2)
    assert isinstance(res, PageRank)
    assert res.iterations == 2 and res.converged is False and res.error > 0
    assert res.ranks.nvals == 25
    with pytest.raises(nx.PowerIterationFailedConvergence):
        nx.pagerank(nx.grid_2d_graph(5, 5), tol=1e-12, max_iter=2)
    zero = pagerank(A, max_iter=0)
    assert (zero.iterations, zero.converged, zero.error) == (0, False, np.inf)
    np.testing.assert_allclose(zero.ranks.to_dense(), 1 / 25)


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_weights_and_dtypes(fused):
    """Any value dtype reads as float weights; structure-only as 1."""
    r, c = [0, 0, 1, 2, 3], [1, 2, 2, 0, 0]
    w = [1, 3, 2, 5, 1]
    G = nx.DiGraph()
    G.add_nodes_from(range(5))
    G.add_weighted_edges_from(zip(r, c, w))
    ref = _nx_ranks(G, 5, tol=1e-12)
    for dt in ("int8", "uint16", "int64", "float32", "float64"):
        A = bg.Matrix.from_coo(r, c, np.array(w, dt), nrows=5, ncols=5)
        assert _l1(pagerank(A, tol=1e-12, fused=fused), ref) < 1e-9
    ref1 = _nx_ranks(G, 5, tol=1e-12, weight=None)
    assert _l1(pagerank(bg.Matrix.from_coo(r, c, nrows=5, ncols=5), tol=1e-12, fused=fused), ref1) < 1e-9
    # a zero-weight row dangles, as in networkx
    G0 = nx.DiGraph()
    G0.add_nodes_from(range(3))
    G0.add_weighted_edges_from([(0, 1, 0.0), (1, 2, 1.0)])
    A0 = bg.Matrix.from_coo([0, 1], [1, 2], [0.0, 1.0], nrows=3, ncols=3)
    assert _l1(pagerank(A0, tol=1e-12, fused=fused), _nx_ranks(G0, 3, tol=1e-12)) < 1e-9


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
def test_transposed_view(fused):
    G = nx.gnp_random_graph(30, 0.1, seed=3, directed=True)
    A = bg.Matrix.from_networkx(G)
    ref = _nx_ranks(G.reverse(), 30, tol=1e-12)
    assert _l1(pagerank(A.T, tol=1e-12, fused=fused), ref) < 1e-9


def test_empty_and_single():
    res = pagerank(bg.Matrix(bool, 0, 0))
    assert res.ranks.size == 0 and res.converged and res.iterations == 0
    one = pagerank(bg.Matrix(bool, 1, 1))
    assert one.ranks.to_dense().tolist() == [1.0]


# --- errors --------------------------------------------------------------------------------
def test_errors():
    A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3)
    for bad in (-0.1, 1.5):
        with pytest.raises(bg.InvalidValue, match="pagerank: alpha must be in"):
            pagerank(A, alpha=bad)
    with pytest.raises(TypeError, match="pagerank: alpha must be a real number"):
        pagerank(A, alpha="0.85")
    with pytest.raises(bg.InvalidValue, match="pagerank: alpha must not be NaN"):
        pagerank(A, alpha=np.nan)
    with pytest.raises(bg.InvalidValue, match="pagerank: tol must be >= 0"):
        pagerank(A, tol=-1)
    with pytest.raises(bg.InvalidValue, match="pagerank: max_iter must be >= 0"):
        pagerank(A, max_iter=-1)
    with pytest.raises(TypeError, match="pagerank: max_iter must be an int"):
        pagerank(A, max_iter=2.5)
    # networkx raises ZeroDivisionError for an all-zero personalization
    with pytest.raises(ZeroDivisionError):
        nx.pagerank(nx.path_graph(3), personalization={0: 0})
    for name in ("personalization", "nstart", "dangling"):
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} sums to 0"):
            pagerank(A, **{name: np.zeros(3)})
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} sums to 0"):
            pagerank(A, **{name: {1: 0.0}})
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} must be >= 0 and not NaN; vertex 1"):
            pagerank(A, **{name: [1.0, -1.0, 2.0]})
        with pytest.raises(bg.InvalidValue, match=f"pagerank: {name} must be >= 0 and not NaN; vertex 2"):
            pagerank(A, **{name: [1.0, 1.0, np.nan]})
        with pytest.raises(bg.DimensionMismatch, match=f"pagerank: {name} must have one value per vertex \\(3\\)"):
            pagerank(A, **{name: [1.0, 2.0]})
        with pytest.raises(bg.InvalidIndex, match=f"pagerank: {name} key 3 is out of range"):
            pagerank(A, **{name: {3: 1.0}})
        with pytest.raises(TypeError, match=f"pagerank: {name} keys must be vertex ids"):
            pagerank(A, **{name: {"a": 1.0}})
    Winf = bg.Matrix.from_coo([0, 1], [1, 2], [1.0, np.inf], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match="pagerank: the weighted out-degree of vertex 1 is inf"):
        pagerank(Winf)
    W = bg.Matrix.from_coo([0, 1], [1, 2], [1.0, -2.0], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match="pagerank: edge weights must be >= 0 and not NaN; stored entry 1"):
        pagerank(W)
    with pytest.raises(bg.DimensionMismatch, match="pagerank: a graph's adjacency"):
        pagerank(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3))


# --- real graphs -----------------------------------------------------------------------------
REAL = ["karate.mtx", "west0067.mtx", "cryg2500.mtx", "jagmesh7.mtx", "ldbc-directed-example.mtx",
        "ldbc-undirected-example.mtx", "ldbc-wcc-example.mtx", "pushpull.mtx", "bcsstk13.mtx",
        "test_BF.mtx", "LFAT5_hypersparse.mtx", "tree-example.mtx"]


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "public"])
@pytest.mark.parametrize("name", REAL)
def test_real_graphs(name, fused):
    path = data_file(name)
    A = bg.io.read(path)
    if A.values is not None and A.values.dtype.kind == "f" and (A.values < 0).any():
        r, c, v = A.to_coo()  # PageRank over |weights|
        A = bg.Matrix.from_coo(r, c, np.abs(v), nrows=A.nrows, ncols=A.ncols)
    r, c, v = A.to_coo()
    G = nx.DiGraph()
    G.add_nodes_from(range(A.nrows))
    if A.iso:
        G.add_edges_from(zip(r.tolist(), c.tolist()))
    else:
        G.add_weighted_edges_from(zip(r.tolist(), c.tolist(), v.astype(float).tolist()))
    for tol in (1e-10, 1e-6):
        ref = _nx_ranks(G, A.nrows, tol=tol, max_iter=500)
        res = pagerank(A, tol=tol, max_iter=500, fused=fused)
        assert res.converged
        assert _l1(res, ref) < 1e-6
