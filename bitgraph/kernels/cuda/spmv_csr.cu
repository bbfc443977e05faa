// mxv, pull: t = A (+).(x) x with A in CSR: the CUDA twin of
// kernels/cpu/spmv_csr.py. T is the semiring's type, I the index type (int
// or long long). ADD and MULT are op codes fixed at compile time for the
// semirings launchers name as fast paths (the switch folds away), or -1:
// then the runtime arguments add and mult choose (every thread takes the
// same branch).
//
// Work balance, three kinds of rows (the launcher's plan, cached per matrix):
// - heavy rows (more than light_max entries: a power-law hub holds 10^5)
//   are cut into chunks of `chunk` entries, a whole block each; its threads
//   stride the chunk, fold their products, then the block folds its
//   threads' results (shuffles, then the warps' in warp order) into
//   chunk_vals[c] / chunk_found[c]. spmv_heavy_finish (a second launch)
//   folds each heavy row's chunks in chunk order into t. A group of 32
//   lanes on kron-22's hubs took 5.4 ms where cuSPARSE's SpMV took 1.1
//   (H100).
// - medium rows (listed in medium_rows: more than light_max entries, at
//   most the heavy cut): a warp each, its lanes striding the row as a light
//   row's group does. Left to a light row's G lanes, one such row holds its
//   warp while the other rows' lanes idle.
// - light rows: a group of G lanes each (G a power of 2 up to 32, the
//   launcher's choice: about four entries a lane of a median row); lane l
//   folds the row's products p = start + l, start + l + G, ... in order,
//   four loads in flight, stopping at the monoid's terminal, then the group
//   folds its G partial results by shuffles.
// Blocks first take chunks (grid-stride), then warps medium rows, then
// groups light rows. x_full:
// every entry of x is present (the bitmap is not read).
#include "scalar.cuh"

template <typename T>
__device__ __forceinline__ T shfl_down(T v, int d, int width) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_down_sync(0xffffffffu, (int)v, d, width);
  else return __shfl_down_sync(0xffffffffu, v, d, width);
}

__device__ __forceinline__ bool bit(const unsigned int* words, unsigned long long i) {
  return (words[i >> 5] >> (i & 31)) & 1u;
}

// acc (+)= product of entry p (a_p (x) x_k, k = indices[p]) where x_k is
// present; returns whether the fold reached the monoid's terminal (or ANY)
template <typename T, typename I>
struct Fold {
  const I* __restrict__ indices;
  const T* __restrict__ values;
  const T* __restrict__ x_values;
  const unsigned int* __restrict__ x_bitmap;
  int add, mult;
  bool iso, x_full, has_term;
  T terminal;

  __device__ __forceinline__ bool present(unsigned long long k) const {
    return x_full || bit(x_bitmap, k);
  }
  __device__ __forceinline__ bool step(T& acc, bool& found, long long r, long long p,
                                       unsigned long long k, T xk) const {
    const T a = iso ? (T)1 : values[p];
    const T prod = bg::multop<T>(mult, a, xk, (unsigned long long)r, k, 0ull);
    acc = found ? bg::binop<T>(add, acc, prod) : prod;
    found = true;
    return add == bg::ANY || (has_term && acc == terminal);
  }
  // the products of entries p, p + stride, ... < end, in that order (four
  // loads of x in flight), into (acc, found)
  __device__ __forceinline__ void run(T& acc, bool& found, long long r, long long p,
                                      long long end, long long stride) const {
    for (; p + 3 * stride < end; p += 4 * stride) {
      const unsigned long long k0 = (unsigned long long)indices[p];
      const unsigned long long k1 = (unsigned long long)indices[p + stride];
      const unsigned long long k2 = (unsigned long long)indices[p + 2 * stride];
      const unsigned long long k3 = (unsigned long long)indices[p + 3 * stride];
      const bool b0 = present(k0), b1 = present(k1), b2 = present(k2), b3 = present(k3);
      const T x0 = b0 ? x_values[k0] : acc, x1 = b1 ? x_values[k1] : acc,
              x2 = b2 ? x_values[k2] : acc, x3 = b3 ? x_values[k3] : acc;
      if (b0 && step(acc, found, r, p, k0, x0)) return;
      if (b1 && step(acc, found, r, p + stride, k1, x1)) return;
      if (b2 && step(acc, found, r, p + 2 * stride, k2, x2)) return;
      if (b3 && step(acc, found, r, p + 3 * stride, k3, x3)) return;
    }
    for (; p < end; p += stride) {
      const unsigned long long k = (unsigned long long)indices[p];
      if (present(k) && step(acc, found, r, p, k, x_values[k])) return;
    }
  }
};

// fold (other, other_found) into (acc, found)
template <typename T>
__device__ __forceinline__ void merge(int add, T& acc, bool& found, T other, bool other_found) {
  if (other_found) {
    acc = found ? bg::binop<T>(add, acc, other) : other;
    found = true;
  }
}

// the group's partial results folded by shuffles: its lane 0 ends with them
template <typename T>
__device__ __forceinline__ void group_fold(int add, T& acc, bool& found, int lane, int group) {
  for (int d = group >> 1; d > 0; d >>= 1) {
    const T other = shfl_down(acc, d, group);
    const bool other_found = __shfl_down_sync(0xffffffffu, (int)found, d, group) != 0;
    if (lane + d < group) merge(add, acc, found, other, other_found);
  }
}

