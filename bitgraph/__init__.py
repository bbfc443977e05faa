"""bitgraph: GraphBLAS-style sparse linear algebra for graphs.

>>> import bitgraph as bg
>>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
>>> frontier = bg.Vector.from_indices([0], size=3)
>>> A.T.mxv(frontier, semiring=bg.LOR_LAND, mask=~frontier.S).indices().tolist()
[1]
"""

from . import algorithms, binary, device, io, monoid, semiring, settings, unary
from .device import get_device, set_device
from .errors import (
    BitgraphError,
    DeviceError,
    DimensionMismatch,
    DomainMismatch,
    FormatError,
    InvalidIndex,
    InvalidType,
    InvalidValue,
    NegativeCycle,
)
from .mask import Mask
from .matrix import Matrix
from .ops import (
    apply,
    assign,
    ewise_add,
    ewise_mult,
    extract,
    mxm,
    mxv,
    reduce,
    select,
    transpose,
    vxm,
)
from .semiring import (
    ANY_PAIR,
    ANY_SECONDI,
    LOR_LAND,
    MAX_PLUS,
    MAX_TIMES,
    MIN_FIRST,
    MIN_PLUS,
    MIN_SECOND,
    MIN_TIMES,
    PLUS_PAIR,
    PLUS_SECOND,
    PLUS_TIMES,
)
from .stats import Stats
from .vector import Vector

__version__ = "0.1.0"

__all__ = [
    "Matrix", "Vector", "Mask", "Stats",
    "mxv", "vxm", "mxm", "ewise_add", "ewise_mult", "apply", "select", "reduce",
    "extract", "assign", "transpose",
    "binary", "unary", "monoid", "semiring", "io", "algorithms", "device", "settings",
    "set_device", "get_device",
    "LOR_LAND", "ANY_PAIR", "PLUS_TIMES", "PLUS_PAIR", "MIN_PLUS", "MAX_PLUS",
    "MAX_TIMES", "MIN_TIMES", "MIN_FIRST", "MIN_SECOND", "ANY_SECONDI", "PLUS_SECOND",
    "BitgraphError", "DimensionMismatch", "DomainMismatch", "InvalidIndex",
    "InvalidValue", "NegativeCycle", "InvalidType", "FormatError", "DeviceError",
]
