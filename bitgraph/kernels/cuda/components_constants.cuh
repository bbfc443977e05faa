// Generated from bitgraph/kernels/cuda/constants.py (components.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int LARGEST_THREADS = 1024;
constexpr int SAMPLE_CAP = 4096;
constexpr int SAMPLE_SEED = 24301;
constexpr int C_WARP = 0;
constexpr int C_BLOCK = 1;
constexpr int C_BLOCK_NEXT = 2;
constexpr int C_SKIP = 3;
constexpr int CTRL = 4;
