"""Matrix: a sparse matrix stored as CSR, with derived formats cached on it.

``values is None`` means structure-only (bool, every stored entry True), the
form graph adjacency takes. ``A.T`` is a view that reads the cached
transpose; derived formats (transpose, B2SR tiles, BVSS) are built on first
use and valid while present::

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2], [1, 2, 0], nrows=3, ncols=3)
    >>> A.nvals, A.dtype, A.T.to_coo()[0].tolist()
    (3, dtype('bool'), [0, 1, 2])
"""

from __future__ import annotations

import numpy as np

from . import _array as ar
from .errors import DimensionMismatch, InvalidIndex, InvalidValue
from .formats import csr as csr_fmt
from .formats.csr import CSR
from . import _kinds as kinds
from ._container import Container
from .semiring import lookup_dtype
from .vector import (_check_dup_op, _combine_duplicates, _import_graphblas, _index_len, _not_missing,
                     _plus_times_defined, _position)


class Derived:
    """Derived data of one orientation of a Matrix (``A`` or ``A.T``), in
    named slots. Valid if present: a slot that is set (not None, or a key
    that is in its dict) holds the truth about the current storage; the
    Matrix drops every slot when its storage changes. Algorithms reach the
    graph slots through ``bitgraph.algorithms._common.cached`` / ``known``
    by their names (``SLOTS``); an unknown name is an error.
    """

    # formats and the plan's facts
    b2sr: dict          # (t, reorder) -> formats.b2sr.B2SR
    bvss: dict          # (sigma, reorder) -> formats.bvss.BVSS
    profile: object     # formats.profile.estimate's dict, or None
    top1_share: object  # float: share of entries in the 1% longest rows (plan)
    spmv_cuda_plan: dict  # (split, chunk, warp_above) -> the CUDA mxv pull's plan (kernels/cuda/spmv_csr.pull_plan)
    # graph facts (algorithms._common)
    out_degree: object          # int64[nrows]
    has_out_edges: object       # numpy bool[nrows]: out_degree > 0, on the host
    undirected: object          # CSR of the pattern of A + A'
    undirected_noloops: object  # the same without the diagonal
    # triangle_count
    tc_worth_relabelling: object  # bool: relabel by degree first
    tc_degree_order: object       # (rank, indptr, indices, mid) of the relabelled graph
    tc_lower_ends: object         # int64[nrows]: end of each row's lower part
    tc_L: object                  # (rank, L): the strictly lower part, natural order
    tc_L_relabelled: object       # (rank, L): the same after relabelling by degree
    # connected_components, sssp, pagerank
    cc_undirected_matrix: object  # Matrix of A + A'
    sssp_weights: dict            # dtype -> CSR with values cast to it
    sssp_matrix: dict             # dtype -> Matrix with values cast to it
    sssp_work: object             # CUDA delta-stepping's workspaces: (n, index, dtype) -> arrays
    sssp_facts: object            # dict: what sssp reads of the weights (shortest_paths._weight_facts)
    cc_cuda_launch: object        # dict: the CUDA afforest's replays (kernels/cuda/components.py)
    cc_cuda_hot: object           # (settings, (device, stream, thread), replay): the last call's
    entry_spread: object          # float: median |i - j| of sampled entries (_common.median_spread)
    sssp_by_weight: dict          # dtype -> CSR with values cast to it, each row by ascending weight
    sssp_edges: dict              # dtype -> the CPU kernel's (targets, weights) records (edge_records)
    pagerank_operator: object     # the fused iteration's arrays
    pagerank_cuda: object         # dict: the GPU run's plan and workspaces (kernels/cuda/pagerank.py)
    pagerank_worth_relabelling: dict  # (min_average_degree, skew, samples) -> bool
    pagerank_relabelled: object   # (order, pull CSR, inv_s) by descending out-degree
    pagerank_cpu: dict            # the CPU run's plan (row ranges, prefetch) and scratch ranks
    bc_cuda: object               # dict: CUDA betweenness's heavy-row tables (cuda/betweenness.py)
    anchors: object               # host int64[nrows]: out-neighbour of highest out-degree
    # the traversals (bfs, msbfs): names as their code spells them
    reach: dict              # (probe_sources, probe_hops, probe_share) -> hops (bfs.reach)
    blest_perm: dict         # reorder -> ...
    blest_in_csr: dict       # reorder -> ...
    blest_out_csr: dict      # reorder -> ...
    blest_out_degree: dict   # reorder -> ...
    blest_lazy: dict         # reorder -> ...
    dead_bits: dict          # reorder -> ...
    out_degree_int32: object
    in_csr_by_degree: object
    bfs_cuda_launch: dict    # (device, method, alpha, reorder, settings) -> (method, launch)
    bfs_cuda_hot: object     # (settings, method, device, launch): the last levels-only call's
    bfs_order: dict          # reorder -> (renumbered Matrix, perm, inverse) (bfs._renumbered)
    # bitgraph.distributed
    indptr_digest: object    # int: the row pointers' checksum the ranks compare (batches._digest)

    __slots__ = tuple(__annotations__)
    KEYED = tuple(k for k, v in __annotations__.items() if v == "dict")

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, {} if name in self.KEYED else None)


# the slots algorithms reach by name (``_common.cached``); "symmetric" is the
# Matrix's own (one fact for A and A.T)
SLOTS = ("symmetric",) + tuple(n for n in Derived.__slots__ if n not in ("b2sr", "bvss", "profile"))


