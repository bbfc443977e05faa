"""bitgraph.nx.structure against plain NetworkX on hypothesis graphs
(directed and undirected, isolated nodes, self-loops, int / string /
tuple labels)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from conftest_backend import nx_graphs
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.nx import BackendInterface
from bitgraph.nx import structure as S
from bitgraph.nx.convert import from_networkx

SETTINGS = settings(max_examples=40, deadline=None)


def adjacency(H):
    """Nodes in order with each one's neighbours in order."""
    return [(n, list(H.adj[n])) for n in H]


def without_loops(G):
    G = G.copy()
    G.remove_edges_from(list(nx.selfloop_edges(G)))
    return G


# --- reciprocity ---------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(directed=True), st.data())
def test_reciprocity(G, data):
    BG = from_networkx(G)
    if G.number_of_edges() == 0:
        with pytest.raises(nx.NetworkXError, match="empty graphs"):
            S.overall_reciprocity(BG)
        with pytest.raises(nx.NetworkXError, match="empty graphs"):
            S.reciprocity(BG)
    else:
        assert S.overall_reciprocity(BG) == nx.overall_reciprocity(G)
        assert S.reciprocity(BG) == nx.reciprocity(G)
    nodes = list(G)
    some = data.draw(st.lists(st.sampled_from(nodes), max_size=6)) + ["not a node"]
    assert list(S.reciprocity(BG, some).items()) == list(nx.reciprocity(G, some).items())
    for v in nodes[:4]:
        if G.degree(v) == 0:
            with pytest.raises(nx.NetworkXError, match="isolated"):
                S.reciprocity(BG, v)
        else:
            r = S.reciprocity(BG, v)
            assert r == nx.reciprocity(G, v) and type(r) is float


def test_reciprocity_undirected():
    G = nx.path_graph(3)
    G.add_edge(2, 2)
    r = S.overall_reciprocity(from_networkx(G))
    assert r == nx.overall_reciprocity(G) == 0.0 and type(r) is float
    assert S.reciprocity(from_networkx(G)) == nx.reciprocity(G) == 0.0
    with pytest.raises(nx.NetworkXError, match="empty graphs"):
        S.overall_reciprocity(from_networkx(nx.empty_graph(2)))
    with pytest.raises(NotImplementedError):
        S.reciprocity(from_networkx(G), [0])
    # NetworkX raises AttributeError for an undirected graph with nodes: it runs
    assert BackendInterface.can_run("reciprocity", (G, [0]), {}) is not True


# --- isolates ------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs())
def test_isolates(G):
    BG = from_networkx(G)
    got = S.isolates(BG)
    assert type(got) is type(nx.isolates(G))  # a generator
    assert list(got) == list(nx.isolates(G))
    assert S.number_of_isolates(BG) == nx.number_of_isolates(G)
    for v in G:
        assert S.is_isolate(BG, v) is nx.is_isolate(G, v)


def test_is_isolate_not_in_graph():
    G = nx.Graph([(1, 2)])
    G.add_node(3)
    BG = from_networkx(G)
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        S.is_isolate(BG, 99)
    # an iterable that is not a node: NetworkX compares a degree view with 0
    assert S.is_isolate(BG, [3]) is nx.is_isolate(G, [3]) is False
    assert S.is_isolate(BG, "ab") is nx.is_isolate(G, "ab") is False


# --- complement and reverse ----------------------------------------------------------------

@SETTINGS
@given(nx_graphs())
def test_complement(G):
    H = S.complement(from_networkx(G))
    want = nx.complement(G)
    assert type(H) is type(want)
    assert adjacency(H) == adjacency(want)


@SETTINGS
@given(nx_graphs(directed=True))
def test_reverse(G):
    H = S.reverse(from_networkx(G))
    want = nx.reverse(G)
    assert type(H) is type(want)
    assert adjacency(H) == adjacency(want)
    # predecessors: the same sets (NetworkX lists them in G's adjacency order,
    # ours by node position)
    assert [(n, set(H.pred[n])) for n in H] == [(n, set(want.pred[n])) for n in want]


