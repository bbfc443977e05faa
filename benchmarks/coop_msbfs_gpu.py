"""msbfs in one cooperative launch (``kernels.cuda.msbfs`` ``coop=True``):
where a batch's time goes, from the kernel's own clock (``COOP_TRACE``):
per level its queue size and time, grouped by queue size; with and without
levels written, against the level kernels (``coop=False``) on the same
batch.

    python3 benchmarks/coop_msbfs_gpu.py grid:2048x2048:0.01 rgg:4194304:0.00110193
    ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats \
        -k regex:msbfs_coop --launch-skip 1 --launch-count 1 \
        python3 benchmarks/coop_msbfs_gpu.py grid:1024x1024:0.01 --coop-only --repeat 1
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--coop-only", action="store_true",
                    help="no level kernels (e.g. under ncu: -k regex:msbfs_coop)")
    args = ap.parse_args(argv)
    import cupy

    from bitgraph.algorithms.bfs import in_lists_cuda
    from bitgraph.algorithms._common import out_csr
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import msbfs as km

    sync = cupy.cuda.Device().synchronize
    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        a, t = out_csr(A), in_lists_cuda(A)
        deg = cupy.asnumpy(a.indptr[1:] - a.indptr[:-1])
        src = np.random.default_rng(args.seed).choice(np.flatnonzero(deg > 0), args.sources)
        print(f"## {spec}: n {A.nrows}, m {A.nvals}, {src.size} sources")
        with km.shared_state(A.nrows) as state:
            for coop in (True,) if args.coop_only else (True, False):
                for write in (True, False):
                    best, trace = None, None
                    for _ in range(args.repeat + 1):  # the first compiles
                        km.COOP_TRACE = []
                        sync()
                        t0 = time.perf_counter()
                        km.batch_run(a, t, src, write=write, state=state, coop=coop)
                        sync()
                        ms = (time.perf_counter() - t0) * 1e3
                        if best is None or ms < best:
                            best, trace = ms, km.COOP_TRACE
                    km.COOP_TRACE = None
                    name = (f"{'coop' if coop else 'level kernels'},"
                            f" {'levels' if write else 'stats only'}")
                    print(f"  {name:30s} call {best:9.2f} ms")
                    if coop and trace:
                        tr = trace[0]
                        q, us = tr["queue"], tr["level_us"]
                        print(f"    {tr['levels']} levels, {tr['blocks']} blocks; levels"
                              f" {us.sum() / 1e3:.2f} ms, final sweep {tr['end_us']:.1f} us;"
                              f" per level us p10/50/90/max {np.percentile(us, 10):.1f} /"
                              f" {np.median(us):.1f} / {np.percentile(us, 90):.1f} /"
                              f" {us.max():.1f}")
                        edges = np.quantile(q, np.linspace(0, 1, 6))
                        for lo, hi in zip(edges[:-1], edges[1:]):
                            sel = (q >= lo) & (q <= hi)
                            if sel.any():
                                print(f"    queue {int(lo):>9d}..{int(hi):<9d} {int(sel.sum()):5d}"
                                      f" levels, mean {us[sel].mean():8.1f} us,"
                                      f" {us[sel].sum() / 1e3:8.2f} ms")
        del A, a, t
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
