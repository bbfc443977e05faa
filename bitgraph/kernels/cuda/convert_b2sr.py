"""Launcher of ``convert_b2sr.cu``: CSR <-> B2SR built on the GPU, with the
CPU launchers' signatures and results (``kernels/cpu/convert_b2sr.py``:
the same arrays, dtypes and order; CuPy arrays in and out).

``b2sr_from_csr`` is sort-based: one 64-bit word per stored entry (tile
key, then the bit inside the tile), one CuPy (CUB radix) sort, the distinct
tile keys numbered by a scan, each bit ORed into its tile by an atomic on
the tile's 32-bit word. ``b2sr_to_csr`` counts each bit-row's entries in
CSR order (a scan gives the row pointers and every bit-row's offset) and
unpacks each tile's bits there.
"""

from __future__ import annotations

import numpy as np

from bitgraph import _array as ar
from bitgraph.device import oom_guard
from bitgraph.kernels.cuda import module, shape
from bitgraph.kernels.registry import CSR, register

__all__ = ["b2sr_from_csr", "b2sr_to_csr"]

SOURCE = "convert_b2sr.cu"
WORD_DTYPES = {4: np.dtype(np.uint8), 8: np.dtype(np.uint8),
               16: np.dtype(np.uint16), 32: np.dtype(np.uint32)}
_IDX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_NAMES = tuple(
    [f"b2sr_keys<{i}>" for i in _IDX.values()] + ["b2sr_or_bits"]
    + [f"b2sr_row_counts<{i}>" for i in _IDX.values()]
    + [f"b2sr_unpack<{i}, {j}>" for i in _IDX.values() for j in _IDX.values()])
SPECS = ((SOURCE, _NAMES),)  # what module() is asked for (precompile.py)


def _fn(name):
    mod, lowered = module(SOURCE, _NAMES)
    return mod.get_function(lowered[name])


def _index_dtype(*arrays):
    return np.dtype(np.int64) if max(a.dtype.itemsize for a in arrays) > 4 else np.dtype(np.int32)


