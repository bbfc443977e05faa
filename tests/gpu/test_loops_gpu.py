"""CUDA graph WHILE loops (``kernels/cuda/loops.py``) on the GPU: a body of
launches runs pass after pass until a kernel sets the stop flag, with no
host round trip; the loop is launched again as often as asked; a body runs
at least once; a failed body's capture leaves no stream capturing."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")

_STEP = r"""
extern "C" __global__ void step(int* count, int* stop, int limit, int* trace) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    const int c = ++*count;
    trace[c - 1] = c;
    *stop = c >= limit ? 1 : 0;
  }
}
extern "C" __global__ void bump(int* other) {
  if (threadIdx.x == 0 && blockIdx.x == 0) ++*other;
}
"""


@pytest.fixture(scope="module")
def kernels():
    from bitgraph.kernels.cuda import loops

    if not loops.available():
        pytest.skip("this driver has no CUDA graph WHILE nodes (CUDA 12.4+)")
    mod = cupy.RawModule(code=_STEP)
    return mod.get_function("step").kernel, mod.get_function("bump").kernel


@pytest.mark.parametrize("limit", [1, 2, 37, 1000])
def test_loop_runs_until_the_flag(kernels, limit):
    from bitgraph.kernels.cuda import PackedLaunch, loops

    step, bump = kernels
    count, stop, other = (cupy.zeros(1, np.int32) for _ in range(3))
    trace = cupy.zeros(1000, np.int32)
    steps = PackedLaunch(step, 1, 32, (count, stop, np.int32(limit), trace))
    bumps = PackedLaunch(bump, 1, 32, (other,))
    kept = {}

    def body(sp):
        bumps.launch(sp)
        steps.launch(sp)

    loop = loops.while_loop(kept, ("t", limit), body, stop)
    assert loops.while_loop(kept, ("t", limit), body, stop) is loop  # kept, not rebuilt
    stream = cupy.cuda.get_current_stream()
    for again in range(3):
        count[...] = 0
        loop.launch(stream.ptr)
        stream.synchronize()
        assert int(count.get()[0]) == limit and int(other.get()[0]) == (again + 1) * limit
        assert trace.get()[:limit].tolist() == list(range(1, limit + 1))


def test_body_runs_once_when_the_flag_is_set(kernels):
    """A pass runs before the condition is read (the node's default 1): a
    body whose first pass sets the flag runs once."""
    from bitgraph.kernels.cuda import PackedLaunch, loops

    step, _ = kernels
    count, stop = cupy.zeros(1, np.int32), cupy.ones(1, np.int32)
    trace = cupy.zeros(4, np.int32)
    steps = PackedLaunch(step, 1, 32, (count, stop, np.int32(0), trace))
    loop = loops.while_loop({}, ("once",), lambda sp: steps.launch(sp), stop)
    loop.launch(cupy.cuda.get_current_stream().ptr)
    assert int(count.get()[0]) == 1


def test_failed_body_ends_its_capture(kernels):
    from bitgraph.kernels.cuda import loops

    stop = cupy.zeros(1, np.int32)

    def body(sp):
        raise RuntimeError("a launcher's error")

    kept = {}
    with pytest.raises(RuntimeError, match="a launcher's error"):
        loops.while_loop(kept, ("bad",), body, stop)
    assert not kept
    # the current stream is not capturing: ordinary work goes on
    assert int((cupy.arange(5) * 2).sum()) == 20
