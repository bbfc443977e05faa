"""The ``bitgraph`` command line: every command in-process through
``bitgraph.cli.main`` (JSON numbers against scipy / networkx and the
library), errors (one line on stderr, exit 2, no traceback), the progress
wrapper, and a few real ``python -m bitgraph`` subprocesses."""

import importlib
import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg

import bitgraph as bg
from bitgraph.algorithms.breadth_first import CUDA_ONLY
from bitgraph.algorithms.breadth_first import METHODS as BFS_METHODS
from bitgraph.validate import reference_levels
import bitgraph.algorithms  # noqa: F401  (the bfs module, under sys.modules)
from bitgraph import _progress, cli
from bitgraph.cli import main
from testdata import DATA, data_file

ROOT = Path(__file__).resolve().parents[1]
CUDA_REASON = bg.device.cuda_status()  # None: CUDA is usable here
SPECS = ["kron:8", "grid:16x16"]


def run(capsys, *argv):
    rc = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return rc, out, err


def run_json(capsys, *argv):
    rc, out, err = run(capsys, *argv, "--json")
    assert rc == 0, err
    assert err == ""  # --json: no progress, no text
    lines = out.strip().splitlines()
    assert len(lines) == 1, out
    return json.loads(lines[0])


def graph_of(spec):
    return bg.io.read(spec) if os.path.exists(str(spec)) else bg.io.generators.from_spec(spec)


def unweighted_dist(A, sources):
    """BFS levels (-1 unreached) of the pattern: bitgraph.validate's reference."""
    return reference_levels(A, sources)


def data(name):
    return str(data_file(name))


# ----------------------------------------------------------------------------- bfs

@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("method", ["auto", "pull", "push", "direction", "blest"])
def test_bfs_json_matches_scipy(capsys, spec, method):
    A = graph_of(spec)
    deg = np.diff(A.indptr)
    r = run_json(capsys, "bfs", spec, "--method", method, "--warmup", 0)
    assert (r["command"], r["graph"], r["n"], r["m"]) == ("bfs", spec, A.nrows, A.nvals)
    # --device auto: the GPU for the methods that run there when CUDA is usable
    on_gpu = CUDA_REASON is None and method in cli._cuda_methods("bfs")
    assert (r["method"], r["device"]) == (method, "cuda" if on_gpu else "cpu")
    res = r["result"]
    assert res["source"] == int(np.argmax(deg))  # default: a vertex of largest out-degree
    ref = unweighted_dist(A, res["source"])
    assert res["reached"] == int((ref >= 0).sum())
    assert res["levels"] == int(ref.max()) + 1
    assert res["edges_traversed"] == int(deg[ref >= 0].sum())
    assert res["gteps"] > 0
    t = r["times"]
    assert set(t) >= {"load", "build", "build_steps", "compute"} and t["compute"] > 0
    if method == "blest":
        assert "bvss" in t["build_steps"]  # built apart from the compute


@pytest.mark.parametrize("name", ["karate.mtx", "west0067.mtx", "jagmesh7.mtx"])
def test_bfs_files_check_and_output(capsys, tmp_path, name):
    A = bg.io.read(data(name))
    out = tmp_path / "levels.txt"
    rc, text, err = run(capsys, "bfs", data(name), "--source", 3, "--parents", "--check", "-o", out)
    assert rc == 0, err
    assert "check:" in text and "match scipy" in text
    got = np.loadtxt(out, dtype=np.int64)
    np.testing.assert_array_equal(got[:, 0], unweighted_dist(A, 3))
    assert got[3, 1] == 3  # the source is its own parent
    npy = tmp_path / "levels.npy"
    assert run(capsys, "bfs", data(name), "--source", 3, "-o", npy)[0] == 0
    np.testing.assert_array_equal(np.load(npy), unweighted_dist(A, 3))


def test_bfs_text_summary(capsys):
    rc, out, err = run(capsys, "bfs", "kron:8", "--source", 0)
    assert rc == 0 and err == ""  # stderr is not a terminal: no progress
    lines = out.splitlines()
    assert [ln.split(":")[0] for ln in lines] == ["graph", "bfs", "result", "time", "rate"]
    assert "levels" in lines[2] and "reached" in lines[2]
    assert "load" in lines[3] and "build" in lines[3] and "compute" in lines[3]
    assert "GTEPS" in lines[4]


def test_bfs_source_random_is_seeded(capsys):
    a = run_json(capsys, "bfs", "kron:10", "--source", "random", "--seed", 5)["result"]["source"]
    b = run_json(capsys, "bfs", "kron:10", "--source", "random", "--seed", 5)["result"]["source"]
    A = graph_of("kron:10")
    assert a == b and np.diff(A.indptr)[a] > 0


def test_demo_in_process(capsys):
    """``bitgraph --scale S`` is ``bitgraph bfs kron:S --check``."""
    rc, out, err = run(capsys, "--scale", 8)
    assert rc == 0, err
    assert "kron:8" in out and "match scipy" in out
    r = run_json(capsys, "--scale", 9)
    assert r["graph"] == "kron:9" and r["result"]["check"] == "ok"


