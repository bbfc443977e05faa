"""BVSS built on the GPU (kernels/cuda/convert_bvss.py: our kernels around
CuPy's sort) is identical to the CPU build (kernels/cpu/convert_bvss.py) for
every sigma, int32 and int64 indices, empty and full shapes; its update
divergence (the array code on CuPy, and our kernel bfs runs) equals the
CPU's; and the format functions (to_csr, stats, build with a reordering)
accept a GPU BVSS."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph.formats import bvss
from bitgraph.formats.csr import CSR
from bitgraph.kernels.cpu.convert_bvss import update_divergence
from bitgraph.formats.bvss import update_divergence as update_divergence_xp
from bitgraph.kernels import convert
from bitgraph.kernels.cuda.convert_bvss import divergence

pytestmark = pytest.mark.gpu


def _csr(rng, nrows, ncols, density, it):
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols and rng.random() < 0.3:
        present[rng.integers(nrows)] = True  # a full row: several VSSs per slice set
    rows, cols = np.nonzero(present)
    indptr = np.zeros(nrows + 1, it)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return CSR(indptr, cols.astype(it), None, nrows, ncols)


def _gpu(A):
    import cupy

    return CSR(cupy.asarray(A.indptr), cupy.asarray(A.indices), None, A.nrows, A.ncols)


@settings(max_examples=150, deadline=None)
@given(sigma=st.sampled_from(bvss.SIGMAS), seed=st.integers(0, 2**32 - 1),
       nrows=st.integers(0, 300), ncols=st.integers(0, 300),
       density=st.sampled_from([0.0, 0.01, 0.1, 1.0]), index64=st.booleans())
def test_from_csr_equals_cpu(sigma, seed, nrows, ncols, density, index64):
    import cupy

    rng = np.random.default_rng(seed)
    A = _csr(rng, nrows, ncols, density, np.int64 if index64 else np.int32)
    want = convert.bvss(A, sigma)
    got = convert.bvss(_gpu(A), sigma)
    for name in ("real_ptrs", "virtual_to_real", "row_ids", "masks"):
        w, g = getattr(want, name), getattr(got, name)
        assert isinstance(g, cupy.ndarray), name
        assert w.dtype == g.dtype and w.shape == g.shape, name
        np.testing.assert_array_equal(w, cupy.asnumpy(g), err_msg=name)
    assert update_divergence_xp(got.row_ids, cupy) == pytest.approx(
        update_divergence(want.row_ids, sigma), rel=1e-9, abs=1e-9)
    assert divergence(got.row_ids) == pytest.approx(update_divergence(want.row_ids, sigma),
                                                    rel=1e-9, abs=1e-9)
    back = convert.bvss_to_csr(got)
    assert isinstance(back.indptr, cupy.ndarray)
    np.testing.assert_array_equal(cupy.asnumpy(back.indptr), A.indptr)
    np.testing.assert_array_equal(cupy.asnumpy(back.indices), A.indices)
    assert bvss.stats(got) == bvss.stats(want)


def test_build_with_a_reordering_on_the_gpu():
    import cupy

    import bitgraph as bg

    A = bg.io.generators.from_spec("grid:30x30:0.05")
    want = convert.bvss(A._csr(), 8, "rcm")
    got = convert.bvss(_gpu(A._csr()), 8, "rcm")
    np.testing.assert_array_equal(want.perm, got.perm)
    np.testing.assert_array_equal(want.masks, cupy.asnumpy(got.masks))
    np.testing.assert_array_equal(want.row_ids, cupy.asnumpy(got.row_ids))
