"""The benchmark suite: one table of cases, their baselines in the same run, one results page.

    python benchmarks/run.py                                  # every CPU case
    python benchmarks/run.py --algo bfs,msbfs --graph kron:16 --repeat 5
    python benchmarks/run.py --device cuda --algo bfs,msbfs --write benchmarks/RESULTS.md
    python benchmarks/run.py --smoke                          # CI: tiny graphs, results checked
    python benchmarks/run.py --algo bfs --graph kron:16 --trace   # what each call ran

A case is {algorithm, method, graph, device} (``CASES`` below). For each
case the driver loads the graph once (a generator spec of
``bitgraph.io.generators.from_spec`` or a file for ``bitgraph.io.read``),
times the user's whole public call (one warm-up, then the median of
``--repeat`` calls; on CUDA between CUDA events, then a synchronize), and
runs the case's baselines on the same graph in the same run:
python-graphblas (SuiteSparse:GraphBLAS), scipy.sparse.csgraph and, on
graphs of at most ``NX_MAX_EDGES`` stored entries, networkx on the CPU;
on CUDA the loop of single ``bfs`` calls (msbfs) and cuSPARSE through
cupyx (mxv, mxm, pagerank). Every answer is checked against every baseline's:
levels equal, components as partitions, counts equal, floats within a
tolerance; a mismatch is printed and the exit status is 1.

"kernel ms" is filled where the call takes ``stats=`` and its
``bitgraph.Stats().metrics`` has ``"kernel_ms"``; blank otherwise.
External anchors (gapbs on the CPU, ECL-CC, Gunrock and Blest on CUDA) run
only when their binaries are in the folder ``--anchors`` or
``$BITGRAPH_ANCHORS`` names (never fetched; keep it out of git): ``ANCHORS``
says which binary, how it is called and how its time is read. Their time is
their own timer's; their answers are checked by their own verifiers where
they have one, and against ours where they print them (counts, values,
Blest's BFS levels). Blest's reordering is kept in ``$BITGRAPH_BLEST_CACHE``
where set.

``--graph`` takes specs: one that names a case's graph selects it; one
that names no case's graph replaces the graph of every selected case of
the same family (``--graph kron:20`` runs the kron cases at scale 20).
``--write PATH`` merges the rows into the results page (one table per
algorithm and device; a row is replaced only by a row of the same case
on the same card, so a CPU run leaves GPU rows alone), written atomically.
``--smoke`` runs every CPU case on a tiny graph of its family, once.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import math
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if not os.environ.get("PYTHONPATH"):  # run from a checkout; PYTHONPATH may name another tree
    sys.path.insert(0, str(ROOT))


@dataclass(frozen=True)
class Case:
    """One measured call: ``algo`` (a key of ``ALGOS``), the ``method`` it is
    given, the ``graph`` (a generator spec or a file), the ``device`` and
    the names of the baselines run beside it (keys of ``BASELINES``).

    >>> Case("bfs", "auto", "kron:16", "cpu", ("scipy",)).key
    ('bfs', 'cpu', 'auto', 'kron:16')
    """
    algo: str
    method: str
    graph: str
    device: str = "cpu"
    baselines: tuple = ()

    @property
    def key(self):
        return (self.algo, self.device, self.method, self.graph)


def _cases(algo, methods, graphs, device, baselines):
    return [Case(algo, m, g, device, tuple(baselines)) for g in graphs for m in methods]


CPU_GRAPHS = ("kron:16", "urand:16", "grid:256x256")
RGG_22 = "rgg:4194304:0.00110193"  # mean degree ~16, ~1,100 levels
CUDA_GRAPHS = ("kron:21", "kron:22", "urand:21:32", "grid:2048x2048:0.01", RGG_22,
               "grid:161x161x161:0.0", "kron:24")
CUDA_SPMV_GRAPHS = ("kron:22", "urand:22", "grid:2048x2048")
# long mesh-like graphs of mean degree 8-32 (issue 29): rgg at degrees 8/16/32, the grid with
# diagonals and the 26-neighbour mesh; every single-source GPU method beside Blest, so that
# auto's choice is checked against the best of them
CUDA_MESH_GRAPHS = ("rgg:4194304:d8", RGG_22, "rgg:4194304:d32", "moore:2048x2048",
                    "moore:161x161x161")
CUDA_MESH_METHODS = ("auto", "direction", "push", "async", "window", "window-rcm",
                     "direction-rcm")
# triangle_count, eccentricity/diameter on CUDA (issue 28's graphs). The exact
# diameter (Takes-Kosters bounds, a few msbfs batches) and the bounds run on
# each graph's largest strongly connected component
CUDA_TC_GRAPHS = ("kron:22", "urand:22", RGG_22)
CUDA_DIAMETER_GRAPHS = ("kron:22", "grid:2048x2048:0.01")
CUDA_BOUNDS_GRAPHS = ("kron:21", "grid:2048x2048:0.01")
# betweenness on CUDA: issue 32's graphs (Gunrock's bc per source beside ours)
CUDA_BC_GRAPHS = ("kron:22", "urand:22", "grid:2048x2048:0.01", RGG_22)

CASES = [
    # --- CPU -----------------------------------------------------------------------------
    *_cases("bfs", ("auto", "push", "pull", "blest"), CPU_GRAPHS, "cpu",
            ("SuiteSparse", "scipy", "gapbs")),
    *_cases("msbfs", ("auto", "groupby"), CPU_GRAPHS, "cpu", ("SuiteSparse", "scipy")),
    *_cases("sssp", ("auto", "bellman-ford"), CPU_GRAPHS, "cpu",
            ("SuiteSparse", "scipy", "gapbs")),
    *_cases("pagerank", ("auto",), CPU_GRAPHS, "cpu",
            ("SuiteSparse", "scipy", "networkx", "gapbs", "gapbs spmv")),
    # "-f32": float32 ranks (dtype=np.float32), beside gapbs's pr and pr_spmv (float32 scores
    # too); scipy (float64) checks the ranks
    *_cases("pagerank", ("auto-f32",), CPU_GRAPHS, "cpu", ("scipy", "gapbs", "gapbs spmv")),
    *_cases("connected_components", ("auto", "fastsv"), CPU_GRAPHS, "cpu",
            ("scipy", "networkx", "gapbs")),
    *_cases("triangle_count", ("auto", "mxm"), CPU_GRAPHS, "cpu",
            ("SuiteSparse", "networkx", "gapbs")),
    *_cases("closeness", ("auto",), CPU_GRAPHS, "cpu", ("scipy", "networkx")),
    # betweenness: one call over the graph's fixed sample of BC_SOURCES sources; times per
    # source (ours: the call / the sources); gapbs's bc once per source of ours (the first
    # BC_ANCHOR_SOURCES, values checked) and a batch of its own sources per trial
    *_cases("betweenness", ("auto",), CPU_GRAPHS, "cpu", ("networkx", "gapbs", "gapbs batch")),
    *_cases("mxv", ("plus_times", "bfs_step"), CPU_GRAPHS, "cpu", ("SuiteSparse", "scipy")),
    *_cases("mxm", ("tc_masked",), CPU_GRAPHS, "cpu", ("SuiteSparse",)),
    # --- CUDA ----------------------------------------------------------------------------
    *_cases("bfs", ("auto",), CUDA_GRAPHS, "cuda", ("Blest",)),
    *_cases("bfs", CUDA_MESH_METHODS, CUDA_MESH_GRAPHS, "cuda", ("Blest",)),
    *_cases("msbfs", ("auto",), CUDA_GRAPHS, "cuda", ("loop of bfs",)),
    *_cases("mxv", ("plus_times", "bfs_step", "tensor_core"), CUDA_SPMV_GRAPHS, "cuda",
            ("cuSPARSE",)),
    *_cases("mxm", ("tc_masked",), CUDA_SPMV_GRAPHS[1:], "cuda", ("cuSPARSE",)),
    *_cases("triangle_count", ("auto", "mxm", "tensor_core"), CUDA_TC_GRAPHS, "cuda",
            ("cuSPARSE", "Gunrock")),
    *_cases("diameter", ("auto",), CUDA_DIAMETER_GRAPHS, "cuda", ("bitgraph CPU",)),
    *_cases("diameter_bounds", ("auto",), CUDA_BOUNDS_GRAPHS, "cuda", ("bitgraph CPU",)),
    # the fused kernel (auto) and the public-API loop over CuPy; anchors: the same power
    # iteration on cuSPARSE's SpMV through cupyx, float64 and float32, and Gunrock's pr, each
    # for exactly the iterations our stop rule needs (the issue's anchor is per iteration:
    # whole-run ratios are per-iteration ratios, ours with its convergence checks, theirs
    # without; "kernel ms" / stats.metrics["iterations"] is ours per iteration); float64 ranks
    # beside float64 cuSPARSE, float32 ranks ("auto-f32": dtype=np.float32) beside float32
    # cuSPARSE (the issue's anchor: "a pull ... with float32 ranks"); Gunrock's pr is float32
    *_cases("pagerank", ("auto", "graphblas"), CUDA_GRAPHS, "cuda", ("cuSPARSE", "Gunrock")),
    *_cases("pagerank", ("auto-f32",), CUDA_GRAPHS, "cuda", ("cuSPARSE f32", "Gunrock")),
    # connected components on the GPU: scipy on the host (the partition check), ECL-CC and
    # Blest's BVSS kernel on the same GPU (their counts checked against ours)
    *_cases("connected_components", ("auto", "fastsv"), CUDA_GRAPHS, "cuda",
            ("scipy", "ECL-CC", "Blest")),
    # sssp: the suite's weights 1..255; "-float": the same weights / 255 as float64, "-f32" as
    # float32 (Gunrock's weight type);
    # Bellman-Ford (a vxm per round) only where the rounds are few (kron, urand);
    # Gunrock (the issue's anchor) runs once per graph, on the integer weights
    *_cases("sssp", ("auto", "auto-float", "auto-f32"), CUDA_GRAPHS, "cuda", ("scipy", "Gunrock")),
    *_cases("sssp", ("bellman-ford",), CUDA_GRAPHS[:3], "cuda", ("scipy", "Gunrock")),
    # sssp's two CUDA schedules forced ("auto" takes settings.sssp.cuda_persistent's): the bucket
    # loop on the device (one cooperative launch) and the host's loop of launches and reads
    *_cases("sssp", ("delta-persistent", "delta-launches", "delta-persistent-float",
                     "delta-launches-float", "delta-persistent-f32"), CUDA_GRAPHS + ("urand:22:32",),
            "cuda",
            ("scipy", "Gunrock")),
    # betweenness: our CPU call on the host copy checks the values; Gunrock's bc (patched by
    # gunrock.sh) runs the same sources one after another
    *_cases("betweenness", ("auto",), CUDA_BC_GRAPHS, "cuda", ("bitgraph CPU", "Gunrock")),
]

# --smoke: each family's tiny graph (a few hundred vertices)
SMOKE_GRAPHS = {"kron": "kron:8", "urand": "urand:8", "grid": "grid:16x16", "rgg": "rgg:300:0.1",
                "moore": "moore:16x16"}
NX_MAX_EDGES = 300_000  # networkx baselines on graphs of at most this many stored entries
SOURCES = {"cpu": 4, "cuda": 16}  # sources of the single-source cases (the mean over them)
BATCH = 64  # sources of msbfs and closeness
# betweenness: the sources of a graph's fixed sample (Graph.bc_sources: seeded, the same
# for every code); the per-source anchors (gapbs: a run per source, the graph loaded each
# time) take its first BC_ANCHOR_SOURCES
BC_SOURCES = {"cpu": 64, "cuda": 64}
BC_ANCHOR_SOURCES = 16
BC_HEAD = 1 << 16  # the leading values Gunrock's bc prints for the check (all on small graphs)
REPEAT = {"cpu": 3, "cuda": 10}
# the baselines that run on the GPU (timed like ours, --repeat calls); the others of a CUDA
# case run on the host once
GPU_BASELINES = frozenset({"cuSPARSE", "cuSPARSE f32", "loop of bfs"})
PAGERANK_TOL = 1e-4  # gapbs's rule: stop when the L1 change < 1e-4 (networkx tol = 1e-4 / n)


# === graphs ===============================================================================
class Graph:
    """A case's graph, loaded once: ``A`` on the case's device, ``cpu`` its CPU
    copy, and the derived inputs baselines share (made on first use)."""

    def __init__(self, spec, device):
        import bitgraph as bg

        self.spec, self.device = spec, device
        t0 = time.perf_counter()
        if Path(spec).exists():
            self.A = bg.io.read(spec, device=device)
        else:
            self.A = bg.io.generators.from_spec(spec, device=device)
        # the baselines' copy (on the CPU: the graph itself)
        self.cpu = self.A if device == "cpu" else self.A.to("cpu")
        self.load_s = time.perf_counter() - t0
        self.n, self.nvals = self.cpu.nrows, self.cpu.nvals
        self._memo = {}

    def memo(self, name, build):
        if name not in self._memo:
            self._memo[name] = build()
        return self._memo[name]

    def coo(self):
        return self.memo("coo", lambda: self.cpu.to_coo()[:2])

    def scipy(self, dtype=np.float64):
        """The pattern as a scipy CSR array with ``dtype`` ones."""
        import scipy.sparse as sp

        def build():
            r, c = self.coo()
            return sp.csr_array((np.ones(r.size, dtype), (r, c)), shape=(self.n, self.n))

        return self.memo(("scipy", np.dtype(dtype).str), build)

    def graphblas(self):
        import graphblas as gb

        def build():
            r, c = self.coo()
            return gb.Matrix.from_coo(r, c, True, nrows=self.n, ncols=self.n)

        return self.memo("graphblas", build)

    def networkx(self):
        import networkx as nx

        def build():
            r, c = self.coo()
            G = nx.DiGraph()
            G.add_nodes_from(range(self.n))
            G.add_edges_from(zip(r.tolist(), c.tolist()))
            return G

        return self.memo("networkx", build)

    def sources(self, k, seed=1):
        """k seeded random vertices with out-degree > 0 (repeated if fewer exist)."""
        deg = np.diff(self.scipy().indptr)
        cand = np.flatnonzero(deg > 0)
        if cand.size == 0:
            cand = np.arange(self.n)
        rng = np.random.default_rng(seed)
        return rng.choice(cand, size=k, replace=cand.size < k).astype(np.int64)

    def bc_sources(self, k, seed=32):
        """k distinct seeded vertices with out-degree > 0 (all of them if fewer):
        betweenness's sample, the same for every code that runs it.

        >>> g = Graph("grid:4x4", "cpu")
        >>> s = g.bc_sources(5); (s.size, np.unique(s).size, s.dtype.name)
        (5, 5, 'int64')
        >>> bool((g.bc_sources(5) == s).all()), g.bc_sources(99).size
        (True, 16)
        """
        deg = np.diff(self.scipy().indptr)
        cand = np.flatnonzero(deg > 0)
        rng = np.random.default_rng(seed)
        return rng.choice(cand, size=min(k, cand.size), replace=False).astype(np.int64)

    def symmetric(self):
        """Whether the pattern equals its transpose (betweenness halves then)."""
        def build():
            S = self.scipy()
            return (S != S.T).nnz == 0

        return self.memo("symmetric", build)

    def weights(self):
        """int32 weights 1..255 from a hash of the undirected edge {r, c} (both
        directions alike, the same on every machine), in COO order."""
        def build():
            r, c = self.coo()
            lo = np.minimum(r, c).astype(np.uint64)
            hi = np.maximum(r, c).astype(np.uint64)
            z = lo * np.uint64(self.n) + hi
            with np.errstate(over="ignore"):  # splitmix64
                z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
                z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
                z = z ^ (z >> np.uint64(31))
            return (z % np.uint64(255) + np.uint64(1)).astype(np.int32)

        return self.memo("weights", build)


def host(x):
    """A numpy copy of a result: Vectors dense (-1 where absent), CuPy arrays fetched."""
    from bitgraph.vector import Vector

    if isinstance(x, Vector):
        x = x.to("cpu").to_dense(-1)
    get = getattr(x, "get", None)
    return np.asarray(get() if callable(get) else x)


# === checks ==================================================================================
def same_levels(a, b):
    return None if np.array_equal(a, b) else \
        f"{int(np.count_nonzero(np.asarray(a) != np.asarray(b)))} levels differ"


def same_partition(a, b):
    """Labels compared as partitions: each label replaced by its smallest vertex."""
    def canon(lab):
        lab = np.asarray(lab)
        _, inv = np.unique(lab, return_inverse=True)
        first = np.full(inv.max() + 1 if inv.size else 0, lab.size, np.int64)
        np.minimum.at(first, inv, np.arange(lab.size))
        return first[inv]

    return None if np.array_equal(canon(a), canon(b)) else "different partitions"


def same_count(a, b):
    return None if int(a) == int(b) else f"{int(a)} != {int(b)}"


def close(rtol=1e-9, atol=0.0, l1=None):
    def check(a, b):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            return f"shapes {a.shape} != {b.shape}"
        if l1 is not None:
            err = float(np.abs(a - b).sum())
            return None if err <= l1 else f"L1 difference {err:.3g} > {l1:g}"
        return None if np.allclose(a, b, rtol=rtol, atol=atol) else \
            f"max difference {float(np.abs(a - b).max()):.3g}"

    return check


# === the algorithms: our call, its answer, its check ========================================
@dataclass
class Algo:
    """``inputs(g, case)`` -> a list of per-call inputs (one per source, or one);
    ``call(g, method, inp, **kw)`` runs the public call (kw: ``stats=``);
    ``answer(result)`` -> numpy; ``check(ours, theirs)`` -> None or what differs;
    ``per_source``: an input is an array of sources and times are per source
    (a call's time over its sources)."""
    inputs: object
    call: object
    answer: object
    check: object
    per_source: bool = False


def _sources(g, case):
    return [int(s) for s in g.sources(SOURCES[case.device])]


def _batch(g, case):
    return [g.sources(BATCH)]


def _whole(g, case):
    return [None]


def _bfs_call(g, method, s, **kw):
    import bitgraph as bg

    # "window-rcm": the windowed kernel over A in RCM order, "direction-rcm": the persistent
    # kernel over A renumbered in RCM order (bfs's reorder=, built once)
    method, _, order = method.partition("-")
    if order:
        kw["reorder"] = order
    return bg.algorithms.bfs(g.A, s, method=method, **kw)


def _msbfs_call(g, method, src, **kw):
    import bitgraph as bg

    return bg.algorithms.msbfs(g.A, src, batch=BATCH, groupby=(method == "groupby"), **kw)


def _weighted(g, floats=None):
    """The graph with the suite's weights on its device (``floats``: / 255 as that float
    dtype, float64 or float32)."""
    import bitgraph as bg

    def build():
        r, c = g.coo()
        w = g.weights() if floats is None else (g.weights() / 255.0).astype(floats)
        return bg.Matrix.from_coo(r, c, w, nrows=g.n, ncols=g.n, device=g.device)

    return g.memo(("weighted", floats), build)


_SSSP_FLOATS = (("-float", "float64"), ("-f32", "float32"))  # method suffix -> weights' dtype


def _sssp_method(method):
    """``(method without its suffix, the weights' float dtype or None: the integer weights)``
    of an sssp case's method name.

    >>> _sssp_method("bellman-ford"), _sssp_method("delta-persistent-f32")
    (('bellman-ford', None), ('delta-persistent', 'float32'))
    """
    for suffix, dtype in _SSSP_FLOATS:
        if method.endswith(suffix):
            return method[:-len(suffix)], dtype
    return method, None


def _sssp_check(a, b):
    """Distances equal; float32 ones (summed in float32) within 1e-5 of float64 sums."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == np.float32 or b.dtype == np.float32:
        return close(rtol=1e-5)(a, b)
    return same_levels(a, b)


def _sssp_call(g, method, s, **kw):
    """sssp of the suite's weights; "-float": those / 255 as float64, "-f32": as float32 (what
    Gunrock's sssp computes in); "delta-persistent" and "delta-launches": method "delta" with
    settings.sssp.cuda_persistent on or off."""
    import bitgraph as bg

    method, floats = _sssp_method(method)
    schedule = {"delta-persistent": True, "delta-launches": False}.get(method)
    if schedule is None:
        return bg.algorithms.sssp(_weighted(g, floats), s, method=method, **kw)
    with bg.settings.use(sssp={"cuda_persistent": schedule}):
        return bg.algorithms.sssp(_weighted(g, floats), s, method="delta", **kw)


def _pagerank_call(g, method, _, **kw):
    import bitgraph as bg

    if method.endswith("-f32"):  # float32 ranks
        method, kw["dtype"] = method[:-4], np.float32
    if method != "auto":  # auto: the library's default method
        kw["method"] = method
    return bg.algorithms.pagerank(g.A, tol=PAGERANK_TOL / g.n, max_iter=100, **kw).ranks


def pagerank_iterations(g):
    """The power iterations our stop rule needs on ``g`` (the graphblas method,
    which checks it every iteration): what an anchor runs for the same whole run."""
    import bitgraph as bg

    return g.memo("pagerank iterations", lambda: int(bg.algorithms.pagerank(
        g.A, tol=PAGERANK_TOL / g.n, max_iter=100, method="graphblas").iterations))


def _cc_call(g, method, _, **kw):
    import bitgraph as bg

    return bg.algorithms.connected_components(g.A, method=method, **kw)


def _tc_call(g, method, _, **kw):
    import bitgraph as bg

    return bg.algorithms.triangle_count(g.A, method=method, **kw)


def _largest_component(g):
    """(on the CPU, on the case's device): the subgraph of the largest
    strongly connected component (a diameter is infinite otherwise), built
    once per graph, untimed."""
    def build():
        import bitgraph as bg
        from scipy.sparse.csgraph import connected_components

        S = g.scipy()
        _, label = connected_components(S, directed=True, connection="strong")
        keep = np.flatnonzero(label == np.bincount(label).argmax())
        sub = S[keep][:, keep].tocoo()
        cpu = bg.Matrix.from_coo(sub.row, sub.col, nrows=keep.size, ncols=keep.size)
        return cpu, cpu.to(g.device)

    return g.memo("largest component", build)


def _component_input(g, case):
    _largest_component(g)  # built here, before the timed calls
    return [None]


def _diameter_call(g, method, _, **kw):
    import bitgraph as bg

    return bg.algorithms.diameter(_largest_component(g)[1], **kw)  # one method


def _bounds_call(g, method, _, **kw):
    import bitgraph as bg

    return bg.algorithms.diameter_bounds(_largest_component(g)[1], **kw)


def _closeness_call(g, method, src, **kw):
    import bitgraph as bg

    return bg.algorithms.closeness_centrality(g.A, src, **kw)


def _bc_inputs(g, case):
    return [g.bc_sources(BC_SOURCES[case.device])]


def _bc_call(g, method, src, **kw):
    """NetworkX's unnormalised betweenness over the given sources (its scaling of a
    sample; ``bc_scale``)."""
    import bitgraph as bg

    return bg.algorithms.betweenness_centrality(g.A, sources=src, normalized=False, **kw)


def bc_scale(g, src):
    """Per vertex, what NetworkX's unnormalised betweenness over the sample
    ``src`` multiplies the raw sum of dependencies sum_s delta_s(v) by
    (``_rescale``: N / (k c) at other vertices, N / ((k - 1) c) at the sources;
    N = n - 1, c = 2 undirected, 1 directed): the factor that turns an
    anchor's raw sums into our answer.

    >>> import networkx as nx
    >>> import bitgraph as bg
    >>> g = Graph("kron:6", "cpu")
    >>> src = g.bc_sources(7)
    >>> raw = nx.betweenness_centrality_subset(g.networkx(), src.tolist(), range(g.n))
    >>> raw = np.array([raw[v] for v in range(g.n)])  # a DiGraph: the raw sums
    >>> ours = bg.algorithms.betweenness_centrality(g.A, sources=src, normalized=False)
    >>> bool(np.allclose(raw * bc_scale(g, src), ours))
    True
    """
    n, k = g.n, len(src)
    N, c = n - 1, (2 if g.symmetric() else 1)
    scale = np.full(n, N / (k * c))
    scale[np.asarray(src, np.int64)] = N / ((k - 1) * c) if k > 1 else np.nan
    return scale


def _mxv_inputs(g, case):
    """(Made once per graph and method.) plus_times: A with float values (float32 on CUDA: cuSPARSE's type) times a
    dense vector; bfs_step (and tensor_core, the same step with
    method="tensor_core": Blest's step on the BVSS of A'): the masked lor step
    at the BFS level with the most vertices (frontier = that level, mask =
    not yet visited)."""
    return g.memo(("mxv", case.method), lambda: _mxv_build(g, case))


def _mxv_build(g, case):
    import bitgraph as bg

    rng = np.random.default_rng(0)
    if case.method == "plus_times":
        dtype = np.float32 if case.device == "cuda" else np.float64
        r, c = g.coo()
        w = rng.random(r.size).astype(dtype)
        x = rng.random(g.n).astype(dtype)
        Aw = bg.Matrix.from_coo(r, c, w, nrows=g.n, ncols=g.n, device=case.device)
        return [{"A": Aw, "x": x, "w": w, "u": bg.Vector.from_dense(x, device=case.device)}]
    from scipy.sparse.csgraph import breadth_first_order

    deg = np.diff(g.scipy().indptr)
    order, pred = breadth_first_order(g.scipy(), int(np.argmax(deg)), return_predecessors=True)
    levels = _tree_levels(pred, order, g.n)
    counts = np.bincount(levels[levels >= 0])
    peak = int(np.argmax(counts))
    front, seen = levels == peak, (levels >= 0) & (levels <= peak)
    f_idx, v_idx = np.flatnonzero(front), np.flatnonzero(seen)
    return [{"front": front, "seen": seen, "f_idx": f_idx, "v_idx": v_idx,
             "f": bg.Vector.from_indices(f_idx, g.n, device=case.device),
             "v": bg.Vector.from_indices(v_idx, g.n, device=case.device)}]


def _mxv_call(g, method, inp, **kw):
    import bitgraph as bg

    if method == "plus_times":
        return bg.mxv(inp["A"], inp["u"], bg.PLUS_TIMES)
    # a BFS step on A': q<!visited> = A' lor.land f, a bool result (any.pair gives
    # int64, as python-graphblas's untyped any_pair does); the plan's method, or
    # Blest's tensor-core step on the BVSS of A'
    return bg.mxv(g.A.T, inp["f"], bg.LOR_LAND, mask=~inp["v"].S,
                  method="tensor_core" if method == "tensor_core" else "auto")


def _mxv_answer(y):
    from bitgraph.vector import Vector

    if isinstance(y, Vector):
        y = y.to("cpu")
        if y.dtype == np.bool_:
            return np.asarray(y.indices())
        return y.to_dense(0)
    return np.asarray(y)


def _mxv_check(a, b):
    if a.dtype.kind in "iu" or b.dtype.kind in "iu" or a.size != b.size:
        return None if np.array_equal(a, b) else "structures differ"
    return close(rtol=1e-4 if a.dtype == np.float32 or b.dtype == np.float32 else 1e-9,
                 atol=1e-6)(a, b)


def _mxm_inputs(g, case):
    import bitgraph as bg

    L = bg.select(g.A, "tril", -1)
    return [{"L": L}]


def _mxm_call(g, method, inp, **kw):
    import bitgraph as bg

    L = inp["L"]
    # C<L> = L plus.pair L', summed: the triangles
    return bg.reduce(bg.mxm(L, L.T, bg.PLUS_PAIR, mask=L.S))


def _scalar(x):
    """An int from a count: a Python or NumPy number, a CuPy scalar, or None (an
    empty reduction: 0)."""
    if x is None:
        return 0
    x = host(x) if not isinstance(x, (int, np.integer)) else x
    return int(np.asarray(x).reshape(-1)[0]) if np.ndim(x) else int(x)


ALGOS = {
    "bfs": Algo(_sources, _bfs_call, host, same_levels),
    "msbfs": Algo(_batch, _msbfs_call, host, same_levels),
    "sssp": Algo(_sources, _sssp_call, host, _sssp_check),
    "pagerank": Algo(_whole, _pagerank_call, host, close(l1=1e-5)),
    "connected_components": Algo(_whole, _cc_call, host, same_partition),
    "triangle_count": Algo(_whole, _tc_call, _scalar, same_count),
    "diameter": Algo(_component_input, _diameter_call, _scalar, same_count),
    "diameter_bounds": Algo(_component_input, _bounds_call, host, same_levels),
    "closeness": Algo(_batch, _closeness_call, host, close(rtol=1e-9)),
    "betweenness": Algo(_bc_inputs, _bc_call, host, close(rtol=1e-9, atol=1e-9),
                        per_source=True),
    "mxv": Algo(_mxv_inputs, _mxv_call, _mxv_answer, _mxv_check),
    "mxm": Algo(_mxm_inputs, _mxm_call, _scalar, same_count),
}


# === baselines ==============================================================================
# A baseline is make(g, case) -> (call(inp) -> raw, answer(raw) -> numpy), or None when it
# does not apply to this graph (networkx on a large one). Setup (conversions) is untimed.
def _tree_levels(pred, order, n):
    """BFS levels from scipy's BFS tree, by pointer jumping (O(n log depth))."""
    idx = np.arange(n)
    p = np.where(pred >= 0, pred, idx)
    d = (pred >= 0).astype(np.int64)
    while True:
        q = p[p]
        if np.array_equal(q, p):
            break
        d = d + d[p]
        p = q
    out = np.full(n, -1, np.int64)
    out[order] = d[order]
    return out


def _gb_bfs(G, s):
    """SuiteSparse: q<!v, replace> = q any.pair A per level, v(q) = level."""
    import graphblas as gb

    v = gb.Vector(gb.dtypes.INT64, G.nrows)
    q = gb.Vector(bool, G.nrows)
    q[s] << True
    level = 0
    while q.nvals:
        v(q.S) << level
        q(~v.S, replace=True) << gb.semiring.any_pair[bool](q @ G)
        level += 1
    return v


def _gb_dense(v, n, fill=-1):
    idx, val = v.to_coo()
    out = np.full(n, fill, np.float64 if np.asarray(val).dtype.kind == "f" else np.int64)
    out[idx] = val
    return out


def b_bfs_suitesparse(g, case):
    G = g.graphblas()
    return (lambda s: _gb_bfs(G, s)), (lambda v: _gb_dense(v, g.n))


def b_bfs_scipy(g, case):
    from scipy.sparse.csgraph import breadth_first_order

    S = g.scipy()
    return ((lambda s: breadth_first_order(S, s, directed=True, return_predecessors=True)),
            (lambda r: _tree_levels(r[1], r[0], g.n)))


def b_msbfs_suitesparse(g, case):
    import graphblas as gb

    G = g.graphblas()

    def run(src):
        # F<!V, replace> = F lor.land A: every source's next frontier at once
        k = len(src)
        levels = np.full((k, g.n), -1, np.int32)
        F = gb.Matrix.from_coo(np.arange(k), src, True, nrows=k, ncols=g.n)
        V = F.dup()
        levels[np.arange(k), src] = 0
        level = 0
        while F.nvals:
            level += 1
            F(~V.S, replace=True) << F.mxm(G, gb.semiring.lor_land)
            V(F.S) << True
            r, c, _ = F.to_coo()
            levels[r, c] = level
        return levels

    return run, np.asarray


def b_msbfs_scipy(g, case):
    run, answer = b_bfs_scipy(g, case)
    return (lambda src: [run(int(s)) for s in src]), (lambda rs: np.stack([answer(r) for r in rs]))


def b_msbfs_loop(g, case):
    """The same sources as single ``bfs`` calls (auto), one after another."""
    import bitgraph as bg

    return (lambda src: [bg.algorithms.bfs(g.A, int(s)) for s in src]), \
        (lambda vs: np.stack([host(v) for v in vs]))


def b_sssp_scipy(g, case):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import dijkstra

    floats = _sssp_method(case.method)[1]  # the weights / 255, distances compared as floats

    def build():
        r, c = g.coo()
        w = g.weights().astype(np.float64) if floats is None else \
            (g.weights() / 255.0).astype(floats).astype(np.float64)
        return sp.csr_array((w, (r, c)), shape=(g.n, g.n))

    S = g.memo(("scipy weighted", floats), build)

    def answer(d):
        out = np.where(np.isfinite(d), d, -1)
        return out if floats else out.astype(np.int64)

    return (lambda s: dijkstra(S, directed=True, indices=s)), answer


def b_sssp_suitesparse(g, case):
    import graphblas as gb

    def build():
        r, c = g.coo()
        return gb.Matrix.from_coo(r, c, g.weights().astype(np.int64), nrows=g.n, ncols=g.n)

    W = g.memo("graphblas weighted", build)

    def run(s):
        # frontier Bellman-Ford: t = f min.plus W; d = min(d, t); f = what improved
        d = gb.Vector(gb.dtypes.INT64, g.n)
        d[s] << 0
        f = d.dup()
        while f.nvals:
            t = f.vxm(W, gb.semiring.min_plus).new()
            dn = d.ewise_add(t, gb.binary.min).new()
            lt = dn.ewise_mult(d, gb.binary.lt).new()
            f = gb.Vector(gb.dtypes.INT64, g.n)
            f(~d.S) << dn
            f(lt.V) << dn
            d = dn
        return d

    return run, (lambda v: _gb_dense(v, g.n))


def _pagerank_power(P, xp, n, dangling, tol, max_iter=100, alpha=0.85, dtype=np.float64):
    """networkx's power iteration with y = x' A as ``P @ x`` (P = A', scaled;
    x of ``dtype``)."""
    x = xp.full(n, 1.0 / n, dtype)
    for _ in range(max_iter):
        last = x
        x = alpha * (P @ x + float(last[dangling].sum()) / n) + (1 - alpha) / n
        if float(xp.abs(x - last).sum()) < n * tol:
            break
    return x


def b_pagerank_scipy(g, case):
    import scipy.sparse as sp

    S = g.scipy()
    deg = np.asarray(S.sum(axis=1)).ravel()
    inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    P = (sp.diags_array(inv) @ S).T.tocsr()  # the row-normalised A, transposed
    dangling = np.flatnonzero(deg == 0)
    return (lambda _: _pagerank_power(P, np, g.n, dangling, PAGERANK_TOL / g.n)), np.asarray


def _pagerank_cusparse(dtype):
    """The power iteration of ``b_pagerank_scipy`` on the GPU, as lean as cupyx
    allows: cuSPARSE's SpMV on P = (D^-1 A)' of ``dtype`` and the few
    elementwise kernels of the update, for exactly the iterations our stop
    rule needs (``pagerank_iterations``), with no host read until the end
    (an error check an iteration would add a synchronisation each): its time
    over those iterations is per iteration what the issue compares."""
    def make(g, case):
        import cupy
        import cupyx.scipy.sparse as cusp
        import scipy.sparse as sp

        S = g.scipy()
        deg = np.asarray(S.sum(axis=1)).ravel()
        inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
        P = cusp.csr_matrix((sp.diags_array(inv) @ S).T.tocsr().astype(dtype))
        dangling = cupy.asarray(np.flatnonzero(deg == 0))
        n, k, alpha = g.n, pagerank_iterations(g), dtype(0.85)
        tele = dtype((1 - 0.85) / n)

        def run(_):
            x = cupy.full(n, 1.0 / n, dtype)
            for _ in range(k):
                lost = x[dangling].sum() / n if dangling.size else dtype(0)  # on the device
                x = alpha * (P @ x + lost) + tele
            return x

        return run, host

    return make


def b_pagerank_suitesparse(g, case):
    import graphblas as gb

    n = g.n
    G = g.graphblas()
    deg = _gb_dense(G.reduce_rowwise(gb.agg.count).new(), n, 0).astype(np.float64)
    inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    dangling = deg == 0
    Gf = gb.Matrix.from_coo(*g.coo(), 1.0, nrows=n, ncols=n)

    def run(_):
        x = np.full(n, 1.0 / n)
        tol = PAGERANK_TOL / n
        for _ in range(100):
            last = x
            t = gb.Vector.from_dense(x * inv).vxm(Gf, gb.semiring.plus_times).new()
            y = _gb_dense(t, n, 0.0)
            x = 0.85 * (y + float(last[dangling].sum()) / n) + 0.15 / n
            if np.abs(x - last).sum() < n * tol:
                break
        return x

    return run, np.asarray


def b_pagerank_networkx(g, case):
    if g.nvals > NX_MAX_EDGES:
        return None
    import networkx as nx

    G = g.networkx()
    return (lambda _: nx.pagerank(G, tol=PAGERANK_TOL / g.n, max_iter=100)), \
        (lambda d: np.array([d[i] for i in range(g.n)]))


def b_cc_scipy(g, case):
    from scipy.sparse.csgraph import connected_components

    S = g.scipy()
    return (lambda _: connected_components(S, directed=True, connection="weak")[1]), np.asarray


def b_cc_networkx(g, case):
    if g.nvals > NX_MAX_EDGES:
        return None
    import networkx as nx

    G = g.networkx()

    def answer(comps):
        lab = np.empty(g.n, np.int64)
        for i, comp in enumerate(comps):
            lab[list(comp)] = i
        return lab

    return (lambda _: list(nx.weakly_connected_components(G))), answer


def b_tc_suitesparse(g, case):
    import graphblas as gb

    def build():
        L = gb.select.tril(g.graphblas(), -1).new()
        return L

    L = g.memo("graphblas L", build)

    def run(_):
        c = gb.semiring.plus_pair(L @ L.T).new(mask=L.S).reduce_scalar().get(0)
        return 0 if c is None else int(c)

    return run, int


def b_tc_networkx(g, case):
    if g.nvals > NX_MAX_EDGES:
        return None
    import networkx as nx

    G = g.memo("networkx undirected", lambda: g.networkx().to_undirected())
    return (lambda _: sum(nx.triangles(G).values()) // 3), int


def b_tc_cusparse(g, case):
    """The row-blocked cuSPARSE count (``b_mxm_cusparse``) of the graph's
    lower triangle (the graphs are symmetric)."""
    return b_mxm_cusparse(g, case)


def b_diameter_cpu(g, case):
    """bitgraph's own CPU call on the host copy: the answer a CUDA call must equal."""
    import bitgraph as bg

    f = bg.algorithms.diameter if case.algo == "diameter" else bg.algorithms.diameter_bounds
    cpu = _largest_component(g)[0]
    return (lambda _: f(cpu)), (int if case.algo == "diameter" else host)


def b_closeness_scipy(g, case):
    from scipy.sparse.csgraph import shortest_path

    S = g.scipy()

    def run(src):
        # incoming distances: BFS distances in A' from each source
        d = shortest_path(S.T.tocsr(), unweighted=True, indices=src)
        out = np.zeros(len(src))
        for i, row in enumerate(d):
            fin = row[np.isfinite(row)]
            reached, total = fin.size - 1.0, fin.sum()
            if total > 0 and g.n > 1:
                out[i] = reached / total * (reached / (g.n - 1))
        return out

    return run, np.asarray


def b_closeness_networkx(g, case):
    if g.nvals > NX_MAX_EDGES:
        return None
    import networkx as nx

    # networkx's closeness of u: BFS distances *to* u (in the reverse graph), then
    # (r - 1) / total * (r - 1) / (n - 1); nx.closeness_centrality(G, u) copies the
    # reverse of a DiGraph on every call, so the view is made once here
    R = g.memo("networkx reverse", lambda: g.networkx().reverse(copy=False))

    def one(u):
        d = nx.single_source_shortest_path_length(R, u)
        reached, total = len(d) - 1.0, float(sum(d.values()))
        return reached / total * (reached / (g.n - 1)) if total > 0 and g.n > 1 else 0.0

    return (lambda src: [one(int(u)) for u in src]), np.asarray


def b_bc_networkx(g, case):
    if g.nvals > NX_MAX_EDGES:
        return None
    import networkx as nx

    G = g.networkx()  # a DiGraph: betweenness_centrality_subset gives the raw sums

    def answer(args):
        d, src = args
        return np.array([d[v] for v in range(g.n)]) * bc_scale(g, src)

    return (lambda src: (nx.betweenness_centrality_subset(G, src.tolist(), range(g.n),
                                                          normalized=False), src)), answer


def b_bc_cpu(g, case):
    """bitgraph's own CPU call on the host copy: the values a CUDA call must equal."""
    import bitgraph as bg

    return (lambda src: bg.algorithms.betweenness_centrality(g.cpu, sources=src,
                                                             normalized=False)), host


def b_mxv_suitesparse(g, case):
    import graphblas as gb

    inp = _mxv_inputs(g, case)[0]
    r, c = g.coo()
    if case.method == "plus_times":
        Gw = gb.Matrix.from_coo(r, c, inp["w"], nrows=g.n, ncols=g.n)
        gu = gb.Vector.from_dense(inp["x"])
        return (lambda _: Gw.mxv(gu, gb.semiring.plus_times).new()), \
            (lambda v: _gb_dense(v, g.n, 0.0))
    G = g.graphblas()
    gf = gb.Vector.from_coo(inp["f_idx"], True, size=g.n)
    gv = gb.Vector.from_coo(inp["v_idx"], True, size=g.n)

    def step(_):
        out = gb.Vector(bool, g.n)
        out(~gv.S) << G.T.mxv(gf, gb.semiring.any_pair)
        return out

    return step, (lambda v: np.asarray(v.to_coo()[0], np.int64))


def b_mxv_scipy(g, case):
    if case.method != "plus_times":
        return None
    import scipy.sparse as sp

    inp = _mxv_inputs(g, case)[0]
    S = sp.csr_array((inp["w"], g.coo()), shape=(g.n, g.n))
    return (lambda _: S @ inp["x"]), np.asarray


def b_mxv_cusparse(g, case):
    import cupy
    import cupyx.scipy.sparse as cusp

    inp = _mxv_inputs(g, case)[0]
    r, c = g.coo()
    if case.method == "plus_times":
        S = cusp.csr_matrix(cusp.coo_matrix((cupy.asarray(inp["w"]), (cupy.asarray(r),
                                                                         cupy.asarray(c))),
                                            shape=(g.n, g.n)))
        x = cupy.asarray(inp["x"])
        return (lambda _: S @ x), host
    ST = cusp.csr_matrix(cusp.coo_matrix((cupy.ones(r.size, np.float32),
                                          (cupy.asarray(c), cupy.asarray(r))), shape=(g.n, g.n)))
    xf = cupy.asarray(inp["front"].astype(np.float32))
    allowed = cupy.asarray(~inp["seen"])
    # cuSPARSE's BFS step: the SpMV of the frontier, then the mask
    return (lambda _: ((ST @ xf) != 0) & allowed), \
        (lambda y: np.flatnonzero(host(y)).astype(np.int64))


def b_mxm_suitesparse(g, case):
    return b_tc_suitesparse(g, case)


def b_mxm_cusparse(g, case):
    """(L @ L') .* L summed by row blocks of at most 1e8 products, a block halved
    when cuSPARSE refuses it (BASELINES.md: one expression fails or comes back
    empty on large graphs)."""
    import cupy
    import cupyx.scipy.sparse as cusp
    import scipy.sparse as sp

    L0 = sp.tril(g.scipy(np.float32), -1, format="csr")
    L = cusp.csr_matrix(L0)
    LT = cusp.csr_matrix(L0.T.tocsr())
    # products of row i of L @ L': the lengths of the rows of L' (columns of L) it meets
    colcount = np.bincount(L0.indices, minlength=g.n)
    rows = np.repeat(np.arange(g.n), np.diff(L0.indptr))
    products = np.bincount(rows, weights=colcount[L0.indices], minlength=g.n).astype(np.int64)
    cum = np.cumsum(products)
    cuts = np.searchsorted(cum, np.arange(10**8, int(cum[-1]) if g.n else 0, 10**8),
                           side="right")
    bounds = np.unique(np.concatenate([[0, g.n], cuts])).tolist()

    def run(_):
        stack = [(bounds[i], bounds[i + 1]) for i in range(len(bounds) - 1)][::-1]
        total = 0
        while stack:
            r0, r1 = stack.pop()
            Lb = L[r0:r1]
            try:
                C = (Lb @ LT).multiply(Lb)
            except Exception:  # CUSPARSE_STATUS_INSUFFICIENT_RESOURCES: halve the block
                if r1 - r0 <= 1:
                    raise
                mid = (r0 + r1) // 2
                stack += [(mid, r1), (r0, mid)]
                continue
            total += int(C.data.astype(cupy.int64).sum()) if C.nnz else 0
        return total

    return run, int


BASELINES = {
    ("bfs", "SuiteSparse"): b_bfs_suitesparse,
    ("bfs", "scipy"): b_bfs_scipy,
    ("msbfs", "SuiteSparse"): b_msbfs_suitesparse,
    ("msbfs", "scipy"): b_msbfs_scipy,
    ("msbfs", "loop of bfs"): b_msbfs_loop,
    ("sssp", "SuiteSparse"): b_sssp_suitesparse,
    ("sssp", "scipy"): b_sssp_scipy,
    ("pagerank", "SuiteSparse"): b_pagerank_suitesparse,
    ("pagerank", "scipy"): b_pagerank_scipy,
    ("pagerank", "networkx"): b_pagerank_networkx,
    ("pagerank", "cuSPARSE"): _pagerank_cusparse(np.float64),
    ("pagerank", "cuSPARSE f32"): _pagerank_cusparse(np.float32),
    ("connected_components", "scipy"): b_cc_scipy,
    ("connected_components", "networkx"): b_cc_networkx,
    ("triangle_count", "SuiteSparse"): b_tc_suitesparse,
    ("triangle_count", "networkx"): b_tc_networkx,
    ("triangle_count", "cuSPARSE"): b_tc_cusparse,
    ("diameter", "bitgraph CPU"): b_diameter_cpu,
    ("diameter_bounds", "bitgraph CPU"): b_diameter_cpu,
    ("closeness", "scipy"): b_closeness_scipy,
    ("closeness", "networkx"): b_closeness_networkx,
    ("betweenness", "networkx"): b_bc_networkx,
    ("betweenness", "bitgraph CPU"): b_bc_cpu,
    ("mxv", "SuiteSparse"): b_mxv_suitesparse,
    ("mxv", "scipy"): b_mxv_scipy,
    ("mxv", "cuSPARSE"): b_mxv_cusparse,
    ("mxm", "SuiteSparse"): b_mxm_suitesparse,
    ("mxm", "cuSPARSE"): b_mxm_cusparse,
}


# === external anchors ======================================================================
@dataclass(frozen=True)
class Anchor:
    """An external binary ``binary`` (relative to the anchors folder) run as
    ``argv`` ({file}: the graph written in ``fmt``, {repeat}; {sources} and
    {nsources}: the case's sources comma-joined and their number; {source}:
    the one source of a ``per_source`` run; {iterations}: the power
    iterations our pagerank's stop rule needs; {head}: min(n, BC_HEAD)) with
    ``env`` (formatted alike) added to the environment; its time is the
    first group of ``time_re`` in units of ``unit_ms`` milliseconds (with
    ``time_mean``: the mean of every match, one per source, as many as the
    sources; with ``per_source``: one run per source, over the first
    BC_ANCHOR_SOURCES, and the mean of the runs' times);
    ``fail_re`` in its output marks a wrong answer (its own verifier), and
    ``ok_re``, where given, must be there (its verifier's success line);
    ``iterations_re``: the iterations it printed, equal to {iterations}.
    ``count_re``: its printed count, ``count_scale`` times ours; ``head_re``:
    the first values it prints of a per-vertex answer (space separated),
    times ``head_scale(g, sources)`` (per vertex; None: 1), equal to ours
    within ``head_rtol`` and ``head_atol``; ``check(g, source, output)``:
    None or what is wrong in a ``per_source`` run's output; ``head_float32``:
    its values overflow where ours do not (``anchor_notes``)."""
    binary: str
    fmt: str
    argv: tuple
    time_re: str
    fail_re: str = r"FAIL"
    count_re: str = ""  # its printed count (components, triangles): compared with ours
    unit_ms: float = 1e3
    # run under an unlimited stack (the soft limit raised to the hard one): ECL-CC's verifier
    # recurses once per vertex of a component, past 8 MB of stack at 2^21 vertices (SIGSEGV)
    deep_stack: bool = False
    ok_re: str = ""
    count_scale: int = 1
    head_re: str = ""
    head_rtol: float = 1e-5
    head_atol: float = 0.0
    # its values are float32 sums of float32 path counts: where a count passes float32's
    # largest (3.4e38: past about 128 BFS levels on a grid) its value is not finite while
    # ours (float64, to 1.8e308) is; those are counted in the row's note, not as a mismatch
    head_float32: bool = False
    iterations_re: str = ""
    env: tuple = ()  # (name, value) pairs
    per_source: bool = False
    time_mean: bool = False
    head_scale: object = None
    check: object = None
    # an anchor of more than one command (Blest: its reordering, then its kernel): a function
    # (anchor, exe, g, folder, repeat, sources, iterations) -> run_anchor's tuple
    run: object = None
    levels: bool = False  # its "head" is its levels per source, each equal to ours
    label: str = ""  # its column ("<label> ms") where not its name


GAPBS_TIME = r"Average Time:\s+([0-9.eE+-]+)"
# Gunrock v2 (gunrock/gunrock main) examples, built by benchmarks/gunrock.sh (sm_90, static
# cudart) with its CUDA fixes; each prints its own timer in ms. EAGER module loading keeps
# the one-time module load out of the timed first launch (tc times a single run)
GUNROCK_TIME = r"GPU Elapsed Time : ([0-9.eE+-]+) \(ms\)"
GUNROCK_ENV = (("CUDA_MODULE_LOADING", "EAGER"),)
# Blest (github.com/delbek/blest), built by benchmarks/blest.sh: its driver runs Blest's own
# classes on our graph (ECL's .egr file, symmetric) in Blest's order, Jaccard with window
# BLEST_WINDOW for the graphs its own test calls social, RCM otherwise (its README's
# setting). The reordering is a command of its own, timed apart from the kernel and kept
# in $BITGRAPH_BLEST_CACHE (a folder) where set, so that a later run skips it (57 s for
# kron-22 on the GPU machine's 16 cores); unset, it lasts the process
BLEST_WINDOW = 65536
BLEST_ORDER_TIMEOUT = 3600  # seconds; kron-24's reordering takes minutes
_BLEST_TMP = []  # this process's scratch folder (orderings when uncached, BFS levels)


def _blest_tmp():
    if not _BLEST_TMP:
        import atexit

        _BLEST_TMP.append(tempfile.mkdtemp(prefix="bitgraph-blest-"))
        atexit.register(shutil.rmtree, _BLEST_TMP[0], True)
    return Path(_BLEST_TMP[0])


def blest_ms(text, time_re):
    """Blest's kernel ms from its driver's output: ``time_re``'s matches
    (groups: input, ms), the median of each input's runs, their mean (as
    ours: median per source, mean over the sources).

    >>> out = ("Blest BFS source 7 run 0: 0.310000 ms, levels 6, visited 2000\\n"
    ...        "Blest BFS source 7 run 1: 0.290000 ms, levels 6, visited 2000\\n"
    ...        "Blest BFS source 7 run 2: 0.300000 ms, levels 6, visited 2000\\n"
    ...        "Blest BFS source 9 run 0: 0.500000 ms, levels 7, visited 2000\\n")
    >>> round(blest_ms(out, ANCHORS["bfs", "Blest"].time_re), 6)
    0.4
    >>> blest_ms("Blest CC run 0: 0.660000 ms, components 3\\n"
    ...          "Blest CC run 1: 0.640000 ms, components 3\\n",
    ...          ANCHORS["connected_components", "Blest"].time_re)
    0.65
    >>> blest_ms("GPUassert: out of memory", ANCHORS["bfs", "Blest"].time_re) is None
    True
    """
    runs = {}
    for key, ms in re.findall(time_re, text):
        runs.setdefault(key, []).append(float(ms))
    return statistics.fmean(statistics.median(v) for v in runs.values()) if runs else None


def _blest_order(exe, g, graph):
    """Blest's ordering of ``g`` (file ``graph``): its file, made by the
    driver's ``order`` command where not kept yet (its time printed, not part
    of the kernel's), and why there is none (or None)."""
    folder = Path(os.environ.get("BITGRAPH_BLEST_CACHE") or _blest_tmp())
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", g.spec)
    path = folder / f"{name}.n{g.n}.m{g.nvals}.w{BLEST_WINDOW}.blest-order"
    if path.exists():
        return path, None
    argv = [str(exe), "order", str(graph), str(path), str(BLEST_WINDOW), "1"]
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=BLEST_ORDER_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, f"Blest: its reordering took over {BLEST_ORDER_TIMEOUT} s"
    text = out.stdout + out.stderr
    m = re.search(r"Blest reorder: ([0-9.eE+-]+) s", text)
    if out.returncode != 0 or not m or not path.exists():
        return None, f"Blest: its reordering failed ({out.returncode}): {text.strip()[-200:]}"
    how = "Jaccard" if "Jaccard" in text else "RCM" if "RCM" in text else "?"
    print(f"# Blest reorder of {g.spec} ({how}): {float(m.group(1)):.1f} s, kept in {path}",
          file=sys.stderr, flush=True)
    return path, None


def _run_blest(anchor, exe, g, folder, repeat, sources, iterations):
    """Blest's BFS or CC through its driver: the ordering, then the kernel;
    its time (``blest_ms``), its component count (all runs alike) and, for
    BFS, its levels per source (memory-mapped files of this process's scratch
    folder)."""
    graph = _write_graph(g, anchor.fmt, folder)
    order, why = _blest_order(exe, g, graph)
    if why:
        return None, why, None, None
    levels = Path(tempfile.mkdtemp(prefix="levels-", dir=_blest_tmp()))
    values = dict(file=graph, order=order, repeat=repeat, dir=levels,
                  sources=",".join(str(int(s)) for s in sources))
    argv = [str(exe)] + [a.format(**values) for a in anchor.argv]
    env = {**os.environ, **dict(anchor.env)}
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env)
    except subprocess.TimeoutExpired:
        return None, f"{anchor.binary}: no answer in 600 s", None, None
    text = out.stdout + out.stderr
    ms = blest_ms(text, anchor.time_re)
    if out.returncode != 0 or ms is None:
        return None, f"{anchor.binary} failed ({out.returncode}): {text.strip()[-200:]}", \
            None, None
    count = None
    if anchor.count_re:
        counts = {int(c) for c in re.findall(anchor.count_re, text)}
        if len(counts) != 1:
            return None, f"{anchor.binary}: its runs counted {sorted(counts)}", None, None
        count = counts.pop()
    head = None
    if anchor.levels:
        files = [levels / f"levels-{i}.bin" for i in range(len(sources))]
        if not all(f.exists() for f in files):
            return None, f"{anchor.binary}: no levels written", None, None
        head = [np.memmap(f, np.int32, "r", shape=(g.n,)) for f in files]
    return ms, None, count, head


ANCHORS = {
    # gapbs (github.com/sbeamer/gapbs), built with `make`: -v runs its verifier per trial
    ("bfs", "gapbs"): Anchor("gapbs/bfs", "el", ("-f", "{file}", "-n", "{repeat}", "-v"),
                             GAPBS_TIME),
    ("sssp", "gapbs"): Anchor("gapbs/sssp", "wel", ("-f", "{file}", "-n", "{repeat}", "-v"),
                              GAPBS_TIME),
    ("pagerank", "gapbs"): Anchor("gapbs/pr", "el", ("-f", "{file}", "-n", "{repeat}", "-i", "100",
                                                     "-t", str(PAGERANK_TOL), "-v"), GAPBS_TIME),
    # gapbs's pr is a Gauss-Seidel pull (a new score feeds the rest of its iteration: fewer
    # iterations to the same L1 rule, other ranks); pr_spmv is the power iteration ours and
    # networkx run, the like-for-like whole run
    ("pagerank", "gapbs spmv"): Anchor("gapbs/pr_spmv", "el", ("-f", "{file}", "-n", "{repeat}",
                                                               "-i", "100", "-t",
                                                               str(PAGERANK_TOL), "-v"),
                                       GAPBS_TIME),
    ("connected_components", "gapbs"): Anchor("gapbs/cc", "el", ("-f", "{file}", "-s", "-n",
                                                                 "{repeat}", "-v"), GAPBS_TIME),
    ("triangle_count", "gapbs"): Anchor("gapbs/tc", "el", ("-f", "{file}", "-s", "-n", "{repeat}",
                                                           "-v"), GAPBS_TIME),
    # gapbs bc: -r fixes its source (-i k would repeat that one source k times), so one run
    # per source (-i 1: a trial is one source, allocation included, as gapbs times it);
    # -v: its serial verifier per trial; -a: its top 5 scores (checked against ours)
    ("betweenness", "gapbs"): Anchor("gapbs/bc", "el", ("-f", "{file}", "-r", "{source}", "-i",
                                                        "1", "-n", "{repeat}", "-a", "-v"),
                                     GAPBS_TIME, ok_re=r"Verification:\s+PASS", per_source=True,
                                     check=lambda g, s, out: gapbs_bc_problems(g, s, out)),
    # gapbs bc as the issue times it, a batch of sources per trial (-i: its own seeded
    # sample, as many as ours; -r cannot name several): the trial's time over its sources,
    # checked by its verifier
    ("betweenness", "gapbs batch"): Anchor("gapbs/bc", "el", ("-f", "{file}", "-i",
                                                              str(BC_SOURCES["cpu"]), "-n",
                                                              "{repeat}", "-v"),
                                           GAPBS_TIME, ok_re=r"Verification:\s+PASS",
                                           unit_ms=1e3 / BC_SOURCES["cpu"]),
    # ECL-CC (burtscher/ECL-Suite ECL-CC_11.cu, nvcc -O3 -arch=sm_90): for a CUDA cc case.
    # It takes the file alone (any other argument is a usage error) and runs once; its
    # verifier exits non-zero on a wrong labelling; its component count is checked against ours
    ("connected_components", "ECL-CC"): Anchor("ecl-cc", "egr", ("{file}",),
                                               r"(?:runtime|compute time):\s+([0-9.eE+-]+)",
                                               count_re=r"number of connected components:\s+(\d+)",
                                               deep_stack=True),
    # Gunrock sssp: the suite's integer weights 1..255 (as its float32), one run per source
    # of ours (-s list, -n their number); it prints the LAST run's time (that source's, the
    # runs before it warm up) and --validate checks that source's distances against its CPU
    # Dijkstra ("Number of errors : 0"; a mismatch prints "Error: x != y")
    ("sssp", "Gunrock"): Anchor("gunrock/sssp", "w.mtx",
                                ("-m", "{file}", "-s", "{sources}", "-n", "{nsources}",
                                 "--validate"), GUNROCK_TIME, fail_re=r"Error",
                                unit_ms=1.0, ok_re=r"(?m)^Number of errors : 0\s*$",
                                env=GUNROCK_ENV),
    # Gunrock pr: alpha 0.85, float32, dangling rank spread uniformly, from 1/n (our model).
    # Upstream it stops when max_i |p_i - p_last_i| < 1e-6 (fixed in pr.cu; on graphs whose
    # ranks are all near 1/n < 1e-6 that is a few iterations), a rule ours (L1 change <
    # PAGERANK_TOL) cannot be mapped to; gunrock.sh lets the environment set its tolerance
    # and an iteration cap, so it runs exactly the iterations our rule needs (tolerance 0,
    # cap {iterations}: the same whole run) and prints them ("PR iterations : N", checked).
    # -n {repeat} runs, the last one's time. Its answer: the first 40 ranks it prints
    # ("GPU rank[:40] = ...") within 1% of ours (float32 after the same iterations)
    ("pagerank", "Gunrock"): Anchor("gunrock/pr", "mtx", ("-m", "{file}", "-n", "{repeat}"),
                                    GUNROCK_TIME, fail_re=r"Error", unit_ms=1.0,
                                    head_re=r"GPU rank\[:\d+\] = ([^\n]*)", head_rtol=1e-2,
                                    iterations_re=r"PR iterations : (\d+)",
                                    env=GUNROCK_ENV + (("GUNROCK_PR_TOL", "0"),
                                                       ("GUNROCK_PR_MAX_ITER", "{iterations}"))),
    # Gunrock tc (patched by gunrock.sh: upstream counts 0): a symmetric file (it refuses
    # any other), one run; --reduce prints the total, which counts each triangle once per
    # corner (3x ours)
    ("triangle_count", "Gunrock"): Anchor("gunrock/tc", "sym.mtx", ("-m", "{file}", "--reduce"),
                                          GUNROCK_TIME, fail_re=r"Error", unit_ms=1.0,
                                          count_re=r"Total Graph Traingles : (\d+)",
                                          count_scale=3, env=GUNROCK_ENV),
    # Gunrock bc (patched by gunrock.sh: upstream's values are wrong beyond one merge-path
    # tile): our sources one after another (-s list), after one untimed warm-up run; each
    # run prints "BC source S : T (ms)" (the mean is its time per source); its values, the
    # sum over the runs of delta_s(v) / 2 in float32, printed for the first {head} vertices,
    # times 2 bc_scale equal ours within 1e-3
    ("betweenness", "Gunrock"): Anchor("gunrock/bc", "mtx",
                                       ("-m", "{file}", "-s", "{sources}", "-n", "{nsources}"),
                                       r"BC source \d+ : ([0-9.eE+-]+) \(ms\)", fail_re=r"Error",
                                       unit_ms=1.0, time_mean=True,
                                       head_re=r"GPU bc values\[:\d+\] = ([^\n]*)",
                                       head_rtol=1e-3, head_atol=1e-9, head_float32=True,
                                       head_scale=lambda g, src: 2 * bc_scale(g, src),
                                       env=GUNROCK_ENV + (("GUNROCK_BC_WARMUP", "1"),
                                                          ("GUNROCK_BC_HEAD", "{head}"))),
    # Blest's BFS (BVSSBFSKernel) from each of our sources, {repeat} runs each: its levels
    # per source equal to ours; and its BVSS CC kernel, {repeat} runs (the constant group
    # "(run)": all runs one input): its component count equal to ours (its per-vertex
    # relabel is not read: it looks wrong when read). EAGER loading as for Gunrock
    ("bfs", "Blest"): Anchor("blest/blest", "egr",
                             ("bfs", "{file}", "{order}", "{sources}", "{repeat}", "{dir}"),
                             r"Blest BFS source (\d+) run \d+: ([0-9.eE+-]+) ms",
                             run=_run_blest, levels=True, label="Blest kernel",
                             env=GUNROCK_ENV),
    ("connected_components", "Blest"): Anchor("blest/blest", "egr",
                                              ("cc", "{file}", "{order}", "{repeat}"),
                                              r"Blest CC (run) \d+: ([0-9.eE+-]+) ms",
                                              count_re=r"Blest CC run \d+: [0-9.eE+-]+ ms, "
                                                       r"components (\d+)",
                                              run=_run_blest, label="Blest kernel",
                                              env=GUNROCK_ENV),
}


def gapbs_bc_problems(g, source, out):
    """What differs between gapbs bc's top scores in ``out`` (its -a lines
    "v:score" of one source's run: its sums over that source's dependencies,
    the source's own delta_s(s) = reached - 1 included, over their maximum)
    and ours for that source; None if nothing.

    >>> g = Graph("grid:3x3", "cpu")  # gapbs bc -r 0 -i 1 -a on it prints:
    >>> gapbs_bc_problems(g, 0, "0:1\\n3:0.375\\n1:0.375\\n4:0.25\\n2:0.0625\\n")
    >>> gapbs_bc_problems(g, 0, "4:0.5\\n")
    'gapbs: source 0: score of 4 0.5 != ours 0.25'
    >>> gapbs_bc_problems(g, 0, "Average Time: 1")
    'gapbs: source 0: no top scores in its output'
    """
    import bitgraph as bg
    from scipy.sparse.csgraph import breadth_first_order

    top = [(int(v), float(x)) for v, x in re.findall(r"(?m)^(\d+):([0-9.eE+-]+)\s*$", out)]
    if not top:
        return f"gapbs: source {source}: no top scores in its output"
    vals = np.asarray(bg.algorithms.betweenness_centrality(
        g.cpu, sources=[source], normalized=False), np.float64) / bc_scale(g, [source])
    vals[source] = breadth_first_order(g.scipy(), source, return_predecessors=False).size - 1
    vals /= vals.max() if vals.max() > 0 else 1.0
    for v, x in top:
        if not np.isclose(x, vals[v], rtol=1e-4, atol=1e-6):
            return f"gapbs: source {source}: score of {v} {x:g} != ours {vals[v]:g}"
    return None


def _write_lines(f, *cols, chunk=1 << 20):
    """Rows of the non-negative integer columns ``cols`` as space-separated
    decimal lines into the binary file ``f`` (numba: a kron-22 edge list in
    seconds, not the minute of Python's formatting).

    >>> import io
    >>> f = io.BytesIO(); _write_lines(f, np.array([0, 12]), np.array([305, 7])); f.getvalue()
    b'0 305\\n12 7\\n'
    """
    from numba import njit

    global _FORMAT_ROWS
    if _FORMAT_ROWS is None:
        @njit(nogil=True)
        def fmt_rows(block, out):
            digits = np.empty(20, np.uint8)
            pos = 0
            k, m = block.shape
            for i in range(m):
                for j in range(k):
                    v = block[j, i]
                    t = 0
                    while True:
                        digits[t] = 48 + v % 10
                        v //= 10
                        t += 1
                        if v == 0:
                            break
                    while t > 0:
                        t -= 1
                        out[pos] = digits[t]
                        pos += 1
                    out[pos] = 32 if j < k - 1 else 10
                    pos += 1
            return pos
        _FORMAT_ROWS = fmt_rows
    n = cols[0].size if cols else 0
    for i in range(0, n, chunk):
        block = np.stack([np.asarray(c[i:i + chunk], np.int64) for c in cols])
        if block.size and block.min() < 0:
            raise ValueError("_write_lines: negative values")
        out = np.empty(block.size * 21, np.uint8)
        f.write(out[:_FORMAT_ROWS(block, out)].tobytes())


_FORMAT_ROWS = None  # the numba formatter, compiled on first use


def _write_graph(g, fmt, folder):
    """The graph ``g`` written once in ``fmt`` into ``folder``: "el" and "wel"
    (edge lists, "wel" with the suite's weights), "egr" (ECL's binary CSR),
    Matrix Market "mtx" (pattern, general), "w.mtx" (integer weights
    ``g.weights()``, general) and "sym.mtx" (pattern, symmetric: the lower
    triangle of A | A', rows sorted by (row, column) so that a loader that
    mirrors each entry in file order gets sorted adjacency lists).

    >>> import scipy.io, tempfile
    >>> g = Graph("kron:5", "cpu")
    >>> d = tempfile.mkdtemp()
    >>> A = g.scipy()
    >>> B = scipy.io.mmread(_write_graph(g, "mtx", d))
    >>> B.shape == A.shape and abs(B.tocsr() - A).nnz == 0
    True
    >>> r, c = g.coo()
    >>> W = scipy.io.mmread(_write_graph(g, "w.mtx", d)).tocsr()
    >>> bool((W[r, c] == g.weights()).all()) and W.nnz == r.size
    True
    >>> S = scipy.io.mmread(_write_graph(g, "sym.mtx", d)).tocsr()
    >>> abs(S - ((A + A.T) > 0)).nnz == 0
    True
    """
    path = Path(folder) / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', g.spec)}.{fmt}"
    if path.exists():
        return path
    r, c = g.coo()
    if fmt in ("el", "wel"):
        cols = [r, c] if fmt == "el" else [r, c, g.weights()]
        tmp = path.with_name(path.name + ".part")
        with open(tmp, "wb") as f:
            _write_lines(f, *cols)
        os.replace(tmp, path)
    elif fmt == "egr":  # int32 n, m, nindex[n + 1], nlist[m]
        S = g.scipy()
        with open(path, "wb") as f:
            np.array([g.n, S.nnz], np.int32).tofile(f)
            S.indptr.astype(np.int32).tofile(f)
            S.indices.astype(np.int32).tofile(f)
    elif fmt in ("mtx", "w.mtx", "sym.mtx"):  # 1-based; written beside, then renamed
        cols = [r + 1, c + 1]
        field, kind = "pattern", "general"
        if fmt == "w.mtx":
            field = "integer"
            cols.append(g.weights())
        elif fmt == "sym.mtx":
            kind = "symmetric"
            lo, hi = np.maximum(r, c), np.minimum(r, c)  # (row >= column): the lower triangle
            key = np.sort(lo.astype(np.int64) * g.n + hi)  # by (row, column); np.unique: 10x
            key = key[np.r_[True, key[1:] != key[:-1]]] if key.size else key
            cols = [key // g.n + 1, key % g.n + 1]
        tmp = path.with_name(path.name + ".part")
        with open(tmp, "wb") as f:
            f.write(f"%%MatrixMarket matrix coordinate {field} {kind}\n".encode())
            f.write(f"{g.n} {g.n} {cols[0].size}\n".encode())
            _write_lines(f, *cols)
        os.replace(tmp, path)
    return path


_ANCHOR_RUNS = {}  # one run per anchor, graph and sources: cases of several methods share it


def run_anchor(anchor, g, folder, repeat, sources=(), iterations=None):
    """(ms, None, count, head) or (None, why, None, None): the anchor's own time,
    the count it printed and the first values of its answer it printed (None
    where it prints none), or why it has no time.

    >>> run_anchor(ANCHORS["sssp", "Gunrock"], None, "/nonexistent", 3)
    (None, None, None, None)
    """
    exe = Path(folder) / anchor.binary
    if not exe.exists():
        return None, None, None, None
    key = (anchor, g.spec, str(folder), repeat, tuple(sources), iterations)
    if key not in _ANCHOR_RUNS:
        _ANCHOR_RUNS[key] = (anchor.run or _run_anchor)(anchor, exe, g, folder, repeat,
                                                         sources, iterations)
    return _ANCHOR_RUNS[key]


def _run_anchor(anchor, exe, g, folder, repeat, sources, iterations):
    path = _write_graph(g, anchor.fmt, folder)
    if not anchor.per_source:
        ms, why, count, head, _ = _run_once(anchor, exe, g, path, repeat, sources, iterations)
        if head is not None and anchor.head_scale is not None:
            head = head * anchor.head_scale(g, sources)[:head.size]
        return ms, why, count, head
    runs = [int(s) for s in sources][:BC_ANCHOR_SOURCES]
    if not runs:
        return None, f"{anchor.binary}: no sources to run", None, None
    times = []
    for s in runs:
        ms, why, _, _, text = _run_once(anchor, exe, g, path, repeat, [s], iterations)
        why = why or (anchor.check(g, s, text) if anchor.check else None)
        if why:
            return None, why, None, None
        times.append(ms)
    return statistics.fmean(times), None, None, None


def _deep_stack():
    """(In the child, before exec.) The stack's soft limit raised to its hard
    limit (unlimited where the hard one is)."""
    import resource

    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))


def _run_once(anchor, exe, g, path, repeat, sources, iterations):
    """One run of the anchor: (ms, None, count, head, output) or (None, why,
    None, None, output)."""
    values = dict(file=path, repeat=repeat, sources=",".join(str(int(s)) for s in sources),
                  nsources=max(len(sources), 1), iterations=iterations,
                  source=int(sources[0]) if len(sources) else "", head=min(g.n, BC_HEAD))
    argv = [str(exe)] + [a.format(**values) for a in anchor.argv]
    env = {**os.environ, **{k: v.format(**values) for k, v in anchor.env}}
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env,
                             preexec_fn=_deep_stack if anchor.deep_stack else None)
    except subprocess.TimeoutExpired:
        return None, f"{anchor.binary}: no answer in 600 s", None, None, ""
    text = out.stdout + out.stderr

    def fail(why):
        return None, why, None, None, text

    if out.returncode != 0 or re.search(anchor.fail_re, text):
        return fail(f"{anchor.binary} failed ({out.returncode}): {text.strip()[-200:]}")
    if anchor.ok_re and not re.search(anchor.ok_re, text):
        return fail(f"{anchor.binary}: its verifier did not pass: {text.strip()[-200:]}")
    times = [float(t) for t in re.findall(anchor.time_re, text)]
    if not times:
        return fail(f"{anchor.binary}: no time in its output")
    if anchor.time_mean and len(times) != len(sources):
        return fail(f"{anchor.binary}: {len(times)} times for {len(sources)} sources")
    if anchor.iterations_re:
        ran = {int(x) for x in re.findall(anchor.iterations_re, text)}
        if ran != {iterations}:
            return fail(f"{anchor.binary}: ran {sorted(ran)} iterations, not {iterations}")
    c = re.search(anchor.count_re, text) if anchor.count_re else None
    if anchor.count_re and not c:
        return fail(f"{anchor.binary}: no count in its output")
    h = re.search(anchor.head_re, text) if anchor.head_re else None
    if anchor.head_re and not h:
        return fail(f"{anchor.binary}: no answer in its output")
    head = np.array(h.group(1).split(), np.float64) if h else None
    ms = (statistics.fmean(times) if anchor.time_mean else times[0]) * anchor.unit_ms
    return ms, None, int(c.group(1)) if c else None, head, text


