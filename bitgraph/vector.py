"""Vector: a sparse vector stored as a packed bitmap plus dense values.

Structure is a bitmap of uint32 words (bit ``i & 31`` of word ``i >> 5`` is
entry ``i``); values are a dense array of ``size`` entries, zero where absent.
That is the layout bit-level traversal kernels read directly::

    >>> import bitgraph as bg
    >>> u = bg.Vector.from_coo([1, 3], [2.0, 5.0], size=4)
    >>> u.nvals, u.to_dense(fill=-1).tolist()
    (2, [-1.0, 2.0, -1.0, 5.0])
"""

from __future__ import annotations

import numpy as np

from . import _array as ar
from .errors import BitgraphError, DimensionMismatch, InvalidValue
from . import _kinds as kinds
from ._container import Container
from .semiring import lookup_binary, lookup_dtype


@kinds.define(kinds.VECTOR)
class Vector(Container):
    """A sparse vector of ``size`` entries over one dtype.

    >>> import bitgraph as bg
    >>> bg.Vector(dtype="int8", size=3).nvals
    0
    """

    def __init__(self, dtype=bool, size=0, *, device=None):
        from . import device as dev

        size = ar.as_dim(size, "Vector", "size")
        xp = dev.require_cuda("Vector") if dev.resolve(device, "Vector") == "cuda" else np
        self._dtype = lookup_dtype(dtype)
        self._size = size
        self._bitmap = xp.zeros(ar.nwords(size), np.uint32)
        self._values = xp.zeros(size, self._dtype)

    @classmethod
    def _from_parts(cls, bitmap, values, size=None):
        """Wrap a bitmap and dense values (no copy); values are zeroed where absent."""
        v = cls.__new__(cls)
        v._size = int(values.shape[0] if size is None else size)
        v._dtype = lookup_dtype(values.dtype)
        v._bitmap = bitmap
        v._values = values
        return v

    @classmethod
    def _from_present(cls, present, values):
        xp = ar.array_module(values)
        values = xp.where(present, values, values.dtype.type(0))
        return cls._from_parts(ar.pack_bits(present), values)

    # --- constructors ---------------------------------------------------------------
    @classmethod
    def from_coo(cls, indices, values=None, size=None, *, dtype=None, dup_op=None, device=None):
        """Build from indices and values; ``values=None`` means all True (bool).

        Duplicates: ``dup_op=None`` raises for valued input and collapses them
        when there are no values; otherwise they are combined with ``dup_op``.
        ``device``: "cpu", "cuda" or "auto"; None: the inputs' device when
        they are CuPy arrays, else the default (``bitgraph.set_device``).

        >>> Vector.from_coo([0, 0, 2], [1, 2, 3], size=3, dup_op="plus").to_dense().tolist()
        [3, 0, 3]
        """
        from . import device as dev

        v = cls._from_coo(dev.host(indices), None if values is None else dev.host(values), size,
                          dtype, dup_op)
        return dev.place(v, device, "Vector.from_coo", indices, values)

    @classmethod
    def _from_coo(cls, idx, values, size, dtype, dup_op, where="Vector.from_coo"):
        _check_dup_op(dup_op, where)
        size = None if size is None else ar.as_dim(size, where, "size")
        idx = ar.as_index_array(idx, where, size)
        if size is None:
            size = int(idx.max()) + 1 if idx.size else 0
            ar.check_bounds(idx, where, size)  # negative indices
        if values is None:
            vals = np.ones(idx.shape[0], np.bool_)
            if dup_op is None:
                dup_op = "any"
        else:
            vals = np.asarray(values)
            if vals.ndim == 0:
                vals = np.full(idx.shape[0], vals)
            if vals.shape != idx.shape:
                raise DimensionMismatch(
                    f"{where}: {vals.shape[0] if vals.ndim else 0} values for {idx.shape[0]} indices"
                )
            if dtype is None and vals.size == 0 and vals.dtype == np.float64:
                vals = vals.astype(np.float64)
        dt = lookup_dtype(dtype if dtype is not None else vals.dtype)
        vals = ar.cast(vals, dt) if vals.dtype != dt else vals
        keys, vals = _combine_duplicates(idx, vals, dup_op, "Vector.from_coo")
        present = np.zeros(int(size), np.bool_)
        present[keys] = True
        dense = np.zeros(int(size), dt)
        dense[keys] = vals
        return cls._from_parts(ar.pack_bits(present), dense)

    @classmethod
    def from_indices(cls, indices, size, *, dtype=bool, device=None):
        """Entries at ``indices`` set to 1/True: a BFS frontier (``device``
        as in ``from_coo``).

        >>> Vector.from_indices([0], size=3).indices().tolist()
        [0]
        """
        from . import device as dev

        where = "Vector.from_indices"
        size = ar.as_dim(size, where, "size")
        idx = ar.as_index_array(dev.host(indices), where, size)
        v = cls._from_coo(idx, np.ones(idx.shape[0], lookup_dtype(dtype)), size, None, "any", where)
        return dev.place(v, device, "Vector.from_indices", indices)

    @classmethod
    def from_dense(cls, array, *, dtype=None, device=None):
        """Every entry of a 1-D array present; a CuPy array stays on the GPU
        (``device`` as in ``from_coo``).

        >>> Vector.from_dense([1.5, 0.0]).nvals
        2
        """
        from . import device as dev

        where = "Vector.from_dense"
        gpu = dev.resolve(device if device is not None else
                          ("cuda" if dev.on_gpu(array) else None), where) == "cuda"
        a = dev.require_cuda(where).asarray(array) if gpu else dev.host(array)
        if a.ndim != 1:
            raise DimensionMismatch(f"Vector.from_dense: expected a 1-D array, got shape {a.shape}")
        dt = lookup_dtype(dtype if dtype is not None else a.dtype)
        vals = ar.cast(a, dt).copy()
        return cls._from_parts(ar.pack_bits(ar.array_module(a).ones(a.shape[0], np.bool_)), vals)

    @classmethod
    def from_graphblas(cls, g, *, device=None):
        """From a ``graphblas.Vector`` (python-graphblas).

        >>> import graphblas as gb
        >>> Vector.from_graphblas(gb.Vector.from_coo([2], [1.5], size=4)).to_dense().tolist()
        [0.0, 0.0, 1.5, 0.0]
        """
        idx, vals = g.to_coo()
        return cls.from_coo(idx, vals, size=g.size, dtype=np.dtype(g.dtype.np_type), device=device)

    def to_graphblas(self):
        """To a ``graphblas.Vector`` (needs the ``test`` extra: python-graphblas).

        >>> g = Vector.from_coo([1, 3], [5, 6], size=4).to_graphblas()
        >>> g.size, g.nvals
        (4, 2)
        """
        gb = _import_graphblas()
        idx, vals = self.to_coo()
        return gb.Vector.from_coo(idx, vals, size=self._size, dtype=vals.dtype)

    # --- properties -----------------------------------------------------------------
    @property
    def size(self) -> int:
        """Number of positions (present or not).

        >>> Vector.from_indices([1], size=5).size
        5
        """
        return self._size

    @property
    def shape(self):
        """``(size,)``.

        >>> Vector.from_indices([1], size=5).shape
        (5,)
        """
        return (self._size,)

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of the values.

        >>> Vector.from_coo([0], [1.5], size=2).dtype
        dtype('float64')
        """
        return self._dtype

    @property
    def device(self) -> str:
        """Where the arrays live: "cpu" or "cuda".

        >>> Vector.from_indices([0], size=2, device="cpu").device
        'cpu'
        """
        return "cpu" if ar.array_module(self._values) is np else "cuda"

    @property
    def nvals(self) -> int:
        """Number of entries present.

        >>> Vector.from_coo([0, 3], [1, 2], size=5).nvals
        2
        """
        return ar.popcount_words(self._bitmap)

    @property
    def bitmap(self):
        """The structure as packed uint32 words (read-only view): bit i of
        word i // 32 is set when entry i is present.

        >>> Vector.from_indices([0, 3, 33], size=40).bitmap.tolist()
        [9, 2]
        """
        b = self._bitmap.view()
        if ar.array_module(b) is np:  # CuPy arrays have no read-only flag
            b.flags.writeable = False
        return b

    def _present(self):
        return ar.unpack_bits(self._bitmap, self._size)

    def indices(self):
        """Sorted int64 indices of the entries.

        >>> Vector.from_coo([3, 1], [1, 1], size=4).indices().tolist()
        [1, 3]
        """
        xp = ar.array_module(self._bitmap)
        return xp.flatnonzero(self._present()).astype(np.int64)

    def to_coo(self):
        """``(indices, values)``, sorted by index.

        >>> idx, vals = Vector.from_coo([3, 1], [7, 8], size=4).to_coo()
        >>> idx.tolist(), vals.tolist()
        ([1, 3], [8, 7])
        """
        idx = self.indices()
        return idx, self._values[idx]

    def to_dense(self, fill=0):
        """A dense array with ``fill`` where there is no entry.

        >>> Vector.from_coo([1], [7], size=3).to_dense(fill=-1).tolist()
        [-1, 7, -1]
        """
        dt = self._dtype
        with np.errstate(all="ignore"):
            if np.asarray(fill).astype(dt) != fill:
                dt = np.result_type(dt, np.asarray(fill))
        out = self._values.astype(dt, copy=True)
        out[~self._present()] = fill
        return out

    def copy(self) -> "Vector":
        """A new Vector with its own copy of the arrays.

        >>> u = Vector.from_coo([1], [2], size=3)
        >>> w = u.copy()
        >>> w is u, w.isequal(u)
        (False, True)
        """
        return Vector._from_parts(self._bitmap.copy(), self._values.copy(), self._size)

    def to(self, device) -> "Vector":
        """This vector on ``device`` ("cpu", "cuda" or "auto"): itself when it
        is there already, else a copy there (see ``Matrix.to``).

        >>> v = Vector.from_indices([1], size=3)
        >>> v.to("cpu") is v
        True
        """
        from . import device as dev

        where = "Vector.to"
        target = dev.resolve(device, where)
        if target == self.device:
            return self
        return Vector._from_parts(dev.asdevice(self._bitmap, target, where),
                                  dev.asdevice(self._values, target, where), self._size)

    def isequal(self, other, *, check_dtype=False) -> bool:
        """Same size, structure and values (and dtype when ``check_dtype``).

        >>> u = Vector.from_coo([1], [2], size=3)
        >>> u.isequal(u.copy()), u.isequal(Vector.from_coo([1], [2.0], size=3), check_dtype=True)
        (True, False)
        """
        if not isinstance(other, Vector):
            return False
        if self._size != other._size or (check_dtype and self._dtype != other._dtype):
            return False
        if not np.array_equal(self._bitmap, other._bitmap):
            return False
        idx = self.indices()
        return bool(np.array_equal(self._values[idx], other._values[idx]))

    def __repr__(self):
        return f"Vector(size={self._size}, nvals={self.nvals}, dtype={self._dtype})"

    def __len__(self):
        return self._size

    # --- operations (the math lives in bitgraph.ops) --------------------------------
    def vxm(self, A, semiring="plus_times", **kw):
        """``u @ A`` over a semiring; see :func:`bitgraph.ops.vxm`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 0], [1, 2], [2, 3], nrows=3, ncols=3)
        >>> Vector.from_coo([0], [10], size=3).vxm(A).to_dense().tolist()
        [0, 20, 30]
        """
        from . import ops

        return ops.vxm(self, A, semiring, **kw)

    def extract(self, index=None, **kw):
        """The sub-vector ``u(index)`` (indices may repeat; None: all); see
        :func:`bitgraph.ops.extract`.

        >>> Vector.from_coo([0, 2], [5, 6], size=3).extract([2, 1, 2]).to_dense(-1).tolist()
        [6, -1, 6]
        """
        from . import ops

        return ops.extract(self, index, **kw)

    def assign(self, value, index=None, **kw):
        """``w(index) = value`` in place (returns w); see
        :func:`bitgraph.ops.assign`.

        >>> Vector(dtype="int64", size=4).assign(7, [1, 3]).to_dense().tolist()
        [0, 7, 0, 7]
        """
        from . import ops

        return ops.assign(self, value, index, **kw)


def _check_dup_op(dup_op, where):
    """Look ``dup_op`` up before anything runs, so a bad name is an error
    whether or not there are duplicates; the error names the argument."""
    if dup_op is None:
        return
    try:
        lookup_binary(dup_op)
    except BitgraphError as e:
        raise type(e)(f"{where}: dup_op: {e}") from None


def _combine_duplicates(keys, vals, dup_op, where):
    """Sort int64 keys and combine duplicate keys' values with ``dup_op``."""
    if keys.shape[0] == 0:
        return keys, vals
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    vals = vals[order]
    first = np.ones(keys.shape[0], np.bool_)
    first[1:] = keys[1:] != keys[:-1]
    if first.all():
        return keys, vals
    if dup_op is None:
        k = int(keys[np.argmin(first)])
        raise InvalidValue(f"{where}: duplicate index {k}; pass dup_op= to combine duplicates")
    op = lookup_binary(dup_op)
    from .kernels.opcodes import ANY, FIRST, SECOND

    starts = np.flatnonzero(first)
    if op.code in (ANY, FIRST):
        return keys[starts], vals[starts]
    if op.code == SECOND:
        ends = np.append(starts[1:], keys.shape[0]) - 1
        return keys[starts], vals[ends]
    from . import ops

    return keys[starts], ops.reduce_segments(np.append(starts, keys.shape[0]), vals, op)


def _import_graphblas():
    try:
        import graphblas
    except ImportError:
        raise ImportError(
            "python-graphblas is needed for this conversion: pip install python-graphblas"
        ) from None
    return graphblas

