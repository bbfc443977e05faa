// Windowed asynchronous BFS: bfs_async.cu's label-correcting work list, but
// an item is relaxed only while its level lies within `window` levels of
// the least level that still has pending items (the floor). On a mesh of
// mean degree 8-32 (rgg) the plain work list runs ahead along paths that
// are not shortest and appends 4-9 items a vertex, each relabelled vertex
// relaxing its whole row again; within a window a vertex is rarely
// relabelled, and no grid-wide barrier is paid per level (the
// level-synchronous kernels: ~6.6 us a level, rgg 2^22 has 1,393 levels).
// window 0: levels in order (no relabel at all); large: bfs_async's order.
//
// One source. Levels are unsigned, unreached = 0xFFFFFFFF (int32 -1).
//
// An item (v, d) means "relax v's out-edges with level d + 1": x = d << 40
// | v, y = row start << 24 | row length (DEG_MAX: longer, read the end). A
// producer lowers level[u] with atomicMin; a strict improvement makes u an
// item (d + 1). Levels only decrease and every improvement is relaxed, so
// at the fixpoint level[v] is v's BFS distance whatever order the items
// run in: the window is a schedule, never needed for correctness.
//
// pend[d] (levels_cap + 1 words, zero at the start): items of level d made and
// not yet processed (in the list, kept by a lane or held). A producer adds
// its children to pend[d + 1] (after raising TOP to d + 1), then writes
// them, then (after a fence) takes its own item off pend[d]. So a level
// below the floor never gets an item again (its parents' level is empty):
// once pend[f] is 0 with f the floor, the floor moves to f + 1 (one CAS,
// any warp), and levels are finished in order. The traversal is over when
// the floor passes TOP (read in that order).
//
// The list is an array of cap slots (EMPTY until written once, no reuse);
// counters HEAD (slots handed to consumers), TAIL (slots handed to
// producers), FLOOR, TOP, ERROR, each on its own 128-byte line. A lane
// whose item lies above the window holds it (takes no new slot) until the
// floor comes within reach, or for `hold` clock cycles at most: the list
// is FIFO, so an item of the window may sit behind held ones, and the
// timeout keeps every item moving. A lane keeps one child per item and
// relaxes it itself next (chain_max in a row), only when the child is in
// the window. An append past cap, a level past MAX_LEVEL or levels_cap, or
// a warp idle past `patience` cycles sets ERROR: every warp stops and the
// caller runs a level-synchronous method.
//
// E: edges per lane and round (the round's index loads, then its
// atomicMins, in flight together): 4 for grids, 16 for rgg's ~16.
// I is the index type of the CSR (int or long long).

#include "warp.cuh"

typedef unsigned long long u64;

