// Masked B2SR bit matrix product C<M> = A plus.pair B on tensor cores (the
// CUDA twin of kernels/cpu/bmm_b2sr.py), BT = the B2SR of B'. Triangle
// counting is C<L> = L plus.pair L' with A = BT = L.
//
// C(I, J), the t x t output tile, is the sum over the column blocks K in
// both A's tile row I and BT's tile row J of A(I,K) . BT(J,K)': bit-rows
// of A and BT ANDed and popcounted. With
//   mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc
// (PTX ISA "Matrix Fragments for mma.m8n8k128": lane l holds one .b32 of
// A, row l/4, k = (l%4)*32 .. +31, one .b32 of B, column l/4, the same k,
// and gets C[l/4][2(l%4)], C[l/4][2(l%4)+1]) one MMA takes 128/t matched
// K pairs side by side along k: pair m's bit-rows fill bits m*t .. m*t+t-1
// of the 128 (A's and BT's at the same bits, so their AND is the pair's
// product). t = 8: 16 pairs, one 8x8 MMA; t = 16/32: 8/4 pairs, the output
// tile is (t/8)^2 MMAs of 8x8; t = 4: 32 pairs, rows and columns 4..7 of
// the MMA padded with zeros. Every t runs on the tensor cores.
//
// Pipeline (launcher bmm_b2sr.py):
//   mask_rows     row id of each mask entry (a warp per row)
//   tile_leaders  flags the entry that leads each output tile holding mask
//                 entries (the launcher compacts them, in CSR order, into
//                 tasks (I, J) grouped by tile row I)
//   bmm_rows      a block per output tile row I, rows taken from an atomic
//                 counter in decreasing order of work (hubs first): A(I)'s
//                 column blocks go into a hash table in shared memory, then
//                 a warp per task (I, J) streams BT(J)'s column blocks
//                 (coalesced, two steps of 128 in flight per warp; for t <=
//                 8 with the tiles' bits, one 4/8-byte word per tile, so an
//                 MMA round waits on no load of BT), looks each up, and
//                 ballot + popc compact the matches into shared memory; one
//                 MMA round per 128/t matches. C goes to shared memory and
//                 lane r < t finds row I*t+r's mask entries of the tile
//                 (binary search, rows are sorted, in the tile row's mask
//                 columns staged in shared memory when they fit) and stores
//                 their counts.
//                 Where A(I) is too long for the table, or BT(J) much longer
//                 than A(I), lanes binary-search the shorter list's blocks in
//                 the longer list instead; such a task whose shorter list is
//                 long (hubs) stores zeros and is deferred to
//   bmm_heavy     the deferred tasks cut into chunks of their shorter list, a
//                 warp per chunk, counts added with atomics: a hub's work
//                 spreads over the GPU.
//   column_counts (unmasked total) bits per column of A and of BT.
// I: the index type (int or long long); W: the tile word (uint8 for t = 4
// (low nibble) and 8, uint16, uint32).

// HASH_MAX (A(I) up to this many tiles is hashed, load <= 1/2) and the
// warps per block of each t are shared with the launcher:
#include "bmm_b2sr_constants.cuh"

#define BG_FULL 0xffffffffu
#define BG_EMPTY 0xffffffffu  // a free slot of the hash table
#define BG_HCAP 4096          // hash slots per block (keys 16 KB, values 8 KB)
#define BG_MCAP 1024          // mask entries of a tile row staged in shared memory (4 KB)

