"""PageRank by power iteration, with networkx's semantics.

``pagerank(A)`` equals ``networkx.pagerank(G)`` (its scipy version,
``_pagerank_scipy``) for the graph G whose edge i -> j has weight A(i, j)
(structure-only A: weight 1)::

    S(i)  = sum_j A(i, j)            weighted out-degree; i dangles if S(i) == 0
    x'    = alpha * (x Q A + (sum of x over dangling i) * dw) + (1 - alpha) * p
    stop when sum |x' - x| < n * tol, or after max_iter iterations

with Q = diag(1 / S) (0 where S is 0), p the personalization (uniform by
default, normalised to sum 1), dw the dangling distribution (``dangling``
normalised, default p) and x0 ``nstart`` normalised (default uniform).

Each iteration is one product on A itself: ``t = (x / S) plus.times A``.
Scaling the vector instead of the matrix means no row-normalised copy of A
is ever built (for a structure-only A the product reads no values at all;
measured as fast as the product with a row-normalised float64 matrix, which
also costs building it). Written with the public API (``vxm`` and numpy
passes over dense length-n arrays, into buffers allocated once, over numpy
or CuPy: the same loop runs on a CUDA graph); one fused kernel pass per
iteration does the same arithmetic (``method="fused"``, the default: numba
on the CPU, ``kernels/cuda/pagerank.cu`` on the GPU). A skewed graph's
fused iteration runs on its vertices renumbered by descending out-degree
(the values gathered most share cache lines; ``settings.pagerank.relabel``,
built once and cached on the matrix), the ranks mapped back.

On a CUDA graph every argument works as on the CPU: arrays and dicts are
moved to the GPU, CuPy arrays taken as they are; a bitgraph Vector must be
on the graph's device (``DeviceError`` otherwise). The ranks come back on
the graph's device.

Float32 ranks (``dtype=np.float32``): the ranks, the start vector and
the gathered ``x / S`` are stored as float32 (half the bytes each gather
reads: the product's gathers dominate an iteration), every sum stays
float64 (a row's sum, the dangling rank, the L1 change; the teleport and
dangling distributions and 1 / S are float64) and a rank is rounded to
float32 once, when stored. The stop rule is float64's, on the change of
the stored ranks: the iterations match float64's while that change stays
well above float32's noise. That noise floor: each stored rank is within
half a float32 ulp (2^-24 relative) of its float64 value, so an
iteration's L1 change cannot reliably fall below about 1e-7 (the ranks
sum to 1); a ``tol`` with ``n * tol`` under about 1e-7 (tol under ~1e-7 / n)
may never be met. No clamp: ``converged`` always means the stored ranks'
L1 change fell below ``n * tol``. Under the floor the float32 iteration
either reaches a fixed point (a change of exactly 0: converged, often in
fewer iterations than float64; kron-10 at tol 1e-15: 36 against 44) or
cycles in the last bits (a 4-vertex graph: a change of 4.5e-8 forever),
and then stops at ``max_iter`` with ``converged=False``. Measured: float32 ranks 2e-8 L1 from the
float64 ranks on kron-16, urand-16 and grid-256x256 (alpha 0.85 and
0.95, the same iterations); the tests hold them to 1e-5.

Differences from networkx, on purpose: not converging within ``max_iter``
returns ``converged=False`` (networkx raises
``PowerIterationFailedConvergence``); an all-zero personalization, nstart
or dangling vector raises ``InvalidValue`` (networkx: ZeroDivisionError,
or NaN ranks); negative or NaN entries in them, or in A's weights, and a
weighted out-degree that is inf raise ``InvalidValue`` (networkx computes
with them).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from bitgraph import _array as ar
from bitgraph.algorithms._common import cached, check_graph, in_csr, median_spread, out_csr
from bitgraph.errors import DeviceError, DimensionMismatch, InvalidIndex, InvalidValue

__all__ = ["pagerank", "PageRank", "METHODS"]

# "fused": each iteration is one pass of a fused kernel (the product, the
# axpy, the error, the next scaled vector and dangling rank together; on
# the CPU 1.2-3x faster than the public-API iteration: python
# benchmarks/run.py --algo pagerank; on the GPU one launch an iteration,
# every iteration one CUDA graph WHILE loop and one host read a run:
# settings.pagerank.cuda_while);
# "graphblas": the public-API loop (one vxm per iteration), on any device.
METHODS = ("fused", "graphblas")


class PageRank(NamedTuple):
    """The result of :func:`pagerank`.

    ranks: float64 (or float32: ``dtype``) Vector with every vertex (sums to 1); iterations: power
    iterations run; converged: whether the L1 change of the last one fell
    below ``n * tol``; error: that L1 change (inf if none ran).

    >>> import bitgraph as bg
    >>> pr = bg.algorithms.pagerank(bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2))
    >>> pr.ranks.to_dense().tolist(), pr.iterations, pr.converged, pr.error
    ([0.5, 0.5], 1, True, 0.0)
    """

    ranks: object
    iterations: int
    converged: bool
    error: float


def pagerank(A, alpha=0.85, tol=1e-6, max_iter=100, personalization=None, *,
             nstart=None, dangling=None, method="fused", dtype=np.float64,
             stats=None) -> PageRank:
    """PageRank of every vertex of A (edge i -> j of weight A(i, j)).

    alpha: damping factor in [0, 1]; tol: convergence when the L1 change of
    an iteration is below ``n * tol``; max_iter: most iterations.
    personalization, nstart, dangling: None, an array of n values, or a
    dict {vertex id: value} (missing ids count 0), each normalised to sum
    1: the teleport distribution (default uniform), the start vector
    (default uniform) and where dangling vertices' rank goes (default the
    personalization); on a CUDA graph each may also be a CuPy array, and a
    bitgraph Vector (absent entries 0) must be on the graph's device.
    method: "fused" (one kernel pass an iteration, CPU or GPU) or
    "graphblas" (the public-API loop): the same ranks; dtype: the ranks'
    type, float64 or float32 (stored and gathered as float32, summed in
    float64; see the module docstring for its tolerance floor); stats: a
    ``bitgraph.Stats`` to fill with the method run (and on the GPU
    ``metrics["kernel_ms"]``). Returns a :class:`PageRank` (ranks on A's
    device, iterations, converged, error); see the module docstring for
    networkx's semantics.

    >>> import numpy as np, bitgraph as bg
    >>> from bitgraph.algorithms.link_analysis import pagerank
    >>> A = bg.Matrix.from_coo([0, 1, 2, 2], [1, 2, 0, 1], nrows=4, ncols=4)
    >>> pr = pagerank(A, tol=1e-10)
    >>> np.round(pr.ranks.to_dense(), 4).tolist(), pr.converged
    ([0.2046, 0.3785, 0.3693, 0.0476], True)
    >>> pagerank(A, max_iter=2).converged
    False
    >>> np.allclose(pagerank(A, method="graphblas").ranks.to_dense(), pagerank(A).ranks.to_dense())
    True
    >>> r32 = pagerank(A, tol=1e-10, dtype=np.float32).ranks
    >>> r32.dtype, float(np.abs(r32.to_dense() - pr.ranks.to_dense()).sum()) < 1e-6
    (dtype('float32'), True)
    """
    where = "pagerank"
    check_graph(A, where, cuda=True)
    if method not in METHODS:
        raise InvalidValue(f"{where}: unknown method {method!r}; expected one of {METHODS}")
    alpha = _number(alpha, "alpha", where)
    if not 0.0 <= alpha <= 1.0:
        raise InvalidValue(f"{where}: alpha must be in [0, 1], got {alpha}")
    tol = _number(tol, "tol", where)
    if not tol >= 0.0:
        raise InvalidValue(f"{where}: tol must be >= 0, got {tol}")
    if isinstance(max_iter, (bool, np.bool_)) or not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"{where}: max_iter must be an int, got {max_iter!r}")
    if max_iter < 0:
        raise InvalidValue(f"{where}: max_iter must be >= 0, got {max_iter}")
    rank = _rank_dtype(dtype, where)
    from bitgraph import settings
    from bitgraph.vector import Vector

    cfg = settings.current()
    device = A.device
    xp = _xp(device, where)
    n = A.nrows
    p = _distribution(personalization, n, "personalization", where, device)
    x = _distribution(nstart, n, "nstart", where, device)
    dw = _distribution(dangling, n, "dangling", where, device)
    if n == 0:
        return PageRank(Vector(rank, 0, device=device), 0, True, 0.0)
    fused = method == "fused"
    if p is None and not fused:  # the fused kernels take a uniform p as a scalar
        p = xp.full(n, 1.0 / n)
    if dw is None:
        dw = p
    uniform = x is None  # the uniform start: made by the CPU team or the GPU initialisation
    # float32 ranks: the start rounded once
    if not uniform:
        x = x.astype(rank, copy=False)
    elif fused and device == "cpu":
        x = xp.empty(n, rank)
    elif not fused:
        x = xp.full(n, 1.0 / n, rank)
    M, inv_s, dangles = _operator(A)
    key = ("pagerank", "csr", device, "pull")
    if stats is not None:  # what ran (bitgraph.Stats)
        stats.method = "fused" if fused else "graphblas"
        stats.metrics["ranks"] = str(rank)
        if fused:
            stats.ran(key)
    if fused:
        # uniform vectors go to the kernel as scalars (two fewer streams)
        tele = (1.0 - alpha) * (1.0 / n) if personalization is None else (1.0 - alpha) * p
        dws = 1.0 / n if dangling is None and personalization is None else dw
        if device == "cpu":
            x, it, converged, err = _fused(M, x, dws, alpha, tele, inv_s, dangles, tol, max_iter,
                                           cfg, uniform=uniform)
        else:
            from bitgraph.kernels import registry

            run = registry.lookup("pagerank", fmt="csr", device="cuda", variant="pull")
            AT, order = _pull_csr(M), None
            if _relabel(M, cfg.pagerank):  # hubs first, as on the CPU
                order, AT, inv_s = _relabelled(M, AT, inv_s)
                x = None if uniform else x[order]
                dws = dws if np.ndim(dws) == 0 else dws[order]
                tele = tele if np.ndim(tele) == 0 else tele[order]
            # converged when an iteration's L1 change is below n * tol, as on the CPU;
            # the kernel's plan (heavy rows cut into chunks) and workspaces, built on
            # the first run and kept with M (one set for each numbering); the ranks come
            # back in A's own numbering
            x, it, converged, err = run(AT, x, inv_s, dws, tele, alpha, n * tol, max_iter,
                                        cfg=cfg.pagerank, cuda_cfg=cfg.cuda, stats=stats,
                                        cache=cached(M, "pagerank_cuda", dict).setdefault(
                                            order is not None, {}), fill=(1.0 / n, rank),
                                        hubs_first=order is not None, order=order)
            if stats is not None:
                stats.metrics["relabel"] = order is not None
    else:
        x, it, converged, err = _power(M, x, dw, alpha, (1.0 - alpha) * p, inv_s, dangles,
                                       tol, max_iter)
    return PageRank(Vector._from_parts(ar.full_bitmap(n, xp), x, n),
                    int(it), bool(converged), float(err))


def _power(M, x, dw, alpha, teleport, inv_s, dangles, tol, max_iter):
    """The power iteration with one public-API product per iteration, over
    numpy or CuPy (x's array module), in x's dtype (float64 or float32
    ranks: y = x * inv_s rounded to it, the product and the update in
    float64, the new ranks rounded once)."""
    import bitgraph as bg
    from bitgraph.vector import Vector

    xp = ar.array_module(x)
    n = x.size
    wide = x.dtype == np.float64
    # buffers for the whole run: y = x * inv_s feeds the product as a full
    # float64 Vector sharing y's memory (float32 ranks: y rounded to float32,
    # then widened exactly into it; PLUS_TIMES on a structure-only A would add
    # a float32 operand in float32)
    y = xp.empty(n, x.dtype)
    yw = y if wide else xp.empty(n)
    u = Vector._from_parts(ar.full_bitmap(n, xp), yw, n)
    x_new = xp.empty(n, x.dtype)
    wide_new = None if wide else xp.empty(n)  # float32 ranks: the new ranks before rounding
    diff = xp.empty(n)
    err = np.inf
    it = 0
    while it < max_iter:
        xp.multiply(x, inv_s, out=y)
        if not wide:
            yw[...] = y
        # t(j) = sum_i x(i) / S(i) * A(i, j)
        t = bg.vxm(u, M, bg.PLUS_TIMES)
        # x' = alpha * (t + (x . dangles) * dw) + (1 - alpha) * p
        lost = (float(x[dangles].sum(dtype=np.float64)) if dangles.size
                else 0.0)  # synchronize! (CuPy)
        acc = x_new if wide else wide_new
        xp.multiply(dw, lost, out=acc)
        acc += t._values
        acc *= alpha
        acc += teleport
        if wide:
            xp.subtract(x_new, x, out=diff)
        else:
            x_new[...] = acc  # rounded once
            diff[...] = x_new  # the change of the stored ranks, in float64
            diff -= x
        err = float(xp.abs(diff, out=diff).sum())  # synchronize! (CuPy)
        it += 1
        x, x_new = x_new, x
        if err < n * tol:
            return x, it, True, err
    return x, it, False, err


def _fused(M, x, dw, alpha, teleport, inv_s, dangles, tol, max_iter, cfg=None, *,
           uniform=False):
    """The same iteration, each one a single pass of the fused kernel over
    A' (``kernels/cpu/pagerank.py::pagerank_run``: every iteration in one
    call), on the vertices relabelled by out-degree where
    ``cfg.pagerank.relabel`` says so
    (``_relabelled``; the ranks mapped back). cfg: the settings (None: the
    current ones); uniform: x is an uninitialised array for this call, the
    kernel starts it at 1 / n (overwritten in place: no copy, no
    permutation). What depends only on
    the graph and the settings (the row ranges, the prefetch rule) is
    cached on M, and so are the two scratch rank arrays between calls."""
    from bitgraph import settings
    from bitgraph.kernels import registry

    if cfg is None:
        cfg = settings.current()
    run = registry.lookup("pagerank", fmt="csr", device="cpu", variant="pull")
    AT = _pull_csr(M)
    n = x.size
    if uniform:  # x is not made yet: the kernel fills it with 1 / n as its dtype
        lost = dangles.size * float(x.dtype.type(1.0 / n)) if n else 0.0
    else:
        lost = float(x[dangles].sum(dtype=np.float64)) if dangles.size else 0.0
    rules = cfg.pagerank
    order = None
    if _relabel(M, rules):
        # hubs first: the y values gathered most share cache lines
        order, AT, inv_s = _relabelled(M, AT, inv_s)
        x = x if uniform else x[order]
        dw = dw if np.ndim(dw) == 0 else dw[order]
        teleport = teleport if np.ndim(teleport) == 0 else teleport[order]
    elif not uniform:
        x = x.copy()  # the kernel overwrites x in place
    chunks, far = _cpu_plan(M, AT, order is not None, x.dtype.itemsize, cfg)
    gather = rules.cpu_gather_ahead if far else 0
    # y and y_new: scratch, kept on M between calls (fresh pages cost a fault
    # each on first touch); taken off its list while in use, so that two calls
    # at once never share them
    spare = cached(M, "pagerank_cpu", list, key=("scratch", x.dtype.str))
    try:
        y, y_new = spare.pop()
    except IndexError:
        y, y_new = np.empty(n, x.dtype), np.empty(n, x.dtype)
    # every iteration in one call, y = x * inv_s made first (x overwritten by the ranks)
    it, converged, err, _ = run(AT, x, y, y_new, dw, lost, alpha, teleport, inv_s, n * tol,
                                max_iter, chunks=chunks, ahead=rules.cpu_prefetch,
                                gather_ahead=gather, spin_pauses=rules.cpu_spin_pauses,
                                fill=1.0 / n if uniform else None)
    spare.append((y, y_new))
    if order is not None:
        x = _unrelabel(x, order)
    return x, it, converged, err


def _cpu_plan(M, AT, relabelled, itemsize, cfg):
    """(chunks, far) for the CPU pull over AT (M's pull CSR, ``relabelled``
    or not): the row ranges the pool runs, of about
    ``cfg.pagerank.cpu_chunk_work`` entries plus rows each (as many ranges
    a thread, one at least, four at most; one range below
    ``cfg.cpu.serial_below`` entries), and whether the gathers are far
    (``_far_gathers``). Cached on
    M under the settings they read. O(samples + threads log n)"""
    from bitgraph.kernels.cpu import indptr_chunks, num_threads

    rules = cfg.pagerank
    threads = num_threads()
    key = ("plan", relabelled, itemsize, threads, cfg.cpu.serial_below, rules.cpu_chunk_work,
           rules.samples, rules.cpu_gather_min_distance, rules.cpu_gather_min_bytes)

    def build():
        nnz, n = AT.indices.size, AT.nrows
        if nnz < cfg.cpu.serial_below:
            chunks = np.array([0, n], np.int64)
        else:
            work = nnz + n
            want = -(-work // max(1, rules.cpu_chunk_work))
            # whole ranges a thread: 3 ranges on 2 threads leave one thread 2/3 of the work
            # (grid-1024, 2 threads: 7.7 ms a run in 3 ranges, 6.2 in 2 or 4)
            want = -(-want // threads) * threads
            chunks = indptr_chunks(AT.indptr, min(max(want, threads), 4 * threads))
        return chunks, _far_gathers(AT, rules, itemsize)
    return cached(M, "pagerank_cpu", build, key=key)


def _relabel(M, rules) -> bool:
    """Whether the fused iteration runs on M relabelled by out-degree:
    ``rules.relabel`` True or False, or "auto": gapbs's degree skew test
    (``triangles.worth_relabelling`` with the PageRank family's
    min_average_degree, skew and samples) on M's out-degrees."""
    mode = rules.relabel
    if mode is True or mode is False:
        return mode
    if mode != "auto":
        raise InvalidValue(f"pagerank: settings.pagerank.relabel must be 'auto', True or"
                           f" False, got {mode!r}")
    key = (rules.min_average_degree, rules.skew, rules.samples)
    return bool(cached(M, "pagerank_worth_relabelling",
                       lambda: _worth_relabelling(out_csr(M).indptr, rules), key=key))


