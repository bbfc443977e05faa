"""Where a 64-source msbfs batch spends its time on the GPU: the launcher's
per-level trace (``kernels.cuda.msbfs.TRACE``: step, frontier, out-edges,
step ms, settle ms) and the whole call, against single BFSs.

    python3 benchmarks/trace_msbfs_gpu.py kron:22 urand:22 --sources 64
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
    args = ap.parse_args(argv)
    import cupy

    import bitgraph as bg
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import msbfs as km

    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        rng = np.random.default_rng(args.seed)
        src = rng.choice(np.flatnonzero(deg > 0), args.sources, replace=True)
        bg.algorithms.msbfs(A, src)  # build, compile
        cupy.cuda.Device().synchronize()
        km.TRACE = []
        t = time.perf_counter()
        bg.algorithms.msbfs(A, src)
        cupy.cuda.Device().synchronize()
        total = (time.perf_counter() - t) * 1e3
        tr, km.TRACE = km.TRACE, None
        t = time.perf_counter()
        for s in src:
            bg.algorithms.bfs(A, int(s))
        cupy.cuda.Device().synchronize()
        singles = (time.perf_counter() - t) * 1e3
        print(f"## {spec}: msbfs {len(src)} sources {total:.2f} ms, singles {singles:.2f} ms"
              f" (x{singles / total:.1f}); {len(tr)} levels traced")
        step = sum(x[4] for x in tr)
        settle = sum(x[5] for x in tr)
        print(f"steps {step:.2f} ms, settles {settle:.2f} ms, rest {total - step - settle:.2f} ms")
        for x in tr[:40]:
            print("  ", x)
        del A
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
