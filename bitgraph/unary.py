"""Unary operators: ``bg.unary.AINV``, ... (defined in ``bitgraph.semiring``)."""

from .semiring import ABS, AINV, BNOT, IDENTITY, LNOT, MINV, ONE  # noqa: F401
from .semiring import UNARY_OPS as ALL  # noqa: F401
