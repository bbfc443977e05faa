// Brandes' path counts and dependencies of a batch of b <= 64 sources on the
// GPU: the CUDA twin of kernels/cpu/betweenness.py (the same recurrences, the
// same arithmetic per (vertex, source): sigma summed over in-neighbours in
// CSR order, delta = sum over out-neighbours of sigma * W in CSR order,
// W = (1 + delta) / sigma), on msbfs's levels of the batch.
//
// State, vertex-major (a vertex's b entries adjacent, so a warp reads one
// vertex's row of the batch in one coalesced load):
// - lev_t[n * b] int: lev_t[v * b + s] = BFS level of v from source s, -1
//   unreached (bc_transpose of msbfs's b x n levels);
// - sv[n * b] double: sigma[v, s] after the forward levels; the backward
//   level of (v, s) overwrites it in place with W[v, s] = (1 + delta) /
//   sigma. Safe: each (v, s) has one level and is written by the launch of
//   that level only; the forward launch of level d reads sigma at level
//   d - 1 (final), the backward launch of level e reads sv at level e (still
//   sigma) and at level e + 1 (already W). Entries of unreached (v, s) are
//   never read (every read is masked by lev_t), so sv is not cleared
//   between batches.
//
// - words[2][n] uint64, the frontier words of two consecutive levels:
//   words[d & 1][v] bit s set iff lev_t[v, s] == d. A row walk tests a
//   neighbour's sources at the level it wants with one 8-byte load (the
//   same address on every lane: one sector) instead of the lanes' lev_t
//   entries (a sector for every 8 sources on: most of a 256-byte row).
//   The launch of level d writes the words of its listed vertices, heavy
//   ones included, into words[d & 1], and reads those of level d - 1
//   (forward) or d + 1 (backward), written by the launch before. The
//   launcher zeroes both buffers before each phase; within a phase a word
//   left from level d -+ 2 is never cleared, and never matters: its bits
//   are sources at a level no neighbour of the reader can hold for them
//   (BFS levels along an edge u -> v: lev(v) <= lev(u) + 1, so an
//   in-neighbour of a vertex at level d + 1 is at d or deeper, an
//   out-neighbour of one at e is at e + 1 or shallower).
//
// Per-level lists: a vertex is listed once for each distinct level among
// its b entries (bc_lists, counting then scattering; bc_scan between). A
// level's launch runs a warp per listed vertex; lane L owns sources L and
// L + 32 (masked where b <= L or b <= L + 32). The order inside a level does
// not matter: every sum of a (vertex, source) runs over the vertex's CSR row
// in order, and a vertex's total gets one warp per level, the levels in
// launch order (deepest first, as on the CPU).
//
// Degree skew: a warp walks its vertex's whole row (32 indices loaded at a
// time, broadcast by shuffles), so a kron hub of 10^5 edges would keep one
// warp busy for its row. A vertex is heavy for the forward phase when its
// in-degree exceeds `heavy` (settings.betweenness.cuda_heavy_degree), for
// the backward phase when its out-degree does; bc_forward / bc_backward skip
// it (one compare), and its row is cut into chunks of at most
// cuda_heavy_chunk edges (the launcher's table, per direction: each chunk's
// vertex and edge range, each heavy vertex's chunk range). Per level, after
// the light launch: bc_*_chunks, a warp per chunk (returns at once unless
// one of its vertex's sources is at the level), sums its edges as the light
// kernel sums a row, into partial[chunk * 64 + lane] (and, with edges, each
// edge's share directly: an edge lies in one chunk); then bc_*_heavy, a warp
// per heavy vertex, adds its chunks' partials in chunk order
// (deterministic) and finishes each (vertex, source) as the light kernel
// does. Only the grouping of a row's sum changes (by chunks): sigma is an
// integer sum (exact), delta a sum of positive terms.
//
// Cost per batch: O(n b) for the transpose and lists, then per level the
// listed vertices' rows: O(sum over list entries of degree x (b / 32))
// loads, a neighbour's 8-byte frontier word and 8 bytes for each of its
// sources that hits.

#include "warp.cuh"

