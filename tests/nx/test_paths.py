"""bitgraph's NetworkX backend (reachability and path-returning shortest
paths) vs NetworkX itself, on hypothesis graphs, through the dispatcher
(``backend="bitgraph"``). Paths must be NetworkX's own path where paths tie,
except where the backend declines (NotImplementedError: NetworkX then runs
the call), which is allowed only where NetworkX's choice follows an order
the backend does not keep."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from conftest_backend import close_dicts, nx_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

BK = {"backend": "bitgraph"}
nx.config.warnings_to_ignore.add("cache")


def _run(f, *args, **kw):
    try:
        r = f(*args, **kw)
        if hasattr(r, "__next__"):
            r = list(r)
    except Exception as e:  # noqa: BLE001 - comparing errors
        return type(e), str(e)
    return "ok", r


def _close(a, b):
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (a, b)
        for k in a:
            _close(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _close(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12), (a, b)
    else:
        assert a == b, (a, b)


def agree(name, *args, tie_ok=False, **kw):
    """nx.<name> with and without the backend: the same error (type and
    message) or the same result (floats within 1e-12). ``tie_ok``: the
    backend may decline with NotImplementedError instead. Returns whether
    the backend answered."""
    f = getattr(nx, name)
    a = _run(f, *args, **kw)
    b = _run(f, *args, **kw, **BK)
    if tie_ok and b[0] is NotImplementedError:
        return False
    assert a[0] == b[0], (name, args, kw, a, b)
    if a[0] == "ok":
        _close(a[1], b[1])
    else:
        assert a == b
    return True


def pick(data, G):
    return data.draw(st.sampled_from(list(G)))


@given(nx_graphs(multigraph=None), st.data())
def test_reachability(G, data):
    s, t = pick(data, G), pick(data, G)
    agree("has_path", G, s, t)
    agree("descendants", G, s)
    agree("ancestors", G, s)
    if G.is_directed():
        agree("is_weakly_connected", G)
    depth = data.draw(st.none() | st.integers(-1, 4))
    agree("bfs_predecessors", G, s, depth_limit=depth)
    agree("bfs_successors", G, s, depth_limit=depth)
    agree("generic_bfs_edges", G, s, depth_limit=depth)


@given(nx_graphs(multigraph=None), st.data())
def test_unweighted_paths(G, data):
    """NetworkX's exact paths; only directed target-side ties may decline."""
    s, t = pick(data, G), pick(data, G)
    cutoff = data.draw(st.none() | st.integers(-1, 4) | st.sampled_from([1.5, 0.5]))
    directed = G.is_directed()
    agree("single_source_shortest_path", G, s, cutoff=cutoff)
    agree("single_target_shortest_path", G, t, cutoff=cutoff, tie_ok=directed)
    agree("all_pairs_shortest_path", G, cutoff=cutoff)
    agree("bidirectional_shortest_path", G, s, t, tie_ok=directed)
    agree("shortest_path", G, s)
    agree("shortest_path", G, target=t, tie_ok=directed)
    agree("shortest_path", G, s, t, tie_ok=directed)
    agree("shortest_path", G)


@given(nx_graphs(multigraph=None, weighted=True), st.data())
@settings(max_examples=150, deadline=None)
def test_dijkstra_paths(G, data):
    """Dijkstra's paths are NetworkX's exactly, ties and zero weights included
    (int weights 0..9 tie often)."""
    s, t = pick(data, G), pick(data, G)
    cutoff = data.draw(st.none() | st.floats(0, 12) | st.integers(0, 12))
    agree("single_source_dijkstra", G, s, cutoff=cutoff)
    agree("single_source_dijkstra", G, s, t, cutoff=cutoff)
    agree("single_source_dijkstra_path", G, s, cutoff=cutoff)
    agree("dijkstra_path", G, s, t)
    agree("dijkstra_path_length", G, s, t)
    agree("all_pairs_dijkstra_path", G)
    agree("shortest_path", G, s, weight="weight")
    agree("shortest_path", G, weight="weight")
    # NetworkX's choice follows G.pred (directed) or its two heaps
    agree("shortest_path", G, target=t, weight="weight", tie_ok=G.is_directed())
    agree("shortest_path", G, s, t, weight="weight", tie_ok=True)
    agree("single_source_dijkstra", G, s, weight=None)


