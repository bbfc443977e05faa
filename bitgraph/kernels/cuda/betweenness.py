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

Heavy vertices (in-degree, for the forward phase, or out-degree, for the
backward one, above ``cuda_heavy_degree``): the light launches skip them;
their rows are cut into chunks of ``cuda_heavy_chunk`` edges
(``heavy_table``, built in numpy from one host read of each CSR's row
pointers, kept in ``work``), and each level where a direction has any
(forward: levels 1 .. depth; backward: below the deepest) adds a launch a
warp per chunk (``bc_forward_chunks`` / ``bc_backward_chunks``: partial sums)
and one a warp per heavy vertex (``bc_forward_heavy`` / ``bc_backward_heavy``:
the partials in chunk order, then the light kernel's finish), after the
light launch on the same stream.

Pair mode (deep graphs: grids, roads, rgg, where the b sources put a
vertex at ~b distinct levels and the vertex mode's warps run one lane):
without ``edges``, ``bc_pair_count`` counts the reached pairs of level >= 1
beside the lists' count (read back with the offsets); when they are fewer
than ``cuda_pair_lanes`` per vertex-list entry (``use_pairs``), the batch
goes on in ``_pair_run`` (a thread per (vertex, source) of per-level pair
lists; the .cu's "Pair mode" block) instead of scattering the vertex
lists. ``work["mode"]`` says which ran last, ``work["pair_batches"]``
counts the pair-mode batches.

Buffers (lev_t and sigma/W: 12 n b bytes; the vertex lists: 4 or 8 bytes
an entry; pair mode: delta 8 n b bytes and its lists 8 bytes a reached
pair; the level counters) are kept in ``work``, a dict the caller keeps for the
batches of one call (never module state), grown when a batch needs more.
Knobs come in as ``cfg`` (``bitgraph.settings.Betweenness``:
``cuda_threads``, ``cuda_list_chunk``, ``cuda_hist_levels``,
``cuda_heavy_degree``, ``cuda_heavy_chunk``, ``cuda_pair_lanes``).
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import PackedLaunch, arg_word, module, multiprocessors
from bitgraph.kernels.registry import register

__all__ = ["batch_run", "heavy_table", "use_pairs"]

_SOURCE = "betweenness.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = (("bc_transpose", "bc_scan")
          + tuple(f"bc_lists<{i}>" for i in _INDEX.values())
          + tuple(f"bc_forward<{i}>" for i in _INDEX.values())
          + tuple(f"bc_backward<{i}, {e}>" for i in _INDEX.values() for e in ("false", "true"))
          + ("bc_forward_heavy", "bc_backward_heavy")
          + tuple(f"bc_forward_chunks<{i}>" for i in _INDEX.values())
          + tuple(f"bc_backward_chunks<{i}, {e}>" for i in _INDEX.values()
                  for e in ("false", "true"))
          + ("bc_pair_count", "bc_pair_lists", "bc_pair_total")
          + tuple(f"bc_pair_{x}<{i}>" for x in ("forward", "backward", "forward_heavy",
                                                "backward_heavy") for i in _INDEX.values()))
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)


def _kernels(index):
    """A dict of the kernels for the index dtype of the CSRs, on the current
    device: transpose, scan, lists, forward, backward (edges: False, True),
    forward_chunks, backward_chunks (edges: False, True), forward_heavy,
    backward_heavy; pair mode's pair_count, pair_lists, pair_total,
    pair_forward, pair_backward, pair_forward_heavy, pair_backward_heavy."""
    mod, lowered = module(_SOURCE, _NAMES)
    i = _INDEX[index]

    def fn(name):
        return mod.get_function(lowered[name])
    return {"transpose": fn("bc_transpose"), "scan": fn("bc_scan"),
            "lists": fn(f"bc_lists<{i}>"), "forward": fn(f"bc_forward<{i}>"),
            "backward": {e: fn(f"bc_backward<{i}, {str(e).lower()}>") for e in (False, True)},
            "forward_chunks": fn(f"bc_forward_chunks<{i}>"),
            "backward_chunks": {e: fn(f"bc_backward_chunks<{i}, {str(e).lower()}>")
                                for e in (False, True)},
            "forward_heavy": fn("bc_forward_heavy"), "backward_heavy": fn("bc_backward_heavy"),
            "pair_count": fn("bc_pair_count"), "pair_lists": fn("bc_pair_lists"),
            "pair_total": fn("bc_pair_total"),
            **{f"pair_{x}": fn(f"bc_pair_{x}<{i}>")
               for x in ("forward", "backward", "forward_heavy", "backward_heavy")}}


def heavy_table(indptr, heavy, chunk):
    """The heavy rows of a CSR cut into chunks, from its row pointers
    (``indptr``, host numpy): the rows of more than ``heavy`` entries, in
    vertex order, each cut into chunks of ``chunk`` entries (the last
    shorter), in row order. Returns int64 arrays ``(hv, coff, cv, clo, chi)``:
    the heavy vertices, their chunk ranges (heavy vertex h owns chunks
    ``coff[h] .. coff[h + 1] - 1``), and each chunk's vertex and entries
    ``clo[c] .. chi[c] - 1``. O(n + chunks).

    >>> hv, coff, cv, clo, chi = heavy_table(np.array([0, 5, 6, 6, 9]), 2, 2)
    >>> hv.tolist(), coff.tolist(), cv.tolist(), clo.tolist(), chi.tolist()
    ([0, 3], [0, 3, 5], [0, 0, 0, 3, 3], [0, 2, 4, 6, 8], [2, 4, 5, 8, 9])
    """
    indptr = np.asarray(indptr, np.int64)
    deg = np.diff(indptr)
    hv = np.flatnonzero(deg > heavy).astype(np.int64)
    per = (deg[hv] + chunk - 1) // chunk
    coff = np.zeros(hv.size + 1, np.int64)
    np.cumsum(per, out=coff[1:])
    owner = np.repeat(np.arange(hv.size), per)
    clo = indptr[hv][owner] + (np.arange(coff[-1], dtype=np.int64) - coff[:-1][owner]) * chunk
    chi = np.minimum(clo + chunk, indptr[hv + 1][owner])
    return hv, coff, hv[owner], clo, chi


def use_pairs(pairs, entries, lanes, edges):
    """Whether a batch runs in pair mode (a thread per (vertex, source)):
    never with edge shares (they stay in the vertex mode, summed per edge
    without atomics) nor with ``lanes`` (``cuda_pair_lanes``) 0; else when
    the reached pairs of level >= 1 (``pairs``) are fewer than ``lanes``
    per entry of the per-level vertex lists (``entries``).

    >>> use_pairs(70, 64, 4, False), use_pairs(1000, 64, 4, False), use_pairs(70, 64, 4, True)
    (True, False, False)
    """
    return not edges and lanes > 0 and pairs < lanes * entries


def _heavy(cupy, work, index, arrays, heavy, chunk):
    """``heavy_table`` of the in-edges (forward) and the out-edges
    (backward) as CuPy int64 arrays, kept in ``work`` for the next batches
    and, where the caller gives ``work["graph"]`` (a dict kept with the
    graph), for its next calls: ``{"forward": table or None, "backward":
    ...}`` (None: no heavy row). Built with one host read of each CSR's row
    pointers (of the transpose's only when it is another array): on kron-22
    (H100 host) about 50 ms, a 64-source call's third before it was kept."""
    indptr, _, tindptr, _ = arrays
    key = (tuple(int(x.data.ptr) for x in arrays), index, heavy, chunk)
    got = work.get("heavy")
    if got is None or got[0] != key:
        shelf = work.get("graph")
        out = None if shelf is None else shelf.get(("heavy", index, heavy, chunk))
        if out is None:
            host = indptr.get()  # synchronize! (once per graph)
            thost = host if tindptr.data.ptr == indptr.data.ptr else tindptr.get()
            out = {}
            for name, ptr in (("forward", thost), ("backward", host)):
                table = heavy_table(ptr, heavy, chunk)
                out[name] = tuple(cupy.asarray(x) for x in table) if table[0].size else None
            if shelf is not None:
                shelf[("heavy", index, heavy, chunk)] = out
        got = work["heavy"] = (key, out)
    return got[1]


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
    across the batches of one call (module docstring; None: a new one),
    whose entry "graph", where given, is a dict kept with the graph across
    calls (the heavy rows' tables: ``_heavy``).
    Two host reads a batch (the depth, the levels' offsets), and the row
    pointers once per graph given ``work["graph"]``, else once per
    ``work`` (the heavy rows' chunks). O(n k + sum over
    the list entries of degree x k / 32) loads; 12 n k + 16 n bytes (the
    frontier words) + the lists + 512 bytes a heavy chunk.

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
    heavy, heavy_chunk = int(cfg.cuda_heavy_degree), int(cfg.cuda_heavy_chunk)
    if threads < 32 or threads > 512 or threads % 32:
        raise ValueError(f"{where}: settings.betweenness.cuda_threads must be a multiple of 32"
                         f" in [32, 512], got {threads}")
    most = 48 * 1024 // 8  # levels of dynamic shared memory a launch takes without opting in
    if chunk < 1 or not 0 <= hist_cap <= most:
        raise ValueError(f"{where}: settings.betweenness.cuda_list_chunk = {chunk} must be >= 1"
                         f" and cuda_hist_levels = {hist_cap} in 0..{most}")
    if heavy < 0 or heavy_chunk < 1:
        raise ValueError(f"{where}: settings.betweenness.cuda_heavy_degree = {heavy} must be"
                         f" >= 0 and cuda_heavy_chunk = {heavy_chunk} >= 1")
    lanes = float(cfg.cuda_pair_lanes)
    if not lanes >= 0:
        raise ValueError(f"{where}: settings.betweenness.cuda_pair_lanes must be >= 0, got"
                         f" {cfg.cuda_pair_lanes!r}")
    work = {} if work is None else work
    index = np.dtype(np.int64) if max(x.dtype.itemsize for x in (
        a.indptr, a.indices, t.indptr, t.indices)) > 4 else np.dtype(np.int32)
    nnz = int(a.indices.shape[0])
    with oom_guard(where, 8 * n + (8 * nnz if edges else 8)):
        total = cupy.zeros(n, np.float64)
        share = cupy.zeros(nnz if edges else 1, np.float64)
    if n == 0:
        return total, (share if edges else None)
    csrs = _csrs(cupy, work, index, a, t)
    indptr, indices, tindptr, tindices = csrs
    with oom_guard(where, 32 * (nnz // heavy_chunk + n + 2)):
        tables = _heavy(cupy, work, index, csrs, heavy, heavy_chunk)
    lev = cupy.ascontiguousarray(lev, dtype=np.int32)  # msbfs's own: no copy
    kern = _kernels(index)
    transpose, scan, lists = kern["transpose"], kern["scan"], kern["lists"]
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
    with oom_guard(where, 16 * levels + 16):
        counts = _grown(cupy, work, "counts", levels, np.uint64)
        # the levels' offsets, then (pair mode's test) the reached pairs of level >= 1
        offsets = _grown(cupy, work, "offsets", levels + 2, np.uint64)
    memset(counts.data.ptr, 0, 8 * levels, stream.ptr)
    cap = multiprocessors() * (2048 // threads) * 4  # grid-stride past this many blocks
    maybe_pair = not edges and lanes > 0
    if maybe_pair:
        memset(offsets.data.ptr + 8 * (levels + 1), 0, 8, stream.ptr)
        kern["pair_count"]((max(1, min(cap, (n * k + threads - 1) // threads)),), (threads,),
                           (lev_t, np.int64(n * k), offsets[levels + 1:]))
    use_shared = levels <= hist_cap
    smem = 8 * levels if use_shared else 0
    list_grid = ((n + chunk - 1) // chunk,)
    head = (lev_t, n64, k32, np.int64(chunk), np.int32(levels), np.int32(use_shared))
    dummy = _grown(cupy, work, "dummy", 1, index)
    lists(list_grid, (threads,), head + (np.int32(0), counts, dummy), shared_mem=smem)
    scan((1,), (1024,), (counts, np.int32(levels), offsets))  # one block, a warp a sums[] slot
    got = offsets.get()  # synchronize! (the launches' sizes, the pairs)
    off = [int(x) for x in got[:levels + 1]]
    # pair mode: fewer reached pairs (but the sources') than cuda_pair_lanes a list entry
    pair = use_pairs(int(got[levels + 1]), off[-1], lanes, edges)
    work["pair_batches"] = work.get("pair_batches", 0) + int(pair)
    work["mode"] = "pair" if pair else "vertex"
    if pair:
        _pair_run(cupy, kern, work, stream, csrs, tables, lev_t, sv, total, n, k, depth,
                  threads, chunk, use_shared, cap, heavy, where)
        return total, None
    with oom_guard(where, index.itemsize * off[-1] + 16 * n):
        vlist = _grown(cupy, work, "list", off[-1], index)
        # the frontier words of two consecutive levels (the .cu's words[2][n])
        words = _grown(cupy, work, "words", 2 * n, np.uint64)
    # counts now holds offsets[d]: the cursors of the scatter
    lists(list_grid, (threads,), head + (np.int32(1), counts, vlist), shared_mem=smem)
    per_block = threads // 32
    # a launch a level, packed once (PackedLaunch: CuPy's launch converts every argument
    # each call; a long path or a road graph launches thousands of levels a batch):
    # parameters 5, 6 (begin, end of the level's list) and 8 (the level) change per level
    heavy64 = np.int64(heavy)
    # parameters 10 and 11 (forward), 13 and 14 (backward): the words read (the
    # level before / after) and written (this level's), set per level
    fwd = PackedLaunch(kern["forward"], 1, threads, (tindptr, tindices, lev_t, sv, vlist,
                                                     np.int64(0), np.int64(0), k32, np.int32(0),
                                                     heavy64, words, words))
    bwd = PackedLaunch(kern["backward"][bool(edges)], 1, threads,
                       (indptr, indices, lev_t, sv, vlist, np.int64(0), np.int64(0), k32,
                        np.int32(0), np.int32(depth), total, share, heavy64, words, words))
    half = words.data.ptr + 8 * n  # words[1]: the odd levels'

    def buffer(d):
        return half if d & 1 else words.data.ptr

    def grid(warps):
        return max(1, min(cap, (warps + per_block - 1) // per_block))

    def level(run, d, near):
        """Level d's launch of run, reading the words of level ``near``."""
        if off[d + 1] > off[d]:
            run.grid = grid(off[d + 1] - off[d])
            run.set(5, arg_word(np.int64(off[d])))
            run.set(6, arg_word(np.int64(off[d + 1])))
            run.set(8, arg_word(np.int32(d)))
            words_at = 10 if run is fwd else 13
            run.set(words_at, buffer(near))
            run.set(words_at + 1, buffer(d))
            run.launch(stream.ptr)

    # the heavy rows: per direction (chunks launch, its level in slot 8 and the
    # words it reads in the last; heavy vertices launch, its level in slot 6),
    # None where no row is heavy
    most_chunks = max([0] + [int(x[2].shape[0]) for x in tables.values() if x is not None])
    with oom_guard(where, 8 * 64 * most_chunks):
        partial = _grown(cupy, work, "partial", 64 * most_chunks, np.float64)
    heavy_runs = {}
    for name, x in tables.items():
        if x is None:
            heavy_runs[name] = None
            continue
        hv, coff, cv, clo, chi = x
        nch, nhv = np.int64(cv.shape[0]), np.int64(hv.shape[0])
        if name == "forward":
            chunks = PackedLaunch(kern["forward_chunks"], grid(int(nch)), threads,
                                  (tindices, lev_t, sv, cv, clo, chi, nch, k32, np.int32(0),
                                   partial, words))
            heads = PackedLaunch(kern["forward_heavy"], grid(int(nhv)), threads,
                                 (lev_t, sv, hv, coff, nhv, k32, np.int32(0), partial))
        else:
            chunks = PackedLaunch(kern["backward_chunks"][bool(edges)], grid(int(nch)), threads,
                                  (indices, lev_t, sv, cv, clo, chi, nch, k32, np.int32(0),
                                   share, partial, words))
            heads = PackedLaunch(kern["backward_heavy"], grid(int(nhv)), threads,
                                 (lev_t, sv, hv, coff, nhv, k32, np.int32(0), partial, total))
        heavy_runs[name] = (chunks, heads)

    def heavy_level(name, d, near):
        runs = heavy_runs[name]
        if runs is not None and off[d + 1] > off[d]:
            runs[0].set(8, arg_word(np.int32(d)))
            runs[0].set(10 if name == "forward" else 11, buffer(near))
            runs[0].launch(stream.ptr)
            runs[1].set(6, arg_word(np.int32(d)))
            runs[1].launch(stream.ptr)

    # zeroed before each phase: no word of another batch, nor (backward) of a
    # shallower level, is read (the .cu's words[2][n])
    memset(words.data.ptr, 0, 16 * n, stream.ptr)
    for d in range(levels):
        level(fwd, d, d - 1)
        if d > 0:
            heavy_level("forward", d, d - 1)
    memset(words.data.ptr, 0, 16 * n, stream.ptr)
    # level 0 (the sources) adds nothing to total: run only for the edges' shares
    for e in range(depth, -1 if edges else 0, -1):
        level(bwd, e, e + 1)
        if e < depth:
            heavy_level("backward", e, e + 1)
    return total, (share if edges else None)


def _pair_run(cupy, kern, work, stream, csrs, tables, lev_t, sv, total, n, k, depth, threads,
              chunk, use_shared, cap, heavy, where):
    """The rest of ``batch_run``'s batch in pair mode (a thread per (vertex,
    source); the .cu's "Pair mode" block), after the transpose and the
    mode's test, on ``stream``: ``bc_pair_lists`` counting the pairs of
    each level, ``bc_scan``, one host read of the offsets (depth + 2
    integers), ``bc_pair_lists`` scattering; ``bc_pair_forward`` a level (0
    .. depth), ``bc_pair_backward`` a level (depth down to 1), each with the
    heavy rows' launch a warp per (heavy vertex, source) where the
    direction has heavy rows (forward: levels >= 1; backward: below the
    deepest); then ``bc_pair_total`` adds each vertex's deltas to ``total``.
    Buffers in ``work``: the pair lists (8 bytes a reached pair), delta (8 n
    k bytes), the counters."""
    from bitgraph.device import oom_guard

    indptr, indices, tindptr, tindices = csrs
    levels = depth + 1
    n64, k32 = np.int64(n), np.int32(k)
    memset = cupy.cuda.runtime.memsetAsync
    with oom_guard(where, 8 * n * k + 8 * levels + 16):
        delta = _grown(cupy, work, "delta", n * k, np.float64)
        counts = _grown(cupy, work, "counts", levels, np.uint64)
        offsets = _grown(cupy, work, "pair_offsets", levels + 1, np.uint64)
        dummy = _grown(cupy, work, "pair_dummy", 1, np.int64)
    memset(counts.data.ptr, 0, 8 * levels, stream.ptr)
    smem = 8 * levels if use_shared else 0
    list_grid = ((n + chunk - 1) // chunk,)
    head = (lev_t, n64, k32, np.int64(chunk), np.int32(levels), np.int32(use_shared))
    pair_lists = kern["pair_lists"]
    pair_lists(list_grid, (threads,), head + (np.int32(0), counts, dummy), shared_mem=smem)
    kern["scan"]((1,), (1024,), (counts, np.int32(levels), offsets))
    off = [int(x) for x in offsets.get()]  # synchronize! (the launches' sizes)
    with oom_guard(where, 8 * off[-1]):
        plist = _grown(cupy, work, "pair_list", off[-1], np.int64)
    # counts now holds offsets[d]: the cursors of the scatter
    pair_lists(list_grid, (threads,), head + (np.int32(1), counts, plist), shared_mem=smem)
    per_block = threads // 32
    heavy64 = np.int64(heavy)
    # a launch a level, packed once: parameters 5, 6 (begin, end of the level's
    # pairs) and 8 (the level) change per level, as in the vertex mode
    fwd = PackedLaunch(kern["pair_forward"], 1, threads,
                       (tindptr, tindices, lev_t, sv, plist, np.int64(0), np.int64(0), k32,
                        np.int32(0), heavy64))
    bwd = PackedLaunch(kern["pair_backward"], 1, threads,
                       (indptr, indices, lev_t, sv, plist, np.int64(0), np.int64(0), k32,
                        np.int32(0), np.int32(depth), heavy64, delta))

    def level(run, d):
        if off[d + 1] > off[d]:
            run.grid = max(1, min(cap, (off[d + 1] - off[d] + threads - 1) // threads))
            run.set(5, arg_word(np.int64(off[d])))
            run.set(6, arg_word(np.int64(off[d + 1])))
            run.set(8, arg_word(np.int32(d)))
            run.launch(stream.ptr)

    # the heavy rows: a warp per (heavy vertex, source), the level in slot 7
    heavy_runs = {}
    for name, x in tables.items():
        if x is None:
            heavy_runs[name] = None
            continue
        hv = x[0]
        nhv = np.int64(hv.shape[0])
        g = max(1, min(cap, (int(nhv) * k + per_block - 1) // per_block))
        if name == "forward":
            heavy_runs[name] = PackedLaunch(kern["pair_forward_heavy"], g, threads,
                                            (tindptr, tindices, lev_t, sv, hv, nhv, k32,
                                             np.int32(0)))
        else:
            heavy_runs[name] = PackedLaunch(kern["pair_backward_heavy"], g, threads,
                                            (indptr, indices, lev_t, sv, hv, nhv, k32,
                                             np.int32(0), delta))

    def heavy_level(name, d):
        run = heavy_runs[name]
        if run is not None and off[d + 1] > off[d]:
            run.set(7, arg_word(np.int32(d)))
            run.launch(stream.ptr)

    for d in range(levels):
        level(fwd, d)
        if d > 0:
            heavy_level("forward", d)
    for e in range(depth, 0, -1):  # level 0 (the sources) adds nothing to total
        level(bwd, e)
        if e < depth:
            heavy_level("backward", e)
    kern["pair_total"]((max(1, min(cap, (n + per_block - 1) // per_block)),), (threads,),
                       (lev_t, delta, n64, k32, total))
