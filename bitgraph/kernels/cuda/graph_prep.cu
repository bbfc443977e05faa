// Per-graph preparation of the CUDA traversals (bfs, msbfs), built once per
// graph and cached on it: row lengths, the bits of the empty rows, and each
// row's entries ordered by the columns' degrees (keys and their sort). Our
// own kernels, shipped precompiled, so that a fresh machine's first
// traversal compiles none of CuPy's elementwise, reduction and sort kernels.
// n rows; indptr[n + 1], indices[nnz] of one index type I.

// deg[i] = indptr[i + 1] - indptr[i] as int (a row of 2^31 entries or more
// does not fit: the caller checks nnz). O(n)
template <typename I>
__global__ void row_lengths(const I* __restrict__ indptr, int* __restrict__ deg, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    deg[i] = (int)(indptr[i + 1] - indptr[i]);
}

// bits[nwords = ceil(n / 32)]: bit b of word w set where row 32 w + b has no
// entries (bits past n clear); live[0] += the rows with entries (zeroed by
// the caller). A thread per word. O(n)
template <typename I>
__global__ void empty_rows(const I* __restrict__ indptr, unsigned int* __restrict__ bits,
                           unsigned long long* __restrict__ live, long long n) {
  const long long nwords = (n + 31) / 32;
  unsigned long long mine = 0;
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
       w += (long long)gridDim.x * blockDim.x) {
    unsigned int word = 0;
    for (int b = 0; b < 32; ++b) {
      const long long i = w * 32 + b;
      if (i < n) {
        if (indptr[i + 1] == indptr[i])
          word |= 1u << b;
        else
          ++mine;
      }
    }
    bits[w] = word;
  }
  if (mine) atomicAdd(live, mine);
}

// keys[p] = (row << 32) | (2^31 - 1 - deg[indices[p]]) for every entry p of
// every row (deg[ncols] >= 0; indptr of type P, indices of I): sorted, a row's entries come largest
// degree first, rows in order. A thread per row. O(n + nnz)
template <typename P, typename I>
__global__ void degree_keys(const P* __restrict__ indptr, const I* __restrict__ indices,
                            const int* __restrict__ deg, long long* __restrict__ keys,
                            long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    const long long high = i << 32;
    for (long long p = indptr[i]; p < (long long)indptr[i + 1]; ++p)
      keys[p] = high | (long long)(2147483647 - deg[indices[p]]);
  }
}

// The stable sort of the (key, value) pairs of degree_keys (values: the
// entries' indices) in two steps, CuPy's argsort and its JIT compile gone:
// sort_chunks sorts each chunk of blockDim.x pairs, merge_runs then merges
// neighbouring sorted runs of w pairs into runs of 2 w (w = blockDim.x,
// doubled until w >= m). Equal keys keep their input order: in a chunk by
// position, in a merge the left run's first. Identical to a stable argsort
// of the keys.

// Chunk c = [c B, min(c B + B, m)), B = blockDim.x (dynamic shared memory:
// B long longs): the pair at chunk position t goes to the chunk position
// rank = #{q : key_q < key_t} + #{q < t : key_q == key_t}. O(B) per pair.
template <typename I>
__global__ void sort_chunks(const long long* __restrict__ keys_in, const I* __restrict__ vals_in,
                            long long* __restrict__ keys_out, I* __restrict__ vals_out,
                            long long m) {
  extern __shared__ long long chunk_keys[];
  const long long B = blockDim.x;
  const int t = threadIdx.x;
  const long long nchunks = (m + B - 1) / B;
  for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {  // uniform in the block
    const long long start = c * B;
    const int count = (int)(m - start < B ? m - start : B);
    if (t < count) chunk_keys[t] = keys_in[start + t];
    __syncthreads();
    if (t < count) {
      const long long k = chunk_keys[t];
      int rank = 0;
      for (int q = 0; q < count; ++q) {
        const long long o = chunk_keys[q];
        rank += (o < k || (o == k && q < t)) ? 1 : 0;
      }
      keys_out[start + rank] = k;
      vals_out[start + rank] = vals_in[start + t];
    }
    __syncthreads();  // the next chunk overwrites chunk_keys
  }
}

