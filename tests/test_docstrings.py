"""Every public function and class has a docstring with an example.

The public surface: the functions and classes of ``bitgraph.__all__``,
``bitgraph.algorithms.__all__``, ``bitgraph.io.__all__``,
``bitgraph.settings.__all__`` and ``bitgraph.validate`` (when it exists),
and the public methods and properties those classes define (or inherit
from a bitgraph class). An example is a doctest line (``>>>``); pytest
runs them (``--doctest-modules`` in pyproject.toml), so they stay true.
"""

from __future__ import annotations

import importlib
import inspect

import pytest

# The surfaces checked; a module that does not import (an optional one, or
# one not written yet) is skipped.
SURFACES = ("bitgraph", "bitgraph.algorithms", "bitgraph.io", "bitgraph.settings",
            "bitgraph.validate")

# Debt: public names whose docstring has no example yet. Each is asserted to
# still lack one, so the list cannot go stale: give a name an example, then
# delete it here.
KNOWN_MISSING: set = set()


def _members(cls):
    """Public methods and properties of ``cls`` defined in a bitgraph class
    (its own or inherited), by name; the first definition in the MRO wins."""
    out = {}
    for klass in cls.__mro__:
        if not klass.__module__.startswith("bitgraph"):
            continue
        for name, attr in vars(klass).items():
            if name.startswith("_") or name in out:
                continue
            if isinstance(attr, property):
                out[name] = attr.fget
            elif isinstance(attr, (classmethod, staticmethod)):
                out[name] = attr.__func__
            elif inspect.isfunction(attr):
                out[name] = attr
    return out


def public_surface():
    """``{"bitgraph.Matrix.mxv": function, ...}`` over SURFACES."""
    out = {}
    for modname in SURFACES:
        try:
            mod = importlib.import_module(modname)
        except ImportError:
            continue
        names = getattr(mod, "__all__", None)
        if names is None:  # a module without __all__: its own public functions and classes
            names = [n for n, v in vars(mod).items() if not n.startswith("_")
                     and (inspect.isfunction(v) or inspect.isclass(v))
                     and v.__module__ == modname]
        for name in names:
            obj = getattr(mod, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue  # submodules, named semirings and ops (instances)
            key = f"{modname}.{name}"
            out[key] = obj
            if inspect.isclass(obj):
                for m, f in _members(obj).items():
                    out[f"{key}.{m}"] = f
    return out


SURFACE = public_surface()


def has_example(obj) -> bool:
    """Whether ``obj``'s docstring holds a doctest line.

    >>> has_example(has_example)
    True
    >>> has_example(public_surface)
    False
    """
    doc = inspect.getdoc(obj) or ""
    return any(line.lstrip().startswith(">>>") for line in doc.splitlines())


def test_surface_is_found():
    # the walk reaches functions, classes and members alike
    for name in ("bitgraph.Matrix", "bitgraph.Matrix.mxv", "bitgraph.Vector.nvals",
                 "bitgraph.algorithms.bfs", "bitgraph.settings.use", "bitgraph.io.read"):
        assert name in SURFACE, name


def test_known_missing_are_public():
    stale = sorted(KNOWN_MISSING - set(SURFACE))
    assert not stale, f"KNOWN_MISSING names that are not public (any more): {stale}"


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_docstring_has_example(name):
    obj = SURFACE[name]
    if name in KNOWN_MISSING:
        assert not has_example(obj), (
            f"{name} has an example now: delete it from KNOWN_MISSING in {__file__}")
    else:
        assert has_example(obj), (
            f"{name} ({inspect.getsourcefile(obj)}): its docstring needs an example (>>>)")
