"""ewise_add / ewise_mult against python-graphblas: every binary op, mixed
dtypes (unify), vectors and matrices (also .T views), masks, accum, replace,
out (also aliased with an input)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S


@st.composite
def ewise_cases(draw, op=None):
    matrix = draw(st.booleans())
    if matrix:
        m, n = draw(S.dims), draw(S.dims)
        tx, ty = draw(st.integers(0, 4)) == 0, draw(st.integers(0, 4)) == 0
        x = S.draw_matrix(draw, nrows=n if tx else m, ncols=m if tx else n)
        ydt = x.dtype if draw(st.booleans()) else None
        y = S.draw_matrix(draw, nrows=n if ty else m, ncols=m if ty else n, dtype=ydt)
        mask = S.draw_mask(draw, nrows=m, ncols=n)
        out = S.draw_outputs(draw, nrows=m, ncols=n)
    else:
        tx = ty = False
        size = draw(S.dims)
        x = S.draw_vector(draw, size=size)
        ydt = x.dtype if draw(st.booleans()) else None
        y = S.draw_vector(draw, size=size, dtype=ydt)
        mask = S.draw_mask(draw, size=size)
        out = S.draw_outputs(draw, size=size)
    alias = None
    if out[0] is None and not (tx or ty) and draw(st.integers(0, 7)) == 0:
        alias = draw(st.sampled_from(["x", "y"]))
    return dict(x=x, y=y, tx=tx, ty=ty, op=draw(S.binary_ops) if op is None else op, mask=mask,
                out=out, alias=alias, as_object=draw(st.booleans()), method=draw(st.booleans()),
                mask_alias=draw(MASK_ALIAS), parallel=draw(S.small_ints) < 2)


MASK_ALIAS = st.sampled_from([None] * 6 + ["out", "x"])


def run_ewise(kind, c):
    x, y = c["x"].bg(bg), c["y"].bg(bg)
    gx, gy = c["x"].gb(), c["y"].gb()
    xo = x.T if c["tx"] else x
    yo = y.T if c["ty"] else y
    gxo = gx.T.new() if c["tx"] else gx
    gyo = gy.T.new() if c["ty"] else gy
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    if c["alias"] == "x":
        out, gout = x, gx
    elif c["alias"] == "y":
        out, gout = y, gy
    if c["mask_alias"] == "out" and out is not None:
        mk = c["mask"][1] or "V"
        bm, gm = O.bg_mask(out, mk), O.gb_mask(gout, mk)
    elif c["mask_alias"] == "x" and not c["tx"]:
        mk = c["mask"][1] or "~S"
        bm, gm = O.bg_mask(x, mk), O.gb_mask(gx, mk)
    op = S.op_obj(bg, "binary", c["op"], c["as_object"])
    kw = dict(mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out)
    fn = bg.ewise_add if kind == "add" else bg.ewise_mult
    if c["method"]:
        call = lambda: getattr(xo, f"ewise_{kind}")(yo, op, **kw)  # noqa: E731
    else:
        call = lambda: fn(xo, yo, op, **kw)  # noqa: E731
    O.check_op(call, lambda: O.ref_ewise(kind, gxo, gyo, c["op"], mask=gm, accum=accum, replace=replace,
                                         out=gout),
               op_info=f"ewise_{kind} {c['op']}", out=out, inputs=(x, y), parallel=c["parallel"])


@settings(max_examples=S.n_examples(1600))
@given(ewise_cases())
def test_ewise_add(c):
    run_ewise("add", c)


@settings(max_examples=S.n_examples(1600))
@given(ewise_cases())
def test_ewise_mult(c):
    run_ewise("mult", c)


@pytest.mark.parametrize("op", O.BINARY_OPS)
@settings(max_examples=S.n_examples(25))
@given(data=st.data())
def test_ewise_each_op(op, data):
    c = data.draw(ewise_cases(op=op))
    run_ewise(data.draw(st.sampled_from(["add", "mult"])), c)


def test_ewise_defaults():
    x = bg.Vector.from_coo([0, 1], [2, 3], 3)
    y = bg.Vector.from_coo([1, 2], [10, 20], 3)
    assert bg.ewise_add(x, y).to_coo()[1].tolist() == [2, 13, 20]
    assert bg.ewise_mult(x, y).to_coo()[1].tolist() == [30]


def test_ewise_mixed_kinds_rejected():
    x = bg.Vector.from_coo([0], [1], 2)
    A = bg.Matrix.from_coo([0], [0], [1], 2, 2)
    with pytest.raises((bg.DimensionMismatch, bg.DomainMismatch)):
        bg.ewise_add(x, A)
    with pytest.raises(bg.DimensionMismatch):
        bg.ewise_mult(x, bg.Vector.from_coo([0], [1], 3))


@pytest.mark.parametrize("xdt", O.DTYPE_NAMES)
def test_every_binary_op_dtype_pair(xdt):
    """Every binary op on every pair of dtypes (unify), at both dtypes' extremes."""
    for ydt in O.DTYPE_NAMES:
        xs = _extremes(xdt)
        ys = _extremes(ydt)
        k = max(xs.size, ys.size)
        x = bg.Vector.from_coo(np.arange(k), np.resize(xs, k), k)
        y = bg.Vector.from_coo(np.arange(k), np.resize(ys[::-1], k), k)
        gx, gy = O.to_gb(x), O.to_gb(y)
        for op in O.BINARY_OPS:
            O.check_op(lambda: bg.ewise_mult(x, y, op), lambda: O.ref_ewise("mult", gx, gy, op),
                       op_info=f"ewise_mult {op}[{xdt}, {ydt}]")


def _extremes(dtype):
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        return S._int_specials(dt)
    if dt.kind == "f":
        return np.concatenate([S._float_specials(dt), np.array([np.nan, -2.5], dt)])
    return np.array([True, False])
