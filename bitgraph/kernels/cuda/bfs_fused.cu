// BFS in one persistent kernel (launcher: bfs_fused.py): Blest's on BVSS,
// or BFS-4K's / XBFS's over CSR.
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
// - bottom-up (direction optimisation): a warp per group of 16 visited
//   words; each unvisited vertex scans its in-neighbours in the CSR of A'
//   and stops at the first one in F_L, lanes taking the group's vertices
//   as their slots free up (bottom_up_level). The warp owns the words.
//   After a bottom-up level the next stays bottom-up while its frontier is
//   large (bu_keep); vertices with no in-edges start visited (dead). It
//   also counts the vertices it leaves unvisited: none left ends the
//   traversal (the next level could find nothing).
// - single-block (BFS-4K's switch): small levels run in block 0 alone over
//   A's CSR with a vertex list, block barriers only (see single_levels).
//   A source of few out-edges starts there straight after the scratch's
//   initialisation: block 0 takes it without a queue.
//
// With FMT = FMT_CSR, the same kernel runs without the BVSS (methods push and
// direction): queue entries are frontier vertices with their out-degree
// (hubs split into GIANT-edge chunks), and a top-down level expands them
// BFS-4K's way over A's CSR, scan-free (eager: claim and enqueue) or
// single-scan (lazy: mark, then the sweep) as XBFS chooses; bottom-up and
// single-block levels are the BVSS kernel's.
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

#include "warp.cuh"
#include "grid.cuh"
#include "bvss_step.cuh"
// THREADS, SB_FRONTIER, LIST_CAP, GIANT, FMT_* (generated: constants.py)
#include "bfs_fused_constants.cuh"

typedef unsigned int u32;
typedef unsigned long long u64;

#define FULL 0xFFFFFFFFu

namespace bfsb {

enum Mode { EAGER = 0, LAZY = 1, BOTTOM_UP = 2 };

// ctrl (u64): qlen[4], found[4], degsum[4], checked[4], the level the
// single-block levels leave at, the length of a queue rebuilt from F_L,
// left[4] (vertices a bottom-up level left unvisited); each on its own
// 128-byte line (CT), so that the blocks' atomics on different counters do
// not queue on one line
#define CT(k) ((k) * 16)
#define CTRL_WORDS CT(22)
__device__ __forceinline__ u64* qlen(u64* c, int l) { return c + CT(l & 3); }
__device__ __forceinline__ u64* found(u64* c, int l) { return c + CT(4 + (l & 3)); }
__device__ __forceinline__ u64* degsum(u64* c, int l) { return c + CT(8 + (l & 3)); }
__device__ __forceinline__ u64* checked(u64* c, int l) { return c + CT(12 + (l & 3)); }
__device__ __forceinline__ u64* left(u64* c, int l) { return c + CT(18 + (l & 3)); }

using bg::grid_barrier;
using bg::globaltimer;
using bg::ld_acquire;


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
    u64 cnt[4];  // found, degsum, checked, left
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
    const int x = bg::warp_inclusive_scan(cnt);
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
    __shared__ u32 count;
    __syncthreads();
    if (threadIdx.x == 0) {
        const u32 n = min(st.qn, (u32)STAGE);
        count = n;
        base = n ? atomicAdd(len, (u64)n) : 0;
        if (st.cnt[0]) atomicAdd(found(ctrl, next), st.cnt[0]);
        if (st.cnt[1]) atomicAdd(degsum(ctrl, next), st.cnt[1]);
        if (st.cnt[2]) atomicAdd(checked(ctrl, next), st.cnt[2]);
        if (st.cnt[3]) atomicAdd(left(ctrl, next), st.cnt[3]);
        // reset here: the stage is next written after the grid barrier
        // that follows every flush (its __syncthreads orders the copy)
        st.qn = 0;
        st.cnt[0] = st.cnt[1] = st.cnt[2] = st.cnt[3] = 0;
    }
    __syncthreads();
    const u32 n = count;
    for (u32 i = threadIdx.x; i < n; i += blockDim.x) q[base + i] = st.q[i];
}

using bg::slot_hits;  // bvss_step.cuh



// Levels and out-degrees of the new vertices d of the W words held by the
// warp's first W lanes (lane i: vertices v0 + 32 i ..), a word at a time,
// a lane per vertex: coalesced stores and loads (a lane per word would write
// a scattered sector per vertex, and the big levels that find most vertices
// are bound by their sectors). A fixed, unrolled loop, not one over the
// non-zero words: its out-degree loads are in flight together (skipping
// the empty words would make each load wait for the one before). Returns the
// lane's part of the out-degree sum.
template <int W>
__device__ __forceinline__ u64 settle_words(int* __restrict__ levels,
                                            const int* __restrict__ outdeg, long long v0, u32 d,
                                            int next) {
    const int lane = threadIdx.x & 31;
    u64 nd = 0;
#pragma unroll 4
    for (int j = 0; j < W; ++j) {
        const u32 x = __shfl_sync(FULL, d, j);
        if ((x >> lane) & 1u) {
            const long long u = v0 + 32LL * j + lane;
            levels[u] = next;
            nd += (u64)__ldg(outdeg + u);
        }
    }
    return nd;
}

