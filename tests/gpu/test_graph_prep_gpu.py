"""The per-graph preparation kernels of the CUDA traversals
(``kernels/cuda/graph_prep.cu``) equal the CuPy expressions they replace:
row lengths, empty-row bits and the rows-with-entries count, in-lists
ordered by degree (ties in order; our chunk sort and merge passes against
the ``cupy.argsort`` expression they replace, kept here as the oracle);
int32 and int64 indptr and indices, empty graph, one vertex, n not a
multiple of 32, empty rows, a hub, degree ties, every chunk size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph import _array
from bitgraph.kernels import registry

pytestmark = pytest.mark.gpu


def _csr(rng, n, hub):
    cupy = pytest.importorskip("cupy")
    lens = rng.integers(0, 5, n) * (rng.random(n) < 0.7)
    if hub and n:
        lens[rng.integers(0, n)] = 3 * n
    indptr = np.concatenate([[0], np.cumsum(lens)])
    indices = rng.integers(0, max(n, 1), indptr[-1])
    return cupy, indptr, indices


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 1000, 4099])
@pytest.mark.parametrize("pdt, idt", [(np.int32, np.int32), (np.int64, np.int32),
                                      (np.int64, np.int64)])
@pytest.mark.parametrize("hub", [False, True])
def test_graph_prep_equals_cupy(n, pdt, idt, hub):
    rng = np.random.default_rng(n * 7 + hub)
    cupy, indptr, indices = _csr(rng, n, hub)
    p, i = cupy.asarray(indptr, pdt), cupy.asarray(indices, idt)
    row_lengths = registry.lookup("row_lengths", fmt="csr", device="cuda", variant="int32")
    empty_rows = registry.lookup("empty_rows", fmt="csr", device="cuda", variant="bits")
    order = registry.lookup("order_by_degree", fmt="csr", device="cuda", variant="sorted")

    deg = row_lengths(p)
    assert deg.dtype == np.int32 and deg.shape == (n,)
    np.testing.assert_array_equal(deg.get(), np.diff(indptr))

    bits, live = empty_rows(p)
    empty = np.diff(indptr) == 0
    np.testing.assert_array_equal(bits.get(), _array.pack_bits(empty))
    assert live == int(n - empty.sum())

    if n:
        got = order(p, i, deg).get()
        d = np.diff(indptr)
        rows = np.repeat(np.arange(n, dtype=np.int64), d)
        key = (rows << 32) | (np.int64(2**31 - 1) - d[indices].astype(np.int64))
        want = indices[np.argsort(key, kind="stable")]
        assert got.dtype == idt
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(got, _argsort_oracle(cupy, p, i, deg).get())


def _argsort_oracle(cupy, indptr, indices, deg):
    """The CuPy expression ``order_by_degree`` replaced: one 64-bit key per
    entry (the row, then 2^31 - 1 - degree), a stable ``cupy.argsort``."""
    n = indptr.shape[0] - 1
    if indices.shape[0] == 0:
        return indices.copy()
    rows = cupy.asarray(np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr.get())))
    key = (rows << 32) | (2**31 - 1 - deg[indices].astype(cupy.int64))
    return indices[cupy.argsort(key)]


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 300), seed=st.integers(0, 2**32 - 1),
       empty=st.sampled_from([0, 0.3, 1]),
       hub=st.integers(0, 3), ties=st.booleans(), threads=st.sampled_from([32, 64, 256, 1024]),
       dtypes=st.sampled_from([(np.int32, np.int32), (np.int64, np.int32),
                               (np.int32, np.int64), (np.int64, np.int64)]))
def test_order_by_degree_equals_argsort(n, seed, empty, hub, ties, threads, dtypes):
    # rows empty (a fraction `empty`) or short, up to `hub` rows of 2 n to
    # 6 n entries (several chunks: the merge passes inside a row), degrees
    # from {0, 1, 2} (ties everywhere) or the row lengths; the chunk (block)
    # size from the settings
    cupy = pytest.importorskip("cupy")
    pdt, idt = dtypes
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 7, n) * (rng.random(n) >= empty)
    for _ in range(hub if n else 0):
        lens[rng.integers(0, n)] = rng.integers(2 * n, 6 * n + 1)
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(pdt)
    indices = rng.integers(0, max(n, 1), int(indptr[-1])).astype(idt)
    deg = rng.integers(0, 3, n) if ties else lens
    p, i, d = cupy.asarray(indptr), cupy.asarray(indices), cupy.asarray(deg, cupy.int32)
    order = registry.lookup("order_by_degree", fmt="csr", device="cuda", variant="sorted")
    with bg.settings.use(cuda={"threads": threads}):
        got = order(p, i, d)
    assert got.dtype == idt and got.shape == indices.shape
    assert got is not i
    want = _argsort_oracle(cupy, p, i, d)
    np.testing.assert_array_equal(got.get(), want.get())
    # each row's entries are a permutation of its own, degrees non-increasing
    g = got.get()
    for r in range(n):
        a, b = int(indptr[r]), int(indptr[r + 1])
        assert sorted(g[a:b].tolist()) == sorted(indices[a:b].tolist())
        assert np.all(np.diff(np.asarray(deg)[g[a:b]]) <= 0)


@pytest.mark.parametrize("m", [1, 31, 255, 256, 257, 512, 513, 4097])
def test_order_by_degree_chunk_edges(m):
    # one row of m entries (every chunk and merge boundary near 256) and
    # the same entries as m one-entry rows (every merge pass a copy)
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(m)
    deg = cupy.asarray(rng.integers(0, 5, m), cupy.int32)
    indices = cupy.asarray(rng.integers(0, m, m), cupy.int32)
    order = registry.lookup("order_by_degree", fmt="csr", device="cuda", variant="sorted")
    for indptr in (cupy.asarray([0, m], cupy.int64), cupy.arange(m + 1, dtype=cupy.int64)):
        with bg.settings.use(cuda={"threads": 256}):
            got = order(indptr, indices, deg)
        np.testing.assert_array_equal(got.get(), _argsort_oracle(cupy, indptr, indices, deg).get())


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 1000, 4099])
def test_pack_bits_equals_the_host(n):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(n)
    present = rng.random(n) < 0.4
    from bitgraph.kernels import registry

    pack = registry.lookup("pack_bits", fmt="dense", device="cuda", variant="bool")
    got = pack(cupy.asarray(present))
    assert got.dtype == np.uint32 and got.shape == ((n + 31) // 32,)
    np.testing.assert_array_equal(got.get(), _array.pack_bits(present))
    # a strided view goes through a contiguous copy
    both = cupy.asarray(np.repeat(present, 2))
    np.testing.assert_array_equal(pack(both[::2]).get(), _array.pack_bits(present))


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 1000, 4099, 70_001])
def test_bitmap_helpers_equal_the_host(n):
    """plan's pack, unpack and count on CuPy arrays (our kernels) equal numpy's, bits past n
    clear, flags of another dtype or a longer bitmap read as numpy does."""
    cupy = pytest.importorskip("cupy")
    from bitgraph import plan

    rng = np.random.default_rng(n)
    present = rng.random(n) < 0.4
    words = _array.pack_bits(present)
    got = plan.pack_bits(cupy.asarray(present))
    assert got.dtype == np.uint32
    np.testing.assert_array_equal(got.get(), words)
    assert plan.pack_bits(cupy.asarray(present.astype(np.int8))).get().tolist() == words.tolist()
    np.testing.assert_array_equal(plan.unpack_bits(cupy.asarray(words), n).get(), present)
    assert plan.count_bits(cupy.asarray(words)) == int(present.sum())
    full = np.full(max(1, (n + 31) // 32), 0xFFFFFFFF, np.uint32)
    assert plan.count_bits(cupy.asarray(full)) == 32 * full.size
    np.testing.assert_array_equal(_array.full_bitmap(n, cupy).get(), _array.full_bitmap(n))
    assert plan.count_bits(_array.full_bitmap(n, cupy)) == n
    if n > 3:  # the first bits of a longer bitmap
        np.testing.assert_array_equal(plan.unpack_bits(cupy.asarray(full), n - 3).get(),
                                      np.ones(n - 3, np.bool_))
    from bitgraph.kernels import registry

    with pytest.raises(ValueError, match="words"):
        registry.lookup("unpack_bits", fmt="dense", device="cuda", variant="bool")(
            cupy.asarray(words), 32 * words.size + 1)


def test_vector_nvals_follows_its_bitmap():
    """The count a CUDA Vector keeps is its bitmap's: an op that replaces the bitmap
    (out=, assign) gives the new count."""
    pytest.importorskip("cupy")
    import bitgraph as bg

    u = bg.Vector.from_coo([1, 5, 64], [1.0, 2.0, 3.0], size=100, device="cuda")
    assert u.nvals == 3 and u.nvals == 3
    w = bg.Vector(np.float64, 100, device="cuda")
    assert w.nvals == 0
    bg.ewise_add(u, u, "plus", out=w)
    assert w.nvals == 3
    w[7] = 1.0
    assert w.nvals == 4
    bg.apply(w, "identity", mask=~u.S, replace=True, out=w)
    assert w.nvals == 1


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int32, np.float32,
                                   np.int64, np.uint64, np.float64])
@pytest.mark.parametrize("n", [0, 1, 33, 4099])
def test_present_vector_equals_where_and_pack(dtype, n):
    """Vector._from_present on the GPU (one kernel) equals numpy's where + pack: values zeroed
    where absent (-0.0 and NaN kept where present), bits past n clear, the input untouched."""
    cupy = pytest.importorskip("cupy")
    import bitgraph as bg

    rng = np.random.default_rng(n)
    present = rng.random(n) < 0.5
    values = (rng.random(n) * 200 - 100).astype(dtype)
    if np.dtype(dtype).kind == "f" and n > 2:
        values[:2] = [-0.0, np.nan]
        present[:2] = True
    gv = cupy.asarray(values)
    v = bg.Vector._from_present(cupy.asarray(present), gv)
    want = bg.Vector._from_present(present, values)
    np.testing.assert_array_equal(v._bitmap.get(), want._bitmap)
    got = v._values.get()
    assert got.dtype == values.dtype
    assert got.tobytes() == want._values.tobytes()  # bit for bit: -0.0 stays, NaN stays
    assert gv.get().tobytes() == values.tobytes()
    assert v.nvals == int(present.sum())
    # under a mask's words: only the allowed positions (plan.present_vector, both devices)
    from bitgraph import plan

    allowed = _array.pack_bits(rng.random(n) < 0.5)
    words, vals = plan.present_vector(cupy.asarray(present), gv, cupy.asarray(allowed))
    want_w, want_v = plan.present_vector(present, values, allowed)
    np.testing.assert_array_equal(words.get(), want_w)
    assert vals.get().tobytes() == want_v.tobytes()
    keep = present & _array.unpack_bits(allowed, n)
    np.testing.assert_array_equal(_array.unpack_bits(want_w, n), keep)


@pytest.mark.parametrize("n", [0, 1, 33, 4099, 70_001, 3_000_001])
@pytest.mark.parametrize("density", [0.0, 0.001, 0.5, 1.0])
def test_bit_indices_equal_flatnonzero(n, density):
    """plan.bit_indices (two launches: the blocks' counts, then each block's scan) equals
    numpy's flatnonzero over many blocks and tiles; Vector.indices on the GPU uses it."""
    cupy = pytest.importorskip("cupy")
    import bitgraph as bg
    from bitgraph import plan

    rng = np.random.default_rng(n + int(density * 1000))
    present = rng.random(n) < density
    words = _array.pack_bits(present)
    want = np.flatnonzero(present)
    got = plan.bit_indices(cupy.asarray(words), n, int(present.sum()))
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), want)
    v = bg.Vector.from_coo(want, True, size=n, device="cuda") if n else None
    if v is not None:
        np.testing.assert_array_equal(v.indices().get(), want)
    from bitgraph.kernels import registry

    with pytest.raises(ValueError, match="set bits"):
        registry.lookup("bit_indices", fmt="dense", device="cuda", variant="int64")(
            cupy.asarray(words), 32 * words.size + 1)


