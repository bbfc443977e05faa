"""Where a GPU BFS spends its levels: the persistent kernel's per-level
trace (``kernels.cuda.bfs_bvss.STATS``) summarised by mode and frontier size.

    python3 benchmarks/trace_bfs_gpu.py grid:2048x2048:0.01 --sources 4 --methods blest,direction

Per graph and method: levels, kernel ms, and per mode the number of levels,
their total and mean ms, and the frontier sizes they took (min/median/max).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--sources", type=int, default=4)
    ap.add_argument("--methods", default="blest")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--force", default="", help="FORCE entries, e.g. single=False,update=eager")
    ap.add_argument("--sb-edges", default="", help="SB_EDGES values to compare, e.g. 4096,8192")
    ap.add_argument("--levels", action="store_true",
                    help="also a row per level: mode, frontier, queue, in-edges checked, us")
    args = ap.parse_args(argv)
    import cupy

    import bitgraph as bg
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import bfs_bvss as kb

    for kv in filter(None, args.force.split(",")):
        k, v = kv.split("=")
        kb.FORCE[k] = {"True": True, "False": False, "None": None}.get(v, v)
    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        rng = np.random.default_rng(args.seed)
        sources = rng.choice(np.flatnonzero(deg > 0), args.sources, replace=False)
        print(f"## {spec}: n = {A.nrows:,}, nvals = {A.nvals:,}")
        runs = [(m, e) for m in args.methods.split(",")
                for e in (args.sb_edges.split(",") if args.sb_edges else [None])]
        for method, sb_edges in runs:
            if sb_edges is not None:
                kb.SB_EDGES = int(sb_edges)
            bg.algorithms.bfs(A, int(sources[0]), method=method)  # build, compile
            for s in sources:
                kb.STATS = {}
                bg.algorithms.bfs(A, int(s), method=method)
                cupy.cuda.Device().synchronize()
                st, kb.STATS = kb.STATS, None
                if not st:
                    print(f"- {method}: not the persistent kernel")
                    break
                modes = np.array(st["modes"])
                ms = np.array(st["level_ms"])
                fr = np.array(st["frontier"])
                print(f"- {method}{'' if sb_edges is None else f' (SB_EDGES {sb_edges})'} source {s}: {st['levels']} levels, kernel {st['kernel_ms']:.3f} ms,"
                      f" traced {ms.sum():.3f} ms")
                if args.levels:
                    for lv, (m, f, q, c, t) in enumerate(zip(modes, fr, st["queue"],
                                                             st["checked"], ms)):
                        print(f"    L{lv} {m:9s} frontier {f:>9,} queue {q:>9,}"
                              f" checked {c:>11,} {1e3 * t:8.1f} us")
                for m in dict.fromkeys(modes):
                    sel = modes == m
                    f = fr[sel]
                    print(f"  - {m}: {sel.sum()} levels, {ms[sel].sum():.3f} ms,"
                          f" {1e3 * ms[sel].mean():.2f} us/level, frontier"
                          f" {f.min()}/{int(np.median(f))}/{f.max()}")
        del A
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
