#!/usr/bin/env bash
# The first GPU call on a fresh machine, itemised (issue 29, item 3): every
# cache emptied (CuPy's kernel cache ~/.cupy, bitgraph's NVRTC cache
# ~/.cache/bitgraph, the driver's ~/.nv, the numba cache), then a first
# `bfs` on GRAPH in a new process (benchmarks/first_call.py prints the
# phases); a second process with the caches the first left; the same with
# the shipped fatbins off; then, each in a fresh state, the first call on
# each MORE graph: by default kron:20 (past settings.bfs.probe_min_n: auto's
# reach probe runs) and moore:96x96x96 (auto: blest, the BVSS built on the
# GPU).
#
#   bash benchmarks/first_call.sh [GRAPH [MORE...]]     (default: kron:12 kron:20 moore:96x96x96)
#
# The shipped fatbins: bitgraph/kernels/cuda/precompiled/ (what the wheel
# ships; build it where nvcc is with
# `python -m bitgraph.kernels.cuda.precompile bitgraph/kernels/cuda/precompiled`
# and carry it), or $BITGRAPH_CUDA_PRECOMPILED; built here if absent and
# nvcc exists.
set -euo pipefail
cd "$(dirname "$0")/.."
graph=${1:-kron:12}
if [ $# -gt 1 ]; then more=("${@:2}"); elif [ $# -eq 1 ]; then more=(); else
  more=(kron:20 moore:96x96x96); fi
export PYTHONPATH=$PWD
shipped=${BITGRAPH_CUDA_PRECOMPILED:-bitgraph/kernels/cuda/precompiled}
if [ ! -f "$shipped/bfs_fused.json" ] && command -v nvcc >/dev/null 2>&1; then
  t0=$(date +%s)
  python3 -m bitgraph.kernels.cuda.precompile "$shipped"
  echo "precompile: $(( $(date +%s) - t0 )) s"
fi
[ -f "$shipped/bfs_fused.json" ] || echo "no shipped fatbins in $shipped: every run compiles with NVRTC"
export BITGRAPH_CUDA_PRECOMPILED=$PWD/$shipped
[ "${shipped#/}" != "$shipped" ] && export BITGRAPH_CUDA_PRECOMPILED=$shipped
numba_dir=$(mktemp -d)
export NUMBA_CACHE_DIR=$numba_dir

fresh() {
  rm -rf ~/.cupy ~/.cache/bitgraph ~/.nv "$numba_dir"
  mkdir -p "$numba_dir"
  # numba's default cache beside the sources, should NUMBA_CACHE_DIR be ignored
  find bitgraph -name '*.nbi' -delete -o -name '*.nbc' -delete
}

fresh
python3 benchmarks/first_call.py --graph "$graph" --label "1: fresh, shipped fatbins"
python3 benchmarks/first_call.py --graph "$graph" --label "2: a second process"
fresh
python3 benchmarks/first_call.py --graph "$graph" --nvrtc --label "3: fresh, NVRTC only"
fresh
for g in "${more[@]}"; do
  python3 benchmarks/first_call.py --graph "$g" --label "fresh, shipped fatbins"
  fresh
done
