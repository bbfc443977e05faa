"""The exceptions bitgraph raises.

Every error names the call and the values involved, and subclasses the
builtin exception that fits, so ``except ValueError`` keeps working::

    >>> import bitgraph as bg
    >>> try:
    ...     bg.Vector.from_indices([5], size=3)
    ... except bg.InvalidIndex as e:
    ...     print(e)
    Vector.from_indices: index 5 is out of range for size 3
"""

__all__ = [
    "BitgraphError",
    "DimensionMismatch",
    "DomainMismatch",
    "InvalidIndex",
    "InvalidValue",
    "FormatError",
    "DeviceError",
    "ValidationError",
]


class BitgraphError(Exception):
    """Base class of every error bitgraph raises on purpose."""


class DimensionMismatch(BitgraphError, ValueError):
    """Shapes of the operands do not agree (names both shapes)."""


class DomainMismatch(BitgraphError, TypeError):
    """An operator is not defined for a dtype, or dtypes cannot be combined."""


class InvalidIndex(BitgraphError, IndexError):
    """An index is negative or out of range (names the index and the bound)."""


class InvalidValue(BitgraphError, ValueError):
    """A value or argument is not allowed (negative weights, bad options, ...)."""


class FormatError(BitgraphError, ValueError):
    """A file is malformed. Names the file, the line and what was expected."""

    def __init__(self, message, *, path=None, line=None):
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path if line is None else f"{self.path}:{line}"
            where += ": "
        super().__init__(where + message)


class DeviceError(BitgraphError, RuntimeError):
    """No GPU, CuPy missing, or out of device memory (names bytes needed/free)."""


class ValidationError(BitgraphError, AssertionError):
    """A result failed a check of :mod:`bitgraph.validate` (names the first
    bad vertex, the value found and the value expected)."""