def test_reverse_errors_and_can_run():
    with pytest.raises(nx.NetworkXError, match="undirected"):
        S.reverse(from_networkx(nx.path_graph(3)))
    D = nx.DiGraph([(0, 1)])
    assert BackendInterface.can_run("reverse", (D,), {}) is True
    assert BackendInterface.can_run("reverse", (D,), {"copy": False}) is not True
    D.add_edge(1, 2, weight=3)  # attributes NetworkX's copy keeps
    assert BackendInterface.can_run("reverse", (D,), {}) is not True
    E = nx.DiGraph([(0, 1)])
    E.nodes[0]["color"] = "red"
    assert BackendInterface.can_run("k_core", (E,), {}) is not True


# --- cores ---------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False))
def test_core_number(G):
    if nx.number_of_selfloops(G):
        with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
            S.core_number(from_networkx(G))
        G = without_loops(G)
    got = S.core_number(from_networkx(G))
    want = nx.core_number(G)
    assert list(got.items()) == list(want.items())


@SETTINGS
@given(nx_graphs(weighted=False), st.sampled_from(["core", "shell", "crust"]),
       st.sampled_from([None, 0, 1, 2, 3]), st.booleans())
def test_core_subgraphs(G, which, k, given_core):
    G = without_loops(G)
    BG = from_networkx(G)
    ours = {"core": S.k_core, "shell": S.k_shell, "crust": S.k_crust}[which]
    theirs = {"core": nx.k_core, "shell": nx.k_shell, "crust": nx.k_crust}[which]
    kw = {"core_number": nx.core_number(G)} if given_core else {}
    H = ours(BG, k, **kw)
    want = theirs(G, k, **kw)
    assert list(H.nodes) == list(want)  # NetworkX's subgraph node order
    assert type(H) is type(want)
    assert sorted(map(repr, H.edges())) == sorted(map(repr, want.edges()))


@pytest.mark.parametrize("seed", [1, 2])
def test_peeling_frontier_sizes(seed):
    # 3000 vertices: frontiers of a few rows, of under 1/64 of the vertices
    # and wider ones all occur, so each way of a peeling round runs
    G = nx.gnm_random_graph(3000, 7000, seed=seed)
    assert S.core_number(from_networkx(G)) == nx.core_number(G)
    D = nx.gnm_random_graph(3000, 7000, seed=seed, directed=True)
    assert S.core_number(from_networkx(D)) == nx.core_number(D)
    dag = nx.DiGraph((u, v) if u < v else (v, u) for u, v in D.edges() if u != v)
    dag.add_nodes_from(D)
    assert S.is_directed_acyclic_graph(from_networkx(dag)) is True
    dag.add_edge(2999, 0)
    dag.add_edge(0, 2999)
    assert S.is_directed_acyclic_graph(from_networkx(dag)) is False


def test_core_number_peeling_rounds():
    # a long path peels two vertices a round; a clique on top of it has core 4
    G = nx.path_graph(40)
    G.add_edges_from(nx.complete_graph(range(100, 105)).edges())
    G.add_edge(39, 100)
    assert S.core_number(from_networkx(G)) == nx.core_number(G)
    D = nx.DiGraph([(0, 1), (1, 0), (1, 2), (2, 0)])  # mutual neighbours count twice
    assert S.core_number(from_networkx(D)) == nx.core_number(D) == {0: 2, 1: 2, 2: 2}


# --- Jaccard -------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(directed=False, weighted=False), st.data())
def test_jaccard_coefficient(G, data):
    BG = from_networkx(G)
    assert list(S.jaccard_coefficient(BG)) == list(nx.jaccard_coefficient(G))
    nodes = list(G)
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)),
                               max_size=12))
    got = list(S.jaccard_coefficient(BG, pairs))
    want = list(nx.jaccard_coefficient(G, pairs))
    assert got == want
    assert [type(p) for *_, p in got] == [type(p) for *_, p in want]


def test_jaccard_errors_and_iterators():
    G = nx.Graph([(0, 1), (1, 2), (2, 2)])
    G.add_node(5)
    BG = from_networkx(G)
    with pytest.raises(nx.NodeNotFound, match="Node 9 not in G"):
        S.jaccard_coefficient(BG, [(0, 1), (9, 1)])
    with pytest.raises(nx.NodeNotFound, match="Node 9 not in G"):
        S.jaccard_coefficient(BG, [(0, 9)])
    # NetworkX checks an iterator's pairs, then has nothing left to yield
    assert list(S.jaccard_coefficient(BG, iter([(0, 2)]))) == \
        list(nx.jaccard_coefficient(G, iter([(0, 2)]))) == []
    pairs = [(5, 5), (2, 2), (1, 2), (2, 1), (0, 5)]
    assert list(S.jaccard_coefficient(BG, pairs)) == list(nx.jaccard_coefficient(G, pairs))
    with pytest.raises(nx.NetworkXNotImplemented):
        S.jaccard_coefficient(from_networkx(nx.DiGraph([(0, 1)])))


