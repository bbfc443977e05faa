"""Exact betweenness of every source of a graph, over the GPUs of one job,
in parts that fit a time limit; the one-GPU time is the sum of the ranks'
busy seconds.

    python -m bitgraph.distributed --nproc 4 benchmarks/exact_betweenness.py \\
        --graph kron:22 --out DIR --check --deadline 330          # part 1: from round 0
    python -m bitgraph.distributed --nproc 4 benchmarks/exact_betweenness.py \\
        --graph kron:22 --out DIR --start R                       # R: part 1's rounds
    python benchmarks/exact_betweenness.py --combine DIR [DIR...]  # sum, check, scale

The call is ``bitgraph.distributed.betweenness_centrality(comm, A)`` cut
into parts. The sources with out-edges, in the one-process call's batch
order (``betweenness.batch_order``, grouped by hub), are cut into batches of
64. Batch j goes to a rank as the distributed call deals it
(``batch_deal``), and each rank runs its batches in chunks of ``--rounds``
through the one-process call's own step (``betweenness._vertex_sums``).

A part stops after the chunk during which ``--deadline`` seconds have
passed (every rank decides alike, by a collective). The ranks' raw sums are
then added on rank 0 and saved in ``--out`` with the part's progress:
``raw-START-I.npy`` in pieces of at most 12 MiB, and ``part-START.json``.

The chunks share nothing, so the sum of the ranks' busy seconds is what one
GPU takes for the whole call. Each chunk is timed with the GPU synchronized
before and after. The graph's build is not timed.

``--check`` (part 1) adds the right side of the all-pairs identity:

    sum over v of Brandes' raw sums
        = sum over sources s of sum over t != s reached from s (d(s, t) - 1)

The distances come from msbfs's per-source level sums and counts, the
sources split over the ranks. ``--combine`` checks that the parts chain from
round 0 to the last, sums them, compares the sum with that identity, and
prints one ``exact`` line.

``--device cpu --ranks N`` runs the same on the CPU, ranks as threads
(``LocalGroup``): the tests' small case.

Lines (``key=value``):

    part   graph n nnz sources batches ranks card start rounds_done rounds busy_seconds
           wall_seconds pool_bytes
    check  graph rhs seconds
    exact  graph n nnz sources batches ranks card one_gpu_seconds wall_seconds
           pool_bytes_max sum_raw rhs rel_diff top
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

PIECE_BYTES = 12 << 20  # a raw-sums piece: under the device tool's 16 MiB a file


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", default="kron:22", help="a generator spec (default kron:22)")
    p.add_argument("--out", help="folder of the parts (raw sums and progress)")
    p.add_argument("--start", type=int, default=0, help="the round to start at (default 0)")
    p.add_argument("--deadline", type=float, default=math.inf,
                   help="seconds after which the part stops, at the end of a chunk")
    p.add_argument("--rounds", type=int, default=48, help="batches a rank per chunk (48)")
    p.add_argument("--check", action="store_true", help="the all-pairs identity's right side")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"))
    p.add_argument("--ranks", type=int, default=2, help="--device cpu: ranks as threads")
    p.add_argument("--combine", nargs="+", metavar="DIR", help="sum and check the parts")
    return p.parse_args(argv)


def _sync(device):
    if device == "cuda":
        import cupy

        cupy.cuda.get_current_stream().synchronize()  # synchronize!


def _pool_bytes(device):
    if device != "cuda":
        return 0
    import cupy

    return int(cupy.get_default_memory_pool().total_bytes())


def _card(device):
    if device != "cuda":
        return "cpu"
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    return props["name"].decode().replace(" ", "_")


def part(comm, a):
    """One part on this rank (every rank calls it): returns rank 0's lines."""
    import numpy as np

    import bitgraph as bg
    from bitgraph.algorithms import betweenness as B
    from bitgraph.algorithms._common import is_symmetric
    from bitgraph.algorithms.multi_source import _run_batches
    from bitgraph.algorithms.multi_source import batch_order as hop_order
    from bitgraph.device import host
    from bitgraph.distributed.batches import batch_deal

    device, lines, rhs = comm.device, [], None
    A = bg.io.generators.from_spec(a.graph, device=device)
    n = A.nrows
    src = np.arange(n, dtype=np.int64)
    order = B.batch_order(A, src)  # the sources with out-edges, in the call's batch order
    nb = -(-int(order.size) // 64)
    mine = batch_deal(nb, comm.size, comm.rank, 1)  # this rank's batch numbers
    tag = (f"graph={a.graph} n={n} nnz={A.nvals} sources={order.size} batches={nb}"
           f" ranks={comm.size} card={_card(device)}")
    if a.check:
        t0 = time.perf_counter()
        hop = src[hop_order(A, src)]
        cut = np.array_split(np.arange(-(-hop.size // 64)), comm.size)[comm.rank]
        s = hop[cut[0] * 64:(cut[-1] + 1) * 64] if cut.size else hop[:0]
        count, total, _ = _run_batches(A, s, np.arange(s.size), 64)
        pairs = np.array([int((total - (count - 1)).sum())], np.int64)
        rhs = int(host(comm.allreduce(pairs))[0])
        lines.append(f"check graph={a.graph} rhs={rhs}"
                     f" seconds={time.perf_counter() - t0:.1f}")
    xp = np if device == "cpu" else __import__("cupy")
    acc = xp.zeros(n, np.float64)
    busy, done, t_start = 0.0, int(a.start), time.perf_counter()
    while True:
        lo, hi = done, min(done + a.rounds, int(mine.size))
        share = (np.concatenate([order[j * 64:(j + 1) * 64] for j in mine[lo:hi]])
                 if hi > lo else order[:0])
        _sync(device)
        t0 = time.perf_counter()
        if share.size:
            acc += B._vertex_sums(A, None, share, endpoints=False)
        _sync(device)
        busy += time.perf_counter() - t0
        done = max(done, hi)
        left = np.array([max(0, int(mine.size) - done)], np.int64)
        late = np.array([time.perf_counter() - t_start > a.deadline], np.int64)
        if int(host(comm.allreduce(left, "max"))[0]) == 0 \
                or int(host(comm.allreduce(late, "max"))[0]):
            break
    wall = time.perf_counter() - t_start
    every = host(comm.allgather(np.array([busy, done, mine.size, _pool_bytes(device)],
                                         np.float64))).reshape(comm.size, 4)
    raw = host(comm.allreduce(acc, "sum"))
    if comm.rank == 0:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        pieces = max(1, -(-raw.nbytes // PIECE_BYTES))
        for i, piece in enumerate(np.array_split(raw, pieces)):
            np.save(out / f"raw-{a.start}-{i}.npy", piece)
        info = {"graph": a.graph, "n": n, "nnz": int(A.nvals), "sources": int(order.size),
                "batches": nb, "ranks": comm.size, "card": _card(device), "start": a.start,
                "directed": not is_symmetric(A),
                "pieces": pieces, "rounds_done": int(every[:, 1].max()),
                "rounds": int(every[:, 2].max()), "busy_seconds": every[:, 0].tolist(),
                "wall_seconds": wall, "pool_bytes": [int(b) for b in every[:, 3]]}
        if rhs is not None:
            info["rhs"] = rhs
        tmp = out / f".part-{a.start}.json"
        tmp.write_text(json.dumps(info))
        os.replace(tmp, out / f"part-{a.start}.json")  # atomically: a part is whole or absent
        lines.append(f"part {tag} start={a.start} rounds_done={info['rounds_done']}"
                     f" rounds={info['rounds']} busy_seconds="
                     + ",".join(f"{b:.1f}" for b in info["busy_seconds"])
                     + f" wall_seconds={wall:.1f} pool_bytes={max(info['pool_bytes'])}")
    comm.barrier()
    return lines


def combine(dirs):
    """The parts in ``dirs`` chained from round 0, summed and checked: the
    ``exact`` line (raises ``SystemExit`` naming a gap or a mismatch)."""
    import numpy as np

    from bitgraph.algorithms.betweenness import _rescale

    parts = {}
    for d in dirs:
        for f in sorted(Path(d).glob("part-*.json")):
            info = json.loads(f.read_text())
            parts[info["start"]] = (Path(d), info)
    if not parts:
        raise SystemExit(f"exact_betweenness: no part-*.json in {', '.join(dirs)}")
    at, chain = 0, []
    while at in parts:
        chain.append(parts[at])
        info = parts[at][1]
        if info["rounds_done"] >= info["rounds"] or info["rounds_done"] == at:
            break
        at = info["rounds_done"]
    last = chain[-1][1] if chain else None
    if last is None or last["rounds_done"] < last["rounds"]:
        raise SystemExit(f"exact_betweenness: the parts stop at round {at}"
                         f" of {last['rounds'] if last else '?'} (starts: {sorted(parts)})")
    first = chain[0][1]
    raw = sum(np.concatenate([np.load(d / f"raw-{i['start']}-{k}.npy")
                              for k in range(i["pieces"])]) for d, i in chain)
    busy = np.sum([i["busy_seconds"] for _, i in chain], axis=0)
    rhs = first.get("rhs")
    total = float(raw.sum())
    rel = abs(total - rhs) / max(rhs, 1) if rhs is not None else float("nan")
    bc = _rescale(raw.copy(), raw.size, normalized=True, directed=first["directed"],
                  endpoints=False, sampled=None)
    top = np.argsort(-bc, kind="stable")[:3]
    line = (f"exact graph={first['graph']} n={first['n']} nnz={first['nnz']}"
            f" sources={first['sources']} batches={first['batches']} ranks={first['ranks']}"
            f" card={first['card']} one_gpu_seconds={busy.sum():.1f}"
            f" wall_seconds={sum(i['wall_seconds'] for _, i in chain):.1f}"
            f" pool_bytes_max={max(max(i['pool_bytes']) for _, i in chain)}"
            f" sum_raw={total:.17g} rhs={rhs} rel_diff={rel:.2e}"
            f" top=" + ",".join(f"{int(v)}:{bc[v]:.6g}" for v in top))
    if rhs is not None and rel > 1e-12:
        raise SystemExit(f"exact_betweenness: the raw sums add up to {total!r}, the all-pairs"
                         f" identity to {rhs}: {line}")
    return line, bc


def main(argv=None):
    a = parse(sys.argv[1:] if argv is None else argv)
    if a.combine:
        print(combine(a.combine)[0], flush=True)
        return 0
    if not a.out:
        raise SystemExit("exact_betweenness: --out is needed for a part")
    import bitgraph.distributed as dist

    if a.device == "cpu":
        lines = dist.LocalGroup(a.ranks).run(part, a)[0]
    else:
        lines = part(dist.init(), a)
    for line in lines:
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
