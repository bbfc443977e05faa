"""Bit intrinsics for the numba bit-format kernels (njit only).

``popcount(w)`` and ``ctz(w)`` are one LLVM instruction each (``ctpop``,
``cttz``) on any unsigned integer width; ``np.bitwise_count`` does not
compile under ``@njit``, and a Python-level loop over bits is 10-30x slower.
``ctz(0)`` is undefined (the callers loop ``while w: ... w &= w - 1``).
"""

from numba import types
from numba.extending import intrinsic

__all__ = ["popcount", "ctz"]


def _unsigned(ty):
    return isinstance(ty, types.Integer) and not ty.signed


@intrinsic
def popcount(typingctx, w):
    """Number of set bits of an unsigned integer, as uint64 (njit only)."""
    if not _unsigned(w):
        return None
    w = types.unliteral(w)
    sig = types.uint64(w)

    def codegen(context, builder, signature, args):
        n = builder.ctpop(args[0])
        return builder.zext(n, context.get_value_type(types.uint64)) \
            if n.type.width < 64 else n

    return sig, codegen


@intrinsic
def ctz(typingctx, w):
    """Index of the lowest set bit of a non-zero unsigned integer, as uint64
    (njit only)."""
    if not _unsigned(w):
        return None
    w = types.unliteral(w)
    sig = types.uint64(w)

    def codegen(context, builder, signature, args):
        n = builder.cttz(args[0], context.get_constant(types.boolean, True))
        return builder.zext(n, context.get_value_type(types.uint64)) \
            if n.type.width < 64 else n

    return sig, codegen
