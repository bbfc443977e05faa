"""CUDA graph WHILE loops: a body of launches repeated on the GPU until a
flag on the device says stop, with no host round trip between passes (the
host launches one graph and reads its result once, at the end).

CuPy 14 has no conditional graph nodes, so the graph is built through the
driver API (ctypes on libcuda; CUDA 12.4 or later: a conditional handle, a
WHILE node, and the node's body captured from a stream): the body is what
the launcher queues anyway (``PackedLaunch`` launches, memsets), captured
on a new stream into the node's body graph, and it ends with
``loop_until`` (``loops.cu``), one thread that sets the node's condition to
``*stop == 0``. The body runs at least once (the condition is 1 at each
launch of the graph); a body whose kernels return at once when ``stop`` is
set may run past the end harmlessly (PageRank: two iterations a pass).

Measured (H100, driver 13, CuPy 14.2): a loop of 37 passes of two tiny
kernels took 215 us of GPU time and 25 us of host time, against 517 / 525
us for the 74 plain launches.
"""

from __future__ import annotations

import ctypes
import functools
import sys

import numpy as np

__all__ = ["available", "while_loop", "WhileLoop"]

SPECS = (("loops.cu", ("loop_until",)),)  # what module() is asked for (precompile.py)

_NEEDS = 12040  # cuDriverGetVersion of CUDA 12.4: WHILE nodes, cuStreamBeginCaptureToGraph
_NODE_CONDITIONAL, _COND_WHILE, _ASSIGN_DEFAULT, _CAPTURE_RELAXED = 13, 1, 1, 2


class _Conditional(ctypes.Structure):
    # CUDA_CONDITIONAL_NODE_PARAMS (cuda.h 12.4+)
    _fields_ = [("handle", ctypes.c_uint64), ("type", ctypes.c_int), ("size", ctypes.c_uint),
                ("phGraph_out", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class _NodeParams(ctypes.Structure):
    # CUgraphNodeParams: the node type, 12 reserved bytes, a 232-byte union, 8 reserved bytes
    _fields_ = [("type", ctypes.c_int), ("reserved0", ctypes.c_int * 3),
                ("conditional", _Conditional), ("pad", ctypes.c_byte * (232 - 32 + 8))]


assert ctypes.sizeof(_Conditional) == 32 and ctypes.sizeof(_NodeParams) == 256


@functools.lru_cache(maxsize=None)
def _driver():
    """libcuda (ctypes), or None where it cannot be opened."""
    try:
        return ctypes.CDLL("nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1")
    except OSError:
        return None


def available() -> bool:
    """Whether this process's CUDA driver runs WHILE loops (CUDA 12.4 or
    later, with the driver entry points ``while_loop`` calls).

    >>> from bitgraph.kernels.cuda import loops
    >>> loops.available()  # doctest: +SKIP
    True
    """
    import cupy

    return _available(cupy.cuda.runtime.driverGetVersion())


@functools.lru_cache(maxsize=None)
def _available(version: int) -> bool:
    cu = _driver()
    return version >= _NEEDS and cu is not None and all(
        hasattr(cu, f) for f in ("cuGraphConditionalHandleCreate", "cuGraphAddNode_v2",
                                 "cuStreamBeginCaptureToGraph", "cuGraphInstantiateWithFlags"))


def _check(result: int, what: str) -> None:
    if result != 0:
        from bitgraph.errors import DeviceError

        name = ctypes.c_char_p()
        _driver().cuGetErrorName(result, ctypes.byref(name))
        raise DeviceError(f"CUDA graph WHILE loop: {what} failed:"
                          f" {(name.value or b'?').decode()} ({result})")


class WhileLoop:
    """An instantiated CUDA graph of one WHILE node (``while_loop``).
    ``launch(stream_ptr)`` queues the whole loop on that stream."""

    __slots__ = ("_graph", "_exec", "_cu")

    def __init__(self, body, stop):
        import cupy

        from bitgraph.kernels.cuda import PackedLaunch, module

        cu = _driver()
        self._cu, self._graph, self._exec = cu, ctypes.c_void_p(), ctypes.c_void_p()
        mod, lowered = module(*SPECS[0])
        until = mod.get_function(lowered["loop_until"])
        ctx = ctypes.c_void_p()
        _check(cu.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
        _check(cu.cuGraphCreate(ctypes.byref(self._graph), ctypes.c_uint(0)), "cuGraphCreate")
        handle = ctypes.c_uint64()
        _check(cu.cuGraphConditionalHandleCreate(ctypes.byref(handle), self._graph, ctx,
                                                 ctypes.c_uint(1), ctypes.c_uint(_ASSIGN_DEFAULT)),
               "cuGraphConditionalHandleCreate")
        p = _NodeParams()
        p.type = _NODE_CONDITIONAL
        p.conditional.handle, p.conditional.type = handle.value, _COND_WHILE
        p.conditional.size, p.conditional.ctx = 1, ctx
        node = ctypes.c_void_p()
        _check(cu.cuGraphAddNode_v2(ctypes.byref(node), self._graph, None, None,
                                    ctypes.c_size_t(0), ctypes.byref(p)), "cuGraphAddNode")
        body_graph = ctypes.cast(p.conditional.phGraph_out, ctypes.POINTER(ctypes.c_void_p))[0]
        stream = cupy.cuda.Stream(non_blocking=True)
        _check(cu.cuStreamBeginCaptureToGraph(ctypes.c_void_p(stream.ptr),
                                              ctypes.c_void_p(body_graph), None, None,
                                              ctypes.c_size_t(0), ctypes.c_int(_CAPTURE_RELAXED)),
               "cuStreamBeginCaptureToGraph")
        try:
            body(stream.ptr)
            PackedLaunch(until, 1, 32, (np.uint64(handle.value), stop)).launch(stream.ptr)
        finally:
            captured = ctypes.c_void_p()
            ended = cu.cuStreamEndCapture(ctypes.c_void_p(stream.ptr), ctypes.byref(captured))
        _check(ended, "cuStreamEndCapture")
        _check(cu.cuGraphInstantiateWithFlags(ctypes.byref(self._exec), self._graph,
                                              ctypes.c_uint64(0)), "cuGraphInstantiate")

    def launch(self, stream_ptr: int) -> None:
        """Queue the loop on the stream ``stream_ptr``."""
        _check(self._cu.cuGraphLaunch(self._exec, ctypes.c_void_p(stream_ptr)), "cuGraphLaunch")

    def __del__(self):
        cu = getattr(self, "_cu", None)
        if cu is not None:
            if self._exec:
                cu.cuGraphExecDestroy(self._exec)
            if self._graph:
                cu.cuGraphDestroy(self._graph)


def while_loop(kept: dict, key: tuple, body, stop) -> WhileLoop:
    """The WHILE loop of ``body(stream_ptr)``'s launches until ``stop`` (an
    int32 CuPy array of one element) is nonzero after a pass, built the
    first time ``key`` is asked of ``kept`` (a dict the launcher keeps, as
    ``captured``'s: a few entries, ``key`` naming every value the launches
    bake in) and kept. The body runs at least once a launch.

    >>> loop = while_loop({}, ("step",), lambda sp: step.launch(sp), stop)  # doctest: +SKIP
    >>> loop.launch(stream.ptr)  # doctest: +SKIP
    """
    from bitgraph.kernels.cuda import kept_graph

    return kept_graph(kept, key, lambda: WhileLoop(body, stop))
