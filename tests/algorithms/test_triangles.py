"""triangle_count against networkx.triangles (per vertex and total) and
python-graphblas (C<L> = L plus.pair L' on the same L), for every method,
with and without the degree relabelling, on hypothesis graphs (directed
input symmetrised, self-loops, duplicates), the LAGraph test graphs,
generator graphs and triangle-free graphs; the fused kernel's serial and
parallel paths and both index dtypes directly. Every body that takes a
graph runs with the ``device`` parameter too (on CUDA: every method on the
GPU, the per-vertex Vector on the graph's device), and the CUDA ordered
kernel alone on each of its branches (merge, search, upper parts skipped,
int32/int64, hubs, empty rows, n not a multiple of 32)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from graph_strategies import graphs
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
import oracle as O
from bitgraph.algorithms._common import known
from bitgraph.algorithms.triangles import METHODS, triangle_count, worth_relabelling
from bitgraph.kernels.cpu import components as K
from testdata import data_file

VARIANTS = [(m, r) for m in METHODS for r in (False, True, "auto")]


def undirected(S):
    """scipy CSR of the pattern of S + S' without the diagonal."""
    S = sp.csr_array(S)
    U = (abs(S) + abs(S.T)).tocsr()
    U.setdiag(0)
    U.eliminate_zeros()
    U.data[:] = 1
    U.sort_indices()
    return U


def nx_triangles(U):
    G = nx.Graph()
    G.add_nodes_from(range(U.shape[0]))
    C = U.tocoo()
    G.add_edges_from(zip(C.row.tolist(), C.col.tolist()))
    t = nx.triangles(G)
    return np.array([t[v] for v in range(U.shape[0])], np.int64)


def gb_total(U):
    import graphblas as gb

    L = sp.tril(U, -1).tocsr()
    n = U.shape[0]
    g = gb.Matrix.from_csr(L.indptr.astype(np.int64), L.indices.astype(np.int64), True,
                           nrows=n, ncols=n)
    c = gb.semiring.plus_pair(g @ g.T).new(mask=g.S).reduce_scalar().get(0)
    return 0 if c is None else int(c)


def count(A, **kw):
    """triangle_count's per-vertex Vector, checked to be on A's device, on the host."""
    pv = triangle_count(A, per_vertex=True, **kw)
    assert pv.device == A.device and pv.dtype == np.int64
    return O.to_host(pv)


def check(A, want, where="", device="cpu"):
    A = O.on_device(A, device)
    for method, relabel in VARIANTS:
        got = triangle_count(A, method=method, relabel=relabel)
        assert type(got) is int
        assert got == int(want.sum()) // 3, (method, relabel, where)
        pv = count(A, method=method, relabel=relabel)
        assert pv.size == A.nrows and pv.nvals == A.nrows and pv.dtype == np.int64
        np.testing.assert_array_equal(pv.to_dense(), want, err_msg=f"{method} {relabel} {where}")


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=300)
@given(graphs(max_n=60))
def test_hypothesis_graphs(device, g):
    U = undirected(g.scipy())
    want = nx_triangles(U)
    check(g.matrix(bg), want, repr(g), device)


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=100)
@given(graphs(max_n=40))
def test_against_graphblas(device, g):
    U = undirected(g.scipy())
    A = O.on_device(g.matrix(bg), device)
    total = gb_total(U)
    for method in METHODS:
        assert triangle_count(A, method=method) == total
    assert triangle_count(A.T) == total


@pytest.mark.parametrize("device", O.DEVICES)
@settings(max_examples=60)
@given(graphs(max_n=50), st.sampled_from(["tensor_core", "mxm"]), st.sampled_from([0, 4, 8, 32]),
       st.booleans())
def test_mxm_on_b2sr_and_csr(device, g, method, tile, relabel):
    # "tensor_core" asks the masked product of the B2SR bmm_bin_bin_sum (tile
    # from settings.Plan.bits_tile, 0: the profile's); "mxm" leaves it to plan
    U = undirected(g.scipy())
    want = nx_triangles(U)
    A = O.on_device(g.matrix(bg), device)
    with bg.settings.use(plan={"bits_tile": tile}):
        assert triangle_count(A, method=method, relabel=relabel) == want.sum() // 3
        pv = count(A, method=method, relabel=relabel)
    np.testing.assert_array_equal(pv.to_dense(), want)


