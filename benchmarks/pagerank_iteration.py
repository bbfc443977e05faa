"""CPU PageRank per iteration beside gapbs's ``pr_spmv`` and ``pr``, in interleaved rounds.

    python benchmarks/pagerank_iteration.py --graph kron:20,urand:20,grid:1024x1024 \\
        --anchors anchors --rounds 6

A side's time per iteration is (its time for 31 iterations - its time for 1) / 30 at
tolerance 0, so the fixed cost of a call (allocation, the start, a thread's wake-up) drops
out. Ours: the public ``pagerank`` call with float64 and with float32 ranks, the best of
``--repeat`` calls each. gapbs: its best trial of ``--repeat`` (``-n``) for ``-i 31 -t 0``
minus that for ``-i 1``, on the graph file ``run.py`` writes for its gapbs anchors, with
``OMP_NUM_THREADS`` set to bitgraph's thread count. A round times every side once, in turn,
so that a machine's drift hits them alike; the table gives each side's best and median over
the rounds and the best of ours over the best of ``pr_spmv`` (the same power iteration as
ours and networkx's; ``pr`` is Gauss-Seidel: fewer iterations to the same L1 rule, other
ranks). The issue's rule for PageRank on the CPU is per iteration, so the whole run's
iteration count (``run.py``'s rows) does not enter here.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (benchmarks/run.py: graphs, the anchors' graph files)

LONG, SHORT = 31, 1  # iterations of the two timed runs


def per_iteration(long_s: float, short_s: float) -> float:
    """Milliseconds an iteration from the times of the two runs.

    >>> round(per_iteration(0.031, 0.001), 6)
    1.0
    """
    return (long_s - short_s) / (LONG - SHORT) * 1e3


def best_trial(output: str) -> float:
    """The least of gapbs's ``Trial Time:`` lines (seconds).

    >>> best_trial("Trial Time:          0.0125\\nTrial Time:          0.0121\\n")
    0.0121
    """
    times = [float(t) for t in re.findall(r"Trial Time:\s+([0-9.eE+-]+)", output)]
    if not times:
        raise SystemExit(f"pagerank_iteration.py: no trial time in gapbs's output:\n{output}")
    return min(times)


def ours(A, dtype, iterations, repeat):
    import bitgraph as bg

    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        bg.algorithms.pagerank(A, tol=0.0, max_iter=iterations, dtype=dtype)
        best = min(best, time.perf_counter() - t0)
    return best


def gapbs(binary, path, iterations, repeat, threads):
    out = subprocess.run([str(binary), "-f", str(path), "-n", str(repeat), "-i", str(iterations),
                          "-t", "0"], capture_output=True, text=True, check=True,
                         env={**os.environ, "OMP_NUM_THREADS": str(threads)}).stdout
    return best_trial(out)


def main(argv=None) -> int:
    from bitgraph.kernels.cpu import num_threads

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", default="kron:20,urand:20,grid:1024x1024",
                   help="comma-separated generator specs")
    p.add_argument("--anchors", default=os.environ.get("BITGRAPH_ANCHORS"),
                   help="the folder holding gapbs/pr and gapbs/pr_spmv (run.py's --anchors)")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    if not a.anchors:
        raise SystemExit("pagerank_iteration.py: --anchors (or $BITGRAPH_ANCHORS) names the"
                         " folder with gapbs built in it")
    folder = Path(a.anchors)
    binaries = {name: folder / "gapbs" / name for name in ("pr_spmv", "pr")}
    for name, path in binaries.items():
        if not path.exists():
            raise SystemExit(f"pagerank_iteration.py: {path} is missing (build gapbs there)")
    threads = num_threads()
    sides = ("ours f64", "ours f32", "gapbs pr_spmv", "gapbs pr")
    print(f"# {threads} threads, {a.rounds} rounds; ms an iteration ({LONG} minus {SHORT},"
          f" over {LONG - SHORT})", flush=True)
    print("| graph | " + " | ".join(f"{s} best / median" for s in sides) + " | ours x pr_spmv |")
    print("|---|" + "---|" * (len(sides) + 1))
    for spec in a.graph.split(","):
        g = run.Graph(spec, "cpu")
        path = run._write_graph(g, "el", folder)
        ours(g.A, np.float64, 2, 1)  # compiled and cached before the rounds
        got = {s: [] for s in sides}
        for _ in range(a.rounds):
            for dtype, side in ((np.float64, "ours f64"), (np.float32, "ours f32")):
                got[side].append(per_iteration(ours(g.A, dtype, LONG, a.repeat),
                                               ours(g.A, dtype, SHORT, a.repeat)))
            for name in ("pr_spmv", "pr"):
                got[f"gapbs {name}"].append(per_iteration(
                    gapbs(binaries[name], path, LONG, a.repeat, threads),
                    gapbs(binaries[name], path, SHORT, a.repeat, threads)))
        cells = [f"{min(v):.3f} / {statistics.median(v):.3f}" for v in got.values()]
        x = min(got["gapbs pr_spmv"]) / min(min(got["ours f64"]), min(got["ours f32"]))
        print(f"| {spec} | " + " | ".join(cells) + f" | {x:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
