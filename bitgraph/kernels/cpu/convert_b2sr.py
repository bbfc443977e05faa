"""CSR <-> B2SR conversions and the B2SR transpose (numba, pure compute).

The layout is ``bitgraph.formats.b2sr``'s: tile row I holds tiles
``tile_rowptr[I]:tile_rowptr[I+1]``, tile p covers columns
``[t*tile_colind[p], +t)`` and bit-row r of it is ``tiles[p*t + r]`` (the
kernels take ``tiles`` flat), bit c (LSB first) = entry
``(t*I + r, t*tile_colind[p] + c)``.

Specialised on the index dtype (int32/int64) and the tile word dtype
(uint8 for t = 4 and 8, uint16, uint32): 6 per kernel, warmed up once.
"""

import numpy as np
from numba import njit

from bitgraph import _array as ar
from bitgraph.kernels.cpu import index_args, parallel_for, row_chunks, arg
from bitgraph.kernels.cpu.bits import ctz, popcount
from bitgraph.kernels.cpu.scalar import cast_like
from bitgraph.kernels.registry import CSR, register

__all__ = ["b2sr_from_csr", "b2sr_to_csr", "b2sr_transpose", "WORD_DTYPES"]

# the word holding one bit-row of a t x t tile
WORD_DTYPES = {4: np.dtype(np.uint8), 8: np.dtype(np.uint8),
               16: np.dtype(np.uint16), 32: np.dtype(np.uint32)}

_U1 = np.uint64(1)


@njit(cache=True, nogil=True)
def _count_tiles(b0, b1, indptr, indices, t, nrows, nbcols, counts):
    # counts[I] = distinct column blocks in tile rows I = b0..b1-1.
    # A stamp per column block (I + 1 where seen) makes it O(nnz of the rows)
    # after one O(nbcols) allocation per chunk.
    stamp = np.zeros(nbcols, np.uint64)
    for bi in range(b0, b1):
        r0 = bi * t
        r1 = min(r0 + t, nrows)
        n = 0
        for r in range(r0, r1):
            for p in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
                j = np.uint64(indices[p]) // t
                if stamp[j] != bi + _U1:
                    stamp[j] = bi + _U1
                    n += 1
        counts[bi] = n


@njit(cache=True, nogil=True)
def _fill_tiles(b0, b1, indptr, indices, t, nrows, nbcols, tile_rowptr,
                tile_colind, tiles):
    # Writes tile_colind and tiles of tile rows b0..b1-1 (tiles zeroed).
    # Tile ids of a row's blocks come from a sort of its distinct blocks;
    # ``pos`` maps block -> tile id and is reset after each tile row.
    pos = np.full(nbcols, -1, np.int64)
    for bi in range(b0, b1):
        r0 = bi * t
        r1 = min(r0 + t, nrows)
        start = np.uint64(tile_rowptr[bi])
        end = np.uint64(tile_rowptr[bi + 1])
        q = start
        for r in range(r0, r1):
            for p in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
                j = np.uint64(indices[p]) // t
                if pos[j] < 0:
                    pos[j] = 0
                    tile_colind[q] = cast_like(j, tile_colind[q])
                    q += _U1
        tile_colind[start:end].sort()
        for p in range(start, end):
            pos[np.uint64(tile_colind[p])] = p
        for r in range(r0, r1):
            row = np.uint64(r - r0)
            for p in range(np.uint64(indptr[r]), np.uint64(indptr[r + 1])):
                c = np.uint64(indices[p])
                w = np.uint64(pos[c // t]) * t + row
                tiles[w] = cast_like(tiles[w] | (_U1 << (c % t)), tiles[w])
        for p in range(start, end):
            pos[np.uint64(tile_colind[p])] = -1


def _warm_convert(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.kernels import convert

    A = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 1], index_dtype),
            None, 2, 2)
    for t in WORD_DTYPES:
        convert.b2sr_to_csr(convert.b2sr_transpose(convert.b2sr(A, t)))


@register("convert", fmt="b2sr", device="cpu", variant="from_csr",
          warmup=_warm_convert)
