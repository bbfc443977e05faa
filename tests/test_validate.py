"""bitgraph.validate: every checker passes the library's answers (several
methods, Vectors and arrays, scipy input, A.T) and catches a corrupted one,
naming the vertex and both values; non-unique answers (other BFS trees,
other component labels) pass."""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csg
from graph_strategies import graphs
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph import validate
from bitgraph.errors import BitgraphError, ValidationError


def test_validation_error_is_an_assertion_and_a_bitgraph_error():
    assert issubclass(ValidationError, AssertionError)
    assert issubclass(ValidationError, BitgraphError)


# ----------------------------------------------------------------------- BFS

def _levels_by_queue(A, s):
    """Plain Python BFS over to_coo (independent of scipy and of bitgraph's kernels)."""
    rows, cols, _ = A.to_coo()
    adj = [[] for _ in range(A.nrows)]
    for r, c in zip(rows.tolist(), cols.tolist()):
        adj[r].append(c)
    lv = [-1] * A.nrows
    lv[s] = 0
    q = [s]
    for u in q:
        for v in adj[u]:
            if lv[v] < 0:
                lv[v] = lv[u] + 1
                q.append(v)
    return np.array(lv, np.int64)


@settings(max_examples=60)
@given(g=graphs(max_n=40), data=st.data())
def test_reference_levels_equal_a_plain_queue(g, data):
    A = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    want = _levels_by_queue(A, s)
    np.testing.assert_array_equal(validate.reference_levels(A, s), want)
    np.testing.assert_array_equal(validate.reference_levels(g.scipy(), [s, s])[1], want)
    np.testing.assert_array_equal(validate.reference_levels(A.T, s), _levels_by_queue(A.T.copy(), s))


@settings(max_examples=60)
@given(g=graphs(max_n=40), data=st.data())
def test_check_bfs_passes_every_method(g, data):
    A = g.matrix(bg)
    s = data.draw(st.integers(0, g.n - 1), label="source")
    for method in ("pull", "push", "direction", "blest"):
        lv, par = bg.algorithms.bfs(A, s, parents=True, method=method)
        validate.check_bfs(A, s, lv, par)
        validate.check_bfs(g.scipy(), s, lv.to_dense(-1), par.to_dense(-1))
        validate.check_parents(A, s, lv, par)


def _path_with_shortcut():
    # 0 -> 1 -> 2 -> 3, 0 -> 2, 4 alone; 5 -> 3
    return bg.Matrix.from_coo([0, 1, 2, 0, 5], [1, 2, 3, 2, 3], nrows=6, ncols=6)


