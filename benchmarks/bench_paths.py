"""SSSP and PageRank: bitgraph vs scipy, python-graphblas and networkx.

    python benchmarks/bench_paths.py kron:16 urand:16 grid:256x256 --repeat 3

For each graph (structure-only, symmetric; a generator spec or a file):

- SSSP with integer weights 1..255 (int32, both directions of an edge
  alike, seeded; as gapbs), from ``--sources`` seeded random vertices with
  edges: bitgraph ``sssp`` (auto = delta-stepping; ``--bellman-ford`` adds
  the public-API method), ``scipy.sparse.csgraph.dijkstra`` (one source)
  and graphblas-algorithms' ``single_source_bellman_ford_path_length``
  (SuiteSparse:GraphBLAS min-plus, frontier Bellman-Ford);
- PageRank (max_iter 100) on the structure-only graph with networkx's
  tol 1e-4 and 1e-6 (stop when the L1 change < n * tol) and with gapbs's
  rule (L1 change < 1e-4, the anchor's "tol 1e-4"): bitgraph ``pagerank``
  (fused kernel, and the public-API loop), graphblas-algorithms
  ``pagerank`` and, on graphs of at most ``--nx-max-edges`` stored edges,
  ``networkx.pagerank``.

Times are medians of ``--repeat`` runs after one warm-up (ms per source
for SSSP, ms per run and per iteration for PageRank); every result is
checked against the others in the same run (SSSP exactly, PageRank to
max(1e-6, n * tol) in L1). Prints a Markdown table:
ratio = other time / bitgraph time (> 1: bitgraph faster).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from _timing import timeit

warnings.filterwarnings("ignore", category=DeprecationWarning)


def load(spec):
    import bitgraph as bg

    if Path(spec).exists():
        return bg.io.read(spec)
    return bg.io.generators.from_spec(spec)


def weights_1_255(rows, cols, n, seed=0):
    """int32 weights in 1..255 from a hash of the undirected edge {r, c}
    and the seed: both directions alike, the same on every machine."""
    lo = np.minimum(rows, cols).astype(np.uint64)
    hi = np.maximum(rows, cols).astype(np.uint64)
    z = lo * np.uint64(n) + hi + np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):  # splitmix64
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z % np.uint64(255) + np.uint64(1)).astype(np.int32)


def bench_sssp(name, A, args, rows_out):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csgraph

    import bitgraph as bg
    from bitgraph.algorithms.sssp import default_delta, sssp

    r, c, _ = A.to_coo()
    n = A.nrows
    w = weights_1_255(r, c, n, args.seed)
    Aw = bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n)
    S = sp.csr_array((w.astype(np.float64), (r, c)), shape=(n, n))
    rng = np.random.default_rng(args.seed)
    cand = np.flatnonzero(np.diff(Aw.indptr))
    sources = rng.choice(cand, size=min(args.sources, cand.size), replace=False)
    G = None
    if not args.no_graphblas:
        import graphblas as gb
        import graphblas_algorithms as ga

        G = ga.Graph(gb.Matrix.from_coo(r, c, w, nrows=n, ncols=n))
    times = {"bitgraph": [], "bitgraph BF": [], "scipy dijkstra": [], "graphblas BF": []}
    delta = default_delta(Aw)
    for s in sources:
        s = int(s)
        t, ours = timeit(lambda: sssp(Aw, s), args.repeat)
        times["bitgraph"].append(t)
        dense = ours.to_dense(-1).astype(np.float64)
        dense[dense < 0] = np.inf
        t, ref = timeit(lambda: csgraph.dijkstra(S, directed=True, indices=s), args.repeat)
        times["scipy dijkstra"].append(t)
        assert np.array_equal(dense, ref), f"{name}: sssp from {s} differs from scipy"
        if args.bellman_ford:
            t, bf = timeit(lambda: sssp(Aw, s, method="bellman-ford"), 1)
            times["bitgraph BF"].append(t)
            assert bf.isequal(ours), f"{name}: bellman-ford differs from delta"
        if G is not None:
            t, g = timeit(lambda: ga.single_source_bellman_ford_path_length(G, s), 1)
            times["graphblas BF"].append(t)
            gi, gv = g.to_coo()
            oi, ov = ours.to_coo()
            assert np.array_equal(gi, oi) and np.array_equal(gv, ov), \
                f"{name}: sssp from {s} differs from graphblas"
    base = statistics.mean(times["bitgraph"])
    for who, ts in times.items():
        if not ts:
            continue
        t = statistics.mean(ts)
        rows_out.append((name, f"SSSP ({len(sources)} sources, delta {delta:g})", who,
                         f"{t * 1e3:.1f}", "", f"{t / base:.2f}"))


def bench_pagerank(name, A, args, rows_out):
    import importlib

    pr_module = importlib.import_module("bitgraph.algorithms.pagerank")
    pagerank = pr_module.pagerank
    n = A.nrows
    r, c, _ = A.to_coo()
    G = None
    if not args.no_graphblas:
        import graphblas as gb
        import graphblas_algorithms as ga

        G = ga.Graph(gb.Matrix.from_coo(r, c, 1.0, nrows=n, ncols=n))
    # networkx's rule stops when the L1 change < n * tol; gapbs's (the
    # anchor: "tol 1e-4") when it is < 1e-4, i.e. networkx tol = 1e-4 / n
    for tol, what in ((1e-4, "tol 1e-4"), (1e-6, "tol 1e-6"), (1e-4 / n, "L1 < 1e-4 (gapbs rule)")):
        t, res = timeit(lambda: pagerank(A, tol=tol, max_iter=100), args.repeat)
        x = res.ranks.to_dense()
        it = res.iterations
        label = f"PageRank {what} ({it} it.{'' if res.converged else ', not converged'})"
        rows_out.append((name, label, "bitgraph", f"{t * 1e3:.1f}", f"{t / it * 1e3:.2f}", "1.00"))
        limit = 1e-6 if n * tol <= 1e-6 else n * tol
        pr_module.FUSED = False
        try:
            tp, xp = timeit(lambda: pagerank(A, tol=tol, max_iter=100), args.repeat)
        finally:
            pr_module.FUSED = True
        assert xp.iterations == it and np.abs(xp.ranks.to_dense() - x).sum() < 1e-9
        rows_out.append((name, label, "bitgraph, public-API loop", f"{tp * 1e3:.1f}",
                         f"{tp / it * 1e3:.2f}", f"{tp / t:.2f}"))
        if G is not None:
            tg, g = timeit(lambda: ga.pagerank(G, tol=tol, max_iter=100), args.repeat)
            xg = g.to_dense(0.0) if hasattr(g, "to_dense") else np.asarray(g.to_coo()[1])
            assert np.abs(xg - x).sum() < limit, f"{name}: pagerank differs from graphblas"
            rows_out.append((name, label, "graphblas-algorithms", f"{tg * 1e3:.1f}",
                             f"{tg / it * 1e3:.2f}", f"{tg / t:.2f}"))
        if not args.no_networkx and A.nvals <= args.nx_max_edges:
            import networkx as nx

            Gx = nx.DiGraph()
            Gx.add_nodes_from(range(n))
            Gx.add_edges_from(zip(r.tolist(), c.tolist()))
            tn, d = timeit(lambda: nx.pagerank(Gx, tol=tol, max_iter=100), 1)
            xn = np.array([d[i] for i in range(n)])
            assert np.abs(xn - x).sum() < limit, f"{name}: pagerank differs from networkx"
            rows_out.append((name, label, "networkx (scipy)", f"{tn * 1e3:.1f}",
                             f"{tn / it * 1e3:.2f}", f"{tn / t:.2f}"))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("graphs", nargs="+", help="generator specs (kron:16) or files")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--sources", type=int, default=4, help="SSSP sources per graph")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bellman-ford", action="store_true",
                   help="also time bitgraph's public-API Bellman-Ford")
    p.add_argument("--no-graphblas", action="store_true")
    p.add_argument("--no-networkx", action="store_true")
    p.add_argument("--nx-max-edges", type=int, default=2_000_000)
    p.add_argument("--only", choices=("sssp", "pagerank"), default=None)
    args = p.parse_args(argv)

    import bitgraph as bg  # noqa: F401
    from bitgraph.kernels.cpu import num_threads

    rows = []
    print(f"# bench_paths on {platform.processor() or platform.machine()}, "
          f"{num_threads()} threads, python {sys.version.split()[0]}, pid {os.getpid()}")
    for spec in args.graphs:
        t0 = time.perf_counter()
        A = load(spec)
        print(f"{spec}: n={A.nrows:,} nvals={A.nvals:,} (load {time.perf_counter() - t0:.2f} s)",
              flush=True)
        if args.only in (None, "sssp"):
            bench_sssp(spec, A, args, rows)
        if args.only in (None, "pagerank"):
            bench_pagerank(spec, A, args, rows)
    print()
    print("| graph | task | who | ms | ms / iteration | ratio (time / bitgraph) |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
