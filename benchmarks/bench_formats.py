"""Bit formats on the CPU: build time and bytes, compression by tile size,
and B2SR BMV against the CSR SpMV, in one run.

    python benchmarks/bench_formats.py build kron:22        # >= 100M stored edges
    python benchmarks/bench_formats.py bmv kron:20 urand:20 grid:1024x1024
    python benchmarks/bench_formats.py tc kron:16 urand:18 rgg:200000:0.005

``build``: seconds to build B2SR-t (t = 4, 8, 16, 32) and BVSS (sigma = 8)
from the CSR, their bytes against int32 CSR, fill / compression and BVSS
statistics (slices, VSSs, U_div); the process's peak RSS.
``bmv``: per graph, in natural order and after RCM, B2SR bin_full_full
vs CSR pull for plus_times (dense float64 vector) and B2SR bin_bin_bin vs
CSR pull for a masked lor_land BFS step (10% frontier, 50% visited), each
the median of --repeat runs after a warm-up, results checked equal; ratio =
CSR time / B2SR time (> 1: bits faster).
``tc``: triangle counting C<L> = L plus.pair L' on CSR (masked dot products)
and on B2SR-t (masked bmm_bin_bin_sum), natural order and after RCM, counts
checked equal, and what plan's "auto" picks. Prints Markdown tables.
(A whole BFS of Blest steps is ``bfs(method="blest")``: benchmarks/bench_bfs.py.)
"""

from __future__ import annotations

import argparse
import platform
import resource
import time

import numpy as np

from _timing import timeit


def warm():
    # compile the kernels on a tiny graph so build times exclude numba
    from bitgraph.formats import b2sr, bvss
    from bitgraph.formats.csr import from_coo

    A = from_coo(np.arange(64), np.arange(64)[::-1].copy(), None, 64, 64)
    for t in b2sr.TILE_SIZES:
        b2sr.from_csr(A, t)
    bvss.stats(bvss.from_csr(A))


def build(specs):
    from bitgraph.formats import b2sr, bvss
    from bitgraph.io import generators

    warm()
    print("| graph | n | stored edges | format | build s | bytes | vs int32 CSR | fill / compression |")
    print("|---|---:|---:|---|---:|---:|---:|---|")
    for spec in specs:
        t0 = time.perf_counter()
        A = generators.from_spec(spec)._csr()
        gen = time.perf_counter() - t0
        csr_bytes = b2sr.csr_int32_bytes(A.nrows, A.nnz)
        row = f"| {spec} | {A.nrows:,} | {A.nnz:,} |"
        print(f"{row} CSR int32 (generate {gen:.1f} s) | - | {csr_bytes:,} | 1.00 | |", flush=True)
        for t in b2sr.TILE_SIZES:
            t0 = time.perf_counter()
            B = b2sr.from_csr(A, t)
            sec = time.perf_counter() - t0
            s = b2sr.stats(B, A.nnz)
            print(f"{row} B2SR-{t} | {sec:.2f} | {B.nbytes:,} | {B.nbytes / csr_bytes:.2f} | "
                  f"{s['nnz_per_tile']:.2f} per tile, fill {s['fill']:.4f} |", flush=True)
            del B
        t0 = time.perf_counter()
        V = bvss.from_csr(A, 8)
        sec = time.perf_counter() - t0
        s = bvss.stats(V)
        print(f"{row} BVSS-8 | {sec:.2f} | {V.nbytes:,} | {V.nbytes / csr_bytes:.2f} | "
              f"compression {s['compression']:.3f}, {s['slice_sets']:,} sets, {s['vss']:,} VSS, "
              f"{s['slices']:,} slices, {s['padded_slices']:,} padded, U_div {s['update_divergence']:,.0f} |",
              flush=True)
        del V, A
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print(f"\npeak RSS {rss:.1f} GiB; {platform.processor() or platform.machine()}, "
          f"{__import__('os').cpu_count()} CPUs")


