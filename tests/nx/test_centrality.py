"""bitgraph.nx.centrality against plain NetworkX on hypothesis graphs
(directed and undirected, weighted, isolated nodes, self-loops, int /
string / tuple labels)."""

from __future__ import annotations

import inspect
import math
import random

import networkx as nx
import numpy as np
import pytest
from conftest_backend import nx_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.nx import BackendInterface
from bitgraph.nx import centrality as C
from bitgraph.nx.convert import from_networkx

SETTINGS = settings(max_examples=40, deadline=None)
# NetworkX's hits by ARPACK: its only method before 3.7, method="svd" from 3.7
NX_SVD = {"method": "svd"} if "method" in inspect.signature(nx.hits).parameters else {}


def convert(G):
    return from_networkx(G, {"weight": 1})


def assert_close(got, want, rel=1e-9, abs_=1e-12):
    assert list(got) == list(want)  # same keys in the same order
    for k in want:
        assert type(got[k]) is type(want[k]), (k, got[k], want[k])
        assert math.isclose(got[k], want[k], rel_tol=rel, abs_tol=abs_), (k, got[k], want[k])


def outcome(f, *args, **kwargs):
    """(result, None) or (None, exception class)."""
    try:
        return f(*args, **kwargs), None
    except (nx.NetworkXException, ZeroDivisionError) as e:
        return None, type(e)


# --- degrees ---------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs())
def test_degree_centralities(G):
    BG = convert(G)
    assert C.degree_centrality(BG) == nx.degree_centrality(G)
    assert [type(v) for v in C.degree_centrality(BG).values()] == \
        [type(v) for v in nx.degree_centrality(G).values()]
    if G.is_directed():
        assert C.in_degree_centrality(BG) == nx.in_degree_centrality(G)
        assert C.out_degree_centrality(BG) == nx.out_degree_centrality(G)
    else:
        with pytest.raises(nx.NetworkXNotImplemented):
            C.in_degree_centrality(BG)
        with pytest.raises(nx.NetworkXNotImplemented):
            C.out_degree_centrality(BG)


def test_degree_small_graphs():
    assert C.degree_centrality(convert(nx.Graph())) == {}
    G = nx.DiGraph()
    G.add_node("a")
    assert C.in_degree_centrality(convert(G)) == {"a": 1}
    G.add_edge("a", "a")  # a self-loop counts in and out
    assert C.degree_centrality(convert(G)) == nx.degree_centrality(G) == {"a": 1}
    H = nx.Graph([(0, 0), (0, 1)])
    assert C.degree_centrality(convert(H)) == nx.degree_centrality(H) == {0: 3.0, 1: 1.0}


# --- eigenvector -----------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(), st.booleans(), st.booleans(), st.sampled_from([50, 1000]))
def test_eigenvector_centrality(G, weighted, shuffled_start, max_iter):
    BG = convert(G)
    kw = dict(weight="weight" if weighted else None, max_iter=max_iter, tol=1e-9)
    if shuffled_start:
        nodes = list(G)[::-1]
        kw["nstart"] = {v: i % 3 + 1 for i, v in enumerate(nodes)}
    want, werr = outcome(nx.eigenvector_centrality, G, **kw)
    got, gerr = outcome(C.eigenvector_centrality, BG, **kw)
    assert gerr is werr
    if want is not None:
        assert_close(got, want, rel=1e-7, abs_=1e-9)


def test_eigenvector_errors():
    with pytest.raises(nx.NetworkXPointlessConcept):
        C.eigenvector_centrality(convert(nx.Graph()))
    BG = convert(nx.path_graph(3))
    with pytest.raises(nx.NetworkXError, match="all zero"):
        C.eigenvector_centrality(BG, nstart={0: 0, 1: 0, 2: 0})
    with pytest.raises(nx.PowerIterationFailedConvergence):
        C.eigenvector_centrality(convert(nx.path_graph(10)), max_iter=2)
    with pytest.raises(NotImplementedError):  # keys NetworkX would fail on: its own error
        C.eigenvector_centrality(BG, nstart={0: 1, 1: 1, 7: 1})


