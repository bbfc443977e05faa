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
//   stats[192]   per source: vertices reached, sum and max of their levels.
//
// A level is a pull step, a push step, then msbfs_settle, all launched
// without a host sync: the direction is chosen per source on the device.
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
//   - msbfs_bvss<MMA> (bottom-up over the BVSS of A', the pull bits only): a
//     warp per virtual slice set whose 8 columns hold frontier bits; per
//     slice the OR of the cur words its 8-bit mask selects, by a SIMT nibble
//     table (MMA=false) or by m8n8k128 b1 and.popc MMAs, 8 sources as the
//     columns of fragB (MMA=true); a non-zero result ORs into nxt[row];
//   - msbfs_push (top-down, the push bits only): nxt[v] |= cur[u] & push &
//     ~seen[v] over the out-edges of the queue vertices with push bits,
//     block-level edge balancing (a block takes up to 256 queue vertices,
//     scans their degrees and hands one edge to each thread: hubs do not
//     serialise a warp);
//   - msbfs_settle: one pass over `touched` (cleared as read, OR-ed into
//     wtouched; a warp skips 1,024 vertices with one read when none is
//     touched), builds the next queue (one atomicAdd per 1,024 vertices:
//     ascending inside each), then for each new vertex
//     seen |= nxt, per-bit counts and out-edges, the OR of the new frontier
//     (active) and its out-edges (mf) into ctr. A settle after a level with
//     nothing to do returns at once, so the host may launch levels past the
//     last one.
// The levels are not written per level: a sector of the (sources x n)
// result would then be written partially at every level that reaches one
// of its 8 vertices (measured: the settles took 2.3-2.9 ms of 5.8-6.8 ms
// on kron-22 and urand-22), but by msbfs_flush from the planes, each
// sector once per flush.
// Both directions compute the same bits (the union of the frontier bits of
// the in-neighbours, less seen), so the direction never changes results.
//
// I is the index type of the CSR arrays and of the queue (int or long long).

typedef unsigned long long u64;