def anchor_problems(algo, name, anchor, count, head, ours, *, reach=None):
    """What differs between an anchor's printed answer (its ``count``, the
    first values ``head``) and ours (the answer of the case's first input,
    or of its last for ``head`` on a single-source case); [] if nothing.
    A float32 anchor's values (``head_float32``) that are not finite where
    ours are count as a difference unless ``reach()`` (the graph's largest
    out-degree and the deepest BFS level from the sources: ``bc_reach``)
    lets a path count pass float32's largest (``float32_paths_overflow``).

    >>> a = ANCHORS["triangle_count", "Gunrock"]
    >>> anchor_problems("triangle_count", "Gunrock", a, 3 * 7, None, [7])
    []
    >>> anchor_problems("triangle_count", "Gunrock", a, 7, None, [7])
    ['Gunrock: count 7 != ours 21 (3 x 7)']
    >>> p = ANCHORS["pagerank", "Gunrock"]
    >>> ranks = np.array([0.5, 0.25, 0.25])
    >>> anchor_problems("pagerank", "Gunrock", p, None, np.array([0.501, 0.25]), [ranks])
    []
    >>> anchor_problems("pagerank", "Gunrock", p, None, np.array([0.4, 0.25]), [ranks])
    ['Gunrock: its first 2 values differ from ours by up to 0.1']
    >>> anchor_problems("pagerank", "Gunrock", p, None, np.array([np.nan, 0.25]), [ranks])
    ['Gunrock: 1 of its first 2 values are not finite where ours are']
    >>> b = ANCHORS["bfs", "Blest"]
    >>> mine = [np.array([0, 1, -1]), np.array([1, 0, -1])]
    >>> anchor_problems("bfs", "Blest", b, None, [np.array([0, 1, -1], np.int32)] * 2, mine)
    ['Blest (source 1): 2 levels differ']
    """
    out = []
    if anchor.levels and head is not None:  # its levels per source
        if len(head) != len(ours):
            out.append(f"{name}: levels of {len(head)} sources, ours of {len(ours)}")
        for i, (theirs, mine) in enumerate(zip(head, ours)):
            why = same_levels(np.asarray(mine), np.asarray(theirs))
            if why:
                out.append(f"{name} (source {i}): {why}")
        head = None
    if count is not None:
        mine = answer_count(algo, ours[0])
        want = anchor.count_scale * mine
        if count != want:
            scaled = f" ({anchor.count_scale} x {mine})" if anchor.count_scale != 1 else ""
            out.append(f"{name}: count {count} != ours {want}{scaled}")
    if head is not None:
        mine = np.asarray(ours[-1], np.float64).ravel()[:head.size]
        theirs = head[:mine.size]
        over = ~np.isfinite(theirs) & np.isfinite(mine)  # theirs not finite, ours finite
        under = np.isfinite(theirs) & ~np.isfinite(mine)
        both = np.isfinite(theirs) & np.isfinite(mine)  # compared; not finite on both: agree
        if over.any() and not (anchor.head_float32 and reach is not None
                               and float32_paths_overflow(*reach())):
            out.append(f"{name}: {int(over.sum())} of its first {head.size} values are not"
                       f" finite where ours are")
        if under.any():
            out.append(f"{name}: {int(under.sum())} of its first {head.size} values are finite"
                       f" where ours are not")
        if mine.size != head.size or not np.allclose(theirs[both], mine[both],
                                                      rtol=anchor.head_rtol,
                                                      atol=anchor.head_atol):
            err = float(np.abs(theirs - mine)[both].max()) \
                if mine.size == head.size and both.any() else float("nan")
            out.append(f"{name}: its first {head.size} values differ from ours by up to {err:.3g}")
    return out


