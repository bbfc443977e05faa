// Generated from bitgraph/kernels/cuda/constants.py (pagerank.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int TILE_K = 8;
constexpr int STRIPE_U = 8;
constexpr int STRIPE_SHIFT = 60;
constexpr int STRIPE_THREADS = 1024;
constexpr int STRIPE_ROWS_MAX = 65536;
