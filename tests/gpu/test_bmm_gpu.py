"""CUDA masked B2SR bit matrix product (kernels/cuda/bmm_b2sr.cu, tensor
cores) equals the CPU kernel: random A, B' and masks (shapes not multiples
of t, empty rows, hub rows), the triangle-count case C<L> = L plus.pair L',
every t, int32 and int64 indices, the deferred (hub) path; and a real
graph's triangle count."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.formats import b2sr
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
from bitgraph.kernels import convert

pytestmark = pytest.mark.gpu

TILES = [4, 8, 16, 32]


def _cpu():
    return registry.lookup("mxm", fmt="b2sr", device="cpu", variant="bin_bin_sum")


def _gpu():
    return registry.lookup("mxm", fmt="b2sr", device="cuda", variant="bin_bin_sum")


def _csr(present, it):
    nrows, ncols = present.shape
    rows, cols = np.nonzero(present)  # row-major: sorted rows
    indptr = np.zeros(nrows + 1, it)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return CSR(indptr, cols.astype(it), None, nrows, ncols)


def _pattern(rng, nrows, ncols, density, hubs, empty_rows):
    p = rng.random((nrows, ncols)) < density
    if nrows and ncols:
        for _ in range(hubs):  # a hub: a nearly full row
            p[rng.integers(nrows)] |= rng.random(ncols) < 0.9
        if empty_rows:
            p[rng.random(nrows) < 0.3] = False
    return p


def _bits(csr, t, it):
    b = convert.b2sr(csr, t)
    return b2sr.B2SR(b.tile_rowptr.astype(it), b.tile_colind.astype(it), b.tiles, t,
                     b.nrows, b.ncols)


def _to_gpu(x):
    import cupy

    if isinstance(x, CSR):
        return CSR(cupy.asarray(x.indptr), cupy.asarray(x.indices), None, x.nrows, x.ncols)
    return x._replace(tile_rowptr=cupy.asarray(x.tile_rowptr),
                      tile_colind=cupy.asarray(x.tile_colind), tiles=cupy.asarray(x.tiles))


def _check(A, BT, M, stats=None):
    want_c, want_t = _cpu()(A, BT, M)
    got_c, got_t = _gpu()(_to_gpu(A), _to_gpu(BT), _to_gpu(M), stats=stats)
    assert got_c.dtype == np.uint64 and got_c.shape == want_c.shape
    assert np.array_equal(got_c.get(), want_c)
    assert got_t == want_t and isinstance(got_t, int)
    want = _cpu()(A, BT, None)
    got = _gpu()(_to_gpu(A), _to_gpu(BT), None)
    assert got[0] is None and got[1] == want[1]


class _Split:
    """The binary-search path (no streaming against the hashed tile row)
    with tiny deferral thresholds: every task past 2 tiles goes to the
    chunked (atomic) hub kernel, chunks of 3 tiles."""

    def __init__(self, on):
        self.on = on
        self.use = bg.settings.use(cuda={"bmm_heavy": 2, "bmm_chunk": 3, "bmm_stream": 0}
                                   if on else {})

    def __enter__(self):
        self.use.__enter__()

    def __exit__(self, *exc):
        return self.use.__exit__(*exc)


@settings(max_examples=380)
@given(t=st.sampled_from(TILES), seed=st.integers(0, 2**32 - 1),
       n=st.integers(0, 150), k=st.integers(1, 150), m=st.integers(0, 150),
       density=st.sampled_from([0.0, 0.02, 0.1, 0.4, 0.9]),
       mask_density=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
       hubs=st.integers(0, 2), empty_rows=st.booleans(), index64=st.booleans(),
       split=st.booleans())
def test_masked_product_equals_cpu(t, seed, n, k, m, density, mask_density, hubs, empty_rows,
                                   index64, split):
    rng = np.random.default_rng(seed)
    it = np.int64 if index64 else np.int32
    A = _csr(_pattern(rng, n, k, density, hubs, empty_rows), it)
    BT = _csr(_pattern(rng, m, k, density, hubs, empty_rows), it)
    M = _csr(_pattern(rng, n, m, mask_density, 0, empty_rows), it)
    with _Split(split):
        _check(_bits(A, t, it), _bits(BT, t, it), M)


@settings(max_examples=230)
@given(t=st.sampled_from(TILES), seed=st.integers(0, 2**32 - 1), n=st.integers(0, 150),
       density=st.sampled_from([0.03, 0.15, 0.5, 1.0]), hubs=st.integers(0, 3),
       index64=st.booleans(), split=st.booleans())
def test_triangle_case_equals_cpu(t, seed, n, density, hubs, index64, split):
    # C<L> = L plus.pair L' with BT = L: one B2SR for both operands
    rng = np.random.default_rng(seed)
    it = np.int64 if index64 else np.int32
    p = _pattern(rng, n, n, density, hubs, False)
    p = np.tril(p | p.T, -1)
    L = _csr(p, it)
    Lb = _bits(L, t, it)
    with _Split(split):
        _check(Lb, Lb, L)


@pytest.mark.parametrize("t", TILES)
def test_hub_tile_rows_deferred(t):
    # tile rows past HASH_MAX tiles (not hashed) whose shorter lists exceed
    # settings.cuda.bmm_heavy, at the defaults: the chunked kernel with atomics on
    # real hub-sized rows, beside streamed and binary-searched tasks
    from bitgraph.kernels.cuda import bmm_b2sr

    rng = np.random.default_rng(t)
    k = (max(bmm_b2sr.HASH_MAX, bg.settings.current().cuda.bmm_heavy) + 300) * t
    pa = rng.random((2 * t + 3, k)) < 0.02
    pa[:3] |= rng.random((3, k)) < 0.7
    pb = rng.random((t + 5, k)) < 0.02
    pb[1] |= rng.random(k) < 0.8
    M = _csr(rng.random((pa.shape[0], pb.shape[0])) < 0.6, np.int32)
    rec = bg.Stats()
    _check(_bits(_csr(pa, np.int32), t, np.int32), _bits(_csr(pb, np.int32), t, np.int32), M,
           stats=rec)
    stats = rec.metrics
    assert stats["deferred"] > 0 and stats["chunks"] > stats["deferred"]


def test_kron_triangle_count():
    import cupy

    from bitgraph.algorithms import triangle_count
    from bitgraph.algorithms._common import undirected_csr
    from bitgraph.io.generators import from_spec

    G = from_spec("kron:12")
    want = triangle_count(G)
    assert want > 0
    U = undirected_csr(G, self_loops=False)
    rows = np.repeat(np.arange(U.nrows), np.diff(U.indptr))
    keep = U.indices < rows
    r, c = rows[keep], np.asarray(U.indices)[keep].astype(np.int64)
    indptr = np.zeros(U.nrows + 1, np.int32)
    np.cumsum(np.bincount(r, minlength=U.nrows), out=indptr[1:])
    L = CSR(indptr, c.astype(np.int32), None, U.nrows, U.ncols)
    for t in TILES:
        Lb = _to_gpu(_bits(L, t, np.int32))
        counts, total = _gpu()(Lb, Lb, _to_gpu(L))
        assert total == want, (t, total, want)
        assert int(cupy.asnumpy(counts).sum()) == want
