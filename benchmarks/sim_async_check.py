"""The atomicMins a side-by-side batch's level check (``bfs_async``
``BATCH_CHECK``) leaves, counted on the CPU in exact BFS (FIFO) order: an
edge sends its atomic only when its head's level is above the tail's
level + 1 at that moment. The GPU's order is looser (items relax
concurrently), so this is the check's best case.

    python benchmarks/sim_async_check.py grid:2048x2048:0.01 grid:161x161x161:0.0
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@njit(cache=True)
def _fifo(ip, ix, s, n):
    # (edges relaxed, atomics the check sends) of one BFS from s
    lv = np.full(n, -1, np.int64)
    lv[s] = 0
    q = np.empty(n, np.int64)
    q[0] = s
    h, t = 0, 1
    edges = sent = 0
    while h < t:
        v = q[h]
        h += 1
        d = lv[v]
        for e in range(ip[v], ip[v + 1]):
            w = ix[e]
            edges += 1
            if lv[w] < 0 or lv[w] > d + 1:
                sent += 1
                if lv[w] < 0:
                    lv[w] = d + 1
                    q[t] = w
                    t += 1
    return edges, sent


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--sources", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    from bitgraph.algorithms._common import out_csr
    from bitgraph.io.generators import from_spec

    print("| graph | edges relaxed | atomics with the check | share |")
    print("|---|---:|---:|---:|")
    for spec in args.graphs:
        A = from_spec(spec)
        a = out_csr(A)
        ip = np.asarray(a.indptr, np.int64)
        ix = np.asarray(a.indices, np.int64)
        rng = np.random.default_rng(args.seed)
        edges = sent = 0
        for s in rng.integers(0, A.nrows, args.sources):
            e, k = _fifo(ip, ix, int(s), A.nrows)
            edges, sent = edges + e, sent + k
        print(f"| {spec} | {edges:,} | {sent:,} | {sent / max(edges, 1):.3f} |")


if __name__ == "__main__":
    main()
