// Generated from bitgraph/kernels/cuda/constants.py (bfs_window.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int BLOCK = 256;
constexpr int VBITS = 40;
constexpr int F_PREFETCH = 1;
constexpr int F_CHECK = 2;
constexpr int HEAD = 0;
constexpr int TAIL = 16;
constexpr int FLOOR = 32;
constexpr int TOP = 48;
constexpr int ERROR = 64;
constexpr int CTRL = 80;
