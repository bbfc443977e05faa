"""Every tuning constant of bitgraph, in one home.

A *family* is a frozen dataclass of the knobs of one part of the library
(``bfs_cuda``: the fused GPU BFS; ``msbfs``: the CPU iBFS; ``plan``: the
format and kernel rules; ...), each field documented with its rule and the
measurement that set it. ``Settings`` holds one instance of every family.
Code reads the settings once, at the public call (``current()``), and
passes the family it needs down to the launchers as an argument; nothing
reads a module-level constant that a caller could change.

Tests and A/B tools change knobs for a block of code::

    >>> import bitgraph as bg
    >>> bg.settings.current().bfs.alpha
    0.02
    >>> with bg.settings.use(bfs={"alpha": 0.1}):
    ...     bg.settings.current().bfs.alpha
    0.1
    >>> bg.settings.current().bfs.alpha
    0.02

``python -m bitgraph.kernels --settings`` lists every knob, its value and
its rule (``table()``). The active settings live in a ``ContextVar``: a
``use`` block affects its own thread (and the tasks it starts), never
another thread's calls.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import difflib
from dataclasses import dataclass, field, fields

from bitgraph.settings.families import (
    BFS, IO, BFSAsync, BFSCuda, Betweenness, Components, CPU, Cuda, Distributed, Formats, MSBFS,
    MSBFSCuda,
    PageRank, Plan, Reorder, SSSP, Triangles,
)

__all__ = ["Settings", "current", "use", "table", "family_names",
           "BFS", "BFSCuda", "BFSAsync", "MSBFS", "MSBFSCuda", "Plan", "CPU", "Cuda",
           "Formats", "Reorder", "Triangles", "Components", "SSSP", "PageRank", "IO",
           "Betweenness", "Distributed"]


@dataclass(frozen=True)
class Settings:
    """One instance of every family: the whole configuration of a call.

    >>> Settings().bfs_cuda.alpha
    0.05
    """
    plan: Plan = field(default_factory=Plan)
    cpu: CPU = field(default_factory=CPU)
    cuda: Cuda = field(default_factory=Cuda)
    formats: Formats = field(default_factory=Formats)
    reorder: Reorder = field(default_factory=Reorder)
    bfs: BFS = field(default_factory=BFS)
    bfs_cuda: BFSCuda = field(default_factory=BFSCuda)
    bfs_async: BFSAsync = field(default_factory=BFSAsync)
    msbfs: MSBFS = field(default_factory=MSBFS)
    msbfs_cuda: MSBFSCuda = field(default_factory=MSBFSCuda)
    triangles: Triangles = field(default_factory=Triangles)
    components: Components = field(default_factory=Components)
    sssp: SSSP = field(default_factory=SSSP)
    pagerank: PageRank = field(default_factory=PageRank)
    betweenness: Betweenness = field(default_factory=Betweenness)
    io: IO = field(default_factory=IO)
    distributed: Distributed = field(default_factory=Distributed)

    def replace(self, **changes) -> "Settings":
        """A copy with whole families or some of their fields changed:
        ``s.replace(bfs={"alpha": 0.1})`` or ``s.replace(bfs=BFS(alpha=0.1))``.

        >>> Settings().replace(bfs={"alpha": 0.1}).bfs.alpha
        0.1
        """
        new = {}
        for name, value in changes.items():
            old = _family(self, name)
            if isinstance(value, type(old)):
                new[name] = value
            elif isinstance(value, dict):
                _check_fields(name, old, value)
                new[name] = dataclasses.replace(old, **value)
            else:
                raise TypeError(f"settings: {name} takes a {type(old).__name__} or a dict of"
                                f" its fields, got {type(value).__name__}")
        return dataclasses.replace(self, **new)


def family_names() -> tuple:
    """The names of the families, in the order ``table()`` lists them.

    >>> family_names()[:2]
    ('plan', 'cpu')
    >>> "bfs_cuda" in family_names()
    True
    """
    return tuple(f.name for f in fields(Settings))


_CURRENT: contextvars.ContextVar = contextvars.ContextVar("bitgraph_settings")
_DEFAULT = Settings()


def current() -> Settings:
    """The settings in force: the defaults, or those of the innermost ``use`` block.

    >>> current().plan.push_density
    0.0625
    """
    return _CURRENT.get(_DEFAULT)


@contextlib.contextmanager
def use(settings: Settings | None = None, **changes):
    """Run a block with other settings: a whole ``Settings``, or changes to
    the current ones per family (a family object, or a dict of its fields).
    An unknown family or field is an error naming the close matches.

    >>> with use(bfs_cuda={"alpha": 0.1}, msbfs={"alpha": 0.2}) as s:
    ...     s.bfs_cuda.alpha, current().msbfs.alpha
    (0.1, 0.2)
    """
    base = current() if settings is None else settings
    if not isinstance(base, Settings):
        raise TypeError(f"settings.use: expected a Settings, got {type(base).__name__}")
    new = base.replace(**changes)
    token = _CURRENT.set(new)
    try:
        yield new
    finally:
        _CURRENT.reset(token)


def table(settings: Settings | None = None) -> list:
    """Rows ``(family, field, value, rule)`` of every knob.

    >>> ("bfs", "alpha", 0.02) in [row[:3] for row in table()]
    True
    """
    s = current() if settings is None else settings
    rows = []
    for name in family_names():
        fam = getattr(s, name)
        for f in fields(fam):
            rows.append((name, f.name, getattr(fam, f.name), " ".join(f.metadata.get("doc", "").split())))
    return rows


def _family(s: Settings, name: str):
    if name not in family_names():
        raise KeyError(f"settings: no family {name!r}{_close(name, family_names())};"
                       f" families: {', '.join(family_names())}")
    return getattr(s, name)


def _check_fields(family: str, obj, changes: dict):
    names = [f.name for f in fields(obj)]
    for key in changes:
        if key not in names:
            raise KeyError(f"settings: {family} has no field {key!r}{_close(key, names)};"
                           f" fields: {', '.join(names)}")


def _close(word, choices):
    near = difflib.get_close_matches(word, choices, n=3)
    return f" (did you mean {', '.join(repr(c) for c in near)}?)" if near else ""