def float32_paths_overflow(degree, depth) -> bool:
    """Whether a shortest-path count can pass float32's largest (3.4e38) in
    a graph of largest out-degree ``degree`` at BFS depth ``depth``: a count
    at level d is at most degree ** d.

    >>> float32_paths_overflow(4, 4094), float32_paths_overflow(4, 60)  # grid-2048, grid-31
    (True, False)
    """
    return degree > 1 and depth * math.log10(degree) >= math.log10(np.finfo(np.float32).max)


def bc_reach(g, sources):
    """(largest out-degree, deepest BFS level from ``sources``) of graph
    ``g`` on the host: what ``float32_paths_overflow`` reads. One BFS per
    source (scipy), stopping at the first deep enough."""
    from scipy.sparse import csgraph

    a = g.scipy()
    degree = int(np.diff(a.indptr).max(initial=0))
    depth = 0
    for s in sources:
        d = csgraph.shortest_path(a, unweighted=True, indices=int(s))
        depth = max(depth, int(d[np.isfinite(d)].max(initial=0)))
        if float32_paths_overflow(degree, depth):
            break
    return degree, depth


def anchor_notes(name, anchor, head, ours):
    """What a row's "checked" adds about an anchor whose answer checks: the
    values of a float32 anchor (``head_float32``) that overflowed where ours
    are finite, left out of the comparison (``anchor_problems`` lets them
    by only where the graph is deep enough for that).

    >>> g = ANCHORS["betweenness", "Gunrock"]
    >>> anchor_notes("Gunrock", g, np.array([np.inf, 1.0, 2.0]), [np.array([5.0, 1.0, 2.0])])
    ['Gunrock: 1 of its first 3 values overflow float32 (ours finite), the other 2 equal']
    >>> anchor_notes("Gunrock", g, np.array([1.0, 2.0]), [np.array([1.0, 2.0])])
    []
    """
    if head is None or not anchor.head_float32:
        return []
    mine = np.asarray(ours[-1], np.float64).ravel()[:head.size]
    over = ~np.isfinite(head[:mine.size]) & np.isfinite(mine)
    if not over.any():
        return []
    return [f"{name}: {int(over.sum())} of its first {head.size} values overflow float32"
            f" (ours finite), the other {head.size - int(over.sum())} equal"]


