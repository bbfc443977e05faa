"""Array helpers shared by the objects and ``ops``, written over an array
module ``xp`` (numpy now, cupy later): casting, bitmaps, index dtypes, keys.
"""

from __future__ import annotations

import sys

import numpy as np

INDEX_MAX32 = np.iinfo(np.int32).max


def array_module(*arrays):
    """numpy, or cupy when any argument is a cupy array (never imports cupy)."""
    cp = sys.modules.get("cupy")
    if cp is not None:
        for a in arrays:
            if isinstance(a, cp.ndarray):
                return cp
    return np


def index_dtype(*bounds) -> np.dtype:
    """int32 while every bound fits, int64 beyond (scipy's get_index_dtype)."""
    return np.dtype(np.int32) if max((int(b) for b in bounds), default=0) <= INDEX_MAX32 else np.dtype(np.int64)


def cast(values, dtype):
    """Cast values to ``dtype`` as SuiteSparse:GraphBLAS does.

    Integers wrap; float to integer truncates toward zero, saturates at the
    type's limits and maps NaN to 0; anything to bool is ``x != 0``.
    """
    xp = array_module(values)
    dtype = np.dtype(dtype)
    if values.dtype == dtype:
        return values
    if dtype == np.bool_:
        return values != 0
    if values.dtype.kind == "f" and dtype.kind in "iu":
        # SuiteSparse's GB_cast_to_<int>: in double, NaN -> 0, x <= (double) MIN
        # -> MIN, x >= (double) MAX -> MAX, else truncate
        info = np.iinfo(dtype)
        v = xp.where(xp.isnan(values), 0, values).astype(np.float64)
        lo = v <= float(info.min)
        hi = v >= float(info.max)
        out = xp.trunc(xp.where(lo | hi, 0.0, v)).astype(dtype)
        out = xp.where(lo, dtype.type(info.min), out)
        return xp.where(hi, dtype.type(info.max), out).astype(dtype, copy=False)
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(dtype)


def truthy(values):
    """Value-mask truth: non-zero, with floats read by their bytes as
    SuiteSparse does (-0.0 counts as present)."""
    if values.dtype == np.bool_:
        return values
    if values.dtype.kind == "f":
        return values.view(np.dtype(f"u{values.dtype.itemsize}")) != 0
    return values != 0


def nwords(size: int) -> int:
    return (int(size) + 31) >> 5


def pack_bits(present):
    """bool[n] -> uint32 words, bit i & 31 of word i >> 5 = present[i]."""
    xp = array_module(present)
    n = present.shape[0]
    if xp is not np:  # CuPy: shifts and a row sum (hot callers: plan.pack_bits, a kernel)
        bits = xp.zeros(nwords(n) * 32, np.uint32)
        bits[:n] = present
        return (bits.reshape(-1, 32) << xp.arange(32, dtype=np.uint32)).sum(
            axis=1, dtype=np.uint32)
    b = xp.packbits(present.astype(np.bool_, copy=False), bitorder="little")
    pad = nwords(n) * 4 - b.shape[0]
    if pad:
        b = xp.concatenate([b, xp.zeros(pad, np.uint8)])
    return b.view(np.uint32) if b.shape[0] else xp.zeros(0, np.uint32)


def full_bitmap(n: int, xp=np):
    """uint32 words of n set bits (bits past n clear): a full vector's
    structure, with no bool[n] to pack.

    >>> full_bitmap(33).tolist()
    [4294967295, 1]
    """
    if xp is np:
        words = np.full(nwords(n), 0xFFFFFFFF, np.uint32)
    else:  # a memset, not a fill kernel
        words = xp.empty(nwords(n), np.uint32)
        if words.size:
            words.data.memset_async(0xFF, words.nbytes)
    if n & 31:
        words[-1] = np.uint32((1 << (n & 31)) - 1)
    return words


def invert_bits(words, n: int):
    """The complement of n bits packed in uint32 words (a new array; bits
    past n clear).

    >>> invert_bits(np.array([5], np.uint32), 3).tolist()
    [2]
    """
    out = ~words
    if n & 31 and out.shape[0]:
        out[-1] &= np.uint32((1 << (n & 31)) - 1)
    return out


def unpack_bits(words, n: int):
    """uint32 words -> bool[n] (inverse of ``pack_bits``)."""
    xp = array_module(words)
    if n == 0:
        return xp.zeros(0, np.bool_)
    if xp is not np:  # hot callers: plan.unpack_bits, a kernel
        bits = (words[:, None] >> xp.arange(32, dtype=np.uint32)) & np.uint32(1)
        return bits.reshape(-1)[:n].astype(np.bool_)
    return xp.unpackbits(words.view(np.uint8), count=n, bitorder="little").astype(np.bool_)


def popcount_words(words) -> int:
    xp = array_module(words)
    if not words.shape[0]:
        return 0
    if xp is not np:  # hot callers: plan.count_bits, a kernel
        return int(unpack_bits(words, words.shape[0] * 32).sum())
    return int(xp.bitwise_count(words).sum())


