"""PageRank's fused power iteration on A' (pull), numba: the kernel of
``bitgraph.algorithms.link_analysis`` on the CPU (``pagerank_run``).

Every iteration of a run happens in one call: the threads are a team
(``team.py``) that claims the iteration's row ranges one at a time (an
atomic add), meets at a barrier, and sums the ranges' errors and dangling
ranks in range order (the same sums whatever thread ran a range), so no
Python runs between iterations and no thread waits on the pool: a pool
round trip an iteration cost tens of microseconds (grid-256, 2 threads:
one range ran, the other thread woke too late).
"""

import numpy as np
from numba import njit

from bitgraph.kernels.cpu import (
    arg, check_length, dummy, index_args, indptr_chunks, num_threads, parallel_for, serial_below,
    values_arg,
)
from bitgraph.kernels.cpu.bits import fetch_add, prefetch, prefetch_l2, store_release
from bitgraph.kernels.cpu.team import FIRST, barrier, join, run_team
from bitgraph.kernels.registry import register

__all__ = ["pagerank_run"]

_U1 = np.uint64(1)

@njit(cache=True, nogil=True, inline="always")
def _gathered(y, i, first, c, r32):
    # the y(i) a sum adds, as float64: y[i]; in a fused first iteration
    # (first: y is inv_s, the start the uniform c) the y(i) the first pass
    # would have stored, c * inv_s(i) rounded to the ranks' type (r32:
    # float32). Callers pass ``first`` as a constant: inlined, one branch
    # folds away
    if first:
        v = c * y[i]
        if r32:
            v = np.float64(np.float32(v))
        return v
    return np.float64(y[i])


@njit(cache=True, nogil=True, inline="always")
def _row_sum(indices, y, b, e, m, ahead, first, c, r32):
    # sum of y over the entries b..e-1 (uint64) in four running sums (one
    # sum's chain of dependent adds bounds a row at 4 cycles an entry while
    # y is in cache: relabelled kron-16 0.82 -> 0.54 ms an iteration), in
    # groups of four from b, the last e - b mod 4 entries into the first sum:
    # the same order whatever m; each group wholly before m (<= nnz - ahead)
    # prefetches into L2 the y of its entries' p + ahead. y(i) as _gathered
    # gives it (first, c, r32)
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    four = np.uint64(4)
    p = b
    while p + four <= m:
        prefetch_l2(y, np.uint64(indices[p + ahead]))
        prefetch_l2(y, np.uint64(indices[p + ahead + _U1]))
        prefetch_l2(y, np.uint64(indices[p + ahead + np.uint64(2)]))
        prefetch_l2(y, np.uint64(indices[p + ahead + np.uint64(3)]))
        a0 += _gathered(y, np.uint64(indices[p]), first, c, r32)
        a1 += _gathered(y, np.uint64(indices[p + _U1]), first, c, r32)
        a2 += _gathered(y, np.uint64(indices[p + np.uint64(2)]), first, c, r32)
        a3 += _gathered(y, np.uint64(indices[p + np.uint64(3)]), first, c, r32)
        p += four
    while p + four <= e:
        a0 += _gathered(y, np.uint64(indices[p]), first, c, r32)
        a1 += _gathered(y, np.uint64(indices[p + _U1]), first, c, r32)
        a2 += _gathered(y, np.uint64(indices[p + np.uint64(2)]), first, c, r32)
        a3 += _gathered(y, np.uint64(indices[p + np.uint64(3)]), first, c, r32)
        p += four
    while p < e:
        a0 += _gathered(y, np.uint64(indices[p]), first, c, r32)
        p += _U1
    return (a0 + a1) + (a2 + a3)


@njit(cache=True, nogil=True, inline="always")
def _weighted_sum(indices, values, y, b, e, m, ahead, first, c, r32):
    # sum of values[p] * y(indices[p]) over p = b..e-1 in order (one sum);
    # the entries before m prefetch the y of entry p + ahead (ahead 0:
    # none). y(i) as _gathered gives it
    acc = 0.0
    if ahead == 0:
        for p in range(b, e):
            acc += values[p] * _gathered(y, np.uint64(indices[p]), first, c, r32)
        return acc
    for p in range(b, m):
        prefetch_l2(y, np.uint64(indices[p + ahead]))
        acc += values[p] * _gathered(y, np.uint64(indices[p]), first, c, r32)
    for p in range(m, e):
        acc += values[p] * _gathered(y, np.uint64(indices[p]), first, c, r32)
    return acc


