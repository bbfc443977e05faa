"""numba CPU kernels (DESIGN.md, "numba").

Every kernel is generic over the semiring: op codes are runtime int64
arguments, and numba specialises only on the value dtype T and the index
dtype (int32/int64). Absent arrays (iso values, no ``allowed`` bitmap) are
1-element dummies plus a flag, so the set of specialisations stays closed:
11 dtypes x 2 index dtypes per kernel, all compiled by
``python -m bitgraph.kernels.warmup``.

Parallel variants: a kernel works on a range of rows ``[r0, r1)`` and is
compiled ``nogil=True``; the serial launcher calls it once on all rows, the
parallel one calls it on ``threads * 4`` chunks of rows of about equal work
from a thread pool (``parallel_for``). So each kernel is compiled once per
dtype and serves both; ``parallel=True`` (numba's parfors) would compile a
second specialisation at ~1.7 s each, doubling the warm-up (measured: 94 s
-> ~40 s cold for all kernels x 11 dtypes).

Importing this package imports only numpy; ``registry.load("cpu")`` imports
the kernel modules listed in ``MODULES`` (and with them numba). The helpers
below are for the numba launchers (plain Python): arrays as kernel
arguments, dummies, the thread pool. The checks every launcher shares, CPU
and CUDA alike, are in ``bitgraph.kernels._launch``.
"""

import os
import threading

import numpy as np

from bitgraph import _array
# the device-independent checks, at home in kernels._launch; re-exported for
# the launchers that import them from here (the traversals' CUDA launchers)
from bitgraph.kernels._launch import (  # noqa: F401
    check_binary, check_bmv_vectors, check_dtype, check_length, check_monoid, index_dtype,
    semiring_args,
)

# imported (in this order) by bitgraph.kernels.registry.load("cpu")
MODULES = ("ewise", "reduce", "spmv_csr", "spmspv_csr", "spgemm_csr", "spgemm_dot",
           "convert_b2sr", "convert_bvss", "bmv_b2sr", "bmv_bvss", "bmm_b2sr", "bfs_bvss",
           "bfs_csr", "msbfs", "sssp", "pagerank", "components", "betweenness")

_DUMMIES = {}


class _WriteableAlias:
    # numpy builds an array from this interface: same memory, writeable flag
    # set, ``owner`` kept alive as the new array's base
    def __init__(self, owner):
        iface = dict(owner.__array_interface__)
        iface["data"] = (iface["data"][0], False)
        self.__array_interface__ = iface
        self.owner = owner


def arg(a, dtype):
    """``a`` as a kernel input: 1-d, C-contiguous, of ``dtype``, writeable.

    numba types a read-only array apart from a writeable one (a new
    specialisation, not in the warm-up's cache), so a read-only input is
    passed as a writeable alias of the same memory (no copy; kernels never
    write their inputs).
    """
    a = np.ascontiguousarray(a, dtype).reshape(-1)
    if not a.flags.writeable:
        a = np.asarray(_WriteableAlias(a))
    return a


def dummy(dtype):
    """A 1-element array of ``dtype`` standing in for an absent array."""
    dtype = np.dtype(dtype)
    arr = _DUMMIES.get(dtype)
    if arr is None:
        arr = _DUMMIES[dtype] = np.zeros(1, dtype)
    return arr


def values_arg(values, dtype):
    """(array, iso): ``values`` as a contiguous T array, or a dummy if None."""
    if values is None:
        return dummy(dtype), True
    return arg(values, dtype), False


def bitmap_arg(words):
    """(array, present): packed uint32 words, or a dummy if None."""
    if words is None:
        return dummy(np.uint32), False
    return arg(words, np.uint32), True


def index_args(*arrays):
    """The index arrays, contiguous, in one dtype (int64 if any is int64)."""
    dtype = index_dtype(*arrays)
    return tuple(arg(a, dtype) for a in arrays)



# ----------------------------------------------------------------------------
# parallel variants: row chunks on a thread pool
# ----------------------------------------------------------------------------

_POOL = None
_POOL_LOCK = threading.Lock()


def _forget_pool():
    # a forked child has the pool object but not its threads
    global _POOL, _POOL_LOCK
    _POOL = None
    _POOL_LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def serial_below(cpu=None) -> int:
    """The work (stored entries touched) below which a launcher called with
    ``parallel=None`` runs serially: ``cpu.serial_below`` of the ``CPU``
    settings given, else of the settings in force (``bitgraph.settings``).

    >>> from bitgraph import settings
    >>> with settings.use(cpu={"serial_below": 0}):
    ...     serial_below()
    0
    """
    if cpu is None:
        from bitgraph.settings import current
        cpu = current().cpu
    return int(cpu.serial_below)


