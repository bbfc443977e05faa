"""sssp against scipy.sparse.csgraph.dijkstra (and shortest_path unweighted).

Weighted hypothesis graphs of every value dtype, with zero weights,
self-loops, duplicates (combined with min), several components; each method;
the delta kernel serial and with every frontier on the thread pool; real
graphs from tests/data; the errors. The bodies that make sense on a GPU
take the ``device`` parameter (``oracle.DEVICES``: the "cuda" cases run
where CuPy sees a GPU), and the CUDA kernel's branches have their own
cases (zero and +inf weights, many buckets, a hub over many warps' edge
chunks beside rows of one edge or none, batches of rounds between reads,
the GPU's default delta, reused workspaces, tiny and huge delta, int64
indices, saturated sums).
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import oracle as O
from bitgraph.algorithms.shortest_paths import _rows_by_weight, default_delta, negative_cycle, sssp
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


def _run(A, source, device, **kw):
    """sssp of A moved to ``device``, its result checked to be there, on the host.
    On a GPU both CUDA schedules run (settings.sssp.cuda_persistent: the bucket
    loop on the device, or the host's loop of launches) and must agree exactly."""
    got = sssp(O.on_device(A, device), source, **kw)
    assert isinstance(got, bg.Vector) and got.device == device
    if device == "cuda":
        other = not bg.settings.current().sssp.cuda_persistent
        kw2 = dict(kw, stats=bg.Stats()) if "stats" in kw else kw
        with bg.settings.use(sssp={"cuda_persistent": other}):
            again = sssp(O.on_device(A, device), source, **kw2)
        assert again.device == device and O.to_host(again).isequal(O.to_host(got))
    return O.to_host(got)


def _dense(v, fill=0):
    """A result Vector of any device as a list, ``fill`` where absent."""
    return O.to_host(v).to_dense(fill).tolist()


def _expect(spec, dtype, source, device="cpu", **kw):
    """Run sssp on ``device`` and compare with dijkstra, or expect
    OverflowError when a true distance does not fit in ``dtype``."""
    A = O.on_device(spec.matrix(bg), device)
    ref = csgraph.dijkstra(_scipy_graph(spec), directed=True, indices=source)
    finite = ref[np.isfinite(ref)]
    if dtype.kind in "iu" and finite.max() > np.iinfo(dtype).max:
        with pytest.raises(OverflowError, match="sssp: the distance to vertex"):
            sssp(A, source, **kw)
        return
    # float32: sums rounded in float32 (as GraphBLAS's min_plus on FP32)
    exact = dtype == np.float64 or bool(np.all(spec.weights == spec.weights.astype(np.float16)))
    _check(_run(A, source, device, **kw), ref, dtype, exact=exact)


@pytest.mark.parametrize("device", O.DEVICES)
@given(weighted(), st.data())
@settings(max_examples=500)
def test_delta_vs_dijkstra(device, case, data):
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    _expect(spec, dtype, s, device, method="delta")


@pytest.mark.parametrize("device", O.DEVICES)
@given(weighted(), st.data())
@settings(max_examples=300)
def test_bellman_ford_vs_dijkstra(device, case, data):
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    _expect(spec, dtype, s, device, method="bellman-ford")


@pytest.mark.parametrize("device", O.DEVICES)
@given(weighted(dtypes=["int32", "float64", "float32"]), st.data())
@settings(max_examples=200)
def test_delta_widths(device, case, data):
    """Any bucket width gives the exact distances: narrow (Dial), the
    default, and one bucket for everything (label-correcting)."""
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    base = default_delta(A)
    wmax = float(spec.weights.max()) if spec.weights.size else 0.0
    scale = data.draw(st.sampled_from([0.25, 1.0, 4.0, 1e9]), label="scale")
    delta = max(base * scale, wmax / (bg.settings.SSSP().max_bins - 4), 1e-12)
    _expect(spec, dtype, s, device, method="delta", delta=delta)


@given(weighted(dtypes=["int32", "int64", "uint64", "float32", "float64"], max_n=80), st.data())
@settings(max_examples=200)
def test_kernel_parallel_rounds(case, data):
    """Every frontier a parallel round (the driver and its helpers lowering
    dist by compare-and-swap) equals the serial kernel exactly, also when
    the bucket pool grows (the helpers leave and start again)."""
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


@given(weighted(dtypes=["int32", "float64"], max_n=60), st.data())
@settings(max_examples=20)
def test_kernel_more_helpers_than_pool_threads(case, data):
    """Eight threads asked for on a smaller pool: the helpers the pool never
    starts are not waited for (the driver closes the joining) and the
    distances are exact."""
    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    c = A._csr()._replace(values=A._csr().values.astype(dtype))
    serial, _ = kernel.delta_stepping(c, s, 1e9, dtype, parallel=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NUMBA_NUM_THREADS", "8")
        par, _ = kernel.delta_stepping(c, s, 1e9, dtype, parallel=True, par_edges=0)
    np.testing.assert_array_equal(serial, par)


def _hub_graph(rng, w_max):
    """A hub (vertex 0) of 3000 out-edges whose heads have 0-3 out-edges,
    plus a chain from the last head (thousands of small frontiers after
    a large one); integer weights in [0, w_max]."""
    n = 4000
    r = np.r_[np.zeros(3000, np.int64), rng.integers(1, 3001, 6000), np.arange(3000, n - 1)]
    c = np.r_[np.arange(1, 3001), rng.integers(0, n, 6000), np.arange(3001, n)]
    w = rng.integers(0, w_max + 1, r.size)
    S = sp.csr_array((w, (r, c)), shape=(n, n))
    S.sum_duplicates()
    S.sort_indices()
    return S


@pytest.mark.parametrize("case", ["all-light", "zero-weights", "hub-dial", "hub-default"])
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_kernel_one_thread_equals_several(case, dtype):
    """The one-thread kernel (plain stores) and the driver with helpers
    (serial rounds below par_edges, rounds on every thread above) give the
    same exact distances and, where no round is shared, the same count of
    relaxations; the pool sized at the start never grows (no relaunch)."""
    from bitgraph.formats.csr import CSR

    rng = np.random.default_rng(11)
    S = _hub_graph(rng, 0 if case == "zero-weights" else 255)
    W = np.dtype(dtype)
    c = CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data.astype(W), *S.shape)
    delta = {"all-light": 1e9, "zero-weights": 1.0, "hub-dial": 1.0, "hub-default": 16.0}[case]
    ref = csgraph.dijkstra(sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr),
                                        shape=S.shape), directed=True, indices=0)
    inf = np.inf if W.kind == "f" else np.iinfo(W).max
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernel, "_grow", lambda *a: pytest.fail("the pool grew"))
        one, rel1 = kernel.delta_stepping(c, 0, delta, W, parallel=False)
        for par_edges in (0, 64, 1 << 40):  # every round shared, the hub's only, none
            par, rel = kernel.delta_stepping(c, 0, delta, W, parallel=True, par_edges=par_edges)
            np.testing.assert_array_equal(one, par)
            if par_edges == 1 << 40:
                assert rel == rel1
    np.testing.assert_array_equal(np.where(np.isinf(ref), inf, ref).astype(W), one)
    if case != "all-light":  # integer weights, delta 1: Dial's, each vertex relaxed once
        assert delta != 1.0 or rel1 == np.isfinite(ref).sum()
    else:  # one bucket: a vertex may be relaxed again, never fewer than once
        assert rel1 >= np.isfinite(ref).sum()


