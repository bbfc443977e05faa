"""betweenness_centrality and edge_betweenness_centrality against NetworkX
(every option) and LAGraph's test_Betweenness.c expectations.

The deterministic cases take a ``device`` parameter (``oracle.DEVICES``),
each method on each device; the hypothesis cases run on the CPU. The CUDA
kernel's own branches against the CPU kernel: tests/kernels/
test_betweenness_kernels.py."""

from __future__ import annotations

import math
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import oracle as O
from bitgraph.algorithms import betweenness_centrality, edge_betweenness_centrality
from graph_strategies import graphs
from testdata import data_file

REL, ABS = 1e-9, 1e-12
METHODS = ("fused", "graphblas")  # settings.betweenness.method, on either device


def use(method):
    from bitgraph import settings

    return settings.use(betweenness={"method": method})


def methods(device):
    return METHODS  # both on either device (None: fused)


def nx_graph(A):
    """The NetworkX graph of A: undirected when A's pattern is symmetric
    (what the bitgraph functions assume), else directed; vertices 0..n-1."""
    r, c, _ = O.to_host(A).to_coo()
    S = set(zip(r.tolist(), c.tolist()))
    directed = any((j, i) not in S for i, j in S)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.nrows))
    G.add_edges_from(S)
    return G


def assert_nodes(got, ref, n, device=None):
    if device == "cuda":
        import cupy
        assert isinstance(got, cupy.ndarray), type(got)
    got = O.to_host(got)
    assert got.dtype == np.float64 and got.shape == (n,)
    want = np.array([ref[v] for v in range(n)], np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (got, want)
    ok = ~np.isnan(want)
    assert np.allclose(got[ok], want[ok], rtol=REL, atol=ABS), np.abs(got - want).max()


def assert_edges(E, ref, A):
    E = O.to_host(E)
    r, c, _ = O.to_host(A).to_coo()
    er, ec, ev = E.to_coo()
    assert np.array_equal(er, r) and np.array_equal(ec, c) and ev.dtype == np.float64
    got = dict(zip(zip(er.tolist(), ec.tolist()), ev.tolist()))
    directed = nx_graph(A).is_directed()
    for (u, v), x in ref.items():
        assert math.isclose(got[u, v], x, rel_tol=REL, abs_tol=ABS), ((u, v), got[u, v], x)
        if not directed:
            assert got[v, u] == got[u, v]  # both entries hold the edge's value
    # every entry of A is an edge of G: directed one each, undirected two (a loop one)
    assert len(got) == (len(ref) if directed else 2 * len(ref) - sum(u == v for u, v in ref))


@settings(max_examples=120, deadline=None)
@given(g=graphs(max_n=40, weighted=False), normalized=st.booleans(), endpoints=st.booleans(),
       k=st.one_of(st.none(), st.integers(1, 40)), seed=st.integers(0, 2**31),
       method=st.sampled_from(METHODS))
def test_nodes_match_networkx(g, normalized, endpoints, k, seed, method):
    A = g.matrix(bg)
    G = nx_graph(A)
    k = None if k is None else min(k, g.n)
    with use(method):
        got = betweenness_centrality(A, k=k, normalized=normalized, endpoints=endpoints,
                                     seed=seed)
    ref = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=endpoints, seed=seed)
    assert_nodes(got, ref, g.n)


@settings(max_examples=80, deadline=None)
@given(g=graphs(max_n=40, weighted=False), normalized=st.booleans(),
       k=st.one_of(st.none(), st.integers(1, 40)), seed=st.integers(0, 2**31),
       method=st.sampled_from(METHODS))
def test_edges_match_networkx(g, normalized, k, seed, method):
    A = g.matrix(bg)
    G = nx_graph(A)
    k = None if k is None else min(k, g.n)
    with use(method):
        E = edge_betweenness_centrality(A, k=k, normalized=normalized, seed=seed)
    ref = nx.edge_betweenness_centrality(G, k=k, normalized=normalized, seed=seed)
    assert_edges(E, ref, A)


@settings(max_examples=60, deadline=None)
@given(g=graphs(max_n=40, weighted=False), endpoints=st.booleans(),
       k=st.one_of(st.none(), st.integers(1, 40)), seed=st.integers(0, 2**31),
       method=st.sampled_from(METHODS))
def test_grouped_sources_match_networkx(g, endpoints, k, seed, method):
    """Batches of 3 sources, grouped by their hub anchors whenever there are
    two batches or more (settings.betweenness.group_batches 2): nodes and
    edges as NetworkX's."""
    from bitgraph import settings as S

    A = g.matrix(bg)
    G = nx_graph(A)
    k = None if k is None else min(k, g.n)
    with S.use(betweenness={"method": method, "batch": 3, "group_batches": 2}):
        got = betweenness_centrality(A, k=k, endpoints=endpoints, seed=seed)
        E = edge_betweenness_centrality(A, k=k, seed=seed)
    assert_nodes(got, nx.betweenness_centrality(G, k=k, endpoints=endpoints, seed=seed), g.n)
    assert_edges(E, nx.edge_betweenness_centrality(G, k=k, seed=seed), A)


