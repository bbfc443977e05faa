// Blest's BFS on BVSS in one persistent kernel (launcher: bfs_bvss.py).
//
// The graph is the BVSS of A' (row u lists the in-neighbours of u; sigma 8,
// formats/bvss.py), the CSR of A' for bottom-up levels and A's CSR for
// single-block levels. One cooperative launch initialises its scratch and
// runs the whole traversal; levels are separated by a grid barrier of our
// own (arrival counter + generation, acquire/release), never a host round
// trip. Per level L (frontier F_L, next frontier F_{L+1}), one of:
//
// - top-down, eager (Blest Alg. 2): warps take the VSSs of the queue Q_L
//   (entries: VSS and its column block); a VSS's 128 slices go through two
//   m8n8k128 b1 AND+POPC MMAs (or their SIMT twin); an unvisited row with a
//   non-zero popcount is claimed by a returning atomicOr on F_{L+1}, gets
//   its level and its visited bit; the first row of a column block to
//   enter F_{L+1} pushes the block's VSSs onto Q_{L+1}. 1 barrier.
// - top-down, lazy (Blest Alg. 3): the same scan sets F_{L+1} bits with a
//   non-returning atomic; after a barrier one coalesced sweep over the
//   n/32 words keeps the unvisited bits and sets levels. 2 barriers.
// - bottom-up (direction optimisation): a warp per visited-bitmap word,
//   a lane per vertex; an unvisited vertex scans its in-neighbours in the
//   CSR of A' and stops at the first one in F_L. The warp owns the word.
// - single-block (BFS-4K's switch): small levels run in block 0 alone over
//   A's CSR with a vertex list, block barriers only (see single_levels).
//
// Queue pushes and counters are staged per block in shared memory. Bottom-
// up and lazy levels build no queue (NOQUEUE); a top-down level after them
// builds Q_L from F_L's words first. Three frontier bitmaps and three
// queues rotate (F_{L-1}, F_L, F_{L+1}): level L clears F_{L-1}, by the
// bytes Q_{L-1} names or whole when Q_{L-1} was not built, so a buffer is
// clean when it comes round as F_{L+2}. (A block with no VSS is never
// queued, so its bytes may keep stale bits: its vertices have no out-edge,
// so no VSS reads them and no vertex lists them as an in-neighbour; the
// lazy sweep masks them with the visited bitmap.) Per-level counters
// (queue length, vertices found, their out-degree sum, in-edges scanned)
// rotate over 4 slots; every thread reads the same values after a barrier
// and takes the same decisions.

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL 0xFFFFFFFFu

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
// __syncthreads, become visible) and waits with acquire semantics for the
// generation it expects: each block counts the barriers it has passed in
// `gen`, read once at the kernel's start (no block can complete the first
// barrier before every block has read it), so a barrier costs the arrival
// and the wait, no extra read. One block per multiprocessor keeps the
// arrivals on the counter few (~130).
__device__ __forceinline__ void grid_barrier(u32* bar, u32& gen) {
    __syncthreads();
    if (threadIdx.x == 0) {
        ++gen;
        if (atom_add_acq_rel(bar, 1) == gridDim.x - 1) {
            bar[0] = 0;
            st_release(bar + 1, gen);
        } else {
            while (ld_acquire(bar + 1) != gen) __nanosleep(20);
        }
    }
    __syncthreads();
}

__device__ __forceinline__ u64 globaltimer() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// Mutable shared state is read through L2 (ld.cg): another SM wrote it.
__device__ __forceinline__ u32 ldcg(const u32* p) { return __ldcg(p); }
__device__ __forceinline__ u64 ldcg(const u64* p) { return __ldcg(p); }
__device__ __forceinline__ int2 ldcg(const int2* p) { return __ldcg(p); }
__device__ __forceinline__ u32 ldcg_byte(const u32* words, long long byte) {
    return (u32)__ldcg(reinterpret_cast<const unsigned char*>(words) + byte);
}

__device__ __forceinline__ u64 warp_sum(u64 x) {
#pragma unroll
    for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(FULL, x, o);
    return x;
}

// Per-block staging of a level's output: the queue entries and counters
// go to shared memory (shared atomics), and each block adds them to the
// global queue and counters once, at the end of the level. Global atomics
// per level drop from one per warp (on one address: serialised) to one
// per block.
#define STAGE 2048
struct Stage {
    int2 q[STAGE];  // queue entries: (VSS, its column block)
    u32 qn;
    u64 cnt[3];  // found, degsum, checked
};

