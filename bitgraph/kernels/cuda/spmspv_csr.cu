// mxv, push: t = A (+).(x) x for a sparse x (a list of entries), scattering
// along the rows of AT = A': the CUDA twin of kernels/cpu/spmspv_csr.py.
//
// Work balance: the frontier's edges are numbered 0..E-1 through the prefix
// sum of its rows' lengths (offsets[nx+1], built by the launcher), and a
// thread takes edge e by a binary search of offsets (e grows along a
// thread's grid-stride loop, so the search starts at the last row found).
// A hub row is spread over as many threads as it has edges; no warp waits
// on another's long row.
//
// Each product is folded into t[i] by an atomic chosen per monoid and type
// (the launcher's ``how``): native atomicAdd/Min/Max on 32/64-bit integers
// and atomicAdd on double PLUS; plain stores where the fold is idempotent
// (bool LOR-like: set; LAND-like: clear); atomicXor on the word holding a
// bool (LXOR, EQ); else a compare-and-swap loop on the aligned 32-bit word
// (sub-word types) or the 32/64-bit element, computing bg::binop. t starts
// at a value s with binop(add, s, p) == p bit for bit (the identity, or
// -0.0 for float PLUS and NaN for float MIN/MAX, whose identities are not
// exact left identities: 0.0 + -0.0 is 0.0, fmin(inf, NaN) is inf), so the
// first product lands as the CPU stores it; presence is a separate flag.
// float32 PLUS takes the CAS loop: atom.add.f32 flushes subnormals.
#include "scalar.cuh"

// scatter modes, the launcher's ``how`` (kernels/cuda/spmspv_csr.py)
enum : int {
  S_ANY = 0,    // first come: store value and flag while the flag is unset
  S_ADD = 1,    // atomicAdd (32/64-bit integers, double)
  S_MIN = 2,    // atomicMin (32/64-bit integers)
  S_MAX = 3,    // atomicMax (32/64-bit integers)
  S_SET = 4,    // bool LOR, PLUS, MAX: a true product stores true
  S_CLEAR = 5,  // bool LAND, TIMES, MIN: a false product stores false
  S_XOR = 6,    // bool LXOR: a true product flips the byte
  S_XNOR = 7,   // bool EQ: a false product flips the byte
  S_CAS = 8,    // compare-and-swap loop over bg::binop
  S_COUNT = 9   // LOR/LAND/LXOR/EQ on a non-bool type: see push_finish
};

template <int N> struct uint_of;
template <> struct uint_of<1> { typedef unsigned char t; };
template <> struct uint_of<2> { typedef unsigned short t; };
template <> struct uint_of<4> { typedef unsigned int t; };
template <> struct uint_of<8> { typedef unsigned long long t; };

template <typename U, typename T>
__device__ __forceinline__ U to_bits(T x) {
  union { T t; U u; } c;
  c.t = x;
  return c.u;
}
template <typename T, typename U>
__device__ __forceinline__ T from_bits(U x) {
  union { T t; U u; } c;
  c.u = x;
  return c.t;
}

__device__ __forceinline__ bool bit(const unsigned int* words, unsigned long long i) {
  return (words[i >> 5] >> (i & 31)) & 1u;
}

// *addr = binop(add, *addr, p), atomically, by compare-and-swap. The first
// read is volatile (L2, coherent with the atomics), so "nothing to change"
// (the fold leaves the bits as they are, or the terminal is reached) is
// decided on a value that was current: that fold is then a no-op in place.
template <typename T>
__device__ __forceinline__ void cas_fold(T* addr, int add, T p, bool has_term, T terminal) {
  typedef typename uint_of<sizeof(T)>::t U;
  if constexpr (sizeof(T) >= 4) {
    U* w = reinterpret_cast<U*>(addr);
    U old = *reinterpret_cast<volatile U*>(w);
    while (true) {
      const T cur = from_bits<T>(old);
      if (has_term && cur == terminal) return;
      const U nb = to_bits<U>(bg::binop<T>(add, cur, p));
      if (nb == old) return;
      const U prev = atomicCAS(w, old, nb);
      if (prev == old) return;
      old = prev;
    }
  } else {  // bool, 8- and 16-bit types: the aligned 32-bit word holding it
    const unsigned long long a = reinterpret_cast<unsigned long long>(addr);
    unsigned int* w = reinterpret_cast<unsigned int*>(a & ~3ull);
    const unsigned int shift = (unsigned int)(a & 3ull) * 8u;
    const unsigned int mask = (unsigned int)(U)~(U)0 << shift;
    unsigned int old = *reinterpret_cast<volatile unsigned int*>(w);
    while (true) {
      const U b = (U)((old & mask) >> shift);
      const T cur = from_bits<T>(b);
      if (has_term && cur == terminal) return;
      const U nb = to_bits<U>(bg::binop<T>(add, cur, p));
      if (nb == b) return;
      const unsigned int neu = (old & ~mask) | ((unsigned int)nb << shift);
      const unsigned int prev = atomicCAS(w, old, neu);
      if (prev == old) return;
      old = prev;
    }
  }
}

