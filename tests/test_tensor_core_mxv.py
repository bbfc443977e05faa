"""mxv / vxm with ``method="tensor_core"`` (Blest's step on the BVSS of the
operator; on the CPU its numba twin) against python-graphblas and against
the other methods: the Boolean-like semirings (lor_land, any_pair,
lor_pair, and others whose products of the matrix's ones reduce to "some
entry in common") on random patterns, with every mask kind, accum,
replace, out, transposed operators, and sizes past one VSS per slice set
(129+ rows of one column block); the launcher alone on a hand-made BVSS;
and the error for a product the step cannot compute."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import oracle as O
import strategies as S

try:
    from test_conformance_mxv import run_matvec
except ImportError:  # no python-graphblas: tests/gpu/test_bmv_bvss_gpu.py imports
    run_matvec = None  # this module's helpers on the GPU machine, which has none
needs_oracle = pytest.mark.skipif(run_matvec is None, reason="python-graphblas is not installed")

BOOLEAN = ("lor_land", "any_pair", "lor_pair")
# accepted too: products of ones under an idempotent monoid, LOR over x's values
MORE = ("min_pair", "lor_first", "lor_second", "any_first", "land_pair")
SEMIRINGS = st.sampled_from(BOOLEAN * 3 + MORE)
# sizes: the hypothesis table's small ones, and ones where a slice set holds
# more than 128 slices (several VSSs, the last padded) or many column blocks
DIMS = st.one_of(S.dims, S.dims, st.sampled_from([8, 9, 31, 33, 128, 129, 200, 257]))
METHODS = ("auto", "pull", "push", "bits")


@st.composite
def tc_cases(draw, kind):
    """A run_matvec case (test_conformance_mxv) on a pattern matrix with
    path "tensor_core"."""
    transpose = draw(st.booleans())
    m, n = draw(DIMS), draw(DIMS)
    sr = draw(SEMIRINGS)
    if kind == "vxm" and sr == "any_first":  # u any.first A reads u's values: any_second
        sr = "any_second"
    dtype = draw(st.sampled_from([np.dtype(np.bool_)] * 3 + list(O.DTYPES)))
    A = S.draw_matrix(draw, nrows=m, ncols=n, dtype=dtype)
    # lor_land, lor_first, ... read a_ik: tensor_core takes a structure-only
    # A (bool, no values, from COO: the scipy route stores True values);
    # PAIR ignores A, so any_pair keeps A's values (and int64 indices) at times
    if not sr.endswith("_pair") or draw(st.booleans()):
        A = dataclasses.replace(A, values=None, dup_op=None, via="coo", dtype=O.BOOL)
    opr, opc = (n, m) if transpose else (m, n)
    inner, outer = (opc, opr) if kind == "mxv" else (opr, opc)
    u = S.draw_vector(draw, size=inner, dtype=dtype if draw(st.booleans()) else None)
    mask = S.draw_mask(draw, size=outer)
    out, accum, replace = S.draw_outputs(draw, size=outer)
    alias = out is None and inner == outer and draw(st.integers(0, 7)) == 0
    return dict(A=A, u=u, semiring=sr, transpose=transpose, mask=mask, out=out, accum=accum,
                replace=replace, alias=alias, as_object=draw(st.booleans()),
                method=draw(st.booleans()), path="tensor_core",
                mask_alias=draw(st.sampled_from([None] * 6 + ["out", "u"])),
                parallel=draw(S.small_ints) < 2)


@needs_oracle
@settings(max_examples=S.n_examples(800))
@given(tc_cases("mxv"))
def test_mxv_tensor_core(c):
    run_matvec("mxv", c)


@needs_oracle
@settings(max_examples=S.n_examples(500))
@given(tc_cases("vxm"))
def test_vxm_tensor_core(c):
    run_matvec("vxm", c)


def _graph(rng, n, density, features=()):
    present = rng.random((n, n)) < density
    if "hub_col" in features:  # a column block of many slices: several VSSs
        present[:, rng.integers(n)] = True
    if "empty_rows" in features:
        present[rng.random(n) < 0.3] = False
    if "self_loops" in features:
        present[np.arange(n), np.arange(n)] = True
    r, c = np.nonzero(present)
    return bg.Matrix.from_coo(r, c, nrows=n, ncols=n)


@pytest.mark.parametrize("seed", range(6))
def test_tensor_core_equals_every_method(seed):
    """A BFS-like step and a plain product on graphs of 300-1000 vertices
    (hub columns, empty rows, self-loops): every mask kind, accum, replace,
    mxv on A and A.T and vxm, equal to every other method's result."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([300, 517, 1000]))
    A = _graph(rng, n, rng.choice([0.002, 0.01, 0.05]),
               {f for f in ("hub_col", "empty_rows", "self_loops") if rng.random() < 0.5})
    f = bg.Vector.from_indices(np.flatnonzero(rng.random(n) < rng.choice([0.01, 0.2, 0.9])), n)
    keep = np.flatnonzero(rng.random(n) < 0.4)
    seen = bg.Vector.from_coo(keep, rng.random(keep.size) < 0.6, n)  # value mask != structure
    x = bg.Vector.from_coo(f.indices(), rng.random(f.nvals) < 0.5, n)  # lor_land reads x
    out0 = bg.Vector.from_coo(np.flatnonzero(rng.random(n) < 0.3), True, n)
    masks = [None, seen, seen.S, ~seen, ~seen.S, seen.V, ~seen.V]
    for sr in BOOLEAN:
        for u in (f, x):
            for mask in masks:
                for accum, replace in ((None, False), ("lor", False), ("lor", True)):
                    if replace and mask is None:
                        continue
                    kw = dict(mask=mask, accum=accum, replace=replace)
                    for call in (lambda m: A.T.mxv(u, sr, out=_out(out0, accum), method=m, **kw),
                                 lambda m: A.mxv(u, sr, out=_out(out0, accum), method=m, **kw),
                                 lambda m: bg.vxm(u, A, sr, out=_out(out0, accum), method=m, **kw)):
                        want = call("pull")
                        got = call("tensor_core")
                        assert got.isequal(want, check_dtype=True), (sr, mask, accum, replace)
                        for m in METHODS:
                            assert call(m).isequal(want, check_dtype=True), (sr, m, mask, accum, replace)