// Add x (per lane) to the block's counter k: one shared atomic per warp.
__device__ __forceinline__ void warp_add(Stage& st, int k, u64 x) {
    x = warp_sum(x);
    if ((threadIdx.x & 31) == 0 && x) atomicAdd(&st.cnt[k], x);
}

// Push the VSSs lo..lo+cnt-1 of column block blk (cnt 0: none): into the
// block's stage while it has room, the rest straight to the global queue q
// / *len. The warp writes each pushed range together (a hub's block holds
// thousands of VSSs). All lanes call.
__device__ __forceinline__ void warp_push_range(Stage& st, int blk, int lo, int cnt,
                                                int2* __restrict__ q, u64* len) {
    const int lane = threadIdx.x & 31;
    int x = cnt;  // inclusive scan of cnt
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(FULL, x, o);
        if (lane >= o) x += y;
    }
    const int total = __shfl_sync(FULL, x, 31);
    if (total == 0) return;
    u32 pos = 0;
    u64 gbase = 0;
    if (lane == 0) {
        pos = atomicAdd(&st.qn, (u32)total);
        const int local = pos >= STAGE ? 0 : min(total, (int)(STAGE - pos));
        if (local < total) gbase = atomicAdd(len, (u64)(total - local));
    }
    pos = __shfl_sync(FULL, pos, 0);
    gbase = __shfl_sync(FULL, gbase, 0);
    const int local = pos >= STAGE ? 0 : min(total, (int)(STAGE - pos));
    const int start = x - cnt;
    u32 pending = __ballot_sync(FULL, cnt > 0);
    while (pending) {
        const int src = __ffs(pending) - 1;
        pending &= pending - 1;
        const int s_lo = __shfl_sync(FULL, lo, src);
        const int s_cnt = __shfl_sync(FULL, cnt, src);
        const int s_start = __shfl_sync(FULL, start, src);
        const int s_blk = __shfl_sync(FULL, blk, src);
        for (int i = lane; i < s_cnt; i += 32) {
            const int rel = s_start + i;
            const int2 e = make_int2(s_lo + i, s_blk);
            if (rel < local) st.q[pos + rel] = e;
            else q[gbase + (rel - local)] = e;
        }
    }
}

// The same for column block blk (blk < 0: none), its range read here.
__device__ __forceinline__ void warp_push(Stage& st, long long blk,
                                          const int* __restrict__ real_ptrs,
                                          int2* __restrict__ q, u64* len) {
    int lo = 0, cnt = 0;
    if (blk >= 0) {
        lo = __ldg(real_ptrs + blk);
        cnt = __ldg(real_ptrs + blk + 1) - lo;
    }
    warp_push_range(st, (int)blk, lo, cnt, q, len);
}

// End of a level's discovery: the block's staged entries go to queue q
// (length *len), its counters to level `next`'s, and the stage is reset.
// A level that does not build the next queue (bottom-up, lazy) marks its
// length NOQUEUE; a top-down level that finds it so builds it first from
// the frontier's words (most levels after a bottom-up one are bottom-up:
// their queues would be written for nothing).
#define NOQUEUE (~0ull)
__device__ __forceinline__ void flush(Stage& st, int2* __restrict__ q, u64* len, u64* ctrl,
                                      int next) {
    __shared__ u64 base;
    __syncthreads();
    const u32 n = min(st.qn, (u32)STAGE);
    if (threadIdx.x == 0) {
        base = n ? atomicAdd(len, (u64)n) : 0;
        if (st.cnt[0]) atomicAdd(found(ctrl, next), st.cnt[0]);
        if (st.cnt[1]) atomicAdd(degsum(ctrl, next), st.cnt[1]);
        if (st.cnt[2]) atomicAdd(checked(ctrl, next), st.cnt[2]);
    }
    __syncthreads();
    for (u32 i = threadIdx.x; i < n; i += blockDim.x) q[base + i] = st.q[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        st.qn = 0;
        st.cnt[0] = st.cnt[1] = st.cnt[2] = 0;
    }
}

