"""Synthetic graphs: Graph500 Kronecker, uniform random, meshes, geometric.

Every generator returns an undirected graph as a square, structure-only
(bool) :class:`~bitgraph.Matrix`: both directions of every edge are stored,
with no self-loops and no duplicate entries. Each has an ``..._edges`` twin
that returns ``(n, rows, cols)``, the stored entries as int64 COO arrays in
row-major order.

>>> import bitgraph as bg
>>> A = bg.io.generators.kron(10, seed=1)        # Graph500 R-MAT, 2^10 vertices
>>> A.nrows, A.nvals
(1024, 21134)
>>> bg.io.generators.from_spec("grid:3x4").nvals  # 17 edges, both directions
34

========================================  ===========================================
``kron(scale, edgefactor=16, seed=0)``    Graph500 R-MAT, 2^scale vertices
``urand(scale, degree=16, seed=0)``       uniform random (GAP's urand)
``kronh(scale, edgefactor=16, seed=0)``   R-MAT, edge i a hash of (seed, i); CPU, GPU
``urandh(scale, degree=16, seed=0)``      uniform random, hashed as kronh; CPU, GPU
``grid2d(rows, cols, drop=0, seed=0)``    4-neighbour mesh, a fraction ``drop`` removed
``grid3d(nx, ny, nz, drop=0, seed=0)``    6-neighbour mesh
``moore2d(rows, cols)``                   8-neighbour mesh (a grid with diagonals)
``moore3d(nx, ny, nz)``                   26-neighbour mesh
``rgg(n, radius, seed=0)``                random geometric graph in the unit square
``from_spec("kron:20@3")``                the CLI's generator specs
``random_weights(A, lo, hi, seed=0)``     A with random weights, the same both ways
========================================  ===========================================

Same seed, same graph, on every machine and with any number of threads: the
randomness is numpy's PCG64 (``np.random.default_rng(seed)``, and for
:func:`kron` and :func:`urand` one stream per fixed-size block of edges,
spawned from its ``SeedSequence``), and the rest is integer arithmetic,
sorting and, for :func:`rgg`, IEEE float64 distances, none of which depend
on the platform or the thread count. A change to any of this changes the
graphs; ``tests/io/test_generators.py`` pins checksums.

Importing this module imports numpy only (scipy for :func:`rgg`, the thread
pool and :class:`~bitgraph.Matrix` are imported on first use).

How :func:`kron` stays fast and exact (scale 24: 268M generated edges,
521M stored entries, about 4.5 GB at the peak): one random *byte* per
(edge, bit) decides the quadrant of that bit (the quadrants are laid out on
[0, 1) as A, B, D, C, so the row bit is ``u >= a + b`` and the column bit
``a <= u < a + b + d``); the 1.2% of bytes that straddle a boundary draw 24
more bits, so each quadrant's probability is exact to 2^-32. Blocks of edges
run on a thread pool (numpy releases the GIL). Each edge becomes two keys
``row << 32 | col`` (uint64), the keys of rows < n/2 at the front of one
buffer and the others at its back; the two halves are sorted in parallel,
deduplicated, and the column indices compacted into the same buffer, which
is then shrunk: the matrix is the keys' memory, no second copy.
"""

from __future__ import annotations

import math
import os
import re
import sys
import threading

import numpy as np

from ..errors import InvalidValue

__all__ = [
    "kron", "kron_edges", "urand", "urand_edges", "grid2d", "grid2d_edges",
    "grid3d", "grid3d_edges", "moore2d", "moore2d_edges", "moore3d", "moore3d_edges",
    "rgg", "rgg_edges", "rgg_points", "rgg_radius", "kronh", "kronh_edges", "urandh",
    "urandh_edges",
    "random_weights", "parse_spec", "from_spec",
]

MAX_SCALE = 40

# Graph500 quadrant probabilities A, B, C, D, in hundredths (exact integers).
_KRON_WEIGHTS = (57, 19, 19, 5)
# Edges per random stream. Part of the definition of the graphs: changing a
# block size changes every graph of that generator (threads do not).
_KRON_BLOCK = 1 << 16
_KRON_PIECE = 1 << 14  # edges per vectorised step (also fixes the order of the draws)
_URAND_BLOCK = 1 << 20
_SENTINEL = np.uint64(0xFFFF_FFFF_FFFF_FFFF)  # a dropped (self-loop) key
_LE = sys.byteorder == "little"


# --- argument checks ------------------------------------------------------------------

