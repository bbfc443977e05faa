"""NetworkX backend: ``nx.pagerank(G, backend="bitgraph")`` with no other change.

NetworkX finds it through the ``networkx.backends`` entry point
(``bitgraph = "bitgraph.nx:BackendInterface"``) and its metadata through
``networkx.backend_info`` (``_nx_bitgraph:get_info``, which does not import
bitgraph).  The functions live in :mod:`bitgraph.nx.traversal`,
:mod:`bitgraph.nx.measures`, :mod:`bitgraph.nx.paths`, :mod:`bitgraph.nx.centrality`
and :mod:`bitgraph.nx.structure`; each module's ``FUNCTIONS``, ``INFO`` and
``CAN_RUN`` tables are gathered here.

Configuration (``nx.config.backends.bitgraph``): ``device`` ("auto", the
default: CUDA when it is usable, i.e. CuPy imports and sees a GPU, else the
CPU; "cpu"; or "cuda", which raises ``DeviceError`` naming why when CUDA is
not usable), ``should_run_min_edges`` (default 10,000: with automatic
dispatch through ``nx.config.backend_priority``, graphs with fewer edges
stay with NetworkX, whose per-call cost is lower on tiny graphs; 0 sends
every graph here). ``backend="bitgraph"`` in a call skips ``should_run``
and always runs the backend.

NetworkX caches the conversion on the original graph
(``G.__networkx_cache__``) and warns on each call that reuses it
(``nx.config.warnings_to_ignore.add("cache")`` silences that). Its rule
holds here: graph methods (``G.add_edge``, ...) clear the cache, in-place
attribute writes (``G[u][v]["weight"] = w``) do not, and later calls see
the old weights until ``G.__networkx_cache__.clear()``.

On CUDA the converted graph's matrix is on the GPU, and every function
runs its bitgraph algorithm there (``bfs_layers`` / ``bfs_edges`` /
``bfs_tree``, which follow NetworkX's neighbour order, and the degree
counts of clustering run on the host, on ``BitGraph.cpu_matrix``, a copy
made once per graph). The answers are the same on either device. The
device is read when a graph is converted: NetworkX then caches the
conversion on the graph, so changing ``device`` later applies to graphs
converted afterwards.

>>> import networkx as nx
>>> G = nx.path_graph(4)
>>> BackendInterface.single_source_shortest_path_length(BackendInterface.convert_from_nx(G), 0)
{0: 0, 1: 1, 2: 2, 3: 3}
>>> BackendInterface.can_run("bfs_edges", (G, 0), {"sort_neighbors": sorted})
'sort_neighbors is not supported (NetworkX runs it)'
"""

from __future__ import annotations

from . import centrality, measures, paths, structure, traversal
from .convert import from_networkx, to_networkx
from .graph import BitGraph

__all__ = ["BackendInterface", "BitGraph", "FUNCTIONS", "INFO", "from_networkx", "to_networkx"]

FUNCTIONS = {**traversal.FUNCTIONS, **measures.FUNCTIONS}
INFO = {**traversal.INFO, **measures.INFO}
_CAN_RUN = {**traversal.CAN_RUN, **measures.CAN_RUN}
for _module in (paths, centrality, structure):
    FUNCTIONS.update(_module.FUNCTIONS)
    INFO.update(_module.INFO)
    _CAN_RUN.update(_module.CAN_RUN)
del _module

# NetworkX tests that this backend cannot pass, with the reason (xfailed by
# on_start_tests when NetworkX's suite runs with NETWORKX_TEST_BACKEND=bitgraph).
# Keys: (test file, test name with its class as "Class.test" or just "test").
XFAIL = {}


def _config():
    try:
        import networkx as nx

        return nx.config.backends.bitgraph
    except Exception:  # not registered through the entry points
        return None


