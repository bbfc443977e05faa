"""The CUDA sources agree with the Python side (no GPU needed)."""

from __future__ import annotations

import re
from pathlib import Path

from bitgraph.kernels import opcodes

CUDA = Path(opcodes.__file__).resolve().parent / "cuda"


def test_opcodes_match_scalar_cuh():
    """scalar.cuh's enums are opcodes.py's codes, name for name."""
    text = (CUDA / "scalar.cuh").read_text()
    found = dict(re.findall(r"\b([A-Z]+)\s*=\s*(\d+)", text))
    names = [n for n in dir(opcodes) if n.isupper() and isinstance(getattr(opcodes, n), int)]
    assert names and sorted(found) == sorted(names)
    for name in names:
        assert int(found[name]) == getattr(opcodes, name), name
