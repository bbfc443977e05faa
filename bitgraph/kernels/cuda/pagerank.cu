// PageRank's power iteration fused on the GPU: the CUDA twin of
// kernels/cpu/pagerank.py (one launch an iteration, or two with the tiled
// or the striped pull below), a pull over AT, the CSR of A' (row j: the
// in-neighbours i of j).
//
// pagerank_init (once a run) writes the start x0 (given, or uniform) into
// xs[0] and y = x0 * inv_s into ys[0], the rank x0 holds on dangling
// vertices into lost[0], clears *stop and the heavy rows' arrival
// counters. Launch s of pagerank_pull (iteration s, 0-based) reads
// x = xs[s & 1], y = ys[s & 1] (x scaled by 1 / weighted out-degree) and
// lost[s & 1]; it writes
//   x'(j) = alpha * (sum_i y(i) AT(j, i) + lost * dw(j)) + teleport(j)
//   y'(j) = x'(j) * inv_s(j)
// into xs[(s + 1) & 1] and ys[(s + 1) & 1], and reduces on the device
//   e                    = sum_j |x'(j) - x(j)|       (the L1 change)
//   lost[(s + 1) & 1]    = sum of x'(j) over inv_s(j) == 0 (the next iteration's dangling rank)
//   tally[0]             = s + 1                      (iterations run)
//   tally[1]             = e (its bits: a double)     (the last iteration's error)
//   *stop                = e < threshold (converged: n * tol) or s + 1 == tally[2] (max_iter)
// A launch that finds *stop set returns at once and leaves every buffer as
// it is, so the host may queue iterations past the end (a CUDA graph of a
// batch, or a WHILE loop of two iterations a pass that loops.cu's kernel
// ends when *stop is set) and still reads the exact iteration count and the
// error of the last iteration in one 16-byte copy; pagerank_out copies the
// ranks of that iteration, xs[tally[0] & 1], (or scatters them back to the
// graph's own numbering) into the array the run returns.
//
// Work balance, three kinds of rows (the launcher's plan, cached per graph):
// - heavy rows (more than the launcher's split, a setting: a power-law hub
//   holds 10^5 entries) are cut into chunks of `chunk` entries; each chunk
//   is a whole block's (its threads stride the chunk, four independent
//   gathers in flight each).
//   A block writes its chunk's sum to chunk_sums[c] and counts itself in
//   row_arrived[h]; the last chunk of row h to arrive adds the row's chunk
//   sums in chunk order (a per-row second pass, no float atomics: the sum
//   does not depend on the order the chunks ran in) and finishes the row;
//   its error and dangling terms go to heavy_parts[h], [nheavy + h].
// - medium rows (listed in medium_rows: more than light_max entries, at
//   most split): a warp each, its lanes striding the row.
// - light rows (at most light_max entries): a group of G lanes each (G a
//   power of 2 up to 32, the launcher's choice: about four entries a lane
//   of these rows' mean length); lane l adds the row's entries start + l,
//   start + l + G, ... (four gathers in flight), then the group folds its
//   sums by shuffles. A kron graph's rows are mostly a few entries (median
//   5) among rows of hundreds: narrow groups for the first, warps for the
//   second. With no medium rows light_max is split.
// Blocks first take chunks (grid-stride), then warps take medium rows,
// then groups light rows (grid-stride).
// The error and dangling sums are deterministic for a fixed launch shape:
// each block writes its partial sums, the last block to arrive (a counter;
// CUDA's threadFenceReduction sample) adds the blocks' partials in block
// order and the heavy rows' in row order, and resets the counter.
//
// Ranks are gathered from global memory (L2): a copy of the most gathered
// ranks in each block's shared memory (relabelled kron-22, the first 24,576
// or 49,152 float32 ranks) made the whole run 0.72x / 0.70x as fast on an
// H200 (ab.py, 9.9 -> 13.7 / 14.2 ms): the per-block copy costs more than
// the L2 sectors it saves.
//
// The ranks' type T (double, or float: float32 ranks, half the bytes a
// gather reads) is that of x, x_new, y and y_new; every sum is double (a
// row's, a chunk's, the error, the dangling rank), and a rank is rounded
// to T once, when stored: x'(j) as stored is what y'(j), the error and the
// dangling rank are computed from.
//
// Arrays: indptr[n + 1], indices[nnz] (I: int or long long), values[nnz]
// (float64 weights A(i, j); not read when ISO, a structure-only graph:
// every weight 1); heavy_rows[nheavy] (row ids), heavy_first[nheavy + 1]
// (row h's chunks are heavy_first[h] .. heavy_first[h + 1] - 1),
// chunk_heavy[nchunks] (the heavy row of each chunk), medium_rows[nmedium]
// (row ids); y[n], x[n] (T), inv_s[n] (double,
// 0 exactly on dangling vertices; a structure-only graph's int32
// out-degrees read in its place, 1 / d in the kernel, made grid-2048 1.06x
// / 1.11x slower with float64 / float32 ranks on an H200 and left kron-22
// and urand-22 level: ab.py, 5-7 rounds), x_new[n], y_new[n] (T); dw[n] and
// teleport[n] (read unless dw_uniform / tele_uniform: then the scalars dw_c
// / tele_c); lost[2]; partials[2 * gridDim.x]; chunk_sums[nchunks];
// heavy_parts[2 * nheavy]; row_arrived[nheavy] and arrived[1] (0 between
// launches); tally[3] (iterations run, the last error's bits, max_iter); stop[1]. Arrays of no entries are passed as
// one-element dummies. O(n + nnz) a launch; blockDim.x a multiple of 32, at
// most 1024.