namespace bc {

constexpr unsigned FULL = 0xffffffffu;

// lane's two entries of row v (sources lane and lane + 32), -1 past b
__device__ __forceinline__ void row_levels(const int* __restrict__ lev_t, long long v, int b,
                                           int lane, int& l0, int& l1) {
  const long long row = v * (long long)b;
  l0 = lane < b ? lev_t[row + lane] : -1;
  l1 = lane + 32 < b ? lev_t[row + lane + 32] : -1;
}

// sum of x over the warp's lanes, the same fixed tree every call (lane 0's
// result is the one used)
__device__ __forceinline__ double warp_sum(double x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(FULL, x, o);
  return x;
}

// The frontier word of a vertex at a level: bit s for each of its sources
// there (lane L's on0 is bit L, its on1 bit L + 32; every lane gets it).
__device__ __forceinline__ unsigned long long frontier_word(bool on0, bool on1) {
  return (unsigned long long)__ballot_sync(FULL, on0) |
         ((unsigned long long)__ballot_sync(FULL, on1) << 32);
}

// Neighbours a row walk keeps in flight: their frontier words are loaded
// together, then their sigma / W loads, then the sums in CSR order (the
// same additions as one at a time). A warp's loop is a chain of dependent
// loads (index, word, value), so the walk is latency-bound without it.
constexpr int FLIGHT = 8;

// The loads of neighbours k .. k + FLIGHT - 1 of a 32-neighbour slice (lane
// j holds neighbour j's id in mine; cnt of them are real): their frontier
// words at the wanted level (fw: that level's words; one address per
// neighbour, the same on every lane), as the bits hit (bit j: lane L's
// source L is on and at that level for neighbour j; bit j + FLIGHT: its
// source L + 32), then their values y0 / y1 where it is (0 elsewhere).
__device__ __forceinline__ unsigned gather(long long mine, int k, int cnt,
                                           const unsigned long long* __restrict__ fw,
                                           const double* __restrict__ sv, int b, int lane,
                                           bool on0, bool on1, double (&y0)[FLIGHT],
                                           double (&y1)[FLIGHT]) {
  long long r[FLIGHT];
  unsigned long long w[FLIGHT];
#pragma unroll
  for (int j = 0; j < FLIGHT; ++j) r[j] = __shfl_sync(FULL, mine, (k + j) & 31);
#pragma unroll
  for (int j = 0; j < FLIGHT; ++j) w[j] = k + j < cnt ? fw[r[j]] : 0ull;
  unsigned hit = 0;
#pragma unroll
  for (int j = 0; j < FLIGHT; ++j) {
    const long long row = r[j] * (long long)b;
    const bool h0 = on0 && ((unsigned)(w[j] >> lane) & 1u);
    const bool h1 = on1 && ((unsigned)(w[j] >> 32 >> lane) & 1u);
    y0[j] = h0 ? sv[row + lane] : 0.0;
    y1[j] = h1 ? sv[row + lane + 32] : 0.0;
    hit |= (h0 ? 1u << j : 0u) | (h1 ? 1u << (j + FLIGHT) : 0u);
  }
  return hit;
}

// Forward row walk: s0 / s1 += sv[u, L] / sv[u, L + 32] over the row's
// neighbours u = idx[e0 .. e1) in order, where lane L's source is on (on0,
// on1) and at the wanted level for u (fw: that level's frontier words).
template <typename I>
__device__ __forceinline__ void pull_row(const I* __restrict__ idx, long long e0, long long e1,
                                         const unsigned long long* __restrict__ fw,
                                         const double* __restrict__ sv, int b, int lane,
                                         bool on0, bool on1, double& s0, double& s1) {
  for (long long base = e0; base < e1; base += 32) {
    const long long mine = base + lane < e1 ? (long long)idx[base + lane] : 0;
    const int cnt = (int)min(32ll, e1 - base);
    for (int k = 0; k < cnt; k += FLIGHT) {
      double y0[FLIGHT], y1[FLIGHT];
      const unsigned hit = gather(mine, k, cnt, fw, sv, b, lane, on0, on1, y0, y1);
#pragma unroll
      for (int j = 0; j < FLIGHT; ++j) {
        if (hit >> j & 1u) s0 += y0[j];
        if (hit >> (j + FLIGHT) & 1u) s1 += y1[j];
      }
    }
  }
}

// Backward row walk: a0 / a1 += sg0 * W[w, L] / sg1 * W[w, L + 32] over the
// row's neighbours w = idx[e0 .. e1) in order, where lane L's source is on
// and at the wanted level for w (fw: that level's frontier words); EDGES:
// each edge's sum over the lanes (a fixed warp tree) added to share[edge]
// where any lane's source counts it.
template <typename I, bool EDGES>
__device__ __forceinline__ void push_row(const I* __restrict__ idx, long long e0, long long e1,
                                         const unsigned long long* __restrict__ fw,
                                         const double* __restrict__ sv, int b, int lane,
                                         bool on0, bool on1, double sg0, double sg1,
                                         double& a0, double& a1, double* __restrict__ share) {
  for (long long base = e0; base < e1; base += 32) {
    const long long mine = base + lane < e1 ? (long long)idx[base + lane] : 0;
    const int cnt = (int)min(32ll, e1 - base);
    for (int k = 0; k < cnt; k += FLIGHT) {
      double y0[FLIGHT], y1[FLIGHT];
      const unsigned hit = gather(mine, k, cnt, fw, sv, b, lane, on0, on1, y0, y1);
#pragma unroll
      for (int j = 0; j < FLIGHT; ++j) {
        const bool hit0 = hit >> j & 1u, hit1 = hit >> (j + FLIGHT) & 1u;
        double c0 = 0.0, c1 = 0.0;
        if (hit0) {
          c0 = sg0 * y0[j];
          a0 += c0;
        }
        if (hit1) {
          c1 = sg1 * y1[j];
          a1 += c1;
        }
        if (EDGES) {
          if (__any_sync(FULL, hit0 || hit1)) {  // uniform
            const double t = warp_sum(c0 + c1);
            if (lane == 0) share[base + k + j] += t;
          }
        }
      }
    }
  }
}

// The start of a list builder's pass (bc_lists, bc_pair_lists; every
// thread of the block calls it): pass 0 clears the block's shared counts;
// pass 1 after a shared count adds the block's counts to counts[] (count)
// or reserves the block's range of each level there (scatter: sh[d] becomes
// the range's start). False where the block is done (a count).
__device__ __forceinline__ bool begin_pass(int pass, int use_shared, int scatter, int levels,
                                           unsigned long long* sh,
                                           unsigned long long* __restrict__ counts) {
  if (pass == 1 && use_shared) {
    __syncthreads();
    for (int d = threadIdx.x; d < levels; d += blockDim.x) {
      const unsigned long long c = sh[d];
      if (c == 0) continue;
      if (scatter) sh[d] = atomicAdd(counts + d, c);  // this block's range of level d
      else atomicAdd(counts + d, c);
    }
    if (!scatter) return false;  // uniform: a kernel parameter
    __syncthreads();
  }
  if (pass == 0) {
    for (int d = threadIdx.x; d < levels; d += blockDim.x) sh[d] = 0;
    __syncthreads();
  }
  return true;
}

// A pair-mode thread's four neighbours idx[0..3] of source s: their
// levels l, then their values x where the level is want (0 elsewhere); the
// four loads of each kind issued together.
template <typename I>
__device__ __forceinline__ void gather4(const I* __restrict__ idx, long long bb, long long s,
                                        const int* __restrict__ lev_t,
                                        const double* __restrict__ sv, int want, int (&l)[4],
                                        double (&x)[4]) {
  long long q[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) q[k] = (long long)idx[k] * bb + s;
#pragma unroll
  for (int k = 0; k < 4; ++k) l[k] = lev_t[q[k]];
#pragma unroll
  for (int k = 0; k < 4; ++k) x[k] = l[k] == want ? sv[q[k]] : 0.0;
}

}  // namespace bc

