"""How much a 64-source msbfs batch shares, counted on the CPU from exact
levels (no GPU): the joint levels (the batch's traversal length), the
vertex visits (a vertex is in the joint frontier once per distinct level at
which some source reaches it), the sharing (source-vertex pairs reached per
visit: 64 sources that always arrived together would give 64), the
top-down edges (each visit walks the vertex's out-edges once) and the
summed levels of the 64 single BFSs.

On a mesh with random sources the sharing is ~1: the batch walks the same
edges as the singles, and gains only by running the singles' levels
together (fewer, fuller levels):

    python benchmarks/sim_msbfs_sharing.py grid:2048x2048:0.01 grid:161x161x161:0.0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def sharing(spec, k=64, seed=1):
    """The counts above for one graph spec, as a dict."""
    import bitgraph as bg
    from bitgraph.io.generators import from_spec

    A = from_spec(spec)
    ip = np.asarray(A.indptr, np.int64)
    n, m = A.nrows, int(ip[-1])
    deg = np.diff(ip)
    src = np.random.default_rng(seed).choice(np.flatnonzero(deg > 0), k)
    lv = np.asarray(bg.algorithms.msbfs(A, src))  # (k, n), -1 unreached
    s = np.sort(lv.T, axis=1)
    new = np.ones(s.shape, bool)
    new[:, 1:] = s[:, 1:] != s[:, :-1]
    new &= s >= 0
    distinct = new.sum(1)  # per vertex: its visits
    visits = int(distinct.sum())
    ecc = lv.max(1)
    queue = np.bincount(s[new], minlength=int(lv.max()) + 1)
    return dict(n=n, m=m, joint_levels=int(lv.max()) + 1, visits=visits,
                sharing=int((lv >= 0).sum()) / max(visits, 1),
                top_down_edges=int((distinct * deg).sum()), single_levels=int((ecc + 1).sum()),
                queue_mean=float(queue.mean()), queue_max=int(queue.max()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    print("| graph | n | m | joint levels | singles' levels | visits / n | sharing |"
          " top-down edges / m | queue mean | queue max | s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for spec in args.graphs:
        t = time.perf_counter()
        r = sharing(spec, args.sources, args.seed)
        print(f"| {spec} | {r['n']:,} | {r['m']:,} | {r['joint_levels']:,} |"
              f" {r['single_levels']:,} | {r['visits'] / r['n']:.1f} | {r['sharing']:.2f} |"
              f" {r['top_down_edges'] / r['m']:.1f} |"
              f" {r['queue_mean']:,.0f} | {r['queue_max']:,} | {time.perf_counter() - t:.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
