"""The NetworkX backend on a GPU: with ``nx.config.backends.bitgraph.device =
"auto"`` the converted graph's matrix is on CUDA, the BFS-based functions
run there without a CPU copy, and every backend function called with
``backend="bitgraph"`` gives NetworkX's answer on a few graphs (undirected
and directed, string labels, isolated nodes, several components, weighted
edges for the weighted functions, one graph big enough for several msbfs
chunks).

The device machine runs the working tree, where bitgraph is not installed:
NetworkX finds backends through entry points, read once when it is
imported, so :func:`_register_backend` first puts a ``bitgraph.dist-info``
holding ``pyproject.toml``'s entry points on ``sys.path`` (nothing happens
where bitgraph is installed). NetworkX itself may be missing there: the
module is skipped then.

``BG_TEST_DEVICE=cpu`` runs the whole file on the CPU backend (no gpu
marker; for debugging the comparisons).
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEVICE = os.environ.get("BG_TEST_DEVICE", "cuda")
pytestmark = [pytest.mark.gpu] if DEVICE == "cuda" else []


def _register_backend():
    """Entry points for NetworkX where bitgraph is not installed (see the
    module docstring); must run before ``import networkx``."""
    from importlib.metadata import entry_points

    if importlib.util.find_spec("networkx") is None or "networkx" in sys.modules:
        return  # absent (skipped below) or too late (checked below)
    if any(ep.name == "bitgraph" for ep in entry_points(group="networkx.backends")):
        return
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as f:
        eps = tomllib.load(f)["project"]["entry-points"]
    info = Path(tempfile.mkdtemp(prefix="bitgraph-nx-")) / "bitgraph-0.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bitgraph\nVersion: 0.0.0\n")
    (info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in eps[group].items()) + "\n"
        for group in ("networkx.backends", "networkx.backend_info")))
    sys.path.append(str(info.parent))
    if str(ROOT) not in sys.path:  # _nx_bitgraph.py sits at the repository root
        sys.path.append(str(ROOT))


_register_backend()
nx = pytest.importorskip("networkx")
if "bitgraph" not in nx.utils.backends.backends:
    pytest.skip("the bitgraph backend is not registered with NetworkX (networkx was imported "
                "before this module could add its entry points; pip install -e . fixes it)",
                allow_module_level=True)

sys.path.insert(0, str(ROOT / "tests" / "nx"))
from conftest_backend import close_dicts  # noqa: E402
from test_nx_traversal import BK, both, same_error  # noqa: E402
from test_paths import agree  # noqa: E402

import bitgraph.nx as bnx  # noqa: E402

nx.config.warnings_to_ignore.add("cache")  # many functions on one graph: the cache is reused


@pytest.fixture(autouse=True)
def _device_setting():
    """device "auto" (the default; a GPU machine resolves it to cuda), or
    "cpu" under BG_TEST_DEVICE=cpu; restored afterwards."""
    cfg = nx.config.backends.bitgraph
    old = cfg.device
    cfg.device = "auto" if DEVICE == "cuda" else "cpu"
    yield
    cfg.device = old


# --- the graphs ---------------------------------------------------------------------

def _weigh(G, seed, integer):
    """A "weight" on most edges (some lack it: 1), ints or floats."""
    for k, (u, v, d) in enumerate(G.edges(data=True)):
        if (k * 7 + seed) % 11:
            d["weight"] = ((k * 37 + seed) % 9 + 1) if integer else ((k * 37 + seed) % 97) / 13 + 0.25
    return G


def _labelled(G, fmt):
    return nx.relabel_nodes(G, {v: fmt.format(v) for v in G})


def _disconnected(directed):
    """String labels, nodes inserted in a shuffled order, a random part, a
    separate cycle with a pendant, self-loops and two isolated nodes."""
    G = nx.DiGraph() if directed else nx.Graph()
    base = nx.gnm_random_graph(60, 150, seed=11, directed=directed)
    order = sorted(base, key=lambda v: (v * 29) % 61)
    G.add_nodes_from(f"n{v}" for v in order)
    G.add_node("isolated-a")
    G.add_edges_from((f"n{u}", f"n{v}") for u, v in base.edges)
    nx.add_cycle(G, ["c0", "c1", "c2", "c3", "c4"])
    G.add_edge("c2", "pendant")
    G.add_edge("n3", "n3")
    G.add_edge("c1", "c1")
    G.add_node("isolated-b")
    return _weigh(G, 3, integer=directed)


def _connected_undirected():
    G = _labelled(nx.connected_watts_strogatz_graph(80, 4, 0.3, seed=5), "w{}")
    return _weigh(G, 5, integer=False)


def _strongly_connected():
    G = nx.DiGraph()
    nx.add_cycle(G, [f"s{i}" for i in range(50)])
    G.add_edges_from((f"s{i}", f"s{(i * 7 + 3) % 50}") for i in range(0, 50, 3))
    return _weigh(G, 7, integer=True)


def _big_directed():
    """More than one msbfs chunk (256 sources) and one 64-source batch."""
    G = _labelled(nx.gnm_random_graph(600, 1800, seed=3, directed=True), "b{}")
    return _weigh(G, 1, integer=False)


def _big_undirected():
    G = _labelled(nx.barabasi_albert_graph(700, 3, seed=2), "u{}")
    G.add_nodes_from(["lonely-1", "lonely-2"])
    return _weigh(G, 2, integer=True)


_BUILDERS = {
    "undirected-disconnected": lambda: _disconnected(False),
    "directed-disconnected": lambda: _disconnected(True),
    "undirected-connected": _connected_undirected,
    "directed-strongly-connected": _strongly_connected,
    "directed-big": _big_directed,
    "undirected-big": _big_undirected,
}
_GRAPHS = {}


def graph(name):
    """Built once per session: NetworkX caches each conversion on the graph,
    so the functions below share one BitGraph per (graph, edge attributes)."""
    if name not in _GRAPHS:
        _GRAPHS[name] = _BUILDERS[name]()
    return _GRAPHS[name]


def nodes_of(G):
    """(s, t, u): a node of largest degree, one in another component when
    there is one, and the last node (isolated on the disconnected graphs)."""
    by_degree = sorted(G, key=lambda v: -G.degree(v))
    s = by_degree[0]
    reach = nx.node_connected_component(G.to_undirected(as_view=True), s)
    others = [v for v in G if v not in reach and G.degree(v)]
    return s, (others[0] if others else by_degree[len(by_degree) // 2]), list(G)[-1]


# --- the checks: one per backend function ----------------------------------------------

def _sets(cs):
    return [set(c) for c in cs]


def _float_close(a, b, rel=1e-9):
    return close_dicts({0: a}, {0: b}, rel=rel)


def check_bfs_layers(G):
    for src in (*nodes_of(G), list(nodes_of(G)[:2])):
        a, b = both("bfs_layers", G, src)
        assert list(a) == list(b)


def check_bfs_edges(G):
    for src in nodes_of(G):
        for depth in (None, 1, 3):
            a, b = both("bfs_edges", G, src, depth_limit=depth)
            assert list(a) == list(b)


def check_bfs_tree(G):
    for src in nodes_of(G):
        a, b = both("bfs_tree", G, src)
        assert list(a.nodes) == list(b.nodes) and list(a.edges) == list(b.edges)


def check_descendants_at_distance(G):
    for src in nodes_of(G):
        for d in range(5):
            a, b = both("descendants_at_distance", G, src, d)
            assert a == b


def check_single_source_shortest_path_length(G):
    for src in nodes_of(G):
        for cutoff in (None, 2):
            a, b = both("single_source_shortest_path_length", G, src, cutoff=cutoff)
            assert a == b


def check_single_target_shortest_path_length(G):
    for t in nodes_of(G):
        for cutoff in (None, 2):
            a, b = both("single_target_shortest_path_length", G, t, cutoff=cutoff)
            assert a == b


def check_all_pairs_shortest_path_length(G):
    for cutoff in (None, 3):
        a, b = both("all_pairs_shortest_path_length", G, cutoff=cutoff)
        a, b = dict(a), dict(b)
        assert list(a) == list(b) and a == b


def check_shortest_path_length(G):
    s, t, u = nodes_of(G)
    # unweighted: from s, to t, one pair (or NetworkX's error), all pairs
    a, b = both("shortest_path_length", G, s)
    assert a == b
    a, b = both("shortest_path_length", G, target=t)
    assert a == b
    for x, y in ((s, t), (t, s), (s, u), (s, s)):
        same_error("shortest_path_length", G, x, y)
    assert dict(nx.shortest_path_length(G)) == dict(nx.shortest_path_length(G, **BK))
    # weighted
    for method in ("dijkstra", "bellman-ford"):
        kw = {"weight": "weight", "method": method}
        a, b = both("shortest_path_length", G, s, **kw)
        assert close_dicts(a, b)
        a, b = both("shortest_path_length", G, target=t, **kw)
        assert close_dicts(a, b)
        for x, y in ((s, t), (t, s), (s, u)):
            try:
                want = nx.shortest_path_length(G, x, y, **kw)
            except nx.NetworkXNoPath:
                same_error("shortest_path_length", G, x, y, **kw)
            else:
                assert _float_close(nx.shortest_path_length(G, x, y, **kw, **BK), want)
    if len(G) <= 100:  # all pairs weighted: one sssp per node
        a, b = both("shortest_path_length", G, weight="weight")
        a, b = dict(a), dict(b)
        assert list(a) == list(b) and all(close_dicts(a[k], b[k]) for k in a)


def check_single_source_dijkstra_path_length(G):
    for src in nodes_of(G):
        for cutoff in (None, 4.5):
            a, b = both("single_source_dijkstra_path_length", G, src, cutoff=cutoff)
            assert close_dicts(a, b)


def check_single_source_bellman_ford_path_length(G):
    for src in nodes_of(G):
        a, b = both("single_source_bellman_ford_path_length", G, src)
        assert close_dicts(a, b)


def check_bellman_ford_path_length(G):
    s, t, u = nodes_of(G)
    for src, dst in ((s, t), (s, u), (t, s), (s, s)):
        same_error("bellman_ford_path_length", G, src, dst)


def check_negative_edge_cycle(G):
    a, b = both("negative_edge_cycle", G)
    assert a == b is False
    H = G.copy()
    u, v = next(iter(H.edges))
    H[u][v]["weight"] = -1  # undirected: a negative cycle there and back; directed: none
    a, b = both("negative_edge_cycle", H)
    assert a == b


def check_pagerank(G):
    for weight in ("weight", None):
        a, b = both("pagerank", G, weight=weight, tol=1e-12, max_iter=1000)
        assert list(a) == list(b)
        assert all(abs(a[k] - b[k]) < 1e-9 for k in a)


def _undirected_only(name, *args):
    def check(G):
        if G.is_directed():
            same_error(name, G, *args)  # NetworkXNotImplemented on both
            return
        a, b = both(name, G, *args)
        assert (list(a) if hasattr(a, "__next__") else a) == (list(b) if hasattr(b, "__next__") else b)
    return check


def _directed_only(name):
    def check(G):
        if not G.is_directed():
            same_error(name, G)
            return
        a, b = both(name, G)
        assert (list(a) if hasattr(a, "__next__") else a) == (list(b) if hasattr(b, "__next__") else b)
    return check


check_connected_components = _undirected_only("connected_components")
check_number_connected_components = _undirected_only("number_connected_components")
check_is_connected = _undirected_only("is_connected")
check_weakly_connected_components = _directed_only("weakly_connected_components")
check_number_weakly_connected_components = _directed_only("number_weakly_connected_components")


def check_node_connected_component(G):
    for v in nodes_of(G):
        if G.is_directed():
            same_error("node_connected_component", G, v)
        else:
            a, b = both("node_connected_component", G, v)
            assert a == b


def check_triangles(G):
    if G.is_directed():
        same_error("triangles", G)
        return
    a, b = both("triangles", G)
    assert a == b
    s = nodes_of(G)[0]
    a, b = both("triangles", G, s)
    assert a == b


def check_transitivity(G):
    a, b = both("transitivity", G)
    assert type(a) is type(b) and _float_close(a, b, rel=1e-12)


def check_average_clustering(G):
    for count_zeros in (True, False):
        try:
            a = nx.average_clustering(G, count_zeros=count_zeros)
        except ZeroDivisionError:  # no node with a nonzero clustering
            same_error("average_clustering", G, count_zeros=count_zeros)
            continue
        b = nx.average_clustering(G, count_zeros=count_zeros, **BK)
        assert _float_close(a, b, rel=1e-12)


def check_clustering(G):
    a, b = both("clustering", G)
    assert list(a) == list(b) and close_dicts(a, b)
    s = nodes_of(G)[0]
    a, b = both("clustering", G, s)
    assert _float_close(a, b, rel=1e-12)


def check_closeness_centrality(G):
    for wf in (True, False):
        a, b = both("closeness_centrality", G, wf_improved=wf)
        assert list(a) == list(b) and close_dicts(a, b)
    for v in nodes_of(G):
        a, b = both("closeness_centrality", G, v)
        assert type(b) is float and _float_close(a, b)


def check_betweenness_centrality(G):
    for normalized in (True, False):
        for endpoints in (False, True):
            a, b = both("betweenness_centrality", G, normalized=normalized, endpoints=endpoints)
            assert list(a) == list(b) and close_dicts(a, b)
    a, b = both("betweenness_centrality", G, k=3, seed=7)
    assert list(a) == list(b) and close_dicts(a, b)
    a, b = both("betweenness_centrality", G, weight="weight", endpoints=True)
    assert list(a) == list(b) and close_dicts(a, b)


def check_edge_betweenness_centrality(G):
    for normalized in (True, False):
        a, b = both("edge_betweenness_centrality", G, normalized=normalized)
        assert list(a) == list(b) and close_dicts(a, b)
    a, b = both("edge_betweenness_centrality", G, k=3, seed=7)
    assert list(a) == list(b) and close_dicts(a, b)
    a, b = both("edge_betweenness_centrality", G, weight="weight")
    assert list(a) == list(b) and close_dicts(a, b)


def check_eccentricity(G):
    same_error("eccentricity", G)  # values on the connected graphs, the error on the others
    s = nodes_of(G)[0]
    same_error("eccentricity", G, s)


def check_diameter(G):
    same_error("diameter", G)


def check_radius(G):
    same_error("radius", G)


# --- paths and reachability (bitgraph.nx.paths): NetworkX's answer, or a
# NotImplementedError only where tie_ok (NetworkX's choice among tied paths
# follows G.pred, its bidirectional Dijkstra's heaps or Bellman-Ford's queue)

def check_has_path(G):
    s, t, u = nodes_of(G)
    for a, b in ((s, t), (t, s), (s, u)):
        agree("has_path", G, a, b)


def check_descendants(G):
    for v in nodes_of(G):
        agree("descendants", G, v)


def check_ancestors(G):
    for v in nodes_of(G):
        agree("ancestors", G, v)


def check_is_weakly_connected(G):
    if G.is_directed():
        agree("is_weakly_connected", G)


def check_bfs_predecessors(G):
    agree("bfs_predecessors", G, nodes_of(G)[0])
    agree("bfs_predecessors", G, nodes_of(G)[0], depth_limit=2)


def check_bfs_successors(G):
    agree("bfs_successors", G, nodes_of(G)[0])
    agree("bfs_successors", G, nodes_of(G)[0], depth_limit=2)


def check_generic_bfs_edges(G):
    agree("generic_bfs_edges", G, nodes_of(G)[0], depth_limit=3)


def check_single_source_shortest_path(G):
    agree("single_source_shortest_path", G, nodes_of(G)[0])
    agree("single_source_shortest_path", G, nodes_of(G)[0], cutoff=2)


def check_single_target_shortest_path(G):
    agree("single_target_shortest_path", G, nodes_of(G)[1], tie_ok=G.is_directed())


def check_all_pairs_shortest_path(G):
    agree("all_pairs_shortest_path", G, cutoff=3)


def check_bidirectional_shortest_path(G):
    s, t, u = nodes_of(G)
    for b in (t, u, list(G)[len(G) // 3]):
        agree("bidirectional_shortest_path", G, s, b, tie_ok=G.is_directed())


def check_shortest_path(G):
    s, t, _ = nodes_of(G)
    agree("shortest_path", G, s)
    agree("shortest_path", G, target=t, tie_ok=G.is_directed())
    agree("shortest_path", G, s, weight="weight")
    agree("shortest_path", G, s, t, weight="weight", tie_ok=True)
    agree("shortest_path", G, s, weight="weight", method="bellman-ford", tie_ok=True)


def check_single_source_dijkstra(G):
    s, t, _ = nodes_of(G)
    agree("single_source_dijkstra", G, s)
    agree("single_source_dijkstra", G, s, t, cutoff=9.5)


def check_single_source_dijkstra_path(G):
    agree("single_source_dijkstra_path", G, nodes_of(G)[0], cutoff=6)


def check_dijkstra_path(G):
    s, t, _ = nodes_of(G)
    agree("dijkstra_path", G, s, list(G)[len(G) // 2])
    agree("dijkstra_path", G, s, t)


def check_dijkstra_path_length(G):
    s, t, _ = nodes_of(G)
    agree("dijkstra_path_length", G, s, list(G)[len(G) // 2])
    agree("dijkstra_path_length", G, s, t)


def check_all_pairs_dijkstra_path(G):
    if len(G) < 100:
        agree("all_pairs_dijkstra_path", G)


def check_single_source_bellman_ford(G):
    agree("single_source_bellman_ford", G, nodes_of(G)[0], tie_ok=True)


def check_single_source_bellman_ford_path(G):
    agree("single_source_bellman_ford_path", G, nodes_of(G)[0], tie_ok=True)


def check_bellman_ford_path(G):
    s, t, _ = nodes_of(G)
    agree("bellman_ford_path", G, s, list(G)[len(G) // 2], tie_ok=True)
    agree("bellman_ford_path", G, s, t, tie_ok=True)


# --- centralities and structure (bitgraph/nx/centrality.py, structure.py) --------------
def _canon(r):
    """A result in comparable form: graphs as their node and edge sets (an
    undirected edge either way round), iterators as lists."""
    if isinstance(r, nx.Graph):
        def edge(e):
            e = tuple(map(repr, e))
            return e if r.is_directed() else tuple(sorted(e))
        return ("graph", r.is_directed(), sorted(map(repr, r.nodes)), sorted(map(edge, r.edges)))
    if hasattr(r, "__next__"):
        return list(r)
    return r


def _near(a, b):
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (a, b)
        for k in a:
            _near(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _near(x, y)
    elif isinstance(a, float) or isinstance(b, float):
        assert abs(a - b) <= 1e-9 * max(1.0, abs(a)), (a, b)
    else:
        assert a == b, (a, b)


def agree_any(name, G, *args, tie_ok=False, small=False, **kw):
    """nx.<name>(G, ...) with and without the backend: the same error or the
    same result (_canon; floats within 1e-9: the GPU adds in another order).
    small: only on graphs of at most 100 nodes (results of n^2 size);
    tie_ok: the backend may decline with NotImplementedError."""
    if small and len(G) > 100:
        return
    f = getattr(nx, name)

    def run(**extra):
        try:
            return "ok", _canon(f(G, *args, **kw, **extra))
        except Exception as e:  # noqa: BLE001 - comparing errors
            return type(e), str(e)

    a, b = run(), run(**BK)
    if tie_ok and b[0] is NotImplementedError:
        return
    assert a[0] == b[0], (name, a, b)
    if a[0] == "ok":
        _near(a[1], b[1])


def check_degree_centrality(G):
    agree_any("degree_centrality", G)


def check_in_degree_centrality(G):
    agree_any("in_degree_centrality", G)


def check_out_degree_centrality(G):
    agree_any("out_degree_centrality", G)


def check_eigenvector_centrality(G):
    agree_any("eigenvector_centrality", G, max_iter=500)
    agree_any("eigenvector_centrality", G, max_iter=500, weight="weight")


def check_katz_centrality(G):
    agree_any("katz_centrality", G, alpha=0.05)
    agree_any("katz_centrality", G, alpha=0.05, weight="weight", normalized=False)


def check_hits(G):
    if "method" in inspect.signature(nx.hits).parameters:
        # NetworkX 3.7: the power iteration by default, the same steps here
        # (never declined), both normalisations; "svd" as 3.6's below
        agree_any("hits", G, max_iter=500)
        agree_any("hits", G, max_iter=500, normalized=False)
        agree_any("hits", G, max_iter=500, method="svd", tie_ok=True)
    else:
        # NetworkX 3.6: ARPACK; our iteration declines where it does not converge
        agree_any("hits", G, max_iter=500, tie_ok=True)


def check_harmonic_centrality(G):
    agree_any("harmonic_centrality", G)


def check_reciprocity(G):
    agree_any("reciprocity", G)
    # on an undirected graph NetworkX's reciprocity(G, nodes) raises AttributeError
    # (no predecessors); the backend declines it
    agree_any("reciprocity", G, list(G)[:5], tie_ok=not G.is_directed())


def check_overall_reciprocity(G):
    agree_any("overall_reciprocity", G)


def check_isolates(G):
    agree_any("isolates", G)


def check_is_isolate(G):
    for v in list(G)[:3] + ["isolated-a"] * ("isolated-a" in G):
        agree_any("is_isolate", G, v)


def check_number_of_isolates(G):
    agree_any("number_of_isolates", G)


def check_complement(G):
    agree_any("complement", _no_loops(G), small=True)
    agree_any("complement", G, small=True, tie_ok=True)


def check_reverse(G):
    agree_any("reverse", _no_loops(G))
    agree_any("reverse", G, tie_ok=True)


def check_core_number(G):
    agree_any("core_number", _no_loops(G))


def _no_loops(G):
    """G without self-loops and without attributes (graph results carry
    none: the backend declines a graph whose result would need them)."""
    H = type(G)()
    H.add_nodes_from(G)
    H.add_edges_from((u, v) for u, v in G.edges if u != v)
    return H


def check_k_core(G):
    agree_any("k_core", _no_loops(G))
    agree_any("k_core", _no_loops(G), 2)


def check_k_shell(G):
    agree_any("k_shell", _no_loops(G))
    agree_any("k_shell", _no_loops(G), 1)


def check_k_crust(G):
    agree_any("k_crust", _no_loops(G))


def check_k_corona(G):
    agree_any("k_corona", _no_loops(G), 1)


def check_k_truss(G):
    agree_any("k_truss", _no_loops(G), 3)


def check_onion_layers(G):
    agree_any("onion_layers", _no_loops(G))


def _pairs(G):
    nodes = list(G)
    return [(nodes[i], nodes[(i * 7 + 3) % len(nodes)]) for i in range(min(len(nodes), 40))
            if nodes[i] != nodes[(i * 7 + 3) % len(nodes)]]


def check_jaccard_coefficient(G):
    agree_any("jaccard_coefficient", G, small=True)
    agree_any("jaccard_coefficient", G, _pairs(G))


def check_resource_allocation_index(G):
    agree_any("resource_allocation_index", G, _pairs(G))


def check_adamic_adar_index(G):
    agree_any("adamic_adar_index", G, _pairs(G))


def check_preferential_attachment(G):
    agree_any("preferential_attachment", G, _pairs(G))


def check_is_tree(G):
    agree_any("is_tree", G)
    agree_any("is_tree", nx.bfs_tree(G, list(G)[0]).to_undirected())


def check_is_forest(G):
    agree_any("is_forest", G)


def check_is_arborescence(G):
    agree_any("is_arborescence", G)
    agree_any("is_arborescence", nx.bfs_tree(G, list(G)[0]))


def check_is_branching(G):
    agree_any("is_branching", G)


def check_is_regular(G):
    agree_any("is_regular", G)
    agree_any("is_regular", nx.cycle_graph(7, create_using=type(G)))


def check_is_k_regular(G):
    if not G.is_directed():
        agree_any("is_k_regular", G, 2)
        agree_any("is_k_regular", nx.cycle_graph(7), 2)


def check_is_eulerian(G):
    agree_any("is_eulerian", G)
    agree_any("is_eulerian", nx.cycle_graph(6, create_using=type(G)))


def check_number_of_selfloops(G):
    agree_any("number_of_selfloops", G)


def check_is_empty(G):
    agree_any("is_empty", G)
    agree_any("is_empty", nx.empty_graph(4, create_using=type(G)))


def check_is_bipartite(G):
    agree_any("is_bipartite", G)
    agree_any("is_bipartite", nx.path_graph(9, create_using=type(G)))


def check_number_of_walks(G):
    agree_any("number_of_walks", G, 3, small=True)


def check_s_metric(G):
    agree_any("s_metric", G)


def check_rich_club_coefficient(G):
    if not G.is_directed():
        agree_any("rich_club_coefficient", _no_loops(G), normalized=False)


def check_is_directed_acyclic_graph(G):
    agree_any("is_directed_acyclic_graph", G)
    agree_any("is_directed_acyclic_graph", nx.bfs_tree(G, list(G)[0]))


def check_average_degree_connectivity(G):
    agree_any("average_degree_connectivity", G)
    agree_any("average_degree_connectivity", G, weight="weight")


def check_average_neighbor_degree(G):
    agree_any("average_neighbor_degree", G)
    agree_any("average_neighbor_degree", G, weight="weight")


CHECKS = {name[len("check_"):]: f for name, f in sorted(globals().items())
          if name.startswith("check_") and callable(f)}


def test_every_backend_function_is_checked():
    assert set(CHECKS) == set(bnx.FUNCTIONS)


@pytest.mark.parametrize("gname", sorted(_BUILDERS))
@pytest.mark.parametrize("fname", sorted(CHECKS))
def test_same_answer_as_networkx(gname, fname):
    CHECKS[fname](graph(gname))


# --- where the work runs ---------------------------------------------------------------

def test_converted_matrix_is_on_cuda():
    G = _disconnected(False)
    BG = bnx.BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert BG.device == BG.matrix.device == DEVICE
    assert bnx.BackendInterface.convert_to_nx(BG).number_of_edges() == G.number_of_edges()


@pytest.mark.parametrize("directed", [False, True])
def test_algorithms_run_on_the_device_with_no_cpu_copy(directed):
    """Every function built on a bitgraph algorithm (bfs, msbfs, closeness,
    sssp, pagerank, components, triangles, eccentricity) reads the CUDA
    matrix, weighted ones a weighted copy made on the device: no CPU copy.
    The directed clustering (GraphBLAS operations on the host) makes it,
    once."""
    from bitgraph.nx import measures as M
    from bitgraph.nx import traversal as T

    G = _disconnected(directed)
    BG = bnx.BackendInterface.convert_from_nx(G, edge_attrs={"weight": 1})
    s, t, _ = nodes_of(G)
    assert T.single_source_shortest_path_length(BG, s) == nx.single_source_shortest_path_length(G, s)
    assert T.single_target_shortest_path_length(BG, t) == nx.single_target_shortest_path_length(G, t)
    assert T.descendants_at_distance(BG, s, 2) == nx.descendants_at_distance(G, s, 2)
    assert dict(T.all_pairs_shortest_path_length(BG)) == dict(nx.all_pairs_shortest_path_length(G))
    assert T.shortest_path_length(BG, target=t) == nx.shortest_path_length(G, target=t)
    assert close_dicts(M.closeness_centrality(BG), nx.closeness_centrality(G))
    a, b = M.pagerank(BG, tol=1e-12), nx.pagerank(G, tol=1e-12)
    assert all(abs(a[k] - b[k]) < 1e-9 for k in b)
    assert close_dicts(T.single_source_dijkstra_path_length(BG, s),
                       nx.single_source_dijkstra_path_length(G, s))
    if directed:
        assert M.number_weakly_connected_components(BG) == nx.number_weakly_connected_components(G)
    else:
        assert M.number_connected_components(BG) == nx.number_connected_components(G)
        assert M.triangles(BG) == nx.triangles(G)
    H = nx.cycle_graph(9, create_using=nx.DiGraph if directed else nx.Graph)
    BH = bnx.BackendInterface.convert_from_nx(H)
    assert M.eccentricity(BH) == nx.eccentricity(H)
    assert "_cpu_matrix" not in BG.__dict__ and "_cpu_matrix" not in BH.__dict__
    assert BG.weighted("weight", 1).device == DEVICE
    if directed:
        M.clustering(BG)
        cpu = BG.cpu_matrix
        assert cpu.device == "cpu" and (cpu is BG.matrix) == (DEVICE == "cpu")
        M.average_clustering(BG)
        assert BG.cpu_matrix is cpu
