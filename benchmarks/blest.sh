#!/usr/bin/env bash
# Build the Blest anchors (BFS and the BVSS connected-components kernel) for benchmarks/run.py,
# here (nvcc 13, sm_90, no GPU needed); the lead carries OUT to the GPU machine.
#
#   benchmarks/blest.sh [SRC] [OUT]
#
# SRC (default anchors/src/blest beside this repository's benchmarks/) holds Blest's
# sources (github.com/delbek/blest, fetched by hand, never committed), e.g. from a mirror:
#   git --git-dir=blest.git archive HEAD | tar -x -C SRC
# OUT (default anchors/blest) receives the binary `blest`. The build folder is
# $BLEST_BUILD (default /tmp/blest-build-$USER); CUDA arch $BLEST_ARCH (default 90).
# This script fetches nothing, changes nothing under SRC and rebuilds only when SRC or
# this script is newer than the binary.
#
# What differs from upstream's build (CMakeLists.txt: main.cu + Gorder/*.cpp, C++20,
# -O3, OpenMP, sm_90 as its README says to set):
# 1. The driver. Upstream's main.cu runs Benchmark::run, which downloads the graph from
#    SuiteSparse (libcurl; the GPU machine has no network, this machine no libcurl) and
#    has its kernel hard-coded to "BFS". The driver below (bitgraph's, written into the
#    build folder) performs the same steps with Blest's own classes on a local graph:
#    CSC (self-loops dropped, columns sorted, the social-network test of
#    CSC::socialNetworkHelper), CSC::reorder(8) (Jaccard with window w for social graphs,
#    RCM otherwise) saved as CSC::saveOrderingToBinary does, CSC::orderFromBinary,
#    FULL_PADDING = !social, BVSS(8, 4).constructFromCSCMatrix, then BVSSBFSKernel::run
#    or BVSSCCKernel::run, whose times are Blest's own timer (omp_get_wtime around the
#    cooperative launch and its synchronize: kernel only, the uploads before it are out).
#    Nothing of Blest's own code is patched: its headers and Gorder/*.cpp compile
#    unchanged with nvcc 13 for sm_90 (no CUDA 13 removal touches them).
# 2. Link: libcurl and the driver API (libcuda) are dropped (nothing left uses them);
#    cudart, libstdc++ and libgomp are linked statically, so the binary needs only libc
#    and the NVIDIA driver.
#
# The driver's commands (GRAPH: ECL's .egr binary CSR, int32 n, m, nindex[n+1],
# nlist[m], symmetric, as benchmarks/run.py writes it; ORDER: the ordering file):
#   blest order GRAPH ORDER [WINDOW [JACCARD]]   Blest's reordering (default w 65536,
#       Jaccard on, its README's recommendation), saved to ORDER;
#       prints "Blest reorder: X s"
#   blest bfs GRAPH ORDER S1,S2,... REPEAT DIR   each source (our vertex ids) REPEAT times:
#       "Blest BFS source S run R: X ms, levels L, visited V"; DIR/levels-I.bin: the
#       I-th source's levels in our vertex order, int32, -1 unreached
#   blest cc GRAPH ORDER REPEAT                  "Blest CC run R: X ms, components C"
#       (C is Blest's count; its per-vertex relabel is not used)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(realpath -m "${1:-$HERE/../anchors/src/blest}")
OUT=$(realpath -m "${2:-$HERE/../anchors/blest}")
ARCH=${BLEST_ARCH:-90}
BUILD=${BLEST_BUILD:-/tmp/blest-build-${USER:-$(id -u)}}

for f in CC/BVSSCCKernel.cuh BFS/BVSSBFSKernel.cuh DataStructures/CSC.cuh \
         DataStructures/BVSS.cuh Gorder/Graph.cpp; do
    [ -f "$SRC/$f" ] || { echo "blest.sh: missing $SRC/$f" >&2; exit 1; }
done

if [ -x "$OUT/blest" ] && [ -z "$(find "$SRC" "$0" -newer "$OUT/blest" -type f | head -1)" ]; then
    echo "blest.sh: $OUT/blest is up to date"
    exit 0
