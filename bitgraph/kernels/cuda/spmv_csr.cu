// mxv, pull: t = A (+).(x) x with A in CSR: the CUDA twin of
// kernels/cpu/spmv_csr.py, a group of G lanes per row (G a power of 2 up to
// 32, the launcher's choice from the mean row length: a warp per row
// leaves 28 of 32 lanes idle on a mesh's 4-entry rows). Lane l of a group
// folds the row's products p = start + l, start + l + G, ... in order
// (stopping at the monoid's terminal), then the group folds its G partial
// results by shuffles. T is the semiring's type, I the index type (int or long long).
// ADD and MULT are op codes fixed at compile time for the semirings
// launchers name as fast paths (the switch folds away), or -1: then the
// runtime arguments add and mult choose (every thread takes the same branch).
#include "scalar.cuh"

template <typename T>
__device__ __forceinline__ T shfl_down(T v, int d, int width) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_down_sync(0xffffffffu, (int)v, d, width);
  else return __shfl_down_sync(0xffffffffu, v, d, width);
}

__device__ __forceinline__ bool bit(const unsigned int* words, unsigned long long i) {
  return (words[i >> 5] >> (i & 31)) & 1u;
}

template <typename T, typename I, int ADD, int MULT>
__global__ void spmv_pull(const I* __restrict__ indptr, const I* __restrict__ indices,
                          const T* __restrict__ values, bool iso,
                          const T* __restrict__ x_values, const unsigned int* __restrict__ x_bitmap,
                          const unsigned int* __restrict__ allowed, bool has_allowed,
                          int add_rt, int mult_rt, T identity, bool has_term, T terminal,
                          T* __restrict__ t_values, bool* __restrict__ t_present,
                          long long nrows, int group) {
  const int add = ADD >= 0 ? ADD : add_rt;
  const int mult = MULT >= 0 ? MULT : mult_rt;
  const int lane = threadIdx.x & (group - 1);
  const long long per_warp = 32 / group;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  // every lane of a warp runs the same iterations (the shuffles need the
  // whole warp); rows past the end are idle groups
  for (long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per_warp;
       base < nrows; base += warps * per_warp) {
    const long long r = base + (threadIdx.x & 31) / group;
    T acc = identity;
    bool found = false;
    if (r < nrows && (!has_allowed || bit(allowed, (unsigned long long)r))) {
      const long long end = (long long)indptr[r + 1];
      for (long long p = (long long)indptr[r] + lane; p < end; p += group) {
        const unsigned long long k = (unsigned long long)indices[p];
        if (!bit(x_bitmap, k)) continue;
        const T a = iso ? (T)1 : values[p];
        const T prod = bg::multop<T>(mult, a, x_values[k], (unsigned long long)r, k, 0ull);
        acc = found ? bg::binop<T>(add, acc, prod) : prod;
        found = true;
        if (add == bg::ANY || (has_term && acc == terminal)) break;
      }
    }
    // fold the group's partial results (its lane 0 ends with the row's)
    for (int d = group >> 1; d > 0; d >>= 1) {
      const T other = shfl_down(acc, d, group);
      const bool other_found = __shfl_down_sync(0xffffffffu, (int)found, d, group) != 0;
      if (lane + d < group && other_found) {
        acc = found ? bg::binop<T>(add, acc, other) : other;
        found = true;
      }
    }
    if (lane == 0 && r < nrows) {
      t_values[r] = acc;
      t_present[r] = found;
    }
  }
}

// an instantiation nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void spmv_pull<double, int, -1, -1>(const int*, const int*, const double*,
    bool, const double*, const unsigned int*, const unsigned int*, bool, int, int, double, bool,
    double, double*, bool*, long long, int);
template __global__ void spmv_pull<bool, long long, bg::LOR, bg::LAND>(const long long*,
    const long long*, const bool*, bool, const bool*, const unsigned int*, const unsigned int*,
    bool, int, int, bool, bool, bool, bool*, bool*, long long, int);