def rows_of(indptr):
    """Row id of every stored entry of a CSR (int64)."""
    xp = array_module(indptr)
    n = indptr.shape[0] - 1
    if xp is not np:  # CuPy's repeat takes no array of counts: the row of entry p
        nnz = int(indptr[-1]) if n >= 0 else 0
        return xp.searchsorted(indptr[1:], xp.arange(nnz, dtype=indptr.dtype), side="right").astype(np.int64)
    return xp.repeat(xp.arange(n, dtype=np.int64), xp.diff(indptr).astype(np.int64))


def segment_ids(counts):
    """For segments of the given lengths laid end to end, the segment of
    every position (int64): ``numpy.repeat(arange(len(counts)), counts)``
    on either device (CuPy's ``repeat`` takes no array of counts).

    >>> segment_ids(np.array([2, 0, 1])).tolist()
    [0, 0, 2]
    """
    xp = array_module(counts)
    counts = counts.astype(np.int64, copy=False)
    if xp is np:
        return np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts)
    ends = xp.cumsum(counts)
    total = int(ends[-1]) if counts.shape[0] else 0
    return xp.searchsorted(ends, xp.arange(total, dtype=np.int64), side="right").astype(np.int64)


def _scatter(ufunc, cupyx_name, target, index, values):
    """``numpy.<ufunc>.at`` on the CPU, ``cupyx.<cupyx_name>`` on the GPU;
    returns ``target``."""
    if array_module(target, index, values) is np:
        getattr(np, ufunc).at(target, index, values)
    else:
        import cupyx

        getattr(cupyx, cupyx_name)(target, index, values)
    return target


def scatter_min(target, index, values):
    """``target[index[k]] = min(target[index[k]], values[k])`` for every k, in
    place, repeated indices included (every value counts, unlike a fancy
    assignment, which keeps one): ``np.minimum.at`` on the CPU,
    ``cupyx.scatter_min`` on the GPU. Returns ``target``.

    >>> t = np.array([5, 5, 5])
    >>> scatter_min(t, np.array([0, 0, 2]), np.array([3, 1, 7])).tolist()
    [1, 5, 5]
    """
    return _scatter("minimum", "scatter_min", target, index, values)


def scatter_add(target, index, values):
    """``target[index[k]] += values[k]`` for every k, in place, repeated
    indices adding up: ``np.add.at`` on the CPU, ``cupyx.scatter_add`` on
    the GPU. Returns ``target``.

    >>> t = np.zeros(3)
    >>> scatter_add(t, np.array([0, 0, 2]), np.array([1.0, 2.0, 4.0])).tolist()
    [3.0, 0.0, 4.0]
    """
    return _scatter("add", "scatter_add", target, index, values)


def unique(a, *, return_index=False, return_counts=False):
    """The sorted distinct values of ``a`` (flattened) by a sort and a mask:
    ``numpy.unique``'s results, with ``return_index`` (first occurrence) and
    ``return_counts`` as there; on the GPU, ``cupy.unique`` (a sort too).

    numpy >= 2.3 answers a bare ``np.unique(a)`` with a hash table, which is
    slow where most values are distinct: symmetrising 2M one-direction edges
    (4M int64 keys, ``algorithms._common.undirected_csr``) took 4.6 s with
    it and 0.30 s with this (numpy 2.4.6, 2-core box). Floats and complex
    numbers go to ``numpy.unique`` itself, which folds NaNs into one.

    >>> unique(np.array([3, 1, 3, 2])).tolist()
    [1, 2, 3]
    >>> [x.tolist() for x in unique(np.array([3, 1, 3, 2]), return_index=True, return_counts=True)]
    [[1, 2, 3], [1, 3, 0], [1, 1, 2]]
    """
    xp = array_module(a)
    if xp is not np or a.dtype.kind in "fc":
        return xp.unique(a, return_index=return_index, return_counts=return_counts)
    a = a.reshape(-1)
    if return_index:
        perm = np.argsort(a, kind="stable")  # equal values keep their order: the first comes first
        aux = a[perm]
    else:
        aux = np.sort(a)
    first = np.empty(aux.shape[0], np.bool_)
    first[:1] = True
    np.not_equal(aux[1:], aux[:-1], out=first[1:])
    values = aux[first]
    if not (return_index or return_counts):
        return values
    out = (values,)
    if return_index:
        out += (perm[first],)
    if return_counts:
        out += (np.diff(np.append(np.flatnonzero(first), aux.shape[0])),)
    return out


def isin_sorted(keys, sorted_set):
    """keys[i] in sorted_set, for a sorted unique ``sorted_set``."""
    xp = array_module(keys, sorted_set)
    if sorted_set.shape[0] == 0 or keys.shape[0] == 0:
        return xp.zeros(keys.shape[0], np.bool_)
    pos = xp.searchsorted(sorted_set, keys)
    pos = xp.minimum(pos, sorted_set.shape[0] - 1)
    return sorted_set[pos] == keys