// Runs [b, b + w) and [b + w, b + 2 w) (b a multiple of 2 w, both cut at m)
// sorted in keys_in: each merged into [b, b + 2 w) of keys_out. A pair of the
// left run moves right by the right run's keys below its key, one of the
// right run left by the left run's keys above its key (a binary search
// each); runs already in order (the last left key <= the first right one,
// as between rows) are copied. A thread per pair. O(m log w)
template <typename I>
__global__ void merge_runs(const long long* __restrict__ keys_in, const I* __restrict__ vals_in,
                           long long* __restrict__ keys_out, I* __restrict__ vals_out,
                           long long m, long long w) {
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < m;
       p += (long long)gridDim.x * blockDim.x) {
    const long long b = p / (2 * w) * (2 * w);
    const long long mid = b + w < m ? b + w : m;
    const long long end = b + 2 * w < m ? b + 2 * w : m;
    const long long k = keys_in[p];
    long long dst = p;
    if (mid < end && keys_in[mid - 1] > keys_in[mid]) {
      if (p < mid) {  // the right run's keys < k
        long long lo = mid, hi = end;
        while (lo < hi) {
          const long long h = lo + (hi - lo) / 2;
          if (keys_in[h] < k) lo = h + 1; else hi = h;
        }
        dst = p + (lo - mid);
      } else {  // the left run's keys <= k
        long long lo = b, hi = mid;
        while (lo < hi) {
          const long long h = lo + (hi - lo) / 2;
          if (keys_in[h] <= k) lo = h + 1; else hi = h;
        }
        dst = p - (mid - lo);
      }
    }
    keys_out[dst] = k;
    vals_out[dst] = vals_in[p];
  }
}

// A Vector from its flags and values: words[ceil(n / 32)], bit b of word w =
// present[32 w + b] (bits past n clear), and out[i] = present[i] ? values[i]
// : 0 (W: the values' width as an unsigned integer: zero is all bits clear in
// every dtype; out null: the words alone, plan.pack_bits); with has_allowed,
// only where allowed[] has the bit (a mask's words). A warp per word: each
// lane reads one flag (32 adjacent bytes a warp) and the ballot is the word.
// O(n)
template <typename W>
__global__ void present_vector(const bool* __restrict__ present, const W* __restrict__ values,
                               W* __restrict__ out, unsigned int* __restrict__ words,
                               const unsigned int* __restrict__ allowed, bool has_allowed,
                               long long n) {
  const long long nwords = (n + 31) / 32;
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * blockDim.x / 32;
  for (long long w = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32; w < nwords;
       w += warps) {
    const long long i = w * 32 + lane;
    const bool p = i < n && present[i] && (!has_allowed || ((allowed[w] >> lane) & 1u));
    if (out != nullptr && i < n) out[i] = p ? values[i] : (W)0;
    const unsigned int word = __ballot_sync(0xFFFFFFFFu, p);
    if (lane == 0) words[w] = word;
  }
}

// The positions of the set bits of words[nwords], ascending (plan.bit_indices:
// a Vector's indices): block b owns words [b * per, (b + 1) * per) of the
// grid's split. bit_block_counts writes each block's count; bit_positions
// starts each block at the sum of the counts before it and walks its words
// a tile of blockDim.x at a time, a thread a word, the tile's offsets by a
// block scan (warp shuffles, then the warps' totals). out[count] (count: the
// set bits; no write past it whatever the words). O(nwords + count + gridDim^2
// / blockDim)
__global__ void bit_block_counts(const unsigned int* __restrict__ words, long long nwords,
                                 long long per, long long* __restrict__ block_counts) {
  __shared__ long long warp_sums[32];
  const long long lo = blockIdx.x * per, hi = min(lo + per, nwords);
  long long c = 0;
  for (long long w = lo + threadIdx.x; w < hi; w += blockDim.x) c += __popc(words[w]);
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xFFFFFFFFu, c, d);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long t = 0;
    for (int k = 0; k < (int)(blockDim.x >> 5); ++k) t += warp_sums[k];
    block_counts[blockIdx.x] = t;
  }
}

