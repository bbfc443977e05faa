"""Connected components and triangle counting on the CPU: every bitgraph
method vs scipy and SuiteSparse:GraphBLAS (python-graphblas), same run.

    python benchmarks/bench_cc_tc.py kron:16 urand:16 grid:256x256 --repeat 3

For each graph (a generator spec or a file):

- CC: ``connected_components`` by each method (Afforest also on a copy
  of A whose symmetry is not known, so it links every edge), against
  ``scipy.sparse.csgraph.connected_components`` (serial C, on A's own CSR
  arrays). graphblas-algorithms has no connected components (only
  ``is_connected``), so SuiteSparse is not in this table. Labels are
  checked equal to scipy's partition with the smallest id per component.
- TC: ``triangle_count`` by each method, natural order and degree order,
  against SuiteSparse ``plus_pair(L @ L.T).new(mask=L.S).reduce_scalar()``
  on the natural L (the BASELINES.md anchor, always run: kron-20 takes
  ~20 s; ``--gb-relabel`` adds it on the degree-ordered L). Counts are
  checked equal. Variants whose L has more than ``--tc-max-wedges``
  wedges (kron-20 in natural order) are skipped.

Times are the median of ``--repeat`` runs after one warm-up run, in ms
(SuiteSparse's TC: ``--repeat // 2`` runs; a warm-up over 5 s is the only
run).
Derived structures cached on the matrix (the symmetry check, the lower
triangle's bounds, the degree-ordered copy, L for mxm) are built by the
warm-up; their build time is reported apart ("build"). "ratio" is the best
baseline's time / ours: > 1 means bitgraph is faster.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def timeit(f, repeat, long=None):
    """(median of ``repeat`` runs after a warm-up run, the warm-up's time,
    result); a warm-up longer than ``long`` seconds is the only run."""
    t0 = time.perf_counter()
    r = f()
    first = time.perf_counter() - t0
    if long is not None and first > long:
        return first, first, r
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = f()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts), first, r


def load(spec):
    import bitgraph as bg
    from bitgraph.io.generators import from_spec

    if ":" in spec and not spec.endswith((".mtx", ".gz", ".txt", ".el")):
        return from_spec(spec)
    return bg.io.read(spec)


def gb_triangles(indptr, indices, n):
    """SuiteSparse C<L> = L plus.pair L' on the L of a symmetric CSR."""
    import graphblas as gb

    G = gb.Matrix.from_csr(indptr.astype(np.int64), indices.astype(np.int64), True,
                           nrows=n, ncols=n)
    L = gb.select.tril(G, -1).new()

    def run():
        c = gb.semiring.plus_pair(L @ L.T).new(mask=L.S).reduce_scalar().get(0)
        return 0 if c is None else int(c)

    return run