def test_kernel_pool_grows_from_one_chunk():
    """A pool of one chunk grows between kernel calls (serial and with
    helpers) and the distances stay exact."""
    from bitgraph.formats.csr import CSR

    S = _hub_graph(np.random.default_rng(12), 255)
    c = CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data.astype(np.int64),
            *S.shape)
    grew = []
    real = kernel._grow
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernel, "_grow", lambda *a: grew.append(1) or real(*a))
        one, _ = kernel.delta_stepping(c, 0, 4.0, np.int64, parallel=False, initial_chunks=1)
        assert grew
        grew.clear()
        par, _ = kernel.delta_stepping(c, 0, 4.0, np.int64, parallel=True, par_edges=64,
                                       initial_chunks=1)
        assert grew
    ref, _ = kernel.delta_stepping(c, 0, 4.0, np.int64, parallel=False)
    np.testing.assert_array_equal(one, ref)
    np.testing.assert_array_equal(par, ref)


def _shaped_graph(case, rng):
    """Graphs for the rounds on every thread: a hub (3000 out-edges, then
    small rows and a chain), a long path (one vertex a bucket), two
    components with the source in the small one, all weights zero."""
    if case in ("hub", "zero-weights"):
        return _hub_graph(rng, 0 if case == "zero-weights" else 255)
    if case == "long-path":
        n = 3000
        r, c = np.arange(n - 1), np.arange(1, n)
        r, c = np.r_[r, rng.integers(0, n, 300)], np.r_[c, rng.integers(0, n, 300)]
    else:  # disconnected: vertices 0-9 a small cycle, 10.. a random graph
        n = 2000
        r = np.r_[np.arange(10), rng.integers(10, n, 16000)]
        c = np.r_[(np.arange(10) + 1) % 10, rng.integers(10, n, 16000)]
    S = sp.csr_array((rng.integers(1, 256, r.size), (r, c)), shape=(n, n))
    S.sum_duplicates()
    S.sort_indices()
    return S


@pytest.mark.parametrize("case", ["hub", "zero-weights", "long-path", "disconnected"])
@pytest.mark.parametrize("W", ["int32", "int64", "uint64", "float32", "float64"])
def test_kernel_rounds_share_and_fuse(case, W):
    """The rounds on every thread (lists shared at par_edges, fused below
    fuse_edges) on 2 and 8 threads give the one-thread kernel's distances
    for every weight dtype; where no list is shared, its relaxation count;
    a pool of one chunk runs out mid-round and the search is queued again
    (each vertex relaxed at least once)."""
    from bitgraph.formats.csr import CSR

    S = _shaped_graph(case, np.random.default_rng(21))
    W = np.dtype(W)
    c = CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data.astype(W), *S.shape)
    ref = csgraph.dijkstra(sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr),
                                        shape=S.shape), directed=True, indices=0)
    inf = np.inf if W.kind == "f" else np.iinfo(W).max
    delta = 1.0 if case == "zero-weights" else 16.0
    one, rel1 = kernel.delta_stepping(c, 0, delta, W, parallel=False)
    expect = np.full(S.shape[0], inf, W)
    expect[np.isfinite(ref)] = ref[np.isfinite(ref)].astype(W)
    np.testing.assert_array_equal(expect, one)
    reached = int(np.isfinite(ref).sum())
    for threads in ("2", "8"):
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("NUMBA_NUM_THREADS", threads)
            for par_edges, fuse_edges in ((0, 0), (0, 1000), (64, 64), (1 << 40, 0)):
                for pool in (None, 1):
                    par, rel = kernel.delta_stepping(c, 0, delta, W, parallel=True,
                                                     par_edges=par_edges, fuse_edges=fuse_edges,
                                                     initial_chunks=pool)
                    np.testing.assert_array_equal(one, par)
                    assert rel >= reached
                    if par_edges == 1 << 40 and pool is None:
                        assert rel == rel1


def test_kernel_rounds_requeue_after_the_pool_ran_out():
    """The rounds' pool runs out (one chunk at first): the kernel returns,
    the launcher grows the pool and queues every vertex of the current
    bucket or later again; exact distances."""
    from bitgraph.formats.csr import CSR

    S = _hub_graph(np.random.default_rng(13), 255)
    c = CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data.astype(np.float64),
            *S.shape)
    calls = []
    real = kernel._requeue
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernel, "_requeue", lambda *a: calls.append(a[3]) or real(*a))
        par, _ = kernel.delta_stepping(c, 0, 8.0, np.float64, parallel=True, par_edges=0,
                                       fuse_edges=0, initial_chunks=1)
    assert calls
    one, _ = kernel.delta_stepping(c, 0, 8.0, np.float64, parallel=False)
    np.testing.assert_array_equal(one, par)


@pytest.mark.parametrize("W", ["int64", "uint64"])
def test_kernel_rounds_requeue_saturated_sums(W):
    """Sums that saturate at the dtype's maximum - 1 are queued again after
    the rounds' pool ran out, as the one-thread kernel saturates them."""
    from bitgraph.formats.csr import CSR

    W = np.dtype(W)
    big = np.iinfo(W).max // 3
    rng = np.random.default_rng(3)
    n = 400
    # a chain of heavy edges (vertex 4 on past the maximum), light ones beyond
    r = np.r_[np.arange(n - 1), rng.integers(5, n, 2000)]
    c = np.r_[np.arange(1, n), rng.integers(5, n, 2000)]
    w = np.r_[np.full(n - 1, big, W), rng.integers(1, 1000, 2000).astype(W)]
    S = sp.csr_array((w, (r, c)), shape=(n, n))
    S.sum_duplicates()
    S.sort_indices()
    c = CSR(S.indptr.astype(np.int32), S.indices.astype(np.int32), S.data.astype(W), n, n)
    delta = float(big) / 1024
    one, _ = kernel.delta_stepping(c, 0, delta, W, parallel=False)
    assert (one == np.iinfo(W).max - 1).any()  # some sums saturated
    for pool in (None, 1):
        par, _ = kernel.delta_stepping(c, 0, delta, W, parallel=True, par_edges=0,
                                       fuse_edges=0, initial_chunks=pool)
        np.testing.assert_array_equal(one, par)


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float64"])
def test_cas_relaxed_keeps_the_minimum(dtype):
    """Two threads lowering the same slots by cas_relaxed leave each slot
    at the least value either offered."""
    from concurrent.futures import ThreadPoolExecutor

    from numba import njit

    from bitgraph.kernels.cpu.bits import cas_relaxed

    @njit(nogil=True)
    def lower(a, vals, rounds):
        for _ in range(rounds):
            for i in range(a.size):
                v = vals[i]
                old = a[i]
                while v < old:
                    if cas_relaxed(a, i, old, v):
                        break
                    old = a[i]

    rng = np.random.default_rng(5)
    d = np.dtype(dtype)
    a = np.full(4096, 1000, d)
    vals = [rng.integers(1, 1000, a.size).astype(d) for _ in range(2)]
    with ThreadPoolExecutor(2) as ex:
        list(ex.map(lambda v: lower(a, v, 50), vals))
    np.testing.assert_array_equal(a, np.minimum(*vals))


