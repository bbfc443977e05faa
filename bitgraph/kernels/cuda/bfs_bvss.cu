// Blest's BFS on BVSS in one persistent kernel (launcher: bfs_bvss.py).
//
// The graph is the BVSS of A' (row u lists the in-neighbours of u; sigma 8,
// formats/bvss.py) plus the CSR of A' for bottom-up levels. One cooperative
// launch runs the whole traversal; levels are separated by a grid barrier
// of our own (arrival counter + generation word, acquire/release), never a
// host round trip. Per level L (frontier F_L, next frontier F_{L+1}):
//
// - top-down, eager (Blest Alg. 2): warps take the VSSs of the queue Q_L;
//   a VSS's 128 slices go through two m8n8k128 b1 AND+POPC MMAs (or their
//   SIMT twin); an unvisited row with a non-zero popcount is claimed by a
//   returning atomicOr on the visited bitmap, gets its level and its bit
//   in F_{L+1}; the first row of a column block to enter F_{L+1} pushes the
//   block's VSSs onto Q_{L+1} (one warp-aggregated atomic). 1 barrier.
// - top-down, lazy (Blest Alg. 3): the same scan sets F_{L+1} bits with a
//   non-returning atomic; after a barrier one coalesced sweep over the
//   n/32 words keeps the unvisited bits, sets levels and builds Q_{L+1}.
//   2 barriers, Theta(n / 32) words, no returning atomics.
// - bottom-up (direction optimisation): a warp per visited-bitmap word,
//   a lane per vertex; an unvisited vertex scans its in-neighbours in the
//   CSR of A' and stops at the first one in F_L. No atomics on the
//   bitmaps: the warp owns the word. 1 barrier.
//
// Three frontier bitmaps and three queues rotate (F_{L-1}, F_L, F_{L+1}):
// level L clears the bytes of F_{L-1} named by Q_{L-1}, so a buffer is
// clean when it comes round as F_{L+2} without an O(n) pass. (A block with
// no VSS is never queued, so its bytes may keep stale bits: its vertices
// have no out-edge, so no VSS reads them and no vertex lists them as an
// in-neighbour; the lazy sweep masks them with the visited bitmap.)
// Per-level counters (queue length, vertices found, their out-degree sum)
// rotate over 4 slots; every thread reads the same values after a barrier
// and takes the same decisions.

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL 0xFFFFFFFFu
#define SLOTS 4  // counter slots: level L reads L%4, writes (L+1)%4, resets (L+2)%4

namespace bfsb {

enum Mode { EAGER = 0, LAZY = 1, BOTTOM_UP = 2 };

// ctrl (u64): qlen[4], found[4], degsum[4], checked[4]
__device__ __forceinline__ u64* qlen(u64* c, int l) { return c + (l & 3); }
__device__ __forceinline__ u64* found(u64* c, int l) { return c + 4 + (l & 3); }
__device__ __forceinline__ u64* degsum(u64* c, int l) { return c + 8 + (l & 3); }
__device__ __forceinline__ u64* checked(u64* c, int l) { return c + 12 + (l & 3); }

__device__ __forceinline__ u32 ld_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ u32 atom_add_acq_rel(u32* p, u32 v) {
    u32 old;
    asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ void st_release(u32* p, u32 v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" :: "l"(p), "r"(v) : "memory");
}

// Grid barrier: bar[0] arrivals, bar[1] generation. Thread 0 of each block
// arrives with release semantics (the block's writes, ordered before it by
// __syncthreads, become visible) and waits with acquire semantics. The
// generation is read before arriving: it cannot move until every block,
// this one included, has arrived.
__device__ __forceinline__ void grid_barrier(u32* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 gen = ld_acquire(bar + 1);
        if (atom_add_acq_rel(bar, 1) == gridDim.x - 1) {
            bar[0] = 0;
            st_release(bar + 1, gen + 1);
        } else {
            while (ld_acquire(bar + 1) == gen) {
                __nanosleep(32);
            }
        }
    }
    __syncthreads();
}

// Mutable shared state is read through L2 (ld.cg): another SM wrote it.
__device__ __forceinline__ u32 ldcg(const u32* p) { return __ldcg(p); }
__device__ __forceinline__ u64 ldcg(const u64* p) { return __ldcg(p); }
__device__ __forceinline__ int ldcg(const int* p) { return __ldcg(p); }
__device__ __forceinline__ u32 ldcg_byte(const u32* words, long long byte) {
    return (u32)__ldcg(reinterpret_cast<const unsigned char*>(words) + byte);
}

__device__ __forceinline__ u64 warp_sum(u64 x) {
#pragma unroll
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    return x;
}

// Add x (per lane) to *counter: one atomic per warp. All lanes call.
__device__ __forceinline__ void warp_add(u64* counter, u64 x) {
    x = warp_sum(x);
    if ((threadIdx.x & 31) == 0 && x) atomicAdd(counter, x);
}

// Push the VSSs of column block blk (blk < 0: none) onto queue q, counter
// *len: one atomic per warp, then the warp writes each pushed range
// together (a hub's block holds thousands of VSSs). All lanes call.
__device__ __forceinline__ void warp_push(long long blk, const int* __restrict__ real_ptrs,
                                          int* __restrict__ q, u64* len) {
    const int lane = threadIdx.x & 31;
    int lo = 0, cnt = 0;
    if (blk >= 0) {
        lo = __ldg(real_ptrs + blk);
        cnt = __ldg(real_ptrs + blk + 1) - lo;
    }
    int x = cnt;  // inclusive scan of cnt
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(FULL, x, o);
        if (lane >= o) x += y;
    }
    const int total = __shfl_sync(FULL, x, 31);
    if (total == 0) return;
    u64 base = 0;
    if (lane == 0) base = atomicAdd(len, (u64)total);
    base = __shfl_sync(FULL, base, 0);
    const u64 start = base + (u64)(x - cnt);
    u32 pending = __ballot_sync(FULL, cnt > 0);
    while (pending) {
        const int src = __ffs(pending) - 1;
        pending &= pending - 1;
        const int s_lo = __shfl_sync(FULL, lo, src);
        const int s_cnt = __shfl_sync(FULL, cnt, src);
        const u64 s_start = __shfl_sync(FULL, start, src);
        for (int i = lane; i < s_cnt; i += 32) q[s_start + i] = s_lo + i;
    }
}

