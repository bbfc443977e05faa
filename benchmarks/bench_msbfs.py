"""Multi-source BFS benchmark: bitgraph's msbfs (iBFS) vs single BFSs.

    python benchmarks/bench_msbfs.py kron:16 urand:16 grid:256x256 --sources 64 --repeat 3

For each graph (a generator spec, or a .mtx file), ``--sources`` random
vertices with out-degree > 0 (seeded) are searched by

- bitgraph ``msbfs`` (batches of ``--batch``), GroupBy off and on (GroupBy
  only changes anything with more sources than one batch: try
  ``--sources 1024``);
- scipy: one ``scipy.sparse.csgraph.breadth_first_order`` per source (C BFS;
  levels recovered outside the timing);
- python-graphblas (SuiteSparse), if installed: the same multi-source BFS
  as one masked product per level, ``F<!V, replace> = F lor.land A``,
  levels read from F (``--no-graphblas`` to skip).

Times are the best of ``--repeat`` runs after a warm-up, in ms; ratios are
baseline / bitgraph (> 1: bitgraph is faster). The levels of all three are
checked equal in the same run. Prints a Markdown table for
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np

from _timing import timeit as _timeit


def timeit(f, repeat):
    """(ms of the best of ``repeat`` runs: the least disturbed on a shared box, result)"""
    t, r = _timeit(f, repeat, stat=min)
    return t * 1e3, r


def load(spec):
    import bitgraph as bg

    if os.path.exists(spec):
        return bg.io.read(spec)
    return bg.io.generators.from_spec(spec)


def tree_levels(pred, order, n):
    """BFS levels from a BFS tree (predecessors): depth by pointer jumping,
    O(n log depth) numpy."""
    idx = np.arange(n)
    p = np.where(pred >= 0, pred, idx)
    d = (pred >= 0).astype(np.int64)  # hops from v to p[v]
    while True:
        q = p[p]
        if np.array_equal(q, p):
            break
        d = d + d[p]
        p = q
    out = np.full(n, -1, np.int32)
    out[order] = d[order]
    return out


def scipy_bfs(S, sources):
    from scipy.sparse.csgraph import breadth_first_order

    return [breadth_first_order(S, int(s), directed=True, return_predecessors=True)
            for s in sources]


def graphblas_msbfs(G, sources, n):
    import graphblas as gb

    k = len(sources)
    levels = np.full((k, n), -1, np.int32)
    F = gb.Matrix.from_coo(np.arange(k), sources, True, nrows=k, ncols=n)
    V = F.dup()
    levels[np.arange(k), sources] = 0
    level = 0
    while F.nvals:
        level += 1
        # F<!V, replace> = F lor.land A: the next frontier of every source
        F(~V.S, replace=True) << F.mxm(G, gb.semiring.lor_land)
        V(F.S) << True
        r, c, _ = F.to_coo()
        levels[r, c] = level
    return levels


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graphs", nargs="+", help="kron:N, urand:N, grid:RxC or a file")
    p.add_argument("--sources", type=int, default=64)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-graphblas", action="store_true")
    args = p.parse_args(argv)

    import scipy.sparse as sp

    from bitgraph.algorithms.msbfs import msbfs
    from bitgraph.kernels.cpu import num_threads

    try:
        if args.no_graphblas:
            raise ImportError
        import graphblas as gb  # noqa: F401
        have_gb = True
    except ImportError:
        have_gb = False

    print(f"# msbfs: {args.sources} sources, batch {args.batch}, best of "
          f"{args.repeat}; {platform.machine()}, {num_threads()} threads, "
          f"{time.strftime('%Y-%m-%d')}\n", file=sys.stderr)
    head = ("| graph | n | m | bitgraph ms | GroupBy ms | scipy ms "
            "| scipy / bitgraph |")
    if have_gb:
        head += " graphblas ms | graphblas / bitgraph |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for spec in args.graphs:
        A = load(spec)
        n = A.nrows
        r, c, _ = A.to_coo()
        # float64 data: csgraph converts anything else on every call
        S = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
        deg = np.diff(A._csr().indptr)
        rng = np.random.default_rng(args.seed)
        cand = np.flatnonzero(deg > 0)
        src = rng.choice(cand, size=args.sources, replace=cand.size < args.sources)
        A._transposed_csr()  # format build outside the timing

        t_bg, L = timeit(lambda: msbfs(A, src, batch=args.batch), args.repeat)
        t_gb_on, L2 = timeit(lambda: msbfs(A, src, batch=args.batch, groupby=True),
                             args.repeat)
        t_sp, trees = timeit(lambda: scipy_bfs(S, src), args.repeat)
        ref = np.stack([tree_levels(pred, order, n) for order, pred in trees])
        assert np.array_equal(L, ref), f"{spec}: msbfs differs from scipy"
        assert np.array_equal(L2, ref), f"{spec}: msbfs groupby differs from scipy"
        row = (f"| {spec} | {n:,} | {A.nvals:,} | {t_bg:.1f} | {t_gb_on:.1f} "
               f"| {t_sp:.1f} | {t_sp / t_bg:.1f} |")
        if have_gb:
            import graphblas as gb

            G = gb.Matrix.from_coo(r, c, True, nrows=n, ncols=n)
            t_g, L3 = timeit(lambda: graphblas_msbfs(G, src, n), args.repeat)
            assert np.array_equal(L3, ref), f"{spec}: graphblas differs from scipy"
            row += f" {t_g:.1f} | {t_g / t_bg:.1f} |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