// The 4 slot hits of lane's word w against frontier byte alpha: bit s set
// when slice s (bits 8s..8s+7 of w) meets alpha.
template <bool MMA>
__device__ __forceinline__ u32 slot_hits(u32 w, u32 alpha, int lane) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // b1 MMAs with .and need sm_80: older GPUs (Turing) take the SIMT twin
    if (false) {
#else
    if (MMA) {
#endif
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


}  // namespace bfsb

using namespace bfsb;

// Single-block levels (BFS-4K's switch): while the frontier is small, block
// 0 alone runs top-down levels over the CSR of A (out-edges) with a vertex
// list, block barriers only; the other blocks wait at the grid barrier.
// A grid level costs ~8 us of barrier and counter round trips whatever its
// work: a road network's thousands of tiny levels would pay it each time.
#define SB_FRONTIER 2048  // frontier vertices a single-block level takes
#define LIST_CAP 65536    // vertex list capacity (>= the edge limit sb_edges)
#define SINGLE 3
#define BU_STEPS 8  // in-neighbours a lane scans alone before its warp helps
#define SB_ILP 4  // edges in flight per thread (more spill registers at 64 a thread)

// A frontier list entry carries its row's start and degree (read when the
// vertex was found, beside the visited atomic): a level's chain is then
// the list, the edge, the atomic: 3 memory round trips.
template <typename I>
struct SingleBlock {
    int pre[SB_FRONTIER + 1];  // exclusive prefix of the frontier's degrees
    I start[SB_FRONTIER];      // the frontier's row starts
    u32 warp_tot[32];
    u32 nn;                    // discoveries of the level
};

// In-place exclusive prefix sum of a[0..f) (f <= SB_FRONTIER), a[f] = total.
template <typename I>
__device__ __forceinline__ void block_scan(SingleBlock<I>& sb, int f) {
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const int per = (f + blockDim.x - 1) / blockDim.x;
    const int lo = min(f, t * per), hi = min(f, lo + per);
    int local = 0;
    for (int i = lo; i < hi; ++i) local += sb.pre[i];
    int x = local;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        int y = __shfl_up_sync(FULL, x, o);
        if (lane >= o) x += y;
    }
    if (lane == 31) sb.warp_tot[wid] = x;
    __syncthreads();
    if (wid == 0) {
        const int nw = blockDim.x >> 5;
        int y = lane < nw ? (int)sb.warp_tot[lane] : 0;
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            int z = __shfl_up_sync(FULL, y, o);
            if (lane >= o) y += z;
        }
        if (lane < nw) sb.warp_tot[lane] = y;
    }
    __syncthreads();
    int run = x - local + (wid ? (int)sb.warp_tot[wid - 1] : 0);
    for (int i = lo; i < hi; ++i) {
        const int d = sb.pre[i];
        sb.pre[i] = run;
        run += d;
    }
    if (t == blockDim.x - 1) sb.pre[f] = run;
    __syncthreads();
}

// Clear F_{L-1} (buffer F0): the bytes of the blocks its queue Q0 (q0n
// entries) holds, from the last threads (the first take the level's VSSs),
// or every word when no queue was built.
__device__ __forceinline__ void clear_prev(u32* F0, const int2* Q0, u64 q0n, long long nwords,
                                           long long tid, long long nthreads) {
    if (q0n == NOQUEUE) {
        for (long long i = tid; i < nwords; i += nthreads) F0[i] = 0;
        return;
    }
    unsigned char* bytes = reinterpret_cast<unsigned char*>(F0);
    for (long long i = nthreads - 1 - tid; i < (long long)q0n; i += nthreads)
        bytes[ldcg(Q0 + i).y] = 0;
}