// Bottom-up level with refilled slots: a warp drains BU_GROUP visited words
// (512 vertices) at a time. Their unvisited vertices go to a list in shared
// memory; each lane holds up to BU_SLOTS of them and checks one in-neighbour
// of each a step (2 loads: the edge, then its frontier word), and a slot
// whose vertex is done takes the list's next one at once. So a warp's lanes
// are not held by the slowest of a fixed set of vertices (lock-step rounds
// would wait for the longest in-list among 128 vertices). Once the list is
// drained, a vertex still unresolved after BU_STEPS in-neighbours goes to
// the warp's long list, which the whole warp scans 32 in-neighbours a
// step. The warp owns the group's words: new bits gather in shared memory
// and go to visited and F_{L+1} by plain stores. The lists (32 warps x
// BU_GROUP * 32 shorts = 32 KiB) live in the single-block levels' dynamic
// shared memory (bfs_fused.py _smem: at least 64 KiB).
#define BU_STEPS 8  // in-neighbours a lane scans alone before its warp helps
#define BU_SLOTS 4
#define BU_GROUP 16
#define BU_LONG 16
template <typename I>
__device__ __forceinline__ void bottom_up_level(
    Stage& st, unsigned char* dyn, u32* visited, u32* F1, const u32* __restrict__ F,
    const I* __restrict__ in_ptr, const I* __restrict__ in_idx,
    const int* __restrict__ outdeg, int* __restrict__ levels, int next, long long n,
    long long nwords, long long warp, long long nwarps)
{
    __shared__ u32 fb_all[32][BU_GROUP];
    __shared__ unsigned short lv_all[32][BU_LONG];
    __shared__ long long lp_all[32][BU_LONG];
    const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
    const u32 lt = (1u << lane) - 1;
    u32* fb = fb_all[wib];
    unsigned short* lv = lv_all[wib];
    long long* lp = lp_all[wib];
    // the group's list: the single-block levels' lists, unused in a grid level
    unsigned short* pool = reinterpret_cast<unsigned short*>(dyn) + wib * (BU_GROUP * 32);
    // the lane's words' new vertices (low 32 bits) and those left unvisited
    // (high 32): one accumulator, since a second one spills in the hot loop
    u64 tally = 0, nd = 0, scanned = 0;
    for (long long g = warp * BU_GROUP; g < nwords; g += nwarps * BU_GROUP) {  // warp-uniform
        const long long w = g + lane;
        const bool own = lane < BU_GROUP && w < nwords;
        const u32 vw = own ? ldcg(visited + w) : FULL;
        u32 pend = ~vw;
        if (own && w == nwords - 1 && (n & 31)) pend &= (1u << (n & 31)) - 1u;
        const int cnt = __popc(pend);
        const int incl = bg::warp_inclusive_scan(cnt);
        const int total = __shfl_sync(FULL, incl, 31);
        if (total == 0) continue;
        if (lane < BU_GROUP) fb[lane] = 0;
        int at = incl - cnt;
        for (u32 x = pend; x; x &= x - 1)
            pool[at++] = (unsigned short)(lane * 32 + __ffs(x) - 1);
        __syncwarp();
        const long long base = g * 32;
        int taken = 0, nlong = 0;
        int off[BU_SLOTS], steps[BU_SLOTS];
        I p[BU_SLOTS], e[BU_SLOTS];
        bool act[BU_SLOTS], ready[BU_SLOTS];
#pragma unroll
        for (int k = 0; k < BU_SLOTS; ++k) {
            off[k] = steps[k] = 0;
            p[k] = e[k] = 0;
            act[k] = ready[k] = false;
        }
        for (;;) {
            long long v[BU_SLOTS];
#pragma unroll
            for (int k = 0; k < BU_SLOTS; ++k) v[k] = ready[k] ? (long long)__ldg(in_idx + p[k]) : 0;
            if (taken < total) {  // warp-uniform: free slots take the list's next vertices
#pragma unroll
                for (int k = 0; k < BU_SLOTS; ++k) {
                    const u32 fm = __ballot_sync(FULL, !act[k]);
                    const int idx = taken + __popc(fm & lt);
                    if (!act[k] && idx < total) {
                        off[k] = pool[idx];
                        p[k] = __ldg(in_ptr + base + off[k]);
                        e[k] = __ldg(in_ptr + base + off[k] + 1);
                        steps[k] = 0;
                        act[k] = true;
                    }
                    taken = min(total, taken + __popc(fm));
                }
            }
            u32 fw[BU_SLOTS];
#pragma unroll
            for (int k = 0; k < BU_SLOTS; ++k) fw[k] = ready[k] ? ldcg(F + (v[k] >> 5)) : 0u;
#pragma unroll
            for (int k = 0; k < BU_SLOTS; ++k) {
                if (!ready[k]) continue;
                ++scanned;
                if ((fw[k] >> (v[k] & 31)) & 1u) {
                    atomicOr(fb + (off[k] >> 5), 1u << (off[k] & 31));
                    act[k] = false;
                } else if (++p[k] == e[k]) {
                    act[k] = false;
                } else {
                    ++steps[k];
                }
            }
#pragma unroll
            for (int k = 0; k < BU_SLOTS; ++k) {
                // only once the list is drained: until then a slow vertex
                // holds one slot of 128, not the warp (on urand a vertex past
                // BU_STEPS is no longer than the others: scanning it alone
                // serialises ~20 a warp)
                const bool lng = taken >= total && ready[k] && act[k] && steps[k] >= BU_STEPS;
                const u32 lm = __ballot_sync(FULL, lng);
                if (lm && nlong < BU_LONG) {  // warp-uniform
                    const int slot = nlong + __popc(lm & lt);
                    if (lng && slot < BU_LONG) {
                        lv[slot] = (unsigned short)off[k];
                        lp[slot] = (long long)p[k];
                        act[k] = false;
                    }
                    nlong = min(BU_LONG, nlong + __popc(lm));
                }
                if (act[k] && !ready[k] && p[k] >= e[k]) act[k] = false;  // no in-edges
                ready[k] = act[k];
            }
            bool any = false;
#pragma unroll
            for (int k = 0; k < BU_SLOTS; ++k) any |= act[k];
            if (!__any_sync(FULL, any) && taken >= total) break;
        }
        __syncwarp();
        for (int i = 0; i < nlong; ++i) {  // the long list, a warp per vertex
            const int o = lv[i];
            const I q0 = (I)lp[i], qe = __ldg(in_ptr + base + o + 1);
            bool hit = false;
            for (I q = q0 + lane; q - lane < qe; q += 32) {  // warp-uniform
                bool h = false;
                if (q < qe) {
                    const long long u = (long long)__ldg(in_idx + q);
                    ++scanned;
                    h = (ldcg(F + (u >> 5)) >> (u & 31)) & 1u;
                }
                if (__ballot_sync(FULL, h)) {
                    hit = true;
                    break;
                }
            }
            if (hit && lane == 0) atomicOr(fb + (o >> 5), 1u << (o & 31));
        }
        __syncwarp();
        // the group's new bits into visited and F_{L+1}, then their levels
        // and out-degrees (written at discovery they would be 2 scattered
        // sectors per vertex: urand's big level is bound by its sectors)
        const u32 nb = own ? fb[lane] : 0u;
        if (nb) {
            visited[w] = vw | nb;
            F1[w] = nb;
        }
        tally += (u64)__popc(nb) | ((u64)(cnt - __popc(nb)) << 32);
        nd += settle_words<BU_GROUP>(levels, outdeg, base, nb, next);
        __syncwarp();  // the next group rewrites fb and the list
    }
    warp_add(st, 0, tally & FULL);
    warp_add(st, 1, nd);
    warp_add(st, 2, scanned);
    warp_add(st, 3, tally >> 32);
}

}  // namespace bfsb