@pytest.mark.parametrize("device", O.DEVICES)
@given(graphs(max_n=60, weighted=False), st.data())
@settings(max_examples=120)
def test_structure_only_gives_bfs_levels(device, spec, data):
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    ref = csgraph.shortest_path(spec.scipy(), directed=True, unweighted=True, indices=s)
    for method in ("auto", "delta", "bellman-ford"):
        _check(_run(A, s, device, method=method), ref, np.dtype(np.int32))


@pytest.mark.parametrize("device", O.DEVICES)
@given(graphs(max_n=40, weighted=True), st.data())
@settings(max_examples=60)
def test_transposed_view(device, spec, data):
    """sssp(A.T, s) follows A's in-edges: the distances *to* s in A."""
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = O.on_device(spec.matrix(bg), device)
    ref = csgraph.dijkstra(_scipy_graph(spec).T.tocsr(), directed=True, indices=s)
    for method in ("delta", "bellman-ford"):
        got = sssp(A.T, s, method=method)
        assert got.device == device
        _check(O.to_host(got), ref, np.dtype(np.float64))


@pytest.mark.parametrize("device", O.DEVICES)
def test_zero_weights_and_self_loops(device):
    # 0 -0-> 1 -0-> 2, 2 -> 2 (5), 1 -3-> 3, 3 -0-> 1; 4 unreached
    A = bg.Matrix.from_coo([0, 1, 2, 1, 3], [1, 2, 2, 3, 1], [0.0, 0.0, 5.0, 3.0, 0.0],
                           nrows=5, ncols=5)
    for method in ("delta", "bellman-ford", "auto"):
        d = _run(A, 0, device, method=method)
        assert d.to_dense(-1).tolist() == [0.0, 0.0, 0.0, 3.0, -1.0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_inf_weight_reaches_nothing(device):
    A = bg.Matrix.from_coo([0, 0], [1, 2], [np.inf, 1.0], nrows=3, ncols=3)
    for method in ("delta", "bellman-ford"):
        assert _run(A, 0, device, method=method).to_dense(-1).tolist() == [0.0, -1.0, 1.0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_overflow_raises(device):
    # int8: 0 -> 1 -> 2 with weights 100: distance 200 does not fit
    A = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], np.array([100, 100], np.int8),
                                       nrows=3, ncols=3), device)
    for method in ("delta", "bellman-ford"):
        with pytest.raises(OverflowError, match="vertex 2 is 200.*int8"):
            sssp(A, 0, method=method)
        assert _dense(sssp(A, 1, method=method), -1) == [-1, 0, 100]
    # int64 sums past 2**63: the delta kernel saturates and reports
    big = np.array([2**62, 2**62, 2**62], np.int64)
    B = O.on_device(bg.Matrix.from_coo([0, 1, 2], [1, 2, 3], big, nrows=4, ncols=4), device)
    with pytest.raises(OverflowError, match="sssp: the distance to vertex 2 exceeds"):
        sssp(B, 0, method="delta")
    with pytest.raises(OverflowError, match="sssp: a path sum to vertex 2 passed"):
        sssp(B, 0, method="bellman-ford")
    # ... but a long path that overflows loses to a short one that fits
    w = np.array([2**62, 2**62 - 10, 2**62, 7], np.int64)
    C = O.on_device(bg.Matrix.from_coo([0, 1, 2, 0], [1, 2, 3, 3], w, nrows=4, ncols=4), device)
    assert _dense(sssp(C, 0, method="delta"), -1) == [0, 2**62, 2**63 - 10, 7]
    with pytest.raises(OverflowError, match="path sum to vertex 3 passed the range of int64"):
        sssp(C, 0, method="bellman-ford")


@pytest.mark.parametrize("device", O.DEVICES)
def test_uint64_large_weights(device):
    w = np.array([2**63 + 5, 3], np.uint64)
    A = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], w, nrows=3, ncols=3), device)
    d = sssp(A, 0, method="delta")
    assert d.dtype == np.uint64 and _dense(d) == [0, 2**63 + 5, 2**63 + 8]
    with pytest.raises(bg.InvalidValue, match="bellman-ford.*2\\*\\*63"):
        sssp(A, 0, method="bellman-ford")


@pytest.mark.parametrize("device", O.DEVICES)
def test_small_int_dtype_kept(device):
    A = bg.Matrix.from_coo([0, 1], [1, 2], np.array([3, 4], np.uint8), nrows=3, ncols=3)
    for method in ("delta", "bellman-ford"):
        d = _run(A, 0, device, method=method)
        assert d.dtype == np.uint8 and d.to_dense().tolist() == [0, 3, 7]


# --- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_weight_delta_names_entry(device):
    A = O.on_device(bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, -2.0, 3.0], nrows=3, ncols=3),
                    device)
    with pytest.raises(bg.InvalidValue, match=r"sssp: method='delta' needs edge weights >= 0;"
                       r" stored entry 1 has weight -2.0: use method='bellman-ford'"):
        sssp(A, 0, method="delta")
    # auto and bellman-ford take them: 0 -> 1 (1), 1 -> 2 (-2), 2 -> 0 (3): cycle weight 2
    for method in ("auto", "bellman-ford"):
        assert _dense(sssp(A, 0, method=method)) == [0.0, 1.0, -1.0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_nan_weight_raises(device):
    A = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], [1.0, np.nan], nrows=3, ncols=3), device)
    with pytest.raises(bg.InvalidValue, match="sssp: edge weights must not be NaN or -inf; stored entry 1"):
        sssp(A, 0, method="bellman-ford")
    with pytest.raises(bg.InvalidValue, match="negative_cycle: edge weights must not be NaN or -inf"):
        negative_cycle(A)
    B = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], [1.0, -np.inf], nrows=3, ncols=3), device)
    with pytest.raises(bg.InvalidValue, match="sssp: edge weights must not be NaN or -inf; stored entry 1 has weight -inf"):
        sssp(B, 0)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("source", [-1, 5, 100])
