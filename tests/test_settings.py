"""Every tuning constant lives in ``bitgraph.settings`` (DESIGN.md,
"Settings and metrics").

No module of ``bitgraph`` outside ``settings/`` keeps a module-level
UPPERCASE name bound to a number or a boolean (a literal, or arithmetic of
literals such as ``1 << 16``) unless it is a layout or format fact listed
in ``FACTS`` (why it is not a knob, next to it) or a tunable of a file
another change owns, listed in ``KNOWN`` (remove the entry where that
change moves it into a family). Values computed by a call
(``np.uint64(1)`` literals for numba, ``np.iinfo(...).max``) are not
scanned: they are types and limits, not knobs.

>>> sorted(numeric_constants("X = 1 << 4\\n_Y = 2.5\\nz = 3\\nW = np.uint64(1)\\nA, B = 1, -2"))
['A', 'B', 'X', '_Y']
"""

from __future__ import annotations

import ast
import dataclasses
import pathlib

import numpy as np
import pytest

import bitgraph as bg

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "bitgraph"

# (file, name) -> why it is a fact of a layout, a format or an algorithm's
# definition, not a knob; "*" covers every name of a file
FACTS = {
    ("bitgraph/kernels/opcodes.py", "*"): "op codes, shared with scalar.cuh",
    ("bitgraph/kernels/cuda/loops.py", "*"): "cuda.h's enum values and the driver version of "
                                            "WHILE nodes (CUDA 12.4)",
    ("bitgraph/formats/bvss.py", "PAD_ROW"): "the row id of a padding slot (uint32 max)",
    ("bitgraph/formats/reorder.py", "_PLACED"): "Gorder's heap: the gap of a placed vertex",
    ("bitgraph/formats/reorder.py", "_SCORE_MAX"): "Gorder's heap: scores fit its int32 gaps",
    ("bitgraph/kernels/cpu/spgemm_csr.py", "_NONE"): "mask modes of the kernel",
    ("bitgraph/kernels/cpu/spgemm_csr.py", "_MASK"): "mask modes of the kernel",
    ("bitgraph/kernels/cpu/spgemm_csr.py", "_COMPLEMENT"): "mask modes of the kernel",
    ("bitgraph/kernels/cuda/spgemm_csr.py", "_NONE"): "mask modes of esc_expand",
    ("bitgraph/kernels/cuda/spgemm_csr.py", "_MASK"): "mask modes of esc_expand",
    ("bitgraph/kernels/cuda/spgemm_csr.py", "_COMPLEMENT"): "mask modes of esc_expand",
    ("bitgraph/kernels/cpu/sssp.py", "_CHUNK"): "the layout of the bucket lists (a numba literal)",
    ("bitgraph/kernels/cpu/sssp.py", "_NCTL"): "slots of the driver's ctl array",
    ("bitgraph/kernels/cpu/sssp.py", "_NT"): "slots of a thread's row of tctl (a cache line)",
    ("bitgraph/kernels/cpu/sssp.py", "_NONE"): "no bucket (above every bucket index)",
    ("bitgraph/kernels/cpu/sssp.py", "_NSYNC"): "slots of the sync array (a cache line apart)",
    ("bitgraph/kernels/cpu/team.py", "JOINED"): "slots of the sync array (a cache line apart)",
    ("bitgraph/kernels/cpu/team.py", "BAR"): "slots of the sync array (a cache line apart)",
    ("bitgraph/kernels/cpu/team.py", "FIRST"): "slots of the sync array (a cache line apart)",
    ("bitgraph/kernels/cpu/team.py", "CLOSED"): "the flag added to the joined count on closing",
    ("bitgraph/kernels/cpu/team.py", "JOIN_SPINS"):
        "a safety limit on waiting for a helper the pool never starts, not a speed knob",
    ("bitgraph/kernels/cpu/msbfs.py", "LEVEL"): "slots of the kernel's state array",
    ("bitgraph/kernels/cpu/msbfs.py", "MF"): "slots of the kernel's state array",
    ("bitgraph/kernels/cpu/msbfs.py", "ALPHA_M"): "slots of the kernel's state array",
    ("bitgraph/kernels/cpu/msbfs.py", "BU_FAIL"): "slots of the kernel's state array",
    ("bitgraph/io/edgelist.py", "_MAX_ID"): "vertex ids past 2^62 are refused (a format limit)",
    ("bitgraph/io/generators.py", "MAX_SCALE"): "the generators' largest scale",
    ("bitgraph/io/generators.py", "_KRON_BLOCK"): "fixes the random streams: part of the graphs",
    ("bitgraph/io/generators.py", "_KRON_PIECE"): "fixes the order of the draws: part of the graphs",
    ("bitgraph/io/generators.py", "_URAND_BLOCK"): "fixes the random streams: part of the graphs",
    ("bitgraph/io/generators.py", "_GOLDEN"): "splitmix64's increment: part of the hashed graphs",
    ("bitgraph/io/generators.py", "_M64"): "2^64 - 1, the uint64 wrap",
    ("bitgraph/io/generators.py", "_FEISTEL_ROUNDS"): "the relabelling: part of the hashed graphs",
    ("bitgraph/io/generators.py", "_SALT_KRON"): "a seed's uses: part of the hashed graphs",
    ("bitgraph/io/generators.py", "_SALT_PERM"): "a seed's uses: part of the hashed graphs",
    ("bitgraph/io/generators.py", "_SALT_URAND"): "a seed's uses: part of the hashed graphs",
    ("bitgraph/_progress.py", "DELAY"): "what a user sees of a progress line, not speed",
    ("bitgraph/_progress.py", "_TICK"): "what a user sees of a progress line, not speed",
    ("bitgraph/cli.py", "_MAX_MESSAGE"): "characters of a bad line quoted in an error",
    ("bitgraph/kernels/cuda/bfs_fused.py", "_TRACE_CAP"): "rows of the kernel's level trace",
    ("bitgraph/kernels/cuda/msbfs_coop.py", "TRACE_CAP"): "rows of a traced batch's level trace",
    ("bitgraph/kernels/cuda/msbfs_state.py", "RING"):
        "counter heads in flight to the host: a capacity above head_levels",
    ("bitgraph/kernels/cuda/msbfs_levels.py", "_BIG"): "the direction rule's 'never' (2^62)",
    ("bitgraph/kernels/cuda/timing.py", "GATE_LIMIT_NS"):
        "the timing gate opens by itself after 2 s: a safety limit, not a speed knob",
    ("bitgraph/kernels/cuda/bmv_bvss.py", "SIGMA"): "the BVSS slice width the kernel reads (8)",
    ("bitgraph/distributed/batches.py", "BATCH"):
        "sources per msbfs batch of closeness and eccentricity: a uint64 status word",
    ("bitgraph/distributed/batches.py", "_MESSAGE_BYTES"):
        "bytes of an error message sent to the other ranks (a format limit)",
    ("bitgraph/distributed/partition.py", "ALIGN"):
        "rank boundaries at multiples of 64 vertices: a rank's bitmap share is whole words",
    ("bitgraph/validate.py", "_REFERENCE_CELLS"):
        "the checkers' reference BFS holds at most this many levels at once (memory)",
}

