"""plan's choices: push vs pull for matvec, dot vs Gustavson for masked mxm."""

import numpy as np
import pytest

import bitgraph as bg
from bitgraph import plan


@pytest.fixture
def chosen(monkeypatch):
    """Record the (op, variant) of every kernel plan looks up."""
    seen = []
    real = plan._kernel

    def spy(op, fmt, variant, device="cpu"):
        seen.append((op, variant))
        return real(op, fmt, variant, device)

    monkeypatch.setattr(plan, "_kernel", spy)
    return seen


def ring(n):
    i = np.arange(n)
    return bg.Matrix.from_coo(np.r_[i, (i + 1) % n], np.r_[(i + 1) % n, i], nrows=n, ncols=n)


PULLS = {("mxv", "pull"), ("mxv", "bin_bin_bin"), ("mxv", "bin_bin_full"), ("mxv", "bin_full_full")}


def test_sparse_vector_pushes_dense_vector_pulls(chosen):
    A = ring(64)
    bg.mxv(A.T, bg.Vector.from_indices([3], 64), bg.LOR_LAND)
    assert chosen[-1] == ("mxv", "push")
    bg.mxv(A.T, bg.Vector.from_indices(np.arange(0, 64, 2), 64), bg.LOR_LAND)
    assert chosen[-1] in PULLS


def test_pull_on_bits_where_tiles_are_full(chosen, monkeypatch):
    """auto runs a BFS-like pull on B2SR-32 when its tiles are full (a ring:
    ~21 entries per 32x32 tile), the CSR pull on a scattered graph and for
    counting or value-reading semirings; forced, each family finds its BMV."""
    dense_u = bg.Vector.from_indices(np.arange(0, 256, 2), 256)
    bg.mxv(ring(256).T, dense_u, bg.LOR_LAND)
    assert chosen[-1] == ("mxv", "bin_bin_bin")
    bg.mxv(ring(256).T, dense_u, bg.PLUS_PAIR)
    assert chosen[-1] == ("mxv", "pull")
    bg.mxv(ring(256).T, bg.Vector.from_dense(np.ones(256)), bg.PLUS_TIMES)
    assert chosen[-1] == ("mxv", "pull")
    rng = np.random.default_rng(0)
    n = 4096
    R = bg.Matrix.from_coo(rng.integers(0, n, 8 * n), rng.integers(0, n, 8 * n), nrows=n, ncols=n, dup_op="any")
    bg.mxv(R.T, bg.Vector.from_indices(np.arange(0, n, 2), n), bg.LOR_LAND)
    assert chosen[-1] == ("mxv", "pull")
    bg.mxv(ring(256).T, dense_u, bg.LOR_LAND, method="pull")
    assert chosen[-1] == ("mxv", "pull")
    bg.mxv(ring(256).T, dense_u, bg.LOR_LAND, method="push")
    assert chosen[-1] == ("mxv", "push")
    bg.mxv(ring(256).T, dense_u, bg.PLUS_PAIR, method="bits")
    assert chosen[-1] == ("mxv", "bin_bin_full")
    bg.vxm(bg.Vector.from_dense(np.ones(256)), ring(256), bg.PLUS_TIMES, method="bits")
    assert chosen[-1] == ("mxv", "bin_full_full")
    # the rules are settings: a threshold out of reach keeps a full ring on CSR
    with bg.settings.use(plan={"bits_mxv_min_per_tile": np.inf}):
        bg.mxv(ring(256).T, dense_u, bg.LOR_LAND)
    assert chosen[-1] == ("mxv", "pull")


def test_triangle_count_takes_the_dot_kernel(chosen, monkeypatch):
    # a clique: every wedge closes, so the masked dot products do less work
    n = 30
    r, c = np.nonzero(np.tril(np.ones((n, n), bool), -1))
    L = bg.Matrix.from_coo(r, c, nrows=n, ncols=n)
    # its tiles are full: auto counts them on B2SR (bmm_bin_bin_sum) ...
    C = bg.mxm(L, L.T, bg.PLUS_PAIR, mask=L.S)
    assert chosen == [("mxm", "bin_bin_sum")]
    assert int(bg.reduce(C)) == n * (n - 1) * (n - 2) // 6
    # ... and on CSR, masked dot products rather than Gustavson
    with bg.settings.use(plan={"bits_mxm_min_per_tile": np.inf}):
        C = bg.mxm(L, L.T, bg.PLUS_PAIR, mask=L.S)
    assert chosen[-1] == ("mxm", "dot")
    assert int(bg.reduce(C)) == n * (n - 1) * (n - 2) // 6


def test_unmasked_and_complemented_mxm_take_gustavson(chosen):
    A = ring(16)
    bg.mxm(A, A, bg.PLUS_TIMES)
    bg.mxm(A, A, bg.PLUS_TIMES, mask=~A.S)
    assert chosen == [("mxm", "gustavson"), ("mxm", "gustavson")]


def test_forced_methods_agree():
    rng = np.random.default_rng(7)
    n = 40
    r, c = rng.integers(0, n, 300), rng.integers(0, n, 300)
    A = bg.Matrix.from_coo(r, c, rng.integers(-5, 5, 300), nrows=n, ncols=n, dup_op="plus")
    M = bg.select(A, "offdiag")
    results = []
    for method in ("dot", "gustavson"):
        results.append(bg.mxm(A, A.T, bg.MIN_PLUS, mask=M.S, method=method))
    assert results[0].isequal(results[1], check_dtype=True)
    with pytest.raises(bg.InvalidValue, match="unknown method 'gustafson'.*did you mean 'gustavson'"):
        bg.mxm(A, A.T, bg.MIN_PLUS, method="gustafson")
    with pytest.raises(bg.InvalidValue, match="mxv: unknown method"):
        bg.mxv(A, bg.Vector.from_dense(np.ones(n)), method="dot")
