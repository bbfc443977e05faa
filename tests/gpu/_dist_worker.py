"""One rank of tests/gpu/test_distributed_gpu.py, started by
``python -m bitgraph.distributed --nproc 2``: NcclComm's collectives on
CuPy and numpy arrays, then each batch call of ``bitgraph.distributed`` on
graphs on this rank's GPU against the one-process call on the same GPU,
then the hashed generators (CuPy's edges bit-equal to numpy's; from_spec
and DistMatrix.generate on the GPUs equal to the numpy from_spec), then a
graph split over the ranks (``DistMatrix`` generated in parallel and from a
Matrix; ``bfs``, ``connected_components``, ``pagerank``) against the
one-GPU calls, and their kernels against their CuPy array steps. Prints
``rank R ok NAME`` per check; exits 1 on the first mismatch."""

from __future__ import annotations

import sys

import cupy
import numpy as np

import bitgraph as bg
import bitgraph.algorithms as one
import bitgraph.distributed as dist

comm = dist.init()
rank, size = comm.rank, comm.size


def say(line):
    sys.stdout.write(line + "\n")  # one write a line: the two ranks share the pipe
    sys.stdout.flush()


def ok(name, cond, detail=""):
    if not cond:
        say(f"rank {rank} FAILED {name} {detail}")
        sys.exit(1)
    say(f"rank {rank} ok {name}")


def host(a):
    return a.get() if isinstance(a, cupy.ndarray) else np.asarray(a)


