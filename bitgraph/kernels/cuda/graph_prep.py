"""Launcher of ``graph_prep.cu``: the per-graph preparation of the CUDA
traversals (row lengths, empty-row bits, in-lists ordered by degree) and the
bitmaps' bookkeeping (pack, unpack, count: ``bitgraph.plan``'s on CuPy), by
our own shipped kernels instead of CuPy's elementwise, reduction and sort
kernels, which a fresh machine compiles on first use (0.2-0.5 s each;
``cupy.argsort`` 0.46 s of a 0.59 s first ``bfs`` on kron:12, H100).
CuPy arrays in and out; only memory allocation and copies besides."""

from __future__ import annotations

import numpy as np

from bitgraph.kernels.cuda import grid, module, settings, shape
from bitgraph.kernels.registry import register

__all__ = ["row_lengths", "empty_rows", "order_by_degree", "pack_bits", "unpack_bits",
           "popcount_words", "present_vector", "bit_indices", "ball_hops", "sample_spread"]

_SOURCE = "graph_prep.cu"
_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
# a value's bytes as the unsigned type of its width (present_vector copies bits)
_WIDTH = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
_NAMES = tuple(f"{k}<{i}>" for k in ("row_lengths", "empty_rows", "sort_chunks", "merge_runs")
               for i in _INDEX.values()) + tuple(
    f"degree_keys<{p}, {i}>" for p in _INDEX.values() for i in _INDEX.values()) + (
    "unpack_words", "popcount_words", "bit_block_counts", "bit_positions") + tuple(
    f"present_vector<{w}>" for w in _WIDTH.values()) + tuple(
    f"{k}<{p}, {i}>" for k in ("probe_hop", "sample_spread") for p in _INDEX.values()
    for i in _INDEX.values())
SPECS = ((_SOURCE, _NAMES),)  # what module() is asked for (precompile.py)


def _fn(name):
    mod, lowered = module(_SOURCE, _NAMES)
    return mod.get_function(lowered[name])


def _index(where, a):
    if a.dtype not in _INDEX or a.ndim != 1 or not a.flags.c_contiguous:
        raise ValueError(f"{where}: an index array must be 1-d contiguous int32 or int64, got "
                         f"{a.dtype} {a.shape}")
    return _INDEX[a.dtype]


@register("row_lengths", fmt="csr", device="cuda", variant="int32")
def row_lengths(indptr):
    """int32[n]: the entries of each row, ``indptr[i + 1] - indptr[i]``
    (indptr: int32 or int64 CuPy, n + 1 long). O(n)

    >>> row_lengths(cupy.asarray([0, 2, 2, 5]))  # doctest: +SKIP
    array([2, 0, 3], dtype=int32)
    """
    import cupy

    it = _index("row_lengths", indptr)
    n = indptr.shape[0] - 1
    deg = cupy.empty(n, cupy.int32)
    if n > 0:
        _fn(f"row_lengths<{it}>")(*shape(n), (indptr, deg, np.int64(n)))
    return deg


@register("empty_rows", fmt="csr", device="cuda", variant="bits")
def empty_rows(indptr):
    """``(bits, live)``: uint32[ceil(n / 32)] with bit i set where row i has
    no entries, and the count of rows with entries (a Python int: one
    device sync). O(n)

    >>> empty_rows(cupy.asarray([0, 2, 2, 5]))  # doctest: +SKIP
    (array([2], dtype=uint32), 2)
    """
    import cupy

    it = _index("empty_rows", indptr)
    n = indptr.shape[0] - 1
    nwords = (n + 31) // 32
    bits = cupy.empty(nwords, cupy.uint32)
    live = cupy.zeros(1, cupy.uint64)
    if nwords:
        _fn(f"empty_rows<{it}>")(*shape(nwords), (indptr, bits, live, np.int64(n)))
    return bits, int(live[0])  # synchronize!


