"""Write patterns of msbfs's final flush, measured bare on the GPU: what
bounds writing a (64 x n) int32 level matrix from per-vertex words.

    python3 benchmarks/micro_flush_gpu.py [--n 4194304] [--planes 8]

Rows (kernel ms, GB/s of the level matrix's bytes):
  linear      int4 stores, one pass over the matrix (the bound)
  warp32      a warp per 32 vertices, one int store per lane and source row
              (msbfs_flush's pattern), no loads
  lane4       a lane per 4 consecutive vertices: int4 stores, 512 B per warp
              and row
  warp32+ld   warp32 after loading `planes` u64 words per vertex (the flush)
  lane4+ld    lane4 after the same loads
"""

from __future__ import annotations

import argparse

SRC = r"""
typedef unsigned long long u64;
extern "C" __global__ void linear(int4* out, long long n4) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
       i += (long long)gridDim.x * blockDim.x)
    out[i] = make_int4((int)i, 1, 2, 3);
}
extern "C" __global__ void __launch_bounds__(256, 4)
warp32(const u64* planes, int np, long long n, int* out) {
  const int lane = threadIdx.x & 31;
  const long long warps = (long long)gridDim.x * 8;
  for (long long w = ((long long)blockIdx.x * 256 + threadIdx.x) >> 5; w < n / 32; w += warps) {
    const long long v = w * 32 + lane;
    u64 acc = 0;
    for (int j = 0; j < np; ++j) acc += planes[(long long)j * n + v] << j;
#pragma unroll
    for (int b = 0; b < 64; ++b) out[b * n + v] = (int)((acc >> b) & 7ull);
  }
}
extern "C" __global__ void __launch_bounds__(256, 4)
lane4(const u64* planes, int np, long long n, int* out) {
  const long long threads = (long long)gridDim.x * 256;
  for (long long t = (long long)blockIdx.x * 256 + threadIdx.x; t < n / 4; t += threads) {
    const long long v = t * 4;
    u64 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (int j = 0; j < np; ++j) {
      const ulonglong2* p = (const ulonglong2*)(planes + (long long)j * n + v);
      const ulonglong2 x = p[0], y = p[1];
      a0 += x.x << j; a1 += x.y << j; a2 += y.x << j; a3 += y.y << j;
    }
#pragma unroll
    for (int b = 0; b < 64; ++b)
      *(int4*)(out + b * n + v) = make_int4((int)((a0 >> b) & 7ull), (int)((a1 >> b) & 7ull),
                                            (int)((a2 >> b) & 7ull), (int)((a3 >> b) & 7ull));
  }
}
"""


def main(argv=None):
    import cupy

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--n", type=int, default=4_194_304)
    p.add_argument("--planes", type=int, default=8)
    args = p.parse_args(argv)
    n = args.n // 128 * 128
    mod = cupy.RawModule(code=SRC, options=("-std=c++17",))
    out = cupy.empty(64 * n, cupy.int32)
    planes = cupy.random.randint(0, 2**62, size=args.planes * n, dtype=cupy.int64).view(cupy.uint64)
    sms = cupy.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    nbytes = out.nbytes

    def timed(name, fn, grid, call_args):
        ev = [cupy.cuda.Event(), cupy.cuda.Event()]
        best = 1e9
        for _ in range(5):
            ev[0].record()
            fn((grid,), (256,), call_args)
            ev[1].record()
            ev[1].synchronize()
            best = min(best, cupy.cuda.get_elapsed_time(*ev))
        print(f"{name:12s} {best:7.3f} ms  {nbytes / best / 1e6:7.0f} GB/s", flush=True)

    timed("linear", mod.get_function("linear"), sms * 8, (out, cupy.int64(nbytes // 16)))
    for name in ("warp32", "lane4"):
        fn = mod.get_function(name)
        timed(name, fn, sms * 4, (planes, cupy.int32(0), cupy.int64(n), out))
        timed(name + "+ld", fn, sms * 4, (planes, cupy.int32(args.planes), cupy.int64(n), out))


if __name__ == "__main__":
    main()
