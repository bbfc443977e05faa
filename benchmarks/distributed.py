"""Source batches over the GPUs of one host: whole-call time per number of
ranks, the speedup over the one-process call and the scaling efficiency.

    python benchmarks/distributed.py                       # N = 1 and 2, the default cases
    python benchmarks/distributed.py --ranks 1,2,4 --graph kron:22 --algo closeness
    python benchmarks/distributed.py --sources 4096 --repeat 3

The driver (this script without ``--worker``) re-launches itself under
``python -m bitgraph.distributed --nproc N`` for each N of ``--ranks``;
each rank builds the graph itself (a generator spec, on the GPU), warms
the kernels up on one batch, then times the whole call: a barrier (which
synchronizes the GPU), ``perf_counter``, the call, a barrier,
``perf_counter`` (``--repeat`` runs, the median). With N = 1 the plain
one-process call (``bitgraph.algorithms``) is timed too: the baseline of
the speedup. One run per case records the collectives the call made
(``Comm.recording``: bytes this rank sent and seconds, each between
synchronized devices, so that run is not among the timed ones).

Every line is one measurement, ``key=value`` fields:

    dist     algo graph n nnz sources ranks card seconds   (ranks=0: the one-process call)
    comm     algo graph ranks op calls bytes seconds       (what the call exchanged)
    check    algo graph ranks max_rel_diff                 (against the one-process answer)
    scaling  algo graph card ranks seconds speedup efficiency   (driver: over the one-process call)

Sources: ``--sources`` vertices drawn without replacement by
``numpy.random.default_rng(0)`` (the same on every rank); closeness of
those vertices, betweenness from them (``sources=``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRAPHS = ("kron:22", "grid:2048x2048:0.01")
ALGOS = ("closeness", "betweenness")


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", default="1,2", help="numbers of ranks, comma-separated (default 1,2)")
    p.add_argument("--graph", default=",".join(GRAPHS), help="generator specs, comma-separated")
    p.add_argument("--algo", default=",".join(ALGOS), help="closeness,betweenness")
    p.add_argument("--sources", type=int, default=4096, help="sources per call (default 4096)")
    p.add_argument("--repeat", type=int, default=3, help="timed calls per case (median)")
    p.add_argument("--no-check", action="store_true", help="skip the one-process answer check")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def driver(a, argv):
    times, cards = {}, {}
    for n in [int(x) for x in a.ranks.split(",")]:
        cmd = [sys.executable, "-m", "bitgraph.distributed", "--nproc", str(n), __file__,
               "--worker", *argv]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), os.environ.get("PYTHONPATH", "")])}
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for line in p.stdout:
            print(line, end="", flush=True)
            if line.startswith("dist "):
                f = fields(line)
                times[(f["algo"], f["graph"], int(f["ranks"]))] = float(f["seconds"])
                cards[(f["algo"], f["graph"])] = f["card"]
        if p.wait() != 0:
            print(f"# ranks={n}: exit status {p.returncode}", flush=True)
            return p.returncode
    for (algo, graph, n), t in sorted(times.items()):
        base = times.get((algo, graph, 0))
        if n == 0 or base is None:
            continue
        print(f"scaling algo={algo} graph={graph} card={cards[(algo, graph)]} ranks={n}"
              f" seconds={t:.4f} speedup={base / t:.3f} efficiency={base / t / n:.3f}", flush=True)
    return 0


def worker(a):
    import cupy
    import numpy as np

    import bitgraph as bg
    import bitgraph.algorithms as one
    import bitgraph.distributed as dist

    comm = dist.init()
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    card = props["name"].decode().replace(" ", "_")
    lead = comm.rank == 0

    def say(line):
        if lead:
            print(line, flush=True)

    calls = {"closeness": (dist.closeness_centrality, one.closeness_centrality),
             "betweenness": (dist.betweenness_centrality, one.betweenness_centrality)}
    for spec in a.graph.split(","):
        A = bg.io.generators.from_spec(spec, device="cuda")
        n = A.nrows
        src = np.random.default_rng(0).choice(n, min(a.sources, n), replace=False)
        for algo in a.algo.split(","):
            ours, ref = calls[algo]
            ours(comm, A, src[:64 * comm.size])  # warm-up: a batch a rank
            ts = []
            for _ in range(a.repeat):
                comm.barrier()  # synchronize! (every rank's GPU idle)
                t0 = time.perf_counter()
                out = ours(comm, A, src)
                comm.barrier()  # synchronize!
                ts.append(time.perf_counter() - t0)
            tag = f"algo={algo} graph={spec}"
            say(f"dist {tag} n={n} nnz={A.nvals} sources={src.size} ranks={comm.size}"
                f" card={card} seconds={statistics.median(ts):.4f}")
            with comm.recording() as log:
                ours(comm, A, src)
            per_op = {}
            for op, nbytes, sec in log:
                c, b, s = per_op.get(op, (0, 0, 0.0))
                per_op[op] = (c + 1, b + nbytes, s + sec)
            for op, (c, b, s) in sorted(per_op.items()):
                say(f"comm {tag} ranks={comm.size} op={op} calls={c} bytes={b} seconds={s:.6f}")
            if comm.size == 1:  # the one-process call: the baseline
                ref(A, src[:64])
                ts = []
                for _ in range(a.repeat):
                    cupy.cuda.get_current_stream().synchronize()  # synchronize!
                    t0 = time.perf_counter()
                    want = ref(A, src)
                    cupy.cuda.get_current_stream().synchronize()  # synchronize!
                    ts.append(time.perf_counter() - t0)
                say(f"dist {tag} n={n} nnz={A.nvals} sources={src.size} ranks=0"
                    f" card={card} seconds={statistics.median(ts):.4f}")
            elif not a.no_check:
                want = ref(A, src)
            if not a.no_check:
                o, w = cupy.asnumpy(out), cupy.asnumpy(want)
                diff = float(np.max(np.abs(o - w) / np.maximum(np.abs(w), 1e-300))) if o.size else 0.0
                say(f"check {tag} ranks={comm.size} max_rel_diff={diff:.3e}")
        del A
        cupy.get_default_memory_pool().free_all_blocks()
    comm.barrier()
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    return worker(a) if a.worker else driver(a, argv)


if __name__ == "__main__":
    sys.exit(main())