template <typename T>
__device__ __forceinline__ T warp_sum(T v, int width) {
  for (int d = width >> 1; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d, width);
  return v;
}

// the block's sum of v (thread 0 gets it); every thread of the block calls it
__device__ __forceinline__ double block_sum(double v, double* scratch) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  v = warp_sum(v, 32);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  const int nwarps = blockDim.x >> 5;
  v = threadIdx.x < nwarps ? scratch[threadIdx.x] : 0.0;
  if (warp == 0) v = warp_sum(v, 32);
  return v;
}

// acc plus y(indices[q]) (times values[q] unless ISO) for q = p, p + step,
// ... < end, added in that order (in double; y of type T widened exactly);
// four gathers issued before their adds.
// (Loads that stream past the caches, ld.cs, for the entries and the
// per-vertex arrays, to keep y in L2, made every graph 3-9% slower on an
// H200.)
template <typename I, bool ISO, typename T>
__device__ __forceinline__ double strided_sum(const I* __restrict__ indices,
                                              const double* __restrict__ values,
                                              const T* __restrict__ y, long long p,
                                              long long end, long long step, double acc) {
  for (; p + 3 * step < end; p += 4 * step) {
    const long long i0 = (long long)indices[p];
    const long long i1 = (long long)indices[p + step];
    const long long i2 = (long long)indices[p + 2 * step];
    const long long i3 = (long long)indices[p + 3 * step];
    const double y0 = (double)y[i0], y1 = (double)y[i1], y2 = (double)y[i2],
                 y3 = (double)y[i3];
    if constexpr (ISO) {
      acc += y0;
      acc += y1;
      acc += y2;
      acc += y3;
    } else {
      acc += values[p] * y0;
      acc += values[p + step] * y1;
      acc += values[p + 2 * step] * y2;
      acc += values[p + 3 * step] * y3;
    }
  }
  for (; p < end; p += step) {
    const double yi = (double)y[(long long)indices[p]];
    if constexpr (ISO) acc += yi;
    else acc += values[p] * yi;
  }
  return acc;
}

// what finishing a row reads and writes: every launch's constants
template <typename T>
struct Update {
  const T* __restrict__ x;
  const double* __restrict__ inv_s;
  const double* __restrict__ dw;
  const double* __restrict__ teleport;
  T* __restrict__ x_new;
  T* __restrict__ y_new;
  double dw_c, tele_c, alpha, lost;
  bool dw_uniform, tele_uniform;
};

// row r from its pulled sum: x'(r) = alpha * (sum + lost * dw(r)) +
// teleport(r) into x_new (rounded to T), y'(r) = x'(r) * inv_s(r) into
// y_new (from x'(r) as stored); returns |x'(r) - x(r)| (the stored ranks'
// change, in double) and adds x'(r) to *dangling where inv_s(r) is 0
template <typename T>
__device__ __forceinline__ double finish_row(const Update<T>& u, long long r, double sum,
                                             double* dangling) {
  const T stored = (T)(u.alpha * (sum + u.lost * (u.dw_uniform ? u.dw_c : u.dw[r])) +
                       (u.tele_uniform ? u.tele_c : u.teleport[r]));
  u.x_new[r] = stored;
  const double xn = (double)stored;
  const double s = u.inv_s[r];
  u.y_new[r] = (T)(xn * s);
  if (s == 0.0) *dangling += xn;
  return fabs(xn - (double)u.x[r]);
}

