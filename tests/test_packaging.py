"""Packaging facts a user reads: the LICENSE and the license metadata, the
CUDA install line (one constant, shared by every ``DeviceError`` and the
README, naming pyproject's extras), and the README's NetworkX facts run as
written: which call runs the backend (``should_run``), NetworkX's cache
warning and its stale-cache rule. (``.ci/package_smoke.sh`` checks that the
built wheel and sdist carry the LICENSE.)"""

from __future__ import annotations

import contextlib
import logging
import pathlib
import re
import sys
import tomllib
import warnings

import pytest

import bitgraph as bg
from bitgraph import device

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _flat(text):
    return " ".join(text.split())


def test_license_file_and_metadata():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n")
    assert "Copyright (c) 2026, bitgraph developers" in text
    assert "Neither the name of the copyright holder" in text  # the third clause
    project = PYPROJECT["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project["license-files"] == ["LICENSE"]


def test_cuda_install_hint_names_the_extras():
    """bitgraph is not on PyPI: the hint names the extra on a checkout and
    the extra's own requirement beside an installed wheel, for both CUDA
    versions, exactly as pyproject.toml declares them."""
    hint = device.CUDA_INSTALL_HINT
    extras = PYPROJECT["project"]["optional-dependencies"]
    for extra in ("cuda13", "cuda12"):
        (requirement,) = extras[extra]
        assert f"'.[{extra}]'" in hint and f"'{requirement}'" in hint, (extra, requirement)
    assert "pip install -e '.[cuda13]'" in hint
    assert "bitgraph[" not in hint


def test_readme_and_device_error_give_the_same_hint(monkeypatch):
    assert device.CUDA_INSTALL_HINT in _flat(README)
    assert "bitgraph[cuda" not in README  # the line that named a missing index entry
    monkeypatch.setitem(sys.modules, "cupy", None)  # `import cupy` raises ImportError
    monkeypatch.setattr(device, "_status", {})
    with pytest.raises(bg.DeviceError, match=r"^Matrix.to: device 'cuda' was asked for, but CuPy "
                                             r"is not installed") as err:
        bg.Matrix.from_coo([0], [1], nrows=2, ncols=2).to("cuda")
    assert str(err.value).endswith(f"install it with {device.CUDA_INSTALL_HINT}")


def test_readme_warmup_command_exists(capsys):
    """The README's warm-up commands name a module and flags that exist."""
    from bitgraph.kernels import warmup

    assert "python -m bitgraph.kernels.warmup" in README
    with pytest.raises(SystemExit):
        warmup.main(["--help"])
    usage = capsys.readouterr().out
    for flag in ("--shard", "--dtypes"):
        assert f"warmup {flag}" in README or f"warmup {flag} " in _flat(README)
        assert flag in usage


# --------------------------------------------------------------- NetworkX facts

def _networkx():
    nx = pytest.importorskip("networkx")
    if "bitgraph" not in nx.utils.backends.backends:
        pytest.skip("the bitgraph backend is not registered (pip install -e .)")
    return nx


@contextlib.contextmanager
def _counting_pagerank(monkeypatch):
    """The backend's pagerank, counting its calls."""
    from bitgraph import nx as bnx

    calls = []
    real = bnx.BackendInterface.pagerank

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(bnx.BackendInterface, "pagerank", staticmethod(counting))
    yield calls


def _readme_nx_blocks():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    return [b for b in blocks if "nx." in b]


def test_readme_networkx_examples_run_the_backend(monkeypatch):
    """The README's first example runs bitgraph (backend= given); its
    second, automatic dispatch with should_run_min_edges = 0, does too;
    with the default threshold automatic dispatch leaves karate to
    NetworkX, for the reason should_run gives."""
    nx = _networkx()
    first, second = _readme_nx_blocks()
    cfg = nx.config.backends.bitgraph
    with _counting_pagerank(monkeypatch) as calls, warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # NetworkX's cache note
        with nx.config(backend_priority=[]), cfg(should_run_min_edges=cfg.should_run_min_edges):
            ns = {}
            exec(first, ns)
            assert len(calls) == 1 and sum(ns["pr"].values()) == pytest.approx(1.0)
            ref = nx.pagerank(ns["G"], backend="networkx")
            assert max(abs(ns["pr"][k] - ref[k]) for k in ref) < 1e-6
            with nx.config(backend_priority=["bitgraph"]):
                assert cfg.should_run_min_edges == 10_000
                nx.pagerank(ns["G"])
                assert len(calls) == 1  # 78 edges < 10,000: NetworkX ran it
            from bitgraph.nx import BackendInterface

            assert BackendInterface.should_run("pagerank", (ns["G"],), {}) == "graph has 78 < 10000 edges"
            exec(second, ns)
            assert len(calls) == 2  # the README's forced dispatch ran bitgraph
        assert cfg.should_run_min_edges == 10_000 and nx.config.backend_priority.algos == []


def test_cache_warning_and_stale_rule():
    """What the README says about NetworkX's conversion cache: a cached call
    warns unless "cache" is ignored; in-place attribute writes leave the
    cached conversion stale until ``G.__networkx_cache__.clear()``; a
    method (``add_edge``) clears it."""
    nx = _networkx()
    G = nx.DiGraph()
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 1.0), (0, 2, 5.0)])
    run = lambda: nx.single_source_dijkstra_path_length(G, 0, backend="bitgraph")  # noqa: E731
    assert run()[2] == 2.0
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with nx.config(warnings_to_ignore=set()):
            run()
        assert any("cache" in str(w.message) and "bitgraph" in str(w.message) for w in seen)
        seen.clear()
        with nx.config(warnings_to_ignore={"cache"}):
            run()
        assert not [w for w in seen if "__networkx_cache__" in str(w.message)]
    with nx.config(warnings_to_ignore={"cache"}):
        G[0][2]["weight"] = 0.5  # in place: the cache does not see it
        assert run()[2] == 2.0  # stale, NetworkX's rule
        G.__networkx_cache__.clear()
        assert run()[2] == 0.5
        G.add_edge(0, 2, weight=0.25)  # a method clears the cache
        assert run()[2] == 0.25


def test_networkx_logging_names_the_backend(caplog):
    """The README's tip: NetworkX's DEBUG log says which backend ran."""
    nx = _networkx()
    G = nx.path_graph(5)
    with caplog.at_level(logging.DEBUG, logger="networkx"), nx.config(warnings_to_ignore={"cache"}):
        nx.single_source_shortest_path_length(G, 0, backend="bitgraph")
    assert any("Using backend 'bitgraph'" in r.getMessage() for r in caplog.records)