@njit(cache=True, nogil=True)
def _uniform_rows(r0, r1, indptr, indices, y, x, inv_s, y_new, alpha, c, ahead, gather_ahead,
                  first, start, r32):
    # _pagerank_rows for a structure-only AT and uniform dw and teleport:
    # x_new = alpha * sum_i y(i) + c, no per-row branch on the flags (1 ms
    # an iteration of urand-20's 14.5, its rows holding 16 entries)
    err = 0.0
    dangling = 0.0
    nnz = np.uint64(indices.size)
    # entries from last on have no entry gather_ahead past them (0: no prefetch)
    last = nnz - gather_ahead if gather_ahead != 0 and nnz > gather_ahead else np.uint64(0)
    for j in range(r0, r1):
        b = np.uint64(indptr[j])
        e = np.uint64(indptr[j + _U1])
        prefetch(indices, b + ahead)
        m = max(min(e, last), b)
        if first:
            acc = _row_sum(indices, inv_s, b, e, m, gather_ahead, True, start, r32)
        else:
            acc = _row_sum(indices, y, b, e, m, gather_ahead, False, start, r32)
        old = start if first else np.float64(x[j])
        x[j] = alpha * acc + c
        xn = np.float64(x[j])  # the stored rank (float32 ranks: rounded once)
        err += abs(xn - old)
        s = inv_s[j]
        y_new[j] = xn * s
        if s == 0.0:
            dangling += xn
    return err, dangling


@njit(cache=True, nogil=True)
def _pagerank_rows(r0, r1, indptr, indices, values, iso, y, x, dw, dw_uniform,
                   dw_c, teleport, tele_uniform, tele_c, lost, alpha, inv_s, y_new, ahead,
                   gather_ahead, first, start, r32):
    # rows r0..r1-1 of AT = A' (row j: the in-neighbours i of j, values
    # A(i, j) or iso); y[n] = x / S (x scaled by 1 / weighted out-degree);
    # x[n], y[n], y_new[n] the ranks' dtype R (float64, or float32: half the
    # bytes gathered; each row's sum, the error and the dangling sum still
    # float64, a rank rounded to R once, when stored); inv_s[n] float64;
    # dw[n] / teleport[n] float64, or the scalars
    # dw_c / tele_c when uniform (then the arrays are dummies: two streams
    # of n doubles fewer per iteration). Overwrites x[r0:r1] with x_new =
    # alpha * (sum_i y(i) A(i, j) + lost * dw(j)) + teleport(j) (x is never
    # gathered, so in place: no third rank stream) and writes y_new = x_new
    # * inv_s (x_new as stored); returns (sum |x_new - x|, sum of x_new over the rows with
    # inv_s == 0: the next iteration's dangling rank). ahead (uint64): each
    # row prefetches the entries that many past its first (0: none), so the
    # gathers' addresses are at hand; gather_ahead (uint64): entry p
    # prefetches the y of entry p + gather_ahead into L2 (0: none). first:
    # the run's fused first iteration from the uniform start ``start`` (the
    # float64 value of the ranks' type): y is not read, its values made
    # from inv_s (_gathered), and x (not yet written) counts as ``start``;
    # r32: the ranks are float32. O(r1 - r0 + their entries)
    if iso and dw_uniform and tele_uniform:  # the common case, without the flags
        return _uniform_rows(r0, r1, indptr, indices, y, x, inv_s, y_new, alpha,
                             alpha * lost * dw_c + tele_c, ahead, gather_ahead, first, start,
                             r32)
    err = 0.0
    dangling = 0.0
    nnz = np.uint64(indices.size)
    last = nnz - gather_ahead if gather_ahead != 0 and nnz > gather_ahead else np.uint64(0)
    for j in range(r0, r1):
        acc = 0.0
        b = np.uint64(indptr[j])
        e = np.uint64(indptr[j + _U1])
        if ahead != 0:
            prefetch(indices, b + ahead)
            if not iso:
                prefetch(values, b + ahead)
        # entries whose p + gather_ahead is stored prefetch, the last few do not
        m = max(min(e, last), b)
        if iso:  # summed as _uniform_rows sums
            if first:
                acc = _row_sum(indices, inv_s, b, e, m, gather_ahead, True, start, r32)
            else:
                acc = _row_sum(indices, y, b, e, m, gather_ahead, False, start, r32)
        elif first:
            acc = _weighted_sum(indices, values, inv_s, b, e, m, gather_ahead, True, start, r32)
        else:
            acc = _weighted_sum(indices, values, y, b, e, m, gather_ahead, False, start, r32)
        old = start if first else np.float64(x[j])
        x[j] = alpha * (acc + lost * (dw_c if dw_uniform else dw[j])) + (
            tele_c if tele_uniform else teleport[j])
        xn = np.float64(x[j])  # the stored rank (float32 ranks: rounded once)
        err += abs(xn - old)
        s = inv_s[j]
        y_new[j] = xn * s
        if s == 0.0:
            dangling += xn
    return err, dangling


