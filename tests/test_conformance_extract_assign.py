"""extract, assign (GrB_assign: the mask has out's shape) and transpose against
python-graphblas: indices None / slices (negative steps and bounds) / lists /
arrays / ints (a Matrix row or column as a Vector)."""

import numpy as np
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S


@st.composite
def indices(draw, n, *, dups=True, allow_int=False):
    """(index, length) for a dimension of size n."""
    kinds = ["none", "slice", "list", "array"] + (["int"] if allow_int and n else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "none":
        return None, n
    if kind == "int":
        return draw(st.integers(0, n - 1)), None
    if kind == "slice":
        b = st.one_of(st.none(), st.integers(-n - 2, n + 2))
        step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
        sl = slice(draw(b), draw(b), step)
        return sl, len(range(n)[sl])
    if n == 0:
        lst = []
    elif dups:
        lst = draw(st.lists(st.integers(0, n - 1), max_size=n + 3))
    else:
        lst = draw(st.lists(st.integers(0, n - 1), max_size=n, unique=True))
    if kind == "array":
        return np.array(lst, dtype=draw(st.sampled_from([np.int64, np.int32, np.uint64]))), len(lst)
    return lst, len(lst)


@st.composite
def extract_cases(draw):
    if draw(st.booleans()):
        x = S.draw_vector(draw)
        i, n = draw(indices(x.size))
        return dict(x=x, tr=False, index=(i,), mask=S.draw_mask(draw, size=n), out=S.draw_outputs(draw, size=n),
                    method=draw(st.booleans()))
    m, n = draw(S.dims), draw(S.dims)
    tr = draw(st.integers(0, 4)) == 0
    x = S.draw_matrix(draw, nrows=n if tr else m, ncols=m if tr else n)
    i, li = draw(indices(m, allow_int=True))
    j, lj = draw(indices(n, allow_int=li is not None))
    if li is None or lj is None:
        size = lj if li is None else li
        mask, out = S.draw_mask(draw, size=size), S.draw_outputs(draw, size=size)
    else:
        mask, out = S.draw_mask(draw, nrows=li, ncols=lj), S.draw_outputs(draw, nrows=li, ncols=lj)
    return dict(x=x, tr=tr, index=(i, j), mask=mask, out=out, method=draw(st.booleans()))


@settings(max_examples=S.n_examples(1800))
@given(extract_cases())
def test_extract(c):
    x = c["x"].bg(bg)
    gx = c["x"].gb()
    xo, gxo = (x.T, gx.T.new()) if c["tr"] else (x, gx)
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    kw = dict(mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out)
    if c["method"]:
        call = lambda: xo.extract(*c["index"], **kw)  # noqa: E731
    else:
        call = lambda: bg.extract(xo, *c["index"], **kw)  # noqa: E731
    O.check_op(call, lambda: O.ref_extract(gxo, *c["index"], mask=gm, accum=accum, replace=replace, out=gout),
               op_info=f"extract {c['index']!r}", out=out, inputs=(x,))


@st.composite
def assign_cases(draw, row_col=False):
    """row_col: an int row (or column) index with a Vector value (GrB_Row_assign)."""
    rng = np.random.default_rng(draw(S.seeds))
    scalar = not row_col and draw(st.integers(0, 2)) == 0
    if not row_col and draw(st.booleans()):
        out = S.draw_vector(draw, allow_dups=False)
        i, n = draw(indices(out.size, dups=False))
        index = (i,)
        value = None if scalar else S.draw_vector(draw, size=n)
        mask = S.draw_mask(draw, size=out.size)
    else:
        out = S.draw_matrix(draw, allow_dups=False, via="coo")
        i, li = draw(indices(out.nrows, dups=False, allow_int=True))
        j, lj = draw(indices(out.ncols, dups=False, allow_int=li is not None))
        if row_col and li is not None and lj is not None:
            if out.nrows and draw(st.booleans()):
                i, li = draw(st.integers(0, out.nrows - 1)), None
            elif out.ncols:
                j, lj = draw(st.integers(0, out.ncols - 1)), None
            else:
                scalar = True
        if not row_col and not scalar and (li is None or lj is None):
            scalar = True  # row/column assign of a Vector: test_assign_row_col
        index = (i, j)
        if scalar:
            value = None
        elif li is None or lj is None:
            value = S.draw_vector(draw, size=lj if li is None else li)
        else:
            value = S.draw_matrix(draw, nrows=li, ncols=lj)
        mask = S.draw_mask(draw, nrows=out.nrows, ncols=out.ncols)
    if scalar:
        dt = draw(S.dtypes)
        s = S.gen_values(rng, dt, 1, draw(S.value_modes))[0]
        if draw(st.booleans()):
            s = bool(s) if dt == O.BOOL else (int(s) if dt.kind in "iu" and -(2**63) <= int(s) < 2**63
                                              else (float(s) if dt.kind == "f" else s))
        value = s
    return dict(out=out, value=value, index=index, mask=mask, accum=draw(st.sampled_from(S.ACCUMS)),
                replace=draw(st.booleans()), method=draw(st.booleans()))


@settings(max_examples=S.n_examples(1500))
@given(assign_cases())
def test_assign(c):
    run_assign(c)


@settings(max_examples=S.n_examples(300))
@given(assign_cases(row_col=True))
def test_assign_row_col(c):
    run_assign(c)


def run_assign(c):
    out, gout = c["out"].bg(bg), c["out"].gb()
    v = c["value"]
    if isinstance(v, (S.VecSpec, S.MatSpec)):
        value, gvalue = v.bg(bg), v.gb()
    else:
        value = gvalue = v
    bm, gm = S.build_mask(c["mask"], bg)
    kw = dict(mask=bm, accum=c["accum"], replace=c["replace"])
    if c["method"]:
        call = lambda: out.assign(value, *c["index"], **kw)  # noqa: E731
    else:
        call = lambda: bg.assign(out, value, *c["index"], **kw)  # noqa: E731
    O.check_op(call, lambda: O.ref_assign(gout, gvalue, *c["index"], mask=gm, accum=c["accum"],
                                          replace=c["replace"]),
               op_info=f"assign {c['index']!r} accum={c['accum']}", out=out,
               inputs=(value,) if not np.isscalar(value) else ())


@st.composite
def transpose_cases(draw):
    m, n = draw(S.dims), draw(S.dims)
    tr = draw(st.integers(0, 4)) == 0
    A = S.draw_matrix(draw, nrows=n if tr else m, ncols=m if tr else n)
    return dict(A=A, tr=tr, mask=S.draw_mask(draw, nrows=n, ncols=m), out=S.draw_outputs(draw, nrows=n, ncols=m))


@settings(max_examples=S.n_examples(800))
@given(transpose_cases())
def test_transpose(c):
    A, gA = c["A"].bg(bg), c["A"].gb()
    Ao, gAo = (A.T, gA.T.new()) if c["tr"] else (A, gA)
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    O.check_op(lambda: bg.transpose(Ao, mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out),
               lambda: O.ref_transpose(gAo, mask=gm, accum=accum, replace=replace, out=gout),
               op_info="transpose", out=out, inputs=(A,))


def test_extract_row_and_column_give_vectors():
    A = bg.Matrix.from_coo([0, 1, 1, 2], [1, 0, 2, 2], [1, 2, 3, 4], 3, 3)
    r = bg.extract(A, 1, None)
    assert type(r).__name__ == "Vector" and r.size == 3 and r.to_coo()[1].tolist() == [2, 3]
    c = bg.extract(A, None, 2)
    assert type(c).__name__ == "Vector" and c.size == 3 and c.to_coo()[0].tolist() == [1, 2]
