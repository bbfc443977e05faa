"""Launcher of ``triangles.cu``: the ordered triangle count on the GPU, with
the CPU launcher's arguments and results (``kernels/cpu/components.py``,
``ordered_count``): CuPy arrays in, a Python int or a CuPy int64 array out."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.registry import register

__all__ = ["ordered_count"]

_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(f"tc_ordered<{i}>" for i in _INDEX.values())
SPECS = (("triangles.cu", _NAMES),)  # what module() is asked for (precompile.py)


@register("tc", fmt="csr", device="cuda", variant="ordered")
def ordered_count(indptr, indices, mid, *, per_vertex=False, merge_ratio=None, cfg=None,
                  stats=None):
    """Triangles of an undirected graph, each found once at its edge (u, v)
    of the lower triangle, v < u.

    indptr[n+1], indices, mid[n] (CuPy arrays, int32 or int64: all taken in
    the widest of their dtypes): row u's neighbours below u come first,
    sorted, and end at mid[u] (L compacted with mid = indptr[1:], or a
    symmetric CSR with its ``lower_ends``, or ``degree_order``'s output).
    Returns the total (int; the host waits for it), or with ``per_vertex``
    a CuPy int64 array of each vertex's triangles. merge_ratio: the two
    lists of an edge are merged when neither is longer than this times the
    other, else the shorter one's entries are searched in the longer one
    (None: ``settings.triangles.merge_ratio``); cfg: the ``Cuda`` settings
    of the launch (None: those in force); stats: a ``bitgraph.Stats`` whose
    ``metrics["kernel_ms"]`` gets the launch's GPU time. Cost O(nnz log n +
    sum over edges of min(|a|, |b|) log max(|a|, |b|)) (``triangles.cu``);
    workspace 8 bytes (+ 8n with per_vertex).
    """
    import cupy

    from bitgraph.device import oom_guard

    where = "triangle_count(ordered, cuda)"
    idx = np.dtype(np.int64) if any(a.dtype.itemsize > 4 for a in (indptr, indices, mid)) \
        else np.dtype(np.int32)
    indptr, indices, mid = (cupy.ascontiguousarray(a, dtype=idx) for a in (indptr, indices, mid))
    n = int(mid.shape[0])
    if indptr.shape[0] != n + 1:
        raise ValueError(f"{where}: indptr has {indptr.shape[0]} entries, expected n + 1 ="
                         f" {n + 1} (mid has {n})")
    nnz = int(indices.shape[0])
    if merge_ratio is None:
        from bitgraph.settings import current
        merge_ratio = current().triangles.merge_ratio
    with oom_guard(where, 8 + (8 * n if per_vertex else 0)):
        total = cupy.zeros(1, cupy.uint64)
        tri = cupy.zeros(n if per_vertex else 1, cupy.int64)
    if nnz and n:
        mod, lowered = module("triangles.cu", _NAMES)
        fn = mod.get_function(lowered[f"tc_ordered<{_INDEX[idx]}>"])
        args = (indptr, indices, mid, np.int64(n), np.int64(nnz), np.bool_(per_vertex),
                np.int64(max(1, int(merge_ratio))), total, tri)

        def launch():
            fn(*shape(nnz, cfg), args)

        if stats is None:
            launch()
        else:
            from bitgraph.kernels.cuda.timing import gated_ms

            stats.metrics["kernel_ms"] = gated_ms(launch)
    if per_vertex:
        return tri
    return int(total[0])  # synchronize!
