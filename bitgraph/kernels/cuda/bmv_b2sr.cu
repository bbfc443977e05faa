// B2SR bit matrix-vector products (Bit-GraphBLAS BMV): the CUDA twins of
// bitgraph/kernels/cpu/bmv_b2sr.py (layout: bitgraph/formats/b2sr.py,
// row-major bit-rows, LSB first).
//
// Work: an *item* is a tile row (or, for a tile row longer than `chunk`
// tiles, one chunk of it: the launcher lists those chunks as "extra"
// items). A group of S lanes (S = 2..32, a power of two, chosen by the
// launcher from the mean tiles per tile row) takes an item. L lanes hold
// one tile between them, 16 bytes each at most, so a warp's loads are
// contiguous (one tile row's tiles are contiguous in memory):
//
//   t = 4:  L = 1, a lane holds a tile (4 bytes: R = 4 bit-rows, a byte each)
//   t = 8:  L = 1, a lane holds a tile (8 bytes: R = 8 bit-rows)
//   t = 16: L = 2, a lane holds 8 bit-rows of 16 bits (16 bytes)
//   t = 32: L = 8, a lane holds 4 bit-rows of 32 bits (16 bytes)
//
// The S / L tile *slots* of a group take tiles first + slot, + S/L, ...
// (U tiles per lane per step, their loads issued together). A lane ANDs its
// bit-rows with the tile's t vector bits spread into every row field (one
// 64-bit AND tests 2..8 rows at once), then: popc per row (bin_bin_full),
// a nonzero test per row (bin_bin_bin), or a walk over the set bits, each
// one product x[col] (bin_full_full). Each lane keeps per-row partial
// results; the group combines them at the end: OR by __reduce_or_sync,
// counts by a butterfly that scatters rows over lanes while it reduces
// (about R + log2(S/L) shuffles instead of R per step), monoid values by a
// tree over the slots in shared memory (one copy of the op-code switch).
// bin_full_full has two product loops: op codes at run time (one loop over
// the set bits, one copy of the switches), and, for the semirings in the
// launcher's FAST_OPS, op codes as template arguments (the switches fold
// away; the lane walks each tile word row by row).
// Early exit (LOR's / ANY's / a terminal): every step the group ORs its
// finished rows (one __reduce_or_sync) and stops when all allowed rows are
// done; lanes drop finished rows from their field masks meanwhile.
// Masks: rows whose `allowed` bit is 0 are dropped from the field masks, a
// tile row with no allowed row costs one word read.
//
// A chunk of a long tile row writes its partial results to `scratch` (slot
// e = its extra index); a fixup kernel (a warp, for bin_full_full a block,
// per long tile row) folds the chunks' partials and writes the rows.
#include "scalar.cuh"
// THREADS (the kernels' __launch_bounds__) and the Geo<t> numbers the launcher reads
#include "bmv_b2sr_constants.cuh"

