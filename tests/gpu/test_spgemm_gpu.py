"""CUDA mxm on CSR (kernels/cuda/spgemm_csr.cu): masked dot products and
Gustavson by expand-sort-compress equal the CPU kernels bit for bit (both
fold each C(i,j) in ascending k) on random matrices with hub rows and
columns, masks and complemented masks, every semiring family and dtype,
int32 and int64 indices, and chunked expansions (rows cut between chunks)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
from values import gen_values, semiring_spec

pytestmark = pytest.mark.gpu

MONOIDS = ["plus", "times", "min", "max", "any", "lor", "land", "lxor", "eq"]
MULTS = ["times", "plus", "first", "second", "pair", "min", "max", "minus", "div",
         "land", "lor", "lxor", "firsti", "firstj", "secondi", "secondj"]
DTYPES = registry.DTYPES




def _matrix(rng, nrows, ncols, density, dt, mode, nan, iso, hubs=True):
    present = rng.random((nrows, ncols)) < density
    if hubs and nrows and ncols:
        if rng.random() < 0.3:
            present[rng.integers(nrows)] = True  # a hub row
        if rng.random() < 0.3:
            present[:, rng.integers(ncols)] = True  # a hub column
        if rng.random() < 0.2:
            present[rng.integers(nrows)] = False  # an empty row
    rows, cols = np.nonzero(present)
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    values = None if iso else gen_values(rng, dt, rows.size, mode, nan=nan)
    return CSR(indptr, cols.astype(np.int64), values, nrows, ncols)


def _gpu(m, it):
    import cupy

    return CSR(cupy.asarray(m.indptr.astype(it)), cupy.asarray(m.indices.astype(it)),
               None if m.values is None else cupy.asarray(m.values), m.nrows, m.ncols)


def _transpose(m):
    import scipy.sparse as sp

    vals = np.ones(m.indices.size, np.int64) if m.values is None else np.arange(m.indices.size)
    S = sp.csr_array((vals, m.indices, m.indptr), shape=(m.nrows, m.ncols)).T.tocsr()
    S.sort_indices()
    values = None if m.values is None else m.values[S.data]
    return CSR(S.indptr.astype(np.int64), S.indices.astype(np.int64), values, m.ncols, m.nrows)


def _same(got, want, dt):
    """Equal bit for bit, but for NaN payloads (the CPU's and the GPU's
    default NaN differ)."""
    if dt.kind != "f":
        return np.array_equal(got, want)
    nan = np.isnan(want)
    return (np.array_equal(np.isnan(got), nan)
            and np.array_equal(got[~nan], want[~nan])
            and np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan])))


def _check(got, want, dt, it):
    g_indptr, g_indices, g_values = (a.get() for a in got)
    w_indptr, w_indices, w_values = want
    assert g_indptr.dtype == it and g_indices.dtype == it  # the CPU's rule on these inputs
    assert g_values.dtype == w_values.dtype
    assert np.array_equal(g_indptr, w_indptr)
    assert np.array_equal(g_indices, w_indices)
    assert _same(g_values, w_values, dt)


def _inputs(rng, dt, nrows, ninner, ncols, density, iso_a, iso_b, add):
    inexact = dt.kind == "f" and add in ("plus", "times")
    mode = "wild" if rng.random() < 0.5 else "nice"
    A = _matrix(rng, nrows, ninner, density, dt, mode, not inexact, iso_a)
    B = _matrix(rng, ninner, ncols, density, dt, mode, not inexact, iso_b)
    M = _matrix(rng, nrows, ncols, rng.choice([0.1, 0.4, 0.9]), np.bool_, "nice", False, True)
    return A, B, M


@settings(max_examples=350)
@given(add=st.sampled_from(MONOIDS), mult=st.sampled_from(MULTS),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1),
       nrows=st.integers(0, 60), ninner=st.integers(0, 60), ncols=st.integers(0, 60),
       density=st.sampled_from([0.0, 0.05, 0.2, 0.6]), iso_a=st.booleans(),
       iso_b=st.booleans(), index64=st.booleans())
def test_dot_equals_cpu(add, mult, dtype, seed, nrows, ninner, ncols, density, iso_a, iso_b,
                        index64):
    spec = semiring_spec(add, mult, dtype, eq_any_type=True)
    if spec is None:
        return
    dt = np.dtype(spec.dtype)
    rng = np.random.default_rng(seed)
    A, B, M = _inputs(rng, dt, nrows, ninner, ncols, density, iso_a, iso_b, add)
    BT = _transpose(B)
    it = np.dtype(np.int64 if index64 else np.int32)
    cpu = registry.lookup("mxm", fmt="csr", device="cpu", variant="dot")
    gpu = registry.lookup("mxm", fmt="csr", device="cuda", variant="dot")
    want = cpu(A, BT, M, spec, parallel=False)
    got = gpu(_gpu(A, it), _gpu(BT, it), _gpu(M, it), spec)
    _check(got, want, dt, it)


@settings(max_examples=550)
@given(add=st.sampled_from(MONOIDS), mult=st.sampled_from(MULTS),
       dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1),
       nrows=st.integers(0, 60), ninner=st.integers(0, 60), ncols=st.integers(0, 60),
       density=st.sampled_from([0.0, 0.05, 0.2, 0.6]), iso_a=st.booleans(),
       iso_b=st.booleans(), mask=st.sampled_from(["none", "mask", "complement"]),
       index64=st.booleans(), chunks=st.sampled_from([1, 1, 2, 3, 8]),
       key32=st.sampled_from([None, None, 0, 150]))
def test_gustavson_equals_cpu(add, mult, dtype, seed, nrows, ninner, ncols, density, iso_a,
                              iso_b, mask, index64, chunks, key32):
    spec = semiring_spec(add, mult, dtype, eq_any_type=True)
    if spec is None:
        return
    dt = np.dtype(spec.dtype)
    rng = np.random.default_rng(seed)
    A, B, M = _inputs(rng, dt, nrows, ninner, ncols, density, iso_a, iso_b, add)
    if mask == "none":
        M = None
    it = np.dtype(np.int64 if index64 else np.int32)
    cpu = registry.lookup("mxm", fmt="csr", device="cpu", variant="gustavson")
    gpu = registry.lookup("mxm", fmt="csr", device="cuda", variant="gustavson")
    want = cpu(A, B, M, mask == "complement", spec, parallel=False)
    limit = bg.settings.Cuda().spgemm_max_products
    if chunks > 1:  # several chunks: rows cut between chunks carry their partial rows
        flops = int(np.diff(B.indptr)[A.indices].sum())
        limit = max(1, flops // chunks)
    # key32 0: uint64 keys; 150: chunks cut every few rows for uint32 keys
    keys = {} if key32 is None else {"key32_max": key32}
    with bg.settings.use(cuda={"spgemm_max_products": limit}):
        got = gpu(_gpu(A, it), _gpu(B, it), None if M is None else _gpu(M, it),
                  mask == "complement", spec, **keys)
    _check(got, want, dt, it)


def test_shape_errors():
    import cupy

    spec = semiring_spec("plus", "times", np.float64)
    z = CSR(cupy.zeros(3, np.int32), cupy.zeros(0, np.int32), None, 2, 4)
    gus = registry.lookup("mxm", fmt="csr", device="cuda", variant="gustavson")
    dot = registry.lookup("mxm", fmt="csr", device="cuda", variant="dot")
    with pytest.raises(ValueError, match="must equal"):
        gus(z, z, None, False, spec)
    with pytest.raises(ValueError, match="do not agree"):
        dot(z, z, z, spec)
