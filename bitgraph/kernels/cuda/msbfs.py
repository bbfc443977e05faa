"""Launcher of ``msbfs.cu``: one iBFS batch (up to 64 BFSs in one
traversal) on the GPU, with the CPU launcher's signature and results
(``kernels/cpu/msbfs.py::batch_run``; CuPy arrays in, ``levels`` a CuPy
array, the per-source statistics numpy arrays).

The host drives the levels: per level one step kernel (push, or one of the
``pull`` variants), one settle kernel, and one read of a 72-word counter
slot (queue size, frontier out-edges, OR of the frontier words, in-edges
scanned, per-bit counts): the only host sync of a level. The direction
rule is the CPU's (module docstring of ``kernels/cpu/msbfs.py``):
bottom-up when the frontier's out-edges exceed ``alpha_m`` (alpha * m at
first), and a CSR bottom-up level that scanned more than ``BU_FAIL`` times
those edges raises ``alpha_m`` to ``BU_FAIL * mf``. The BVSS steps walk
only the slice sets with frontier columns (push-like work, no early exit
to fail), so they never raise it. Every step computes the same next
frontier, so levels and statistics never depend on the direction taken.

Measured on the H100 (one 64-source batch, levels written, median of 5;
the host's per-level round trip, 30-80 us depending on the machine, is a
large part of it): kron-18 (m 7.6M) bvss_simt 0.99-1.43 ms, bvss_mma
1.49-1.96, csr 1.95-2.33; kron-20 (m 31.4M) bvss_simt 2.6, csr 3.1,
bvss_mma 4.7; urand-18 (degree 16) csr 0.92, bvss_mma 1.29, bvss_simt
1.47; grid2d 512x512 (1% dropped, ~1,000 levels) ~52-63 ms, all host
round trips. The tensor-core step is 2-3x slower than its SIMT twin on
the big levels (16 MMAs per VSS per 8 sources against 16 shuffles per VSS
for all 64), so ``bvss_simt`` is the BVSS default.
"""

from __future__ import annotations

import threading

import numpy as np

from bitgraph.kernels.cpu import check_length
from bitgraph.kernels.cuda import module, multiprocessors
from bitgraph.kernels.registry import register

__all__ = ["batch_run", "new_state", "PULLS", "DEFAULT_PULL", "BU_FAIL", "pull_lanes", "TRACE"]

SOURCE = "msbfs.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"msbfs_{k}<{i}>" for i in _INDEX.values()
               for k in ("start", "settle", "push", "pull", "finish")) + (
    "msbfs_bvss<false>", "msbfs_bvss<true>")

# the bottom-up step: "csr" (transpose CSR, early exit), "bvss_simt" and
# "bvss_mma" (BVSS of A', sigma = 8: nibble-table ORs on CUDA cores, or
# m8n8k128 b1 MMAs with 8 sources as fragB's columns)
PULLS = ("csr", "bvss_simt", "bvss_mma")
# pull=None: this one when a BVSS is given, else "csr" (module docstring:
# fastest on kron, where BVSS compresses; csr wins on urand)
DEFAULT_PULL = "bvss_simt"
BU_FAIL = 4  # as kernels.cpu.msbfs.BU_FAIL

# counter slot (msbfs.cu): nq, mf, active, scanned, 4 spare, cnt[64]
_NQ, _MF, _ACTIVE, _SCANNED, _CNT, _CTR = 0, 1, 2, 3, 8, 72
_BLOCKS_PER_SM = 8
_BLOCK = 256  # threads per block: msbfs::BLOCK of the .cu (the block scans assume it)