namespace bmv {

typedef unsigned long long u64;

template <int TT> struct Geo;
// L lanes per tile, R rows per lane, FW bits per row field, NW 64-bit words
// per lane, U tiles per lane per step (loads in flight)
template <> struct Geo<4>  { enum { L = GEO_L_T4,  R = GEO_R_T4,  FW = 8,  NW = 1, U = GEO_U_T4 }; };
template <> struct Geo<8>  { enum { L = GEO_L_T8,  R = GEO_R_T8,  FW = 8,  NW = 1, U = GEO_U_T8 }; };
template <> struct Geo<16> { enum { L = GEO_L_T16, R = GEO_R_T16, FW = 16, NW = 2, U = GEO_U_T16 }; };
template <> struct Geo<32> { enum { L = GEO_L_T32, R = GEO_R_T32, FW = 32, NW = 2, U = GEO_U_T32 }; };

template <int TT> struct G : Geo<TT> {
  enum { RPW = 64 / Geo<TT>::FW };  // row fields per 64-bit word
  static constexpr unsigned TMASK = TT == 32 ? 0xffffffffu : (1u << TT) - 1u;
  static constexpr unsigned RMASK = (1u << Geo<TT>::R) - 1u;
  static constexpr u64 FMASK = TT == 32 ? 0xffffffffull : (1ull << TT) - 1ull;  // one row's bits
  static constexpr u64 SPREAD = Geo<TT>::FW == 8 ? 0x0101010101010101ull
                              : Geo<TT>::FW == 16 ? 0x0001000100010001ull : 0x0000000100000001ull;
};

// The lane's part (h = which of the L parts) of tile p.
template <int TT>
__device__ __forceinline__ void load_part(const void* __restrict__ tiles, long long p, int h,
                                          u64 (&w)[Geo<TT>::NW]) {
  if constexpr (TT == 4) {
    w[0] = __ldg((const unsigned int*)tiles + p);
  } else if constexpr (TT == 8) {
    w[0] = __ldg((const u64*)tiles + p);
  } else {
    const uint4 v = __ldg((const uint4*)tiles + p * Geo<TT>::L + h);
    w[0] = (u64)v.x | ((u64)v.y << 32);
    w[1] = (u64)v.z | ((u64)v.w << 32);
  }
}

// t bits of a packed uint32 bitmap at bit c0 (a multiple of t: one word)
template <int TT>
__device__ __forceinline__ unsigned bits_at(const unsigned* __restrict__ bm, u64 c0) {
  return (__ldg(bm + (c0 >> 5)) >> (c0 & 31)) & G<TT>::TMASK;
}

// the allowed rows of tile row bi as t bits (rows past nrows dropped)
template <int TT>
__device__ __forceinline__ unsigned row_allowed(long long bi, long long nrows,
                                                const unsigned* __restrict__ allowed,
                                                bool has_allowed) {
  const u64 r0 = (u64)bi * TT;
  unsigned aw = has_allowed ? bits_at<TT>(allowed, r0) : G<TT>::TMASK;
  const long long rows = nrows - (long long)r0;
  if (rows < TT) aw &= (1u << rows) - 1u;
  return aw;
}

// field masks of the lane's rows whose bit is set in la (R bits)
template <int TT>
__device__ __forceinline__ void field_masks(unsigned la, u64 (&fm)[Geo<TT>::NW]) {
#pragma unroll
  for (int k = 0; k < Geo<TT>::NW; ++k) fm[k] = 0;
#pragma unroll
  for (int r = 0; r < Geo<TT>::R; ++r)
    if ((la >> r) & 1u) fm[r / G<TT>::RPW] |= G<TT>::FMASK << ((r % G<TT>::RPW) * Geo<TT>::FW);
}

// the rows (R bits) with a set bit in the masked words m
template <int TT>
__device__ __forceinline__ unsigned row_hits(const u64 (&m)[Geo<TT>::NW]) {
  unsigned hit = 0;
#pragma unroll
  for (int r = 0; r < Geo<TT>::R; ++r)
    if ((m[r / G<TT>::RPW] >> ((r % G<TT>::RPW) * Geo<TT>::FW)) & G<TT>::FMASK) hit |= 1u << r;
  return hit;
}

// entry i of an index array of int32 (idx64 false) or int64: a run-time
// flag (uniform, so no divergence) instead of a template parameter halves
// the instantiations NVRTC compiles
__device__ __forceinline__ long long index_at(const void* __restrict__ a, long long i,
                                              bool idx64) {
  return idx64 ? __ldg((const long long*)a + i) : (long long)__ldg((const int*)a + i);
}

// The items of a group, one after the other (grid-stride): the next
// item's bounds are loaded while the group works on the current one (one
// dependent memory round trip less per item).
struct Items {
  const void* rowptr;
  bool idx64;
  long long nbrows, total, chunk, stride;
  const long long* ex_row;
  const long long* ex_first;
  long long na, nb;  // prefetched: rowptr[g], rowptr[g+1]; or ex_row[e], ex_first[e]

  __device__ __forceinline__ void fetch(long long g) {
    if (g < nbrows) {
      na = index_at(rowptr, g, idx64);
      nb = index_at(rowptr, g + 1, idx64);
    } else if (g < total) {
      na = __ldg(ex_row + (g - nbrows));
      nb = __ldg(ex_first + (g - nbrows));
    }
  }