// the end of an iteration's launch, every thread of every block: the
// block's sums of err and dangling into partials[blockIdx.x] and
// [gridDim.x + blockIdx.x]; the last block to arrive (a counter; CUDA's
// threadFenceReduction sample) adds the blocks' partials in block order and
// the heavy rows' (heavy_parts[0 .. nheavy), [nheavy .. 2 nheavy)) in row
// order into tally[1] (the error) and lost[parity ^ 1], counts the
// iteration in tally[0], sets *stop when the error is below threshold or
// the iteration is the tally[2]-th (max_iter), and resets the counter
__device__ __forceinline__ void finish_launch(double err, double dangling, double* scratch,
                                              double* partials, const double* heavy_parts,
                                              long long nheavy, unsigned int* arrived,
                                              long long* tally, double threshold,
                                              int* stop, double* lost, int parity) {
  __shared__ bool last;
  err = block_sum(err, scratch);
  dangling = block_sum(dangling, scratch);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = err;
    partials[gridDim.x + blockIdx.x] = dangling;
    __threadfence();  // the partials (and heavy_parts) are visible before the arrival is
    last = atomicAdd(arrived, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // the last block: every other block's partials are written; read them
  // past L1 (another SM wrote them), blocks in block order, then the heavy
  // rows in row order
  double e = 0.0, d = 0.0;
  for (long long b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    e += __ldcg(partials + b);
    d += __ldcg(partials + gridDim.x + b);
  }
  for (long long h = threadIdx.x; h < nheavy; h += blockDim.x) {
    e += __ldcg(heavy_parts + h);
    d += __ldcg(heavy_parts + nheavy + h);
  }
  e = block_sum(e, scratch);
  d = block_sum(d, scratch);
  if (threadIdx.x == 0) {
    const long long ran = tally[0] + 1;
    tally[0] = ran;
    reinterpret_cast<double*>(tally)[1] = e;
    lost[parity ^ 1] = d;
    *stop = (e < threshold || ran >= tally[2]) ? 1 : 0;
    *arrived = 0u;
  }
}

// the second launch of the tiled and striped pulls, every thread of every
// block: each row r (grid-stride) finished from its pulled sum sum_of(r),
// then the launch's sums reduced (finish_launch, no heavy rows)
template <typename T, typename Sum>
__device__ __forceinline__ void finish_rows(const Update<T>& u, long long n, Sum sum_of,
                                            double* scratch, double* partials,
                                            unsigned int* arrived, long long* tally,
                                            double threshold, int* stop, double* lost,
                                            int parity) {
  double err = 0.0, dangling = 0.0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n; r += stride)
    err += finish_row(u, r, sum_of(r), &dangling);
  finish_launch(err, dangling, scratch, partials, partials, 0, arrived, tally, threshold,
                stop, lost, parity);
}

template <typename I, bool ISO, typename T>
__global__ void pagerank_pull(const I* __restrict__ indptr, const I* __restrict__ indices,
                              const double* __restrict__ values,
                              const long long* __restrict__ heavy_rows,
                              const long long* __restrict__ heavy_first,
                              const long long* __restrict__ chunk_heavy, long long nheavy,
                              long long nchunks, long long chunk,
                              const long long* __restrict__ medium_rows, long long nmedium,
                              long long light_max,
                              const T* __restrict__ y, const T* __restrict__ x,
                              const double* __restrict__ inv_s,
                              const double* __restrict__ dw, double dw_c, bool dw_uniform,
                              const double* __restrict__ teleport, double tele_c,
                              bool tele_uniform, double alpha, long long n, int group,
                              T* __restrict__ x_new, T* __restrict__ y_new,
                              double* lost, int parity, double* partials, double* chunk_sums,
                              double* heavy_parts, unsigned int* row_arrived,
                              unsigned int* arrived, long long* tally,
                              double threshold, int* stop) {
  __shared__ double scratch[32];
  __shared__ bool row_last;
  // converged at an earlier launch: every thread reads the same flag (set
  // by an earlier launch on this stream), so the whole grid returns
  if (*stop) return;
  const Update<T> u{x, inv_s, dw, teleport, x_new, y_new, dw_c, tele_c, alpha, lost[parity],
                    dw_uniform, tele_uniform};
  // the heavy rows' chunks, a whole block each (block-uniform control flow:
  // block_sum and __syncthreads below are reached by every thread)
  for (long long c = blockIdx.x; c < nchunks; c += gridDim.x) {
    const long long h = chunk_heavy[c];
    const long long first = heavy_first[h];
    const long long count = heavy_first[h + 1] - first;
    const long long r = heavy_rows[h];
    const long long start = (long long)indptr[r] + (c - first) * chunk;
    const long long end = min(start + chunk, (long long)indptr[r + 1]);
    double acc = strided_sum<I, ISO, T>(indices, values, y, start + threadIdx.x, end,
                                        (long long)blockDim.x, 0.0);
    acc = block_sum(acc, scratch);
    if (threadIdx.x == 0) {
      chunk_sums[c] = acc;
      __threadfence();  // the chunk's sum is visible before its arrival is
      row_last = atomicAdd(row_arrived + h, 1u) == (unsigned int)(count - 1);
    }
    __syncthreads();
    if (row_last) {
      // every chunk of row h is summed: add them in chunk order (read past
      // L1: other SMs wrote them)
      double s = 0.0;
      for (long long k = threadIdx.x; k < count; k += blockDim.x)
        s += __ldcg(chunk_sums + first + k);
      s = block_sum(s, scratch);
      if (threadIdx.x == 0) {
        row_arrived[h] = 0u;  // for the next launch
        double d = 0.0;
        heavy_parts[h] = finish_row(u, r, s, &d);
        heavy_parts[nheavy + h] = d;
      }
    }
  }
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long warp_id = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  double err = 0.0, dangling = 0.0;
  // the medium rows, a warp each (warp-uniform loop: the shuffles need the
  // whole warp)
  for (long long m = warp_id; m < nmedium; m += warps) {
    const long long r = medium_rows[m];
    const long long start = (long long)indptr[r], end = (long long)indptr[r + 1];
    double acc = strided_sum<I, ISO, T>(indices, values, y, start + (threadIdx.x & 31), end,
                                        32, 0.0);
    acc = warp_sum(acc, 32);
    if ((threadIdx.x & 31) == 0) err += finish_row(u, r, acc, &dangling);
  }
  // the light rows, a group of `group` lanes each
  const int lane = threadIdx.x & (group - 1);
  const long long per_warp = 32 / group;
  // every lane of a warp runs the same iterations (the shuffles need the
  // whole warp); rows past the end, medium and heavy rows are idle groups
  for (long long base = warp_id * per_warp; base < n; base += warps * per_warp) {
    const long long r = base + (threadIdx.x & 31) / group;
    long long start = 0, end = 0;
    if (r < n) {
      start = (long long)indptr[r];
      end = (long long)indptr[r + 1];
    }
    const bool mine = r < n && end - start <= light_max;
    double acc = 0.0;
    if (mine) acc = strided_sum<I, ISO, T>(indices, values, y, start + lane, end, group, 0.0);
    acc = warp_sum(acc, group);  // lane 0 of the group holds the row's sum
    if (lane == 0 && mine) err += finish_row(u, r, acc, &dangling);
  }
  finish_launch(err, dangling, scratch, partials, heavy_parts, nheavy, arrived, tally,
                threshold, stop, lost, parity);
}