@settings(max_examples=200)
@given(graphs(max_n=90, directed=False), st.sampled_from([np.int32, np.int64]),
       st.booleans(), st.booleans())
def test_ordered_kernel(g, itype, parallel, relabel):
    # the kernel alone: serial and pooled, both index dtypes, natural or
    # degree order (in which the rows' upper parts are unsorted)
    U = undirected(g.scipy())
    want = nx_triangles(U)
    indptr, indices = U.indptr.astype(itype), U.indices.astype(itype)
    if relabel:
        rank, indptr, indices, mid = K.degree_order(indptr, indices, parallel=parallel)
        assert rank.dtype == itype and indptr.dtype == itype and mid.dtype == itype
        assert sorted(rank.tolist()) == list(range(U.shape[0]))
        deg = np.diff(U.indptr)
        new_deg = np.empty_like(deg)
        new_deg[rank] = deg
        assert (np.diff(new_deg) <= 0).all()  # descending degree
    else:
        rank = np.arange(U.shape[0])
        mid = K.lower_ends(indptr, indices, parallel=parallel)
    assert K.ordered_count(indptr, indices, mid, parallel=parallel) == want.sum() // 3
    pv = K.ordered_count(indptr, indices, mid, per_vertex=True, parallel=parallel)
    np.testing.assert_array_equal(pv[rank], want)


@pytest.mark.parametrize("device", O.DEVICES)
def test_examples(device):
    # K4 with a pendant vertex, a self-loop, a duplicate, one direction only
    A = O.on_device(bg.Matrix.from_coo([0, 0, 0, 1, 1, 2, 3, 3, 0], [1, 2, 3, 2, 3, 3, 4, 3, 1],
                                       nrows=6, ncols=6), device)
    for method, relabel in VARIANTS:
        assert triangle_count(A, method=method, relabel=relabel) == 4
        assert count(A, method=method, relabel=relabel).to_dense().tolist() == [3, 3, 3, 3, 0, 0]


@pytest.mark.parametrize("device", O.DEVICES)
def test_empty_and_tiny(device):
    for n in (0, 1, 2, 3, 33):
        A = O.on_device(bg.Matrix.from_coo([], [], nrows=n, ncols=n), device)
        for method, relabel in VARIANTS:
            assert triangle_count(A, method=method, relabel=relabel) == 0
            assert count(A, method=method, relabel=relabel).to_dense().tolist() == [0] * n
    # one vertex with a self-loop; a lone triangle among 37 vertices
    loop = O.on_device(bg.Matrix.from_coo([0], [0], nrows=1, ncols=1), device)
    A = O.on_device(bg.Matrix.from_coo([36, 36, 20], [20, 5, 5], nrows=37, ncols=37), device)
    want = np.zeros(37, np.int64)
    want[[5, 20, 36]] = 1
    for method, relabel in VARIANTS:
        assert triangle_count(loop, method=method, relabel=relabel) == 0
        assert triangle_count(A, method=method, relabel=relabel) == 1
        assert count(A, method=method, relabel=relabel).to_dense().tolist() == want.tolist()


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("kind", ["tree", "grid", "star", "bipartite"])
def test_triangle_free(kind, device):
    rng = np.random.default_rng(7)
    if kind == "tree":
        n = 500
        rows = np.arange(1, n)
        cols = rng.integers(0, rows)  # parent below each vertex
        A = bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n)
    elif kind == "grid":
        A = bg.io.generators.grid2d(40, 50)
    elif kind == "star":
        n = 300
        A = bg.Matrix.from_coo(np.zeros(n - 1, np.int64), np.arange(1, n), nrows=n, ncols=n)
    else:  # complete bipartite K(20, 30): dense, skewed enough, no triangle
        r, c = np.meshgrid(np.arange(20), np.arange(20, 50))
        A = bg.Matrix.from_coo(r.ravel(), c.ravel(), nrows=50, ncols=50)
    A = O.on_device(A, device)
    for method, relabel in VARIANTS:
        assert triangle_count(A, method=method, relabel=relabel) == 0
        assert not count(A, method=method, relabel=relabel).to_dense().any()


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("spec", ["kron:10", "urand:11", "grid:60x70"])
def test_generators(spec, device):
    # big enough for the pooled paths; kron relabels under "auto"
    A = bg.io.generators.from_spec(spec)
    rows, cols, _ = A.to_coo()
    U = undirected(sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape))
    check(A, nx_triangles(U), spec, device)
    assert triangle_count(O.on_device(A, device)) == gb_total(U)