fi
mkdir -p "$BUILD" "$OUT"

cat > "$BUILD/driver.cu" <<'EOF'
// bitgraph's driver of Blest's kernels (written by benchmarks/blest.sh; see its header):
// upstream Benchmark::run's steps on a local graph, without its SuiteSparse download.
#include "CSC.cuh"
#include "BVSS.cuh"
#include "BVSSBFSKernel.cuh"
#include "BVSSCCKernel.cuh"
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

static void fail(const std::string& why)
{
    std::cerr << "blest: " << why << std::endl;
    std::exit(2);
}

// A symmetric graph in ECL's .egr CSR as Blest's CSC (column j: the neighbours of j), as
// CSC(filename, undirected, binary) builds it from a symmetric Matrix Market file.
static CSC* readEgr(const std::string& path)
{
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) fail("cannot open " + path);
    int nm[2];
    if (std::fread(nm, sizeof(int), 2, f) != 2 || nm[0] < 1 || nm[1] < 0) fail("bad header: " + path);
    unsigned n = nm[0], m = nm[1];
    std::vector<int> ptr(n + 1), idx(m);
    if (std::fread(ptr.data(), sizeof(int), n + 1, f) != n + 1 ||
        std::fread(idx.data(), sizeof(int), m, f) != m) fail("short file: " + path);
    std::fclose(f);
    CSC* csc = new CSC;
    csc->getN() = n;
    csc->getColPtrs() = new unsigned[n + 1];
    csc->getRows() = new unsigned[m];
    unsigned* cp = csc->getColPtrs();
    unsigned* rows = csc->getRows();
    unsigned nnz = 0;
    cp[0] = 0;
    for (unsigned j = 0; j < n; ++j)
    {
        for (int p = ptr[j]; p < ptr[j + 1]; ++p)
        {
            if (static_cast<unsigned>(idx[p]) != j) rows[nnz++] = idx[p];  // Blest drops self-loops
        }
        cp[j + 1] = nnz;
        std::sort(rows + cp[j], rows + nnz);
    }
    csc->getNNZ() = nnz;
    std::vector<unsigned> out(n), in(n, 0);
    for (unsigned j = 0; j < n; ++j)
    {
        out[j] = cp[j + 1] - cp[j];
        for (unsigned p = cp[j]; p < cp[j + 1]; ++p) ++in[rows[p]];
    }
    // CSC::socialNetworkHelper() | (average degree > SOCIAL_THRESHOLD)
    csc->isSocialNetwork() = isSocialDegreeDistribution(in) || isSocialDegreeDistribution(out) ||
                             csc->averageDegree() > SOCIAL_THRESHOLD;
    std::cout << "Graph: n " << n << ", nnz " << nnz << ", social " << csc->isSocialNetwork()
              << std::endl;
    return csc;
}

// The CSC in Blest's order (the ordering file's permutation applied); FULL_PADDING set as
// Benchmark::run sets it.
static unsigned* ordered(CSC* csc, const std::string& order)
{
    std::error_code ec;
    auto size = std::filesystem::file_size(order, ec);
    if (ec || size != sizeof(unsigned) * static_cast<std::uintmax_t>(csc->getN()))
        fail("no ordering of this graph in " + order + " (run: blest order)");
    FULL_PADDING = !csc->isSocialNetwork();
    return csc->orderFromBinary(order);
}

