"""The package's layers are in order: no upward import, no import cycle.

Every module of ``bitgraph`` is parsed (``ast``) and every ``import`` in it
is read, module-level and function-level alike (a lazy import is still a
dependency). Each module belongs to one layer, highest first::

    edge      the package's public surface (``bitgraph/__init__``), the
              algorithms, io, the CLI, validate, the NetworkX backend, the kernels'
              command-line tools (``kernels.__main__``, ``kernels.warmup``),
              distributed (the ranks and the batch calls over them)
    objects   matrix, vector, _container: what users touch
    ops       ops (GraphBLAS semantics), mask (the mask ops normalises)
    plan      plan: which format and kernel an operation runs on
    kernels   kernels.registry, kernels.cpu.*, kernels.cuda.*: pure compute
    formats   formats.*: the data (CSR, B2SR, BVSS, profile, orderings)
    base      what every layer may use: errors, device, _array, settings.*,
              stats, _progress, _kinds (the object classes by kind, entered
              by their modules: how ``ops`` builds results without importing
              them), and the algebra's definitions (semiring,
              binary, unary, monoid, kernels.opcodes: values, no behaviour
              that depends on a layer above)

The rule: a module imports modules of its own layer or of a lower one,
never of a higher one (the core never imports an edge), and no two modules
import each other, directly or around a longer loop. Edges may import each
other (the CLI calls the algorithms) but not in a cycle either. ``ops``
finds the object classes through ``bitgraph._kinds`` (each class enters
itself there), so it needs no import of the object modules.

A known exception is an import in a file that another change owns; each is
listed in ``KNOWN`` with the file that holds it, and is removed there.

>>> layer_of("bitgraph.kernels.cpu.spmv_csr"), layer_of("bitgraph.formats.bvss")
('kernels', 'formats')
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bitgraph"

LAYERS = ("base", "formats", "kernels", "plan", "ops", "objects", "edge")  # lowest first

# module (or package prefix) -> layer; the longest matching prefix wins
PLACES = {
    "bitgraph": "edge",  # the package's __init__: the public surface
    "bitgraph.__main__": "edge",
    "bitgraph.algorithms": "edge",
    "bitgraph.io": "edge",
    "bitgraph.cli": "edge",
    "bitgraph.validate": "edge",  # checkers of non-unique answers, for tests, CLI and benchmarks
    "bitgraph.nx": "edge",
    "bitgraph.distributed": "edge",  # SPMD: ranks, NCCL, source batches over the ranks
    "bitgraph.matrix": "objects",
    "bitgraph.vector": "objects",
    "bitgraph._container": "objects",
    "bitgraph.ops": "ops",
    "bitgraph.mask": "ops",
    "bitgraph.plan": "plan",
    "bitgraph.kernels": "kernels",
    "bitgraph.kernels.__main__": "edge",
    "bitgraph.kernels.warmup": "edge",
    "bitgraph.kernels.opcodes": "base",
    "bitgraph.formats": "formats",
    "bitgraph.errors": "base",
    "bitgraph.device": "base",
    "bitgraph._array": "base",
    "bitgraph.settings": "base",
    "bitgraph.stats": "base",
    "bitgraph._progress": "base",
    "bitgraph._kinds": "base",
    "bitgraph.semiring": "base",
    "bitgraph.binary": "base",
    "bitgraph.unary": "base",
    "bitgraph.monoid": "base",
}

# (importer, imported): imports another change removes; each names its file
KNOWN = {
}


def modules() -> dict:
    """Module name -> (path, is_package) for every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_pkg)
    return out


def layer_of(module: str) -> str:
    """The layer of a module: its longest prefix in ``PLACES`` (``bitgraph``
    itself only for the package's ``__init__``: a new module gets a place
    deliberately)."""
    if module == "bitgraph":
        return PLACES[module]
    parts = module.split(".")
    for k in range(len(parts), 1, -1):
        layer = PLACES.get(".".join(parts[:k]))
        if layer is not None:
            return layer
    raise KeyError(module)


