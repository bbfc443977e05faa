"""NetworkX -> BitGraph conversion, the backend registration and conversion caching."""

from __future__ import annotations

import importlib

import networkx as nx
import numpy as np
import pytest
from conftest_backend import nx_graphs
from hypothesis import given

import bitgraph.nx as bnx
from bitgraph import device as bg_device
from bitgraph.nx.convert import from_networkx, to_networkx

nx.config.warnings_to_ignore.add("cache")


def edge_set(G):
    return {(u, v) for u, v in G.edges()} | (set() if G.is_directed() else
                                             {(v, u) for u, v in G.edges()})


@given(nx_graphs(multigraph=None))
def test_from_networkx_matches_graph(G):
    BG = from_networkx(G, {"weight": 1})
    assert BG.nodes == list(G) and BG.index == {v: i for i, v in enumerate(G)}
    assert BG.is_directed() == G.is_directed() and not BG.is_multigraph()
    assert len(BG) == BG.number_of_nodes() == len(G)
    simple = nx.DiGraph(G) if G.is_directed() else nx.Graph(G)  # parallel edges collapsed
    assert BG.number_of_edges() == simple.number_of_edges()
    r, c, _ = BG.matrix.to_coo()
    got = set(zip(BG.labels(r), BG.labels(c)))
    assert got == edge_set(G)
    # weights on the same pattern; missing attribute -> default; multigraph -> min
    W = BG.weighted("weight", 1.0)
    wr, wc, wv = W.to_coo()
    for i, j, w in zip(BG.labels(wr), BG.labels(wc), np.asarray(wv).tolist()):
        d = G[i][j]
        want = min(e.get("weight", 1) for e in d.values()) if G.is_multigraph() else d.get("weight", 1)
        assert w == want
    # adjacency order (private, for bfs_edges) is NetworkX's
    for v, i in BG.index.items():
        nbrs = BG._adj_indices[BG._adj_indptr[i]:BG._adj_indptr[i + 1]]
        assert BG.labels(nbrs) == list(G._adj[v])
    H = to_networkx(BG)
    assert list(H) == list(G) and edge_set(H) == edge_set(simple)


def test_weighted_missing_default_and_keyerror():
    G = nx.DiGraph([(0, 1, {"w": 2.5}), (1, 2, {})])
    BG = from_networkx(G, {"w": None})
    assert np.asarray(BG.weighted("w", 7.0).values).tolist() == [2.5, 7.0]
    with pytest.raises(KeyError):
        BG.weighted("weight")
    with pytest.raises(nx.NodeNotFound, match="Target 9 is not in G"):
        BG.node_id(9, "Target")
    with pytest.raises(NotImplementedError):
        from_networkx(nx.Graph([(0, 1, {"weight": "heavy"})]), {"weight": 1})


def test_empty_graph():
    BG = from_networkx(nx.Graph())
    assert len(BG) == 0 and BG.matrix.shape == (0, 0)
    assert nx.shortest_path_length(nx.Graph(), backend="bitgraph") is not None


def test_registration():
    info = importlib.import_module("_nx_bitgraph").get_info()
    assert info["backend_name"] == "bitgraph"
    assert set(info["functions"]) == set(bnx.FUNCTIONS) == set(bnx.INFO)
    for name, entry in info["functions"].items():
        assert entry["additional_docs"] == bnx.INFO[name]["note"]
        assert entry["additional_parameters"] == dict(bnx.INFO[name].get("extra_parameters") or {})
    assert "bitgraph" in nx.utils.backends.backends
    assert nx.config.backends.bitgraph.device in ("auto", "cpu", "cuda")
    iface = nx.utils.backends._load_backend("bitgraph")
    for name in bnx.FUNCTIONS:
        assert "bitgraph" in getattr(nx, name).backends, name
        assert callable(getattr(iface, name))


def test_conversion_is_cached_and_invalidated(monkeypatch):
    calls = []
    real = bnx.BackendInterface.convert_from_nx

    def counting(*args, **kw):
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(bnx.BackendInterface, "convert_from_nx", staticmethod(counting))
    G = nx.path_graph(6)
    assert nx.single_source_shortest_path_length(G, 0, backend="bitgraph")[5] == 5
    assert len(calls) == 1
    list(nx.bfs_layers(G, 0, backend="bitgraph"))
    assert nx.single_source_shortest_path_length(G, 0, backend="bitgraph")[5] == 5
    assert len(calls) == 1  # second and third calls reuse G.__networkx_cache__
    G.add_edge(0, 5)
    assert nx.single_source_shortest_path_length(G, 0, backend="bitgraph")[5] == 1
    assert len(calls) == 2  # add_edge cleared the cache
    # a weighted call needs the weight attribute: converted once, then cached too
    nx.single_source_dijkstra_path_length(G, 0, backend="bitgraph")
    nx.single_source_dijkstra_path_length(G, 0, backend="bitgraph")
    assert len(calls) == 3


def test_bitgraph_input_skips_conversion():
    BG = bnx.BackendInterface.convert_from_nx(nx.cycle_graph(5), edge_attrs={"weight": 1})
    assert nx.single_source_shortest_path_length(BG, 0) == {0: 0, 1: 1, 4: 1, 2: 2, 3: 2}
    assert nx.shortest_path_length(BG, 0, 2, weight="weight") == 2
    assert bnx.BackendInterface.convert_to_nx(BG).number_of_edges() == 5