def bmv(specs, repeat):
    import bitgraph as bg
    from bitgraph import _array as ar
    from bitgraph.formats import b2sr, reorder
    from bitgraph.io import generators
    from bitgraph.kernels import opcodes as oc
    from bitgraph.kernels.cpu.bmv_b2sr import bmv_bin_bin_bin, bmv_bin_full_full
    from bitgraph.kernels.cpu.spmv_csr import spmv_pull
    from bitgraph.kernels.registry import SemiringSpec

    warm()
    print("| graph | order | t | entries/tile | plus_times CSR ms | B2SR ms | ratio | "
          "masked lor_land CSR ms | B2SR ms | ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rng = np.random.default_rng(1)
    pt = SemiringSpec(np.dtype(np.float64), oc.PLUS, oc.TIMES, 0.0, None)
    ps = SemiringSpec(np.dtype(np.float64), oc.PLUS, oc.SECOND, 0.0, None)
    lor = SemiringSpec(np.dtype(np.bool_), oc.LOR, oc.LAND, False, True)
    for spec in specs:
        A0 = generators.from_spec(spec)._csr()
        n = A0.nrows
        for order in ("natural", "rcm"):
            A = A0 if order == "natural" else reorder.permute(A0, reorder.rcm(A0))
            x = rng.random(n)
            full = ar.pack_bits(np.ones(n, bool))
            front = ar.pack_bits(rng.random(n) < 0.1)
            allowed = ar.pack_bits(rng.random(n) < 0.5)
            ones = np.ones(n, bool)
            csr_pt, ref = timeit(lambda: spmv_pull(A, x, full, None, pt), repeat)
            csr_bfs, refb = timeit(lambda: spmv_pull(A, ones, front, allowed, lor), repeat)
            for t in b2sr.TILE_SIZES:
                B = b2sr.from_csr(A, t)
                bit_pt, got = timeit(lambda: bmv_bin_full_full(B, x, full, None, ps), repeat)
                assert np.array_equal(got[1], ref[1]) and np.array_equal(got[0][ref[1]], ref[0][ref[1]])
                bit_bfs, gotb = timeit(lambda: bmv_bin_bin_bin(B, front, None, allowed), repeat)
                assert np.array_equal(gotb[1], refb[1])
                print(f"| {spec} | {order} | {t} | {A.nnz / max(B.ntiles, 1):.2f} | {csr_pt * 1e3:.1f} | "
                      f"{bit_pt * 1e3:.1f} | {csr_pt / bit_pt:.2f} | {csr_bfs * 1e3:.1f} | {bit_bfs * 1e3:.1f} | "
                      f"{csr_bfs / bit_bfs:.2f} |", flush=True)
                del B


def tc(specs, repeat):
    import bitgraph as bg
    from bitgraph import plan
    from bitgraph.formats import reorder
    from bitgraph.io import generators

    print("| graph | order | L entries | entries per 8x8 tile | CSR dot ms | B2SR-4 | B2SR-8 | B2SR-16 | "
          "B2SR-32 | best ratio | auto picks |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for spec in specs:
        A0 = generators.from_spec(spec)
        for order in ("natural", "rcm"):
            A = A0 if order == "natural" else bg.Matrix._from_csr(reorder.permute(A0._csr(), reorder.rcm(A0._csr())))
            lo = bg.select(A, "tril", -1)
            L = bg.Matrix.from_coo(*lo.to_coo()[:2], nrows=A.nrows, ncols=A.ncols)
            times, counts = {}, set()
            for mode, t in (("never", 0), ("always", 4), ("always", 8), ("always", 16), ("always", 32)):
                plan.BITS, plan.BITS_TILE = mode, t or None
                sec, C = timeit(lambda: bg.mxm(L, L.T, "plus_pair", mask=L.S), repeat)
                counts.add(C.reduce() if C.nvals else 0)
                times[t] = sec
            plan.BITS, plan.BITS_TILE = "auto", None
            assert len(counts) == 1, counts
            auto = plan.use_bits(L, "count", "mxm")
            best = min(times[t] for t in (4, 8, 16, 32))
            ms = [f"{times[t] * 1e3:.0f}" for t in (0, 4, 8, 16, 32)]
            print(f"| {spec} | {order} | {L.nvals:,} | {L.profile()[8]['nnz_per_tile']:.2f} | "
                  f"{' | '.join(ms)} | {times[0] / best:.2f} | {'B2SR-%d' % auto if auto else 'CSR'} |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", choices=["build", "bmv", "tc"])
    p.add_argument("graphs", nargs="+", help="generator specs, e.g. kron:20 urand:20 grid:1024x1024")
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    if args.what == "build":
        build(args.graphs)
    elif args.what == "bmv":
        bmv(args.graphs, args.repeat)
    else:
        tc(args.graphs, args.repeat)


if __name__ == "__main__":
    main()
