"""Where a 64-source msbfs batch spends its time on the GPU: the launcher's
per-level trace (``kernels.cuda.msbfs.TRACE``: step, frontier, out-edges,
steps ms, settle ms, in-edges scanned) and the whole call, against single
BFSs; ``--pull``, ``--alpha``, ``--all-pull``, ``--lanes`` set the bottom-up
step, the direction constants and the CSR pull's lanes per vertex
(``kernels/cuda/msbfs.py``).

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
    ap.add_argument("--pull", default=None,
                    help="csr, bvss_simt or bvss_mma; several, comma-separated, run in turn")
    ap.add_argument("--alpha", type=float, default=None)
    ap.add_argument("--all-pull", type=float, default=None)
    ap.add_argument("--stats-only", action="store_true",
                    help="no levels written (closeness's statistics-only batches)")
    ap.add_argument("--lanes", default=None,
                    help="lanes per vertex of the CSR pull (default pull_lanes); several, comma-separated")
    args = ap.parse_args(argv)
    import cupy

    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import msbfs as km

    alg = sys.modules["bitgraph.algorithms.msbfs"]
    pulls = args.pull.split(",") if args.pull else [alg.CUDA_PULL]
    if args.alpha is not None:
        km.ALPHA = args.alpha
    if args.all_pull is not None:
        km.ALL_PULL = args.all_pull

    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        rng = np.random.default_rng(args.seed)
        src = rng.choice(np.flatnonzero(deg > 0), args.sources, replace=True)
        rule = km.pull_lanes
        for lanes in (args.lanes.split(",") if args.lanes else [None]):
            km.pull_lanes = rule if lanes is None else (lambda n, nnz, g=int(lanes): g)
            for pull in pulls:
                alg.CUDA_PULL = pull
                run(A, src, km, alg, spec + ("" if lanes is None else f" lanes {lanes}"),
                    args.stats_only)
        km.pull_lanes = rule
        del A
        cupy.get_default_memory_pool().free_all_blocks()


def run(A, src, km, alg, spec, stats_only=False):
    """One pull variant on one graph: timing against singles, then a traced call."""
    import cupy

    import bitgraph as bg

    def call():
        if stats_only:  # the statistics only, as closeness runs it
            return alg._run_batches_cuda(A, src, np.arange(src.size), 64, None)
        return bg.algorithms.msbfs(A, src)

    call()  # build, compile
    bg.algorithms.bfs(A, int(src[0]))
    times = []
    for _ in range(3):
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        call()
        cupy.cuda.Device().synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    total = min(times)
    t = time.perf_counter()
    for s in src:
        bg.algorithms.bfs(A, int(s))
    cupy.cuda.Device().synchronize()
    singles = (time.perf_counter() - t) * 1e3
    km.TRACE = []
    t = time.perf_counter()
    call()
    cupy.cuda.Device().synchronize()
    traced = (time.perf_counter() - t) * 1e3
    tr, km.TRACE = km.TRACE, None
    print(f"## {spec}{' stats only' if stats_only else ''} (pull {alg.CUDA_PULL}, alpha {km.ALPHA}, all-pull {km.ALL_PULL}):"
          f" msbfs {len(src)} sources {total:.2f} ms (best of 3), singles {singles:.2f} ms"
          f" (x{singles / total:.1f}); traced {traced:.2f} ms, {len(tr)} levels")
    step = sum(x[4] for x in tr)
    settle = sum(x[5] for x in tr)
    pulls = sum(x[7] for x in tr)
    print(f"traced: steps {step:.2f} ms (bottom-up {pulls:.2f}), settles {settle:.2f} ms,"
          f" rest {traced - step - settle:.2f} ms")
    for x in tr[:40]:
        print("  ", x)


if __name__ == "__main__":
    main()