// The 4 slot hits of lane's word w against frontier byte alpha: bit s set
// when slice s (bits 8s..8s+7 of w) meets alpha.
template <bool MMA>
__device__ __forceinline__ u32 slot_hits(u32 w, u32 alpha, int lane) {
    if (MMA) {
        // Blest's no-waste layout: fragA = two masks in the low 16 bits;
        // fragB = alpha in lanes t % 9 == 0, alpha << 8 in lanes t % 9 == 4;
        // lane t then owns C[t/4][2(t%4)], C[t/4][2(t%4)+1] = the popcounts
        // of its own two slices (SEEDS.md, Blest).
        const u32 b = (lane % 9 == 0) ? alpha : ((lane % 9 == 4) ? (alpha << 8) : 0u);
        const u32 a0 = w & 0xFFFFu, a1 = w >> 16;
        int c0, c1, c2, c3;
        asm volatile(
            "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc "
            "{%0, %1}, {%2}, {%3}, {%4, %5};"
            : "=r"(c0), "=r"(c1) : "r"(a0), "r"(b), "r"(0), "r"(0));
        asm volatile(
            "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.and.popc "
            "{%0, %1}, {%2}, {%3}, {%4, %5};"
            : "=r"(c2), "=r"(c3) : "r"(a1), "r"(b), "r"(0), "r"(0));
        return (c0 ? 1u : 0u) | (c1 ? 2u : 0u) | (c2 ? 4u : 0u) | (c3 ? 8u : 0u);
    } else {
        const u32 h = w & (alpha * 0x01010101u);
        return ((h & 0xFFu) ? 1u : 0u) | ((h & 0xFF00u) ? 2u : 0u)
             | ((h & 0xFF0000u) ? 4u : 0u) | ((h & 0xFF000000u) ? 8u : 0u);
    }
}

__device__ __forceinline__ u32 pick(const uint4& r, int s) {
    return s == 0 ? r.x : (s == 1 ? r.y : (s == 2 ? r.z : r.w));
}

}  // namespace bfsb

