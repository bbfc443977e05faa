"""mxv / vxm against python-graphblas: every named semiring on every dtype
python-graphblas defines it for, random monoid x binary-op combinations,
transposed matrices, sparse (push) and dense (pull) vectors, masks, accum,
replace, out (also aliased with the input vector)."""

import contextlib
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S

RANDOM_SEMIRINGS = S.semirings
MASK_ALIAS = st.sampled_from([None] * 6 + ["out", "u"])
# "bitsT": method="bits" on B2SR-T (settings.Plan.bits_tile = T), taken when
# the product reads no matrix value (structure-only/iso matrices, PAIR/FIRST/SECOND...)
PATHS = st.sampled_from(["auto", "auto", "push", "pull", "bits4", "bits8", "bits16", "bits32"])


@st.composite
def matvec_cases(draw, kind, semiring=None, dtype=None):
    transpose = draw(st.booleans())
    m, n = draw(S.dims), draw(S.dims)
    A = S.draw_matrix(draw, nrows=m, ncols=n, dtype=dtype)
    # the operator is A or A.T; mxv contracts its columns, vxm its rows
    opr, opc = (n, m) if transpose else (m, n)
    inner, outer = (opc, opr) if kind == "mxv" else (opr, opc)
    udt = dtype if (dtype is not None and draw(st.integers(0, 3))) else None
    # density spans sparse frontiers (push) to full vectors (pull)
    u = S.draw_vector(draw, size=inner, dtype=udt)
    sr = draw(RANDOM_SEMIRINGS) if semiring is None else semiring
    mask = S.draw_mask(draw, size=outer)
    out, accum, replace = S.draw_outputs(draw, size=outer)
    alias = out is None and inner == outer and draw(st.integers(0, 7)) == 0
    return dict(A=A, u=u, semiring=sr, transpose=transpose, mask=mask, out=out, accum=accum,
                replace=replace, alias=alias, as_object=draw(st.booleans()),
                method=draw(st.booleans()), path=draw(PATHS), mask_alias=draw(MASK_ALIAS),
                parallel=draw(S.small_ints) < 2)


@contextlib.contextmanager
def forced_path(path):
    """The ``method=`` of the push (SpMSpV), pull (SpMV) or B2SR-T kernel,
    with the tile size set through ``settings.use``; 'auto' leaves plan's
    choices (vector density, tile fill)."""
    if not path.startswith("bits"):
        yield path
        return
    with bg.settings.use(plan={"bits_tile": int(path[4:])}):
        yield "bits"


def run_matvec(kind, c):
    A, u = c["A"].bg(bg), c["u"].bg(bg)
    gA, gu = c["A"].gb(), c["u"].gb()
    mspec, mkind = c["mask"]
    gm = mspec.gb() if mspec else None
    bm = O.bg_mask(mspec.bg(bg), mkind) if mspec else None
    if c["alias"]:
        out, gout = u, gu
    else:
        out = c["out"].bg(bg) if c["out"] else None
        gout = c["out"].gb() if c["out"] else None
    # the mask may be the output itself (w<w> = ...) or the input vector
    outer = gA.ncols if (kind == "mxv") == c["transpose"] else gA.nrows
    if c["mask_alias"] == "out" and out is not None:
        mkind = mkind or "S"
        bm, gm = O.bg_mask(out, mkind), gout
    elif c["mask_alias"] == "u" and gu.size == outer:
        mkind = mkind or "~S"
        bm, gm = O.bg_mask(u, mkind), gu
    sr = S.op_obj(bg, "semiring", c["semiring"], c["as_object"])
    Aop = A.T if c["transpose"] else A
    kw = dict(mask=bm, accum=S.accum_arg(c["accum"], bg), replace=c["replace"], out=out)
    gkw = dict(transpose=c["transpose"], mask=O.gb_mask(gm, mkind), accum=c["accum"],
               replace=c["replace"], out=gout)
    with forced_path(c["path"]) as method:
        kw["method"] = method
        if kind == "mxv":
            call = (lambda: Aop.mxv(u, sr, **kw)) if c["method"] else (lambda: bg.mxv(Aop, u, sr, **kw))
            ref = lambda: O.ref_mxv(gA, gu, c["semiring"], **gkw)  # noqa: E731
        else:
            call = lambda: bg.vxm(u, Aop, sr, **kw)  # noqa: E731
            ref = lambda: O.ref_vxm(gu, gA, c["semiring"], **gkw)  # noqa: E731
        O.check_op(call, ref, op_info=f"{kind} {c['semiring']} path={c['path']}", out=out, inputs=(A, u),
                   parallel=c["parallel"])


@settings(max_examples=S.n_examples(2500))
@given(matvec_cases("mxv"))
def test_mxv_random_semirings(c):
    run_matvec("mxv", c)


@st.composite
def pattern_cases(draw, kind):
    """Structure-only matrices, so the "bitsT" paths run a bit kernel for
    every semiring (bin_bin_bin, bin_bin_full or bin_full_full)."""
    c = draw(matvec_cases(kind))
    # values dropped: bool -> structure only, other dtypes -> iso ones
    c["A"] = dataclasses.replace(c["A"], values=None, dup_op=None)
    c["path"] = draw(st.sampled_from(["bits4", "bits8", "bits16", "bits32"]))
    return c


@settings(max_examples=S.n_examples(1500))
@given(pattern_cases("mxv"))
def test_mxv_bit_kernels(c):
    run_matvec("mxv", c)