  // Item g: tile row bi, tiles [first, end), extra index e (-1: a whole
  // tile row, written directly). False: a long tile row, whose chunks are
  // extra items.
  __device__ __forceinline__ bool get(long long g, long long& bi, long long& first,
                                      long long& end, long long& e) {
    const long long a = na, b = nb;
    fetch(g + stride);
    if (g < nbrows) {
      bi = g;
      first = a;
      end = b;
      e = -1;
      return end - first <= chunk;
    }
    e = g - nbrows;
    bi = a;
    first = b;
    end = min(first + chunk, index_at(rowptr, bi + 1, idx64));
    return true;
  }
};

struct Group {
  int glane, h, slot, nslots, S;
  unsigned gmask;
  long long gid, gstride;
};

template <int L>
__device__ __forceinline__ Group group(int S) {
  Group gr;
  const int lane = threadIdx.x & 31;
  gr.S = S;
  gr.glane = lane & (S - 1);
  gr.h = gr.glane % L;
  gr.slot = gr.glane / L;
  gr.nslots = S / L;
  gr.gmask = S == 32 ? 0xffffffffu : ((1u << S) - 1u) << (lane & ~(S - 1));
  gr.gid = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / S;
  gr.gstride = (long long)gridDim.x * blockDim.x / S;
  return gr;
}

// The group's next batch of U tiles (all loads issued before any use): tile
// p = b + slot + u * nslots; c[u] = its column block (-1 past end), w[u] =
// the lane's part h of its bit-rows.
template <int TT>
__device__ __forceinline__ void load_batch(const void* __restrict__ colind, bool idx64,
                                           const void* __restrict__ tiles, long long b,
                                           long long end, const Group& gr,
                                           long long (&c)[Geo<TT>::U],
                                           u64 (&w)[Geo<TT>::U][Geo<TT>::NW]) {
#pragma unroll
  for (int u = 0; u < Geo<TT>::U; ++u) {
    const long long p = b + gr.slot + (long long)u * gr.nslots;
    c[u] = -1;
    if (p < end) {
      c[u] = index_at(colind, p, idx64);
      load_part<TT>(tiles, p, gr.h, w[u]);
    }
  }
}

// bits 0..7 of b as 8 bools (bytes 0/1) in one word
__device__ __forceinline__ u64 spread_bytes(unsigned b) {
  const u64 y = ((u64)(b & 0xffu) * 0x0101010101010101ull) & 0x8040201008040201ull;
  return ((y + 0x7f7f7f7f7f7f7f7full) & 0x8080808080808080ull) >> 7;
}

// t bools of a tile row (bits of P) at out[r0 ..], the group's lanes
// storing 8 (t = 4: 4) at a time; the last, partial tile row byte by byte
template <int TT>
__device__ __forceinline__ void store_bools(bool* __restrict__ out, long long r0,
                                            long long nrows, unsigned P, int glane, int S) {
  if (r0 + TT <= nrows) {
    if constexpr (TT == 4) {
      if (glane == 0) *(unsigned*)(out + r0) = (unsigned)spread_bytes(P);
    } else {
      for (int q = glane; q < TT / 8; q += S) *(u64*)(out + r0 + 8 * q) = spread_bytes(P >> (8 * q));
    }
  } else {
    for (int r = glane; r < TT; r += S)
      if (r0 + r < nrows) out[r0 + r] = (P >> r) & 1u;
  }
}

template <typename V>
__device__ __forceinline__ V shfl_xor(unsigned mask, V v, int d) {
  if constexpr (sizeof(V) < 4) return (V)__shfl_xor_sync(mask, (int)v, d);
  else return __shfl_xor_sync(mask, v, d);
}

template <int N> struct UInt;
template <> struct UInt<1> { typedef unsigned char type; };
template <> struct UInt<2> { typedef unsigned short type; };
template <> struct UInt<4> { typedef unsigned int type; };
template <> struct UInt<8> { typedef unsigned long long type; };

// swap a and b when c, with no branch and no select
template <typename V>
__device__ __forceinline__ void cswap(V& a, V& b, bool c) {
  typedef typename UInt<sizeof(V)>::type W;
  W x, y;
  memcpy(&x, &a, sizeof(V));
  memcpy(&y, &b, sizeof(V));
  const W d = (W)((x ^ y) & (W)(0 - (W)c));
  x ^= d;
  y ^= d;
  memcpy(&a, &x, sizeof(V));
  memcpy(&b, &y, sizeof(V));
}

template <typename V>
__device__ __forceinline__ typename UInt<sizeof(V)>::type to_bits(V v) {
  typename UInt<sizeof(V)>::type x;
  memcpy(&x, &v, sizeof(V));
  return x;
}

template <typename V>
__device__ __forceinline__ V from_bits(typename UInt<sizeof(V)>::type x) {
  V v;
  memcpy(&v, &x, sizeof(V));
  return v;
}

// v[r] for a run-time r, by masks on the bits (selects of array elements
// become run-time indexing, and the array goes to local memory)
template <int R, typename V>
__device__ __forceinline__ V pick(const V (&v)[R], int r) {
  typedef typename UInt<sizeof(V)>::type W;
  W x = 0;
#pragma unroll
  for (int j = 0; j < R; ++j) x |= to_bits(v[j]) & (W)(0 - (W)(r == j));
  return from_bits<V>(x);
}

// v[r] = a for a run-time r
template <int R, typename V>
__device__ __forceinline__ void put(V (&v)[R], int r, V a) {
  typedef typename UInt<sizeof(V)>::type W;
  const W y = to_bits(a);
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const W x = to_bits(v[j]);
    v[j] = from_bits<V>(x ^ ((x ^ y) & (W)(0 - (W)(r == j))));
  }
}

