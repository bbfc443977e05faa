"""connected_components / number_connected_components against
scipy.sparse.csgraph.connected_components (connection="weak"): same
partition and every label the smallest vertex id of its component, for
every method, on hypothesis graphs, the LAGraph test graphs and the
generators; the Afforest kernel's serial and parallel paths and both index
dtypes directly."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from graph_strategies import graphs
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.algorithms.components import (METHODS, connected_components,
                                            number_connected_components)
from bitgraph.kernels.cpu import components as K
from testdata import data_file



def expected_labels(S):
    """Smallest vertex id of each vertex's weak component (scipy)."""
    n = S.shape[0]
    ncomp, comp = csg.connected_components(S, directed=True, connection="weak")
    smallest = np.full(ncomp, n, np.int64)
    np.minimum.at(smallest, comp, np.arange(n))
    return smallest[comp], ncomp


def check(A, S, where=""):
    want, ncomp = expected_labels(S)
    for method in METHODS:
        got = connected_components(A, method=method)
        assert got.size == A.nrows and got.nvals == A.nrows, (method, where)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got.to_dense(), want, err_msg=f"{method} {where}")
    assert number_connected_components(A) == ncomp


@settings(max_examples=400)
@given(graphs(max_n=60))
def test_hypothesis_graphs(g):
    check(g.matrix(bg), g.scipy(), repr(g))


@settings(max_examples=100)
@given(graphs(max_n=60), st.booleans())
def test_transposed_and_weighted_input(g, transpose):
    # A' has the same weak components; values never matter
    A = g.matrix(bg)
    S = g.scipy()
    if transpose:
        A, S = A.T, S.T.tocsr()
    want, _ = expected_labels(S)
    for method in METHODS:
        np.testing.assert_array_equal(connected_components(A, method=method).to_dense(), want)


@settings(max_examples=300)
@given(graphs(max_n=80), st.sampled_from([np.int32, np.int64]), st.booleans(),
       st.integers(0, 3), st.booleans())
def test_afforest_kernel(g, itype, parallel, rounds, symmetrise):
    # the kernel alone: serial and pooled chunks, both index dtypes, any
    # number of sampling rounds, rows shuffled; on a symmetrised CSR the
    # largest component may skip its edges, on the directed one it must not
    S = g.scipy()
    U = (S + S.T).tocsr() if symmetrise else S.tocsr()
    want, _ = expected_labels(S)
    rng = np.random.default_rng(rounds)
    indices = U.indices.copy()
    for u in range(U.shape[0]):
        rng.shuffle(indices[U.indptr[u]:U.indptr[u + 1]])
    comp = K.afforest(U.indptr.astype(itype), indices.astype(itype), rounds=rounds,
                      skip_largest=symmetrise, parallel=parallel)
    assert comp.dtype == itype
    np.testing.assert_array_equal(comp, want)


def test_known_symmetric_skips():
    # once A is known symmetric the skipping variant runs: same labels
    from bitgraph.algorithms import _common

    G = bg.io.generators.grid2d(50, 60, drop=0.4, seed=2)
    assert _common.known(G, "symmetric")  # the generators record it
    A = bg.Matrix.from_csr(G.indptr, G.indices, ncols=G.ncols)
    first = connected_components(A).to_dense()
    assert not _common.known(A, "symmetric")
    assert _common.is_symmetric(A) and _common.known(A, "symmetric")
    np.testing.assert_array_equal(connected_components(A).to_dense(), first)
    np.testing.assert_array_equal(connected_components(G).to_dense(), first)
    D = bg.Matrix.from_coo([0, 2], [1, 1], nrows=3, ncols=3)
    assert not _common.is_symmetric(D) and _common.known(D, "symmetric") is False
    assert connected_components(D).to_dense().tolist() == [0, 0, 0]


def test_examples():
    # isolated vertices, a self-loop, duplicates, a directed chain
    A = bg.Matrix.from_coo([5, 5, 2, 2, 7, 6], [5, 3, 3, 3, 6, 2], nrows=9, ncols=9)
    for method in METHODS:
        assert connected_components(A, method=method).to_dense().tolist() == \
            [0, 1, 2, 2, 4, 2, 2, 2, 8]
    assert number_connected_components(A) == 5
    one = bg.Matrix.from_coo([0], [0], nrows=1, ncols=1)
    for method in METHODS:
        assert connected_components(one, method=method).to_dense().tolist() == [0]


def test_empty_graph():
    A = bg.Matrix.from_coo([], [], nrows=0, ncols=0)
    for method in METHODS:
        assert connected_components(A, method=method).size == 0
    assert number_connected_components(A) == 0
    E = bg.Matrix.from_coo([], [], nrows=4, ncols=4)
    for method in METHODS:
        assert connected_components(E, method=method).to_dense().tolist() == [0, 1, 2, 3]
    assert number_connected_components(E) == 4


def test_long_path():
    # high diameter: FastSV needs many rounds, Afforest's chains get long
    n = 3000
    perm = np.random.default_rng(1).permutation(n)
    A = bg.Matrix.from_coo(perm[:-1], perm[1:], nrows=n, ncols=n)
    for method in METHODS:
        assert (connected_components(A, method=method).to_dense() == 0).all()


@pytest.mark.parametrize("spec", ["kron:12", "urand:12", "grid:60x70"])
def test_generators(spec):
    # big enough for the pooled (parallel) paths
    A = bg.io.generators.from_spec(spec)
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape)
    check(A, S, spec)


def test_generator_many_components():
    A = bg.io.generators.grid2d(120, 150, drop=0.45, seed=3)
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape)
    want, ncomp = expected_labels(S)
    assert ncomp > 100
    check(A, S, "grid2d drop")


GRAPHS = ["ldbc-wcc-example.mtx", "jagmesh7.mtx", "west0067.mtx", "LFAT5_hypersparse.mtx",
          "empty.mtx", "karate.mtx", "ldbc-directed-example.mtx", "tree-example.mtx",
          "cryg2500.mtx", "pushpull.mtx", "bcsstk13.mtx", "olm1000.mtx", "msf1.mtx",
          "structure.mtx", "test_BF.mtx"]


@pytest.mark.parametrize("name", GRAPHS)
def test_real_graphs(name):
    path = data_file(name)
    A = bg.io.read(path)
    if A.nrows != A.ncols:
        pytest.skip("not square")
    rows, cols, _ = A.to_coo()
    S = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=A.shape)
    check(A, S, name)


def test_ldbc_wcc_example():
    # hand-checked: its 15 edges join all 10 vertices (1-based ids 1..10)
    path = data_file("ldbc-wcc-example.mtx")
    A = bg.io.read(path)
    for method in METHODS:
        assert connected_components(A, method=method).to_dense().tolist() == [0] * 10
    assert number_connected_components(A) == 1


def test_errors():
    with pytest.raises(bg.DimensionMismatch, match="^connected_components: "):
        connected_components(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3))
    with pytest.raises(TypeError, match="^connected_components: "):
        connected_components(np.eye(3))
    with pytest.raises(ValueError, match="^connected_components: unknown method"):
        connected_components(bg.Matrix.from_coo([0], [1], nrows=2, ncols=2), method="bfs")
    with pytest.raises(bg.DimensionMismatch, match="^number_connected_components: "):
        number_connected_components(bg.Matrix.from_coo([0], [1], nrows=2, ncols=3))
