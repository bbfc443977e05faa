"""The device seam on a GPU (run on the device machine: pytest -m gpu)."""

from __future__ import annotations

import numpy as np
import pytest

import bitgraph as bg
from bitgraph import device

pytestmark = pytest.mark.gpu


def test_round_trip():
    import cupy

    A = bg.io.generators.from_spec("kron:10")
    W = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], [1.5, -2.0, 3.0], nrows=3, ncols=3)
    v = bg.Vector.from_coo([0, 4], [7, 9], size=6)
    for M in (A, W):
        G = M.to("cuda")
        assert G.device == "cuda" and isinstance(G.indptr, cupy.ndarray)
        assert G.to("cuda") is G
        back = G.to("cpu")
        assert back.device == "cpu" and back.isequal(M, check_dtype=True)
        assert M.T.to("cuda").T.device == "cuda"
    g = v.to("cuda")
    assert g.device == "cuda" and g.to("cpu").isequal(v, check_dtype=True)
    assert bg.set_device("auto") == "cuda"
    bg.set_device("cpu")


def test_cpu_only_algorithms_say_so():
    from bitgraph.algorithms._common import check_graph

    A = bg.io.generators.from_spec("grid:8x8").to("cuda")
    with pytest.raises(bg.DeviceError, match="use A.to\\('cpu'\\)"):
        check_graph(A, "example")  # what every CPU-only algorithm calls first
    with pytest.raises(bg.InvalidValue, match="unknown method"):
        bg.algorithms.bfs(A, 0, method="dfs")


def test_out_of_memory_names_bytes():
    import cupy

    with pytest.raises(bg.DeviceError, match=r"CUDA out of memory: needed [\d,]+ bytes, [\d,]+ bytes free"):
        with device.oom_guard("test"):
            cupy.empty(1 << 50, np.uint8)  # 1 PiB
