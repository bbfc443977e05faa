"""B2SR built on the GPU (kernels/cuda/convert_b2sr.cu) is identical to the
CPU build (kernels/cpu/convert_b2sr.py): same arrays, dtypes and order, for
every tile size, int32 and int64 CSR indices, empty and full shapes; and
the GPU B2SR -> CSR equals the CPU one (a round trip to the input)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.formats.b2sr import B2SR
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry

pytestmark = pytest.mark.gpu


def _kernel(variant, device):
    return registry.lookup("convert", fmt="b2sr", device=device, variant=variant)


def _csr(rng, nrows, ncols, density, it):
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols and rng.random() < 0.3:
        present[rng.integers(nrows)] = True
    rows, cols = np.nonzero(present)
    indptr = np.zeros(nrows + 1, it)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return CSR(indptr, cols.astype(it), None, nrows, ncols)


@settings(max_examples=150)
@given(t=st.sampled_from([4, 8, 16, 32]), seed=st.integers(0, 2**32 - 1),
       nrows=st.integers(0, 150), ncols=st.integers(0, 150),
       density=st.sampled_from([0.0, 0.03, 0.2, 1.0]), index64=st.booleans(),
       apart=st.booleans())
def test_from_csr_and_back_equal_cpu(t, seed, nrows, ncols, density, index64, apart):
    import cupy

    rng = np.random.default_rng(seed)
    A = _csr(rng, nrows, ncols, density, np.int64 if index64 else np.int32)
    want = _kernel("from_csr", "cpu")(A, t)
    G = CSR(cupy.asarray(A.indptr), cupy.asarray(A.indices), None, nrows, ncols)
    # pack_bits 0 forces the path that sorts keys and in-tile bits apart (huge matrices)
    got = _kernel("from_csr", "cuda")(G, t, pack_bits=0 if apart else 64)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert np.array_equal(g.get(), w)
    B = B2SR(*want, t, nrows, ncols)
    GB = B2SR(*got, t, nrows, ncols)
    want_csr = _kernel("to_csr", "cpu")(B)
    got_csr = _kernel("to_csr", "cuda")(GB)
    for name in ("indptr", "indices"):
        g, w = getattr(got_csr, name), getattr(want_csr, name)
        assert g.dtype == w.dtype
        assert np.array_equal(g.get(), w)
        assert np.array_equal(g.get(), getattr(A, name))  # the round trip
    assert got_csr.values is None and (got_csr.nrows, got_csr.ncols) == (nrows, ncols)


@pytest.mark.parametrize("t", [4, 8, 16, 32])
def test_generated_graph_equals_cpu(t):
    import cupy

    from bitgraph.io.generators import from_spec

    A = from_spec("kron:12")._csr()
    want = _kernel("from_csr", "cpu")(A, t)
    G = CSR(cupy.asarray(A.indptr), cupy.asarray(A.indices), None, A.nrows, A.ncols)
    got = _kernel("from_csr", "cuda")(G, t)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g.get(), w)
    back = _kernel("to_csr", "cuda")(B2SR(*got, t, A.nrows, A.ncols))
    assert np.array_equal(back.indptr.get(), A.indptr)
    assert np.array_equal(back.indices.get(), A.indices)