# --------------------------------------------------------------------------- msbfs

@pytest.mark.parametrize("spec", SPECS)
def test_msbfs_json_matches_scipy(capsys, spec):
    A = graph_of(spec)
    r = run_json(capsys, "msbfs", spec, "--sources", "0,7,200,7", "--check")
    ref = unweighted_dist(A, [0, 7, 200, 7])
    res = r["result"]
    assert res["sources"] == 4 and res["check"] == "ok"
    assert res["mean_levels"] == pytest.approx((ref.max(axis=1) + 1).mean())
    assert res["mean_reached"] == pytest.approx((ref >= 0).sum(axis=1).mean())


def test_msbfs_random_sources_and_output(capsys, tmp_path):
    out = tmp_path / "ms.npy"
    r = run_json(capsys, "msbfs", "kron:9", "--sources", 20, "--seed", 1, "-o", out)
    got = np.load(out)
    assert got.shape == (20, 512) and r["result"]["sources"] == 20
    A = graph_of("kron:9")
    # the sources are distinct vertices with out-edges; row i is the BFS from source i
    src = np.flatnonzero(got == 0) % 512
    assert np.unique(src).size == 20 and (np.diff(A.indptr)[src] > 0).all()
    np.testing.assert_array_equal(got, unweighted_dist(A, src))


# ---------------------------------------------------------------------------- sssp

def test_sssp_random_weights(capsys, tmp_path):
    out = tmp_path / "d.txt"
    r = run_json(capsys, "sssp", "kron:9", "--weights", "random:1:100", "--seed", 2, "--source", 5,
                 "--check", "-o", out)
    A = graph_of("kron:9")
    W, info = cli._weighted(A, "random:1:100", 2)
    ref = csg.dijkstra(W.to_scipy(), indices=5)
    res = r["result"]
    assert res["check"] == "ok" and r["weights"]["integer"] is True
    assert res["reached"] == int(np.isfinite(ref).sum())
    assert res["max_distance"] == int(ref[np.isfinite(ref)].max())
    np.testing.assert_array_equal(np.loadtxt(out), ref)


def test_weights_symmetric_seeded_in_range():
    A = graph_of("grid:12x12")
    W1, _ = cli._weighted(A, "random:3:9", 7)
    W2, _ = cli._weighted(A, "random:3:9", 7)
    W3, _ = cli._weighted(A, "random:3:9", 8)
    S = W1.to_scipy()
    assert (S != S.T).nnz == 0  # both directions of an edge weigh the same
    assert W1.values.min() >= 3 and W1.values.max() <= 9 and W1.values.dtype == np.int64
    assert np.unique(W1.values).size == 7
    assert W1.isequal(W2) and not W1.isequal(W3)
    F, _ = cli._weighted(A, "random:0.5:2.5", 7)
    assert F.values.dtype == np.float64 and 0.5 <= F.values.min() and F.values.max() <= 2.5


def test_sssp_file_weights_and_unweighted(capsys):
    A = bg.io.read(data("cryg2500.mtx"))  # directed, weighted; some weights are negative?
    if A.values.min() >= 0:
        r = run_json(capsys, "sssp", data("cryg2500.mtx"), "--check")
        assert r["result"]["check"] == "ok"
    r = run_json(capsys, "sssp", data("karate.mtx"), "--source", 0, "--check")
    ref = unweighted_dist(bg.io.read(data("karate.mtx")), 0)
    assert r["result"]["max_distance"] == ref.max() and r["result"]["reached"] == 34


# ------------------------------------------------------------------------ pagerank

def test_pagerank_matches_networkx(capsys, tmp_path):
    nx = pytest.importorskip("networkx")
    A = bg.io.read(data("karate.mtx"))
    G = nx.from_scipy_sparse_array(A.to_scipy().astype(np.float64), create_using=nx.DiGraph)
    ref = nx.pagerank(G, alpha=0.85, tol=1e-8)
    out = tmp_path / "pr.txt"
    r = run_json(capsys, "pagerank", data("karate.mtx"), "--tol", 1e-8, "--top", 3, "-o", out)
    res = r["result"]
    assert res["converged"] and res["iterations"] >= 1
    order = sorted(ref, key=lambda v: -ref[v])[:3]
    assert [t["vertex"] for t in res["top"]] == order
    got = np.loadtxt(out)
    assert np.abs(got - np.array([ref[i] for i in range(34)])).sum() < 1e-6


@pytest.mark.parametrize("spec", SPECS)
def test_pagerank_specs(capsys, spec):
    r = run_json(capsys, "pagerank", spec, "--max-iter", 200)
    assert r["result"]["converged"] and len(r["result"]["top"]) == 5
    ranks = [t["rank"] for t in r["result"]["top"]]
    assert ranks == sorted(ranks, reverse=True)


