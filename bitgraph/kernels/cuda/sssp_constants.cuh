// Generated from bitgraph/kernels/cuda/constants.py (sssp.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int F_NEAR = 1;
constexpr int F_FAR = 2;
constexpr int C_NEAR = 0;
constexpr int C_FAR0 = 1;
constexpr int C_FAR1 = 2;
constexpr int C_MIN = 3;
constexpr int COUNTERS = 4;
