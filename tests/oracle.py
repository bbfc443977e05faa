"""The test oracle: python-graphblas (SuiteSparse:GraphBLAS) as the reference.

One module (STYLE.md 7) that

* converts bitgraph objects to and from python-graphblas through ``to_coo`` /
  ``from_coo`` only (so the core's own ``from_graphblas`` / ``to_graphblas``
  are tested separately, against these);
* looks operators up typed the way python-graphblas does
  (``gb.semiring.plus_times[unify(a, b)]``); ``None`` means python-graphblas
  does not define that operator on that dtype;
* computes reference results: ``ref_*`` functions take python-graphblas
  inputs and return an ``Expected``;
* checks a bitgraph result with ``assert_same(ours, expected, op_info=...)``:
  invariants first (kind, shape, dtype, sorted unique int64 indices, nvals,
  bitmap padding), then values.

Values are compared exactly (integers, bool, MIN/MAX/FIRST/SECOND/ANY_PAIR,
every elementwise op), except:

* ANY monoids (other than with PAIR): the result is non-unique; every value
  must be one of the candidate products (a "witness"). Likewise the ANY binary
  op (ewise, apply, accum): either operand.
* float PLUS / TIMES monoids: SuiteSparse sums in another order. The oracle
  computes every term, proves the sum exact when it can (integer-valued terms
  below 2**mantissa) and otherwise allows a rounding interval; the interval is
  pushed through accum / mask / typecast by evaluating the final result at the
  interval's ends (and at 0 / the old value where the interval contains them)
  and taking the hull. Positions whose finite terms could overflow are skipped.

It also holds the device parameter (``DEVICES``, ``on_device``, ``to_host``):
a test body written once runs on the CPU and, where CUDA is usable, on the
GPU (STYLE.md 22).
"""

from __future__ import annotations

import contextlib
import functools
import os
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest


class _Missing:
    """Stands for python-graphblas where it is not installed (the GPU machine
    has none): importing the oracle for its device helpers works; using a
    reference fails naming the package."""

    def __init__(self, error):
        self._error = error

    def __getattr__(self, name):
        raise ImportError(f"the test oracle needs python-graphblas (pip install -e '.[test]'): "
                          f"{self._error}")


try:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import graphblas as gb
        from graphblas import dtypes as gdt
except ImportError as e:
    gb = gdt = _Missing(e)

# --------------------------------------------------------------------------------------
# dtypes
# --------------------------------------------------------------------------------------
DTYPE_NAMES = (
    "bool", "int8", "int16", "int32", "int64",
    "uint8", "uint16", "uint32", "uint64", "float32", "float64",
)
DTYPES = tuple(np.dtype(n) for n in DTYPE_NAMES)
INT_DTYPES = tuple(d for d in DTYPES if d.kind in "iu")
FLOAT_DTYPES = tuple(d for d in DTYPES if d.kind == "f")
BOOL = np.dtype(bool)


def gbt(dt):
    """numpy dtype (or name) -> python-graphblas dtype."""
    return gdt.lookup_dtype(np.dtype(dt))


def npt(t) -> np.dtype:
    """python-graphblas dtype -> numpy dtype."""
    return np.dtype(t.np_type)


def unify(*dts) -> np.dtype:
    """python-graphblas's ``dtypes.unify`` over numpy dtypes."""
    t = gbt(dts[0])
    for d in dts[1:]:
        t = gdt.unify(t, gbt(d))
    return npt(t)


def scalar_dtype(s) -> np.dtype:
    """The dtype a scalar argument has: bool -> bool, int -> int64, float -> float64."""
    if isinstance(s, (bool, np.bool_)):
        return BOOL
    if isinstance(s, np.generic):
        return s.dtype
    if isinstance(s, int):
        return np.dtype(np.int64)
    if isinstance(s, float):
        return np.dtype(np.float64)
    raise TypeError(f"not a scalar: {s!r}")


def gb_scalar(s, dtype=None):
    dt = scalar_dtype(s) if dtype is None else np.dtype(dtype)
    return gb.Scalar.from_value(s, dtype=gbt(dt))


# --------------------------------------------------------------------------------------
# operator names and typed lookup
# --------------------------------------------------------------------------------------
MONOIDS = ("plus", "times", "min", "max", "any", "lor", "land", "lxor", "eq")
SEMIRING_MULS = (
    "first", "second", "pair", "any", "plus", "minus", "rminus", "times", "cdiv",
    "rdiv", "min", "max", "lor", "land", "lxor", "firsti", "firstj", "secondi", "secondj",
)
BINARY_OPS = (
    "first", "second", "pair", "any", "plus", "minus", "rminus", "times", "cdiv", "rdiv",
    "min", "max", "lor", "land", "lxor", "eq", "ne", "gt", "lt", "ge", "le",
)
UNARY_OPS = ("identity", "ainv", "minv", "abs", "lnot", "one", "bnot")
NAMED_SEMIRINGS = (
    "lor_land", "any_pair", "plus_times", "plus_pair", "min_plus", "max_plus",
    "max_times", "min_times", "min_first", "min_second", "any_secondi", "plus_second",
)
POSITIONAL = ("firsti", "firstj", "secondi", "secondj")
MATRIX_SELECT = (
    "tril", "triu", "diag", "offdiag", "rowle", "rowgt", "colle", "colgt",
    "valueeq", "valuene", "valuegt", "valuege", "valuelt", "valuele",
)
VECTOR_SELECT = ("indexle", "indexgt", "valueeq", "valuene", "valuegt", "valuege", "valuelt", "valuele")
_ALIASES = {"div": "cdiv", "lxnor": "eq"}


def op_name(op) -> str:
    """Canonical lower-case name of an operator given as a string or a bitgraph object."""
    if not isinstance(op, str):
        op = getattr(op, "name")
    op = op.lower()
    if op in _ALIASES:
        return _ALIASES[op]
    if "_" in op:
        m, b = op.split("_", 1)
        return f"{_ALIASES.get(m, m)}_{_ALIASES.get(b, b)}"
    return op


def split_semiring(name):
    m, b = op_name(name).split("_", 1)
    return m, b


