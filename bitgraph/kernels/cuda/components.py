"""Launcher of ``components.cu``: connected components by Afforest on the
GPU, with the CPU launcher's signature where it applies
(``kernels/cpu/components.py``: ``afforest(indptr, indices, *, rounds,
skip_largest, cfg)``) and the same labels: every vertex labelled by the
smallest id of its weak component.

The kernels run on the current stream with no host synchronisation (the
largest partial component is found on the device and read there by the
last round), so a call costs its launches and three allocations. Knobs
come in as ``cfg`` (``bitgraph.settings.Components``: ``rounds``,
``cuda_samples``, ``cuda_warp_degree``, ``cuda_block_degree``,
``cuda_block_threads``); the grid-stride launches take the ``Cuda``
settings' shape (``kernels.cuda.shape``); layout constants come from
``constants.COMPONENTS``.
"""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.cuda.constants import COMPONENTS
from bitgraph.kernels.registry import register

__all__ = ["afforest"]

_SOURCE = "components.cu"
_C = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_PAIRS = tuple((i, v) for i in _C.values() for v in _C.values())
_NAMES = (tuple(f"{k}<{v}>" for k in ("cc_init", "cc_compress", "cc_largest") for v in _C.values())
          + tuple(f"{k}<{i}, {v}>" for k in ("cc_sample", "cc_final_thread", "cc_final_warp",
                                              "cc_final_block") for i, v in _PAIRS))
_SAMPLE_CAP = COMPONENTS["SAMPLE_CAP"]
_LARGEST_THREADS = COMPONENTS["LARGEST_THREADS"]
_CTRL = COMPONENTS["CTRL"]


def _fn(name):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[name])


@register("cc", fmt="csr", device="cuda", variant="afforest")
def afforest(indptr, indices, *, rounds=None, skip_largest=True, cfg=None, stats=None):
    """Weakly connected components by Afforest on the GPU: an int64 CuPy
    array, comp[u] = the smallest vertex id of u's component.

    indptr[n+1], indices[nnz]: a square CSR (CuPy arrays, int32 or int64;
    self-loops, duplicates and unsorted rows are fine). skip_largest: the
    CSR holds both directions of every edge, so the vertices of the largest
    partial component may skip their edges in the last round (False for a
    directed graph). cfg: the ``Components`` settings (None: those in
    force); rounds: sampling rounds (None: ``cfg.rounds``). stats: a
    ``bitgraph.Stats`` whose ``metrics`` get ``kernel_ms`` (the kernels' GPU
    time, the host's launch overhead gated out: ``timing.gated_ms``), and
    ``warp_list`` / ``block_list`` (vertices handed to a warp or a block in
    the last round: a synchronising read, only with stats). Cost O(n + nnz)
    link attempts; workspace 2 n vertex ids (comp, the lists).

    >>> labels = afforest(A._csr().indptr, A._csr().indices)  # doctest: +SKIP
    """
    import cupy

    from bitgraph.device import oom_guard

    if cfg is None:
        from bitgraph.settings import current
        cfg = current().components
    where = "connected_components (cuda afforest)"
    n = int(indptr.shape[0]) - 1
    if n < 0:
        raise ValueError(f"{where}: indptr must hold n + 1 >= 1 entries")
    if n == 0:
        return cupy.empty(0, cupy.int64)
    rounds = max(0, int(cfg.rounds if rounds is None else rounds))
    if rounds == 0:
        skip_largest = False  # no sample to find the largest component in
    samples = min(max(1, int(cfg.cuda_samples)), _SAMPLE_CAP)
    # one index type per array kind: I for indptr, V for the vertex ids of
    # indices and comp (int32 unless an id or the array needs int64)
    i_type = np.dtype(np.int64) if indptr.dtype.itemsize > 4 else np.dtype(np.int32)
    v_type = np.dtype(np.int64) if indices.dtype.itemsize > 4 or n > np.iinfo(np.int32).max \
        else np.dtype(np.int32)
    indptr = cupy.ascontiguousarray(indptr, dtype=i_type)
    indices = cupy.ascontiguousarray(indices, dtype=v_type)
    i_c, v_c = _C[i_type], _C[v_type]
    with oom_guard(where, 2 * n * v_type.itemsize + 8 * n + 8 * _CTRL):
        comp = cupy.empty(n, v_type)
        wl = cupy.empty(n, v_type)
        ctrl = cupy.zeros(_CTRL, cupy.uint64)
        labels = cupy.empty(n, cupy.int64)
    grid, block = shape(n)
    warps_grid, _ = shape(32 * n)
    hubs_grid = (max(1, min(n, grid[0])),)
    hub_threads = (int(cfg.cuda_block_threads),)
    n64 = np.int64(n)
    init, compress, largest = (_fn(f"{k}<{v_c}>") for k in ("cc_init", "cc_compress",
                                                             "cc_largest"))
    sample, final_thread, final_warp, final_block = (
        _fn(f"{k}<{i_c}, {v_c}>") for k in ("cc_sample", "cc_final_thread", "cc_final_warp",
                                            "cc_final_block"))
    null = np.uintp(0)

    def launch():
        init(grid, block, (comp, n64))
        for r in range(rounds):
            sample(grid, block, (indptr, indices, comp, n64, np.int64(r)))
            compress(grid, block, (comp, null, n64))
        if skip_largest:
            largest((1,), (_LARGEST_THREADS,), (comp, n64, np.int32(samples), ctrl))
        final_thread(grid, block, (indptr, indices, comp, wl, ctrl, n64, np.int64(rounds),
                                   np.int32(1 if skip_largest else 0),
                                   np.int64(cfg.cuda_warp_degree),
                                   np.int64(max(cfg.cuda_block_degree, cfg.cuda_warp_degree))))
        final_warp(warps_grid, block, (indptr, indices, comp, wl, ctrl, np.int64(rounds)))
        final_block(hubs_grid, hub_threads, (indptr, indices, comp, wl, ctrl, n64,
                                             np.int64(rounds)))
        compress(grid, block, (comp, labels, n64))

    if stats is None:
        launch()
    else:
        from bitgraph.kernels.cuda.timing import gated_ms

        ms = gated_ms(launch)
        counts = ctrl.get()  # synchronize! (stats only)
        stats.metrics.update(kernel_ms=ms, warp_list=int(counts[COMPONENTS["C_WARP"]]),
                             block_list=int(counts[COMPONENTS["C_BLOCK"]]))
    return labels
