// Single-source shortest paths on the GPU: near-far delta-stepping
// (Davidson et al., "Work-efficient parallel GPU methods for single-source
// shortest paths", 2014), the CUDA twin of kernels/cpu/sssp.py.
//
// dist[n] holds the tentative distances in D (int, long long, unsigned long
// long, float or double); the weights have the same type. Unreached is D's
// maximum (+inf for floats); an integer sum past saturated (D's maximum - 1)
// stops there instead of wrapping, as the CPU kernel's. Weights are >= 0
// (the caller checks), so every distance is >= +0 and the bit patterns of
// float distances order as the integers of their width: atomicMin on those
// relaxes (a sum of -0.0 is stored as +0.0).
//
// The launcher's loop: a near list holds the vertices improved below the
// threshold T, to relax in the next round (sssp_take, then sssp_relax); an
// improvement at or past T goes to the far pile. A round relaxes every near
// vertex's out-edges with its distance when the round began; when the near
// list comes back empty, T advances by delta and sssp_split moves the far
// pile's vertices below it to the near list (those below the previous T were
// relaxed when they got there and are dropped), keeping the others and their
// least distance (the launcher jumps T past it when the next bucket is
// empty). Every improvement of a vertex with out-edges is relaxed again, so
// the fixpoint is exact for any increasing T; delta only trades rounds
// against re-relaxations. A vertex without out-edges is never queued.
//
// flags[v] (F_NEAR, F_FAR) keep a vertex at most once in a near list and
// once in the far pile: each holds at most n entries. sssp_take clears the
// near bit of each vertex of the list, fences, then reads its distance; an
// improver writes the distance, fences, then sets the bit: either it sees
// the bit clear and queues the vertex again, or sssp_take's read comes after
// its write. sssp_relax reads the distances sssp_take kept (a launch later).
//
// Work balance (edge-balanced, no scan pass): a near list is written with
// each vertex's first edge in the list's edge space (offs, ascending with
// the position): one 64-bit atomicAdd of (its edges << shift | 1) on the
// list's counter gives both the position (low field) and the offset (high
// field), warp-aggregated. sssp_relax then gives each warp LB_STEPS x 32
// consecutive edges of that space, whatever the rows' lengths (a hub of
// 100k edges spreads over ~400 warps, a row of 1 edge costs one lane-step):
// the warp finds the row of its first edge by a 32-way search over offs,
// each lane the row of its edge by a binary search of at most 32 rows
// forward (every queued row has an edge). The host knows a list's edges from
// the counter it reads, or launches the grid of settings when it queues
// rounds without reading (a round of an empty list returns at once).
//
// Light and heavy edges (Meyer and Sanders): each row's edges come sorted
// by weight (the caller's cached copy; any order stays exact, only slower),
// and lend[v] (sssp_light_ends) ends v's light prefix, the edges of weight
// below the bucket width. A near list relaxes only light edges (rows
// indptr[v] .. lend[v]); a vertex improved below T also joins the bucket's
// member list (F_MEMBER, when it has heavy edges) once. When the near list
// is empty, one member round relaxes the heavy suffixes (lend[v] ..
// indptr[v + 1]) of the members with their distances then, clearing
// F_MEMBER as sssp_take clears F_NEAR (the same fence protocol: a later
// improvement queues the vertex again). Improvements of a member round go
// where those of any round go, so the bucket ends when a near list and a
// member list are both empty; a heavy edge (w >= delta) from a vertex of
// the bucket lands at or past T in the usual case, so a vertex's heavy
// edges are read about once, its light ones once per improvement. Without
// light/heavy the launcher passes lend = indptr + 1: no heavy edges, no
// members. The member round is queued after each batch of rounds and gated
// on the device: its sssp_take runs only when the near list it is given is
// empty and records in C_GO whether it ran (its sssp_relax and the host
// read it).
#include "sssp_constants.cuh"
#include "grid.cuh"