using namespace bfsb;

// Single-block levels (BFS-4K's switch): while the frontier is small, block
// 0 alone runs top-down levels over the CSR of A (out-edges) with a vertex
// list, block barriers only; the other blocks wait at the grid barrier.
// A grid level costs ~8 us of barrier and counter round trips whatever its
// work: a road network's thousands of tiny levels would pay it each time.
// SB_FRONTIER: frontier vertices a single-block level takes; LIST_CAP: its
// vertex list's capacity (>= the edge limit sb_edges); both generated
#define SINGLE 3
#define SB_ILP 4  // edges in flight per thread (more spill registers at 64 a thread)
#define HEAVY_BIN 256  // a block's bin of high-degree frontier vertices (CSR top-down)
#define HEAVY_DEG 512  // out-degree above which a frontier vertex goes to the bin
#define LEAN_EDGES 65536  // CSR top-down levels scanning at most this many edges claim directly

// One side (current or next frontier) of the single-block lists in dynamic
// shared memory: each vertex's out-degree (clamped at sb_edges + 1; made
// its exclusive prefix in place) and row start, written when the vertex is
// found: a level's chain is then the edge and the visited atomic, 2 memory
// round trips. The vertex ids themselves go to global memory (read once,
// when the grid takes over).
template <typename I>
struct SbSide {
    int* pre;  // SB_FRONTIER + 1
    I* start;  // SB_FRONTIER
};

template <typename I>
__device__ __forceinline__ SbSide<I> sb_side(unsigned char* dyn, int k) {
    const size_t side = ((size_t)SB_FRONTIER * sizeof(I) + (SB_FRONTIER + 1) * 4 + 15) & ~(size_t)15;
    SbSide<I> r;
    r.start = reinterpret_cast<I*>(dyn + k * side);
    r.pre = reinterpret_cast<int*>(dyn + k * side + (size_t)SB_FRONTIER * sizeof(I));
    return r;
}

struct SbShared {
    int warp_tot[32];
    int warp_max[32];
    u32 nn;  // discoveries of the level
};

// In-place exclusive prefix sum of pre[0..f) (f <= SB_FRONTIER), pre[f] =
// the total; returns the largest entry (every thread).
__device__ __forceinline__ int block_scan(int* pre, SbShared& sb, int f) {
    const int t = threadIdx.x, lane = t & 31, wid = t >> 5;
    const int per = (f + blockDim.x - 1) / blockDim.x;
    const int lo = min(f, t * per), hi = min(f, lo + per);
    int local = 0, mx = 0;
    for (int i = lo; i < hi; ++i) {
        local += pre[i];
        mx = max(mx, pre[i]);
    }
    const int x = bg::warp_inclusive_scan(local);
    mx = __reduce_max_sync(FULL, mx);
    if (lane == 31) sb.warp_tot[wid] = x;
    if (lane == 0) sb.warp_max[wid] = mx;
    __syncthreads();
    if (wid == 0) {
        const int nw = blockDim.x >> 5;
        const int y = bg::warp_inclusive_scan(lane < nw ? sb.warp_tot[lane] : 0);
        const int m = __reduce_max_sync(FULL, lane < nw ? sb.warp_max[lane] : 0);
        if (lane < nw) sb.warp_tot[lane] = y;
        if (lane == 0) sb.warp_max[0] = m;
    }
    __syncthreads();
    int run = x - local + (wid ? sb.warp_tot[wid - 1] : 0);
    for (int i = lo; i < hi; ++i) {
        const int d = pre[i];
        pre[i] = run;
        run += d;
    }
    if (t == blockDim.x - 1) pre[f] = run;
    mx = sb.warp_max[0];
    __syncthreads();
    return mx;
}

// A CSR queue entry: (vertex, out-degree), or for a vertex of more than
// GIANT out-edges one entry per GIANT-edge chunk, (-(k + 1), vertex) for
// chunk k, so that a hub's edges spread over many blocks' bins (BFS-4K
// gives hubs extra blocks). Entries name each vertex once by x >= 0 or by
// chunk 0 (x == -1).
__device__ __forceinline__ int entry_vertex(int2 e) { return e.x >= 0 ? e.x : e.y; }

// Clear F_{L-1} (buffer F0): the bytes of the blocks its queue Q0 (q0n
// entries) holds (the words of its vertices for a CSR queue), from the
// last threads (the first take the level's work), or every word when no
// queue was built.
__device__ __forceinline__ void clear_prev(u32* F0, const int2* Q0, u64 q0n, long long nwords,
                                           long long tid, long long nthreads, bool csr) {
    if (q0n == NOQUEUE) {
        for (long long i = tid; i < nwords; i += nthreads) F0[i] = 0;
        return;
    }
    unsigned char* bytes = reinterpret_cast<unsigned char*>(F0);
    for (long long i = nthreads - 1 - tid; i < (long long)q0n; i += nthreads) {
        const int2 e = ldcg(Q0 + i);
        if (csr) F0[entry_vertex(e) >> 5] = 0;
        else bytes[e.y] = 0;
    }
}

// Append one entry per lane (where ok) to the block's stage (the global
// queue when it is full). All lanes call.
__device__ __forceinline__ void warp_push_one(Stage& st, bool ok, int2 e,
                                              int2* __restrict__ q, u64* len) {
    const int lane = threadIdx.x & 31;
    const u32 m = __ballot_sync(FULL, ok);
    if (!m) return;
    const int total = __popc(m);
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
    const int rel = __popc(m & ((1u << lane) - 1));
    if (ok) {
        if (rel < local) st.q[pos + rel] = e;
        else q[gbase + (rel - local)] = e;
    }
}