// flip the byte of a bool (0 <-> 1) in its aligned 32-bit word
__device__ __forceinline__ void flip_bool(bool* addr) {
  const unsigned long long a = reinterpret_cast<unsigned long long>(addr);
  atomicXor(reinterpret_cast<unsigned int*>(a & ~3ull), 1u << ((unsigned int)(a & 3ull) * 8u));
}

template <typename T>
__device__ __forceinline__ void scatter(int how, int add, T* t_values,
                                        bool* t_present, unsigned int* cnt,
                                        unsigned int* norm, unsigned long long i, T p,
                                        bool has_term, T terminal) {
  constexpr int kind = bg::traits<T>::kind;
  T* addr = t_values + i;
  switch (how) {
    case S_ANY:  // racing writers store valid products: whichever lands is a witness
      if (!t_present[i]) {
        *addr = p;
        t_present[i] = true;
      }
      return;
    case S_COUNT: {  // 1 product: the CPU keeps it raw; >= 2: normalised 0/1
      if (atomicAdd(cnt + i, 1u) == 0u) *addr = p;
      const bool nz = p != (T)0;
      if (add == bg::LOR) { if (nz) norm[i] = 1u; }
      else if (add == bg::LAND) { if (!nz) norm[i] = 0u; }
      else if (add == bg::LXOR) { if (nz) atomicXor(norm + i, 1u); }
      else { if (!nz) atomicXor(norm + i, 1u); }  // EQ: parity of the zeros
      return;
    }
    case S_ADD:
      if constexpr ((kind == 1 || kind == 2) && sizeof(T) == 4)
        atomicAdd(reinterpret_cast<unsigned int*>(addr), (unsigned int)p);
      else if constexpr ((kind == 1 || kind == 2) && sizeof(T) == 8)
        atomicAdd(reinterpret_cast<unsigned long long*>(addr), (unsigned long long)p);
      else if constexpr (kind == 3 && sizeof(T) == 8)
        atomicAdd(addr, p);
      else
        cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    case S_MIN:
      if constexpr ((kind == 1 || kind == 2) && sizeof(T) >= 4) atomicMin(addr, p);
      else cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    case S_MAX:
      if constexpr ((kind == 1 || kind == 2) && sizeof(T) >= 4) atomicMax(addr, p);
      else cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    case S_SET:
      if constexpr (kind == 0) { if (p) *addr = true; }
      else cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    case S_CLEAR:
      if constexpr (kind == 0) { if (!p) *addr = false; }
      else cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    case S_XOR:
      if constexpr (kind == 0) { if (p) flip_bool(addr); }
      else cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    case S_XNOR:
      if constexpr (kind == 0) { if (!p) flip_bool(addr); }
      else cas_fold<T>(addr, add, p, has_term, terminal);
      break;
    default:
      cas_fold<T>(addr, add, p, has_term, terminal);
  }
  if (!t_present[i]) t_present[i] = true;
}

// AT: indptr[n_in+1], indices[nnz], values[nnz] (or [1], iso); x_indices[nx]
// (int64), offsets[nx+1] (int64: offsets[q] = edges of x's entries before q);
// x_values[n_in]; allowed: bitmap of the outputs (or [1]); t_values[nout]
// (filled with the start value), t_present[nout] (false); cnt, norm [nout]
// uint32 for S_COUNT (else [1]). O(E log nx / threads)
template <typename T, typename I>
__global__ void spmspv_push(const I* __restrict__ indptr, const I* __restrict__ indices,
                            const T* __restrict__ values, bool iso,
                            const long long* __restrict__ x_indices,
                            const long long* __restrict__ offsets, long long nx,
                            const T* __restrict__ x_values, const unsigned int* __restrict__ allowed,
                            bool has_allowed, int how, int add, int mult, bool has_term,
                            T terminal, T* t_values, bool* t_present,
                            unsigned int* cnt, unsigned int* norm) {
  const long long total = offsets[nx];
  const long long stride = (long long)gridDim.x * blockDim.x;
  long long q = 0;  // offsets[q] <= e: e only grows, so q does
  for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
    long long hi = nx;  // offsets[q] <= e < offsets[hi]
    while (hi - q > 1) {
      const long long mid = (q + hi) >> 1;
      if (offsets[mid] <= e) q = mid;
      else hi = mid;
    }
    const unsigned long long k = (unsigned long long)x_indices[q];
    const long long p = (long long)indptr[k] + (e - offsets[q]);
    const unsigned long long i = (unsigned long long)indices[p];
    if (has_allowed && !bit(allowed, i)) continue;
    const T a = iso ? (T)1 : values[p];
    const T prod = bg::multop<T>(mult, a, x_values[k], i, k, 0ull);
    scatter<T>(how, add, t_values, t_present, cnt, norm, i, prod, has_term, terminal);
  }
}

