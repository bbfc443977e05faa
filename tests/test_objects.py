"""Objects: constructors, conversions (scipy, python-graphblas, networkx),
copy / isequal, the .T view, mask objects, no silent densification, and the
same results with int64 indices forced on tiny matrices."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S


# ---------------------------------------------------------------- constructors
@settings(max_examples=S.n_examples(600))
@given(S.matrices(via="coo"))
def test_matrix_from_coo_matches_graphblas_build(spec):
    """Duplicates (combined by dup_op, or collapsed when structure-only), unsorted
    input, every dtype: the same as python-graphblas's build."""
    A = spec.bg(bg)
    O.assert_same(A, spec.gb(), op_info=repr(spec))
    assert A.shape == (spec.nrows, spec.ncols)
    assert A.nvals == spec.gb().nvals


@settings(max_examples=S.n_examples(600))
@given(S.vectors())
def test_vector_constructors_match_graphblas_build(spec):
    u = spec.bg(bg)
    O.assert_same(u, spec.gb(), op_info=repr(spec))
    idx, vals = u.to_coo()
    dense = u.to_dense(fill=1)
    assert dense.shape == (spec.size,)
    assert dense.dtype == u.dtype
    expect = np.full(spec.size, 1, dtype=u.dtype)
    expect[idx] = vals
    assert np.array_equal(dense, expect, equal_nan=u.dtype.kind == "f")
    assert np.array_equal(u.indices(), idx)


def test_structure_only_and_dtype():
    A = bg.Matrix.from_coo([0, 0, 1], [1, 1, 0])  # duplicates collapse, shape inferred
    assert A.shape == (2, 2) and A.nvals == 2 and A.dtype == np.bool_
    assert A.to_coo()[2].tolist() == [True, True]
    B = bg.Matrix.from_coo([0, 1], [1, 0], [1, 2], 3, 4, dtype="float32")
    assert B.dtype == np.float32 and B.shape == (3, 4)
    with pytest.raises(bg.InvalidValue):
        bg.Matrix.from_coo([0, 0], [1, 1], [1, 2])
    C = bg.Matrix.from_coo([0, 0], [1, 1], [1, 2], dup_op="plus")
    assert C.to_coo()[2].tolist() == [3]
    with pytest.raises(bg.InvalidValue):
        bg.Vector.from_coo([2, 2], [1.0, 2.0], 3)
    assert bg.Vector.from_coo([2, 2], [1.0, 2.0], 3, dup_op="max").to_coo()[1].tolist() == [2.0]
    assert bg.Vector.from_coo([2, 2, 0], size=3).nvals == 2


@pytest.mark.parametrize("dtype", O.DTYPE_NAMES)
def test_empty_objects(dtype):
    A = bg.Matrix(dtype, 3, 0)
    assert A.shape == (3, 0) and A.nvals == 0 and A.dtype == np.dtype(dtype)
    r, c, v = A.to_coo()
    assert r.dtype == c.dtype == np.int64 and v.dtype == np.dtype(dtype) and r.size == 0
    u = bg.Vector(dtype, 0)
    assert u.size == 0 and u.nvals == 0 and u.dtype == np.dtype(dtype)
    assert bg.Matrix().shape == (0, 0) and bg.Matrix().dtype == np.bool_
    assert bg.Vector().size == 0 and bg.Vector().dtype == np.bool_
    assert bg.Vector(np.dtype(dtype), 5).to_dense().tolist() == [0] * 5


def test_from_indices_and_dense():
    u = bg.Vector.from_indices([3, 1], 5)
    assert u.dtype == np.bool_ and u.indices().tolist() == [1, 3] and u.to_coo()[1].tolist() == [True, True]
    w = bg.Vector.from_indices([0], 2, dtype=np.int16)
    assert w.dtype == np.int16 and w.to_coo()[1].tolist() == [1]
    d = bg.Vector.from_dense(np.array([0.0, -1.5, 0.0]))
    assert d.nvals == 3 and d.dtype == np.float64 and d.to_coo()[1].tolist() == [0.0, -1.5, 0.0]


