"""Binary operators: ``bg.binary.PLUS``, ... (defined in ``bitgraph.semiring``).

python-graphblas's lower-case spelling names the same objects:

>>> import bitgraph as bg
>>> bg.binary.plus is bg.binary.PLUS is bg.semiring.lookup_binary("plus")
True
"""

from .semiring import (  # noqa: F401
    ANY, DIV, EQ, FIRST, FIRSTI, FIRSTJ, GE, GT, LAND, LE, LOR, LT, LXOR, MAX, MIN, MINUS,
    NE, PAIR, PLUS, RDIV, RMINUS, SECOND, SECONDI, SECONDJ, TIMES,
)
from .semiring import BINARY_OPS as ALL  # noqa: F401
from .semiring import _ALIASES
from .semiring import attribute as _attribute
from .semiring import lookup_binary as _lookup


def __getattr__(name):
    """``bg.binary.plus``: the object ``lookup_binary("plus")`` gives."""
    return _attribute(_lookup, "binary", name)


def __dir__():
    return sorted(set(globals()) | set(ALL) | set(_ALIASES))