__global__ void bit_positions(const unsigned int* __restrict__ words, long long nwords,
                              long long per, const long long* __restrict__ block_counts,
                              long long* __restrict__ out, long long count) {
  __shared__ long long warp_sums[32];
  __shared__ long long base;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
  // the blocks before this one
  long long c = 0;
  for (long long b = threadIdx.x; b < blockIdx.x; b += blockDim.x) c += block_counts[b];
  for (int d = 16; d > 0; d >>= 1) c += __shfl_down_sync(0xFFFFFFFFu, c, d);
  if (lane == 0) warp_sums[warp] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long t = 0;
    for (int k = 0; k < nw; ++k) t += warp_sums[k];
    base = t;
  }
  __syncthreads();
  const long long lo = blockIdx.x * per, hi = min(lo + per, nwords);
  for (long long t0 = lo; t0 < hi; t0 += blockDim.x) {  // block-uniform
    const long long w = t0 + threadIdx.x;
    const unsigned int x = w < hi ? words[w] : 0u;
    // inclusive scan of the popcounts over the warp, then over the warps
    long long inc = __popc(x);
    for (int d = 1; d < 32; d <<= 1) {
      const long long y = __shfl_up_sync(0xFFFFFFFFu, inc, d);
      if (lane >= d) inc += y;
    }
    __syncthreads();  // warp_sums and base: the tile before is done with them
    if (lane == 31) warp_sums[warp] = inc;
    __syncthreads();
    long long before = base;
    for (int k = 0; k < warp; ++k) before += warp_sums[k];
    long long at = before + inc - __popc(x);
    for (unsigned int r = x; r && at < count; r &= r - 1) out[at++] = w * 32 + (__ffs(r) - 1);
    __syncthreads();
    if (threadIdx.x == blockDim.x - 1) base = before + inc;  // the tile's end
  }
}

// present[i] = bit i & 31 of word i >> 5, i < n (plan.unpack_bits on the
// GPU). A thread per flag. O(n)
__global__ void unpack_words(const unsigned int* __restrict__ words, bool* __restrict__ present,
                             long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x)
    present[i] = (words[i >> 5] >> (i & 31)) & 1u;
}

// *count += the set bits of words[nwords] (count zeroed by the caller;
// plan.count_bits on the GPU): a warp's sum, one atomic a warp. O(nwords)
__global__ void popcount_words(const unsigned int* __restrict__ words, long long nwords,
                               unsigned long long* __restrict__ count) {
  unsigned int c = 0;
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
       w += (long long)gridDim.x * blockDim.x)
    c += __popc(words[w]);
  c = __reduce_add_sync(0xFFFFFFFFu, c);
  if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, (unsigned long long)c);
}

// One hop of bfs.reach's probe (the ball around a source): every entry of
// the frontier's rows front = ball[begin, end) whose column is not yet in
// seen (a bit per vertex) is set there and appended to ball at
// atomicAdd(count) (count = end on entry: the ball is the list of the
// reached vertices in hop order, each once; the next frontier is ball[end,
// *count)). A warp per frontier row, its lanes over the row's entries.
// O(the frontier's entries)
template <typename P, typename I>
__global__ void probe_hop(const P* __restrict__ indptr, const I* __restrict__ indices,
                          I* __restrict__ ball, long long begin, long long end,
                          unsigned int* __restrict__ seen, unsigned long long* __restrict__ count) {
  const int lane = threadIdx.x & 31;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long f = begin + ((blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5); f < end;
       f += warps) {
    const long long u = (long long)ball[f];
    const long long b = (long long)indptr[u], e = (long long)indptr[u + 1];
    for (long long k = b + lane; k < e; k += 32) {
      const long long v = (long long)indices[k];
      const unsigned int bit = 1u << (v & 31);
      if (seen[v >> 5] & bit) continue;  // most heads are reached already: read first
      if (!(atomicOr(&seen[v >> 5], bit) & bit)) ball[atomicAdd(count, 1ull)] = (I)v;
    }
  }
}

