"""Constants a CUDA source and its launcher share, defined once here.

Each source's constants are generated into ``<source>_constants.cuh``
(``constexpr`` lines, included by the ``.cu`` where they are used), so the
``.cu`` files still compile alone with ``nvcc`` (as CI does) and nothing is
copied by hand: ``tests/kernels/test_cuda_sources.py`` checks that every
generated header equals ``header(source)``, and ``python -m
bitgraph.kernels.cuda.constants`` rewrites them.

These are layout facts (block sizes the kernels' scans assume, argument
and counter slots, list capacities), not tunables: a tunable travels as a
kernel argument from ``bitgraph.settings``.

>>> BFS_FUSED["GIANT"]
8192
>>> "constexpr int GIANT = 8192;" in header("bfs_fused.cu")
True
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["BFS_FUSED", "BFS_ASYNC", "BFS_WINDOW", "BFS_HOPS", "MSBFS", "BMM_B2SR", "BMV_B2SR",
           "COMPONENTS", "SSSP", "PAGERANK", "SOURCES", "header", "header_path", "write",
           "per_tile"]

# bfs_fused.cu
BFS_FUSED = {
    # threads per block of the persistent kernel (its __launch_bounds__)
    "THREADS": 1024,
    # frontier vertices a single-block level takes (its shared-memory lists)
    "SB_FRONTIER": 4096,
    # the single-block vertex list's capacity: the edge limit may not exceed it
    "LIST_CAP": 65536,
    # a CSR queue entry per GIANT out-edges of a hub
    "GIANT": 8192,
    # the template's format: CSR (push, direction), BVSS with the SIMT or the tensor-core step
    "FMT_CSR": 0,
    "FMT_BVSS_SIMT": 1,
    "FMT_BVSS_MMA": 2,
}

# bfs_async.cu
BFS_ASYNC = {
    "BLOCK": 256,
    # args: the sources at A_SOURCES.., their result rows at A_ROWS..
    "A_SOURCES": 0,
    "A_ROWS": 64,
    "ARGS": 128,
    # stats per source: reached, sum and max of levels
    "S_COUNT": 0,
    "S_TOTAL": 64,
    "S_ECC": 128,
    "STATS": 192,
    # an item's vertex field: v < 2^SRC_AT
    "SRC_AT": 34,
    # bfs_async_run's flags
    "F_PREFETCH": 1,
    "F_CHECK": 2,
    # counters (u64 words, 128 bytes apart): list head, tail, items done, gave up
    "HEAD": 0,
    "TAIL": 16,
    "DONE": 32,
    "ERROR": 48,
}

# bfs_window.cu
BFS_WINDOW = {
    "BLOCK": 256,
    # an item: x = level << VBITS | v, y = row start << (64 - VBITS) | row length
    "VBITS": 40,
    # bfs_window_run's flags
    "F_PREFETCH": 1,
    "F_CHECK": 2,
    # counters (u64 words, 128 bytes apart): list head, tail, the least level
    # with pending items (floor), the highest level appended (top), gave up
    "HEAD": 0,
    "TAIL": 16,
    "FLOOR": 32,
    "TOP": 48,
    "ERROR": 64,
    "CTRL": 80,
}

# bfs_hops.cu
BFS_HOPS = {
    # threads a block of the cooperative launch (one block a multiprocessor)
    "BLOCK": 1024,
    # a block's list of the items to walk at the next hop (two of int2 in shared memory)
    "LIST": 2560,
}

# msbfs.cu
MSBFS = {
    # threads per block of the level kernels (the block scans assume it)
    "BLOCK": 256,
    # a hub's out-edges per chunk entry
    "CHUNK": 2048,
    # counter slots: nq, mf, active, scanned, pull, push, done, spare, cnt[64], out-edges[64]
    "C_NQ": 0, "C_MF": 1, "C_ACTIVE": 2, "C_SCANNED": 3, "C_PULL": 4, "C_PUSH": 5,
    "CTR": 136,
    # stats: count[64], total[64], ecc[64], the queue sizes of levels 0..63
    "S_COUNT": 0, "S_TOTAL": 64, "S_ECC": 128, "S_QUEUE": 192, "S_LEVELS": 64, "STATS": 256,
    # args: sources, result rows, level base, result address
    "A_SOURCES": 0, "A_ROWS": 64, "A_BASE": 128, "A_LEVELS": 129, "ARGS": 136,
    # threads per block of the cooperative launch
    "COOP_THREADS": 1024,
}

# bmm_b2sr.cu
BMM_B2SR = {
    # A(I) up to this many tiles is hashed in shared memory (HCAP 4096 slots: load <= 1/2)
    "HASH_MAX": 2048,
    # warps per block of the task kernels, per tile size (Geometry<t>::WARPS): the shared
    # memory of t = 32 (a 4 KB C tile per warp) stays under the 48 KB static limit with
    # the hash table and the staged mask columns
    "WARPS_T4": 8,
    "WARPS_T8": 8,
    "WARPS_T16": 8,
    "WARPS_T32": 4,
}

# bmv_b2sr.cu
BMV_B2SR = {
    # threads per block of the BMV kernels (their __launch_bounds__)
    "THREADS": 256,
    # per tile size (Geo<t>): L lanes per tile, R rows per lane, U tiles per lane per step
    "GEO_L_T4": 1, "GEO_R_T4": 4, "GEO_U_T4": 4,
    "GEO_L_T8": 1, "GEO_R_T8": 8, "GEO_U_T8": 4,
    "GEO_L_T16": 2, "GEO_R_T16": 8, "GEO_U_T16": 2,
    "GEO_L_T32": 8, "GEO_R_T32": 4, "GEO_U_T32": 2,
}

# components.cu
COMPONENTS = {
    # threads of the one block that finds the largest partial component (its __launch_bounds__)
    "LARGEST_THREADS": 1024,
    # samples it takes at most (a shared-memory array of SAMPLE_CAP vertex ids: 32 KB of int64)
    "SAMPLE_CAP": 4096,
    # the sampled vertices are a hash of (SAMPLE_SEED + i): the same every call
    "SAMPLE_SEED": 24301,
    # ctrl words (unsigned long long): warp-list length, block-list length, the block list's
    # next entry, the largest component's root
    "C_WARP": 0, "C_BLOCK": 1, "C_BLOCK_NEXT": 2, "C_SKIP": 3, "CTRL": 4,
}

# sssp.cu
SSSP = {
    # a vertex's flags word: queued in a near list, held in the far pile, queued in the bucket's
    # member list (its heavy edges still to relax)
    "F_NEAR": 1,
    "F_FAR": 2,
    "F_MEMBER": 4,
    # counter slots (u64): the two near lists and the two member lists (packed: edges << shift |
    # vertices), the two far piles, the least kept far distance (its order-preserving bits), the
    # rounds that relaxed, whether the last gated round ran (its list was taken), the edges
    # relaxed
    "C_NEAR0": 0, "C_NEAR1": 1, "C_FAR0": 2, "C_FAR1": 3, "C_MIN": 4, "C_ROUNDS": 5,
    "C_MEM0": 6, "C_MEM1": 7, "C_GO": 8, "C_EDGES": 9,
    # the persistent kernel (sssp_persistent): a second least-far slot (a split fills the one of
    # the pile it writes, so the reset of the other never meets a read), the splits, and an
    # error word (nonzero: a far pile that no threshold empties; the launcher raises)
    "C_MIN1": 10, "C_SPLITS": 11, "C_ERR": 12,
    "COUNTERS": 13,
    # the edge-balanced relax: a warp takes LB_STEPS x 32 consecutive edges of the near list
    "LB_STEPS": 8,
    # sssp_persistent's launch bounds: threads a block, and the blocks a multiprocessor must hold
    # (2 x 1024 caps it at 32 registers, sssp_relax's count: full occupancy for the large rounds;
    # it spills ~100 bytes; the grid barrier has 2 arrivals a multiprocessor)
    "PERSIST_THREADS": 1024,
    "PERSIST_MIN_BLOCKS": 2,
}

# pagerank.cu
PAGERANK = {
    # entries a thread of pagerank_tiles takes (two 16-byte loads of flagged indices): a tile is
    # blockDim.x * TILE_K consecutive entries
    "TILE_K": 8,
    # entries a thread of pagerank_stripes loads before it adds any (gathers in flight): urand-22,
    # float32 ranks, one pass on an H200: 0.421 ms at 8, 0.430 at 16
    "STRIPE_U": 8,
    # pagerank_stripes' sums are fixed point, multiples of 2^-STRIPE_SHIFT (64 bits: below 16)
    "STRIPE_SHIFT": 60,
    # threads a block of pagerank_stripes (its __launch_bounds__; one block a multiprocessor: the
    # stripe's sums fill its shared memory)
    "STRIPE_THREADS": 1024,
    # rows a stripe at most: a row's offset in its stripe is 16 bits
    "STRIPE_ROWS_MAX": 1 << 16,
}

SOURCES = {"bfs_fused.cu": BFS_FUSED, "bfs_async.cu": BFS_ASYNC,
           "bfs_window.cu": BFS_WINDOW, "msbfs.cu": MSBFS,
           "bmm_b2sr.cu": BMM_B2SR, "bmv_b2sr.cu": BMV_B2SR, "components.cu": COMPONENTS,
           "sssp.cu": SSSP, "pagerank.cu": PAGERANK, "bfs_hops.cu": BFS_HOPS}

_HERE = Path(__file__).resolve().parent


def per_tile(constants: dict, prefix: str) -> dict:
    """``{t: value}`` of a per-tile-size table generated as ``<prefix>_T<t>``.

    >>> per_tile(BMM_B2SR, "WARPS")
    {4: 8, 8: 8, 16: 8, 32: 4}
    """
    head = f"{prefix}_T"
    return {int(k[len(head):]): v for k, v in constants.items() if k.startswith(head)}


def header(source: str) -> str:
    """The text of ``source``'s generated header."""
    lines = [f"// Generated from bitgraph/kernels/cuda/constants.py ({source}): do not edit;",
             "// python -m bitgraph.kernels.cuda.constants rewrites it."]
    for name, value in SOURCES[source].items():
        ctype = "long long" if abs(value) >= 2**31 else "int"
        lines.append(f"constexpr {ctype} {name} = {value};")
    return "\n".join(lines) + "\n"


def header_path(source: str) -> Path:
    """Where ``source``'s header lives: ``<stem>_constants.cuh`` beside it."""
    return _HERE / f"{Path(source).stem}_constants.cuh"


def write() -> None:
    """Rewrite every generated header (atomically)."""
    import os

    for source in SOURCES:
        path = header_path(source)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(header(source))
        os.replace(tmp, path)


if __name__ == "__main__":
    write()
    sys.exit(0)
