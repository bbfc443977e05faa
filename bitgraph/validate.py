"""Validators for the graph algorithms' results (LAGraph's ``LG_check_bfs``).

One checker per algorithm, shared by the tests, the command line
(``--check``) and the benchmarks. Each computes a simple, independent
reference (``scipy.sparse.csgraph``, or a scipy sparse product for
triangles, a plain power iteration for PageRank) and compares; answers
that are not unique are checked by their defining property, not by
equality: a BFS tree's parents (each an in-neighbour one level up),
component labels (the same partition, whatever the labels). A failed check
raises :class:`~bitgraph.errors.ValidationError` (an ``AssertionError``,
so it reads as a failure under pytest) naming the first bad vertex, the
value found and the value expected; a passed check returns None.

=====================================================  ==========================
``check_bfs(A, source, levels, parents=None)``         levels, and a BFS tree
``check_parents(A, source, levels, parents)``          the BFS tree alone
``check_msbfs(A, sources, levels)``                    one row of levels a source
``check_sssp(A, source, distances, rtol=1e-9)``        shortest-path distances
``check_components(A, labels, smallest=False)``        weakly connected components
``check_triangles(A, triangles)``                      a total, or per vertex
``check_pagerank(A, ranks, alpha=0.85, atol=1e-4)``    ranks within an L1 tolerance
``reference_levels(A, sources)``                       the BFS levels they compare to
=====================================================  ==========================

``A`` is a :class:`~bitgraph.Matrix` (or ``A.T``, or a scipy sparse matrix;
on any device), whose entry (i, j) is the edge i -> j, whatever its value.
Results may be :class:`~bitgraph.Vector` s (absent: unreached) or arrays
(numpy or CuPy; -1 unreached for levels and parents, inf for distances).

>>> import bitgraph as bg
>>> from bitgraph import validate
>>> A = bg.Matrix.from_coo([0, 1, 1, 3], [1, 2, 3, 4], nrows=6, ncols=6)
>>> levels, parents = bg.algorithms.bfs(A, 0, parents=True)
>>> validate.check_bfs(A, 0, levels, parents)
>>> validate.check_bfs(A, 0, [0, 1, 2, 2, 2, -1])
Traceback (most recent call last):
...
bitgraph.errors.ValidationError: bfs level of vertex 4 is 2, the reference BFS from 0 says 3 (1 vertex differs)

Importing this module imports numpy only; scipy is imported by a check.
"""

from __future__ import annotations

import numpy as np

from .errors import DimensionMismatch, InvalidIndex, ValidationError

__all__ = ["check_bfs", "check_parents", "check_msbfs", "check_sssp", "check_components",
           "check_triangles", "check_pagerank", "reference_levels"]

# reference BFSs from at most this many (sources x vertices) at a time:
# scipy returns one dense float64 row per source
_REFERENCE_CELLS = 1 << 24


# --------------------------------------------------------------------- inputs

class _Graph:
    """A's CSR on the host: int64 ``indptr`` / ``indices`` (sorted within
    each row, no duplicates) and ``values`` (None: structure-only)."""

    def __init__(self, A, where):
        import scipy.sparse as sp

        from .device import host

        if sp.issparse(A):
            S = sp.csr_array(A, copy=True)
            S.sum_duplicates()  # sorts the rows too
            indptr, indices, values = S.indptr, S.indices, S.data
            n, ncols = S.shape
        else:
            if getattr(A, "device", "cpu") != "cpu":
                A = A.to("cpu")
            c = A._csr()
            indptr, indices = host(c.indptr), host(c.indices)
            values = None if c.values is None else host(c.values)
            n, ncols = A.nrows, A.ncols
        if n != ncols:
            raise DimensionMismatch(f"{where}: the graph must be square, got {n} x {ncols}")
        self.n = int(n)
        self.indptr = np.asarray(indptr, np.int64)
        self.indices = np.asarray(indices, np.int64)
        self.values = values

    def pattern(self, data=None):
        """scipy CSR of the graph: every stored entry an edge of length 1
        (or ``data``; csgraph reads a stored 0 as an edge of length 0)."""
        import scipy.sparse as sp

        d = np.ones(self.indices.size) if data is None else data
        return sp.csr_array((d, self.indices, self.indptr), shape=(self.n, self.n))

    def has_edges(self, rows, cols):
        """For each k, whether (rows[k], cols[k]) is stored: a binary search
        in each row, all k at once (O(k log max degree), no O(m) keys)."""
        lo = self.indptr[rows]
        end = self.indptr[rows + 1]
        hi = end.copy()
        while True:
            active = lo < hi
            if not active.any():
                break
            mid = (lo + hi) // 2
            right = active & (self.indices[np.minimum(mid, max(self.indices.size - 1, 0))] < cols)
            lo = np.where(right, mid + 1, lo)
            hi = np.where(active & ~right, mid, hi)
        ok = lo < end
        ok[ok] = self.indices[lo[ok]] == cols[ok]
        return ok


