"""The host side of the GPU delta-stepping launcher (``kernels/cuda/sssp.py``)
on an emulated GPU: a stand-in ``cupy`` (numpy arrays with ``.get()`` and a
``.data.ptr`` that ``memsetAsync`` writes through ``ctypes``) and kernels
that compute what ``sssp.cu``'s compute, one thread at a time (a valid
order of the real ones; a round's edges in a shuffled order): the light
ends, the init, the take (its gate and C_GO), the relax (its gate, the
near, member and far appends, C_ROUNDS and C_EDGES), the split. Every
launch's arguments are checked against the kernel's parameters in the .cu
(count, pointee dtypes, scalar types), every launch's counter slots are
distinct, and every taken row's part (light prefix for a near list, heavy
suffix for a member list) is relaxed exactly once by its round. The
distances must equal the CPU kernel's, with light/heavy on and off, for
every weight dtype. What it cannot tell: whether the real kernels compute
this (the GPU tests in ``tests/algorithms/test_sssp.py``).
"""

from __future__ import annotations

import ctypes
import re
import sys
import types

import numpy as np
import pytest

import bitgraph as bg
from bitgraph.algorithms.shortest_paths import _rows_by_weight, default_delta
from bitgraph.kernels.cpu import sssp as cpu_kernel
from bitgraph.kernels.cuda import source_text
from bitgraph.kernels.cuda.constants import SSSP

_CU = source_text("sssp.cu")
_C = {"int": np.int32, "long long": np.int64, "unsigned long long": np.uint64,
      "unsigned int": np.uint32, "float": np.float32, "double": np.float64}
F_NEAR, F_FAR, F_MEMBER = SSSP["F_NEAR"], SSSP["F_FAR"], SSSP["F_MEMBER"]
C_MIN, C_ROUNDS, C_GO, C_EDGES = SSSP["C_MIN"], SSSP["C_ROUNDS"], SSSP["C_GO"], SSSP["C_EDGES"]
C_MIN1, C_SPLITS, C_ERR = SSSP["C_MIN1"], SSSP["C_SPLITS"], SSSP["C_ERR"]
C_MEM0, C_MEM1, C_FAR0, C_FAR1 = SSSP["C_MEM0"], SSSP["C_MEM1"], SSSP["C_FAR0"], SSSP["C_FAR1"]


def _params(name):
    return [p.strip() for p in re.search(
        rf"__global__ void (?:__launch_bounds__\([^)]*\)\s*)?{name}\((.*?)\)\s*\{{", _CU,
        re.S).group(1).split(",")]


class FakeArray(np.ndarray):
    """A numpy array with CuPy's ``.get()`` and ``.data.ptr``."""

    def get(self):
        return np.array(self)

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


def _fa(a):
    return np.asarray(a).view(FakeArray)


def _cupy():
    cp = types.ModuleType("cupy")
    cp.ndarray = type("NotAnArray", (), {})
    cp.ascontiguousarray = lambda a, dtype=None: _fa(np.ascontiguousarray(a, dtype))

    def empty(shape, dtype=np.float64):
        # 7 everywhere (NaN in floats): a value read before a kernel writes it shows
        dtype = np.dtype(dtype)
        return _fa(np.full(shape, np.nan if dtype.kind == "f" else 7, dtype))

    cp.empty = empty
    cp.zeros = lambda shape, dtype=np.float64: _fa(np.zeros(shape, dtype))

    class Event:
        def record(self):
            pass

        def synchronize(self):
            pass

    def memset(ptr, value, size, stream):
        ctypes.memset(ptr, value, size)

    memory = types.SimpleNamespace(OutOfMemoryError=type("OutOfMemoryError", (Exception,), {}))
    runtime = types.SimpleNamespace(memsetAsync=memset, getDevice=lambda: 0)
    cp.cuda = types.SimpleNamespace(
        Event=Event, get_elapsed_time=lambda a, b: 1.0, memory=memory, runtime=runtime,
        get_current_stream=lambda: types.SimpleNamespace(ptr=0))
    return cp


