"""The CUDA betweenness batch (``kernels/cuda/betweenness``) equals the CPU
kernel (``kernels/cpu/betweenness``) within 1e-12 relative, on every branch
of its kernels: b < 32, 32 < b < 64, b = 64 (lane masks), n not a multiple
of 32 (the transpose's tiles), a long path (depth > 1000: many launches,
the lists' global atomics), a star (one vertex of huge degree: a long row
walked by one warp), directed graphs, unreachable and isolated vertices,
self-loops, ``edges=True``, int64 indices, the lists' shared and global
counting, several batches through one ``work`` dict (buffers reused,
shorter batches after longer ones), and heavy rows (``cuda_heavy_degree``,
``cuda_heavy_chunk``: a star's hub both ways, kron with many heavy vertices
and small chunks, a directed graph whose heavy vertices differ by
direction).

The GPU cases carry the gpu marker (run on the GPU machine). Beside them,
``emulate_batch`` replays the launcher's sequence in numpy (lev_t, the
per-level lists built as bc_lists builds them, one array holding sigma then
W in place, the heavy rows' chunk partials and their sums in chunk order)
and is checked against the CPU kernel here: it tests the design (levels,
masks, the in-place W, level 0 and the deepest level, the heavy split), not
the CUDA code."""

from __future__ import annotations

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.algorithms._common import in_csr, out_csr
from bitgraph.algorithms.multi_source import msbfs
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
import oracle as O

REL = 1e-12


def _cpu():
    return registry.lookup("betweenness", fmt="csr", device="cpu", variant="batch")


_path = O.path_matrix


_star = O.star_matrix


def _random(n, m, seed, directed, loops=True):
    rng = np.random.default_rng(seed)
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if not loops:
        keep = r != c
        r, c = r[keep], c[keep]
    if not directed:
        r, c = np.r_[r, c], np.r_[c, r]
    return bg.Matrix.from_coo(r, c, nrows=n, ncols=n, dup_op="any")


def _skewed():
    """Directed, 300 vertices: vertex 0 points at 1..200 (out-degree 200,
    in-degree 1), 100..299 point at 299 (in-degree 200, out-degree 1), and a
    sparse random part: heavy one way only at a threshold below 200."""
    rng = np.random.default_rng(7)
    r = np.r_[np.zeros(200, np.int64), np.arange(100, 299), 299, rng.integers(0, 300, 400)]
    c = np.r_[np.arange(1, 201), np.full(199, 299), 0, rng.integers(0, 300, 400)]
    return bg.Matrix.from_coo(r, c, nrows=300, ncols=300, dup_op="any")


def _cases():
    """(id, matrix, sources): every branch the module docstring names."""
    iso = _random(77, 150, 1, directed=False)  # n = 77: not a multiple of 32
    out = [
        ("b1", iso, [3]),
        ("b5_n77", iso, [0, 5, 9, 76, 40]),
        ("b32", iso, list(range(32))),
        ("b33", iso, list(range(33))),
        ("b45_directed", _random(100, 300, 2, directed=True), list(range(0, 90, 2))),
        ("b64_directed_loops", _random(130, 500, 3, directed=True), list(range(64))),
        ("b64_repeats", iso, [7] * 30 + list(range(34))),
        ("path_1500", _path(1500, False), [0, 1, 750, 1499, 3]),
        ("path_directed_1100", _path(1100, True), list(range(0, 1100, 20))),
        ("star_3000", _star(3000), [0, 1, 2, 2999, 1500]),
        ("isolated", bg.Matrix.from_coo([0, 1], [1, 0], nrows=40, ncols=40), list(range(40))),
        ("one_vertex", bg.Matrix.from_coo([], [], nrows=1, ncols=1), [0]),
        ("self_loop_only", bg.Matrix.from_coo([0, 1], [0, 1], nrows=2, ncols=2), [0, 1]),
        ("grid", bg.io.generators.grid2d(9, 13), list(range(0, 117, 3))),
        ("kron8_b64", bg.io.generators.kron(8, 8, seed=1), list(range(64))),
        ("kron8_b33", bg.io.generators.kron(8, 8, seed=1), list(range(100, 166, 2))),
        ("skewed_b64", _skewed(), list(range(64))),
        ("skewed_b1", _skewed(), [0]),
        ("skewed_b33", _skewed(), list(range(150, 300, 5))[:33]),
    ]
    return out


CASES = _cases()


def _levels(A, sources):
    return np.asarray(msbfs(A, sources), np.int32)


def _assert_close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == np.float64
    assert np.allclose(got, want, rtol=REL, atol=0), np.abs(got - want).max()


