"""GraphBLAS operations, with the C API's semantics written once.

Every operation checks shapes and domains, asks ``plan`` for a raw result
``t`` (a kernel's output, no semantics), and ends in :func:`finish`, the one
place that applies the mask, accum and replace and writes the output::

    C<M, replace> = C accum t        (GraphBLAS C API 2.0, section 2.7)

All of it is array code over ``xp`` (numpy here, cupy on a GPU): entries are
handled as sorted int64 *keys* (``i`` for vectors, ``i * ncols + j`` for
matrices) with a values array beside them.

>>> import bitgraph as bg
>>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
>>> f = bg.Vector.from_indices([0], size=3)
>>> bg.mxv(A.T, f, bg.LOR_LAND, mask=~f.S).indices().tolist()
[1]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from . import _array as ar
from . import plan, settings
from .errors import DeviceError, DimensionMismatch, DomainMismatch, InvalidType, InvalidValue
from .formats import csr as csr_fmt
from .formats.csr import CSR
from .kernels import opcodes as oc
from .mask import Mask, as_mask
from . import _kinds as kinds
from .semiring import (
    lookup_binary,
    lookup_dtype,
    lookup_monoid,
    lookup_semiring,
    lookup_unary,
    scalar_dtype,
    unify,
)


def _scalar(value, what: str):
    """A scalar argument and its dtype as python-graphblas infers it (bool,
    int64, float64, or a numpy scalar's own); a python int beyond int64 is
    uint64 when it fits (as numpy and python-graphblas type it), else
    ``InvalidValue`` naming it. Cast to the operand's type by the library's
    rule (``_array.cast``) afterwards.

    >>> _scalar(2**63, "assign: value")
    (9223372036854775808, dtype('uint64'))
    """
    if isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63:
        if 0 <= value < 2**64:
            return value, np.dtype(np.uint64)
        raise InvalidValue(f"{what}: {value} does not fit a 64-bit integer (int64 or uint64)")
    try:
        return value, scalar_dtype(value)
    except DomainMismatch as e:
        raise DomainMismatch(f"{what}: {e}") from None

__all__ = [
    "mxv", "vxm", "mxm", "ewise_add", "ewise_mult", "apply", "select", "reduce",
    "extract", "assign", "transpose", "finish",
]


class Entries(NamedTuple):
    """Sorted unique int64 keys and their values: the form ``finish`` works on."""

    keys: object
    values: object


# --- conversions between objects and entries ------------------------------------------
def _is_matrix(x):
    return kinds.is_matrix(x)


def _stored_values(c: CSR):
    """A CSR's values, materialised as True for a structure-only matrix."""
    if c.values is not None:
        return c.values
    return ar.array_module(c.indptr).ones(c.nnz, np.bool_)


def _entries(x) -> Entries:
    if kinds.is_vector(x):
        idx = x.indices()
        return Entries(idx, x._values[idx])
    c = x._csr()
    return Entries(csr_fmt.keys_of(c), _stored_values(c))


def _empty(dtype, xp=np) -> Entries:
    return Entries(xp.zeros(0, np.int64), xp.zeros(0, dtype))


def _merge(*parts: Entries) -> Entries:
    """Union of entry sets with disjoint keys, sorted by key."""
    xp = ar.array_module(parts[0].keys)
    keys = xp.concatenate([p.keys for p in parts])
    vals = xp.concatenate([p.values for p in parts])
    order = xp.argsort(keys, kind="stable")
    return Entries(keys[order], vals[order])


def _to_vector(e: Entries, size: int, dtype):
    xp = ar.array_module(e.keys)
    present = xp.zeros(size, np.bool_)
    present[e.keys] = True
    vals = xp.zeros(size, dtype)
    vals[e.keys] = e.values
    return kinds.new(kinds.VECTOR)._from_parts(plan.pack_bits(present), vals, size)


def _to_csr(e: Entries, nrows: int, ncols: int) -> CSR:
    xp = ar.array_module(e.values)
    return csr_fmt.from_sorted_keys(e.keys, xp.ascontiguousarray(e.values), nrows, ncols)


class Dense(NamedTuple):
    """A kernel's vector result as dense arrays: ``values[n]``, ``present[n]``."""

    values: object
    present: object

    def entries(self) -> Entries:
        xp = ar.array_module(self.values)
        keys = xp.flatnonzero(self.present).astype(np.int64)
        return Entries(keys, self.values[keys])


def _check_type(x, what, *, matrix=None):
    kind = kinds.kind_of(x)
    ok = {None: (kinds.VECTOR, kinds.MATRIX, kinds.TRANSPOSED),
          True: (kinds.MATRIX, kinds.TRANSPOSED), False: (kinds.VECTOR,)}[matrix]
    if kind is None or kind not in ok:
        want = {None: "a Vector or Matrix", True: "a Matrix", False: "a Vector"}[matrix]
        raise DomainMismatch(f"{what} must be {want}, got {type(x).__name__}")
    _check_device(x, what)


# the operations with a CUDA path (all of them)
_ON_CUDA = ("mxv", "vxm", "mxm", "ewise_add", "ewise_mult", "apply", "select", "reduce",
            "extract", "assign", "transpose")


def _check_device(x, what):
    if x.device != "cpu" and what.split(":")[0] not in _ON_CUDA:
        raise DeviceError(f"{what} is on {x.device!r}, and this operation runs on the CPU"
                          f" only; use .to('cpu')")


def _same_device(name, *objs):
    devices = {o.device for o in objs if o is not None}
    if len(devices) > 1:
        raise DeviceError(f"{name}: operands are on different devices ({sorted(devices)});"
                          f" move them with .to(device)")


def _shape_str(x):
    return f"{x.nrows} x {x.ncols}" if _is_matrix(x) else f"size {x.size}"


# --- the funnel: mask, accum, replace, merge ---------------------------------------------
class _MaskSet:
    """The set of positions a mask allows: truthy entries, maybe complemented."""

    def __init__(self, mask: Mask):
        p = mask.parent
        self.complement = mask.complement
        # a vector's structure is its bitmap, read as it is now (dense flags only on demand)
        self.words, self.size, self._dense, self.keys = None, 0, None, None
        if kinds.is_vector(p):
            if mask.structure:
                self.words, self.size = p._bitmap, p.size
            else:
                self._dense = p._present() & ar.truthy(p._values)
        else:
            e = _entries(p)
            self.keys = e.keys if mask.structure else e.keys[ar.truthy(e.values)]

    @property
    def dense(self):
        """A vector mask's truthy positions as flags (None for a matrix mask)."""
        if self._dense is None and self.words is not None:
            self._dense = plan.unpack_bits(self.words, self.size)
        return self._dense

    def contains(self, keys):
        hit = self.dense[keys] if self.keys is None else ar.isin_sorted(keys, self.keys)
        return ~hit if self.complement else hit

    def allowed_bitmap(self):
        """Packed bitmap of allowed vector positions (mask pushdown for kernels)."""
        if self.words is not None:  # a structural mask: its vector's own words
            return ar.invert_bits(self.words, self.size) if self.complement else self.words
        d = ~self.dense if self.complement else self.dense
        return plan.pack_bits(d)

    def pattern(self, nrows, ncols) -> CSR:
        """The mask's truthy entries as a structure-only CSR (matrix pushdown)."""
        return csr_fmt.from_sorted_keys(self.keys, None, nrows, ncols)


def _union(a: Entries, b: Entries, op, out_dtype) -> Entries:
    """a ∪ b: op(a, b) where both are present (typed by unify), else the lone
    value; everything cast to ``out_dtype``."""
    ina = ar.isin_sorted(a.keys, b.keys)
    inb = ar.isin_sorted(b.keys, a.keys)
    both = _binop_values(op, a.values[ina], b.values[inb])
    return _merge(
        Entries(a.keys[ina], ar.cast(both, out_dtype)),
        Entries(a.keys[~ina], ar.cast(a.values[~ina], out_dtype)),
        Entries(b.keys[~inb], ar.cast(b.values[~inb], out_dtype)),
    )


def _binop_values(op, x, y, dtype=None):
    """op(x, y) elementwise, typed by unify(x, y) (or ``dtype``); result in op's type."""
    t = unify(x.dtype, y.dtype) if dtype is None else dtype
    tc, to = op.types(t)
    if op.positional:
        raise DomainMismatch(f"positional op {op.name!r} is only allowed as a semiring multiply")
    z = plan.ewise(op.code, ar.cast(x, tc), ar.cast(y, tc))
    return ar.cast(z, to)


def finish(out, t: Entries | Dense, t_dtype, mask, accum, replace, shape, mask_set=None):
    """Write ``t`` into the output with mask, accum and replace; return the output.

    ``out=None`` means a new, empty C of t's dtype. Nothing is written until
    every array of the result exists, so a failed call leaves ``out`` unchanged.
    ``mask_set``: the mask's ``_MaskSet`` where the caller built it already.

        Z = accum ? C ∪ t (accum where both) : t
        C = mask ? (Z ∩ M) ∪ (replace ? ∅ : C \\ M) : Z
    """
    mask = as_mask(mask)
    t_dtype = lookup_dtype(t_dtype)
    if t.values.dtype != t_dtype:
        # a kernel may compute in another type than t's (the <monoid>_pair
        # semirings: the operands' type, then int64): the accum types by t's
        if isinstance(t, Dense):
            t = Dense(ar.cast(t.values, t_dtype), t.present)
        else:
            t = Entries(t.keys, ar.cast(t.values, t_dtype))
    if isinstance(t, Dense):
        return _finish_dense(out, t, t_dtype, mask, accum, replace, mask_set)
    if out is None:
        c, c_dtype = _empty(t_dtype, ar.array_module(t.keys)), lookup_dtype(t_dtype)
    else:
        c, c_dtype = _entries(out), out.dtype
    if accum is not None and out is not None:
        acc = lookup_binary(accum)
        z = _union(c, t, acc, c_dtype)
    else:
        z = Entries(t.keys, ar.cast(t.values, c_dtype))
    if mask is not None:
        ms = _MaskSet(mask)
        zin = ms.contains(z.keys)
        z = Entries(z.keys[zin], z.values[zin])
        if not replace and c.keys.shape[0]:
            keep = ~ms.contains(c.keys)
            z = _merge(z, Entries(c.keys[keep], c.values[keep]))
    return _write(out, z, c_dtype, shape)


def _finish_dense(out, t: Dense, t_dtype, mask, accum, replace, mask_set=None):
    """``finish`` for a Vector result on dense arrays (present flags and
    values over all n positions): the same rules in O(n) array passes (a
    new vector under a mask: one pass, the mask's bitmap read as words)."""
    xp = ar.array_module(t.values)
    c_dtype = lookup_dtype(t_dtype) if out is None else out.dtype
    zp, zv = t.present, ar.cast(t.values, c_dtype)
    if out is not None:
        cp = out._present()
        if accum is not None:
            idx = xp.flatnonzero(cp & zp)
            acc = _binop_values(lookup_binary(accum), out._values[idx], t.values[idx])
            zv = xp.where(zp, zv, out._values)
            zv[idx] = ar.cast(acc, c_dtype)
            zp = zp | cp
    if mask is not None:
        ms = mask_set if mask_set is not None else _MaskSet(mask)
        if out is None:  # no C to keep: Z where the mask allows
            words, values = plan.present_vector(zp, zv, ms.allowed_bitmap())
            return kinds.new(kinds.VECTOR)._from_parts(words, values)
        allowed = ~ms.dense if ms.complement else ms.dense
        zp = zp & allowed
        if not replace and out is not None:
            keep = cp & ~allowed
            zv = xp.where(keep, out._values, zv)
            zp = zp | keep
    v = kinds.new(kinds.VECTOR)._from_present(zp, zv)
    if out is None:
        return v
    out._bitmap, out._values, out._dtype = v._bitmap, v._values, v._dtype
    return out


def _write(out, z: Entries, dtype, shape):
    if len(shape) == 1:
        v = _to_vector(z, shape[0], dtype)
        if out is None:
            return v
        out._bitmap, out._values, out._dtype = v._bitmap, v._values, v._dtype
        return out
    csr = _to_csr(z, *shape)
    if out is None:
        return kinds.new(kinds.MATRIX)._from_csr(csr, dtype)
    out._set(csr, dtype)
    return out


def _check_out_mask(name, shape, mask, out, accum):
    """Shapes of mask and out must equal the result's shape."""
    mask = as_mask(mask)
    want = shape if len(shape) == 2 else (shape[0],)
    for what, obj in (("mask", None if mask is None else mask.parent), ("out", out)):
        if obj is None:
            continue
        _check_device(obj, f"{name}: {what}")
        if len(shape) == 1 and not kinds.is_vector(obj) or len(shape) == 2 and not _is_matrix(obj):
            kind = "Vector" if len(shape) == 1 else "Matrix"
            raise DimensionMismatch(f"{name}: {what} must be a {kind} for this result, got {type(obj).__name__}")
        if tuple(obj.shape) != tuple(want):
            raise DimensionMismatch(
                f"{name}: {what} shape {_shape_str(obj)} must equal the result's "
                f"{'x'.join(map(str, want)) if len(want) == 2 else f'size {want[0]}'}"
            )
    if kinds.kind_of(out) == kinds.TRANSPOSED:
        raise InvalidValue(f"{name}: out must be a Matrix, not a transposed view")
    if accum is not None:
        lookup_binary(accum)
    return mask


# --- semiring products ------------------------------------------------------------------
def _check_method(name, method, methods):
    if method not in methods:
        import difflib

        near = difflib.get_close_matches(str(method), methods, n=1)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise InvalidValue(f"{name}: unknown method {method!r}{hint}; expected one of {methods}")


def _semiring_spec(sr, t):
    tc, to = sr.types(t)
    mon = sr.monoid
    return plan.semiring_spec(tc, mon.code, sr.mult.code, mon.identity(tc), mon.terminal(tc)), tc, to


def _values_unread(iso: bool, mult_code, first: bool) -> bool:
    """True when the product never reads the matrix operand's values (it
    has none: ``iso``, or the multiply ignores that operand): its pattern
    suffices."""
    ignored = oc.IGNORES_FIRST if first else oc.IGNORES_SECOND
    return iso or mult_code in ignored


def _operand_csr(csr: CSR, tc, mult_code, first: bool) -> CSR:
    """The matrix CSR with values cast to the compute type (None if unread)."""
    if _values_unread(csr.values is None, mult_code, first):
        return csr._replace(values=None)
    return csr._replace(values=ar.cast(csr.values, tc))


def mxv(A, u, semiring="plus_times", *, mask=None, accum=None, replace=False, out=None,
        method="auto"):
    """w<mask> = accum(w, A ⊕.⊗ u).

    ``method``: "auto" (the plan's choice by the vector's density and the
    tile fill, ``settings.Plan``), "pull" (SpMV over A's rows), "push"
    (SpMSpV over A''s rows of u's entries), "bits" (the B2SR bit kernel,
    tile ``settings.Plan.bits_tile`` or the profile's; where the product
    reads a value of A, the pull), "tensor_core" (Blest's step on the
    BVSS of A: two m8n8k128 b1 MMAs per 128 row slices on CUDA, their
    bitwise twin on the CPU; Boolean-like products of A's pattern only,
    as lor_land, any_pair, lor_pair: ``InvalidValue`` for the others).
    Every method gives the same result.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1.0, 2.0, 3.0], nrows=2, ncols=2)
    >>> bg.mxv(A, bg.Vector.from_dense([1.0, 10.0]), "min_plus").to_dense().tolist()
    [2.0, 13.0]
    >>> P = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
    >>> bg.mxv(P, bg.Vector.from_indices([0], size=2), "lor_land", method="bits").indices().tolist()
    [1]
    >>> f = bg.Vector.from_indices([0], size=2)
    >>> P.T.mxv(f, "lor_land", mask=~f.S, method="tensor_core").indices().tolist()
    [1]
    """
    _check_type(A, "mxv: A", matrix=True)
    _check_type(u, "mxv: u", matrix=False)
    if A.ncols != u.size:
        raise DimensionMismatch(f"mxv: A.ncols (={A.ncols}) must equal u.size (={u.size})")
    return _matvec("mxv", A, u, semiring, flipped=False, mask=mask, accum=accum, replace=replace, out=out,
                   method=method)


def vxm(u, A, semiring="plus_times", *, mask=None, accum=None, replace=False, out=None,
        method="auto"):
    """w<mask> = accum(w, u ⊕.⊗ A), computed as A' rows against u;
    ``method`` as in ``mxv`` (over A').

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3)
    >>> bg.vxm(bg.Vector.from_indices([0], size=3), A, "any_secondi").to_coo()[1].tolist()
    [0]
    """
    _check_type(A, "vxm: A", matrix=True)
    _check_type(u, "vxm: u", matrix=False)
    if A.nrows != u.size:
        raise DimensionMismatch(f"vxm: u.size (={u.size}) must equal A.nrows (={A.nrows})")
    return _matvec("vxm", A.T, u, semiring, flipped=True, mask=mask, accum=accum, replace=replace, out=out,
                   method=method)


def _matvec(name, M, u, semiring, *, flipped, mask, accum, replace, out, method):
    """t = M ⊕.⊗ u row by row (M is A for mxv, A' for vxm with operands flipped)."""
    _check_method(name, method, plan.MXV_METHODS)
    rules = settings.current().plan
    sr = lookup_semiring(semiring)
    mask = _check_out_mask(name, (M.nrows,), mask, out, accum)
    _same_device(name, M, u, out, None if mask is None else mask.parent)
    spec, tc, to = _semiring_spec(sr, unify(M.dtype, u.dtype))
    ms = _MaskSet(mask) if mask is not None else None
    allowed = ms.allowed_bitmap() if ms is not None else None
    x_vals = ar.cast(u._values, tc)
    get_csr = lambda: _operand_csr(M._csr(), tc, sr.mult.code, first=not flipped)  # noqa: E731
    get_csr_t = lambda: _operand_csr(M._transposed_csr(), tc, sr.mult.code, first=not flipped)  # noqa: E731
    pattern_only = _values_unread(M.iso, sr.mult.code, first=not flipped)
    if method == "tensor_core" and plan.tensor_core_kind(spec, flipped, pattern_only) is None:
        _no_tensor_core(name, sr, tc, M, pattern_only)
    t_vals, t_present = plan.matvec(get_csr, get_csr_t, M, u, x_vals, allowed, spec, flipped, pattern_only,
                                    method, rules)
    return finish(out, Dense(t_vals, t_present), to, mask, accum, replace, (M.nrows,), ms)


def _no_tensor_core(name, sr, tc, M, pattern_only):
    others = tuple(m for m in plan.MXV_METHODS if m != "tensor_core")
    if pattern_only:
        why = (f"semiring {sr.name!r} on {np.dtype(tc)} is not Boolean-like: its result is not"
               f" 'some entry of u meets the row' (as lor_land, any_pair, lor_pair)")
    else:
        why = (f"semiring {sr.name!r} reads the values of the {M.dtype} matrix; the tensor-core"
               f" step reads its pattern only (a structure-only matrix, or a multiply that"
               f" ignores the matrix, as pair)")
    raise InvalidValue(f"{name}: method='tensor_core' cannot compute this product: {why};"
                       f" use one of {others}")


def mxm(A, B, semiring="plus_times", *, mask=None, accum=None, replace=False, out=None,
        method="auto"):
    """C<mask> = accum(C, A ⊕.⊗ B); a mask is pushed down into the kernel.

    ``method``: "auto" (the plan's choice: the smaller work of the two CSR
    methods, or B2SR where the tile fill pays, ``settings.Plan``), "dot"
    (masked dot products), "gustavson" (SpGEMM by rows), "bits" (the B2SR
    bit matrix product, on CUDA the tensor cores; tile
    ``settings.Plan.bits_tile`` or the profile's). A request, as
    SuiteSparse's GxB_AxB_METHOD: "dot" needs a mask, "bits" a masked
    product of counts or ones that reads no value; otherwise the plan
    chooses among the others. Every method gives the same result.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 0], [1, 2, 2], nrows=3, ncols=3)   # a triangle, upper part
    >>> L = A.T.copy()
    >>> int(bg.reduce(bg.mxm(L, L.T, "plus_pair", mask=L.S)))
    1
    """
    _check_type(A, "mxm: A", matrix=True)
    _check_type(B, "mxm: B", matrix=True)
    _check_method("mxm", method, plan.MXM_METHODS)
    rules = settings.current().plan
    if A.ncols != B.nrows:
        raise DimensionMismatch(f"mxm: A.ncols (={A.ncols}) must equal B.nrows (={B.nrows})")
    sr = lookup_semiring(semiring)
    shape = (A.nrows, B.ncols)
    ar.check_shape(*shape, "mxm: the result")
    mask = _check_out_mask("mxm", shape, mask, out, accum)
    _same_device("mxm", A, B, out, None if mask is None else mask.parent)
    spec, tc, to = _semiring_spec(sr, unify(A.dtype, B.dtype))
    a = _operand_csr(A._csr(), tc, sr.mult.code, first=True)
    get_b = lambda: _operand_csr(B._csr(), tc, sr.mult.code, first=False)  # noqa: E731
    get_bt = lambda: _operand_csr(B._transposed_csr(), tc, sr.mult.code, first=False)  # noqa: E731
    pattern, complement = None, False
    if mask is not None:
        ms = _MaskSet(mask)
        pattern, complement = ms.pattern(*shape), ms.complement
    pattern_only = (_values_unread(A.iso, sr.mult.code, first=True)
                    and _values_unread(B.iso, sr.mult.code, first=False))
    bits = (A, B) if pattern_only else None
    indptr, indices, values = plan.mxm(a, get_b, get_bt, pattern, complement, spec, bits, method, rules)
    t = Entries(csr_fmt.keys_of(CSR(indptr, indices, None, *shape)), values)
    return finish(out, t, to, mask, accum, replace, shape)


# --- element-wise -----------------------------------------------------------------------
def _ewise(name, x, y, op, union, mask, accum, replace, out):
    _check_type(x, f"{name}: x")
    _check_type(y, f"{name}: y")
    if _is_matrix(x) != _is_matrix(y):
        raise DimensionMismatch(f"{name}: cannot combine a {type(x).__name__} with a {type(y).__name__}")
    if tuple(x.shape) != tuple(y.shape):
        raise DimensionMismatch(f"{name}: x shape ({_shape_str(x)}) must equal y shape ({_shape_str(y)})")
    op = lookup_binary(op)
    shape = tuple(x.shape)
    mask = _check_out_mask(name, shape, mask, out, accum)
    tc, to = op.types(unify(x.dtype, y.dtype))
    _same_device(name, x, y, out, None if mask is None else mask.parent)
    if kinds.is_vector(x):
        return finish(out, _ewise_dense(x, y, op, union, to), to, mask, accum, replace, shape)
    a, b = _entries(x), _entries(y)
    if union:
        t = _union(a, b, op, to)
    else:
        ina = ar.isin_sorted(a.keys, b.keys)
        inb = ar.isin_sorted(b.keys, a.keys)
        t = Entries(a.keys[ina], _binop_values(op, a.values[ina], b.values[inb]))
    return finish(out, t, to, mask, accum, replace, shape)


def _ewise_dense(x, y, op, union, to) -> Dense:
    """The union or intersection of two Vectors on their dense arrays: O(n)
    array passes, no sort (a BFS's visited set is as large as the vector)."""
    xp = ar.array_module(x._values)
    px, py = x._present(), y._present()
    both = px & py
    idx = xp.flatnonzero(both)
    vals_both = _binop_values(op, x._values[idx], y._values[idx])
    if union:
        vals = xp.where(px, ar.cast(x._values, to), ar.cast(y._values, to))
        vals[idx] = ar.cast(vals_both, to)
        return Dense(vals, px | py)
    vals = xp.zeros(x.size, vals_both.dtype)
    vals[idx] = vals_both
    return Dense(vals, both)


def ewise_add(x, y, op="plus", *, mask=None, accum=None, replace=False, out=None):
    """Union: op(x, y) where both have an entry, the lone value elsewhere.

    >>> import bitgraph as bg
    >>> x = bg.Vector.from_coo([0, 1], [1, 2], size=3)
    >>> y = bg.Vector.from_coo([1, 2], [10, 20], size=3)
    >>> bg.ewise_add(x, y).to_dense().tolist()
    [1, 12, 20]
    """
    return _ewise("ewise_add", x, y, op, True, mask, accum, replace, out)


def ewise_mult(x, y, op="times", *, mask=None, accum=None, replace=False, out=None):
    """Intersection: op(x, y) where both have an entry.

    >>> import bitgraph as bg
    >>> x = bg.Vector.from_coo([0, 1], [3, 2], size=3)
    >>> y = bg.Vector.from_coo([1, 2], [10, 20], size=3)
    >>> bg.ewise_mult(x, y).to_coo()[1].tolist()
    [20]
    """
    return _ewise("ewise_mult", x, y, op, False, mask, accum, replace, out)


def apply(x, op, *, left=None, right=None, mask=None, accum=None, replace=False, out=None):
    """A unary op on every entry, or a binary op with one operand bound to a scalar.

    >>> import bitgraph as bg
    >>> x = bg.Vector.from_coo([0, 2], [1, 4], size=3)
    >>> bg.apply(x, "minus", right=1).to_coo()[1].tolist(), bg.apply(x, "ainv").to_coo()[1].tolist()
    ([0, 3], [-1, -4])
    """
    _check_type(x, "apply: x")
    shape = tuple(x.shape)
    mask = _check_out_mask("apply", shape, mask, out, accum)
    _same_device("apply", x, out, None if mask is None else mask.parent)
    e = _entries(x)
    if left is not None and right is not None:
        raise InvalidValue("apply: give left= or right=, not both")
    if left is None and right is None:
        uop = lookup_unary(op)
        tc, to = uop.types(x.dtype)
        vals = ar.cast(plan.unary(uop.code, ar.cast(e.values, tc)), to)
    else:
        bop = lookup_binary(op)
        s, sdt = _scalar(left if left is not None else right, f"apply: {'left' if left is not None else 'right'}")
        t = unify(x.dtype, sdt)
        svec = ar.array_module(e.values).full(e.values.shape[0], s, sdt)
        a, b = (svec, e.values) if left is not None else (e.values, svec)
        vals = _binop_values(bop, a, b, t)
        to = bop.types(t)[1]
    return finish(out, Entries(e.keys, vals), to, mask, accum, replace, shape)


_SELECT_INDEX = {
    # name: f(i, j, k) -> keep;  i = row (vector: index), j = column (vector: 0)
    "tril": lambda i, j, k: j <= i + k,
    "triu": lambda i, j, k: j >= i + k,
    "diag": lambda i, j, k: j == i + k,
    "offdiag": lambda i, j, k: j != i + k,
    "rowle": lambda i, j, k: i <= k,
    "rowgt": lambda i, j, k: i > k,
    "colle": lambda i, j, k: j <= k,
    "colgt": lambda i, j, k: j > k,
    "indexle": lambda i, j, k: i <= k,
    "indexgt": lambda i, j, k: i > k,
}
_SELECT_VALUE = {
    "valueeq": np.equal, "valuene": np.not_equal, "valuegt": np.greater,
    "valuege": np.greater_equal, "valuelt": np.less, "valuele": np.less_equal,
}


def select(x, op, thunk=0, *, mask=None, accum=None, replace=False, out=None):
    """Keep the entries for which a select op holds (``tril``, ``valuegt``, ...).

    Index ops compare i (row; a vector's index) and j (column; 0 for a
    vector) with the int ``thunk``; value ops compare each value with
    ``thunk`` in ``unify(x.dtype, thunk's dtype)``, so ``valueeq 0.5`` on
    integers matches nothing (python-graphblas casts the thunk to x's dtype
    first, and for some dtype pairs reads its bytes: we do not copy that).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 1], [1, 0, 1], nrows=2, ncols=2)
    >>> bg.select(A, "tril").nvals, bg.select(A, "offdiag").nvals
    (2, 2)
    """
    _check_type(x, "select: x")
    shape = tuple(x.shape)
    mask = _check_out_mask("select", shape, mask, out, accum)
    _same_device("select", x, out, None if mask is None else mask.parent)
    e = _entries(x)
    xp = ar.array_module(e.keys)
    name = op.lower() if isinstance(op, str) else op
    if name in _SELECT_INDEX:
        if isinstance(thunk, (bool, np.bool_)) or not isinstance(thunk, (int, np.integer)):
            raise InvalidType(f"select: thunk of the index op {name!r} must be an integer,"
                              f" got {type(thunk).__name__} {thunk!r}")
        k = int(thunk)
        if _is_matrix(x):
            i, j = xp.divmod(e.keys, max(x.ncols, 1))
        else:
            i, j = e.keys, xp.zeros_like(e.keys)
        keep = _SELECT_INDEX[name](i, j, k)
    elif name in _SELECT_VALUE:
        thunk, tdt = _scalar(thunk, "select: thunk")
        t = unify(x.dtype, tdt)
        k = ar.cast(np.full(1, thunk, tdt), t)[0]
        with np.errstate(invalid="ignore"):
            keep = _SELECT_VALUE[name](ar.cast(e.values, t), k)
    else:
        import difflib

        names = list(_SELECT_INDEX) + list(_SELECT_VALUE)
        close = difflib.get_close_matches(str(op), names, n=2)
        hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise InvalidValue(f"select: unknown select op {op!r}{hint}")
    return finish(out, Entries(e.keys[keep], e.values[keep]), x.dtype, mask, accum, replace, shape)


# --- reductions -------------------------------------------------------------------------
def reduce_segments(indptr, values, op):
    """Monoid reduction of each ``values[indptr[r]:indptr[r+1]]`` (identity if empty)."""
    m = lookup_monoid(op)
    tc, to = m.types(values.dtype)
    r = plan.reduce_segments(indptr, ar.cast(values, tc), m.code, m.identity(tc), m.terminal(tc))
    return ar.cast(r, to)


def reduce(x, monoid="plus", *, by=None, allow_empty=True, mask=None, accum=None, replace=False, out=None):
    """Reduce with a monoid: to a scalar (``by=None``) or a Matrix to a Vector
    per row (``by="rows"``) or per column (``by="cols"``).

    A scalar result is a numpy scalar, or None when ``x`` has no entries and
    ``allow_empty`` (else the monoid's identity). ``plus`` on a bool ``x``
    (a structure-only graph) raises ``DomainMismatch``, as python-graphblas
    does; cast first to count.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1, 2, 3], nrows=2, ncols=2)
    >>> int(bg.reduce(A)), bg.reduce(A, "max", by="rows").to_dense().tolist()
    (6, [2, 3])
    >>> G = bg.Matrix.from_coo([0, 1, 1], [1, 0, 2], nrows=3, ncols=3)
    >>> bg.reduce(G.dup("int64"), by="rows").to_dense().tolist(), bool(bg.reduce(G, "lor"))
    ([1, 2, 0], True)
    """
    _check_type(x, "reduce: x")
    m = lookup_monoid(monoid)
    if m.code == oc.PLUS and x.dtype == np.bool_:
        # python-graphblas defines no plus monoid on BOOL (SuiteSparse's
        # would be lor): it raises, and so do we rather than answer True
        raise DomainMismatch("reduce: monoid 'plus' is not defined on bool (as in python-graphblas);"
                             " use 'lor' for 'any entry', or count the entries of a structure-only"
                             " matrix with x.dup('int64') first (or x.nvals)")
    if by is None:
        if mask is not None or accum is not None or out is not None:
            raise InvalidValue("reduce: mask, accum and out apply only with by='rows' or 'cols'")
        vals = _entries(x).values
        if vals.shape[0] == 0:
            return None if allow_empty else m.identity(m.types(x.dtype)[1])
        xp = ar.array_module(vals)
        r = reduce_segments(xp.array([0, vals.shape[0]], np.int64), vals, m)
        return r[0] if xp is np else r.get()[0]
    if not _is_matrix(x):
        raise InvalidValue("reduce: by= applies only to a Matrix")
    if by not in ("rows", "cols"):
        raise InvalidValue(f"reduce: by must be None, 'rows' or 'cols', got {by!r}")
    c = x._csr() if by == "rows" else x._transposed_csr()
    shape = (c.nrows,)
    mask = _check_out_mask("reduce", shape, mask, out, accum)
    _same_device("reduce", x, out, None if mask is None else mask.parent)
    r = reduce_segments(c.indptr, _stored_values(c), m)
    present = ar.array_module(c.indptr).diff(c.indptr) > 0
    return finish(out, Dense(r, present), m.types(x.dtype)[1], mask, accum, replace, shape)


# --- extract, assign, transpose ---------------------------------------------------------
def _xp(x):
    """The array module of a bitgraph object's arrays."""
    return ar.array_module(x._values if kinds.is_vector(x) else x._csr().indptr)


def _index(idx, n, what, xp=np):
    """An index argument (None, slice, int, list or array) as int64
    positions on ``xp``'s device; and whether it was a scalar int. A device
    (CuPy) array indexes an object on that device only."""
    if idx is None:
        return xp.arange(n, dtype=np.int64), False
    if isinstance(idx, slice):
        for part in ("start", "stop", "step"):
            v = getattr(idx, part)
            if v is not None and (isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer))):
                raise InvalidType(f"{what}: slice {part} must be an integer or None,"
                                  f" got {type(v).__name__} {v!r}")
        if idx.step is not None and int(idx.step) == 0:
            raise InvalidValue(f"{what}: slice step must not be zero, got {idx!r}")
        return xp.arange(*idx.indices(n), dtype=np.int64), False
    if isinstance(idx, (int, np.integer)) and not isinstance(idx, (bool, np.bool_)):
        return xp.asarray(ar.as_index_array([idx], what, n)), True
    if ar.array_module(idx) is not np:
        if xp is np:
            raise DeviceError(f"{what}: the index array is on 'cuda' and the object on 'cpu';"
                              f" move one of them")
        return _device_index(idx, n, what), False
    return xp.asarray(ar.as_index_array(idx, what, n)), False


