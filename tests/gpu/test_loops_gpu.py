"""CUDA graphs through the driver on the GPU: WHILE loops
(``kernels/cuda/loops.py``: a body of launches runs pass after pass until a
kernel sets the stop flag, with no host round trip; the loop is launched
again as often as asked; a body runs at least once; a failed body's capture
leaves no stream capturing) and ``PackedLaunch.replay`` (a one-node graph
whose node takes the slots' values at each replay, queued ones keeping
theirs)."""

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
extern "C" __global__ void put(int* out, long long i, int v) {
  if (threadIdx.x == 0 && blockIdx.x == 0) out[i] = out[i] * 7 + v;
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


@pytest.mark.parametrize("cooperative", [False, True])
def test_replay_takes_the_slots_of_each_call(cooperative):
    """Replays queued back to back, the slots changed between them: each
    replay writes with its own values, in order (out[i] = out[i] * 7 + v),
    the same as plain launches."""
    from bitgraph.kernels.cuda import PackedLaunch

    put = cupy.RawModule(code=_STEP).get_function("put").kernel
    outs = [cupy.zeros(8, np.int32) for _ in range(2)]
    stream = cupy.cuda.get_current_stream().ptr
    rng = np.random.default_rng(1)
    calls = [(int(rng.integers(0, 8)), int(rng.integers(1, 6))) for _ in range(200)]
    for out, how in zip(outs, ("launch", "replay")):
        run = PackedLaunch(put, 1, 32, (out, np.int64(0), np.int32(0)), cooperative=cooperative)
        for i, v in calls:
            run.set(1, i)
            run.set(2, v)
            getattr(run, how)(stream)
    want = np.zeros(8, np.int64)
    for i, v in calls:
        want[i] = (want[i] * 7 + v) % 2**32
    want = want.astype(np.uint32).view(np.int32)
    assert np.array_equal(outs[0].get(), want) and np.array_equal(outs[1].get(), want)
