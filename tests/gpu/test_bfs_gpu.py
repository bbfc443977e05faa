"""BFS on CUDA graphs equals the CPU backend: ``bfs`` by every CUDA method
(levels, and parents validated as a BFS tree), the Blest kernel with every
forced update mode / bottom-up choice, ``msbfs`` against stacked single CPU
BFSs (1, 7, 64, 65, 200 sources, repeats allowed) and
``closeness_centrality`` against the CPU one.

Graphs: hypothesis graphs (``graph_strategies.graphs``: directed and
undirected, several components, isolated vertices, self-loops, duplicates,
hubs, long paths, weighted or not), explicit awkward cases (one vertex, n
not a multiple of 8 or 32, empty slice sets, a slice set of many VSSs, a
path of 10,000 vertices, stars, grids, kron/urand/rgg) and the real graphs
in ``tests/data``.

Every check is a helper taking the graph on ``DEVICE``: ``BG_TEST_DEVICE=cpu``
runs the whole file on the CPU backend (no gpu marker then; for debugging
the comparisons), and ``test_bfs_cpu_helpers_selfcheck`` (never marked gpu)
runs a few helpers on the CPU in every CI run, validator included.
``BG_BFS_GPU_SCALE`` scales the hypothesis example counts (default 1).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import bitgraph.algorithms  # noqa: F401  (bitgraph.algorithms.breadth_first the attribute is the function)
from graph_strategies import graphs
from testdata import data_file

bfs_module = sys.modules["bitgraph.algorithms.breadth_first"]
bfs = bfs_module.bfs
msbfs = bg.algorithms.msbfs
closeness_centrality = bg.algorithms.closeness_centrality

DEVICE = os.environ.get("BG_TEST_DEVICE", "cuda")
# the gpu marker (module-level pytestmark would also mark the CPU self-check)
gpu = pytest.mark.gpu if DEVICE == "cuda" else (lambda f: f)
SCALE = float(os.environ.get("BG_BFS_GPU_SCALE", "1"))

if DEVICE == "cpu":
    AVAILABLE = tuple(m for m in bfs_module.METHODS if m not in bfs_module.CUDA_ONLY)
else:
    AVAILABLE = tuple(getattr(bfs_module, "METHODS_CUDA", ("auto", "blest", "pull")))
ALL_METHODS = ("auto", "blest", "pull", "push", "direction", "async", "window", "hops")
REORDERS = ("none", "rcm")
# reorder changes only the BVSS layout (blest) and the CSR window walks: the
# other methods get "none" (and must accept "rcm" too: checked once in
# test_reorder_accepted)
USES_REORDER = ("auto", "blest", "window")


def examples(n):
    return max(1, int(n * SCALE))


def method_param(method, *extra):
    """pytest.param for a method, skipped where this device lacks it."""
    return pytest.param(method, *extra, id="-".join([method, *map(str, extra)]),
                        marks=pytest.mark.skipif(method not in AVAILABLE,
                                                 reason=f"{method!r} not in METHODS_CUDA yet"))


METHOD_REORDER = [method_param(m, r) for m in ALL_METHODS
                  for r in (REORDERS if m in USES_REORDER else ("none",))]


# --- helpers (device-agnostic: A_dev is on `device`) -----------------------------------
def to_numpy(x):
    """numpy array of a numpy or CuPy array."""
    if isinstance(x, np.ndarray):
        return x
    get = getattr(x, "get", None)
    return np.asarray(get() if get is not None else x)


def on(A_cpu, device=DEVICE):
    """A_cpu on ``device`` (the recorded symmetry travels, as ``from_spec`` does)."""
    return A_cpu.to(device)


def index64(A_cpu):
    """The same graph with int64 indptr and indices (the kernels' other
    index instantiation)."""
    c = A_cpu._csr()
    return bg.Matrix._from_csr(c._replace(indptr=np.asarray(c.indptr, np.int64),
                                          indices=np.asarray(c.indices, np.int64)), A_cpu.dtype)


def cpu_levels(A_cpu, s):
    """The CPU backend's levels (int64, -1 unreached): the reference."""
    return bfs(A_cpu, int(s)).to_dense(-1).astype(np.int64)


