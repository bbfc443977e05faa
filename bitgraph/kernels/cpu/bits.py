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
union-find, work-queue and delta-stepping kernels (``cas`` on floats by
their bits; ``cas_relaxed`` where the swapped value publishes nothing
else); ``load_acquire``, ``store_release``, ``arrive`` and ``pause`` are
the spin barrier of the parallel delta-stepping rounds; ``prefetch``
issues a random read ahead (``prefetch_l2`` into the second level only).
"""

import platform

import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["popcount", "ctz", "bits_at", "atomic_or", "cas", "cas_relaxed", "fetch_add", "arrive",
           "prefetch", "prefetch_l2", "load_acquire", "store_release", "pause",
           "yield_cpu"]

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


def _num_array(a):
    return isinstance(a, types.Array) and a.ndim == 1 and isinstance(a.dtype, (types.Integer,
                                                                              types.Float))


def _int64_slot(a, i):
    return isinstance(a, types.Array) and a.dtype == types.int64 and isinstance(i, types.Integer)


def _bits_pointer(context, builder, aty, ary, i):
    # &a[i], as an integer pointer for a float array (atomics act on the bits)
    ptr = _item_pointer(context, builder, aty, ary, i)
    if isinstance(aty.dtype, types.Float):
        ptr = builder.bitcast(ptr, ir.IntType(aty.dtype.bitwidth).as_pointer())
    return ptr


def _as_bits(builder, value, ty):
    return builder.bitcast(value, ir.IntType(ty.bitwidth)) if isinstance(ty, types.Float) else value


def _cas_intrinsic(ordering, doc):
    """An intrinsic ``f(a, i, expected, new)``: ``if a[i] == expected: a[i]
    = new`` as one atomic instruction with LLVM's ``ordering`` on success;
    returns whether it swapped."""
    def swap(typingctx, a, i, expected, new):
        if not (_num_array(a) and isinstance(i, types.Integer)
                and isinstance(expected, (types.Integer, types.Float))
                and isinstance(new, (types.Integer, types.Float))):
            return None
        sig = types.boolean(a, types.unliteral(i), types.unliteral(expected),
                            types.unliteral(new))

        def codegen(context, builder, signature, args):
            aty, _, ety, nty = signature.args
            ptr = _bits_pointer(context, builder, aty, args[0], args[1])
            exp = _as_bits(builder, context.cast(builder, args[2], ety, aty.dtype), aty.dtype)
            val = _as_bits(builder, context.cast(builder, args[3], nty, aty.dtype), aty.dtype)
            res = builder.cmpxchg(ptr, exp, val, ordering, "monotonic")
            return builder.extract_value(res, 1)

        return sig, codegen

    swap.__doc__ = doc
    return intrinsic(swap)


cas = _cas_intrinsic("acq_rel", """``if a[i] == expected: a[i] = new`` as one atomic instruction;
    returns whether it swapped (njit only; a: C-contiguous 1-d integer or float array, a float
    compared by its bits; i: an integer index, no bounds check, no negative wrap-around).""")
cas_relaxed = _cas_intrinsic("monotonic", """``cas`` that orders nothing else (the same
    instruction on x86, but the compiler keeps the loop's other loads and stores where they are:
    a delta-stepping relax loop on grid-512 took 3.4x as long with ``cas``). For a value that
    publishes no other write, such as a distance lowered by several threads (njit only).""")


@intrinsic
def load_acquire(typingctx, a, i):
    """``a[i]`` of an int64 array, read after every write another thread
    released before it (njit only)."""
    if not _int64_slot(a, i):
        return None
    sig = types.int64(a, types.unliteral(i))

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(ptr, "acquire", 8)

    return sig, codegen


@intrinsic
def store_release(typingctx, a, i, v):
    """``a[i] = v`` on an int64 array, after every write of this thread
    before it (njit only)."""
    if not _int64_slot(a, i):
        return None
    sig = types.void(a, types.unliteral(i), types.int64)

    def codegen(context, builder, signature, args):
        ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        builder.store_atomic(args[2], ptr, "release", 8)
        return context.get_dummy_value()

    return sig, codegen


# a spinning thread's hint to the core (x86 ``pause``; elsewhere nothing)
_PAUSE = ("llvm.x86.sse2.pause" if platform.machine().lower() in ("x86_64", "amd64", "i686", "x86")
          else "")


@intrinsic
def pause(typingctx):
    """A spin-wait hint (x86 ``pause``; nothing elsewhere; njit only)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        if _PAUSE:
            fn = cgutils.get_or_insert_function(builder.module,
                                                ir.FunctionType(ir.VoidType(), []), _PAUSE)
            builder.call(fn, [])
        return context.get_dummy_value()

    return sig, codegen