int main(int argc, char** argv)
{
    if (argc < 4) fail("usage: blest order|bfs|cc GRAPH ORDER ... (see benchmarks/blest.sh)");
    std::string cmd = argv[1], graph = argv[2], order = argv[3];
    CSC* csc = readEgr(graph);
    unsigned n = csc->getN();
    if (cmd == "order")
    {
        WINDOW_SIZE = argc > 4 ? std::stoul(argv[4]) : 65536;
        JACKARD_ON = argc > 5 ? std::string(argv[5]) != "0" : true;
        double start = omp_get_wtime();
        unsigned* inv = csc->reorder(8);
        double took = omp_get_wtime() - start;
        std::string tmp = order + ".part";
        csc->saveOrderingToBinary(tmp, inv);
        std::filesystem::rename(tmp, order);
        std::cout << "Blest reorder: " << took << " s" << std::endl;
        delete[] inv;
        delete csc;
        return 0;
    }
    unsigned* inv = ordered(csc, order);
    std::ofstream stats("/dev/null");
    BVSS* bvss = new BVSS(8, 4, stats);
    bvss->constructFromCSCMatrix(csc);
    std::cout.precision(6);
    if (cmd == "bfs")
    {
        if (argc < 7) fail("usage: blest bfs GRAPH ORDER S1,S2,... REPEAT DIR");
        std::vector<unsigned> sources;
        std::stringstream list(argv[4]);
        for (std::string s; std::getline(list, s, ',');)
        {
            unsigned long v = std::stoul(s);
            if (v >= n) fail("source " + s + " out of range");
            sources.push_back(static_cast<unsigned>(v));
        }
        unsigned repeat = std::max(1ul, std::stoul(argv[5]));
        std::string dir = argv[6];
        BVSSBFSKernel* kernel = new BVSSBFSKernel(dynamic_cast<BitMatrix*>(bvss));
        std::vector<int> levels(n);
        for (unsigned i = 0; i < sources.size(); ++i)
        {
            for (unsigned r = 0; r < repeat; ++r)
            {
                BFSResult result = kernel->run(inv[sources[i]]);
                std::cout << "Blest BFS source " << sources[i] << " run " << r << ": "
                          << std::fixed << result.time * 1000 << std::defaultfloat << " ms, levels "
                          << result.totalLevels << ", visited " << result.noVisited << std::endl;
                if (r + 1 == repeat)
                {
                    for (unsigned old = 0; old < n; ++old)
                        levels[old] = static_cast<int>(result.levels[inv[old]]);  // UNSIGNED_MAX: -1
                    std::string path = dir + "/levels-" + std::to_string(i) + ".bin";
                    FILE* f = std::fopen(path.c_str(), "wb");
                    if (!f || std::fwrite(levels.data(), sizeof(int), n, f) != n) fail("cannot write " + path);
                    std::fclose(f);
                }
                delete[] result.levels;
            }
        }
        delete kernel;
    }
    else if (cmd == "cc")
    {
        if (argc < 5) fail("usage: blest cc GRAPH ORDER REPEAT");
        unsigned repeat = std::max(1ul, std::stoul(argv[4]));
        BVSSCCKernel* kernel = new BVSSCCKernel(dynamic_cast<BitMatrix*>(bvss));
        for (unsigned r = 0; r < repeat; ++r)
        {
            CCResult result = kernel->run();
            std::cout << "Blest CC run " << r << ": " << std::fixed << result.time * 1000
                      << std::defaultfloat << " ms, components " << result.noComponents << std::endl;
            delete[] result.components;
        }
        delete kernel;
    }
    else
    {
        fail("unknown command " + cmd);
    }
    delete bvss;
    delete[] inv;
    delete csc;
    return 0;
}
EOF

INC=(-I"$SRC" -I"$SRC/DataStructures" -I"$SRC/BFS" -I"$SRC/CC" -I"$SRC/MBFS" -I"$SRC/Gorder")
OBJS=()
for f in Graph Util UnitHeap; do
    g++ -O3 -std=c++20 -fopenmp "${INC[@]}" -c "$SRC/Gorder/$f.cpp" -o "$BUILD/$f.o"
    OBJS+=("$BUILD/$f.o")
done
nvcc -O3 --generate-line-info --std=c++20 -arch=sm_"$ARCH" -Xcompiler -fopenmp "${INC[@]}" \
    -c "$BUILD/driver.cu" -o "$BUILD/driver.o"
nvcc -arch=sm_"$ARCH" --cudart static "$BUILD/driver.o" "${OBJS[@]}" -o "$BUILD/blest" \
    -Xcompiler -static-libstdc++ -Xcompiler -static-libgcc \
    "$(g++ -print-file-name=libgomp.a)" -lpthread -ldl
strip -o "$OUT/blest" "$BUILD/blest"
ls -l "$OUT/blest"
