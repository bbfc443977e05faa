#!/usr/bin/env bash
# Build the Gunrock v2 anchors (sssp, pr, tc, bc) for benchmarks/run.py, here (nvcc 13, no GPU
# needed); the lead carries OUT to the GPU machine.
#
#   benchmarks/gunrock.sh [SRC] [OUT]
#
# SRC (default anchors/src beside this repository's benchmarks/) holds the
# extracted sources, fetched by hand and never committed (kept small: the
# anchors tree travels to the GPU machine), e.g. from local mirrors:
#   git -C gunrock.git archive HEAD | tar -x -C SRC/gunrock           gunrock/gunrock main
#   git -C cxxopts.git archive v3.0.0 | tar -x -C SRC/cxxopts         jarro2783/cxxopts
#   git -C json.git archive v3.11.3 CMakeLists.txt cmake include LICENSE.MIT \
#       | tar -x -C SRC/json                                          nlohmann/json
#   git -C cmake-modules.git archive HEAD GetGitRevisionDescription.cmake \
#       GetGitRevisionDescription.cmake.in | tar -x -C SRC/cmake-modules
#       (rpavlik/cmake-modules; optional: a stub is written when absent)
# cccl needs no source: nvcc ships CCCL (an empty stub folder stands in).
# OUT (default anchors/gunrock) receives the stripped binaries sssp, pr, tc, bc.
# The build folder is $GUNROCK_BUILD (default /tmp/gunrock-build-$USER, outside the
# carried tree); CUDA arch $GUNROCK_ARCH (default 90), make -j$GUNROCK_JOBS (default 2).
# This script fetches nothing and changes only the copies under SRC.
#
# The patch (applied idempotently to SRC/gunrock):
# 1. Gunrock's device paths sit behind `#if __HIP_DEVICE_COMPILE__`, which nvcc
#    never defines, so on CUDA its atomics are plain host code and SSSP reaches
#    nothing; each is widened to `defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)`.
# 2. tc advances over the whole graph again (see the TC block below).
# 3. Link: sssp, pr, tc and bc use neither cuRAND nor cuSPARSE nor the driver API,
#    so those libraries are dropped from the link (the build machine has none)
#    and cudart is linked statically: the binaries need only libc/libstdc++.
# 4. pr takes its tolerance and an iteration cap from the environment and prints
#    its iteration count (see the pr block below); unset, it behaves as upstream.
# 5. bc gives right values on CUDA (see the bc block below) and prints each source's time.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(realpath "${1:-$HERE/../anchors/src}")
OUT=$(realpath -m "${2:-$HERE/../anchors/gunrock}")
ARCH=${GUNROCK_ARCH:-90}
JOBS=${GUNROCK_JOBS:-2}
G=$SRC/gunrock
BUILD=${GUNROCK_BUILD:-/tmp/gunrock-build-${USER:-$(id -u)}}

for d in "$G" "$SRC/cxxopts" "$SRC/json"; do
    [ -d "$d" ] || { echo "gunrock.sh: missing source folder $d" >&2; exit 1; }
done

# --- dependencies: a CCCL stub (nvcc ships CCCL) and, if absent, a cmake-modules stub
mkdir -p "$BUILD/cccl-stub"
MODULES=$SRC/cmake-modules
if [ ! -f "$MODULES/GetGitRevisionDescription.cmake" ]; then
    MODULES=$BUILD/cmake-modules-stub
    mkdir -p "$MODULES"
    cat > "$MODULES/GetGitRevisionDescription.cmake" <<'EOF'
# Stub of rpavlik/cmake-modules' GetGitRevisionDescription: Gunrock only calls this.
function(get_git_head_revision _refspecvar _hashvar)
  set(${_refspecvar} "unknown" PARENT_SCOPE)
  set(${_hashvar} "unknown" PARENT_SCOPE)
endfunction()
EOF
fi