# POSIX sched_yield, resolved from the C library the process has loaded
_YIELD = "sched_yield" if platform.system() in ("Linux", "Darwin") else ""


@intrinsic
def yield_cpu(typingctx):
    """Give the CPU to another runnable thread (``sched_yield``; a ``pause``
    where there is none; njit only): a spin-wait's fallback once the awaited
    thread may have been descheduled (a busy machine)."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        name, fty = ((_YIELD, ir.FunctionType(ir.IntType(32), [])) if _YIELD
                     else (_PAUSE, ir.FunctionType(ir.VoidType(), [])))
        if name:
            builder.call(cgutils.get_or_insert_function(builder.module, fty, name), [])
        return context.get_dummy_value()

    return sig, codegen


def _item_pointer(context, builder, aty, ary, i):
    # &a[i]: no bounds check, no negative wrap-around
    arr = context.make_array(aty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aty, arr, [i], wraparound=False)


def _atomic_rmw(op, unsigned_only, ordering="monotonic"):
    """An intrinsic ``f(a, i, v)``: ``old = a[i]; a[i] = a[i] <op> v``
    atomically (LLVM ``atomicrmw`` with ``ordering``), returning old."""
    def f(typingctx, a, i, v):
        if not (_int_array(a) and (_unsigned(a.dtype) or not unsigned_only)
                and isinstance(i, types.Integer) and isinstance(v, types.Integer)):
            return None
        sig = a.dtype(a, types.unliteral(i), types.unliteral(v))

        def codegen(context, builder, signature, args):
            aty, _, vty = signature.args
            ptr = _item_pointer(context, builder, aty, args[0], args[1])
            val = context.cast(builder, args[2], vty, aty.dtype)
            return builder.atomic_rmw(op, ptr, val, ordering)

        return sig, codegen
    return f


atomic_or = intrinsic(_atomic_rmw("or", unsigned_only=True))
atomic_or.__doc__ = """``old = a[i]; a[i] |= v`` as one atomic instruction; returns old
(njit only; a: C-contiguous 1-d unsigned array, i: integer index)."""
fetch_add = intrinsic(_atomic_rmw("add", unsigned_only=False))
fetch_add.__doc__ = """``old = a[i]; a[i] += v`` as one atomic instruction; returns old
(njit only; a: C-contiguous 1-d integer array, i: integer index)."""
arrive = intrinsic(_atomic_rmw("add", unsigned_only=False, ordering="acq_rel"))
arrive.__doc__ = """``fetch_add`` that also publishes every earlier write of this thread (a
barrier's arrival; njit only)."""


# llvm.prefetch's name carries its pointer type: opaque pointers since LLVM 15
_PREFETCH = "llvm.prefetch.p0" if _llvm.llvm_version_info >= (15,) else "llvm.prefetch.p0i8"


def _prefetch_intrinsic(locality, doc):
    """A numba intrinsic ``f(a, i)`` hinting the CPU to fetch ``a[i]`` for
    reading with llvm.prefetch's ``locality`` (3: every cache level, 2:
    the second level and below; x86 prefetcht0 / prefetcht1). No bounds
    check needed: a prefetch never faults."""
    def hint(typingctx, a, i):
        if not (isinstance(a, types.Array) and a.ndim == 1 and isinstance(i, types.Integer)):
            return None
        sig = types.void(a, types.unliteral(i))

        def codegen(context, builder, signature, args):
            ptr = _item_pointer(context, builder, signature.args[0], args[0], args[1])
            i8p = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
            fn = cgutils.get_or_insert_function(builder.module, fnty, _PREFETCH)
            # read, the locality, data cache
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(locality), i32(1)])
            return context.get_dummy_value()

        return sig, codegen

    hint.__doc__ = doc
    return intrinsic(hint)


prefetch = _prefetch_intrinsic(3, """Hint the CPU to fetch ``a[i]`` into cache for reading
    (njit only; no bounds check needed: a prefetch never faults).""")
prefetch_l2 = _prefetch_intrinsic(2, """``prefetch`` into the second-level cache and below, not
    the first: for a gather issued far ahead (PageRank's pull: urand-20 13.3 -> 12.3 ms an
    iteration against ``prefetch``). njit only.""")
