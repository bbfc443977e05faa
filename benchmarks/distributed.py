"""Source batches over the GPUs of one host: whole-call time per number of
ranks, the speedup over the one-process call and the scaling efficiency.

    python benchmarks/distributed.py                       # N = 1 and 2, the default cases
    python benchmarks/distributed.py --ranks 1,2,4 --graph kron:22 --algo closeness
    python benchmarks/distributed.py --sources 4096 --repeat 3

The driver (this script without ``--worker``) re-launches itself under
``python -m bitgraph.distributed --nproc N`` for each N of ``--ranks``;
each rank builds the graph itself (a generator spec, on the GPU), warms
the kernels up on one batch (and builds what the graph keeps for the call:
the source anchors), then times the whole call: a barrier (which
synchronizes the GPU), ``perf_counter``, the call, a barrier,
``perf_counter`` (``--repeat`` runs, the median). With N = 1 the plain
one-process call (``bitgraph.algorithms``) is timed too: the baseline of
the speedup. One run per case records the collectives the call made
(``Comm.recording``: bytes this rank sent and seconds, each between
synchronized devices, so that run is not among the timed ones).

Every line is one measurement, ``key=value`` fields:

    dist     algo graph n nnz sources ranks card seconds   (ranks=0: the one-process call)
    local    algo graph ranks slowest_share_seconds fastest_share_seconds slowest_alone_seconds
                      (each rank's share, as the call deals it, through the call's own step:
                      all ranks at once, then one rank at a time)
    phases   algo graph ranks prepare_seconds deal_seconds local_seconds gather_seconds
                      (closeness: the call's steps one by one, the slowest rank's)
    comm     algo graph ranks op calls bytes seconds       (what the call exchanged)
    paired   algo graph ranks card rounds seconds one_gpu_seconds speedup efficiency
                      (the call and the one-process call on rank 0's GPU, alternating
                      in the same job: the speedup with both on the cards in one state)
    check    algo graph ranks max_rel_diff nan_both nan_one (against the one-process answer)
    scaling  algo graph card ranks seconds speedup efficiency   (driver: over the one-process call)

Sources: ``--sources`` vertices drawn without replacement by
``numpy.random.default_rng(0)`` (the same on every rank); closeness of
those vertices, betweenness from them (``sources=``).

``--partitioned``: a graph split over the ranks instead (``DistMatrix``,
1D by rows, generated in parallel on every rank from the spec):

    python benchmarks/distributed.py --partitioned --ranks 2 --graph kron:28 \\
        --check kron:20 --one-gpu kron:26
    python benchmarks/distributed.py --partitioned --ranks 2 --graph kronh:29 \\
        --check kronh:20 --one-gpu kronh:26

``kronh``/``urandh`` specs (edge i a hash of (seed, i)) are made on the GPUs:
each rank its range of edges, and the one-GPU baseline on its GPU too;
``kron``/``urand`` are drawn on the CPUs (Graph500's seeded streams).

``--exchange ids,bitmap``: the BFS checked, timed and its exchanges
recorded under each ``settings.distributed.bfs_topdown_exchange``.

``--arrays``: each rank's local step as CuPy array operations
(``settings.distributed.cuda_kernels`` off) instead of the kernels of
``kernels/cuda/dist_traversal.cu``, for comparison.

Per N of ``--ranks``: first the check (``--check`` spec, small: every
rank's generated rows against the one-GPU ``from_spec``, ``algo=generate``; the
partitioned bfs from 3 sources, components and PageRank against the
one-GPU calls on the same graph, every rank), then with ``--one-gpu`` the
one-GPU BFS of that spec on rank 0 (the baseline GTEPS; the other ranks
wait), then the ``--graph`` spec generated split over the ranks and timed:
BFS from 16 sources (vertices of degree > 0 among those drawn by
``default_rng(0)``; GTEPS per source = the undirected edges of its
component / seconds, their harmonic mean as Graph500 reports), one
connected components call, one PageRank call of exactly ``--pr-iter``
iterations (tol 0: networkx's stop rule, an L1 change under n x tol, is
met by the first iteration on a graph of 2^30 vertices at tol 1e-6). Lines:

    pcheck   algo graph ranks card equal|l1             (partitioned vs one-GPU)
    one      algo=bfs graph n nnz card gteps seconds    (one GPU, rank 0)
    part     graph n nnz ranks card build_seconds bytes_max bytes_sum pool_max
    pbfs     graph ranks card exchange sources gteps seconds levels directions
    pcc      graph ranks card seconds rounds
    ppr      graph ranks card seconds iterations seconds_per_iter
    pcomm    algo graph ranks [exchange] op calls bytes seconds   (one BFS / the CC call;
             the ids exchange's alltoallv: an allgather of counts and an alltoall)
    pscaling graph card ranks exchange gteps one_gpu_gteps ratio (driver)

``bytes_max``: the largest rank's DistMatrix arrays (row pointers 8 bytes
a row, column ids 4 bytes an entry); ``pool_max``: CuPy's pool on the
fullest GPU after the build. After the BFSs of each exchange, the
components call and the PageRank call, the pool's bytes on every rank
(emptied before the call, so the call's high-water with the graph, and
for BFS the driver's out-degrees, 8 bytes a row; an upper bound of what it needs where freed blocks did not fit later
requests); PageRank's seconds include the first allocation of its
buffers:

    pmem     algo graph ranks card pool_peak_max pool_peak (every rank's, rank order)
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
PART_GRAPH = "kron:24"


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", default="1,2", help="numbers of ranks, comma-separated (default 1,2)")
    p.add_argument("--graph", default=None, help="generator specs, comma-separated (default"
                   f" {','.join(GRAPHS)}; --partitioned: {PART_GRAPH})")
    p.add_argument("--algo", default=",".join(ALGOS), help="closeness,betweenness")
    p.add_argument("--sources", type=int, default=4096, help="sources per call (default 4096)")
    p.add_argument("--repeat", type=int, default=3, help="timed calls per case (median)")
    p.add_argument("--no-check", action="store_true", help="skip the one-process answer check")
    p.add_argument("--partitioned", action="store_true",
                   help="a graph split over the ranks: bfs, components, pagerank")
    p.add_argument("--check", default="kron:20",
                   help="--partitioned: the spec checked against the one-GPU calls")
    p.add_argument("--one-gpu", default="",
                   help="--partitioned: the spec whose one-GPU BFS GTEPS is the baseline")
    p.add_argument("--pr-iter", type=int, default=20, help="--partitioned: PageRank iterations")
    p.add_argument("--no-bind", action="store_true",
                   help="leave each rank where the launcher put it (settings.distributed.bind_cpus"
                        " off), for comparison")
    p.add_argument("--exchange", default="bitmap",
                   help="--partitioned: the BFS's top-down exchanges, comma-separated, each checked"
                   " and timed (settings.distributed.bfs_topdown_exchange: ids, bitmap)")
    p.add_argument("--arrays", action="store_true",
                   help="--partitioned: the CuPy array steps instead of the dist_traversal kernels")
    p.add_argument("--set", default="",
                   help="settings changes on every rank, ab.py's form (e.g."
                        " distributed.heavy_split=1000000000)")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.graph is None:
        a.graph = PART_GRAPH if a.partitioned else ",".join(GRAPHS)
    return a


def fields(line):
    return dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)


def driver(a, argv):
    times, cards = {}, {}
    gteps, one_gteps = {}, {}
    for n in [int(x) for x in a.ranks.split(",")]:
        cmd = [sys.executable, "-m", "bitgraph.distributed", "--nproc", str(n), __file__,
               "--worker", *argv]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(
            [str(ROOT), os.environ.get("PYTHONPATH", "")])}
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for line in p.stdout:
            print(line, end="", flush=True)
            if line.startswith("pbfs "):
                f = fields(line)
                gteps[(f["graph"], int(f["ranks"]), f["exchange"])] = (float(f["gteps"]),
                                                                      f["card"])
            if line.startswith("one "):
                one_gteps[fields(line)["graph"]] = float(fields(line)["gteps"])
            if line.startswith("dist "):
                f = fields(line)
                times[(f["algo"], f["graph"], int(f["ranks"]))] = float(f["seconds"])
                cards[(f["algo"], f["graph"])] = f["card"]
        if p.wait() != 0:
            print(f"# ranks={n}: exit status {p.returncode}", flush=True)
            return p.returncode
    for (graph, n, exchange), (g, card) in sorted(gteps.items()):
        for base_graph, base in sorted(one_gteps.items()):
            print(f"pscaling graph={graph} card={card} ranks={n} exchange={exchange} gteps={g:.3f}"
                  f" one_gpu={base_graph} one_gpu_gteps={base:.3f} ratio={g / base:.3f}",
                  flush=True)
    for (algo, graph, n), t in sorted(times.items()):
        base = times.get((algo, graph, 0))
        if n == 0 or base is None:
            continue
        print(f"scaling algo={algo} graph={graph} card={cards[(algo, graph)]} ranks={n}"
              f" seconds={t:.4f} speedup={base / t:.3f} efficiency={base / t / n:.3f}", flush=True)
    return 0


def partitioned(a, comm, card):
    """The --partitioned worker: check, one-GPU baseline, the split graph."""
    import cupy
    import numpy as np

    import bitgraph as bg
    import bitgraph.algorithms as one
    import bitgraph.distributed as dist

    lead = comm.rank == 0
    N = comm.size
    exchanges = a.exchange.split(",")

    def say(line):
        if lead:
            print(line, flush=True)

    def timed(fn):
        comm.barrier()  # synchronize! (every rank's GPU idle)
        t0 = time.perf_counter()
        out = fn()
        comm.barrier()  # synchronize!
        return out, time.perf_counter() - t0

    def free():
        cupy.get_default_memory_pool().free_all_blocks()

    def held(algo, spec):
        """The pool's bytes on every rank (emptied before the call: the
        call's high-water with the graph), one ``pmem`` line."""
        mine = np.array([cupy.get_default_memory_pool().total_bytes()], np.int64)
        every = [int(v) for v in comm.allgather(mine)]
        say(f"pmem algo={algo} graph={spec} ranks={N} card={card} pool_peak_max={max(every)}"
            f" pool_peak={','.join(str(v) for v in every)}")

    if not a.no_check:
        A = bg.io.generators.from_spec(a.check, device="cuda")
        G = dist.DistMatrix.generate(comm, a.check)
        tag = f"graph={a.check} ranks={N} card={card}"
        a0, a1 = int(A.indptr[G.lo]), int(A.indptr[G.hi])
        rows = (G.nnz == A.nvals and G.indices.shape[0] == a1 - a0
                and bool((G.indices == A.indices[a0:a1]).all())
                and bool((G.indptr == A.indptr[G.lo:G.hi + 1] - a0).all()))
        rows = int(comm.allreduce(np.array([int(rows)], np.int64), "min")[0])
        say(f"pcheck algo=generate {tag} equal={rows}")
        for exchange in exchanges:
            same = G.nnz == A.nvals
            with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}):
                for s in np.random.default_rng(1).choice(A.nrows, 3, replace=False):
                    lev = dist.bfs(comm, G, int(s), gather=True)
                    same &= bool(np.array_equal(cupy.asnumpy(lev),
                                                cupy.asnumpy(one.bfs(A, int(s)).to_dense(-1))))
            say(f"pcheck algo=bfs {tag} exchange={exchange} equal={int(same)}")
        lab = dist.connected_components(comm, G)
        say(f"pcheck algo=cc {tag} equal="
            f"{int(bool((lab == one.connected_components(A).to_dense()).all()))}")
        pr = dist.pagerank(comm, G, gather=True)
        ref = one.pagerank(A)
        l1 = float(cupy.abs(pr.ranks - ref.ranks.to_dense()).sum())
        say(f"pcheck algo=pagerank {tag} l1={l1:.3e} iterations={pr.iterations}"
            f" one_iterations={ref.iterations}")
        del A, G, lab, pr, ref
        free()
    if a.one_gpu:
        if lead:
            A = bg.io.generators.from_spec(a.one_gpu, device="cuda")
            deg = cupy.asnumpy(cupy.diff(A.indptr))
            cand = np.random.default_rng(0).choice(A.nrows, 64, replace=False)
            src = [int(s) for s in cand if deg[s] > 0][:16]
            one.bfs(A, src[0])  # warm-up
            rates, secs = [], []
            for s in src:
                cupy.cuda.get_current_stream().synchronize()  # synchronize!
                t0 = time.perf_counter()
                lev = one.bfs(A, s)
                cupy.cuda.get_current_stream().synchronize()  # synchronize!
                dt = time.perf_counter() - t0
                reached = lev.to_dense(-1) >= 0
                edges = int(cupy.asarray(deg)[reached].sum()) // 2
                rates.append(edges / dt / 1e9)
                secs.append(dt)
            hmean = len(rates) / sum(1 / r for r in rates)
            print(f"one algo=bfs graph={a.one_gpu} n={A.nrows} nnz={A.nvals} card={card}"
                  f" gteps={hmean:.3f} seconds={statistics.median(secs):.5f}", flush=True)
            del A, lev
            free()
        comm.barrier()
    for spec in a.graph.split(","):
        t0 = time.perf_counter()
        G = dist.DistMatrix.generate(comm, spec)
        comm.barrier()  # synchronize!
        build = time.perf_counter() - t0
        pool = cupy.get_default_memory_pool().total_bytes()
        stats = np.array([G.nbytes, G.nbytes, pool], np.int64)
        mx = comm.allreduce(stats, "max")
        total = comm.allreduce(stats, "sum")
        tag = f"graph={spec} ranks={N} card={card}"
        say(f"part graph={spec} n={G.n} nnz={G.nnz} ranks={N} card={card}"
            f" build_seconds={build:.2f} bytes_max={int(mx[0])} bytes_sum={int(total[1])}"
            f" pool_max={int(mx[2])}")
        deg = cupy.diff(G.indptr)
        cand = np.random.default_rng(0).choice(G.n, 64, replace=False)
        mine = np.zeros(64, np.int64)
        here = (cand >= G.lo) & (cand < G.hi)
        mine[here] = cupy.asnumpy(deg[cupy.asarray(cand[here] - G.lo)]) > 0
        has = comm.allreduce(mine, "max")
        src = [int(s) for s, h in zip(cand, has) if h][:16]
        def exchanged(algo, fn, extra=""):
            with comm.recording() as log:
                fn()
            per_op = {}
            for op, nbytes, sec in log:
                c, b, t = per_op.get(op, (0, 0, 0.0))
                per_op[op] = (c + 1, b + nbytes, t + sec)
            for op, (c, b, t) in sorted(per_op.items()):
                say(f"pcomm algo={algo} graph={spec} ranks={N}{extra} op={op} calls={c}"
                    f" bytes={b} seconds={t:.6f}")

        for exchange in exchanges:
            free()
            with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}):
                dist.bfs(comm, G, src[0])  # warm-up
                rates, secs, levels, dirs = [], [], [], []
                for s in src:
                    st = bg.Stats()
                    lev, dt = timed(lambda: dist.bfs(comm, G, s, stats=st))
                    reached = lev >= 0
                    edges = int(comm.allreduce(cupy.stack([deg[reached].sum()]).astype(np.int64),
                                               "sum")[0]) // 2
                    rates.append(edges / dt / 1e9)
                    secs.append(dt)
                    levels.append(st.metrics["levels"])
                    dirs.append(st.metrics["directions"])
                hmean = len(rates) / sum(1 / r for r in rates)
                say(f"pbfs {tag} exchange={exchange} sources={len(src)} gteps={hmean:.3f}"
                    f" seconds={statistics.median(secs):.5f} levels={max(levels)}"
                    f" directions={dirs[0]}")
                exchanged("bfs", lambda: dist.bfs(comm, G, src[0]), f" exchange={exchange}")
                del lev, reached
                held(f"bfs_{exchange}", spec)
        del deg
        free()
        exchanged("cc", lambda: dist.connected_components(comm, G))  # the answer dropped
        held("cc", spec)
        st = bg.Stats()
        labels, dt = timed(lambda: dist.connected_components(comm, G, stats=st))
        del labels  # n int64 labels: not held through PageRank
        say(f"pcc {tag} seconds={dt:.4f} rounds={st.metrics['rounds']}")
        free()
        pr, dt = timed(lambda: dist.pagerank(comm, G, tol=0.0, max_iter=a.pr_iter))
        held("pagerank", spec)
        say(f"ppr {tag} seconds={dt:.4f} iterations={pr.iterations}"
            f" seconds_per_iter={dt / max(pr.iterations, 1):.5f}")
        del G, pr
        free()
    comm.barrier()
    return 0


