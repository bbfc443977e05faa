"""Masks: a Vector or Matrix read as a mask, with two flags.

``v.V`` (value mask, also what a bare ``v`` means), ``v.S`` (structural), and
``~`` flips the complement::

    >>> import bitgraph as bg
    >>> v = bg.Vector.from_coo([0, 2], [1, 0], size=3)
    >>> m = ~v.S
    >>> m.structure, m.complement
    (True, True)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Mask:
    """``parent`` read as a mask: structural or by value, maybe complemented.

    >>> import bitgraph as bg
    >>> v = bg.Vector.from_coo([0, 2], [1, 0], size=3)
    >>> m = ~v.S
    >>> m, m.parent is v, m.structure, m.complement
    (~Vector.S, True, True, True)
    >>> x = bg.Vector.from_coo([0, 1, 2], [5, 6, 7], size=3)
    >>> x.apply("identity", mask=m).to_coo()[0].tolist()   # where v has no entry
    [1]
    """

    parent: object
    structure: bool
    complement: bool = False

    def __invert__(self) -> "Mask":
        return Mask(self.parent, self.structure, not self.complement)

    def __repr__(self):
        kind = "S" if self.structure else "V"
        return f"{'~' if self.complement else ''}{type(self.parent).__name__}.{kind}"

    def __bool__(self):
        raise TypeError("a Mask has no truth value; pass it as mask=")


def as_mask(mask):
    """Normalise ``mask=`` to a Mask or None: a bare Vector/Matrix is its value mask."""
    if mask is None or isinstance(mask, Mask):
        return mask
    from . import _kinds as kinds

    if kinds.kind_of(mask) in (kinds.VECTOR, kinds.MATRIX):
        return Mask(mask, structure=False)
    from .errors import DomainMismatch

    raise DomainMismatch(f"mask must be a Vector, Matrix or Mask, got {type(mask).__name__}")