def _device_index(idx, n, what):
    """A CuPy index array checked on the device (one reduction, one read):
    integers (or integral floats) in [0, n), as int64."""
    if idx.ndim != 1:
        raise InvalidValue(f"{what}: indices must be 1-D, got shape {idx.shape}")
    if idx.size and idx.dtype.kind not in "iuf":
        raise InvalidValue(f"{what}: indices must be integers, got {idx.dtype}")
    if idx.size and idx.dtype.kind == "f":
        bad = ~ar.array_module(idx).isfinite(idx) | (idx != ar.array_module(idx).trunc(idx))
        if bool(bad.any()):
            return ar.as_index_array(idx.get(), what, n)  # names the bad value on the host
        idx = idx.astype(np.int64)
    a = idx.astype(np.int64, copy=False)
    if idx.dtype.kind == "u" and idx.dtype.itemsize == 8:
        big = idx > np.uint64(np.iinfo(np.int64).max)
        a = ar.array_module(idx).where(big, -1, a)
    if a.size and bool(((a < 0) | (a >= n)).any()):
        ar.check_bounds(a.get(), what, n)
    return a


def _gather_rows(c: CSR, rows):
    """Entries of the given rows (in that order, duplicates allowed):
    (position p of the row in ``rows``, column, value index)."""
    xp = ar.array_module(rows)
    starts = c.indptr[rows].astype(np.int64)
    lens = (c.indptr[rows + 1] - c.indptr[rows]).astype(np.int64)
    p = ar.segment_ids(lens)
    offs = xp.arange(p.shape[0], dtype=np.int64) - (xp.cumsum(lens) - lens)[p]
    src = starts[p] + offs
    return p, c.indices[src].astype(np.int64), src


