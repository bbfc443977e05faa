"""Host time of a GPU call: how long Python holds the caller before the
call returns. For each graph and call it prints:

- ``host``: the median host time (perf_counter around the call, the
  result kept alive past the timing) with the GPU idle and the CPU awake:
  before each call the host spins on an event until the GPU has finished
  (a blocking synchronize lets the thread sleep, and the calls after a
  sleep run up to 3x slower whatever they do: ``ref`` shows it);
- ``busy``: the median host time of calls queued back to back (a
  synchronize every 32 calls);
- ``whole`` and ``kernel``: CUDA events around the call (GPU idle
  before it) and the kernel time the call reports; whole - kernel is what
  the host and the launch add to what the user waits for;
- ``ref``: a fixed piece of Python work (60 dict stores) timed in the
  same two states, so that one machine's numbers can be read beside
  another's;

then, with ``--profile``, the call's host profile (cProfile over that
many calls, the functions with the most own time), and with ``--pieces``
the parts of a CUDA ``bfs`` call without parents, each timed alone as
``host`` is (median us): the settings and the prepared launch looked up
(``lookup``), the prepared run (``run``: allocation and launch), its
allocation alone and freed (``alloc``), its launch alone (``launch``),
and the result Vector made over the run's arrays (``vector``).

    python benchmarks/host_time.py --graph kron:22 --graph urand:21:32 --call bfs --call cc \
        --profile 200

The issue's target: a bfs call (auto: direction on both graphs) and a cc
call at most 15 us of host time, the first call of a graph (which prepares
its launch) left out: each call is run 3 times before the timing.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import time

import numpy as np


def _calls(A, source):
    import bitgraph as bg
    from bitgraph.algorithms import (breadth_first, components, link_analysis, multi_source,
                                     shortest_paths, triangles)

    return {
        "bfs": lambda st: breadth_first.bfs(A, source, stats=st),
        "bfs-parents": lambda st: breadth_first.bfs(A, source, parents=True, stats=st),
        "bfs-push": lambda st: breadth_first.bfs(A, source, method="push", stats=st),
        "bfs-blest": lambda st: breadth_first.bfs(A, source, method="blest", stats=st),
        "bfs-hops": lambda st: breadth_first.bfs(A, source, method="hops", stats=st),
        "cc": lambda st: components.connected_components(A, stats=st),
        "msbfs": lambda st: multi_source.msbfs(A, np.arange(64) % A.nrows, stats=st),
        "tc": lambda st: triangles.triangle_count(A),
        "ncc": lambda st: components.number_connected_components(A),
        "sssp": lambda st: shortest_paths.sssp(A, source, stats=st),
        "sssp-int": lambda st: shortest_paths.sssp(_int_weighted(A), source, stats=st),
        "pagerank": lambda st: link_analysis.pagerank(A, stats=st),
        "pagerank-f32": lambda st: link_analysis.pagerank(A, dtype=np.float32, stats=st),
        # the suite's mxv case: float32 values (cuSPARSE's type) times a dense vector
        "mxv-plus": lambda st: bg.mxv(_valued(A), _dense_x(A), bg.PLUS_TIMES),
        "mxv": lambda st: A.T.mxv(bg.Vector.from_coo([source], [True], size=A.nrows,
                                                     device="cuda"),
                                  semiring=bg.LOR_LAND),
    }


_MEMO: dict = {}


def _valued(A):
    """A with random float32 values (made once per graph)."""
    import bitgraph as bg

    key = ("valued", id(A))
    if key not in _MEMO:
        c = A.to("cpu")._csr()
        w = np.random.default_rng(0).random(c.indices.size).astype(np.float32)
        _MEMO[key] = bg.Matrix.from_csr(c.indptr, c.indices, w, ncols=A.ncols).to("cuda")
    return _MEMO[key]


def _int_weighted(A):
    """A with int32 weights 1..255 (benchmarks/run.py's weights: the issue's SSSP case; made
    once per graph)."""
    import bitgraph as bg

    key = ("int", id(A))
    if key not in _MEMO:
        c = A.to("cpu")._csr()
        w = np.random.default_rng(0).integers(1, 256, c.indices.size, dtype=np.int32)
        _MEMO[key] = bg.Matrix.from_csr(c.indptr, c.indices, w, ncols=A.ncols).to("cuda")
    return _MEMO[key]


def _dense_x(A):
    """A full float32 vector of A's size on the GPU (made once per graph)."""
    import bitgraph as bg

    key = ("x", id(A))
    if key not in _MEMO:
        x = np.random.default_rng(1).random(A.nrows).astype(np.float32)
        _MEMO[key] = bg.Vector.from_dense(x, device="cuda")
    return _MEMO[key]