// One reduce-scatter step (rows halved to HS) and the steps after it:
// lanes of slots that differ in `bit` exchange halves of their rows while
// they fold them. Compile-time recursion, so every index of v is a
// constant (a run-time index puts v in local memory).
template <int HS, int R, typename V, typename Comb>
__device__ __forceinline__ void scatter_steps(V (&v)[R], unsigned& have, const Group& gr, int L,
                                              int& bit, int& n, int& base, int& sbits,
                                              Comb comb) {
  if constexpr (HS >= 1) {
    if (bit < gr.nslots) {
      const bool up = (gr.slot & bit) != 0;
      const unsigned lo = (1u << HS) - 1u;
      const unsigned my_h = up ? (have >> HS) & lo : have & lo;
      const unsigned send_h = up ? have & lo : (have >> HS) & lo;
      const unsigned oth_h = __shfl_xor_sync(gr.gmask, send_h, bit * L);
      // the half kept to the front (swapped by xor on the bits, not by
      // selects, which become run-time indices)
#pragma unroll
      for (int j = 0; j < HS; ++j) cswap(v[j], v[j + HS], up);
#pragma unroll
      for (int j = 0; j < HS; ++j) {
        const V o = shfl_xor(gr.gmask, v[j + HS], bit * L);
        v[j] = comb(v[j], (my_h >> j) & 1u, o, (oth_h >> j) & 1u);
      }
      have = my_h | oth_h;
      if (up) base += HS;
      n = HS;
      bit <<= 1;
      ++sbits;
      scatter_steps<HS / 2>(v, have, gr, L, bit, n, base, sbits, comb);
    }
  }
}

// Group reduction of per-lane row partials v[R] (`have`: R bits, which are
// present) over the group's slots: a reduce-scatter (scatter_steps), then
// plain butterfly steps for the slot bits left. On return the lane holds
// rows base .. base+n-1 of its R rows in v[0..n), combined over the whole
// group; lanes with (slot >> sbits) == 0 hold each row once.
template <int R, typename V, typename Comb>
__device__ __forceinline__ void group_reduce(V (&v)[R], unsigned& have, const Group& gr, int L,
                                             int& n, int& base, int& sbits, Comb comb) {
  n = R;
  base = 0;
  sbits = 0;
  int bit = 1;
  scatter_steps<R / 2>(v, have, gr, L, bit, n, base, sbits, comb);
  // the slot bits left (only when nslots > R: one row left per lane)
  for (; bit < gr.nslots; bit <<= 1) {
    const unsigned oth_h = __shfl_xor_sync(gr.gmask, have, bit * L);
    const V o = shfl_xor(gr.gmask, v[0], bit * L);
    v[0] = comb(v[0], have & 1u, o, oth_h & 1u);
    have |= oth_h;
  }
}

}  // namespace bmv

using namespace bmv;

// ---------------------------------------------------------------------------
// bin_bin_bin: t_present[r] = row r & x_present != 0, t_true[r] = row r &
// x_present & x_true != 0 (x_true = x_present when `same`)
// ---------------------------------------------------------------------------
template <int TT>
__global__ void __launch_bounds__(THREADS)
bmv_bin_bin_bin(const void* __restrict__ rowptr, const void* __restrict__ colind, bool idx64,
                const void* __restrict__ tiles, long long nbrows, long long nrows,
                const unsigned* __restrict__ xp, const unsigned* __restrict__ xt, bool same,
                const unsigned* __restrict__ allowed, bool has_allowed, int S, long long chunk,
                const long long* __restrict__ ex_row, const long long* __restrict__ ex_first, long long nextra,
                unsigned* __restrict__ scratch, bool* __restrict__ t_true,
                bool* __restrict__ t_present) {
  typedef G<TT> g_;
  constexpr int L = g_::L, R = g_::R, NW = g_::NW, U = g_::U;
  const Group gr = group<L>(S);
  Items it{rowptr, idx64, nbrows, nbrows + nextra, chunk, gr.gstride, ex_row, ex_first, 0, 0};
  it.fetch(gr.gid);
  for (long long g = gr.gid; g < nbrows + nextra; g += gr.gstride) {
    long long bi, first, end, e;
    if (!it.get(g, bi, first, end, e)) continue;
    const unsigned aw = row_allowed<TT>(bi, nrows, allowed, has_allowed);
    const unsigned la = (aw >> (gr.h * R)) & g_::RMASK;
    unsigned hp = 0, ht = 0;  // the lane's rows found present / true
    if (aw) {
      u64 fm[NW];
      field_masks<TT>(la, fm);
      unsigned seen = 0;  // rows true somewhere in the group (t bits)
      for (long long b = first; b < end; b += (long long)gr.nslots * U) {
        long long c[U];
        u64 w[U][NW];
        load_batch<TT>(colind, idx64, tiles, b, end, gr, c, w);
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (c[u] < 0) continue;
          const u64 c0 = (u64)c[u] * TT;
          const unsigned xb = bits_at<TT>(xp, c0);
          if (!xb) continue;
          u64 m[NW];
          const u64 sp = (u64)xb * g_::SPREAD;
#pragma unroll
          for (int k = 0; k < NW; ++k) m[k] = w[u][k] & fm[k] & sp;
          hp |= row_hits<TT>(m);
          if (!same) {
            const u64 st = (u64)(xb & bits_at<TT>(xt, c0)) * g_::SPREAD;
#pragma unroll
            for (int k = 0; k < NW; ++k) m[k] &= st;
            ht |= row_hits<TT>(m);
          }
        }
        // LOR's terminal: stop once every allowed row is true
        const unsigned all = __reduce_or_sync(gr.gmask, (same ? hp : ht) << (gr.h * R));
        if ((all & aw) == aw) break;
        if (all != seen) {  // drop rows found true by other lanes
          seen = all;
          field_masks<TT>(la & ~(all >> (gr.h * R)), fm);
        }
      }
    }
    const unsigned P = __reduce_or_sync(gr.gmask, hp << (gr.h * R));
    const unsigned Tr = same ? P : __reduce_or_sync(gr.gmask, ht << (gr.h * R));
    if (e < 0) {
      store_bools<TT>(t_present, bi * TT, nrows, P, gr.glane, S);
      store_bools<TT>(t_true, bi * TT, nrows, Tr, gr.glane, S);
    } else if (gr.glane == 0) {
      scratch[2 * e] = P;
      scratch[2 * e + 1] = Tr;
    }
  }
}

