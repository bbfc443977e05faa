"""B2SR: bit-packed blocked CSR (Bit-GraphBLAS), the layout of the bit kernels.

A matrix of ``nrows x ncols`` is cut into ``t x t`` tiles (t = 4, 8, 16, 32);
only non-empty tiles are stored, in CSR order over tile rows::

    tile_rowptr[nbrows + 1]   tiles of tile row I: tile_rowptr[I]:tile_rowptr[I+1]
    tile_colind[ntiles]       the tile's column block J (columns t*J .. t*J+t-1),
                              ascending within a tile row
    tiles[ntiles, t]          bit-row r of a tile as one word: uint8 (t = 4, 8;
                              t = 4 uses the low nibble), uint16, uint32

**Bit order (one convention, CPU and CUDA):** row-major bit-rows, least
significant bit first: bit ``c`` of ``tiles[p, r]`` is entry
``(t*I + r, t*tile_colind[p] + c)``. It is the order of a Vector's bitmap
(bit i of word i // 32), so the vector bits a tile row meets are one shift
and mask of the bitmap, and for t = 8/16/32 simply the bitmap viewed as
uint8/uint16/uint32. (Bit-GraphBLAS packs column-major by default; here a
kernel that needs columns, such as ``A·B`` reading B by columns, takes the
B2SR of ``B'``, which ``Matrix`` caches like any derived format.)
Rows and columns past ``nrows``/``ncols`` in the last tile row/column are
zero bits. Structure only: B2SR stores no values.

>>> import numpy as np
>>> from bitgraph.formats.csr import from_coo
>>> from bitgraph.kernels import convert
>>> A = from_coo(np.array([0, 1, 9]), np.array([1, 0, 9]), None, 10, 10)
>>> B = convert.b2sr(A, 8)
>>> B.tile_rowptr.tolist(), B.tile_colind.tolist(), B.tiles[0, :2].tolist()
([0, 1, 2], [0, 1], [2, 1])

This module holds the data (the class, the layout, statistics);
``bitgraph.kernels.convert`` builds it from a CSR and back, and transposes it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


__all__ = ["B2SR", "TILE_SIZES", "check_t", "stats", "tile_nnz", "csr_int32_bytes"]

TILE_SIZES = (4, 8, 16, 32)


class B2SR(NamedTuple):
    tile_rowptr: np.ndarray
    tile_colind: np.ndarray
    tiles: np.ndarray  # [ntiles, t] uint8/uint16/uint32
    t: int
    nrows: int
    ncols: int
    perm: object = None  # reordering kept with the format (formats.reorder), or None

    @property
    def ntiles(self) -> int:
        return int(self.tile_colind.shape[0])

    @property
    def nbytes(self) -> int:
        """Bytes of the three arrays (the permutation not counted)."""
        return int(self.tile_rowptr.nbytes + self.tile_colind.nbytes + self.tiles.nbytes)

    def __repr__(self):
        return f"B2SR(t={self.t}, {self.nrows}x{self.ncols}, ntiles={self.ntiles}, nbytes={self.nbytes})"


def check_t(t):
    """Raise ``ValueError`` unless ``t`` is a tile size of B2SR."""
    if t not in TILE_SIZES:
        raise ValueError(f"B2SR: tile size t={t!r} must be one of {TILE_SIZES}")


def csr_int32_bytes(nrows: int, nnz: int) -> int:
    """Bytes of a structure-only CSR with int32 indptr and indices."""
    return 4 * (nrows + 1) + 4 * nnz


_POP8 = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def tile_nnz(b: B2SR) -> np.ndarray:
    """Entries in each tile (int64[ntiles]), by a byte popcount table.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> from bitgraph.kernels.convert import b2sr
    >>> tile_nnz(b2sr(from_coo(np.array([0, 0, 5]), np.array([0, 1, 5]), None, 8, 8), 4)).tolist()
    [2, 1]
    """
    from .._array import array_module

    xp = array_module(b.tiles)
    by = xp.ascontiguousarray(b.tiles).view(np.uint8).reshape(b.ntiles, b.t * b.tiles.itemsize)
    return xp.asarray(_POP8)[by].sum(axis=1, dtype=np.int64)


def stats(b: B2SR, nnz: int | None = None, histogram: bool = False) -> dict:
    """Size and fill of a B2SR.

    nnz: stored entries (counted from the bits when not given);
    fill = nnz / (ntiles * t * t); compression = (bytes of int32 CSR) /
    nbytes, so > 1 means B2SR is smaller. ``histogram=True`` adds
    ``nnz_per_tile_hist``: element k = the number of tiles holding k
    entries (k = 0 .. t*t).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> from bitgraph.kernels.convert import b2sr
    >>> s = stats(b2sr(from_coo(np.arange(8), np.arange(8), None, 8, 8), 8))
    >>> s["ntiles"], s["nnz_per_tile"], s["fill"]
    (1, 8.0, 0.125)
    """
    per_tile = tile_nnz(b) if (nnz is None or histogram) else None
    if nnz is None:
        nnz = int(per_tile.sum())
    nt = b.ntiles
    csr_bytes = csr_int32_bytes(b.nrows, nnz)
    return {
        "t": b.t,
        "ntiles": nt,
        "nnz": nnz,
        "nnz_per_tile": nnz / nt if nt else 0.0,
        "fill": nnz / (nt * b.t * b.t) if nt else 0.0,
        "nbytes": b.nbytes,
        "csr_int32_bytes": csr_bytes,
        "compression": csr_bytes / b.nbytes if b.nbytes else float("inf"),
    } | ({"nnz_per_tile_hist": np.bincount(per_tile, minlength=b.t * b.t + 1)} if histogram else {})
