"""B2SR bit matrix-vector products (Bit-GraphBLAS BMV), numba, parallel.

t = M (+).(x) x for a structure-only M (every stored entry is 1) held as
B2SR (``bitgraph.formats.b2sr``), one tile row per work item:

- ``bmv_bin_bin_bin``: matrix bits x vector bits -> bits. Row r is present
  when ``row_bits & x_present`` is non-zero and true when ``row_bits &
  x_true`` is: every semiring whose products are 1 and whose monoid is
  idempotent on 1 (ANY/LOR/MIN/MAX/LAND/TIMES _PAIR), and LOR_LAND on bool.
- ``bmv_bin_bin_full``: matrix bits x vector bits -> counts,
  ``sum popcount(row_bits & x_present)``: PLUS_PAIR (and LXOR_PAIR).
- ``bmv_bin_full_full``: matrix bits x dense values -> values, any
  semiring (op codes at run time): each set bit of ``row_bits & x_present``
  (lowest first, tiles in column order) is one product, so the result is
  bit-identical to the CSR pull kernel, terminal early exit included.

Each takes ``allowed`` (a packed row bitmap from the mask, or None): rows
whose bit is 0 are skipped, and a tile row none of whose t rows is allowed
costs one word test. Tiles are read through a uint32 view of ``tiles``
(bit-row q of the flat array starts at byte ``q * itemsize``), so one
compiled kernel serves t = 4, 8, 16 and 32.
"""

import numpy as np
from numba import njit

from bitgraph.kernels import opcodes
from bitgraph.kernels.cpu import (
    arg, bitmap_arg, check_bmv_vectors, index_args, parallel_for, row_chunks, semiring_args,
    serial_below,
)
from bitgraph.kernels.cpu.bits import bits_at, ctz, popcount
from bitgraph.kernels.cpu.scalar import binop, cast_like, multop
from bitgraph.kernels.registry import SemiringSpec, register

__all__ = ["bmv_bin_bin_bin", "bmv_bin_bin_full", "bmv_bin_full_full", "tile_args"]

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)


# A tile is nw = t * wb / 4 uint32 words (wb = bytes per bit-row); word k
# holds rows k*rpw .. k*rpw + rpw-1 (rpw = 4 / wb), row r in the field of
# fw = 8 * wb bits at ((r % rpw) * fw). So ANDing a word with the t vector
# bits replicated into every field (``_spread``) tests rpw rows at once,
# and the set bits of the result, lowest first, are the products in
# row-major order: each row's columns ascending, as the CSR kernels meet
# them (float sums identical).

@njit(inline="always")
def _spread(bits, wb):
    if wb == _U1:
        return bits * np.uint64(0x01010101)
    if wb == _U2:
        return bits * np.uint64(0x00010001)
    return bits