class _Cache:
    """Derived data of one Matrix; a slot that is set is valid.

    ``transpose``: CSR of A'; ``symmetric``: whether A's pattern equals
    A''s (None: not known; carried by ``to()`` and ``copy()``); ``own`` and
    ``tr``: the ``Derived`` slots of A and of A.T.
    """

    __slots__ = ("transpose", "symmetric", "own", "tr")

    def __init__(self, symmetric=None):
        self.transpose = None
        self.symmetric = symmetric
        self.own = Derived()
        self.tr = Derived()


class _MatrixOps(Container):
    """Operation methods shared by Matrix and its transpose view."""

    @property
    def shape(self):
        """``(nrows, ncols)``.

        >>> import bitgraph as bg
        >>> bg.Matrix.from_coo([0], [2], nrows=2, ncols=3).T.shape
        (3, 2)
        """
        return (self.nrows, self.ncols)

    def mxv(self, u, semiring="plus_times", **kw):
        """``A @ u`` over a semiring; see :func:`bitgraph.ops.mxv`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 0], [2, 3], nrows=2, ncols=2)
        >>> A.mxv(bg.Vector.from_dense([1, 1])).to_dense().tolist()
        [2, 3]
        """
        from . import ops

        return ops.mxv(self, u, semiring, **kw)

    def b2sr(self, t="auto", reorder="none"):
        """The B2SR-t of this matrix's pattern (``bitgraph.formats.b2sr``),
        built on first use and cached; ``t="auto"`` takes the tile size of
        the sampling profile (``formats.profile.choose_tile``). ``reorder``:
        a ``formats.reorder`` method name; the permutation is kept in
        ``.perm`` (``perm[new] = old``).

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1, 9], [1, 0, 9], nrows=10, ncols=10)
        >>> A.b2sr(8).tile_colind.tolist(), A.T.b2sr(8).ntiles
        ([0, 1], 2)
        """
        from .formats import profile
        from .kernels import convert

        slots = self._slots()
        if t == "auto":
            t = profile.choose_tile(self._csr(), self.profile())
        if (t, reorder) not in slots.b2sr:
            slots.b2sr[t, reorder] = convert.b2sr(self._csr(), t, reorder)
        return slots.b2sr[t, reorder]

    def bvss(self, sigma=8, reorder="none"):
        """The BVSS of this matrix (``bitgraph.formats.bvss``; for a pull BFS
        take ``A.T.bvss()``: rows = in-neighbours), built on first use and
        cached. ``reorder``: a ``formats.reorder`` method name; the
        permutation is kept in ``.perm`` (``perm[new] = old``).

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 0, 2], [1, 9, 3], nrows=10, ncols=10)
        >>> A.bvss().n_vss, A.bvss().perm is None
        (2, True)
        """
        from .kernels import convert

        slots = self._slots()
        if (sigma, reorder) not in slots.bvss:
            slots.bvss[sigma, reorder] = convert.bvss(self._csr(), sigma, reorder)
        return slots.bvss[sigma, reorder]

    def profile(self):
        """The sampling profile of the B2SR sizes (``formats.profile.estimate``),
        cached.

        >>> import bitgraph as bg
        >>> bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2).profile()[8]["ntiles"]
        1.0
        """
        from .formats import profile

        slots = self._slots()
        if slots.profile is None:
            slots.profile = profile.estimate(self._csr())
        return slots.profile

    def mxm(self, B, semiring="plus_times", **kw):
        """``A @ B`` over a semiring; see :func:`bitgraph.ops.mxm`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 2], nrows=3, ncols=3)
        >>> A.mxm(A, "plus_pair").to_coo()[:2]
        (array([0]), array([2]))
        """
        from . import ops

        return ops.mxm(self, B, semiring, **kw)

    def extract(self, rows=None, cols=None, **kw):
        """The sub-matrix ``A(rows, cols)`` (an int gives a Vector); see
        :func:`bitgraph.ops.extract`.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 2], [5, 6], nrows=3, ncols=3)
        >>> A.extract([1], [1, 2]).to_coo()[2].tolist(), A.extract(0, None).to_coo()[0].tolist()
        ([6], [1])
        """
        from . import ops

        return ops.extract(self, rows, cols, **kw)

    # --- python-graphblas habits --------------------------------------------------
    def reduce_rowwise(self, op="plus", **kw):
        """python-graphblas's name for ``reduce(op, by="rows")``: a Vector of
        the row reductions (``mask=``, ``accum=``, ``out=`` as ``reduce``).

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1, 2, 3], nrows=2, ncols=2)
        >>> A.reduce_rowwise().to_dense().tolist(), A.reduce_rowwise("min").to_dense().tolist()
        ([3, 3], [1, 3])
        """
        return self.reduce(op, by="rows", **kw)

    def reduce_columnwise(self, op="plus", **kw):
        """python-graphblas's name for ``reduce(op, by="cols")``: a Vector of
        the column reductions.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 0, 1], [0, 1, 1], [1, 2, 3], nrows=2, ncols=2)
        >>> A.reduce_columnwise().to_dense().tolist()
        [1, 5]
        """
        return self.reduce(op, by="cols", **kw)

    def reduce_scalar(self, op="plus", *, allow_empty=True):
        """python-graphblas's name for ``reduce(op)``: every entry to one
        numpy scalar (None when there is none and ``allow_empty``). ``plus``
        on a bool (structure-only) matrix raises ``DomainMismatch``, as
        python-graphblas does: ``A.dup("int64").reduce_scalar()`` counts.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
        >>> int(A.dup("int64").reduce_scalar()), bool(A.reduce_scalar("lor"))
        (2, True)
        """
        return self.reduce(op, allow_empty=allow_empty)

    def dup(self, dtype=None, *, clear=False, mask=None) -> "Matrix":
        """A new Matrix, as python-graphblas's ``dup``: cast to ``dtype``
        when given, empty with ``clear=True``, only the entries ``mask``
        allows with ``mask=``. ``A.T.dup()`` materialises the transpose.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 0], [1.5, 2.5], nrows=2, ncols=2)
        >>> A.dup("int64").to_coo()[2].tolist(), A.dup(clear=True).nvals, A.T.dup().to_coo()[2].tolist()
        ([1, 2], 0, [2.5, 1.5])
        """
        dt = self.dtype if dtype is None else lookup_dtype(dtype)
        if clear:
            return Matrix(dt, self.nrows, self.ncols, device=self.device)
        if dtype is None and mask is None:
            return self.copy()
        from . import ops

        return ops.apply(self, "identity", mask=mask, out=Matrix(dt, self.nrows, self.ncols, device=self.device))

    def to_dense(self, fill=0, *, dtype=None):
        """A dense 2-D array with ``fill`` where there is no entry (as
        ``Vector.to_dense``: python-graphblas raises instead when entries are
        missing and no ``fill_value`` is given); ``dtype`` casts.

        >>> import bitgraph as bg
        >>> bg.Matrix.from_coo([0, 1], [1, 0], [5, 6], nrows=2, ncols=2).to_dense(fill=-1).tolist()
        [[-1, 5], [6, -1]]
        """
        c = self._csr()
        xp = ar.array_module(c.indptr)
        dt = self.dtype
        with np.errstate(all="ignore"):
            if np.asarray(fill).astype(dt) != fill:
                dt = np.result_type(dt, np.asarray(fill))
        if dtype is not None:
            dt = lookup_dtype(dtype)
        out = xp.full((c.nrows, c.ncols), fill, dtype=dt)
        vals = xp.ones(c.nnz, np.bool_) if c.values is None else c.values
        out[ar.rows_of(c.indptr), c.indices.astype(np.int64)] = vals.astype(dt)
        return out

    def to_networkx(self, edge_attribute="weight", *, create_using=None):
        """A networkx graph of this square adjacency matrix (networkx is
        imported here, on first use): nodes ``0 .. n-1`` (isolated ones too,
        where python-graphblas's ``gb.io.to_networkx`` keeps only those on an
        edge), an edge per entry with its value as ``edge_attribute`` (None:
        no attribute; a structure-only matrix gives True, as
        python-graphblas). ``create_using``: a networkx graph class
        (default ``nx.DiGraph``).

        >>> import bitgraph as bg
        >>> G = bg.Matrix.from_coo([0, 1], [1, 2], [0.5, 2.0], nrows=4, ncols=4).to_networkx()
        >>> sorted(G.edges(data="weight")), G.number_of_nodes()
        ([(0, 1, 0.5), (1, 2, 2.0)], 4)
        """
        import networkx as nx

        if self.nrows != self.ncols:
            raise DimensionMismatch(f"Matrix.to_networkx: the matrix must be square, got"
                                    f" {self.nrows}x{self.ncols}")
        r, c, v = self.to("cpu").to_coo()
        G = (nx.DiGraph if create_using is None else create_using)()
        G.add_nodes_from(range(self.nrows))
        if edge_attribute is None:
            G.add_edges_from(zip(r.tolist(), c.tolist()))
        else:
            G.add_weighted_edges_from(zip(r.tolist(), c.tolist(), v.tolist()), weight=edge_attribute)
        return G

    def __getitem__(self, key):
        """``A[i, j]``: the value there (a numpy scalar) or None when there is
        no entry, as python-graphblas's ``A[i, j].value`` (negative indices
        count from the end). Any other key (``A[i, :]``, ``A[rows, cols]``)
        is ``extract``: a Vector for an int row or column, else a Matrix.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 2], [5, 6], nrows=2, ncols=3)
        >>> int(A[0, 1]), A[0, 0], int(A[-1, -1]), A[1, :].to_coo()[0].tolist()
        (5, None, 6, [2])
        """
        i, j, rows, cols = _matrix_key(self, key, "Matrix[i, j]")
        if i is None or j is None:
            return self.extract(rows, cols)
        return self._element(i, j)

    def _element(self, i, j):
        c = self._csr()
        lo, hi = int(c.indptr[i]), int(c.indptr[i + 1])
        row = c.indices[lo:hi]
        k = int(ar.array_module(row).searchsorted(row, j))
        if k == hi - lo or int(row[k]) != j:
            return None
        if c.values is None:
            return np.True_
        return self.dtype.type(c.values[lo + k].item())

    def __contains__(self, key) -> bool:
        """``(i, j) in A``: whether the entry is present.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
        >>> (0, 1) in A, (1, 0) in A
        (True, False)
        """
        i, j, _, _ = _matrix_key(self, key, "(i, j) in Matrix")
        if i is None or j is None:
            from .errors import InvalidType

            raise InvalidType(f"(i, j) in Matrix: i and j must be integers, got {key!r}")
        return self._element(i, j) is not None

    def __iter__(self):
        """The ``(row, col)`` pairs of the entries, as python-graphblas
        iterates a Matrix.

        >>> import bitgraph as bg
        >>> list(bg.Matrix.from_coo([1, 0], [0, 1], nrows=2, ncols=2))
        [(0, 1), (1, 0)]
        """
        r, c, _ = self.to_coo()
        return zip(r.tolist(), c.tolist())

    def __matmul__(self, other):
        """``A @ v`` (``mxv``) and ``A @ B`` (``mxm``) over ``plus_times``,
        as python-graphblas. On bool operands (a structure-only graph)
        python-graphblas has no plus_times and raises; so does this
        (``DomainMismatch``): call ``A.mxv(v, "lor_land")`` (reached) or
        ``"plus_pair"`` (count) instead. bitgraph is eager: ``@`` computes at
        once and returns a new object, so python-graphblas's
        ``w(mask) << A @ v`` is ``A.mxv(v, mask=..., out=w)``.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0, 1], [1, 0], [2, 3], nrows=2, ncols=2)
        >>> (A @ bg.Vector.from_dense([1, 1])).to_dense().tolist(), (A @ A).to_coo()[2].tolist()
        ([2, 3], [6, 6])
        """
        from . import _kinds as k

        if k.kind_of(other) == k.VECTOR:
            _plus_times_defined(self, other, "A @ v")
            return self.mxv(other, "plus_times")
        if k.kind_of(other) in (k.MATRIX, k.TRANSPOSED):
            _plus_times_defined(self, other, "A @ B")
            return self.mxm(other, "plus_times")
        return NotImplemented

    def to_coo(self):
        """``(rows, cols, values)`` as int64, int64, values; sorted by (row, col).

        >>> import bitgraph as bg
        >>> r, c, v = bg.Matrix.from_coo([1, 0], [0, 2], [5, 6], nrows=2, ncols=3).to_coo()
        >>> r.tolist(), c.tolist(), v.tolist()
        ([0, 1], [2, 0], [6, 5])
        """
        c = self._csr()
        rows = ar.rows_of(c.indptr)
        vals = np.ones(c.nnz, np.bool_) if c.values is None else c.values.copy()
        return rows, c.indices.astype(np.int64), vals

    def to_scipy(self, *, sparray=True):
        """A scipy ``csr_array`` (or ``csr_matrix`` with ``sparray=False``).

        >>> import bitgraph as bg
        >>> bg.Matrix.from_coo([0], [1], [2.5], nrows=2, ncols=2).to_scipy().toarray().tolist()
        [[0.0, 2.5], [0.0, 0.0]]
        """
        import scipy.sparse as sp

        c = self._csr()
        vals = np.ones(c.nnz, np.bool_) if c.values is None else c.values
        cls = sp.csr_array if sparray else sp.csr_matrix
        return cls((vals.copy(), c.indices.copy(), c.indptr.copy()), shape=(c.nrows, c.ncols))

    def to_graphblas(self):
        """A ``graphblas.Matrix`` (needs python-graphblas: the ``test`` extra).

        >>> import bitgraph as bg
        >>> bg.Matrix.from_coo([0], [1], [2.5], nrows=2, ncols=2).to_graphblas().nvals
        1
        """
        gb = _import_graphblas()
        r, c, v = self.to_coo()
        return gb.Matrix.from_coo(r, c, v, nrows=self.nrows, ncols=self.ncols, dtype=v.dtype)

    def isequal(self, other, *, check_dtype=False) -> bool:
        """Same shape, structure and values (and dtype with ``check_dtype``).

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0], [1], [1], nrows=2, ncols=2)
        >>> A.isequal(A.T.T), A.isequal(A.T)
        (True, False)
        """
        if not isinstance(other, _MatrixOps) or self.shape != other.shape:
            return False
        if check_dtype and self.dtype != other.dtype:
            return False
        a, b = self._csr(), other._csr()
        if not (np.array_equal(a.indptr, b.indptr) and np.array_equal(a.indices, b.indices)):
            return False
        va = np.ones(a.nnz, np.bool_) if a.values is None else a.values
        vb = np.ones(b.nnz, np.bool_) if b.values is None else b.values
        return bool(np.array_equal(va, vb))


