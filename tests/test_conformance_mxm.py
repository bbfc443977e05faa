"""mxm against python-graphblas: named semirings on every dtype python-graphblas
defines them for, random monoid x binary-op combinations, A.T and B.T,
masks (e.g. triangle counting's L<L> = L plus_pair L'), accum, replace, out."""

import contextlib
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S


@st.composite
def mxm_cases(draw, semiring=None, dtype=None):
    ta, tb = draw(st.booleans()), draw(st.booleans())
    m, k, n = draw(S.dims), draw(S.dims), draw(S.dims)
    A = S.draw_matrix(draw, nrows=k if ta else m, ncols=m if ta else k, dtype=dtype)
    bdt = dtype if (dtype is not None and draw(st.integers(0, 3))) else None
    B = S.draw_matrix(draw, nrows=n if tb else k, ncols=k if tb else n, dtype=bdt)
    return dict(A=A, B=B, ta=ta, tb=tb, semiring=draw(S.semirings) if semiring is None else semiring,
                mask=S.draw_mask(draw, nrows=m, ncols=n), out=S.draw_outputs(draw, nrows=m, ncols=n),
                as_object=draw(st.booleans()), method=draw(st.booleans()), alias=draw(ALIAS),
                parallel=draw(S.small_ints) < 2, kernel=draw(KERNELS))


KERNELS = st.sampled_from(["auto", "dot", "gustavson", "bits8"])


@contextlib.contextmanager
def forced_kernel(kernel):
    """The ``method=`` of mxm: dot products, Gustavson, or B2SR-T
    bmm_bin_bin_sum ("bitsT", taken when no value is read and the entries
    are counts or ones; the tile through ``settings.use``); 'auto': plan's
    choice."""
    if not kernel.startswith("bits"):
        yield kernel
        return
    with bg.settings.use(plan={"bits_tile": int(kernel[4:])}):
        yield "bits"


ALIAS = st.sampled_from([None] * 6 + ["A", "B", "mask=out"])


def run_mxm(c):
    A, B = c["A"].bg(bg), c["B"].bg(bg)
    gA, gB = c["A"].gb(), c["B"].gb()
    bm, gm = S.build_mask(c["mask"], bg)
    ospec, accum, replace = c["out"]
    out, gout = S.build_out(ospec, bg)
    m_, n_ = (gA.ncols if c["ta"] else gA.nrows), (gB.nrows if c["tb"] else gB.ncols)
    if c["alias"] == "A" and not c["ta"] and (gA.nrows, gA.ncols) == (m_, n_):
        out, gout = A, gA  # C = A (+).(*) B into A itself
    elif c["alias"] == "B" and not c["tb"] and (gB.nrows, gB.ncols) == (m_, n_):
        out, gout = B, gB
    elif c["alias"] == "mask=out" and out is not None:
        kind = c["mask"][1] or "S"
        bm, gm = O.bg_mask(out, kind), O.gb_mask(gout, kind)
    sr = S.op_obj(bg, "semiring", c["semiring"], c["as_object"])
    Aop = A.T if c["ta"] else A
    Bop = B.T if c["tb"] else B
    kw = dict(mask=bm, accum=S.accum_arg(accum, bg), replace=replace, out=out)
    call = (lambda: Aop.mxm(Bop, sr, **kw)) if c["method"] else (lambda: bg.mxm(Aop, Bop, sr, **kw))
    with forced_kernel(c.get("kernel", "auto")) as method:
        kw["method"] = method
        O.check_op(call, lambda: O.ref_mxm(gA, gB, c["semiring"], transpose_a=c["ta"], transpose_b=c["tb"],
                                           mask=gm, accum=accum, replace=replace, out=gout),
                   op_info=f"mxm {c['semiring']} ta={c['ta']} tb={c['tb']} kernel={c.get('kernel')}",
                   out=out, inputs=(A, B), parallel=c.get("parallel", False))


@settings(max_examples=S.n_examples(2000))
@given(mxm_cases())
def test_mxm_random_semirings(c):
    run_mxm(c)