def anchor_compared(algo, column):
    """Whether the anchor of ``algo`` whose column is ``column`` had its answer
    compared with ours (a count, values or levels), not only its own verifier's.

    >>> anchor_compared("bfs", "Blest kernel"), anchor_compared("bfs", "gapbs")
    (True, False)
    """
    return any(a == algo and (anc.label or name) == column
               and bool(anc.count_re or anc.head_re or anc.levels)
               for (a, name), anc in ANCHORS.items())


def answer_count(algo, ours):
    """The count an anchor prints, from our answer: components (distinct labels) or
    the count itself.

    >>> answer_count("connected_components", np.array([0, 0, 2, 3, 3]))
    3
    """
    if algo == "connected_components":
        return int(np.unique(np.asarray(ours)).size)
    return int(ours)


# === timing ================================================================================
class Clock:
    """Times one call: perf_counter on the CPU; on CUDA, CUDA events around the
    call and a synchronize on the stop event (CuPy imported only here)."""

    def __init__(self, device):
        self.cuda = device == "cuda"
        if self.cuda:
            import cupy

            self.cupy = cupy

    def sync(self):
        if self.cuda:
            self.cupy.cuda.Device().synchronize()  # synchronize!

    def once(self, f):
        if not self.cuda:
            t0 = time.perf_counter()
            r = f()
            return time.perf_counter() - t0, r
        start, stop = self.cupy.cuda.Event(), self.cupy.cuda.Event()
        start.record()
        r = f()
        stop.record()
        stop.synchronize()  # synchronize!
        return self.cupy.cuda.get_elapsed_time(start, stop) / 1e3, r

    def median(self, f, repeat):
        """(median seconds of ``repeat`` calls after one warm-up, last result)."""
        r = f()
        self.sync()
        ts = []
        for _ in range(max(1, repeat)):
            t, r = self.once(f)
            ts.append(t)
        return statistics.median(ts), r

    def calls(self, f, inputs, repeat):
        """(mean over the inputs of each one's median seconds, the results)."""
        ts, rs = [], []
        for inp in inputs:
            t, r = self.median(lambda: f(inp), repeat)
            ts.append(t)
            rs.append(r)
        return statistics.fmean(ts), rs


