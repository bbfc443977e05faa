// Connected components by Afforest (Sutton, Ben-Nun, Barak, IPDPS 2018) on
// the GPU: the CUDA twin of kernels/cpu/components.py's ``afforest``.
//
// comp[n] is a forest in which every vertex points at a smaller (or equal)
// id: link(u, v) only ever lowers a pointer (an atomicMin, or a halving
// store), so a root is never hooked under a larger id and the root of each
// final tree is its component's smallest id. A link ignores the edge's
// direction: any CSR gives the weakly connected components.
//
// The launcher (components.py) runs, on one stream, with no host sync:
//   cc_init            comp[u] = the smallest of u and its first `first`
//                      entries (no atomics: each thread writes its own
//                      vertex; on a grid this already joins every vertex
//                      to the one above it); zeroes ctrl. `first` is
//                      `rounds` for local ids (a mesh), else 0: on random
//                      ids those hooks pile onto a few roots and the
//                      sampling links then contend there (kron-21: 0.45 ms
//                      with them, 0.23 without)
//   cc_compress        every vertex -> its root (local ids only)
//   cc_sample          every vertex links its first `rounds` entries
//   cc_compress        every vertex -> its root (random ids only)
//   cc_largest         the most frequent root of SAMPLE_CAP at most
//                      sampled vertices -> ctrl[C_SKIP] (symmetric only)
//   cc_final_thread    every vertex finds its root (no compress pass before:
//                      the walk is the same, done once) and, outside that
//                      root's tree, links its remaining edges; a vertex with
//                      more than warp_degree of them is handed to a list
//   cc_final_lists     those lists: a warp, or a block, per vertex
//   cc_compress        every vertex -> its root, written as int64 labels
//                      (and the words of a full vector's bitmap)
// Edge balance as ECL-CC (Jaiganesh, Burtscher, HPDC 2018): a thread per
// low-degree vertex, a warp per medium, a block per high degree, through
// two lists filled by the thread pass. Chosen over a one-pass edge-parallel
// split because Afforest's last round skips the largest component, which on
// skewed graphs holds every hub: the lists stay short, and the thread pass
// needs no per-edge source lookup (a binary search or a COO row array).
//
// The vertex passes take a thread per vertex (the launcher's grid covers n):
// blocks start roughly in id order, and every pointer goes to a smaller id,
// so a compress walk mostly meets vertices whose walks have already ended.
// A grid-stride loop over a smaller grid breaks that order: its threads'
// later vertices walk chains whose blocks have not started (on grid-2048,
// hundreds of dependent loads each).
//
// Loads of comp inside link and the walks go to L2 (__ldcg): another SM's
// write must be seen within the kernel (L1 is not coherent). A plain store
// of an ancestor (link's path halving, cc_final_thread's vertex -> the root
// it found) may race an atomicMin on the same word:
// either value is a smaller id joined (or being joined) to the same tree,
// and a non-root never becomes a root again, so no hook is lost.
//
// Templates: I the indptr type, V the vertex type of indices and comp (int
// or long long). Arrays: indptr[n+1], indices[nnz], comp[n], wl[n] (the
// warp list grows from wl[0], the block list from wl[n-1] down), ctrl[CTRL]
// (unsigned long long counters, zeroed by cc_init), labels[n] (int64),
// present[ceil(n / 32)] (uint32 bitmap words).
#include "components_constants.cuh"

