"""The host side of the GPU PageRank launcher (``kernels/cuda/pagerank.py``)
on an emulated GPU: a stand-in ``cupy`` (numpy arrays with ``.get()``) and
a ``pagerank_init`` / ``pagerank_pull`` that compute what ``pagerank.cu``'s
kernels compute, step by step by the kernel's own index logic (the heavy
rows' chunks in a shuffled order, each block's arrival on its row's
counter, the last chunk adding the row's chunk sums; the other rows by
their groups; one iteration from buffers ``s & 1`` into ``(s + 1) & 1``, the
iteration count and error into the tally, the dangling rank into the other
``lost`` slot, the stop flag at convergence or max_iter; a launch after the
stop flag returns at once), with every
launch's arguments checked against the kernel's parameters in the .cu
(count, pointee dtypes, scalar types). It checks the WHILE loop (two
iterations a pass until the stop flag), the batches of launches between
reads of the tally, and the plan of heavy rows and chunks: the iteration
count, the error and the ranks are those of the CPU's fused loop for the
loop and any batch size, max_iter, split and chunk, on repeated runs that
reuse the cached workspaces. What it cannot tell: whether the real kernels
compute this (the GPU tests, ``tests/algorithms/test_pagerank.py`` on cuda).
"""

from __future__ import annotations

import re
import sys
import types

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.algorithms._common import is_symmetric
from bitgraph.kernels.cuda import source_text

_CU = source_text("pagerank.cu")


def _params(name):
    head = rf"__global__ void (?:__launch_bounds__\(\w+\)\s*)?{name}\((.*?)\)\s*\{{"
    return [p.strip() for p in re.search(head, _CU, re.S).group(1).split(",")]


_PULL, _INIT, _OUT = _params("pagerank_pull"), _params("pagerank_init"), _params("pagerank_out")
_TILES, _ROWS = _params("pagerank_tiles"), _params("pagerank_rows")
_STRIPES, _SUMS = _params("pagerank_stripes"), _params("pagerank_sums")
_SHIFT = int(re.search(r"STRIPE_SHIFT = (\d+)", _CU).group(1))  # the sums' fixed point


def _names(params):
    return tuple(re.search(r"(\w+)\s*$", p).group(1) for p in params)


def test_packed_parameter_names_are_the_kernels():
    """The launcher's parameter names (the packed launch's slots it sets
    by name) are ``pagerank_pull``'s, ``pagerank_tiles``',
    ``pagerank_rows``', ``pagerank_stripes``' and ``pagerank_sums``', in
    order."""
    from bitgraph.kernels.cuda import pagerank as kp

    assert kp._PARAMS == _names(_PULL)
    assert kp._TILE_PARAMS == _names(_TILES) and kp._ROW_PARAMS == _names(_ROWS)
    assert kp._STRIPE_PARAMS == _names(_STRIPES) and kp._SUMS_PARAMS == _names(_SUMS)
    assert kp._SUMS_SLOTS[0] is None and kp._SUMS_SLOTS[1] == 2 and kp._S_Y == 9
    assert kp._PULL_SLOTS[1:3] == (13, 14) and kp._PULL_SLOTS[-1] == 34
    assert kp._ROW_SLOTS[0] is None and kp._ROW_SLOTS[1] == 6 and kp._T_Y == 5
# a bool parameter takes one byte: np.uint8 (the packed launch takes no numpy bools)
_C = {"double": np.float64, "bool": np.uint8, "long long": np.int64, "int": np.int32,
      "unsigned int": np.uint32, "unsigned short": np.uint16,
      "unsigned long long": np.uint64}


class FakeArray(np.ndarray):
    """A numpy array with CuPy's ``.get()``."""

    def get(self):
        return np.array(self)


def _fa(a):
    return np.asarray(a).view(FakeArray)


def _cupy():
    cp = types.ModuleType("cupy")
    cp.ndarray = type("NotAnArray", (), {})  # the CPU objects stay on the CPU
    cp.ascontiguousarray = lambda a, dtype=None: _fa(np.ascontiguousarray(a, dtype))
    cp.zeros = lambda *a, **kw: _fa(np.zeros(*a, **kw))

    def empty(shape, dtype=np.float64):
        # NaN in float buffers, 7 in integer ones: a value read before a
        # kernel writes it shows
        dtype = np.dtype(dtype)
        return _fa(np.full(shape, np.nan if dtype.kind == "f" else 7, dtype))

    cp.empty = empty
    cp.sum = lambda a, **kw: _fa(np.sum(a, **kw))
    cp.stack = lambda a: _fa(np.stack(a))
    cp.cumsum = lambda a: _fa(np.cumsum(a))
    cp.flatnonzero = lambda a: _fa(np.flatnonzero(a))
    cp.sort = lambda a: _fa(np.sort(a))
    cp.arange = lambda *a, **kw: _fa(np.arange(*a, **kw))
    cp.searchsorted = lambda a, v, side="left": _fa(np.searchsorted(a, v, side=side))
    cp.argsort = lambda a: _fa(np.argsort(a, kind="stable"))
    cp.minimum = lambda a, b: _fa(np.minimum(a, b))

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    memory = types.SimpleNamespace(OutOfMemoryError=type("OutOfMemoryError", (Exception,), {}))
    cuda = types.SimpleNamespace(Event=Event, get_elapsed_time=lambda a, b: 1.0, memory=memory,
                                 get_current_stream=lambda: types.SimpleNamespace(ptr=0))
    cp.cuda = cuda
    return cp


def _check_args(params, args, index, rank, nullable=()):
    # nullable: the pointer parameters a launch may pass null (the init's x: the uniform start)
    assert len(args) == len(params), (len(args), params)
    for a, p in zip(args, params):
        ctype = re.sub(r"\b(const|__restrict__)\b|\*|\w+$", "", p).strip()
        want = index if ctype == "I" else np.dtype(rank) if ctype == "T" else np.dtype(_C[ctype])
        if a is None and re.search(r"(\w+)\s*$", p).group(1) in nullable:
            continue
        if "*" in p:
            assert isinstance(a, np.ndarray) and a.dtype == want and a.flags.c_contiguous, p
            assert a.size >= 1, p  # no empty device arrays: one-element dummies
        else:
            assert type(a) is np.dtype(want).type, (p, type(a))


class _Init:
    def __init__(self, log, rank=np.float64):
        self.log, self.rank = log, rank

    def __call__(self, grid, block, args):
        _check_args(_INIT, args, None, self.rank, ("x",))
        (x, x_fill, fill, inv_s, n, y, lost, partials, row_arrived, nheavy, arrived, stop, tally,
         limit) = args
        assert tally.size == 3 and limit >= 0
        assert grid[0] <= partials.size and block[0] % 32 == 0 and arrived[0] == 0
        assert inv_s.size == y.size == n and row_arrived.size >= max(nheavy, 1)
        self.log.append("init")
        if x is None:  # the uniform start: fill, a value of T
            assert fill == np.float64(np.dtype(self.rank).type(fill))
            x_fill[:] = fill
        else:  # the start given, into iteration 0's buffer
            assert not np.shares_memory(x, x_fill)
            x_fill[:] = x
        x = x_fill
        y[:] = x * inv_s  # in float64, rounded to the ranks' dtype T when stored
        lost[0] = x[inv_s == 0].sum(dtype=np.float64)
        row_arrived[:nheavy] = 0
        stop[0] = 0
        tally[0], tally[2] = 0, limit
        tally.view(np.float64)[1] = np.inf