def test_check_bfs_names_the_first_wrong_level():
    A = _path_with_shortcut()
    good = [0, 1, 1, 2, -1, -1]
    validate.check_bfs(A, 0, good)
    for bad, msg in [
        ([0, 1, 2, 2, -1, -1], "bfs level of vertex 2 is 2, the reference BFS from 0 says 1 "
                               "(1 vertex differs)"),
        ([0, 1, 1, 2, 3, 0], "level of vertex 4 is 3, the reference BFS from 0 says -1 "
                             "(2 vertices differ)"),
        ([0, 1, 1, -1, -1, -1], "level of vertex 3 is -1, the reference BFS from 0 says 2"),
    ]:
        with pytest.raises(ValidationError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            validate.check_bfs(A, 0, np.array(bad))
    with pytest.raises(bg.DimensionMismatch, match="one entry per vertex"):
        validate.check_bfs(A, 0, [0, 1])
    with pytest.raises(bg.InvalidIndex, match="source 6 is out of range"):
        validate.check_bfs(A, 6, good)


def test_check_parents_accepts_any_tree_and_names_a_bad_parent():
    A = _path_with_shortcut()
    lv = np.array([0, 1, 1, 2, -1, -1])
    validate.check_bfs(A, 0, lv, [0, 0, 0, 2, -1, -1])
    B = bg.Matrix.from_coo([0, 0, 1, 2], [1, 2, 3, 3], nrows=4, ncols=4)
    for tree in ([0, 0, 0, 1], [0, 0, 0, 2]):  # both are BFS trees
        validate.check_parents(B, 0, [0, 1, 1, 2], tree)
    cases = [
        ([1, 0, 0, 2, -1, -1], "bfs parent of the source 0 is 1, not itself"),
        ([0, 0, 0, 2, 2, -1], "bfs parent of vertex 4 is 2, but the vertex is unreached"),
        ([0, 0, 0, -1, -1, -1], "parent of vertex 3 \\(level 2\\) is -1, not a vertex"),
        ([0, 0, 0, 9, -1, -1], "parent of vertex 3 \\(level 2\\) is 9, not a vertex"),
        ([0, 0, 1, 2, -1, -1], "parent of vertex 2 \\(level 1\\) is 1, at level 1, not 0"),
        # vertex 1 is one level above 3, but 1 -> 3 is not an edge
        ([0, 0, 0, 1, -1, -1], "bfs parent of vertex 3 is 1, which has no edge to it"),
    ]
    for par, msg in cases:
        with pytest.raises(ValidationError, match=msg):
            validate.check_parents(A, 0, lv, np.array(par))
    # the edge goes parent -> child: 5 -> 3 exists, 3 -> 5 does not
    C = bg.Matrix.from_coo([3], [5], nrows=6, ncols=6)
    validate.check_parents(C, 3, [-1, -1, -1, 0, -1, 1], [-1, -1, -1, 3, -1, 3])
    with pytest.raises(ValidationError, match="no edge"):
        validate.check_parents(C.T, 3, [-1, -1, -1, 0, -1, 1], [-1, -1, -1, 3, -1, 3])


def test_check_bfs_reads_vectors_with_absent_entries():
    A = _path_with_shortcut()
    lv, par = bg.algorithms.bfs(A, 0, parents=True)
    assert lv.nvals == 4
    validate.check_bfs(A, 0, lv, par)
    # a parent Vector missing a reached vertex
    p = par.to_dense(-1)
    p[3] = -1
    with pytest.raises(ValidationError, match="parent of vertex 3 .* is -1"):
        validate.check_bfs(A, 0, lv, bg.Vector.from_coo(np.flatnonzero(p >= 0), p[p >= 0], size=6))


def test_explicit_zeros_are_edges():
    S = sp.csr_array((np.array([0.0, 0.0]), np.array([1, 2]), np.array([0, 1, 2, 2])), shape=(3, 3))
    assert S.nnz == 2
    validate.check_bfs(S, 0, [0, 1, 2], [0, 0, 1])
    A = bg.Matrix.from_scipy(S)
    validate.check_bfs(A, 0, bg.algorithms.bfs(A, 0))


def test_check_msbfs():
    A = bg.io.generators.from_spec("kron:7")
    src = [0, 5, 5, 100]
    got = bg.algorithms.msbfs(A, src)
    validate.check_msbfs(A, src, got)
    bad = got.copy()
    v = int(np.flatnonzero(bad[2] > 1)[0])
    bad[2, v] += 1
    with pytest.raises(ValidationError, match=f"msbfs level of vertex {v} from source 5 \\(row 2\\)"
                                              f" is {got[2, v] + 1}, the reference BFS says {got[2, v]}"):
        validate.check_msbfs(A, src, bad)
    with pytest.raises(bg.DimensionMismatch, match="one row per source"):
        validate.check_msbfs(A, src[:3], got)


def test_check_msbfs_in_chunks(monkeypatch):
    """The reference runs in chunks of sources; a difference in a later chunk is found."""
    monkeypatch.setattr(validate, "_REFERENCE_CELLS", 256)  # one source at a time
    A = bg.io.generators.from_spec("grid:16x16")
    src = list(range(0, 256, 37))
    got = bg.algorithms.msbfs(A, src)
    validate.check_msbfs(A, src, got)
    got[-1, 0] = 99
    with pytest.raises(ValidationError, match=f"from source {src[-1]} \\(row {len(src) - 1}\\)"):
        validate.check_msbfs(A, src, got)


# ---------------------------------------------------------------------- SSSP

def test_check_sssp():
    A = bg.Matrix.from_coo([0, 1, 0, 2], [1, 2, 2, 3], [1.0, 2.0, 5.0, 0.0], nrows=5, ncols=5)
    d = bg.algorithms.sssp(A, 0)
    validate.check_sssp(A, 0, d)
    validate.check_sssp(A, 0, [0.0, 1.0, 3.0, 3.0, np.inf])
    validate.check_sssp(A, 0, [0.0, 1.0, 3.0 * (1 + 1e-12), 3.0, np.inf])  # within rtol
    with pytest.raises(ValidationError, match="sssp distance of vertex 2 is 5.0, the reference from 0 says 3.0"):
        validate.check_sssp(A, 0, [0.0, 1.0, 5.0, 3.0, np.inf])
    with pytest.raises(ValidationError, match="vertex 4 is 7.0, the reference from 0 says inf"):
        validate.check_sssp(A, 0, [0.0, 1.0, 3.0, 3.0, 7.0])
    with pytest.raises(ValidationError, match="vertex 3 is inf, .* says 3.0"):
        validate.check_sssp(A, 0, [0.0, 1.0, 3.0, np.inf, np.inf])
    # structure-only: hops
    P = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], nrows=3, ncols=3)
    validate.check_sssp(P, 0, bg.algorithms.sssp(P, 0))
    validate.check_sssp(P, 0, [0, 1, 1])


