// Warp-wide building blocks shared by the traversal kernels (bfs_async.cu,
// bfs_bvss.cu, msbfs.cu). Every lane of a full warp calls them.
#pragma once

namespace bg {

// inclusive prefix sum of x over the warp's lanes: lane i gets x_0 + ... +
// x_i (log2(32) shuffle steps), lane 31 the warp's total
template <typename T>
__device__ __forceinline__ T warp_inclusive_scan(T x) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const T y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  return x;
}

}  // namespace bg