def test_bad_source(source, device):
    A = O.on_device(bg.Matrix.from_coo([0], [1], [1.0], nrows=5, ncols=5), device)
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


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", REAL)
def test_real_graphs(name, device):
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
            got = _run(A, int(s), device, method=method)
            _check(got, ref[i], dtype, exact=dtype.kind != "f")
            if dtype.kind == "f":  # float64 sums: same fixpoint, same rounding
                np.testing.assert_allclose(got.to_coo()[1], ref[i][np.isfinite(ref[i])], rtol=1e-12)


@pytest.mark.parametrize("device", O.DEVICES)
def test_real_negative_weights(device):
    """olm1000 (negative entries): delta refuses it; Bellman-Ford agrees with
    scipy's (a negative cycle, named by a vertex really on one, or equal
    distances)."""
    A = bg.io.read(data_file("olm1000.mtx"))
    with pytest.raises(bg.InvalidValue, match=r"sssp: method='delta' needs edge weights >= 0; stored entry \d+ has weight -"):
        sssp(A, 0, method="delta")
    S = A.to_scipy()
    S = sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr), shape=S.shape)
    A = O.on_device(A, device)
    for s in (0, A.nrows // 2, A.nrows - 1):
        try:
            ref = csgraph.bellman_ford(S, directed=True, indices=s)
        except csgraph.NegativeCycleError:
            with pytest.raises(NegativeCycle) as info:
                sssp(A, s)
            _assert_on_negative_cycle(info.value, S, s)
            assert negative_cycle(A, s) and negative_cycle(A)
        else:
            _check(_run(A, s, device), ref, A.dtype, exact=False)
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


@pytest.mark.parametrize("device", O.DEVICES)
@given(negative_graphs(), st.data())
@settings(max_examples=150, deadline=None)
def test_negative_weights_vs_scipy(device, g, data):
    n, rows, cols, w, dtype = g
    s = data.draw(st.integers(0, n - 1), label="source")
    A = O.on_device(bg.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n), device)
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
            _check(_run(A, s, device, method=method), ref, dtype, exact=dtype != np.float32)
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


@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_cycle_lagraph_like(device):
    # LAGraph test_BF-like: 0 -> 1 -> 2 -> 3 -> 1 with 1 -> 2 -> 3 -> 1 weighing -1
    r, c = [0, 1, 2, 3, 0], [1, 2, 3, 1, 4]
    for dtype in ("int32", "int64", "float32", "float64"):
        w = np.array([5, 2, -4, 1, 7], dtype)
        A = O.on_device(bg.Matrix.from_coo(r, c, w, nrows=6, ncols=6), device)
        with pytest.raises(NegativeCycle, match=r"sssp: a negative cycle is reachable from"
                           r" source 0: vertex [123] lies on it \(3 vertices") as info:
            sssp(A, 0)
        assert sorted(info.value.cycle) == [1, 2, 3] and info.value.weight == -1
        assert type(info.value.weight) is (float if dtype[0] == "f" else int)
        assert isinstance(info.value, bg.InvalidValue) and isinstance(info.value, ValueError)
        _assert_on_negative_cycle(info.value, O.to_host(A).to_scipy(), 0)
        # unreachable from 4 and 5: no error
        assert _dense(sssp(A, 4), -9) == [-9, -9, -9, -9, 0, -9]
        assert not negative_cycle(A, 4) and negative_cycle(A, 0) and negative_cycle(A, 2)
        assert negative_cycle(A)
    # the same cycle at weight 0: distances, no cycle
    A = O.on_device(bg.Matrix.from_coo(r, c, [5, 2, -3, 1, 7], nrows=6, ncols=6), device)
    assert _dense(sssp(A, 0), -9) == [0, 5, 7, 4, 7, -9]
    assert not negative_cycle(A)


@pytest.mark.parametrize("device", O.DEVICES)
def test_unreachable_negative_cycle(device):
    # 0 -> 1 (2); 2 <-> 3 weighing -3 in all; 3 -> 1 (1): reached only from 2 and 3
    A = O.on_device(bg.Matrix.from_coo([0, 2, 3, 3], [1, 3, 2, 1], [2.0, -1.0, -2.0, 1.0],
                                       nrows=4, ncols=4), device)
    assert _dense(sssp(A, 0), -1) == [0.0, 2.0, -1.0, -1.0]
    assert _dense(sssp(A, 1), -1) == [-1.0, 0.0, -1.0, -1.0]
    with pytest.raises(NegativeCycle, match="vertex [23] lies on it"):
        sssp(A, 2)
    assert negative_cycle(A) and not negative_cycle(A, 0) and negative_cycle(A, 3)


@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_self_loop(device):
    A = O.on_device(bg.Matrix.from_coo([0, 1, 2], [1, 1, 2], [1, -1, 4], nrows=3, ncols=3), device)
    with pytest.raises(NegativeCycle, match=r"vertex 1 lies on it \(1 vertices: 1 -> 1;"
                       r" total weight -1\)") as info:
        sssp(A, 0)
    assert info.value.vertex == 1 and info.value.cycle == [1]
    assert _dense(sssp(A, 2), -1) == [-1, -1, 0]
    assert negative_cycle(A) and negative_cycle(A, 0) and not negative_cycle(A, 2)
    one = O.on_device(bg.Matrix.from_coo([0], [0], [-0.5], nrows=1, ncols=1), device)
    with pytest.raises(NegativeCycle, match="vertex 0 lies on it"):
        sssp(one, 0)


@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_cycle_no_negative_weights(device):
    on = lambda M: O.on_device(M, device)  # noqa: E731
    A = on(bg.Matrix.from_coo([0, 1], [1, 0], np.array([1, 2], np.uint8), nrows=2, ncols=2))
    assert not negative_cycle(A) and not negative_cycle(A, 1)
    rec = bg.Stats()
    assert not negative_cycle(A, stats=rec) and rec.method == "none"
    C = on(bg.Matrix.from_coo([0, 1], [1, 0], [1, -2], nrows=2, ncols=2))
    assert negative_cycle(C, stats=rec) and rec.method == "bellman-ford"
    D = on(bg.Matrix.from_coo([0], [1], [-2], nrows=2, ncols=2))  # auto: Bellman-Ford
    assert _dense(sssp(D, 0, stats=rec)) == [0, -2] and rec.method == "bellman-ford"
    assert not negative_cycle(on(bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)))
    assert not negative_cycle(on(bg.Matrix.from_coo([], [], np.array([], np.float64), nrows=0,
                                                    ncols=0)))
    B = on(bg.Matrix.from_coo([0, 1], [1, 0], [1.0, 0.5], nrows=2, ncols=2))
    assert not negative_cycle(B)
    with pytest.raises(bg.InvalidIndex, match="negative_cycle: source 2 is out of range"):
        negative_cycle(B, 2)
    with pytest.raises(bg.DimensionMismatch, match="negative_cycle"):
        negative_cycle(bg.Matrix.from_coo([0], [1], [1.0], nrows=2, ncols=3))


