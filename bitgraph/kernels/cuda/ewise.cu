// Elementwise binary and unary ops on dense arrays of one type T: the CUDA
// twin of kernels/cpu/ewise.py (op code a runtime argument: one compile per
// T, a branch every thread of the launch takes the same way).
#include "scalar.cuh"

template <typename T>
__global__ void ewise(int code, const T* __restrict__ x, const T* __restrict__ y,
                      T* __restrict__ z, long long n) {
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x)
    z[p] = bg::binop<T>(code, x[p], y[p]);
}

template <typename T>
__global__ void unary(int code, const T* __restrict__ x, T* __restrict__ z, long long n) {
  for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < n;
       p += (long long)gridDim.x * blockDim.x)
    z[p] = bg::unop<T>(code, x[p]);
}

// instantiations nvcc compiles standalone (CI); at run time CuPy's RawModule
// compiles the ones a process uses, by name expression
template __global__ void ewise<double>(int, const double*, const double*, double*, long long);
template __global__ void unary<double>(int, const double*, double*, long long);
template __global__ void ewise<bool>(int, const bool*, const bool*, bool*, long long);
template __global__ void unary<bool>(int, const bool*, bool*, long long);
template __global__ void ewise<signed char>(int, const signed char*, const signed char*, signed char*, long long);
template __global__ void unary<unsigned long long>(int, const unsigned long long*, unsigned long long*, long long);
