// Asynchronous BFS (label-correcting): no barrier between levels, for
// graphs of thousands of levels whose level-synchronous kernels are bound
// by one grid-wide sync per level (bfs_fused.cu: ~6.9 us a level on a 2D
// grid, ~8 dependent memory round trips). Up to 64 BFSs at once (msbfs on
// such graphs): an item carries its source's index b, and each source has
// its own row of levels. A single BFS on a mesh keeps only its wavefront's
// few thousand items in flight; side by side, the wavefronts of many
// sources fill the GPU, and no source waits for another's levels.
//
// Levels are unsigned, unreached = 0xFFFFFFFF (int32 -1, the result's
// unreached value: no pass after the traversal). The arguments (args,
// int64): sources at 0..k-1, the rows of their levels at 64..64+k-1 (row
// r: level + r * n), as msbfs.cu's A_SOURCES and A_ROWS.
//
// One work list of items (b, v, d, v's row): "relax v's out-edges with
// level d + 1 for source b". A producer lowers level[u] with atomicMin;
// only a strict improvement appends (u, d + 1). Levels only decrease and every
// improvement is relaxed again, so at the fixpoint (every appended item
// processed) level[v] is v's exact BFS distance (Bellman-Ford with unit
// weights); a vertex reached early by a longer path is corrected later. An
// item whose vertex has improved since it was appended is stale and does
// nothing (the better item relaxes v).
//
// An item is 16 bytes, x = d << 40 | b << 34 | v and y = row start << 24 | row
// length (DEG_MAX: longer, the consumer reads the end): the producer loads
// the row bounds of every edge's head along with its atomicMin (prefetch),
// so the consumer's first dependent load is the row itself; or of the
// children only, after the atomics (flags: F_PREFETCH). With F_CHECK a
// lane first reads the heads' levels and sends an atomicMin only where the
// level is above d + 1 (levels only drop: a head at or below it can not
// improve): a round trip more, most atomics fewer (on a mesh most heads
// are the parent or already reached). A hop costs the item's
// poll, the row, the atomicMins (with the heads' rows), the tail atomic.
//
// The list is an array of cap slots (EMPTY until written once: no ring, no
// reuse). Counters, each on its own 128-byte line:
//   head  slots handed to consumers (a warp takes one per idle lane with
//         one atomicAdd);
//   tail  slots handed to producers (one atomicAdd per warp and round of
//         edges);
//   done  items processed (added after the item's own appends).
// A lane polls its slot until both halves of the item have landed; the
// traversal is over when done == tail (read in that order: done <= tail
// always, so equality means nothing is pending or in flight). An append
// past cap, a level past MAX_LEVEL, or a warp idle past `patience` clock
// cycles sets `error`: every warp stops once idle and the caller falls
// back to a level-synchronous method.
//
// A lane keeps the first child it appends per item and relaxes it itself
// next (up to chain_max in a row) instead of appending it: on a grid most
// items have one or two children, and a chain skips the list's write, poll
// and read on the path that sets the deepest levels (grid-2048, H100:
// 0.32 n items appended instead of 1.06 n, 8.0 ms against 9.8 without
// chains). A chain counts as its first item: done is added when it ends.
// An item is relaxed as soon as it is polled: deferring it (or only its
// slot atomic) by one pass, so that the poll overlaps the relaxations,
// delays improvements and costs corrections (3D grid 161^3, H100: 1.6
// items per vertex, 3.9 ms against 1.6).
//
// I is the index type of the CSR (int or long long).

#include "warp.cuh"

typedef unsigned long long u64;

namespace bfs_async {
// BLOCK, A_SOURCES, A_ROWS, ARGS, S_COUNT, S_TOTAL, S_ECC, STATS (per source
// vertices reached, sum and max of their levels), SRC_AT (v < 2^SRC_AT),
// F_PREFETCH, F_CHECK (bfs_async_run's flags), HEAD, TAIL, DONE, ERROR (the
// counters, u64 words 128 bytes apart: 64 words in all)
#include "bfs_async_constants.cuh"
constexpr unsigned FULL = 0xffffffffu;
constexpr u64 EMPTY = ~0ull;
constexpr u64 NONE = ~0ull;  // a lane without a slot
constexpr int VBITS = 40;    // x = d << VBITS | b << SRC_AT | v; y = start << LBITS | length
constexpr u64 V_MASK = (1ull << SRC_AT) - 1;
constexpr int LBITS = 24;
constexpr u64 DEG_MAX = (1ull << LBITS) - 1;
constexpr int MAX_LEVEL = (1 << 24) - 2;
// a 2D grid's degree; a 3D grid's 6 takes two rounds (8 a round: grid-2048
// 7.5 ms against 6.6, H100)
constexpr int EDGES_PER_ROUND = 4;

__device__ __forceinline__ ulonglong2 item(long long v, int src, int d, long long b, long long e) {
  return make_ulonglong2(((u64)d << VBITS) | ((u64)src << SRC_AT) | (u64)v,
                         ((u64)b << LBITS) | (u64)min((u64)(e - b), DEG_MAX));
}

__device__ __forceinline__ unsigned* row_of(unsigned* level, const long long* args, int src,
                                            long long n) {
  return level + __ldg(args + A_ROWS + src) * n;
}
}  // namespace bfs_async

