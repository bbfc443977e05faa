"""Settings of the core: the plan's rules, the CPU and CUDA launch shapes,
the formats' heuristics, and the algorithms other than the traversals.

Each field: its rule, and the one measurement that set it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bitgraph.settings._knob import knob

__all__ = ["Plan", "CPU", "Cuda", "Formats", "IO", "Reorder", "Triangles", "Components", "SSSP",
           "PageRank", "Betweenness", "Distributed"]


@dataclass(frozen=True)
class Plan:
    """``plan``: which format and kernel an operation runs on.

    >>> Plan().push_density
    0.0625
    """
    push_density: float = knob(1 / 16, """mxv pushes when nvals(u) <= push_density * size(u):
        at 1/16 the push's expected work on a uniform graph is ~6% of the pull's.""")
    bits_mxv_tile: int = knob(32, """CPU: a pattern-only Boolean mxv runs the B2SR BMV on tiles of
        this size when the profile estimates at least bits_mxv_min_per_tile entries a tile
        (a masked lor_land step on a mesh, 26-32 a tile: 1.0-1.4x the CSR pull; ~1 a tile:
        0.03-0.3x).""")
    bits_mxv_min_per_tile: float = knob(16.0, "See bits_mxv_tile.")
    bits_mxm_tile: int = knob(8, """CPU: a masked pattern-only mxm (triangle counting) runs the
        B2SR BMM on tiles of this size at bits_mxm_min_per_tile entries a tile or more
        (RCM-ordered rgg, 9 a tile: 1.3-1.4x the masked dot products).""")
    bits_mxm_min_per_tile: float = knob(4.0, "See bits_mxm_tile.")
    cuda_bits_tile: int = knob(8, """CUDA: a BFS-like mxv runs B2SR-8 bin_bin_bin (H100: urand-22
        0.10 ms against the CSR pull's 0.34; grid-2048 0.061 against 0.12) ...""")
    hub_share: float = knob(0.05, """... unless the top 1% of rows hold more than this share of
        the entries (kron-22: 1.5 ms against 0.84: its hub tile rows serialise).""")
    bits_tile: int = knob(0, """The tile size of a product run with method="bits" (mxv, vxm, mxm,
        triangle_count's "tensor_core"); 0: the sampling profile's choice (the smallest
        estimated B2SR).""")


@dataclass(frozen=True)
class CPU:
    """numba kernels' thresholds.

    >>> CPU().serial_below
    50000
    """
    serial_below: int = knob(50_000, """Kernels run serially below this much work (stored entries;
        the elementwise kernels below 4x this many entries): a round on the thread pool costs
        ~20-50 us.""")
    bvss_parallel_queue: int = knob(4096, """Blest's CPU step (``bvss_step``) runs a queue of at
        least this many VSSs in parallel chunks with bitmaps, below it serially with a list: the
        pool's dispatch (8 chunks, ~0.4 ms) outweighs a small level (a 1024x1024 grid BFS 2.4 s
        at 256, 0.63 s at 4096; kron-18 unchanged).""")


@dataclass(frozen=True)
class Cuda:
    """Launch shapes and work splits of the CUDA kernels other than the
    traversals (elementwise, SpMV, SpMSpV, SpGEMM, reductions, conversions,
    the B2SR products).

    >>> Cuda().threads
    256
    """
    threads: int = knob(256, """Threads per block of the grid-stride launches (elementwise,
        SpMV, SpMSpV, SpGEMM, reductions, conversions; at most 1024, a multiple of 32).""")
    blocks_per_sm: int = knob(32, """Blocks per multiprocessor at most (grid-stride loops do the
        rest).""")
    bmv_blocks_per_sm: int = knob(8, """The B2SR BMV's blocks per multiprocessor at most: its
        tile-row groups are handed out by a grid-stride loop, so a few resident blocks keep the
        loads in flight.""")
    bmv_steps: int = knob(8, """The B2SR BMV cuts a tile row longer than this many of its group's
        steps into chunks that run in parallel (their partial results folded after).""")
    spmv_split_above: int = knob(1024, """The CSR pull (mxv) cuts a row of more entries than this
        into chunks of spmv_chunk entries, a whole block each, folded in order by a second launch;
        shorter rows take a group of lanes each. A group of 32 lanes a row left kron-22's hubs to
        one warp each: 5.4 ms against cuSPARSE's SpMV 1.1 (H100, plus_times).""")
    spmv_chunk: int = knob(2048, "Entries of a heavy row's chunk (spmv_split_above).")
    spmv_warp_above: int = knob(64, """The CSR pull (mxv) gives a row of more entries than this
        (and at most spmv_split_above) a warp of its own; shorter rows share a warp in groups of
        lanes sized by their median length, where one long row holds its warp's other lanes idle
        (kron-22 plus_times, H100: 2.37 ms with no such rows, 1.47 at 128). A/B over 3 rounds
        (H100, x 128): 32 1.03 kron-22, 0.92 urand-22; 64 1.04, 1.00, grid-2048 1.01; 256 1.00,
        0.99, 1.01.""")
    bmm_heavy: int = knob(1024, """The B2SR BMM defers an output tile of the binary-search path
        (A's tile row too long for the shared-memory hash table) whose shorter list of tiles is
        longer than this, and cuts it into chunks of bmm_chunk tiles, a warp each: one hub's tile
        row then spreads over the GPU instead of holding one warp.""")
    bmm_chunk: int = knob(256, "See bmm_heavy.")
    bmm_stream: int = knob(1024, """A hashed A(I) streams BT(J) while |BT(J)| <= bmm_stream *
        ceil(|A(I)| / 32), else the lanes binary-search the shorter list in the longer.""")
    spgemm_max_products: int = knob(1 << 26, """Gustavson's SpGEMM expands at most this many
        products at once (plus one B row): ~(2 key + value + 24) bytes each, 2.7 GB for float64
        at 2^26; larger products run as chunks of A's entries.""")
    spgemm_key32_chunks: int = knob(256, """An unmasked SpGEMM is cut at rows into chunks whose
        keys fit uint32 when that takes at most this many chunks (radix sort of 4-byte keys:
        1.35x faster than 8-byte ones on A @ A).""")
    reduce_items: int = knob(32, """Values one lane of a segment reduction folds per unit at most
        (a unit is lanes * reduce_items values; longer segments are reduced again).""")
    reduce_host_segments: int = knob(4096, """A reduction over at most this many segments counts
        its units on the host from a copy of indptr (no launches, one small transfer).""")
    precompiled: bool = knob(True, """Load a CUDA module from the fatbin shipped in the wheel
        (nvcc, SASS for sm_80 and sm_90, PTX compute_90) when its source text matches and it holds
        SASS for the GPU, else compile it with NVRTC (False: always NVRTC, for tests and A/B
        runs). Not yet measured on a GPU.""")


@dataclass(frozen=True)
class Formats:
    """The formats' heuristics: the sampling profile (the orderings' are
    ``Reorder``).

    >>> Formats().profile_sample
    256
    """
    profile_sample: int = knob(256, """32-row groups the sampling profile reads: ~0.1% of a
        10^7-vertex graph, error ~1-2%.""")


@dataclass(frozen=True)
class Reorder:
    """The orderings (``formats/reorder.py``): Blest's social-likeness test,
    which picks Jaccard-with-windows (social) or RCM (others), and the hub
    limits of Gorder and Jaccard-with-windows.

    >>> Reorder().top1_share
    0.05
    """
    top1_share: float = knob(0.05, """Social-like by its heavy tail (Blest 3.2.1): the top 1% of
        vertices by degree hold more than this share of the edge ends ...""")
    top10_share: float = knob(0.40, "... and the top 10% more than this share.")
    alpha_lo: float = knob(2.0, """... or by a power-law tail: the discrete MLE exponent lies in
        (alpha_lo, alpha_hi), the range of scale-free networks (Clauset-Shalizi-Newman 2009 find
        2 < alpha < 3 for most social and web graphs) ...""")
    alpha_hi: float = knob(3.0, "See alpha_lo.")
    tail_min: int = knob(50, """... fitted over a tail of at least this many vertices ...""")
    tail_decades: float = knob(1.0, """... spanning at least this many decades of degree ...""")
    ks_max: float = knob(0.1, """... with a Kolmogorov-Smirnov distance at most this (the tail must
        look straight on log-log, not just decay).""")
    jaccard_hub: int = knob(1 << 16, """Jaccard-with-windows leaves out of the similarity the
        elements adjacent to more than max(window, jaccard_hub) vertices.""")
    gorder_hub_min: int = knob(64, """Gorder's 2-hop expansion skips in-neighbours of out-degree
        above max(isqrt(n), gorder_hub_min) (Gorder's code: sqrt(n)); kron-19 (hub 724) takes
        ~23 s here.""")


@dataclass(frozen=True)
class Triangles:
    """``triangle_count``.

    >>> Triangles().min_average_degree
    10
    """
    min_average_degree: int = knob(10, """gapbs's WorthRelabelling: relabel by degree when there
        are at least this many undirected edges a vertex ...""")
    skew: float = knob(1.3, "... and the sampled mean degree is above skew times the median.")
    samples: int = knob(1000, "Vertices sampled for that test.")
    grain: int = knob(64, """Rows per grab from the shared counter of the CPU ordered count (a
        task per thread; gapbs's schedule(dynamic, 64)): a row's work is far from its length on
        skewed graphs.""")
    cuda_method: str = knob("ordered", """The method ``"auto"`` runs on a CUDA graph: ``"ordered"``
        (the fused kernel, ``kernels/cuda/triangles.cu``: one pass over L's edges, no output
        matrix, no mask) or ``"mxm"``/``"tensor_core"`` (the masked plus_pair product). Not yet
        measured on a GPU; ordered as on the CPU, where it is 4-6x faster than mxm.""")
    merge_ratio: int = knob(4, """CUDA ordered count: an edge's two lists are merged when neither
        is longer than this times the other, else the shorter one's entries are binary-searched
        in the longer one. Not yet measured on a GPU.""")


@dataclass(frozen=True)
class Components:
    """``connected_components``.

    >>> Components().rounds
    2
    """
    rounds: int = knob(2, "Afforest's sampling rounds (gapbs's neighbor_rounds).")
    serial_below: int = knob(1 << 20, """Afforest runs serially below this many stored entries +
        vertices: it touches few of them in 6 passes, and each pooled pass costs a dispatch
        (busy 2-core box: grid-256 0.6-1 ms serial, 1.6 ms pooled).""")
    cuda_samples: int = knob(256, """CUDA Afforest: vertices sampled to find the largest partial
        component (at most constants.COMPONENTS["SAMPLE_CAP"]): one block counts each against all
        in shared memory, O(samples^2 / 1024) a thread on one multiprocessor, on the critical path
        (gapbs's 1024 costs ~16x 256's: an estimated ~15 us); a component holding a few percent
        more of the vertices than the next still wins 256 draws. Not yet measured on a GPU.""")
    cuda_warp_degree: int = knob(16, """CUDA Afforest's last round: a vertex with more remaining
        entries than this is linked by a warp (its lanes over the entries), not by its own thread
        (ECL-CC's 16). Not yet measured on a GPU.""")
    cuda_block_degree: int = knob(352, """CUDA Afforest's last round: a vertex with more remaining
        entries than this is linked by a whole block of ``cuda_block_threads`` (ECL-CC's 352).
        Not yet measured on a GPU.""")
    cuda_block_threads: int = knob(256, """Threads of a block of the last round's list launch
        (its warps take the warp list, the whole block one vertex of the block list; a multiple
        of 32, at most 1024, else a ValueError). Not yet measured on a GPU.""")
    cuda_presample: str = knob("auto", """CUDA Afforest's start. ``"on"``: cc_init points every
        vertex at the smallest of its first ``rounds`` entries and a compress flattens those chains
        before the sampling links (a mesh in natural order, whose first entries are the vertex
        above and the one before: grid-2048 0.33 ms, 0.77 without); ``"off"``: every vertex
        starts alone and the compress follows the links (ids in random order: kron-21 0.23 ms,
        0.45 with the head start, whose hooks pile onto a few roots; H200, kernels alone);
        ``"auto"``: on when the median |i - j| of ``samples`` random entries (i, j) is under n /
        ``local_share`` (cached on the graph), else off.""")
    local_share: int = knob(16, """... "auto"'s cut: grid-256 and 3D meshes give a median
        |i - j| of n / 41 or less, kron, urand and rgg (random ids) n / 3.4 to n / 3.7.""")
    samples: int = knob(1000, "Entries sampled for that median.")


@dataclass(frozen=True)
class SSSP:
    """``sssp``.

    >>> SSSP().max_bins
    65536
    """
    max_bins: int = knob(1 << 16, """Delta-stepping's circular window holds at most this many
        buckets (delta is widened so that max_weight / delta fits).""")
    par_edges: int = knob(1_000, """A delta-stepping thread shares its list of the next bucket
        with the other threads when the list's out-edges (entries times the mean degree) reach
        this; a smaller list it relaxes itself. 2 threads, weights 1-255, min of 3 x 6, at 0 /
        250 / 1k / 4k (fuse_edges 1k): grid-512 (delta 64) 9.6 / 9.3 / 9.9 / 14.1 ms, kron-18 and
        urand-18 within the noise (10%) of this 2-core box.""")
    fuse_edges: int = knob(1_000, """A delta-stepping thread goes on relaxing its own list of the
        current bucket, without a barrier, while the list's out-edges stay below this (bucket
        fusion; at least par_edges). Helpers start only for a graph of at least this many edges
        (and par_edges). Same runs, 1k vs 4k: within the noise on kron-18, urand-18, grid-512.""")
    spin_pauses: int = knob(1 << 10, """A delta-stepping thread waiting at a barrier (or for the
        others to join) checks this many times with a pause (~20-30 ns), then yields its CPU at
        every check: on a busy machine the thread it waits for may need that CPU. 2 threads beside
        one busy process, min of 8, never yielding -> this: urand-18 457 -> 173 ms, grid-512 53 ->
        42; alone, within 1% (64 to 256k alike).""")
    cuda_delta_scale: float = knob(16.0, """CUDA delta-stepping's default delta is default_delta
        (the CPU's) times this on a graph of short diameter. H200, int weights 1-255, whole call
        at 8x / 16x / 32x / 64x with light/heavy edges: kron-22 13.0 / 11.9 / 11.3 / 14.4 ms,
        urand-22 12.8 / 13.3 / 15.8 / 35.2 (wider buckets re-relax more edges); 16x is within 6%
        of each graph's best.""")
    cuda_delta_scale_float: float = knob(8.0, """... and times this instead for float weights (the
        same weights / 255). H200, whole call at 16x -> 8x: kron-22 float64 11.0 -> 10.5 ms, float32
        10.3 -> 9.95, urand-22 float64 14.2 -> 13.4; integer weights at 8x: kron-22 9.8 -> 10.1,
        urand-22 13.0 -> 12.3 (kept at 16x).""")
    cuda_delta_scale_long: float = knob(128.0, """... and times this on a graph of long diameter
        (``breadth_first.long_reach``: a mesh runs a round per bucket per hop). Same run:
        grid-2048 416 / 222 / 149 / 126 ms, rgg-22 306 / 170 / 107 / 128 at 4x / 16x / 64x / 256x;
        128x sits between the two bests.""")
    cuda_light_heavy: bool = knob(True, """CUDA delta-stepping splits each row into its light
        edges (weight < delta), relaxed on every improvement within a bucket, and its heavy ones,
        relaxed once when the bucket settles (Meyer and Sanders; rows sorted by weight once,
        cached). H200, int weights 1-255, whole call (edges relaxed / m) off -> on at 8x / 16x /
        32x delta: kron-22 13.1 (1.60) -> 13.0 (1.04), 14.9 (2.49) -> 11.9 (1.19), 13.8 (2.49)
        -> 11.3 (1.37) ms; urand-22 13.4 -> 12.8, 13.4 -> 13.3, 13.7 -> 15.8 ms.""")
    cuda_rounds_per_read: int = knob(8, """CUDA delta-stepping queues up to this many rounds
        between two reads of its counters (the batch doubles from 1 while the near list stays
        full; a round queued after the list emptied returns at once). Not yet measured on a
        GPU.""")
    cuda_blocks_per_sm: int = knob(8, """CUDA delta-stepping's rounds launch at most this many
        blocks per multiprocessor (a grid-stride loop over the edges does the rest; a round queued
        without a read launches that many). Not yet measured on a GPU.""")
    cuda_persistent: bool = knob(True, """CUDA delta-stepping runs its bucket loop on the device,
        in one cooperative launch (sssp.cu's sssp_persistent: grid barriers between rounds, no host
        read), instead of the host's loop of launches and counter reads (False). Rule: the loop on
        the device wherever the multi-launch loop pays a host round trip per few rounds (kron-22 at
        16x delta: 54 rounds, 51 reads, ~0.2 ms a round on an H200 while one pass over the edges
        takes under 1 ms). Measured on an H200 (whole call, ms, device loop vs host loop): kron-22
        9.86 vs 11.8, urand-22 13.3 vs 13.6, grid-2048 158.4 vs 157.7, rgg-22 119.3 vs 110.3.""")
    cuda_persistent_blocks_per_sm: int = knob(2, """The persistent kernel's blocks (1024 threads
        each) per multiprocessor, at most what its occupancy allows (its launch bounds make room
        for 2: full occupancy for the large rounds; fewer blocks, fewer grid-barrier arrivals).
        kron-22 on an H200: 10.2 ms at 2, 10.5 at 1.""")


@dataclass(frozen=True)
class Betweenness:
    """``betweenness_centrality`` and ``edge_betweenness_centrality``.

    >>> Betweenness().batch
    64
    """
    batch: int = knob(64, """Sources per batch (1..64: one msbfs call, one bit each): memory
        is about 20 bytes x batch x n at once (levels, path counts, dependencies). 2 threads,
        kron-16, 64 sources in batches of 16 / 32 / 64: fused 0.94 / 0.84 / 0.64 s (a word's
        bits share each edge's visit); graphblas 1.33 / 1.30 / 1.39 s, within the noise (its
        products work per source either way).""")
    method: str | None = knob(None, """"fused" (a kernel a level: path counts and dependencies
        in one pass over each level's vertices; numba on the CPU, kernels/cuda/betweenness.cu on
        CUDA) or "graphblas" (masked plus_first products); None: fused on either device. 2
        threads, kron-16, 64 sources: fused 0.67-0.95 s, graphblas 1.39-1.45 s; urand-16
        0.88-0.96 against 1.52-2.2. CUDA, H200, 64 sources a call: fused 144.7 / 125.9 ms,
        graphblas 2,263 / 1,761 on kron-22 / urand-22 (5e0dcff).""")
    group_batches: int = knob(32, """A call of at least this many batches (unweighted) orders
        its sources by their out-neighbour of the highest out-degree, then by id, before it cuts
        them into batches (0: never: the caller's order). Sources one hop from a shared hub sit
        at few distinct levels of each vertex, so a batch has fewer (vertex, level) entries to
        walk: kron-16, 2,048 / 16,384 random sources: 0.87x / 0.77x the entries; urand-16
        1.00x (its vertices rarely share a top neighbour). 2 threads, kron-16, 16,384 sources:
        75.7 / 94.4 s against 95.1 / 107.7 s in the given order (two alternating runs; at 4,096
        sources the difference was within this VM's noise). The values differ by the order of
        the float sums only. The anchors are made once per graph on the host (a CUDA graph's
        CSR read back once, then one pass): from 32 batches that is small beside the call.
        CUDA: not yet measured.""")
    parallel_work: int = knob(400_000, """The fused kernel runs a level on the thread pool when
        its vertices' out-edges reach this many, else serially (as msbfs.parallel_work). Not
        tuned.""")
    cpu_pairs_per_entry: float = knob(4.0, """CPU fused: a batch runs each source alone
        (source-major rows, a vertex's in- or out-edges tested against that source's levels:
        ``kernels/cpu/betweenness._by_source``) when its reached pairs of level >= 1 are fewer
        than this many per (vertex, level) entry of the shared pass (about 1.1 on grids and
        rgg, where a vertex sits at nearly a level of its own per source; 16-22 on kron and
        urand); 0: never. 2 threads, 64 sources, one batch, shared / by source (s), vertex
        sums then with edge shares: grid-256 6.4-6.6 / 0.12-0.16, 6.6-7.0 / 0.20-0.21;
        rgg-2^16 18.9-20.6 / 0.55-0.58, 18.8-19.5 / 0.83-0.85; kron-16 0.30-0.31 / 0.49,
        0.28-0.31 / 0.71-0.77; urand-16 0.42-0.55 / 0.41-0.45, 0.46-0.59 / 0.61-0.65; kron-20
        13.4-16.6 / 16.5-18.4; urand-20 14.4-18.1 / 14.8-16.9. So 4, as CUDA's pair mode: by
        source where it wins by 23-55x, the shared pass where it is as fast or up to 2.5x
        faster.""")
    edge_chunk: int = knob(1 << 16, """The graphblas method sums a batch's edge shares over this
        many edges at a time (dense batch x chunk temporaries: 64 x 65536 float64 = 32 MiB).
        Not tuned.""")
    cuda_threads: int = knob(256, """CUDA fused: threads a block (a multiple of 32, 32..512) of
        the per-level launches (a warp per listed vertex) and of the list building; at most 512:
        the row walks keep 8 neighbours' loads in flight in 64-80 registers a thread, and a
        1024-thread block of those exceeds an SM's 65,536 registers. H100, 64 sources, a call
        (de84977): kron-22 81.5 / 85.2 / 106.0 ms at 128 / 256 / 512, urand-22 87.0 / 87.2 /
        96.9.""")
    cuda_list_chunk: int = knob(256, """CUDA fused: vertices a block takes when it builds the
        per-level lists (its warps share them; one global atomic per level the block holds
        instead of one per vertex). H100, 64 sources, a call (de84977): 64 / 256 / 1024 took
        85.1 / 85.2 / 86.0 ms on kron-22, 87.0 / 87.2 / 87.3 on urand-22.""")
    cuda_hist_levels: int = knob(4096, """CUDA fused: a batch of at most this many levels counts
        its lists' blocks in shared memory (8 bytes a level, at most 6144: 48 KiB); deeper
        batches (long paths, roads, grids) take a global atomic per (vertex, level). Not yet
        measured on a GPU.""")
    cuda_heavy_degree: int = knob(2048, """CUDA fused: a vertex of in-degree (forward phase) or
        out-degree (backward phase) above this is heavy: its row is summed by a warp per chunk
        of cuda_heavy_chunk edges, then a warp adds the chunks' partial sums in chunk order,
        instead of one warp walking the row (a kron hub's 10^5-10^6 edges serialise a level).
        H100, kron-22, 64 sources, a call (de84977), heavy degree / chunk: 2048 / 1024 85.2 ms,
        1024 / 512 85.5, 512 / 256 82.5, 256 / 128 82.2, 128 / 64 86.0; urand-22 (no hub)
        86.5-87.2 for all.""")
    cuda_heavy_chunk: int = knob(1024, """CUDA fused: edges a chunk of a heavy row (a warp
        each). Measured with cuda_heavy_degree (there); 256 alone: 86.3 ms against 85.2 on
        kron-22.""")
    cuda_pair_lanes: float = knob(4, """CUDA fused: a batch without edge shares runs a
        thread per (vertex, source) ("pair mode") when its reached pairs of level >= 1 are fewer
        than this many per entry of the per-level vertex lists (the mean active lanes of the
        vertex mode's warps: about 1 on grids and roads, where a vertex sits at ~b distinct
        levels; 20+ on kron and urand); 0: never. Not yet measured on a GPU.""")


@dataclass(frozen=True)
class PageRank:
    """``pagerank``'s fused iteration: on the CPU (``kernels/cpu/pagerank.py``)
    and on the GPU (``kernels/cuda/pagerank.py``).

    >>> PageRank().cuda_check_every, PageRank().relabel
    (8, 'auto')
    """
    relabel: object = knob("auto", """The fused iteration (CPU and GPU) runs on the vertices
        renumbered by descending out-degree (the y values gathered most then share cache lines;
        built once, cached on the matrix, the ranks mapped back) when True, never when False;
        "auto": when gapbs's WorthRelabelling test (min_average_degree, skew, samples) passes on
        the out-degrees. kron-20: 25.3 -> 18.9 ms an iteration (2 threads), the build 0.26 s;
        kron-22 on an H200: 1.23 -> 0.87 ms an iteration.""")
    min_average_degree: int = knob(1, """relabel "auto" relabels when A holds at least twice
        this many entries a vertex ... (kron-20 at 3.9 entries a vertex: 14.9 -> 6.6 ms an
        iteration relabelled; at 7.8: 16.3 -> 8.4) ...""")
    skew: float = knob(1.3, "... and the sampled mean out-degree is above skew times the median.")
    samples: int = knob(1000, "Vertices sampled for that test.")
    cpu_prefetch: int = knob(256, """Each row of the CPU pull prefetches the entries this many past
        its first (0: none): the hardware's stream prefetch alone left urand-20 at 17.0 ms an
        iteration, 13.7 with it (2 threads; 128 and 512 within the noise).""")
    cpu_gather_ahead: int = knob(128, """Entry p of the CPU pull prefetches into L2 the y it will
        gather at entry p + this (0: none) when the gathers are far (cpu_gather_min_distance):
        urand-20 20.6 -> 18.4 ms an iteration, relabelled kron-20 29.4 -> 24.5 (p25 of 15 runs,
        2 threads, into L1 at 96); into L2 at 128 13.3 -> 12.3 on urand-20 (64 and 192 within
        the noise); urand-20 at 4 entries a vertex 9.1 -> 6.3.""")
    cpu_gather_min_distance: int = knob(4096, """See cpu_gather_ahead: it runs when the median
        |i - j| of sampled entries (samples of them) of the pulled A' is at least this (32 KiB of
        y); nearer gathers are in cache already: grid-1024 in its natural order (median 1,024)
        3.1 ms an iteration without the prefetch, 3.8 with it; relabelled kron-20's median is
        28,415, urand-20's 316,685.""")
    cpu_gather_min_bytes: int = knob(2 << 20, """... and when y (8 bytes a vertex, 4 with float32
        ranks) is at least this large: urand-16's 512 KiB y stays in cache, and the prefetch took
        its run from 9.5 to 11.0 ms (2 threads); urand-20's 8 MiB gains (cpu_gather_ahead).""")
    cpu_chunk_work: int = knob(1 << 21, """The CPU pull's row ranges hold about this much work
        (stored entries plus rows) each, at least one range a thread and at most four; the
        threads claim them one at a time every iteration, and the errors are summed per range.
        2 threads, min of 11 runs x 4 rounds: urand-16 4.37 ms a run in 2 ranges, 4.30 in 4
        (1 << 18); grid-1024 6.39 in 2, 6.48 in 4.""")
    cpu_spin_pauses: int = knob(1 << 10, """A CPU PageRank thread waiting at an iteration's barrier
        checks this many times with a pause (~20-30 ns), then yields its CPU at every check (a
        busy machine: the thread it waits for may need that CPU; settings.sssp.spin_pauses, whose
        measurements it takes).""")
    cuda_while: bool = knob(True, """The GPU run's iterations as one CUDA graph WHILE loop (two
        iterations a pass, the loop ended on the device when an iteration converges or reaches
        max_iter; kernels/cuda/loops.py): one launch and one host read a run, at the end. It needs
        a CUDA 12.4+ driver; False, or an older driver: batches of cuda_check_every. H100, whole
        call at gapbs's tolerance, while / batches: kron-22 7.21 / 7.20 ms (11 iterations),
        urand-22 d16 8.64 / 8.58, grid-2048 0.99 / 0.95 (float32: 6.48 / 6.47, 5.69 / 5.68, 0.79 /
        0.81): level, with no host round trip inside the run.""")
    cuda_check_every: int = knob(8, """Without cuda_while, the GPU run queues this many iterations
        (one CUDA graph), then reads their count and last L1 error in one host sync; an iteration launched after the run converged returns at once
        and leaves the ranks as they were (the iteration count stays exact). H100 A/B of 3
        rounds: 4 and 16 within 1% of 8 on urand-22 and kron-22; on grid-2048 their medians 0.95
        and 0.90 of 8's, their best runs level. Later batches sized by the last errors' fall
        (the iterations left, plus one) measured level on an H200: grid-2048 1.00 / 0.99
        (float64 / float32 ranks), kron-22 1.00, urand-22 float32 0.99.""")
    cuda_blocks_per_sm: int = knob(24, """Blocks per multiprocessor at most of the GPU iteration's
        grid-stride launch (0: settings.cuda.blocks_per_sm). H200 A/B, 5-7 rounds, x the 32 of
        settings.cuda (float64 / float32 ranks): 24 grid-2048 1.04 / 1.10, kron-22 1.00 / 1.04,
        urand-22 1.01 / 1.04; 16 1.07 / 1.00, 1.00 / 0.99, 1.00 / 0.96; 12 1.11 / 1.03, 1.00 /
        1.00, 0.99 / 0.94; 8 0.93 / 1.02, 0.92 / 0.98, 0.80 / 0.96.""")
    cuda_lanes: int = knob(0, """Lanes per row of A' (1-32, a power of 2) for the light rows
        (cuda_warp_above); 0: the power of 2 at or above a quarter of those rows' median length,
        four gathers in flight a lane (kernels/cuda/spmv_csr.py::median_lanes: grid-2048 0.249 -> 0.114
        ms an iteration, H200), a half for float64 ranks where that median is
        cuda_f64_wide_median or more.""")
    cuda_f64_wide_median: int = knob(8, """With float64 ranks and cuda_lanes 0, light rows whose
        median holds at least this many entries take a lane for every two of them, not four (0:
        never). H100, A/Bs of 3 rounds against a quarter: urand-22 (median 32) 16 lanes 1.051
        and 1.046; float32 ranks there 0.963. Below 8 a quarter stays: kron-22's relabelled
        light rows (median 5) gained at 4 lanes (1.052) but grid-2048's (4) lost at 2 (0.839).""")
    cuda_split_above: int = knob(1024, """A row of A' with more entries than this is cut into
        chunks of cuda_chunk entries, a whole block each, the chunks' sums added in order by the
        last to finish; shorter rows take a group of lanes each. One group of at most 32 lanes per
        row left kron-21's 7,547 rows of over 1,024 entries (the largest 102,802) to a few warps:
        2.1 ms an iteration against cuSPARSE's 0.7 (H200).""")
    cuda_chunk: int = knob(2048, """Entries of a heavy row's chunk (cuda_split_above): 8 a thread
        at 256 threads a block. Not yet measured on a GPU.""")
    cuda_pull: str = knob("auto", """The GPU iteration's pull: "rows" (one launch: a lane
        group, warp or chunked block a row, cuda_lanes / cuda_warp_above / cuda_split_above),
        "tiles" (two launches: every warp the same number of stored entries, the rows' sums
        joined by warp scans, then the rows finished; the hot ranks of a graph relabelled hubs
        first gathered from shared memory, cuda_hot_bytes), "stripes" (two launches: A' cut
        into stripes of rows whose sums a block keeps in shared memory, a stripe's entries
        sorted by column so that a warp's gathers share sectors, cuda_stripe_bytes; the sums in
        64-bit fixed point, each term rounded to a multiple of 2^-60 once, the same whatever
        the order), or "auto":
        stripes on a graph relabelled hubs first or whose rows hold cuda_stripes_min_mean
        entries or more on average, rows otherwise (tiles and stripes need n < 2^31, else
        rows; stripes a copy of the entries, 6 bytes each, 14 weighted: where that does not fit
        the GPU, "auto" runs rows and "stripes" raises DeviceError). An iteration's two
        launches on an H200 (float32 / float64 ranks): relabelled kron-22 striped 0.431 / 0.459
        ms, tiled 0.561 / 0.675; urand-22 striped 0.470 / 0.841 (plain gathers alone 0.90 /
        1.13). Whole run, H200, 3 interleaved rounds, rows' time over tiles' (float64 /
        float32): kron-22 1.30 / 1.45, urand-22 1.07 / 1.02, grid-2048 (4 a row) 0.78 / 0.74.""")
    cuda_stripes_min_mean: float = knob(16.0, """See cuda_pull: "auto" stripes a graph whose
        rows of A' hold at least this many entries on average (urand-22's 32: stripes 2.0x the
        rows' speed; grid-2048's 4: rows).""")
    cuda_stripe_bytes: int = knob(131072, """The striped pull's stripe: as many rows as
        this many bytes hold at 8 a row (their fixed-point sums in a block's shared memory; at
        most 65,536 rows and the device's opt-in limit). urand-22, one pass, H200: float32
        ranks 0.421 ms at 128 KiB (16,384 rows), 0.449 at 192 KiB; float64 ranks 0.776 and
        0.711. (float sums, twice the rows: 0.477 ms at 128 KiB, 0.52 at 192, 0.74 at 224: what
        is left of the multiprocessor's L1 is too small.)""")
    cuda_stripe_pieces: int = knob(0, """The striped pull's entries are cut into this many equal
        pieces a block (a piece spans stripes, a stripe pieces; each stripe a piece reaches
        costs its block a clearing and a flush of the stripe's sums); 0: 4 on a graph relabelled
        hubs first (a hub's stripe gathers from cached ranks, faster than the rest: more pieces
        even the blocks out), 1 otherwise. The stripes launch on an H200, float32 / float64
        ranks: urand-22 0.421 / 0.783 ms at 1, 0.429 / 0.760 at 2, 0.449 (float32) at 4;
        relabelled kron-22 0.464 / 0.493 at 2, 0.383 / 0.402 at 4, 0.385 / 0.413 at 8.""")
    cuda_tile_threads: int = knob(1024, """Threads a block of the tiled pull (a multiple of 32,
        at most 1024): its warps share one copy of the hot ranks (cuda_hot_bytes).""")
    cuda_hot_bytes: int = knob(196608, """The tiled pull on a graph relabelled hubs first: each
        block reads the first this-many bytes of the ranks (the most gathered) from its shared
        memory (capped by the device's opt-in limit; 0: none). kron-22 relabelled, H200, the
        tiles launch (float32 / float64 ranks): 0.620 / 0.726 ms without, 0.525 / 0.639 with
        128 KiB, 0.488 / 0.588 with 192 KiB (58% / 46% of the gathers), 0.586 / 0.773 with
        226 KiB (what is left of the multiprocessor's L1 is too small).""")
    cuda_warp_above: int = knob(128, """Rows of A' with more entries than this (and at most
        cuda_split_above) take a warp each (four entries a lane and more), the shorter ones a
        group of lanes sized by their own mean length (cuda_lanes). At 32, urand-22's rows of 33
        to 60 entries took a warp each, a gather a lane at a time: 1.80-2.04 ms an iteration
        against 1.39-1.46 with every row light (H200).""")


@dataclass(frozen=True)
class IO:
    """Readers, writers and generators: chunk sizes (speed and memory, never
    the result).

    >>> IO().parallel_scan_min
    8388608
    """
    parallel_scan_min: int = knob(1 << 23, """Text bodies from this many bytes are scanned in
        parallel chunks (one per thread, cut at newlines); below it one serial scan costs less
        than starting the pool.""")
    write_chunk: int = knob(1 << 18, """Edges formatted per step when writing an edge list (a
        step's text is built in memory, then written).""")
    dedup_chunk: int = knob(1 << 20, """Keys per step of the generators' deduplication pass
        (bounds its temporaries).""")
    hashed_chunk: int = knob(1 << 20, """Edges per step of the hashed generators (kronh, urandh)
        on the CPU, one step a thread (bounds the temporaries: ~20 uint64 arrays of this length;
        never the graph).""")
    claim_rows: int = knob(1 << 26, """A file may claim (size line, largest vertex id) a
        dimension up to max(this, 64 x its entries); beyond, the reader raises a FormatError naming
        the dimension and the bytes its CSR row pointers (8 x (n + 1)) would take, instead of
        allocating them: 2^26 rows are 512 MiB of pointers, and 64 pointers per entry keep the
        structure within ~5x the entries' own 24 bytes.""")
    all_pairs_rows: int = knob(256, """Sources per msbfs call of the NetworkX backend's all-pairs
        path lengths (bounds the rows x n levels held at once).""")



@dataclass(frozen=True)
class Distributed:
    """``distributed``: a graph partitioned over the ranks (``bitgraph.distributed``'s
    ``DistMatrix``, ``bfs``, ``connected_components``, ``pagerank``). Step sizes bound
    temporaries (memory, never the result); the BFS switch decides the direction.

    >>> Distributed().bfs_alpha
    15.0
    """
    step_entries: int = knob(1 << 24, """Stored entries (or generated edges) one array step of the
        partitioned calls touches at most: a BFS step's gathers, a PageRank product, a components
        hook, a routing round of the parallel generator. Bounds the temporaries to about 32 bytes
        each (2^24: ~512 MiB a rank). Not yet measured on a GPU.""")
    sort_keys: int = knob(1 << 28, """The parallel generator sorts a rank's received edge keys
        (8 bytes each) in row ranges of about this many keys, one range at a time on the rank's
        device (a radix sort needs about twice its input: 2^28 keys, ~6 GiB). Not yet measured on
        a GPU.""")
    bind_cpus: bool = knob(True, """``bitgraph.distributed.init`` keeps each rank on the CPUs of
        its GPU's NUMA node (sysfs's local_cpulist, within the CPUs the launcher allowed; nothing
        where sysfs does not say), as NCCL's tuning guide advises: a batch waits on its GPU at
        every level. False: where the launcher put it.""")
    bfs_alpha: float = knob(15.0, """Partitioned BFS, Beamer's switch: a top-down level becomes
        bottom-up when the frontier's out-edges exceed the unvisited vertices' edges / bfs_alpha
        (global counts, one all-reduce a level); 0: top-down only. GAP's default (Beamer et al.
        2012: alpha 15, beta 18 on kron and urand); not yet measured on partitioned graphs.""")
    bfs_beta: float = knob(18.0, """... and a bottom-up level goes back to top-down when the
        frontier holds fewer than n / bfs_beta vertices and shrinks.""")
    bfs_topdown_exchange: str = knob("bitmap", """Partitioned BFS, what a top-down level exchanges.
        ``"bitmap"``: every rank's n-bit next bitmap all-gathered and OR-ed ((size - 1) n / 8 bytes
        a rank receives a level); ``"ids"``: each rank sends the ids of its next-frontier bits to
        their owners (alltoallv, uint32 ids while n <= 2^32, else int64), the owner marks the
        unvisited ones, and the global frontier is all-gathered (the owners' words) only before a
        bottom-up level: fewer bytes, more steps (a count exchange, pack and mark kernels). 16
        sources on 4 x H200 (NVLink), GTEPS bitmap / ids: kronh-26 148.7 / 82.8 (2 ranks 132.5 /
        82.2), kronh-30 291.6 / 291.7 (allgathers 10.3 ms of a 58 ms BFS, ids' exchange 4.4 ms).
        "ids" pays only where bytes cost more than NVLink's.""")
    cuda_kernels: bool = knob(True, """On a CUDA DistMatrix, each rank's local step runs as the
        kernels of kernels/cuda/dist_traversal.cu (BFS: a compacted frontier list, top-down
        atomicOr into the next bitmap, bottom-up with early exit; a FastSV round's hooks; a
        PageRank pull) instead of CuPy array steps of step_entries entries; False: the array
        steps, for comparison. On kron-24 over 2 x H200: a BFS source 42 ms (arrays) -> 5.8 ms
        (kernels; the one-GPU bfs 0.6 ms), CC 0.53 -> 0.054 s, a PageRank iteration 42 ->
        17 ms.""")
    heavy_split: int = knob(4096, """On CUDA ranks (cuda_kernels) a row of more than this many
        entries is walked by many blocks, not one group of at most 32 lanes: the PageRank pull
        and a components round cut such rows into chunks of heavy_chunk entries, a block each
        (the pull's chunk sums added in chunk order: deterministic); a BFS top-down level walks
        its heavy frontier rows one at a time with every thread of the grid. A kron hub holds
        about m * 0.76^scale entries (kronh-26: ~10^6, kronh-30: ~10^7). kronh-26 on 2 x H200,
        before -> with the split: BFS (16 sources) 59.4 -> 132.5 GTEPS, a PageRank iteration
        54.5 -> 25.4 ms; on 4 x H200 a components call 149 -> 55 ms (its heavy rows walked one
        at a time by the whole grid instead of in chunks: 320 ms).""")
    heavy_chunk: int = knob(4096, """Entries of a heavy row's chunk in the PageRank pull and a
        components round (heavy_split).""")
