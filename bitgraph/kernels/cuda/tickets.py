"""Tickets 0, 1, 2, ... of a counter in one GPU's memory, taken by the
processes of every GPU of the host (``tickets.cu``): the shared work queue
of ``bitgraph.distributed``'s dynamic batches.

Rank 0 allocates the counter (``cudaMalloc``, its own allocation: an IPC
handle names a whole allocation) and the other ranks open its handle
(``cudaIpcOpenMemHandle``, peer access over NVLink or PCIe). A ticket is one
thread's compare-and-swap on that word, on a stream of its own (not behind
the batches queued on the current stream), its value written to mapped
pinned memory that the host reads once the stream is done: about the
latency of one launch and one synchronize.
"""

from __future__ import annotations

import ctypes

import numpy as np

from bitgraph.kernels.cuda import module

__all__ = ["Counter", "SPECS"]

SPECS = (("tickets.cu", ("take_ticket",)),)  # what module() is asked for (precompile.py)
_EPOCH_LIMIT = 1 << 31  # the word keeps 32 bits of epoch


class Counter:
    """The counter on this process's GPU: ``Counter.allocate()`` on the
    rank that holds it, ``Counter.open(handle)`` (``handle``: the holder's
    ``ipc_handle()``, 64 bytes) on the others. ``take(epoch)``: the next
    ticket of call ``epoch`` (an int >= 1 that grows from call to call).

    >>> c = Counter.allocate()  # doctest: +SKIP
    >>> [c.take(1), c.take(1), c.take(2)]  # doctest: +SKIP
    [0, 1, 0]
    """

    def __init__(self, ptr: int, owned: bool):
        import cupy

        rt = cupy.cuda.runtime
        self.ptr, self.owned = int(ptr), owned
        self._stream = cupy.cuda.Stream(non_blocking=True)
        self._host = rt.hostAlloc(8, rt.hostAllocMapped)
        self._dev_out = rt.hostGetDevicePointer(self._host, 0)
        self._out = ctypes.c_uint64.from_address(self._host)
        mod, lowered = module(*SPECS[0])
        self._fn = mod.get_function(lowered["take_ticket"])

    @classmethod
    def allocate(cls) -> "Counter":
        import cupy

        rt = cupy.cuda.runtime
        ptr = rt.malloc(8)
        rt.memset(ptr, 0, 8)
        return cls(ptr, owned=True)

    @classmethod
    def open(cls, handle: bytes) -> "Counter":
        import cupy

        return cls(cupy.cuda.runtime.ipcOpenMemHandle(bytes(handle)), owned=False)

    def ipc_handle(self) -> bytes:
        """64 bytes that ``Counter.open`` takes in another process."""
        import cupy

        return bytes(cupy.cuda.runtime.ipcGetMemHandle(self.ptr))

    def take(self, epoch: int) -> int:
        """The next ticket of ``epoch`` (0 for the first taker)."""
        if not 0 < epoch < _EPOCH_LIMIT:
            raise ValueError(f"Counter.take: epoch must be in 1..{_EPOCH_LIMIT - 1}, got {epoch}")
        self._out.value = 1 << 63
        self._fn((1,), (1,), (np.uint64(self.ptr), np.uint64(epoch), np.uint64(self._dev_out)),
                 stream=self._stream)
        self._stream.synchronize()  # synchronize! (its own stream: the one-thread launch)
        return int(self._out.value)

    def close(self):
        import cupy

        rt = cupy.cuda.runtime
        if self.ptr:
            (rt.free if self.owned else rt.ipcCloseMemHandle)(self.ptr)
            self.ptr = 0
        if self._host:
            rt.freeHost(self._host)
            self._host = 0