def _gb_obj(module, name):
    ss = getattr(module, "ss", None)
    if ss is not None and name in dir(ss):
        return getattr(ss, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(module, name, None)


@functools.lru_cache(maxsize=None)
def _typed(kind, name, dtype):
    module = {"semiring": gb.semiring, "binary": gb.binary, "monoid": gb.monoid,
              "unary": gb.unary, "select": gb.select}[kind]
    obj = _gb_obj(module, name)
    if obj is None:
        return None
    try:
        return obj[gbt(dtype)]
    except (KeyError, TypeError, AttributeError):
        return None


def gb_semiring(name, dtype):
    """Typed python-graphblas semiring, or None where python-graphblas has none.

    A bitgraph semiring name is python-graphblas's untyped semiring: an
    untyped ``<monoid>_pair`` (monoid plus, times, min, max, any) resolves
    to ``[INT64]`` there whatever the operands, so it does here."""
    name = op_name(name)
    if "_" in name and split_semiring(name)[1] == "pair" and split_semiring(name)[0] in PAIR_INT64_MONOIDS:
        dtype = np.int64
    return _typed("semiring", name, np.dtype(dtype))


PAIR_INT64_MONOIDS = ("plus", "times", "min", "max", "any")


def gb_binary(name, dtype):
    return _typed("binary", op_name(name), np.dtype(dtype))


def gb_monoid(name, dtype):
    return _typed("monoid", op_name(name), np.dtype(dtype))


def gb_unary(name, dtype):
    return _typed("unary", op_name(name), np.dtype(dtype))


def gb_select(name, dtype):
    return _typed("select", op_name(name), np.dtype(dtype))


def semiring_result_dtype(name, *dts):
    s = gb_semiring(name, unify(*dts))
    return None if s is None else npt(s.return_type)


# --------------------------------------------------------------------------------------
# conversions (our own, through COO)
# --------------------------------------------------------------------------------------
def is_bg_vector(x):
    return type(x).__name__ == "Vector"


def gb_vector(indices, values, size, dtype):
    dtype = np.dtype(dtype)
    idx = np.asarray(indices, dtype=np.int64)
    vals = np.asarray(values).astype(dtype, copy=False) if values is not None else np.ones(idx.size, dtype)
    if idx.size == 0:
        return gb.Vector(gbt(dtype), size)
    return gb.Vector.from_coo(idx, vals, size=size, dtype=gbt(dtype))


def gb_matrix(rows, cols, values, nrows, ncols, dtype):
    dtype = np.dtype(dtype)
    r = np.asarray(rows, dtype=np.int64)
    c = np.asarray(cols, dtype=np.int64)
    vals = np.asarray(values).astype(dtype, copy=False) if values is not None else np.ones(r.size, dtype)
    if r.size == 0:
        return gb.Matrix(gbt(dtype), nrows, ncols)
    return gb.Matrix.from_coo(r, c, vals, nrows=nrows, ncols=ncols, dtype=gbt(dtype))


def to_gb(x):
    """bitgraph Vector / Matrix (or a .T view) -> python-graphblas, through to_coo
    (a CUDA object's copy on the host)."""
    x = to_host(x)
    if is_bg_vector(x):
        idx, vals = x.to_coo()
        return gb_vector(idx, vals, x.size, x.dtype)
    r, c, vals = x.to_coo()
    return gb_matrix(r, c, vals, x.nrows, x.ncols, x.dtype)


def from_gb(g, bg):
    """python-graphblas -> bitgraph, through from_coo (``bg`` is the bitgraph module)."""
    dt = npt(g.dtype)
    if isinstance(g, gb.Vector):
        idx, vals = g.to_coo()
        return bg.Vector.from_coo(idx.astype(np.int64), vals, size=g.size, dtype=dt)
    r, c, vals = g.to_coo()
    return bg.Matrix.from_coo(r.astype(np.int64), c.astype(np.int64), vals, g.nrows, g.ncols, dtype=dt)


def _keyed(g):
    """(keys, values) of a gb Vector / Matrix, sorted by key (row * ncols + col)."""
    if isinstance(g, gb.Vector):
        idx, vals = g.to_coo()
        return idx.astype(np.int64), vals
    r, c, vals = g.to_coo()
    keys = r.astype(np.int64) * max(g.ncols, 1) + c.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    return keys[order], vals[order]


def _from_keyed(like, keys, values, dtype):
    if isinstance(like, gb.Vector):
        return gb_vector(keys, values, like.size, dtype)
    nc = max(like.ncols, 1)
    return gb_matrix(keys // nc, keys % nc, values, like.nrows, like.ncols, dtype)


def gb_mask(m, kind):
    """python-graphblas mask for a gb object ``m`` and one of
    'value', 'V', 'S', '~value', '~V', '~S' (None -> no mask)."""
    if m is None or kind is None:
        return None
    comp = kind.startswith("~")
    k = kind.lstrip("~")
    mk = m.S if k == "S" else m.V
    return ~mk if comp else mk


def bg_mask(m, kind):
    """The same mask on a bitgraph object."""
    if m is None or kind is None:
        return None
    return {"value": lambda: m, "V": lambda: m.V, "S": lambda: m.S,
            "~value": lambda: ~m, "~V": lambda: ~m.V, "~S": lambda: ~m.S}[kind]()


# --------------------------------------------------------------------------------------
# Expected results
# --------------------------------------------------------------------------------------
@dataclass
class Expected:
    """What a result must be.

    ``alternatives``: a list; each is a list of gb objects with one structure
    (all alternatives share it). An alternative of one object must match
    exactly; one of several objects (a rounding interval evaluated at sample
    points) must lie in their hull. A value is valid when it satisfies one
    alternative. ``skip``: keys whose value is not checked (overflow risk).
    ``scalar``: the result is a reduce-to-scalar (alternatives hold size-1
    vectors; an empty one means "None").
    """

    alternatives: list
    skip: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    scalar: bool = False
    check_dtype: bool = True
    candidates: tuple = None  # (keys, values): a value equal to any candidate of its key is valid

    @classmethod
    def exact(cls, g):
        return cls([[g]])

    @property
    def ref(self):
        return self.alternatives[0][0]


def finish(t, out=None, mask=None, accum=None, replace=False):
    """GraphBLAS output step in python-graphblas: C<mask, replace> accum= t.

    ``t``: gb result of the operation (typed); ``out``: gb object or None (a new
    result of t's dtype and shape); ``mask``: gb mask or None; ``accum``: a
    binary op name or None. Returns a list of finals (two for accum 'any').
    """
    if accum is not None and op_name(accum) == "any":
        return finish(t, out, mask, "first", replace) + finish(t, out, mask, "second", replace)
    if out is None:
        C = gb.Vector(t.dtype, t.size) if isinstance(t, gb.Vector) else gb.Matrix(t.dtype, t.nrows, t.ncols)
    else:
        C = out.dup()
        if C.ss.format.startswith("full"):
            C.ss.config["sparsity_control"] = "sparse"
    acc = None
    if accum is not None:
        acc = gb_binary(accum, unify(npt(C.dtype), npt(t.dtype)))
        assert acc is not None, accum
    C(mask=_safe_mask(mask), accum=acc, replace=bool(replace and mask is not None)) << _not_full(t)
    return [C]


def _not_full(x):
    """Work around SuiteSparse 9.4.5 crashes (segfaults) in C<M> accum= T when T,
    the mask or C is stored full with more than 32 entries (seen: full T with a
    one-entry mask; full value mask with a one-entry T; both with accum and an
    empty C). Storing the operand as sparse avoids that code path."""
    if isinstance(x, (gb.Matrix, gb.Vector)) and x.ss.format.startswith("full"):
        x = x.dup()
        x.ss.config["sparsity_control"] = "sparse"
    return x


def _safe_mask(mask):
    if mask is None:
        return None
    p = _not_full(mask.parent)
    if p is mask.parent:
        return mask
    name = type(mask).__name__
    m = p.S if "Structural" in name else p.V
    return ~m if name.startswith("Complemented") else m


def _finals_for_points(points, out, mask, accum, replace):
    """finish() each t-level point; regroup so that each accum variant is an alternative."""
    per_point = [finish(p, out, mask, accum, replace) for p in points]
    nvar = len(per_point[0])
    return [[pp[v] for pp in per_point] for v in range(nvar)]


_MANT = {np.dtype(np.float32): 24, np.dtype(np.float64): 53}


def _group_ranks(keys):
    """keys sorted; rank of each element inside its run of equal keys."""
    if keys.size == 0:
        return np.zeros(0, np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(keys)) + 1]
    run_id = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, keys.size]))
    return np.arange(keys.size) - starts[run_id]


