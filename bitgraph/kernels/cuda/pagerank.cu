// PageRank's power iteration fused on the GPU: the CUDA twin of
// kernels/cpu/pagerank.py (one launch an iteration), a pull over AT, the
// CSR of A' (row j: the in-neighbours i of j).
//
// Launch s (iteration s of the run, 0-based) reads x = xs[s & 1], y =
// ys[s & 1] (y = x * inv_s, x scaled by 1 / weighted out-degree) and the
// rank x holds on dangling vertices, lost[s & 1]; it writes
//   x'(j) = alpha * (sum_i y(i) AT(j, i) + lost * dw(j)) + teleport(j)
//   y'(j) = x'(j) * inv_s(j)
// into xs[(s + 1) & 1], ys[(s + 1) & 1], and reduces on the device
//   errs[slot]           = sum_j |x'(j) - x(j)|       (the L1 change)
//   lost[(s + 1) & 1]    = sum of x'(j) over inv_s(j) == 0 (the next iteration's dangling rank)
//   *stop                = errs[slot] < threshold     (converged: n * tol)
// A launch that finds *stop set returns at once and leaves every buffer as
// it is, so the host may queue several iterations before it reads their
// errors (one read a batch) and still reports the exact iteration at which
// the run converged, with the ranks of that iteration.
//
// Work balance: a group of G lanes per row (G a power of 2 up to 32, the
// launcher's choice from the mean row length, as spmv_csr.cu); lane l of a
// group adds the row's entries p = start + l, start + l + G, ..., then the
// group folds its partial sums by shuffles. The reduction is deterministic
// for a fixed launch shape: each block writes its partial sums, the last
// block to arrive (a counter; CUDA's threadFenceReduction sample) adds the
// partials in block order and resets the counter for the next launch.
//
// Arrays: indptr[n + 1], indices[nnz] (I: int or long long), values[nnz]
// (float64 weights A(i, j); not read when ISO, a structure-only graph:
// every weight 1); y[n], x[n], inv_s[n] (0 exactly on dangling vertices),
// x_new[n], y_new[n]; dw[n] and teleport[n] (read unless dw_uniform /
// tele_uniform: then the scalars dw_c / tele_c); lost[2]; partials[2 *
// gridDim.x]; arrived[1] (0 between launches); errs[slot + 1]; stop[1].
// O(n + nnz) a launch; blockDim.x a multiple of 32, at most 1024.

template <typename T>
__device__ __forceinline__ T warp_sum(T v, int width) {
  for (int d = width >> 1; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d, width);
  return v;
}

// the block's sum of v (thread 0 gets it); every thread of the block calls it
__device__ __forceinline__ double block_sum(double v, double* scratch) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_sum(v, 32);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int nwarps = blockDim.x >> 5;
  v = threadIdx.x < nwarps ? scratch[threadIdx.x] : 0.0;
  if (warp == 0) v = warp_sum(v, 32);
  return v;
}

template <typename I, bool ISO>
__global__ void pagerank_pull(const I* __restrict__ indptr, const I* __restrict__ indices,
                              const double* __restrict__ values, const double* __restrict__ y,
                              const double* __restrict__ x, const double* __restrict__ inv_s,
                              const double* __restrict__ dw, double dw_c, bool dw_uniform,
                              const double* __restrict__ teleport, double tele_c,
                              bool tele_uniform, double alpha, long long n, int group,
                              double* __restrict__ x_new, double* __restrict__ y_new,
                              double* lost, int parity, double* partials,
                              unsigned int* arrived, double* errs, long long slot,
                              double threshold, int* stop) {
  __shared__ double scratch[32];
  __shared__ bool last;
  // converged at an earlier launch: every thread reads the same flag (set
  // by an earlier launch on this stream), so the whole grid returns
  if (*stop) return;
  const double lost_now = lost[parity];
  const int lane = threadIdx.x & (group - 1);
  const long long per_warp = 32 / group;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  double err = 0.0, dangling = 0.0;
  // every lane of a warp runs the same iterations (the shuffles need the
  // whole warp); rows past the end are idle groups
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per_warp;
       base < n; base += warps * per_warp) {
    const long long r = base + (threadIdx.x & 31) / group;
    double acc = 0.0;
    if (r < n) {
      const long long end = (long long)indptr[r + 1];
      for (long long p = (long long)indptr[r] + lane; p < end; p += group) {
        const double yi = y[(long long)indices[p]];
        if constexpr (ISO) acc += yi;
        else acc += values[p] * yi;
      }
    }
    acc = warp_sum(acc, group);  // lane 0 of the group holds the row's sum
    if (lane == 0 && r < n) {
      const double xn = alpha * (acc + lost_now * (dw_uniform ? dw_c : dw[r])) +
                        (tele_uniform ? tele_c : teleport[r]);
      err += fabs(xn - x[r]);
      x_new[r] = xn;
      const double s = inv_s[r];
      y_new[r] = xn * s;
      if (s == 0.0) dangling += xn;
    }
  }
  err = block_sum(err, scratch);
  dangling = block_sum(dangling, scratch);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = err;
    partials[gridDim.x + blockIdx.x] = dangling;
    __threadfence();  // the partials are visible before the arrival is
    last = atomicAdd(arrived, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // the last block: every other block's partials are written; read them
  // past L1 (another SM wrote them), in block order
  double e = 0.0, d = 0.0;
  for (long long b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    e += __ldcg(partials + b);
    d += __ldcg(partials + gridDim.x + b);
  }
  e = block_sum(e, scratch);
  d = block_sum(d, scratch);
  if (threadIdx.x == 0) {
    errs[slot] = e;
    lost[parity ^ 1] = d;
    *stop = e < threshold ? 1 : 0;
    *arrived = 0u;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the four it uses, by name expression
template __global__ void pagerank_pull<int, true>(const int*, const int*, const double*,
    const double*, const double*, const double*, const double*, double, bool, const double*,
    double, bool, double, long long, int, double*, double*, double*, int, double*,
    unsigned int*, double*, long long, double, int*);
template __global__ void pagerank_pull<long long, false>(const long long*, const long long*,
    const double*, const double*, const double*, const double*, const double*, double, bool,
    const double*, double, bool, double, long long, int, double*, double*, double*, int,
    double*, unsigned int*, double*, long long, double, int*);
