"""apply (unary ops; binary ops with a bound scalar on the left or right) and
select (positional and value ops with a thunk) against python-graphblas."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S


@st.composite
def operand(draw):
    """(spec, transposed, mask draw, outputs draw) for a Vector or Matrix operand."""
    if draw(st.booleans()):
        m, n = draw(S.dims), draw(S.dims)
        tr = draw(st.integers(0, 4)) == 0
        x = S.draw_matrix(draw, nrows=n if tr else m, ncols=m if tr else n)
        return x, tr, S.draw_mask(draw, nrows=m, ncols=n), S.draw_outputs(draw, nrows=m, ncols=n)
    size = draw(S.dims)
    x = S.draw_vector(draw, size=size)
    return x, False, S.draw_mask(draw, size=size), S.draw_outputs(draw, size=size)


def _scalar(draw, dtype, rng):
    s = S.gen_values(rng, dtype, 1, draw(S.value_modes))[0]
    dt = np.dtype(dtype)
    if draw(st.booleans()):  # as a Python scalar where that keeps the value
        if dt == O.BOOL:
            return bool(s)
        if dt.kind in "iu" and -(2**63) <= int(s) < 2**63:
            return int(s)
        if dt.kind == "f":
            return float(s)
    return s


@st.composite
def apply_cases(draw):
    x, tr, mask, out = draw(operand())
    rng = np.random.default_rng(draw(S.seeds))
    form = draw(st.sampled_from(["unary", "unary", "left", "right"]))
    if form == "unary":
        op, left, right = draw(st.sampled_from(O.UNARY_OPS)), None, None
    else:
        op = draw(S.binary_ops)
        s = _scalar(draw, draw(S.dtypes), rng)
        left, right = (s, None) if form == "left" else (None, s)
    return dict(x=x, tr=tr, mask=mask, out=out, op=op, left=left, right=right,
                as_object=draw(st.booleans()), method=draw(st.booleans()))


def _prep(c):
    x = c["x"].bg(bg)
    gx = c["x"].gb()
    if c["tr"]:
        return x, x.T, gx.T.new()
    return x, x, gx


@settings(max_examples=S.n_examples(1800))
@given(apply_cases())
def test_apply(c):
    x, xo, gxo = _prep(c)
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    kind = "unary" if c["left"] is None and c["right"] is None else "binary"
    op = S.op_obj(bg, kind, c["op"], c["as_object"])
    kw = dict(left=c["left"], right=c["right"], mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out)
    call = (lambda: xo.apply(op, **kw)) if c["method"] else (lambda: bg.apply(xo, op, **kw))
    O.check_op(call, lambda: O.ref_apply(gxo, c["op"], left=c["left"], right=c["right"], mask=gm, accum=accum,
                                         replace=replace, out=gout),
               op_info=f"apply {c['op']} left={c['left']!r} right={c['right']!r}", out=out, inputs=(x,),
               parallel=c["method"] and c["as_object"])


@st.composite
def select_cases(draw):
    x, tr, mask, out = draw(operand())
    rng = np.random.default_rng(draw(S.seeds))
    is_vec = isinstance(x, S.VecSpec)
    op = draw(st.sampled_from(O.VECTOR_SELECT if is_vec else O.MATRIX_SELECT))
    if op.startswith("value"):
        if x.values is not None and x.values.size and draw(st.booleans()):
            v = x.values[draw(st.integers(0, x.values.size - 1))]  # a value that is present
            thunk = v if draw(st.booleans()) else _scalar(draw, x.dtype, rng)
        else:
            thunk = _scalar(draw, x.dtype, rng)
        if isinstance(thunk, np.generic) and thunk.dtype != x.dtype:
            thunk = x.dtype.type(thunk)
    else:
        dim = x.size if is_vec else max(x.nrows, x.ncols)
        thunk = draw(st.integers(-dim - 2, dim + 2))
    return dict(x=x, tr=tr, mask=mask, out=out, op=op, thunk=thunk, method=draw(st.booleans()))


@settings(max_examples=S.n_examples(1800))
@given(select_cases())
def test_select(c):
    x, xo, gxo = _prep(c)
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    kw = dict(mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out)
    if c["method"]:
        call = lambda: xo.select(c["op"], c["thunk"], **kw)  # noqa: E731
    else:
        call = lambda: bg.select(xo, c["op"], c["thunk"], **kw)  # noqa: E731
    O.check_op(call, lambda: O.ref_select(gxo, c["op"], c["thunk"], mask=gm, accum=accum, replace=replace,
                                          out=gout),
               op_info=f"select {c['op']} thunk={c['thunk']!r}", out=out, inputs=(x,))


def test_select_default_thunk_and_tril():
    A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 1, 0], [1, 2, 3, 4], 3, 3)
    assert bg.select(A, "tril").to_coo()[2].tolist() == [2, 3, 4]
    assert bg.select(A, "tril", -1).to_coo()[2].tolist() == [2, 4]
    assert bg.select(A, "triu", 1).to_coo()[2].tolist() == [1]
    assert bg.select(A, "valuegt", 2).to_coo()[2].tolist() == [3, 4]


@pytest.mark.parametrize("dtype", O.DTYPE_NAMES)
@pytest.mark.parametrize("op", O.UNARY_OPS)
def test_unary_extremes(op, dtype):
    """Every unary op on every dtype at the dtype's extremes (wrap-around, abs(INT_MIN),
    minv(0), bnot on unsigned)."""
    dt = np.dtype(dtype)
    vals = S._int_specials(dt) if dt.kind in "iu" else (S._float_specials(dt) if dt.kind == "f"
                                                         else np.array([True, False]))
    x = bg.Vector.from_coo(np.arange(vals.size), vals, vals.size, dtype=dt)
    O.check_op(lambda: bg.apply(x, op), lambda: O.ref_apply(O.to_gb(x), op), op_info=f"apply {op}[{dtype}]",
               inputs=(x,))


def test_select_value_thunk_of_another_dtype_compares_exactly():
    """A thunk is compared in unify(x.dtype, thunk dtype), not cast to x's
    dtype first (python-graphblas gives valueeq(int8, 0.5) -> {0} and
    valuegt(float32, 1) -> everything, from the thunk's bytes)."""
    v = bg.Vector.from_coo([0, 1, 2], np.array([0, 1, 2], np.int8), size=3)
    assert bg.select(v, "valueeq", 0.5).nvals == 0
    assert bg.select(v, "valuegt", 0.5).indices().tolist() == [1, 2]
    assert bg.select(v, "valuelt", 1.7).indices().tolist() == [0, 1]
    u = bg.Vector.from_coo([0, 1, 2], np.array([0, 1, 2], np.uint8), size=3)
    assert bg.select(u, "valuegt", -1).nvals == 3
    w = bg.Vector.from_coo([0, 1, 2], np.array([0.5, 1.5, 300.0], np.float32), size=3)
    assert bg.select(w, "valuegt", 1).indices().tolist() == [1, 2]