// spread[k] = |indices[e] - row(e)| for the entries e = entries[k] (row(e):
// the row holding entry e, the last i with indptr[i] <= e, by a binary search
// over indptr[n + 1]; _common.median_spread's samples). A thread per sample.
// O(samples log n)
template <typename P, typename I>
__global__ void sample_spread(const P* __restrict__ indptr, const I* __restrict__ indices,
                              const long long* __restrict__ entries, long long* __restrict__ spread,
                              long long samples, long long n) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < samples;
       k += (long long)gridDim.x * blockDim.x) {
    const long long e = entries[k];
    long long lo = 0, hi = n;  // indptr[lo] <= e < indptr[hi]
    while (hi - lo > 1) {
      const long long mid = lo + (hi - lo) / 2;
      if ((long long)indptr[mid] <= e) lo = mid; else hi = mid;
    }
    const long long d = (long long)indices[e] - lo;
    spread[k] = d < 0 ? -d : d;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher's
// SPECS name them
template __global__ void present_vector<unsigned long long>(const bool*, const unsigned long long*,
                                                            unsigned long long*, unsigned int*,
                                                            const unsigned int*, bool, long long);
template __global__ void row_lengths<int>(const int*, int*, long long);
template __global__ void row_lengths<long long>(const long long*, int*, long long);
template __global__ void empty_rows<int>(const int*, unsigned int*, unsigned long long*, long long);
template __global__ void empty_rows<long long>(const long long*, unsigned int*, unsigned long long*,
                                               long long);
template __global__ void degree_keys<int, int>(const int*, const int*, const int*, long long*,
                                               long long);
template __global__ void degree_keys<long long, int>(const long long*, const int*, const int*,
                                                     long long*, long long);
template __global__ void degree_keys<int, long long>(const int*, const long long*, const int*,
                                                     long long*, long long);
template __global__ void degree_keys<long long, long long>(const long long*, const long long*,
                                                           const int*, long long*, long long);
template __global__ void sort_chunks<int>(const long long*, const int*, long long*, int*,
                                          long long);
template __global__ void sort_chunks<long long>(const long long*, const long long*, long long*,
                                                long long*, long long);
template __global__ void merge_runs<int>(const long long*, const int*, long long*, int*, long long,
                                         long long);
template __global__ void merge_runs<long long>(const long long*, const long long*, long long*,
                                               long long*, long long, long long);
template __global__ void probe_hop<int, int>(const int*, const int*, int*,
    long long, long long, unsigned int*, unsigned long long*);
template __global__ void sample_spread<int, int>(const int*, const int*,
    const long long*, long long*, long long, long long);
template __global__ void probe_hop<int, long long>(const int*, const long long*, long long*,
    long long, long long, unsigned int*, unsigned long long*);
template __global__ void sample_spread<int, long long>(const int*, const long long*,
    const long long*, long long*, long long, long long);
template __global__ void probe_hop<long long, int>(const long long*, const int*, int*,
    long long, long long, unsigned int*, unsigned long long*);
template __global__ void sample_spread<long long, int>(const long long*, const int*,
    const long long*, long long*, long long, long long);
template __global__ void probe_hop<long long, long long>(const long long*, const long long*,
    long long*, long long, long long, unsigned int*, unsigned long long*);
template __global__ void sample_spread<long long, long long>(const long long*, const long long*,
    const long long*, long long*, long long, long long);