namespace sssp_detail {

constexpr unsigned FULL = 0xffffffffu;

// the integer type whose order is D's over the distances (all >= +0)
template <typename D> struct Ord;
template <> struct Ord<int> {
  using U = int;
  static __device__ __forceinline__ U bits(int d) { return d; }
  static __device__ __forceinline__ int value(U u) { return u; }
};
template <> struct Ord<long long> {
  using U = long long;
  static __device__ __forceinline__ U bits(long long d) { return d; }
  static __device__ __forceinline__ long long value(U u) { return u; }
};
template <> struct Ord<unsigned long long> {
  using U = unsigned long long;
  static __device__ __forceinline__ U bits(unsigned long long d) { return d; }
  static __device__ __forceinline__ unsigned long long value(U u) { return u; }
};
template <> struct Ord<float> {
  using U = int;
  static __device__ __forceinline__ U bits(float d) { return __float_as_int(d); }
  static __device__ __forceinline__ float value(U u) { return __int_as_float(u); }
};
template <> struct Ord<double> {
  using U = long long;
  static __device__ __forceinline__ U bits(double d) { return __double_as_longlong(d); }
  static __device__ __forceinline__ double value(U u) { return __longlong_as_double(u); }
};

// the previous value of *p, which becomes min(*p, d)
template <typename D>
__device__ __forceinline__ D atomic_min_dist(D* p, D d) {
  using U = typename Ord<D>::U;
  return Ord<D>::value(atomicMin(reinterpret_cast<U*>(p), Ord<D>::bits(d)));
}

// a distance as another thread may have just written it (not from L1)
template <typename D>
__device__ __forceinline__ D load_dist(const D* p) {
  return *reinterpret_cast<const volatile D*>(p);
}

// du + w: floats as IEEE sums (-0.0 stored as +0.0; +inf improves nothing),
// integers stopping at saturated (du <= saturated, w >= 0: no wrap)
__device__ __forceinline__ float extend(float du, float w, float) {
  const float c = du + w;
  return c == 0.0f ? 0.0f : c;
}
__device__ __forceinline__ double extend(double du, double w, double) {
  const double c = du + w;
  return c == 0.0 ? 0.0 : c;
}
__device__ __forceinline__ int extend(int du, int w, int saturated) {
  return w > saturated - du ? saturated : du + w;
}
__device__ __forceinline__ long long extend(long long du, long long w, long long saturated) {
  return w > saturated - du ? saturated : du + w;
}
__device__ __forceinline__ unsigned long long extend(unsigned long long du, unsigned long long w,
                                                     unsigned long long saturated) {
  return w > saturated - du ? saturated : du + w;
}


// the low field of a near list's packed counter: its vertices
__device__ __forceinline__ unsigned long long low_mask(int shift) {
  return (1ull << shift) - 1ull;
}

// an inclusive sum over the warp's lanes
__device__ __forceinline__ unsigned long long warp_scan(unsigned long long x, int lane) {
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned long long y = __shfl_up_sync(FULL, x, o);
    if (lane >= o) x += y;
  }
  return x;
}

// the lanes that want append v (deg edges: its light or heavy part) to a list: its
// position and its first edge from one atomicAdd per warp (all lanes call)
template <typename I>
__device__ __forceinline__ void append_near(bool want, I v, unsigned long long deg, int lane,
                                            unsigned long long* slot, int shift, I* list,
                                            I* offs) {
  if (!__ballot_sync(FULL, want)) return;
  const unsigned long long x = want ? (deg << shift) | 1ull : 0ull;
  const unsigned long long incl = warp_scan(x, lane);
  unsigned long long at = 0;
  if (lane == 31) at = atomicAdd(slot, incl);
  at = __shfl_sync(FULL, at, 31) + incl - x;
  if (want) {
    list[at & low_mask(shift)] = v;
    offs[at & low_mask(shift)] = (I)(at >> shift);
  }
}

// the lanes that want append v to a far pile (all lanes call)
template <typename I>
__device__ __forceinline__ void append_far(bool want, I v, int lane, unsigned long long* slot,
                                           I* list) {
  const unsigned int m = __ballot_sync(FULL, want);
  if (!m) return;
  const int leader = __ffs(m) - 1;
  unsigned long long at = 0;
  if (lane == leader) at = atomicAdd(slot, (unsigned long long)__popc(m));
  at = __shfl_sync(FULL, at, leader);
  if (want) list[at + __popc(m & ((1u << lane) - 1u))] = v;
}

}  // namespace sssp_detail

using namespace sssp_detail;

// The end of each row's light prefix: lend[v] = the first entry p of row v
// (indptr[v] <= p < indptr[v + 1], weights ascending along the row) with
// weights[p] >= light (NaN-free), indptr[v + 1] when there is none.
// O(n log(max degree)).
template <typename D, typename I>
__global__ void sssp_light_ends(const I* __restrict__ indptr, const D* __restrict__ weights,
                                I* lend, long long n, D light) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    long long a = (long long)indptr[i], b = (long long)indptr[i + 1];
    while (a < b) {
      const long long mid = a + ((b - a) >> 1);
      if (weights[mid] < light) a = mid + 1; else b = mid;
    }
    lend[i] = (I)a;
  }
}

