"""sssp against scipy.sparse.csgraph.dijkstra (and shortest_path unweighted).

Weighted hypothesis graphs of every value dtype, with zero weights,
self-loops, duplicates (combined with min), several components; each method;
the delta kernel serial and with every frontier on the thread pool; real
graphs from tests/data; the errors.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.algorithms.shortest_paths import default_delta, negative_cycle, sssp
from bitgraph.errors import NegativeCycle
from bitgraph.kernels.cpu import sssp as kernel
from graph_strategies import graphs
from testdata import data_file


INT_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
FLOAT_DTYPES = ["float32", "float64"]


@st.composite
def weighted(draw, dtypes=INT_DTYPES + FLOAT_DTYPES, max_n=60):
    """(spec, dtype): a weighted graph whose weights are recast to ``dtype``,
    some set to 0, float ones sometimes uniform in [0, 1) (not dyadic)."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    spec = draw(graphs(max_n=max_n, weighted=True,
                       weight_dtype=np.float64 if dtype.kind == "f" else np.int64))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    w = spec.weights
    m = w.size
    half = m if spec.directed else m // 2  # undirected: w[half:] mirrors w[:half]
    if dtype.kind == "f" and rng.random() < 0.4:
        w[:half] = rng.random(half)
    if rng.random() < 0.4:  # zero weights
        w[:half][rng.random(half) < rng.choice([0.1, 0.5, 1.0])] = 0
    if not spec.directed:
        w[half:] = w[:half]
    spec.weights = w.astype(dtype)
    return spec, dtype


def _scipy_graph(spec):
    """spec's graph for csgraph, weights as float64 (explicit zeros kept:
    csgraph reads a stored 0 as an edge of length 0)."""
    S = spec.scipy()
    S.data = S.data.astype(np.float64)
    return S


def _check(result, ref, dtype, *, exact=True):
    """result Vector vs a dense csgraph distance row (inf = unreached)."""
    reached = np.isfinite(ref)
    assert result.size == ref.size
    np.testing.assert_array_equal(result.to_coo()[0], np.flatnonzero(reached))
    assert result.dtype == dtype
    got = result.to_coo()[1].astype(np.float64)
    if exact:
        np.testing.assert_array_equal(got, ref[reached])
    else:
        np.testing.assert_allclose(got, ref[reached], rtol=2e-6, atol=0)


def _expect(spec, dtype, source, **kw):
    """Run sssp and compare with dijkstra, or expect OverflowError when a
    true distance does not fit in ``dtype``."""
    A = spec.matrix(bg)
    ref = csgraph.dijkstra(_scipy_graph(spec), directed=True, indices=source)
    finite = ref[np.isfinite(ref)]
    if dtype.kind in "iu" and finite.max() > np.iinfo(dtype).max:
        with pytest.raises(OverflowError, match="sssp: the distance to vertex"):
            sssp(A, source, **kw)
        return
    # float32: sums rounded in float32 (as GraphBLAS's min_plus on FP32)
    exact = dtype == np.float64 or bool(np.all(spec.weights == spec.weights.astype(np.float16)))
    _check(sssp(A, source, **kw), ref, dtype, exact=exact)


@given(weighted(), st.data())
@settings(max_examples=500)
def test_delta_vs_dijkstra(case, data):
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    _expect(spec, dtype, s, method="delta")


@given(weighted(), st.data())
@settings(max_examples=300)
def test_bellman_ford_vs_dijkstra(case, data):
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    _expect(spec, dtype, s, method="bellman-ford")


@given(weighted(dtypes=["int32", "float64", "float32"]), st.data())
@settings(max_examples=200)
def test_delta_widths(case, data):
    """Any bucket width gives the exact distances: narrow (Dial), the
    default, and one bucket for everything (label-correcting)."""
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    base = default_delta(A)
    wmax = float(spec.weights.max()) if spec.weights.size else 0.0
    scale = data.draw(st.sampled_from([0.25, 1.0, 4.0, 1e9]), label="scale")
    delta = max(base * scale, wmax / (bg.settings.SSSP().max_bins - 4), 1e-12)
    _expect(spec, dtype, s, method="delta", delta=delta)


