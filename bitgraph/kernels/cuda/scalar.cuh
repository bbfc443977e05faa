// The scalar meaning of every op code for the CUDA kernels: the twin of
// bitgraph/kernels/cpu/scalar.py (same codes, same results, bit for bit).
// Codes are bitgraph/kernels/opcodes.py's (a test checks the two agree).
// Every op computes in one type T and wraps back into T, as
// SuiteSparse:GraphBLAS does: integer +, -, * go through the unsigned type
// (defined wrap-around; signed overflow is undefined in C++). Floats are
// IEEE: compiled with -ftz=false -prec-div=true -fmad=false (see
// kernels/cuda/__init__.py, OPTIONS), so denormals and rounding match the CPU.
#pragma once

namespace bg {

// binary op codes
enum : int {
  FIRST = 0, SECOND = 1, PAIR = 2, ANY = 3, PLUS = 4, MINUS = 5, RMINUS = 6,
  TIMES = 7, DIV = 8, RDIV = 9, MIN = 10, MAX = 11, LOR = 12, LAND = 13,
  LXOR = 14, EQ = 15, NE = 16, GT = 17, LT = 18, GE = 19, LE = 20,
  FIRSTI = 21, FIRSTJ = 22, SECONDI = 23, SECONDJ = 24
};
// unary op codes
enum : int { IDENTITY = 0, AINV = 1, MINV = 2, ABS = 3, LNOT = 4, ONE = 5, BNOT = 6 };

template <typename T> struct traits;
#define BG_TRAITS(T, U, KIND, TMIN, TMAX)                                   \
  template <> struct traits<T> {                                            \
    typedef U unsigned_t;                                                   \
    static constexpr int kind = KIND;                                       \
    static __device__ __forceinline__ T lo() { return TMIN; }               \
    static __device__ __forceinline__ T hi() { return TMAX; }               \
  };
// kind: 0 bool, 1 signed, 2 unsigned, 3 float
BG_TRAITS(bool, bool, 0, false, true)
BG_TRAITS(signed char, unsigned char, 1, (signed char)-128, (signed char)127)
BG_TRAITS(short, unsigned short, 1, (short)-32768, (short)32767)
BG_TRAITS(int, unsigned int, 1, (int)0x80000000, 0x7fffffff)
BG_TRAITS(long long, unsigned long long, 1, (long long)0x8000000000000000ULL,
          0x7fffffffffffffffLL)
BG_TRAITS(unsigned char, unsigned char, 2, (unsigned char)0, (unsigned char)255)
BG_TRAITS(unsigned short, unsigned short, 2, (unsigned short)0, (unsigned short)65535)
BG_TRAITS(unsigned int, unsigned int, 2, 0u, 0xffffffffu)
BG_TRAITS(unsigned long long, unsigned long long, 2, 0ull, 0xffffffffffffffffull)
BG_TRAITS(float, float, 3, 0.0f, 0.0f)
BG_TRAITS(double, double, 3, 0.0, 0.0)
#undef BG_TRAITS

template <typename T>
__device__ __forceinline__ T wrap_add(T x, T y) {
  typedef typename traits<T>::unsigned_t U;
  return (T)((U)x + (U)y);
}
template <typename T>
__device__ __forceinline__ T wrap_sub(T x, T y) {
  typedef typename traits<T>::unsigned_t U;
  return (T)((U)x - (U)y);
}
template <typename T>
__device__ __forceinline__ T wrap_mul(T x, T y) {
  typedef typename traits<T>::unsigned_t U;
  return (T)((U)x * (U)y);
}

// DIV with SuiteSparse's integer rules (GB_idiv); IEEE for floats
template <typename T>
__device__ __forceinline__ T div(T x, T y) {
  constexpr int k = traits<T>::kind;
  if constexpr (k == 0) return x;
  else if constexpr (k == 3) return x / y;
  else {
  if (y == (T)0) {
    if (x == (T)0) return (T)0;
    if constexpr (k == 1) { if (x < (T)0) return traits<T>::lo(); }
    return traits<T>::hi();
  }
  if (k == 1 && y == (T)-1) return wrap_sub((T)0, x);
  return x / y;
  }
}

template <typename T>
__device__ __forceinline__ T binop(int code, T x, T y) {
  constexpr int k = traits<T>::kind;
  if constexpr (k == 0) {  // bool: PLUS=LOR, MINUS=RMINUS=LXOR, TIMES=LAND, DIV=FIRST, RDIV=SECOND, MIN=LAND, MAX=LOR
    switch (code) {
      case FIRST: case ANY: case DIV: return x;
      case SECOND: case RDIV: return y;
      case PAIR: return true;
      case PLUS: case LOR: case MAX: return x || y;
      case TIMES: case LAND: case MIN: return x && y;
      case MINUS: case RMINUS: case LXOR: case NE: return x != y;
      case EQ: return x == y;
      case GT: return x > y;
      case LT: return x < y;
      case GE: return x >= y;
      case LE: return x <= y;
    }
    return x;
  } else {
  switch (code) {
    case FIRST: case ANY: return x;
    case SECOND: return y;
    case PAIR: return (T)1;
    case PLUS: if constexpr (k == 3) return x + y; else return wrap_add(x, y);
    case MINUS: if constexpr (k == 3) return x - y; else return wrap_sub(x, y);
    case RMINUS: if constexpr (k == 3) return y - x; else return wrap_sub(y, x);
    case TIMES: if constexpr (k == 3) return x * y; else return wrap_mul(x, y);
    case DIV: return div(x, y);
    case RDIV: return div(y, x);
    case MIN:  // floats: fmin, a NaN operand is ignored (the CPU's exact rule)
      if (k == 3) { if (x != x) return y; return (x <= y || y != y) ? x : y; }
      return x < y ? x : y;
    case MAX:
      if (k == 3) { if (x != x) return y; return (x >= y || y != y) ? x : y; }
      return x > y ? x : y;
    case LOR: return (T)((x != (T)0) || (y != (T)0));
    case LAND: return (T)((x != (T)0) && (y != (T)0));
    case LXOR: return (T)((x != (T)0) != (y != (T)0));
    case EQ: return (T)(x == y);
    case NE: return (T)(x != y);
    case GT: return (T)(x > y);
    case LT: return (T)(x < y);
    case GE: return (T)(x >= y);
    case LE: return (T)(x <= y);
  }
  return x;  // positional codes: multop computes them
  }
}

// the multiply of a semiring for a(i,k)*b(k,j): positional codes give an index
template <typename T>
__device__ __forceinline__ T multop(int code, T x, T y, unsigned long long i,
                                    unsigned long long k, unsigned long long j) {
  switch (code) {
    case FIRSTI: return (T)i;
    case FIRSTJ: case SECONDI: return (T)k;
    case SECONDJ: return (T)j;
  }
  return binop(code, x, y);
}

template <typename T>
__device__ __forceinline__ T unop(int code, T x) {
  constexpr int k = traits<T>::kind;
  if constexpr (k == 0) {
    switch (code) {
      case LNOT: return !x;
      case MINV: case ONE: return true;
    }
    return x;  // IDENTITY, AINV, ABS
  } else {
  switch (code) {
    case AINV: return k == 3 ? (T)(-x) : wrap_sub((T)0, x);
    case MINV: return div((T)1, x);
    case ABS:
      if constexpr (k == 3) return x < (T)0 ? (T)(-x) : (x == (T)0 ? (T)0 : x);
      else if constexpr (k == 1) return x < (T)0 ? wrap_sub((T)0, x) : x;
      else return x;
    case LNOT: return (T)(x == (T)0);
    case ONE: return (T)1;
    case BNOT:
      if constexpr (k == 1 || k == 2) {
        typedef typename traits<T>::unsigned_t U;
        return (T)(~(U)x);
      }
      return x;
  }
  return x;  // IDENTITY
  }
}

}  // namespace bg
