"""Conversions between the formats: CSR -> B2SR / BVSS and back, B2SR's
transpose, each on the device its input lives on, through the registry.

The formats (``bitgraph.formats``) are data: their classes, layouts and
statistics. Building one from another is compute, so it lives here, one
layer above them; ``Matrix.b2sr()`` / ``Matrix.bvss()`` call it and cache
the result.

>>> import numpy as np
>>> from bitgraph.formats.csr import from_coo
>>> from bitgraph.kernels import convert
>>> A = from_coo(np.array([0, 1, 9]), np.array([1, 0, 9]), None, 10, 10)
>>> B = convert.b2sr(A, 8)
>>> B.tile_colind.tolist(), convert.b2sr_to_csr(B).indices.tolist()
([0, 1], [1, 0, 9])
>>> convert.bvss(A).n_vss
2
"""

from __future__ import annotations

from bitgraph import device as dev
from bitgraph.formats.b2sr import B2SR, check_t
from bitgraph.formats.bvss import BVSS, ARRAYS as _BVSS_ARRAYS
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry

__all__ = ["b2sr", "b2sr_to_csr", "b2sr_transpose", "bvss", "bvss_to_csr"]


def _kernel(fmt, variant, array=None):
    """The converter of ``variant`` on the device ``array`` lives on."""
    device = "cuda" if array is not None and dev.on_gpu(array) else "cpu"
    return registry.lookup("convert", fmt=fmt, device=device, variant=variant)


def _reordered(csr: CSR, reorder: str, where: str):
    """(csr permuted by ``formats.reorder.reorder(csr, reorder)``, perm);
    orderings are computed on the host (numba), the result goes back to
    the input's device. (reorder is imported here: it imports numba, 0.7 s
    that a GPU blest bfs in A's own order does not need.)"""
    from bitgraph.formats import reorder as ro

    if dev.on_gpu(csr.indptr):
        host = CSR(dev.host(csr.indptr), dev.host(csr.indices), None, csr.nrows, csr.ncols)
        perm = ro.reorder(host, reorder)
        p = ro.permute(host, perm)
        return CSR(*(dev.asdevice(a, "cuda", where) for a in (p.indptr, p.indices)),
                   None, p.nrows, p.ncols), perm
    perm = ro.reorder(csr, reorder)
    return ro.permute(csr, perm), perm


def b2sr(csr: CSR, t: int = 8, reorder: str = "none", *, perm=None) -> B2SR:
    """The B2SR-t of a CSR's pattern (values are not kept), after an
    optional symmetric reordering (a ``formats.reorder`` method name; square
    matrices only), the permutation kept in ``.perm`` (``perm[new] = old``):
    RCM packs a mesh's entries near the diagonal, into fewer, fuller tiles.
    ``perm`` records a reordering already applied to ``csr``. CPU: numba,
    two passes, parallel over tile rows.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> b2sr(from_coo(np.array([0, 3]), np.array([3, 0]), None, 4, 4), 4).tiles.tolist()
    [[8, 0, 0, 1]]
    >>> b2sr(from_coo(np.array([0, 5]), np.array([5, 0]), None, 6, 6), 4, "rcm").ntiles
    1
    """
    check_t(t)
    if reorder not in ("none", "natural", None):
        csr, perm = _reordered(csr, reorder, "b2sr")
    rowptr, colind, tiles = _kernel("b2sr", "from_csr", csr.indptr)(csr, t)
    return B2SR(rowptr, colind, tiles, t, csr.nrows, csr.ncols, perm)


def b2sr_to_csr(b: B2SR) -> CSR:
    """The structure-only CSR of a B2SR (inverse of ``b2sr``).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0, 2, 2]), np.array([2, 0, 1]), None, 3, 3)
    >>> b2sr_to_csr(b2sr(A, 4)).indices.tolist()
    [2, 0, 1]
    """
    return _kernel("b2sr", "to_csr", b.tile_rowptr)(b)


def b2sr_transpose(b: B2SR) -> B2SR:
    """The B2SR of the transpose, same t (tiles moved and bit-transposed).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0]), np.array([5]), None, 2, 6)
    >>> b2sr_to_csr(b2sr_transpose(b2sr(A, 4))).indptr.tolist()
    [0, 0, 0, 0, 0, 0, 1]
    """
    if dev.on_gpu(b.tile_rowptr):  # through the CSR, transposed by a sort on the GPU
        from bitgraph.formats.csr import transpose as csr_transpose

        return b2sr(csr_transpose(b2sr_to_csr(b)), b.t, perm=b.perm)
    rowptr, colind, tiles = _kernel("b2sr", "transpose", b.tile_rowptr)(b)
    return B2SR(rowptr, colind, tiles, b.t, b.ncols, b.nrows, b.perm)


def bvss(csr: CSR, sigma: int = 8, reorder: str = "none", *, perm=None) -> BVSS:
    """The BVSS of a CSR's pattern, slices of ``sigma`` columns, after an
    optional reordering (``formats.reorder`` method name; square matrices
    only when not "none"). ``perm`` records a reordering already applied.

    ``reorder="auto"`` builds the natural-order BVSS and the one of
    ``reorder.reorder(csr, "auto")`` (Jaccard-with-windows after Gorder for
    social-like graphs, RCM otherwise) and keeps the one with fewer VSSs
    (less work per BFS step, fewer bytes): reordering hurts some graphs
    (Blest saw it on 6 of 14).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> bvss(from_coo(np.arange(200), np.zeros(200, int), None, 200, 8)).n_vss
    2
    >>> bvss(from_coo(np.array([0, 1]), np.array([1, 0]), None, 2, 2), reorder="rcm").perm.tolist()
    [1, 0]
    """
    if reorder in ("none", "natural", None):
        real_ptrs, v2r, row_ids, masks = _kernel("bvss", "from_csr", csr.indptr)(csr, sigma)
        return BVSS(real_ptrs, v2r, row_ids, masks, sigma, csr.nrows, csr.ncols, perm)
    p, perm = _reordered(csr, reorder, "bvss")
    b = bvss(p, sigma, perm=perm)
    if reorder == "auto":
        natural = bvss(csr, sigma)
        if natural.n_vss <= b.n_vss:
            return natural
    return b


def bvss_to_csr(b: BVSS) -> CSR:
    """The structure-only CSR of a BVSS (inverse of ``bvss``).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> bvss_to_csr(bvss(from_coo(np.array([1, 1]), np.array([0, 8]), None, 2, 9))).indices.tolist()
    [0, 8]
    """
    if dev.on_gpu(b.masks):  # no GPU kernel: a host round trip
        host = b._replace(**{f: dev.host(getattr(b, f)) for f in _BVSS_ARRAYS})
        c = _kernel("bvss", "to_csr")(host)
        return CSR(*(dev.asdevice(a, "cuda", "bvss_to_csr") for a in (c.indptr, c.indices)),
                   None, c.nrows, c.ncols)
    return _kernel("bvss", "to_csr")(b)
