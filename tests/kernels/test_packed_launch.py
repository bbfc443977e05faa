"""The host side of a prepared launch, on the CPU: ``PackedLaunch``'s
parameter slots hold what CuPy's launch would pass (the driver copies each
parameter's own size from its slot), and ``bfs_fused``'s parameter list is
the kernel's (count and order, read from ``bfs_fused.cu``)."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from bitgraph.kernels.cuda import PackedLaunch, arg_word, source_text


class _Mem:
    def __init__(self, ptr):
        self.ptr = ptr


class _DeviceArray:
    """What the packer reads of a CuPy array: ``.data.ptr``."""

    def __init__(self, ptr):
        self.data = _Mem(ptr)


def _slot(run, i, ctype):
    # what the driver reads for parameter i: kernelParams[i] -> the value
    address = ctypes.c_uint64.from_address(run.params + 8 * i).value
    return ctype.from_address(address).value


def test_slots_hold_what_the_kernel_reads():
    args = (_DeviceArray(0x7F00_0000_1000), None, np.int64(-5), np.uint64(2**64 - 1),
            np.int32(-1), np.int32(7), np.uintp(0), np.float32(1.5), np.float64(-2.25), 12)
    run = PackedLaunch(object(), 132, 1024, args, smem=4096, cooperative=True)
    assert (run.grid, run.block, run.smem, run.cooperative) == (132, 1024, 4096, True)
    assert _slot(run, 0, ctypes.c_uint64) == 0x7F00_0000_1000
    assert _slot(run, 1, ctypes.c_uint64) == 0
    assert _slot(run, 2, ctypes.c_int64) == -5
    assert _slot(run, 3, ctypes.c_uint64) == 2**64 - 1
    assert _slot(run, 4, ctypes.c_int32) == -1
    assert _slot(run, 5, ctypes.c_int32) == 7
    assert _slot(run, 6, ctypes.c_uint64) == 0
    assert _slot(run, 7, ctypes.c_float) == 1.5
    assert _slot(run, 8, ctypes.c_double) == -2.25
    assert _slot(run, 9, ctypes.c_int64) == 12
    run.set(0, 0x7F00_0000_2000)
    run.set(2, arg_word(np.int64(3)))
    assert _slot(run, 0, ctypes.c_uint64) == 0x7F00_0000_2000
    assert _slot(run, 2, ctypes.c_int64) == 3
    assert _slot(run, 4, ctypes.c_int32) == -1  # the others unchanged
    run.put(1, _DeviceArray(0x7F00_0000_3000))  # put: an argument as the constructor takes it
    run.put(7, np.float32(-0.5))
    run.put(5, None)
    assert _slot(run, 1, ctypes.c_uint64) == 0x7F00_0000_3000
    assert _slot(run, 7, ctypes.c_float) == -0.5
    assert _slot(run, 5, ctypes.c_uint64) == 0
    with pytest.raises(TypeError, match="launch argument"):
        run.put(2, True)


@pytest.mark.parametrize("bad", [True, np.bool_(False), "x", np.zeros(2), np.complex128(1)])
def test_arguments_without_a_c_size_are_refused(bad):
    with pytest.raises(TypeError, match="launch argument"):
        arg_word(bad)


def test_bfs_fused_parameters_are_the_kernels():
    """``bfs_fused.py``'s parameter names, in order, are ``bfs_fused.cu``'s
    kernel parameters: the slots a Prepared sets per call (levels,
    visited, the scratch, source) are the kernel's."""
    from bitgraph.kernels.cuda import bfs_fused

    text = source_text("bfs_fused.cu")
    sig = re.search(r"__launch_bounds__\(THREADS\) bfs_fused\((.*?)\)\s*\{", text, re.S).group(1)
    names = [re.search(r"(\w+)\s*$", p.strip()).group(1) for p in sig.split(",")]
    assert tuple(names) == bfs_fused._PARAMS
    assert bfs_fused._PARAMS[bfs_fused._P_WORK:bfs_fused._P_WORK + 6] == (
        "front", "queue", "ctrl", "bar", "trace", "lists")
    # the instantiations list as many parameters
    inst = re.search(r"template __global__ void bfs_fused<F, I>\((.*?)\);", text, re.S).group(1)
    assert len(inst.split(",")) == len(names)