# --- Katz ------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(), st.booleans(), st.sampled_from([0.01, 0.05, 0.1]), st.booleans(),
       st.booleans(), st.booleans())
def test_katz_centrality(G, weighted, alpha, beta_dict, normalized, start):
    BG = convert(G)
    nodes = list(G)
    kw = dict(alpha=alpha, weight="weight" if weighted else None, normalized=normalized,
              tol=1e-10)
    if beta_dict:
        kw["beta"] = {v: 1 + i % 4 for i, v in enumerate(nodes)}
    if start:
        kw["nstart"] = {v: float(i % 2) for i, v in enumerate(nodes[::-1])}
    want, werr = outcome(nx.katz_centrality, G, **kw)
    got, gerr = outcome(C.katz_centrality, BG, **kw)
    assert gerr is werr
    if want is not None:
        assert_close(got, want, rel=1e-8, abs_=1e-10)


def test_katz_errors_and_edges():
    assert C.katz_centrality(convert(nx.Graph())) == {}
    BG = convert(nx.path_graph(3))
    with pytest.raises(nx.NetworkXError, match="beta dictionary"):
        C.katz_centrality(BG, beta={0: 1, 1: 1})
    with pytest.raises(nx.PowerIterationFailedConvergence):
        C.katz_centrality(convert(nx.complete_graph(6)), alpha=0.9)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        C.katz_centrality(BG, max_iter=0)
    # an int alpha with a beta dict may give ints in NetworkX: it runs there
    assert BackendInterface.can_run("katz_centrality", (nx.path_graph(3),),
                                    {"alpha": 0, "beta": {0: 1, 1: 1, 2: 1}}) is not True


# --- HITS ------------------------------------------------------------------------------

def _gap(G):
    """Relative gap between the two largest singular values of G's weighted adjacency."""
    A = nx.to_numpy_array(G, weight="weight")
    s = np.linalg.svd(A, compute_uv=False)
    return 1.0 if s.size < 2 or s[0] == 0 else (s[0] - s[1]) / s[0]


@SETTINGS
@given(nx_graphs(), st.booleans())
def test_hits(G, normalized):
    # method="svd" (NetworkX 3.6's only method, ARPACK; 3.7's default is the
    # power iteration, tested in test_nx_versions.py)
    BG = convert(G)
    if len(G) == 1:
        with pytest.raises(NotImplementedError):  # NetworkX's svds raises ValueError
            C.hits(BG, method="svd")
        return
    if nx.to_numpy_array(G).sum() == 0 or _gap(G) < 0.05:
        return  # no unique answer: NetworkX's depends on ARPACK's random start
    want_h, want_a = nx.hits(G, normalized=normalized, max_iter=1000, **NX_SVD)
    try:
        got_h, got_a = C.hits(BG, normalized=normalized, max_iter=1000, method="svd")
    except NotImplementedError:  # not converged: NetworkX runs it (rare at this gap)
        return
    if not normalized:  # ARPACK's sign is arbitrary
        sign = 1.0 if sum(want_a.values()) >= 0 else -1.0
        want_h = {k: sign * v for k, v in want_h.items()}
        want_a = {k: sign * v for k, v in want_a.items()}
    # both stop at tol=1e-8: entries NetworkX finds ~0 are ~1e-9 here
    assert_close(got_h, want_h, rel=1e-5, abs_=1e-7)
    assert_close(got_a, want_a, rel=1e-5, abs_=1e-7)


def test_hits_edges():
    assert C.hits(convert(nx.DiGraph()), method="svd") == ({}, {})
    BG = convert(nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)]))
    with pytest.raises(nx.PowerIterationFailedConvergence):
        C.hits(BG, max_iter=0, method="svd")
    with pytest.raises(NotImplementedError):  # not converged: NetworkX's ARPACK decides
        C.hits(BG, max_iter=1, method="svd")
    h, a = C.hits(BG, nstart={0: 1.0, 1: 2.0, 2: 1.0}, method="svd")
    wh, wa = nx.hits(nx.DiGraph([(0, 1), (1, 2), (2, 0), (0, 2)]), **NX_SVD)
    assert_close(h, wh, rel=1e-6, abs_=1e-7)
    assert_close(a, wa, rel=1e-6, abs_=1e-7)


