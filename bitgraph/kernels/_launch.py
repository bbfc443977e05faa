"""What every launcher shares, CPU and CUDA alike: argument checks, the
index dtype of a call, the semiring as kernel scalars. Plain Python and
numpy; no numba, no CuPy.

>>> import numpy as np
>>> index_dtype(np.zeros(2, np.int32), None), index_dtype(np.zeros(2, np.int64))
(dtype('int32'), dtype('int64'))
>>> check_length("mxv", "x", np.zeros(2), 3)
Traceback (most recent call last):
ValueError: mxv: x has 2 entries, needs 3
"""

import numpy as np

from bitgraph.kernels import opcodes

__all__ = ["check_length", "check_bmv_vectors", "index_dtype", "semiring_args", "check_dtype",
           "check_binary", "check_monoid"]


def check_length(where, name, a, need, unit="entries"):
    """Raise ``ValueError`` naming the argument when array ``a`` holds fewer
    than ``need`` items: the kernels read without bounds checks."""
    if a is not None and a.size < need:
        raise ValueError(f"{where}: {name} has {a.size} {unit}, needs {need}")


def check_bmv_vectors(where, B, x_present, allowed, x_true=None, x_values=None):
    """The vectors of a B2SR BMV (CPU and CUDA launchers alike) are long
    enough for B: bitmaps over its columns and rows, values over columns."""
    words = lambda n: (n + 31) // 32  # noqa: E731
    check_length(where, "x_present", x_present, words(B.ncols), "uint32 words")
    check_length(where, "x_true", x_true, words(B.ncols), "uint32 words")
    check_length(where, "allowed", allowed, words(B.nrows), "uint32 words")
    check_length(where, "x_values", x_values, B.ncols)


def index_dtype(*arrays):
    """The one index dtype for a call: int64 if any array is int64."""
    for a in arrays:
        if a is not None and a.dtype.itemsize > 4:
            return np.dtype(np.int64)
    return np.dtype(np.int32)


def semiring_args(where, sr, flipped=False):
    """(T, add, mult, identity, has_terminal, terminal) for the kernels.

    Checks the codes; ``identity`` and ``terminal`` become numpy scalars of
    T, the codes ints; ``flipped`` swaps the operands of the multiply (the
    kernels never see the flag: see ``opcodes.flipped``).
    """
    dtype = check_dtype(where, sr.dtype)
    add = check_monoid(where, sr.add)
    mult = check_binary(where, sr.mult, positional_ok=True)
    if flipped:
        mult = opcodes.flipped(mult)
    identity = dtype.type(sr.identity)
    if sr.terminal is None:
        return dtype, add, mult, identity, False, identity
    return dtype, add, mult, identity, True, dtype.type(sr.terminal)


def check_dtype(where, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind not in "biuf" or dtype.itemsize > 8:
        raise TypeError(f"{where}: unsupported dtype {dtype} (bool, int8..64,"
                        f" uint8..64, float32, float64)")
    return dtype


def check_binary(where, code, positional_ok=False):
    code = int(code)
    if not 0 <= code <= opcodes.SECONDJ:
        raise ValueError(f"{where}: unknown binary op code {code}")
    if code in opcodes.POSITIONAL and not positional_ok:
        raise ValueError(f"{where}: positional op code {code} is only valid "
                         f"as the multiply of a semiring")
    return code


def check_monoid(where, code):
    code = int(code)
    if code not in _MONOIDS:
        raise ValueError(f"{where}: op code {code} is not a monoid code "
                         f"(PLUS, TIMES, MIN, MAX, ANY, LOR, LAND, LXOR, EQ)")
    return code


_MONOIDS = (opcodes.PLUS, opcodes.TIMES, opcodes.MIN, opcodes.MAX,
            opcodes.ANY, opcodes.LOR, opcodes.LAND, opcodes.LXOR, opcodes.EQ)
