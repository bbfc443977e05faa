"""BFS on the GPU: every CUDA method of ``bitgraph.algorithms.bfs`` and
``msbfs`` against a cuSPARSE level-synchronous BFS and Blest's measured
anchors, in one run (the device machine).

    python3 benchmarks/bench_bfs_gpu.py --json out.json             # the issue-6/8 graphs
    python3 benchmarks/bench_bfs_gpu.py kron:21 grid:2048x2048:0.01 --sources 16
    python3 benchmarks/bench_bfs_gpu.py --cpu                       # the same pipeline on the CPU

Per graph (generated on the machine's CPU by ``io.generators.from_spec``,
moved to the GPU), ``--sources`` random sources with non-zero out-degree
(fixed ``--seed``):

- each method (``blest`` with ``--reorders``, then ``pull``, ``push``,
  ``direction``, ``async``, ``auto`` where ``bfs.METHODS_CUDA`` has them): one
  warm-up call from the first source (it builds the formats: its wall time
  is "first call"), then ``--repeat`` calls per source, each timed with CUDA
  events around the whole ``bfs`` call; per-source median, mean over the
  sources. GTEPS = A.nvals / mean time. A method stops taking sources
  after ``--method-budget`` seconds (the sources it did are reported).
  Then one untimed call per measured source with
  ``kernels.cuda.bfs_bvss.STATS`` set: levels, per-level modes, VSSs
  visited, bytes touched and the kernel-only time ("kernel ms") where the
  kernel reports them; "floor ms" = those bytes / the copy bandwidth
  measured in this run (device-to-device copy of 1 GiB, read + write).
- the cuSPARSE baseline: a level-synchronous SpMV BFS through
  ``cupyx.scipy.sparse`` (CSR of A' with float32 ones; per level
  ``y = A' @ f``, then one fused elementwise kernel sets the new levels,
  the next frontier f and a found flag read by the host). Every method's
  levels from the first source must equal its levels ("check").
- ratios: "x cuSPARSE" = baseline ms / ms; "x Blest" = Blest's measured
  time (issue 6: kron-21 0.308 ms, kron-22 0.398, urand-21 deg 32 0.29,
  grid-2048 1% dropped 18.5) / ms; "x Blest (kernel)" the same against our
  kernel time (Blest's anchors are kernel times); > 1 is faster.
- format build: ``bfs.blest_layout(A, reorder)`` timed on first use
  (CUDA-synchronised), for each reorder: "auto" includes the ordering.
- msbfs: ``--ms-sources`` (64) sources (the first BFS source first: its row
  is checked) in one ``msbfs(A, sources, batch=64)``: sources x edges / s,
  against the same sources as single BFSs of the fastest single method
  (each checked equal to its msbfs row); ``groupby=True`` against
  ``False`` on ``--group-sources`` sources where msbfs takes it.

Markdown on stdout (a table per graph as soon as it is done), progress on
stderr, ``--json FILE`` rewritten after every graph with every number.
GPU memory is freed between graphs. ``--budget`` seconds: graphs not started
by then are skipped (and methods of a graph in progress). The default list
runs the issue's anchors first and kron:24 (~10 GB on the GPU) last.

``--cpu``: the same pipeline with numpy/scipy (``device="cpu"``, a scipy
SpMV baseline, perf_counter timing) on small graphs (default kron:10,
grid:32x32:0.01): to test this script without a GPU.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RGG_N = 4_194_304
RGG_R = math.sqrt(16 / (math.pi * RGG_N))  # average degree ~16
DEFAULT = ["kron:21", "kron:22", "urand:21:32", "grid:2048x2048:0.01", "urand:22",
           "grid:161x161x161:0.0", f"rgg:{RGG_N}:{RGG_R:.8f}", "kron:24"]
CPU_DEFAULT = ["kron:10", "grid:32x32:0.01"]
# Blest's public code on the H100 (issue 6, BASELINES.md): mean ms per BFS
ANCHOR_SPECS = {"kron:21": 0.308, "kron:22": 0.398, "urand:21:32": 0.29,
                "grid:2048x2048:0.01": 18.5}
T0 = time.perf_counter()


def log(msg):
    print(f"[{time.perf_counter() - T0:7.1f} s] {msg}", file=sys.stderr, flush=True)


def out(msg=""):
    print(msg, flush=True)


def spec_key(spec):
    from bitgraph.io.generators import parse_spec

    name, kw = parse_spec(spec)
    return name, tuple(sorted(kw.items()))


def anchor_ms(spec):
    want = spec_key(spec)
    for s, ms in ANCHOR_SPECS.items():
        if spec_key(s) == want:
            return ms
    return None


# --- the device: cupy + CUDA events, or numpy + perf_counter ---------------------------
class Backend:
    def __init__(self, cpu):
        self.cpu = cpu
        self.device = "cpu" if cpu else "cuda"
        if cpu:
            self.xp = np
        else:
            import cupy

            self.xp = cupy
            self._update = cupy.ElementwiseKernel(
                "float32 y, int32 level", "int32 lv, float32 f, raw int32 found",
                "if (y != 0.0f && lv < 0) { lv = level; f = 1.0f; found[0] = 1; }"
                " else { f = 0.0f; }",
                "bench_bfs_level_update")

    def name(self):
        if self.cpu:
            import platform

            return f"CPU ({platform.processor() or platform.machine()})"
        import cupy

        dev = cupy.cuda.Device()
        return cupy.cuda.runtime.getDeviceProperties(dev.id)["name"].decode()

    def sync(self):
        if not self.cpu:
            self.xp.cuda.Device().synchronize()

    def timed(self, f):
        """(seconds, result) of one call: CUDA events around it on the GPU."""
        if self.cpu:
            t0 = time.perf_counter()
            r = f()
            return time.perf_counter() - t0, r
        cupy = self.xp
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        r = f()
        stop.record()
        stop.synchronize()
        return cupy.cuda.get_elapsed_time(start, stop) / 1e3, r

    def wall(self, f):
        """(seconds, result), synchronised: for builds and first calls."""
        self.sync()
        t0 = time.perf_counter()
        r = f()
        self.sync()
        return time.perf_counter() - t0, r

    def asnumpy(self, x):
        if isinstance(x, np.ndarray):
            return x
        get = getattr(x, "get", None)
        return np.asarray(get() if get is not None else x)

    def free(self):
        gc.collect()
        if not self.cpu:
            self.xp.get_default_memory_pool().free_all_blocks()
            self.xp.get_default_pinned_memory_pool().free_all_blocks()

    def copy_bandwidth(self, repeat):
        """Bytes/s of a copy (read + write): 1 GiB device-to-device on the
        GPU (as bench_gpu.py), 256 MiB on the CPU; median of ``repeat``."""
        xp = self.xp
        nbytes = (1 << 28) if self.cpu else (1 << 30)
        a = xp.ones(nbytes, np.uint8)
        b = xp.empty_like(a)
        b[...] = a
        ts = [self.timed(lambda: b.__setitem__(Ellipsis, a))[0] for _ in range(max(3, repeat))]
        return 2 * nbytes / statistics.median(ts)

    # --- the SpMV baseline -----------------------------------------------------------
    def spmv_baseline(self, A):
        """A level-synchronous SpMV BFS on the CSR of A' with float32 ones:
        ``bfs(s)`` -> int32 levels (-1 unreached) on the device."""
        from bitgraph.algorithms._common import known

        csr = A._csr() if known(A, "symmetric") else A._transposed_csr()
        n, nnz = csr.nrows, int(csr.indptr[-1])
        xp = self.xp
        idx = np.int32 if nnz < 2**31 and n < 2**31 else np.int64
        if self.cpu:
            import scipy.sparse as sp

            AT = sp.csr_array((np.ones(nnz, np.float32), np.asarray(csr.indices, idx),
                               np.asarray(csr.indptr, idx)), shape=(n, n))
        else:
            import cupyx.scipy.sparse as cusp

            AT = cusp.csr_matrix((xp.ones(nnz, np.float32), csr.indices.astype(idx, copy=False),
                                  csr.indptr.astype(idx, copy=False)), shape=(n, n))

        def bfs(s):
            lv = xp.full(n, -1, np.int32)
            lv[s] = 0
            f = xp.zeros(n, np.float32)
            f[s] = 1
            level = 0
            if self.cpu:
                while True:
                    y = AT @ f
                    new = (y != 0) & (lv < 0)
                    if not new.any():
                        return lv
                    level += 1
                    lv[new] = level
                    f = new.astype(np.float32)
            found = xp.zeros(1, np.int32)
            while True:
                y = AT @ f
                found.fill(0)
                level += 1
                self._update(y, np.int32(level), lv, f, found)
                if not int(found.get()[0]):
                    return lv

        return AT, bfs


# --- one graph --------------------------------------------------------------------------------
def _mean(xs):
    return float(statistics.fmean(xs)) if xs else None


def _stats_module(be):
    if be.cpu:
        return None
    try:
        from bitgraph.kernels.cuda import bfs_bvss

        return bfs_bvss
    except Exception:
        return None


def run_method(be, A, bfs, method, reorder, sources, ref0, args, bw, stats_mod):
    """Timing, check and stats of one method on one graph: a dict."""
    rec = {"method": method, "reorder": reorder}
    call = (lambda s: bfs(A, int(s), method=method, reorder=reorder))
    t_first, lv = be.wall(lambda: call(sources[0]))
    rec["first_call_s"] = t_first
    got = be.asnumpy(lv.to("cpu").to_dense(-1))
    rec["ok"] = bool(np.array_equal(got.astype(np.int64), ref0))
    if not rec["ok"]:
        bad = np.flatnonzero(got != ref0)
        rec["mismatch"] = {"count": int(bad.size), "vertex": int(bad[0]),
                           "got": int(got[bad[0]]), "want": int(ref0[bad[0]])}
        log(f"    {method}/{reorder}: WRONG levels from source {sources[0]}: {rec['mismatch']}")
    rec["levels"] = int(got.max()) + 1
    del lv, got
    per_source, t_start = [], time.perf_counter()
    for s in sources:
        ts = [be.timed(lambda: call(s))[0] for _ in range(args.repeat)]
        per_source.append(statistics.median(ts))
        if time.perf_counter() - t_start > args.method_budget:
            break
    done = len(per_source)
    rec["sources_timed"] = done
    rec["ms_per_source"] = [t * 1e3 for t in per_source]
    rec["ms"] = _mean(rec["ms_per_source"])
    rec["gteps"] = A.nvals / (rec["ms"] / 1e3) / 1e9
    # kernel statistics, untimed
    if stats_mod is not None and hasattr(stats_mod, "STATS"):
        stats = []
        old = stats_mod.STATS
        try:
            for s in sources[:done]:
                stats_mod.STATS = {}
                call(s)
                be.sync()
                if not stats_mod.STATS:
                    break  # this method does not run the instrumented kernel
                stats.append(stats_mod.STATS)
        finally:
            stats_mod.STATS = old
        if stats:
            rec.update(_summarise_stats(stats, bw))
    return rec


def _summarise_stats(stats, bw):
    r = {"stats_sources": len(stats)}

    def mean_of(key):
        v = [s[key] for s in stats if isinstance(s.get(key), (int, float))]
        return _mean(v)

    for key in ("levels", "vss_visited", "bytes", "kernel_ms", "blocks"):
        m = mean_of(key)
        if m is not None:
            r[f"stats_{key}"] = m
    if "stats_bytes" in r:
        r["floor_ms"] = r["stats_bytes"] / bw * 1e3
    modes = stats[0].get("modes")
    if isinstance(modes, (list, tuple)):
        counts = {}
        for m in modes:
            counts[m] = counts.get(m, 0) + 1
        r["modes_first_source"] = counts
    for key in ("method", "kernel"):
        if key in stats[0]:
            r[f"stats_{key}"] = stats[0][key]
    return r


def run_msbfs(be, A, bfs, msbfs, ms_sources, best, ref0, args):
    """msbfs of ms_sources against single BFSs of the best method."""
    rec = {"sources": len(ms_sources), "single_method": best}
    xp = be.xp
    t_first, L = be.wall(lambda: msbfs(A, ms_sources, batch=64))
    L = xp.asarray(L)  # CuPy or numpy from msbfs: compared on the device
    rec["first_call_s"] = t_first
    row0 = be.asnumpy(L[0]).astype(np.int64)
    rec["ok"] = bool(np.array_equal(row0, ref0))
    ts = [be.timed(lambda: msbfs(A, ms_sources, batch=64))[0] for _ in range(args.repeat)]
    rec["ms"] = statistics.median(ts) * 1e3
    rec["gteps"] = len(ms_sources) * A.nvals / (rec["ms"] / 1e3) / 1e9
    # the same sources one by one, each checked against its msbfs row
    method, reorder = best
    singles, same, t_start = [], True, time.perf_counter()
    for i, s in enumerate(ms_sources):
        t, lv = be.timed(lambda: bfs(A, int(s), method=method, reorder=reorder))
        singles.append(t)
        d = lv.to_dense(-1)
        same &= bool(xp.array_equal(d.astype(np.int32), L[i]))
        if time.perf_counter() - t_start > args.method_budget:
            break
    rec["singles_ok"] = same
    rec["singles_timed"] = len(singles)
    # extrapolated to all the sources when the budget cut the loop short
    rec["singles_ms"] = sum(singles) * 1e3 * len(ms_sources) / len(singles)
    rec["speedup"] = rec["singles_ms"] / rec["ms"]
    del L
    be.free()
    # GroupBy against none on more sources (bounded: the output is k x n int32)
    k = min(args.group_sources, max(64, int(2e9 // (4 * max(A.nrows, 1))) // 64 * 64))
    rng = np.random.default_rng(args.seed + 1)
    cand = np.flatnonzero(be.asnumpy(A.indptr[1:] - A.indptr[:-1]) > 0)
    gs = rng.choice(cand, k, replace=True).astype(np.int64)
    try:
        msbfs(A, gs[:1], batch=64, groupby=True)
    except TypeError:
        rec["groupby"] = None
        return rec
    g = {"sources": int(k)}
    Lp = msbfs(A, gs, batch=64)
    g["plain_ms"] = statistics.median(
        [be.timed(lambda: msbfs(A, gs, batch=64))[0] for _ in range(args.repeat)]) * 1e3
    del Lp
    be.free()
    Lg = msbfs(A, gs, batch=64, groupby=True)
    g["groupby_ms"] = statistics.median(
        [be.timed(lambda: msbfs(A, gs, batch=64, groupby=True))[0]
         for _ in range(args.repeat)]) * 1e3
    Lp = msbfs(A, gs, batch=64)
    g["ok"] = bool(xp.array_equal(xp.asarray(Lp), xp.asarray(Lg)))
    g["speedup"] = g["plain_ms"] / g["groupby_ms"]
    del Lp, Lg
    be.free()
    rec["groupby"] = g
    return rec


def run_baseline(be, A, sources, args):
    """(record, int64 levels from sources[0], build seconds) of the SpMV BFS."""
    t_build, (_, spmv_bfs) = be.wall(lambda: be.spmv_baseline(A))
    _, lv = be.wall(lambda: spmv_bfs(int(sources[0])))  # warm-up
    ref0 = be.asnumpy(lv).astype(np.int64)
    base, t_start = [], time.perf_counter()
    for s in sources:
        base.append(statistics.median([be.timed(lambda: spmv_bfs(int(s)))[0]
                                       for _ in range(args.repeat)]))
        if time.perf_counter() - t_start > args.method_budget:
            break
    ms = _mean(base) * 1e3
    rec = {"name": "cuSPARSE SpMV BFS" if not be.cpu else "scipy SpMV BFS", "ms": ms,
           "sources_timed": len(base), "levels": int(ref0.max()) + 1,
           "gteps": A.nvals / (ms / 1e3) / 1e9}
    return rec, ref0, t_build


def bench_graph(be, spec, args, bw, deadline):
    import bitgraph as bg
    from bitgraph.io.generators import from_spec

    bfs_module = sys.modules["bitgraph.algorithms.bfs"]
    bfs, msbfs = bg.algorithms.bfs, bg.algorithms.msbfs
    avail = (tuple(m for m in bfs_module.METHODS if m not in bfs_module.CUDA_ONLY) if be.cpu
             else getattr(bfs_module, "METHODS_CUDA", ("auto", "blest", "pull")))
    stats_mod = _stats_module(be)
    r = {"graph": spec, "methods": [], "builds": {}}
    t, A = be.wall(lambda: from_spec(spec, device=be.device))
    n, m = A.nrows, A.nvals
    r.update(n=n, nvals=m, generate_s=t, index_bytes=int(A.indices.dtype.itemsize))
    log(f"{spec}: n = {n:,}, stored entries = {m:,}, generated and moved in {t:.1f} s")
    deg = be.asnumpy(A.indptr[1:] - A.indptr[:-1])
    cand = np.flatnonzero(deg > 0)
    rng = np.random.default_rng(args.seed)
    sources = rng.choice(cand, min(args.sources, cand.size), replace=False).astype(np.int64)
    rest = rng.choice(cand, max(args.ms_sources - 1, 0), replace=True).astype(np.int64)
    ms_sources = np.concatenate([sources[:1], rest])
    del deg, cand
    r["sources"] = sources.tolist()

    # the SpMV baseline (verification reference: its levels from sources[0])
    r["baseline"], ref0, r["builds"]["spmv_csr_s"] = run_baseline(be, A, sources, args)
    be.free()  # its CSR of float32 ones
    log(f"  baseline: {r['baseline']['ms']:.3f} ms/BFS over {r['baseline']['sources_timed']}"
        f" sources, {r['baseline']['levels']} levels")
    anchor = anchor_ms(spec)
    r["blest_anchor_ms"] = anchor

    plan = []
    wanted = args.methods.split(",")
    if "blest" in avail and "blest" in wanted:
        plan += [("blest", ro) for ro in args.reorders.split(",")]
    plan += [(mt, "none") for mt in ("pull", "push", "direction", "async", "auto")
             if mt in avail and mt in wanted]
    for method, reorder in plan:
        if time.perf_counter() > deadline:
            log(f"  {method}/{reorder}: skipped (--budget)")
            r["methods"].append({"method": method, "reorder": reorder, "skipped": "budget"})
            continue
        try:
            if method == "blest" and ("blest", reorder) not in r["builds"]:
                t, _ = be.wall(lambda: bfs_module.blest_layout(A, reorder))
                r["builds"][f"bvss_{reorder}_s"] = t
                log(f"  BVSS (reorder {reorder}) built in {t:.2f} s")
            rec = run_method(be, A, bfs, method, reorder, sources, ref0, args, bw, stats_mod)
        except Exception as e:  # one failing method must not end the run
            traceback.print_exc(file=sys.stderr)
            rec = {"method": method, "reorder": reorder, "error": f"{type(e).__name__}: {e}"}
            be.free()
        if "ms" in rec:
            rec["vs_baseline"] = r["baseline"]["ms"] / rec["ms"]
            if anchor is not None:
                rec["vs_blest"] = anchor / rec["ms"]
                if rec.get("stats_kernel_ms"):  # Blest's anchors are kernel times
                    rec["vs_blest_kernel"] = anchor / rec["stats_kernel_ms"]
            log(f"  {method}/{reorder}: {rec['ms']:.3f} ms/BFS, {rec['gteps']:.3g} GTEPS,"
                f" {rec['levels']} levels, {'ok' if rec['ok'] else 'WRONG'}")
        r["methods"].append(rec)

    timed = [x for x in r["methods"] if x.get("ms") is not None and x.get("ok")]
    if timed and args.ms_sources > 0 and time.perf_counter() < deadline:
        best = min(timed, key=lambda x: x["ms"])
        try:
            r["msbfs"] = run_msbfs(be, A, bfs, msbfs, ms_sources,
                                   (best["method"], best["reorder"]), ref0, args)
            log(f"  msbfs {len(ms_sources)} sources: {r['msbfs']['ms']:.2f} ms,"
                f" x{r['msbfs']['speedup']:.1f} vs single {best['method']}")
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            r["msbfs"] = {"error": f"{type(e).__name__}: {e}"}
    return r  # the caller frees the GPU memory once A is gone


# --- output -----------------------------------------------------------------------------
def _f(x, fmt="{:.3f}"):
    return "-" if x is None else fmt.format(x)


def print_graph(r):
    b = r["baseline"]
    out(f"## {r['graph']}: n = {r['n']:,}, stored entries = {r['nvals']:,}"
        f" (generated in {r['generate_s']:.1f} s); {len(r['sources'])} sources")
    out()
    builds = ", ".join(f"{k[:-2]} {v:.2f} s" for k, v in r["builds"].items())
    out(f"Builds: {builds}. Baseline ({b['name']}): {b['ms']:.3f} ms/BFS"
        f" ({b['gteps']:.2f} GTEPS, {b['levels']} levels, {b['sources_timed']} sources)."
        + (f" Blest's measured anchor: {r['blest_anchor_ms']} ms." if r["blest_anchor_ms"] else ""))
    out()
    out("| method | reorder | ms/BFS | kernel ms | GTEPS | levels | x baseline | x Blest"
        " | x Blest (kernel) | floor ms | x floor | modes (1st source) | sources | first call s"
        " | check |")
    out("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")
    for x in r["methods"]:
        if "ms" not in x:
            why = x.get("error") or x.get("skipped")
            out(f"| {x['method']} | {x['reorder']} | {why} | | | | | | | | | | | | |")
            continue
        modes = x.get("modes_first_source")
        modes = " ".join(f"{k} {v}" for k, v in modes.items()) if modes else "-"
        if x.get("stats_method"):
            modes = f"ran {x['stats_method']}; {modes}"
        xfloor = x["ms"] / x["floor_ms"] if x.get("floor_ms") else None
        out(f"| {x['method']} | {x['reorder']} | {x['ms']:.3f} | {_f(x.get('stats_kernel_ms'))}"
            f" | {x['gteps']:.3g} | {x['levels']} | {x['vs_baseline']:.3g}"
            f" | {_f(x.get('vs_blest'), '{:.2f}')} | {_f(x.get('vs_blest_kernel'), '{:.2f}')}"
            f" | {_f(x.get('floor_ms'))}"
            f" | {_f(xfloor, '{:.1f}')} | {modes} | {x['sources_timed']}"
            f" | {x['first_call_s']:.2f} | {'ok' if x['ok'] else 'WRONG'} |")
    out()
    ms = r.get("msbfs")
    if ms and "error" not in ms:
        out(f"msbfs, {ms['sources']} sources, batch 64: {ms['ms']:.2f} ms ="
            f" {ms['gteps']:.3g} G sources x edges/s; the same sources one by one"
            f" ({ms['single_method'][0]}/{ms['single_method'][1]}): {ms['singles_ms']:.2f} ms"
            f"{'' if ms['singles_timed'] == ms['sources'] else ' (extrapolated from ' + str(ms['singles_timed']) + ')'}"
            f" -> msbfs x{ms['speedup']:.1f}; first call {ms['first_call_s']:.2f} s;"
            f" check {'ok' if ms['ok'] and ms['singles_ok'] else 'WRONG'}.")
        g = ms.get("groupby")
        if g:
            out(f"GroupBy on {g['sources']} sources: {g['groupby_ms']:.2f} ms vs"
                f" {g['plain_ms']:.2f} ms without (x{g['speedup']:.2f});"
                f" {'equal' if g['ok'] else 'DIFFERENT'} levels.")
        elif g is None:
            out("GroupBy: msbfs takes no groupby here.")
        out()
    elif ms:
        out(f"msbfs: {ms['error']}")
        out()


def print_summary(results):
    out("## Summary")
    out()
    out("| graph | levels | fastest | ms | GTEPS | x baseline | x Blest | auto ms (ran) |"
        " auto fastest | msbfs x singles |")
    out("|---|---:|---|---:|---:|---:|---:|---|---|---:|")
    for r in results["graphs"]:
        ok = [x for x in r["methods"] if x.get("ms") is not None and x.get("ok")]
        if not ok:
            out(f"| {r['graph']} | | none | | | | | | | |")
            continue
        best = min(ok, key=lambda x: x["ms"])
        auto = next((x for x in ok if x["method"] == "auto"), None)
        auto_s = "-" if auto is None else f"{auto['ms']:.3f} ({auto.get('stats_method', '-')})"
        fastest = "-" if auto is None else ("yes" if auto is best or auto["ms"] <= best["ms"] * 1.05
                                            else "no")
        ms = r.get("msbfs") or {}
        out(f"| {r['graph']} | {best['levels']} | {best['method']}/{best['reorder']}"
            f" | {best['ms']:.3f} | {best['gteps']:.3g} | {best['vs_baseline']:.3g}"
            f" | {_f(best.get('vs_blest'), '{:.2f}')} | {auto_s} | {fastest}"
            f" | {_f(ms.get('speedup'), '{:.1f}')} |")
    out()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="*", help="generator specs (default: the issue-6/8 list)")
    ap.add_argument("--sources", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=3, help="timed calls per source (median)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--methods", default="blest,pull,push,direction,async,auto")
    ap.add_argument("--reorders", default="none,auto", help="BVSS orders for method blest")
    ap.add_argument("--ms-sources", type=int, default=64, help="msbfs sources (0: no msbfs)")
    ap.add_argument("--group-sources", type=int, default=256)
    ap.add_argument("--method-budget", type=float, default=15.0,
                    help="seconds of timed calls per method and graph before it stops taking sources")
    ap.add_argument("--budget", type=float, default=540.0,
                    help="seconds: nothing new starts after this")
    ap.add_argument("--json", default=None)
    ap.add_argument("--cpu", action="store_true", help="numpy/scipy on the CPU (a test of this script)")
    args = ap.parse_args(argv)
    graphs = args.graphs or (CPU_DEFAULT if args.cpu else DEFAULT)
    deadline = T0 + args.budget
    be = Backend(args.cpu)
    import bitgraph.algorithms  # noqa: F401  (sys.modules["bitgraph.algorithms.bfs"])

    name = be.name()
    bw = be.copy_bandwidth(args.repeat)
    out(f"# bench_bfs_gpu: {name}, {time.strftime('%Y-%m-%d')},"
        f" copy bandwidth {bw / 1e12:.2f} TB/s\n")
    results = {"device": name, "date": time.strftime("%Y-%m-%d"), "copy_bandwidth": bw,
               "command": "python3 benchmarks/bench_bfs_gpu.py " + " ".join(
                   sys.argv[1:] if argv is None else argv),
               "args": vars(args), "graphs": [], "skipped": []}

    def save():
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1, default=str))

    for spec in graphs:
        if time.perf_counter() > deadline:
            log(f"{spec}: skipped (--budget {args.budget:.0f} s spent)")
            results["skipped"].append(spec)
            continue
        try:
            r = bench_graph(be, spec, args, bw, deadline)
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            results["graphs"].append({"graph": spec, "error": f"{type(e).__name__}: {e}"})
            out(f"## {spec}: failed: {type(e).__name__}: {e}\n")
            be.free()
            save()
            continue
        be.free()
        results["graphs"].append(r)
        print_graph(r)
        save()
    results["graphs"] = [g for g in results["graphs"] if "error" not in g] + \
        [g for g in results["graphs"] if "error" in g]
    print_summary({"graphs": [g for g in results["graphs"] if "error" not in g]})
    if results["skipped"]:
        out(f"Skipped (budget): {', '.join(results['skipped'])}")
    results["wall_s"] = time.perf_counter() - T0
    save()
    bad = [g["graph"] for g in results["graphs"] if "error" in g or
           any(x.get("ok") is False for x in g.get("methods", []))]
    if bad:
        log(f"wrong or failed: {', '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
