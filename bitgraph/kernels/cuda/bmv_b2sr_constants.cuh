// Generated from bitgraph/kernels/cuda/constants.py (bmv_b2sr.cu): do not edit;
// python -m bitgraph.kernels.cuda.constants rewrites it.
constexpr int THREADS = 256;
constexpr int GEO_L_T4 = 1;
constexpr int GEO_R_T4 = 4;
constexpr int GEO_U_T4 = 4;
constexpr int GEO_L_T8 = 1;
constexpr int GEO_R_T8 = 8;
constexpr int GEO_U_T8 = 4;
constexpr int GEO_L_T16 = 2;
constexpr int GEO_R_T16 = 8;
constexpr int GEO_U_T16 = 2;
constexpr int GEO_L_T32 = 8;
constexpr int GEO_R_T32 = 4;
constexpr int GEO_U_T32 = 2;