class Gpu:
    """sssp.cu's kernels for one index dtype I and distance dtype D, serial."""

    def __init__(self, I, D, *, seed):
        self.I, self.D = np.dtype(I), np.dtype(D)
        self.rng = np.random.default_rng(seed)
        self.taken = None  # the last take's (vertices, flag)
        self.launches = []

    def get_function(self, name):
        kernel = re.match(r"sssp_(\w+)<", name).group(1)
        params = _params(f"sssp_{kernel}")
        fn = getattr(self, kernel)

        def launch(grid, block, args, **kw):
            assert kw == ({"enable_cooperative_groups": True} if kernel == "persistent" else {})
            self._check(params, args)
            self.launches.append(kernel)
            assert len(self.launches) < 20_000  # a run that never ends fails
            fn(*args)
        return launch

    def _check(self, params, args):
        assert len(args) == len(params), (len(args), params)
        for a, p in zip(args, params):
            ctype = re.sub(r"\b(const|__restrict__)\b|\*|\w+$", "", p).strip()
            want = {"I": self.I, "D": self.D}.get(ctype) or np.dtype(_C[ctype])
            if "*" in p:
                assert isinstance(a, np.ndarray) and a.dtype == want and a.flags.c_contiguous, p
            else:
                assert type(a) is want.type, (p, type(a))

    # the distances' arithmetic, as sssp.cu's extend and Ord
    def _extend(self, du, w, saturated):
        if self.D.kind == "f":
            c = self.D.type(du + w)
            return self.D.type(0) if c == 0 else c
        return self.D.type(min(int(du) + int(w), int(saturated)))

    def _bits(self, d):
        if self.D.kind == "f":
            return int(np.array([d], self.D).view(np.int32 if self.D.itemsize == 4 else np.int64)[0])
        return int(d)

    def _append(self, ctr, slot, shift, lst, offs, v, deg):
        at = int(ctr[slot])
        pos = at & ((1 << shift) - 1)
        assert pos < lst.size
        lst[pos] = v
        offs[pos] = at >> shift
        ctr[slot] = np.uint64(at + ((deg << shift) | 1))

    def _parts(self, indptr, lend, v):
        mid = int(lend[v])
        return mid - int(indptr[v]), int(indptr[v + 1]) - mid

    def light_ends(self, indptr, weights, lend, n, light):
        for i in range(int(n)):
            a, b = int(indptr[i]), int(indptr[i + 1])
            while a < b:
                mid = a + (b - a) // 2
                if weights[mid] < light:
                    a = mid + 1
                else:
                    b = mid
            lend[i] = a

    def init(self, indptr, lend, dist, flags, n, source, near, offs, mem, moffs, ctr,
             near_slot, mem_slot, shift, infinity):
        assert near_slot != mem_slot
        dist[:] = infinity
        flags[:] = 0
        dist[source] = 0
        light, heavy = self._parts(indptr, lend, source)
        flags[source] = (F_NEAR if light else 0) | (F_MEMBER if heavy else 0)
        ctr[:] = 0
        ctr[C_MIN] = ~np.uint64(0)
        if light:
            near[0], offs[0] = source, 0
            ctr[near_slot] = np.uint64((light << int(shift)) | 1)
        if heavy:
            mem[0], moffs[0] = source, 0
            ctr[mem_slot] = np.uint64((heavy << int(shift)) | 1)

    def take(self, starts, dist, flags, near_in, offs_in, base_out, du_out, ctr, in_slot,
             out_slot, gate, flag, shift):
        assert len({int(in_slot), int(out_slot), int(gate), C_GO}) == 4
        mask = (1 << int(shift)) - 1
        if gate >= 0:
            go = (int(ctr[gate]) & mask) == 0
            ctr[C_GO] = go
            if not go:
                self.taken = None
                return
            assert flag == F_MEMBER
        else:  # gate -2: sssp_persistent's member take (its loop decided the near list is empty)
            assert flag == (F_MEMBER if gate == -2 else F_NEAR)
        count = int(ctr[in_slot]) & mask
        ctr[out_slot] = 0
        for i in range(count):
            u = near_in[i]
            flags[u] &= np.uint32(~int(flag) & 0xFFFFFFFF)
            du_out[i] = dist[u]
            base_out[i] = int(starts[u]) - int(offs_in[i])
        self.taken = (near_in[:count].copy(), int(flag))

    def relax(self, indptr, lend, indices, weights, dist, flags, offs_in, base_in, du_in,
              near_out, offs_out, mem_out, moffs_out, far, ctr, in_slot, out_slot, mem_slot,
              far_slot, go, threshold, saturated, shift):
        assert len({int(in_slot), int(out_slot), int(mem_slot), int(far_slot), C_GO}) == 5
        if go >= 0 and int(ctr[go]) == 0:
            return
        packed = int(ctr[in_slot])
        count, edges = packed & ((1 << int(shift)) - 1), packed >> int(shift)
        rows, flag = self.taken
        assert rows.size == count
        if count:
            ctr[C_ROUNDS] += np.uint64(1)
            ctr[C_EDGES] += np.uint64(edges)
            starts = offs_in[:count].astype(np.int64)
            assert starts[0] == 0 and (np.diff(np.r_[starts, edges]) > 0).all()  # a row, an edge
        seen = np.zeros(edges, np.int64)
        for e in self.rng.permutation(edges):
            r = int(np.searchsorted(starts, e, side="right")) - 1
            p = int(base_in[r]) + int(e)
            u = int(rows[r])
            lo, hi = ((int(indptr[u]), int(lend[u])) if flag == F_NEAR
                      else (int(lend[u]), int(indptr[u + 1])))
            assert lo <= p < hi  # the taken row's part
            seen[e] += 1
            v = int(indices[p])
            cand = self._extend(du_in[r], weights[p], saturated)
            if not cand < dist[v]:
                continue
            dist[v] = cand
            light, heavy = self._parts(indptr, lend, v)
            if not (light or heavy):
                continue
            if cand < threshold:
                had = int(flags[v])
                flags[v] |= (F_NEAR if light else 0) | (F_MEMBER if heavy else 0)
                if light and not had & F_NEAR:
                    self._append(ctr, out_slot, int(shift), near_out, offs_out, v, light)
                if heavy and not had & F_MEMBER:
                    self._append(ctr, mem_slot, int(shift), mem_out, moffs_out, v, heavy)
            elif not flags[v] & F_FAR:
                flags[v] |= F_FAR
                at = int(ctr[far_slot])
                far[at] = v
                ctr[far_slot] = np.uint64(at + 1)
        assert (seen == 1).all()

    def split(self, indptr, lend, dist, flags, far_in, count, far_out, out_slot, near_out,
              offs_out, near_slot, mem_out, moffs_out, mem_slot, ctr, shift, low, threshold,
              least_slot=C_MIN):
        assert len({int(out_slot), int(near_slot), int(mem_slot), least_slot}) == 4
        assert low < threshold
        least = None
        for i in range(int(count)):
            v = int(far_in[i])
            d = dist[v]
            if not d < threshold:
                at = int(ctr[out_slot])
                far_out[at] = v
                ctr[out_slot] = np.uint64(at + 1)
                least = self._bits(d) if least is None else min(least, self._bits(d))
                continue
            flags[v] &= np.uint32(~F_FAR & 0xFFFFFFFF)
            if d < low:
                continue
            light, heavy = self._parts(indptr, lend, v)
            had = int(flags[v])
            flags[v] |= (F_NEAR if light else 0) | (F_MEMBER if heavy else 0)
            if light and not had & F_NEAR:
                self._append(ctr, near_slot, int(shift), near_out, offs_out, v, light)
            if heavy and not had & F_MEMBER:
                self._append(ctr, mem_slot, int(shift), mem_out, moffs_out, v, heavy)
        if least is not None:
            ctr[least_slot] = min(int(ctr[least_slot]), least)

    def persistent(self, indptr, lend, indices, weights, dist, flags, near0, near1, offs0,
                   offs1, mem0, mem1, moffs0, moffs1, far0, far1, base, du, ctr, bar, delta,
                   saturated, shift):
        """sssp_persistent's loop, its phases one after another (the take,
        relax and split above are its phase bodies); asserts the counter
        discipline its barriers rely on: a member round and a split start
        from an empty near list (and a split from an empty member list)."""
        from bitgraph.kernels.cuda.sssp import _above, _threshold

        D, mask = self.D, (1 << int(shift)) - 1
        near, offs, mem, moffs = (near0, near1), (offs0, offs1), (mem0, mem1), (moffs0, moffs1)
        far = (far0, far1)
        c_near, c_mem, c_far = (0, 1), (C_MEM0, C_MEM1), (C_FAR0, C_FAR1)
        c_min = (C_MIN, C_MIN1)
        cur = m = pile = 0
        bucket = 0.0
        threshold = _threshold(float(delta), D)
        empty_splits = 0
        self.phases = self.bumped = 0
        while True:
            self.phases += 1
            assert self.phases < 20_000  # a run that never ends fails
            nearp = int(ctr[c_near[cur]])
            if nearp & mask:  # a near round
                self.take(indptr, dist, flags, near[cur], offs[cur], base, du, ctr,
                          c_near[cur], c_near[1 - cur], -1, F_NEAR, shift)
                self.relax(indptr, lend, indices, weights, dist, flags, offs[cur], base, du,
                           near[1 - cur], offs[1 - cur], mem[m], moffs[m], far[pile], ctr,
                           c_near[cur], c_near[1 - cur], c_mem[m], c_far[pile], -1, threshold,
                           saturated, shift)
                cur, empty_splits = 1 - cur, 0
                continue
            assert nearp == 0  # no vertex, no edge
            memp = int(ctr[c_mem[m]])
            if memp & mask:  # a member round into near list cur
                self.take(lend, dist, flags, mem[m], moffs[m], base, du, ctr, c_mem[m],
                          c_mem[1 - m], -2, F_MEMBER, shift)
                self.relax(indptr, lend, indices, weights, dist, flags, moffs[m], base, du,
                           near[cur], offs[cur], mem[1 - m], moffs[1 - m], far[pile], ctr,
                           c_mem[m], c_near[cur], c_mem[1 - m], c_far[pile], -1, threshold,
                           saturated, shift)
                m, empty_splits = 1 - m, 0
                continue
            assert memp == 0
            far_count = int(ctr[c_far[pile]])
            if far_count == 0:
                return
            low = threshold
            if empty_splits == 0:
                bucket += 1.0
                threshold = _threshold((bucket + 1.0) * float(delta), D)
            elif empty_splits == 1:
                least = self._unbits(int(ctr[c_min[pile]]))
                bucket = max(float(np.floor(float(least) / float(delta))), bucket + 1.0)
                threshold = max(_threshold((bucket + 1.0) * float(delta), D), _above(least, D))
            else:
                ctr[C_ERR] = far_count
                return
            if not threshold > low:
                threshold = _above(low, D)
                self.bumped += 1
            out = 1 - pile
            ctr[c_far[out]] = 0
            ctr[c_min[out]] = ~np.uint64(0)
            ctr[C_SPLITS] += np.uint64(1)
            self.split(indptr, lend, dist, flags, far[pile], np.int64(far_count), far[out],
                       c_far[out], near[cur], offs[cur], c_near[cur], mem[m], moffs[m],
                       c_mem[m], ctr, shift, low, threshold, least_slot=c_min[out])
            pile = out
            empty_splits += 1

    def _unbits(self, b):
        if self.D.kind == "f":
            return np.array([b], np.uint32 if self.D.itemsize == 4 else np.uint64).view(self.D)[0]
        return self.D.type(b)


