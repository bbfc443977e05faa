"""Settings of the traversals: BFS (CPU and the fused GPU kernel), the
asynchronous GPU BFS, and msbfs (CPU and GPU).

Each field: its rule, and the one measurement that set it. To measure a
field again, compare its values with ``benchmarks/ab.py`` (for example
``python benchmarks/ab.py --algo bfs --graph kron:16 "" bfs.alpha=0.1``);
``python benchmarks/run.py --algo bfs,msbfs`` gives the current times.
"""

from __future__ import annotations

from dataclasses import dataclass

from bitgraph.settings._knob import knob

__all__ = ["BFS", "BFSCuda", "BFSAsync", "MSBFS", "MSBFSCuda"]


@dataclass(frozen=True)
class BFS:
    """``bfs`` on the CPU (``algorithms/breadth_first.py``), and the ``auto`` rule's probe.

    >>> BFS().alpha
    0.02
    """
    alpha: float = knob(0.02, """XBFS's switch: a level runs bottom-up when the frontier's
        out-edges exceed alpha * m. On the 2-core CPU a kron-20 BFS took 21 ms at 0.02 against
        28 ms at 0.1.""")
    serial_level_work: int = knob(50_000, """Top-down levels whose frontier has at most this
        many out-edges run serially in one kernel call: below it the thread pool's dispatch
        (~20-50 us) costs more than the level.""")
    probe_sources: int = knob(3, """auto on CUDA: the long-diameter probe starts from this many
        random vertices of non-zero out-degree ...""")
    probe_hops: int = knob(24, """... and calls a graph long when probe_hops hops still reach
        fewer than n / probe_share vertices while the frontier is not exhausted (a grid, a road
        network: the ball grows polynomially; kron and urand pass n / 100 within a few hops).""")
    probe_share: int = knob(100, "See probe_hops.")
    probe_min_n: int = knob(100_000, """Graphs under this many vertices are not probed (their
        BFSs are short either way).""")