@given(weighted(dtypes=["int32", "int64", "uint64", "float32", "float64"], max_n=80), st.data())
@settings(max_examples=200)
def test_kernel_parallel_rounds(case, data):
    """Every frontier on the thread pool (records absorbed by the driver)
    equals the serial kernel exactly, also when the bucket pool grows."""
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    W = {"int32": np.int32, "int64": np.int64, "uint64": np.uint64}.get(dtype.name, dtype)
    D = W
    c = A._csr()._replace(values=A._csr().values.astype(W))
    delta = data.draw(st.sampled_from([default_delta(A), 1e9]), label="delta")
    # a one-chunk pool at first: grown between kernel calls, often
    pool = data.draw(st.sampled_from([None, 1]), label="initial_chunks")
    serial, _ = kernel.delta_stepping(c, s, delta, D, parallel=False, initial_chunks=pool)
    par, _ = kernel.delta_stepping(c, s, delta, D, parallel=True, par_edges=0, initial_chunks=pool)
    np.testing.assert_array_equal(serial, par)
    ref = csgraph.dijkstra(_scipy_graph(spec), directed=True, indices=s)
    inf = np.inf if np.dtype(D).kind == "f" else np.iinfo(D).max
    np.testing.assert_array_equal(np.isfinite(ref), serial != inf)


@given(graphs(max_n=60, weighted=False), st.data())
@settings(max_examples=120)
def test_structure_only_gives_bfs_levels(spec, data):
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    ref = csgraph.shortest_path(spec.scipy(), directed=True, unweighted=True, indices=s)
    for method in ("auto", "delta", "bellman-ford"):
        _check(sssp(A, s, method=method), ref, np.dtype(np.int32))


@given(graphs(max_n=40, weighted=True), st.data())
@settings(max_examples=60)
def test_transposed_view(spec, data):
    """sssp(A.T, s) follows A's in-edges: the distances *to* s in A."""
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    ref = csgraph.dijkstra(_scipy_graph(spec).T.tocsr(), directed=True, indices=s)
    for method in ("delta", "bellman-ford"):
        _check(sssp(A.T, s, method=method), ref, np.dtype(np.float64))


def test_zero_weights_and_self_loops():
    # 0 -0-> 1 -0-> 2, 2 -> 2 (5), 1 -3-> 3, 3 -0-> 1; 4 unreached
    A = bg.Matrix.from_coo([0, 1, 2, 1, 3], [1, 2, 2, 3, 1], [0.0, 0.0, 5.0, 3.0, 0.0],
                           nrows=5, ncols=5)
    for method in ("delta", "bellman-ford", "auto"):
        d = sssp(A, 0, method=method)
        assert d.to_dense(-1).tolist() == [0.0, 0.0, 0.0, 3.0, -1.0]


def test_inf_weight_reaches_nothing():
    A = bg.Matrix.from_coo([0, 0], [1, 2], [np.inf, 1.0], nrows=3, ncols=3)
    for method in ("delta", "bellman-ford"):
        assert sssp(A, 0, method=method).to_dense(-1).tolist() == [0.0, -1.0, 1.0]


def test_overflow_raises():
    # int8: 0 -> 1 -> 2 with weights 100: distance 200 does not fit
    A = bg.Matrix.from_coo([0, 1], [1, 2], np.array([100, 100], np.int8), nrows=3, ncols=3)
    for method in ("delta", "bellman-ford"):
        with pytest.raises(OverflowError, match="vertex 2 is 200.*int8"):
            sssp(A, 0, method=method)
        assert sssp(A, 1, method=method).to_dense(-1).tolist() == [-1, 0, 100]
    # int64 sums past 2**63: the delta kernel saturates and reports
    big = np.array([2**62, 2**62, 2**62], np.int64)
    B = bg.Matrix.from_coo([0, 1, 2], [1, 2, 3], big, nrows=4, ncols=4)
    with pytest.raises(OverflowError, match="sssp: the distance to vertex 2 exceeds"):
        sssp(B, 0, method="delta")
    with pytest.raises(OverflowError, match="sssp: a path sum to vertex 2 passed"):
        sssp(B, 0, method="bellman-ford")
    # ... but a long path that overflows loses to a short one that fits
    w = np.array([2**62, 2**62 - 10, 2**62, 7], np.int64)
    C = bg.Matrix.from_coo([0, 1, 2, 0], [1, 2, 3, 3], w, nrows=4, ncols=4)
    assert sssp(C, 0, method="delta").to_dense(-1).tolist() == [0, 2**62, 2**63 - 10, 7]
    with pytest.raises(OverflowError, match="path sum to vertex 3 passed the range of int64"):
        sssp(C, 0, method="bellman-ford")


