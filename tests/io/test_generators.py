"""bitgraph.io.generators: determinism, structure, specs, pinned checksums.

Every generated graph must be a simple undirected graph stored both ways:
square, structure-only, symmetric, no self-loops, sorted duplicate-free
rows. The checksums pin the exact graphs (a change to the generators, or to
numpy's PCG64 / SeedSequence / permutation, shows up here).
"""

import hashlib

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from scipy.spatial.distance import pdist, squareform

import bitgraph as bg
from bitgraph._array import index_dtype
from bitgraph.io import generators as G


def csr_arrays(A):
    return np.asarray(A.indptr), np.asarray(A.indices)


def same_graph(A, B):
    (p1, i1), (p2, i2) = csr_arrays(A), csr_arrays(B)
    return A.shape == B.shape and np.array_equal(p1, p2) and np.array_equal(i1, i2)


def checksum(A):
    p, i = csr_arrays(A)
    h = hashlib.sha256(p.astype("<i8").tobytes() + i.astype("<i8").tobytes())
    return h.hexdigest()[:16]


def check_simple(A, n):
    """Square n x n, bool structure-only, symmetric, loop-free, sorted unique rows."""
    assert A.shape == (n, n)
    assert A.dtype == np.bool_ and A.values is None
    indptr, indices = csr_arrays(A)
    assert indptr.dtype == indices.dtype == index_dtype(A.nvals, n)
    assert indptr[0] == 0 and indptr[-1] == indices.size == A.nvals
    assert np.all(np.diff(indptr) >= 0)
    if A.nvals:
        assert indices.min() >= 0 and indices.max() < n
        rows = np.repeat(np.arange(n), np.diff(indptr))
        keys = rows * n + indices
        assert np.all(np.diff(keys) > 0), "rows not sorted or duplicate entries"
        assert not np.any(rows == indices), "self-loop"
    S = A.to_scipy()
    assert (S != S.T).nnz == 0, "not symmetric"
    return S


def degrees(A):
    return np.diff(np.asarray(A.indptr))


# --- determinism -----------------------------------------------------------------------

CASES = [
    ("kron", lambda s: G.kron(9, seed=s)),
    ("kron_ef", lambda s: G.kron(7, edgefactor=5, seed=s)),
    ("urand", lambda s: G.urand(9, degree=8, seed=s)),
    ("grid2d", lambda s: G.grid2d(20, 30, drop=0.3, seed=s)),
    ("grid3d", lambda s: G.grid3d(6, 7, 8, drop=0.2, seed=s)),
    ("rgg", lambda s: G.rgg(500, 0.08, seed=s)),
    ("kronh", lambda s: G.kronh(9, seed=s)),
    ("kronh_ef", lambda s: G.kronh(7, edgefactor=5, seed=s)),
    ("urandh", lambda s: G.urandh(9, degree=8, seed=s)),
]


@pytest.mark.parametrize("name,make", CASES, ids=[c[0] for c in CASES])
def test_deterministic(name, make):
    A, B, C = make(3), make(3), make(4)
    assert same_graph(A, B)
    assert not same_graph(A, C)
    check_simple(A, A.nrows)
    check_simple(C, C.nrows)


def test_thread_count_does_not_matter(monkeypatch):
    """One thread: each key has its place; several: rows < n/2 packed from the
    front, the rest from the back, in any order, halves sorted apart (m > 2^16)."""
    make = [lambda: G.kron(13, edgefactor=9, seed=5), lambda: G.urand(13, degree=18, seed=5),
            lambda: G.kron(9, edgefactor=4, seed=5)]
    monkeypatch.setattr(G, "_num_threads", lambda: 1)
    ref = [f() for f in make]
    for nt in (2, 3):
        monkeypatch.setattr(G, "_num_threads", lambda nt=nt: nt)
        for f, A in zip(make, ref):
            assert same_graph(f(), A)


def test_pinned_checksums():
    # written from the generators as they are; a change to them must be deliberate
    got = {
        "kron:6@1": (G.kron(6, seed=1).nvals, checksum(G.kron(6, seed=1))),
        "kron:10:4@2": (G.kron(10, 4, seed=2).nvals, checksum(G.kron(10, 4, seed=2))),
        "urand:8:4@1": (G.urand(8, 4, seed=1).nvals, checksum(G.urand(8, 4, seed=1))),
        "grid:9x7:0.3@2": (G.grid2d(9, 7, 0.3, seed=2).nvals, checksum(G.grid2d(9, 7, 0.3, seed=2))),
        "rgg:300:0.1@1": (G.rgg(300, 0.1, seed=1).nvals, checksum(G.rgg(300, 0.1, seed=1))),
    }
    assert got == PINNED


