"""What every algorithm checks and derives from its graph.

A graph is a square ``Matrix`` (or ``A.T``): entry (i, j) is an edge i -> j.
Derived arrays (the symmetrised pattern, degrees) are cached on the matrix
in named slots (``bitgraph.matrix.Derived``, names in ``bitgraph.matrix.SLOTS``)
next to its formats, and dropped with them on mutation.
"""

from __future__ import annotations

import difflib

import numpy as np

from bitgraph import _array
from bitgraph.errors import DeviceError, DimensionMismatch, InvalidIndex, InvalidType, InvalidValue
from bitgraph.formats.csr import CSR

__all__ = ["check_graph", "graph_device", "check_source", "check_sources", "out_csr", "in_csr",
           "undirected_csr", "is_symmetric", "out_degree", "cached",
           "check_nonnegative", "known", "record", "median_spread", "has_out_edges",
           "anchor_order", "traversal_order"]


_GRAPH_TYPES = None  # (Matrix, TransposedMatrix), imported on the first check


def check_graph(A, where: str, *, cuda: bool = False):
    """Raise unless ``A`` is a square bitgraph matrix (or its transpose view)
    on the CPU, or on CUDA when the algorithm runs there (``cuda=True``)."""
    graph_device(A, where, cuda=cuda)
    return A


def graph_device(A, where: str, *, cuda: bool = False) -> str:
    """``check_graph``, returning A's device ("cpu" or "cuda"): a hot call
    (a GPU bfs) reads it once.

    >>> import bitgraph as bg
    >>> graph_device(bg.Matrix.from_coo([0], [1], nrows=2, ncols=2), "bfs", cuda=True)
    'cpu'
    """
    global _GRAPH_TYPES
    if _GRAPH_TYPES is None:
        from bitgraph.matrix import Matrix, TransposedMatrix

        _GRAPH_TYPES = (Matrix, TransposedMatrix)
    if not isinstance(A, _GRAPH_TYPES):
        raise InvalidType(f"{where}: expected a bitgraph Matrix, got {type(A).__name__}")
    device = A.device
    if device != "cpu" and not (cuda and device == "cuda"):
        raise DeviceError(f"{where}: the graph is on {device!r}, and {where} runs on the"
                          f" CPU only; use A.to('cpu')")
    if A.nrows != A.ncols:
        raise DimensionMismatch(f"{where}: a graph's adjacency matrix must be square,"
                                f" got {A.nrows}x{A.ncols}")
    return device


def check_source(A, source, where: str, name: str = "source") -> int:
    """``source`` as an int in [0, n): not an integer (a float, a bool) is
    ``InvalidType`` (a ``TypeError``), out of range ``InvalidIndex``, each
    naming the argument and the value.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
    >>> check_source(A, 1, "bfs")
    1
    >>> try:
    ...     check_source(A, 1.0, "bfs")
    ... except TypeError as e:
    ...     print(type(e).__name__, e)
    InvalidType bfs: source must be an integer vertex id, got 1.0
    """
    if isinstance(source, (bool, np.bool_)) or not isinstance(source, (int, np.integer)):
        raise InvalidType(f"{where}: {name} must be an integer vertex id,"
                          f" got {source!r}")
    s = int(source)
    if not 0 <= s < A.nrows:
        raise InvalidIndex(f"{where}: {name} {s} is out of range for a graph"
                           f" of {A.nrows} vertices")
    return s


def check_sources(A, sources, where: str) -> np.ndarray:
    """``sources`` as a 1-d int64 array of vertex ids, each in [0, n):
    anything else (a list of lists, floats, bools) is ``InvalidType`` (a
    ``TypeError``), an id out of range ``InvalidIndex``.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0], [1], nrows=2, ncols=2)
    >>> check_sources(A, [1, 0], "msbfs").tolist()
    [1, 0]
    """
    try:
        s = np.asarray(sources)
    except ValueError:  # ragged
        raise InvalidType(f"{where}: sources must be a 1-d list of integer vertex ids,"
                          f" got {repr(sources)[:200]}") from None
    if s.ndim == 0:
        s = s.reshape(1)
    if s.ndim != 1 or (s.size and s.dtype.kind not in "iu") or (s.dtype.kind == "u" and s.size
                                                                and s.max() > np.iinfo(np.int64).max):
        raise InvalidType(f"{where}: sources must be a 1-d list of integer vertex ids,"
                          f" got {repr(sources)[:200]} ({s.dtype} of shape {s.shape})")
    s = s.astype(np.int64)
    if s.size and (s.min() < 0 or s.max() >= A.nrows):  # two reductions: no mask made
        bad = np.flatnonzero((s < 0) | (s >= A.nrows))
        raise InvalidIndex(f"{where}: sources[{bad[0]}] = {s[bad[0]]} is out of"
                           f" range for a graph of {A.nrows} vertices")
    return s