__device__ __forceinline__ void warp_push_vertex(Stage& st, bool ok, int v, int d,
                                                 int2* __restrict__ q, u64* len) {
    const bool giant = ok && d > GIANT;
    warp_push_one(st, ok && !giant, make_int2(v, d), q, len);
    if (__any_sync(FULL, giant)) {
        const int nch = giant ? (d + GIANT - 1) / GIANT : 0;
        warp_push_range(st, v, -nch, nch, q, len);  // entries (-nch .. -1, v)
    }
}

// Claim the targets of v not set in vis (FULL: no target) with a
// returning atomicOr on `claim`; the winners set their bit in `mark`, get
// their level and go onto Q_{L+1} as (vertex, out-degree).
__device__ __forceinline__ void claim_targets(const u32 (&v)[SB_ILP], const u32 (&vis)[SB_ILP],
                                              u32* claim, u32* mark, Stage& st,
                                              int* __restrict__ levels,
                                              const int* __restrict__ outdeg, int next,
                                              int2* __restrict__ Q1, u64* len) {
    u32 old[SB_ILP];
    int d[SB_ILP];
#pragma unroll
    for (int k = 0; k < SB_ILP; ++k) {
        old[k] = FULL;
        d[k] = 0;
        if (!((vis[k] >> (v[k] & 31)) & 1u)) {
            old[k] = atomicOr(claim + (v[k] >> 5), 1u << (v[k] & 31));
            d[k] = __ldg(outdeg + v[k]);
        }
    }
    u64 nfound = 0, nd = 0;
#pragma unroll
    for (int k = 0; k < SB_ILP; ++k) {
        const bool fresh = !((old[k] >> (v[k] & 31)) & 1u);
        if (fresh) {
            atomicOr(mark + (v[k] >> 5), 1u << (v[k] & 31));
            levels[v[k]] = next;
            ++nfound;
            nd += (u64)d[k];
        }
        warp_push_vertex(st, fresh, (int)v[k], d[k], Q1, len);
    }
    warp_add(st, 0, nfound);
    warp_add(st, 1, nd);
}

// The discovery step of a CSR top-down level (grid-wide): SB_ILP edge
// targets per lane (FULL: none). Scan-free (XBFS): an unvisited target is
// claimed by a returning atomicOr (exact: one winner), gets its level and
// visited bit, and goes onto Q_{L+1} as (vertex, out-degree). Single-scan
// (lazy): a non-returning atomicOr on F_{L+1} only; the level's sweep does
// the rest.
__device__ __forceinline__ void discover(const u32 (&v)[SB_ILP], Stage& st, u32* F1,
                                         u32* visited, int* __restrict__ levels,
                                         const int* __restrict__ outdeg, int next,
                                         int2* __restrict__ Q1, u64* len, bool lazy,
                                         bool lean) {
    u32 vis[SB_ILP];
    if (lean && !lazy) {
        // a small level is a latency chain: claim on the visited bitmap
        // directly (one round trip, not a test and then a claim)
#pragma unroll
        for (int k = 0; k < SB_ILP; ++k) vis[k] = v[k] == FULL ? FULL : 0u;
        claim_targets(v, vis, visited, F1, st, levels, outdeg, next, Q1, len);
        return;
    }
    // a large one: test visited first (no atomic for the visited targets)
#pragma unroll
    for (int k = 0; k < SB_ILP; ++k) vis[k] = v[k] != FULL ? ldcg(visited + (v[k] >> 5)) : FULL;
    if (lazy) {
#pragma unroll
        for (int k = 0; k < SB_ILP; ++k)
            if (!((vis[k] >> (v[k] & 31)) & 1u)) atomicOr(F1 + (v[k] >> 5), 1u << (v[k] & 31));
        return;
    }
    claim_targets(v, vis, F1, visited, st, levels, outdeg, next, Q1, len);
}