def test_pagerank_line_states_the_rule(capsys):
    """The result line gives the stopping rule with its numbers (NetworkX's:
    an iteration's L1 change below n * tol), so an early stop on a large
    graph does not read as a bug; the JSON carries the same threshold."""
    r = run_json(capsys, "pagerank", "grid:8x8", "--tol", 1e-4)
    res = r["result"]
    assert res["threshold"] == pytest.approx(64 * 1e-4)
    assert res["converged"] and res["error"] < res["threshold"]
    rc, out, _ = run(capsys, "pagerank", "grid:8x8", "--tol", 1e-4)
    assert rc == 0
    assert (f"result: converged after {res['iterations']} iterations: the last L1 change "
            f"{res['error']:.3g} < n * tol = 0.0064 (NetworkX's rule") in out
    rc, out, _ = run(capsys, "pagerank", "grid:8x8", "--max-iter", 1)
    assert rc == 0
    assert re.search(r"result: NOT converged after 1 iteration: the last L1 change \S+ >= "
                     r"n \* tol = 6\.4e-05 \(raise --max-iter or --tol\)", out), out


# ------------------------------------------------------------------------------ cc

@pytest.mark.parametrize("spec", SPECS + ["grid:20x20:0.6@3"])
def test_cc_matches_scipy(capsys, spec):
    A = graph_of(spec)
    k, lab = csg.connected_components(A.to_scipy(), directed=True, connection="weak")
    r = run_json(capsys, "cc", spec, "--check")
    assert r["result"]["components"] == k
    assert r["result"]["largest"] == int(np.bincount(lab).max())
    assert r["result"]["check"] == "ok"


@pytest.mark.parametrize("name", ["west0067.mtx", "LFAT5_hypersparse.mtx", "ldbc-wcc-example.mtx"])
def test_cc_files(capsys, tmp_path, name):
    A = bg.io.read(data(name))
    k, lab = csg.connected_components(A.to_scipy(), directed=True, connection="weak")
    out = tmp_path / "labels.txt"
    r = run_json(capsys, "cc", data(name), "--check", "-o", out)
    assert r["result"]["components"] == k
    labels = np.loadtxt(out, dtype=np.int64, ndmin=1)
    mins = np.full(k, A.nrows)
    np.minimum.at(mins, lab, np.arange(A.nrows))
    np.testing.assert_array_equal(labels, mins[lab])


# ------------------------------------------------------------------------------ tc

def _triangles_scipy(A):
    S = (A.to_scipy() != 0).astype(np.int64)
    U = sp.csr_array(((S + S.T) != 0).astype(np.int64))
    U.setdiag(0)
    U.eliminate_zeros()
    return np.asarray((U @ U).multiply(U).sum(axis=1)).ravel() // 2


@pytest.mark.parametrize("spec", SPECS)
def test_tc_matches_scipy(capsys, spec):
    per = _triangles_scipy(graph_of(spec))
    r = run_json(capsys, "tc", spec, "--check")
    assert r["result"]["triangles"] == per.sum() // 3 and r["result"]["check"] == "ok"
    r = run_json(capsys, "tc", spec, "--per-vertex")
    assert r["result"]["triangles"] == per.sum() // 3
    assert r["result"]["max_per_vertex"] == per.max()


def test_tc_karate_networkx(capsys, tmp_path):
    nx = pytest.importorskip("networkx")
    G = nx.from_scipy_sparse_array(bg.io.read(data("karate.mtx")).to_scipy())
    out = tmp_path / "tri.txt"
    r = run_json(capsys, "tc", data("karate.mtx"), "-o", out)
    assert r["result"]["triangles"] == sum(nx.triangles(G).values()) // 3 == 45
    np.testing.assert_array_equal(np.loadtxt(out, dtype=np.int64),
                                  [nx.triangles(G)[v] for v in range(34)])


# ---------------------------------------------------------------------------- info

def _deg(d):
    return {"min": int(d.min()), "mean": pytest.approx(float(d.mean())),
            "median": pytest.approx(float(np.median(d))), "max": int(d.max())}


@pytest.mark.parametrize("spec", SPECS)
def test_info_specs(capsys, spec):
    from bitgraph.formats import b2sr, bvss

    A = graph_of(spec)
    r = run_json(capsys, "info", spec)
    res = r["result"]
    assert (res["nrows"], res["ncols"], res["nvals"]) == (A.nrows, A.ncols, A.nvals)
    assert res["symmetric"] is True and res["self_loops"] == 0
    assert res["undirected_edges"] == A.nvals // 2
    assert res["out_degree"] == _deg(np.diff(A.indptr)) and res["in_degree"] is None
    assert res["social"]["social_like"] == (spec.startswith("kron"))
    for t in (4, 8, 16, 32):
        st = b2sr.stats(A.b2sr(t), nnz=A.nvals)
        got = res["b2sr"][str(t)]
        assert (got["ntiles"], got["nbytes"]) == (st["ntiles"], st["nbytes"])
        assert got["fill"] == pytest.approx(st["fill"]) and got["estimated_nbytes"] > 0
    assert res["bvss"]["vss"] == bvss.stats(A.T.bvss())["vss"]
    assert res["csr_int32_bytes"] == 4 * (A.nrows + 1) + 4 * A.nvals
    assert "b2sr-8" in r["times"]["build_steps"] and "bvss" in r["times"]["build_steps"]