@dataclass
class AnyTerms:
    """The candidates of an ANY reduction: t_ref's structure, every term (sorted by key)."""

    t: object
    ukeys: np.ndarray
    keys: np.ndarray
    vals: np.ndarray

    def layers(self):
        """Layer r picks each position's r-th candidate (its last one when it has fewer)."""
        grp = np.searchsorted(self.ukeys, self.keys)
        ncand = np.bincount(grp, minlength=self.ukeys.size)
        first = np.r_[0, np.cumsum(ncand)[:-1]]
        tdt = npt(self.t.dtype)
        return [[_from_keyed(self.t, self.ukeys, self.vals[first + np.minimum(r, ncand - 1)], tdt)]
                for r in range(int(ncand.max()))]


def t_alternatives(t_ref, monoid, term_keys=None, term_vals=None):
    """t-level alternatives for a reduction by ``monoid`` whose terms are given.

    Returns (alts, skip_keys, straddle_keys); alts: list of lists of gb objects
    (witness layers for ANY; [lo, ref, hi, ...] points for inexact float sums).
    """
    m = op_name(monoid)
    tdt = npt(t_ref.dtype)
    keys, ref_vals = _keyed(t_ref)
    if term_keys is None or (m not in ("any", "plus", "times")) or (m != "any" and tdt.kind != "f"):
        return [[t_ref]], _NOKEYS, _NOKEYS
    order = np.argsort(term_keys, kind="stable")
    tk, tv = np.asarray(term_keys)[order], np.asarray(term_vals)[order]
    ukeys = np.unique(tk)
    assert np.array_equal(ukeys, keys), "oracle: terms do not cover the result's structure"
    if m == "any":
        ranks = _group_ranks(tk)
        if tk.size == 0 or ranks.max() == 0:
            return [[t_ref]], _NOKEYS, _NOKEYS
        return [AnyTerms(t_ref, ukeys, tk, tv)], _NOKEYS, _NOKEYS
    # inexact float PLUS / TIMES
    grp = np.searchsorted(ukeys, tk)
    n = ukeys.size
    tv64 = tv.astype(np.float64)
    finite = np.isfinite(tv64)
    cnt = np.bincount(grp, minlength=n).astype(np.float64)
    fin = np.where(finite, np.abs(tv64), 0.0)
    integral = np.bincount(grp, weights=(~finite | (np.mod(fin, 1.0) == 0)).astype(float), minlength=n) == cnt
    if m == "plus":
        bound = np.bincount(grp, weights=fin, minlength=n)
        return _plus_alternatives(t_ref, ukeys, ref_vals, bound, cnt, integral)
    eps = float(np.finfo(tdt).eps)
    big = float(np.finfo(tdt).max)
    with np.errstate(divide="ignore"):
        lg = np.where(finite & (tv64 != 0), np.log2(np.where(fin > 0, fin, 1.0)), 0.0)
    hi = np.bincount(grp, weights=np.maximum(lg, 0), minlength=n)
    lo = np.bincount(grp, weights=np.minimum(lg, 0), minlength=n)
    lim = math.log2(big) - 2
    tiny = math.log2(float(np.finfo(tdt).tiny)) + _MANT[tdt] + 2
    skip = (hi > lim) | (lo + hi < tiny) | (lo < tiny - lim)
    exact = integral & (hi < _MANT[tdt] - 1) & (lo == 0)
    delta = np.where(exact | skip, 0.0, 2.0 * (cnt + 1) * eps * np.abs(ref_vals.astype(np.float64)))
    return _interval_points(t_ref, ukeys, ref_vals, delta, ukeys[skip])


_NOKEYS = np.zeros(0, np.int64)