def _worth_relabelling(indptr, rules):
    from bitgraph import device as dev
    from bitgraph.algorithms.triangles import worth_relabelling

    return worth_relabelling(dev.host(indptr), rules=rules)


def _far_gathers(AT, rules, itemsize=8) -> bool:
    """Whether the pull's gathers are far from their rows: the median
    |i - j| over ``rules.samples`` random entries (i, j) of AT (host
    arrays) is at least ``rules.cpu_gather_min_distance``; near ones (a
    mesh in its natural order) are in cache already, and prefetching them
    only costs; and y (``itemsize`` bytes a vertex: 8, 4 for float32 ranks)
    is over ``rules.cpu_gather_min_bytes`` (a y that small stays in cache
    wherever the gathers fall). O(samples)"""
    if AT.indices.size == 0 or itemsize * AT.nrows < rules.cpu_gather_min_bytes:
        return False
    return median_spread(AT.indptr, AT.indices, rules.samples) >= rules.cpu_gather_min_distance


def _relabelled(M, AT, inv_s):
    """(order, AT', inv_s'): the pull CSR and 1 / out-degree with vertex
    ``order[k]`` renumbered k, the vertices in descending out-degree (the
    number of times the pull gathers its y; ties by id). On the CPU the
    rows of AT' keep their entries' order (the pull needs none); on the GPU
    they are sorted by the new ids. Over numpy or CuPy (AT's array module);
    built once and cached on M. O(n log n + nnz) on the CPU, O((n + nnz)
    log) on the GPU (a sort of the entries)"""
    def build():
        from bitgraph.formats.csr import CSR

        xp = ar.array_module(AT.indptr)
        n, nnz = AT.nrows, AT.indices.size
        idx = AT.indptr.dtype
        degree = xp.diff(out_csr(M).indptr)
        order = xp.argsort(-degree, kind="stable")  # new id -> old id
        rank = xp.empty(n, idx)  # old id -> new id
        rank[order] = xp.arange(n, dtype=idx)
        old_start = AT.indptr[:-1][order]
        length = AT.indptr[1:][order] - old_start
        indptr = xp.zeros(n + 1, idx)
        xp.cumsum(length, out=indptr[1:])
        if xp is np:  # one parallel pass, no temporaries (numpy's took 1.36 s on kron-20)
            from bitgraph.kernels import registry

            relabel = registry.lookup("pagerank", fmt="csr", device="cpu", variant="relabel")
            indices, values = relabel(AT, order, rank, indptr)
            return order, CSR(indptr, indices, values, n, n), inv_s[order]
        # entry e of new row k is old entry e + old_start[k] - indptr[k]
        rows = ar.segment_ids(length)
        src = (old_start - indptr[:-1])[rows]
        src += xp.arange(nnz, dtype=idx)
        # each row's entries sorted by their new ids: the lanes of a warp, a row
        # each, then gather the hubs together (kron-22, H200: 0.98 -> 0.92 ms an
        # iteration)
        key = rows.astype(np.int64) * n + rank[AT.indices[src]]
        values = None
        if AT.values is None:
            key = xp.sort(key)
        else:
            by = xp.argsort(key)
            key, values = key[by], AT.values[src[by]]
        indices = (key % n).astype(idx)
        return order, CSR(indptr, indices, values, n, n), inv_s[order]
    return cached(M, "pagerank_relabelled", build)