@given(nx_graphs(multigraph=None, weighted=True), st.data())
@settings(max_examples=80, deadline=None)
def test_bellman_ford_paths(G, data):
    """Negative weights (and negative cycles): NetworkX's answer or error;
    tied paths may decline (NetworkX's choice follows its queue)."""
    offset = data.draw(st.sampled_from([0, 1, 3, 0.5]))
    for *_, d in G.edges(data=True):
        if "weight" in d:
            d["weight"] -= offset
    s, t = pick(data, G), pick(data, G)
    agree("single_source_bellman_ford", G, s, tie_ok=True)
    agree("single_source_bellman_ford", G, s, t, tie_ok=True)
    agree("single_source_bellman_ford_path", G, s, tie_ok=True)
    agree("bellman_ford_path", G, s, t, tie_ok=True)
    agree("shortest_path", G, s, t, weight="weight", method="bellman-ford", tie_ok=True)
    agree("shortest_path", G, weight="weight", method="bellman-ford", tie_ok=True)


def test_unique_paths_answer():
    """Where the path is unique the backend answers (no decline)."""
    D = nx.DiGraph([(0, 1), (1, 2), (2, 3), (3, 0), (1, 4)])
    for name, args in [("single_target_shortest_path", (D, 3)),
                       ("bidirectional_shortest_path", (D, 0, 3)),
                       ("shortest_path", (D, None, 2))]:
        assert agree(name, *args)
    W = nx.DiGraph([(0, 1, {"weight": -2}), (1, 2, {"weight": 5}), (0, 2, {"weight": 4})])
    assert agree("single_source_bellman_ford", W, 0)
    assert agree("shortest_path", W, 0, 2, weight="weight", method="bellman-ford")
    assert agree("shortest_path", W, None, 2, weight="weight", method="bellman-ford")


def test_ties_follow_networkx():
    # a grid has many tied shortest paths: NetworkX's choice on both sides
    G = nx.grid_2d_graph(6, 5)
    for name, args in [("single_source_shortest_path", (G, (0, 0))),
                       ("single_target_shortest_path", (G, (5, 4))),
                       ("bidirectional_shortest_path", (G, (0, 0), (5, 4))),
                       ("bidirectional_shortest_path", (G, (2, 4), (3, 0)))]:
        assert agree(name, *args)
    nx.set_edge_attributes(G, {e: (hash(e) % 3) for e in G.edges}, "weight")
    assert agree("single_source_dijkstra", G, (0, 0))
    assert agree("single_source_dijkstra", G, (3, 2), cutoff=3)
    # zero-weight edges inside one distance: pushes in rounds
    Z = nx.DiGraph()
    Z.add_weighted_edges_from([(0, 3, 1), (0, 1, 1), (1, 2, 0), (3, 2, 0), (2, 4, 0),
                               (3, 4, 0), (0, 5, 0), (5, 6, 0), (6, 4, 1), (4, 7, 2)])
    assert agree("single_source_dijkstra", Z, 0)
    paths = nx.single_source_dijkstra_path(Z, 0, **BK)
    assert paths[4] == [0, 5, 6, 4] and paths[2] == [0, 3, 2]


