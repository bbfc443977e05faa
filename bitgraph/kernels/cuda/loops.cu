// The condition of a CUDA graph WHILE loop (launcher: loops.py): the last
// node of the loop's body, one thread, sets the WHILE node's condition
// from a flag the body's kernels keep on the device: another pass while
// *stop is 0, the end of the loop once a kernel set it. The loop runs with
// no host round trip between passes (the host launches the graph once).
// cudaGraphSetConditional is the device runtime's (CUDA 12.4+), a builtin
// nvcc's headers declare; NVRTC has no headers, so it is declared here.
#ifdef __CUDACC_RTC__
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle,
                                                   unsigned int value);
#endif

extern "C" __global__ void loop_until(unsigned long long handle, const int* stop) {
  if (threadIdx.x == 0 && blockIdx.x == 0) cudaGraphSetConditional(handle, *stop ? 0u : 1u);
}