def _plus_alternatives(t_ref, ukeys, ref_vals, bound, cnt, integral):
    """PLUS monoid over floats: exact when every term is integral and the sum of
    |terms| stays below 2**mantissa; else an interval of 2 (cnt + 1) eps bound."""
    tdt = npt(t_ref.dtype)
    eps = float(np.finfo(tdt).eps)
    big = float(np.finfo(tdt).max)
    skip = ~(bound < big / 4)
    exact = integral & (bound < 2.0 ** _MANT[tdt])
    delta = np.where(exact | skip, 0.0, 2.0 * (cnt + 1) * eps * bound)
    return _interval_points(t_ref, ukeys, ref_vals, delta, ukeys[skip])


def _interval_points(t_ref, ukeys, ref_vals, delta, skip_keys):
    tdt = npt(t_ref.dtype)
    if not np.any(delta > 0):
        return [[t_ref]], skip_keys, _NOKEYS
    rv = ref_vals.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        lo_v = (rv - delta).astype(tdt)
        hi_v = (rv + delta).astype(tdt)
        lo_v = np.where(delta > 0, np.nextafter(lo_v, tdt.type(-np.inf)), lo_v).astype(tdt)
        hi_v = np.where(delta > 0, np.nextafter(hi_v, tdt.type(np.inf)), hi_v).astype(tdt)
    zero_v = np.where((lo_v <= 0) & (hi_v >= 0), tdt.type(0), ref_vals).astype(tdt)
    pts = [t_ref, _from_keyed(t_ref, ukeys, lo_v, tdt), _from_keyed(t_ref, ukeys, hi_v, tdt),
           _from_keyed(t_ref, ukeys, zero_v, tdt)]
    return [pts], skip_keys, ukeys[(lo_v < 0) & (hi_v > 0)]


def build_expected(t_alts, skip, out, mask, accum, replace, straddle=_NOKEYS):
    """t-level alternatives -> Expected (finals), through finish()."""
    alts = []
    skip = np.asarray(skip, np.int64)
    candidates = None
    expanded = []
    for pts in t_alts:
        if isinstance(pts, AnyTerms):
            if out is None:  # the output step only filters: check membership directly
                candidates = (pts.keys, pts.vals)
                expanded.append([pts.t])
            else:
                expanded.extend(pts.layers())
        else:
            expanded.append(pts)
    for pts in expanded:
        if len(pts) > 1 and out is not None:
            # add the point t = old value where the interval contains it (eq/ne accums)
            tk, tv = _keyed(pts[0])
            lo_k, lo_v = _keyed(pts[1])
            hi_k, hi_v = _keyed(pts[2])
            ok, ov = _keyed(out)
            common, ia, ib = np.intersect1d(tk, ok, return_indices=True)
            oldv = tv.copy()
            with np.errstate(invalid="ignore"):
                oc = ov[ib].astype(np.float64)
                inside = (lo_v[ia].astype(np.float64) <= oc) & (oc <= hi_v[ia].astype(np.float64))
            oldv[ia[inside]] = oc[inside].astype(tv.dtype)
            pts = pts + [_from_keyed(pts[0], tk, oldv, tv.dtype)]
            if accum is not None and op_name(accum) in ("cdiv", "rdiv"):
                skip = np.union1d(skip, straddle)
        alts.extend(_finals_for_points(pts, out, mask, accum, replace))
    return Expected(alts, skip=skip, candidates=candidates)


# --------------------------------------------------------------------------------------
# terms of a semiring product (per shared index k), for witnesses and error bounds
# --------------------------------------------------------------------------------------
def _needs_terms(semiring, t_dtype):
    m, b = split_semiring(semiring)
    if m == "any":
        return b != "pair"
    return m in ("plus", "times") and np.dtype(t_dtype).kind == "f" and b not in POSITIONAL


def _restrict_cols(A, k):
    r, c, v = A.to_coo()
    sel = c == k
    return gb_matrix(r[sel], c[sel], v[sel], A.nrows, A.ncols, npt(A.dtype))


def _restrict_vec(u, k):
    i, v = u.to_coo()
    sel = i == k
    return gb_vector(i[sel], v[sel], u.size, npt(u.dtype))


def _terms(kind, X, Y, sr):
    """All terms x(i,k) (*) y(k,j) as (keys, values) with the any_<mul> semiring
    of sr's input type. kind: 'mxv' (X matrix, Y vector), 'vxm', 'mxm'."""
    m, b = sr.name.split("_", 1) if "_" in sr.name else (None, None)
    anyop = gb_semiring(f"any_{b}", npt(sr.type))
    assert anyop is not None, sr.name
    if kind == "vxm":
        K = X.size
        idx = X.to_coo()[0]
    else:
        K = X.ncols
        idx = np.unique(X.to_coo()[1])
    keys, vals = [], []
    for k in idx.tolist():
        if kind == "mxv":
            tk = _no_hyper(_restrict_cols(X, k)).mxv(Y, anyop).new()
        elif kind == "vxm":
            tk = _restrict_vec(X, k).vxm(_no_hyper(Y), anyop).new()
        else:
            tk = _no_hyper(_restrict_cols(X, k)).mxm(_no_hyper(Y), anyop).new()
        kk, vv = _keyed(tk)
        keys.append(kk)
        vals.append(vv)
    del K
    if not keys:
        return np.zeros(0, np.int64), np.zeros(0, npt(anyop.return_type))
    return np.concatenate(keys), np.concatenate(vals)


_ABS_BOUND = {"times": "plus_times", "first": "plus_first", "second": "plus_second", "pair": "plus_pair",
              "plus": "plus_plus", "minus": "plus_plus", "rminus": "plus_plus", "min": "plus_max",
              "max": "plus_max", "lor": "plus_pair", "land": "plus_pair", "lxor": "plus_pair"}
TERMS_LIMIT = 64  # above this shared dimension, PLUS semirings use the |x| (*) |y| bound


def _abs64(X, sr_type):
    """|X| in FP64, after the cast to the semiring's input type."""
    Xc = _cast_gb(_cast_gb(X, npt(sr_type)), np.float64)
    return Xc.apply(gb.unary.abs[gdt.FP64]).new()