def _int(name, value, lo=0, hi=None, *, where):
    """value as an int in [lo, hi]; bools and non-integral numbers refused."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        if isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
            value = int(value)
        else:
            raise InvalidValue(f"{where}: {name} must be an integer, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in {lo}..{hi}"
        raise InvalidValue(f"{where}: {name} must be {rng}, got {value}")
    return value


def _float(name, value, *, where):
    if isinstance(value, (bool, np.bool_, str, bytes)):
        raise InvalidValue(f"{where}: {name} must be a number, got {value!r}")
    try:
        f = float(value)
    except (TypeError, ValueError):
        raise InvalidValue(f"{where}: {name} must be a number, got {value!r}") from None
    if not math.isfinite(f):
        raise InvalidValue(f"{where}: {name} must be finite, got {value!r}")
    return f


def _seed(seed, where):
    return _int("seed", seed, 0, where=where)


def _drop(drop, where):
    d = _float("drop", drop, where=where)
    if not 0.0 <= d <= 1.0:
        raise InvalidValue(f"{where}: drop must be in [0, 1], got {drop!r}")
    return d


# --- helpers ---------------------------------------------------------------------------

def _index_dtype(*bounds):
    from .. import _array as ar

    return ar.index_dtype(*bounds)


def _num_threads():
    try:
        from ..kernels.cpu import num_threads

        return num_threads()
    except ImportError:  # pragma: no cover
        return os.cpu_count() or 1


def _run(fn, items):
    """fn over items on a thread pool (numpy releases the GIL); results in order."""
    items = list(items)
    nt = min(_num_threads(), len(items))
    if nt <= 1:
        return [fn(x) for x in items]
    import contextvars
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(nt, thread_name_prefix="bitgraph-gen") as ex:
        # each item in a copy of the caller's context (its settings)
        return list(ex.map(lambda x: contextvars.copy_context().run(fn, x), items))


def _raw(bitgen, count):
    """count raw PCG64 outputs as little-endian uint64 (same bytes on every platform)."""
    return bitgen.random_raw(count).astype("<u8", copy=False)


def _to_matrix(n, indptr, indices):
    from ..formats.csr import CSR
    from ..matrix import Matrix

    A = Matrix._from_csr(CSR(indptr, indices, None, n, n))
    # symmetric by construction: recorded where algorithms._common.is_symmetric
    # caches it, so the algorithms skip building A' to find out
    from ..algorithms._common import record

    record(A, "symmetric", True)
    return A


def _to_edges(n, indptr, indices):
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr).astype(np.int64))
    return n, rows, indices.astype(np.int64)


class _SymSink:
    """Collects undirected edges (both directions) and builds the CSR.

    ``put(offset, s, d)`` adds edges ``offset .. offset + len(s)`` of the
    ``m`` announced, from any thread; ``csr()`` sorts, drops self-loops and
    duplicates and returns ``(indptr, indices)`` in the matrix index dtype.
    Keys ``row << 32 | col`` (uint64) while n <= 2^32, (row, col) pairs beyond.

    With several threads the keys of rows < n/2 are packed from the front of
    the buffer and the others from the back, in whatever order the threads
    come: the two halves are then sorted in parallel and, one after the
    other, they are the sorted keys. (Sorting makes the result independent
    of that order.) With one thread each edge has its fixed place.
    """

    def __init__(self, n: int, m: int):
        self.n, self.m = n, m
        self.packed = n <= (1 << 32)
        if self.packed:
            self.keys = np.empty(2 * m, np.uint64)
            self.split = _num_threads() > 1 and m > (1 << 16)
            self.front, self.back = 0, 2 * m
            self.lock = threading.Lock()
        else:
            self.rows = np.empty(2 * m, np.int64)
            self.cols = np.empty(2 * m, np.int64)

    def put(self, offset, s, d):
        c = s.shape[0]
        lo, hi = 2 * offset, 2 * offset + c
        loops = s == d
        if not self.packed:
            self.rows[lo:hi], self.cols[lo:hi] = s, d
            self.rows[hi:hi + c], self.cols[hi:hi + c] = d, s
            self.rows[lo:hi][loops] = -1
            self.rows[hi:hi + c][loops] = -1
            return
        if not self.split:
            for a, b, out in ((s, d, self.keys[lo:hi]), (d, s, self.keys[hi:hi + c])):
                np.left_shift(a, 32, out=out, dtype=np.uint64, casting="unsafe")
                np.bitwise_or(out, b, out=out, casting="unsafe")
                out[loops] = _SENTINEL
            return
        half = self.n // 2
        parts = []
        for a, b in ((s, d), (d, s)):
            k = np.left_shift(a, 32, dtype=np.uint64, casting="unsafe")
            np.bitwise_or(k, b, out=k, casting="unsafe")
            k[loops] = _SENTINEL
            low = a < half
            low[loops] = False  # sentinels go last
            parts.append((k, low, int(np.count_nonzero(low))))
        nlow = parts[0][2] + parts[1][2]
        with self.lock:
            f = self.front
            self.front += nlow
            self.back -= 2 * c - nlow
            b = self.back
        for k, low, cl in parts:
            np.compress(low, k, out=self.keys[f:f + cl])
            np.compress(~low, k, out=self.keys[b:b + c - cl])
            f, b = f + cl, b + c - cl

    def csr(self):
        if not self.packed:
            return _csr_from_pairs(self.n, self.rows, self.cols)
        if not self.split:
            return _csr_from_keys(self.n, self.keys)
        _run(np.ndarray.sort, [self.keys[:self.front], self.keys[self.front:]])
        return _csr_from_keys(self.n, self.keys, [0, self.front, self.keys.shape[0]])


def _csr_from_keys(n, keys, segments=None):
    """CSR of the distinct keys ``row << 32 | col``, sentinels dropped.

    ``keys`` must own its memory. ``segments``: ``[0, s1, ..., len(keys)]``,
    pieces already sorted whose concatenation is sorted (rows of different
    pieces disjoint); by default ``keys`` is sorted here as one piece. Each
    piece's column indices are compacted into its own first bytes (every
    write lands behind the keys still to be read), in parallel, then moved
    together, and ``keys`` is shrunk to them: the matrix costs no memory
    beyond the keys.
    """
    if segments is None:
        keys.sort()
        segments = [0, keys.shape[0]]
    end = keys.shape[0]
    if end and keys[-1] == _SENTINEL:
        end = int(np.searchsorted(keys[segments[-2]:], _SENTINEL)) + segments[-2]
    idt = _index_dtype(end, n)  # nnz <= end
    per_key = 8 // np.dtype(idt).itemsize
    out = keys.view(idt)
    halves = keys.view(np.uint32)
    cols_all, rows_all = (halves[0::2], halves[1::2]) if _LE else (halves[1::2], halves[0::2])
    counts = np.zeros(n + 1, idt)  # row lengths, then indptr; pieces touch disjoint rows
    from bitgraph.settings import current

    step = current().io.dedup_chunk  # keys per step: bounds the temporaries

    def compact(seg):  # -> entries written at out[lo * per_key:]
        lo, hi = segments[seg], min(segments[seg + 1], end)
        pos, last = lo * per_key, None
        for start in range(lo, hi, step):
            stop = min(hi, start + step)
            k = keys[start:stop]
            f = np.empty(stop - start, np.bool_)  # first of each run of equal keys
            np.not_equal(k[1:], k[:-1], out=f[1:])
            f[0] = last is None or k[0] != last
            last = k[-1].copy()
            c = int(np.count_nonzero(f))
            if c:
                rows = np.compress(f, rows_all[start:stop])
                r0, r1 = int(rows[0]), int(rows[-1])
                first = np.searchsorted(rows, np.arange(r0, r1 + 1, dtype=np.uint32))
                counts[r0 + 1:r1 + 2] += np.diff(first, append=c).astype(idt)
                out[pos:pos + c] = np.compress(f, cols_all[start:stop])
                pos += c
        return pos - lo * per_key

    sizes = _run(compact, range(len(segments) - 1))
    nnz = 0
    for seg, size in enumerate(sizes):  # move the pieces together
        src = segments[seg] * per_key
        if src != nnz:
            out[nnz:nnz + size] = out[src:src + size]
        nnz += size
    del out, halves, cols_all, rows_all
    try:  # give the tail back (no other view of keys is left)
        keys.resize(max(1, -(-nnz // per_key)), refcheck=False)
        indices = keys.view(idt)[:nnz]
    except ValueError:  # pragma: no cover (keys not owning its memory)
        indices = keys.view(idt)[:nnz].copy()
    final = _index_dtype(nnz, n)
    indptr = np.cumsum(counts, out=counts).astype(final, copy=False)
    return indptr, indices.astype(final, copy=False)


def _csr_from_pairs(n, rows, cols):
    """CSR of the distinct (row, col) pairs, rows < 0 dropped (ids beyond 2^32)."""
    keep = rows >= 0
    rows, cols = rows[keep], cols[keep]
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    f = np.ones(rows.shape[0], np.bool_)
    f[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
    rows, cols = rows[f], cols[f]
    idt = _index_dtype(rows.shape[0], n)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr.astype(idt, copy=False), cols.astype(idt)


# --- Kronecker (Graph500 R-MAT) -----------------------------------------------------------

def _kron_thresholds():
    """Quadrant boundaries on [0, 2^32): A below t_a, then B, D, C (C on top)."""
    a, b, c, d = _KRON_WEIGHTS
    tot = a + b + c + d
    cut = lambda w: (w * (1 << 32) + tot // 2) // tot  # noqa: E731 (round to nearest)
    return cut(a), cut(a + b), cut(a + b + d)


def _pack(bits, count, sp, scale):
    """bits[count * sp + 64] (0/1 bytes; the last 64 zero): bit k of edge e at
    ``e * sp + k`` -> one uint64 per edge (an 8-byte little-endian window of
    the packed bits every ``sp / 8`` bytes, masked to ``scale`` bits)."""
    p = np.packbits(bits, bitorder="little")
    w = np.ndarray((count,), dtype="<u8", buffer=p, strides=(sp // 8,))
    return w & np.uint64((1 << scale) - 1)


class _Work:
    """Per-thread scratch for :func:`_rmat_bits` (reused: no page faults per block)."""

    def __init__(self, size):
        self.row, self.col = np.empty(size + 64, np.bool_), np.empty(size + 64, np.bool_)
        self.amb, self.tmp = np.empty(size, np.bool_), np.empty(size, np.bool_)
        self.u8 = np.empty(size, np.uint8)


def _rmat_bits(bitgen, count, scale, work):
    """(src, dst) uint64 of ``count`` R-MAT edges before relabelling.

    Bit k of edge e comes from random byte ``e * sp + k`` (sp: scale rounded
    up to a multiple of 8; the padding bits are drawn and discarded); a byte
    that straddles a quadrant boundary draws 24 more bits (in byte order).
    """
    sp = -(-scale // 8) * 8
    if sp == 0:
        z = np.zeros(count, np.uint64)
        return z, z.copy()
    ta, tab, tabd = _kron_thresholds()
    ba, bab, babd = ta >> 24, tab >> 24, tabd >> 24
    size = count * sp
    u8 = _raw(bitgen, size // 8).view(np.uint8)
    row, col, amb, tmp, t8 = (a[:size] for a in (work.row, work.col, work.amb, work.tmp, work.u8))
    np.greater(u8, bab, out=row)                                # u >= a + b: C or D
    np.subtract(u8, ba + 1, out=t8, dtype=np.uint8, casting="unsafe")
    np.less(t8, babd - ba - 1, out=col)                         # a <= u < a + b + d: B or D
    np.equal(u8, ba, out=amb)                                   # bytes on a boundary
    np.equal(u8, bab, out=tmp)
    amb |= tmp
    np.equal(u8, babd, out=tmp)
    amb |= tmp
    idx = np.flatnonzero(amb)
    if idx.size:
        u = (u8[idx].astype(np.uint64) << np.uint64(24)) | (
            _raw(bitgen, idx.shape[0]) >> np.uint64(40))
        row[idx] = u >= tab
        col[idx] = (u >= ta) & (u < tabd)
    work.row[size:size + 64] = False  # packing reads up to 7 bytes past the last edge
    work.col[size:size + 64] = False
    return (_pack(work.row[:size + 64], count, sp, scale),
            _pack(work.col[:size + 64], count, sp, scale))


def _check_kron(scale, edgefactor, seed, where="kron"):
    return (_int("scale", scale, 0, MAX_SCALE, where=where),
            _int("edgefactor", edgefactor, 0, where=where), _seed(seed, where))


def _kron_csr(scale, edgefactor, seed):
    n = 1 << scale
    m = edgefactor * n
    ss = np.random.SeedSequence(seed)
    ids = np.arange(n, dtype=np.uint32 if n <= (1 << 32) else np.int64)
    perm = np.random.default_rng(ss).permutation(ids)  # random vertex relabelling
    nblocks = -(-m // _KRON_BLOCK)
    streams = ss.spawn(nblocks)
    sink = _SymSink(n, m)
    works = {}

    def block(b):
        work = works.get(threading.get_ident())
        if work is None:
            work = works[threading.get_ident()] = _Work(_KRON_PIECE * (-(-scale // 8) * 8))
        bitgen = np.random.PCG64(streams[b])
        stop = min(m, (b + 1) * _KRON_BLOCK)
        for off in range(b * _KRON_BLOCK, stop, _KRON_PIECE):  # pieces: cache-sized
            src, dst = _rmat_bits(bitgen, min(_KRON_PIECE, stop - off), scale, work)
            sink.put(off, np.take(perm, src.view(np.int64)), np.take(perm, dst.view(np.int64)))

    _run(block, range(nblocks))
    return n, *sink.csr()


def kron(scale, edgefactor=16, seed=0):
    """Graph500 Kronecker (R-MAT) graph with ``2**scale`` vertices.

    ``edgefactor * 2**scale`` edges are drawn, each bit of the endpoints
    choosing a quadrant with probabilities A=0.57, B=0.19, C=0.19, D=0.05
    (exact to 2^-32); vertices are relabelled by a random permutation; the
    edges are symmetrised and self-loops and duplicates dropped. Scale 24
    (16.7M vertices, 521M stored entries) peaks at about 4.5 GB.

    >>> A = kron(6, seed=1)
    >>> A.nrows, A.nvals
    (64, 758)
    >>> bool((A.to_scipy() != A.to_scipy().T).nnz == 0)
    True
    """
    scale, edgefactor, seed = _check_kron(scale, edgefactor, seed)
    return _to_matrix(*_kron_csr(scale, edgefactor, seed))


def kron_edges(scale, edgefactor=16, seed=0):
    """:func:`kron` as ``(n, rows, cols)``: the stored entries, int64, row-major
    (16 bytes per entry: scale 24 needs about 8.5 GB on top of the CSR).

    >>> n, rows, cols = kron_edges(4, seed=2)
    >>> n, rows.size, bool((rows != cols).all())
    (16, 122, True)
    """
    scale, edgefactor, seed = _check_kron(scale, edgefactor, seed, "kron_edges")
    return _to_edges(*_kron_csr(scale, edgefactor, seed))


# --- uniform random (GAP urand) ------------------------------------------------------------

def _check_urand(scale, degree, seed, where="urand"):
    return (_int("scale", scale, 0, MAX_SCALE, where=where),
            _int("degree", degree, 0, where=where), _seed(seed, where))


def _urand_csr(scale, degree, seed):
    n = 1 << scale
    m = degree * n // 2
    mask = np.uint64(n - 1)
    nblocks = -(-m // _URAND_BLOCK)
    streams = np.random.SeedSequence(seed).spawn(nblocks)
    sink = _SymSink(n, m)

    def block(b):
        off = b * _URAND_BLOCK
        count = min(_URAND_BLOCK, m - off)
        bitgen = np.random.PCG64(streams[b])
        if scale <= 32:  # both endpoints from one 64-bit draw
            r = _raw(bitgen, count)
            s, d = r & mask, (r >> np.uint64(32)) & mask
        else:
            r = _raw(bitgen, 2 * count) & mask
            s, d = r[0::2], r[1::2]
        sink.put(off, s, d)

    _run(block, range(nblocks))
    return n, *sink.csr()


def urand(scale, degree=16, seed=0):
    """Uniform random graph (Erdős–Rényi-like, GAP's urand), ``2**scale`` vertices.

    ``degree * 2**scale / 2`` undirected edges with both endpoints uniform;
    symmetrised, self-loops and duplicates dropped (average degree just
    under ``degree``).

    >>> A = urand(8, degree=4, seed=1)
    >>> A.nrows, A.nvals
    (256, 1012)
    """
    scale, degree, seed = _check_urand(scale, degree, seed)
    return _to_matrix(*_urand_csr(scale, degree, seed))


def urand_edges(scale, degree=16, seed=0):
    """:func:`urand` as ``(n, rows, cols)`` int64 arrays.

    >>> n, rows, cols = urand_edges(4, degree=2, seed=0)
    >>> n, rows.size == cols.size
    (16, True)
    """
    scale, degree, seed = _check_urand(scale, degree, seed, "urand_edges")
    return _to_edges(*_urand_csr(scale, degree, seed))


# --- hashed (counter-based) Kronecker and uniform random -----------------------------------

# Edge i of a hashed graph is a pure function of (seed, i): splitmix64 (Steele, Lea and
# Flood 2014) in uint64 wrapping arithmetic, written once over the array module, so numpy
# and CuPy make the same bits and any rank makes any range of edges without the others.
_GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment (2^64 / golden ratio, odd)
_M64 = (1 << 64) - 1
_FEISTEL_ROUNDS = 4  # rounds of the vertex relabelling (Luby-Rackoff: 4 make a strong PRP)
_SALT_KRON, _SALT_PERM, _SALT_URAND = 1, 2, 3


def _fmix_int(x):
    """splitmix64's finalizer on a Python int (mod 2^64)."""
    x &= _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def _fmix(x):
    """splitmix64's finalizer on a uint64 array of numpy or CuPy (wrapping: integer
    array arithmetic never warns)."""
    x = x ^ (x >> np.uint64(30))
    x = x * np.uint64(0xBF58476D1CE4E5B9)
    x = x ^ (x >> np.uint64(27))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def _hash_key(seed, salt):
    """The 64-bit key of one use (``salt``) of ``seed``."""
    return _fmix_int(_fmix_int(seed * _GOLDEN + _GOLDEN) + salt * _GOLDEN)


def _counter_hash(xp, key, lo, hi):
    """uint64[hi - lo]: output i of the splitmix64 stream ``key``, for i in lo..hi."""
    i = xp.arange(lo, hi, dtype=xp.uint64)
    return _fmix(i * np.uint64(_GOLDEN) + np.uint64((key + _GOLDEN) & _M64))


def _feistel(x, scale, keys):
    """A bijection of [0, 2^scale) on uint64 ``x``: an unbalanced Feistel network.
    Each round splits x into a high part of ``scale - w`` bits and a low part of
    ``w``, and returns ``lo << (scale - w) | (hi ^ F(lo))``, F a keyed splitmix64
    cut to ``scale - w`` bits; the next round's low part is ``scale - w`` bits. Each
    round is invertible (``lo`` is kept whole), so no cycle-walking is needed for
    any scale."""
    w = scale // 2
    for key in keys:
        top = scale - w
        hi = x >> np.uint64(w)
        lo = x & np.uint64((1 << w) - 1)
        f = _fmix(lo + np.uint64(key)) & np.uint64((1 << top) - 1)
        x = (lo << np.uint64(top)) | (hi ^ f)
        w = top
    return x


def _perm_keys(seed):
    base = _hash_key(seed, _SALT_PERM)
    return [_fmix_int(base + (r + 1) * _GOLDEN) for r in range(_FEISTEL_ROUNDS)]


def _kronh_edges_range(xp, scale, seed, lo, hi):
    """(src, dst) uint64 of R-MAT edges lo..hi of ``kronh(scale, *, seed)``.

    Level k of edge i takes 32 bits of a hash: word k // 2 of edge i's own
    splitmix64 stream (seeded by output i of the seed's stream), its low half
    for even k, high half for odd; the quadrant is read off integer thresholds
    on [0, 2^32) (A, B, D, C, as :func:`kron`): row bit ``u >= a + b``, column
    bit ``a <= u < a + b + d``. Then both ends go through :func:`_feistel`.
    """
    ta, tab, tabd = (np.uint64(t) for t in _kron_thresholds())
    e = _counter_hash(xp, _hash_key(seed, _SALT_KRON), lo, hi)
    src = xp.zeros(hi - lo, xp.uint64)
    dst = xp.zeros(hi - lo, xp.uint64)
    low = np.uint64(0xFFFF_FFFF)
    h = None
    for k in range(scale):
        if k % 2 == 0:
            h = _fmix(e + np.uint64(((k // 2 + 1) * _GOLDEN) & _M64))
            u = h & low
        else:
            u = h >> np.uint64(32)
        bit = np.uint64(k)
        src |= (u >= tab).astype(xp.uint64) << bit
        dst |= ((u >= ta) & (u < tabd)).astype(xp.uint64) << bit
    keys = _perm_keys(seed)
    return _feistel(src, scale, keys), _feistel(dst, scale, keys)


def _urandh_edges_range(xp, scale, seed, lo, hi):
    """(src, dst) uint64 of edges lo..hi of ``urandh(scale, *, seed)``: the low
    ``scale`` bits of hash i and of its upper half (scale <= 32) or of the next
    splitmix64 output of it (scale > 32)."""
    h = _counter_hash(xp, _hash_key(seed, _SALT_URAND), lo, hi)
    mask = np.uint64((1 << scale) - 1)
    other = h >> np.uint64(32) if scale <= 32 else _fmix(h + np.uint64(_GOLDEN))
    return h & mask, other & mask


def _hashed_size(name, kw):
    """(n, generated edges) of a hashed spec's kwargs."""
    n = 1 << kw["scale"]
    return n, (kw["edgefactor"] * n if name == "kronh" else kw["degree"] * n // 2)


def _hashed_edges_range(xp, name, kw, lo, hi):
    """(src, dst) uint64 on ``xp`` of generated edges lo..hi of hashed spec ``name``."""
    make = _kronh_edges_range if name == "kronh" else _urandh_edges_range
    return make(xp, kw["scale"], kw["seed"], lo, hi)


def _sym_keys(xp, s, d):
    """Entry keys ``row << 32 | col`` of both directions of edges (s, d), self-loops dropped."""
    keep = s != d
    s, d = s[keep], d[keep]
    sh = np.uint64(32)
    return xp.concatenate([(s << sh) | d, (d << sh) | s])


def _hashed_csr(name, kw):
    """(n, indptr, indices) on the CPU: chunks of edges on the thread pool into a _SymSink."""
    from ..settings import current

    n, m = _hashed_size(name, kw)
    sink = _SymSink(n, m)
    step = max(1, current().io.hashed_chunk)

    def chunk(c):
        lo = c * step
        s, d = _hashed_edges_range(np, name, kw, lo, min(m, lo + step))
        sink.put(lo, s, d)

    _run(chunk, range(-(-m // step)))
    return n, *sink.csr()


def _hashed_matrix(xp, name, kw, where):
    """The hashed graph made on ``xp``'s device (CuPy: the GPU): rounds of
    ``settings.distributed.step_entries`` edges, each round's keys sorted on the
    device and kept by row range on the host, then each range sorted and
    deduplicated on the device (:class:`_RowRanges`; the parallel generator's
    ranges, with one rank). Host: 6 bytes a generated entry; device peak: the
    CSR and one range of ``settings.distributed.sort_keys`` keys."""
    from ..algorithms._common import record
    from ..matrix import Matrix
    from ..settings import current

    if kw["scale"] > 31:
        raise InvalidValue(f"{where}: a hashed graph is made on the GPU up to scale 31, got"
                           f" {kw['scale']}; make it on the CPU (device='cpu')")
    cfg = current().distributed
    n, m = _hashed_size(name, kw)
    ranges = _RowRanges(0, n, 2 * m, cfg.sort_keys, n)
    for lo in range(0, m, cfg.step_entries):
        s, d = _hashed_edges_range(xp, name, kw, lo, min(m, lo + cfg.step_entries))
        ranges.put_sorted(xp.sort(_sym_keys(xp, s, d)))
        del s, d
    indptr, indices = ranges.csr(xp)
    idt = _index_dtype(indices.shape[0], n)
    A = Matrix.from_csr(indptr.astype(idt), indices.astype(idt, copy=False), ncols=n,
                        check=False, device="cpu" if xp is np else "cuda")
    record(A, "symmetric", True)
    return A


def _check_kronh(scale, edgefactor, seed, where="kronh"):
    return _check_kron(scale, edgefactor, seed, where)


def kronh(scale, edgefactor=16, seed=0):
    """Hashed Graph500-style R-MAT graph with ``2**scale`` vertices: the model of
    :func:`kron` (``edgefactor * 2**scale`` edges, quadrants A=0.57, B=0.19,
    C=0.19, D=0.05 exact to 2^-32, vertices relabelled, symmetrised, self-loops
    and duplicates dropped), but edge i is a pure function of ``(seed, i)``
    (splitmix64 counters, integer arithmetic only) and the relabelling a keyed
    Feistel permutation: any range of edges is made anywhere, numpy or CuPy, bit
    for bit; what ``DistMatrix.generate`` makes on every GPU at once. Not the same
    graph as ``kron(scale, edgefactor, seed)``.

    >>> A = kronh(6, seed=1)
    >>> A.nrows, A.nvals
    (64, 818)
    >>> bool((A.to_scipy() != A.to_scipy().T).nnz == 0)
    True
    """
    scale, edgefactor, seed = _check_kronh(scale, edgefactor, seed)
    return _to_matrix(*_hashed_csr("kronh", {"scale": scale, "edgefactor": edgefactor,
                                             "seed": seed}))


def kronh_edges(scale, edgefactor=16, seed=0):
    """:func:`kronh` as ``(n, rows, cols)`` int64 arrays, row-major.

    >>> n, rows, cols = kronh_edges(4, seed=2)
    >>> n, bool((rows != cols).all())
    (16, True)
    """
    scale, edgefactor, seed = _check_kronh(scale, edgefactor, seed, "kronh_edges")
    return _to_edges(*_hashed_csr("kronh", {"scale": scale, "edgefactor": edgefactor,
                                            "seed": seed}))


def urandh(scale, degree=16, seed=0):
    """Hashed uniform random graph, ``2**scale`` vertices: the model of :func:`urand`
    (``degree * 2**scale / 2`` edges, both ends uniform; symmetrised, self-loops
    and duplicates dropped) with edge i a pure function of ``(seed, i)``, as in
    :func:`kronh`. Not the same graph as ``urand(scale, degree, seed)``.

    >>> A = urandh(8, degree=4, seed=1)
    >>> A.nrows, A.nvals
    (256, 1002)
    """
    scale, degree, seed = _check_urand(scale, degree, seed, "urandh")
    return _to_matrix(*_hashed_csr("urandh", {"scale": scale, "degree": degree, "seed": seed}))


def urandh_edges(scale, degree=16, seed=0):
    """:func:`urandh` as ``(n, rows, cols)`` int64 arrays.

    >>> n, rows, cols = urandh_edges(4, degree=2, seed=0)
    >>> n, rows.size == cols.size
    (16, True)
    """
    scale, degree, seed = _check_urand(scale, degree, seed, "urandh_edges")
    return _to_edges(*_hashed_csr("urandh", {"scale": scale, "degree": degree, "seed": seed}))


class _RowRanges:
    """Entry keys ``row << 32 | col`` of rows ``lo .. hi`` (global row and column
    ids, columns below ``ncols``), kept apart on the host by row range, then
    each range sorted on the device, deduplicated and compacted into column
    ids: ``csr(xp)`` -> ``(indptr int64, indices int32)`` of rows ``lo .. hi``
    on ``xp``. A range holds about ``sort_keys`` of the ``expected`` entries
    and at most 2^(48 - column bits) rows, so that a key is kept in 6 bytes on
    the host (its row's offset in the range above the column: kronh-30 over
    two ranks stages 17G keys a rank, 102 GB where 8 bytes a key took 136 GB of
    a 256 GB host). ``staged``: the keys kept. Device peak: the indices and
    one range's keys.

    >>> r = _RowRanges(0, 4, 6, 2, 4)
    >>> r.put(np.array([2 << 32 | 1, 0 << 32 | 3, 2 << 32 | 1], np.uint64))
    >>> r.put_sorted(np.array([1 << 32 | 0, 3 << 32 | 2], np.uint64))
    >>> r.staged
    5
    >>> [a.tolist() for a in r.csr(np)]
    [[0, 1, 2, 3, 4], [3, 0, 1, 2]]
    """

    def __init__(self, lo, hi, expected, sort_keys, ncols):
        self.lo, self.hi = lo, hi
        self.col_bits = max(1, (int(ncols) - 1).bit_length())
        if self.col_bits > 31:
            raise InvalidValue(f"generators: column ids below {ncols} do not fit the int32 indices"
                               f" of the CSR")
        rows = max(1, hi - lo)
        pieces = max(1, min(rows, -(-int(expected) // max(1, sort_keys))),
                     -(-rows // (1 << (48 - self.col_bits))))
        self.cuts = np.array([lo + (hi - lo) * i // pieces for i in range(pieces + 1)], np.uint64)
        self.parts = [[] for _ in range(pieces)]
        self.staged = 0

    def _keep(self, packed, counts):
        """Keep ``packed`` (host uint64, grouped by range, ``counts`` a range)
        as 6-byte rows, each range's its own copy (freed as csr goes)."""
        b = packed.view(np.uint8).reshape(-1, 8)[:, :6]  # the low 48 bits (little-endian)
        at = 0
        for i, c in enumerate(counts):
            c = int(c)
            if c:
                self.parts[i].append(np.ascontiguousarray(b[at:at + c]))
                at += c
        self.staged += at

    def _packed(self, keys, which, xp):
        """keys (uint64, grouped by range) -> (row - its range's first) <<
        col_bits | col, ``which`` the keys' ranges."""
        first = xp.asarray(self.cuts[:-1])[which]
        off = (keys >> np.uint64(32)) - first
        return (off << np.uint64(self.col_bits)) | (keys & np.uint64(0xFFFF_FFFF))

    def put(self, keys):
        """Keep host ``keys`` (any order) by range: a counting sort by range."""
        if keys.size == 0:
            return
        which = np.searchsorted(self.cuts[1:-1] << np.uint64(32), keys, side="right")
        keys, counts = _grouped(keys, which, len(self.parts))
        which = np.repeat(np.arange(len(self.parts)), counts)
        self._keep(self._packed(keys, which, np), counts)

    def put_sorted(self, keys):
        """Keep sorted ``keys`` (numpy or CuPy) by range: duplicates dropped,
        packed where they are, copied to the host at once."""
        from ..device import host

        if keys.shape[0] == 0:
            return
        from .. import _array as ar

        xp = ar.array_module(keys)
        first = xp.ones(keys.shape[0], np.bool_)
        first[1:] = keys[1:] != keys[:-1]
        keys = keys[first]
        which = xp.searchsorted(xp.asarray(self.cuts[1:-1] << np.uint64(32)), keys,
                                side="right")
        at = host(xp.searchsorted(keys, xp.asarray(self.cuts[1:-1] << np.uint64(32))))
        bounds = np.array([0, *at.tolist(), keys.shape[0]], np.int64)  # synchronize!
        self._keep(host(self._packed(keys, which, xp)), np.diff(bounds))

    def csr(self, xp):
        n_local = self.hi - self.lo
        counts = np.zeros(n_local, np.int64)
        # the column ids, range by range into one device array of the staged keys'
        # length (duplicates dropped: its first `at` entries are the graph's)
        indices = xp.empty(self.staged, np.int32)
        at = 0
        mask = np.uint64((1 << self.col_bits) - 1)
        for i, part in enumerate(self.parts):
            if not part:
                continue
            b = xp.zeros((sum(p.shape[0] for p in part), 8), np.uint8)
            k = 0
            for p in part:  # one device array filled piece by piece (no host concatenation)
                b[k:k + p.shape[0], :6] = xp.asarray(p)
                k += p.shape[0]
            part.clear()  # the host copies go
            keys = xp.sort(b.view(np.uint64).ravel())
            del b
            first = xp.ones(keys.shape[0], np.bool_)
            first[1:] = keys[1:] != keys[:-1]
            keys = keys[first]
            r0 = int(self.cuts[i]) - self.lo
            r1 = int(self.cuts[i + 1]) - self.lo
            c = xp.bincount((keys >> np.uint64(self.col_bits)).astype(np.int64),
                            minlength=r1 - r0)
            counts[r0:r1] = c if xp is np else c.get()  # synchronize!
            indices[at:at + keys.shape[0]] = (keys & mask).astype(np.int32)
            at += keys.shape[0]
            del keys, first, c
        indptr = np.zeros(n_local + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        return xp.asarray(indptr), indices[:at]


def _grouped(keys, group, groups):
    """``(keys ordered by group, keys a group)``: a stable counting sort (numpy's
    radix sort of a uint8 / uint16 key; O(len)), the groups' counts."""
    small = np.uint8 if groups <= 256 else np.uint16 if groups <= 65536 else np.int64
    group = group.astype(small)
    return keys[np.argsort(group, kind="stable")], np.bincount(group, minlength=groups)


# --- meshes --------------------------------------------------------------------------------

def _check_dims(dims, where):
    return tuple(_int(name, v, 0, where=where) for name, v in dims)


def _grid_csr(shape, drop, seed):
    """Mesh on ``shape`` (C-order ids), each vertex joined to its 2*ndim axis
    neighbours; ``floor(drop * edges + 0.5)`` undirected edges removed at random
    (edges numbered axis by axis, each axis in C order)."""
    ndim = len(shape)
    n = math.prod(shape)
    if n == 0:
        return 0, np.zeros(1, np.int32), np.zeros(0, np.int32)
    strides = [math.prod(shape[a + 1:]) for a in range(ndim)]
    per_axis = [n // shape[a] * (shape[a] - 1) if shape[a] else 0 for a in range(ndim)]
    total = sum(per_axis)
    k = int(math.floor(drop * total + 0.5))
    keep = np.ones(total, np.bool_)
    if k:
        keep[np.random.default_rng(seed).choice(total, k, replace=False, shuffle=False)] = False
    # neighbour slots in increasing id order: -stride[0] < ... < -stride[-1] < +stride[-1] < ...
    slots = 2 * ndim
    offsets = np.array([-s for s in strides] + [s for s in reversed(strides)], np.int64)
    valid = np.zeros(tuple(shape) + (slots,), np.bool_)
    start = 0
    for a in range(ndim):
        ka = keep[start:start + per_axis[a]].reshape(
            tuple(shape[b] - (b == a) for b in range(ndim)))
        start += per_axis[a]
        lo = tuple(slice(1, None) if b == a else slice(None) for b in range(ndim))
        hi = tuple(slice(None, -1) if b == a else slice(None) for b in range(ndim))
        valid[lo + (a,)] = ka                 # edge to the lower neighbour along a
        valid[hi + (slots - 1 - a,)] = ka     # edge to the upper neighbour along a
    valid = valid.reshape(n, slots)
    deg = np.count_nonzero(valid, axis=1)
    nnz = int(deg.sum())
    wide = _index_dtype(nnz, n + max(strides, default=0))  # holds id +- stride
    ids = np.arange(n, dtype=wide)[:, None] + offsets.astype(wide)[None, :]
    idt = _index_dtype(nnz, n)
    indices = ids[valid].astype(idt, copy=False)
    indptr = np.zeros(n + 1, idt)
    np.cumsum(deg, out=indptr[1:])
    return n, indptr, indices


def _check_grid2d(rows, cols, drop, seed, where="grid2d"):
    return (*_check_dims((("rows", rows), ("cols", cols)), where), _drop(drop, where),
            _seed(seed, where))


def grid2d(rows, cols, drop=0.0, seed=0):
    """``rows x cols`` 4-neighbour mesh; vertex ``r * cols + c``.

    ``drop`` is the fraction of the ``rows*(cols-1) + cols*(rows-1)``
    undirected edges removed at random (``floor(drop * edges + 0.5)`` of
    them, chosen uniformly): a road-network-like graph of high diameter.

    >>> grid2d(3, 4).nvals
    34
    >>> grid2d(3, 4, drop=0.5, seed=1).nvals
    16
    """
    rows, cols, drop, seed = _check_grid2d(rows, cols, drop, seed)
    return _to_matrix(*_grid_csr((rows, cols), drop, seed))


def grid2d_edges(rows, cols, drop=0.0, seed=0):
    """:func:`grid2d` as ``(n, rows, cols)`` int64 arrays.

    >>> n, r, c = grid2d_edges(1, 3)
    >>> n, r.tolist(), c.tolist()
    (3, [0, 1, 1, 2], [1, 0, 2, 1])
    """
    rows, cols, drop, seed = _check_grid2d(rows, cols, drop, seed, "grid2d_edges")
    return _to_edges(*_grid_csr((rows, cols), drop, seed))


def _check_grid3d(nx, ny, nz, drop, seed, where="grid3d"):
    return (*_check_dims((("nx", nx), ("ny", ny), ("nz", nz)), where), _drop(drop, where),
            _seed(seed, where))


def grid3d(nx, ny, nz, drop=0.0, seed=0):
    """``nx x ny x nz`` 6-neighbour mesh; vertex ``(x * ny + y) * nz + z``.

    ``drop``: the fraction of undirected edges removed at random, as in
    :func:`grid2d`.

    >>> grid3d(2, 3, 4).nvals   # 2 * (1*3*4 + 2*2*4 + 2*3*3)
    92
    """
    nx, ny, nz, drop, seed = _check_grid3d(nx, ny, nz, drop, seed)
    return _to_matrix(*_grid_csr((nx, ny, nz), drop, seed))


def grid3d_edges(nx, ny, nz, drop=0.0, seed=0):
    """:func:`grid3d` as ``(n, rows, cols)`` int64 arrays.

    >>> n, r, c = grid3d_edges(2, 2, 2)
    >>> n, r.size
    (8, 24)
    """
    nx, ny, nz, drop, seed = _check_grid3d(nx, ny, nz, drop, seed, "grid3d_edges")
    return _to_edges(*_grid_csr((nx, ny, nz), drop, seed))


def _moore_csr(shape):
    """Mesh on ``shape`` (C-order ids), each vertex joined to every vertex
    whose coordinates differ by at most 1 in each axis (the Moore
    neighbourhood: 8 in 2D, 26 in 3D). C-order ids follow the coordinates'
    lexicographic order, so the offsets in that order give sorted rows."""
    import itertools

    ndim = len(shape)
    n = math.prod(shape)
    if n == 0:
        return 0, np.zeros(1, np.int32), np.zeros(0, np.int32)
    offsets = [o for o in itertools.product((-1, 0, 1), repeat=ndim) if any(o)]
    coords = np.indices(shape).reshape(ndim, n)
    strides = [math.prod(shape[a + 1:]) for a in range(ndim)]
    valid = np.ones((n, len(offsets)), np.bool_)
    for j, o in enumerate(offsets):
        for a in range(ndim):
            c = coords[a] + o[a]
            valid[:, j] &= (c >= 0) & (c < shape[a])
    deg = np.count_nonzero(valid, axis=1)
    nnz = int(deg.sum())
    lin = np.array([sum(x * st for x, st in zip(o, strides)) for o in offsets], np.int64)
    idt = _index_dtype(nnz, n)
    indices = (np.arange(n, dtype=np.int64)[:, None] + lin[None, :])[valid].astype(idt)
    indptr = np.zeros(n + 1, idt)
    np.cumsum(deg, out=indptr[1:])
    return n, indptr, indices


def moore2d(rows, cols):
    """``rows x cols`` 8-neighbour mesh (a grid with its diagonals); vertex
    ``r * cols + c``: a long mesh of mean degree ~8.

    >>> moore2d(3, 4).nvals   # 17 axis edges and 12 diagonal ones, both directions
    58
    """
    rows, cols = _check_dims((("rows", rows), ("cols", cols)), "moore2d")
    return _to_matrix(*_moore_csr((rows, cols)))


def moore2d_edges(rows, cols):
    """:func:`moore2d` as ``(n, rows, cols)`` int64 arrays.

    >>> n, r, c = moore2d_edges(2, 2)
    >>> n, r.tolist(), c.tolist()
    (4, [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3], [1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2])
    """
    rows, cols = _check_dims((("rows", rows), ("cols", cols)), "moore2d_edges")
    return _to_edges(*_moore_csr((rows, cols)))


def moore3d(nx, ny, nz):
    """``nx x ny x nz`` 26-neighbour mesh; vertex ``(x * ny + y) * nz + z``:
    a long mesh of mean degree ~26.

    >>> moore3d(3, 3, 3).nvals   # the centre has 26 neighbours, a corner 7
    316
    """
    dims = _check_dims((("nx", nx), ("ny", ny), ("nz", nz)), "moore3d")
    return _to_matrix(*_moore_csr(dims))


def moore3d_edges(nx, ny, nz):
    """:func:`moore3d` as ``(n, rows, cols)`` int64 arrays.

    >>> n, r, c = moore3d_edges(2, 2, 2)
    >>> n, r.size   # every pair of the 8 corners of a cube
    (8, 56)
    """
    dims = _check_dims((("nx", nx), ("ny", ny), ("nz", nz)), "moore3d_edges")
    return _to_edges(*_moore_csr(dims))


def rgg_radius(n, degree):
    """The radius that gives ``rgg(n, radius)`` a mean degree of about
    ``degree`` (``n * pi * r^2`` expected neighbours, less near the square's
    edges): ``sqrt(degree / (pi * n))``.

    >>> round(rgg_radius(4194304, 16), 6)
    0.001102
    """
    n = _int("n", n, 1, where="rgg_radius")
    d = _float("degree", degree, where="rgg_radius")
    if not d > 0:
        raise InvalidValue(f"rgg_radius: degree must be > 0, got {degree!r}")
    return math.sqrt(d / (math.pi * n))


# --- random geometric -------------------------------------------------------------------------

def _check_rgg(n, radius, seed, where="rgg"):
    n = _int("n", n, 0, where=where)
    r = _float("radius", radius, where=where)
    if not r > 0:
        raise InvalidValue(f"{where}: radius must be > 0, got {radius!r}")
    return n, r, _seed(seed, where)


def rgg_points(n, seed=0):
    """The ``(n, 2)`` float64 points of ``rgg(n, radius, seed)`` (uniform in [0, 1)^2).

    >>> rgg_points(3, seed=1).shape
    (3, 2)
    """
    n = _int("n", n, 0, where="rgg_points")
    return np.random.default_rng(_seed(seed, "rgg_points")).random((n, 2))


def _rgg_csr(n, radius, seed):
    from scipy.spatial import cKDTree

    pts = np.random.default_rng(seed).random((n, 2))
    if n < 2:
        pairs = np.zeros((0, 2), np.int64)
    else:
        # a little beyond radius, then the exact test (the tree's rounding may differ)
        pairs = cKDTree(pts).query_pairs(radius * (1 + 1e-9), output_type="ndarray")
    i, j = pairs[:, 0], pairs[:, 1]
    dx = pts[i, 0] - pts[j, 0]
    dy = pts[i, 1] - pts[j, 1]
    near = np.sqrt(dx * dx + dy * dy) < radius
    i, j = i[near], j[near]
    sink = _SymSink(n, i.shape[0])
    sink.put(0, i.astype(np.uint64), j.astype(np.uint64))
    return n, *sink.csr()


def rgg(n, radius, seed=0):
    """Random geometric graph: ``n`` uniform points in the unit square
    (:func:`rgg_points`), an edge where the Euclidean distance is < ``radius``.

    >>> A = rgg(1000, 0.05, seed=1)
    >>> A.nrows, A.nvals
    (1000, 7486)
    """
    n, radius, seed = _check_rgg(n, radius, seed)
    return _to_matrix(*_rgg_csr(n, radius, seed))


def rgg_edges(n, radius, seed=0):
    """:func:`rgg` as ``(n, rows, cols)`` int64 arrays.

    >>> n, r, c = rgg_edges(100, 0.2, seed=0)
    >>> n, r.size == c.size
    (100, True)
    """
    n, radius, seed = _check_rgg(n, radius, seed, "rgg_edges")
    return _to_edges(*_rgg_csr(n, radius, seed))


# --- weights -------------------------------------------------------------------------------------

def random_weights(A, lo, hi, seed=0):
    """``A``'s pattern with random weights in ``[lo, hi]``: int64 when both
    bounds are integers (every integer in the range equally likely), else
    float64 (uniform on [lo, hi)).

    The weight of entry (i, j) is a hash (splitmix64) of ``(min(i, j),
    max(i, j), seed)``, not a draw from a stream: both directions of an
    undirected edge get the same weight, the same seed gives the same
    weights on every machine and in any order, and a subgraph keeps its
    edges' weights. Values of ``A`` are ignored; the result is on ``A``'s
    device.

    >>> import bitgraph as bg
    >>> A = bg.io.generators.grid2d(2, 2)
    >>> W = random_weights(A, 1, 9, seed=3)
    >>> W.dtype, W.to_coo()[2].tolist()
    (dtype('int64'), [6, 2, 6, 8, 2, 2, 8, 2])
    >>> W.isequal(W.T.copy()), random_weights(A, 1, 9, seed=3).isequal(W)
    (True, True)
    >>> random_weights(A, 0.5, 1.0).dtype
    dtype('float64')
    """
    from ..device import host
    from ..matrix import Matrix

    where = "random_weights"
    integer = all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
                  for x in (lo, hi))
    if integer:
        lo, hi = int(lo), int(hi)
        if hi - lo >= 2 ** 63:
            raise InvalidValue(f"{where}: the range [{lo}, {hi}] is wider than int64")
    else:
        lo, hi = _float("lo", lo, where=where), _float("hi", hi, where=where)
    if not lo <= hi:
        raise InvalidValue(f"{where}: needs lo <= hi, got lo={lo}, hi={hi}")
    seed = _seed(seed, where)
    if not hasattr(A, "indptr"):  # a transpose view
        A = A.copy()
    indptr, indices = host(A.indptr), host(A.indices)
    rows = np.repeat(np.arange(A.nrows, dtype=np.uint64), np.diff(indptr).astype(np.int64))
    cols = indices.astype(np.uint64)
    a, b = np.minimum(rows, cols), np.maximum(rows, cols)
    h = _splitmix64(_splitmix64(a ^ _splitmix64(np.uint64(seed) + b)))
    if integer:
        w = (h % np.uint64(hi - lo + 1)).astype(np.int64) + lo
    else:
        w = lo + (h >> np.uint64(11)).astype(np.float64) * (2.0 ** -53) * (hi - lo)
    return Matrix.from_csr(indptr, indices, w, ncols=A.ncols, check=False, device=A.device)


def _splitmix64(x):
    """splitmix64's output function on uint64 arrays (wrapping arithmetic)."""
    x = np.asarray(x, np.uint64)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


# --- specs ---------------------------------------------------------------------------------------

SPEC_FORMS = ("kron:SCALE[:EDGEFACTOR], urand:SCALE[:DEGREE], kronh:SCALE[:EDGEFACTOR], "
              "urandh:SCALE[:DEGREE], grid:ROWSxCOLS[:DROP], "
              "grid:NXxNYxNZ[:DROP], moore:ROWSxCOLS, moore:NXxNYxNZ, rgg:N:RADIUS, "
              "rgg:N:dDEGREE; each optionally followed by @SEED")

_NUM = r"[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?"
_SPEC_RE = re.compile(
    r"(?P<kind>kronh|urandh|kron|urand|grid|moore|rgg):(?P<args>[^@\s]+)(?:@(?P<seed>[0-9]+))?",
    re.IGNORECASE)
_FORMS = {
    "kron": re.compile(r"(?P<scale>[0-9]+)(?::(?P<edgefactor>[0-9]+))?"),
    "kronh": re.compile(r"(?P<scale>[0-9]+)(?::(?P<edgefactor>[0-9]+))?"),
    "urandh": re.compile(r"(?P<scale>[0-9]+)(?::(?P<degree>[0-9]+))?"),
    "urand": re.compile(r"(?P<scale>[0-9]+)(?::(?P<degree>[0-9]+))?"),
    "grid": re.compile(r"(?P<a>[0-9]+)[xX](?P<b>[0-9]+)(?:[xX](?P<c>[0-9]+))?"
                       rf"(?::(?P<drop>{_NUM}))?"),
    "moore": re.compile(r"(?P<a>[0-9]+)[xX](?P<b>[0-9]+)(?:[xX](?P<c>[0-9]+))?"),
    "rgg": re.compile(rf"(?P<n>[0-9]+):(?:(?P<radius>{_NUM})|[dD](?P<degree>{_NUM}))"),
}


def parse_spec(spec: str):
    """``(name, kwargs)`` for a generator spec: the function of this module
    and its arguments, checked.

    >>> parse_spec("kron:16@3")
    ('kron', {'scale': 16, 'edgefactor': 16, 'seed': 3})
    >>> parse_spec("grid:64x64x64")
    ('grid3d', {'nx': 64, 'ny': 64, 'nz': 64, 'drop': 0.0, 'seed': 0})
    >>> try:
    ...     parse_spec("ring:5")
    ... except ValueError as e:
    ...     print(str(e)[:48])
    bad graph spec 'ring:5': expected kron:SCALE[:ED
    """
    text = spec if isinstance(spec, str) else repr(spec)

    def bad(why=""):
        return InvalidValue(f"bad graph spec {text!r}: {why}expected {SPEC_FORMS}")

    if not isinstance(spec, str):
        raise bad()
    m = _SPEC_RE.fullmatch(spec.strip())
    if m is None:
        raise bad()
    kind = m["kind"].lower()
    a = _FORMS[kind].fullmatch(m["args"])
    if a is None:
        raise bad()
    seed = int(m["seed"]) if m["seed"] is not None else 0
    try:
        if kind in ("kron", "kronh"):
            ef = int(a["edgefactor"]) if a["edgefactor"] is not None else 16
            s, ef, seed = _check_kron(int(a["scale"]), ef, seed, kind)
            return kind, {"scale": s, "edgefactor": ef, "seed": seed}
        if kind in ("urand", "urandh"):
            deg = int(a["degree"]) if a["degree"] is not None else 16
            s, deg, seed = _check_urand(int(a["scale"]), deg, seed, kind)
            return kind, {"scale": s, "degree": deg, "seed": seed}
        if kind == "grid":
            drop = float(a["drop"]) if a["drop"] is not None else 0.0
            if a["c"] is None:
                r, c, drop, seed = _check_grid2d(int(a["a"]), int(a["b"]), drop, seed)
                return "grid2d", {"rows": r, "cols": c, "drop": drop, "seed": seed}
            x, y, z, drop, seed = _check_grid3d(int(a["a"]), int(a["b"]), int(a["c"]), drop, seed)
            return "grid3d", {"nx": x, "ny": y, "nz": z, "drop": drop, "seed": seed}
        if kind == "moore":
            if m["seed"] is not None:
                raise InvalidValue("a moore mesh takes no seed")
            if a["c"] is None:
                r, c = _check_dims((("rows", int(a["a"])), ("cols", int(a["b"]))), "moore2d")
                return "moore2d", {"rows": r, "cols": c}
            x, y, z = _check_dims((("nx", int(a["a"])), ("ny", int(a["b"])),
                                   ("nz", int(a["c"]))), "moore3d")
            return "moore3d", {"nx": x, "ny": y, "nz": z}
        radius = (float(a["radius"]) if a["degree"] is None
                  else rgg_radius(int(a["n"]), float(a["degree"])))
        n, r, seed = _check_rgg(int(a["n"]), radius, seed)
        return "rgg", {"n": n, "radius": r, "seed": seed}
    except InvalidValue as e:
        raise bad(f"{e}; ") from None


def from_spec(spec: str, *, device=None):
    """The graph a spec names, as a :class:`~bitgraph.Matrix`.

    ``kron:20`` (``kron:20:16``: edgefactor 16), ``urand:20:16``,
    ``grid:2048x2048`` (:func:`grid2d`; ``grid:2048x2048:0.1`` drops 10% of
    the edges), ``grid:64x64x64`` (:func:`grid3d`), ``moore:2048x2048``
    (:func:`moore2d`) and ``moore:128x128x128`` (:func:`moore3d`),
    ``rgg:100000:0.01`` (radius 0.01) or ``rgg:4194304:d16`` (the radius of
    mean degree ~16, :func:`rgg_radius`); ``kronh:20[:16]`` and
    ``urandh:20[:16]``, the hashed twins (:func:`kronh`, :func:`urandh`); any of
    them but moore with a ``@SEED`` suffix (default 0), e.g. ``kron:16@3``. A spec
    that does not parse, or whose numbers are out of range, raises
    :class:`~bitgraph.InvalidValue` (a ``ValueError``) naming it and the forms.
    ``device``: where the Matrix goes ("cpu", "cuda" or "auto"; None:
    ``bitgraph.set_device``'s); the graph is generated on the CPU, but for
    ``kronh`` and ``urandh`` on the GPU when it goes there (the same graph, bit
    for bit; host memory 6 bytes an entry, device peak the CSR and one sort range
    of ``settings.distributed.sort_keys``).

    >>> from_spec("grid:2x2").nvals
    8
    >>> from_spec("kron:6@1").nvals
    758
    >>> from_spec("kronh:6@1").isequal(kronh(6, seed=1))
    True
    """
    from .. import device as dev

    name, kwargs = parse_spec(spec)
    if name in ("kronh", "urandh") and dev.resolve(device, "from_spec") == "cuda":
        return _hashed_matrix(dev.require_cuda("from_spec"), name, kwargs, "from_spec")
    A = globals()[name](**kwargs)
    if dev.resolve(device, "from_spec") == "cpu":
        return A
    return A.to(device)  # the recorded symmetry travels with it