def test_uint64_large_weights():
    w = np.array([2**63 + 5, 3], np.uint64)
    A = bg.Matrix.from_coo([0, 1], [1, 2], w, nrows=3, ncols=3)
    d = sssp(A, 0, method="delta")
    assert d.dtype == np.uint64 and d.to_dense(0).tolist() == [0, 2**63 + 5, 2**63 + 8]
    with pytest.raises(bg.InvalidValue, match="bellman-ford.*2\\*\\*63"):
        sssp(A, 0, method="bellman-ford")


def test_small_int_dtype_kept():
    A = bg.Matrix.from_coo([0, 1], [1, 2], np.array([3, 4], np.uint8), nrows=3, ncols=3)
    for method in ("delta", "bellman-ford"):
        d = sssp(A, 0, method=method)
        assert d.dtype == np.uint8 and d.to_dense().tolist() == [0, 3, 7]


# --- errors --------------------------------------------------------------------------------
def test_negative_weight_delta_names_entry():
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, -2.0, 3.0], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match=r"sssp: method='delta' needs edge weights >= 0;"
                       r" stored entry 1 has weight -2.0: use method='bellman-ford'"):
        sssp(A, 0, method="delta")
    # auto and bellman-ford take them: 0 -> 1 (1), 1 -> 2 (-2), 2 -> 0 (3): cycle weight 2
    for method in ("auto", "bellman-ford"):
        assert sssp(A, 0, method=method).to_dense().tolist() == [0.0, 1.0, -1.0]


def test_nan_weight_raises():
    A = bg.Matrix.from_coo([0, 1], [1, 2], [1.0, np.nan], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match="sssp: edge weights must not be NaN or -inf; stored entry 1"):
        sssp(A, 0, method="bellman-ford")
    with pytest.raises(bg.InvalidValue, match="negative_cycle: edge weights must not be NaN or -inf"):
        negative_cycle(A)
    B = bg.Matrix.from_coo([0, 1], [1, 2], [1.0, -np.inf], nrows=3, ncols=3)
    with pytest.raises(bg.InvalidValue, match="sssp: edge weights must not be NaN or -inf; stored entry 1 has weight -inf"):
        sssp(B, 0)


@pytest.mark.parametrize("source", [-1, 5, 100])
def test_bad_source(source):
    A = bg.Matrix.from_coo([0], [1], [1.0], nrows=5, ncols=5)
    with pytest.raises(bg.InvalidIndex, match=f"sssp: source {source} is out of range for a graph of 5 vertices"):
        sssp(A, source)


def test_bad_arguments():
    A = bg.Matrix.from_coo([0], [1], [1.0], nrows=3, ncols=3)
    with pytest.raises(TypeError, match="sssp: source must be an integer"):
        sssp(A, 1.5)
    with pytest.raises(bg.InvalidValue, match="sssp: unknown method 'dijkstra'"):
        sssp(A, 0, method="dijkstra")
    for bad in (0, -1.0, np.nan, np.inf, "1", True):
        with pytest.raises(bg.InvalidValue, match="sssp: delta must be"):
            sssp(A, 0, delta=bad)
    with pytest.raises(bg.InvalidValue, match="sssp: delta=1e-09 is too small"):
        sssp(A, 0, method="delta", delta=1e-9)
    with pytest.raises(bg.DimensionMismatch, match="sssp: a graph's adjacency matrix must be square"):
        sssp(bg.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3), 0)
    with pytest.raises(TypeError, match="sssp: expected a bitgraph Matrix"):
        sssp(np.eye(3), 0)


# --- real graphs -----------------------------------------------------------------------------
REAL = ["test_BF.mtx", "cryg2500.mtx", "bcsstk13.mtx", "west0067.mtx", "west0067_jumbled.mtx",
        "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx", "ldbc-wcc-example.mtx",
        "karate.mtx", "jagmesh7.mtx", "pushpull.mtx", "LFAT5_hypersparse.mtx"]


def _real(name):
    path = data_file(name)
    A = bg.io.read(path)
    if A.values is not None and A.values.dtype.kind == "f" and (A.values < 0).any():
        r, c, v = A.to_coo()  # the shortest paths over |weights|
        A = bg.Matrix.from_coo(r, c, np.abs(v), nrows=A.nrows, ncols=A.ncols)
    return A


