"""Bit intrinsics for the numba bit-format kernels (njit only).

``popcount(w)`` and ``ctz(w)`` are one LLVM instruction each (``ctpop``,
``cttz``) on any unsigned integer width; ``np.bitwise_count`` does not
compile under ``@njit``, and a Python-level loop over bits is 10-30x slower.
``ctz(0)`` is undefined (the callers loop ``while w: ... w &= w - 1``).
``bits_at`` reads t bits of a packed uint32 bitmap (a Vector's layout).
``atomic_or(a, i, v)`` ORs v into an unsigned array element atomically and
returns the old value: the exact test-and-set that lets pool threads share
one visited bitmap (a plain read-modify-write would lose other threads' bits);
``cas`` and ``fetch_add`` are the compare-and-swap and atomic add of the
union-find and work-queue kernels; ``prefetch`` issues a random read ahead.
"""

import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["popcount", "ctz", "bits_at", "atomic_or", "cas", "fetch_add", "prefetch"]

_U5 = np.uint64(5)
_U31 = np.uint64(31)


@njit(inline="always")
def bits_at(bitmap, start, wmask):
    """Bits start .. start+t-1 of a packed uint32 bitmap (bit i of word
    i >> 5) as the low bits of a uint64, ``wmask = 2**t - 1``; t divides 32
    and start is a multiple of t, so they never straddle two words."""
    return (np.uint64(bitmap[start >> _U5]) >> (start & _U31)) & wmask


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


def _int_array(a):
    return isinstance(a, types.Array) and a.ndim == 1 and isinstance(a.dtype, types.Integer)


@intrinsic
def cas(typingctx, a, i, expected, new):
    """``if a[i] == expected: a[i] = new`` as one atomic instruction; returns
    whether it swapped (njit only; a: C-contiguous 1-d integer array, i: an
    integer index, no bounds check, no negative wrap-around)."""
    if not (_int_array(a) and isinstance(i, types.Integer)
            and isinstance(expected, types.Integer) and isinstance(new, types.Integer)):
        return None
    sig = types.boolean(a, types.unliteral(i), types.unliteral(expected),
                        types.unliteral(new))

    def codegen(context, builder, signature, args):
        aty, _, ety, nty = signature.args
        ptr = _item_pointer(context, builder, aty, args[0], args[1])
        exp = context.cast(builder, args[2], ety, aty.dtype)
        val = context.cast(builder, args[3], nty, aty.dtype)
        res = builder.cmpxchg(ptr, exp, val, "acq_rel", "monotonic")
        return builder.extract_value(res, 1)

    return sig, codegen


def _item_pointer(context, builder, aty, ary, i):
    # &a[i]: no bounds check, no negative wrap-around
    arr = context.make_array(aty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aty, arr, [i], wraparound=False)


def _atomic_rmw(op, unsigned_only):
    """An intrinsic ``f(a, i, v)``: ``old = a[i]; a[i] = a[i] <op> v``
    atomically (LLVM ``atomicrmw``), returning old."""
    def f(typingctx, a, i, v):
        if not (_int_array(a) and (_unsigned(a.dtype) or not unsigned_only)
                and isinstance(i, types.Integer) and isinstance(v, types.Integer)):
            return None
        sig = a.dtype(a, types.unliteral(i), types.unliteral(v))

        def codegen(context, builder, signature, args):
            aty, _, vty = signature.args
            ptr = _item_pointer(context, builder, aty, args[0], args[1])
            val = context.cast(builder, args[2], vty, aty.dtype)
            return builder.atomic_rmw(op, ptr, val, "monotonic")

        return sig, codegen
    return f


atomic_or = intrinsic(_atomic_rmw("or", unsigned_only=True))
atomic_or.__doc__ = """``old = a[i]; a[i] |= v`` as one atomic instruction; returns old
(njit only; a: C-contiguous 1-d unsigned array, i: integer index)."""
fetch_add = intrinsic(_atomic_rmw("add", unsigned_only=False))
fetch_add.__doc__ = """``old = a[i]; a[i] += v`` as one atomic instruction; returns old
(njit only; a: C-contiguous 1-d integer array, i: integer index)."""


# llvm.prefetch's name carries its pointer type: opaque pointers since LLVM 15
_PREFETCH = "llvm.prefetch.p0" if _llvm.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx, a, i):
    """Hint the CPU to fetch ``a[i]`` into cache for reading (njit only; no
    bounds check needed: a prefetch never faults)."""
    if not (isinstance(a, types.Array) and a.ndim == 1 and isinstance(i, types.Integer)):
        return None
    sig = types.void(a, types.unliteral(i))

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH)
        # read, keep in all cache levels, data cache
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen
