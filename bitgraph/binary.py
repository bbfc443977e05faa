"""Binary operators: ``bg.binary.PLUS``, ... (defined in ``bitgraph.semiring``)."""

from .semiring import (  # noqa: F401
    ANY, DIV, EQ, FIRST, FIRSTI, FIRSTJ, GE, GT, LAND, LE, LOR, LT, LXOR, MAX, MIN, MINUS,
    NE, PAIR, PLUS, RDIV, RMINUS, SECOND, SECONDI, SECONDJ, TIMES,
)
from .semiring import BINARY_OPS as ALL  # noqa: F401
