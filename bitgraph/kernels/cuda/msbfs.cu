// Multi-source BFS (iBFS) on the GPU: the CUDA twin of
// kernels/cpu/msbfs.py::batch_run. Up to 64 BFSs share one traversal: one
// uint64 status word per vertex, bit b for the b-th source of the batch.
//
// State (device arrays, all zero between batches):
//   seen[n]      bits that have reached v;
//   planes[R][n] plane L % R: the bits that reached v at level L; the
//                frontier (cur) of level L + 1's steps, which OR the new
//                bits into plane (L + 1) % R (nxt). A plane stays until
//                msbfs_flush writes its levels out (every R - 1 levels, or
//                once at the end: graphs of fewer than R levels);
//   touched[n/32] uint32 bitmap of the vertices whose nxt word became
//                non-zero this level (zero between levels);
//   wtouched[n/32] the same, OR-ed over the levels not written out yet;
//   queue        the joint frontier: vertices with cur != 0, each once;
//   ctr[3][CTR]  per-level counters, three slots used in turn: level L's
//                settle writes slot L%3 (and zeroes slot (L+1)%3 for the
//                next one), level L's steps read slot (L-1)%3;
//   stats[256]   per source: vertices reached, sum and max of their levels;
//                then the queue sizes of levels 0..63 (the first levels'
//                final flush, captured with them, reads where they ended).
//
// A level is a pull step, a push step, then msbfs_settle, all launched
// without a host sync: the direction is chosen per source on the device.
// Past the first settings.msbfs_cuda.graph_levels levels they run as a
// replayed CUDA graph (by default push steps and settles only, whose
// settles then choose top-down for all);
// the graph's kernels take the same arguments at every replay, so `level`
// and `first` count from a base in the args buffer (A_BASE) that
// msbfs_advance moves on, and the flush finds the result's address there.
// The settle's last block looks at each source's new frontier: a source
// whose frontier has more than alpha_m out-edges goes bottom-up (its bit in
// the pull mask), the others top-down (the push mask) -- unless the push
// would walk more than all_pull_m edges (the union of the push sources'
// frontiers, bounded by the sum of their out-edges), when every source goes
// bottom-up. So a source pulls only around its own peak level, where the
// early exit works, and a vertex's scan never waits for bits of sources
// whose frontiers are still small (XBFS's rule, per source):
//   - msbfs_pull (bottom-up over the transpose CSR): a group of G lanes per
//     vertex with pull bits missing ORs the in-neighbours' cur words and
//     stops once every needed bit (pull & ~seen[v]) is set; writes nxt[v]
//     (its own word: no atomic; it runs before the push);
//   - msbfs_push (top-down, the push bits only): nxt[v] |= cur[u] & push &
//     ~seen[v] over the out-edges of the queue vertices with push bits,
//     block-level edge balancing (a block takes up to 256 queue vertices,
//     scans their degrees and hands one edge to each thread: hubs do not
//     serialise a warp);
//   - msbfs_settle: one pass over `touched` (cleared as read, OR-ed into
//     wtouched; a warp skips 1,024 vertices with one read when none is
//     touched), builds the next queue (one atomicAdd per block and round
//     of 8,192 vertices: ascending inside each), then for each new vertex
//     seen |= nxt, per-bit counts and out-edges, the OR of the new frontier
//     (active) and its out-edges (mf) into ctr. A settle after a level with
//     nothing to do returns at once, so the host may launch levels past the
//     last one.
// The levels are not written per level: a sector of the (sources x n)
// result would then be written partially at every level that reaches one
// of its 8 vertices (the settles then took 2.3 ms of 5.8 on kron-22), but
// by msbfs_flush from the planes, each
// sector once per flush.
// Both directions compute the same bits (the union of the frontier bits of
// the in-neighbours, less seen), so the direction never changes results.
//
// I is the index type of the CSR arrays and of the queue (int or long long).

#include "warp.cuh"
#include "grid.cuh"

typedef unsigned long long u64;

namespace msbfs {
// generated (constants.py): BLOCK, CHUNK (a queue vertex with more out-edges
// is also listed as chunks of CHUNK edges, one block's work each), the
// counter slot C_NQ, C_MF, C_ACTIVE, C_SCANNED, C_PULL, C_PUSH and its size
// CTR, the statistics S_COUNT, S_TOTAL, S_ECC, S_QUEUE, S_LEVELS and their
// size STATS, the arguments A_SOURCES, A_ROWS, A_BASE, A_LEVELS and ARGS,
// COOP_THREADS (msbfs_coop's block)
#include "msbfs_constants.cuh"
constexpr int WARPS = BLOCK / 32;
constexpr unsigned FULL = 0xffffffffu;
// in-edges a lane of the CSR bottom-up reads before its group checks the
// early exit
constexpr int PULL_UNROLL = 4;
// out-edges a thread of the push walks with their loads in flight together
constexpr int PUSH_UNROLL = 4;
// counter slot: queue size, its out-edges, OR of its words, in-edges the
// pull scanned, the next level's pull and push masks (generated), settle
// blocks done, chunk entries, per-bit new vertices and their out-edges
constexpr int C_DONE = 6, C_NCHUNK = 7, C_CNT = 8, C_MFB = 72;
constexpr int CHUNK_BITS = 24;  // an entry: vertex << CHUNK_BITS | chunk
// stats (generated): per bit vertices reached, sum of their levels,
// largest level; the queue size of each of levels 0 .. S_LEVELS - 1
// a vertex's out-degree as added into the per-bit sums, at most: a word's
// 32 add up in 32 bits (a larger frontier vertex turns its sources
// bottom-up either way)
constexpr unsigned DEG_CAP = 1u << 26;
// the settle adds a word's bits one by one (shared atomics) when no lane's
// word has more than this many, and by transposes otherwise
constexpr int SPARSE_BITS = 4;
// the batch's device arguments (int64 words, generated A_*): sources,
// their rows of the result, the level base (a kernel's `level` and
// `first` count from it: the replayed levels of the launcher's CUDA graph are
// captured once and run at every base), and the result's address (so that
// a replay writes the result of its own call)

__device__ __forceinline__ u64 warp_or(u64 x) {
  const unsigned lo = __reduce_or_sync(FULL, (unsigned)x);
  const unsigned hi = __reduce_or_sync(FULL, (unsigned)(x >> 32));
  return ((u64)hi << 32) | lo;
}

__device__ __forceinline__ long long warp_sum(long long x) {
  for (int d = 16; d > 0; d >>= 1) x += __shfl_down_sync(FULL, x, d);
  return x;
}

// inclusive scan of x over the block (every thread calls it); `sums` is
// WARPS words of shared memory. Returns the inclusive prefix; *total gets the
// block's sum.
template <typename T>
__device__ __forceinline__ T block_scan(T x, T* sums, T* total) {
  const int lane = threadIdx.x & 31, wid = threadIdx.x >> 5;
  const T incl = bg::warp_inclusive_scan(x);
  if (lane == 31) sums[wid] = incl;
  __syncthreads();
  if (wid == 0) {
    const T s = bg::warp_inclusive_scan(lane < WARPS ? sums[lane] : (T)0);
    if (lane < WARPS) sums[lane] = s;  // inclusive over warps
  }
  __syncthreads();
  const T before = wid ? sums[wid - 1] : (T)0;
  *total = sums[WARPS - 1];
  __syncthreads();  // sums reusable by the caller's next scan
  return before + incl;
}

// 32 x 32 bit transpose over the warp: lane i holds row i on entry; on
// return lane c holds column c (its bit i = bit c of lane i's row). Five
// butterfly stages, each swapping the off-diagonal blocks of size j.
__device__ __forceinline__ unsigned transpose32(unsigned x, int lane) {
  const unsigned keep[5] = {0x0000FFFFu, 0x00FF00FFu, 0x0F0F0F0Fu, 0x33333333u, 0x55555555u};
#pragma unroll
  for (int i = 0, j = 16; i < 5; ++i, j >>= 1) {
    const unsigned m = keep[i];
    const unsigned y = __shfl_xor_sync(FULL, x, j);
    x = (lane & j) ? ((x & ~m) | ((y & ~m) >> j)) : ((x & m) | ((y & m) << j));
  }
  return x;
}

// the 4 bits of x >> s (s a multiple of 4) to bits t, 8 + t, 16 + t and
// 24 + t: one multiply (bit j of a nibble times 0x204081 lands on bit 8j,
// the four shifted copies do not overlap) and one mask, so that a word of
// 4 bytes gets the t-th bit of 4 bit-fields in two instructions
template <int t>
__device__ __forceinline__ unsigned nibble_to_bytes(unsigned x, int s) {
  return (((x >> s) & 0xFu) * (0x204081u << t)) & (0x01010101u << t);
}

// byte i of x, sign-extended (prmt's sign mode: 0xFF is -1)
template <int i>
__device__ __forceinline__ int sext_byte(unsigned x) {
  int r;
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "n"(0x8880 + 0x1111 * i));
  return r;
}

