"""Blest's tensor-core step as mxv / vxm (``method="tensor_core"``,
kernels/cuda/bmv_bvss.cu) equals the CPU backend: the launcher alone on a
hand-made BVSS and on converted random ones (tensor cores and the SIMT twin,
``mma=False``), against the numba launcher; the public calls on CUDA objects
(every mask kind, accum, replace, out, A / A.T / vxm, the Boolean-like
semirings) against the same calls on the CPU; int64-index graphs; a graph
of more than 2^16 rows, including a whole BFS run as tensor-core steps.

``BG_TEST_DEVICE=cpu`` runs the file on the CPU backend (the numba launcher
in the CUDA one's place, no gpu marker): a check of the comparisons
themselves where no GPU is."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph import _array as ar
from bitgraph.formats.csr import CSR
from bitgraph.kernels import convert, registry
from test_tensor_core_mxv import BOOLEAN, MORE, hand_made_bvss, run_hand_made

DEVICE = os.environ.get("BG_TEST_DEVICE", "cuda")
pytestmark = pytest.mark.gpu if DEVICE == "cuda" else []

MASKS = [None, "S", "~S", "V", "~V"]


def _steps(mma=True):
    """(CPU launcher, DEVICE launcher with ``mma`` bound)."""
    cpu = registry.lookup("mxv", fmt="bvss", device="cpu", variant="tensor_core")
    dev = registry.lookup("mxv", fmt="bvss", device=DEVICE, variant="tensor_core")
    if DEVICE == "cuda":
        return cpu, lambda *a: dev(*a, mma=mma)
    return cpu, dev


def _xp():
    if DEVICE == "cuda":
        import cupy

        return cupy
    return np


def _host(a):
    return a.get() if hasattr(a, "get") else np.asarray(a)


@pytest.mark.parametrize("mma", [True, False])
def test_kernel_on_hand_made_bvss(mma):
    """130 slices in one slice set (two VSSs, the second padded), an empty
    column block, x_true and masks: the dense product's rows."""
    b, dense = hand_made_bvss()
    run_hand_made(_steps(mma)[1], b, dense, _xp())


def _pattern(rng, nrows, ncols, density):
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols and rng.random() < 0.5:  # hub columns: slice sets of many VSSs
        present[:, rng.integers(0, ncols, 1 + ncols // 50)] = True
    if nrows and rng.random() < 0.3:
        present[rng.random(nrows) < 0.3] = False
    r, c = np.nonzero(present)
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(np.bincount(r, minlength=nrows), out=indptr[1:])
    return CSR(indptr.astype(np.int32), c.astype(np.int32), None, nrows, ncols)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), nrows=st.sampled_from([1, 7, 8, 33, 129, 300, 1000]),
       ncols=st.sampled_from([1, 8, 9, 64, 257, 1000]), mma=st.booleans())
def test_kernel_equals_cpu(seed, nrows, ncols, mma):
    """The CUDA launcher and the numba one on the converter's BVSS of a
    random pattern: same (t_true, t_present) for x, x_true and masks."""
    xp = _xp()
    rng = np.random.default_rng(seed)
    A = _pattern(rng, nrows, ncols, rng.choice([0.005, 0.05, 0.3]))
    b = convert.bvss(A)
    bd = b._replace(**{f: xp.asarray(getattr(b, f))
                       for f in ("real_ptrs", "virtual_to_real", "row_ids", "masks")})
    cpu, dev = _steps(mma)
    for _ in range(4):
        x = rng.random(ncols) < rng.choice([0.01, 0.2, 0.8])
        x_true = x & (rng.random(ncols) < 0.5) if rng.random() < 0.5 else None
        allowed = rng.random(nrows) < 0.5 if rng.random() < 0.5 else None
        args = [ar.pack_bits(x), None if x_true is None else ar.pack_bits(x_true),
                None if allowed is None else ar.pack_bits(allowed)]
        want = cpu(b, *args)
        got = dev(bd, *[None if a is None else xp.asarray(a) for a in args])
        for g, w in zip(got, want):
            assert np.array_equal(_host(g), w)


def test_kernel_bvss_built_on_the_gpu():
    """The BVSS the GPU converter builds (Matrix.bvss of a CUDA matrix) gives
    the CPU launcher's result on the CPU BVSS."""
    rng = np.random.default_rng(3)
    c = _pattern(rng, 2000, 1500, 0.01)
    A = bg.Matrix._from_csr(c)
    cpu, dev = _steps()
    x = ar.pack_bits(rng.random(1500) < 0.1)
    want = cpu(A.bvss(8, "none"), x, None, None)
    got = dev(A.to(DEVICE).bvss(8, "none"), _xp().asarray(x), None, None)
    assert np.array_equal(_host(got[1]), want[1])


def _mask(v, kind):
    if kind is None:
        return None
    return {"S": lambda: v.S, "~S": lambda: ~v.S, "V": lambda: v, "~V": lambda: ~v}[kind]()


def _calls(sr, kind, mask, accum, replace):
    """call(A, u, m, out, method) -> Vector: one product, mask ``m`` of kind ``mask``."""
    def run(A, u, m, out, method):
        kw = dict(mask=_mask(m, mask), accum=accum, replace=replace, out=out, method=method)
        if kind == "A":
            return A.mxv(u, sr, **kw)
        if kind == "A.T":
            return A.T.mxv(u, sr, **kw)
        return bg.vxm(u, A, sr, **kw)
    return run