def _edge_keys(A_cpu):
    n = A_cpu.nrows
    indptr = np.asarray(A_cpu.indptr, np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    return np.unique(rows * n + np.asarray(A_cpu.indices, np.int64))


def check_tree(A_cpu, s, levels, parents, keys=None):
    """parents is a BFS tree of ``levels``: parent[s] == s; for every other
    reached v, levels[parent[v]] == levels[v] - 1 and (parent[v], v) is an
    edge of A (row -> column); unreached vertices have no parent (-1)."""
    n = A_cpu.nrows
    levels = np.asarray(levels, np.int64)
    parents = np.asarray(parents, np.int64)
    assert parents.shape == (n,) and levels.shape == (n,)
    assert parents[s] == s, f"parent of the source {s} is {parents[s]}"
    assert (parents[levels < 0] == -1).all(), "an unreached vertex has a parent"
    v = np.flatnonzero(levels > 0)
    p = parents[v]
    bad = np.flatnonzero((p < 0) | (p >= n))
    assert not bad.size, f"vertex {v[bad[0]]} (level {levels[v[bad[0]]]}) has parent {p[bad[0]]}"
    bad = np.flatnonzero(levels[p] != levels[v] - 1)
    assert not bad.size, (f"vertex {v[bad[0]]} at level {levels[v[bad[0]]]} has parent"
                          f" {p[bad[0]]} at level {levels[p[bad[0]]]}")
    keys = _edge_keys(A_cpu) if keys is None else keys
    q = p * n + v
    pos = np.minimum(np.searchsorted(keys, q), max(keys.size - 1, 0))
    ok = (keys[pos] == q) if keys.size else np.zeros(q.size, bool)
    bad = np.flatnonzero(~ok)
    assert not bad.size, f"parent {p[bad[0]]} -> {v[bad[0]]} is not an edge"


def run_bfs(A_dev, s, method, *, reorder="none", parents=False, alpha=None, device=DEVICE,
            stats=None):
    """bfs on the device; (levels int64 with -1, parents int64 with -1 or None).
    stats: a ``bg.Stats`` the call fills."""
    kw = {} if alpha is None else {"alpha": alpha}
    r = bfs(A_dev, int(s), parents=parents, method=method, reorder=reorder, stats=stats, **kw)
    lv, par = r if parents else (r, None)
    assert lv.device == device, f"levels came back on {lv.device}"
    assert lv.dtype == np.int32 and lv.size == A_dev.nrows
    levels = lv.to("cpu").to_dense(-1).astype(np.int64)
    if par is None:
        return levels, None
    assert par.device == device and par.dtype == np.int64
    par = par.to("cpu")
    assert np.array_equal(lv.to("cpu").indices(), par.indices()), "parents' structure != levels'"
    return levels, par.to_dense(-1).astype(np.int64)


def check_bfs(A_cpu, A_dev, s, method, *, reorder="none", alpha=None, ref=None, keys=None,
              levels_only_too=True, device=DEVICE, stats=None):
    """Levels (with and without parents) equal the CPU's; parents a BFS tree.
    stats: a ``bg.Stats`` both calls fill (the last one's method stays)."""
    ref = cpu_levels(A_cpu, s) if ref is None else ref
    where = f"method={method} reorder={reorder} alpha={alpha} source={s} n={A_cpu.nrows}"
    if levels_only_too:
        lv, _ = run_bfs(A_dev, s, method, reorder=reorder, alpha=alpha, device=device,
                        stats=stats)
        _same_levels(lv, ref, where)
    lv, par = run_bfs(A_dev, s, method, reorder=reorder, alpha=alpha, parents=True, device=device,
                      stats=stats)
    _same_levels(lv, ref, where + " (parents=True)")
    check_tree(A_cpu, s, lv, par, keys)


def _same_levels(got, want, where):
    if not np.array_equal(got, want):
        bad = np.flatnonzero(got != want)
        raise AssertionError(f"{where}: {bad.size} levels differ, first at vertex {bad[0]}:"
                             f" got {got[bad[0]]}, want {want[bad[0]]}")


def check_msbfs(A_cpu, A_dev, sources, *, batch=64, groupby=False, refs=None, device=DEVICE):
    """msbfs rows equal single CPU BFSs from each source (repeats allowed)."""
    sources = np.asarray(sources, np.int64)
    kw = {"groupby": True} if groupby else {}
    got = to_numpy(msbfs(A_dev, sources, batch=batch, **kw))
    assert got.shape == (sources.size, A_cpu.nrows), got.shape
    assert got.dtype == np.int32
    refs = {} if refs is None else refs
    for i, s in enumerate(sources.tolist()):
        if s not in refs:
            refs[s] = cpu_levels(A_cpu, s)
        _same_levels(got[i].astype(np.int64), refs[s],
                     f"msbfs row {i} (source {s}, {sources.size} sources, batch {batch},"
                     f" groupby {groupby})")


def check_closeness(A_cpu, A_dev, sources=None, wf_improved=True):
    want = closeness_centrality(A_cpu, sources, wf_improved=wf_improved)
    got = to_numpy(closeness_centrality(A_dev, sources, wf_improved=wf_improved))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@contextlib.contextmanager
def forced(update, bottom_up, mma=None, device=DEVICE, single=None):
    """The persistent kernel (``bitgraph.kernels.cuda.bfs_fused``) with its
    update mode, bottom-up step, tensor cores and single-block levels forced
    through the ``bfs_cuda`` settings: ``force_update`` eager / lazy / None,
    ``force_bottom_up`` True / False / "always" / None, ``force_mma`` True
    (tensor cores) / False (the SIMT twin) / None, ``force_single`` False
    (never) / None; a no-op on the CPU."""
    if device != "cuda":
        yield
        return
    with bg.settings.use(bfs_cuda={"force_update": update, "force_bottom_up": bottom_up,
                                   "force_mma": mma, "force_single": single}):
        yield


# (update, bottom_up, mma, single) per kernel: the BVSS one (blest) and the
# CSR one (push and direction: the same kernel, bottom-up off or by alpha)
_UPDATES, _BOTTOM_UPS = ("eager", "lazy", None), (True, False, "always", None)
FORCINGS = {
    "blest": [(u, b, mma, None) for u in _UPDATES for b in _BOTTOM_UPS for mma in (True, False)]
             + [(u, b, None, False) for u in _UPDATES for b in _BOTTOM_UPS],
    "direction": [(u, b, None, single) for u in _UPDATES for b in _BOTTOM_UPS
                  for single in (None, False)],
}
FORCED_METHODS = [m for m in FORCINGS if m in AVAILABLE]


def check_forced(A_cpu, A_dev, s, *, reorder="none", ref=None, device=DEVICE, method="blest"):
    """Every forcing gives the CPU's levels."""
    ref = cpu_levels(A_cpu, s) if ref is None else ref
    for update, bottom_up, mma, single in FORCINGS[method]:
        with forced(update, bottom_up, mma, device, single):
            lv, _ = run_bfs(A_dev, s, method, reorder=reorder, device=device)
        _same_levels(lv, ref, f"{method} forced update={update} bottom_up={bottom_up} mma={mma}"
                              f" single={single} reorder={reorder} source={s}")


# --- graphs -------------------------------------------------------------------------------
def coo(n, rows, cols, undirected=False):
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    if undirected:
        rows, cols = np.concatenate([rows, cols]), np.concatenate([cols, rows])
    return bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n)


def random_graph(n, degree, seed, directed=True):
    rng = np.random.default_rng(seed)
    m = int(degree * n)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if n > 1:  # and a path through a random order: some depth
        p = rng.permutation(n)
        r, c = np.concatenate([r, p[:-1]]), np.concatenate([c, p[1:]])
    return coo(n, r, c, undirected=not directed)


def path(n, permuted=False, undirected=False):
    ids = np.random.default_rng(5).permutation(n) if permuted else np.arange(n)
    return coo(n, ids[:-1], ids[1:], undirected)


def star(n, kind):
    leaves = np.arange(1, n)
    hub = np.zeros(n - 1, np.int64)
    if kind == "out":
        return coo(n, hub, leaves)
    if kind == "in":
        return coo(n, leaves, hub)
    return coo(n, hub, leaves, undirected=True)


