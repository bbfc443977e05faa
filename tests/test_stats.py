"""Every algorithm reports what it ran when asked: ``stats=bg.Stats()``
gets the method (the one ``auto`` chose) and the registry keys of the fused
kernels it launched (Gunrock's ``collect_metrics``, LAGraph's returned
method); without ``stats`` nothing is recorded."""

from __future__ import annotations

import pytest

import bitgraph as bg
from bitgraph.kernels import registry

G = bg.io.generators.from_spec("kron:8")
W = bg.io.generators.grid2d(6, 6)
_r, _c, _ = W.to_coo()
WEIGHTED = bg.Matrix.from_coo(_r, _c, (_r * 7 + _c) % 9 + 1.0, nrows=W.nrows, ncols=W.ncols)

CALLS = {
    "bfs": (lambda s: bg.algorithms.bfs(G, 0, stats=s), "direction"),
    "bfs blest": (lambda s: bg.algorithms.bfs(G, 0, method="blest", stats=s), "blest"),
    "msbfs": (lambda s: bg.algorithms.msbfs(G, [0, 1, 2], stats=s), "cpu"),
    "closeness_centrality": (lambda s: bg.algorithms.closeness_centrality(G, [0], stats=s), "cpu"),
    "eccentricity": (lambda s: bg.algorithms.eccentricity(W, [0], stats=s), "cpu"),
    "diameter": (lambda s: bg.algorithms.diameter(W, stats=s), "bounds"),
    "diameter all": (lambda s: bg.algorithms.diameter(W, method="all", stats=s), "all"),
    "sssp": (lambda s: bg.algorithms.sssp(WEIGHTED, 0, stats=s), "delta"),
    "sssp bellman-ford": (lambda s: bg.algorithms.sssp(WEIGHTED, 0, method="bellman-ford",
                                                       stats=s), "bellman-ford"),
    "sssp unweighted": (lambda s: bg.algorithms.sssp(W, 0, stats=s), "direction"),
    "pagerank": (lambda s: bg.algorithms.pagerank(G, stats=s), "fused"),
    "pagerank graphblas": (lambda s: bg.algorithms.pagerank(G, method="graphblas", stats=s),
                           "graphblas"),
    "connected_components": (lambda s: bg.algorithms.connected_components(G, stats=s),
                             "afforest"),
    "triangle_count": (lambda s: bg.algorithms.triangle_count(G, stats=s), "ordered"),
    "triangle_count mxm": (lambda s: bg.algorithms.triangle_count(G, method="mxm", stats=s),
                           "mxm"),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_reports_the_method_and_registered_kernels(name):
    call, method = CALLS[name]
    rec = bg.Stats()
    call(rec)
    assert rec.method == method
    registered = {(e.op, e.fmt, e.device, e.variant) for e in registry.entries("cpu")}
    assert all(k in registered for k in rec.kernels), rec.kernels


def test_every_public_algorithm_takes_stats():
    import inspect

    takes = {n for n in bg.algorithms.__all__
             if callable(getattr(bg.algorithms, n))
             and "stats" in inspect.signature(getattr(bg.algorithms, n)).parameters}
    # the rules that only answer a question (which method) and the wrappers
    # of one number run nothing worth recording
    assert set(bg.algorithms.__all__) - takes <= {
        "bfs_method", "msbfs_schedule", "number_connected_components", "diameter_bounds",
        "PageRank"}
