"""Operators: unary and binary ops, monoids and semirings, with their dtypes.

Each named operator is one literal line, so ``grep min_plus`` finds it::

    >>> import bitgraph as bg
    >>> bg.MIN_PLUS
    Semiring('min_plus')
    >>> bg.semiring.lookup("lor_land") is bg.LOR_LAND
    True

Any ``<monoid>_<binaryop>`` string names a semiring (python-graphblas's
lower-case names); anywhere an operator is taken, its name works too.

Typing follows python-graphblas / SuiteSparse:GraphBLAS: the operator is typed
by ``unify`` of the operand dtypes (numpy promotion); ``types(t)`` gives the
dtype the kernel computes in and the dtype of the result. Boolean monoids
(lor, land, lxor, eq) compute in bool; comparisons return bool; positional
ops return int32 for int32 operands and int64 otherwise; the ``<monoid>_pair``
semirings with monoid plus, times, min, max or any return int64 (python-graphblas's
untyped ``any_pair`` is ``any_pair[INT64]``).

The lower-case names are attributes too (``bg.semiring.min_plus``,
``bg.binary.plus``, ``bg.monoid.min``, ``bg.unary.ainv``): the same objects
the strings give.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from .errors import DomainMismatch, InvalidValue
from .kernels import opcodes as oc

__all__ = [
    "DTYPES",
    "lookup_dtype",
    "unify",
    "UnaryOp",
    "BinaryOp",
    "Monoid",
    "Semiring",
    "lookup",
    "lookup_unary",
    "lookup_binary",
    "lookup_monoid",
    "lookup_semiring",
]

DTYPES = tuple(
    np.dtype(t)
    for t in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
        "uint64", "float32", "float64",
    )
)
_BOOL = np.dtype(bool)
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


def lookup_dtype(dtype) -> np.dtype:
    """Return the numpy dtype for ``dtype`` (a dtype, type or name).

    >>> lookup_dtype("int8")
    dtype('int8')
    """
    if isinstance(dtype, str):
        dtype = {"fp32": "float32", "fp64": "float64"}.get(dtype.lower(), dtype.lower())
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise DomainMismatch(f"unknown dtype {dtype!r}") from None
    if dt not in DTYPES:
        raise DomainMismatch(
            f"dtype {dt} is not supported (supported: {', '.join(map(str, DTYPES))})"
        )
    return dt


def unify(a, b) -> np.dtype:
    """The dtype an operator on ``a`` and ``b`` computes in (numpy promotion).

    >>> unify(np.int8, np.uint16)
    dtype('int32')
    """
    return lookup_dtype(np.promote_types(lookup_dtype(a), lookup_dtype(b)))


def scalar_dtype(value) -> np.dtype:
    """dtype of a scalar as python-graphblas infers it (bool, int64, float64)."""
    if isinstance(value, (np.generic, np.ndarray)):
        return lookup_dtype(value.dtype)
    if isinstance(value, (bool, np.bool_)):
        return _BOOL
    if isinstance(value, int):
        return _INT64
    if isinstance(value, float):
        return np.dtype(np.float64)
    raise DomainMismatch(f"cannot use {type(value).__name__} {value!r} as a scalar")


def _limits(t: np.dtype):
    if t == _BOOL:
        return np.bool_(False), np.bool_(True)
    if t.kind == "f":
        return t.type(-np.inf), t.type(np.inf)
    info = np.iinfo(t)
    return t.type(info.min), t.type(info.max)


@dataclass(frozen=True, eq=False)
class UnaryOp:
    """A unary operator: ``apply(x, unary.AINV)``."""

    name: str
    code: int
    bool_ok: bool = True
    float_ok: bool = True

    def types(self, t: np.dtype):
        """(compute dtype, result dtype) for operand dtype ``t``."""
        t = lookup_dtype(t)
        if (t == _BOOL and not self.bool_ok) or (t.kind == "f" and not self.float_ok):
            raise DomainMismatch(f"unary op {self.name!r} is not defined for {t}")
        return t, t

    def __repr__(self):
        return f"UnaryOp({self.name!r})"


@dataclass(frozen=True, eq=False)
class BinaryOp:
    """A binary operator: ``ewise_add(x, y, binary.PLUS)``, ``accum=binary.MIN``."""

    name: str
    code: int

    @property
    def positional(self) -> bool:
        return self.code in oc.POSITIONAL

    def types(self, t: np.dtype):
        """(compute dtype, result dtype) for operand dtype ``t``."""
        t = lookup_dtype(t)
        if self.code in oc.COMPARISON:
            return t, _BOOL
        if self.positional:
            r = _INT32 if t == _INT32 else _INT64
            return r, r
        return t, t

    def __repr__(self):
        return f"BinaryOp({self.name!r})"


@dataclass(frozen=True, eq=False)
class Monoid:
    """An associative, commutative BinaryOp with an identity (and maybe a terminal)."""

    name: str
    op: BinaryOp
    bool_only: bool = False  # lor, land, lxor, eq: operands are cast to bool

    @property
    def code(self) -> int:
        return self.op.code

    def types(self, t: np.dtype):
        t = lookup_dtype(t)
        if self.bool_only:
            return _BOOL, _BOOL
        return t, t

    def identity(self, t: np.dtype):
        """The identity in dtype ``t``: ``MIN.identity(int8) == 127``."""
        t = lookup_dtype(t)
        lo, hi = _limits(t)
        c = self.code
        if c in (oc.PLUS, oc.ANY, oc.LOR, oc.LXOR):
            return t.type(0)
        if c in (oc.TIMES, oc.LAND, oc.EQ):
            return t.type(1)
        if c == oc.MIN:
            return hi
        if c == oc.MAX:
            return lo
        raise AssertionError(self.name)

    def terminal(self, t: np.dtype):
        """The annihilator in dtype ``t`` (a reduction may stop there), or None."""
        t = lookup_dtype(t)
        lo, hi = _limits(t)
        c = self.code
        if t == _BOOL and c in (oc.PLUS, oc.MAX, oc.LOR):
            return t.type(True)
        if t == _BOOL and c in (oc.TIMES, oc.MIN, oc.LAND):
            return t.type(False)
        if c == oc.TIMES and t.kind != "f":
            return t.type(0)
        if c == oc.MIN:
            return lo
        if c == oc.MAX:
            return hi
        if c == oc.ANY:
            return t.type(0)  # kernels stop after the first value for ANY
        return None

    def __repr__(self):
        return f"Monoid({self.name!r})"


@dataclass(frozen=True, eq=False)
class Semiring:
    """add Monoid + multiply BinaryOp: ``mxv(A, u, semiring.MIN_PLUS)``."""

    name: str
    monoid: Monoid
    mult: BinaryOp

    def types(self, t: np.dtype):
        """(compute dtype, result dtype) for the unified operand dtype ``t``.

        The kernel computes in the first; the result is cast to the second
        (they differ only for the ``<monoid>_pair`` semirings, int64 results).

        >>> PLUS_TIMES.types("int8"), ANY_PAIR.types("bool")
        ((dtype('int8'), dtype('int8')), (dtype('bool'), dtype('int64')))
        """
        t = lookup_dtype(t)
        if self.mult.code in oc.COMPARISON:
            raise DomainMismatch(
                f"semiring {self.name!r}: comparison multiplies are not supported"
            )
        if self.mult.positional:
            return self.mult.types(t)
        if self.monoid.bool_only:
            return _BOOL, _BOOL
        if self.mult.code == oc.PAIR:
            # python-graphblas resolves an untyped ``<monoid>_pair`` (monoid
            # plus, times, min, max, any) to ``[INT64]`` whatever the
            # operands: the result is int64. Every product is 1, so only
            # plus needs int64 to compute in; the others compute in the
            # operand dtype (bool keeps the bit kernels) and are cast.
            if self.monoid.code == oc.PLUS or (t == _BOOL and self.monoid.code != oc.ANY):
                return _INT64, _INT64
            return t, _INT64
        return t, t

    def __repr__(self):
        return f"Semiring({self.name!r})"


# --- the named operators: one literal line each -----------------------------

IDENTITY = UnaryOp("identity", oc.IDENTITY)
AINV = UnaryOp("ainv", oc.AINV)
MINV = UnaryOp("minv", oc.MINV)
ABS = UnaryOp("abs", oc.ABS)
LNOT = UnaryOp("lnot", oc.LNOT)
ONE = UnaryOp("one", oc.ONE)
BNOT = UnaryOp("bnot", oc.BNOT, bool_ok=False, float_ok=False)

FIRST = BinaryOp("first", oc.FIRST)
SECOND = BinaryOp("second", oc.SECOND)
PAIR = BinaryOp("pair", oc.PAIR)
ANY = BinaryOp("any", oc.ANY)
PLUS = BinaryOp("plus", oc.PLUS)
MINUS = BinaryOp("minus", oc.MINUS)
RMINUS = BinaryOp("rminus", oc.RMINUS)
TIMES = BinaryOp("times", oc.TIMES)
DIV = BinaryOp("cdiv", oc.DIV)
RDIV = BinaryOp("rdiv", oc.RDIV)
MIN = BinaryOp("min", oc.MIN)
MAX = BinaryOp("max", oc.MAX)
LOR = BinaryOp("lor", oc.LOR)
LAND = BinaryOp("land", oc.LAND)
LXOR = BinaryOp("lxor", oc.LXOR)
EQ = BinaryOp("eq", oc.EQ)
NE = BinaryOp("ne", oc.NE)
GT = BinaryOp("gt", oc.GT)
LT = BinaryOp("lt", oc.LT)
GE = BinaryOp("ge", oc.GE)
LE = BinaryOp("le", oc.LE)
FIRSTI = BinaryOp("firsti", oc.FIRSTI)
FIRSTJ = BinaryOp("firstj", oc.FIRSTJ)
SECONDI = BinaryOp("secondi", oc.SECONDI)
SECONDJ = BinaryOp("secondj", oc.SECONDJ)

PLUS_MONOID = Monoid("plus", PLUS)
TIMES_MONOID = Monoid("times", TIMES)
MIN_MONOID = Monoid("min", MIN)
MAX_MONOID = Monoid("max", MAX)
ANY_MONOID = Monoid("any", ANY)
LOR_MONOID = Monoid("lor", LOR, bool_only=True)
LAND_MONOID = Monoid("land", LAND, bool_only=True)
LXOR_MONOID = Monoid("lxor", LXOR, bool_only=True)
EQ_MONOID = Monoid("eq", EQ, bool_only=True)  # lxnor on bool

LOR_LAND = Semiring("lor_land", LOR_MONOID, LAND)
ANY_PAIR = Semiring("any_pair", ANY_MONOID, PAIR)
PLUS_TIMES = Semiring("plus_times", PLUS_MONOID, TIMES)
PLUS_PAIR = Semiring("plus_pair", PLUS_MONOID, PAIR)
MIN_PLUS = Semiring("min_plus", MIN_MONOID, PLUS)
MAX_PLUS = Semiring("max_plus", MAX_MONOID, PLUS)
MAX_TIMES = Semiring("max_times", MAX_MONOID, TIMES)
MIN_TIMES = Semiring("min_times", MIN_MONOID, TIMES)
MIN_FIRST = Semiring("min_first", MIN_MONOID, FIRST)
MIN_SECOND = Semiring("min_second", MIN_MONOID, SECOND)
ANY_SECONDI = Semiring("any_secondi", ANY_MONOID, SECONDI)
PLUS_SECOND = Semiring("plus_second", PLUS_MONOID, SECOND)

UNARY_OPS = {op.name: op for op in (IDENTITY, AINV, MINV, ABS, LNOT, ONE, BNOT)}
BINARY_OPS = {
    op.name: op
    for op in (
        FIRST, SECOND, PAIR, ANY, PLUS, MINUS, RMINUS, TIMES, DIV, RDIV, MIN, MAX,
        LOR, LAND, LXOR, EQ, NE, GT, LT, GE, LE, FIRSTI, FIRSTJ, SECONDI, SECONDJ,
    )
}
MONOIDS = {
    m.name: m
    for m in (
        PLUS_MONOID, TIMES_MONOID, MIN_MONOID, MAX_MONOID, ANY_MONOID, LOR_MONOID,
        LAND_MONOID, LXOR_MONOID, EQ_MONOID,
    )
}
SEMIRINGS = {
    s.name: s
    for s in (
        LOR_LAND, ANY_PAIR, PLUS_TIMES, PLUS_PAIR, MIN_PLUS, MAX_PLUS, MAX_TIMES,
        MIN_TIMES, MIN_FIRST, MIN_SECOND, ANY_SECONDI, PLUS_SECOND,
    )
}
_ALIASES = {"div": "cdiv", "oneb": "pair", "lxnor": "eq"}


def _not_found(kind, name, known):
    close = difflib.get_close_matches(name, list(dict.fromkeys(known)), n=3)
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    return InvalidValue(f"unknown {kind} {name!r}{hint}")


def _named(table, kind, obj, cls):
    if isinstance(obj, cls):
        return obj
    if isinstance(obj, str):
        key = obj.lower()
        key = _ALIASES.get(key, key)
        if key in table:
            return table[key]
        raise _not_found(kind, obj, table)
    raise DomainMismatch(f"expected a {kind} or its name, got {type(obj).__name__} {obj!r}")


def lookup_unary(op) -> UnaryOp:
    """A UnaryOp from an object or its name: ``lookup_unary("ainv")``."""
    return _named(UNARY_OPS, "unary op", op, UnaryOp)


def lookup_binary(op) -> BinaryOp:
    """A BinaryOp from an object or its name; a Monoid gives its op.

    >>> lookup_binary("plus") is PLUS
    True
    """
    if isinstance(op, Monoid):
        return op.op
    return _named(BINARY_OPS, "binary op", op, BinaryOp)


def lookup_monoid(op) -> Monoid:
    """A Monoid from an object, its name, or the BinaryOp it is built on."""
    if isinstance(op, BinaryOp):
        for m in MONOIDS.values():
            if m.op is op:
                return m
        raise DomainMismatch(f"binary op {op.name!r} is not a monoid")
    return _named(MONOIDS, "monoid", op, Monoid)


_semiring_cache: dict[str, Semiring] = {}


def lookup_semiring(op) -> Semiring:
    """A Semiring from an object or a ``"<monoid>_<binaryop>"`` name.

    >>> lookup_semiring("max_second").monoid is MAX_MONOID
    True
    """
    if isinstance(op, Semiring):
        return op
    if not isinstance(op, str):
        raise DomainMismatch(f"expected a semiring or its name, got {type(op).__name__} {op!r}")
    key = op.lower()
    if key in SEMIRINGS:
        return SEMIRINGS[key]
    if key in _semiring_cache:
        return _semiring_cache[key]
    head, _, tail = key.partition("_")
    head = _ALIASES.get(head, head)
    tail = _ALIASES.get(tail, tail)
    if head in MONOIDS and tail in BINARY_OPS:
        name = f"{head}_{tail}"  # one object per semiring, whatever alias named it
        sr = SEMIRINGS.get(name) or _semiring_cache.get(name) or Semiring(name, MONOIDS[head], BINARY_OPS[tail])
        _semiring_cache[key] = _semiring_cache[name] = sr
        return sr
    known = list(SEMIRINGS) + [f"{m}_{b}" for m in MONOIDS for b in BINARY_OPS]
    raise _not_found("semiring", op, known)


def attribute(lookup_fn, kind, name):
    """A module's lower-case attribute (``bg.semiring.plus_times``): the
    object ``lookup_fn(name)`` gives, or ``AttributeError`` for a name that
    is not an operator (so ``hasattr`` and ``getattr(m, n, d)`` work).

    >>> attribute(lookup_semiring, "semiring", "min_plus") is MIN_PLUS
    True
    """
    if name.startswith("_") or name != name.lower():
        raise AttributeError(f"module 'bitgraph.{kind}' has no attribute {name!r}")
    try:
        return lookup_fn(name)
    except InvalidValue as e:
        raise AttributeError(f"module 'bitgraph.{kind}' has no attribute {name!r} ({e})") from None


def __getattr__(name):
    """``bg.semiring.plus_times`` (python-graphblas's spelling): the object
    ``lookup_semiring("plus_times")`` gives; any ``<monoid>_<binaryop>``."""
    return attribute(lookup_semiring, "semiring", name)


def __dir__():
    return sorted(set(globals()) | set(SEMIRINGS) | {f"{m}_{b}" for m in MONOIDS for b in BINARY_OPS})


def lookup(op):
    """Any operator by object or name (semiring names win over monoids)."""
    if isinstance(op, (UnaryOp, BinaryOp, Monoid, Semiring)):
        return op
    for f in (lookup_semiring, lookup_binary, lookup_unary):
        try:
            return f(op)
        except InvalidValue:
            pass
    raise _not_found("operator", op, list(SEMIRINGS) + list(BINARY_OPS) + list(UNARY_OPS))