def test_info_files(capsys):
    r = run_json(capsys, "info", data("karate.mtx"), "--reorder")["result"]
    assert (r["nrows"], r["nvals"], r["symmetric"], r["undirected_edges"]) == (34, 156, True, 78)
    deg = np.diff(bg.io.read(data("karate.mtx")).indptr)
    assert r["out_degree"] == _deg(deg) and (r["out_degree"]["min"], r["out_degree"]["max"]) == (1, 17)
    assert "bvss_reorder_auto" in r
    d = run_json(capsys, "info", data("west0067.mtx"))["result"]
    A = bg.io.read(data("west0067.mtx"))
    assert d["symmetric"] is False and d["undirected_edges"] is None
    assert d["in_degree"] == _deg(np.bincount(A.indices, minlength=A.nrows))
    assert d["self_loops"] == int((A.to_scipy().diagonal() != 0).sum())
    # rectangular and empty matrices: sizes only, no graph statistics
    for name, shape in (("lp_afiro.mtx", (27, 51)), ("empty.mtx", (3, 4))):
        e = run_json(capsys, "info", data(name))["result"]
        assert (e["nrows"], e["ncols"]) == shape and "out_degree" not in e
    rc, out, err = run(capsys, "info", data("karate.mtx"))
    assert rc == 0 and "B2SR" in out and "BVSS" in out and "social" in out


# ------------------------------------------------------------------------- convert

@pytest.mark.parametrize("suffix", [".mtx", ".mtx.gz", ".el", ".txt.gz", ".csv"])
def test_convert_roundtrip(capsys, tmp_path, suffix):
    out = tmp_path / f"g{suffix}"
    r = run_json(capsys, "convert", "grid:6x7", "-o", out)
    assert r["result"]["format"] == ("mtx" if ".mtx" in suffix else "edgelist")
    A = graph_of("grid:6x7")
    B = bg.io.read(out)
    assert B.isequal(A)
    if suffix == ".mtx":
        assert "symmetric" in out.read_text().splitlines()[0]
        run_json(capsys, "convert", "grid:6x7", "-o", out, "--general")
        assert "general" in out.read_text().splitlines()[0] and bg.io.read(out).isequal(A)


@pytest.mark.parametrize("name", ["west0067.mtx", "bcsstk13.mtx", "karate.mtx"])
def test_convert_files(capsys, tmp_path, name):
    A = bg.io.read(data(name))
    el = tmp_path / "g.el"
    rc, out, err = run(capsys, "convert", data(name), "-o", el)
    assert rc == 0 and "wrote" in out
    B = bg.io.read(el, nrows=A.nrows)
    assert B.isequal(A, check_dtype=False)
    if not A.iso:
        np.testing.assert_array_equal(B.values, A.values)  # repr round-trips floats
    mtx = tmp_path / "g.mtx"
    assert run(capsys, "convert", str(el), "-o", mtx)[0] == 0
    assert bg.io.read(mtx).isequal(B)


# --------------------------------------------------------------------------- bench

@pytest.mark.parametrize("algo", ["bfs", "msbfs", "sssp", "pagerank", "cc", "tc"])
def test_bench(capsys, algo):
    extra = ["--sources", 8] if algo == "msbfs" else []
    r = run_json(capsys, "bench", "kron:8", "--algo", algo, "--repeat", 3, *extra)
    res = r["result"]
    assert r["algo"] == algo and res["runs"] == 3 and len(res["times_ms"]) == 3
    assert 0 < res["min_ms"] <= res["median_ms"]
    assert ("gteps_median" in res) == (algo in ("bfs", "msbfs", "sssp"))


def test_bench_random_sources_and_method(capsys):
    r = run_json(capsys, "bench", "grid:16x16", "--algo", "bfs", "--method", "push",
                 "--source", "random", "--repeat", 4)
    assert r["method"] == "push" and r["result"]["gteps_max"] >= r["result"]["gteps_median"]
    rc, out, err = run(capsys, "bench", "kron:8", "--algo", "bfs", "--repeat", 2)
    assert rc == 0 and "median" in out and "GTEPS" in out


# -------------------------------------------------------------------------- errors