_KIND = None  # slot name -> 0 plain, 1 keyed (Derived.KEYED), 2 "symmetric": _slot runs on
#              every cached call (a GPU bfs's among them), so one dict lookup decides


def _load_names():
    global _KIND
    from bitgraph.matrix import SLOTS, Derived

    _KIND = {name: 2 if name == "symmetric" else int(name in Derived.KEYED) for name in SLOTS}


def _slot(A, name: str, key, where: str):
    """(the object holding slot ``name`` of A, the attribute, the key or None).

    ``name`` is one of ``bitgraph.matrix.SLOTS``; a keyed slot (a dict, such
    as ``sssp_matrix`` by dtype) takes ``key``. ``"slot:key"`` is the same
    as ``(slot, key=key)`` (the form the traversals spell)."""
    if _KIND is None:
        _load_names()
    kind = _KIND.get(name)
    if kind == 1 and key is not None:
        return A._slots(), name, key
    if key is None and ":" in name:
        name, key = name.split(":", 1)
        kind = _KIND.get(name)
    if kind is None:
        from bitgraph.matrix import SLOTS

        near = difflib.get_close_matches(name, SLOTS, n=3)
        hint = f" (did you mean {', '.join(map(repr, near))}?)" if near else ""
        raise InvalidValue(f"{where}: no cache slot {name!r}{hint}; the slots are"
                           f" bitgraph.matrix.SLOTS: {', '.join(SLOTS)}")
    if kind == 2:  # one fact for A and A.T
        return A._derived()[0], name, None
    if kind != (key is not None):
        raise InvalidValue(f"{where}: cache slot {name!r} {'needs' if kind else 'takes no'} key,"
                           f" got {key!r}")
    return A._slots(), name, key


def cached(A, name: str, build, *, key=None):
    """``build()`` cached on ``A`` in slot ``name`` (per transpose view; a
    keyed slot under ``key``): valid while present, dropped when A's storage
    changes. ``name`` is one of ``bitgraph.matrix.SLOTS``.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
    >>> cached(A, "out_degree", lambda: "built"), cached(A, "out_degree", lambda: "again")
    ('built', 'built')
    >>> cached(A, "sssp_matrix", lambda: 1, key="float32"), known(A, "sssp_matrix", key="int8")
    (1, None)
    """
    holder, attr, key = _slot(A, name, key, "cached")
    if key is None:
        value = getattr(holder, attr)
        if value is None:
            value = build()
            setattr(holder, attr, value)
        return value
    table = getattr(holder, attr)
    if key not in table:
        table[key] = build()
    return table[key]


def known(A, name: str, *, key=None):
    """What ``cached`` holds for ``A`` in slot ``name``, or None: never builds.

    >>> import bitgraph as bg
    >>> known(bg.Matrix.from_coo([0], [1], nrows=2, ncols=2), "symmetric") is None
    True
    """
    holder, attr, key = _slot(A, name, key, "known")
    value = getattr(holder, attr)
    return value if key is None else value.get(key)


def record(A, name: str, value, *, key=None, most=None):
    """Record ``value`` in slot ``name`` of A, for code that knows it by
    construction (a generator knows its graph is symmetric). Present means
    valid: record only what holds for A's current storage. ``most`` (a
    keyed slot): keep only that many keys, the newest (a cache of prepared
    launches per setting, say).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1], [1, 0], nrows=2, ncols=2)
    >>> record(A, "symmetric", True); known(A.T, "symmetric"), known(A.to("cpu").copy(), "symmetric")
    (True, True)
    >>> for k in range(5):
    ...     record(A, "bfs_cuda_launch", k, key=k, most=2)
    >>> [known(A, "bfs_cuda_launch", key=k) for k in range(5)]
    [None, None, None, 3, 4]
    """
    holder, attr, key = _slot(A, name, key, "record")
    if key is None:
        setattr(holder, attr, value)
    else:
        table = getattr(holder, attr)
        table.pop(key, None)  # re-recorded: the newest
        table[key] = value
        if most is not None:
            for old in list(table)[:max(0, len(table) - most)]:
                del table[old]