# Each patch edits a file only where it is not applied yet, so that a second run
# rebuilds nothing.
# --- patch 1: device code paths on CUDA
HIPGUARD='^#if(def)? __HIP_DEVICE_COMPILE__$'
for f in "$G/include/gunrock/util/math.hxx" \
         "$G/include/gunrock/framework/frontier/vector_frontier.hxx" \
         "$G/include/gunrock/framework/frontier/experimental/boolmap_frontier.hxx"; do
    if grep -qE "$HIPGUARD" "$f"; then
        sed -i -E "s/$HIPGUARD/#if defined(__HIP_DEVICE_COMPILE__) || defined(__CUDA_ARCH__)/" "$f"
    fi
done
if grep -rnE "$HIPGUARD" "$G/include"; then
    echo "gunrock.sh: an unwidened __HIP_DEVICE_COMPILE__ guard is left (above)" >&2
    exit 1
fi

# --- patch 2: TC. Upstream commit d6ba0417c ("Applications: New API") replaced
# tc's advance over the whole graph (input `graph`, output `none`) with
# execute_runtime, which always advances the enactor's input frontier; TC runs
# with self_manage_frontiers, so that frontier is empty, no edge is visited and
# every count is 0. Restore the earlier call.
TC=$G/include/gunrock/algorithms/tc.hxx
if grep -q 'execute_runtime(G, E, intersect, advance_load_balance, context);' "$TC"; then
    sed -i -E 's/^    operators::advance::execute_runtime\(G, E, intersect, advance_load_balance, context\);$/    operators::advance::execute<operators::load_balance_t::block_mapped, operators::advance_direction_t::forward, operators::advance_io_type_t::graph, operators::advance_io_type_t::none>(G, E, intersect, context);/' "$TC"
fi
grep -q 'advance_io_type_t::graph, operators::advance_io_type_t::none>(G, E, intersect, context)' \
    "$TC" || { echo "gunrock.sh: tc.hxx patch did not apply" >&2; exit 1; }

# --- patch 4: pr runs a given number of iterations. Its stop rule (max_i |p_i - p_last_i|
# < tol, tol = 1e-6 fixed in pr.cu, no iteration cap) cannot express our L1 rule, so the
# anchor sets $GUNROCK_PR_TOL (default 1e-6, as upstream) to 0 and $GUNROCK_PR_MAX_ITER to
# the iterations our rule needs, and pr prints "PR iterations : N" after each run.
PRH=$G/include/gunrock/algorithms/pr.hxx
PRCU=$G/examples/algorithms/pr/pr.cu
if grep -q '^    return err < tol;$' "$PRH"; then
    sed -i -E 's/^    return err < tol;$/    const char* max_iter = std::getenv("GUNROCK_PR_MAX_ITER");\n    return err < tol || (max_iter \&\& this->iteration >= std::atoi(max_iter));/' "$PRH"
fi
if grep -q '^  return enactor.enact();$' "$PRH"; then
    sed -i -E 's/^  return enactor.enact\(\);$/  float elapsed = enactor.enact();\n  std::cout << "PR iterations : " << enactor.iteration << std::endl;\n  return elapsed;/' "$PRH"
fi
if ! grep -q '^#include <cstdlib>$' "$PRH"; then
    sed -i -E 's/^(#include <thrust\/inner_product.h>)$/\1\n#include <cstdlib>\n#include <iostream>/' "$PRH"
fi
if grep -q '^  weight_t tol = 1e-6;$' "$PRCU"; then
    sed -i -E 's/^  weight_t tol = 1e-6;$/  weight_t tol = std::getenv("GUNROCK_PR_TOL") ? std::strtof(std::getenv("GUNROCK_PR_TOL"), nullptr) : 1e-6f;/' "$PRCU"
