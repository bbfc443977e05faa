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
    def _from_parts(cls, bitmap, values, size=None, dtype=None):
        """Wrap a bitmap and dense values (no copy); values are zeroed where
        absent. dtype: values' numpy dtype when the caller knows it is a
        supported one (a hot caller skips the lookup)."""
        v = cls.__new__(cls)
        v._size = int(values.shape[0] if size is None else size)
        v._dtype = lookup_dtype(values.dtype) if dtype is None else dtype
        v._bitmap = bitmap
        v._values = values
        return v

    @classmethod
    def _from_present(cls, present, values):
        """A Vector of ``values`` where ``present`` (values zeroed elsewhere, in a new array)."""
        from . import plan

        words, values = plan.present_vector(present, values)
        return cls._from_parts(words, values)

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
    def from_dense(cls, array, missing_value=None, *, dtype=None, device=None):
        """Every entry of a 1-D array present, except those equal to
        ``missing_value`` (compared by ``!=``, so NaN never is), as
        python-graphblas's ``from_dense``; a CuPy array stays on the GPU (``device`` as in
        ``from_coo``).

        >>> Vector.from_dense([1.5, 0.0]).nvals
        2
        >>> Vector.from_dense([1, 0, 2], missing_value=0).to_coo()[0].tolist()
        [0, 2]
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
        if missing_value is None:  # every entry: the bitmap needs no flags
            return cls._from_parts(ar.full_bitmap(a.shape[0], ar.array_module(a)), vals)
        return cls._from_present(_not_missing(a, missing_value), vals)

    @classmethod
    def from_graphblas(cls, g, *, device=None):
        """From a ``graphblas.Vector`` (python-graphblas).

        >>> import graphblas as gb
        >>> Vector.from_graphblas(gb.Vector.from_coo([2], [1.5], size=4)).to_dense().tolist()
        [0.0, 0.0, 1.5, 0.0]
        """
        idx, vals = g.to_coo()
        return cls.from_coo(idx, vals, size=g.size, dtype=np.dtype(g.dtype.np_type), device=device)

    @classmethod
    def from_scipy(cls, S, *, dtype=None, device=None):
        """From a 1-D scipy sparse array (``coo_array`` of shape ``(n,)``), or
        a 2-D one with one row or one column; duplicates are summed, as
        scipy does. ``device`` as in ``from_coo``.

        >>> import scipy.sparse as sp
        >>> S = sp.coo_array(([2.5, 4.0], ([1, 3],)), shape=(5,))
        >>> Vector.from_scipy(S).to_dense(fill=-1).tolist()
        [-1.0, 2.5, -1.0, 4.0, -1.0]
        >>> Vector.from_scipy(sp.csr_array([[0, 7, 0]])).to_coo()[0].tolist()
        [1]
        """
        import scipy.sparse as sp

        where = "Vector.from_scipy"
        if not sp.issparse(S):
            raise InvalidValue(f"{where}: expected a scipy sparse array, got {type(S).__name__}")
        if len(S.shape) == 2 and 1 not in S.shape:
            raise DimensionMismatch(f"{where}: a 2-D array must have one row or one column to be a"
                                    f" Vector, got shape {S.shape}")
        C = sp.coo_array(S, copy=True)
        C.sum_duplicates()
        size = C.shape[-1] if len(C.shape) == 1 or C.shape[0] == 1 else C.shape[0]
        idx = C.coords[-1] if len(C.shape) == 1 or C.shape[0] == 1 else C.coords[0]
        return cls.from_coo(idx, C.data, size=size, dtype=dtype if dtype is not None else C.dtype,
                            device=device)

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

    # (bitmap, count): the count of the bitmap it holds. Every write gives a vector a new
    # bitmap (ops replace it, never change it in place), so a kept count is current while
    # its bitmap is; on the GPU a count is a kernel and a host read that waits for the GPU.
    _counted = None

    @property
    def nvals(self) -> int:
        """Number of entries present.

        >>> Vector.from_coo([0, 3], [1, 2], size=5).nvals
        2
        """
        counted = self._counted
        if counted is not None and counted[0] is self._bitmap:
            return counted[1]
        from . import plan

        n = plan.count_bits(self._bitmap)
        self._counted = (self._bitmap, n)
        return n

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
        from . import plan

        return plan.unpack_bits(self._bitmap, self._size)

    def indices(self):
        """Sorted int64 indices of the entries.

        >>> Vector.from_coo([3, 1], [1, 1], size=4).indices().tolist()
        [1, 3]
        """
        from . import plan

        # the GPU's kernel sizes its output by the count (kept); the CPU's needs none
        count = self.nvals if ar.array_module(self._bitmap) is not np else None
        return plan.bit_indices(self._bitmap, self._size, count)

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

    # --- python-graphblas habits --------------------------------------------------
    def dup(self, dtype=None, *, clear=False, mask=None) -> "Vector":
        """A copy, as python-graphblas's ``dup``: cast to ``dtype`` when
        given, empty with ``clear=True``, only the entries ``mask`` allows
        with ``mask=``.

        >>> u = Vector.from_coo([0, 2], [1.5, 2.5], size=3)
        >>> u.dup("int64").to_coo()[1].tolist(), u.dup(clear=True).nvals
        ([1, 2], 0)
        >>> u.dup(mask=Vector.from_indices([2], size=3).S).to_coo()[0].tolist()
        [2]
        """
        dt = self._dtype if dtype is None else lookup_dtype(dtype)
        if clear:
            return Vector(dt, self._size, device=self.device)
        if dtype is None and mask is None:
            return self.copy()
        from . import ops

        return ops.apply(self, "identity", mask=mask, out=Vector(dt, self._size, device=self.device))

    def __getitem__(self, index):
        """``v[i]``: the value at ``i`` (a numpy scalar) or None when there is
        no entry, as python-graphblas's ``v[i].value``; a negative ``i``
        counts from the end. ``v[list or slice]``: the sub-vector
        (``extract``).

        >>> v = Vector.from_coo([1, 3], [10, 30], size=4)
        >>> int(v[1]), v[0], int(v[-1]), v[1:].to_dense(fill=-1).tolist()
        (10, None, 30, [10, -1, 30])
        """
        i = _position(index, self._size, "Vector[i]")
        if i is None:
            return self.extract(index)
        if not (int(self._bitmap[i >> 5]) >> (i & 31)) & 1:
            return None
        return self._dtype.type(self._values[i].item())

    def __setitem__(self, index, value):
        """``v[i] = x`` (or ``v[list] = x``): ``assign`` of a scalar, a Vector
        into the positions listed; in place.

        >>> v = Vector(dtype="int64", size=3)
        >>> v[1] = 7
        >>> v[[0, 2]] = 5
        >>> v.to_dense().tolist()
        [5, 7, 5]
        """
        from . import ops

        i = _position(index, self._size, "Vector[i]")
        ops.assign(self, value, index if i is None else i)

    def __delitem__(self, index):
        """``del v[i]`` (or a list or slice): remove those entries (no error
        where there is none, as python-graphblas).

        >>> v = Vector.from_coo([0, 1, 2], [4, 5, 6], size=3)
        >>> del v[1]
        >>> del v[-1]
        >>> v.to_coo()[0].tolist()
        [0]
        """
        from . import ops

        i = _position(index, self._size, "Vector[i]")
        n = 1 if i is not None else _index_len(index, self._size)
        ops.assign(self, Vector(self._dtype, n, device=self.device), [i] if i is not None else index)

    def __contains__(self, index) -> bool:
        """``i in v``: whether entry ``i`` is present.

        >>> v = Vector.from_coo([1], [0], size=3)
        >>> 1 in v, 2 in v
        (True, False)
        """
        return self[_position_or_fail(index, self._size, "i in Vector")] is not None

    def __iter__(self):
        """The indices of the entries, as python-graphblas iterates a Vector.

        >>> list(Vector.from_coo([3, 1], [5, 6], size=4))
        [1, 3]
        """
        return iter(self.indices().tolist())

    def __matmul__(self, other):
        """``u @ A`` (``vxm``) and ``u @ v`` (the dot product: a numpy
        scalar, None when no position meets), over ``plus_times``, as
        python-graphblas. On bool operands python-graphblas has no
        plus_times and raises; so does this (``DomainMismatch``): call
        ``u.vxm(A, "lor_land")`` or ``"plus_pair"`` instead. bitgraph is
        eager, so ``@`` computes at once; a mask or accum goes to ``vxm``.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 0], [1, 2], [2, 3], nrows=3, ncols=3)
        >>> u = Vector.from_coo([0], [10], size=3)
        >>> (u @ A).to_dense().tolist(), int(u @ u)
        ([0, 20, 30], 100)
        """
        from . import _kinds as k
        from . import ops

        if k.is_vector(other):
            _plus_times_defined(self, other, "u @ v")
            if self._size != other.size:
                raise DimensionMismatch(f"u @ v: u.size (={self._size}) must equal v.size (={other.size})")
            return ops.reduce(ops.ewise_mult(self, other, "times"), "plus")
        if k.kind_of(other) in (k.MATRIX, k.TRANSPOSED):
            _plus_times_defined(self, other, "u @ A")
            return ops.vxm(self, other, "plus_times")
        return NotImplemented


def _plus_times_defined(x, y, where):
    """``@`` is plus_times; python-graphblas defines it on every type but bool."""
    from .errors import DomainMismatch
    from .semiring import unify

    if unify(x.dtype, y.dtype) == np.bool_:
        raise DomainMismatch(f"{where}: plus_times is not defined on bool (as in python-graphblas);"
                             f" for a structure-only graph pass a semiring: lor_land (reached),"
                             f" plus_pair (count), e.g. A.mxv(v, 'lor_land')")


def _position(index, n, where):
    """An int (or numpy integer) index as a position in [0, n): negative
    counts from the end, as python-graphblas; None for any other index (a
    list, an array, a slice: those go to extract/assign)."""
    if isinstance(index, (bool, np.bool_)) or not isinstance(index, (int, np.integer)):
        return None
    i = int(index)
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        from .errors import InvalidIndex

        raise InvalidIndex(f"{where}: index {i} is out of range for size {n}")
    return j


def _position_or_fail(index, n, where):
    i = _position(index, n, where)
    if i is None:
        from .errors import InvalidType

        raise InvalidType(f"{where}: the index must be an integer, got {type(index).__name__} {index!r}")
    return i


def _index_len(index, n):
    """Number of positions an index argument (None, slice, list, array) names."""
    if index is None:
        return n
    if isinstance(index, slice):
        return len(range(*index.indices(n)))
    return len(index)


def _not_missing(a, missing_value):
    """Present flags of a dense array: every entry, or those ``!=``
    ``missing_value`` (a NaN ``missing_value`` drops nothing, as in
    python-graphblas)."""
    xp = ar.array_module(a)
    if missing_value is None:
        return xp.ones(a.shape, np.bool_)
    return a != missing_value


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