@settings(max_examples=40)
@given(g=graphs(max_n=30, weighted=True), data=st.data())
def test_check_sssp_hypothesis(g, data):
    A = g.matrix(bg)
    if not A.iso and A.nvals and A.values.min() < 0:
        return
    s = data.draw(st.integers(0, g.n - 1), label="source")
    validate.check_sssp(A, s, bg.algorithms.sssp(A, s))


# ---------------------------------------------------------------- components

@settings(max_examples=60)
@given(g=graphs(max_n=40))
def test_check_components_passes_any_labels_of_the_partition(g):
    A = g.matrix(bg)
    labels = bg.algorithms.connected_components(A)
    validate.check_components(A, labels, smallest=True)
    # relabel each component by a random distinct value: still the same partition
    d = labels.to_dense()
    uniq, inv = np.unique(d, return_inverse=True)
    perm = np.random.default_rng(0).permutation(uniq.size) * 3 + 1000
    validate.check_components(A, perm[inv])
    if uniq.size > 1:
        with pytest.raises(ValidationError, match="not .* the smallest vertex id"):
            validate.check_components(A, perm[inv], smallest=True)
        merged = d.copy()
        merged[merged == uniq[1]] = uniq[0]
        with pytest.raises(ValidationError, match="different components but both have label"):
            validate.check_components(A, merged)
    sizes = np.bincount(inv)
    if (sizes > 1).any():
        big = int(np.flatnonzero(sizes > 1)[0])
        split = d.copy()
        v = int(np.flatnonzero(inv == big)[-1])
        split[v] = -5
        with pytest.raises(ValidationError, match=f"vertex {v} has label -5 but vertex"):
            validate.check_components(A, split)


def test_check_components_weak_and_missing_labels():
    A = bg.Matrix.from_coo([0, 2], [1, 1], nrows=4, ncols=4)  # 0 -> 1 <- 2: one weak component
    validate.check_components(A, [0, 0, 0, 3], smallest=True)
    with pytest.raises(ValidationError, match="vertex 2 has label 2 but vertex 0, in the same"
                                              " component, has label 0"):
        validate.check_components(A, [0, 0, 2, 3])
    with pytest.raises(ValidationError, match="vertex 3 has no label"):
        validate.check_components(A, bg.Vector.from_coo([0, 1, 2], [0, 0, 0], size=4))