# --- acyclicity ------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(), st.booleans())
def test_is_directed_acyclic_graph(G, forward_only):
    if forward_only:  # a DAG: keep edges that go forward in G's node order
        pos = {v: i for i, v in enumerate(G)}
        G.remove_edges_from([(u, v) for u, v in list(G.edges()) if pos[u] >= pos[v]])
    assert S.is_directed_acyclic_graph(from_networkx(G)) is nx.is_directed_acyclic_graph(G)


def test_dag_long_chain():
    G = nx.path_graph(300, create_using=nx.DiGraph)
    assert S.is_directed_acyclic_graph(from_networkx(G)) is True
    G.add_edge(299, 0)
    assert S.is_directed_acyclic_graph(from_networkx(G)) is False


# --- through the dispatcher ------------------------------------------------------------

def test_dispatch():
    G = nx.gnp_random_graph(40, 0.15, seed=5)
    assert nx.core_number(G, backend="bitgraph") == nx.core_number(G)
    assert list(nx.jaccard_coefficient(G, backend="bitgraph")) == \
        list(nx.jaccard_coefficient(G))
    H = nx.k_core(G, backend="bitgraph")
    assert list(H.nodes) == list(nx.k_core(G))
    assert np.array_equal(np.sort([len(S.complement(from_networkx(G)))]), [40])
    M = nx.MultiDiGraph([(0, 1), (0, 1)])
    assert BackendInterface.can_run("overall_reciprocity", (M,), {}) is not True


# --- average degree connectivity ---------------------------------------------------------

@SETTINGS
@given(nx_graphs(), st.sampled_from(["in", "out", "in+out"]),
       st.sampled_from(["in", "out", "in+out"]), st.booleans(), st.data())
def test_average_degree_connectivity(G, source, target, weighted, data):
    BG = from_networkx(G, {"weight": 1})
    w = "weight" if weighted else None
    kw = dict(source=source, target=target) if G.is_directed() else {}
    nodes = data.draw(st.one_of(st.none(), st.sampled_from(list(G)),
                                st.lists(st.sampled_from(list(G)), max_size=5)))
    want = nx.average_degree_connectivity(G, nodes=nodes, weight=w, **kw)
    try:
        got = S.average_degree_connectivity(BG, nodes=nodes, weight=w, **kw)
    except NotImplementedError:  # weights summing to 0 in a class: NetworkX's
        assert weighted and any(d.get("weight", 1) == 0 for *_, d in G.edges(data=True))
        return
    assert list(got) == list(want)
    for k in want:
        assert type(got[k]) is type(want[k]), (k, got[k], want[k])
        assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-12)
    if not weighted:
        assert got == want


def test_average_degree_connectivity_degree_zero_weighted():
    # in-degree 0 with weights: NetworkX's int 0, not a fallback
    G = nx.DiGraph([(0, 1, {"weight": 2.5}), (1, 2, {"weight": 0.5}), (3, 1)])
    BG = from_networkx(G, {"weight": 1})
    for source in ("in", "out", "in+out"):
        got = S.average_degree_connectivity(BG, source=source, weight="weight")
        want = nx.average_degree_connectivity(G, source=source, weight="weight")
        assert list(got.items()) == list(want.items())
        assert [type(v) for v in got.values()] == [type(v) for v in want.values()]


def test_average_degree_connectivity_errors():
    BG = from_networkx(nx.path_graph(3))
    with pytest.raises(nx.NetworkXError, match="only supported for directed"):
        S.average_degree_connectivity(BG, source="in")
    D = from_networkx(nx.DiGraph([(0, 1)]))
    with pytest.raises(nx.NetworkXError, match="source must be"):
        S.average_degree_connectivity(D, source="up")
    with pytest.raises(nx.NetworkXError, match="target must be"):
        S.average_degree_connectivity(D, target="up")
    with pytest.raises(nx.NetworkXError, match="not in the graph"):
        S.average_degree_connectivity(BG, nodes=9)
    G = nx.Graph([(0, 1, {"weight": 0}), (1, 2, {"weight": 0})])
    G.add_node(3)
    assert S.average_degree_connectivity(from_networkx(G)) == \
        nx.average_degree_connectivity(G) == {1: 2.0, 2: 1.0, 0: 0}
    with pytest.raises(NotImplementedError):  # NetworkX's int or float 0: it runs it
        S.average_degree_connectivity(from_networkx(G, {"weight": 1}), weight="weight")