// lev_t[v * b + s] = lev[s * n + v] (lev: b x n, row-major), by 32 x 32
// tiles through shared memory (block 32 x 8; grid ceil(n / 32) x ceil(b /
// 32)); depth[0] (cleared by the launcher) becomes the largest level.
__global__ void bc_transpose(const int* __restrict__ lev, long long n, int b,
                             int* __restrict__ lev_t, int* __restrict__ depth) {
  __shared__ int tile[32][33];
  const long long v0 = (long long)blockIdx.x * 32;
  const int s0 = blockIdx.y * 32;
  int most = -1;
  for (int j = threadIdx.y; j < 32; j += 8) {
    const int s = s0 + j;
    const long long v = v0 + threadIdx.x;
    int x = -1;
    if (s < b && v < n) x = lev[(long long)s * n + v];
    tile[j][threadIdx.x] = x;
    most = max(most, x);
  }
  __syncthreads();
  for (int j = threadIdx.y; j < 32; j += 8) {
    const long long v = v0 + j;
    const int s = s0 + threadIdx.x;
    if (s < b && v < n) lev_t[v * b + s] = tile[threadIdx.x][j];
  }
  // every warp of the block is full (32 x 8 threads): reduce, one atomic a warp
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) most = max(most, __shfl_down_sync(bc::FULL, most, o));
  if ((threadIdx.x & 31) == 0 && most >= 0) atomicMax(depth, most);
}

// The per-level vertex lists. Block i takes vertices [i * chunk, (i + 1) *
// chunk), a warp per vertex; a vertex's distinct levels come out of a loop
// that takes the lowest remaining lane's value, broadcasts it and retires
// every lane value equal to it (one iteration per distinct level: about
// 2-3 a vertex on kron and urand; __match_any_sync compares one register
// across lanes, and each lane holds two).
// scatter == 0: counts[d] += the vertices with an entry at level d (the
// launcher zeroes counts first).
// scatter == 1: counts[d] (= offsets[d], written there by bc_scan) hands
// out positions, list[position] = v; a level's order is that of the atomics.
// With use_shared (levels entries of dynamic shared memory, 8 bytes each),
// the block first counts its own vertices per level in shared memory, then
// makes one global atomic per level it holds (count: added to hist;
// scatter: reserves a range of the level's list, handed out again by
// shared atomics); else each (vertex, level) is a global atomic (graphs of
// many levels have few vertices per level: little contention).
template <typename I>
__global__ void bc_lists(const int* __restrict__ lev_t, long long n, int b, long long chunk,
                         int levels, int use_shared, int scatter,
                         unsigned long long* __restrict__ counts, I* __restrict__ list) {
  extern __shared__ unsigned long long sh[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  const long long v0 = (long long)blockIdx.x * chunk;
  const long long v1 = min(n, v0 + chunk);
  // pass 0: count into shared memory (use_shared); pass 1: hand out
  // positions (scatter, or every atomic global when !use_shared)
  for (int pass = use_shared ? 0 : 1; pass < 2; ++pass) {
    if (!bc::begin_pass(pass, use_shared, scatter, levels, sh, counts)) return;
    for (long long v = v0 + warp; v < v1; v += warps) {
      int l0, l1;
      bc::row_levels(lev_t, v, b, lane, l0, l1);
      unsigned m0 = __ballot_sync(bc::FULL, l0 >= 0);
      unsigned m1 = __ballot_sync(bc::FULL, l1 >= 0);
      while (m0 | m1) {  // uniform: every lane holds the same masks
        const int d = m0 ? __shfl_sync(bc::FULL, l0, __ffs(m0) - 1)
                         : __shfl_sync(bc::FULL, l1, __ffs(m1) - 1);
        if (lane == 0) {
          if (pass == 0) {
            atomicAdd(sh + d, 1ull);
          } else if (!scatter) {
            atomicAdd(counts + d, 1ull);
          } else {
            const unsigned long long at =
                use_shared ? atomicAdd(sh + d, 1ull) : atomicAdd(counts + d, 1ull);
            list[at] = (I)v;
          }
        }
        m0 &= ~__ballot_sync(bc::FULL, l0 == d);
        m1 &= ~__ballot_sync(bc::FULL, l1 == d);
      }
    }
  }
}

// One block: offsets[0..levels] = the exclusive prefix sum of hist[0..levels)
// (offsets[levels]: the number of list entries), and hist[d] = offsets[d]
// (the scatter's cursors). blockDim.x a multiple of 32, at most 1024.
__global__ void bc_scan(unsigned long long* __restrict__ hist, int levels,
                        unsigned long long* __restrict__ offsets) {
  __shared__ unsigned long long sums[32];
  __shared__ unsigned long long carry;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int warps = blockDim.x >> 5;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (int base = 0; base < levels; base += blockDim.x) {
    const int d = base + threadIdx.x;
    const unsigned long long x = d < levels ? hist[d] : 0ull;
    const unsigned long long in_warp = bg::warp_inclusive_scan(x);
    if (lane == 31) sums[warp] = in_warp;
    __syncthreads();
    if (warp == 0) {
      const unsigned long long w = lane < warps ? sums[lane] : 0ull;
      sums[lane] = bg::warp_inclusive_scan(w);  // inclusive over the warps
    }
    __syncthreads();
    const unsigned long long start = carry + (warp ? sums[warp - 1] : 0ull) + in_warp - x;
    if (d < levels) {
      offsets[d] = start;
      hist[d] = start;
    }
    __syncthreads();  // every thread has read carry and sums
    if (threadIdx.x == 0) carry += sums[warps - 1];
    __syncthreads();
  }
  if (threadIdx.x == 0) offsets[levels] = carry;
}

// Forward, level d: for each listed vertex v (list[begin:end]) and each of
// its sources s with lev_t[v, s] == d: sigma[v, s] = sum over in-neighbours
// u (tindptr/tindices: the CSR of A', in order) with lev_t[u, s] == d - 1 of
// sigma[u, s]; at d = 0 (the sources) sigma = 1. A warp per vertex,
// grid-stride. For d > 0 a vertex of in-degree > heavy is skipped
// (bc_forward_chunks, bc_forward_heavy). Every listed vertex's frontier word
// of level d goes to fnow (heavy ones too); the in-neighbours' of level
// d - 1 are read from fprev.
template <typename I>
__global__ void bc_forward(const I* __restrict__ tindptr, const I* __restrict__ tindices,
                           const int* __restrict__ lev_t, double* __restrict__ sv,
                           const I* __restrict__ list, long long begin, long long end, int b,
                           int d, long long heavy, const unsigned long long* __restrict__ fprev,
                           unsigned long long* __restrict__ fnow) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long i = begin + (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5); i < end;
       i += stride) {
    const long long v = list[i];
    int l0, l1;
    bc::row_levels(lev_t, v, b, lane, l0, l1);
    const bool on0 = l0 == d, on1 = l1 == d;
    const unsigned long long word = bc::frontier_word(on0, on1);
    if (lane == 0) fnow[v] = word;
    const long long row = v * (long long)b;
    if (d == 0) {
      if (on0) sv[row + lane] = 1.0;
      if (on1) sv[row + lane + 32] = 1.0;
      continue;
    }
    const long long e0 = tindptr[v], e1 = tindptr[v + 1];
    if (e1 - e0 > heavy) continue;  // uniform: bc_forward_chunks and bc_forward_heavy
    double s0 = 0.0, s1 = 0.0;
    bc::pull_row(tindices, e0, e1, fprev, sv, b, lane, on0, on1, s0, s1);
    if (on0) sv[row + lane] = s0;
    if (on1) sv[row + lane + 32] = s1;
  }
}