def _takes_stats(f):
    try:
        return "stats" in inspect.signature(f).parameters
    except (TypeError, ValueError):
        return False


_PUBLIC = {"bfs": "bfs", "msbfs": "msbfs", "sssp": "sssp", "pagerank": "pagerank",
           "connected_components": "connected_components", "triangle_count": "triangle_count",
           "closeness": "closeness_centrality", "betweenness": "betweenness_centrality",
           "diameter": "diameter",
           "diameter_bounds": "diameter_bounds"}


def public_call(algo):
    """The public function a case calls (for its ``stats=`` support)."""
    import bitgraph as bg

    if algo in _PUBLIC:
        return getattr(bg.algorithms, _PUBLIC[algo])
    return getattr(bg, algo)


def call_stats(algo, g, case, inp, trace=False):
    """One untimed call with ``stats=bg.Stats(trace=...)``: the record, or None
    where the public call takes no ``stats=`` yet."""
    import bitgraph as bg

    if not _takes_stats(public_call(algo)):
        return None
    rec = bg.Stats(trace=trace)
    ALGOS[case.algo].call(g, case.method, inp, stats=rec)
    return rec


# === one case ==============================================================================
@dataclass
class Row:
    case: Case
    n: int = 0
    nvals: int = 0
    ms: float | None = None
    kernel_ms: float | None = None
    baselines: dict = dataclasses.field(default_factory=dict)  # name -> ms
    problems: list = dataclasses.field(default_factory=list)
    notes: list = dataclasses.field(default_factory=list)  # said beside "yes" in "checked"
    stats: object = None
    per_source: bool = False  # ms and the baselines' ms are per source
    floor_ms: float | None = None  # CUDA: the bytes the call must move / copy bandwidth
    gather_ms: float | None = None  # CUDA pagerank: the gathers alone, in stored order
    kernel_gather_ms: float | None = None  # the same in the order the kernel pulls in
    gteps: float | None = None  # CUDA: stored entries (x sources, x iterations) per second


