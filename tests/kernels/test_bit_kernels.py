"""The bit-format kernels beyond the conformance suites: the Blest BVSS
step as a whole BFS (natural and reordered order) against scipy, masked
bmm_bin_bin_sum triangle counts on real graphs, and plan's choice rule."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import strategies as S
from testdata import data_file
from bitgraph import _array as ar
from bitgraph import plan
from bitgraph.formats import bvss
from bitgraph.formats.csr import from_coo
from bitgraph.kernels import registry
from bitgraph.semiring import lookup_semiring
from bitgraph.kernels import convert

GRAPHS = ["karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx", "west0067.mtx", "cryg2500.mtx", "pushpull.mtx",
          "LFAT5_hypersparse.mtx", "ldbc-directed-example.mtx", "tree-example.mtx"]


def bvss_bfs(A: bg.Matrix, source: int, reorder="none", sigma=8, parallel=None):
    """BFS levels (-1 unreached) from Blest steps on the BVSS of A'."""
    step = registry.lookup("bfs", fmt="bvss", device="cpu", variant="step")
    b = A.T.bvss(sigma, reorder)
    n = A.nrows
    inv = np.empty(n, np.int64)
    perm = b.perm if b.perm is not None else np.arange(n)
    inv[perm] = np.arange(n)
    s = int(inv[source])  # the source in the BVSS's ids
    levels = np.full(n, -1, np.int64)
    levels[s] = 0
    frontier = ar.pack_bits(np.arange(n) == s)
    visited = frontier.copy()
    blk = s // sigma
    queue = np.arange(b.real_ptrs[blk], b.real_ptrs[blk + 1], dtype=np.int32)
    level = 0
    while queue.size:
        frontier, queue = step(b, frontier, visited, queue, parallel=parallel)
        level += 1
        new = ar.unpack_bits(frontier, n)
        assert not (new & ar.unpack_bits(visited, n)).any()
        levels[new] = level
        visited |= frontier
    return levels[inv]  # back to the caller's ids


def scipy_levels(A: bg.Matrix, source: int):
    S_ = A.to_scipy().astype(bool).astype(np.float64)
    d = csg.shortest_path(S_, unweighted=True, indices=source, directed=True)
    return np.where(np.isinf(d), -1, d).astype(np.int64)


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 150))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    m = draw(st.integers(0, 4 * n))
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if draw(st.booleans()):
        r, c = np.r_[r, c], np.r_[c, r]  # undirected
    A = bg.Matrix.from_coo(r, c, nrows=n, ncols=n, dup_op="any")
    return A, draw(st.integers(0, n - 1)), draw(st.sampled_from(bvss.SIGMAS))


@settings(max_examples=S.n_examples(150))
@given(graphs())
def test_bvss_bfs_equals_scipy(case):
    A, s, sigma = case
    want = scipy_levels(A, s)
    # serial steps list the rows they find; parallel ones OR chunk bitmaps
    assert np.array_equal(bvss_bfs(A, s, sigma=sigma, parallel=False), want)
    assert np.array_equal(bvss_bfs(A, s, sigma=sigma, parallel=True), want)


@pytest.mark.parametrize("name", GRAPHS)
@pytest.mark.parametrize("reorder", ["none", "rcm", "auto"])
def test_bvss_bfs_real_graphs(name, reorder):
    A = bg.io.read(data_file(name))
    if A.nrows != A.ncols:
        pytest.skip("not square")
    src = int(np.argmax(np.diff(A.indptr)))
    assert np.array_equal(bvss_bfs(A, src, reorder), scipy_levels(A, src))


def test_bvss_step_single_vertex_and_empty():
    A = bg.Matrix.from_coo([], [], nrows=1, ncols=1)
    assert bvss_bfs(A, 0).tolist() == [0]
    A = bg.Matrix.from_coo([0], [0], nrows=1, ncols=1)
    assert bvss_bfs(A, 0).tolist() == [0]


@pytest.mark.parametrize("name", ["karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx", "pushpull.mtx"])
@pytest.mark.parametrize("t", [4, 8, 16, 32])
def test_triangles_on_bits_equal_networkx(name, t):
    import networkx as nx

    A = bg.io.read(data_file(name))
    G = nx.from_scipy_sparse_array(A.to_scipy())
    G.remove_edges_from(nx.selfloop_edges(G))
    want = sum(nx.triangles(G).values()) // 3
    L = bg.select(A, "tril", -1)
    L = bg.Matrix.from_coo(*L.to_coo()[:2], nrows=A.nrows, ncols=A.ncols)  # structure only
    with bg.settings.use(plan={"bits_tile": t}):
        C = bg.mxm(L, L.T, "plus_pair", mask=L.S, method="bits")
    assert int(bg.reduce(C)) == want
    # and the kernel itself: one B2SR serves both operands
    counts, total = registry.lookup("mxm", fmt="b2sr", device="cpu", variant="bin_bin_sum")(
        L.b2sr(t), L.b2sr(t), L._csr())
    assert total == want and counts.size == L.nvals