// --- the tiled pull: an iteration in two launches, every thread the same
// number of entries whatever the rows' lengths ---------------------------
//
// pagerank_tiles sums A' in tiles of tile_n = 32 * TILE_K consecutive stored
// entries, a warp's, TILE_K a lane, so every warp gathers as many ranks as
// any other (the row kernel above gives a lane a row's share: kron-22's
// median in-row holds 5 entries beside rows of thousands). An entry is its
// column index with bit 31 set on the first entry of a row (flagged; n <
// 2^31). Within a tile the lanes' sums are joined by a warp scan of
// (flags, the sum since the last flag: no block barrier, so a warp's next
// tile overlaps the others' gathers; tiles of a block with a block scan took
// kron-22 0.74 ms an iteration, float32, H200); a row's sum is written by the
// lane whose entries end it: into rowsum[k] when the row starts in the
// tile (k: its flag's ordinal in the whole array, so a tile's writes are
// consecutive and wait for no load: writing rowsum[row id] through a table
// of ordinals took kron-22 7.24 ms a run against 6.53, float32, H200;
// tile_ne0[t] counts the flags before tile t), else (the row began in an earlier tile) into heads[t], the sum of
// the tile's entries before its first flag. Every entry is added in one
// fixed order: the sums do not depend on the blocks' schedule.
//
// With hubs first (the launcher's relabelled order) each block first copies
// y(0 .. hot-1), the most gathered ranks, into its dynamic shared memory and
// gathers them there: relabelled kron-22's first 24,576 columns hold 46% of
// its entries, and a pass of gathers took 0.516 ms with them in shared memory
// against 0.670 ms from L2 (float64 ranks; float32 with 49,152: 0.420 against
// 0.588; H200, one block of 1024 threads a multiprocessor, which the copy
// needs: it serves all its warps). On urand-22 (no hubs) a copy made the pass
// 9% slower: hot is 0 there.
//
// pagerank_rows then finishes every row r from rowsum[ne_ord[r]] (ne_ord:
// the ordinal of row r among the rows with entries) plus heads[t] of each
// later tile its entries reach (in tile order), as pagerank_pull's rows
// (finish_row), and ends the launch as it does (finish_launch).
//
// Arrays: flagged[nnz] (int), values[nnz] (float64; not read when ISO),
// tile_ne0[ntiles], y[n] (T), rowsum[rows with entries] and heads[ntiles]
// (double, written here), stop[1]; pagerank_rows: ne_ord[n] (int). O(nnz) over the grid's
// warps; blockDim.x a multiple of 32, at most 1024.

#include "pagerank_constants.cuh"

// a warp scan's item: c flags, and the sum since the last of them (of
// every entry when c is 0)
struct Seg {
  int c;
  double s;
};

// a (earlier) then b
__device__ __forceinline__ Seg seg_join(Seg a, Seg b) {
  return Seg{a.c + b.c, b.c > 0 ? b.s : a.s + b.s};
}

// the exclusive scan of the warp's items in lane order (every lane calls it)
__device__ __forceinline__ Seg seg_exclusive(Seg me) {
  const int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d <<= 1) {
    const int oc = __shfl_up_sync(0xffffffffu, me.c, d);
    const double os = __shfl_up_sync(0xffffffffu, me.s, d);
    if (lane >= d) me = seg_join(Seg{oc, os}, me);
  }
  Seg ex{__shfl_up_sync(0xffffffffu, me.c, 1), __shfl_up_sync(0xffffffffu, me.s, 1)};
  if (lane == 0) ex = Seg{0, 0.0};
  return ex;
}

