"""The first GPU call of a new process, itemised (``benchmarks/first_call.sh``
empties every cache and runs this three times).

    python benchmarks/first_call.py [--graph kron:12] [--nvrtc] [--label L]

Prints, in seconds: import bitgraph, import cupy + CUDA context, graph
build (CPU), to-device, the first ``bfs`` (whole, and within it: our
modules from the shipped fatbins, our modules by NVRTC, CuPy's own JIT
kernels, numba compiles/cache loads, the rest), and a second call. Every
kernel CuPy compiles (its elementwise/reduction kernels) is listed by
name: each is a cost a fresh machine pays (issue 29, item 3).
``--nvrtc``: the shipped fatbins off (``settings.cuda.precompiled=False``).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _cumulative(stats, pattern):
    # cumulative seconds of the functions whose "file:line(name)" matches
    # (none of them calls another)
    total = 0.0
    for (file, line, name), (cc, nc, tt, ct, callers) in stats.stats.items():
        if re.search(pattern, f"{file}:{line}({name})"):
            total += ct
    return total


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", default="kron:12")
    p.add_argument("--source", type=int, default=0)
    p.add_argument("--nvrtc", action="store_true", help="shipped fatbins off")
    p.add_argument("--label", default="")
    a = p.parse_args(argv)
    rows = []
    t0 = time.perf_counter()
    import bitgraph as bg
    rows.append(("import bitgraph", time.perf_counter() - t0))

    t0 = time.perf_counter()
    import cupy
    cupy.cuda.runtime.free(cupy.cuda.runtime.malloc(1))  # the context
    rows.append(("import cupy + CUDA context", time.perf_counter() - t0))

    # every kernel CuPy compiles in this process, by name
    from cupy.cuda import compiler
    compiled = []
    for attr in ("_compile_module_with_cache", "compile_with_cache"):
        orig = getattr(compiler, attr, None)
        if orig is None:
            continue

        def spy(source, *args, _orig=orig, **kwargs):
            compiled.append(", ".join(re.findall(r"__global__\s+void\s+(\w+)", source)) or "?")
            return _orig(source, *args, **kwargs)
        setattr(compiler, attr, spy)
        break

    t0 = time.perf_counter()
    A = bg.io.generators.from_spec(a.graph)
    rows.append((f"graph build ({a.graph}, CPU)", time.perf_counter() - t0))
    t0 = time.perf_counter()
    Ad = A.to("cuda")
    cupy.cuda.runtime.deviceSynchronize()
    rows.append(("to device", time.perf_counter() - t0))

    from bitgraph.kernels import cuda as kc
    with bg.settings.use(cuda={"precompiled": not a.nvrtc}):
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        levels = bg.algorithms.bfs(Ad, a.source)
        cupy.cuda.runtime.deviceSynchronize()
        prof.disable()
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        bg.algorithms.bfs(Ad, a.source)
        cupy.cuda.runtime.deviceSynchronize()
        second = time.perf_counter() - t0
    st = pstats.Stats(prof)
    shipped = _cumulative(st, r"kernels/cuda/__init__.py:\d+\(_shipped_module\)")
    nvrtc = _cumulative(st, r"kernels/cuda/__init__.py:\d+\(_nvrtc_module\)")
    cupy_jit = _cumulative(st, r"cupy/cuda/compiler.py:\d+\(_compile_module_with_cache\)")
    numba = _cumulative(st, r"numba/core/dispatcher.py:\d+\(_compile_for_args\)")
    rows.append(("first bfs, whole", first))
    rows.append(("  our modules from the shipped fatbins", shipped))
    rows.append(("  our modules by NVRTC (+ disk cache)", nvrtc))
    rows.append((f"  CuPy JIT kernels ({len(compiled)})", cupy_jit))
    rows.append(("  numba (compile or cache load)", numba))
    rows.append(("  the rest", first - shipped - nvrtc - cupy_jit - numba))
    rows.append(("second bfs", second))
    levels.to_dense(-1)
    print(f"== first call {a.label} ({cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()},"
          f" shipped fatbins {'off' if a.nvrtc else 'on'}: {kc.shipped_dir()})")
    for name, s in rows:
        print(f"{name:45s} {s:9.3f} s")
    for name in compiled:
        print(f"  CuPy compiled: {name}")
    print("-- top 15 by cumulative time in the first call")
    st.sort_stats("cumulative").print_stats(15)


if __name__ == "__main__":
    main()