def out_csr(A) -> CSR:
    """A's CSR: row i lists the out-neighbours of i."""
    return A._csr()


def in_csr(A) -> CSR:
    """The CSR of A': row j lists the in-neighbours of j (cached). A's own
    CSR when A is known to be symmetric (no transpose built: 2.7 s on
    kron-20)."""
    if known(A, "symmetric"):
        return A._csr()
    return A._transposed_csr()


def is_symmetric(A) -> bool:
    """Whether A's pattern equals A''s (an undirected graph), cached.

    The generators record True at construction (``io.generators``)."""
    def build():
        a, t = A._csr(), A._transposed_csr()
        return bool(np.array_equal(a.indptr, t.indptr)
                    and np.array_equal(a.indices, t.indices))
    return cached(A, "symmetric", build)


def undirected_csr(A, *, self_loops: bool = True) -> CSR:
    """The pattern of A + A' (values None), sorted rows; cached.

    ``self_loops=False`` drops the diagonal too (triangle counting).
    """
    def build():
        a = A._csr()
        if is_symmetric(A):
            indptr, indices = a.indptr, a.indices
        else:
            t = A._transposed_csr()
            rows = np.concatenate([np.repeat(np.arange(a.nrows, dtype=np.int64), np.diff(a.indptr)),
                                   np.repeat(np.arange(t.nrows, dtype=np.int64), np.diff(t.indptr))])
            cols = np.concatenate([a.indices, t.indices]).astype(np.int64)
            key = _array.unique(rows * a.ncols + cols)
            rows, cols = np.divmod(key, a.ncols)
            indptr = np.zeros(a.nrows + 1, np.int64)
            np.cumsum(np.bincount(rows, minlength=a.nrows), out=indptr[1:])
            indices = cols
        if not self_loops:
            rows = np.repeat(np.arange(a.nrows, dtype=np.int64), np.diff(indptr))
            keep = rows != indices
            if not keep.all():
                indptr = np.zeros(a.nrows + 1, np.int64)
                np.cumsum(np.bincount(rows[keep], minlength=a.nrows), out=indptr[1:])
                indices = indices[keep]
        itype = np.int32 if indptr[-1] < 2**31 and a.nrows < 2**31 else np.int64
        return CSR(np.asarray(indptr, itype), np.asarray(indices, itype), None, a.nrows, a.ncols)
    return cached(A, "undirected" if self_loops else "undirected_noloops", build)


def out_degree(A) -> np.ndarray:
    """int64 out-degree (stored entries per row), cached."""
    return cached(A, "out_degree", lambda: np.diff(A._csr().indptr).astype(np.int64))


def has_out_edges(A, src) -> np.ndarray:
    """Per source of ``src`` (numpy ints), whether its row of A holds an
    entry: a numpy bool array, from a host copy of "out-degree > 0" kept
    with A (a CUDA graph's read back once, n bytes; a call then touches no
    device). A source without one reaches itself alone.

    >>> import bitgraph as bg
    >>> has_out_edges(bg.Matrix.from_coo([0], [1], nrows=3, ncols=3), np.array([0, 1, 0])).tolist()
    [True, False, True]
    """
    from bitgraph.device import host

    return cached(A, "has_out_edges", lambda: host(out_degree(A) > 0))[src]  # synchronize! (once)