# --- corona, onion layers, truss ----------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False), st.sampled_from([0, 1, 2, 3]), st.booleans())
def test_k_corona(G, k, given_core):
    G = without_loops(G)
    kw = {"core_number": nx.core_number(G)} if given_core else {}
    H = S.k_corona(from_networkx(G), k, **kw)
    want = nx.k_corona(G, k, **kw)
    assert list(H.nodes) == list(want)
    assert sorted(map(repr, H.edges())) == sorted(map(repr, want.edges()))


@SETTINGS
@given(nx_graphs(directed=False, weighted=False))
def test_onion_layers(G):
    if nx.number_of_selfloops(G):
        with pytest.raises(nx.NetworkXNotImplemented, match="contains self loops"):
            S.onion_layers(from_networkx(G))
        G = without_loops(G)
    got = S.onion_layers(from_networkx(G))
    want = nx.onion_layers(G)
    assert list(got.items()) == list(want.items())  # NetworkX's key order too


def test_onion_layers_order_in_a_layer():
    # a layer's nodes come by their degree when removed, then by G's order
    G = nx.gnp_random_graph(300, 0.03, seed=4)
    assert list(S.onion_layers(from_networkx(G)).items()) == list(nx.onion_layers(G).items())


@SETTINGS
@given(nx_graphs(directed=False, weighted=False, max_n=30), st.integers(1, 6))
def test_k_truss(G, k):
    if nx.number_of_selfloops(G):
        with pytest.raises(nx.NetworkXNotImplemented, match="self loops"):
            S.k_truss(from_networkx(G), k)
        G = without_loops(G)
    H = S.k_truss(from_networkx(G), k)
    want = nx.k_truss(G, k)
    assert list(H.nodes) == list(want)
    assert sorted(map(repr, map(sorted_pair, H.edges()))) == \
        sorted(map(repr, map(sorted_pair, want.edges())))


def sorted_pair(e):
    return tuple(sorted(e, key=repr))


def test_k_truss_dense():
    G = nx.complete_graph(6)
    G.add_edges_from([(5, 6), (6, 7), (7, 5), (7, 8)])
    for k in range(1, 8):
        H = S.k_truss(from_networkx(G), k)
        want = nx.k_truss(G, k)
        assert list(H.nodes) == list(want)
        assert set(map(frozenset, H.edges())) == set(map(frozenset, want.edges()))
    with pytest.raises(nx.NetworkXNotImplemented):
        S.k_truss(from_networkx(nx.DiGraph([(0, 1)])), 3)


def test_core_subgraphs_keep_graph_attributes():
    G = nx.complete_graph(4)
    G.add_edge(3, 4)
    G.graph["name"] = "kite"
    assert BackendInterface.can_run("k_core", (G,), {}) is True
    assert BackendInterface.can_run("reverse", (G.to_directed(),), {}) is not True
    BG = from_networkx(G)
    for ours, theirs in [(S.k_core, nx.k_core), (S.k_crust, nx.k_crust)]:
        H = ours(BG)
        assert H.graph == theirs(G).graph == {"name": "kite"}
    assert S.k_truss(BG, 4).graph == nx.k_truss(G, 4).graph
    assert S.complement(BG).graph == nx.complement(G).graph == {}


# --- more link prediction ------------------------------------------------------------------

def same_predictions(got, want):
    got, want = list(got), list(want)
    assert [(u, v) for u, v, _ in got] == [(u, v) for u, v, _ in want]
    for (_, _, p), (_, _, q) in zip(got, want):
        assert type(p) is type(q), (p, q)
        assert p == pytest.approx(q, rel=1e-12, abs=1e-15)