def _out(out0, accum):
    return out0.copy() if accum is not None else None


def test_kernel_on_hand_made_bvss():
    """The launcher on a BVSS built by hand: a slice set of 130 slices (two
    VSSs, the second padded), an empty column block, rows set through
    several slice sets, x_true, and a mask."""
    from bitgraph.kernels import registry

    step = registry.lookup("mxv", fmt="bvss", device="cpu", variant="tensor_core")
    b, dense = hand_made_bvss()
    run_hand_made(step, b, dense, np)
    run_hand_made(step, b, dense, np, parallel=True)


def hand_made_bvss():
    """(BVSS, dense bool matrix) of 300 x 24: column block 0 holds rows
    0..129 (130 slices: VSSs 0 and 1), block 1 is empty, block 2 holds rows
    5, 200, 299; the arrays written out here, not by the converter."""
    from bitgraph.formats.bvss import BVSS, PAD_ROW

    nrows, ncols = 300, 24
    dense = np.zeros((nrows, ncols), bool)
    slices = {0: [(r, (r * 37 + 1) % 255 + 1) for r in range(130)], 1: [],
              2: [(5, 0x81), (200, 0x10), (299, 0x01)]}
    masks, row_ids, v2r, real_ptrs = [], [], [], [0]
    for blk in range(3):
        sl = slices[blk]
        for v0 in range(0, len(sl), 128):
            m = np.zeros(32, np.uint32)
            rid = np.full((32, 4), PAD_ROW, np.uint32)
            for k, (r, bits) in enumerate(sl[v0:v0 + 128]):
                m[k % 32] |= np.uint32(bits << (8 * (k // 32)))
                rid[k % 32, k // 32] = r
                for c in range(8):
                    if bits >> c & 1:
                        dense[r, 8 * blk + c] = True
            masks.append(m)
            row_ids.append(rid)
            v2r.append(blk)
        real_ptrs.append(len(v2r))
    b = BVSS(np.array(real_ptrs, np.int32), np.array(v2r, np.int32), np.stack(row_ids),
             np.concatenate(masks), 8, nrows, ncols)
    return b, dense


def run_hand_made(step, b, dense, xp, **kw):
    """Check ``step`` (a tensor_core launcher; ``xp`` its array module) on
    the hand-made BVSS against the dense product, for several x, x_true
    and masks."""
    from bitgraph import _array as ar

    rng = np.random.default_rng(1)
    nrows, ncols = dense.shape
    on = (lambda a: a) if xp is np else xp.asarray
    host = (lambda a: a) if xp is np else (lambda a: a.get())
    bd = b._replace(**{f: on(getattr(b, f)) for f in ("real_ptrs", "virtual_to_real", "row_ids",
                                                      "masks")})
    cases = [np.zeros(ncols, bool), np.ones(ncols, bool), np.arange(ncols) == 0,
             np.arange(ncols) == 23, (np.arange(ncols) >= 8) & (np.arange(ncols) < 16)]
    cases += [rng.random(ncols) < p for p in (0.1, 0.3, 0.6)]
    for x in cases:
        for x_true in (None, x & (rng.random(ncols) < 0.5)):
            for allowed in (None, rng.random(nrows) < 0.5):
                t_true, t_present = step(bd, on(ar.pack_bits(x)),
                                         None if x_true is None else on(ar.pack_bits(x_true)),
                                         None if allowed is None else on(ar.pack_bits(allowed)),
                                         **kw)
                ok = np.ones(nrows, bool) if allowed is None else allowed
                want_present = (dense & x).any(axis=1) & ok
                want_true = want_present if x_true is None else (dense & x_true).any(axis=1) & ok
                assert np.array_equal(host(t_present), want_present)
                assert np.array_equal(host(t_true), want_true)


@pytest.mark.parametrize("semiring,dtype,valued", [
    ("plus_times", "int64", False), ("plus_pair", "int32", False), ("min_plus", "float64", False),
    ("any_second", "int64", False), ("lor_land", "bool", True), ("lor_first", "int8", True),
    ("lor_land", "float32", True)])
def test_tensor_core_raises_where_it_cannot_compute(semiring, dtype, valued):
    """A product that is not Boolean-like (counts, values), or one that reads
    the matrix's values, raises InvalidValue naming the semiring and the
    other methods: no silent fallback. (vxm any_second reads A's ones and
    vxm lor_first reads u only: both run there.)"""
    vals = np.array([1, 2, 0], dtype) if valued else None
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], vals, nrows=3, ncols=3,
                           dtype=dtype if valued else None)
    u = bg.Vector.from_coo([0, 1], np.array([1, 1], dtype), 3)
    with pytest.raises(bg.InvalidValue, match=rf"'{semiring}'.*'pull'"):
        bg.mxv(A, u, semiring, method="tensor_core")
    if semiring not in ("any_second", "lor_first"):
        with pytest.raises(bg.InvalidValue, match=rf"vxm: .*'{semiring}'"):
            bg.vxm(u, A, semiring, method="tensor_core")
    bg.mxv(A, u, semiring, method="pull")  # the product itself is fine


def test_tensor_core_method_name_checked():
    from bitgraph import plan

    assert "tensor_core" in plan.MXV_METHODS
    with pytest.raises(bg.InvalidValue, match="did you mean 'tensor_core'"):
        bg.mxv(bg.Matrix.from_coo([0], [0], nrows=1, ncols=1), bg.Vector.from_indices([0], 1),
               "lor_land", method="tensor_cores")
