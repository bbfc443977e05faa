#!/usr/bin/env bash
# One device call: what the GPU machine must check, with a summary in $OUT.
#   bash benchmarks/gpu_check.sh      (run through the device tool; the GPU
#   machine has CuPy, numba, numpy, scipy, pytest and hypothesis, no network)
# Today: tests/gpu (the device seam; the CUDA scalar semantics through the
# elementwise kernels, bit for bit against the CPU). The CUDA kernels' tests
# and benchmarks join this script as they land.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD" NUMBA_CACHE_DIR=/tmp/bitgraph_numba PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/bitgraph_gpu_check}"
mkdir -p "$OUT"
{
  date -u
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, '| numba', numba.__version__, '| numpy', numpy.__version__)"
} 2>&1 | tee "$OUT/summary.txt"
start=$(date +%s)
python3 -m pytest tests/gpu -m gpu -q -p no:cacheprovider -rs 2>&1 | tee "$OUT/tests.txt"
rc=${PIPESTATUS[0]}
echo "gpu tests: exit $rc, $(( $(date +%s) - start )) s; $(tail -1 "$OUT/tests.txt")" | tee -a "$OUT/summary.txt"
exit "$rc"