namespace bfs_window {
// BLOCK, VBITS (an item's vertex field), F_PREFETCH, F_CHECK (bfs_window_run's
// flags), HEAD, TAIL, FLOOR, TOP, ERROR (the counters, u64 words 128 bytes
// apart), CTRL (their count)
#include "bfs_window_constants.cuh"
constexpr unsigned FULL = 0xffffffffu;
constexpr u64 EMPTY = ~0ull;
constexpr u64 NONE = ~0ull;  // a lane without a slot
constexpr u64 V_MASK = (1ull << VBITS) - 1;  // x = d << VBITS | v
constexpr int LBITS = 64 - VBITS;            // y = start << LBITS | length
constexpr u64 DEG_MAX = (1ull << LBITS) - 1;
constexpr int MAX_LEVEL = (1 << (64 - VBITS)) - 2;

__device__ __forceinline__ ulonglong2 item(long long v, int d, long long b, long long e) {
  return make_ulonglong2(((u64)d << VBITS) | (u64)v,
                         ((u64)b << LBITS) | (u64)min((u64)(e - b), DEG_MAX));
}

// every lane: add n to pend[key] where n > 0 (sub: take it off), one
// atomic per distinct key of the warp, sent by the group's lowest lane (a
// lane leads one group at most). With sub, a leader gets the level's old
// count in *old and its group's total in *total (else they stay 0 and 1):
// old == total means the level emptied; the caller reads them later, so
// that the atomic's round trip overlaps other loads.
__device__ __forceinline__ void count_levels(unsigned* pend, unsigned key, unsigned n, bool sub,
                                             unsigned* old, unsigned* total) {
  const int lane = threadIdx.x & 31;
  unsigned todo = __ballot_sync(FULL, n != 0u);
  while (todo) {
    const int leader = __ffs(todo) - 1;
    const unsigned k = __shfl_sync(FULL, key, leader);
    const bool mine = ((todo >> lane) & 1u) && key == k;
    const unsigned group = __ballot_sync(FULL, mine);
    const unsigned sum = __reduce_add_sync(FULL, mine ? n : 0u);
    if (lane == leader) {
      if (sub) {
        *old = atomicSub(pend + k, sum);
        *total = sum;
      } else {
        atomicAdd(pend + k, sum);
      }
    }
    todo &= ~group;
  }
}

// one lane: move the floor past every level with no pending item (see the
// header: such a level never gets one again), from f, a floor read earlier
// (a stale one fails its CAS and learns the floor). TOP and pend[f] are
// read together: TOP only grows, so a stale TOP stops early, never wrongly;
// f <= TOP + 1 <= levels_cap always, so pend[f] is in bounds
__device__ __forceinline__ void advance(u64* ctrl, const unsigned* pend, u64 f) {
  while (true) {
    const u64 top = __ldcv(ctrl + TOP);
    const unsigned p = __ldcv(pend + f);
    if (f > top || p != 0u) return;
    const u64 old = atomicCAS(ctrl + FLOOR, f, f + 1);
    f = old == f ? f + 1 : old;
  }
}
}  // namespace bfs_window

// the source's item, its level and pend entry, the counters (one thread;
// levels, pend and the list cleared by the caller)
template <typename I>
__global__ void bfs_window_start(const I* __restrict__ indptr, unsigned* level, unsigned* pend,
                                 long long source, ulonglong2* items, u64* ctrl) {
  using namespace bfs_window;
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (int i = 0; i < CTRL; ++i) ctrl[i] = 0ull;
  ctrl[TAIL] = 1ull;
  level[source] = 0u;
  pend[0] = 1u;
  items[0] = item(source, 0, (long long)indptr[source], (long long)indptr[source + 1]);
}