# --- devices ----------------------------------------------------------------------

no_cuda = pytest.mark.skipif(bg_device.cuda_status() is None,
                             reason="CUDA is usable here: auto resolves to cuda (tests/gpu/test_nx_gpu.py)")


@no_cuda
def test_device_auto_is_cpu_without_a_gpu(monkeypatch):
    from bitgraph.nx.convert import _device

    for value in ("auto", None):
        monkeypatch.setattr(nx.config.backends.bitgraph, "device", value)
        assert _device() == "cpu"
    BG = bnx.BackendInterface.convert_from_nx(nx.path_graph(3))
    assert BG.device == BG.matrix.device == "cpu" and BG.cpu_matrix is BG.matrix
    monkeypatch.setattr(nx.config.backends.bitgraph, "device", "cpu")
    assert _device() == "cpu"


@no_cuda
def test_device_cuda_explicit_raises_with_the_reason(monkeypatch):
    from bitgraph.errors import DeviceError
    from bitgraph.nx.convert import _device

    monkeypatch.setattr(nx.config.backends.bitgraph, "device", "cuda")
    reason = bg_device.cuda_status()
    with pytest.raises(DeviceError) as e:
        _device()
    msg = str(e.value)
    assert msg.startswith("nx.config.backends.bitgraph.device: device 'cuda' was asked for")
    assert reason in msg
    # through the dispatcher too: the user asked for CUDA, nothing runs elsewhere silently
    with pytest.raises(DeviceError, match="device 'cuda' was asked for"):
        nx.single_source_shortest_path_length(nx.path_graph(3), 0, backend="bitgraph")


def test_device_unknown_value(monkeypatch):
    from bitgraph.errors import InvalidValue
    from bitgraph.nx.convert import _device

    monkeypatch.setattr(nx.config.backends.bitgraph, "device", "tpu")
    with pytest.raises(InvalidValue, match="nx.config.backends.bitgraph.device: unknown device 'tpu'"):
        _device()


class _OnGPU:
    """Stands in for a CUDA matrix on a machine without one: ``device`` is
    "cuda", the sizes, and ``to("cpu")`` (counted) are all it offers, so a
    function that hands ``G.matrix`` to a CPU-only algorithm fails here."""

    device = "cuda"

    def __init__(self, A):
        self._A, self.copies = A, 0
        self.nrows, self.ncols, self.nvals = A.nrows, A.ncols, A.nvals

    def to(self, device):
        assert device == "cpu"
        self.copies += 1
        return self._A.copy()


def _as_if_on_gpu(G):
    BG = from_networkx(G, {"weight": 1})
    BG.matrix = _OnGPU(BG.matrix)
    return BG


@pytest.mark.parametrize("directed", [False, True])
def test_host_arithmetic_uses_one_cached_cpu_copy(directed):
    """On a CUDA graph, the functions that compute on the host (the
    clustering family's degrees and GraphBLAS operations) read
    ``cpu_matrix``: made on first use, then the same object (one copy).
    The algorithms themselves get ``G.matrix`` on its device
    (tests/gpu/test_nx_gpu.py checks that on a GPU)."""
    from bitgraph.nx import measures as M

    G = nx.gnm_random_graph(30, 70, seed=5, directed=directed)
    G.add_node("iso")
    BG = _as_if_on_gpu(G)
    first = BG.cpu_matrix
    assert first.device == "cpu" and BG.cpu_matrix is first and BG.matrix.copies == 1
    assert BG.number_of_edges() == G.number_of_edges()
    # directed clustering: GraphBLAS operations on the host copy (undirected
    # clustering counts triangles with the algorithm, on the device)
    checks = [(M.clustering, nx.clustering), (M.average_clustering, nx.average_clustering)] \
        if directed else []
    for ours, theirs in checks:
        got, want = ours(BG), theirs(G)
        if isinstance(want, dict):
            assert set(got) == set(want)
            assert all(got[k] == pytest.approx(want[k], rel=1e-9) for k in want)
        else:
            assert got == pytest.approx(want, rel=1e-9)
    assert BG.cpu_matrix is first and BG.matrix.copies == 1  # one copy for every call above
    W = BG.weighted("weight", 1, device="cpu")
    assert W.device == "cpu" and BG.weighted("weight", 1, device="cpu") is W  # cached


def test_undirected_matrices_are_recorded_symmetric():
    """So bfs / msbfs / components never build A' of an undirected graph."""
    from bitgraph.algorithms._common import known

    BG = from_networkx(nx.Graph([(0, 1), (1, 2), (2, 2)]), {"weight": 1})
    for A in (BG.matrix, BG.matrix.T, BG.cpu_matrix, BG.weighted("weight", 1)):
        assert known(A, "symmetric") is True
    BD = from_networkx(nx.DiGraph([(0, 1)]))
    assert known(BD.matrix, "symmetric") is None


def test_core_does_not_import_networkx():
    import subprocess
    import sys

    code = ("import sys, bitgraph, bitgraph.algorithms, bitgraph.io, bitgraph.cli, "
            "bitgraph.device; assert 'networkx' not in sys.modules, 'networkx imported'")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
