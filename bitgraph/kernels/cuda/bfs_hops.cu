// BFS levels in groups of k per grid barrier, for long mesh-like graphs
// (rgg, grids with diagonals: thousands of levels of a few thousand
// vertices) where a level-synchronous kernel pays a grid barrier and a
// global queue round trip a level (bfs_fused.cu's direction: ~6.9 us a
// level on rgg-22 d16, H100) and the work-list kernels relabel each vertex
// many times (bfs_async.cu, bfs_window.cu).
//
// A phase starts from the vertices of level b (the global queue in, exact)
// and ends with every level up to b + k exact. Each block takes its share
// of the queue and walks k hops from it on its own, a block barrier between
// hops: at hop h a vertex's out-neighbours get level b + h by atomicMin,
// and a neighbour whose level that lowered is the block's to walk at hop
// h + 1 (a shared-memory list; at hop k the global queue out, the next
// phase's start). Why the levels up to b + k are exact: a vertex x of
// level b + j has an in-neighbour y of level b + j - 1; the atomicMin that
// gave y that level returned more (one did, by induction from the queue's
// exact level b), so its block walked y at hop j and gave x at most b + j;
// and a level is always a path's length, never less than the distance. A
// vertex one block reaches late (a larger level first) and another lowers
// is walked again by the other: work, not error. The queue in may hold a
// vertex lowered after it was queued; it was walked when lowered, and is
// skipped (its level is not b). A block list past `cap` entries sets
// `error`: the caller runs a level-synchronous method.
//
// Levels are unsigned, unreached = 0xFFFFFFFF (int32 -1: the result as it
// is); the launcher fills them and the counters before the launch.
// queue[2n] (int: the phases alternate halves), ctrl[4] (unsigned: the
// three rotating queue counts, then error), bar[2] (grid.cuh). Cooperative
// launch, BLOCK threads, every block resident. I: the CSR's index type.

#include "grid.cuh"

namespace bfs_hops {
// BLOCK (threads a block), LIST (a block's hop list capacity, entries)
#include "bfs_hops_constants.cuh"
}  // namespace bfs_hops

// the out-neighbours of u get level nl; those it lowered go to out (a
// shared-memory list of cap, its count *cnt; overflow sets *error) or,
// with `global`, to the queue out (its count *gcnt); a warp a vertex, its
// lanes striding the row
template <typename I>
__device__ __forceinline__ void walk(const I* __restrict__ indptr, const I* __restrict__ indices,
                                     unsigned* level, long long u, unsigned nl, bool global,
                                     int* out, unsigned* cnt, unsigned cap, int* gout,
                                     unsigned* gcnt, unsigned* error) {
  const int lane = threadIdx.x & 31;
  const long long a = (long long)indptr[u], e = (long long)indptr[u + 1];
  for (long long p = a; p < e; p += 32) {  // warp-uniform trip count
    const long long q = p + lane;
    bool mine = false;
    long long w = 0;
    if (q < e) {
      w = (long long)indices[q];
      mine = atomicMin(level + w, nl) > nl;
    }
    const unsigned got = __ballot_sync(0xffffffffu, mine);
    if (!got) continue;
    unsigned base = 0;
    if (lane == 0) base = atomicAdd(global ? gcnt : cnt, (unsigned)__popc(got));
    base = __shfl_sync(0xffffffffu, base, 0);
    if (mine) {
      const unsigned at = base + __popc(got & ((1u << lane) - 1u));
      if (global) gout[at] = (int)w;
      else if (at < cap) out[at] = (int)w;
      else atomicExch(error, 1u);
    }
  }
}

template <typename I>
__global__ void __launch_bounds__(bfs_hops::BLOCK, 1)
bfs_hops_run(const I* __restrict__ indptr, const I* __restrict__ indices, unsigned* level,
             long long n, int* queue, unsigned* ctrl, unsigned* bar, int k, unsigned cap) {
  using namespace bfs_hops;
  __shared__ int lists[2][LIST];
  // the hops' list counts, rotating: hop h appends to counts[h % 3] and reads
  // counts[(h - 1) % 3]; counts[(h + 1) % 3] is cleared at hop h's start,
  // when no warp reads or writes it
  __shared__ unsigned counts[3];
  unsigned gen = 0;  // barriers passed (thread 0 of each block)
  if (threadIdx.x == 0) gen = bg::ld_acquire(bar + 1);
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  cap = min(cap, (unsigned)LIST);
  unsigned b = 0;  // the phase's base level
  for (int p = 0;; ++p, b += (unsigned)k) {
    const unsigned total = *(volatile unsigned*)(ctrl + p % 3);  // written before the barrier
    if (total == 0 || *(volatile unsigned*)(ctrl + 3)) break;
    if (blockIdx.x == 0 && threadIdx.x == 0) ctrl[(p + 2) % 3] = 0u;  // phase p + 1's out
    const int* in = queue + (long long)(p & 1) * n;
    int* out = queue + (long long)((p + 1) & 1) * n;
    unsigned* gcnt = ctrl + (p + 1) % 3;
    // hop 1: this block's share of the queue in
    const unsigned lo = (unsigned)((unsigned long long)total * blockIdx.x / gridDim.x);
    const unsigned hi = (unsigned)((unsigned long long)total * (blockIdx.x + 1) / gridDim.x);
    if (threadIdx.x == 0) counts[1] = counts[2] = 0u;
    __syncthreads();
    for (unsigned i = lo + warp; i < hi; i += warps) {
      const long long u = in[i];
      if (__ldcg(level + u) != b) continue;  // lowered after it was queued: walked then
      walk(indptr, indices, level, u, b + 1, k == 1, lists[1], counts + 1, cap, out, gcnt,
           ctrl + 3);
    }
    // hops 2 .. k: the block's own list (hop h reads lists[(h - 1) & 1] and
    // writes lists[h & 1], which hop h - 1 read: the barrier at its start)
    for (int h = 2; h <= k; ++h) {
      __syncthreads();
      if (threadIdx.x == 0) counts[(h + 1) % 3] = 0u;
      const unsigned m = min(counts[(h - 1) % 3], cap);
      const int* from = lists[(h - 1) & 1];
      for (unsigned i = warp; i < m; i += warps)
        walk(indptr, indices, level, (long long)from[i], b + (unsigned)h, h == k,
             lists[h & 1], counts + h % 3, cap, out, gcnt, ctrl + 3);
    }
    bg::grid_barrier(bar, gen);
  }
}

template __global__ void bfs_hops_run<int>(const int*, const int*, unsigned*, long long, int*,
                                           unsigned*, unsigned*, int, unsigned);
template __global__ void bfs_hops_run<long long>(const long long*, const long long*, unsigned*,
                                                 long long, int*, unsigned*, unsigned*, int,
                                                 unsigned);
