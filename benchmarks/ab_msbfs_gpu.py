"""msbfs on the GPU against 64 single BFSs run back to back, and variants of
the launcher's constants timed interleaved (A/B in the same rounds, in a
new order each round, so that the drift of a lent machine hits every
variant alike).

    python3 benchmarks/ab_msbfs_gpu.py kron:22 urand:22
    python3 benchmarks/ab_msbfs_gpu.py kron:22 --set LEAD=3 LEAD=2 ALPHA=0.01

Each variant is ``NAME=VALUE[,NAME=VALUE]`` over ``kernels.cuda.msbfs``'s
constants, or ``alg.NAME`` over ``algorithms.msbfs``'s (``alg.CUDA_COOP=0``:
the level kernels; ``alg.CUDA_COOP=async``: the BFSs side by side), or
``ka.NAME`` over ``kernels.cuda.bfs_async``'s (``ka.PREFETCH_ROWS=0``); the
defaults are restored before each. Per graph: the median
and best of ``--rounds`` msbfs calls (64 sources, levels written) per
variant (every variant's levels checked equal to the first's; for the
asynchronous one, its items per vertex and source and whether it gave up),
and the median of a loop of the same 64 ``bfs`` calls with one
synchronisation at its end (every ``--every`` rounds): a loop lets a call's
host work overlap the previous call's kernels, unlike
``bench_bfs_gpu.py``, which times each single call alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _variant(text):
    out = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        out[name.strip()] = None if value == "None" else _number(value)
    return out


def _number(text):
    # an int, a float, or the text itself (alg.CUDA_COOP=async)
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def where(name):
    """The module and attribute a variant's NAME sets: alg.NAME
    (algorithms.msbfs), ka.NAME (kernels.cuda.bfs_async), else
    kernels.cuda.msbfs."""
    import bitgraph  # noqa: F401  (algorithms.msbfs is shadowed by the function)
    from bitgraph.kernels.cuda import bfs_async as ka
    from bitgraph.kernels.cuda import msbfs as km

    if name.startswith("alg."):
        return sys.modules["bitgraph.algorithms.msbfs"], name[4:]
    return (ka, name[3:]) if name.startswith("ka.") else (km, name)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--set", nargs="*", default=[""], help="variants: NAME=VALUE[,NAME=VALUE]")
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--every", type=int, default=3, help="rounds between loops of singles")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    import cupy

    import bitgraph as bg
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import bfs_async as ka

    variants = [_variant(v) for v in args.set]
    defaults = {name: getattr(*where(name)) for v in variants for name in v}
    sync = cupy.cuda.Device().synchronize

    def apply(v):
        for name, value in {**defaults, **v}.items():
            setattr(*where(name), value)

    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        src = np.random.default_rng(args.seed).choice(np.flatnonzero(deg > 0), args.sources)
        first = None
        notes = []
        for text, v in zip(args.set, variants):  # builds, compiles; results checked equal
            apply(v)
            ka.STATS = {}
            got = bg.algorithms.msbfs(A, src)
            if ka.STATS:  # the asynchronous traversal ran (its last batch)
                per = ka.STATS["appended"] / A.nrows / ka.STATS["sources"]
                notes.append(f"  {text or 'defaults':28s} async: {per:.2f} items per vertex"
                             f" and source, kernel {ka.STATS['kernel_ms']:.2f} ms,"
                             f" {'gave up' if ka.STATS['gave_up'] else 'done'}")
            ka.STATS = None
            if first is None:
                first = got
            elif not bool(cupy.array_equal(got, first)):
                sys.exit(f"{spec} {text!r}: levels differ from the first variant's")
        del first, got
        bg.algorithms.bfs(A, int(src[0]))
        times = [[] for _ in variants]
        singles = []
        order = np.random.default_rng(args.seed + 1)
        for r in range(args.rounds):
            # a new order each round: the first call after the singles' loop
            # is slower, and no variant should always take that place
            for i in order.permutation(len(variants)):
                v = variants[i]
                apply(v)
                sync()
                t = time.perf_counter()
                bg.algorithms.msbfs(A, src)
                sync()
                times[i].append((time.perf_counter() - t) * 1e3)
            if r % args.every == 0:
                sync()
                t = time.perf_counter()
                for s in src:
                    bg.algorithms.bfs(A, int(s))
                sync()
                singles.append((time.perf_counter() - t) * 1e3)
        apply({})
        loop = statistics.median(singles)
        print(f"## {spec}: {len(src)} singles in a loop: median {loop:.2f} ms"
              f" (best {min(singles):.2f})")
        for v, ts in zip(args.set, times):
            m = statistics.median(ts)
            print(f"  {v or 'defaults':28s} msbfs median {m:.3f} ms, best {min(ts):.3f}:"
                  f" x{loop / m:.2f} the loop")
        print("\n".join(notes))
        del A
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
