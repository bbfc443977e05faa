"""bitgraph's NetworkX backend (traversal and path lengths) vs NetworkX itself,
on hypothesis graphs, through the dispatcher (``backend="bitgraph"``)."""

from __future__ import annotations

import networkx as nx
import pytest
from conftest_backend import close_dicts, nx_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

BK = {"backend": "bitgraph"}
# the tests call many functions on one graph: the cache reuse warning is expected
nx.config.warnings_to_ignore.add("cache")


def both(name, *args, **kw):
    """(NetworkX's result, the backend's result) of nx.<name>(*args, **kw)."""
    f = getattr(nx, name)
    return f(*args, **kw), f(*args, **kw, **BK)


def same_error(name, *args, **kw):
    """Both raise the same exception type and message (or both return equal)."""
    f = getattr(nx, name)
    outcomes = []
    for extra in ({}, BK):
        try:
            r = f(*args, **kw, **extra)
            outcomes.append(("ok", list(r) if hasattr(r, "__next__") else r))
        except Exception as e:  # noqa: BLE001 - comparing errors
            outcomes.append((type(e), str(e)))
    assert outcomes[0] == outcomes[1]


def pick(data, G):
    return data.draw(st.sampled_from(list(G)))


@given(nx_graphs(multigraph=None), st.data())
def test_bfs_layers_edges_tree(G, data):
    s = pick(data, G)
    a, b = both("bfs_layers", G, s)
    assert list(a) == list(b)
    srcs = data.draw(st.lists(st.sampled_from(list(G)), min_size=1, max_size=4, unique=True))
    a, b = both("bfs_layers", G, srcs)
    assert list(a) == list(b)
    depth = data.draw(st.none() | st.integers(-1, 4))
    a, b = both("bfs_edges", G, s, depth_limit=depth)
    assert list(a) == list(b)
    if not G.is_directed():
        a, b = both("bfs_edges", G, s, reverse=True)
        assert list(a) == list(b)
    a, b = both("bfs_tree", G, s, depth_limit=depth)
    assert list(a.nodes) == list(b.nodes) and list(a.edges) == list(b.edges)
    d = data.draw(st.integers(-1, 5))
    a, b = both("descendants_at_distance", G, s, d)
    assert a == b


@given(nx_graphs(multigraph=None), st.data())
def test_unweighted_lengths(G, data):
    s, t = pick(data, G), pick(data, G)
    cutoff = data.draw(st.none() | st.integers(-1, 4) | st.sampled_from([1.5, 0.5]))
    for name in ("single_source_shortest_path_length", "single_target_shortest_path_length"):
        a, b = both(name, G, s, cutoff=cutoff)
        assert a == b and type(b) is dict
    a, b = both("all_pairs_shortest_path_length", G, cutoff=cutoff)
    assert hasattr(b, "__next__")
    assert list(dict(a)) == list(dict(b)) and dict(a) == dict(b)
    a, b = both("shortest_path_length", G, s)
    assert a == b
    a, b = both("shortest_path_length", G, target=t)
    assert a == b
    assert dict(nx.shortest_path_length(G)) == dict(nx.shortest_path_length(G, **BK))
    same_error("shortest_path_length", G, s, t)


@given(nx_graphs(multigraph=None, weighted=True), st.data())
def test_weighted_lengths(G, data):
    s, t = pick(data, G), pick(data, G)
    cutoff = data.draw(st.none() | st.floats(0, 12))
    a, b = both("single_source_dijkstra_path_length", G, s, cutoff=cutoff)
    assert close_dicts(a, b)
    a, b = both("single_source_bellman_ford_path_length", G, s)
    assert close_dicts(a, b)
    for method in ("dijkstra", "bellman-ford"):
        a, b = both("shortest_path_length", G, s, weight="weight", method=method)
        assert close_dicts(a, b)
        a, b = both("shortest_path_length", G, target=t, weight="weight", method=method)
        assert close_dicts(a, b)
        try:
            a = nx.shortest_path_length(G, s, t, weight="weight", method=method)
        except nx.NetworkXNoPath:
            same_error("shortest_path_length", G, s, t, weight="weight", method=method)
        else:
            b = nx.shortest_path_length(G, s, t, weight="weight", method=method, **BK)
            assert close_dicts({0: a}, {0: b})
    a, b = both("shortest_path_length", G, weight="weight")
    a, b = dict(a), dict(b)
    assert list(a) == list(b) and all(close_dicts(a[k], b[k]) for k in a)


