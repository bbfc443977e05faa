// mxm on CSR, the CUDA twins of kernels/cpu/spgemm_dot.py (masked dot
// products) and kernels/cpu/spgemm_csr.py (Gustavson, here by
// expand-sort-compress).
//
// Both fold each C(i,j) in ascending k, the CPU's order, so even float
// PLUS/TIMES results are bit-identical with the CPU's:
// - spgemm_dot: one thread per mask entry (i,j) intersects the sorted rows
//   A(i,:) and B'(j,:) by a merge, or, when one is 16x longer, by galloping
//   searches of the shorter one's k in the longer (a hub row costs
//   O(short log(long/short)), not O(long)); matches come in ascending k.
//   One fold site per kernel keeps the code (and NVRTC's time) small.
// - esc_expand: product e of a chunk of A's entries (A(i,k) * B(k,j)) in the
//   order (i, A's row order, B's row order), so ascending k within each
//   (i,j); the launcher sorts the kept products by (i,j) with a stable sort,
//   which keeps that order, and esc_fold folds each (i,j) run in it.
#include "scalar.cuh"

// mask modes of esc_expand (the CPU's _NONE, _MASK, _COMPLEMENT)
enum : int { M_NONE = 0, M_MASK = 1, M_COMPLEMENT = 2 };

