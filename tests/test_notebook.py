"""The gallery: every notebook in ``notebooks/`` is executed (nbclient, in
its own folder, as a reader would, on the CPU) and must finish without an
error within ``SECONDS`` and print what its committed copy shows.

The notebooks are committed WITH their outputs (readers browsing the
repository or the docs see results and plots), so the committed outputs
must be current. The rule: a test re-executes each notebook and compares
its text outputs (printed lines and cell results) with the committed ones,
cell by cell; a cell whose text cannot repeat (timings, the machine's name)
is tagged ``volatile`` in its metadata and only its kind and number of
outputs are compared. Plots are compared by count (PNG bytes differ with
the matplotlib and freetype versions). A re-execution in CI alone would
pass while the committed copies went stale; this test fails instead and
says how to refresh them:

    python tests/test_notebook.py                 # re-execute every notebook, write outputs
    python tests/test_notebook.py notebooks/bfs_step_by_step.ipynb

CUDA is hidden from the kernel (``CUDA_VISIBLE_DEVICES=""``) so that the
outputs are the CPU's wherever the tests run.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
# each notebook is sized to run in under 30 s on a 2-core CI machine with the numba
# cache warm (.ci/run warms it first); twice that is the limit
SECONDS = 60
MAX_BYTES = 400_000  # committed size: PNG plots at modest dpi
# what each notebook must show (besides equalling its committed outputs)
SHOWS = {
    "quickstart": ["frontier size per level", "karate: 45 triangles"],
    "bfs_step_by_step": ["same levels as bfs(A, s)", "-> pull", "-> push", "every level pushes"],
    "formats_and_tile_fill": ["bytes per stored entry", "A.b2sr('auto') picks t ="],
    "networkx_backend": ["every answer equal to NetworkX's", "300,000 edges ran bitgraph",
                         "400 edges ran networkx", "executed on:"],
    "gpu_vs_cpu": ["fastest anchor", "GPU/CPU", "H200"],
}
PLOTS = {"quickstart": 2, "bfs_step_by_step": 2, "formats_and_tile_fill": 3, "networkx_backend": 1,
         "gpu_vs_cpu": 2}


def execute(path: Path, timeout: int = 300):
    """Execute the notebook at ``path`` on the CPU, in its folder; return
    (the executed notebook, seconds)."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                     resources={"metadata": {"path": str(path.parent)}})
    t0 = time.perf_counter()
    client.execute(env=env)  # raises CellExecutionError naming the cell and the error
    return nb, time.perf_counter() - t0


def texts(cell) -> list[tuple[str, str]]:
    """A code cell's outputs as (kind, text): streams and text results by
    their text, images by their type only."""
    out = []
    for o in cell.get("outputs", []):
        if o["output_type"] == "stream":
            out.append((o["name"], o["text"]))
        elif o["output_type"] in ("execute_result", "display_data"):
            data = o.get("data", {})
            if "image/png" in data:
                out.append(("image/png", ""))
            else:
                out.append(("text/plain", data.get("text/plain", "")))
        else:
            out.append((o["output_type"], o.get("ename", "")))
    return out


def volatile(cell) -> bool:
    return "volatile" in cell.get("metadata", {}).get("tags", [])


def write(path: Path) -> float:
    """Re-execute ``path`` and store it with its outputs (execution timing
    metadata dropped, so a rerun changes only what it printed or drew)."""
    import nbformat

    nb, seconds = execute(path)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nbformat.write(nb, path)
    return seconds


def _merged(outs):
    # consecutive stream chunks of one name are one text (the kernel may split them)
    merged = []
    for kind, text in outs:
        if merged and kind in ("stdout", "stderr") and merged[-1][0] == kind:
            merged[-1] = (kind, merged[-1][1] + text)
        else:
            merged.append((kind, text))
    return merged


def test_the_gallery_is_there():
    names = {p.stem for p in NOTEBOOKS}
    assert {"quickstart", "bfs_step_by_step", "formats_and_tile_fill", "networkx_backend",
            "gpu_vs_cpu"} <= names, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_with_outputs(path):
    import nbformat

    assert path.stat().st_size < MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes"
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    # executed top to bottom once, every cell, and no error stored
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1)), \
        f"{path.name}: re-execute it (python tests/test_notebook.py {path.relative_to(ROOT)})"
    for c in code:
        assert all(o["output_type"] != "error" for o in c.outputs), c.source[:80]
    plots = sum("image/png" in o.get("data", {}) for c in code for o in c.outputs)
    assert plots == PLOTS.get(path.stem, plots) and plots > 0, f"{path.name}: {plots} plots"
    text = "".join(o.get("text", "") for c in code for o in c.outputs)
    missing = [s for s in SHOWS.get(path.stem, []) if s not in text]
    assert not missing, f"{path.name} does not show {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_and_outputs_are_current(path):
    import nbformat

    committed = nbformat.read(path, as_version=4)
    nb, seconds = execute(path)
    stale = []
    for i, (old, new) in enumerate(zip(committed.cells, nb.cells)):
        if old.cell_type != "code":
            continue
        a, b = _merged(texts(old)), _merged(texts(new))
        if volatile(old):
            a, b = [k for k, _ in a], [k for k, _ in b]
        if a != b:
            stale.append(f"cell {i} ({old.source.splitlines()[0][:60]!r}):\n"
                         f"  committed {a!r}\n  now       {b!r}")
    assert not stale, (f"{path.name}: committed outputs are stale; refresh with "
                       f"python tests/test_notebook.py {path.relative_to(ROOT)}\n"
                       + "\n".join(stale))
    assert seconds < SECONDS, f"{path.name} took {seconds:.0f} s; keep it under 30 s"


if __name__ == "__main__":
    for arg in sys.argv[1:] or [str(p) for p in NOTEBOOKS]:
        p = Path(arg).resolve()
        print(f"{p.relative_to(ROOT)}: executed in {write(p):.1f} s, "
              f"{p.stat().st_size / 1000:.0f} KB", flush=True)
