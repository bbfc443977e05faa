"""The communicator every distributed call is written against, and its two
implementations.

A ``Comm`` is one rank of a group of ``size`` ranks (one process per GPU,
or one thread per rank in tests). Its collectives are called by every rank
in the same order with arrays of the same shape and dtype (NCCL's rule,
which ``LocalGroup`` checks and names when broken):

- ``allreduce(a, op, out=None)``: the elementwise ``"sum"``, ``"max"`` or
  ``"min"`` over the ranks (a sum in rank order, so every rank gets the
  same bits);
- ``allgather(a, out=None)``: the ranks' arrays concatenated along axis 0,
  rank 0's first (a 0-d array gives a 1-d array of ``size``);
- ``allgatherv(a, counts, out=None)``: the same where rank r holds
  ``counts[r]`` rows (every rank knows ``counts``), gathered straight into
  the result of ``sum(counts)`` rows (no padded copy: NCCL broadcasts from
  each rank into its slice, in one group; equal counts: one all-gather);
- ``alltoallv(a, counts)``: rank r's rows cut into ``size`` pieces of
  ``counts[d]`` rows, piece d sent to rank d; each rank gets the pieces
  sent to it, rank 0's first (each rank passes its own ``counts``): the
  counts exchanged, the pieces padded to the largest, one all-to-all, cut;
- ``broadcast(a, root)``: root's array on every rank (the others pass an
  array of the same shape and dtype, which is not changed);
- ``barrier()``: returns when every rank has called it.

``allgather_started(a)`` starts an ``allgather`` and returns a ``Pending``
whose ``wait()`` gives its result: on NCCL the collective is queued on the
stream and the host goes on (work in between overlaps it); every rank
waits for it before its next collective.

Each returns a new array on the device of its input (numpy in, numpy out),
or writes into ``out`` where given (an array of the result's shape and
dtype on the same device, C-contiguous) and returns it: a loop that
gathers or reduces an n-vector every step reuses one buffer. ``allreduce``
may be given its input as ``out`` (in place: NCCL allows it).
The dtypes are those NCCL carries: int8, uint8, int32, uint32, int64,
uint64, float16, float32, float64 (a bool bitmap travels as uint8 or as
packed uint32 words).

``LocalGroup(size).run(fn, *args)`` runs ``fn(comm, *args)`` as ``size``
ranks on threads of this process: what CI tests the distributed calls
with. ``NcclComm`` is one rank of a job of one process per GPU, NCCL
through CuPy (``cupyx.distributed``); ``bitgraph.distributed.init()``
builds it from the launcher's environment.

>>> import numpy as np
>>> def work(comm):
...     mine = np.array([comm.rank + 1.0])
...     return comm.allreduce(mine).tolist(), comm.allgather(mine).tolist()
>>> LocalGroup(3).run(work)[0]
([6.0], [1.0, 2.0, 3.0])
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import threading
import time

import numpy as np

from bitgraph.errors import DeviceError, DistributedError, InvalidType, InvalidValue

__all__ = ["Comm", "LocalGroup", "NcclComm", "Pending", "OPS", "DTYPES"]

OPS = ("sum", "max", "min")
# what NCCL carries (ncclDataType_t); bool and complex are not among them
DTYPES = tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int32, np.uint32, np.int64,
                                      np.uint64, np.float16, np.float32, np.float64))


class Pending:
    """A collective started and not yet waited for
    (``Comm.allgather_started``): ``wait()`` returns its result, the same
    as the blocking call's, once it has arrived (again on later calls).

    >>> Pending(lambda: 7).wait()
    7
    """

    def __init__(self, wait):
        self._wait, self._value = wait, None

    def wait(self):
        if self._wait is not None:
            self._value, self._wait = self._wait(), None
        return self._value


class Comm:
    """One rank of a group: ``rank``, ``size``, ``device`` ("cpu" for
    numpy ranks, "cuda" for NCCL ones) and the collectives of the module
    docstring. Subclasses implement ``_allreduce``, ``_allgather`` (each
    with an optional ``out``), ``_allgatherv`` (unequal counts, into
    ``out``), ``_alltoall``, ``_broadcast`` and ``barrier``; the checks,
    ``alltoallv`` and the traffic record are here, once.

    >>> def work(comm):
    ...     return comm.allgatherv(np.arange(comm.rank), counts=[0, 1, 2]).tolist()
    >>> LocalGroup(3).run(work)
    [[0, 0, 1], [0, 0, 1], [0, 0, 1]]
    """

    rank: int = 0
    size: int = 1
    device: str = "cpu"

    def __init__(self):
        self._log = None  # a list while ``recording``

    # -- the collectives ------------------------------------------------
    def allreduce(self, array, op: str = "sum", *, out=None):
        """The elementwise ``op`` ("sum", "max", "min") of every rank's
        ``array`` (same shape and dtype on every rank); into ``out`` when
        given (``array`` itself: in place).

        >>> def work(comm):
        ...     a = np.array([comm.rank, 5 - comm.rank], np.int32)
        ...     b = comm.allreduce(a, "min", out=a)
        ...     return b is a, a.tolist()
        >>> LocalGroup(2).run(work)[1]
        (True, [0, 4])
        """
        if op not in OPS:
            raise InvalidValue(f"Comm.allreduce: op must be one of {OPS}, got {op!r}")
        _check_dtype(array, "Comm.allreduce")
        if out is not None:
            _check_out(out, array, tuple(array.shape), "Comm.allreduce")
            with self._record("allreduce", array):
                return self._allreduce(array, op, out=out)
        with self._record("allreduce", array):
            return self._allreduce(array, op)

    def allgather(self, array, *, out=None):
        """Every rank's ``array`` (same shape and dtype on every rank),
        concatenated along axis 0 in rank order; into ``out`` when given."""
        _check_dtype(array, "Comm.allgather")
        if out is not None:
            shape = tuple(array.shape)
            want = (self.size,) if not shape else (self.size * shape[0],) + shape[1:]
            _check_out(out, array, want, "Comm.allgather")
            with self._record("allgather", array):
                return self._allgather(array, out=out)
        with self._record("allgather", array):
            return self._allgather(array)

    def allgather_started(self, array) -> Pending:
        """``allgather(array)`` started: a ``Pending`` whose ``wait()``
        returns its result. On NCCL it is queued on the current stream (a
        numpy array staged through pinned memory and copied back by the
        stream) and this returns at once: host work, and GPU work queued
        after it, run while it travels. Call ``wait()`` before the next
        collective.

        >>> def work(comm):
        ...     pending = comm.allgather_started(np.array([comm.rank], np.int64))
        ...     meanwhile = comm.rank * 10  # work that needs no other rank
        ...     return pending.wait().tolist(), meanwhile
        >>> LocalGroup(2).run(work)
        [([0, 1], 0), ([0, 1], 10)]
        """
        _check_dtype(array, "Comm.allgather_started")
        with self._record("allgather", array):
            return self._allgather_started(array)

    def _allgather_started(self, array):
        got = self._allgather(array)  # at once: the result is there when it returns
        return Pending(lambda: got)

    def allgatherv(self, array, counts, *, out=None):
        """``allgather`` of arrays of ``counts[r]`` rows on rank r (the
        other axes equal); every rank passes the same ``counts``. The rows
        of rank 0, then rank 1, ..., straight into one array of
        ``sum(counts)`` rows (``out`` when given): no padded copy. Recorded
        as an ``allgather`` of this rank's rows.

        >>> def work(comm):
        ...     y = np.zeros(5)
        ...     for step in range(2):  # one buffer, every step
        ...         comm.allgatherv(np.full(2 + comm.rank, step + comm.rank / 10), [2, 3], out=y)
        ...     return y.tolist()
        >>> LocalGroup(2).run(work)[0]
        [1.0, 1.0, 1.1, 1.1, 1.1]
        """
        counts = [int(c) for c in counts]
        if len(counts) != self.size:
            raise InvalidValue(f"Comm.allgatherv: counts has {len(counts)} entries for"
                               f" {self.size} ranks")
        if min(counts) < 0:
            raise InvalidValue(f"Comm.allgatherv: counts must be >= 0, got {counts}")
        _check_dtype(array, "Comm.allgatherv")
        shape = tuple(array.shape)
        if not shape or shape[0] != counts[self.rank]:
            raise InvalidValue(f"Comm.allgatherv: rank {self.rank} holds an array of shape"
                               f" {shape}, expected {counts[self.rank]} rows")
        xp = _module(array)
        want = (sum(counts),) + shape[1:]
        if out is None:
            out = xp.empty(want, array.dtype)
        else:
            _check_out(out, array, want, "Comm.allgatherv")
        if want[0] == 0:  # every rank knows: nothing to send
            return out
        if all(c == counts[0] for c in counts):
            return self.allgather(array, out=out)
        with self._record("allgather", array):
            self._allgatherv(array, counts, out)
        return out

    def alltoallv(self, array, counts):
        """Rank r sends rows ``sum(counts[:d]) .. sum(counts[:d + 1])`` of
        ``array`` to rank d (``counts``: this rank's ``size`` counts, summing
        to its rows; the other axes equal on every rank); returns the rows
        every rank sent here, rank 0's first. Two collectives: an
        ``allgather`` of the counts, then one all-to-all of the pieces padded
        to the largest (NCCL's all-to-all moves equal pieces).

        >>> def work(comm):  # rank r sends r + d copies of r to rank d
        ...     counts = [comm.rank + d for d in range(comm.size)]
        ...     return comm.alltoallv(np.full(sum(counts), comm.rank), counts).tolist()
        >>> LocalGroup(2).run(work)
        [[1], [0, 1, 1]]
        """
        counts = np.asarray([int(c) for c in counts], np.int64)
        if counts.shape[0] != self.size or (counts < 0).any():
            raise InvalidValue(f"Comm.alltoallv: counts must be {self.size} numbers >= 0 (one a"
                               f" rank), got {counts.tolist()}")
        _check_dtype(array, "Comm.alltoallv")
        shape = tuple(array.shape)
        if not shape or shape[0] != int(counts.sum()):
            raise InvalidValue(f"Comm.alltoallv: rank {self.rank} holds an array of shape {shape},"
                               f" its counts sum to {int(counts.sum())} rows")
        from bitgraph.device import host

        every = host(self.allgather(counts)).reshape(self.size, self.size)  # [from, to]
        xp = _module(array)
        top = int(every.max())
        if top == 0:
            return xp.zeros((0,) + shape[1:], array.dtype)
        pad = xp.zeros((self.size, top) + shape[1:], array.dtype)
        offsets = np.concatenate([[0], np.cumsum(counts)])
        for d in range(self.size):
            pad[d, :counts[d]] = array[offsets[d]:offsets[d + 1]]
        with self._record("alltoall", pad):
            got = self._alltoall(pad)
        return xp.concatenate([got[r, :every[r, self.rank]] for r in range(self.size)])

    def broadcast(self, array, root: int = 0):
        """Rank ``root``'s ``array`` on every rank (each passes an array of
        the same shape and dtype)."""
        if isinstance(root, bool) or not isinstance(root, (int, np.integer)) \
                or not 0 <= root < self.size:
            raise InvalidValue(f"Comm.broadcast: root must be a rank in 0..{self.size - 1},"
                               f" got {root!r}")
        _check_dtype(array, "Comm.broadcast")
        with self._record("broadcast", array):
            return self._broadcast(array, int(root))

    def _allgatherv(self, array, counts, out):  # pragma: no cover - each has its own
        raise NotImplementedError

    def barrier(self):  # pragma: no cover - each implementation has its own
        raise NotImplementedError

    # -- the traffic record ---------------------------------------------
    @contextlib.contextmanager
    def recording(self):
        """A list of ``(collective, bytes sent by this rank, seconds)``, one
        per collective called inside the block (on the GPU each is timed
        from a synchronized device to a synchronized device: for
        measurements, not for production runs).

        >>> def work(comm):
        ...     with comm.recording() as log:
        ...         comm.allreduce(np.zeros(4))
        ...     return [(name, nbytes) for name, nbytes, _ in log]
        >>> LocalGroup(2).run(work)[1]
        [('allreduce', 32)]
        """
        old, self._log = self._log, []
        try:
            yield self._log
        finally:
            self._log = old

    @contextlib.contextmanager
    def _record(self, name, array):
        if self._log is None:
            yield
            return
        self._synchronize()
        t0 = time.perf_counter()
        yield
        self._synchronize()
        self._log.append((name, int(array.nbytes), time.perf_counter() - t0))

    def _synchronize(self):
        pass

    def __repr__(self):
        return f"{type(self).__name__}(rank={self.rank}, size={self.size}, device={self.device!r})"


def _module(array):
    from bitgraph import _array

    return _array.array_module(array)


def _check_dtype(array, where):
    dtype = getattr(array, "dtype", None)
    if dtype is None or not hasattr(array, "shape"):
        raise InvalidType(f"{where}: expected a numpy or CuPy array, got {type(array).__name__}")
    if np.dtype(dtype) not in DTYPES:
        raise InvalidType(f"{where}: NCCL carries no {np.dtype(dtype)} arrays (one of"
                          f" {', '.join(str(d) for d in DTYPES)}; a bool array as uint8)")


def _check_out(out, array, shape, where):
    """``out`` fits a collective's result: the module, shape and dtype of
    ``shape`` rows of ``array``'s kind, C-contiguous (NCCL writes it whole)."""
    if _module(out) is not _module(array) or not hasattr(out, "shape"):
        raise InvalidType(f"{where}: out must be an array of the input's module"
                          f" ({_module(array).__name__}), got {type(out).__name__}")
    if tuple(out.shape) != tuple(shape) or out.dtype != array.dtype:
        raise InvalidValue(f"{where}: out must have shape {tuple(shape)} and dtype"
                           f" {array.dtype}, got {tuple(out.shape)} {out.dtype}")
    if not out.flags.c_contiguous:
        raise InvalidValue(f"{where}: out must be C-contiguous")


