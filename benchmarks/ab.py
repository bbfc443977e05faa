"""A/B over the settings: one case of the suite under two or more settings variants.

    python benchmarks/ab.py --algo bfs --graph kron:16 "" bfs.alpha=0.1 bfs.alpha=0.05
    python benchmarks/ab.py --device cuda --algo msbfs --graph grid:2048x2048:0.01 \\
        "" bfs_async.batch_warps_per_sm=8 "bfs_async.batch_check=False,bfs_async.batch_warps_per_sm=16"

A variant is ``""`` (the defaults) or comma-separated ``family.field=value``
changes (``python -m bitgraph.kernels --settings`` lists every family and
field; a value is a Python literal, else a string), applied with
``bitgraph.settings.use(...)`` around the call. The variants run
interleaved, ``--rounds`` times (round r runs every variant once, in
turn, so the machine's drift hits them alike); a variant's time per round
is the case's time (``run.py``: the median of ``--repeat`` calls after a
warm-up, the mean over the sources), and the table gives the median and
the best over the rounds and the ratio to the first variant. Every
variant's answers are checked equal to the first's (exit status 1 if not).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run  # noqa: E402  (benchmarks/run.py: cases, graphs, clock, checks)


def parse_variant(text):
    """``"bfs.alpha=0.1,bfs.beta=0"`` -> ``{"bfs": {"alpha": 0.1, "beta": 0}}``.

    >>> parse_variant("bfs_cuda.alpha=0.1,bfs_cuda.force_mma=None,msbfs_cuda.schedule=coop")
    {'bfs_cuda': {'alpha': 0.1, 'force_mma': None}, 'msbfs_cuda': {'schedule': 'coop'}}
    >>> parse_variant("")
    {}
    """
    changes = {}
    for item in filter(None, (x.strip() for x in text.split(","))):
        name, sep, value = item.partition("=")
        family, dot, field = name.strip().partition(".")
        if not (sep and dot and family and field):
            raise SystemExit(f"ab.py: a change is family.field=value, got {item!r}")
        try:
            value = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            value = value.strip()
        changes.setdefault(family, {})[field] = value
    return changes


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("variants", nargs="+", help='"" for the defaults, or family.field=value,...')
    p.add_argument("--algo", required=True, help=", ".join(run.ALGOS))
    p.add_argument("--graph", required=True, help="a generator spec or a file")
    p.add_argument("--method", default=None, help="default: the first method of the algorithm's"
                                                  " cases on that device")
    p.add_argument("--device", default="cpu")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--repeat", type=int, default=None)
    args = p.parse_args(argv)

    import bitgraph as bg

    if args.algo not in run.ALGOS:
        raise SystemExit(f"ab.py: unknown --algo {args.algo!r}; algorithms: {', '.join(run.ALGOS)}")
    method = args.method or next((c.method for c in run.CASES if c.algo == args.algo
                                  and c.device == args.device), "auto")
    changes = [parse_variant(v) for v in args.variants]
    for ch in changes:  # an unknown family or field fails here, before anything runs
        with bg.settings.use(**ch):
            pass
    case = run.Case(args.algo, method, args.graph, args.device)
    algo = run.ALGOS[args.algo]
    g = run.Graph(args.graph, args.device)
    clock = run.Clock(args.device)
    inputs = algo.inputs(g, case)
    repeat = args.repeat or run.REPEAT[args.device]
    print(f"# {args.algo} {method} on {args.graph} ({args.device}, {run.card(args.device)}), "
          f"n = {g.n:,}, stored entries = {g.nvals:,}; {args.rounds} rounds, commit "
          f"{run.commit()}", flush=True)
    times = [[] for _ in changes]
    answers = [None] * len(changes)
    problems = []
    for r in range(args.rounds):
        for i, ch in enumerate(changes):
            with bg.settings.use(**ch):
                t, results = clock.calls(lambda inp: algo.call(g, method, inp), inputs, repeat)
            times[i].append(t * 1e3)
            if answers[i] is None:
                answers[i] = [algo.answer(x) for x in results]
                if i:
                    for k, (a, b) in enumerate(zip(answers[i], answers[0])):
                        why = algo.check(a, b)
                        if why:
                            problems.append(f"{args.variants[i]!r} (input {k}): {why}")
            del results
        print(f"round {r + 1}: " + ", ".join(f"{run._fmt(ts[-1])}" for ts in times), flush=True)
    base = statistics.median(times[0])
    print("\n| variant | median ms | best ms | x first |")
    print("|---|---:|---:|---:|")
    for v, ts in zip(args.variants, times):
        med = statistics.median(ts)
        print(f"| {v or '(defaults)'} | {run._fmt(med)} | {run._fmt(min(ts))} | {base / med:.3f} |")
    for why in problems:
        print(f"MISMATCH: {why}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