# -- the communicator -------------------------------------------------------
ok("device", cupy.cuda.Device().id == rank and comm.device == "cuda")
ids = host(comm.allgather(np.array([cupy.cuda.Device().id], np.int64)))
ok("one GPU a rank", sorted(ids.tolist()) == list(range(size)), ids)
r = np.arange(size)
for xp in (np, cupy):
    a = xp.asarray(np.array([rank, -rank, 7], np.int64))
    s, mx, mn = comm.allreduce(a, "sum"), comm.allreduce(a, "max"), comm.allreduce(a, "min")
    ok(f"allreduce {xp.__name__}", type(s) is type(a) and host(s).tolist() == [r.sum(), -r.sum(), 7 * size]
       and host(mx).tolist() == [size - 1, 0, 7] and host(mn).tolist() == [0, 1 - size, 7])
    g = comm.allgather(xp.full((2, 3), rank, np.float32))
    ok(f"allgather {xp.__name__}", g.shape == (2 * size, 3)
       and host(g)[:, 0].tolist() == np.repeat(r, 2).tolist())
    counts = [3, 0] + [1] * (size - 2)
    v = comm.allgatherv(xp.full((counts[rank], 2), rank, np.uint8), counts)
    ok(f"allgatherv {xp.__name__}", host(v)[:, 0].tolist() == np.repeat(r, counts).tolist())
    # into one buffer, twice: unequal counts (NCCL broadcasts in one group), then equal
    into = xp.full((sum(counts), 2), 99, np.uint8)
    for step in range(2):
        w = comm.allgatherv(xp.full((counts[rank], 2), rank + step, np.uint8), counts, out=into)
        ok(f"allgatherv out {xp.__name__} {step}", w is into
           and host(into)[:, 1].tolist() == np.repeat(r + step, counts).tolist())
    even = xp.empty((3 * size,), np.float64)
    w = comm.allgatherv(xp.full(3, rank / 2, np.float64), [3] * size, out=even)
    ok(f"allgatherv equal out {xp.__name__}", w is even
       and host(even).tolist() == np.repeat(r / 2, 3).tolist())
    m = xp.asarray(np.array([rank, -rank, 7], np.int32))
    w = comm.allreduce(m, "min", out=m)  # in place
    ok(f"allreduce in place {xp.__name__}", w is m and host(m).tolist() == [0, 1 - size, 7])
    big = xp.asarray(np.arange(1 << 20, dtype=np.float64) * (rank + 1))  # several NCCL chunks
    w = comm.allreduce(big, "sum", out=big)
    ok(f"allreduce in place big {xp.__name__}", w is big and bool(
        (host(big) == np.arange(1 << 20, dtype=np.float64) * (size * (size + 1) // 2)).all()))
    b = comm.broadcast(xp.full(5, rank, np.float64), root=size - 1)
    ok(f"broadcast {xp.__name__}", host(b).tolist() == [size - 1.0] * 5)
    # started, GPU work queued behind it, then waited: the blocking call's result, the
    # queued work's own result unchanged (a numpy row is staged through pinned memory)
    p = comm.allgather_started(xp.asarray(np.array([rank, 3 * rank + 1], np.int64)))
    after = xp.asarray(np.arange(1 << 22, dtype=np.float64)) * (rank + 1)
    got = p.wait()
    ok(f"allgather_started {xp.__name__}", type(got) is type(after if xp is cupy else np.zeros(1))
       and host(got).tolist() == np.stack([r, 3 * r + 1], 1).ravel().tolist()
       and p.wait() is got and float(host(after[-1])) == ((1 << 22) - 1) * (rank + 1.0))
comm.barrier()
with comm.recording() as log:
    comm.allreduce(cupy.zeros(1 << 20, np.float32))
ok("recording", log[0][0] == "allreduce" and log[0][1] == 4 << 20 and log[0][2] > 0, log)

# -- the batch calls --------------------------------------------------------
K = bg.io.generators.from_spec("kron:10", device="cuda")  # every rank builds the same graph
G = bg.io.generators.from_spec("grid:40x40:0.05", device="cuda")  # long diameter: coop/async
W = bg.Matrix.from_coo([0, 1, 0, 2, 3], [1, 2, 2, 3, 0], [1.0, 1.0, 2.0, 0.5, 4.0],
                       nrows=5, ncols=5).to("cuda")
src = np.random.default_rng(0).choice(K.nrows, 300, replace=False)  # 5 batches of 64
for name, A in (("kron", K), ("grid", G)):
    lev = dist.msbfs(comm, A, src[:200])
    ok(f"msbfs {name}", isinstance(lev, cupy.ndarray)
       and np.array_equal(host(lev), host(one.msbfs(A, src[:200]))))
    cc = dist.closeness_centrality(comm, A, src)
    ok(f"closeness {name}", np.array_equal(host(cc), host(one.closeness_centrality(A, src))))
    with bg.settings.use(msbfs={"group_batches": 2}):  # grouped sources, dealt by batch
        cc = dist.closeness_centrality(comm, A, src)
        ok(f"closeness grouped {name}",
           np.array_equal(host(cc), host(one.closeness_centrality(A, src))))
    bc = dist.betweenness_centrality(comm, A, src)
    ref = host(one.betweenness_centrality(A, src))
    ok(f"betweenness {name}", np.allclose(host(bc), ref, rtol=1e-12, atol=1e-14))
    bc = dist.betweenness_centrality(comm, A, k=130, seed=4, endpoints=True)
    ref = host(one.betweenness_centrality(A, k=130, seed=4, endpoints=True))
    ok(f"betweenness k {name}", np.allclose(host(bc), ref, rtol=1e-12, atol=1e-14))
    with bg.settings.use(betweenness={"group_batches": 2}):  # grouped sources, dealt by batch
        bc = dist.betweenness_centrality(comm, A, src)
        ref = host(one.betweenness_centrality(A, src))
    ok(f"betweenness grouped {name}", np.allclose(host(bc), ref, rtol=1e-12, atol=1e-14))
try:
    ecc = dist.eccentricity(comm, G, src[:100] % G.nrows)
    want = host(one.eccentricity(G, src[:100] % G.nrows))
    ok("eccentricity grid", np.array_equal(host(ecc), want))
except bg.InvalidValue as e:  # a dropped edge may cut the grid: the same error as one process
    try:
        one.eccentricity(G, src[:100] % G.nrows)
        ok("eccentricity grid error", False, e)
    except bg.InvalidValue as e1:
        ok("eccentricity grid error", str(e1) == str(e).split("\n")[0])
E = dist.edge_betweenness_centrality(comm, K, k=100, seed=2)
ok("edge betweenness", np.allclose(host(E.to_coo()[2]),
                                   host(one.edge_betweenness_centrality(K, k=100, seed=2).to_coo()[2]),
                                   rtol=1e-12, atol=1e-14))
bw = dist.betweenness_centrality(comm, W, weight=True)
ok("weighted betweenness", np.allclose(host(bw), host(one.betweenness_centrality(W, weight=True)),
                                       rtol=1e-12, atol=1e-14))

# -- hashed generators: CuPy makes numpy's bits ------------------------------
from bitgraph.io import generators as gen  # noqa: E402

for name, kw in (("kronh", {"scale": 14, "edgefactor": 16, "seed": 3}),
                 ("kronh", {"scale": 31, "edgefactor": 16, "seed": 1}),
                 ("urandh", {"scale": 14, "degree": 16, "seed": 3}),
                 ("urandh", {"scale": 34, "degree": 16, "seed": 2})):  # the two-hash ids
    lo, hi = 12345 + rank, 12345 + rank + (1 << 18)
    cpu = gen._hashed_edges_range(np, name, kw, lo, hi)
    gpu = gen._hashed_edges_range(cupy, name, kw, lo, hi)
    ok(f"hashed bits {name}:{kw['scale']}", all(isinstance(g, cupy.ndarray) for g in gpu)
       and all(np.array_equal(host(g), c) for g, c in zip(gpu, cpu)))
for spec in ("kronh:14@3", "urandh:13:8"):
    want = bg.io.generators.from_spec(spec)  # numpy, the thread-pool path
    got = bg.io.generators.from_spec(spec, device="cuda")  # made on this GPU
    ok(f"from_spec gpu {spec}", got.device == "cuda" and isinstance(got.indices, cupy.ndarray)
       and got.nvals == want.nvals and np.array_equal(host(got.indptr), want.indptr)
       and np.array_equal(host(got.indices), want.indices))
    G = dist.DistMatrix.generate(comm, spec)
    S = want.to_scipy().tocsr()
    ok(f"generate gpu {spec}", isinstance(G.indices, cupy.ndarray) and G.nnz == want.nvals
       and np.array_equal(host(G.indptr), S[G.lo:G.hi].indptr)
       and np.array_equal(host(G.indices), S[G.lo:G.hi].indices))
with bg.settings.use(distributed={"step_entries": 1 << 14, "sort_keys": 1 << 15}):
    G = dist.DistMatrix.generate(comm, "kronh:14@3")  # many rounds and ranges
S = bg.io.generators.from_spec("kronh:14@3").to_scipy().tocsr()
ok("generate gpu rounds and ranges", np.array_equal(host(G.indices), S[G.lo:G.hi].indices)
   and np.array_equal(host(G.indptr), S[G.lo:G.hi].indptr))

# -- a graph split over the ranks -------------------------------------------
for spec in ("kron:12", "urand:11:8", "kronh:12@1"):
    A = bg.io.generators.from_spec(spec, device="cuda")
    S = A.to("cpu").to_scipy().tocsr()
    G = dist.DistMatrix.generate(comm, spec)
    ok(f"generate {spec}", G.device == "cuda" and isinstance(G.indices, cupy.ndarray)
       and G.nnz == A.nvals and np.array_equal(host(G.indices), S[G.lo:G.hi].indices)
       and np.array_equal(host(G.indptr), S[G.lo:G.hi].indptr))
    D = dist.DistMatrix.from_matrix(comm, A)
    ok(f"from_matrix {spec}", isinstance(D.indices, cupy.ndarray)
       and np.array_equal(host(D.indices), S[D.lo:D.hi].indices))
    for s in src[:3] % A.nrows:
        lev = dist.bfs(comm, G, int(s), gather=True)
        ok(f"partitioned bfs {spec} {s}", isinstance(lev, cupy.ndarray)
           and np.array_equal(host(lev), host(one.bfs(A, int(s)).to_dense(-1))))
        part = dist.bfs(comm, D, int(s))
        ok(f"partitioned bfs slice {spec} {s}",
           np.array_equal(host(part), host(one.bfs(A, int(s)).to_dense(-1))[D.lo:D.hi]))
    lab = dist.connected_components(comm, G)
    ok(f"partitioned cc {spec}",
       np.array_equal(host(lab), host(one.connected_components(A).to_dense())))
    pr = dist.pagerank(comm, G, gather=True)
    ref = one.pagerank(A)
    ok(f"partitioned pagerank {spec}", pr.iterations == ref.iterations
       and float(np.abs(host(pr.ranks) - host(ref.ranks.to_dense())).sum()) < 1e-6)
# the dist_traversal kernels (the default on CUDA ranks) against the CuPy array steps
G = dist.DistMatrix.generate(comm, "kron:11")
st_k, st_a = bg.Stats(), bg.Stats()
lev_k = dist.bfs(comm, G, 3, gather=True, stats=st_k)
lab_k, pr_k = dist.connected_components(comm, G), dist.pagerank(comm, G, gather=True)
with bg.settings.use(distributed={"cuda_kernels": False}):
    lev_a = dist.bfs(comm, G, 3, gather=True, stats=st_a)
    lab_a, pr_a = dist.connected_components(comm, G), dist.pagerank(comm, G, gather=True)
ok("partitioned kernels = array steps", np.array_equal(host(lev_k), host(lev_a))
   and st_k.metrics["directions"] == st_a.metrics["directions"]
   and ("bfs", "csr", "cuda", "dist_frontier") in st_k.kernels
   and not any(k[3].startswith("dist_") for k in st_a.kernels)
   and np.array_equal(host(lab_k), host(lab_a)) and pr_k.iterations == pr_a.iterations
   and float(np.abs(host(pr_k.ranks) - host(pr_a.ranks)).sum()) < 1e-9,
   (st_k.metrics, st_a.metrics))
# both top-down exchanges over NCCL: the same levels and directions, "ids" by alltoallv
A = bg.io.generators.from_spec("kron:11", device="cuda")
hub = int(cupy.argmax(cupy.diff(A.indptr)))  # a first top-down level that sends ids
runs = {}
for exchange in ("ids", "bitmap"):
    st_x = bg.Stats()
    with bg.settings.use(distributed={"bfs_topdown_exchange": exchange}), \
            comm.recording() as log:
        lev_x = dist.bfs(comm, G, hub, gather=True, stats=st_x)
    runs[exchange] = (host(lev_x), st_x.metrics["directions"], [op for op, _, _ in log])
ok("partitioned bfs exchanges", np.array_equal(runs["ids"][0], host(one.bfs(A, hub).to_dense(-1)))
   and np.array_equal(runs["bitmap"][0], runs["ids"][0]) and runs["ids"][1] == runs["bitmap"][1]
   and "alltoall" in runs["ids"][2] and "alltoall" not in runs["bitmap"][2],
   {k: v[1:] for k, v in runs.items()})
Dw = dist.DistMatrix.from_matrix(comm, W)  # directed, weighted: in-rows held apart
ok("partitioned directed", not Dw.symmetric
   and np.array_equal(host(dist.bfs(comm, Dw, 3, gather=True)), host(one.bfs(W, 3).to_dense(-1)))
   and np.array_equal(host(dist.connected_components(comm, Dw)),
                      host(one.connected_components(W).to_dense()))
   and float(np.abs(host(dist.pagerank(comm, Dw, gather=True).ranks)
                    - host(one.pagerank(W).ranks.to_dense())).sum()) < 1e-6)
got = comm.alltoallv(cupy.full((size, 2), rank, np.int64), [1] * size)
ok("alltoallv", isinstance(got, cupy.ndarray) and host(got)[:, 0].tolist() == list(range(size)))
comm.barrier()
say(f"rank {rank} done")
