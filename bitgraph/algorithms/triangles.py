"""Triangle counting: the total, or each vertex's number of triangles.

The graph is taken as undirected: the pattern of A + A', self-loops
dropped (``_common.undirected_csr(A, self_loops=False)``); edge values are
ignored. Two methods:

- ``"mxm"``: the GraphBLAS formulation through the public API, with L the
  strictly lower triangle: ``C<L> = L plus.pair L'`` then a reduce
  (LAGraph's "Sandia dot"); ``plan`` runs it as B2SR ``bmm_bin_bin_sum``
  where tiles fill, masked dot products on CSR otherwise. C(u,v) counts
  the triangles w < v < u, so per vertex (as graphblas-algorithms does)
  t = rowsum(C) + colsum(C) + rowsum(D) with ``D<U> = U plus.pair L'``,
  U = L', which counts each triangle at its smallest vertex.
- ``"ordered"``: one numba kernel (``kernels/cpu/components.py``,
  ``ordered_count``): each triangle w < v < u is found once, at its middle
  vertex v, as a w of L(u) stamped in a bitmap of L(v), for u > v among
  v's neighbours; it stops in L(u) at v. Work: the wedges of L, sum over
  u of |L(u)|^2 / 2, no output matrix, no mask.
- ``"tensor_core"``: ``"mxm"`` with the product asked of the B2SR bit
  matrix product (``mxm(..., method="bits")``): ``bmm_bin_bin_sum`` on
  the GPU's tensor cores for a graph on CUDA (L is built on the host and
  moved), the B2SR bit kernel on the CPU; tile ``settings.Plan.bits_tile``
  or the sampling profile's.
- ``"auto"``: ``"ordered"`` on the CPU: 4-6x faster than ``"mxm"`` on
  kron, urand and grids at scales 16-18 (``python benchmarks/run.py
  --algo triangle_count``); ``"mxm"`` builds C and merges it with the mask.
  On CUDA ``settings.Triangles.cuda_method`` (``"ordered"``: no output
  matrix, no mask, one pass over L's edges; not yet measured against the
  masked product on a GPU).

On a CUDA graph every method runs on the GPU. L (natural or degree order)
is built on the host once, from a host copy of A, and kept on the GPU in
A's slots (``tc_L``, ``tc_L_relabelled``, see ``lower_matrix``);
``"mxm"`` and ``"tensor_core"`` run the same masked products there, and
``"ordered"`` is the fused kernel ``kernels/cuda/triangles.cu``: a thread
per edge (u, v) of L intersects L(u) before v with L(v) (merge, or binary
search of the shorter list in the longer), totals summed in int64, per
vertex by atomics on an int64 array (each triangle at its three vertices).

Relabelling by degree (gapbs ``tc.cc``, ``WorthRelabelling``): on a
skewed graph, vertices renumbered by descending degree make L(u) the
neighbours of u of higher degree (at most sqrt(2m)), cutting the wedges
from sum of d(u)^2 to sum of d(u) sqrt(m) at worst (kron-20: 1.2e9
wedges instead of 1.2e10). ``relabel="auto"`` follows gapbs: relabel when the
average degree (undirected edges per vertex) is at least 10 and the mean
of 1000 sampled non-zero degrees exceeds 1.3 times their median. The
relabelled graph is cached on A (like its other derived formats).
"""

from __future__ import annotations

import numpy as np

from bitgraph.algorithms._common import cached, check_graph, undirected_csr

__all__ = ["triangle_count", "worth_relabelling", "lower_matrix", "METHODS"]

METHODS = ("auto", "mxm", "ordered", "tensor_core")


def triangle_count(A, *, per_vertex=False, method="auto", relabel="auto", stats=None):
    """The number of triangles of the undirected graph A + A' (self-loops
    ignored): an int, or with ``per_vertex`` an int64 Vector (an entry for
    every vertex, on the graph's device) of the triangles through each
    vertex, as ``networkx.triangles``.

    stats: a ``bitgraph.Stats`` to fill with the method run (and its kernel;
    on CUDA the ordered kernel's ``kernel_ms``).
    method: ``"auto"``, ``"mxm"`` (masked ``L plus.pair L'``, public API),
    ``"ordered"`` (fused kernel) or ``"tensor_core"`` (the mxm on the B2SR
    bit product); every method runs on a graph on CUDA too. relabel:
    ``"auto"`` (gapbs's degree skew test, ``settings.Triangles``), True or
    False: count on the graph renumbered by descending degree. See the
    module docstring.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 0, 1, 1, 2], [1, 2, 2, 3, 3], nrows=5, ncols=5)
    >>> triangle_count(A)
    2
    >>> triangle_count(A, per_vertex=True).to_dense().tolist()
    [1, 2, 2, 1, 0]
    >>> triangle_count(A, method="mxm", relabel=True), triangle_count(A, method="tensor_core")
    (2, 2)
    """
    from bitgraph import settings

    check_graph(A, "triangle_count", cuda=True)
    if method not in METHODS:
        raise ValueError(f"triangle_count: unknown method {method!r}; expected"
                         f" one of {METHODS}")
    if relabel not in ("auto", True, False):
        raise ValueError(f"triangle_count: relabel must be 'auto', True or"
                         f" False, got {relabel!r}")
    cfg = settings.current()
    rules = cfg.triangles
    device = A.device
    if method == "auto":
        method = rules.cuda_method if device == "cuda" else "ordered"
        if method not in METHODS[1:]:
            raise ValueError(f"triangle_count: settings.triangles.cuda_method must be one of"
                             f" {METHODS[1:]}, got {method!r}")
    # the undirected pattern without loops, built on the host (a CUDA graph
    # is copied there once per derived array not yet cached on it)
    host = _Host(A)
    if relabel == "auto":
        relabel = cached(A, "tc_worth_relabelling",
                         lambda: worth_relabelling(host.U().indptr, rules=rules))
    relabel = bool(relabel)
    if stats is not None:  # what ran (bitgraph.Stats), LAGraph's reported method
        stats.method = method
        stats.metrics["relabel"] = relabel
        if method == "ordered":
            stats.ran(("tc", "csr", device, "ordered"))
    if method in ("mxm", "tensor_core"):
        tri = _mxm(A, host, per_vertex, relabel, "bits" if method == "tensor_core" else "auto")
    elif device == "cuda":
        tri = _ordered_cuda(A, host, per_vertex, relabel, cfg, stats)
    else:
        tri = _ordered(A, host.U(), per_vertex, relabel, rules)
    if not per_vertex:
        return int(tri)
    from bitgraph.vector import Vector

    return Vector.from_dense(tri, device=device)  # on the graph's device


class _Host:
    """The host side of A for one call: A itself on the CPU, else its copy
    there, made on first use (only when something is not cached on A)."""

    def __init__(self, A):
        self.A = A
        self._cpu = A if A.device == "cpu" else None

    def cpu(self):
        if self._cpu is None:
            self._cpu = self.A.to("cpu")
        return self._cpu

    def U(self):
        """The pattern of A + A' without the diagonal, sorted rows (cached
        on A for a CPU graph; on the host copy of a CUDA one)."""
        return undirected_csr(self.cpu(), self_loops=False)


