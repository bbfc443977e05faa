"""BVSS: bit-packed virtual slice sets (Blest, section 3.1).

For a matrix M (for BFS, M = A': row u lists the in-neighbours of u), a
*slice* is a row's entries in one column block of ``sigma`` columns, as a
sigma-bit mask (bit c = column ``sigma*i + c``, LSB first, the order of a
Vector's bitmap). A *slice set* is all the slices of column block i, sorted
by row; they share the frontier bits of block i. Each slice set is cut into
*virtual slice sets* (VSSs) of at most ``tau = 32 * (32 // sigma)`` slices
(128 for sigma = 8: 32 lanes x 4 slices per lane), the unit of work of one
warp. Arrays (Blest's names)::

    real_ptrs[nblocks + 1]      int32: VSSs of slice set i are real_ptrs[i]:real_ptrs[i+1]
    virtual_to_real[n_vss]      int32: the slice set of each VSS
    row_ids[n_vss, 32, 32//sigma] uint32: row of slice k at [v, k % 32, k // 32]
    masks[n_vss * 32]           uint32: slice k of VSS v in word 32*v + k % 32,
                                bits (k // 32)*sigma .. +sigma

so lane l of a warp loads word ``32*v + l`` (its 4 masks) and its 4 row ids
in one 16-byte load. The last VSS of a slice set is padded with zero masks
and row id ``0xFFFFFFFF``; empty slice sets have no VSS.

>>> import numpy as np
>>> from bitgraph.formats import bvss
>>> from bitgraph.formats.csr import from_coo
>>> M = from_coo(np.array([0, 0, 2]), np.array([1, 9, 3]), None, 3, 10)
>>> b = bvss.from_csr(M)
>>> b.real_ptrs.tolist(), b.virtual_to_real.tolist(), b.masks[[0, 1, 32]].tolist()
([0, 1, 2], [0, 1], [2, 8, 2])
>>> b.row_ids[0, :2, 0].tolist(), b.row_ids[1, 0, 0].tolist()
([0, 2], 0)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import registry
from .csr import CSR

__all__ = ["BVSS", "SIGMAS", "from_csr", "build", "to_csr", "stats", "frontier_words"]

SIGMAS = (4, 8, 16, 32)
_ARRAYS = ("real_ptrs", "virtual_to_real", "row_ids", "masks")


class BVSS(NamedTuple):
    real_ptrs: np.ndarray
    virtual_to_real: np.ndarray
    row_ids: np.ndarray
    masks: np.ndarray
    sigma: int
    nrows: int
    ncols: int
    perm: object = None  # reordering kept with the format (formats.reorder), or None

    @property
    def tau(self) -> int:
        """Slices per VSS: 32 lanes x (32 // sigma) slices per lane."""
        return 32 * (32 // self.sigma)

    @property
    def n_vss(self) -> int:
        return int(self.virtual_to_real.shape[0])

    @property
    def nbytes(self) -> int:
        return int(self.real_ptrs.nbytes + self.virtual_to_real.nbytes
                   + self.row_ids.nbytes + self.masks.nbytes)

    def __repr__(self):
        return (f"BVSS(sigma={self.sigma}, {self.nrows}x{self.ncols}, "
                f"n_vss={self.n_vss}, nbytes={self.nbytes})")


def _kernel(variant, array=None):
    from .. import device as dev

    device = "cuda" if array is not None and dev.on_gpu(array) else "cpu"
    return registry.lookup("convert", fmt="bvss", device=device, variant=variant)


def from_csr(csr: CSR, sigma: int = 8, *, perm=None) -> BVSS:
    """The BVSS of a CSR's pattern, slices of ``sigma`` columns.

    ``perm`` records a reordering already applied to ``csr``.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> from_csr(from_coo(np.arange(200), np.zeros(200, int), None, 200, 8)).n_vss
    2
    """
    real_ptrs, v2r, row_ids, masks = _kernel("from_csr", csr.indptr)(csr, sigma)
    return BVSS(real_ptrs, v2r, row_ids, masks, sigma, csr.nrows, csr.ncols, perm)


def to_csr(b: BVSS) -> CSR:
    """The structure-only CSR of a BVSS (inverse of ``from_csr``).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> to_csr(from_csr(from_coo(np.array([1, 1]), np.array([0, 8]), None, 2, 9))).indices.tolist()
    [0, 8]
    """
    from .. import device as dev

    if dev.on_gpu(b.masks):  # no GPU kernel: a host round trip
        host = b._replace(**{f: dev.host(getattr(b, f)) for f in _ARRAYS})
        c = _kernel("to_csr")(host)
        return CSR(*(dev.asdevice(a, "cuda", "bvss.to_csr") for a in (c.indptr, c.indices)),
                   None, c.nrows, c.ncols)
    return _kernel("to_csr")(b)


def frontier_words(bitmap, b: BVSS):
    """The sigma-bit frontier word of every slice set, from a packed uint32
    bitmap over the columns (bit j of word j // 32): uint8 for sigma = 8,
    uint16 for 16, uint32 for 32, uint8 nibbles (low 4 bits) for 4.

    >>> import numpy as np
    >>> b = from_csr(CSR(np.array([0, 0]), np.zeros(0, np.int32), None, 1, 16))
    >>> frontier_words(np.array([0x0201], np.uint32), b).tolist()
    [1, 2]
    """
    nblocks = b.real_ptrs.shape[0] - 1
    words = np.ascontiguousarray(bitmap, np.uint32)
    if b.sigma == 4:
        by = words.view(np.uint8)
        out = np.empty(2 * by.size, np.uint8)
        out[0::2] = by & 0xF
        out[1::2] = by >> 4
        return out[:nblocks]
    dt = {8: np.uint8, 16: np.uint16, 32: np.uint32}[b.sigma]
    return words.view(dt)[:nblocks]  # little-endian: bit order preserved


def stats(b: BVSS) -> dict:
    """Blest's statistics of a BVSS.

    slice_sets (non-empty), vss, slices (real), padded_slices,
    compression = nnz / (slices * sigma) (the fill of the masks, <= 1),
    update_divergence (U_div, section 3.2.1: per VSS the mean over its
    non-empty slot columns of the standard deviation of their row ids,
    averaged over VSSs), nbytes and bytes per stored entry.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> s = stats(from_csr(from_coo(np.array([0, 0, 1]), np.array([0, 1, 0]), None, 2, 2)))
    >>> s["slices"], s["padded_slices"], s["compression"]
    (2, 126, 0.1875)
    """
    from .. import device as dev
    from ..kernels.cpu.convert_bvss import update_divergence

    b = b._replace(**{f: dev.host(getattr(b, f)) for f in _ARRAYS})
    masks = np.ascontiguousarray(b.masks)
    nnz = int(np.unpackbits(masks.view(np.uint8)).sum())
    nz_slots = (masks[:, None] >> (np.arange(0, 32, b.sigma, dtype=np.uint32))) & np.uint32((1 << b.sigma) - 1) \
        if b.sigma < 32 else masks[:, None]
    slices = int(np.count_nonzero(nz_slots)) if masks.size else 0
    n_vss = b.n_vss
    return {
        "sigma": b.sigma,
        "slice_sets": int(np.count_nonzero(np.diff(b.real_ptrs))),
        "vss": n_vss,
        "slices": slices,
        "padded_slices": n_vss * b.tau - slices,
        "nnz": nnz,
        "compression": nnz / (slices * b.sigma) if slices else 0.0,
        "update_divergence": update_divergence(b.row_ids, b.sigma) if n_vss else 0.0,
        "nbytes": b.nbytes,
        "bytes_per_entry": b.nbytes / nnz if nnz else 0.0,
    }


def build(csr: CSR, sigma: int = 8, reorder: str = "none") -> BVSS:
    """The BVSS of ``csr`` after an optional reordering (``formats.reorder``
    method name; square matrices only when not "none").

    ``reorder="auto"`` builds the natural-order BVSS and the one of
    ``reorder.reorder(csr, "auto")`` (Jaccard-with-windows after Gorder for
    social-like graphs, RCM otherwise) and keeps the one with fewer VSSs
    (less work per BFS step, fewer bytes): reordering hurts some graphs
    (Blest saw it on 6 of 14).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> build(from_coo(np.array([0, 1]), np.array([1, 0]), None, 2, 2), reorder="rcm").perm.tolist()
    [1, 0]
    """
    if reorder in ("none", "natural", None):
        return from_csr(csr, sigma)
    from . import reorder as ro

    from .. import device as dev

    if dev.on_gpu(csr.indptr):  # orderings are computed on the host (numba)
        host = CSR(dev.host(csr.indptr), dev.host(csr.indices), None, csr.nrows, csr.ncols)
        perm = ro.reorder(host, reorder)
        p = ro.permute(host, perm)
        b = from_csr(CSR(*(dev.asdevice(a, "cuda", "bvss.build") for a in (p.indptr, p.indices)),
                         None, p.nrows, p.ncols), sigma, perm=perm)
    else:
        perm = ro.reorder(csr, reorder)
        b = from_csr(ro.permute(csr, perm), sigma, perm=perm)
    if reorder == "auto":
        natural = from_csr(csr, sigma)
        if natural.n_vss <= b.n_vss:
            return natural
    return b