def _dense(x, fill, n, what, where):
    """A Vector (absent entries ``fill``) or an array, as a 1-D numpy array
    of length ``n``."""
    from .device import host

    if hasattr(x, "to_dense"):  # a Vector
        if getattr(x, "device", "cpu") != "cpu":
            x = x.to("cpu")
        x = x.to_dense(fill)
    a = host(x)
    if a.shape != (n,):
        raise DimensionMismatch(f"{where}: {what} must hold one entry per vertex ({n}),"
                                f" got shape {a.shape}")
    return a


def _source(s, n, where, name="source"):
    s = int(s)
    if not 0 <= s < n:
        raise InvalidIndex(f"{where}: {name} {s} is out of range for a graph of {n} vertices")
    return s


def _differ(k):
    return f"{k} vertex differs" if k == 1 else f"{k} vertices differ"


# ----------------------------------------------------------------------- BFS

def reference_levels(A, sources):
    """BFS levels from ``sources`` by ``scipy.sparse.csgraph`` (hops along
    stored entries, whatever their values), int64, -1 where unreached: a
    1-D array for one source, one row per source for a list.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=4, ncols=4)
    >>> reference_levels(A, 0).tolist()
    [0, 1, 2, -1]
    >>> reference_levels(A, [1, 3]).tolist()
    [[-1, 0, 1, -1], [-1, -1, -1, 0]]
    """
    g = A if isinstance(A, _Graph) else _Graph(A, "reference_levels")
    one = np.ndim(sources) == 0
    src = np.atleast_1d(np.asarray(sources, np.int64))
    for s in src.tolist():
        _source(s, g.n, "reference_levels")
    out = np.empty((src.size, g.n), np.int64)
    if src.size and g.n:
        import scipy.sparse.csgraph as csg

        P = g.pattern()
        step = max(1, _REFERENCE_CELLS // g.n)
        for i in range(0, src.size, step):
            d = csg.shortest_path(P, method="D", unweighted=True, directed=True,
                                  indices=src[i:i + step])
            out[i:i + step] = np.where(np.isfinite(d), d, -1).reshape(-1, g.n)
    return out[0] if one else out


def check_bfs(A, source, levels, parents=None):
    """Check BFS levels from ``source`` (and, given, a BFS tree ``parents``).

    levels must equal :func:`reference_levels` exactly (-1 or absent:
    unreached); parents as in :func:`check_parents`. Raises
    :class:`~bitgraph.errors.ValidationError` naming the first bad vertex.

    >>> import bitgraph as bg
    >>> A = bg.io.generators.grid2d(3, 3)
    >>> check_bfs(A, 4, *bg.algorithms.bfs(A, 4, parents=True))
    """
    where = "check_bfs"
    g = _Graph(A, where)
    s = _source(source, g.n, where)
    got = _dense(levels, -1, g.n, "levels", where).astype(np.int64)
    want = reference_levels(g, s)
    bad = np.flatnonzero(got != want)
    if bad.size:
        v = int(bad[0])
        raise ValidationError(f"bfs level of vertex {v} is {got[v]}, the reference BFS from {s}"
                              f" says {want[v]} ({_differ(bad.size)})")
    if parents is not None:
        _check_parents(g, s, got, parents, "check_bfs")


def check_parents(A, source, levels, parents):
    """Check that ``parents`` is a BFS tree of ``levels`` (taken as right):
    the source is its own parent; every other reached vertex v has a parent
    p with ``levels[p] == levels[v] - 1`` and an edge p -> v (an
    in-neighbour one level up); unreached vertices have none (-1, or absent
    from a Vector). Any valid tree passes.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 0, 1], [1, 2, 3], nrows=4, ncols=4)
    >>> check_parents(A, 0, [0, 1, 1, 2], [0, 0, 0, 1])
    >>> check_parents(A, 0, [0, 1, 1, 2], [0, 0, 0, 2])
    Traceback (most recent call last):
    ...
    bitgraph.errors.ValidationError: bfs parent of vertex 3 is 2, which has no edge to it
    """
    where = "check_parents"
    g = _Graph(A, where)
    s = _source(source, g.n, where)
    lv = _dense(levels, -1, g.n, "levels", where).astype(np.int64)
    _check_parents(g, s, lv, parents, where)


def _check_parents(g, s, levels, parents, where):
    n = g.n
    p = _dense(parents, -1, n, "parents", where).astype(np.int64)
    if p[s] != s:
        raise ValidationError(f"bfs parent of the source {s} is {p[s]}, not itself")
    reached = levels >= 0
    bad = np.flatnonzero(~reached & (p != -1))
    if bad.size:
        v = int(bad[0])
        raise ValidationError(f"bfs parent of vertex {v} is {p[v]}, but the vertex is unreached")
    v = np.flatnonzero(reached)
    v = v[v != s]
    u = p[v]
    bad = np.flatnonzero((u < 0) | (u >= n))
    if bad.size:
        i = int(bad[0])
        raise ValidationError(f"bfs parent of vertex {v[i]} (level {levels[v[i]]}) is {u[i]},"
                              f" not a vertex of the graph ({n} vertices)")
    bad = np.flatnonzero(levels[u] != levels[v] - 1)
    if bad.size:
        i = int(bad[0])
        raise ValidationError(f"bfs parent of vertex {v[i]} (level {levels[v[i]]}) is {u[i]},"
                              f" at level {levels[u[i]]}, not {levels[v[i]] - 1}")
    bad = np.flatnonzero(~g.has_edges(u, v))
    if bad.size:
        i = int(bad[0])
        raise ValidationError(f"bfs parent of vertex {v[i]} is {u[i]}, which has no edge to it")


def check_msbfs(A, sources, levels):
    """Check many BFSs at once: row i of ``levels`` (a (len(sources), n)
    array, numpy or CuPy, -1 unreached) equals the levels from
    ``sources[i]``.

    >>> import bitgraph as bg
    >>> A = bg.io.generators.grid2d(3, 3)
    >>> check_msbfs(A, [0, 8, 0], bg.algorithms.msbfs(A, [0, 8, 0]))
    """
    from .device import host

    where = "check_msbfs"
    g = _Graph(A, where)
    src = np.atleast_1d(np.asarray(sources, np.int64))
    got = host(levels)
    if got.shape != (src.size, g.n):
        raise DimensionMismatch(f"{where}: levels must have one row per source and one column"
                                f" per vertex ({src.size} x {g.n}), got shape {got.shape}")
    step = max(1, _REFERENCE_CELLS // max(g.n, 1))
    for i0 in range(0, src.size, step):
        want = reference_levels(g, src[i0:i0 + step])
        bad = np.argwhere(got[i0:i0 + step] != want)
        if bad.size:
            i, v = (int(x) for x in bad[0])
            raise ValidationError(f"msbfs level of vertex {v} from source {src[i0 + i]} (row"
                                  f" {i0 + i}) is {got[i0 + i, v]}, the reference BFS says"
                                  f" {want[i, v]}")


# ---------------------------------------------------------------------- SSSP

def check_sssp(A, source, distances, *, rtol=1e-9):
    """Check shortest-path distances from ``source``: the same vertices
    reached as ``scipy.sparse.csgraph``'s Dijkstra (Bellman-Ford with a
    negative weight) and the same distances within ``rtol``. A
    structure-only A has edges of length 1. ``distances``: a Vector (absent:
    unreached) or an array (inf: unreached).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], [1.0, 2.0, 5.0], nrows=3, ncols=3)
    >>> check_sssp(A, 0, bg.algorithms.sssp(A, 0))
    """
    import scipy.sparse.csgraph as csg

    where = "check_sssp"
    g = _Graph(A, where)
    s = _source(source, g.n, where)
    got = _dense(_float_vector(distances), np.inf, g.n, "distances", where).astype(np.float64)
    if g.values is None:
        want = csg.shortest_path(g.pattern(), method="D", unweighted=True, indices=s)
    else:
        w = np.asarray(g.values, np.float64)
        method = "BF" if w.size and w.min() < 0 else "D"
        want = csg.shortest_path(g.pattern(w), method=method, directed=True, indices=s)
    reached, ref_reached = np.isfinite(got), np.isfinite(want)
    ok = (reached == ref_reached)
    ok[reached & ref_reached] = np.isclose(got[reached & ref_reached],
                                           want[reached & ref_reached], rtol=rtol, atol=0)
    bad = np.flatnonzero(~ok)
    if bad.size:
        v = int(bad[0])
        raise ValidationError(f"sssp distance of vertex {v} is {got[v]}, the reference from {s}"
                              f" says {want[v]} ({_differ(bad.size)}; inf: unreached)")


def _float_vector(x):
    """A distance Vector as float64 (absent: inf); arrays pass through."""
    if not hasattr(x, "to_coo"):
        return x
    if getattr(x, "device", "cpu") != "cpu":
        x = x.to("cpu")
    d = np.full(x.size, np.inf)
    i, vals = x.to_coo()
    d[i] = vals
    return d


# ---------------------------------------------------------------- components

def check_components(A, labels, *, smallest=False):
    """Check connected-component labels (weakly connected for a directed
    A): vertices share a label exactly when ``scipy.sparse.csgraph``
    puts them in the same component; the labels themselves may be any
    values. ``smallest=True`` also requires each label to be the smallest
    vertex id of its component (what ``connected_components`` returns).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 2], [1, 3], nrows=5, ncols=5)
    >>> check_components(A, [7, 7, 1, 1, 9])
    >>> check_components(A, [7, 7, 1, 1, 7])
    Traceback (most recent call last):
    ...
    bitgraph.errors.ValidationError: components: vertices 0 and 4 are in different components but both have label 7
    """
    import scipy.sparse.csgraph as csg

    where = "check_components"
    g = _Graph(A, where)
    n = g.n
    if hasattr(labels, "to_dense") and labels.nvals != labels.size:
        present = np.zeros(labels.size, bool)
        present[_host_indices(labels)] = True
        v = int(np.flatnonzero(~present)[0])
        raise ValidationError(f"components: vertex {v} has no label")
    got = _dense(labels, -1, n, "labels", where)
    if n == 0:
        return
    ncomp, comp = csg.connected_components(g.pattern(), directed=True, connection="weak")
    first = np.full(ncomp, n, np.int64)  # each component's smallest vertex
    np.minimum.at(first, comp, np.arange(n))
    rep = got[first]  # the label of each component's smallest vertex
    bad = np.flatnonzero(got != rep[comp])
    if bad.size:
        v = int(bad[0])
        u = int(first[comp[v]])
        raise ValidationError(f"components: vertex {v} has label {got[v]} but vertex {u}, in the"
                              f" same component, has label {got[u]}")
    order = np.argsort(rep, kind="stable")
    dup = np.flatnonzero(rep[order][1:] == rep[order][:-1])
    if dup.size:
        a, b = sorted((int(first[order[dup[0]]]), int(first[order[dup[0] + 1]])))
        raise ValidationError(f"components: vertices {a} and {b} are in different components"
                              f" but both have label {got[a]}")
    if smallest:
        bad = np.flatnonzero(rep != first)
        if bad.size:
            c = int(bad[0])
            raise ValidationError(f"components: the label of vertex {first[c]} is {rep[c]}, not"
                                  f" {first[c]}, the smallest vertex id of its component")


def _host_indices(v):
    from .device import host

    return host(v.indices())


# ----------------------------------------------------------------- triangles

def check_triangles(A, triangles):
    """Check a triangle count of A taken as undirected (the pattern of
    A + A', self-loops dropped): ``triangles`` is the total (an int) or
    the count at each vertex (a Vector or an array), against a scipy sparse
    product ``((U @ U) * U)``.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 3], nrows=4, ncols=4)
    >>> check_triangles(A, 1)
    >>> check_triangles(A, [1, 1, 1, 0])
    """
    import scipy.sparse as sp

    where = "check_triangles"
    g = _Graph(A, where)
    P = g.pattern()
    U = ((P + P.T) != 0).astype(np.int64)
    U.setdiag(0)
    U.eliminate_zeros()
    U = sp.csr_array(U)
    per = np.asarray((U @ U).multiply(U).sum(axis=1)).ravel().astype(np.int64) // 2
    total = int(per.sum()) // 3
    if not hasattr(triangles, "to_dense") and np.ndim(triangles) == 0:
        if int(triangles) != total:
            raise ValidationError(f"triangle count is {int(triangles)}, the reference says {total}")
        return
    got = _dense(triangles, 0, g.n, "per-vertex counts", where).astype(np.int64)
    bad = np.flatnonzero(got != per)
    if bad.size:
        v = int(bad[0])
        raise ValidationError(f"triangles at vertex {v}: {got[v]}, the reference says {per[v]}"
                              f" ({_differ(bad.size)})")


# ------------------------------------------------------------------ PageRank

def check_pagerank(A, ranks, *, alpha=0.85, personalization=None, atol=1e-4):
    """Check PageRank values (networkx's semantics: edge i -> j of weight
    A(i, j), 1 for a structure-only A; dangling vertices' rank spread as
    the personalization, uniform by default): the L1 distance to a
    reference power iteration run to convergence (a change below 1e-13)
    is at most ``atol``. ``ranks``: a Vector, an array, or the result of
    :func:`~bitgraph.algorithms.link_analysis` itself. The message names the
    vertex of the largest difference.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 1], nrows=4, ncols=4)
    >>> check_pagerank(A, bg.algorithms.pagerank(A, tol=1e-10), atol=1e-8)
    """
    where = "check_pagerank"
    g = _Graph(A, where)
    n = g.n
    got = _dense(getattr(ranks, "ranks", ranks), 0.0, n, "ranks", where).astype(np.float64)
    if n == 0:
        return
    p = np.full(n, 1.0 / n) if personalization is None else \
        np.asarray(personalization, np.float64) / np.sum(personalization)
    w = np.ones(g.indices.size) if g.values is None else np.asarray(g.values, np.float64)
    M = g.pattern(w)
    out = np.asarray(M.sum(axis=1)).ravel()
    dangles = out == 0
    inv = np.zeros(n)
    inv[~dangles] = 1.0 / out[~dangles]
    MT = M.T.tocsr()
    x = np.full(n, 1.0 / n)
    for _ in range(100_000):
        nxt = alpha * (MT @ (x * inv) + x[dangles].sum() * p) + (1.0 - alpha) * p
        change = np.abs(nxt - x).sum()
        x = nxt
        if change < 1e-13:
            break
    diff = np.abs(got - x)
    if not diff.sum() <= atol:  # NaN ranks fail too
        v = int(np.nanargmax(np.where(np.isnan(diff), np.inf, diff)))
        raise ValidationError(f"pagerank: the ranks are {diff.sum():.3g} (L1) from the reference,"
                              f" more than atol={atol:g}; the largest difference is at vertex"
                              f" {v}: {got[v]:.6g}, the reference says {x[v]:.6g}")
