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
>>> from bitgraph.formats import b2sr
>>> from bitgraph.formats.csr import from_coo
>>> A = from_coo(np.array([0, 1, 9]), np.array([1, 0, 9]), None, 10, 10)
>>> B = b2sr.from_csr(A, 8)
>>> B.tile_rowptr.tolist(), B.tile_colind.tolist(), B.tiles[0, :2].tolist()
([0, 1, 2], [0, 1], [2, 1])
>>> b2sr.to_csr(B).indices.tolist()
[1, 0, 9]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..kernels import registry
from .csr import CSR

__all__ = ["B2SR", "TILE_SIZES", "from_csr", "build", "to_csr", "transpose", "stats", "tile_nnz", "csr_int32_bytes"]

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


def _kernel(variant, array):
    """The converter of ``variant`` on the device ``array`` lives on."""
    from ..device import on_gpu

    return registry.lookup("convert", fmt="b2sr", device="cuda" if on_gpu(array) else "cpu",
                           variant=variant)


def _check_t(t):
    if t not in TILE_SIZES:
        raise ValueError(f"B2SR: tile size t={t!r} must be one of {TILE_SIZES}")


def from_csr(csr: CSR, t: int = 8, *, perm=None) -> B2SR:
    """The B2SR-t of a CSR (its pattern; values are not kept).

    ``perm`` records a reordering already applied to ``csr`` (see
    ``formats.reorder``). Numba, two passes, parallel over tile rows.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> B = from_csr(from_coo(np.array([0, 3]), np.array([3, 0]), None, 4, 4), 4)
    >>> B.tiles.tolist()
    [[8, 0, 0, 1]]
    """
    _check_t(t)
    rowptr, colind, tiles = _kernel("from_csr", csr.indptr)(csr, t)
    return B2SR(rowptr, colind, tiles, t, csr.nrows, csr.ncols, perm)


def build(csr: CSR, t: int = 8, reorder: str = "none") -> B2SR:
    """The B2SR-t of ``csr`` after an optional symmetric reordering
    (a ``formats.reorder`` method name; square matrices only), the
    permutation kept in ``.perm`` (``perm[new] = old``): RCM packs a mesh's
    entries near the diagonal, into fewer, fuller tiles.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> build(from_coo(np.array([0, 5]), np.array([5, 0]), None, 6, 6), 4, "rcm").ntiles
    1
    """
    if reorder in ("none", "natural", None):
        return from_csr(csr, t)
    from . import reorder as ro

    from .. import device as dev

    if dev.on_gpu(csr.indptr):  # orderings are computed on the host (numba)
        host = CSR(dev.host(csr.indptr), dev.host(csr.indices), None, csr.nrows, csr.ncols)
        perm = ro.reorder(host, reorder)
        p = ro.permute(host, perm)
        moved = CSR(*(dev.asdevice(a, "cuda", "b2sr.build") for a in (p.indptr, p.indices)),
                    None, p.nrows, p.ncols)
        return from_csr(moved, t, perm=perm)
    perm = ro.reorder(csr, reorder)
    return from_csr(ro.permute(csr, perm), t, perm=perm)


def to_csr(b: B2SR) -> CSR:
    """The structure-only CSR of a B2SR (inverse of ``from_csr``).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0, 2, 2]), np.array([2, 0, 1]), None, 3, 3)
    >>> to_csr(from_csr(A, 4)).indices.tolist()
    [2, 0, 1]
    """
    return _kernel("to_csr", b.tile_rowptr)(b)


def transpose(b: B2SR) -> B2SR:
    """The B2SR of the transpose, same t (tiles moved and bit-transposed).

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> A = from_coo(np.array([0]), np.array([5]), None, 2, 6)
    >>> to_csr(transpose(from_csr(A, 4))).indptr.tolist()
    [0, 0, 0, 0, 0, 0, 1]
    """
    from ..device import on_gpu

    if on_gpu(b.tile_rowptr):  # through the CSR, transposed by a sort on the GPU
        from .csr import transpose as csr_transpose

        return from_csr(csr_transpose(to_csr(b)), b.t, perm=b.perm)
    rowptr, colind, tiles = _kernel("transpose", b.tile_rowptr)(b)
    return B2SR(rowptr, colind, tiles, b.t, b.ncols, b.nrows, b.perm)


def csr_int32_bytes(nrows: int, nnz: int) -> int:
    """Bytes of a structure-only CSR with int32 indptr and indices."""
    return 4 * (nrows + 1) + 4 * nnz


_POP8 = np.array([bin(i).count("1") for i in range(256)], np.uint8)


def tile_nnz(b: B2SR) -> np.ndarray:
    """Entries in each tile (int64[ntiles]), by a byte popcount table.

    >>> import numpy as np
    >>> from bitgraph.formats.csr import from_coo
    >>> tile_nnz(from_csr(from_coo(np.array([0, 0, 5]), np.array([0, 1, 5]), None, 8, 8), 4)).tolist()
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
    >>> s = stats(from_csr(from_coo(np.arange(8), np.arange(8), None, 8, 8), 8))
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