// levels[ro[i] + v] for 8 bits: byte i of word[i / 4], sign-extended, is
// the level (or -1) when ADD is false, the offset from first (or -1) when
// it is true; ALL: every store is made (no predicate), else those of wq
template <bool ADD, bool ALL>
__device__ __forceinline__ void store8(int* out, const long long* ro, const unsigned* word,
                                       int first, unsigned wq) {
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    int o = (i & 3) == 0 ? sext_byte<0>(word[i >> 2])
          : (i & 3) == 1 ? sext_byte<1>(word[i >> 2])
          : (i & 3) == 2 ? sext_byte<2>(word[i >> 2])
                         : sext_byte<3>(word[i >> 2]);
    if (ADD) o = (o + first) | (o >> 31);
    if (ALL || ((wq >> i) & 1u)) out[ro[i]] = o;
  }
}

// 8 bytes global -> shared, asynchronously (cp.async; .ca: .cg moves 16
// bytes only); commit closes a group of them, wait_prior waits for every
// group but the last one committed
__device__ __forceinline__ void cp_async8(u64* dst, const u64* src) {
  const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(src) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_prior() {
  asm volatile("cp.async.wait_group 1;\n" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

// nxt[v] |= bits, given old, a read of nxt[v] made before (in flight with
// the caller's other loads). Both atomics return nothing (no round trip to
// wait for): a thread that read 0 marks v in the touched bitmap, and so v
// is marked whenever nxt[v] became non-zero (the plane starts the level at
// 0, so the first OR into it was made by a thread that read 0; a mark
// made twice is the same mark)
__device__ __forceinline__ void or_next(u64* nxt, unsigned* touched, long long v, u64 bits,
                                        u64 old) {
  if (!(bits & ~old)) return;  // nothing new: skip the atomic
  atomicOr(nxt + v, bits);
  if (!old) atomicOr(touched + (v >> 5), 1u << (v & 31));
}

// the push's edges, U at a time: the U targets, then their seen and nxt
// words, all in flight together; then nxt[v] |= f & ~seen[v] (f = 0: an
// edge to drop)
template <typename I, int U>
__device__ __forceinline__ void push_round(const I* __restrict__ indices, const I* pos,
                                           const u64* f, const u64* __restrict__ seen, u64* nxt,
                                           unsigned* touched) {
  long long v[U];
#pragma unroll
  for (int u = 0; u < U; ++u) v[u] = (long long)__ldcs(indices + pos[u]);
  u64 sn[U], old[U];
#pragma unroll
  for (int u = 0; u < U; ++u) {
    sn[u] = seen[v[u]];
    old[u] = nxt[v[u]];  // a stale word is a subset: or_next stays right
  }
#pragma unroll
  for (int u = 0; u < U; ++u) or_next(nxt, touched, v[u], f[u] & ~sn[u], old[u]);
}
}  // namespace msbfs

// level 0: bit b at sources[b] (one block of 64 threads)
template <typename I>
__global__ void msbfs_start(const long long* __restrict__ args, int k, u64* nxt,
                            unsigned* touched, long long* ctr, long long* stats) {
  const long long* const sources = args + msbfs::A_SOURCES;
  const int b = threadIdx.x;
  // the batch's counters (three slots) and statistics start at 0
  for (int i = b; i < 3 * msbfs::CTR; i += blockDim.x) ctr[i] = 0;
  for (int i = b; i < msbfs::STATS; i += blockDim.x) stats[i] = 0;
  if (b < k) {
    const long long s = sources[b];
    atomicOr(nxt + s, 1ull << b);
    atomicOr(touched + (s >> 5), 1u << (s & 31));
  }
}

template <typename I>
__global__ void __launch_bounds__(msbfs::BLOCK)
msbfs_settle(unsigned* __restrict__ touched, unsigned* __restrict__ wtouched,
             const I* __restrict__ indptr, const u64* __restrict__ nxt, u64* __restrict__ seen,
             I* __restrict__ queue, u64* __restrict__ chunks, long long* __restrict__ ctr,
             long long* __restrict__ ctr_next, const long long* __restrict__ ctr_prev,
             long long* __restrict__ stats, const long long* __restrict__ args, long long n, int k,
             int level_rel, long long alpha_m, long long all_pull_m) {
  using namespace msbfs;
  __shared__ unsigned cnt[64];
  __shared__ u64 mfb[64];
  __shared__ u64 s_act;
  __shared__ long long s_mf, s_base;
  __shared__ unsigned s_tot[WARPS];
  __shared__ bool s_last;
  // lane l's running count and out-edges of bits l and l + 32 (this warp)
  unsigned cnt_lo = 0, cnt_hi = 0;
  u64 mfb_lo = 0, mfb_hi = 0;
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  if (blockIdx.x == 0 && tid < CTR) ctr_next[tid] = 0;
  // nothing ran this level (past the last one): nothing was touched
  if ((level_rel > 0 || args[A_BASE] > 0) && ctr_prev[C_PULL] == 0 && ctr_prev[C_PUSH] == 0)
    return;
  if (tid < 64) {
    cnt[tid] = 0;
    mfb[tid] = 0;
  }
  if (tid == 0) {
    s_act = 0;
    s_mf = 0;
  }
  __syncthreads();
  u64 act = 0;
  long long mf = 0;
  // a warp reads 32 touched words (1,024 vertices) at once and skips them
  // when all are zero (a sparse level costs one read per 1,024 vertices);
  // the queue positions come from one atomicAdd per block and round (its
  // warps' groups: ascending inside them), the totals below from one atomic
  // per block (a mesh touches nearly every group each level, and on
  // grid-2048 the same-address atomics of every group and warp make a
  // settle with little work take 22 us); then a lane per vertex of each
  // non-zero word
  const long long nwords = (n + 31) / 32;
  const long long warps = (long long)gridDim.x * WARPS;
  for (long long g0 = (long long)blockIdx.x * WARPS * 32; g0 < nwords; g0 += warps * 32) {
    const long long w0 = g0 + (long long)wid * 32;  // this warp's group
    const long long wi = w0 + lane;
    const unsigned wl = wi < nwords ? touched[wi] : 0u;
    const unsigned nz = __ballot_sync(FULL, wl != 0u);
    // a word's loads (nxt, seen, row bounds; the touched lanes' only: on a
    // mesh a word holds one or two, and all 32 lanes' loads read 41 MB a
    // settle on grid-2048) are issued while the word before is processed,
    // the first word's before the queue's atomic (kron-22's dense settles:
    // 107 us against 113; they are bound by instructions, the per-bit sums below)
    unsigned rest = nz;
    int j = nz ? __ffs(rest) - 1 : 0;
    rest &= rest - 1;
    long long vc = min((w0 + j) * 32 + lane, n - 1);
    bool h = (__shfl_sync(FULL, wl, j) >> lane) & 1u;
    u64 l_nxt = h ? nxt[vc] : 0ull, l_seen = h ? seen[vc] : 0ull;
    I l_p0 = h ? indptr[vc] : (I)0, l_p1 = h ? indptr[vc + 1] : (I)0;
    const unsigned cw = __popc(wl);
    const unsigned incl = bg::warp_inclusive_scan(cw);
    if (lane == 31) s_tot[wid] = incl;
    __syncthreads();  // the round is block-uniform: every warp reaches it
    if (tid == 0) {
      unsigned sum = 0;
      for (int x = 0; x < WARPS; ++x) {
        const unsigned t = s_tot[x];
        s_tot[x] = sum;
        sum += t;
      }
      s_base = sum ? (long long)atomicAdd((u64*)(ctr + C_NQ), (u64)sum) : 0;
    }
    __syncthreads();
    const long long base = s_base + s_tot[wid];
    __syncthreads();  // s_tot and s_base are rewritten next round
    if (!nz) continue;  // warp-uniform
    if (wl) {
      touched[wi] = 0u;
      wtouched[wi] |= wl;  // this warp's word: the flush's list
    }
    const unsigned excl = incl - cw;
    for (;;) {  // warp-uniform
      const u64 nw_j = l_nxt, seen_j = l_seen;
      const long long d_j = (long long)l_p1 - (long long)l_p0;
      const int jn = rest ? __ffs(rest) - 1 : j;  // no next word: j again (cached)
      const bool more = rest != 0u;
      rest &= rest - 1;
      vc = min((w0 + jn) * 32 + lane, n - 1);
      const unsigned w = __shfl_sync(FULL, wl, j);
      h = (__shfl_sync(FULL, wl, jn) >> lane) & 1u;
      l_nxt = h ? nxt[vc] : 0ull;
      l_seen = h ? seen[vc] : 0ull;
      l_p0 = h ? indptr[vc] : (I)0;
      l_p1 = h ? indptr[vc + 1] : (I)0;
      const long long at = base + __shfl_sync(FULL, excl, j);
      const long long v = (w0 + j) * 32 + lane;
      const bool hit = (w >> lane) & 1u;
      u64 nw = 0;
      unsigned deg = 0;
      if (hit) {
        queue[at + __popc(w & ((1u << lane) - 1u))] = (I)v;
        nw = nw_j;
        seen[v] = seen_j | nw;
        act |= nw;
        const long long d = d_j;
        mf += d;
        deg = (unsigned)min(d, (long long)DEG_CAP);
        if (d > CHUNK && nw) {
          const long long nch = (d + CHUNK - 1) / CHUNK;
          const long long c0 = (long long)atomicAdd((u64*)(ctr + C_NCHUNK), (u64)nch);
          for (long long c = 0; c < nch; ++c) chunks[c0 + c] = ((u64)v << CHUNK_BITS) | (u64)c;
        }
      }
      // per bit: the new vertices and their out-edges. Where every lane's
      // word has at most SPARSE_BITS bits (a mesh's: its 64 sources rarely
      // arrive together), each bit is added into the block's sums by
      // shared atomics. Otherwise lane c gets bit c (and c + 32) of the
      // warp's 32 words by a transpose, and the out-edges are summed
      // bit-sliced: sum over t of 2^t * |vertices with bit c and bit t of
      // their degree| (one ballot per degree bit, not a warp sum per
      // source bit, which would dominate the settle on kron; on grid-2048 the
      // transposes of one-bit words cost a settle 17 M instructions)
      const int pmax = __reduce_max_sync(FULL, (unsigned)__popcll(nw));
      if (pmax && pmax <= SPARSE_BITS) {
        for (u64 x = nw; x; x &= x - 1) {
          const int b = __ffsll((long long)x) - 1;
          atomicAdd(&cnt[b], 1u);
          atomicAdd(&mfb[b], (u64)deg);
        }
      } else if (pmax) {
        const unsigned tlo = transpose32((unsigned)nw, lane);
        const unsigned thi = transpose32((unsigned)(nw >> 32), lane);
        cnt_lo += __popc(tlo);
        cnt_hi += __popc(thi);
        const int dbits = 32 - __clz(__reduce_max_sync(FULL, deg));
        unsigned sum_lo = 0, sum_hi = 0;  // this word's: < 32 * DEG_CAP
        for (int t = 0; t < dbits; ++t) {
          const unsigned d = __ballot_sync(FULL, (deg >> t) & 1u);
          sum_lo += (unsigned)__popc(tlo & d) << t;
          sum_hi += (unsigned)__popc(thi & d) << t;
        }
        mfb_lo += sum_lo;
        mfb_hi += sum_hi;
      }
      if (!more) break;
      j = jn;
    }
  }
  act = warp_or(act);
  mf = warp_sum(mf);
  if (lane == 0) {
    if (act) atomicOr(&s_act, act);
    if (mf) atomicAdd((u64*)&s_mf, (u64)mf);
  }
  if (cnt_lo) {
    atomicAdd(&cnt[lane], cnt_lo);
    atomicAdd(&mfb[lane], mfb_lo);
  }
  if (cnt_hi) {
    atomicAdd(&cnt[lane + 32], cnt_hi);
    atomicAdd(&mfb[lane + 32], mfb_hi);
  }
  __syncthreads();
  if (tid < k && cnt[tid]) {
    atomicAdd((u64*)(ctr + C_CNT + tid), (u64)cnt[tid]);
    atomicAdd((u64*)(ctr + C_MFB + tid), mfb[tid]);
  }
  if (tid == 64) {
    if (s_act) atomicOr((u64*)(ctr + C_ACTIVE), s_act);
    if (s_mf) atomicAdd((u64*)(ctr + C_MF), (u64)s_mf);
  }
  // the last block to finish reads the level's totals: statistics, and the
  // next level's direction per source
  __threadfence();
  __syncthreads();
  if (tid == 0) s_last = atomicAdd((u64*)(ctr + C_DONE), 1ull) == (u64)gridDim.x - 1;
  __syncthreads();
  if (!s_last || wid != 0) return;
  __threadfence();
  const volatile long long* c = ctr;
  const int level = level_rel + (int)args[A_BASE];
  const u64 active = (u64)c[C_ACTIVE];
  u64 pull = 0, push_edges = 0;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int b = lane + 32 * h;
    const long long nb = b < k ? c[C_CNT + b] : 0;
    const long long eb = b < k ? c[C_MFB + b] : 0;
    if (nb) {
      stats[S_COUNT + b] += nb;
      stats[S_TOTAL + b] += nb * level;
      stats[S_ECC + b] = level;
    }
    const bool on = (active >> b) & 1ull;
    const unsigned up = __ballot_sync(FULL, on && eb > alpha_m);
    pull |= (u64)up << (32 * h);
    if (on && eb <= alpha_m) push_edges += (u64)eb;
  }
  push_edges = (u64)warp_sum((long long)push_edges);
  push_edges = min(push_edges, (u64)c[C_MF]);  // the union walks each vertex once
  if ((long long)push_edges > all_pull_m) pull = active;
  if (lane == 0) {
    ctr[C_PULL] = (long long)pull;
    ctr[C_PUSH] = (long long)(active & ~pull);
    if (level < S_LEVELS) stats[S_QUEUE + level] = c[C_NQ];
  }
}

// top-down over the queue (its size in ctr_prev) for the push bits: a block
// takes per_block (<= BLOCK) queue vertices, scans the out-degrees of
// those with push bits and walks their edges one per thread (binary search
// of the edge's vertex in shared memory); small queues take fewer vertices
// per block, so that their edges spread over the GPU (per_block: a power of
// 2 that still gives every multiprocessor (sms) four blocks of work)
template <typename I>
__global__ void __launch_bounds__(msbfs::BLOCK)
msbfs_push(const I* __restrict__ queue, const u64* __restrict__ chunks,
           const I* __restrict__ indptr, const I* __restrict__ indices,
           const u64* __restrict__ cur, const u64* __restrict__ seen, u64* nxt,
           unsigned* touched, const long long* __restrict__ ctr_prev, int sms) {
  using namespace msbfs;
  // a block's edges: at most BLOCK * CHUNK, int offsets (edge positions
  // and offsets I wide: fewer instructions for int graphs)
  __shared__ int s_off[BLOCK + 1];
  __shared__ I s_start[BLOCK];
  __shared__ u64 s_f[BLOCK];
  __shared__ int sums[WARPS];
  const u64 mask = (u64)ctr_prev[C_PUSH];
  const long long nq = ctr_prev[C_NQ];
  if (!mask || !nq) return;
  int per_block = 1;
  while (per_block < BLOCK && 4LL * per_block * sms <= nq) per_block *= 2;
  const int tid = threadIdx.x;
  for (long long q0 = (long long)blockIdx.x * per_block; q0 < nq;
       q0 += (long long)gridDim.x * per_block) {
    const long long qi = q0 + tid;
    int deg = 0;
    if (tid < per_block && qi < nq) {
      const long long u = (long long)queue[qi];
      const u64 f = cur[u] & mask;
      s_f[tid] = f;
      if (f) {
        const I st = indptr[u];
        const I d = indptr[u + 1] - st;
        deg = d > (I)CHUNK ? 0 : (int)d;  // a longer row: its chunks, below
        s_start[tid] = st;
      }
    }
    int tot;
    const int incl = block_scan<int>(deg, sums, &tot);
    s_off[tid + 1] = incl;
    if (tid == 0) s_off[0] = 0;
    __syncthreads();
    // PUSH_UNROLL edges a thread at a time, each stage's loads all issued
    // before any is used (an edge past tot reads edge tot - 1 and drops it)
    for (int e0 = tid; e0 < tot; e0 += BLOCK * PUSH_UNROLL) {
      I pos[PUSH_UNROLL];
      u64 f[PUSH_UNROLL];
#pragma unroll
      for (int u = 0; u < PUSH_UNROLL; ++u) {
        const int e = min(e0 + u * BLOCK, tot - 1);
        int lo = 0, hi = BLOCK - 1;  // the last j with s_off[j] <= e
        while (lo < hi) {
          const int mid = (lo + hi + 1) >> 1;
          if (s_off[mid] <= e) lo = mid;
          else hi = mid - 1;
        }
        pos[u] = s_start[lo] + (I)(e - s_off[lo]);
        f[u] = e0 + u * BLOCK < tot ? s_f[lo] : 0ull;
      }
      push_round<I, PUSH_UNROLL>(indices, pos, f, seen, nxt, touched);
    }
    __syncthreads();  // shared arrays rewritten by the next chunk
  }
  // the hubs: a block per chunk of CHUNK edges
  const long long nch = ctr_prev[C_NCHUNK];
  for (long long c = blockIdx.x; c < nch; c += gridDim.x) {
    const u64 ent = chunks[c];
    const long long u = (long long)(ent >> CHUNK_BITS);
    const u64 f = cur[u] & mask;
    if (!f) continue;  // block-uniform
    const I e0 = indptr[u] + (I)(ent & ((1u << CHUNK_BITS) - 1)) * (I)CHUNK;
    const I e1 = min(e0 + (I)CHUNK, indptr[u + 1]);
    for (I e = e0 + tid; e < e1; e += BLOCK * PUSH_UNROLL) {
      I pos[PUSH_UNROLL];
      u64 fu[PUSH_UNROLL];
#pragma unroll
      for (int u = 0; u < PUSH_UNROLL; ++u) {
        pos[u] = min(e + (I)(u * BLOCK), e1 - 1);
        fu[u] = e + u * BLOCK < e1 ? f : 0ull;
      }
      push_round<I, PUSH_UNROLL>(indices, pos, fu, seen, nxt, touched);
    }
  }
}

// bottom-up over the transpose CSR for the pull bits: `group` lanes (a
// power of 2 up to 32) per vertex, the group ORs a round of group *
// PULL_UNROLL in-neighbours' words at a time and stops once every needed
// bit is set. Writes nxt[v] (its own word: no atomic; the push runs
// after), marks touched, adds the in-edges read to ctr[C_SCANNED]
template <typename I>
__global__ void __launch_bounds__(msbfs::BLOCK)
msbfs_pull(const I* __restrict__ tindptr, const I* __restrict__ tindices,
           const u64* __restrict__ cur, const u64* __restrict__ seen, u64* __restrict__ nxt,
           unsigned* __restrict__ touched, long long n, int group,
           const long long* __restrict__ ctr_prev, long long* __restrict__ ctr) {
  using namespace msbfs;
  const u64 pull = (u64)ctr_prev[C_PULL];
  if (!pull) return;
  const int lane = threadIdx.x & 31;
  const int gl = lane & (group - 1);  // lane in its group
  const unsigned gmask = (group == 32) ? FULL : (((1u << group) - 1) << (lane & ~(group - 1)));
  const long long per_warp = 32 / group;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  // edge offsets and counts are I wide: for int graphs, 32-bit arithmetic
  // (kron-22's biggest pull: 127 M instructions and 324 us against 167 M
  // and 394 us in 64-bit)
  I scanned = 0;
  const long long stride = warps * per_warp;
  // the next vertex's seen word and row bounds are loaded before this
  // one's row is scanned: its scan does not start with two round trips
  long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per_warp;
  u64 seen_v = ~0ull;
  I b0 = 0, b1 = 0;
  if (base + lane / group < n) {
    const long long v = base + lane / group;
    seen_v = seen[v];
    b0 = tindptr[v];
    b1 = tindptr[v + 1];
  }
  for (; base < n; base += stride) {
    const long long v = base + lane / group;
    const u64 need = pull & ~seen_v;
    const I e0 = b0, e1 = b1;
    seen_v = ~0ull;
    if (v + stride < n) {
      seen_v = seen[v + stride];
      b0 = tindptr[v + stride];
      b1 = tindptr[v + stride + 1];
    }
    u64 acc = 0;
    if (need) {  // group-uniform
      for (I e = e0; e < e1; e += group * PULL_UNROLL) {
        // all loads in flight before any use (unconditional: past the row's
        // end a lane reads its last edge again, and drops the word); the
        // edges stream (evict-first: __ldcs), the frontier words are
        // gathered and should stay in L2
        I src[PULL_UNROLL];
#pragma unroll
        for (int u = 0; u < PULL_UNROLL; ++u)
          src[u] = __ldcs(tindices + min(e + (I)(u * group + gl), e1 - 1));
        u64 got[PULL_UNROLL];
#pragma unroll
        for (int u = 0; u < PULL_UNROLL; ++u) got[u] = __ldg(cur + src[u]);
#pragma unroll
        for (int u = 0; u < PULL_UNROLL; ++u)
          if (e + (I)(u * group + gl) < e1) acc |= got[u];
        if (group > 1) {
          const unsigned lo = __reduce_or_sync(gmask, (unsigned)acc);
          const unsigned hi = __reduce_or_sync(gmask, (unsigned)(acc >> 32));
          acc = ((u64)hi << 32) | lo;
        }
        if (gl == 0) scanned += min((I)(group * PULL_UNROLL), e1 - e);
        if ((acc & need) == need) break;
      }
    }
    const u64 nw = acc & need;
    if (group == 1) {  // a warp owns the touched word of its 32 vertices
      if (nw) nxt[v] = nw;
      const unsigned bal = __ballot_sync(FULL, nw != 0);
      if (lane == 0 && bal) touched[base >> 5] = bal;
    } else if (gl == 0 && nw) {
      nxt[v] = nw;
      atomicOr(touched + (v >> 5), 1u << (v & 31));
    }
  }
  const long long total = warp_sum((long long)scanned);
  if (lane == 0 && total) atomicAdd((u64*)(ctr + C_SCANNED), (u64)total);
}

// levels out of the planes: bits that arrived at levels first .. first +
// count - 1 (first = first_rel + the base in args; plane slots (first + j)
// % R) become levels[rows[b] * n + v] (levels and rows from args),
// for the vertices marked in wtouched; those plane words go back to zero.
// A warp takes 32 consecutive vertices, so a bit's levels are one coalesced
// store, and each output sector is written once per flush (one flush in
// all for a graph of fewer than R levels). The marks stay for the vertices
// with bits in plane `keep` (the current frontier, emitted later; -1:
// none). final: every vertex, -1 for the bits never reached, seen and the
// marks zeroed too (the planes with the host's help, zmask below): the
// state is clean for the next batch. A window that starts at level 0 holds
// every bit seen, so seen is not read then.
// count < 0 (final only): the first levels' flush, captured with them in
// the launcher's CUDA graph before the host knows where the traversal ends:
// the window is levels first .. e - 1, e the first of levels first + 1 ..
// first - count whose queue was empty (stats[S_QUEUE + level]), and zmask
// the window's levels that queued fewer than dense_q vertices (the host
// clears the others: the rule it applies to a final flush it launches);
// no such e (the traversal goes on): the flush does nothing.
// A lane's plane words (and seen) reach shared memory by cp.async one word
// ahead of their use (dynamic shared memory, sized by the launcher from
// count and final): the final flush is a stream of stores, and with the
// loads in registers, issued per word, its warps wait on them (ncu on
// kron-22: 46% of the stalls, 56% of the DRAM bandwidth used). At most 64
// registers: 4 blocks a multiprocessor where the shared memory allows.
__global__ void __launch_bounds__(msbfs::BLOCK, 4)
msbfs_flush(u64* __restrict__ planes, long long n, int R, int first_rel, int count, int keep,
            unsigned zmask, unsigned* __restrict__ wtouched, u64* __restrict__ seen,
            const long long* __restrict__ args, const long long* __restrict__ stats,
            long long dense_q, int k, bool write, bool final) {
  using namespace msbfs;
  extern __shared__ __align__(16) u64 stage[];
  __shared__ __align__(16) long long rowoff[64];
  const int first = first_rel + (int)args[A_BASE];
  if (count < 0) {  // every thread reads the same few words: a uniform exit
    int end = -1;
    for (int e = first + 1; e <= first - count && e < S_LEVELS; ++e)
      if (stats[S_QUEUE + e] == 0) {
        end = e;
        break;
      }
    if (end < 0) return;
    count = end - first;
    zmask = 0;
    for (int j = 0; j < count; ++j)
      if (stats[S_QUEUE + first + j] < dense_q) zmask |= 1u << j;
  }
  // seen is read only where the window does not hold every level
  const bool read_seen = final && first > 0;
  int* const __restrict__ levels = reinterpret_cast<int*>(args[A_LEVELS]);
  const long long* const rows = args + A_ROWS;
  if (threadIdx.x < 64) rowoff[threadIdx.x] = (write && (int)threadIdx.x < k) ? rows[threadIdx.x] * n : 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const u64 all = k == 64 ? ~0ull : (1ull << k) - 1;
  const int base = first % R;  // the slot of level first
  const long long warps = (long long)gridDim.x * (BLOCK / 32);
  const long long nwords = (n + 31) / 32;
  // this lane's words of its warp's two stages: plane j at [j * 32], seen
  // (read_seen) at [count * 32]; a lane reads back only what it copied
  const int per = count + (read_seen ? 1 : 0);
  u64* const mine_stage = stage + (long long)(threadIdx.x >> 5) * 2 * per * 32 + lane;
  auto fetch = [&](long long wd, int st) {
    const long long vc = min(wd * 32 + lane, n - 1);  // past n: a valid word, dropped
    u64* const dst = mine_stage + st * per * 32;
    for (int j = 0; j < count; ++j) {
      int slot = base + j;
      if (slot >= R) slot -= R;
      cp_async8(dst + j * 32, planes + (long long)slot * n + vc);
    }
    if (read_seen) cp_async8(dst + count * 32, seen + vc);
  };
  // the marks two words ahead (they decide a fetch), the planes one ahead
  long long word = ((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5;
  unsigned w_cur = word < nwords ? wtouched[word] : 0u;
  unsigned w_nxt = word + warps < nwords ? wtouched[word + warps] : 0u;
  if (word < nwords && (final || w_cur)) fetch(word, 0);
  cp_async_commit();
  for (int st = 0; word < nwords; word += warps, st ^= 1) {
    const long long v = word * 32 + lane;
    const unsigned w = w_cur;
    w_cur = w_nxt;
    w_nxt = word + 2 * warps < nwords ? wtouched[word + 2 * warps] : 0u;
    if (word + warps < nwords && (final || w_cur)) fetch(word + warps, st ^ 1);
    cp_async_commit();
    if (!final && !w) continue;  // warp-uniform
    cp_async_wait_prior();  // this word's copies (the group before the last) have landed
    const bool mine = v < n && (final || ((w >> lane) & 1u));
    // bit b arrived at level first + (o3 o2 o1 o0)[b]; the non-zero words
    // read of the planes in zmask (bit j: level first + j) go back to zero
    // here, the host clears the others with a memset (the final flush's
    // dense planes: a memset writes a plane ~2.5x faster than these
    // stores, which are cheaper for a nearly empty one)
    const u64* const src = mine_stage + st * per * 32;
    u64 any = 0, o0 = 0, o1 = 0, o2 = 0, o3 = 0;
    unsigned nz = 0;  // planes with a non-zero word
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const u64 y = (mine && j < count) ? src[j * 32] : 0ull;
      nz |= (y != 0ull) << j;
      any |= y;
      if (j & 1) o0 |= y;
      if (j & 2) o1 |= y;
      if (j & 4) o2 |= y;
      if (j & 8) o3 |= y;
    }
    const u64 sn = read_seen ? src[count * 32] : any;
    for (unsigned rest = nz & zmask; rest; rest &= rest - 1u) {
      int slot = base + __ffs(rest) - 1;
      if (slot >= R) slot -= R;
      planes[(long long)slot * n + v] = 0ull;
    }
    if (final) {
      if (v < n && sn) seen[v] = 0ull;  // a zero word stays
      if (lane == 0) wtouched[word] = 0u;
    } else {
      const bool kept = keep >= 0 && mine && planes[(long long)keep * n + v] != 0ull;
      const unsigned kw = __ballot_sync(FULL, kept);
      if (lane == 0) wtouched[word] = kw;
    }
    if (!write) continue;
    if (final && !__any_sync(FULL, (any | sn) != 0ull)) {  // no bit reached these 32
      if (v < n)
        for (int b = 0; b < k; ++b) levels[rowoff[b] + v] = -1;
      continue;
    }
    const u64 bits = final ? all : warp_or(any);
    // written: the bits that arrived in this window; in the final flush also
    // those never reached (-1): all but the bits reached before `first`
    const u64 wr = (final ? any | ~sn : any) & bits;
    int* const out = levels + v;
    // 8 bits at a time, as two words of 4 bytes: byte i = bit i's level
    // offset (o3 o2 o1 o0) plus first where levels stay below 128, 0xFF
    // where it did not arrive in this window, so that a sign-extended byte
    // is the level or -1 (one prmt a store; with the offsets spread by
    // field extracts and nibble shuffles, the flush would take ~29 instructions
    // a store). The byte loop is not unrolled: the kernel keeps to 64
    // registers
    const bool small = first + 15 < 128;
    const unsigned first4 = small ? (unsigned)first * 0x01010101u : 0u;
#pragma unroll 1
    for (int q = 0; q < 64; q += 8) {
      const unsigned bq = (unsigned)(bits >> q) & 0xffu;
      if (!bq) continue;  // warp-uniform
      const unsigned wq = (unsigned)(wr >> q) & 0xffu;
      const unsigned c0 = (unsigned)(o0 >> q), c1 = (unsigned)(o1 >> q),
                     c2 = (unsigned)(o2 >> q), c3 = (unsigned)(o3 >> q),
                     un = ~(unsigned)(any >> q);
      unsigned word[2];
#pragma unroll
      for (int h = 0; h < 2; ++h)
        word[h] = ((nibble_to_bytes<0>(c0, 4 * h) | nibble_to_bytes<1>(c1, 4 * h) |
                    nibble_to_bytes<2>(c2, 4 * h) | nibble_to_bytes<3>(c3, 4 * h)) + first4) |
                  nibble_to_bytes<0>(un, 4 * h) * 0xFFu;
      // the byte's row offsets in 4 shared loads up front (a load per bit
      // stalled its store)
      long long ro[8];
#pragma unroll
      for (int i = 0; i < 8; i += 2) {
        const longlong2 r2 = *reinterpret_cast<const longlong2*>(rowoff + q + i);
        ro[i] = r2.x;
        ro[i + 1] = r2.y;
      }
      if (__all_sync(FULL, v < n && wq == 0xffu)) {  // every store: no predicate
        if (small) store8<false, true>(out, ro, word, first, wq);
        else store8<true, true>(out, ro, word, first, wq);
      } else {
        const unsigned wv = v < n ? wq : 0u;
        if (small) store8<false, false>(out, ro, word, first, wv);
        else store8<true, false>(out, ro, word, first, wv);
      }
    }
  }
  cp_async_wait_all();  // no copy outlives the kernel
}

// after the first levels' graph (the launcher: launched before the host waits
// for it, so that the host returns without waiting for this): zero the
// planes that graph's final flush left to the host, those of the levels
// 0 .. e - 1 that queued at least dense_q vertices, e the first of levels
// 1 .. levels whose queue was empty (the flush's rule); no such e (the
// traversal goes on): nothing
__global__ void __launch_bounds__(msbfs::BLOCK)
msbfs_clear(u64* __restrict__ planes, long long n, int R, const long long* __restrict__ stats,
            long long dense_q, int levels) {
  using namespace msbfs;
  int end = -1;
  for (int e = 1; e <= levels && e < S_LEVELS; ++e)
    if (stats[S_QUEUE + e] == 0) {
      end = e;
      break;
    }
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (int j = 0; j < end; ++j) {
    if (stats[S_QUEUE + j] < dense_q) continue;  // zeroed by the flush
    u64* const p = planes + (long long)(j % R) * n;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
      p[i] = 0ull;
  }
}

// ---------------------------------------------------------------------------
// msbfs_coop: a batch's whole traversal in one cooperative launch, for
// graphs of long diameter (schedule "coop": settings.msbfs_cuda.schedule,
// algorithms/msbfs.py msbfs_schedule). On a 2D grid a batch runs
// thousands of levels, each with a small frontier per source, and the
// kernels above cost ~45 us a level there (a settle, a push, a flush every
// flush_span levels, their launches); here a level is one pass over the
// queue and one grid barrier (grid.cuh).
//
// A vertex's state is one 32-byte record (one sector): seen, the two
// frontier planes (cur and nxt by level parity) and its row (start << 24 |
// out-degree, the degree capped: a larger one is read from indptr). Its
// checks, claims and row come in one sector, where separate arrays took
// one each (a mesh's 64 wavefronts reach every part of the graph, so
// these reads are random).
//   - a warp takes 32 queue vertices, reads and clears their cur words (so
//     the plane is zero again when it comes round as nxt) and walks their
//     out-edges together, COOP_ROUNDS x 32 at a time: lane j takes edges
//     j, j + 32, ... of the run, its vertex found by a binary search over
//     the warp's running sum of degrees (a hub is spread over the lanes, a
//     mesh's rows of 4 fill them);
//   - an edge u -> v whose bits cur[u] are not all in seen[v] (read through
//     L2 first: most edges of a mesh lead back) claims them by atomicOr on
//     seen[v]; the bits it gets are found exactly once, so the claimer
//     writes their levels and counts them, and there is no settle step;
//     the first claimer of v in the level (atomicOr on nxt[v] returned 0)
//     appends v to the next queue (staged in shared memory, one atomicAdd
//     per block and level); or, on a level whose queue holds at least
//     sweep_min vertices, marks v in the touched bitmap, and after a grid
//     barrier a sweep of the bitmap builds the next queue in ascending
//     order (a big frontier's records and rows are then read in runs);
//   - per-bit counts of the block go to the statistics once per level.
// Every edge runs top-down: on the graphs it is chosen for no source's
// frontier is ever a large part of the graph. The records are written
// whole at the start, so nothing needs to be left zeroed.
//
// ctl (u64[8]): queue sizes of levels L, L + 1, L + 2 in rotation (words
// 0..2), the number of levels (word 3), the grid barrier (word 4, two u32).
// trace (benchmarks; null: none): per level below trace_cap, the clock at
// its start and its queue size; then the clock at the end.
namespace msbfs {
constexpr int COOP_ROUNDS = 4;
constexpr int REC_SEEN = 0, REC_PLANE = 1, REC = 4;  // u64 words of a record (the row last)
constexpr int DEG_BITS = 24;
constexpr u64 DEG_MAX = (1ull << DEG_BITS) - 1;  // a row this long or longer: indptr

// a warp's part of the next queue: `c` entries from each lane, in lane
// order, go into the block's stage while it has room and straight to the
// queue past it (one global atomic for the warp); lane j's i-th entry is
// entry excl + i of the warp's
struct Append {
  unsigned at, fit, excl;
  unsigned long long over;
};

__device__ __forceinline__ Append reserve(unsigned c, unsigned* staged, unsigned cap,
                                          unsigned long long* qn) {
  const int lane = threadIdx.x & 31;
  const unsigned incl = bg::warp_inclusive_scan(c);
  const unsigned total = __shfl_sync(FULL, incl, 31);
  Append a{0u, 0u, incl - c, 0ull};
  if (lane == 0) a.at = atomicAdd(staged, total);
  a.at = __shfl_sync(FULL, a.at, 0);
  a.fit = a.at < cap ? min(total, cap - a.at) : 0u;
  if (lane == 0 && a.fit < total) a.over = atomicAdd(qn, (unsigned long long)(total - a.fit));
  a.over = __shfl_sync(FULL, a.over, 0);
  return a;
}

template <typename I>
__device__ __forceinline__ void put(const Append& a, unsigned p, I x, I* stage, I* qout) {
  if (p < a.fit) stage[a.at + p] = x;
  else qout[a.over + p - a.fit] = x;
}

// the block's stage to the queue (every thread of the block calls it): one
// global atomic for the block
template <typename I>
__device__ __forceinline__ void flush_stage(const I* stage, unsigned* staged, unsigned cap,
                                            unsigned long long* stage_at,
                                            unsigned long long* qn, I* qout) {
  __syncthreads();
  const unsigned nst = min(*staged, cap);
  if (threadIdx.x == 0 && nst) *stage_at = atomicAdd(qn, (unsigned long long)nst);
  __syncthreads();
  for (unsigned j = threadIdx.x; j < nst; j += blockDim.x) qout[*stage_at + j] = stage[j];
  if (threadIdx.x == 0) *staged = 0;  // next used after a grid barrier
}
}  // namespace msbfs

template <typename I>
__global__ void __launch_bounds__(msbfs::COOP_THREADS, 1)
msbfs_coop(const I* __restrict__ indptr, const I* __restrict__ indices, long long n,
           u64* __restrict__ rec, I* __restrict__ qa, I* __restrict__ qb,
           unsigned long long* __restrict__ ctl, long long* __restrict__ stats,
           const long long* __restrict__ args, int k, bool write, unsigned* __restrict__ touched,
           long long sweep_min, long long* __restrict__ trace, int trace_cap, unsigned cap) {
  using namespace msbfs;
  constexpr int R = COOP_ROUNDS;
  __shared__ unsigned cnt[64];  // the block's vertices found this level, per bit
  __shared__ long long ro[64];  // offset of bit b's row in the result
  // the block's part of the next queue, staged (dynamic shared memory of
  // `cap` entries): appended to the queue at the level's end with one
  // atomic, where one per warp and round on the one counter cost up to
  // ~100 us a level on grid-2048 (the atomics on one address serialise)
  extern __shared__ unsigned char dyn[];
  I* const stage = reinterpret_cast<I*>(dyn);
  __shared__ unsigned staged;
  __shared__ unsigned long long stage_at;
  const int lane = threadIdx.x & 31;
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const long long warp = tid >> 5, nwarps = nthreads >> 5;
  unsigned* const bar = reinterpret_cast<unsigned*>(ctl + 4);
  int* const levels = write ? reinterpret_cast<int*>(args[A_LEVELS]) : nullptr;
  unsigned gen = 0;
  if (threadIdx.x == 0) {
    gen = bg::ld_acquire(bar + 1);
    staged = 0;
  }
  if (threadIdx.x < 64) {
    cnt[threadIdx.x] = 0;
    ro[threadIdx.x] = threadIdx.x < k ? args[A_ROWS + threadIdx.x] * n : 0;
  }
  __syncthreads();
  // the records, the result's rows at -1, the counters and statistics
  for (long long v = tid; v < n; v += nthreads) {
    const u64 beg = (u64)indptr[v], deg = (u64)(indptr[v + 1] - indptr[v]);
    reinterpret_cast<ulonglong2*>(rec)[2 * v] = make_ulonglong2(0, 0);
    reinterpret_cast<ulonglong2*>(rec)[2 * v + 1] =
        make_ulonglong2(0, beg << DEG_BITS | (deg < DEG_MAX ? deg : DEG_MAX));
  }
  const long long nwords = (n + 31) >> 5;
  for (long long i = tid; i < nwords; i += nthreads) touched[i] = 0;
  if (write)
    for (int b = 0; b < k; ++b)
      for (long long i = tid; i < n; i += nthreads) levels[ro[b] + i] = -1;
  if (tid < 3) ctl[tid] = 0;
  if (tid < 64) {
    stats[S_COUNT + tid] = tid < k;
    stats[S_TOTAL + tid] = 0;
    stats[S_ECC + tid] = 0;
  }
  bg::grid_barrier(bar, gen);
  // bit b at sources[b], level 0
  if (tid < k) {
    const long long s = args[A_SOURCES + tid];
    const u64 bit = 1ull << tid;
    atomicOr(rec + REC * s + REC_SEEN, bit);
    if (atomicOr(rec + REC * s + REC_PLANE, bit) == 0) qa[atomicAdd(ctl, 1ull)] = (I)s;
    if (write) levels[ro[tid] + s] = 0;
  }
  bg::grid_barrier(bar, gen);

  int level = 0;
  for (;; ++level) {
    const long long nq = (long long)__ldcg(ctl + level % 3);
    if (tid == 0 && level < trace_cap) {
      trace[2 * level] = (long long)bg::globaltimer();
      trace[2 * level + 1] = nq;
    }
    if (nq == 0) break;
    const int pc = REC_PLANE + (level & 1), pn = REC_PLANE + 1 - (level & 1);  // cur, nxt
    const I* const qin = (level & 1) ? qb : qa;
    I* const qout = (level & 1) ? qa : qb;
    unsigned long long* const qn = ctl + (level + 1) % 3;
    if (tid == 0) ctl[(level + 2) % 3] = 0;  // last read by level - 1
    const int next = level + 1;
    const bool sweep = nq >= sweep_min;
    for (long long i0 = warp * 32; i0 < nq; i0 += nwarps * 32) {
      // lane j's vertex: its bits and its row (cur cleared: nxt two levels on)
      const long long i = i0 + lane;
      u64 f = 0;
      I beg = 0, deg = 0;
      if (i < nq) {
        const I u = __ldcg(qin + i);
        const ulonglong2* const r2 = reinterpret_cast<const ulonglong2*>(rec + REC * (long long)u);
        const ulonglong2 lo = __ldcg(r2), hi = __ldcg(r2 + 1);
        f = (level & 1) ? hi.x : lo.y;
        rec[REC * (long long)u + pc] = 0;
        beg = (I)(hi.y >> DEG_BITS);
        deg = (I)(hi.y & DEG_MAX);
        if (deg == (I)DEG_MAX) deg = indptr[u + 1] - beg;
      }
      const I incl = bg::warp_inclusive_scan(deg);
      const I total = __shfl_sync(FULL, incl, 31);
      const I off = beg - (incl - deg);  // edge e of the run, if lane j's: indices[off + e]
      for (I e0 = 0; e0 < total; e0 += 32 * R) {
        I v[R];
        u64 fv[R], sv[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const I e = e0 + 32 * r + lane;
          int o = 0;  // lanes whose running sum is <= e: e's vertex
#pragma unroll
          for (int s = 16; s > 0; s >>= 1)
            if (__shfl_sync(FULL, incl, o + s - 1) <= e) o += s;
          const I at = __shfl_sync(FULL, off, o) + e;
          fv[r] = __shfl_sync(FULL, f, o);
          v[r] = e < total ? indices[at] : (I)-1;
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
          sv[r] = v[r] >= 0 ? __ldcg(rec + REC * (long long)v[r] + REC_SEEN) : ~0ull;
        // the claims, all in flight together; then the new vertices' nxt
#pragma unroll
        for (int r = 0; r < R; ++r)
          if (fv[r] & ~sv[r]) sv[r] = atomicOr(rec + REC * (long long)v[r] + REC_SEEN, fv[r]);
          else fv[r] = 0;
        u64 old[R];
#pragma unroll
        for (int r = 0; r < R; ++r) {
          fv[r] &= ~sv[r];  // the bits this edge found
          old[r] = fv[r] ? atomicOr(rec + REC * (long long)v[r] + pn, fv[r]) : ~0ull;
        }
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const bool first = old[r] == 0;
          if (sweep) {
            if (first) atomicOr(touched + (v[r] >> 5), 1u << (v[r] & 31));
          } else if (__any_sync(FULL, first)) {
            const Append a = reserve(first, &staged, cap, qn);
            if (first) put(a, a.excl, v[r], stage, qout);
          }
          for (u64 w = fv[r]; w; w &= w - 1) {
            const int b = __ffsll((long long)w) - 1;
            atomicAdd(cnt + b, 1u);
            if (write) levels[ro[b] + v[r]] = next;
          }
        }
      }
    }
    flush_stage(stage, &staged, cap, &stage_at, qn, qout);
    if (threadIdx.x < k && cnt[threadIdx.x]) {
      const unsigned c = cnt[threadIdx.x];
      cnt[threadIdx.x] = 0;
      atomicAdd(reinterpret_cast<unsigned long long*>(stats + S_COUNT + threadIdx.x),
                (unsigned long long)c);
      atomicAdd(reinterpret_cast<unsigned long long*>(stats + S_TOTAL + threadIdx.x),
                (unsigned long long)c * next);
      atomicMax(stats + S_ECC + threadIdx.x, (long long)next);
    }
    bg::grid_barrier(bar, gen);
    if (sweep) {
      // the next queue in ascending order from the touched words (a warp
      // takes 32 words): its vertices' records and rows are then read in
      // runs, not at random
      for (long long w0 = warp * 32; w0 < nwords; w0 += nwarps * 32) {
        const long long wi = w0 + lane;
        unsigned w = wi < nwords ? __ldcg(touched + wi) : 0u;
        if (w) touched[wi] = 0;
        if (!__any_sync(FULL, w)) continue;
        const Append a = reserve(__popc(w), &staged, cap, qn);
        for (unsigned p = a.excl; w; w &= w - 1, ++p)
          put(a, p, (I)(wi * 32 + __ffs(w) - 1), stage, qout);
      }
      flush_stage(stage, &staged, cap, &stage_at, qn, qout);
      bg::grid_barrier(bar, gen);
    }
  }
  if (tid == 0) {
    ctl[3] = level;
    if (level < trace_cap) trace[2 * level + 1] = (long long)bg::globaltimer();
  }
}

// the level base of the replayed levels (the launcher's CUDA graph) moves on
// by `by` levels: the graph's last node
__global__ void msbfs_advance(long long* args, int by) { args[msbfs::A_BASE] += by; }

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
#define MSBFS_INSTANTIATE(I)                                                                   \
  template __global__ void msbfs_start<I>(const long long*, int, u64*, unsigned*, long long*,  \
                                          long long*);                                         \
  template __global__ void msbfs_settle<I>(unsigned*, unsigned*, const I*, const u64*, u64*,   \
                                           I*, u64*, long long*, long long*, const long long*, \
                                           long long*, const long long*, long long, int, int,  \
                                           long long, long long);                              \
  template __global__ void msbfs_push<I>(const I*, const u64*, const I*, const I*, const u64*, \
                                         const u64*, u64*, unsigned*, const long long*, int);  \
  template __global__ void msbfs_pull<I>(const I*, const I*, const u64*, const u64*, u64*,     \
                                         unsigned*, long long, int, const long long*,          \
                                         long long*);                                          \
  template __global__ void msbfs_coop<I>(const I*, const I*, long long, u64*, I*, I*,         \
                                         unsigned long long*, long long*, const long long*,  \
                                         int, bool, unsigned*, long long, long long*, int,   \
                                         unsigned);
MSBFS_INSTANTIATE(int)
MSBFS_INSTANTIATE(long long)