def test_worth_relabelling():
    kron = bg.io.generators.kron(12)
    urand = bg.io.generators.urand(12, degree=32)
    grid = bg.io.generators.grid2d(64, 64)
    assert worth_relabelling(kron.indptr)
    assert not worth_relabelling(urand.indptr)  # dense enough, not skewed
    assert not worth_relabelling(grid.indptr)  # too sparse
    assert not worth_relabelling(np.zeros(1, np.int64))


@pytest.mark.parametrize("device", O.DEVICES)
def test_clique_counts_no_overflow(device):
    # K_n: C(n, 3) triangles, (n-1)(n-2)/2 per vertex (on CUDA: long rows,
    # the kernel's merge and search branches both)
    n = 120
    r, c = np.nonzero(~np.eye(n, dtype=bool))
    A = O.on_device(bg.Matrix.from_coo(r, c, nrows=n, ncols=n), device)
    for method, relabel in VARIANTS:
        assert triangle_count(A, method=method, relabel=relabel) == n * (n - 1) * (n - 2) // 6
        pv = count(A, method=method, relabel=relabel).to_dense()
        assert (pv == (n - 1) * (n - 2) // 2).all()


REAL = {"karate.mtx": 45, "jagmesh7.mtx": None, "bcsstk13.mtx": None, "pushpull.mtx": None,
        "west0067.mtx": None, "ldbc-undirected-example.mtx": None, "cryg2500.mtx": None,
        "tree-example.mtx": 0, "olm1000.mtx": None, "LFAT5_hypersparse.mtx": None}


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("name", sorted(REAL))
def test_real_graphs(name, device):
    path = data_file(name)
    A = bg.io.read(path)
    rows, cols, _ = A.to_coo()
    U = undirected(sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape))
    want = nx_triangles(U)
    if REAL[name] is not None:
        assert want.sum() // 3 == REAL[name]
    check(A, want, name, device)
    assert triangle_count(O.on_device(A, device)) == gb_total(U)


def test_errors():
    with pytest.raises(bg.DimensionMismatch, match="^triangle_count: "):
        triangle_count(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3))
    with pytest.raises(TypeError, match="^triangle_count: "):
        triangle_count([[0, 1], [1, 0]])
    A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
    with pytest.raises(ValueError, match="^triangle_count: unknown method"):
        triangle_count(A, method="cusparse")
    with pytest.raises(ValueError, match="^triangle_count: relabel"):
        triangle_count(A, relabel="yes")


# --- the ordered kernel of each device, alone ------------------------------------

def ordered_kernel(device):
    """The registered ordered count of ``device`` over host arrays: (total,
    per-vertex numpy array), each kernel's own keyword arguments in ``kw``."""
    from bitgraph.kernels import registry

    run = registry.lookup("tc", fmt="csr", device=device, variant="ordered")

    def call(indptr, indices, mid, **kw):
        if device == "cuda":
            import cupy

            indptr, indices, mid = (cupy.asarray(a) for a in (indptr, indices, mid))
        total = run(indptr, indices, mid, **kw)
        pv = run(indptr, indices, mid, per_vertex=True, **kw)
        if device == "cuda":
            import cupy

            assert isinstance(pv, cupy.ndarray)
        assert type(total) is int and pv.dtype == np.int64
        return total, O.to_host(pv)
    return call