@register("order_by_degree", fmt="csr", device="cuda", variant="sorted")
def order_by_degree(indptr, indices, deg):
    """A new ``indices`` with each row's entries ordered by ``deg`` of the
    column, largest first, ties in their order (XBFS: a bottom-up scan
    meets a frontier vertex sooner). deg: int32[ncols] >= 0. One 64-bit
    key per entry (the row, then 2^31 - 1 - degree) and a stable merge
    sort of our own: chunks of ``threads`` entries sorted in shared
    memory, then ceil(log2(nnz / threads)) merge passes, each run pair
    already in order (as between rows) copied. O(n + nnz (threads +
    log^2 nnz)) work; 2 (8 + index size) bytes per entry of scratch.

    >>> order_by_degree(cupy.asarray([0, 3, 3, 4]), cupy.asarray([0, 1, 2, 0]),
    ...                 cupy.asarray([3, 0, 1], cupy.int32))  # doctest: +SKIP
    array([0, 2, 1, 0])
    """
    import cupy

    pt, it = _index("order_by_degree", indptr), _index("order_by_degree", indices)
    n, m = indptr.shape[0] - 1, indices.shape[0]
    if deg.dtype != np.int32:
        raise ValueError(f"order_by_degree: deg must be int32, got {deg.dtype}")
    if m == 0:
        return cupy.empty_like(indices)  # no kernel, not even a copy's
    keys, other = cupy.empty(m, cupy.int64), cupy.empty(m, cupy.int64)
    vals, spare = cupy.empty_like(indices), cupy.empty_like(indices)
    _fn(f"degree_keys<{pt}, {it}>")(*shape(n), (indptr, indices, deg, keys, np.int64(n)))
    cfg = settings()
    chunk = int(cfg.threads)  # the block sorts a chunk (shared memory: a key per thread)
    _fn(f"sort_chunks<{it}>")((grid(m, cfg),), (chunk,),
                              (keys, indices, other, vals, np.int64(m)), shared_mem=chunk * 8)
    keys, other = other, keys
    merge, w = _fn(f"merge_runs<{it}>"), chunk
    while w < m:
        merge(*shape(m, cfg), (keys, vals, other, spare, np.int64(m), np.int64(w)))
        keys, other, vals, spare = other, keys, spare, vals
        w *= 2
    return vals


@register("pack_bits", fmt="dense", device="cuda", variant="bool")
def pack_bits(present):
    """uint32[ceil(n / 32)]: bit i & 31 of word i >> 5 = present[i]
    (present: bool[n] CuPy; ``bitgraph.plan.pack_bits`` on the GPU). O(n)

    >>> pack_bits(cupy.asarray([True, False, True]))  # doctest: +SKIP
    array([5], dtype=uint32)
    """
    import cupy

    if present.dtype != np.bool_ or present.ndim != 1:
        raise ValueError(f"pack_bits: present must be 1-d bool, got {present.dtype} "
                         f"{present.shape}")
    present = cupy.ascontiguousarray(present)
    n = present.shape[0]
    nwords = (n + 31) // 32
    words = cupy.empty(nwords, cupy.uint32)
    if nwords:  # a warp per word; null values, out and allowed: the words alone
        null = np.uint64(0)
        _fn(f"present_vector<{_WIDTH[1]}>")(*shape(32 * nwords), (
            present, null, null, words, null, np.bool_(False), np.int64(n)))
    return words


@register("unpack_bits", fmt="dense", device="cuda", variant="bool")
def unpack_bits(words, n):
    """bool[n]: bit i & 31 of word i >> 5 (words: uint32 CuPy, at least
    ceil(n / 32) of them; ``bitgraph.plan.unpack_bits`` on the GPU). O(n)

    >>> unpack_bits(cupy.asarray([5], cupy.uint32), 3)  # doctest: +SKIP
    array([ True, False,  True])
    """
    import cupy

    n = int(n)
    if words.dtype != np.uint32 or words.ndim != 1 or 32 * words.shape[0] < n:
        raise ValueError(f"unpack_bits: {n} bits need {(n + 31) // 32} uint32 words, got "
                         f"{words.dtype} {words.shape}")
    present = cupy.empty(n, np.bool_)
    if n:
        _fn("unpack_words")(*shape(n), (cupy.ascontiguousarray(words), present, np.int64(n)))
    return present


