"""triangle_count against networkx.triangles (per vertex and total) and
python-graphblas (C<L> = L plus.pair L' on the same L), for every method,
with and without the degree relabelling, on hypothesis graphs (directed
input symmetrised, self-loops, duplicates), the LAGraph test graphs,
generator graphs and triangle-free graphs; the fused kernel's serial and
parallel paths and both index dtypes directly."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from graph_strategies import graphs
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
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


def check(A, want, where=""):
    for method, relabel in VARIANTS:
        got = triangle_count(A, method=method, relabel=relabel)
        assert isinstance(got, int)
        assert got == int(want.sum()) // 3, (method, relabel, where)
        pv = triangle_count(A, per_vertex=True, method=method, relabel=relabel)
        assert pv.size == A.nrows and pv.nvals == A.nrows and pv.dtype == np.int64
        np.testing.assert_array_equal(pv.to_dense(), want, err_msg=f"{method} {relabel} {where}")


@settings(max_examples=300)
@given(graphs(max_n=60))
def test_hypothesis_graphs(g):
    U = undirected(g.scipy())
    want = nx_triangles(U)
    check(g.matrix(bg), want, repr(g))


@settings(max_examples=100)
@given(graphs(max_n=40))
def test_against_graphblas(g):
    U = undirected(g.scipy())
    A = g.matrix(bg)
    total = gb_total(U)
    for method in METHODS:
        assert triangle_count(A, method=method) == total
    assert triangle_count(A.T) == total


@settings(max_examples=60)
@given(graphs(max_n=50), st.sampled_from(["tensor_core", "mxm"]), st.sampled_from([0, 4, 8, 32]),
       st.booleans())
def test_mxm_on_b2sr_and_csr(g, method, tile, relabel):
    # "tensor_core" asks the masked product of the B2SR bmm_bin_bin_sum (tile
    # from settings.Plan.bits_tile, 0: the profile's); "mxm" leaves it to plan
    U = undirected(g.scipy())
    want = nx_triangles(U)
    A = g.matrix(bg)
    with bg.settings.use(plan={"bits_tile": tile}):
        assert triangle_count(A, method=method, relabel=relabel) == want.sum() // 3
        pv = triangle_count(A, per_vertex=True, method=method, relabel=relabel)
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


def test_examples():
    # K4 with a pendant vertex, a self-loop, a duplicate, one direction only
    A = bg.Matrix.from_coo([0, 0, 0, 1, 1, 2, 3, 3, 0], [1, 2, 3, 2, 3, 3, 4, 3, 1],
                           nrows=6, ncols=6)
    for method, relabel in VARIANTS:
        assert triangle_count(A, method=method, relabel=relabel) == 4
        assert triangle_count(A, per_vertex=True, method=method,
                              relabel=relabel).to_dense().tolist() == [3, 3, 3, 3, 0, 0]


def test_empty_and_tiny():
    for n in (0, 1, 2, 3):
        A = bg.Matrix.from_coo([], [], nrows=n, ncols=n)
        for method, relabel in VARIANTS:
            assert triangle_count(A, method=method, relabel=relabel) == 0
            assert triangle_count(A, per_vertex=True, method=method,
                                  relabel=relabel).to_dense().tolist() == [0] * n


@pytest.mark.parametrize("kind", ["tree", "grid", "star", "bipartite"])
def test_triangle_free(kind):
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
    for method, relabel in VARIANTS:
        assert triangle_count(A, method=method, relabel=relabel) == 0
        assert not triangle_count(A, per_vertex=True, method=method,
                                  relabel=relabel).to_dense().any()


@pytest.mark.parametrize("spec", ["kron:10", "urand:11", "grid:60x70"])
def test_generators(spec):
    # big enough for the pooled paths; kron relabels under "auto"
    A = bg.io.generators.from_spec(spec)
    rows, cols, _ = A.to_coo()
    U = undirected(sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape))
    check(A, nx_triangles(U), spec)
    assert triangle_count(A) == gb_total(U)


def test_worth_relabelling():
    kron = bg.io.generators.kron(12)
    urand = bg.io.generators.urand(12, degree=32)
    grid = bg.io.generators.grid2d(64, 64)
    assert worth_relabelling(kron.indptr)
    assert not worth_relabelling(urand.indptr)  # dense enough, not skewed
    assert not worth_relabelling(grid.indptr)  # too sparse
    assert not worth_relabelling(np.zeros(1, np.int64))


def test_clique_counts_no_overflow():
    # K_n: C(n, 3) triangles, (n-1)(n-2)/2 per vertex
    n = 120
    r, c = np.nonzero(~np.eye(n, dtype=bool))
    A = bg.Matrix.from_coo(r, c, nrows=n, ncols=n)
    for method, relabel in VARIANTS:
        assert triangle_count(A, method=method, relabel=relabel) == n * (n - 1) * (n - 2) // 6
        pv = triangle_count(A, per_vertex=True, method=method, relabel=relabel).to_dense()
        assert (pv == (n - 1) * (n - 2) // 2).all()


REAL = {"karate.mtx": 45, "jagmesh7.mtx": None, "bcsstk13.mtx": None, "pushpull.mtx": None,
        "west0067.mtx": None, "ldbc-undirected-example.mtx": None, "cryg2500.mtx": None,
        "tree-example.mtx": 0, "olm1000.mtx": None, "LFAT5_hypersparse.mtx": None}


@pytest.mark.parametrize("name", sorted(REAL))
def test_real_graphs(name):
    path = data_file(name)
    A = bg.io.read(path)
    rows, cols, _ = A.to_coo()
    U = undirected(sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape))
    want = nx_triangles(U)
    if REAL[name] is not None:
        assert want.sum() // 3 == REAL[name]
    check(A, want, name)
    assert triangle_count(A) == gb_total(U)


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
