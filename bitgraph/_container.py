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
        """Structural mask: the entries present.

        >>> import bitgraph as bg
        >>> v = bg.Vector.from_coo([0, 2], [1, 0], size=3)
        >>> x = bg.Vector.from_coo([0, 1, 2], [5, 6, 7], size=3)
        >>> v.S, x.apply("identity", mask=v.S).to_coo()[0].tolist()
        (Vector.S, [0, 2])
        """
        return Mask(self, structure=True)

    @property
    def V(self) -> Mask:
        """Value mask: the entries present and non-zero (also what a bare ``x`` means).

        >>> import bitgraph as bg
        >>> v = bg.Vector.from_coo([0, 2], [1, 0], size=3)
        >>> x = bg.Vector.from_coo([0, 1, 2], [5, 6, 7], size=3)
        >>> v.V, x.apply("identity", mask=v.V).to_coo()[0].tolist()
        (Vector.V, [0])
        >>> x.apply("identity", mask=v).isequal(x.apply("identity", mask=v.V))
        True
        """
        return Mask(self, structure=False)

    def __invert__(self) -> Mask:
        """Complemented value mask."""
        return Mask(self, structure=False, complement=True)

    def ewise_add(self, other, op="plus", **kw):
        """Union with ``other``; see :func:`bitgraph.ops.ewise_add`.

        >>> import bitgraph as bg
        >>> x = bg.Vector.from_coo([0, 1], [1, 2], size=3)
        >>> y = bg.Vector.from_coo([1, 2], [10, 20], size=3)
        >>> x.ewise_add(y).to_dense().tolist(), x.ewise_add(y, "max").to_dense().tolist()
        ([1, 12, 20], [1, 10, 20])
        """
        from . import ops

        return ops.ewise_add(self, other, op, **kw)

    def ewise_mult(self, other, op="times", **kw):
        """Intersection with ``other``; see :func:`bitgraph.ops.ewise_mult`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 0], [3, 2], nrows=2, ncols=2)
        >>> B = bg.Matrix.from_coo([0, 1], [1, 1], [10, 20], nrows=2, ncols=2)
        >>> [a.tolist() for a in A.ewise_mult(B).to_coo()]
        [[0], [1], [30]]
        """
        from . import ops

        return ops.ewise_mult(self, other, op, **kw)

    def apply(self, op, **kw):
        """A unary op on every entry, or a binary op with a scalar bound
        (``left=``/``right=``); see :func:`bitgraph.ops.apply`.

        >>> import bitgraph as bg
        >>> x = bg.Vector.from_coo([0, 2], [1, 4], size=3)
        >>> x.apply("ainv").to_coo()[1].tolist(), x.apply("times", right=10).to_coo()[1].tolist()
        ([-1, -4], [10, 40])
        """
        from . import ops

        return ops.apply(self, op, **kw)

    def select(self, op, thunk=0, **kw):
        """Keep the entries a select op holds for; see :func:`bitgraph.ops.select`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1, 1], [1, 0, 1], [5, 6, 7], nrows=2, ncols=2)
        >>> [a.tolist() for a in A.select("tril").to_coo()]
        [[1, 1], [0, 1], [6, 7]]
        >>> A.select("valuegt", 5).nvals
        2
        """
        from . import ops

        return ops.select(self, op, thunk, **kw)

    def reduce(self, monoid="plus", **kw):
        """Reduce with a monoid, to a scalar or (a Matrix, ``by=``) to a
        Vector; see :func:`bitgraph.ops.reduce`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1, 2, 3], nrows=2, ncols=2)
        >>> int(A.reduce()), A.reduce("max", by="cols").to_dense().tolist()
        (6, [1, 3])
        >>> int(bg.Vector.from_coo([0, 2], [4, 1], size=3).reduce("min"))
        1
        """
        from . import ops

        return ops.reduce(self, monoid, **kw)