// Start a run: dist[] = infinity but dist[source] = 0, flags[] = 0, the
// counters reset (C_MIN all ones), and the source alone in the near list
// near_slot when it has light edges and in the member list mem_slot when
// it has heavy ones (lend: sssp_light_ends', already run).
template <typename D, typename I>
__global__ void sssp_init(const I* __restrict__ indptr, const I* __restrict__ lend, D* dist,
                          unsigned int* flags, long long n, long long source, I* near, I* offs,
                          I* mem, I* moffs, unsigned long long* ctr, int near_slot,
                          int mem_slot, int shift, D infinity) {
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (i != source) {
      dist[i] = infinity;
      flags[i] = 0u;
      continue;
    }
    const unsigned long long light = (unsigned long long)((long long)lend[i] -
                                                          (long long)indptr[i]);
    const unsigned long long heavy = (unsigned long long)((long long)indptr[i + 1] -
                                                          (long long)lend[i]);
    dist[i] = (D)0;
    flags[i] = (light ? (unsigned)F_NEAR : 0u) | (heavy ? (unsigned)F_MEMBER : 0u);
    for (int c = 0; c < COUNTERS; ++c) ctr[c] = c == C_MIN ? ~0ull : 0ull;
    if (light) {
      near[0] = (I)i;
      offs[0] = (I)0;
      ctr[near_slot] = (light << shift) | 1ull;
    }
    if (heavy) {
      mem[0] = (I)i;
      moffs[0] = (I)0;
      ctr[mem_slot] = (heavy << shift) | 1ull;
    }
  }
}

// Take the list near_in (counter in_slot; a near list, flag F_NEAR, starts
// = indptr; or a member list, flag F_MEMBER, starts = lend) for a round:
// clear each vertex's flag, then keep its distance (du_out) and the start
// of its part of the row less its first edge in the list (base_out: edge e
// of the list is CSR entry base_out[r] + e); reset the counter out_slot,
// which the round fills. gate >= 0 (a member round): only when the near
// list of counter gate is empty, and C_GO says whether it ran.
template <typename D, typename I>
__global__ void sssp_take(const I* __restrict__ starts, const D* dist, unsigned int* flags,
                          const I* __restrict__ near_in, const I* __restrict__ offs_in,
                          I* base_out, D* du_out, unsigned long long* ctr, int in_slot,
                          int out_slot, int gate, unsigned int flag, int shift) {
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (gate >= 0) {
    const bool go = (ctr[gate] & low_mask(shift)) == 0ull;  // no launch writes it meanwhile
    if (t == 0) ctr[C_GO] = go ? 1ull : 0ull;
    if (!go) return;
  }
  const long long count = (long long)(ctr[in_slot] & low_mask(shift));
  if (t == 0) ctr[out_slot] = 0ull;
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = t; i < count; i += stride) {
    const I u = near_in[i];
    atomicAnd(flags + u, ~flag);
    __threadfence();  // the flag before the distance (see the header)
    du_out[i] = load_dist(dist + u);
    base_out[i] = (I)((long long)starts[u] - (long long)offs_in[i]);
  }
}

