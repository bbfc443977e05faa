"""bitgraph.nx.measures against plain NetworkX on hypothesis graphs
(directed and undirected, int / string / tuple labels, isolated nodes,
self-loops, weights)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

nx = pytest.importorskip("networkx")

from bitgraph.nx import measures as M  # noqa: E402
from bitgraph.nx.convert import from_networkx  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None)


@st.composite
def nx_graphs(draw, directed=None, max_n=25):
    d = draw(st.booleans()) if directed is None else directed
    n = draw(st.integers(0, max_n))
    kind = draw(st.sampled_from(["int", "str", "tuple"]))
    label = {"int": lambda i: i * 3 + 1, "str": lambda i: f"v{i}",
             "tuple": lambda i: (i % 3, f"x{i}")}[kind]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    G = nx.DiGraph() if d else nx.Graph()
    # nodes in a shuffled order: ids follow G's order, not the labels'
    order = rng.permutation(n)
    G.add_nodes_from(label(int(i)) for i in order)
    m = int(rng.poisson(rng.choice([0.5, 1.5, 3.0, 6.0]) * n)) if n else 0
    used = max(1, int(n * rng.uniform(0.5, 1.0))) if n else 0  # the rest stay isolated
    for _ in range(m):
        u, v = rng.integers(0, used, 2)
        if u == v and rng.random() > 0.3:
            continue
        attrs = {} if rng.random() < 0.1 else {"weight": float(rng.uniform(0.1, 5.0))}
        G.add_edge(label(int(u)), label(int(v)), **attrs)
    return G


def close(a, b, rel=1e-12):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-15)


def same_dict(a, b, rel=1e-12):
    assert list(a) == list(b)
    for k in a:
        assert type(a[k]) is type(b[k]), (k, a[k], b[k])
        assert close(a[k], b[k], rel), (k, a[k], b[k])


@SETTINGS
@given(nx_graphs(), st.booleans(), st.booleans(), st.floats(0.5, 0.95))
def test_pagerank(G, weighted, personal, alpha):
    BG = from_networkx(G, {"weight": 1})
    w = "weight" if weighted else None
    nodes = list(G)
    p = {v: i % 3 + 1 for i, v in enumerate(nodes[::2])} if personal and nodes else None
    kw = dict(alpha=alpha, tol=1e-12, weight=w, personalization=p, max_iter=1000)
    want = nx.pagerank(G, **kw)
    got = M.pagerank(BG, **kw)
    assert list(got) == list(want)
    for k in want:
        assert type(got[k]) is float
        assert abs(got[k] - want[k]) < 1e-9


def test_pagerank_options_and_errors():
    G = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    BG = from_networkx(G, {"weight": 1})
    kw = dict(nstart={"a": 1, "b": 2}, dangling={"b": 1}, personalization={"a": 1, "zz": 5},
              tol=1e-12, max_iter=1000)
    want = nx.pagerank(G, **kw)
    got = M.pagerank(BG, **kw)
    assert all(abs(got[k] - want[k]) < 1e-9 for k in want)
    with pytest.raises(nx.PowerIterationFailedConvergence):
        M.pagerank(BG, max_iter=1)
    with pytest.raises(ZeroDivisionError):
        M.pagerank(BG, personalization={"a": 0})
    with pytest.raises(NotImplementedError):  # NetworkX runs these
        M.pagerank(BG, nstart={"a": -1, "b": 2})
    assert M.pagerank(from_networkx(nx.DiGraph())) == {}


@SETTINGS
@given(nx_graphs())
def test_components(G):
    BG = from_networkx(G)
    if G.is_directed():
        assert list(M.weakly_connected_components(BG)) == list(nx.weakly_connected_components(G))
        assert (M.number_weakly_connected_components(BG)
                == nx.number_weakly_connected_components(G))
        with pytest.raises(nx.NetworkXNotImplemented):
            M.connected_components(BG)
        with pytest.raises(nx.NetworkXNotImplemented):
            M.is_connected(BG)
        return
    assert list(M.connected_components(BG)) == list(nx.connected_components(G))
    assert M.number_connected_components(BG) == nx.number_connected_components(G)
    with pytest.raises(nx.NetworkXNotImplemented):
        M.weakly_connected_components(BG)
    if len(G) == 0:
        with pytest.raises(nx.NetworkXPointlessConcept):
            M.is_connected(BG)
        return
    assert M.is_connected(BG) is nx.is_connected(G)
    for v in list(G)[:5]:
        assert M.node_connected_component(BG, v) == nx.node_connected_component(G, v)


@SETTINGS
@given(nx_graphs(directed=False))
def test_triangles(G):
    BG = from_networkx(G)
    assert M.triangles(BG) == nx.triangles(G)
    nodes = list(G)
    if nodes:
        assert M.triangles(BG, nodes[0]) == nx.triangles(G, nodes[0])
        sub = nodes[::2] + ["not a node"]
        assert M.triangles(BG, sub) == nx.triangles(G, sub)


@SETTINGS
@given(nx_graphs())
def test_clustering_transitivity(G):
    BG = from_networkx(G)
    same_dict(M.clustering(BG), nx.clustering(G))
    t, want = M.transitivity(BG), nx.transitivity(G)
    assert type(t) is type(want) and close(t, want)
    nodes = list(G)
    if nodes:
        a, b = M.clustering(BG, nodes[-1]), nx.clustering(G, nodes[-1])
        assert type(a) is type(b) and close(a, b)
        same_dict(M.clustering(BG, nodes[1::2]), nx.clustering(G, nodes[1::2]))
        for cz in (True, False):
            try:
                want = nx.average_clustering(G, count_zeros=cz)
            except ZeroDivisionError:
                with pytest.raises(ZeroDivisionError):
                    M.average_clustering(BG, count_zeros=cz)
                continue
            assert close(M.average_clustering(BG, count_zeros=cz), want)


@SETTINGS
@given(nx_graphs(), st.booleans())
def test_closeness(G, wf):
    BG = from_networkx(G)
    same_dict(M.closeness_centrality(BG, wf_improved=wf),
              nx.closeness_centrality(G, wf_improved=wf))
    for v in list(G)[:3]:
        a = M.closeness_centrality(BG, v, wf_improved=wf)
        assert type(a) is float and close(a, nx.closeness_centrality(G, v, wf_improved=wf))


def _nx_or_error(f, *a, **k):
    try:
        return f(*a, **k), None
    except (nx.NetworkXError, nx.NetworkXPointlessConcept, ValueError) as e:
        # (the null graph: ValueError under NetworkX 3.6, NetworkXPointlessConcept from 3.7)
        return None, type(e)


@SETTINGS
@given(nx_graphs(max_n=15))
def test_eccentricity_diameter_radius(G):
    BG = from_networkx(G)
    for name in ("eccentricity", "diameter", "radius"):
        want, err = _nx_or_error(getattr(nx, name), G)
        if err is not None:
            with pytest.raises(err):
                getattr(M, name)(BG)
        else:
            got = getattr(M, name)(BG)
            assert got == want and type(got) is type(want)
    nodes = list(G)
    if nodes:
        want, err = _nx_or_error(nx.eccentricity, G, nodes[0])
        if err is None:
            assert M.eccentricity(BG, nodes[0]) == want
            assert M.eccentricity(BG, nodes[:3]) == nx.eccentricity(G, nodes[:3])


def test_eccentricity_subset_of_a_digraph():
    # a root reaching every node has an eccentricity even when the digraph
    # is not strongly connected
    G = nx.DiGraph([("r", "a"), ("a", "b"), ("r", "c")])
    BG = from_networkx(G)
    assert M.eccentricity(BG, "r") == nx.eccentricity(G, "r") == 2
    with pytest.raises(nx.NetworkXError, match="digraph is not strongly connected"):
        M.eccentricity(BG)


def test_can_run():
    G = nx.path_graph(4)
    assert M.CAN_RUN["clustering"]((G,), {"weight": "w"}) is not True
    assert M.CAN_RUN["clustering"]((G,), {}) is True
    assert M.CAN_RUN["closeness_centrality"]((G,), {"distance": "w"}) is not True
    assert M.CAN_RUN["eccentricity"]((G, None, {0: {0: 0}}), {}) is not True
    assert M.CAN_RUN["diameter"]((G,), {"weight": "weight"}) is not True
    assert M.CAN_RUN["pagerank"]((nx.MultiDiGraph([(0, 1), (0, 1)]),), {}) is not True
    assert M.CAN_RUN["pagerank"]((nx.DiGraph([(0, 1)]),), {}) is True
    assert set(M.CAN_RUN) <= set(M.FUNCTIONS) and set(M.INFO) == set(M.FUNCTIONS)
