"""CUDA segment reductions (kernels/cuda/reduce.cu) equal the CPU kernel for
every monoid and dtype: many short segments, empty ones, hub segments split
into units and reduced again, whole vectors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.kernels import registry
from bitgraph.semiring import lookup_monoid
from values import gen_values

pytestmark = pytest.mark.gpu

MONOIDS = ["plus", "times", "min", "max", "any", "lor", "land", "lxor", "eq"]
DTYPES = registry.DTYPES


def _values(rng, dt, n, code_name):
    if dt.kind == "f" and code_name == "times":
        # +-1 but for < 30 powers of two: products exact in any order, no
        # partial product over- or underflows
        v = rng.choice([1.0, -1.0], n)
        v[rng.integers(0, max(n, 1), rng.integers(0, 30))[:n]] = rng.choice([2.0, 0.5, -4.0])
        return v.astype(dt)
    if dt.kind == "f" and code_name == "plus":
        return gen_values(rng, dt, n, "nice")  # small dyadic values: sums exact in any order
    return gen_values(rng, dt, n, "wild" if rng.random() < 0.5 else "nice", nan=True)


def _lengths(rng, nseg, shape):
    if shape == "short":
        lens = rng.integers(0, 6, nseg)
    elif shape == "mixed":
        lens = rng.geometric(0.05, nseg) - 1
    else:  # skewed: short rows and a few hubs of up to 5000 values
        lens = rng.integers(0, 4, nseg)
        if nseg:
            hubs = rng.integers(0, nseg, rng.integers(1, 4))
            lens[hubs] = rng.integers(500, 5000, hubs.size)
    return lens


@settings(max_examples=600)
@given(monoid=st.sampled_from(MONOIDS), dtype=st.sampled_from(DTYPES),
       seed=st.integers(0, 2**32 - 1), nseg=st.integers(0, 120),
       shape=st.sampled_from(["short", "mixed", "skewed"]), index64=st.booleans(),
       where=st.sampled_from(["numpy", "cupy", "cupy-device-units"]))
def test_segments_equal_cpu(monoid, dtype, seed, nseg, shape, index64, where):
    import cupy

    m = lookup_monoid(monoid)
    dt = np.dtype(m.types(np.dtype(dtype))[0])
    rng = np.random.default_rng(seed)
    lens = _lengths(rng, nseg, shape)
    it = np.int64 if index64 else np.int32
    indptr = np.zeros(nseg + 1, it)
    np.cumsum(lens, out=indptr[1:])
    values = _values(rng, dt, int(indptr[-1]), monoid)
    identity, terminal = m.identity(dt), m.terminal(dt)
    cpu = registry.lookup("reduce", fmt="csr", device="cpu", variant="segments")
    gpu = registry.lookup("reduce", fmt="csr", device="cuda", variant="segments")
    want = cpu(indptr, values, m.code, identity, terminal, parallel=False)
    # cupy-device-units: units counted on the GPU, as for many segments
    host_segments = -1 if where == "cupy-device-units" else bg.settings.Cuda().reduce_host_segments
    with bg.settings.use(cuda={"reduce_host_segments": host_segments}):
        got = gpu(indptr if where == "numpy" else cupy.asarray(indptr), cupy.asarray(values),
                  m.code, identity, terminal)
    assert got.dtype == want.dtype and got.shape == want.shape
    got = got.get()
    if dt.kind == "f":
        assert np.array_equal(got, want, equal_nan=True)  # -0.0 == 0.0 (min/max order)
    else:
        assert np.array_equal(got, want)


@settings(max_examples=150)
@given(monoid=st.sampled_from(MONOIDS), dtype=st.sampled_from(DTYPES),
       seed=st.integers(0, 2**32 - 1), n=st.integers(0, 70_000), no_terminal=st.booleans(),
       numpy_indptr=st.booleans())
def test_whole_vector(monoid, dtype, seed, n, no_terminal, numpy_indptr):
    """One segment (reduce to a scalar): units over the whole GPU, reduced
    again until one remains; without the terminal's early exit too."""
    import cupy

    m = lookup_monoid(monoid)
    dt = np.dtype(m.types(np.dtype(dtype))[0])
    rng = np.random.default_rng(seed)
    values = _values(rng, dt, n, monoid)
    identity = m.identity(dt)
    terminal = None if no_terminal else m.terminal(dt)
    indptr = np.array([0, n], np.int64)
    cpu = registry.lookup("reduce", fmt="csr", device="cpu", variant="segments")
    gpu = registry.lookup("reduce", fmt="csr", device="cuda", variant="segments")
    want = cpu(indptr, values, m.code, identity, terminal, parallel=False)
    got = gpu(indptr if numpy_indptr else cupy.asarray(indptr), cupy.asarray(values), m.code,
              identity, terminal).get()
    if dt.kind == "f" and monoid == "plus":
        np.testing.assert_allclose(got, want, rtol=1e-5 if dt == np.float32 else 1e-12)
    elif dt.kind == "f":
        assert np.array_equal(got, want, equal_nan=True)
    else:
        assert np.array_equal(got, want)


def test_empty():
    import cupy

    gpu = registry.lookup("reduce", fmt="csr", device="cuda", variant="segments")
    m = lookup_monoid("min")
    out = gpu(cupy.zeros(4, np.int32), cupy.zeros(0, np.int16), m.code,
              m.identity(np.dtype(np.int16)), m.terminal(np.dtype(np.int16)))
    assert out.dtype == np.int16 and out.get().tolist() == [32767] * 3
    assert gpu(np.zeros(1, np.int64), cupy.zeros(0, np.float32), m.code, np.inf).size == 0