template <typename I>
__device__ __forceinline__ long long lower_bound(const I* __restrict__ a, long long lo,
                                                 long long hi, long long key) {
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if ((long long)a[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

template <int TS>
struct Geometry {
  static constexpr int SUB = TS >= 8 ? TS / 8 : 1;  // 8x8 MMA blocks per tile side
  static constexpr int PPL = 32 / TS;               // pairs in one lane's .b32
  static constexpr int PPM = 4 * PPL;               // pairs per MMA (128 / t)
  // warps per block of the task kernels (generated: the launcher reads them)
  static constexpr int WARPS = TS == 4 ? WARPS_T4 : TS == 8 ? WARPS_T8 : TS == 16 ? WARPS_T16
                                                                                  : WARPS_T32;
  // resident blocks per SM bmm_rows is built for (up to 64 registers for
  // 256 threads: the streamed tile words of t <= 8 take 16)
  static constexpr int BLOCKS = 4;
};

__device__ __forceinline__ void mma_and_popc(int& c0, int& c1, unsigned a, unsigned b) {
  asm volatile(
      "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc "
      "{%0, %1}, {%2}, {%3}, {%0, %1};"
      : "+r"(c0), "+r"(c1)
      : "r"(a), "r"(b));
}

// bit-row r of tile p; rows 4..7 of t = 4 are the MMA's zero padding
template <int TS, typename W>
__device__ __forceinline__ unsigned row_word(const W* __restrict__ tiles, long long p, int r) {
  if (TS == 4) return r < 4 ? ((unsigned)tiles[p * 4 + r] & 0xFu) : 0u;
  return (unsigned)tiles[p * TS + r];
}

// Row id of every mask entry: a warp per row, coalesced stores.
template <typename I>
__global__ void mask_rows(const I* __restrict__ indptr, long long nrows, I* __restrict__ rows) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < nrows;
       r += warps) {
    const long long end = (long long)indptr[r + 1];
    for (long long s = (long long)indptr[r] + lane; s < end; s += 32) rows[s] = (I)r;
  }
}

// lead[s] = 1 when mask entry s leads its output tile: no entry before it
// in its row, nor in an earlier row of its tile row, is in the tile (rows
// are sorted: binary searches in at most t-1 rows). A thread per entry.
template <int TS, typename I>
__global__ void tile_leaders(const I* __restrict__ indptr, const I* __restrict__ indices,
                             const I* __restrict__ rows, long long nnz,
                             unsigned char* __restrict__ lead) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nnz; s += stride) {
    const long long i = (long long)rows[s];
    const long long tj = (long long)indices[s] / TS;
    bool first = !(s > (long long)indptr[i] && (long long)indices[s - 1] / TS == tj);
    for (long long r = i / TS * TS; first && r < i; ++r) {
      const long long e = (long long)indptr[r + 1];
      const long long q = lower_bound(indices, (long long)indptr[r], e, tj * TS);
      if (q < e && (long long)indices[q] < tj * TS + TS) first = false;
    }
    lead[s] = first;
  }
}

// acc += the products of the n matched pairs (A tile buf_a[m], BT tile
// buf_b[m]), 128/t pairs per MMA: pair m of a round goes to the lanes of
// quad m / PPL (k = quad*32 ..), bits (m % PPL) * t .. +t-1 of their .b32.
template <int TS, typename W>
__device__ __forceinline__ void mma_pairs(const W* __restrict__ a_tiles,
                                          const W* __restrict__ bt_tiles,
                                          const long long* buf_a, const long long* buf_b, int n,
                                          int (&acc)[Geometry<TS>::SUB][Geometry<TS>::SUB][2],
                                          int lane) {
  using G = Geometry<TS>;
  const int quad = lane & 3, grp = lane >> 2;
  for (int g = 0; g < n; g += G::PPM) {
    unsigned fa[G::SUB], fb[G::SUB];
#pragma unroll
    for (int x = 0; x < G::SUB; ++x) fa[x] = fb[x] = 0u;
#pragma unroll
    for (int e = 0; e < G::PPL; ++e) {
      const int pair = g + quad * G::PPL + e;  // this lane's k bits e*t .. e*t+t-1
      if (pair < n) {
        const long long pa = buf_a[pair], pb = buf_b[pair];
#pragma unroll
        for (int x = 0; x < G::SUB; ++x) {
          fa[x] |= row_word<TS>(a_tiles, pa, x * 8 + grp) << (e * TS);
          fb[x] |= row_word<TS>(bt_tiles, pb, x * 8 + grp) << (e * TS);
        }
      }
    }
#pragma unroll
    for (int x = 0; x < G::SUB; ++x)
#pragma unroll
      for (int y = 0; y < G::SUB; ++y) mma_and_popc(acc[x][y][0], acc[x][y][1], fa[x], fb[y]);
  }
}

__device__ __forceinline__ unsigned hash_slot(unsigned k, int bits) {
  return (k * 2654435761u) >> (32 - bits);  // Fibonacci hashing
}

