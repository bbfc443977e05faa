// The BVSS of a device CSR (formats/bvss.py's layout, identical to the CPU
// builder's), and Blest's update divergence of its row ids: our own kernels,
// shipped precompiled, so that a fresh machine's first blest bfs compiles
// none of CuPy's elementwise and scan kernels (44 of them, 7.4 s on an H200).
// The steps (convert_bvss.py): bvss_keys, a sort of the keys (CuPy's, built
// into CuPy), bvss_starts and graph_prep's bit_indices (each slice's first
// entry), bvss_slices, two prefix sums on the host (per column block), then
// bvss_place and bvss_v2r. A slice is a (column block, row) pair with
// entries; sigma columns a block; tau = 32 * (32 / sigma) slices a VSS.

// key[p] = ((col / sigma) * nrows + row) * sigma + col % sigma for every
// entry p = (row, col): sorted, the slices come out by block then row, their
// bits together. A warp per row, its lanes over the row's entries. O(n + nnz)
template <typename P, typename I>
__global__ void bvss_keys(const P* __restrict__ indptr, const I* __restrict__ indices,
                          long long* __restrict__ key, long long nrows, int sigma) {
  const int lane = threadIdx.x & 31;
  const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
  for (long long r = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; r < nrows;
       r += warps) {
    for (long long p = (long long)indptr[r] + lane; p < (long long)indptr[r + 1]; p += 32) {
      const long long c = (long long)indices[p];
      key[p] = ((c / sigma) * nrows + r) * sigma + c % sigma;
    }
  }
}

// Bit p of words[ceil(nnz / 32)] set where entry p of the sorted keys starts
// a slice (its key / sigma differs from the entry before's). A thread per
// word. O(nnz)
__global__ void bvss_starts(const long long* __restrict__ key, unsigned int* __restrict__ words,
                            long long nnz, int sigma) {
  const long long nwords = (nnz + 31) / 32;
  for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < nwords;
       w += (long long)gridDim.x * blockDim.x) {
    unsigned int word = 0;
    for (int b = 0; b < 32; ++b) {
      const long long p = w * 32 + b;
      if (p < nnz && (p == 0 || key[p] / sigma != key[p - 1] / sigma)) word |= 1u << b;
    }
    words[w] = word;
  }
}

// Slice s (its entries first[s] .. first[s + 1] - 1, the last to nnz - 1):
// skey[s] = its (block, row) key, mask[s] = the OR of its bits, and
// counts[block] += 1 (zeroed by the caller). A thread per slice. O(nnz)
__global__ void bvss_slices(const long long* __restrict__ key, const long long* __restrict__ first,
                            long long nslices, long long nnz, long long nrows, int sigma,
                            long long* __restrict__ skey, unsigned int* __restrict__ mask,
                            unsigned long long* __restrict__ counts) {
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < nslices;
       s += (long long)gridDim.x * blockDim.x) {
    const long long b = first[s], e = s + 1 < nslices ? first[s + 1] : nnz;
    unsigned int m = 0;
    for (long long p = b; p < e; ++p) m |= 1u << (int)(key[p] % sigma);
    const long long k = key[b] / sigma;
    skey[s] = k;
    mask[s] = m;
    atomicAdd(&counts[nrows ? k / nrows : k], 1ull);
  }
}

// Slice s to its slot: j, its rank in its block's slices (slice_start[block]
// the block's first), goes to VSS real_ptrs[block] + j / tau, slot k = j %
// tau: row_ids[(32 vss + k % 32) spw + k / 32] = its row, and its mask into
// masks[32 vss + k % 32] at bit (k / 32) sigma (row_ids preset to PAD_ROW,
// masks to 0 by the caller). A thread per slice. O(nslices)
__global__ void bvss_place(const long long* __restrict__ skey,
                           const unsigned int* __restrict__ mask, long long nslices,
                           long long nrows, int sigma,
                           const long long* __restrict__ real_ptrs,
                           const long long* __restrict__ slice_start,
                           unsigned int* __restrict__ row_ids, unsigned int* __restrict__ masks) {
  const int spw = 32 / sigma, tau = 32 * spw;
  for (long long s = blockIdx.x * (long long)blockDim.x + threadIdx.x; s < nslices;
       s += (long long)gridDim.x * blockDim.x) {
    const long long block = nrows ? skey[s] / nrows : skey[s];
    const long long row = skey[s] - block * nrows;
    const long long j = s - slice_start[block];
    const long long vss = real_ptrs[block] + j / tau;
    const int k = (int)(j % tau);
    const long long line = vss * 32 + k % 32;
    row_ids[line * spw + k / 32] = (unsigned int)row;
    atomicOr(&masks[line], mask[s] << ((k / 32) * sigma));
  }
}

// v2r[v] = the block of VSS v: real_ptrs[b] <= v < real_ptrs[b + 1]. A thread
// per block. O(nblocks + n_vss)
__global__ void bvss_v2r(const long long* __restrict__ real_ptrs, long long nblocks,
                         int* __restrict__ v2r) {
  for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < nblocks;
       b += (long long)gridDim.x * blockDim.x)
    for (long long v = real_ptrs[b]; v < real_ptrs[b + 1]; ++v) v2r[v] = (int)b;
}

// per[v] = Blest's update divergence of VSS v (formats.bvss.update_divergence
// before the mean over VSSs): the mean, over its slot columns holding a row
// id, of the population standard deviation of their row ids (0 with none).
// row_ids[n_vss][32][spw], PAD_ROW (0xFFFFFFFF) in empty slots. A thread
// per VSS, in doubles as the array code. O(n_vss * 32 * spw)
__global__ void bvss_divergence(const unsigned int* __restrict__ row_ids, long long n_vss,
                                int spw, double* __restrict__ per) {
  for (long long v = blockIdx.x * (long long)blockDim.x + threadIdx.x; v < n_vss;
       v += (long long)gridDim.x * blockDim.x) {
    const unsigned int* r = row_ids + v * 32 * spw;
    double total = 0.0;
    int cols = 0;
    for (int c = 0; c < spw; ++c) {
      int cnt = 0;
      double sum = 0.0;
      for (int i = 0; i < 32; ++i) {
        const unsigned int x = r[i * spw + c];
        if (x != 0xFFFFFFFFu) { ++cnt; sum += (double)x; }
      }
      if (cnt == 0) continue;
      const double mean = sum / cnt;
      double sq = 0.0;
      for (int i = 0; i < 32; ++i) {
        const unsigned int x = r[i * spw + c];
        if (x != 0xFFFFFFFFu) { const double d = (double)x - mean; sq += d * d; }
      }
      total += sqrt(sq / cnt);
      ++cols;
    }
    per[v] = cols ? total / cols : 0.0;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher's
// SPECS name them
template __global__ void bvss_keys<int, int>(const int*, const int*, long long*, long long, int);
template __global__ void bvss_keys<long long, int>(const long long*, const int*, long long*,
                                                   long long, int);
template __global__ void bvss_keys<int, long long>(const int*, const long long*, long long*,
                                                   long long, int);
template __global__ void bvss_keys<long long, long long>(const long long*, const long long*,
                                                         long long*, long long, int);