class BackendInterface:
    """The object NetworkX loads for backend "bitgraph" (one attribute per
    function plus the conversion and dispatch hooks)."""

    @staticmethod
    def convert_from_nx(graph, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False,
                        preserve_node_attrs=False, preserve_graph_attrs=False, name=None,
                        graph_name=None):
        """NetworkX graph -> :class:`BitGraph` on the configured device.

        Edge attributes: those in ``edge_attrs`` ({attr: default}); with
        ``preserve_edge_attrs=True`` (NetworkX asks for it when a function
        gets a callable weight, which ``can_run`` refuses anyway) numeric
        "weight" is kept when present.  Node attributes are not needed by any
        function here and are not converted.
        """
        if isinstance(graph, BitGraph):
            return graph
        from .convert import _device

        if edge_attrs is None and preserve_edge_attrs is True:
            edge_attrs = {}
        return from_networkx(graph, edge_attrs, device=_device(),
                             graph_attrs=bool(preserve_graph_attrs))

    @staticmethod
    def convert_to_nx(obj, *, name=None):
        """:class:`BitGraph` -> NetworkX graph; results (already NetworkX
        types) pass through."""
        return to_networkx(obj) if isinstance(obj, BitGraph) else obj

    @staticmethod
    def can_run(name, args, kwargs):
        """True, or the reason (a string) why NetworkX should run ``name``."""
        if name not in FUNCTIONS:
            return f"bitgraph does not implement {name}"
        check = _CAN_RUN.get(name)
        if check is None:
            return True
        try:
            return check(args, kwargs)
        except TypeError as e:  # arguments that don't bind: let NetworkX raise its error
            return f"arguments do not match the signature ({e})"

    @staticmethod
    def should_run(name, args, kwargs):
        """With automatic dispatch, leave graphs below ``should_run_min_edges``
        edges to NetworkX (conversion costs more than it saves there): True,
        or the reason as a string. NetworkX asks it only when it picks the
        backend itself (``backend_priority``), never for ``backend="bitgraph"``.

        >>> import networkx as nx
        >>> BackendInterface.should_run("pagerank", (nx.karate_club_graph(),), {})
        'graph has 78 < 10000 edges'
        """
        cfg = _config()
        min_edges = getattr(cfg, "should_run_min_edges", 0) if cfg is not None else 0
        G = args[0] if args else kwargs.get("G")
        if G is None or isinstance(G, BitGraph) or not min_edges:
            return True
        try:
            m = G.number_of_edges()
        except Exception:
            return True
        return True if m >= min_edges else f"graph has {m} < {min_edges} edges"

    @staticmethod
    def on_start_tests(items):
        """Mark the NetworkX tests in ``XFAIL`` as expected failures."""
        import pytest

        for item in items:
            path = str(getattr(item, "path", getattr(item, "fspath", "")))
            fname = path.rsplit("/", 1)[-1]
            cls = getattr(item, "cls", None)
            names = {item.name, f"{cls.__name__}.{item.name}" if cls else item.name}
            for (xfile, xname), reason in XFAIL.items():
                if fname == xfile and xname in names:
                    item.add_marker(pytest.mark.xfail(reason=reason))


for _name, _func in FUNCTIONS.items():
    setattr(BackendInterface, _name, staticmethod(_func))
del _name, _func


def _render_info() -> str:
    """The ``_FUNCTIONS`` literal of ``_nx_bitgraph.py`` (paste it there when
    INFO changes; a test checks they agree)."""
    import pprint

    funcs = {
        name: {"url": info["url"], "additional_docs": info["note"],
               "additional_parameters": dict(info.get("extra_parameters") or {})}
        for name, info in sorted(INFO.items())
    }
    return "_FUNCTIONS = " + pprint.pformat(funcs, width=100, sort_dicts=True) + "\n"


def _write_info(path=None):
    """Rewrite the generated table of ``_nx_bitgraph.py`` (next to the package)."""
    import os

    if path is None:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                            "_nx_bitgraph.py")
    with open(path) as f:
        text = f.read()
    begin, end = "# --- generated: begin ---\n", "# --- generated: end ---"
    i, j = text.index(begin) + len(begin), text.index(end)
    with open(path, "w") as f:
        f.write(text[:i] + _render_info() + text[j:])