// every level of the k sources' rows unreached (grid-stride over k * n)
__global__ void bfs_async_reset(unsigned* level, const long long* __restrict__ args, int k,
                                long long n) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (int b = 0; b < k; ++b) {
    unsigned* row = bfs_async::row_of(level, args, b, n);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
      row[i] = 0xFFFFFFFFu;
  }
}

// the sources' items and levels, the counters and the statistics (one
// block of 64 threads, after bfs_async_reset)
template <typename I>
__global__ void bfs_async_start(const I* __restrict__ indptr, unsigned* level,
                                const long long* __restrict__ args, int k, long long n,
                                ulonglong2* items, u64* ctrl, long long* stats) {
  using namespace bfs_async;
  const int b = threadIdx.x;
  if (b == 0) {
    for (int i = 0; i < 64; ++i) ctrl[i] = 0ull;
    ctrl[TAIL] = (u64)k;
  }
  for (int i = b; i < STATS; i += blockDim.x) stats[i] = 0;
  if (b < k) {
    const long long s = args[A_SOURCES + b];
    row_of(level, args, b, n)[s] = 0u;
    items[b] = item(s, b, 0, (long long)indptr[s], (long long)indptr[s + 1]);
  }
}

// per source (blockIdx.y), the vertices its row reaches, the sum and the
// max of their levels, into stats (zeroed by bfs_async_start)
__global__ void bfs_async_stats(const unsigned* level, const long long* __restrict__ args,
                                long long n, long long* stats) {
  using namespace bfs_async;
  const int b = blockIdx.y;
  const unsigned* row = level + __ldg(args + A_ROWS + b) * n;
  long long cnt = 0, tot = 0;
  unsigned mx = 0;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const unsigned l = row[i];
    if (l != 0xFFFFFFFFu) {
      ++cnt;
      tot += l;
      mx = max(mx, l);
    }
  }
  for (int o = 16; o; o >>= 1) {
    cnt += __shfl_xor_sync(FULL, cnt, o);
    tot += __shfl_xor_sync(FULL, tot, o);
    mx = max(mx, __shfl_xor_sync(FULL, mx, o));
  }
  if ((threadIdx.x & 31) == 0 && cnt) {
    atomicAdd((u64*)stats + S_COUNT + b, (u64)cnt);
    atomicAdd((u64*)stats + S_TOTAL + b, (u64)tot);
    atomicMax((u64*)stats + S_ECC + b, (u64)mx);
  }
}

