"""Monoids: ``bg.monoid.MIN``, ... (defined in ``bitgraph.semiring``).

python-graphblas's lower-case spelling names the same objects:

>>> import bitgraph as bg
>>> bg.monoid.plus is bg.monoid.PLUS is bg.semiring.lookup_monoid("plus")
True
"""

from .semiring import ANY_MONOID as ANY  # noqa: F401
from .semiring import EQ_MONOID as EQ  # noqa: F401
from .semiring import LAND_MONOID as LAND  # noqa: F401
from .semiring import LOR_MONOID as LOR  # noqa: F401
from .semiring import LXOR_MONOID as LXOR  # noqa: F401
from .semiring import MAX_MONOID as MAX  # noqa: F401
from .semiring import MIN_MONOID as MIN  # noqa: F401
from .semiring import MONOIDS as ALL  # noqa: F401
from .semiring import PLUS_MONOID as PLUS  # noqa: F401
from .semiring import TIMES_MONOID as TIMES  # noqa: F401
from .semiring import attribute as _attribute
from .semiring import lookup_monoid as _lookup


def __getattr__(name):
    """``bg.monoid.plus``: the object ``lookup_monoid("plus")`` gives."""
    return _attribute(_lookup, "monoid", name)


def __dir__():
    return sorted(set(globals()) | set(ALL) | {"lxnor"})