// One round: relax the edges of the list taken by sssp_take (counter
// in_slot: its vertices and edges; offs_in, base_in, du_in) into dist;
// improved heads go, below threshold, to the near list near_out (with light
// edges; counter out_slot, their first edges in offs_out) and to the member
// list mem_out (with heavy edges; counter mem_slot, first edges in
// moffs_out), at or past it to the far pile far (with any edge; counter
// far_slot). Counts the round (C_ROUNDS) and its edges (C_EDGES) when the
// list has a vertex. go >= 0: nothing unless counter go (C_GO) is set.
template <typename D, typename I>
__global__ void sssp_relax(const I* __restrict__ indptr, const I* __restrict__ lend,
                           const I* __restrict__ indices, const D* __restrict__ weights, D* dist,
                           unsigned int* flags, const I* __restrict__ offs_in,
                           const I* __restrict__ base_in, const D* __restrict__ du_in,
                           I* near_out, I* offs_out, I* mem_out, I* moffs_out, I* far,
                           unsigned long long* ctr, int in_slot, int out_slot, int mem_slot,
                           int far_slot, int go, D threshold, D saturated, int shift) {
  constexpr long long CHUNK = 32LL * LB_STEPS;
  if (go >= 0 && ctr[go] == 0ull) return;  // the whole grid alike
  const unsigned long long packed = ctr[in_slot];
  const long long count = (long long)(packed & low_mask(shift));
  const long long edges = (long long)(packed >> shift);
  const int lane = threadIdx.x & 31;
  if (count > 0 && blockIdx.x == 0 && threadIdx.x == 0) {
    ctr[C_ROUNDS] += 1ull;
    ctr[C_EDGES] += (unsigned long long)edges;
  }
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  // the whole warp runs every step (the ballots and shuffles need it)
  for (long long start = warp * CHUNK; start < edges; start += warps * CHUNK) {
    // the row of edge `start`: the last r with offs_in[r] <= start (offs_in[0] = 0)
    long long lo = 0, hi = count - 1;
    while (hi > lo) {
      const long long step = (hi - lo + 32) >> 5;  // 32 probes cover [lo, hi]
      const long long probe = lo + lane * step;
      const bool ok = probe <= hi && (long long)offs_in[probe] <= start;
      const unsigned int m = __ballot_sync(FULL, ok);  // lane 0's probe (lo) holds
      lo += (31 - __clz(m)) * step;
      hi = lo + step - 1 < hi ? lo + step - 1 : hi;
    }
    long long r = lo;
    for (int j = 0; j < LB_STEPS; ++j) {
      const long long e = start + 32LL * j + lane;
      if (start + 32LL * j >= edges) break;  // the same for every lane
      bool to_near = false, to_member = false, to_far = false;
      I v = 0;
      unsigned long long light = 0, heavy = 0;
      if (e < edges) {
        // every row holds an edge: e's row is at most 32 rows past the last one
        const long long h = r + 32 < count - 1 ? r + 32 : count - 1;
        if (h > r && (long long)offs_in[r + 1] <= e) {
          long long a = r + 1, b = h;
          while (a < b) {
            const long long mid = (a + b + 1) >> 1;
            if ((long long)offs_in[mid] <= e) a = mid; else b = mid - 1;
          }
          r = a;
        }
        const long long p = (long long)base_in[r] + e;
        v = indices[p];
        const D cand = extend(du_in[r], weights[p], saturated);
        if (cand < load_dist(dist + v)) {
          const D old = atomic_min_dist(dist + v, cand);
          if (cand < old) {
            const long long mid = (long long)lend[v];
            light = (unsigned long long)(mid - (long long)indptr[v]);
            heavy = (unsigned long long)((long long)indptr[v + 1] - mid);
            if (light | heavy) {
              __threadfence();  // the distance before the flag (see the header)
              if (cand < threshold) {
                const unsigned int want = (light ? (unsigned)F_NEAR : 0u) |
                                          (heavy ? (unsigned)F_MEMBER : 0u);
                const unsigned int had = atomicOr(flags + v, want);
                to_near = light && !(had & F_NEAR);
                to_member = heavy && !(had & F_MEMBER);
              } else {
                to_far = !(atomicOr(flags + v, (unsigned)F_FAR) & F_FAR);
              }
            }
          }
        }
      }
      append_near(to_near, v, light, lane, ctr + out_slot, shift, near_out, offs_out);
      append_near(to_member, v, heavy, lane, ctr + mem_slot, shift, mem_out, moffs_out);
      append_far(to_far, v, lane, ctr + far_slot, far);
    }
  }
}

// Advance the threshold to `threshold` (from `low`, the previous one): each
// vertex of the far pile far_in[0..count) at distance >= threshold stays
// (far_out, counter out_slot; the least such distance's bits into C_MIN);
// one in [low, threshold) goes to the near list near_out (with light edges;
// counter near_slot, first edges in offs_out) and to the member list
// mem_out (with heavy edges; counter mem_slot, first edges in moffs_out);
// one below low was relaxed when it got there and is dropped. The launcher
// resets the counters out_slot and near_slot, and C_MIN to all ones.
template <typename D, typename I>
__global__ void sssp_split(const I* __restrict__ indptr, const I* __restrict__ lend,
                           const D* __restrict__ dist, unsigned int* flags,
                           const I* __restrict__ far_in, long long count, I* far_out,
                           int out_slot, I* near_out, I* offs_out, int near_slot, I* mem_out,
                           I* moffs_out, int mem_slot, unsigned long long* ctr, int shift, D low,
                           D threshold) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long first = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) << 5;
  unsigned long long least = ~0ull;
  for (long long base = first; base < count; base += warps << 5) {
    const long long i = base + lane;
    bool keep = false, near = false, member = false;
    I v = 0;
    unsigned long long light = 0, heavy = 0;
    if (i < count) {
      v = far_in[i];
      const D d = dist[v];
      if (!(d < threshold)) {
        keep = true;
        const unsigned long long b = (unsigned long long)Ord<D>::bits(d);
        least = b < least ? b : least;
      } else {
        atomicAnd(flags + v, ~(unsigned)F_FAR);
        if (!(d < low)) {
          const long long mid = (long long)lend[v];
          light = (unsigned long long)(mid - (long long)indptr[v]);
          heavy = (unsigned long long)((long long)indptr[v + 1] - mid);
          const unsigned int want = (light ? (unsigned)F_NEAR : 0u) |
                                    (heavy ? (unsigned)F_MEMBER : 0u);
          const unsigned int had = atomicOr(flags + v, want);
          near = light && !(had & F_NEAR);
          member = heavy && !(had & F_MEMBER);
        }
      }
    }
    append_far(keep, v, lane, ctr + out_slot, far_out);
    append_near(near, v, light, lane, ctr + near_slot, shift, near_out, offs_out);
    append_near(member, v, heavy, lane, ctr + mem_slot, shift, mem_out, moffs_out);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_xor_sync(FULL, least, o);
    least = other < least ? other : least;
  }
  if (lane == 0 && least != ~0ull) atomicMin(ctr + C_MIN, least);
}

