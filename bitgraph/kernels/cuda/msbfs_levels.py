"""The msbfs launcher's schedule "levels" (``msbfs.py::batch_run``): the
host launches the levels without waiting for them: per level a pull step,
a push step and a settle, which read the direction from the device (the
settle's last block gives each source a direction from its own frontier:
bottom-up when the frontier has more than ``alpha * m`` out-edges,
top-down otherwise, everyone bottom-up when the top-down union would walk
more than ``all_pull * m`` edges). A step with nothing to do returns at
once. The host checks a level's queue size (an asynchronous copy into
page-locked memory) at most ``cfg.lead`` levels later and stops when a
level found nothing; the levels launched past it do nothing. Levels 0 ..
``cfg.head_levels`` run as one captured CUDA graph (R-MAT's and urand's
whole traversal); with ``cfg.graph``, from level ``cfg.graph_levels`` on
the levels run as a captured graph replayed until one's last level found
nothing (a high-diameter graph's thousands of levels then cost the host
nothing). The levels are written out of the frontier planes by
``msbfs_flush``, ``cfg.flush_span`` at a time, not per level; a traversal
that ends within the head graph is written out by that graph's own final
flush, and ``msbfs_clear`` zeroes the dense planes after it, so the host
waits once and returns while that zeroing still runs on the stream: a
state is used on one stream (``shared_state`` keeps one per stream). A
batch is queued in one step and finished in another, so that a caller can
queue the next batch (on a second state and slot) before it waits for
this one: the GPU then runs the next batch's first levels while the host
reads this one's counters.

``levels_steps`` is the schedule; ``Launches`` the launches it is made of
(bound to one batch's arrays, grids and settings); ``Prepared`` what a
batch derives from its graph and state alone, kept for the next batch.
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import msbfs_state
from bitgraph.kernels.cuda.msbfs_state import (A_BASE, A_LEVELS, A_ROWS, ARGS, BLOCK, INDEX,
                                               MF, NQ, PULL, PUSH, RING, SCANNED, STATS,
                                               captured, grid, kernels, stage_bytes, workspace)

__all__ = ["levels_steps", "finish", "pull_lanes", "Prepared", "Launches"]

_BIG = 2.0**62  # the direction rule's "never" (fractions of m past it: top-down only)
_PUSH_ONLY = np.int64(_BIG)


def pull_lanes(n: int, nnz: int) -> int:
    """Lanes per vertex of the CSR bottom-up step: half the mean in-degree
    rounded up to a power of 2, at most 4 (a lane reads 4 in-edges a round).
    With a direction per source the pulls mostly exit early, and narrow
    groups stop sooner: kron-22, 64 sources, the level that pulls for all
    of them: 4 lanes 0.31 ms (16.7 M in-edges read), 8 0.39, 16 0.53, 32
    0.75 (42.7 M); on urand-22, whose pulls scan whole rows, 4 lanes lose
    ~10% to 16 (1.08-1.13 against 1.01 ms a level).

    >>> pull_lanes(1000, 16000), pull_lanes(1000, 2000), pull_lanes(1000, 100)
    (4, 1, 1)
    """
    mean = nnz / max(n, 1) / 2
    g = 1
    while g < 4 and g < mean:
        g *= 2
    return g


class Prepared:
    """What a batch derives from its graph and state alone: the index dtype
    ``idx`` (C type ``it``), the contiguous CSR arrays of the graph
    (``indptr``, ``indices``, m edges) and of its transpose (``tindptr``,
    ``tindices``), the pull step's lanes per vertex ``group``, the
    ``Kernels`` (``kern``), the grids, the hubs' chunk list, and the part of
    the captured graphs' keys they fix (``graph_key``; ``pull_key`` where a
    graph has pull steps). Kept in the ``Workspace`` for the next batch with
    the same objects (``ident``), which it holds (``held``), so that their
    ids stay theirs. On the lent H100's host a call spent ~0.18 ms in Python
    before its first kernel, ~7% of a kron-22 batch, and these lookups were
    half of it.

    >>> prep = prepare(workspace(), a, t, state, None, a.nrows, "msbfs", True)  # doctest: +SKIP
    >>> prep.group, prep.it  # doctest: +SKIP
    (4, 'int')
    """

    __slots__ = ("ident", "held", "idx", "it", "indptr", "indices", "m", "tindptr", "tindices",
                 "group", "kern", "settle_grid", "push_grid", "pull_grid", "chunks", "graph_key",
                 "pull_key")


def prepare(ws, a, t, state, lanes, n, where, keep, slot=0) -> Prepared:
    """``Prepared`` of graph ``a`` (transpose ``t``) and ``state``, with the
    workspace's buffers of ``slot`` (``Workspace.pinned``); with ``keep``
    (a state the caller reuses) kept in ``ws.prepared`` for the next call
    with the same objects (the last two, for two batches in flight: the
    last graph's arrays and states then stay referenced until batches on
    another graph or state in that thread).

    >>> prep = prepare(workspace(), a, t, state, None, a.nrows, "msbfs", True)  # doctest: +SKIP
    >>> prepare(workspace(), a, t, state, None, a.nrows, "msbfs", True) is prep  # doctest: +SKIP
    True
    """
    import cupy

    ident = (id(a), id(t), id(state), lanes, n, slot)
    got = ws.prepared.get(ident)
    if got is not None:
        return got
    p = Prepared()
    p.ident = ident
    p.held = (a, t, state) if keep else None
    idx = np.dtype(np.int64) if max(a.indptr.dtype.itemsize, a.indices.dtype.itemsize,
                                    t.indptr.dtype.itemsize, t.indices.dtype.itemsize) > 4 \
        else np.dtype(np.int32)
    p.idx, p.it = idx, INDEX[idx]
    p.indptr = cupy.ascontiguousarray(a.indptr, dtype=idx)
    p.indices = cupy.ascontiguousarray(a.indices, dtype=idx)
    p.m = int(p.indices.shape[0])
    p.tindptr = cupy.ascontiguousarray(t.indptr, dtype=idx)
    p.tindices = cupy.ascontiguousarray(t.indices, dtype=idx)
    p.group = pull_lanes(n, int(p.tindices.shape[0])) if lanes is None else int(lanes)
    if p.group not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"{where}: lanes={lanes!r} must be a power of 2 up to 32")
    kern = p.kern = kernels(p.it)
    p.settle_grid = grid(n, kern.wave(kern.settle))
    p.push_grid = kern.wave(kern.push)
    p.pull_grid = grid(n * p.group, kern.wave(kern.pull))
    state.views()
    p.chunks = ws.chunk_list(p.m, slot)
    args_d = ws.pinned(slot).args_d
    p.graph_key = (p.it, n, state.planes.shape[0], p.settle_grid, p.push_grid, kern.sms, tuple(
        x.data.ptr for x in (p.indptr, p.indices, p.chunks, state.planes, state.seen,
                             state.touched, state.wtouched, state.qa, state.qb, state.ctr,
                             state.stats, args_d)))
    p.pull_key = (p.group, p.pull_grid) + tuple(x.data.ptr for x in (p.tindptr, p.tindices))
    if keep:
        for old in list(ws.prepared)[:-1]:  # the newest one stays, beside this one
            del ws.prepared[old]
        ws.prepared[ident] = p
    return p


class Launches:
    """The launches a batch of the "levels" schedule is made of, bound to
    its ``Prepared`` arrays and grids, its ``State`` (with its ``Views``),
    the page-locked buffers, k sources over n vertices, ``write``, the
    flush window ``span``, the settings ``cfg`` and the direction rule's
    edge counts (``alpha_m``, ``all_pull_m``). Level L's steps read
    ``queue[(L - 1) % 2]``, its settle fills ``queue[L % 2]``; its new bits
    go to ``plane[L % R]``, its counters to ``slot[L % 3]``.

    >>> go = Launches(prep, state, ws.pinned(), k, n, True, 15, cfg, 0, 0, stream)  # doctest: +SKIP
    >>> go.settle(0, 0)  # doctest: +SKIP
    """

    __slots__ = ("n", "k", "R", "write", "span", "cfg", "alpha_m", "all_pull_m", "stream",
                 "stream_ptr", "kern", "sms", "indptr", "indices", "tindptr", "tindices", "group",
                 "chunks", "settle_grid", "push_grid", "pull_grid", "planes", "seen", "touched",
                 "wtouched", "ctr", "stats_d", "plane", "slot", "slot_ptr", "queue", "head_ptr",
                 "events", "ghead", "args_d", "stats_h", "graph_key", "pull_key")

    def __init__(self, prep, state, pinned, k, n, write, span, cfg, alpha_m, all_pull_m,
                 stream):
        self.n, self.k, self.R, self.write, self.span = n, k, state.planes.shape[0], write, span
        self.cfg, self.alpha_m, self.all_pull_m = cfg, alpha_m, all_pull_m
        self.stream, self.stream_ptr = stream, stream.ptr
        self.kern, self.sms = prep.kern, prep.kern.sms
        self.indptr, self.indices, self.chunks = prep.indptr, prep.indices, prep.chunks
        self.tindptr, self.tindices, self.group = prep.tindptr, prep.tindices, prep.group
        self.settle_grid, self.push_grid = prep.settle_grid, prep.push_grid
        self.pull_grid = prep.pull_grid
        self.planes, self.seen, self.touched = state.planes, state.seen, state.touched
        self.wtouched, self.ctr, self.stats_d = state.wtouched, state.ctr, state.stats
        views = state.views()
        self.plane, self.slot, self.slot_ptr = views.plane, views.slot, views.slot_ptr
        self.queue = views.queues[prep.idx == np.int32]
        self.head_ptr, self.events, self.ghead = pinned.head_ptr, pinned.events, pinned.ghead
        self.args_d, self.stats_h = pinned.args_d, pinned.stats
        # what every captured launch bakes in: the pull step's and the
        # direction rule's part of it only where the graph has pull steps
        self.graph_key = prep.graph_key + (k, span)
        self.pull_key = prep.pull_key + (int(alpha_m), int(all_pull_m))

    def start(self):
        """msbfs_start: the sources' bits into plane 0, counters and
        statistics zeroed."""
        self.kern.start((1,), (64,), (self.args_d, np.int32(self.k), self.plane[0], self.touched,
                                      self.ctr, self.stats_d))

    def settle(self, level, rel, direct=True):
        """Level ``level``'s settle, passed as ``rel`` past the base;
        direct=False: the next level goes top-down (the levels replayed as
        a graph without a pull step)."""
        a_m, p_m = (self.alpha_m, self.all_pull_m) if direct else (_PUSH_ONLY, _PUSH_ONLY)
        slot = self.slot
        self.kern.settle((self.settle_grid,), (BLOCK,),
                         (self.touched, self.wtouched, self.indptr, self.plane[level % self.R],
                          self.seen, self.queue[level % 2], self.chunks, slot[level % 3],
                          slot[(level + 1) % 3], slot[(level + 2) % 3], self.stats_d,
                          self.args_d, np.int64(self.n), np.int32(self.k), np.int32(rel), a_m,
                          p_m))

    def copy_head(self, level, sp):
        """The level's slot head to the host ring, without waiting for it."""
        import cupy

        cupy.cuda.runtime.memcpyAsync(self.head_ptr[level % RING], self.slot_ptr[level % 3], 64,
                                      2, sp)

    def report(self, level):
        """``copy_head`` on the batch's stream, and the ring's event after it."""
        self.copy_head(level, self.stream_ptr)
        self.events[level % RING].record(self.stream)

    def flush(self, first, count, keep, final, zmask=0xFFFF, at=0, dense_q=0):
        """msbfs_flush of levels first .. first + count - 1, with the base
        in args at ``at`` (count < 0: msbfs.cu's flush of the first levels)."""
        kern, n = self.kern, self.n
        smem = stage_bytes(abs(count), final)
        kern.flush((grid(n, kern.wave(kern.flush, smem)),), (BLOCK,),
                   (self.planes, np.int64(n), np.int32(self.R), np.int32(first - at),
                    np.int32(count), np.int32(keep), np.uint32(zmask), self.wtouched, self.seen,
                    self.args_d, self.stats_d, np.int64(dense_q), np.int32(self.k),
                    np.bool_(self.write), np.bool_(final)),
                   shared_mem=smem)

    def clear(self, dense_q, levels):
        """msbfs_clear: the dense planes of a traversal that ended within
        the first ``levels`` levels."""
        kern, n = self.kern, self.n
        kern.clear((grid(n, kern.wave(kern.clear)),), (BLOCK,),
                   (self.planes, np.int64(n), np.int32(self.R), self.stats_d,
                    np.int64(dense_q), np.int32(levels)))

    def push(self, level):
        """Level ``level``'s top-down step."""
        R = self.R
        self.kern.push((self.push_grid,), (BLOCK,),
                       (self.queue[(level - 1) % 2], self.chunks, self.indptr, self.indices,
                        self.plane[(level - 1) % R], self.seen, self.plane[level % R],
                        self.touched, self.slot[(level + 2) % 3], np.int32(self.sms)))

    def steps(self, level, mid=None):
        """Level ``level``'s bottom-up step, then its top-down step (``mid``:
        an event recorded between them): the frontier is plane
        (level - 1) % R, the new bits go to level % R."""
        R, slot = self.R, self.slot
        cur, nxt, prev = self.plane[(level - 1) % R], self.plane[level % R], slot[(level + 2) % 3]
        self.kern.pull((self.pull_grid,), (BLOCK,),
                       (self.tindptr, self.tindices, cur, self.seen, nxt, self.touched,
                        np.int64(self.n), np.int32(self.group), prev, slot[level % 3]))
        if mid is not None:
            mid.record()
        self.push(level)

    def head_levels(self, sp):
        """Levels 0 .. head_levels as ``levels_steps``'s loop launches them
        (no flush falls in them: head_levels <= span), each slot's head
        copied; with levels to write, then the final flush of the traversal
        that ends within them (msbfs.cu: count < 0; a longer one's is a
        no-op): no wait for the host between the last level and the flush."""
        import cupy

        head, n = self.cfg.head_levels, self.n
        self.start()
        self.settle(0, 0)
        self.copy_head(0, sp)
        for lv in range(1, head + 1):
            self.steps(lv)
            self.settle(lv, lv)
            self.copy_head(lv, sp)
        if self.write and self.cfg.head_flush:
            self.flush(0, -head, -1, True, 0, dense_q=n // self.cfg.dense_plane)
            cupy.cuda.runtime.memcpyAsync(self.stats_h.ctypes.data, self.stats_d.data.ptr,
                                          STATS * 8, 2, sp)

    def block_levels(self, sp):
        """Levels G .. 2 G - 1 (G = graph_levels) as run by
        ``levels_steps``'s loop (flushes every flush_span; top-down unless
        graph_pull), at base G: the graph serves every later block of G
        levels, with the base moved on by its last node."""
        import cupy

        G, graph_pull = self.cfg.graph_levels, bool(self.cfg.graph_pull)
        first_c, at = G - self.cfg.flush_span, G
        for lv in range(G, 2 * G):
            if lv - first_c > self.span:
                self.flush(first_c, lv - 1 - first_c, (lv - 1) % self.R, False, at=at)
                first_c = lv - 1
            self.steps(lv) if graph_pull else self.push(lv)
            self.settle(lv, lv - at, direct=graph_pull)
        last = 2 * G - 1
        cupy.cuda.runtime.memcpyAsync(self.ghead.ctypes.data, self.slot_ptr[last % 3], 64, 2, sp)
        self.kern.advance((1,), (1,), (self.args_d, np.int32(G)))

    def head_graph(self):
        """The captured graph of ``head_levels``."""
        cfg = self.cfg
        return captured(msbfs_state.CACHES.graphs.head, self.graph_key + (
            cfg.head_levels, bool(self.write and cfg.head_flush), self.pull_key,
            self.head_ptr[0]), self.head_levels)

    def replay(self):
        """The blocks of G = graph_levels levels from level G on, until one's
        last level found nothing (the levels past the last one do nothing);
        returns the base after the last block."""
        G, graph_pull = self.cfg.graph_levels, bool(self.cfg.graph_pull)
        body = captured(msbfs_state.CACHES.graphs.block, self.graph_key + (
            G, bool(self.write), self.pull_key if graph_pull else None,
            self.ghead.ctypes.data), self.block_levels)
        self.kern.advance((1,), (1,), (self.args_d, np.int32(G)))
        at, flight = G, []
        while True:
            body.launch(self.stream)
            flight.append(self.events[(at // G) % RING])
            flight[-1].record(self.stream)
            at += G
            if len(flight) > self.cfg.graph_lead:
                # the head is the oldest block's or a later one's: either
                # way, 0 means every level launched after it does nothing
                flight.pop(0).synchronize()
                if self.ghead[NQ] == 0:
                    return at


def finish(steps):
    """The statistics words of a ``levels_steps`` advanced past its launch:
    the rest of its batch run (the host waits for it).

    >>> st = finish(steps)  # doctest: +SKIP
    """
    try:
        next(steps)
    except StopIteration as done:
        return done.value
    raise RuntimeError("msbfs levels_steps: a batch yields once")


def levels_steps(a, t, state, src, rows_h, flat_ptr, write, alpha, all_pull, lanes, keep, cfg,
                 stats, where, slot=0):
    """``batch_run(..., schedule="levels")`` after its checks (module
    docstring) in two steps, a generator: the first ``next`` queues the
    batch's arguments and first levels (their graph, or level 0 when that
    is off) without waiting for them; the second (``finish``) runs the rest
    and returns the statistics words (numpy int64[STATS], msbfs.cu's S_*).
    Between the two, another batch may be queued on another state and
    ``slot`` (the workspace's buffers: pinned memory, arguments, chunk
    lists; ``Workspace``): its kernels then run before this one's later
    levels, on the same stream.

    >>> steps = levels_steps(a, t, state, src, rows, ptr, True, None, None, None, True, cfg,
    ...                      None, "msbfs", slot=1)  # doctest: +SKIP
    >>> next(steps); st = finish(steps)  # doctest: +SKIP
    """
    import cupy

    k, n = src.size, int(a.nrows)
    if stats is not None:
        stats.ran(("msbfs", "csr", "cuda", "batch"))
        stats.metrics["schedule"] = "levels"
    ws = workspace()
    prep = prepare(ws, a, t, state, lanes, n, where, keep, slot)
    pinned = ws.pinned(slot)
    heads, events, args_h, args_d = pinned.heads, pinned.events, pinned.args, pinned.args_d
    R = state.planes.shape[0]
    span = min(cfg.flush_span, R - 1)
    GRAPH_LEVELS, HEAD_LEVELS, HEAD_FLUSH = cfg.graph_levels, cfg.head_levels, cfg.head_flush
    FLUSH_SPAN, DENSE_PLANE, LEAD = cfg.flush_span, cfg.dense_plane, cfg.lead
    # the arguments (msbfs.cu's A_*; the copy of the last batch of this slot
    # is done: it ended with a synchronous read)
    args_h[:k] = src
    args_h[A_ROWS:A_ROWS + k] = rows_h[:k]
    args_h[A_BASE] = 0
    args_h[A_LEVELS] = flat_ptr
    stream = cupy.cuda.get_current_stream()
    cupy.cuda.runtime.memcpyAsync(args_d.data.ptr, args_h.ctypes.data, ARGS * 8, 1, stream.ptr)
    alpha = cfg.alpha if alpha is None else alpha
    all_pull = cfg.all_pull if all_pull is None else all_pull
    alpha_m = np.int64(min(max(alpha, 0.0) * prep.m, _BIG))
    all_pull_m = np.int64(min(max(all_pull, 0.0) * prep.m, _BIG))
    go = Launches(prep, state, pinned, k, n, write, span, cfg, alpha_m, all_pull_m, stream)
    plane, seen, wtouched = go.plane, state.seen, state.wtouched
    trace = stats.traces if stats is not None and stats.trace else None
    # the replayed levels need 16 planes (a state of fewer, when memory is
    # short, runs every level from the host) and no per-level trace
    graph = cfg.graph and trace is None and R == 16 and span == FLUSH_SPAN
    graph_pull = bool(cfg.graph_pull)
    base = 0  # the level base in args (msbfs.cu: A_BASE) once the replays are done

    level = checked = first = 0  # first: the oldest level not written out
    end = None  # the first level that found nothing, where the host saw it
    first_graph = trace is None and 0 < HEAD_LEVELS <= span
    if first_graph:
        # the first levels at once; the loop below then reads their heads
        # (their ring events are done: recorded and waited for by earlier
        # calls, or never recorded)
        go.head_graph().launch(stream)
        events[0].record(stream)
        if write and HEAD_FLUSH:
            # the dense planes of a traversal that ended in the graph: the
            # host returns without waiting for their zeroing
            go.clear(n // DENSE_PLANE, HEAD_LEVELS)
        yield
        events[0].synchronize()
        level = HEAD_LEVELS
    else:
        if trace is not None:
            ev = [cupy.cuda.Event() for _ in range(4)]
            ev[0].record()
        go.start()
        if trace is not None:
            ev[1].record()
        go.settle(0, 0)
        go.report(0)
        if trace is not None:
            events[0].synchronize()
            trace.append((0, "start", 0, 0, cupy.cuda.get_elapsed_time(ev[0], ev[1]), 0.0, 0,
                          0.0))
        yield
    nq = []  # per level checked: its queue size
    while True:
        # stop at the first level that found nothing; wait only for the
        # level LEAD behind the last one launched (for every level before
        # the graph takes over)
        done = False
        into_graph = graph and level == GRAPH_LEVELS - 1
        while checked <= level:
            e = events[checked % RING]
            if checked + LEAD <= level or trace is not None or into_graph:
                e.synchronize()
            elif not e.done:
                break
            nq.append(int(heads[checked % RING, NQ]))
            if nq[-1] == 0:
                done, end = True, checked
                break
            checked += 1
        if done:
            break
        if into_graph:
            assert first == GRAPH_LEVELS - FLUSH_SPAN
            base = go.replay()
            level, first = base - 1, base - FLUSH_SPAN
            break
        level += 1
        if level - first > span:  # the new level's plane must not hold an unwritten one
            go.flush(first, level - 1 - first, (level - 1) % R, False)
            first = level - 1
        head = heads[(level - 1) % RING].copy() if trace is not None else None
        if trace is not None:
            ev[0].record()
        go.steps(level, ev[3] if trace is not None else None)
        if trace is not None:
            ev[1].record()
        go.settle(level, level, direct=graph_pull or not (graph and level == GRAPH_LEVELS - 1))
        go.report(level)
        if trace is not None:
            ev[2].record()
            ev[2].synchronize()
            pb, qb_ = (int(head[PULL].view(np.uint64)).bit_count(),
                       int(head[PUSH].view(np.uint64)).bit_count())
            trace.append((level, f"pull {pb} push {qb_}", int(head[NQ]), int(head[MF]),
                          cupy.cuda.get_elapsed_time(ev[0], ev[1]),
                          cupy.cuda.get_elapsed_time(ev[1], ev[2]),
                          int(heads[level % RING, SCANNED]),
                          cupy.cuda.get_elapsed_time(ev[0], ev[3])))
    if trace is not None:
        ev[0].record()
    # the window's planes: the final flush zeroes the words it read of the
    # sparse ones, memsets clear the dense ones (DENSE_PLANE; the replayed
    # levels' sizes are not known: sparse);
    # without levels to write, memsets clear them all (and seen and the marks).
    # The levels from `end` on found nothing: their planes are zero and stay
    # out of the window (each would cost the flush a read of 8 n bytes)
    window = range(first, level + 1) if end is None else range(first, max(first, end))
    # a traversal that ended within the first levels was flushed by their
    # graph, which also copied the statistics; msbfs_clear, launched before
    # the host waited, zeroes the dense planes (the same rule)
    if write and first_graph and HEAD_FLUSH and end is not None and end <= HEAD_LEVELS:
        st = pinned.stats
    else:
        dense = [j for j, lv in enumerate(window)
                 if not write or (lv < len(nq) and nq[lv] >= n // DENSE_PLANE)]
        if write:
            sparse = sum(1 << j for j in range(len(window)) if j not in dense)
            go.flush(first, len(window), -1, True, sparse, at=base)
        for x in [plane[(first + j) % R] for j in dense] + ([] if write else [seen, wtouched]):
            cupy.cuda.runtime.memsetAsync(x.data.ptr, 0, x.nbytes, stream.ptr)
        st = None
    if trace is not None:
        ev[1].record()
        ev[1].synchronize()
        trace.append((level + 1, "final flush", 0, 0, 0.0, cupy.cuda.get_elapsed_time(ev[0], ev[1]),
                      0, 0.0))
    if st is None:
        st = state.stats.get()  # synchronize! the statistics, and the levels written
    return st