def _unrelabel(x, order):
    """x in the original numbering: x_orig[order[k]] = x[k]."""
    out = ar.array_module(x).empty_like(x)
    out[order] = x
    return out


def _pull_csr(M):
    """The CSR of M' the fused kernels pull over: M's own CSR when M is a
    pattern known to be symmetric (``in_csr``); a valued M always its
    transpose (a symmetric pattern may hold A(i, j) != A(j, i))."""
    return in_csr(M) if M.iso else M._transposed_csr()


def _rank_dtype(dtype, where):
    """The ranks' dtype: float64 or float32 (anything numpy names so), else
    InvalidValue."""
    try:
        rank = None if dtype is None else np.dtype(dtype)
    except TypeError:
        rank = None
    if rank is None or rank not in (np.dtype(np.float64), np.dtype(np.float32)):
        raise InvalidValue(f"{where}: dtype must be float64 or float32, got {dtype!r}")
    return rank


def _xp(device, where):
    """numpy, or CuPy for a CUDA graph."""
    if device == "cpu":
        return np
    from bitgraph import device as dev

    return dev.require_cuda(where)


def _number(value, name, where):
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{where}: {name} must be a real number, got {value!r}")
    v = float(value)
    if np.isnan(v):
        raise InvalidValue(f"{where}: {name} must not be NaN")
    return v


