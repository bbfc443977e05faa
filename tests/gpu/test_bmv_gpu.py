"""CUDA B2SR bit matrix-vector kernels (kernels/cuda/bmv_b2sr.cu) equal
their CPU twins (kernels/cpu/bmv_b2sr.py) on random matrices: every tile
size, masked and unmasked, int32 and int64 tile indices, every group width
(``lanes``) and long tile rows cut into chunks (a small ``settings.cuda.bmv_steps``), and for
``bin_full_full`` every semiring family and dtype.

The CPU side always runs on the int32 B2SR (one numba specialisation per
dtype: its results do not depend on the index dtype); the GPU side gets
int32 or int64 copies of the same arrays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bitgraph as bg
from bitgraph.formats import b2sr
from bitgraph.formats.b2sr import B2SR
from bitgraph.formats.csr import CSR
from bitgraph.kernels import registry
from bitgraph.kernels import convert
from bitgraph.kernels.cuda.constants import BMV_B2SR, per_tile
from values import gen_values, pack as _pack, semiring_spec

pytestmark = pytest.mark.gpu

MONOIDS = ["plus", "times", "min", "max", "any", "lor", "land", "lxor", "eq"]
MULTS = ["times", "plus", "first", "second", "pair", "min", "max", "minus", "div",
         "land", "lor", "eq", "gt", "firsti", "firstj", "secondi", "secondj"]
# the brief's named ones, drawn more often
NAMED = [("min", "plus"), ("max", "times"), ("plus", "times"), ("any", "pair"),
         ("lor", "land"), ("min", "firsti"), ("plus", "secondj"), ("max", "secondi")]
DTYPES = registry.DTYPES
GEO_L = per_tile(BMV_B2SR, "GEO_L")  # lanes per tile
# (t, dtype) of the bin_full_full cases: every dtype with one tile size,
# floats with two (each pair is an NVRTC instantiation, about 1.5 s at its
# first call on the H100 machine, one per op-code variant: all 44 pairs
# take the file far past a minute; a dtype's kernel code does not depend
# on t). Semirings of the compile-time fast path (bmv_b2sr.FAST_OPS) run on
# FAST_COMBOS only: one pair per t.
TS = (4, 8, 16, 32)
COMBOS = [(TS[i % 4], d) for i, d in enumerate(DTYPES)] + [
    (4, np.dtype(np.float32)), (32, np.dtype(np.float64))]
FAST_COMBOS = [(4, np.dtype(np.float32)), (8, np.dtype(np.float32)),
               (16, np.dtype(np.float64)), (32, np.dtype(np.float64))]


def _kernels(variant):
    cpu = registry.lookup("mxv", fmt="b2sr", device="cpu", variant=variant)
    gpu = registry.lookup("mxv", fmt="b2sr", device="cuda", variant=variant)
    return cpu, gpu




def _matrix(rng, nrows, ncols, density, t):
    """A CPU B2SR-t (int32 indices) of a random pattern: some dense rows and
    a dense column band now and then (full tiles, long tile rows)."""
    present = rng.random((nrows, ncols)) < density
    if nrows and ncols:
        if rng.random() < 0.4:  # long rows
            present[rng.integers(nrows, size=rng.integers(1, 4))] = True
        if rng.random() < 0.2:  # a dense column band: full tiles
            c0 = rng.integers(ncols)
            present[:, c0:c0 + rng.integers(1, 40)] = True
    rows, cols = np.nonzero(present)
    indptr = np.zeros(nrows + 1, np.int32)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return convert.b2sr(CSR(indptr, cols.astype(np.int32), None, nrows, ncols), t)


def _gpu(B, index64):
    import cupy

    it = np.int64 if index64 else B.tile_rowptr.dtype
    return B2SR(cupy.asarray(B.tile_rowptr.astype(it)), cupy.asarray(B.tile_colind.astype(it)),
                cupy.asarray(B.tiles), B.t, B.nrows, B.ncols)


def _d(a):
    import cupy

    return None if a is None else cupy.asarray(a)


def _steps(n):
    """Chunks of n group steps (``settings.cuda.bmv_steps``): small n cuts
    even short tile rows into chunks, so the fixup path runs."""
    return bg.settings.use(cuda={"bmv_steps": n})


def _lanes(t, lanes):
    return None if lanes is None else max(lanes, GEO_L[t])


common = dict(
    t=st.sampled_from([4, 8, 16, 32]), seed=st.integers(0, 2**32 - 1),
    nrows=st.integers(0, 150), ncols=st.integers(0, 150),
    density=st.sampled_from([0.0, 0.02, 0.1, 0.5, 1.0]), masked=st.booleans(),
    index64=st.booleans(), lanes=st.sampled_from([None, None, 1, 2, 4, 8, 16, 32]),
    steps=st.sampled_from([1, 2, 8]))


@settings(max_examples=200)
@given(xtrue=st.sampled_from(["none", "subset", "any"]), **common)
def test_bin_bin_bin_equals_cpu(t, seed, nrows, ncols, density, masked, index64, lanes, steps,
                                xtrue):
    rng = np.random.default_rng(seed)
    B = _matrix(rng, nrows, ncols, density, t)
    xp_bits = rng.random(ncols) < rng.choice([0.0, 0.05, 0.3, 1.0])
    xp = _pack(xp_bits, rng)
    xt = None if xtrue == "none" else _pack(
        (xp_bits if xtrue == "subset" else True) & (rng.random(ncols) < 0.3), rng)
    allowed = _pack(rng.random(nrows) < 0.6, rng) if masked else None
    cpu, gpu = _kernels("bin_bin_bin")
    want_t, want_p = cpu(B, xp, xt, allowed)
    with _steps(steps):
        got_t, got_p = gpu(_gpu(B, index64), _d(xp), _d(xt), _d(allowed), lanes=_lanes(t, lanes))
    assert np.array_equal(got_p.get(), want_p)
    assert np.array_equal(got_t.get(), want_t)


@settings(max_examples=110)
@given(**common)
def test_bin_bin_full_equals_cpu(t, seed, nrows, ncols, density, masked, index64, lanes, steps):
    rng = np.random.default_rng(seed)
    B = _matrix(rng, nrows, ncols, density, t)
    xp = _pack(rng.random(ncols) < rng.choice([0.05, 0.5, 1.0]), rng)
    allowed = _pack(rng.random(nrows) < 0.6, rng) if masked else None
    cpu, gpu = _kernels("bin_bin_full")
    want = cpu(B, xp, allowed)
    with _steps(steps):
        got = gpu(_gpu(B, index64), _d(xp), _d(allowed), lanes=_lanes(t, lanes))
    assert got.dtype == np.uint64
    assert np.array_equal(got.get(), want)




@settings(max_examples=350)
@given(named=st.booleans(), pair=st.tuples(st.sampled_from(MONOIDS), st.sampled_from(MULTS)),
       named_pair=st.sampled_from(NAMED), combo=st.sampled_from(COMBOS),
       flipped=st.booleans(), **{k: v for k, v in common.items() if k != "t"})
def test_bin_full_full_equals_cpu(named, pair, named_pair, combo, flipped, seed, nrows,
                                  ncols, density, masked, index64, lanes, steps):
    from bitgraph.kernels import opcodes
    from bitgraph.kernels.cuda.bmv_b2sr import FAST_OPS

    t, dtype = combo
    add, mult = named_pair if named else pair
    spec = semiring_spec(add, mult, dtype)
    if spec is not None and (spec.add, opcodes.flipped(spec.mult) if flipped else spec.mult) \
            in FAST_OPS:
        t, dtype = FAST_COMBOS[seed % len(FAST_COMBOS)]
        spec = semiring_spec(add, mult, dtype)
    if spec is None:
        return
    dt = spec.dtype
    rng = np.random.default_rng(seed)
    B = _matrix(rng, nrows, ncols, density, t)
    inexact = dt.kind == "f" and add in ("plus", "times")
    mode = "nice" if inexact else ("wild" if rng.random() < 0.5 else "nice")
    x = gen_values(rng, dt, ncols, mode, nan=not inexact)
    xp = _pack(rng.random(ncols) < rng.choice([0.2, 0.8, 1.0]), rng)
    allowed = _pack(rng.random(nrows) < 0.6, rng) if masked else None
    cpu, gpu = _kernels("bin_full_full")
    want_v, want_p = cpu(B, x, xp, allowed, spec, flipped)
    with _steps(steps):
        got_v, got_p = gpu(_gpu(B, index64), _d(x), _d(xp), _d(allowed), spec, flipped,
                           lanes=_lanes(t, lanes))
    assert got_v.dtype == dt
    got_v, got_p = got_v.get(), got_p.get()
    assert np.array_equal(got_p, want_p)
    w, g = want_v[want_p], got_v[want_p]
    if add == "any" and mult != "pair":
        return  # ANY: a witness, any product of the row is right
    if inexact:
        # another order of the sum: close, relative to the terms' size
        # (TIMES may overflow to inf in one order and meet a 0 in the other)
        ok = np.isfinite(w) & np.isfinite(g) if add == "times" else np.ones(w.shape, bool)
        rtol = 1e-5 if dt == np.float32 else 1e-12
        scale = max(1.0, float(np.max(np.abs(w[ok & np.isfinite(w)]), initial=0.0)))
        np.testing.assert_allclose(g[ok], w[ok], rtol=rtol, atol=rtol * scale, equal_nan=True)
    elif dt.kind == "f":
        assert np.array_equal(g, w, equal_nan=True)  # -0.0 == 0.0 (min/max order)
    else:
        assert np.array_equal(g, w)


@pytest.mark.parametrize("steps", [1, 8])
@pytest.mark.parametrize("spec", ["kron:11", "grid:40x50", "urand:11"])
@pytest.mark.parametrize("t", [4, 8, 16, 32])
def test_generated_graphs_equal_cpu(spec, t, steps):
    """Graph-shaped inputs with the default group width (steps=1: the hub
    tile rows of the Kronecker graph run through the chunk + fixup path)."""
    with _steps(steps):
        _check_graph(spec, t)


def _check_graph(spec, t):
    from bitgraph.io.generators import from_spec
    from bitgraph.kernels import opcodes

    A = from_spec(spec)
    csr = A._csr()
    csr = CSR(csr.indptr.astype(np.int32), csr.indices.astype(np.int32), None, csr.nrows,
              csr.ncols)
    B = convert.b2sr(csr, t)
    rng = np.random.default_rng(t)
    n = A.nrows
    xp = _pack(rng.random(n) < 0.3)
    allowed = _pack(rng.random(n) < 0.5)
    G = _gpu(B, False)
    for variant, args in [("bin_bin_bin", (xp, None, allowed)), ("bin_bin_bin", (xp, None, None)),
                          ("bin_bin_full", (xp, None))]:
        cpu, gpu = _kernels(variant)
        want = cpu(B, *args)
        got = gpu(G, *(_d(a) for a in args))
        for wnt, gt in zip(want if isinstance(want, tuple) else (want,),
                           got if isinstance(got, tuple) else (got,)):
            assert np.array_equal(gt.get(), wnt), variant
    dt = np.dtype(np.float32 if t < 16 else np.float64)  # the FAST_COMBOS pairs
    x = rng.integers(-5, 6, n).astype(dt)
    cpu, gpu = _kernels("bin_full_full")
    for add, mult, ident, term in [(opcodes.PLUS, opcodes.TIMES, 0.0, None),
                                   (opcodes.MIN, opcodes.PLUS, np.inf, -np.inf),
                                   (opcodes.ANY, opcodes.PAIR, 0.0, None)]:
        spec_ = registry.SemiringSpec(dt, add, mult, ident, term)
        want_v, want_p = cpu(B, x, xp, allowed, spec_)
        got_v, got_p = gpu(G, _d(x), _d(xp), _d(allowed), spec_)
        assert np.array_equal(got_p.get(), want_p)
        assert np.array_equal(got_v.get()[want_p], want_v[want_p])  # small integers: exact
