// Single-source shortest paths on the GPU: near-far delta-stepping
// (Davidson et al., "Work-efficient parallel GPU methods for single-source
// shortest paths", 2014), the CUDA twin of kernels/cpu/sssp.py.
//
// dist[n] holds the tentative distances in D (int, long long, unsigned long
// long, float or double); the weights have the same type. Unreached is D's
// maximum (+inf for floats); an integer sum past saturated (D's maximum - 1)
// stops there instead of wrapping, as the CPU kernel's. Weights are >= 0
// (the caller checks), so every distance is >= +0 and the bit patterns of
// float distances order as the integers of their width: atomicMin on those
// relaxes (a sum of -0.0 is stored as +0.0).
//
// The launcher's loop: a near list holds the vertices improved below the
// threshold T, to relax in the next round (sssp_relax); an improvement at
// or past T goes to the far pile. A round relaxes every near vertex's
// out-edges with its current distance; when the near list comes back
// empty, T advances by delta and sssp_split moves the far pile's vertices
// below it to the near list (those below the previous T were relaxed when
// they got there and are dropped), keeping the others and their least
// distance (the launcher jumps T past it when the next bucket is empty).
// Every improvement is relaxed again, so the fixpoint is exact for any
// increasing T; delta only trades rounds against re-relaxations.
//
// flags[v] (F_NEAR, F_FAR) keep a vertex at most once in the near list and
// once in the far pile: each holds at most n entries. The near bit is
// cleared when the vertex is taken from the list, before its distance is
// read (a fence between); an improver writes the distance, fences, then
// sets the bit: either it sees the bit clear and queues the vertex again,
// or the reader's load comes after its write.
//
// Work balance: a lane per near vertex; vertices of warp_min out-edges or
// more are relaxed by the whole warp, one at a time (lanes over the row).
#include "sssp_constants.cuh"

namespace sssp_detail {

constexpr unsigned FULL = 0xffffffffu;

// the integer type whose order is D's over the distances (all >= +0)
template <typename D> struct Ord;
template <> struct Ord<int> {
  using U = int;
  static __device__ __forceinline__ U bits(int d) { return d; }
  static __device__ __forceinline__ int value(U u) { return u; }
};
template <> struct Ord<long long> {
  using U = long long;
  static __device__ __forceinline__ U bits(long long d) { return d; }
  static __device__ __forceinline__ long long value(U u) { return u; }
};
template <> struct Ord<unsigned long long> {
  using U = unsigned long long;
  static __device__ __forceinline__ U bits(unsigned long long d) { return d; }
  static __device__ __forceinline__ unsigned long long value(U u) { return u; }
};
template <> struct Ord<float> {
  using U = int;
  static __device__ __forceinline__ U bits(float d) { return __float_as_int(d); }
  static __device__ __forceinline__ float value(U u) { return __int_as_float(u); }
};
template <> struct Ord<double> {
  using U = long long;
  static __device__ __forceinline__ U bits(double d) { return __double_as_longlong(d); }
  static __device__ __forceinline__ double value(U u) { return __longlong_as_double(u); }
};

// the previous value of *p, which becomes min(*p, d)
template <typename D>
__device__ __forceinline__ D atomic_min_dist(D* p, D d) {
  using U = typename Ord<D>::U;
  return Ord<D>::value(atomicMin(reinterpret_cast<U*>(p), Ord<D>::bits(d)));
}

// a distance as another thread may have just written it (not from L1)
template <typename D>
__device__ __forceinline__ D load_dist(const D* p) {
  return *reinterpret_cast<const volatile D*>(p);
}

// du + w: floats as IEEE sums (-0.0 stored as +0.0; +inf improves nothing),
// integers stopping at saturated (du <= saturated, w >= 0: no wrap)
__device__ __forceinline__ float extend(float du, float w, float) {
  const float c = du + w;
  return c == 0.0f ? 0.0f : c;
}
__device__ __forceinline__ double extend(double du, double w, double) {
  const double c = du + w;
  return c == 0.0 ? 0.0 : c;
}
__device__ __forceinline__ int extend(int du, int w, int saturated) {
  return w > saturated - du ? saturated : du + w;
}
__device__ __forceinline__ long long extend(long long du, long long w, long long saturated) {
  return w > saturated - du ? saturated : du + w;
}
__device__ __forceinline__ unsigned long long extend(unsigned long long du, unsigned long long w,
                                                     unsigned long long saturated) {
  return w > saturated - du ? saturated : du + w;
}

// relax the edge at p from a vertex at distance du; queue its head if improved
template <typename D, typename I>
__device__ __forceinline__ void relax(long long p, D du, const I* __restrict__ indices,
                                      const D* __restrict__ weights, D* dist,
                                      unsigned int* flags, I* near_out, I* far, int far_slot,
                                      unsigned long long* ctr, D threshold, D saturated) {
  const I v = indices[p];
  const D cand = extend(du, weights[p], saturated);
  if (!(cand < load_dist(dist + v))) return;
  const D old = atomic_min_dist(dist + v, cand);
  if (!(cand < old)) return;
  __threadfence();  // the distance before the flag (see the header)
  if (cand < threshold) {
    if (!(atomicOr(flags + v, (unsigned)F_NEAR) & F_NEAR))
      near_out[atomicAdd(ctr + C_NEAR, 1ull)] = v;
  } else if (!(atomicOr(flags + v, (unsigned)F_FAR) & F_FAR)) {
    far[atomicAdd(ctr + far_slot, 1ull)] = v;
  }
}

}  // namespace sssp_detail