template <bool ISO, typename T>
__global__ void __launch_bounds__(1024)
pagerank_tiles(const int* __restrict__ flagged, const double* __restrict__ values,
               long long nnz, long long ntiles, const long long* __restrict__ tile_ne0,
               const T* __restrict__ y, long long hot, double* __restrict__ rowsum,
               double* __restrict__ heads, const int* stop) {
  extern __shared__ __align__(16) unsigned char hot_bytes[];
  if (*stop) return;  // converged at an earlier launch (the whole grid returns)
  T* hot_y = reinterpret_cast<T*>(hot_bytes);
  for (long long i = threadIdx.x; i < hot; i += blockDim.x) hot_y[i] = y[i];
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; t < ntiles;
       t += warps) {
    const long long e0 = t * (32 * TILE_K) + (long long)lane * TILE_K;
    const int nv = (int)max(0ll, min((long long)TILE_K, nnz - e0));  // entries of this lane
    int v[TILE_K];
    if (nv == TILE_K) {  // two 16-byte loads (e0 is a multiple of 8)
      const int4 a = __ldg(reinterpret_cast<const int4*>(flagged + e0));
      const int4 b = __ldg(reinterpret_cast<const int4*>(flagged + e0 + 4));
      v[0] = a.x; v[1] = a.y; v[2] = a.z; v[3] = a.w;
      v[4] = b.x; v[5] = b.y; v[6] = b.z; v[7] = b.w;
    } else {
#pragma unroll
      for (int k = 0; k < TILE_K; ++k) v[k] = k < nv ? flagged[e0 + k] : 0;  // 0: no flag
    }
    // every gather issued before any add
    double val[TILE_K];
#pragma unroll
    for (int k = 0; k < TILE_K; ++k) {
      const int i = v[k] & 0x7fffffff;
      val[k] = k >= nv ? 0.0 : i < hot ? (double)hot_y[i] : (double)y[i];
    }
    if constexpr (!ISO) {
#pragma unroll
      for (int k = 0; k < TILE_K; ++k)
        if (k < nv) val[k] *= values[e0 + k];
    }
    Seg me{0, 0.0};
#pragma unroll
    for (int k = 0; k < TILE_K; ++k) {
      if (v[k] < 0) {
        ++me.c;
        me.s = 0.0;
      }
      me.s += val[k];
    }
    const Seg ex = seg_exclusive(me);
    // the rows this lane's entries end: the open one (ordinal ord, or the
    // tile's head while no flag came before), closed at each flag
    bool started = ex.c > 0;
    long long ord = tile_ne0[t] + ex.c - 1;
    double acc = ex.s;
#pragma unroll
    for (int k = 0; k < TILE_K; ++k) {
      if (v[k] < 0) {
        if (started) rowsum[ord] = acc;
        else heads[t] = acc;
        started = true;
        ++ord;
        acc = 0.0;
      }
      acc += val[k];
    }
    // the row open at the tile's end: its sum so far (later tiles' heads
    // hold the rest)
    if (lane == 31) {
      if (started) rowsum[ord] = acc;
      else heads[t] = acc;
    }
  }
}

template <typename I, typename T>
__global__ void pagerank_rows(const I* __restrict__ indptr, long long n, long long tile_n,
                              const double* __restrict__ rowsum,
                              const double* __restrict__ heads,
                              const int* __restrict__ ne_ord, const T* __restrict__ x,
                              const double* __restrict__ inv_s,
                              const double* __restrict__ dw, double dw_c, bool dw_uniform,
                              const double* __restrict__ teleport, double tele_c,
                              bool tele_uniform, double alpha, T* __restrict__ x_new,
                              T* __restrict__ y_new, double* lost, int parity,
                              double* partials, unsigned int* arrived, long long* tally,
                              double threshold, int* stop) {
  __shared__ double scratch[32];
  if (*stop) return;
  const Update<T> u{x, inv_s, dw, teleport, x_new, y_new, dw_c, tele_c, alpha, lost[parity],
                    dw_uniform, tele_uniform};
  finish_rows(u, n, [&](long long r) {
    const long long a = (long long)indptr[r], b = (long long)indptr[r + 1];
    double s = 0.0;
    if (b > a) {
      s = rowsum[ne_ord[r]];
      for (long long t = a / tile_n + 1, last = (b - 1) / tile_n; t <= last; ++t) s += heads[t];
    }
    return s;
  }, scratch, partials, arrived, tally, threshold, stop, lost, parity);
}