# sync[] slots after team.py's: the range counters of even and odd iterations, and of the
# first y
_CLAIM = (FIRST, FIRST + 8)
_CLAIM_Y = FIRST + 16
_NSYNC = FIRST + 24


@njit(cache=True, nogil=True)
def _run(t, threads, sync, parts, chunks, indptr, indices, values, iso, y0, y1, x, dw,
         dw_uniform, dw_c, teleport, tele_uniform, tele_c, lost, alpha, inv_s, ahead,
         gather_ahead, threshold, max_iter, spin_pauses, fill, fill_c, r32):
    # thread t of a team (team.join). With ``fill`` (the uniform start
    # fill_c, a value of the ranks' type) and an iteration to run, the first
    # iteration is fused with the start (_pagerank_rows' first: y0 and x not
    # read); else a first pass makes x = fill_c (with ``fill``) and y0 = x *
    # inv_s (ranges claimed as below, then a barrier): the same bits, one
    # pass over 3 n-arrays fewer (float32 ranks, 2 threads, whole run at tol
    # 1e-4: urand-20 100.1 -> 98.0 ms, kron-20 162.6 -> 155.5; grid-1024's 3
    # iterations unchanged, its arrays mostly in L3). Iteration k reads y0 (k even) or y1
    # and writes the other; each thread claims ranges of ``chunks`` from the
    # iteration's counter (the next iteration's cleared by rank 0 before the
    # barrier, whoever last used it being past the one before) and stores
    # each range's (error, dangling rank) in parts[2 * (k & 1) * ranges + 2 c
    # ...] (two sets: a thread may start the next iteration while another
    # still sums this one's); after the barrier every thread sums them in
    # range order, so all stop at the same iteration. Returns (iterations,
    # error, dangling rank) on every thread of the team, (0, 0.0, 0.0) on a
    # helper that came too late
    rank, team = join(t, threads, sync, spin_pauses)
    if rank < 0:
        return 0, 0.0, 0.0
    ranges = chunks.size - 1
    fused = fill and max_iter > 0
    barriers = 0  # the team's barriers passed
    if not fused:
        # the first y = x * inv_s (float64 product, stored as R: numpy's x * inv_s into R)
        while True:
            c = fetch_add(sync, _CLAIM_Y, 1)
            if c >= ranges:
                break
            for j in range(chunks[c], chunks[c + 1]):
                if fill:
                    x[j] = fill_c
                y0[j] = np.float64(x[j]) * inv_s[j]
        barriers += 1
        barrier(sync, barriers * team, spin_pauses)
    it = 0
    err = np.inf
    while it < max_iter:
        odd = it & 1
        ya = y1 if odd else y0
        yb = y0 if odd else y1
        at = 2 * odd * ranges
        if rank == 0:
            store_release(sync, _CLAIM[1 - odd], 0)
        first = fused and it == 0
        while True:
            c = fetch_add(sync, _CLAIM[odd], 1)
            if c >= ranges:
                break
            e, d = _pagerank_rows(np.uint64(chunks[c]), np.uint64(chunks[c + 1]), indptr,
                                  indices, values, iso, ya, x, dw, dw_uniform, dw_c, teleport,
                                  tele_uniform, tele_c, lost, alpha, inv_s, yb, ahead,
                                  gather_ahead, first, fill_c, r32)
            parts[at + 2 * c] = e
            parts[at + 2 * c + 1] = d
        it += 1
        barriers += 1
        barrier(sync, barriers * team, spin_pauses)
        err = 0.0
        lost = 0.0
        for c in range(ranges):
            err += parts[at + 2 * c]
            lost += parts[at + 2 * c + 1]
        if err < threshold:
            break
    return it, err, lost


