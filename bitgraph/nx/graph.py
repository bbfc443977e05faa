"""The graph object the NetworkX backend works on: a structure-only
``bitgraph.Matrix`` plus the node labels, directedness and the converted
edge attributes.

NetworkX caches it on the original graph (``G.__networkx_cache__``), so a
second call with the same graph pays no conversion.

Devices: ``matrix`` is on the device the conversion chose
(``nx.config.backends.bitgraph.device``, :func:`bitgraph.nx.convert._device`).
Every bitgraph algorithm runs on either device, so the functions hand
``matrix`` (or :meth:`BitGraph.weighted`, on the same device) to it; host
arithmetic (degrees, the directed clustering's GraphBLAS operations) reads
:attr:`BitGraph.cpu_matrix`, ``matrix`` itself on the CPU and otherwise a
copy made on first use and kept on the BitGraph. Results
come back to the host (``bitgraph.device.host``, once per array) before any
Python dict is built.

>>> import networkx as nx
>>> from bitgraph.nx.convert import from_networkx
>>> BG = from_networkx(nx.path_graph(["a", "b", "c"]))
>>> BG.number_of_nodes(), BG.matrix.nvals, BG.node_id("b"), BG.labels([2, 0])
(3, 4, 1, ['c', 'a'])
"""

from __future__ import annotations

import numpy as np

__all__ = ["BitGraph"]