@kinds.define(kinds.MATRIX)
class Matrix(_MatrixOps):
    """A sparse ``nrows x ncols`` matrix over one dtype, stored as CSR.

    >>> Matrix(dtype="float32", nrows=2, ncols=3).shape
    (2, 3)
    """

    def __init__(self, dtype=bool, nrows=0, ncols=0, *, device=None):
        from . import device as dev

        nrows, ncols = ar.as_dim(nrows, "Matrix", "nrows"), ar.as_dim(ncols, "Matrix", "ncols")
        ar.check_shape(nrows, ncols, "Matrix")
        dt = lookup_dtype(dtype)
        idt = ar.index_dtype(nrows, ncols)
        xp = dev.require_cuda("Matrix") if dev.resolve(device, "Matrix") == "cuda" else np
        self._set(CSR(xp.zeros(nrows + 1, idt), xp.zeros(0, idt), xp.zeros(0, dt), nrows, ncols), dt)

    def _set(self, csr: CSR, dtype):
        """Replace the storage (and drop every derived format). Every Matrix
        comes through here: its shape has int64 keys (``_array.check_shape``)."""
        ar.check_shape(csr.nrows, csr.ncols, "Matrix")
        self._data = csr
        self._dtype = lookup_dtype(dtype)
        self._cache = _Cache()

    @classmethod
    def _from_csr(cls, csr: CSR, dtype=None):
        A = cls.__new__(cls)
        dt = np.dtype(bool) if csr.values is None else csr.values.dtype
        A._set(csr, dt if dtype is None else dtype)
        return A

    # --- constructors ---------------------------------------------------------------
    @classmethod
    def from_coo(cls, rows, cols, values=None, nrows=None, ncols=None, *, dtype=None, dup_op=None,
                 device=None):
        """Build from coordinates; ``values=None`` means structure-only (bool).

        Duplicates: ``dup_op=None`` collapses them when there are no values and
        raises ``InvalidValue`` otherwise; else they are combined with ``dup_op``.
        ``device``: "cpu", "cuda" or "auto"; None: the inputs' device when
        they are CuPy arrays, else the default (``bitgraph.set_device``).

        >>> A = Matrix.from_coo([0, 0], [1, 1], [2, 5], nrows=2, ncols=2, dup_op="min")
        >>> A.to_coo()[2].tolist()
        [2]
        """
        from . import device as dev

        where = "Matrix.from_coo"
        A = cls._from_coo(dev.host(rows), dev.host(cols), None if values is None else dev.host(values),
                          nrows, ncols, dtype, dup_op)
        return dev.place(A, device, where, rows, cols, values)

    @classmethod
    def _from_coo(cls, r, c, values, nrows, ncols, dtype, dup_op):
        where = "Matrix.from_coo"
        _check_dup_op(dup_op, where)
        nrows = None if nrows is None else ar.as_dim(nrows, where, "nrows")
        ncols = None if ncols is None else ar.as_dim(ncols, where, "ncols")
        r = ar.as_index_array(r, f"{where} (rows)", nrows)
        c = ar.as_index_array(c, f"{where} (cols)", ncols)
        if r.shape != c.shape:
            raise DimensionMismatch(f"{where}: {r.size} rows but {c.size} cols")
        if nrows is None:
            nrows = int(r.max()) + 1 if r.size else 0
            ar.check_bounds(r, f"{where} (rows)", nrows)
        if ncols is None:
            ncols = int(c.max()) + 1 if c.size else 0
            ar.check_bounds(c, f"{where} (cols)", ncols)
        ar.check_shape(nrows, ncols, where)
        if values is None:
            if dtype is not None and lookup_dtype(dtype) != np.bool_:
                vals, dup_op = np.ones(r.shape[0], lookup_dtype(dtype)), "any"
            else:
                pattern = csr_fmt.from_coo(r, c, None, nrows, ncols)
                return cls._from_csr(pattern)
        else:
            vals = np.asarray(values)
            if vals.ndim == 0:
                vals = np.full(r.shape[0], vals)
            if vals.shape != r.shape:
                raise DimensionMismatch(f"Matrix.from_coo: {vals.size} values for {r.size} entries")
        dt = lookup_dtype(dtype if dtype is not None else vals.dtype)
        vals = ar.cast(vals, dt)
        csr = csr_fmt.from_coo(r, c, vals, nrows, ncols)
        if csr.nnz != r.shape[0]:  # duplicates: combine them with dup_op, in input order
            keys, vals = _combine_duplicates(r * ncols + c, vals, dup_op, "Matrix.from_coo")
            csr = csr_fmt.from_sorted_keys(keys, np.ascontiguousarray(vals), nrows, ncols)
        return cls._from_csr(csr, dt)

    @classmethod
    def from_csr(cls, indptr, indices, values=None, *, ncols=None, dtype=None, check=True,
                 device=None):
        """Wrap CSR arrays (sorted, duplicate-free rows); ``values=None`` = structure-only.
        CuPy arrays stay on the GPU (checked there); ``device`` as in ``from_coo``.

        >>> Matrix.from_csr([0, 1, 2], [1, 0], ncols=2).to_coo()[1].tolist()
        [1, 0]
        """
        from . import device as dev

        inputs = (indptr, indices, values)
        if dev.resolve(device if device is not None else
                       ("cuda" if any(dev.on_gpu(a) for a in inputs) else None), "Matrix.from_csr") != "cuda":
            indptr, indices = dev.host(indptr), dev.host(indices)
            values = None if values is None else dev.host(values)
        else:
            cupy = dev.require_cuda("Matrix.from_csr")
            indptr, indices = cupy.asarray(indptr), cupy.asarray(indices)
            values = None if values is None else cupy.asarray(values)
        xp = ar.array_module(indptr)
        where = "Matrix.from_csr"
        indptr = _csr_index_array(indptr, "indptr", xp)
        indices = _csr_index_array(indices, "indices", xp)
        if indptr.shape[0] == 0:
            raise InvalidValue(f"{where}: indptr must have nrows + 1 >= 1 entries, got 0")
        nrows = indptr.shape[0] - 1
        nnz = indices.shape[0]
        if values is not None:
            if values.ndim != 1 or values.shape[0] != nnz:
                raise DimensionMismatch(f"{where}: values has shape {tuple(values.shape)}, for"
                                        f" {nnz} entries (len(indices) = {nnz}): lengths must be equal")
        if ncols is None:
            ncols = int(indices.max()) + 1 if nnz else 0
        else:
            ncols = ar.as_dim(ncols, where, "ncols")
        ar.check_shape(nrows, ncols, where)
        first, last = int(indptr[0]), int(indptr[-1])
        if first != 0 or last != nnz:
            raise DimensionMismatch(f"{where}: indptr must run from 0 to len(indices) = {nnz},"
                                    f" got indptr[0] = {first}, indptr[-1] = {last}")
        idt = ar.index_dtype(nnz, nrows, ncols)
        if check:
            if bool(xp.any(xp.diff(indptr) < 0)):
                bad = int(xp.argmax(xp.diff(indptr) < 0))
                raise InvalidValue(f"{where}: indptr is not a valid row pointer: it decreases at"
                                   f" indptr[{bad + 1}] = {int(indptr[bad + 1])}")
            if nnz and (int(indices.min()) < 0 or int(indices.max()) >= ncols):
                bad = int(indices[(indices < 0) | (indices >= ncols)][0])
                raise ar_invalid_index(bad, ncols)
            rows = ar.rows_of(indptr)
            k = rows * ncols + indices.astype(np.int64)
            if k.size > 1 and bool(xp.any(xp.diff(k) <= 0)):
                raise InvalidValue("Matrix.from_csr: column indices must be sorted and unique in each row")
        vals = None
        if values is not None:
            vals = values
            if dtype is not None:
                vals = ar.cast(vals, lookup_dtype(dtype))
        elif dtype is not None and lookup_dtype(dtype) != np.bool_:
            vals = xp.ones(indices.shape[0], lookup_dtype(dtype))
        return cls._from_csr(CSR(indptr.astype(idt), indices.astype(idt), vals, nrows, ncols))

    @classmethod
    def from_scipy(cls, S, *, dtype=None, device=None):
        """From any scipy sparse array or matrix (duplicates are summed, as
        scipy does); ``device`` as in ``from_coo``.

        >>> import scipy.sparse as sp
        >>> Matrix.from_scipy(sp.eye_array(3)).nvals
        3
        """
        import scipy.sparse as sp

        if not sp.issparse(S):
            raise InvalidValue(f"Matrix.from_scipy: expected a scipy sparse array, got {type(S).__name__}")
        S = sp.csr_array(S, copy=True)
        S.sum_duplicates()
        S.sort_indices()
        vals = S.data
        dt = lookup_dtype(dtype if dtype is not None else vals.dtype)
        nrows, ncols = S.shape
        ar.check_shape(nrows, ncols, "Matrix.from_scipy")
        idt = np.int64 if S.indices.dtype == np.int64 else ar.index_dtype(S.nnz, nrows, ncols)
        csr = CSR(S.indptr.astype(idt), S.indices.astype(idt), ar.cast(vals, dt), nrows, ncols)
        from . import device as dev

        return dev.place(cls._from_csr(csr, dt), device, "Matrix.from_scipy")

    @classmethod
    def from_graphblas(cls, G, *, device=None):
        """From a ``graphblas.Matrix`` (python-graphblas).

        >>> import graphblas as gb
        >>> G = gb.Matrix.from_coo([0, 1], [1, 0], [1.5, 2.5], nrows=2, ncols=2)
        >>> Matrix.from_graphblas(G).to_coo()[2].tolist()
        [1.5, 2.5]
        """
        r, c, v = G.to_coo()
        return cls.from_coo(r, c, v, G.nrows, G.ncols, dtype=np.dtype(G.dtype.np_type), device=device)

    @classmethod
    def from_networkx(cls, G, *, nodelist=None, weight=None, dtype=None, device=None):
        """Adjacency of a networkx graph in ``nodelist`` order (default: ``G``'s order).

        ``weight=None`` gives a structure-only matrix; otherwise the edge
        attribute ``weight`` (missing attributes count 1).

        >>> import networkx as nx
        >>> Matrix.from_networkx(nx.path_graph(3)).nvals
        4
        """
        import networkx as nx

        from . import device as dev

        S = nx.to_scipy_sparse_array(G, nodelist=nodelist, weight=weight, dtype=dtype, format="csr")
        if weight is None:
            c = cls.from_scipy(S)._data
            A = cls._from_csr(CSR(c.indptr, c.indices, None, c.nrows, c.ncols))
        else:
            A = cls.from_scipy(S, dtype=dtype)
        return dev.place(A, device, "Matrix.from_networkx")

    @classmethod
    def from_edgelist(cls, edgelist, values=None, dtype=None, *, nrows=None, ncols=None, dup_op=None,
                      device=None):
        """From ``(row, col)`` pairs (an ``(n, 2)`` array or a sequence) or
        ``(row, col, value)`` triples (a sequence), as python-graphblas's
        ``Matrix.from_edgelist``; then as ``from_coo``. One difference:
        pairs without ``values`` give a structure-only (bool) matrix, where
        python-graphblas stores 1.0 (pass ``values=1.0`` for that).

        >>> A = Matrix.from_edgelist([(0, 1), (1, 2)])
        >>> A.shape, A.iso
        ((2, 3), True)
        >>> Matrix.from_edgelist([(0, 1, 2.5), (1, 0, 4.0)]).to_coo()[2].tolist()
        [2.5, 4.0]
        """
        where = "Matrix.from_edgelist"
        if isinstance(edgelist, np.ndarray) or hasattr(edgelist, "__cuda_array_interface__"):
            if edgelist.ndim != 2 or edgelist.shape[1] != 2:
                raise DimensionMismatch(f"{where}: an edgelist array must have shape (n, 2), got"
                                        f" {tuple(edgelist.shape)}; values go in values=")
            rows, cols = edgelist[:, 0], edgelist[:, 1]
        else:
            edges = [tuple(e) for e in edgelist]
            widths = {len(e) for e in edges}
            if len(widths) > 1 or widths - {2, 3}:
                raise DimensionMismatch(f"{where}: every edge must be a (row, col) pair or a"
                                        f" (row, col, value) triple, got lengths {sorted(widths)}")
            if widths == {3}:
                if values is not None:
                    raise InvalidValue(f"{where}: values given twice, in the triples and in values=")
                rows, cols, values = (list(x) for x in zip(*edges))
            else:
                rows = [e[0] for e in edges]
                cols = [e[1] for e in edges]
        return cls.from_coo(rows, cols, values, nrows, ncols, dtype=dtype, dup_op=dup_op, device=device)

    @classmethod
    def from_dense(cls, array, missing_value=None, *, dtype=None, device=None):
        """From a 2-D array: every entry present, except those equal to
        ``missing_value`` (compared by ``!=``, so NaN never is), as
        python-graphblas's ``Matrix.from_dense``. ``device`` as in ``from_coo``.

        >>> A = Matrix.from_dense([[0, 1], [2, 0]], missing_value=0)
        >>> [a.tolist() for a in A.to_coo()]
        [[0, 1], [1, 0], [1, 2]]
        """
        from . import device as dev

        a = dev.host(array)
        a = np.asarray(a)
        if a.ndim != 2:
            raise DimensionMismatch(f"Matrix.from_dense: expected a 2-D array, got shape {a.shape}")
        r, c = np.nonzero(_not_missing(a, missing_value))
        dt = dtype if dtype is not None else a.dtype
        A = cls._from_coo(r, c, a[r, c], a.shape[0], a.shape[1], dt, None)
        return dev.place(A, device, "Matrix.from_dense", array)

    # --- properties -----------------------------------------------------------------
    @property
    def nrows(self) -> int:
        """Number of rows.

        >>> Matrix.from_coo([0], [2], nrows=2, ncols=3).nrows
        2
        """
        return self._data.nrows

    @property
    def ncols(self) -> int:
        """Number of columns.

        >>> Matrix.from_coo([0], [2], nrows=2, ncols=3).ncols
        3
        """
        return self._data.ncols

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype of the values (bool for a structure-only matrix).

        >>> Matrix.from_coo([0], [1], [2.5], nrows=2, ncols=2).dtype
        dtype('float64')
        """
        return self._dtype

    @property
    def nvals(self) -> int:
        """Number of stored entries.

        >>> Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2).nvals
        2
        """
        return self._data.nnz

    @property
    def iso(self) -> bool:
        """True when structure-only: no values array, every entry True.

        >>> Matrix.from_coo([0], [1], nrows=2, ncols=2).iso
        True
        >>> Matrix.from_coo([0], [1], [3], nrows=2, ncols=2).iso
        False
        """
        return self._data.values is None

    @property
    def device(self) -> str:
        """Where the arrays live: "cpu" or "cuda".

        >>> Matrix.from_coo([0], [1], nrows=2, ncols=2, device="cpu").device
        'cpu'
        """
        return "cpu" if ar.array_module(self._data.indptr) is np else "cuda"

    @property
    def indptr(self):
        """The CSR row pointers, ``indptr[nrows + 1]`` (read-only view).

        >>> Matrix.from_coo([0, 0, 2], [1, 2, 0], nrows=3, ncols=3).indptr.tolist()
        [0, 2, 2, 3]
        """
        return _readonly(self._data.indptr)

    @property
    def indices(self):
        """The CSR column indices, ``indices[nvals]``, sorted in each row
        (read-only view).

        >>> Matrix.from_coo([0, 0, 2], [2, 1, 0], nrows=3, ncols=3).indices.tolist()
        [1, 2, 0]
        """
        return _readonly(self._data.indices)

    @property
    def values(self):
        """Stored values in CSR order, or None for a structure-only matrix
        (read-only view).

        >>> Matrix.from_coo([1, 0], [0, 1], [5, 6], nrows=2, ncols=2).values.tolist()
        [6, 5]
        >>> Matrix.from_coo([0], [1], nrows=2, ncols=2).values is None
        True
        """
        v = self._data.values
        return None if v is None else _readonly(v)

    @property
    def T(self) -> "TransposedMatrix":
        """The transpose, as a view (its CSR is built once and cached).

        >>> A = Matrix.from_coo([0], [2], nrows=2, ncols=3)
        >>> A.T.shape, A.T.to_coo()[:2], A.T.T is A
        ((3, 2), (array([2]), array([0])), True)
        """
        return TransposedMatrix(self)

    def _csr(self) -> CSR:
        return self._data

    def _derived(self):
        """(the cache of derived formats, whether they are of the transpose)"""
        return self._cache, False

    def _slots(self) -> Derived:
        """The derived-data slots of this orientation."""
        return self._cache.own

    def _transposed_csr(self) -> CSR:
        if self._cache.transpose is None:
            self._cache.transpose = csr_fmt.transpose(self._data)
        return self._cache.transpose

    def to(self, device) -> "Matrix":
        """This matrix on ``device`` ("cpu", "cuda" or "auto"): itself when it
        is there already, else a copy there (derived formats are rebuilt on
        the new device when used; the graph facts known, its symmetry,
        travel with it). ``DeviceError`` when CUDA is asked for and CuPy or
        a GPU is missing, or the GPU is out of memory.

        >>> import bitgraph as bg
        >>> A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
        >>> A.to("cpu") is A
        True
        """
        from . import device as dev

        where = "Matrix.to"
        target = dev.resolve(device, where)
        if target == self.device:
            return self
        c = self._data
        moved = [dev.asdevice(a, target, where) for a in (c.indptr, c.indices, c.values)]
        return Matrix._from_csr(CSR(*moved, c.nrows, c.ncols), self._dtype)._known(self)

    def copy(self) -> "Matrix":
        """A new Matrix with its own copy of the arrays (derived formats are
        not copied; known graph facts are).

        >>> A = Matrix.from_coo([0], [1], [2], nrows=2, ncols=2)
        >>> B = A.copy()
        >>> B is A, B.isequal(A)
        (False, True)
        """
        c = self._data
        vals = None if c.values is None else c.values.copy()
        return Matrix._from_csr(CSR(c.indptr.copy(), c.indices.copy(), vals, c.nrows, c.ncols),
                                self._dtype)._known(self)

    def _known(self, other) -> "Matrix":
        """Take the graph facts known of ``other``, a matrix of the same
        pattern (its symmetry), and return self."""
        self._cache.symmetric = other._cache.symmetric
        return self

    def __repr__(self):
        kind = "structure-only" if self.iso else str(self._dtype)
        return f"Matrix({self.nrows}x{self.ncols}, nvals={self.nvals}, {kind})"

    def assign(self, value, rows=None, cols=None, **kw):
        """``A(rows, cols) = value`` in place (returns A); see
        :func:`bitgraph.ops.assign`.

        >>> A = Matrix(dtype="int64", nrows=2, ncols=2)
        >>> A.assign(7, [0], [1]).to_coo()
        (array([0]), array([1]), array([7]))
        """
        from . import ops

        return ops.assign(self, value, rows, cols, **kw)

    def __setitem__(self, key, value):
        """``A[i, j] = x``, ``A[i, :] = v``, ``A[rows, cols] = B``: ``assign``
        in place (negative ints count from the end).

        >>> A = Matrix(dtype="int64", nrows=2, ncols=2)
        >>> A[0, 1] = 7
        >>> A[1, :] = 3
        >>> A.to_dense().tolist()
        [[0, 7], [3, 3]]
        """
        from . import ops

        _, _, rows, cols = _matrix_key(self, key, "Matrix[i, j]")
        ops.assign(self, value, rows, cols)

    def __delitem__(self, key):
        """``del A[i, j]`` (or ``del A[i, :]``, ``del A[rows, cols]``): remove
        those entries (no error where there is none, as python-graphblas).

        >>> A = Matrix.from_coo([0, 1, 1], [1, 0, 1], [5, 6, 7], nrows=2, ncols=2)
        >>> del A[0, 1]
        >>> del A[1, :]
        >>> A.nvals
        0
        """
        from . import ops
        from .vector import Vector

        i, j, rows, cols = _matrix_key(self, key, "Matrix[i, j]")
        if (i is None) != (j is None):  # a row or a column
            n = _index_len(cols, self.ncols) if j is None else _index_len(rows, self.nrows)
            empty = Vector(self.dtype, n, device=self.device)
        else:
            m = 1 if i is not None else _index_len(rows, self.nrows)
            n = 1 if j is not None else _index_len(cols, self.ncols)
            empty = Matrix(self.dtype, m, n, device=self.device)
            rows = [i] if i is not None else rows
            cols = [j] if j is not None else cols
        ops.assign(self, empty, rows, cols)


def _matrix_key(A, key, where):
    """``A[key]``'s key as (i, j, rows, cols): i and j the int positions
    (negative counts from the end) or None where that index is a list, an
    array or a slice; rows and cols the indices to pass on (ints replaced by
    their positions)."""
    if not isinstance(key, tuple) or len(key) != 2:
        from .errors import InvalidType

        raise InvalidType(f"{where}: a Matrix takes two indices, A[i, j] (or A[i, :]), got {key!r}")
    rows, cols = key
    i = _position(rows, A.nrows, f"{where} (row)")
    j = _position(cols, A.ncols, f"{where} (col)")
    return i, j, rows if i is None else i, cols if j is None else j


@kinds.define(kinds.TRANSPOSED)
class TransposedMatrix(_MatrixOps):
    """``A.T``: reads A's cached transpose; ``A.T.T is A``."""

    __slots__ = ("_parent",)

    def __init__(self, parent: Matrix):
        self._parent = parent

    @property
    def T(self) -> Matrix:
        return self._parent

    @property
    def nrows(self):
        return self._parent.ncols

    @property
    def ncols(self):
        return self._parent.nrows

    @property
    def nvals(self):
        return self._parent.nvals

    @property
    def dtype(self):
        return self._parent.dtype

    @property
    def iso(self):
        return self._parent.iso

    @property
    def device(self):
        return self._parent.device

    def _csr(self) -> CSR:
        return self._parent._transposed_csr()

    def _transposed_csr(self) -> CSR:
        return self._parent._data

    def _derived(self):
        return self._parent._cache, True

    def _slots(self) -> Derived:
        return self._parent._cache.tr

    def to(self, device) -> "TransposedMatrix":
        """The transpose view of ``A.to(device)``."""
        return self._parent.to(device).T

    def copy(self) -> Matrix:
        """Materialise the transpose as a new Matrix."""
        c = self._csr()
        vals = None if c.values is None else c.values.copy()
        return Matrix._from_csr(CSR(c.indptr.copy(), c.indices.copy(), vals, c.nrows, c.ncols),
                                self.dtype)._known(self._parent)

    new = copy

    def __repr__(self):
        return f"{self._parent!r}.T"


