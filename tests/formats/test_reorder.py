"""bitgraph.formats.reorder: valid permutations for every method on generated
and real graphs, permute against scipy, invariants of algorithms under
reordering (BFS levels, triangles, PageRank), Gorder and Jaccard-with-windows
against plain-Python references, and the properties Blest wants (RCM lowers
the bandwidth, Jaccard regroups shuffled cliques into aligned blocks)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.errors import DimensionMismatch
from bitgraph.formats import reorder as R
from bitgraph.formats.csr import CSR, from_coo
from strategies import n_examples
from testdata import data_file

REAL = ["karate.mtx", "jagmesh7.mtx", "pushpull.mtx", "west0067.mtx", "bcsstk13.mtx"]

# small windows so that several windows and short last clusters occur
KW = {"jaccard": {"sigma": 4, "window": 16}, "blest": {"sigma": 4, "window": 16}, "gorder": {"window": 3}}


# --------------------------------------------------------------------------------------
# graphs
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GraphSpec:
    """A random graph, rebuilt by ``build()`` (the repr is a reproducer)."""
    n: int
    density: float
    symmetric: bool
    loops: bool
    seed: int
    values: bool = False
    int64: bool = False

    def build(self) -> CSR:
        rng = np.random.default_rng(self.seed)
        n = self.n
        m = int(self.density * n * n)
        r = rng.integers(0, max(n, 1), m)
        c = rng.integers(0, max(n, 1), m)
        if not self.loops:
            keep = r != c
            r, c = r[keep], c[keep]
        if self.symmetric:
            r, c = np.r_[r, c], np.r_[c, r]
        key = np.unique(r * max(n, 1) + c)
        r, c = key // max(n, 1), key % max(n, 1)
        vals = rng.integers(-9, 10, r.size).astype(np.float64) if self.values else None
        A = from_coo(r, c, vals, n, n)
        if self.int64:
            A = CSR(A.indptr.astype(np.int64), A.indices.astype(np.int64), A.values, n, n)
        return A


@st.composite
def graph_specs(draw, max_n=60):
    return GraphSpec(
        n=draw(st.integers(0, max_n)),
        density=draw(st.sampled_from([0.0, 0.02, 0.06, 0.15, 0.4])),
        symmetric=draw(st.booleans()),
        loops=draw(st.booleans()),
        seed=draw(st.integers(0, 2**32 - 1)),
        values=draw(st.booleans()),
        int64=draw(st.booleans()),
    )


def _read(name) -> CSR:
    path = data_file(name)
    return bg.io.read(path)._csr()


def _grid(k: int) -> CSR:
    idx = np.arange(k * k).reshape(k, k)
    r = np.r_[idx[:, :-1].ravel(), idx[:-1, :].ravel()]
    c = np.r_[idx[:, 1:].ravel(), idx[1:, :].ravel()]
    return from_coo(np.r_[r, c], np.r_[c, r], None, k * k, k * k)


def _ring(n: int) -> CSR:
    i = np.arange(n)
    return from_coo(np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i], None, n, n)


def _scipy(A: CSR):
    vals = np.ones(A.nnz) if A.values is None else A.values
    return sp.csr_array((vals, A.indices, A.indptr), shape=(A.nrows, A.ncols))


def _assert_perm(p, n):
    assert isinstance(p, np.ndarray) and p.dtype == np.int64 and p.shape == (n,)
    assert np.array_equal(np.sort(p), np.arange(n))


def _all_perms(A):
    return {m: R.reorder(A, m, **KW.get(m, {})) for m in R.METHODS}


# --------------------------------------------------------------------------------------
# valid permutations, determinism
# --------------------------------------------------------------------------------------
@settings(max_examples=n_examples(60))
@given(graph_specs())
def test_every_method_gives_a_permutation(spec):
    A = spec.build()
    perms = _all_perms(A)
    for m, p in perms.items():
        _assert_perm(p, A.nrows)
    # default windows too (one window, clusters of 8)
    _assert_perm(R.blest_order(A), A.nrows)
    # deterministic
    assert np.array_equal(R.gorder(A, **KW["gorder"]), perms["gorder"])
    assert np.array_equal(R.jaccard_windows(A, **KW["jaccard"]), perms["jaccard"])
    assert np.array_equal(R.blest_order(A, **KW["blest"]), perms["blest"])


@pytest.mark.parametrize("name", REAL)
def test_real_graphs_permutations_and_invariants(name):
    A = _read(name)
    for m, p in _all_perms(A).items():
        _assert_perm(p, A.nrows)
        _check_invariants(A, p, f"{name} {m}", triangles=A.nrows <= 4000)
    assert np.array_equal(R.gorder(A), R.gorder(A))
    assert np.array_equal(R.jaccard_windows(A), R.jaccard_windows(A))


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_and_empty(n):
    empty = from_coo(np.zeros(0, np.int64), np.zeros(0, np.int64), None, n, n)
    loop = from_coo(np.arange(n), np.arange(n), None, n, n)  # self-loops only
    for A in (empty, loop):
        for m, p in _all_perms(A).items():
            _assert_perm(p, n)
        assert R.is_social_like(A) is False
        B = R.permute(A, np.arange(n)[::-1])
        assert B.nnz == A.nnz


def test_matrix_input():
    A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
    _assert_perm(R.reorder(A, "gorder"), 3)
    _assert_perm(R.rcm(A), 3)


# --------------------------------------------------------------------------------------
# permute
# --------------------------------------------------------------------------------------
@settings(max_examples=n_examples(100))
@given(graph_specs(), st.integers(0, 2**32 - 1))
def test_permute_matches_scipy_and_round_trips(spec, seed):
    A = spec.build()
    n = A.nrows
    p = np.random.default_rng(seed).permutation(n).astype(np.int64)
    B = R.permute(A, p)
    assert B.indptr.dtype == A.indptr.dtype and B.indices.dtype == A.indices.dtype
    assert (B.values is None) == (A.values is None)
    for i in range(n):  # sorted rows, no duplicates
        row = B.indices[B.indptr[i]:B.indptr[i + 1]]
        assert np.all(np.diff(row) > 0)
    ref = _scipy(A)[p][:, p]
    got = _scipy(B)
    assert (abs(ref - got)).sum() == 0 and ref.nnz == got.nnz
    # back with the inverse: exactly the same CSR
    C = R.permute(B, R.inverse(p))
    assert np.array_equal(C.indptr, A.indptr) and np.array_equal(C.indices, A.indices)
    if A.values is not None:
        assert np.array_equal(C.values, A.values)


def test_inverse_and_to_original():
    p = np.array([3, 0, 2, 1])
    inv = R.inverse(p)
    assert np.array_equal(inv[p], np.arange(4)) and np.array_equal(p[inv], np.arange(4))
    x_new = np.array([30.0, 0.0, 20.0, 10.0])  # x_new[new] = value of old vertex perm[new]
    assert R.to_original(x_new, p).tolist() == [0.0, 10.0, 20.0, 30.0]


# --------------------------------------------------------------------------------------
# invariants of algorithms under reordering
# --------------------------------------------------------------------------------------
def _pagerank(S, damping=0.85, iters=60):
    n = S.shape[0]
    out = np.asarray(S.sum(axis=1)).ravel()
    x = np.full(n, 1.0 / n)
    for _ in range(iters):
        share = np.divide(x, out, out=np.zeros(n), where=out > 0)
        x = (1 - damping) / n + damping * (S.T @ share + x[out == 0].sum() / n)
    return x


def _check_invariants(A, p, info, triangles=True):
    from scipy.sparse.csgraph import shortest_path

    n = A.nrows
    if n == 0:
        return
    B = R.permute(A, p)
    inv = R.inverse(p)
    SA = _scipy(CSR(A.indptr, A.indices, None, n, n)).astype(np.float64)
    SB = _scipy(CSR(B.indptr, B.indices, None, n, n)).astype(np.float64)
    # BFS levels (unweighted, directed) from two sources
    for src in {0, n - 1}:
        da = shortest_path(SA, unweighted=True, directed=True, indices=src)
        db = shortest_path(SB, unweighted=True, directed=True, indices=inv[src])
        assert np.array_equal(R.to_original(db, p), da), info
    # PageRank
    assert np.allclose(R.to_original(_pagerank(SB), p), _pagerank(SA), rtol=1e-9, atol=1e-12), info
    # triangles of the symmetrised pattern, no self-loops
    if triangles:
        def tri(S):
            U = ((S + S.T) > 0).astype(np.float64).tolil()
            U.setdiag(0)
            U = U.tocsr()
            return (U @ U).multiply(U).sum() / 6
        assert tri(SA) == tri(SB), info


@settings(max_examples=n_examples(40))
@given(graph_specs(max_n=40))
def test_invariants_random(spec):
    A = spec.build()
    for m, p in _all_perms(A).items():
        _check_invariants(A, p, m)


# --------------------------------------------------------------------------------------
# Gorder and Jaccard-with-windows against plain-Python references
# --------------------------------------------------------------------------------------
def _lists(A):
    n = A.nrows
    out = [set(A.indices[A.indptr[i]:A.indptr[i + 1]].tolist()) - {i} for i in range(n)]
    inn = [set() for _ in range(n)]
    for i in range(n):
        for j in out[i]:
            inn[j].add(i)
    return out, inn


def _check_gorder(A, perm, window, hub):
    """Each pick has the highest score S over the last `window` placed; a
    pick at score 0 is the first unplaced vertex by degree (in + out)."""
    n = A.nrows
    out, inn = _lists(A)
    deg = np.array([len(out[i]) + len(inn[i]) for i in range(n)], np.int64)
    fallback = np.argsort(-deg, kind="stable").tolist()

    def S(u, v):
        common = sum(1 for x in inn[u] & inn[v] if len(out[x]) <= hub)
        return (v in out[u]) + (u in out[v]) + common

    placed = set()
    for i in range(n):
        win = perm[max(0, i - window):i].tolist()
        scores = {u: sum(S(u, v) for v in win) for u in range(n) if u not in placed}
        best = max(scores.values())
        v = int(perm[i])
        assert scores[v] == best, (i, v, scores[v], best)
        if best == 0:
            assert v == next(u for u in fallback if u not in placed)
        placed.add(v)


@settings(max_examples=n_examples(60))
@given(graph_specs(max_n=30), st.integers(1, 6), st.sampled_from([0, 2, 5, 1000]))
def test_gorder_greedy_reference(spec, window, hub):
    A = spec.build()
    perm = R.gorder(A, window=window, hub=hub)
    _assert_perm(perm, A.nrows)
    _check_gorder(A, perm, window, hub)


def _jaccard_ref(A, sigma, window, hub=None):
    n = A.nrows
    out, inn = _lists(A)
    N = inn  # N(x) = column x
    if hub is not None:
        hubs = {y for y in range(n) if len(out[y]) > hub}
        N = [s - hubs for s in N]
    perm = []
    for s in range(0, n, window):
        Q = list(range(s, min(s + window, n)))
        while Q:
            j = Q.pop(0)
            perm.append(j)
            U = set(N[j])
            for _ in range(sigma - 1):
                if not Q:
                    break
                best, bsim = Q[0], Fraction(0)
                for x in Q:
                    inter = len(N[x] & U)
                    if inter and Fraction(inter, len(N[x] | U)) > bsim:
                        best, bsim = x, Fraction(inter, len(N[x] | U))
                Q.remove(best)
                perm.append(best)
                U |= N[best]
    return perm


@settings(max_examples=n_examples(60))
@given(graph_specs(max_n=40), st.sampled_from([(1, 3), (2, 6), (4, 8), (8, 8), (3, 30), (8, 64)]),
       st.sampled_from([None, 1, 4]))
def test_jaccard_reference(spec, sw, hub):
    A = spec.build()
    sigma, window = sw
    perm = R.jaccard_windows(A, sigma=sigma, window=window, hub=hub)
    assert perm.tolist() == _jaccard_ref(A, sigma, window, hub)


# --------------------------------------------------------------------------------------
# the properties Blest wants
# --------------------------------------------------------------------------------------
def _bandwidth(A):
    rows = np.repeat(np.arange(A.nrows), np.diff(A.indptr))
    return int(np.abs(rows - A.indices.astype(np.int64)).max())


def test_rcm_reduces_bandwidth():
    A = _read("jagmesh7.mtx")
    rnd = R.permute(A, np.random.default_rng(0).permutation(A.nrows))
    B = R.permute(rnd, R.rcm(rnd))
    assert _bandwidth(B) < _bandwidth(rnd) // 4
    assert np.array_equal(R.reorder(rnd, "auto"), R.rcm(rnd))  # a mesh is not social-like


def _rcm_reference(A):
    """scipy's reverse Cuthill-McKee in plain Python, its seeds in stable
    degree order: each component's BFS from the first unplaced seed, each
    vertex's unplaced neighbours (row order) stably sorted by degree."""
    ptr, idx = R._sym(R._graph(A))
    deg = np.diff(ptr)
    order, placed = [], set()
    for seed in sorted(range(A.nrows), key=lambda v: deg[v]):
        if seed in placed:
            continue
        placed.add(seed)
        order.append(seed)
        head = len(order) - 1
        while head < len(order):
            i = order[head]
            head += 1
            new = [int(j) for j in idx[ptr[i]:ptr[i + 1]] if j not in placed]
            placed.update(new)
            order += sorted(new, key=lambda v: deg[v])
    return order[::-1]


