"""Launchers of ``spgemm_csr.cu``: mxm on CSR on the GPU, by masked dot
products (twin of ``kernels/cpu/spgemm_dot.py``) and by Gustavson's product
computed as expand-sort-compress (twin of ``kernels/cpu/spgemm_csr.py``),
with the CPU launchers' signatures and results."""

from __future__ import annotations

import functools

import numpy as np

from bitgraph import _array
from bitgraph import device
from bitgraph.kernels._launch import semiring_args
from bitgraph.kernels.cuda import C_TYPES, module, settings, shape
from bitgraph.kernels.registry import register

__all__ = ["spgemm_dot", "spgemm"]

_INDEX = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_INT32_MAX = np.iinfo(np.int32).max
_KEY32_MAX = np.iinfo(np.uint32).max

# Gustavson expands at most cfg.spgemm_max_products products at once (plus
# one B row); larger products run as several chunks of A's entries (a row
# cut between two chunks carries its partial row into the next). A chunk
# spanning r rows keys its products by (row - first row) * ncols + col in
# uint32 when r * ncols fits (radix sort: 4 passes of 12 bytes instead of 8
# of 16 with uint64 keys); chunks are cut at rows for that when it takes at
# most cfg.spgemm_key32_chunks of them (cfg: the Cuda settings).

# mask modes of esc_expand
_NONE, _MASK, _COMPLEMENT = 0, 1, 2


def _names(c):
    names = tuple(f"spgemm_dot<{c}, {i}>" for i in _INDEX.values())
    names += tuple(f"esc_expand<{c}, {i}>" for i in _INDEX.values())
    return names + (f"esc_fold<{c}>",)


# what module() is asked for (precompile.py): one tuple per value type
SPECS = tuple(("spgemm_csr.cu", _names(c)) for c in C_TYPES.values())


@functools.lru_cache(maxsize=None)
def _kernels(dtype):
    # one NVRTC compile per value type: every index and key type
    names = _names(C_TYPES[dtype])
    mod, lowered = module("spgemm_csr.cu", names)
    return {name: mod.get_function(lowered[name]) for name in names}


def _index_dtype(*arrays):
    # one index dtype for a call, as the CPU's index_args: int64 if any is
    return np.dtype(np.int64) if any(a.dtype.itemsize > 4 for a in arrays) \
        else np.dtype(np.int32)


def _values(cupy, values, dtype):
    # (array, iso): a dummy for iso values, as the CPU's values_arg
    if values is None:
        return cupy.zeros(1, dtype), True
    return cupy.ascontiguousarray(cupy.asarray(values), dtype=dtype), False


def _empty(cupy, nrows, idx, dtype):
    return cupy.zeros(nrows + 1, idx), cupy.zeros(0, idx), cupy.zeros(0, dtype)


@register("mxm", fmt="csr", device="cuda", variant="dot")
def spgemm_dot(A, BT, M, sr):
    """C<M> = A (+).(x) B by dot products over M's entries on the GPU, B
    given as BT = B'; arguments and results as
    ``kernels.cpu.spgemm_dot.spgemm_dot`` (CuPy arrays). One thread per
    mask entry merges A(i,:) with B'(j,:), or gallops the shorter through
    the longer (hub rows), folding in ascending k as the CPU does: results
    are bit-identical, floats included (ANY: the first match, as the CPU).
    Cost O(nnz(M) log nrows + sum over M(i,j) of the intersection's work)
    on the GPU, one host sync for the output's size.
    """
    import cupy

    where = "mxm(dot, cuda)"
    if A.ncols != BT.ncols or (M.nrows, M.ncols) != (A.nrows, BT.nrows):
        raise ValueError(f"{where}: shapes A {A.nrows}x{A.ncols}, B' "
                         f"{BT.nrows}x{BT.ncols}, M {M.nrows}x{M.ncols} "
                         "do not agree")
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr)
    idx = _index_dtype(A.indptr, A.indices, BT.indptr, BT.indices, M.indptr, M.indices)
    a_indptr, a_indices, bt_indptr, bt_indices, m_indptr, m_indices = (
        cupy.ascontiguousarray(cupy.asarray(a), dtype=idx)
        for a in (A.indptr, A.indices, BT.indptr, BT.indices, M.indptr, M.indices))
    a_values, a_iso = _values(cupy, A.values, dtype)
    bt_values, bt_iso = _values(cupy, BT.values, dtype)
    nrows, nnz_m = int(A.nrows), int(m_indices.size)
    if nrows == 0 or nnz_m == 0:
        return _empty(cupy, nrows, idx, dtype)
    with device.oom_guard(where, nnz_m * (dtype.itemsize + 1 + 8)):
        values = cupy.empty(nnz_m, dtype)
        found = cupy.empty(nnz_m, np.bool_)
        fn = _kernels(dtype)[f"spgemm_dot<{C_TYPES[dtype]}, {_INDEX[idx]}>"]
        fn(*shape(nnz_m),
           (a_indptr, a_indices, a_values, np.bool_(a_iso), bt_indptr, bt_indices, bt_values,
            np.bool_(bt_iso), m_indptr, m_indices, np.int64(nrows), np.int64(nnz_m),
            np.int32(add), np.int32(mult), np.bool_(has_term),
            dtype.type(terminal if has_term else identity), values, found))
        # compact: C's row i holds the found entries of M's row i, in order
        before = cupy.zeros(nnz_m + 1, np.int64)
        cupy.cumsum(found, dtype=np.int64, out=before[1:])
        indptr = before[m_indptr].astype(idx)
        keep = cupy.flatnonzero(found)
        return indptr, m_indices[keep], values[keep]