# (file, name) -> the change that moves it: tunables not in a family yet
# (empty: every tunable is one)
KNOWN: dict = {}


def _numeric(node) -> bool:
    # a number or a boolean literal, or arithmetic of them
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (bool, int, float))
    if isinstance(node, ast.UnaryOp):
        return _numeric(node.operand)
    if isinstance(node, ast.BinOp):
        return _numeric(node.left) and _numeric(node.right)
    return False


def numeric_constants(source: str) -> dict:
    """{name: line} of the module-level UPPERCASE names that ``source``
    binds to a number or a boolean."""
    found = {}
    for node in ast.parse(source).body:
        pairs = []
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    pairs.append((target, node.value))
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    pairs += list(zip(target.elts, node.value.elts))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs.append((node.target, node.value))
        for target, value in pairs:
            name = getattr(target, "id", "")
            if name.strip("_") and name == name.upper() and _numeric(value):
                found[name] = node.lineno
    return found


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith("bitgraph/settings/"):
            yield rel, path


def test_no_module_keeps_a_tunable():
    """Every numeric module constant outside settings/ is a listed fact or
    a known tunable of another change; anything else belongs in a family."""
    stray = []
    for rel, path in _modules():
        for name, line in numeric_constants(path.read_text()).items():
            if (rel, "*") in FACTS or (rel, name) in FACTS or (rel, name) in KNOWN:
                continue
            stray.append(f"{rel}:{line} {name}")
    assert not stray, ("module-level tunables (move each into a bitgraph.settings family, or"
                       " list a layout fact in FACTS with why): " + ", ".join(stray))


def test_facts_are_current():
    """Each fact listed still exists (a removed constant leaves the list)."""
    found = {rel: numeric_constants(path.read_text()) for rel, path in _modules()}
    for (rel, name), why in FACTS.items():
        assert rel in found, rel
        assert name == "*" or name in found[rel], (rel, name, why)