// offset of column block k in the hashed A(I), or -1
__device__ __forceinline__ int hash_find(const unsigned* keys, const unsigned short* vals,
                                         int bits, unsigned k) {
  const unsigned mask = (1u << bits) - 1u;
  for (unsigned h = hash_slot(k, bits);; h = (h + 1) & mask) {
    const unsigned x = keys[h];
    if (x == k) return vals[h];
    if (x == BG_EMPTY) return -1;
  }
}

// A whole tile of t = 4 (4 bytes) or 8 (8 bytes) as one word: streamed
// with the column blocks, so an MMA round needs no dependent load of BT's
// tiles (A's tile row, reused by every task of the row, stays in L1).
template <int TS> struct TileWord { typedef unsigned long long type; };
template <> struct TileWord<4> { typedef unsigned type; };

template <int TS, typename W>
__device__ __forceinline__ typename TileWord<TS>::type tile_whole(const W* __restrict__ tiles,
                                                                  long long p) {
  return reinterpret_cast<const typename TileWord<TS>::type*>(tiles)[p];
}

// acc += the products of the n matched pairs (A tile buf_a[m], BT tile
// bits buf_d[m]) for t <= 8: as mma_pairs, bit-row r of the BT tile being
// byte r of its word.
template <int TS, typename W>
__device__ __forceinline__ void mma_pairs_whole(
    const W* __restrict__ a_tiles, const long long* buf_a,
    const typename TileWord<TS>::type* buf_d, int n,
    int (&acc)[Geometry<TS>::SUB][Geometry<TS>::SUB][2], int lane) {
  using G = Geometry<TS>;
  const int quad = lane & 3, grp = lane >> 2;
  const unsigned rmask = (1u << TS) - 1u;
  for (int g = 0; g < n; g += G::PPM) {
    unsigned fa = 0u, fb = 0u;
#pragma unroll
    for (int e = 0; e < G::PPL; ++e) {
      const int pair = g + quad * G::PPL + e;
      if (pair < n && grp < TS) {
        fa |= row_word<TS>(a_tiles, buf_a[pair], grp) << (e * TS);
        fb |= ((unsigned)(buf_d[pair] >> (8 * grp)) & rmask) << (e * TS);
      }
    }
    mma_and_popc(acc[0][0][0], acc[0][0][1], fa, fb);
  }
}