def test_plan_auto_rule():
    """auto counts triangles on B2SR-8 and pulls a BFS step on B2SR-32 when
    tiles are full enough (a grid: 6.7 entries per 8x8 tile, 32 per 32x32),
    on CSR when they are not (a scattered random graph)."""
    k = 64
    i = np.arange(k * k)
    right, down = i[i % k < k - 1], i[i // k < k - 1]
    G = bg.Matrix.from_coo(np.r_[right, right + 1, down, down + k], np.r_[right + 1, right, down + k, down],
                           nrows=k * k, ncols=k * k)
    rules = bg.settings.current().plan
    assert plan.use_bits(G, "count", "mxm", rules) == 8
    assert G.profile()[8]["nnz_per_tile"] >= rules.bits_mxm_min_per_tile
    assert plan.use_bits(G, "ones", "mxv", rules) == 32
    assert plan.use_bits(G, "count", "mxv", rules) == 0 and plan.use_bits(G, "full", "mxv", rules) == 0
    assert plan.use_bits(G, "full", "mxm", rules) == 0
    rng = np.random.default_rng(0)
    n = 4096
    R = bg.Matrix.from_coo(rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n), nrows=n, ncols=n, dup_op="any")
    assert plan.use_bits(R, "count", "mxm", rules) == 0
    assert plan.use_bits(R, "ones", "mxv", rules) == 0


def test_bit_kernel_classification():
    def kind(name, dtype="int64", flipped=False):
        sr = lookup_semiring(name)
        tc, _ = sr.types(np.dtype(dtype))
        m = sr.monoid
        return plan.bit_kernel(plan.semiring_spec(tc, m.code, sr.mult.code, m.identity(tc), m.terminal(tc)), flipped)

    assert kind("plus_pair") == "count"
    assert kind("any_pair") == "ones"
    assert kind("lor_land", "bool") == "lor_x"
    assert kind("plus_times", "float64") == "full"
    assert kind("min_plus", "float64") == "full"
    assert kind("plus_first") == "count"  # a_ik = 1
    assert kind("plus_second") == "full"  # x_k
    assert kind("plus_second", flipped=True) == "count"  # vxm: SECOND reads the matrix
    assert kind("lxor_pair", "bool") == "parity"


# --- the kernels directly, against the CSR kernels -----------------------------------

@st.composite
def bit_inputs(draw):
    nr, nc = draw(st.integers(0, 80)), draw(st.integers(0, 80))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dens = draw(st.sampled_from([0.0, 0.05, 0.3, 0.9]))
    r, c = np.nonzero(rng.random((nr, nc)) < dens)
    A = from_coo(r, c, None, nr, nc)
    present = rng.random(nc) < draw(st.sampled_from([0.0, 0.1, 0.5, 1.0]))
    true = present & (rng.random(nc) < 0.5)
    allowed = None if draw(st.booleans()) else ar.pack_bits(rng.random(nr) < 0.6)
    return A, present, true, allowed, rng.random(nc), draw(st.sampled_from([4, 8, 16, 32]))


@settings(max_examples=S.n_examples(300))
@given(bit_inputs())
def test_bmv_kernels_equal_csr_pull(case):
    from bitgraph.kernels import opcodes as oc
    from bitgraph.kernels.registry import SemiringSpec

    A, present, true, allowed, xv, t = case
    B = convert.b2sr(A, t)
    xp, xt = ar.pack_bits(present), ar.pack_bits(true)
    pull = registry.lookup("mxv", fmt="csr", device="cpu", variant="pull")
    bbb = registry.lookup("mxv", fmt="b2sr", device="cpu", variant="bin_bin_bin")
    bbf = registry.lookup("mxv", fmt="b2sr", device="cpu", variant="bin_bin_full")
    bff = registry.lookup("mxv", fmt="b2sr", device="cpu", variant="bin_full_full")
    f64 = np.dtype(np.float64)
    for sr in (SemiringSpec(f64, oc.PLUS, oc.SECOND, 0.0, None), SemiringSpec(f64, oc.MIN, oc.PLUS, np.inf, None),
               SemiringSpec(f64, oc.MAX, oc.SECOND, -np.inf, 0.5), SemiringSpec(np.dtype(np.int64), oc.ANY,
                                                                               oc.SECONDI, 0, None)):
        x = xv if sr.dtype == f64 else (xv * 100).astype(np.int64)
        for par in (False, True):
            got = bff(B, x, xp, allowed, sr, parallel=par)
            ref = pull(A, x, xp, allowed, sr)
            assert np.array_equal(got[1], ref[1])
            assert np.array_equal(got[0][ref[1]], ref[0][ref[1]])  # bit-identical, float sums too
    lor = SemiringSpec(np.dtype(bool), oc.LOR, oc.SECOND, False, True)
    vals, pres = pull(A, true, xp, allowed, lor)
    for x_true in (xt, None):
        t_true, t_present = bbb(B, xp, x_true, allowed)
        assert np.array_equal(t_present, pres)
        assert np.array_equal(t_true, (vals & pres) if x_true is not None else pres)
    cnt = pull(A, np.ones(A.ncols, np.int64), xp, allowed, SemiringSpec(np.dtype(np.int64), oc.PLUS, oc.PAIR, 0, None))
    counts = bbf(B, xp, allowed)
    assert np.array_equal(counts[cnt[1]], cnt[0][cnt[1]]) and not counts[~cnt[1]].any()


