// Generated from bitgraph/kernels/cuda/constants.py (bmm_b2sr.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int HASH_MAX = 2048;
constexpr int WARPS_T4 = 8;
constexpr int WARPS_T8 = 8;
constexpr int WARPS_T16 = 8;
constexpr int WARPS_T32 = 4;