// acc += the products of A(I) (hashed, tiles from a0) and BT(J) = tiles
// [b0, b1): BT(J) streamed, 32 x U blocks per step, the next step's loads
// issued before this step's lookups (two steps in flight per warp); for
// t <= 8 the tiles' bits come with their column blocks (buf_d).
template <int TS, typename W, typename I>
__device__ __forceinline__ void stream_product(
    const unsigned* hkeys, const unsigned short* hvals, int bits, long long a0,
    const W* __restrict__ a_tiles, const I* __restrict__ bt_colind,
    const W* __restrict__ bt_tiles, long long b0, long long b1, long long* buf_a,
    long long* buf_b, typename TileWord<TS>::type* buf_d,
    int (&acc)[Geometry<TS>::SUB][Geometry<TS>::SUB][2], int lane) {
  constexpr int U = 4;
  constexpr bool WHOLE = TS <= 8;
  typedef typename TileWord<TS>::type D;
  I k[U];  // column blocks, -1 past the end
  D d[U];  // their tiles (t <= 8)
#pragma unroll
  for (int u = 0; u < U; ++u) {
    const long long q = b0 + u * 32 + lane;
    k[u] = q < b1 ? bt_colind[q] : (I)-1;
    if constexpr (WHOLE) d[u] = q < b1 ? tile_whole<TS>(bt_tiles, q) : (D)0;
  }
  for (long long base = b0; base < b1; base += 32 * U) {
    I kn[U];
    D dn[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const long long q = base + (U + u) * 32 + lane;
      kn[u] = q < b1 ? bt_colind[q] : (I)-1;
      if constexpr (WHOLE) dn[u] = q < b1 ? tile_whole<TS>(bt_tiles, q) : (D)0;
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int pa = k[u] >= 0 ? hash_find(hkeys, hvals, bits, (unsigned)k[u]) : -1;
      const unsigned m = __ballot_sync(BG_FULL, pa >= 0);
      if (m) {  // warp-uniform
        if (pa >= 0) {
          const int at = __popc(m & ((1u << lane) - 1u));
          buf_a[at] = a0 + pa;
          if constexpr (WHOLE) buf_d[at] = d[u];
          else buf_b[at] = base + u * 32 + lane;
        }
        __syncwarp();
        if constexpr (WHOLE) mma_pairs_whole<TS, W>(a_tiles, buf_a, buf_d, __popc(m), acc, lane);
        else mma_pairs<TS, W>(a_tiles, bt_tiles, buf_a, buf_b, __popc(m), acc, lane);
        __syncwarp();
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      k[u] = kn[u];
      if constexpr (WHOLE) d[u] = dn[u];
    }
  }
}

// acc += the products of the matched pairs of short[s0:s1) (tile indices
// of the shorter of A(I), BT(J)) against long[lo:hi). Warp-uniform control.
template <int TS, typename W, typename I>
__device__ __forceinline__ void tile_product(
    const I* __restrict__ a_colind, const W* __restrict__ a_tiles,
    const I* __restrict__ bt_colind, const W* __restrict__ bt_tiles, bool a_short,
    long long s0, long long s1, long long lo, long long hi, long long* buf_a, long long* buf_b,
    int (&acc)[Geometry<TS>::SUB][Geometry<TS>::SUB][2], int lane) {
  const I* __restrict__ sc = a_short ? a_colind : bt_colind;
  const I* __restrict__ lc = a_short ? bt_colind : a_colind;
  for (long long base = s0; base < s1 && lo < hi; base += 32) {
    const long long p = base + lane;
    long long q = hi;
    bool match = false;
    if (p < s1) {
      const long long k = (long long)sc[p];
      q = lower_bound(lc, lo, hi, k);
      match = q < hi && (long long)lc[q] == k;
    }
    const unsigned m = __ballot_sync(BG_FULL, match);
    // keys ascend with the lane: the next 32 start at the last one's bound
    const int last = (int)(s1 - 1 - base < 31 ? s1 - 1 - base : 31);
    const long long next_lo = __shfl_sync(BG_FULL, q, last);
    if (match) {
      const int at = __popc(m & ((1u << lane) - 1u));
      buf_a[at] = a_short ? p : q;
      buf_b[at] = a_short ? q : p;
    }
    __syncwarp();
    mma_pairs<TS, W>(a_tiles, bt_tiles, buf_a, buf_b, __popc(m), acc, lane);
    __syncwarp();
    lo = next_lo;
  }
}

// The accumulators to the warp's t x t tile in shared memory, then row
// I*t + r's mask entries in the tile (lane r) get their counts: stored, or
// added (``add``: a chunk of a deferred task). ``mcol`` (not null): the
// tile row's mask columns staged in shared memory, entries m0 + [mrow[r],
// mrow[r+1]) for row r; else the rows are searched in global memory.
template <int TS, typename I>
__device__ __forceinline__ void store_tile(
    const int (&acc)[Geometry<TS>::SUB][Geometry<TS>::SUB][2], int* c_tile, long long ti,
    long long tj, const I* __restrict__ m_indptr, const I* __restrict__ m_indices,
    long long nrows, const unsigned* mcol, const int* mrow, long long m0,
    unsigned long long* __restrict__ counts, bool add, int lane) {
  using G = Geometry<TS>;
  const int quad = lane & 3, grp = lane >> 2;
#pragma unroll
  for (int x = 0; x < G::SUB; ++x)
#pragma unroll
    for (int y = 0; y < G::SUB; ++y) {
      const int r = x * 8 + grp, c = y * 8 + 2 * quad;
      if (r < TS && c < TS) {
        c_tile[r * TS + c] = acc[x][y][0];
        c_tile[r * TS + c + 1] = acc[x][y][1];
      }
    }
  __syncwarp();
  if (lane < TS) {
    const long long j0 = tj * TS;
    if (mcol != nullptr) {
      const int e = mrow[lane + 1];
      int lo = mrow[lane], hi = e;
      while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if ((long long)mcol[mid] < j0) lo = mid + 1;
        else hi = mid;
      }
      for (int s = lo; s < e; ++s) {
        const long long c = (long long)mcol[s] - j0;
        if (c >= TS) break;
        const int v = c_tile[lane * TS + c];
        if (!add) counts[m0 + s] = (unsigned long long)v;
        else if (v) atomicAdd(counts + m0 + s, (unsigned long long)v);
      }
    } else if (ti * TS + lane < nrows) {
      const long long i = ti * TS + lane;
      const long long e = (long long)m_indptr[i + 1];
      for (long long s = lower_bound(m_indices, (long long)m_indptr[i], e, j0); s < e; ++s) {
        const long long c = (long long)m_indices[s] - j0;
        if (c >= TS) break;
        const int v = c_tile[lane * TS + c];
        if (!add) counts[s] = (unsigned long long)v;
        else if (v) atomicAdd(counts + s, (unsigned long long)v);
      }
    }
  }
  __syncwarp();
}