def num_threads():
    """Threads for the parallel variants: ``NUMBA_NUM_THREADS`` if set, else
    the CPUs this process may run on."""
    env = os.environ.get("NUMBA_NUM_THREADS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _pool():
    global _POOL
    if _POOL is None:
        with _POOL_LOCK:
            if _POOL is None:
                from concurrent.futures import ThreadPoolExecutor
                _POOL = ThreadPoolExecutor(num_threads(),
                                           thread_name_prefix="bitgraph")
    return _POOL


def row_chunks(work, nchunks=None):
    """chunks[m+1] int64: row ranges of about equal total ``work``.

    work[nrows] >= 0 per row (e.g. row length + 1); at most ``nchunks``
    (default threads * 4) non-empty ranges covering [0, nrows). O(nrows)
    """
    nrows = work.size
    if nchunks is None:
        nchunks = num_threads() * 4
    nchunks = max(1, min(nchunks, nrows))
    cum = np.cumsum(work, dtype=np.float64)
    total = cum[-1] if nrows else 0.0
    cuts = np.searchsorted(cum, np.arange(1, nchunks) * (total / nchunks))
    return _array.unique(np.concatenate(([0], cuts, [nrows]))).astype(np.int64)


def indptr_chunks(indptr, nchunks=None):
    """chunks[m+1] int64: row ranges of about equal ``nnz + nrows``.

    indptr[nrows+1]. Bisection on ``indptr[r] + r`` for the ``nchunks - 1``
    cuts: O(nchunks * log(nrows)), no O(nrows) pass.
    """
    nrows = indptr.size - 1
    if nchunks is None:
        nchunks = num_threads() * 4
    nchunks = max(1, min(nchunks, nrows))
    total = int(indptr[-1]) + nrows
    target = np.arange(1, nchunks) * (total / nchunks)
    lo = np.zeros(target.size, np.int64)
    hi = np.full(target.size, nrows, np.int64)
    while True:  # first r with indptr[r] + r >= target
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) // 2
        right = indptr[mid] + mid < target
        lo = np.where(active & right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)
    return _array.unique(np.concatenate(([0], lo, [nrows]))).astype(np.int64)


def even_chunks(n, nchunks=None):
    """chunks[m+1] int64: [0, n) cut into ``nchunks`` equal ranges."""
    if nchunks is None:
        nchunks = num_threads() * 4
    nchunks = max(1, min(nchunks, n))
    return _array.unique(np.linspace(0, n, nchunks + 1).astype(np.int64))


def _submit(fn, *args):
    # each task runs in a copy of the caller's context: a worker thread sees
    # the caller's settings (bitgraph.settings.use), not the defaults
    import contextvars

    return _pool().submit(contextvars.copy_context().run, fn, *args)


def parallel_for(kernel, chunks, *args):
    """``kernel(r0, r1, *args)`` for each range of ``chunks``, on the pool.

    The kernel must be ``@njit(nogil=True)`` and write disjoint outputs per
    row range. Blocks until all are done; re-raises the first error.
    """
    bounds = [(np.uint64(chunks[c]), np.uint64(chunks[c + 1]))
              for c in range(len(chunks) - 1)]
    if len(bounds) == 1:
        kernel(*bounds[0], *args)
        return
    futures = [_submit(kernel, r0, r1, *args) for r0, r1 in bounds]
    errors = [f.exception() for f in futures]  # waits for every chunk
    for e in errors:
        if e is not None:
            raise e


def parallel_map(kernel, chunks, *args):
    """``[kernel(r0, r1, *args) for each range of chunks]``, on the pool.

    Like ``parallel_for`` but returns each chunk's result, in chunk order
    (for kernels whose output size is only known as they run).
    """
    bounds = [(np.uint64(chunks[c]), np.uint64(chunks[c + 1]))
              for c in range(len(chunks) - 1)]
    if len(bounds) == 1:
        return [kernel(*bounds[0], *args)]
    futures = [_submit(kernel, r0, r1, *args) for r0, r1 in bounds]
    errors = [f.exception() for f in futures]
    for e in errors:
        if e is not None:
            raise e
    return [f.result() for f in futures]


def parallel_map_here(kernel, chunks, *args):
    """``parallel_map``, the calling thread one of the ``num_threads()``
    workers: it and ``num_threads() - 1`` pool tasks claim the ranges in
    order, each as it finishes its last. One pool round trip fewer than
    ``parallel_map``, for kernels called again and again on short work.

    >>> from numba import njit
    >>> @njit(nogil=True)
    ... def total(r0, r1, a):
    ...     return a[r0:r1].sum()
    >>> parallel_map_here(total, np.array([0, 2, 5]), np.arange(5.0))
    [1.0, 9.0]
    """
    from collections import deque

    bounds = [(np.uint64(chunks[c]), np.uint64(chunks[c + 1]))
              for c in range(len(chunks) - 1)]
    if len(bounds) == 1:
        return [kernel(*bounds[0], *args)]
    out = [None] * len(bounds)
    todo = deque(range(len(bounds)))  # popleft is thread-safe

    def work():
        while True:
            try:
                c = todo.popleft()
            except IndexError:
                return
            out[c] = kernel(*bounds[c], *args)

    helpers = [_submit(work) for _ in range(min(num_threads(), len(bounds)) - 1)]
    error = None
    try:
        work()
    except Exception as e:  # raised once the helpers are done with the arrays
        error = e
    errors = [f.exception() for f in helpers]
    for e in [error] + errors:
        if e is not None:
            raise e
    return out
