// Asynchronous BFS (label-correcting): no barrier between levels, for
// graphs of thousands of levels whose level-synchronous kernels are bound
// by one grid-wide sync per level (bfs_bvss.cu: ~6.9 us a level on a 2D
// grid, ~8 dependent memory round trips).
//
// One work list of items (v, d): "relax v's out-edges with level d + 1".
// A producer lowers level[u] with atomicMin; only a strict improvement
// appends (u, d + 1). Levels only decrease and every improvement is
// relaxed again, so at the fixpoint (every appended item processed)
// level[v] is v's exact BFS distance (Bellman-Ford with unit weights);
// a vertex reached early by a longer path is simply corrected later.
//
// The list is an array of cap 64-bit slots (EMPTY until written once: no
// ring, no reuse). Counters, each on its own 128-byte line:
//   head  slots handed to consumers (a warp takes one per idle lane with
//         one atomicAdd);
//   tail  slots handed to producers (one atomicAdd per warp and edge round);
//   done  items processed (added after the item's own appends).
// A lane polls its slot until the item appears; the traversal is over when
// done == tail (read in that order: done <= tail always, so equality means
// nothing is pending or in flight). An append past cap, a level past
// 2^24 - 1, or a warp idle past `patience` clock cycles sets `error`: every
// warp stops and the caller falls back to a level-synchronous method.
//
// I is the index type of the CSR (int or long long).

typedef unsigned long long u64;

namespace bfs_async {
constexpr int BLOCK = 256;
constexpr unsigned FULL = 0xffffffffu;
constexpr u64 EMPTY = ~0ull;
constexpr u64 NONE = ~0ull;  // a lane without a slot
constexpr int VBITS = 40;    // an item: d << VBITS | v
constexpr int MAX_LEVEL = (1 << 24) - 1;
// counters: u64 index of each (16 words = 128 bytes apart)
constexpr int HEAD = 0, TAIL = 16, DONE = 32, ERROR = 48;  // 64 words in all

__device__ __forceinline__ unsigned lanes_below(int lane) { return (1u << lane) - 1u; }
}  // namespace bfs_async

template <typename I>
__global__ void __launch_bounds__(bfs_async::BLOCK)
bfs_async_run(const I* __restrict__ indptr, const I* __restrict__ indices, int* level,
              u64* items, long long cap, u64* ctrl, long long patience) {
  using namespace bfs_async;
  const int lane = threadIdx.x & 31;
  u64 slot = NONE;
  long long idle_since = -1;
  int idle = 0;
  while (true) {
    // idle lanes take the next slots, one atomic per warp
    const unsigned need = __ballot_sync(FULL, slot == NONE);
    if (need) {
      u64 h = 0;
      if (lane == 0) h = atomicAdd(ctrl + HEAD, (u64)__popc(need));
      h = __shfl_sync(FULL, h, 0);
      if (slot == NONE) slot = h + __popc(need & lanes_below(lane));
    }
    const u64 it = slot < (u64)cap ? __ldcv(items + slot) : EMPTY;
    const bool ready = it != EMPTY;
    if (!__any_sync(FULL, ready)) {
      int stop = 0;
      if (lane == 0) {
        const u64 d = __ldcv(ctrl + DONE);  // before tail: see the header
        const u64 t = __ldcv(ctrl + TAIL);
        stop = d == t || __ldcv(ctrl + ERROR) != 0;
        if (!stop) {
          const long long now = clock64();
          if (idle_since < 0) idle_since = now;
          else if (now - idle_since > patience) {
            atomicExch(ctrl + ERROR, 1ull);
            stop = 1;
          }
        }
      }
      if (__shfl_sync(FULL, stop, 0)) break;
      __nanosleep(32u << min(idle, 2));  // 32-128 ns: an item is seen soon after it lands
      ++idle;
      continue;
    }
    idle = 0;
    idle_since = -1;
    long long v = 0, e0 = 0, e1 = 0;
    int d = 0;
    if (ready) {
      slot = NONE;
      v = (long long)(it & ((1ull << VBITS) - 1));
      d = (int)(it >> VBITS);
      // a stale item (v improved since: its better item relaxes v) does
      // nothing; the three loads are independent, so the check costs no
      // extra round trip, and stale labels do not spread
      const int now = __ldcv(level + v);
      e0 = (long long)indptr[v];
      e1 = (long long)indptr[v + 1];
      if (now < d) e1 = e0;
    }
    // the warp walks its items' edges in lockstep: one edge per lane a
    // round, one tail atomic per round for the appends
    const unsigned rounds = __reduce_max_sync(FULL, (unsigned)min(e1 - e0, (long long)0x7fffffff));
    const int nd = d + 1;
    for (unsigned j = 0; j < rounds; ++j) {
      long long u = -1;
      if (e0 + (long long)j < e1) {
        const long long w = (long long)indices[e0 + j];
        if (atomicMin(level + w, nd) > nd) u = w;
      }
      const unsigned pm = __ballot_sync(FULL, u >= 0);
      if (!pm) continue;
      u64 t = 0;
      if (lane == 0) t = atomicAdd(ctrl + TAIL, (u64)__popc(pm));
      t = __shfl_sync(FULL, t, 0);
      if (u >= 0) {
        const u64 pos = t + __popc(pm & lanes_below(lane));
        if (pos < (u64)cap && nd <= MAX_LEVEL)
          __stcg(items + pos, ((u64)nd << VBITS) | (u64)u);
        else
          atomicExch(ctrl + ERROR, 1ull);
      }
    }
    const unsigned rm = __ballot_sync(FULL, ready);
    if (lane == 0) atomicAdd(ctrl + DONE, (u64)__popc(rm));
    if (__ldcv(ctrl + ERROR)) break;
  }
}

template __global__ void bfs_async_run<int>(const int*, const int*, int*, u64*, long long, u64*,
                                            long long);
template __global__ void bfs_async_run<long long>(const long long*, const long long*, int*, u64*,
                                                  long long, u64*, long long);