def run_case(case, g, args, clock):
    algo = ALGOS[case.algo]
    row = Row(case, g.n, g.nvals)
    inputs = algo.inputs(g, case)
    method = case.method
    repeat = args.repeat or REPEAT[case.device]
    t, results = clock.calls(lambda inp: algo.call(g, method, inp), inputs, repeat)
    # per_source: each input's sources share its call's time
    per = statistics.fmean(len(inp) for inp in inputs) if algo.per_source else 1
    row.ms = t * 1e3 / per
    row.per_source = algo.per_source
    ours = [algo.answer(r) for r in results]
    del results
    kernel, iterations = [], None
    for inp in inputs:
        rec = call_stats(case.algo, g, case, inp, trace=args.trace)
        if rec is None:
            break
        if args.trace:
            row.stats = rec
        if isinstance(rec.metrics.get("kernel_ms"), (int, float)):
            kernel.append(rec.metrics["kernel_ms"])
        iterations = rec.metrics.get("iterations", iterations)
    if kernel and len(kernel) == len(inputs):
        row.kernel_ms = statistics.fmean(kernel)
    if case.device == "cuda" and not args.smoke:
        floors(row, g, case, inputs, iterations)
    skip = skipped(args)
    for name in case.baselines if not args.no_baselines else ():
        if name in skip:
            continue
        if (case.algo, name) in ANCHORS:
            if args.anchors and not args.smoke:
                anchor = ANCHORS[case.algo, name]
                sources = [s for s in inputs if isinstance(s, (int, np.integer))] or \
                    ([int(s) for s in inputs[0]] if algo.per_source else [])
                iterations = pagerank_iterations(g) if case.algo == "pagerank" else None
                ms, why, count, head = run_anchor(anchor, g, args.anchors, repeat, sources,
                                                  iterations)
                if why:
                    row.problems.append(why)
                elif ms is not None:  # its time only once its answer checks
                    wrong = anchor_problems(case.algo, name, anchor, count, head, ours,
                                            reach=lambda: bc_reach(g, sources))
                    row.problems += [f"{w} (its time {_fmt(ms)} ms, not recorded)"
                                     for w in wrong]
                    if not wrong:
                        row.baselines[anchor.label or name] = ms
                        row.notes += anchor_notes(name, anchor, head, ours)
            continue
        made = BASELINES[case.algo, name](g, case)
        if made is None:
            continue
        f, answer = made
        # a host baseline beside a CUDA case is a check and a reference, not the anchor:
        # one call (scipy's CC on kron-22 takes 4 s a call)
        host = case.device == "cuda" and name not in GPU_BASELINES
        bt, theirs = clock.calls(f, inputs, 1 if host else repeat)
        row.baselines[name] = bt * 1e3 / per
        for i, (a, raw) in enumerate(zip(ours, theirs)):
            why = algo.check(a, answer(raw))
            if why:
                row.problems.append(f"{name} (input {i}): {why}")
    return row