namespace msbfs {
constexpr int BLOCK = 256;
constexpr int WARPS = BLOCK / 32;
constexpr unsigned FULL = 0xffffffffu;
// in-edges a lane of the CSR bottom-up reads before its group checks the
// early exit
constexpr int PULL_UNROLL = 4;
// counter slot: queue size, its out-edges, OR of its words, in-edges the
// pull scanned, the next level's pull and push masks, settle blocks done,
// chunk entries, per-bit new vertices and their out-edges
constexpr int C_NQ = 0, C_MF = 1, C_ACTIVE = 2, C_SCANNED = 3, C_PULL = 4, C_PUSH = 5,
              C_DONE = 6, C_NCHUNK = 7, C_CNT = 8, C_MFB = 72, CTR = 136;
// a queue vertex with more out-edges than this is also listed as chunks of
// CHUNK edges, one block's work each (a hub does not hold one block for
// its whole row); the push's per-block part skips it
constexpr long long CHUNK = 2048;
constexpr int CHUNK_BITS = 24;  // an entry: vertex << CHUNK_BITS | chunk
// stats: per bit vertices reached, sum of their levels, largest level
constexpr int S_COUNT = 0, S_TOTAL = 64, S_ECC = 128;
// a vertex's out-degree as added into the per-bit sums (32-bit lanes)
constexpr unsigned DEG_CAP = 1u << 31;

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
  T incl = x;
  for (int d = 1; d < 32; d <<= 1) {
    const T o = __shfl_up_sync(FULL, incl, d);
    if (lane >= d) incl += o;
  }
  if (lane == 31) sums[wid] = incl;
  __syncthreads();
  if (wid == 0) {
    T s = lane < WARPS ? sums[lane] : (T)0;
    for (int d = 1; d < WARPS; d <<= 1) {
      const T o = __shfl_up_sync(FULL, s, d);
      if (lane >= d) s += o;
    }
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

// bit i of x (i < 8) to bit 4i
__device__ __forceinline__ unsigned spread_nibbles(unsigned x) {
  x = (x | (x << 12)) & 0x000F000Fu;
  x = (x | (x << 6)) & 0x03030303u;
  return (x | (x << 3)) & 0x11111111u;
}

// nibble i of x (i < 4) to byte i
__device__ __forceinline__ unsigned nibbles_to_bytes(unsigned x) {
  x = (x | (x << 8)) & 0x00FF00FFu;
  return (x | (x << 4)) & 0x0F0F0F0Fu;
}

// bit i of x (i < 4) to bit 8i
__device__ __forceinline__ unsigned bits_to_bytes(unsigned x) {
  x = (x | (x << 14)) & 0x00030003u;
  return (x | (x << 7)) & 0x01010101u;
}

// mark v in the touched bitmap when this OR made nxt[v] non-zero, so that
// every vertex of the next queue is listed exactly once
__device__ __forceinline__ void or_next(u64* nxt, unsigned* touched, long long v, u64 bits) {
  const u64 old = nxt[v];
  if ((old & bits) == bits) return;  // nothing new: skip the atomic
  if (atomicOr(nxt + v, bits) == 0ull) atomicOr(touched + (v >> 5), 1u << (v & 31));
}
}  // namespace msbfs

// level 0: bit b at sources[b] (one block of 64 threads)
template <typename I>
__global__ void msbfs_start(const long long* __restrict__ sources, int k, u64* nxt,
                            unsigned* touched) {
  const int b = threadIdx.x;
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
             long long* __restrict__ stats, long long n, int k, int level, long long alpha_m,
             long long all_pull_m) {
  using namespace msbfs;
  __shared__ unsigned cnt[64];
  __shared__ u64 mfb[64];
  __shared__ bool s_last;
  // lane l's running count and out-edges of bits l and l + 32 (this warp)
  unsigned cnt_lo = 0, cnt_hi = 0;
  u64 mfb_lo = 0, mfb_hi = 0;
  const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
  if (blockIdx.x == 0 && tid < CTR) ctr_next[tid] = 0;
  // nothing ran this level (past the last one): nothing was touched
  if (level > 0 && ctr_prev[C_PULL] == 0 && ctr_prev[C_PUSH] == 0) return;
  if (tid < 64) {
    cnt[tid] = 0;
    mfb[tid] = 0;
  }
  __syncthreads();
  u64 act = 0;
  long long mf = 0;
  // a warp reads 32 touched words (1,024 vertices) at once and skips them
  // when all are zero (a sparse level costs one read per 1,024 vertices);
  // one atomicAdd per such group for the queue positions (ascending inside
  // it); then a lane per vertex of each non-zero word
  const long long nwords = (n + 31) / 32;
  const long long warps = (long long)gridDim.x * WARPS;
  for (long long w0 = ((long long)blockIdx.x * WARPS + wid) * 32; w0 < nwords; w0 += warps * 32) {
    const long long wi = w0 + lane;
    const unsigned wl = wi < nwords ? touched[wi] : 0u;
    const unsigned nz = __ballot_sync(FULL, wl != 0u);
    if (!nz) continue;  // warp-uniform
    if (wl) {
      touched[wi] = 0u;
      wtouched[wi] |= wl;  // this warp's word: the flush's list
    }
    const unsigned cw = __popc(wl);
    unsigned incl = cw;
    for (int d = 1; d < 32; d <<= 1) {
      const unsigned o = __shfl_up_sync(FULL, incl, d);
      if (lane >= d) incl += o;
    }
    const unsigned total = __shfl_sync(FULL, incl, 31);
    long long base = 0;
    if (lane == 0) base = (long long)atomicAdd((u64*)(ctr + C_NQ), (u64)total);
    base = __shfl_sync(FULL, base, 0);
    const unsigned excl = incl - cw;
    unsigned rest = nz;
    while (rest) {  // warp-uniform
      const int j = __ffs(rest) - 1;
      rest &= rest - 1;
      const unsigned w = __shfl_sync(FULL, wl, j);
      const long long at = base + __shfl_sync(FULL, excl, j);
      const long long v = (w0 + j) * 32 + lane;
      const bool hit = (w >> lane) & 1u;
      u64 nw = 0;
      unsigned deg = 0;
      if (hit) {
        queue[at + __popc(w & ((1u << lane) - 1u))] = (I)v;
        nw = nxt[v];
        seen[v] |= nw;
        act |= nw;
        const long long d = (long long)indptr[v + 1] - (long long)indptr[v];
        mf += d;
        deg = (unsigned)min(d, (long long)DEG_CAP);
        if (d > CHUNK && nw) {
          const long long nch = (d + CHUNK - 1) / CHUNK;
          const long long c0 = (long long)atomicAdd((u64*)(ctr + C_NCHUNK), (u64)nch);
          for (long long c = 0; c < nch; ++c) chunks[c0 + c] = ((u64)v << CHUNK_BITS) | (u64)c;
        }
      }
      // per bit: the new vertices and their out-edges. Lane c gets bit c
      // (and c + 32) of the warp's 32 words by a transpose; the out-edges
      // are summed bit-sliced: sum over t of 2^t * |vertices with bit c and
      // bit t of their degree| (one ballot per degree bit, not a warp sum
      // per source bit: this loop was the settle's cost)
      if (__any_sync(FULL, nw != 0ull)) {
        const unsigned tlo = transpose32((unsigned)nw, lane);
        const unsigned thi = transpose32((unsigned)(nw >> 32), lane);
        cnt_lo += __popc(tlo);
        cnt_hi += __popc(thi);
        const int dbits = 32 - __clz(__reduce_max_sync(FULL, deg));
        for (int t = 0; t < dbits; ++t) {
          const unsigned d = __ballot_sync(FULL, (deg >> t) & 1u);
          mfb_lo += (u64)__popc(tlo & d) << t;
          mfb_hi += (u64)__popc(thi & d) << t;
        }
      }
    }
  }
  act = warp_or(act);
  mf = warp_sum(mf);
  if (lane == 0) {
    if (act) atomicOr((u64*)(ctr + C_ACTIVE), act);
    if (mf) atomicAdd((u64*)(ctr + C_MF), (u64)mf);
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
  // the last block to finish reads the level's totals: statistics, and the
  // next level's direction per source
  __threadfence();
  __syncthreads();
  if (tid == 0) s_last = atomicAdd((u64*)(ctr + C_DONE), 1ull) == (u64)gridDim.x - 1;
  __syncthreads();
  if (!s_last || wid != 0) return;
  __threadfence();
  const volatile long long* c = ctr;
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
  __shared__ long long s_off[BLOCK + 1];
  __shared__ long long s_start[BLOCK];
  __shared__ u64 s_f[BLOCK];
  __shared__ long long sums[WARPS];
  const u64 mask = (u64)ctr_prev[C_PUSH];
  const long long nq = ctr_prev[C_NQ];
  if (!mask || !nq) return;
  int per_block = 1;
  while (per_block < BLOCK && 4LL * per_block * sms <= nq) per_block *= 2;
  const int tid = threadIdx.x;
  for (long long q0 = (long long)blockIdx.x * per_block; q0 < nq;
       q0 += (long long)gridDim.x * per_block) {
    const long long qi = q0 + tid;
    long long deg = 0;
    if (tid < per_block && qi < nq) {
      const long long u = (long long)queue[qi];
      const u64 f = cur[u] & mask;
      s_f[tid] = f;
      if (f) {
        const long long st = (long long)indptr[u];
        deg = (long long)indptr[u + 1] - st;
        if (deg > CHUNK) deg = 0;  // its chunks, below
        s_start[tid] = st;
      }
    }
    long long tot;
    const long long incl = block_scan<long long>(deg, sums, &tot);
    s_off[tid + 1] = incl;
    if (tid == 0) s_off[0] = 0;
    __syncthreads();
    for (long long e = tid; e < tot; e += BLOCK) {
      int lo = 0, hi = BLOCK - 1;  // the last j with s_off[j] <= e
      while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if (s_off[mid] <= e) lo = mid;
        else hi = mid - 1;
      }
      const long long v = (long long)indices[s_start[lo] + (e - s_off[lo])];
      const u64 bits = s_f[lo] & ~seen[v];
      if (bits) or_next(nxt, touched, v, bits);
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
    const long long e0 = (long long)indptr[u] + (long long)(ent & ((1u << CHUNK_BITS) - 1)) * CHUNK;
    const long long e1 = min(e0 + CHUNK, (long long)indptr[u + 1]);
    for (long long e = e0 + tid; e < e1; e += BLOCK) {
      const long long v = (long long)indices[e];
      const u64 bits = f & ~seen[v];
      if (bits) or_next(nxt, touched, v, bits);
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
  long long scanned = 0;
  const long long stride = warps * per_warp;
  // the next vertex's seen word and row bounds are loaded before this
  // one's row is scanned: its scan does not start with two round trips
  long long base = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) * per_warp;
  u64 seen_v = ~0ull;
  long long b0 = 0, b1 = 0;
  if (base + lane / group < n) {
    const long long v = base + lane / group;
    seen_v = seen[v];
    b0 = (long long)tindptr[v];
    b1 = (long long)tindptr[v + 1];
  }
  for (; base < n; base += stride) {
    const long long v = base + lane / group;
    const u64 need = pull & ~seen_v;
    const long long e0 = b0, e1 = b1;
    seen_v = ~0ull;
    if (v + stride < n) {
      seen_v = seen[v + stride];
      b0 = (long long)tindptr[v + stride];
      b1 = (long long)tindptr[v + stride + 1];
    }
    u64 acc = 0;
    if (need) {  // group-uniform
      for (long long e = e0; e < e1; e += group * PULL_UNROLL) {
        // all loads in flight before any use (unconditional: past the row's
        // end a lane reads its last edge again, and drops the word); the
        // edges stream (evict-first: __ldcs), the frontier words are
        // gathered and should stay in L2
        long long src[PULL_UNROLL];
#pragma unroll
        for (int u = 0; u < PULL_UNROLL; ++u)
          src[u] = (long long)__ldcs(tindices + min(e + u * group + gl, e1 - 1));
        u64 got[PULL_UNROLL];
#pragma unroll
        for (int u = 0; u < PULL_UNROLL; ++u) got[u] = __ldg(cur + src[u]);
#pragma unroll
        for (int u = 0; u < PULL_UNROLL; ++u)
          if (e + u * group + gl < e1) acc |= got[u];
        if (group > 1) {
          const unsigned lo = __reduce_or_sync(gmask, (unsigned)acc);
          const unsigned hi = __reduce_or_sync(gmask, (unsigned)(acc >> 32));
          acc = ((u64)hi << 32) | lo;
        }
        if (gl == 0) scanned += min((long long)(group * PULL_UNROLL), e1 - e);
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
  scanned = warp_sum(scanned);
  if (lane == 0 && scanned) atomicAdd((u64*)(ctr + C_SCANNED), (u64)scanned);
}

// bottom-up over BVSS (sigma = 8) of A' (row u lists u's in-neighbours):
// a warp per VSS whose slice set (columns 8i..8i+7) has frontier bits. Lane
// l holds slices l, l+32, l+64, l+96 (mask word 32 v + l, byte s = slot s;
// row_ids[v][l][s]). Per slice: the OR of the cur words of its mask's
// columns, then nxt[row] |= that & ~seen[row] as the push does.
// MMA=false: lane l (l < 16: columns 0-3, l >= 16: columns 4-7) holds the
// OR of the columns of nibble l & 15; a slice's OR is two table lookups
// (shuffles). MMA=true: per group g of 8 sources with frontier bits in
// this slice set, 16 m8n8k128 and.popc MMAs: fragB = source 8g + l/4's
// frontier byte (in every k chunk), fragA = one slice byte per row (lane
// 4r + q, slot s for MMA (q, s), only in lanes l % 4 == q); C[r][j] > 0 iff
// the slice of row r has a frontier column of source j. 16 MMAs per VSS for
// 8 sources (one A row can carry one slice only: C sums over k), so the
// tensor cores save no MMAs, only the loads, which both variants share.
template <bool MMA>
__global__ void __launch_bounds__(msbfs::BLOCK)
msbfs_bvss(const int* __restrict__ virtual_to_real, const uint4* __restrict__ row_ids,
           const unsigned* __restrict__ masks, long long n_vss, const u64* __restrict__ cur,
           const u64* __restrict__ seen, u64* nxt, unsigned* touched, long long n,
           const long long* __restrict__ ctr_prev) {
  using namespace msbfs;
  const u64 pull = (u64)ctr_prev[C_PULL];
  if (!pull) return;
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long vs = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; vs < n_vss;
       vs += warps) {
    const long long col = (long long)__ldcs(virtual_to_real + vs) * 8 + (lane & 7);
    const u64 f = col < n ? cur[col] & pull : 0ull;
    if (!__any_sync(FULL, f != 0ull)) continue;  // warp-uniform
    // the BVSS streams once (evict-first); cur, seen and nxt are gathered
    const unsigned mw = __ldcs(masks + vs * 32 + lane);
    const uint4 rid = __ldcs(row_ids + vs * 32 + lane);
    u64 fc[8];
#pragma unroll
    for (int c = 0; c < 8; ++c) fc[c] = __shfl_sync(FULL, f, c);
    u64 acc[4];
    if constexpr (!MMA) {
      const int nib = lane & 15;
      u64 t = 0;
#pragma unroll
      for (int c = 0; c < 4; ++c)
        if ((nib >> c) & 1) t |= (lane < 16) ? fc[c] : fc[4 + c];
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        const unsigned m = (mw >> (8 * s)) & 0xFFu;
        acc[s] = __shfl_sync(FULL, t, m & 15) | __shfl_sync(FULL, t, 16 + (m >> 4));
      }
    } else {
      u64 any = 0;
#pragma unroll
      for (int c = 0; c < 8; ++c) any |= fc[c];
#pragma unroll
      for (int s = 0; s < 4; ++s) acc[s] = 0;
      const int q_me = lane & 3;
      for (int g = 0; g < 8; ++g) {
        if (((any >> (8 * g)) & 0xFFull) == 0) continue;  // warp-uniform
        const int j = 8 * g + (lane >> 2);
        unsigned fb = 0;
#pragma unroll
        for (int c = 0; c < 8; ++c) fb |= (unsigned)((fc[c] >> j) & 1ull) << c;
        unsigned part[4];
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          part[q] = 0;
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            const unsigned a = (q_me == q) ? ((mw >> (8 * s)) & 0xFFu) : 0u;
            int c0, c1;
            asm volatile(
                "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc "
                "{%0, %1}, {%2}, {%3}, {%4, %5};\n"
                : "=r"(c0), "=r"(c1)
                : "r"(a), "r"(fb), "r"(0), "r"(0));
            part[q] |= ((c0 != 0 ? 1u : 0u) | (c1 != 0 ? 2u : 0u)) << (8 * s + 2 * q_me);
          }
        }
        // the quad's 4 lanes hold 2 sources each of row r's slices
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          part[q] |= __shfl_xor_sync(FULL, part[q], 1);
          part[q] |= __shfl_xor_sync(FULL, part[q], 2);
        }
        const unsigned mine = q_me == 0 ? part[0] : q_me == 1 ? part[1] : q_me == 2 ? part[2] : part[3];
#pragma unroll
        for (int s = 0; s < 4; ++s) acc[s] |= (u64)((mine >> (8 * s)) & 0xFFu) << (8 * g);
      }
    }
    const unsigned r[4] = {rid.x, rid.y, rid.z, rid.w};
#pragma unroll
    for (int s = 0; s < 4; ++s) {
      if (!acc[s]) continue;  // also every padding slot (mask 0)
      const long long u = (long long)r[s];
      const u64 bits = acc[s] & ~seen[u];
      if (bits) msbfs::or_next(nxt, touched, u, bits);
    }
  }
}

// levels out of the planes: bits that arrived at levels first .. first +
// count - 1 (plane slots (first + j) % R) become levels[rows[b] * n + v],
// for the vertices marked in wtouched; those plane words go back to zero.
// A warp takes 32 consecutive vertices, so a bit's levels are one coalesced
// store, and each output sector is written once per flush (one flush in
// all for a graph of fewer than R levels). The marks stay for the vertices
// with bits in plane `keep` (the current frontier, emitted later; -1:
// none). final: every vertex, -1 for the bits never reached, seen and the
// marks zeroed (the planes by the host): the state is clean for the next
// batch. At most 64 registers: the final flush is a stream of stores that
// wants warps in flight.
__global__ void __launch_bounds__(msbfs::BLOCK, 4)
msbfs_flush(u64* __restrict__ planes, long long n, int R, int first, int count, int keep,
            unsigned* __restrict__ wtouched, u64* __restrict__ seen, int* __restrict__ levels,
            const long long* __restrict__ rows, int k, bool write, bool final) {
  using namespace msbfs;
  __shared__ __align__(16) long long rowoff[64];
  if (threadIdx.x < 64) rowoff[threadIdx.x] = (write && (int)threadIdx.x < k) ? rows[threadIdx.x] * n : 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const u64 all = k == 64 ? ~0ull : (1ull << k) - 1;
  const int base = first % R;  // the slot of level first
  const long long warps = (long long)gridDim.x * (BLOCK / 32);
  for (long long word = ((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5; word < (n + 31) / 32;
       word += warps) {
    const long long v = word * 32 + lane;
    const unsigned w = wtouched[word];
    if (!final && !w) continue;  // warp-uniform
    const bool mine = v < n && (final || ((w >> lane) & 1u));
    // bit b arrived at level first + (o3 o2 o1 o0)[b]; the words read go
    // back to zero here, but for the final flush, whose planes the host
    // clears with one memset each (fewer instructions and registers here).
    // The loads are unconditional (a lane past n or a plane past count
    // reads a valid word and drops it) and all issued before any use: a
    // load inside an if whose value is used there is not hoisted above the
    // next one, and the planes were read one round trip at a time
    const long long vc = v < n ? v : n - 1;
    const u64 sn = final ? seen[vc] : 0ull;
    u64 x[16];
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      int slot = base + (j < count ? j : 0);
      if (slot >= R) slot -= R;
      x[j] = planes[(long long)slot * n + vc];
    }
    u64 any = 0, o0 = 0, o1 = 0, o2 = 0, o3 = 0;
    unsigned nz = 0;  // planes with a non-zero word
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const u64 y = (mine && j < count) ? x[j] : 0ull;
      nz |= (y != 0ull) << j;
      any |= y;
      if (j & 1) o0 |= y;
      if (j & 2) o1 |= y;
      if (j & 4) o2 |= y;
      if (j & 8) o3 |= y;
    }
    if (!final) {
      // not unrolled: the 16 plane offsets of the loads would stay live
      // for these stores and spill
      for (unsigned rest = nz; rest; rest &= rest - 1u) {
        int slot = base + __ffs(rest) - 1;
        if (slot >= R) slot -= R;
        planes[(long long)slot * n + v] = 0ull;
      }
    }
    if (final) {
      if (v < n) seen[v] = 0ull;
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
    // 8 bits at a time: their level offsets as nibbles (nib's nibble i: bit
    // 8q + i), then as bytes; the byte loop is not unrolled, to keep the
    // registers (64) for the loads above. With the
    // unconditional loads and the bytes below, kron-22's final flush: 370 M
    // -> 243 M instructions, 1.07 -> 0.77 ms (ncu; a bare write of the same
    // result with the same loads: 0.55 ms)
#pragma unroll 1
    for (int q = 0; q < 64; q += 8) {
      const unsigned bq = (unsigned)(bits >> q) & 0xffu;
      if (!bq) continue;  // warp-uniform
      const unsigned aq = (unsigned)(any >> q) & 0xffu, wq = (unsigned)(wr >> q) & 0xffu;
      const unsigned nib = spread_nibbles((unsigned)(o0 >> q) & 0xffu) |
                           spread_nibbles((unsigned)(o1 >> q) & 0xffu) << 1 |
                           spread_nibbles((unsigned)(o2 >> q) & 0xffu) << 2 |
                           spread_nibbles((unsigned)(o3 >> q) & 0xffu) << 3;
      // the byte's row offsets in 4 shared loads up front (a load per bit
      // stalled its store), no branch per bit (a bit not written is a
      // store predicated off)
      long long ro[8];
#pragma unroll
      for (int i = 0; i < 8; i += 2) {
        const longlong2 r2 = *reinterpret_cast<const longlong2*>(rowoff + q + i);
        ro[i] = r2.x;
        ro[i + 1] = r2.y;
      }
      // a byte per bit: its level offset, or 0xFF where it did not arrive
      // in this window, so that a sign-extended byte and an OR give the
      // level or -1 (fewer instructions a bit than field extracts)
      const unsigned un = ~aq & 0xffu;
      const unsigned lo = nibbles_to_bytes(nib & 0xffffu) | bits_to_bytes(un & 0xfu) * 0xffu;
      const unsigned hi = nibbles_to_bytes(nib >> 16) | bits_to_bytes(un >> 4) * 0xffu;
      if (__all_sync(FULL, v < n && wq == 0xffu)) {  // every store: no predicate
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const int o = (int)(signed char)((i < 4 ? lo : hi) >> (8 * (i & 3)));
          out[ro[i]] = (o + first) | (o >> 31);
        }
      } else {
#pragma unroll
        for (int i = 0; i < 8; ++i) {
          const int o = (int)(signed char)((i < 4 ? lo : hi) >> (8 * (i & 3)));
          if (v < n && ((wq >> i) & 1u)) out[ro[i]] = (o + first) | (o >> 31);
        }
      }
    }
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
#define MSBFS_INSTANTIATE(I)                                                                   \
  template __global__ void msbfs_start<I>(const long long*, int, u64*, unsigned*);             \
  template __global__ void msbfs_settle<I>(unsigned*, unsigned*, const I*, const u64*, u64*,   \
                                           I*, u64*, long long*, long long*, const long long*, \
                                           long long*, long long, int, int, long long,         \
                                           long long);                                         \
  template __global__ void msbfs_push<I>(const I*, const u64*, const I*, const I*, const u64*, \
                                         const u64*, u64*, unsigned*, const long long*, int);  \
  template __global__ void msbfs_pull<I>(const I*, const I*, const u64*, const u64*, u64*,     \
                                         unsigned*, long long, int, const long long*,          \
                                         long long*);
MSBFS_INSTANTIATE(int)
MSBFS_INSTANTIATE(long long)
template __global__ void msbfs_bvss<false>(const int*, const uint4*, const unsigned*, long long,
                                           const u64*, const u64*, u64*, unsigned*, long long,
                                           const long long*);
template __global__ void msbfs_bvss<true>(const int*, const uint4*, const unsigned*, long long,
                                          const u64*, const u64*, u64*, unsigned*, long long,
                                          const long long*);