// Backward, level e (deepest first): for each listed vertex u and each of
// its sources s with lev_t[u, s] == e: delta = sum over out-neighbours w
// (indptr/indices: A's CSR, in order) with lev_t[w, s] == e + 1 of
// sigma[u, s] * W[w, s]; then W[u, s] = (1 + delta) / sigma[u, s] in place
// of sigma, and for e > 0 the batch's sum of delta (a fixed warp tree over
// the lanes) added to total[u] (one warp per vertex per level, the levels'
// launches ordered: a plain read-modify-write). e == deepest: no vertex one
// level down, the row is not read (a heavy vertex's too); below it a vertex
// of out-degree > heavy is skipped (bc_backward_chunks, bc_backward_heavy).
// EDGES: each out-edge's sum over the
// batch of those sigma[u, s] * W[w, s] added to share[edge] (A's CSR
// order). Every listed vertex's frontier word of level e goes to fnow
// (heavy ones too); the out-neighbours' of level e + 1 are read from fnext.
template <typename I, bool EDGES>
__global__ void bc_backward(const I* __restrict__ indptr, const I* __restrict__ indices,
                            const int* __restrict__ lev_t, double* __restrict__ sv,
                            const I* __restrict__ list, long long begin, long long end, int b,
                            int e, int deepest, double* __restrict__ total,
                            double* __restrict__ share, long long heavy,
                            const unsigned long long* __restrict__ fnext,
                            unsigned long long* __restrict__ fnow) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long i = begin + (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5); i < end;
       i += stride) {
    const long long u = list[i];
    int l0, l1;
    bc::row_levels(lev_t, u, b, lane, l0, l1);
    const bool on0 = l0 == e, on1 = l1 == e;
    const unsigned long long word = bc::frontier_word(on0, on1);
    if (lane == 0) fnow[u] = word;
    const long long e0 = indptr[u], e1 = indptr[u + 1];
    if (e < deepest && e1 - e0 > heavy) continue;  // uniform: the chunks and bc_backward_heavy
    const long long row = u * (long long)b;
    const double sg0 = on0 ? sv[row + lane] : 0.0;
    const double sg1 = on1 ? sv[row + lane + 32] : 0.0;
    double a0 = 0.0, a1 = 0.0;
    if (e < deepest) {
      bc::push_row<I, EDGES>(indices, e0, e1, fnext, sv, b, lane, on0, on1, sg0, sg1, a0, a1,
                             share);
    }
    if (on0) sv[row + lane] = (1.0 + a0) / sg0;
    if (on1) sv[row + lane + 32] = (1.0 + a1) / sg1;
    if (e > 0) {
      const double t = bc::warp_sum(a0 + a1);  // lanes not on add 0
      if (lane == 0) total[u] += t;
    }
  }
}