// long tile rows: OR of their chunks' partials (a warp per long tile row)
template <int TT>
__global__ void bmv_bin_bin_bin_fixup(const long long* __restrict__ long_rows,
                                      const long long* __restrict__ slot0, long long nlong,
                                      long long nrows, const unsigned* __restrict__ scratch,
                                      bool* __restrict__ t_true, bool* __restrict__ t_present) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long j = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; j < nlong;
       j += warps) {
    unsigned P = 0, Tr = 0;
    for (long long s = slot0[j] + lane; s < slot0[j + 1]; s += 32) {
      P |= scratch[2 * s];
      Tr |= scratch[2 * s + 1];
    }
    P = __reduce_or_sync(0xffffffffu, P);
    Tr = __reduce_or_sync(0xffffffffu, Tr);
    const long long bi = long_rows[j];
    if (lane < TT && bi * TT + lane < nrows) {
      t_present[bi * TT + lane] = (P >> lane) & 1u;
      t_true[bi * TT + lane] = (Tr >> lane) & 1u;
    }
  }
}

// ---------------------------------------------------------------------------
// bin_bin_full: counts[r] = popcount(row r & x_present) (PLUS_PAIR)
// ---------------------------------------------------------------------------
template <int TT>
__global__ void __launch_bounds__(THREADS)
bmv_bin_bin_full(const void* __restrict__ rowptr, const void* __restrict__ colind, bool idx64,
                 const void* __restrict__ tiles, long long nbrows, long long nrows,
                 const unsigned* __restrict__ xp, const unsigned* __restrict__ allowed,
                 bool has_allowed, int S, long long chunk, const long long* __restrict__ ex_row,
                 const long long* __restrict__ ex_first, long long nextra,
                 unsigned* __restrict__ scratch, unsigned long long* __restrict__ counts) {
  typedef G<TT> g_;
  constexpr int L = g_::L, R = g_::R, NW = g_::NW, U = g_::U, FW = g_::FW, RPW = g_::RPW;
  const Group gr = group<L>(S);
  Items it{rowptr, idx64, nbrows, nbrows + nextra, chunk, gr.gstride, ex_row, ex_first, 0, 0};
  it.fetch(gr.gid);
  for (long long g = gr.gid; g < nbrows + nextra; g += gr.gstride) {
    long long bi, first, end, e;
    if (!it.get(g, bi, first, end, e)) continue;
    const unsigned aw = row_allowed<TT>(bi, nrows, allowed, has_allowed);
    const unsigned la = (aw >> (gr.h * R)) & g_::RMASK;
    // per-row counts of one item fit 32 bits: a tile row of <= chunk tiles
    // (the launcher keeps chunk * t < 2^32), or one chunk
    unsigned cnt[R];
#pragma unroll
    for (int r = 0; r < R; ++r) cnt[r] = 0;
    if (aw) {
      u64 fm[NW];
      field_masks<TT>(la, fm);
      for (long long b = first; b < end; b += (long long)gr.nslots * U) {
        long long c[U];
        u64 w[U][NW];
        load_batch<TT>(colind, idx64, tiles, b, end, gr, c, w);
#pragma unroll
        for (int u = 0; u < U; ++u) {
          if (c[u] < 0) continue;
          const u64 sp = (u64)bits_at<TT>(xp, (u64)c[u] * TT) * g_::SPREAD;
#pragma unroll
          for (int k = 0; k < NW; ++k) {
            const u64 m = w[u][k] & fm[k] & sp;
            if (m) {
#pragma unroll
              for (int f = 0; f < RPW && k * RPW + f < R; ++f)
                cnt[k * RPW + f] += __popcll((m >> (f * FW)) & g_::FMASK);
            }
          }
        }
      }
    }
    unsigned have = g_::RMASK;
    int n, base, sbits;
    group_reduce<R>(cnt, have, gr, L, n, base, sbits,
                    [](unsigned a, unsigned, unsigned b, unsigned) { return a + b; });
    if ((gr.slot >> sbits) == 0) {
      const int r0 = gr.h * R + base;
#pragma unroll
      for (int j = 0; j < R; ++j) {
        if (j < n) {
          if (e < 0) {
            const long long row = bi * TT + r0 + j;
            if (row < nrows) counts[row] = cnt[j];
          } else {
            scratch[e * TT + r0 + j] = cnt[j];
          }
        }
      }
    }
  }
}