ERRORS = [
    (["foo", "kron:8"], "invalid choice: 'foo'"),
    (["bfs"], "GRAPH"),
    (["bfs", "no/such/graph.mtx"], "no/such/graph.mtx: no such file"),
    (["bfs", "kron:x"], "bad graph spec 'kron:x'"),
    (["bfs", "grid:5"], "bad graph spec"),
    (["bfs", "grid:0x5"], "the graph has no vertices"),
    (["bfs", "kron:8", "--source", "256"], "bfs: source 256 is out of range for a graph of 256 vertices"),
    (["bfs", "kron:8", "--source", "-1"], "out of range"),
    (["bfs", "kron:8", "--source", "abc"], "--source must be a vertex id"),
    (["sssp", "kron:8", "--source", "999"], "sssp: source 999 is out of range"),
    (["msbfs", "kron:8", "--sources", "1,2,300"], "msbfs: sources[2] = 300 is out of range"),
    (["msbfs", "kron:8", "--sources", "x"], "--sources must be N or a list"),
    (["bfs", "kron:8", "--method", "zzz"], "bfs: unknown method 'zzz'"),
    (["bench", "kron:8", "--algo", "bfs", "--method", "zzz"], "bfs: unknown method 'zzz'"),
    (["bench", "kron:8", "--algo", "pagerank", "--method", "pull"], "--method applies to"),
    (["bench", "kron:8", "--algo", "tc", "--method", "pull"], "unknown method 'pull'"),
    (["cc", "kron:8", "--method", "pull"], "cc: unknown method 'pull'; known: auto, "),
    (["bench", "kron:8", "--algo", "nope"], "invalid choice: 'nope'"),
    (["bench", "kron:8", "--algo", "bfs", "--repeat", "0"], "positive integer"),
    (["pagerank", "kron:8", "--method", "pull"], "unrecognized arguments: --method pull"),
    (["info", "kron:8", "--device", "cuda"], "--device cuda: info runs on the CPU only (on CUDA: "
                                             "bfs, msbfs, sssp, pagerank, cc, tc; bench --algo "
                                             "bfs|msbfs|sssp|pagerank|cc|tc); use --device cpu or auto"),
    (["convert", "kron:8", "-o", "x.mtx", "--device", "cuda"], "--device cuda: convert runs on the CPU only"),
    (["bfs", "kron:8", "--device", "tpu"], "invalid choice: 'tpu'"),
    (["sssp", "kron:8", "--weights", "random:-5:3"], "sssp: "),
    (["sssp", "kron:8", "--weights", "gauss:1:2"], "--weights must be random:LO:HI"),
    (["sssp", "kron:8", "--weights", "random:5:1"], "LO <= HI"),
    (["bfs", "kron:8", "--undirected"], "apply to graph files"),
    (["convert", "kron:8", "-o", "x.foo"], "cannot tell the format"),
    (["convert", "kron:8", "-o", "no/such/dir/x.mtx"], "no such directory"),
    (["cc", "kron:8", "-o", "no/such/dir/x.txt"], "cc: cannot write no/such/dir/x.txt: no such directory"),
    (["bfs", "kron:8", "-o", "."], "bfs: cannot write .: is a directory"),
    (["convert", "kron:8", "-o", "."], "convert: cannot write .: is a directory"),
    (["convert", "kron:8"], "-o/--output"),
    (["--scale", "-1"], "--scale must be >= 0"),
    (["--scale", "x"], "invalid int value"),
]


def _assert_one_line_error(rc, out, err, expect):
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("bitgraph: error: ") and expect in lines[0], lines[0]
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, expect", ERRORS, ids=[" ".join(a) for a, _ in ERRORS])
def test_errors(capsys, argv, expect):
    rc, out, err = run(capsys, *argv)
    _assert_one_line_error(rc, out, err, expect)


@pytest.mark.skipif(CUDA_REASON is None, reason="CUDA is usable here (tests/gpu/test_cli_gpu.py)")
@pytest.mark.parametrize("argv", [["bfs", "kron:8"], ["msbfs", "kron:8"], ["sssp", "kron:8"],
                                  ["pagerank", "kron:8"], ["cc", "kron:8"], ["tc", "kron:8"],
                                  ["bench", "kron:8", "--algo", "msbfs", "--repeat", "1"],
                                  ["bench", "kron:8", "--algo", "tc", "--repeat", "1"]])
def test_device_cuda_without_a_gpu(capsys, argv):
    """A command that runs on CUDA, asked for it where it is not usable: an
    error saying why (CuPy missing, no GPU), never a silent CPU run."""
    rc, out, err = run(capsys, *argv, "--device", "cuda")
    where = "bench" if argv[0] == "bench" else argv[0]
    command = argv[argv.index("--algo") + 1] if where == "bench" else where
    _assert_one_line_error(rc, out, err, f"{command} --device: device 'cuda' was asked for, but ")
    assert " ".join(CUDA_REASON.split())[:80] in err


def test_device_auto_picks_the_cpu_for_cpu_only_commands(capsys, tmp_path):
    assert run_json(capsys, "info", "grid:8x8", "--device", "auto")["device"] == "cpu"
    assert run_json(capsys, "info", "grid:8x8", "--device", "cpu")["device"] == "cpu"
    rc, _, err = run(capsys, "convert", "grid:8x8", "-o", tmp_path / "g.mtx", "--device", "auto")
    assert rc == 0 and (tmp_path / "g.mtx").exists(), err


@pytest.mark.parametrize("method", ["pull", "blest"])
def test_device_cuda_bfs_method_cpu_only(capsys, monkeypatch, method):
    """A bfs method that runs on the CPU only (every method runs on CUDA
    today: the CUDA list is cut here) is refused by --device cuda, runs
    with the default."""
    bfs_mod = importlib.import_module("bitgraph.algorithms.breadth_first")  # the module, not the function
    monkeypatch.setattr(bfs_mod, "METHODS_CUDA",
                        tuple(m for m in bfs_mod.METHODS_CUDA if m != method))
    cuda = ", ".join(cli._cuda_methods("bfs"))
    rc, out, err = run(capsys, "bfs", "kron:8", "--method", method, "--device", "cuda")
    _assert_one_line_error(rc, out, err, f"--device cuda: bfs --method {method} runs on the CPU "
                                         f"only (on CUDA: {cuda}); use --device cpu or auto")
    assert run_json(capsys, "bfs", "kron:8", "--method", method)["device"] == "cpu"