// Block 0 runs levels L, L+1, ... alone (see SingleBlock) and leaves the
// grid at level R: F_R's bits, Q_R and R's counters in place, every other
// frontier buffer clean, ctrl[16] = R. Entered with F_L and Q_L (qn VSSs)
// from a grid level (or the source), F_{L-1} already cleared.
template <typename I>
__device__ void single_levels(Stage& st, SingleBlock<I>& sb, int L, long long qn, const u32* F,
                              const int2* Q, u32* front, int2* queue,
                              long long qcap, long long nwords, const int* __restrict__ real_ptrs,
                              const I* __restrict__ out_ptr,
                              const I* __restrict__ out_idx, int* __restrict__ levels,
                              u32* visited, u64* ctrl, long long* trace, long long trace_cap,
                              u32* lists, long long* starts, long long sb_edges,
                              long long nblocks) {
    const int t = threadIdx.x, nt = blockDim.x;
    // lists: vertex, degree (u32) and row start (starts) of the current and
    // the next frontier
    u32 *cur = lists, *nxt = lists + LIST_CAP;
    u32 *cur_deg = lists + 2 * LIST_CAP, *nxt_deg = lists + 3 * LIST_CAP;
    long long *cur_start = starts, *nxt_start = starts + LIST_CAP;
    // the frontier list from F_L's bytes of the queued blocks (each block
    // once: at its first VSS); then F_L is cleared (F_{L-1} already is)
    if (t == 0) sb.nn = 0;
    __syncthreads();
    for (long long i = t; i < qn; i += nt) {
        const int2 e = ldcg(Q + i);
        const int v = e.x, blk = e.y;
        if (v != __ldg(real_ptrs + blk)) continue;
        for (u32 byte = ldcg_byte(F, blk); byte; byte &= byte - 1) {
            const u32 u = (u32)blk * 8 + __ffs(byte) - 1;
            const I a = __ldg(out_ptr + u), b = __ldg(out_ptr + u + 1);
            const u32 pos = atomicAdd(&sb.nn, 1u);
            cur[pos] = u;
            cur_deg[pos] = (u32)min((long long)(b - a), sb_edges + 1);
            cur_start[pos] = (long long)a;
        }
    }
    __syncthreads();
    int f = (int)sb.nn;
    {
        unsigned char* bytes = reinterpret_cast<unsigned char*>(const_cast<u32*>(F));
        for (long long i = t; i < qn; i += nt) bytes[ldcg(Q + i).y] = 0;
    }
    int lvl = L;
    for (;;) {
        // degrees (clamped at discovery: a sum past sb_edges only says "too
        // many") and their prefix sum; the row starts into shared memory
        bool fits = f <= SB_FRONTIER;
        long long E = 0;
        if (fits) {
            for (int i = t; i < f; i += nt) {
                sb.pre[i] = (int)cur_deg[i];
                sb.start[i] = (I)cur_start[i];
            }
            __syncthreads();
            block_scan(sb, f);
            E = sb.pre[f];
            fits = E <= sb_edges;
        }
        if (!fits || f == 0) break;
        if (t == 0) {
            sb.nn = 0;
            if (lvl < trace_cap && lvl > L) {
                trace[8 * lvl] = SINGLE;
                trace[8 * lvl + 1] = 0;
                trace[8 * lvl + 2] = f;
                trace[8 * lvl + 3] = 0;
                trace[8 * lvl + 4] = (long long)globaltimer();
            }
        }
        __syncthreads();
        // expansion: an edge per thread, SB_ILP in flight: the edge (prefix
        // search in shared memory), then the visited test-and-set with the
        // row pointers of the vertex it may add
        const int next = lvl + 1;
        const int lane = t & 31;
        for (long long e0 = t; e0 - lane < E; e0 += (long long)SB_ILP * nt) {  // warp-uniform
            u32 v[SB_ILP];
#pragma unroll
            for (int k = 0; k < SB_ILP; ++k) {
                const long long e = e0 + (long long)k * nt;
                v[k] = FULL;
                if (e < E) {
                    int lo = 0, hi = f - 1;  // last i with pre[i] <= e
                    while (lo < hi) {
                        const int mid = (lo + hi + 1) >> 1;
                        if (sb.pre[mid] <= e) lo = mid; else hi = mid - 1;
                    }
                    v[k] = (u32)__ldg(out_idx + sb.start[lo] + (e - sb.pre[lo]));
                }
            }
            u32 old[SB_ILP];
            I a[SB_ILP], b[SB_ILP];
#pragma unroll
            for (int k = 0; k < SB_ILP; ++k) {
                old[k] = FULL;
                a[k] = b[k] = 0;
                if (v[k] != FULL) {
                    old[k] = atomicOr(visited + (v[k] >> 5), 1u << (v[k] & 31));
                    a[k] = __ldg(out_ptr + v[k]);
                    b[k] = __ldg(out_ptr + v[k] + 1);
                }
            }
#pragma unroll
            for (int k = 0; k < SB_ILP; ++k) {
                // one shared atomic per warp: a thousand discoveries on one
                // counter, one by one, cost microseconds
                const bool fresh = !(old[k] & (1u << (v[k] & 31)));
                const u32 m = __ballot_sync(FULL, fresh);
                u32 base = 0;
                if (lane == 0 && m) base = atomicAdd(&sb.nn, (u32)__popc(m));
                base = __shfl_sync(FULL, base, 0);
                if (fresh) {
                    levels[v[k]] = next;
                    const u32 pos = base + __popc(m & ((1u << lane) - 1));
                    nxt[pos] = v[k];
                    nxt_deg[pos] = (u32)min((long long)(b[k] - a[k]), sb_edges + 1);
                    nxt_start[pos] = (long long)a[k];
                }
            }
        }
        __syncthreads();
        f = (int)sb.nn;
        u32* tmp = cur; cur = nxt; nxt = tmp;
        tmp = cur_deg; cur_deg = nxt_deg; nxt_deg = tmp;
        long long* tmq = cur_start; cur_start = nxt_start; nxt_start = tmq;
        lvl = next;
    }
    // leave at level lvl with frontier cur[0..f): bits into F_lvl, its
    // blocks' VSSs onto Q_lvl, lvl's counters; nothing to clear at lvl + 1
    u32* Fr = front + (lvl % 3) * nwords;
    int2* Qr = queue + (lvl % 3) * qcap;
    __syncthreads();
    if (t < 4) {
        ctrl[((lvl + t) & 3)] = 0;        // qlen of lvl, lvl+1, lvl+2, lvl-1
        ctrl[4 + ((lvl + t) & 3)] = 0;    // found
        ctrl[8 + ((lvl + t) & 3)] = 0;    // degsum
        ctrl[12 + ((lvl + t) & 3)] = 0;   // checked
    }
    __syncthreads();
    u64 dsum = 0;
    const int lane = t & 31;
    for (int base = t - lane; base < f; base += nt) {  // warp-uniform
        const int i = base + lane;
        long long push = -1;
        if (i < f) {
            const u32 u = cur[i];
            dsum += (u64)(__ldg(out_ptr + u + 1) - __ldg(out_ptr + u));
            const u32 old = atomicOr(Fr + (u >> 5), 1u << (u & 31));
            if (((old >> (u & 24)) & 0xFFu) == 0 && (long long)(u >> 3) < nblocks) push = u >> 3;
        }
        if (__any_sync(FULL, push >= 0)) warp_push(st, push, real_ptrs, Qr, qlen(ctrl, lvl));
    }
    warp_add(st, 1, dsum);
    if (t == 0) {
        ctrl[4 + (lvl & 3)] = (u64)f;
        ctrl[16] = (u64)lvl;
    }
    flush(st, Qr, qlen(ctrl, lvl), ctrl, lvl);
}

