// Connected components by Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018) on
// the GPU: the CUDA twin of kernels/cpu/components.py's ``afforest``.
//
// comp[n] is a forest in which every vertex points at a smaller (or equal)
// id: link(u, v) hooks the larger of the two roots under the smaller with
// an atomicCAS that succeeds only on a root (comp[r] == r), so the root of
// each final tree is its component's smallest id. A link ignores the
// edge's direction: any CSR gives the weakly connected components.
//
// The launcher (components.py) runs, on one stream, with no host sync:
//   cc_sample(r) + cc_compress   for r < rounds (neighbour r of every vertex)
//   cc_largest                   the most frequent root of SAMPLE_CAP at most
//                                sampled vertices -> ctrl[C_SKIP] (symmetric only)
//   cc_final_thread              every vertex outside that root's tree links
//                                its remaining edges; a vertex with more than
//                                warp_degree of them is handed to a list
//   cc_final_warp, cc_final_block  those lists: a warp, or a block, per vertex
//   cc_compress                  every vertex -> its root, written as int64
// Edge balance as ECL-CC (Jaiganesh, Burtscher, HPDC 2018): a thread per
// low-degree vertex, a warp per medium, a block per high degree, through
// two lists filled by the thread pass. Chosen over a one-pass edge-parallel
// split because Afforest's last round skips the largest component, which on
// skewed graphs holds every hub: the lists stay short, and the thread pass
// needs no per-edge source lookup (a binary search or a COO row array).
//
// Loads of comp inside link go to L2 (__ldcg): another SM's hook must be
// seen within the kernel (L1 is not coherent), and a failed CAS returns the
// value that beat it. The path-halving store (comp[x] = grandparent, only
// for a non-root x) may race another; any smaller id of the same tree is a
// valid pointer and a non-root never becomes a root, so no hook is lost.
//
// Templates: I the indptr type, V the vertex type of indices and comp (int
// or long long). Arrays: indptr[n+1], indices[nnz], comp[n], wl[n] (the
// warp list grows from wl[0], the block list from wl[n-1] down), ctrl[CTRL]
// (unsigned long long counters, zeroed by the launcher), labels[n] (int64).
#include "components_constants.cuh"

namespace {

template <typename V>
__device__ __forceinline__ V load_l2(const V* p) {
  return __ldcg(p);
}

template <typename V>
__device__ __forceinline__ V cas(V* p, V expected, V desired);

template <>
__device__ __forceinline__ int cas<int>(int* p, int expected, int desired) {
  return atomicCAS(p, expected, desired);
}

template <>
__device__ __forceinline__ long long cas<long long>(long long* p, long long expected,
                                                    long long desired) {
  return (long long)atomicCAS(reinterpret_cast<unsigned long long*>(p),
                              (unsigned long long)expected, (unsigned long long)desired);
}

// join the trees of u and v: hook the larger root under the smaller (a CAS
// that only a root can pass), halving the path of each non-root met
template <typename V>
__device__ __forceinline__ void link(V* comp, V u, V v) {
  V p1 = load_l2(comp + u);
  V p2 = load_l2(comp + v);
  while (p1 != p2) {
    const V high = p1 > p2 ? p1 : p2;
    const V low = p1 > p2 ? p2 : p1;
    const V p_high = load_l2(comp + high);
    if (p_high == low) return;  // already hooked there
    if (p_high == high) {       // high is a root: hook it under low
      const V seen = cas(comp + high, high, low);
      if (seen == high) return;
      p1 = seen;  // another link hooked high first: climb from its new parent
      p2 = load_l2(comp + low);
      continue;
    }
    const V g = load_l2(comp + p_high);
    if (g != p_high) comp[high] = g;  // halve: high skips to its grandparent
    p1 = g;
    p2 = load_l2(comp + low);
  }
}

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

// comp[u] = u. O(n)
template <typename V>
__global__ void cc_init(V* __restrict__ comp, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride)
    comp[u] = (V)u;
}

// sampling round r: every vertex with more than r stored entries links to
// its r-th neighbour. A thread per vertex (one edge each). O(n)
template <typename I, typename V>
__global__ void cc_sample(const I* __restrict__ indptr, const V* __restrict__ indices,
                          V* comp, long long n, long long r) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    const long long p = (long long)indptr[u] + r;
    if (p < (long long)indptr[u + 1]) link(comp, (V)u, indices[p]);
  }
}

// pointer jumping: every vertex points at its root (no link runs meanwhile,
// so the roots are fixed). comp[u] is rewritten at each step of u's walk
// and the walks read comp from L2, so a walk that passes u jumps as far as
// u's own walk has come: the sampling rounds leave chains (on a grid every
// vertex hooks under the one above it: 2,048 deep at grid-2048), and a
// walk that only wrote its end would cost O(n * depth). With labels, the
// root is also written there as int64. O(n log depth) in practice
template <typename V>
__global__ void cc_compress(V* comp, long long* __restrict__ labels, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    V c = load_l2(comp + u);
    for (V g = load_l2(comp + c); g != c; g = load_l2(comp + c)) {
      c = g;
      comp[u] = c;
    }
    if (labels) labels[u] = (long long)c;
  }
}