def test_device_resolution():
    """``_command_device``: auto -> cuda only for a CUDA command (and method)
    where CUDA is usable; cpu always cpu."""
    auto_gpu = "cuda" if CUDA_REASON is None else "cpu"
    assert cli._command_device("auto", "bfs") == auto_gpu
    for method in BFS_METHODS:
        if method in CUDA_ONLY and CUDA_REASON is not None:
            with pytest.raises(bg.DeviceError, match=f"bfs --method {method} runs on CUDA only, "
                                                     "and CUDA is not usable here"):
                cli._command_device("auto", "bfs", method)
            continue
        want = auto_gpu if method in cli._cuda_methods("bfs") else "cpu"
        assert cli._command_device("auto", "bfs", method) == want
    for method in CUDA_ONLY:
        with pytest.raises(bg.DeviceError, match=f"--device cpu: bfs --method {method} runs on "
                                                 "CUDA only"):
            cli._command_device("cpu", "bfs", method)
    assert cli._command_device("auto", "msbfs") == auto_gpu
    for command in ("sssp", "pagerank", "cc", "tc", "info", "convert"):
        assert cli._command_device("auto", command) == "cpu"
        assert cli._command_device("cpu", command) == "cpu"
    assert cli._command_device("cpu", "bfs") == "cpu"


@pytest.mark.parametrize("name", ["mangled1.mtx", "mangled5.mtx", "mangled8.mtx", "mangled10.mtx"])
@pytest.mark.parametrize("command", ["bfs", "info", "convert"])
def test_mangled_files(capsys, tmp_path, name, command):
    extra = ["-o", tmp_path / "x.mtx"] if command == "convert" else []
    rc, out, err = run(capsys, command, data(name), *extra)
    # FormatError names the file and the line: "<path>:<line>: <what>"
    _assert_one_line_error(rc, out, err, f"{data(name)}:")
    line = err.split(f"{name}:", 1)[1].split(":", 1)[0]
    assert line.isdigit()
    assert not (tmp_path / "x.mtx").exists()


def test_data_errors(capsys):
    # olm1000 has negative weights; lp_afiro is not square
    rc, out, err = run(capsys, "sssp", data("olm1000.mtx"))
    _assert_one_line_error(rc, out, err, "sssp: ")
    assert "weight" in err
    rc, out, err = run(capsys, "bfs", data("lp_afiro.mtx"))
    _assert_one_line_error(rc, out, err, "square")
    rc, out, err = run(capsys, "bfs", str(DATA))
    _assert_one_line_error(rc, out, err, "is a directory")
    rc, out, err = run(capsys, "bfs", data("karate.mtx"), "--one-based")
    _assert_one_line_error(rc, out, err, "not options of a Matrix Market read")


def test_help_and_version(capsys):
    rc, out, _ = run(capsys, "--help")
    assert rc == 0 and all(c in out for c in cli.COMMANDS) and "--scale" in out
    rc, out, _ = run(capsys, "bench", "--help")
    assert rc == 0 and "--repeat" in out and "GTEPS" in out
    rc, out, _ = run(capsys, "--version")
    assert rc == 0 and bg.__version__ in out


def test_ctrl_c_exits_130_quietly(capsys, monkeypatch):
    def interrupted(s):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "load_graph", interrupted)
    rc, out, err = run(capsys, "bfs", "kron:8")
    assert rc == 130 and out == "" and err == ""


def test_check_failure_exits_1(capsys, monkeypatch):
    """--check can fail: a wrong level is caught and reported (exit 1)."""
    real = cli._Algo.call

    def wrong(self, source=None):
        levels = real(self, source)
        d = levels.to_dense(-1)
        d[d == 1] = 2
        return bg.Vector.from_coo(np.flatnonzero(d >= 0), d[d >= 0].astype(np.int32), size=d.size)

    monkeypatch.setattr(cli._Algo, "call", wrong)
    rc, out, err = run(capsys, "bfs", "grid:5x5", "--source", 0, "--check")
    assert rc == 1 and "check failed: bfs level of vertex" in err


def _bump_first_positive(d):
    d = d.copy()
    d.flat[int(np.flatnonzero(d > 0)[0])] += 1
    return d


