"""benchmarks/run.py's betweenness anchors, without their binaries: a stand-in
for Gunrock's patched bc (its output format, values from NetworkX) is run and
read as the real one would be, and a wrong one is caught."""

from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path

import numpy as np
import pytest

RUN = Path(__file__).resolve().parents[1] / "benchmarks" / "run.py"

# Gunrock bc as benchmarks/gunrock.sh patches it: -m FILE -s S1,S2,.. -n N; per run
# "BC source S : T (ms)"; the values (float32) sum delta_s(v) / 2 over the sources, the
# first $GUNROCK_BC_HEAD printed. FACTOR scales them (1: right), NAN makes vertex 0's NaN.
FAKE = r'''#!{python}
import os, sys
import networkx as nx
import numpy as np
import scipy.io
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
assert os.environ["GUNROCK_BC_WARMUP"] == "1"
A = scipy.io.mmread(args["-m"]).tocsr()
src = [int(s) for s in args["-s"].split(",")]
G = nx.from_scipy_sparse_array(A, create_using=nx.DiGraph)
raw = nx.betweenness_centrality_subset(G, src, list(G), normalized=False)
vals = np.float32([raw[v] / 2 * {factor} for v in range(A.shape[0])])
if {nan}:
    vals[0] = np.nan
for i, s in enumerate(src):
    print(f"BC source {{s}} : {{1.0 + i}} (ms)")
print("Single source :", src[-1])
k = int(os.environ["GUNROCK_BC_HEAD"])
print(f"GPU bc values[:{{k}}] = " + " ".join(f"{{x:g}}" for x in vals[:k]))
print("GPU Elapsed Time :", float(len(src)), "(ms)")
'''


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("bench_run", RUN)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = mod  # dataclasses look the module up
    spec.loader.exec_module(mod)
    return mod


def fake_gunrock(folder, factor=1.0, nan=False):
    exe = Path(folder) / "gunrock" / "bc"
    exe.parent.mkdir(parents=True, exist_ok=True)
    exe.write_text(FAKE.format(python=sys.executable, factor=factor, nan=nan))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return folder


def gunrock_problems(run, folder, g, src):
    import bitgraph as bg

    anchor = run.ANCHORS["betweenness", "Gunrock"]
    run._ANCHOR_RUNS.clear()
    ms, why, count, head = run.run_anchor(anchor, g, folder, 1, list(src))
    assert why is None and count is None
    ours = np.asarray(bg.algorithms.betweenness_centrality(g.A, sources=src, normalized=False))
    return ms, head, run.anchor_problems("betweenness", "Gunrock", anchor, None, head, [ours])


@pytest.mark.parametrize("spec", ["kron:6", "grid:5x7"])
def test_gunrock_bc_values_read_and_checked(run, tmp_path, spec):
    g = run.Graph(spec, "cpu")
    src = g.bc_sources(9)
    ms, head, problems = gunrock_problems(run, fake_gunrock(tmp_path), g, src)
    assert problems == []
    assert ms == pytest.approx(np.mean(1.0 + np.arange(src.size)))  # the mean over the runs
    assert head.size == g.n and np.isfinite(head).all() and head.max() > 0


def test_gunrock_bc_wrong_values_caught(run, tmp_path):
    g = run.Graph("kron:6", "cpu")
    src = g.bc_sources(9)
    _, _, problems = gunrock_problems(run, fake_gunrock(tmp_path, factor=1.01), g, src)
    assert len(problems) == 1 and "differ from ours" in problems[0]
    _, _, problems = gunrock_problems(run, fake_gunrock(tmp_path, nan=True), g, src)
    assert problems == ["Gunrock: 1 of its first 64 values are not finite where ours are"]


def test_gunrock_bc_missing_binary(run, tmp_path):
    g = run.Graph("kron:5", "cpu")
    anchor = run.ANCHORS["betweenness", "Gunrock"]
    assert run.run_anchor(anchor, g, tmp_path, 1, [0, 1]) == (None, None, None, None)


