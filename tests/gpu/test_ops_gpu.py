"""Operations on CUDA objects equal the same operations on the CPU: mxv and
vxm (mask, accum, replace, out) and Vector ewise, through the public API."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from values import gen_values

pytestmark = pytest.mark.gpu

SEMIRINGS = ["plus_times", "min_plus", "max_times", "lor_land", "any_pair", "plus_pair",
             "min_second", "any_secondi", "max_first", "min_firstj"]
MASKS = [None, "S", "~S", "V", "~V"]
DTYPES = ["bool", "int8", "int32", "int64", "uint16", "float32", "float64"]


def _vector(rng, n, dtype, density):
    idx = np.flatnonzero(rng.random(n) < density)
    return bg.Vector.from_coo(idx, gen_values(rng, dtype, idx.size, "nice"), size=n, dtype=dtype)


def _mask(v, kind):
    if kind is None:
        return None
    return {"S": lambda: v.S, "~S": lambda: ~v.S, "V": lambda: v, "~V": lambda: ~v}[kind]()


def _same(got, want, inexact):
    got = got.to("cpu")
    assert got.dtype == want.dtype
    gi, gv = got.to_coo()
    wi, wv = want.to_coo()
    assert np.array_equal(gi, wi)
    if inexact:
        np.testing.assert_allclose(gv, wv, rtol=1e-5, equal_nan=True)
    else:
        assert np.array_equal(gv, wv, equal_nan=gv.dtype.kind == "f")


@settings(max_examples=400)
@given(semiring=st.sampled_from(SEMIRINGS), dtype=st.sampled_from(DTYPES),
       seed=st.integers(0, 2**32 - 1), nrows=st.integers(1, 70), ncols=st.integers(1, 70),
       mask=st.sampled_from(MASKS), accum=st.sampled_from([None, "plus", "min"]),
       replace=st.booleans(), use_out=st.booleans(), vxm=st.booleans(), iso=st.booleans())
def test_matvec_equals_cpu(semiring, dtype, seed, nrows, ncols, mask, accum, replace, use_out,
                           vxm, iso):
    rng = np.random.default_rng(seed)
    present = rng.random((nrows, ncols)) < rng.choice([0.05, 0.3, 0.9])
    r, c = np.nonzero(present)
    A = bg.Matrix.from_coo(r, c, None if iso else gen_values(rng, dtype, r.size, "nice"),
                           nrows=nrows, ncols=ncols, dtype=None if iso else dtype)
    n_in, n_out = (nrows, ncols) if vxm else (ncols, nrows)
    u = _vector(rng, n_in, dtype, rng.choice([0.1, 0.6, 1.0]))
    m = _vector(rng, n_out, "int8", 0.5) if mask else None
    out = _vector(rng, n_out, dtype, 0.4) if (use_out or accum) else None
    kw = dict(mask=_mask(m, mask), accum=accum if out is not None else None, replace=replace)
    op = (lambda A_, u_, **k: bg.vxm(u_, A_, semiring, **k)) if vxm else \
        (lambda A_, u_, **k: bg.mxv(A_, u_, semiring, **k))
    want = op(A, u, out=None if out is None else out.copy(), **kw)
    gkw = dict(kw, mask=_mask(None if m is None else m.to("cuda"), mask))
    got = op(A.to("cuda"), u.to("cuda"), out=None if out is None else out.to("cuda"), **gkw)
    assert got.device == "cuda"
    inexact = np.dtype(want.dtype).kind == "f" and semiring.startswith(("plus_times",))
    if semiring.startswith("any_") and semiring != "any_pair":
        gi, _ = got.to("cpu").to_coo()
        assert np.array_equal(gi, want.to_coo()[0])  # ANY: a witness, any product
        return
    _same(got, want, inexact)


@settings(max_examples=200)
@given(dtype=st.sampled_from(DTYPES), op=st.sampled_from(["plus", "min", "times", "first", "lor"]),
       seed=st.integers(0, 2**32 - 1), n=st.integers(0, 200), union=st.booleans(),
       mask=st.sampled_from(MASKS))
def test_ewise_vectors_equal_cpu(dtype, op, seed, n, union, mask):
    rng = np.random.default_rng(seed)
    x, y = _vector(rng, n, dtype, 0.5), _vector(rng, n, dtype, 0.5)
    m = _vector(rng, n, "bool", 0.5) if mask else None
    f = bg.ewise_add if union else bg.ewise_mult
    want = f(x, y, op, mask=_mask(m, mask))
    got = f(x.to("cuda"), y.to("cuda"), op,
            mask=_mask(None if m is None else m.to("cuda"), mask))
    _same(got, want, False)


def test_mixed_devices_and_cpu_only_ops():
    A = bg.io.generators.from_spec("grid:4x4")
    u = bg.Vector.from_indices([0], size=16)
    with pytest.raises(bg.DeviceError, match="different devices"):
        bg.mxv(A.to("cuda"), u, bg.LOR_LAND)
    with pytest.raises(bg.DeviceError, match="different devices"):
        bg.mxm(A.to("cuda"), A, bg.PLUS_PAIR)
    with pytest.raises(bg.DeviceError, match="different devices"):
        bg.extract(A.to("cuda"), [0, 1], None, out=bg.Matrix(bool, 2, 16))
    with pytest.raises(bg.DeviceError, match="different devices"):
        bg.assign(A.to("cuda"), u, 0, None)
    with pytest.raises(bg.DeviceError, match="index array is on 'cuda'"):
        bg.extract(u, u.to("cuda").indices())


def test_extract_assign_take_device_index_arrays():
    """Index lists given as CuPy arrays (FastSV's ``f(f)``), checked on the
    device: the same results as numpy indices, and the same errors."""
    import cupy

    rng = np.random.default_rng(5)
    f = bg.Vector.from_dense(rng.integers(0, 50, 50))
    g = f.to("cuda")
    idx = g.to_dense()
    got = bg.extract(g, idx)
    assert got.device == "cuda"
    _same(got, bg.extract(f, f.to_dense()), False)
    for bad, err in ((cupy.array([0, 50]), bg.InvalidIndex), (cupy.array([-1]), bg.InvalidIndex),
                     (cupy.array([0.5]), bg.InvalidValue), (cupy.array([[0]]), bg.InvalidValue)):
        with pytest.raises(err):
            bg.extract(g, bad)
    w = g.copy()
    bg.assign(w, 7, cupy.array([3, 1], np.uint64))
    want = f.copy()
    bg.assign(want, 7, [3, 1])
    _same(w, want, False)