def _map_cols(cols, J, ncols):
    """For entries with column ``cols``, every position q with J[q] == col:
    returns (entry index, q)."""
    xp = ar.array_module(cols, J)
    order = xp.argsort(J, kind="stable")
    js = J[order]
    lo = xp.searchsorted(js, cols, "left")
    hi = xp.searchsorted(js, cols, "right")
    cnt = (hi - lo).astype(np.int64)
    ent = ar.segment_ids(cnt)
    offs = xp.arange(ent.shape[0], dtype=np.int64) - (xp.cumsum(cnt) - cnt)[ent]
    return ent, order[lo[ent] + offs]


def extract(x, *index, mask=None, accum=None, replace=False, out=None):
    """Sub-vector ``u(I)`` or sub-matrix ``A(I, J)``; an int row or column of a
    Matrix gives a Vector. Indices may repeat; ``None`` means all. On a CUDA
    object the index lists may be lists or arrays of either device.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2], [0, 1, 2], [1, 2, 3], nrows=3, ncols=3)
    >>> bg.extract(A, [2, 0], None).to_coo()[2].tolist(), bg.extract(A, 1, None).to_coo()[1].tolist()
    ([3, 1], [2])
    """
    _check_type(x, "extract: x")
    xp = _xp(x)
    if kinds.is_vector(x):
        if len(index) > 1:
            raise InvalidValue("extract: a Vector takes one index")
        I, _ = _index(index[0] if index else None, x.size, "extract", xp)
        present = x._present()[I]
        keys = xp.flatnonzero(present).astype(np.int64)
        t = Entries(keys, x._values[I[keys]])
        shape = (I.shape[0],)
        mask = _check_out_mask("extract", shape, mask, out, accum)
        _same_device("extract", x, out, None if mask is None else mask.parent)
        return finish(out, t, x.dtype, mask, accum, replace, shape)
    rows = index[0] if len(index) > 0 else None
    cols = index[1] if len(index) > 1 else None
    if len(index) > 2:
        raise InvalidValue("extract: a Matrix takes at most two indices")
    I, row_scalar = _index(rows, x.nrows, "extract (rows)", xp)
    J, col_scalar = _index(cols, x.ncols, "extract (cols)", xp)
    if row_scalar and col_scalar:
        raise InvalidValue("extract: for a single element use two lists, or extract a row and index it")
    if not (row_scalar or col_scalar):
        ar.check_shape(I.shape[0], J.shape[0], "extract: the result")
    c = x._csr()
    p, col, src = _gather_rows(c, I)
    if cols is None:
        q, keep_src = col, src
        ent = xp.arange(p.shape[0])
    else:
        ent, q = _map_cols(col, J, x.ncols)
        keep_src = src[ent]
    p = p[ent]
    keys = p * J.shape[0] + q
    vals = xp.ones(keys.shape[0], np.bool_) if c.values is None else c.values[keep_src]
    order = xp.argsort(keys, kind="stable")
    t = Entries(keys[order], vals[order])
    if row_scalar or col_scalar:
        shape = (J.shape[0],) if row_scalar else (I.shape[0],)
    else:
        shape = (I.shape[0], J.shape[0])
    mask = _check_out_mask("extract", shape, mask, out, accum)
    _same_device("extract", x, out, None if mask is None else mask.parent)
    return finish(out, t, x.dtype, mask, accum, replace, shape)


