"""The GPU rows' bandwidth floors and traversal rates (benchmarks/run.py).

For each CUDA row, measured in the same run on the same card:

- ``copy GB/s``: the card's device-to-device copy bandwidth (bytes read plus
  bytes written over the time of copying 1 GiB; best of 5).
- ``floor ms``: the bytes the call must move over that bandwidth, where
  every stored entry must be read (``floor_bytes``): pagerank (each
  iteration a pull over int32 indices), sssp (every reached entry relaxed
  once: its index and weight), triangle_count and mxm (every entry read),
  mxv. Traversals (bfs, msbfs, closeness, betweenness, diameter) and
  connected components have none: a bottom-up level or a sampled hook
  reads a fraction of the entries.
- ``gather ms`` (pagerank): the time of only reading the graph's int32
  indices in their stored order and summing the rank each names (the ranks'
  dtype, one kernel, nothing written), times the iterations: what any
  SpMV in the graph's own vertex order pays for its gathers (cuSPARSE's
  included), at the L2's 32-byte sectors rather than the 4 or 8 bytes a
  gather uses. ``kernel-order gather ms``: the same pass over the pull
  CSR our kernel runs on (the vertices relabelled hubs first where
  ``settings.pagerank.relabel`` chooses it): the floor of any pull in that
  order.
- ``GTEPS``: stored entries (times sources for a batch, times iterations
  for pagerank) over the call's time.

>>> floor_bytes("triangle_count", 10, 100, 0)
400
>>> floor_bytes("bfs", 10, 100, 0) is None
True
"""

from __future__ import annotations

import numpy as np

_GATHER = r"""
template <typename T>
__device__ void gather_sum(const int* __restrict__ idx, const T* __restrict__ y, long long nnz,
                           double* out) {
  double acc = 0.0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; e + 3 * stride < nnz; e += 4 * stride) {
    const int i0 = idx[e], i1 = idx[e + stride], i2 = idx[e + 2 * stride],
              i3 = idx[e + 3 * stride];
    acc += (double)y[i0] + (double)y[i1] + (double)y[i2] + (double)y[i3];
  }
  for (; e < nnz; e += stride) acc += (double)y[idx[e]];
  for (int d = 16; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
  if ((threadIdx.x & 31) == 0) atomicAdd(out, acc);
}
extern "C" __global__ void gather_f32(const int* idx, const float* y, long long nnz,
                                      double* out) { gather_sum<float>(idx, y, nnz, out); }
extern "C" __global__ void gather_f64(const int* idx, const double* y, long long nnz,
                                      double* out) { gather_sum<double>(idx, y, nnz, out); }
"""

_MEMO = {}


def _events(cupy, f, repeat=5):
    """Best milliseconds of ``repeat`` runs of ``f`` (after a warm-up), between CUDA events."""
    f()
    best = float("inf")
    for _ in range(repeat):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        f()
        stop.record()
        stop.synchronize()  # synchronize!
        best = min(best, cupy.cuda.get_elapsed_time(start, stop))
    return best


def copy_gbps():
    """The current GPU's copy bandwidth, GB/s (bytes read + written), measured once a process."""
    if "copy" not in _MEMO:
        import cupy

        a = cupy.ones(1 << 28, np.float32)  # 1 GiB
        b = cupy.empty_like(a)
        ms = _events(cupy, lambda: cupy.copyto(b, a))
        _MEMO["copy"] = 2 * a.nbytes / (ms * 1e6)
        del a, b
        cupy.get_default_memory_pool().free_all_blocks()
    return _MEMO["copy"]


def floor_bytes(algo, n, nvals, iterations, rank_bytes=8, weight_bytes=4):
    """The bytes a CUDA call of ``algo`` must move (None: no floor, see the module's
    docstring); ``iterations`` for pagerank, ``rank_bytes`` its ranks' size,
    ``weight_bytes`` sssp's weights'."""
    if algo == "pagerank":
        # a pull per iteration: int32 indices and row pointers, y read and x' written once
        return iterations * (4 * nvals + 4 * (n + 1) + 2 * rank_bytes * n)
    if algo == "sssp":
        return (4 + weight_bytes) * nvals + 4 * (n + 1) + 2 * weight_bytes * n
    if algo in ("triangle_count", "mxm"):
        return 4 * nvals
    if algo == "mxv":
        return 4 * nvals + 4 * (n + 1) + 8 * 2 * n
    return None


def gather_ms(A, rank_dtype=np.float64):
    """Milliseconds of one pass of gathers over ``A``'s stored entries (a CUDA
    ``bitgraph.Matrix``, or a CSR of the GPU: its column indices as int32, in
    stored order), each reading the ``rank_dtype`` value its index names; None
    past int32 indices."""
    import cupy

    if A.ncols > np.iinfo(np.int32).max:
        return None
    key = ("gather", id(A), np.dtype(rank_dtype).str)
    if key not in _MEMO:
        if "module" not in _MEMO:
            _MEMO["module"] = cupy.RawModule(code=_GATHER, options=("-std=c++17",))
        idx = cupy.ascontiguousarray(cupy.asarray(A.indices), dtype=np.int32)
        y = cupy.random.default_rng(0).random(A.ncols, dtype=np.float64).astype(rank_dtype)
        out = cupy.zeros(1, np.float64)
        fn = _MEMO["module"].get_function(
            "gather_f32" if np.dtype(rank_dtype) == np.float32 else "gather_f64")
        blocks = 4 * cupy.cuda.Device().attributes["MultiProcessorCount"] * 8
        _MEMO[key] = _events(cupy, lambda: fn((blocks,), (256,),
                                             (idx, y, np.int64(idx.size), out)))
        del idx, y
    return _MEMO[key]


def gteps(algo, nvals, ms, iterations=None, batch=1):
    """Stored entries per second, in billions, of a call of ``ms`` milliseconds (per source
    for single-source rows): times ``batch`` sources for msbfs and closeness, ``iterations``
    for pagerank; None for diameter (its passes vary) or without a time.

    >>> gteps("pagerank", 10**9, 1000.0, iterations=5)
    5.0
    """
    if not ms or algo in ("diameter", "diameter_bounds"):
        return None
    if algo == "pagerank":
        if not iterations:
            return None
        batch = iterations
    return batch * nvals / (ms * 1e6)
