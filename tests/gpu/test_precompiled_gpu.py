"""The precompiled CUDA modules on the GPU: every shipped fatbin loads and
holds every kernel its launchers ask for, and the algorithms give the same
answers with our NVRTC path made unusable (modules from the fatbins) as
with NVRTC alone (``settings.cuda.precompiled=False``), each in a new process
with an empty NVRTC disk cache.

The fatbins: the wheel's (``bitgraph/kernels/cuda/precompiled/``, or
``$BITGRAPH_CUDA_PRECOMPILED``), else built here by nvcc into a temporary
folder (minutes), else the tests skip.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from bitgraph.kernels import cuda
from bitgraph.kernels.cuda import fatbin

pytestmark = pytest.mark.gpu

@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The folder of fatbins built from this tree's sources."""
    specs = fatbin.read_specs()
    have = cuda.shipped_dir()
    if all(_current(have, s) for s in specs):
        return have
    if shutil.which("nvcc") is None:
        pytest.skip(f"no current fatbins in {have} and no nvcc to build them")
    out = tmp_path_factory.mktemp("precompiled")
    fatbin.build(out, log=lambda s: None)
    return out


def _current(folder, source):
    try:
        meta = json.loads((folder / f"{source[:-3]}.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("key") == fatbin.key(cuda.source_text(source))


def test_every_fatbin_loads_with_every_kernel(shipped, monkeypatch):
    import cupy

    monkeypatch.setenv("BITGRAPH_CUDA_PRECOMPILED", str(shipped))
    cc = cupy.cuda.Device().compute_capability
    for source, names in fatbin.read_specs().items():
        meta = cuda.shipped_meta(source)
        assert meta is not None, source
        if not cuda.covers(meta, cc):
            pytest.skip(f"the fatbins hold no SASS for compute capability {cc}")
        got = cuda.shipped_module(source)
        assert got is not None, f"{source}: the driver did not load the fatbin"
        mod, lowered = got
        for name in names:
            assert mod.get_function(lowered[name]) is not None, (source, name)


_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import bitgraph as bg
    mode, out = sys.argv[1], sys.argv[2]
    if mode == "shipped":
        # our NVRTC path unusable: every module of ours must come from a
        # fatbin (CuPy's own kernels still compile with NVRTC)
        from bitgraph.kernels import cuda

        def refuse(*args, **kwargs):
            raise RuntimeError("NVRTC disabled by the test")
        cuda._nvrtc_module = refuse
    dev = "cpu" if mode == "cpu" else "cuda"  # cpu: a check of this script alone
    cfg = {"cuda": {"precompiled": mode == "shipped"}}
    res = {}
    with bg.settings.use(**cfg):
        A = bg.io.generators.from_spec("kron:10").to(dev)
        W = bg.io.generators.from_spec("grid:30x30")
        r, c, _ = W.to_coo()
        w = (np.arange(r.size) % 7 + 1).astype(np.float64)
        W = bg.Matrix.from_coo(r, c, w, nrows=W.nrows, ncols=W.ncols).to(dev)
        for method in ("auto", "push", "direction", "blest", "async")[:5 if dev == "cuda" else 4]:
            lv = bg.algorithms.bfs(A, 3, method=method)
            res["bfs_" + method] = lv.to("cpu").to_dense(-1)
        res["msbfs"] = bg.algorithms.msbfs(A, [0, 5, 9])
        res["msbfs"] = getattr(res["msbfs"], "get", lambda: res["msbfs"])()
        res["sssp"] = bg.algorithms.sssp(W, 0).to("cpu").to_dense(-1)
        res["pagerank"] = bg.algorithms.pagerank(A).ranks.to("cpu").to_dense(0)
        res["cc"] = bg.algorithms.connected_components(A).to("cpu").to_dense(-1)
        res["tc"] = np.array([bg.algorithms.triangle_count(A)])
    np.savez(out, **res)
    print("ok", mode)
""")


def _run(mode, tmp_path, shipped):
    env = dict(os.environ, BITGRAPH_CUDA_PRECOMPILED=str(shipped),
               BITGRAPH_CUDA_CACHE=str(tmp_path / f"nvrtc-{mode}"))
    out = tmp_path / f"{mode}.npz"
    got = subprocess.run([sys.executable, "-c", _SCRIPT, mode, str(out)], env=env,
                         capture_output=True, text=True, timeout=900)
    assert got.returncode == 0, got.stdout + got.stderr
    return dict(np.load(out))


def test_same_answers_as_nvrtc(shipped, tmp_path):
    ours = _run("shipped", tmp_path, shipped)
    ref = _run("nvrtc", tmp_path, shipped)
    assert sorted(ours) == sorted(ref)
    for k in ref:
        if k == "pagerank":
            np.testing.assert_allclose(ours[k], ref[k], rtol=1e-12, atol=1e-15, err_msg=k)
        elif k == "cc":  # labels may differ: the same partition
            _, a = np.unique(ours[k], return_inverse=True)
            _, b = np.unique(ref[k], return_inverse=True)
            pairs = set(zip(a.tolist(), b.tolist()))
            assert len(pairs) == len(set(a.tolist())) == len(set(b.tolist())), k
        else:
            np.testing.assert_array_equal(ours[k], ref[k], err_msg=k)
    assert ours["bfs_auto"].max() > 0 and (ours["sssp"] > 0).any()