@register("mxm", fmt="csr", device="cuda", variant="gustavson")
def spgemm(A, B, M, mask_complement, sr, *, key32_max=_KEY32_MAX):
    """C<M> = A (+).(x) B on the GPU by expand-sort-compress, M a structural
    mask or None (complemented when ``mask_complement``); arguments and
    results as ``kernels.cpu.spgemm_csr.spgemm`` (CuPy arrays; columns
    sorted, index dtype int64 if any input or C's nnz needs it).

    Per chunk of A's entries (at most ``settings.cuda.spgemm_max_products``
    products): one
    thread per product A(i,k) * B(k,j) writes the key (i,j) and the product
    (dropped at once where the mask rules (i,j) out: a binary search of M's
    row), a stable sort by key (CuPy's radix argsort; uint32 keys where the
    chunk's rows x ncols fit, chunks cut at rows for it: 1.35x faster than
    uint64 on A@A) keeps each (i,j)'s products in ascending k, and one thread per (i,j) folds them in that order with the
    terminal's early exit: results are bit-identical with the CPU's, floats
    included. Cost O(flops) work plus the sort of the kept products;
    workspace O(min(flops, spgemm_max_products)) (``DeviceError`` with the
    bytes if the GPU has not that much). key32_max: the largest key of a
    uint32-keyed chunk (the type's; tests lower it to cut chunks every few
    rows, or pass 0 for uint64 keys only).
    """
    import cupy

    where = "mxm(gustavson, cuda)"
    cfg = settings()
    if A.ncols != B.nrows:
        raise ValueError(f"{where}: A.ncols (={A.ncols}) must equal B.nrows "
                         f"(={B.nrows})")
    dtype, add, mult, identity, has_term, terminal = semiring_args(where, sr)
    nrows, ncols = int(A.nrows), int(B.ncols)
    arrays = [A.indptr, A.indices, B.indptr, B.indices]
    if M is not None:
        if (M.nrows, M.ncols) != (nrows, ncols):
            raise ValueError(f"{where}: M.shape (={(M.nrows, M.ncols)}) must "
                             f"equal (A.nrows, B.ncols) (={(nrows, ncols)})")
        arrays += [M.indptr, M.indices]
    mode = _NONE if M is None else (_COMPLEMENT if mask_complement else _MASK)
    idx = _index_dtype(*arrays)
    arrays = [cupy.ascontiguousarray(cupy.asarray(a), dtype=idx) for a in arrays]
    a_indptr, a_indices, b_indptr, b_indices = arrays[:4]
    m_indptr, m_indices = arrays[4:] if M is not None else (cupy.zeros(1, idx),) * 2
    a_values, a_iso = _values(cupy, A.values, dtype)
    b_values, b_iso = _values(cupy, B.values, dtype)
    nnz_a = int(a_indices.size)
    term = dtype.type(terminal if has_term else identity)

    # cum[p]: products of A's entries before p (int64)
    cum = cupy.zeros(nnz_a + 1, np.int64)
    if nnz_a:
        cupy.cumsum((b_indptr[1:] - b_indptr[:-1])[a_indices], dtype=np.int64, out=cum[1:])
    flops = int(cum[-1])
    if nrows == 0 or flops == 0:
        return _empty(cupy, nrows, idx, dtype)
    a_rows = cupy.searchsorted(a_indptr.astype(np.int64), cupy.arange(nnz_a, dtype=np.int64),
                               side="right").astype(np.int64) - 1

    # chunks of A's entries: an entry goes to the chunk its first product
    # falls in, so a chunk holds < limit + one B row of products
    limit = max(1, int(cfg.spgemm_max_products))
    nchunks = -(-flops // limit)
    cuts = [np.array([0, nnz_a], np.int64)]
    if nchunks > 1:
        cuts.append(cupy.asnumpy(cupy.searchsorted(
            cum[:-1], cupy.arange(1, nchunks, dtype=np.int64) * limit, side="left")))
    key32_max = min(int(key32_max), _KEY32_MAX)
    span = key32_max // max(ncols, 1)  # rows per chunk with uint32 keys
    # (not under a mask: it keeps few products, their sort is cheap, and
    # more chunks cost more than the narrower keys save: measured 16 vs 6
    # ms for C<L> = L plus_pair L' on urand n=2^18, deg 32)
    if mode != _MASK and 1 <= span < nrows and -(-nrows // span) <= cfg.spgemm_key32_chunks:
        cuts.append(cupy.asnumpy(a_indptr[span:nrows:span]).astype(np.int64))
    bounds = _array.unique(np.concatenate(cuts))
    bounds_d = cupy.asarray(bounds)
    at = cupy.asnumpy(cupy.concatenate((cum[bounds_d], a_rows[bounds_d[:-1]],
                                        a_rows[bounds_d[1:] - 1])))
    nb = bounds.size
    cum_at, first_row, last_row = at[:nb], at[nb:2 * nb - 1], at[2 * nb - 1:]

    c = C_TYPES[dtype]
    kernels = _kernels(dtype)
    fold = kernels[f"esc_fold<{c}>"]
    pieces = []
    carry = None  # (keys j, values): the partial row a chunk ends in, for the next
    for ch in range(nb - 1):
        p0, p1 = int(bounds[ch]), int(bounds[ch + 1])
        nprod = int(cum_at[ch + 1] - cum_at[ch])
        row0, row1 = int(first_row[ch]), int(last_row[ch])
        kdt = np.dtype(np.uint32) if (row1 - row0 + 1) * ncols <= key32_max \
            else np.dtype(np.uint64)
        drop = kdt.type(np.iinfo(kdt).max)
        need = nprod * (2 * kdt.itemsize + dtype.itemsize + 24)
        with device.oom_guard(where, need):
            keys = cupy.empty(nprod, kdt)
            prods = cupy.empty(nprod, dtype)
            if nprod:
                expand = kernels[f"esc_expand<{c}, {_INDEX[idx]}>"]
                expand(*shape(nprod, cfg),
                       (a_indices, a_rows, a_values, np.bool_(a_iso), b_indptr, b_indices,
                        b_values, np.bool_(b_iso), cum, np.int64(p0), np.int64(p1),
                        np.int64(row0), np.int64(ncols), m_indptr, m_indices, np.int32(mode),
                        np.int32(mult), np.bool_(kdt.itemsize == 8), keys, prods))
                if mode != _NONE:  # drop the masked-out products before sorting
                    kept = cupy.flatnonzero(keys != drop)
                    keys, prods = keys[kept], prods[kept]
            if carry is not None:  # the carried partial row folds first: same order
                keys = cupy.concatenate((carry[0].astype(kdt), keys))
                prods = cupy.concatenate((carry[1], prods))
            carry = None
            n = int(keys.size)
            if n == 0:
                continue
            perm = cupy.argsort(keys)  # stable: each (i,j) keeps ascending k
            skeys = keys[perm]
            starts = cupy.concatenate((cupy.zeros(1, np.int64),
                                       cupy.flatnonzero(skeys[1:] != skeys[:-1]) + 1,
                                       cupy.full(1, n, np.int64)))
            nseg = int(starts.size) - 1
            vals = cupy.empty(nseg, dtype)
            fold(*shape(nseg, cfg),
                 (starts, np.int64(nseg), perm, prods, np.int32(add), np.bool_(has_term),
                  term, vals))
            ukeys = skeys[starts[:-1]].astype(np.int64)
            del keys, prods, perm, skeys, starts
        if ch + 2 < nb and int(first_row[ch + 1]) == row1:
            # the next chunk starts inside row1: carry its partial row
            base = (row1 - row0) * ncols
            split = int(cupy.searchsorted(ukeys, base))
            carry = (ukeys[split:] - base, vals[split:])
            ukeys, vals = ukeys[:split], vals[:split]
        rows = ukeys // ncols
        pieces.append((rows + row0, ukeys - rows * ncols, vals))

    if not pieces:
        return _empty(cupy, nrows, idx, dtype)
    nnz = sum(int(p[0].size) for p in pieces)
    if nnz > _INT32_MAX:
        idx = np.dtype(np.int64)
    with device.oom_guard(where, nnz * (16 + idx.itemsize + dtype.itemsize)):
        rows = cupy.concatenate([p[0] for p in pieces])
        cols = cupy.concatenate([p[1] for p in pieces]).astype(idx)
        vals = cupy.concatenate([p[2] for p in pieces])
        indptr = cupy.searchsorted(rows, cupy.arange(nrows + 1, dtype=np.int64), side="left")
        return indptr.astype(idx), cols, vals