template <typename T, typename I, int ADD, int MULT>
__global__ void spmv_pull(const I* __restrict__ indptr, const I* __restrict__ indices,
                          const T* __restrict__ values, bool iso,
                          const T* __restrict__ x_values, const unsigned int* __restrict__ x_bitmap,
                          bool x_full, const unsigned int* __restrict__ allowed, bool has_allowed,
                          int add_rt, int mult_rt, T identity, bool has_term, T terminal,
                          T* __restrict__ t_values, bool* __restrict__ t_present,
                          long long nrows, int group, long long light_max,
                          const long long* __restrict__ heavy_rows,
                          const long long* __restrict__ heavy_first,
                          const long long* __restrict__ chunk_heavy, long long nchunks,
                          long long chunk, T* __restrict__ chunk_vals,
                          bool* __restrict__ chunk_found,
                          const long long* __restrict__ medium_rows, long long nmedium) {
  __shared__ T warp_vals[32];
  __shared__ bool warp_found[32];
  const int add = ADD >= 0 ? ADD : add_rt;
  const int mult = MULT >= 0 ? MULT : mult_rt;
  const Fold<T, I> f{indices, values, x_values, x_bitmap, add, mult, iso, x_full, has_term,
                     terminal};
  const int warp_lane = threadIdx.x & 31;
  // the heavy rows' chunks, a whole block each (block-uniform control flow)
  for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const long long h = chunk_heavy[c];
    const long long r = heavy_rows[h];
    T acc = identity;
    bool found = false;
    if (!has_allowed || bit(allowed, (unsigned long long)r)) {
      const long long start = (long long)indptr[r] + (c - heavy_first[h]) * chunk;
      const long long end = min(start + chunk, (long long)indptr[r + 1]);
      f.run(acc, found, r, start + threadIdx.x, end, (long long)blockDim.x);
    }
    group_fold(add, acc, found, warp_lane, 32);
    __syncthreads();  // warp_vals may still be read by the previous chunk
    if (warp_lane == 0) {
      warp_vals[threadIdx.x >> 5] = acc;
      warp_found[threadIdx.x >> 5] = found;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < (int)(blockDim.x >> 5); ++w)
        merge(add, acc, found, warp_vals[w], warp_found[w]);
      chunk_vals[c] = acc;
      chunk_found[c] = found;
    }
  }
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long warp_id = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  // the medium rows, a warp each (warp-uniform loop: the shuffles need the
  // whole warp)
  for (long long m = warp_id; m < nmedium; m += warps) {
    const long long r = medium_rows[m];
    T acc = identity;
    bool found = false;
    if (!has_allowed || bit(allowed, (unsigned long long)r))
      f.run(acc, found, r, (long long)indptr[r] + warp_lane, (long long)indptr[r + 1], 32);
    group_fold(add, acc, found, warp_lane, 32);
    if (warp_lane == 0) {
      t_values[r] = acc;
      t_present[r] = found;
    }
  }
  const int lane = threadIdx.x & (group - 1);
  const long long per_warp = 32 / group;
  // every lane of a warp runs the same iterations (the shuffles need the
  // whole warp); rows past the end, medium and heavy rows are idle groups
  for (long long base = warp_id * per_warp; base < nrows; base += warps * per_warp) {
    const long long r = base + warp_lane / group;
    T acc = identity;
    bool found = false;
    bool mine = false;
    if (r < nrows) {
      const long long start = (long long)indptr[r], end = (long long)indptr[r + 1];
      mine = end - start <= light_max;
      if (mine && (!has_allowed || bit(allowed, (unsigned long long)r)))
        f.run(acc, found, r, start + lane, end, group);
    }
    group_fold(add, acc, found, lane, group);
    if (lane == 0 && mine) {
      t_values[r] = acc;
      t_present[r] = found;
    }
  }
}

// each heavy row's chunks folded in chunk order into t (a thread a row):
// t_values[heavy_rows[h]], t_present[...] from chunk_vals / chunk_found
// heavy_first[h] .. heavy_first[h + 1] - 1. O(nchunks)
template <typename T>
__global__ void spmv_heavy_finish(const long long* __restrict__ heavy_rows,
                                  const long long* __restrict__ heavy_first, long long nheavy,
                                  const T* __restrict__ chunk_vals,
                                  const bool* __restrict__ chunk_found, int add, T identity,
                                  T* __restrict__ t_values, bool* __restrict__ t_present) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x; h < nheavy; h += stride) {
    T acc = identity;
    bool found = false;
    for (long long c = heavy_first[h]; c < heavy_first[h + 1]; ++c)
      merge(add, acc, found, chunk_vals[c], chunk_found[c]);
    t_values[heavy_rows[h]] = acc;
    t_present[heavy_rows[h]] = found;
  }
}

// an instantiation nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void spmv_pull<double, int, -1, -1>(const int*, const int*, const double*,
    bool, const double*, const unsigned int*, bool, const unsigned int*, bool, int, int, double,
    bool, double, double*, bool*, long long, int, long long, const long long*, const long long*,
    const long long*, long long, long long, double*, bool*, const long long*, long long);
template __global__ void spmv_pull<bool, long long, bg::LOR, bg::LAND>(const long long*,
    const long long*, const bool*, bool, const bool*, const unsigned int*, bool,
    const unsigned int*, bool, int, int, bool, bool, bool, bool*, bool*, long long, int, long long,
    const long long*, const long long*, const long long*, long long, long long, bool*, bool*,
    const long long*, long long);
template __global__ void spmv_heavy_finish<double>(const long long*, const long long*, long long,
    const double*, const bool*, int, double, double*, bool*);
