"""Triangle counting on the GPU: the tensor-core masked B2SR product
against cuSPARSE SpGEMM, same matrices, same run (run on the device).

    python benchmarks/bench_tc_gpu.py --out tc.json              # kron-22, urand-22, grid-2048
    python benchmarks/bench_tc_gpu.py --scales 16 18 --orders desc,asc

For each graph (the undirected pattern, self-loops dropped) and ordering,
L = the strict lower triangle, and the count is sum(C<L> = L plus.pair L'):

- ours: ``bmm_bin_bin_sum`` (kernels/cuda/bmm_b2sr.cu) on the B2SR-t of L
  (A = BT = L, mask L), timed from the CSR and B2SR on the GPU to the
  total: output-tile discovery, the MMA kernels and the sum; the phases
  apart. The B2SR build (numba, on this machine's CPU) is timed apart.
- cuSPARSE: ``(L @ L.T).multiply(L)`` through cupyx.scipy.sparse (float32
  values; every count is an exact small integer), summed as int64. The
  one-expression product fails or comes back empty on large graphs
  (BASELINES.md), so L is cut into row blocks of at most ``--block``
  products (halved on a cuSPARSE error); L.T as CSR is made once, outside
  the timing. Its count must equal ours (a silently empty product is
  caught: the check fails, or a zero count with a non-empty L @ L.T).

Orderings: ``desc`` (vertices renumbered by descending degree, the
gapbs relabelling: L(u) = the neighbours of higher degree; fastest for the
bits), ``asc`` (by ascending degree: the reverse; cuSPARSE's best on kron:
desc makes L @ L' 30x more products there, skipped past
``--max-products``), ``natural``. A last table puts each method at its
best ordering and t. Times: CUDA events, median of
``--repeat`` runs after a warm-up (a baseline whose warm-up exceeds
``--slow`` seconds runs once more only, flagged). ``--cpu-check`` also
compares with ``bitgraph.algorithms.triangle_count`` on the CPU (on by
default below 2^21 vertices).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DEFAULT = ["kron:22", "urand:22", "grid:2048x2048"]


def specs_for(scale):
    side = 1 << (scale // 2)
    return [f"kron:{scale}", f"urand:{scale}", f"grid:{side}x{1 << (scale - scale // 2)}"]


def lower(U, order):
    """(indptr, indices) int32/64 of the strict lower triangle of the
    symmetric pattern U (a CSR without self-loops) in ``order``."""
    from bitgraph.algorithms.triangles import _lower
    from bitgraph.kernels.cpu.components import degree_order, lower_ends

    n = U.nrows
    if order == "natural":
        mid = lower_ends(U.indptr, U.indices)
        return _lower(U.indptr, U.indices, mid)
    _, indptr, indices, mid = degree_order(U.indptr, U.indices)
    Lp, Li = _lower(indptr, indices, mid)
    if order == "desc":
        return Lp, Li
    # ascending degree: id x = n-1-u, so L_asc = R L_desc' R (R reverses):
    # the transpose's rows read backwards, columns mapped c -> n-1-c
    import scipy.sparse as sp

    T = sp.csr_array((np.ones(Li.size, np.int8), Li, Lp), shape=(n, n)).T.tocsr()
    T.sort_indices()
    nnz = T.indices.size
    indptr = (nnz - T.indptr[::-1]).astype(Lp.dtype)
    indices = (n - 1 - T.indices[::-1]).astype(Lp.dtype)
    return indptr, indices


def events_ms(f, repeat, slow=None):
    """(median ms over ``repeat`` runs after a warm-up, all times, result);
    a warm-up longer than ``slow`` s: one more run only."""
    import cupy

    def once():
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record()
        r = f()
        b.record()
        b.synchronize()
        return cupy.cuda.get_elapsed_time(a, b), r

    first, r = once()
    n = 1 if slow is not None and first > slow * 1e3 else repeat
    ts = []
    for _ in range(n):
        ms, r = once()
        ts.append(ms)
    return statistics.median(ts), ts, r


def cusparse_count(L, LT, products, block, plan):
    """Row-blocked cuSPARSE count: (int, nnz of L @ L.T, blocks used).
    Blocks of at most ``block`` products; a block cuSPARSE refuses
    (CUSPARSE_STATUS_INSUFFICIENT_RESOURCES) is halved. ``plan``: the row
    bounds that worked, kept for the next call (the timed runs do not
    repeat the warm-up's failed attempts)."""
    import cupy

    n = L.shape[0]
    if not plan:
        cum = np.cumsum(products)
        cuts = np.searchsorted(cum, np.arange(block, int(cum[-1]) if n else 0, block),
                               side="right")
        bounds = np.unique(np.concatenate([[0, n], cuts])).tolist()
        stack = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)][::-1]
    else:
        stack = plan[::-1]
    done = []
    total = nnz = 0
    while stack:
        r0, r1 = stack.pop()
        Lb = L[r0:r1]
        try:
            P = Lb @ LT
            C = P.multiply(Lb)
        except Exception as e:  # CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: halve the block
            if r1 - r0 <= 1:
                raise
            mid = (r0 + r1) // 2
            stack += [(mid, r1), (r0, mid)]
            print(f"    cuSPARSE block {r0}:{r1} failed ({type(e).__name__}), halved",
                  flush=True)
            continue
        nnz += int(P.nnz)
        total += int(C.data.astype(cupy.int64).sum()) if C.nnz else 0
        done.append((r0, r1))
    plan[:] = done
    return total, nnz, len(done)