// A block per output tile row (from ``row_order`` through an atomic
// counter), a warp per task of the row (tasks task_ptr[I] .. task_ptr[I+1]:
// column block task_j, BT(J) = tiles task_b0 .. task_b1; the next task's
// three loaded while this one runs). The tile row's mask columns are staged
// in shared memory when they fit (``stage_ok``: columns < 2^32). A hashed
// A(I) streams BT(J) while |BT(J)| <= stream * ceil(|A(I)| / 32) (the
// binary search costs about log2 |BT(J)| dependent loads per 32 blocks of
// A(I), the stream 1/128 load per block); otherwise the binary-search path,
// whose tasks with a shorter list over ``heavy`` tiles store zeros and go
// to ``heavy_list``.
template <int TS, typename W, typename I>
__global__ void __launch_bounds__(Geometry<TS>::WARPS * 32, Geometry<TS>::BLOCKS)
bmm_rows(const I* __restrict__ a_rowptr, const I* __restrict__ a_colind,
         const W* __restrict__ a_tiles, const I* __restrict__ bt_rowptr,
         const I* __restrict__ bt_colind, const W* __restrict__ bt_tiles,
         const I* __restrict__ m_indptr, const I* __restrict__ m_indices, long long nrows,
         const long long* __restrict__ task_ptr, const I* __restrict__ task_j,
         const I* __restrict__ task_b0, const I* __restrict__ task_b1,
         const long long* __restrict__ row_order, long long nwork,
         unsigned long long* __restrict__ row_counter, bool hash_ok, bool stage_ok,
         long long stream, long long heavy, long long* __restrict__ heavy_list,
         unsigned long long* __restrict__ nheavy, unsigned long long* __restrict__ counts) {
  using G = Geometry<TS>;
  __shared__ unsigned hkeys[BG_HCAP];
  __shared__ unsigned short hvals[BG_HCAP];
  __shared__ unsigned mcol[BG_MCAP];
  __shared__ int mrow[TS + 1];
  __shared__ long long buf_a[G::WARPS][32], buf_b[G::WARPS][32];
  __shared__ typename TileWord<TS>::type buf_d[G::WARPS][32];
  __shared__ int c_tile[G::WARPS][TS * TS];
  __shared__ long long next_row;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  for (int h = threadIdx.x; h < BG_HCAP; h += blockDim.x) hkeys[h] = BG_EMPTY;
  for (;;) {
    __syncthreads();  // the last row's table, mask columns and next_row are free
    if (threadIdx.x == 0) next_row = (long long)atomicAdd(row_counter, 1ull);
    __syncthreads();
    const long long r = next_row;
    if (r >= nwork) break;
    const long long ti = row_order[r];
    const long long a0 = (long long)a_rowptr[ti], a1 = (long long)a_rowptr[ti + 1];
    const long long la = a1 - a0;
    const long long m0 = (long long)m_indptr[ti * TS];
    const long long m1 = (long long)m_indptr[ti * TS + TS < nrows ? ti * TS + TS : nrows];
    const bool use_hash = hash_ok && la > 0 && la <= HASH_MAX;
    const bool staged = stage_ok && m1 - m0 <= BG_MCAP;
    int bits = 5;
    while ((1ll << bits) < 2 * la && bits < 12) ++bits;
    if (use_hash) {
      const unsigned mask = (1u << bits) - 1u;
      for (long long p = a0 + threadIdx.x; p < a1; p += blockDim.x) {
        const unsigned k = (unsigned)a_colind[p];
        unsigned h = hash_slot(k, bits);
        while (atomicCAS(&hkeys[h], BG_EMPTY, k) != BG_EMPTY) h = (h + 1) & mask;
        hvals[h] = (unsigned short)(p - a0);
      }
    }
    if (staged) {
      for (long long p = m0 + threadIdx.x; p < m1; p += blockDim.x)
        mcol[p - m0] = (unsigned)m_indices[p];
      if (threadIdx.x <= TS) {
        const long long i = ti * TS + threadIdx.x;
        mrow[threadIdx.x] = (int)((long long)m_indptr[i < nrows ? i : nrows] - m0);
      }
    }
    __syncthreads();
    const long long tk1 = task_ptr[ti + 1];
    long long w = task_ptr[ti] + warp;
    long long tj = 0, b0 = 0, b1 = 0;
    if (w < tk1) tj = (long long)task_j[w], b0 = (long long)task_b0[w], b1 = (long long)task_b1[w];
    for (; w < tk1; w += G::WARPS) {
      // the next task's column block and BT(J) range, in flight meanwhile
      long long tjn = 0, b0n = 0, b1n = 0;
      if (w + G::WARPS < tk1) {
        tjn = (long long)task_j[w + G::WARPS];
        b0n = (long long)task_b0[w + G::WARPS];
        b1n = (long long)task_b1[w + G::WARPS];
      }
      const long long lb = b1 - b0;
      int acc[G::SUB][G::SUB][2];
#pragma unroll
      for (int x = 0; x < G::SUB; ++x)
#pragma unroll
        for (int y = 0; y < G::SUB; ++y) acc[x][y][0] = acc[x][y][1] = 0;
      if (la > 0 && lb > 0) {
        if (use_hash && lb <= stream * ((la + 31) / 32)) {
          stream_product<TS, W, I>(hkeys, hvals, bits, a0, a_tiles, bt_colind, bt_tiles, b0, b1,
                                   buf_a[warp], buf_b[warp], buf_d[warp], acc, lane);
        } else {
          const bool a_short = la <= lb;
          if ((a_short ? la : lb) > heavy) {
            if (lane == 0) heavy_list[atomicAdd(nheavy, 1ull)] = w;
          } else {
            tile_product<TS, W, I>(a_colind, a_tiles, bt_colind, bt_tiles, a_short,
                                   a_short ? a0 : b0, a_short ? a1 : b1, a_short ? b0 : a0,
                                   a_short ? b1 : a1, buf_a[warp], buf_b[warp], acc, lane);
          }
        }
      }
      store_tile<TS, I>(acc, c_tile[warp], ti, tj, m_indptr, m_indices, nrows,
                        staged ? mcol : nullptr, mrow, m0, counts, false, lane);
      tj = tjn, b0 = b0n, b1 = b1n;
    }
    if (use_hash) {
      __syncthreads();
      for (int h = threadIdx.x; h < (1 << bits); h += blockDim.x) hkeys[h] = BG_EMPTY;
    }
  }
}