// --- the striped pull: an iteration in two launches, the rows' sums in
// shared memory ------------------------------------------------------------
//
// A pull reads y at random: every stored entry's gather fetches a 32-byte
// sector from L2 for 4 or 8 bytes, and on a graph without hubs (urand-22,
// 32 entries a row) a pass of plain gathers costs as much as cuSPARSE's
// whole SpMV (0.90 against 0.99 ms, float32, H200). The striped pull cuts
// A' into stripes of stripe_rows consecutive rows, the rows' sums of a
// stripe held in one block's shared memory, and stores a stripe's entries
// sorted by their column: a warp's 32 consecutive entries then gather y
// from a few sectors in ascending order. An entry is its column (src, int)
// and its row's offset in the stripe (ldst, 16 bits). The entries,
// stripe after stripe, are cut into npieces equal pieces (a piece may cross
// stripes, a stripe span pieces); a block takes pieces (grid-stride), and
// for each stripe a piece reaches clears its shared sums, adds each entry's
// term y(src) (times values[e] unless ISO) at ldst, STRIPE_U entries loaded
// a thread before any add, then adds the stripe's non-zero sums into
// sums[row] (global 64-bit atomics).
//
// The sums are fixed point: a term is rounded once to a multiple of
// 2^-STRIPE_SHIFT (2^-60: exact for every float32 term of 2^-36 or more;
// at most 4.4e-19 off), and adding integers does not depend on the order,
// so the sums (and the ranks) are the same every run, whatever the blocks'
// and atomics' order. A row's sum is at most 1 (a vertex's terms add up to
// its rank, and the ranks to 1), far below the 16 that 64 bits hold. Each
// shared sum is two 32-bit words added by the native 32-bit atomics, the
// low word's carry (from the value its add returns) into the high one:
// every shared-memory atomic add of a float, double or 64-bit integer is a
// compare-and-swap loop on sm_90. urand-22, one pass, H200, 16,384 rows a
// stripe, a piece a block, float32 ranks: 0.421 ms, against 0.584 with
// double sums (compare-and-swap), 0.457 with float sums of twice the rows
// (2.7e-6 L1 from the exact ranks on a 300-vertex test graph: a row of many
// entries loses float32's precision) and 0.90 for the plain gathers in
// stored order. Relabelled kron-22, four pieces a block: 0.383 ms against
// the tiled pull's 0.490 with its hot ranks. pagerank_sums then finishes
// every row r from sums[r] (as a double, rounded once) as pagerank_rows does
// (finish_row, finish_launch); the launcher clears sums before each launch
// of pagerank_stripes (a memset: clearing sums[r] in pagerank_sums as it is
// read made that launch 0.158 ms on urand-22 against 0.059 without, H200).
//
// Arrays: src[nnz] (int), ldst[nnz] (unsigned short), values[nnz] (float64,
// in the same order; not read when ISO), stripe_first[nstripes + 1] (stripe
// s's entries are stripe_first[s] .. stripe_first[s + 1] - 1), y[n] (T),
// sums[n] (0 before the launch, added to here), stop[1]; dynamic shared
// memory stripe_rows * 8 bytes, stripe_rows at most 65,536. O(nnz + pieces
// * stripe_rows) over the grid; blockDim.x a multiple of 32, at most 1024.

// term (0 <= term < 16) rounded to fixed point
__device__ __forceinline__ unsigned long long fixed_term(double term) {
  return (unsigned long long)__double2ll_rn(ldexp(term, STRIPE_SHIFT));
}

// lo[d], hi[d] (the low and high words of a fixed-point sum) plus v
__device__ __forceinline__ void fixed_add(unsigned int* lo, unsigned int* hi, unsigned int d,
                                          unsigned long long v) {
  const unsigned int l = (unsigned int)v;
  unsigned int h = (unsigned int)(v >> 32);
  const unsigned int old = atomicAdd(lo + d, l);
  h += old + l < old ? 1u : 0u;  // the low word's carry
  if (h) atomicAdd(hi + d, h);
}

template <bool ISO, typename T>
__global__ void __launch_bounds__(STRIPE_THREADS)
pagerank_stripes(const int* __restrict__ src, const unsigned short* __restrict__ ldst,
                 const double* __restrict__ values, const long long* __restrict__ stripe_first,
                 long long nstripes, long long stripe_rows, long long n, long long nnz,
                 long long npieces, const T* __restrict__ y,
                 unsigned long long* __restrict__ sums, const int* stop) {
  extern __shared__ __align__(16) unsigned char sum_bytes[];
  if (*stop) return;  // converged at an earlier launch (the whole grid returns)
  unsigned int* lo = reinterpret_cast<unsigned int*>(sum_bytes);
  unsigned int* hi = lo + stripe_rows;
  const long long step = blockDim.x;
  for (long long p = blockIdx.x; p < npieces; p += gridDim.x) {
    long long a = p * nnz / npieces;
    const long long b = (p + 1) * nnz / npieces;
    // the stripe of entry a: the last s with stripe_first[s] <= a
    long long first = 0, past = nstripes;
    while (past - first > 1) {
      const long long mid = (first + past) >> 1;
      if (stripe_first[mid] <= a) first = mid;
      else past = mid;
    }
    long long s = first;
    while (a < b) {  // block-uniform: every thread reaches the barriers
      while (stripe_first[s + 1] <= a) ++s;  // past empty stripes
      const long long end = min(b, stripe_first[s + 1]);
      const long long r0 = s * stripe_rows;
      const int rows = (int)min(stripe_rows, n - r0);
      for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        lo[i] = 0u;
        hi[i] = 0u;
      }
      __syncthreads();
      long long e = a + threadIdx.x;
      for (; e + (STRIPE_U - 1) * step < end; e += STRIPE_U * step) {
        int i[STRIPE_U];
        unsigned int d[STRIPE_U];
        unsigned long long v[STRIPE_U];
#pragma unroll
        for (int k = 0; k < STRIPE_U; ++k) {
          i[k] = src[e + k * step];
          d[k] = ldst[e + k * step];
        }
#pragma unroll
        for (int k = 0; k < STRIPE_U; ++k) {
          if constexpr (ISO) v[k] = fixed_term((double)y[i[k]]);
          else v[k] = fixed_term(values[e + k * step] * (double)y[i[k]]);
        }
#pragma unroll
        for (int k = 0; k < STRIPE_U; ++k) fixed_add(lo, hi, d[k], v[k]);
      }
      for (; e < end; e += step) {
        const double term = ISO ? (double)y[src[e]] : values[e] * (double)y[src[e]];
        fixed_add(lo, hi, ldst[e], fixed_term(term));
      }
      __syncthreads();
      for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        const unsigned long long v = ((unsigned long long)hi[i] << 32) | lo[i];
        if (v) atomicAdd(sums + r0 + i, v);
      }
      __syncthreads();  // the sums are read before the next stripe clears them
      a = end;
    }
  }
}

