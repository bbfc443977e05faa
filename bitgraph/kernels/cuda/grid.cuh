// Grid-wide barrier of the persistent, cooperative kernels (bfs_bvss.cu,
// msbfs.cu's msbfs_coop): every block of the launch is resident, so a
// counter in global memory can separate their phases without a kernel
// boundary.
#pragma once

namespace bg {

__device__ __forceinline__ unsigned ld_acquire(const unsigned* p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ unsigned atom_add_acq_rel(unsigned* p, unsigned v) {
    unsigned old;
    asm volatile("atom.add.acq_rel.gpu.global.u32 %0, [%1], %2;"
                 : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ void st_release(unsigned* p, unsigned v) {
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
__device__ __forceinline__ void grid_barrier(unsigned* bar, unsigned& gen) {
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

// the GPU's nanosecond clock, comparable across multiprocessors (the
// kernels' own traces of their levels)
__device__ __forceinline__ unsigned long long globaltimer() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

}  // namespace bg
