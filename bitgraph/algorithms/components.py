"""Connected components: every vertex labelled by the smallest vertex id of
its component.

A directed graph gives its weakly connected components (edges followed
both ways: the pattern of A + A'); self-loops and edge values are ignored.
Two methods:

- ``"fastsv"``: FastSV (Zhang, Azad, Hu, "FastSV: a distributed-memory
  connected component algorithm with fast convergence", SIAM PP 2020), as
  LAGraph's ``LG_CC_FastSV5``, written with the public API: a parent
  vector f, grandparents gf = f(f), and per round

      mngf = min(gf, A min.second gf)        (min grandparent of the neighbours)
      f(f(u)) = min(f(f(u)), mngf(u))        (stochastic hooking)
      f = min(f, mngf)                       (aggressive hooking)
      f = min(f, gf)                         (shortcutting)
      gf = f(f)

  until gf stops changing. It runs wherever ``mxv`` does; it is the
  reference the fused kernel is tested against.
- ``"afforest"``: Afforest (gapbs ``cc.cc``): union-find with lock-free
  links (compare-and-swap), two sampling rounds over one neighbour per
  vertex, then the remaining edges (on a graph known to be symmetric,
  only those of vertices outside the largest partial component); one
  numba kernel (``kernels/cpu/components.py``) on A's own CSR: a link
  ignores direction, so no symmetrised copy is needed.
- ``"auto"``: ``"afforest"`` on the CPU: at most one pass over the edges
  against FastSV's several ``mxv`` and vector ops per round, 10-50x
  faster at scales 16-20 (``python benchmarks/run.py --algo
  connected_components``). FastSV is kept for devices without the fused
  kernel.

Both give the smallest id of each component with no relabel pass: in
FastSV every f(u) only decreases and stays an id of u's component, so the
component's smallest id m keeps f(m) = m and is the root of the final star;
in Afforest a link only points a root at a smaller id, so the root of each
final tree is the smallest id in it.
"""

from __future__ import annotations

import numpy as np

from bitgraph.algorithms._common import cached, check_graph, is_symmetric, known, undirected_csr

__all__ = ["connected_components", "number_connected_components", "METHODS"]

METHODS = ("auto", "fastsv", "afforest")


def connected_components(A, *, method="auto", stats=None):
    """Component labels: an int64 Vector with an entry for every vertex, the
    smallest vertex id of its (weakly) connected component.

    stats: a ``bitgraph.Stats`` to fill with the method run (and its kernel).
    method: ``"auto"``, ``"fastsv"`` (public-API FastSV) or ``"afforest"``
    (fused union-find kernel); see the module docstring.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([1, 3, 4], [4, 2, 1], nrows=6, ncols=6)
    >>> connected_components(A).to_dense().tolist()
    [0, 1, 2, 2, 1, 5]
    >>> connected_components(A, method="fastsv").to_dense().tolist()
    [0, 1, 2, 2, 1, 5]
    """
    check_graph(A, "connected_components")
    if method not in METHODS:
        raise ValueError(f"connected_components: unknown method {method!r};"
                         f" expected one of {METHODS}")
    if method == "auto":
        method = "afforest"
    if stats is not None:  # what ran (bitgraph.Stats)
        stats.method = method
        if method == "afforest":
            stats.ran(("cc", "csr", "cpu", "afforest"))
    if method == "fastsv":
        labels = _fastsv(A)
    else:
        labels = _afforest(A)
    from bitgraph.vector import Vector

    return Vector.from_dense(labels)


def number_connected_components(A) -> int:
    """The number of (weakly) connected components; an isolated vertex is one.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 2], [1, 3], nrows=5, ncols=5)
    >>> number_connected_components(A)
    3
    """
    check_graph(A, "number_connected_components")
    labels = _afforest(A)
    # a component's label is its smallest id: one vertex per component has
    # label == id
    return int(np.count_nonzero(labels == np.arange(labels.size)))


def _afforest(A) -> np.ndarray:
    from bitgraph import settings
    from bitgraph.kernels import registry
    from bitgraph.matrix import TransposedMatrix

    if isinstance(A, TransposedMatrix):
        A = A.T  # the same weak components, without building A's transpose
    # Union-find ignores edge directions, so A's own CSR gives the weak
    # components: no symmetrised copy. Only a graph known to be symmetric
    # lets the largest component skip its edges in the last round; proving
    # symmetry here would cost a transpose (seconds on kron-20) to save
    # ~0.1 s, so it is used only when already known.
    c = A._csr()
    kernel = registry.lookup("cc", fmt="csr", device="cpu", variant="afforest")
    comp = kernel(c.indptr, c.indices, skip_largest=bool(known(A, "symmetric")),
                  cfg=settings.current().components)
    return comp.astype(np.int64, copy=False)


def _graph(A):
    """A as a symmetric Matrix (A itself when it is symmetric)."""
    from bitgraph.matrix import Matrix

    if is_symmetric(A):
        return A
    return cached(A, "cc_undirected_matrix", lambda: Matrix._from_csr(undirected_csr(A)))


def _fastsv(A) -> np.ndarray:
    import bitgraph as bg

    G = _graph(A)
    n = G.nrows
    f = bg.Vector.from_dense(np.arange(n, dtype=np.int64))
    gf = f.copy()
    while True:
        # mngf = min(gf, A min.second gf): the smallest grandparent among
        # u and its neighbours (LAGraph starts mngf at gf and accumulates)
        mngf = bg.mxv(G, gf, bg.MIN_SECOND, accum=bg.binary.MIN, out=gf.copy())
        # stochastic hooking: f(f(u)) = min(f(f(u)), mngf(u)). A numpy
        # scatter-min (np.minimum.at): GrB_assign leaves repeated indices
        # undefined (bg.assign keeps the last), and here f repeats a lot.
        fv = f.to_dense()
        np.minimum.at(fv, fv.copy(), mngf.to_dense())
        f = bg.Vector.from_dense(fv)
        # aggressive hooking: f = min(f, mngf)
        f = bg.ewise_add(f, mngf, bg.binary.MIN)
        # shortcutting: f = min(f, gf)
        f = bg.ewise_add(f, gf, bg.binary.MIN)
        # gf = f(f) (an extract with f's values as the index list)
        new_gf = bg.extract(f, f.to_dense())
        if new_gf.isequal(gf):
            break
        gf = new_gf
    return f.to_dense()