def assign(out, value, *index, mask=None, accum=None, replace=False):
    """GrB_assign: ``C<mask>(I, J) = accum(C(I, J), value)``, value a scalar,
    Vector or Matrix; the mask has C's shape. Returns ``out`` (changed in place).

    >>> import bitgraph as bg
    >>> w = bg.Vector(dtype="int64", size=4)
    >>> bg.assign(w, 7, [1, 3]).to_dense().tolist()
    [0, 7, 0, 7]
    """
    _check_type(out, "assign: out")
    if kinds.kind_of(out) == kinds.TRANSPOSED:
        raise InvalidValue("assign: out must be a Matrix, not a transposed view")
    xp = _xp(out)
    is_mat = _is_matrix(out)
    nidx = 2 if is_mat else 1
    if len(index) > nidx:
        raise InvalidValue(f"assign: a {type(out).__name__} takes at most {nidx} indices")
    index = tuple(index) + (None,) * (nidx - len(index))
    if kinds.kind_of(value) is not None:
        _check_type(value, "assign: value")
    m = as_mask(mask)
    _same_device("assign", out, value if kinds.kind_of(value) is not None else None,
                 None if m is None else m.parent)
    line = None  # a Matrix with an int row (or column) index: C(i, J) or C(I, j)
    if is_mat:
        I, row_scalar = _index(index[0], out.nrows, "assign (rows)", xp)
        J, col_scalar = _index(index[1], out.ncols, "assign (cols)", xp)
        dims = (I.shape[0], J.shape[0])
        if row_scalar != col_scalar:
            line = "row" if row_scalar else "col"
            if m is None or kinds.is_vector(m.parent):
                return _assign_line(out, value, I, J, line, m, accum, replace)
    else:
        I, _ = _index(index[0], out.size, "assign", xp)
        J = xp.zeros(1, np.int64)
        dims = (I.shape[0],)
    shape = tuple(out.shape)
    mask = _check_out_mask("assign", shape, mask, out, accum)
    ncols = out.ncols if is_mat else 1
    # the value's entries, mapped into C's positions
    if kinds.kind_of(value) is not None:
        if line is not None and kinds.is_vector(value):
            # a Vector into one row/column of a Matrix (mask of C's shape)
            if value.size != (dims[1] if line == "row" else dims[0]):
                raise DimensionMismatch(
                    f"assign: value size {value.size} must equal the index length "
                    f"{dims[1] if line == 'row' else dims[0]}"
                )
            value = _line_matrix(value, line)
        if tuple(value.shape) != dims or _is_matrix(value) != is_mat:
            raise DimensionMismatch(
                f"assign: value shape ({_shape_str(value)}) must equal the index region "
                f"({' x '.join(map(str, dims))})"
            )
        e = _entries(value)
        if is_mat:
            p, q = xp.divmod(e.keys, max(value.ncols, 1))
        else:
            p, q = e.keys, xp.zeros_like(e.keys)
        vvals = e.values
    else:
        value, vdt = _scalar(value, "assign: value")
        p = xp.repeat(xp.arange(dims[0], dtype=np.int64), J.shape[0])
        q = xp.tile(xp.arange(J.shape[0], dtype=np.int64), dims[0])
        vvals = xp.full(p.shape[0], value, vdt)
    keys = I[p] * ncols + J[q]
    order = xp.argsort(keys, kind="stable")
    keys, vvals = keys[order], vvals[order]
    if keys.shape[0] > 1:  # repeated indices: the last one wins
        last = xp.ones(keys.shape[0], np.bool_)
        last[:-1] = keys[1:] != keys[:-1]
        keys, vvals = keys[last], vvals[last]
    a = Entries(keys, vvals)
    c = _entries(out)
    if accum is not None:
        z = _union(c, a, lookup_binary(accum), out.dtype)
    else:
        rows_in = xp.zeros(out.shape[0], np.bool_)
        rows_in[I] = True
        if is_mat:
            cols_in = xp.zeros(out.ncols, np.bool_)
            cols_in[J] = True
            ci, cj = xp.divmod(c.keys, max(ncols, 1))
            region = rows_in[ci] & cols_in[cj]
        else:
            region = rows_in[c.keys]
        z = _merge(Entries(c.keys[~region], c.values[~region]), Entries(a.keys, ar.cast(a.values, out.dtype)))
    return finish(out, z, out.dtype, mask, None, replace, shape)