class BitGraph:
    """A converted NetworkX graph (see the module docstring).

    ``matrix``: n x n structure-only ``bitgraph.Matrix``, ``A[i, j]`` stored
    iff there is an edge i -> j (undirected graphs store both directions;
    self-loops are kept; parallel edges of a multigraph are collapsed).
    ``nodes``: labels, position = vertex id; ``index``: label -> vertex id.

    Private, for order-sensitive functions (``bfs_edges``): ``_adj_indptr`` /
    ``_adj_indices`` give each vertex's neighbours in NetworkX's adjacency
    order (the matrix's rows are sorted by column instead), and ``_perm``
    (None unless edge attributes were converted) maps the adjacency-order
    position of an edge to its position in the matrix's CSR arrays.
    ``_weights[attr] = (values, missing)`` hold edge attribute values in
    the matrix's CSR order (``missing``: bool mask of edges without the
    attribute, or None); ``_int_weights``: the attributes whose present
    values are all integers (NetworkX's sums of them are ints).

    Cached, each valid if present: ``_cpu_matrix`` (:attr:`cpu_matrix` when
    ``matrix`` is on the GPU), ``_weighted_cache`` (:meth:`weighted`),
    ``_label_array`` (:meth:`labels`), ``_measures_cache`` (component labels
    and triangle counts, :mod:`bitgraph.nx.measures`). An undirected graph's
    matrices are recorded as symmetric where the algorithms look
    (``algorithms._common.is_symmetric``), so none builds A' to find out.
    """

    __networkx_backend__ = "bitgraph"

    def __init__(self, matrix, nodes, *, directed, graph=None, weights=None, int_weights=(),
                 adj_indptr=None, adj_indices=None, perm=None, multigraph_source=False):
        self.matrix = matrix if directed else _symmetric(matrix)
        self.nodes = list(nodes)
        self.index = {label: i for i, label in enumerate(self.nodes)}
        self._directed = bool(directed)
        self.graph = {} if graph is None else graph
        self._weights = {} if weights is None else weights
        self._int_weights = frozenset(int_weights)
        self._adj_indptr = adj_indptr
        self._adj_indices = adj_indices
        self._perm = perm
        # The NetworkX graph was a multigraph (parallel edges collapsed here);
        # functions whose answer depends on multiplicity refuse such graphs.
        self.multigraph_source = bool(multigraph_source)
        self.__networkx_cache__ = {}

    # --- the part of the NetworkX graph API that the dispatcher uses -------
    def is_directed(self) -> bool:
        return self._directed

    def is_multigraph(self) -> bool:
        return False

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, label) -> bool:
        try:
            return label in self.index
        except TypeError:  # unhashable label, as NetworkX's __contains__
            return False

    def number_of_edges(self) -> int:
        """Edges as NetworkX counts them (undirected: each once).

        >>> import networkx as nx
        >>> from bitgraph.nx.convert import from_networkx
        >>> from_networkx(nx.cycle_graph(4)).number_of_edges()
        4
        """
        nnz = self.matrix.nvals
        if self._directed:
            return nnz
        loops = int(np.count_nonzero(self._self_loop_mask()))
        return (nnz - loops) // 2 + loops

    def _self_loop_mask(self):
        """One bool per stored entry: a self-loop (read from the host
        adjacency arrays, else from :attr:`cpu_matrix`: never the GPU's)."""
        if self._adj_indptr is not None:
            indptr, indices = self._adj_indptr, self._adj_indices
        else:
            A = self.cpu_matrix
            indptr, indices = A.indptr, A.indices
        rows = np.repeat(np.arange(len(self.nodes)), np.diff(indptr))
        return rows == np.asarray(indices)

    # --- devices ----------------------------------------------------------------
    @property
    def device(self) -> str:
        """Where ``matrix`` lives: "cpu" or "cuda"."""
        return self.matrix.device

    @property
    def cpu_matrix(self):
        """``matrix`` on the CPU, for the host-side arithmetic (degrees, the
        GraphBLAS operations of the directed clustering, the weighted
        matrices built on the host): ``matrix`` itself when it is on the CPU, else a
        copy made on the first use and kept (``_cpu_matrix``), so later calls
        copy nothing.

        >>> import networkx as nx
        >>> from bitgraph.nx.convert import from_networkx
        >>> BG = from_networkx(nx.path_graph(3))
        >>> BG.cpu_matrix is BG.matrix, BG.cpu_matrix is BG.cpu_matrix
        (True, True)
        """
        A = self.matrix
        if A.device == "cpu":
            return A
        C = self.__dict__.get("_cpu_matrix")
        if C is None:
            C = A.to("cpu")
            self._cpu_matrix = C = C if self._directed else _symmetric(C)
        return C

    # --- vertex ids and labels ----------------------------------------------
    def node_id(self, label, what="Source") -> int:
        """Vertex id of ``label``; ``networkx.NodeNotFound`` when absent.

        >>> import networkx as nx
        >>> from bitgraph.nx.convert import from_networkx
        >>> BG = from_networkx(nx.path_graph(2))
        >>> BG.node_id(1)
        1
        >>> BG.node_id(7)
        Traceback (most recent call last):
        ...
        networkx.exception.NodeNotFound: Source 7 is not in G
        """
        try:
            return self.index[label]
        except (KeyError, TypeError):
            import networkx as nx

            raise nx.NodeNotFound(f"{what} {label} is not in G") from None

    def labels(self, ids) -> list:
        """Labels of the vertex ids ``ids`` (an int array or sequence)."""
        arr = self.__dict__.get("_label_array")
        if arr is None:
            # an object array gathers labels in C (fromiter, not np.array: tuple
            # labels would otherwise become a 2-D array)
            arr = self._label_array = np.fromiter(self.nodes, dtype=object, count=len(self.nodes))
        return arr[np.asarray(ids, dtype=np.int64)].tolist()

    # --- weights --------------------------------------------------------------
    def weighted(self, attr="weight", default=1.0, dtype=np.float64, *, device=None):
        """The adjacency with edge attribute ``attr`` as values (edges
        without it get ``default``), on ``device`` (None: ``matrix``'s,
        where ``sssp`` and ``pagerank`` run), made once per (attr, default,
        dtype, device) and cached; ``KeyError(attr)`` when ``attr`` was not
        converted (not in ``edge_attrs``).

        >>> import networkx as nx
        >>> from bitgraph.nx.convert import from_networkx
        >>> G = nx.Graph([(0, 1, {"w": 3.0}), (1, 2, {})])
        >>> from_networkx(G, edge_attrs={"w": None}).weighted("w", 1.0).to_coo()[2].tolist()
        [3.0, 3.0, 1.0, 1.0]
        """
        import bitgraph as bg

        if attr not in self._weights:
            raise KeyError(attr)
        device = self.device if device is None else device
        key = (attr, default, np.dtype(dtype), device)
        cache = self.__dict__.setdefault("_weighted_cache", {})
        if key in cache:
            return cache[key]
        vals = self.weight_values(attr, default, dtype)
        # the structure of the matrix on that device (no CPU copy of a CUDA
        # matrix for a CUDA result), the values from the host
        A = self.matrix if self.matrix.device == device else self.cpu_matrix
        W = bg.Matrix.from_csr(A.indptr, A.indices, vals, ncols=A.ncols, check=False,
                               device=device)
        # undirected: the values are symmetric too (both directions read one
        # NetworkX edge dict)
        cache[key] = W = W if self._directed else _symmetric(W)
        return W

    def weight_values(self, attr="weight", default=1.0, dtype=np.float64):
        """Edge attribute ``attr`` in the matrix's CSR order as a host array
        of ``dtype`` (``default`` where an edge lacks it); ``KeyError(attr)``
        when ``attr`` was not converted.

        >>> import networkx as nx
        >>> from bitgraph.nx.convert import from_networkx
        >>> from_networkx(nx.DiGraph([(0, 1, {"w": 2})]), {"w": None}).weight_values("w").tolist()
        [2.0]
        """
        values, missing = self._weights[attr]
        vals = np.array(values, dtype=np.float64 if values.dtype == object else values.dtype)
        if missing is not None and missing.any():
            vals = vals.astype(np.result_type(vals.dtype, np.asarray(default).dtype)) \
                if np.asarray(default).dtype.kind in "fc" else vals
            vals[missing] = default
        return vals.astype(dtype, copy=False)

    def has_weights(self, attr) -> bool:
        return attr in self._weights

    def __repr__(self):
        kind = "directed" if self._directed else "undirected"
        return f"<BitGraph {kind}, {len(self.nodes)} nodes, {self.matrix.nvals} stored entries>"


def _symmetric(A):
    """``A``, recorded as symmetric (for itself and its transpose view) where
    ``bitgraph.algorithms._common.is_symmetric`` caches it, as
    ``io.generators`` does: an undirected NetworkX graph's adjacency is
    symmetric by construction, and without the record ``bfs``, ``msbfs``
    and ``connected_components`` would build A' to find out."""
    from bitgraph.algorithms._common import cached

    cached(A, "symmetric", lambda: True)
    cached(A.T, "symmetric", lambda: True)
    return A