@settings(max_examples=S.n_examples(600))
@given(pattern_cases("vxm"))
def test_vxm_bit_kernels(c):
    run_matvec("vxm", c)


@settings(max_examples=S.n_examples(1200))
@given(matvec_cases("vxm"))
def test_vxm_random_semirings(c):
    run_matvec("vxm", c)


NAMED_DEFINED = [(s, d) for s in O.NAMED_SEMIRINGS for d in O.DTYPE_NAMES if O.gb_semiring(s, d) is not None]
NAMED_UNDEFINED = [(s, d) for s in O.NAMED_SEMIRINGS for d in O.DTYPE_NAMES if O.gb_semiring(s, d) is None]


@pytest.mark.parametrize("semiring,dtype", NAMED_DEFINED)
@settings(max_examples=S.n_examples(14))
@given(data=st.data())
def test_mxv_named(semiring, dtype, data):
    run_matvec("mxv", data.draw(matvec_cases("mxv", semiring=semiring, dtype=dtype)))


@pytest.mark.parametrize("semiring,dtype", NAMED_DEFINED)
@settings(max_examples=S.n_examples(8))
@given(data=st.data())
def test_vxm_named(semiring, dtype, data):
    run_matvec("vxm", data.draw(matvec_cases("vxm", semiring=semiring, dtype=dtype)))


@pytest.mark.parametrize("semiring,dtype", NAMED_UNDEFINED)
@settings(max_examples=S.n_examples(5))
@given(data=st.data())
def test_mxv_named_undefined_in_graphblas(semiring, dtype, data):
    """python-graphblas has no such typed semiring: DomainMismatch or a sane result."""
    run_matvec("mxv", data.draw(matvec_cases("mxv", semiring=semiring, dtype=dtype)))


def test_named_semiring_objects():
    for name in O.NAMED_SEMIRINGS:
        obj = getattr(bg, name.upper())
        assert obj is getattr(bg.semiring, name.upper())
        assert O.op_name(obj) == name


def test_push_and_pull_paths_agree():
    """One frontier from 1 to n entries: the kernel choice (push for sparse
    vectors, pull for dense ones) must not change the result."""
    rng = np.random.default_rng(7)
    n = 300
    k = np.unique(rng.integers(0, n * n, 3000))
    A = bg.Matrix.from_coo(k // n, k % n, rng.integers(-5, 6, k.size).astype(np.int64), n, n)
    gA = O.to_gb(A)
    for sr in ("plus_times", "min_plus", "any_pair", "lor_land", "max_times", "any_secondi"):
        for nnz in (1, 3, 30, 150, 299, 300):
            idx = np.sort(rng.choice(n, nnz, replace=False))
            u = bg.Vector.from_coo(idx, rng.integers(-5, 6, nnz).astype(np.int64), n)
            gu = O.to_gb(u)
            for Aop, tr in ((A, False), (A.T, True)):
                O.check_op(lambda: bg.mxv(Aop, u, sr), lambda: O.ref_mxv(gA, gu, sr, transpose=tr),
                           op_info=f"mxv {sr} nnz={nnz} T={tr}")
                O.check_op(lambda: bg.vxm(u, Aop, sr), lambda: O.ref_vxm(gu, gA, sr, transpose=tr),
                           op_info=f"vxm {sr} nnz={nnz} T={tr}")
            mask = bg.Vector.from_indices(idx, n)
            gm = O.to_gb(mask)
            O.check_op(lambda: bg.mxv(A.T, u, sr, mask=~mask.S),
                       lambda: O.ref_mxv(gA, gu, sr, transpose=True, mask=~gm.S),
                       op_info=f"mxv {sr} bfs step nnz={nnz}")


def test_bfs_step_docstring_example():
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
    frontier = bg.Vector.from_indices([0], size=3)
    nxt = A.T.mxv(frontier, semiring=bg.LOR_LAND, mask=~frontier.S)
    assert nxt.indices().tolist() == [1]
    assert nxt.dtype == np.bool_


@pytest.mark.parametrize("dtype", O.DTYPE_NAMES)
def test_every_semiring_result_dtype(dtype):
    """Every <monoid>_<binaryop> on every dtype: the result dtype is
    python-graphblas's (e.g. plus_pair / times_pair / min_pair on bool give
    int64, lor_land on int8 gives bool, positional ops int32 only for int32),
    and the one value matches; where python-graphblas has no such semiring,
    bitgraph raises DomainMismatch or computes a well-formed result."""
    dt = np.dtype(dtype)
    A = bg.Matrix.from_coo([0, 0], [0, 1], np.array([3, 2], dt), 1, 2)
    u = bg.Vector.from_coo([0, 1], np.array([2, 1], dt), 2)
    gA, gu = O.to_gb(A), O.to_gb(u)
    errors = []
    for sr in S.SEMIRING_NAMES:
        try:
            O.check_op(lambda: bg.mxv(A, u, sr), lambda: O.ref_mxv(gA, gu, sr), op_info=f"mxv {sr}[{dtype}]")
            O.check_op(lambda: bg.mxm(A, A.T, sr), lambda: O.ref_mxm(gA, gA, sr, transpose_b=True),
                       op_info=f"mxm {sr}[{dtype}]")
        except AssertionError as e:
            errors.append(str(e).splitlines()[0])
    assert not errors, "\n".join(errors)