template <typename I, int E>
__global__ void __launch_bounds__(bfs_window::BLOCK)
bfs_window_run(const I* __restrict__ indptr, const I* __restrict__ indices, unsigned* level,
               unsigned* pend, long long levels_cap, ulonglong2* items, long long cap, u64* ctrl,
               int window, long long hold, long long patience, int chain_max, int flags) {
  using namespace bfs_window;
  const int lane = threadIdx.x & 31;
  const bool prefetch = flags & F_PREFETCH, check = flags & F_CHECK;
  u64 slot = NONE;
  ulonglong2 cur = make_ulonglong2(EMPTY, EMPTY);  // the lane's item (polled, kept or held)
  long long held_since = -1;                       // cur found above the window at
  long long idle_since = -1;                       // lane 0: the warp found nothing since
  int idle = 0;
  int chain = 0;     // children kept in a row
  u64 top_seen = 0;  // the warp's last view of TOP (same in every lane)
  unsigned sub_old = 0, sub_total = 1;  // the last take-off from pend (count_levels)
  while (true) {
    // idle lanes take the next slots, one atomic per warp
    const unsigned need = __ballot_sync(FULL, slot == NONE && cur.x == EMPTY);
    if (need) {
      u64 h = 0;
      if (lane == 0) h = atomicAdd(ctrl + HEAD, (u64)__popc(need));
      h = __shfl_sync(FULL, h, 0);
      if ((need >> lane) & 1u) slot = h + __popc(need & ((1u << lane) - 1u));
    }
    if (cur.x == EMPTY && slot < (u64)cap) {
      const ulonglong2 it = __ldcv(items + slot);
      if (it.x != EMPTY && it.y != EMPTY) {  // both halves landed
        cur = it;
        slot = NONE;
      }
    }
    u64 floor_now = 0;
    if (lane == 0) floor_now = __ldcv(ctrl + FLOOR);
    floor_now = __shfl_sync(FULL, floor_now, 0);
    // the last item's level emptied: move the floor (read here, after this
    // round's loads are issued, so that the take-off's round trip overlaps
    // them; the move shows in the next round's floor)
    if (__any_sync(FULL, sub_old == sub_total) && lane == 0) advance(ctrl, pend, floor_now);
    sub_old = 0;
    sub_total = 1;
    const int d = cur.x != EMPTY ? (int)(cur.x >> VBITS) : 0;
    bool go = false;
    if (cur.x != EMPTY) {
      if ((u64)d <= floor_now + (u64)window) {
        go = true;
      } else {
        const long long c = clock64();
        if (held_since < 0) held_since = c;
        else if (c - held_since > hold) go = true;  // the window is a schedule only
      }
    }
    if (!__any_sync(FULL, go)) {
      int stop = 0;
      if (lane == 0) {
        // one round trip when nothing changed: TOP, the floor's count, ERROR
        const u64 t = __ldcv(ctrl + TOP);
        const unsigned p = __ldcv(pend + floor_now);
        const u64 e = __ldcv(ctrl + ERROR);
        if (floor_now <= t && p == 0u) {
          advance(ctrl, pend, floor_now);
        } else if (floor_now > t) {
          // over when the floor, read first, has passed TOP (see the header)
          __threadfence();
          stop = floor_now > __ldcv(ctrl + TOP);
        }
        stop = stop || e != 0;
        if (!stop) {
          const long long c = clock64();
          if (idle_since < 0) idle_since = c;
          else if (c - idle_since > patience) {
            atomicExch(ctrl + ERROR, 1ull);
            stop = 1;
          }
        }
      }
      if (__shfl_sync(FULL, stop, 0)) break;
      __nanosleep(32u << min(idle, 2));  // 32-128 ns
      ++idle;
      continue;
    }
    idle = 0;
    idle_since = -1;
    long long v = 0, e0 = 0, e1 = 0;
    unsigned now = 0;
    if (go) {
      v = (long long)(cur.x & V_MASK);
      e0 = (long long)(cur.y >> LBITS);
      const u64 len = cur.y & DEG_MAX;
      e1 = len == DEG_MAX ? (long long)indptr[v + 1] : e0 + (long long)len;
      now = __ldcv(level + v);  // in flight with the row's first loads
      cur = make_ulonglong2(EMPTY, EMPTY);
      held_since = -1;
    }
    // rounds of E edges per lane: a round's index loads, then its
    // atomicMins (with the heads' row bounds), in flight together; one
    // tail atomic appends the whole warp's children
    const unsigned deg = (unsigned)min(e1 - e0, (long long)0x7fffffff);
    const unsigned rounds = (__reduce_max_sync(FULL, deg) + E - 1) / E;
    const int nd = d + 1;
    const bool fits = nd <= MAX_LEVEL && (long long)nd < levels_cap;
    const bool stale = now < (unsigned)d;  // v has a better item
    for (unsigned r = 0; r < rounds; ++r) {
      const long long base = e0 + (long long)r * E;
      long long w[E];
#pragma unroll
      for (int k = 0; k < E; ++k) w[k] = base + k < e1 ? (long long)indices[base + k] : -1;
      long long b[E], e[E];
      unsigned old[E];
      bool send[E];
#pragma unroll
      for (int k = 0; k < E; ++k) send[k] = w[k] >= 0 && !stale;
      if (check) {
        unsigned seen[E];
#pragma unroll
        for (int k = 0; k < E; ++k) seen[k] = send[k] ? __ldcg(level + w[k]) : 0u;
#pragma unroll
        for (int k = 0; k < E; ++k) send[k] = send[k] && seen[k] > (unsigned)nd;
      }
      // every atomicMin and row load issued before any result is used
#pragma unroll
      for (int k = 0; k < E; ++k) {
        b[k] = e[k] = 0;
        old[k] = (unsigned)nd;
        if (send[k]) {
          if (prefetch) {
            b[k] = (long long)indptr[w[k]];
            e[k] = (long long)indptr[w[k] + 1];
          }
          old[k] = atomicMin(level + w[k], (unsigned)nd);
        }
      }
      unsigned kids = 0;
#pragma unroll
      for (int k = 0; k < E; ++k)
        if (old[k] > (unsigned)nd) kids |= 1u << k;
      if (kids && !fits) {
        atomicExch(ctrl + ERROR, 1ull);
        kids = 0;
      }
#pragma unroll
      for (int k = 0; k < E; ++k) {
        if (!prefetch && ((kids >> k) & 1u)) {
          b[k] = (long long)indptr[w[k]];
          e[k] = (long long)indptr[w[k] + 1];
        }
      }
      const unsigned born = __popc(kids);
      // the children's level: TOP raised first, then pend, then the items
      if (__any_sync(FULL, born != 0u)) {
        const unsigned hi = __reduce_max_sync(FULL, born ? (unsigned)nd : 0u);
        if ((u64)hi > top_seen) {
          u64 t = 0;
          if (lane == 0) t = atomicMax(ctrl + TOP, (u64)hi);
          top_seen = max(__shfl_sync(FULL, t, 0), (u64)hi);
        }
        unsigned o = 0, t1 = 1;
        count_levels(pend, (unsigned)nd, born, false, &o, &t1);
      }
      if (kids && cur.x == EMPTY && chain < chain_max && (u64)nd <= floor_now + (u64)window) {
        // keep the first child: relaxed next by this lane, not through the list
        const int k = __ffs(kids) - 1;
        kids &= kids - 1u;
#pragma unroll
        for (int j = 0; j < E; ++j)
          if (j == k) cur = item(w[j], nd, b[j], e[j]);
      }
      const unsigned c = __popc(kids);
      const unsigned incl = bg::warp_inclusive_scan(c);
      const unsigned total = __shfl_sync(FULL, incl, 31);
      if (!total) continue;
      u64 t = 0;
      if (lane == 0) t = atomicAdd(ctrl + TAIL, (u64)total);
      u64 pos = __shfl_sync(FULL, t, 0) + (incl - c);
#pragma unroll
      for (int k = 0; k < E; ++k) {
        if (!((kids >> k) & 1u)) continue;
        if (pos < (u64)cap)
          __stcg(items + pos, item(w[k], nd, b[k], e[k]));
        else
          atomicExch(ctrl + ERROR, 1ull);
        ++pos;
      }
    }
    chain = go && cur.x != EMPTY ? chain + 1 : 0;
    // the item is done: its children counted and written (every lane's
    // writes, hence the fence in each and the warp sync) before it leaves
    // pend; else the floor could pass a level whose item is not counted yet
    // and the traversal end early
    __threadfence();
    __syncwarp();
    sub_old = 0;
    sub_total = 1;
    count_levels(pend, (unsigned)d, go ? 1u : 0u, true, &sub_old, &sub_total);
  }
}

template __global__ void bfs_window_start<int>(const int*, unsigned*, unsigned*, long long,
                                               ulonglong2*, u64*);
template __global__ void bfs_window_start<long long>(const long long*, unsigned*, unsigned*,
                                                     long long, ulonglong2*, u64*);
#define BFS_WINDOW_RUN(I, E)                                                                  \
  template __global__ void bfs_window_run<I, E>(const I*, const I*, unsigned*, unsigned*,      \
                                                long long, ulonglong2*, long long, u64*, int, \
                                                long long, long long, int, int);
BFS_WINDOW_RUN(int, 4)
BFS_WINDOW_RUN(int, 8)
BFS_WINDOW_RUN(int, 16)
BFS_WINDOW_RUN(long long, 4)
BFS_WINDOW_RUN(long long, 8)
BFS_WINDOW_RUN(long long, 16)