def _plus_bound_alternatives(kind, X, Y, sr, t):
    """Alternatives for a float PLUS semiring from the bound |X| (+).(*) |Y|
    computed in one call (no per-term enumeration)."""
    m, b = sr.name.split("_", 1)
    bsr = gb_semiring(_ABS_BOUND[b], np.float64)
    cnt_sr = gb_semiring("plus_pair", np.float64)
    Xa, Ya = _abs64(X, sr.type), _abs64(Y, sr.type)
    call = {"mxv": lambda S: Xa.mxv(Ya, S), "vxm": lambda S: Xa.vxm(Ya, S), "mxm": lambda S: Xa.mxm(Ya, S)}[kind]
    keys, ref_vals = _keyed(t)
    bk, bound = _keyed(call(bsr).new())
    ck, cnt = _keyed(call(cnt_sr).new())
    assert np.array_equal(bk, keys) and np.array_equal(ck, keys)
    vals = np.concatenate([Xa.to_coo()[-1], Ya.to_coo()[-1]])
    integral = bool(np.all(np.mod(vals[np.isfinite(vals)], 1.0) == 0)) or b in ("pair", "lor", "land", "lxor")
    return _plus_alternatives(t, keys, ref_vals, bound, cnt.astype(np.float64),
                              np.full(keys.size, integral))


def _product_alternatives(kind, X, Y, sr, semiring, t):
    m, b = split_semiring(semiring)
    if not _needs_terms(semiring, npt(t.dtype)):
        return [[t]], _NOKEYS, _NOKEYS
    K = X.size if kind == "vxm" else X.ncols
    if K > TERMS_LIMIT and m == "plus" and b in _ABS_BOUND:
        return _plus_bound_alternatives(kind, X, Y, sr, t)
    tk, tv = _terms(kind, X, Y, sr)
    return t_alternatives(t, m, tk, tv)


def _mat(X, transposed):
    return X.T.new() if transposed else X


def _no_hyper(X):
    """Work around a SuiteSparse 9.4.5 bug: positional multipliers (firsti, ...)
    on a hypersparse matrix give the position in the hyperlist instead of the
    row index (A = one entry at (5, 1): A plus_firsti u gives 0, not 5).
    Returns X stored as plain CSR."""
    if isinstance(X, gb.Matrix) and X.ss.format.startswith("hyper"):
        X = X.dup()
        X.ss.config["sparsity_control"] = "sparse"
    return X


# --------------------------------------------------------------------------------------
# reference operations (python-graphblas inputs; the output step is shared)
# --------------------------------------------------------------------------------------
class Undefined(Exception):
    """python-graphblas defines no such typed operator: bitgraph may raise
    DomainMismatch or compute something, but must not crash otherwise."""


def _semiring_or_undefined(name, *dts):
    s = gb_semiring(name, unify(*dts))
    if s is None:
        raise Undefined(f"{name}[{unify(*dts)}]")
    return s


def ref_mxv(A, u, semiring, *, transpose=False, mask=None, accum=None, replace=False, out=None):
    sr = _semiring_or_undefined(semiring, npt(A.dtype), npt(u.dtype))
    Am = _mat(A, transpose)
    if split_semiring(semiring)[1] in POSITIONAL:
        Am = _no_hyper(Am)
    t = Am.mxv(u, sr).new()
    alts, skip, strad = _product_alternatives("mxv", Am, u, sr, semiring, t)
    return build_expected(alts, skip, out, mask, accum, replace, strad)


def ref_vxm(u, A, semiring, *, transpose=False, mask=None, accum=None, replace=False, out=None):
    sr = _semiring_or_undefined(semiring, npt(u.dtype), npt(A.dtype))
    Am = _mat(A, transpose)
    if split_semiring(semiring)[1] in POSITIONAL:
        Am = _no_hyper(Am)
    t = u.vxm(Am, sr).new()
    alts, skip, strad = _product_alternatives("vxm", u, Am, sr, semiring, t)
    return build_expected(alts, skip, out, mask, accum, replace, strad)


def ref_mxm(A, B, semiring, *, transpose_a=False, transpose_b=False, mask=None, accum=None,
            replace=False, out=None):
    sr = _semiring_or_undefined(semiring, npt(A.dtype), npt(B.dtype))
    Am, Bm = _mat(A, transpose_a), _mat(B, transpose_b)
    if split_semiring(semiring)[1] in POSITIONAL:
        Am, Bm = _no_hyper(Am), _no_hyper(Bm)
    t = Am.mxm(Bm, sr).new()
    alts, skip, strad = _product_alternatives("mxm", Am, Bm, sr, semiring, t)
    return build_expected(alts, skip, out, mask, accum, replace, strad)


def _binop_or_undefined(op, *dts):
    o = gb_binary(op, unify(*dts))
    if o is None:
        raise Undefined(f"{op}[{unify(*dts)}]")
    return o


def ref_ewise(kind, x, y, op, *, mask=None, accum=None, replace=False, out=None):
    """kind: 'add' or 'mult'."""
    dt = unify(npt(x.dtype), npt(y.dtype))
    names = ["first", "second"] if op_name(op) == "any" else [op]
    alts = []
    for nm in names:
        o = _binop_or_undefined(nm, dt)
        t = (x.ewise_add(y, o) if kind == "add" else x.ewise_mult(y, o)).new()
        alts.append([t])
    return build_expected(alts, _NOKEYS, out, mask, accum, replace)


def ref_apply(x, op, *, left=None, right=None, mask=None, accum=None, replace=False, out=None):
    if left is None and right is None:
        o = gb_unary(op, npt(x.dtype))
        if o is None:
            raise Undefined(f"{op}[{npt(x.dtype)}]")
        t = x.apply(o).new()
        return build_expected([[t]], _NOKEYS, out, mask, accum, replace)
    s = left if left is not None else right
    sdt = scalar_dtype(s)
    dt = unify(npt(x.dtype), sdt)
    names = ["first", "second"] if op_name(op) == "any" else [op]
    alts = []
    for nm in names:
        o = _binop_or_undefined(nm, dt)
        sc = gb_scalar(s, sdt)
        t = (x.apply(o, left=sc) if left is not None else x.apply(o, right=sc)).new()
        alts.append([t])
    return build_expected(alts, _NOKEYS, out, mask, accum, replace)


def ref_select(x, op, thunk=0, *, mask=None, accum=None, replace=False, out=None):
    name = op_name(op)
    sel = gb_select(name, npt(x.dtype))
    if sel is None:
        raise Undefined(f"select {name}[{npt(x.dtype)}]")
    if name.startswith("value"):
        th = gb_scalar(thunk, npt(x.dtype))
    else:
        th = int(thunk)
    t = x.select(sel, th).new()
    return build_expected([[t]], _NOKEYS, out, mask, accum, replace)