// One BFS from the state the launcher prepared (level 0 = the source):
// levels[n] (-1, source 0), visited[nwords] (source bit), front[3 * nwords]
// (buffer 0 = F_0 = the source bit, others 0), queue[3 * qcap] (buffer 0 =
// Q_0 = the source block's VSSs), ctrl[16] (qlen[0], found[0] = 1,
// degsum[0] = out-degree of the source, others 0), bar[2] = 0,
// trace[trace_cap * 4] (per level: mode, queue length, found, checked).
// alpha_m: bottom-up when the frontier's out-degree sum exceeds it;
// bottom_up: 0 never, 1 by alpha_m, 2 always; lazy_min: levels whose queue
// holds at least this many VSSs use the lazy update (-1: never).
template <bool MMA, typename I>
__global__ void __launch_bounds__(512) bfs_bvss(
    const int* __restrict__ real_ptrs, const int* __restrict__ v2r,
    const uint4* __restrict__ rows4, const u32* __restrict__ masks,
    const I* __restrict__ in_ptr, const I* __restrict__ in_idx,
    const int* __restrict__ outdeg, int* __restrict__ levels, u32* visited, u32* front,
    int* queue, u64* ctrl, u32* bar, long long* trace, long long n, long long nblocks,
    long long qcap, u64 alpha_m, int bottom_up, long long lazy_min, long long trace_cap)
{
    using namespace bfsb;
    const int lane = threadIdx.x & 31;
    const long long nwords = (n + 31) >> 5;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;

    for (int L = 0;; ++L) {
        const u64 qn = ldcg(qlen(ctrl, L));
        const u64 nf = ldcg(found(ctrl, L));
        const u64 ds = ldcg(degsum(ctrl, L));
        if (tid == 0 && L > 0 && L - 1 < trace_cap)
            trace[4 * (L - 1) + 3] = (long long)ldcg(checked(ctrl, L));
        if (nf == 0) break;  // F_L is empty
        const int mode = (bottom_up == 2 || (bottom_up == 1 && ds > alpha_m)) ? BOTTOM_UP
                       : ((lazy_min >= 0 && (long long)qn >= lazy_min) ? LAZY : EAGER);
        const u32* F = front + (L % 3) * nwords;
        u32* F1 = front + ((L + 1) % 3) * nwords;
        u32* F0 = front + ((L + 2) % 3) * nwords;  // F_{L-1}
        const int* Q = queue + (L % 3) * qcap;
        int* Q1 = queue + ((L + 1) % 3) * qcap;
        const int* Q0 = queue + ((L + 2) % 3) * qcap;
        if (tid == 0) {
            *qlen(ctrl, L + 2) = 0;
            *found(ctrl, L + 2) = 0;
            *degsum(ctrl, L + 2) = 0;
            *checked(ctrl, L + 2) = 0;
            if (L < trace_cap) {
                trace[4 * L] = mode;
                trace[4 * L + 1] = (long long)qn;
                trace[4 * L + 2] = (long long)nf;
            }
        }
        // clear F_{L-1}: the bytes of the blocks its discoveries queued
        if (L > 0) {
            const u64 q0n = ldcg(qlen(ctrl, L + 3));
            unsigned char* bytes = reinterpret_cast<unsigned char*>(F0);
            for (long long i = tid; i < (long long)q0n; i += nthreads)
                bytes[__ldg(v2r + ldcg(Q0 + i))] = 0;
        }
        const int next = L + 1;
        if (mode == BOTTOM_UP) {
            for (long long w = warp; w < nwords; w += nwarps) {
                const u32 vw = ldcg(visited + w);
                if (vw == FULL) continue;  // warp-uniform
                const long long u = w * 32 + lane;
                bool hit = false;
                u64 scanned = 0;
                if (u < n && !((vw >> lane) & 1u)) {
                    const I end = __ldg(in_ptr + u + 1);
                    for (I p = __ldg(in_ptr + u); p < end; ++p) {
                        const long long v = (long long)__ldg(in_idx + p);
                        ++scanned;
                        if ((ldcg(F + (v >> 5)) >> (v & 31)) & 1u) {
                            hit = true;
                            break;
                        }
                    }
                }
                const u32 nb = __ballot_sync(FULL, hit);
                if (hit) levels[u] = next;
                if (lane == 0 && nb) {
                    visited[w] = vw | nb;
                    F1[w] = nb;
                }
                warp_add(checked(ctrl, next), scanned);
                if (nb) {
                    warp_add(found(ctrl, next), hit ? 1 : 0);
                    warp_add(degsum(ctrl, next), hit ? (u64)__ldg(outdeg + u) : 0);
                    const long long blk = w * 4 + lane;
                    const bool push = lane < 4 && ((nb >> (8 * lane)) & 0xFFu) && blk < nblocks;
                    warp_push(push ? blk : -1, real_ptrs, Q1, qlen(ctrl, next));
                }
            }
            grid_barrier(bar);
            continue;
        }
        // top-down: warps take the queue's VSSs
        for (long long qi = warp; qi < (long long)qn; qi += nwarps) {
            const int v = ldcg(Q + qi);
            const int blk = __ldg(v2r + v);
            const u32 alpha = ldcg_byte(F, blk);
            const u32 w = __ldg(masks + 32LL * v + lane);
            const uint4 r = __ldg(rows4 + 32LL * v + lane);
            const u32 hits = slot_hits<MMA>(w, alpha, lane);
            u64 nfound = 0, nd = 0;
            long long pushes[4] = {-1, -1, -1, -1};
#pragma unroll
            for (int s = 0; s < 4; ++s) {
                if (!((hits >> s) & 1u)) continue;
                const u32 u = pick(r, s);
                const u32 bit = 1u << (u & 31);
                if (ldcg(visited + (u >> 5)) & bit) continue;
                if (mode == LAZY) {
                    atomicOr(F1 + (u >> 5), bit);  // result unused: a RED
                    continue;
                }
                if (atomicOr(visited + (u >> 5), bit) & bit) continue;
                levels[u] = next;
                const u32 old = atomicOr(F1 + (u >> 5), bit);
                ++nfound;
                nd += (u64)__ldg(outdeg + u);
                if (((old >> (u & 24)) & 0xFFu) == 0) pushes[s] = u >> 3;
            }
            if (mode == EAGER) {
                warp_add(found(ctrl, next), nfound);
                warp_add(degsum(ctrl, next), nd);
#pragma unroll
                for (int s = 0; s < 4; ++s) {
                    if (__any_sync(FULL, pushes[s] >= 0))
                        warp_push(pushes[s], real_ptrs, Q1, qlen(ctrl, next));
                }
            }
        }
        if (mode == LAZY) {
            grid_barrier(bar);
            // sweep: the new bits of every word (a lane per word, the warp
            // on 32 consecutive words), levels, counters, Q_{L+1}
            for (long long base = warp * 32; base < nwords; base += nwarps * 32) {
                const long long w = base + lane;
                u32 d = 0;
                if (w < nwords) {
                    const u32 x = ldcg(F1 + w);
                    if (x) {
                        const u32 vw = ldcg(visited + w);
                        d = x & ~vw;
                        F1[w] = d;
                        if (d) visited[w] = vw | d;
                    }
                }
                u64 nfound = __popc(d), nd = 0;
                for (u32 x = d; x; x &= x - 1) {
                    const long long u = w * 32 + __ffs(x) - 1;
                    levels[u] = next;
                    nd += (u64)__ldg(outdeg + u);
                }
                if (__any_sync(FULL, d != 0)) {
                    warp_add(found(ctrl, next), nfound);
                    warp_add(degsum(ctrl, next), nd);
#pragma unroll
                    for (int b = 0; b < 4; ++b) {
                        const long long blk = w * 4 + b;
                        const bool push = ((d >> (8 * b)) & 0xFFu) && blk < nblocks;
                        if (__any_sync(FULL, push))
                            warp_push(push ? blk : -1, real_ptrs, Q1, qlen(ctrl, next));
                    }
                }
            }
        }
        grid_barrier(bar);
    }
}