def _like(xp, a):
    """``a`` as an array of module ``xp`` (another rank's array in a LocalGroup)."""
    from bitgraph.device import host

    return host(a) if xp is np else xp.asarray(a)


# ---------------------------------------------------------------------------
# LocalGroup: ranks as threads of one process
# ---------------------------------------------------------------------------

class _Shared:
    """What the threads of one ``LocalGroup.run`` share: a slot per rank, the
    barrier, the turn (one rank runs at a time outside a collective) and
    where each rank is (for the error of a broken run)."""

    def __init__(self, size, timeout):
        self.slots = [None] * size
        self.barrier = threading.Barrier(size, timeout=timeout)
        self.turn = threading.Lock()
        self.where = ["computing"] * size


class _LocalComm(Comm):
    def __init__(self, rank, size, device, shared):
        super().__init__()
        self.rank, self.size, self.device = rank, size, device
        self._shared = shared

    def _wait(self):
        # give the turn away while waiting for the others
        sh = self._shared
        sh.turn.release()
        try:
            sh.barrier.wait()
        finally:
            sh.turn.acquire()

    def _collective(self, tag, payload, combine):
        """Deposit (tag, payload); when every rank has, check that the tags
        agree and combine the payloads; wait until every rank has read them."""
        sh = self._shared
        sh.slots[self.rank] = (tag, payload)
        sh.where[self.rank] = _describe(tag)
        self._wait()
        tags = [s[0] for s in sh.slots]
        error = result = None
        if any(t != tags[0] for t in tags):
            error = DistributedError(
                "the ranks called different collectives (every rank must call the same ones in"
                " the same order, with the same shapes and dtypes): "
                + "; ".join(f"rank {r}: {_describe(t)}" for r, t in enumerate(tags)))
        else:
            result = combine([s[1] for s in sh.slots])
        self._wait()  # every rank has read the slots before they are reused
        sh.where[self.rank] = "computing"
        if error is not None:
            raise error
        return result

    def _allreduce(self, array, op, out=None):
        xp = _module(array)
        fold = {"sum": xp.add, "max": xp.maximum, "min": xp.minimum}[op]

        def combine(xs):
            res = _like(xp, xs[0]).copy()
            for x in xs[1:]:  # rank order: the same bits on every rank
                fold(res, _like(xp, x), out=res)
            return res

        res = self._collective(("allreduce", op, array.shape, str(array.dtype)), array, combine)
        if out is None:
            return res
        out[...] = res  # after every rank has read the inputs (out may be one)
        return out

    def _allgather(self, array, out=None):
        xp = _module(array)
        size = self.size
        rows = 1 if array.ndim == 0 else array.shape[0]

        def combine(xs):
            res = out
            if res is None:
                res = xp.empty((size * rows,) + tuple(array.shape[1:]), array.dtype)
            for r, x in enumerate(xs):
                res[r * rows:(r + 1) * rows] = _like(xp, x)
            return res

        return self._collective(("allgather", array.shape, str(array.dtype)), array, combine)

    def _allgatherv(self, array, counts, out):
        xp = _module(array)
        offsets = np.concatenate([[0], np.cumsum(counts)])

        def combine(xs):
            for r, x in enumerate(xs):
                out[offsets[r]:offsets[r + 1]] = _like(xp, x)
            return out

        return self._collective(("allgatherv", tuple(counts), array.shape[1:], str(array.dtype)),
                                array, combine)

    def _alltoall(self, array):
        xp = _module(array)
        me = self.rank
        return self._collective(("alltoall", array.shape, str(array.dtype)), array,
                                lambda xs: xp.stack([_like(xp, x)[me] for x in xs]))

    def _broadcast(self, array, root):
        xp = _module(array)
        return self._collective(("broadcast", root, array.shape, str(array.dtype)), array,
                                lambda xs: _like(xp, xs[root]).copy())

    def barrier(self):
        """Returns when every rank has called it."""
        self._collective(("barrier",), None, lambda xs: None)