@pytest.mark.parametrize("work", [0, 1 << 62], ids=["pool", "serial"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_cpu_kernel_by_source_equals_the_shared_pass(case, work):
    """Each source alone on source-major rows (``pairs_per_entry`` above any
    batch's ratio) gives the shared pass's sums (``pairs_per_entry`` 0),
    with and without edge shares, serial and split over the pool."""
    _, A, sources = case
    lev = _levels(A, sources)
    a, t = out_csr(A), in_csr(A)
    for edges in (False, True):
        want = _cpu()(a, t, lev, edges=edges, parallel_work=work, pairs_per_entry=0.0)
        got = _cpu()(a, t, lev, edges=edges, parallel_work=work, pairs_per_entry=65.0)
        _assert_close(got[0], want[0])
        if edges:
            _assert_close(got[1], want[1])
        else:
            assert got[1] is None


def test_cpu_kernel_picks_by_the_pairs_per_entry(monkeypatch):
    """A 40 x 40 grid's batch (about one source a (vertex, level) entry)
    runs by source at the default ratio, kron's (many) in the shared pass."""
    from bitgraph.kernels.cpu import betweenness as kb

    ratio = bg.settings.Betweenness().cpu_pairs_per_entry
    for A, sources, alone in ((bg.io.generators.grid2d(40, 40), list(range(0, 1600, 25)), True),
                              (bg.io.generators.kron(8, 8, seed=1), list(range(64)), False)):
        lev = _levels(A, sources)
        pairs, entries = int((lev >= 1).sum()), _vertex_entries(lev)
        assert (pairs < ratio * entries) == alone, (pairs, entries)
        seen, real = [], kb._by_source
        monkeypatch.setattr(kb, "_by_source", lambda *args: seen.append(1) or real(*args))
        _cpu()(out_csr(A), in_csr(A), lev, pairs_per_entry=ratio)
        assert bool(seen) == alone


# --------------------------------------------------------------------------------------
# the launcher's sequence in numpy: the design, checked against the CPU kernel
# --------------------------------------------------------------------------------------
def emulate_lists(lev_t, chunk, shared):
    """(offsets[levels + 1], list) as bc_lists (count), bc_scan and bc_lists
    (scatter) build them: each vertex once per distinct level among its b entries (the
    lowest remaining lane's value first, lanes 0-31 before 32-63), blocks of
    ``chunk`` vertices; with ``shared`` a block reserves its range of a level
    at once (blocks in an arbitrary order: reversed here), else each pair
    takes the next position of its level."""
    n, b = lev_t.shape
    depth = int(lev_t.max())
    levels = depth + 1

    def distinct(v):
        l0 = [int(lev_t[v, s]) if s < b else -1 for s in range(32)]
        l1 = [int(lev_t[v, s + 32]) if s + 32 < b else -1 for s in range(32)]
        m0 = [x >= 0 for x in l0]
        m1 = [x >= 0 for x in l1]
        out = []
        while any(m0) or any(m1):
            d = l0[m0.index(True)] if any(m0) else l1[m1.index(True)]
            out.append(d)
            m0 = [m and x != d for m, x in zip(m0, l0)]
            m1 = [m and x != d for m, x in zip(m1, l1)]
        assert len(out) == len(set(out))
        return out

    per = [distinct(v) for v in range(n)]
    hist = np.zeros(levels, np.int64)
    for ds in per:
        for d in ds:
            hist[d] += 1
    offsets = np.zeros(levels + 1, np.int64)
    np.cumsum(hist, out=offsets[1:])
    fill = offsets[:-1].copy()
    out = np.full(offsets[-1], -1, np.int64)
    blocks = list(range(0, n, chunk))
    for v0 in (blocks[::-1] if shared else blocks):
        mine = range(v0, min(n, v0 + chunk))
        if shared:
            cnt = np.zeros(levels, np.int64)
            for v in mine:
                for d in per[v]:
                    cnt[d] += 1
            base = fill.copy()
            fill += cnt
        else:
            base = fill
        for v in mine:
            for d in per[v]:
                out[base[d]] = v
                base[d] += 1
    assert (out >= 0).all() and (fill == offsets[1:]).all()
    return offsets, out


def emulate_batch(a, t, lev, edges, chunk=3, shared=True, heavy=None, heavy_chunk=1024,
                  zero_words=True):
    """The CUDA batch in numpy, one kernel at a time as the launcher
    queues them (same arrays, same order of writes); heavy: the launcher's
    cuda_heavy_degree (None: no row heavy), heavy_chunk its
    cuda_heavy_chunk; zero_words False leaves the forward phase's frontier
    words in place for the backward phase (not the launcher: the test that
    its zeroing matters)."""
    from bitgraph.kernels.cuda.betweenness import heavy_table

    big = np.iinfo(np.int64).max if heavy is None else heavy
    ftab = heavy_table(t.indptr, big, heavy_chunk)
    btab = heavy_table(a.indptr, big, heavy_chunk)
    k, n = lev.shape
    total = np.zeros(n)
    share = np.zeros(a.indices.size)
    if n == 0:
        return total, share if edges else None
    lev_t = np.ascontiguousarray(lev.T)                     # bc_transpose
    depth = int(lev_t.max())
    off, vlist = emulate_lists(lev_t, chunk, shared)
    sv = np.full((n, k), np.nan)  # never cleared on the GPU: stale values must not be read
    # the frontier words of two consecutive levels: words[d & 1][v] bit s iff lev_t[v, s] == d,
    # zeroed before each phase, never cleared within one
    words = np.zeros((2, n), np.uint64)
    bit = np.uint64(1) << np.arange(k, dtype=np.uint64)

    def at(d, u):  # lane s's test of a neighbour's word at level d
        return (words[d & 1][u] & bit) != 0

    def write(d, v, on):
        words[d & 1][v] = np.bitwise_or.reduce(np.where(on, bit, np.uint64(0)))

    for d in range(depth + 1):                              # bc_forward, level d
        for v in vlist[off[d]:off[d + 1]]:
            on = lev_t[v] == d
            write(d, v, on)
            if d == 0:
                sv[v, on] = 1.0
                continue
            if t.indptr[v + 1] - t.indptr[v] > big:
                continue
            acc = np.zeros(k)
            for u in t.indices[t.indptr[v]:t.indptr[v + 1]]:
                hit = on & at(d - 1, u)
                acc[hit] += sv[u, hit]
            sv[v, on] = acc[on]
        if d > 0 and off[d + 1] > off[d]:
            hv, coff, cv, clo, chi = ftab
            partial = np.full((cv.size, k), np.nan)         # bc_forward_chunks
            for c in range(cv.size):
                on = lev_t[cv[c]] == d
                if not on.any():
                    continue
                acc = np.zeros(k)
                for u in t.indices[clo[c]:chi[c]]:
                    hit = on & at(d - 1, u)
                    acc[hit] += sv[u, hit]
                partial[c] = acc
            for h in range(hv.size):                        # bc_forward_heavy
                on = lev_t[hv[h]] == d
                if not on.any():
                    continue
                acc = np.zeros(k)
                for c in range(coff[h], coff[h + 1]):
                    acc += partial[c]
                sv[hv[h], on] = acc[on]
    if zero_words:
        words[:] = 0
    for e in range(depth, -1 if edges else 0, -1):          # bc_backward, level e
        for u in vlist[off[e]:off[e + 1]]:
            on = lev_t[u] == e
            write(e, u, on)
            if e < depth and a.indptr[u + 1] - a.indptr[u] > big:
                continue
            sg = np.where(on, sv[u], 0.0)
            acc = np.zeros(k)
            if e < depth:
                for j in range(a.indptr[u], a.indptr[u + 1]):
                    w = a.indices[j]
                    hit = on & at(e + 1, w)
                    c = np.where(hit, sg * np.where(hit, sv[w], 0.0), 0.0)
                    acc += c
                    if edges and hit.any():
                        share[j] += c.sum()
            sv[u, on] = (1.0 + acc[on]) / sg[on]
            if e > 0:
                total[u] += acc.sum()
        if e < depth and off[e + 1] > off[e]:
            hv, coff, cv, clo, chi = btab
            partial = np.full((cv.size, k), np.nan)         # bc_backward_chunks
            for c in range(cv.size):
                on = lev_t[cv[c]] == e
                if not on.any():
                    continue
                sg = np.where(on, sv[cv[c]], 0.0)
                acc = np.zeros(k)
                for j in range(clo[c], chi[c]):
                    hit = on & at(e + 1, a.indices[j])
                    x = np.where(hit, sg * np.where(hit, sv[a.indices[j]], 0.0), 0.0)
                    acc += x
                    if edges and hit.any():
                        share[j] += x.sum()
                partial[c] = acc
            for h in range(hv.size):                        # bc_backward_heavy
                u = hv[h]
                on = lev_t[u] == e
                if not on.any():
                    continue
                acc = np.zeros(k)
                for c in range(coff[h], coff[h + 1]):
                    acc += partial[c]
                sv[u, on] = (1.0 + acc[on]) / sv[u, on]
                if e > 0:
                    total[u] += acc.sum()
    return total, (share if edges else None)


HEAVY = [(None, 1024), (8, 4), (0, 1), (3, 32)]  # (cuda_heavy_degree, cuda_heavy_chunk)


@pytest.mark.parametrize("heavy", HEAVY, ids=lambda h: f"heavy{h[0]}_{h[1]}")
@pytest.mark.parametrize("block_lists", [True, False])  # the lists' ranges a block's (shared)
@pytest.mark.parametrize("case", [c for c in CASES if c[1].nrows <= 300 or c[0] == "path_1500"],
                         ids=lambda c: c[0])
def test_emulated_batch_equals_cpu_kernel(case, block_lists, heavy):
    _, A, sources = case
    if heavy[0] is not None and (A.nrows > 300 or not block_lists):
        pytest.skip("the heavy split on the small graphs, once")
    lev = _levels(A, sources)
    a, t = out_csr(A), in_csr(A)
    for edges in (False, True):
        want = _cpu()(a, t, lev, edges=edges)
        got = emulate_batch(a, t, lev, edges, chunk=5, shared=block_lists, heavy=heavy[0],
                            heavy_chunk=heavy[1])
        _assert_close(got[0], want[0])
        if edges:
            _assert_close(got[1], want[1])


def test_emulated_words_zeroed_between_the_phases_matter():
    """Words are never cleared within a phase (a stale word's sources are at a
    level no neighbour of the reader holds for them), but the forward
    phase's words of shallower levels would be read by the backward phase
    on a directed graph (an out-neighbour one level up): the launcher zeroes
    them, and the emulation without that zeroing is wrong."""
    _, A, sources = next(c for c in CASES if c[0] == "b64_directed_loops")
    lev = _levels(A, sources)
    a, t = out_csr(A), in_csr(A)
    want = _cpu()(a, t, lev, edges=False)[0]
    _assert_close(emulate_batch(a, t, lev, False)[0], want)
    got = emulate_batch(a, t, lev, False, zero_words=False)[0]
    assert not np.allclose(got, want, rtol=REL, atol=0)


def test_emulated_lists_hold_each_vertex_once_a_level():
    rng = np.random.default_rng(0)
    lev = rng.integers(-1, 6, (64, 50)).astype(np.int32)
    lev_t = np.ascontiguousarray(lev.T)
    for shared in (True, False):
        off, vlist = emulate_lists(lev_t, 7, shared)
        for d in range(lev_t.max() + 1):
            want = np.flatnonzero((lev_t == d).any(axis=1))
            assert np.array_equal(np.sort(vlist[off[d]:off[d + 1]]), want)


def test_packed_level_slots_are_the_kernels():
    """The per-level launches are packed (``PackedLaunch``) and set
    parameters 5, 6 and 8 per level: those are begin, end and the level in
    ``bc_forward`` and ``bc_backward``; the chunk launches set 8 (the level
    in ``bc_*_chunks``), the heavy vertices' launches 6 (the level in
    ``bc_*_heavy``); the launcher passes as many arguments as each kernel
    has parameters."""
    import inspect
    import re

    from bitgraph.kernels.cuda import betweenness, source_text

    text = source_text("betweenness.cu")

    def params(kernel):
        sig = re.search(rf"__global__ void {kernel}\((.*?)\)\s*\{{", text, re.S).group(1)
        return [re.search(r"(\w+)\s*$", p.strip()).group(1) for p in sig.split(",")]

    for kernel, count, near in (("bc_forward", 12, "fprev"), ("bc_backward", 15, "fnext")):
        names = params(kernel)
        assert len(names) == count, (kernel, names)
        assert names[5:7] == ["begin", "end"] and names[8] in ("d", "e"), (kernel, names)
        # the words slots the launcher sets per level (words_at, words_at + 1)
        at = 10 if kernel == "bc_forward" else 13
        assert names[at - 1:] == ["heavy", near, "fnow"], (kernel, names)
    for kernel, count, slot in (("bc_forward_chunks", 11, 8), ("bc_backward_chunks", 12, 8),
                                ("bc_forward_heavy", 8, 6), ("bc_backward_heavy", 9, 6)):
        names = params(kernel)
        assert len(names) == count and names[slot] in ("d", "e"), (kernel, names)
    assert params("bc_forward_chunks")[10] == "fprev"
    assert params("bc_backward_chunks")[11] == "fnext"
    launcher = inspect.getsource(betweenness.batch_run)
    assert "runs[0].set(8," in launcher and "runs[1].set(6," in launcher
    assert 'runs[0].set(10 if name == "forward" else 11,' in launcher
    assert "words_at = 10 if run is fwd else 13" in launcher
    for kernel, count in (('kern["forward"], 1', 12), ('kern["backward"][bool(edges)], 1', 15),
                          ('kern["forward_chunks"], grid(int(nch))', 11),
                          ('kern["backward_chunks"][bool(edges)], grid(int(nch))', 12),
                          ('kern["forward_heavy"], grid(int(nhv))', 8),
                          ('kern["backward_heavy"], grid(int(nhv))', 9)):
        call = re.search(rf"PackedLaunch\({re.escape(kernel)}, threads,\s*\((.*?)\)\)",
                         launcher, re.S).group(1)
        assert len(call.split(",")) == count, (kernel, call)


def test_heavy_table_cuts_rows_into_chunks():
    """Every heavy row (more than ``heavy`` entries) exactly covered by its
    chunks, in order, none longer than ``chunk``; light rows absent."""
    from bitgraph.kernels.cuda.betweenness import heavy_table

    rng = np.random.default_rng(3)
    indptr = np.r_[0, np.cumsum(rng.integers(0, 40, 200))]
    for heavy, chunk in ((0, 1), (8, 4), (10, 32), (39, 7), (1000, 5)):
        hv, coff, cv, clo, chi = heavy_table(indptr, heavy, chunk)
        deg = np.diff(indptr)
        assert np.array_equal(hv, np.flatnonzero(deg > heavy))
        assert all(x.dtype == np.int64 for x in (hv, coff, cv, clo, chi))
        assert coff[0] == 0 and coff[-1] == cv.size == clo.size == chi.size
        assert ((chi - clo >= 1) & (chi - clo <= chunk)).all()
        for h, v in enumerate(hv):
            c = slice(coff[h], coff[h + 1])
            assert (cv[c] == v).all()
            assert clo[c][0] == indptr[v] and chi[c][-1] == indptr[v + 1]
            assert np.array_equal(clo[c][1:], chi[c][:-1])


# --------------------------------------------------------------------------------------
# the CUDA kernels (the GPU machine)
# --------------------------------------------------------------------------------------
def _gpu():
    return registry.lookup("betweenness", fmt="csr", device="cuda", variant="batch")


def _device_csr(c, index):
    import cupy

    return CSR(cupy.asarray(c.indptr, index), cupy.asarray(c.indices, index), None,
               c.nrows, c.ncols)


def _host(x):
    return None if x is None else x.get()


@pytest.mark.gpu
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("knobs", [
    {},                                                            # shared counting
    {"cuda_hist_levels": 0, "cuda_list_chunk": 7, "cuda_threads": 32},  # global atomics
    {"cuda_list_chunk": 1, "cuda_threads": 512},
    {"cuda_heavy_degree": 8, "cuda_heavy_chunk": 4},                # many heavy rows
    {"cuda_heavy_degree": 0, "cuda_heavy_chunk": 32, "cuda_threads": 32},  # every row heavy
    {"cuda_heavy_degree": 3, "cuda_heavy_chunk": 1, "cuda_threads": 512},
], ids=["default", "global", "chunk1", "heavy8_4", "heavy0_32", "heavy3_1"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_cuda_batch_equals_cpu_kernel(case, knobs, index):
    import cupy

    _, A, sources = case
    cfg = bg.settings.Betweenness(**knobs)
    lev = _levels(A, sources)
    a, t = out_csr(A), in_csr(A)
    da, dt = _device_csr(a, index), _device_csr(t, index)
    work = {}
    for edges in (False, True):
        want = _cpu()(a, t, lev, edges=edges)
        got = _gpu()(da, dt, cupy.asarray(lev), edges=edges, cfg=cfg, work=work)
        assert isinstance(got[0], cupy.ndarray) and (got[1] is None) == (not edges)
        _assert_close(_host(got[0]), want[0])
        if edges:
            _assert_close(_host(got[1]), want[1])


@pytest.mark.gpu
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_cuda_heavy_rows_deterministic(index):
    """kron with many heavy rows: the heavy tables built (both directions),
    two calls bitwise equal (the partials added in chunk order), equal to
    the CPU kernel; a star's hub (degree 3000 > the default 2048) heavy at
    the default knobs."""
    import cupy

    A = bg.io.generators.kron(10, 8, seed=2)
    cfg = bg.settings.Betweenness(cuda_heavy_degree=16, cuda_heavy_chunk=8)
    a, t = out_csr(A), in_csr(A)
    da, dt = _device_csr(a, index), _device_csr(t, index)
    lev = _levels(A, list(range(0, 640, 10)))
    want = _cpu()(a, t, lev, edges=True)
    work = {}
    first = _gpu()(da, dt, cupy.asarray(lev), edges=True, cfg=cfg, work=work)
    tables = work["heavy"][1]
    assert tables["forward"] is not None and tables["backward"] is not None
    again = _gpu()(da, dt, cupy.asarray(lev), edges=True, cfg=cfg, work={})
    for x, y, w in zip(first, again, want):
        assert np.array_equal(_host(x), _host(y))
        _assert_close(_host(x), w)
    S = _star(3000)
    s, st = out_csr(S), in_csr(S)
    work = {}
    lev = _levels(S, [0, 1, 2999])
    got = _gpu()(_device_csr(s, index), _device_csr(st, index), cupy.asarray(lev), edges=True,
                 work=work)
    assert work["heavy"][1]["forward"][0].get().tolist() == [0]
    assert work["heavy"][1]["backward"][0].get().tolist() == [0]
    want = _cpu()(s, st, lev, edges=True)
    _assert_close(_host(got[0]), want[0])
    _assert_close(_host(got[1]), want[1])


@pytest.mark.gpu
def test_cuda_heavy_tables_kept_with_the_graph(monkeypatch):
    """The algorithm's CUDA calls keep the heavy rows' tables with the graph
    (slot bc_cuda, per index type and knobs): a second call builds none
    (heavy_table would raise) and gives the same bits; other knobs build
    their own; the values equal the CPU call's."""
    from bitgraph.algorithms._common import known
    from bitgraph.kernels.cuda import betweenness as kb

    A = bg.io.generators.kron(10, 8, seed=2).to("cuda")
    src = np.arange(0, 640, 10)
    with bg.settings.use(betweenness={"cuda_heavy_degree": 16, "cuda_heavy_chunk": 8}):
        first = bg.algorithms.betweenness_centrality(A, sources=src)
        kept = known(A, "bc_cuda")
        assert len(kept) == 1 and next(iter(kept.values()))["forward"] is not None

        def built(*args):
            raise AssertionError("heavy_table called again")
        monkeypatch.setattr(kb, "heavy_table", built)
        again = bg.algorithms.betweenness_centrality(A, sources=src)
        assert np.array_equal(first.get(), again.get())
    monkeypatch.undo()
    with bg.settings.use(betweenness={"cuda_heavy_degree": 32}):
        bg.algorithms.betweenness_centrality(A, sources=src)
    assert len(known(A, "bc_cuda")) == 2
    cpu = bg.algorithms.betweenness_centrality(A.to("cpu"), sources=src)
    _assert_close(first.get(), cpu)


@pytest.mark.gpu
def test_cuda_batches_share_work():
    """Batches of 64, then 7, then 64 again through one work dict (the
    buffers of the first kept, their stale values never read), on a graph of
    several components and a different depth each batch."""
    import cupy

    A = _random(300, 700, 5, directed=True)
    a, t = out_csr(A), in_csr(A)
    da, dt = _device_csr(a, np.int32), _device_csr(t, np.int32)
    work = {}
    for sources in (list(range(64)), [299, 5, 17, 100, 101, 102, 0], list(range(100, 164))):
        lev = _levels(A, sources)
        for edges in (True, False):
            want = _cpu()(a, t, lev, edges=edges)
            got = _gpu()(da, dt, cupy.asarray(lev), edges=edges, work=work)
            _assert_close(_host(got[0]), want[0])
            if edges:
                _assert_close(_host(got[1]), want[1])


@pytest.mark.gpu
def test_cuda_batch_bad_levels():
    import cupy

    A = _path(5, False)
    a = _device_csr(out_csr(A), np.int32)
    with pytest.raises(ValueError, match=r"levels must be \(1..64\) x 5"):
        _gpu()(a, a, cupy.zeros((65, 5), np.int32))
    with pytest.raises(ValueError, match=r"levels must be \(1..64\) x 5"):
        _gpu()(a, a, cupy.zeros((3, 4), np.int32))
    with pytest.raises(ValueError, match="cuda_threads must be a multiple of 32"):
        _gpu()(a, a, cupy.zeros((1, 5), np.int32), cfg=bg.settings.Betweenness(cuda_threads=48))
    with pytest.raises(ValueError, match=r"cuda_threads must be a multiple of 32 in \[32, 512\]"):
        _gpu()(a, a, cupy.zeros((1, 5), np.int32), cfg=bg.settings.Betweenness(cuda_threads=1024))
    with pytest.raises(ValueError, match="cuda_heavy_degree = -1 must be >= 0"):
        _gpu()(a, a, cupy.zeros((1, 5), np.int32),
               cfg=bg.settings.Betweenness(cuda_heavy_degree=-1))
    with pytest.raises(ValueError, match="cuda_heavy_chunk = 0 >= 1"):
        _gpu()(a, a, cupy.zeros((1, 5), np.int32),
               cfg=bg.settings.Betweenness(cuda_heavy_chunk=0))


# --------------------------------------------------------------------------------------
# pair mode: a thread per (vertex, source) (the .cu's "Pair mode" block)
# --------------------------------------------------------------------------------------
def _warp_tree(lanes):
    """bc::warp_sum's result (lane 0's) of 32 lane values: x[i] += x[i + o]
    for o = 16, 8, 4, 2, 1."""
    x = list(lanes)
    o = 16
    while o:
        x = [x[i] + x[i + o] if i < o else x[i] for i in range(32)]
        o >>= 1
    return x[0]


def emulate_pair_batch(a, t, lev, heavy=None, seed=0):
    """Pair mode in numpy, kernel by kernel as ``_pair_run`` queues them:
    per-level pair lists (item v * b + s, shuffled: the order inside a level
    must not matter), bc_pair_forward / bc_pair_backward a thread per pair
    (rows of degree > heavy skipped; backward only below the deepest
    level), bc_pair_*_heavy a warp per (heavy vertex, source) (lane j % 32
    sums edge j, then the warp tree), bc_pair_total. sv and delta start as
    NaN: a stale value read would show."""
    from bitgraph.kernels.cuda.betweenness import heavy_table

    big = np.iinfo(np.int64).max if heavy is None else heavy
    fhv = heavy_table(t.indptr, big, 1 << 30)[0]
    bhv = heavy_table(a.indptr, big, 1 << 30)[0]
    k, n = lev.shape
    total = np.zeros(n)
    if n == 0:
        return total
    lt = np.ascontiguousarray(lev.T).ravel()                # bc_transpose (flat: p = v * k + s)
    depth = int(lt.max())
    rng = np.random.default_rng(seed)
    items = [rng.permutation(np.flatnonzero(lt == d)) for d in range(depth + 1)]
    sv = np.full(n * k, np.nan)
    delta = np.full(n * k, np.nan)
    for d in range(depth + 1):
        for p in items[d]:                                  # bc_pair_forward
            v, s = divmod(int(p), k)
            if d == 0:
                sv[p] = 1.0
                continue
            if t.indptr[v + 1] - t.indptr[v] > big:
                continue
            acc = 0.0
            for u in t.indices[t.indptr[v]:t.indptr[v + 1]]:
                q = int(u) * k + s
                acc += sv[q] if lt[q] == d - 1 else 0.0
            sv[p] = acc
        if d > 0 and items[d].size:                         # bc_pair_forward_heavy
            for v in fhv:
                for s in range(k):
                    p = int(v) * k + s
                    if lt[p] != d:
                        continue
                    lanes = [0.0] * 32
                    for j, u in enumerate(t.indices[t.indptr[v]:t.indptr[v + 1]]):
                        q = int(u) * k + s
                        if lt[q] == d - 1:
                            lanes[j % 32] += sv[q]
                    sv[p] = _warp_tree(lanes)
    for e in range(depth, 0, -1):
        for p in items[e]:                                  # bc_pair_backward
            u, s = divmod(int(p), k)
            acc = 0.0
            if e < depth:
                if a.indptr[u + 1] - a.indptr[u] > big:
                    continue
                sg = sv[p]
                for w in a.indices[a.indptr[u]:a.indptr[u + 1]]:
                    q = int(w) * k + s
                    if lt[q] == e + 1:
                        acc += sg * sv[q]
            sv[p] = (1.0 + acc) / sv[p]
            delta[p] = acc
        if e < depth and items[e].size:                     # bc_pair_backward_heavy
            for u in bhv:
                for s in range(k):
                    p = int(u) * k + s
                    if lt[p] != e:
                        continue
                    sg = sv[p]
                    lanes = [0.0] * 32
                    for j, w in enumerate(a.indices[a.indptr[u]:a.indptr[u + 1]]):
                        q = int(w) * k + s
                        if lt[q] == e + 1:
                            lanes[j % 32] += sg * sv[q]
                    acc = _warp_tree(lanes)
                    sv[p] = (1.0 + acc) / sg
                    delta[p] = acc
    for u in range(n):                                      # bc_pair_total
        lanes = [0.0] * 32
        for s in range(k):
            if lt[u * k + s] >= 1:
                lanes[s % 32] += delta[u * k + s]  # x0 + x1: lane L's two sources
        total[u] += _warp_tree(lanes)
    return total


@pytest.mark.parametrize("heavy", [None, 8, 0, 3], ids=lambda h: f"heavy{h}")
@pytest.mark.parametrize("case", [c for c in CASES if c[1].nrows <= 300],
                         ids=lambda c: c[0])
def test_emulated_pair_batch_equals_cpu_kernel(case, heavy):
    _, A, sources = case
    lev = _levels(A, sources)
    a, t = out_csr(A), in_csr(A)
    want = _cpu()(a, t, lev, edges=False)[0]
    _assert_close(emulate_pair_batch(a, t, lev, heavy=heavy), want)


def test_emulated_pair_batch_deep():
    """A long path and a 40 x 40 grid (b = 64: deep, pair mode by default)."""
    for A, sources in ((_path(1500, False), [0, 1, 750, 1499, 3]),
                       (bg.io.generators.grid2d(40, 40), list(range(0, 1600, 25)))):
        lev = _levels(A, sources)
        a, t = out_csr(A), in_csr(A)
        _assert_close(emulate_pair_batch(a, t, lev), _cpu()(a, t, lev, edges=False)[0])


def _vertex_entries(lev):
    """The per-level vertex lists' entries: each vertex once per distinct
    level among its sources' (what bc_lists counts)."""
    return sum(np.unique(col[col >= 0]).size for col in np.asarray(lev).T)


def test_pair_mode_rule_picks_deep_batches():
    """The default cuda_pair_lanes sends a 40 x 40 grid's batch of 64 and a
    long path's to pair mode, kron's and a random graph's to the vertex
    mode; 0 never, 65 always (pairs <= 64 a list entry); edges never."""
    from bitgraph.kernels.cuda.betweenness import use_pairs

    lanes = bg.settings.Betweenness().cuda_pair_lanes
    for A, sources, deep in ((bg.io.generators.grid2d(40, 40), list(range(0, 1600, 25)), True),
                             (_path(1500, False), list(range(0, 1500, 24)), True),
                             (bg.io.generators.kron(8, 8, seed=1), list(range(64)), False),
                             (_random(300, 3000, 4, directed=False), list(range(64)), False)):
        lev = _levels(A, sources)
        pairs, entries = int((lev >= 1).sum()), _vertex_entries(lev)
        assert use_pairs(pairs, entries, lanes, False) == deep, (pairs, entries)
        assert not use_pairs(pairs, entries, lanes, True)
        assert not use_pairs(pairs, entries, 0, False)
        assert use_pairs(pairs, entries, 65, False)


def test_pair_packed_slots_are_the_kernels():
    """Pair mode's per-level launches set parameters 5, 6 (begin, end) and 8
    (the level) of bc_pair_forward / bc_pair_backward, 7 (the level) of
    bc_pair_*_heavy; the launcher passes as many arguments as each has
    parameters."""
    import inspect
    import re

    from bitgraph.kernels.cuda import betweenness, source_text

    text = source_text("betweenness.cu")

    def params(kernel):
        sig = re.search(rf"__global__ void {kernel}\((.*?)\)\s*\{{", text, re.S).group(1)
        return [re.search(r"(\w+)\s*$", p.strip()).group(1) for p in sig.split(",")]

    for kernel, count, slots in (("bc_pair_forward", 10, {5: "begin", 6: "end", 8: "d"}),
                                 ("bc_pair_backward", 12, {5: "begin", 6: "end", 8: "e"}),
                                 ("bc_pair_forward_heavy", 8, {7: "d"}),
                                 ("bc_pair_backward_heavy", 9, {7: "e"})):
        names = params(kernel)
        assert len(names) == count, (kernel, names)
        assert all(names[i] == x for i, x in slots.items()), (kernel, names)
    launcher = inspect.getsource(betweenness._pair_run)
    assert "run.set(7," in launcher and "run.set(8," in launcher
    for kernel, count in (('kern["pair_forward"], 1', 10), ('kern["pair_backward"], 1', 12),
                          ('kern["pair_forward_heavy"], g', 8),
                          ('kern["pair_backward_heavy"], g', 9)):
        call = re.search(rf"PackedLaunch\({re.escape(kernel)}, threads,\s*\((.*?)\)\)",
                         launcher, re.S).group(1)
        assert len(call.split(",")) == count, (kernel, call)


@pytest.mark.gpu
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("knobs", [
    {"cuda_pair_lanes": 65},                                               # shared counting
    {"cuda_pair_lanes": 65, "cuda_hist_levels": 0, "cuda_list_chunk": 7,
     "cuda_threads": 32},                                                  # global atomics
    {"cuda_pair_lanes": 65, "cuda_list_chunk": 1, "cuda_threads": 512},
    {"cuda_pair_lanes": 65, "cuda_heavy_degree": 8},                      # many heavy rows
    {"cuda_pair_lanes": 65, "cuda_heavy_degree": 0, "cuda_threads": 32},  # every row heavy
    {"cuda_pair_lanes": 0},                                                # never
], ids=["pair", "pair_global", "pair_chunk1", "pair_heavy8", "pair_heavy0", "never"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_cuda_pair_mode_equals_cpu_kernel(case, knobs, index):
    """Every case in pair mode (cuda_pair_lanes 65: pairs <= 64 a list
    entry) and never (0), equal to the CPU kernel; edges=True in the
    vertex mode whatever the knob (work["mode"])."""
    import cupy

    _, A, sources = case
    cfg = bg.settings.Betweenness(**knobs)
    lev = _levels(A, sources)
    a, t = out_csr(A), in_csr(A)
    da, dt = _device_csr(a, index), _device_csr(t, index)
    work = {}
    for edges in (False, True, False):
        want = _cpu()(a, t, lev, edges=edges)
        got = _gpu()(da, dt, cupy.asarray(lev), edges=edges, cfg=cfg, work=work)
        pair = knobs["cuda_pair_lanes"] > 0 and not edges and A.nrows > 0
        assert work["mode"] == ("pair" if pair else "vertex")
        assert isinstance(got[0], cupy.ndarray) and (got[1] is None) == (not edges)
        _assert_close(_host(got[0]), want[0])
        if edges:
            _assert_close(_host(got[1]), want[1])
    assert work["pair_batches"] == (2 if knobs["cuda_pair_lanes"] else 0)


@pytest.mark.gpu
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("b", [1, 33, 64])
def test_cuda_pair_mode_deep_graphs_by_default(b, index):
    """A 40 x 40 grid and a long path at the default knobs: pair mode
    (work["mode"]), equal to the CPU kernel, and bitwise equal on a second
    call (no atomics in the sums); with edges the vertex mode."""
    import cupy

    for A, step in ((bg.io.generators.grid2d(40, 40), 1600 // 64), (_path(3000, False), 40)):
        sources = list(range(0, A.nrows, step))[:b]
        lev = _levels(A, sources)
        a, t = out_csr(A), in_csr(A)
        da, dt = _device_csr(a, index), _device_csr(t, index)
        want = _cpu()(a, t, lev, edges=False)[0]
        work = {}
        got = _gpu()(da, dt, cupy.asarray(lev), edges=False, work=work)
        assert work["mode"] == "pair"  # b = 1 too: a warp would run one lane
        _assert_close(_host(got[0]), want)
        again = _gpu()(da, dt, cupy.asarray(lev), edges=False, work={})
        assert np.array_equal(_host(got[0]), _host(again[0]))
        got = _gpu()(da, dt, cupy.asarray(lev), edges=True, work=work)
        assert work["mode"] == "vertex"
        want = _cpu()(a, t, lev, edges=True)
        _assert_close(_host(got[0]), want[0])
        _assert_close(_host(got[1]), want[1])


@pytest.mark.gpu
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_cuda_pair_mode_heavy_hub_and_random(index):
    """A star's hub (degree 3000 > the default cuda_heavy_degree) in pair
    mode: a warp per (hub, source) both ways; a random graph with pair mode
    forced (65) and off (0): equal to the CPU kernel and to each other
    within the tolerance; pair-mode batches through one work dict after
    vertex-mode ones (delta's stale entries never read)."""
    import cupy

    S = _star(3000)
    s, st = out_csr(S), in_csr(S)
    cfg = bg.settings.Betweenness(cuda_pair_lanes=65)
    for sources in ([0, 1, 2999], [5], list(range(64)), list(range(10, 43))):
        lev = _levels(S, sources)
        work = {}
        got = _gpu()(_device_csr(s, index), _device_csr(st, index), cupy.asarray(lev),
                     cfg=cfg, work=work)
        assert work["mode"] == "pair"
        assert work["heavy"][1]["forward"][0].get().tolist() == [0]
        _assert_close(_host(got[0]), _cpu()(s, st, lev, edges=False)[0])
    A = _random(2000, 5000, 9, directed=True)
    a, t = out_csr(A), in_csr(A)
    da, dt = _device_csr(a, index), _device_csr(t, index)
    work = {}
    for sources, lanes in ((list(range(64)), 0), (list(range(64, 128)), 65),
                           (list(range(7)), 0), (list(range(500, 564)), 65),
                           (list(range(900, 933)), 65)):
        lev = _levels(A, sources)
        got = _gpu()(da, dt, cupy.asarray(lev), cfg=bg.settings.Betweenness(cuda_pair_lanes=lanes),
                     work=work)
        assert work["mode"] == ("pair" if lanes else "vertex")
        _assert_close(_host(got[0]), _cpu()(a, t, lev, edges=False)[0])
    assert work["pair_batches"] == 3


@pytest.mark.gpu
def test_cuda_pair_lanes_refused_below_zero():
    import cupy

    A = _path(5, False)
    a = _device_csr(out_csr(A), np.int32)
    with pytest.raises(ValueError, match="cuda_pair_lanes must be >= 0"):
        _gpu()(a, a, cupy.zeros((1, 5), np.int32),
               cfg=bg.settings.Betweenness(cuda_pair_lanes=-1))