// ---------------------------------------------------------------------------
// The persistent kernel: the launcher's whole loop (rounds, member rounds,
// splits, the next threshold, the end) in one cooperative launch, phases
// separated by grid barriers (grid.cuh), no host read. Every block takes the
// same decisions: each reads the counters it decides on right after a
// barrier, and no phase writes a slot that the decision before it reads
// (a round resets the list it fills, the other one; a split's pile and
// least-distance slot are reset by a phase of their own before it, and the
// least distance alternates between C_MIN and C_MIN1 by the pile the split
// writes). Arrays written inside the launch are read through L2 (__ldcg,
// or volatile for dist), never through the read-only path.

namespace sssp_detail {

// the bucket end t (bucket + 1) * delta as a D threshold (d < threshold is
// near): the integers' ceiling capped at D's maximum, floats rounded up
__device__ __forceinline__ float to_threshold(double t, float*) { return __double2float_ru(t); }
__device__ __forceinline__ double to_threshold(double t, double*) { return t; }
__device__ __forceinline__ int to_threshold(double t, int*) {
  return t < 2147483647.0 ? (int)ceil(t) : 2147483647;
}
__device__ __forceinline__ long long to_threshold(double t, long long*) {
  return t < 9223372036854775807.0 ? (long long)ceil(t) : 9223372036854775807LL;
}
__device__ __forceinline__ unsigned long long to_threshold(double t, unsigned long long*) {
  return t < 18446744073709551615.0 ? (unsigned long long)ceil(t) : ~0ull;
}

// the least threshold that makes distance d near (d + 1, or the next float)
__device__ __forceinline__ float above(float d) {
  return nextafterf(d, __int_as_float(0x7f800000));
}
__device__ __forceinline__ double above(double d) {
  return nextafter(d, __longlong_as_double(0x7ff0000000000000LL));
}
__device__ __forceinline__ int above(int d) { return d == 2147483647 ? d : d + 1; }
__device__ __forceinline__ long long above(long long d) {
  return d == 9223372036854775807LL ? d : d + 1;
}
__device__ __forceinline__ unsigned long long above(unsigned long long d) {
  return d == ~0ull ? d : d + 1;
}

// a counter as the last barrier left it
__device__ __forceinline__ unsigned long long ld_ctr(const unsigned long long* p) {
  return __ldcg(p);
}

// take (sssp_take's body, no gate): clear each listed vertex's flag, then
// keep its distance and its part's base
template <typename D, typename I>
__device__ __forceinline__ void take_phase(const I* __restrict__ starts, const D* dist,
                                           unsigned int* flags, const I* list, const I* offs,
                                           I* base, D* du, long long count, unsigned int flag,
                                           long long tid, long long nthreads) {
  for (long long i = tid; i < count; i += nthreads) {
    const I u = __ldcg(list + i);
    atomicAnd(flags + u, ~flag);
    __threadfence();  // the flag before the distance (see the header)
    du[i] = load_dist(dist + u);
    base[i] = (I)((long long)starts[u] - (long long)__ldcg(offs + i));
  }
}

// relax (sssp_relax's body): the taken list's count rows and edges edges
template <typename D, typename I>
__device__ __forceinline__ void relax_phase(
    const I* __restrict__ indptr, const I* __restrict__ lend, const I* __restrict__ indices,
    const D* __restrict__ weights, D* dist, unsigned int* flags, const I* offs_in,
    const I* base_in, const D* du_in, long long count, long long edges, I* near_out,
    I* offs_out, unsigned long long* near_slot, I* mem_out, I* moffs_out,
    unsigned long long* mem_slot, I* far, unsigned long long* far_slot, D threshold,
    D saturated, int shift) {
  constexpr long long CHUNK = 32LL * LB_STEPS;
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  for (long long start = warp * CHUNK; start < edges; start += warps * CHUNK) {
    long long lo = 0, hi = count - 1;
    while (hi > lo) {
      const long long step = (hi - lo + 32) >> 5;
      const long long probe = lo + lane * step;
      const bool ok = probe <= hi && (long long)__ldcg(offs_in + probe) <= start;
      const unsigned int m = __ballot_sync(FULL, ok);
      lo += (31 - __clz(m)) * step;
      hi = lo + step - 1 < hi ? lo + step - 1 : hi;
    }
    long long r = lo;
    for (int j = 0; j < LB_STEPS; ++j) {
      const long long e = start + 32LL * j + lane;
      if (start + 32LL * j >= edges) break;
      bool to_near = false, to_member = false, to_far = false;
      I v = 0;
      unsigned long long light = 0, heavy = 0;
      if (e < edges) {
        const long long h = r + 32 < count - 1 ? r + 32 : count - 1;
        if (h > r && (long long)__ldcg(offs_in + r + 1) <= e) {
          long long a = r + 1, b = h;
          while (a < b) {
            const long long mid = (a + b + 1) >> 1;
            if ((long long)__ldcg(offs_in + mid) <= e) a = mid; else b = mid - 1;
          }
          r = a;
        }
        const long long p = (long long)__ldcg(base_in + r) + e;
        v = indices[p];
        const D cand = extend(__ldcg(du_in + r), weights[p], saturated);
        if (cand < load_dist(dist + v)) {
          const D old = atomic_min_dist(dist + v, cand);
          if (cand < old) {
            const long long mid = (long long)lend[v];
            light = (unsigned long long)(mid - (long long)indptr[v]);
            heavy = (unsigned long long)((long long)indptr[v + 1] - mid);
            if (light | heavy) {
              __threadfence();  // the distance before the flag (see the header)
              if (cand < threshold) {
                const unsigned int want = (light ? (unsigned)F_NEAR : 0u) |
                                          (heavy ? (unsigned)F_MEMBER : 0u);
                const unsigned int had = atomicOr(flags + v, want);
                to_near = light && !(had & F_NEAR);
                to_member = heavy && !(had & F_MEMBER);
              } else {
                to_far = !(atomicOr(flags + v, (unsigned)F_FAR) & F_FAR);
              }
            }
          }
        }
      }
      append_near(to_near, v, light, lane, near_slot, shift, near_out, offs_out);
      append_near(to_member, v, heavy, lane, mem_slot, shift, mem_out, moffs_out);
      append_far(to_far, v, lane, far_slot, far);
    }
  }
}

// split (sssp_split's body): the far pile far_in[0..count) at [low, threshold)
template <typename D, typename I>
__device__ __forceinline__ void split_phase(
    const I* __restrict__ indptr, const I* __restrict__ lend, const D* dist,
    unsigned int* flags, const I* far_in, long long count, I* far_out,
    unsigned long long* far_slot, I* near_out, I* offs_out, unsigned long long* near_slot,
    I* mem_out, I* moffs_out, unsigned long long* mem_slot, unsigned long long* least_slot,
    int shift, D low, D threshold) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * (blockDim.x >> 5);
  const long long first = (((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5) << 5;
  unsigned long long least = ~0ull;
  for (long long b0 = first; b0 < count; b0 += warps << 5) {
    const long long i = b0 + lane;
    bool keep = false, near = false, member = false;
    I v = 0;
    unsigned long long light = 0, heavy = 0;
    if (i < count) {
      v = __ldcg(far_in + i);
      const D d = load_dist(dist + v);
      if (!(d < threshold)) {
        keep = true;
        const unsigned long long b = (unsigned long long)Ord<D>::bits(d);
        least = b < least ? b : least;
      } else {
        atomicAnd(flags + v, ~(unsigned)F_FAR);
        if (!(d < low)) {
          const long long mid = (long long)lend[v];
          light = (unsigned long long)(mid - (long long)indptr[v]);
          heavy = (unsigned long long)((long long)indptr[v + 1] - mid);
          const unsigned int want = (light ? (unsigned)F_NEAR : 0u) |
                                    (heavy ? (unsigned)F_MEMBER : 0u);
          const unsigned int had = atomicOr(flags + v, want);
          near = light && !(had & F_NEAR);
          member = heavy && !(had & F_MEMBER);
        }
      }
    }
    append_far(keep, v, lane, far_slot, far_out);
    append_near(near, v, light, lane, near_slot, shift, near_out, offs_out);
    append_near(member, v, heavy, lane, mem_slot, shift, mem_out, moffs_out);
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_xor_sync(FULL, least, o);
    least = other < least ? other : least;
  }
  if (lane == 0 && least != ~0ull) atomicMin(least_slot, least);
}

}  // namespace sssp_detail

// The whole run after sssp_init (and sssp_light_ends), in one cooperative
// launch of PERSIST_THREADS threads a block, every block resident (the
// launch bounds let PERSIST_MIN_BLOCKS share a multiprocessor). The two
// near lists near0/near1 (first edges offs0/offs1), the two member lists
// mem0/mem1 (moffs0/moffs1), the two far piles far0/far1: n entries each;
// base[n], du[n]: the taken list's; ctr[COUNTERS] as sssp_init left it;
// bar[2]: the grid barrier's words (zero before the first launch; each
// barrier leaves them reusable). delta: the bucket width (> 0), as a double.
// Each loop: a round of near list cur when it holds a vertex; else a member
// round of member list m when it does; else, when the far pile is empty, the
// end; else a split at the next threshold, delta higher (past a split that
// found nothing, the bucket of the least kept far distance; a split after
// that which still finds nothing sets C_ERR and ends the run: the exactness
// argument of the header says it cannot happen). C_ROUNDS, C_EDGES,
// C_SPLITS count as in the launcher's loop.
// O((rounds + splits) x barrier + the edges relaxed + the far entries split).
template <typename D, typename I>
__global__ void __launch_bounds__(PERSIST_THREADS, PERSIST_MIN_BLOCKS) sssp_persistent(
    const I* __restrict__ indptr, const I* __restrict__ lend, const I* __restrict__ indices,
    const D* __restrict__ weights, D* dist, unsigned int* flags, I* near0, I* near1, I* offs0,
    I* offs1, I* mem0, I* mem1, I* moffs0, I* moffs1, I* far0, I* far1, I* base, D* du,
    unsigned long long* ctr, unsigned int* bar, double delta, D saturated, int shift) {
  static_assert(C_NEAR1 == C_NEAR0 + 1 && C_FAR1 == C_FAR0 + 1 && C_MEM1 == C_MEM0 + 1,
                "paired counter slots");
  const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long nthreads = (long long)gridDim.x * blockDim.x;
  const unsigned long long mask = low_mask(shift);
  unsigned gen = 0;  // barriers passed (thread 0 of each block)
  if (threadIdx.x == 0) gen = bg::ld_acquire(bar + 1);
  int cur = 0, m = 0, pile = 0;  // the near list, member list and far pile in use
  double bucket = 0.0;  // the near list holds distances below (bucket + 1) * delta
  D threshold = to_threshold(delta, (D*)nullptr);
  int empty_splits = 0;  // splits in a row that found nothing near
  for (;;) {
    // the decision: every block reads the same counters (written before the last barrier)
    const unsigned long long nearp = ld_ctr(ctr + C_NEAR0 + cur);
    if (nearp & mask) {  // a round of near list cur: light parts, into near list 1 - cur
      I* const list = cur ? near1 : near0;
      I* const offs = cur ? offs1 : offs0;
      if (tid == 0) ctr[C_NEAR0 + (cur ^ 1)] = 0ull;
      take_phase(indptr, dist, flags, list, offs, base, du, (long long)(nearp & mask),
                 (unsigned)F_NEAR, tid, nthreads);
      bg::grid_barrier(bar, gen);
      if (tid == 0) {
        ctr[C_ROUNDS] += 1ull;
        ctr[C_EDGES] += nearp >> shift;
      }
      relax_phase(indptr, lend, indices, weights, dist, flags, offs, base, du,
                  (long long)(nearp & mask), (long long)(nearp >> shift), cur ? near0 : near1,
                  cur ? offs0 : offs1, ctr + C_NEAR0 + (cur ^ 1), m ? mem1 : mem0,
                  m ? moffs1 : moffs0, ctr + C_MEM0 + m, pile ? far1 : far0,
                  ctr + C_FAR0 + pile, threshold, saturated, shift);
      bg::grid_barrier(bar, gen);
      cur ^= 1;
      empty_splits = 0;
      continue;
    }
    const unsigned long long memp = ld_ctr(ctr + C_MEM0 + m);
    if (memp & mask) {  // a member round: heavy parts, into near list cur (empty) and 1 - m
      I* const list = m ? mem1 : mem0;
      I* const offs = m ? moffs1 : moffs0;
      if (tid == 0) ctr[C_MEM0 + (m ^ 1)] = 0ull;
      take_phase(lend, dist, flags, list, offs, base, du, (long long)(memp & mask),
                 (unsigned)F_MEMBER, tid, nthreads);
      bg::grid_barrier(bar, gen);
      if (tid == 0) {
        ctr[C_ROUNDS] += 1ull;
        ctr[C_EDGES] += memp >> shift;
      }
      relax_phase(indptr, lend, indices, weights, dist, flags, offs, base, du,
                  (long long)(memp & mask), (long long)(memp >> shift), cur ? near1 : near0,
                  cur ? offs1 : offs0, ctr + C_NEAR0 + cur, m ? mem0 : mem1,
                  m ? moffs0 : moffs1, ctr + C_MEM0 + (m ^ 1), pile ? far1 : far0,
                  ctr + C_FAR0 + pile, threshold, saturated, shift);
      bg::grid_barrier(bar, gen);
      m ^= 1;
      empty_splits = 0;
      continue;
    }
    const unsigned long long far_count = ld_ctr(ctr + C_FAR0 + pile);
    if (far_count == 0ull) break;  // nothing queued anywhere: done
    // the next threshold
    const D low = threshold;
    if (empty_splits == 0) {
      bucket += 1.0;
      threshold = to_threshold((bucket + 1.0) * delta, (D*)nullptr);
    } else if (empty_splits == 1) {  // past an empty bucket: the least kept far distance's
      const D least = Ord<D>::value((typename Ord<D>::U)ld_ctr(ctr + (pile ? C_MIN1 : C_MIN)));
      const double b = floor((double)least / delta);
      bucket = b > bucket + 1.0 ? b : bucket + 1.0;
      threshold = to_threshold((bucket + 1.0) * delta, (D*)nullptr);
      const D up = above(least);
      threshold = up > threshold ? up : threshold;
    } else {  // cannot happen (see above): say so and stop
      if (tid == 0) ctr[C_ERR] = far_count;
      break;
    }
    if (!(threshold > low)) threshold = above(low);  // float rounding: the threshold moves on
    const int out = pile ^ 1;
    // the split's pile and least slot, reset before any block splits
    if (tid == 0) {
      ctr[C_FAR0 + out] = 0ull;
      ctr[out ? C_MIN1 : C_MIN] = ~0ull;
      ctr[C_SPLITS] += 1ull;
    }
    bg::grid_barrier(bar, gen);
    split_phase(indptr, lend, dist, flags, pile ? far1 : far0, (long long)far_count,
                out ? far1 : far0, ctr + C_FAR0 + out, cur ? near1 : near0, cur ? offs1 : offs0,
                ctr + C_NEAR0 + cur, m ? mem1 : mem0, m ? moffs1 : moffs0, ctr + C_MEM0 + m,
                ctr + (out ? C_MIN1 : C_MIN), shift, low, threshold);
    bg::grid_barrier(bar, gen);
    pile = out;
    ++empty_splits;
  }
}

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
template __global__ void sssp_light_ends<float, int>(const int*, const float*, int*, long long,
    float);
template __global__ void sssp_light_ends<unsigned long long, long long>(const long long*,
    const unsigned long long*, long long*, long long, unsigned long long);
template __global__ void sssp_init<double, long long>(const long long*, const long long*, double*,
    unsigned int*, long long, long long, long long*, long long*, long long*, long long*,
    unsigned long long*, int, int, int, double);
template __global__ void sssp_take<float, int>(const int*, const float*, unsigned int*,
    const int*, const int*, int*, float*, unsigned long long*, int, int, int, unsigned int, int);
template __global__ void sssp_relax<float, int>(const int*, const int*, const int*, const float*,
    float*, unsigned int*, const int*, const int*, const float*, int*, int*, int*, int*, int*,
    unsigned long long*, int, int, int, int, int, float, float, int);
template __global__ void sssp_relax<long long, long long>(const long long*, const long long*,
    const long long*, const long long*, long long*, unsigned int*, const long long*,
    const long long*, const long long*, long long*, long long*, long long*, long long*,
    long long*, unsigned long long*, int, int, int, int, int, long long, long long, int);
template __global__ void sssp_relax<unsigned long long, int>(const int*, const int*, const int*,
    const unsigned long long*, unsigned long long*, unsigned int*, const int*, const int*,
    const unsigned long long*, int*, int*, int*, int*, int*, unsigned long long*, int, int, int,
    int, int, unsigned long long, unsigned long long, int);
template __global__ void sssp_split<double, int>(const int*, const int*, const double*,
    unsigned int*, const int*, long long, int*, int, int*, int*, int, int*, int*, int,
    unsigned long long*, int, double, double);
template __global__ void sssp_split<unsigned long long, long long>(const long long*,
    const long long*, const unsigned long long*, unsigned int*, const long long*, long long,
    long long*, int, long long*, long long*, int, long long*, long long*, int,
    unsigned long long*, int, unsigned long long, unsigned long long);
template __global__ void sssp_persistent<float, int>(const int*, const int*, const int*,
    const float*, float*, unsigned int*, int*, int*, int*, int*, int*, int*, int*, int*, int*,
    int*, int*, float*, unsigned long long*, unsigned int*, double, float, int);
template __global__ void sssp_persistent<double, long long>(const long long*, const long long*,
    const long long*, const double*, double*, unsigned int*, long long*, long long*, long long*,
    long long*, long long*, long long*, long long*, long long*, long long*, long long*,
    long long*, double*, unsigned long long*, unsigned int*, double, double, int);
template __global__ void sssp_persistent<int, int>(const int*, const int*, const int*,
    const int*, int*, unsigned int*, int*, int*, int*, int*, int*, int*, int*, int*, int*,
    int*, int*, int*, unsigned long long*, unsigned int*, double, int, int);
template __global__ void sssp_persistent<unsigned long long, int>(const int*, const int*,
    const int*, const unsigned long long*, unsigned long long*, unsigned int*, int*, int*, int*,
    int*, int*, int*, int*, int*, int*, int*, int*, unsigned long long*, unsigned long long*,
    unsigned int*, double, unsigned long long, int);
template __global__ void sssp_persistent<long long, int>(const int*, const int*, const int*,
    const long long*, long long*, unsigned int*, int*, int*, int*, int*, int*, int*, int*, int*,
    int*, int*, int*, long long*, unsigned long long*, unsigned int*, double, long long, int);
