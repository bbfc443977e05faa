"""What Vector and Matrix share: masks, numpy guards, and the element-wise
operation methods (the math lives once, in ``bitgraph.ops``)."""

from __future__ import annotations

from .mask import Mask


class Container:
    """Base of Vector and Matrix: ``x.S``, ``x.V``, ``~x`` and the methods."""

    # scipy/numpy must never densify a sparse object silently
    __array_priority__ = 20
    __array_ufunc__ = None

    def __array__(self, *args, **kwargs):
        raise TypeError(f"a bitgraph {type(self).__name__} is sparse: use to_coo() or to_dense()/to_scipy()")

    @property
    def S(self) -> Mask:
        """Structural mask: the entries present."""
        return Mask(self, structure=True)

    @property
    def V(self) -> Mask:
        """Value mask: the entries present and non-zero (also what a bare ``x`` means)."""
        return Mask(self, structure=False)

    def __invert__(self) -> Mask:
        """Complemented value mask."""
        return Mask(self, structure=False, complement=True)

    def ewise_add(self, other, op="plus", **kw):
        """Union with ``other``; see :func:`bitgraph.ops.ewise_add`."""
        from . import ops

        return ops.ewise_add(self, other, op, **kw)

    def ewise_mult(self, other, op="times", **kw):
        """Intersection with ``other``; see :func:`bitgraph.ops.ewise_mult`."""
        from . import ops

        return ops.ewise_mult(self, other, op, **kw)

    def apply(self, op, **kw):
        """See :func:`bitgraph.ops.apply`."""
        from . import ops

        return ops.apply(self, op, **kw)

    def select(self, op, thunk=0, **kw):
        """See :func:`bitgraph.ops.select`."""
        from . import ops

        return ops.select(self, op, thunk, **kw)

    def reduce(self, monoid="plus", **kw):
        """See :func:`bitgraph.ops.reduce`."""
        from . import ops

        return ops.reduce(self, monoid, **kw)