// The deferred tasks, chunk by chunk: item c of task heavy_list[h] for
// chunk_ptr[h] <= c < chunk_ptr[h + 1], ``chunk`` tiles of its shorter list.
template <int TS, typename W, typename I>
__global__ void __launch_bounds__(Geometry<TS>::WARPS * 32)
bmm_heavy(const I* __restrict__ a_rowptr, const I* __restrict__ a_colind,
          const W* __restrict__ a_tiles, const I* __restrict__ bt_rowptr,
          const I* __restrict__ bt_colind, const W* __restrict__ bt_tiles,
          const I* __restrict__ m_indptr, const I* __restrict__ m_indices, long long nrows,
          const I* __restrict__ task_i, const I* __restrict__ task_j,
          const long long* __restrict__ heavy_list, const long long* __restrict__ chunk_ptr,
          long long nheavy, long long chunk, unsigned long long* __restrict__ counts) {
  using G = Geometry<TS>;
  __shared__ long long buf_a[G::WARPS][32], buf_b[G::WARPS][32];
  __shared__ int c_tile[G::WARPS][TS * TS];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const long long warps = (long long)gridDim.x * G::WARPS;
  const long long items = chunk_ptr[nheavy];
  for (long long w = (long long)blockIdx.x * G::WARPS + warp; w < items; w += warps) {
    // the last h with chunk_ptr[h] <= w
    long long lo = 0, hi = nheavy;
    while (hi - lo > 1) {
      const long long mid = (lo + hi) >> 1;
      if (chunk_ptr[mid] <= w) lo = mid;
      else hi = mid;
    }
    const long long task = heavy_list[lo], c = w - chunk_ptr[lo];
    const long long ti = (long long)task_i[task], tj = (long long)task_j[task];
    const long long a0 = (long long)a_rowptr[ti], a1 = (long long)a_rowptr[ti + 1];
    const long long b0 = (long long)bt_rowptr[tj], b1 = (long long)bt_rowptr[tj + 1];
    const bool a_short = a1 - a0 <= b1 - b0;
    const long long s0 = (a_short ? a0 : b0) + c * chunk;
    const long long s1e = a_short ? a1 : b1;
    const long long s1 = s0 + chunk < s1e ? s0 + chunk : s1e;
    int acc[G::SUB][G::SUB][2];
#pragma unroll
    for (int x = 0; x < G::SUB; ++x)
#pragma unroll
      for (int y = 0; y < G::SUB; ++y) acc[x][y][0] = acc[x][y][1] = 0;
    tile_product<TS, W, I>(a_colind, a_tiles, bt_colind, bt_tiles, a_short, s0, s1,
                           a_short ? b0 : a0, a_short ? b1 : a1, buf_a[warp], buf_b[warp], acc,
                           lane);
    store_tile<TS, I>(acc, c_tile[warp], ti, tj, m_indptr, m_indices, nrows, nullptr, nullptr, 0,
                      counts, true, lane);
  }
}

