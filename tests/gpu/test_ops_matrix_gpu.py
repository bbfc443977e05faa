"""Matrix operations on CUDA objects equal the same operations on the CPU:
mxm (every method plan can pick on the GPU: masked dot products,
Gustavson, the B2SR tensor-core product), apply, select, reduce, transpose,
Matrix ewise; and ``device=`` on constructors and readers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from testdata import data_file
from values import gen_values

pytestmark = pytest.mark.gpu

DTYPES = ["bool", "int8", "int32", "int64", "uint16", "float32", "float64"]
SEMIRINGS = ["plus_times", "min_plus", "max_times", "lor_land", "any_pair", "plus_pair",
             "min_second", "max_first", "plus_firsti", "min_secondj", "lxor_pair", "times_plus"]
MASKS = [None, "S", "~S", "V", "~V"]


def _matrix(rng, nrows, ncols, dtype, density, iso=False):
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols and rng.random() < 0.3:  # a hub row and column
        present[rng.integers(nrows)] = True
        present[:, rng.integers(ncols)] = True
    r, c = np.nonzero(present)
    vals = None if iso else gen_values(rng, dtype, r.size, "nice")
    return bg.Matrix.from_coo(r, c, vals, nrows=nrows, ncols=ncols, dtype=None if iso else dtype)


def _mask(M, kind):
    if kind is None:
        return None
    return {"S": lambda: M.S, "~S": lambda: ~M.S, "V": lambda: M, "~V": lambda: ~M}[kind]()


def _same(got, want, inexact=False):
    assert got.device == "cuda"
    got = got.to("cpu")
    assert got.dtype == want.dtype
    g, w = got.to_coo(), want.to_coo()
    for a, b in zip(g[:-1], w[:-1]):
        assert np.array_equal(a, b)
    if inexact:
        np.testing.assert_allclose(g[-1], w[-1], rtol=1e-5, equal_nan=True)
    else:
        assert np.array_equal(g[-1], w[-1], equal_nan=g[-1].dtype.kind == "f")


@settings(max_examples=500)
@given(semiring=st.sampled_from(SEMIRINGS), dtype=st.sampled_from(DTYPES),
       seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60), k=st.integers(1, 60),
       m=st.integers(1, 60), mask=st.sampled_from(MASKS), accum=st.sampled_from([None, "plus"]),
       replace=st.booleans(), method=st.sampled_from(["auto", "dot", "gustavson", "bits"]),
       iso=st.booleans(), transposed=st.booleans())
def test_mxm_equals_cpu(semiring, dtype, seed, n, k, m, mask, accum, replace, method, iso,
                        transposed):
    rng = np.random.default_rng(seed)
    density = rng.choice([0.05, 0.2, 0.6])
    A = _matrix(rng, n, k, dtype, density, iso)
    B = _matrix(rng, m, k, dtype, density, iso).T if transposed else \
        _matrix(rng, k, m, dtype, density, iso)
    M = _matrix(rng, n, m, "int8", 0.4) if mask else None
    out = _matrix(rng, n, m, dtype, 0.3) if accum else None
    kw = dict(mask=_mask(M, mask), accum=accum, replace=replace, method=method)
    want = bg.mxm(A, B, semiring, out=None if out is None else out.copy(), **kw)
    gkw = dict(kw, mask=_mask(None if M is None else M.to("cuda"), mask))
    got = bg.mxm(A.to("cuda"), B.to("cuda"), semiring,
                 out=None if out is None else out.to("cuda"), **gkw)
    if semiring.startswith("any_") and semiring != "any_pair":
        assert np.array_equal(got.to("cpu").to_coo()[0], want.to_coo()[0])
        return
    # float PLUS may fold in another order only through the GPU's atomics: mxm has none
    _same(got, want)


@settings(max_examples=300)
@given(dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1), n=st.integers(0, 50),
       m=st.integers(0, 50), vector=st.booleans(),
       op=st.sampled_from(["ainv", "abs", "lnot", "one", "identity", ("minus", "right"),
                           ("div", "left"), ("max", "right"), ("times", "left")]),
       sel=st.sampled_from(["tril", "triu", "diag", "offdiag", "rowle", "colgt", "valuegt",
                            "valueeq", "valuele", "valuene"]),
       thunk=st.integers(-3, 3), mask=st.sampled_from(MASKS), accum=st.sampled_from([None, "min"]))
def test_apply_select_equal_cpu(dtype, seed, n, m, vector, op, sel, thunk, mask, accum):
    rng = np.random.default_rng(seed)
    if vector:
        idx = np.flatnonzero(rng.random(n) < 0.5)
        x = bg.Vector.from_coo(idx, gen_values(rng, dtype, idx.size, "nice"), size=n, dtype=dtype)
        mk = bg.Vector.from_coo(np.flatnonzero(rng.random(n) < 0.5), None, size=n)
        out = bg.Vector.from_coo(np.flatnonzero(rng.random(n) < 0.3), None, size=n, dtype=dtype)
        if sel in ("colgt", "triu", "tril", "diag", "offdiag", "rowle"):
            sel = "indexle" if sel in ("rowle", "tril") else "indexgt"
    else:
        x = _matrix(rng, n, m, dtype, 0.3)
        mk = _matrix(rng, n, m, "bool", 0.5)
        out = _matrix(rng, n, m, dtype, 0.3)
    kw = dict(mask=_mask(mk, mask), accum=accum, out=out.copy() if accum else None)
    gkw = dict(mask=_mask(mk.to("cuda"), mask), accum=accum,
               out=out.to("cuda") if accum else None)
    if isinstance(op, tuple):
        name, side = op
        call = lambda y, **k: bg.apply(y, name, **{side: 2}, **k)  # noqa: E731
    else:
        call = lambda y, **k: bg.apply(y, op, **k)  # noqa: E731
    try:
        want = call(x, **kw)
    except Exception as e:  # an op the dtype does not have: the GPU says the same
        with pytest.raises(type(e)):
            call(x.to("cuda"), **gkw)
        return
    _same(call(x.to("cuda"), **gkw), want)
    kw["out"] = out.copy() if accum else None
    gkw["out"] = out.to("cuda") if accum else None
    _same(bg.select(x.to("cuda"), sel, thunk, **gkw), bg.select(x, sel, thunk, **kw))


@settings(max_examples=300)
@given(dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1), n=st.integers(0, 70),
       m=st.integers(0, 70), monoid=st.sampled_from(["plus", "times", "min", "max", "any",
                                                     "lor", "land", "lxor"]),
       by=st.sampled_from([None, "rows", "cols"]), mask=st.sampled_from(MASKS))
def test_reduce_transpose_ewise_equal_cpu(dtype, seed, n, m, monoid, by, mask):
    rng = np.random.default_rng(seed)
    x = _matrix(rng, n, m, dtype, rng.choice([0.05, 0.5]))
    y = _matrix(rng, n, m, dtype, 0.3)
    G = x.to("cuda")
    try:
        want = bg.reduce(x, monoid, by=by)
    except (bg.DomainMismatch, ValueError, TypeError) as e:  # monoid not defined on dtype
        with pytest.raises(type(e)):
            bg.reduce(G, monoid, by=by)
        return
    inexact = np.dtype(dtype).kind == "f" and monoid in ("plus", "times")
    got = bg.reduce(G, monoid, by=by)
    if by is None:
        assert (got is None) == (want is None)
        if want is not None and monoid != "any":
            assert type(got) is type(want)
            if inexact:
                np.testing.assert_allclose(got, want, rtol=1e-5)
            else:
                assert np.array_equal(got, want, equal_nan=np.dtype(dtype).kind == "f")
    elif monoid == "any":
        assert np.array_equal(got.to("cpu").to_coo()[0], want.to_coo()[0])
    else:
        gi, gv = got.to("cpu").to_coo()
        wi, wv = want.to_coo()
        assert np.array_equal(gi, wi)
        if inexact:
            np.testing.assert_allclose(gv, wv, rtol=1e-5, equal_nan=True)
        else:
            assert np.array_equal(gv, wv, equal_nan=gv.dtype.kind == "f")
    _same(bg.transpose(G), bg.transpose(x))
    _same(G.T.copy(), x.T.copy())
    mk = _matrix(rng, n, m, "bool", 0.5)
    for f, op in ((bg.ewise_add, "plus"), (bg.ewise_mult, "min"), (bg.ewise_add, "second")):
        _same(f(G, y.to("cuda"), op, mask=_mask(mk.to("cuda"), mask)),
              f(x, y, op, mask=_mask(mk, mask)))


def test_constructors_and_readers_take_device():
    import cupy

    A = bg.Matrix.from_coo([0, 1], [1, 0], [2.0, 3.0], nrows=2, ncols=2, device="cuda")
    assert A.device == "cuda" and A.to("cpu").to_coo()[2].tolist() == [2.0, 3.0]
    B = bg.Matrix.from_coo(cupy.array([0, 1]), cupy.array([1, 0]), nrows=2, ncols=2)
    assert B.device == "cuda" and B.iso
    C = bg.Matrix.from_csr(cupy.array([0, 1, 2]), cupy.array([1, 0]), ncols=2)
    assert C.device == "cuda" and isinstance(C.indptr, cupy.ndarray)
    with pytest.raises(bg.InvalidValue, match="sorted"):
        bg.Matrix.from_csr(cupy.array([0, 2]), cupy.array([1, 0]), ncols=2)
    assert bg.Matrix(int, 3, 3, device="cuda").device == "cuda"
    assert bg.Vector(float, 4, device="cuda").device == "cuda"
    v = bg.Vector.from_dense(cupy.arange(5.0))
    assert v.device == "cuda" and v.nvals == 5
    assert bg.Vector.from_indices([1], size=3, device="cuda").to("cpu").indices().tolist() == [1]
    assert bg.Vector.from_coo([1], [2], size=3, device="auto").device == "cuda"
    G = bg.io.generators.from_spec("grid:8x8", device="cuda")
    assert G.device == "cuda" and G.isequal(bg.io.generators.from_spec("grid:8x8").to("cuda"))
    bg.set_device("cuda")
    try:
        assert bg.Matrix.from_coo([0], [0], nrows=1, ncols=1).device == "cuda"
        assert bg.Matrix.from_coo([0], [0], nrows=1, ncols=1, device="cpu").device == "cpu"
    finally:
        bg.set_device("cpu")
    for path in [data_file("karate.mtx"), data_file("west0067.mtx")]:
        R = bg.io.read(path, device="cuda")
        assert R.device == "cuda" and R.to("cpu").isequal(bg.io.read(path), check_dtype=True)


@pytest.mark.parametrize("name", ["karate", "jagmesh7", "olm1000", "cryg2500"])
def test_triangles_by_mxm_on_real_graphs(name):
    path = data_file(f"{name}.mtx")
    A = bg.io.read(path)
    L = bg.select(A, "tril", -1)
    want = int(bg.reduce(bg.mxm(L, L.T, "plus_pair", mask=L.S)))
    G = L.to("cuda")
    for method in ("bits", "dot"):
        got = bg.reduce(bg.mxm(G, G.T, "plus_pair", mask=G.S, method=method))
        assert int(got) == want
    tc = bg.algorithms.triangle_count
    assert tc(A.to("cuda"), method="tensor_core") == tc(A)
    per_vertex = tc(A.to("cuda"), per_vertex=True, method="tensor_core")
    assert per_vertex.device == "cuda"  # a vertex-valued result on the graph's device
    assert np.array_equal(per_vertex.to("cpu").to_dense(), tc(A, per_vertex=True).to_dense())
