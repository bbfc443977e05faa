#!/usr/bin/env bash
# One device call: the GPU tests and the GPU benchmarks, with a summary in $OUT.
#   bash benchmarks/gpu_check.sh              tests, then benchmarks at full size
#   bash benchmarks/gpu_check.sh tests [PATH...]   tests/gpu only (or the test files named)
#   bash benchmarks/gpu_check.sh bench [SPEC...]   benchmarks only (default kron:22 urand:22 grid:2048x2048)
#   bash benchmarks/gpu_check.sh bfs [SPEC...]     the BFS benchmark (bench_bfs_gpu.py; default: issue 6's graphs)
#   bash benchmarks/gpu_check.sh bfs-ab [SPEC...]  single BFS: its GPU tests (msbfs's left out), then
#                                                  the direction rule's variants, A/B
#                                                  (ab_bfs_gpu.py; default kron:22 urand:21:32 kron:21)
#   bash benchmarks/gpu_check.sh msbfs [SPEC...]   msbfs: its GPU and launcher tests, then one
#                                                  cooperative launch a batch against the level
#                                                  kernels and the BFSs side by side, A/B
#                                                  (ab_msbfs_gpu.py alg.CUDA_COOP)
#   bash benchmarks/gpu_check.sh bfs-vs DIR [SPEC...]  single BFS: ab_bfs_gpu.py run alternately
#                                                  in DIR (an older tree) and here, twice each,
#                                                  this tree's per-level trace, then its GPU
#                                                  tests (msbfs's left out)
#   bash benchmarks/gpu_check.sh async DIR [SPEC...]  the asynchronous BFS, one source or a batch
#                                                  side by side: its tests (msbfs's, the
#                                                  launcher's, bfs's async ones), msbfs's
#                                                  default against no level check, 8 and 16
#                                                  warps and the cooperative launch, batches
#                                                  of 8 and 16 sources, then the single
#                                                  async BFS in DIR (an older tree; DIR "" skips
#                                                  it) and here, alternately; ASYNC_TESTS: the
#                                                  tests' -k
#   bash benchmarks/gpu_check.sh msbfs-vs DIR [SPEC...]  msbfs tests, the host's part of a call
#                                                  (host_msbfs_gpu.py), then ab_msbfs_gpu.py run
#                                                  alternately in DIR (an older tree, e.g. from
#                                                  git archive) and here, 3 times each
# Run through the device tool: the GPU machine has CuPy, numba, numpy, scipy,
# pytest and hypothesis, no network; results land in $OUT (summary.txt,
# tests.txt, bench_gpu.md/json, bench_tc_gpu.md/json, bfs.md/json).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD" NUMBA_CACHE_DIR=/tmp/bitgraph_numba PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/bitgraph_gpu_check}"
mkdir -p "$OUT"
what="${1:-all}"
shift || true
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, '| numba', numba.__version__, '| numpy', numpy.__version__)"
} 2>&1 | tee "$OUT/summary.txt"
rc=0
# the msbfs GPU and launcher tests; their exit status in $t
msbfs_tests() {
  python3 -m pytest tests/gpu/test_msbfs_gpu.py tests/kernels/test_msbfs_launcher.py -q \
    -p no:cacheprovider -rs 2>&1 | tee "$OUT/msbfs_tests.txt"
  t=${PIPESTATUS[0]}
  echo "msbfs tests: exit $t, $(( $(date +%s) - start )) s; $(tail -1 "$OUT/msbfs_tests.txt")" \
    | tee -a "$OUT/summary.txt"
}
# alternate OLD ROUNDS LOG SCRIPT ARGS...: SCRIPT run in the tree OLD, then
# in this one, ROUNDS times, appended to $OUT/LOG
alternate() {
  local old="$1" rounds="$2" log="$OUT/$3"
  shift 3
  for r in $(seq "$rounds"); do
    echo "== round $r: $old" | tee -a "$log"
    (cd "$old" && PYTHONPATH="$PWD" python3 "$@") 2>&1 | tee -a "$log"
    echo "== round $r: this tree" | tee -a "$log"
    python3 "$@" 2>&1 | tee -a "$log"
  done
}
if [ "$what" = all ] || [ "$what" = tests ]; then
  start=$(date +%s)
  python3 -m pytest "${@:-tests/gpu}" -m gpu -q -p no:cacheprovider -rs 2>&1 | tee "$OUT/tests.txt"
  rc=${PIPESTATUS[0]}
  echo "gpu tests: exit $rc, $(( $(date +%s) - start )) s; $(tail -1 "$OUT/tests.txt")" | tee -a "$OUT/summary.txt"