// Parents from levels: for each reached v other than the source, the first
// in-neighbour one level up (a valid BFS tree). A warp per vertex.
template <typename I>
__global__ void parents_from_levels(const I* __restrict__ in_ptr, const I* __restrict__ in_idx,
                                    const int* __restrict__ levels, long long* parents,
                                    long long n, long long source)
{
    const int lane = threadIdx.x & 31;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long v = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < n;
         v += nwarps) {
        const int lv = levels[v];
        if (lv < 0) {
            if (lane == 0) parents[v] = -1;
            continue;
        }
        if (v == source) {
            if (lane == 0) parents[v] = source;
            continue;
        }
        const I lo = in_ptr[v], hi = in_ptr[v + 1];
        long long best = -1;
        for (I p = lo + lane; p - lane < hi; p += 32) {
            long long u = -1;
            if (p < hi) {
                u = (long long)in_idx[p];
                if (levels[u] != lv - 1) u = -1;
            }
            const u32 m = __ballot_sync(FULL, u >= 0);
            if (m) {
                best = __shfl_sync(FULL, u, __ffs(m) - 1);
                break;
            }
        }
        if (lane == 0) parents[v] = best;
    }
}

template __global__ void bfs_bvss<true, int>(const int*, const int*, const uint4*, const u32*,
    const int*, const int*, const int*, int*, u32*, u32*, int*, u64*, u32*, long long*,
    long long, long long, long long, u64, int, long long, long long);
template __global__ void bfs_bvss<false, int>(const int*, const int*, const uint4*, const u32*,
    const int*, const int*, const int*, int*, u32*, u32*, int*, u64*, u32*, long long*,
    long long, long long, long long, u64, int, long long, long long);
template __global__ void bfs_bvss<true, long long>(const int*, const int*, const uint4*,
    const u32*, const long long*, const long long*, const int*, int*, u32*, u32*, int*, u64*,
    u32*, long long*, long long, long long, long long, u64, int, long long, long long);
template __global__ void bfs_bvss<false, long long>(const int*, const int*, const uint4*,
    const u32*, const long long*, const long long*, const int*, int*, u32*, u32*, int*, u64*,
    u32*, long long*, long long, long long, long long, u64, int, long long, long long);
template __global__ void parents_from_levels<int>(const int*, const int*, const int*,
                                                  long long*, long long, long long);
template __global__ void parents_from_levels<long long>(const long long*, const long long*,
                                                        const int*, long long*, long long,
                                                        long long);