def empty_slice_sets(n=257):
    """Edges only among vertices whose block of 8 has an even index: the odd
    column blocks (slice sets) are empty; plus isolated tail vertices."""
    rng = np.random.default_rng(3)
    keep = np.flatnonzero((np.arange(n) // 8) % 2 == 0)
    r, c = rng.choice(keep, 4 * keep.size), rng.choice(keep, 4 * keep.size)
    return coo(n, r, c, undirected=True)


def big_slice_set(n=700):
    """Vertex 3 points at (in A': is pointed at by) every vertex, vertices
    0..7 too: column block 0 of A' holds ~n slices, several VSSs of 128."""
    rng = np.random.default_rng(4)
    r = np.concatenate([np.arange(n), np.arange(n), rng.integers(0, n, n)])
    c = np.concatenate([np.full(n, 3), rng.integers(0, 8, n), rng.integers(0, n, n)])
    return coo(n, r, c)


def _sources(A_cpu, k=3, seed=0):
    n = A_cpu.nrows
    deg = np.diff(np.asarray(A_cpu.indptr))
    rng = np.random.default_rng(seed)
    s = {0, n - 1, int(np.argmax(deg))}
    s |= set(rng.integers(0, n, k).tolist())
    return sorted(s)


EXPLICIT = {
    "one_vertex": lambda: coo(1, [], []),
    "one_vertex_loop": lambda: coo(1, [0], [0]),
    "no_edges_33": lambda: coo(33, [], []),
    **{f"random_n{n}_{'dir' if d else 'undir'}": (lambda n=n, d=d: random_graph(n, 2.0, n, d))
       for n in (1, 7, 9, 31, 33, 257) for d in (True, False)},
    "empty_slice_sets_257": empty_slice_sets,
    "big_slice_set_700": big_slice_set,
    "star_out_1000": lambda: star(1000, "out"),
    "star_in_1000": lambda: star(1000, "in"),
    "star_undirected_1000": lambda: star(1000, "both"),
    "grid_64x48_drop": lambda: bg.io.generators.from_spec("grid:64x48:0.05"),
    "grid3d_12x10x9": lambda: bg.io.generators.from_spec("grid:12x10x9"),
    "kron_12": lambda: bg.io.generators.from_spec("kron:12"),
    "urand_11": lambda: bg.io.generators.from_spec("urand:11:8"),
    "rgg_3000": lambda: bg.io.generators.from_spec("rgg:3000:0.03"),
    "moore_33x45": lambda: bg.io.generators.from_spec("moore:33x45"),
    "moore3d_9x10x11": lambda: bg.io.generators.from_spec("moore:9x10x11"),
}
# high diameter: one parents=True call per method (levels come with it)
LONG = {
    "path_10000_directed": lambda: path(10_000),
    "path_10000_permuted_undirected": lambda: path(10_000, permuted=True, undirected=True),
}


def _data_graphs():
    """The LAGraph graphs tests/algorithms/test_bfs.py reads."""
    names = ["karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx", "west0067.mtx",
             "west0067_jumbled.mtx", "cryg2500.mtx", "pushpull.mtx", "olm1000.mtx",
             "LFAT5_hypersparse.mtx", "ldbc-directed-example.mtx",
             "ldbc-undirected-example.mtx", "tree-example.mtx", "msf1.mtx", "test_BF.mtx"]
    return names


def _read(name, pattern):
    A = bg.io.read(data_file(name))
    if pattern and not A.iso:
        r, c, _ = A.to_coo()
        A = bg.Matrix.from_coo(r, c, nrows=A.nrows, ncols=A.ncols)
    return A


# --- tests ----------------------------------------------------------------------------------
@gpu
@pytest.mark.parametrize("method,reorder", METHOD_REORDER)
@settings(max_examples=examples(60))
@given(g=graphs(max_n=150), data=st.data(), i64=st.booleans())
def test_bfs_hypothesis(method, reorder, g, data, i64):
    A_cpu = index64(g.matrix(bg)) if i64 else g.matrix(bg)
    A = on(A_cpu)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    check_bfs(A_cpu, A, s, method, reorder=reorder)


@gpu
@pytest.mark.parametrize("method", [method_param(m) for m in ALL_METHODS])
@settings(max_examples=examples(25))
@given(g=graphs(max_n=100), data=st.data(),
       alpha=st.sampled_from([0.0, 1e-3, 0.05, 2.0, float("inf")]))
def test_bfs_alpha(method, g, data, alpha):
    """Any direction switch gives the same levels and a valid tree."""
    A_cpu = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    check_bfs(A_cpu, on(A_cpu), s, method, alpha=alpha, levels_only_too=False)


@gpu
@pytest.mark.parametrize("method", [method_param(m) for m in ALL_METHODS])
def test_reorder_accepted(method):
    """Every method takes reorder= (it only changes the BVSS layout)."""
    A_cpu = random_graph(100, 2.0, 1)
    check_bfs(A_cpu, on(A_cpu), 0, method, reorder="rcm")


@gpu
@pytest.mark.parametrize("name", sorted(EXPLICIT))
def test_bfs_explicit(name):
    A_cpu = EXPLICIT[name]()
    A = on(A_cpu)
    keys = _edge_keys(A_cpu)
    for s in _sources(A_cpu):
        _check_every_method(A_cpu, A, s, cpu_levels(A_cpu, s), keys)


@gpu
@pytest.mark.parametrize("name", sorted(LONG))
def test_bfs_long_paths(name):
    A_cpu = LONG[name]()
    A = on(A_cpu)
    keys = _edge_keys(A_cpu)
    s = 0 if name.endswith("_directed") else 5000
    ref = cpu_levels(A_cpu, s)
    assert ref.max() >= 4999  # a deep BFS
    _check_every_method(A_cpu, A, s, ref, keys, levels_only_too=False)


def _check_every_method(A_cpu, A, s, ref, keys, **kw):
    """check_bfs for every available method, and every reorder of those
    that take one."""
    for method in AVAILABLE:
        for reorder in (REORDERS if method in USES_REORDER else ("none",)):
            check_bfs(A_cpu, A, s, method, reorder=reorder, ref=ref, keys=keys, **kw)


@gpu
def test_bfs_device_constructor():
    """A graph made with device= (not moved): from_spec and from_coo."""
    A = bg.io.generators.from_spec("grid:20x30:0.1", device=DEVICE)
    assert A.device == DEVICE
    A_cpu = A.to("cpu")
    B = bg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 3], nrows=5, ncols=5, device=DEVICE)
    for G, G_cpu in ((A, A_cpu), (B, B.to("cpu"))):
        for method in AVAILABLE:
            check_bfs(G_cpu, G, 0, method)


@gpu
@pytest.mark.parametrize("name", _data_graphs())
@pytest.mark.parametrize("pattern", [False, True], ids=["values", "pattern"])
def test_bfs_real_graphs(name, pattern):
    A_cpu = _read(name, pattern)
    if A_cpu.nrows != A_cpu.ncols:
        pytest.skip("not square")
    A = on(A_cpu)
    keys = _edge_keys(A_cpu)
    for s in _sources(A_cpu, k=1):
        ref = cpu_levels(A_cpu, s)
        for method in AVAILABLE:
            for reorder in (REORDERS if method in USES_REORDER else ("none",)):
                check_bfs(A_cpu, A, s, method, reorder=reorder, ref=ref, keys=keys)


# --- the persistent kernel's modes (BVSS: blest; CSR: push / direction) -------------------
@gpu
@pytest.mark.parametrize("method", FORCED_METHODS)
@settings(max_examples=examples(25))
@given(g=graphs(max_n=150), data=st.data(), reorder=st.sampled_from(REORDERS))
def test_forced_modes_hypothesis(method, g, data, reorder):
    """Eager/lazy updates x bottom-up on/off/always/free x tensor cores or
    SIMT x single-block levels or not: the same levels."""
    A_cpu = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    check_forced(A_cpu, on(A_cpu), s, reorder=reorder, method=method)


@gpu
@pytest.mark.parametrize("method", FORCED_METHODS)
@pytest.mark.parametrize("name", ["kron_12", "grid_64x48_drop", "star_undirected_1000",
                                  "big_slice_set_700", "empty_slice_sets_257", "random_n33_dir"])
def test_forced_modes_explicit(method, name):
    A_cpu = EXPLICIT[name]()
    A = on(A_cpu)
    for s in _sources(A_cpu, k=1):
        ref = cpu_levels(A_cpu, s)
        for reorder in (REORDERS if method == "blest" else ("none",)):
            check_forced(A_cpu, A, s, reorder=reorder, ref=ref, method=method)
    # parents after a forced run: still a BFS tree
    with forced("lazy", True, False):
        check_bfs(A_cpu, A, _sources(A_cpu)[-1], method, levels_only_too=False)


@gpu
@pytest.mark.parametrize("method", FORCED_METHODS)
def test_forced_modes_path(method):
    A_cpu = path(2000, permuted=True, undirected=True)
    check_forced(A_cpu, on(A_cpu), 17, method=method)


