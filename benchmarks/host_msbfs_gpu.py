"""Where a 64-source msbfs call's wall time goes on the host: the Python
before the first kernel, the wait for the GPU, the Python after it.

    python3 benchmarks/host_msbfs_gpu.py kron:22 [--calls 20] [--profile]

Per graph: the median wall time of a call; the median time from the call's
entry to the launch of its first CUDA graph (``head`` levels) or kernel
(``prologue``: the GPU is idle then); and the median of the same call's
kernel span, from a CUDA event recorded at that launch to one recorded
after the call's last kernel (``gpu``). wall - gpu is what the host adds.
``--profile`` also prints cProfile's top functions of the calls (their own
time: the host work).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--stages", action="store_true",
                    help="time the launcher's helpers and CuPy calls of the prologue")
    ap.add_argument("--spin", type=float, default=0.0,
                    help="ms of busy host work between the sync and each call")
    args = ap.parse_args(argv)
    import cupy

    import bitgraph as bg
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import msbfs as km

    sync = cupy.cuda.Device().synchronize
    marks = {}
    real_graph = km._graph

    class Timed:
        # a captured graph whose first launch in a call is timed
        def __init__(self, g):
            self.g = g

        def launch(self, stream):
            if "ev0" in marks and "first" not in marks:
                marks["first"] = time.perf_counter()
                marks["ev0"].record(stream)
            self.g.launch(stream)

    km._graph = lambda kind, key, work: Timed(real_graph(kind, key, work))
    spent = {}
    patched = []
    if args.stages:
        am = sys.modules["bitgraph.algorithms.msbfs"]  # the package exports the functions
        ab = sys.modules["bitgraph.algorithms.bfs"]

        def timed(owner, name):
            fn = getattr(owner, name)

            def wrap(*a, **k):
                t0 = time.perf_counter()
                try:
                    return fn(*a, **k)
                finally:
                    if "ev0" in marks and "first" not in marks:
                        spent[name] = spent.get(name, 0.0) + time.perf_counter() - t0
            setattr(owner, name, wrap)
            patched.append((owner, name, fn))

        for owner, name in ((km, "_kernels"), (km, "_pinned"), (km, "_views"), (km, "_chunks"),
                            (km, "_wave"), (km, "_graph"), (km, "shared_state"),
                            (am, "check_sources"), (am, "check_graph"), (am, "out_csr"),
                            (ab, "in_lists_cuda"), (cupy, "ascontiguousarray"),
                            (cupy, "empty"), (cupy.cuda.runtime, "memcpyAsync"),
                            (cupy.cuda, "get_current_stream"), (cupy, "zeros")):
            timed(owner, name)
    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        src = np.random.default_rng(args.seed).choice(np.flatnonzero(deg > 0), args.sources)
        bg.algorithms.msbfs(A, src)
        walls, pro, gpu = [], [], []
        for _ in range(args.calls):
            marks.clear()
            ev1 = cupy.cuda.Event()
            marks["ev0"] = cupy.cuda.Event()
            sync()
            t = time.perf_counter()
            while (time.perf_counter() - t) * 1e3 < args.spin:
                pass
            t = time.perf_counter()
            bg.algorithms.msbfs(A, src)
            ev1.record()
            walls.append((time.perf_counter() - t) * 1e3)
            ev1.synchronize()
            if "first" in marks:
                pro.append((marks["first"] - t) * 1e3)
                gpu.append(cupy.cuda.get_elapsed_time(marks["ev0"], ev1))
        med = statistics.median
        if spent:
            print("  prologue helpers, us a call: " + ", ".join(
                f"{k} {v / args.calls * 1e6:.1f}" for k, v in sorted(spent.items(),
                                                                   key=lambda x: -x[1])))
            spent.clear()
        print(f"{spec}: wall {med(walls):.3f} ms (best {min(walls):.3f}), prologue "
              f"{med(pro) if pro else float('nan'):.3f} ms, first graph to return "
              f"{med(gpu) if gpu else float('nan'):.3f} ms", flush=True)
        if args.profile:
            import cProfile
            import pstats

            marks.clear()
            pr = cProfile.Profile()
            pr.enable()
            for _ in range(args.calls):
                bg.algorithms.msbfs(A, src)
            pr.disable()
            pstats.Stats(pr).sort_stats("tottime").print_stats(30)
    km._graph = real_graph
    for owner, name, fn in patched:
        setattr(owner, name, fn)


if __name__ == "__main__":
    main()
