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


def test_sparse_vector_pushes_dense_vector_pulls(chosen):
    A = ring(64)
    bg.mxv(A.T, bg.Vector.from_indices([3], 64), bg.LOR_LAND)
    assert chosen[-1] == ("mxv", "push")
    bg.mxv(A.T, bg.Vector.from_indices(np.arange(0, 64, 2), 64), bg.LOR_LAND)
    assert chosen[-1] == ("mxv", "pull")


def test_triangle_count_takes_the_dot_kernel(chosen):
    # a clique: every wedge closes, so the masked dot products do less work
    n = 30
    r, c = np.nonzero(np.tril(np.ones((n, n), bool), -1))
    L = bg.Matrix.from_coo(r, c, nrows=n, ncols=n)
    C = bg.mxm(L, L.T, bg.PLUS_PAIR, mask=L.S)
    assert ("mxm", "dot") in chosen
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
        old, plan.MXM_METHOD = plan.MXM_METHOD, method
        try:
            results.append(bg.mxm(A, A.T, bg.MIN_PLUS, mask=M.S))
        finally:
            plan.MXM_METHOD = old
    assert results[0].isequal(results[1], check_dtype=True)