# --- through the dispatcher ------------------------------------------------------------

def test_dispatch():
    G = nx.gnp_random_graph(30, 0.2, seed=3, directed=True)
    assert_close(nx.eigenvector_centrality(G, backend="bitgraph"), nx.eigenvector_centrality(G))
    assert nx.in_degree_centrality(G, backend="bitgraph") == nx.in_degree_centrality(G)
    M = nx.MultiGraph([(0, 1), (0, 1)])
    assert BackendInterface.can_run("degree_centrality", (M,), {}) is not True
    assert BackendInterface.can_run("eigenvector_centrality", (G,), {"weight": len}) is not True


# --- harmonic --------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False), st.data())
def test_harmonic_centrality(G, data):
    BG = convert(G)
    nodes = list(G)
    some = st.one_of(st.none(), st.lists(st.sampled_from(nodes), max_size=8))
    nbunch, sources = data.draw(some), data.draw(some)
    want = nx.harmonic_centrality(G, nbunch=nbunch, sources=sources)
    got = C.harmonic_centrality(BG, nbunch=nbunch, sources=sources)
    assert_close(got, want, rel=1e-12, abs_=1e-12)


def test_harmonic_refuses_distance():
    G = nx.path_graph(3)
    assert BackendInterface.can_run("harmonic_centrality", (G,), {"distance": "w"}) is not True
    with pytest.raises(NotImplementedError):
        C.harmonic_centrality(convert(G), distance="weight")


# --- betweenness -----------------------------------------------------------------------

def assert_close_nan(got, want):
    assert list(got) == list(want)  # same keys in the same order
    for k in want:
        assert type(got[k]) is type(want[k]), (k, got[k], want[k])
        if math.isnan(want[k]):
            assert math.isnan(got[k]), (k, got[k])
        else:
            assert math.isclose(got[k], want[k], rel_tol=1e-9, abs_tol=1e-12), (k, got[k], want[k])


@SETTINGS
@given(nx_graphs(weighted=False, multigraph=None), st.booleans(), st.booleans(),
       st.one_of(st.none(), st.integers(1, 25)), st.integers(0, 2**31))
def test_betweenness_centrality(G, normalized, endpoints, k, seed):
    """Directed (a symmetric DiGraph stays directed), undirected, multigraphs
    (a vertex's value ignores parallel edges), labels of every kind; k with
    NetworkX's seed: a random.Random whose state moves as NetworkX's does."""
    BG = convert(G)
    k = None if k is None else min(k, len(G))
    ours, theirs = random.Random(seed), random.Random(seed)
    got = C.betweenness_centrality(BG, k=k, normalized=normalized, endpoints=endpoints, seed=ours)
    want = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=endpoints,
                                     seed=theirs)
    assert_close_nan(got, want)
    assert ours.random() == theirs.random()


@SETTINGS
@given(nx_graphs(weighted=False), st.booleans(), st.one_of(st.none(), st.integers(1, 25)),
       st.integers(0, 2**31))
def test_edge_betweenness_centrality(G, normalized, k, seed):
    """Keys as ``G.edges()`` (orientation and order), self-loops 0."""
    BG = convert(G)
    k = None if k is None else min(k, len(G))
    got = C.edge_betweenness_centrality(BG, k=k, normalized=normalized, seed=seed)
    want = nx.edge_betweenness_centrality(G, k=k, normalized=normalized, seed=seed)
    assert_close_nan(got, want)


def test_betweenness_through_the_dispatcher():
    G = nx.karate_club_graph()
    got = nx.betweenness_centrality(G, k=10, seed=3, backend="bitgraph")
    assert_close_nan(got, nx.betweenness_centrality(G, k=10, seed=3))
    D = nx.gnp_random_graph(30, 0.1, seed=2, directed=True)
    got = nx.edge_betweenness_centrality(D, backend="bitgraph")
    assert_close_nan(got, nx.edge_betweenness_centrality(D))