@dataclass(frozen=True)
class BFSCuda:
    """The fused GPU BFS (``bfs_fused.cu``: methods blest, push, direction).

    >>> BFSCuda().alpha
    0.05
    """
    alpha: float = knob(0.05, """A level runs bottom-up when the frontier's out-degree sum
        exceeds alpha * m (XBFS's rule; the value is the best of a sweep on the H100). H200,
        whole call, mean of 16 sources: alpha 0.03 / 0.05 / 0.08 / 0.12 gave urand-21 0.195 /
        0.194 / 0.194 / 0.192 ms and kron-21 0.165 / 0.162 / 0.159 / 0.160 (within one
        run's spread).""")
    beta: int = knob(18, """After a bottom-up level the next stays bottom-up while the frontier
        holds more than n_live / beta vertices (Beamer's rule; 0: off). On R-MAT the level after
        the two big ones still holds 5-35% of the peak frontier. H200, whole call, mean of 16
        sources: beta 12 / 18 / 24 / 36 gave urand-21 0.191 / 0.194 / 0.193 / 0.193 ms and
        kron-21 0.162 / 0.162 / 0.162 / 0.160.""")
    dead_visited: bool = knob(True, """Vertices with no in-edges start visited, so bottom-up
        levels skip them (R-MAT: ~40% of the vertices).""")
    sort_in_lists: bool = knob(True, """Bottom-up levels read in-neighbour lists ordered by
        out-degree, largest first (XBFS): the early exit comes sooner.""")
    hops_max_degree: float = knob(40.0, """auto runs the hops method (bfs_hops.cu) on a graph of
        long diameter (BFS.probe_*) with at most this mean out-degree, else direction. One
        source on an H200, whole call, ms: rgg-22 d16 5.05 against direction 8.58, d8 5.68
        against async 11.9, d32 6.11 against direction 7.1; grid-2048 5.24 against async 6.62;
        moore-2048 3.97 against async 6.79; the 161^3 grid 2.07 against async 1.78 (the one long
        graph measured where hops is not the fastest). Measured up to mean degree 32.""")
    blest_min_reach: int = knob(8, """auto runs blest (the BVSS pull in A's own order) on a
        graph whose probe ball (``bfs.reach``, BFS.probe_*) passes n / probe_share vertices after
        this many hops or more, but within probe_hops (R-MAT and uniform random graphs: 2-4
        hops; 26-neighbour 3D meshes: 10-17), of mean out-degree at least blest_min_degree. H200,
        one source, whole call, ms, blest / window / hops (k 8) / async / direction:
        moore:161x161x161 2.11 / 2.36 / 2.61 / 3.86 / 4.88 (Blest's own kernel 2.26),
        moore:128x128x128 1.30 / 1.40 / 1.50 / 1.84 / 3.56, moore:96x96x96 0.93 / 1.08 / 0.93 /
        1.20 / 2.68, moore:256x256x64 2.67 / 2.75 / 2.65 / 3.54 / 6.04.""")
    blest_min_degree: float = knob(16.0, """See blest_min_reach: at this mean degree a random
        graph's ball passes n / 100 within 5 hops, so a middle reach means a mesh.""")
    blest_local_share: int = knob(16, """... and whose ids are local: the median |i - j| of
        sampled entries (``components.samples`` of them) under n / blest_local_share (3D meshes in
        their natural order: n / 41 or less; random ids, as a generated rgg's: about n / 3.5).""")
    window_levels: int = knob(2, """bfs_window: an item is relaxed only when its level is at
        most the least pending level plus this (0: levels in order, never a relabel; large: the
        plain work list's order). rgg-22 d16 on an H200: 0 22.5 ms, 1 17.2, 2 13.5, 8 11.6,
        10^6 12.2 (direction 8.85; auto runs hops there). Window lost everywhere it was meant
        for: rgg-22 d16 13.4 vs direction 8.85, d32 12.3 vs 6.86, d8 16.5 vs async 13.0,
        moore:2048x2048 9.84 vs async 6.98 (H200).""")
    window_hold_s: float = knob(20e-6, """bfs_window: a lane holds an item above the window at
        most this long, then relaxes it anyway (the list is FIFO: an item of the window may sit
        behind held ones); not yet measured on a GPU.""")
    window_chain_max: int = knob(64, """bfs_window: a lane relaxes one child of each item itself
        (when the child is in the window), up to this many in a row; as bfs_async's chain_max.""")
    window_check: bool = knob(True, """bfs_window: each edge's head level is read first and the
        atomicMin sent only where it would lower it (on rgg most heads are reached already); not
        yet measured on a GPU.""")
    window_prefetch_rows: bool = knob(True, """bfs_window: the heads' row bounds load with their
        atomicMin (one wavefront's latency bounds the traversal), else the children's only.""")
    window_warps_per_sm: int = knob(8, """bfs_window: resident warps per multiprocessor polling
        the list (16 edges a round: 164 registers a thread, 8 warps of 256-thread blocks an SM).""")
    window_cap_per_vertex: float = knob(4, """bfs_window: work-list slots per vertex (16 bytes
        each); past them the traversal gives up and push runs.""")
    window_patience_s: float = knob(2.0, "bfs_window: a warp idle this long gives up.")
    window_round_edges: int = knob(0, """bfs_window: edges per lane and round, 4, 8 or 16 (0: the
        least of them at or above the mean degree: a typical row in one round).""")
    hops_levels: int = knob(16, """bfs method "hops" (bfs_hops.cu): hops a grid barrier, each
        block walking its share of a phase's start that many hops on its own (block barriers
        between hops). H200, one source, whole call, ms (k = 8 / 16 / 32): rgg-22 d16 5.26 /
        5.05 / 5.35, d8 5.82 / 5.68 / 5.90, d32 6.20 / 6.11 / 7.01, grid-2048 6.12 / 5.24 /
        4.93, moore-2048 4.41 / 3.97 / 3.82, 161^3 grid 2.10 / 2.07 / 2.60; at 2 and 4 rgg d16
        took 7.62 and 6.16, at 64 7.30.""")
    hops_list: int = knob(2560, """bfs method "hops": a block's list of the items to walk at its
        next hop holds at most this many (at most the kernel's LIST, 2,560); past it an item goes
        to the next phase's queue (tests force small lists).""")
    hops_queue: float = knob(1.0, """bfs method "hops": a phase's queue holds this many items a
        vertex (16 bytes each with the two halves); past it the call gives up and runs push.""")
    threads: int = knob(1024, """Threads per block of the persistent kernel (its
        __launch_bounds__; generated into the .cu).""")
    blocks_per_sm: int = knob(1, """Blocks per multiprocessor at most: every block arrives at each
        level's barrier (H100: 264 blocks of 512 threads on one counter cost ~5 us a level).""")
    lazy_udiv: int = knob(25_000, """Blest's rule: the lazy update when the BVSS's update
        divergence exceeds this (and the graph is social-like) ...""")
    lazy_min_queue: float = knob(1 / 64, """... and then only on levels whose queue holds at
        least this share of the VSSs: the lazy sweep reads all n / 32 words.""")
    scan_min: float = knob(1 / 8, """XBFS's top-down choice over CSR: single-scan (mark, then one
        sweep of the n / 32 words builds the frontier) when the level scans at least
        scan_min * n out-edges, else scan-free (claim and enqueue each vertex); inf: never.""")
    scan_found: float = knob(0.1, """... and (when > 0) the level before found at least this many
        new vertices per out-edge of its frontier (a level after a single-block one is not held
        back). About 1 on urand and R-MAT's first levels, 0.04 on a 26-neighbour mesh, whose
        single-scan levels took 43.8 us against 8.9 for eager ones: direction on moore-128^3
        3.51 ms at 0, 1.89 at 0.1 (H100; kron-22 0.231 / 0.228, urand-21 0.205 / 0.204). 0: off
        (XBFS's rule alone).""")
    single_edges: int = knob(2048, """Single-block levels (BFS-4K): a level whose frontier has at
        most SB_FRONTIER vertices (a layout constant of the kernel) and at most this many
        out-edges runs in block 0 alone, with block barriers only (at most LIST_CAP).""")
    force_update: str | None = knob(None, """Tests: "eager" or "lazy" forces Blest's update;
        None: Blest's rule.""")
    force_bottom_up: bool | str | None = knob(None, """Tests: True / False / "always" forces
        the bottom-up levels; None: the alpha rule.""")
    force_mma: bool | None = knob(None, """Tests: False runs the SIMT twin of the tensor-core
        step (same result); None: tensor cores.""")
    force_single: bool | None = knob(None, """Tests: False never runs single-block levels;
        None: when small.""")