def _describe(tag):
    name, *rest = tag
    return f"{name}({', '.join(str(x) for x in rest)})" if rest else name


class LocalGroup:
    """``size`` ranks as threads of this process, over numpy arrays (or
    CuPy arrays of one GPU with ``device="cuda"``): the communicator CI
    tests the distributed calls with.

    ``run(fn, *args, **kwargs)`` calls ``fn(comm, *args, **kwargs)`` on each
    rank's thread (each in a copy of the caller's context, so a
    ``bitgraph.settings.use`` block around ``run`` holds on every rank) and
    returns the per-rank results in rank order. Ranks take turns outside
    the collectives (one runs at a time: the numba thread pool and a
    graph's cached formats are not shared by concurrent callers), so a
    LocalGroup tests what the ranks exchange, not how fast. After ``fn``
    returns, each rank joins one last collective, so a rank that skipped
    one (or called another) is named instead of hanging the others. An
    exception on any rank releases the others and is raised here (the
    lowest rank's); ``timeout`` (seconds, None: none) bounds a wait in a
    collective.

    >>> def work(comm):
    ...     return int(comm.broadcast(np.array(comm.rank * 10), root=2))
    >>> LocalGroup(3).run(work)
    [20, 20, 20]
    >>> def bad(comm):
    ...     if comm.rank == 1:
    ...         raise ValueError("rank 1 fails")
    ...     comm.barrier()
    >>> try:
    ...     LocalGroup(2).run(bad)
    ... except ValueError as e:
    ...     print(e)
    rank 1 fails
    """

    def __init__(self, size: int, *, device: str = "cpu", timeout: float | None = None):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
            raise InvalidType(f"LocalGroup: size must be an integer number of ranks, got {size!r}")
        if size < 1:
            raise InvalidValue(f"LocalGroup: size must be >= 1, got {size}")
        if device not in ("cpu", "cuda"):
            raise InvalidValue(f"LocalGroup: device must be 'cpu' or 'cuda', got {device!r}")
        if timeout is not None and not timeout > 0:
            raise InvalidValue(f"LocalGroup: timeout must be > 0 seconds or None, got {timeout!r}")
        self.size, self.device, self.timeout = int(size), device, timeout

    def __repr__(self):
        return f"LocalGroup({self.size}, device={self.device!r})"

    def run(self, fn, *args, **kwargs) -> list:
        """``[fn(comm_0, *args, **kwargs), ..., fn(comm_{size-1}, ...)]``."""
        size = self.size
        shared = _Shared(size, self.timeout)
        comms = [_LocalComm(r, size, self.device, shared) for r in range(size)]
        contexts = [contextvars.copy_context() for _ in range(size)]
        results = [None] * size
        errors = [None] * size  # (primary, exception)

        def main(r):
            shared.turn.acquire()
            try:
                results[r] = contexts[r].run(fn, comms[r], *args, **kwargs)
                comms[r]._collective(("end of fn",), None, lambda xs: None)
            except threading.BrokenBarrierError as e:
                errors[r] = (False, e)
            except BaseException as e:  # noqa: BLE001 - re-raised in the caller
                errors[r] = (True, e)
                shared.barrier.abort()  # release the ranks waiting in a collective
            finally:
                shared.turn.release()

        threads = [threading.Thread(target=main, args=(r,), name=f"bitgraph-rank-{r}", daemon=True)
                   for r in range(size)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for err in errors:
            if err is not None and err[0]:
                raise err[1]
        if any(err is not None for err in errors):
            raise DistributedError(
                f"LocalGroup.run: a collective waited more than {self.timeout} s: "
                + "; ".join(f"rank {r}: {w}" for r, w in enumerate(shared.where)))
        return results


# ---------------------------------------------------------------------------
# NcclComm: one process per GPU, NCCL through CuPy
# ---------------------------------------------------------------------------

def _require_nccl(where):
    """cupy, with NCCL usable, or a DeviceError naming what is missing."""
    from bitgraph.device import require_cuda

    cupy = require_cuda(where)
    try:
        from cupy.cuda import nccl
    except ImportError as e:  # pragma: no cover - depends on the CuPy build
        raise DeviceError(f"{where}: CuPy was built without NCCL ({e}); install a CuPy wheel"
                          f" with NCCL (pip install 'bitgraph[cuda12]')") from None
    if not nccl.available:
        raise DeviceError(f"{where}: NCCL is not available to CuPy (cupy.cuda.nccl.available is"
                          f" False); install NCCL (pip install nvidia-nccl-cu12)")
    return cupy


# ncclDataType_t of each of DTYPES, by its name in cupy.cuda.nccl
_NCCL_TYPES = {"int8": "NCCL_INT8", "uint8": "NCCL_UINT8", "int32": "NCCL_INT32",
               "uint32": "NCCL_UINT32", "int64": "NCCL_INT64", "uint64": "NCCL_UINT64",
               "float16": "NCCL_FLOAT16", "float32": "NCCL_FLOAT32", "float64": "NCCL_FLOAT64"}


class NcclComm(Comm):
    """One rank of a job of one process per GPU: NCCL through CuPy's
    ``cupyx.distributed`` (its NCCL backend; the unique id passed by its TCP
    store at ``host:port``, served by rank 0, or with ``use_mpi`` by
    mpi4py). Selects the GPU ``local_rank`` first (``cupy.cuda.Device(
    local_rank).use()``) and leaves NVLink multicast off
    (``NCCL_NVLS_ENABLE=0`` unless set). Numpy arrays are carried through
    the GPU and come back as numpy arrays. Usually built by
    ``bitgraph.distributed.init()`` from the launcher's environment.

    ``barrier`` is a one-word NCCL all-reduce followed by a synchronize of
    the current stream: every rank has reached it and its earlier GPU work
    is done.
    """

    def __init__(self, rank: int, size: int, *, local_rank: int = 0, host: str = "127.0.0.1",
                 port: int = 29501, use_mpi: bool = False):
        super().__init__()
        where = "NcclComm"
        if not 0 <= rank < size:
            raise InvalidValue(f"{where}: rank must be in 0..{size - 1}, got {rank}")
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # read when NCCL makes the communicator
        cupy = _require_nccl(where)
        count = cupy.cuda.runtime.getDeviceCount()
        if not 0 <= local_rank < count:
            raise DeviceError(f"{where}: rank {rank} asks for GPU {local_rank} (its local rank),"
                              f" but this host has {count} GPU(s)")
        cupy.cuda.Device(local_rank).use()
        import cupyx.distributed

        if use_mpi:
            self._nccl = cupyx.distributed.NCCLBackend(size, rank, use_mpi=True)
        else:
            self._nccl = cupyx.distributed.init_process_group(size, rank, host=host, port=int(port))
        self._cupy = cupy
        self.rank, self.size, self.device = int(rank), int(size), "cuda"
        self.local_rank = int(local_rank)
        self.pci_bus_id = cupy.cuda.Device(local_rank).pci_bus_id  # "0000:18:00.0"
        # rank 0 serves the id's store from a child process that the
        # interpreter would wait for at exit: stopped at exit (or by close)
        atexit.register(self.close)

    def close(self):
        """Stops rank 0's store process (the NCCL id's; no longer needed
        once the communicator exists). Called at exit."""
        store = getattr(getattr(self, "_nccl", None), "_store", None)
        if store is not None and getattr(store, "_process", None) is not None:
            try:
                store.stop()
            finally:
                store._process = None

    def _on_gpu(self, array):
        """(a C-contiguous CuPy array of ``array``, whether it came from numpy)."""
        cupy = self._cupy
        back = not isinstance(array, cupy.ndarray)
        return cupy.ascontiguousarray(cupy.asarray(array)), back

    def _out(self, a, back):
        return a.get() if back else a  # synchronize! (a numpy caller reads it)

    def _into(self, buf, out, back):
        """``buf`` as the caller's result: into ``out`` when given."""
        if out is None:
            return self._out(buf, back)
        if back:
            out[...] = buf.get()  # synchronize! (a numpy caller reads it)
        return out

    def _allreduce(self, array, op, out=None):
        a, back = self._on_gpu(array)
        buf = out if out is not None and not back else self._cupy.empty_like(a)
        if a.size:
            self._nccl.all_reduce(a, buf, op)  # in place when buf is a (NCCL allows it)
        return self._into(buf, out, back)

    def _allgather(self, array, out=None):
        a, back = self._on_gpu(array)
        shape = (self.size,) if a.ndim == 0 else (self.size * a.shape[0],) + a.shape[1:]
        buf = out if out is not None and not back else self._cupy.empty(shape, a.dtype)
        if a.size:
            self._nccl.all_gather(a, buf, a.size)
        return self._into(buf, out, back)

    def _allgather_started(self, array):
        cupy = self._cupy
        if isinstance(array, cupy.ndarray):
            got = self._allgather(array)  # queued on the stream, a CuPy result: nothing to wait
            return Pending(lambda: got)
        import cupyx

        a = np.ascontiguousarray(array)
        shape = (self.size,) if a.ndim == 0 else (self.size * a.shape[0],) + a.shape[1:]
        stream = cupy.cuda.get_current_stream()
        staged = cupyx.empty_pinned(a.shape, a.dtype)  # page-locked: the copies need no wait
        staged[...] = a
        dev, buf = cupy.empty(a.shape, a.dtype), cupy.empty(shape, a.dtype)
        dev.set(staged, stream=stream)
        if a.size:
            self._nccl.all_gather(dev, buf, a.size)
        back = cupyx.empty_pinned(shape, a.dtype)
        buf.get(stream=stream, out=back, blocking=False)
        done = stream.record()

        def wait():
            done.synchronize()  # synchronize! (the copy back, not the work queued after it)
            del held[:]  # the pinned staging buffer lives until its copy has run
            return back

        held = [staged, dev, buf]
        return Pending(wait)

    def _allgatherv(self, array, counts, out):
        """One NCCL broadcast a rank with rows, from that rank into its
        slice of ``out``, the broadcasts in one group (NCCL's allgatherv)."""
        from cupy.cuda import nccl

        a, back = self._on_gpu(array)
        buf = self._cupy.empty(out.shape, out.dtype) if back else out
        row = int(np.prod(out.shape[1:], dtype=np.int64))  # elements a row
        dtype = getattr(nccl, _NCCL_TYPES[a.dtype.name])
        stream = self._cupy.cuda.get_current_stream().ptr
        offsets = np.concatenate([[0], np.cumsum(counts)])
        nccl.groupStart()
        try:
            for r, c in enumerate(counts):
                if c == 0:  # every rank knows: no broadcast
                    continue
                piece = buf[int(offsets[r]):int(offsets[r + 1])]
                send = a.data.ptr if r == self.rank else piece.data.ptr
                self._nccl._comm.broadcast(send, piece.data.ptr, c * row, dtype, r, stream)
        finally:
            nccl.groupEnd()
        self._into(buf, out, back)

    def _alltoall(self, array):
        a, back = self._on_gpu(array)  # (size, top, ...): piece d goes to rank d
        out = self._cupy.empty_like(a)
        if a.size:
            self._nccl.all_to_all(a, out)  # grouped NCCL send/recv, one pair a peer
        return self._out(out, back)

    def _broadcast(self, array, root):
        a, back = self._on_gpu(array)
        buf = a.copy()
        if buf.size:
            self._nccl.broadcast(buf, root)
        return self._out(buf, back)

    def barrier(self):
        """Returns when every rank has called it and its GPU work is done."""
        one = self._cupy.ones(1, np.int32)
        out = self._cupy.empty_like(one)
        self._nccl.all_reduce(one, out, "sum")
        self._cupy.cuda.get_current_stream().synchronize()  # synchronize!

    def _synchronize(self):
        self._cupy.cuda.get_current_stream().synchronize()  # synchronize! (timing only)
