"""Unary operators: ``bg.unary.AINV``, ... (defined in ``bitgraph.semiring``).

python-graphblas's lower-case spelling names the same objects:

>>> import bitgraph as bg
>>> bg.unary.ainv is bg.unary.AINV is bg.semiring.lookup_unary("ainv")
True
"""

from .semiring import ABS, AINV, BNOT, IDENTITY, LNOT, MINV, ONE  # noqa: F401
from .semiring import UNARY_OPS as ALL  # noqa: F401
from .semiring import attribute as _attribute
from .semiring import lookup_unary as _lookup


def __getattr__(name):
    """``bg.unary.ainv``: the object ``lookup_unary("ainv")`` gives."""
    return _attribute(_lookup, "unary", name)


def __dir__():
    return sorted(set(globals()) | set(ALL))