@dataclass(frozen=True)
class BFSAsync:
    """The asynchronous label-correcting GPU BFS (``bfs_async.cu``), alone and
    as msbfs's side-by-side batches.

    >>> BFSAsync().cap_per_vertex
    4
    """
    cap_per_vertex: float = knob(4, """Work-list slots per vertex (16 bytes each): a vertex is
        appended once per improvement of its level, ~1-2 times on grids; past the cap the
        traversal gives up and the caller runs a level-synchronous method.""")
    warps_per_sm: int = knob(8, """Resident warps per multiprocessor polling the list (more:
        more items in flight, and more polling traffic).""")
    patience_s: float = knob(2.0, "A warp that finds nothing to do for this long gives up.")
    chain_max: int = knob(64, """A lane relaxes one child of each item itself, without the list,
        up to this many in a row (0: every child goes through the list).""")
    prefetch_rows: bool = knob(True, """The producer loads the row bounds of every edge's head
        with its atomicMin (one wavefront's latency bounds a single BFS), else of the children
        only, after the atomics.""")
    batch_min_sources: int = knob(8, """A batch of at least this many sources is bound by
        throughput, not latency, and runs with the batch_* settings below.""")
    batch_cap_per_vertex: float = knob(1.25, """Slots per vertex and source of such a batch: 64
        sources on a 4M-vertex graph hold 5 GiB at 1.25; grid-2048 and the 3D grid append
        1.00-1.01, rgg 1.5+ (it gives up and runs the cooperative launch).""")
    batch_min_cap: int = knob(1 << 20, """... and at least min(k n^2, this) slots: a (vertex,
        source) is appended at most n - 1 times, so small graphs never give up.""")
    batch_chain_max: int = knob(0, """Chains of a batch: none. 64 sources on grid-2048 (H100)
        took 58.1 ms without chains and 68.9 ms with chains of 2.""")
    batch_prefetch_rows: bool = knob(False, """prefetch_rows of a batch: off (a batch is bound
        by throughput, not by one wavefront's latency).""")
    batch_check: bool = knob(True, """A batch reads each edge's head level first and sends the
        atomicMin only where it would lower it: 64 sources on the 3D grid (H100) took 69.4 ms
        with the check against 99.0 ms without.""")
    batch_warps_per_sm: int = knob(12, """Warps per multiprocessor of a batch: the best of 8, 12
        and 16 on grid-2048 (64 sources, H100: 41.5 ms against 48.3 at 8).""")