// The heavy rows, forward, level d > 0 (after bc_forward's launch of the
// level): a warp per chunk c of chunks (cv[c]: its vertex v, in-degree >
// heavy; edges [clo[c], chi[c]) of tindptr/tindices, in order). Unless none
// of v's sources is at level d, partial[c * 64 + L] = the sum over the
// chunk's in-neighbours u with lev_t[u, s] == d - 1 of sigma[u, s] (s = L,
// L + 32; 0 where v's source is not at d or past b), summed as bc_forward
// sums a row. Reads sigma of level d - 1 (final) and that level's frontier
// words (fprev), writes no sigma.
template <typename I>
__global__ void bc_forward_chunks(const I* __restrict__ tindices, const int* __restrict__ lev_t,
                                  const double* __restrict__ sv, const long long* __restrict__ cv,
                                  const long long* __restrict__ clo,
                                  const long long* __restrict__ chi, long long chunks, int b,
                                  int d, double* __restrict__ partial,
                                  const unsigned long long* __restrict__ fprev) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks;
       c += stride) {
    int l0, l1;
    bc::row_levels(lev_t, cv[c], b, lane, l0, l1);
    const bool on0 = l0 == d, on1 = l1 == d;
    if (!__any_sync(bc::FULL, on0 || on1)) continue;  // uniform: c is the warp's
    double s0 = 0.0, s1 = 0.0;
    bc::pull_row(tindices, clo[c], chi[c], fprev, sv, b, lane, on0, on1, s0, s1);
    partial[c * 64 + lane] = s0;
    partial[c * 64 + lane + 32] = s1;
  }
}

// The heavy rows, forward, level d > 0 (after bc_forward_chunks): a warp per
// heavy vertex h (hv[h], its chunks coff[h] .. coff[h + 1] - 1):
// sigma[v, s] = the sum of its chunks' partials, in chunk order, for each s
// with lev_t[v, s] == d.
__global__ void bc_forward_heavy(const int* __restrict__ lev_t, double* __restrict__ sv,
                                 const long long* __restrict__ hv,
                                 const long long* __restrict__ coff, long long heavies, int b,
                                 int d, const double* __restrict__ partial) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long h = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; h < heavies;
       h += stride) {
    const long long v = hv[h];
    int l0, l1;
    bc::row_levels(lev_t, v, b, lane, l0, l1);
    const bool on0 = l0 == d, on1 = l1 == d;
    if (!__any_sync(bc::FULL, on0 || on1)) continue;  // uniform: its chunks wrote nothing
    double s0 = 0.0, s1 = 0.0;
    for (long long c = coff[h]; c < coff[h + 1]; ++c) {
      s0 += partial[c * 64 + lane];
      s1 += partial[c * 64 + lane + 32];
    }
    const long long row = v * (long long)b;
    if (on0) sv[row + lane] = s0;
    if (on1) sv[row + lane + 32] = s1;
  }
}

// The heavy rows, backward, level e < deepest (after bc_backward's launch of
// the level): a warp per chunk c (cv[c]: its vertex u, out-degree > heavy;
// edges [clo[c], chi[c]) of indptr/indices, in order). Unless none of u's
// sources is at level e, partial[c * 64 + L] = the sum over the chunk's
// out-neighbours w with lev_t[w, s] == e + 1 of sigma[u, s] * W[w, s]
// (s = L, L + 32), summed as bc_backward sums a row; EDGES: each edge's sum
// over the batch added to share[edge] as bc_backward adds it (the edge's
// one warp this level). Reads sigma[u, s] (bc_backward_heavy writes W there
// after this launch), W of level e + 1 (final) and that level's frontier
// words (fnext).
template <typename I, bool EDGES>
__global__ void bc_backward_chunks(const I* __restrict__ indices, const int* __restrict__ lev_t,
                                   const double* __restrict__ sv,
                                   const long long* __restrict__ cv,
                                   const long long* __restrict__ clo,
                                   const long long* __restrict__ chi, long long chunks, int b,
                                   int e, double* __restrict__ share,
                                   double* __restrict__ partial,
                                   const unsigned long long* __restrict__ fnext) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long c = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; c < chunks;
       c += stride) {
    const long long u = cv[c];
    int l0, l1;
    bc::row_levels(lev_t, u, b, lane, l0, l1);
    const bool on0 = l0 == e, on1 = l1 == e;
    if (!__any_sync(bc::FULL, on0 || on1)) continue;  // uniform: c is the warp's
    const long long row = u * (long long)b;
    const double sg0 = on0 ? sv[row + lane] : 0.0;
    const double sg1 = on1 ? sv[row + lane + 32] : 0.0;
    double a0 = 0.0, a1 = 0.0;
    bc::push_row<I, EDGES>(indices, clo[c], chi[c], fnext, sv, b, lane, on0, on1, sg0, sg1, a0,
                           a1, share);
    partial[c * 64 + lane] = a0;
    partial[c * 64 + lane + 32] = a1;
  }
}