@gpu
@pytest.mark.parametrize("method", FORCED_METHODS)
def test_single_block_limits(method):
    """Frontiers around the single-block limits (SB_FRONTIER = 4,096
    vertices; ``bfs_cuda.single_edges`` out-edges, the default and 16,384)
    and hubs past the CSR kernel's heavy and giant degrees: a star whose
    leaves each lead to a short path, a 2-level tree of fan-out 70, and a
    wide grid."""
    n_leaf = 20_000  # the hub's out-degree: past GIANT (8,192), so chunked
    leaves = np.arange(1, n_leaf + 1)
    rows = np.concatenate([np.zeros(n_leaf, np.int64), leaves, leaves + n_leaf])
    cols = np.concatenate([leaves, leaves + n_leaf, leaves + 2 * n_leaf])
    star_paths = coo(3 * n_leaf + 1, rows, cols, undirected=True)
    fan = 70
    kids = np.arange(1, fan + 1)
    grand = np.arange(fan + 1, fan + 1 + fan * fan)
    tree = coo(1 + fan + fan * fan, np.concatenate([np.zeros(fan, np.int64), np.repeat(kids, fan)]),
               np.concatenate([kids, grand]), undirected=True)
    wide = bg.io.generators.from_spec("grid:300x200:0.02")
    limits = (None, 16_384) if DEVICE == "cuda" else (None,)
    for A_cpu in (star_paths, tree, wide):
        A = on(A_cpu)
        for s in (0, A_cpu.nrows - 1):
            ref = cpu_levels(A_cpu, s)
            for sb_edges in limits:
                edges = {} if sb_edges is None else {"bfs_cuda": {"single_edges": sb_edges}}
                with bg.settings.use(**edges):
                    check_bfs(A_cpu, A, s, method, ref=ref, keys=_edge_keys(A_cpu))
                    check_forced(A_cpu, A, s, ref=ref, method=method)


# beta 0: off; 10**9: bu_keep 0 (a level after a bottom-up one stays bottom-up while its
# frontier is not empty); 3: a threshold the graphs here cross
BU_RULES = [(beta, dead) for beta in (0, 3, 10**9) for dead in (False, True)]


def bottom_up_rules(beta, dead):
    """``settings.bfs_cuda.beta`` and ``.dead_visited`` set for a with-block."""
    return bg.settings.use(bfs_cuda={"beta": beta, "dead_visited": dead})


@gpu
@pytest.mark.parametrize("method", [m for m in ("direction", "blest") if m in AVAILABLE])
@settings(max_examples=examples(25))
@given(g=graphs(max_n=150), data=st.data(), rule=st.sampled_from(BU_RULES),
       alpha=st.sampled_from([0.0, 1e-3, 0.05]))
def test_bottom_up_rules_hypothesis(method, g, data, rule, alpha):
    """Beamer's stay-bottom-up rule (any beta) and the vertices without
    in-edges started visited (on or off) give the CPU's levels, reached set
    and a BFS tree, sources without in-edges included (directed graphs)."""
    A_cpu = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    with bottom_up_rules(*rule):
        check_bfs(A_cpu, on(A_cpu), s, method, alpha=alpha)


@gpu
@pytest.mark.parametrize("method", [m for m in ("direction", "blest") if m in AVAILABLE])
@pytest.mark.parametrize("name", ["kron_12", "star_out_1000", "star_in_1000", "random_n33_dir",
                                  "random_n257_dir", "no_edges_33", "one_vertex"])
def test_bottom_up_rules_explicit(method, name):
    """As above on R-MAT (many isolated vertices), stars whose centre has no
    in-edges (out) or whose leaves have none (in), and directed graphs."""
    A_cpu = EXPLICIT[name]()
    A = on(A_cpu)
    for s in _sources(A_cpu, k=2):
        ref = cpu_levels(A_cpu, s)
        for rule in BU_RULES:
            with bottom_up_rules(*rule):
                for alpha in (0.0, 0.05):
                    check_bfs(A_cpu, A, s, method, alpha=alpha, ref=ref, levels_only_too=False)


# --- msbfs and closeness --------------------------------------------------------------
MS_SIZES = (1, 7, 64, 65, 200)


@gpu
@pytest.mark.parametrize("k", MS_SIZES)
@settings(max_examples=examples(15))
@given(g=graphs(max_n=120), data=st.data(), groupby=st.booleans(), i64=st.booleans())
def test_msbfs_hypothesis(k, g, data, groupby, i64):
    """k sources (repeats allowed) equal k single CPU BFSs."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    sources = np.random.default_rng(seed).integers(0, g.n, k)
    batch = data.draw(st.sampled_from((1, 7, 64) if k <= 64 else (7, 64)), label="batch")
    A_cpu = index64(g.matrix(bg)) if i64 else g.matrix(bg)
    check_msbfs(A_cpu, on(A_cpu), sources, batch=batch, groupby=groupby)


@gpu
@pytest.mark.parametrize("name", ["kron_12", "grid_64x48_drop", "star_in_1000",
                                  "empty_slice_sets_257", "random_n257_dir", "one_vertex"])
@pytest.mark.parametrize("k", MS_SIZES)
def test_msbfs_explicit(name, k):
    A_cpu = EXPLICIT[name]()
    sources = np.random.default_rng(k).integers(0, A_cpu.nrows, k)
    refs = {}
    A = on(A_cpu)
    check_msbfs(A_cpu, A, sources, refs=refs)
    if k > 64:
        check_msbfs(A_cpu, A, sources, batch=7, groupby=True, refs=refs)


@gpu
def test_groupby_order_same_on_the_device():
    """GroupBy's batches computed on the graph's device (only the rows it
    reads are gathered) are the CPU's: on kron, where hubs make it reorder."""
    M = sys.modules["bitgraph.algorithms.multi_source"]
    A_cpu = EXPLICIT["kron_12"]()
    src = np.random.default_rng(0).integers(0, A_cpu.nrows, 300)
    cfg = bg.settings.MSBFS()
    want = M._groupby_order(A_cpu, src, 64, cfg)
    assert (want != np.arange(src.size)).any()
    assert np.array_equal(M._groupby_order(on(A_cpu), src, 64, cfg), want)


@gpu
def test_msbfs_path_and_real_graphs():
    refs = {}
    A_cpu = path(2000, permuted=True, undirected=True)
    check_msbfs(A_cpu, on(A_cpu), [0, 1999, 5, 5, 1000], refs=refs)
    for name in _data_graphs():
        A_cpu = _read(name, pattern=False)
        if A_cpu.nrows == A_cpu.ncols:
            src = np.random.default_rng(1).integers(0, A_cpu.nrows, 70)
            check_msbfs(A_cpu, on(A_cpu), src)