@SETTINGS
@given(nx_graphs(directed=False, weighted=False), st.data())
def test_link_predictors(G, data):
    BG = from_networkx(G)
    nodes = list(G)
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(nodes), st.sampled_from(nodes)),
                               max_size=12))
    for ours, theirs in [(S.resource_allocation_index, nx.resource_allocation_index),
                         (S.adamic_adar_index, nx.adamic_adar_index),
                         (S.preferential_attachment, nx.preferential_attachment)]:
        for eb in (None, pairs):
            want, got = [], []
            werr = gerr = None
            try:
                for t in theirs(G, eb):
                    want.append(t)
            except ZeroDivisionError as e:
                werr = type(e)
            try:
                for t in ours(BG, eb):
                    got.append(t)
            except ZeroDivisionError as e:
                gerr = type(e)
            assert gerr is werr
            same_predictions(got, want)  # the same pairs before an error too


def test_link_predictor_errors():
    G = nx.Graph([(0, 1), (1, 2)])
    BG = from_networkx(G)
    for f in (S.resource_allocation_index, S.adamic_adar_index, S.preferential_attachment):
        with pytest.raises(nx.NodeNotFound):
            f(BG, [(0, 7)])
        with pytest.raises(nx.NetworkXNotImplemented):
            f(from_networkx(nx.DiGraph([(0, 1)])))
    # (0, 0) has the degree-1 common neighbour 1: NetworkX's
    # ZeroDivisionError when the generator reaches that pair
    H = nx.Graph([(0, 1)])
    it = S.adamic_adar_index(from_networkx(H), [(0, 1), (0, 0)])
    assert next(it) == (0, 1, 0)
    with pytest.raises(ZeroDivisionError):
        next(it)


@SETTINGS
@given(nx_graphs(), st.sampled_from(["in", "out", "in+out"]),
       st.sampled_from(["in", "out", "in+out"]), st.booleans(), st.data())
def test_average_neighbor_degree(G, source, target, weighted, data):
    BG = from_networkx(G, {"weight": 1})
    w = "weight" if weighted else None
    kw = dict(source=source, target=target) if G.is_directed() else {}
    nodes = data.draw(st.one_of(st.none(), st.lists(st.sampled_from(list(G)), max_size=5)))
    want = nx.average_neighbor_degree(G, nodes=nodes, weight=w, **kw)
    got = S.average_neighbor_degree(BG, nodes=nodes, weight=w, **kw)
    assert list(got) == list(want)
    for k in want:
        assert type(got[k]) is type(want[k]), (k, got[k], want[k])
        assert got[k] == pytest.approx(want[k], rel=1e-12, abs=1e-12)
    if not weighted:
        assert got == want


def test_average_neighbor_degree_errors():
    BG = from_networkx(nx.path_graph(3))
    with pytest.raises(nx.NetworkXError, match="only supported for directed"):
        S.average_neighbor_degree(BG, source="in")
    D = from_networkx(nx.DiGraph([(0, 1)]))
    with pytest.raises(nx.NetworkXError, match="source argument up"):
        S.average_neighbor_degree(D, source="up")
    with pytest.raises(nx.NetworkXError, match="target argument up"):
        S.average_neighbor_degree(D, target="up")
    with pytest.raises(NotImplementedError):  # NetworkX: TypeError on one node
        S.average_neighbor_degree(BG, nodes=1)
    assert BackendInterface.can_run("average_neighbor_degree", (nx.path_graph(3),),
                                    {"nodes": 1}) is not True


# --- trees and forests ---------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False), st.booleans())
def test_trees_and_forests(G, make_forest):
    if make_forest:  # a random spanning forest of G (often a tree)
        F = nx.DiGraph() if G.is_directed() else nx.Graph()
        F.add_nodes_from(G)
        U = nx.Graph(G)
        U.remove_edges_from(list(nx.selfloop_edges(U)))
        for T in (nx.minimum_spanning_tree(U.subgraph(c)) for c in nx.connected_components(U)):
            F.add_edges_from(T.edges())
        G = F
    BG = from_networkx(G)
    assert S.is_tree(BG) is nx.is_tree(G)
    assert S.is_forest(BG) is nx.is_forest(G)
    if G.is_directed():
        assert S.is_arborescence(BG) is nx.is_arborescence(G)
        assert S.is_branching(BG) is nx.is_branching(G)
    else:
        with pytest.raises(nx.NetworkXNotImplemented):
            S.is_branching(BG)


def test_trees_null_graph():
    for f in (S.is_tree, S.is_forest):
        with pytest.raises(nx.NetworkXPointlessConcept):
            f(from_networkx(nx.Graph()))
    assert S.is_forest(from_networkx(nx.Graph([(0, 0)]))) is nx.is_forest(nx.Graph([(0, 0)]))
    assert S.is_arborescence(from_networkx(nx.DiGraph([(0, 1), (2, 1)]))) is False