@register("popcount_words", fmt="dense", device="cuda", variant="count")
def popcount_words(words):
    """The set bits of uint32 words (CuPy), a Python int: one host read,
    which waits for the GPU (``bitgraph.plan.count_bits`` on the GPU).
    O(nwords)

    >>> popcount_words(cupy.asarray([5, 1 << 31], cupy.uint32))  # doctest: +SKIP
    3
    """
    import cupy

    if words.dtype != np.uint32 or words.ndim != 1:
        raise ValueError(f"popcount_words: 1-d uint32 words expected, got {words.dtype} "
                         f"{words.shape}")
    m = words.shape[0]
    if m == 0:
        return 0
    count = cupy.zeros(1, np.uint64)
    _fn("popcount_words")(*shape(m), (cupy.ascontiguousarray(words), np.int64(m), count))
    return int(count.get()[0])  # synchronize!


@register("present_vector", fmt="dense", device="cuda", variant="bits")
def present_vector(present, values, allowed=None):
    """``(words, out)``: a Vector's bitmap and values from its flags and
    values (CuPy, one length): ``pack_bits(present)`` and ``where(present,
    values, 0)`` in one launch, ``out`` a new array of values' dtype (every
    dtype of 1, 2, 4 or 8 bytes: zero is all bits clear); ``allowed``
    (uint32 words, or None: all) keeps only the positions it has. O(n)

    >>> present_vector(cupy.asarray([True, False]), cupy.asarray([3.0, 4.0]))  # doctest: +SKIP
    (array([1], dtype=uint32), array([3., 0.]))
    """
    import cupy

    if present.dtype != np.bool_ or present.ndim != 1 or values.shape != present.shape:
        raise ValueError(f"present_vector: 1-d bool flags and values of their length expected,"
                         f" got {present.dtype} {present.shape} and {values.shape}")
    width = values.dtype.itemsize
    if width not in _WIDTH or values.dtype.kind not in "biuf":
        raise ValueError(f"present_vector: values of 1, 2, 4 or 8 bytes expected, got "
                         f"{values.dtype}")
    n = present.shape[0]
    nwords = (n + 31) // 32
    has_allowed = allowed is not None
    if has_allowed and (allowed.dtype != np.uint32 or allowed.shape != (nwords,)):
        raise ValueError(f"present_vector: allowed must be {nwords} uint32 words, got "
                         f"{allowed.dtype} {allowed.shape}")
    out = cupy.empty(n, values.dtype)
    words = cupy.empty(nwords, cupy.uint32)
    if n:
        bits = np.dtype(f"u{width}")
        _fn(f"present_vector<{_WIDTH[width]}>")(
            *shape(32 * nwords),
            (cupy.ascontiguousarray(present), cupy.ascontiguousarray(values).view(bits),
             out.view(bits), words,  # no allowed: a pointer the kernel never reads
             cupy.ascontiguousarray(allowed) if has_allowed else words, np.bool_(has_allowed),
             np.int64(n)))
    return words, out


