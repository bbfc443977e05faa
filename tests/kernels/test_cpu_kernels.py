"""The numba CPU kernels against brute-force pure-Python references.

Every launcher is compared, on small random inputs and for every dtype,
with a reference written from the semantics in ``kernels/cpu/scalar.py``
(SuiteSparse's: compute in T, wrap after every operation). Each test draws
from its own fixed seed, printed on failure (rerun with the same seed to
replay). Floats are compared exactly: every kernel accumulates in the same
order as the reference (k ascending).
"""

import subprocess
import sys
import zlib

import numpy as np
import pytest

from bitgraph.kernels import opcodes as oc
from bitgraph.kernels import registry
from bitgraph.kernels.registry import CSR, SemiringSpec

registry.load("cpu")
from bitgraph.kernels.cpu import ewise as ewise_mod  # noqa: E402
from bitgraph.kernels.cpu import indptr_chunks, row_chunks  # noqa: E402

ewise = registry.lookup("ewise", fmt="dense", device="cpu", variant="binop")
unary = registry.lookup("unary", fmt="dense", device="cpu", variant="unop")
spmv_pull = registry.lookup("mxv", fmt="csr", device="cpu", variant="pull")
spmspv_push = registry.lookup("mxv", fmt="csr", device="cpu", variant="push")
spgemm = registry.lookup("mxm", fmt="csr", device="cpu", variant="gustavson")
reduce_segments = registry.lookup("reduce", fmt="csr", device="cpu",
                                  variant="segments")

