"""CPU core benchmark: bitgraph vs python-graphblas (SuiteSparse) in one run.

    python benchmarks/bench_cpu_core.py --scale 19        # ~16M stored edges

Times, on a Graph500-style kron graph (symmetric, no self-loops):
- mxv plus_times: A (float64 values) @ dense float64 vector (as in PageRank);
- mxv any_pair with a complemented structural mask (a BFS step: 6% frontier,
  30% visited), structure-only A;
- mxm plus_pair masked by L (triangle count: C<L> = L plus.pair L').
Each is the median of --repeat runs after one warm-up; results are checked
equal, and ratios (SuiteSparse time / bitgraph time: > 1 means we are faster)
are printed as a Markdown table to paste into benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from _timing import timeit


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--scale", type=int, default=19)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--skip-mxm", action="store_true")
    args = p.parse_args()

    import graphblas as gb

    import bitgraph as bg
    from bitgraph.__main__ import kron_edges

    n, src, dst = kron_edges(args.scale)
    t0 = time.perf_counter()
    A = bg.Matrix.from_coo(src, dst, nrows=n, ncols=n)
    build = time.perf_counter() - t0
    r, c, _ = A.to_coo()
    rng = np.random.default_rng(1)
    w = rng.random(A.nvals)
    Aw = bg.Matrix.from_coo(r, c, w, nrows=n, ncols=n)
    G = gb.Matrix.from_coo(r, c, True, nrows=n, ncols=n)
    Gw = gb.Matrix.from_coo(r, c, w, nrows=n, ncols=n)
    print(f"kron:{args.scale} n={n:,} nvals={A.nvals:,} (from_coo {build:.2f} s)")

    x = rng.random(n)
    u, gu = bg.Vector.from_dense(x), gb.Vector.from_dense(x)
    front = rng.random(n) < 0.06
    vis = front | (rng.random(n) < 0.24)
    f_idx, v_idx = np.flatnonzero(front), np.flatnonzero(vis)
    f, gf = bg.Vector.from_indices(f_idx, n), gb.Vector.from_coo(f_idx, True, size=n)
    v, gv = bg.Vector.from_indices(v_idx, n), gb.Vector.from_coo(v_idx, True, size=n)

    rows = []

    def compare(name, ours, theirs, check):
        t_ours, r_ours = timeit(ours, args.repeat)
        t_gb, r_gb = timeit(theirs, args.repeat)
        check(r_ours, r_gb)
        rows.append((name, t_ours, t_gb))
        print(f"{name}: bitgraph {t_ours * 1e3:.1f} ms, SuiteSparse {t_gb * 1e3:.1f} ms, ratio {t_gb / t_ours:.2f}")

    def same_vec(a, b, rtol=0):
        ia, va = a.to_coo()
        ib, vb = b.to_coo()
        assert np.array_equal(ia, ib)
        assert np.allclose(va, vb, rtol=rtol or 1e-9)

    compare("mxv plus_times (f64)",
            lambda: bg.mxv(Aw, u, bg.PLUS_TIMES),
            lambda: Gw.mxv(gu, gb.semiring.plus_times).new(),
            same_vec)
    def gb_bfs_step():
        ref = gb.Vector(bool, n)
        ref(~gv.S) << G.T.mxv(gf, gb.semiring.any_pair)
        return ref

    def same_structure(a, b):
        assert np.array_equal(a.indices(), b.to_coo()[0])

    compare("mxv any_pair, mask ~visited.S",
            lambda: bg.mxv(A.T, f, bg.ANY_PAIR, mask=~v.S),
            gb_bfs_step,
            same_structure)

    if not args.skip_mxm:
        L = bg.select(A, "tril", -1)
        GL = gb.select.tril(G, -1).new()

        def ours_tc():
            return int(bg.reduce(bg.mxm(L, L.T, bg.PLUS_PAIR, mask=L.S)))

        def gb_tc():
            C = gb.Matrix(gb.dtypes.INT64, n, n)
            C(GL.S) << GL.mxm(GL.T, gb.semiring.plus_pair)
            return C.reduce_scalar().new().value

        def same(a, b):
            assert a == b, (a, b)

        compare("mxm plus_pair, mask L (triangles)", ours_tc, gb_tc, same)
        print("triangles:", ours_tc())

    print()
    print(f"`python benchmarks/bench_cpu_core.py --scale {args.scale} --repeat {args.repeat}`, "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}, "
          f"kron:{args.scale} n={n:,} nvals={A.nvals:,}")
    print()
    print("| operation | bitgraph CPU ms | SuiteSparse ms | SuiteSparse / bitgraph |")
    print("|---|---|---|---|")
    for name, a, b in rows:
        print(f"| {name} | {a * 1e3:.1f} | {b * 1e3:.1f} | {b / a:.2f} |")


if __name__ == "__main__":
    main()