def test_bc_sources_fixed_and_distinct(run):
    a, b = run.Graph("urand:7", "cpu"), run.Graph("urand:7", "cpu")
    s = a.bc_sources(run.BC_SOURCES["cpu"])
    assert np.array_equal(s, b.bc_sources(run.BC_SOURCES["cpu"]))
    assert np.unique(s).size == s.size == run.BC_SOURCES["cpu"]
    deg = np.diff(a.scipy().indptr)
    assert (deg[s] > 0).all()


def test_gapbs_bc_source_check(run):
    g = run.Graph("kron:6", "cpu")
    s = int(g.bc_sources(1)[0])
    assert "no top scores" in run.gapbs_bc_problems(g, s, "")
    # gapbs's scores are over their maximum: 2 matches no vertex of ours
    assert "!= ours" in run.gapbs_bc_problems(g, s, f"{s}:2\n")


def test_floor_bytes_and_rates():
    """The GPU rows' floors (benchmarks/_floor.py): its doctests, and the bytes each
    algorithm counts."""
    import doctest

    spec = importlib.util.spec_from_file_location("bench_floor", RUN.parent / "_floor.py")
    floor = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(floor)
    assert doctest.testmod(floor).failed == 0
    n, nvals = 1000, 16000
    # pagerank: per iteration int32 indices and row pointers, y read and x' written
    assert floor.floor_bytes("pagerank", n, nvals, 3) == 3 * (4 * nvals + 4 * (n + 1)
                                                                      + 16 * n)
    assert floor.floor_bytes("pagerank", n, nvals, 1, rank_bytes=4) == \
        4 * nvals + 4 * (n + 1) + 8 * n
    # sssp: each entry's index and weight, the row pointers, distances read and written
    assert floor.floor_bytes("sssp", n, nvals, None, weight_bytes=8) == \
        12 * nvals + 4 * (n + 1) + 16 * n
    for algo in ("bfs", "msbfs", "closeness", "betweenness", "connected_components"):
        assert floor.floor_bytes(algo, n, nvals, None) is None
    assert floor.gteps("msbfs", nvals, 2.0, batch=64) == pytest.approx(64 * nvals / 2e6)
    assert floor.gteps("pagerank", nvals, 2.0) is None  # no iteration count
    assert floor.gteps("diameter", nvals, 2.0) is None


def test_gunrock_bc_float32_overflow_on_deep_graphs(run, tmp_path):
    # the same non-finite value: a mismatch where no path count can pass float32's range
    # (kron:6, test above), a note where one can (a 2 x 200 grid: depth 100 or more from any
    # source, up to 3 ways a step, 3 ** 100 > 3.4e38)
    import bitgraph as bg

    g = run.Graph("grid:2x200", "cpu")
    src = g.bc_sources(9)
    anchor = run.ANCHORS["betweenness", "Gunrock"]
    run._ANCHOR_RUNS.clear()
    ms, why, _, head = run.run_anchor(anchor, g, fake_gunrock(tmp_path, nan=True), 1, list(src))
    ours = np.asarray(bg.algorithms.betweenness_centrality(g.A, sources=src, normalized=False))
    deep = run.anchor_problems("betweenness", "Gunrock", anchor, None, head, [ours],
                               reach=lambda: run.bc_reach(g, src))
    assert deep == []
    assert run.anchor_notes("Gunrock", anchor, head, [ours]) == [
        f"Gunrock: 1 of its first {head.size} values overflow float32 (ours finite),"
        f" the other {head.size - 1} equal"]
    shallow = run.anchor_problems("betweenness", "Gunrock", anchor, None, head, [ours],
                                  reach=lambda: (3, 10))
    assert shallow == [f"Gunrock: 1 of its first {head.size} values are not finite where ours are"]