template <typename T>
__global__ void pagerank_sums(unsigned long long* __restrict__ sums, long long n,
                              const T* __restrict__ x,
                              const double* __restrict__ inv_s,
                              const double* __restrict__ dw, double dw_c, bool dw_uniform,
                              const double* __restrict__ teleport, double tele_c,
                              bool tele_uniform, double alpha, T* __restrict__ x_new,
                              T* __restrict__ y_new, double* lost, int parity,
                              double* partials, unsigned int* arrived, long long* tally,
                              double threshold, int* stop) {
  __shared__ double scratch[32];
  if (*stop) return;
  const Update<T> u{x, inv_s, dw, teleport, x_new, y_new, dw_c, tele_c, alpha, lost[parity],
                    dw_uniform, tele_uniform};
  finish_rows(u, n, [&](long long r) { return ldexp((double)sums[r], -STRIPE_SHIFT); },
              scratch, partials, arrived, tally, threshold, stop, lost, parity);
}

// y = x * inv_s (rounded to T), lost[0] = sum of x over inv_s == 0 (in
// double, deterministic, as the pull's reduction), *stop = 0, tally = {0,
// inf, limit}, row_arrived[0 .. nheavy) = 0, and the start x0 into x_fill (iteration
// 0's x: the launcher's buffer, so that every iteration reads the
// buffers of its parity). Arrays: x[n] (T, the start given; null: the
// uniform start fill, a value of T), x_fill[n] (T), inv_s[n], y[n] (T),
// lost[2], partials[gridDim.x], row_arrived[nheavy], arrived[1] (0 between
// launches), stop[1], tally[3]; limit: max_iter. O(n + nheavy)
template <typename T>
__global__ void pagerank_init(const T* __restrict__ x, T* __restrict__ x_fill, double fill,
                              const double* __restrict__ inv_s, long long n,
                              T* __restrict__ y, double* lost, double* partials,
                              unsigned int* row_arrived, long long nheavy, unsigned int* arrived,
                              int* stop, long long* tally, long long limit) {
  __shared__ double scratch[32];
  __shared__ bool last;
  const long long stride = (long long)gridDim.x * blockDim.x;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  double dangling = 0.0;
  for (long long i = t; i < n; i += stride) {
    const double xi = x ? (double)x[i] : fill;
    x_fill[i] = (T)xi;
    const double s = inv_s[i];
    y[i] = (T)(xi * s);
    if (s == 0.0) dangling += xi;
  }
  for (long long h = t; h < nheavy; h += stride) row_arrived[h] = 0u;
  dangling = block_sum(dangling, scratch);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = dangling;
    __threadfence();
    last = atomicAdd(arrived, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  double d = 0.0;
  for (long long b = threadIdx.x; b < gridDim.x; b += blockDim.x) d += __ldcg(partials + b);
  d = block_sum(d, scratch);
  if (threadIdx.x == 0) {
    lost[0] = d;
    *stop = 0;
    tally[0] = 0;
    tally[1] = 0x7ff0000000000000LL;  // +inf (no iteration yet)
    tally[2] = limit;  // read by the pulls' last blocks (a graph's launches need not know it)
    *arrived = 0u;
  }
}

// instantiations nvcc compiles standalone (CI), each ranks' type once; at
// run time the launcher compiles those it uses, by name expression
template __global__ void pagerank_init<double>(const double*, double*, double, const double*,
    long long, double*, double*, double*, unsigned int*, long long, unsigned int*, int*,
    long long*, long long);
template __global__ void pagerank_init<float>(const float*, float*, double, const double*,
    long long, float*, double*, double*, unsigned int*, long long, unsigned int*, int*,
    long long*, long long);
// the result: the final ranks x = xs[tally[0] & 1] (the launcher's
// buffers of even and odd iterations: the host need not know how many ran)
// into a new array, out[order[k]] = x[k] (order: the relabelled numbering's
// new id -> the graph's own id), or out[k] = x[k] where order is null. O(n)
template <typename T>
__global__ void pagerank_out(const T* __restrict__ x0, const T* __restrict__ x1,
                             const long long* __restrict__ tally,
                             const long long* __restrict__ order, T* __restrict__ out,
                             long long n) {
  const T* __restrict__ x = (tally[0] & 1) ? x1 : x0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride)
    out[order ? order[k] : k] = x[k];
}