_DTYPES = [(np.int32, np.int32), (np.int64, np.int32), (np.int32, np.int64), (np.int64, np.int64)]


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 400), seed=st.integers(0, 2**32 - 1), empty=st.sampled_from([0, 0.3, 0.9]),
       hub=st.booleans(), hops=st.integers(1, 8), share=st.integers(1, 400),
       dtypes=st.sampled_from(_DTYPES))
def test_ball_hops_equals_the_host(n, seed, empty, hub, hops, share, dtypes):
    """The probe's hop kernel (``graph_prep.ball_hops``) gives the hops the
    numpy ball takes (``breadth_first._ball_hops``) from every kind of
    source: passing the target, still growing after ``hops`` (hops + 1),
    stopped first (0); rows empty, short or a hub, duplicates, self-loops,
    every index type; a warp per frontier row (a hub row over many lanes)."""
    cupy = pytest.importorskip("cupy")
    from bitgraph.algorithms import breadth_first as bf

    pdt, idt = dtypes
    rng = np.random.default_rng(seed)
    lens = rng.integers(0, 4, n) * (rng.random(n) >= empty)
    if hub:
        lens[rng.integers(0, n)] = 3 * n
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(pdt)
    indices = rng.integers(0, n, int(indptr[-1])).astype(idt)
    ball = registry.lookup("ball_hops", fmt="csr", device="cuda", variant="probe")
    p, i = cupy.asarray(indptr), cupy.asarray(indices)
    target = max(1, n // share)
    for s in {0, n - 1, int(rng.integers(0, n))}:
        want = bf._ball_hops(indptr, indices, s, hops, target)
        assert ball(p, i, s, hops, target) == want, (s, hops, target)
    with pytest.raises(ValueError, match="out of range"):
        ball(p, i, n, hops, target)


@pytest.mark.parametrize("spec", ["grid:400x400:0.01", "kron:17", "urand:17:16", "moore:60x60x60",
                                  "grid:60x60x60"])
def test_reach_and_spread_on_cuda_equal_the_cpu(spec):
    """bfs.reach and the spread bfs_method reads, on a CUDA graph (our
    kernels), equal the CPU's (array code), int32 and int64 indices."""
    pytest.importorskip("cupy")
    from bitgraph.algorithms import _common
    from bitgraph.algorithms import breadth_first as bf

    A = bg.io.generators.from_spec(spec)
    c = A._csr()
    want_reach = bf.reach(A)
    want_spread = _common.median_spread(c.indptr, c.indices, 1000)
    for idt in (np.int32, np.int64):
        B = bg.Matrix.from_csr(c.indptr.astype(np.int64), c.indices.astype(idt),
                               ncols=A.ncols).to("cuda")
        assert bf.reach(B) == want_reach, idt
        d = B._csr()
        assert _common.median_spread(d.indptr, d.indices, 1000) == want_spread, idt


def test_sample_spread_equals_the_host():
    """|indices[e] - row(e)| for sampled entries, rows found by a binary
    search (empty rows before, between and after), every index type; no
    samples."""
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(3)
    n = 500
    lens = rng.integers(0, 6, n) * (rng.random(n) < 0.6)
    lens[0] = lens[-1] = 0
    indptr = np.concatenate([[0], np.cumsum(lens)])
    indices = rng.integers(0, n, int(indptr[-1]))
    entries = rng.integers(0, int(indptr[-1]), 2000)
    rows = np.searchsorted(indptr, entries, side="right") - 1
    want = np.abs(indices[entries] - rows)
    spread = registry.lookup("sample_spread", fmt="csr", device="cuda", variant="int64")
    for pdt, idt in _DTYPES:
        got = spread(cupy.asarray(indptr, pdt), cupy.asarray(indices, idt), entries)
        assert got.dtype == np.int64
        np.testing.assert_array_equal(got, want)
    assert spread(cupy.asarray(indptr), cupy.asarray(indices), np.zeros(0, np.int64)).size == 0