# command line, how to spoil the result, the message expected
SPOILED = [
    (["msbfs", "kron:8", "--sources", "0,9"], lambda out: _bump_first_positive(np.asarray(out)),
     "check failed: msbfs level of vertex "),
    (["sssp", "kron:8", "--weights", "random:1:9", "--source", "3"],
     lambda out: bg.Vector.from_coo(out.to_coo()[0], out.to_coo()[1] * 2, size=out.size),
     "check failed: sssp distance of vertex "),
    (["cc", "grid:4x4:0.7@2"], lambda out: bg.Vector.from_dense(np.zeros(out.size, np.int64)),
     "check failed: components: vertices "),
    (["cc", "grid:3x3"], lambda out: bg.Vector.from_dense(np.arange(out.size, dtype=np.int64)),
     "check failed: components: vertex 1 has label 1 but vertex 0, in the same component, has label 0"),
    (["tc", "kron:8"], lambda out: out + 1, "check failed: triangle count is "),
    (["tc", "kron:8", "--per-vertex"],
     lambda out: bg.Vector.from_dense(_bump_first_positive(out.to_dense(0))),
     "check failed: triangles at vertex "),
    (["pagerank", "kron:8"],
     lambda out: out._replace(ranks=bg.Vector.from_dense(np.roll(out.ranks.to_dense(0.0), 1))),
     "check failed: pagerank: the ranks are "),
]


@pytest.mark.parametrize("argv, spoil, expect", SPOILED, ids=[" ".join(a) for a, _, _ in SPOILED])
def test_check_failures_name_the_vertex(capsys, monkeypatch, argv, spoil, expect):
    """Every --check catches a wrong answer (bitgraph.validate): exit 1, one line."""
    rc, out, err = run(capsys, *argv, "--check")
    assert rc == 0 and "check:" in out, err
    real = cli._Algo.call
    monkeypatch.setattr(cli._Algo, "call", lambda self, source=None: spoil(real(self, source)))
    rc, out, err = run(capsys, *argv, "--check")
    assert rc == 1 and err.startswith("bitgraph: " + expect) and err.count("\n") == 1, err


def test_pagerank_check(capsys):
    r = run_json(capsys, "pagerank", "kron:9", "--check", "--tol", "1e-9")
    assert r["result"]["check"] == "ok"
    rc, out, err = run(capsys, "pagerank", "kron:8", "--check", "--max-iter", "2")
    assert rc == 1 and "check failed: pagerank: the ranks are" in err  # stopped far from the fixpoint
    rc, out, err = run(capsys, "pagerank", "kron:8", "--check", "--alpha", "1")
    _assert_one_line_error(rc, out, err, "pagerank: --check needs --alpha < 1")


# ---------------------------------------------------------------- tables, help, formats

def _module(name):
    return importlib.import_module(f"bitgraph.algorithms.{name}")  # the module, not the function


def _help(capsys, *argv):
    rc, out, _ = run(capsys, *argv, "--help")
    assert rc == 0
    return " ".join(out.split())


def test_help_comes_from_the_algorithms_tables(capsys, monkeypatch):
    bfs_mod = _module("breadth_first")
    text = _help(capsys, "bfs")
    assert f"--method METHOD {', '.join(bfs_mod.METHODS)} (default auto); async, window, hops on CUDA only" in text
    assert f"bfs (methods {', '.join(bfs_mod.METHODS_CUDA)}), msbfs, sssp, pagerank, cc, tc (every method) run on CUDA" in text
    assert "The other commands (info, convert) run on the CPU only" in text
    for command, module in (("sssp", "shortest_paths"), ("cc", "components"), ("tc", "triangles")):
        methods = _module(module).METHODS
        assert f"--method METHOD {', '.join(methods)} (default auto)" in _help(capsys, command)
        assert cli._methods(command) == tuple(methods)
    # the tables change, the help follows: nothing is copied
    monkeypatch.setattr(bfs_mod, "METHODS", bfs_mod.METHODS + ("newer",))
    monkeypatch.setattr(bfs_mod, "METHODS_CUDA", ("auto", "pull"))
    text = _help(capsys, "bfs")
    assert ", hops, newer (default auto)" in text and "bfs (methods auto, pull), msbfs" in text
    rc, out, err = run(capsys, "bfs", "kron:8", "--method", "nope")
    assert rc == 2 and "known: " + ", ".join(bfs_mod.METHODS) in err


def test_docstring_tells_the_cuda_methods():
    """The module docstring lists bfs's CUDA methods: every method today; a
    change to METHODS_CUDA or CUDA_ONLY must change it too."""
    bfs_mod = _module("breadth_first")
    doc = " ".join(cli.__doc__.split())
    assert set(bfs_mod.METHODS_CUDA) == set(bfs_mod.METHODS)
    assert f"bfs (every method: {', '.join(bfs_mod.METHODS_CUDA)})" in doc
    assert tuple(bfs_mod.CUDA_ONLY) == ("async", "window", "hops")
    assert "``--method async``, ``--method window`` and ``--method hops`` run on the GPU only" in doc
    assert "bfs (every method" in cli._device_help() or "bfs (methods" in cli._device_help()


class _Steps:
    """A session that records the build steps; runs them, or returns
    ``returns[key]`` instead."""

    def __init__(self, returns=None):
        self.keys, self.returns = [], returns

    def build(self, key, label, fn):
        self.keys.append(key)
        return fn() if self.returns is None else self.returns.get(key)


