"""The command line on a GPU: bfs and msbfs (and bench of them) run on CUDA
with ``--device cuda`` and with the default ``auto``, with the same answers
as on the CPU (``--check`` against scipy, parents validated, ``-o``
output); the CPU-only commands stay on the CPU under ``auto`` and refuse
``--device cuda``."""

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


@pytest.mark.parametrize("command", ["sssp", "pagerank", "cc", "tc"])
def test_cpu_only_commands(capsys, command):
    assert run_json(capsys, command, "grid:8x8")["device"] == "cpu"
    rc, out, err = run(capsys, command, "grid:8x8", "--device", "cuda")
    _assert_one_line_error(rc, out, err, f"--device cuda: {command} runs on the CPU only")
