"""The direction method's constants on the GPU: alpha (bottom-up when the
frontier's out-edges exceed alpha * m; ``bfs.ALPHA_CUDA``),
``kernels.cuda.bfs_bvss.CSR_SCAN_MIN`` (single-scan top-down levels when
they scan at least that * n edges) and ``bfs.SORT_IN_LISTS`` (bottom-up over
in-lists ordered by degree), swept on one run.

    python3 benchmarks/sweep_direction_gpu.py kron:22 urand:22 --sources 16

Per graph and setting: mean kernel ms over the sources (CUDA events, the
kernel's STATS), one warm-up call first.
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
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--alphas", default="0.01,0.02,0.05,0.1,0.2")
    ap.add_argument("--scan-mins", default="0.03125,0.125,0.5,inf")
    ap.add_argument("--sort-in-lists", default="1", help="e.g. 0,1")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    import cupy

    import bitgraph as bg
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import bfs_bvss as kb

    bfs_mod = sys.modules["bitgraph.algorithms.bfs"]
    default_scan, default_sort = kb.CSR_SCAN_MIN, bfs_mod.SORT_IN_LISTS
    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        rng = np.random.default_rng(args.seed)
        sources = rng.choice(np.flatnonzero(deg > 0), args.sources, replace=False)
        print(f"## {spec}: n = {A.nrows:,}, nvals = {A.nvals:,}, {args.sources} sources")
        print("| sorted in-lists | alpha | CSR_SCAN_MIN | kernel ms |")
        print("|---|---:|---:|---:|")
        settings = [(srt, scan, alpha) for srt in args.sort_in_lists.split(",")
                    for scan in args.scan_mins.split(",") for alpha in args.alphas.split(",")]
        for srt, scan, alpha in settings:
            bfs_mod.SORT_IN_LISTS = srt == "1"
            kb.CSR_SCAN_MIN = float(scan)
            a = float(alpha)
            bg.algorithms.bfs(A, int(sources[0]), method="direction", alpha=a)
            ms = []
            for s in sources:
                kb.STATS = {}
                bg.algorithms.bfs(A, int(s), method="direction", alpha=a)
                ms.append(kb.STATS["kernel_ms"])
            kb.STATS = None
            print(f"| {srt == '1'} | {alpha} | {scan} | {np.mean(ms):.3f} |")
        kb.CSR_SCAN_MIN, bfs_mod.SORT_IN_LISTS = default_scan, default_sort
        del A
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
