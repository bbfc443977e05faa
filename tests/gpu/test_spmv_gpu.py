"""CUDA mxv pull (kernels/cuda/spmv_csr.cu) equals the CPU kernel on
random CSR matrices, vectors, masks, every semiring family and dtype."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
from values import gen_values, pack as _pack, semiring_spec

pytestmark = pytest.mark.gpu

MONOIDS = ["plus", "times", "min", "max", "any", "lor", "land", "lxor", "eq"]
MULTS = ["times", "plus", "first", "second", "pair", "min", "max", "minus", "div",
         "land", "lor", "eq", "gt", "firsti", "firstj", "secondi", "secondj"]
DTYPES = registry.DTYPES






@settings(max_examples=1200)
@given(add=st.sampled_from(MONOIDS), mult=st.sampled_from(MULTS),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1),
       nrows=st.integers(0, 90), ncols=st.integers(1, 90),
       density=st.sampled_from([0.0, 0.05, 0.3, 1.0]), iso=st.booleans(),
       masked=st.booleans(), flipped=st.booleans(), index64=st.booleans(),
       lanes=st.sampled_from([None, 1, 2, 4, 8, 16, 32]),
       split=st.sampled_from([None, 0, 2, 7, 40]), chunk=st.sampled_from([1, 3, 16]),
       warp_above=st.sampled_from([None, 0, 1, 5, 30]), full=st.booleans())
def test_pull_equals_cpu(add, mult, dtype, seed, nrows, ncols, density, iso, masked,
                         flipped, index64, lanes, split, chunk, warp_above, full):
    """split/chunk: the rows of more than split entries cut into chunks of chunk, a block
    each (None: the settings' plan); warp_above: the rows of more entries than it (and at most
    split) a warp each (None: no such rows); full: x has every entry, said to the kernel."""
    import cupy

    from bitgraph.kernels.cuda.spmv_csr import pull_plan

    spec = semiring_spec(add, mult, dtype)
    if spec is None:
        return
    dt = spec.dtype
    rng = np.random.default_rng(seed)
    inexact = dt.kind == "f" and add in ("plus", "times")
    mode = "nice" if inexact else ("wild" if rng.random() < 0.5 else "nice")
    present = rng.random((nrows, ncols)) < density
    if nrows and rng.random() < 0.3:  # a long row: many products per lane
        present[rng.integers(nrows)] = True
    rows, cols = np.nonzero(present)
    it = np.int64 if index64 else np.int32
    indptr = np.zeros(nrows + 1, it)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    values = None if iso else gen_values(rng, dt, rows.size, mode, nan=not inexact)
    A = CSR(indptr, cols.astype(it), values, nrows, ncols)
    x = gen_values(rng, dt, ncols, mode, nan=not inexact)
    share = 1.0 if full else rng.choice([0.2, 0.8, 1.0])
    xbits = _pack(rng.random(ncols) < share)
    allowed = _pack(rng.random(nrows) < 0.6) if masked and nrows else None
    cpu = registry.lookup("mxv", fmt="csr", device="cpu", variant="pull")
    gpu = registry.lookup("mxv", fmt="csr", device="cuda", variant="pull")
    want_v, want_p = cpu(A, x, xbits, allowed, spec, flipped)
    G = CSR(cupy.asarray(indptr), cupy.asarray(A.indices),
            None if iso else cupy.asarray(values), nrows, ncols)
    got_v, got_p = gpu(G, cupy.asarray(x), cupy.asarray(xbits),
                       None if allowed is None else cupy.asarray(allowed), spec, flipped,
                       lanes=lanes, x_full=full,
                       plan=None if split is None else pull_plan(
                           G.indptr, split=split, chunk=chunk, warp_above=warp_above))
    got_v, got_p = got_v.get(), got_p.get()
    assert np.array_equal(got_p, want_p)
    w, g = want_v[want_p], got_v[want_p]
    if add == "any" and mult != "pair":
        return  # ANY: a witness, any product of the row is right
    if inexact:
        np.testing.assert_allclose(g, w, rtol=1e-5 if dt == np.float32 else 1e-12,
                                   equal_nan=True)
    elif dt.kind == "f":
        assert np.array_equal(g, w, equal_nan=True)  # -0.0 == 0.0 (min/max order)
    else:
        assert np.array_equal(g, w)


@pytest.mark.parametrize("semiring,dtype", [("plus_times", np.float64), ("min_plus", np.int64),
                                            ("lor_land", np.bool_), ("plus_pair", np.int64),
                                            ("any_secondi", np.int64), ("max_first", np.float32)])
def test_mxv_hub_rows_equal_cpu(semiring, dtype):
    """A CUDA matrix whose hub rows are longer than settings.cuda.spmv_split_above, and a row
    longer than spmv_warp_above (a warp of its own): mxv (and
    vxm, over the transpose) equals the CPU's, masked and not; the rows' plan is kept with the
    matrix and reused."""
    import bitgraph as bg

    rng = np.random.default_rng(7)
    n = 3000
    r = np.r_[np.zeros(2900, np.int64), np.full(1500, 5), np.full(200, 9),
              rng.integers(0, n, 6000)]
    c = np.r_[rng.permutation(n)[:2900], rng.integers(0, n, 1500), rng.integers(0, n, 200),
              rng.integers(0, n, 6000)]
    vals = rng.integers(1, 9, r.size).astype(dtype)
    A = bg.Matrix.from_coo(r, c, vals, nrows=n, ncols=n, dup_op="max")
    G = A.to("cuda")
    xi = rng.permutation(n)[:2000]
    u = bg.Vector.from_coo(xi, rng.integers(1, 9, xi.size).astype(dtype), size=n)
    full = bg.Vector.from_coo(np.arange(n), rng.integers(1, 9, n).astype(dtype), size=n)
    mask = bg.Vector.from_coo(rng.permutation(n)[:1000], True, size=n)
    gmask = mask.to("cuda")
    masks = (({}, {}), ({"mask": mask}, {"mask": gmask}), ({"mask": ~mask}, {"mask": ~gmask}))
    same = _close if dtype == np.float64 and semiring == "plus_times" else \
        (lambda a, b: a.isequal(b))
    if semiring == "any_secondi":  # ANY: a witness, any product of the row is right
        same = _same_pattern
    with bg.settings.use(cuda={"spmv_split_above": 512, "spmv_chunk": 300, "spmv_warp_above": 40},
                         plan={"push_density": 0.0}):
        for x in (u, full):
            gx = x.to("cuda")
            for kw, gkw in masks:
                want = A.mxv(x, semiring=semiring, **kw)
                assert same(G.mxv(gx, semiring=semiring, **gkw).to("cpu"), want)
                want_t = x.vxm(A, semiring=semiring, **kw)
                assert same(gx.vxm(G, semiring=semiring, **gkw).to("cpu"), want_t)
    if semiring in ("plus_times", "min_plus", "max_first"):  # they read A's values: the pull
        plan = G._slots().spmv_cuda_plan[512, 300, 40]
        assert plan[3] == 2  # rows 0 and 5 are heavy
        assert plan[7] == 1  # row 9 (about 190 entries) a warp


def _close(a, b):
    ia, va = a.to_coo()
    ib, vb = b.to_coo()
    return np.array_equal(ia, ib) and np.allclose(va, vb, rtol=1e-12)


def _same_pattern(a, b):
    return np.array_equal(a.to_coo()[0], b.to_coo()[0])