def floors(row, g, case, inputs, iterations):
    """A CUDA row's floor ms, gather ms and GTEPS (benchmarks/_floor.py), measured beside it."""
    import _floor

    rank = 4 if case.method.endswith("-f32") else 8
    if case.algo == "pagerank" and not isinstance(iterations, int):
        iterations = pagerank_iterations(g)
    weight = {None: 4, "float64": 8, "float32": 4}[_sssp_method(case.method)[1]]
    nbytes = _floor.floor_bytes(case.algo, g.n, g.nvals, iterations, rank, weight)
    if nbytes is not None:
        row.floor_ms = nbytes / (_floor.copy_gbps() * 1e6)
    if case.algo == "pagerank":
        dtype = np.float32 if rank == 4 else np.float64
        one = _floor.gather_ms(g.A, dtype)
        row.gather_ms = None if one is None else one * iterations
        # the kernel's own order: the pull CSR of the matrix its calls read
        # (_operator), relabelled where they cached a relabelling
        from bitgraph.algorithms._common import known
        from bitgraph.algorithms.link_analysis import _operator, _pull_csr

        M = _operator(g.A)[0]
        relabelled = known(M, "pagerank_relabelled")
        one = _floor.gather_ms(relabelled[1] if relabelled else _pull_csr(M), dtype) \
            if case.method.startswith("auto") else None
        row.kernel_gather_ms = None if one is None else one * iterations
    batch = (statistics.fmean(len(inp) for inp in inputs)
             if case.algo in ("msbfs", "closeness") else 1)
    row.gteps = _floor.gteps(case.algo, g.nvals, row.ms, iterations, batch)


# === cases selected ========================================================================
def _family(spec):
    return spec.split(":")[0] if not Path(spec).exists() else spec


def select(args):
    """The cases the filters pick, their graphs replaced as ``--graph`` and
    ``--smoke`` say."""
    def split(s):
        return [x for x in s.split(",") if x] if s else None

    algos, methods = split(args.algo), split(args.method)
    devices = split(args.device) or ["cpu"]
    graphs = split(args.graph)
    for a in algos or ():
        if a not in ALGOS:
            raise SystemExit(f"run.py: unknown --algo {a!r}; algorithms: {', '.join(ALGOS)}")
    out = []
    for c in CASES:
        if c.device not in devices or (algos and c.algo not in algos) or \
                (methods and c.method not in methods):
            continue
        if graphs:
            # a graph of the family that no case of this algorithm, device and method lists
            # replaces the case's (urand:22:32 is a delta-persistent sssp case's graph, not
            # pagerank's or auto sssp's)
            own = {x.graph for x in CASES
                   if (x.algo, x.device, x.method) == (c.algo, c.device, c.method)}
            exact = [gr for gr in graphs if gr == c.graph]
            other = [gr for gr in graphs if gr not in own and _family(gr) == _family(c.graph)]
            if exact:
                pass
            elif other:
                c = dataclasses.replace(c, graph=other[0])
            else:
                continue
        if args.smoke:
            c = dataclasses.replace(c, graph=SMOKE_GRAPHS.get(_family(c.graph), c.graph))
        if c not in out:
            out.append(c)
    return out


