#!/usr/bin/env bash
# Build the external anchors of benchmarks/run.py on the GPU machine, from sources placed in
# anchors/src (git-ignored, carried with the call: `carry=["anchors"]`), into anchors/ (the
# folder run.py's --anchors names). Their code is never committed.
#   ECL-CC (burtscher/ECL-Suite src/baseline/egr-input/CC/ECL-CC_11.cu + library/ECLgraph.h):
#     CUDA 13 removed cudaDeviceProp.clockRate/memoryClockRate, which it only prints: zeroed here.
set -euo pipefail
cd "$(dirname "$0")/.."
src=anchors/src
if [ -f "$src/ECL-CC_11.cu" ] && [ ! -x anchors/ecl-cc ]; then
  sed -e 's/deviceProp\.clockRate \* 0\.001/0.0/; s/deviceProp\.memoryClockRate \* 0\.001/0.0/' \
    "$src/ECL-CC_11.cu" > "$src/ecl-cc.cu"
  nvcc -O3 -arch=sm_90 -I"$src" -o anchors/ecl-cc "$src/ecl-cc.cu"
  echo "built anchors/ecl-cc"
fi