def test_every_family_is_listed(capsys):
    """``python -m bitgraph.kernels --settings`` lists every field of every
    family, with its value and a rule."""
    from bitgraph.kernels.__main__ import main

    assert main(["--settings"]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    rows = {tuple(line.split()[:2]) for line in lines if line.strip()}
    s = bg.settings.current()
    for family in bg.settings.family_names():
        for f in dataclasses.fields(getattr(s, family)):
            assert (family, f.name) in rows, (family, f.name)
            assert f.metadata.get("doc", "").strip(), (family, f.name)


@pytest.mark.parametrize("family, field, value", [
    ("cpu", "serial_below", 0), ("components", "serial_below", 0), ("triangles", "grain", 1),
    ("sssp", "par_edges", 0)])
def test_knobs_reach_the_kernels(family, field, value):
    """A ``use`` block changes what the CPU kernels run; the answers stay."""
    A = bg.Matrix.from_coo([0, 1, 2, 0, 3], [1, 2, 0, 2, 4], [1, 2, 3, 4, 5], nrows=6, ncols=6)
    U = bg.ewise_add(A, A.T, "plus")
    want = (bg.algorithms.connected_components(A).to_dense().tolist(),
            bg.algorithms.triangle_count(U), bg.algorithms.sssp(A, 0).to_dense(-1).tolist())
    with bg.settings.use(**{family: {field: value}}):
        got = (bg.algorithms.connected_components(A).to_dense().tolist(),
               bg.algorithms.triangle_count(U), bg.algorithms.sssp(A, 0).to_dense(-1).tolist())
    assert got == want == ([0, 0, 0, 3, 3, 5], 1, [0, 1, 3, -1, -1, -1])


def test_serial_below_follows_the_settings():
    """``settings.cpu.serial_below`` is what a launcher with parallel=None
    compares its work against."""
    from bitgraph.kernels import cpu

    assert cpu.serial_below() == bg.settings.CPU().serial_below
    with bg.settings.use(cpu={"serial_below": 7}):
        assert cpu.serial_below() == 7
    assert cpu.serial_below(bg.settings.CPU(serial_below=3)) == 3


def test_reorder_rules_change_the_verdict():
    """The social-likeness thresholds come from ``settings.reorder``."""
    from bitgraph.formats import reorder
    from bitgraph.formats.csr import from_coo

    star = from_coo(np.zeros(99, np.int64), np.arange(1, 100), None, 100, 100)
    assert reorder.is_social_like(star)
    strict = {"top1_share": 1.0, "alpha_lo": 10.0}
    with bg.settings.use(reorder=strict):
        assert not reorder.is_social_like(star)
    assert not reorder.is_social_like(star, rules=bg.settings.Reorder(**strict))


def test_pool_threads_see_the_callers_settings():
    """Work the CPU kernels hand to their thread pool runs under the
    caller's settings (``use`` sets a ContextVar; each task gets a copy)."""
    import numpy as np

    from bitgraph.kernels.cpu import parallel_map

    def seen(r0, r1):
        return bg.settings.current().msbfs.alpha

    chunks = np.array([0, 1, 2, 3, 4], np.uint64)
    with bg.settings.use(msbfs={"alpha": 0.5}):
        assert parallel_map(seen, chunks) == [0.5] * 4
    assert parallel_map(seen, chunks) == [bg.settings.MSBFS().alpha] * 4


HOOKS = ("STATS", "FORCE", "TRACE", "COOP_TRACE", "GATED", "RECORD", "USE_FAST", "BITS", "FUSED")


def test_no_module_level_hook_changes_behaviour():
    """No module binds a public UPPERCASE name to None (a slot for callers
    to fill) or to one of the old hook names: instrumentation comes back
    through ``stats=``, forcing goes through ``bitgraph.settings``.
    Module-level caches (compiled kernels, work buffers, the thread pool)
    are private (``_NAME``) and never change a result."""
    bad = []
    for rel, path in _modules():
        for node in ast.parse(path.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AnnAssign) else [])
            value = getattr(node, "value", None)
            for t in targets:
                name = getattr(t, "id", "")
                if name in HOOKS or (name.isupper() and not name.startswith("_")
                                     and isinstance(value, ast.Constant) and value.value is None):
                    bad.append(f"{rel}:{node.lineno} {name}")
    assert not bad, f"module-level hooks: {bad}"