template <typename I>
__global__ void __launch_bounds__(bfs_async::BLOCK)
bfs_async_run(const I* __restrict__ indptr, const I* __restrict__ indices, unsigned* level,
              const long long* __restrict__ args, long long n, ulonglong2* items, long long cap,
              u64* ctrl, long long patience, int chain_max, int flags) {
  using namespace bfs_async;
  const int lane = threadIdx.x & 31;
  const bool prefetch = flags & F_PREFETCH, check = flags & F_CHECK;
  u64 slot = NONE;
  long long idle_since = -1;
  int idle = 0;
  ulonglong2 kept = make_ulonglong2(EMPTY, EMPTY);  // a child this lane relaxes next
  int chain = 0;                                     // children kept in a row
  while (true) {
    // idle lanes take the next slots, one atomic per warp
    const unsigned need = __ballot_sync(FULL, slot == NONE && kept.x == EMPTY);
    if (need) {
      u64 h = 0;
      if (lane == 0) h = atomicAdd(ctrl + HEAD, (u64)__popc(need));
      h = __shfl_sync(FULL, h, 0);
      if ((need >> lane) & 1u) slot = h + __popc(need & ((1u << lane) - 1u));
    }
    const ulonglong2 it = kept.x != EMPTY ? kept
                          : slot < (u64)cap ? __ldcv(items + slot) : make_ulonglong2(EMPTY, EMPTY);
    const bool ready = it.x != EMPTY && it.y != EMPTY;  // both halves landed
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
    int d = 0, src = 0;
    unsigned now = 0;
    unsigned* lv = level;  // the item's source's row
    if (ready) {
      if (kept.x == EMPTY) slot = NONE;
      kept = make_ulonglong2(EMPTY, EMPTY);
      v = (long long)(it.x & V_MASK);
      src = (int)((it.x >> SRC_AT) & 63u);
      d = (int)(it.x >> VBITS);
      lv = row_of(level, args, src, n);
      e0 = (long long)(it.y >> LBITS);
      const u64 len = it.y & DEG_MAX;
      e1 = len == DEG_MAX ? (long long)indptr[v + 1] : e0 + (long long)len;
      now = __ldcv(lv + v);  // in flight with the row's first loads
    }
    // the warp walks its items' rows in rounds of EDGES_PER_ROUND per lane:
    // a round's index loads, then its atomicMins (with the heads' row
    // bounds), are in flight together, and one tail atomic appends the
    // whole warp's improvements
    const unsigned deg = (unsigned)min(e1 - e0, (long long)0x7fffffff);
    const unsigned rounds = (__reduce_max_sync(FULL, deg) + EDGES_PER_ROUND - 1) / EDGES_PER_ROUND;
    const int nd = d + 1;
    for (unsigned r = 0; r < rounds; ++r) {
      const long long base = e0 + (long long)r * EDGES_PER_ROUND;
      long long w[EDGES_PER_ROUND];
#pragma unroll
      for (int k = 0; k < EDGES_PER_ROUND; ++k)
        w[k] = base + k < e1 ? (long long)indices[base + k] : -1;
      const bool stale = now < (unsigned)d;  // v has a better item
      unsigned kids = 0;
      // every atomicMin and row load issued before any result is used (a
      // use inside the same if would hold the next edge's atomic until
      // this one returns)
      long long b[EDGES_PER_ROUND], e[EDGES_PER_ROUND];
      unsigned old[EDGES_PER_ROUND];
      bool send[EDGES_PER_ROUND];
#pragma unroll
      for (int k = 0; k < EDGES_PER_ROUND; ++k) send[k] = w[k] >= 0 && !stale;
      if (check) {
        unsigned seen[EDGES_PER_ROUND];
#pragma unroll
        for (int k = 0; k < EDGES_PER_ROUND; ++k)
          seen[k] = send[k] ? __ldcg(lv + w[k]) : 0u;  // L2: other SMs' atomics land there
#pragma unroll
        for (int k = 0; k < EDGES_PER_ROUND; ++k) send[k] = send[k] && seen[k] > (unsigned)nd;
      }
#pragma unroll
      for (int k = 0; k < EDGES_PER_ROUND; ++k) {
        b[k] = e[k] = 0;
        old[k] = (unsigned)nd;
        if (send[k]) {
          if (prefetch) {
            b[k] = (long long)indptr[w[k]];
            e[k] = (long long)indptr[w[k] + 1];
          }
          old[k] = atomicMin(lv + w[k], (unsigned)nd);
        }
      }
#pragma unroll
      for (int k = 0; k < EDGES_PER_ROUND; ++k)
        if (old[k] > (unsigned)nd) kids |= 1u << k;
      // without prefetch, the children's rows only, once the atomics say
      // which they are (a round trip more on the path, 2 loads per edge
      // fewer: with many sources side by side the list is bound by
      // throughput, not by one wavefront's latency)
#pragma unroll
      for (int k = 0; k < EDGES_PER_ROUND; ++k) {
        if (!prefetch && ((kids >> k) & 1u)) {
          b[k] = (long long)indptr[w[k]];
          e[k] = (long long)indptr[w[k] + 1];
        }
      }
      if (kids && kept.x == EMPTY && chain < chain_max && nd <= MAX_LEVEL) {
        // keep the first child: relaxed next by this lane, not through the list
        const int k = __ffs(kids) - 1;
        kids &= kids - 1u;
#pragma unroll
        for (int j = 0; j < EDGES_PER_ROUND; ++j)
          if (j == k) kept = item(w[j], src, nd, b[j], e[j]);
      }
      const unsigned c = __popc(kids);
      const unsigned incl = bg::warp_inclusive_scan(c);  // of the children
      const unsigned total = __shfl_sync(FULL, incl, 31);
      if (!total) continue;
      u64 t = 0;
      if (lane == 0) t = atomicAdd(ctrl + TAIL, (u64)total);
      u64 pos = __shfl_sync(FULL, t, 0) + (incl - c);
#pragma unroll
      for (int k = 0; k < EDGES_PER_ROUND; ++k) {
        if (!((kids >> k) & 1u)) continue;
        if (pos < (u64)cap && nd <= MAX_LEVEL)
          __stcg(items + pos, item(w[k], src, nd, b[k], e[k]));
        else
          atomicExch(ctrl + ERROR, 1ull);
        ++pos;
      }
    }
    // a chain of kept children counts as its list item: done once it ends
    chain = kept.x != EMPTY ? chain + 1 : 0;
    const unsigned rm = __ballot_sync(FULL, ready && kept.x == EMPTY);
    if (lane == 0 && rm) atomicAdd(ctrl + DONE, (u64)__popc(rm));
  }
}

template __global__ void bfs_async_start<int>(const int*, unsigned*, const long long*, int,
                                              long long, ulonglong2*, u64*, long long*);
template __global__ void bfs_async_start<long long>(const long long*, unsigned*, const long long*,
                                                    int, long long, ulonglong2*, u64*, long long*);
template __global__ void bfs_async_run<int>(const int*, const int*, unsigned*, const long long*,
                                            long long, ulonglong2*, long long, u64*, long long,
                                            int, int);
template __global__ void bfs_async_run<long long>(const long long*, const long long*, unsigned*,
                                                  const long long*, long long, ulonglong2*,
                                                  long long, u64*, long long, int, int);
