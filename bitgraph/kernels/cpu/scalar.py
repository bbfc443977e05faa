"""The scalar meaning of every op code, in one place, for the numba kernels.

``binop(code, x, y)``, ``unop(code, x)`` and ``multop(code, x, y, i, k, j)``
are called from inside ``@njit`` kernels only. ``x`` and ``y`` have one dtype
T (bool, int8..int64, uint8..uint64, float32, float64); the result is a T,
wrapped back into T after every operation, as SuiteSparse:GraphBLAS computes
(int8 ``100 + 100`` is ``-56``, never ``200`` cast back later).

Each is a numba ``intrinsic`` (callable inside ``@njit`` code only): at
compile time it picks the body for T's kind (bool, signed, unsigned, float),
so no dtype test is left in the compiled loop; the op code is a runtime
int64 and the ``if``/``elif`` chain on it becomes one LLVM ``switch``. The
body is compiled once per T and called with LLVM's ``alwaysinline``, so it
is inlined into each kernel's loop (where the switch can be hoisted) at LLVM
cost: numba's own ``inline="always"`` retypes the chain at every call site
and made a kernel take 5-14 s to compile instead of ~1 s; a plain call (no
inlining) made a PLUS_TIMES SpMV 5x slower.

Semantics (``opcodes`` names the codes):

- FIRST x, SECOND y, PAIR 1, ANY x (the value met first), PLUS, MINUS,
  RMINUS (y - x), TIMES: wrapping for integers.
- DIV: floats IEEE ``x / y``. Signed (SuiteSparse ``GB_idiv``): ``y == -1``
  gives ``-x`` (wrapping); ``y == 0`` gives 0, MAX or MIN by the sign of x;
  otherwise C division, truncated toward zero. Unsigned: ``y == 0`` gives
  0 if x is 0 else MAX. RDIV is DIV(y, x).
- MIN/MAX: floats as C ``fmin``/``fmax`` (a NaN operand is ignored).
- LOR, LAND, LXOR, EQ, NE, GT, LT, GE, LE: 0/1 in T.
- bool: PLUS=LOR, MINUS=RMINUS=LXOR, TIMES=LAND, DIV=FIRST, RDIV=SECOND,
  MIN=LAND, MAX=LOR.
- Positional codes (FIRSTI, FIRSTJ, SECONDI, SECONDJ) are computed by
  ``multop`` from the indices (i, k, j) of the product a(i,k)*b(k,j), cast
  to T; ``binop`` leaves them to it (returns x).
- Unary: IDENTITY x, AINV -x (bool: x), MINV 1/x (integers: DIV(1, x); bool:
  True), ABS |x| (wrapping at INT_MIN), LNOT (x == 0), ONE 1, BNOT ~x
  (integers; launchers reject it for bool and float).

Cache trap (DESIGN.md, "numba"): numba's cache does not see edits here from
the kernels that inline these functions. After editing this file, clear the
cache (``find . -name __pycache__ -path '*kernels*' | xargs rm -r``).
"""

import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.extending import intrinsic
from numba.np import numpy_support

from bitgraph.kernels.opcodes import (
    ABS, AINV, ANY, BNOT, DIV, EQ, FIRST, FIRSTI, FIRSTJ, GE, GT, LAND, LE,
    LNOT, LOR, LT, LXOR, MAX, MIN, MINUS, MINV, NE, ONE, PAIR, PLUS, RDIV,
    RMINUS, SECOND, SECONDI, SECONDJ, TIMES,
)

__all__ = ["binop", "multop", "unop", "cast_like", "c_div", "bitmap_get"]

_SCALAR = (types.Boolean, types.Integer, types.Float)


def _kind(ty):
    if isinstance(ty, types.Boolean):
        return "bool"
    if isinstance(ty, types.Integer):
        return "signed" if ty.signed else "unsigned"
    if isinstance(ty, types.Float):
        return "float"
    raise TypeError(f"bitgraph kernels: unsupported scalar type {ty}")


def _call_inlined(context, builder, impl, sig, args):
    """Compile ``impl`` for ``sig`` (once per process) and call it, marking
    the call ``alwaysinline`` so LLVM inlines it when the kernel's module is
    linked. The impls never raise, so the status is not checked."""
    cres = context.compile_subroutine(builder, impl, sig)
    fn = context.declare_function(builder.module, cres.fndesc)
    _, res = context.call_conv.call_function(
        builder, fn, sig.return_type, sig.args, args)
    for instr in reversed(builder.block.instructions):
        if isinstance(instr, llvm_ir.CallInstr) and instr.callee is fn:
            instr.attributes.add("alwaysinline")
            break
    return res


# ----------------------------------------------------------------------------
# casts, division, bitmaps: one LLVM instruction or three
# ----------------------------------------------------------------------------