// Block 0 runs levels L, L+1, ... alone and leaves the grid at level R:
// F_R's bits, Q_R and R's counters in place, every other frontier buffer
// clean, ctrl[CT(16)] = R. Entered with F_L and Q_L (qn entries: VSSs, or
// vertices when csr) from a grid level (or the source), F_{L-1} already
// cleared. A level expands its frontier a vertex per group of vw threads
// (vw: the least power of two with dmax <= vw * SB_ILP, dmax the largest
// out-degree of the frontier; every edge of the level in flight at once)
// or, when dmax is larger than a warp takes so, an edge per thread found
// by a binary search of the degrees' prefix sum (skewed frontiers).
template <typename I>
__device__ void single_levels(Stage& st, SbShared& sb, unsigned char* dyn, int L, long long qn,
                              const u32* F, const int2* Q, u32* front, int2* queue,
                              long long qcap, long long nwords, const int* __restrict__ real_ptrs,
                              const I* __restrict__ out_ptr,
                              const I* __restrict__ out_idx, const int* __restrict__ outdeg,
                              int* __restrict__ levels,
                              u32* visited, u64* ctrl, long long* trace, long long trace_cap,
                              u32* lists, long long sb_edges, long long nblocks, bool csr,
                              bool seeded = false) {
    const int t = threadIdx.x, nt = blockDim.x, lane = t & 31;
    u32 *cur = lists, *nxt = lists + LIST_CAP;  // vertex ids (global)
    SbSide<I> cs = sb_side<I>(dyn, 0), ns = sb_side<I>(dyn, 1);
    // the frontier list from Q_L (CSR: its vertices; BVSS: F_L's bytes of
    // the queued blocks, each block once: at its first VSS); then F_L is
    // cleared (F_{L-1} already is)
    if (t == 0) sb.nn = 0;
    if (seeded && t == 0) {
        // level L's frontier is the source qn alone (no Q_L, no F_L bits)
        const u32 u = (u32)qn;
        const I a = __ldg(out_ptr + u), b = __ldg(out_ptr + u + 1);
        levels[u] = L;
        atomicOr(visited + (u >> 5), 1u << (u & 31));
        cur[0] = u;
        cs.pre[0] = (int)min((long long)(b - a), sb_edges + 1);
        cs.start[0] = a;
        sb.nn = 1;
    }
    __syncthreads();
    for (long long i = t; i < (seeded ? 0 : qn); i += nt) {
        const int2 e = ldcg(Q + i);
        u32 byte;
        int blk;
        if (csr) {
            if (e.x < -1) continue;  // a hub's later chunks: chunk 0 lists it
            const int u = entry_vertex(e);
            byte = 1u << (u & 7);
            blk = u >> 3;
        } else {
            if (e.x != __ldg(real_ptrs + e.y)) continue;
            blk = e.y;
            byte = ldcg_byte(F, blk);
        }
        for (; byte; byte &= byte - 1) {
            const u32 u = (u32)blk * 8 + __ffs(byte) - 1;
            const I a = __ldg(out_ptr + u), b = __ldg(out_ptr + u + 1);
            const u32 pos = atomicAdd(&sb.nn, 1u);
            cur[pos] = u;
            if (pos < SB_FRONTIER) {
                cs.pre[pos] = (int)min((long long)(b - a), sb_edges + 1);
                cs.start[pos] = a;
            }
        }
    }
    __syncthreads();
    int f = (int)sb.nn;
    {
        unsigned char* bytes = reinterpret_cast<unsigned char*>(const_cast<u32*>(F));
        for (long long i = t; i < (seeded ? 0 : qn); i += nt) {
            const int2 e = ldcg(Q + i);
            if (csr) const_cast<u32*>(F)[entry_vertex(e) >> 5] = 0;
            else bytes[e.y] = 0;
        }
    }
    int lvl = L;
    for (;;) {
        bool fits = f <= SB_FRONTIER && f > 0;
        long long E = 0;
        int dmax = 0;
        if (fits) {
            dmax = block_scan(cs.pre, sb, f);
            E = cs.pre[f];
            fits = E <= sb_edges;
        }
        if (!fits) break;
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
        const int next = lvl + 1;
        int vw = 0;  // 0: the edge-per-thread path
        if (dmax <= 32 * SB_ILP) {
            vw = 1;
            while (vw * SB_ILP < dmax) vw <<= 1;
        }
        const int groups = vw ? nt / vw : 0;
        const bool lean = vw ? (f <= groups) : (E <= (long long)SB_ILP * nt);  // one round
        for (long long r = 0;; ++r) {  // block-uniform rounds
            u32 v[SB_ILP];
            if (vw) {
                if (r * groups >= f) break;
                const int i = (int)(r * groups) + t / vw, j = t % vw;
                const int deg = i < f ? cs.pre[i + 1] - cs.pre[i] : 0;
                const I s0 = i < f ? cs.start[i] : (I)0;
#pragma unroll
                for (int k = 0; k < SB_ILP; ++k) {
                    const int e = j + k * vw;
                    v[k] = e < deg ? (u32)__ldg(out_idx + s0 + e) : FULL;
                }
            } else {
                const long long e0 = r * SB_ILP * nt + t;
                if (e0 - t >= E) break;
#pragma unroll
                for (int k = 0; k < SB_ILP; ++k) {
                    const long long e = e0 + (long long)k * nt;
                    v[k] = FULL;
                    if (e < E) {
                        int lo = 0, hi = f - 1;  // last i with pre[i] <= e
                        while (lo < hi) {
                            const int mid = (lo + hi + 1) >> 1;
                            if (cs.pre[mid] <= e) lo = mid; else hi = mid - 1;
                        }
                        v[k] = (u32)__ldg(out_idx + cs.start[lo] + (e - cs.pre[lo]));
                    }
                }
            }
            // the visited test, the test-and-set for the unvisited only,
            // the row pointers for the vertices added only: one SM's
            // requests to L2 bound these levels, not their latency
            // (a level of one round is a latency chain: then the claim
            // directly, with the row pointers in the same round trip)
            u32 old[SB_ILP];
            I a[SB_ILP], b[SB_ILP];
            if (lean) {
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
            } else {
#pragma unroll
                for (int k = 0; k < SB_ILP; ++k)
                    old[k] = v[k] != FULL ? ldcg(visited + (v[k] >> 5)) : FULL;
#pragma unroll
                for (int k = 0; k < SB_ILP; ++k)
                    if (!((old[k] >> (v[k] & 31)) & 1u))
                        old[k] = atomicOr(visited + (v[k] >> 5), 1u << (v[k] & 31));
#pragma unroll
                for (int k = 0; k < SB_ILP; ++k) {
                    a[k] = b[k] = 0;
                    if (!((old[k] >> (v[k] & 31)) & 1u)) {
                        a[k] = __ldg(out_ptr + v[k]);
                        b[k] = __ldg(out_ptr + v[k] + 1);
                    }
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
                    if (pos < SB_FRONTIER) {
                        ns.pre[pos] = (int)min((long long)(b[k] - a[k]), sb_edges + 1);
                        ns.start[pos] = a[k];
                    }
                }
            }
        }
        __syncthreads();
        f = (int)sb.nn;
        u32* tmp = cur; cur = nxt; nxt = tmp;
        SbSide<I> tms = cs; cs = ns; ns = tms;
        lvl = next;
    }
    // leave at level lvl with frontier cur[0..f): bits into F_lvl, Q_lvl
    // (its blocks' VSSs, or its vertices), lvl's counters; nothing to clear
    // at lvl + 1
    u32* Fr = front + (lvl % 3) * nwords;
    int2* Qr = queue + (lvl % 3) * qcap;
    __syncthreads();
    if (t < 4) {
        *qlen(ctrl, lvl + t) = 0;  // of lvl, lvl+1, lvl+2, lvl-1
        *found(ctrl, lvl + t) = 0;
        *degsum(ctrl, lvl + t) = 0;
        *checked(ctrl, lvl + t) = 0;
        *left(ctrl, lvl + t) = 0;
    }
    __syncthreads();
    u64 dsum = 0;
    for (int base = t - lane; base < f; base += nt) {  // warp-uniform
        const int i = base + lane;
        long long push = -1;
        int d = 0;
        u32 u = 0;
        if (i < f) {
            u = cur[i];
            d = __ldg(outdeg + u);
            dsum += (u64)d;
            const u32 old = atomicOr(Fr + (u >> 5), 1u << (u & 31));
            if (((old >> (u & 24)) & 0xFFu) == 0 && (long long)(u >> 3) < nblocks) push = u >> 3;
        }
        if (csr) warp_push_vertex(st, i < f, (int)u, d, Qr, qlen(ctrl, lvl));
        else if (__any_sync(FULL, push >= 0)) warp_push(st, push, real_ptrs, Qr, qlen(ctrl, lvl));
    }
    warp_add(st, 1, dsum);
    if (t == 0) {
        *found(ctrl, lvl) = (u64)f;
        ctrl[CT(16)] = (u64)lvl;
    }
    flush(st, Qr, qlen(ctrl, lvl), ctrl, lvl);
}