@pytest.mark.parametrize("directed", [False, True])
def test_missing_nodes_raise_like_networkx(directed):
    G = nx.path_graph(["a", "b", "c"], create_using=nx.DiGraph if directed else nx.Graph)
    nx.set_edge_attributes(G, 2, "weight")
    cases = [
        ("bfs_layers", (G, "z")), ("bfs_layers", (G, ["a", "z"])), ("bfs_edges", (G, "z")),
        ("bfs_tree", (G, "z")), ("descendants_at_distance", (G, "z", 1)),
        ("single_source_shortest_path_length", (G, "z")),
        ("single_target_shortest_path_length", (G, "z")),
        ("single_source_dijkstra_path_length", (G, "z")),
        ("single_source_bellman_ford_path_length", (G, "z")),
        ("shortest_path_length", (G, "z")), ("shortest_path_length", (G, "a", "z")),
        ("shortest_path_length", (G, "z", "a")), ("shortest_path_length", (G, None, "z")),
        ("shortest_path_length", (G, "c", "a")),
    ]
    for name, args in cases:
        same_error(name, *args)
        for method in ("dijkstra", "bellman-ford"):
            if name == "shortest_path_length":
                same_error(name, *args, weight="weight", method=method)
    same_error("shortest_path_length", G, "a", method="bogus")


def test_fallbacks_and_refusals():
    G = nx.DiGraph([(0, 1, {"weight": -1}), (1, 2, {"weight": 1})])
    iface = nx.utils.backends._load_backend("bitgraph")
    assert isinstance(iface.can_run("bfs_edges", (G, 0), {"reverse": True}), str)
    assert isinstance(iface.can_run("bfs_tree", (G, 0), {"sort_neighbors": sorted}), str)
    assert isinstance(iface.can_run("shortest_path_length", (G, 0),
                                    {"weight": lambda u, v, d: 1}), str)
    assert iface.can_run("bfs_edges", (G.to_undirected(), 0), {"reverse": True}) is True
    # negative weights: Dijkstra's functions decline (NetworkX's own answer when it may
    # fall back); Bellman-Ford's run them
    with pytest.raises(NotImplementedError):
        nx.single_source_dijkstra_path_length(G, 0, **BK)
    with pytest.raises(NotImplementedError):
        nx.shortest_path_length(G, 0, weight="weight", method="dijkstra", **BK)
    with nx.config(backend_priority=["bitgraph"], fallback_to_nx=True):
        assert nx.single_source_dijkstra_path_length(G, 0) == {0: 0, 1: -1, 2: 0}
    assert nx.single_source_bellman_ford_path_length(G, 0, **BK) == {0: 0, 1: -1, 2: 0}
    assert isinstance(iface.can_run("negative_edge_cycle", (G,), {"weight": lambda u, v, d: 1}), str)
    assert isinstance(iface.can_run("bellman_ford_path_length", (G, 0, 1),
                                    {"weight": lambda u, v, d: 1}), str)


def _outcome(f, *args, **kw):
    try:
        r = f(*args, **kw)
    except Exception as e:  # noqa: BLE001 - comparing errors
        return type(e), str(e)
    return "ok", dict(r) if isinstance(r, dict) else r


def _same(name, *args, **kw):
    """nx.<name> and the backend: the same error, or equal results."""
    a = _outcome(getattr(nx, name), *args, **kw)
    b = _outcome(getattr(nx, name), *args, **kw, **BK)
    assert a[0] == b[0], (a, b)
    if a[0] != "ok":
        assert a == b
    elif isinstance(a[1], dict):
        assert close_dicts(a[1], b[1])
    else:
        assert close_dicts({0: a[1]}, {0: b[1]})
    return a


