// Generated from bitgraph/kernels/cuda/constants.py (bfs_hops.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int BLOCK = 1024;
constexpr int LIST = 2560;