@settings(max_examples=60, deadline=None)
@given(g=graphs(max_n=40, weighted=False))
def test_hub_anchors(g):
    """Each vertex's out-neighbour of the highest out-degree, the smaller id
    on ties, itself without out-neighbours (self-loops count as out-edges);
    grouped_sources sorts by it, then by id, keeping repeats."""
    from bitgraph.algorithms._common import out_csr
    from bitgraph.algorithms.betweenness import grouped_sources
    from bitgraph.kernels.registry import lookup

    A = g.matrix(bg)
    c = out_csr(A)
    deg = np.diff(c.indptr)
    want = []
    for v in range(A.nrows):
        nb = c.indices[c.indptr[v]:c.indptr[v + 1]].tolist()
        want.append(min(nb, key=lambda u: (-deg[u], u)) if nb else v)
    got = lookup("betweenness", fmt="csr", device="cpu", variant="anchors")(c)
    assert got.dtype == np.int64 and got.tolist() == want
    src = np.array(list(range(A.nrows)) + [0, A.nrows - 1], np.int64)
    out = grouped_sources(A, src)
    assert sorted(out.tolist()) == sorted(src.tolist())
    keys = [(want[s], s) for s in out.tolist()]
    assert keys == sorted(keys)


@pytest.mark.parametrize("device", O.DEVICES)
def test_grouped_sources_same_values(device):
    """kron-9, every source in batches of 64 (6 batches): grouped (the
    default from 32 batches, here from 2) and in the given order equal up to
    the order of the float sums, nodes and edges; NetworkX's values."""
    from bitgraph import settings as S

    A_cpu = bg.io.generators.kron(9, 8, seed=3)
    A = O.on_device(A_cpu, device)
    with S.use(betweenness={"group_batches": 0}):
        plain = O.to_host(betweenness_centrality(A, normalized=False))
        E0 = O.to_host(edge_betweenness_centrality(A)).to_coo()[2]
    with S.use(betweenness={"group_batches": 2}):
        got = betweenness_centrality(A, normalized=False)
        E = O.to_host(edge_betweenness_centrality(A)).to_coo()[2]
    assert np.allclose(O.to_host(got), plain, rtol=1e-12, atol=1e-12)
    assert np.allclose(E, E0, rtol=1e-12, atol=1e-12)
    assert_nodes(got, nx.betweenness_centrality(nx_graph(A_cpu), normalized=False), A.nrows,
                 device)
    with S.use(betweenness={"group_batches": -1}):
        with pytest.raises(bg.InvalidValue, match="group_batches must be an integer >= 0"):
            betweenness_centrality(A)


@settings(max_examples=40, deadline=None)
@given(g=graphs(max_n=40, weighted=False), data=st.data())
def test_sources_scale_as_that_sample(g, data):
    """Given sources are scaled as NetworkX scales a sample of them: equal
    to NetworkX's answer for the k and seed that draw those sources."""
    A = g.matrix(bg)
    k = data.draw(st.integers(1, g.n), label="k")
    seed = data.draw(st.integers(0, 2**31), label="seed")
    src = random.Random(seed).sample(range(g.n), k)
    for normalized in (False, True):
        for endpoints in (False, True):
            got = betweenness_centrality(A, sources=src, normalized=normalized, endpoints=endpoints)
            want = betweenness_centrality(A, k=k, seed=seed, normalized=normalized,
                                          endpoints=endpoints)
            # (k = n: NetworkX's exact answer, the same scale)
            assert np.allclose(got, want, rtol=REL, atol=ABS, equal_nan=True)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("method", METHODS)
def test_more_than_one_batch_and_seeds(method, device):
    """200 sources: four batches (one of 8); a seed as an int, a random.Random
    (its state moves as NetworkX's does) and None (the random module's);
    a fused level on the thread pool (parallel_work 1) and serial."""
    from bitgraph import settings

    A_cpu = bg.io.generators.urand(8, 4, seed=1)
    A = O.on_device(A_cpu, device)
    with settings.use(betweenness={"method": method, "parallel_work": 1}):
        assert_nodes(betweenness_centrality(A), nx.betweenness_centrality(nx_graph(A)), A.nrows,
                     device)
    with use(method):
        _batches_and_seeds(A, A_cpu, device)


def _batches_and_seeds(A, A_cpu, device):
    G = nx_graph(A)
    assert_nodes(betweenness_centrality(A), nx.betweenness_centrality(G), A.nrows, device)
    ours, theirs = random.Random(5), random.Random(5)
    assert_nodes(betweenness_centrality(A, k=200, seed=ours),
                 nx.betweenness_centrality(G, k=200, seed=theirs), A.nrows, device)
    assert ours.random() == theirs.random()
    random.seed(11)
    got = betweenness_centrality(A, k=70, endpoints=True)
    random.seed(11)
    assert_nodes(got, nx.betweenness_centrality(G, k=70, endpoints=True), A.nrows, device)
    E = edge_betweenness_centrality(A, k=100, seed=3)
    assert E.device == device
    assert_edges(E, nx.edge_betweenness_centrality(G, k=100, seed=3), A_cpu)