# --- degree facts ------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False), st.sampled_from(["random", "cycle", "complete"]))
def test_degree_facts(G, kind):
    if kind != "random":  # regular and Eulerian cases, relabelled like G
        n = len(G)
        make = nx.cycle_graph if kind == "cycle" else nx.complete_graph
        H = make(n, create_using=type(G))
        G = nx.relabel_nodes(H, dict(zip(range(n), G)))
    BG = from_networkx(G)
    assert S.is_regular(BG) is nx.is_regular(G)
    assert S.number_of_selfloops(BG) == nx.number_of_selfloops(G)
    assert S.is_empty(BG) is nx.is_empty(G)
    assert S.is_eulerian(BG) is nx.is_eulerian(G)
    if G.is_directed():
        with pytest.raises(nx.NetworkXNotImplemented):
            S.is_k_regular(BG, 2)
    else:
        for k in range(4):
            assert S.is_k_regular(BG, k) is nx.is_k_regular(G, k)


def test_degree_facts_null_graph():
    for G in (nx.Graph(), nx.DiGraph()):
        BG = from_networkx(G)
        with pytest.raises(nx.NetworkXPointlessConcept):
            S.is_regular(BG)
        with pytest.raises(nx.NetworkXPointlessConcept):
            S.is_eulerian(BG)
        assert S.is_empty(BG) is True
    # balanced but in two pieces: not Eulerian
    D = nx.DiGraph([(0, 1), (1, 0), (2, 3), (3, 2)])
    assert S.is_eulerian(from_networkx(D)) is nx.is_eulerian(D) is False


# --- walks -------------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False, max_n=12), st.integers(0, 6))
def test_number_of_walks(G, k):
    got = S.number_of_walks(from_networkx(G), k)
    want = nx.number_of_walks(G, k)
    assert list(got) == list(want)
    for u in want:
        assert list(got[u].items()) == list(want[u].items())
        assert all(type(x) is int for x in got[u].values())


def test_number_of_walks_errors():
    with pytest.raises(ValueError, match="cannot be negative"):
        S.number_of_walks(from_networkx(nx.path_graph(2)), -1)
    assert S.number_of_walks(from_networkx(nx.Graph()), 3) == {}


# --- s-metric and rich club --------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False))
def test_s_metric_and_rich_club(G):
    BG = from_networkx(G)
    got, want = S.s_metric(BG), nx.s_metric(G)
    assert got == want and type(got) is float
    if G.is_directed():
        with pytest.raises(nx.NetworkXNotImplemented):
            S.rich_club_coefficient(BG, normalized=False)
        return
    if nx.number_of_selfloops(G):
        with pytest.raises(Exception, match="self loops"):
            S.rich_club_coefficient(BG, normalized=False)
        G = without_loops(G)
        BG = from_networkx(G)
    got = S.rich_club_coefficient(BG, normalized=False)
    assert list(got.items()) == list(nx.rich_club_coefficient(G, normalized=False).items())


def test_rich_club_normalized_falls_back():
    G = nx.path_graph(5)
    assert BackendInterface.can_run("rich_club_coefficient", (G,), {}) is not True
    assert BackendInterface.can_run("rich_club_coefficient", (G,), {"normalized": False}) is True
    with pytest.raises(NotImplementedError):
        S.rich_club_coefficient(from_networkx(G))


# --- bipartite ---------------------------------------------------------------------------------

@SETTINGS
@given(nx_graphs(weighted=False), st.booleans())
def test_is_bipartite(G, make_bipartite):
    if make_bipartite:  # keep the edges between the two halves of G's order
        half = set(list(G)[::2])
        G.remove_edges_from([(u, v) for u, v in list(G.edges()) if (u in half) == (v in half)])
    assert S.is_bipartite(from_networkx(G)) is nx.is_bipartite(G)


def test_is_bipartite_edges():
    assert S.is_bipartite(from_networkx(nx.Graph())) is nx.is_bipartite(nx.Graph())
    assert S.is_bipartite(from_networkx(nx.Graph([(0, 0)]))) is False
    D = nx.DiGraph([(0, 1), (2, 1), (2, 0)])  # a triangle once directions go
    assert S.is_bipartite(from_networkx(D)) is nx.is_bipartite(D) is False
