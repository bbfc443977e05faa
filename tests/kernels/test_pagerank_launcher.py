"""The host side of the GPU PageRank launcher (``kernels/cuda/pagerank.py``)
on an emulated GPU: a stand-in ``cupy`` (numpy arrays with ``.get()``) and
a ``pagerank_pull`` that computes what ``pagerank.cu``'s kernel computes
(one iteration from buffers ``s & 1`` into ``(s + 1) & 1``, the error into
its slot, the dangling rank into the other ``lost`` slot, the stop flag;
a launch after the stop flag returns at once), with every launch's
arguments checked against the kernel's parameters in the .cu (count,
pointee dtypes, scalar types). It checks the batches of launches between
reads of the errors: the iteration count, the error and the ranks are
those of the CPU's fused loop for any batch size and max_iter. What it
cannot tell: whether the real kernel computes this (the GPU tests,
``tests/algorithms/test_pagerank.py`` on cuda).
"""

from __future__ import annotations

import re
import sys
import types

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.algorithms._common import is_symmetric
from bitgraph.kernels.cuda import source_text

_CU = source_text("pagerank.cu")
_PARAMS = [p.strip() for p in re.search(r"__global__ void pagerank_pull\((.*?)\)\s*\{", _CU,
                                         re.S).group(1).split(",")]
_C = {"double": np.float64, "bool": np.bool_, "long long": np.int64, "int": np.int32,
      "unsigned int": np.uint32}


class FakeArray(np.ndarray):
    """A numpy array with CuPy's ``.get()``."""

    def get(self):
        return np.array(self)


def _fa(a):
    return np.asarray(a).view(FakeArray)


def _cupy():
    cp = types.ModuleType("cupy")
    cp.ndarray = type("NotAnArray", (), {})  # the CPU objects stay on the CPU
    cp.ascontiguousarray = lambda a, dtype=None: _fa(np.ascontiguousarray(a, dtype))
    cp.zeros = lambda *a, **kw: _fa(np.zeros(*a, **kw))

    def empty(shape, dtype=np.float64):
        # NaN in float buffers: a value read before the kernel writes it shows
        dtype = np.dtype(dtype)
        return _fa(np.full(shape, np.nan, dtype) if dtype.kind == "f" else np.zeros(shape, dtype))

    cp.empty = empty
    cp.sum = lambda a: _fa(np.sum(a))

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    memory = types.SimpleNamespace(OutOfMemoryError=type("OutOfMemoryError", (Exception,), {}))
    cuda = types.SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: 1.0, memory=memory)
    cp.cuda = cuda
    return cp


class _Kernel:
    def __init__(self, index, iso, log):
        self.index, self.iso, self.log = index, iso, log

    def __call__(self, grid, block, args):
        assert len(args) == len(_PARAMS), (len(args), _PARAMS)
        for a, p in zip(args, _PARAMS):
            ctype = re.sub(r"\b(const|__restrict__)\b|\*|\w+$", "", p).strip()
            want = self.index if ctype == "I" else np.dtype(_C[ctype])
            if "*" in p:
                assert isinstance(a, np.ndarray) and a.dtype == want and a.flags.c_contiguous, p
            else:
                assert type(a) is np.dtype(want).type, (p, type(a))
        (indptr, indices, values, y, x, inv_s, dw, dw_c, dw_uniform, teleport, tele_c,
         tele_uniform, alpha, n, group, x_new, y_new, lost, parity, partials, arrived, errs,
         slot, threshold, stop) = args
        assert 2 * grid[0] <= partials.size and block[0] % 32 == 0
        assert group in (1, 2, 4, 8, 16, 32)
        self.log.append(int(slot))
        if stop[0]:
            return
        assert arrived[0] == 0
        rows = np.repeat(np.arange(n), np.diff(indptr))
        w = np.ones(indices.size) if self.iso else values
        acc = np.bincount(rows, weights=w * y[indices], minlength=n)
        xn = alpha * (acc + lost[parity] * (dw_c if dw_uniform else dw)) + (
            tele_c if tele_uniform else teleport)
        err = np.abs(xn - x).sum()
        x_new[:] = xn
        y_new[:] = xn * inv_s
        errs[slot] = err
        lost[parity ^ 1] = xn[inv_s == 0].sum()
        stop[0] = err < threshold