@pytest.mark.parametrize("device", O.DEVICES)
def test_directed_symmetric_pattern_is_undirected(device):
    # a DiGraph with both directions: the Matrix is symmetric, so undirected
    for method in methods(device):
        with use(method):
            A = O.on_device(bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], nrows=3, ncols=3),
                            device)
            got = betweenness_centrality(A, normalized=False)
            assert O.to_host(got).tolist() == [0.0, 1.0, 0.0]
            D = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3), device)  # 0->1->2
            assert O.to_host(betweenness_centrality(D, normalized=False)).tolist() == [0, 1, 0]
            assert O.to_host(betweenness_centrality(D)).tolist() == [0.0, 0.5, 0.0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_small_graphs(device):
    for method in methods(device):
        with use(method):
            _small_graphs(device)


def _small_graphs(device):
    for n in (0, 1, 2):
        A = O.on_device(bg.Matrix.from_coo([], [], nrows=n, ncols=n), device)
        assert O.to_host(betweenness_centrality(A)).tolist() == [0.0] * n
        assert edge_betweenness_centrality(A).nvals == 0
    A = O.on_device(bg.Matrix.from_coo([0, 0], [0, 1], nrows=2, ncols=2), device)  # a loop, an edge
    G = nx.DiGraph([(0, 0), (0, 1)])
    assert_nodes(betweenness_centrality(A, endpoints=True),
                 nx.betweenness_centrality(G, endpoints=True), 2, device)
    E = O.to_host(edge_betweenness_centrality(A, normalized=False))
    assert E.to_coo()[2].tolist() == [0.0, 1.0]  # the self-loop's share is 0
    # k = 1 without endpoints: NetworkX scales the source by 0/0
    B = bg.io.generators.grid2d(3, 3)
    got = betweenness_centrality(O.on_device(B, device), k=1, seed=2)
    assert_nodes(got, nx.betweenness_centrality(nx_graph(B), k=1, seed=2), 9, device)
    assert np.isnan(O.to_host(got)).sum() == 1


_path = O.path_matrix


_star = O.star_matrix


def _pieces():
    """A directed graph of n = 83 (not a multiple of 32): a random part with
    self-loops, a directed path, a few isolated vertices, unreachable ones."""
    rng = np.random.default_rng(7)
    r, c = rng.integers(0, 60, 200), rng.integers(0, 60, 200)
    p = np.arange(60, 75)
    r, c = np.r_[r, p[:-1], 3, 3], np.r_[c, p[1:], 3, 60]
    return bg.Matrix.from_coo(r, c, nrows=83, ncols=83, dup_op="any")


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", ["path_1100", "path_directed_300", "star_2000", "pieces"])
def test_fused_kernel_shapes(name, device):
    """The fused kernels' shapes on either device, against NetworkX: a long
    path (depth > 1000: a launch a level, deep level lists), a star (one
    vertex of huge degree), a directed graph with self-loops, isolated and
    unreachable vertices and n not a multiple of 32; given sources in
    batches of 64, 33 and 5 (the lanes' masks)."""
    from bitgraph import settings

    A_cpu = {"path_1100": lambda: _path(1100, False),
             "path_directed_300": lambda: _path(300, True),
             "star_2000": lambda: _star(2000), "pieces": _pieces}[name]()
    A = O.on_device(A_cpu, device)
    G = nx_graph(A_cpu)
    n = A.nrows
    src = sorted(set(np.linspace(0, n - 1, 70).astype(int).tolist()))
    nodes = _nx_with_sources(G, src, False, False)
    edges = nx.edge_betweenness_centrality(G, k=40, normalized=False, seed=1)
    for method in methods(device):
        # the masked products take a product a level: one batch size for them
        for batch in (64, 33, 5) if method != "graphblas" else (64,):
            with settings.use(betweenness={"method": method, "batch": batch}):
                assert_nodes(betweenness_centrality(A, sources=src, normalized=False), nodes, n,
                             device)
                E = edge_betweenness_centrality(A, k=40, normalized=False, seed=1)
                assert_edges(E, edges, A_cpu)


def test_bad_arguments():
    A = bg.io.generators.grid2d(3, 3)
    with pytest.raises(bg.InvalidValue, match="k must be in 1..9"):
        betweenness_centrality(A, k=10)
    with pytest.raises(bg.InvalidValue, match="k must be in 1..9"):
        edge_betweenness_centrality(A, k=0)
    with pytest.raises(TypeError, match="k must be an integer"):
        betweenness_centrality(A, k=2.0)
    with pytest.raises(bg.InvalidValue, match="sources or k, not both"):
        betweenness_centrality(A, sources=[0], k=1)
    with pytest.raises(bg.InvalidIndex, match="out of range"):
        betweenness_centrality(A, sources=[9])
    with pytest.raises(TypeError, match="seed must be"):
        betweenness_centrality(A, k=2, seed="x")
    # a structure-only A with a weight: unit lengths, the hop answer
    assert np.array_equal(betweenness_centrality(A, weight="weight"), betweenness_centrality(A))
    assert edge_betweenness_centrality(A, weight=True).isequal(edge_betweenness_centrality(A))
    with pytest.raises(bg.DimensionMismatch):
        betweenness_centrality(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3))


# LAGraph's src/test/test_Betweenness.c: raw sums (no scaling) over the four
# sources, from GAP's bc, printed to 6 digits and checked there within 1e-4
KARATE_SOURCES = [6, 29, 0, 9]
KARATE_BC = [
    43.7778, 2.83333, 26.9143, 0.722222, 0.333333, 1.83333, 1.5, 0, 9.09524, 0, 0, 0, 0,
    5.19206, 0, 0, 0, 0, 0, 4.58095, 0, 0, 0, 2.4, 0, 0.422222, 0, 1.28889, 0, 0,
    0.733333, 14.5508, 17.1873, 40.6349]
