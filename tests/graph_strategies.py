"""Hypothesis strategies for graphs (the algorithms' tests).

``graphs()`` draws a GraphSpec: n vertices (1..max_n), directed or not,
with the awkward features mixed in by a seeded rng: isolated vertices,
several components, self-loops, duplicate edges (collapsed by ``from_coo``),
a hub, a long path (high diameter), and optionally positive weights.
``spec.matrix(bg)`` builds the bitgraph Matrix, ``spec.scipy()`` the
scipy CSR of the same graph (duplicates combined with min), and the spec
prints as Python that rebuilds it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st

__all__ = ["GraphSpec", "graphs"]


@dataclass(eq=False)
class GraphSpec:
    n: int
    rows: np.ndarray
    cols: np.ndarray
    weights: np.ndarray | None  # None: structure-only
    directed: bool

    def matrix(self, bg):
        """The bitgraph Matrix (duplicates combined with min)."""
        if self.weights is None:
            return bg.Matrix.from_coo(self.rows, self.cols, nrows=self.n, ncols=self.n)
        return bg.Matrix.from_coo(self.rows, self.cols, self.weights, nrows=self.n,
                                  ncols=self.n, dup_op="min")

    def scipy(self):
        """scipy CSR of the same graph (float64; duplicates combined with min;
        structure-only graphs get weight 1)."""
        w = np.ones(self.rows.size) if self.weights is None else self.weights.astype(np.float64)
        key = self.rows.astype(np.int64) * self.n + self.cols
        order = np.lexsort((w, key))
        key, w = key[order], w[order]
        first = np.ones(key.size, bool)
        first[1:] = key[1:] != key[:-1]
        r, c = np.divmod(key[first], self.n)
        return sp.csr_array((w[first], (r, c)), shape=(self.n, self.n))

    def networkx(self):
        """networkx (Di)Graph with the same edges (weights as 'weight')."""
        import networkx as nx

        G = nx.DiGraph() if self.directed else nx.Graph()
        G.add_nodes_from(range(self.n))
        S = self.scipy().tocoo()
        G.add_weighted_edges_from(zip(S.row.tolist(), S.col.tolist(), S.data.tolist()))
        return G

    def __repr__(self):
        w = None if self.weights is None else self.weights.tolist()
        return (f"GraphSpec(n={self.n}, rows=np.array({self.rows.tolist()}), "
                f"cols=np.array({self.cols.tolist()}), weights="
                f"{'None' if w is None else f'np.array({w})'}, directed={self.directed})")


@st.composite
def graphs(draw, max_n=60, directed=None, weighted=None, self_loops=True,
           weight_dtype=np.float64):
    """A GraphSpec; ``directed``/``weighted`` fix those aspects when given.

    Undirected graphs store both directions of every edge.
    """
    n = draw(st.integers(1, max_n))
    d = draw(st.booleans()) if directed is None else directed
    w = draw(st.booleans()) if weighted is None else weighted
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    avg = rng.choice([0.0, 0.5, 1.0, 2.0, 4.0, 8.0])
    m = int(rng.poisson(avg * n))
    # vertices used: sometimes only a prefix (isolated tail), sometimes blocks
    ncomp = int(rng.integers(1, 4))
    comp = rng.integers(0, ncomp, n)
    rows = rng.integers(0, n, m)
    cols = rows.copy()
    for i in range(m):  # stay within a component: several components
        same = np.flatnonzero(comp == comp[rows[i]])
        cols[i] = same[rng.integers(0, same.size)]
    if n > 3 and rng.random() < 0.3:  # a long path: high diameter
        path = rng.permutation(n)[: int(rng.integers(2, n))]
        rows = np.concatenate([rows, path[:-1]])
        cols = np.concatenate([cols, path[1:]])
    if n > 3 and rng.random() < 0.2:  # a hub
        hub = int(rng.integers(0, n))
        others = rng.choice(n, size=int(rng.integers(1, n)), replace=False)
        rows = np.concatenate([rows, np.full(others.size, hub)])
        cols = np.concatenate([cols, others])
    if not self_loops or rng.random() < 0.7:
        keep = rows != cols
        rows, cols = rows[keep], cols[keep]
    if rows.size and rng.random() < 0.3:  # duplicates
        extra = rng.integers(0, rows.size, 1 + rows.size // 4)
        rows = np.concatenate([rows, rows[extra]])
        cols = np.concatenate([cols, cols[extra]])
    if not d:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    weights = None
    if w:
        wt = np.dtype(weight_dtype)
        if wt.kind == "f":
            weights = rng.choice([0.5, 1.0, 2.0, 3.25, 10.0], rows.size).astype(wt)
        else:
            weights = rng.integers(1, 10, rows.size).astype(wt)
        if not d:  # symmetric weights: the two directions of an edge agree
            half = rows.size // 2
            weights[half:] = weights[:half]
    return GraphSpec(n, rows.astype(np.int64), cols.astype(np.int64), weights, d)