DTYPES = [np.dtype(t) for t in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float32", "float64")]
DT_IDS = [str(d) for d in DTYPES]

BINARY = [oc.FIRST, oc.SECOND, oc.PAIR, oc.ANY, oc.PLUS, oc.MINUS, oc.RMINUS,
          oc.TIMES, oc.DIV, oc.RDIV, oc.MIN, oc.MAX, oc.LOR, oc.LAND, oc.LXOR,
          oc.EQ, oc.NE, oc.GT, oc.LT, oc.GE, oc.LE]
MULTS = BINARY + list(oc.POSITIONAL)
UNARY = [oc.IDENTITY, oc.AINV, oc.MINV, oc.ABS, oc.LNOT, oc.ONE, oc.BNOT]
NAMES = {v: k for k, v in vars(oc).items()
         if k.isupper() and isinstance(v, int) and v in MULTS}
UNAMES = {oc.IDENTITY: "IDENTITY", oc.AINV: "AINV", oc.MINV: "MINV",
          oc.ABS: "ABS", oc.LNOT: "LNOT", oc.ONE: "ONE", oc.BNOT: "BNOT"}


@pytest.fixture
def rng(request):
    """A generator seeded from the test's id; the seed is printed (shown by
    pytest on failure)."""
    seed = zlib.crc32(request.node.nodeid.encode())
    print(f"seed = {seed}  (np.random.default_rng({seed}))")
    return np.random.default_rng(seed)


# ----------------------------------------------------------------------------
# reference scalar semantics (plain Python ints / numpy float scalars)
# ----------------------------------------------------------------------------

def wrap(v, dt):
    """The integer v wrapped into T (two's complement)."""
    info = np.iinfo(dt)
    span = 1 << (8 * dt.itemsize)
    return dt.type((int(v) - int(info.min)) % span + int(info.min))


def to_t(v, dt):
    """An index / 0-1 value as a T scalar."""
    if dt.kind == "b":
        return np.bool_(v != 0)
    if dt.kind in "iu":
        return wrap(v, dt)
    return dt.type(v)


def ref_div(x, y, dt):
    if dt.kind == "b":
        return x
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return dt.type(x / y)
    x, y = int(x), int(y)
    info = np.iinfo(dt)
    if y == 0:
        return dt.type(0 if x == 0 else (info.max if x > 0 else info.min))
    if y == -1:
        return wrap(-x, dt)
    q = abs(x) // abs(y)
    return wrap(q if (x < 0) == (y < 0) else -q, dt)


def ref_binop(code, x, y, dt):
    if dt.kind == "b":
        x, y = bool(x), bool(y)
        r = {oc.FIRST: x, oc.SECOND: y, oc.PAIR: True, oc.ANY: x,
             oc.PLUS: x or y, oc.LOR: x or y, oc.MAX: x or y,
             oc.TIMES: x and y, oc.LAND: x and y, oc.MIN: x and y,
             oc.MINUS: x != y, oc.RMINUS: x != y, oc.LXOR: x != y,
             oc.DIV: x, oc.RDIV: y, oc.EQ: x == y, oc.NE: x != y,
             oc.GT: x > y, oc.LT: x < y, oc.GE: x >= y, oc.LE: x <= y}[code]
        return np.bool_(r)
    if code == oc.FIRST or code == oc.ANY:
        return x
    if code == oc.SECOND:
        return y
    if code == oc.PAIR:
        return dt.type(1)
    if code == oc.DIV:
        return ref_div(x, y, dt)
    if code == oc.RDIV:
        return ref_div(y, x, dt)
    if code in (oc.LOR, oc.LAND, oc.LXOR, oc.EQ, oc.NE, oc.GT, oc.LT, oc.GE,
                oc.LE):
        bx, by = x != 0, y != 0
        r = {oc.LOR: bx or by, oc.LAND: bx and by, oc.LXOR: bx != by,
             oc.EQ: x == y, oc.NE: x != y, oc.GT: x > y, oc.LT: x < y,
             oc.GE: x >= y, oc.LE: x <= y}[code]
        return dt.type(1 if r else 0)
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            x, y = dt.type(x), dt.type(y)
            r = {oc.PLUS: lambda: x + y, oc.MINUS: lambda: x - y,
                 oc.RMINUS: lambda: y - x, oc.TIMES: lambda: x * y,
                 oc.MIN: lambda: np.fmin(x, y),
                 oc.MAX: lambda: np.fmax(x, y)}[code]()
            return dt.type(r)
    x, y = int(x), int(y)
    r = {oc.PLUS: x + y, oc.MINUS: x - y, oc.RMINUS: y - x, oc.TIMES: x * y,
         oc.MIN: min(x, y), oc.MAX: max(x, y)}[code]
    return wrap(r, dt)


def ref_mult(code, x, y, i, k, j, dt):
    if code == oc.FIRSTI:
        return to_t(i, dt)
    if code in (oc.FIRSTJ, oc.SECONDI):
        return to_t(k, dt)
    if code == oc.SECONDJ:
        return to_t(j, dt)
    return ref_binop(code, x, y, dt)


def ref_unop(code, x, dt):
    if dt.kind == "b":
        x = bool(x)
        return np.bool_({oc.IDENTITY: x, oc.AINV: x, oc.MINV: True,
                         oc.ABS: x, oc.LNOT: not x, oc.ONE: True}[code])
    if code == oc.IDENTITY:
        return x
    if code == oc.ONE:
        return dt.type(1)
    if code == oc.LNOT:
        return dt.type(1 if x == 0 else 0)
    if dt.kind == "f":
        with np.errstate(all="ignore"):
            return dt.type({oc.AINV: lambda: -x, oc.ABS: lambda: abs(x),
                            oc.MINV: lambda: dt.type(1) / x}[code]())
    xi = int(x)
    if code == oc.AINV:
        return wrap(-xi, dt)
    if code == oc.ABS:
        return wrap(abs(xi), dt)
    if code == oc.MINV:
        return ref_div(1, xi, dt)
    if code == oc.BNOT:
        return wrap(~xi, dt)
    raise AssertionError(code)


def same(a, b):
    """Exact equality of two scalars, NaN equal to NaN."""
    if isinstance(a, (float, np.floating)) and np.isnan(a):
        return bool(np.isnan(b))
    return bool(a == b)


def assert_same_arrays(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: {got.shape} != {want.shape}"
    if got.dtype.kind == "f":
        bad = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    else:
        bad = got != want
    if bad.any():
        p = int(np.flatnonzero(bad)[0])
        raise AssertionError(f"{what}: at {p} got {got[p]!r}, want {want[p]!r}"
                             f" ({int(bad.sum())} of {bad.size} differ)")


# ----------------------------------------------------------------------------
# random inputs
# ----------------------------------------------------------------------------

def special_values(dt):
    if dt.kind == "b":
        return [False, True]
    if dt.kind == "f":
        return [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, np.inf, -np.inf, np.nan, 1e30]
    info = np.iinfo(dt)
    vals = [0, 1, 2, 3, -1, -2, -128, 127, 100, int(info.min), int(info.max),
            int(info.max) - 1, int(info.min) + 1]
    return [v for v in vals if info.min <= v <= info.max]


def rand_values(rng, dt, n, small=False):
    """n values of T: specials, small numbers and full-range numbers."""
    if dt.kind == "b":
        return rng.random(n) < 0.6
    if dt.kind == "f":
        v = rng.integers(-4, 5, n).astype(dt)
        if not small:
            sp = np.array(special_values(dt), dt)
            pick = rng.random(n) < 0.3
            v[pick] = rng.choice(sp, int(pick.sum()))
            scale = rng.random(n) < 0.3
            v[scale] = (rng.standard_normal(int(scale.sum())) * 1e3).astype(dt)
        return v
    info = np.iinfo(dt)
    lo = max(int(info.min), -5)
    v = rng.integers(lo, 6, n, endpoint=True).astype(dt)
    if not small:
        big = rng.random(n) < 0.3
        v[big] = rng.integers(int(info.min), int(info.max), int(big.sum()),
                              dtype=dt, endpoint=True)
        sp = np.array(special_values(dt), dt)
        pick = rng.random(n) < 0.2
        v[pick] = rng.choice(sp, int(pick.sum()))
    return v


def rand_csr(rng, nrows, ncols, density, dt, index_dtype=np.int32, iso=False):
    """A random CSR (sorted columns, no duplicates) and its dict form."""
    pattern = rng.random((nrows, ncols)) < density
    indptr = np.zeros(nrows + 1, index_dtype)
    indptr[1:] = np.cumsum(pattern.sum(axis=1))
    rows, cols = np.nonzero(pattern)
    values = None if iso else rand_values(rng, dt, rows.size)
    A = CSR(indptr, cols.astype(index_dtype), values, nrows, ncols)
    return A


def csr_rows(A, dt):
    """[[(col, value), ...] per row] with iso values made explicit."""
    one = to_t(1, dt)
    out = []
    for r in range(A.nrows):
        lo, hi = int(A.indptr[r]), int(A.indptr[r + 1])
        out.append([(int(A.indices[p]),
                     one if A.values is None else A.values[p])
                    for p in range(lo, hi)])
    return out


def pack_bits(present):
    present = np.asarray(present, bool)
    words = np.zeros((present.size + 31) // 32, np.uint32)
    for i in np.flatnonzero(present):
        words[i >> 5] |= np.uint32(1 << (i & 31))
    return words


def monoids(dt):
    """(add, identity, terminal) of the monoids valid for T."""
    if dt.kind == "b":
        return [(oc.LOR, False, True), (oc.LAND, True, False),
                (oc.LXOR, False, None), (oc.EQ, True, None),
                (oc.ANY, False, None), (oc.PLUS, False, True),
                (oc.TIMES, True, False), (oc.MIN, True, False),
                (oc.MAX, False, True)]
    if dt.kind == "f":
        return [(oc.PLUS, 0, None), (oc.TIMES, 1, None),
                (oc.MIN, np.inf, -np.inf), (oc.MAX, -np.inf, np.inf),
                (oc.ANY, 0, None), (oc.LOR, 0, 1), (oc.LAND, 1, 0),
                (oc.LXOR, 0, None)]
    info = np.iinfo(dt)
    return [(oc.PLUS, 0, None), (oc.TIMES, 1, 0),
            (oc.MIN, info.max, info.min), (oc.MAX, info.min, info.max),
            (oc.ANY, 0, None), (oc.LOR, 0, 1), (oc.LAND, 1, 0),
            (oc.LXOR, 0, None)]


def semirings(dt):
    """Every multiply code paired with monoids in turn (with and without
    their terminal)."""
    mons = monoids(dt)
    out = []
    for n, mult in enumerate(MULTS):
        for add, ident, term in (mons[n % len(mons)],
                                 mons[(n + 3) % len(mons)]):
            out.append(SemiringSpec(dt, add, mult, ident, term))
    return out


def fold(add, prods, dt):
    acc = prods[0]
    for p in prods[1:]:
        acc = ref_binop(add, acc, p, dt)
    return acc


def check_result(sr, got_v, got_p, want, what):
    """want: {index: [products in order]}; checks presence and values (ANY
    against the products as witnesses)."""
    dt = np.dtype(sr.dtype)
    n = got_p.size
    want_p = np.zeros(n, bool)
    want_p[list(want)] = True
    assert_same_arrays(got_p, want_p, what + " present")
    for i, prods in want.items():
        got = got_v[i]
        if sr.add == oc.ANY:
            ok = any(same(got, p) for p in prods)
        else:
            ok = same(got, fold(sr.add, prods, dt))
        assert ok, (f"{what}: entry {i}: got {got!r}, want "
                    f"{fold(sr.add, prods, dt)!r} from products {prods}")


# ----------------------------------------------------------------------------
# scalar semantics, through ewise / unary
# ----------------------------------------------------------------------------

def all_pairs(dt):
    sp = special_values(dt)
    x = np.array([a for a in sp for b in sp], dt)
    y = np.array([b for a in sp for b in sp], dt)
    return x, y


@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_ewise_every_code(dt, rng):
    x, y = all_pairs(dt)
    rx, ry = rand_values(rng, dt, 200), rand_values(rng, dt, 200)
    x, y = np.concatenate([x, rx]), np.concatenate([y, ry])
    for code in BINARY:
        got = ewise(code, x, y)
        want = np.array([ref_binop(code, a, b, dt) for a, b in zip(x, y)], dt)
        assert_same_arrays(got, want, f"ewise {NAMES[code]} {dt}")
    got = ewise(oc.PLUS, x, y, parallel=True)  # thread-pool variant
    assert_same_arrays(got, ewise(oc.PLUS, x, y), f"ewise parallel {dt}")


@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_unary_every_code(dt, rng):
    x = np.concatenate([np.array(special_values(dt), dt),
                        rand_values(rng, dt, 100)])
    for code in UNARY:
        if code == oc.BNOT and dt.kind not in "iu":
            with pytest.raises(ValueError, match="BNOT"):
                unary(code, x)
            continue
        got = unary(code, x)
        want = np.array([ref_unop(code, a, dt) for a in x], dt)
        assert_same_arrays(got, want, f"unary {UNAMES[code]} {dt}")


def test_int8_wraps_per_operation():
    i8 = np.dtype(np.int8)
    x = np.array([100, 127, -128, -128, 64], i8)
    y = np.array([100, 1, -1, 1, 2], i8)
    assert ewise(oc.PLUS, x, y).tolist() == [-56, -128, 127, -127, 66]
    assert ewise(oc.TIMES, x, y).tolist() == [16, 127, -128, -128, -128]
    assert ewise(oc.MINUS, x, y).tolist() == [0, 126, -127, 127, 62]
    # MIN_PLUS: each product wraps before the MIN (not widened then cast)
    A = CSR(np.array([0, 2], np.int32), np.array([0, 1], np.int32),
            np.array([100, 1], i8), 1, 2)
    sr = SemiringSpec(i8, oc.MIN, oc.PLUS, 127, -128)
    t, p = spmv_pull(A, np.array([100, 5], i8), pack_bits([1, 1]), None, sr)
    assert p.tolist() == [True] and t.tolist() == [-56]  # min(-56, 6)
    # reductions wrap at every step
    s = reduce_segments(np.array([0, 4]), np.array([127, 1, -1, 1], i8),
                        oc.PLUS, 0)
    assert s.tolist() == [-128]


def test_division_rules():
    i8, u8 = np.dtype(np.int8), np.dtype(np.uint8)
    x = np.array([7, -7, 7, -7, 0, 5, -5, -128, -128], i8)
    y = np.array([2, 2, -2, -2, 0, 0, 0, -1, 3], i8)
    # C division truncates toward zero; x/0 saturates by the sign of x
    assert ewise(oc.DIV, x, y).tolist() == [3, -3, -3, 3, 0, 127, -128,
                                            -128, -42]
    assert ewise(oc.DIV, np.array([0, 9, 255], u8),
                 np.array([0, 0, 2], u8)).tolist() == [0, 255, 127]
    f = ewise(oc.DIV, np.array([1.0, -1.0, 0.0]), np.zeros(3))
    assert f[0] == np.inf and f[1] == -np.inf and np.isnan(f[2])
    assert unary(oc.MINV, np.array([0, 1, -1, 2, -128], i8)).tolist() == [
        127, 1, -1, 0, 0]
    assert unary(oc.ABS, np.array([-128, -5], i8)).tolist() == [-128, 5]
    assert unary(oc.AINV, np.array([3], np.uint8)).tolist() == [253]


def test_bool_rules():
    b = np.dtype(bool)
    x = np.array([False, False, True, True])
    y = np.array([False, True, False, True])
    table = {oc.PLUS: [0, 1, 1, 1], oc.MINUS: [0, 1, 1, 0],
             oc.RMINUS: [0, 1, 1, 0], oc.TIMES: [0, 0, 0, 1],
             oc.DIV: [0, 0, 1, 1], oc.RDIV: [0, 1, 0, 1],
             oc.MIN: [0, 0, 0, 1], oc.MAX: [0, 1, 1, 1],
             oc.GT: [0, 0, 1, 0], oc.EQ: [1, 0, 0, 1]}
    for code, want in table.items():
        got = ewise(code, x, y)
        assert got.dtype == b and got.tolist() == [bool(w) for w in want], \
            NAMES[code]


def test_float_min_max_ignore_nan():
    nan = np.nan
    x = np.array([nan, 1.0, nan, -np.inf], np.float32)
    y = np.array([2.0, nan, nan, 3.0], np.float32)
    mn, mx = ewise(oc.MIN, x, y), ewise(oc.MAX, x, y)
    assert mn.dtype == np.float32
    assert mn[:2].tolist() == [2.0, 1.0] and np.isnan(mn[2])
    assert mn[3] == -np.inf
    assert mx[:2].tolist() == [2.0, 1.0] and np.isnan(mx[2]) and mx[3] == 3.0
    s = reduce_segments(np.array([0, 3]), np.array([nan, 5.0, nan]),
                        oc.MIN, np.inf)
    assert s.tolist() == [5.0]


def test_launchers_reject_bad_codes():
    x = np.ones(3)
    with pytest.raises(ValueError, match="positional"):
        ewise(oc.FIRSTI, x, x)
    with pytest.raises(ValueError, match="monoid"):
        reduce_segments(np.array([0, 3]), x, oc.MINUS, 0)
    with pytest.raises(ValueError):
        ewise(oc.PLUS, x, np.ones(4))


def test_reference_matches_suitesparse():
    """Our reference scalar semantics agree with SuiteSparse:GraphBLAS."""
    gb = pytest.importorskip("graphblas")
    for dt in DTYPES:
        x, y = all_pairs(dt)
        n = x.size
        gx = gb.Vector.from_coo(np.arange(n), x, dtype=dt, size=n)
        gy = gb.Vector.from_coo(np.arange(n), y, dtype=dt, size=n)
        ops = {oc.PLUS: "plus", oc.MINUS: "minus", oc.RMINUS: "rminus",
               oc.TIMES: "times", oc.DIV: "cdiv", oc.RDIV: "rdiv",
               oc.MIN: "min", oc.MAX: "max", oc.FIRST: "first",
               oc.SECOND: "second", oc.PAIR: "pair"}
        for code, name in ops.items():
            op = getattr(gb.binary, name)[gb.dtypes.lookup_dtype(dt)]
            ref = gx.ewise_mult(gy, op).new(dtype=dt)
            _, want = ref.to_coo()
            got = np.array([ref_binop(code, a, b, dt) for a, b in zip(x, y)],
                           dt)
            if dt.kind == "f" and code in (oc.MIN, oc.MAX):
                # C fmin/fmax may give either zero for (-0.0, 0.0)
                zeros = (x == 0) & (y == 0)
                got, want = got[~zeros], want[~zeros]
            assert_same_arrays(got, want.astype(dt), f"ref {name} {dt}")


# ----------------------------------------------------------------------------
# mxv: pull and push
# ----------------------------------------------------------------------------

def ref_mxv(A, x_values, x_present, allowed, sr, flipped):
    """{i: [products in k order]} of t = A (+).(x) x (or flipped)."""
    dt = np.dtype(sr.dtype)
    out = {}
    for i, row in enumerate(csr_rows(A, dt)):
        if allowed is not None and not allowed[i]:
            continue
        prods = []
        for k, a in row:
            if not x_present[k]:
                continue
            if flipped:
                prods.append(ref_mult(sr.mult, x_values[k], a, 0, k, i, dt))
            else:
                prods.append(ref_mult(sr.mult, a, x_values[k], i, k, 0, dt))
        if prods:
            out[i] = prods
    return out


def transpose(A):
    """A' as a CSR of the same index dtype (values moved along)."""
    rows = np.repeat(np.arange(A.nrows), np.diff(A.indptr))
    order = np.lexsort((rows, A.indices))
    indptr = np.zeros(A.ncols + 1, A.indptr.dtype)
    indptr[1:] = np.cumsum(np.bincount(A.indices, minlength=A.ncols))
    values = None if A.values is None else A.values[order]
    return CSR(indptr, rows[order].astype(A.indices.dtype), values, A.ncols,
               A.nrows)


def mxv_cases(rng, dt, index_dtype=np.int32):
    """A few (A, x_values, x_present, allowed) inputs: dense-ish and sparse,
    iso and valued, with and without an allowed bitmap."""
    cases = []
    for nrows, ncols, density, iso, use_allowed in (
            (13, 40, 0.3, False, False), (37, 9, 0.5, True, True),
            (33, 33, 0.15, False, True), (5, 70, 0.05, True, False)):
        A = rand_csr(rng, nrows, ncols, density, dt, index_dtype, iso)
        x_values = rand_values(rng, dt, ncols)
        x_present = rng.random(ncols) < 0.7
        allowed = rng.random(nrows) < 0.7 if use_allowed else None
        cases.append((A, x_values, x_present, allowed))
    return cases


@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_spmv_pull(dt, rng):
    for A, xv, xp, allowed in mxv_cases(rng, dt):
        bm = None if allowed is None else pack_bits(allowed)
        for sr in semirings(dt):
            for flipped in (False, True):
                what = (f"pull {dt} add={NAMES.get(sr.add)} "
                        f"mult={NAMES[sr.mult]} flipped={flipped} "
                        f"term={sr.terminal} iso={A.values is None}")
                tv, tp = spmv_pull(A, xv, pack_bits(xp), bm, sr, flipped)
                assert tv.dtype == dt and tp.dtype == bool
                check_result(sr, tv, tp, ref_mxv(A, xv, xp, allowed, sr,
                                                 flipped), what)


def fast_pull_cases():
    from bitgraph.kernels.cpu.spmv_csr import _FAST

    return [(add, mult, dt) for (add, mult), (_, dts) in _FAST.items() for dt in dts]


@pytest.mark.parametrize("add,mult,dt", fast_pull_cases(),
                         ids=[f"{a}-{m}-{d}" for a, m, d in fast_pull_cases()])
def test_spmv_pull_constant_code_kernels(add, mult, dt, rng):
    """The hot pairs run a kernel compiled with constant op codes: it must
    equal the reference (and so the generic kernel), serial and parallel."""
    from bitgraph.kernels.cpu.spmv_csr import _rows_kernel, _spmv_pull_rows

    assert _rows_kernel(dt, add, mult) is not _spmv_pull_rows
    mons = {m[0]: m for m in monoids(dt)}
    _, ident, term = mons[add]
    for sr in (SemiringSpec(dt, add, mult, ident, term), SemiringSpec(dt, add, mult, ident, None)):
        for A, xv, xp, allowed in mxv_cases(rng, dt):
            bm = None if allowed is None else pack_bits(allowed)
            for flipped in (False, True):
                for parallel in (False, True):
                    tv, tp = spmv_pull(A, xv, pack_bits(xp), bm, sr, flipped, parallel=parallel)
                    check_result(sr, tv, tp, ref_mxv(A, xv, xp, allowed, sr, flipped),
                                 f"fast pull {dt} add={NAMES.get(add)} mult={NAMES[mult]} "
                                 f"flipped={flipped} parallel={parallel}")


@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_spmspv_push(dt, rng):
    for A, xv, xp, allowed in mxv_cases(rng, dt):
        AT = transpose(A)
        bm = None if allowed is None else pack_bits(allowed)
        x_indices = np.flatnonzero(xp)
        for sr in semirings(dt):
            for flipped in (False, True):
                what = (f"push {dt} add={NAMES.get(sr.add)} "
                        f"mult={NAMES[sr.mult]} flipped={flipped} "
                        f"term={sr.terminal} iso={A.values is None}")
                tv, tp = spmspv_push(AT, x_indices, xv, bm, sr, flipped,
                                     A.nrows)
                assert tv.dtype == dt and tp.dtype == bool
                check_result(sr, tv, tp, ref_mxv(A, xv, xp, allowed, sr,
                                                 flipped), what)


def test_terminal_stops_early():
    """LOR with terminal True stops a row at its first True; ANY at its first
    product; results equal those without the terminal."""
    rng = np.random.default_rng(7)
    A = rand_csr(rng, 50, 50, 0.3, np.dtype(bool), iso=True)
    xp = rng.random(50) < 0.5
    xv = np.ones(50, bool)
    with_t = SemiringSpec(np.dtype(bool), oc.LOR, oc.LAND, False, True)
    without = with_t._replace(terminal=None)
    a = spmv_pull(A, xv, pack_bits(xp), None, with_t)
    b = spmv_pull(A, xv, pack_bits(xp), None, without)
    assert_same_arrays(a[0], b[0], "lor terminal")
    assert_same_arrays(a[1], b[1], "lor terminal present")
    # the first product is taken with ANY: FIRSTJ gives the smallest k
    sr = SemiringSpec(np.dtype(np.int64), oc.ANY, oc.FIRSTJ, 0, None)
    A64 = A._replace(values=None)
    tv, tp = spmv_pull(A64, np.ones(50, np.int64), pack_bits(xp), None, sr)
    for i, row in enumerate(csr_rows(A64, np.dtype(np.int64))):
        ks = [k for k, _ in row if xp[k]]
        assert tp[i] == bool(ks) and (not ks or tv[i] == ks[0])


@pytest.mark.parametrize("dt", [np.dtype(np.float64), np.dtype(np.int8)],
                         ids=["float64", "int8"])
def test_mxv_int64_indices_and_parallel(dt, rng):
    for index_dtype in (np.int32, np.int64):
        for A, xv, xp, allowed in mxv_cases(rng, dt, index_dtype):
            bm = None if allowed is None else pack_bits(allowed)
            for sr in semirings(dt)[::3]:
                want = ref_mxv(A, xv, xp, allowed, sr, False)
                for parallel in (False, True):
                    tv, tp = spmv_pull(A, xv, pack_bits(xp), bm, sr,
                                       parallel=parallel)
                    check_result(sr, tv, tp, want,
                                 f"pull {index_dtype} parallel={parallel}")
                tv, tp = spmspv_push(transpose(A), np.flatnonzero(xp), xv, bm,
                                     sr, False, A.nrows)
                check_result(sr, tv, tp, want, f"push {index_dtype}")


def test_parallel_pull_many_chunks(monkeypatch, rng):
    """The thread-pool variant on many small chunks equals the serial one."""
    import bitgraph.kernels.cpu.spmv_csr as mod
    monkeypatch.setattr(mod, "indptr_chunks",
                        lambda indptr: indptr_chunks(indptr, nchunks=17))
    dt = np.dtype(np.float64)
    A = rand_csr(rng, 300, 200, 0.05, dt)
    xv = rand_values(rng, dt, 200, small=True)
    bm = pack_bits(rng.random(200) < 0.5)
    sr = SemiringSpec(dt, oc.PLUS, oc.TIMES, 0.0, None)
    a = spmv_pull(A, xv, bm, None, sr, parallel=True)
    b = spmv_pull(A, xv, bm, None, sr, parallel=False)
    assert_same_arrays(a[0], b[0], "parallel values")
    assert_same_arrays(a[1], b[1], "parallel present")


# ----------------------------------------------------------------------------
# mxm
# ----------------------------------------------------------------------------

def ref_mxm(A, B, M, complement, sr):
    """{(i, j): [products in k order]} of C<M> = A (+).(x) B."""
    dt = np.dtype(sr.dtype)
    brows = csr_rows(B, dt)
    mset = None
    if M is not None:
        mset = {(i, j) for i, row in enumerate(csr_rows(M, dt))
                for j, _ in row}
    out = {}
    for i, row in enumerate(csr_rows(A, dt)):
        for k, a in row:
            for j, b in brows[k]:
                if mset is not None and ((i, j) in mset) == complement:
                    continue
                out.setdefault((i, j), []).append(
                    ref_mult(sr.mult, a, b, i, k, j, dt))
    return out


def check_mxm(sr, C, want, nrows, index_dtype, what):
    indptr, indices, values = C
    dt = np.dtype(sr.dtype)
    assert indptr.dtype == index_dtype and indices.dtype == index_dtype, what
    assert values.dtype == dt and indptr.size == nrows + 1, what
    assert indptr[0] == 0 and np.all(np.diff(indptr) >= 0), what
    got = {}
    for i in range(nrows):
        cols = indices[indptr[i]:indptr[i + 1]]
        assert np.all(np.diff(cols) > 0), f"{what}: row {i} not sorted"
        for p in range(indptr[i], indptr[i + 1]):
            got[(i, int(indices[p]))] = values[p]
    assert set(got) == set(want), (
        f"{what}: pattern differs: extra {sorted(set(got) - set(want))[:5]},"
        f" missing {sorted(set(want) - set(got))[:5]}")
    for key, prods in want.items():
        if sr.add == oc.ANY:
            ok = any(same(got[key], p) for p in prods)
        else:
            ok = same(got[key], fold(sr.add, prods, dt))
        assert ok, (f"{what}: C{key}: got {got[key]!r}, want "
                    f"{fold(sr.add, prods, dt)!r} from {prods}")


def mxm_cases(rng, dt, index_dtype=np.int32):
    cases = []
    for n, m, p, da, db, iso_a, iso_b in (
            (12, 9, 14, 0.3, 0.3, False, False),
            (20, 20, 20, 0.15, 0.2, True, False),
            (7, 30, 5, 0.2, 0.4, False, True),
            (25, 6, 25, 0.4, 0.5, True, True)):
        A = rand_csr(rng, n, m, da, dt, index_dtype, iso_a)
        B = rand_csr(rng, m, p, db, dt, index_dtype, iso_b)
        M = rand_csr(rng, n, p, 0.4, dt, index_dtype, iso=True)
        cases.append((A, B, M))
    return cases


@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_spgemm(dt, rng):
    for n, (A, B, M) in enumerate(mxm_cases(rng, dt)):
        for s, sr in enumerate(semirings(dt)):
            # every semiring unmasked; the masks in turn
            modes = [(None, False)]
            if (n + s) % 3:
                modes.append((M, (n + s) % 3 == 2))
            for mk, cp in modes:
                what = (f"mxm {dt} add={NAMES.get(sr.add)} "
                        f"mult={NAMES[sr.mult]} mask={mk is not None} "
                        f"complement={cp} term={sr.terminal}")
                C = spgemm(A, B, mk, cp, sr)
                check_mxm(sr, C, ref_mxm(A, B, mk, cp, sr), A.nrows,
                          np.dtype(np.int32), what)


@pytest.mark.parametrize("dt", [np.dtype(np.float64), np.dtype(np.int8)],
                         ids=["float64", "int8"])
def test_spgemm_int64_indices_masks_parallel(dt, rng):
    for index_dtype in (np.int32, np.int64):
        for A, B, M in mxm_cases(rng, dt, index_dtype):
            for sr in semirings(dt)[::4]:
                for mk, cp in ((None, False), (M, False), (M, True)):
                    want = ref_mxm(A, B, mk, cp, sr)
                    for parallel in (False, True):
                        C = spgemm(A, B, mk, cp, sr, parallel=parallel)
                        check_mxm(sr, C, want, A.nrows, np.dtype(index_dtype),
                                  f"mxm {index_dtype} mask={mk is not None} "
                                  f"complement={cp} parallel={parallel}")


@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_spgemm_dot(dt, rng):
    """The masked dot-product kernel (B given as B') equals the reference on
    every semiring, in both index dtypes, serial and parallel."""
    from bitgraph.formats.csr import transpose
    from bitgraph.kernels.cpu.spgemm_dot import spgemm_dot

    for index_dtype in (np.int32, np.int64):
        for A, B, M in mxm_cases(rng, dt, index_dtype):
            BT = transpose(B)
            BT = BT._replace(indptr=BT.indptr.astype(index_dtype), indices=BT.indices.astype(index_dtype))
            sems = semirings(dt) if index_dtype == np.int32 else semirings(dt)[::4]
            for sr in sems:
                want = ref_mxm(A, B, M, False, sr)
                for parallel in (False, True):
                    C = spgemm_dot(A, BT, M, sr, parallel=parallel)
                    check_mxm(sr, C, want, A.nrows, np.dtype(index_dtype),
                              f"mxm(dot) {dt} {np.dtype(index_dtype)} add={NAMES.get(sr.add)} "
                              f"mult={NAMES[sr.mult]} parallel={parallel}")


def test_spgemm_dense_rows_and_triangles(rng):
    """Rows denser than ncols/16 (workspace scan), sparse ones (sort), and the
    triangle count C<L> = L plus_pair L' against numpy."""
    dt = np.dtype(np.int64)
    A = rand_csr(rng, 30, 30, 0.6, dt)
    B = rand_csr(rng, 30, 30, 0.6, dt)
    sr = SemiringSpec(dt, oc.PLUS, oc.TIMES, 0, None)
    check_mxm(sr, spgemm(A, B, None, False, sr),
              ref_mxm(A, B, None, False, sr), 30, np.dtype(np.int32),
              "dense rows")
    # wide and sparse: rows sorted by _sort_range (cnt * 16 <= ncols)
    A = rand_csr(rng, 20, 30, 0.3, dt)
    B = rand_csr(rng, 30, 3000, 0.005, dt)
    M = rand_csr(rng, 20, 3000, 0.01, dt, iso=True)
    for mk, cp in ((None, False), (M, True)):
        for parallel in (False, True):
            check_mxm(sr, spgemm(A, B, mk, cp, sr, parallel=parallel),
                      ref_mxm(A, B, mk, cp, sr), 20, np.dtype(np.int32),
                      "sorted rows")
    n = 60
    upper = np.triu(rng.random((n, n)) < 0.2, 1)
    adj = upper | upper.T
    L = np.tril(adj, -1)
    rows, cols = np.nonzero(L)
    Lc = CSR(np.concatenate([[0], np.cumsum(L.sum(1))]).astype(np.int32),
             cols.astype(np.int32), None, n, n)
    Lt = transpose(Lc)
    sr = SemiringSpec(dt, oc.PLUS, oc.PAIR, 0, None)
    for parallel in (False, True):
        indptr, indices, values = spgemm(Lc, Lt, Lc, False, sr,
                                         parallel=parallel)
        ntri = int(values.sum())
        a = adj.astype(np.int64)
        assert ntri == int(np.trace(a @ a @ a)) // 6


def test_empty_inputs():
    """0 rows, 0 columns, no entries: every launcher returns empty results."""
    dt = np.dtype(np.float64)
    sr = SemiringSpec(dt, oc.PLUS, oc.TIMES, 0.0, None)
    z32 = np.zeros(0, np.int32)
    for nrows, ncols in ((0, 0), (0, 5), (4, 0), (4, 5)):
        A = CSR(np.zeros(nrows + 1, np.int32), z32, np.zeros(0), nrows, ncols)
        B = CSR(np.zeros(ncols + 1, np.int32), z32, None, ncols, 3)
        for parallel in (False, True):
            tv, tp = spmv_pull(A, np.zeros(ncols), pack_bits(np.ones(ncols)),
                               None, sr, parallel=parallel)
            assert tv.shape == (nrows,) and not tp.any()
            ip, ix, v = spgemm(A, B, None, False, sr, parallel=parallel)
            assert ip.tolist() == [0] * (nrows + 1) and ix.size == v.size == 0
        tv, tp = spmspv_push(transpose(A), np.zeros(0, np.int64),
                             np.zeros(ncols), None, sr, False, nrows)
        assert tv.shape == (nrows,) and not tp.any()
    assert ewise(oc.PLUS, np.zeros(0), np.zeros(0)).shape == (0,)
    assert reduce_segments(np.array([0]), np.zeros(0), oc.PLUS, 0).size == 0


# ----------------------------------------------------------------------------
# reduce
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=DT_IDS)
def test_reduce_segments(dt, rng):
    for index_dtype in (np.int32, np.int64):
        lens = rng.integers(0, 6, 40)
        lens[:3] = 0
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(index_dtype)
        values = rand_values(rng, dt, int(indptr[-1]))
        for add, ident, term in monoids(dt):
            for t in (None, term):
                for parallel in (False, True):
                    got = reduce_segments(indptr, values, add, ident, t,
                                          parallel=parallel)
                    assert got.dtype == dt
                    for r in range(lens.size):
                        seg = list(values[indptr[r]:indptr[r + 1]])
                        if not seg:
                            assert same(got[r], dt.type(ident))
                        elif add == oc.ANY:
                            assert any(same(got[r], v) for v in seg)
                        else:
                            want = fold(add, seg, dt)
                            assert same(got[r], want), (
                                f"reduce {dt} {NAMES[add]} segment {r}: got "
                                f"{got[r]!r}, want {want!r} from {seg}")
    # one segment: a vector to a scalar
    v = rand_values(rng, dt, 100)
    ident = {add: i for add, i, _ in monoids(dt)}[oc.MAX]
    s = reduce_segments(np.array([0, 100]), v, oc.MAX, ident)
    assert same(s[0], fold(oc.MAX, list(v), dt))


# ----------------------------------------------------------------------------
# registry, warm-up, import hygiene
# ----------------------------------------------------------------------------

def test_registry_table_and_lookup():
    rows = registry.table("cpu")
    keys = {r[:4] for r in rows}
    for key in (("mxv", "csr", "cpu", "pull"), ("mxv", "csr", "cpu", "push"),
                ("mxm", "csr", "cpu", "gustavson"),
                ("ewise", "dense", "cpu", "binop"),
                ("unary", "dense", "cpu", "unop"),
                ("reduce", "csr", "cpu", "segments")):
        assert key in keys
    assert registry.lookup("ewise", fmt="dense", device="cpu",
                           variant="binop") is ewise_mod.ewise
    with pytest.raises(KeyError, match="no kernel"):
        registry.lookup("mxv", fmt="csr", device="cpu", variant="nope")
    out = subprocess.run([sys.executable, "-m", "bitgraph.kernels"],
                         capture_output=True, text=True, check=True).stdout
    assert "spmv_pull" in out and "gustavson" in out


def test_import_does_not_load_numba():
    code = ("import sys, bitgraph.kernels, bitgraph.kernels.registry, "
            "bitgraph.kernels.cpu, bitgraph.kernels.opcodes; "
            "assert 'numba' not in sys.modules, 'numba imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_warmup_importable(capsys):
    from bitgraph.kernels.warmup import warmup
    sec = warmup(1, 2, dtypes=["float64", "int8"])
    assert sec >= 0
    assert "shard 1/2" in capsys.readouterr().out
    with pytest.raises(ValueError):
        warmup(2, 2)


def test_sort_range(rng):
    """The row sort of mxm, on unique and duplicate-heavy ranges."""
    from bitgraph.kernels.cpu.spgemm_csr import _sort_range
    for n in list(range(0, 40)) + [100, 257, 1000, 5000]:
        for high in (3, 10 * n + 1):
            for dtype in (np.int32, np.int64):
                a = rng.integers(0, high, n + 10).astype(dtype)
                want = a.copy()
                want[5:5 + n] = np.sort(want[5:5 + n])
                _sort_range(a, np.uint64(5), np.uint64(5 + n))
                assert np.array_equal(a, want), (n, high)
    for a in (np.arange(3000, dtype=np.int32),
              np.arange(3000, 0, -1).astype(np.int32),
              np.zeros(3000, np.int32)):
        want = np.sort(a)
        _sort_range(a, np.uint64(0), np.uint64(a.size))
        assert np.array_equal(a, want)


def test_chunks_cover_rows(rng):
    for nrows in (0, 1, 5, 1000):
        lens = rng.integers(0, 50, nrows)
        lens[: nrows // 3] = 0
        indptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32)
        for nchunks in (1, 3, 8, 5000):
            for chunks in (indptr_chunks(indptr, nchunks),
                           row_chunks(lens + 1, nchunks)):
                assert chunks[0] == 0 and chunks[-1] == nrows
                assert np.all(np.diff(chunks) > 0) or nrows == 0
                assert chunks.size - 1 <= max(1, nchunks)


def test_read_only_inputs_use_the_same_specialisation(rng):
    """A read-only input is passed as a writeable alias: no new numba
    specialisation, same result, input untouched."""
    from bitgraph.kernels.cpu import spmv_csr
    dt = np.dtype(np.float64)
    A = rand_csr(rng, 20, 20, 0.2, dt)
    xv = rand_values(rng, dt, 20, small=True)
    bm = pack_bits(np.ones(20))
    sr = SemiringSpec(dt, oc.PLUS, oc.TIMES, 0.0, None)
    want = spmv_pull(A, xv, bm, None, sr)
    nsig = len(spmv_csr._spmv_pull_rows.signatures)
    for a in (A.indptr, A.indices, A.values, xv, bm):
        a.flags.writeable = False
    got = spmv_pull(A, xv, bm, None, sr)
    assert len(spmv_csr._spmv_pull_rows.signatures) == nsig
    assert_same_arrays(got[0], want[0], "read-only")
    assert not A.values.flags.writeable


def test_parallel_map_here():
    """parallel_map_here: every range's result in range order, the calling
    thread one of the workers; an error in any range is raised once every
    worker is done."""
    from numba import njit

    from bitgraph.kernels.cpu import parallel_map_here

    @njit(nogil=True)
    def span(r0, r1, a):
        if r0 == np.uint64(a.size) - 1:
            raise ValueError("the last range")
        return (int(r0), int(r1))

    chunks = np.array([0, 1, 3, 4, 9, 10])
    assert parallel_map_here(span, chunks, np.zeros(11)) == [(0, 1), (1, 3), (3, 4), (4, 9),
                                                             (9, 10)]
    assert parallel_map_here(span, np.array([0, 7]), np.zeros(11)) == [(0, 7)]
    with pytest.raises(ValueError, match="last range"):
        parallel_map_here(span, np.array([0, 2, 5, 9, 10]), np.zeros(10))