WEST0067_SOURCES = [13, 58, 1, 18]
WEST0067_BC = [
    7.37262, 5.3892, 4.53788, 3.25952, 11.9139, 5.73571, 5.65336, 1.5, 19.2719, 0.343137,
    0.0833333, 0.666667, 1.80882, 12.4246, 1.92647, 22.0458, 4.7381, 34.8611, 0.1, 29.8358,
    9.52807, 9.71836, 17.3334, 54.654, 23.3118, 7.31765, 2.52381, 6.96905, 19.2291, 6.97003,
    33.0464, 7.20128, 3.78571, 7.87698, 15.3556, 7.43333, 7.19091, 9.20411, 1.10325, 6.38095,
    17.808, 5.18172, 25.8441, 7.91581, 1.13501, 0, 2.53004, 2.48168, 8.84857, 3.80708,
    1.16978, 0.0714286, 1.76786, 3.06661, 12.0742, 1.6, 4.73908, 2.3701, 3.75, 1.08571,
    1.69697, 0, 0.571429, 0, 0, 2.22381, 0.659341]


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name, sources, expected", [
    ("karate.mtx", KARATE_SOURCES, KARATE_BC),
    ("west0067.mtx", WEST0067_SOURCES, WEST0067_BC),
])
def test_lagraph_expectations(name, sources, expected, device):
    for method in methods(device):
        with use(method):
            _lagraph(name, sources, expected, device)


def _lagraph(name, sources, expected, device):
    A_cpu = bg.io.read(data_file(name))
    A = O.on_device(A_cpu, device)
    n = A.nrows
    directed = name == "west0067.mtx"
    got = O.to_host(betweenness_centrality(A, sources=sources, normalized=False))
    assert O.to_host(betweenness_centrality(A, sources=sources)).dtype == np.float64
    # undo NetworkX's scaling of a sample of K = 4 (n - 1 pairs a source)
    N, K, corr = n - 1, len(sources), 1 if directed else 2
    is_src = np.isin(np.arange(n), sources)
    raw = got / np.where(is_src, N / ((K - 1) * corr), N / (K * corr))
    assert np.allclose(raw, expected, rtol=0, atol=1e-4), np.abs(raw - expected).max()
    # and NetworkX's own answer for those sources, all options
    G = nx_graph(A_cpu)
    assert (G.is_directed()) == directed
    for normalized in (False, True):
        for endpoints in (False, True):
            got = betweenness_centrality(A, sources=sources, normalized=normalized,
                                         endpoints=endpoints)
            ref = _nx_with_sources(G, sources, normalized, endpoints)
            assert_nodes(got, ref, n)


def _nx_with_sources(G, sources, normalized, endpoints):
    """NetworkX's answer for the sample ``sources`` (a Random whose sample is them)."""
    class Fixed(random.Random):
        def sample(self, population, k):
            return list(sources)
    return nx.betweenness_centrality(G, k=len(sources), normalized=normalized,
                                     endpoints=endpoints, seed=Fixed())


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", ["karate.mtx", "west0067.mtx", "jagmesh7.mtx"])
def test_real_graphs_exact(name, device):
    for method in methods(device):
        with use(method):
            _real_graph(name, device)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", ["karate.mtx", "west0067.mtx"])
def test_fused_heavy_rows(name, device):
    """The fused method with most rows heavy on CUDA (settings.betweenness
    cuda_heavy_degree 4, chunks of 3 edges: a warp per chunk, the partials
    added per heavy vertex); west0067 is directed (in- and out-degrees
    differ). The CPU ignores the knobs: the same answers."""
    with bg.settings.use(betweenness={"method": "fused", "cuda_heavy_degree": 4,
                                      "cuda_heavy_chunk": 3}):
        _real_graph(name, device)


def _real_graph(name, device):
    A_cpu = bg.io.read(data_file(name))
    A = O.on_device(A_cpu, device)
    G = nx_graph(A_cpu)
    for endpoints in (False, True):
        assert_nodes(betweenness_centrality(A, endpoints=endpoints),
                     nx.betweenness_centrality(G, endpoints=endpoints), A.nrows)
    assert_edges(edge_betweenness_centrality(A), nx.edge_betweenness_centrality(G), A_cpu)
    assert_edges(edge_betweenness_centrality(A, normalized=False, k=20, seed=4),
                 nx.edge_betweenness_centrality(G, normalized=False, k=20, seed=4), A_cpu)


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("lanes", [65, 0])
def test_fused_pair_mode(lanes, device):
    """settings.betweenness.cuda_pair_lanes 65 (every CUDA batch without edge
    shares in pair mode: a thread per (vertex, source)) and 0 (never) give
    NetworkX's answers on karate (undirected, a heavy-ish hub at
    cuda_heavy_degree 4) and west0067 (directed); on CUDA stats count the
    pair-mode batches (none with edge shares). The CPU ignores the knob."""
    for name in ("karate.mtx", "west0067.mtx"):
        A_cpu = bg.io.read(data_file(name))
        A = O.on_device(A_cpu, device)
        G = nx_graph(A_cpu)
        for heavy in (2048, 4):
            with bg.settings.use(betweenness={"method": "fused", "cuda_pair_lanes": lanes,
                                              "cuda_heavy_degree": heavy, "batch": 20}):
                rec = bg.Stats()
                assert_nodes(betweenness_centrality(A, stats=rec),
                             nx.betweenness_centrality(G), A.nrows)
                if device == "cuda":
                    assert rec.metrics["bc_pair_batches"] == (rec.metrics["batches"]
                                                              if lanes else 0)
                rec = bg.Stats()
                assert_edges(edge_betweenness_centrality(A, stats=rec),
                             nx.edge_betweenness_centrality(G), A_cpu)
                if device == "cuda":
                    assert rec.metrics["bc_pair_batches"] == 0


