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


def test_msbfs_constants_match():
    """msbfs.py's counter slots, argument words, chunk and block sizes are
    msbfs.cu's."""
    from bitgraph.kernels.cuda import msbfs as km

    text = (CUDA / "msbfs.cu").read_text()
    ns = text.split("namespace msbfs {")[1].split("}  // namespace msbfs")[0]
    cu = {name: int(v) for name, v in re.findall(r"\b([A-Z][A-Z_]*)\s*=\s*(\d+)(?=[,;])", ns)}
    py = {"C_NQ": km._NQ, "C_MF": km._MF, "C_ACTIVE": km._ACTIVE, "C_SCANNED": km._SCANNED,
          "C_PULL": km._PULL, "C_PUSH": km._PUSH, "CTR": km._CTR, "A_BASE": km._A_BASE,
          "A_LEVELS": km._A_LEVELS, "CHUNK": km._CHUNK, "BLOCK": km._BLOCK,
          "STATS": km._STATS}
    for name, value in py.items():
        assert cu[name] == value, name
    # the statistics (3 x 64 words, then the queue sizes) and the args
    # (sources, rows, then the words past A_ROWS + 64) fit their buffers
    assert cu["S_ECC"] + 64 == cu["S_QUEUE"] and cu["S_QUEUE"] + cu["S_LEVELS"] == km._STATS
    # the first levels' flush finds their end among the recorded queue sizes
    assert km.HEAD_LEVELS < cu["S_LEVELS"]
    assert cu["A_ROWS"] + 64 <= cu["A_BASE"] < cu["A_LEVELS"] < km._ARGS
