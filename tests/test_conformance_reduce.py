"""reduce against python-graphblas: Vector/Matrix to a scalar (None when empty
with allow_empty, else the identity), Matrix by rows / cols to a Vector with
mask, accum, replace, out; every monoid on every dtype."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S


@st.composite
def reduce_cases(draw, monoid=None, dtype=None):
    by = draw(st.sampled_from([None, None, "rows", "cols"]))
    mono = draw(st.sampled_from(O.MONOIDS)) if monoid is None else monoid
    if by is None and draw(st.booleans()):
        x = S.draw_vector(draw, dtype=dtype)
        return dict(x=x, tr=False, by=None, monoid=mono, allow_empty=draw(st.booleans()),
                    mask=(None, None), out=(None, None, False), method=draw(st.booleans()))
    m, n = draw(S.dims), draw(S.dims)
    tr = draw(st.integers(0, 4)) == 0
    x = S.draw_matrix(draw, nrows=n if tr else m, ncols=m if tr else n, dtype=dtype)
    size = m if by == "rows" else n
    if by is None:
        mask, out = (None, None), (None, None, False)
    else:
        mask, out = S.draw_mask(draw, size=size), S.draw_outputs(draw, size=size)
    return dict(x=x, tr=tr, by=by, monoid=mono, allow_empty=draw(st.booleans()), mask=mask, out=out,
                method=draw(st.booleans()))


def run_reduce(c):
    x = c["x"].bg(bg)
    gx = c["x"].gb()
    xo, gxo = (x.T, gx.T.new()) if c["tr"] else (x, gx)
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    kw = dict(by=c["by"], allow_empty=c["allow_empty"])
    if c["by"] is not None:
        kw.update(mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out)
    mono = c["monoid"]
    call = (lambda: xo.reduce(mono, **kw)) if c["method"] else (lambda: bg.reduce(xo, mono, **kw))
    O.check_op(call, lambda: O.ref_reduce(gxo, mono, by=c["by"], allow_empty=c["allow_empty"], mask=gm,
                                          accum=accum, replace=replace, out=gout),
               op_info=f"reduce {mono} by={c['by']} allow_empty={c['allow_empty']}", out=out, inputs=(x,),
               parallel=c["x"].values is not None and len(c["x"].values) % 3 == 0)


@settings(max_examples=S.n_examples(1500))
@given(reduce_cases())
def test_reduce(c):
    run_reduce(c)


@pytest.mark.parametrize("dtype", O.DTYPE_NAMES)
@pytest.mark.parametrize("monoid", O.MONOIDS)
@settings(max_examples=S.n_examples(6))
@given(data=st.data())
def test_reduce_each_monoid_dtype(monoid, dtype, data):
    run_reduce(data.draw(reduce_cases(monoid=monoid, dtype=dtype)))


@pytest.mark.parametrize("dtype", [d for d in O.DTYPE_NAMES if d != "bool"])
def test_reduce_wraps_around(dtype):
    """Integer sums wrap in the dtype (never widened); float sums stay in the dtype."""
    dt = np.dtype(dtype)
    big = np.iinfo(dt).max if dt.kind in "iu" else np.finfo(dt).max
    x = bg.Vector.from_coo([0, 1, 2], np.array([big, big, 1], dt), 3)
    gx = O.to_gb(x)
    for mono in ("plus", "times", "min", "max"):
        O.check_op(lambda: bg.reduce(x, mono), lambda: O.ref_reduce(gx, mono), op_info=f"reduce {mono}[{dtype}]")


def test_reduce_empty():
    e = bg.Vector(np.int32, 4)
    assert bg.reduce(e) is None
    r = bg.reduce(e, "plus", allow_empty=False)
    assert r == 0 and isinstance(r, np.generic) and r.dtype == np.int32
    assert bg.reduce(e, "min", allow_empty=False) == np.iinfo(np.int32).max
    assert bg.reduce(e, "times", allow_empty=False) == 1
    E = bg.Matrix(np.float64, 3, 0)
    assert bg.reduce(E, "max") is None
    assert bg.reduce(E, "max", allow_empty=False) == -np.inf
    rows = bg.reduce(E, "plus", by="rows")
    assert rows.size == 3 and rows.nvals == 0 and rows.dtype == np.float64