@pytest.mark.parametrize("device", O.DEVICES)
def test_batch_setting(device):
    """Any batch size gives the same answer (batches of 1, 7: many batches,
    one short); a size outside 1..64 is refused."""
    from bitgraph import settings

    A = O.on_device(bg.io.read(data_file("west0067.mtx")), device)
    want = O.to_host(betweenness_centrality(A, endpoints=True))
    E = O.to_host(edge_betweenness_centrality(A)).to_coo()[2]
    for b, method in ((1, None), (7, None), (1, "graphblas"), (7, "graphblas")):
        with settings.use(betweenness={"batch": b, "edge_chunk": 5, "method": method}):
            got = O.to_host(betweenness_centrality(A, endpoints=True))
            assert np.allclose(got, want, rtol=REL, atol=ABS)
            assert np.allclose(O.to_host(edge_betweenness_centrality(A)).to_coo()[2], E,
                               rtol=REL, atol=ABS)
    with settings.use(betweenness={"batch": 65}):
        with pytest.raises(bg.InvalidValue, match="batch must be an integer in 1..64"):
            betweenness_centrality(A)
    with settings.use(betweenness={"method": "bits"}):
        with pytest.raises(bg.InvalidValue, match="method must be 'fused', 'graphblas' or None"):
            betweenness_centrality(A)


def test_cpu_by_source_setting():
    """The CPU batches run each source alone or in the shared pass by
    settings.betweenness.cpu_pairs_per_entry (0: never alone, 65: always)
    with the same answer, vertex and edge sums; a bad value is refused."""
    from bitgraph import settings

    for A in (bg.io.read(data_file("west0067.mtx")), bg.io.generators.grid2d(12, 9)):
        want = betweenness_centrality(A, endpoints=True)
        E = edge_betweenness_centrality(A).to_coo()[2]
        for ratio in (0, 0.5, 65):
            with settings.use(betweenness={"cpu_pairs_per_entry": ratio}):
                assert np.allclose(betweenness_centrality(A, endpoints=True), want,
                                   rtol=REL, atol=ABS)
                assert np.allclose(edge_betweenness_centrality(A).to_coo()[2], E,
                                   rtol=REL, atol=ABS)
    for bad in (-1, "4", True, float("nan")):
        with settings.use(betweenness={"cpu_pairs_per_entry": bad}):
            with pytest.raises(bg.InvalidValue, match="cpu_pairs_per_entry must be a number >= 0"):
                betweenness_centrality(bg.io.generators.grid2d(3, 3))


@pytest.mark.parametrize("device", O.DEVICES)
def test_stats_record_the_method_and_batches(device):
    A = O.on_device(bg.io.generators.from_spec("grid:5x5"), device)
    rec = bg.Stats()
    got = betweenness_centrality(A, stats=rec)
    np.testing.assert_allclose(O.to_host(got), O.to_host(betweenness_centrality(A)))
    assert rec.method == "fused" and rec.metrics["batches"] == 1
    assert ("betweenness", "csr", device, "batch") in rec.kernels
    assert ("bc_pair_batches" in rec.metrics) == (device == "cuda")
    with bg.settings.use(betweenness={"batch": 7, "method": "graphblas"}):
        rec = bg.Stats()
        edge_betweenness_centrality(A, stats=rec)
    assert rec.method == "graphblas" and rec.metrics["batches"] == 4  # 25 sources / 7


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("endpoints", [False, True])
def test_sources_without_out_edges_run_no_batch(device, endpoints):
    # isolated vertices and sinks start no path: they add nothing (endpoints or not) and
    # take no batch; the values still equal NetworkX's over every source
    rng = np.random.default_rng(3)
    n = 200
    rows, cols = rng.integers(0, 60, 400), rng.integers(0, 120, 400)  # 60..119 sinks
    A = O.on_device(bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n), device)
    rec = bg.Stats()
    got = betweenness_centrality(A, endpoints=endpoints, stats=rec)
    busy = int((np.bincount(rows, minlength=n) > 0).sum())
    assert rec.metrics["batches"] == -(-busy // 64)
    assert_nodes(got, nx.betweenness_centrality(nx_graph(A), endpoints=endpoints), n, device)
    lone = np.arange(60, 200)
    assert (O.to_host(betweenness_centrality(A, sources=lone, normalized=False)) == 0).all()


# --- weighted (Dijkstra) paths ------------------------------------------------------------

def nx_weighted(A):
    """The NetworkX graph of a weighted A (lengths as "weight"): undirected
    when A equals A' values included (what the bitgraph functions assume)."""
    r, c, v = O.to_host(A).to_coo()
    E = {(i, j): x for i, j, x in zip(r.tolist(), c.tolist(), v.tolist())}
    directed = any(E.get((j, i)) != x for (i, j), x in E.items())
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(A.nrows))
    G.add_weighted_edges_from((i, j, x) for (i, j), x in E.items())
    return G