def _monoid_or_undefined(monoid, dt):
    mo = gb_monoid(monoid, dt)
    if mo is None:
        raise Undefined(f"monoid {monoid}[{dt}]")
    return mo


def _cast_gb(x, dt):
    """x cast to dtype dt, SuiteSparse's casting."""
    dt = np.dtype(dt)
    if npt(x.dtype) == dt:
        return x
    if isinstance(x, gb.Vector):
        y = gb.Vector(gbt(dt), x.size)
    else:
        y = gb.Matrix(gbt(dt), x.nrows, x.ncols)
    y << x
    return y


def ref_reduce(x, monoid="plus", *, by=None, allow_empty=True, mask=None, accum=None, replace=False,
               out=None):
    mo = _monoid_or_undefined(monoid, npt(x.dtype))
    mname = op_name(monoid)
    xc = _cast_gb(x, npt(mo.type))
    if by is None:
        if isinstance(x, gb.Vector):
            s = x.reduce(mo, allow_empty=allow_empty).new()
            keys, vals = _keyed(xc)
            tkeys = np.zeros(keys.size, np.int64)
        else:
            s = x.reduce_scalar(mo, allow_empty=allow_empty).new()
            r, c, vals = xc.to_coo()
            tkeys = np.zeros(r.size, np.int64)
        rdt = npt(mo.return_type)
        t = gb.Vector(gbt(rdt), 1) if s.is_empty else gb_vector([0], np.array([s.value], dtype=rdt), 1, rdt)
        if s.is_empty or tkeys.size == 0:
            exp = Expected([[t]])
        else:
            alts, skip, _ = t_alternatives(t, mname, tkeys, vals)
            if alts and isinstance(alts[0], AnyTerms):
                exp = Expected([[t]], candidates=(alts[0].keys, alts[0].vals))
            else:
                exp = Expected(alts, skip=skip)
        exp.scalar = True
        return exp
    if by == "rows":
        t = x.reduce_rowwise(mo).new()
        r, c, vals = xc.to_coo()
        tkeys = r.astype(np.int64)
    elif by == "cols":
        t = x.reduce_columnwise(mo).new()
        r, c, vals = xc.to_coo()
        tkeys = c.astype(np.int64)
    else:
        raise ValueError(by)
    alts, skip, strad = t_alternatives(t, mname, tkeys, vals)
    return build_expected(alts, skip, out, mask, accum, replace, strad)


def _gb_index(ix):
    if ix is None:
        return slice(None)
    if isinstance(ix, (slice, int, np.integer)):
        return ix
    return np.asarray([int(i) for i in ix], dtype=np.int64)


def ref_extract(x, *index, mask=None, accum=None, replace=False, out=None):
    if isinstance(x, gb.Vector):
        (i,) = index
        t = x[_gb_index(i)].new()
    else:
        i, j = index
        t = x[_gb_index(i), _gb_index(j)].new()
    return build_expected([[t]], _NOKEYS, out, mask, accum, replace)


def ref_assign(out, value, *index, mask=None, accum=None, replace=False):
    """GrB_assign: C<mask, replace>(I, J) accum= value; mask has C's shape."""
    variants = ["first", "second"] if accum is not None and op_name(accum) == "any" else [accum]
    alts = []
    for acc_name in variants:
        C = _not_full(out.dup())
        if isinstance(value, (gb.Vector, gb.Matrix)):
            vdt = npt(value.dtype)
            val = value
        else:
            vdt = scalar_dtype(value)
            val = gb_scalar(value, vdt)
        acc = None if acc_name is None else gb_binary(acc_name, unify(npt(C.dtype), vdt))
        idx = tuple(_gb_index(i) for i in index)
        key = idx[0] if len(idx) == 1 else idx
        C(mask=_safe_mask(mask), accum=acc, replace=bool(replace and mask is not None))[key] << _not_full(val)
        alts.append([C])
    return Expected(alts)


def ref_transpose(A, *, mask=None, accum=None, replace=False, out=None):
    t = A.T.new()
    return build_expected([[t]], _NOKEYS, out, mask, accum, replace)


# --------------------------------------------------------------------------------------
# checking a bitgraph result
# --------------------------------------------------------------------------------------
def _fail(op_info, msg):
    raise AssertionError(f"[{op_info}] {msg}" if op_info else msg)


def check_invariants(ours, *, op_info=""):
    """Invariants of a bitgraph Vector / Matrix; returns (keys, values) sorted."""
    dt = ours.dtype
    if not isinstance(dt, np.dtype):
        _fail(op_info, f"dtype {dt!r} is not a numpy dtype")
    if is_bg_vector(ours):
        idx, vals = ours.to_coo()
        idx = np.asarray(idx)
        vals = np.asarray(vals)
        if idx.dtype != np.int64:
            _fail(op_info, f"Vector.to_coo indices dtype {idx.dtype}, expected int64")
        if idx.size and (np.any(np.diff(idx) <= 0) or idx[0] < 0 or idx[-1] >= ours.size):
            _fail(op_info, f"Vector.to_coo indices not sorted/unique/in range: {idx}")
        if ours.nvals != idx.size or vals.shape != idx.shape:
            _fail(op_info, f"nvals {ours.nvals} vs {idx.size} indices, {vals.shape} values")
        if vals.dtype != dt:
            _fail(op_info, f"to_coo values dtype {vals.dtype} != Vector.dtype {dt}")
        ind = np.asarray(ours.indices())
        if not np.array_equal(ind, idx):
            _fail(op_info, f"indices() {ind} != to_coo()[0] {idx}")
        bm = getattr(ours, "bitmap", None)
        if bm is not None and not callable(bm):
            bm = np.asarray(bm)
            if bm.dtype == np.uint32:
                bits = np.unpackbits(bm.view(np.uint8), bitorder="little")
                if bits[ours.size:].any():
                    _fail(op_info, "Vector bitmap has padding bits set beyond size")
                if int(bits.sum()) != ours.nvals:
                    _fail(op_info, f"bitmap popcount {int(bits.sum())} != nvals {ours.nvals}")
        return idx, vals
    r, c, vals = ours.to_coo()
    r, c, vals = np.asarray(r), np.asarray(c), np.asarray(vals)
    if r.dtype != np.int64 or c.dtype != np.int64:
        _fail(op_info, f"Matrix.to_coo index dtypes {r.dtype}, {c.dtype}, expected int64")
    if not (r.shape == c.shape == vals.shape) or ours.nvals != r.size:
        _fail(op_info, f"to_coo shapes {r.shape} {c.shape} {vals.shape}, nvals {ours.nvals}")
    if vals.dtype != dt:
        _fail(op_info, f"to_coo values dtype {vals.dtype} != Matrix.dtype {dt}")
    if r.size:
        if r.min() < 0 or c.min() < 0 or r.max() >= ours.nrows or c.max() >= ours.ncols:
            _fail(op_info, "to_coo index out of range")
    keys = r * max(ours.ncols, 1) + c
    if keys.size and np.any(np.diff(keys) <= 0):
        _fail(op_info, "Matrix.to_coo not sorted by (row, col) / has duplicates")
    return keys, vals


