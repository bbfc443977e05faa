// BFS levels with a grid barrier every k hops, for long mesh-like graphs
// (rgg, grids: thousands of levels of a few thousand vertices) where a
// level-synchronous kernel pays a grid barrier and a global queue round trip
// a level (bfs_fused.cu's direction: ~6.9 us a level on rgg-22 d16, H100)
// and the work-list kernels relabel each vertex many times (bfs_async.cu,
// bfs_window.cu).
//
// A label-correcting BFS in phases. A phase starts from the queue in, items
// (v, l): "walk v's out-edges with level l + 1". Each block takes its share
// of the queue and walks k hops from it on its own, a block barrier between
// hops: a neighbour whose level the walk's atomicMin lowered is appended,
// with its new level, to the block's shared-memory list for the next hop
// (after hop k, or with the list full: to the queue out, the next phase's
// start). Every lowering is walked once with the level it set, so at the
// fixpoint (the queue empty) no edge (u, v) has level(v) > level(u) + 1, and
// a level is always a path's length: the levels are the distances. Blocks
// start each phase together and take a hop in about the same time, so a
// vertex is mostly reached first by a shortest path (rgg, grids); a vertex
// reached late by a longer one is lowered and walked again (work, not
// error). An item whose vertex was lowered after it was queued is skipped
// (its lowering walked it). The queue out past `qcap` items sets `error`:
// the caller runs a level-synchronous method.
//
// Levels are unsigned, unreached = 0xFFFFFFFF (int32 -1: the result as it
// is); the launcher fills them and the counters before the launch.
// queue[2 qcap] (int2 items: the phases alternate halves), ctrl[4]
// (unsigned: the three rotating queue counts, then error), bar[2]
// (grid.cuh). Cooperative launch, BLOCK threads, every block resident. I:
// the CSR's index type.

#include "grid.cuh"

namespace bfs_hops {
// BLOCK (threads a block), LIST (a block's hop list capacity, entries)
#include "bfs_hops_constants.cuh"
}  // namespace bfs_hops

// the out-neighbours of u get level nl (atomicMin); those it lowered are
// appended with nl to out (a shared-memory list of cap entries, count
// *cnt) unless `global` or out is full: then to the queue out (qcap
// entries, count *gcnt; past it *error is set); a warp a vertex, its lanes
// striding the row
template <typename I>
__device__ __forceinline__ void walk(const I* __restrict__ indptr, const I* __restrict__ indices,
                                     unsigned* level, long long u, unsigned nl, bool global,
                                     int2* out, unsigned* cnt, unsigned cap, int2* gout,
                                     unsigned* gcnt, unsigned qcap, unsigned* error) {
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
    unsigned got = __ballot_sync(0xffffffffu, mine);
    if (!got) continue;
    unsigned at = 0;
    bool far = global;  // to the queue out
    if (!global) {
      if (lane == 0) at = atomicAdd(cnt, (unsigned)__popc(got));
      at = __shfl_sync(0xffffffffu, at, 0) + __popc(got & ((1u << lane) - 1u));
      far = at >= cap;
      if (mine && !far) out[at] = make_int2((int)w, (int)nl);
      got = __ballot_sync(0xffffffffu, mine && far);  // a full list: the rest go out
    }
    if (!got) continue;
    if (lane == 0) at = atomicAdd(gcnt, (unsigned)__popc(got));
    at = __shfl_sync(0xffffffffu, at, 0) + __popc(got & ((1u << lane) - 1u));
    if (mine && far) {
      if (at < qcap) gout[at] = make_int2((int)w, (int)nl);
      else atomicExch(error, 1u);
    }
  }
}

template <typename I>
__global__ void __launch_bounds__(bfs_hops::BLOCK, 1)
bfs_hops_run(const I* __restrict__ indptr, const I* __restrict__ indices, unsigned* level,
             long long qcap, int2* queue, unsigned* ctrl, unsigned* bar, int k, unsigned cap) {
  using namespace bfs_hops;
  __shared__ int2 lists[2][LIST];
  // the hops' list counts, rotating: hop h appends to counts[h % 3] and reads
  // counts[(h - 1) % 3]; counts[(h + 1) % 3] is cleared at hop h's start,
  // when no warp reads or writes it
  __shared__ unsigned counts[3];
  unsigned gen = 0;  // barriers passed (thread 0 of each block)
  if (threadIdx.x == 0) gen = bg::ld_acquire(bar + 1);
  const int warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  cap = min(cap, (unsigned)LIST);
  for (int p = 0;; ++p) {
    const unsigned total = *(volatile unsigned*)(ctrl + p % 3);  // written before the barrier
    if (total == 0 || *(volatile unsigned*)(ctrl + 3)) break;
    if (blockIdx.x == 0 && threadIdx.x == 0) ctrl[(p + 2) % 3] = 0u;  // phase p + 1's out
    const int2* in = queue + (long long)(p & 1) * qcap;
    int2* out = queue + (long long)((p + 1) & 1) * qcap;
    unsigned* gcnt = ctrl + (p + 1) % 3;
    // hop 1: this block's share of the queue in
    const unsigned lo = (unsigned)((unsigned long long)total * blockIdx.x / gridDim.x);
    const unsigned hi = (unsigned)((unsigned long long)total * (blockIdx.x + 1) / gridDim.x);
    if (threadIdx.x == 0) counts[1] = counts[2] = 0u;
    __syncthreads();
    for (unsigned i = lo + warp; i < hi; i += warps) {
      const int2 it = in[i];
      // lowered after it was queued: walked with the lower level then
      if (__ldcg(level + it.x) < (unsigned)it.y) continue;
      walk(indptr, indices, level, it.x, (unsigned)it.y + 1u, k == 1, lists[1], counts + 1, cap,
           out, gcnt, (unsigned)qcap, ctrl + 3);
    }
    // hops 2 .. k: the block's own list (hop h reads lists[(h - 1) & 1] and
    // writes lists[h & 1], which hop h - 1 read: the barrier at its start)
    for (int h = 2; h <= k; ++h) {
      __syncthreads();
      if (threadIdx.x == 0) counts[(h + 1) % 3] = 0u;
      const unsigned m = min(counts[(h - 1) % 3], cap);
      const int2* from = lists[(h - 1) & 1];
      for (unsigned i = warp; i < m; i += warps) {
        const int2 it = from[i];
        walk(indptr, indices, level, it.x, (unsigned)it.y + 1u, h == k, lists[h & 1],
             counts + h % 3, cap, out, gcnt, (unsigned)qcap, ctrl + 3);
      }
    }
    bg::grid_barrier(bar, gen);
  }
}

template __global__ void bfs_hops_run<int>(const int*, const int*, unsigned*, long long, int2*,
                                           unsigned*, unsigned*, int, unsigned);
template __global__ void bfs_hops_run<long long>(const long long*, const long long*, unsigned*,
                                                 long long, int2*, unsigned*, unsigned*, int,
                                                 unsigned);