def _dealt_share(comm, A, src, algo):
    """This rank's sources as the distributed call deals them: closeness
    ``batches._dealt`` over the graph its BFSs walk, betweenness whole
    batches of its one-process batch order (``batch_deal``)."""
    from bitgraph.algorithms.betweenness import batch_order
    from bitgraph.algorithms.multi_source import batch_split
    from bitgraph.distributed import batches

    if algo == "betweenness":
        order = batch_order(A, src)
        return order[batches.batch_deal(int(order.size), comm.size, comm.rank,
                                        batches._bc_batch())]
    perm, counts = batches._dealt(comm, *batch_split(A.T, src), batches.BATCH)
    a = sum(counts[:comm.rank])
    return src[perm[a:a + counts[comm.rank]]]


def _local(algo, A, share):
    """The distributed call's own step on this rank's share (not the
    one-process call, which would order a share of 32 batches or more
    again): closeness ``closeness_of`` in the share's order, betweenness
    the raw sums of ``_vertex_sums``."""
    import numpy as np

    from bitgraph.algorithms import betweenness
    from bitgraph.algorithms.multi_source import closeness_of

    if algo == "betweenness":
        return betweenness._vertex_sums(A, None, share, endpoints=False, stats=None,
                                        where="betweenness_centrality")
    return closeness_of(A, share, np.arange(share.size))