@pytest.fixture
def launcher(monkeypatch):
    """The launcher module on the emulated GPU, and the launches' slots."""
    monkeypatch.setitem(sys.modules, "cupy", _cupy())
    from bitgraph.kernels.cuda import pagerank as kp

    log = []
    monkeypatch.setattr(kp, "_fn", lambda index, iso: _Kernel(index, iso, log))
    monkeypatch.setattr(kp, "shape", lambda n, cfg=None: ((3,), (64,)))
    return kp, log


def _inputs(A, personalization=None):
    from bitgraph.algorithms import link_analysis as la

    M, inv_s, dangles = la._operator(A)
    n = A.nrows
    x = np.full(n, 1.0 / n)
    return la._pull_csr(M), M, x, inv_s, dangles


@pytest.mark.parametrize("every", [1, 2, 3, 7, 64])
@pytest.mark.parametrize("weighted", [False, True])
def test_batches_keep_the_cpu_iterations(launcher, every, weighted):
    from bitgraph.algorithms import link_analysis as la

    kp, log = launcher
    rng = np.random.default_rng(every)
    n = 40
    r, c = rng.integers(0, n, 90), rng.integers(0, n, 90)
    A = (bg.Matrix.from_coo(r, c, rng.random(90) + 0.1, nrows=n, ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n))
    AT, M, x, inv_s, dangles = _inputs(A)
    p = rng.random(n)
    p /= p.sum()
    cfg = bg.settings.PageRank(cuda_check_every=every)
    for tol, max_iter in ((1e-3, 100), (1e-8, 100), (1e-12, 5), (1e-12, 0), (0.0, 9)):
        for dw, tele in ((1.0 / n, 0.15 / n), (p, 0.15 * p)):
            want = la._fused(M, x.copy(), dw, 0.85, tele, inv_s, dangles, tol, max_iter)
            log.clear()
            st = bg.Stats()
            got = kp.pagerank_run(AT, x, inv_s, dw, tele, 0.85, n * tol, max_iter, cfg=cfg,
                                  stats=st)
            assert got[1:3] == want[1:3], (tol, max_iter)
            assert got[3] == pytest.approx(want[3], rel=1e-9) or got[3] == want[3] == np.inf
            np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
            # launches: whole batches up to the one that converged, never past max_iter
            launches = min(max_iter, -(-want[1] // every) * every)
            assert len(log) == st.metrics["launches"] == launches
            assert log == [s % every for s in range(launches)]
            assert type(got[1]) is int and type(got[2]) is bool and type(got[3]) is float
            assert np.asarray(x).tolist() == [1.0 / n] * n  # the start vector is not written


def test_int64_indices_and_lanes(launcher):
    from bitgraph.algorithms import link_analysis as la
    from bitgraph.formats.csr import CSR

    kp, _ = launcher
    A = bg.io.generators.from_spec("kron:7")
    c = A._csr()
    A64 = bg.Matrix._from_csr(CSR(c.indptr.astype(np.int64), c.indices.astype(np.int64), None,
                                  c.nrows, c.ncols))
    assert is_symmetric(A64)  # its own int64 CSR is the pull's
    AT, M, x, inv_s, dangles = _inputs(A64)
    assert AT.indices.dtype == np.int64
    want = la._fused(M, x.copy(), 1.0 / A.nrows, 0.85, 0.15 / A.nrows, inv_s, dangles, 1e-9, 100)
    for lanes in (0, 1, 32):
        got = kp.pagerank_run(AT, x, inv_s, 1.0 / A.nrows, 0.15 / A.nrows, 0.85,
                              A.nrows * 1e-9, 100, cfg=bg.settings.PageRank(cuda_lanes=lanes))
        assert got[1:3] == want[1:3]
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
    with pytest.raises(ValueError, match="cuda_lanes = 3 must be 0 or a power of 2"):
        kp.pagerank_run(AT, x, inv_s, 0.1, 0.1, 0.85, 1e-3, 10,
                        cfg=bg.settings.PageRank(cuda_lanes=3))