def as_dim(value, what: str, name: str) -> int:
    """A dimension argument (``nrows``, ``ncols``, ``size``) as an int >= 0.

    Only integers are dimensions: a float (even 3.0), a bool or a string is
    ``InvalidType`` naming the argument; a negative one is ``InvalidValue``.

    >>> as_dim(np.int32(3), "Vector", "size")
    3
    """
    from .errors import InvalidType, InvalidValue

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidType(f"{what}: {name} must be an integer, got {type(value).__name__} {value!r}")
    n = int(value)
    if n < 0:
        raise InvalidValue(f"{what}: {name} must be >= 0, got {n}")
    return n


def check_shape(nrows: int, ncols: int, what: str):
    """Raise ``InvalidValue`` unless every entry of an ``nrows x ncols``
    matrix has an int64 key ``row * ncols + col``.

    Entries are addressed by that key throughout (``ops``, ``formats.csr``,
    the algorithms, the CUDA paths), so ``nrows * ncols`` must be at most
    2**63 - 1 (each dimension too). A clear error at construction was chosen
    over keys that cannot overflow (pairs sorted lexicographically, or
    uint64 keys with checks) because it is one check in one place, where
    safe keys would change every key computation of the library and its
    kernels; and a CSR needs ``nrows + 1`` row pointers in memory, so the
    shapes given up are those with over 2**63 / (memory) columns.

    >>> check_shape(2**31, 2**31, "Matrix")
    >>> try:
    ...     check_shape(5, 2**62 + 1, "Matrix")
    ... except ValueError as e:
    ...     print(e)
    Matrix: a 5 x 4611686018427387905 matrix has too many positions to address: nrows * ncols must be < 2**63
    """
    from .errors import InvalidValue

    if int(nrows) * int(ncols) > np.iinfo(np.int64).max or max(nrows, ncols) > np.iinfo(np.int64).max:
        raise InvalidValue(f"{what}: a {nrows} x {ncols} matrix has too many positions to address:"
                           f" nrows * ncols must be < 2**63")


def _first_bad(a, bad):
    """The given value of the first element of ``a`` where ``bad`` holds (a
    python int when it is integral, else the number as given)."""
    v = a[int(np.argmax(bad))]
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return v


def as_index_array(idx, what: str, bound):
    """A 1-D int64 array from a list/array of indices, checked against
    ``bound`` (None: no bound check; ``check_bounds`` later).

    Integers, and floats with integral values (2.0) are indices; any other
    float (1.5, inf, nan), a bool or a string is ``InvalidValue`` naming
    it; an index outside [0, bound) is ``InvalidIndex`` naming the index as
    given (``np.inf`` is reported as inf, 2**64 as 2**64).

    >>> as_index_array([2.0, 0], "f", 3).tolist()
    [2, 0]
    """
    from .errors import InvalidIndex, InvalidValue

    a = np.asarray(idx)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise InvalidValue(f"{what}: indices must be 1-D, got shape {a.shape}")
    if a.size and a.dtype.kind == "O":  # python ints beyond 64 bits, or mixed objects
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in a):
            bad = [not isinstance(v, (int, np.integer)) or isinstance(v, (bool, np.bool_)) for v in a]
            raise InvalidValue(f"{what}: indices must be integers, got {_first_bad(a, np.array(bad))!r}")
        big = np.array([not -2**63 <= int(v) < 2**63 for v in a])
        if big.any():
            raise InvalidIndex(f"{what}: index {_first_bad(a, big)} is out of range{_size(bound)}")
        a = a.astype(np.int64)
    if a.size and a.dtype.kind not in "iu":
        if a.dtype == np.bool_:
            raise InvalidValue(f"{what}: indices must be integers, got bool")
        if a.dtype.kind != "f":
            raise InvalidValue(f"{what}: indices must be integers, got {a.dtype}")
        with np.errstate(invalid="ignore"):
            frac = ~np.isfinite(a) | (a != np.trunc(a))
        if frac.any():
            v = _first_bad(a, frac)
            if np.isnan(v) or np.isfinite(v):
                raise InvalidValue(f"{what}: indices must be integers, got {v!r}")
            raise InvalidIndex(f"{what}: index {v} is out of range{_size(bound)}")
        big = (a < -2.0**63) | (a >= 2.0**63)
        if big.any():
            raise InvalidIndex(f"{what}: index {_first_bad(a, big)} is out of range{_size(bound)}")
    if a.size and a.dtype.kind == "u" and a.dtype.itemsize == 8:
        big = a > np.uint64(np.iinfo(np.int64).max)
        if big.any():
            raise InvalidIndex(f"{what}: index {_first_bad(a, big)} is out of range{_size(bound)}")
    a = a.astype(np.int64, copy=False)
    if bound is not None:
        check_bounds(a, what, bound)
    return a


def _size(bound) -> str:
    return " (of int64)" if bound is None else f" for size {bound}"


def check_bounds(a, what: str, bound: int):
    """Raise ``InvalidIndex`` naming the first int64 index of ``a`` outside [0, bound)."""
    from .errors import InvalidIndex

    if a.size:
        bad = (a < 0) | (a >= bound)
        if bad.any():
            i = int(a[np.argmax(bad)])
            raise InvalidIndex(f"{what}: index {i} is out of range for size {bound}")