@pytest.mark.parametrize("name", REAL)
def test_real_graphs(name):
    A = _real(name)
    S = A.to_scipy()
    if A.iso:
        S = sp.csr_array((np.ones(S.nnz), S.indices, S.indptr), shape=S.shape)
    else:
        S = sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr), shape=S.shape)
    deg = np.diff(A.indptr)
    sources = np.unique([0, int(np.argmax(deg)), A.nrows - 1, A.nrows // 2])
    ref = csgraph.dijkstra(S, directed=True, indices=sources)
    dtype = np.dtype(np.int32) if A.iso else A.dtype
    for i, s in enumerate(sources):
        for method in ("delta", "bellman-ford"):
            got = sssp(A, int(s), method=method)
            _check(got, ref[i], dtype, exact=dtype.kind != "f")
            if dtype.kind == "f":  # float64 sums: same fixpoint, same rounding
                np.testing.assert_allclose(got.to_coo()[1], ref[i][np.isfinite(ref[i])], rtol=1e-12)


def test_real_negative_weights():
    """olm1000 (negative entries): delta refuses it; Bellman-Ford agrees with
    scipy's (a negative cycle, named by a vertex really on one, or equal
    distances)."""
    A = bg.io.read(data_file("olm1000.mtx"))
    with pytest.raises(bg.InvalidValue, match=r"sssp: method='delta' needs edge weights >= 0; stored entry \d+ has weight -"):
        sssp(A, 0, method="delta")
    S = A.to_scipy()
    S = sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr), shape=S.shape)
    for s in (0, A.nrows // 2, A.nrows - 1):
        try:
            ref = csgraph.bellman_ford(S, directed=True, indices=s)
        except csgraph.NegativeCycleError:
            with pytest.raises(NegativeCycle) as info:
                sssp(A, s)
            _assert_on_negative_cycle(info.value, S, s)
            assert negative_cycle(A, s) and negative_cycle(A)
        else:
            _check(sssp(A, s), ref, A.dtype, exact=False)
            assert not negative_cycle(A, s)


# --- negative weights -------------------------------------------------------------------------
def _assert_on_negative_cycle(err, S, s):
    """err.cycle is a cycle of S (distinct vertices, each with an edge to
    the next) of negative total weight, through err.vertex, reachable from s."""
    S = sp.csr_array(S)
    cyc = list(err.cycle)
    assert err.vertex in cyc and len(set(cyc)) == len(cyc)
    total = 0.0
    for u, v in zip(cyc, cyc[1:] + cyc[:1]):
        row = slice(S.indptr[u], S.indptr[u + 1])
        hit = np.flatnonzero(S.indices[row] == v)
        assert hit.size == 1, (u, v)
        total += float(S.data[row][hit[0]])
    assert total < 0 and np.isclose(total, float(err.weight))
    reach = csgraph.breadth_first_order(S, s, directed=True, return_predecessors=False)
    assert err.vertex in set(reach.tolist())
    assert f"vertex {err.vertex} lies on it" in str(err)


@st.composite
def negative_graphs(draw, max_n=25):
    """(n, rows, cols, weights, dtype): a directed graph (self-loops, no
    duplicates) with negative weights; half of them w = base + p[u] - p[v]
    with base >= 0 (negative edges, no negative cycle), half raw weights in
    [-lo, hi] (negative cycles likely)."""
    n = draw(st.integers(1, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(0, min(n * n, 4 * n)))
    keys = rng.choice(n * n, size=m, replace=False)
    rows, cols = keys // n, keys % n
    dtype = np.dtype(draw(st.sampled_from(["int8", "int16", "int32", "int64", "float32", "float64"])))
    if draw(st.booleans()):
        p = rng.integers(0, 20, n)
        w = rng.integers(0, 10, m) + p[rows] - p[cols]
        if dtype == np.int8:
            dtype = np.dtype(np.int16)
    else:
        lo = draw(st.sampled_from([1, 3, 10]))
        w = rng.integers(-lo, 20, m)
    return n, rows, cols, w.astype(dtype), dtype


@given(negative_graphs(), st.data())
@settings(max_examples=150, deadline=None)
def test_negative_weights_vs_scipy(g, data):
    n, rows, cols, w, dtype = g
    s = data.draw(st.integers(0, n - 1), label="source")
    A = bg.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n)
    S = sp.csr_array((w.astype(np.float64), (rows, cols)), shape=(n, n))
    try:
        ref = csgraph.bellman_ford(S, directed=True, indices=s)
    except csgraph.NegativeCycleError:
        ref = None
    for method in ("auto", "bellman-ford"):
        if ref is None:
            with pytest.raises(NegativeCycle) as info:
                sssp(A, s, method=method)
            _assert_on_negative_cycle(info.value, S, s)
        else:
            finite = ref[np.isfinite(ref)]
            if dtype.kind == "i" and finite.size and finite.min() < np.iinfo(dtype).min:
                with pytest.raises(OverflowError):
                    sssp(A, s, method=method)
                continue
            _check(sssp(A, s, method=method), ref, dtype, exact=dtype != np.float32)
    assert negative_cycle(A, s) == (ref is None)
    try:  # anywhere: johnson raises for any negative cycle
        csgraph.johnson(S, directed=True, indices=[0])
        anywhere = False
    except csgraph.NegativeCycleError:
        anywhere = True
    assert negative_cycle(A) == anywhere
    if (w < 0).any():
        with pytest.raises(bg.InvalidValue, match="use method='bellman-ford'"):
            sssp(A, s, method="delta")


def test_negative_cycle_lagraph_like():
    # LAGraph test_BF-like: 0 -> 1 -> 2 -> 3 -> 1 with 1 -> 2 -> 3 -> 1 weighing -1
    r, c = [0, 1, 2, 3, 0], [1, 2, 3, 1, 4]
    for dtype in ("int32", "int64", "float32", "float64"):
        w = np.array([5, 2, -4, 1, 7], dtype)
        A = bg.Matrix.from_coo(r, c, w, nrows=6, ncols=6)
        with pytest.raises(NegativeCycle, match=r"sssp: a negative cycle is reachable from"
                           r" source 0: vertex [123] lies on it \(3 vertices") as info:
            sssp(A, 0)
        assert sorted(info.value.cycle) == [1, 2, 3] and info.value.weight == -1
        assert type(info.value.weight) is (float if dtype[0] == "f" else int)
        assert isinstance(info.value, bg.InvalidValue) and isinstance(info.value, ValueError)
        _assert_on_negative_cycle(info.value, A.to_scipy(), 0)
        # unreachable from 4 and 5: no error
        assert sssp(A, 4).to_dense(-9).tolist() == [-9, -9, -9, -9, 0, -9]
        assert not negative_cycle(A, 4) and negative_cycle(A, 0) and negative_cycle(A, 2)
        assert negative_cycle(A)
    # the same cycle at weight 0: distances, no cycle
    A = bg.Matrix.from_coo(r, c, [5, 2, -3, 1, 7], nrows=6, ncols=6)
    assert sssp(A, 0).to_dense(-9).tolist() == [0, 5, 7, 4, 7, -9]
    assert not negative_cycle(A)


def test_unreachable_negative_cycle():
    # 0 -> 1 (2); 2 <-> 3 weighing -3 in all; 3 -> 1 (1): reached only from 2 and 3
    A = bg.Matrix.from_coo([0, 2, 3, 3], [1, 3, 2, 1], [2.0, -1.0, -2.0, 1.0], nrows=4, ncols=4)
    assert sssp(A, 0).to_dense(-1).tolist() == [0.0, 2.0, -1.0, -1.0]
    assert sssp(A, 1).to_dense(-1).tolist() == [-1.0, 0.0, -1.0, -1.0]
    with pytest.raises(NegativeCycle, match="vertex [23] lies on it"):
        sssp(A, 2)
    assert negative_cycle(A) and not negative_cycle(A, 0) and negative_cycle(A, 3)


def test_negative_self_loop():
    A = bg.Matrix.from_coo([0, 1, 2], [1, 1, 2], [1, -1, 4], nrows=3, ncols=3)
    with pytest.raises(NegativeCycle, match=r"vertex 1 lies on it \(1 vertices: 1 -> 1;"
                       r" total weight -1\)") as info:
        sssp(A, 0)
    assert info.value.vertex == 1 and info.value.cycle == [1]
    assert sssp(A, 2).to_dense(-1).tolist() == [-1, -1, 0]
    assert negative_cycle(A) and negative_cycle(A, 0) and not negative_cycle(A, 2)
    one = bg.Matrix.from_coo([0], [0], [-0.5], nrows=1, ncols=1)
    with pytest.raises(NegativeCycle, match="vertex 0 lies on it"):
        sssp(one, 0)


def test_negative_cycle_no_negative_weights():
    A = bg.Matrix.from_coo([0, 1], [1, 0], np.array([1, 2], np.uint8), nrows=2, ncols=2)
    assert not negative_cycle(A) and not negative_cycle(A, 1)
    rec = bg.Stats()
    assert not negative_cycle(A, stats=rec) and rec.method == "none"
    C = bg.Matrix.from_coo([0, 1], [1, 0], [1, -2], nrows=2, ncols=2)
    assert negative_cycle(C, stats=rec) and rec.method == "bellman-ford"
    D = bg.Matrix.from_coo([0], [1], [-2], nrows=2, ncols=2)  # auto: Bellman-Ford
    assert sssp(D, 0, stats=rec).to_dense().tolist() == [0, -2] and rec.method == "bellman-ford"
    assert not negative_cycle(bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2))
    assert not negative_cycle(bg.Matrix.from_coo([], [], np.array([], np.float64), nrows=0, ncols=0))
    B = bg.Matrix.from_coo([0, 1], [1, 0], [1.0, 0.5], nrows=2, ncols=2)
    assert not negative_cycle(B)
    with pytest.raises(bg.InvalidIndex, match="negative_cycle: source 2 is out of range"):
        negative_cycle(B, 2)
    with pytest.raises(bg.DimensionMismatch, match="negative_cycle"):
        negative_cycle(bg.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3))