@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_weights_small_int_dtype(device):
    # int8 distances that fit, and one below the range of int8
    A = bg.Matrix.from_coo([0, 1], [1, 2], np.array([-100, -20], np.int8), nrows=3, ncols=3)
    B = bg.Matrix.from_coo([0, 1], [1, 2], np.array([-100, -100], np.int8), nrows=3, ncols=3)
    with pytest.raises(OverflowError, match="the distance to vertex 2 is -200.*int8"):
        sssp(O.on_device(B, device), 0)
    d = _run(A, 0, device)
    assert d.dtype == np.int8 and d.to_dense().tolist() == [0, -100, -120]


@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_weights_int64_large(device):
    # |w| * n past int64: the numpy rounds check every sum for wrapping
    on = lambda M: O.on_device(M, device)  # noqa: E731
    big = np.array([-(2**62), -(2**62) - 1, 5], np.int64)
    A = on(bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], big, nrows=3, ncols=3))
    with pytest.raises(OverflowError, match="path sum to vertex 2 passed the range of int64"):
        sssp(A, 0)
    ok = np.array([-(2**62), 2**62, 5], np.int64)
    B = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], ok, nrows=3, ncols=3)
    assert _run(B, 0, device).to_dense().tolist() == [0, -(2**62), 0]
    C = on(bg.Matrix.from_coo([0, 1], [1, 0], np.array([2**62, -(2**62) - 1], np.int64),
                              nrows=2, ncols=2))
    with pytest.raises(NegativeCycle, match="total weight -1\\)"):
        sssp(C, 0)
    assert negative_cycle(C) and negative_cycle(C, 1)


@pytest.mark.parametrize("device", O.DEVICES)
def test_negative_weights_transposed_view(device):
    """sssp(A.T, s) with negative weights: cycles and distances along A.T's edges."""
    A = O.on_device(bg.Matrix.from_coo([1, 2, 3, 0], [0, 1, 2, 3], [5, 2, -4, 1], nrows=5, ncols=5),
                    device)
    assert _dense(sssp(A.T, 0), -99) == [0, 5, 7, 3, -99]  # cycle 0-1-2-3-0 weighs 4
    assert not negative_cycle(A.T)
    B = O.on_device(bg.Matrix.from_coo([1, 2, 3, 1], [0, 1, 2, 3], [5, 2, -4, 1], nrows=5, ncols=5),
                    device)
    with pytest.raises(NegativeCycle) as info:  # B.T: 1 -> 2 -> 3 -> 1 weighs -1
        sssp(B.T, 0)
    assert info.value.cycle == [1, 2, 3] and info.value.weight == -1
    _assert_on_negative_cycle(info.value, O.to_host(B).to_scipy().T.tocsr(), 0)
    # B itself: 1 -> 3 -> 2 -> 1 weighs -1 too, but 0 has no out-edge in B
    assert negative_cycle(B.T, 0) and negative_cycle(B) and not negative_cycle(B, 0)


# --- the delta kernels' branches (the CUDA one's above all) ----------------------------------
def _dijkstra_case(rows, cols, w, n, s, device, **kw):
    """sssp on ``device`` against dijkstra for one explicit graph (duplicates: the least)."""
    A = bg.Matrix.from_coo(rows, cols, w, nrows=n, ncols=n, dup_op="min")
    S = A.to_scipy()
    S = sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr), shape=(n, n))
    ref = csgraph.dijkstra(S, directed=True, indices=s)
    dtype = np.dtype(np.asarray(w).dtype)
    _check(_run(A, s, device, method="delta", **kw), ref, dtype, exact=dtype != np.float32)
    return A


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "float32", "float64"])
def test_kernel_long_path(device, dtype):
    """A path of 3000 vertices (plus shortcuts): thousands of buckets and
    rounds, every empty-bucket jump; Dial's width (delta 1) and the default."""
    rng = np.random.default_rng(5)
    n = 3000
    r = np.r_[np.arange(n - 1), rng.integers(0, n - 1, 300)]
    c = np.r_[np.arange(1, n), rng.integers(0, n, 300)]
    w = rng.integers(1, 256, r.size).astype(dtype)
    for delta in (None, 1.0, 1000.0):
        _dijkstra_case(r, c, w, n, 0, device, delta=delta)
        _dijkstra_case(r, c, w, n, n // 2, device, delta=delta)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("knobs", [{"cuda_rounds_per_read": 1, "cuda_blocks_per_sm": 1},
                                   {"cuda_rounds_per_read": 3, "cuda_blocks_per_sm": 8},
                                   {"cuda_rounds_per_read": 64, "cuda_blocks_per_sm": 1},
                                   {"cuda_rounds_per_read": 3, "cuda_light_heavy": False}])
def test_kernel_hub_and_short_rows(device, knobs):
    """A hub of 5000 out-edges (spread over many warps' edge chunks) whose
    heads have 1 out-edge each (a chunk spans 256 rows: the lanes' row
    search), 1-40 more, or none (never queued), with one block per
    multiprocessor (the grid-stride loop over chunks) and batches of 1, 3
    and 64 rounds between reads (rounds queued after the list emptied)."""
    rng = np.random.default_rng(6)
    n = 10001
    leaves = np.arange(1, 5001)
    r = np.r_[np.zeros(5000, np.int64), leaves[:3000], rng.integers(3000, 5001, 4000)]
    c = np.r_[leaves, leaves[:3000] + 5000, rng.integers(0, n, 4000)]
    w = rng.random(r.size)
    with bg.settings.use(sssp=knobs):
        _dijkstra_case(r, c, w, n, 0, device)
        _dijkstra_case(r, c, w, n, n - 1, device)
        _dijkstra_case(r, c, w, n, 4000, device)
        _dijkstra_case(r, c, (w * 200).astype(np.int32), n, 0, device)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("scale", [1.0, 16.0, 1e6])
def test_kernel_default_delta_scale(device, scale):
    """The GPU's default delta (default_delta times cuda_delta_scale) changes
    the rounds, never the distances; a CUDA graph runs in fewer rounds at
    a larger scale."""
    rng = np.random.default_rng(8)
    n, m = 2000, 12000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 256, m).astype(np.int32)
    with bg.settings.use(sssp={"cuda_delta_scale": scale}):
        _dijkstra_case(r, c, w, n, 0, device)
        if device == "cuda" and scale > 1:
            A = O.on_device(bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dup_op="min"), device)
            rec = bg.Stats()
            sssp(A, 0, stats=rec)
            with bg.settings.use(sssp={"cuda_delta_scale": 1.0}):
                base = bg.Stats()
                sssp(A, 0, stats=base)
            assert rec.metrics["rounds"] <= base.metrics["rounds"]