def imports(mods: dict) -> dict:
    """Module -> {imported bitgraph module: first line}, lazy imports included.

    ``from bitgraph.x import y`` counts as an import of ``bitgraph.x.y`` when
    that is a module, else of ``bitgraph.x``; names resolve to the nearest
    existing module."""
    graph = {}
    for mod, (path, is_pkg) in mods.items():
        deps = graph.setdefault(mod, {})
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[:len(base) - (node.level - 1)]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                targets = [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in mods else prefix
                           for a in node.names]
            else:
                continue
            for t in targets:
                if t.split(".")[0] != "bitgraph":
                    continue
                while t not in mods:
                    t = t.rsplit(".", 1)[0]
                if t != mod:
                    deps.setdefault(t, node.lineno)
    return graph


@pytest.fixture(scope="module")
def graph():
    return imports(modules())


def test_every_module_has_a_layer():
    missing = []
    for m in modules():
        try:
            layer_of(m)
        except KeyError:
            missing.append(m)
    assert not missing, f"modules without a layer (add them to PLACES): {missing}"


def test_no_upward_import(graph):
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad = []
    for mod, deps in graph.items():
        for dep, line in deps.items():
            if rank[layer_of(dep)] > rank[layer_of(mod)] and (mod, dep) not in KNOWN:
                bad.append(f"{mod} ({layer_of(mod)}) imports {dep} ({layer_of(dep)}) at line {line}")
    assert not bad, "upward imports:\n" + "\n".join(bad)


def test_no_import_cycle(graph):
    # the package's __init__ re-exports the public surface; an edge that
    # imports ``bitgraph`` uses that surface, which is no loop of the layers
    edges = {m: {d for d in deps if (m, d) not in KNOWN} for m, deps in graph.items()
             if m != "bitgraph"}
    cycles = []
    while (cycle := _find_cycle(edges)) is not None:
        cycles.append(" -> ".join(cycle))
        edges[cycle[-2]].discard(cycle[-1])  # report every loop, not only the first
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


# CUDA launchers that still import kernels.cpu; each names its file
KNOWN_CUDA_TO_CPU: set = set()


def test_cuda_launchers_share_helpers_through_launch_not_cpu(graph):
    """What a CUDA launcher shares with the CPU ones (checks, index dtype,
    semiring scalars) comes from ``kernels._launch``, not the numba package."""
    bad = sorted(m for m, deps in graph.items()
                 if m.startswith("bitgraph.kernels.cuda") and m not in KNOWN_CUDA_TO_CPU
                 and any(d.startswith("bitgraph.kernels.cpu") for d in deps))
    assert not bad, f"CUDA launchers importing bitgraph.kernels.cpu: {bad}"
    stale = [m for m in KNOWN_CUDA_TO_CPU
             if not any(d.startswith("bitgraph.kernels.cpu") for d in graph.get(m, {}))]
    assert not stale, f"KNOWN_CUDA_TO_CPU lists launchers that no longer import it: {stale}"


def test_known_exceptions_still_exist(graph):
    """An exception that is gone is removed from ``KNOWN`` (so it cannot come back)."""
    stale = [pair for pair in KNOWN if pair[1] not in graph.get(pair[0], {})]
    assert not stale, f"KNOWN lists imports that are gone: {stale}"


def test_the_checker_sees_lazy_imports_and_cycles(tmp_path):
    """The parser reads function-level imports, and the cycle finder finds a loop."""
    mods = {"bitgraph.a": (tmp_path / "a.py", False), "bitgraph.b": (tmp_path / "b.py", False)}
    (tmp_path / "a.py").write_text("from . import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from .a import g\n")
    g = imports(mods)
    assert g == {"bitgraph.a": {"bitgraph.b": 1}, "bitgraph.b": {"bitgraph.a": 2}}
    assert _find_cycle({m: set(d) for m, d in g.items()}) in (
        ["bitgraph.a", "bitgraph.b", "bitgraph.a"], ["bitgraph.b", "bitgraph.a", "bitgraph.b"])


def _find_cycle(edges: dict):
    """One cycle of the directed graph as a list of modules (first = last), or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {m: WHITE for m in edges}
    for start in sorted(edges):
        if color[start] != WHITE:
            continue
        stack = [(start, iter(sorted(edges[start])))]
        path = [start]
        color[start] = GREY
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                color[node] = BLACK
                stack.pop()
                path.pop()
            elif color.get(nxt, BLACK) == GREY:
                return path[path.index(nxt):] + [nxt]
            elif color.get(nxt) == WHITE:
                color[nxt] = GREY
                stack.append((nxt, iter(sorted(edges.get(nxt, ())))))
                path.append(nxt)
    return None