class _Pull:
    def __init__(self, index, iso, log, seed=0, rank=np.float64):
        self.index, self.iso, self.log, self.rank = index, iso, log, rank
        self.rng = np.random.default_rng(seed)

    def __call__(self, grid, block, args):
        _check_args(_PULL, args, self.index, self.rank)
        (indptr, indices, values, heavy_rows, heavy_first, chunk_heavy, nheavy, nchunks, chunk,
         medium_rows, nmedium, light_max, y, x, inv_s, dw, dw_c, dw_uniform, teleport, tele_c, tele_uniform, alpha, n,
         group, x_new, y_new, lost, parity, partials, chunk_sums, heavy_parts, row_arrived,
         arrived, tally, threshold, stop) = args
        assert 2 * grid[0] <= partials.size and block[0] % 32 == 0
        assert group in (1, 2, 4, 8, 16, 32)
        assert chunk_sums.size >= nchunks and heavy_parts.size >= 2 * nheavy
        assert not (np.shares_memory(x, x_new) or np.shares_memory(y, y_new))
        self.log.append("x" if stop[0] else int(tally[0]))  # the iteration, or none
        if stop[0]:
            return
        assert arrived[0] == 0 and not row_arrived[:nheavy].any()
        w = np.ones(indices.size) if self.iso else values

        def finish(r, acc):
            # in float64; x'(r) rounded to T when stored, the rest from the stored value
            x_new[r] = alpha * (acc + lost[parity] * (dw_c if dw_uniform else dw[r])) + (
                tele_c if tele_uniform else teleport[r])
            xn = np.float64(x_new[r])
            y_new[r] = xn * inv_s[r]
            return abs(xn - np.float64(x[r])), (xn if inv_s[r] == 0.0 else 0.0)

        done = np.zeros(n, np.int64)
        covered = np.zeros(indices.size, np.int64)
        # the heavy rows' chunks, in any order (blocks run in any order)
        for c in self.rng.permutation(int(nchunks)):
            h = int(chunk_heavy[c])
            first = int(heavy_first[h])
            count = int(heavy_first[h + 1]) - first
            assert first <= c < first + count
            r = int(heavy_rows[h])
            start = int(indptr[r]) + (c - first) * int(chunk)
            end = min(start + int(chunk), int(indptr[r + 1]))
            assert start < end  # no empty chunk
            covered[start:end] += 1
            chunk_sums[c] = np.sum(w[start:end] * y[indices[start:end]])
            row_arrived[h] += 1
            if row_arrived[h] == count:
                row_arrived[h] = 0
                heavy_parts[h], heavy_parts[nheavy + h] = finish(
                    r, chunk_sums[first:first + count].sum())
                done[r] += 1
        err = dangling = 0.0
        for r in medium_rows[:nmedium]:  # a warp each
            start, end = int(indptr[r]), int(indptr[r + 1])
            assert end - start > light_max
            covered[start:end] += 1
            e, d = finish(r, np.sum(w[start:end] * y[indices[start:end]]))
            err += e
            dangling += d
            done[r] += 1
        for r in range(n):
            start, end = int(indptr[r]), int(indptr[r + 1])
            if end - start <= light_max:
                covered[start:end] += 1
                e, d = finish(r, np.sum(w[start:end] * y[indices[start:end]]))
                err += e
                dangling += d
                done[r] += 1
        # every row finished once, every entry added once
        assert (done == 1).all() and (covered == 1).all()
        err += heavy_parts[:nheavy].sum()
        dangling += heavy_parts[nheavy:2 * nheavy].sum()
        lost[parity ^ 1] = dangling
        _tally(tally, err, threshold, stop)