def _readonly(a):
    v = a.view()
    v.flags.writeable = False
    return v


def _csr_index_array(a, name, xp):
    """A CSR index argument as a 1-D integer array: integers as they are,
    floats only with integral values (never truncated); else ``InvalidValue``
    naming the argument and the value."""
    where = "Matrix.from_csr"
    if a.ndim != 1:
        raise InvalidValue(f"{where}: {name} must be 1-D, got shape {tuple(a.shape)}")
    kind = a.dtype.kind
    if kind in "iu" and not (kind == "u" and a.dtype.itemsize == 8):
        return a
    if a.shape[0] == 0:
        return a.astype(np.int64)
    if kind == "u":  # uint64: beyond int64 is out of range
        big = a > np.uint64(np.iinfo(np.int64).max)
        if bool(xp.any(big)):
            raise InvalidIndex(f"{where}: {name} holds {int(a[int(xp.argmax(big))])}, beyond int64")
        return a.astype(np.int64)
    if kind != "f":
        raise InvalidValue(f"{where}: {name} must be integers, got {a.dtype}")
    with np.errstate(invalid="ignore"):
        bad = ~xp.isfinite(a) | (a != xp.trunc(a)) | (xp.abs(a) >= 2.0**63)
    if bool(xp.any(bad)):
        i = int(xp.argmax(bad))
        raise InvalidValue(f"{where}: {name} must be integers, got {name}[{i}] = {float(a[i])!r}")
    return a.astype(np.int64)


def ar_invalid_index(i, bound):
    from .errors import InvalidIndex

    return InvalidIndex(f"Matrix.from_csr: column index {i} is out of range for ncols {bound}")