template <int TT>
__global__ void bmv_bin_bin_full_fixup(const long long* __restrict__ long_rows,
                                       const long long* __restrict__ slot0, long long nlong,
                                       long long nrows, const unsigned* __restrict__ scratch,
                                       unsigned long long* __restrict__ counts) {
  // lane = K * k + r: row r of the tile, every K-th chunk from k
  constexpr int K = 32 / TT;
  const int lane = threadIdx.x & 31;
  const int r = lane % TT, k = lane / TT;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  for (long long j = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; j < nlong;
       j += warps) {
    unsigned long long sum = 0;
    for (long long s = slot0[j] + k; s < slot0[j + 1]; s += K) sum += scratch[s * TT + r];
    for (int d = TT; d < 32; d <<= 1) sum += __shfl_xor_sync(0xffffffffu, sum, d);
    const long long row = long_rows[j] * TT + r;
    if (k == 0 && row < nrows) counts[row] = sum;
  }
}

// ---------------------------------------------------------------------------
// bin_full_full: t[r] = (+) over the set bits c of row r & x_present of
// (1 (x) x[c]), any semiring by op codes
// ---------------------------------------------------------------------------
template <int TT, typename T, int ADD, int MULT>
__global__ void __launch_bounds__(THREADS)
bmv_bin_full_full(const void* __restrict__ rowptr, const void* __restrict__ colind, bool idx64,
                  const void* __restrict__ tiles, long long nbrows, long long nrows,
                  const T* __restrict__ x_values, const unsigned* __restrict__ xp,
                  const unsigned* __restrict__ allowed, bool has_allowed, int add, int mult,
                  T identity, bool has_term, T terminal, int S, long long chunk,
                  const long long* __restrict__ ex_row, const long long* __restrict__ ex_first,
                  long long nextra, T* __restrict__ scr_values, unsigned* __restrict__ scr_found,
                  T* __restrict__ t_values, bool* __restrict__ t_present) {
  typedef G<TT> g_;
  constexpr int L = g_::L, R = g_::R, NW = g_::NW, U = g_::U, FW = g_::FW, RPW = g_::RPW;
  constexpr int NQ = U * NW;  // words of a step
  const Group gr = group<L>(S);
  // R values and R found flags per thread (dynamic shared memory)
  extern __shared__ __align__(16) unsigned char smem[];
  T* sv = (T*)smem;
  unsigned char* sf = smem + (size_t)blockDim.x * R * sizeof(T);
  if constexpr (ADD >= 0) {  // compile-time op codes: the switches fold away
    add = ADD;
    (void)mult;
  }
  const bool stops = add == bg::ANY || has_term;  // rows may finish early
  const T one = (T)1;
  Items it{rowptr, idx64, nbrows, nbrows + nextra, chunk, gr.gstride, ex_row, ex_first, 0, 0};
  it.fetch(gr.gid);
  for (long long g = gr.gid; g < nbrows + nextra; g += gr.gstride) {
    long long bi, first, end, e;
    if (!it.get(g, bi, first, end, e)) continue;
    const unsigned aw = row_allowed<TT>(bi, nrows, allowed, has_allowed);
    const unsigned la = (aw >> (gr.h * R)) & g_::RMASK;
    const u64 row0 = (u64)bi * TT + gr.h * R;  // the lane's first row
    T acc[R];
#pragma unroll
    for (int r = 0; r < R; ++r) acc[r] = identity;
    unsigned found = 0, done = 0;  // R bits: rows with a product; rows final
    if (aw) {
      u64 fm[NW];
      field_masks<TT>(la, fm);
      unsigned seen = 0;
      for (long long b = first; b < end; b += (long long)gr.nslots * U) {
        long long c[U];
        u64 m[NQ];
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const long long p = b + gr.slot + (long long)u * gr.nslots;
          c[u] = -1;
          u64 w[NW];
#pragma unroll
          for (int k = 0; k < NW; ++k) w[k] = 0;
          if (p < end) {
            c[u] = index_at(colind, p, idx64);
            load_part<TT>(tiles, p, gr.h, w);
          }
#pragma unroll
          for (int k = 0; k < NW; ++k) m[u * NW + k] = w[k];
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const u64 sp = c[u] < 0 ? 0 : (u64)bits_at<TT>(xp, (u64)c[u] * TT) * g_::SPREAD;
#pragma unroll
          for (int k = 0; k < NW; ++k) m[u * NW + k] &= fm[k] & sp;
        }
        if constexpr (ADD >= 0) {
          // known ops: per tile word, row by row (the lowest set bit's
          // row, then all its bits), the row's value in a register while
          // its products fold (a few instructions a product)
#pragma unroll
          for (int u = 0; u < U; ++u) {
            const u64 c0 = (u64)c[u] * TT;
#pragma unroll
            for (int k = 0; k < NW; ++k) {
              u64 w = m[u * NW + k];
              while (w) {
                const int sh = ((__ffsll((long long)w) - 1) / FW) * FW;
                const int r = k * RPW + sh / FW;
                unsigned bits = (unsigned)((w >> sh) & g_::FMASK);
                w &= ~(g_::FMASK << sh);
                if ((done >> r) & 1u) continue;
                bool f = (found >> r) & 1u;
                T a = pick(acc, r);
                do {
                  const u64 col = c0 + (__ffs(bits) - 1);
                  bits &= bits - 1;
                  const T prod = bg::multop<T>(MULT, one, x_values[col], row0 + r, col, 0ull);
                  a = f ? bg::binop<T>(ADD, a, prod) : prod;
                  f = true;
                  if (ADD == bg::ANY || (has_term && a == terminal)) {
                    done |= 1u << r;
                    break;
                  }
                } while (bits);
                put(acc, r, a);
                found |= 1u << r;
              }
            }
          }
        } else {
        // the products, tile by tile, each tile's row-major (a row's
        // columns ascending): one copy of the op code below
        while (true) {
          // (masks on bits, not selects of array elements: those become
          // run-time indices, which put the arrays in local memory)
          int q = -1;
          u64 wq = 0;
#pragma unroll
          for (int j = 0; j < NQ; ++j) {
            const u64 take = (q < 0 && m[j]) ? ~0ull : 0ull;
            wq |= m[j] & take;
            q = take ? j : q;
          }
          if (q < 0) break;
          const int bpos = __ffsll((long long)wq) - 1;
#pragma unroll
          for (int j = 0; j < NQ; ++j) m[j] &= m[j] - (u64)(j == q);
          u64 cq = 0;
#pragma unroll
          for (int u = 0; u < U; ++u) cq |= (u64)c[u] & (0ull - (u64)(q / NW == u));
          const int k = q % NW;
          const int r = k * RPW + bpos / FW;
          const u64 col = (u64)cq * TT + (bpos % FW);
          const T prod = bg::multop<T>(mult, one, x_values[col], row0 + r, col, 0ull);
          T a = pick(acc, r);
          a = ((found >> r) & 1u) ? bg::binop<T>(add, a, prod) : prod;
          put(acc, r, a);
          found |= 1u << r;
          if (add == bg::ANY || (has_term && a == terminal)) {
            // row r is final: drop its field from this step's words
            done |= 1u << r;
            const u64 keep = ~(g_::FMASK << ((r % RPW) * FW));
#pragma unroll
            for (int j = 0; j < NQ; ++j) m[j] &= keep | (j % NW == k ? 0ull : ~0ull);
#pragma unroll
            for (int j = 0; j < NW; ++j) fm[j] &= keep | (j == k ? 0ull : ~0ull);
          }
        }
        }
        if (stops) {
          const unsigned all = __reduce_or_sync(gr.gmask, done << (gr.h * R));
          if ((all & aw) == aw) break;
          if (all != seen) {
            seen = all;
            field_masks<TT>(la & ~(all >> (gr.h * R)) & ~done, fm);
          }
        }
      }
    }
    // the group's partials, entry (slot, row) at sv[gb + slot * t + row]
    // (= the lane's own R entries at threadIdx.x * R), folded by a tree over
    // the slots: one copy of the monoid's code (shuffles would need one per
    // row and step, and NVRTC time grows with each copy)
    const int gb = (threadIdx.x & ~(S - 1)) * R;
#pragma unroll
    for (int j = 0; j < R; ++j) {
      sv[threadIdx.x * R + j] = acc[j];
      sf[threadIdx.x * R + j] = (found >> j) & 1u;
    }
    __syncwarp(gr.gmask);
    for (int d = gr.nslots >> 1; d >= 1; d >>= 1) {
      for (int i = gr.glane; i < d * TT; i += S) {
        const int a = gb + i, b2 = a + d * TT;
        if (sf[b2]) {
          sv[a] = sf[a] ? bg::binop<T>(add, sv[a], sv[b2]) : sv[b2];
          sf[a] = 1;
        }
      }
      __syncwarp(gr.gmask);
    }
    if (e < 0) {
      const long long r0 = bi * TT;
      if (r0 + TT <= nrows) {
        for (int r = gr.glane; r < TT; r += S) t_values[r0 + r] = sv[gb + r];
        // the flags are t bytes in a row at sf + gb (gb: a multiple of 4, of 8 when R = 8)
        if constexpr (TT == 4) {
          if (gr.glane == 0) *(unsigned*)(t_present + r0) = *(const unsigned*)(sf + gb);
        } else {
          for (int q = gr.glane; q < TT / 8; q += S)
            *(u64*)(t_present + r0 + 8 * q) = *(const u64*)(sf + gb + 8 * q);
        }
      } else {
        for (int r = gr.glane; r < TT; r += S) {
          if (r0 + r < nrows) {
            t_values[r0 + r] = sv[gb + r];
            t_present[r0 + r] = sf[gb + r];
          }
        }
      }
    } else {
      unsigned fbits = 0;
      for (int r = gr.glane; r < TT; r += S) {
        scr_values[e * TT + r] = sv[gb + r];
        fbits |= (unsigned)sf[gb + r] << r;
      }
      fbits = __reduce_or_sync(gr.gmask, fbits);
      if (gr.glane == 0) scr_found[e] = fbits;
    }
    __syncwarp(gr.gmask);  // sv is rewritten by the group's next item
  }
}