fi
for pat in 'GUNROCK_PR_MAX_ITER' 'PR iterations : ' '^#include <cstdlib>$'; do
    grep -q "$pat" "$PRH" || { echo "gunrock.sh: pr.hxx patch did not apply ($pat)" >&2; exit 1; }
done
grep -q 'GUNROCK_PR_TOL' "$PRCU" || { echo "gunrock.sh: pr.cu patch did not apply" >&2; exit 1; }

# --- patch 5: bc. Upstream bc advances with merge_path_v2, whose kernel indexes the input
# frontier and the edge offsets with tile-local row numbers (correct only while a level's
# vertices + edges fit one tile of 640: karate, not kron) and whose host code prints and
# sorts every frontier inside the timed loop; bc keeps one frontier buffer per BFS level
# in a fixed 1000 (grid-2048: up to ~4,100 levels, rgg-22: ~1,100). The patch advances with
# block_mapped (sssp's default, validated), grows the buffers with the depth, skips the
# backward advance of the empty deepest level (a 0-block launch), and in bc.cu prints
# "BC source S : T (ms)" after each run, runs one untimed warm-up from the first source
# whose values it clears when $GUNROCK_BC_WARMUP is set, prints $GUNROCK_BC_HEAD leading
# values (default 40), and prints the last run's time whatever -n says. Its values: the
# sum over the runs' sources of delta_s(v) / 2 (float32).
BC_PATCH=$(cat <<'PATCH'
--- a/examples/algorithms/bc/bc.cu
+++ b/examples/algorithms/bc/bc.cu
@@ -2,6 +2,8 @@
 #include <gunrock/util/performance.hxx>
 #include <gunrock/io/parameters.hxx>
 
+#include <cstdlib>
+
 using namespace gunrock;
 using namespace memory;
 
@@ -62,6 +64,16 @@
   size_t n_runs = source_vect.size();
   std::vector<float> run_times;
 
+  // GUNROCK_BC_WARMUP set: one untimed run from the first source, its values cleared
+  if (std::getenv("GUNROCK_BC_WARMUP")) {
+    gunrock::bc::param_t<vertex_t> param(source_vect[0], options);
+    gunrock::bc::result_t<weight_t> result(bc_values.data().get());
+    gunrock::bc::run(G, param, result, context);
+    context->get_context(0)->synchronize();
+    thrust::fill(bc_values.begin(), bc_values.end(), (weight_t)0);
+    context->get_context(0)->synchronize();
+  }
+
   auto benchmark_metrics = std::vector<benchmark::host_benchmark_t>(n_runs);
   for (int i = 0; i < n_runs; i++) {
     // Synchronize before each run to ensure clean state
@@ -75,6 +87,8 @@
     gunrock::bc::result_t<weight_t> result(bc_values.data().get());
 
     run_times.push_back(gunrock::bc::run(G, param, result, context));
+    std::cout << "BC source " << source_vect[i] << " : " << run_times.back()
+              << " (ms)" << std::endl;
 
     benchmark::host_benchmark_t metrics = benchmark::EXTRACT();
     benchmark_metrics[i] = metrics;
@@ -97,8 +111,10 @@
   // Log
 
   std::cout << "Single source : " << source_vect.back() << "\n";
-  print::head(bc_values, 40, "GPU bc values");
-  std::cout << "GPU Elapsed Time : " << run_times[arguments.num_runs - 1]
+  // GUNROCK_BC_HEAD: how many leading values to print (default 40)
+  const char* head = std::getenv("GUNROCK_BC_HEAD");
+  print::head(bc_values, head ? std::atoi(head) : 40, "GPU bc values");
+  std::cout << "GPU Elapsed Time : " << run_times.back()
             << " (ms)" << std::endl;
 }
 
--- a/include/gunrock/algorithms/bc.hxx
+++ b/include/gunrock/algorithms/bc.hxx
@@ -137,10 +137,13 @@
       };
 
       while (true) {
+        // one frontier buffer per level: grow past the fixed 1000 (deep graphs)
+        if (this->depth + 2 > this->frontiers.size())
+          this->frontiers.resize(2 * (this->depth + 2));
         auto in_frontier = &(this->frontiers[this->depth]);
         auto out_frontier = &(this->frontiers[this->depth + 1]);
 
-        operators::advance::execute<operators::load_balance_t::merge_path_v2,
+        operators::advance::execute<operators::load_balance_t::block_mapped,
                                     operators::advance_direction_t::forward,
                                     operators::advance_io_type_t::vertices,
                                     operators::advance_io_type_t::vertices>(
@@ -178,12 +181,14 @@
         auto in_frontier = &(this->frontiers[this->depth]);
         auto out_frontier = &(this->frontiers[this->depth + 1]);
 
-        operators::advance::execute<operators::load_balance_t::merge_path_v2,
-                                    operators::advance_direction_t::forward,
-                                    operators::advance_io_type_t::vertices,
-                                    operators::advance_io_type_t::none>(
-            G, backward_op, in_frontier, out_frontier, E->scanned_work_domain,
-            context);
+        // an empty level (the deepest) launches nothing: a 0-block grid is an error
+        if (!in_frontier->is_empty())
+          operators::advance::execute<operators::load_balance_t::block_mapped,
+                                      operators::advance_direction_t::forward,
+                                      operators::advance_io_type_t::vertices,
+                                      operators::advance_io_type_t::none>(
+              G, backward_op, in_frontier, out_frontier, E->scanned_work_domain,
+              context);
 
         this->depth--;
         this->search_depth++;
PATCH
)
if ! printf '%s\n' "$BC_PATCH" | patch -d "$G" -p1 -R -s -f --dry-run >/dev/null 2>&1; then
    printf '%s\n' "$BC_PATCH" | patch -d "$G" -p1 -s -f --no-backup-if-mismatch \
        || { echo "gunrock.sh: bc patch did not apply" >&2; exit 1; }
fi
grep -q 'load_balance_t::merge_path_v2' "$G/include/gunrock/algorithms/bc.hxx" \
    && { echo "gunrock.sh: bc.hxx still uses merge_path_v2" >&2; exit 1; }
grep -q 'GUNROCK_BC_WARMUP' "$G/examples/algorithms/bc/bc.cu" \
    || { echo "gunrock.sh: bc.cu patch did not apply" >&2; exit 1; }

# --- patch 3: link only what sssp/pr/tc/bc use
LIBS='^    INTERFACE (curand|cuda|cusparse)$'
if grep -qE "$LIBS" "$G/CMakeLists.txt"; then
    sed -i -E "/$LIBS/d" "$G/CMakeLists.txt"
fi

cmake -S "$G" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
    -DCMAKE_CUDA_RUNTIME_LIBRARY=Static \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed" \
    -DESSENTIALS_NVIDIA_BACKEND=ON -DESSENTIALS_AMD_BACKEND=OFF \
    -DESSENTIALS_BUILD_TESTS=OFF -DESSENTIALS_BUILD_BENCHMARKS=OFF \
    -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
    -DFETCHCONTENT_SOURCE_DIR_CCCL="$BUILD/cccl-stub" \
    -DFETCHCONTENT_SOURCE_DIR_CXXOPTS="$SRC/cxxopts" \
    -DFETCHCONTENT_SOURCE_DIR_JSON="$SRC/json" \
    -DFETCHCONTENT_SOURCE_DIR_CMAKE_MODULES="$MODULES" \
    -DJSON_BuildTests=OFF -DCXXOPTS_BUILD_TESTS=OFF -DCXXOPTS_BUILD_EXAMPLES=OFF
make -C "$BUILD" -j"$JOBS" sssp pr tc bc

mkdir -p "$OUT"
for b in sssp pr tc bc; do
    strip -o "$OUT/$b" "$BUILD/bin/$b"
done
ls -l "$OUT"