// Before the scatter, in one launch: deg[q] = the length of AT's row
// x_indices[q] (the launcher's prefix sum makes offsets[1:] of it),
// offsets[0] = 0, and t_values[r] = start, t_present[r] = false.
// O(nx + nout)
template <typename T, typename I>
__global__ void push_prepare(const I* __restrict__ indptr, const long long* __restrict__ x_indices,
                             long long nx, long long* __restrict__ deg,
                             long long* __restrict__ offsets, T* __restrict__ t_values,
                             bool* __restrict__ t_present, T start, long long nout) {
  const long long n = nx > nout ? nx : nout;
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n;
       r += (long long)gridDim.x * blockDim.x) {
    if (r < nx) {
      const long long k = x_indices[r];
      deg[r] = (long long)indptr[k + 1] - (long long)indptr[k];
    }
    if (r < nout) {
      t_values[r] = start;
      t_present[r] = false;
    }
    if (r == 0) offsets[0] = 0;
  }
}

// After the scatter: S_COUNT outputs take their raw product (1 product),
// the normalised fold (>= 2: the CPU's LOR/LAND/LXOR of raw values is 0/1)
// or stay absent; other modes put the identity where nothing landed (the
// start value may differ from it). O(nout)
template <typename T>
__global__ void push_finish(int how, int add, T* t_values,
                            bool* t_present, const unsigned int* __restrict__ cnt,
                            const unsigned int* __restrict__ norm, T identity, long long n) {
  for (long long r = (long long)blockIdx.x * blockDim.x + threadIdx.x; r < n;
       r += (long long)gridDim.x * blockDim.x) {
    if (how == S_COUNT) {
      const unsigned int c = cnt[r];
      t_present[r] = c > 0u;
      if (c >= 2u) t_values[r] = (T)(add == bg::EQ ? norm[r] == 0u : norm[r] != 0u);
    } else if (!t_present[r]) {
      t_values[r] = identity;
    }
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void spmspv_push<double, int>(const int*, const int*, const double*, bool,
    const long long*, const long long*, long long, const double*, const unsigned int*, bool,
    int, int, int, bool, double, double*, bool*, unsigned int*, unsigned int*);
template __global__ void spmspv_push<bool, long long>(const long long*, const long long*,
    const bool*, bool, const long long*, const long long*, long long, const bool*,
    const unsigned int*, bool, int, int, int, bool, bool, bool*, bool*, unsigned int*,
    unsigned int*);
template __global__ void spmspv_push<short, int>(const int*, const int*, const short*, bool,
    const long long*, const long long*, long long, const short*, const unsigned int*, bool,
    int, int, int, bool, short, short*, bool*, unsigned int*, unsigned int*);
template __global__ void spmspv_push<float, int>(const int*, const int*, const float*, bool,
    const long long*, const long long*, long long, const float*, const unsigned int*, bool,
    int, int, int, bool, float, float*, bool*, unsigned int*, unsigned int*);
template __global__ void spmspv_push<unsigned long long, long long>(const long long*,
    const long long*, const unsigned long long*, bool, const long long*, const long long*,
    long long, const unsigned long long*, const unsigned int*, bool, int, int, int, bool,
    unsigned long long, unsigned long long*, bool*, unsigned int*, unsigned int*);
template __global__ void push_prepare<float, long long>(const long long*, const long long*,
    long long, long long*, long long*, float*, bool*, float, long long);
template __global__ void push_prepare<bool, int>(const int*, const long long*, long long,
    long long*, long long*, bool*, bool*, bool, long long);
template __global__ void push_finish<long long>(int, int, long long*, bool*, const unsigned int*,
    const unsigned int*, long long, long long);
template __global__ void push_finish<float>(int, int, float*, bool*, const unsigned int*,
    const unsigned int*, float, long long);