namespace {

template <typename V>
__device__ __forceinline__ V load_l2(const V* p) {
  return __ldcg(p);
}

template <typename V>
__device__ __forceinline__ V atomic_min(V* p, V v);

template <>
__device__ __forceinline__ int atomic_min<int>(int* p, int v) {
  return atomicMin(p, v);
}

template <>
__device__ __forceinline__ long long atomic_min<long long>(long long* p, long long v) {
  return atomicMin(p, v);
}

// join the trees of u and v. With high the larger of the two current
// pointers and low the smaller: if comp[high] is already below low, join
// that parent with low instead (halving high's path on the way); else lower
// comp[high] to low with one atomicMin. That min is the hook when high is a
// root; when it displaced a parent p (low < p < high) the loop goes on to
// join p with low, and when someone lowered comp[high] below low first it
// joins that value with low. The larger of the pair drops every step, so
// the loop ends. An atomicMin never fails, so the many leaves of a hub that
// race to hook its root cost one atomic each (a compare-and-swap loop had
// every loser re-read and retry on the winner: O(k log k) atomics on one
// address for k racers).
template <typename V>
__device__ __forceinline__ void link(V* comp, V u, V v) {
  V p1 = load_l2(comp + u);
  V p2 = load_l2(comp + v);
  while (p1 != p2) {
    const V high = p1 > p2 ? p1 : p2;
    const V low = p1 > p2 ? p2 : p1;
    const V p_high = load_l2(comp + high);
    if (p_high == low) return;  // already hooked there
    if (p_high < low) {         // high already points below low: join its parent with low
      const V g = load_l2(comp + p_high);
      if (g != p_high) comp[high] = g;  // halve: high skips to its grandparent
      p1 = g;
      p2 = low;
      continue;
    }
    const V seen = atomic_min(comp + high, low);  // low < p_high <= high
    if (seen == high || seen == low) return;      // hooked (high was a root), or already there
    p1 = seen;  // displaced (seen > low) or beaten (seen < low): join seen with low
    p2 = low;
  }
}

// the root of x's tree: a read-only walk (from L2: links may run meanwhile)
template <typename V>
__device__ __forceinline__ V find(const V* comp, V x) {
  for (V g = load_l2(comp + x); g != x; g = load_l2(comp + x)) x = g;
  return x;
}

__device__ __forceinline__ unsigned long long splitmix64(unsigned long long z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

// comp[u] = the smallest of u and its first `rounds` stored entries (a
// forest: every pointer goes to a smaller id of u's component; rounds 0:
// comp[u] = u); block 0 zeroes ctrl. O(n * rounds)
template <typename I, typename V>
__global__ void cc_init(const I* __restrict__ indptr, const V* __restrict__ indices,
                        V* __restrict__ comp, unsigned long long* __restrict__ ctrl, long long n,
                        long long rounds) {
  if (blockIdx.x == 0 && threadIdx.x < CTRL) ctrl[threadIdx.x] = 0ull;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    const long long begin = (long long)indptr[u];
    const long long end = (long long)indptr[u + 1];
    const long long stop = end - begin > rounds ? begin + rounds : end;
    V m = (V)u;
    for (long long p = begin; p < stop; ++p) {
      const V w = indices[p];
      m = w < m ? w : m;
    }
    comp[u] = m;
  }
}

// the sampling rounds in one pass: every vertex links its first `rounds`
// entries (the one cc_init hooked it to finds both ends in one tree). O(n *
// rounds) links
template <typename I, typename V>
__global__ void cc_sample(const I* __restrict__ indptr, const V* __restrict__ indices,
                          V* comp, long long n, long long rounds) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    const long long begin = (long long)indptr[u];
    const long long end = (long long)indptr[u + 1];
    const long long stop = end - begin > rounds ? begin + rounds : end;
    for (long long p = begin; p < stop; ++p) link(comp, (V)u, indices[p]);
  }
}

// pointer jumping: every vertex points at its root (no link runs meanwhile,
// so the roots are fixed). comp[u] is rewritten at each step of u's walk
// and the walks read comp from L2, so a walk that passes u jumps as far as
// u's own walk has come: cc_init leaves chains (on a grid every vertex
// under the one above it: 2,048 deep at grid-2048), and a walk that only
// wrote its end would cost O(n * depth). With labels, the root is also
// written there as int64, and with present the thread of every 32nd vertex
// writes its bitmap word (the bits of the vertices below n). O(n log depth)
// in practice
template <typename V>
__global__ void cc_compress(V* comp, long long* __restrict__ labels,
                            unsigned int* __restrict__ present, long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    V c = load_l2(comp + u);
    for (V g = load_l2(comp + c); g != c; g = load_l2(comp + c)) {
      c = g;
      comp[u] = c;
    }
    if (labels) labels[u] = (long long)c;
    if (present && (u & 31) == 0)
      present[u >> 5] = n - u >= 32 ? 0xffffffffu : (1u << (unsigned)(n - u)) - 1u;
  }
}

// the root of the largest partial component: the most frequent root of x
// over `samples` (<= SAMPLE_CAP) vertices x drawn by a hash of SAMPLE_SEED + i;
// ties to the smaller root (each sample's root found by a read-only walk:
// no link runs meanwhile). One block of LARGEST_THREADS threads; each
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
    picks[i] = find(comp, (V)(splitmix64((unsigned long long)(SAMPLE_SEED + i)) %
                              (unsigned long long)n));
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

