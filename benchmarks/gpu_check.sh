#!/usr/bin/env bash
# One call on the GPU machine (run through the device tool; copies land in $OUT):
#   bash benchmarks/gpu_check.sh tests [PYTEST ARGS]     tests/gpu, -x, cut off after $BUDGET s (550)
#   bash benchmarks/gpu_check.sh conformance [PYTEST ARGS]  the GraphBLAS conformance bodies on CUDA
#                  objects against python-graphblas (BG_CONFORMANCE_DEVICE=cuda), and the algorithm
#                  tests' cuda cases (-m gpu tests/algorithms); needs the wheels in .whl (carry it)
#   bash benchmarks/gpu_check.sh bench [RUN.PY ARGS]     the bfs and msbfs CUDA cases, their table
#   bash benchmarks/gpu_check.sh ab OLD_TREE [RUN.PY ARGS]  the same cases with OLD_TREE's bitgraph
#                  and this tree's, alternately, $ROUNDS (2) times each: same machine, same run
#                  (OLD_TREE: e.g. `git archive main | tar -x -C /tmp/old` before the call)
# Set BITGRAPH_COMMIT=$(git rev-parse --short HEAD) in the call where the copy's git is not the tree's.
set -uo pipefail
cd "$(dirname "$0")/.." && here="$PWD"
export NUMBA_CACHE_DIR=/tmp/bitgraph_numba PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/bitgraph_gpu_check}" && mkdir -p "$OUT"
what="${1:-}"
shift || true
if [ -d "$here/.whl" ]; then  # python-graphblas and its needs, carried as wheels
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site "$here"/.whl/*.whl && export SITE=/tmp/site || exit 1
fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/summary.txt"
bench() {  # bench TREE LOG ARGS...: run.py (this tree's) over TREE's bitgraph
  local tree="$1" log="$2"; shift 2
  PYTHONPATH="$tree" python3 "$here/benchmarks/run.py" --device cuda --algo bfs,msbfs "$@" \
    2>&1 | tee -a "$OUT/$log"
  return "${PIPESTATUS[0]}"
}
case "$what" in
  tests)
    PYTHONPATH="$here${SITE:+:$SITE}" timeout "${BUDGET:-550}" python3 -m pytest "${@:-tests/gpu}" -x -q \
      -p no:cacheprovider -rs 2>&1 | tee "$OUT/tests.txt"
    exit "${PIPESTATUS[0]}" ;;
  conformance)
    BG_CONFORMANCE_DEVICE=cuda PYTHONPATH="$here${SITE:+:$SITE}" timeout "${BUDGET:-550}" \
      python3 -m pytest "${@:-tests/test_conformance_*.py}" -q -p no:cacheprovider -rs \
      --maxfail=50 2>&1 | tee "$OUT/conformance.txt"
    exit "${PIPESTATUS[0]}" ;;
  bench)
    bench "$here" bench.txt --write "$OUT/RESULTS.md" "$@"; rc=$?
    cat "$OUT/RESULTS.md"  # merge here: run.py --merge RESULTS.md --write benchmarks/RESULTS.md
    exit "$rc" ;;
  ab)
    old="${1:?usage: gpu_check.sh ab OLD_TREE [run.py args]}"; shift; rc=0
    for r in $(seq "${ROUNDS:-2}"); do
      for tree in "$old" "$here"; do
        echo "== round $r: $tree" | tee -a "$OUT/ab.txt"
        bench "$tree" ab.txt "$@" || rc=1
      done
    done
    exit "$rc" ;;
  *) sed -n '2,7p' "$0"; exit 2 ;;
esac