// One BFS from `source`. Scratch the kernel initialises itself: levels[n]
// (every entry written: -1 unreached), visited[nwords], front[3 * nwords],
// queue[3 * qcap], ctrl[16]; bar[2 + blocks / 16] zero before the first
// launch (each barrier leaves it reusable). trace[trace_cap * 8]: per level
// mode, queue length, frontier size, in-edges the level's bottom-up
// scanned, start time (ns); the row after the last level has frontier 0.
// alpha_m: a level runs bottom-up when its frontier's out-degree sum
// exceeds it; bottom_up: 0 never, 1 by alpha_m, 2 always; lazy_min: levels
// whose queue holds at least this many VSSs use the lazy update (-1 never).
template <bool MMA, typename I>
__global__ void __launch_bounds__(1024) bfs_bvss(
    const int* __restrict__ real_ptrs,
    const uint4* __restrict__ rows4, const u32* __restrict__ masks,
    const I* __restrict__ in_ptr, const I* __restrict__ in_idx,
    const I* __restrict__ out_ptr, const I* __restrict__ out_idx,
    const int* __restrict__ outdeg, int* __restrict__ levels, u32* visited, u32* front,
    int2* queue, u64* ctrl, u32* bar, long long* trace, u32* lists, long long* starts,
    long long n, long long nblocks, long long qcap, long long source, u64 alpha_m,
    int bottom_up, long long lazy_min, long long sb_edges, long long trace_cap)
{
    using namespace bfsb;
    __shared__ Stage st;
    __shared__ SingleBlock<I> sb;
    const int lane = threadIdx.x & 31;
    const long long nwords = (n + 31) >> 5;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;

    u32 gen = 0;  // barriers passed (thread 0 of each block)
    // level 0: the source alone
    if (threadIdx.x == 0) {
        gen = ld_acquire(bar + 1);
        st.qn = 0;
        st.cnt[0] = st.cnt[1] = st.cnt[2] = 0;
    }
    for (long long i = tid; i < n; i += nthreads) levels[i] = -1;
    for (long long i = tid; i < nwords; i += nthreads) visited[i] = 0;
    for (long long i = tid; i < 3 * nwords; i += nthreads) front[i] = 0;
    if (tid < 18) ctrl[tid] = 0;
    grid_barrier(bar, gen);
    if (tid == 0) {
        levels[source] = 0;
        visited[source >> 5] = 1u << (source & 31);
        front[source >> 5] = 1u << (source & 31);
        *found(ctrl, 0) = 1;
        *degsum(ctrl, 0) = (u64)outdeg[source];
    }
    if (warp == 0) {
        const int lo = real_ptrs[source >> 3], hi = real_ptrs[(source >> 3) + 1];
        for (int i = lo + lane; i < hi; i += 32) queue[i - lo] = make_int2(i, (int)(source >> 3));
        if (lane == 0) *qlen(ctrl, 0) = (u64)(hi - lo);
    }
    grid_barrier(bar, gen);

    for (int L = 0;; ++L) {
        u64 qn = ldcg(qlen(ctrl, L));
        const u64 nf = ldcg(found(ctrl, L));
        const u64 ds = ldcg(degsum(ctrl, L));
        const u64 q0n = L > 0 ? ldcg(qlen(ctrl, L + 3)) : 0;
        // the lazy rule on the queue's length; the frontier's size when the
        // queue is not built yet
        const long long qsize = qn == NOQUEUE ? (long long)nf : (long long)qn;
        const int mode = (sb_edges >= 0 && nf <= SB_FRONTIER && (long long)ds <= sb_edges)
                           ? SINGLE
                       : (bottom_up == 2 || (bottom_up == 1 && ds > alpha_m)) ? BOTTOM_UP
                       : ((lazy_min >= 0 && qsize >= lazy_min) ? LAZY : EAGER);
        if (tid == 0 && L < trace_cap) {
            trace[8 * L] = mode;
            trace[8 * L + 1] = qn == NOQUEUE ? -1 : (long long)qn;
            trace[8 * L + 2] = (long long)nf;
            trace[8 * L + 4] = (long long)globaltimer();
            if (L > 0) trace[8 * (L - 1) + 3] = (long long)ldcg(checked(ctrl, L));
        }
        if (nf == 0) break;  // F_L is empty
        const u32* F = front + (L % 3) * nwords;
        u32* F1 = front + ((L + 1) % 3) * nwords;
        u32* F0 = front + ((L + 2) % 3) * nwords;  // F_{L-1}
        const int2* Q = queue + (L % 3) * qcap;
        int2* Q1 = queue + ((L + 1) % 3) * qcap;
        const int2* Q0 = queue + ((L + 2) % 3) * qcap;
        const int next = L + 1;
        if (tid == 0) {
            *qlen(ctrl, L + 2) = 0;
            *found(ctrl, L + 2) = 0;
            *degsum(ctrl, L + 2) = 0;
            *checked(ctrl, L + 2) = 0;
            ctrl[17] = 0;
            if (mode == BOTTOM_UP || mode == LAZY) *qlen(ctrl, next) = NOQUEUE;
        }
        bool cleared = L == 0;
        if (mode != BOTTOM_UP && qn == NOQUEUE) {
            // build Q_L from F_L's words (the level before did not)
            clear_prev(F0, Q0, q0n, nwords, tid, nthreads);
            cleared = true;
            grid_barrier(bar, gen);
            int2* Qb = queue + (L % 3) * qcap;
            for (long long base = warp * 32; base < nwords; base += nwarps * 32) {
                const long long w = base + lane;
                const u32 x = w < nwords ? ldcg(F + w) : 0u;
                if (!__any_sync(FULL, x != 0)) continue;
#pragma unroll
                for (int b = 0; b < 4; ++b) {
                    const long long blk = w * 4 + b;
                    const bool push = ((x >> (8 * b)) & 0xFFu) && blk < nblocks;
                    if (__any_sync(FULL, push))
                        warp_push(st, push ? blk : -1, real_ptrs, Qb, ctrl + 17);
                }
            }
            flush(st, Qb, ctrl + 17, ctrl, next);
            grid_barrier(bar, gen);
            qn = ldcg(ctrl + 17);
            if (tid == 0 && L < trace_cap) trace[8 * L + 1] = (long long)qn;
        }
        if (mode == SINGLE) {
            // every block has read level L's counters before block 0
            // rewrites them (a late reader would see the rewritten ones)
            if (!cleared) clear_prev(F0, Q0, q0n, nwords, tid, nthreads);
            grid_barrier(bar, gen);
            if (blockIdx.x == 0)
                single_levels<I>(st, sb, L, (long long)qn, F, Q, front, queue, qcap, nwords,
                                 real_ptrs, out_ptr, out_idx, levels, visited, ctrl,
                                 trace, trace_cap, lists, starts, sb_edges, nblocks);
            grid_barrier(bar, gen);
            L = (int)ldcg(ctrl + 16) - 1;  // the level the grid resumes at
            continue;
        }
        if (mode == BOTTOM_UP) {
            // a warp per visited word, a lane per vertex, 4 words at once:
            // each lane scans its 4 vertices' in-neighbours round-robin (4
            // loads in flight) and stops each at its first frontier member;
            // a list still unfinished after BU_STEPS steps is scanned by the
            // whole warp, 32 in-neighbours a step (a hub that has no
            // frontier in-neighbour would hold its warp for its degree)
            for (long long w0 = warp; w0 < nwords; w0 += 4 * nwarps) {
                u32 vw[4];
                I p[4], end[4];
                bool act[4], hit[4];
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    const long long w = w0 + k * nwarps;
                    vw[k] = w < nwords ? ldcg(visited + w) : FULL;
                    const long long u = w * 32 + lane;
                    act[k] = vw[k] != FULL && u < n && !((vw[k] >> lane) & 1u);
                    hit[k] = false;
                    p[k] = end[k] = 0;
                    if (act[k]) {
                        p[k] = __ldg(in_ptr + u);
                        end[k] = __ldg(in_ptr + u + 1);
                    }
                }
                u64 scanned = 0;
#pragma unroll
                for (int k = 0; k < 4; ++k) act[k] = act[k] && p[k] < end[k];
                for (int step = 0; step < BU_STEPS && (act[0] || act[1] || act[2] || act[3]);
                     ++step) {
                    long long v[4];
#pragma unroll
                    for (int k = 0; k < 4; ++k) v[k] = act[k] ? (long long)__ldg(in_idx + p[k]) : 0;
                    u32 fw[4];
#pragma unroll
                    for (int k = 0; k < 4; ++k) fw[k] = act[k] ? ldcg(F + (v[k] >> 5)) : 0u;
#pragma unroll
                    for (int k = 0; k < 4; ++k) {
                        if (!act[k]) continue;
                        ++scanned;
                        if ((fw[k] >> (v[k] & 31)) & 1u) {
                            hit[k] = true;
                            act[k] = false;
                        } else if (++p[k] == end[k]) {
                            act[k] = false;
                        }
                    }
                }
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    u32 longm = __ballot_sync(FULL, act[k]);
                    while (longm) {
                        const int src = __ffs(longm) - 1;
                        longm &= longm - 1;
                        const I q0 = __shfl_sync(FULL, p[k], src);
                        const I qe = __shfl_sync(FULL, end[k], src);
                        bool found_it = false;
                        for (I q = q0 + lane; q - lane < qe; q += 32) {  // warp-uniform
                            bool h = false;
                            if (q < qe) {
                                const long long v = (long long)__ldg(in_idx + q);
                                ++scanned;
                                h = (ldcg(F + (v >> 5)) >> (v & 31)) & 1u;
                            }
                            if (__ballot_sync(FULL, h)) {
                                found_it = true;
                                break;
                            }
                        }
                        if (lane == src) {
                            hit[k] = found_it;
                            act[k] = false;
                        }
                    }
                }
                warp_add(st, 2, scanned);
#pragma unroll
                for (int k = 0; k < 4; ++k) {
                    if (vw[k] == FULL) continue;  // warp-uniform
                    const long long w = w0 + k * nwarps;
                    const long long u = w * 32 + lane;
                    const u32 nb = __ballot_sync(FULL, hit[k]);
                    if (!nb) continue;
                    if (hit[k]) levels[u] = next;
                    if (lane == 0) {
                        visited[w] = vw[k] | nb;
                        F1[w] = nb;
                    }
                    warp_add(st, 0, hit[k] ? 1 : 0);
                    warp_add(st, 1, hit[k] ? (u64)__ldg(outdeg + u) : 0);
                }
            }
        } else {
            // top-down: warps take the queue's VSSs. Each step's loads and
            // atomics for the 4 slots are issued together (4 in flight),
            // and the ranges of the blocks a row may push are read while
            // the atomics run: a grid's levels are latency chains.
            for (long long qi = warp; qi < (long long)qn; qi += nwarps) {
                const int2 e = ldcg(Q + qi);
                const int v = e.x;
                const u32 w = __ldg(masks + 32LL * v + lane);
                const uint4 r = __ldg(rows4 + 32LL * v + lane);
                const u32 alpha = ldcg_byte(F, e.y);
                const u32 hits = slot_hits<MMA>(w, alpha, lane);
                const u32 us[4] = {r.x, r.y, r.z, r.w};
                u32 vis[4];
#pragma unroll
                for (int s = 0; s < 4; ++s)
                    vis[s] = ((hits >> s) & 1u) ? ldcg(visited + (us[s] >> 5)) : FULL;
                u32 cand = 0;
#pragma unroll
                for (int s = 0; s < 4; ++s)
                    if (!((vis[s] >> (us[s] & 31)) & 1u)) cand |= 1u << s;
                u64 nfound = 0, nd = 0;
                int lo[4] = {0, 0, 0, 0}, cnt[4] = {0, 0, 0, 0};
                if (mode == LAZY) {
#pragma unroll
                    for (int s = 0; s < 4; ++s)
                        if ((cand >> s) & 1u) atomicOr(F1 + (us[s] >> 5), 1u << (us[s] & 31));
                } else {
                    u32 old[4];
#pragma unroll
                    for (int s = 0; s < 4; ++s) {
                        old[s] = FULL;
                        if ((cand >> s) & 1u) {
                            old[s] = atomicOr(F1 + (us[s] >> 5), 1u << (us[s] & 31));
                            lo[s] = __ldg(real_ptrs + (us[s] >> 3));
                            cnt[s] = __ldg(real_ptrs + (us[s] >> 3) + 1);
                        }
                    }
#pragma unroll
                    for (int s = 0; s < 4; ++s) {
                        const u32 u = us[s], bit = 1u << (u & 31);
                        if (old[s] & bit) {  // not candidate, or claimed by another
                            cnt[s] = 0;
                            continue;
                        }
                        atomicOr(visited + (u >> 5), bit);  // read from the next level on
                        levels[u] = next;
                        ++nfound;
                        nd += (u64)__ldg(outdeg + u);
                        // the first row of its block in F_{L+1} pushes the block
                        cnt[s] = ((old[s] >> (u & 24)) & 0xFFu) == 0 ? cnt[s] - lo[s] : 0;
                    }
                    warp_add(st, 0, nfound);
                    warp_add(st, 1, nd);
#pragma unroll
                    for (int s = 0; s < 4; ++s) {
                        if (__any_sync(FULL, cnt[s] > 0))
                            warp_push_range(st, (int)(us[s] >> 3), lo[s], cnt[s], Q1,
                                            qlen(ctrl, next));
                    }
                }
            }
        }
        if (!cleared) clear_prev(F0, Q0, q0n, nwords, tid, nthreads);
        if (mode == LAZY) {
            grid_barrier(bar, gen);
            // sweep: the new bits of every word (a lane per word, the warp
            // on 32 consecutive words), levels, counters
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
                    warp_add(st, 0, nfound);
                    warp_add(st, 1, nd);
                }
            }
        }
        flush(st, Q1, qlen(ctrl, next), ctrl, next);
        grid_barrier(bar, gen);
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

