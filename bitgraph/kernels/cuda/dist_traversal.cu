// One rank's local step of the partitioned calls (bitgraph/distributed/
// partitioned.py) on a graph split by rows: the rank owns the vertices
// lo .. lo + n_local (lo a multiple of 64, so its bits are whole uint32 words
// of the global bitmaps, from word lo / 32) and holds their rows as a CSR
// with global column ids: indptr[n_local + 1] (int64), indices (V: int or
// long long). The launcher is dist_traversal.py.
//
// BFS, a level:
//   dt_frontier   the rank's frontier rows compacted into a list (unsigned
//                 local row ids, warp-aggregated appends) and Beamer's
//                 counts: counts[0] the frontier's out-edges, counts[1] its
//                 size (= the list's length), counts[2] the unvisited rows'
//                 out-edges (zeroed by the launcher before)
//   dt_topdown    `group` lanes per listed row set its targets' bits in
//                 next (global words) with atomicOr, skipping the visited
//                 and the bits already set; rows over light_max (listed
//                 apart by dt_frontier) by dt_topdown_heavy, every thread of
//                 the grid on one row at a time
//   dt_bottomup   a thread per local row: an unvisited row scans its
//                 in-edges and stops at the first in the global frontier;
//                 a warp covers one word of the rank's rows and lane 0
//                 writes it (every local word written, no zeroing)
//   dt_update     the next frontier = OR of the parts (the ranks' gathered
//                 next words, or the one gathered bottom-up bitmap) and not
//                 visited; visited |= it; the rank's new rows get `level`
// A top-down level that sends ids to their owners (bfs_topdown_exchange
// "ids"), after dt_topdown:
//   dt_owner_counts  the set bits of next counted by owner (owner r holds
//                 words word_starts[r] .. word_starts[r + 1]; a block sums
//                 in shared memory, then one atomicAdd an owner)
//   dt_pack       the set bits' ids written into their owner's segment of
//                 ids (cursors[r]: the segment's next free slot, from its
//                 start; a warp whose words share an owner takes its slots
//                 with one atomicAdd)
//   dt_mark       the received ids (all the rank's own) not visited set in
//                 found (the rank's words) with atomicOr
// Components, a FastSV round: dt_hook. PageRank, an iteration: dt_pull.
//
// The warp loops below step a warp-aligned index by the grid's threads
// (the block size a multiple of 32), so every lane of a warp takes the
// same trips and the warp intrinsics see the whole warp.

namespace {

__device__ __forceinline__ bool bit_of(const unsigned* words, long long i) {
  return (words[i >> 5] >> (i & 31)) & 1u;
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long x) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
  return x;
}

// the warp's lanes with `take` append their `value` to list at the next
// free slots (*count, one atomicAdd a warp); every lane of the warp calls it
__device__ __forceinline__ void warp_append(bool take, unsigned value, unsigned* list,
                                            unsigned long long* count, int lane) {
  const unsigned mask = __ballot_sync(0xffffffffu, take);
  if (!mask) return;
  unsigned long long at = 0;
  if (lane == 0) at = atomicAdd(count, (unsigned long long)__popc(mask));
  at = __shfl_sync(0xffffffffu, at, 0);
  if (take) list[at + __popc(mask & ((1u << lane) - 1u))] = value;
}

// The owner of global word g (< word_starts[owners]): the last rank r <
// owners with word_starts[r] <= g (a rank without rows starts where the
// next one does, so the last such rank is the one holding g).
__device__ __forceinline__ int owner_of(const long long* __restrict__ word_starts, int owners,
                                        long long g) {
  int a = 0, b = owners - 1;
  while (a < b) {
    const int m = (a + b + 1) >> 1;
    if (word_starts[m] <= g) {
      a = m;
    } else {
      b = m - 1;
    }
  }
  return a;
}

}  // namespace