@pytest.mark.parametrize("directed", [False, True])
def test_missing_nodes_raise_like_networkx(directed):
    G = nx.path_graph(["a", "b", "c"], create_using=nx.DiGraph if directed else nx.Graph)
    nx.set_edge_attributes(G, 2, "weight")
    cases = [
        ("has_path", (G, "z", "a")), ("has_path", (G, "a", "z")), ("ancestors", (G, "z")),
        ("descendants", (G, "z")), ("bfs_predecessors", (G, "z")), ("bfs_successors", (G, "z")),
        ("generic_bfs_edges", (G, "z")),
        ("single_source_shortest_path", (G, "z")), ("single_target_shortest_path", (G, "z")),
        ("bidirectional_shortest_path", (G, "z", "a")),
        ("bidirectional_shortest_path", (G, "a", "z")),
        ("bidirectional_shortest_path", (G, "c", "a")),
        ("single_source_dijkstra", (G, "z")), ("single_source_dijkstra", (G, "a", "z")),
        ("single_source_dijkstra", (G, "c", "a")), ("single_source_dijkstra", (G, "a", "a")),
        ("dijkstra_path", (G, "z", "a")), ("dijkstra_path", (G, "a", "z")),
        ("dijkstra_path_length", (G, "z", "a")), ("dijkstra_path_length", (G, "a", "z")),
        ("dijkstra_path_length", (G, "c", "a")),
        ("single_source_dijkstra_path", (G, "z")),
        ("single_source_bellman_ford", (G, "z")), ("single_source_bellman_ford", (G, "z", "z")),
        ("single_source_bellman_ford", (G, "a", "z")),
        ("bellman_ford_path", (G, "c", "a")), ("single_source_bellman_ford_path", (G, "z")),
    ]
    for name, args in cases:
        agree(name, *args)
    for method in ("dijkstra", "bellman-ford"):
        for st_ in [("z", None), (None, "z"), ("z", "a"), ("a", "z"), ("c", "a")]:
            agree("shortest_path", G, *st_, weight="weight", method=method)
    for st_ in [("z", None), (None, "z"), ("z", "a"), ("a", "z"), ("c", "a")]:
        agree("shortest_path", G, *st_)
    agree("shortest_path", G, "a", method="bogus")
    with pytest.raises(nx.NetworkXPointlessConcept):
        nx.is_weakly_connected(nx.DiGraph(), **BK)
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.is_weakly_connected(nx.Graph([(0, 1)]), **BK)


def test_refusals_and_fallbacks():
    G = nx.DiGraph([(0, 1, {"weight": -1}), (1, 2, {"weight": 1}), (0, 2, {"weight": 0})])
    iface = nx.utils.backends._load_backend("bitgraph")
    w = {"weight": lambda u, v, d: 1}
    for name in ("shortest_path", "single_source_dijkstra", "dijkstra_path_length",
                 "single_source_bellman_ford"):
        assert isinstance(iface.can_run(name, (G, 0), w), str)
    assert isinstance(iface.can_run("bfs_successors", (G, 0), {"sort_neighbors": sorted}), str)
    assert isinstance(iface.can_run("generic_bfs_edges", (G, 0), {"neighbors": G.neighbors}),
                      str)
    assert iface.can_run("bfs_predecessors", (G, 0), {}) is True
    # negative weights decline Dijkstra; a tie declines Bellman-Ford (0->1->2 and 0->2
    # both weigh 0); NetworkX runs them when it may fall back
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path(G, 0, **BK)
    with pytest.raises(NotImplementedError):
        nx.bellman_ford_path(G, 0, 2, **BK)
    with nx.config(backend_priority=["bitgraph"], fallback_to_nx=True):
        assert nx.bellman_ford_path(G, 0, 2) == nx.bellman_ford_path(G, 0, 2, backend="networkx")
    assert nx.single_source_bellman_ford(G, 0, 1, **BK) == (-1, [0, 1])


def test_larger_graph():
    G = nx.gnm_random_graph(400, 1600, seed=5)
    nx.set_edge_attributes(G, {e: (e[0] * 7 + e[1]) % 5 for e in G.edges}, "weight")
    assert agree("single_source_dijkstra", G, 0)
    assert agree("single_source_shortest_path", G, 3)
    assert agree("bidirectional_shortest_path", G, 3, 250)
    assert close_dicts(nx.single_source_dijkstra(G, 7, **BK)[0],
                       nx.single_source_dijkstra(G, 7)[0])
