"""Reordering benchmark: time and quality of each method of
bitgraph.formats.reorder on generated graphs.

    python benchmarks/bench_reorder.py                       # kron 16, 18; grid 512
    python benchmarks/bench_reorder.py --kron 18 19 --grid 1024 --cold

Graphs: Graph500-style kron (R-MAT a=0.57, b=c=0.19, edge factor 16,
symmetrised, no self-loops, random labels: ``bitgraph.__main__.kron_edges``)
and a 2-D grid (4-neighbour mesh, row-major labels, then randomly relabelled
so that the orderings have something to do).

For each graph and method it prints the seconds of one call (the first call
of a method in the process includes numba's compile or cache load: with
``--cold`` the numba cache goes to a fresh temporary directory, so that time
is a cold compile; the separate "compile" row is the first call on a 2-vertex
graph), and the quality of the order:

- ``bandwidth``: max |i - j| over the stored entries of P A P';
- ``compression``: Blest's effective compression ratio of sigma-column
  slices, nnz / (non-empty slices * sigma), slices = distinct (row, col //
  sigma) pairs.

The output is a Markdown table to paste into benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def grid_edges(k: int, seed: int = 0):
    """A k x k 4-neighbour grid, both directions, labels randomly permuted."""
    idx = np.arange(k * k, dtype=np.int64).reshape(k, k)
    r = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    c = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    lab = np.random.default_rng(seed).permutation(k * k)
    return k * k, lab[np.r_[r, c]], lab[np.r_[c, r]]


def quality(A, sigma: int):
    n = A.nrows
    if A.nnz == 0:
        return 0, 0.0
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
    cols = A.indices.astype(np.int64)
    bandwidth = int(np.abs(rows - cols).max())
    nblocks = (n + sigma - 1) // sigma
    slices = np.unique(rows * nblocks + cols // sigma).shape[0]
    return bandwidth, A.nnz / (slices * sigma)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kron", type=int, nargs="*", default=[16, 18], help="kron scales")
    p.add_argument("--grid", type=int, nargs="*", default=[512], help="grid sides")
    p.add_argument("--methods", nargs="*", default=["none", "rcm", "degree", "gorder", "jaccard", "blest"])
    p.add_argument("--sigma", type=int, default=8)
    p.add_argument("--window", type=int, default=65536, help="Jaccard window (a multiple of sigma)")
    p.add_argument("--cold", action="store_true", help="numba cache in a fresh temporary directory")
    args = p.parse_args()

    if args.cold:
        os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bitgraph-numba-")
    try:
        import bitgraph  # noqa: F401
    except ImportError:  # run from a checkout without installing
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bitgraph.__main__ import kron_edges
    from bitgraph.formats import reorder as R
    from bitgraph.formats.csr import from_coo

    print(f"<!-- {platform.machine()}, {os.cpu_count()} cpus, python {platform.python_version()}, "
          f"numba cache {'cold (temporary dir)' if args.cold else 'default'} -->")
    t0 = time.perf_counter()
    tiny = from_coo(np.array([0, 1]), np.array([1, 0]), None, 2, 2)
    for m in args.methods:
        R.reorder(tiny, m)
    print(f"compile (or cache load) of every method on a 2-vertex graph: {time.perf_counter() - t0:.2f} s\n")

    graphs = [(f"kron:{s}", lambda s=s: kron_edges(s)) for s in args.kron]
    graphs += [(f"grid:{k}x{k}", lambda k=k: grid_edges(k)) for k in args.grid]
    print("| graph | n | stored entries | social-like | method | seconds | bandwidth | compression |")
    print("|---|---|---|---|---|---|---|---|")
    for name, make in graphs:
        n, src, dst = make()
        A = from_coo(src, dst, None, n, n)
        social = R.is_social_like(A)
        for m in args.methods:
            kw = {"sigma": args.sigma, "window": args.window} if m in ("jaccard", "blest") else {}
            t = time.perf_counter()
            perm = R.reorder(A, m, **kw)
            dt = time.perf_counter() - t
            bw, comp = quality(R.permute(A, perm), args.sigma)
            print(f"| {name} | {n:,} | {A.nnz:,} | {social} | {m} | {dt:.2f} | {bw:,} | {comp:.3f} |", flush=True)


if __name__ == "__main__":
    main()