def _eq_values(a, b):
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        a64 = a.astype(np.float64)
        b64 = b.astype(np.float64)
        return (a64 == b64) | (np.isnan(a64) & np.isnan(b64))
    return a == b


def _describe(keys, ncols):
    if ncols is None:
        return [int(k) for k in keys]
    return [(int(k) // max(ncols, 1), int(k) % max(ncols, 1)) for k in keys]


def assert_same(ours, ref, *, op_info=""):
    """Check a bitgraph result against a python-graphblas one or an Expected."""
    exp = ref if isinstance(ref, Expected) else Expected.exact(ref)
    r0 = exp.ref
    if exp.scalar:
        return _assert_scalar(ours, exp, op_info)
    if isinstance(r0, gb.Vector):
        if not is_bg_vector(ours):
            _fail(op_info, f"expected a Vector, got {type(ours).__name__}")
        if ours.size != r0.size:
            _fail(op_info, f"size {ours.size} != {r0.size}")
        ncols = None
    else:
        if type(ours).__name__ != "Matrix":
            _fail(op_info, f"expected a Matrix, got {type(ours).__name__}")
        if (ours.nrows, ours.ncols) != (r0.nrows, r0.ncols):
            _fail(op_info, f"shape {(ours.nrows, ours.ncols)} != {(r0.nrows, r0.ncols)}")
        if tuple(ours.shape) != (r0.nrows, r0.ncols):
            _fail(op_info, f".shape {ours.shape} != {(r0.nrows, r0.ncols)}")
        ncols = r0.ncols
    if exp.check_dtype and ours.dtype != npt(r0.dtype):
        _fail(op_info, f"dtype {ours.dtype} != expected {npt(r0.dtype)}")
    keys, vals = check_invariants(ours, op_info=op_info)
    rkeys, _ = _keyed(r0)
    if not np.array_equal(keys, rkeys):
        extra = np.setdiff1d(keys, rkeys)[:8]
        missing = np.setdiff1d(rkeys, keys)[:8]
        _fail(op_info, f"structure differs: nvals {keys.size} vs expected {rkeys.size}; "
                       f"unexpected {_describe(extra, ncols)}, missing {_describe(missing, ncols)}")
    _check_values(keys, vals, exp, ncols, op_info)


def _check_values(keys, vals, exp, ncols, op_info):
    ok = np.zeros(keys.size, bool)
    for alt in exp.alternatives:
        arrs = [_keyed(g)[1] for g in alt]
        if len(arrs) == 1:
            ok |= _eq_values(vals, arrs[0])
        else:
            with np.errstate(invalid="ignore"):
                stack = np.stack([a.astype(np.float64) if a.dtype.kind != "b" else a.astype(np.float64)
                                  for a in arrs])
                lo = np.nanmin(np.where(np.isnan(stack), np.inf, stack), axis=0)
                hi = np.nanmax(np.where(np.isnan(stack), -np.inf, stack), axis=0)
                v = vals.astype(np.float64)
                inside = (lo <= v) & (v <= hi)
            anyeq = np.zeros(keys.size, bool)
            for a in arrs:
                anyeq |= _eq_values(vals, a)
            ok |= inside | anyeq
    if exp.candidates is not None:
        ck, cv = exp.candidates
        pos = np.searchsorted(keys, ck)
        inb = pos < keys.size
        hit = np.zeros(ck.size, bool)
        hit[inb] = (keys[pos[inb]] == ck[inb]) & _eq_values(cv[inb], vals[pos[inb]])
        ok |= np.bincount(pos[hit], minlength=keys.size)[:keys.size] > 0
    if exp.skip.size:
        ok |= np.isin(keys, exp.skip)
    if not ok.all():
        bad = np.flatnonzero(~ok)[:8]
        ref = [_keyed(g)[1] for g in exp.alternatives[0]]
        lines = []
        for b in bad:
            cands = sorted({repr(_keyed(alt[0])[1][b].item()) for alt in exp.alternatives})
            if exp.candidates is not None:
                ck, cv = exp.candidates
                cands = sorted({repr(x) for x in cv[ck == keys[b]].tolist()})
            lines.append(f"at {_describe([keys[b]], ncols)[0]}: ours {vals[b]!r}, expected "
                         f"{ref[0][b]!r}" + (f" (one of {cands[:8]})" if len(cands) > 1 else "")
                         + (f" (range {[r[b] for r in ref]})" if len(ref) > 1 else ""))
        _fail(op_info, f"{int((~ok).sum())} values differ:\n  " + "\n  ".join(lines))


def _assert_scalar(ours, exp, op_info):
    r0 = exp.ref
    rdt = npt(r0.dtype)
    if r0.nvals == 0:
        if ours is not None:
            _fail(op_info, f"expected None (empty reduce), got {ours!r}")
        return
    if ours is None:
        _fail(op_info, f"got None, expected {_keyed(r0)[1][0]!r}")
    if not isinstance(ours, np.generic):
        _fail(op_info, f"reduce returned {type(ours).__name__}, expected a numpy scalar")
    if exp.check_dtype and ours.dtype != rdt:
        _fail(op_info, f"scalar dtype {ours.dtype} != expected {rdt}")
    _check_values(np.zeros(1, np.int64), np.asarray([ours]), exp, None, op_info)


# --------------------------------------------------------------------------------------
# snapshots (a failed call leaves out unchanged; inputs are never modified)
# --------------------------------------------------------------------------------------
def snapshot(x):
    """A comparable snapshot of a bitgraph object (shape, dtype, coo), on either device."""
    if x is None:
        return None
    x = to_host(x)
    if is_bg_vector(x):
        idx, vals = x.to_coo()
        return ("V", x.size, str(x.dtype), np.array(idx).tobytes(), np.array(vals).tobytes())
    r, c, vals = x.to_coo()
    return ("M", x.nrows, x.ncols, str(x.dtype), np.array(r).tobytes(), np.array(c).tobytes(),
            np.array(vals).tobytes())


# --------------------------------------------------------------------------------------
# running one case: bitgraph call vs reference
# --------------------------------------------------------------------------------------
@contextlib.contextmanager
def forced_parallel(on=True):
    """Run bitgraph's CPU kernels in their parallel (thread-pool, row-chunk)
    variants even on tiny inputs: ``settings.cpu.serial_below`` is 0 for
    the duration."""
    if not on:
        yield
        return
    import bitgraph as bg

    with bg.settings.use(cpu={"serial_below": 0}):
        yield


def check_op(call_bg, call_ref, *, op_info="", out=None, inputs=(), parallel=False):
    """Run ``call_ref()`` (an Expected, or raises Undefined) and ``call_bg()``.

    * defined: the result must match; with ``out`` the call returns ``out``;
      inputs other than ``out`` are not modified;
    * undefined in python-graphblas: bitgraph may raise DomainMismatch (leaving
      ``out`` unchanged) or compute a well-formed result; anything else fails.
    Returns the bitgraph result (None when it raised DomainMismatch).
    """
    import bitgraph as bg

    snaps = [(x, snapshot(x)) for x in inputs if x is not None and x is not out]
    out_snap = snapshot(out)
    if parallel:
        op_info += " (parallel kernels)"
        plain_call = call_bg

        def call_bg():
            with forced_parallel():
                return plain_call()

    try:
        exp = call_ref()
    except Undefined:
        try:
            res = call_bg()
        except bg.DomainMismatch:
            if out is not None and snapshot(out) != out_snap:
                _fail(op_info, "a call that raised DomainMismatch modified out")
            return None
        if res is not None and not isinstance(res, np.generic):
            _check_device(res, op_info)
            check_invariants(to_host(res), op_info=op_info + " (operator undefined in python-graphblas)")
        return res
    res = call_bg()
    if out is not None and res is not out:
        _fail(op_info, "with out=, the call must return out itself")
    _check_device(res, op_info)
    assert_same(to_host(res), exp, op_info=op_info)
    for x, s in snaps:
        if snapshot(x) != s:
            _fail(op_info, f"an input was modified: {type(x).__name__}")
    return res


# --------------------------------------------------------------------------------------
# devices: one test body, on the CPU and on CUDA (CuPy's numpy_cupy_allclose idea)
# --------------------------------------------------------------------------------------
DEVICES = (
    pytest.param("cpu", id="cpu"),
    # the gpu marker: conftest skips it, with the reason, where CUDA is not usable
    pytest.param("cuda", id="cuda", marks=pytest.mark.gpu),
)
"""The values of a ``device`` parameter: "cpu" always runs; "cuda" runs
where CuPy sees a GPU (``bitgraph.device.cuda_status()`` is None) and is
reported skipped elsewhere. Use it with ``@pytest.mark.parametrize("device",
DEVICES)``, build the inputs on the CPU, move them with ``on_device`` and
bring results back with ``to_host`` before comparing."""


CONFORMANCE_DEVICE = os.environ.get("BG_CONFORMANCE_DEVICE", "cpu")
"""Where the conformance tests' operands live (``strategies``' specs build
them there): ``BG_CONFORMANCE_DEVICE=cuda`` reruns every conformance body
on CUDA objects against python-graphblas (on the GPU machine, with the
python-graphblas wheels carried there)."""


def _check_device(res, op_info):
    """A bitgraph result lives where the operands do."""
    dev = getattr(res, "device", None)
    if dev is not None and hasattr(res, "to") and dev != CONFORMANCE_DEVICE:
        _fail(op_info, f"the result is on {dev!r}, the operands on {CONFORMANCE_DEVICE!r}")


def on_device(x, device):
    """A bitgraph Matrix or Vector on ``device`` (itself when already there).

    >>> import bitgraph as bg
    >>> v = bg.Vector.from_indices([1], size=3)
    >>> on_device(v, "cpu") is v
    True
    """
    return x.to(device)


def to_host(x):
    """``x`` on the CPU: a bitgraph Matrix or Vector (copied from the GPU if
    it is there), or a numpy array (from a CuPy one); anything else as is.

    >>> import bitgraph as bg
    >>> to_host(bg.Vector.from_indices([1], size=3)).to_dense().tolist()
    [False, True, False]
    """
    if hasattr(x, "to") and hasattr(x, "device"):
        return x.to("cpu")
    get = getattr(x, "get", None)  # a CuPy array
    return np.asarray(get()) if get is not None else x


def path_matrix(n, directed):
    """The path 0 - 1 - ... - (n-1) as a structure-only n x n Matrix
    (directed: i -> i + 1 only; else both directions).

    >>> path_matrix(3, True).nvals, path_matrix(3, False).nvals
    (2, 4)
    """
    import bitgraph as bg

    r = np.arange(n - 1)
    if directed:
        return bg.Matrix.from_coo(r, r + 1, nrows=n, ncols=n)
    return bg.Matrix.from_coo(np.r_[r, r + 1], np.r_[r + 1, r], nrows=n, ncols=n)


def star_matrix(leaves):
    """Vertex 0 joined both ways to each of ``leaves`` leaves 1..leaves.

    >>> star_matrix(3).nvals
    6
    """
    import bitgraph as bg

    r = np.arange(1, leaves + 1)
    z = np.zeros(leaves, np.int64)
    return bg.Matrix.from_coo(np.r_[z, r], np.r_[r, z], nrows=leaves + 1, ncols=leaves + 1)