def _distribution(values, n, name, where, device="cpu"):
    """An array, CuPy array, Vector or {vertex: value} dict as float64[n]
    on ``device`` summing to 1 (or None). Checked on the device; one host
    read of the sum (and of the first bad entry, to name it)."""
    from bitgraph import device as dev
    from bitgraph.vector import Vector

    if values is None:
        return None
    xp = _xp(device, where)
    if isinstance(values, Vector):
        if values.device != device:
            raise DeviceError(f"{where}: {name} is a Vector on {values.device!r} and the graph"
                              f" is on {device!r}; move it with .to({device!r})")
        if values.size != n:
            raise DimensionMismatch(f"{where}: {name} must have one value per vertex"
                                    f" ({n}), got a Vector of size {values.size}")
        if values.dtype.kind not in "biuf":
            raise TypeError(f"{where}: {name} must hold numbers, got {values.dtype}")
        a = values.to_dense(0).astype(np.float64)
    elif isinstance(values, dict):
        a = np.zeros(n)
        for k, v in values.items():
            if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
                raise TypeError(f"{where}: {name} keys must be vertex ids (ints), got {k!r}")
            if not 0 <= k < n:
                raise InvalidIndex(f"{where}: {name} key {k} is out of range for a graph"
                                   f" of {n} vertices")
            a[int(k)] = v
    else:
        a = values if dev.on_gpu(values) else np.asarray(values)
        if a.ndim != 1 or a.shape[0] != n:
            raise DimensionMismatch(f"{where}: {name} must have one value per vertex"
                                    f" ({n}), got shape {a.shape}")
        if a.dtype.kind not in "biuf":
            raise TypeError(f"{where}: {name} must hold numbers, got {a.dtype}")
        a = a.astype(np.float64)
    # on the graph's device (a host array or dict moved to the GPU, a CuPy
    # array with a CPU graph brought back)
    a = dev.asdevice(a, device, where)
    bad = xp.flatnonzero(xp.isnan(a) | (a < 0))
    if bad.size:
        v = int(bad[0])
        raise InvalidValue(f"{where}: {name} must be >= 0 and not NaN; vertex {v}"
                           f" has {float(a[v])}")
    total = float(a.sum())  # synchronize! (CuPy)
    if n and not total > 0:
        raise InvalidValue(f"{where}: {name} sums to {total}; it needs a positive entry")
    if not np.isfinite(total):
        raise InvalidValue(f"{where}: {name} sums to {total}")
    return a / total if n else a


