// Per-graph preparation of the CUDA traversals (bfs, msbfs), built once per
// graph and cached on it: row lengths, the bits of the empty rows, and the
// sort keys that order each row's entries by the columns' degrees. Our own
// kernels, shipped precompiled, so that a fresh machine's first traversal
// compiles none of CuPy's elementwise and reduction kernels for them.
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

// out[p] = src[order[p]], p < m (order: a permutation of [0, m)). O(m)
template <typename I>
__global__ void gather_by(const I* __restrict__ src, const long long* __restrict__ order,
                          I* __restrict__ out, long long m) {
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < m;
       p += (long long)gridDim.x * blockDim.x)
    out[p] = src[order[p]];
}

// words[ceil(n / 32)]: bit b of word w = present[32 w + b], bits past n
// clear (_array.pack_bits on the GPU). A thread per word. O(n)
__global__ void pack_present(const bool* __restrict__ present, unsigned int* __restrict__ words,
                             long long n) {
  const long long nwords = (n + 31) / 32;
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
       w += (long long)gridDim.x * blockDim.x) {
    unsigned int word = 0;
    const long long end = n - w * 32 < 32 ? n - w * 32 : 32;
    for (int b = 0; b < end; ++b)
      word |= (present[w * 32 + b] ? 1u : 0u) << b;
    words[w] = word;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher's
// SPECS name them
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
template __global__ void gather_by<int>(const int*, const long long*, int*, long long);
template __global__ void gather_by<long long>(const long long*, const long long*, long long*,
                                              long long);