# ----------------------------------------------------------------- triangles

@settings(max_examples=60)
@given(g=graphs(max_n=40))
def test_check_triangles(g):
    A = g.matrix(bg)
    total = bg.algorithms.triangle_count(A)
    pv = bg.algorithms.triangle_count(A, per_vertex=True)
    validate.check_triangles(A, total)
    validate.check_triangles(A, pv)
    with pytest.raises(ValidationError, match=f"triangle count is {total + 1}, the reference says {total}"):
        validate.check_triangles(A, total + 1)
    d = pv.to_dense(0)
    d[-1] += 1
    with pytest.raises(ValidationError, match=f"triangles at vertex {g.n - 1}: {d[-1]}, the reference"
                                              f" says {d[-1] - 1}"):
        validate.check_triangles(A, d)


# ------------------------------------------------------------------ PageRank

def test_check_pagerank_against_networkx():
    nx = pytest.importorskip("networkx")
    A = bg.io.generators.from_spec("kron:7@2")
    G = nx.from_scipy_sparse_array(A.to_scipy().astype(np.float64), create_using=nx.DiGraph)
    ref = nx.pagerank(G, alpha=0.9, tol=1e-12)
    r = np.array([ref[i] for i in range(A.nrows)])
    validate.check_pagerank(A, r, alpha=0.9, atol=1e-8)
    validate.check_pagerank(A, bg.algorithms.pagerank(A, alpha=0.9, tol=1e-10), alpha=0.9, atol=1e-6)
    bad = r.copy()
    bad[[3, 7]] += [1e-3, 2e-3]
    with pytest.raises(ValidationError, match="largest difference is at vertex 7"):
        validate.check_pagerank(A, bad, alpha=0.9)
    with pytest.raises(ValidationError):  # another alpha: other ranks
        validate.check_pagerank(A, r, alpha=0.5)


def test_check_pagerank_dangling_weights_personalization():
    nx = pytest.importorskip("networkx")
    rows, cols, w = [0, 0, 1, 3], [1, 2, 2, 0], [1.0, 3.0, 0.5, 2.0]  # 2 and 4 dangle
    A = bg.Matrix.from_coo(rows, cols, w, nrows=5, ncols=5)
    G = nx.DiGraph()
    G.add_nodes_from(range(5))
    G.add_weighted_edges_from(zip(rows, cols, w))
    p = {0: 1.0, 4: 3.0}
    ref = nx.pagerank(G, personalization=p, tol=1e-13)
    validate.check_pagerank(A, [ref[i] for i in range(5)], personalization=[1, 0, 0, 0, 3], atol=1e-9)
    with pytest.raises(ValidationError):
        validate.check_pagerank(A, [ref[i] for i in range(5)], atol=1e-9)  # uniform teleport
    with pytest.raises(ValidationError, match="vertex 1: nan"):
        validate.check_pagerank(A, [ref[0], np.nan, ref[2], ref[3], ref[4]])


# ------------------------------------------------------------------ inputs

def test_scipy_input_and_non_square():
    S = csg.csgraph_from_dense(np.array([[0, 1, 0], [0, 0, 1], [0, 0, 0]]))
    validate.check_bfs(S, 0, [0, 1, 2])
    with pytest.raises(bg.DimensionMismatch, match="square"):
        validate.check_bfs(sp.csr_array(np.ones((2, 3))), 0, [0, 1])
    # duplicate COO entries in scipy input are one edge
    D = sp.coo_array((np.ones(3), ([0, 0, 1], [1, 1, 2])), shape=(3, 3))
    validate.check_bfs(D, 0, [0, 1, 2], [0, 0, 1])