def _warm(algo, A, src):
    """What a graph keeps after its first call of ``algo`` on ``src`` beyond
    a batch's kernels: the source anchors (``batch_order`` groups a call of
    ``settings.betweenness.group_batches`` / ``settings.msbfs.group_batches``
    batches or more; the warm-up's one batch a rank does not)."""
    from bitgraph.algorithms import betweenness, multi_source

    if algo == "betweenness":
        betweenness.batch_order(A, src)
    else:
        multi_source.batch_order(A.T, src)


def _closeness_phases(comm, A, src):
    """The distributed closeness call's steps timed one by one, the GPU
    synchronized after each (the slowest rank's seconds per step): the
    sources' checks and batch order with the ranks' agreement started, the
    deal, this rank's share, the agreement read (the call overlaps it with
    the share; here it has arrived), the gather of the outcome and values
    in the sources' order (the call's own collectives)."""
    import cupy
    import numpy as np

    from bitgraph.algorithms.multi_source import batch_split
    from bitgraph.device import asdevice
    from bitgraph.distributed import batches

    where = "closeness_centrality"
    sync = cupy.cuda.get_current_stream().synchronize
    steps = {}

    def step(name, fn):
        comm.barrier()  # synchronize!
        t0 = time.perf_counter()
        out = fn()
        sync()  # synchronize!
        steps[name] = time.perf_counter() - t0
        return out

    begun = step("prepare", lambda: batches._prepare_sources(
        comm, A, src, where, split=lambda x: batch_split(A.T, x), wf_improved=True))
    s, split = begun.out
    perm, counts = step("deal", lambda: batches._dealt(comm, *split, batches.BATCH))
    a = sum(counts[:comm.rank])
    mine = step("local", lambda: _local("closeness", A, s[perm[a:a + counts[comm.rank]]]))
    step("agree", lambda: batches._finished(comm, where, begun))

    def gather():  # the outcome travels with the values, as in the call
        got = batches._outcome_with(comm, where, lambda: mine, counts, np.float64)
        out = np.empty_like(got)
        out[perm] = got
        return asdevice(out, "cuda", where)

    step("gather", gather)
    every = comm.allreduce(np.array(list(steps.values()), np.float64), "max")
    return dict(zip(steps, (float(v) for v in cupy.asnumpy(every))))