PINNED = {
    "kron:6@1": (758, "7ffa30484999ea8c"),
    "kron:10:4@2": (6634, "0a4f7414ed6ef7a9"),
    "urand:8:4@1": (1012, "593faa27fe5008e3"),
    "grid:9x7:0.3@2": (154, "27f5bac1990881f5"),
    "rgg:300:0.1@1": (2498, "a724e9260cbf9f6b"),
}


# --- kron --------------------------------------------------------------------------------

def test_kron_structure_and_skew():
    A = G.kron(12, seed=0)
    check_simple(A, 4096)
    d = degrees(A)
    assert 0.6 * 2 * 16 * 4096 < A.nvals < 2 * 16 * 4096  # ~26% duplicates at this size
    assert d.max() > 20 * d.mean()  # heavy-tailed
    assert (d == 0).sum() > 0.1 * 4096  # R-MAT leaves many vertices isolated


def test_kron_quadrant_bits_are_exact():
    """Each bit's quadrant equals the exact 32-bit comparison of its byte plus,
    for bytes on a boundary, 24 more bits drawn in byte order."""
    ta, tab, tabd = G._kron_thresholds()
    assert (ta, tab - ta, tabd - tab, 2 ** 32 - tabd) == tuple(
        round(p * 2 ** 32) for p in (0.57, 0.19, 0.05, 0.19))
    for scale in (1, 7, 8, 13, 24, 33):
        sp8 = -(-scale // 8) * 8
        count = 2000
        src, dst = G._rmat_bits(np.random.PCG64(7), count, scale, G._Work(count * sp8))
        bitgen = np.random.PCG64(7)
        byte = bitgen.random_raw(count * sp8 // 8).astype("<u8").view(np.uint8)
        amb = np.isin(byte, [ta >> 24, tab >> 24, tabd >> 24])
        u = byte.astype(np.uint64) << np.uint64(24)
        u[amb] |= bitgen.random_raw(int(amb.sum())) >> np.uint64(40)
        row = (u >= tab).reshape(count, sp8)[:, :scale]
        col = ((u >= ta) & (u < tabd)).reshape(count, sp8)[:, :scale]
        w = np.uint64(1) << np.arange(scale, dtype=np.uint64)
        assert np.array_equal((row * w).sum(1, dtype=np.uint64), src)
        assert np.array_equal((col * w).sum(1, dtype=np.uint64), dst)


def test_kron_quadrant_frequencies():
    src, dst = G._rmat_bits(np.random.PCG64(11), 1 << 15, 16, G._Work(16 << 15))
    k = np.arange(16, dtype=np.uint64)
    q = ((src[:, None] >> k) & np.uint64(1)) * np.uint64(2) + ((dst[:, None] >> k) & np.uint64(1))
    f = np.bincount(q.ravel().astype(np.int64), minlength=4) / q.size
    p = np.array([0.57, 0.19, 0.19, 0.05])
    assert np.all(np.abs(f - p) < 5 * np.sqrt(p * (1 - p) / q.size))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("chunk", [None, 1000])
def test_kron_against_unique(monkeypatch, knobs, chunk, threads):
    """kron = the R-MAT edges of the documented streams, relabelled, both
    directions, deduplicated (here with np.unique; chunk: small dedup steps)."""
    if chunk:
        knobs(io={"dedup_chunk": chunk})
    monkeypatch.setattr(G, "_num_threads", lambda: threads)
    scale, ef, seed = 12, 20, 4
    n, m = 1 << scale, ef << scale
    ss = np.random.SeedSequence(seed)
    perm = np.random.default_rng(ss).permutation(n)
    src, dst = [], []
    for b, stream in enumerate(ss.spawn(-(-m // G._KRON_BLOCK))):
        bitgen = np.random.PCG64(stream)
        stop = min(m, (b + 1) * G._KRON_BLOCK)
        for off in range(b * G._KRON_BLOCK, stop, G._KRON_PIECE):
            count = min(G._KRON_PIECE, stop - off)
            s, d = G._rmat_bits(bitgen, count, scale, G._Work(count * 16))
            src.append(perm[s.astype(np.int64)])
            dst.append(perm[d.astype(np.int64)])
    s, d = np.concatenate(src), np.concatenate(dst)
    keys = np.unique(np.concatenate([s * n + d, d * n + s])[np.concatenate([s != d, s != d])])
    r, c, _ = G.kron(scale, ef, seed=seed).to_coo()
    assert np.array_equal(r * n + c, keys)


def test_kron_edges_match_matrix():
    A = G.kron(8, edgefactor=8, seed=2)
    n, rows, cols = G.kron_edges(8, edgefactor=8, seed=2)
    r, c, _ = A.to_coo()
    assert n == 256 and rows.dtype == cols.dtype == np.int64
    assert np.array_equal(rows, r) and np.array_equal(cols, c)
    assert same_graph(bg.Matrix.from_coo(rows, cols, nrows=n, ncols=n), A)


def test_kron_small_and_empty():
    assert G.kron(0).shape == (1, 1) and G.kron(0).nvals == 0
    assert G.kron(5, edgefactor=0).nvals == 0
    check_simple(G.kron(1, seed=3), 2)
    check_simple(G.kron(3, edgefactor=1), 8)


def test_main_kron_edges_uses_generator():
    from bitgraph.__main__ import kron_edges

    n, src, dst = kron_edges(7, edge_factor=4, seed=1)
    m, rows, cols = G.kron_edges(7, 4, seed=1)
    assert n == m and np.array_equal(src, rows) and np.array_equal(dst, cols)


# --- kronh / urandh (hashed) ----------------------------------------------------------------

def test_hashed_pinned_checksums():
    # the definition of the hashed graphs (the GPU must make these bits too)
    got = {spec: (G.from_spec(spec).nvals, checksum(G.from_spec(spec))) for spec in PINNED_HASHED}
    assert got == PINNED_HASHED


PINNED_HASHED = {
    "kronh:6@1": (818, "9904b2ab8fa56ef2"),
    "kronh:10:4@2": (6630, "f7eb630bb784206e"),
    "urandh:8:4@1": (1002, "02c28d7d959f300f"),
}


def test_kronh_structure_and_skew_as_kron():
    A, K = G.kronh(13, seed=0), G.kron(13, seed=0)
    check_simple(A, 8192)
    d, k = degrees(A), degrees(K)
    assert d.max() > 20 * d.mean()  # heavy-tailed
    assert (d == 0).sum() > 0.1 * 8192  # R-MAT leaves many vertices isolated
    # the same model as kron: entries, isolated vertices and the degree tail alike
    assert abs(A.nvals - K.nvals) < 0.02 * K.nvals
    assert abs((d == 0).mean() - (k == 0).mean()) < 0.02
    for q in (50, 90, 99, 99.9):
        assert abs(np.percentile(d, q) - np.percentile(k, q)) <= 0.15 * np.percentile(k, q) + 1
    assert 0.5 < d.max() / k.max() < 2


def _kronh_reference(scale, seed, i):
    """Edge i of kronh before relabelling, in Python ints, from the definition."""
    ta, tab, tabd = G._kron_thresholds()
    m = (1 << 64) - 1
    e = G._fmix_int(G._hash_key(seed, G._SALT_KRON) + (i + 1) * G._GOLDEN)
    src = dst = 0
    for k in range(scale):
        h = G._fmix_int(e + (k // 2 + 1) * G._GOLDEN)
        u = (h >> (32 * (k % 2))) & 0xFFFF_FFFF
        src |= (u >= tab) << k
        dst |= (ta <= u < tabd) << k
    assert e <= m
    return src, dst


def test_kronh_bits_follow_the_definition(monkeypatch):
    """numpy's uint64 arrays give the Python-int hash bit for bit (the same code on
    CuPy must too); the relabelling is applied after."""
    scale, seed = 21, 7
    s, d = G._kronh_edges_range(np, scale, seed, 1000, 1040)
    keys = G._perm_keys(seed)
    monkeypatch.setattr(G, "_feistel", lambda x, scale, keys: x)
    s0, d0 = G._kronh_edges_range(np, scale, seed, 1000, 1040)
    for j, i in enumerate(range(1000, 1040)):
        assert (int(s0[j]), int(d0[j])) == _kronh_reference(scale, seed, i)
    monkeypatch.undo()
    assert np.array_equal(s, G._feistel(s0, scale, keys))
    assert np.array_equal(d, G._feistel(d0, scale, keys))


def test_kronh_quadrant_frequencies(monkeypatch):
    monkeypatch.setattr(G, "_feistel", lambda x, scale, keys: x)
    scale, count = 12, 1 << 16
    s, d = G._kronh_edges_range(np, scale, 3, 0, count)
    for k in (0, 1, 7, 11):  # even and odd levels: low and high halves of a hash
        r, c = (s >> np.uint64(k)) & np.uint64(1), (d >> np.uint64(k)) & np.uint64(1)
        freq = np.bincount((2 * r + c).astype(np.int64), minlength=4) / count
        sd = np.sqrt(0.25 / count)
        assert np.allclose(freq, [0.57, 0.19, 0.19, 0.05], atol=6 * sd), (k, freq)


@pytest.mark.parametrize("scale", list(range(0, 15)))
def test_feistel_is_a_permutation(scale):
    x = np.arange(1 << scale, dtype=np.uint64)
    y = G._feistel(x, scale, G._perm_keys(4))
    assert np.array_equal(np.sort(y), x)
    if scale >= 4:
        assert (y != x).mean() > 0.5
        assert not np.array_equal(y, G._feistel(x, scale, G._perm_keys(5)))


def test_feistel_large_scales_stay_in_range_and_injective():
    x = np.random.default_rng(0).integers(0, 1 << 40, 100000, dtype=np.uint64)
    x = np.unique(x)
    for scale in (31, 33, 40):
        xs = x & np.uint64((1 << scale) - 1)
        xs = np.unique(xs)
        y = G._feistel(xs, scale, G._perm_keys(1))
        assert y.max() < (1 << scale) and np.unique(y).size == xs.size


@pytest.mark.parametrize("name", ["kronh", "urandh"])
def test_hashed_edges_are_a_function_of_the_index(name):
    kw = {"scale": 11, "seed": 3, ("edgefactor" if name == "kronh" else "degree"): 4}
    whole = G._hashed_edges_range(np, name, kw, 0, 5000)
    pieces = [G._hashed_edges_range(np, name, kw, a, min(5000, a + 777))
              for a in range(0, 5000, 777)]
    for w, p in zip(whole, zip(*pieces)):
        assert w.dtype == np.uint64 and np.array_equal(w, np.concatenate(p))
    other = G._hashed_edges_range(np, name, dict(kw, seed=4), 0, 5000)
    assert (whole[0] != other[0]).mean() > 0.9


def test_hashed_chunks_and_threads_do_not_matter(monkeypatch):
    ref = [G.kronh(12, edgefactor=9, seed=5), G.urandh(12, degree=18, seed=5)]
    for nt in (1, 3):
        monkeypatch.setattr(G, "_num_threads", lambda nt=nt: nt)
        with bg.settings.use(io={"hashed_chunk": 1000}):
            assert same_graph(G.kronh(12, edgefactor=9, seed=5), ref[0])
            assert same_graph(G.urandh(12, degree=18, seed=5), ref[1])


@pytest.mark.parametrize("spec", ["kronh:10@3", "urandh:9:6", "kronh:0", "kronh:5:0"])
def test_hashed_by_row_ranges_equals_the_cpu_path(spec):
    """The path from_spec takes on the GPU (rounds sorted, rows kept by range,
    ranges sorted and deduplicated), run on numpy, against the thread-pool path."""
    name, kw = G.parse_spec(spec)
    with bg.settings.use(distributed={"step_entries": 999, "sort_keys": 1500}):
        A = G._hashed_matrix(np, name, kw, "test")
    B = G.from_spec(spec)
    assert same_graph(A, B)
    check_simple(A, B.nrows)
    from bitgraph.algorithms import _common

    assert _common.known(A, "symmetric") is True


def test_hashed_by_row_ranges_scale_limit():
    with pytest.raises(bg.InvalidValue, match="up to scale 31"):
        G._hashed_matrix(np, "kronh", {"scale": 32, "edgefactor": 1, "seed": 0}, "from_spec")


def test_kronh_edges_match_matrix():
    A = G.kronh(8, edgefactor=4, seed=9)
    n, rows, cols = G.kronh_edges(8, edgefactor=4, seed=9)
    r, c, _ = A.to_coo()
    assert n == 256 and np.array_equal(rows, r) and np.array_equal(cols, c)
    assert not same_graph(A, G.kron(8, edgefactor=4, seed=9))  # a different graph


def test_urandh_structure_not_skewed():
    A = G.urandh(12, degree=16, seed=1)
    check_simple(A, 4096)
    d = degrees(A)
    assert 15 < d.mean() <= 16
    assert d.max() < 3 * d.mean()
    assert G.urandh(0).nvals == 0 and G.urandh(6, degree=0).nvals == 0
    n, rows, cols = G.urandh_edges(7, degree=6, seed=9)
    r, c, _ = G.urandh(7, degree=6, seed=9).to_coo()
    assert n == 128 and np.array_equal(rows, r) and np.array_equal(cols, c)


def test_urandh_wide_ids():
    s, d = G._urandh_edges_range(np, 34, 2, 0, 20000)
    assert s.max() < (1 << 34) and d.max() < (1 << 34)
    assert s.max() >= (1 << 33) and d.max() >= (1 << 33)  # the top bits used
    assert abs(np.corrcoef(s.astype(np.float64), d.astype(np.float64))[0, 1]) < 0.05


# --- urand --------------------------------------------------------------------------------

def test_urand_structure_not_skewed():
    A = G.urand(12, degree=16, seed=1)
    S = check_simple(A, 4096)
    d = degrees(A)
    assert 15 < d.mean() <= 16
    assert d.max() < 3 * d.mean()
    assert S.nnz == A.nvals
    assert G.urand(0).nvals == 0 and G.urand(6, degree=0).nvals == 0


def test_urand_edges_match_matrix():
    A = G.urand(7, degree=6, seed=9)
    n, rows, cols = G.urand_edges(7, degree=6, seed=9)
    r, c, _ = A.to_coo()
    assert n == 128 and np.array_equal(rows, r) and np.array_equal(cols, c)


# --- meshes -------------------------------------------------------------------------------

@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 5), (4, 1), (3, 4), (17, 23)])
def test_grid2d_counts_ids_and_diameter(rows, cols):
    A = G.grid2d(rows, cols)
    S = check_simple(A, rows * cols)
    assert A.nvals == 2 * (rows * (cols - 1) + cols * (rows - 1))
    dist = csg.shortest_path(S, unweighted=True, indices=0)
    assert dist.max() == rows + cols - 2
    # vertex r * cols + c: its neighbours are the 4 mesh neighbours
    r, c = rows // 2, cols // 2
    want = sorted((rr * cols + cc) for rr, cc in ((r - 1, c), (r, c - 1), (r, c + 1), (r + 1, c))
                  if 0 <= rr < rows and 0 <= cc < cols)
    v = r * cols + c
    assert np.asarray(A.indices)[A.indptr[v]:A.indptr[v + 1]].tolist() == want


def test_grid2d_drop():
    rows, cols = 30, 40
    e = rows * (cols - 1) + cols * (rows - 1)
    for drop in (0.0, 0.1, 0.5, 1.0):
        A = G.grid2d(rows, cols, drop=drop, seed=4)
        check_simple(A, rows * cols)
        assert A.nvals == 2 * (e - int(np.floor(drop * e + 0.5)))
    full = G.grid2d(rows, cols).to_scipy()
    sub = G.grid2d(rows, cols, drop=0.3, seed=4).to_scipy()
    assert (sub - sub.multiply(full)).nnz == 0  # only mesh edges, a subset
    assert G.grid2d(0, 7).shape == (0, 0)


def test_grid3d_counts_ids_and_diameter():
    nx, ny, nz = 3, 4, 5
    A = G.grid3d(nx, ny, nz)
    S = check_simple(A, nx * ny * nz)
    assert A.nvals == 2 * ((nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1))
    assert csg.shortest_path(S, unweighted=True, indices=0).max() == nx + ny + nz - 3
    x, y, z = 1, 2, 3
    v = (x * ny + y) * nz + z
    want = sorted(v + o for o in (-ny * nz, -nz, -1, 1, nz, ny * nz))
    assert np.asarray(A.indices)[A.indptr[v]:A.indptr[v + 1]].tolist() == want
    e = A.nvals // 2
    B = G.grid3d(nx, ny, nz, drop=0.25, seed=1)
    check_simple(B, 60)
    assert B.nvals == 2 * (e - int(np.floor(0.25 * e + 0.5)))
    assert G.grid3d(1, 1, 1).nvals == 0


def test_grid_edges_match_matrix():
    A = G.grid2d(5, 6, drop=0.2, seed=3)
    n, rows, cols = G.grid2d_edges(5, 6, drop=0.2, seed=3)
    r, c, _ = A.to_coo()
    assert n == 30 and np.array_equal(rows, r) and np.array_equal(cols, c)
    n, rows, cols = G.grid3d_edges(2, 3, 4)
    assert n == 24 and rows.size == G.grid3d(2, 3, 4).nvals


@pytest.mark.parametrize("shape", [(5, 7), (1, 6), (2, 2), (4, 5, 6), (3, 1, 2), (1, 1, 1)])
def test_moore_matches_all_pairs(shape):
    """moore2d / moore3d: an edge between every two vertices whose C-order
    coordinates differ by at most 1 in each axis, sorted rows; the diameter
    is the longest side minus one (a king's move covers every axis at once)."""
    n = int(np.prod(shape))
    coords = np.stack(np.unravel_index(np.arange(n), shape), axis=1)
    cheb = np.abs(coords[:, None, :] - coords[None, :, :]).max(axis=2)
    want = cheb == 1
    make, edges = (G.moore2d, G.moore2d_edges) if len(shape) == 2 else (G.moore3d, G.moore3d_edges)
    A = make(*shape)
    S = check_simple(A, n)
    assert np.array_equal(S.toarray(), want)
    m, rows, cols = edges(*shape)
    r, c, _ = A.to_coo()
    assert m == n and np.array_equal(rows, r) and np.array_equal(cols, c)
    if n > 1:
        assert csg.shortest_path(S, unweighted=True, indices=0).max() == max(shape) - 1


def test_moore_degrees_and_empty():
    A = G.moore3d(5, 5, 5)
    deg = np.diff(np.asarray(A.indptr))
    assert deg.max() == 26 and deg.min() == 7
    assert np.diff(np.asarray(G.moore2d(5, 5).indptr)).max() == 8
    assert G.moore2d(0, 4).shape == (0, 0) and G.moore3d(1, 1, 1).nvals == 0


# --- rgg ------------------------------------------------------------------------------------

@pytest.mark.parametrize("radius", [0.02, 0.1, 0.35])
def test_rgg_matches_all_pairs(radius):
    n = 300
    A = G.rgg(n, radius, seed=2)
    S = check_simple(A, n)
    pts = G.rgg_points(n, seed=2)
    assert pts.shape == (n, 2) and pts.dtype == np.float64
    assert pts.min() >= 0 and pts.max() < 1
    D = squareform(pdist(pts))
    want = (D < radius) & ~np.eye(n, dtype=bool)
    assert np.array_equal(S.toarray(), want)
    n2, rows, cols = G.rgg_edges(n, radius, seed=2)
    assert n2 == n and np.all(D[rows, cols] < radius)


@pytest.mark.parametrize("degree", [8, 16, 32])
def test_rgg_radius_gives_the_mean_degree(degree):
    """rgg_radius: the mean degree within the boundary's loss (a strip of
    width r loses about a quarter of a disc: 4 r of the unit square's
    perimeter)."""
    n = 20_000
    r = G.rgg_radius(n, degree)
    assert r == pytest.approx(np.sqrt(degree / (np.pi * n)))
    mean = G.rgg(n, r, seed=1).nvals / n
    assert degree * (1 - 2 * r) * 0.97 < mean < degree * 1.03
    assert G.from_spec(f"rgg:{n}:d{degree}@1").isequal(G.rgg(n, r, seed=1))
    with pytest.raises(ValueError, match="degree must be > 0"):
        G.rgg_radius(n, 0)


def test_rgg_small():
    assert G.rgg(0, 0.5).shape == (0, 0)
    assert G.rgg(1, 0.5).nvals == 0
    assert G.rgg(2, 2.0).nvals == 2  # every pair within sqrt(2)


# --- internal: CSR building from keys vs from pairs (ids beyond 2^32) -----------------------

def test_csr_from_keys_and_pairs_agree():
    rng = np.random.default_rng(0)
    n = 50
    s = rng.integers(0, n, 3000).astype(np.uint64)
    d = rng.integers(0, n, 3000).astype(np.uint64)
    sink = G._SymSink(n, s.size)
    sink.put(0, s[:1000], d[:1000])
    sink.put(1000, s[1000:], d[1000:])
    p1, i1 = sink.csr()
    rows = np.concatenate([s, d]).astype(np.int64)
    cols = np.concatenate([d, s]).astype(np.int64)
    rows[np.concatenate([s == d, s == d])] = -1
    p2, i2 = G._csr_from_pairs(n, rows, cols)
    assert np.array_equal(p1, p2) and np.array_equal(i1, i2)
    keep = rows >= 0
    S = sp.coo_array((np.ones(keep.sum()), (rows[keep], cols[keep])), shape=(n, n)).tocsr()
    S.sum_duplicates()
    assert not S.diagonal().any()
    assert np.array_equal(S.indptr, p1) and np.array_equal(S.indices, i1)


# --- specs ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("spec,name,kwargs", [
    ("kron:6", "kron", {"scale": 6, "edgefactor": 16, "seed": 0}),
    ("kron:6:4", "kron", {"scale": 6, "edgefactor": 4, "seed": 0}),
    ("kron:6@3", "kron", {"scale": 6, "edgefactor": 16, "seed": 3}),
    ("KRON:6:4@3", "kron", {"scale": 6, "edgefactor": 4, "seed": 3}),
    ("urand:7:16", "urand", {"scale": 7, "degree": 16, "seed": 0}),
    ("urand:7", "urand", {"scale": 7, "degree": 16, "seed": 0}),
    ("grid:4x5", "grid2d", {"rows": 4, "cols": 5, "drop": 0.0, "seed": 0}),
    ("grid:10x12:0.25@7", "grid2d", {"rows": 10, "cols": 12, "drop": 0.25, "seed": 7}),
    ("grid:3x4x5", "grid3d", {"nx": 3, "ny": 4, "nz": 5, "drop": 0.0, "seed": 0}),
    ("rgg:200:0.1", "rgg", {"n": 200, "radius": 0.1, "seed": 0}),
    ("rgg:200:d8@4", "rgg", {"n": 200, "radius": float(np.sqrt(8 / (np.pi * 200))), "seed": 4}),
    ("moore:4x5", "moore2d", {"rows": 4, "cols": 5}),
    ("moore:3x4x5", "moore3d", {"nx": 3, "ny": 4, "nz": 5}),
    (" rgg:200:1e-1@2 ", "rgg", {"n": 200, "radius": 0.1, "seed": 2}),
    ("kronh:7:4@2", "kronh", {"scale": 7, "edgefactor": 4, "seed": 2}),
    ("KRONH:6", "kronh", {"scale": 6, "edgefactor": 16, "seed": 0}),
    ("urandh:7", "urandh", {"scale": 7, "degree": 16, "seed": 0}),
])
def test_from_spec_forms(spec, name, kwargs):
    assert G.parse_spec(spec) == (name, kwargs)
    assert same_graph(G.from_spec(spec), getattr(G, name)(**kwargs))


@pytest.mark.parametrize("spec", [
    "", "kron", "kron:", "kron:x", "kron:6:", "kron:6:4:2", "kron:99", "kron:-1", "kron:6@",
    "kron:6@-1", "kron:6@x", "kron:6@1@2", "urand:5:-2", "urand:5.5", "grid:4", "grid:4x",
    "grid:1x2x3x4", "grid:4x4:1.5", "grid:4x4:", "rgg:100", "rgg:100:0", "rgg:100:-0.1",
    "rgg:1e3:0.1", "rgg:100:d0", "rgg:100:d", "moore:4", "moore:4x4:0.1", "moore:4x4@1",
    "moore:1x2x3x4", "ring:5", "kron 6", None, 16, "kronh:99", "kronh:", "urandh:5:-2",
    "kronhh:5", "urandh:5.5",
])
def test_from_spec_rejects(spec):
    with pytest.raises(ValueError) as e:
        G.from_spec(spec)
    msg = str(e.value)
    assert "\n" not in msg
    assert repr(spec if isinstance(spec, str) else repr(spec)) in msg
    assert "kron:SCALE" in msg and "rgg:N:RADIUS" in msg and "@SEED" in msg


def test_cli_example_specs_parse():
    assert G.parse_spec("kron:20") == ("kron", {"scale": 20, "edgefactor": 16, "seed": 0})
    assert G.parse_spec("grid:2048x2048")[0] == "grid2d"
    assert G.parse_spec("grid:64x64x64")[0] == "grid3d"
    assert G.parse_spec("rgg:100000:0.01") == ("rgg", {"n": 100000, "radius": 0.01, "seed": 0})


# --- argument checks ------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: G.kron(-1), lambda: G.kron(41), lambda: G.kron(3.5), lambda: G.kron(True),
    lambda: G.kron("5"), lambda: G.kron(4, edgefactor=-1), lambda: G.kron(4, seed=-1),
    lambda: G.kron_edges(41), lambda: G.urand(-1), lambda: G.urand(4, degree=-2),
    lambda: G.urand_edges(4, degree=1.5), lambda: G.grid2d(-1, 3), lambda: G.grid2d(3, 3, drop=1.5),
    lambda: G.grid2d(3, 3, drop=-0.1), lambda: G.grid2d(3, 3, drop=float("nan")),
    lambda: G.grid2d_edges(3, 3.5), lambda: G.grid3d(2, 2, -2), lambda: G.grid3d(2, 2, 2, drop=2),
    lambda: G.rgg(-5, 0.1), lambda: G.rgg(10, 0), lambda: G.rgg(10, -0.1),
    lambda: G.rgg(10, float("inf")), lambda: G.rgg(10, "x"), lambda: G.rgg_edges(10, 0),
    lambda: G.rgg_points(-1), lambda: G.moore2d(-1, 3), lambda: G.moore3d(2, 2.5, 2),
    lambda: G.moore3d_edges(2, 2, -1), lambda: G.rgg_radius(0, 8), lambda: G.rgg_radius(10, "x"),
    lambda: G.kronh(-1), lambda: G.kronh(41), lambda: G.kronh(4, seed=-1),
    lambda: G.kronh_edges(4, edgefactor=1.5), lambda: G.urandh(4, degree=-2),
    lambda: G.urandh_edges(41),
])
def test_bad_arguments(call):
    with pytest.raises(ValueError):
        call()