@intrinsic
def cast_like(typingctx, value, like):
    """``value`` converted to the type of ``like``, wrapping (njit only).

    One LLVM cast (trunc/zext/sext/fptosi/icmp ne 0): int64 300 -> int8 44.
    """
    if not isinstance(like, _SCALAR):
        return None
    src = types.unliteral(value)
    dst = types.unliteral(like)
    sig = dst(src, like)

    def codegen(context, builder, signature, args):
        return context.cast(builder, args[0], src, dst)

    return sig, codegen


@intrinsic
def c_div(typingctx, x, y):
    """C division in the type of x and y (njit only): ``sdiv``/``udiv``
    truncate toward zero, ``fdiv`` is IEEE (1/0 = inf). No zero check: the
    caller rules out integer ``y == 0`` and INT_MIN / -1."""
    if x != y or not isinstance(x, (types.Integer, types.Float)):
        return None
    sig = x(x, y)

    def codegen(context, builder, signature, args):
        a, b = args
        if isinstance(x, types.Float):
            return builder.fdiv(a, b)
        if x.signed:
            return builder.sdiv(a, b)
        return builder.udiv(a, b)

    return sig, codegen


@intrinsic
def bitmap_get(typingctx, words, i):
    """Bit i of a packed uint32 bitmap: ``words[i >> 5] >> (i & 31) & 1``
    (njit only; i is an integer >= 0, no bounds check)."""
    if not (isinstance(words, types.Array) and words.dtype == types.uint32
            and isinstance(i, types.Integer)):
        return None
    sig = types.boolean(words, i)

    def codegen(context, builder, signature, args):
        arr, idx = args
        idx = context.cast(builder, idx, types.unliteral(i), types.uint64)
        data = context.make_array(words)(context, builder, arr).data
        word = builder.load(builder.gep(
            data, [builder.lshr(idx, idx.type(5))], inbounds=True))
        shift = builder.trunc(builder.and_(idx, idx.type(31)), word.type)
        bit = builder.and_(builder.lshr(word, shift), word.type(1))
        return builder.icmp_unsigned("!=", bit, word.type(0))

    return sig, codegen


def _int_limits(ty):
    dt = numpy_support.as_dtype(ty)
    info = np.iinfo(dt)
    return dt.type(info.min), dt.type(info.max)


def _make_div(ty):
    """DIV in T with SuiteSparse's integer rules (GB_idiv)."""
    kind = _kind(ty)
    if kind == "float":
        return lambda x, y: c_div(x, y)
    if kind == "bool":
        return lambda x, y: x
    tmin, tmax = _int_limits(ty)
    signed = kind == "signed"

    def div(x, y):
        zero = cast_like(0, x)
        if y == zero:
            if x == zero:
                return zero
            if signed and x < zero:
                return tmin
            return tmax
        if signed and y == cast_like(-1, x):
            return cast_like(-x, x)
        return c_div(x, y)

    return div


@intrinsic
def _div(typingctx, x, y):
    if x != y or not isinstance(x, _SCALAR):
        return None
    sig = x(x, y)
    impl = _make_div(x)

    def codegen(context, builder, signature, args):
        return _call_inlined(context, builder, impl, signature, args)

    return sig, codegen


# ----------------------------------------------------------------------------
# binop
# ----------------------------------------------------------------------------

def _binop_bool(code, x, y):
    if code == FIRST or code == ANY or code == DIV:
        return x
    elif code == SECOND or code == RDIV:
        return y
    elif code == PAIR:
        return True
    elif code == PLUS or code == LOR or code == MAX:
        return x or y
    elif code == TIMES or code == LAND or code == MIN:
        return x and y
    elif code == MINUS or code == RMINUS or code == LXOR or code == NE:
        return x != y
    elif code == EQ:
        return x == y
    elif code == GT:
        return x > y
    elif code == LT:
        return x < y
    elif code == GE:
        return x >= y
    elif code == LE:
        return x <= y
    return x


def _binop_int(code, x, y):
    if code == FIRST or code == ANY:
        return x
    elif code == SECOND:
        return y
    elif code == PAIR:
        return cast_like(1, x)
    elif code == PLUS:
        return cast_like(x + y, x)
    elif code == MINUS:
        return cast_like(x - y, x)
    elif code == RMINUS:
        return cast_like(y - x, x)
    elif code == TIMES:
        return cast_like(x * y, x)
    elif code == DIV:
        return _div(x, y)
    elif code == RDIV:
        return _div(y, x)
    elif code == MIN:
        return x if x < y else y
    elif code == MAX:
        return x if x > y else y
    elif code == LOR:
        return cast_like((x != 0) or (y != 0), x)
    elif code == LAND:
        return cast_like((x != 0) and (y != 0), x)
    elif code == LXOR:
        return cast_like((x != 0) != (y != 0), x)
    elif code == EQ:
        return cast_like(x == y, x)
    elif code == NE:
        return cast_like(x != y, x)
    elif code == GT:
        return cast_like(x > y, x)
    elif code == LT:
        return cast_like(x < y, x)
    elif code == GE:
        return cast_like(x >= y, x)
    elif code == LE:
        return cast_like(x <= y, x)
    return x