# ---------------------------------------------------------------- conversions
def _int64_csr(S_):
    S_ = S_.copy()
    S_.indices = S_.indices.astype(np.int64)
    S_.indptr = S_.indptr.astype(np.int64)
    return S_


@pytest.mark.parametrize("kind", ["csr_array", "csr_matrix", "coo_array", "csc_array", "coo_matrix"])
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float32", "float64"])
def test_scipy_roundtrip(kind, dtype):
    rng = np.random.default_rng(1)
    dense = rng.integers(-3, 4, (5, 7)) * (rng.random((5, 7)) < 0.4)
    S_ = getattr(sp, kind)(dense.astype(dtype))
    A = bg.Matrix.from_scipy(S_)
    assert A.shape == (5, 7) and A.dtype == np.dtype(dtype)
    back = A.to_scipy()
    assert isinstance(back, sp.sparray)
    assert np.array_equal(back.toarray(), S_.toarray())
    m = A.to_scipy(sparray=False)
    assert isinstance(m, sp.spmatrix) and np.array_equal(m.toarray(), S_.toarray())


def test_scipy_explicit_zeros_are_entries():
    S_ = sp.csr_array((np.array([0.0, 2.0]), np.array([0, 1]), np.array([0, 1, 2])), shape=(2, 2))
    A = bg.Matrix.from_scipy(S_)
    assert A.nvals == 2 and A.to_coo()[2].tolist() == [0.0, 2.0]


def test_scipy_int64_indices_kept():
    S_ = _int64_csr(sp.csr_array(np.eye(4)))
    assert S_.indices.dtype == np.int64
    A = bg.Matrix.from_scipy(S_)
    back = A.to_scipy()
    assert back.indices.dtype == np.int64 and back.indptr.dtype == np.int64
    S32 = sp.csr_array(np.eye(4))
    assert S32.indices.dtype == np.int32
    assert bg.Matrix.from_scipy(S32).to_scipy().indices.dtype == np.int32


@settings(max_examples=S.n_examples(300))
@given(S.matrices(via="coo"))
def test_graphblas_conversions(spec):
    A = spec.bg(bg)
    g = spec.gb()
    B = bg.Matrix.from_graphblas(g)
    O.assert_same(B, g, op_info="Matrix.from_graphblas")
    assert B.isequal(A, check_dtype=True) or O.npt(g.dtype) != A.dtype or _has_nan(A)
    G = A.to_graphblas()
    assert G.dtype == O.to_gb(A).dtype
    assert G.isequal(O.to_gb(A), check_dtype=True) or _has_nan(A)


def _has_nan(x):
    v = x.to_coo()[-1]
    return v.dtype.kind == "f" and bool(np.isnan(v).any())


@settings(max_examples=S.n_examples(200))
@given(S.vectors(allow_dups=False))
def test_graphblas_vector_conversions(spec):
    u = spec.bg(bg)
    g = spec.gb()
    O.assert_same(bg.Vector.from_graphblas(g), g, op_info="Vector.from_graphblas")
    assert u.to_graphblas().isequal(O.to_gb(u), check_dtype=True) or _has_nan(u)


def test_networkx():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph()
    G.add_nodes_from(["a", "b", "c", "d"])
    G.add_edge("a", "b", weight=2.5)
    G.add_edge("c", "a", weight=-1.0)
    G.add_edge("c", "c")
    A = bg.Matrix.from_networkx(G)
    assert A.shape == (4, 4) and A.dtype == np.bool_
    assert list(zip(*A.to_coo()[:2])) == [(0, 1), (2, 0), (2, 2)]
    W = bg.Matrix.from_networkx(G, weight="weight")
    assert W.to_coo()[2].tolist() == [2.5, -1.0, 1.0]
    U = bg.Matrix.from_networkx(nx.path_graph(3))
    assert U.nvals == 4  # undirected: both directions