def test_negative_weights_small_int_dtype():
    # int8 distances that fit, and one below the range of int8
    A = bg.Matrix.from_coo([0, 1], [1, 2], np.array([-100, -20], np.int8), nrows=3, ncols=3)
    B = bg.Matrix.from_coo([0, 1], [1, 2], np.array([-100, -100], np.int8), nrows=3, ncols=3)
    with pytest.raises(OverflowError, match="the distance to vertex 2 is -200.*int8"):
        sssp(B, 0)
    d = sssp(A, 0)
    assert d.dtype == np.int8 and d.to_dense().tolist() == [0, -100, -120]


def test_negative_weights_int64_large():
    # |w| * n past int64: the numpy rounds check every sum for wrapping
    big = np.array([-(2**62), -(2**62) - 1, 5], np.int64)
    A = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], big, nrows=3, ncols=3)
    with pytest.raises(OverflowError, match="path sum to vertex 2 passed the range of int64"):
        sssp(A, 0)
    ok = np.array([-(2**62), 2**62, 5], np.int64)
    B = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], ok, nrows=3, ncols=3)
    assert sssp(B, 0).to_dense().tolist() == [0, -(2**62), 0]
    C = bg.Matrix.from_coo([0, 1], [1, 0], np.array([2**62, -(2**62) - 1], np.int64), nrows=2, ncols=2)
    with pytest.raises(NegativeCycle, match="total weight -1\\)"):
        sssp(C, 0)
    assert negative_cycle(C) and negative_cycle(C, 1)


def test_negative_weights_transposed_view():
    """sssp(A.T, s) with negative weights: cycles and distances along A.T's edges."""
    A = bg.Matrix.from_coo([1, 2, 3, 0], [0, 1, 2, 3], [5, 2, -4, 1], nrows=5, ncols=5)
    assert sssp(A.T, 0).to_dense(-99).tolist() == [0, 5, 7, 3, -99]  # cycle 0-1-2-3-0 weighs 4
    assert not negative_cycle(A.T)
    B = bg.Matrix.from_coo([1, 2, 3, 1], [0, 1, 2, 3], [5, 2, -4, 1], nrows=5, ncols=5)
    with pytest.raises(NegativeCycle) as info:  # B.T: 1 -> 2 -> 3 -> 1 weighs -1
        sssp(B.T, 0)
    assert info.value.cycle == [1, 2, 3] and info.value.weight == -1
    _assert_on_negative_cycle(info.value, B.to_scipy().T.tocsr(), 0)
    # B itself: 1 -> 3 -> 2 -> 1 weighs -1 too, but 0 has no out-edge in B
    assert negative_cycle(B.T, 0) and negative_cycle(B) and not negative_cycle(B, 0)
