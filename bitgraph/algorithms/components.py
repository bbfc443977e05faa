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
- ``"auto"``: ``"afforest"``: at most one pass over the edges against
  FastSV's several ``mxv`` and vector ops per round, 10-50x faster on the
  CPU at scales 16-20 (``python benchmarks/run.py --algo
  connected_components``).

On a CUDA graph both run on the GPU and give the same labels: Afforest is
``kernels/cuda/components.cu`` (on a graph whose ids are local, a mesh in
natural order, each vertex first hooked to the smallest of its first
``rounds`` entries; then the same rounds; a thread, warp or block per
vertex in the last one: ``settings.components.cuda_presample``), FastSV the same public-API code over CuPy
(its symmetrised matrix is built on the host once, cached on A, and moved).

Both give the smallest id of each component with no relabel pass: in
FastSV every f(u) only decreases and stays an id of u's component, so the
component's smallest id m keeps f(m) = m and is the root of the final star;
in Afforest a link only points a root at a smaller id, so the root of each
final tree is the smallest id in it.
"""

from __future__ import annotations

import numpy as np

from bitgraph import _array as ar
from bitgraph.algorithms._common import (cached, check_graph, graph_device, is_symmetric, known,
                                         median_spread, record, undirected_csr)
from bitgraph.errors import InvalidValue

__all__ = ["connected_components", "number_connected_components", "METHODS"]

METHODS = ("auto", "fastsv", "afforest")


def connected_components(A, *, method="auto", stats=None):
    """Component labels: an int64 Vector with an entry for every vertex, the
    smallest vertex id of its (weakly) connected component.

    stats: a ``bitgraph.Stats`` to fill with the method run (and its kernel;
    on CUDA ``metrics["kernel_ms"]``, the kernels' GPU time).
    method: ``"auto"``, ``"fastsv"`` (public-API FastSV) or ``"afforest"``
    (fused union-find kernel); see the module docstring. A CUDA graph gives
    a Vector on the GPU.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([1, 3, 4], [4, 2, 1], nrows=6, ncols=6)
    >>> connected_components(A).to_dense().tolist()
    [0, 1, 2, 2, 1, 5]
    >>> connected_components(A, method="fastsv").to_dense().tolist()
    [0, 1, 2, 2, 1, 5]
    """
    if stats is None and (method == "auto" or method == "afforest") and type(A) is _MATRIX:
        # a repeated call on a CUDA graph: the replay the last one ran, while the
        # settings (the same object), device, stream and thread are those it ran
        # under; A and the settings were checked then (a change of A's storage
        # drops the slot). A symmetry learnt since keeps the replay's skip_largest.
        hot = A._cache.own.cc_cuda_hot
        if hot is not None and hot[0] is _LAZY[0].current() and hot[1] == _where():
            got = hot[2]()
            if got is not None:
                return _LAZY[3]._from_parts(got[1], got[0], hot[2].n, _INT64)
    device = graph_device(A, "connected_components", cuda=True)
    if method not in METHODS:
        raise ValueError(f"connected_components: unknown method {method!r};"
                         f" expected one of {METHODS}")
    if method == "auto":
        method = "afforest"
    if stats is not None:  # what ran (bitgraph.Stats)
        stats.method = method
        if method == "afforest":
            stats.ran(("cc", "csr", device, "afforest"))
    Vector = _lazy()[3]
    if method == "fastsv":
        labels = _fastsv(A)
    elif device == "cuda":
        # the kernel's last pass writes the labels and the bitmap of a full
        # vector: wrapped as they are (from_dense would copy the labels and
        # pack a bitmap in several more launches)
        labels, words = _afforest(A, stats=stats, bitmap=True)
        if stats is None and type(A) is _MATRIX:
            # the replay this call ran or made: the newest of A's (slot cc_cuda_launch)
            replay = next(reversed(A._cache.own.cc_cuda_launch.values()), None)
            if replay is not None and replay.where_key == _where():
                A._slots().cc_cuda_hot = (_LAZY[0].current(), replay.where_key, replay)
        return Vector._from_parts(words, labels, dtype=_INT64)
    else:
        labels = _afforest(A, stats=stats)
    return Vector.from_dense(labels, device=A.device)


def number_connected_components(A) -> int:
    """The number of (weakly) connected components; an isolated vertex is one.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 2], [1, 3], nrows=5, ncols=5)
    >>> number_connected_components(A)
    3
    """
    check_graph(A, "number_connected_components", cuda=True)
    labels = _afforest(A)
    xp = ar.array_module(labels)
    # a component's label is its smallest id: one vertex per component has
    # label == id
    return int(xp.count_nonzero(labels == xp.arange(labels.shape[0])))  # synchronize!


def _afforest(A, stats=None, bitmap=False):
    """int64 labels (numpy, or CuPy on a CUDA graph) from the fused kernel
    of A's device; on CUDA with ``bitmap`` the pair (labels, the uint32
    bitmap words of a full vector)."""
    settings, registry, TransposedMatrix, _ = _lazy()
    if isinstance(A, TransposedMatrix):
        A = A.T  # the same weak components, without building A's transpose
    # Union-find ignores edge directions, so A's own CSR gives the weak
    # components: no symmetrised copy. Only a graph known to be symmetric
    # lets the largest component skip its edges in the last round; proving
    # symmetry here would cost a transpose (seconds on kron-20) to save
    # ~0.1 s, so it is used only when already known.
    c = A._csr()
    cfg = settings.current().components
    skip = bool(known(A, "symmetric"))
    if ar.array_module(c.indptr) is not np:
        kernel = registry.lookup("cc", fmt="csr", device="cuda", variant="afforest")
        # keep: the launcher's ready replay of this graph's call (slot cc_cuda_launch)
        return kernel(c.indptr, c.indices, skip_largest=skip, cfg=cfg, stats=stats,
                      bitmap=bitmap, keep=cached(A, "cc_cuda_launch", dict),
                      presample=_presample(A, c, cfg))
    kernel = registry.lookup("cc", fmt="csr", device="cpu", variant="afforest")
    comp = kernel(c.indptr, c.indices, skip_largest=skip, cfg=cfg)
    return comp.astype(np.int64, copy=False)


def _presample(A, c, cfg) -> bool:
    """Whether the CUDA Afforest starts from cc_init's hooks, flattened
    (``settings.components.cuda_presample``; "auto": when A's ids are local,
    the median |i - j| of sampled entries under n / ``local_share``, cached
    on A in slot ``entry_spread``)."""
    mode = cfg.cuda_presample
    if mode == "auto":
        spread = cached(A, "entry_spread", lambda: median_spread(c.indptr, c.indices,
                                                                  cfg.samples))
        return spread * cfg.local_share < A.nrows
    if mode not in ("on", "off"):
        raise InvalidValue(f"connected_components: settings.components.cuda_presample must be"
                           f" 'auto', 'on' or 'off', got {mode!r}")
    return mode == "on"


_INT64 = np.dtype(np.int64)  # the labels' type, given to the Vector
_LAZY = None  # (settings, registry, TransposedMatrix, Vector), imported at the first call
# bitgraph.matrix.Matrix, set at the first call: None until then, so that no call takes
# the hot path before one has prepared it
_MATRIX = None
_WHERE = None  # () -> (device, stream pointer, thread): CuPy's, bound at the first CUDA call


def _lazy():
    # an import statement costs ~0.5 us a call: a GPU call's host time is ~15 us
    global _LAZY, _MATRIX
    if _LAZY is None:
        from bitgraph import settings
        from bitgraph.kernels import registry
        from bitgraph.matrix import Matrix, TransposedMatrix
        from bitgraph.vector import Vector

        _LAZY = (settings, registry, TransposedMatrix, Vector)
        _MATRIX = Matrix
    return _LAZY


def _where():
    """(device, stream pointer, thread) of this call: what a CUDA replay is kept for."""
    global _WHERE
    if _WHERE is None:
        from bitgraph.kernels.cuda.components import where_key

        _WHERE = where_key
    return _WHERE()


def _graph(A):
    """A as a symmetric Matrix on A's device (A itself when it is symmetric).

    On CUDA the pattern of A + A' is built on the host from ``A.to("cpu")``
    (``undirected_csr`` is numpy), moved to the GPU once and cached on A
    (slot ``cc_undirected_matrix``); A's symmetry, found on the way, is
    recorded on A too."""
    from bitgraph.matrix import Matrix

    if A.device == "cpu":
        if is_symmetric(A):
            return A
        return cached(A, "cc_undirected_matrix", lambda: Matrix._from_csr(undirected_csr(A)))
    if known(A, "symmetric"):
        return A
    G = known(A, "cc_undirected_matrix")
    if G is not None:
        return G
    H = A.to("cpu")
    symmetric = is_symmetric(H)
    record(A, "symmetric", symmetric)
    if symmetric:
        return A

    def build():
        U = Matrix._from_csr(undirected_csr(H))
        record(U, "symmetric", True)
        return U.to(A.device)
    return cached(A, "cc_undirected_matrix", build)


def _fastsv(A):
    """int64 labels by FastSV, written once over the array module of A's
    device (numpy or CuPy)."""
    import bitgraph as bg

    G = _graph(A)
    n = G.nrows
    f = bg.Vector.from_dense(np.arange(n, dtype=np.int64), device=A.device)
    gf = f.copy()
    xp = ar.array_module(f.to_dense())  # numpy, or CuPy on a CUDA graph
    while True:
        # mngf = min(gf, A min.second gf): the smallest grandparent among
        # u and its neighbours (LAGraph starts mngf at gf and accumulates)
        mngf = bg.mxv(G, gf, bg.MIN_SECOND, accum=bg.binary.MIN, out=gf.copy())
        # stochastic hooking: f(f(u)) = min(f(f(u)), mngf(u)). A scatter-min:
        # GrB_assign leaves repeated indices undefined (bg.assign keeps the
        # last), and here f repeats a lot.
        fv = f.to_dense()
        ar.scatter_min(fv, fv.copy(), mngf.to_dense())
        f = bg.Vector.from_dense(fv, device=A.device)
        # aggressive hooking: f = min(f, mngf)
        f = bg.ewise_add(f, mngf, bg.binary.MIN)
        # shortcutting: f = min(f, gf)
        f = bg.ewise_add(f, gf, bg.binary.MIN)
        # gf = f(f) (an extract with f's values as the index list)
        new_gf = bg.extract(f, f.to_dense())
        # every vector here is full: compare the dense values
        if bool(xp.array_equal(new_gf.to_dense(), gf.to_dense())):  # synchronize!
            break
        gf = new_gf
    return f.to_dense()