// long tile rows, a block each: thread (k, r) folds row r over chunks k,
// k + K, ... (K = blockDim / t), then the K partials fold by a tree in
// shared memory (blockDim * (sizeof(T) + 1) bytes)
template <int TT, typename T>
__global__ void bmv_bin_full_full_fixup(const long long* __restrict__ long_rows,
                                        const long long* __restrict__ slot0, long long nlong,
                                        long long nrows, int add, T identity,
                                        const T* __restrict__ scr_values,
                                        const unsigned* __restrict__ scr_found,
                                        T* __restrict__ t_values, bool* __restrict__ t_present) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* sv = (T*)smem;
  unsigned char* sf = smem + (size_t)blockDim.x * sizeof(T);
  const int tid = threadIdx.x, r = tid % TT, k = tid / TT, K = blockDim.x / TT;
  for (long long j = blockIdx.x; j < nlong; j += gridDim.x) {
    T acc = identity;
    bool found = false;
    for (long long s = slot0[j] + k; s < slot0[j + 1]; s += K) {
      if ((scr_found[s] >> r) & 1u) {
        const T v = scr_values[s * TT + r];
        acc = found ? bg::binop<T>(add, acc, v) : v;
        found = true;
      }
    }
    sv[tid] = acc;
    sf[tid] = found;
    __syncthreads();
    for (int d = K >> 1; d >= 1; d >>= 1) {
      if (k < d && sf[tid + d * TT]) {
        sv[tid] = sf[tid] ? bg::binop<T>(add, sv[tid], sv[tid + d * TT]) : sv[tid + d * TT];
        sf[tid] = 1;
      }
      __syncthreads();
    }
    const long long row = long_rows[j] * TT + r;
    if (k == 0 && row < nrows) {
      t_values[row] = sv[tid];
      t_present[row] = sf[tid];
    }
    __syncthreads();  // sv is rewritten for the next long row
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void bmv_bin_bin_bin<8>(const void*, const void*, bool, const void*,
    long long, long long, const unsigned*, const unsigned*, bool, const unsigned*, bool, int,
    long long, const long long*, const long long*, long long, unsigned*, bool*, bool*);
template __global__ void bmv_bin_bin_bin_fixup<8>(const long long*, const long long*, long long,
    long long, const unsigned*, bool*, bool*);
template __global__ void bmv_bin_bin_full<16>(const void*, const void*, bool, const void*,
    long long, long long, const unsigned*, const unsigned*, bool, int, long long,
    const long long*, const long long*, long long, unsigned*, unsigned long long*);
template __global__ void bmv_bin_bin_full_fixup<16>(const long long*, const long long*,
    long long, long long, const unsigned*, unsigned long long*);
template __global__ void bmv_bin_full_full<8, double, -1, -1>(const void*, const void*, bool,
    const void*, long long, long long, const double*, const unsigned*, const unsigned*, bool, int,
    int, double, bool, double, int, long long, const long long*, const long long*, long long,
    double*, unsigned*, double*, bool*);
template __global__ void bmv_bin_full_full<32, bool, -1, -1>(const void*, const void*, bool,
    const void*, long long, long long, const bool*, const unsigned*, const unsigned*, bool, int,
    int, bool, bool, bool, int, long long, const long long*, const long long*, long long, bool*,
    unsigned*, bool*, bool*);
template __global__ void bmv_bin_full_full<4, float, 4, 7>(const void*, const void*, bool,
    const void*, long long, long long, const float*, const unsigned*, const unsigned*, bool, int,
    int, float, bool, float, int, long long, const long long*, const long long*, long long,
    float*, unsigned*, float*, bool*);
template __global__ void bmv_bin_full_full_fixup<4, float>(const long long*, const long long*,
    long long, long long, int, float, const float*, const unsigned*, float*, bool*);