@register("bit_indices", fmt="dense", device="cuda", variant="int64")
def bit_indices(words, count):
    """int64[count]: the positions of the set bits of uint32 words (CuPy),
    ascending; ``count`` their number (``Vector.nvals``, known: no host
    read here). Two launches over the words. O(nwords + count)

    >>> bit_indices(cupy.asarray([5, 2], cupy.uint32), 3)  # doctest: +SKIP
    array([ 0,  2, 33])
    """
    import cupy

    if words.dtype != np.uint32 or words.ndim != 1:
        raise ValueError(f"bit_indices: 1-d uint32 words expected, got {words.dtype} "
                         f"{words.shape}")
    count, m = int(count), words.shape[0]
    if not 0 <= count <= 32 * m:
        raise ValueError(f"bit_indices: {count} set bits cannot be in {m} words")
    out = cupy.empty(count, np.int64)
    if count == 0:
        return out
    cfg = settings()
    (blocks,), (threads,) = shape(m, cfg)
    per = -(-m // blocks)
    block_counts = cupy.empty(blocks, np.int64)
    words = cupy.ascontiguousarray(words)
    _fn("bit_block_counts")((blocks,), (threads,), (words, np.int64(m), np.int64(per),
                                                    block_counts))
    _fn("bit_positions")((blocks,), (threads,), (words, np.int64(m), np.int64(per), block_counts,
                                                 out, np.int64(count)))
    return out


@register("ball_hops", fmt="csr", device="cuda", variant="probe")
def ball_hops(indptr, indices, source, hops, target):
    """The hops after which the ball around ``source`` (the vertices within
    that many hops along the rows, source included) first holds ``target``
    vertices or more, at most ``hops``; ``hops + 1`` when it holds fewer
    after ``hops`` hops and the last hop still reached new vertices; 0 when
    it stops growing first (``bfs.reach``'s probe from one source). The
    ball is a list of the reached vertices in hop order; a hop is one
    launch and one 8-byte read. O(n / 8 + the ball's entries)

    >>> ball_hops(cupy.asarray([0, 1, 2, 2]), cupy.asarray([1, 2]), 0, 5, 3)  # doctest: +SKIP
    2
    """
    import cupy

    pt, it = _index("ball_hops", indptr), _index("ball_hops", indices)
    n = indptr.shape[0] - 1
    if not 0 <= source < n:
        raise ValueError(f"ball_hops: source {source} out of range [0, {n})")
    # the kernel sets what it reaches; the source's bit and the ball's start
    # are copied in (a CuPy item assignment would compile a fill kernel)
    seen = cupy.zeros((n + 31) // 32, cupy.uint32)
    seen[source >> 5:(source >> 5) + 1].set(np.array([1 << (source & 31)], np.uint32))
    ball = cupy.empty(n, indices.dtype)
    ball[:1].set(np.array([source], indices.dtype))
    count = cupy.empty(1, cupy.uint64)
    count.set(np.array([1], np.uint64))
    fn = _fn(f"probe_hop<{pt}, {it}>")
    begin, end = 0, 1
    for hop in range(1, hops + 1):
        fn(*shape(32 * (end - begin)),
           (indptr, indices, ball, np.int64(begin), np.int64(end), seen, count))
        begin, end = end, int(count.get()[0])  # synchronize!
        if end >= target:
            return hop
        if end == begin:
            return 0  # the ball stopped growing: its component says nothing
    return hops + 1


@register("sample_spread", fmt="csr", device="cuda", variant="int64")
def sample_spread(indptr, indices, entries):
    """Host int64[k]: |indices[e] - row(e)| for the entries e of the host
    int64 array ``entries`` (row(e): the row holding entry e;
    ``_common.median_spread``'s samples, gathered on the GPU, one read
    back). O(k log n)

    >>> sample_spread(cupy.asarray([0, 2, 3]), cupy.asarray([1, 0, 0]), np.array([0, 2]))  # doctest: +SKIP
    array([1, 1])
    """
    import cupy

    pt, it = _index("sample_spread", indptr), _index("sample_spread", indices)
    k, n = int(entries.shape[0]), indptr.shape[0] - 1
    if k == 0:
        return np.zeros(0, np.int64)
    e = cupy.asarray(np.ascontiguousarray(entries, np.int64))
    out = cupy.empty(k, cupy.int64)
    _fn(f"sample_spread<{pt}, {it}>")(*shape(k), (indptr, indices, e, out, np.int64(k),
                                                 np.int64(n)))
    return out.get()
