// Triangle counting, ordered: the CUDA twin of kernels/cpu/components.py
// (ordered_count). The graph is a CSR whose row u starts with L(u), the
// neighbours of u below u, sorted, ending at mid[u] (the strictly lower
// triangle L compacted, mid = indptr[1:], or a symmetric CSR with its
// lower_ends). Each triangle w < v < u is found once, at the edge (u, v) of
// L, as a w of L(u) before v that is also in L(v): sum over the edges of L
// of |L(u)[< v] ∩ L(v)|.
//
// A thread per position e of indices[] (grid-stride): its row u by binary
// search in indptr (positions at or past mid[u] are upper parts: skipped),
// v = indices[e], then the two sorted lists a = indices[indptr[u]:e]
// (L(u) before v) and b = indices[indptr[v]:mid[v]] (L(v), all below v)
// are intersected: the shorter one's entries are searched in the longer
// one from a lower bound that only grows (both sorted), a merge when
// neither is longer than merge_ratio times the other (settings.Triangles).
// A thread per edge rather than a warp per row:
// the work of a row is the sum of its edges' intersections (quadratic in
// its length), so rows are far from even on skewed graphs, while an
// edge's is at most min(|a|, |b|) log max(|a|, |b|).
//
// Arrays: indptr[n+1], indices[indptr[n]], mid[n] (I: int or long long);
// total[1] (unsigned long long, zeroed by the launcher): the count, one
// atomicAdd per warp; tri[n] (long long, zeroed) when per_vertex: each
// triangle counted at its three vertices (atomicAdd: c at u and v, 1 at
// each w). Cost O(nnz log n + sum over edges of min(|a|,|b|) log max).

// the position of the first entry >= x in list[lo:hi] (hi if none)
template <typename I>
__device__ __forceinline__ long long lower_bound(const I* __restrict__ list, long long lo,
                                                 long long hi, long long x) {
  while (lo < hi) {
    const long long m = lo + ((hi - lo) >> 1);
    if ((long long)list[m] < x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

template <typename I>
__global__ void tc_ordered(const I* __restrict__ indptr, const I* __restrict__ indices,
                           const I* __restrict__ mid, long long n, long long nnz,
                           bool per_vertex, long long merge_ratio,
                           unsigned long long* __restrict__ total,
                           long long* __restrict__ tri) {
  unsigned long long count = 0;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < nnz; e += stride) {
    // row u: indptr[u] <= e < indptr[u + 1] (empty rows skipped by the search)
    long long u = 0, hi = n;
    while (hi - u > 1) {
      const long long m = u + ((hi - u) >> 1);
      if ((long long)indptr[m] <= e) u = m;
      else hi = m;
    }
    if (e >= (long long)mid[u]) continue;  // an upper-part entry: not an edge of L
    const long long v = (long long)indices[e];
    long long a0 = (long long)indptr[u];
    const long long a1 = e;  // L(u) before v (sorted: exactly its entries < v)
    long long b0 = (long long)indptr[v];
    const long long b1 = (long long)mid[v];
    long long na = a1 - a0, nb = b1 - b0;
    if (na == 0 || nb == 0) continue;
    unsigned long long c = 0;
    if (na <= merge_ratio * nb && nb <= merge_ratio * na) {
      // like lengths: merge
      while (a0 < a1 && b0 < b1) {
        const long long x = (long long)indices[a0];
        const long long y = (long long)indices[b0];
        if (x < y) {
          ++a0;
        } else if (y < x) {
          ++b0;
        } else {
          ++c;
          if (per_vertex) atomicAdd((unsigned long long*)&tri[x], 1ull);
          ++a0;
          ++b0;
        }
      }
    } else {
      // search the shorter list's entries in the longer one
      long long s0 = a0, s1 = a1, l0 = b0, l1 = b1;
      if (na > nb) {
        s0 = b0; s1 = b1; l0 = a0; l1 = a1;
      }
      for (long long p = s0; p < s1 && l0 < l1; ++p) {
        const long long x = (long long)indices[p];
        l0 = lower_bound(indices, l0, l1, x);
        if (l0 < l1 && (long long)indices[l0] == x) {
          ++c;
          if (per_vertex) atomicAdd((unsigned long long*)&tri[x], 1ull);
          ++l0;
        }
      }
    }
    if (per_vertex && c) {
      atomicAdd((unsigned long long*)&tri[u], c);
      atomicAdd((unsigned long long*)&tri[v], c);
    }
    count += c;
  }
  // every lane of the warp is here (the loop above has no shuffle): fold
  // the warp's counts, one atomic per warp
#pragma unroll
  for (int d = 16; d > 0; d >>= 1) count += __shfl_down_sync(0xffffffffu, count, d);
  if ((threadIdx.x & 31) == 0 && count) atomicAdd(total, count);
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles both by name expression
template __global__ void tc_ordered<int>(const int*, const int*, const int*, long long, long long,
                                         bool, long long, unsigned long long*, long long*);
template __global__ void tc_ordered<long long>(const long long*, const long long*,
                                               const long long*, long long, long long, bool,
                                               long long, unsigned long long*, long long*);