@pytest.fixture
def launcher(monkeypatch):
    """The launcher module on the emulated GPU, and a list that receives
    each run's emulated GPU."""
    monkeypatch.setitem(sys.modules, "cupy", _cupy())
    import bitgraph.kernels.cuda as kc
    from bitgraph.kernels.cuda import sssp as ks

    gpus = []

    def module(source, names):
        assert source == "sssp.cu"
        mod = types.SimpleNamespace(gpu=None)

        def get_function(name):
            if mod.gpu is None:  # one (D, I) a run
                mod.gpu = Gpu(*_types(name), seed=len(gpus))
                gpus.append(mod.gpu)
            return mod.gpu.get_function(name)

        mod.get_function = get_function
        return mod, {n: n for n in names}

    monkeypatch.setattr(ks, "module", module)
    monkeypatch.setattr(kc, "multiprocessors", lambda: 2)
    monkeypatch.setattr(kc, "cooperative_blocks", lambda fn, threads, per_sm, smem=0: 2 * per_sm)
    return ks, gpus


_CT = {"int": np.int32, "long long": np.int64, "unsigned long long": np.uint64,
       "float": np.float32, "double": np.float64}


def _types(name):
    """(I, D) of a name expression ``sssp_x<D, I>``."""
    d, i = re.match(r"sssp_\w+<(.+), (int|long long)>$", name).groups()
    return _CT[i], _CT[d]


