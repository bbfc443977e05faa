"""Edges an msbfs batch walks under two direction rules, counted on the CPU
from exact levels (no GPU): the joint rule (one direction for all sources:
bottom-up when the frontier's out-edges exceed alpha * m, the CPU kernel's)
against the per-source rule of the CUDA kernel (``kernels/cuda/msbfs.py``:
a source pulls when its own frontier has more than alpha * m out-edges,
all pull when the top-down union exceeds all_pull * m). Pulls read
in-lists ordered by out-degree and stop once every needed bit is set;
top-down edges count twice (a test and an atomic each).

    python benchmarks/sim_msbfs_directions.py kron:20 urand:20:32
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@njit(cache=True)
def _pull_cost(ip, ix, cur, seen, pull, n):
    # in-edges read by the pulls of one level for the sources in `pull`
    tot = 0
    for v in range(n):
        need = pull & ~seen[v]
        if need == 0:
            continue
        acc = np.uint64(0)
        e = ip[v]
        while e < ip[v + 1]:
            acc |= cur[ix[e]]
            e += 1
            if (acc & need) == need:
                break
        tot += e - ip[v]
    return tot


def simulate(spec, k=64, seed=1, alphas=(0.01, 0.02, 0.05, 0.1), all_pulls=(0.25, 1e18)):
    import bitgraph as bg
    from bitgraph.io.generators import from_spec

    A = from_spec(spec)
    ip = np.asarray(A.indptr, np.int64)
    ix = np.asarray(A.indices, np.int64)
    n, m = A.nrows, ix.size
    deg = np.diff(ip)
    src = np.random.default_rng(seed).choice(np.flatnonzero(deg > 0), k)
    lv = np.asarray(bg.algorithms.msbfs(A, src))
    # A' in-lists by out-degree, largest first (the graphs here are symmetric)
    ixd = ix[np.lexsort((-deg[ix], np.repeat(np.arange(n), deg)))]
    bit = np.uint64(1) << np.arange(k, dtype=np.uint64)
    rules = {("joint", a, None): [0, 0] for a in alphas}
    rules.update({("per source", a, p): [0, 0] for a in alphas for p in all_pulls})
    for level in range(lv.max() + 1):
        curm = lv == level
        cur = (curm.T.astype(np.uint64) * bit).sum(1).astype(np.uint64)
        seen = ((((lv >= 0) & (lv <= level)).T.astype(np.uint64)) * bit).sum(1).astype(np.uint64)
        mfb = curm.astype(np.int64) @ deg
        active = np.bitwise_or.reduce(cur)
        mf = int(deg[cur != 0].sum())
        for (name, alpha, all_pull), acc in rules.items():
            if name == "joint":
                if mf > alpha * m:
                    acc[1] += _pull_cost(ip, ixd, cur, seen, active, n)
                else:
                    acc[0] += mf
                continue
            pull = np.uint64(sum(int(bit[b]) for b in range(k) if mfb[b] > alpha * m))
            push = active & ~pull
            push_edges = int(deg[(cur & push) != 0].sum())
            if push_edges > all_pull * m:
                pull, push_edges = active, 0
            acc[0] += push_edges
            acc[1] += _pull_cost(ip, ixd, cur, seen, pull, n) if pull else 0
    print(f"## {spec}: n {n}, m {m}, {lv.max()} levels, {k} sources")
    print("| rule | alpha | all_pull | top-down M | bottom-up M | cost (2 td + bu) M |")
    print("|---|---:|---:|---:|---:|---:|")
    for (name, alpha, all_pull), (td, bu) in rules.items():
        print(f"| {name} | {alpha} | {'-' if all_pull is None else f'{all_pull:g}'} |"
              f" {td / 1e6:.1f} | {bu / 1e6:.1f} | {(2 * td + bu) / 1e6:.1f} |")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--sources", type=int, default=64)
    args = ap.parse_args(argv)
    for spec in args.graphs:
        simulate(spec, args.sources)


if __name__ == "__main__":
    main()