def _grid(items, cap):
    return max(1, min((items + _BLOCK - 1) // _BLOCK, cap))

# benchmarks: a list here receives one tuple per level of every batch:
# (level, step "start" / "push" / "pull", frontier size, frontier
# out-edges, step ms, settle ms), from CUDA events
TRACE = None
_PINNED: dict = {}


def pull_lanes(n: int, nnz: int) -> int:
    """Lanes per vertex of the CSR bottom-up step: half the mean in-degree
    rounded up to a power of 2, 1..32 (a lane reads 4 in-edges a round, so
    a round covers two mean rows: wide groups cut the tail of the hubs,
    which scan their whole row while most of their bits are missing;
    measured on kron-18 with 64 sources: 4 lanes 2.3 ms, 8 1.7, 16 1.5,
    32 1.35)."""
    mean = nnz / max(n, 1) / 2
    g = 1
    while g < 32 and g < mean:
        g *= 2
    return g


def _push_per_block(nq: int) -> int:
    """Queue vertices per block of the top-down step: a power of 2 up to
    256 that still gives two blocks per multiprocessor (64 sources' first
    level: one vertex per block, its edges over 256 threads)."""
    per = 1
    while per < _BLOCK and 2 * per * 2 * multiprocessors() <= nq:
        per *= 2
    return per


def _pinned():
    # the counter slot read back every level, into page-locked memory (no
    # staging copy), one per device and thread
    import cupy

    key = (cupy.cuda.runtime.getDevice(), threading.get_ident())
    buf = _PINNED.get(key)
    if buf is None:
        mem = cupy.cuda.alloc_pinned_memory(_CTR * 8)
        buf = _PINNED[key] = np.frombuffer(mem, np.int64, _CTR)
    return buf


def new_state(n: int):
    """Device scratch of a batch, reusable by the next (``batch_run`` leaves
    it zeroed): (nxt, cur, seen) uint64[n], touched uint32[ceil(n / 32)], two
    queues int64[n] (viewed as int32 for int32 indices), counters
    int64[2, 72]. 36 n bytes."""
    import cupy

    from bitgraph.device import oom_guard

    with oom_guard("msbfs(cuda)", 36 * n + 1152):
        return (cupy.zeros(n, np.uint64), cupy.zeros(n, np.uint64), cupy.zeros(n, np.uint64),
                cupy.zeros((n + 31) // 32, np.uint32), cupy.empty(max(n, 1), np.int64),
                cupy.empty(max(n, 1), np.int64), cupy.zeros((2, _CTR), np.int64))


def _bvss_arrays(cupy, t, bvss, n):
    # the BVSS of A' on the device; built from t on the CPU when not given
    if bvss is None:
        from bitgraph.device import host
        from bitgraph.formats import bvss as bv
        from bitgraph.formats.csr import CSR

        bvss = bv.from_csr(CSR(host(t.indptr), host(t.indices), None, t.nrows, t.ncols))
    if bvss.sigma != 8 or bvss.nrows != n or bvss.ncols != n:
        raise ValueError(f"msbfs(cuda): bvss must be the sigma=8 BVSS of the {n}x{n} transpose,"
                         f" got {bvss!r}")
    v2r = cupy.ascontiguousarray(cupy.asarray(bvss.virtual_to_real), dtype=np.int32)
    rid = cupy.ascontiguousarray(cupy.asarray(bvss.row_ids), dtype=np.uint32).reshape(-1)
    masks = cupy.ascontiguousarray(cupy.asarray(bvss.masks), dtype=np.uint32)
    n_vss = v2r.shape[0]
    check_length("msbfs(cuda)", "bvss.row_ids", rid, n_vss * 128)
    check_length("msbfs(cuda)", "bvss.masks", masks, n_vss * 32)
    return v2r, rid, masks, n_vss


@register("msbfs", fmt="csr", device="cuda", variant="batch")
def batch_run(a, t, sources, *, levels=None, rows=None, write=True, alpha=0.1,
              stop_work=1 << 62, nchunks=None, state=None, pull=None, bvss=None,
              lanes=None):
    """One iBFS batch on the GPU: BFS from each of ``sources`` (k <= 64) at
    once; arguments and results as ``kernels.cpu.msbfs.batch_run``.

    a, t: CSR (CuPy arrays, int32 or int64 indices) of the graph and of its
    transpose; sources: k int64 in [0, n), repeats allowed (numpy or CuPy).
    With ``write`` every entry of row rows[b] of ``levels`` (a C-contiguous
    int32 CuPy array; default a new (k x n) one) gets source b's level, -1
    where unreached. Returns ``(levels, count, total, ecc)``: count, total,
    ecc numpy int64[k] (vertices reached, sum and max of their levels).

    ``stop_work`` and ``nchunks`` are accepted for the CPU signature and
    ignored (every level runs on the whole GPU). ``state``: ``new_state(n)``
    to reuse across batches. ``pull``: the bottom-up step, one of
    ``PULLS`` (None: ``DEFAULT_PULL`` when ``bvss`` is given, else "csr"); the BVSS ones use ``bvss`` (the
    sigma=8 ``formats.bvss.BVSS`` of t, arrays on the GPU or the CPU), built
    on the CPU from t when None (slow: pass it). ``lanes``: lanes per vertex
    of the CSR bottom-up (None: ``pull_lanes``).
    """
    import cupy

    where = "msbfs batch_run(cuda)"
    n = int(a.nrows)
    if pull is None:
        pull = DEFAULT_PULL if bvss is not None else "csr"
    if pull not in PULLS:
        raise ValueError(f"{where}: pull={pull!r}; expected one of {PULLS}")
    src = np.asarray(sources.get() if hasattr(sources, "get") else sources).astype(np.int64).reshape(-1)
    k = src.size
    if not 0 < k <= 64:
        raise ValueError(f"msbfs batch_run: a batch holds 1..64 sources, got {k}")
    if src.min() < 0 or src.max() >= n:
        raise ValueError(f"{where}: sources must lie in [0, {n})")
    idx = np.dtype(np.int64) if max(a.indptr.dtype.itemsize, a.indices.dtype.itemsize,
                                    t.indptr.dtype.itemsize, t.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    it = _INDEX[idx]
    indptr = cupy.ascontiguousarray(a.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(a.indices, dtype=idx)
    m = int(indices.shape[0])
    if write:
        if levels is None:
            levels = cupy.empty((k, n), np.int32)
            rows = np.arange(k, dtype=np.int64)
        if not isinstance(levels, cupy.ndarray) or levels.dtype != np.int32 \
                or not levels.flags.c_contiguous:
            raise ValueError("msbfs batch_run: levels must be a C-contiguous int32 CuPy array")
        rows_h = np.asarray(rows.get() if hasattr(rows, "get") else rows, np.int64).reshape(-1)
        check_length(where, "rows", rows_h, k)
        if rows_h[:k].min() < 0 or (int(rows_h[:k].max()) + 1) * n > levels.size:
            raise ValueError(f"{where}: rows must index rows of levels ({levels.size // max(n, 1)}"
                             f" rows of {n})")
        rows_d = cupy.asarray(rows_h)
        flat = levels.reshape(-1)
    else:
        rows_d = cupy.zeros(1, np.int64)
        flat = cupy.zeros(1, np.int32)
    if state is None:
        state = new_state(n)
    nxt, cur, seen, touched, qa, qb, ctr = state
    ctr.fill(0)
    if idx == np.int32:
        qa, qb = qa.view(np.int32), qb.view(np.int32)
    if pull == "csr":
        tindptr = cupy.ascontiguousarray(t.indptr, dtype=idx)
        tindices = cupy.ascontiguousarray(t.indices, dtype=idx)
        group = pull_lanes(n, int(tindices.shape[0])) if lanes is None else int(lanes)
        if group not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"{where}: lanes={lanes!r} must be a power of 2 up to 32")
    else:
        v2r, rid, masks, n_vss = _bvss_arrays(cupy, t, bvss, n)

    mod, lowered = module(SOURCE, _NAMES)

    def fn(name):
        return mod.get_function(lowered[name])

    f_start, f_settle = fn(f"msbfs_start<{it}>"), fn(f"msbfs_settle<{it}>")
    f_push, f_pull = fn(f"msbfs_push<{it}>"), fn(f"msbfs_pull<{it}>")
    f_bvss = None if pull == "csr" else fn(f"msbfs_bvss<{'true' if pull == 'bvss_mma' else 'false'}>")
    cap = multiprocessors() * _BLOCKS_PER_SM
    settle_grid = _grid(n, cap)
    out = _pinned()
    src_d = cupy.asarray(src)

    count = np.zeros(k, np.int64)
    total = np.zeros(k, np.int64)
    ecc = np.zeros(k, np.int64)
    alpha_m = min(alpha * m, 2.0**62)

    def settle(level, old_q, old_nq, new_q):
        slot = level & 1
        f_settle((settle_grid,), (_BLOCK,),
                 (touched, indptr, nxt, seen, old_q, np.int64(old_nq), cur,
                  new_q, ctr[slot], ctr[1 - slot], flat, rows_d, np.int64(n), np.int32(k),
                  np.int32(level), np.bool_(write)))
        c = ctr[slot].get(out=out)
        cnt = c[_CNT:_CNT + k]
        count[:] += cnt
        total[:] += cnt * level
        ecc[cnt > 0] = level
        return int(c[_NQ]), int(c[_MF]), np.uint64(c[_ACTIVE].view(np.uint64)), int(c[_SCANNED])

    trace = TRACE
    if trace is not None:
        ev = [cupy.cuda.Event() for _ in range(3)]
        ev[0].record()
    f_start((1,), (64,), (src_d, np.int32(k), nxt, touched))
    if trace is not None:
        ev[1].record()
    nq, mf, active, _ = settle(0, qb, 0, qa)
    if trace is not None:
        trace.append((0, "start", 0, 0, cupy.cuda.get_elapsed_time(ev[0], ev[1]), 0.0))
    cur, nxt = nxt, cur  # the new frontier is in the old nxt buffer
    level = 0
    while nq:
        level += 1
        bottom_up = mf > alpha_m
        if trace is not None:
            ev[0].record()
        if not bottom_up:
            per = _push_per_block(nq)
            f_push((max(1, min(-(-nq // per), cap)),), (_BLOCK,),
                   (qa, np.int64(nq), indptr, indices, cur, seen, nxt, touched, np.int32(per)))
        elif pull == "csr":
            f_pull((_grid(n * group, 4 * cap),), (_BLOCK,),
                   (tindptr, tindices, cur, seen, nxt, touched, active, np.int64(n),
                    np.int32(group), ctr[level & 1]))
        elif n_vss:
            f_bvss((_grid(32 * n_vss, 2 * cap),), (_BLOCK,),
                   (v2r, rid, masks, np.int64(n_vss), cur, seen, nxt, touched, np.int64(n),
                    active))
        old_mf, old_nq = mf, nq
        if trace is not None:
            ev[1].record()
        nq, mf, active, scanned = settle(level, qa, nq, qb)
        if trace is not None:
            ev[2].record()
            ev[2].synchronize()
            trace.append((level, "pull" if bottom_up else "push", old_nq, old_mf,
                          cupy.cuda.get_elapsed_time(ev[0], ev[1]),
                          cupy.cuda.get_elapsed_time(ev[1], ev[2])))
        if bottom_up and pull == "csr" and scanned > BU_FAIL * old_mf:
            alpha_m = BU_FAIL * old_mf  # top-down would have been cheaper
        qa, qb = qb, qa
        cur, nxt = nxt, cur
    f_finish = fn(f"msbfs_finish<{it}>")
    f_finish((_grid(n, cap),), (_BLOCK,), (seen, flat, rows_d, np.int64(n), np.int32(k),
                                      np.bool_(write)))
    return (levels if write else None), count, total, ecc