__global__ void dt_frontier(const long long* __restrict__ indptr,
                            const unsigned* __restrict__ frontier,
                            const unsigned* __restrict__ visited, long long lo,
                            long long n_local, unsigned* __restrict__ list,
                            unsigned long long* __restrict__ counts, long long light_max,
                            unsigned* __restrict__ heavy) {
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long w0 = lo >> 5;  // the rank's first global word
  unsigned long long m_f = 0, m_u = 0;
  for (long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31);
       base < n_local; base += stride) {
    const long long i = base + lane;
    bool in_f = false, big = false;
    if (i < n_local) {
      const long long deg = indptr[i + 1] - indptr[i];
      in_f = bit_of(frontier + w0, i);
      big = in_f && deg > light_max;
      if (in_f) m_f += deg;
      if (!bit_of(visited + w0, i)) m_u += deg;
    }
    warp_append(in_f, (unsigned)i, list, counts + 1, lane);
    // the rows over light_max, listed apart for dt_topdown_heavy (counts[3])
    warp_append(big, (unsigned)i, heavy, counts + 3, lane);
  }
  m_f = warp_sum(m_f);
  m_u = warp_sum(m_u);
  if (lane == 0) {
    if (m_f) atomicAdd(counts, m_f);
    if (m_u) atomicAdd(counts + 2, m_u);
  }
}

template <typename V>
__device__ __forceinline__ void mark_target(const V* __restrict__ indices, long long e,
                                            const unsigned* __restrict__ visited,
                                            unsigned* next) {
  const long long c = (long long)indices[e];
  const unsigned b = 1u << (c & 31);
  if ((visited[c >> 5] & b) == 0 && (next[c >> 5] & b) == 0) atomicOr(next + (c >> 5), b);
}

template <typename V>
__global__ void dt_topdown(const long long* __restrict__ indptr, const V* __restrict__ indices,
                           const unsigned* __restrict__ list,
                           const unsigned long long* __restrict__ counts,
                           const unsigned* __restrict__ visited, unsigned* next, int group,
                           long long light_max) {
  const long long listed = (long long)counts[1];
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long groups = (long long)gridDim.x * blockDim.x / group;
  const int sub = (int)(t % group);
  for (long long k = t / group; k < listed; k += groups) {
    const long long row = list[k];
    const long long start = indptr[row], end = indptr[row + 1];
    if (end - start > light_max) continue;  // dt_topdown_heavy's
    for (long long e = start + sub; e < end; e += group) mark_target(indices, e, visited, next);
  }
}

// the listed rows over light_max (dt_frontier's heavy list, counts[3] of
// them, a kron hub's 10^6 entries among them), each walked by every thread
// of the grid in turn
template <typename V>
__global__ void dt_topdown_heavy(const long long* __restrict__ indptr,
                                 const V* __restrict__ indices,
                                 const unsigned* __restrict__ heavy,
                                 const unsigned long long* __restrict__ counts,
                                 const unsigned* __restrict__ visited, unsigned* next) {
  const long long nheavy = (long long)counts[3];
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long h = 0; h < nheavy; ++h) {
    const long long row = heavy[h];
    const long long end = indptr[row + 1];
    for (long long e = indptr[row] + t; e < end; e += stride)
      mark_target(indices, e, visited, next);
  }
}

template <typename V>
__global__ void dt_bottomup(const long long* __restrict__ indptr,
                            const V* __restrict__ indices,
                            const unsigned* __restrict__ frontier,
                            const unsigned* __restrict__ visited, long long lo,
                            long long n_local, unsigned* __restrict__ found) {
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long w0 = lo >> 5;
  for (long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31);
       base < n_local; base += stride) {
    const long long i = base + lane;
    const unsigned seen = visited[w0 + (base >> 5)];  // the warp's word
    bool hit = false;
    if (i < n_local && !((seen >> lane) & 1u)) {
      const long long end = indptr[i + 1];
      for (long long e = indptr[i]; e < end; ++e) {
        if (bit_of(frontier, (long long)indices[e])) {
          hit = true;
          break;
        }
      }
    }
    const unsigned word = __ballot_sync(0xffffffffu, hit);
    if (lane == 0) found[base >> 5] = word;
  }
}

