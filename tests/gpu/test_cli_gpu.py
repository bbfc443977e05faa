"""The command line on a GPU: every algorithm command (and bench of them)
runs on CUDA with ``--device cuda`` and with the default ``auto``, with the
same answers as on the CPU (``--check`` against scipy, parents validated,
``-o`` output)."""

from __future__ import annotations

import numpy as np
import pytest
from test_cli import _assert_one_line_error, graph_of, run, run_json, unweighted_dist

from bitgraph import cli

pytestmark = pytest.mark.gpu

SPECS = ["kron:10", "grid:24x24", "urand:9"]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("method", ["auto", "pull", "blest", "push", "direction", "async"])
@pytest.mark.parametrize("parents", [False, True])
def test_bfs_cuda_matches_cpu_and_scipy(capsys, spec, method, parents):
    if method not in cli._cuda_methods("bfs"):
        pytest.skip(f"bfs --method {method} runs on the CPU only")
    extra = ["--parents"] if parents else []
    r = run_json(capsys, "bfs", spec, "--method", method, "--check", "--source", 1, *extra)
    # the CPU reference: the same method, or direction for a CUDA-only one (levels are unique)
    on_cpu = "direction" if method in cli._cuda_only("bfs") else method
    c = run_json(capsys, "bfs", spec, "--method", on_cpu, "--device", "cpu", "--source", 1, *extra)
    assert (r["device"], c["device"]) == ("cuda", "cpu")  # auto: the GPU
    assert r["result"]["check"] == "ok"
    for key in ("source", "levels", "reached", "edges_traversed"):
        assert r["result"][key] == c["result"][key], key
    steps = r["times"]["build_steps"]
    assert "to-cuda" in steps and r["times"]["compute"] > 0
    # the formats the method reads, and no other: only blest reads a BVSS
    assert ("bvss" in steps) == (method == "blest")


def test_bfs_cuda_output_file(capsys, tmp_path):
    out = tmp_path / "levels.txt"
    rc, text, err = run(capsys, "bfs", "kron:10", "--source", 3, "--parents", "--check",
                        "--device", "cuda", "-o", out)
    assert rc == 0, err
    assert "parents form a valid BFS tree" in text
    got = np.loadtxt(out, dtype=np.int64)
    np.testing.assert_array_equal(got[:, 0], unweighted_dist(graph_of("kron:10"), 3))
    assert got[3, 1] == 3


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("opts", [[], ["--batch", "7"], ["--groupby"]])
def test_msbfs_cuda(capsys, spec, opts, tmp_path):
    out = tmp_path / "levels.npy"
    r = run_json(capsys, "msbfs", spec, "--sources", 70, "--check", *opts, "-o", out)
    assert r["device"] == "cuda" and r["result"]["check"] == "ok"
    A = graph_of(spec)
    c = run_json(capsys, "msbfs", spec, "--sources", 70, *opts, "--device", "cpu")
    assert r["result"] == {**c["result"], "check": "ok", "gteps": r["result"]["gteps"]}
    got = np.load(out)
    assert got.shape == (min(70, A.nrows), A.nrows) and got.dtype == np.int64


@pytest.mark.parametrize("algo", ["bfs", "msbfs"])
def test_bench_cuda(capsys, algo):
    r = run_json(capsys, "bench", "kron:10", "--algo", algo, "--repeat", 3, "--source", "random",
                 "--device", "cuda")
    assert r["device"] == "cuda" and r["result"]["runs"] == 3 and r["result"]["gteps_median"] > 0


def test_demo_runs_on_the_gpu(capsys):
    r = run_json(capsys, "--scale", 10)
    assert r["device"] == "cuda" and r["result"]["check"] == "ok"


@pytest.mark.parametrize("spec", ["kron:10", "grid:24x24"])
@pytest.mark.parametrize("argv", [["sssp", "--weights", "random:1:255"], ["sssp"], ["pagerank"],
                                  ["cc"], ["cc", "--method", "fastsv"], ["tc"],
                                  ["tc", "--method", "mxm"], ["tc", "--per-vertex"]])
def test_every_algorithm_command_runs_on_cuda(capsys, spec, argv, tmp_path):
    """auto picks the GPU for every algorithm command; its answer passes
    --check and equals the CPU's (PageRank's ranks within float tolerance);
    -o writes the same vertex values."""
    command, *opts = argv
    r = run_json(capsys, command, spec, *opts, "--check", "-o", tmp_path / "gpu.txt")
    c = run_json(capsys, command, spec, *opts, "--device", "cpu", "-o", tmp_path / "cpu.txt")
    assert (r["device"], c["device"]) == ("cuda", "cpu")
    assert r["result"]["check"] == "ok"
    timing = ("gteps", "check", "error", "top")
    assert {k: v for k, v in r["result"].items() if k not in timing} == \
        {k: v for k, v in c["result"].items() if k not in timing}
    got, want = np.loadtxt(tmp_path / "gpu.txt"), np.loadtxt(tmp_path / "cpu.txt")
    if command == "pagerank":
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    else:
        np.testing.assert_array_equal(got, want)
