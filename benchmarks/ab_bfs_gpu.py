"""Single-source BFS on the GPU: variants of the direction rule's
constants (or any module constant) timed interleaved, a new order each
round, on the same sources.

    python3 benchmarks/ab_bfs_gpu.py kron:22 urand:21:32 --set "" bfs.BETA_CUDA=0 \\
        bfs.BETA_CUDA=0,bfs.DEAD_VISITED=0 --methods direction --rounds 3

A variant is ``MOD.NAME=VALUE[,MOD.NAME=VALUE]`` with MOD ``bfs``
(``bitgraph.algorithms.bfs``) or ``kb`` (``bitgraph.kernels.cuda.bfs_bvss``);
the defaults are restored before each. Per graph, method and variant: the
mean over the sources of the kernel time (``kb.STATS["kernel_ms"]``:
events with the host's launch overhead gated out), of the kernel's own
span (its globaltimer, entry to exit), and of the same events without the
gate (``kb.GATED = False``, as measured before 2026-11-25: the host's work
between the start event and the launch included), each the median over
the rounds; every level array is checked equal to the first variant's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _variant(text):
    out = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        mod, _, attr = name.strip().partition(".")
        out[(mod, attr)] = float(value) if any(c in value for c in ".en") else int(value)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--set", nargs="*", default=[""], help="variants: MOD.NAME=VALUE[,...]")
    ap.add_argument("--methods", default="direction")
    ap.add_argument("--sources", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    import cupy

    import bitgraph as bg
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels.cuda import bfs_bvss as kb

    mods = {"bfs": sys.modules["bitgraph.algorithms.bfs"], "kb": kb}
    variants = [_variant(v) for v in args.set]
    defaults = {key: getattr(mods[key[0]], key[1]) for v in variants for key in v}

    def apply(v):
        for (mod, attr), value in {**defaults, **v}.items():
            setattr(mods[mod], attr, value)

    def run(A, s, method, gated):
        kb.STATS, kb.GATED = {}, gated
        lv = bg.algorithms.bfs(A, int(s), method=method)
        st, kb.STATS, kb.GATED = kb.STATS, None, True
        return lv, st

    for spec in args.graphs:
        A = from_spec(spec, device="cuda")
        deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
        src = np.random.default_rng(args.seed).choice(np.flatnonzero(deg > 0), args.sources,
                                                       replace=False)
        print(f"## {spec}: n = {A.nrows:,}, nvals = {A.nvals:,}, {args.sources} sources,"
              f" {args.rounds} rounds")
        print("| method | variant | kernel ms | span ms | ungated ms | levels | modes |")
        print("|---|---|---:|---:|---:|---:|---|")
        order = np.random.default_rng(args.seed + 1)
        for method in args.methods.split(","):
            ref = {}
            times = [{"kernel": [], "span": [], "ungated": []} for _ in variants]
            modes = [None] * len(variants)
            for v in variants:  # builds, compiles
                apply(v)
                run(A, src[0], method, True)
            for _ in range(args.rounds):
                for i in order.permutation(len(variants)):
                    apply(variants[i])
                    k, sp, ug, lvls, md = [], [], [], [], {}
                    for s in src:
                        lv, st = run(A, s, method, True)
                        got = lv.to_dense(-1)
                        if int(s) in ref:
                            if not bool((got == ref[int(s)]).all()):
                                sys.exit(f"{spec} {method} {args.set[i]!r} source {s}: levels"
                                         " differ from the first variant's")
                        else:
                            ref[int(s)] = got
                        k.append(st["kernel_ms"])
                        sp.append(st["span_ms"])
                        lvls.append(st["levels"])
                        for m in st["modes"]:
                            md[m] = md.get(m, 0) + 1
                        ug.append(run(A, s, method, False)[1]["kernel_ms"])
                    times[i]["kernel"].append(np.mean(k))
                    times[i]["span"].append(np.mean(sp))
                    times[i]["ungated"].append(np.mean(ug))
                    modes[i] = (np.mean(lvls), md)
            for i, v in enumerate(args.set):
                t = {key: statistics.median(x) for key, x in times[i].items()}
                md = ", ".join(f"{m} {c / args.sources:.2f}" for m, c in modes[i][1].items())
                print(f"| {method} | {v or 'defaults'} | {t['kernel']:.3f} | {t['span']:.3f} |"
                      f" {t['ungated']:.3f} | {modes[i][0]:.1f} | {md} |")
        apply({})
        del A
        cupy.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