@settings(max_examples=n_examples(40), deadline=None)
@given(graph_specs())
def test_rcm_is_scipys_with_ties_broken_by_id(spec):
    # the same order on every CPU (scipy's seeds come from an unstable argsort); where that
    # sort keeps ties in id order, scipy's own order
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    A = spec.build()
    got = R.rcm(A)
    assert got.tolist() == _rcm_reference(A)
    ptr, idx = R._sym(R._graph(A))
    deg = np.diff(ptr)
    if A.nrows > 1 and np.array_equal(np.argsort(deg), np.argsort(deg, kind="stable")):
        S = sp.csr_matrix((np.ones(idx.shape[0], np.int8), idx, ptr), shape=(A.nrows, A.nrows))
        assert got.tolist() == reverse_cuthill_mckee(S, symmetric_mode=True).tolist()


def test_rcm_of_ties_only():
    # no entries: every seed has degree 0, placed in id order, then reversed
    assert R.rcm(from_coo(np.zeros(0, np.int64), np.zeros(0, np.int64), None, 5, 5)).tolist() \
        == [4, 3, 2, 1, 0]


@pytest.mark.parametrize("windows", [1, 3])
def test_jaccard_regroups_shuffled_cliques(windows):
    sigma, window = 8, 256
    rng = np.random.default_rng(windows)
    n = windows * window
    clique = np.arange(n) // sigma
    # shuffle the vertex ids within each window
    label = np.concatenate([w * window + rng.permutation(window) for w in range(windows)])
    i, j = np.meshgrid(np.arange(sigma), np.arange(sigma))
    base = (np.arange(n // sigma) * sigma)[:, None]
    r = (base + i.ravel()).ravel()
    c = (base + j.ravel()).ravel()
    keep = r != c
    A = from_coo(label[r[keep]], label[c[keep]], None, n, n)
    perm = R.jaccard_windows(A, sigma=sigma, window=window)
    _assert_perm(perm, n)
    owner = np.empty(n, np.int64)
    owner[label] = clique  # clique of each (shuffled) vertex id
    blocks = owner[perm].reshape(-1, sigma)
    assert np.all(blocks == blocks[:, :1]), "a block of 8 mixes cliques"
    # each block stays in its window
    assert np.all(perm.reshape(windows, -1) // window == np.arange(windows)[:, None])


def test_social_like():
    from bitgraph.__main__ import kron_edges

    n, src, dst = kron_edges(12)
    K = from_coo(src, dst, None, n, n)
    prof = R.degree_profile(K)
    assert prof["social_like"] and R.is_social_like(K)
    assert set(prof) >= {"top1_share", "top10_share", "alpha", "social_like"}
    assert R.is_social_like(_grid(60)) is False
    assert R.is_social_like(_ring(500)) is False
    # a clean power-law tail (Zipf degrees, alpha 2.5): the fit sees it
    d = np.random.default_rng(1).zipf(2.5, 20000)
    rules = bg.settings.Reorder()
    alpha, dmin, ntail, ks = R._power_law_fit(d[d < 20000], rules)
    assert 2.2 < alpha < 2.8 and ks < rules.ks_max


# --------------------------------------------------------------------------------------
# errors
# --------------------------------------------------------------------------------------
def test_errors():
    rect = from_coo(np.array([0]), np.array([3]), None, 2, 4)
    for f in (R.rcm, R.degree_sort, R.gorder, R.jaccard_windows, R.blest_order, R.is_social_like,
              R.degree_profile, lambda a: R.reorder(a, "none"), lambda a: R.permute(a, np.arange(2))):
        with pytest.raises(DimensionMismatch):
            f(rect)
    A = _ring(16)
    with pytest.raises(ValueError, match="multiple of sigma"):
        R.jaccard_windows(A, sigma=8, window=12)
    with pytest.raises(ValueError, match="multiple of sigma"):
        R.reorder(A, "blest", sigma=8, window=20)
    with pytest.raises(ValueError, match="rcm") as e:
        R.reorder(A, "metis")
    assert all(m in str(e.value) for m in R.METHODS)
    with pytest.raises(ValueError, match="not a permutation"):
        R.permute(A, np.zeros(16, np.int64))
    with pytest.raises(DimensionMismatch):
        R.permute(A, np.arange(15))
    with pytest.raises(ValueError):
        R.gorder(A, window=0)