def _operator(A):
    """(M, inv_s, dangles): the matrix the product reads (A, or A with its
    weights as float64, cached), 1 / weighted out-degree (0 where it is 0)
    and the dangling vertices' ids, on A's device (numpy or CuPy arrays).
    Cached on A."""
    def build():
        import bitgraph as bg

        c = out_csr(A)
        xp = ar.array_module(c.indptr)
        if A.iso:
            S = xp.diff(c.indptr).astype(np.float64)  # out-degree
            M = A
        else:
            w = c.values
            if w.dtype.kind == "f":
                bad = xp.flatnonzero(xp.isnan(w) | (w < 0))
            else:
                bad = xp.flatnonzero(w < 0) if w.dtype.kind == "i" else xp.zeros(0, np.int64)
            if bad.size:
                e = int(bad[0])
                raise InvalidValue(f"pagerank: edge weights must be >= 0 and not NaN;"
                                   f" stored entry {e} has weight {w[e].item()}")
            M = A if w.dtype == np.float64 else bg.Matrix.from_csr(
                c.indptr, c.indices, w.astype(np.float64), ncols=c.ncols, check=False)
            # S(i) = sum_j M(i, j)
            S = bg.reduce(M, "plus", by="rows").to_dense(0.0)
        finite = xp.isfinite(S)
        if not bool(finite.all()):
            v = int(xp.flatnonzero(~finite)[0])
            raise InvalidValue(f"pagerank: the weighted out-degree of vertex {v} is"
                               f" {float(S[v])}; weights must sum to a finite number")
        inv_s = xp.zeros(S.size)  # 0 exactly on the dangling vertices
        nz = S != 0
        inv_s[nz] = 1.0 / S[nz]
        return M, inv_s, xp.flatnonzero(~nz)
    return cached(A, "pagerank_operator", build)
