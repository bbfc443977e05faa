"""CUDA kernels against cuSPARSE on the same GPU, in one run (the device machine).

    python3 benchmarks/bench_gpu.py                       # kron:22 urand:22 grid:2048x2048
    python3 benchmarks/bench_gpu.py kron:16 --repeat 5    # a quick check
    python3 benchmarks/bench_gpu.py --json out.json ...

Per graph (generated on the GPU machine's CPU, moved to the GPU):

- ``spmv``: y = A x over plus_times on float32 (A structure-only: every
  entry 1): cuSPARSE SpMV through ``cupyx.scipy.sparse`` (CSR with float32
  ones; it must read them), our CSR pull kernel, and B2SR ``bin_full_full``
  for t = 4, 8, 16, 32; results checked against cuSPARSE (allclose).
- ``bfs step``: a masked lor_land step at the BFS level with the most
  vertices (frontier = that level, mask = not yet visited), as a BFS on A'
  runs it: cuSPARSE SpMV of the frontier then the mask, our CSR pull
  (masked), our push (SpMSpV) and B2SR ``bin_bin_bin`` (masked) for each t;
  results checked equal.
- bandwidth: each kernel's compulsory bytes (the format's arrays it reads,
  the vector, the output) / its time, against the device's copy bandwidth
  measured in the same run (device-to-device copy of 1 GiB: read + write).

Times are CUDA-event medians of --repeat runs after a warm-up. Build times
(B2SR on the GPU, the transposed CSR) are reported apart. Prints Markdown;
``--json`` writes every number.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TILES = (4, 8, 16, 32)


def gpu_time(f, repeat):
    """(median seconds, result) of ``repeat`` runs of ``f`` after a warm-up,
    each timed with CUDA events around the call."""
    import cupy

    r = f()
    cupy.cuda.Device().synchronize()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    ts = []
    for _ in range(repeat):
        start.record()
        r = f()
        stop.record()
        stop.synchronize()
        ts.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(ts), r


def copy_bandwidth(repeat):
    """Bytes/s of a device-to-device copy of 1 GiB (read + write counted)."""
    import cupy

    a = cupy.ones(1 << 30, np.uint8)
    b = cupy.empty_like(a)
    t, _ = gpu_time(lambda: b.__setitem__(Ellipsis, a), repeat)
    del a, b
    return 2 * (1 << 30) / t


def _spec(semiring, dtype):
    from bitgraph.ops import _semiring_spec
    from bitgraph.semiring import lookup_semiring

    return _semiring_spec(lookup_semiring(semiring), np.dtype(dtype))[0]


def _bfs_step_state(A, n):
    """(frontier bool[n], visited bool[n]) at the BFS level with the most
    vertices, from a CPU BFS of A (symmetric) from its highest-degree vertex."""
    from bitgraph.algorithms import bfs

    deg = np.diff(A.indptr)
    levels = bfs(A, int(np.argmax(deg))).to_dense(-1)
    counts = np.bincount(levels[levels >= 0])
    L = int(np.argmax(counts))
    return levels == L, (levels >= 0) & (levels <= L)


def bench_graph(spec, repeat, bw):
    import cupy
    import cupyx.scipy.sparse as cusp

    import bitgraph as bg
    from bitgraph import _array as ar
    from bitgraph.kernels import registry

    def k(op, fmt, variant):
        return registry.lookup(op, fmt=fmt, device="cuda", variant=variant)

    t0 = time.perf_counter()
    A = bg.io.generators.from_spec(spec)
    gen_s = time.perf_counter() - t0
    n, nnz = A.nrows, A.nvals
    frontier, visited = _bfs_step_state(A, n)
    G = A.to("cuda")
    csr = G._csr()
    rows = {"graph": spec, "n": n, "nnz": nnz, "generate_s": gen_s, "kernels": []}

    def row(name, seconds, nbytes, ok, **extra):
        rows["kernels"].append({"kernel": name, "ms": seconds * 1e3, "bytes": int(nbytes),
                                "bandwidth_frac": nbytes / seconds / bw, "ok": bool(ok)} | extra)

    # --- plus_times SpMV ------------------------------------------------------------
    x = cupy.asarray(np.random.default_rng(0).random(n, dtype=np.float32))
    ones = cupy.ones(nnz, np.float32)
    S = cusp.csr_matrix((ones, csr.indices, csr.indptr), shape=(n, n))
    t_cs, y_cs = gpu_time(lambda: S @ x, repeat)
    idx_b = csr.indices.itemsize
    csr_bytes = (n + 1) * csr.indptr.itemsize + nnz * idx_b
    row("cuSPARSE SpMV (float32)", t_cs, csr_bytes + nnz * 4 + 2 * n * 4, True)
    sr = _spec("plus_times", np.float32)
    all_bits = ar.pack_bits(cupy.ones(n, np.bool_))
    pull = k("mxv", "csr", "pull")
    t, (yv, _) = gpu_time(lambda: pull(csr, x, all_bits, None, sr), repeat)
    ok = bool(cupy.allclose(yv, y_cs, rtol=1e-4))
    row("CSR pull, plus_times", t, csr_bytes + 2 * n * 4 + n, ok, vs_cusparse=t_cs / t)
    from bitgraph.kernels.cuda import spmv_csr

    spmv_csr.USE_FAST = False  # the same kernel with the op codes as arguments
    t, (yv, _) = gpu_time(lambda: pull(csr, x, all_bits, None, sr), repeat)
    spmv_csr.USE_FAST = True
    row("CSR pull, plus_times (op codes at run time)", t, csr_bytes + 2 * n * 4 + n,
        bool(cupy.allclose(yv, y_cs, rtol=1e-4)), vs_cusparse=t_cs / t)
    bff = k("mxv", "b2sr", "bin_full_full")
    for t_ in TILES:
        b0 = time.perf_counter()
        B = G.b2sr(t_)
        cupy.cuda.Device().synchronize()
        build = time.perf_counter() - b0
        t, (yv, _) = gpu_time(lambda: bff(B, x, all_bits, None, sr), repeat)
        ok = bool(cupy.allclose(yv, y_cs, rtol=1e-4))
        row(f"B2SR-{t_} bin_full_full, plus_times", t, B.nbytes + 2 * n * 4 + n, ok,
            vs_cusparse=t_cs / t, build_s=build, ntiles=B.ntiles)

    # --- masked BFS step (lor_land) ---------------------------------------------------
    f_d = cupy.asarray(frontier)
    allowed = ar.pack_bits(cupy.asarray(~visited))
    xb = ar.pack_bits(f_d)
    xf = f_d.astype(np.float32)
    mask_d = cupy.asarray(~visited)

    def cusparse_step():
        return ((S @ xf) != 0) & mask_d

    t_cs, want = gpu_time(cusparse_step, repeat)
    row("cuSPARSE SpMV + mask (BFS step)", t_cs, csr_bytes + nnz * 4 + 3 * n * 4, True,
        frontier=int(frontier.sum()), unvisited=int((~visited).sum()))
    lor = _spec("lor_land", np.bool_)
    fb = f_d.copy()
    # compulsory bytes of a masked step: the allowed rows' part of the format
    # (the kernels skip the others), the bitmaps, the two outputs
    lens = cupy.diff(csr.indptr.astype(np.int64))
    n_allowed = int(mask_d.sum())
    vec_bytes = 2 * ((n + 31) // 32) * 4 + 2 * n
    t, (yv, yp) = gpu_time(lambda: pull(csr, fb, xb, allowed, lor), repeat)
    row("CSR pull, masked lor_land", t,
        int(lens[mask_d].sum()) * idx_b + n_allowed * 2 * csr.indptr.itemsize + vec_bytes,
        bool(cupy.array_equal(yp & yv, want)), vs_cusparse=t_cs / t)
    push = k("mxv", "csr", "push")
    fi = cupy.flatnonzero(f_d).astype(np.int64)
    b0 = time.perf_counter()
    T = G._transposed_csr()
    cupy.cuda.Device().synchronize()
    tr = time.perf_counter() - b0
    t, (yv, yp) = gpu_time(lambda: push(T, fi, fb, allowed, lor, False, n), repeat)
    row("CSR push (SpMSpV), masked lor_land", t, 0, bool(cupy.array_equal(yp & yv, want)),
        vs_cusparse=t_cs / t, transpose_s=tr)
    bbb = k("mxv", "b2sr", "bin_bin_bin")
    for t_ in TILES:
        B = G.b2sr(t_)
        nb = B.tile_rowptr.size - 1
        pad = cupy.zeros(nb * t_, np.bool_)
        pad[:n] = mask_d
        live = pad.reshape(nb, t_).any(axis=1)  # tile rows with an allowed row
        per_tile = B.tile_colind.itemsize + t_ * B.tiles.itemsize
        nbytes = (int(cupy.diff(B.tile_rowptr.astype(np.int64))[live].sum()) * per_tile
                  + int(live.sum()) * 2 * B.tile_rowptr.itemsize + vec_bytes)
        t, (yv, yp) = gpu_time(lambda: bbb(B, xb, None, allowed), repeat)
        ok = bool(cupy.array_equal(yp, want))
        row(f"B2SR-{t_} bin_bin_bin, masked", t, nbytes, ok, vs_cusparse=t_cs / t)
    del S, ones, G, csr
    cupy.get_default_memory_pool().free_all_blocks()
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="*", default=["kron:22", "urand:22", "grid:2048x2048"])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import cupy

    dev = cupy.cuda.Device()
    name = cupy.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()
    bw = copy_bandwidth(args.repeat)
    print(f"# bench_gpu: {name}, {time.strftime('%Y-%m-%d')}, copy bandwidth {bw / 1e12:.2f} TB/s\n")
    results = {"device": name, "date": time.strftime("%Y-%m-%d"), "copy_bandwidth": bw,
               "command": "python3 benchmarks/bench_gpu.py " + " ".join(argv or sys.argv[1:]),
               "graphs": []}
    for spec in args.graphs:
        r = bench_graph(spec, args.repeat, bw)
        results["graphs"].append(r)
        print(f"## {spec}: n = {r['n']:,}, stored entries = {r['nnz']:,}"
              f" (generated in {r['generate_s']:.1f} s)\n")
        print("| kernel | ms | x cuSPARSE | % of copy bandwidth | checked |")
        print("|---|---:|---:|---:|---|")
        for k in r["kernels"]:
            vs = f"{k['vs_cusparse']:.2f}" if "vs_cusparse" in k else "1"
            frac = f"{100 * k['bandwidth_frac']:.0f}%" if k["bytes"] else "-"
            print(f"| {k['kernel']} | {k['ms']:.3f} | {vs} | {frac} | {'ok' if k['ok'] else 'WRONG'} |")
        print()
    best = []
    for r in results["graphs"]:
        v = [k["vs_cusparse"] for k in r["kernels"] if "bin_full_full" in k["kernel"]]
        if v:
            best.append(max(v))
    if best:
        g = float(np.exp(np.mean(np.log(best))))
        results["bin_full_full_geomean_vs_cusparse"] = g
        print(f"B2SR bin_full_full (best t per graph) vs cuSPARSE SpMV, geomean: {g:.2f}x")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