@njit(inline="always")
def _tile_row(bi, t, wb, nrows, allowed, has_allowed, fields):
    # Tile row bi: its first row r0, its rows (t, fewer at the end), the
    # allowed-row bits aw, and fields[k] = the masks of the allowed rows'
    # fields in word k of a tile; returns (r0, rows, aw, nw).
    wmask = (_U1 << t) - _U1
    r0 = bi * t
    rows = min(t, nrows - r0)
    aw = bits_at(allowed, r0, wmask) if has_allowed else wmask
    rpw = np.uint64(4) // wb
    fw = np.uint64(8) * wb
    nw = t * wb // np.uint64(4)
    for k in range(nw):
        fields[k] = 0
    for r in range(t):
        if (aw >> np.uint64(r)) & _U1:
            ur = np.uint64(r)
            fields[ur // rpw] |= wmask << ((ur % rpw) * fw)
    return r0, rows, aw, nw


@njit(cache=True, nogil=True)
def _bin_bin_bin_rows(b0, b1, tile_rowptr, tile_colind, tiles32, t, wb,
                      nrows, x_present, x_true, same, allowed, has_allowed,
                      t_true, t_present):
    # Row by row over its tile row's tiles, stopping at the first tile with
    # a true bit in common (LOR's terminal), as the CSR pull row stops at its
    # first frontier entry: a tile-at-a-time sweep would have to wait for all
    # t rows (measured 1.2-1.6x slower on meshes). same: x_true is x_present.
    wmask = (_U1 << t) - _U1
    bits = np.uint64(8) * wb  # bit offset step of one bit-row
    for bi in range(b0, b1):
        r0 = bi * t
        rows = min(t, nrows - r0)
        aw = bits_at(allowed, r0, wmask) if has_allowed else wmask
        p0 = np.uint64(tile_rowptr[bi])
        p1 = np.uint64(tile_rowptr[bi + 1])
        for r in range(rows):
            ur = np.uint64(r)
            hit = False
            tru = False
            if (aw >> ur) & _U1:
                for p in range(p0, p1):
                    c0 = np.uint64(tile_colind[p]) * t
                    w = bits_at(tiles32, (p * t + ur) * bits, wmask) & bits_at(x_present, c0, wmask)
                    if w:
                        hit = True
                        if same or w & bits_at(x_true, c0, wmask):
                            tru = True
                            break
            t_present[r0 + ur] = hit
            t_true[r0 + ur] = tru


@njit(cache=True, nogil=True)
def _bin_bin_full_rows(b0, b1, tile_rowptr, tile_colind, tiles32, t, wb,
                       nrows, x_present, allowed, has_allowed, counts):
    wmask = (_U1 << t) - _U1
    rpw = np.uint64(4) // wb
    fw = np.uint64(8) * wb
    fields = np.zeros(32, np.uint64)
    cnt = np.zeros(32, np.uint64)
    for bi in range(b0, b1):
        r0, rows, aw, nw = _tile_row(bi, t, wb, nrows, allowed, has_allowed, fields)
        for r in range(rows):
            cnt[r] = 0
        if aw:
            for p in range(np.uint64(tile_rowptr[bi]), np.uint64(tile_rowptr[bi + 1])):
                xp = bits_at(x_present, np.uint64(tile_colind[p]) * t, wmask)
                if not xp:
                    continue
                sp = _spread(xp, wb)
                q = p * nw
                for k in range(nw):
                    w = np.uint64(tiles32[q + k]) & fields[k] & sp
                    if w:
                        for f in range(rpw):
                            cnt[k * rpw + np.uint64(f)] += popcount((w >> (np.uint64(f) * fw)) & wmask)
        for r in range(rows):
            counts[r0 + np.uint64(r)] = cnt[r]


@njit(cache=True, nogil=True)
def _bin_full_full_rows(b0, b1, tile_rowptr, tile_colind, tiles32, t, wb,
                        nrows, x_values, x_present, allowed, has_allowed, add,
                        mult, identity, has_term, terminal, t_values,
                        t_present):
    wmask = (_U1 << t) - _U1
    rpw = np.uint64(4) // wb
    fw = np.uint64(8) * wb
    lg = np.uint64(3) + (wb >> _U1)  # log2(fw): 3, 4, 5 for wb = 1, 2, 4
    any_ = add == opcodes.ANY
    one = cast_like(1, identity)
    fields = np.zeros(32, np.uint64)
    acc = np.empty(32, t_values.dtype)
    found = np.zeros(32, np.bool_)
    for bi in range(b0, b1):
        r0, rows, aw, nw = _tile_row(bi, t, wb, nrows, allowed, has_allowed, fields)
        for r in range(rows):
            acc[r] = identity
            found[r] = False
        live = aw != 0
        for p in range(np.uint64(tile_rowptr[bi]), np.uint64(tile_rowptr[bi + 1])):
            if not live:
                break
            c0 = np.uint64(tile_colind[p]) * t
            xp = bits_at(x_present, c0, wmask)
            if not xp:
                continue
            sp = _spread(xp, wb)
            q = p * nw
            for k in range(nw):
                w = np.uint64(tiles32[q + k]) & fields[k] & sp
                while w:
                    b = ctz(w)
                    w &= w - _U1
                    r = k * rpw + (b >> lg)
                    col = c0 + (b & (fw - _U1))
                    prod = multop(mult, one, x_values[col], r0 + r, col, _U0)
                    if found[r]:
                        acc[r] = binop(add, acc[r], prod)
                    else:
                        acc[r] = prod
                        found[r] = True
                    if any_ or (has_term and acc[r] == terminal):
                        # the row is final: drop its field from the tile row
                        sh = (r % rpw) * fw
                        fields[k] &= ~(wmask << sh)
                        w &= ~(wmask << sh)
                        live = False
                        for kk in range(nw):
                            if fields[kk]:
                                live = True
                                break
        for r in range(rows):
            t_values[r0 + np.uint64(r)] = acc[r]
            t_present[r0 + np.uint64(r)] = found[r]


def tile_args(B):
    """(tile_rowptr, tile_colind, tiles32, t, wb, nrows) of B2SR ``B`` as the
    kernels take them: one index dtype, tiles as a flat uint32 view."""
    tile_rowptr, tile_colind = index_args(B.tile_rowptr, B.tile_colind)
    tiles = np.ascontiguousarray(B.tiles).reshape(-1)
    # ntiles * t * itemsize is a multiple of 4 for every t
    tiles32 = arg(tiles.view(np.uint32), np.uint32) if tiles.size else np.zeros(1, np.uint32)
    return (tile_rowptr, tile_colind, tiles32, np.uint64(B.t),
            np.uint64(tiles.itemsize), np.uint64(B.nrows))


def _chunks(tile_rowptr, parallel, nwords):
    nbrows = tile_rowptr.size - 1
    if parallel is None:
        parallel = nwords >= serial_below()
    if not parallel:
        return np.array([0, nbrows], np.int64)
    return row_chunks(np.diff(tile_rowptr).astype(np.int64) + 1)


def _warm_bits(dtype, index_dtype):
    from bitgraph.formats.csr import CSR
    from bitgraph.kernels import convert
    A = CSR(np.array([0, 1, 2], index_dtype), np.array([0, 1], index_dtype), None, 2, 2)
    B = convert.b2sr(A, 8)
    xb = np.array([3], np.uint32)
    if dtype == np.bool_:
        bmv_bin_bin_bin(B, xb, None, None)
        bmv_bin_bin_bin(B, xb, xb, None)
        bmv_bin_bin_full(B, xb, None)
    sr = SemiringSpec(dtype, opcodes.PLUS, opcodes.SECOND, 0, None)
    bmv_bin_full_full(B, np.ones(2, dtype), xb, None, sr)


@register("mxv", fmt="b2sr", device="cpu", variant="bin_bin_bin", warmup=_warm_bits)
def bmv_bin_bin_bin(B, x_present, x_true, allowed, *, parallel=None):
    """(t_true, t_present) bool[nrows]: row r is present when it has a bit in
    common with ``x_present`` and true when it has one with ``x_true``
    (packed uint32 bitmaps over the columns; ``x_true`` a subset of
    ``x_present``, or None: the same as ``x_present``). allowed: packed row bitmap or None. O(ntiles * t)."""
    check_bmv_vectors("bmv_bin_bin_bin", B, x_present, allowed, x_true)
    args = tile_args(B)
    x_present = arg(x_present, np.uint32)
    allowed, has_allowed = bitmap_arg(allowed)
    t_true = np.empty(B.nrows, np.bool_)
    t_present = np.empty(B.nrows, np.bool_)
    chunks = _chunks(args[0], parallel, args[2].size)
    same = x_true is None
    x_true = x_present if same else arg(x_true, np.uint32)
    parallel_for(_bin_bin_bin_rows, chunks, *args, x_present, x_true, same,
                 allowed, has_allowed, t_true, t_present)
    return t_true, t_present


@register("mxv", fmt="b2sr", device="cpu", variant="bin_bin_full")
def bmv_bin_bin_full(B, x_present, allowed, *, parallel=None):
    """counts uint64[nrows]: the number of columns row r shares with the
    packed bitmap ``x_present`` (0 for rows not allowed). O(ntiles * t).

    >>> import numpy as np
    >>> from bitgraph.kernels import convert
    >>> from bitgraph.formats.csr import from_coo
    >>> B = convert.b2sr(from_coo(np.array([0, 0, 1]), np.array([0, 1, 1]), None, 2, 2), 8)
    >>> bmv_bin_bin_full(B, np.array([0b11], np.uint32), None).tolist()
    [2, 1]
    """
    check_bmv_vectors("bmv_bin_bin_full", B, x_present, allowed)
    args = tile_args(B)
    x_present = arg(x_present, np.uint32)
    allowed, has_allowed = bitmap_arg(allowed)
    counts = np.empty(B.nrows, np.uint64)
    chunks = _chunks(args[0], parallel, args[2].size)
    parallel_for(_bin_bin_full_rows, chunks, *args, x_present, allowed,
                 has_allowed, counts)
    return counts


@register("mxv", fmt="b2sr", device="cpu", variant="bin_full_full")
def bmv_bin_full_full(B, x_values, x_present, allowed, sr, flipped=False, *,
                      parallel=None):
    """(t_values T[nrows], t_present bool[nrows]) = B (+).(x) x for any
    semiring ``sr`` (SemiringSpec), every stored entry of B being 1 of T;
    x_values[ncols] read where ``x_present`` (packed) has its bit;
    ``flipped`` as in ``spmv_pull`` (vxm). Equal to ``spmv_pull`` on the
    CSR of B, bit for bit. O(ntiles * t + products).

    >>> import numpy as np
    >>> from bitgraph.kernels import convert
    >>> from bitgraph.formats.csr import from_coo
    >>> from bitgraph.kernels import opcodes as oc
    >>> B = convert.b2sr(from_coo(np.array([0, 0, 1]), np.array([0, 1, 1]), None, 2, 2), 8)
    >>> sr = SemiringSpec(np.dtype(np.float64), oc.MIN, oc.PLUS, np.inf)   # min.plus, a_ik = 1
    >>> bmv_bin_full_full(B, np.array([5.0, 2.0]), np.array([0b11], np.uint32), None, sr)[0].tolist()
    [3.0, 3.0]
    """
    dtype, add, mult, identity, has_term, terminal = semiring_args(
        "mxv(bin_full_full)", sr, flipped)
    check_bmv_vectors("bmv_bin_full_full", B, x_present, allowed, x_values=x_values)
    args = tile_args(B)
    x_values = arg(x_values, dtype)
    x_present = arg(x_present, np.uint32)
    allowed, has_allowed = bitmap_arg(allowed)
    t_values = np.empty(B.nrows, dtype)
    t_present = np.empty(B.nrows, np.bool_)
    chunks = _chunks(args[0], parallel, args[2].size)
    parallel_for(_bin_full_full_rows, chunks, *args, x_values, x_present,
                 allowed, has_allowed, add, mult, identity, has_term, terminal,
                 t_values, t_present)
    return t_values, t_present
