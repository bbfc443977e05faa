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
    if xp is not np:  # CuPy: shifts and a row sum (no bitorder/count in every version)
        bits = xp.zeros(nwords(n) * 32, np.uint32)
        bits[:n] = present
        return (bits.reshape(-1, 32) << xp.arange(32, dtype=np.uint32)).sum(
            axis=1, dtype=np.uint32)
    b = xp.packbits(present.astype(np.bool_, copy=False), bitorder="little")
    pad = nwords(n) * 4 - b.shape[0]
    if pad:
        b = xp.concatenate([b, xp.zeros(pad, np.uint8)])
    return b.view(np.uint32) if b.shape[0] else xp.zeros(0, np.uint32)


def unpack_bits(words, n: int):
    """uint32 words -> bool[n] (inverse of ``pack_bits``)."""
    xp = array_module(words)
    if n == 0:
        return xp.zeros(0, np.bool_)
    if xp is not np:
        bits = (words[:, None] >> xp.arange(32, dtype=np.uint32)) & np.uint32(1)
        return bits.reshape(-1)[:n].astype(np.bool_)
    return xp.unpackbits(words.view(np.uint8), count=n, bitorder="little").astype(np.bool_)


def popcount_words(words) -> int:
    xp = array_module(words)
    if not words.shape[0]:
        return 0
    if xp is not np:
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


def isin_sorted(keys, sorted_set):
    """keys[i] in sorted_set, for a sorted unique ``sorted_set``."""
    xp = array_module(keys, sorted_set)
    if sorted_set.shape[0] == 0 or keys.shape[0] == 0:
        return xp.zeros(keys.shape[0], np.bool_)
    pos = xp.searchsorted(sorted_set, keys)
    pos = xp.minimum(pos, sorted_set.shape[0] - 1)
    return sorted_set[pos] == keys


def as_index_array(idx, what: str, bound: int):
    """A 1-D int64 array from a list/array of indices, checked against ``bound``."""
    from .errors import InvalidIndex, InvalidValue

    a = np.asarray(idx)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise InvalidValue(f"{what}: indices must be 1-D, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        if a.dtype.kind == "f" and np.all(a == np.trunc(a)):
            a = a.astype(np.int64)
        elif a.dtype == np.bool_:
            raise InvalidValue(f"{what}: indices must be integers, got bool")
        else:
            raise InvalidValue(f"{what}: indices must be integers, got {a.dtype}")
    a = a.astype(np.int64, copy=False)
    if a.size:
        bad = (a < 0) | (a >= bound)
        if bad.any():
            i = int(a[np.argmax(bad)])
            raise InvalidIndex(f"{what}: index {i} is out of range for size {bound}")
    return a