@given(nx_graphs(multigraph=None, weighted=True), st.data())
@settings(max_examples=80, deadline=None)
def test_negative_weights_bellman_ford(G, data):
    """Negative weights (negative cycles often): the Bellman-Ford functions and
    negative_edge_cycle answer as NetworkX (NetworkXUnbounded for a reachable
    negative cycle, the same distances otherwise)."""
    offset = data.draw(st.sampled_from([0, 1, 3, 0.5]))
    for *_, d in G.edges(data=True):
        if "weight" in d:
            d["weight"] -= offset
    s, t = pick(data, G), pick(data, G)
    _same("single_source_bellman_ford_path_length", G, s)
    _same("bellman_ford_path_length", G, s, t)
    _same("shortest_path_length", G, s, weight="weight", method="bellman-ford")
    _same("shortest_path_length", G, s, t, weight="weight", method="bellman-ford")
    _same("shortest_path_length", G, target=t, weight="weight", method="bellman-ford")
    _same("negative_edge_cycle", G)
    _same("negative_edge_cycle", G, weight=None)


def test_negative_edge_cycle_cases():
    G = nx.DiGraph([(0, 1, {"weight": 5}), (1, 2, {"weight": 2}), (2, 3, {"weight": -4}),
                    (3, 1, {"weight": 1}), (0, 4, {"weight": 7})])
    G.add_node(5)
    assert nx.negative_edge_cycle(G, **BK) is True is nx.negative_edge_cycle(G)
    for s in (0, 1):
        with pytest.raises(nx.NetworkXUnbounded, match="Negative cycle detected."):
            nx.bellman_ford_path_length(G, s, 4, **BK)
    assert nx.bellman_ford_path_length(G, 4, 4, **BK) == 0
    with pytest.raises(nx.NetworkXNoPath, match="node 0 not reachable from 4"):
        nx.bellman_ford_path_length(G, 4, 0, **BK)
    with pytest.raises(nx.NodeNotFound, match="Source 9 not in G"):
        nx.bellman_ford_path_length(G, 9, 0, **BK)
    with pytest.raises(nx.NodeNotFound, match="Node 9 not found in graph"):
        nx.bellman_ford_path_length(G, 9, 9, **BK)
    G.add_edge(2, 3, weight=-3)  # the cycle weighs 0 (add_edge clears the conversion cache)
    assert nx.negative_edge_cycle(G, **BK) is False is nx.negative_edge_cycle(G)
    assert nx.bellman_ford_path_length(G, 0, 3, **BK) == 4 == nx.bellman_ford_path_length(G, 0, 3)
    # an unreachable negative self-loop: distances from 0, yet a cycle in G
    G.add_edge(5, 5, weight=-1)
    assert nx.single_source_bellman_ford_path_length(G, 0, **BK) == \
        nx.single_source_bellman_ford_path_length(G, 0)
    assert nx.negative_edge_cycle(G, **BK) is True
    with pytest.raises(nx.NetworkXUnbounded):
        nx.single_source_bellman_ford_path_length(G, 5, **BK)
    # undirected: a negative edge is a negative cycle; no edges: none
    U = nx.Graph([(0, 1, {"weight": -1}), (1, 2, {"weight": 3})])
    assert nx.negative_edge_cycle(U, **BK) is True is nx.negative_edge_cycle(U)
    assert nx.negative_edge_cycle(nx.empty_graph(3), **BK) is False


def test_path_lengths_on_larger_graph():
    # several msbfs chunks and a long BFS
    G = nx.gnm_random_graph(600, 1500, seed=3, directed=True)
    a, b = both("all_pairs_shortest_path_length", G, cutoff=5)
    assert dict(a) == dict(b)
    a, b = both("bfs_edges", nx.grid_2d_graph(30, 30), (0, 0))
    assert list(a) == list(b)


def _typed(d):
    return [(k, v, type(v).__name__) for k, v in d.items()]


@pytest.mark.parametrize("w", [1.0, 2.5, 1, 3, True])
@pytest.mark.parametrize("name", ["single_source_dijkstra_path_length",
                                  "single_source_bellman_ford_path_length"])
def test_weighted_lengths_have_networkx_types(name, w):
    """NetworkX adds the weights it has: float weights (1.0 too) give float
    lengths, integer weights int lengths, and the source is the int 0."""
    G = nx.Graph()
    G.add_edge(0, 1, weight=w)
    G.add_edge(1, 2, weight=w)
    G.add_edge(2, 3)  # no weight: NetworkX's 1
    G.add_node(4)
    a, b = both(name, G, 0)
    assert _typed(a) == _typed(b)
    a, b = both("shortest_path_length", G, 0, 2, weight="weight")
    assert (a, type(a)) == (b, type(b))