def main(argv=None):
    import scipy.sparse as sp
    import scipy.sparse.csgraph as csg

    from bitgraph.algorithms import _common
    from bitgraph.algorithms.components import connected_components
    from bitgraph.algorithms.triangles import triangle_count, worth_relabelling
    from bitgraph.kernels.cpu import num_threads
    from bitgraph.kernels.cpu.components import degree_order

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graphs", nargs="+")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--cc-methods", default="afforest,fastsv")
    p.add_argument("--tc-methods", default="ordered,mxm")
    p.add_argument("--no-cc", action="store_true")
    p.add_argument("--no-tc", action="store_true")
    p.add_argument("--no-graphblas", action="store_true")
    p.add_argument("--gb-relabel", action="store_true",
                   help="also time SuiteSparse on the degree-ordered L")
    p.add_argument("--tc-max-wedges", type=float, default=3e9,
                   help="skip a TC variant whose lower triangle has more wedges")
    args = p.parse_args(argv)
    cc_rows, tc_rows = [], []
    print(f"threads: {num_threads()}")
    for spec in args.graphs:
        t0 = time.perf_counter()
        A = load(spec)
        gen = time.perf_counter() - t0
        n = A.nrows
        t0 = time.perf_counter()
        U = _common.undirected_csr(A)
        sym = time.perf_counter() - t0
        print(f"\n{spec}: n={n:,} nvals={A.nvals:,} (load {gen:.2f} s, "
              f"symmetrised pattern {sym * 1e3:.0f} ms)", flush=True)

        if not args.no_cc:
            S = sp.csr_array((np.ones(U.indices.size, np.int8), U.indices, U.indptr), shape=(n, n))
            t_sp, _, (ncomp, comp) = timeit(
                lambda: csg.connected_components(S, directed=False), args.repeat)
            smallest = np.full(ncomp, n, np.int64)
            np.minimum.at(smallest, comp, np.arange(n))
            want = smallest[comp]
            row = {"graph": spec, "components": ncomp, "scipy": t_sp}
            print(f"  cc scipy {t_sp * 1e3:.1f} ms ({ncomp:,} components)", flush=True)
            for m in args.cc_methods.split(","):
                t, first, labels = timeit(lambda: connected_components(A, method=m), args.repeat)
                assert np.array_equal(labels.to_dense(), want), f"cc {m} on {spec}: wrong labels"
                row[m] = t
                print(f"  cc {m} {t * 1e3:.1f} ms (first call {first * 1e3:.1f} ms)", flush=True)
                if m == "afforest":
                    # a copy whose symmetry is not known: every edge linked
                    B = A.copy()
                    t, _, labels = timeit(lambda: connected_components(B, method=m), args.repeat)
                    assert np.array_equal(labels.to_dense(), want)
                    row["afforest (symmetry unknown)"] = t
                    print(f"  cc afforest, symmetry unknown {t * 1e3:.1f} ms", flush=True)
            cc_rows.append(row)

        if not args.no_tc:
            U0 = _common.undirected_csr(A, self_loops=False)
            relabel_auto = worth_relabelling(U0.indptr)
            t0 = time.perf_counter()
            rank, r_indptr, r_indices, r_mid = degree_order(U0.indptr, U0.indices)
            t_order = time.perf_counter() - t0

            def wedges(indptr, mid):
                d = (mid.astype(np.int64) - indptr[:-1]).astype(np.float64)
                return float((d * (d - 1) / 2).sum())

            from bitgraph.kernels.cpu.components import lower_ends
            nat_wedges = wedges(U0.indptr, lower_ends(U0.indptr, U0.indices))
            ord_wedges = wedges(r_indptr, r_mid)
            row = {"graph": spec, "relabel": relabel_auto, "order": t_order}
            print(f"  tc: auto relabel {relabel_auto}; degree order built in "
                  f"{t_order * 1e3:.0f} ms; wedges natural {nat_wedges:.3g}, "
                  f"degree order {ord_wedges:.3g}", flush=True)
            count = None

            def agree(c, what):
                nonlocal count
                if count is None:
                    count = c
                assert c == count, f"tc {what} on {spec}: {c} != {count}"

            for m in args.tc_methods.split(","):
                for relabel in (False, True):
                    w = ord_wedges if relabel else nat_wedges
                    key = f"{m}/{'degree' if relabel else 'natural'}"
                    if w > args.tc_max_wedges:
                        print(f"  tc {key}: skipped ({w:.3g} wedges)")
                        continue
                    t, first, c = timeit(lambda: triangle_count(A, method=m, relabel=relabel),
                                         args.repeat)
                    agree(c, key)
                    row[key] = t
                    row[key + " first"] = first
                    print(f"  tc {key} {t * 1e3:.1f} ms (first call, with build, "
                          f"{first * 1e3:.1f} ms) {c:,} triangles", flush=True)
            if not args.no_graphblas:
                variants = [("SuiteSparse", U0.indptr, U0.indices, nat_wedges)]
                if args.gb_relabel:
                    variants.append(("SuiteSparse/degree", r_indptr, r_indices, ord_wedges))
                for name, ip, ix, w in variants:
                    if w > args.tc_max_wedges and name != "SuiteSparse":
                        print(f"  tc {name}: skipped ({w:.3g} wedges)")
                        continue
                    run = gb_triangles(ip, ix, n)
                    t, _, c = timeit(run, max(1, args.repeat // 2), long=5.0)
                    agree(c, name)
                    row[name] = t
                    print(f"  tc {name} {t * 1e3:.1f} ms {c:,} triangles", flush=True)
            row["triangles"] = count
            tc_rows.append(row)

    def ms(x):
        return "—" if x is None else f"{x * 1e3:.1f}"

    if cc_rows:
        methods = args.cc_methods.split(",")
        if "afforest" in methods:
            methods.insert(methods.index("afforest") + 1, "afforest (symmetry unknown)")
        print("\n### Connected components (ms; ratio = scipy / bitgraph auto on a graph"
              " known symmetric)\n")
        print("| graph | components | scipy | " + " | ".join(methods) + " | ratio |")
        print("|---" * (4 + len(methods)) + "|")
        for r in cc_rows:
            best = r.get("afforest") or min(r.get(m, np.inf) for m in methods)
            print(f"| {r['graph']} | {r['components']:,} | {ms(r['scipy'])} | "
                  + " | ".join(ms(r.get(m)) for m in methods)
                  + f" | {r['scipy'] / best:.1f} |")
    if tc_rows:
        keys = [f"{m}/{o}" for m in args.tc_methods.split(",") for o in ("natural", "degree")]
        base = ["SuiteSparse"] + (["SuiteSparse/degree"] if args.gb_relabel else [])
        print("\n### Triangle count (ms, build cached; ratio = best SuiteSparse / "
              "bitgraph auto)\n")
        print("| graph | triangles | auto relabel | degree-order build | " + " | ".join(keys)
              + " | " + " | ".join(base) + " | ratio |")
        print("|---" * (5 + len(keys) + len(base)) + "|")
        for r in tc_rows:
            auto = r.get(f"ordered/{'degree' if r['relabel'] else 'natural'}")
            gbest = min((r[b] for b in base if b in r), default=None)
            ratio = "—" if gbest is None or auto is None else f"{gbest / auto:.1f}"
            print(f"| {r['graph']} | {r['triangles']:,} | {r['relabel']} | {ms(r['order'])} | "
                  + " | ".join(ms(r.get(k)) for k in keys) + " | "
                  + " | ".join(ms(r.get(b)) for b in base) + f" | {ratio} |")


if __name__ == "__main__":
    main()