// the root of the largest partial component: the most frequent of comp[x]
// over `samples` (<= SAMPLE_CAP) vertices x drawn by a hash of SAMPLE_SEED + i;
// ties to the smaller root. One block of LARGEST_THREADS threads; each
// sample is counted against all of them in shared memory
// (O(samples^2 / threads)). Writes ctrl[C_SKIP].
template <typename V>
__global__ void __launch_bounds__(LARGEST_THREADS)
cc_largest(const V* __restrict__ comp, long long n, int samples,
           unsigned long long* __restrict__ ctrl) {
  __shared__ V picks[SAMPLE_CAP];
  __shared__ int best_count[LARGEST_THREADS / 32];
  __shared__ V best_root[LARGEST_THREADS / 32];
  for (int i = threadIdx.x; i < samples; i += blockDim.x)
    picks[i] = comp[splitmix64((unsigned long long)(SAMPLE_SEED + i)) % (unsigned long long)n];
  __syncthreads();
  int count = 0;
  V root = picks[0];
  for (int i = threadIdx.x; i < samples; i += blockDim.x) {
    const V x = picks[i];
    int c = 0;
    for (int j = 0; j < samples; ++j) c += picks[j] == x;
    if (c > count || (c == count && x < root)) {
      count = c;
      root = x;
    }
  }
  for (int d = 16; d > 0; d >>= 1) {
    const int oc = __shfl_down_sync(0xffffffffu, count, d);
    const V orr = __shfl_down_sync(0xffffffffu, root, d);
    if (oc > count || (oc == count && orr < root)) {
      count = oc;
      root = orr;
    }
  }
  const int warp = threadIdx.x >> 5;
  if ((threadIdx.x & 31) == 0) {
    best_count[warp] = count;
    best_root[warp] = root;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) {
      if (best_count[w] > count || (best_count[w] == count && best_root[w] < root)) {
        count = best_count[w];
        root = best_root[w];
      }
    }
    ctrl[C_SKIP] = (unsigned long long)(long long)root;
  }
}

// the last round, a thread per vertex: u (unless its root is ctrl[C_SKIP]
// and skip is set) links its entries from indptr[u] + rounds on; one with
// more than warp_degree of them goes to the warp list, more than
// block_degree to the block list. O(n + the low-degree vertices' edges)
template <typename I, typename V>
__global__ void cc_final_thread(const I* __restrict__ indptr, const V* __restrict__ indices,
                                V* comp, V* __restrict__ wl,
                                unsigned long long* __restrict__ ctrl, long long n,
                                long long rounds, int skip, long long warp_degree,
                                long long block_degree) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long largest = skip ? (long long)ctrl[C_SKIP] : -1;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    if ((long long)comp[u] == largest) continue;
    const long long begin = (long long)indptr[u] + rounds;
    const long long end = (long long)indptr[u + 1];
    const long long rest = end - begin;
    if (rest > block_degree) {
      const unsigned long long k = atomicAdd(ctrl + C_BLOCK, 1ull);
      wl[n - 1 - (long long)k] = (V)u;
    } else if (rest > warp_degree) {
      const unsigned long long k = atomicAdd(ctrl + C_WARP, 1ull);
      wl[k] = (V)u;
    } else {
      for (long long p = begin; p < end; ++p) link(comp, (V)u, indices[p]);
    }
  }
}

// the warp list: a warp per vertex, its lanes striding over the remaining
// entries. O(listed edges / 32 per warp)
template <typename I, typename V>
__global__ void cc_final_warp(const I* __restrict__ indptr, const V* __restrict__ indices,
                              V* comp, const V* __restrict__ wl,
                              const unsigned long long* __restrict__ ctrl, long long rounds) {
  const long long listed = (long long)ctrl[C_WARP];
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  const int lane = threadIdx.x & 31;
  for (long long k = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; k < listed;
       k += warps) {
    const V u = wl[k];
    const long long end = (long long)indptr[u + 1];
    for (long long p = (long long)indptr[u] + rounds + lane; p < end; p += 32)
      link(comp, u, indices[p]);
  }
}

// the block list: a block per vertex, taken from a shared counter (hub
// sizes differ by orders of magnitude), its threads striding over the
// remaining entries. O(listed edges / blockDim per block)
template <typename I, typename V>
__global__ void cc_final_block(const I* __restrict__ indptr, const V* __restrict__ indices,
                               V* comp, const V* __restrict__ wl,
                               unsigned long long* __restrict__ ctrl, long long n,
                               long long rounds) {
  __shared__ long long taken;
  const long long listed = (long long)ctrl[C_BLOCK];
  while (true) {
    if (threadIdx.x == 0) taken = (long long)atomicAdd(ctrl + C_BLOCK_NEXT, 1ull);
    __syncthreads();
    const long long k = taken;
    __syncthreads();  // every thread has read `taken` before thread 0 rewrites it
    if (k >= listed) return;
    const V u = wl[n - 1 - k];
    const long long end = (long long)indptr[u + 1];
    for (long long p = (long long)indptr[u] + rounds + threadIdx.x; p < end; p += blockDim.x)
      link(comp, u, indices[p]);
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles every (I, V) pair by name expression
template __global__ void cc_init<int>(int*, long long);
template __global__ void cc_sample<int, int>(const int*, const int*, int*, long long, long long);
template __global__ void cc_sample<long long, long long>(const long long*, const long long*,
                                                         long long*, long long, long long);
template __global__ void cc_compress<int>(int*, long long*, long long);
template __global__ void cc_largest<int>(const int*, long long, int, unsigned long long*);
template __global__ void cc_largest<long long>(const long long*, long long, int,
                                               unsigned long long*);
template __global__ void cc_final_thread<int, int>(const int*, const int*, int*, int*,
                                                   unsigned long long*, long long, long long, int,
                                                   long long, long long);
template __global__ void cc_final_warp<long long, int>(const long long*, const int*, int*,
                                                       const int*, const unsigned long long*,
                                                       long long);
template __global__ void cc_final_block<int, long long>(const int*, const long long*, long long*,
                                                        const long long*, unsigned long long*,
                                                        long long, long long);
