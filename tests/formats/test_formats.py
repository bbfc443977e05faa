"""B2SR, BVSS and the sampling profile: exact round trips, the documented
layout, statistics, on hypothesis graphs and on every graph in tests/data."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import bitgraph as bg
import strategies as S
from testdata import data_file, data_files
from bitgraph.formats import b2sr, bvss, profile
from bitgraph.formats.csr import CSR, from_coo, transpose
from bitgraph.kernels import convert

REAL = data_files(exclude="mangled*")  # every well-formed graph of tests/data


@st.composite
def pattern_csr(draw, square=False, max_n=90):
    """A structure-only CSR: any shape (n not a multiple of t or sigma),
    empty rows/columns, optional dense rows and columns, self-loops."""
    nr = draw(st.integers(0, max_n))
    nc = nr if square else draw(st.integers(0, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dens = draw(st.sampled_from([0.0, 0.01, 0.05, 0.2, 0.6, 1.0]))
    present = rng.random((nr, nc)) < dens
    if nr and nc and draw(st.booleans()):
        present[rng.integers(nr), :] = True  # a dense row
        present[:, rng.integers(nc)] = True  # and column
    if nr and draw(st.booleans()):
        present[rng.random(nr) < 0.4, :] = False  # empty rows
    r, c = np.nonzero(present)
    return from_coo(r, c, None, nr, nc)


def _same(a: CSR, b: CSR):
    assert (a.nrows, a.ncols) == (b.nrows, b.ncols)
    assert np.array_equal(np.asarray(a.indptr, np.int64), np.asarray(b.indptr, np.int64))
    assert np.array_equal(np.asarray(a.indices, np.int64), np.asarray(b.indices, np.int64))


def _dense(csr: CSR):
    return sp.csr_array((np.ones(csr.nnz, bool), csr.indices, csr.indptr), shape=(csr.nrows, csr.ncols)).toarray()


def _check_b2sr(A: CSR, t: int):
    B = convert.b2sr(A, t)
    _same(convert.b2sr_to_csr(B), A)
    _same(convert.b2sr_to_csr(convert.b2sr_transpose(B)), transpose(A))
    # the documented bit order: bit c of tiles[p, r] is (t*I + r, t*J + c)
    D = np.zeros((-(-A.nrows // t) * t, -(-A.ncols // t) * t), bool)
    for I in range(B.tile_rowptr.size - 1):
        for p in range(B.tile_rowptr[I], B.tile_rowptr[I + 1]):
            J = B.tile_colind[p]
            bits = np.unpackbits(B.tiles[p].astype("<u4").view(np.uint8).reshape(t, 4), axis=1,
                                 bitorder="little")[:, :t]
            D[t * I:t * I + t, t * J:t * J + t] = bits
            assert bits.any(), "an empty tile is stored"
        assert np.all(np.diff(B.tile_colind[B.tile_rowptr[I]:B.tile_rowptr[I + 1]]) > 0)
    assert np.array_equal(D[:A.nrows, :A.ncols], _dense(A))
    assert not D[A.nrows:].any() and not D[:, A.ncols:].any()
    assert B.tiles.dtype == b2sr_word(t) and B.tiles.shape == (B.ntiles, t)
    st_ = b2sr.stats(B)
    blocks = np.unique((np.repeat(np.arange(A.nrows), np.diff(A.indptr)) // t) * (A.ncols // t + 1)
                       + np.asarray(A.indices) // t)
    assert st_["ntiles"] == blocks.size and st_["nnz"] == A.nnz
    assert st_["nbytes"] == B.tile_rowptr.nbytes + B.tile_colind.nbytes + B.tiles.nbytes
    hist = b2sr.stats(B, histogram=True)["nnz_per_tile_hist"]
    per_tile = [D[t * I:t * I + t, t * J:t * J + t].sum()
                for I in range(B.tile_rowptr.size - 1) for J in B.tile_colind[B.tile_rowptr[I]:B.tile_rowptr[I + 1]]]
    assert hist.tolist() == np.bincount(np.array(per_tile, np.int64), minlength=t * t + 1).tolist()


def b2sr_word(t):
    return {4: np.uint8, 8: np.uint8, 16: np.uint16, 32: np.uint32}[t]


def _check_bvss(A: CSR, sigma=8):
    b = convert.bvss(A, sigma)
    _same(convert.bvss_to_csr(b), A)
    spw, tau = 32 // sigma, 32 * (32 // sigma)
    nblocks = -(-A.ncols // sigma)
    assert b.real_ptrs.shape == (nblocks + 1,) and b.real_ptrs.dtype == np.int32
    assert b.row_ids.shape == (b.n_vss, 32, spw) and b.masks.shape == (32 * b.n_vss,)
    Dt = _dense(A).T
    for i in range(nblocks):
        # the slices of block i: the rows with an entry in columns sigma*i.., sorted
        cols = Dt[sigma * i:sigma * i + sigma]
        rows = np.flatnonzero(cols.any(axis=0))
        nv = b.real_ptrs[i + 1] - b.real_ptrs[i]
        assert nv == -(-rows.size // tau)
        for j, u in enumerate(rows):
            v, k = b.real_ptrs[i] + j // tau, j % tau
            assert b.virtual_to_real[v] == i
            assert b.row_ids[v, k % 32, k // 32] == u
            m = (int(b.masks[32 * v + k % 32]) >> (sigma * (k // 32))) & ((1 << sigma) - 1)
            want = sum(1 << c for c in range(cols.shape[0]) if cols[c, u])
            assert m == want
        # padding of the last VSS: zero masks and the dummy row id
        for k in range(rows.size, nv * tau):
            v = b.real_ptrs[i] + k // tau
            kk = k % tau
            assert b.row_ids[v, kk % 32, kk // 32] == 0xFFFFFFFF
            assert (int(b.masks[32 * v + kk % 32]) >> (sigma * (kk // 32))) & ((1 << sigma) - 1) == 0
    s = bvss.stats(b)
    assert s["slices"] + s["padded_slices"] == b.n_vss * tau and s["nnz"] == A.nnz
    if s["slices"]:
        assert s["compression"] == pytest.approx(A.nnz / (s["slices"] * sigma))
    assert s["update_divergence"] == pytest.approx(_udiv_reference(b), rel=1e-9, abs=1e-9)


def _udiv_reference(b):
    vals = []
    for v in range(b.n_vss):
        cols = [b.row_ids[v, :, s] for s in range(b.row_ids.shape[2])]
        cols = [c[c != 0xFFFFFFFF].astype(np.float64) for c in cols]
        stds = [c.std() for c in cols if c.size]
        if stds:
            vals.append(np.mean(stds))
    return float(np.sum(vals) / b.n_vss) if b.n_vss else 0.0


@settings(max_examples=S.n_examples(150))
@given(pattern_csr(), st.sampled_from(b2sr.TILE_SIZES))
def test_b2sr_round_trip_and_layout(A, t):
    _check_b2sr(A, t)


@settings(max_examples=S.n_examples(120))
@given(pattern_csr(max_n=300), st.sampled_from(bvss.SIGMAS))
def test_bvss_round_trip_and_layout(A, sigma):
    _check_bvss(A, sigma)


@given(pattern_csr(max_n=300), st.sampled_from(bvss.SIGMAS), st.booleans())
def test_bvss_array_build_equals_numba(A, sigma, index64):
    """The GPU's BVSS builder (array operations, run here on numpy) gives the
    numba builder's arrays exactly, and the same update divergence."""
    from bitgraph.kernels.cpu.convert_bvss import bvss_from_csr, update_divergence
    from bitgraph.formats.bvss import update_divergence as update_divergence_xp
    from bitgraph.kernels.cuda.convert_bvss import from_csr_arrays

    if index64:
        A = CSR(A.indptr.astype(np.int64), A.indices.astype(np.int64), None, A.nrows, A.ncols)
    want = bvss_from_csr(A, sigma)
    got = from_csr_arrays(A, sigma, np)
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape
        np.testing.assert_array_equal(w, g)
    assert update_divergence_xp(got[2], np) == pytest.approx(
        update_divergence(want[2], sigma), rel=1e-9, abs=1e-9)


