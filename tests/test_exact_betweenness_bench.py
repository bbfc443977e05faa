"""benchmarks/exact_betweenness.py on the CPU (ranks as threads): a call cut
into two parts, combined, equals the one-process betweenness, and the
all-pairs identity holds; a missing part is named."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "exact_betweenness.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_exact_bc", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_exact_bc"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_two_parts_equal_one_call(bench, tmp_path, capsys):
    import bitgraph as bg

    common = ["--graph", "kron:8", "--device", "cpu", "--ranks", "2", "--rounds", "1"]
    # part 1 stops after its first chunk (deadline 0), part 2 goes on from there
    assert bench.main(common + ["--out", str(tmp_path / "a"), "--check", "--deadline", "0"]) == 0
    first = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("part ")]
    done = int(first[0].split("rounds_done=")[1].split()[0])
    rounds = int(first[0].split(" rounds=")[1].split()[0])
    assert 0 < done < rounds
    with pytest.raises(SystemExit, match=f"stop at round {done}"):
        bench.combine([str(tmp_path / "a")])
    assert bench.main(common + ["--out", str(tmp_path / "b"), "--start", str(done)]) == 0
    line, bc = bench.combine([str(tmp_path / "a"), str(tmp_path / "b")])
    A = bg.io.generators.from_spec("kron:8")
    want = bg.algorithms.betweenness_centrality(A)
    np.testing.assert_allclose(bc, want, rtol=1e-12, atol=1e-15)
    assert "rel_diff=" in line and float(line.split("rel_diff=")[1].split()[0]) < 1e-12


def test_directed_graph(bench, tmp_path, monkeypatch):
    # a directed graph (kron:7 with its lower triangle dropped): NetworkX's directed scaling,
    # and the identity over out-paths
    import bitgraph as bg
    from bitgraph.io import generators

    A = bg.io.generators.from_spec("kron:7")
    r, c, _ = A.to_coo()
    keep = r < c
    D = bg.Matrix.from_coo(r[keep], c[keep], nrows=A.nrows, ncols=A.ncols)
    monkeypatch.setattr(generators, "from_spec", lambda spec, device="cpu": D)
    out = tmp_path / "a"
    assert bench.main(["--graph", "kron:7", "--device", "cpu", "--ranks", "2", "--check",
                       "--out", str(out)]) == 0
    line, bc = bench.combine([str(out)])
    np.testing.assert_allclose(bc, bg.algorithms.betweenness_centrality(D), rtol=1e-12,
                               atol=1e-15)
    assert float(line.split("rel_diff=")[1].split()[0]) < 1e-12


def test_identity_mismatch_is_named(bench, tmp_path):
    import json

    out = tmp_path / "a"
    assert bench.main(["--graph", "kron:6", "--device", "cpu", "--ranks", "2", "--check",
                       "--out", str(out)]) == 0
    f = out / "part-0.json"
    info = json.loads(f.read_text())
    info["rhs"] += 1
    f.write_text(json.dumps(info))
    with pytest.raises(SystemExit, match="all-pairs identity"):
        bench.combine([str(out)])
