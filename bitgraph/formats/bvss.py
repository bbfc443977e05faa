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
>>> from bitgraph.formats.csr import from_coo
>>> from bitgraph.kernels import convert
>>> M = from_coo(np.array([0, 0, 2]), np.array([1, 9, 3]), None, 3, 10)
>>> b = convert.bvss(M)
>>> b.real_ptrs.tolist(), b.virtual_to_real.tolist(), b.masks[[0, 1, 32]].tolist()
([0, 1, 2], [0, 1], [2, 8, 2])
>>> b.row_ids[0, :2, 0].tolist(), b.row_ids[1, 0, 0].tolist()
([0, 2], 0)

This module holds the data (the class, the layout, statistics);
``bitgraph.kernels.convert`` builds it from a CSR and back.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


__all__ = ["BVSS", "SIGMAS", "PAD_ROW", "ARRAYS", "stats", "frontier_words", "update_divergence"]

SIGMAS = (4, 8, 16, 32)
ARRAYS = ("real_ptrs", "virtual_to_real", "row_ids", "masks")
PAD_ROW = 0xFFFFFFFF  # the row id of a padding slot


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


def frontier_words(bitmap, b: BVSS):
    """The sigma-bit frontier word of every slice set, from a packed uint32
    bitmap over the columns (bit j of word j // 32): uint8 for sigma = 8,
    uint16 for 16, uint32 for 32, uint8 nibbles (low 4 bits) for 4.

    >>> import numpy as np
    >>> b = BVSS(np.zeros(3, np.int32), np.zeros(0, np.int32), np.zeros((0, 32, 4), np.uint32),
    ...          np.zeros(0, np.uint32), 8, 1, 16)   # sigma 8: two slice sets, no VSS
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
    >>> from bitgraph.kernels.convert import bvss
    >>> s = stats(bvss(from_coo(np.array([0, 0, 1]), np.array([0, 1, 0]), None, 2, 2)))
    >>> s["slices"], s["padded_slices"], s["compression"]
    (2, 126, 0.1875)
    """
    from .. import device as dev

    b = b._replace(**{f: dev.host(getattr(b, f)) for f in ARRAYS})
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
        "update_divergence": update_divergence(b.row_ids, np),
        "nbytes": b.nbytes,
        "bytes_per_entry": b.nbytes / nnz if nnz else 0.0,
    }


def update_divergence(row_ids, xp=np) -> float:
    """Blest's U_div of a BVSS's ``row_ids`` by array operations of ``xp``
    (numpy or cupy): per VSS the mean over its non-empty slot columns of
    their row ids' population standard deviation, averaged over VSSs.
    O(n_vss * 32 * 32 // sigma), in chunks of bounded temporaries.

    >>> import numpy as np
    >>> rid = np.full((1, 32, 4), PAD_ROW, np.uint32); rid[0, :2, 0] = [0, 4]
    >>> update_divergence(rid)
    2.0
    """
    n_vss = int(row_ids.shape[0])
    if n_vss == 0:
        return 0.0
    total = 0.0
    step = max(1, (1 << 22) // (32 * row_ids.shape[2]))  # VSSs per chunk: bounded temporaries
    for v0 in range(0, n_vss, step):
        r = row_ids[v0:v0 + step]
        valid = r != PAD_ROW
        x = xp.where(valid, r.astype(xp.float64), 0.0)
        cnt = valid.sum(axis=1)                          # (vss, spw)
        mean = x.sum(axis=1) / xp.maximum(cnt, 1)
        dev = xp.where(valid, x - mean[:, None, :], 0.0)
        std = xp.sqrt((dev * dev).sum(axis=1) / xp.maximum(cnt, 1))
        cols = (cnt > 0).sum(axis=1)
        per = xp.where(cols > 0, (std * (cnt > 0)).sum(axis=1) / xp.maximum(cols, 1), 0.0)
        total += float(per.sum())
    return total / n_vss
