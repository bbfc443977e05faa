"""The object classes by kind, for the layers under them.

``ops`` builds Vectors and Matrices and tells them apart, while the object
modules (``vector``, ``matrix``) call ``ops`` from their methods. So that no
module imports one above it, each object class enters itself here where it
is defined (``@kinds.define("vector")``), and ``ops`` asks for it by kind
(``kinds.new("vector")``, ``kinds.is_vector(x)``). One entry per kind,
written when the class is defined; nothing else writes here.

>>> import bitgraph as bg
>>> new("vector") is bg.Vector, is_matrix(bg.Matrix(bool, 2, 2).T), kind_of(3)
(True, True, None)
"""

from __future__ import annotations

__all__ = ["VECTOR", "MATRIX", "TRANSPOSED", "define", "new", "kind_of", "is_vector",
           "is_matrix"]

VECTOR, MATRIX, TRANSPOSED = "vector", "matrix", "transposed"
_CLASSES: dict = {}


def define(kind: str):
    """Class decorator: the class of ``kind`` (its subclasses share the kind)."""
    if kind not in (VECTOR, MATRIX, TRANSPOSED):
        raise ValueError(f"kinds.define: unknown kind {kind!r}")

    def enter(cls):
        cls._kind = kind
        _CLASSES[kind] = cls
        return cls
    return enter


def new(kind: str):
    """The class of ``kind`` (its constructors build results)."""
    return _CLASSES[kind]


def kind_of(x):
    """"vector", "matrix", "transposed" (``A.T``), or None for anything else."""
    return getattr(type(x), "_kind", None)


def is_vector(x) -> bool:
    return kind_of(x) == VECTOR


def is_matrix(x) -> bool:
    """A Matrix or a transposed view of one."""
    return kind_of(x) in (MATRIX, TRANSPOSED)
