// Generated from bitgraph/kernels/cuda/constants.py (bfs_fused.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int THREADS = 1024;
constexpr int SB_FRONTIER = 4096;
constexpr int LIST_CAP = 65536;
constexpr int GIANT = 8192;
constexpr int FMT_CSR = 0;
constexpr int FMT_BVSS_SIMT = 1;
constexpr int FMT_BVSS_MMA = 2;