class _Tiles:
    """pagerank_tiles on the emulated GPU, by the kernel's own logic: a
    tile is a warp's, its lanes take TILE_K entries each; a lane's (flags,
    sum since the last flag), the exclusive scan of those in lane order,
    then each lane writes the sums of the rows its entries end (rowsum of
    the row by its ordinal, or the tile's head), lane 31 the row open at
    the tile's end. Checks that each tile writes its head once and each row
    with entries its rowsum once."""

    def __init__(self, iso, log, rank=np.float64, seed=0):
        self.iso, self.log, self.rank = iso, log, rank
        self.rng = np.random.default_rng(seed)

    def __call__(self, grid, block, args):
        from bitgraph.kernels.cuda.pagerank import TILE_K

        _check_args(_TILES, args, None, self.rank)
        flagged, values, nnz, ntiles, tile_ne0, y, hot, rowsum, heads, stop = args
        assert block[0] % 32 == 0 and block[0] <= 1024 and 0 <= hot <= y.size
        self.log.append("tiles")
        if stop[0]:
            return
        tile_n = 32 * TILE_K
        assert ntiles == -(-nnz // tile_n) and heads.size >= max(ntiles, 1)
        rowsum[:] = np.nan
        heads[:] = np.nan
        writes = np.zeros(rowsum.size, np.int64)
        for t in self.rng.permutation(int(ntiles)):  # blocks in any order
            items, vals, flags = [], [], []
            for th in range(32):
                e0 = t * tile_n + th * TILE_K
                nv = max(0, min(TILE_K, nnz - e0))
                v = [int(flagged[e0 + k]) if k < nv else 0 for k in range(TILE_K)]
                val = [0.0] * TILE_K
                for k in range(nv):
                    i = v[k] & 0x7FFFFFFF
                    val[k] = float(y[i]) * (1.0 if self.iso else float(values[e0 + k]))
                c, sm = 0, 0.0
                for k in range(TILE_K):
                    if v[k] < 0:
                        c, sm = c + 1, 0.0
                    sm += val[k]
                items.append((c, sm))
                vals.append(val)
                flags.append([vk < 0 for vk in v])
            ex = (0, 0.0)
            head_writes = []

            def close(started, ord_, acc):  # a row's sum: by its ordinal, or the tile's head
                if started:
                    rowsum[ord_] = acc
                    writes[ord_] += 1
                else:
                    heads[t] = acc
                    head_writes.append(t)

            for th in range(32):
                started, ord_, acc = ex[0] > 0, int(tile_ne0[t]) + ex[0] - 1, ex[1]
                for k in range(TILE_K):
                    if flags[th][k]:
                        close(started, ord_, acc)
                        started, ord_, acc = True, ord_ + 1, 0.0
                    acc += vals[th][k]
                if th == 31:
                    close(started, ord_, acc)
                c, sm = items[th]
                ex = (ex[0] + c, sm if c > 0 else ex[1] + sm)
            assert head_writes == [t]
        self.writes = writes


class _Rows:
    """pagerank_rows on the emulated GPU: row r's sum is rowsum[ne_ord[r]]
    plus the heads of the later tiles its entries reach, in tile order; then the
    rows finished and the launch ended as pagerank_pull's."""

    def __init__(self, index, log, tiles, rank=np.float64):
        self.index, self.log, self.tiles, self.rank = index, log, tiles, rank

    def __call__(self, grid, block, args):
        _check_args(_ROWS, args, self.index, self.rank)
        (indptr, n, tile_n, rowsum, heads, ne_ord, x, inv_s, dw, dw_c, dw_uniform, teleport, tele_c,
         tele_uniform, alpha, x_new, y_new, lost, parity, partials, arrived, tally,
         threshold, stop) = args
        assert 2 * grid[0] <= partials.size and block[0] % 32 == 0
        assert not (np.shares_memory(x, x_new) or np.shares_memory(rowsum, heads))
        self.log.append("x" if stop[0] else int(tally[0]))
        if stop[0]:
            return
        assert arrived[0] == 0
        lens = np.diff(indptr.astype(np.int64))
        # each row with entries summed once by the tiles launch, by its ordinal
        full = int((lens > 0).sum())
        assert (self.tiles.writes[:full] == 1).all() and not self.tiles.writes[full:].any()
        assert (ne_ord[lens > 0] == np.arange(full)).all()

        def sum_of(r):
            a, b = int(indptr[r]), int(indptr[r + 1])
            acc = 0.0
            if b > a:
                acc = rowsum[ne_ord[r]]
                for t in range(a // tile_n + 1, (b - 1) // tile_n + 1):
                    acc += heads[t]
            return acc

        _finish_rows(sum_of, n, x, inv_s, dw, dw_c, dw_uniform, teleport, tele_c, tele_uniform,
                     alpha, x_new, y_new, lost, parity, tally, threshold, stop)


def _tally(tally, err, threshold, stop):
    """The end of an iteration's launch: the iteration counted, its error
    (as a double's bits), the stop flag at convergence or the max_iter-th."""
    tally[0] += 1
    tally.view(np.float64)[1] = err
    stop[0] = err < threshold or tally[0] >= tally[2]


def _finish_rows(sum_of, n, x, inv_s, dw, dw_c, dw_uniform, teleport, tele_c, tele_uniform,
                 alpha, x_new, y_new, lost, parity, tally, threshold, stop):
    """The second launch of the tiled and striped pulls, after the row sums:
    every row r finished from sum_of(r) (in float64; x'(r) rounded to T when
    stored, the rest from the stored value), the error, the dangling rank and
    the stop flag as pagerank_pull writes them."""
    err = dangling = 0.0
    for r in range(n):
        x_new[r] = alpha * (sum_of(r) + lost[parity] * (dw_c if dw_uniform else dw[r])) + (
            tele_c if tele_uniform else teleport[r])
        xn = np.float64(x_new[r])
        y_new[r] = xn * inv_s[r]
        err += abs(xn - np.float64(x[r]))
        dangling += xn if inv_s[r] == 0.0 else 0.0
    lost[parity ^ 1] = dangling
    _tally(tally, err, threshold, stop)


class _Stripes:
    """pagerank_stripes on the emulated GPU, by the kernel's own logic: the
    pieces (p * nnz // npieces ..) in any order, each stripe a piece reaches
    summed in fixed point (each term rounded to a multiple of
    2^-STRIPE_SHIFT, as uint64), then its non-zero sums added into sums.
    Checks that sums is 0 when the launch starts and that every entry is
    added once."""

    def __init__(self, iso, log, rank=np.float64, seed=0):
        self.iso, self.log, self.rank = iso, log, rank
        self.rng = np.random.default_rng(seed)

    def __call__(self, grid, block, args):
        _check_args(_STRIPES, args, None, self.rank)
        (src, ldst, values, stripe_first, nstripes, stripe_rows, n, nnz, npieces, y, sums,
         stop) = args
        assert block[0] % 32 == 0 and block[0] <= 1024 and 0 < stripe_rows <= 1 << 16
        assert stripe_first[0] == 0 and stripe_first[nstripes] == nnz and npieces >= grid[0]
        self.log.append("stripes")
        if stop[0]:
            return
        assert not sums[:n].any()
        covered = np.zeros(max(int(nnz), 1), np.int64)
        for p in self.rng.permutation(int(npieces)):
            a, b = int(p) * int(nnz) // int(npieces), (int(p) + 1) * int(nnz) // int(npieces)
            s = int(np.searchsorted(stripe_first[:nstripes + 1], a, side="right")) - 1
            while a < b:
                while stripe_first[s + 1] <= a:
                    s += 1
                end = min(b, int(stripe_first[s + 1]))
                r0 = s * int(stripe_rows)
                acc = np.zeros(min(int(stripe_rows), int(n) - r0), np.uint64)
                for e in range(a, end):
                    v = np.float64(y[src[e]]) * (1.0 if self.iso else values[e])
                    assert 0 <= v < 16
                    acc[ldst[e]] += np.uint64(np.rint(np.ldexp(v, _SHIFT)))
                    covered[e] += 1
                sums[r0:r0 + acc.size] += acc
                a = end
        assert (covered[:nnz] == 1).all()


class _Sums:
    """pagerank_sums on the emulated GPU: row r's sum is sums[r] (fixed
    point); then the rows finished and the launch ended as pagerank_pull's."""

    def __init__(self, log, rank=np.float64):
        self.log, self.rank = log, rank

    def __call__(self, grid, block, args):
        _check_args(_SUMS, args, None, self.rank)
        (sums, n, x, inv_s, dw, dw_c, dw_uniform, teleport, tele_c, tele_uniform, alpha, x_new,
         y_new, lost, parity, partials, arrived, tally, threshold, stop) = args
        assert 2 * grid[0] <= partials.size and block[0] % 32 == 0
        assert not np.shares_memory(x, x_new)
        self.log.append("x" if stop[0] else int(tally[0]))
        if stop[0]:
            return
        _finish_rows(lambda r: np.ldexp(np.float64(sums[r]), -_SHIFT), n, x, inv_s, dw, dw_c,
                     dw_uniform, teleport, tele_c, tele_uniform, alpha, x_new, y_new, lost,
                     parity, tally, threshold, stop)


class _Out:
    """pagerank_out on the emulated GPU: x the buffer of the last
    iteration's parity (tally[0] & 1), out[order[k]] = x[k], or a copy where
    order is null; the result is a new array, never a buffer the next run
    writes."""

    def __init__(self, rank=np.float64):
        self.rank = rank

    def __call__(self, grid, block, args):
        _check_args(_OUT, args, None, self.rank, ("order",))
        x0, x1, tally, order, out, n = args
        x = x1 if tally[0] & 1 else x0
        assert x.size == out.size == n and not np.shares_memory(x, out)
        if order is None:
            out[:] = x
        else:
            assert order.size == n and np.array_equal(np.sort(order), np.arange(n))
            out[order] = x


def _kernels(log):
    def make(index, iso, rank, pull="rows"):
        if pull == "tiles":
            t = _Tiles(iso, log, rank)
            return _Init(log, rank), t, _Rows(index, log, t, rank), _Out(rank)
        if pull == "stripes":
            return _Init(log, rank), _Stripes(iso, log, rank), _Sums(log, rank), _Out(rank)
        return _Init(log, rank), _Pull(index, iso, log, rank=rank), _Out(rank)
    return make


class _Words:
    """A packed launch's slots as the key of a captured graph: the arrays'
    addresses (as the device pointers of PackedLaunch's words) and the
    scalars' values."""

    def __init__(self, args):
        self.args = args

    def tobytes(self):
        return repr(tuple(("array", a.__array_interface__["data"][0])
                          if isinstance(a, np.ndarray) else a for a in self.args)).encode()


class _Packed:
    """``PackedLaunch`` on the emulated GPU: the arguments kept as objects,
    ``put`` replacing one, a launch calling the kernel with all of them as
    CuPy's launch would; on a capturing stream (``_Capture``) the launch and
    its arguments as they are now are recorded instead."""

    def __init__(self, fn, grid, block, args, *, smem=0, cooperative=False):
        self.fn, self.grid, self.block, self.args = fn, grid, block, list(args)

    @property
    def words(self):
        return _Words(self.args)

    def put(self, i, arg):
        self.args[i] = arg

    def launch(self, stream_ptr):
        if isinstance(stream_ptr, _Capture):
            stream_ptr.ops.append((self.fn, (self.grid,), (self.block,), tuple(self.args)))
        else:
            self.fn((self.grid,), (self.block,), tuple(self.args))


class _Capture:
    """A stream being captured (what ``captured`` hands the work): the
    operations queued on it, replayed in order by the graph's launch."""

    def __init__(self):
        self.ops = []

    def launch(self, stream):
        for op in self.ops:
            op[0](*op[1:]) if len(op) == 4 else op[0]()


def _captured(captures):
    """``kernels.cuda.captured`` on the emulated GPU: the work recorded once
    per key (``captures`` counts the captures), its launches replayed with
    the arguments they had when recorded."""
    def captured(kept, key, work):
        got = kept.get(key)
        if got is None:
            got = kept[key] = _Capture()
            work(got)
            captures.append(key)
        return got
    return captured


class _Loop:
    """A WHILE loop on the emulated GPU (what ``loops.while_loop`` builds):
    the body's operations recorded once, replayed pass after pass until the
    stop flag is set after a pass (``loop_until``)."""

    def __init__(self, ops, stop):
        assert stop.dtype == np.int32 and stop.size == 1
        self.ops, self.stop = ops, stop

    def launch(self, stream):
        for _ in range(10_000):
            for op in self.ops:
                op[0](*op[1:]) if len(op) == 4 else op[0]()
            if self.stop[0]:
                return
        pytest.fail("the WHILE loop never stopped")


def _while_loop(loops):
    """``loops.while_loop`` on the emulated GPU (``loops`` counts the loops
    built)."""
    def while_loop(kept, key, body, stop):
        got = kept.get(key)
        if got is None:
            cap = _Capture()
            body(cap)
            got = kept[key] = _Loop(cap.ops, stop)
            loops.append(key)
        return got
    return while_loop


def _loops(built, available=True):
    """``kernels.cuda.loops`` on the emulated GPU (``built`` counts the loops made)."""
    return types.SimpleNamespace(available=lambda: available, while_loop=_while_loop(built))


def _cfg(every, **settings):
    """PageRank settings of batches of ``every`` iterations, or (0) the WHILE loop."""
    return bg.settings.PageRank(cuda_check_every=every or 8, cuda_while=every == 0, **settings)


def _launched(it, max_iter, every):
    """Iteration launches of a run that ran ``it`` iterations: whole
    batches up to the one that stopped, never past max_iter; or the loop's
    two a pass."""
    if every == 0:
        return it + (it & 1) if max_iter > 0 else 0
    return min(max_iter, -(-it // every) * every)


@pytest.fixture
def launcher(monkeypatch):
    """The launcher module on the emulated GPU, and the launches' log
    ("init", then each pull launch's slot)."""
    monkeypatch.setitem(sys.modules, "cupy", _cupy())
    from bitgraph.kernels.cuda import pagerank as kp

    monkeypatch.setattr(kp, "PackedLaunch", _Packed)
    log = []
    monkeypatch.setattr(kp, "_kernels", _kernels(log))
    monkeypatch.setattr(kp, "shape", lambda n, cfg=None: ((3,), (64,)))
    monkeypatch.setattr(kp, "cooperative_blocks", lambda fn, threads, per_sm, smem=0: 2)
    monkeypatch.setattr(kp, "_hot_cap", lambda cupy: 1 << 16)

    def clear(cupy, a, stream):
        def run():
            a[...] = 0
            log.append("clear")

        if isinstance(stream, _Capture):
            stream.ops.append((run,))
        else:
            run()

    monkeypatch.setattr(kp, "_clear", clear)
    monkeypatch.setattr(kp, "captured", _captured([]))
    monkeypatch.setattr(kp, "loops", _loops([]))
    return kp, log


def _inputs(A, personalization=None):
    from bitgraph.algorithms import link_analysis as la

    M, inv_s, dangles = la._operator(A)
    n = A.nrows
    x = np.full(n, 1.0 / n)
    return la._pull_csr(M), M, x, inv_s, dangles


@pytest.mark.parametrize("every", [0, 1, 2, 3, 7, 64])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("split, chunk, warp_above", [(1024, 2048, 32), (0, 1, 0), (2, 3, 1),
                                                      (4, 2, 0), (5, 100, 2), (9, 4, 3)])
def test_batches_keep_the_cpu_iterations(launcher, every, weighted, split, chunk, warp_above):
    from bitgraph.algorithms import link_analysis as la

    kp, log = launcher
    rng = np.random.default_rng(every)
    n = 40
    # a hub (vertex 0: an in-row of 30 entries) among short rows
    r = np.concatenate([rng.integers(0, n, 90), np.arange(10, n)])
    c = np.concatenate([rng.integers(0, n, 90), np.zeros(n - 10, np.int64)])
    A = (bg.Matrix.from_coo(r, c, rng.random(r.size) + 0.1, nrows=n, ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n))
    AT, M, x, inv_s, dangles = _inputs(A)
    lens = np.diff(AT.indptr)
    p = rng.random(n)
    p /= p.sum()
    cfg = _cfg(every, cuda_split_above=split, cuda_chunk=chunk, cuda_warp_above=warp_above)
    cache = {}  # the plan and workspaces, reused by every run below
    kept = []
    # "fill": the uniform start written by the initialisation (x None)
    for tol, max_iter, start in ((1e-3, 100, "x"), (1e-8, 100, "fill"), (1e-12, 5, "x"),
                                 (1e-12, 0, "fill"), (1e-12, 0, "x"), (0.0, 9, "fill")):
        for dw, tele in ((1.0 / n, 0.15 / n), (p, 0.15 * p)):
            want = la._fused(M, x.copy(), dw, 0.85, tele, inv_s, dangles, tol, max_iter)
            log.clear()
            st = bg.Stats()
            got = kp.pagerank_run(AT, x if start == "x" else None, inv_s, dw, tele, 0.85,
                                  n * tol, max_iter, cfg=cfg, stats=st, cache=cache,
                                  fill=(1.0 / n, np.float64))
            assert got[1:3] == want[1:3], (tol, max_iter)
            assert got[3] == pytest.approx(want[3], rel=1e-9) or got[3] == want[3] == np.inf
            np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
            # launches: the initialisation, then whole batches up to the one that
            # stopped, never past max_iter (or the loop's passes); those after the
            # stop flag return at once
            launches = _launched(want[1], max_iter, every)
            assert st.metrics["launches"] == launches
            assert st.metrics["loop"] == ("while" if every == 0 else "batches")
            assert log == ["init"] + list(range(want[1])) + ["x"] * (launches - want[1])
            assert st.metrics["heavy_rows"] == int((lens > split).sum())
            assert st.metrics["chunks"] == int(-(-lens[lens > split] // chunk).sum())
            medium = (lens > warp_above) & (lens <= split)
            assert st.metrics["medium_rows"] == (int(medium.sum()) if st.metrics["lanes"] < 32
                                                 else 0)
            assert type(got[1]) is int and type(got[2]) is bool and type(got[3]) is float
            assert np.asarray(x).tolist() == [1.0 / n] * n  # the start vector is not written
            kept.append((np.asarray(got[0]).copy(), got[0]))
    # a later run reuses the workspaces, never an earlier result's buffer
    for copy, res in kept:
        assert np.array_equal(copy, np.asarray(res))
    assert sum(k[0] == "plan" for k in cache) == 1 and sum(k[0] == "work" for k in cache
                                                          if isinstance(k, tuple)) == 1


def test_plan_cuts_heavy_rows(launcher):
    """The plan: rows over cuda_split_above entries, cut into chunks of
    cuda_chunk entries (the last shorter), chunk_heavy naming each chunk's
    row; rows over cuda_warp_above (and at most the split) listed for a
    warp each unless the light rows' group is a warp already."""
    kp, _ = launcher
    from bitgraph.formats.csr import CSR

    lens = np.array([0, 7, 3, 10, 1, 0, 4])
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    AT = CSR(indptr, np.zeros(indptr[-1], np.int32), None, lens.size, lens.size)
    cp = sys.modules["cupy"]
    (ip, ix, vals, rows, first, chunk_heavy, nheavy, nchunks, medium, nmedium, light_max,
     group) = kp._plan(cp, AT, 3, 4, 1, 0)
    assert ip.dtype == ix.dtype == np.int32 and vals.shape == (1,)
    assert rows.tolist() == [1, 3, 6] and nheavy == 3
    assert first.tolist() == [0, 2, 5, 6] and nchunks == 6
    assert chunk_heavy.tolist() == [0, 0, 1, 1, 1, 2]
    # rows of at most 1 entry: 1 / 7 entries a row, one lane; rows 2 (3 entries) a warp
    assert (medium.tolist(), nmedium, light_max, group) == ([2], 1, 1, 1)
    # no medium rows when the split is at most warp_above: light rows up to the split,
    # their group from a quarter of their mean (4 entries over 4 rows: one lane)
    got = kp._plan(cp, AT, 3, 4, 3, 0)
    assert got[8].shape == (1,) and got[9:] == (0, 3, 1)
    # ... or when the light rows' group is a warp: lanes forced to 32
    got = kp._plan(cp, AT, 3, 4, 1, 32)
    assert got[9:] == (0, 3, 32)
    none = kp._plan(cp, AT, 10, 4, 32, 0)
    assert none[6:8] == (0, 0) and none[3].shape == (1,) and none[5].shape == (1,)
    assert none[9:] == (0, 10, 1)  # 25 / 7 entries a row: under 4, one lane
    wide = np.full(5, 40)  # 40 entries a row: 10 a lane-quarter, 16 lanes
    wide_ptr = np.concatenate([[0], np.cumsum(wide)]).astype(np.int32)
    W = CSR(wide_ptr, np.zeros(wide_ptr[-1], np.int32), None, 5, 5)
    assert kp._plan(cp, W, 100, 4, 128, 0)[9:] == (0, 100, 16)
    assert kp._plan(cp, W, 100, 4, 8, 0)[9:] == (5, 8, 1)  # every row a warp's
    everything = kp._plan(cp, AT, 0, 1, 0, 0)
    assert everything[3].tolist() == [1, 2, 3, 4, 6] and everything[7] == 25
    assert everything[5].tolist() == [0] * 7 + [1] * 3 + [2] * 10 + [3] + [4] * 4
    assert everything[9:] == (0, 0, 1)
    for bad in ({"cuda_split_above": -1}, {"cuda_chunk": 0}, {"cuda_warp_above": -1}):
        with pytest.raises(ValueError, match="cuda_split_above = .* and cuda_warp_above = .*"
                                             " must be >= 0 and cuda_chunk = .* >= 1"):
            kp.pagerank_run(AT, np.full(7, 1 / 7), np.ones(7), 0.1, 0.1, 0.85, 1e-3, 10,
                            cfg=bg.settings.PageRank(**bad))


def test_int64_indices_and_lanes(launcher):
    from bitgraph.algorithms import link_analysis as la
    from bitgraph.formats.csr import CSR

    kp, _ = launcher
    A = bg.io.generators.from_spec("kron:7")
    c = A._csr()
    A64 = bg.Matrix._from_csr(CSR(c.indptr.astype(np.int64), c.indices.astype(np.int64), None,
                                  c.nrows, c.ncols))
    assert is_symmetric(A64)  # its own int64 CSR is the pull's
    AT, M, x, inv_s, dangles = _inputs(A64)
    assert AT.indices.dtype == np.int64
    want = la._fused(M, x.copy(), 1.0 / A.nrows, 0.85, 0.15 / A.nrows, inv_s, dangles, 1e-9, 100)
    for lanes in (0, 1, 32):
        got = kp.pagerank_run(AT, x, inv_s, 1.0 / A.nrows, 0.15 / A.nrows, 0.85,
                              A.nrows * 1e-9, 100, cfg=bg.settings.PageRank(cuda_lanes=lanes))
        assert got[1:3] == want[1:3]
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
    with pytest.raises(ValueError, match="cuda_lanes = 3 must be 0 or a power of 2"):
        kp.pagerank_run(AT, x, inv_s, 0.1, 0.1, 0.85, 1e-3, 10,
                        cfg=bg.settings.PageRank(cuda_lanes=3))


@pytest.mark.parametrize("every", [0, 1, 3, 64])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("split, chunk, warp_above", [(1024, 2048, 32), (2, 3, 1)])
def test_float32_ranks(launcher, every, weighted, split, chunk, warp_above):
    """float32 ranks (x float32: pagerank_init<float>, pagerank_pull<I, ISO,
    float>): x, y and the results float32 on the device, the iterations and
    the error those of the CPU's float32 fused loop, the ranks within a
    float32 rounding of its; the float64 and float32 runs keep one plan
    (their lanes may differ: settings.pagerank.cuda_f64_wide_median) and
    one workspace each."""
    from bitgraph.algorithms import link_analysis as la

    kp, log = launcher
    rng = np.random.default_rng(every)
    n = 40
    r = np.concatenate([rng.integers(0, n, 90), np.arange(10, n)])
    c = np.concatenate([rng.integers(0, n, 90), np.zeros(n - 10, np.int64)])
    A = (bg.Matrix.from_coo(r, c, rng.random(r.size) + 0.1, nrows=n, ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n))
    AT, M, x, inv_s, dangles = _inputs(A)
    x32 = x.astype(np.float32)
    p = rng.random(n)
    p /= p.sum()
    cfg = _cfg(every, cuda_split_above=split, cuda_chunk=chunk, cuda_warp_above=warp_above)
    cache = {}
    for tol, max_iter, start in ((1e-3, 100, "x"), (1e-6, 100, "fill"), (1e-12, 5, "x"),
                                 (0.0, 9, "fill"), (1e-6, 0, "x"), (1e-6, 0, "fill")):
        for dw, tele in ((1.0 / n, 0.15 / n), (p, 0.15 * p)):
            want = la._fused(M, x32.copy(), dw, 0.85, tele, inv_s, dangles, tol, max_iter)
            assert want[0].dtype == np.float32
            # the uniform start made by the initialisation: 1 / n rounded to float32 once
            got = kp.pagerank_run(AT, x32 if start == "x" else None, inv_s, dw, tele, 0.85,
                                  n * tol, max_iter, cfg=cfg, cache=cache,
                                  fill=(1.0 / n, np.float32))
            assert np.asarray(got[0]).dtype == np.float32
            assert got[1:3] == want[1:3], (tol, max_iter)
            assert got[3] == pytest.approx(want[3], rel=1e-5, abs=1e-7) or \
                got[3] == want[3] == np.inf
            # the row sums added in another order (float64): at most one float32 rounding apart
            np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=2.5e-7, atol=0)
            # and float32's rounding from the float64 run's ranks
            w64 = la._fused(M, x.copy(), dw, 0.85, tele, inv_s, dangles, tol, max_iter)
            assert np.abs(np.asarray(got[0], np.float64) - w64[0]).sum() < 1e-6
    kp.pagerank_run(AT, x, inv_s, 1.0 / n, 0.15 / n, 0.85, n * 1e-6, 100, cfg=cfg, cache=cache)
    assert sum(isinstance(k, tuple) and k[0] == "plan" for k in cache) == 2
    assert sum(isinstance(k, tuple) and k[0] == "work" for k in cache) == 2
    with pytest.raises(ValueError, match="x must be float64 or float32 ranks, got float16"):
        kp.pagerank_run(AT, x.astype(np.float16), inv_s, 0.1, 0.1, 0.85, 1e-3, 10, cfg=cfg)


def _keeps_the_cpu(kp, log, inputs, rank, per, cache, hubs_first=False, **settings):
    """Runs of the launcher (``settings.pagerank`` ``settings``, the WHILE
    loop and batches of 1 and 3; starts given and uniform; converging, stopped by max_iter,
    none) on one ``cache``, each checked against the CPU's fused loop: the
    iterations and convergence equal, the error and the ranks within 1e-9 /
    1e-14 (float64) or a float32 rounding (float32: the row sums added in
    another order, in float64), and the launches logged ``init`` then
    ``per`` once a launched iteration. Yields each run's Stats."""
    from bitgraph.algorithms import link_analysis as la

    AT, M, x, inv_s, dangles = inputs
    n = AT.nrows
    for every in (0, 1, 3):
        cfg = _cfg(every, **settings)
        for tol, max_iter, start in ((1e-3, 100, "x"), (1e-8, 100, "fill"), (0.0, 7, "x"),
                                     (1e-9, 0, "fill")):
            want = la._fused(M, x.copy(), 1.0 / n, 0.85, 0.15 / n, inv_s, dangles, tol,
                             max_iter)
            log.clear()
            st = bg.Stats()
            got = kp.pagerank_run(AT, x if start == "x" else None, inv_s, 1.0 / n, 0.15 / n,
                                  0.85, n * tol, max_iter, cfg=cfg, stats=st, cache=cache,
                                  fill=(1.0 / n, rank), hubs_first=hubs_first)
            assert got[1:3] == want[1:3], (tol, max_iter)
            if rank == np.float64:
                assert got[3] == pytest.approx(want[3], rel=1e-9) or got[3] == want[3] == np.inf
                np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
            else:
                np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=2.5e-7, atol=0)
            launches = _launched(want[1], max_iter, every)
            assert [e if e in ("init", "tiles", "clear", "stripes") else "slot"
                    for e in log] == ["init"] + per * launches
            yield st


@pytest.mark.parametrize("rank", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("threads, hubs_first, pull", [(32, False, "tiles"), (64, True, "auto"),
                                                       (32, True, "tiles"), (64, False, "auto")])
def test_tiled_pull_keeps_the_cpu_iterations(launcher, rank, weighted, threads, hubs_first,
                                             pull):
    """The tiled pull (settings.pagerank.cuda_pull "tiles"): tiles of 32 x
    TILE_K entries (blocks of 32 or 64 threads), a hub's in-row over several
    tiles, rows without entries, tiles that start on a row's first entry;
    the iterations, the error and the ranks those of the CPU's fused loop
    (float64: within 1e-14; float32: a rounding), for batches of 1 and 3,
    repeated runs on one plan; "auto" runs the striped pull on a graph
    relabelled hubs first (four pieces a block), the row pull on this one
    otherwise. The hot ranks' count is reported (cuda_hot_bytes over the
    ranks' size, with hubs first only)."""
    kp, log = launcher
    rng = np.random.default_rng(threads + hubs_first)
    n = 1200
    # vertex 0's in-row: 1,200 entries (several tiles); vertices 1000.. no in-edges
    r = np.concatenate([rng.integers(0, n, 3000), np.arange(n)])
    c = np.concatenate([rng.integers(0, 1000, 3000), np.zeros(n, np.int64)])
    A = (bg.Matrix.from_coo(r, c, rng.random(r.size) + 0.1, nrows=n, ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n, dup_op="any"))
    AT, M, x, inv_s, dangles = _inputs(A)
    lens = np.diff(AT.indptr)
    assert lens[0] > 2 * 32 * kp.TILE_K and (lens == 0).any()
    x = x.astype(rank)
    tiled = pull == "tiles"
    striped = pull == "auto" and hubs_first  # "auto" stripes a graph relabelled hubs first
    cache = {}
    per = ["tiles", "slot"] if tiled else ["clear", "stripes", "slot"] if striped else ["slot"]
    for st in _keeps_the_cpu(kp, log, (AT, M, x, inv_s, dangles), rank, per, cache,
                             hubs_first=hubs_first, cuda_pull=pull, cuda_tile_threads=threads,
                             cuda_hot_bytes=80):
        assert st.metrics["pull"] == ("tiles" if tiled else "stripes" if striped else "rows")
        if striped:  # four pieces a block with hubs first (cuda_stripe_pieces 0)
            assert st.metrics["pieces"] == 4 * 2
        if tiled:
            assert st.metrics["tiles"] == -(-int(lens.sum()) // (32 * kp.TILE_K))
            assert st.metrics["hot"] == (80 // np.dtype(rank).itemsize if hubs_first else 0)
    assert sum(isinstance(k, tuple) and k[0] == ("tiles" if tiled else "stripes" if striped
                                                 else "plan") for k in cache) == 1


def test_tile_plan(launcher):
    """The tiled pull's plan: bit 31 on each row's first entry, the
    ordinals of the rows with entries, the rows that start before each
    tile; an empty graph's dummy entries; bad settings refused."""
    kp, _ = launcher
    from bitgraph.formats.csr import CSR

    lens = np.array([0, 300, 3, 200, 1, 0, 100, 0])
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    AT = CSR(indptr, np.arange(indptr[-1], dtype=np.int32) % 8, None, lens.size, lens.size)
    cp = sys.modules["cupy"]
    ip, vals, flagged, tile_ne0, ne_ord, nnz, ntiles, tile_n = kp._tile_plan(cp, AT)
    assert (nnz, tile_n, ntiles) == (604, 32 * kp.TILE_K, 3) and vals.shape == (1,)
    assert ne_ord.dtype == np.int32 and ne_ord[[1, 2, 3, 4, 6]].tolist() == [0, 1, 2, 3, 4]
    first = [0, 300, 303, 503, 504]
    assert [e for e in range(nnz) if flagged[e] < 0] == first
    assert ((flagged & 0x7FFFFFFF) == np.arange(nnz) % 8).all()
    # rows starting before entries 0, 256, 512
    assert tile_ne0.tolist() == [0, 1, 5]
    empty = CSR(np.zeros(4, np.int32), np.zeros(0, np.int32), None, 3, 3)
    got = kp._tile_plan(cp, empty)
    assert got[2].shape == (kp.TILE_K,) and got[4].shape == (3,) and got[5:7] == (0, 0)
    for bad in ({"cuda_pull": "cols"}, {"cuda_tile_threads": 48}, {"cuda_tile_threads": 2048},
                {"cuda_hot_bytes": -1}):
        with pytest.raises(ValueError, match="cuda_pull|cuda_tile_threads"):
            kp.pagerank_run(AT, np.full(8, 1 / 8), np.ones(8), 0.1, 0.1, 0.85, 1e-3, 10,
                            cfg=bg.settings.PageRank(**bad))


def test_auto_stripes_rows_of_many_entries(launcher):
    """"auto" runs the striped pull where A''s rows hold at least
    settings.pagerank.cuda_stripes_min_mean entries on average (here 20), the
    row pull below it; both give the CPU's iterations and ranks."""
    from bitgraph.algorithms import link_analysis as la

    kp, _ = launcher
    rng = np.random.default_rng(5)
    n = 100
    A = bg.Matrix.from_coo(rng.integers(0, n, 2600), rng.integers(0, n, 2600), nrows=n, ncols=n,
                           dup_op="any")
    AT, M, x, inv_s, dangles = _inputs(A)
    assert 16 * n <= AT.indices.size < 32 * n
    want = la._fused(M, x.copy(), 1.0 / n, 0.85, 0.15 / n, inv_s, dangles, 1e-10, 100)
    for least, pull in ((16.0, "stripes"), (32.0, "rows")):
        st = bg.Stats()
        got = kp.pagerank_run(AT, x, inv_s, 1.0 / n, 0.15 / n, 0.85, n * 1e-10, 100,
                              cfg=bg.settings.PageRank(cuda_stripes_min_mean=least), stats=st)
        assert st.metrics["pull"] == pull and st.metrics["hot"] == 0
        assert got[1:3] == want[1:3]
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)


@pytest.mark.parametrize("rank", [np.float64, np.float32])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("stripe_bytes, pieces", [(64, 1), (800, 3), (1 << 20, 0), (24, 5)])
def test_striped_pull_keeps_the_cpu_iterations(launcher, rank, weighted, stripe_bytes, pieces):
    """The striped pull (settings.pagerank.cuda_pull "stripes"): stripes of
    cuda_stripe_bytes / 8 rows (one stripe, several, stripes of 3 rows),
    pieces that cross stripes and stripes over pieces, empty stripes, a
    hub's in-row, rows without entries;
    the iterations, the error and the ranks those of the CPU's fused loop
    (float64: within 1e-14; float32: a rounding) for batches of 1 and 3,
    repeated runs on one plan, the sums cleared before each launch that adds
    into them. Stats report the stripes, their rows and the pieces."""
    kp, log = launcher
    rng = np.random.default_rng(stripe_bytes + pieces)
    n = 300
    # vertex 0's in-row: 300 entries; vertices 200..269 no in-edges (empty stripes at 3 rows)
    r = np.concatenate([rng.integers(0, n, 900), np.arange(n)])
    c = np.concatenate([rng.integers(0, 200, 900) % 270, np.zeros(n, np.int64)])
    c[(c >= 200) & (c < 270)] = 1
    A = (bg.Matrix.from_coo(r, c, rng.random(r.size) + 0.1, nrows=n, ncols=n, dup_op="plus")
         if weighted else bg.Matrix.from_coo(r, c, nrows=n, ncols=n, dup_op="any"))
    AT, M, x, inv_s, dangles = _inputs(A)
    lens = np.diff(AT.indptr)
    assert (lens[200:270] == 0).all()
    x = x.astype(rank)
    rows = min(stripe_bytes, 1 << 16) // 8  # the fixture's opt-in limit: 64 KiB
    cache = {}
    for st in _keeps_the_cpu(kp, log, (AT, M, x, inv_s, dangles), rank,
                             ["clear", "stripes", "slot"], cache, cuda_pull="stripes",
                             cuda_stripe_bytes=stripe_bytes, cuda_stripe_pieces=pieces):
        assert st.metrics["pull"] == "stripes" and st.metrics["stripe_rows"] == rows
        # pieces 0: one a block (not relabelled hubs first); the fixture's grid: 2 blocks
        assert st.metrics["stripes"] == -(-n // rows)
        assert st.metrics["pieces"] == 2 * (pieces or 1)
    assert sum(isinstance(k, tuple) and k[0] == "stripes" for k in cache) == 1


def test_stripe_plan(launcher):
    """The striped pull's plan: each stripe's entries (where AT keeps
    them) sorted by column, every entry's row and value kept, whether the
    stripes are sorted one group at a time or all at once; an empty graph's
    dummies; bad settings refused."""
    kp, _ = launcher
    from bitgraph.formats.csr import CSR

    rng = np.random.default_rng(3)
    lens = np.array([0, 30, 3, 20, 1, 0, 10, 0, 0, 0, 0, 7])
    indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
    nnz = int(indptr[-1])
    idx = np.concatenate([np.sort(rng.choice(12, k, replace=False)) if k <= 12 else
                          rng.integers(0, 12, k) for k in lens]).astype(np.int32)
    vals = rng.random(nnz)
    AT = CSR(indptr, idx, vals, lens.size, lens.size)
    rows_of = np.repeat(np.arange(lens.size), lens)
    for rows, group in ((4, 1 << 24), (4, 1), (3, 25), (16, 1)):
        src, ldst, v, first, nstripes, got_nnz = kp._stripe_plan(sys.modules["cupy"], AT, rows,
                                                                 group=group)
        assert (nstripes, got_nnz) == (-(-lens.size // rows), nnz)
        assert src.dtype == np.int32 and ldst.dtype == np.uint16 and v.dtype == np.float64
        assert first.tolist() == [int(indptr[min(s * rows, lens.size)])
                                  for s in range(nstripes + 1)]
        for s in range(nstripes):
            a, b = first[s], first[s + 1]
            assert (np.diff(src[a:b]) >= 0).all()  # sorted by column
            got = sorted(zip(ldst[a:b] + s * rows, src[a:b], v[a:b]))
            assert got == sorted(zip(rows_of[a:b], idx[a:b], vals[a:b]))
    iso = CSR(indptr, idx, None, lens.size, lens.size)
    assert kp._stripe_plan(sys.modules["cupy"], iso, 4)[2].shape == (1,)
    empty = CSR(np.zeros(4, np.int32), np.zeros(0, np.int32), None, 3, 3)
    src, ldst, v, first, nstripes, got_nnz = kp._stripe_plan(sys.modules["cupy"], empty, 2)
    assert src.shape == ldst.shape == (1,) and first.tolist() == [0, 0, 0] and got_nnz == 0
    for bad in ({"cuda_stripe_bytes": 4}, {"cuda_stripe_pieces": -1}):
        with pytest.raises(ValueError, match="cuda_stripe_bytes = .* and cuda_stripe_pieces"):
            kp.pagerank_run(AT, np.full(12, 1 / 12), np.ones(12), 0.1, 0.1, 0.85, 1e-3, 10,
                            cfg=bg.settings.PageRank(**bad))


def test_auto_pulls_by_rows_without_room_for_stripes(launcher, monkeypatch):
    """Where the striped view does not fit the GPU's memory (its build runs
    out), "auto" runs the row pull, with the CPU's iterations and ranks, and
    keeps to it on later runs of the graph (no second build); "stripes"
    raises DeviceError naming the bytes."""
    from bitgraph.algorithms import link_analysis as la
    from bitgraph.errors import DeviceError

    kp, _ = launcher
    cp = sys.modules["cupy"]
    cp.cuda.runtime = types.SimpleNamespace(memGetInfo=lambda: (1 << 20, 1 << 30))
    cp.get_default_memory_pool = lambda: types.SimpleNamespace(free_bytes=lambda: 0)
    builds = []

    def no_room(*args, **kw):
        builds.append(1)
        raise cp.cuda.memory.OutOfMemoryError("out of memory")

    monkeypatch.setattr(kp, "_stripe_plan", no_room)
    rng = np.random.default_rng(5)
    n = 100
    A = bg.Matrix.from_coo(rng.integers(0, n, 2600), rng.integers(0, n, 2600), nrows=n, ncols=n,
                           dup_op="any")
    AT, M, x, inv_s, dangles = _inputs(A)
    want = la._fused(M, x.copy(), 1.0 / n, 0.85, 0.15 / n, inv_s, dangles, 1e-10, 100)
    cache = {}
    for _ in range(2):
        st = bg.Stats()
        got = kp.pagerank_run(AT, x, inv_s, 1.0 / n, 0.15 / n, 0.85, n * 1e-10, 100,
                              cfg=bg.settings.PageRank(), stats=st, cache=cache)
        assert st.metrics["pull"] == "rows" and got[1:3] == want[1:3]
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
    assert len(builds) == 1
    with pytest.raises(DeviceError, match="pagerank.cuda.: CUDA out of memory: needed"):
        kp.pagerank_run(AT, x, inv_s, 1.0 / n, 0.15 / n, 0.85, n * 1e-10, 100,
                        cfg=bg.settings.PageRank(cuda_pull="stripes"))


def test_striped_pull_without_entries(launcher):
    """The striped pull on a graph without an edge (every piece empty, the
    plan's dummies): every rank 1 / n after one iteration, as the CPU's."""
    from bitgraph.algorithms import link_analysis as la

    kp, log = launcher
    n = 5
    A = bg.Matrix(bool, n, n)
    AT, M, x, inv_s, dangles = _inputs(A)
    want = la._fused(M, x.copy(), 1.0 / n, 0.85, 0.15 / n, inv_s, dangles, 1e-6, 100)
    st = bg.Stats()
    got = kp.pagerank_run(AT, None, inv_s, 1.0 / n, 0.15 / n, 0.85, n * 1e-6, 100,
                          cfg=bg.settings.PageRank(cuda_pull="stripes"), stats=st,
                          fill=(1.0 / n, np.float64))
    assert st.metrics["pull"] == "stripes" and got[1:3] == want[1:3] == (1, True)
    np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("pull", ["rows", "tiles", "stripes"])
def test_repeated_runs_take_their_launches_and_graphs(launcher, monkeypatch, pull):
    """A run under the same settings objects and kinds of input takes the
    last run's launches (no settings read, no plan looked up); its batches
    replay the graphs captured for the same constants (one for the whole
    batches, one for a shorter last one); another threshold or damping
    captures its own. ``order`` scatters the last iteration's ranks back,
    and every run returns a new array."""
    from bitgraph.algorithms import link_analysis as la

    kp, log = launcher
    captures = []
    monkeypatch.setattr(kp, "captured", _captured(captures))
    A = bg.io.generators.from_spec("kron:6")
    AT, M, x, inv_s, dangles = _inputs(A)
    n = A.nrows
    cfg = _cfg(4, cuda_pull=pull)
    cuda_cfg = bg.settings.current().cuda
    cache = {}
    order = _fa(np.random.default_rng(1).permutation(n))

    def run(tol=1e-9, alpha=0.85, settings=cfg, max_iter=100):
        st = bg.Stats()
        got = kp.pagerank_run(AT, None, inv_s, 1.0 / n, (1 - alpha) / n, alpha, n * tol,
                              max_iter, cfg=settings, cuda_cfg=cuda_cfg, stats=st, cache=cache,
                              fill=(1.0 / n, np.float64), order=order)
        want = la._fused(M, x.copy(), 1.0 / n, alpha, (1 - alpha) / n, inv_s, dangles, tol,
                         max_iter)
        assert got[1:3] == want[1:3]
        back = np.empty(n)
        back[np.asarray(order)] = want[0]
        np.testing.assert_allclose(np.asarray(got[0]), back, rtol=0, atol=1e-14)
        return got, st

    first, st = run()
    # batches of an even size all start on even iterations: one graph
    assert st.metrics["iterations"] > 8 and len(captures) == 1
    run(max_iter=17)  # four batches of 4, then one of 1: its own graph
    assert len(captures) == 2
    made = kp._prepare
    monkeypatch.setattr(kp, "_prepare", lambda *a: pytest.fail("prepared again"))
    second, _ = run()
    assert len(captures) == 2 and second[0] is not first[0]
    np.testing.assert_array_equal(np.asarray(second[0]), np.asarray(first[0]))
    run(tol=1e-7)  # another threshold: its own graphs
    run(alpha=0.5)
    assert len(captures) > 2
    monkeypatch.setattr(kp, "_prepare", made)
    # equal settings, another object: prepared again (plan and workspace kept)
    before = set(cache)
    run(settings=_cfg(4, cuda_pull=pull))
    assert set(cache) == before
    got, _ = run(max_iter=0)  # no iteration: the start, scattered back
    np.testing.assert_array_equal(np.asarray(got[0]), np.full(n, 1.0 / n))
    if pull == "tiles":  # another launch shape, the same slots: its own graph
        made = len(captures)
        run(settings=_cfg(4, cuda_pull=pull, cuda_tile_threads=64))
        assert len(captures) == made + 1


@pytest.mark.parametrize("pull", ["rows", "tiles", "stripes"])
def test_while_loop_is_built_once_and_ends_on_the_device(launcher, monkeypatch, pull):
    """With ``cuda_while`` a run is one launch of a WHILE loop (two
    iterations a pass) and no batch graph: the loop is built once for the
    call's constants and taken again by runs of another max_iter (the limit
    is the initialisation's, read on the device), another threshold builds
    its own; a run of max_iter 0 launches none; the iteration count, the
    error and the ranks are the CPU's; a driver without WHILE nodes (or
    cuda_while False) runs batches."""
    from bitgraph.algorithms import link_analysis as la

    kp, log = launcher
    captures, built = [], []
    monkeypatch.setattr(kp, "captured", _captured(captures))
    monkeypatch.setattr(kp, "loops", _loops(built))
    A = bg.io.generators.from_spec("kron:6")
    AT, M, x, inv_s, dangles = _inputs(A)
    n = A.nrows
    cache = {}

    def run(tol=1e-9, max_iter=100, cfg=_cfg(0, cuda_pull=pull)):
        st = bg.Stats()
        log.clear()
        got = kp.pagerank_run(AT, None, inv_s, 1.0 / n, 0.15 / n, 0.85, n * tol, max_iter,
                              cfg=cfg, stats=st, cache=cache, fill=(1.0 / n, np.float64))
        want = la._fused(M, x.copy(), 1.0 / n, 0.85, 0.15 / n, inv_s, dangles, tol, max_iter)
        assert got[1:3] == want[1:3] and type(got[1]) is int and type(got[2]) is bool
        assert got[3] == pytest.approx(want[3], rel=1e-9) or got[3] == want[3] == np.inf
        np.testing.assert_allclose(np.asarray(got[0]), want[0], rtol=0, atol=1e-14)
        return got, st

    cfg = _cfg(0, cuda_pull=pull)
    got, st = run(cfg=cfg)
    assert got[2] and got[1] > 8 and st.metrics["loop"] == "while"
    assert len(built) == 1 and not captures
    for max_iter in (1, 2, 7, 8):  # stopped by the limit after an even or odd iteration
        got, st = run(max_iter=max_iter, cfg=cfg)
        assert got[1] == max_iter and not got[2]
        assert st.metrics["launches"] == max_iter + (max_iter & 1)
    assert len(built) == 1
    got, st = run(max_iter=0, cfg=cfg)
    assert got[1:3] == (0, False) and st.metrics["launches"] == 0 and len(built) == 1
    run(tol=1e-7, cfg=cfg)  # another threshold: its own loop
    assert len(built) == 2 and not captures
    monkeypatch.setattr(kp, "loops", _loops(built, available=False))
    got, st = run(cfg=_cfg(0, cuda_pull=pull))  # no WHILE nodes: batches of cuda_check_every
    assert st.metrics["loop"] == "batches" and captures and len(built) == 2
