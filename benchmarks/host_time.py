"""Host time of a GPU call: how long Python holds the caller before the
call returns, with the GPU idle and nothing queued (issue: "a whole call
close to its kernel"). For each graph and call it prints the median host
time (perf_counter around the call, no synchronisation after it), the
whole call (CUDA events around the call, then a synchronise) and the
kernel time the call reports, then the call's host profile (cProfile over
``--profile`` calls, the functions with the most own time).

    python benchmarks/host_time.py --graph kron:22 --graph urand:21:32 --call bfs --call cc \
        --profile 200

The issue's target: a bfs call (auto: direction on both graphs) and a cc
call at most 15 us of host time, the first call of a graph (which prepares
its launch) left out: each call is run 3 times before the timing.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time

import numpy as np


def _calls(A, source):
    import bitgraph as bg
    from bitgraph.algorithms import breadth_first, components, link_analysis, shortest_paths

    return {
        "bfs": lambda st: breadth_first.bfs(A, source, stats=st),
        "bfs-parents": lambda st: breadth_first.bfs(A, source, parents=True, stats=st),
        "bfs-push": lambda st: breadth_first.bfs(A, source, method="push", stats=st),
        "bfs-blest": lambda st: breadth_first.bfs(A, source, method="blest", stats=st),
        "cc": lambda st: components.connected_components(A, stats=st),
        "ncc": lambda st: components.number_connected_components(A),
        "sssp": lambda st: shortest_paths.sssp(A, source, stats=st),
        "pagerank": lambda st: link_analysis.pagerank(A, stats=st),
        "mxv": lambda st: A.T.mxv(bg.Vector.from_coo([source], [True], size=A.nrows,
                                                     device="cuda"),
                                  semiring=bg.LOR_LAND),
    }


def main(argv=None):
    import cupy

    import bitgraph as bg
    from bitgraph.io import generators

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", action="append", required=True, help="generator spec (repeat)")
    p.add_argument("--call", action="append", required=True,
                   help="bfs, bfs-parents, bfs-push, bfs-blest, cc, ncc, sssp, pagerank, mxv"
                        " (repeat)")
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--profile", type=int, default=0, help="calls under cProfile (0: none)")
    p.add_argument("--top", type=int, default=25)
    a = p.parse_args(argv)
    sync = cupy.cuda.Device().synchronize
    for spec in a.graph:
        A = generators.from_spec(spec).to("cuda")
        deg = np.diff(A.to("cpu")._csr().indptr)
        source = int(np.argmax(deg))
        calls = _calls(A, source)
        for name in a.call:
            f = calls[name]
            for _ in range(3):
                f(None)
            sync()
            host, whole, kern = [], [], []
            for _ in range(a.repeat):
                sync()
                t0 = time.perf_counter()
                f(None)
                host.append((time.perf_counter() - t0) * 1e6)
                sync()
                e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                e0.record()
                f(None)  # no stats: a call with stats= may synchronise to read its counters
                e1.record()
                e1.synchronize()
                whole.append(cupy.cuda.get_elapsed_time(e0, e1))
                st = bg.Stats()
                f(st)
                sync()
                kern.append(st.metrics.get("kernel_ms", float("nan")))
            print(f"{spec} {name}: host {statistics.median(host):.1f} us (min {min(host):.1f}),"
                  f" whole {statistics.median(whole):.4f} ms, kernel"
                  f" {statistics.median(kern):.4f} ms", flush=True)
            if a.profile:
                prof = cProfile.Profile()
                sync()
                prof.enable()
                for _ in range(a.profile):
                    f(None)
                prof.disable()
                sync()
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(a.top)
                print(s.getvalue(), flush=True)


if __name__ == "__main__":
    main()