def test_integral_floats_accepted():
    assert same_graph(G.kron(5.0, edgefactor=4.0), G.kron(5, edgefactor=4))
    assert same_graph(G.grid2d(np.int64(3), 4), G.grid2d(3, 4))


# --- random weights ------------------------------------------------------------------------------

def test_random_weights_symmetric_seeded_in_range():
    A = G.from_spec("kron:9@1")
    W = G.random_weights(A, 3, 9, seed=7)
    S = W.to_scipy()
    assert W.dtype == np.int64 and same_graph(W, A)
    assert (S != S.T).nnz == 0  # both directions of an edge weigh the same
    assert np.unique(W.values).tolist() == list(range(3, 10))  # every value, none outside
    assert W.isequal(G.random_weights(A, 3, 9, seed=7))
    assert not W.isequal(G.random_weights(A, 3, 9, seed=8))
    # pinned: the weights are part of what a seed means (the CLI's --weights)
    assert W.values[:8].tolist() == [9, 9, 5, 9, 8, 8, 3, 6]
    F = G.random_weights(A, 0.5, 2.5, seed=7)
    assert F.dtype == np.float64 and 0.5 <= F.values.min() and F.values.max() < 2.5
    f = F.to_scipy()
    assert (f != f.T).nnz == 0
    assert G.random_weights(A, 5, 5).values.tolist() == [5] * A.nvals


