"""Sweep the asynchronous BFS's constants on the GPU (kernel time per
source, items appended per vertex, levels checked against direction).

    python3 benchmarks/sweep_async_gpu.py grid:2048x2048:0.01 --chain 0 1 4 16 64
    python3 benchmarks/sweep_async_gpu.py grid:161x161x161:0.0 --sources 4 --warps 4 8

Each (spec, chain, warps per SM) line: the mean of the best of 3 kernel
times over the sources, the worst source's time, items appended / n.
Also the first call of ``bfs_method`` (the auto probe) per graph.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    import cupy

    import bitgraph as bg
    from bitgraph.algorithms._common import out_csr
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import bfs_async as ka

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("specs", nargs="+")
    p.add_argument("--sources", type=int, default=8)
    p.add_argument("--chain", type=int, nargs="+", default=[ka.CHAIN_MAX])
    p.add_argument("--warps", type=int, nargs="+", default=[ka.WARPS_PER_SM])
    args = p.parse_args(argv)
    for spec in args.specs:
        A = from_spec(spec, device="cuda")
        t0 = time.perf_counter()
        method = bg.algorithms.bfs_method(A)
        print(f"{spec}: n {A.nrows}, nvals {A.nvals}; bfs_method {method!r} "
              f"(first call {time.perf_counter() - t0:.2f} s)", flush=True)
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        src = np.random.default_rng(1).choice(np.flatnonzero(deg > 0), args.sources)
        refs = [bg.algorithms.bfs(A, int(s), method="direction").to_dense(-1) for s in src]
        csr = out_csr(A)
        for chain in args.chain:
            for warps in args.warps:
                ka.CHAIN_MAX, ka.WARPS_PER_SM = chain, warps
                best, appended, ok = [], [], True
                for s, ref in zip(src, refs):
                    ts = []
                    for _ in range(3):
                        ka.STATS = {}
                        lv = ka.bfs_async(csr, int(s))
                        ts.append(ka.STATS["kernel_ms"])
                    ok &= lv is not None and bool((lv == ref).all())
                    best.append(min(ts))
                    appended.append(ka.STATS["appended"] / A.nrows)
                print(f"  chain {chain:5d} warps/SM {warps:2d}: ok={ok} kernel mean {np.mean(best):.3f} "
                      f"ms (max {max(best):.3f}), appended {np.mean(appended):.2f} n", flush=True)
        ka.STATS = None


if __name__ == "__main__":
    main()