@settings(max_examples=S.n_examples(200))
@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60), st.integers(0, 2**32 - 1),
       st.sampled_from([4, 8, 16, 32]))
def test_bmm_kernel_equals_dense_product(m, k, n, seed, t):

    rng = np.random.default_rng(seed)
    Ad = rng.random((m, k)) < rng.random()
    Bd = rng.random((k, n)) < rng.random()
    Md = rng.random((m, n)) < rng.random()
    if rng.random() < 0.2 and k:
        Ad[:, rng.integers(k)] = True  # a hub column
        Bd[rng.integers(k), :] = True
    C = Ad.astype(np.int64) @ Bd.astype(np.int64)
    A = convert.b2sr(from_coo(*np.nonzero(Ad), None, m, k), t)
    BT = convert.b2sr(from_coo(*np.nonzero(Bd.T), None, n, k), t)
    M = from_coo(*np.nonzero(Md), None, m, n)
    bmm = registry.lookup("mxm", fmt="b2sr", device="cpu", variant="bin_bin_sum")
    counts, total = bmm(A, BT, M)
    r, c = np.nonzero(Md)
    assert np.array_equal(counts.astype(np.int64), C[r, c]) and total == C[r, c].sum()
    assert bmm(A, BT, M, parallel=True)[1] == total
    assert bmm(A, BT, None) == (None, int(C.sum()))


def test_bmm_long_tile_rows_take_the_binary_search():
    """A column of B holding every row makes B's transpose have one tile row
    > 16x longer than A's: bmm then searches A's tiles in it."""

    rng = np.random.default_rng(3)
    m, k, n = 40, 400, 40
    Ad = np.zeros((m, k), bool)
    Ad[np.arange(m), rng.integers(0, k, m)] = True  # one entry a row: <= 4 tiles a tile row
    Ad[np.arange(0, m, 2), 7] = True
    Bd = rng.random((k, n)) < 0.02
    Bd[:, 5] = True
    C = Ad.astype(np.int64) @ Bd.astype(np.int64)
    A = convert.b2sr(from_coo(*np.nonzero(Ad), None, m, k), 4)
    BT = convert.b2sr(from_coo(*np.nonzero(Bd.T), None, n, k), 4)
    lens_a, lens_b = np.diff(A.tile_rowptr), np.diff(BT.tile_rowptr)
    assert lens_b.max() > 16 * lens_a.max()
    Md = np.ones((m, n), bool)
    counts, total = registry.lookup("mxm", fmt="b2sr", device="cpu", variant="bin_bin_sum")(
        A, BT, from_coo(*np.nonzero(Md), None, m, n))
    assert np.array_equal(counts.astype(np.int64), C.ravel()) and total == C.sum()


def test_bit_kernels_name_bad_arguments():
    """The kernels read without bounds checks, so the launchers check sizes."""
    from bitgraph.kernels import opcodes as oc
    from bitgraph.kernels.registry import SemiringSpec

    A = from_coo(np.arange(40), np.arange(40), None, 40, 70)
    B = convert.b2sr(A, 8)
    short = np.zeros(1, np.uint32)  # 32 bits; 70 columns need 3 words
    ok = np.zeros(3, np.uint32)
    bbb = registry.lookup("mxv", fmt="b2sr", device="cpu", variant="bin_bin_bin")
    with pytest.raises(ValueError, match="x_present has 1 uint32 words, needs 3"):
        bbb(B, short, None, None)
    with pytest.raises(ValueError, match="allowed has 1 uint32 words, needs 2"):
        bbb(B, ok, None, short)
    bff = registry.lookup("mxv", fmt="b2sr", device="cpu", variant="bin_full_full")
    with pytest.raises(ValueError, match="x_values has 5 entries, needs 70"):
        bff(B, np.zeros(5), ok, None, SemiringSpec(np.dtype(np.float64), oc.PLUS, oc.TIMES, 0.0))
    b = convert.bvss(from_coo(np.arange(40), np.arange(40), None, 40, 40))
    step = registry.lookup("bfs", fmt="bvss", device="cpu", variant="step")
    with pytest.raises(ValueError, match="queue holds VSS id 99"):
        step(b, np.zeros(2, np.uint32), np.zeros(2, np.uint32), np.array([0, 99], np.int32))
    with pytest.raises(ValueError, match="frontier has 1 uint32 words, needs 2"):
        step(b, short, np.zeros(2, np.uint32), np.array([0], np.int32))