// One BFS from `source`. Scratch the kernel initialises itself: levels[n]
// (every entry written, `unreached` where not reached: -1 for callers that
// read the levels alone, 0 for a result Vector whose structure is visited),
// visited[nwords] (at the end the reached vertices' bits), front[3 * nwords],
// queue[3 * qcap], ctrl[CTRL_WORDS]; bar[2 + blocks / 16] zero before the first
// launch (each barrier leaves it reusable). trace[trace_cap * 8]: per level
// mode, queue length, frontier size, in-edges the level's bottom-up
// scanned, start time (ns); the row after the last level has frontier 0;
// row 0 also holds the kernel's entry (slot 5) and exit (slot 6) times.
// alpha_m: a level runs bottom-up when its frontier's out-degree sum
// exceeds it; bottom_up: 0 never, 1 by alpha_m (or bu_keep), 2 always;
// lazy_min: levels whose queue holds at least this many VSSs use the lazy
// update (-1 never); scan_found (CSR, with scan_min): see the mode rule;
// scan_min (CSR): top-down levels scanning at least this
// many out-edges run single-scan (-1 never). bu_keep (Beamer's beta rule; -1 off): after a
// bottom-up level the next stays bottom-up while its frontier has more than
// bu_keep vertices (its top-down level would expand that many vertices,
// while the bottom-up one scans only the few still unvisited). dead (or
// null): the bits of the vertices with no in-edges, which no level can
// reach; they start visited, so that bottom-up levels skip their words
// (R-MAT's ~40% isolated vertices), and leave the bitmap at the end.
template <int FMT, typename I>
__global__ void __launch_bounds__(THREADS) bfs_fused(
    const int* __restrict__ real_ptrs,
    const uint4* __restrict__ rows4, const u32* __restrict__ masks,
    const I* __restrict__ in_ptr, const I* __restrict__ in_idx,
    const I* __restrict__ out_ptr, const I* __restrict__ out_idx,
    const int* __restrict__ outdeg, int* __restrict__ levels, u32* visited, u32* front,
    int2* queue, u64* ctrl, u32* bar, long long* trace, u32* lists,
    long long n, long long nblocks, long long qcap, long long source, u64 alpha_m,
    int bottom_up, long long lazy_min, long long scan_min, long long scan_found,
    long long sb_edges,
    long long trace_cap,
    const u32* __restrict__ dead, long long bu_keep, int unreached)
{
    using namespace bfsb;
    constexpr bool csr = FMT == FMT_CSR;  // BFS-4K's top-down levels over A's CSR
    constexpr bool MMA = FMT == FMT_BVSS_MMA;  // Blest's step on tensor cores
    __shared__ Stage st;
    __shared__ SbShared sb;
    __shared__ long long hv_start[HEAVY_BIN];
    __shared__ int hv_deg[HEAVY_BIN];
    __shared__ u32 hv_n;
    extern __shared__ __align__(16) unsigned char dyn[];
    const int lane = threadIdx.x & 31;
    const long long nwords = (n + 31) >> 5;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nthreads = (long long)gridDim.x * blockDim.x;

    u32 gen = 0;  // barriers passed (thread 0 of each block)
    // level 0: the source alone
    if (tid == 0 && trace_cap > 0) trace[5] = (long long)globaltimer();
    if (threadIdx.x == 0) {
        gen = ld_acquire(bar + 1);
        st.qn = 0;
        st.cnt[0] = st.cnt[1] = st.cnt[2] = st.cnt[3] = 0;
        hv_n = 0;
    }
    for (long long i = tid; i < n; i += nthreads) levels[i] = unreached;
    for (long long i = tid; i < nwords; i += nthreads) visited[i] = dead ? __ldg(dead + i) : 0u;
    for (long long i = tid; i < 3 * nwords; i += nthreads) front[i] = 0;
    if (tid < 22) ctrl[CT(tid)] = 0;
    grid_barrier(bar, gen);
    // a source whose out-edges fit a single-block level (level 0's mode
    // below would be SINGLE): block 0 starts from it at once, without F_0,
    // Q_0 and the two grid barriers that publish them (H100, urand-21: level
    // 0 5.1 us against 10.3-11.4, the kernel 0.193 ms against 0.208)
    const bool seeded = sb_edges >= 0 && (long long)__ldg(outdeg + source) <= sb_edges;
    if (seeded) {
        if (tid == 0 && trace_cap > 0) {
            trace[0] = SINGLE;
            trace[1] = 0;
            trace[2] = 1;
            trace[3] = 0;
            trace[4] = (long long)globaltimer();
        }
        if (blockIdx.x == 0)
            single_levels<I>(st, sb, dyn, 0, source, nullptr, nullptr, front, queue, qcap, nwords,
                             real_ptrs, out_ptr, out_idx, outdeg, levels, visited, ctrl, trace,
                             trace_cap, lists, sb_edges, nblocks, csr, true);
        grid_barrier(bar, gen);
    } else {
        if (tid == 0) {
            levels[source] = 0;
            visited[source >> 5] |= 1u << (source & 31);
            front[source >> 5] = 1u << (source & 31);
            *found(ctrl, 0) = 1;
            *degsum(ctrl, 0) = (u64)outdeg[source];
        }
        if (warp == 0 && csr) {
            const int d = outdeg[source];
            const int nch = d > GIANT ? (d + GIANT - 1) / GIANT : 1;
            for (int i = lane; i < nch; i += 32)
                queue[i] = d > GIANT ? make_int2(-(i + 1), (int)source) : make_int2((int)source, d);
            if (lane == 0) *qlen(ctrl, 0) = (u64)nch;
        } else if (warp == 0) {
            const int lo = real_ptrs[source >> 3], hi = real_ptrs[(source >> 3) + 1];
            for (int i = lo + lane; i < hi; i += 32) queue[i - lo] = make_int2(i, (int)(source >> 3));
            if (lane == 0) *qlen(ctrl, 0) = (u64)(hi - lo);
        }
        grid_barrier(bar, gen);
    }

    bool last_bu = false;  // level L - 1 ran bottom-up
    for (int L = seeded ? (int)ldcg(ctrl + CT(16)) : 0;; ++L) {
        u64 qn = ldcg(qlen(ctrl, L));
        const u64 nf = ldcg(found(ctrl, L));
        const u64 ds = ldcg(degsum(ctrl, L));
        const u64 q0n = L > 0 ? ldcg(qlen(ctrl, L + 3)) : 0;
        // the lazy rule on the queue's length; the frontier's size when the
        // queue is not built yet
        // (CSR: on the frontier's out-degree sum, the edges the level scans)
        const long long qsize = csr ? (long long)ds
                              : (qn == NOQUEUE ? (long long)nf : (long long)qn);
        // BVSS: Blest's lazy update on a large queue; CSR: XBFS's single scan
        // on a level that scans many edges
        const long long lazy_at = csr ? scan_min : lazy_min;
        // CSR: single-scan also needs the last level to have found many of
        // the vertices its out-edges reach (scan_found: new vertices per
        // million out-edges of F_{L-1}; 0 off): on a mesh few are new, and
        // marking every edge then sweeping loses to claiming the new ones
        // (H100, moore-128^3: 43.8 us a single-scan level, 8.9 an eager one).
        // F_{L-1}'s out-degree sum is unknown (0) after single-block levels
        const u64 prev_ds = L > 0 ? ldcg(degsum(ctrl, L - 1)) : 0;
        const bool finds = !csr || scan_found <= 0 || prev_ds == 0 ||
                           nf * 1000000ull >= (u64)scan_found * prev_ds;
        const bool stay = bu_keep >= 0 && last_bu && (long long)nf > bu_keep;
        // a bottom-up level that left no vertex unvisited ends the
        // traversal: F_L's out-edges all lead to visited vertices (on urand
        // the level after the last big one would cost a queue rebuild and a
        // single-block level, ~15 us, for nothing)
        const bool done = last_bu && ldcg(left(ctrl, L)) == 0;
        const int mode = (sb_edges >= 0 && nf <= SB_FRONTIER && (long long)ds <= sb_edges)
                           ? SINGLE
                       : (bottom_up == 2 || (bottom_up == 1 && (ds > alpha_m || stay))) ? BOTTOM_UP
                       : ((lazy_at >= 0 && qsize >= lazy_at && finds) ? LAZY : EAGER);
        last_bu = mode == BOTTOM_UP;
        if (tid == 0 && L < trace_cap) {
            trace[8 * L] = mode;
            trace[8 * L + 1] = qn == NOQUEUE ? -1 : (long long)qn;
            trace[8 * L + 2] = (long long)nf;
            trace[8 * L + 3] = 0;  // the next level's top sets it (not a single-block one)
            trace[8 * L + 4] = (long long)globaltimer();
            if (L > 0) trace[8 * (L - 1) + 3] = (long long)ldcg(checked(ctrl, L));
            if (done && nf && L + 1 < trace_cap) {  // level L takes no time, L + 1 is empty
                trace[8 * (L + 1) + 2] = 0;
                trace[8 * (L + 1) + 4] = trace[8 * L + 4];
            }
        }
        if (nf == 0 || done) break;  // F_L is empty, or has nothing to find
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
            *left(ctrl, L + 2) = 0;
            ctrl[CT(17)] = 0;
            if (mode == BOTTOM_UP || mode == LAZY) *qlen(ctrl, next) = NOQUEUE;
        }
        bool cleared = L == 0;
        if (mode != BOTTOM_UP && qn == NOQUEUE) {
            // build Q_L from F_L's words (the level before did not)
            clear_prev(F0, Q0, q0n, nwords, tid, nthreads, csr);
            cleared = true;
            grid_barrier(bar, gen);
            int2* Qb = queue + (L % 3) * qcap;
            for (long long base = warp * 32; base < nwords; base += nwarps * 32) {
                const long long w = base + lane;
                u32 x = w < nwords ? ldcg(F + w) : 0u;
                if (!__any_sync(FULL, x != 0)) continue;
                if constexpr (csr) {  // a vertex per set bit, with its out-degree
                    while (__any_sync(FULL, x != 0)) {
                        const bool ok = x != 0;
                        const int u = ok ? (int)(w * 32 + __ffs(x) - 1) : 0;
                        x &= x - 1;
                        warp_push_vertex(st, ok, u, ok ? __ldg(outdeg + u) : 0, Qb, ctrl + CT(17));
                    }
                } else {  // a block's VSSs per non-empty byte
#pragma unroll
                    for (int b = 0; b < 4; ++b) {
                        const long long blk = w * 4 + b;
                        const bool push = ((x >> (8 * b)) & 0xFFu) && blk < nblocks;
                        if (__any_sync(FULL, push))
                            warp_push(st, push ? blk : -1, real_ptrs, Qb, ctrl + CT(17));
                    }
                }
            }
            flush(st, Qb, ctrl + CT(17), ctrl, next);
            grid_barrier(bar, gen);
            qn = ldcg(ctrl + CT(17));
            if (tid == 0 && L < trace_cap) trace[8 * L + 1] = (long long)qn;
        }
        if (mode == SINGLE) {
            // every block has read level L's counters before block 0
            // rewrites them (a late reader would see the rewritten ones)
            if (!cleared) clear_prev(F0, Q0, q0n, nwords, tid, nthreads, csr);
            grid_barrier(bar, gen);
            if (blockIdx.x == 0)
                single_levels<I>(st, sb, dyn, L, (long long)qn, F, Q, front, queue, qcap, nwords,
                                 real_ptrs, out_ptr, out_idx, outdeg, levels, visited, ctrl,
                                 trace, trace_cap, lists, sb_edges, nblocks, csr);
            grid_barrier(bar, gen);
            L = (int)ldcg(ctrl + CT(16)) - 1;  // the level the grid resumes at
            continue;
        }
        if (mode == BOTTOM_UP) {
            bottom_up_level<I>(st, dyn, visited, F1, F, in_ptr, in_idx, outdeg, levels, next, n,
                               nwords, warp, nwarps);
        } else if (csr) {
            // top-down over A's CSR (BFS-4K): a group of vw lanes per
            // frontier vertex, vw = lower_pow2(threads / |Q|) in [4, 32];
            // a vertex of more than HEAVY_DEG out-edges goes to its block's
            // bin, which the whole block expands after its groups
            const bool lean = ds <= LEAN_EDGES;
            int vw = 32;
            {
                const long long per = nthreads / max((long long)qn, 1LL);
                while (vw > 4 && vw > per) vw >>= 1;
            }
            const int gpw = 32 / vw;  // groups per warp
            const int j = lane % vw;
            // consecutive entries to warps of different blocks: a hub's
            // chunks land in many blocks' bins
            const long long wrr = (long long)(threadIdx.x >> 5) * gridDim.x + blockIdx.x;
            for (long long i0 = wrr * gpw; i0 < (long long)qn; i0 += nwarps * gpw) {  // warp-uniform
                const long long i = i0 + lane / vw;
                bool heavy = false;
                int deg = 0;
                I s0 = 0;
                if (i < (long long)qn) {
                    const int2 e = ldcg(Q + i);
                    if (e.x >= 0) {
                        deg = e.y;
                        s0 = __ldg(out_ptr + e.x);
                    } else {  // chunk -e.x - 1 of hub e.y
                        const long long k = -(long long)e.x - 1;
                        deg = (int)min((long long)GIANT, (long long)__ldg(outdeg + e.y) - k * GIANT);
                        s0 = __ldg(out_ptr + e.y) + (I)(k * GIANT);
                    }
                    if (deg > HEAVY_DEG) {
                        heavy = true;
                    }
                }
                u32 slot = HEAVY_BIN;
                if (heavy && j == 0) slot = atomicAdd(&hv_n, 1u);
                slot = __shfl_sync(FULL, slot, (lane / vw) * vw);
                if (heavy && slot < HEAVY_BIN) {
                    if (j == 0) {
                        hv_start[slot] = (long long)s0;
                        hv_deg[slot] = deg;
                    }
                    deg = 0;  // the block expands it
                }
                for (int e = j; __any_sync(FULL, e < deg); e += vw * SB_ILP) {
                    u32 v[SB_ILP];
#pragma unroll
                    for (int k = 0; k < SB_ILP; ++k) {
                        const int ek = e + k * vw;
                        v[k] = ek < deg ? (u32)__ldg(out_idx + s0 + ek) : FULL;
                    }
                    discover(v, st, F1, visited, levels, outdeg, next, Q1, qlen(ctrl, next), mode == LAZY,
                             lean);
                }
            }
            // the bin's phase only in blocks that binned a vertex (one
            // barrier either way)
            const int hn = __syncthreads_or(hv_n != 0) ? (int)min(hv_n, (u32)HEAVY_BIN) : 0;
            for (int h = 0; h < hn; ++h) {
                const long long s0 = hv_start[h];
                const int deg = hv_deg[h];
                for (int e = threadIdx.x - lane; e < deg; e += blockDim.x * SB_ILP) {  // warp-uniform
                    u32 v[SB_ILP];
#pragma unroll
                    for (int k = 0; k < SB_ILP; ++k) {
                        const int ek = e + lane + k * (int)blockDim.x;
                        v[k] = ek < deg ? (u32)__ldg(out_idx + s0 + ek) : FULL;
                    }
                    discover(v, st, F1, visited, levels, outdeg, next, Q1, qlen(ctrl, next), mode == LAZY,
                             lean);
                }
            }
            if (hn) {
                __syncthreads();
                if (threadIdx.x == 0) hv_n = 0;
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
        if (!cleared) clear_prev(F0, Q0, q0n, nwords, tid, nthreads, csr);
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
                if (__any_sync(FULL, d != 0)) {
                    warp_add(st, 0, __popc(d));
                    warp_add(st, 1, settle_words<32>(levels, outdeg, base * 32, d, next));
                }
            }
        }
        flush(st, Q1, qlen(ctrl, next), ctrl, next);
        grid_barrier(bar, gen);
    }
    if (dead) {  // the unreachable vertices leave the reached ones' bitmap
        const long long sw = source >> 5;
        for (long long w = tid; w < nwords; w += nthreads) {
            const u32 x = __ldg(dead + w);
            if (x) visited[w] = (visited[w] & ~x) | (w == sw ? 1u << (source & 31) : 0u);
        }
    }
    if (tid == 0 && trace_cap > 0) trace[6] = (long long)globaltimer();
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

// instantiations nvcc compiles standalone (CI); at run time the launcher
// compiles the ones a process uses, by name expression
#define BFS_FUSED_INSTANTIATE(F, I)                                                           \
    template __global__ void bfs_fused<F, I>(const int*, const uint4*, const u32*, const I*, \
        const I*, const I*, const I*, const int*, int*, u32*, u32*, int2*, u64*, u32*,       \
        long long*, u32*, long long, long long, long long, long long, u64, int, long long,   \
        long long, long long, long long, long long, const u32*, long long, int);
BFS_FUSED_INSTANTIATE(FMT_CSR, int)
BFS_FUSED_INSTANTIATE(FMT_CSR, long long)
BFS_FUSED_INSTANTIATE(FMT_BVSS_SIMT, int)
BFS_FUSED_INSTANTIATE(FMT_BVSS_SIMT, long long)
BFS_FUSED_INSTANTIATE(FMT_BVSS_MMA, int)
BFS_FUSED_INSTANTIATE(FMT_BVSS_MMA, long long)
template __global__ void parents_from_levels<int>(const int*, const int*, const int*,
                                                  long long*, long long, long long);
template __global__ void parents_from_levels<long long>(const long long*, const long long*,
                                                        const int*, long long*, long long,
                                                        long long);