weight_dtypes = st.sampled_from([np.float64, np.int64, np.float32, np.uint8, np.int16])


@settings(max_examples=120, deadline=None)
@given(data=st.data(), wdt=weight_dtypes, normalized=st.booleans(), endpoints=st.booleans(),
       k=st.one_of(st.none(), st.integers(1, 40)), seed=st.integers(0, 2**31),
       method=st.sampled_from(METHODS))
def test_weighted_nodes_match_networkx(data, wdt, normalized, endpoints, k, seed, method):
    """Positive lengths (integers 1..9: many ties; floats of a few values),
    isolated vertices, self-loops, several components, a hub, long paths."""
    g = data.draw(graphs(max_n=40, weighted=True, weight_dtype=wdt), label="g")
    A = g.matrix(bg)
    G = nx_weighted(A)
    k = None if k is None else min(k, g.n)
    with use(method):
        got = betweenness_centrality(A, k=k, normalized=normalized, endpoints=endpoints,
                                     seed=seed, weight="weight")
    ref = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=endpoints,
                                    seed=seed, weight="weight")
    assert_nodes(got, ref, g.n)


@settings(max_examples=80, deadline=None)
@given(data=st.data(), wdt=weight_dtypes, normalized=st.booleans(),
       k=st.one_of(st.none(), st.integers(1, 40)), seed=st.integers(0, 2**31),
       method=st.sampled_from(METHODS))
def test_weighted_edges_match_networkx(data, wdt, normalized, k, seed, method):
    g = data.draw(graphs(max_n=40, weighted=True, weight_dtype=wdt), label="g")
    A = g.matrix(bg)
    G = nx_weighted(A)
    k = None if k is None else min(k, g.n)
    with use(method):
        E = edge_betweenness_centrality(A, k=k, normalized=normalized, seed=seed, weight=True)
    ref = nx.edge_betweenness_centrality(G, k=k, normalized=normalized, seed=seed,
                                         weight="weight")
    _assert_weighted_edges(E, ref, A, G.is_directed())


def _assert_weighted_edges(E, ref, A, directed):
    E = O.to_host(E)
    r, c, _ = O.to_host(A).to_coo()
    er, ec, ev = E.to_coo()
    assert np.array_equal(er, r) and np.array_equal(ec, c) and ev.dtype == np.float64
    got = dict(zip(zip(er.tolist(), ec.tolist()), ev.tolist()))
    for (u, v), x in ref.items():
        assert math.isclose(got[u, v], x, rel_tol=REL, abs_tol=ABS), ((u, v), got[u, v], x)
        if not directed:
            assert got[v, u] == got[u, v]
    assert len(got) == (len(ref) if directed else 2 * len(ref) - sum(u == v for u, v in ref))


def _dag_reference(A, edges=False):
    """Raw (unscaled) sums over every source on the shortest-path DAG
    (tight edges u -> v, u != v), in a topological order of it; None when
    a source's DAG has a cycle (zero-length edges). Independent of the
    kernels: NetworkX's distances, its topological sort."""
    r, c, v = O.to_host(A).to_coo()
    n = A.nrows
    W = {(i, j): float(x) for i, j, x in zip(r.tolist(), c.tolist(), v.tolist())}
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_weighted_edges_from((i, j, x) for (i, j), x in W.items())
    bc = np.zeros(n)
    eb = dict.fromkeys(W, 0.0)
    for s in range(n):
        dist = nx.single_source_dijkstra_path_length(D, s)
        T = nx.DiGraph()
        T.add_nodes_from(dist)
        T.add_edges_from((i, j) for (i, j), x in W.items()
                         if i != j and i in dist and j in dist and dist[i] + x == dist[j])
        if not nx.is_directed_acyclic_graph(T):
            return None
        order = list(nx.topological_sort(T))
        sigma = dict.fromkeys(order, 0.0)
        sigma[s] = 1.0
        for u in order:
            for x in T.successors(u):
                sigma[x] += sigma[u]
        delta = dict.fromkeys(order, 0.0)
        for u in reversed(order):
            for x in T.successors(u):
                share = sigma[u] / sigma[x] * (1 + delta[x])
                delta[u] += share
                eb[u, x] += share
            if u != s:
                bc[u] += delta[u]
    return eb if edges else bc


@settings(max_examples=80, deadline=None)
@given(g=graphs(max_n=25, directed=True, weighted=True, weight_dtype=np.int64),
       zeros=st.integers(0, 2**31), method=st.sampled_from(METHODS))
