// Generated from bitgraph/kernels/cuda/constants.py (bfs_async.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int BLOCK = 256;
constexpr int A_SOURCES = 0;
constexpr int A_ROWS = 64;
constexpr int ARGS = 128;
constexpr int S_COUNT = 0;
constexpr int S_TOTAL = 64;
constexpr int S_ECC = 128;
constexpr int STATS = 192;
constexpr int SRC_AT = 34;
constexpr int F_PREFETCH = 1;
constexpr int F_CHECK = 2;
constexpr int HEAD = 0;
constexpr int TAIL = 16;
constexpr int DONE = 32;
constexpr int ERROR = 48;