def test_bvss_several_vss_per_slice_set():
    # 300 rows in one column block: 3 VSSs of 128, the last padded
    A = from_coo(np.arange(300), np.zeros(300, np.int64), None, 300, 8)
    b = convert.bvss(A)
    assert b.real_ptrs.tolist() == [0, 3] and b.n_vss == 3
    s = bvss.stats(b)
    assert (s["slices"], s["padded_slices"], s["slice_sets"]) == (300, 84, 1)
    _check_bvss(A)


@pytest.mark.parametrize("name", REAL)
def test_real_graph_round_trips(name):
    A = bg.io.read(data_file(name))._csr()
    for t in b2sr.TILE_SIZES:
        B = convert.b2sr(A, t)
        _same(convert.b2sr_to_csr(B), A)
        _same(convert.b2sr_to_csr(convert.b2sr_transpose(B)), transpose(A))
    for sigma in bvss.SIGMAS:
        _same(convert.bvss_to_csr(convert.bvss(A, sigma)), A)
    if A.nnz and A.nrows <= 5000:
        _check_b2sr(A, 8)
        _check_bvss(A)


def test_frontier_words():
    A = from_coo(np.array([0]), np.array([0]), None, 1, 70)
    bits = np.zeros(70, bool)
    bits[[0, 9, 17, 63, 69]] = True
    words = np.packbits(np.r_[bits, np.zeros(26, bool)], bitorder="little").view(np.uint32)
    for sigma in bvss.SIGMAS:
        fw = bvss.frontier_words(words, convert.bvss(A, sigma))
        want = [int(sum(1 << c for c in range(sigma) if sigma * i + c < 70 and bits[sigma * i + c]))
                for i in range(-(-70 // sigma))]
        assert fw.tolist() == want


def test_matrix_caches_derived_formats():
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
    assert A.b2sr(8) is A.b2sr(8)
    assert A.T.b2sr(8) is not A.b2sr(8)
    _same(convert.b2sr_to_csr(A.T.b2sr(8)), transpose(A._csr()))
    assert A.bvss() is A.bvss() and A.T.bvss() is not A.bvss()
    assert A.b2sr("auto").t in b2sr.TILE_SIZES
    A.assign(bg.Vector.from_coo([0], [True], 3), 0)  # row assign: mutation drops the caches
    assert 8 not in {k[0] for k in A._slots().b2sr}


def test_bad_tile_size():
    A = from_coo(np.array([0]), np.array([0]), None, 1, 1)
    with pytest.raises(ValueError, match="tile size"):
        convert.b2sr(A, 5)
    with pytest.raises(ValueError, match="sigma"):
        convert.bvss(A, 3)


# --- sampling profile -----------------------------------------------------------

@settings(max_examples=S.n_examples(60))
@given(pattern_csr(max_n=200))
def test_profile_exact_when_every_row_is_sampled(A):
    est = profile.estimate(A, sample=10**6)
    for t in b2sr.TILE_SIZES:
        exact = b2sr.stats(convert.b2sr(A, t), A.nnz)
        assert est[t]["ntiles"] == exact["ntiles"]
        assert est[t]["nbytes"] == pytest.approx(exact["nbytes"])


@pytest.mark.parametrize("kind", ["kron", "grid"])
def test_profile_estimate_close_to_exact(kind):
    from bitgraph.__main__ import kron_edges

    if kind == "kron":
        n, s, d = kron_edges(15)
    else:
        k = 300
        i = np.arange(k * k)
        right, down = i[i % k < k - 1], i[i // k < k - 1]
        s = np.r_[right, right + 1, down, down + k]
        d = np.r_[right + 1, right, down + k, down]
        n = k * k
    A = from_coo(s, d, None, n, n)
    est = profile.estimate(A)  # 256 groups of 32 rows
    for t in b2sr.TILE_SIZES:
        exact = b2sr.stats(convert.b2sr(A, t), A.nnz)["ntiles"]
        assert est[t]["ntiles"] == pytest.approx(exact, rel=0.05), t
    best = min(b2sr.TILE_SIZES, key=lambda t: (convert.b2sr(A, t).nbytes, t))
    assert profile.choose_tile(A, est) == best


def test_int64_indices():
    """Graphs past 2^31 entries have int64 CSR indices: the builders take
    them (their own arrays stay int32 while they fit)."""
    rng = np.random.default_rng(5)
    r, c = rng.integers(0, 300, 2000), rng.integers(0, 300, 2000)
    A = from_coo(r, c, None, 300, 300)
    A64 = CSR(A.indptr.astype(np.int64), A.indices.astype(np.int64), None, 300, 300)
    for t in b2sr.TILE_SIZES:
        B = convert.b2sr(A64, t)
        assert B.tile_colind.dtype == np.int32
        _same(convert.b2sr_to_csr(B), A)
    _same(convert.bvss_to_csr(convert.bvss(A64)), A)
    assert profile.estimate(A64)[8]["ntiles"] == profile.estimate(A)[8]["ntiles"]
