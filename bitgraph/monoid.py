"""Monoids: ``bg.monoid.MIN``, ... (defined in ``bitgraph.semiring``)."""

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