// The heavy rows, backward, level e < deepest (after bc_backward_chunks): a
// warp per heavy vertex h (hv[h], its chunks coff[h] .. coff[h + 1] - 1):
// delta = the sum of its chunks' partials in chunk order, then as
// bc_backward: W[u, s] = (1 + delta) / sigma[u, s] in place for each s with
// lev_t[u, s] == e, and for e > 0 the warp's sum of delta added to total[u].
__global__ void bc_backward_heavy(const int* __restrict__ lev_t, double* __restrict__ sv,
                                  const long long* __restrict__ hv,
                                  const long long* __restrict__ coff, long long heavies, int b,
                                  int e, const double* __restrict__ partial,
                                  double* __restrict__ total) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long h = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; h < heavies;
       h += stride) {
    const long long u = hv[h];
    int l0, l1;
    bc::row_levels(lev_t, u, b, lane, l0, l1);
    const bool on0 = l0 == e, on1 = l1 == e;
    if (!__any_sync(bc::FULL, on0 || on1)) continue;  // uniform: its chunks wrote nothing
    const long long row = u * (long long)b;
    const double sg0 = on0 ? sv[row + lane] : 0.0;
    const double sg1 = on1 ? sv[row + lane + 32] : 0.0;
    double a0 = 0.0, a1 = 0.0;
    for (long long c = coff[h]; c < coff[h + 1]; ++c) {
      a0 += partial[c * 64 + lane];
      a1 += partial[c * 64 + lane + 32];
    }
    if (on0) sv[row + lane] = (1.0 + a0) / sg0;
    if (on1) sv[row + lane + 32] = (1.0 + a1) / sg1;
    if (e > 0) {
      const double t = bc::warp_sum(a0 + a1);  // lanes not on add 0
      if (lane == 0) total[u] += t;
    }
  }
}

// every instantiation the launcher asks for, so that nvcc -cubin compiles
// the templates' bodies too
template __global__ void bc_lists<int>(const int*, long long, int, long long, int, int, int,
    unsigned long long*, int*);
template __global__ void bc_lists<long long>(const int*, long long, int, long long, int, int, int,
    unsigned long long*, long long*);
template __global__ void bc_forward<int>(const int*, const int*, const int*, double*,
    const int*, long long, long long, int, int, long long, const unsigned long long*,
    unsigned long long*);
template __global__ void bc_forward<long long>(const long long*, const long long*, const int*,
    double*,
    const long long*, long long, long long, int, int, long long, const unsigned long long*,
    unsigned long long*);
template __global__ void bc_backward<int, false>(const int*, const int*, const int*,
    double*, const int*, long long, long long, int, int, int, double*, double*,
    long long, const unsigned long long*, unsigned long long*);
template __global__ void bc_backward<int, true>(const int*, const int*, const int*,
    double*, const int*, long long, long long, int, int, int, double*, double*,
    long long, const unsigned long long*, unsigned long long*);
template __global__ void bc_backward<long long, false>(const long long*, const long long*,
    const int*,
    double*, const long long*, long long, long long, int, int, int, double*, double*,
    long long, const unsigned long long*, unsigned long long*);
template __global__ void bc_backward<long long, true>(const long long*, const long long*,
    const int*,
    double*, const long long*, long long, long long, int, int, int, double*, double*,
    long long, const unsigned long long*, unsigned long long*);
template __global__ void bc_forward_chunks<int>(const int*, const int*, const double*,
    const long long*, const long long*, const long long*, long long, int, int, double*,
    const unsigned long long*);
template __global__ void bc_forward_chunks<long long>(const long long*, const int*, const double*,
    const long long*, const long long*, const long long*, long long, int, int, double*,
    const unsigned long long*);
template __global__ void bc_backward_chunks<int, false>(const int*, const int*,
    const double*, const long long*, const long long*, const long long*, long long,
    int, int, double*, double*, const unsigned long long*);
template __global__ void bc_backward_chunks<int, true>(const int*, const int*,
    const double*, const long long*, const long long*, const long long*, long long,
    int, int, double*, double*, const unsigned long long*);
template __global__ void bc_backward_chunks<long long, false>(const long long*, const int*,
    const double*, const long long*, const long long*, const long long*, long long,
    int, int, double*, double*, const unsigned long long*);
template __global__ void bc_backward_chunks<long long, true>(const long long*, const int*,
    const double*, const long long*, const long long*, const long long*, long long,
    int, int, double*, double*, const unsigned long long*);

// ---------------------------------------------------------------------------
// Pair mode: a thread per (vertex, source). On deep graphs (grids, roads,
// rgg: hundreds to thousands of levels) the b sources of a batch put a
// vertex at about b distinct levels, so a warp of the vertex mode above
// works with one active lane. The launcher picks pair mode for a batch
// (never with edge shares) when the reached pairs (v, s) of level >= 1 are
// fewer than settings.betweenness.cuda_pair_lanes x the vertex lists'
// entries (bc_pair_count counts them).
//
// Per level the list of items p = v * b + s (int64; lev_t[p] == d) built as
// the vertex lists are (bc_pair_lists count, bc_scan, bc_pair_lists
// scatter); the order inside a level does not matter: each (v, s) sums its
// row in CSR order. Per pair the arithmetic of the vertex mode and of the
// CPU kernel: sigma summed over in-neighbours, delta = sum of sigma * W
// (c = sg * W, a += c) over out-neighbours, each in CSR order (an entry that
// is not one level up or down adds 0.0: exact), so a light row's sigma, W
// and delta equal the CPU's bitwise. A heavy row (degree > heavy, the same
// test as the vertex mode, per direction) is summed by a warp per (heavy
// vertex, source) instead: lanes over the row's edges, then bc::warp_sum
// (a fixed tree: deterministic; sigma exact, delta regrouped).
//
// delta[p] (n x b float64) holds the pair's dependency; total[u] gets no
// write per level (a float atomic per pair would make the sums depend on
// the order of the atomics): after the last level bc_pair_total, a warp a
// vertex, adds lane L's and lane L + 32's delta (where their level is >=
// 1), then bc::warp_sum over the lanes: one sum over all sources at once,
// where the vertex mode adds one warp sum per level, deepest first (the
// same terms, grouped otherwise: equal within rounding).
// ---------------------------------------------------------------------------