@pytest.mark.parametrize("command, method, parents, want", [
    ("bfs", "auto", False, ["transpose"]),       # auto = direction on the CPU
    ("bfs", "direction", True, ["transpose"]),
    ("bfs", "pull", False, ["transpose"]),
    ("bfs", "push", False, []),
    ("bfs", "push", True, []),                   # the CPU's push records parents itself
    ("bfs", "blest", False, ["bvss"]),
    ("bfs", "blest", True, ["bvss", "transpose"]),
    ("msbfs", "auto", False, ["transpose"]),
    ("sssp", "auto", False, ["transpose"]),      # structure-only: bfs auto
])
def test_prepare_builds_what_the_method_reads_cpu(command, method, parents, want):
    A = bg.io.read(io.BytesIO(b"0 1\n1 2\n2 0\n3 1\n"))  # directed: A' is its own format
    s = _Steps()
    cli.prepare(s, A, command, method, parents=parents)
    assert s.keys == want


@pytest.mark.parametrize("command, method, parents, auto, want", [
    ("bfs", "auto", False, "direction", ["auto-method", "transpose"]),
    ("bfs", "auto", False, "async", ["auto-method"]),
    ("bfs", "auto", True, "async", ["auto-method", "transpose"]),
    ("bfs", "blest", False, None, ["bvss", "transpose"]),
    ("bfs", "push", False, None, []),
    ("bfs", "push", True, None, ["transpose"]),    # CUDA parents read A'
    ("bfs", "async", False, None, []),
    ("bfs", "window", False, None, []),
    ("bfs", "auto", False, "window", ["auto-method"]),
    ("bfs", "direction", False, None, ["transpose"]),
    ("msbfs", "auto", False, None, ["transpose"]),  # no BVSS: msbfs reads A' as CSR
])
def test_prepare_builds_what_the_method_reads_cuda(command, method, parents, auto, want):
    """The CUDA table, without a GPU: a stand-in matrix on "cuda", the steps
    recorded, not run; the "auto-method" step (bfs_method) gives ``auto``."""
    class OnCuda:
        device, iso = "cuda", True

    s = _Steps(returns={"auto-method": auto})
    cli.prepare(s, OnCuda(), command, method, parents=parents)
    assert s.keys == want


# ------------------------------------------------------------------------ progress

def test_progress_shows_on_a_terminal_only(capsys, monkeypatch):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("BITGRAPH_PROGRESS", raising=False)
    assert _progress.should_show(stream=Tty()) and not _progress.should_show(stream=io.StringIO())
    assert not _progress.should_show(quiet=True, stream=Tty())
    monkeypatch.setenv("BITGRAPH_PROGRESS", "0")
    assert not _progress.should_show(stream=Tty())
    monkeypatch.setenv("BITGRAPH_PROGRESS", "1")
    assert _progress.should_show(stream=io.StringIO())

    tty = Tty()
    p = _progress.Progress(stream=tty, delay=0.05)
    with p.step("build", "building BVSS"):
        time.sleep(0.4)
    with p.step("build", "again"):
        pass
    assert "building BVSS" in tty.getvalue() and tty.getvalue().endswith("\r")  # wiped
    assert p.order == ["build"] and p.times["build"] >= 0.4
    assert list(p.track(range(4), "runs", total=4)) == [0, 1, 2, 3]

    quiet = Tty()
    p = _progress.Progress(show=False, stream=quiet, delay=0)
    with p.step("x"):
        time.sleep(0.1)
    assert quiet.getvalue() == "" and p.times["x"] >= 0.1

    # forced on, the CLI still prints nothing on stderr with --json or --quiet
    monkeypatch.setattr(_progress, "DELAY", 0.0)
    run_json(capsys, "bfs", "kron:8")
    rc, out, err = run(capsys, "bfs", "kron:8", "--quiet")
    assert rc == 0 and err == ""


# --------------------------------------------------------------------- subprocess

def _python_m(*args, timeout=300):
    env = dict(os.environ, BITGRAPH_PROGRESS="")
    return subprocess.run([sys.executable, "-m", "bitgraph", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_subprocess_demo():
    p = _python_m("--scale", 12)
    assert p.returncode == 0, p.stderr
    assert "kron:12" in p.stdout and "match scipy" in p.stdout and p.stderr == ""


def test_subprocess_errors():
    p = _python_m("info", "kron:8", "--device", "cuda")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.count("\n") == 1 and "info runs on the CPU only" in p.stderr
    p = _python_m("nosuchcommand", "kron:8")
    assert p.returncode == 2 and "Traceback" not in p.stderr and p.stderr.count("\n") == 1
    p = _python_m("info", data("mangled8.mtx"))
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert p.stderr.strip() == f"bitgraph: error: {data('mangled8.mtx')}:4: " \
        "the size line must hold 3 integers 'nrows ncols nnz', found 1: '3'"


def test_subprocess_json_pipe():
    p = _python_m("cc", "grid:8x8", "--json")
    assert p.returncode == 0 and p.stderr == ""
    assert json.loads(p.stdout)["result"] == {"components": 1, "largest": 64}


@pytest.mark.parametrize("spec", ["kronh:8@1", "urandh:8:4"])
def test_hashed_generator_specs(capsys, spec):
    res = run_json(capsys, "info", spec)["result"]
    assert res["nvals"] == bg.io.generators.from_spec(spec).nvals > 0
