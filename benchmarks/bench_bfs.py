"""BFS on the CPU: every bitgraph method vs SuiteSparse:GraphBLAS and scipy.

    python benchmarks/bench_bfs.py kron:20 urand:20 grid:1024x1024 --sources 8

For each graph: the formats a method needs are built first and timed apart
(A's transpose for the bottom-up steps, the BVSS for "blest", in the order
``--reorder``); then each
method runs a BFS from the same random sources (non-zero degree, seeded),
levels checked equal to scipy's, and the table gives the mean ms per BFS,
GTEPS (stored entries / time, Graph500's convention for an undirected
graph: every edge counted twice) and the ratio against the best baseline
measured in the same run:

- SuiteSparse: python-graphblas, ``q(~v.S, replace) << any_pair(q @ A)``,
  ``v(q.S) << level`` per level (the anchors in BASELINES.md);
- scipy: ``scipy.sparse.csgraph.breadth_first_order`` (serial C).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def graphblas_bfs(G, s):
    import graphblas as gb

    n = G.nrows
    v = gb.Vector(gb.dtypes.INT32, n)
    q = gb.Vector(bool, n)
    q[s] << True
    level = 0
    while q.nvals:
        v(q.S) << level
        q(~v.S, replace=True) << gb.semiring.any_pair[bool](q @ G)
        level += 1
    return v


def main(argv=None):
    import scipy.sparse.csgraph as csg

    import bitgraph as bg
    from bitgraph.io.generators import from_spec

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graphs", nargs="+")
    p.add_argument("--sources", type=int, default=8)
    p.add_argument("--methods", default="direction,push,pull,blest")
    p.add_argument("--no-graphblas", action="store_true")
    p.add_argument("--reorder", default="none",
                   help="vertex order of the BVSS for method blest (none, auto, rcm, ...)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    methods = args.methods.split(",")
    rows = []
    for spec in args.graphs:
        t0 = time.perf_counter()
        A = from_spec(spec)
        gen = time.perf_counter() - t0
        n, m = A.nrows, A.nvals
        rng = np.random.default_rng(args.seed)
        deg = np.diff(A.indptr)
        sources = rng.choice(np.flatnonzero(deg), args.sources, replace=False)
        S = A.to_scipy().tocsr()
        t0 = time.perf_counter()
        A._transposed_csr()
        t_transpose = time.perf_counter() - t0
        t0 = time.perf_counter()
        A.T.bvss(sigma=8, reorder=args.reorder) if "blest" in methods else None
        t_bvss = time.perf_counter() - t0
        refs, t_scipy = [], []
        for s in sources:
            t0 = time.perf_counter()
            order = csg.breadth_first_order(S, int(s), return_predecessors=False)
            t_scipy.append(time.perf_counter() - t0)
            refs.append(order.size)
        base = {"scipy": statistics.mean(t_scipy)}
        if not args.no_graphblas:
            G = A.to_graphblas()
            graphblas_bfs(G, int(sources[0]))
            tg = []
            for s in sources:
                t0 = time.perf_counter()
                v = graphblas_bfs(G, int(s))
                tg.append(time.perf_counter() - t0)
            base["SuiteSparse"] = statistics.mean(tg)
        best_name = min(base, key=base.get)
        print(f"## {spec}: n={n:,} m={m:,} (generated in {gen:.1f} s; transpose "
              f"{t_transpose * 1e3:.0f} ms, BVSS {t_bvss * 1e3:.0f} ms)", flush=True)
        for meth in methods:
            kw = {"reorder": args.reorder} if meth == "blest" else {}
            bg.algorithms.bfs(A, int(sources[0]), method=meth, **kw)  # warm
            times, nlev = [], []
            for s, ref in zip(sources, refs):
                t0 = time.perf_counter()
                lv = bg.algorithms.bfs(A, int(s), method=meth, **kw)
                times.append(time.perf_counter() - t0)
                assert lv.nvals == ref, (spec, meth, int(s), lv.nvals, ref)
                nlev.append(int(lv.to_dense(-1).max()) + 1)
            t = statistics.mean(times)
            rows.append((spec, meth, statistics.mean(nlev), t, m / t / 1e9,
                         base, best_name))
            print(f"| {spec} | {meth} | {statistics.mean(nlev):.0f} | {t * 1e3:.1f} | "
                  f"{m / t / 1e9:.2f} | " + " | ".join(f"{v * 1e3:.1f}" for v in base.values())
                  + f" | {base[best_name] / t:.2f} ({best_name}) |", flush=True)
    print()
    print("| graph | method | levels | bitgraph ms | GTEPS | " + " | ".join(
        f"{k} ms" for k in rows[0][5]) + " | speed-up vs best |")
    print("|---|---|---:|---:|---:|" + "---:|" * len(rows[0][5]) + "---|")
    for spec, meth, lev, t, gteps, base, best_name in rows:
        print(f"| {spec} | {meth} | {lev:.0f} | {t * 1e3:.1f} | {gteps:.2f} | " + " | ".join(
            f"{v * 1e3:.1f}" for v in base.values()) + f" | {base[best_name] / t:.2f} ({best_name}) |")


if __name__ == "__main__":
    main()