@gpu
@settings(max_examples=examples(40))
@given(g=graphs(max_n=120), data=st.data(), wf=st.booleans(), every=st.booleans())
def test_closeness_hypothesis(g, data, wf, every):
    A_cpu = g.matrix(bg)
    if every:
        sources = None
    else:
        seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
        sources = np.random.default_rng(seed).integers(0, g.n, 1 + g.n // 3)
    check_closeness(A_cpu, on(A_cpu), sources, wf_improved=wf)


@gpu
@pytest.mark.parametrize("name", ["kron_12", "grid_64x48_drop", "random_n257_dir"])
def test_closeness_explicit(name):
    A_cpu = EXPLICIT[name]()
    A = on(A_cpu)
    check_closeness(A_cpu, A, np.arange(0, A_cpu.nrows, 3))
    check_closeness(A_cpu, A, [0, 0, A_cpu.nrows - 1], wf_improved=False)


# --- the helpers themselves, on the CPU (not gpu: runs in every CI run) ---------------------
def test_bfs_cpu_helpers_selfcheck():
    """The comparison code on the CPU backend: the helpers pass on correct
    results and the tree validator rejects broken trees."""
    for make in (lambda: random_graph(33, 2.0, 1), lambda: star(40, "in"),
                 lambda: bg.io.generators.from_spec("grid:9x7:0.1")):
        A = make()
        keys = _edge_keys(A)
        for s in (0, A.nrows - 1):
            for method in ("blest", "pull", "auto"):
                for reorder in REORDERS:
                    check_bfs(A, A, s, method, reorder=reorder, keys=keys, device="cpu")
            check_forced(A, A, s, reorder="rcm", device="cpu")
            check_forced(A, A, s, device="cpu", method="direction")
        check_msbfs(A, A, [0, 1, 1, A.nrows - 1], batch=2, device="cpu")
        check_msbfs(A, A, np.arange(A.nrows).repeat(3), groupby=True, device="cpu")
        check_closeness(A, A, None)
    # the validator catches each kind of broken tree
    A = path(6)
    lv, par = run_bfs(A, 0, "pull", parents=True, device="cpu")
    check_tree(A, 0, lv, par)
    for broken in ({0: 1}, {3: 1}, {3: 4}, {4: -1}):
        p = par.copy()
        for v, q in broken.items():
            p[v] = q
        with pytest.raises(AssertionError):
            check_tree(A, 0, lv, p)
    B = coo(4, [0, 0, 1], [1, 2, 3])  # 2 -> 3 is not an edge
    lv, par = run_bfs(B, 0, "push", parents=True, device="cpu")
    par[3] = 2
    with pytest.raises(AssertionError, match="not an edge"):
        check_tree(B, 0, lv, par)
    with pytest.raises(AssertionError):
        _same_levels(np.array([0, 1, 2]), np.array([0, 1, -1]), "x")
    assert to_numpy(np.arange(3)).tolist() == [0, 1, 2]


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the asynchronous kernel runs on CUDA only")
def test_async_gives_up_and_falls_back():
    """A work list too small for the traversal (or a warp out of patience)
    makes the asynchronous kernel give up: bfs runs push instead, says so
    in its Stats record's method, and the levels are still right."""
    ka = sys.modules["bitgraph.kernels.cuda.bfs_async"]
    A_cpu = bg.io.generators.grid2d(60, 100, drop=0.05, seed=1)
    A = on(A_cpu)
    keys = _edge_keys(A_cpu)
    ref = cpu_levels(A_cpu, 0)
    with bg.settings.use(bfs_async={"cap_per_vertex": 0}):  # 64 slots: full at once
        rec = bg.Stats()
        check_bfs(A_cpu, A, 0, "async", ref=ref, keys=keys, stats=rec)
        assert rec.method == "push (async gave up)"
    tiny = bg.settings.BFSAsync(cap_per_vertex=0)
    assert ka.bfs_async(bg.algorithms._common.out_csr(A), 0, cfg=tiny) is None
    # gives up, or finishes first: right either way
    with bg.settings.use(bfs_async={"cap_per_vertex": 4, "patience_s": 0.0}):
        check_bfs(A_cpu, A, 0, "async", ref=ref, keys=keys)


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the asynchronous kernel runs on CUDA only")
@pytest.mark.parametrize("chain", [0, 1, 3])
@settings(max_examples=examples(25))
@given(g=graphs(max_n=150), data=st.data())
def test_async_chains(chain, g, data):
    """Children relaxed by the lane that found them (chains of any length,
    none at all) give the same levels as children that all go through the
    work list, with the children's rows loaded along with every edge's
    atomic (prefetch) or after it."""
    ka = sys.modules["bitgraph.kernels.cuda.bfs_async"]
    A_cpu = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    prefetch = data.draw(st.booleans(), label="prefetch")
    with bg.settings.use(bfs_async={"chain_max": chain, "prefetch_rows": prefetch}) as cfg:
        check_bfs(A_cpu, on(A_cpu), s, "async", levels_only_too=False)
        grid = bg.io.generators.grid2d(40, 50, drop=0.05, seed=chain)
        lv = ka.bfs_async(bg.algorithms._common.out_csr(on(grid)), 7, cfg=cfg.bfs_async)
    assert lv is not None  # did not give up
    _same_levels(to_numpy(lv), cpu_levels(grid, 7), f"async chain {chain} prefetch {prefetch}")


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the probe runs on CUDA graphs only")
def test_auto_picks_hops_for_a_long_diameter():
    """bfs_method's probe: a 400 x 400 grid (799 levels) gets hops; an
    R-MAT graph of as many vertices, a uniform random one and a random
    geometric one of mean degree ~60 (long diameter, but above
    hops_max_degree) get direction; auto's levels on the grid are right."""
    grid = bg.io.generators.from_spec("grid:400x400:0.01")
    assert bg.algorithms.bfs_method(on(grid)) == "hops"
    for spec in ("kron:17", "urand:17:8", "rgg:200000:d60"):  # rgg above hops_max_degree
        assert bg.algorithms.bfs_method(on(bg.io.generators.from_spec(spec))) == "direction"
    A = on(grid)
    rec = bg.Stats()
    check_bfs(grid, A, 777, "auto", ref=cpu_levels(grid, 777), keys=_edge_keys(grid), stats=rec)
    assert rec.method == "hops" and not rec.metrics["gave_up"]


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the probe runs on CUDA graphs only")
def test_auto_hops_limit_moves_the_choice():
    """Long meshes of mean degree 8-32 (rgg, the 8-neighbour mesh) get hops
    up to hops_max_degree and direction above it; auto's levels on rgg are
    right. (The probe's share is raised so that graphs of 300,000 vertices
    count as long: 24 hops of rgg reach ~2-6% of them, of rgg 2^22 under
    1%.)"""
    with bg.settings.use(bfs={"probe_share": 8}):
        rgg = bg.io.generators.from_spec("rgg:300000:d16")
        graphs = (rgg, bg.io.generators.from_spec("rgg:300000:d32"),
                  bg.io.generators.from_spec("moore:450x450"))
        for G in graphs:
            assert bg.algorithms.bfs_method(on(G)) == "hops"
        with bg.settings.use(bfs_cuda={"hops_max_degree": 12.0}):
            assert [bg.algorithms.bfs_method(on(G)) for G in graphs] == [
                "direction", "direction", "hops"]
        A = on(rgg)
        rec = bg.Stats()
        check_bfs(rgg, A, 12345, "auto", ref=cpu_levels(rgg, 12345), keys=_edge_keys(rgg),
                  stats=rec)
        assert rec.method == "hops" and not rec.metrics["gave_up"]


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the probe runs on CUDA graphs only")
def test_auto_picks_blest_for_a_dense_mesh():
    """A 26-neighbour 3D mesh of middle reach (14 hops to pass n / 16 here:
    the probe's settings scaled to a 40^3 mesh) in its natural order gets
    blest, and auto's levels are right; the same mesh in random ids (its
    slices would hold one neighbour each), of a mean degree under
    blest_min_degree, or of a reach under blest_min_reach gets direction."""
    rng = np.random.default_rng(4)
    mesh = bg.io.generators.from_spec("moore:40x40x40")
    p = rng.permutation(mesh.nrows)
    r, c, _ = mesh.to_coo()
    shuffled = bg.Matrix.from_coo(p[r], p[c], nrows=mesh.nrows, ncols=mesh.nrows)
    with bg.settings.use(bfs={"probe_min_n": 1000, "probe_share": 16}):
        A = on(mesh)
        assert bg.algorithms.breadth_first.reach(A) == 14
        assert bg.algorithms.bfs_method(A) == "blest"
        assert bg.algorithms.bfs_method(on(shuffled)) == "direction"
        with bg.settings.use(bfs_cuda={"blest_min_degree": 25.0}):
            assert bg.algorithms.bfs_method(on(mesh)) == "direction"
        with bg.settings.use(bfs_cuda={"blest_min_reach": 15}):
            assert bg.algorithms.bfs_method(on(mesh)) == "direction"
        rec = bg.Stats()
        check_bfs(mesh, A, 31_000, "auto", ref=cpu_levels(mesh, 31_000), keys=_edge_keys(mesh),
                  stats=rec)
        assert rec.method == "blest" and rec.metrics["kernel"] == "bvss"


def _window_levels(A_cpu, s, cfg, where):
    """bfs_window's levels from s equal the CPU's; its metrics back (did not give up)."""
    kw = importlib.import_module("bitgraph.kernels.cuda.bfs_window")
    rec = bg.Stats()
    lv = kw.bfs_window(bg.algorithms._common.out_csr(on(A_cpu)), s, cfg=cfg, stats=rec)
    assert lv is not None and not rec.metrics["gave_up"], where  # did not give up
    assert lv.dtype == np.int32 and lv.shape == (A_cpu.nrows,)
    _same_levels(to_numpy(lv).astype(np.int64), cpu_levels(A_cpu, s), where)
    return rec.metrics


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the windowed kernel runs on CUDA only")
@pytest.mark.parametrize("window", [0, 1, 3, 1 << 20])
@pytest.mark.parametrize("edges", [4, 8, 16])
@settings(max_examples=examples(20))
@given(g=graphs(max_n=150), data=st.data(), i64=st.booleans())
def test_window_kernel(window, edges, g, data, i64):
    """Every window (0: levels in order; 1 << 20: no window at all), every
    round width, chains or none, the check read or not, rows prefetched or
    not, int32 and int64 indices: the CPU's levels, on hypothesis graphs
    (components, isolated vertices, self-loops, hubs) and a grid with
    holes, n not a multiple of 32."""
    A_cpu = index64(g.matrix(bg)) if i64 else g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    chain = data.draw(st.sampled_from([0, 1, 64]), label="chain")
    check = data.draw(st.booleans(), label="check")
    prefetch = data.draw(st.booleans(), label="prefetch")
    cfg = bg.settings.BFSCuda(window_levels=window, window_round_edges=edges,
                              window_chain_max=chain, window_check=check,
                              window_prefetch_rows=prefetch)
    where = f"window {window} edges {edges} chain {chain} check {check} prefetch {prefetch}"
    _window_levels(A_cpu, s, cfg, where)
    _window_levels(bg.io.generators.grid2d(37, 45, drop=0.05, seed=window), 7, cfg, where)


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the windowed kernel runs on CUDA only")
@pytest.mark.parametrize("name", ["path_3001", "star_1000", "rgg_20000", "moore3d_20", "tiny"])
def test_window_kernel_shapes(name):
    """A long path (3,000 levels, one item in flight), a star (one item of
    999 edges: many rounds, hub rows longer than a round), rgg and the
    26-neighbour mesh (rows of 16-26 over rounds of 4, 8, 16), one and two
    vertices; window 0 with a hold longer than the traversal runs levels
    in order: each reached vertex is appended at most once (no relabel),
    and the floor moves by itself (no item waits out a hold)."""
    A_cpu = {"path_3001": lambda: path(3001, permuted=True, undirected=True),
             "star_1000": lambda: star(1000, "both"),
             "rgg_20000": lambda: bg.io.generators.from_spec("rgg:20000:d16"),
             "moore3d_20": lambda: bg.io.generators.from_spec("moore:20x20x20"),
             "tiny": lambda: coo(2, [0], [1])}[name]()
    for s in _sources(A_cpu, k=1):
        for window in (0, 1, 4, 1 << 20):
            for edges in (4, 16):
                cfg = bg.settings.BFSCuda(window_levels=window, window_round_edges=edges,
                                          window_hold_s=0.05 if window == 0 else 20e-6)
                got = _window_levels(A_cpu, s, cfg, f"{name} source {s} window {window}")
                if window == 0:
                    reached = int((cpu_levels(A_cpu, s) >= 0).sum())
                    assert got["appended"] <= reached, (name, s, got)
                    assert got["kernel_ms"] < 1000, got  # not one 50 ms hold per level


def _hops_levels(A_cpu, s, cfg, where):
    """bfs_hops's levels from s equal the CPU's; its metrics back (did not give up)."""
    kh = importlib.import_module("bitgraph.kernels.cuda.bfs_hops")
    rec = bg.Stats()
    lv = kh.bfs_hops(bg.algorithms._common.out_csr(on(A_cpu)), s, cfg=cfg, stats=rec)
    assert lv is not None and not rec.metrics["gave_up"], where
    assert lv.dtype == np.int32 and lv.shape == (A_cpu.nrows,)
    _same_levels(to_numpy(lv).astype(np.int64), cpu_levels(A_cpu, s), where)
    return rec.metrics


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the hops kernel runs on CUDA only")
@pytest.mark.parametrize("hops", [1, 2, 3, 8, 64])
@settings(max_examples=examples(25))
@given(g=graphs(max_n=150), data=st.data(), i64=st.booleans())
def test_hops_kernel(hops, g, data, i64):
    """Every count of levels a grid barrier (1: level-synchronous; 64: past
    most graphs' depth), int32 and int64 indices: the CPU's levels, on
    hypothesis graphs (components, isolated vertices, self-loops, hubs)
    and a grid with holes, n not a multiple of 32."""
    A_cpu = index64(g.matrix(bg)) if i64 else g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    cfg = bg.settings.BFSCuda(hops_levels=hops)
    _hops_levels(A_cpu, s, cfg, f"hops {hops}")
    _hops_levels(bg.io.generators.grid2d(37, 45, drop=0.05, seed=hops), 7, cfg, f"hops {hops}")


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the hops kernel runs on CUDA only")
@pytest.mark.parametrize("name", ["path_3001", "star_1000", "rgg_20000", "moore3d_20", "kron_12",
                                  "tiny"])
def test_hops_kernel_shapes(name):
    """A long path (3,000 levels, one vertex a level), a star (a hub of 999
    edges walked by one warp), rgg and the 26-neighbour mesh, a kron graph
    (levels of thousands, many blocks' lists busy at once), one and two
    vertices; every source's levels the CPU's for 1, 4 and 32 levels a
    barrier."""
    A_cpu = {"path_3001": lambda: path(3001, permuted=True, undirected=True),
             "star_1000": lambda: star(1000, "both"),
             "rgg_20000": lambda: bg.io.generators.from_spec("rgg:20000:d16"),
             "moore3d_20": lambda: bg.io.generators.from_spec("moore:20x20x20"),
             "kron_12": lambda: bg.io.generators.from_spec("kron:12"),
             "tiny": lambda: coo(2, [0], [1])}[name]()
    for s in _sources(A_cpu, k=2):
        for hops in (1, 4, 32):
            _hops_levels(A_cpu, s, bg.settings.BFSCuda(hops_levels=hops),
                         f"{name} source {s} hops {hops}")


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the hops kernel runs on CUDA only")
def test_hops_gives_up_and_falls_back():
    """Block lists of one item (every other item spills to the next phase's
    queue) keep the levels right; a queue of one item makes the kernel give
    up: bfs runs push instead and says so, with the right levels; bad
    settings are refused by name."""
    kh = importlib.import_module("bitgraph.kernels.cuda.bfs_hops")
    A_cpu = bg.io.generators.grid2d(60, 100, drop=0.05, seed=1)
    A = on(A_cpu)
    keys = _edge_keys(A_cpu)
    ref = cpu_levels(A_cpu, 0)
    for hops in (2, 8):
        _hops_levels(A_cpu, 0, bg.settings.BFSCuda(hops_list=1, hops_levels=hops), "list 1")
        _hops_levels(bg.io.generators.from_spec("kron:10"), 3,
                     bg.settings.BFSCuda(hops_list=3, hops_levels=hops), "kron list 3")
    with bg.settings.use(bfs_cuda={"hops_queue": 0.0}):
        rec = bg.Stats()
        check_bfs(A_cpu, A, 0, "hops", ref=ref, keys=keys, stats=rec)
        assert rec.method == "push (hops gave up)"
    tiny = bg.settings.BFSCuda(hops_queue=0.0)
    assert kh.bfs_hops(bg.algorithms._common.out_csr(A), 0, cfg=tiny) is None
    check_bfs(A_cpu, A, 0, "hops", ref=ref, keys=keys)  # after a give-up: a clean start
    for bad in ({"hops_levels": 0}, {"hops_list": 0}, {"hops_list": 10**6}, {"hops_queue": -1}):
        with pytest.raises(ValueError, match="hops_levels = .* must be >= 1, hops_list"):
            kh.bfs_hops(bg.algorithms._common.out_csr(A), 0, cfg=bg.settings.BFSCuda(**bad))


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the windowed kernel runs on CUDA only")
def test_window_gives_up_and_falls_back():
    """A work list too small (64 slots) makes the windowed kernel give up:
    bfs runs push instead and says so; a hold of 0 (every item relaxed at
    once: bfs_async's order) and a patience of 0 (gives up or finishes)
    are right either way."""
    kw = importlib.import_module("bitgraph.kernels.cuda.bfs_window")
    A_cpu = bg.io.generators.grid2d(60, 100, drop=0.05, seed=1)
    A = on(A_cpu)
    keys = _edge_keys(A_cpu)
    ref = cpu_levels(A_cpu, 0)
    with bg.settings.use(bfs_cuda={"window_cap_per_vertex": 0}):
        rec = bg.Stats()
        check_bfs(A_cpu, A, 0, "window", ref=ref, keys=keys, stats=rec)
        assert rec.method == "push (window gave up)"
    tiny = bg.settings.BFSCuda(window_cap_per_vertex=0)
    assert kw.bfs_window(bg.algorithms._common.out_csr(A), 0, cfg=tiny) is None
    with bg.settings.use(bfs_cuda={"window_hold_s": 0.0}):
        check_bfs(A_cpu, A, 0, "window", ref=ref, keys=keys)
    with bg.settings.use(bfs_cuda={"window_patience_s": 0.0}):
        check_bfs(A_cpu, A, 0, "window", ref=ref, keys=keys)
    with pytest.raises(ValueError, match="window_levels must be >= 0"):
        kw.bfs_window(bg.algorithms._common.out_csr(A), 0,
                      cfg=bg.settings.BFSCuda(window_levels=-1))


@gpu
def test_auto_runs_and_reports_bfs_method():
    """method="auto" runs bfs_method(A), and says so in its Stats record
    (the method, and the kernel's metrics)."""
    A_cpu = bg.io.generators.from_spec("kron:10")
    A = on(A_cpu)
    chosen = bg.algorithms.bfs_method(A)
    assert chosen in AVAILABLE and chosen != "auto"
    ref = cpu_levels(A_cpu, 3)
    rec = bg.Stats()
    lv, _ = run_bfs(A, 3, "auto", stats=rec)
    _same_levels(lv, ref, "auto")
    assert rec.method == chosen
    assert rec.metrics["kernel"] == ("bvss" if chosen == "blest" else "csr")
    assert rec.metrics["levels"] == int(ref.max()) + 1



def clique_tail(k=40, tail=2):
    """A k-clique with a path of ``tail`` vertices hanging off vertex k - 1:
    a bottom-up level from vertex 0 finds the clique and leaves exactly the
    tail unvisited, one vertex a level after it."""
    i, j = np.triu_indices(k, 1)
    ids = np.arange(k - 1, k + tail)
    return coo(k + tail, np.concatenate([i, ids[:-1]]), np.concatenate([j, ids[1:]]),
               undirected=True)


@gpu
@pytest.mark.parametrize("method", FORCED_METHODS)
@pytest.mark.parametrize("name", ["clique_tail", "urand_11", "kron_12", "random_n257_dir",
                                  "empty_slice_sets_257"])
def test_traversal_ends_when_nothing_is_left(method, name):
    """A bottom-up level that leaves no vertex unvisited ends the traversal
    (the kernel's ``left`` count): the levels stay the CPU's, and the trace
    still lists every level with the CPU's frontier sizes, whether the
    graph is exhausted (clique_tail, urand) or keeps unreachable vertices
    (kron's small components, a directed graph, isolated tails); one
    unvisited vertex left (the clique's tail) does not end it."""
    A_cpu = clique_tail() if name == "clique_tail" else EXPLICIT[name]()
    A = on(A_cpu)
    for s in _sources(A_cpu, k=1):
        ref = cpu_levels(A_cpu, s)
        sizes = np.bincount(ref[ref >= 0]).tolist()
        for bottom_up in ("always", None):
            for rule in ((0, False), (3, True)):
                rec = bg.Stats()
                with forced(None, bottom_up, single=False), bottom_up_rules(*rule):
                    lv, _ = run_bfs(A, s, method, alpha=0.0, stats=rec)
                where = f"{method} {name} source={s} bottom_up={bottom_up} rule={rule}"
                _same_levels(lv, ref, where)
                assert rec.metrics["levels"] == len(sizes), where
                assert rec.metrics["frontier"] == sizes, where


@gpu
def test_gated_kernel_time_encloses_the_kernel():
    """The Stats record's kernel time (events with the host's launch
    overhead gated out) encloses the kernel's own span (its globaltimer,
    entry to exit)."""
    A = on(bg.io.generators.from_spec("kron:12"))
    rec = bg.Stats()
    bfs(A, 0, method="direction", stats=rec)
    st = rec.metrics
    assert 0 < st["init_ms"] < st["span_ms"] <= st["kernel_ms"] + 1e-3, st


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the prepared launch runs on CUDA graphs only")
@pytest.mark.parametrize("method", ["auto", "push", "direction", "blest"])
def test_prepared_launch_results_are_their_own(method):
    """A bfs without parents runs the launch prepared for its graph
    (``breadth_first._prepared``): every result holds its own arrays (an
    earlier result is unchanged by later calls), its values are 0 where
    absent and its bitmap is the reached vertices with zero padding; graphs
    taking turns (the scratch changes under a prepared launch), int64
    indices and another stream give the CPU's levels; one launch is kept
    per graph and settings."""
    import cupy

    from bitgraph import _array

    graphs_ = [bg.io.generators.from_spec("kron:12"), EXPLICIT["random_n257_dir"](),
               index64(EXPLICIT["star_in_1000"]()), EXPLICIT["one_vertex"]()]
    devs = [on(g) for g in graphs_]
    got = []
    for _ in range(2):
        for G, D in zip(graphs_, devs):
            for s in _sources(G, k=1):
                got.append((G, s, bfs(D, s, method=method)))
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        for s in _sources(graphs_[0], k=1):
            got.append((graphs_[0], s, bfs(devs[0], s, method=method)))
    stream.synchronize()
    for G, s, lv in got:
        where = f"{method} n={G.nrows} source={s}"
        ref = cpu_levels(G, s)
        assert lv.device == "cuda" and lv.dtype == np.int32 and lv.size == G.nrows, where
        _same_levels(lv.to("cpu").to_dense(-1).astype(np.int64), ref, where)
        assert (to_numpy(lv._values)[ref < 0] == 0).all(), where
        assert np.array_equal(to_numpy(lv._bitmap), _array.pack_bits(ref >= 0)), where
    for D in devs:
        assert len(D._slots().bfs_cuda_launch) == 1
    for alpha in (0.01, 0.02, 0.03, 0.04, 0.05, 0.06):
        bfs(devs[0], 0, method=method, alpha=alpha)
    assert len(devs[0]._slots().bfs_cuda_launch) == 4  # the newest few only


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the prepared launch runs on CUDA graphs only")
def test_repeated_call_follows_settings_method_and_storage():
    """A repeated levels-only call reuses the last call's launch (slot
    bfs_cuda_hot) only under the same settings object, method and device:
    a settings block, another method and a changed graph each run their
    own launch and give the CPU's levels; a source of another integer type
    runs too, a bad one still gets bitgraph's errors."""
    A_cpu = bg.io.generators.from_spec("kron:10")
    A = on(A_cpu)
    a, b, c = np.argsort(-np.diff(A_cpu._csr().indptr), kind="stable")[:3].tolist()

    def check(s, **kw):
        lv = bfs(A, s, **kw)
        _same_levels(lv.to("cpu").to_dense(-1).astype(np.int64), cpu_levels(A_cpu, s), f"{kw}")

    check(a)
    hot = A._slots().bfs_cuda_hot
    assert hot[0] is bg.settings.current() and hot[1] == "auto"
    check(b)
    assert A._slots().bfs_cuda_hot is hot  # taken, not made again
    with bg.settings.use(bfs_cuda={"alpha": 1e9}):  # never bottom-up: another launch
        check(b)
        inner = A._slots().bfs_cuda_hot
        assert inner[0] is bg.settings.current() and inner[3] is not hot[3]
    check(c)
    assert A._slots().bfs_cuda_hot[0] is bg.settings.current()
    check(c, method="push")
    assert A._slots().bfs_cuda_hot[1] == "push"
    check(np.int64(a), method="push")
    for bad, err in ((A.nrows, bg.InvalidIndex), (-1, bg.InvalidIndex), (True, bg.InvalidType)):
        with pytest.raises(err):
            bfs(A, bad, method="push")
    # a change of A's storage drops the slot: the next call sees the new edge
    far = int(np.flatnonzero(cpu_levels(A_cpu, c) < 0)[0])  # kron:10 has isolated vertices
    A[c, far] = True
    A_cpu[c, far] = True
    assert A._slots().bfs_cuda_hot is None
    check(c, method="push")
    check(c, method="push")
    assert bfs(A, c, method="push").to("cpu").to_dense(-1)[far] == 1


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the prepared launch runs on CUDA graphs only")
def test_prepared_launch_checks_the_source():
    """The prepared path still refuses a bad source (bitgraph's errors, before
    any launch) and a reordered BVSS still runs its own path."""
    A_cpu = bg.io.generators.from_spec("kron:10")
    A = on(A_cpu)
    bfs(A, 0)
    with pytest.raises(bg.InvalidIndex):
        bfs(A, A.nrows)
    with pytest.raises(bg.InvalidType):
        bfs(A, 1.0)
    lv = bfs(A, 5, method="blest", reorder="rcm")
    _same_levels(lv.to("cpu").to_dense(-1).astype(np.int64), cpu_levels(A_cpu, 5), "rcm")


@gpu
@pytest.mark.skipif(DEVICE != "cuda", reason="the kernel's level modes are the CUDA kernel's")
@pytest.mark.parametrize("name", ["moore", "kron", "urand"])
def test_single_scan_needs_new_vertices(name):
    """``bfs_cuda.scan_found``: a CSR top-down level (method push: no
    bottom-up level) that XBFS's rule alone runs single-scan stays so only
    where the level before found at least scan_found new vertices per
    out-edge of its frontier (or ran single-block: its out-edges are not
    counted), else it runs eager; every other level keeps its mode. The rule
    bites on a 26-neighbour mesh (few new vertices) and leaves single-scan
    levels on R-MAT and a random graph; the levels equal the CPU's either way."""
    A_cpu = {"moore": lambda: bg.io.generators.from_spec("moore:24x24x24"),
             "kron": lambda: bg.io.generators.kron(12, seed=3),
             "urand": lambda: bg.io.generators.from_spec("urand:12:32")}[name]()
    A_dev = on(A_cpu)
    deg = np.diff(A_cpu._csr().indptr)
    s = int(np.flatnonzero(deg > 0)[len(deg) // 3])
    ref = cpu_levels(A_cpu, s)
    nf = np.bincount(ref[ref >= 0])  # |F_L|
    ds = np.bincount(ref[ref >= 0], weights=deg[ref >= 0]).astype(np.int64)  # F_L's out-edges
    modes = []
    for found in (0.0, 0.25):
        with bg.settings.use(bfs_cuda={"scan_found": found, "scan_min": 1 / 64}):
            lv, _ = run_bfs(A_dev, s, "push")
            _same_levels(lv, ref, f"{name} scan_found={found}")
            rec = bg.Stats()
            bg.algorithms.bfs(A_dev, s, method="push", stats=rec)
            assert rec.metrics["frontier"] == nf[:len(rec.metrics["frontier"])].tolist()
            modes.append(rec.metrics["modes"])
    xbfs, ruled = modes
    assert len(xbfs) == len(ruled) and "lazy" in xbfs, modes
    for L, (m0, m1) in enumerate(zip(xbfs, ruled)):
        finds = L == 0 or ruled[L - 1] == "single" or nf[L] * 4 >= ds[L - 1]
        want = ("lazy" if finds else "eager") if m0 == "lazy" else m0
        assert m1 == want, (L, m0, m1, int(nf[L]), int(ds[L - 1]) if L else 0, modes)
    if name == "moore":  # the rule bites on the mesh ...
        assert ruled.count("lazy") < xbfs.count("lazy"), modes
    else:  # ... and leaves single-scan levels on R-MAT and urand
        assert "lazy" in ruled, modes