template __global__ void pagerank_pull<int, true, double>(const int*, const int*, const double*,
    const long long*, const long long*, const long long*, long long, long long, long long,
    const long long*, long long, long long, const double*, const double*, const double*,
    const double*, double, bool, const double*, double, bool, double, long long, int, double*,
    double*, double*, int, double*, double*, double*, unsigned int*, unsigned int*, long long*,
    double, int*);
template __global__ void pagerank_pull<long long, false, double>(const long long*,
    const long long*, const double*, const long long*, const long long*, const long long*,
    long long, long long, long long, const long long*, long long, long long, const double*,
    const double*, const double*, const double*, double, bool, const double*, double, bool,
    double, long long, int, double*, double*, double*, int, double*, double*, double*,
    unsigned int*, unsigned int*, long long*, double, int*);
template __global__ void pagerank_pull<int, true, float>(const int*, const int*, const double*,
    const long long*, const long long*, const long long*, long long, long long, long long,
    const long long*, long long, long long, const float*, const float*, const double*,
    const double*, double, bool, const double*, double, bool, double, long long, int, float*,
    float*, double*, int, double*, double*, double*, unsigned int*, unsigned int*, long long*,
    double, int*);
template __global__ void pagerank_pull<long long, false, float>(const long long*,
    const long long*, const double*, const long long*, const long long*, const long long*,
    long long, long long, long long, const long long*, long long, long long, const float*,
    const float*, const double*, const double*, double, bool, const double*, double, bool,
    double, long long, int, float*, float*, double*, int, double*, double*, double*,
    unsigned int*, unsigned int*, long long*, double, int*);
template __global__ void pagerank_tiles<true, double>(const int*, const double*, long long,
    long long, const long long*, const double*, long long, double*, double*, const int*);
template __global__ void pagerank_tiles<false, double>(const int*, const double*, long long,
    long long, const long long*, const double*, long long, double*, double*, const int*);
template __global__ void pagerank_tiles<true, float>(const int*, const double*, long long,
    long long, const long long*, const float*, long long, double*, double*, const int*);
template __global__ void pagerank_tiles<false, float>(const int*, const double*, long long,
    long long, const long long*, const float*, long long, double*, double*, const int*);
template __global__ void pagerank_rows<int, double>(const int*, long long, long long,
    const double*, const double*, const int*, const double*, const double*, const double*, double,
    bool, const double*, double, bool, double, double*, double*, double*, int, double*, unsigned int*,
    long long*, double, int*);
template __global__ void pagerank_rows<long long, double>(const long long*, long long, long long,
    const double*, const double*, const int*, const double*, const double*, const double*, double,
    bool, const double*, double, bool, double, double*, double*, double*, int, double*, unsigned int*,
    long long*, double, int*);
template __global__ void pagerank_rows<int, float>(const int*, long long, long long,
    const double*, const double*, const int*, const float*, const double*, const double*, double,
    bool, const double*, double, bool, double, float*, float*, double*, int, double*, unsigned int*,
    long long*, double, int*);
template __global__ void pagerank_rows<long long, float>(const long long*, long long, long long,
    const double*, const double*, const int*, const float*, const double*, const double*, double,
    bool, const double*, double, bool, double, float*, float*, double*, int, double*, unsigned int*,
    long long*, double, int*);
template __global__ void pagerank_stripes<true, double>(const int*, const unsigned short*,
    const double*, const long long*, long long, long long, long long, long long, long long,
    const double*, unsigned long long*, const int*);
template __global__ void pagerank_stripes<false, double>(const int*, const unsigned short*,
    const double*, const long long*, long long, long long, long long, long long, long long,
    const double*, unsigned long long*, const int*);
template __global__ void pagerank_stripes<true, float>(const int*, const unsigned short*,
    const double*, const long long*, long long, long long, long long, long long, long long,
    const float*, unsigned long long*, const int*);
template __global__ void pagerank_stripes<false, float>(const int*, const unsigned short*,
    const double*, const long long*, long long, long long, long long, long long, long long,
    const float*, unsigned long long*, const int*);
template __global__ void pagerank_sums<double>(unsigned long long*, long long, const double*, const double*,
    const double*, double, bool, const double*, double, bool, double, double*, double*, double*,
    int, double*, unsigned int*, long long*, double, int*);
template __global__ void pagerank_sums<float>(unsigned long long*, long long, const float*, const double*,
    const double*, double, bool, const double*, double, bool, double, float*, float*, double*,
    int, double*, unsigned int*, long long*, double, int*);
template __global__ void pagerank_out<double>(const double*, const double*, const long long*,
    const long long*, double*, long long);
template __global__ void pagerank_out<float>(const float*, const float*, const long long*,
    const long long*, float*, long long);