__global__ void dt_update(const unsigned* __restrict__ parts, int nparts, long long nwords,
                          unsigned* __restrict__ visited, unsigned* __restrict__ frontier,
                          int* __restrict__ levels, long long lo, long long n_local, int level) {
  const long long w0 = lo >> 5;
  const long long w1 = w0 + ((n_local + 31) >> 5);
  for (long long g = (long long)blockIdx.x * blockDim.x + threadIdx.x; g < nwords;
       g += (long long)gridDim.x * blockDim.x) {
    unsigned w = 0;
    for (int r = 0; r < nparts; ++r) w |= parts[(long long)r * nwords + g];
    w &= ~visited[g];
    visited[g] |= w;
    frontier[g] = w;
    if (g >= w0 && g < w1) {
      while (w) {
        const int b = __ffs(w) - 1;
        w &= w - 1;
        const long long i = (g - w0) * 32 + b;
        if (i < n_local) levels[i] = level;
      }
    }
  }
}

__global__ void dt_owner_counts(const unsigned* __restrict__ next, long long nwords,
                                const long long* __restrict__ word_starts, int owners,
                                unsigned long long* __restrict__ counts) {
  extern __shared__ unsigned long long block_counts[];  // owners of them
  for (int r = threadIdx.x; r < owners; r += blockDim.x) block_counts[r] = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31);
       base < nwords; base += stride) {
    const long long g = base + lane;
    const unsigned c = g < nwords ? __popc(next[g]) : 0u;
    if (__any_sync(0xffffffffu, c != 0u)) {
      const int r = owner_of(word_starts, owners, g < nwords ? g : nwords - 1);
      const int r0 = __shfl_sync(0xffffffffu, r, 0);
      if (__all_sync(0xffffffffu, r == r0)) {
        const unsigned long long total = warp_sum(c);
        if (lane == 0) atomicAdd(block_counts + r0, total);
      } else if (c) {
        atomicAdd(block_counts + r, (unsigned long long)c);
      }
    }
  }
  __syncthreads();
  for (int r = threadIdx.x; r < owners; r += blockDim.x) {
    if (block_counts[r]) atomicAdd(counts + r, block_counts[r]);
  }
}

template <typename I>
__global__ void dt_pack(const unsigned* __restrict__ next, long long nwords,
                        const long long* __restrict__ word_starts, int owners,
                        unsigned long long* __restrict__ cursors, I* __restrict__ ids) {
  const int lane = threadIdx.x & 31;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31);
       base < nwords; base += stride) {
    const long long g = base + lane;
    unsigned w = g < nwords ? next[g] : 0u;
    const unsigned c = __popc(w);
    if (!__any_sync(0xffffffffu, c != 0u)) continue;
    const int r = owner_of(word_starts, owners, g < nwords ? g : nwords - 1);
    const int r0 = __shfl_sync(0xffffffffu, r, 0);
    unsigned long long at;
    if (__all_sync(0xffffffffu, r == r0)) {
      unsigned upto = c;  // inclusive scan of c over the warp
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const unsigned y = __shfl_up_sync(0xffffffffu, upto, o);
        if (lane >= o) upto += y;
      }
      const unsigned total = __shfl_sync(0xffffffffu, upto, 31);
      unsigned long long first = 0;
      if (lane == 0) first = atomicAdd(cursors + r0, (unsigned long long)total);
      at = __shfl_sync(0xffffffffu, first, 0) + (upto - c);
    } else {
      at = c ? atomicAdd(cursors + r, (unsigned long long)c) : 0ull;
    }
    while (w) {
      const int b = __ffs(w) - 1;
      w &= w - 1;
      ids[at++] = (I)(g * 32 + b);
    }
  }
}

template <typename I>
__global__ void dt_mark(const I* __restrict__ ids, long long count,
                        const unsigned* __restrict__ visited, long long lo,
                        unsigned* found) {
  const long long w0 = lo >> 5;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count;
       k += (long long)gridDim.x * blockDim.x) {
    const long long i = (long long)ids[k] - lo;  // a local row
    const unsigned b = 1u << (i & 31);
    if ((visited[w0 + (i >> 5)] & b) == 0 && (found[i >> 5] & b) == 0) {
      atomicOr(found + (i >> 5), b);
    }
  }
}

