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
       lanes=st.sampled_from([None, 1, 2, 4, 8, 16, 32]))
def test_pull_equals_cpu(add, mult, dtype, seed, nrows, ncols, density, iso, masked,
                         flipped, index64, lanes):
    import cupy

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
    xbits = _pack(rng.random(ncols) < rng.choice([0.2, 0.8, 1.0]))
    allowed = _pack(rng.random(nrows) < 0.6) if masked and nrows else None
    cpu = registry.lookup("mxv", fmt="csr", device="cpu", variant="pull")
    gpu = registry.lookup("mxv", fmt="csr", device="cuda", variant="pull")
    want_v, want_p = cpu(A, x, xbits, allowed, spec, flipped)
    G = CSR(cupy.asarray(indptr), cupy.asarray(A.indices),
            None if iso else cupy.asarray(values), nrows, ncols)
    got_v, got_p = gpu(G, cupy.asarray(x), cupy.asarray(xbits),
                       None if allowed is None else cupy.asarray(allowed), spec, flipped,
                       lanes=lanes)
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