def _idle_us(f, repeat, idle):
    """``repeat`` host times of ``f()`` in microseconds, the GPU idle before
    each (``idle``), the result dropped after its timing."""
    times = []
    for _ in range(repeat):
        idle()
        t0 = time.perf_counter()
        r = f()
        times.append((time.perf_counter() - t0) * 1e6)
        del r
    return times


def _pieces(A, source, idle, sync, repeat):
    """Print the parts of a CUDA bfs call (no parents, method auto), each timed
    alone (median us of ``repeat`` runs, the GPU idle before each)."""
    import cupy

    from bitgraph import settings as _settings
    from bitgraph.algorithms import breadth_first as bf

    cfg = _settings.current()
    method, run = bf._prepared(A, "auto", cfg.bfs_cuda.alpha, "none", cfg)
    if run is None:
        print(f"pieces: method {method} has no prepared launch", flush=True)
        return
    stream = cupy.cuda.get_current_stream().ptr
    levels, visited = run(source)
    sync()

    def lookup():
        c = _settings.current()
        return bf._prepared(A, "auto", c.bfs_cuda.alpha, "none", c)

    parts = {
        "lookup": lookup,
        "run": lambda: run(source),
        "alloc": lambda: cupy.cuda.alloc(run.nbytes),
        "launch": lambda: run.launch.launch(stream),
        "vector": lambda: bf._vector()._from_parts(visited, levels, dtype=bf._INT32),
    }
    out = []
    for part, f in parts.items():
        times = _idle_us(f, repeat, idle)
        sync()
        out.append(f"{part} {statistics.median(times):.1f}")
    print(f"pieces ({method}, {run.nbytes} bytes, grid {run.launch.grid}): "
          + ", ".join(out) + " us", flush=True)


def main(argv=None):
    import cupy

    import bitgraph as bg
    from bitgraph.io import generators

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graph", action="append", required=True, help="generator spec (repeat)")
    p.add_argument("--call", action="append", required=True,
                   help="bfs, bfs-parents, bfs-push, bfs-blest, bfs-hops, cc, ncc, msbfs, tc, sssp, sssp-int,"
                        " pagerank,"
                        " pagerank-f32, mxv, mxv-plus"
                        " (repeat)")
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--profile", type=int, default=0, help="calls under cProfile (0: none)")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--pieces", action="store_true", help="bfs: the call's parts timed alone")
    a = p.parse_args(argv)
    sync = cupy.cuda.Device().synchronize

    def idle():  # wait for the GPU without letting this thread sleep
        e = cupy.cuda.Event()
        e.record()
        while not e.done:
            pass

    def ref():
        d = {}
        for i in range(60):
            d[i] = i
        return d

    def host_times(f):
        """(idle, busy) median us of f's host time, results kept."""
        warm, busy, held = _idle_us(f, a.repeat, idle), [], []
        sync()
        for i in range(4 * a.repeat):
            t0 = time.perf_counter()
            r = f()
            busy.append((time.perf_counter() - t0) * 1e6)
            held.append(r)
            del r
            if i % 32 == 31:
                sync()
                held.clear()
        sync()
        return statistics.median(warm), min(warm), statistics.median(busy)

    rw, _, rb = host_times(ref)
    print(f"ref (60 dict stores): idle {rw:.1f} us, busy {rb:.1f} us", flush=True)
    for spec in a.graph:
        A = generators.from_spec(spec).to("cuda")
        deg = np.diff(A.to("cpu")._csr().indptr)
        source = int(np.argmax(deg))
        calls = _calls(A, source)
        for name in a.call:
            f = calls[name]
            for _ in range(3):
                f(None)
            sync()
            hw, hmin, hb = host_times(lambda: f(None))
            whole, kern = [], []
            for _ in range(a.repeat):
                idle()
                e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
                e0.record()
                r = f(None)  # no stats: a call with stats= may synchronise to read its counters
                e1.record()
                e1.synchronize()
                whole.append(cupy.cuda.get_elapsed_time(e0, e1))
                del r
                st = bg.Stats()
                f(st)
                sync()
                kern.append(st.metrics.get("kernel_ms", float("nan")))
            print(f"{spec} {name}: host {hw:.1f} us (min {hmin:.1f}), busy {hb:.1f} us,"
                  f" whole {statistics.median(whole):.4f} ms, kernel"
                  f" {statistics.median(kern):.4f} ms", flush=True)
            if a.pieces and name == "bfs":
                _pieces(A, source, idle, sync, a.repeat)
            if a.profile:
                prof = cProfile.Profile()
                sync()
                prof.enable()
                for _ in range(a.profile):
                    f(None)
                prof.disable()
                sync()
                s = io.StringIO()
                pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(a.top)
                print(s.getvalue(), flush=True)


if __name__ == "__main__":
    main()