template __global__ void bfs_bvss<true, int>(const int*, const uint4*,
    const u32*, const int*, const int*, const int*, const int*, const int*, int*,
    u32*, u32*, int2*, u64*, u32*, long long*, u32*, long long*, long long, long long, long long,
    long long, u64, int, long long, long long, long long);
template __global__ void bfs_bvss<false, int>(const int*, const uint4*,
    const u32*, const int*, const int*, const int*, const int*, const int*, int*,
    u32*, u32*, int2*, u64*, u32*, long long*, u32*, long long*, long long, long long, long long,
    long long, u64, int, long long, long long, long long);
template __global__ void bfs_bvss<true, long long>(const int*, const uint4*,
    const u32*, const long long*, const long long*, const long long*, const long long*, const int*, int*,
    u32*, u32*, int2*, u64*, u32*, long long*, u32*, long long*, long long, long long, long long,
    long long, u64, int, long long, long long, long long);
template __global__ void bfs_bvss<false, long long>(const int*, const uint4*,
    const u32*, const long long*, const long long*, const long long*, const long long*, const int*, int*,
    u32*, u32*, int2*, u64*, u32*, long long*, u32*, long long*, long long, long long, long long,
    long long, u64, int, long long, long long, long long);
template __global__ void parents_from_levels<int>(const int*, const int*, const int*,
                                                  long long*, long long, long long);
template __global__ void parents_from_levels<long long>(const long long*, const long long*,
                                                        const int*, long long*, long long,
                                                        long long);