fi
if [ "$what" = all ] || [ "$what" = bench ]; then
  start=$(date +%s)
  python3 benchmarks/bench_gpu.py "$@" --json "$OUT/bench_gpu.json" 2>&1 | tee "$OUT/bench_gpu.md"
  b1=${PIPESTATUS[0]}
  python3 benchmarks/bench_tc_gpu.py "$@" --out "$OUT/bench_tc_gpu.json" 2>&1 | tee "$OUT/bench_tc_gpu.md"
  b2=${PIPESTATUS[0]}
  echo "gpu benchmarks: exit $b1 (spmv), $b2 (tc), $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  [ "$b1" = 0 ] && [ "$b2" = 0 ] || rc=1
fi
if [ "$what" = bfs ]; then
  start=$(date +%s)
  python3 benchmarks/bench_bfs_gpu.py "$@" --json "$OUT/bfs.json" 2>&1 | tee "$OUT/bfs.md"
  b3=${PIPESTATUS[0]}
  echo "bfs benchmark: exit $b3, $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  [ "$b3" = 0 ] || rc=1
fi
if [ "$what" = bfs-ab ]; then
  start=$(date +%s)
  python3 -m pytest tests/gpu/test_bfs_gpu.py -m gpu -q -p no:cacheprovider -rs \
    -k "not msbfs and not closeness" 2>&1 | tee "$OUT/bfs_tests.txt"
  t=${PIPESTATUS[0]}
  echo "bfs tests: exit $t, $(( $(date +%s) - start )) s; $(tail -1 "$OUT/bfs_tests.txt")" \
    | tee -a "$OUT/summary.txt"
  specs=("$@")
  [ ${#specs[@]} -gt 0 ] || specs=(kron:22 urand:21:32 kron:21)
  python3 benchmarks/ab_bfs_gpu.py "${specs[@]}" --sources 32 --rounds 2 \
    --set "" bfs.DEAD_VISITED=0 bfs.BETA_CUDA=0 bfs.ALPHA_CUDA=0.02 \
    bfs.ALPHA_CUDA=0.1 2>&1 | tee "$OUT/bfs_ab.md"
  b5=${PIPESTATUS[0]}
  echo "bfs A/B: exit $b5, $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  [ "$t" = 0 ] && [ "$b5" = 0 ] || rc=1
fi
if [ "$what" = msbfs ]; then
  start=$(date +%s)
  msbfs_tests
  specs=("$@")
  [ ${#specs[@]} -gt 0 ] || specs=(grid:2048x2048:0.01 rgg:4194304:0.00110193
                                    grid:161x161x161:0.0 kron:22 urand:21:32)
  if [ "$t" = 0 ]; then
    python3 benchmarks/ab_msbfs_gpu.py "${specs[@]}" \
      --set "" alg.CUDA_COOP=0 alg.CUDA_COOP=async --rounds 3 --every 3 2>&1 \
      | tee "$OUT/msbfs_ab.md"
    b4=${PIPESTATUS[0]}
    echo "msbfs A/B: exit $b4, $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
    [ "$b4" = 0 ] || rc=1
  else
    rc=1
  fi
fi
if [ "$what" = msbfs-vs ]; then
  old="$1"
  shift
  start=$(date +%s)
  msbfs_tests
  specs=("$@")
  [ ${#specs[@]} -gt 0 ] || specs=(kron:22 kron:21 urand:22 urand:21:32)
  if [ "$t" = 0 ]; then
    python3 benchmarks/host_msbfs_gpu.py "${specs[@]}" --stages 2>&1 | tee "$OUT/msbfs_host.md"
    alternate "$old" 3 msbfs_vs.md benchmarks/ab_msbfs_gpu.py "${specs[@]}" --rounds 4 --every 4
    echo "msbfs vs $old: $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  else
    rc=1
  fi
fi
if [ "$what" = bfs-vs ]; then
  old="$1"
  shift
  start=$(date +%s)
  specs=("$@")
  [ ${#specs[@]} -gt 0 ] || specs=(urand:21:32 kron:22 kron:21)
  alternate "$old" 2 bfs_vs.md benchmarks/ab_bfs_gpu.py "${specs[@]}" --sources 32 --rounds 1
  python3 benchmarks/trace_bfs_gpu.py "${specs[@]}" --sources 2 --methods direction --levels \
    2>&1 | tee "$OUT/bfs_trace.md"
  echo "bfs vs $old: $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  python3 -m pytest tests/gpu/test_bfs_gpu.py -m gpu -q -p no:cacheprovider -rs \
    -k "not msbfs and not closeness" 2>&1 | tee "$OUT/bfs_tests.txt"
  t=${PIPESTATUS[0]}
  echo "bfs tests: exit $t, $(( $(date +%s) - start )) s; $(tail -1 "$OUT/bfs_tests.txt")" \
    | tee -a "$OUT/summary.txt"
  [ "$t" = 0 ] || rc=1
fi
if [ "$what" = async ]; then
  old="$1"
  shift
  start=$(date +%s)
  python3 -m pytest tests/gpu/test_msbfs_gpu.py tests/kernels/test_msbfs_launcher.py \
    tests/gpu/test_bfs_gpu.py -q -p no:cacheprovider -rs \
    -k "${ASYNC_TESTS:-not test_bfs_gpu or async or auto}" 2>&1 | tee "$OUT/async_tests.txt"
  t=${PIPESTATUS[0]}
  echo "async tests: exit $t, $(( $(date +%s) - start )) s; $(tail -1 "$OUT/async_tests.txt")" \
    | tee -a "$OUT/summary.txt"
  specs=("$@")
  [ ${#specs[@]} -gt 0 ] || specs=(grid:2048x2048:0.01 rgg:4194304:0.00110193
                                    grid:161x161x161:0.0)
  # 64 sources: the batch's level check (BATCH_CHECK, on by default) against
  # none, 8 and 16 warps a multiprocessor against the default 12, and the
  # cooperative launch, on grid-2048 and the 3D grid; rgg (16 a row, above
  # ASYNC_MAX_DEGREE) side by side against its cooperative launch; then
  # batches of 8 and 16 sources
  for g in "${specs[0]}" "${specs[2]}"; do
    python3 benchmarks/ab_msbfs_gpu.py "$g" --set "" ka.BATCH_CHECK=0 ka.BATCH_WARPS_PER_SM=8 \
      ka.BATCH_WARPS_PER_SM=16 alg.CUDA_COOP=1 --rounds 4 --every 1 2>&1 | tee -a "$OUT/async_ab.md"
  done
  python3 benchmarks/ab_msbfs_gpu.py "${specs[1]}" --set "" alg.CUDA_COOP=async \
    --rounds 3 --every 3 2>&1 | tee -a "$OUT/async_ab.md"
  for k in 8 16; do
    python3 benchmarks/ab_msbfs_gpu.py "${specs[0]}" --sources $k --set "" \
      ka.BATCH_MIN_SOURCES=100 alg.CUDA_COOP=1 --rounds 3 --every 1 2>&1 | tee -a "$OUT/async_ab.md"
  done
  [ -z "$old" ] || alternate "$old" 2 async_vs.md benchmarks/bench_bfs_gpu.py grid:2048x2048:0.01 \
    --sources 16 --repeat 1 --reorders none --methods async --ms-sources 0 \
    --method-budget 3 --budget 60
  echo "async: $(( $(date +%s) - start )) s" | tee -a "$OUT/summary.txt"
  [ "$t" = 0 ] || rc=1
fi
exit "$rc"