# === the results page =====================================================================
FIXED = ["graph", "n", "stored entries", "method", "ms", "kernel ms"]
TAIL = ["x best baseline", "checked", "card", "date", "commit", "command"]
HEADING = re.compile(r"^## (\S+) on (\S+)\s*$")


def card(device):
    """The CPU's model and core count, or the GPU's name (CuPy)."""
    if device == "cuda":
        import cupy

        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        return props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    name = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                name = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from bitgraph.kernels.cpu import num_threads

        threads = f", {num_threads()} threads"
    except Exception:
        threads = ""
    return f"{name}, {os.cpu_count()} cores{threads}"


def commit():
    """The short commit of the tree whose bitgraph is imported ("+": its
    bitgraph/ has uncommitted changes), or ``$BITGRAPH_COMMIT`` where set (a
    copy of the tree whose git metadata is not its own, as on a lent GPU
    machine)."""
    import bitgraph

    if os.environ.get("BITGRAPH_COMMIT"):
        return os.environ["BITGRAPH_COMMIT"]

    tree = str(Path(bitgraph.__file__).resolve().parents[1])
    try:
        out = subprocess.run(["git", "-C", tree, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--",
                                "bitgraph"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() + ("+" if dirty.stdout.strip() else "") or "-"
    except OSError:
        return "-"


def _fmt(ms):
    if ms is None:
        return ""
    return f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"


def skipped(args):
    """The baselines and anchors ``--skip`` names (a set of names)."""
    return set(filter(None, (getattr(args, "skip", "") or "").split(",")))


def page_row(row, card_name, date, sha, repeat, skip=()):
    """A results page's cells of ``row``; its command names the case, the
    ``repeat`` given and the case's baselines left out (``skip``).

    >>> case = Case("betweenness", "auto", "grid:4x4", "cuda", ("bitgraph CPU", "Gunrock"))
    >>> row = Row(case, n=16, nvals=48, ms=1.0, baselines={"Gunrock": 20.0})
    >>> cells = page_row(row, "H200", "2026-11-28", "abc", None, {"bitgraph CPU", "cuSPARSE"})
    >>> cells["command"]
    '`python benchmarks/run.py --device cuda --algo betweenness --method auto --graph grid:4x4 --skip "bitgraph CPU"`'
    >>> cells["x best baseline"]
    '20.00'
    """
    c = row.case
    best = min(row.baselines.values()) if row.baselines else None
    left = [b for b in c.baselines if b in skip]
    cmd = (f"python benchmarks/run.py --device {c.device} --algo {c.algo} --method {c.method}"
           f" --graph {c.graph}" + (f" --repeat {repeat}" if repeat else "")
           + (f' --skip "{",".join(left)}"' if left else ""))
    cells = {"graph": c.graph, "n": f"{row.n:,}", "stored entries": f"{row.nvals:,}",
             "method": c.method, "ms": _fmt(row.ms), "kernel ms": _fmt(row.kernel_ms),
             "x best baseline": f"{best / row.ms:.2f}" if best and row.ms else "",
             "checked": "no: " + "; ".join(row.problems) if row.problems else
             ("yes" + (f" ({'; '.join(row.notes)})" if row.notes else "")
              if any((c.algo, b) in BASELINES or anchor_compared(c.algo, b)
                     for b in row.baselines) else "-"),
             "card": card_name, "date": date, "commit": sha, "command": f"`{cmd}`"}
    for name, ms in row.baselines.items():
        cells[f"{name} ms"] = _fmt(ms)
    for col, v in (("floor ms", row.floor_ms), ("gather ms", row.gather_ms),
                   ("kernel-order gather ms", row.kernel_gather_ms)):
        if v is not None:
            cells[col] = _fmt(v)
    if row.gteps is not None:
        cells["GTEPS"] = f"{row.gteps:.3g}"
    if row.per_source and row.ms:
        # the throughput the issue compares: sources x stored entries per second
        cells["sources x edges / s"] = f"{row.nvals / (row.ms / 1e3):.3g}"
    return cells


def read_page(path):
    """{(algo, device): [row cells dict]} of an existing page (empty if none)."""
    tables = {}
    if not Path(path).exists():
        return tables
    key, header = None, None
    for line in Path(path).read_text().splitlines():
        m = HEADING.match(line)
        if m:
            key, header = (m.group(1), m.group(2)), None
            tables.setdefault(key, [])
            continue
        if key is None or not line.startswith("|"):
            if not line.strip():
                continue
            if not line.startswith("|"):
                header = None if line.startswith("#") else header
            continue
        cells = [x.strip() for x in line.strip().strip("|").split(" | ")]
        if header is None:
            header = cells
        elif set(line.replace("|", "").strip()) <= set("-: "):
            continue
        else:
            tables[key].append(dict(zip(header, cells)))
    return tables


def _row_key(cells):
    return (cells.get("method"), cells.get("graph"), cells.get("card"))


PAGE_HEAD = """# Benchmark results

The current numbers, one table per algorithm and device, written by
`python benchmarks/run.py --write benchmarks/RESULTS.md` (each row gives
the command that regenerates it). "ms" is the user's whole call (median of
repeats after a warm-up; the mean over the sources for single-source
algorithms; per source for betweenness, one call over a fixed sample of
sources divided by their number, its "sources x edges / s" the stored
entries over that time; on CUDA between CUDA events); "kernel ms" is the
kernels' own time where the call reports it (`stats=`); each baseline ran in the same
run on the same graph, and "x best baseline" is the fastest baseline's
time over ours (> 1: bitgraph faster). "checked": our answers equal every
baseline's. CUDA rows also give "floor ms" (the bytes the call must move over
the card's copy bandwidth, both measured in the same run), "gather ms"
(pagerank: only the gathers of its SpMV, in the graph's stored order;
"kernel-order gather ms" the same over the pull CSR our kernel runs on) and
"GTEPS" (stored entries per second); `benchmarks/_floor.py` says what each
counts. Rows whose "checked" says "recorded" were measured before the
driver existed (answers checked then) and are carried from the project's
records with the command that remeasures them; those without "ms" give
kernel times, and their ratio compares kernels. History is in git
(`git log -p benchmarks/RESULTS.md`) and CHANGELOG.md.
"""


def write_page(path, rows_by_key):
    """Merge ``{(algo, device): [cells]}`` into the page at ``path`` and write it
    atomically (a temporary file beside it, then ``os.replace``)."""
    tables = read_page(path)
    for key, rows in rows_by_key.items():
        old = tables.setdefault(key, [])
        index = {_row_key(r): i for i, r in enumerate(old)}
        for r in rows:
            i = index.get(_row_key(r))
            if i is None:
                index[_row_key(r)] = len(old)
                old.append(r)
            else:
                old[i] = r
    order = list(ALGOS)
    keys = sorted(tables, key=lambda k: (order.index(k[0]) if k[0] in order else len(order),
                                         k[0], k[1] != "cpu", k[1]))
    lines = [PAGE_HEAD]
    for key in keys:
        rows = tables[key]
        if not rows:
            continue
        extra = []
        for r in rows:
            for col in r:
                if col not in FIXED and col not in TAIL and col not in extra:
                    extra.append(col)
        cols = FIXED + extra + TAIL
        lines.append(f"## {key[0]} on {key[1]}\n")
        lines.append("| " + " | ".join(cols) + " |")
        lines.append("|" + "|".join("---:" if c in ("n", "stored entries", "ms", "kernel ms",
                                                     "x best baseline") or c in extra
                                    else "---" for c in cols) + "|")
        for r in rows:
            lines.append("| " + " | ".join(r.get(c, "") for c in cols) + " |")
        lines.append("")
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


# === main ==================================================================================
def ncu_command(case, args):
    cmd = ["ncu", "--set", "full", "--target-processes", "all", "-o",
           f"ncu_{case.algo}_{_family(case.graph)}", sys.executable, str(Path(__file__)),
           "--device", case.device, "--algo", case.algo, "--method", case.method,
           "--graph", case.graph, "--repeat", "1", "--no-baselines"]
    return cmd


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="algorithms: " + ", ".join(ALGOS))
    p.add_argument("--algo", help="comma-separated algorithms (default: all)")
    p.add_argument("--method", help="comma-separated methods (default: all)")
    p.add_argument("--graph", help="comma-separated graph specs or files (see above)")
    p.add_argument("--device", default="cpu", help="cpu, cuda or cpu,cuda (default cpu)")
    p.add_argument("--repeat", type=int, default=None,
                   help=f"timed calls per input after the warm-up (default {REPEAT})")
    p.add_argument("--smoke", action="store_true",
                   help="every selected CPU case on a tiny graph, once: results checked")
    p.add_argument("--write", metavar="PATH", help="merge the rows into this results page")
    p.add_argument("--trace", action="store_true",
                   help="one more call per input with stats=bg.Stats(trace=True); print it")
    p.add_argument("--ncu", action="store_true",
                   help="print (or, where ncu exists, run) the Nsight Compute command per case")
    p.add_argument("--no-baselines", action="store_true", help="time bitgraph only")
    p.add_argument("--skip", default="",
                   help="comma-separated baselines or anchors not to run (e.g. cuSPARSE)")
    p.add_argument("--anchors", default=os.environ.get("BITGRAPH_ANCHORS"),
                   help="folder of external anchor binaries ($BITGRAPH_ANCHORS)")
    p.add_argument("--merge", metavar="PAGE",
                   help="with --write: merge another results page's rows (a GPU run's) and exit")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    args = p.parse_args(argv)
    if args.merge:
        if not args.write:
            raise SystemExit("run.py: --merge needs --write PATH")
        write_page(args.write, read_page(args.merge))
        return 0
    if args.smoke:
        args.device = "cpu"
        args.repeat = args.repeat or 1
    cases = select(args)
    if args.list:
        for c in cases:
            print(f"{c.algo:22} {c.method:14} {c.graph:26} {c.device:5} {', '.join(c.baselines)}")
        return 0
    if not cases:
        print("run.py: no case matches the filters", file=sys.stderr)
        return 2
    if args.ncu:
        for c in cases:
            cmd = ncu_command(c, args)
            print(shlex.join(cmd))
            if shutil.which("ncu"):
                subprocess.run(cmd, check=False)
        return 0
    t_start = time.perf_counter()
    date, sha = time.strftime("%Y-%m-%d"), commit()
    cards, clocks, failed = {}, {}, 0
    rows_by_key = {}
    graph, table = None, []
    for c in sorted(cases, key=lambda c: (c.device, [x.graph for x in cases].index(c.graph))):
        if graph is None or (graph.spec, graph.device) != (c.graph, c.device):
            graph = None
            if c.device == "cuda":
                import cupy

                cupy.get_default_memory_pool().free_all_blocks()
            try:
                graph = Graph(c.graph, c.device)
            except Exception as e:
                print(f"!! {c.graph} on {c.device}: {type(e).__name__}: {e}", file=sys.stderr)
                failed += 1
                continue
            print(f"# {c.graph} on {c.device}: n = {graph.n:,}, stored entries = "
                  f"{graph.nvals:,} (loaded in {graph.load_s:.1f} s)", file=sys.stderr, flush=True)
        if c.device not in clocks:
            clocks[c.device] = Clock(c.device)
            cards[c.device] = card(c.device)
        t0 = time.perf_counter()
        try:
            row = run_case(c, graph, args, clocks[c.device])
        except Exception as e:
            import traceback

            traceback.print_exc()
            row = Row(c, graph.n, graph.nvals, problems=[f"{type(e).__name__}: {e}"])
        failed += bool(row.problems)
        base = ", ".join(f"{k} {_fmt(v)}" for k, v in row.baselines.items())
        print(f"{c.algo:22} {c.method:13} {c.graph:16} {c.device:4} {_fmt(row.ms):>9} ms"
              f"{'' if row.kernel_ms is None else f' (kernel {_fmt(row.kernel_ms)})'}"
              f"  | {base}  [{time.perf_counter() - t0:.1f} s]"
              + ("" if not row.problems else "  MISMATCH: " + "; ".join(row.problems)),
              flush=True)
        if args.trace and row.stats is not None:
            s = row.stats
            print(f"    method {s.method}; kernels {s.kernels}\n    metrics {s.metrics}")
            for i, tr in enumerate(s.traces):
                print(f"    trace {i}: {tr}")
        elif args.trace:
            print("    (this call takes no stats= yet)")
        table.append(row)
        if row.ms is not None and not args.smoke:
            rows_by_key.setdefault((c.algo, c.device), []).append(
                page_row(row, cards[c.device], date, sha, args.repeat, skipped(args)))
    print(f"# {len(table)} cases, {failed} with a problem, "
          f"{time.perf_counter() - t_start:.1f} s", file=sys.stderr)
    if args.write and rows_by_key:
        write_page(args.write, rows_by_key)
        print(f"# wrote {args.write}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