// count[0] += the entries of lev_t[0 .. m) at level >= 1 (the reached pairs
// but the sources'); one atomic a warp. blockDim.x a multiple of 32.
__global__ void bc_pair_count(const int* __restrict__ lev_t, long long m,
                              unsigned long long* __restrict__ count) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  unsigned long long c = 0;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < m; p += stride)
    c += lev_t[p] >= 1 ? 1ull : 0ull;
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(bc::FULL, c, o);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}

// The per-level pair lists, as bc_lists builds the vertex lists (the same
// passes, shared counts with use_shared, else a global atomic per pair):
// block i takes the items of vertices [i * chunk, (i + 1) * chunk), a thread
// per item p with lev_t[p] = d >= 0. scatter == 0: counts[d] += 1;
// scatter == 1: list[the next position of level d] = p.
__global__ void bc_pair_lists(const int* __restrict__ lev_t, long long n, int b,
                              long long chunk, int levels, int use_shared, int scatter,
                              unsigned long long* __restrict__ counts,
                              long long* __restrict__ list) {
  extern __shared__ unsigned long long sh[];
  const long long p0 = (long long)blockIdx.x * chunk * b;
  const long long p1 = min(n * (long long)b, p0 + chunk * (long long)b);
  for (int pass = use_shared ? 0 : 1; pass < 2; ++pass) {
    if (!bc::begin_pass(pass, use_shared, scatter, levels, sh, counts)) return;
    for (long long p = p0 + threadIdx.x; p < p1; p += blockDim.x) {
      const int d = lev_t[p];
      if (d < 0) continue;
      if (pass == 0) {
        atomicAdd(sh + d, 1ull);
      } else if (!scatter) {
        atomicAdd(counts + d, 1ull);
      } else {
        const unsigned long long at =
            use_shared ? atomicAdd(sh + d, 1ull) : atomicAdd(counts + d, 1ull);
        list[at] = p;
      }
    }
  }
}

// Forward, level d, a thread per pair p = v * b + s of list[begin:end]:
// d == 0: sigma = 1; else, unless v's in-degree > heavy
// (bc_pair_forward_heavy), sigma[v, s] = the sum over in-neighbours u
// (tindptr/tindices, in order) with lev_t[u, s] == d - 1 of sigma[u, s].
// Four edges at a time: their indices, then their levels, then the sigmas
// of those one level up, loaded before any is added (the loads in flight
// together), added in CSR order.
template <typename I>
__global__ void bc_pair_forward(const I* __restrict__ tindptr, const I* __restrict__ tindices,
                                const int* __restrict__ lev_t, double* __restrict__ sv,
                                const long long* __restrict__ list, long long begin,
                                long long end, int b, int d, long long heavy) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long bb = b;
  for (long long i = begin + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < end;
       i += stride) {
    const long long p = list[i];
    if (d == 0) {
      sv[p] = 1.0;
      continue;
    }
    const long long v = p / bb;
    const long long s = p - v * bb;
    const long long e0 = tindptr[v], e1 = tindptr[v + 1];
    if (e1 - e0 > heavy) continue;  // bc_pair_forward_heavy
    const int up = d - 1;
    double acc = 0.0;
    long long e = e0;
    for (; e + 4 <= e1; e += 4) {
      int l[4];
      double x[4];
      bc::gather4(tindices + e, bb, s, lev_t, sv, up, l, x);
#pragma unroll
      for (int k = 0; k < 4; ++k) acc += x[k];
    }
    for (; e < e1; ++e) {
      const long long q = (long long)tindices[e] * bb + s;
      if (lev_t[q] == up) acc += sv[q];
    }
    sv[p] = acc;
  }
}

// Backward, level e (deepest first, down to 1), a thread per pair p = u * b
// + s of list[begin:end]: unless e < deepest and u's out-degree > heavy
// (bc_pair_backward_heavy), a = the sum over out-neighbours w (indptr/
// indices, in order) with lev_t[w, s] == e + 1 of c = sigma[u, s] * W[w, s]
// (none at the deepest level: the row is not read); then W[u, s] = (1 + a) /
// sigma[u, s] in place of sigma and delta[p] = a. Four edges at a time, as
// bc_pair_forward.
template <typename I>
__global__ void bc_pair_backward(const I* __restrict__ indptr, const I* __restrict__ indices,
                                 const int* __restrict__ lev_t, double* __restrict__ sv,
                                 const long long* __restrict__ list, long long begin,
                                 long long end, int b, int e, int deepest, long long heavy,
                                 double* __restrict__ delta) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long bb = b;
  for (long long i = begin + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < end;
       i += stride) {
    const long long p = list[i];
    const long long u = p / bb;
    const long long s = p - u * bb;
    double a = 0.0;
    if (e < deepest) {
      const long long e0 = indptr[u], e1 = indptr[u + 1];
      if (e1 - e0 > heavy) continue;  // bc_pair_backward_heavy
      const double sg = sv[p];
      const int down = e + 1;
      long long j = e0;
      for (; j + 4 <= e1; j += 4) {
        int l[4];
        double w[4];
        bc::gather4(indices + j, bb, s, lev_t, sv, down, l, w);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          if (l[k] == down) a += sg * w[k];
        }
      }
      for (; j < e1; ++j) {
        const long long q = (long long)indices[j] * bb + s;
        if (lev_t[q] == down) a += sg * sv[q];
      }
    }
    sv[p] = (1.0 + a) / sv[p];
    delta[p] = a;
  }
}