// entry e = (u, v) of FastSV's hooks: gf[v] folded into (low, any), the
// minimum over a row's entries; with both, fn[f[v]] and fn[v] lowered to gu
template <typename V, typename L>
__device__ __forceinline__ void hook_entry(const V* __restrict__ indices, long long e,
                                           const L* __restrict__ f, const L* __restrict__ gf,
                                           L* fn, L gu, int both, L& low, bool& any) {
  const long long v = (long long)indices[e];
  const L g = gf[v];
  if (!any || g < low) low = g;
  any = true;
  if (both) {
    const L fv = f[v];
    if (gu < fn[fv]) atomicMin(fn + fv, gu);
    if (gu < fn[v]) atomicMin(fn + v, gu);
  }
}

// row u's hooks from its entries' minimum: fn[f[u]] and fn[u] lowered to it
template <typename L>
__device__ __forceinline__ void hook_row(L* fn, long long u, L fu, L low) {
  if (low < fn[fu]) atomicMin(fn + fu, low);
  if (low < fn[u]) atomicMin(fn + u, low);
}

// FastSV's hooks over the rank's entries (u, v) (u = lo + row), from the
// round's f and gf, into fn (a copy of f): fn[f[u]] and fn[u] lowered to
// gf[v]; with both, fn[f[v]] and fn[v] lowered to gf[u] too (a directed
// graph's entries taken both ways). Every write is an atomicMin, so the
// round's result does not depend on the order: the array code's round.
// `group` lanes a row; a lane folds the minimum of its entries' gf[v]
// before its two atomics.
// Rows of more than light_max entries are left to dt_hook_heavy (the same
// hooks, such rows cut into chunks, a block a chunk; the atomicMins make
// the result independent of who takes which entry).
template <typename V, typename L>
__global__ void dt_hook(const long long* __restrict__ indptr, const V* __restrict__ indices,
                        long long lo, long long n_local, const L* __restrict__ f,
                        const L* __restrict__ gf, L* fn, int both, int group,
                        long long light_max) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long groups = (long long)gridDim.x * blockDim.x / group;
  const int sub = (int)(t % group);
  for (long long row = t / group; row < n_local; row += groups) {
    const long long u = lo + row;
    const long long end = indptr[row + 1];
    if (end - indptr[row] > light_max) continue;  // dt_hook_heavy's
    const L fu = f[u];
    const L gu = gf[u];
    bool any = false;
    L low = 0;
    for (long long e = indptr[row] + sub; e < end; e += group)
      hook_entry(indices, e, f, gf, fn, gu, both, low, any);
    if (any) hook_row(fn, u, fu, low);
  }
}

// dt_hook's hooks of the rows of more than light_max entries (a kron hub's
// 10^6), cut into chunks of `chunk` entries (kernels/cuda/pagerank.py's
// heavy_chunks: heavy_rows[h], its chunks heavy_first[h] .. heavy_first[h +
// 1] - 1, chunk c's row chunk_heavy[c]), a block a chunk, its threads
// striding it; a warp folds its minimum of gf[v] before one pair of
// atomics. The chunks spread every heavy row's entries over the grid at
// once: walking the rows one at a time with the whole grid made each thread
// pass over every heavy row (kronh-26 over 2 H200s: a components call 186
// -> 621 ms).
template <typename V, typename L>
__global__ void dt_hook_heavy(const long long* __restrict__ indptr,
                              const V* __restrict__ indices, long long lo,
                              const long long* __restrict__ heavy_rows,
                              const long long* __restrict__ heavy_first,
                              const long long* __restrict__ chunk_heavy, long long nchunks,
                              long long chunk, const L* __restrict__ f,
                              const L* __restrict__ gf, L* fn, int both) {
  const int lane = threadIdx.x & 31;
  for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const long long h = chunk_heavy[c];
    const long long row = heavy_rows[h];
    const long long u = lo + row;
    const long long start = indptr[row] + (c - heavy_first[h]) * chunk;
    const long long end = min(start + chunk, indptr[row + 1]);
    const L fu = f[u];
    const L gu = gf[u];
    bool any = false;
    L low = 0;
    // warp-uniform trip count: the shuffles below see the whole warp
    for (long long base = start + (threadIdx.x & ~31); base < end; base += blockDim.x) {
      const long long e = base + lane;
      if (e < end) hook_entry(indices, e, f, gf, fn, gu, both, low, any);
    }
    for (int o = 16; o > 0; o >>= 1) {
      const L other = __shfl_down_sync(0xffffffffu, low, o);
      const bool has = __shfl_down_sync(0xffffffffu, any, o);
      if (has && (!any || other < low)) low = other;
      any = any || has;
    }
    if (lane == 0 && any) hook_row(fn, u, fu, low);
  }
}

