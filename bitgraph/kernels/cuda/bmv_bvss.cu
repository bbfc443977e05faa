// Boolean matrix-vector product on BVSS (launcher: bmv_bvss.py): Blest's
// top-down step as an mxv, t = M (+).(x) x for the semirings whose products
// of M's ones reduce to "some bit in common" (plan.bit_kernel "ones" and
// "lor_x"); the CUDA twin of bitgraph/kernels/cpu/bmv_bvss.py.
//
// Arrays (layout: bitgraph/formats/bvss.py, sigma 8, tau 128):
//   virtual_to_real[n_vss]   int32: the column block of each VSS
//   masks[32 n_vss]          uint32: lane l of VSS v holds word 32 v + l (4 slices)
//   rows4[32 n_vss]          uint4: the 4 row ids of that word (row_ids viewed as uint4)
//   x_present[ncols/32]      uint32 bitmap over M's columns (u's entries)
//   x_true[ncols/32]         uint32 bitmap: u's true entries ("lor_x"; unread when same)
//   allowed[nrows/32]        uint32 bitmap of the rows the mask allows (unread when !has_allowed)
//   t_present[nrows], t_true[nrows]  bool, zeroed by the launcher: set to 1 here
//
// A warp takes 32 VSSs at a time (grid-stride): lane l reads the column
// block of VSS base + l and its frontier byte, one ballot keeps the VSSs
// whose byte is non-zero, and the warp runs those one by one: the two
// m8n8k128 b1 AND+POPC MMAs of bg::slot_hits (or their SIMT twin, MMA
// false), then each lane stores 1 into t_present (and t_true) at the rows
// of its slices with a non-zero count that the mask allows. Stores, not
// atomics: every writer writes the same byte value, and the result is the
// bool array the plan takes (a bitmap would need an unpacking pass).
// With x_true (not same) a second slot_hits against the byte of
// x_present & x_true gives t_true, skipped (warp-uniformly) where that
// byte is 0.
// Cost: 5 bytes a VSS (its block id, its frontier byte) plus, per VSS with
// frontier bits, 128 bytes of masks, 2 MMAs (4 with x_true), and for the
// lanes with a hit 16 bytes of row ids and a byte store per hit row.
#include "bvss_step.cuh"

typedef unsigned int u32;

template <bool MMA>
__global__ void bmv_bvss(const int* __restrict__ virtual_to_real, const u32* __restrict__ masks,
                         const uint4* __restrict__ rows4, long long n_vss,
                         const u32* __restrict__ x_present, const u32* __restrict__ x_true,
                         bool same, const u32* __restrict__ allowed, bool has_allowed,
                         bool* __restrict__ t_present, bool* __restrict__ t_true) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long nwarps = ((long long)gridDim.x * blockDim.x) >> 5;
    const unsigned char* xp = reinterpret_cast<const unsigned char*>(x_present);
    const unsigned char* xt = reinterpret_cast<const unsigned char*>(x_true);
    for (long long base = warp * 32; base < n_vss; base += nwarps * 32) {  // warp-uniform
        const long long mine = base + lane;
        u32 alpha = 0, alpha_true = 0;
        if (mine < n_vss) {
            const int blk = __ldg(virtual_to_real + mine);
            alpha = __ldg(xp + blk);
            if (!same && alpha) alpha_true = alpha & __ldg(xt + blk);
        }
        u32 active = __ballot_sync(0xFFFFFFFFu, alpha != 0);
        while (active) {
            const int src = __ffs(active) - 1;
            active &= active - 1;
            const long long v = base + src;
            const u32 a = __shfl_sync(0xFFFFFFFFu, alpha, src);
            const u32 at = __shfl_sync(0xFFFFFFFFu, alpha_true, src);
            __syncwarp();  // converged for the MMAs after the last VSS's stores
            const u32 w = __ldg(masks + 32LL * v + lane);
            const u32 hits = bg::slot_hits<MMA>(w, a, lane);
            const u32 hits_true = same ? hits : (at ? bg::slot_hits<MMA>(w, at, lane) : 0u);
            if (hits) {
                const uint4 r = __ldg(rows4 + 32LL * v + lane);
                const u32 us[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
                for (int s = 0; s < 4; ++s) {
                    if (!((hits >> s) & 1u)) continue;
                    const u32 u = us[s];
                    if (has_allowed && !((__ldg(allowed + (u >> 5)) >> (u & 31)) & 1u)) continue;
                    t_present[u] = true;
                    if (!same && ((hits_true >> s) & 1u)) t_true[u] = true;
                }
            }
        }
    }
}

template __global__ void bmv_bvss<true>(const int*, const u32*, const uint4*, long long,
                                        const u32*, const u32*, bool, const u32*, bool, bool*,
                                        bool*);
template __global__ void bmv_bvss<false>(const int*, const u32*, const uint4*, long long,
                                         const u32*, const u32*, bool, const u32*, bool, bool*,
                                         bool*);