// first p in [lo, hi) with a[p] >= key (hi if none)
template <typename I>
__device__ __forceinline__ long long lower_bound(const I* __restrict__ a, long long lo,
                                                 long long hi, I key) {
  while (lo < hi) {
    const long long mid = (lo + hi) >> 1;
    if (a[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// first p in [lo, hi) with a[p] >= key, by doubling steps from lo then a
// binary search: O(log(p - lo)), cheap when the answer is near lo
template <typename I>
__device__ __forceinline__ long long gallop(const I* __restrict__ a, long long lo, long long hi,
                                            I key) {
  if (lo >= hi || a[lo] >= key) return lo;
  long long step = 1, prev = lo;  // a[prev] < key
  while (prev + step < hi && a[prev + step] < key) {
    prev += step;
    step <<= 1;
  }
  const long long end = prev + step < hi ? prev + step + 1 : hi;
  return lower_bound(a, prev + 1, end, key);
}

// the row r with starts[r] <= s < starts[r + 1], r in [0, n) (starts ascending)
template <typename I>
__device__ __forceinline__ long long row_of(const I* __restrict__ starts, long long n,
                                            long long s) {
  long long lo = 0, hi = n;
  while (hi - lo > 1) {
    const long long mid = (lo + hi) >> 1;
    if ((long long)starts[mid] <= s) lo = mid;
    else hi = mid;
  }
  return lo;
}

// C<M> = A (+).(x) B by dot products, B given as BT = B'. A: nrows x n_inner,
// BT: ncols x n_inner, M: nrows x ncols (structural), all CSR with sorted
// rows; values [nnz] or [1] (iso). out_values[s], out_found[s]: C's entry
// at M's entry s (found: A(i,:) and B'(j,:) share a k). O(nnz(M) log nrows
// + sum over M(i,j) of min(|A(i)| + |B'(j)|, short * log(long / short)))
template <typename T, typename I>
__global__ void spgemm_dot(const I* __restrict__ a_indptr, const I* __restrict__ a_indices,
                           const T* __restrict__ a_values, bool a_iso,
                           const I* __restrict__ bt_indptr, const I* __restrict__ bt_indices,
                           const T* __restrict__ bt_values, bool bt_iso,
                           const I* __restrict__ m_indptr, const I* __restrict__ m_indices,
                           long long nrows, long long nnz_m, int add, int mult, bool has_term,
                           T terminal, T* __restrict__ out_values, bool* __restrict__ out_found) {
  const bool any = add == bg::ANY;
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nnz_m;
       s += (long long)gridDim.x * blockDim.x) {
    const long long i = row_of(m_indptr, nrows, s);
    const long long j = (long long)m_indices[s];
    long long pa = (long long)a_indptr[i];
    const long long ea = (long long)a_indptr[i + 1];
    long long pb = (long long)bt_indptr[j];
    const long long eb = (long long)bt_indptr[j + 1];
    T acc = terminal;
    bool found = false;
    const long long la = ea - pa, lb = eb - pb;
    if (la > 0 && lb > 0 && a_indices[ea - 1] >= bt_indices[pb] &&
        bt_indices[eb - 1] >= a_indices[pa]) {
      // walk the shorter row; in the longer, step (a merge: O(la + lb)) or,
      // when it is 16x longer, gallop from the last position
      const bool a_short = la <= lb;
      const bool leap = a_short ? lb > 16 * la : la > 16 * lb;
      const I* sidx = a_short ? a_indices : bt_indices;
      const I* lidx = a_short ? bt_indices : a_indices;
      long long ps = a_short ? pa : pb, pl = a_short ? pb : pa;
      const long long es = a_short ? ea : eb, el = a_short ? eb : ea;
      for (; ps < es; ++ps) {
        const I k = sidx[ps];
        if (leap) pl = gallop(lidx, pl, el, k);
        else while (pl < el && lidx[pl] < k) ++pl;
        if (pl >= el) break;
        if (lidx[pl] != k) continue;
        const long long qa = a_short ? ps : pl, qb = a_short ? pl : ps;
        const T a = a_iso ? (T)1 : a_values[qa];
        const T b = bt_iso ? (T)1 : bt_values[qb];
        const T prod = bg::multop<T>(mult, a, b, (unsigned long long)i, (unsigned long long)k,
                                     (unsigned long long)j);
        acc = found ? bg::binop<T>(add, acc, prod) : prod;
        found = true;
        if (any || (has_term && acc == terminal)) break;
        ++pl;
      }
    }
    out_values[s] = acc;
    out_found[s] = found;
  }
}

// Expand the products of A's entries [p0, p1) (cum[p] = products before
// A's entry p, int64, nnz(A)+1; a_rows[p] = its row): product e (0-based
// in the chunk) is A(i,k) * B(k,j) for the A entry p with cum[p] <= cum[p0]
// + e < cum[p + 1]. Writes keys[e] = (i - row0) * ncols + j and prods[e]
// (or keys[e] = ~0, dropped, where the mask (M_MASK) or its complement
// (M_COMPLEMENT) rules (i,j) out: a binary search in M's sorted row i).
// O(products * (log nnz(A) + log |M(i)|) / threads)
template <typename T, typename I>
__global__ void esc_expand(const I* __restrict__ a_indices, const long long* __restrict__ a_rows,
                           const T* __restrict__ a_values, bool a_iso,
                           const I* __restrict__ b_indptr, const I* __restrict__ b_indices,
                           const T* __restrict__ b_values, bool b_iso,
                           const long long* __restrict__ cum, long long p0, long long p1,
                           long long row0, long long ncols, const I* __restrict__ m_indptr,
                           const I* __restrict__ m_indices, int mode, int mult, bool wide,
                           void* __restrict__ keys, T* __restrict__ prods) {
  unsigned long long* keys64 = reinterpret_cast<unsigned long long*>(keys);
  unsigned int* keys32 = reinterpret_cast<unsigned int*>(keys);
  const long long base = cum[p0];
  const long long total = cum[p1] - base;
  long long p = p0;  // cum[p] <= base + e: e only grows, so p does
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total;
       e += (long long)gridDim.x * blockDim.x) {
    const long long eg = base + e;
    long long hi = p1;  // cum[p] <= eg < cum[hi]
    while (hi - p > 1) {
      const long long mid = (p + hi) >> 1;
      if (cum[mid] <= eg) p = mid;
      else hi = mid;
    }
    const long long k = (long long)a_indices[p];
    const long long q = (long long)b_indptr[k] + (eg - cum[p]);
    const I j = b_indices[q];
    const long long i = a_rows[p];
    if (mode != M_NONE) {
      const long long me = (long long)m_indptr[i + 1];
      const long long pos = lower_bound(m_indices, (long long)m_indptr[i], me, j);
      const bool in = pos < me && m_indices[pos] == j;
      if (in != (mode == M_MASK)) {
        if (wide) keys64[e] = ~0ull;
        else keys32[e] = ~0u;
        continue;
      }
    }
    const T a = a_iso ? (T)1 : a_values[p];
    const T b = b_iso ? (T)1 : b_values[q];
    prods[e] = bg::multop<T>(mult, a, b, (unsigned long long)i, (unsigned long long)k,
                             (unsigned long long)j);
    const unsigned long long key = (unsigned long long)((i - row0) * ncols + (long long)j);
    if (wide) keys64[e] = key;
    else keys32[e] = (unsigned int)key;
  }
}

// Fold each run [starts[s], starts[s+1]) of the sorted products (read
// through the stable sort's permutation perm) left to right, as the CPU
// folds C(i,j): stop at the terminal, ANY keeps the first. One thread per
// (i,j). O(products / threads), a long run costs its thread its length.
template <typename T>
__global__ void esc_fold(const long long* __restrict__ starts, long long nseg,
                         const long long* __restrict__ perm, const T* __restrict__ prods,
                         int add, bool has_term, T terminal, T* __restrict__ out) {
  for (long long s = (long long)blockIdx.x * blockDim.x + threadIdx.x; s < nseg;
       s += (long long)gridDim.x * blockDim.x) {
    const long long lo = starts[s], hi = starts[s + 1];
    T acc = prods[perm[lo]];
    if (add != bg::ANY)
      for (long long p = lo + 1; p < hi; ++p) {
        if (has_term && acc == terminal) break;
        acc = bg::binop<T>(add, acc, prods[perm[p]]);
      }
    out[s] = acc;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void spgemm_dot<double, int>(const int*, const int*, const double*, bool,
    const int*, const int*, const double*, bool, const int*, const int*, long long, long long,
    int, int, bool, double, double*, bool*);
template __global__ void spgemm_dot<bool, long long>(const long long*, const long long*,
    const bool*, bool, const long long*, const long long*, const bool*, bool, const long long*,
    const long long*, long long, long long, int, int, bool, bool, bool*, bool*);
template __global__ void esc_expand<double, int>(const int*, const long long*, const double*,
    bool, const int*, const int*, const double*, bool, const long long*, long long, long long,
    long long, long long, const int*, const int*, int, int, bool, void*, double*);
template __global__ void esc_expand<signed char, long long>(const long long*, const long long*,
    const signed char*, bool, const long long*, const long long*, const signed char*, bool,
    const long long*, long long, long long, long long, long long, const long long*,
    const long long*, int, int, bool, void*, signed char*);
template __global__ void esc_fold<float>(const long long*, long long, const long long*,
    const float*, int, bool, float, float*);
template __global__ void esc_fold<unsigned short>(const long long*, long long,
    const long long*, const unsigned short*, int, bool, unsigned short, unsigned short*);