def _graph(seed, n, m, dtype, index, zero=0.3):
    rng = np.random.default_rng(seed)
    r = np.r_[rng.integers(0, n, m), np.zeros(n // 3, np.int64)]  # vertex 0: a hub
    c = np.r_[rng.integers(0, n, m), rng.integers(0, n, n // 3)]
    w = rng.integers(0, 256, r.size)
    w[rng.random(r.size) < zero] = 0
    A = bg.Matrix.from_coo(r, c, w.astype(dtype), nrows=n, ncols=n, dup_op="min")
    h = A._csr()
    return A, h._replace(indptr=h.indptr.astype(index), indices=h.indices.astype(index))


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("light_heavy", [True, False])
def test_distances_equal_cpu_kernel(launcher, dtype, index, light_heavy):
    """Any delta (Dial's, the default, 16x, one bucket), sources with and
    without edges, rows by weight or not (exact either way), batches of 1
    and 3 rounds between reads: the CPU kernel's distances; the edges
    metric counts every edge of a reached vertex at least once."""
    ks, gpus = launcher
    A, h = _graph(1, 120, 500, dtype, index)
    W = np.dtype(dtype)
    base = default_delta(A)
    for by_weight in (True, False):
        g = _rows_by_weight(h) if by_weight else h
        for delta in (1.0, base, 16 * base, 1e9):
            for s in (0, 7, 119):
                for rpr in (1, 3):
                    cfg = bg.settings.SSSP(cuda_rounds_per_read=rpr)
                    ref, _ = cpu_kernel.delta_stepping(h, s, delta, W, parallel=False)
                    stats = bg.Stats()
                    dist, rounds = ks.delta_stepping(g, s, delta, W, cfg=cfg, stats=stats,
                                                     work={}, light_heavy=light_heavy)
                    np.testing.assert_array_equal(np.asarray(dist), ref)
                    deg = np.diff(h.indptr)
                    reached = ref != (np.inf if W.kind == "f" else np.iinfo(W).max)
                    assert stats.metrics["edges"] >= int(deg[reached].sum())
                    assert (rounds >= 1) == bool(deg[s])
                    launches = gpus[-1].launches
                    assert ("light_ends" in launches) == light_heavy


def test_light_heavy_relaxes_fewer_edges(launcher):
    """On a graph where vertices improve many times within a bucket, the
    light/heavy split relaxes fewer edges than relaxing every edge."""
    ks, _ = launcher
    A, h = _graph(2, 300, 3000, "int32", np.int32, zero=0.0)
    g = _rows_by_weight(h)
    delta = 16 * default_delta(A)
    edges = {}
    for lh in (True, False):
        stats = bg.Stats()
        ks.delta_stepping(g, 0, delta, np.dtype(np.int32), stats=stats, light_heavy=lh)
        edges[lh] = stats.metrics["edges"]
    assert edges[True] < edges[False]


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("light_heavy", [True, False])
def test_persistent_distances_equal_cpu_kernel(launcher, dtype, index, light_heavy):
    """The persistent launcher on the emulated device loop (``Gpu.persistent``:
    sssp_persistent's decisions, thresholds and counter slots): the CPU
    kernel's distances for every delta and source; one launch each of
    light_ends (light/heavy only), init and persistent; the stats read once
    at the end (rounds, splits, edges), none without stats (rounds None)."""
    ks, gpus = launcher
    A, h = _graph(1, 120, 500, dtype, index)
    W = np.dtype(dtype)
    base = default_delta(A)
    deg = np.diff(h.indptr)
    for by_weight in (True, False):
        g = _rows_by_weight(h) if by_weight else h
        for delta in (1.0, base, 16 * base, 1e9):
            for s in (0, 7, 119):
                ref, _ = cpu_kernel.delta_stepping(h, s, delta, W, parallel=False)
                stats = bg.Stats()
                work = {}
                dist, rounds = ks.delta_stepping_persistent(g, s, delta, W, stats=stats,
                                                            work=work, light_heavy=light_heavy)
                np.testing.assert_array_equal(np.asarray(dist), ref)
                assert gpus[-1].launches == ["light_ends"] * light_heavy + ["init", "persistent"]
                reached = ref != (np.inf if W.kind == "f" else np.iinfo(W).max)
                assert stats.metrics["edges"] >= int(deg[reached].sum())
                assert (rounds >= 1) == bool(deg[s]) and stats.metrics["reads"] == 1
                assert stats.metrics["splits"] >= 0 and stats.metrics["blocks"] == 2 * 2
                # the workspace comes back (its barrier words with it); no stats: no rounds
                again, rounds = ks.delta_stepping_persistent(g, s, delta, W, work=work,
                                                             light_heavy=light_heavy)
                np.testing.assert_array_equal(np.asarray(again), ref)
                assert rounds is None and len(work) == 1


def test_persistent_far_jump_and_float_thresholds(launcher):
    """The device loop's branches: a far jump past empty buckets (the least
    far distance's bucket), float32 thresholds where (bucket + 1) * delta
    rounds (tiny delta against large distances: the threshold must still
    move on), a long path (a split a hop), a star, a graph without edges,
    one vertex, zero weights (the bucket never advances)."""
    ks, gpus = launcher

    def check(r, c, w, n, s, delta, W):
        A = bg.Matrix.from_coo(np.asarray(r, np.int64), np.asarray(c, np.int64),
                               np.asarray(w, W), nrows=n, ncols=n, dup_op="min")
        h = A._csr()
        ref, _ = cpu_kernel.delta_stepping(h, s, delta, np.dtype(W), parallel=False)
        for lh in (True, False):
            stats = bg.Stats()
            g = _rows_by_weight(h) if lh else h
            dist, _ = ks.delta_stepping_persistent(g, s, delta, np.dtype(W), stats=stats,
                                                   light_heavy=lh)
            np.testing.assert_array_equal(np.asarray(dist), ref)
        return stats

    # far jump: 0 -> 1 at 95 with delta 10 leaves buckets 1..8 empty
    st = check([0, 1, 0, 1], [1, 2, 2, 3], [95, 2, 96, 12], 4, 0, 10.0, np.int32)
    assert st.metrics["splits"] >= 2
    for W in (np.float32, np.float64):
        check([0, 1, 2], [1, 2, 3], [3e7, 1.0, 2.5], 4, 0, 600.3, W)
        # past distance 1024 float32's spacing (1.2e-4) exceeds 2 delta: thresholds round to low
        p = 1100
        check(np.arange(p), np.arange(1, p + 1), np.ones(p), p + 1, 0, 1 / 65000, W)
        assert (gpus[-1].bumped > 0) == (W == np.float32)
    n = 400  # a long path: a split per hop at delta 1
    st = check(np.arange(n - 1), np.arange(1, n), np.full(n - 1, 3), n, 0, 1.0, np.int64)
    assert st.metrics["splits"] >= n - 1
    check(np.zeros(50), np.arange(1, 51), np.arange(50) % 7, 51, 0, 2.0, np.uint64)  # a star
    check(np.zeros(50), np.arange(1, 51), np.arange(50) % 7, 51, 3, 2.0, np.uint64)  # a leaf
    check([], [], [], 5, 2, 1.0, np.float32)  # no edges
    check([], [], [], 1, 0, 1.0, np.int32)  # one vertex
    check([0, 1, 2, 2], [1, 2, 0, 3], [0, 0, 0, 5], 5, 0, 1.0, np.int32)  # zero weights