def test_random_weights_directed_and_views():
    A = bg.Matrix.from_coo([0, 1, 2, 2], [1, 0, 0, 3], nrows=4, ncols=4)
    W = G.random_weights(A, 0, 1000, seed=1)
    w = dict(zip(zip(*(x.tolist() for x in W.to_coo()[:2])), W.values.tolist()))
    assert w[(0, 1)] == w[(1, 0)] and w[(2, 0)] != w[(0, 1)]
    # the weight belongs to the unordered pair: the transpose's entries keep theirs
    WT = G.random_weights(A.T, 0, 1000, seed=1)
    assert WT.isequal(W.T.copy())
    V = G.random_weights(bg.Matrix.from_coo([0], [1], [9.5], nrows=2, ncols=2), 1, 2)
    assert V.dtype == np.int64  # A's values are replaced


@pytest.mark.parametrize("lo, hi, match", [
    (5, 1, "lo <= hi"), (1.0, float("inf"), "finite"), (True, 3, "number"),
    ("1", 2, "number"), (-(2 ** 63), 2 ** 63 - 1, "wider than int64"),
])
def test_random_weights_errors(lo, hi, match):
    with pytest.raises(bg.InvalidValue, match=match):
        G.random_weights(G.grid2d(2, 2), lo, hi)
    with pytest.raises(bg.InvalidValue, match="seed"):
        G.random_weights(G.grid2d(2, 2), 1, 2, seed=-1)