def test_zero_lengths_count_dag_paths(g, zeros, method):
    """Zero lengths: the paths of the shortest-path DAG, each once
    (against a topological-order reference), or InvalidValue naming a
    source when zero-length edges close a cycle on it."""
    rng = np.random.default_rng(zeros)
    g.weights = np.where(rng.random(g.weights.size) < 0.3, 0, g.weights % 3)
    A = g.matrix(bg)
    want = _dag_reference(A)
    with use(method):
        if want is None:
            with pytest.raises(bg.InvalidValue, match="cycle of zero-length edges"):
                betweenness_centrality(A, normalized=False, weight=True)
            with pytest.raises(bg.InvalidValue, match="cycle of zero-length edges"):
                edge_betweenness_centrality(A, normalized=False, weight=True)
            return
        got = betweenness_centrality(A, normalized=False, weight=True)
        E = edge_betweenness_centrality(A, normalized=False, weight=True)
    assert np.allclose(got, want, rtol=REL, atol=ABS)
    ew = _dag_reference(A, edges=True)
    r, c, v = E.to_coo()
    assert np.allclose(v, [ew[i, j] for i, j in zip(r.tolist(), c.tolist())], rtol=REL, atol=ABS)


@pytest.mark.parametrize("device", O.DEVICES)
def test_zero_lengths(device):
    """A zero-length edge on a DAG counts its paths once; a zero-length
    cycle (an undirected zero-length edge is one) raises, naming the source
    and a vertex on it; the same from both methods."""
    # 0 -> 1 (1), 1 -> 2 (0), 0 -> 2 (1): two shortest 0 ~> 2 paths
    A = O.on_device(bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], [1, 0, 1], nrows=3, ncols=3),
                    device)
    cyc = O.on_device(bg.Matrix.from_coo([0, 1, 2, 3], [1, 2, 1, 1], [1, 0, 0, 5], nrows=4,
                                         ncols=4), device)
    und = O.on_device(bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 1], [0.0, 0.0, 1.0, 1.0],
                                         nrows=3, ncols=3), device)
    for method in methods(device):
        with use(method):
            got = O.to_host(betweenness_centrality(A, normalized=False, weight=True))
            assert got.tolist() == [0.0, 0.5, 0.0]
            E = O.to_host(edge_betweenness_centrality(A, normalized=False, weight=True))
            assert E.to_coo()[2].tolist() == [1.5, 0.5, 1.5]
            # source 0 reaches the cycle 1 -> 2 -> 1 (length 0)
            with pytest.raises(bg.InvalidValue, match=r"from source 0 run around a cycle of "
                               r"zero-length edges through vertex [12] "):
                betweenness_centrality(cyc, weight=True)
            with pytest.raises(bg.InvalidValue, match=r"source 2 .* through vertex [12] "):
                betweenness_centrality(cyc, sources=[2, 3], weight=True)
            with pytest.raises(bg.InvalidValue, match=r"source 0 .* through vertex [01] "):
                edge_betweenness_centrality(und, weight=True)
            # a symmetric pattern with other lengths each way: the cycle 2 <-> 3
            asym = O.on_device(bg.Matrix.from_coo(
                [0, 1, 1, 2, 2, 3, 3, 4], [1, 0, 2, 1, 3, 2, 4, 3],
                [1, 5, 1, 4, 0, 0, 7, 2], nrows=5, ncols=5), device)
            with pytest.raises(bg.InvalidValue, match=r"source 0 .* through vertex [23] "):
                betweenness_centrality(asym, weight=True)


@pytest.mark.parametrize("device", O.DEVICES)
def test_weighted_errors_leave_a_unchanged(device):
    A_cpu = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.0, -2.0, 3.0], nrows=3, ncols=3)
    A = O.on_device(A_cpu, device)
    before = O.to_host(A).to_coo()
    for method in methods(device):
        with use(method):
            for f in (betweenness_centrality, edge_betweenness_centrality):
                with pytest.raises(bg.InvalidValue, match=r"edge \(1, 2\) has length -2.0 "
                                   r"\(negative\)"):
                    f(A, weight="weight")
                # the hops of the same graph still run
                f(A)
    assert all(np.array_equal(x, y) for x, y in zip(O.to_host(A).to_coo(), before))
    for bad, what in ((np.nan, "nan"), (np.inf, "inf")):
        B = O.on_device(bg.Matrix.from_coo([0, 2], [1, 1], [1.0, bad], nrows=3, ncols=3), device)
        with pytest.raises(bg.InvalidValue, match=rf"edge \(2, 1\) has length {what} "
                           r"\(not finite\)"):
            betweenness_centrality(B, weight=True)
    C = O.on_device(bg.Matrix.from_coo([0, 1], [1, 2], [True, False], nrows=3, ncols=3,
                                       dtype=bool), device)
    if not C.iso:
        with pytest.raises(TypeError, match="edge lengths must be numbers; A's dtype is bool"):
            betweenness_centrality(C, weight=True)
    # weight=None ignores the values: hops
    assert np.array_equal(O.to_host(betweenness_centrality(A)),
                          O.to_host(betweenness_centrality(A, weight=None)))


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", ["west0067.mtx", "ldbc-directed-example.mtx",
                                  "ldbc-undirected-example.mtx", "karate.mtx"])