// The heavy rows in pair mode, forward, level d > 0 (beside
// bc_pair_forward's launch of the level): a warp per (heavy vertex h, source
// s), item w = h * b + s of heavies * b (hv[h]: in-degree > heavy), unless
// lev_t[v, s] != d: lane L sums the row's edges L, L + 32, ... as
// bc_pair_forward sums a row, then bc::warp_sum; lane 0 writes sigma.
template <typename I>
__global__ void bc_pair_forward_heavy(const I* __restrict__ tindptr,
                                      const I* __restrict__ tindices,
                                      const int* __restrict__ lev_t, double* __restrict__ sv,
                                      const long long* __restrict__ hv, long long heavies, int b,
                                      int d) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long bb = b;
  for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < heavies * bb;
       w += stride) {
    const long long h = w / bb;
    const long long s = w - h * bb;
    const long long v = hv[h];
    const long long p = v * bb + s;
    if (lev_t[p] != d) continue;  // uniform: w is the warp's
    const long long e0 = tindptr[v], e1 = tindptr[v + 1];
    double acc = 0.0;
    for (long long e = e0 + lane; e < e1; e += 32) {
      const long long q = (long long)tindices[e] * bb + s;
      if (lev_t[q] == d - 1) acc += sv[q];
    }
    acc = bc::warp_sum(acc);
    if (lane == 0) sv[p] = acc;
  }
}

// The heavy rows in pair mode, backward, level e < deepest (beside
// bc_pair_backward's launch of the level): a warp per (heavy vertex h,
// source s) as bc_pair_forward_heavy (hv[h]: out-degree > heavy): lane L
// sums c = sigma[u, s] * W[w, s] over the row's edges L, L + 32, ... into
// the level e + 1, then bc::warp_sum; lane 0 writes W[u, s] = (1 + a) /
// sigma[u, s] in place and delta[p] = a.
template <typename I>
__global__ void bc_pair_backward_heavy(const I* __restrict__ indptr,
                                       const I* __restrict__ indices,
                                       const int* __restrict__ lev_t, double* __restrict__ sv,
                                       const long long* __restrict__ hv, long long heavies,
                                       int b, int e, double* __restrict__ delta) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  const long long bb = b;
  for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < heavies * bb;
       w += stride) {
    const long long h = w / bb;
    const long long s = w - h * bb;
    const long long u = hv[h];
    const long long p = u * bb + s;
    if (lev_t[p] != e) continue;  // uniform: w is the warp's
    const double sg = sv[p];
    const long long e0 = indptr[u], e1 = indptr[u + 1];
    double a = 0.0;
    for (long long j = e0 + lane; j < e1; j += 32) {
      const long long q = (long long)indices[j] * bb + s;
      if (lev_t[q] == e + 1) a += sg * sv[q];
    }
    a = bc::warp_sum(a);  // every lane has read sigma[u, s] before lane 0 writes W
    if (lane == 0) {
      sv[p] = (1.0 + a) / sg;
      delta[p] = a;
    }
  }
}

// After pair mode's last backward level: a warp per vertex u, lane L adds
// delta[u, L] and delta[u, L + 32] where their level is >= 1 (the others are
// never written: stale or uninitialised, selected away, never multiplied),
// then bc::warp_sum; lane 0 adds it to total[u].
__global__ void bc_pair_total(const int* __restrict__ lev_t, const double* __restrict__ delta,
                              long long n, int b, double* __restrict__ total) {
  const int lane = threadIdx.x & 31;
  const long long stride = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long u = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; u < n;
       u += stride) {
    int l0, l1;
    bc::row_levels(lev_t, u, b, lane, l0, l1);
    const long long row = u * (long long)b;
    const double x0 = l0 >= 1 ? delta[row + lane] : 0.0;
    const double x1 = l1 >= 1 ? delta[row + lane + 32] : 0.0;
    const double t = bc::warp_sum(x0 + x1);
    if (lane == 0) total[u] += t;
  }
}

template __global__ void bc_pair_forward<int>(const int*, const int*, const int*, double*,
                                              const long long*, long long, long long, int, int,
                                              long long);
template __global__ void bc_pair_forward<long long>(const long long*, const long long*,
                                                    const int*, double*, const long long*,
                                                    long long, long long, int, int, long long);
template __global__ void bc_pair_backward<int>(const int*, const int*, const int*, double*,
                                               const long long*, long long, long long, int, int,
                                               int, long long, double*);
template __global__ void bc_pair_backward<long long>(const long long*, const long long*,
                                                     const int*, double*, const long long*,
                                                     long long, long long, int, int, int,
                                                     long long, double*);
template __global__ void bc_pair_forward_heavy<int>(const int*, const int*, const int*, double*,
                                                    const long long*, long long, int, int);
template __global__ void bc_pair_forward_heavy<long long>(const long long*, const long long*,
                                                          const int*, double*, const long long*,
                                                          long long, int, int);
template __global__ void bc_pair_backward_heavy<int>(const int*, const int*, const int*, double*,
                                                     const long long*, long long, int, int,
                                                     double*);
template __global__ void bc_pair_backward_heavy<long long>(const long long*, const long long*,
                                                           const int*, double*,
                                                           const long long*, long long, int, int,
                                                           double*);
