// Blest's step on one VSS, shared by the kernels that read BVSS
// (bfs_fused.cu, bmv_bvss.cu; layout: bitgraph/formats/bvss.py, sigma 8):
// lane l of a warp holds word 32 v + l of VSS v's masks, 4 slices of 8
// bits, and the warp tests them against the frontier byte of v's column
// block. Every lane of a full, converged warp calls it (the MMAs are
// warp-wide).
#pragma once

namespace bg {

// The 4 slot hits of lane's word w against frontier byte alpha: bit s set
// when slice s (bits 8s..8s+7 of w) meets alpha.
template <bool MMA>
__device__ __forceinline__ unsigned slot_hits(unsigned w, unsigned alpha, int lane) {
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
        const unsigned b = (lane % 9 == 0) ? alpha : ((lane % 9 == 4) ? (alpha << 8) : 0u);
        const unsigned a0 = w & 0xFFFFu, a1 = w >> 16;
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
        const unsigned h = w & (alpha * 0x01010101u);
        return ((h & 0xFFu) ? 1u : 0u) | ((h & 0xFF00u) ? 2u : 0u)
             | ((h & 0xFF0000u) ? 4u : 0u) | ((h & 0xFF000000u) ? 8u : 0u);
    }
}

}  // namespace bg