def test_weighted_real_graphs(name, device):
    """Real graphs: west0067's |values| (floats, few ties), the LDBC
    examples' weights, karate with integer weights 1..3 (many ties); every
    option, both methods, and batches of 7 (several, one short)."""
    from bitgraph import settings

    A_cpu = bg.io.read(data_file(name))
    r, c, v = A_cpu.to_coo()
    if name == "karate.mtx":
        lo, hi = np.minimum(r, c), np.maximum(r, c)
        v = 1 + (lo * 7 + hi * 3) % 3  # symmetric
    A_cpu = bg.Matrix.from_coo(r, c, np.abs(v).astype(np.float64), nrows=A_cpu.nrows,
                               ncols=A_cpu.ncols)
    A = O.on_device(A_cpu, device)
    G = nx_weighted(A_cpu)
    assert G.is_directed() == (name in ("west0067.mtx", "ldbc-directed-example.mtx"))
    n = A.nrows
    for method, batch in [(m, 64) for m in methods(device)] + [("graphblas", 7)]:
        with settings.use(betweenness={"method": method, "batch": batch}):
            for normalized in (False, True):
                for endpoints in (False, True):
                    got = betweenness_centrality(A, normalized=normalized, endpoints=endpoints,
                                                 weight="weight")
                    ref = nx.betweenness_centrality(G, normalized=normalized,
                                                    endpoints=endpoints, weight="weight")
                    assert_nodes(got, ref, n)
                got = betweenness_centrality(A, k=5, seed=3, normalized=normalized,
                                             weight="weight")
                assert_nodes(got, nx.betweenness_centrality(G, k=5, seed=3, weight="weight",
                                                            normalized=normalized), n)
            _assert_weighted_edges(edge_betweenness_centrality(A, weight="weight"),
                                   nx.edge_betweenness_centrality(G, weight="weight"), A_cpu,
                                   G.is_directed())
            _assert_weighted_edges(
                edge_betweenness_centrality(A, weight="weight", k=4, seed=1, normalized=False),
                nx.edge_betweenness_centrality(G, weight="weight", k=4, seed=1,
                                               normalized=False), A_cpu, G.is_directed())


def test_weighted_pool_chunks_and_stats():
    """Sources split into pool chunks (parallel_work 0) give the serial
    answer; stats name the weighted kernel or the graphblas method."""
    from bitgraph import settings

    A = bg.io.generators.urand(8, 4, seed=1)
    r, c, _ = A.to_coo()
    W = bg.Matrix.from_coo(r, c, 1.0 + (r * 31 + c * 17) % 5, nrows=A.nrows, ncols=A.ncols)
    G = nx_weighted(W)
    ref = nx.betweenness_centrality(G, weight="weight", endpoints=True)
    for work in (0, 1 << 62):
        with settings.use(betweenness={"method": "fused", "parallel_work": work}):
            rec = bg.Stats()
            assert_nodes(betweenness_centrality(W, weight=True, endpoints=True, stats=rec), ref,
                         W.nrows)
            assert rec.method == "fused"
            assert ("betweenness", "csr", "cpu", "weighted") in rec.kernels
            _assert_weighted_edges(edge_betweenness_centrality(W, weight=True, k=30, seed=2),
                                   nx.edge_betweenness_centrality(G, weight="weight", k=30,
                                                                  seed=2), W, G.is_directed())
    with settings.use(betweenness={"method": "graphblas", "batch": 64}):
        rec = bg.Stats()
        betweenness_centrality(W, weight=True, stats=rec)
    assert rec.method == "graphblas" and rec.metrics["batches"] == 4  # 256 sources


def test_weighted_asymmetric_lengths_are_directed():
    """A symmetric pattern with different lengths each way is a directed
    graph (NetworkX's DiGraph scaling), one with equal lengths undirected."""
    A = bg.Matrix.from_coo([0, 1, 1, 2, 0, 2], [1, 0, 2, 1, 2, 0], [1, 1, 1, 1, 2, 5],
                           nrows=3, ncols=3)
    G = nx_weighted(A)
    assert G.is_directed()
    assert_nodes(betweenness_centrality(A, normalized=False, weight=True),
                 nx.betweenness_centrality(G, normalized=False, weight="weight"), 3)
    S = bg.Matrix.from_coo([0, 1, 1, 2, 0, 2], [1, 0, 2, 1, 2, 0], [1, 1, 1, 1, 2, 2],
                           nrows=3, ncols=3)
    assert betweenness_centrality(S, normalized=False, weight=True).tolist() == [0.0, 0.5, 0.0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_weighted_small_graphs(device):
    """0, 1, 2 vertices; a zero-length edge beside a self-loop (never on a
    path) against NetworkX's DiGraph."""
    for method in methods(device):
        with use(method):
            for n in (0, 1, 2):
                A = O.on_device(bg.Matrix.from_coo([], [], np.zeros(0), nrows=n, ncols=n),
                                device)
                assert O.to_host(betweenness_centrality(A, weight=True)).tolist() == [0.0] * n
                assert edge_betweenness_centrality(A, weight=True).nvals == 0
            A = O.on_device(bg.Matrix.from_coo([0, 0], [0, 1], [2.0, 0.5], nrows=2, ncols=2),
                            device)
            G = nx.DiGraph([(0, 0, {"weight": 2.0}), (0, 1, {"weight": 0.5})])
            assert_nodes(betweenness_centrality(A, endpoints=True, weight=True),
                         nx.betweenness_centrality(G, endpoints=True, weight="weight"), 2)
            E = O.to_host(edge_betweenness_centrality(A, normalized=False, weight=True))
            assert E.to_coo()[2].tolist() == [0.0, 1.0]
