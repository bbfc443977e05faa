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


def test_generated_headers_are_current():
    """Every constant a .cu shares with its launcher comes from
    ``constants.py``: its generated header is up to date (``python -m
    bitgraph.kernels.cuda.constants`` rewrites them) and is included by
    its source."""
    from bitgraph.kernels.cuda import constants

    for source in constants.SOURCES:
        path = constants.header_path(source)
        assert path.read_text() == constants.header(source), f"{path.name} is stale"
        assert f'#include "{path.name}"' in (CUDA / source).read_text(), source


def test_no_constant_is_mirrored_by_hand():
    """No .cu defines (``#define`` or ``constexpr``) a name its generated
    header defines, and no launcher spells one of those values as a literal
    assignment of its own: the value lives in ``constants.py`` only."""
    from bitgraph.kernels.cuda import constants

    for source, names in constants.SOURCES.items():
        text = (CUDA / source).read_text()
        for name in names:
            assert not re.search(rf"#define\s+{name}\b", text), (source, name)
            assert not re.search(rf"constexpr[^;=]*\b{name}\s*=", text), (source, name)
        launcher = (CUDA / source.replace(".cu", ".py")).read_text()
        assert "constants import" in launcher, source


def test_msbfs_layout_fits():
    """The statistics (3 x 64 words, then the queue sizes) and the args
    (sources, rows, then the words past A_ROWS + 64) fit their buffers,
    and the first levels' flush finds their end among the recorded queue
    sizes."""
    import bitgraph as bg
    from bitgraph.kernels.cuda.constants import BFS_ASYNC, MSBFS as K

    assert K["S_ECC"] + 64 == K["S_QUEUE"] and K["S_QUEUE"] + K["S_LEVELS"] == K["STATS"]
    assert bg.settings.MSBFSCuda().head_levels < K["S_LEVELS"]
    assert K["A_ROWS"] + 64 <= K["A_BASE"] < K["A_LEVELS"] < K["ARGS"]
    assert BFS_ASYNC["A_ROWS"] + 64 <= BFS_ASYNC["ARGS"]
    assert BFS_ASYNC["S_ECC"] + 64 <= BFS_ASYNC["STATS"]


def test_bfs_fused_limits():
    """The single-block levels' edge limit fits the kernel's vertex list."""
    import bitgraph as bg
    from bitgraph.kernels.cuda.constants import BFS_FUSED

    assert bg.settings.BFSCuda().single_edges <= BFS_FUSED["LIST_CAP"]


def test_sources_expand_every_local_include():
    """What NVRTC compiles (``source_text``) has every local header inlined:
    NVRTC gets no include path, so a ``#include "x.cuh"`` left in the text
    cannot be found at run time (nvcc on the file alone would find it)."""
    from bitgraph.kernels.cuda import source_text

    for cu in sorted(CUDA.glob("*.cu")):
        text = source_text(cu.name)
        assert not re.search(r'^\s*#include\s+"', text, flags=re.M), cu.name