def test_betweenness_refusals():
    G = nx.path_graph(4)
    can = BackendInterface.can_run
    assert can("betweenness_centrality", (G,), {}) is True
    assert can("betweenness_centrality", (G,), {"weight": "weight"}) is True
    assert can("edge_betweenness_centrality", (G,), {"weight": "weight"}) is True
    assert "callable" in can("betweenness_centrality", (G,), {"weight": lambda u, v, d: 1})
    assert "multigraph" in can("edge_betweenness_centrality", (nx.MultiGraph(G),), {})
    assert can("betweenness_centrality", (nx.MultiGraph(G),), {}) is True
    for k in (0, 5, 1.5, True):
        assert "k not an integer" in can("betweenness_centrality", (G,), {"k": k})
        assert "k not an integer" in can("edge_betweenness_centrality", (G,), {"k": k})
    # lengths whose NetworkX answer follows its heap order: NetworkX answers
    for w in (0, -1, float("inf"), float("nan"), 1e-300):
        H = nx.path_graph(4)
        H.add_edge(1, 2, weight=w)
        for f in (C.betweenness_centrality, C.edge_betweenness_centrality):
            with pytest.raises(NotImplementedError, match="edge lengths must be > 0"):
                f(convert(H), weight="weight")
    # a graph without the attribute: every length 1, the hop answer
    assert C.betweenness_centrality(convert(G), weight="weight") == \
        nx.betweenness_centrality(G, weight="weight")


def lifted(G, lift):
    """G, with 1 added to every "weight" when ``lift`` (lengths >= 1: none
    refused; int weights stay ints)."""
    if lift:
        for *_, d in G.edges(data=True):
            if "weight" in d:
                d["weight"] += 1
    return G


@SETTINGS
@given(nx_graphs(weighted=True, multigraph=None), st.booleans(), st.booleans(),
       st.one_of(st.none(), st.integers(1, 25)), st.integers(0, 2**31), st.booleans())
def test_weighted_betweenness_centrality(G, normalized, endpoints, k, seed, lift):
    """Weights (ints with ties, floats, some edges without: 1), directed
    or not, multigraphs (the shortest parallel edge counts); lengths that
    NetworkX counts by its heap order (zero, tiny) are refused."""
    G = lifted(G, lift)
    BG = convert(G)
    k = None if k is None else min(k, len(G))
    ours, theirs = random.Random(seed), random.Random(seed)
    try:
        got = C.betweenness_centrality(BG, k=k, normalized=normalized, endpoints=endpoints,
                                       seed=ours, weight="weight")
    except NotImplementedError:
        w = [d.get("weight", 1) for *_, d in G.edges(data=True)]
        assert not lift and min(w) * 2.0**51 <= (len(G) - 1) * max(w)
        return
    want = nx.betweenness_centrality(G, k=k, normalized=normalized, endpoints=endpoints,
                                     seed=theirs, weight="weight")
    assert_close_nan(got, want)
    assert ours.random() == theirs.random()


@SETTINGS
@given(nx_graphs(weighted=True), st.booleans(), st.one_of(st.none(), st.integers(1, 25)),
       st.integers(0, 2**31), st.booleans())
def test_weighted_edge_betweenness_centrality(G, normalized, k, seed, lift):
    G = lifted(G, lift)
    BG = convert(G)
    k = None if k is None else min(k, len(G))
    try:
        got = C.edge_betweenness_centrality(BG, k=k, normalized=normalized, seed=seed,
                                            weight="weight")
    except NotImplementedError:
        assert not lift
        return
    want = nx.edge_betweenness_centrality(G, k=k, normalized=normalized, seed=seed,
                                          weight="weight")
    assert_close_nan(got, want)


def test_weighted_betweenness_through_the_dispatcher():
    G = nx.karate_club_graph()  # its "weight"s: integers 1..7
    got = nx.betweenness_centrality(G, weight="weight", backend="bitgraph")
    assert_close_nan(got, nx.betweenness_centrality(G, weight="weight"))
    D = nx.gnp_random_graph(30, 0.1, seed=2, directed=True)
    for i, (u, v) in enumerate(D.edges):
        D[u][v]["w"] = 0.5 + i % 4
    got = nx.edge_betweenness_centrality(D, weight="w", k=9, seed=1, backend="bitgraph")
    assert_close_nan(got, nx.edge_betweenness_centrality(D, weight="w", k=9, seed=1))