@pytest.mark.parametrize("spec", ["kron:6", "urand:6", "kronh:6", "urandh:6", "grid:5x6",
                                  "grid:3x3x3", "rgg:200:0.1",
                                  "moore:5x6", "moore:3x3x3"])
def test_symmetry_is_recorded(spec):
    """Every generated graph is known to be symmetric without a transpose built."""
    from bitgraph.algorithms import _common

    for A in (G.from_spec(spec), G.from_spec(spec, device="cpu")):
        assert _common.known(A, "symmetric") is True and _common.known(A.T, "symmetric") is True
        assert _common.in_csr(A) is A._csr()  # A' not built


@pytest.mark.parametrize("lo, hi, ncols", [(1000, 301_000, 1 << 31), (0, 5000, 5000),
                                           (64, 64, 100), (0, 1, 1)])
def test_row_ranges_keep_six_bytes_a_key(lo, hi, ncols):
    """The parallel generator's staging (_RowRanges): keys of rows lo..hi
    kept 6 bytes each on the host, in ranges of at most 2^(48 - column bits)
    rows (three or more at 2^31 columns over 300,000 rows), given in any
    order (put) or sorted (put_sorted), duplicates within and across the
    calls; the CSR is that of the distinct keys."""
    rng = np.random.default_rng(lo + hi)
    k = 0 if hi == lo else 20_000
    rows = rng.integers(lo, hi, k, dtype=np.uint64) if k else np.zeros(0, np.uint64)
    cols = rng.integers(0, ncols, k, dtype=np.uint64) if k else np.zeros(0, np.uint64)
    keys = (rows << np.uint64(32)) | cols
    keys = np.concatenate([keys, keys[: k // 3]])  # duplicates across the calls
    r = G._RowRanges(lo, hi, keys.size, 4096, ncols)
    if ncols == 1 << 31:
        assert len(r.parts) >= 3
        assert all(int(b) - int(a) <= 1 << 17 for a, b in zip(r.cuts[:-1], r.cuts[1:]))
    half = keys.size // 2
    r.put(keys[:half])
    r.put_sorted(np.sort(keys[half:]))
    staged = sum(p.nbytes for part in r.parts for p in part)
    assert staged == 6 * r.staged
    indptr, indices = r.csr(np)
    want = np.unique(keys)
    assert indptr.tolist() == np.concatenate(
        [[0], np.cumsum(np.bincount((want >> np.uint64(32)).astype(np.int64) - lo,
                                    minlength=hi - lo))]).tolist()
    assert indices.dtype == np.int32
    assert indices.tolist() == (want & np.uint64(0xFFFF_FFFF)).astype(np.int64).tolist()
    assert all(not part for part in r.parts)  # the host copies went


def test_row_ranges_refuse_columns_past_int32():
    with pytest.raises(bg.InvalidValue, match="column ids below 4294967296 do not fit"):
        G._RowRanges(0, 10, 10, 4, 1 << 32)