@dataclass(frozen=True)
class MSBFS:
    """msbfs on the CPU (``kernels/cpu/msbfs.py``) and the batching rules of
    every device.

    >>> MSBFS().alpha
    0.1
    """
    alpha: float = knob(0.1, """XBFS's switch for the whole batch: bottom-up when the frontier's
        out-edges exceed alpha * m. kron/urand scale 16, 64 sources: 0.02-0.2 within noise.""")
    bottom_up_fail: int = knob(4, """A bottom-up level that scanned more than this many times the
        edges top-down would have pushed raises the switch to that many times the push's edges.""")
    groupby_p: int = knob(16, """iBFS GroupBy: sources of out-degree < groupby_p that share an
        out-neighbour of out-degree > groupby_q go into the same batch.""")
    groupby_q: int = knob(128, "See groupby_p.")
    group_batches: int = knob(32, """closeness_centrality and eccentricity first order their
        sources by their out-neighbour of the highest out-degree in the graph they walk
        (``_common.anchor_order``, settings.betweenness.group_batches's rule) when the sources
        with out-edges make at least this many batches of 64 (0: never); the values do not
        change. 4,096 sources: kron-22 on an H200 66.7 -> 57.3 ms, urand-22 187.2 -> 191.9;
        2 CPU threads, kron-18 959 / 1,024 -> 841 / 722 ms (two rounds), urand-16 268 / 244 ->
        254 / 240.""")
    parallel_work: int = knob(400_000, """A level (or a side-by-side batch: n + m) below this much
        work runs serially: a level on the pool costs ~0.2-0.3 ms of Python glue.""")
    schedule: str | None = knob(None, """How the CPU runs msbfs's sources: "levels" (a batch of 64
        as one bit-parallel traversal, level by level) or "async" (each source's BFS alone,
        top-down, the sources side by side on the pool: ``kernels/cpu/msbfs.sources_run``);
        None: "async" on a deep graph (async_min_levels), else "levels".""")
    async_min_levels: int = knob(64, """A graph is deep when the BFS ball around a probe vertex
        (bfs.reach's, bfs.probe_sources of them) still grows after this many hops: a batch's 64
        wavefronts then reach a vertex at as many levels, one bit at a time, and the batch does
        each source's work anyway with a level's overhead on top. 64 sources, 2 threads, ms
        (levels / async): grid-256 144 / 34, grid-1024 7,134 / 884, 3D grid 40^3 123 / 38,
        rgg-16 (n 65,536, r 0.008) 295 / 112, 26-neighbour 128x128x8 308 / 144; at most 64
        levels deep, levels wins: 26-neighbour 64^3 450 / 595, 40^3 123 / 159, kron-16 11 / 100,
        urand-16 14 / 125.""")
    async_min_reach: int = knob(4, """... probed only when bfs.reach (its probe on any graph
        size) is above this: kron-16 and urand-16 pass n / 100 within 2-3 hops (levels, without
        a depth probe that would walk most of their edges); the meshes and rgg above take 6-18,
        urand-16 of degree 4 takes 5 (its depth probe: levels).""")
    diameter_batch: int = knob(1, """Sources of the first step of the bounded diameter
        (Takes-Kosters); each later step doubles them, up to 64 (one msbfs batch, half of largest
        upper bound, half of smallest lower bound). Where the bounds prune (grids, kron) few BFSs
        run; where they do not (urand) batches of 64 cost about one BFS each. CPU, largest
        component: grid-200 7 BFSs, kron-16 11, urand-14 2,930 in 0.31 s (fixed batches of 1:
        1.8 s; of 64 from the start: grid-200 134 BFSs).""")


