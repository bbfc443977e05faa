"""``bitgraph/kernels/README.md`` is the map from a public call to its
kernels: every row's registry keys are registered, every registered key has
a row, and the launchers, CUDA kernels, settings families and test files it
names exist (no GPU needed)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import bitgraph as bg
from bitgraph.kernels import registry

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "bitgraph" / "kernels"


def _rows():
    text = (KERNELS / "README.md").read_text()
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 8 and cells[0] not in ("call", "---"):
            rows.append(cells)
    assert rows
    return rows


def _keys(cell):
    op, fmt, devices, variants = (part.strip() for part in cell.split(","))
    return list(itertools.product([op], [fmt], [d.strip() for d in devices.split("/")],
                                  [v.strip() for v in variants.split("/")]))


def _globals(source: Path) -> set:
    text = source.read_text()
    return set(re.findall(r"__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s*)?(\w+)\s*\(",
                          text))


def test_every_row_names_registered_launchers_and_real_kernels():
    entries = {(e.op, e.fmt, e.device, e.variant): e for e in registry.entries()}
    families = set(bg.settings.family_names())
    for call, method, key, launcher, kernels, fams, tests, _ in _rows():
        for k in _keys(key):
            assert k in entries, f"{call} {method}: {k} is not registered"
            e = entries[k]
            mod = e.module.rsplit(".", 1)[-1]
            assert f"{e.device}/{mod}.py" in launcher, (k, e.module, launcher)
            if e.device == "cuda" and "numba" not in kernels:
                source = KERNELS / "cuda" / f"{mod}.cu"
                names = {re.sub(r"<.*", "", n) for n in re.findall(r"`([^`]+)`", kernels)}
                have = _globals(source) if source.exists() else set()
                # a launcher may hand over to another source's kernels (msbfs -> bfs_async)
                for other in re.findall(r"cuda/(\w+)\.py", launcher):
                    if (KERNELS / "cuda" / f"{other}.cu").exists():
                        have |= _globals(KERNELS / "cuda" / f"{other}.cu")
                missing = sorted(n for n in names if n not in have)
                assert have and not missing, (k, missing)
        for fam in filter(None, (f.strip() for f in fams.split(","))):
            assert fam in families, (call, fam)
        for test in (t.strip() for t in tests.split(",")):
            assert (ROOT / test).is_file(), (call, test)


def test_every_registered_key_has_a_row():
    listed = {k for row in _rows() for k in _keys(row[2])}
    missing = [k for k in ((e.op, e.fmt, e.device, e.variant) for e in registry.entries())
               if k not in listed]
    assert not missing, f"kernels/README.md has no row for {missing}"
