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
    "InvalidType",
    "NegativeCycle",
    "FormatError",
    "DeviceError",
    "DistributedError",
    "ValidationError",
]


class BitgraphError(Exception):
    """Base class of every error bitgraph raises on purpose.

    >>> import bitgraph as bg
    >>> try:
    ...     bg.Vector.from_indices([5], size=3)
    ... except bg.BitgraphError as e:
    ...     type(e).__name__, isinstance(e, IndexError)
    ('InvalidIndex', True)
    """


class DimensionMismatch(BitgraphError, ValueError):
    """Shapes of the operands do not agree (names both shapes).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=2, ncols=3)
    >>> u = bg.Vector.from_coo([0], [1.0], size=2)
    >>> try:
    ...     A.mxv(u)
    ... except bg.DimensionMismatch as e:
    ...     print(e, isinstance(e, ValueError))
    mxv: A.ncols (=3) must equal u.size (=2) True
    """


class DomainMismatch(BitgraphError, TypeError):
    """An operator is not defined for a dtype, or dtypes cannot be combined.

    >>> import bitgraph as bg
    >>> x = bg.Vector.from_coo([0], [1.5], size=2)
    >>> try:
    ...     x.apply("bnot")
    ... except bg.DomainMismatch as e:
    ...     print(e, isinstance(e, TypeError))
    unary op 'bnot' is not defined for float64 True
    """


class InvalidIndex(BitgraphError, IndexError):
    """An index is negative or out of range (names the index and the bound).

    >>> import bitgraph as bg
    >>> try:
    ...     bg.Vector.from_indices([5], size=3)
    ... except bg.InvalidIndex as e:
    ...     print(e, isinstance(e, IndexError))
    Vector.from_indices: index 5 is out of range for size 3 True
    """


class InvalidValue(BitgraphError, ValueError):
    """A value or argument is not allowed (negative weights, bad options, ...).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
    >>> try:
    ...     A.select("trill")
    ... except bg.InvalidValue as e:
    ...     print(e, isinstance(e, ValueError))
    select: unknown select op 'trill'; did you mean 'tril' or 'triu'? True
    """


class InvalidType(BitgraphError, TypeError):
    """An argument has the wrong type (names the argument, what it must be
    and what was given): a float where a dimension or a vertex id goes, a
    list of lists where a list of vertex ids goes.

    >>> import bitgraph as bg
    >>> try:
    ...     bg.Vector(size=3.7)
    ... except bg.InvalidType as e:
    ...     print(e, isinstance(e, TypeError))
    Vector: size must be an integer, got float 3.7 True
    """

class NegativeCycle(InvalidValue):
    """Shortest paths are unbounded: a cycle of negative total weight is
    reachable. ``vertex`` is a vertex on such a cycle, ``cycle`` the
    vertices of one in order (each has an edge to the next, the last to the
    first) and ``weight`` its total weight.

    >>> import bitgraph as bg
    >>> from bitgraph.errors import NegativeCycle
    >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 1], [1, -3, 1], nrows=3, ncols=3)
    >>> try:
    ...     bg.algorithms.sssp(A, 0)
    ... except NegativeCycle as e:
    ...     e.vertex in (1, 2), sorted(e.cycle), e.weight, isinstance(e, bg.InvalidValue)
    (True, [1, 2], -2, True)
    """

    def __init__(self, message, *, vertex=None, cycle=None, weight=None):
        self.vertex = vertex
        self.cycle = cycle
        self.weight = weight
        super().__init__(message)


class FormatError(BitgraphError, ValueError):
    """A file is malformed. Names the file, the line and what was expected.

    >>> import io
    >>> import bitgraph as bg
    >>> try:
    ...     bg.io.read_edgelist(io.StringIO("0 1\\n0 x\\n"))
    ... except bg.FormatError as e:
    ...     print(e)
    ...     e.path, e.line, isinstance(e, ValueError)
    <stream>:2: target vertex id 'x' is not a number
    ('<stream>', 2, True)
    """

    def __init__(self, message, *, path=None, line=None):
        self.path = None if path is None else str(path)
        self.line = line
        where = ""
        if self.path is not None:
            where = self.path if line is None else f"{self.path}:{line}"
            where += ": "
        super().__init__(where + message)


class DeviceError(BitgraphError, RuntimeError):
    """No GPU, CuPy missing, or out of device memory (names bytes needed/free).

    Where CUDA is not usable, asking for it raises one that says why (where
    it is, the copy is made):

    >>> import bitgraph as bg
    >>> v = bg.Vector.from_indices([1], size=3)
    >>> try:
    ...     where = v.to("cuda").device
    ... except bg.DeviceError as e:
    ...     where = str(e)
    >>> where == "cuda" or where == (
    ...     "Vector.to: device 'cuda' was asked for, but " + bg.device.cuda_status())
    True
    >>> issubclass(bg.DeviceError, RuntimeError)
    True
    """


class DistributedError(BitgraphError, RuntimeError):
    """The ranks of a distributed call disagree (the graph, the sources, the
    order of collectives), the launcher's environment names no rank, or
    another rank failed (names the rank and what it raised).

    >>> import bitgraph as bg
    >>> issubclass(bg.errors.DistributedError, RuntimeError)
    True
    """


class ValidationError(BitgraphError, AssertionError):
    """A result failed a check of :mod:`bitgraph.validate` (names the first
    bad vertex, the value found and the value expected)."""
