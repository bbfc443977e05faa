// Generated from bitgraph/kernels/cuda/constants.py (sssp.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int F_NEAR = 1;
constexpr int F_FAR = 2;
constexpr int F_MEMBER = 4;
constexpr int C_NEAR0 = 0;
constexpr int C_NEAR1 = 1;
constexpr int C_FAR0 = 2;
constexpr int C_FAR1 = 3;
constexpr int C_MIN = 4;
constexpr int C_ROUNDS = 5;
constexpr int C_MEM0 = 6;
constexpr int C_MEM1 = 7;
constexpr int C_GO = 8;
constexpr int C_EDGES = 9;
constexpr int COUNTERS = 10;
constexpr int LB_STEPS = 8;