def worth_relabelling(indptr, *, seed=0, rules=None) -> bool:
    """gapbs's test for a dense enough, skewed enough degree distribution.

    indptr: the row pointer of a symmetric CSR without self-loops (each
    undirected edge stored twice); rules: the ``settings.Triangles`` (None:
    the current ones).

    >>> import numpy as np
    >>> worth_relabelling(np.arange(0, 200, 20)), worth_relabelling(np.arange(0, 20, 2))
    (False, False)
    """
    if rules is None:
        from bitgraph import settings

        rules = settings.current().triangles
    indptr = np.asarray(indptr)
    n = indptr.size - 1
    if n <= 0 or (int(indptr[-1]) // 2) // n < rules.min_average_degree:
        return False
    degree = np.diff(indptr)
    nonzero = np.flatnonzero(degree)  # gapbs samples vertices with edges
    rng = np.random.default_rng(seed)
    sample = np.sort(degree[nonzero[rng.integers(0, nonzero.size, min(rules.samples, n))]])
    return bool(sample.mean() / rules.skew > sample[sample.size // 2])


def _ordered(A, U, per_vertex, relabel, rules):
    from bitgraph.kernels import registry

    degree_order = registry.lookup("tc", fmt="csr", device="cpu", variant="degree_order")
    lower_ends = registry.lookup("tc", fmt="csr", device="cpu", variant="lower_ends")

    count = registry.lookup("tc", fmt="csr", device="cpu", variant="ordered")
    if relabel:
        rank, indptr, indices, mid = cached(A, "tc_degree_order",
                                            lambda: degree_order(U.indptr, U.indices))
        tri = count(indptr, indices, mid, per_vertex=per_vertex, grain=rules.grain)
        return tri[rank] if per_vertex else tri  # back to the original ids
    mid = cached(A, "tc_lower_ends", lambda: lower_ends(U.indptr, U.indices))
    return count(U.indptr, U.indices, mid, per_vertex=per_vertex, grain=rules.grain)


def _lower(indptr, indices, mid):
    """The CSR arrays of rows ``indices[indptr[u]:mid[u]]`` (compacted)."""
    n = mid.size
    start = indptr[:-1].astype(np.int64)
    length = mid.astype(np.int64) - start
    L_indptr = np.zeros(n + 1, np.int64)
    np.cumsum(length, out=L_indptr[1:])
    pos = np.arange(int(L_indptr[-1]), dtype=np.int64)
    pos += np.repeat(start - L_indptr[:-1], length)
    return L_indptr.astype(indptr.dtype), indices[pos]


def lower_matrix(A, relabel, host=None):
    """(rank, L): L the strictly lower triangle of the undirected pattern of
    A (rows sorted) as a structure-only Matrix on A's device, renumbered by
    descending degree when ``relabel`` (rank[u] the new id of u, on A's
    device; None without relabelling). Built on the host (``degree_order``
    or ``lower_ends``), moved, cached on A (slots ``tc_L``,
    ``tc_L_relabelled``): a CUDA graph keeps its L on the GPU.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 0, 1], [1, 2, 2], nrows=3, ncols=3)
    >>> rank, L = lower_matrix(A, False)
    >>> rank is None, L.to_coo()[:2]
    (True, (array([1, 2, 2]), array([0, 0, 1])))
    """
    from bitgraph.formats.csr import CSR
    from bitgraph.kernels import registry
    from bitgraph.matrix import Matrix

    host = _Host(A) if host is None else host

    def build():
        degree_order = registry.lookup("tc", fmt="csr", device="cpu", variant="degree_order")
        lower_ends = registry.lookup("tc", fmt="csr", device="cpu", variant="lower_ends")
        U = host.U()
        if relabel:
            rank, indptr, indices, mid = degree_order(U.indptr, U.indices)
        else:
            rank, indptr, indices = None, U.indptr, U.indices
            mid = lower_ends(indptr, indices)
        L_indptr, L_indices = _lower(indptr, indices, mid)
        L = Matrix._from_csr(CSR(L_indptr, L_indices, None, U.nrows, U.ncols)).to(A.device)
        if rank is not None and A.device != "cpu":
            from bitgraph.device import asdevice

            rank = asdevice(rank, A.device, "triangle_count")
        return rank, L

    return cached(A, "tc_L_relabelled" if relabel else "tc_L", build)


def _ordered_cuda(A, host, per_vertex, relabel, cfg, stats):
    """The ordered count on the GPU over L's edges (``kernels/cuda/triangles``)."""
    from bitgraph.kernels import registry

    count = registry.lookup("tc", fmt="csr", device="cuda", variant="ordered")
    rank, L = lower_matrix(A, relabel, host)
    c = L._csr()
    # L compacted: row u's lower part is all of it, mid = indptr[1:]
    tri = count(c.indptr, c.indices, c.indptr[1:], per_vertex=per_vertex,
                merge_ratio=cfg.triangles.merge_ratio, cfg=cfg.cuda, stats=stats)
    return tri[rank] if per_vertex and relabel else tri  # back to the original ids


def _mxm(A, host, per_vertex, relabel, method):
    """The masked-product count on A's device; ``method`` the mxm's."""
    import bitgraph as bg

    rank, L = lower_matrix(A, relabel, host)
    # C<L> = L plus.pair L': C(u,v) = |{w < v : w ~ u, w ~ v}| for v < u
    C = bg.mxm(L, L.T, bg.PLUS_PAIR, mask=L.S, method=method)
    if not per_vertex:
        total = bg.reduce(C)
        return 0 if total is None else int(total)
    # D<U> = U plus.pair L', U = L': D(v,u) = |{v < w < u : w ~ v, w ~ u}|
    Ut = bg.transpose(L)
    D = bg.mxm(Ut, L.T, bg.PLUS_PAIR, mask=Ut.S, method=method)
    # each triangle w < v < u: at u by C's rows, at v by C's columns, at w
    # by D's rows (dense int64 arrays on A's device)
    tri = sum(bg.reduce(X, by=by).to_dense(0).astype(np.int64)
              for X, by in ((C, "rows"), (C, "cols"), (D, "rows")))
    return tri[rank] if relabel else tri