// the last round, a thread per vertex: with skip, u walks to its root and
// skips when that is ctrl[C_SKIP] (else it points at the root it found:
// links run meanwhile, so that may be an ancestor that has since been
// hooked lower, which only costs u the skip: a vertex that reaches
// C_SKIP's root is in its tree, so the skipped set stays inside one
// component); every other u links its entries from indptr[u] + rounds on;
// one with more than warp_degree of them goes to the warp list, more than
// block_degree to the block list. O(n * depth + the low-degree vertices'
// edges)
template <typename I, typename V>
__global__ void cc_final_thread(const I* __restrict__ indptr, const V* __restrict__ indices,
                                V* comp, V* __restrict__ wl,
                                unsigned long long* __restrict__ ctrl, long long n,
                                long long rounds, int skip, long long warp_degree,
                                long long block_degree) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long largest = skip ? (long long)ctrl[C_SKIP] : -1;
  for (long long u = (long long)blockIdx.x * blockDim.x + threadIdx.x; u < n; u += stride) {
    if (skip) {
      const V c0 = load_l2(comp + u);
      const V c = find(comp, c0);
      if ((long long)c == largest) continue;
      if (c != c0) comp[u] = c;
    }
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

// the two lists in one launch: first the warp list, a warp per vertex
// (warps in grid-stride order, lanes striding over its remaining entries),
// then the block list, a block per vertex taken from a shared counter (hub
// sizes differ by orders of magnitude; a block that finishes its warp
// entries early starts on the hubs), its threads striding over the entries.
// blockDim a multiple of 32. O(listed edges / 32 per warp + listed edges /
// blockDim per block)
template <typename I, typename V>
__global__ void cc_final_lists(const I* __restrict__ indptr, const V* __restrict__ indices,
                               V* comp, const V* __restrict__ wl,
                               unsigned long long* __restrict__ ctrl, long long n,
                               long long rounds) {
  __shared__ long long taken;
  const long long warp_listed = (long long)ctrl[C_WARP];
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  const int lane = threadIdx.x & 31;
  for (long long k = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; k < warp_listed;
       k += warps) {
    const V u = wl[k];
    const long long end = (long long)indptr[u + 1];
    for (long long p = (long long)indptr[u] + rounds + lane; p < end; p += 32)
      link(comp, u, indices[p]);
  }
  const long long block_listed = (long long)ctrl[C_BLOCK];
  if (block_listed == 0) return;  // the same for every thread: no counter traffic
  while (true) {
    if (threadIdx.x == 0) taken = (long long)atomicAdd(ctrl + C_BLOCK_NEXT, 1ull);
    __syncthreads();
    const long long k = taken;
    __syncthreads();  // every thread has read `taken` before thread 0 rewrites it
    if (k >= block_listed) return;
    const V u = wl[n - 1 - k];
    const long long end = (long long)indptr[u + 1];
    for (long long p = (long long)indptr[u] + rounds + threadIdx.x; p < end; p += blockDim.x)
      link(comp, u, indices[p]);
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles every (I, V) pair by name expression
template __global__ void cc_init<int, int>(const int*, const int*, int*, unsigned long long*,
                                           long long, long long);
template __global__ void cc_init<long long, long long>(const long long*, const long long*,
                                                       long long*, unsigned long long*,
                                                       long long, long long);
template __global__ void cc_sample<int, int>(const int*, const int*, int*, long long, long long);
template __global__ void cc_sample<long long, long long>(const long long*, const long long*,
                                                         long long*, long long, long long);
template __global__ void cc_compress<int>(int*, long long*, unsigned int*, long long);
template __global__ void cc_compress<long long>(long long*, long long*, unsigned int*,
                                                long long);
template __global__ void cc_largest<int>(const int*, long long, int, unsigned long long*);
template __global__ void cc_largest<long long>(const long long*, long long, int,
                                               unsigned long long*);
template __global__ void cc_final_thread<int, int>(const int*, const int*, int*, int*,
                                                   unsigned long long*, long long, long long, int,
                                                   long long, long long);
template __global__ void cc_final_lists<long long, int>(const long long*, const int*, int*,
                                                        const int*, unsigned long long*,
                                                        long long, long long);
template __global__ void cc_final_lists<int, long long>(const int*, const long long*, long long*,
                                                        const long long*, unsigned long long*,
                                                        long long, long long);