using namespace sssp_detail;

// One round: relax the out-edges of near_in[0..count) (each at its current
// distance) into dist; improved heads go to near_out (below threshold,
// counter C_NEAR) or to the far pile far (counter far_slot).
template <typename D, typename I>
__global__ void sssp_relax(const I* __restrict__ indptr, const I* __restrict__ indices,
                           const D* __restrict__ weights, D* dist, unsigned int* flags,
                           const I* __restrict__ near_in, long long count, I* near_out,
                           I* far, int far_slot, unsigned long long* ctr, D threshold,
                           D saturated, long long warp_min) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long first = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) << 5;
  // the whole warp runs every iteration (the ballot and shuffles need it)
  for (long long base = first; base < count; base += warps << 5) {
    const long long i = base + lane;
    long long start = 0, end = 0;
    D du = 0;
    if (i < count) {
      const I u = near_in[i];
      atomicAnd(flags + u, ~(unsigned)F_NEAR);
      __threadfence();  // the flag before the distance (see the header)
      du = load_dist(dist + u);
      start = (long long)indptr[u];
      end = (long long)indptr[u + 1];
    }
    const bool big = end - start >= warp_min;
    unsigned int wide = __ballot_sync(FULL, big);
    while (wide) {  // the warp over each long row in turn
      const int leader = __ffs(wide) - 1;
      wide &= wide - 1;
      const long long s = __shfl_sync(FULL, start, leader);
      const long long e = __shfl_sync(FULL, end, leader);
      const D d = __shfl_sync(FULL, du, leader);
      for (long long p = s + lane; p < e; p += 32)
        relax(p, d, indices, weights, dist, flags, near_out, far, far_slot, ctr, threshold,
              saturated);
    }
    if (!big) {
      for (long long p = start; p < end; ++p)
        relax(p, du, indices, weights, dist, flags, near_out, far, far_slot, ctr, threshold,
              saturated);
    }
  }
}

// Advance the threshold to `threshold` (from `low`, the previous one): each
// vertex of the far pile far_in[0..count) at distance >= threshold stays
// (far_out, counter out_slot; the least such distance's bits into C_MIN);
// one in [low, threshold) goes to the near list (counter C_NEAR); one below
// low was relaxed when it got there and is dropped.
template <typename D, typename I>
__global__ void sssp_split(const D* __restrict__ dist, unsigned int* flags,
                           const I* __restrict__ far_in, long long count, I* far_out,
                           int out_slot, I* near_out, unsigned long long* ctr, D low,
                           D threshold) {
  const int lane = threadIdx.x & 31;
  const unsigned int below = (1u << lane) - 1u;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long first = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) << 5;
  unsigned long long least = ~0ull;
  for (long long base = first; base < count; base += warps << 5) {
    const long long i = base + lane;
    bool keep = false, near = false;
    I v = 0;
    if (i < count) {
      v = far_in[i];
      const D d = dist[v];
      if (!(d < threshold)) {
        keep = true;
        const unsigned long long b = (unsigned long long)Ord<D>::bits(d);
        least = b < least ? b : least;
      } else {
        atomicAnd(flags + v, ~(unsigned)F_FAR);
        near = !(d < low) && !(atomicOr(flags + v, (unsigned)F_NEAR) & F_NEAR);
      }
    }
    // one counter update per warp and list
    const unsigned int kept = __ballot_sync(FULL, keep);
    const unsigned int moved = __ballot_sync(FULL, near);
    unsigned long long at_k = 0, at_n = 0;
    if (lane == 0) {
      if (kept) at_k = atomicAdd(ctr + out_slot, (unsigned long long)__popc(kept));
      if (moved) at_n = atomicAdd(ctr + C_NEAR, (unsigned long long)__popc(moved));
    }
    at_k = __shfl_sync(FULL, at_k, 0);
    at_n = __shfl_sync(FULL, at_n, 0);
    if (keep) far_out[at_k + __popc(kept & below)] = v;
    if (near) near_out[at_n + __popc(moved & below)] = v;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_xor_sync(FULL, least, o);
    least = other < least ? other : least;
  }
  if (lane == 0 && least != ~0ull) atomicMin(ctr + C_MIN, least);
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void sssp_relax<float, int>(const int*, const int*, const float*, float*,
    unsigned int*, const int*, long long, int*, int*, int, unsigned long long*, float, float,
    long long);
template __global__ void sssp_relax<long long, long long>(const long long*, const long long*,
    const long long*, long long*, unsigned int*, const long long*, long long, long long*,
    long long*, int, unsigned long long*, long long, long long, long long);
template __global__ void sssp_split<double, int>(const double*, unsigned int*, const int*,
    long long, int*, int, int*, unsigned long long*, double, double);
template __global__ void sssp_split<unsigned long long, long long>(const unsigned long long*,
    unsigned int*, const long long*, long long, long long*, int, long long*,
    unsigned long long*, unsigned long long, unsigned long long);
