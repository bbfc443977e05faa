"""Settings of the core: the plan's rules, the CPU and CUDA launch shapes,
the formats' heuristics, and the algorithms other than the traversals.

Each field: its rule, and the one measurement that set it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bitgraph.settings._knob import knob

__all__ = ["Plan", "CPU", "Cuda", "Formats", "Triangles", "Components", "SSSP"]


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
    serial_below: int = knob(50_000, """Kernels run serially below this much work (stored entries):
        a round on the thread pool costs ~20-50 us.""")


@dataclass(frozen=True)
class Cuda:
    """Launch shapes of the CUDA elementwise and reduction kernels.

    >>> Cuda().threads
    256
    """
    threads: int = knob(256, "Threads per block of the elementwise launches.")
    blocks_per_sm: int = knob(32, """Blocks per multiprocessor at most (grid-stride loops do the
        rest).""")


@dataclass(frozen=True)
class Formats:
    """The formats' heuristics: sampling profile, social-likeness, orderings.

    >>> Formats().profile_sample
    256
    """
    profile_sample: int = knob(256, """32-row groups the sampling profile reads: ~0.1% of a
        10^7-vertex graph, error ~1-2%.""")


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


@dataclass(frozen=True)
class Components:
    """``connected_components``.

    >>> Components().rounds
    2
    """
    rounds: int = knob(2, "Afforest's sampling rounds (gapbs's neighbor_rounds).")


@dataclass(frozen=True)
class SSSP:
    """``sssp``.

    >>> SSSP().max_bins
    65536
    """
    max_bins: int = knob(1 << 16, """Delta-stepping's circular window holds at most this many
        buckets (delta is widened so that max_weight / delta fits).""")
