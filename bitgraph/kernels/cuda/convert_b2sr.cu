// CSR <-> B2SR on the GPU: the CUDA twins of bitgraph/kernels/cpu/convert_b2sr.py
// (layout: bitgraph/formats/b2sr.py). The launcher sorts and scans with
// CuPy; these kernels are the per-entry and per-tile steps around them.
//
// from_csr: every stored entry (row, col) becomes one 64-bit word
//   (tile key << bp) | bit,  tile key = (row / t) * nbcols + col / t,
//   bit = (row % t) * t + col % t  (bp = log2(t * t) bits),
// so one sort orders the tiles (tile rows, then column blocks ascending:
// the B2SR order) and, inside a tile, its bits; the launcher numbers the
// distinct keys and b2sr_or_bits ORs each bit into its tile's word.
// to_csr: one thread per tile counts (and then writes) the entries of each
// of its t bit-rows at their CSR positions.

// binary search: the row of entry i (indptr[row] <= i < indptr[row + 1])
template <typename I>
__device__ __forceinline__ long long row_of(const I* __restrict__ indptr, long long nrows,
                                            long long i) {
  long long lo = 0, hi = nrows - 1;
  while (lo < hi) {
    const long long mid = (lo + hi + 1) >> 1;
    if ((long long)indptr[mid] <= i) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

template <typename I>
__global__ void b2sr_keys(const I* __restrict__ indptr, const I* __restrict__ indices,
                          long long nrows, long long nnz, int t, long long nbcols, int bp,
                          unsigned long long* __restrict__ keys,
                          unsigned short* __restrict__ bits) {
  // bits == nullptr: the bit goes into the key's low bp bits; else apart
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < nnz; i += stride) {
    const long long row = row_of(indptr, nrows, i);
    const long long col = (long long)indices[i];
    const unsigned long long key = (unsigned long long)(row / t) * nbcols + col / t;
    const unsigned bit = (unsigned)((row % t) * t + col % t);
    if (bits) {
      keys[i] = key;
      bits[i] = (unsigned short)bit;
    } else {
      keys[i] = (key << bp) | bit;
    }
  }
}

// tiles (as 32-bit words) |= the bit of each sorted entry; tile id[i] of
// entry i. A bit-row of tile p is word p * t + r of wb bytes.
__global__ void b2sr_or_bits(const unsigned long long* __restrict__ keys,
                             const unsigned short* __restrict__ bits,
                             const long long* __restrict__ tile_id, long long n, int t, int bp,
                             int wb, unsigned* __restrict__ tiles32) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  const unsigned mask = (1u << bp) - 1u;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const unsigned bit = bits ? (unsigned)bits[i] : (unsigned)(keys[i] & mask);
    const unsigned r = bit / t, c = bit % t;
    const unsigned long long byte = ((unsigned long long)tile_id[i] * t + r) * wb;
    atomicOr(tiles32 + (byte >> 2), 1u << ((unsigned)(byte & 3) * 8 + c));
  }
}

// bit-row r of tile p (words of wb bytes)
__device__ __forceinline__ unsigned tile_word(const void* __restrict__ tiles, long long k,
                                              int wb) {
  if (wb == 1) return ((const unsigned char*)tiles)[k];
  if (wb == 2) return ((const unsigned short*)tiles)[k];
  return ((const unsigned*)tiles)[k];
}

// Position of (tile p, bit-row r) in the CSR order of tile row bi: the
// rows of a tile row one after the other, each over the tile row's tiles.
template <typename I>
__device__ __forceinline__ long long csr_slot(const I* __restrict__ rowptr, long long bi,
                                              long long p, int t, int r) {
  const long long p0 = (long long)rowptr[bi], len = (long long)rowptr[bi + 1] - p0;
  return p0 * t + r * len + (p - p0);
}

template <typename I>
__global__ void b2sr_row_counts(const I* __restrict__ rowptr,
                                const long long* __restrict__ tile_row,
                                const void* __restrict__ tiles, long long ntiles, int t, int wb,
                                long long* __restrict__ counts) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < ntiles; p += stride) {
    const long long bi = tile_row[p];
    for (int r = 0; r < t; ++r)
      counts[csr_slot(rowptr, bi, p, t, r)] = __popc(tile_word(tiles, p * t + r, wb));
  }
}

template <typename I, typename J>
__global__ void b2sr_unpack(const I* __restrict__ rowptr, const I* __restrict__ colind,
                            const long long* __restrict__ tile_row,
                            const void* __restrict__ tiles, long long ntiles, int t, int wb,
                            const long long* __restrict__ offsets, J* __restrict__ indices) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long p = (long long)blockIdx.x * blockDim.x + threadIdx.x; p < ntiles; p += stride) {
    const long long bi = tile_row[p];
    const long long c0 = (long long)colind[p] * t;
    for (int r = 0; r < t; ++r) {
      unsigned w = tile_word(tiles, p * t + r, wb);
      long long q = offsets[csr_slot(rowptr, bi, p, t, r)];
      while (w) {
        indices[q++] = (J)(c0 + __ffs(w) - 1);
        w &= w - 1;
      }
    }
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles them by name expression
template __global__ void b2sr_keys<int>(const int*, const int*, long long, long long, int,
    long long, int, unsigned long long*, unsigned short*);
template __global__ void b2sr_keys<long long>(const long long*, const long long*, long long,
    long long, int, long long, int, unsigned long long*, unsigned short*);
template __global__ void b2sr_row_counts<int>(const int*, const long long*, const void*,
    long long, int, int, long long*);
template __global__ void b2sr_unpack<int, int>(const int*, const int*, const long long*,
    const void*, long long, int, int, const long long*, int*);
