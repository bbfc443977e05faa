"""CUDA mxv push (kernels/cuda/spmspv_csr.cu: SpMSpV, edges spread over the
threads, atomics per monoid) equals the CPU kernel on random CSR matrices,
sparse frontiers, output masks, every semiring family and dtype."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.formats.csr import CSR
from bitgraph.kernels import opcodes as oc
from bitgraph.kernels import registry
from bitgraph.ops import _semiring_spec
from bitgraph.semiring import lookup_semiring
from values import gen_values, pack as _pack, semiring_spec

pytestmark = pytest.mark.gpu

MONOIDS = ["plus", "times", "min", "max", "any", "lor", "land", "lxor", "eq"]
MULTS = ["times", "plus", "first", "second", "pair", "min", "max", "minus", "div",
         "land", "lor", "lxor", "firsti", "firstj", "secondi", "secondj"]
DTYPES = registry.DTYPES
# multiplies whose product is one operand, 1 or an index: ANY's witness is checkable
SELECTORS = (oc.FIRST, oc.SECOND, oc.PAIR, oc.ANY) + oc.POSITIONAL






def _witnesses(AT, x_indices, x_values, spec, flipped, nout):
    """For a selector multiply: candidates[i] = the set of products that
    can land on output i (ANY may return any of them)."""
    mult = oc.flipped(spec.mult) if flipped else spec.mult
    dt = np.dtype(spec.dtype)
    out = [set() for _ in range(nout)]
    for k in x_indices:
        for p in range(int(AT.indptr[k]), int(AT.indptr[k + 1])):
            i = int(AT.indices[p])
            a = dt.type(1) if AT.values is None else AT.values[p]
            x = x_values[k]
            prod = {oc.FIRST: a, oc.ANY: a, oc.SECOND: x, oc.PAIR: dt.type(1),
                    oc.FIRSTI: dt.type(i), oc.FIRSTJ: dt.type(k), oc.SECONDI: dt.type(k),
                    oc.SECONDJ: dt.type(0)}[mult]
            out[i].add(np.asarray(prod, dt).tobytes())
    return out


@settings(max_examples=750)
@given(add=st.sampled_from(MONOIDS), mult=st.sampled_from(MULTS),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1),
       n_in=st.integers(0, 120), nout=st.integers(0, 120),
       density=st.sampled_from([0.0, 0.03, 0.2, 0.7]), frontier=st.sampled_from(
           [0.0, 0.05, 0.3, 1.0]), iso=st.booleans(), masked=st.booleans(),
       flipped=st.booleans(), index64=st.booleans())
def test_push_equals_cpu(add, mult, dtype, seed, n_in, nout, density, frontier, iso, masked,
                         flipped, index64):
    import cupy

    spec = semiring_spec(add, mult, dtype)
    if spec is None:
        return
    dt = np.dtype(spec.dtype)
    rng = np.random.default_rng(seed)
    inexact = dt.kind == "f" and add in ("plus", "times")
    mode = "nice" if inexact else ("wild" if rng.random() < 0.5 else "nice")
    present = rng.random((n_in, nout)) < density
    if n_in and nout and rng.random() < 0.4:  # a hub: one frontier row with every output
        present[rng.integers(n_in)] = True
    if n_in and nout and rng.random() < 0.3:  # a popular output: contention on one t[i]
        present[:, rng.integers(nout)] = True
    rows, cols = np.nonzero(present)
    it = np.int64 if index64 else np.int32
    indptr = np.zeros(n_in + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n_in), out=indptr[1:])
    values = None if iso else gen_values(rng, dt, rows.size, mode, nan=not inexact)
    AT = CSR(indptr, cols.astype(np.int64), values, n_in, nout)
    x_indices = np.flatnonzero(rng.random(n_in) < frontier).astype(np.int64)
    x_values = gen_values(rng, dt, n_in, mode, nan=not inexact)
    allowed = _pack(rng.random(nout) < 0.6) if masked and nout else None
    cpu = registry.lookup("mxv", fmt="csr", device="cpu", variant="push")
    gpu = registry.lookup("mxv", fmt="csr", device="cuda", variant="push")
    want_v, want_p = cpu(AT, x_indices, x_values, allowed, spec, flipped, nout)
    G = CSR(cupy.asarray(indptr.astype(it)), cupy.asarray(cols.astype(it)),
            None if iso else cupy.asarray(values), n_in, nout)
    got_v, got_p = gpu(G, cupy.asarray(x_indices), cupy.asarray(x_values),
                       None if allowed is None else cupy.asarray(allowed), spec, flipped, nout)
    assert got_v.dtype == want_v.dtype and got_v.shape == want_v.shape
    got_v, got_p = got_v.get(), got_p.get()
    assert np.array_equal(got_p, want_p)
    # absent entries hold the identity, as on the CPU
    assert np.array_equal(got_v[~got_p], want_v[~want_p], equal_nan=True)
    w, g = want_v[want_p], got_v[want_p]
    if add == "any":
        m = oc.flipped(spec.mult) if flipped else spec.mult
        if m in SELECTORS:
            cands = _witnesses(AT, x_indices, x_values, spec, flipped, nout)
            for i in np.flatnonzero(want_p):
                assert np.asarray(got_v[i], dt).tobytes() in cands[i], i
        return
    if inexact:
        np.testing.assert_allclose(g, w, rtol=1e-5 if dt == np.float32 else 1e-12,
                                   equal_nan=True)
    elif dt.kind == "f":
        assert np.array_equal(g, w, equal_nan=True)  # -0.0 == 0.0 (min/max order)
    else:
        assert np.array_equal(g, w)


@settings(max_examples=40)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3000))
def test_push_large_frontier(seed, n):
    """Many edges per thread (the grid-stride loop's search carries over)
    and heavy contention: plus_times on int64 and min_plus on float64 must
    be exact; lor_land on bool."""
    import cupy

    rng = np.random.default_rng(seed)
    nout = int(rng.integers(1, 64))
    deg = np.minimum(rng.integers(0, 40, n), nout)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=indptr[1:])
    cols = np.concatenate([np.sort(rng.choice(nout, int(d), replace=False)) for d in deg])
    x_indices = np.flatnonzero(rng.random(n) < 0.7).astype(np.int64)
    cpu = registry.lookup("mxv", fmt="csr", device="cpu", variant="push")
    gpu = registry.lookup("mxv", fmt="csr", device="cuda", variant="push")
    for name, dt in (("plus_times", np.int64), ("min_plus", np.float64),
                     ("lor_land", np.bool_), ("plus_times", np.int8)):
        spec = _semiring_spec(lookup_semiring(name), np.dtype(dt))[0]
        vals = gen_values(rng, spec.dtype, cols.size, "wild")
        xv = gen_values(rng, spec.dtype, n, "wild")
        AT = CSR(indptr, cols.astype(np.int64), vals, n, nout)
        want_v, want_p = cpu(AT, x_indices, xv, None, spec, False, nout)
        G = CSR(cupy.asarray(indptr.astype(np.int32)), cupy.asarray(cols.astype(np.int32)),
                cupy.asarray(vals), n, nout)
        got_v, got_p = gpu(G, x_indices, cupy.asarray(xv), None, spec, False, nout)
        assert np.array_equal(got_p.get(), want_p)
        assert np.array_equal(got_v.get(), want_v, equal_nan=True), name


def test_push_empty_and_checks():
    import cupy

    gpu = registry.lookup("mxv", fmt="csr", device="cuda", variant="push")
    spec = _semiring_spec(lookup_semiring("min_plus"), np.dtype(np.float32))[0]
    AT = CSR(cupy.zeros(4, np.int32), cupy.zeros(0, np.int32), None, 3, 5)
    v, p = gpu(AT, np.array([0, 2]), cupy.ones(3, np.float32), None, spec, False, 5)
    assert v.get().tolist() == [np.inf] * 5 and not p.get().any()
    with pytest.raises(ValueError, match="allowed"):
        gpu(AT, np.array([0]), cupy.ones(3, np.float32), cupy.zeros(0, np.uint32), spec,
            False, 5)