@pytest.mark.parametrize("device", O.DEVICES)
def test_kernel_workspace_reused(device):
    """Calls on one graph (other sources, other weight dtypes, the transposed
    view) reuse or separate their device workspaces and each gives its own
    distances; a result is not overwritten by the next call."""
    rng = np.random.default_rng(10)
    n, m = 300, 1500
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(0, 50, m).astype(np.int64)
    A = bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dup_op="min")
    S = A.to_scipy().astype(np.float64)
    G = O.on_device(A, device)
    first = sssp(G, 0)
    for s in (0, 5, 17, 5):
        ref = csgraph.dijkstra(S, directed=True, indices=s)
        _check(O.to_host(sssp(G, s)), ref, np.dtype(np.int64))
        ref_t = csgraph.dijkstra(S.T.tocsr(), directed=True, indices=s)
        _check(O.to_host(sssp(G.T, s)), ref_t, np.dtype(np.int64))
        Gf = O.on_device(bg.Matrix.from_coo(r, c, w.astype(np.float32), nrows=n, ncols=n,
                                            dup_op="min"), device)
        _check(O.to_host(sssp(Gf, s)), ref, np.dtype(np.float32))
    _check(O.to_host(first), csgraph.dijkstra(S, directed=True, indices=0), np.dtype(np.int64))


@pytest.mark.parametrize("device", O.DEVICES)
def test_kernel_zero_and_inf_weights(device):
    """Zero weights (and -0.0) keep a vertex in its bucket; +inf reaches nothing."""
    r = [0, 1, 2, 0, 3, 4, 1]
    c = [1, 2, 3, 3, 4, 5, 5]
    w = np.array([0.0, -0.0, 0.0, np.inf, 2.5, 0.0, np.inf])
    for dtype in (np.float32, np.float64):
        A = _dijkstra_case(r, c, w.astype(dtype), 7, 0, device)
        got = _run(A, 0, device)
        assert got.to_dense(-1).tolist() == [0, 0, 0, 0, 2.5, 2.5, -1]
        assert not np.signbit(got.to_coo()[1]).any()  # no -0.0 distance
    wi = np.array([0, 0, 0, 7, 3, 0, 9], np.int64)
    _dijkstra_case(r, c, wi, 7, 0, device)


@pytest.mark.parametrize("device", O.DEVICES)
def test_kernel_delta_tiny_and_huge(device):
    """The smallest delta the window takes (one bucket per weight unit /
    65532) and one bucket for everything give the same distances."""
    rng = np.random.default_rng(7)
    n, m = 700, 4000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    for w in (rng.random(m) * 50, rng.integers(1, 256, m).astype(np.int32)):
        wmax = float(w.max())
        for delta in (wmax / (bg.settings.SSSP().max_bins - 4), 1e30):
            _dijkstra_case(r, c, w, n, 3, device, delta=delta)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("n", [1, 2, 31, 33, 65, 1000])