def b2sr_from_csr(A, t, *, parallel=None):
    """B2SR arrays of CSR ``A`` with t x t tiles.

    Returns (tile_rowptr, tile_colind, tiles[ntiles, t]) with the tile index
    dtype int32 while ntiles and the block counts fit, int64 beyond.
    Two passes over A (count distinct blocks per tile row, then fill), each
    over chunks of tile rows of equal nnz on the thread pool. O(nnz + nrows
    + ntiles log) time, O(ntiles * t) output.
    """
    if t not in WORD_DTYPES:
        raise ValueError(f"B2SR: tile size t={t} must be one of 4, 8, 16, 32")
    word = WORD_DTYPES[t]
    indptr, indices = index_args(A.indptr, A.indices)
    nbrows = -(-A.nrows // t)
    nbcols = -(-A.ncols // t)
    ends = indptr[np.minimum(np.arange(1, nbrows + 1, dtype=np.int64) * t, A.nrows)]
    work = np.diff(ends, prepend=0).astype(np.int64) + 1
    if parallel is None:
        parallel = indices.size >= 50_000
    chunks = row_chunks(work) if parallel else np.array([0, nbrows], np.int64)
    counts = np.zeros(nbrows, np.int64)
    ut = np.uint64(t)
    parallel_for(_count_tiles, chunks, indptr, indices, ut, np.uint64(A.nrows),
                 nbcols, counts)
    ntiles = int(counts.sum())
    idt = ar.index_dtype(ntiles, nbrows, nbcols)
    tile_rowptr = np.zeros(nbrows + 1, idt)
    np.cumsum(counts, out=tile_rowptr[1:])
    tile_colind = np.empty(ntiles, idt)
    tiles = np.zeros(ntiles * t, word)
    parallel_for(_fill_tiles, chunks, indptr, indices, ut, np.uint64(A.nrows),
                 nbcols, tile_rowptr, tile_colind, tiles)
    return tile_rowptr, tile_colind, tiles.reshape(ntiles, t)


@njit(cache=True, nogil=True)
def _row_counts(b0, b1, tile_rowptr, tiles, t, nrows, row_nnz):
    for bi in range(b0, b1):
        for r in range(t):
            row = bi * t + r
            if row >= nrows:
                break
            n = np.uint64(0)
            for p in range(np.uint64(tile_rowptr[bi]), np.uint64(tile_rowptr[bi + 1])):
                n += popcount(tiles[p * t + r])
            row_nnz[row] = n


@njit(cache=True, nogil=True)
def _unpack_rows(b0, b1, tile_rowptr, tile_colind, tiles, t, nrows, indptr,
                 indices):
    # tiles of a tile row are in column order and bits LSB first, so each
    # row's columns come out sorted
    for bi in range(b0, b1):
        for r in range(t):
            row = bi * t + r
            if row >= nrows:
                break
            q = np.uint64(indptr[row])
            for p in range(np.uint64(tile_rowptr[bi]), np.uint64(tile_rowptr[bi + 1])):
                w = np.uint64(tiles[p * t + r])
                base = np.uint64(tile_colind[p]) * t
                while w:
                    indices[q] = cast_like(base + ctz(w), indices[q])
                    q += _U1
                    w &= w - _U1


@register("convert", fmt="b2sr", device="cpu", variant="to_csr")
def b2sr_to_csr(B, *, parallel=None):
    """The CSR (structure only) of a B2SR ``B``. O(nrows + ntiles * t + nnz)."""
    t = B.t
    tile_rowptr, tile_colind = index_args(B.tile_rowptr, B.tile_colind)
    tiles = arg(B.tiles, WORD_DTYPES[t])
    nbrows = tile_rowptr.size - 1
    if parallel is None:
        parallel = tiles.size >= 50_000
    work = np.diff(tile_rowptr).astype(np.int64) + 1
    chunks = row_chunks(work) if parallel else np.array([0, nbrows], np.int64)
    row_nnz = np.zeros(B.nrows, np.int64)
    ut = np.uint64(t)
    parallel_for(_row_counts, chunks, tile_rowptr, tiles, ut, np.uint64(B.nrows), row_nnz)
    nnz = int(row_nnz.sum())
    idt = ar.index_dtype(nnz, B.nrows, B.ncols)
    indptr = np.zeros(B.nrows + 1, idt)
    np.cumsum(row_nnz, out=indptr[1:])
    indices = np.empty(nnz, idt)
    parallel_for(_unpack_rows, chunks, tile_rowptr, tile_colind, tiles, ut,
                 np.uint64(B.nrows), indptr, indices)
    return CSR(indptr, indices, None, B.nrows, B.ncols)


@njit(cache=True, nogil=True)
def _transpose_tiles(tile_rowptr, tile_colind, tiles, t, nbcols, t_rowptr,
                     t_colind, t_tiles):
    # counting sort of the tiles by column block (stable: rows ascending),
    # then each t x t bit block transposed. O(nbcols + ntiles * t + nnz)
    nbrows = tile_rowptr.size - 1
    fill = np.zeros(nbcols, np.int64)
    for bi in range(nbrows):
        for p in range(np.uint64(tile_rowptr[bi]), np.uint64(tile_rowptr[bi + 1])):
            j = np.uint64(tile_colind[p])
            q = np.uint64(t_rowptr[j] + fill[j])
            fill[j] += 1
            t_colind[q] = cast_like(bi, t_colind[q])
            for r in range(t):
                w = np.uint64(tiles[p * t + r])
                while w:
                    c = ctz(w)
                    t_tiles[q * t + c] = cast_like(t_tiles[q * t + c] | (_U1 << np.uint64(r)), t_tiles[q * t + c])
                    w &= w - _U1


@register("convert", fmt="b2sr", device="cpu", variant="transpose")
def b2sr_transpose(B):
    """(tile_rowptr, tile_colind, tiles) of the transpose of B2SR ``B``."""
    t = B.t
    tile_rowptr, tile_colind = index_args(B.tile_rowptr, B.tile_colind)
    tiles = arg(B.tiles, WORD_DTYPES[t])
    nbcols = -(-B.ncols // t)
    counts = np.bincount(tile_colind, minlength=nbcols)
    t_rowptr = np.zeros(nbcols + 1, tile_rowptr.dtype)
    np.cumsum(counts, out=t_rowptr[1:])
    t_colind = np.empty(tile_colind.size, tile_rowptr.dtype)
    t_tiles = np.zeros(tiles.size, tiles.dtype)
    _transpose_tiles(tile_rowptr, tile_colind, tiles, np.uint64(t), nbcols,
                     t_rowptr, t_colind, t_tiles)
    return t_rowptr, t_colind, t_tiles.reshape(-1, t)