@dataclass(frozen=True)
class MSBFSCuda:
    """msbfs on the GPU (``msbfs.cu``: level kernels, the cooperative launch)
    and the choice of schedule.

    >>> MSBFSCuda().alpha
    0.02
    """
    schedule: str | None = knob(None, """"levels" (a launch per step), "coop" (one cooperative
        launch a batch, a grid barrier a level), "async" (the batch's BFSs side by side in
        bfs_async.cu), or None: coop for graphs of long diameter, async for those with at most
        async_max_degree entries a row, else levels. 64 sources on grid-2048 (H100): async
        44.5 ms, coop 84.8, levels 179.""")
    async_max_degree: float = knob(6.0, """Road-like: the 3D grid (5.96 a row) runs side by side
        (H100: 58.3 ms against 66.5 cooperative); rgg (8-16 a row) keeps the cooperative
        launch, where async gives up.""")
    alpha: float = knob(0.02, """Per-source direction: a source goes bottom-up when its frontier
        has more than alpha * m out-edges; best of 0.01-0.1 on kron, all equal on urand.""")
    all_pull: float = knob(0.15, """Every source goes bottom-up when the top-down sources would
        walk more than all_pull * m edges. kron-22 (H100) takes 2.7 ms from 0.1 to 0.25 and 11.5
        ms at 0.05, where its hub level goes bottom-up; 0.15 keeps a 3x margin.""")
    lead: int = knob(2, """Levels the host launches before it waits for the oldest one's queue
        size. 1 to 3 are within noise (kron-22 and urand-22).""")
    flush_span: int = knob(12, """Levels written out by one flush (at most planes - 1).""")
    planes: int = knob(16, """Frontier planes kept before their levels are written out (at most
        16: a level's offset in the window is 4 bits); fewer when free memory is short.""")
    dense_plane: int = knob(16, """The final flush zeroes the words it read of a plane whose level
        held fewer than n / dense_plane vertices; memsets clear the others.""")
    graph: bool = knob(True, """From level graph_levels on, the levels run as a captured CUDA graph
        replayed until a level finds nothing: 64 sources on grid-2048 (H100) take 189 ms with it
        against 259 ms without.""")
    graph_levels: int = knob(48, """Levels per captured graph (a multiple of the 2 queues, 3
        counter slots, the planes and flush_span).""")
    graph_pull: bool = knob(False, """The captured levels include the pull step (3D grid, H100:
        85 ms with it against 66.5 without).""")
    graph_lead: int = knob(1, "Replays in flight before the host reads the oldest one's last queue.")
    head_levels: int = knob(10, """Levels 0 .. head_levels run as one captured graph with their
        pull steps (0: off). kron-22: 2.456 ms at 10 against 2.504 ms off.""")
    head_flush: bool = knob(True, """The final flush of a traversal that ends within the head
        levels runs in their graph.""")
    pipeline: bool = knob(True, """A call of several "levels" batches keeps two in flight, each
        on its own state: the next batch's first levels are queued before the host reads the
        last one's counters, so the GPU does not wait for the host between batches (20-37 us
        a batch). H100, medians of 6, on / off: closeness of 4,096 sources kron-22 66.7 / 67.4
        ms, urand-22 (degree 16) 234.2 / 235.8; msbfs of 512 sources kron-22 17.7 / 18.0,
        urand-22 32.5 / 33.7. The second state holds (8 planes + 25) n bytes more (0.6 GB
        on kron-22); off, or when it does not fit a quarter of the free memory: one batch at a
        time.""")
    coop_blocks_per_sm: int = knob(1, """Blocks of the cooperative launch per multiprocessor at
        most: every block arrives at each level's barrier, so few blocks keep a barrier cheap
        (as bfs_cuda.blocks_per_sm).""")
    coop_stage: int = knob(16384, """Entries of a block's stage of the next queue in the
        cooperative launch (dynamic shared memory: 64 KiB of int32, 128 KiB of int64); past it a
        warp appends to the queue itself (0: always).""")
    coop_sweep: float = knob(1 / 8, """The cooperative launch builds a level's queue by one sweep
        of the bitmap when the level found more than this share of n (else by atomics).""")