def test_kernel_sizes_and_unreached(device, n):
    """n = 1 (with and without a self-loop), n not a multiple of 32, and
    a half of the vertices no path reaches."""
    rng = np.random.default_rng(n)
    half = max(1, n // 2)
    m = 3 * n
    r, c = rng.integers(0, half, m), rng.integers(0, half, m)  # edges among the first half
    r = np.r_[r, rng.integers(half, n, n // 4)] if n > 1 else r  # edges out of the second
    c = np.r_[c, rng.integers(0, n, r.size - c.size)]
    w = rng.integers(0, 20, r.size).astype(np.int64)
    _dijkstra_case(r, c, w, n, 0, device)
    one = bg.Matrix.from_coo([], [], np.array([], np.float64), nrows=1, ncols=1)
    assert _run(one, 0, device, method="delta").to_dense(-1).tolist() == [0.0]
    loop = bg.Matrix.from_coo([0], [0], [2.0], nrows=1, ncols=1)
    assert _run(loop, 0, device, method="delta").to_dense(-1).tolist() == [0.0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_kernel_small_ints_computed_wider(device):
    """uint8 and int16 weights run in int32 distances: a sum past the
    weights' range is computed exactly and then refused; one that fits is kept."""
    for dtype, big in ((np.uint8, 200), (np.int16, 30000)):
        A = bg.Matrix.from_coo([0, 1, 0], [1, 2, 3], np.array([big, big, 1], dtype),
                               nrows=4, ncols=4)
        with pytest.raises(OverflowError, match=f"vertex 2 is {2 * big}.*{np.dtype(dtype)}"):
            _run(A, 0, device, method="delta")
        d = _run(A, 1, device, method="delta")
        assert d.dtype == dtype and d.to_dense(-1).tolist() == [-1, 0, big, -1]


@pytest.mark.parametrize("index", ["int32", "int64"])
@pytest.mark.parametrize("W", ["int32", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("m", [0, 1, 7])
def test_edge_records_layout(index, W, m):
    """Each edge's target and weight side by side: a record of twice the
    wider item, the target first, the weight in the second half; the
    kernel given the records equals the kernel building them."""
    from bitgraph.formats.csr import CSR

    rng = np.random.default_rng(m)
    idx = rng.integers(0, 2**31 - 1, m).astype(index)
    w = (rng.integers(0, 2**31 - 1, m) * 3).astype(W)
    et, ew = kernel.edge_records(idx, w)
    st_, sw = kernel._strides(et, ew)
    rec = 2 * max(np.dtype(index).itemsize, np.dtype(W).itemsize)
    assert (st_ * et.itemsize, sw * ew.itemsize) == (rec, rec)
    assert et.size * et.itemsize == m * rec
    np.testing.assert_array_equal(et[::st_], idx)
    np.testing.assert_array_equal(ew[::sw][:m], w)
    # the weight's bytes begin halfway through its record
    if m:
        offset = ew.__array_interface__["data"][0] - et.__array_interface__["data"][0]
        assert offset == rec // 2
    S = _hub_graph(rng, 255)
    c = CSR(S.indptr.astype(index), S.indices.astype(index), S.data.astype(W), *S.shape)
    records = kernel.edge_records(c.indices, c.values)
    for parallel in (False, True):
        own, _ = kernel.delta_stepping(c, 0, 16.0, W, parallel=parallel, par_edges=64)
        given, _ = kernel.delta_stepping(c, 0, 16.0, W, parallel=parallel, par_edges=64,
                                         edges=records)
        np.testing.assert_array_equal(own, given)


def test_edge_records_checked():
    """Records of other dtypes or of fewer edges than A's are refused."""
    from bitgraph.formats.csr import CSR

    c = CSR(np.array([0, 2, 3, 3], np.int32), np.array([1, 2, 2], np.int32),
            np.array([1, 5, 2], np.int32), 3, 3)
    with pytest.raises(TypeError, match="edges of int32 targets and int64 weights"):
        kernel.delta_stepping(c, 0, 1.0, np.int32,
                              edges=kernel.edge_records(c.indices, c.values.astype(np.int64)))
    with pytest.raises(ValueError, match="edges' targets has 4 entries, needs 6"):
        kernel.delta_stepping(c, 0, 1.0, np.int32,
                              edges=kernel.edge_records(c.indices[:2], c.values[:2]))


def test_edge_records_cached_on_the_matrix():
    """sssp builds the CPU kernel's edge records once per weight dtype and
    keeps them on the Matrix (slot ``sssp_edges``); a new storage drops them."""
    from bitgraph.algorithms._common import known

    S = _hub_graph(np.random.default_rng(13), 255)
    A = bg.Matrix.from_scipy(S.astype(np.int32))
    built = []
    real = kernel.edge_records
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(kernel, "edge_records", lambda *a: built.append(1) or real(*a))
        first = sssp(A, 0)
        second = sssp(A, 0)
    assert built == [1]
    assert known(A, "sssp_edges", key=np.dtype(np.int32)) is not None
    np.testing.assert_array_equal(first.to_dense(), second.to_dense())
    A[0, 1] = 1
    assert known(A, "sssp_edges", key=np.dtype(np.int32)) is None


@pytest.mark.parametrize("device", O.DEVICES)
def test_kernel_int64_indices(device):
    """A CSR with int64 indices takes the int64 specialisations."""
    A32 = bg.io.generators.from_spec("kron:9")
    S = A32.to_scipy().tocsr()
    rng = np.random.default_rng(9)
    w = rng.integers(1, 256, S.nnz).astype(np.int32)
    S64 = sp.csr_array((w, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
                       shape=S.shape)
    A64 = bg.Matrix.from_scipy(S64)
    ref = csgraph.dijkstra(sp.csr_array((w.astype(np.float64), S.indices, S.indptr),
                                        shape=S.shape), directed=True, indices=5)
    for method in ("delta", "bellman-ford"):
        _check(_run(A64, 5, device, method=method), ref, np.dtype(np.int32))


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["delta", "persistent"])
@given(weighted(dtypes=["int32", "int64", "uint64", "float32", "float64"], max_n=80), st.data())
@settings(max_examples=200)
def test_cuda_kernel_equals_cpu_kernel(variant, case, data):
    """The CUDA launcher's raw distances (unreached, saturated) equal the CPU
    kernel's exactly, for int32 and int64 indices and any width."""
    import cupy

    from bitgraph.kernels import registry

    spec, dtype = case
    s = data.draw(st.integers(0, spec.n - 1), label="source")
    A = spec.matrix(bg)
    W = {"int32": np.int32, "int64": np.int64, "uint64": np.uint64}.get(dtype.name, dtype)
    c = A._csr()._replace(values=A._csr().values.astype(W))
    idx = data.draw(st.sampled_from([np.int32, np.int64]), label="index")
    g = c._replace(indptr=cupy.asarray(c.indptr.astype(idx)),
                   indices=cupy.asarray(c.indices.astype(idx)), values=cupy.asarray(c.values))
    delta = data.draw(st.sampled_from([default_delta(A), 1.0, 1e9]), label="delta")
    ref, _ = kernel.delta_stepping(c, s, delta, W, parallel=False)
    run = registry.lookup("sssp", fmt="csr", device="cuda", variant=variant)
    # light/heavy on rows by weight, and on rows in column order (exact too)
    light_heavy = data.draw(st.sampled_from([False, True]), label="light_heavy")
    if light_heavy and data.draw(st.booleans(), label="by_weight"):
        g = _rows_by_weight(g)
    stats = bg.Stats()
    work = {}
    for _ in range(2):  # the second run reuses the first's workspace
        got, rounds = run(g, s, delta, np.dtype(W), stats=stats, work=work,
                          light_heavy=light_heavy)
        np.testing.assert_array_equal(cupy.asnumpy(got), ref)
        assert len(work) == 1
    # a round per non-empty near or member list: the source's, when it has an out-edge
    assert (rounds >= 1) == bool(c.indptr[s + 1] > c.indptr[s])
    assert stats.metrics["kernel_ms"] >= 0 and stats.metrics["reads"] >= 1
    # every out-edge of a reached vertex relaxed at least once
    deg = np.diff(c.indptr)
    assert stats.metrics["edges"] >= int(deg[ref != _unreached(ref.dtype)].sum())


def _unreached(dtype):
    """The raw kernels' distance of an unreached vertex."""
    dtype = np.dtype(dtype)
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _light_heavy_case(rows, cols, w, n, s, device, delta):
    """_dijkstra_case with light/heavy edges on and off (the CUDA kernel's
    two paths); on a GPU each relaxes every out-edge of a reached vertex at
    least once (the edges metric). Returns that metric by setting (GPU)."""
    edges = {}
    for on in (True, False):
        with bg.settings.use(sssp={"cuda_light_heavy": on}):
            A = _dijkstra_case(rows, cols, w, n, s, device, delta=delta)
            rec = bg.Stats()
            d = _run(A, s, device, method="delta", delta=delta, stats=rec)
            if device == "cuda":
                deg = np.diff(A._csr().indptr)
                reached = np.zeros(n, bool)
                reached[d.indices()] = True
                assert rec.metrics["edges"] >= int(deg[reached].sum())
                edges[on] = rec.metrics["edges"]
    return edges


@pytest.mark.parametrize("device", O.DEVICES)
def test_kernel_light_heavy_branches(device):
    """The light/heavy split's branches: every edge light (one huge bucket),
    every edge heavy (near lists empty, member rounds only), zero weights
    (light, the bucket never advances), a vertex whose edges are all heavy
    inside a bucket of light paths, a hub of 5000 mixed edges, and a heavy
    edge that lands below the bucket's end (the member round's near list)."""
    rng = np.random.default_rng(11)
    n, m = 500, 3000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    for dtype in (np.int32, np.float64, np.uint64):
        w = rng.integers(1, 256, m).astype(dtype)
        _light_heavy_case(r, c, w, n, 0, device, 1e9)    # all light
        _light_heavy_case(r, c, w, n, 0, device, 1.0)    # all heavy: no weight below 1 (Dial)
        _light_heavy_case(r, c, (w + 9).astype(dtype), n, 0, device, 8.0)  # all heavy
        wz = w.copy()
        wz[rng.random(m) < 0.5] = 0
        _light_heavy_case(r, c, wz, n, 0, device, 4.0)   # zero weights: light
    # a path of light edges whose middle vertex 2 has heavy edges only (3 -> 5, 2 -> 4)
    pr = [0, 1, 2, 2, 3, 3, 4]
    pc = [1, 2, 3, 4, 4, 5, 5]
    pw = np.array([1, 1, 30, 40, 1, 30, 2], np.int64)
    _light_heavy_case(pr, pc, pw, 6, 0, device, 10.0)
    # a far jump: the least far distance 95 opens bucket [90, 100) (delta 10)
    _light_heavy_case([0, 1, 0, 1], [1, 2, 2, 3], np.array([95, 2, 96, 12], np.int32), 4, 0,
                      device, 10.0)
    # a hub of 5000 edges, half light, half heavy, heads with a few edges each
    hub = 5000
    hr = np.r_[np.zeros(hub, np.int64), rng.integers(1, hub + 1, 8000)]
    hc = np.r_[np.arange(1, hub + 1), rng.integers(1, hub + 1, 8000)]
    hw = np.r_[rng.choice([1, 2, 200, 250], hub), rng.integers(1, 256, 8000)].astype(np.int32)
    _light_heavy_case(hr, hc, hw, hub + 1, 0, device, 64.0)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["delta", "persistent"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "uint64"])
def test_cuda_member_rounds_feed_near_lists(dtype, variant):
    """light_heavy on rows in descending weight order: lend (a binary search
    that assumes ascending rows) puts light edges in the heavy suffixes, so
    member rounds improve vertices below the threshold (their near and
    member lists) and the bucket loops until both lists are empty: the
    distances stay exact."""
    import cupy

    from bitgraph.kernels import registry

    rng = np.random.default_rng(13)
    n, m = 3000, 20000
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(0, 256, m).astype(dtype)
    A = bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dup_op="min")
    h = A._csr()
    rows = np.repeat(np.arange(n), np.diff(h.indptr))
    order = np.lexsort((-h.values.astype(np.float64), rows))  # each row by descending weight
    g = h._replace(indptr=cupy.asarray(h.indptr), indices=cupy.asarray(h.indices[order]),
                   values=cupy.asarray(h.values[order]))
    W = np.dtype(dtype)
    run = registry.lookup("sssp", fmt="csr", device="cuda", variant=variant)
    for delta in (4.0, 64.0):
        ref, _ = kernel.delta_stepping(h, 0, delta, W, parallel=False)
        for light_heavy in (True, False):
            got, _ = run(g, 0, delta, W, light_heavy=light_heavy)
            np.testing.assert_array_equal(cupy.asnumpy(got), ref)


@pytest.mark.parametrize("device", O.DEVICES)
def test_rows_by_weight(device):
    """The cached copy light/heavy reads: every row's (column, weight) pairs
    kept, in ascending weight order, ties in column order; empty rows kept."""
    rng = np.random.default_rng(12)
    n, m = 60, 400
    r, c = rng.integers(0, n - 5, m), rng.integers(0, n, m)  # the last 5 rows empty
    w = rng.integers(0, 9, m).astype(np.float32)
    A = bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n, dup_op="min")
    got = _rows_by_weight(O.on_device(A, device)._csr())
    want = A._csr()
    ptr, idx, val = (O.to_host(x) for x in (got.indptr, got.indices, got.values))
    np.testing.assert_array_equal(ptr, want.indptr)
    for v in range(n):
        a, b = ptr[v], ptr[v + 1]
        pairs = sorted(zip(want.values[a:b].tolist(), want.indices[a:b].tolist()))
        assert list(zip(val[a:b].tolist(), idx[a:b].tolist())) == pairs


@pytest.mark.parametrize("device", O.DEVICES)
def test_stats_name_the_kernel(device):
    A = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], [1.0, 2.0], nrows=3, ncols=3), device)
    rec = bg.Stats()
    assert _dense(sssp(A, 0, stats=rec)) == [0.0, 1.0, 3.0]
    assert rec.method == "delta"
    variant = "persistent" if device == "cuda" else "delta"  # settings.sssp.cuda_persistent
    assert rec.kernels == [("sssp", "csr", device, variant)]
    if device == "cuda":
        assert rec.metrics["reads"] == 1 and rec.metrics["rounds"] >= 1
        with bg.settings.use(sssp={"cuda_persistent": False}):
            rec = bg.Stats()
            assert _dense(sssp(A, 0, stats=rec)) == [0.0, 1.0, 3.0]
        assert rec.kernels == [("sssp", "csr", device, "delta")]


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "float32", "float64"])
def test_kernel_small_shapes(device, dtype):
    """The kernels' edge shapes on both CUDA schedules (``_run``): one vertex
    (alone, with a self-loop), vertices without edges, a star of 1000 leaves
    (n not a multiple of 32) from its hub and from a leaf, two components
    (the other unreachable), zero weights only, int64 indices forced."""
    none = np.zeros(0, np.int64)
    _dijkstra_case(none, none, np.zeros(0, dtype), 1, 0, device)
    _dijkstra_case([0], [0], np.ones(1, dtype), 1, 0, device)
    _dijkstra_case(none, none, np.zeros(0, dtype), 37, 5, device)
    k = 1000
    w = (np.arange(k) % 251 + 1).astype(dtype)
    _dijkstra_case(np.zeros(k, np.int64), np.arange(1, k + 1), w, k + 1, 0, device)
    _dijkstra_case(np.zeros(k, np.int64), np.arange(1, k + 1), w, k + 1, 7, device)
    both = np.r_[np.zeros(k, np.int64), np.arange(1, k + 1)]  # undirected star
    _dijkstra_case(both, np.r_[np.arange(1, k + 1), np.zeros(k, np.int64)], np.r_[w, w],
                   k + 1, 7, device)
    rng = np.random.default_rng(21)
    r, c = rng.integers(0, 40, 200), rng.integers(0, 40, 200)  # 0..39, 40..79 apart
    _dijkstra_case(np.r_[r, r + 40], np.r_[c, c + 40], rng.integers(1, 9, 400).astype(dtype),
                   80, 3, device)
    _dijkstra_case(r, c, np.zeros(200, dtype), 45, 3, device)
    S = sp.csr_array((rng.integers(1, 256, 200).astype(dtype), (r, c)), shape=(40, 40))
    S.sum_duplicates()
    S64 = sp.csr_array((S.data, S.indices.astype(np.int64), S.indptr.astype(np.int64)),
                       shape=S.shape)
    A64 = bg.Matrix.from_scipy(S64)
    ref = csgraph.dijkstra(sp.csr_array((S.data.astype(np.float64), S.indices, S.indptr),
                                        shape=S.shape), directed=True, indices=3)
    _check(_run(A64, 3, device, method="delta"), ref, np.dtype(dtype),
           exact=np.dtype(dtype) != np.float32)


def test_subnormal_weights_and_delta():
    """Weights so small that 1 / (their mean) overflows: the default delta
    falls back to one bucket; a delta like that is refused by name."""
    A = bg.Matrix.from_coo([0, 1], [1, 2], [1e-310, 2e-310], nrows=4, ncols=4)
    assert sssp(A, 0).to_dense(-1).tolist() == [0.0, 1e-310, 3e-310, -1.0]
    with pytest.raises(bg.InvalidValue, match=r"^sssp: delta must be a finite number > 0"):
        sssp(A, 0, delta=1e-310)