def _line_matrix(u, line: str):
    """u as a 1 x n (row) or n x 1 (col) Matrix, on u's device (a row's key
    is its column, a column's its row: u's own indices)."""
    e = _entries(u)
    shape = (1, u.size) if line == "row" else (u.size, 1)
    return _write(None, e, u.dtype, shape)


def _assign_line(C, value, I, J, line, mask, accum, replace):
    """GrB_Row_assign / GrB_Col_assign: ``C<m>(i, J) = accum(C(i, J), u)`` with a
    Vector mask ``m`` over that row (column) only; the rest of C is untouched."""
    ncols = C.ncols
    if line == "row":
        i = int(I[0])
        w = extract(C, i, None)
        assign(w, value, J, mask=mask, accum=accum, replace=replace)
        c = _entries(C)
        keep = (c.keys // max(ncols, 1)) != i
        wi = w.indices()
        new_keys = i * ncols + wi
    else:
        j = int(J[0])
        w = extract(C, None, j)
        assign(w, value, I, mask=mask, accum=accum, replace=replace)
        c = _entries(C)
        keep = (c.keys % max(ncols, 1)) != j if ncols else ar.array_module(c.keys).ones(c.keys.shape[0], np.bool_)
        wi = w.indices()
        new_keys = wi * ncols + j
    return _write(C, _merge(Entries(c.keys[keep], c.values[keep]), Entries(new_keys, w._values[wi])), C.dtype, tuple(C.shape))


def transpose(A, *, mask=None, accum=None, replace=False, out=None):
    """C<mask> = accum(C, A').

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0], [2], [5], nrows=2, ncols=3)
    >>> bg.transpose(A).to_coo()[0].tolist()
    [2]
    """
    _check_type(A, "transpose: A", matrix=True)
    shape = (A.ncols, A.nrows)
    mask = _check_out_mask("transpose", shape, mask, out, accum)
    _same_device("transpose", A, out, None if mask is None else mask.parent)
    c = A._transposed_csr()
    return finish(out, Entries(csr_fmt.keys_of(c), _stored_values(c)), A.dtype, mask, accum, replace, shape)