// PageRank's pull over the rank's in-rows: acc[j] = sum of y[i] (* w[e])
// over row j's entries e = (j, i), in three kernels:
//   dt_pull        the rows of at most light_max entries, `group` lanes a
//                  row (a power of 2 up to 32), their partial sums added by
//                  shuffles within the group; longer rows are left alone
//   dt_pull_chunks the longer (heavy) rows cut into chunks of `chunk`
//                  entries, a block a chunk (its threads stride the chunk),
//                  the chunk's sum into chunk_sums[c]
//   dt_pull_rows   a thread a heavy row: its chunks' sums added in chunk
//                  order (no float atomics: the sum does not depend on the
//                  order the chunks ran in) into acc
// (heavy_rows[h]: heavy row h; its chunks heavy_first[h] .. heavy_first[h
// + 1] - 1; chunk_heavy[c]: chunk c's heavy row; kernels/cuda/pagerank.py's
// heavy_chunks.)
template <typename V>
__global__ void dt_pull(const long long* __restrict__ indptr, const V* __restrict__ indices,
                        const double* __restrict__ w, int weighted,
                        const double* __restrict__ y, long long n_local,
                        double* __restrict__ acc, int group, long long light_max) {
  const int lane = threadIdx.x & 31;
  const int sub = lane & (group - 1);
  const long long stride = (long long)gridDim.x * blockDim.x / group;
  // a warp-aligned trip count: every lane of a warp loops the same times
  const long long first = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / group;
  const long long lead = ((long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31)) / group;
  for (long long rb = lead; rb < n_local; rb += stride) {
    const long long row = first + (rb - lead);
    double s = 0.0;
    bool light = false;
    if (row < n_local) {
      const long long start = indptr[row], end = indptr[row + 1];
      light = end - start <= light_max;
      if (light) {
#pragma unroll 4
        for (long long e = start + sub; e < end; e += group) {
          const double x = y[(long long)indices[e]];
          s += weighted ? x * w[e] : x;
        }
      }
    }
    for (int o = group >> 1; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o, group);
    if (sub == 0 && light) acc[row] = s;
  }
}

template <typename V>
__global__ void dt_pull_chunks(const long long* __restrict__ indptr,
                               const V* __restrict__ indices, const double* __restrict__ w,
                               int weighted, const double* __restrict__ y,
                               const long long* __restrict__ heavy_rows,
                               const long long* __restrict__ heavy_first,
                               const long long* __restrict__ chunk_heavy, long long nchunks,
                               long long chunk, double* __restrict__ chunk_sums) {
  __shared__ double scratch[32];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  // block-uniform loop: every thread of the block reaches the barriers
  for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const long long h = chunk_heavy[c];
    const long long r = heavy_rows[h];
    const long long start = indptr[r] + (c - heavy_first[h]) * chunk;
    const long long end = min(start + chunk, indptr[r + 1]);
    double s = 0.0;
#pragma unroll 4
    for (long long e = start + threadIdx.x; e < end; e += blockDim.x) {
      const double x = y[(long long)indices[e]];
      s += weighted ? x * w[e] : x;
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    __syncthreads();  // scratch may still be read for the block's previous chunk
    if (lane == 0) scratch[warp] = s;
    __syncthreads();
    if (warp == 0) {
      s = lane < (int)(blockDim.x >> 5) ? scratch[lane] : 0.0;
      for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
      if (lane == 0) chunk_sums[c] = s;
    }
  }
}

__global__ void dt_pull_rows(const long long* __restrict__ heavy_rows,
                             const long long* __restrict__ heavy_first, long long nheavy,
                             const double* __restrict__ chunk_sums, double* __restrict__ acc) {
  for (long long h = (long long)blockIdx.x * blockDim.x + threadIdx.x; h < nheavy;
       h += (long long)gridDim.x * blockDim.x) {
    double s = 0.0;
    for (long long c = heavy_first[h]; c < heavy_first[h + 1]; ++c) s += chunk_sums[c];
    acc[heavy_rows[h]] = s;
  }
}