def worker(a):
    import cupy
    import numpy as np

    import bitgraph as bg
    import bitgraph.algorithms as one
    import bitgraph.distributed as dist

    with bg.settings.use(distributed={"bind_cpus": not a.no_bind}):
        comm = dist.init()
    if comm.rank == 0:
        print(f"# rank 0 on {len(os.sched_getaffinity(0))} CPUs", flush=True)
    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    card = props["name"].decode().replace(" ", "_")
    if a.partitioned:
        if comm.rank == 0:
            print(f"# local steps: {'arrays' if a.arrays else 'kernels'}"
                  " (settings.distributed.cuda_kernels)", flush=True)
        with bg.settings.use(distributed={"cuda_kernels": not a.arrays}):
            return partitioned(a, comm, card)
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
            _warm(algo, A, src)
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
            # the one-GPU baseline in the same job: the call on every rank, then the
            # one-process call on rank 0's GPU alone (the others wait), alternating, so that
            # both see the cards in one state (one H200's kron-22 closeness drifted from 58.4
            # to 61.8 ms over a minute of calls)
            ref(A, src[:64])
            pair_d, pair_1 = [], []
            for _ in range(a.repeat):
                comm.barrier()  # synchronize!
                t0 = time.perf_counter()
                ours(comm, A, src)
                comm.barrier()  # synchronize!
                pair_d.append(time.perf_counter() - t0)
                if lead:
                    t0 = time.perf_counter()
                    ref(A, src)
                    cupy.cuda.get_current_stream().synchronize()  # synchronize!
                    pair_1.append(time.perf_counter() - t0)
                comm.barrier()  # synchronize!
            if lead:
                d, o = statistics.median(pair_d), statistics.median(pair_1)
                say(f"paired {tag} ranks={comm.size} card={card} rounds={a.repeat}"
                    f" seconds={d:.4f} one_gpu_seconds={o:.4f} speedup={o / d:.3f}"
                    f" efficiency={o / d / comm.size:.3f}")
            # this rank's share alone (the sources the call deals it), the call's own step
            # on it: the slowest rank's time against the whole call's is the cost of the
            # split (imbalance aside)
            share = _dealt_share(comm, A, src, algo)
            _local(algo, A, share)
            cupy.cuda.get_current_stream().synchronize()  # synchronize!
            t0 = time.perf_counter()
            _local(algo, A, share)
            cupy.cuda.get_current_stream().synchronize()  # synchronize!
            mine = np.array([time.perf_counter() - t0], np.float64)
            slow, fast = (float(comm.allreduce(mine, op)[0]) for op in ("max", "min"))
            alone = np.zeros(1, np.float64)  # each share again, one rank at a time
            for r in range(comm.size):
                comm.barrier()  # synchronize!
                if r == comm.rank:
                    t0 = time.perf_counter()
                    _local(algo, A, share)
                    cupy.cuda.get_current_stream().synchronize()  # synchronize!
                    alone[0] = time.perf_counter() - t0
            slow_alone = float(comm.allreduce(alone, "max")[0])
            say(f"local {tag} ranks={comm.size} slowest_share_seconds={slow:.4f}"
                f" fastest_share_seconds={fast:.4f} slowest_alone_seconds={slow_alone:.4f}")
            if algo == "closeness":
                say(f"phases {tag} ranks={comm.size} " + " ".join(
                    f"{k}_seconds={v:.5f}" for k, v in _closeness_phases(comm, A, src).items()))
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
                # NaN where both are NaN agrees (betweenness past float64's path counts, as in
                # NetworkX); NaN on one side only is a mismatch
                both = np.isnan(o) & np.isnan(w)
                fin = ~(np.isnan(o) | np.isnan(w))
                diff = float(np.max(np.abs(o[fin] - w[fin]) / np.maximum(np.abs(w[fin]), 1e-300),
                                    initial=0.0))
                say(f"check {tag} ranks={comm.size} max_rel_diff={diff:.3e}"
                    f" nan_both={int(both.sum())} nan_one={int(o.size - fin.sum() - both.sum())}")
        del A
        cupy.get_default_memory_pool().free_all_blocks()
    comm.barrier()
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    a = parse(argv)
    if not a.worker:
        return driver(a, argv)
    import bitgraph as bg

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ab import parse_variant  # benchmarks/ab.py: "family.field=value,..."

    with bg.settings.use(**parse_variant(a.set)):
        return worker(a)


if __name__ == "__main__":
    sys.exit(main())