def kernel_graphs():
    """(name, scipy CSR of an undirected loop-free pattern, sorted rows)."""
    rng = np.random.default_rng(5)
    out = []
    n = 40  # a clique: rows of 39, every intersection long
    r, c = np.nonzero(~np.eye(n, dtype=bool))
    out.append(("clique", r, c, n))
    n = 100  # a star with a few rim edges: one hub row, short others
    r = np.r_[np.zeros(n - 1, np.int64), np.arange(1, n - 1)]
    c = np.r_[np.arange(1, n), np.arange(2, n)]
    out.append(("star", r, c, n))
    n = 45  # random, n not a multiple of 32, isolated vertices
    r, c = rng.integers(0, n - 5, 200), rng.integers(0, n - 5, 200)
    out.append(("random45", r, c, n))
    n = 1000  # a long path closed into triangles every 10 vertices
    r = np.r_[np.arange(n - 1), np.arange(0, n - 2, 10)]
    c = np.r_[np.arange(1, n), np.arange(2, n, 10)]
    out.append(("path", r, c, n))
    K = bg.io.generators.from_spec("kron:8")
    r, c, _ = K.to_coo()
    out.append(("kron8", r, c, K.nrows))
    out.append(("one", np.zeros(0, np.int64), np.zeros(0, np.int64), 1))
    out.append(("empty", np.zeros(0, np.int64), np.zeros(0, np.int64), 0))
    return [(name, undirected(sp.csr_array((np.ones(len(r)), (r, c)), shape=(n, n))))
            for name, r, c, n in out]


@pytest.mark.parametrize("device", O.DEVICES)
@pytest.mark.parametrize("itype", [np.int32, np.int64])
@pytest.mark.parametrize("name, U", kernel_graphs(), ids=lambda x: x if isinstance(x, str) else "")
def test_ordered_kernel_branches(device, itype, name, U):
    # three layouts: the symmetric CSR with lower_ends (upper parts skipped
    # on CUDA, walked on the CPU), degree_order's rows (upper parts
    # unsorted), and on CUDA L compacted (mid = indptr[1:]: the CPU kernel
    # finds a triangle at its middle vertex through the upper parts, so it
    # needs them); on CUDA merge_ratio 1 (mostly binary search) and 1000 (merge)
    from bitgraph.algorithms.triangles import _lower

    want = nx_triangles(U)
    call = ordered_kernel(device)
    indptr, indices = U.indptr.astype(itype), U.indices.astype(itype)
    mid = K.lower_ends(indptr, indices, parallel=False)
    L_indptr, L_indices = _lower(indptr, indices, mid)
    rank, r_indptr, r_indices, r_mid = K.degree_order(indptr, indices, parallel=False)
    layouts = [(indptr, indices, mid, None), (r_indptr, r_indices, r_mid, rank)]
    if device == "cuda":
        layouts.append((L_indptr, L_indices, L_indptr[1:], None))
    ratios = [{}] if device == "cpu" else [{"merge_ratio": 1}, {"merge_ratio": 1000}, {}]
    for a, b, m, perm in layouts:
        assert a.dtype == itype and b.dtype == itype and m.dtype == itype
        for kw in ratios:
            total, pv = call(a, b, m, **kw)
            assert total == int(want.sum()) // 3, (name, kw)
            np.testing.assert_array_equal(pv if perm is None else pv[perm], want,
                                          err_msg=f"{name} {kw}")


@pytest.mark.parametrize("device", O.DEVICES)
def test_stats_and_device_cache(device):
    # what ran is reported; on CUDA L is built once and kept on the GPU
    A = O.on_device(bg.io.generators.from_spec("kron:8"), device)
    rec = bg.Stats()
    want = triangle_count(bg.io.generators.from_spec("kron:8"))
    assert triangle_count(A, method="ordered", relabel=True, stats=rec) == want
    assert rec.method == "ordered" and rec.metrics["relabel"] is True
    assert ("tc", "csr", device, "ordered") in rec.kernels
    if device == "cuda":
        assert rec.metrics["kernel_ms"] >= 0
        rank, L = known(A, "tc_L_relabelled")
        assert L.device == "cuda" and type(rank).__module__.split(".")[0] == "cupy"
        assert triangle_count(A, method="mxm", relabel=True) == want  # the same cached L
        assert known(A, "tc_L_relabelled")[1] is L
    rec = bg.Stats()
    assert triangle_count(A, stats=rec) == want
    assert rec.method == ("ordered" if device == "cpu" else bg.settings.current().triangles.cuda_method)
    with bg.settings.use(triangles={"cuda_method": "mxm"}):
        rec = bg.Stats()
        assert triangle_count(A, stats=rec) == want
        assert rec.method == ("ordered" if device == "cpu" else "mxm")
