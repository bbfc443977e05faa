"""Hypothesis strategy for NetworkX graphs (shared by NX-1's tests in tests/nx).

``nx_graphs()`` draws a NetworkX Graph/DiGraph (optionally a multigraph)
with int, string or tuple labels, nodes inserted in a shuffled order
(isolated nodes included), self-loops, edges inserted in random order (so
adjacency order differs from label order), and optionally a numeric
"weight" on some edges (int or float, >= 0; the rest lack it).
"""

from __future__ import annotations

import math

import networkx as nx
from hypothesis import strategies as st

__all__ = ["nx_graphs", "close_dicts"]

_LABELS = {
    "int": lambda i: i * 7 % 101,
    "str": lambda i: f"v{i}",
    "tuple": lambda i: (i % 3, f"n{i}"),
}


@st.composite
def nx_graphs(draw, max_n=25, directed=None, multigraph=False, weighted=None):
    n = draw(st.integers(1, max_n))
    directed = draw(st.booleans()) if directed is None else directed
    multi = draw(st.booleans()) if multigraph is None else multigraph
    weighted = draw(st.booleans()) if weighted is None else weighted
    label = _LABELS[draw(st.sampled_from(sorted(_LABELS)))]
    cls = {(False, False): nx.Graph, (True, False): nx.DiGraph,
           (False, True): nx.MultiGraph, (True, True): nx.MultiDiGraph}[(directed, multi)]
    G = cls()
    order = draw(st.permutations(range(n)))
    G.add_nodes_from(label(i) for i in order)
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=3 * n))
    int_weights = draw(st.booleans())
    for u, v in edges:
        attrs = {}
        if weighted and draw(st.integers(0, 4)):  # some edges lack the attribute
            attrs["weight"] = (draw(st.integers(0, 9)) if int_weights
                               else draw(st.floats(0, 10, allow_nan=False)))
        G.add_edge(label(u), label(v), **attrs)
    return G


def close_dicts(a, b, rel=1e-12):
    """Same keys, values equal (floats within ``rel``)."""
    assert set(a) == set(b), (a, b)
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, float) or isinstance(y, float):
            assert math.isclose(x, y, rel_tol=rel, abs_tol=1e-12), (k, x, y)
        else:
            assert x == y, (k, x, y)
    return True