def gpu_build_ms(gL, B, t, repeat):
    """Median ms of the GPU B2SR build (kernels/cuda/convert_b2sr, where
    registered), checked equal to the CPU's ``B``; or why not."""
    import cupy

    from bitgraph.kernels import registry

    try:
        build = registry.lookup("convert", fmt="b2sr", device="cuda", variant="from_csr")
        ms, _, got = events_ms(lambda: build(gL, t), repeat)
        same = all(np.array_equal(cupy.asnumpy(g).astype(np.int64) if g.dtype.kind == "i"
                                  else cupy.asnumpy(g), w.astype(np.int64) if w.dtype.kind == "i"
                                  else w)
                   for g, w in zip(got, (B.tile_rowptr, B.tile_colind, B.tiles)))
        return ms if same else "differs from the CPU build"
    except Exception as e:  # another part's kernel: report, do not stop
        return f"n/a ({type(e).__name__}: {str(e)[:80]})"


def main(argv=None):
    import cupy
    import cupyx.scipy.sparse as csp

    from bitgraph.algorithms._common import undirected_csr
    from bitgraph.formats import b2sr
    from bitgraph.formats.csr import CSR
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels import registry
    from bitgraph.kernels.cpu import num_threads
    from bitgraph.kernels.cuda import bmm_b2sr

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("graphs", nargs="*", help=f"generator specs (default {' '.join(DEFAULT)})")
    p.add_argument("--scales", type=int, nargs="+",
                   help="kron:S urand:S grid:2^(S/2)x.. for each scale S instead")
    p.add_argument("--orders", default="desc,asc", help="comma list: desc, asc, natural")
    p.add_argument("--t", type=int, nargs="+", default=[8], help="tile sizes")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--slow", type=float, default=15.0,
                   help="a baseline whose warm-up takes longer (s) runs once more only")
    p.add_argument("--block", type=float, default=1e8, help="cuSPARSE products per row block")
    p.add_argument("--no-cusparse", action="store_true")
    p.add_argument("--max-products", type=float, default=3e10,
                   help="skip cuSPARSE on an L @ L' with more products")
    p.add_argument("--cpu-check", choices=["auto", "yes", "no"], default="auto")
    p.add_argument("--out", help="write the rows as JSON here")
    args = p.parse_args(argv)
    specs = args.graphs or ([s for sc in args.scales for s in specs_for(sc)]
                            if args.scales else DEFAULT)
    gpu = registry.lookup("mxm", fmt="b2sr", device="cuda", variant="bin_bin_sum")
    # the CSR path plan takes when the tiles do not fill: masked dot products
    dot = registry.lookup("mxm", fmt="csr", device="cuda", variant="dot")
    from bitgraph.ops import _semiring_spec
    from bitgraph.semiring import lookup_semiring

    plus_pair = _semiring_spec(lookup_semiring("plus_pair"), np.dtype(np.int64))[0]
    dev = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    print(f"device: {dev}; CPU threads: {num_threads()}; cupy {cupy.__version__}", flush=True)

    # compile the numba and NVRTC kernels outside the timings
    w = from_spec("kron:8")
    wl = lower(undirected_csr(w, self_loops=False), "desc")
    wc = CSR(wl[0], wl[1], None, w.nrows, w.ncols)
    for t in args.t:
        wb = b2sr.from_csr(wc, t)
        gw = wb._replace(tile_rowptr=cupy.asarray(wb.tile_rowptr),
                         tile_colind=cupy.asarray(wb.tile_colind), tiles=cupy.asarray(wb.tiles))
        gpu(gw, gw, CSR(cupy.asarray(wc.indptr), cupy.asarray(wc.indices), None, w.nrows, w.ncols))

    rows = []
    for spec in specs:
        t0 = time.perf_counter()
        G = from_spec(spec)
        U = undirected_csr(G, self_loops=False)
        gen = time.perf_counter() - t0
        n = U.nrows
        print(f"\n{spec}: n={n:,}, undirected edges {U.indices.size // 2:,} "
              f"(generated in {gen:.1f} s)", flush=True)
        cpu_tri = None
        if args.cpu_check == "yes" or (args.cpu_check == "auto" and n < (1 << 21)):
            from bitgraph.algorithms import triangle_count

            t0 = time.perf_counter()
            cpu_tri = triangle_count(G)
            print(f"  CPU triangle_count: {cpu_tri:,} ({time.perf_counter() - t0:.1f} s)",
                  flush=True)
        for order in args.orders.split(","):
            t0 = time.perf_counter()
            Lp, Li = lower(U, order)
            t_order = time.perf_counter() - t0
            Lc = CSR(Lp, Li, None, n, n)
            gL = CSR(cupy.asarray(Lp), cupy.asarray(Li), None, n, n)
            cus = L = None
            plan = []
            if not args.no_cusparse:
                # products of row i of L @ L': sum over k in L(i) of |L(:, k)|
                cs = np.zeros(Li.size + 1, np.int64)
                np.cumsum(np.bincount(Li, minlength=n)[Li], out=cs[1:])
                products = cs[Lp[1:]] - cs[Lp[:-1]]
                if products.sum() > args.max_products:
                    print(f"  {order}: cuSPARSE skipped: {products.sum():,} products "
                          f"> --max-products", flush=True)
                else:
                    data = cupy.ones(Li.size, np.float32)
                    L = csp.csr_matrix((data, gL.indices, gL.indptr), shape=(n, n))
                    LT = L.T.tocsr()
            if L is not None:
                # untimed: find the row blocks cuSPARSE accepts (the plan)
                cusparse_count(L, LT, products, int(args.block), plan)
                ms, ts, (cnt, pnnz, nblocks) = events_ms(
                    lambda: cusparse_count(L, LT, products, int(args.block), plan), args.repeat,
                    args.slow)
                cus = {"ms": ms, "runs_ms": ts, "slow": len(ts) < args.repeat, "count": cnt,
                       "product_nnz": pnnz,
                       "blocks": nblocks, "products": int(products.sum())}
                print(f"  {order}: cuSPARSE {ms:.2f} ms ({len(ts)} runs, {nblocks} blocks, "
                      f"{cus['products']:,} products, L@L' nnz {pnnz:,}) count {cnt:,}",
                      flush=True)
                del L, LT
            dot_ms, _, (_, _, dv) = events_ms(lambda: dot(gL, gL, gL, plus_pair), args.repeat,
                                             args.slow)
            dot_count = int(dv.sum())
            print(f"  {order}: CSR masked dot (ours) {dot_ms:.2f} ms, count {dot_count:,}",
                  flush=True)
            for t in args.t:
                t0 = time.perf_counter()
                B = b2sr.from_csr(Lc, t)
                t_build = time.perf_counter() - t0
                st = b2sr.stats(B, nnz=int(Li.size))
                gpu_build = gpu_build_ms(gL, B, t, args.repeat)
                gB = B._replace(tile_rowptr=cupy.asarray(B.tile_rowptr),
                                tile_colind=cupy.asarray(B.tile_colind),
                                tiles=cupy.asarray(B.tiles))
                ms, ts, (counts, total) = events_ms(lambda: gpu(gB, gB, gL), args.repeat)
                del counts
                bmm_b2sr.STATS = stats = {}
                try:
                    gpu(gB, gB, gL)
                    cupy.cuda.get_current_stream().synchronize()
                finally:
                    bmm_b2sr.STATS = None
                ev = stats["events"]
                phases = {name: cupy.cuda.get_elapsed_time(ev[i - 1][1], e)
                          for i, (name, e) in enumerate(ev) if i}
                ok = []
                if cus is not None:
                    ok.append(cus["count"] == total
                              and not (total == 0 and cus["product_nnz"] == 0 and Li.size
                                       and cus["products"]))
                if cpu_tri is not None:
                    ok.append(cpu_tri == total)
                # the count does not depend on the order or t
                ok += [r["triangles"] == total for r in rows if r["graph"] == spec]
                ok.append(dot_count == total)
                row = {
                    "graph": spec, "n": int(n), "order": order, "t": t, "L_nnz": int(Li.size),
                    "tiles": st["ntiles"], "fill": st["fill"], "b2sr_bytes": st["nbytes"],
                    "order_s": t_order, "b2sr_build_cpu_s": t_build,
                    "b2sr_build_gpu_ms": gpu_build, "ours_ms": ms,
                    "ours_runs_ms": ts, "phases_ms": phases, "tasks": stats["tasks"],
                    "tile_rows": stats["rows"],
                    "deferred": stats["deferred"], "chunks": stats["chunks"],
                    "triangles": total, "cusparse": cus, "cpu_triangles": cpu_tri,
                    "csr_dot_ms": dot_ms,
                    "ratio": (cus["ms"] / ms) if cus else None, "checked": all(ok) if ok else None,
                }
                rows.append(row)
                ph = ", ".join(f"{k} {v:.2f}" for k, v in phases.items())
                print(f"  {order} t={t}: ours {ms:.2f} ms ({ph}); tiles {st['ntiles']:,} "
                      f"fill {st['fill']:.3f}; tasks {stats['tasks']:,} in {stats['rows']:,} "
                      f"tile rows, deferred {stats['deferred']:,}; B2SR build (CPU) "
                      f"{t_build:.2f} s; triangles {total:,} "
                      f"{'OK' if row['checked'] else 'MISMATCH' if ok else ''}; B2SR build "
                      f"(GPU) {gpu_build if isinstance(gpu_build, str) else f'{gpu_build:.2f} ms'}"
                      + (f"; cuSPARSE / ours {row['ratio']:.1f}x" if cus else ""),
                      flush=True)
                del gB
            del gL
            cupy.get_default_memory_pool().free_all_blocks()
        if args.out:  # after each graph: a run cut short keeps what it measured
            Path(args.out).write_text(json.dumps({"device": dev, "rows": rows}, indent=1))

    print(f"\n### Triangle count on {dev}: tensor-core B2SR vs cuSPARSE SpGEMM\n")
    print("| graph | order | t | L nnz | tiles (fill) | B2SR build: CPU (s) / GPU (ms) "
          "| ours (ms) | cuSPARSE (ms) | ratio | triangles | check |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        c, gb = r["cusparse"], r["b2sr_build_gpu_ms"]
        check = {True: "ok", False: "MISMATCH", None: "-"}[r["checked"]]
        print(f"| {r['graph']} | {r['order']} | {r['t']} | {r['L_nnz']:,} | {r['tiles']:,} "
              f"({r['fill']:.3f}) | {r['b2sr_build_cpu_s']:.2f} / "
              f"{'n/a' if isinstance(gb, str) else f'{gb:.1f}'} | {r['ours_ms']:.2f} | "
              + (f"{c['ms']:.1f}{'*' if c['slow'] else ''} | {r['ratio']:.1f}x"
                 if c else "- | -")
              + f" | {r['triangles']:,} | {check} |")
    print("\n(* one timed run: the warm-up exceeded --slow)")
    # each at its best ordering and t (the count does not depend on them)
    print("\n| graph | ours, best (ms) | CSR dot, best (ms) | cuSPARSE, best (ms) | ratio |"
          "\n|---|---|---|---|---|")
    for spec in dict.fromkeys(r["graph"] for r in rows):
        mine = min((r for r in rows if r["graph"] == spec), key=lambda r: r["ours_ms"])
        theirs = [r for r in rows if r["graph"] == spec and r["cusparse"]]
        best = min(theirs, key=lambda r: r["cusparse"]["ms"]) if theirs else None
        dmin = min((r for r in rows if r["graph"] == spec), key=lambda r: r["csr_dot_ms"])
        print(f"| {spec} | {mine['ours_ms']:.2f} ({mine['order']}, t={mine['t']}) | "
              f"{dmin['csr_dot_ms']:.2f} ({dmin['order']}) | "
              + (f"{best['cusparse']['ms']:.1f} ({best['order']}) | "
                 f"{best['cusparse']['ms'] / mine['ours_ms']:.1f}x |" if best else "- | - |"))
    if args.out:
        Path(args.out).write_text(json.dumps({"device": dev, "rows": rows}, indent=1))
    return 0 if all(r["checked"] is not False for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