@register("convert", fmt="b2sr", device="cuda", variant="from_csr")
def b2sr_from_csr(A, t, *, pack_bits=64):
    """B2SR arrays of CSR ``A`` (CuPy arrays) with t x t tiles, on the GPU:
    (tile_rowptr, tile_colind, tiles[ntiles, t]), identical to
    ``kernels.cpu.convert_b2sr.b2sr_from_csr`` (index dtype int32 while
    ntiles and the block counts fit, int64 beyond; tiles ascending per tile
    row). O(nnz) memory traffic plus one sort of nnz 64-bit words; two
    device syncs (the tile count). The tile key and the in-tile bit share
    one sort word when they fit in ``pack_bits`` bits (the word's 64; tests
    pass 0 to run the path that sorts keys and bits apart)."""
    import cupy

    if t not in WORD_DTYPES:
        raise ValueError(f"B2SR: tile size t={t} must be one of 4, 8, 16, 32")
    where = "b2sr_from_csr(cuda)"
    word = WORD_DTYPES[t]
    idx = _index_dtype(A.indptr, A.indices)
    indptr = cupy.ascontiguousarray(A.indptr, dtype=idx)
    indices = cupy.ascontiguousarray(A.indices, dtype=idx)
    nrows, ncols = int(A.nrows), int(A.ncols)
    nbrows, nbcols = -(-nrows // t), -(-ncols // t)
    nnz = int(indices.size)
    bp = (t * t).bit_length() - 1  # bits of the in-tile position
    # keys and bits in one word when they fit (one sort of nnz words), else apart
    packed = (max(nbrows * nbcols - 1, 1)).bit_length() + bp <= pack_bits
    with oom_guard(where, nnz * (8 if packed else 18) * 2):
        keys = cupy.empty(nnz, np.uint64)
        bits = None if packed else cupy.empty(nnz, np.uint16)
        if nnz:
            _fn(f"b2sr_keys<{_IDX[idx]}>")(
                *shape(nnz),
                (indptr, indices, np.int64(nrows), np.int64(nnz), np.int32(t), np.int64(nbcols),
                 np.int32(bp), keys, bits if bits is not None else np.uint64(0)))
        if packed:
            keys = cupy.sort(keys)
            tkey = keys >> np.uint64(bp)
        else:
            order = cupy.argsort(keys)
            keys, bits = keys[order], bits[order]
            del order
            tkey = keys
        new = cupy.empty(nnz, np.bool_)
        if nnz:
            new[0] = True
            cupy.not_equal(tkey[1:], tkey[:-1], out=new[1:])
        tile_id = cupy.cumsum(new, dtype=np.int64) - 1 if nnz else cupy.zeros(0, np.int64)
        ntiles = int(tile_id[-1]) + 1 if nnz else 0
        idt = ar.index_dtype(ntiles, nbrows, nbcols)
        ukey = tkey[new]
        del new
        tile_colind = (ukey % np.uint64(max(nbcols, 1))).astype(idt)
        tile_brow = (ukey // np.uint64(max(nbcols, 1))).astype(np.int64)
        del ukey
        tile_rowptr = cupy.searchsorted(
            tile_brow, cupy.arange(nbrows + 1, dtype=np.int64), side="left").astype(idt)
        tiles = cupy.zeros(ntiles * t, word)
        if nnz:
            _fn("b2sr_or_bits")(
                *shape(nnz),
                (keys, bits if bits is not None else np.uint64(0), tile_id, np.int64(nnz),
                 np.int32(t), np.int32(bp), np.int32(word.itemsize), tiles.view(np.uint32)))
    return tile_rowptr, tile_colind, tiles.reshape(ntiles, t)


@register("convert", fmt="b2sr", device="cuda", variant="to_csr")
def b2sr_to_csr(B):
    """The CSR (structure only) of a B2SR ``B`` (CuPy arrays), on the GPU;
    identical to ``kernels.cpu.convert_b2sr.b2sr_to_csr`` (indices int32
    while nnz and the shape fit). One device sync (nnz)."""
    import cupy

    t = B.t
    if t not in WORD_DTYPES:
        raise ValueError(f"B2SR: tile size t={t} must be one of 4, 8, 16, 32")
    where = "b2sr_to_csr(cuda)"
    idx = _index_dtype(B.tile_rowptr, B.tile_colind)
    rowptr = cupy.ascontiguousarray(B.tile_rowptr, dtype=idx)
    colind = cupy.ascontiguousarray(B.tile_colind, dtype=idx)
    tiles = cupy.ascontiguousarray(B.tiles, dtype=WORD_DTYPES[t])
    ntiles = int(colind.size)
    nrows = int(B.nrows)
    wb = np.int32(WORD_DTYPES[t].itemsize)
    with oom_guard(where, ntiles * t * 16):
        tile_row = (cupy.searchsorted(rowptr, cupy.arange(ntiles, dtype=idx), side="right")
                    .astype(np.int64) - 1)
        counts = cupy.zeros(ntiles * t + 1, np.int64)
        if ntiles:
            _fn(f"b2sr_row_counts<{_IDX[idx]}>")(
                *shape(ntiles),
                (rowptr, tile_row, tiles, np.int64(ntiles), np.int32(t), wb, counts))
        # exclusive scan: offsets[k] = entries before CSR slot k
        offsets = cupy.empty_like(counts)
        offsets[0] = 0
        cupy.cumsum(counts[:-1], out=offsets[1:])
        del counts
        nnz = int(offsets[-1])
        jdt = ar.index_dtype(nnz, B.nrows, B.ncols)
        # row r of tile row bi starts at slot rowptr[bi] * t + r * (tiles of bi)
        rows = cupy.arange(nrows, dtype=np.int64)
        bi = rows // t
        rp = rowptr.astype(np.int64)
        slot = rp[bi] * t + (rows % t) * (rp[bi + 1] - rp[bi])
        indptr = cupy.empty(nrows + 1, jdt)
        indptr[:-1] = offsets[slot]
        indptr[-1] = nnz
        del rows, bi, slot, rp
        indices = cupy.empty(nnz, jdt)
        if ntiles:
            _fn(f"b2sr_unpack<{_IDX[idx]}, {_IDX[jdt]}>")(
                *shape(ntiles),
                (rowptr, colind, tile_row, tiles, np.int64(ntiles), np.int32(t), wb, offsets,
                 indices))
    return CSR(indptr, indices, None, B.nrows, B.ncols)