BIT_SEMIRINGS = st.sampled_from(["plus_pair", "any_pair", "lor_land", "plus_times", "lxor_pair",
                                 "min_first", "max_second", "times_pair", "plus_min"])


@st.composite
def bit_mxm_cases(draw):
    """Pattern-only A and B with a mask, semirings whose entries are counts or
    ones, every tile size: bmm_bin_bin_sum against python-graphblas."""
    c = draw(mxm_cases(semiring=draw(BIT_SEMIRINGS)))
    c["A"] = dataclasses.replace(c["A"], values=None, dup_op=None)
    c["B"] = dataclasses.replace(c["B"], values=None, dup_op=None)
    if c["mask"][0] is None or c["mask"][1].startswith("~"):  # bits need a plain mask
        A, B = c["A"], c["B"]
        m = A.ncols if c["ta"] else A.nrows
        n = B.nrows if c["tb"] else B.ncols
        spec = S.draw_matrix(draw, nrows=m, ncols=n, allow_dups=False, mode="nice", via="coo")
        c["mask"] = (spec, draw(st.sampled_from(["S", "V"])))
    c["kernel"] = draw(st.sampled_from(["bits4", "bits8", "bits16", "bits32"]))
    return c


@settings(max_examples=S.n_examples(1200))
@given(bit_mxm_cases())
def test_mxm_bit_kernel(c):
    run_mxm(c)


NAMED_DEFINED = [(s, d) for s in O.NAMED_SEMIRINGS for d in O.DTYPE_NAMES if O.gb_semiring(s, d) is not None]


@pytest.mark.parametrize("semiring,dtype", NAMED_DEFINED)
@settings(max_examples=S.n_examples(10))
@given(data=st.data())
def test_mxm_named(semiring, dtype, data):
    run_mxm(data.draw(mxm_cases(semiring=semiring, dtype=dtype)))


@settings(max_examples=S.n_examples(300))
@given(L=S.matrices(dtype=bool, structure_only=True), sr=st.sampled_from(["plus_pair", "plus_times", "any_pair"]))
def test_triangle_count_shape(L, sr):
    """C<L> = L plus_pair L' on a lower-triangular square matrix, then reduce."""
    n = min(L.nrows, L.ncols)
    keep = (L.rows < n) & (L.cols < n) & (L.cols < L.rows)
    Ls = S.MatSpec(n, n, L.rows[keep], L.cols[keep], None, O.BOOL)
    A, gA = Ls.bg(bg), Ls.gb()
    C = O.check_op(lambda: bg.mxm(A, A.T, sr, mask=A.S), lambda: O.ref_mxm(gA, gA, sr, transpose_b=True, mask=gA.S),
                   op_info=f"triangles {sr}", inputs=(A,))
    if C is not None and sr == "plus_pair":
        t = gA.mxm(gA.T, O.gb_semiring("plus_pair", "bool")).new(mask=gA.S)
        ref = t.reduce_scalar(O.gb_monoid("plus", "int64")).new()
        got = bg.reduce(C, "plus")
        assert (got is None and ref.is_empty) or got == ref.value


def test_mxm_shape_mismatch_is_not_silent():
    A = bg.Matrix.from_coo([0], [0], [1.0], 2, 3)
    with pytest.raises(bg.DimensionMismatch):
        bg.mxm(A, A)
    assert bg.mxm(A, A.T).shape == (2, 2)
    assert bg.mxm(A.T, A).shape == (3, 3)


def test_mxm_transposed_both():
    rng = np.random.default_rng(3)
    A = bg.Matrix.from_coo(rng.integers(0, 5, 12), rng.integers(0, 7, 12), rng.integers(1, 9, 12), 5, 7,
                           dup_op="plus")
    B = bg.Matrix.from_coo(rng.integers(0, 6, 12), rng.integers(0, 5, 12), rng.integers(1, 9, 12), 6, 5,
                           dup_op="plus")
    gA, gB = O.to_gb(A), O.to_gb(B)
    O.check_op(lambda: bg.mxm(A.T, B.T), lambda: O.ref_mxm(gA, gB, "plus_times", transpose_a=True, transpose_b=True),
               op_info="A.T @ B.T")
