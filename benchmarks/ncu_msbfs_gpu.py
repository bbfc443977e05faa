"""Per-kernel table of one 64-source msbfs call on the GPU, from Nsight
Compute: time, DRAM bytes and throughput, L2 sectors and throughput, SM
throughput, active warps and instructions of every kernel the call
launches (caches not flushed between kernels, as in a real call).

    python3 benchmarks/ncu_msbfs_gpu.py kron:22 [--ncu /usr/local/cuda/bin/ncu]
    python3 benchmarks/ncu_msbfs_gpu.py grid:2048x2048:0.01 --skip 6000 --count 150

``--set NAME=VALUE[,...]`` runs the call with ab_msbfs_gpu.py's variant
(``alg.CUDA_COOP=async,ka.CHAIN_MAX=0``). ``--kernel REGEX --section S...``
profiles the kernels matching REGEX with ncu's sections (WarpStateStats,
MemoryWorkloadAnalysis, ...) and prints ncu's own report in place of the
table.

``--skip`` and ``--count`` profile a window of the call's kernels (a long
traversal launches thousands); the table then ends with each kernel's
count, sum and mean.

It runs itself under ncu with ``--driver`` (one warm-up call, then the
profiled call between cudaProfilerStart and Stop) and prints the table.
"""

from __future__ import annotations

import argparse
import csv
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

METRICS = {
    "gpu__time_duration.sum": ("us", 1e-3),
    "dram__bytes_read.sum": ("DRAM rd MB", 1e-6),
    "dram__bytes_write.sum": ("DRAM wr MB", 1e-6),
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": ("DRAM %", 1),
    "lts__t_sectors.sum": ("L2 Msectors", 1e-6),
    "lts__throughput.avg.pct_of_peak_sustained_elapsed": ("L2 %", 1),
    "sm__throughput.avg.pct_of_peak_sustained_elapsed": ("SM %", 1),
    "sm__warps_active.avg.pct_of_peak_sustained_active": ("warps %", 1),
    "smsp__inst_executed.sum": ("M instr", 1e-6),
}


def driver(spec, sources, seed, variant=""):
    import cupy
    import numpy as np

    import bitgraph as bg
    from bitgraph.io.generators import from_spec

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from ab_msbfs_gpu import _variant, where

    for name, value in _variant(variant).items():
        setattr(*where(name), value)
    A = from_spec(spec, device="cuda")
    deg = cupy.asnumpy(A.indptr[1:] - A.indptr[:-1])
    src = np.random.default_rng(seed).choice(np.flatnonzero(deg > 0), sources)
    bg.algorithms.msbfs(A, src)
    cupy.cuda.Device().synchronize()
    cupy.cuda.profiler.start()
    bg.algorithms.msbfs(A, src)
    cupy.cuda.Device().synchronize()
    cupy.cuda.profiler.stop()


def table(text):
    rows = list(csv.DictReader(line for line in text.splitlines() if not line.startswith("==")))
    kernels = {}
    for r in rows:
        key = (int(r["ID"]), r["Kernel Name"].split("(")[0].replace("void ", ""), r["Grid Size"])
        kernels.setdefault(key, {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    print("| id | kernel | grid | " + " | ".join(h for h, _ in METRICS.values()) + " |")
    print("|---|---|---|" + "---:|" * len(METRICS))
    total = 0.0
    for (i, name, grid), m in sorted(kernels.items()):
        total += m.get("gpu__time_duration.sum", 0.0) * 1e-3
        cells = [f"{m[k] * f:.1f}" if k in m else "-" for k, (_, f) in METRICS.items()]
        print(f"| {i} | {name} | {grid} | " + " | ".join(cells) + " |")
    print(f"\nkernels: {len(kernels)}, {total:.1f} us in all")
    by = {}
    for (_, name, _), m in kernels.items():
        by.setdefault(name, []).append(m.get("gpu__time_duration.sum", 0.0) * 1e-3)
    for name, ts in sorted(by.items()):
        print(f"- {name}: {len(ts)} launches, {sum(ts):.1f} us, mean {sum(ts) / len(ts):.1f} us")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec")
    ap.add_argument("--sources", type=int, default=64)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ncu", default="/usr/local/cuda/bin/ncu")
    ap.add_argument("--skip", type=int, default=0, help="kernels of the call not profiled first")
    ap.add_argument("--count", type=int, default=0, help="kernels profiled (0: all)")
    ap.add_argument("--set", default="", help="a variant: NAME=VALUE[,NAME=VALUE]")
    ap.add_argument("--kernel", default="", help="with --section: the kernels profiled (regex)")
    ap.add_argument("--section", nargs="*", default=[], help="ncu sections, reported raw")
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.driver:
        return driver(args.spec, args.sources, args.seed, args.set)
    window = ["--launch-skip", str(args.skip)] + (
        ["--launch-count", str(args.count)] if args.count else [])
    what = ["--csv", "--metrics", ",".join(METRICS)]
    if args.section:
        what = [f"--section={s}" for s in args.section] + (
            ["-k", f"regex:{args.kernel}"] if args.kernel else [])
    cmd = [args.ncu, "--profile-from-start", "off", "--cache-control", "none",
           "--clock-control", "none", *window, *what, sys.executable, __file__, args.spec,
           "--driver", "--sources", str(args.sources), "--seed", str(args.seed),
           "--set", args.set]
    got = subprocess.run(cmd, capture_output=True, text=True)
    if got.returncode:
        sys.exit(f"ncu failed ({got.returncode}): {got.stderr[-2000:]}")
    print(f"## {args.spec}, {args.sources} sources{', ' + args.set if args.set else ''}:"
          " one msbfs call under ncu")
    if args.section:
        print(got.stdout[got.stdout.find("==PROF=="):] if "==PROF==" in got.stdout else got.stdout)
    else:
        table(got.stdout)


if __name__ == "__main__":
    main()