// out[t*K + c] += the bits of column c of each tile (K its column block):
// a thread per tile (the unmasked total's column counts).
template <int TS, typename W, typename I>
__global__ void column_counts(const I* __restrict__ colind, const W* __restrict__ tiles,
                              long long ntiles, unsigned long long* __restrict__ out) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < ntiles; p += stride) {
    unsigned w[TS];
#pragma unroll
    for (int r = 0; r < TS; ++r) w[r] = (unsigned)tiles[p * TS + r];
    const long long c0 = (long long)colind[p] * TS;
#pragma unroll
    for (int c = 0; c < TS; ++c) {
      unsigned n = 0;
#pragma unroll
      for (int r = 0; r < TS; ++r) n += (w[r] >> c) & 1u;
      if (n) atomicAdd(out + c0 + c, (unsigned long long)n);
    }
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles those it uses, by name expression
template __global__ void mask_rows<int>(const int*, long long, int*);
template __global__ void tile_leaders<8, int>(const int*, const int*, const int*, long long,
                                              unsigned char*);
template __global__ void bmm_rows<8, unsigned char, int>(
    const int*, const int*, const unsigned char*, const int*, const int*, const unsigned char*,
    const int*, const int*, long long, const long long*, const int*, const int*, const int*,
    const long long*, long long, unsigned long long*, bool, bool, long long, long long,
    long long*, unsigned long long*, unsigned long long*);
template __global__ void bmm_rows<32, unsigned int, long long>(
    const long long*, const long long*, const unsigned int*, const long long*, const long long*,
    const unsigned int*, const long long*, const long long*, long long, const long long*,
    const long long*, const long long*, const long long*, const long long*, long long,
    unsigned long long*, bool, bool, long long, long long, long long*, unsigned long long*,
    unsigned long long*);
template __global__ void bmm_heavy<32, unsigned int, long long>(
    const long long*, const long long*, const unsigned int*, const long long*, const long long*,
    const unsigned int*, const long long*, const long long*, long long, const long long*,
    const long long*, const long long*, const long long*, long long, long long,
    unsigned long long*);
template __global__ void column_counts<16, unsigned short, int>(const int*, const unsigned short*,
                                                                long long, unsigned long long*);
