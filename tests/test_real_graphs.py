"""Real graphs (LAGraph test data in tests/data) against python-graphblas:
mxv plus_times, masked any_pair (a BFS step), triangle counting
(C<L> = L plus_pair L'), reduce and transpose. Read with scipy.io.mmread so
these tests do not depend on bitgraph.io."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import bitgraph as bg
import oracle as O
from testdata import data_file, data_files

GRAPHS = [
    "karate.mtx", "jagmesh7.mtx", "bcsstk13.mtx", "west0067.mtx", "west0067_jumbled.mtx", "cryg2500.mtx",
    "pushpull.mtx", "ldbc-directed-example.mtx", "ldbc-undirected-example.mtx", "ldbc-wcc-example.mtx",
    "test_BF.mtx", "olm1000.mtx", "A.mtx", "structure.mtx", "tree-example.mtx", "msf1.mtx",
    "LFAT5_hypersparse.mtx", "skew_fp64.mtx", "matrix_int8.mtx", "lp_afiro.mtx", "empty.mtx",
]


def test_graphs_are_every_wellformed_file():
    assert sorted(GRAPHS) == data_files(exclude="mangled*")


def _mmread(path):
    """scipy.io.mmread, or (for files it rejects: comments or blank lines between
    entries, as in west0067_jumbled.mtx) a plain reader of coordinate files."""
    try:
        return sp.coo_array(scipy.io.mmread(str(path)))
    except ValueError:
        lines = path.read_text().splitlines()
        header = lines[0].lower().split()
        body = [ln.split() for ln in lines[1:] if ln.strip() and not ln.lstrip().startswith("%")]
        nr, nc, _ = map(int, body[0])
        ent = body[1:]
        r = np.array([int(e[0]) - 1 for e in ent], np.int64)
        c = np.array([int(e[1]) - 1 for e in ent], np.int64)
        if header[3] == "pattern":
            v = np.ones(r.size, bool)
        else:
            v = np.array([float(e[2]) for e in ent], np.int64 if header[3] == "integer" else np.float64)
        if header[4] in ("symmetric", "skew-symmetric"):
            off = r != c
            sign = -1 if header[4] == "skew-symmetric" else 1
            r, c, v = np.r_[r, c[off]], np.r_[c, r[off]], np.r_[v, sign * v[off]]
        return sp.coo_array((v, (r, c)), shape=(nr, nc))


def _load(name):
    path = data_file(name)
    S_ = _mmread(path)
    S_.sum_duplicates()
    r, c, v = S_.row.astype(np.int64), S_.col.astype(np.int64), S_.data
    pattern = "pattern" in path.read_text(errors="ignore").splitlines()[0]
    if pattern:
        v = None
    elif v.dtype.kind not in "biuf":
        v = v.real
    A = bg.Matrix.from_coo(r, c, v, S_.shape[0], S_.shape[1])
    g = O.gb_matrix(r, c, v, S_.shape[0], S_.shape[1], np.bool_ if v is None else v.dtype)
    return A, g


@pytest.fixture(params=GRAPHS)
def graph(request):
    return _load(request.param) + (request.param,)


def test_loaded_equal(graph):
    A, g, name = graph
    O.assert_same(A, g, op_info=name)


def test_mxv_plus_times(graph):
    A, g, name = graph
    rng = np.random.default_rng(0)
    n = A.ncols
    for dens in (0.01, 0.5, 1.0):
        idx = np.flatnonzero(rng.random(n) < dens)
        u = bg.Vector.from_coo(idx, rng.integers(-4, 5, idx.size).astype(np.float64), n)
        gu = O.to_gb(u)
        O.check_op(lambda: bg.mxv(A, u, "plus_times"), lambda: O.ref_mxv(g, gu, "plus_times"),
                   op_info=f"{name} mxv plus_times density {dens}")
        if A.nrows == A.ncols:
            O.check_op(lambda: bg.vxm(u, A, "plus_times"), lambda: O.ref_vxm(gu, g, "plus_times"),
                       op_info=f"{name} vxm plus_times density {dens}")


def test_bfs_any_pair_masked(graph):
    """A few BFS levels: q<!visited, replace> = A' any.pair q, compared each step."""
    A, g, name = graph
    if A.nrows != A.ncols or A.nrows == 0:
        pytest.skip("not square")
    n = A.nrows
    q = bg.Vector.from_indices([0], n)
    visited = q.copy()
    for level in range(6):
        gq, gv = O.to_gb(q), O.to_gb(visited)
        nxt = O.check_op(lambda: bg.mxv(A.T, q, "any_pair", mask=~visited.S, replace=True),
                         lambda: O.ref_mxv(g, gq, "any_pair", transpose=True, mask=~gv.S, replace=True),
                         op_info=f"{name} bfs level {level}")
        if nxt.nvals == 0:
            break
        visited = bg.ewise_add(visited, nxt, "lor")
        q = nxt
        # the same step with the lor_land semiring and a vector mask that is a value mask
        O.check_op(lambda: bg.mxv(A.T, q, "lor_land", mask=~visited), lambda: O.ref_mxv(
            g, O.to_gb(q), "lor_land", transpose=True, mask=~O.to_gb(visited).V), op_info=f"{name} lor_land {level}")


def test_triangle_count(graph):
    A, g, name = graph
    if A.nrows != A.ncols:
        pytest.skip("not square")
    # symmetrise the structure, then L = tril(A, -1)
    S = bg.ewise_add(bg.apply(A, "one"), bg.apply(A.T, "one"), "lor") if A.dtype != np.bool_ else \
        bg.ewise_add(A, A.T, "lor")
    L = bg.select(S, "tril", -1)
    gS = O.to_gb(S)
    gL = gS.select(O.gb_select("tril", O.npt(gS.dtype)), -1).new()
    O.assert_same(L, gL, op_info=f"{name} tril")
    C = O.check_op(lambda: bg.mxm(L, L.T, "plus_pair", mask=L.S), lambda: O.ref_mxm(gL, gL, "plus_pair", transpose_b=True, mask=gL.S),
                   op_info=f"{name} triangles")
    ntri = bg.reduce(C, "plus")
    gC = gL.mxm(gL.T, O.gb_semiring("plus_pair", O.npt(gL.dtype))).new(mask=gL.S)
    ref = gC.reduce_scalar(O.gb_monoid("plus", O.npt(gC.dtype))).new()
    assert (ntri is None and ref.is_empty) or int(ntri) == int(ref.value), (ntri, ref.value)


def test_reduce(graph):
    A, g, name = graph
    for mono in ("plus", "min", "max", "any"):
        if O.gb_monoid(mono, A.dtype) is None:
            continue
        for by in (None, "rows", "cols"):
            O.check_op(lambda: bg.reduce(A, mono, by=by), lambda: O.ref_reduce(g, mono, by=by),
                       op_info=f"{name} reduce {mono} by {by}")


def test_transpose(graph):
    A, g, name = graph
    O.check_op(lambda: bg.transpose(A), lambda: O.ref_transpose(g), op_info=f"{name} transpose")
    O.assert_same(A.T.copy(), g.T.new(), op_info=f"{name} A.T")
    O.check_op(lambda: bg.mxv(A.T, bg.Vector.from_dense(np.ones(A.nrows)), "plus_times"),
               lambda: O.ref_mxv(g, O.gb_vector(np.arange(A.nrows), np.ones(A.nrows), A.nrows, np.float64),
                                 "plus_times", transpose=True),
               op_info=f"{name} A.T mxv")