# ---------------------------------------------------------------- copy, isequal, T
def test_copy_is_independent():
    A = bg.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], 2, 2)
    B = A.copy()
    assert B is not A and B.isequal(A, check_dtype=True)
    bg.assign(B, 9.0, [0], [0])
    assert A.nvals == 2 and B.nvals == 3
    u = bg.Vector.from_coo([1], [3], 3)
    w = u.copy()
    bg.assign(w, 5, [0])
    assert u.nvals == 1 and w.nvals == 2


def test_isequal():
    A = bg.Matrix.from_coo([0, 1], [1, 0], [1, 2], 2, 2, dtype=np.int32)
    B = bg.Matrix.from_coo([0, 1], [1, 0], [1.0, 2.0], 2, 2)
    assert A.isequal(B) and not A.isequal(B, check_dtype=True)
    assert not A.isequal(bg.Matrix.from_coo([0, 1], [1, 0], [1, 3], 2, 2))
    assert not A.isequal(bg.Matrix.from_coo([0, 1], [1, 0], [1, 2], 2, 3))
    assert not A.isequal(bg.Matrix.from_coo([0, 1], [1, 1], [1, 2], 2, 2))
    u = bg.Vector.from_coo([0], [1], 2)
    assert u.isequal(bg.Vector.from_coo([0], [1.0], 2)) and not u.isequal(bg.Vector.from_coo([1], [1], 2))
    assert not u.isequal(bg.Vector.from_coo([0], [1], 3))


@settings(max_examples=S.n_examples(200))
@given(S.matrices())
def test_transpose_view(spec):
    A = spec.bg(bg)
    g = spec.gb()
    T = A.T
    assert T.shape == (A.ncols, A.nrows) and T.nrows == A.ncols and T.ncols == A.nrows
    assert T.nvals == A.nvals and T.dtype == A.dtype
    O.assert_same(T.copy(), g.T.new(), op_info="A.T.copy()")
    r, c, v = T.to_coo()
    O.assert_same(bg.Matrix.from_coo(r, c, v, A.ncols, A.nrows, dtype=A.dtype), g.T.new(), op_info="A.T.to_coo()")
    TT = A.T.T
    assert TT is A or (TT.shape == A.shape and O.snapshot(TT) == O.snapshot(A))


# ---------------------------------------------------------------- masks
def test_mask_objects():
    v = bg.Vector.from_coo([0, 2], [1, 0], 3)
    for m, structure, complement in ((v.V, False, False), (v.S, True, False), (~v, False, True),
                                     (~v.V, False, True), (~v.S, True, True), (~~v.S, True, False)):
        assert isinstance(m, bg.Mask)
        assert (m.structure, m.complement) == (structure, complement)
    A = bg.Matrix.from_coo([0], [0], [True], 1, 1)
    assert isinstance(~A, bg.Mask) and isinstance(A.S, bg.Mask) and isinstance(~A.V, bg.Mask)
    assert (~A).complement and not (~A).structure


# ---------------------------------------------------------------- no silent densification
def test_array_protocol_raises():
    A = bg.Matrix.from_coo([0], [1], [1.0], 2, 2)
    with pytest.raises(TypeError, match="to_coo|to_dense"):
        np.asarray(A)
    with pytest.raises(TypeError):
        np.asarray(A.T)
    assert A.__array_ufunc__ is None and A.__array_priority__ >= 20
    with pytest.raises(TypeError):
        np.add(A, 1)


def test_vector_array_protocol_raises():
    u = bg.Vector.from_coo([0], [1.0], 2)
    with pytest.raises(TypeError, match="to_coo|to_dense"):
        np.asarray(u)


def test_scipy_matmul_does_not_densify():
    A = bg.Matrix.from_coo([0], [1], [1.0], 2, 2)
    S_ = sp.csr_array(np.eye(2))
    Sm = sp.csr_matrix(np.eye(2))
    for left in (S_, Sm, np.eye(2)):
        with pytest.raises(TypeError):
            left @ A
    with pytest.raises(TypeError):
        A @ S_
    with pytest.raises(TypeError):
        S_ + A


