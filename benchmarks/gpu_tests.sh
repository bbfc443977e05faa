#!/usr/bin/env bash
# Every GPU test in one call on the GPU machine, in parallel groups (16 cores, one GPU):
# the algorithms' cuda cases (-m gpu tests/algorithms), tests/gpu, and the conformance bodies on
# CUDA objects. Logs in $OUT/<group>.txt; prints each group's summary and failures.
#   bash benchmarks/gpu_tests.sh [GROUP...]      (default: every group; BUDGET s each, 480)
set -uo pipefail
cd "$(dirname "$0")/.." && here="$PWD"
OUT="${OUT:-/tmp/bitgraph_gpu_tests}" && mkdir -p "$OUT"
export NUMBA_CACHE_DIR=/tmp/bitgraph_numba PYTHONUNBUFFERED=1
export BITGRAPH_HYPOTHESIS_PROFILE="${BITGRAPH_HYPOTHESIS_PROFILE:-dev}"
if [ -d .whl ]; then  # python-graphblas and its needs, carried as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH="$here:/tmp/site"
else
  export PYTHONPATH="$here"
fi
declare -A SETS=(
  [cc_tc]="-m gpu tests/algorithms/test_components.py tests/algorithms/test_triangles.py"
  [sssp]="-m gpu tests/algorithms/test_sssp.py"
  [pagerank]="-m gpu tests/algorithms/test_pagerank.py"
  [betweenness]="-m gpu tests/algorithms/test_betweenness.py tests/kernels/test_betweenness_kernels.py"
  [traversal]="-m gpu tests/algorithms/test_bfs.py tests/algorithms/test_msbfs.py"
  [gpu_bfs]="tests/gpu/test_bfs_gpu.py tests/gpu/test_msbfs_gpu.py"
  [gpu_rest]="tests/gpu --ignore=tests/gpu/test_bfs_gpu.py --ignore=tests/gpu/test_msbfs_gpu.py"
  [conformance]="tests/test_conformance_mxv.py tests/test_conformance_mxm.py tests/test_conformance_ewise.py tests/test_conformance_apply_select.py tests/test_conformance_reduce.py tests/test_conformance_extract_assign.py"
)
names=("$@"); [ ${#names[@]} -eq 0 ] && names=("${!SETS[@]}")
for g in "${names[@]}"; do
  env=(); [ "$g" = conformance ] && env=(BG_CONFORMANCE_DEVICE=cuda)
  # shellcheck disable=SC2086
  ( env "${env[@]}" timeout "${BUDGET:-480}" python3 -m pytest ${SETS[$g]} -q -p no:cacheprovider \
      --maxfail=25 > "$OUT/$g.txt" 2>&1; echo "rc=$?" >> "$OUT/$g.txt" ) &
done
wait
for g in "${names[@]}"; do
  echo "== $g: $(tail -2 "$OUT/$g.txt" | tr '\n' ' ')"
  grep -E "^(FAILED|ERROR)" "$OUT/$g.txt" | cut -c1-220 | head -12
done