def _warm_pagerank(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR

    for values in (None, np.array([1.0, 2.0])):
        AT = CSR(np.array([0, 1, 2], index_dtype), np.array([1, 0], index_dtype),
                 values, 2, 2)
        ones = np.ones(2)
        for rank in (np.float64, np.float32):  # the ranks' two dtypes
            for par in (False, True):
                pagerank_run(AT, np.ones(2, rank), np.ones(2, rank), np.empty(2, rank), ones,
                             0.0, 0.85, ones, ones, 0.0, 2, parallel=par, ahead=4)
                pagerank_run(AT, np.ones(2, rank), np.ones(2, rank), np.empty(2, rank), 0.5,
                             0.0, 0.85, 0.1, ones, 0.0, 2, parallel=par, gather_ahead=1,
                             fill=0.5)


@register("pagerank", fmt="csr", device="cpu", variant="pull", warmup=_warm_pagerank)
def pagerank_run(AT, x, y, y_new, dw, lost, alpha, teleport, inv_s, threshold, max_iter, *,
                 parallel=None, chunks=None, ahead=0, gather_ahead=0, spin_pauses=1 << 10,
                 fill=None):
    """PageRank's power iteration from ``x``, every iteration one fused pass
    over A' (pull), until an iteration's L1 change is below ``threshold`` or
    ``max_iter`` iterations: returns ``(iterations, converged, error, y)``,
    x updated in place (the CPU twin of ``kernels/cuda/pagerank.py``'s
    ``pagerank_run``).

    AT: CSR of A' (n x n; values float64 or None = all 1). x, y, y_new:
    the ranks' dtype R, float64 or float32 (x's; the other two must match);
    y and y_new are scratch (y = x * inv_s is made first, in parallel);
    inv_s: float64[n], 0 exactly on the dangling
    vertices; dw, teleport: float64[n] or a float (the same for every
    vertex); lost: the rank x holds on dangling vertices. An iteration
    overwrites x with x_new = alpha * (y A + lost * dw) + teleport and fills
    the other y buffer with x_new * inv_s (the next iteration's y; the last
    one's comes back as ``y``: y or y_new, the other scratch). Every sum is
    float64 (a row's, the error, the dangling rank); with R float32 a rank
    is rounded once, when stored, and the error is the change of the stored
    ranks. The pull over A' reads y at the in-neighbours, no bitmap, no op
    codes: 1.2-3x faster than the public-API iteration. parallel: None runs
    a team of ``num_threads()`` threads from ``settings.cpu.serial_below``
    stored entries; chunks: the row ranges the team claims
    (``indptr_chunks(AT.indptr)`` by default), whose errors are summed in
    range order (the same ranges, the same bits whatever the threads);
    ahead: each row prefetches its entries that many past its first
    (``settings.pagerank.cpu_prefetch``; 0: none); gather_ahead: entry p
    prefetches the y of entry p + gather_ahead
    (``settings.pagerank.cpu_gather_ahead``; 0: none); spin_pauses: a
    thread waiting at an iteration's barrier pauses that many times, then
    yields its CPU (``settings.pagerank.cpu_spin_pauses``); fill: a float to
    start from (x set to it, as R, by the team: x's values on entry are not
    read; the first iteration makes the y of that start as it gathers, no
    pass before it), None: x as given. O(n + nnz) an iteration, no Python between
    iterations

    >>> from bitgraph.formats.csr import CSR
    >>> AT = CSR(np.array([0, 1, 2]), np.array([1, 0]), None, 2, 2)  # 0 <-> 1
    >>> x = np.array([0.9, 0.1]); y = x.copy()
    >>> it, converged, err, _ = pagerank_run(AT, x, y, np.empty(2), 0.5, 0.0, 0.85, 0.075,
    ...                                      np.ones(2), 1e-6, 200)
    >>> it, converged, np.round(x, 5).tolist()
    (89, True, [0.5, 0.5])
    """
    indptr, indices = index_args(AT.indptr, AT.indices)
    values, iso = values_arg(AT.values, np.float64)
    n = AT.nrows
    rank = x.dtype if isinstance(x, np.ndarray) else None
    if rank is None or rank not in (np.float64, np.float32):
        raise TypeError(f"pagerank_run: x must be a float64 or float32 numpy array, got"
                        f" {getattr(x, 'dtype', type(x).__name__)}")
    dw_uniform = np.ndim(dw) == 0
    tele_uniform = np.ndim(teleport) == 0
    dw_arr = dummy(np.float64) if dw_uniform else arg(dw, np.float64)
    tele_arr = dummy(np.float64) if tele_uniform else arg(teleport, np.float64)
    for name, a in (("y", y), ("x", x), ("inv_s", inv_s), ("y_new", y_new)) + (
            (("dw", dw_arr),) if not dw_uniform else ()) + (
                (("teleport", tele_arr),) if not tele_uniform else ()):
        check_length("pagerank_run", name, a, n)
    for name, a in (("x", x), ("y", y), ("y_new", y_new)):  # written: never a converted copy
        if not (isinstance(a, np.ndarray) and a.dtype == rank and a.ndim == 1
                and a.flags.c_contiguous and a.flags.writeable):
            raise TypeError(f"pagerank_run: {name} must be a writeable C-contiguous {rank}[n]"
                            f" numpy array")
    if max_iter < 0:
        raise ValueError(f"pagerank_run: max_iter must be >= 0, got {max_iter}")
    if parallel is None:
        parallel = indices.size >= serial_below()
    if chunks is None:
        chunks = indptr_chunks(indptr) if parallel else np.array([0, n], np.int64)
    chunks = np.ascontiguousarray(chunks, np.int64)
    threads = min(num_threads(), chunks.size - 1) if parallel else 1
    sync = np.zeros(_NSYNC, np.int64)
    parts = np.empty(4 * (chunks.size - 1), np.float64)
    it, err, _ = run_team(_run, max(threads, 1), sync, parts, chunks, indptr, indices, values,
                          iso, y, y_new, x, dw_arr, dw_uniform,
                          np.float64(dw if dw_uniform else 0.0), tele_arr, tele_uniform,
                          np.float64(teleport if tele_uniform else 0.0), np.float64(lost),
                          np.float64(alpha), arg(inv_s, np.float64), np.uint64(ahead),
                          np.uint64(gather_ahead), np.float64(threshold), np.int64(max_iter),
                          np.int64(max(0, int(spin_pauses))), fill is not None,
                          np.float64(0.0 if fill is None else rank.type(fill)),
                          rank == np.float32)
    it = int(it)
    return it, bool(it > 0 and err < threshold), float(err), (y_new if it & 1 else y)


@njit(cache=True, nogil=True)
def _relabel_rows(k0, k1, indptr, indices, values, has_values, order, rank, new_ptr, new_idx,
                  new_vals):
    # new rows k0..k1-1: new row k is old row order[k], its entries' ids
    # mapped through rank (old id -> new id), in their old order
    for k in range(k0, k1):
        o = order[k]
        q = new_ptr[k]
        for p in range(indptr[o], indptr[o + 1]):
            new_idx[q] = rank[indices[p]]
            if has_values:
                new_vals[q] = values[p]
            q += 1


def _warm_relabel(dtype, index_dtype):
    if dtype != np.bool_:
        return
    from bitgraph.formats.csr import CSR

    for values in (None, np.array([1.0, 2.0])):
        AT = CSR(np.array([0, 1, 2], index_dtype), np.array([1, 0], index_dtype), values, 2, 2)
        relabel_rows(AT, np.array([1, 0]), np.array([1, 0], index_dtype),
                     np.array([0, 1, 2], index_dtype))


@register("pagerank", fmt="csr", device="cpu", variant="relabel", warmup=_warm_relabel)
def relabel_rows(AT, order, rank, indptr):
    """The entries of AT renumbered: (indices, values) of the CSR whose row
    k is AT's row ``order[k]`` (``indptr`` its row starts, already the
    running sum of those rows' lengths), every column id i written as
    ``rank[i]``, the entries of a row in their old order; values None when
    AT has none. In parallel over row ranges of equal work. O(n + nnz)

    >>> from bitgraph.formats.csr import CSR
    >>> AT = CSR(np.array([0, 1, 3]), np.array([1, 0, 1]), None, 2, 2)
    >>> ix, _ = relabel_rows(AT, np.array([1, 0]), np.array([1, 0]), np.array([0, 2, 3]))
    >>> ix.tolist()
    [1, 0, 0]
    """
    n = int(AT.nrows)
    indices = np.empty(AT.indices.size, AT.indices.dtype)
    has_values = AT.values is not None
    values = np.empty(AT.indices.size, np.float64) if has_values else dummy(np.float64)
    old_vals = arg(AT.values, np.float64) if has_values else dummy(np.float64)
    order = arg(order, np.int64)
    rank = arg(rank, AT.indices.dtype)
    indptr = arg(indptr, AT.indptr.dtype)
    chunks = (indptr_chunks(indptr) if AT.indices.size >= serial_below()
              else np.array([0, n], np.int64))
    parallel_for(_relabel_rows, chunks, arg(AT.indptr, AT.indptr.dtype),
                 arg(AT.indices, AT.indices.dtype), old_vals, has_values, order, rank, indptr,
                 indices, values)
    return indices, (values if has_values else None)
