"""CUDA elementwise kernels equal the CPU ones, bit for bit, for every op
code and dtype (the scalar semantics every CUDA kernel shares)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bitgraph import plan
from bitgraph.kernels import opcodes
from bitgraph.kernels.registry import DTYPES
from values import gen_values

pytestmark = pytest.mark.gpu

BINARY = [c for c in range(opcodes.SECONDJ + 1) if c not in opcodes.POSITIONAL]
UNARY = list(range(opcodes.IDENTITY, opcodes.BNOT + 1))


def same(gpu, cpu):
    """Equal, floats by their bits (-0.0 is not 0.0), any NaN equal to any NaN."""
    assert gpu.dtype == cpu.dtype
    if cpu.dtype.kind == "f":
        nan = np.isnan(cpu)
        assert np.array_equal(np.isnan(gpu), nan)
        u = np.dtype(f"u{cpu.dtype.itemsize}")
        assert np.array_equal(gpu[~nan].view(u), cpu[~nan].view(u))
    else:
        assert np.array_equal(gpu, cpu)


@settings(max_examples=1500)
@given(dtype=st.sampled_from(DTYPES), code=st.sampled_from(BINARY),
       seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300),
       mode=st.sampled_from(["nice", "wild", "wild"]))
def test_ewise_equals_cpu(dtype, code, seed, n, mode):
    import cupy

    rng = np.random.default_rng(seed)
    x = gen_values(rng, dtype, n, mode, nan=True)
    y = gen_values(rng, dtype, n, mode, nan=True)
    same(plan.ewise(code, cupy.asarray(x), cupy.asarray(y)).get(), plan.ewise(code, x, y))


@settings(max_examples=600)
@given(dtype=st.sampled_from(DTYPES), code=st.sampled_from(UNARY),
       seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300),
       mode=st.sampled_from(["nice", "wild", "wild"]))
def test_unary_equals_cpu(dtype, code, seed, n, mode):
    import cupy

    if code == opcodes.BNOT and np.dtype(dtype).kind not in "iu":
        with pytest.raises(ValueError, match="BNOT needs an integer dtype"):
            plan.unary(code, cupy.zeros(1, dtype))
        return
    rng = np.random.default_rng(seed)
    x = gen_values(rng, dtype, n, mode, nan=True)
    same(plan.unary(code, cupy.asarray(x)).get(), plan.unary(code, x))


def test_large_grid_stride():
    """More items than one grid covers: the grid-stride loop reaches all."""
    import cupy

    n = 50_000_000
    x = cupy.arange(n, dtype=cupy.int64)
    z = plan.ewise(opcodes.PLUS, x, x)
    assert int(z[-1]) == 2 * (n - 1) and bool((z[::999_983] == 2 * x[::999_983]).all())
