"""GPU time of one launch, without the host's launch overhead: the
statistics path of the BFS launchers (``STATS``) times its kernel with
``gated_ms``.

A CUDA event recorded before a launch from Python also counts the host's
work between the event and the launch (CuPy's argument handling: tens of
microseconds on a slow host, against BFS kernels of 0.2-0.4 ms). A
one-thread gate kernel (``gate.cu``) holds the stream until both events
and the launch are queued, as nvbench's blocking kernel does; the events
then measure what a C++ caller's events would, less its own launch call.
"""

from __future__ import annotations

import ctypes

import numpy as np

from bitgraph.kernels.cuda import module

__all__ = ["gated_ms", "GATE_LIMIT_NS"]

GATE_LIMIT_NS = 2_000_000_000  # the gate opens by itself after 2 s

_FLAGS = {}
SPECS = (("gate.cu", ("stream_gate",)),)  # what module() is asked for (precompile.py)


def _gate():
    """(kernel, host flag, device pointer of the flag) for this device."""
    import cupy

    dev = cupy.cuda.runtime.getDevice()
    if dev not in _FLAGS:
        rt = cupy.cuda.runtime
        host = rt.hostAlloc(4, rt.hostAllocMapped)
        mod, lowered = module(*SPECS[0])
        # with unified addressing (every 64-bit CUDA platform) a mapped
        # pinned allocation has the same address on the device
        ptr = rt.hostGetDevicePointer(host, 0) if hasattr(rt, "hostGetDevicePointer") else host
        _FLAGS[dev] = (mod.get_function(lowered["stream_gate"]),
                       ctypes.c_uint32.from_address(host), ptr)
    return _FLAGS[dev]


def gated_ms(launch):
    """Run ``launch()`` (which queues GPU work on the current stream) and
    return the GPU's milliseconds for that work, measured by events that
    a gate kernel lets the GPU reach only once all is queued.

    >>> import cupy  # doctest: +SKIP
    >>> x = cupy.zeros(1 << 20)  # doctest: +SKIP
    >>> gated_ms(lambda: x.fill(1)) < 1  # doctest: +SKIP
    True
    """
    import cupy

    fn, flag, ptr = _gate()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    flag.value = 0
    fn((1,), (1,), (np.uintp(ptr), np.uint64(GATE_LIMIT_NS)))
    start.record()
    try:
        launch()
    finally:
        stop.record()
        flag.value = 1
    stop.synchronize()
    return cupy.cuda.get_elapsed_time(start, stop)