def _check(A_cpu, u_cpu, m_cpu, out_cpu, run):
    """run(...) with method="tensor_core" on DEVICE copies equals the CPU
    pull on the CPU objects (dtype included)."""
    want = run(A_cpu, u_cpu, m_cpu, None if out_cpu is None else out_cpu.copy(), "pull")
    on = lambda x: None if x is None else x.to(DEVICE)  # noqa: E731
    got = run(on(A_cpu), on(u_cpu), on(m_cpu), None if out_cpu is None else on(out_cpu.copy()),
              "tensor_core")
    assert got.device == DEVICE
    assert got.to("cpu").isequal(want, check_dtype=True)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([1, 5, 8, 40, 129, 300, 700]),
       semiring=st.sampled_from(BOOLEAN * 3 + MORE), kind=st.sampled_from(["A", "A.T", "vxm"]),
       mask=st.sampled_from(MASKS), accum=st.sampled_from([None, "lor"]), replace=st.booleans(),
       udtype=st.sampled_from(["bool", "int8", "float64"]), index64=st.booleans())
def test_matvec_equals_cpu(seed, n, semiring, kind, mask, accum, replace, udtype, index64):
    """mxv / vxm with method="tensor_core" on CUDA objects equals the CPU
    call: square and rectangular structure-only graphs (self-loops, empty
    rows, hub columns), int32 or int64 indices, every mask kind."""
    if kind == "vxm" and semiring == "any_first":  # u any.first A reads u's values
        semiring = "any_second"
    rng = np.random.default_rng(seed)
    ncols = n if rng.random() < 0.6 else int(rng.integers(1, 2 * n + 2))
    c = _pattern(rng, n, ncols, rng.choice([0.01, 0.1, 0.5]))
    if rng.random() < 0.3 and n == ncols:  # self-loops
        keys = np.union1d(ar.rows_of(c.indptr) * ncols + c.indices, np.arange(n) * (ncols + 1))
        A = bg.Matrix.from_coo(keys // ncols, keys % ncols, nrows=n, ncols=ncols)
        c = A._csr()
    if index64:
        c = c._replace(indptr=np.asarray(c.indptr, np.int64), indices=np.asarray(c.indices, np.int64))
    A = bg.Matrix._from_csr(c)
    n_in, n_out = (ncols, n) if kind == "A" else (n, ncols)  # A.mxv: u over A's columns
    idx = np.flatnonzero(rng.random(n_in) < rng.choice([0.02, 0.3, 1.0]))
    u = bg.Vector.from_coo(idx, (rng.random(idx.size) < 0.7).astype(udtype), n_in)
    kidx = np.flatnonzero(rng.random(n_out) < 0.5)
    m = bg.Vector.from_coo(kidx, rng.integers(0, 2, kidx.size).astype(np.int8), n_out)
    oidx = np.flatnonzero(rng.random(n_out) < 0.4)
    out = bg.Vector.from_coo(oidx, rng.random(oidx.size) < 0.5, n_out) if accum or rng.random() < 0.3 \
        else None
    if replace and mask is None:
        replace = False
    _check(A, u, m, out, _calls(semiring, kind, mask, accum, replace))


def _big_graph(n, seed, index64=False):
    """A random directed graph on n vertices (~8 out-edges each, a few hubs,
    self-loops), CPU, structure-only."""
    rng = np.random.default_rng(seed)
    m = 8 * n
    src = rng.integers(0, n, m)
    dst = rng.integers(0, n, m)
    hubs = rng.integers(0, n, 4)
    src = np.concatenate([src, np.repeat(hubs, 2000), np.arange(0, n, 97)])
    dst = np.concatenate([dst, rng.integers(0, n, 4 * 2000), np.arange(0, n, 97)])
    keys = np.unique(src * n + dst)
    A = bg.Matrix.from_coo(keys // n, keys % n, nrows=n, ncols=n)
    if index64:
        c = A._csr()
        A = bg.Matrix._from_csr(c._replace(indptr=np.asarray(c.indptr, np.int64),
                                           indices=np.asarray(c.indices, np.int64)))
    return A


@pytest.mark.parametrize("n,index64", [(70_001, False), (2**17 + 3, True)])
def test_large_graph_steps(n, index64):
    """More than 2^16 rows: a BFS-like step q<!v> = A' lor.land f and the
    vxm form at a sparse and a dense frontier, equal to the CPU."""
    A = _big_graph(n, 11, index64)
    rng = np.random.default_rng(5)
    for density in (1e-4, 0.05, 0.6):
        f = bg.Vector.from_indices(np.flatnonzero(rng.random(n) < density), n)
        v = bg.Vector.from_indices(np.flatnonzero(rng.random(n) < 0.3), n)
        for sr in ("lor_land", "any_pair"):
            for kind in ("A.T", "vxm"):
                _check(A, f, v, None, _calls(sr, kind, "~S", None, False))


def test_bfs_as_tensor_core_steps():
    """A whole BFS from vertex 0 as repeated tensor-core steps on the GPU
    (frontier<!visited> = A' any.pair frontier) gives the CPU BFS levels,
    on a graph of more than 2^16 vertices."""
    n = 70_001
    A = _big_graph(n, 7)
    want = bg.algorithms.bfs(A, 0).to_dense(-1).astype(np.int64)
    Ad = A.to(DEVICE)
    levels = np.full(n, -1, np.int64)
    frontier = bg.Vector.from_indices([0], n).to(DEVICE)
    visited = frontier.copy()
    level = 0
    while frontier.nvals:
        levels[np.asarray(frontier.to("cpu").indices())] = level
        frontier = Ad.T.mxv(frontier, bg.ANY_PAIR, mask=~visited.S, method="tensor_core")
        visited = bg.ewise_add(visited, frontier, "lor")
        level += 1
    assert want.max() >= 3 and np.array_equal(levels, want)
