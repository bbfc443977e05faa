"""Launcher of ``betweenness.cu``: Brandes' path counts and dependencies of
one batch of sources on the GPU, with the CPU launcher's signature and
results (``kernels/cpu/betweenness.py``: ``batch_run(a, t, lev, *, edges,
parallel_work)`` -> (total per vertex, edge shares or None)).

A batch is, on the current stream: a memset and ``bc_transpose`` (msbfs's
b x n levels to the vertex-major ``lev_t``, and the deepest level), one
host read of that depth; ``bc_lists`` counting the (level, vertex) pairs,
``bc_scan`` (the levels' offsets), one host read of the offsets (depth + 2
integers: the launches' sizes); ``bc_lists`` scattering the pairs into the
per-level lists; then a ``bc_forward`` launch per level (1 .. depth, and 0:
the sources' sigma = 1) and a ``bc_backward`` launch per level (depth down
to 1, or to 0 with ``edges``). The .cu's header gives the layout and why
the one float64 array may hold sigma, then W, in place.

Buffers (lev_t and sigma/W: 12 n b bytes; the lists: 4 or 8 bytes a pair;
the level counters) are kept in ``work``, a dict the caller keeps for the
batches of one call (never module state), grown when a batch needs more.
Knobs come in as ``cfg`` (``bitgraph.settings.Betweenness``:
``cuda_threads``, ``cuda_list_chunk``, ``cuda_hist_levels``).
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import PackedLaunch, arg_word, module, multiprocessors
from bitgraph.kernels.registry import register

__all__ = ["batch_run"]

_SOURCE = "betweenness.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = (("bc_transpose", "bc_scan")
          + tuple(f"bc_lists<{i}>" for i in _INDEX.values())
          + tuple(f"bc_forward<{i}>" for i in _INDEX.values())
          + tuple(f"bc_backward<{i}, {e}>" for i in _INDEX.values() for e in ("false", "true")))
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)


def _kernels(index):
    """(transpose, scan, lists, forward, backward, backward with edges) for
    the index dtype of the CSRs, on the current device."""
    mod, lowered = module(_SOURCE, _NAMES)
    i = _INDEX[index]

    def fn(name):
        return mod.get_function(lowered[name])
    return (fn("bc_transpose"), fn("bc_scan"), fn(f"bc_lists<{i}>"), fn(f"bc_forward<{i}>"),
            fn(f"bc_backward<{i}, false>"), fn(f"bc_backward<{i}, true>"))


def _grown(cupy, work, name, size, dtype):
    """A buffer of at least ``size`` items kept in ``work`` under ``name``
    (a larger one from an earlier batch serves; its first ``size`` items)."""
    have = work.get(name)
    if have is None or have.size < size or have.dtype != dtype:
        have = work[name] = cupy.empty(max(size, 1), dtype)
    return have[:size]


def _csrs(cupy, work, index, a, t):
    """(indptr, indices, tindptr, tindices) of a and t as contiguous CuPy
    arrays of ``index`` (a cast only where a CSR's dtype differs: kept in
    ``work`` for the next batches)."""
    key = tuple(int(x.data.ptr) for x in (a.indptr, a.indices, t.indptr, t.indices)) + (index,)
    got = work.get("csr")
    if got is None or got[0] != key:
        arrays = tuple(cupy.ascontiguousarray(x, dtype=index)
                       for x in (a.indptr, a.indices, t.indptr, t.indices))
        got = work["csr"] = (key, arrays)
    return got[1]


@register("betweenness", fmt="csr", device="cuda", variant="batch")
def batch_run(a, t, lev, *, edges=False, parallel_work=None, cfg=None, work=None):
    """Brandes' sums for one batch on the GPU: ``lev`` (k x n int32 CuPy,
    msbfs's levels of the batch's sources, k <= 64), a the graph's CSR
    (out-edges), t its transpose's (in-edges), CuPy arrays. Returns
    ``(total, eshare)`` as the CPU launcher: float64[n] CuPy, each vertex's
    delta summed over the batch (a source's own excluded), and, with
    ``edges``, float64[nnz(a)] each out-edge's summed shares in a's CSR
    order (else None). ``parallel_work`` is the CPU's (unused here); cfg:
    the ``Betweenness`` settings (None: those in force); work: a dict kept
    across the batches of one call (module docstring; None: a new one).
    Two host reads (the depth, the levels' offsets). O(n k + sum over the
    list entries of degree x k / 32) loads; 12 n k bytes + the lists.

    >>> total, _ = batch_run(out_csr(A), in_csr(A), msbfs(A, range(64)))  # doctest: +SKIP
    """
    import cupy

    from bitgraph.device import oom_guard

    where = "betweenness_centrality (cuda batch_run)"
    n = int(a.nrows)
    k = int(lev.shape[0]) if lev.ndim == 2 else 0
    if not 0 < k <= 64 or lev.shape[1] != n:
        raise ValueError(f"betweenness batch_run: levels must be (1..64) x {n}, got {lev.shape}")
    if cfg is None:
        from bitgraph.settings import current
        cfg = current().betweenness
    threads, chunk, hist_cap = int(cfg.cuda_threads), int(cfg.cuda_list_chunk), \
        int(cfg.cuda_hist_levels)
    if threads < 32 or threads > 1024 or threads % 32:
        raise ValueError(f"{where}: settings.betweenness.cuda_threads must be a multiple of 32"
                         f" in [32, 1024], got {threads}")
    most = 48 * 1024 // 8  # levels of dynamic shared memory a launch takes without opting in
    if chunk < 1 or not 0 <= hist_cap <= most:
        raise ValueError(f"{where}: settings.betweenness.cuda_list_chunk = {chunk} must be >= 1"
                         f" and cuda_hist_levels = {hist_cap} in 0..{most}")
    work = {} if work is None else work
    index = np.dtype(np.int64) if max(x.dtype.itemsize for x in (
        a.indptr, a.indices, t.indptr, t.indices)) > 4 else np.dtype(np.int32)
    nnz = int(a.indices.shape[0])
    with oom_guard(where, 8 * n + (8 * nnz if edges else 8)):
        total = cupy.zeros(n, np.float64)
        share = cupy.zeros(nnz if edges else 1, np.float64)
    if n == 0:
        return total, (share if edges else None)
    indptr, indices, tindptr, tindices = _csrs(cupy, work, index, a, t)
    lev = cupy.ascontiguousarray(lev, dtype=np.int32)  # msbfs's own: no copy
    transpose, scan, lists, forward, backward, backward_edges = _kernels(index)
    n64, k32 = np.int64(n), np.int32(k)
    with oom_guard(where, 12 * n * k + 8):
        lev_t = _grown(cupy, work, "lev_t", n * k, np.int32)
        sv = _grown(cupy, work, "sv", n * k, np.float64)
        depth_buf = _grown(cupy, work, "depth", 1, np.int32)
    stream = cupy.cuda.get_current_stream()
    memset = cupy.cuda.runtime.memsetAsync
    memset(depth_buf.data.ptr, 0, 4, stream.ptr)
    transpose(((n + 31) // 32, (k + 31) // 32), (32, 8), (lev, n64, k32, lev_t, depth_buf))
    depth = int(depth_buf.get()[0])  # synchronize! (the number of levels to launch)
    levels = depth + 1
    with oom_guard(where, 16 * levels + 8):
        counts = _grown(cupy, work, "counts", levels, np.uint64)
        offsets = _grown(cupy, work, "offsets", levels + 1, np.uint64)
    memset(counts.data.ptr, 0, 8 * levels, stream.ptr)
    use_shared = levels <= hist_cap
    smem = 8 * levels if use_shared else 0
    list_grid = ((n + chunk - 1) // chunk,)
    head = (lev_t, n64, k32, np.int64(chunk), np.int32(levels), np.int32(use_shared))
    dummy = _grown(cupy, work, "dummy", 1, index)
    lists(list_grid, (threads,), head + (np.int32(0), counts, dummy), shared_mem=smem)
    scan((1,), (1024,), (counts, np.int32(levels), offsets))  # one block, a warp a sums[] slot
    off = [int(x) for x in offsets.get()]  # synchronize! (the launches' sizes)
    with oom_guard(where, index.itemsize * off[-1]):
        vlist = _grown(cupy, work, "list", off[-1], index)
    # counts now holds offsets[d]: the cursors of the scatter
    lists(list_grid, (threads,), head + (np.int32(1), counts, vlist), shared_mem=smem)
    cap = multiprocessors() * (2048 // threads) * 4  # grid-stride past this many blocks
    per_block = threads // 32
    # a launch a level, packed once (PackedLaunch: CuPy's launch converts every argument
    # each call; a long path or a road graph launches thousands of levels a batch):
    # parameters 5, 6 (begin, end of the level's list) and 8 (the level) change per level
    fwd = PackedLaunch(forward, 1, threads, (tindptr, tindices, lev_t, sv, vlist, np.int64(0),
                                             np.int64(0), k32, np.int32(0)))
    bwd = PackedLaunch(backward_edges if edges else backward, 1, threads,
                       (indptr, indices, lev_t, sv, vlist, np.int64(0), np.int64(0), k32,
                        np.int32(0), np.int32(depth), total, share))

    def level(run, d):
        if off[d + 1] > off[d]:
            run.grid = max(1, min(cap, (off[d + 1] - off[d] + per_block - 1) // per_block))
            run.set(5, arg_word(np.int64(off[d])))
            run.set(6, arg_word(np.int64(off[d + 1])))
            run.set(8, arg_word(np.int32(d)))
            run.launch(stream.ptr)

    for d in range(levels):
        level(fwd, d)
    # level 0 (the sources) adds nothing to total: run only for the edges' shares
    for e in range(depth, -1 if edges else 0, -1):
        level(bwd, e)
    return total, (share if edges else None)
