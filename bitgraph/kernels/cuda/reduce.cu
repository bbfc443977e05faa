// Monoid reductions of contiguous segments (matrix rows, whole vectors): the
// CUDA twin of kernels/cpu/reduce.py.
//
// A segment is cut into units of at most ``chunk`` values; a group of G
// lanes (G = 1, 2, ..., 32: the launcher picks it from the mean segment
// length, so short rows do not idle 31 lanes of a warp) folds one unit:
// lane l takes values l, l + G, ... four loads ahead, then the group folds
// its lanes by shuffles. A segment of one unit is done; the partial results
// of longer ones are reduced again by the same kernel (the launcher
// recurses on units[] as the new indptr), so a whole vector of 10^8 values
// runs on every SM, not in one warp. Segments are folded in another order
// than the CPU's left-to-right loop: exact for integers, bool, MIN, MAX,
// LOR/LAND/LXOR (a lane's value is kept raw until a second one comes, as
// the CPU keeps the first value); float PLUS/TIMES may differ in the last
// bits. ANY takes the segment's first value, as the CPU does.
#include "scalar.cuh"

template <typename T>
__device__ __forceinline__ T shfl_down(T v, int d, int width) {
  if constexpr (sizeof(T) < 4) return (T)__shfl_down_sync(0xffffffffu, (int)v, d, width);
  else return __shfl_down_sync(0xffffffffu, v, d, width);
}

// fold v into (acc, found); true once acc is the terminal (stop)
template <typename T>
__device__ __forceinline__ bool fold(int add, T& acc, bool& found, T v, bool has_term,
                                     T terminal) {
  acc = found ? bg::binop<T>(add, acc, v) : v;
  found = true;
  return has_term && acc == terminal;
}

// indptr[nseg+1] (values of segment r: values[indptr[r]:indptr[r+1]]);
// units[nseg+1] (int64, unit u belongs to segment r where units[r] <= u <
// units[r+1], the chunk u - units[r] of it), or direct: unit u is segment u
// (every segment fits one chunk); out[nunits]: the fold of each unit
// (identity for an empty segment). group: lanes per unit, a power of 2.
// O(nunits log nseg / groups + nnz / threads)
template <typename T, typename I>
__global__ void reduce_units(const I* __restrict__ indptr, const T* __restrict__ values,
                             const long long* __restrict__ units, bool direct, long long nseg,
                             long long nunits, long long chunk, int group, int add, T identity,
                             bool has_term, T terminal, T* __restrict__ out) {
  const int lane = threadIdx.x & 31;
  const int sub = lane & (group - 1);
  const long long per_warp = 32 / group;
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
  // the loop bound is the same for every lane of a warp: the shuffles below
  // always run on the full warp
  for (long long base = warp * per_warp; base < nunits; base += nwarps * per_warp) {
    const long long u = base + lane / group;
    T acc = identity;
    bool found = false;
    if (u < nunits) {
      long long r = u, c = 0;
      if (!direct) {
        long long hi = nseg;  // units[r] <= u < units[hi]
        r = 0;
        while (hi - r > 1) {
          const long long mid = (r + hi) >> 1;
          if (units[mid] <= u) r = mid;
          else hi = mid;
        }
        c = u - units[r];
      }
      const long long lo = (long long)indptr[r] + c * chunk;
      const long long end = (long long)indptr[r + 1];
      const long long hi = end < lo + chunk ? end : lo + chunk;
      if (add == bg::ANY) {
        if (sub == 0 && lo < hi) {
          acc = values[lo];
          found = true;
        }
      } else {
        long long p = lo + sub;
        bool stop = false;
        // four independent loads in flight before the first fold
        for (; p + 3 * group < hi; p += 4 * group) {
          const T v0 = values[p], v1 = values[p + group], v2 = values[p + 2 * group],
                  v3 = values[p + 3 * group];
          if (fold(add, acc, found, v0, has_term, terminal) ||
              fold(add, acc, found, v1, has_term, terminal) ||
              fold(add, acc, found, v2, has_term, terminal) ||
              fold(add, acc, found, v3, has_term, terminal)) {
            stop = true;
            break;
          }
        }
        if (!stop)
          for (; p < hi; p += group)
            if (fold(add, acc, found, values[p], has_term, terminal)) break;
      }
    }
    // fold the group's lanes: lane sub == 0 ends with the unit's result
    for (int d = group >> 1; d > 0; d >>= 1) {
      const T other = shfl_down(acc, d, group);
      const bool other_found = __shfl_down_sync(0xffffffffu, (int)found, d, group) != 0;
      if (sub + d < group && other_found) {
        acc = found ? bg::binop<T>(add, acc, other) : other;
        found = true;
      }
    }
    if (sub == 0 && u < nunits) out[u] = found ? acc : identity;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void reduce_units<double, int>(const int*, const double*, const long long*,
    bool, long long, long long, long long, int, int, double, bool, double, double*);
template __global__ void reduce_units<bool, long long>(const long long*, const bool*,
    const long long*, bool, long long, long long, long long, int, int, bool, bool, bool, bool*);
template __global__ void reduce_units<signed char, long long>(const long long*,
    const signed char*, const long long*, bool, long long, long long, long long, int, int,
    signed char, bool, signed char, signed char*);
template __global__ void reduce_units<unsigned long long, int>(const int*,
    const unsigned long long*, const long long*, bool, long long, long long, long long, int,
    int, unsigned long long, bool, unsigned long long, unsigned long long*);