def anchor_order(A, src) -> np.ndarray:
    """The positions of ``src`` (numpy ints) ordered by each source's
    out-neighbour of the highest out-degree in A (its anchor; ties: the
    smaller id), then by id, stably: batches cut from it hold sources one
    hop from a shared hub, which sit at few distinct levels of each vertex,
    so a batch's BFSs overlap (``settings.betweenness.group_batches``,
    ``settings.msbfs.group_batches``). A run of this order that keeps its
    order gives it back. The anchors are made once per graph, on the host
    (``kernels/cpu/betweenness.hub_anchors``).

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3, 3, 3], [3, 2, 1, 0, 1, 2], nrows=4, ncols=4)
    >>> anchor_order(A, np.array([0, 1, 2, 3])).tolist()  # the anchors of 0..3: 3, 2, 1, 0
    [3, 2, 1, 0]
    """
    anchors = cached(A, "anchors", lambda: _anchors(A))
    n = A.nrows
    if n >= 1 << 31:  # (anchor, id) no longer fits one int64 key
        return np.lexsort((src, anchors[src]))
    # one stable sort of anchor * n + id: 66 us for 4,096 sources against lexsort's 247
    return np.argsort(anchors[src].astype(np.int64) * n + src, kind="stable")


def traversal_order(A, src, batch: int, groups, knob: str) -> tuple:
    """``(busy, idle)``: the positions of ``src`` whose rows of A hold an
    entry (in ``anchor_order`` when they make at least ``groups`` batches of
    ``batch``; 0: never) and of those without (no traversal needed), each
    in order. ``knob``: the setting ``groups`` comes from, named when it is
    not an integer >= 0.

    >>> import bitgraph as bg
    >>> A = bg.Matrix.from_coo([0, 1, 2, 3, 3, 3], [3, 2, 1, 0, 1, 2], nrows=5, ncols=5)
    >>> [p.tolist() for p in traversal_order(A, np.arange(5), 64, 1, "groups")]
    [[3, 2, 1, 0], [4]]
    """
    if isinstance(groups, (bool, np.bool_)) or not isinstance(groups, (int, np.integer)) \
            or groups < 0:
        raise InvalidValue(f"{knob} must be an integer >= 0, got {groups!r}")
    has = has_out_edges(A, src)
    busy, idle = np.flatnonzero(has), np.flatnonzero(~has)
    if groups and -(-int(busy.size) // int(batch)) >= groups:
        busy = busy[anchor_order(A, src[busy])]
    return busy, idle


def _anchors(A):
    from bitgraph.device import host
    from bitgraph.kernels.registry import lookup

    c = out_csr(A)
    h = CSR(host(c.indptr), host(c.indices), None, c.nrows, c.ncols)  # synchronize! (once)
    return lookup("betweenness", fmt="csr", device="cpu", variant="anchors")(h)


def median_spread(indptr, indices, samples: int) -> float:
    """The median |i - j| over ``samples`` entries (i, j) of a CSR drawn at
    random (seed 0, with replacement): how far a row's entries lie from it
    in id order, small for a mesh in its natural order and about n / 3.5
    for random ids. numpy or CuPy arrays (the draw on the host, the gather
    where the arrays are: one read back); 0.0 without entries. O(samples log n)

    >>> import bitgraph as bg
    >>> c = bg.io.generators.grid2d(64, 64)._csr()
    >>> median_spread(c.indptr, c.indices, 1000)
    64.0
    """
    nnz = int(indices.shape[0])
    if nnz == 0:
        return 0.0
    entries = np.random.default_rng(0).integers(0, nnz, samples)
    if _array.array_module(indptr) is not np:
        # our kernel (CuPy's search and gathers would compile on a fresh machine)
        from bitgraph.kernels import registry

        spread = registry.lookup("sample_spread", fmt="csr", device="cuda", variant="int64")
        return float(np.median(spread(indptr, indices, entries)))  # synchronize! (once a graph)
    # drawn in indptr's type: a search never converts indptr (2 ms at 1M rows)
    entries = entries.astype(indptr.dtype)
    rows = np.searchsorted(indptr, entries, side="right") - 1
    return float(np.median(np.abs(indices[entries].astype(np.int64) - rows)))


def check_nonnegative(values, where: str):
    """Raise ``InvalidValue`` naming the first negative weight."""
    if values is None or values.dtype.kind in "bu":
        return
    bad = np.flatnonzero(values < 0)
    if bad.size:
        raise InvalidValue(f"{where}: edge weights must be >= 0; stored entry"
                           f" {bad[0]} has weight {values[bad[0]]}")