# ---------------------------------------------------------------- int64 indices forced
@st.composite
def index_dtype_cases(draw):
    m, k, n = draw(S.dims), draw(S.dims), draw(S.dims)
    A = S.draw_matrix(draw, nrows=m, ncols=k, via="coo", allow_dups=False, mode="nice")
    B = S.draw_matrix(draw, nrows=k, ncols=n, via="coo", allow_dups=False, mode="nice")
    u = S.draw_vector(draw, size=k, allow_dups=False)
    return A, B, u, draw(st.sampled_from(["plus_times", "min_plus", "any_pair", "lor_land", "max_second"]))


def _with_via(spec, via):
    return S.MatSpec(spec.nrows, spec.ncols, spec.rows, spec.cols, spec.values, spec.dtype, spec.dup_op, via)


@settings(max_examples=S.n_examples(300))
@given(index_dtype_cases())
def test_int64_indices_same_results(case):
    """The same operations on int32- and int64-indexed copies agree bit for bit."""
    Aspec, Bspec, uspec, sr = case
    u = uspec.bg(bg)
    results = []
    for via in ("scipy32", "scipy64", "coo"):
        A, B = _with_via(Aspec, via).bg(bg), _with_via(Bspec, via).bg(bg)
        try:
            r = [bg.mxv(A, u, sr), bg.mxm(A, B, sr), bg.mxm(A, A.T, sr), bg.transpose(A),
                 bg.reduce(A, "max", by="rows"), bg.extract(A, [0] * min(A.nrows, 1), None),
                 bg.select(A, "tril", 0), bg.ewise_add(A, A, "plus")]
        except bg.DomainMismatch:
            return
        results.append([O.snapshot(x) for x in r])
        if via == "scipy64":
            assert A.to_scipy().indices.dtype == np.int64
    assert results[0] == results[1] == results[2]


# --- derived data: named slots, valid if present -------------------------------------------
def test_cache_slots_are_a_closed_set():
    from bitgraph.algorithms._common import cached, known

    A = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
    with pytest.raises(bg.InvalidValue, match="no cache slot 'out_degre'.*did you mean 'out_degree'"):
        cached(A, "out_degre", lambda: 1)
    with pytest.raises(bg.InvalidValue, match="needs key"):
        known(A, "sssp_matrix")
    with pytest.raises(bg.InvalidValue, match="takes no key"):
        cached(A, "out_degree", lambda: 1, key="x")
    # the traversals' spelling "slot:key" is the keyed slot
    assert cached(A, "blest_perm:rcm", lambda: "p") == "p" == known(A, "blest_perm", key="rcm")


def test_cache_slots_per_orientation_and_dropped_on_mutation():
    from bitgraph.algorithms._common import cached, known, out_degree

    A = bg.Matrix.from_coo([0, 0], [1, 2], nrows=3, ncols=3)
    assert out_degree(A).tolist() == [2, 0, 0] and out_degree(A.T).tolist() == [0, 1, 1]
    assert known(A, "out_degree") is not known(A.T, "out_degree")
    b = A.b2sr(8)
    assert A._slots().b2sr[8, "none"] is b and not A.T._slots().b2sr
    A.assign(bg.Vector.from_coo([0], [True], 3), 1)  # row 1 := [T, ., .]
    assert known(A, "out_degree") is None and not A._slots().b2sr
    assert cached(A, "out_degree", lambda: "rebuilt") == "rebuilt"


def test_symmetry_is_one_fact_carried_by_to_and_copy():
    from bitgraph.algorithms._common import is_symmetric, known, record

    A = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
    assert known(A, "symmetric") is None
    assert is_symmetric(A.T) is True and known(A, "symmetric") is True
    for B in (A.to("cpu"), A.copy(), A.T.copy()):
        assert known(B, "symmetric") is True and known(B.T, "symmetric") is True
    D = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
    assert is_symmetric(D) is False and known(D.copy(), "symmetric") is False
    record(D, "out_degree", "x")
    assert known(D, "out_degree") == "x"