def _binop_float(code, x, y):
    if code == FIRST or code == ANY:
        return x
    elif code == SECOND:
        return y
    elif code == PAIR:
        return cast_like(1, x)
    elif code == PLUS:
        return cast_like(x + y, x)
    elif code == MINUS:
        return cast_like(x - y, x)
    elif code == RMINUS:
        return cast_like(y - x, x)
    elif code == TIMES:
        return cast_like(x * y, x)
    elif code == DIV:
        return c_div(x, y)
    elif code == RDIV:
        return c_div(y, x)
    elif code == MIN:  # fmin: a NaN operand is ignored
        if x != x:
            return y
        return x if (x <= y or y != y) else y
    elif code == MAX:  # fmax
        if x != x:
            return y
        return x if (x >= y or y != y) else y
    elif code == LOR:
        return cast_like((x != 0) or (y != 0), x)
    elif code == LAND:
        return cast_like((x != 0) and (y != 0), x)
    elif code == LXOR:
        return cast_like((x != 0) != (y != 0), x)
    elif code == EQ:
        return cast_like(x == y, x)
    elif code == NE:
        return cast_like(x != y, x)
    elif code == GT:
        return cast_like(x > y, x)
    elif code == LT:
        return cast_like(x < y, x)
    elif code == GE:
        return cast_like(x >= y, x)
    elif code == LE:
        return cast_like(x <= y, x)
    return x


_BINOP = {"bool": _binop_bool, "signed": _binop_int, "unsigned": _binop_int,
          "float": _binop_float}


@intrinsic
def binop(typingctx, code, x, y):
    """The binary op ``code`` applied to x, y of one dtype T (njit only).

    Positional codes are left to ``multop`` (binop returns x for them).
    """
    if x != y or not isinstance(x, _SCALAR):
        return None
    sig = x(types.int64, x, y)
    impl = _BINOP[_kind(x)]

    def codegen(context, builder, signature, args):
        return _call_inlined(context, builder, impl, signature, args)

    return sig, codegen


def _multop(code, x, y, i, k, j):
    if code == FIRSTI:
        return cast_like(i, x)
    elif code == FIRSTJ or code == SECONDI:
        return cast_like(k, x)
    elif code == SECONDJ:
        return cast_like(j, x)
    return binop(code, x, y)


@intrinsic
def multop(typingctx, code, x, y, i, k, j):
    """The multiply of a semiring for the product a(i,k)*b(k,j) (njit only).

    x = a(i,k), y = b(k,j) of dtype T; i, k, j unsigned 64-bit indices. The
    positional codes give i (FIRSTI), k (FIRSTJ, SECONDI) or j (SECONDJ)
    cast to T; any other code is ``binop(code, x, y)``.
    """
    if x != y or not isinstance(x, _SCALAR):
        return None
    u64 = types.uint64
    sig = x(types.int64, x, y, u64, u64, u64)

    def codegen(context, builder, signature, args):
        return _call_inlined(context, builder, _multop, signature, args)

    return sig, codegen


# ----------------------------------------------------------------------------
# unop
# ----------------------------------------------------------------------------

def _unop_bool(code, x):
    if code == LNOT:
        return not x
    elif code == MINV or code == ONE:
        return True
    return x  # IDENTITY, AINV, ABS (BNOT is rejected by the launcher)


def _unop_float(code, x):
    if code == AINV:
        return cast_like(-x, x)
    elif code == MINV:
        return c_div(cast_like(1, x), x)
    elif code == ABS:
        return cast_like(abs(x), x)
    elif code == LNOT:
        return cast_like(x == 0, x)
    elif code == ONE:
        return cast_like(1, x)
    return x  # IDENTITY (BNOT is rejected by the launcher)


def _make_unop_int(signed):
    def impl(code, x):
        if code == AINV:
            return cast_like(-x, x)
        elif code == MINV:
            return _div(cast_like(1, x), x)
        elif code == ABS:
            if signed and x < 0:
                return cast_like(-x, x)
            return x
        elif code == LNOT:
            return cast_like(x == 0, x)
        elif code == ONE:
            return cast_like(1, x)
        elif code == BNOT:
            return cast_like(~x, x)
        return x  # IDENTITY

    return impl


@intrinsic
def unop(typingctx, code, x):
    """The unary op ``code`` applied to x of dtype T (njit only)."""
    if not isinstance(x, _SCALAR):
        return None
    sig = x(types.int64, x)
    kind = _kind(x)
    impl = {"bool": _unop_bool, "float": _unop_float}.get(kind)
    if impl is None:
        impl = _make_unop_int(kind == "signed")

    def codegen(context, builder, signature, args):
        return _call_inlined(context, builder, impl, signature, args)

    return sig, codegen
